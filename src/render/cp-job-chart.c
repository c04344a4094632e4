/* cp-job-chart.c: the step bars of a job's ranks and its heat map of
 * arrival delays
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cp-job-chart.h"
#include "cp-time-format.h"

G_STATIC_ASSERT (CP_TIME_IDLE == CP_TIME_N_CATEGORIES - 1);

#define HEAT_MIN_ROW   6.0
#define HEAT_MAX_ROW  20.0
#define HEAT_MAX_H   400.0   /* 64 ranks in 6 px rows fit a screen */
#define LEGEND_H      34.0
#define GUTTER_PAD     8.0

static void
set_rgba (cairo_t *cr,
          guint32  c)
{
  cairo_set_source_rgba (cr, cp_rgba_r (c), cp_rgba_g (c), cp_rgba_b (c), cp_rgba_a (c));
}

static double
text_width (PangoLayout *layout,
            const char  *text)
{
  int w, h;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  return w;
}

static double
text_height (PangoLayout *layout)
{
  int w, h;

  pango_layout_set_text (layout, "0", -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  return h;
}

/* Draws text with its left (align 0), centre (0.5) or right (1) at x and
 * its middle at y. */
static void
show_text (cairo_t     *cr,
           PangoLayout *layout,
           const char  *text,
           double       x,
           double       y,
           double       align,
           guint32      color)
{
  int w, h;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  set_rgba (cr, color);
  cairo_move_to (cr, x - align * w, y - h / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static char *
rank_label (CpJob *job,
            guint  index)
{
  /* Translators: a rank of a distributed job, in chart labels. */
  return g_strdup_printf (_("rank %d"), cp_job_get_rank (job, index)->rank);
}

/* Heat map ------------------------------------------------------------------------ */

gint64
cp_job_chart_delay (CpJob *job,
                    guint  collective,
                    guint  rank)
{
  const CpJobCollective *c = cp_job_get_collective (job, collective);

  return c->arrival[rank] - c->first_arrival;
}

gint64
cp_job_chart_max_delay (CpJob *job)
{
  gint64 max = 0;

  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    max = MAX (max, cp_job_get_collective (job, c)->skew);
  return max;
}

/* YlOrRd (ColorBrewer): readable in both styles, and by luminance alone. */
static const guint32 heat_stops[] = { 0xffffccff, 0xfed976ff, 0xfd8d3cff, 0xe31a1cff, 0x800026ff };

guint32
cp_job_chart_heat_color (gint64 delay,
                         gint64 max_delay)
{
  double f = max_delay > 0 ? CLAMP ((double) delay / (double) max_delay, 0.0, 1.0) : 0.0;
  double pos = f * (G_N_ELEMENTS (heat_stops) - 1);
  guint i = MIN ((guint) pos, G_N_ELEMENTS (heat_stops) - 2);
  double t = pos - i;
  guint32 a = heat_stops[i], b = heat_stops[i + 1], out = 0xff;

  for (int shift = 8; shift <= 24; shift += 8)
    {
      double ca = (a >> shift) & 0xff, cb = (b >> shift) & 0xff;

      out |= (guint32) lround (ca + (cb - ca) * t) << shift;
    }
  return out;
}

static double
row_height (guint n_ranks)
{
  if (n_ranks == 0)
    return HEAT_MAX_ROW;
  return CLAMP (floor (HEAT_MAX_H / n_ranks), HEAT_MIN_ROW, HEAT_MAX_ROW);
}

double
cp_job_heatmap_natural_height (CpJob  *job,
                               double  width)
{
  guint n = cp_job_get_n_ranks (job);

  (void) width;
  return n * row_height (n) + 20.0 + LEGEND_H;
}

void
cp_job_heatmap_layout (CpJob        *job,
                       PangoLayout  *layout,
                       double        x,
                       double        y,
                       double        width,
                       CpJobHeatmap *out)
{
  double gutter = 0;

  out->n_ranks = cp_job_get_n_ranks (job);
  out->n_collectives = cp_job_get_n_collectives (job);
  out->max_delay = cp_job_chart_max_delay (job);
  for (guint k = 0; k < out->n_ranks; k++)
    {
      g_autofree char *label = rank_label (job, k);

      gutter = MAX (gutter, text_width (layout, label));
    }
  out->label_x = x + gutter;
  out->x = out->label_x + GUTTER_PAD;
  out->y = y;
  out->width = MAX (width - (out->x - x), 1.0);
  out->cell_height = row_height (out->n_ranks);
  out->height = out->cell_height * out->n_ranks;
  out->cell_width = out->width / MAX (out->n_collectives, 1);
  out->legend_y = out->y + out->height + 20.0;
  out->total_height = out->legend_y + LEGEND_H - y;
}

void
cp_job_heatmap_draw (const CpJobHeatmap *map,
                     CpJob              *job,
                     cairo_t            *cr,
                     PangoLayout        *layout,
                     CpTheme             theme,
                     gint                selected)
{
  const CpPaletteColors *pc = cp_palette_get_colors (theme);
  double th = text_height (layout);
  guint label_every = MAX (1, (guint) ceil ((th + 2) / map->cell_height));
  g_autofree char *max_text = NULL;
  double lw, lx;

  cairo_save (cr);
  /* One rectangle per cell; with more collectives than pixels the cells
   * overlap and the later one shows, which the hover reads exactly. */
  for (guint k = 0; k < map->n_ranks; k++)
    for (guint c = 0; c < map->n_collectives; c++)
      {
        double x0 = floor (map->x + c * map->cell_width);
        double x1 = MAX (floor (map->x + (c + 1) * map->cell_width), x0 + 1);

        set_rgba (cr, cp_job_chart_heat_color (cp_job_chart_delay (job, c, k), map->max_delay));
        cairo_rectangle (cr, x0, map->y + k * map->cell_height, x1 - x0, map->cell_height);
        cairo_fill (cr);
      }
  /* Rows apart when they are tall enough to tell. */
  if (map->cell_height >= 10)
    {
      set_rgba (cr, pc->background);
      cairo_set_line_width (cr, 1);
      for (guint k = 1; k < map->n_ranks; k++)
        {
          cairo_move_to (cr, map->x, map->y + k * map->cell_height);
          cairo_line_to (cr, map->x + map->width, map->y + k * map->cell_height);
        }
      cairo_stroke (cr);
    }
  if (selected >= 0 && (guint) selected < map->n_collectives)
    {
      set_rgba (cr, pc->accent);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, floor (map->x + selected * map->cell_width) - 1, map->y - 1,
                       MAX (map->cell_width, 1) + 2, map->height + 2);
      cairo_stroke (cr);
    }
  for (guint k = 0; k < map->n_ranks; k += label_every)
    {
      g_autofree char *label = rank_label (job, k);

      show_text (cr, layout, label, map->label_x, map->y + (k + 0.5) * map->cell_height, 1.0, pc->text);
    }
  /* Translators: the horizontal axis of the heat map. */
  show_text (cr, layout, _("collectives in order →"), map->x, map->y + map->height + 10, 0.0, pc->dim_text);

  /* Legend: the colour scale from no delay to the largest. */
  lw = MIN (240.0, map->width * 0.5);
  lx = map->x;
  for (int i = 0; i < (int) lw; i++)
    {
      set_rgba (cr, cp_job_chart_heat_color ((gint64) (i * (double) map->max_delay / lw), map->max_delay));
      cairo_rectangle (cr, lx + i, map->legend_y, 1, 12);
      cairo_fill (cr);
    }
  show_text (cr, layout, "0", lx, map->legend_y + 12 + th / 2 + 2, 0.0, pc->dim_text);
  max_text = cp_time_format_duration (map->max_delay);
  show_text (cr, layout, max_text, lx + lw, map->legend_y + 12 + th / 2 + 2, 1.0, pc->dim_text);
  /* Translators: the legend of the heat map's colours. */
  show_text (cr, layout, _("arrival delay after the first rank"), lx + lw + 12, map->legend_y + 6, 0.0,
             pc->text);
  cairo_restore (cr);
}

gboolean
cp_job_heatmap_hit (const CpJobHeatmap *map,
                    double              px,
                    double              py,
                    guint              *collective,
                    guint              *rank)
{
  double c, k;

  if (map->n_collectives == 0 || map->n_ranks == 0)
    return FALSE;
  if (px < map->x || py < map->y || px >= map->x + map->width || py >= map->y + map->height)
    return FALSE;
  c = floor ((px - map->x) / map->cell_width);
  k = floor ((py - map->y) / map->cell_height);
  *collective = MIN ((guint) c, map->n_collectives - 1);
  *rank = MIN ((guint) k, map->n_ranks - 1);
  return TRUE;
}

void
cp_job_heatmap_cell_center (const CpJobHeatmap *map,
                            guint               collective,
                            guint               rank,
                            double             *x,
                            double             *y)
{
  *x = map->x + (collective + 0.5) * map->cell_width;
  *y = map->y + (rank + 0.5) * map->cell_height;
}

/* Step bars ----------------------------------------------------------------------- */

gint64
cp_job_bars_rank_part (CpJob          *job,
                       guint           rank,
                       CpTimeCategory  category)
{
  CpTimeSummary s;

  cp_analysis_get_time_summary (cp_job_get_rank (job, rank)->analysis, category, &s);
  return s.mean;
}

gint64
cp_job_bars_rank_step (CpJob *job,
                       guint  rank)
{
  CpTimeSummary s;

  cp_analysis_get_step_summary (cp_job_get_rank (job, rank)->analysis, &s);
  return s.mean;
}

double
cp_job_bars_natural_height (CpJob  *job,
                            double  width)
{
  (void) job;
  (void) width;
  return 220.0 + 24.0 + 2 * LEGEND_H;
}

void
cp_job_bars_layout (CpJob        *job,
                    PangoLayout  *layout,
                    double        x,
                    double        y,
                    double        width,
                    double        plot_height,
                    CpJobBars    *out)
{
  guint n = cp_job_get_n_ranks (job);
  g_autofree char *tick = NULL;
  double slot, axis;
  gint64 max = 1;

  for (guint k = 0; k < n; k++)
    max = MAX (max, cp_job_bars_rank_step (job, k));
  out->scale_max = max;
  tick = cp_time_format_duration (max);
  axis = MAX (text_width (layout, tick), text_width (layout, _("rank"))) + GUTTER_PAD;
  out->x = x + axis;
  out->y = y;
  out->width = MAX (width - axis, 1.0);
  out->height = plot_height;
  slot = out->width / MAX (n, 1);
  out->bar_width = MIN (slot * 0.75, 64.0);
  out->bar_gap = slot - out->bar_width;
  out->total_height = plot_height + 24.0 + 2 * LEGEND_H;
}

void
cp_job_bars_draw (const CpJobBars *bars,
                  CpJob           *job,
                  cairo_t         *cr,
                  PangoLayout     *layout,
                  CpTheme          theme)
{
  const CpPaletteColors *pc = cp_palette_get_colors (theme);
  guint n = cp_job_get_n_ranks (job);
  double slot = bars->bar_width + bars->bar_gap;
  double th = text_height (layout);
  guint label_every = 1;
  gboolean used[CP_TIME_N_CATEGORIES] = { FALSE };
  g_autofree char *top = cp_time_format_duration (bars->scale_max);
  double lx, ly;

  cairo_save (cr);
  /* Axis: zero and the longest mean step. */
  set_rgba (cr, pc->grid);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, bars->x, bars->y + 0.5);
  cairo_line_to (cr, bars->x + bars->width, bars->y + 0.5);
  cairo_move_to (cr, bars->x, bars->y + bars->height + 0.5);
  cairo_line_to (cr, bars->x + bars->width, bars->y + bars->height + 0.5);
  cairo_stroke (cr);
  show_text (cr, layout, top, bars->x - GUTTER_PAD, bars->y, 1.0, pc->dim_text);
  show_text (cr, layout, "0", bars->x - GUTTER_PAD, bars->y + bars->height, 1.0, pc->dim_text);

  for (guint k = 0; k < n; k++)
    {
      double bx = bars->x + k * slot + bars->bar_gap / 2;
      double base = bars->y + bars->height;

      for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
        {
          gint64 v = cp_job_bars_rank_part (job, k, c);
          double h = bars->height * (double) v / (double) bars->scale_max;

          if (v <= 0)
            continue;
          used[c] = TRUE;
          set_rgba (cr, cp_palette_category_color (theme, c));
          cairo_rectangle (cr, bx, base - h, bars->bar_width, h);
          cairo_fill (cr);
          base -= h;
        }
    }
  {
    double widest = 0;

    for (guint k = 0; k < n; k++)
      {
        g_autofree char *label = g_strdup_printf ("%d", cp_job_get_rank (job, k)->rank);

        widest = MAX (widest, text_width (layout, label));
      }
    label_every = MAX (1, (guint) ceil ((widest + 6) / MAX (slot, 1)));
  }
  for (guint k = 0; k < n; k += label_every)
    {
      g_autofree char *label = g_strdup_printf ("%d", cp_job_get_rank (job, k)->rank);

      show_text (cr, layout, label, bars->x + (k + 0.5) * slot, bars->y + bars->height + 4 + th / 2, 0.5,
                 pc->text);
    }
  /* Translators: the horizontal axis of the per-rank step bars. */
  show_text (cr, layout, _("rank"), bars->x - GUTTER_PAD, bars->y + bars->height + 4 + th / 2, 1.0,
             pc->dim_text);

  /* Legend: the categories drawn. */
  lx = bars->x;
  ly = bars->y + bars->height + 24.0 + 8;
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      const char *label;
      double w;

      if (!used[c])
        continue;
      label = cp_time_category_get_label (c);
      w = 16 + text_width (layout, label) + 16;
      if (lx + w > bars->x + bars->width && lx > bars->x)
        {
          lx = bars->x;
          ly += th + 6;
        }
      set_rgba (cr, cp_palette_category_color (theme, c));
      cairo_rectangle (cr, lx, ly + th / 2 - 5, 10, 10);
      cairo_fill (cr);
      show_text (cr, layout, label, lx + 16, ly + th / 2, 0.0, pc->text);
      lx += w;
    }
  cairo_restore (cr);
}

gboolean
cp_job_bars_hit (const CpJobBars *bars,
                 CpJob           *job,
                 double           px,
                 double           py,
                 guint           *rank)
{
  guint n = cp_job_get_n_ranks (job);
  double slot = bars->bar_width + bars->bar_gap;
  double k;

  if (n == 0 || px < bars->x || px >= bars->x + n * slot || py < bars->y || py > bars->y + bars->height)
    return FALSE;
  k = floor ((px - bars->x) / slot);
  *rank = MIN ((guint) k, n - 1);
  return TRUE;
}
