/* cp-timeline-layout.h: where each lane group and lane sits on the timeline
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-lod.h"
#include "cp-view-state.h"

G_BEGIN_DECLS

/* Sizes in pixels (user units of the cairo_t). */
typedef struct
{
  double ruler_height;
  double gutter_width;
  double header_height;     /* a lane group's header row */
  double row_height;        /* one row of slices */
  double lane_padding;      /* above and below the rows of a lane */
  double counter_height;    /* a counter lane (a memory track is two) */
  double min_lane_height;   /* a lane with few rows still shows its name */
} CpLayoutMetrics;

/* Metrics for a font of the given pixel size (the default font is 9 pt,
 * about 12 px). */
void cp_layout_metrics_init (CpLayoutMetrics *metrics,
                             double           font_px);

typedef enum
{
  CP_LAYOUT_GROUP,          /* a process or device header */
  CP_LAYOUT_LANE,
  CP_LAYOUT_MEMORY,         /* a device's memory over time (lane: its CpMemory track) */
} CpLayoutItemKind;

typedef struct
{
  guint8   kind;            /* CpLayoutItemKind */
  guint8   pinned;          /* in the pinned area at the top */
  guint8   collapsed;       /* groups: collapsed */
  guint8   is_device;       /* groups: a device (GPU/TPU) */
  guint    process;         /* process index */
  guint    lane;            /* lanes: lane index */
  guint    n_rows;          /* lanes: rows of slices */
  guint    n_hidden;        /* groups: hidden lanes in the group */
  guint    n_lanes;         /* groups: lanes in the group (shown or not) */
  double   y;               /* top, from the top of its area */
  double   height;
} CpLayoutItem;

typedef struct _CpTimelineLayout CpTimelineLayout;

/* Builds the layout of view's trace with view's preferences (devices first
 * or last, collapsed groups, hidden and pinned lanes). */
CpTimelineLayout   *cp_timeline_layout_new               (CpViewState           *view,
                                                          const CpLayoutMetrics *metrics);
CpTimelineLayout   *cp_timeline_layout_ref               (CpTimelineLayout *self);
void                cp_timeline_layout_unref             (CpTimelineLayout *self);

/* Whether the layout still matches view (same trace and preferences). */
gboolean            cp_timeline_layout_is_current        (CpTimelineLayout *self,
                                                          CpViewState      *view);

const CpLayoutMetrics *cp_timeline_layout_get_metrics    (CpTimelineLayout *self);

/* Items in display order: pinned lanes first, then groups with their lanes. */
guint               cp_timeline_layout_get_n_items       (CpTimelineLayout *self);
const CpLayoutItem *cp_timeline_layout_get_item          (CpTimelineLayout *self,
                                                          guint             index);
/* The item of a lane, or -1 when it is hidden or in a collapsed group. */
gint                cp_timeline_layout_find_lane         (CpTimelineLayout *self,
                                                          guint             lane);
gint                cp_timeline_layout_find_group        (CpTimelineLayout *self,
                                                          guint             process);

/* Height of the pinned area (below the ruler, never scrolled) and of the
 * scrolled content below it. */
double              cp_timeline_layout_get_pinned_height  (CpTimelineLayout *self);
double              cp_timeline_layout_get_content_height (CpTimelineLayout *self);
/* The largest vertical offset for a view of the given height. */
double              cp_timeline_layout_get_max_offset    (CpTimelineLayout *self,
                                                          double            height);

/* Where an item is on screen, for a view whose top is y = 0 and whose
 * vertical offset is `offset`. FALSE when it is scrolled out of a view of
 * the given height (y and height are still set). */
gboolean            cp_timeline_layout_item_rect         (CpTimelineLayout *self,
                                                          guint             index,
                                                          double            offset,
                                                          double            view_height,
                                                          double           *y,
                                                          double           *height);
/* The y of a row of a lane item, for the same view. */
double              cp_timeline_layout_row_y             (CpTimelineLayout *self,
                                                          guint             index,
                                                          guint             row,
                                                          double            offset);

/* The name of a process or device group: "GPU 0 · NVIDIA H100 80GB HBM3",
 * "python (pid 4242)"; and of a lane: its name, else "Thread 12",
 * "Stream 7"... */
char               *cp_timeline_group_label              (CpTrace          *trace,
                                                          guint             process);
char               *cp_timeline_lane_label               (CpTrace          *trace,
                                                          guint             lane);

/* The name shown for a group or lane (owned by the layout). */
const char         *cp_timeline_layout_get_label         (CpTimelineLayout *self,
                                                          guint             index);

typedef enum
{
  CP_HIT_NONE,
  CP_HIT_RULER,             /* the time ruler */
  CP_HIT_GROUP,             /* a group header (the gutter or the row) */
  CP_HIT_LANE_LABEL,        /* a lane's name in the gutter */
  CP_HIT_LANE,              /* a lane, no slice there */
  CP_HIT_SLICE,             /* a slice */
} CpHitKind;

typedef struct
{
  CpHitKind  kind;
  gint       item;          /* layout item, -1 for none */
  guint      process;
  guint      lane;
  gint       row;           /* -1 when not on a row */
  CpSliceRef slice;         /* CP_SLICE_REF_NONE unless kind is CP_HIT_SLICE */
  double     time;          /* ns under x (when x is in the time area) */
} CpHit;

/* What is at (x, y) in a view of width x height drawn with this layout
 * (x from the view's left edge, gutter included). Slices narrower than a few
 * pixels are picked within `tolerance` pixels; the slice under the point
 * wins over a nearby one. Overlapping slices are on separate rows, so the row
 * under y decides between them. */
CpHit               cp_timeline_layout_hit_test          (CpTimelineLayout *self,
                                                          CpViewState      *view,
                                                          double            x,
                                                          double            y,
                                                          double            view_height,
                                                          double            tolerance);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpTimelineLayout, cp_timeline_layout_unref)

G_END_DECLS
