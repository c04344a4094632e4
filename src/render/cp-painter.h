/* cp-painter.h: draws a region of a trace into any cairo_t
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "cp-palette.h"
#include "cp-timeline-layout.h"
#include "cp-view-state.h"

G_BEGIN_DECLS

/* What to draw. The geometry (gutter on the left, ruler on top) is the same
 * whatever is drawn, so layers drawn separately line up. */
typedef enum
{
  CP_PAINT_RULER  = 1 << 0,  /* the time ruler */
  CP_PAINT_GUTTER = 1 << 1,  /* lane and group names */
  CP_PAINT_LANES  = 1 << 2,  /* slices, density, counters, flows, selection, highlights, marks */
  CP_PAINT_HOVER  = 1 << 3,  /* the hovered slice (a separate layer for the widget's cache) */
} CpPaintFlags;

#define CP_PAINT_BASE (CP_PAINT_RULER | CP_PAINT_GUTTER | CP_PAINT_LANES)
#define CP_PAINT_ALL  (CP_PAINT_BASE | CP_PAINT_HOVER)

/* What the last draw did, for tests and benchmarks. */
typedef struct
{
  guint slices;    /* slices drawn one by one (a pixel wide or more) */
  guint columns;   /* pixel columns drawn as coverage */
  guint rects;     /* rectangles filled after merging */
  guint labels;    /* text labels inside slices */
  guint flows;     /* flow arrows */
} CpPaintStats;

/* A painter holds its fonts, text layout and scratch buffers: use one per
 * thread. It keeps no other state between draws and no global state, so a
 * worker thread can draw a frozen copy of a view (cp_view_state_copy())
 * while the window draws the original. */
typedef struct _CpPainter CpPainter;

CpPainter              *cp_painter_new          (void);
void                    cp_painter_free         (CpPainter *self);

void                    cp_painter_set_theme    (CpPainter *self,
                                                 CpTheme    theme);
CpTheme                 cp_painter_get_theme    (CpPainter *self);
/* The font of every label (NULL: "Sans 9"). Sizes follow from it. */
void                    cp_painter_set_font     (CpPainter                  *self,
                                                 const PangoFontDescription *font);
const CpLayoutMetrics  *cp_painter_get_metrics  (CpPainter *self);
/* How many threads walk a frame's rows (0, the default: one per processor,
 * at most 8). The pixels are the same however many. */
void                    cp_painter_set_threads  (CpPainter *self,
                                                 guint      threads);

/* Draws view (its trace, visible range, vertical offset, selection,
 * highlights...) into cr, from (0, 0) to (width, height) in user units.
 * layout may be NULL: the painter then lays the lanes out itself. The time
 * axis spans the width minus the gutter, whatever the view's viewport width. */
void                    cp_painter_draw         (CpPainter        *self,
                                                 cairo_t          *cr,
                                                 CpViewState      *view,
                                                 CpTimelineLayout *layout,
                                                 double            width,
                                                 double            height,
                                                 CpPaintFlags      flags);

const CpPaintStats     *cp_painter_get_stats    (CpPainter *self);

/* Pango keeps one font map per thread. A worker thread that drew with a
 * painter calls this (after freeing its painters) before it ends, so the
 * font map does not outlive it. */
void                    cp_painter_release_thread_fonts (void);

/* Where a slice is drawn in a view of width x height; FALSE when its lane is
 * not shown (hidden, collapsed) or the slice is out of view. */
gboolean                cp_painter_slice_rect   (CpPainter        *self,
                                                 CpViewState      *view,
                                                 CpTimelineLayout *layout,
                                                 double            width,
                                                 double            height,
                                                 CpSliceRef        ref,
                                                 double           *x,
                                                 double           *y,
                                                 double           *w,
                                                 double           *h);

G_END_DECLS
