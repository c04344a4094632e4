/* cp-steps-chart.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "cp-format.h"
#include "cp-steps-chart.h"
#include "cp-style.h"

#define AXIS_WIDTH    52.0
#define BOTTOM_HEIGHT 20.0
#define TOP_MARGIN    14.0
#define MAX_BAR_WIDTH 36.0
#define GAP_FRACTION  0.2

struct _CpStepsChart
{
  CpChart      parent_instance;

  CpAnalysis  *analysis;
  CpViewState *view;
  gint         active;     /* the bar last zoomed to */
};

G_DEFINE_FINAL_TYPE (CpStepsChart, cp_steps_chart, CP_TYPE_CHART)

/* Light and dark variants of each category, from the GNOME palette. Compute
 * is green, input red, transfers warm, host work blue, idle grey. */
static const guint32 category_colors[CP_TIME_N_CATEGORIES][2] = {
  [CP_TIME_COMPUTE_16] = { 0x26a269ff, 0x33d17aff },
  [CP_TIME_COMPUTE_32] = { 0x8ff0a4ff, 0x1b7a4bff },
  [CP_TIME_DEVICE_TO_HOST] = { 0xc64600ff, 0xff7800ff },
  [CP_TIME_DEVICE_TO_DEVICE] = { 0x986a44ff, 0xb5835aff },
  [CP_TIME_ASYNC_WAIT] = { 0x63452cff, 0xcdab8fff },
  [CP_TIME_INPUT_WAIT] = { 0xe01b24ff, 0xf66151ff },
  [CP_TIME_COLLECTIVES] = { 0x9141acff, 0xc061cbff },
  [CP_TIME_LAUNCH] = { 0xe5a50aff, 0xf6d32dff },
  [CP_TIME_HOST_TO_DEVICE] = { 0xdc8addff, 0xdc8addff },
  [CP_TIME_OTHER] = { 0x77767bff, 0x9a9996ff },
  [CP_TIME_RUNTIME] = { 0x1c71d8ff, 0x62a0eaff },
  [CP_TIME_HOST_COMPUTE] = { 0x99c1f1ff, 0x1a5fb4ff },
  [CP_TIME_IDLE] = { 0xc0bfbcff, 0x5e5c64ff },
};

guint32
cp_steps_chart_category_color (CpTimeCategory category,
                               gboolean       dark)
{
  g_return_val_if_fail (category < CP_TIME_N_CATEGORIES, 0);
  return category_colors[category][dark ? 1 : 0];
}

/* The windows to draw: steps, or the single whole-capture window. */
static guint
n_bars (CpStepsChart *self)
{
  guint n = 0;

  if (self->analysis != NULL)
    cp_analysis_get_windows (self->analysis, &n);
  return n;
}

static void
bar_geometry (CpStepsChart *self,
              double       *x0,
              double       *pitch,
              double       *bar_width)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - AXIS_WIDTH - 8;
  guint n = MAX (n_bars (self), 1);

  *pitch = w / n;
  *bar_width = MIN (*pitch * (1 - GAP_FRACTION), MAX_BAR_WIDTH);
  if (*bar_width < 1)
    *bar_width = MAX (*pitch, 1);
  *x0 = AXIS_WIDTH + (*pitch - *bar_width) / 2;
}

gint
cp_steps_chart_bar_at (CpStepsChart *self,
                       double        x)
{
  double x0, pitch, bw;
  gint i;

  g_return_val_if_fail (CP_IS_STEPS_CHART (self), -1);

  if (n_bars (self) == 0 || x < AXIS_WIDTH)
    return -1;
  bar_geometry (self, &x0, &pitch, &bw);
  i = (gint) ((x - AXIS_WIDTH) / pitch);
  return i >= 0 && (guint) i < n_bars (self) ? i : -1;
}

static int
item_at_cb (CpChart *chart,
            double   x,
            double   y)
{
  return cp_steps_chart_bar_at (CP_STEPS_CHART (chart), x);
}

static gint64
window_duration (CpStepsChart *self,
                 guint         i)
{
  const CpInterval *w = cp_analysis_get_windows (self->analysis, NULL);

  return w[i].end - w[i].start;
}

