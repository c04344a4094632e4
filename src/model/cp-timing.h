/* cp-timing.h: milestones printed for measurements (CHOKEPOINT_TIMINGS=1)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* With CHOKEPOINT_TIMINGS=1 in the environment, each call prints one line
 * to stderr: "chokepoint-timing: MILESTONE 1.234 s", the seconds since the
 * process started (from /proc/self/stat, so exec and start-up count). The
 * milestones are "load-done" (a capture is loaded), "analysis-done" (its
 * analysis is finished) and "first-frame" (the window drew its first
 * timeline). Unset or any other value: nothing is printed, and a call costs
 * one load of a cached flag. Thread-safe. */
void     cp_timing_mark    (const char *milestone);
gboolean cp_timing_enabled (void);

G_END_DECLS
