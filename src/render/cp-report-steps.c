/* cp-report-steps.c: the step breakdown section
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

/* Step-chart colours by time category (Okabe–Ito where it matters most:
 * compute, input, launch, copies), the same in both styles except idle. */
static const guint32 category_colors[CP_TIME_N_CATEGORIES] = {
  [CP_TIME_COMPUTE_16]       = 0x009e73ff,
  [CP_TIME_COMPUTE_32]       = 0x7fcdb4ff,
  [CP_TIME_DEVICE_TO_HOST]   = 0xcc79a7ff,
  [CP_TIME_DEVICE_TO_DEVICE] = 0x9a5b8cff,
  [CP_TIME_ASYNC_WAIT]       = 0x6b4e71ff,
  [CP_TIME_INPUT_WAIT]       = 0xd55e00ff,
  [CP_TIME_COLLECTIVES]      = 0x56b4e9ff,
  [CP_TIME_LAUNCH]           = 0xf0e442ff,
  [CP_TIME_HOST_TO_DEVICE]   = 0x0072b2ff,
  [CP_TIME_OTHER]            = 0x8c6d46ff,
  [CP_TIME_RUNTIME]          = 0xe69f00ff,
  [CP_TIME_HOST_COMPUTE]     = 0xa5a5a5ff,
  [CP_TIME_IDLE]             = 0,
};

/* Steps --------------------------------------------------------------------------- */

static guint32
category_color (Ctx            *ctx,
                CpTimeCategory  c)
{
  if (c == CP_TIME_IDLE)
    return ctx->c->idle;
  return category_colors[c];
}

/* A 1-2-5 step that gives about `want` divisions of max. */
static gint64
nice_step (gint64 max,
           int    want)
{
  gint64 step = 1;

  while (step * want < max)
    {
      if (step * 2 * want >= max)
        return step * 2;
      if (step * 5 * want >= max)
        return step * 5;
      step *= 10;
    }
  return step;
}

/* The step chart as laid out: columns of n_steps steps, per_col a column
 * (one column for the whole capture when there are no steps). */
typedef struct
{
  const CpStepStats *steps;
  guint              n_steps;
  guint              per_col;
  guint              n_cols;
  double             cx;        /* left of the columns */
  double             cw;        /* their width */
  double             y;         /* top of the chart */
  double             chart_h;
  gint64             max_len;   /* the axis' end */
  gint64             grid;      /* between grid lines */
} StepsChart;

/* The grid, its axis labels and the stacked columns. */
static void
steps_draw_columns (Ctx              *ctx,
                    const StepsChart *sc)
{
  CpAnalysis *a = ctx->analysis;
  cairo_t *cr = ctx->cr;
  const CpStepStats *steps = sc->steps;
  guint n_steps = sc->n_steps, per_col = sc->per_col, n_cols = sc->n_cols;
  double cx = sc->cx, cw = sc->cw, y = sc->y, chart_h = sc->chart_h;
  gint64 max_len = sc->max_len, grid = sc->grid;
  double col_w = cw / n_cols;
  double bar_w = MAX (1, MIN (col_w * 0.72, 64));

  /* Grid and axis labels. */
  for (gint64 v = 0; v <= max_len; v += grid)
    {
      double gy = y + chart_h - chart_h * v / max_len;
      g_autofree char *label = cp_time_format_duration (v);
      double lw = cp_report_text_width (ctx, label, ctx->f_small);

      cp_report_set_rgba (cr, ctx->c->border);
      cairo_rectangle (cr, cx, floor (gy), cw, 1);
      cairo_fill (cr);
      cp_report_text (ctx, label, ctx->f_small, cx - lw - 8, gy - 8, -1, ctx->c->dim);
    }

  for (guint col = 0; col < n_cols; col++)
    {
      gint64 t[CP_TIME_N_CATEGORIES] = { 0 };
      guint first = col * per_col, last = MIN (n_steps, (col + 1) * per_col);
      double bx = cx + col * col_w + (col_w - bar_w) / 2;
      double by = y + chart_h;
      gboolean outlier = FALSE;

      if (n_steps == 0)
        {
          for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
            {
              CpTimeSummary s;

              cp_analysis_get_time_summary (a, c, &s);
              t[c] = s.total;
            }
        }
      else
        {
          for (guint k = first; k < last; k++)
            {
              for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
                t[c] += steps[k].time[c];
              outlier |= steps[k].outlier;
            }
          for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
            t[c] /= last - first;
        }
      /* Compute at the bottom, idle on top. */
      for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
        {
          double hh = chart_h * (double) t[c] / (double) max_len;

          if (hh <= 0)
            continue;
          cp_report_set_rgba (cr, category_color (ctx, c));
          cairo_rectangle (cr, bx, by - hh, bar_w, hh);
          cairo_fill (cr);
          by -= hh;
        }
      if (outlier)
        {
          cp_report_set_rgba (cr, ctx->c->high);
          cairo_move_to (cr, bx + bar_w / 2 - 5, by - 10);
          cairo_line_to (cr, bx + bar_w / 2 + 5, by - 10);
          cairo_line_to (cr, bx + bar_w / 2, by - 3);
          cairo_close_path (cr);
          cairo_fill (cr);
        }
    }
}

