/* cp-history-chart.c: one metric over the runs of the history
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "render/cp-palette.h"

#include "cp-format.h"
#include "cp-history-chart.h"
#include "cp-style.h"

/* Room for the title, the value scale and the run numbers. */
#define TOP     26.0
#define BOTTOM  20.0
#define LEFT    78.0
#define RIGHT   16.0
#define HIT     6.0

struct _CpHistoryChart
{
  CpChart     parent_instance;

  char       *title;
  char       *unit;
  guint       n_runs;
  GArray     *points;      /* CpHistoryChartPoint */
  GHashTable *tooltips;    /* gint64 * -> char *, or NULL */
  double      lo, hi;      /* the value scale */
  gint64      chosen;
};

G_DEFINE_FINAL_TYPE (CpHistoryChart, cp_history_chart, CP_TYPE_CHART)

enum { SIGNAL_POINT_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

GtkWidget *
cp_history_chart_new (void)
{
  return g_object_new (CP_TYPE_HISTORY_CHART, NULL);
}

static void
compute_scale (CpHistoryChart *self)
{
  double lo = INFINITY, hi = -INFINITY, max_value;

  for (guint i = 0; i < self->points->len; i++)
    {
      double v = g_array_index (self->points, CpHistoryChartPoint, i).value;

      if (isnan (v))
        continue;
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
  if (lo > hi)
    lo = 0, hi = 1;
  max_value = hi;
  /* Shares and counts start at zero; times too unless they vary little,
   * when a scale from zero would flatten the change that matters. */
  if (lo >= 0 && (g_strcmp0 (self->unit, "ns") != 0 || lo < 0.5 * hi))
    lo = 0;
  if (hi - lo < fabs (hi) * 1e-6 || hi == lo)
    {
      double pad = hi != 0 ? fabs (hi) * 0.1 : 1;

      hi += pad;
      lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
    }
  else
    {
      double pad = (hi - lo) * 0.08;

      hi += pad;
      if (lo != 0)
        lo -= pad;
    }
  /* A share that stays within 0-100% keeps its scale there. */
  if (g_strcmp0 (self->unit, "%") == 0 && hi > 100 && max_value <= 100)
    hi = 100;
  self->lo = lo;
  self->hi = hi;
}

void
cp_history_chart_set_data (CpHistoryChart *self,
                           const char     *title,
                           const char     *unit,
                           guint           n_runs,
                           GArray         *points,
                           GHashTable     *tooltips)
{
  g_return_if_fail (CP_IS_HISTORY_CHART (self));
  g_return_if_fail (points != NULL);

  g_free (self->title);
  self->title = g_strdup (title);
  g_free (self->unit);
  self->unit = g_strdup (unit);
  self->n_runs = n_runs;
  g_clear_pointer (&self->points, g_array_unref);
  self->points = points;
  g_clear_pointer (&self->tooltips, g_hash_table_unref);
  self->tooltips = tooltips;
  compute_scale (self);
  cp_chart_reset_hover (CP_CHART (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
}

const char *
cp_history_chart_get_title (CpHistoryChart *self)
{
  g_return_val_if_fail (CP_IS_HISTORY_CHART (self), NULL);

  return self->title;
}

GArray *
cp_history_chart_get_points (CpHistoryChart *self)
{
  g_return_val_if_fail (CP_IS_HISTORY_CHART (self), NULL);

  return self->points;
}

static double
x_of (CpHistoryChart *self,
      guint           index,
      double          width)
{
  double w = MAX (width - LEFT - RIGHT, 1);

  if (self->n_runs <= 1)
    return LEFT + w / 2;
  return LEFT + w * index / (self->n_runs - 1);
}

static double
y_of (CpHistoryChart *self,
      double          value,
      double          height)
{
  double h = MAX (height - TOP - BOTTOM, 1);

  return TOP + h * (1 - (value - self->lo) / (self->hi - self->lo));
}

gboolean
cp_history_chart_get_point_position (CpHistoryChart *self,
                                     guint           i,
                                     double         *x,
                                     double         *y)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  const CpHistoryChartPoint *p;

  g_return_val_if_fail (CP_IS_HISTORY_CHART (self), FALSE);
  g_return_val_if_fail (i < self->points->len, FALSE);

  p = &g_array_index (self->points, CpHistoryChartPoint, i);
  if (width <= 0 || height <= 0 || isnan (p->value))
    return FALSE;
  *x = x_of (self, p->index, width);
  *y = y_of (self, p->value, height);
  return TRUE;
}

int
cp_history_chart_point_at (CpHistoryChart *self,
                           double          x,
                           double          y)
{
  double best = HIT * HIT;
  int found = -1;

  g_return_val_if_fail (CP_IS_HISTORY_CHART (self), -1);

  for (guint i = 0; i < self->points->len; i++)
    {
      double px, py, d;

      if (!cp_history_chart_get_point_position (self, i, &px, &py))
        continue;
      d = (px - x) * (px - x) + (py - y) * (py - y);
      /* Among points on top of each other, the last drawn: a regression. */
      if (d <= best)
        {
          best = d;
          found = i;
        }
    }
  return found;
}

gint64
cp_history_chart_get_hovered (CpHistoryChart *self)
{
  int hover;

  g_return_val_if_fail (CP_IS_HISTORY_CHART (self), 0);

  hover = cp_chart_get_hover (CP_CHART (self));
  if (hover < 0)
    return 0;
  return g_array_index (self->points, CpHistoryChartPoint, hover).id;
}

void
cp_history_chart_set_chosen (CpHistoryChart *self,
                             gint64          id)
{
  g_return_if_fail (CP_IS_HISTORY_CHART (self));

  if (self->chosen == id)
    return;
  self->chosen = id;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cp_history_chart_click (CpHistoryChart  *self,
                        double           x,
                        double           y,
                        GdkModifierType  state)
{
  int i;

  g_return_if_fail (CP_IS_HISTORY_CHART (self));

  i = cp_history_chart_point_at (self, x, y);
  if (i >= 0)
    CP_CHART_GET_CLASS (self)->activate (CP_CHART (self), (guint) i, state);
}

/* Drawing --------------------------------------------------------------- */

static char *
format_value (CpHistoryChart *self,
              double          value)
{
  if (g_strcmp0 (self->unit, "ns") == 0)
    return cp_ui_format_duration ((gint64) llround (value));
  if (g_strcmp0 (self->unit, "%") == 0)
    return cp_ui_format_percent (value);
  return g_strdup_printf ("%.0f", value);
}

static void
cp_history_chart_draw (CpChart       *chart,
                       cairo_t       *cr,
                       int            width,
                       int            height,
                       const GdkRGBA *fg,
                       gboolean       dark)
{
  CpHistoryChart *self = CP_HISTORY_CHART (chart);
  CpTheme theme = dark ? CP_THEME_DARK : CP_THEME_LIGHT;
  guint32 bad = dark ? 0xff7b63ffu : 0xc01c28ffu;
  double plot_w = width - LEFT - RIGHT;
  int hover = cp_chart_get_hover (chart);
  gboolean dots;

  if (width <= LEFT + RIGHT || height <= TOP + BOTTOM)
    return;

  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.9);
  cp_chart_draw_text (chart, cr, self->title ? self->title : "", LEFT, TOP / 2, 0, 0.5, TRUE);

  /* The value scale: three lines with their values. */
  cairo_set_line_width (cr, 1);
  for (int t = 0; t <= 2; t++)
    {
      double v = self->lo + (self->hi - self->lo) * t / 2;
      double y = round (y_of (self, v, height)) + 0.5;
      g_autofree char *text = format_value (self, v);

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.12);
      cairo_move_to (cr, LEFT, y);
      cairo_line_to (cr, width - RIGHT, y);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
      cp_chart_draw_text (chart, cr, text, LEFT - 6, y, 1, 0.5, FALSE);
    }
  /* The run numbers at both ends (1 is the oldest). */
  if (self->n_runs > 0)
    {
      g_autofree char *first = g_strdup (_("run 1"));
      g_autofree char *last = g_strdup_printf (_("run %u"), self->n_runs);

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
      if (self->n_runs == 1)
        cp_chart_draw_text (chart, cr, first, x_of (self, 0, width), height - BOTTOM / 2, 0.5, 0.5, FALSE);
      else
        {
          cp_chart_draw_text (chart, cr, first, LEFT, height - BOTTOM / 2, 0, 0.5, FALSE);
          cp_chart_draw_text (chart, cr, last, width - RIGHT, height - BOTTOM / 2, 1, 0.5, FALSE);
        }
    }

  /* Lines, series by series; a run without the metric breaks its line. */
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint i = 0; i < self->points->len; i++)
    {
      const CpHistoryChartPoint *p = &g_array_index (self->points, CpHistoryChartPoint, i);
      const CpHistoryChartPoint *prev = i > 0 ? p - 1 : NULL;
      double x = x_of (self, p->index, width);

      if (isnan (p->value))
        continue;
      if (prev != NULL && prev->series == p->series && !isnan (prev->value))
        cairo_line_to (cr, x, y_of (self, p->value, height));
      else
        {
          cairo_stroke (cr);
          cp_chart_set_source (cr, cp_palette_indexed_color (theme, p->series));
          cairo_move_to (cr, x, y_of (self, p->value, height));
        }
    }
  cairo_stroke (cr);

  /* Points where there is room for them; regressions, the chosen and the
   * hovered run always. */
  dots = self->n_runs <= 1 || plot_w / (self->n_runs - 1) >= 6;
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < self->points->len; i++)
      {
        const CpHistoryChartPoint *p = &g_array_index (self->points, CpHistoryChartPoint, i);
        gboolean marked = p->regression || p->id == self->chosen || (int) i == hover;
        double x, y;

        if (isnan (p->value) || (pass == 0 ? (!dots || marked) : !marked))
          continue;
        x = x_of (self, p->index, width);
        y = y_of (self, p->value, height);
        if (p->regression)
          {
            cp_chart_set_source (cr, bad);
            cairo_arc (cr, x, y, 4.5, 0, 2 * G_PI);
            cairo_fill (cr);
            cairo_set_line_width (cr, 1.5);
            cairo_arc (cr, x, y, 7.5, 0, 2 * G_PI);
            cairo_stroke (cr);
          }
        else
          {
            cp_chart_set_source (cr, cp_palette_indexed_color (theme, p->series));
            cairo_arc (cr, x, y, marked ? 4.5 : 3, 0, 2 * G_PI);
            cairo_fill (cr);
          }
        if (p->id == self->chosen || (int) i == hover)
          {
            cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.9);
            cairo_set_line_width (cr, 2);
            cairo_arc (cr, x, y, 6, 0, 2 * G_PI);
            cairo_stroke (cr);
          }
      }
}

