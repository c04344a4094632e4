/* cp-steps-pane.h: the "Steps" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-pane.h"
#include "cp-steps-chart.h"

G_BEGIN_DECLS

#define CP_TYPE_STEPS_PANE (cp_steps_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpStepsPane, cp_steps_pane, CP, STEPS_PANE, CpPane)

/* The step-time breakdown: a stacked bar per step (click zooms to the step,
 * outliers marked), a legend, and the mean / min / max / share of each
 * category. Without steps the whole capture is one bar and the pane says so. */
GtkWidget    *cp_steps_pane_new            (void);

CpStepsChart *cp_steps_pane_get_chart      (CpStepsPane *self);

G_END_DECLS