/* Step numbers under the columns, as many as fit. */
static void
steps_draw_numbers (Ctx              *ctx,
                    const StepsChart *sc)
{
  const CpStepStats *steps = sc->steps;
  guint n_steps = sc->n_steps, per_col = sc->per_col, n_cols = sc->n_cols;
  double cx = sc->cx, cw = sc->cw;
  double last_end = -G_MAXDOUBLE;

  for (guint col = 0; col < n_cols; col++)
    {
      g_autofree char *label = NULL;
      double lw, lx;

      if (n_steps == 0)
        label = g_strdup (_("whole capture"));
      else if (per_col == 1)
        label = g_strdup_printf ("#%" G_GINT64_FORMAT, steps[col].number);
      else
        label = g_strdup_printf ("#%" G_GINT64_FORMAT "–%" G_GINT64_FORMAT, steps[col * per_col].number,
                                 steps[MIN (n_steps, (col + 1) * per_col) - 1].number);
      lw = cp_report_text_width (ctx, label, ctx->f_small);
      lx = cx + col * (cw / n_cols) + (cw / n_cols - lw) / 2;
      if (lx < last_end + 10)
        continue;
      cp_report_text (ctx, label, ctx->f_small, lx, sc->y + sc->chart_h + 6, -1, ctx->c->dim);
      last_end = lx + lw;
    }
}

/* Legend with each category's mean and share. Returns the y below it. */
static double
steps_legend (Ctx               *ctx,
              const CpStepStats *steps,
              guint              n_steps,
              double             y)
{
  CpAnalysis *a = ctx->analysis;
  double x = ctx->x0, row_h = 22;
  gboolean any_outlier = FALSE;

  for (guint k = 0; k < n_steps; k++)
    any_outlier |= steps[k].outlier;
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary s;
      g_autofree char *mean = NULL;
      g_autofree char *pct = NULL;
      g_autofree char *label = NULL;
      double lw;

      cp_analysis_get_time_summary (a, c, &s);
      if (s.total <= 0)
        continue;
      mean = cp_time_format_duration (s.mean);
      pct = cp_report_format_percent (s.percent);
      label = g_strdup_printf ("%s  %s · %s", cp_time_category_get_label (c), mean, pct);
      lw = cp_report_text_width (ctx, label, ctx->f_small) + 16 + 24;
      if (x + lw > ctx->x0 + ctx->inner)
        {
          x = ctx->x0;
          y += row_h;
        }
      if (ctx->draw)
        {
          cp_report_set_rgba (ctx->cr, category_color (ctx, c));
          cairo_rectangle (ctx->cr, x, y + 3, 12, 12);
          cairo_fill (ctx->cr);
        }
      cp_report_text (ctx, label, ctx->f_small, x + 18, y, -1, ctx->c->text);
      x += lw;
    }
  if (any_outlier)
    {
      const char *o = _("▼ outlier step");
      double lw = cp_report_text_width (ctx, o, ctx->f_small) + 16;

      if (x + lw > ctx->x0 + ctx->inner)
        {
          x = ctx->x0;
          y += row_h;
        }
      cp_report_text (ctx, o, ctx->f_small, x, y, -1, ctx->c->high);
    }
  y += row_h + 28;
  return y;
}

double
cp_report_section_steps (Ctx    *ctx,
                         double  y)
{
  CpAnalysis *a = ctx->analysis;
  guint n_steps = 0, n_windows = 0;
  const CpStepStats *steps = cp_analysis_get_steps (a, &n_steps);
  const CpInterval *windows = cp_analysis_get_windows (a, &n_windows);
  double axis_w = 64, chart_h = 220;
  double cx = ctx->x0 + axis_w, cw = ctx->inner - axis_w;
  guint per_col, n_cols;
  gint64 max_len = 1, grid;
  g_autofree char *aside = NULL;

  if (n_steps > 0)
    aside = g_strdup (_("time per step, by what the device and the host were doing"));
  else
    aside = g_strdup (_("no steps marked: the whole capture as one window"));
  y += cp_report_heading (ctx, _("Step breakdown"), aside, y);

  /* Columns: one per step, or per group of steps when they are many. */
  if (n_steps > 0)
    {
      per_col = MAX (1, (guint) ceil (n_steps / floor (cw / 6)));
      n_cols = (n_steps + per_col - 1) / per_col;
    }
  else
    {
      per_col = 1;
      n_cols = 1;
    }

  /* The tallest column. */
  for (guint col = 0; col < n_cols; col++)
    {
      gint64 len = 0;

      if (n_steps == 0)
        len = n_windows > 0 ? cp_analysis_get_window_time (a) : 1;
      else
        {
          for (guint k = col * per_col; k < MIN (n_steps, (col + 1) * per_col); k++)
            len += steps[k].end - steps[k].start;
          len /= MIN (n_steps, (col + 1) * per_col) - col * per_col;
        }
      max_len = MAX (max_len, len);
    }
  grid = nice_step (max_len, 4);
  max_len = ((max_len + grid - 1) / grid) * grid;
  (void) windows;

  if (ctx->draw)
    {
      StepsChart sc = { steps, n_steps, per_col, n_cols, cx, cw, y, chart_h, max_len, grid };

      steps_draw_columns (ctx, &sc);
      steps_draw_numbers (ctx, &sc);
    }
  y += chart_h + 30;

  return steps_legend (ctx, steps, n_steps, y);
}
