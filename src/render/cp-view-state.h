/* cp-view-state.h: what the timeline shows, shared by the timeline, the ruler and the panes
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* What a highlight marks. Findings draw as a tinted band with an outline,
 * search hits as an outline, annotations as a band in the note's colour. */
typedef enum
{
  CP_HIGHLIGHT_FINDING,
  CP_HIGHLIGHT_SEARCH,
  CP_HIGHLIGHT_ANNOTATION,
  CP_HIGHLIGHT_N_KINDS
} CpHighlightKind;

/* Every lane: a highlight or mark that spans the whole height of the view. */
#define CP_LANE_ALL G_MAXUINT32

typedef struct
{
  guint32 lane;            /* lane index, or CP_LANE_ALL */
  gint64  start;           /* ns from the trace origin */
  gint64  end;             /* ns, >= start */
  guint8  kind;            /* CpHighlightKind */
} CpHighlight;

/* A user annotation to draw: a moment (start == end) or a range, on one lane
 * or across all of them, optionally attached to a slice (then it follows the
 * slice's lane). Labels are copied. */
typedef struct
{
  guint32     id;          /* the owner's id, given back by hit testing */
  guint32     lane;        /* lane index, or CP_LANE_ALL */
  CpSliceRef  slice;       /* CP_SLICE_REF_NONE when not attached */
  gint64      start;
  gint64      end;
  guint32     rgba;        /* 0xRRGGBBAA; 0 picks the default note colour */
  const char *label;
} CpMark;

/* What changed, passed to the "changed" signal. */
typedef enum
{
  CP_VIEW_CHANGE_TRACE          = 1 << 0,
  CP_VIEW_CHANGE_RANGE          = 1 << 1,  /* visible time range or viewport width */
  CP_VIEW_CHANGE_VERTICAL       = 1 << 2,  /* vertical offset */
  CP_VIEW_CHANGE_SELECTION      = 1 << 3,  /* selected slice */
  CP_VIEW_CHANGE_HOVER          = 1 << 4,  /* hovered slice */
  CP_VIEW_CHANGE_TIME_SELECTION = 1 << 5,  /* selected time range */
  CP_VIEW_CHANGE_HIGHLIGHTS     = 1 << 6,
  CP_VIEW_CHANGE_SEARCH         = 1 << 7,
  CP_VIEW_CHANGE_FLOWS          = 1 << 8,  /* show-all-flows */
  CP_VIEW_CHANGE_LAYOUT         = 1 << 9,  /* lane order, collapsed, hidden, pinned */
  CP_VIEW_CHANGE_MARKS          = 1 << 10,
} CpViewChange;

#define CP_TYPE_VIEW_STATE (cp_view_state_get_type ())

G_DECLARE_FINAL_TYPE (CpViewState, cp_view_state, CP, VIEW_STATE, GObject)

CpViewState      *cp_view_state_new                 (void);
/* A frozen copy of every value (same trace): what a worker thread draws
 * from while the original keeps changing on the main thread. */
CpViewState      *cp_view_state_copy                (CpViewState *self);

/* Setting a trace fits the whole trace and clears selection, hover, time
 * selection, highlights, search, marks, collapsed, hidden and pinned lanes. */
CpTrace          *cp_view_state_get_trace           (CpViewState *self);
void              cp_view_state_set_trace           (CpViewState *self,
                                                     CpTrace     *trace);

/* The visible time range [start, end) in ns. It is kept within the trace
 * (the whole trace at most) and at no less than 1 ns per pixel of the
 * viewport width. */
gint64            cp_view_state_get_visible_start   (CpViewState *self);
gint64            cp_view_state_get_visible_end     (CpViewState *self);
void              cp_view_state_set_visible_range   (CpViewState *self,
                                                     gint64       start,
                                                     gint64       end);
/* Width in pixels of the time area (the view without its lane name gutter);
 * the zoom limit depends on it. Defaults to 1000. */
double            cp_view_state_get_viewport_width  (CpViewState *self);
void              cp_view_state_set_viewport_width  (CpViewState *self,
                                                     double       width);
/* The narrowest range the viewport may show: 1 ns per pixel. */
gint64            cp_view_state_get_min_span        (CpViewState *self);
/* The widest range: the whole trace. */
gint64            cp_view_state_get_max_span        (CpViewState *self);

/* x in pixels from the left of the time area <-> ns. */
double            cp_view_state_time_to_x           (CpViewState *self,
                                                     gint64       t);
double            cp_view_state_x_to_time           (CpViewState *self,
                                                     double       x);

/* Scales the visible span by factor (< 1 zooms in) keeping the time at
 * anchor where it is on screen (unless a limit moves it). */
void              cp_view_state_zoom                (CpViewState *self,
                                                     double       factor,
                                                     gint64       anchor);
/* The same, anchored at x pixels from the left of the time area. */
void              cp_view_state_zoom_at_x           (CpViewState *self,
                                                     double       factor,
                                                     double       x);
/* Moves the visible range by dt ns, or by dx pixels. */
void              cp_view_state_pan                 (CpViewState *self,
                                                     gint64       dt);
void              cp_view_state_pan_pixels          (CpViewState *self,
                                                     double       dx);
