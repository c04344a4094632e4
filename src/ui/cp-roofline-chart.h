/* cp-roofline-chart.h: the roofline chart of the Kernels pane: one dot per
 * kernel (log-log: FLOP per byte against TFLOP/s, sized by time) under the
 * device's bandwidth slope and compute roofs
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "analysis/cp-analysis.h"

#include "cp-chart.h"

G_BEGIN_DECLS

#define CP_TYPE_ROOFLINE_CHART (cp_roofline_chart_get_type ())

G_DECLARE_FINAL_TYPE (CpRooflineChart, cp_roofline_chart, CP, ROOFLINE_CHART, CpChart)

/* Signal "kernel-activated" (guint name id): a dot was clicked. */
GtkWidget  *cp_roofline_chart_new          (void);
void        cp_roofline_chart_set_analysis (CpRooflineChart *self,
                                            CpAnalysis      *analysis);
/* Dots drawn: kernels with FLOPs, bytes and a duration. */
guint       cp_roofline_chart_get_n_dots   (CpRooflineChart *self);
/* The centre of dot i in widget coordinates; FALSE when out of range or
 * not laid out yet. */
/* TRUE when the ceilings drawn are estimated from the GPU's SMs and clock
 * (the capture states neither its peaks nor a device the table names). */
gboolean   cp_roofline_chart_peaks_estimated (CpRooflineChart *self);

gboolean    cp_roofline_chart_get_dot      (CpRooflineChart *self,
                                            guint            i,
                                            double          *x,
                                            double          *y,
                                            CpStr           *name);
/* The dot under a point (nearest centre within its radius), or -1. */
gint        cp_roofline_chart_dot_at       (CpRooflineChart *self,
                                            double           x,
                                            double           y);
/* Rings the dot of this kernel name (CP_STR_EMPTY: none). */
void        cp_roofline_chart_set_selected (CpRooflineChart *self,
                                            CpStr            name);
/* Whether the device's ceilings are known (else the chart says "peak unknown"). */
gboolean    cp_roofline_chart_has_ceilings (CpRooflineChart *self);

G_END_DECLS
