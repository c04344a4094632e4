/* cp-trace-builder-finish.c: finishing a trace: lanes sorted and laid out on several threads, then flows, steps and instants
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-lane-private.h"
#include "cp-trace-builder.h"
#include "cp-trace-private.h"
#include "cp-trace-builder-private.h"
#include "cp-huge-pages.h"

/* finish() */

typedef struct
{
  const gint64 *start;
  const BLane  *lane;      /* NULL: every duration is 0 */
} SortCtx;

static gint
cmp_slice (gconstpointer a,
           gconstpointer b,
           gpointer      user_data)
{
  const SortCtx *ctx = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;

  if (ctx->start[i] != ctx->start[j])
    return ctx->start[i] < ctx->start[j] ? -1 : 1;
  if (ctx->lane != NULL)
    {
      gint64 di = blane_dur (ctx->lane, i), dj = blane_dur (ctx->lane, j);

      if (di != dj)
        return di > dj ? -1 : 1;
    }
  return i < j ? -1 : (i > j);
}

/* Reorders a column by perm through a scratch buffer that every column
 * shares (fresh memory for each column would cost a page fault a page). */
#define PERMUTE(type, arr)                               \
  G_STMT_START {                                         \
    type *tmp_ = (type *) scratch;                       \
    for (guint k_ = 0; k_ < l->n; k_++)                  \
      tmp_[k_] = (arr)[perm[k_]];                        \
    memcpy ((arr), tmp_, sizeof (type) * l->n);          \
  } G_STMT_END

static void
blane_sort (BLane *l)
{
  SortCtx ctx = { l->start, l };
  guint32 *perm, *rest;
  guint8 *scratch;
  guint n_kept = 0, n_rest = 0;

  if (!l->unsorted || l->n < 2)
    return;

  /* Readers add slices nearly in order (a parent after its children, a step
   * marker at the end of its step, Kineto's runtime calls after the step's
   * operators): keep the in-order majority where it is, sort the few others
   * and merge. A lane in no order at all is sorted whole.
   *
   * Fresh memory is what this costs most (on a virtual machine whose host
   * takes freed pages back, a first write runs at a few hundred MB/s), so
   * one scratch block of 8 bytes a slice serves in turn as the others'
   * list, as every column's copy, and at last as the new indexes. */
  perm = cp_huge_new (guint32, l->n);
  scratch = cp_huge_malloc (sizeof (gint64) * l->n);
  rest = (guint32 *) (gpointer) scratch;
  for (guint i = 0; i < l->n; i++)
    {
      if (n_kept == 0 || cmp_slice (&perm[n_kept - 1], &i, &ctx) < 0)
        perm[n_kept++] = i;
      else
        rest[n_rest++] = i;
    }
  if (n_rest > l->n / 4)
    {
      for (guint i = 0; i < l->n; i++)
        perm[i] = i;
      g_qsort_with_data (perm, l->n, sizeof (guint32), cmp_slice, &ctx);
    }
  else
    {
      guint a = n_kept, b = n_rest, k = l->n, runs = 1;

      /* Kineto's late runtime calls come in order among themselves: then
       * they need no sort (on cp-gen's 1.07 GB capture the biggest lane's
       * 288K, 22 ms of qsort on the finish's longest path). */
      for (guint q = 1; q < n_rest && runs == 1; q++)
        runs += cmp_slice (&rest[q - 1], &rest[q], &ctx) > 0;
      if (runs > 1)
        g_qsort_with_data (rest, n_rest, sizeof (guint32), cmp_slice, &ctx);
      /* Merge from the back, in place: perm holds the kept ones first. */
      while (b > 0)
        {
          if (a > 0 && cmp_slice (&perm[a - 1], &rest[b - 1], &ctx) > 0)
            perm[--k] = perm[--a];
          else
            perm[--k] = rest[--b];
        }
    }

  PERMUTE (gint64, l->start);
  PERMUTE (guint32, l->dur32);
  PERMUTE (CpStr, l->names);
  if (l->cat32 != NULL)
    PERMUTE (CpStr, l->cat32);
  else
    PERMUTE (guint8, l->cat8);
  PERMUTE (guint16, l->flags);
  _cp_sparse_builder_permute (&l->corr, perm, l->n, scratch);
  _cp_sparse_builder_permute (&l->ext, perm, l->n, scratch);
  _cp_sparse_builder_permute (&l->gpu, perm, l->n, scratch);
  _cp_sparse_builder_permute (&l->args, perm, l->n, scratch);

  /* The new indexes in the scratch's first half, which then becomes
   * theirs (a smaller realloc() gives back the rest without a copy). */
  l->new_index = (guint32 *) (gpointer) scratch;
  for (guint i = 0; i < l->n; i++)
    l->new_index[perm[i]] = i;
  l->new_index = g_realloc (l->new_index, sizeof (guint32) * l->n);
  if (l->long_durs != NULL)
    {
      GHashTable *moved = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, l->long_durs);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          g_hash_table_iter_steal (&iter);
          g_hash_table_insert (moved, GUINT_TO_POINTER (l->new_index[GPOINTER_TO_UINT (key) - 1] + 1),
                               value);
        }
      g_hash_table_unref (l->long_durs);
      l->long_durs = moved;
    }
  g_free (perm);
}

