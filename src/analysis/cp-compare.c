/* cp-compare.c: two captures and what matches between them
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp-compare.h"
#include "cp-op-paths.h"

struct _CpComparison
{
  GObject             parent_instance;

  CpAnalysis         *side[2];
  CpCompareKernelKey  kernel_key;
  CpCompareStepMatch  step_match;
  gint                steps_note;     /* index in notes of the step counts' note, or -1 */
  guint               windows[2];     /* ≥ 1: the per-step divisor */
  guint               n_steps[2];
  gint                typical[2];
  guint               comparable;

  GStringChunk       *strings;
  GPtrArray          *notes;          /* NULL-terminated */
  GArray             *steps;          /* CpCompareStep */
  GArray             *categories;     /* CpCompareItem */
  GArray             *kernels;
  GArray             *host_ops;
  GArray             *host_op_paths;  /* NULL until asked for */
  CpOpPaths          *paths[2];
  GArray             *devices;        /* CpCompareDevice */
  GArray             *findings;       /* CpCompareFinding */
  GHashTable         *kernel_index;   /* key → index in kernels */
  gint64              kernel_time[2]; /* capture-wide */
  gint64              matched_kernel_time[2];
  gboolean            single_device_match;
};

G_DEFINE_FINAL_TYPE (CpComparison, cp_comparison, G_TYPE_OBJECT)
G_DEFINE_QUARK (cp-compare-error-quark, cp_compare_error)

