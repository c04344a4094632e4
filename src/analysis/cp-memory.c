/* cp-memory.c: device memory over time: peaks, what was live, growth per step
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cp-memory.h"
#include "cp-analysis-private.h"

/* How far back the enclosing op is looked for. */
#define OP_SCAN_LIMIT 65536

gboolean
cp_memory_op_at (CpTrace    *trace,
                 CpSliceRef  ref,
                 CpSliceRef *op)
{
  const CpSlices *s;
  gint64 ts;
  guint stop;

  if (ref.lane >= cp_trace_get_n_lanes (trace))
    return FALSE;
  s = cp_lane_get_slices (cp_trace_get_lane (trace, ref.lane));
  if (ref.index >= s->n)
    return FALSE;
  ts = cp_slices_get_start (s, ref.index);
  stop = ref.index > OP_SCAN_LIMIT ? ref.index - OP_SCAN_LIMIT : 0;
  /* Slices are sorted by start: the latest one that started before the
   * event and ends after it is the innermost around it. */
  for (guint j = ref.index; j-- > stop;)
    {
      if (s->flags[j] & CP_SLICE_INSTANT)
        continue;
      if (cp_slices_get_start (s, j) <= ts && cp_slices_get_end (s, j) > ts)
        {
          const char *cat = cp_trace_get_string (trace, cp_slices_get_cat (s, j));

          /* The op, not a runtime call made inside it. */
          if (g_strcmp0 (cat, "cuda_runtime") == 0 || g_strcmp0 (cat, "cuda_driver") == 0)
            continue;
          op->lane = ref.lane;
          op->index = j;
          return TRUE;
        }
    }
  return FALSE;
}

static gint
compare_live (gconstpointer a,
              gconstpointer b)
{
  const CpMemoryLive *x = a, *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->ts < y->ts ? -1 : (x->ts > y->ts);
}

static void
live_at (CpAnalysis          *self,
         const CpMemoryTrack *t,
         guint                peak,
         CpMemoryStats       *st)
{
  g_autoptr(GHashTable) live = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (CpMemoryLive));
  GHashTableIter iter;
  gpointer key, value;

  for (guint k = 0; k <= peak; k++)
    {
      const CpMemoryEvent *e = &t->events[k];

      if (e->addr == 0)
        continue;
      st->has_addresses = TRUE;
      if (e->bytes > 0)
        g_hash_table_insert (live, (gpointer) &e->addr, GUINT_TO_POINTER (k + 1));
      else if (e->bytes < 0)
        g_hash_table_remove (live, &e->addr);
    }
  g_hash_table_iter_init (&iter, live);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const CpMemoryEvent *e = &t->events[GPOINTER_TO_UINT (value) - 1];
      CpMemoryLive l = { e->bytes, e->ts, e->addr, { G_MAXUINT32, 0 } };

      st->live_bytes = cp_sat_add (st->live_bytes, e->bytes);
      g_array_append_val (all, l);
    }
  st->n_live = all->len;
  g_array_sort (all, compare_live);
  st->n_top = MIN (all->len, CP_MEMORY_TOP_LIVE);
  for (guint k = 0; k < st->n_top; k++)
    {
      const CpMemoryLive *l = &g_array_index (all, CpMemoryLive, k);
      const CpMemoryEvent *e = NULL;

      st->top[k] = *l;
      /* The event behind it, for its op. */
      e = &t->events[GPOINTER_TO_UINT (g_hash_table_lookup (live, &l->addr)) - 1];
      if (!cp_memory_op_at (self->trace, e->ref, &st->top[k].op))
        st->top[k].op.lane = G_MAXUINT32;
    }
}

/* The last event at or before ts, or -1. */
static gint64
last_at (const CpMemoryTrack *t,
         gint64               ts)
{
  guint lo = 0, hi = t->n_events;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (t->events[mid].ts <= ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gint64) lo - 1;
}

/* The trend of the step ends: the least-squares slope over the step
 * number, the range, and how often the series fell back to where it
 * started. */
static void
step_end_trend (CpMemoryStats *st)
{
  guint n = st->n_step_end;
  double mean_k = (n - 1) / 2.0, mean_v = 0, sxy = 0, sxx = 0, band;
  gboolean above = FALSE;

  st->step_end_min = st->step_end_max = st->step_end[0];
  for (guint k = 0; k < n; k++)
    {
      st->step_end_min = MIN (st->step_end_min, st->step_end[k]);
      st->step_end_max = MAX (st->step_end_max, st->step_end[k]);
      mean_v += (double) st->step_end[k] / n;
    }
  if (n >= 3)
    {
      for (guint k = 0; k < n; k++)
        {
          sxy += (k - mean_k) * ((double) st->step_end[k] - mean_v);
          sxx += (k - mean_k) * (k - mean_k);
        }
      st->step_end_slope = sxy / sxx;
    }
  /* Back at the start level: within a tenth of the swing above the first
   * step end, coming from above it. */
  band = (double) st->step_end[0] + 0.1 * (double) (st->step_end_max - st->step_end_min);
  for (guint k = 1; k < n; k++)
    {
      gboolean in_band = (double) st->step_end[k] <= band;

      if (in_band && above)
        st->n_returns++;
      above = !in_band;
    }
}

