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
#include "analysis/cp-intervals.h"
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

/* Timeline ------------------------------------------------------------------------ */

#define TL_RULER   22.0
#define TL_MAX_H  480.0   /* 64 ranks in rows of 7 px */
#define TL_TOGGLE  14.0   /* the triangle that opens a rank's band */

void
cp_job_timeline_layout (CpJob         *job,
                        PangoLayout   *layout,
                        double         x,
                        double         y,
                        double         width,
                        double         min_gutter,
                        const double  *bands,
                        CpJobTimeline *out)
{
  double gutter = 0, band_total = 0;

  out->n_ranks = cp_job_get_n_ranks (job);
  out->start = 0;
  out->end = 1;
  out->bands = bands;
  for (guint k = 0; k < out->n_ranks; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      g_autofree char *label = rank_label (job, k);

      out->end = MAX (out->end, cp_job_rank_to_job_offset (job, k) + cp_trace_get_duration (r->trace));
      gutter = MAX (gutter, text_width (layout, label) + (bands != NULL ? TL_TOGGLE : 0));
      if (bands != NULL && bands[k] > 0)
        band_total += bands[k];
    }
  if (band_total > 0)
    gutter = MAX (gutter, min_gutter - GUTTER_PAD);
  out->full_start = out->start;
  out->full_end = out->end;
  out->left = x;
  out->label_x = x + gutter;
  out->x = out->label_x + GUTTER_PAD;
  out->width = MAX (width - (out->x - x), 1.0);
  out->y = y + TL_RULER;
  out->row_height = out->n_ranks > 0 ? CLAMP (floor (TL_MAX_H / out->n_ranks), 7.0, 24.0) : 24.0;
  out->height = out->row_height * out->n_ranks + band_total;
  out->total_height = TL_RULER + out->height;
}

double
cp_job_timeline_row_y (const CpJobTimeline *tl,
                       guint                rank)
{
  double y = tl->y + rank * tl->row_height;

  for (guint k = 0; tl->bands != NULL && k < rank && k < tl->n_ranks; k++)
    y += tl->bands[k];
  return y;
}

gboolean
cp_job_timeline_rank_at (const CpJobTimeline *tl,
                         double               py,
                         guint               *rank,
                         gboolean            *in_band)
{
  double y = tl->y;

  if (py < tl->y)
    return FALSE;
  for (guint k = 0; k < tl->n_ranks; k++)
    {
      double band = tl->bands != NULL ? tl->bands[k] : 0;

      if (py < y + tl->row_height + band)
        {
          *rank = k;
          *in_band = py >= y + tl->row_height;
          return TRUE;
        }
      y += tl->row_height + band;
    }
  return FALSE;
}

double
cp_job_timeline_band_natural_height (CpTimelineLayout *layout,
                                     double            max_height)
{
  return MIN (cp_timeline_layout_get_pinned_height (layout) + cp_timeline_layout_get_content_height (layout),
              max_height);
}

/* Where rank's band is and which part of the rank's time it shows. */
typedef struct
{
  double  top, height;    /* the band */
  double  gutter;         /* the lanes' names, left of tl->x */
  double  ruler;          /* the painter's ruler, above its lanes */
  double  x0, x1;         /* the rank's time in the band */
  gboolean has_time;
} Band;

static gboolean
band_prepare (const CpJobTimeline *tl,
              CpJob               *job,
              guint                rank,
              CpViewState         *view,
              CpTimelineLayout    *layout,
              Band                *b)
{
  const CpLayoutMetrics *m = cp_timeline_layout_get_metrics (layout);
  CpTrace *trace = cp_job_get_rank (job, rank)->trace;
  gint64 off = cp_job_rank_to_job_offset (job, rank);
  gint64 a, e;

  if (tl->bands == NULL || rank >= tl->n_ranks || tl->bands[rank] <= 0)
    return FALSE;
  b->top = cp_job_timeline_row_y (tl, rank) + tl->row_height;
  b->height = tl->bands[rank];
  b->gutter = m->gutter_width;
  b->ruler = m->ruler_height;
  /* The view shows only the rank's own time, [0, duration]: the part of
   * the job's range it covers goes where the rows have it. */
  a = MAX (tl->start - off, 0);
  e = MIN (tl->end - off, cp_trace_get_duration (trace));
  b->has_time = e > a;
  b->x0 = b->x1 = tl->x;
  if (b->has_time)
    {
      b->x0 = cp_job_timeline_x (tl, a + off);
      b->x1 = MAX (cp_job_timeline_x (tl, e + off), b->x0 + 1);
      /* At least 1 ns a pixel, as the view keeps it. */
      cp_view_state_set_viewport_width (view, MAX (1.0, MIN (b->x1 - b->x0, (double) (e - a))));
      cp_view_state_set_visible_range (view, a, e);
    }
  return TRUE;
}

