/* cp-timeline-view.h: the timeline widget
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "render/cp-timeline-layout.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_TIMELINE_VIEW (cp_timeline_view_get_type ())

G_DECLARE_FINAL_TYPE (CpTimelineView, cp_timeline_view, CP, TIMELINE_VIEW, GtkWidget)

/* Draws its view state with the render painter (the same drawing as the
 * report) and turns pointer, touch and keys into view state changes:
 * W/S zoom at the pointer, A/D pan, Ctrl+scroll and pinch zoom at the
 * pointer, scroll moves lanes, Shift+scroll pans, drag pans, a drag on the
 * ruler selects a range, click selects, F fits the selection, 0/Home fit
 * all, ./, step along the selected lane, Escape clears. */
GtkWidget        *cp_timeline_view_new              (void);

CpTrace          *cp_timeline_view_get_trace        (CpTimelineView *self);
void              cp_timeline_view_set_trace        (CpTimelineView *self,
                                                     CpTrace        *trace);
CpViewState      *cp_timeline_view_get_view_state   (CpTimelineView *self);
void              cp_timeline_view_set_view_state   (CpTimelineView *self,
                                                     CpViewState    *view);

/* The vertical scroll, for a scrollbar beside the view. */
GtkAdjustment    *cp_timeline_view_get_vadjustment  (CpTimelineView *self);

/* The current layout (NULL before a trace is shown). */
CpTimelineLayout *cp_timeline_view_get_layout       (CpTimelineView *self);
/* The middle of a slice in widget coordinates; FALSE when it is not drawn. */
gboolean          cp_timeline_view_get_slice_point  (CpTimelineView *self,
                                                     CpSliceRef      ref,
                                                     double         *x,
                                                     double         *y);
/* The time under the pointer, when it is over the time area. */
gboolean          cp_timeline_view_get_pointer_time (CpTimelineView *self,
                                                     gint64         *t);
/* Where [start, end] is drawn on a lane (CP_LANE_ALL, or a lane not shown:
 * on the ruler), clipped to the time area, in widget coordinates; FALSE when
 * it is out of view. For pointing popovers at annotations. */
gboolean          cp_timeline_view_get_range_rect   (CpTimelineView *self,
                                                     guint           lane,
                                                     gint64          start,
                                                     gint64          end,
                                                     GdkRectangle   *rect);
/* Whether the level-of-detail index is ready (it is built in a thread). */
gboolean          cp_timeline_view_is_ready         (CpTimelineView *self);
/* Whether the view may put devices first, once per trace, when the host
 * lanes are taller than the view (the user has not chosen an order). */
void              cp_timeline_view_set_auto_lane_order (CpTimelineView *self,
                                                        gboolean        auto_order);

G_END_DECLS
