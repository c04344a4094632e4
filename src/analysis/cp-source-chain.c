/* cp-source-chain.c: from a kernel back to the code that launched it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-analysis-private.h"

/* The slice on row of lane whose start is the last at or before start, if
 * it covers [start, end]; -1 otherwise. A row's slices never overlap, so
 * only that one can. */
static gint64
covering_on_row (CpLane *lane,
                 guint   row,
                 gint64  start,
                 gint64  end)
{
  const CpSlices *s = cp_lane_get_slices (lane);
  guint n, lo = 0, hi;
  const guint32 *idx = cp_lane_get_row_slices (lane, row, &n);
  guint32 i;

  if (idx == NULL || n == 0)
    return -1;
  hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (cp_slices_get_start (s, idx[mid]) <= start)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  i = idx[lo - 1];
  return cp_slices_get_end (s, i) >= end ? (gint64) i : -1;
}

static CpSourceKind
host_kind (CpAnalysis *self,
           guint       lane,
           guint       index,
           CpStr       python_cat)
{
  const CpSlices *s = self->lanes[lane].slices;
  CpStr name = cp_slices_get_name (s, index);
  CpStr cat = cp_slices_get_cat (s, index);
  guint32 nf = cp_name_cache_lookup (self->names, name);

  if (python_cat != CP_STR_EMPTY && cat == python_cat)
    return g_str_has_prefix (cp_trace_get_string (self->trace, name), "nn.Module: ") ? CP_SOURCE_MODULE
                                                                                      : CP_SOURCE_FRAME;
  if (nf & CP_NAME_RUNTIME)
    return CP_SOURCE_LAUNCH;
  if (cp_slices_get_dur (s, index) > 0 && _cp_analysis_is_host_op (self, lane, index, nf, cat, python_cat))
    return CP_SOURCE_OP;
  return CP_SOURCE_SCOPE;
}

GArray *
cp_analysis_source_chain (CpAnalysis *self,
                          CpSliceRef  ref)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CpSourceLink));
  CpStr python_cat;
  CpLane *lane;
  const CpSlices *s;
  gint64 start, end;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), out);

  if (ref.lane >= self->n_lanes || ref.index >= self->lanes[ref.lane].slices->n)
    return out;
  python_cat = cp_string_pool_lookup (cp_trace_get_string_pool (self->trace), "python_function");
  if (python_cat == G_MAXUINT32)
    python_cat = CP_STR_EMPTY;

  /* A device slice starts from the call that launched it. */
  if (self->lanes[ref.lane].kind != CP_LANE_HOST_THREAD)
    {
      const CpLaneInfo *info = &self->lanes[ref.lane];
      CpSourceLink link;

      if (info->launch == NULL || info->launch[ref.index].lane == G_MAXUINT32)
        return out;
      ref = info->launch[ref.index];
      if (ref.lane >= self->n_lanes || self->lanes[ref.lane].kind != CP_LANE_HOST_THREAD)
        return out;
      link.kind = CP_SOURCE_LAUNCH;
      link.ref = ref;
      g_array_append_val (out, link);
    }

  /* Then every slice around it on its thread, innermost first: one a row
   * at most, found on each row above by a binary search. */
  lane = self->lanes[ref.lane].lane;
  s = self->lanes[ref.lane].slices;
  start = cp_slices_get_start (s, ref.index);
  end = cp_slices_get_end (s, ref.index);
  for (gint row = (gint) s->row[ref.index] - 1; row >= 0; row--)
    {
      gint64 i = covering_on_row (lane, (guint) row, start, end);
      CpSourceLink link;

      if (i < 0 || (guint) i == ref.index)
        continue;
      link.ref.lane = ref.lane;
      link.ref.index = (guint32) i;
      link.kind = host_kind (self, ref.lane, (guint) i, python_cat);
      g_array_append_val (out, link);
    }
  return out;
}

const CpXlaSource *
cp_analysis_xla_source (CpAnalysis *self,
                        CpSliceRef  ref)
{
  const CpSlices *s;
  guint32 args;
  CpStr op;
  gint64 program = 0;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);

  if (cp_trace_get_n_xla_sources (self->trace) == 0 || ref.lane >= self->n_lanes ||
      ref.index >= self->lanes[ref.lane].slices->n)
    return NULL;
  s = self->lanes[ref.lane].slices;
  args = cp_slices_get_args (s, ref.index);
  if (!cp_xstats_find_int (self->trace, args, self->key_program_id, &program))
    return NULL;
  op = cp_xstats_find_string (self->trace, args, self->key_hlo_op);
  if (op == CP_STR_EMPTY)
    op = cp_slices_get_name (s, ref.index);
  return cp_trace_find_xla_source (self->trace, program, op);
}

