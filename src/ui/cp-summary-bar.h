/* cp-summary-bar.h: the figures of a capture in one row
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

#define CP_TYPE_SUMMARY_BAR (cp_summary_bar_get_type ())

G_DECLARE_FINAL_TYPE (CpSummaryBar, cp_summary_bar, CP, SUMMARY_BAR, GtkWidget)

GtkWidget *cp_summary_bar_new       (void);
CpTrace   *cp_summary_bar_get_trace (CpSummaryBar *self);
void       cp_summary_bar_set_trace (CpSummaryBar *self,
                                     CpTrace      *trace);

G_END_DECLS
