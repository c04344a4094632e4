/* cp-roofline-chart.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cp-format.h"
#include "cp-roofline-chart.h"
#include "cp-style.h"

#define LEFT    58.0
#define BOTTOM  34.0
#define TOP     10.0
#define RIGHT   24.0
#define MIN_R   3.0
#define MAX_R   14.0

typedef struct
{
  CpStr       name;
  double      intensity;
  double      tflops;
  double      percent;
  gint64      time;
  CpBound     bound;
  CpPrecision precision;
  gboolean    estimate;
} Dot;

struct _CpRooflineChart
{
  CpChart     parent_instance;

  CpAnalysis *analysis;
  GArray     *dots;          /* of Dot, most time first */
  gint64      max_time;
  /* The ceilings of the device with the most kernel time. */
  gboolean    has_ceilings;
  gboolean    estimated;     /* the peaks come from the SMs and clock */
  double      bandwidth;     /* GB/s */
  double      peaks[CP_N_PRECISIONS];
  gboolean    precision_used[CP_N_PRECISIONS];
  /* Axes: log10 ranges. */
  double      x_lo, x_hi, y_lo, y_hi;
  CpStr       selected;
};

G_DEFINE_FINAL_TYPE (CpRooflineChart, cp_roofline_chart, CP_TYPE_CHART)

