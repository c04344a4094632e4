/* cp-timeline-pane.h: the timeline with its find bar and scrollbar
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-find-bar.h"
#include "cp-pane.h"
#include "cp-timeline-view.h"

G_BEGIN_DECLS

#define CP_TYPE_TIMELINE_PANE (cp_timeline_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpTimelinePane, cp_timeline_pane, CP, TIMELINE_PANE, CpPane)

GtkWidget      *cp_timeline_pane_new            (void);

CpTimelineView *cp_timeline_pane_get_view       (CpTimelinePane *self);
CpFindBar      *cp_timeline_pane_get_find_bar   (CpTimelinePane *self);

/* Opens the find bar (Ctrl+F). */
void            cp_timeline_pane_find           (CpTimelinePane *self);

G_END_DECLS