static void
blane_layout_rows (BLane *l)
{
  guint32 *stack;
  gint64 *row_end;
  guint depth = 0, n_rows = 0;

  l->rows = g_new0 (guint16, MAX (l->n, 1));
  if (l->n == 0)
    return;

  stack = cp_huge_new (guint32, l->n);
  row_end = g_new (gint64, MAX_ROWS);

  for (guint i = 0; i < l->n; i++)
    {
      gint64 s = l->start[i];
      gint64 e = s + blane_dur (l, i);
      guint min_row = 0, r;

      while (depth > 0)
        {
          guint32 top = stack[depth - 1];
          gint64 top_dur = blane_dur (l, top);
          gint64 top_end = l->start[top] + top_dur;

          /* A slice ends before s; a zero-length one at s still encloses
           * nothing, so it is closed too. */
          if (top_end <= s && !(top_dur > 0 && top_end > s))
            depth--;
          else
            break;
        }
      if (depth > 0)
        {
          guint32 top = stack[depth - 1];

          min_row = l->rows[top] + 1;
          if (e > l->start[top] + blane_dur (l, top))
            l->flags[i] |= CP_SLICE_OVERLAP;
        }

      r = MIN (min_row, MAX_ROWS - 1);
      while (r < n_rows && r < MAX_ROWS - 1 && row_end[r] > s)
        r++;
      if (r >= n_rows)
        {
          for (guint k = n_rows; k <= r; k++)
            row_end[k] = G_MININT64;
          n_rows = r + 1;
        }
      if (r > min_row)
        l->flags[i] |= CP_SLICE_OVERLAP;
      l->rows[i] = r;
      if (e > row_end[r])
        row_end[r] = e;
      stack[depth++] = i;
    }

  g_free (stack);
  g_free (row_end);
}

typedef struct
{
  CpTraceBuilder *builder;
  gint64         *proc_rank;
} LaneOrderCtx;

static int
kind_rank (CpLaneKind kind)
{
  switch (kind)
    {
    case CP_LANE_KERNEL: return 0;
    case CP_LANE_TRANSFER: return 1;
    case CP_LANE_DEVICE_ANNOTATION: return 2;
    case CP_LANE_HOST_THREAD: return 3;
    case CP_LANE_ASYNC: return 4;
    case CP_LANE_COUNTER: return 5;
    case CP_LANE_N_KINDS:
    default:
      return 6;
    }
}

static gint
cmp_lanes (gconstpointer a,
           gconstpointer b,
           gpointer      user_data)
{
  LaneOrderCtx *ctx = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  BLane *x = g_ptr_array_index (ctx->builder->lanes, i);
  BLane *y = g_ptr_array_index (ctx->builder->lanes, j);
  gint64 rx = ctx->proc_rank[x->process], ry = ctx->proc_rank[y->process];
  int kx, ky, c;

  if (rx != ry)
    return rx < ry ? -1 : 1;
  kx = kind_rank (x->kind);
  ky = kind_rank (y->kind);
  if (kx != ky)
    return kx - ky;
  if (x->kind == CP_LANE_TRANSFER && x->transfer_kind != y->transfer_kind)
    return (int) x->transfer_kind - (int) y->transfer_kind;
  if (x->sort_key != y->sort_key)
    return x->sort_key < y->sort_key ? -1 : 1;
  if (x->key.num != y->key.num)
    return x->key.num < y->key.num ? -1 : 1;
  c = g_strcmp0 (x->name, y->name);
  if (c != 0)
    return c;
  return i < j ? -1 : (i > j);
}

typedef struct
{
  GArray *processes;
} ProcOrderCtx;

static gint
cmp_processes (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  GArray *procs = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  const CpProcess *x = &g_array_index (procs, CpProcess, i);
  const CpProcess *y = &g_array_index (procs, CpProcess, j);

  if (x->is_pseudo != y->is_pseudo)
    return x->is_pseudo ? 1 : -1;
  if (x->sort_index != y->sort_index)
    return x->sort_index < y->sort_index ? -1 : 1;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return i < j ? -1 : (i > j);
}

/* A lane's names as CpSlices keeps them: a table of its distinct names and
 * a 16-bit index per slice, written over the 32-bit ids (offset i * 2 is
 * never past id i * 4); the 32-bit ids as they are when there are too many.
 * slot has an entry per string of the pool, all 0, and is left so. */