enum {
  PROP_0,
  PROP_TYPICAL_STEP_A,
  PROP_TYPICAL_STEP_B,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

const char *
cp_compare_side_to_string (CpCompareSide side)
{
  switch (side)
    {
    case CP_COMPARE_BOTH: return "both";
    case CP_COMPARE_ONLY_A: return "only_a";
    case CP_COMPARE_ONLY_B: return "only_b";
    default: return "unknown";
    }
}

const char *
cp_compare_finding_change_to_string (CpCompareFindingChange change)
{
  switch (change)
    {
    case CP_COMPARE_FINDING_APPEARED: return "appeared";
    case CP_COMPARE_FINDING_DISAPPEARED: return "disappeared";
    case CP_COMPARE_FINDING_WORSE: return "worse";
    case CP_COMPARE_FINDING_BETTER: return "better";
    case CP_COMPARE_FINDING_SAME: return "same";
    default: return "unknown";
    }
}

const char *
cp_compare_kernel_key_to_string (CpCompareKernelKey key)
{
  return key == CP_COMPARE_KERNELS_BY_OP ? "op" : "name";
}

const char *
cp_compare_group_to_string (CpCompareGroup group)
{
  switch (group)
    {
    case CP_COMPARE_GROUP_STEPS: return "steps";
    case CP_COMPARE_GROUP_CATEGORIES: return "categories";
    case CP_COMPARE_GROUP_KERNELS: return "kernels";
    case CP_COMPARE_GROUP_HOST_OPS: return "host_ops";
    case CP_COMPARE_GROUP_DEVICES: return "devices";
    default: return "unknown";
    }
}

/* Skips a bracketed run starting at s[i] == open; returns the index after
 * its matching close, or the end of the string when unbalanced. */
static gsize
skip_balanced (const char *s,
               gsize       i,
               char        open,
               char        close)
{
  guint depth = 0;

  for (; s[i] != '\0'; i++)
    {
      if (s[i] == open)
        depth++;
      else if (s[i] == close && depth > 0 && --depth == 0)
        return i + 1;
    }
  return i;
}

/* Whether a name before its template arguments says nothing of the kernel
 * (CUTLASS and CUB launchers). */
static gboolean
names_nothing (const char *so_far)
{
  static const char * const generic[] = { "Kernel", "Kernel2", "device_kernel", "kernel", NULL };
  const char *last = g_strrstr (so_far, "::");

  last = last ? last + 2 : so_far;
  return g_strv_contains (generic, last);
}

char *
cp_compare_normalise_kernel_name (const char *name)
{
  GString *out;
  const char *s;
  gsize i = 0, len;

  g_return_val_if_fail (name != NULL, NULL);

  s = name;
  while (g_ascii_isspace (*s))
    s++;
  if (g_str_has_prefix (s, "void "))
    s += 5;
  out = g_string_sized_new (strlen (s));
  while (s[i] != '\0')
    {
      char c = s[i];

      /* "operator<<", "operator()" and "operator[]" are names, not
       * brackets. */
      if (g_str_has_suffix (out->str, "operator") &&
          ((c == '(' && s[i + 1] == ')') || strchr ("<>=!+-*/%&|^~[", c) != NULL))
        {
          if (c == '(' && s[i + 1] == ')')
            {
              g_string_append (out, "()");
              i += 2;
            }
          else
            while (s[i] != '\0' && strchr ("<>=!+-*/%&|^~[]", s[i]) != NULL)
              g_string_append_c (out, s[i++]);
        }
      else if (c == '<' && names_nothing (out->str))
        {
          /* cutlass::Kernel2<cutlass_80_tensorop_…>: the kernel is its
           * first template argument. */
          gsize end = skip_balanced (s, i, '<', '>');
          gsize j = i + 1;

          while (j < end && s[j] != ',' && s[j] != '<' && s[j] != '>')
            j++;
          g_string_append_len (out, s + i, j - i);
          g_string_append (out, s[j] == ',' || s[j] == '<' ? ", …>" : ">");
          i = end;
        }
      else if (c == '<')
        {
          g_string_append (out, "<>");
          i = skip_balanced (s, i, '<', '>');
        }
      else if (c == '(')
        {
          /* The parameter list (or a cast in the name): everything up to
           * its close is launch-independent noise for matching. */
          i = skip_balanced (s, i, '(', ')');
        }
      else if (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') && g_ascii_isxdigit (s[i + 2]) &&
               (i == 0 || !g_ascii_isalnum (s[i - 1])))
        {
          g_string_append (out, "0x");
          for (i += 2; g_ascii_isxdigit (s[i]); i++)
            ;
        }
      else
        {
          g_string_append_c (out, c);
          i++;
        }
    }

  /* ROCm's kernel descriptor suffix: "input_fusion.kd" is the kernel
   * "input_fusion" in newer runtimes. */
  if (out->len > 3 && g_str_has_suffix (out->str, ".kd"))
    g_string_truncate (out, out->len - 3);

  /* A trailing instance number: "fusion.12", "triton_poi_fused_add_3",
   * "copy#4". The name must keep something before the separator. */
  len = out->len;
  while (len > 0 && g_ascii_isdigit (out->str[len - 1]))
    len--;
  if (len < out->len && len > 1 &&
      (out->str[len - 1] == '.' || out->str[len - 1] == '_' || out->str[len - 1] == '#'))
    g_string_truncate (out, len - 1);

  /* Spaces left by what was dropped. */
  while (out->len > 0 && g_ascii_isspace (out->str[out->len - 1]))
    g_string_truncate (out, out->len - 1);
  if (out->len == 0)
    g_string_assign (out, name);
  return g_string_free (out, FALSE);
}

/* What one side holds under one key while matching. */
typedef struct
{
  const char *best_name;
  gint64      best_total;
  guint       n_names;
  gint64      count;
  gint64      total;
} Acc;

typedef struct
{
  const char *key;
  Acc         side[2];
  gint        id;
} Match;

static Match *
match_get (GHashTable   *table,
           GPtrArray    *order,
           GStringChunk *strings,
           const char   *key)
{
  Match *m = g_hash_table_lookup (table, key);

  if (m == NULL)
    {
      m = g_new0 (Match, 1);
      m->key = g_string_chunk_insert_const (strings, key);
      m->id = -1;
      g_hash_table_insert (table, (gpointer) m->key, m);
      g_ptr_array_add (order, m);
    }
  return m;
}

static void
match_add (Match      *m,
           guint       side,
           const char *full_name,
           gint64      count,
           gint64      total)
{
  Acc *acc = &m->side[side];

  acc->n_names++;
  acc->count += count;
  acc->total = cp_sat_add (acc->total, total);
  if (acc->best_name == NULL || total > acc->best_total)
    {
      acc->best_name = full_name;
      acc->best_total = total;
    }
}

static void
fill_figures (CpCompareFigures *f,
              const Acc        *acc,
              guint             windows)
{
  f->count = acc->count;
  f->total = acc->total;
  f->mean = acc->count > 0 ? acc->total / acc->count : 0;
  f->per_step = acc->total / windows;
}

static void
item_from_match (CpComparison  *self,
                 const Match   *m,
                 CpCompareItem *item)
{
  memset (item, 0, sizeof *item);
  item->key = m->key;
  item->id = m->id;
  item->name_a = m->side[0].best_name ? g_string_chunk_insert_const (self->strings, m->side[0].best_name) : NULL;
  item->name_b = m->side[1].best_name ? g_string_chunk_insert_const (self->strings, m->side[1].best_name) : NULL;
  item->n_names_a = m->side[0].n_names;
  item->n_names_b = m->side[1].n_names;
  item->side = m->side[0].n_names == 0 ? CP_COMPARE_ONLY_B :
               m->side[1].n_names == 0 ? CP_COMPARE_ONLY_A : CP_COMPARE_BOTH;
  fill_figures (&item->a, &m->side[0], self->windows[0]);
  fill_figures (&item->b, &m->side[1], self->windows[1]);
  item->delta = item->b.per_step - item->a.per_step;
  item->ratio = item->a.per_step != 0 ? (double) item->b.per_step / item->a.per_step : NAN;
}

static gint
compare_items_by_delta (gconstpointer pa,
                        gconstpointer pb)
{
  const CpCompareItem *a = pa, *b = pb;
  gint64 da = ABS (a->delta), db = ABS (b->delta);
  gint64 ta = MAX (a->a.total, a->b.total), tb = MAX (b->a.total, b->b.total);

  if (da != db)
    return da > db ? -1 : 1;
  if (ta != tb)
    return ta > tb ? -1 : 1;
  return strcmp (a->key, b->key);
}

/* Turns the matches into items, sorted by |delta| when asked. */
static GArray *
finish_matches (CpComparison *self,
                GPtrArray    *order,
                gboolean      sort)
{
  GArray *items = g_array_sized_new (FALSE, TRUE, sizeof (CpCompareItem), order->len);

  for (guint i = 0; i < order->len; i++)
    {
      CpCompareItem item;

      item_from_match (self, order->pdata[i], &item);
      g_array_append_val (items, item);
    }
  if (sort)
    g_array_sort (items, compare_items_by_delta);
  return items;
}

static void
match_kernels (CpComparison *self)
{
  g_autoptr(GHashTable) table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  for (guint s = 0; s < 2; s++)
    {
      CpAnalysis *a = self->side[s];
      CpTrace *trace = cp_analysis_get_trace (a);

      self->kernel_time[s] = cp_analysis_get_kernel_time (a);
      if (self->kernel_key == CP_COMPARE_KERNELS_BY_OP)
        {
          guint n;
          const CpHostOpStats *ops = cp_analysis_get_host_ops (a, &n);

          for (guint i = 0; i < n; i++)
            {
              const char *name = cp_trace_get_string (trace, ops[i].name);

              if (ops[i].n_self_kernels == 0)
                continue;
              match_add (match_get (table, order, self->strings, name), s, name,
                         ops[i].n_self_kernels, ops[i].self_kernel_time);
            }
        }
      else
        {
          guint n;
          const CpKernelStats *ks = cp_analysis_get_kernels (a, &n);

          for (guint i = 0; i < n; i++)
            {
              const char *name = cp_trace_get_string (trace, ks[i].name);
              g_autofree char *key = cp_compare_normalise_kernel_name (name);

              match_add (match_get (table, order, self->strings, key), s, name, ks[i].count, ks[i].total);
            }
        }
    }

  self->kernels = finish_matches (self, order, TRUE);
  self->kernel_index = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const CpCompareItem *it = &g_array_index (self->kernels, CpCompareItem, i);

      g_hash_table_insert (self->kernel_index, (gpointer) it->key, GUINT_TO_POINTER (i + 1));
      if (it->side == CP_COMPARE_BOTH)
        {
          self->matched_kernel_time[0] = cp_sat_add (self->matched_kernel_time[0], it->a.total);
          self->matched_kernel_time[1] = cp_sat_add (self->matched_kernel_time[1], it->b.total);
        }
    }
}

