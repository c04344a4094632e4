/* cp-compare-window.h: two captures side by side, A (before) and B (after)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads A and B in parallel (progress, Cancel), analyses both and compares
 * them (CpComparison); a load error or a pair that does not compare is
 * said on a status page. Pages: Compare (step time A → B, the waterfall of
 * what explains it, the largest kernel changes, how the findings changed,
 * the notes), Timelines (both captures on one time axis aligned at each
 * side's typical step, scroll and zoom locked unless unlocked, a selected
 * slice's matches outlined on both sides), Kernels (by name, or by the
 * launching host op, matched on a thread when first asked for) and Host
 * Ops (by name or by call path): A, B, delta and ratio per step, sortable,
 * filtered by name. Export draws cp_report_new_compare().
 */

#pragma once

#include <adwaita.h>

#include "analysis/cp-compare.h"
#include "cp-application.h"

G_BEGIN_DECLS

#define CP_TYPE_COMPARE_WINDOW (cp_compare_window_get_type ())

G_DECLARE_FINAL_TYPE (CpCompareWindow, cp_compare_window, CP, COMPARE_WINDOW, AdwApplicationWindow)

/* Opens a window comparing a (before) with b (after) and starts reading. */
CpCompareWindow *cp_compare_window_new            (CpApplication   *app,
                                                   GFile           *a,
                                                   GFile           *b);
/* The comparison once both captures are read and compare; NULL before,
 * and after an error. */
CpComparison    *cp_compare_window_get_comparison (CpCompareWindow *self);
/* "loading", "error" or "content". */
const char      *cp_compare_window_get_state      (CpCompareWindow *self);
/* The status page's text after an error (NULL otherwise). */
const char      *cp_compare_window_get_error      (CpCompareWindow *self);
/* Whether scroll and zoom of the two timelines are locked together. */
gboolean         cp_compare_window_get_locked     (CpCompareWindow *self);
void             cp_compare_window_set_locked     (CpCompareWindow *self,
                                                   gboolean         locked);
/* A side's timeline (0: A, 1: B); NULL before the content shows. */
GtkWidget       *cp_compare_window_get_timeline   (CpCompareWindow *self,
                                                   guint            side);
/* Chooses another typical step of a side and aligns both timelines at the
 * typical steps' starts. FALSE when index is out of range. */
gboolean         cp_compare_window_set_typical_step (CpCompareWindow *self,
                                                     guint            side,
                                                     guint            index);

G_END_DECLS
