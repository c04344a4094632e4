/* cp-breakdown.c: the flattened time breakdown, per step and overall
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-analysis-private.h"
#include "cp-sweep.h"

/* Builds the per-lane, per-category unions: one pass classifies every slice
 * (kept for the later passes) and counts, the second fills sets sized for
 * their worst case, so they never grow. */
static void
build_lane_sets (CpAnalysis *self)
{
  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s;
      gsize counts[CP_TIME_N_CATEGORIES] = { 0, };

      if (info->kind != CP_LANE_HOST_THREAD && info->kind != CP_LANE_KERNEL &&
          info->kind != CP_LANE_TRANSFER)
        continue;

      s = info->slices;
      info->cls = g_new (gint8, MAX (s->n, 1));
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
          CpSliceClass c = _cp_analysis_classify_slice (self, l, i, nf);

          info->cls[i] = c;
          if (c >= 0 && cp_slices_get_dur (s, i) > 0)
            counts[c]++;
          if (info->kind == CP_LANE_HOST_THREAD && (nf & CP_NAME_LAUNCH))
            self->n_launch_calls++;
          if (info->kind == CP_LANE_HOST_THREAD && cp_slices_get_dur (s, i) > 0 &&
              ((nf & (CP_NAME_SYNC | CP_NAME_SYNC_COPY | CP_NAME_ITEM)) || (s->flags[i] & CP_SLICE_SYNC)))
            {
              if (info->sync == NULL)
                info->sync = cp_intervals_new ();
              cp_intervals_add_sorted (info->sync, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
            }
        }

      for (guint c = 0; c < CP_TIME_IDLE; c++)
        if (counts[c] > 0)
          info->cat[c] = cp_intervals_new_sized (counts[c]);
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceClass c = info->cls[i];

          if (c >= 0 && cp_slices_get_dur (s, i) > 0)
            cp_intervals_add_sorted (info->cat[c], cp_slices_get_start (s, i), cp_slices_get_end (s, i));
        }
    }
}

void
_cp_analysis_breakdown (CpAnalysis *self)
{
  const CpInterval *windows = (const CpInterval *) self->windows->data;
  guint n_windows = self->windows->len;
  g_autofree CpIntervals **per_lane = g_new0 (CpIntervals *, MAX (self->n_lanes, 1));
  g_autofree gint64 *lengths = g_new0 (gint64, MAX (n_windows, 1));

  build_lane_sets (self);

  for (guint c = 0; c < CP_TIME_IDLE; c++)
    {
      for (guint l = 0; l < self->n_lanes; l++)
        per_lane[l] = self->lanes[l].cat[c];
      self->cat_union[c] = cp_intervals_union_many (per_lane, self->n_lanes);
    }
  self->cat_union[CP_TIME_IDLE] = cp_intervals_new ();

  /* Priority flattening: claiming in priority order (see cp-sweep.h), then
   * kept inside the windows, which is all the figures look at. */
  self->all_host = cp_claim_unbounded (self->cat_union, CP_TIME_IDLE, self->exposed);
  for (guint c = 0; c < CP_TIME_IDLE; c++)
    {
      const CpIntervals *e = self->exposed[c];

      /* Most captures are one window covering everything: no copy then. */
      if (e->n > 0 && !(self->window_set->n == 1 && self->window_set->v[0].start <= e->v[0].start &&
                        self->window_set->v[0].end >= e->v[e->n - 1].end))
        {
          CpIntervals *clipped = cp_intervals_intersect (e, self->window_set);

          cp_intervals_free (self->exposed[c]);
          self->exposed[c] = clipped;
        }
    }
  self->exposed[CP_TIME_IDLE] = cp_intervals_subtract (self->window_set, self->all_host);

  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary *sum = &self->summary[c];

      cp_intervals_lengths_in_windows (self->exposed[c], windows, n_windows, lengths);
      sum->total = 0;
      sum->min = n_windows ? G_MAXINT64 : 0;
      sum->max = 0;
      for (guint w = 0; w < n_windows; w++)
        {
          sum->total += lengths[w];
          sum->min = MIN (sum->min, lengths[w]);
          sum->max = MAX (sum->max, lengths[w]);
          if (w < self->steps->len)
            g_array_index (self->steps, CpStepStats, w).time[c] = lengths[w];
        }
      sum->mean = n_windows ? sum->total / n_windows : 0;
      /* Ratio of sums, XProf's convention: Σ category / Σ window. */
      sum->percent = self->window_time > 0 ? 100.0 * sum->total / self->window_time : 0.0;
    }
}