static void
pack_names (BLane    *l,
            CpSlices *cols,
            guint32  *slot,
            guint     n_slots)
{
  CpStr *names = l->names;
  guint16 *name16;
  CpStr *table;
  guint n_table = 0;
  gboolean too_many = FALSE;

  l->names = NULL;
  if (l->n == 0)
    {
      g_free (names);
      cols->name32 = g_new0 (CpStr, 1);
      return;
    }
  table = g_new (CpStr, G_MAXUINT16 + 1);
  for (guint i = 0; i < l->n && !too_many; i++)
    if (G_UNLIKELY (names[i] >= n_slots))
      too_many = TRUE;   /* not a string of the pool: keep the ids as they are */
    else if (slot[names[i]] == 0)
      {
        if (n_table == G_MAXUINT16 + 1)
          too_many = TRUE;
        else
          {
            table[n_table] = names[i];
            slot[names[i]] = ++n_table;
          }
      }
  if (too_many)
    {
      /* 32-bit ids. */
      for (guint k = 0; k < n_table; k++)
        slot[table[k]] = 0;
      g_free (table);
      cols->name32 = names;
      return;
    }
  name16 = (guint16 *) names;
  for (guint i = 0; i < l->n; i++)
    name16[i] = (guint16) (slot[names[i]] - 1);
  for (guint k = 0; k < n_table; k++)
    slot[table[k]] = 0;
  cols->name16 = g_realloc (names, sizeof (guint16) * l->n);
  cols->name_table = g_renew (CpStr, table, n_table);
}

static gint
cmp_steps (gconstpointer a,
           gconstpointer b)
{
  const CpStep *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->number != y->number)
    return x->number < y->number ? -1 : 1;
  return 0;
}

static gint
cmp_instants (gconstpointer a,
              gconstpointer b)
{
  const CpInstant *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return 0;
}

/* Sorts, lays out and packs one lane and makes its CpLane (at
 * l->final_index). name_slot: scratch of n_name_slots zeros, left zeroed. */
static CpLane *
finish_lane (BLane   *l,
             gint64   origin,
             guint32 *name_slot,
             guint    n_name_slots)
{
  CpSlices cols = { 0 };
  guint n_counter = 0;
  gint64 *cts = NULL;
  double *cvals = NULL;

  blane_sort (l);
  for (guint i = 0; i < l->n; i++)
    l->start[i] -= origin;
  blane_layout_rows (l);
  cp_builder_blane_finish_durations (l);

  cols.n = l->n;
  cols.dur32 = l->dur32 != NULL ? l->dur32 : g_new0 (guint32, 1);
  cols.n_long = l->n_long;
  cols.long_index = l->long_index;
  cols.long_dur = l->long_dur;
  pack_names (l, &cols, name_slot, n_name_slots);
  if (l->n > 0 && l->cat32 == NULL)
    {
      cols.cat8 = l->cat8;
      cols.cat_table = g_renew (CpStr, l->cat_table, MAX (l->n_cats, 1));
      l->cat8 = NULL;
      l->cat_table = NULL;
    }
  else
    {
      cols.cat32 = l->cat32 != NULL ? l->cat32 : g_new0 (CpStr, 1);
      l->cat32 = NULL;
    }
  cols.row = l->rows;
  cols.flags = l->n ? l->flags : g_new0 (guint16, 1);
  _cp_sparse_builder_finish (&l->corr, l->n, CP_NONE, &cols.corr);
  _cp_sparse_builder_finish (&l->ext, l->n, CP_NONE, &cols.ext);
  _cp_sparse_builder_finish (&l->gpu, l->n, 0, &cols.gpu);
  _cp_sparse_builder_finish (&l->args, l->n, 0, &cols.args);
  if (l->n == 0)
    g_free (l->flags);
  l->dur32 = NULL;
  l->long_index = NULL;
  l->long_dur = NULL;
  l->names = NULL;
  l->rows = NULL;
  l->flags = NULL;

  if (l->counter_ts != NULL && l->counter_ts->len > 0)
    {
      /* Sort samples by time (stable: insertion order breaks ties). */
      guint n = l->counter_ts->len;
      gint64 *ts = (gint64 *) l->counter_ts->data;
      double *vals = (double *) l->counter_values->data;
      gboolean sorted = TRUE;

      for (guint i = 1; i < n && sorted; i++)
        sorted = ts[i] >= ts[i - 1];
      if (!sorted)
        {
          g_autofree guint32 *perm = g_new (guint32, n);
          SortCtx ctx;

          for (guint i = 0; i < n; i++)
            perm[i] = i;
          ctx.start = ts;
          ctx.lane = NULL;
          g_qsort_with_data (perm, n, sizeof (guint32), cmp_slice, &ctx);
          cts = g_new (gint64, n);
          cvals = g_new (double, n);
          for (guint i = 0; i < n; i++)
            {
              cts[i] = ts[perm[i]];
              cvals[i] = vals[perm[i]];
            }
        }
      else
        {
          cts = g_memdup2 (ts, sizeof (gint64) * n);
          cvals = g_memdup2 (vals, sizeof (double) * n);
        }
      for (guint i = 0; i < n; i++)
        cts[i] -= origin;
      n_counter = n;
    }

  return _cp_lane_new (l->kind, l->transfer_kind, l->name, l->final_index,
                       l->process, l->device, l->stream,
                       l->kind == CP_LANE_KERNEL ? l->stream : l->key.num,
                       l->sort_key, &cols, g_steal_pointer (&l->start), cts, cvals, n_counter);
}

