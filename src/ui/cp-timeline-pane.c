/* cp-timeline-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-timeline-pane.h"

struct _CpTimelinePane
{
  CpPane          parent_instance;

  /* Template widgets */
  CpFindBar      *find_bar;
  CpTimelineView *view;
  GtkWidget      *scrollbar;
};

G_DEFINE_FINAL_TYPE (CpTimelinePane, cp_timeline_pane, CP_TYPE_PANE)

static void
find_closed_cb (CpTimelinePane *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

static void
cp_timeline_pane_trace_changed (CpPane *pane)
{
  CpTimelinePane *self = CP_TIMELINE_PANE (pane);

  cp_timeline_view_set_trace (self->view, cp_pane_get_trace (pane));
  /* The view made a view state of its own if it had none. */
  cp_find_bar_set_view_state (self->find_bar, cp_timeline_view_get_view_state (self->view));
}

static void
cp_timeline_pane_view_state_changed (CpPane      *pane,
                                     CpViewState *old)
{
  CpTimelinePane *self = CP_TIMELINE_PANE (pane);

  cp_timeline_view_set_view_state (self->view, cp_pane_get_view_state (pane));
  cp_find_bar_set_view_state (self->find_bar, cp_pane_get_view_state (pane));
}

static void
cp_timeline_pane_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CP_TYPE_TIMELINE_PANE);

  G_OBJECT_CLASS (cp_timeline_pane_parent_class)->dispose (object);
}

static void
cp_timeline_pane_class_init (CpTimelinePaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpPaneClass *pane_class = CP_PANE_CLASS (klass);

  object_class->dispose = cp_timeline_pane_dispose;
  pane_class->trace_changed = cp_timeline_pane_trace_changed;
  pane_class->view_state_changed = cp_timeline_pane_view_state_changed;

  g_type_ensure (CP_TYPE_FIND_BAR);
  g_type_ensure (CP_TYPE_TIMELINE_VIEW);
  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "timeline");
  gtk_widget_class_bind_template_child (widget_class, CpTimelinePane, find_bar);
  gtk_widget_class_bind_template_child (widget_class, CpTimelinePane, view);
  gtk_widget_class_bind_template_child (widget_class, CpTimelinePane, scrollbar);
  gtk_widget_class_bind_template_callback (widget_class, find_closed_cb);
}

static void
cp_timeline_pane_init (CpTimelinePane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_scrollbar_set_adjustment (GTK_SCROLLBAR (self->scrollbar),
                                cp_timeline_view_get_vadjustment (self->view));
}

GtkWidget *
cp_timeline_pane_new (void)
{
  return g_object_new (CP_TYPE_TIMELINE_PANE, NULL);
}

CpTimelineView *
cp_timeline_pane_get_view (CpTimelinePane *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_PANE (self), NULL);
  return self->view;
}

CpFindBar *
cp_timeline_pane_get_find_bar (CpTimelinePane *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_PANE (self), NULL);
  return self->find_bar;
}

void
cp_timeline_pane_find (CpTimelinePane *self)
{
  g_return_if_fail (CP_IS_TIMELINE_PANE (self));
  cp_find_bar_open (self->find_bar);
}