enum { KERNEL_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* GNOME palette: blue for memory-bound, orange for compute-bound. */
static guint32
dot_color (CpBound  bound,
           gboolean dark)
{
  switch (bound)
    {
    case CP_BOUND_MEMORY: return dark ? 0x62a0eacc : 0x1c71d8cc;
    case CP_BOUND_COMPUTE: return dark ? 0xffa348cc : 0xe66100cc;
    case CP_BOUND_UNKNOWN:
    default: return dark ? 0xc0bfbccc : 0x77767bcc;
    }
}

static void
rebuild (CpRooflineChart *self)
{
  const CpRooflineStats *st;
  guint n;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  gint device = -1;

  g_array_set_size (self->dots, 0);
  self->max_time = 0;
  self->has_ceilings = FALSE;
  self->estimated = FALSE;
  memset (self->precision_used, 0, sizeof self->precision_used);
  if (self->analysis == NULL)
    return;

  st = cp_analysis_get_roofline (self->analysis, FALSE, &n);
  for (guint k = 0; k < n; k++)
    {
      Dot d;

      if (!(st[k].achieved_tflops > 0) || !(st[k].intensity > 0) || !isfinite (st[k].intensity))
        continue;
      if (device < 0)
        device = st[k].device;
      d.name = st[k].name;
      d.intensity = st[k].intensity;
      d.tflops = st[k].achieved_tflops;
      d.percent = st[k].roofline_percent;
      d.time = st[k].time;
      d.bound = st[k].bound;
      d.precision = st[k].precision;
      d.estimate = st[k].source == CP_FLOPS_ESTIMATED;
      g_array_append_val (self->dots, d);
      self->max_time = MAX (self->max_time, d.time);
      self->precision_used[d.precision] = TRUE;
      xmin = MIN (xmin, d.intensity);
      xmax = MAX (xmax, d.intensity);
      ymin = MIN (ymin, d.tflops);
      ymax = MAX (ymax, d.tflops);
    }
  if (self->dots->len == 0)
    return;

  for (guint p = 0; p < CP_N_PRECISIONS; p++)
    {
      CpPeakSource source;
      double bw;

      cp_analysis_get_device_peak (self->analysis, device, p, &source, &self->peaks[p], &bw);
      if (source != CP_PEAK_UNKNOWN && self->peaks[p] > 0 && bw > 0)
        {
          self->has_ceilings = TRUE;
          self->estimated = source == CP_PEAK_PROPERTIES;
          self->bandwidth = bw;
          if (self->precision_used[p])
            {
              ymax = MAX (ymax, self->peaks[p]);
              /* The ridge point, where the slope meets the roof. */
              xmax = MAX (xmax, self->peaks[p] * 1000.0 / bw);
            }
        }
    }
  self->x_lo = floor (log10 (xmin));
  self->x_hi = MAX (ceil (log10 (xmax) + 0.3), self->x_lo + 1);
  self->y_lo = floor (log10 (ymin));
  self->y_hi = MAX (ceil (log10 (ymax) + 0.15), self->y_lo + 1);
}

static void
plot_rect (CpRooflineChart *self,
           double          *x0,
           double          *y0,
           double          *w,
           double          *h)
{
  *x0 = LEFT;
  *y0 = TOP;
  *w = MAX (gtk_widget_get_width (GTK_WIDGET (self)) - LEFT - RIGHT, 1);
  *h = MAX (gtk_widget_get_height (GTK_WIDGET (self)) - TOP - BOTTOM, 1);
}

static double
to_x (CpRooflineChart *self,
      double           intensity)
{
  double x0, y0, w, h;

  plot_rect (self, &x0, &y0, &w, &h);
  return x0 + w * (log10 (intensity) - self->x_lo) / (self->x_hi - self->x_lo);
}

static double
to_y (CpRooflineChart *self,
      double           tflops)
{
  double x0, y0, w, h;

  plot_rect (self, &x0, &y0, &w, &h);
  return y0 + h - h * (log10 (tflops) - self->y_lo) / (self->y_hi - self->y_lo);
}

static double
radius (CpRooflineChart *self,
        const Dot       *d)
{
  return MIN_R + (MAX_R - MIN_R) * sqrt ((double) d->time / (double) MAX (self->max_time, 1));
}

static char *
decade_label (double e)
{
  double v = pow (10, e);

  if (e >= 0)
    return g_strdup_printf ("%.0f", v);
  return g_strdup_printf ("%g", v);
}

static void
cp_roofline_chart_draw (CpChart       *chart,
                        cairo_t       *cr,
                        int            width,
                        int            height,
                        const GdkRGBA *fg,
                        gboolean       dark)
{
  CpRooflineChart *self = CP_ROOFLINE_CHART (chart);
  gint hover = cp_chart_get_hover (chart);
  double x0, y0, w, h;

  if (width < LEFT + RIGHT + 20 || height < TOP + BOTTOM + 20)
    return;
  plot_rect (self, &x0, &y0, &w, &h);

  if (self->dots->len == 0)
    {
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
      cp_chart_draw_text (chart, cr, _("No kernel has both FLOPs and bytes to place on the roofline."),
                 width / 2, height / 2, 0.5, 0.5, FALSE);
      return;
    }

  /* Grid and decades. */
  cairo_set_line_width (cr, 1);
  for (double e = self->x_lo; e <= self->x_hi + 1e-9; e++)
    {
      double x = floor (to_x (self, pow (10, e))) + 0.5;
      g_autofree char *label = decade_label (e);

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.12);
      cairo_move_to (cr, x, y0);
      cairo_line_to (cr, x, y0 + h);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
      cp_chart_draw_text (chart, cr, label, x, y0 + h + 3, 0.5, 0.0, FALSE);
    }
  for (double e = self->y_lo; e <= self->y_hi + 1e-9; e++)
    {
      double y = floor (to_y (self, pow (10, e))) + 0.5;
      g_autofree char *label = decade_label (e);

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.12);
      cairo_move_to (cr, x0, y);
      cairo_line_to (cr, x0 + w, y);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
      cp_chart_draw_text (chart, cr, label, x0 - 4, y, 1.0, 0.5, FALSE);
    }
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
  cp_chart_draw_text (chart, cr, _("FLOP per byte"), x0 + w / 2, height - 2, 0.5, 1.0, FALSE);
  cairo_save (cr);
  cairo_translate (cr, 10, y0 + h / 2);
  cairo_rotate (cr, -G_PI / 2);
  cp_chart_draw_text (chart, cr, _("TFLOP/s"), 0, 0, 0.5, 0.5, FALSE);
  cairo_restore (cr);

  cairo_save (cr);
  cairo_rectangle (cr, x0, y0, w, h);
  cairo_clip (cr);

  /* The ceilings: the bandwidth slope up to each roof in use. */
  if (self->has_ceilings)
    {
      for (guint p = 0; p < CP_N_PRECISIONS; p++)
        {
          double ridge, xs, xr, yr;
          g_autofree char *label = NULL;

          if (!self->precision_used[p] || !(self->peaks[p] > 0))
            continue;
          ridge = self->peaks[p] * 1000.0 / self->bandwidth;
          xs = pow (10, self->x_lo);
          xr = to_x (self, ridge);
          yr = to_y (self, self->peaks[p]);
          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.8);
          cairo_set_line_width (cr, 1.5);
          cairo_move_to (cr, to_x (self, xs), to_y (self, xs * self->bandwidth / 1000.0));
          cairo_line_to (cr, xr, yr);
          cairo_line_to (cr, x0 + w, yr);
          cairo_stroke (cr);
          /* Translators: a compute roof: precision and its peak. */
          label = self->estimated
                    /* Translators: a compute roof estimated from the GPU's SM count and clock. */
                    ? g_strdup_printf (_("%s peak ≈%.0f TFLOP/s (from its SMs and clock)"),
                                       cp_precision_to_string (p), self->peaks[p])
                    : g_strdup_printf (_("%s peak %.0f TFLOP/s"), cp_precision_to_string (p), self->peaks[p]);
          cp_chart_draw_text (chart, cr, label, x0 + w - 4, yr - 2, 1.0, 1.0, FALSE);
        }
      {
        /* Translators: the memory roof's slope: bandwidth. */
        g_autofree char *label = g_strdup_printf (_("%.0f GB/s"), self->bandwidth);
        double xi = pow (10, self->x_lo + 0.5);

        cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.8);
        cp_chart_draw_text (chart, cr, label, to_x (self, xi) + 4, to_y (self, xi * self->bandwidth / 1000.0) + 2, 0.0, 0.0, FALSE);
      }
    }

  /* Dots, smallest on top. */
  for (gint i = 0; i < (gint) self->dots->len; i++)
    {
      const Dot *d = &g_array_index (self->dots, Dot, i);
      double cx = to_x (self, d->intensity), cy = to_y (self, d->tflops), r = radius (self, d);

      cp_chart_set_source (cr, dot_color (d->bound, dark));
      cairo_new_path (cr);
      cairo_arc (cr, cx, cy, r, 0, 2 * G_PI);
      cairo_fill_preserve (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.35);
      cairo_set_line_width (cr, 1);
      if (d->estimate)
        {
          /* Shape estimates get a dashed outline. */
          double dash[] = { 2, 2 };

          cairo_set_dash (cr, dash, 2, 0);
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      if (i == hover || (self->selected != CP_STR_EMPTY && d->name == self->selected))
        {
          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.9);
          cairo_set_line_width (cr, 2);
          cairo_new_path (cr);
          cairo_arc (cr, cx, cy, r + 3, 0, 2 * G_PI);
          cairo_stroke (cr);
        }
    }
  cairo_restore (cr);

  if (!self->has_ceilings)
    {
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.8);
      cp_chart_draw_text (chart, cr, _("Device peak unknown: no ceilings drawn"), x0 + 6, y0 + 4, 0.0, 0.0, FALSE);
    }
}

