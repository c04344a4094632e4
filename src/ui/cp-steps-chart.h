/* cp-steps-chart.h: one stacked bar per step, by time category
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "analysis/cp-analysis.h"
#include "render/cp-view-state.h"

#include "cp-chart.h"

G_BEGIN_DECLS

#define CP_TYPE_STEPS_CHART (cp_steps_chart_get_type ())

G_DECLARE_FINAL_TYPE (CpStepsChart, cp_steps_chart, CP, STEPS_CHART, CpChart)

/* Draws each analysis window (step, or the whole capture) as a bar whose
 * height is its duration, split into the breakdown categories. Outlier steps
 * carry a mark. A click on a bar zooms the timeline to that step; hovering
 * shows its figures. */
GtkWidget *cp_steps_chart_new           (void);

void       cp_steps_chart_set_analysis   (CpStepsChart *self,
                                          CpAnalysis   *analysis);
CpAnalysis *cp_steps_chart_get_analysis  (CpStepsChart *self);
void       cp_steps_chart_set_view_state (CpStepsChart *self,
                                          CpViewState  *view);

/* The bars drawn (windows of the analysis). */
guint      cp_steps_chart_get_n_bars     (CpStepsChart *self);
/* The bar under x (widget coordinates), or -1. */
gint       cp_steps_chart_bar_at         (CpStepsChart *self,
                                          double        x);
/* Zooms the timeline to a bar's window, as a click does. */
void       cp_steps_chart_activate       (CpStepsChart *self,
                                          guint         bar);

/* The colour of a category in the light or dark style (0xRRGGBBAA). */
guint32    cp_steps_chart_category_color (CpTimeCategory category,
                                          gboolean       dark);

G_END_DECLS
