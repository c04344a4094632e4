/* cp-painter-private.h: what the painter and its layers share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <math.h>
#include <pango/pangocairo.h>

#include "cp-lod.h"
#include "cp-painter.h"
#include "cp-time-format.h"

G_BEGIN_DECLS

/* Coverage is drawn as opacity from MIN_DENSITY (any slice at all: a lone
 * sliver is never lost) to 1 (the column is covered). */
#define MIN_DENSITY      0.45
/* Flows drawn at most per frame when all flows in view are shown. */
#define MAX_FLOWS        3000

typedef struct
{
  float x, y, w, h;
} Rect;

typedef struct
{
  guint32  rgba;
  GArray  *rects;
} Batch;

typedef struct
{
  float       x, y, w, h;
  const char *text;
  guint32     rgba;
} TextJob;

typedef struct
{
  gint     start;   /* first column written */
  gint     end;     /* one past the last */
  double   y, h;
  guint32  rgb;
  guint32 *strip;   /* its pixels, zeroed outside [start, end) */
  guint    columns; /* columns written */
} DenseRun;

typedef struct
{
  guint32 rgba;
  Rect    r;
} ColorRect;

/* The most threads that walk a frame's rows. */
#define CP_PAINTER_MAX_THREADS 8

/* One row (or counter lane) of a frame: where it is, and what its walk
 * found, for the drawing thread. */
typedef struct
{
  guint     item;        /* in the layout */
  guint     lane_index;
  CpLane   *lane;
  guint     row;
  gboolean  counter;
  double    y, h;

  GArray   *rects;       /* of ColorRect, in the order drawn */
  GArray   *hatch;       /* of Rect */
  GArray   *texts;       /* of TextJob */
  guint     slices;
  DenseRun  run;         /* the coverage strip */
  guint32  *strip;
  float    *tops;        /* a counter's bar tops per column; under 0: none */
  guint     n_cols;      /* of strip and tops */
  double    bottom;
  gboolean  chart;       /* tops were found */
} RowJob;

struct _CpPainter
{
  CpTheme                 theme;
  const CpPaletteColors  *colors;
  PangoFontDescription   *font;
  PangoFontDescription   *bold_font;
  double                  font_px;
  CpLayoutMetrics         metrics;

  PangoContext           *context;
  PangoLayout            *layout;
  GThread                *context_thread;
  double                  text_height;

  GArray                 *batches;        /* of Batch */
  GHashTable             *batch_index;    /* rgba -> index + 1 */
  GArray                 *texts;          /* of TextJob */
  GArray                 *hatch;          /* of Rect */
  cairo_pattern_t        *hatch_pattern;
  CpTheme                 hatch_theme;

  GWeakRef                color_trace;
  guint8                 *name_color;     /* per CpStr: palette index + 1 */
  guint                   n_name_color;

  float                  *column_max;     /* scratch for group summaries */
  guint                   n_column_max;
  guint32                *strip;          /* one row of coverage pixels */
  guint                   n_strip;
  cairo_surface_t        *strip_surface;  /* scratch for image targets */
  GPtrArray              *jobs;           /* of RowJob, kept between frames */
  guint                   n_jobs;         /* used by this frame */
  guint                   job_cursor;     /* the next one to draw */
  guint                   threads;        /* 0: one per processor */
  gboolean                helpers_only;   /* tests: no job on the drawing thread */
  cairo_surface_t        *counter_surface; /* scratch for image targets */
  cairo_surface_t        *pixel_surface;  /* one pixel, to ask cairo a colour's */

  CpPaintStats            stats;

  /* Set for one draw. */
  cairo_t                *cr;
  CpViewState            *view;
  CpTrace                *trace;
  CpLod                  *lod;
  CpTimelineLayout       *tl;
  const CpLayoutMetrics  *m;              /* the layout's */
  double                  width;
  double                  height;
  double                  gx;             /* left of the time area */
  double                  area_w;
  gint64                  t0;
  gint64                  t1;
  double                  px_per_ns;
  double                  ns_per_px;
  gint                    ncols;
  double                  offset;
  double                  lanes_top;      /* below the ruler */
  double                  scroll_top;     /* below the pinned lanes */
};

typedef void (*ItemFunc) (CpPainter          *self,
                          guint               index,
                          const CpLayoutItem *item,
                          double              y);

/* cp-painter.c */
/* Tests: with more than one thread, every row walked on a helper. */
void cp_painter_set_helpers_only (CpPainter *self,
                                  gboolean   helpers_only);
double cp_painter_text (CpPainter                  *self,
                        const char                 *text,
                        const PangoFontDescription *font,
                        double                      x,
                        double                      y,
                        double                      max_w,
                        double                      h,
                        guint32                     rgba);
double cp_painter_text_width (CpPainter  *self,
                              const char *text);

/* cp-painter-lanes.c */
void cp_painter_for_each_visible (CpPainter *self,
                                  gboolean   pinned,
                                  ItemFunc   func);
void cp_painter_item_background (CpPainter          *self,
                                 guint               index,
                                 const CpLayoutItem *item,
                                 double              y);
void cp_painter_content (CpPainter *self,
                         gboolean   pinned);
void cp_painter_job_free (gpointer data);
void cp_painter_grid (CpPainter *self,
                      gint64     step);

/* cp-painter-overlays.c */
gboolean cp_painter_find_slice_rect (CpPainter  *self,
                                     CpSliceRef  ref,
                                     double     *x,
                                     double     *y,
                                     double     *w,
                                     double     *h,
                                     gboolean   *pinned);
void cp_painter_outline_rect (CpPainter *self,
                              double     x,
                              double     y,
                              double     w,
                              double     h,
                              double     line,
                              guint32    rgba);
void cp_painter_selection (CpPainter *self,
                           gboolean   pinned_area);
void cp_painter_highlights (CpPainter *self,
                            gboolean   pinned_area);
void cp_painter_search (CpPainter *self,
                        gboolean   pinned_area);
void cp_painter_marks (CpPainter *self,
                       gboolean   pinned_area);
void cp_painter_time_selection (CpPainter *self,
                                gboolean   pinned_area);

/* cp-painter-flows.c */
void cp_painter_flows (CpPainter *self);

/* cp-painter-ruler.c */
void cp_painter_gutter (CpPainter *self);
gint64 cp_painter_pick_ruler_step (CpPainter *self);
void cp_painter_ruler (CpPainter *self,
                       gint64     step);

static inline void
set_rgba (cairo_t *cr,
          guint32  c)
{
  cairo_set_source_rgba (cr, cp_rgba_r (c), cp_rgba_g (c), cp_rgba_b (c), cp_rgba_a (c));
}

static inline double
time_x (CpPainter *self,
        gint64     t)
{
  return self->gx + (double) (t - self->t0) * self->px_per_ns;
}

static inline gint64
col_time (CpPainter *self,
          gint       c)
{
  return self->t0 + (gint64) floor ((double) c * self->ns_per_px);
}

/* The first tick of step at or before the view's start, counted from the
 * view state's ruler origin. */
static inline gint64
first_tick (CpPainter *self,
            gint64     step)
{
  gint64 origin = cp_view_state_get_ruler_origin (self->view);
  gint64 d = self->t0 - origin;
  gint64 k = d >= 0 ? d / step : -((-d + step - 1) / step);

  return origin + k * step;
}

G_END_DECLS