void
cp_job_timeline_draw_band (const CpJobTimeline *tl,
                           CpJob               *job,
                           guint                rank,
                           CpPainter           *painter,
                           CpViewState         *view,
                           CpTimelineLayout    *layout,
                           cairo_t             *cr)
{
  Band b;

  if (!band_prepare (tl, job, rank, view, layout, &b))
    return;
  cairo_save (cr);
  cairo_rectangle (cr, tl->x - b.gutter, b.top, b.gutter + tl->width, b.height);
  cairo_clip (cr);
  if (b.has_time)
    {
      cairo_save (cr);
      cairo_rectangle (cr, b.x0, b.top, b.x1 - b.x0, b.height);
      cairo_clip (cr);
      cairo_translate (cr, b.x0 - b.gutter, b.top - b.ruler);
      cp_painter_draw (painter, cr, view, layout, b.gutter + (b.x1 - b.x0), b.ruler + b.height, CP_PAINT_LANES);
      cairo_restore (cr);
    }
  cairo_translate (cr, tl->x - b.gutter, b.top - b.ruler);
  cairo_rectangle (cr, 0, b.ruler, b.gutter, b.height);
  cairo_clip (cr);
  cp_painter_draw (painter, cr, view, layout, b.gutter + MAX (b.x1 - b.x0, 1.0), b.ruler + b.height, CP_PAINT_GUTTER);
  cairo_restore (cr);
}

gboolean
cp_job_timeline_band_hit (const CpJobTimeline *tl,
                          CpJob               *job,
                          guint                rank,
                          CpViewState         *view,
                          CpTimelineLayout    *layout,
                          double               px,
                          double               py,
                          CpHit               *hit)
{
  Band b;
  double hx;

  if (!band_prepare (tl, job, rank, view, layout, &b) || py < b.top || py >= b.top + b.height ||
      px < tl->x - b.gutter || px >= tl->x + tl->width)
    return FALSE;
  if (px < tl->x)
    hx = px - (tl->x - b.gutter);
  else if (b.has_time && px >= b.x0 && px < b.x1)
    hx = b.gutter + (px - b.x0);
  else
    return FALSE;
  *hit = cp_timeline_layout_hit_test (layout, view, hx, py - b.top + b.ruler, b.ruler + b.height, 3.0);
  return hit->kind != CP_HIT_NONE;
}

gboolean
cp_job_timeline_band_slice_rect (const CpJobTimeline *tl,
                                 CpJob               *job,
                                 guint                rank,
                                 CpPainter           *painter,
                                 CpViewState         *view,
                                 CpTimelineLayout    *layout,
                                 CpSliceRef           ref,
                                 double              *x,
                                 double              *y,
                                 double              *w,
                                 double              *h)
{
  Band b;

  if (!band_prepare (tl, job, rank, view, layout, &b) || !b.has_time ||
      !cp_painter_slice_rect (painter, view, layout, b.gutter + (b.x1 - b.x0), b.ruler + b.height, ref, x, y, w, h))
    return FALSE;
  *x += b.x0 - b.gutter;
  *y += b.top - b.ruler;
  return *y + *h > b.top && *y < b.top + b.height;
}

#define TL_MIN_SPAN (1000)   /* 1 µs */

void
cp_job_timeline_set_range (CpJobTimeline *tl,
                           gint64         start,
                           gint64         end)
{
  gint64 full = tl->full_end - tl->full_start;
  gint64 span = CLAMP (end - start, MIN (TL_MIN_SPAN, full), full);

  start = CLAMP (start, tl->full_start, tl->full_end - span);
  tl->start = start;
  tl->end = start + span;
}

void
cp_job_timeline_collective_range (CpJob  *job,
                                  guint   collective,
                                  gint64 *start,
                                  gint64 *end)
{
  const CpJobCollective *jc = cp_job_get_collective (job, collective);
  gint64 lo = G_MAXINT64, hi = G_MININT64, pad;

  for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
    {
      lo = MIN (lo, jc->arrival[k]);
      hi = MAX (hi, jc->end[k]);
    }
  if (lo > hi)
    lo = hi = 0;
  pad = MAX ((hi - lo) / 5, TL_MIN_SPAN);
  *start = lo - pad;
  *end = hi + pad;
}

