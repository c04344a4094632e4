/* cp-time-format.h: time labels and ruler steps
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A duration with three significant digits in the unit that fits:
 * "850 ns", "1.23 µs", "12.3 ms", "2.50 s". */
char   *cp_time_format_duration  (gint64 ns);

/* A time from the trace start, with as many decimals as a ruler step of
 * `step` ns needs, in the unit of `ref` (the largest time shown beside it,
 * so every label of a ruler uses one unit): "3.2 s", "3.20000001 s". */
char   *cp_time_format_tick      (gint64 t,
                                  gint64 step,
                                  gint64 ref);

/* A time from the trace start, exact, with no more decimals than it
 * needs: "1.234567890 s", "45.836 ms", "184 µs". */
char   *cp_time_format_offset    (gint64 t);

/* An edge of a time range of `span` ns, to a thousandth of the span:
 * 193497382 ns in a 375 ms range reads "193.5 ms". */
char   *cp_time_format_range_edge (gint64 t,
                                   gint64 span);

/* Whether a capture's first time (its absolute origin, in ns) is a
 * wall-clock date: the capture says so (Kineto baseTimeNanoseconds, XPlane
 * start times), or it is Unix time between 2005 and 2100 (older Kineto
 * captures). */
gboolean cp_time_origin_is_date  (gint64   origin_abs,
                                  gboolean is_epoch);

/* The smallest 1-2-5 step (1 ns, 2 ns, 5 ns, 10 ns...) whose ticks are at
 * least min_px pixels apart at ns_per_px. */
gint64  cp_time_pick_step        (double ns_per_px,
                                  double min_px);
/* The minor tick step that divides a 1-2-5 major step (1/5, 1/4 or 1/5). */
gint64  cp_time_minor_step       (gint64 major);

G_END_DECLS