static void
bar_times (CpStepsChart *self,
           guint         i,
           gint64       *times)
{
  const CpStepStats *steps;
  guint n_steps;

  steps = cp_analysis_get_steps (self->analysis, &n_steps);
  if (i < n_steps)
    {
      for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
        times[c] = steps[i].time[c];
      return;
    }
  /* The whole capture: the overall totals. */
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary s;

      cp_analysis_get_time_summary (self->analysis, c, &s);
      times[c] = s.total;
    }
}

static gboolean
bar_is_outlier (CpStepsChart *self,
                guint         i)
{
  const CpStepStats *steps;
  guint n_steps;

  steps = cp_analysis_get_steps (self->analysis, &n_steps);
  return i < n_steps && steps[i].outlier;
}

static void
cp_steps_chart_draw (CpChart       *chart,
                     cairo_t       *cr,
                     int            width,
                     int            height,
                     const GdkRGBA *fg,
                     gboolean       dark)
{
  CpStepsChart *self = CP_STEPS_CHART (chart);
  double plot_h = height - BOTTOM_HEIGHT - TOP_MARGIN;
  double x0, pitch, bw;
  gint hover = cp_chart_get_hover (chart);
  gint64 max_d = 1;
  guint n = n_bars (self);

  if (n == 0 || width <= AXIS_WIDTH + 10 || plot_h < 10)
    return;

  bar_geometry (self, &x0, &pitch, &bw);
  for (guint i = 0; i < n; i++)
    max_d = MAX (max_d, window_duration (self, i));

  /* Axis: 0, half and the longest step. */
  cairo_set_line_width (cr, 1);
  for (guint k = 0; k <= 2; k++)
    {
      double y = TOP_MARGIN + plot_h - plot_h * k / 2.0;
      g_autofree char *label = k == 0 ? g_strdup ("0") : cp_ui_format_duration (max_d * k / 2);

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.15);
      cairo_move_to (cr, AXIS_WIDTH - 4, floor (y) + 0.5);
      cairo_line_to (cr, width - 4, floor (y) + 0.5);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
      cp_chart_draw_text (chart, cr, label, AXIS_WIDTH - 6, y, 1.0, 0.5, FALSE);
    }

  for (guint i = 0; i < n; i++)
    {
      gint64 times[CP_TIME_N_CATEGORIES];
      double x = x0 + i * pitch;
      double y = TOP_MARGIN + plot_h;
      double bar_h = plot_h * window_duration (self, i) / (double) max_d;
      gint64 sum = 0;

      bar_times (self, i, times);
      for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
        sum += times[c];
      /* Stack from the bottom in category order (device compute first). */
      for (guint c = 0; c < CP_TIME_N_CATEGORIES && sum > 0; c++)
        {
          double h = bar_h * times[c] / (double) sum;

          if (h <= 0)
            continue;
          cp_chart_set_source (cr, cp_steps_chart_category_color (c, dark));
          cairo_rectangle (cr, x, y - h, bw, h);
          cairo_fill (cr);
          y -= h;
        }

      if ((gint) i == hover || (gint) i == self->active)
        {
          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, (gint) i == hover ? 0.9 : 0.5);
          cairo_set_line_width (cr, 2);
          cairo_rectangle (cr, x - 1, TOP_MARGIN + plot_h - bar_h - 1, bw + 2, bar_h + 2);
          cairo_stroke (cr);
        }
      if (bar_is_outlier (self, i))
        {
          /* A warning triangle above the bar. */
          double cx = x + bw / 2, ty = TOP_MARGIN + plot_h - bar_h - 4;

          cp_chart_set_source (cr, dark ? 0xf66151ff : 0xc01c28ff);
          cairo_move_to (cr, cx, ty);
          cairo_line_to (cr, cx - 5, ty - 8);
          cairo_line_to (cr, cx + 5, ty - 8);
          cairo_close_path (cr);
          cairo_fill (cr);
        }

      /* Step numbers, as many as fit. */
      if (pitch >= 24 || i % (guint) ceil (24 / pitch) == 0)
        {
          const CpStepStats *steps;
          guint n_steps;
          g_autofree char *label = NULL;

          steps = cp_analysis_get_steps (self->analysis, &n_steps);
          label = i < n_steps ? g_strdup_printf ("%" G_GINT64_FORMAT, steps[i].number) : g_strdup (_("all"));
          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
          cp_chart_draw_text (chart, cr, label, x + bw / 2, height - BOTTOM_HEIGHT / 2, 0.5, 0.5, FALSE);
        }
    }
}