static void
match_host_ops (CpComparison *self)
{
  g_autoptr(GHashTable) table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  for (guint s = 0; s < 2; s++)
    {
      CpTrace *trace = cp_analysis_get_trace (self->side[s]);
      guint n;
      const CpHostOpStats *ops = cp_analysis_get_host_ops (self->side[s], &n);

      for (guint i = 0; i < n; i++)
        {
          const char *name = cp_trace_get_string (trace, ops[i].name);

          match_add (match_get (table, order, self->strings, name), s, name, ops[i].count, ops[i].total);
        }
    }
  self->host_ops = finish_matches (self, order, TRUE);
}

typedef struct
{
  GArray *acc;   /* Acc by path id */
} PathSums;

static void
sum_path (CpSliceRef  op,
          guint       path,
          gint64      dur,
          gpointer    user_data)
{
  PathSums *sums = user_data;
  Acc *acc;

  if (path >= sums->acc->len)
    g_array_set_size (sums->acc, path + 1);
  acc = &g_array_index (sums->acc, Acc, path);
  acc->count++;
  acc->total = cp_sat_add (acc->total, dur);
}

static void
match_host_op_paths (CpComparison *self)
{
  g_autoptr(GHashTable) table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GPtrArray) order = g_ptr_array_new ();

  for (guint s = 0; s < 2; s++)
    {
      PathSums sums = { g_array_new (FALSE, TRUE, sizeof (Acc)) };

      self->paths[s] = _cp_op_paths_new (self->side[s], sum_path, &sums);
      for (guint id = 0; id < sums.acc->len; id++)
        {
          const Acc *acc = &g_array_index (sums.acc, Acc, id);
          const char *key = _cp_op_paths_get_string (self->paths[s], id);

          match_add (match_get (table, order, self->strings, key), s, key, acc->count, acc->total);
        }
      g_array_unref (sums.acc);
    }
  self->host_op_paths = finish_matches (self, order, TRUE);
}

static void
match_categories (CpComparison *self)
{
  self->categories = g_array_new (FALSE, TRUE, sizeof (CpCompareItem));
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary sum[2];
      CpCompareItem item = { 0 };

      for (guint s = 0; s < 2; s++)
        cp_analysis_get_time_summary (self->side[s], c, &sum[s]);
      if (sum[0].total == 0 && sum[1].total == 0)
        continue;
      item.key = cp_time_category_to_string (c);
      item.name_a = sum[0].total > 0 ? cp_time_category_get_label (c) : NULL;
      item.name_b = sum[1].total > 0 ? cp_time_category_get_label (c) : NULL;
      item.n_names_a = sum[0].total > 0;
      item.n_names_b = sum[1].total > 0;
      item.side = sum[0].total == 0 ? CP_COMPARE_ONLY_B : sum[1].total == 0 ? CP_COMPARE_ONLY_A : CP_COMPARE_BOTH;
      item.id = c;
      item.a.count = self->windows[0];
      item.b.count = self->windows[1];
      item.a.total = sum[0].total;
      item.b.total = sum[1].total;
      /* Per window, as the breakdown gives it: the categories partition
       * every window, so their per-step figures add up to the step. */
      item.a.mean = item.a.per_step = sum[0].total / self->windows[0];
      item.b.mean = item.b.per_step = sum[1].total / self->windows[1];
      item.delta = item.b.per_step - item.a.per_step;
      item.ratio = item.a.per_step != 0 ? (double) item.b.per_step / item.a.per_step : NAN;
      g_array_append_val (self->categories, item);
    }
}