/* The lanes to finish, biggest first, taken one at a time by each thread. */
#define FINISH_MAX_THREADS 8
#define FINISH_MIN_PARALLEL 200000   /* slices: below, threads cost more than they save */

typedef struct
{
  CpTraceBuilder *builder;
  gint64          origin;
  guint32        *todo;       /* lane indexes, biggest first */
  guint           n_todo;
  gint            next;       /* atomic: next position in todo */
  guint           n_slots;
  CpLane        **made;       /* by final index */
} FinishJob;

static gint
cmp_lane_size (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  CpTraceBuilder *self = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  const BLane *x = g_ptr_array_index (self->lanes, i);
  const BLane *y = g_ptr_array_index (self->lanes, j);
  guint nx = x->n + (x->counter_ts != NULL ? x->counter_ts->len : 0);
  guint ny = y->n + (y->counter_ts != NULL ? y->counter_ts->len : 0);

  if (nx != ny)
    return nx > ny ? -1 : 1;
  return i < j ? -1 : (i > j);
}

static gpointer
finish_worker (gpointer data)
{
  FinishJob *job = data;
  g_autofree guint32 *name_slot = g_new0 (guint32, MAX (job->n_slots, 1));

  for (;;)
    {
      gint at = g_atomic_int_add (&job->next, 1);
      BLane *l;

      if (at < 0 || (guint) at >= job->n_todo)
        break;
      l = g_ptr_array_index (job->builder->lanes, job->todo[at]);
      job->made[l->final_index] = finish_lane (l, job->origin, name_slot, job->n_slots);
    }
  return NULL;
}

/* Finishes every lane into made[final index]. The result does not depend on
 * how many threads ran: each lane is finished alone, the same way. */
typedef struct
{
  guint32      *order;
  const CpFlow *flows;
  guint         n;
  guint         n_lanes;
  gboolean      by_to;
} FlowIndexJob;

static gpointer
flow_index_job (gpointer data)
{
  FlowIndexJob *job = data;

  cp_builder_sort_flow_index (job->order, job->flows, job->n, job->n_lanes, job->by_to);
  return NULL;
}

/* Flow end points in key order: sorted on a thread of their own while the
 * lanes are finished, when there is a core for it (the sort reads only the
 * points, which nothing else reads or writes until they are bound). */
typedef struct
{
  FlowPoint *points;
  guint      n_points;
  KeyIdx    *order;
  KeyIdx    *own_order;   /* order, when not in the points' block */
  GThread   *thread;      /* the sort, when it runs apart */
} PointSort;

static gpointer
point_sort_job (gpointer data)
{
  PointSort *ps = data;

  cp_builder_sort_points (ps->order, ps->points, ps->n_points, cp_builder_cmp_points, ps->points);
  return NULL;
}

/* A block's pages faulted in on a thread of its own. */
typedef struct
{
  gconstpointer from;
  gsize         len;
} PopulateJob;

static gpointer
populate_job (gpointer data)
{
  PopulateJob *job = data;

  cp_huge_pages_populate (job->from, job->len);
  return NULL;
}

/* Whether the finish may take another thread for n things. */
static gboolean
finish_may_thread (CpTraceBuilder *self,
                   guint           n)
{
  return self->finish_threads > 1 ||
         (self->finish_threads == 0 && n >= FINISH_MIN_PARALLEL && g_get_num_processors () > 1);
}

static void
finish_job_run (FinishJob      *job,
                CpTraceBuilder *self,
                gint64          origin,
                CpLane        **made)
{
  guint n_lanes = self->lanes->len;
  g_autofree guint32 *todo = g_new (guint32, MAX (n_lanes, 1));
  GThread *threads[FINISH_MAX_THREADS];
  guint n_threads = 0, total = 0, want;

  for (guint i = 0; i < n_lanes; i++)
    {
      const BLane *l = g_ptr_array_index (self->lanes, i);

      todo[i] = i;
      total += MIN (l->n, G_MAXUINT - total);
    }
  g_qsort_with_data (todo, n_lanes, sizeof (guint32), cmp_lane_size, self);
  job->builder = self;
  job->origin = origin;
  job->todo = todo;
  job->n_todo = n_lanes;
  job->next = 0;
  job->n_slots = cp_string_pool_size (self->strings);
  job->made = made;

  if (self->finish_threads > 0)
    want = MIN (self->finish_threads, MAX (n_lanes, 1));
  else
    want = total >= FINISH_MIN_PARALLEL ? MIN ((guint) g_get_num_processors (), n_lanes) : 1;
  want = MIN (want, FINISH_MAX_THREADS);
  for (guint t = 1; t < want; t++)
    {
      g_autoptr(GError) error = NULL;
      GThread *th = g_thread_try_new ("cp-finish", finish_worker, job, &error);

      if (th == NULL)
        break;   /* fewer threads: the others take more lanes */
      threads[n_threads++] = th;
    }
  finish_worker (job);
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
}

