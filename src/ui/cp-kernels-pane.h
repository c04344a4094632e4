/* cp-kernels-pane.h: the "Kernels" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-pane.h"
#include "cp-roofline-chart.h"

#include "analysis/cp-analysis.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_KERNELS_PANE (cp_kernels_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpKernelsPane, cp_kernels_pane, CP, KERNELS_PANE, CpPane)

/* Sortable tables (GtkColumnView) of the kernels by name, of the host ops,
 * and of kernel time by module and by code line, with a name filter.
 * Selecting a row highlights every slice of that name on the timeline. */
GtkWidget   *cp_kernels_pane_new            (void);


/* Shows the kernels (TRUE) or host ops table. */
void         cp_kernels_pane_show_kernels   (CpKernelsPane *self,
                                             gboolean       kernels);
/* Shows kernel time by nn.Module (CP_SOURCE_MODULE) or by the line of the
 * user's code (CP_SOURCE_FRAME), cp_analysis_kernels_by_source(); both are
 * worked out on a thread the first time, while a spinner shows and
 * cp_kernels_pane_is_grouping() is TRUE. */
void         cp_kernels_pane_show_by_source (CpKernelsPane *self,
                                             CpSourceKind   kind);
gboolean     cp_kernels_pane_is_grouping    (CpKernelsPane *self);
/* Rows shown (after the filter) in the table on display. */
guint        cp_kernels_pane_get_n_rows     (CpKernelsPane *self);
/* The name in a row of the table on display, in its current sort order. */
const char  *cp_kernels_pane_get_row_name   (CpKernelsPane *self,
                                             guint          row);
/* Selects a row of the table on display, as a click does. */
void         cp_kernels_pane_select_row     (CpKernelsPane *self,
                                             guint          row);
/* Sorts the table on display by a column ("name", "count", "total", "mean",
 * "min", "max", "share", "kernels", "kernel-time"). */
gboolean     cp_kernels_pane_sort_by        (CpKernelsPane *self,
                                             const char    *column,
                                             gboolean       descending);
void         cp_kernels_pane_set_filter     (CpKernelsPane *self,
                                             const char    *text);
/* Shows the roofline chart of the kernels; a click on a dot selects that
 * kernel's row (and so its slices), as a click in the table does. */
void         cp_kernels_pane_show_roofline  (CpKernelsPane *self);
CpRooflineChart *cp_kernels_pane_get_roofline_chart (CpKernelsPane *self);

G_END_DECLS