static void
match_devices (CpComparison *self)
{
  guint n[2];
  const CpDeviceStats *devs[2];

  self->devices = g_array_new (FALSE, TRUE, sizeof (CpCompareDevice));
  for (guint s = 0; s < 2; s++)
    devs[s] = cp_analysis_get_devices (self->side[s], &n[s]);

  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < n[s]; i++)
      {
        CpTrace *trace = cp_analysis_get_trace (self->side[s]);
        CpDeviceKind kind = cp_trace_get_device_kind (trace, devs[s][i].device);
        CpCompareDevice *d = NULL;

        for (guint j = 0; j < self->devices->len; j++)
          {
            CpCompareDevice *e = &g_array_index (self->devices, CpCompareDevice, j);

            if (e->ordinal == devs[s][i].device && e->kind == kind)
              d = e;
          }
        if (d == NULL)
          {
            CpCompareDevice fresh = { 0 };

            fresh.ordinal = fresh.ordinal_b = devs[s][i].device;
            fresh.kind = kind;
            fresh.side = s == 0 ? CP_COMPARE_ONLY_A : CP_COMPARE_ONLY_B;
            fresh.utilization_a = fresh.utilization_b = NAN;
            g_array_append_val (self->devices, fresh);
            d = &g_array_index (self->devices, CpCompareDevice, self->devices->len - 1);
          }
        else if (s == 1 && d->side == CP_COMPARE_ONLY_A)
          d->side = CP_COMPARE_BOTH;
        /* One device on each side, of one kind: the same device seen by
         * two ranks of a job (GPU 3 in one capture, GPU 1 in the other). */
        if (s == 1 && d->side == CP_COMPARE_ONLY_B && n[0] == 1 && n[1] == 1 && self->devices->len == 2)
          {
            CpCompareDevice *first = &g_array_index (self->devices, CpCompareDevice, 0);

            if (first->kind == kind)
              {
                self->single_device_match = TRUE;
                first->side = CP_COMPARE_BOTH;
                first->ordinal_b = devs[1][0].device;
                g_array_set_size (self->devices, 1);
                d = first;
              }
          }
        if (s == 0)
          {
            d->utilization_a = devs[s][i].utilization;
            d->kernel_time_a = devs[s][i].kernel_time / self->windows[0];
            d->idle_a = devs[s][i].idle / self->windows[0];
          }
        else
          {
            d->utilization_b = devs[s][i].utilization;
            d->kernel_time_b = devs[s][i].kernel_time / self->windows[1];
            d->idle_b = devs[s][i].idle / self->windows[1];
          }
      }
}

typedef struct
{
  gint64 duration;
  guint  index;
} StepOrder;

static int
compare_step_order (const void *pa,
                    const void *pb)
{
  const StepOrder *a = pa, *b = pb;

  if (a->duration != b->duration)
    return a->duration < b->duration ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* The step pairs of match: in order, or by number (NULL when no number is
 * on both sides). */
static GArray *
pair_steps (CpComparison       *self,
            CpCompareStepMatch  match)
{
  guint n[2];
  const CpStepStats *st[2];
  GArray *steps = g_array_new (FALSE, TRUE, sizeof (CpCompareStep));
  g_autoptr(GHashTable) b_by_number = NULL;

  for (guint s = 0; s < 2; s++)
    st[s] = cp_analysis_get_steps (self->side[s], &n[s]);
  if (match == CP_COMPARE_STEPS_BY_NUMBER)
    {
      /* B's first step of each number. */
      b_by_number = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint j = n[1]; j-- > 0;)
        g_hash_table_insert (b_by_number, (gpointer) &st[1][j].number, GUINT_TO_POINTER (j + 1));
    }
  for (guint i = 0; i < n[0]; i++)
    {
      CpCompareStep cs = { 0 };
      guint j = i;

      if (b_by_number != NULL)
        {
          guint found = GPOINTER_TO_UINT (g_hash_table_lookup (b_by_number, &st[0][i].number));

          if (found == 0)
            continue;
          j = found - 1;
          /* A number A repeats pairs once. */
          g_hash_table_remove (b_by_number, &st[0][i].number);
        }
      else if (i >= n[1])
        break;
      cs.index = i;
      cs.index_b = j;
      cs.number_a = st[0][i].number;
      cs.number_b = st[1][j].number;
      cs.duration_a = st[0][i].end - st[0][i].start;
      cs.duration_b = st[1][j].end - st[1][j].start;
      cs.delta = cs.duration_b - cs.duration_a;
      g_array_append_val (steps, cs);
    }
  if (match == CP_COMPARE_STEPS_BY_NUMBER && steps->len == 0)
    g_clear_pointer (&steps, g_array_unref);
  return steps;
}

static void
match_steps (CpComparison *self)
{
  guint n[2];
  const CpStepStats *st[2];

  for (guint s = 0; s < 2; s++)
    {
      st[s] = cp_analysis_get_steps (self->side[s], &n[s]);
      self->n_steps[s] = n[s];
    }
  self->step_match = CP_COMPARE_STEPS_IN_ORDER;
  self->steps = pair_steps (self, CP_COMPARE_STEPS_IN_ORDER);

  /* The median step by duration (the lower one of an even count), ties by
   * position. */
  for (guint s = 0; s < 2; s++)
    {
      g_autofree StepOrder *order = NULL;

      self->typical[s] = -1;
      if (n[s] == 0)
        continue;
      order = g_new (StepOrder, n[s]);
      for (guint i = 0; i < n[s]; i++)
        {
          order[i].duration = st[s][i].end - st[s][i].start;
          order[i].index = i;
        }
      qsort (order, n[s], sizeof *order, compare_step_order);
      self->typical[s] = order[(n[s] - 1) / 2].index;
    }
}