void
_cp_trace_builder_set_finish_threads (CpTraceBuilder *self,
                                      guint           n_threads)
{
  g_return_if_fail (self != NULL);

  self->finish_threads = n_threads;
}

/* Why a capture gave no events: what the reader warned about first (a cut,
 * damage, events without timestamps), or the time domain. */
static void
set_empty_error (CpTraceBuilder  *self,
                 GError         **error)
{
  g_autofree char *name = self->file != NULL ? g_file_get_parse_name (self->file) : NULL;
  g_autofree char *why = NULL;
  g_autofree char *what = NULL;

  if (self->out_of_range > 0)
    why = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                        "Its one event has a timestamp more than 146 years from the "
                                        "clock's zero.",
                                        "All its %" PRIu64 " events have timestamps more than 146 "
                                        "years from the clock's zero.",
                                        self->out_of_range),
                           self->out_of_range);
  else if (cp_load_report_n_warnings (self->report) > 0)
    why = g_strdup (cp_load_report_get_warning (self->report, 0)->message);

  if (name != NULL)
    what = g_strdup_printf (_("“%s” holds no events"), name);
  else
    what = g_strdup (_("The capture holds no events"));
  if (why != NULL)
    g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, "%s. %s%s", what, why,
                 g_str_has_suffix (why, ".") ? "" : ".");
  else
    g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, what);
}

/* Warnings on what the reader gave that no capture can have. */
static void
finish_warn (CpTraceBuilder *self)
{
  if (self->out_of_range > 0)
    cp_load_report_warn (self->report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%" PRIu64 " event had a timestamp more than 146 years from the "
                                      "clock's zero, which no capture can have, and was skipped",
                                      "%" PRIu64 " events had timestamps more than 146 years from the "
                                      "clock's zero, which no capture can have, and were skipped",
                                      self->out_of_range),
                         self->out_of_range);
  if (self->negative_durations > 0)
    cp_load_report_warn (self->report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%" PRIu64 " event had a negative duration and was given none",
                                      "%" PRIu64 " events had a negative duration and were given none",
                                      self->negative_durations),
                         self->negative_durations);
}

/* Processes: device processes without an explicit sort index go after the
 * host ones, as Kineto orders them. Returns each process's rank. */
static gint64 *
finish_process_ranks (CpTraceBuilder *self)
{
  g_autofree guint32 *proc_order = NULL;
  gint64 *proc_rank;

  for (guint p = 0; p < self->processes->len; p++)
    {
      CpProcess *proc = &g_array_index (self->processes, CpProcess, p);

      if (!g_array_index (self->process_sort_set, gboolean, p) && proc->is_device)
        proc->sort_index = 5000000 + MAX (proc->device, 0);
    }
  proc_order = g_new (guint32, MAX (self->processes->len, 1));
  proc_rank = g_new (gint64, MAX (self->processes->len, 1));
  for (guint p = 0; p < self->processes->len; p++)
    proc_order[p] = p;
  g_qsort_with_data (proc_order, self->processes->len, sizeof (guint32), cmp_processes, self->processes);
  for (guint p = 0; p < self->processes->len; p++)
    proc_rank[proc_order[p]] = p;
  return proc_rank;
}

/* Lanes: ordered first (by what they are, not by their slices), then each
 * one's slices sorted, laid out and packed; lanes are independent, so big
 * captures do that on several threads. */
static void
finish_lanes (CpTraceBuilder *self,
              CpTrace        *trace,
              gint64          origin,
              gint64         *proc_rank)
{
  g_autofree guint32 *lane_order = NULL;
  LaneOrderCtx lctx;
  guint n_lanes = self->lanes->len;

  lane_order = g_new (guint32, MAX (n_lanes, 1));
  for (guint li = 0; li < n_lanes; li++)
    lane_order[li] = li;
  lctx.builder = self;
  lctx.proc_rank = proc_rank;
  g_qsort_with_data (lane_order, n_lanes, sizeof (guint32), cmp_lanes, &lctx);
  for (guint k = 0; k < n_lanes; k++)
    ((BLane *) g_ptr_array_index (self->lanes, lane_order[k]))->final_index = k;

  {
    FinishJob job;
    g_autofree CpLane **made = g_new0 (CpLane *, MAX (n_lanes, 1));

    finish_job_run (&job, self, origin, made);
    for (guint k = 0; k < n_lanes; k++)
      {
        trace->n_slices += cp_lane_get_slices (made[k])->n;
        g_ptr_array_add (trace->lane_array, made[k]);
        g_list_store_append (trace->lanes, made[k]);
      }
  }
}

