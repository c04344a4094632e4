/* cp-job-window.h: the window of a job: several ranks of one run
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opened for several files at once (the command line, Open with several
 * selected, a drop) or a folder of per-rank captures. The ranks are read
 * in parallel (cp_job_open_async()) with Cancel, the loading page showing
 * every file's state and share read (CpJobProgress) and the whole job's
 * beside it; a rank left out (missing,
 * damaged, from another job) is named in a toast and on the page while the
 * rest opens. The Ranks page shows the straggler with its evidence, the
 * mean step of every rank side by side, the heat map of arrival delays
 * (collective × rank; hover or click tells the collective, rank and delay;
 * a click selects the collective), the job timeline (a summary row per
 * rank in job time, the selected collective on every rank with its
 * arrivals joined; zoomed with its buttons or Ctrl and the wheel, to the
 * selected collective, and moved by a drag; a double click on a rank
 * opens its capture at that range) and the job findings with their fixes.
 */

#pragma once

#include <adwaita.h>

#include "analysis/cp-job.h"
#include "render/cp-job-chart.h"
#include "cp-application.h"

G_BEGIN_DECLS

#define CP_TYPE_JOB_WINDOW (cp_job_window_get_type ())

G_DECLARE_FINAL_TYPE (CpJobWindow, cp_job_window, CP, JOB_WINDOW, AdwApplicationWindow)

CpJobWindow *cp_job_window_new             (CpApplication *application);
/* Reads files as the ranks of one job; one file that is a folder is read
 * as its per-rank captures (cp_job_list_folder()). Once per window. */
void         cp_job_window_open            (CpJobWindow   *self,
                                            GFile * const *files,
                                            guint          n_files);
/* Cancels the reading; the window then says so. */
void         cp_job_window_cancel          (CpJobWindow   *self);
gboolean     cp_job_window_is_loading      (CpJobWindow   *self);
/* The job once read, else NULL. */
CpJob       *cp_job_window_get_job         (CpJobWindow   *self);
/* Where the heat map was last drawn, in its drawing area's coordinates;
 * FALSE before. */
gboolean     cp_job_window_get_heatmap     (CpJobWindow   *self,
                                            CpJobHeatmap  *map);
/* Where the job timeline was last drawn; FALSE before. */
gboolean     cp_job_window_get_timeline    (CpJobWindow   *self,
                                            CpJobTimeline *timeline);
/* The job time range the timeline shows (the whole job unless zoomed). */
void             cp_job_window_get_visible_range (CpJobWindow *self,
                                                  gint64      *start,
                                                  gint64      *end);
/* Opens rank index's capture (job order) in a window of its own, showing
 * the range the job timeline shows, in the rank's own time. */
void             cp_job_window_open_rank (CpJobWindow *self,
                                          guint        index);
/* Shows or hides rank index's own lanes (job order) in a band under its
 * row of the job timeline, as a click on its name does. */
void             cp_job_window_show_rank_lanes (CpJobWindow *self,
                                                guint        index,
                                                gboolean     shown);
/* The view of rank index's lanes while they are shown, else NULL. */
CpViewState     *cp_job_window_get_rank_view   (CpJobWindow *self,
                                                guint        index);
/* Where a slice of rank index is drawn in its band, in the timeline's
 * coordinates, as last drawn; FALSE when it is not shown. */
gboolean         cp_job_window_get_rank_slice_rect (CpJobWindow *self,
                                                    guint        index,
                                                    CpSliceRef   ref,
                                                    double      *x,
                                                    double      *y,
                                                    double      *w,
                                                    double      *h);
/* The selected collective (job order), -1 for none. */
gint         cp_job_window_get_selected_collective (CpJobWindow *self);

G_END_DECLS