gint
cp_roofline_chart_dot_at (CpRooflineChart *self,
                          double           x,
                          double           y)
{
  gint best = -1;
  double best_d = INFINITY;

  g_return_val_if_fail (CP_IS_ROOFLINE_CHART (self), -1);

  for (guint i = 0; i < self->dots->len; i++)
    {
      const Dot *d = &g_array_index (self->dots, Dot, i);
      double dx = x - to_x (self, d->intensity), dy = y - to_y (self, d->tflops);
      double dist = sqrt (dx * dx + dy * dy);

      if (dist <= radius (self, d) + 2 && dist < best_d)
        {
          best = (gint) i;
          best_d = dist;
        }
    }
  return best;
}

static char *
cp_roofline_chart_describe (CpChart *chart,
                            guint    i)
{
  CpRooflineChart *self = CP_ROOFLINE_CHART (chart);
  const Dot *d;
  GString *text;
  g_autofree char *name = NULL, *dur = NULL;

  d = &g_array_index (self->dots, Dot, i);
  name = cp_ui_format_short_name (cp_trace_get_string (cp_analysis_get_trace (self->analysis), d->name));
  dur = cp_ui_format_duration (d->time);
  text = g_string_new (name);
  g_string_append_c (text, '\n');
  /* Translators: achieved TFLOP/s, FLOP per byte, time. */
  g_string_append_printf (text, _("%.3g TFLOP/s at %.3g FLOP/byte, %s"), d->tflops, d->intensity, dur);
  if (isfinite (d->percent))
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, d->bound == CP_BOUND_MEMORY ? _("%.1f%% of the memory roof")
                                                                : _("%.1f%% of the compute roof"), d->percent);
    }
  if (d->estimate)
    {
      g_string_append_c (text, '\n');
      g_string_append (text, _("FLOPs estimated from the op's shapes"));
    }
  return g_string_free (text, FALSE);
}