/* Explicit flows, remapped in place: the array becomes the trace's (a
 * copy would hold every flow twice at the peak). */
static void
finish_flows (CpTraceBuilder *self,
              CpTrace        *trace)
{
  CpFlow *flows = (CpFlow *) self->flows->data;
  guint m = 0;

  for (guint i = 0; i < self->flows->len; i++)
    {
      CpFlow f = flows[i];

      f.from = remap_ref (self, f.from);
      f.to = remap_ref (self, f.to);
      if (f.from.lane == G_MAXUINT32 || f.to.lane == G_MAXUINT32)
        continue;
      flows[m++] = f;
    }
  g_array_set_size (self->flows, m);
  g_array_unref (trace->flows);
  trace->flows = g_steal_pointer (&self->flows);
}

/* How many points ahead the pass in key order asks for: some hundreds of
 * nanoseconds of memory latency at a few tens of nanoseconds a point. */
#define EMIT_AHEAD 16

/* Flow end points: grouped by key and ordered within each key, then bound
 * to slices in insertion order (lane by lane that is nearly time order, so
 * each search starts near the last one), then linked in key order. A
 * point's slice is written over its time, which only the sort and the
 * binding read: no array of slices a point in fresh memory. */
static void
point_sort_start (CpTraceBuilder *self,
                  PointSort      *ps)
{
  FlowPoint *points = self->taken_points != NULL ? self->taken_points : (FlowPoint *) self->flow_points->data;
  guint n_points = self->taken_points != NULL ? self->n_taken_points : self->flow_points->len;

  ps->points = points;
  ps->n_points = n_points;
  ps->own_order = NULL;
  ps->thread = NULL;
  /* The order in a taken block's room past its points, where there is
   * some: pages already written once. */
  G_STATIC_ASSERT (sizeof (FlowPoint) % G_ALIGNOF (KeyIdx) == 0);
  if (self->taken_points != NULL &&
      self->taken_bytes - (gsize) n_points * sizeof (FlowPoint) >= (gsize) n_points * sizeof (KeyIdx))
    ps->order = (KeyIdx *) (gpointer) (self->taken_points + n_points);
  else
    ps->order = NULL;
  /* Apart only where that costs no memory before it is needed: a block of
   * its own would be made while the lanes' are. */
  if (ps->order != NULL && finish_may_thread (self, n_points))
    ps->thread = g_thread_try_new ("cp-flow-sort", point_sort_job, ps, NULL);
}

/* The sort's answer: the thread's, or the sort here. */
static void
point_sort_end (PointSort *ps)
{
  if (ps->thread != NULL)
    {
      g_thread_join (ps->thread);
      ps->thread = NULL;
      return;
    }
  if (ps->order == NULL)
    ps->order = ps->own_order = cp_huge_new (KeyIdx, ps->n_points);
  point_sort_job (ps);
}

/* Room in trace->flows for the at most one flow a point after the first of
 * its key makes, its pages faulted in on another thread while the points
 * are bound and the first flows written, where a core can be had: a new
 * array written from its start costs a page fault a page otherwise (on a
 * virtual machine whose host takes freed pages back, 13 MB of flows took
 * up to 28 ms more than the same writes on pages already there). The
 * array is replaced only where the flows it holds are few next to those
 * to come. Returns the thread to join, or NULL. */
static GThread *
reserve_point_flows (CpTraceBuilder *self,
                     CpTrace        *trace,
                     const KeyIdx   *order,
                     guint           n_points,
                     PopulateJob    *job)
{
  guint n_keys = 0;
  gsize room;
  GArray *flows;

  for (guint k = 0; k < n_points; k++)
    n_keys += k == 0 || order[k].key != order[k - 1].key;
  room = (gsize) n_points - n_keys;
  if (room * sizeof (CpFlow) < CP_HUGE_PAGES_MIN || !finish_may_thread (self, n_points) ||
      trace->flows->len > room || room + trace->flows->len > G_MAXUINT / 2)
    return NULL;
  flows = g_array_sized_new (FALSE, TRUE, sizeof (CpFlow), (guint) (trace->flows->len + room));
  cp_huge_pages_advise (flows->data);
  g_array_append_vals (flows, trace->flows->data, trace->flows->len);
  g_array_unref (trace->flows);
  trace->flows = flows;
  job->from = flows->data + (gsize) flows->len * sizeof (CpFlow);
  job->len = room * sizeof (CpFlow);
  return g_thread_try_new ("cp-flow-pages", populate_job, job, NULL);
}