/* Input ----------------------------------------------------------------- */

static int
item_at_cb (CpChart *chart,
            double   x,
            double   y)
{
  return cp_history_chart_point_at (CP_HISTORY_CHART (chart), x, y);
}

static char *
describe_cb (CpChart *chart,
             guint    i)
{
  CpHistoryChart *self = CP_HISTORY_CHART (chart);

  if (self->tooltips == NULL)
    return NULL;
  return g_strdup (g_hash_table_lookup (self->tooltips, &g_array_index (self->points, CpHistoryChartPoint, i).id));
}

static void
activate_cb (CpChart        *chart,
             guint           i,
             GdkModifierType state)
{
  CpHistoryChart *self = CP_HISTORY_CHART (chart);

  g_signal_emit (self, signals[SIGNAL_POINT_ACTIVATED], 0,
                 g_array_index (self->points, CpHistoryChartPoint, i).id,
                 (state & GDK_SHIFT_MASK) != 0);
}

static void
cp_history_chart_finalize (GObject *object)
{
  CpHistoryChart *self = CP_HISTORY_CHART (object);

  g_free (self->title);
  g_free (self->unit);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->tooltips, g_hash_table_unref);

  G_OBJECT_CLASS (cp_history_chart_parent_class)->finalize (object);
}

static void
cp_history_chart_class_init (CpHistoryChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  CpChartClass *chart_class = CP_CHART_CLASS (klass);

  object_class->finalize = cp_history_chart_finalize;
  chart_class->draw = cp_history_chart_draw;
  chart_class->item_at = item_at_cb;
  chart_class->describe = describe_cb;
  chart_class->activate = activate_cb;
  cp_chart_class_set_size (chart_class, 240, 640, 150, 190);

  /* (id, shift): a click on a run's point. */
  signals[SIGNAL_POINT_ACTIVATED] =
    g_signal_new ("point-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_BOOLEAN);
}

static void
cp_history_chart_init (CpHistoryChart *self)
{
  self->points = g_array_new (FALSE, FALSE, sizeof (CpHistoryChartPoint));
  self->lo = 0;
  self->hi = 1;
}