static void
match_findings (CpComparison *self)
{
  GListModel *lists[2];

  self->findings = g_array_new (FALSE, TRUE, sizeof (CpCompareFinding));
  for (guint s = 0; s < 2; s++)
    lists[s] = cp_analysis_get_findings (self->side[s]);

  for (guint i = 0; i < g_list_model_get_n_items (lists[1]); i++)
    {
      g_autoptr(CpFinding) fb = g_list_model_get_item (lists[1], i);
      CpFinding *fa = cp_analysis_lookup_finding (self->side[0], cp_finding_get_rule_id (fb));
      CpCompareFinding cf = { 0 };

      cf.rule_id = cp_finding_get_rule_id (fb);
      cf.title = cp_finding_get_title (fb);
      cf.a = fa;
      cf.b = fb;
      if (fa == NULL)
        cf.change = CP_COMPARE_FINDING_APPEARED;
      else if (cp_finding_get_severity (fb) > cp_finding_get_severity (fa))
        cf.change = CP_COMPARE_FINDING_WORSE;
      else if (cp_finding_get_severity (fb) < cp_finding_get_severity (fa))
        cf.change = CP_COMPARE_FINDING_BETTER;
      else
        cf.change = CP_COMPARE_FINDING_SAME;
      g_array_append_val (self->findings, cf);
    }
  for (guint i = 0; i < g_list_model_get_n_items (lists[0]); i++)
    {
      g_autoptr(CpFinding) fa = g_list_model_get_item (lists[0], i);
      CpCompareFinding cf = { 0 };

      if (cp_analysis_lookup_finding (self->side[1], cp_finding_get_rule_id (fa)) != NULL)
        continue;
      cf.rule_id = cp_finding_get_rule_id (fa);
      cf.title = cp_finding_get_title (fa);
      cf.a = fa;
      cf.change = CP_COMPARE_FINDING_DISAPPEARED;
      g_array_append_val (self->findings, cf);
    }
}

/* "chrome-json+gzip" → "chrome-json". */
static char *
producer_of (CpAnalysis *a)
{
  const CpLoadReport *r = cp_trace_get_load_report (cp_analysis_get_trace (a));
  const char *fmt = r && r->format ? r->format : "";
  const char *plus = strchr (fmt, '+');

  return plus ? g_strndup (fmt, plus - fmt) : g_strdup (fmt);
}

static void
add_note (CpComparison *self,
          char         *note)
{
  g_ptr_array_insert (self->notes, self->notes->len - 1, note);
}

/* The note on unequal step counts, for the matching in force. */
static char *
steps_note (CpComparison *self)
{
  if (self->step_match == CP_COMPARE_STEPS_BY_NUMBER)
    return g_strdup_printf (_("A has %u steps and B %u: per-step figures divide by each side’s own count, and the %u steps numbered on both sides are matched by number"),
                            self->n_steps[0], self->n_steps[1], self->steps->len);
  return g_strdup_printf (_("A has %u steps and B %u: per-step figures divide by each side’s own count, and the first %u steps are matched in order"),
                          self->n_steps[0], self->n_steps[1], MIN (self->n_steps[0], self->n_steps[1]));
}

static void
decide_comparable (CpComparison *self)
{
  g_autofree char *pa = producer_of (self->side[0]);
  g_autofree char *pb = producer_of (self->side[1]);
  gboolean steps_a = cp_analysis_has_steps (self->side[0]);
  gboolean steps_b = cp_analysis_has_steps (self->side[1]);
  guint kernels_both = 0, ops_both = 0, devices_both = 0;

  for (guint i = 0; i < self->kernels->len; i++)
    kernels_both += g_array_index (self->kernels, CpCompareItem, i).side == CP_COMPARE_BOTH;
  for (guint i = 0; i < self->host_ops->len; i++)
    ops_both += g_array_index (self->host_ops, CpCompareItem, i).side == CP_COMPARE_BOTH;
  for (guint i = 0; i < self->devices->len; i++)
    devices_both += g_array_index (self->devices, CpCompareDevice, i).side == CP_COMPARE_BOTH;

  self->comparable = 0;
  if (steps_a == steps_b)
    self->comparable |= CP_COMPARE_GROUP_STEPS | CP_COMPARE_GROUP_CATEGORIES;
  else
    add_note (self, g_strdup (steps_a ? _("B has no steps: its whole capture is one window, so step times and the breakdown per step do not compare")
                                      : _("A has no steps: its whole capture is one window, so step times and the breakdown per step do not compare")));
  self->steps_note = -1;
  if (steps_a && steps_b && self->n_steps[0] != self->n_steps[1])
    {
      self->steps_note = self->notes->len - 1;
      add_note (self, steps_note (self));
    }

  if (kernels_both > 0)
    self->comparable |= CP_COMPARE_GROUP_KERNELS;
  else if (self->kernel_time[0] > 0 && self->kernel_time[1] > 0)
    add_note (self, g_strdup (self->kernel_key == CP_COMPARE_KERNELS_BY_OP ?
                              _("No host op launches kernels on both sides: kernels do not compare by op") :
                              _("No kernel name is found on both sides: kernels do not compare")));
  else
    add_note (self, g_strdup (_("One side has no kernels: kernels do not compare")));

  if (g_strcmp0 (pa, pb) != 0)
    add_note (self, g_strdup_printf (_("A is a %s capture and B a %s capture: their producers name host ops differently, so host ops do not compare; steps, the breakdown, devices and kernels come from the same model"),
                                     pa, pb));
  else if (ops_both > 0)
    self->comparable |= CP_COMPARE_GROUP_HOST_OPS;
  else
    add_note (self, g_strdup (_("No host op name is found on both sides: host ops do not compare")));

  if (self->single_device_match)
    {
      const CpCompareDevice *d = &g_array_index (self->devices, CpCompareDevice, 0);

      add_note (self, g_strdup_printf (_("Each capture has one device, %d in A and %d in B: they are compared as one"),
                                       d->ordinal, d->ordinal_b));
    }
  if (devices_both > 0)
    self->comparable |= CP_COMPARE_GROUP_DEVICES;
  else if (self->devices->len > 0)
    add_note (self, g_strdup (_("No device has the same ordinal and kind on both sides: devices do not compare")));
}