static void
finish_flow_points (CpTraceBuilder *self,
                    CpTrace        *trace,
                    gint64          origin,
                    PointSort      *ps)
{
  FlowPoint *points = ps->points;
  guint n_points = ps->n_points;
  guint n_lanes = self->lanes->len;
  g_autofree guint *hints = g_new0 (guint, MAX (n_lanes, 1));
  g_autofree KeyIdx *own_order = NULL;
  KeyIdx *order;
  guint unbound = 0;
  CpSliceRef prev = CP_SLICE_REF_NONE;
  guint64 prev_key = 0;
  gboolean have_prev = FALSE;
  PopulateJob populate = { NULL, 0 };
  GThread *populating;

  G_STATIC_ASSERT (sizeof (CpSliceRef) == sizeof (points[0].ts));

  /* Binding writes over the times the sort reads. */
  point_sort_end (ps);
  order = ps->order;
  own_order = g_steal_pointer (&ps->own_order);
  populating = reserve_point_flows (self, trace, order, n_points, &populate);
  for (guint i = 0; i < n_points; i++)
    {
      BLane *l = g_ptr_array_index (self->lanes, points[i].lane);
      CpSliceRef ref = cp_builder_bind_point (trace, &points[i], l->final_index, origin, &hints[l->final_index]);

      memcpy (&points[i].ts, &ref, sizeof ref);
    }
  for (guint k = 0; k < n_points; k++)
    {
      const FlowPoint *p = &points[order[k].idx];
      CpSliceRef ref;

      /* The order jumps about the points: ask for those ahead. */
      if (G_LIKELY (k + EMIT_AHEAD < n_points))
        __builtin_prefetch (&points[order[k + EMIT_AHEAD].idx]);

      memcpy (&ref, &p->ts, sizeof ref);
      if (!have_prev || p->key != prev_key)
        {
          have_prev = FALSE;
          prev_key = p->key;
        }
      if (ref.lane == G_MAXUINT32)
        {
          unbound++;
          continue;
        }
      if (have_prev && (prev.lane != ref.lane || prev.index != ref.index))
        {
          CpFlow f;

          f.from = prev;
          f.to = ref;
          f.kind = p->kind;
          f.name = p->name;
          cp_array_append_big (trace->flows, f);
        }
      prev = ref;
      have_prev = TRUE;
    }
  /* Before anything else may grow the array past its room. */
  if (populating != NULL)
    g_thread_join (populating);
  if (unbound > 0)
    cp_load_report_warn (self->report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%u flow end point had no slice to bind to",
                                      "%u flow end points had no slice to bind to", unbound),
                         unbound);
  g_array_set_size (self->flow_points, 0);
  g_clear_pointer (&self->taken_points, g_free);
  self->n_taken_points = 0;
}

/* Flow flags and indexes. */
static void
finish_flow_indexes (CpTraceBuilder *self,
                     CpTrace        *trace)
{
  CpFlow *flows = (CpFlow *) trace->flows->data;
  guint n = trace->flows->len;

  for (guint i = 0; i < n; i++)
    {
      CpLane *from = g_ptr_array_index (trace->lane_array, flows[i].from.lane);
      CpLane *to = g_ptr_array_index (trace->lane_array, flows[i].to.lane);

      ((guint16 *) cp_lane_get_slices (from)->flags)[flows[i].from.index] |= CP_SLICE_HAS_FLOW_OUT;
      ((guint16 *) cp_lane_get_slices (to)->flags)[flows[i].to.index] |= CP_SLICE_HAS_FLOW_IN;
    }
  /* Both indexes at once on two threads for big captures (their
   * scratch is a fraction of an index); one after the other, so that the
   * first one's scratch is gone before the second one is made, when no
   * thread can be had. */
  trace->flows_by_from = cp_huge_new (guint32, n);
  {
    FlowIndexJob job = { trace->flows_by_from, flows, n, trace->lane_array->len, FALSE };
    GThread *th = NULL;

    if (finish_may_thread (self, n))
      th = g_thread_try_new ("cp-flow-index", flow_index_job, &job, NULL);
    trace->flows_by_to = cp_huge_new (guint32, n);
    cp_builder_sort_flow_index (trace->flows_by_to, flows, n, trace->lane_array->len, TRUE);
    if (th != NULL)
      g_thread_join (th);
    else
      flow_index_job (&job);
  }
}