void              cp_view_state_fit_all             (CpViewState *self);
/* Shows [start, end) with a small margin on each side. */
void              cp_view_state_fit_range           (CpViewState *self,
                                                     gint64       start,
                                                     gint64       end);
/* Fits the selected slice, else the selected time range; FALSE if neither. */
gboolean          cp_view_state_fit_selection       (CpViewState *self);
/* Pans (never zooms out) so that [start, end) is in view when it fits, or
 * its start otherwise. */
void              cp_view_state_reveal_range        (CpViewState *self,
                                                     gint64       start,
                                                     gint64       end);

/* Vertical scroll of the lanes, in pixels from the top (>= 0; the widget
 * clamps to its content height). */
double            cp_view_state_get_vertical_offset (CpViewState *self);
void              cp_view_state_set_vertical_offset (CpViewState *self,
                                                     double       offset);

/* Selected and hovered slices (CP_SLICE_REF_NONE when none). */
CpSliceRef        cp_view_state_get_selected        (CpViewState *self);
gboolean          cp_view_state_has_selected        (CpViewState *self);
void              cp_view_state_set_selected        (CpViewState *self,
                                                     CpSliceRef   ref);
CpSliceRef        cp_view_state_get_hovered         (CpViewState *self);
void              cp_view_state_set_hovered         (CpViewState *self,
                                                     CpSliceRef   ref);
/* Selects a slice and brings it into view (pans, zooms in when it is far
 * narrower than a few pixels, zooms out when it does not fit). */
void              cp_view_state_select_and_reveal   (CpViewState *self,
                                                     CpSliceRef   ref);

/* The selected time range (ruler drag). */
gboolean          cp_view_state_get_time_selection  (CpViewState *self,
                                                     gint64      *start,
                                                     gint64      *end);
void              cp_view_state_set_time_selection  (CpViewState *self,
                                                     gint64       start,
                                                     gint64       end);
void              cp_view_state_clear_time_selection (CpViewState *self);

/* Highlights, replaced one kind at a time (a copy is kept). */
void              cp_view_state_set_highlights      (CpViewState       *self,
                                                     CpHighlightKind    kind,
                                                     const CpHighlight *highlights,
                                                     guint              n);
const CpHighlight *cp_view_state_get_highlights     (CpViewState *self,
                                                     guint       *n);

/* Search matches, kept sorted by (lane, index) (a copy is kept). */
void              cp_view_state_set_search_matches  (CpViewState      *self,
                                                     const CpSliceRef *matches,
                                                     guint             n);
const CpSliceRef *cp_view_state_get_search_matches  (CpViewState *self,
                                                     guint       *n);
gboolean          cp_view_state_is_search_match     (CpViewState *self,
                                                     CpSliceRef   ref);

gboolean          cp_view_state_get_show_all_flows  (CpViewState *self);
void              cp_view_state_set_show_all_flows  (CpViewState *self,
                                                     gboolean     show);

/* Lane layout preferences. */
/* The time the ruler and the grid count from (ns from the trace origin;
 * 0 by default): a comparison puts each side's typical step start here so
 * that both rulers read time from the step. Emits CP_VIEW_CHANGE_RANGE. */
gint64            cp_view_state_get_ruler_origin    (CpViewState *self);
void              cp_view_state_set_ruler_origin    (CpViewState *self,
                                                     gint64       origin);

gboolean          cp_view_state_get_devices_first   (CpViewState *self);
void              cp_view_state_set_devices_first   (CpViewState *self,
                                                     gboolean     devices_first);
gboolean          cp_view_state_get_group_collapsed (CpViewState *self,
                                                     guint        process);
void              cp_view_state_set_group_collapsed (CpViewState *self,
                                                     guint        process,
                                                     gboolean     collapsed);
gboolean          cp_view_state_get_lane_hidden     (CpViewState *self,
                                                     guint        lane);
void              cp_view_state_set_lane_hidden     (CpViewState *self,
                                                     guint        lane,
                                                     gboolean     hidden);
guint             cp_view_state_get_n_hidden_lanes  (CpViewState *self);
void              cp_view_state_show_all_lanes      (CpViewState *self);
gboolean          cp_view_state_get_lane_pinned     (CpViewState *self,
                                                     guint        lane);
void              cp_view_state_set_lane_pinned     (CpViewState *self,
                                                     guint        lane,
                                                     gboolean     pinned);
/* Pinned lanes in the order they were pinned. */
const guint      *cp_view_state_get_pinned_lanes    (CpViewState *self,
                                                     guint       *n);
/* Increases whenever the layout preferences change. */
guint             cp_view_state_get_layout_serial   (CpViewState *self);

/* Annotation marks to draw (replaced as a whole; copied). */
void              cp_view_state_set_marks           (CpViewState  *self,
                                                     const CpMark *marks,
                                                     guint         n);
const CpMark     *cp_view_state_get_marks           (CpViewState *self,
                                                     guint       *n);

static inline gboolean
cp_slice_ref_equal (CpSliceRef a,
                    CpSliceRef b)
{
  return a.lane == b.lane && a.index == b.index;
}

static inline gboolean
cp_slice_ref_is_none (CpSliceRef ref)
{
  return ref.lane == G_MAXUINT32;
}

G_END_DECLS
