/* cp-details-pane.h: the "Details" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-pane.h"

#include "model/cp-trace.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_DETAILS_PANE (cp_details_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpDetailsPane, cp_details_pane, CP, DETAILS_PANE, CpPane)

/* Shows the selected slice (name, category, lane, start, duration, self
 * time, GPU launch figures, arguments decoded on demand, and its flows as
 * links that select and reveal the other end) and the selected time range
 * (its duration, and per lane the slices and busy time it holds). */
GtkWidget   *cp_details_pane_new            (void);


/* Follows the n-th flow link shown (as a click on it would). FALSE when
 * there is no such link. */
gboolean     cp_details_pane_follow_flow    (CpDetailsPane *self,
                                             guint          n);
/* Links shown for the selected slice. */
guint        cp_details_pane_get_n_flows    (CpDetailsPane *self);
/* The Source section's links (ops, modules, Python frames around the
 * selected slice or its launch; every frame also once more under "All
 * frames"): selects and reveals the n-th; FALSE when there is none. */
gboolean     cp_details_pane_follow_source  (CpDetailsPane *self,
                                             guint          n);
guint        cp_details_pane_get_n_sources  (CpDetailsPane *self);

G_END_DECLS
