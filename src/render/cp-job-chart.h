/* cp-job-chart.h: a job's ranks drawn with Cairo: the step breakdown of
 * every rank side by side, and the heat map of arrival delays
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the window's Ranks page and `chokepoint report` on a job, so
 * that both draw the same figures. Text goes through the caller's
 * PangoLayout (its font and options); nothing here includes GTK.
 */

#pragma once

#include <pango/pangocairo.h>

#include "analysis/cp-job.h"
#include "cp-painter.h"
#include "cp-palette.h"

G_BEGIN_DECLS

/* The delay of a rank's arrival at a collective: its arrival minus the
 * first rank's, ns (0 for the first to arrive). */
gint64   cp_job_chart_delay        (CpJob  *job,
                                    guint   collective,
                                    guint   rank);
/* The largest delay of the job, ns (0 when it has no collective). */
gint64   cp_job_chart_max_delay    (CpJob  *job);
/* The heat map's colour of a delay on a scale from 0 to max_delay
 * (sequential, the same in both styles). */
guint32  cp_job_chart_heat_color   (gint64  delay,
                                    gint64  max_delay);

/* Where a heat map was laid out: one column per collective (in the job's
 * order), one row per rank (in the job's order). */
typedef struct
{
  double  x, y;            /* the cells' area */
  double  width, height;
  double  cell_width;
  double  cell_height;
  guint   n_collectives;
  guint   n_ranks;
  gint64  max_delay;
  double  label_x;         /* rank labels: right-aligned before x */
  double  legend_y;        /* the legend's top */
  double  total_height;    /* cells, axis caption and legend */
} CpJobHeatmap;

/* The height a heat map of the job wants at width (rows of 6 to 20 px). */
double   cp_job_heatmap_natural_height (CpJob        *job,
                                        double        width);
void     cp_job_heatmap_layout     (CpJob        *job,
                                    PangoLayout  *layout,
                                    double        x,
                                    double        y,
                                    double        width,
                                    CpJobHeatmap *out);
void     cp_job_heatmap_draw       (const CpJobHeatmap *map,
                                    CpJob              *job,
                                    cairo_t            *cr,
                                    PangoLayout        *layout,
                                    CpTheme             theme,
                                    gint                selected_collective);
/* The cell under a point; FALSE outside the cells. */
gboolean cp_job_heatmap_hit        (const CpJobHeatmap *map,
                                    double              px,
                                    double              py,
                                    guint              *collective,
                                    guint              *rank);
void     cp_job_heatmap_cell_center (const CpJobHeatmap *map,
                                     guint               collective,
                                     guint               rank,
                                     double             *x,
                                     double             *y);

/* The mean step of each rank as a stacked bar (categories in the order
 * of CpTimeCategory, bottom up), bars side by side on one scale, with a
 * legend of the categories that occur. */
typedef struct
{
  double  x, y;            /* the plot area */
  double  width, height;
  double  bar_width;
  double  bar_gap;
  gint64  scale_max;       /* ns at the top of the plot */
  double  total_height;    /* plot, rank labels and legend */
} CpJobBars;

double   cp_job_bars_natural_height (CpJob       *job,
                                     double       width);
void     cp_job_bars_layout        (CpJob        *job,
                                    PangoLayout  *layout,
                                    double        x,
                                    double        y,
                                    double        width,
                                    double        plot_height,
                                    CpJobBars    *out);
void     cp_job_bars_draw          (const CpJobBars *bars,
                                    CpJob           *job,
                                    cairo_t         *cr,
                                    PangoLayout     *layout,
                                    CpTheme          theme);
/* The mean step time of a rank (ns) and the part of it in a category. */
gint64   cp_job_bars_rank_step     (CpJob          *job,
                                    guint           rank);
gint64   cp_job_bars_rank_part     (CpJob          *job,
                                    guint           rank,
                                    CpTimeCategory  category);
/* Which rank's bar is under a point; FALSE when none. */
gboolean cp_job_bars_hit           (const CpJobBars *bars,
                                    CpJob           *job,
                                    double           px,
                                    double           py,
                                    guint           *rank);

/* The job's timeline in job time (each rank's clock offset applied): one
 * summary row per rank with what its steps spent time on (the breakdown's
 * categories) and its collectives (the wait for the last rank pale, the
 * transfer solid); the selected collective outlined on every rank, its
 * arrivals joined by a line across the ranks and the last arrival marked.
 * A rank may show its own lanes, as its capture's timeline draws them, in
 * a band under its row. */