static void
cp_comparison_finalize (GObject *object)
{
  CpComparison *self = CP_COMPARISON (object);

  g_clear_object (&self->side[0]);
  g_clear_object (&self->side[1]);
  g_clear_pointer (&self->notes, g_ptr_array_unref);
  g_clear_pointer (&self->steps, g_array_unref);
  g_clear_pointer (&self->categories, g_array_unref);
  g_clear_pointer (&self->kernels, g_array_unref);
  g_clear_pointer (&self->host_ops, g_array_unref);
  g_clear_pointer (&self->host_op_paths, g_array_unref);
  g_clear_pointer (&self->paths[0], _cp_op_paths_free);
  g_clear_pointer (&self->paths[1], _cp_op_paths_free);
  g_clear_pointer (&self->devices, g_array_unref);
  g_clear_pointer (&self->findings, g_array_unref);
  g_clear_pointer (&self->kernel_index, g_hash_table_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);

  G_OBJECT_CLASS (cp_comparison_parent_class)->finalize (object);
}

static void
cp_comparison_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CpComparison *self = CP_COMPARISON (object);

  switch (prop_id)
    {
    case PROP_TYPICAL_STEP_A:
      g_value_set_int (value, self->typical[0]);
      break;
    case PROP_TYPICAL_STEP_B:
      g_value_set_int (value, self->typical[1]);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_comparison_class_init (CpComparisonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cp_comparison_finalize;
  object_class->get_property = cp_comparison_get_property;

  properties[PROP_TYPICAL_STEP_A] =
    g_param_spec_int ("typical-step-a", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_TYPICAL_STEP_B] =
    g_param_spec_int ("typical-step-b", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cp_comparison_init (CpComparison *self)
{
  self->strings = g_string_chunk_new (4096);
  self->notes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->notes, NULL);
  self->typical[0] = self->typical[1] = -1;
}

CpComparison *
cp_comparison_new (CpAnalysis         *a,
                   CpAnalysis         *b,
                   CpCompareKernelKey  kernel_key)
{
  CpComparison *self;

  g_return_val_if_fail (CP_IS_ANALYSIS (a), NULL);
  g_return_val_if_fail (CP_IS_ANALYSIS (b), NULL);

  self = g_object_new (CP_TYPE_COMPARISON, NULL);
  self->side[0] = g_object_ref (a);
  self->side[1] = g_object_ref (b);
  self->kernel_key = kernel_key;
  for (guint s = 0; s < 2; s++)
    {
      guint n = 0;

      cp_analysis_get_windows (self->side[s], &n);
      self->windows[s] = MAX (n, 1);
    }

  match_steps (self);
  match_categories (self);
  match_kernels (self);
  match_host_ops (self);
  match_devices (self);
  match_findings (self);
  decide_comparable (self);
  return self;
}

gboolean
cp_comparison_check (CpComparison  *self,
                     GError       **error)
{
  gboolean steps_a, steps_b;
  gint64 ka, kb;

  g_return_val_if_fail (CP_IS_COMPARISON (self), FALSE);

  steps_a = cp_analysis_has_steps (self->side[0]);
  steps_b = cp_analysis_has_steps (self->side[1]);
  ka = self->kernel_time[0];
  kb = self->kernel_time[1];
  if (steps_a != steps_b)
    {
      g_set_error_literal (error, CP_COMPARE_ERROR, CP_COMPARE_ERROR_NO_STEPS,
                           steps_a ? _("B has no steps (no ProfilerStep or step markers), A has: their step times do not compare")
                                   : _("A has no steps (no ProfilerStep or step markers), B has: their step times do not compare"));
      return FALSE;
    }
  if ((ka > 0) != (kb > 0))
    {
      g_set_error_literal (error, CP_COMPARE_ERROR, CP_COMPARE_ERROR_NO_KERNELS,
                           ka > 0 ? _("B has no kernels, A has: the captures do not compare")
                                  : _("A has no kernels, B has: the captures do not compare"));
      return FALSE;
    }
  if (ka > 0 && !(self->comparable & CP_COMPARE_GROUP_KERNELS))
    {
      g_set_error_literal (error, CP_COMPARE_ERROR, CP_COMPARE_ERROR_NO_COMMON_KERNELS,
                           self->kernel_key == CP_COMPARE_KERNELS_BY_OP ?
                           _("No host op launches kernels on both sides: the captures do not compare by op") :
                           _("No kernel is found on both sides (names compared after folding template arguments): the captures do not compare"));
      return FALSE;
    }
  return TRUE;
}

CpAnalysis *
cp_comparison_get_a (CpComparison *self)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  return self->side[0];
}

CpAnalysis *
cp_comparison_get_b (CpComparison *self)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  return self->side[1];
}

