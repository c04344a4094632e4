/* cp-range-stats.h: what a selected time range holds, lane by lane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

typedef struct
{
  guint    lane;
  guint64  slices;     /* slices overlapping the range */
  gint64   busy;       /* the union of the lane's slices within the range, ns */
} CpRangeLaneStats;

/* One entry per lane (counters left out) that has at least one slice in
 * [start, end), in the trace's lane order. NULL with G_IO_ERROR_CANCELLED
 * when cancelled between lanes. */
GArray *cp_range_stats_compute (CpTrace       *trace,
                                gint64         start,
                                gint64         end,
                                GCancellable  *cancellable,
                                GError       **error);

G_END_DECLS