static void
step_ends (CpAnalysis          *self,
           const CpMemoryTrack *t,
           CpMemoryStats       *st)
{
  const CpStepStats *steps = (const CpStepStats *) (void *) self->steps->data;

  st->step_end = g_new0 (gint64, MAX (self->steps->len, 1));
  for (guint k = 0; k < self->steps->len; k++)
    {
      /* The allocator runs on the host: its step ends with the marker,
       * while the device may still be working on it. */
      gint64 end = steps[k].host_end > steps[k].host_start ? steps[k].host_end : steps[k].end;
      gint64 i = last_at (t, end);

      if (i < 0)
        continue;
      st->step_end[st->n_step_end++] = t->events[i].allocated;
    }
  if (st->n_step_end < 2)
    return;
  st->growth = st->step_end[st->n_step_end - 1] - st->step_end[0];
  for (guint k = 1; k < st->n_step_end; k++)
    if (st->step_end[k] > st->step_end[k - 1])
      st->n_grew++;
  step_end_trend (st);
}

static void
clear_stats (gpointer data)
{
  CpMemoryStats *st = data;

  g_free (st->step_end);
}

void
_cp_analysis_memory (CpAnalysis *self)
{
  const CpMemory *mem = cp_trace_get_memory_events (self->trace);

  if (self->memory != NULL)
    return;
  self->memory = g_array_new (FALSE, TRUE, sizeof (CpMemoryStats));
  g_array_set_clear_func (self->memory, clear_stats);
  for (guint i = 0; i < cp_memory_get_n_tracks (mem); i++)
    {
      const CpMemoryTrack *t = cp_memory_get_track (mem, i);
      CpMemoryStats st = { 0 };
      guint pa = 0, pr = 0;
      const CpDevice *dev;

      if (t->n_events == 0)
        continue;
      st.step_end_slope = NAN;
      st.limit = t->limit;
      st.device_type = t->device_type;
      st.device_id = t->device_id;
      st.has_totals = t->has_totals;
      st.has_reserved = t->has_reserved;
      st.n_events = t->n_events;
      for (guint k = 1; k < t->n_events; k++)
        {
          if (t->events[k].allocated > t->events[pa].allocated)
            pa = k;
          if (t->events[k].reserved > t->events[pr].reserved)
            pr = k;
        }
      st.peak_allocated = t->events[pa].allocated;
      st.peak_allocated_ts = t->events[pa].ts;
      st.peak_allocated_ref = t->events[pa].ref;
      st.peak_reserved = t->has_reserved ? t->events[pr].reserved : -1;
      st.peak_reserved_ts = t->has_reserved ? t->events[pr].ts : -1;
      st.allocated_at_reserved_peak = t->has_reserved ? t->events[pr].allocated : -1;
      dev = t->device_type != 0 && t->device_id >= 0 ? cp_trace_find_device (self->trace, t->device_id) : NULL;
      st.capacity = dev != NULL && dev->total_memory > 0 ? dev->total_memory : -1;
      live_at (self, t, pa, &st);
      step_ends (self, t, &st);
      g_array_append_val (self->memory, st);
    }
}

const CpMemoryStats *
cp_analysis_get_memory (CpAnalysis *self,
                        guint      *n)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);

  *n = self->memory != NULL ? self->memory->len : 0;
  return self->memory != NULL ? (const CpMemoryStats *) (void *) self->memory->data : NULL;
}

gint64
cp_memory_stats_get_capacity (const CpMemoryStats *stats,
                              gboolean            *is_limit)
{
  gboolean limit = stats->device_type != 0 && stats->limit > 0;

  if (is_limit != NULL)
    *is_limit = limit;
  return limit ? stats->limit : stats->capacity;
}

char *
cp_memory_stats_label (const CpMemoryStats *stats)
{
  if (stats->device_type == 0)
    return g_strdup (_("host"));
  /* Kineto's device types: 1 CUDA, 6 HIP (ROCm). */
  if (stats->device_type == 1 || stats->device_type == 6)
    /* Translators: a CUDA or ROCm device's memory, "GPU 0". */
    return g_strdup_printf (_("GPU %d"), stats->device_id);
  /* Translators: memory of a device Kineto numbers but we do not name. */
  return g_strdup_printf (_("device type %d id %d"), stats->device_type, stats->device_id);
}
