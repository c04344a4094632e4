/* cp-range-stats.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-lod.h"
#include "cp-range-stats.h"

GArray *
cp_range_stats_compute (CpTrace       *trace,
                        gint64         start,
                        gint64         end,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GArray) out = NULL;
  CpLod *lod;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);

  out = g_array_new (FALSE, FALSE, sizeof (CpRangeLaneStats));
  lod = cp_lod_ensure (trace);
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      CpRangeLaneStats st = { l, 0, 0 };

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        continue;
      st.slices = cp_lod_count_slices (lod, l, start, end);
      if (st.slices == 0)
        continue;
      st.busy = cp_lane_busy_time (lane, start, end);
      g_array_append_val (out, st);
    }
  return g_steal_pointer (&out);
}
