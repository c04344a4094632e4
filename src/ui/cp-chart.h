/* cp-chart.h: the base of the charts drawn with Cairo
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CP_TYPE_CHART (cp_chart_get_type ())

G_DECLARE_DERIVABLE_TYPE (CpChart, cp_chart, CP, CHART, GtkWidget)

/* A chart is drawn with Cairo and shows items (bars, dots, points) that the
 * pointer can hover and click. The base class does the rest: it follows the
 * pointer, keeps the hovered item, gives it the pointer cursor and its
 * tooltip, redraws on a change of the light or dark style, and sizes the
 * widget.
 *
 * draw: paints the chart, width × height, fg the widget's text colour.
 * item_at: the item under (x, y) in widget coordinates, or -1.
 * describe: the tooltip of an item (newly allocated), or NULL for none.
 * activate: a primary click on an item, with the modifiers held. */
struct _CpChartClass
{
  GtkWidgetClass parent_class;

  void   (*draw)     (CpChart       *self,
                      cairo_t       *cr,
                      int            width,
                      int            height,
                      const GdkRGBA *fg,
                      gboolean       dark);
  int    (*item_at)  (CpChart       *self,
                      double         x,
                      double         y);
  char * (*describe) (CpChart       *self,
                      guint          item);
  void   (*activate) (CpChart       *self,
                      guint          item,
                      GdkModifierType state);

  gpointer padding[8];
};

/* The minimum and natural sizes of every chart of a class. */
void cp_chart_class_set_size (CpChartClass *klass,
                              int           min_width,
                              int           natural_width,
                              int           min_height,
                              int           natural_height);

/* The item under the pointer, or -1. */
int  cp_chart_get_hover      (CpChart *self);
/* Forgets the hovered item (the items changed) and redraws. */
void cp_chart_reset_hover    (CpChart *self);
/* What the pointer does at (x, y): hover what is there. */
void cp_chart_hover_at       (CpChart *self,
                              double   x,
                              double   y);

/* Drawing helpers. A colour as 0xRRGGBBAA. */
void cp_chart_set_source     (cairo_t    *cr,
                              guint32     rgba);
/* Text in the chart's small font (bold: the title's), its point at
 * (x - xalign × width, y - yalign × height). */
void cp_chart_draw_text      (CpChart    *self,
                              cairo_t    *cr,
                              const char *text,
                              double      x,
                              double      y,
                              double      xalign,
                              double      yalign,
                              gboolean    bold);

G_END_DECLS