CpCompareKernelKey
cp_comparison_get_kernel_key (CpComparison *self)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), CP_COMPARE_KERNELS_BY_NAME);
  return self->kernel_key;
}

guint
cp_comparison_get_comparable (CpComparison *self)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), 0);
  return self->comparable;
}

const char * const *
cp_comparison_get_notes (CpComparison *self)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  return (const char * const *) self->notes->pdata;
}

void
cp_comparison_get_step_time (CpComparison *self,
                             gint64       *mean_a,
                             gint64       *mean_b,
                             gint64       *delta,
                             double       *percent)
{
  CpTimeSummary sa, sb;

  g_return_if_fail (CP_IS_COMPARISON (self));
  cp_analysis_get_step_summary (self->side[0], &sa);
  cp_analysis_get_step_summary (self->side[1], &sb);
  if (mean_a)
    *mean_a = sa.mean;
  if (mean_b)
    *mean_b = sb.mean;
  if (delta)
    *delta = sb.mean - sa.mean;
  if (percent)
    *percent = sa.mean > 0 ? 100.0 * (sb.mean - sa.mean) / sa.mean : NAN;
}

const CpCompareStep *
cp_comparison_get_steps (CpComparison *self,
                         guint        *n_steps)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (n_steps)
    *n_steps = self->steps->len;
  return (const CpCompareStep *) self->steps->data;
}

const char *
cp_compare_step_match_to_string (CpCompareStepMatch match)
{
  return match == CP_COMPARE_STEPS_BY_NUMBER ? "number" : "order";
}

gboolean
cp_comparison_set_step_match (CpComparison       *self,
                              CpCompareStepMatch  match)
{
  GArray *steps;

  g_return_val_if_fail (CP_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (match == CP_COMPARE_STEPS_IN_ORDER || match == CP_COMPARE_STEPS_BY_NUMBER, FALSE);

  if (match == self->step_match)
    return TRUE;
  if ((steps = pair_steps (self, match)) == NULL)
    return FALSE;
  g_array_unref (self->steps);
  self->steps = steps;
  self->step_match = match;
  if (self->steps_note >= 0)
    {
      g_free (self->notes->pdata[self->steps_note]);
      self->notes->pdata[self->steps_note] = steps_note (self);
    }
  return TRUE;
}

CpCompareStepMatch
cp_comparison_get_step_match (CpComparison *self)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), CP_COMPARE_STEPS_IN_ORDER);
  return self->step_match;
}

void
cp_comparison_get_n_steps (CpComparison *self,
                           guint        *n_a,
                           guint        *n_b)
{
  g_return_if_fail (CP_IS_COMPARISON (self));
  if (n_a)
    *n_a = self->n_steps[0];
  if (n_b)
    *n_b = self->n_steps[1];
}

gint
cp_comparison_get_typical_step (CpComparison *self,
                                guint         side)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), -1);
  g_return_val_if_fail (side < 2, -1);
  return self->typical[side];
}

gboolean
cp_comparison_set_typical_step (CpComparison *self,
                                guint         side,
                                guint         index)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), FALSE);
  g_return_val_if_fail (side < 2, FALSE);

  if (index >= self->n_steps[side])
    return FALSE;
  if (self->typical[side] != (gint) index)
    {
      self->typical[side] = index;
      g_object_notify_by_pspec (G_OBJECT (self), properties[side == 0 ? PROP_TYPICAL_STEP_A : PROP_TYPICAL_STEP_B]);
    }
  return TRUE;
}

const CpCompareItem *
cp_comparison_get_categories (CpComparison *self,
                              guint        *n_items)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (n_items)
    *n_items = self->categories->len;
  return (const CpCompareItem *) self->categories->data;
}

const CpCompareItem *
cp_comparison_get_kernels (CpComparison *self,
                           guint        *n_items)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (n_items)
    *n_items = self->kernels->len;
  return (const CpCompareItem *) self->kernels->data;
}

const CpCompareItem *
cp_comparison_get_host_ops (CpComparison *self,
                            guint        *n_items)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (n_items)
    *n_items = self->host_ops->len;
  return (const CpCompareItem *) self->host_ops->data;
}

const CpCompareDevice *
cp_comparison_get_devices (CpComparison *self,
                           guint        *n_devices)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (n_devices)
    *n_devices = self->devices->len;
  return (const CpCompareDevice *) self->devices->data;
}

const CpCompareFinding *
cp_comparison_get_findings (CpComparison *self,
                            guint        *n_findings)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (n_findings)
    *n_findings = self->findings->len;
  return (const CpCompareFinding *) self->findings->data;
}