void
cp_analysis_collect_xla_code_slices (CpAnalysis *self,
                                     CpStr       code,
                                     GArray     *out)
{
  g_return_if_fail (CP_IS_ANALYSIS (self));
  g_return_if_fail (out != NULL);

  if (code == CP_STR_EMPTY || cp_trace_get_n_xla_sources (self->trace) == 0)
    return;
  for (guint l = 0; l < self->n_lanes; l++)
    {
      if (self->lanes[l].kind != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < self->lanes[l].slices->n; i++)
        {
          CpSliceRef ref = { l, i };
          const CpXlaSource *src = cp_analysis_xla_source (self, ref);

          if (src != NULL && src->code == code)
            g_array_append_val (out, ref);
        }
    }
}

const char *
cp_source_kind_to_string (CpSourceKind kind)
{
  switch (kind)
    {
    case CP_SOURCE_LAUNCH: return "launch";
    case CP_SOURCE_OP: return "op";
    case CP_SOURCE_MODULE: return "module";
    case CP_SOURCE_FRAME: return "frame";
    case CP_SOURCE_SCOPE:
    default:
      return "scope";
    }
}

gboolean
cp_source_frame_is_library (const char *name)
{
  static const char *const parts[] = { "torch/", "site-packages/", "threading.py", "multiprocessing/",
                                       "runpy.py", "concurrent/", "asyncio/", NULL };

  if (name == NULL || name[0] == '<')
    return TRUE;
  for (guint i = 0; parts[i] != NULL; i++)
    if (strstr (name, parts[i]) != NULL)
      return TRUE;
  return FALSE;
}

static gint
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const CpSourceGroup *x = a, *y = b;

  if (x->time != y->time)
    return x->time > y->time ? -1 : 1;
  return x->name < y->name ? -1 : x->name > y->name;
}

/* One more kernel of dur ns in the group named name (index: CpStr + 1 ->
 * its position in out + 1). */
static void
count_in_group (GArray     *out,
                GHashTable *index,
                CpStr       name,
                gint64      dur)
{
  gpointer key = GUINT_TO_POINTER (name + 1);
  gpointer pos = g_hash_table_lookup (index, key);
  CpSourceGroup *g;

  if (pos == NULL)
    {
      CpSourceGroup fresh = { name, 0, 0 };

      g_array_append_val (out, fresh);
      pos = GUINT_TO_POINTER (out->len);
      g_hash_table_insert (index, key, pos);
    }
  g = &g_array_index (out, CpSourceGroup, GPOINTER_TO_UINT (pos) - 1);
  g->kernels++;
  g->time = cp_sat_add (g->time, dur);
}

GArray *
cp_analysis_kernels_by_source (CpAnalysis   *self,
                               CpSourceKind  kind,
                               GCancellable *cancellable)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CpSourceGroup));
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);   /* CpStr + 1 -> position + 1 */
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  gboolean xla;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), out);
  g_return_val_if_fail (kind == CP_SOURCE_MODULE || kind == CP_SOURCE_FRAME, out);

  xla = cp_trace_get_n_xla_sources (self->trace) > 0;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpLaneInfo *info = &self->lanes[l];

      if (info->kind != CP_LANE_KERNEL || (info->launch == NULL && !xla))
        continue;
      for (guint i = 0; i < info->slices->n; i++)
        {
          g_autoptr(GArray) chain = NULL;
          gint64 dur = cp_slices_get_dur (info->slices, i);
          gboolean grouped = FALSE;

          if ((i & 4095) == 0 && g_cancellable_is_cancelled (cancellable))
            return out;
          if (info->launch == NULL || info->launch[i].lane == G_MAXUINT32)
            {
              if (!xla)
                continue;
              chain = g_array_new (FALSE, FALSE, sizeof (CpSourceLink));
            }
          else
            chain = cp_analysis_source_chain (self, (CpSliceRef) { l, i });
          g_hash_table_remove_all (seen);
          for (guint k = 0; k < chain->len; k++)
            {
              const CpSourceLink *link = &g_array_index (chain, CpSourceLink, k);
              CpStr name = cp_slices_get_name (self->lanes[link->ref.lane].slices, link->ref.index);
              gpointer key = GUINT_TO_POINTER (name + 1);

              if (link->kind != kind)
                continue;
              if (kind == CP_SOURCE_FRAME && cp_source_frame_is_library (cp_trace_get_string (self->trace, name)))
                continue;
              if (!g_hash_table_add (seen, key))
                continue;   /* a module around itself (recursion) counts once */
              count_in_group (out, index, name, dur);
              grouped = TRUE;
              /* The user's code: the innermost frame only. */
              if (kind == CP_SOURCE_FRAME)
                break;
            }
          /* An XLA kernel: the line of code its HLO op says. */
          if (!grouped && xla && kind == CP_SOURCE_FRAME)
            {
              const CpXlaSource *src = cp_analysis_xla_source (self, (CpSliceRef) { l, i });

              if (src != NULL && src->code != CP_STR_EMPTY)
                count_in_group (out, index, src->code, dur);
            }
        }
    }
  g_array_sort (out, compare_groups);
  return out;
}