static char *
cp_steps_chart_describe (CpChart *chart,
                         guint    i)
{
  CpStepsChart *self = CP_STEPS_CHART (chart);
  const CpStepStats *steps;
  guint n_steps;
  gint64 times[CP_TIME_N_CATEGORIES];
  gint64 d;
  GString *text;
  g_autofree char *dur = NULL;

  steps = cp_analysis_get_steps (self->analysis, &n_steps);
  d = window_duration (self, i);
  dur = cp_ui_format_duration (d);
  text = g_string_new (NULL);
  if ((guint) i < n_steps)
    g_string_append_printf (text, _("Step %" PRId64 ": %s"), steps[i].number, dur);
  else
    g_string_append_printf (text, _("Whole capture: %s"), dur);
  if (bar_is_outlier (self, i))
    g_string_append_printf (text, " — %s", _("an outlier"));
  bar_times (self, i, times);
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      g_autofree char *t = NULL;

      if (times[c] == 0)
        continue;
      t = cp_ui_format_duration (times[c]);
      g_string_append_printf (text, "\n%s: %s (%.1f%%)", cp_time_category_get_label (c), t,
                              d > 0 ? 100.0 * times[c] / d : 0.0);
    }
  g_string_append_printf (text, "\n%s", _("Click to zoom the timeline to it"));
  return g_string_free (text, FALSE);
}

void
cp_steps_chart_activate (CpStepsChart *self,
                         guint         bar)
{
  const CpInterval *w;
  guint n;

  g_return_if_fail (CP_IS_STEPS_CHART (self));

  if (self->analysis == NULL)
    return;
  w = cp_analysis_get_windows (self->analysis, &n);
  if (bar >= n)
    return;
  self->active = bar;
  if (self->view != NULL)
    cp_view_state_fit_range (self->view, w[bar].start, w[bar].end);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
activate_cb (CpChart        *chart,
             guint           bar,
             GdkModifierType state)
{
  cp_steps_chart_activate (CP_STEPS_CHART (chart), bar);
}

static void
cp_steps_chart_dispose (GObject *object)
{
  CpStepsChart *self = (CpStepsChart *) object;

  g_clear_object (&self->analysis);
  g_clear_object (&self->view);
  G_OBJECT_CLASS (cp_steps_chart_parent_class)->dispose (object);
}

static void
cp_steps_chart_class_init (CpStepsChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpChartClass *chart_class = CP_CHART_CLASS (klass);

  object_class->dispose = cp_steps_chart_dispose;
  chart_class->draw = cp_steps_chart_draw;
  chart_class->item_at = item_at_cb;
  chart_class->describe = cp_steps_chart_describe;
  chart_class->activate = activate_cb;
  cp_chart_class_set_size (chart_class, (int) AXIS_WIDTH + 60, 280, 120, 180);
  gtk_widget_class_set_css_name (widget_class, "stepschart");
}

static void
cp_steps_chart_init (CpStepsChart *self)
{
  self->active = -1;
}

GtkWidget *
cp_steps_chart_new (void)
{
  return g_object_new (CP_TYPE_STEPS_CHART, NULL);
}

void
cp_steps_chart_set_analysis (CpStepsChart *self,
                             CpAnalysis   *analysis)
{
  g_return_if_fail (CP_IS_STEPS_CHART (self));

  if (g_set_object (&self->analysis, analysis))
    {
      self->active = -1;
      cp_chart_reset_hover (CP_CHART (self));
    }
}

CpAnalysis *
cp_steps_chart_get_analysis (CpStepsChart *self)
{
  g_return_val_if_fail (CP_IS_STEPS_CHART (self), NULL);
  return self->analysis;
}

void
cp_steps_chart_set_view_state (CpStepsChart *self,
                               CpViewState  *view)
{
  g_return_if_fail (CP_IS_STEPS_CHART (self));
  g_set_object (&self->view, view);
}

guint
cp_steps_chart_get_n_bars (CpStepsChart *self)
{
  g_return_val_if_fail (CP_IS_STEPS_CHART (self), 0);
  return n_bars (self);
}
