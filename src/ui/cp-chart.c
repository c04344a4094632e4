/* cp-chart.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "render/cp-palette.h"

#include "cp-chart.h"
#include "cp-style.h"

typedef struct
{
  int hover;
} CpChartPrivate;

typedef struct
{
  int min_width, natural_width, min_height, natural_height;
} CpChartSize;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (CpChart, cp_chart, GTK_TYPE_WIDGET)

static GQuark size_quark;

void
cp_chart_class_set_size (CpChartClass *klass,
                         int           min_width,
                         int           natural_width,
                         int           min_height,
                         int           natural_height)
{
  CpChartSize *size = g_new (CpChartSize, 1);

  g_return_if_fail (CP_IS_CHART_CLASS (klass));

  size->min_width = min_width;
  size->natural_width = MAX (natural_width, min_width);
  size->min_height = min_height;
  size->natural_height = MAX (natural_height, min_height);
  /* Class data lives as long as the class: for the whole process. */
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), size_quark, size);
}

static void
set_hover (CpChart *self,
           int      hover)
{
  CpChartPrivate *priv = cp_chart_get_instance_private (self);
  CpChartClass *klass = CP_CHART_GET_CLASS (self);
  g_autofree char *text = NULL;

  if (priv->hover == hover)
    return;
  priv->hover = hover;
  if (hover >= 0 && klass->describe != NULL)
    text = klass->describe (self, (guint) hover);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), hover >= 0 ? "pointer" : NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static int
item_at (CpChart *self,
         double   x,
         double   y)
{
  CpChartClass *klass = CP_CHART_GET_CLASS (self);

  return klass->item_at != NULL ? klass->item_at (self, x, y) : -1;
}

int
cp_chart_get_hover (CpChart *self)
{
  CpChartPrivate *priv = cp_chart_get_instance_private (self);

  g_return_val_if_fail (CP_IS_CHART (self), -1);
  return priv->hover;
}

void
cp_chart_reset_hover (CpChart *self)
{
  g_return_if_fail (CP_IS_CHART (self));

  set_hover (self, -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cp_chart_hover_at (CpChart *self,
                   double   x,
                   double   y)
{
  g_return_if_fail (CP_IS_CHART (self));
  set_hover (self, item_at (self, x, y));
}

void
cp_chart_set_source (cairo_t *cr,
                     guint32  rgba)
{
  cairo_set_source_rgba (cr, cp_rgba_r (rgba), cp_rgba_g (rgba), cp_rgba_b (rgba), cp_rgba_a (rgba));
}

void
cp_chart_draw_text (CpChart    *self,
                    cairo_t    *cr,
                    const char *text,
                    double      x,
                    double      y,
                    double      xalign,
                    double      yalign,
                    gboolean    bold)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  PangoFontDescription *font = pango_font_description_from_string (bold ? "Sans Bold 9" : "Sans 8");
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - xalign * w, y - yalign * h);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
}

static void
cp_chart_snapshot (GtkWidget   *widget,
                   GtkSnapshot *snapshot)
{
  CpChart *self = CP_CHART (widget);
  CpChartClass *klass = CP_CHART_GET_CLASS (self);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GdkRGBA fg;
  cairo_t *cr;

  if (klass->draw == NULL || width <= 0 || height <= 0)
    return;
#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, &fg);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
#endif
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  klass->draw (self, cr, width, height, &fg, cp_ui_widget_is_dark (widget));
  cairo_destroy (cr);
}

static void
cp_chart_measure (GtkWidget      *widget,
                  GtkOrientation  orientation,
                  int             for_size,
                  int            *minimum,
                  int            *natural,
                  int            *minimum_baseline,
                  int            *natural_baseline)
{
  const CpChartSize *size = NULL;

  for (GType t = G_OBJECT_TYPE (widget); size == NULL && t != CP_TYPE_CHART; t = g_type_parent (t))
    size = g_type_get_qdata (t, size_quark);
  if (size == NULL)
    {
      *minimum = *natural = 0;
      return;
    }
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? size->min_width : size->min_height;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? size->natural_width : size->natural_height;
}

static void
motion_cb (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           CpChart                  *self)
{
  set_hover (self, item_at (self, x, y));
}

static void
leave_cb (GtkEventControllerMotion *motion,
          CpChart                  *self)
{
  set_hover (self, -1);
}

static void
pressed_cb (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            CpChart         *self)
{
  CpChartClass *klass = CP_CHART_GET_CLASS (self);
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  int i = item_at (self, x, y);

  if (i >= 0 && klass->activate != NULL)
    klass->activate (self, (guint) i, state);
}

static void
dark_changed_cb (CpChart *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
cp_chart_dispose (GObject *object)
{
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), object);
  G_OBJECT_CLASS (cp_chart_parent_class)->dispose (object);
}

static void
cp_chart_class_init (CpChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  size_quark = g_quark_from_static_string ("cp-chart-size");
  object_class->dispose = cp_chart_dispose;
  widget_class->snapshot = cp_chart_snapshot;
  widget_class->measure = cp_chart_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cp_chart_init (CpChart *self)
{
  CpChartPrivate *priv = cp_chart_get_instance_private (self);
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *motion = gtk_event_controller_motion_new ();

  priv->hover = -1;
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  g_signal_connect (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (dark_changed_cb), self);
}