static int
item_at_cb (CpChart *chart,
            double   x,
            double   y)
{
  return cp_roofline_chart_dot_at (CP_ROOFLINE_CHART (chart), x, y);
}

static void
activate_cb (CpChart        *chart,
             guint           i,
             GdkModifierType state)
{
  CpRooflineChart *self = CP_ROOFLINE_CHART (chart);

  self->selected = g_array_index (self->dots, Dot, i).name;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[KERNEL_ACTIVATED], 0, (guint) self->selected);
}

static void
cp_roofline_chart_dispose (GObject *object)
{
  CpRooflineChart *self = (CpRooflineChart *) object;

  g_clear_object (&self->analysis);
  G_OBJECT_CLASS (cp_roofline_chart_parent_class)->dispose (object);
}

static void
cp_roofline_chart_finalize (GObject *object)
{
  CpRooflineChart *self = (CpRooflineChart *) object;

  g_array_unref (self->dots);
  G_OBJECT_CLASS (cp_roofline_chart_parent_class)->finalize (object);
}

static void
cp_roofline_chart_class_init (CpRooflineChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpChartClass *chart_class = CP_CHART_CLASS (klass);

  object_class->dispose = cp_roofline_chart_dispose;
  object_class->finalize = cp_roofline_chart_finalize;
  chart_class->draw = cp_roofline_chart_draw;
  chart_class->item_at = item_at_cb;
  chart_class->describe = cp_roofline_chart_describe;
  chart_class->activate = activate_cb;
  cp_chart_class_set_size (chart_class, 200, 360, 160, 280);
  gtk_widget_class_set_css_name (widget_class, "rooflinechart");

  signals[KERNEL_ACTIVATED] = g_signal_new ("kernel-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
cp_roofline_chart_init (CpRooflineChart *self)
{
  self->dots = g_array_new (FALSE, FALSE, sizeof (Dot));
  self->selected = CP_STR_EMPTY;
}

GtkWidget *
cp_roofline_chart_new (void)
{
  return g_object_new (CP_TYPE_ROOFLINE_CHART, NULL);
}

void
cp_roofline_chart_set_analysis (CpRooflineChart *self,
                                CpAnalysis      *analysis)
{
  g_return_if_fail (CP_IS_ROOFLINE_CHART (self));

  if (g_set_object (&self->analysis, analysis))
    {
      self->selected = CP_STR_EMPTY;
      rebuild (self);
      cp_chart_reset_hover (CP_CHART (self));
    }
}

guint
cp_roofline_chart_get_n_dots (CpRooflineChart *self)
{
  g_return_val_if_fail (CP_IS_ROOFLINE_CHART (self), 0);
  return self->dots->len;
}

gboolean
cp_roofline_chart_get_dot (CpRooflineChart *self,
                           guint            i,
                           double          *x,
                           double          *y,
                           CpStr           *name)
{
  const Dot *d;

  g_return_val_if_fail (CP_IS_ROOFLINE_CHART (self), FALSE);
  if (i >= self->dots->len || gtk_widget_get_width (GTK_WIDGET (self)) <= 0)
    return FALSE;
  d = &g_array_index (self->dots, Dot, i);
  *x = to_x (self, d->intensity);
  *y = to_y (self, d->tflops);
  *name = d->name;
  return TRUE;
}

void
cp_roofline_chart_set_selected (CpRooflineChart *self,
                                CpStr            name)
{
  g_return_if_fail (CP_IS_ROOFLINE_CHART (self));

  if (self->selected != name)
    {
      self->selected = name;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

gboolean
cp_roofline_chart_has_ceilings (CpRooflineChart *self)
{
  g_return_val_if_fail (CP_IS_ROOFLINE_CHART (self), FALSE);
  return self->has_ceilings;
}

gboolean
cp_roofline_chart_peaks_estimated (CpRooflineChart *self)
{
  g_return_val_if_fail (CP_IS_ROOFLINE_CHART (self), FALSE);
  return self->has_ceilings && self->estimated;
}