double
cp_job_timeline_x (const CpJobTimeline *tl,
                   gint64               t)
{
  return tl->x + tl->width * (double) (t - tl->start) / (double) MAX (tl->end - tl->start, 1);
}

gint64
cp_job_timeline_time_at (const CpJobTimeline *tl,
                         double               x)
{
  return tl->start + (gint64) ((x - tl->x) / MAX (tl->width, 1.0) * (double) (tl->end - tl->start));
}

/* Fills [t0, t1) of a row, at least a pixel wide; nothing outside the
 * range shown. */
static void
fill_span (cairo_t             *cr,
           const CpJobTimeline *tl,
           gint64               t0,
           gint64               t1,
           double               y,
           double               h)
{
  double x0, x1;

  if (t1 < tl->start || t0 > tl->end)
    return;
  x0 = cp_job_timeline_x (tl, MAX (t0, tl->start));
  x1 = cp_job_timeline_x (tl, MIN (t1, tl->end));
  cairo_rectangle (cr, x0, y, MAX (x1 - x0, 1.0), h);
}

/* A nice tick step: 1, 2 or 5 times a power of ten, about every 120 px. */
static gint64
tick_step (gint64 span,
           double width)
{
  double raw = span / MAX (width / 120.0, 1.0);
  double p = pow (10, floor (log10 (MAX (raw, 1.0))));
  double m = raw / p;

  return (gint64) MAX (1.0, (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p);
}

void
cp_job_timeline_draw (const CpJobTimeline *tl,
                      CpJob               *job,
                      cairo_t             *cr,
                      PangoLayout         *layout,
                      CpTheme              theme,
                      gint                 selected)
{
  const CpPaletteColors *pc = cp_palette_get_colors (theme);
  double th = text_height (layout);
  guint label_every = MAX (1, (guint) ceil ((th + 2) / tl->row_height));
  guint32 comm = cp_palette_category_color (theme, CP_TIME_COLLECTIVES);
  gint64 step = tick_step (tl->end - tl->start, tl->width);

  cairo_save (cr);
  set_rgba (cr, pc->background);
  cairo_rectangle (cr, tl->x, tl->y, tl->width, tl->height);
  cairo_fill (cr);

  /* Ruler, from the first tick in the range. */
  cairo_set_line_width (cr, 1);
  for (gint64 t = tl->start + (step - tl->start % step) % step; t <= tl->end; t += step)
    {
      double x = floor (cp_job_timeline_x (tl, t)) + 0.5;
      g_autofree char *label = cp_time_format_duration (t);

      set_rgba (cr, pc->grid);
      cairo_move_to (cr, x, tl->y - 4);
      cairo_line_to (cr, x, tl->y + tl->height);
      cairo_stroke (cr);
      if (x + text_width (layout, label) + 2 < tl->x + tl->width)
        show_text (cr, layout, label, x + 2, tl->y - TL_RULER / 2, 0.0, pc->dim_text);
    }

  for (guint k = 0; k < tl->n_ranks; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      gint64 off = cp_job_rank_to_job_offset (job, k);
      double y = cp_job_timeline_row_y (tl, k), h = MAX (tl->row_height - 2, 1);
      gboolean open = tl->bands != NULL && tl->bands[k] > 0;

      /* What the rank's steps spent time on, in the bars' colours. */
      for (guint c = 0; c < CP_TIME_IDLE; c++)
        {
          const CpIntervals *set;

          if (c == CP_TIME_COLLECTIVES)
            continue;
          set = cp_analysis_get_category_set (r->analysis, c);
          if (set == NULL || set->n == 0)
            continue;
          set_rgba (cr, cp_palette_category_color (theme, c));
          for (gsize i = 0; i < set->n; i++)
            fill_span (cr, tl, set->v[i].start + off, set->v[i].end + off, y + h * 0.25, h * 0.5);
          cairo_fill (cr);
        }
      /* Collectives: the wait pale, the transfer solid. */
      for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
        {
          const CpJobCollective *jc = cp_job_get_collective (job, c);
          gint64 wait_end = MIN (MAX (jc->last_arrival, jc->arrival[k]), jc->end[k]);

          cairo_set_source_rgba (cr, cp_rgba_r (comm), cp_rgba_g (comm), cp_rgba_b (comm), 0.35);
          fill_span (cr, tl, jc->arrival[k], wait_end, y, h);
          cairo_fill (cr);
          set_rgba (cr, comm);
          fill_span (cr, tl, wait_end, jc->end[k], y, h);
          cairo_fill (cr);
        }
      if (k % label_every == 0 || open)
        {
          g_autofree char *label = rank_label (job, k);

          show_text (cr, layout, label, tl->label_x, y + tl->row_height / 2, 1.0, pc->text);
        }
      if (open)
        {
          /* The band's lower edge. */
          set_rgba (cr, pc->grid);
          cairo_rectangle (cr, tl->left, floor (y + tl->row_height + tl->bands[k]) - 1, tl->x + tl->width - tl->left, 1);
          cairo_fill (cr);
        }
      /* The triangle that opens the band (pointing down when open), where
       * a row is tall enough to show it. */
      if (tl->bands != NULL && (tl->row_height >= 10 || open || k % label_every == 0))
        {
          double s = MIN (tl->row_height - 2, 8.0), cx = tl->left + 2 + s / 2, cy = y + tl->row_height / 2;

          set_rgba (cr, pc->dim_text);
          if (open)
            {
              cairo_move_to (cr, cx - s / 2, cy - s / 4);
              cairo_line_to (cr, cx + s / 2, cy - s / 4);
              cairo_line_to (cr, cx, cy + s / 4);
            }
          else
            {
              cairo_move_to (cr, cx - s / 4, cy - s / 2);
              cairo_line_to (cr, cx + s / 4, cy);
              cairo_line_to (cr, cx - s / 4, cy + s / 2);
            }
          cairo_close_path (cr);
          cairo_fill (cr);
        }
    }

  if (selected >= 0 && (guint) selected < cp_job_get_n_collectives (job))
    {
      const CpJobCollective *jc = cp_job_get_collective (job, selected);
      double lx = cp_job_timeline_x (tl, jc->last_arrival);

      /* Zoomed in, the outline stays within the rows. */
      cairo_rectangle (cr, tl->x, tl->y - 4, tl->width, tl->height + 4);
      cairo_clip (cr);
      set_rgba (cr, pc->accent);
      cairo_set_line_width (cr, 2);
      for (guint k = 0; k < tl->n_ranks; k++)
        {
          double y = cp_job_timeline_row_y (tl, k), h = MAX (tl->row_height - 2, 1);
          double x0 = cp_job_timeline_x (tl, jc->arrival[k]), x1 = cp_job_timeline_x (tl, jc->end[k]);

          cairo_rectangle (cr, x0 - 1, y - 1, MAX (x1 - x0, 1) + 2, h + 2);
        }
      cairo_stroke (cr);
      /* The arrivals joined across the ranks... */
      for (guint k = 0; k < tl->n_ranks; k++)
        {
          double x = cp_job_timeline_x (tl, jc->arrival[k]), y = cp_job_timeline_row_y (tl, k) + 0.5 * tl->row_height;

          if (k == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      cairo_stroke (cr);
      /* ...and the last arrival, when the transfer could start. */
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, floor (lx) + 0.5, tl->y - 4);
      cairo_line_to (cr, floor (lx) + 0.5, tl->y + tl->height);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

gboolean
cp_job_timeline_hit (const CpJobTimeline *tl,
                     CpJob               *job,
                     double               px,
                     double               py,
                     guint               *collective,
                     guint               *rank)
{
  guint k;
  gboolean in_band;

  if (tl->n_ranks == 0 || px < tl->x || px >= tl->x + tl->width ||
      !cp_job_timeline_rank_at (tl, py, &k, &in_band) || in_band)
    return FALSE;
  /* The collective under the point, else the nearest within 3 px. */
  {
    double best = 3.0;
    gint found = -1;

    for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
      {
        const CpJobCollective *jc = cp_job_get_collective (job, c);
        double x0 = cp_job_timeline_x (tl, jc->arrival[k]), x1 = MAX (cp_job_timeline_x (tl, jc->end[k]), x0 + 1);
        double d = px < x0 ? x0 - px : px > x1 ? px - x1 : 0.0;

        if (d < best || (d == 0.0 && found < 0))
          {
            best = d;
            found = c;
          }
      }
    if (found < 0)
      return FALSE;
    *collective = found;
    *rank = k;
    return TRUE;
  }
}
