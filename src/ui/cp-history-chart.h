/* cp-history-chart.h: one metric over the runs of the history, drawn with
 * Cairo
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A line per series (the runs that share a label's value, or all of them),
 * a point per run that has the metric, placed by the run's place among all
 * runs shown (oldest left), the value on a scale of its own. A regression
 * (cp_history_mark_regressions()) is a larger point in the error colour
 * with a ring. Hovering a point shows its run as the tooltip; a click
 * emits "point-activated" with the run's id and whether Shift was held.
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-chart.h"

G_BEGIN_DECLS

typedef struct
{
  gint64    id;          /* the run */
  guint     index;       /* its place among all the runs shown, 0 = oldest */
  guint     series;      /* which line */
  double    value;       /* in the metric's unit (ns, %, count) */
  gboolean  regression;
} CpHistoryChartPoint;

#define CP_TYPE_HISTORY_CHART (cp_history_chart_get_type ())

G_DECLARE_FINAL_TYPE (CpHistoryChart, cp_history_chart, CP, HISTORY_CHART, CpChart)

GtkWidget  *cp_history_chart_new          (void);
/* title: what the chart shows; unit: cp_history_metric_unit()'s; n_runs:
 * all the runs shown (the width of the x axis); points: CpHistoryChartPoint
 * (taken, by series then index); tooltips: per run id (gint64 *) its words
 * (taken; may be NULL). */
void        cp_history_chart_set_data     (CpHistoryChart *self,
                                           const char     *title,
                                           const char     *unit,
                                           guint           n_runs,
                                           GArray         *points,
                                           GHashTable     *tooltips);
const char *cp_history_chart_get_title    (CpHistoryChart *self);
/* CpHistoryChartPoint, as given. */
GArray     *cp_history_chart_get_points   (CpHistoryChart *self);
/* Where point i is drawn, in widget coordinates; FALSE before the widget
 * has a size. */
gboolean    cp_history_chart_get_point_position (CpHistoryChart *self,
                                                 guint           i,
                                                 double         *x,
                                                 double         *y);
/* The point under (x, y), within a few pixels; -1 when none. */
int         cp_history_chart_point_at     (CpHistoryChart *self,
                                           double          x,
                                           double          y);
/* The run the pointer is over, 0 when none. */
gint64      cp_history_chart_get_hovered  (CpHistoryChart *self);
/* The run drawn as chosen (the first of a Shift-click pair); 0: none. */
void        cp_history_chart_set_chosen   (CpHistoryChart *self,
                                           gint64          id);
/* What a click at (x, y) with the modifiers does (the click gesture calls
 * it): emits "point-activated" over a point. */
void        cp_history_chart_click        (CpHistoryChart *self,
                                           double          x,
                                           double          y,
                                           GdkModifierType state);

G_END_DECLS
