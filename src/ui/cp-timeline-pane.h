/* cp-timeline-pane.h: the timeline with its find bar and scrollbar
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-find-bar.h"
#include "cp-timeline-view.h"

G_BEGIN_DECLS

#define CP_TYPE_TIMELINE_PANE (cp_timeline_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpTimelinePane, cp_timeline_pane, CP, TIMELINE_PANE, GtkWidget)

GtkWidget      *cp_timeline_pane_new            (void);

CpTrace        *cp_timeline_pane_get_trace      (CpTimelinePane *self);
void            cp_timeline_pane_set_trace      (CpTimelinePane *self,
                                                 CpTrace        *trace);
CpViewState    *cp_timeline_pane_get_view_state (CpTimelinePane *self);
void            cp_timeline_pane_set_view_state (CpTimelinePane *self,
                                                 CpViewState    *view);

CpTimelineView *cp_timeline_pane_get_view       (CpTimelinePane *self);
CpFindBar      *cp_timeline_pane_get_find_bar   (CpTimelinePane *self);

/* Opens the find bar (Ctrl+F). */
void            cp_timeline_pane_find           (CpTimelinePane *self);

G_END_DECLS
