/* cp-timeline-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-timeline-pane.h"

struct _CpTimelinePane
{
  GtkWidget       parent_instance;

  /* Child widgets */
  GtkWidget      *box;
  CpFindBar      *find_bar;
  CpTimelineView *view;
  GtkWidget      *scrollbar;
};

G_DEFINE_FINAL_TYPE (CpTimelinePane, cp_timeline_pane, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRACE,
  PROP_VIEW_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
find_closed_cb (CpTimelinePane *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
}

static void
cp_timeline_pane_dispose (GObject *object)
{
  CpTimelinePane *self = CP_TIMELINE_PANE (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (cp_timeline_pane_parent_class)->dispose (object);
}

static void
cp_timeline_pane_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  CpTimelinePane *self = CP_TIMELINE_PANE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, cp_timeline_pane_get_trace (self));
      break;
    case PROP_VIEW_STATE:
      g_value_set_object (value, cp_timeline_pane_get_view_state (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_timeline_pane_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  CpTimelinePane *self = CP_TIMELINE_PANE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_timeline_pane_set_trace (self, g_value_get_object (value));
      break;
    case PROP_VIEW_STATE:
      cp_timeline_pane_set_view_state (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_timeline_pane_class_init (CpTimelinePaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_timeline_pane_dispose;
  object_class->get_property = cp_timeline_pane_get_property;
  object_class->set_property = cp_timeline_pane_set_property;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, CP_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL, CP_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "timelinepane");
}

static void
cp_timeline_pane_init (CpTimelinePane *self)
{
  GtkWidget *row;

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->find_bar = CP_FIND_BAR (cp_find_bar_new ());
  g_signal_connect_object (self->find_bar, "closed", G_CALLBACK (find_closed_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->find_bar));

  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_vexpand (row, TRUE);
  self->view = CP_TIMELINE_VIEW (cp_timeline_view_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->view), TRUE);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->view));
  self->scrollbar = gtk_scrollbar_new (GTK_ORIENTATION_VERTICAL,
                                       cp_timeline_view_get_vadjustment (self->view));
  gtk_box_append (GTK_BOX (row), self->scrollbar);
  gtk_box_append (GTK_BOX (self->box), row);
}

GtkWidget *
cp_timeline_pane_new (void)
{
  return g_object_new (CP_TYPE_TIMELINE_PANE, NULL);
}

CpTrace *
cp_timeline_pane_get_trace (CpTimelinePane *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_PANE (self), NULL);
  return cp_timeline_view_get_trace (self->view);
}

void
cp_timeline_pane_set_trace (CpTimelinePane *self,
                            CpTrace        *trace)
{
  g_return_if_fail (CP_IS_TIMELINE_PANE (self));

  if (trace == cp_timeline_view_get_trace (self->view))
    return;
  cp_timeline_view_set_trace (self->view, trace);
  /* The view made a view state of its own if it had none. */
  cp_find_bar_set_view_state (self->find_bar, cp_timeline_view_get_view_state (self->view));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

CpViewState *
cp_timeline_pane_get_view_state (CpTimelinePane *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_PANE (self), NULL);
  return cp_timeline_view_get_view_state (self->view);
}

void
cp_timeline_pane_set_view_state (CpTimelinePane *self,
                                 CpViewState    *view)
{
  g_return_if_fail (CP_IS_TIMELINE_PANE (self));

  if (view == cp_timeline_view_get_view_state (self->view))
    return;
  cp_timeline_view_set_view_state (self->view, view);
  cp_find_bar_set_view_state (self->find_bar, view);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
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
