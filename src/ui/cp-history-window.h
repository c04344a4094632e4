/* cp-history-window.h: the History window, and recording opened captures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window reads the run history (docs/history.md) in a worker thread
 * and draws a CpHistoryChart per metric: step time, device utilisation,
 * data-loading share and each rule's time at stake, a line per value of
 * the label chosen to group by, regressions marked against the threshold
 * in its spin button. A click on a point opens that capture; Shift-click on
 * two compares them (the application's "compare" action, or two windows
 * where there is none). With nothing recorded it says how to record.
 *
 * Recording: when "keep-history" is on, CpWindow hands each analysed
 * capture to cp_history_record_loaded(), which stores it in a worker
 * thread as `chokepoint history add` does; the first capture ever loaded
 * asks, in a toast, whether to keep a history ("keep-history-asked").
 */

#pragma once

#include <adwaita.h>

#include "analysis/cp-analysis.h"

#include "cp-application.h"
#include "cp-history-chart.h"
#include "cp-window.h"

G_BEGIN_DECLS

#define CP_TYPE_HISTORY_WINDOW (cp_history_window_get_type ())

G_DECLARE_FINAL_TYPE (CpHistoryWindow, cp_history_window, CP, HISTORY_WINDOW, AdwWindow)

/* The history at cp_history_default_location(), read at once. */
CpHistoryWindow *cp_history_window_new          (CpApplication   *app);
/* Reads the history again (keeps the grouping, threshold and metrics). */
void             cp_history_window_reload       (CpHistoryWindow *self);
/* Whether the last read is done. */
gboolean         cp_history_window_is_loaded    (CpHistoryWindow *self);
/* "empty", "error" or "charts". */
const char      *cp_history_window_get_page     (CpHistoryWindow *self);
/* The runs read (oldest first). */
guint            cp_history_window_get_n_runs   (CpHistoryWindow *self);
/* The chart of a metric ("step_time.mean"...), NULL when not shown. */
CpHistoryChart  *cp_history_window_get_chart    (CpHistoryWindow *self,
                                                 const char      *metric);
/* The label key the lines are grouped by; NULL for none. */
void             cp_history_window_set_group    (CpHistoryWindow *self,
                                                 const char      *key);
/* In percent (default 5). */
void             cp_history_window_set_threshold (CpHistoryWindow *self,
                                                  double           percent);

/* The application's "history" (opens or raises the window) and
 * "keep-history" (the setting, a toggle) actions. */
void             cp_history_add_app_actions     (CpApplication   *app);

/* The window's capture has been analysed: ask once, or record it. */
void             cp_history_record_loaded       (CpWindow        *window,
                                                 CpAnalysis      *analysis);
/* Recordings finished (stored, known or failed) in this process. */
guint            cp_history_record_get_finished (void);
/* Recordings begun in this process. */
guint            cp_history_record_get_started  (void);

G_END_DECLS