typedef struct
{
  double  x, y;            /* the rows' area */
  double  width, height;
  double  row_height;
  guint   n_ranks;
  gint64  start, end;      /* job ns across the width */
  gint64  full_start, full_end;  /* the whole job, where the layout starts */
  double  left;            /* where the layout starts */
  double  label_x;
  double  total_height;    /* ruler and rows */
  const double *bands;     /* per rank, the height of the band of lanes
                            * under its row (0: closed); NULL: no bands
                            * (nor the triangles that open them). The
                            * caller's array, read while the layout is used */
} CpJobTimeline;

/* Lays the rows out from (x, y), width wide. bands: as in CpJobTimeline;
 * where a band is open the rank labels' column is at least min_gutter
 * wide, so that the lanes' names fit. */
void     cp_job_timeline_layout    (CpJob         *job,
                                    PangoLayout   *layout,
                                    double         x,
                                    double         y,
                                    double         width,
                                    double         min_gutter,
                                    const double  *bands,
                                    CpJobTimeline *out);
/* The top of a rank's summary row. */
double   cp_job_timeline_row_y     (const CpJobTimeline *tl,
                                    guint                rank);
/* The rank whose row or band is at py, and whether py is in its band;
 * FALSE above or below the rows. */
gboolean cp_job_timeline_rank_at   (const CpJobTimeline *tl,
                                    double               py,
                                    guint               *rank,
                                    gboolean            *in_band);
/* The height a band needs to show every lane of a rank laid out with
 * layout, at most max_height. */
double   cp_job_timeline_band_natural_height (CpTimelineLayout *layout,
                                              double            max_height);
/* Draws the band of rank with painter, from view (the rank's trace; its
 * visible range and viewport width are set here to the part of the job's
 * range the rank covers, so that its time axis is the rows') and layout.
 * The lanes' names go left of the rows, in the labels' column. */
void     cp_job_timeline_draw_band (const CpJobTimeline *tl,
                                    CpJob               *job,
                                    guint                rank,
                                    CpPainter           *painter,
                                    CpViewState         *view,
                                    CpTimelineLayout    *layout,
                                    cairo_t             *cr);
/* What is at (px, py) in rank's band (as cp_timeline_layout_hit_test());
 * FALSE outside the band or where the rank's capture has no time. */
gboolean cp_job_timeline_band_hit  (const CpJobTimeline *tl,
                                    CpJob               *job,
                                    guint                rank,
                                    CpViewState         *view,
                                    CpTimelineLayout    *layout,
                                    double               px,
                                    double               py,
                                    CpHit               *hit);
/* Where a slice of rank is drawn in its band; FALSE when it is not. */
gboolean cp_job_timeline_band_slice_rect (const CpJobTimeline *tl,
                                          CpJob               *job,
                                          guint                rank,
                                          CpPainter           *painter,
                                          CpViewState         *view,
                                          CpTimelineLayout    *layout,
                                          CpSliceRef           ref,
                                          double              *x,
                                          double              *y,
                                          double              *w,
                                          double              *h);
void     cp_job_timeline_draw      (const CpJobTimeline *tl,
                                    CpJob               *job,
                                    cairo_t             *cr,
                                    PangoLayout         *layout,
                                    CpTheme              theme,
                                    gint                 selected_collective);
/* Shows [start, end) of the job across the width, kept inside the whole
 * job and at least 1 µs wide (cut to fit, the span kept where it can). */
void     cp_job_timeline_set_range (CpJobTimeline *tl,
                                    gint64         start,
                                    gint64         end);
/* The range the selected collective spans on every rank (first arrival
 * to last end), with a fifth of it on each side. */
void     cp_job_timeline_collective_range (CpJob  *job,
                                           guint   collective,
                                           gint64 *start,
                                           gint64 *end);
/* The x of a job time. */
double   cp_job_timeline_x         (const CpJobTimeline *tl,
                                    gint64               t);
/* The job time at an x (inverse of cp_job_timeline_x()). */
gint64   cp_job_timeline_time_at   (const CpJobTimeline *tl,
                                    double               x);
/* The collective drawn under a point of a rank's row; FALSE when none. */
gboolean cp_job_timeline_hit       (const CpJobTimeline *tl,
                                    CpJob               *job,
                                    double               px,
                                    double               py,
                                    guint               *collective,
                                    guint               *rank);

G_END_DECLS