const CpCompareItem *
cp_comparison_lookup_kernel (CpComparison *self,
                             const char   *name)
{
  guint i;

  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  i = GPOINTER_TO_UINT (g_hash_table_lookup (self->kernel_index, name));
  if (i == 0 && self->kernel_key == CP_COMPARE_KERNELS_BY_NAME)
    {
      g_autofree char *key = cp_compare_normalise_kernel_name (name);

      i = GPOINTER_TO_UINT (g_hash_table_lookup (self->kernel_index, key));
    }
  /* A part of a name, when it names one key only. */
  for (guint k = 0; i == 0 && k < self->kernels->len; k++)
    if (strstr (g_array_index (self->kernels, CpCompareItem, k).key, name) != NULL)
      {
        for (guint m = k + 1; m < self->kernels->len; m++)
          if (strstr (g_array_index (self->kernels, CpCompareItem, m).key, name) != NULL)
            return NULL;
        i = k + 1;
      }
  return i ? &g_array_index (self->kernels, CpCompareItem, i - 1) : NULL;
}

void
cp_comparison_get_kernel_time (CpComparison *self,
                               gint64       *per_step_a,
                               gint64       *per_step_b)
{
  g_return_if_fail (CP_IS_COMPARISON (self));
  if (per_step_a)
    *per_step_a = self->kernel_time[0] / self->windows[0];
  if (per_step_b)
    *per_step_b = self->kernel_time[1] / self->windows[1];
}

void
cp_comparison_get_kernel_match (CpComparison *self,
                                double       *percent_a,
                                double       *percent_b)
{
  g_return_if_fail (CP_IS_COMPARISON (self));
  if (percent_a)
    *percent_a = self->kernel_time[0] > 0 ? 100.0 * self->matched_kernel_time[0] / self->kernel_time[0] : NAN;
  if (percent_b)
    *percent_b = self->kernel_time[1] > 0 ? 100.0 * self->matched_kernel_time[1] / self->kernel_time[1] : NAN;
}

static gboolean
item_in (const CpCompareItem *item,
         GArray              *items)
{
  return items->len > 0 &&
         item >= &g_array_index (items, CpCompareItem, 0) &&
         item < &g_array_index (items, CpCompareItem, 0) + items->len;
}

const CpCompareItem *
cp_comparison_get_host_op_paths (CpComparison *self,
                                 guint        *n_items)
{
  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);
  if (self->host_op_paths == NULL)
    match_host_op_paths (self);
  if (n_items)
    *n_items = self->host_op_paths->len;
  return (const CpCompareItem *) self->host_op_paths->data;
}

typedef struct
{
  guint   path;
  GArray *out;
} PathCollect;

static void
collect_path (CpSliceRef  op,
              guint       path,
              gint64      dur,
              gpointer    user_data)
{
  PathCollect *pc = user_data;

  if (path == pc->path)
    g_array_append_val (pc->out, op);
}

void
cp_comparison_collect_slices (CpComparison        *self,
                              const CpCompareItem *item,
                              guint                side,
                              GArray              *out)
{
  CpAnalysis *a;
  CpTrace *trace;
  guint n;

  g_return_if_fail (CP_IS_COMPARISON (self));
  g_return_if_fail (item != NULL);
  g_return_if_fail (side < 2);
  g_return_if_fail (out != NULL);

  a = self->side[side];
  trace = cp_analysis_get_trace (a);
  if (item_in (item, self->kernels) && self->kernel_key == CP_COMPARE_KERNELS_BY_NAME)
    {
      const CpKernelStats *ks = cp_analysis_get_kernels (a, &n);

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *key = cp_compare_normalise_kernel_name (cp_trace_get_string (trace, ks[i].name));

          if (g_str_equal (key, item->key))
            cp_analysis_collect_kernel_slices (a, ks[i].name, out);
        }
    }
  else if (item_in (item, self->kernels) || item_in (item, self->host_ops))
    {
      const CpHostOpStats *ops = cp_analysis_get_host_ops (a, &n);

      for (guint i = 0; i < n; i++)
        if (g_str_equal (cp_trace_get_string (trace, ops[i].name), item->key))
          cp_analysis_collect_host_slices (a, ops[i].name, out);
    }
  else if (self->host_op_paths != NULL && item_in (item, self->host_op_paths))
    {
      for (guint id = 0; id < _cp_op_paths_get_n (self->paths[side]); id++)
        if (g_str_equal (_cp_op_paths_get_string (self->paths[side], id), item->key))
          {
            PathCollect pc = { id, out };

            _cp_op_paths_free (_cp_op_paths_new (a, collect_path, &pc));
            break;
          }
    }
  else
    g_critical ("cp_comparison_collect_slices: the item is not one of this comparison’s kernels or host ops");
}

static gint
compare_item_ptrs_by_delta (gconstpointer pa,
                            gconstpointer pb)
{
  return compare_items_by_delta (*(const CpCompareItem * const *) pa, *(const CpCompareItem * const *) pb);
}

guint
cp_comparison_explain (CpComparison         *self,
                       const CpCompareItem **out)
{
  guint n = 0;

  g_return_val_if_fail (CP_IS_COMPARISON (self), 0);
  g_return_val_if_fail (out != NULL, 0);

  for (guint i = 0; i < self->categories->len && n < CP_TIME_N_CATEGORIES; i++)
    {
      const CpCompareItem *it = &g_array_index (self->categories, CpCompareItem, i);

      if (it->delta != 0)
        out[n++] = it;
    }
  qsort (out, n, sizeof *out, compare_item_ptrs_by_delta);
  return n;
}