/* Steps and instants. */
static void
finish_steps_and_instants (CpTraceBuilder *self,
                           CpTrace        *trace,
                           gint64          origin)
{
  guint n_lanes = self->lanes->len;

  for (guint i = 0; i < self->steps->len; i++)
    {
      CpStep s = g_array_index (self->steps, CpStep, i);

      s.start -= origin;
      s.end -= origin;
      if (s.marker.lane != G_MAXUINT32)
        s.marker = remap_ref (self, s.marker);
      g_array_append_val (trace->steps, s);
    }
  g_array_sort (trace->steps, cmp_steps);

  for (guint i = 0; i < self->instants->len; i++)
    {
      CpInstant in = g_array_index (self->instants, CpInstant, i);

      in.ts -= origin;
      if (in.lane >= 0 && (guint) in.lane < n_lanes)
        in.lane = ((BLane *) g_ptr_array_index (self->lanes, in.lane))->final_index;
      else
        in.lane = -1;
      g_array_append_val (trace->instants, in);
    }
  g_array_sort (trace->instants, cmp_instants);
}

/* Hand over the rest. */
static void
finish_hand_over (CpTraceBuilder *self,
                  CpTrace        *trace)
{
  g_array_append_vals (trace->processes, self->processes->data, self->processes->len);
  g_array_append_vals (trace->devices, self->devices->data, self->devices->len);
  g_array_unref (trace->args);
  trace->args = g_steal_pointer (&self->args);
  g_ptr_array_unref (trace->args_chunks);
  trace->args_chunks = g_steal_pointer (&self->args_chunks);
  trace->args_source = g_steal_pointer (&self->args_source);
  trace->args_source_in_file = self->args_source_in_file;
  trace->args_arena_bytes = self->args_arena_bytes;
  g_array_unref (trace->metadata);
  trace->metadata = g_steal_pointer (&self->metadata);
  trace->xla_sources = g_steal_pointer (&self->xla_sources);
  if (trace->xla_sources != NULL)
    _cp_trace_sort_xla_sources (trace);
  trace->report = g_steal_pointer (&self->report);
  trace->strings = g_steal_pointer (&self->strings);
  trace->file = g_steal_pointer (&self->file);
  trace->title = g_steal_pointer (&self->title);
  if (trace->title == NULL && trace->file != NULL)
    trace->title = g_file_get_basename (trace->file);
  if (self->has_epoch)
    {
      /* origin_abs stays in the reader's absolute base, which is epoch ns. */
      trace->origin_is_epoch = TRUE;
    }
}

/* A counter that is 0 for every kernel that carries it is a placeholder,
 * not a measurement (ROCm's XPlane writes occ_pct:0 for every kernel; a
 * kernel that runs has warps resident): it is made absent, so that
 * analysis, JSON and window say nothing rather than "0%". */
static void
finish_placeholder_counters (CpTrace *trace)
{
  CpGpuInfo *g = (CpGpuInfo *) (void *) trace->gpu_infos->data;
  gboolean any = FALSE;

  for (guint i = 0; i < trace->gpu_infos->len; i++)
    {
      if (isfinite (g[i].occupancy) && g[i].occupancy > 0)
        return;
      any |= g[i].occupancy == 0;
    }
  for (guint i = 0; any && i < trace->gpu_infos->len; i++)
    if (g[i].occupancy == 0)
      g[i].occupancy = NAN;
}

CpTrace *
cp_trace_builder_finish (CpTraceBuilder  *self,
                         GError         **error)
{
  g_autoptr(CpTraceBuilder) builder = self;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree gint64 *proc_rank = NULL;
  gint64 origin;
  gboolean has_points;
  PointSort ps;

  /* builder frees self on every return path. */
  (void) builder;

  if (!self->any)
    {
      set_empty_error (self, error);
      return NULL;
    }

  origin = self->min_ts;
  trace = _cp_trace_new ();
  /* The offset is the reader's; keep the sum representable. */
  trace->origin_abs = origin + CLAMP (self->time_offset, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
  trace->origin_is_epoch = self->has_epoch;
  trace->duration = self->max_ts > origin ? self->max_ts - origin : 0;

  finish_warn (self);
  proc_rank = finish_process_ranks (self);
  has_points = self->flow_points->len > 0 || self->taken_points != NULL;
  if (has_points)
    point_sort_start (self, &ps);
  finish_lanes (self, trace, origin, proc_rank);
  finish_flows (self, trace);
  if (has_points)
    finish_flow_points (self, trace, origin, &ps);

  /* cp_builder_link_correlations() reads the slices' GPU info: hand it over first. */
  g_array_unref (trace->gpu_infos);
  trace->gpu_infos = g_steal_pointer (&self->gpu_infos);
  finish_placeholder_counters (trace);

  if (self->link_correlations)
    cp_builder_link_correlations (trace, trace->flows, cp_string_pool_intern (self->strings, "correlation", -1));

  if (trace->flows->len > 0)
    finish_flow_indexes (self, trace);
  finish_steps_and_instants (self, trace, origin);
  finish_hand_over (self, trace);

  return g_steal_pointer (&trace);
}
