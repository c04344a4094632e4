/* cp-view-state.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cp-view-state.h"

#define DEFAULT_VIEWPORT_WIDTH 1000.0

struct _CpViewState
{
  GObject     parent_instance;

  CpTrace    *trace;
  gint64      duration;

  gint64      start;
  gint64      end;
  double      viewport_width;
  double      vertical_offset;

  CpSliceRef  selected;
  CpSliceRef  hovered;

  gint64      sel_start;
  gint64      sel_end;
  guint       has_time_selection : 1;
  guint       show_all_flows : 1;
  guint       devices_first : 1;
  gint64      ruler_origin;

  GArray     *highlights;      /* of CpHighlight, grouped by kind */
  GArray     *matches;         /* of CpSliceRef, sorted */
  GArray     *marks;           /* of CpMark, labels owned */

  guint8     *collapsed;       /* per process */
  guint       n_collapsed;
  guint8     *hidden;          /* per lane */
  guint       n_hidden_slots;
  guint       n_hidden;
  GArray     *pinned;          /* of guint */
  guint       layout_serial;
};

G_DEFINE_FINAL_TYPE (CpViewState, cp_view_state, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TRACE,
  PROP_VISIBLE_START,
  PROP_VISIBLE_END,
  PROP_VIEWPORT_WIDTH,
  PROP_VERTICAL_OFFSET,
  PROP_SHOW_ALL_FLOWS,
  PROP_DEVICES_FIRST,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
emit_changed (CpViewState  *self,
              CpViewChange  what)
{
  g_signal_emit (self, signals[CHANGED], 0, (guint) what);
}

static void
clear_marks (CpViewState *self)
{
  for (guint i = 0; i < self->marks->len; i++)
    g_free ((char *) g_array_index (self->marks, CpMark, i).label);
  g_array_set_size (self->marks, 0);
}

static void
cp_view_state_finalize (GObject *object)
{
  CpViewState *self = (CpViewState *) object;

  g_clear_object (&self->trace);
  g_array_unref (self->highlights);
  g_array_unref (self->matches);
  clear_marks (self);
  g_array_unref (self->marks);
  g_free (self->collapsed);
  g_free (self->hidden);
  g_array_unref (self->pinned);

  G_OBJECT_CLASS (cp_view_state_parent_class)->finalize (object);
}

static void
cp_view_state_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CpViewState *self = CP_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_VISIBLE_START:
      g_value_set_int64 (value, self->start);
      break;
    case PROP_VISIBLE_END:
      g_value_set_int64 (value, self->end);
      break;
    case PROP_VIEWPORT_WIDTH:
      g_value_set_double (value, self->viewport_width);
      break;
    case PROP_VERTICAL_OFFSET:
      g_value_set_double (value, self->vertical_offset);
      break;
    case PROP_SHOW_ALL_FLOWS:
      g_value_set_boolean (value, self->show_all_flows);
      break;
    case PROP_DEVICES_FIRST:
      g_value_set_boolean (value, self->devices_first);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_view_state_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CpViewState *self = CP_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_view_state_set_trace (self, g_value_get_object (value));
      break;
    case PROP_VIEWPORT_WIDTH:
      cp_view_state_set_viewport_width (self, g_value_get_double (value));
      break;
    case PROP_VERTICAL_OFFSET:
      cp_view_state_set_vertical_offset (self, g_value_get_double (value));
      break;
    case PROP_SHOW_ALL_FLOWS:
      cp_view_state_set_show_all_flows (self, g_value_get_boolean (value));
      break;
    case PROP_DEVICES_FIRST:
      cp_view_state_set_devices_first (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_view_state_class_init (CpViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cp_view_state_finalize;
  object_class->get_property = cp_view_state_get_property;
  object_class->set_property = cp_view_state_set_property;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, CP_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VISIBLE_START] =
    g_param_spec_int64 ("visible-start", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VISIBLE_END] =
    g_param_spec_int64 ("visible-end", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_VIEWPORT_WIDTH] =
    g_param_spec_double ("viewport-width", NULL, NULL, 1.0, G_MAXDOUBLE, DEFAULT_VIEWPORT_WIDTH,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VERTICAL_OFFSET] =
    g_param_spec_double ("vertical-offset", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_ALL_FLOWS] =
    g_param_spec_boolean ("show-all-flows", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DEVICES_FIRST] =
    g_param_spec_boolean ("devices-first", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * CpViewState::changed:
   * @what: the #CpViewChange flags of what changed
   *
   * Emitted after any change, once per change.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
cp_view_state_init (CpViewState *self)
{
  self->viewport_width = DEFAULT_VIEWPORT_WIDTH;
  self->start = 0;
  self->end = 1;
  self->duration = 0;
  self->selected = CP_SLICE_REF_NONE;
  self->hovered = CP_SLICE_REF_NONE;
  self->highlights = g_array_new (FALSE, FALSE, sizeof (CpHighlight));
  self->matches = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  self->marks = g_array_new (FALSE, FALSE, sizeof (CpMark));
  self->pinned = g_array_new (FALSE, FALSE, sizeof (guint));
}

CpViewState *
cp_view_state_new (void)
{
  return g_object_new (CP_TYPE_VIEW_STATE, NULL);
}

CpViewState *
cp_view_state_copy (CpViewState *self)
{
  CpViewState *copy;

  g_return_val_if_fail (CP_IS_VIEW_STATE (self), NULL);

  copy = cp_view_state_new ();
  copy->trace = self->trace ? g_object_ref (self->trace) : NULL;
  copy->duration = self->duration;
  copy->start = self->start;
  copy->end = self->end;
  copy->viewport_width = self->viewport_width;
  copy->vertical_offset = self->vertical_offset;
  copy->selected = self->selected;
  copy->hovered = self->hovered;
  copy->sel_start = self->sel_start;
  copy->sel_end = self->sel_end;
  copy->has_time_selection = self->has_time_selection;
  copy->show_all_flows = self->show_all_flows;
  copy->devices_first = self->devices_first;
  copy->ruler_origin = self->ruler_origin;
  g_array_append_vals (copy->highlights, self->highlights->data, self->highlights->len);
  g_array_append_vals (copy->matches, self->matches->data, self->matches->len);
  cp_view_state_set_marks (copy, (const CpMark *) (gpointer) self->marks->data, self->marks->len);
  if (self->collapsed)
    copy->collapsed = g_memdup2 (self->collapsed, self->n_collapsed);
  copy->n_collapsed = self->n_collapsed;
  if (self->hidden)
    copy->hidden = g_memdup2 (self->hidden, self->n_hidden_slots);
  copy->n_hidden_slots = self->n_hidden_slots;
  copy->n_hidden = self->n_hidden;
  g_array_append_vals (copy->pinned, self->pinned->data, self->pinned->len);
  copy->layout_serial = self->layout_serial;

  return copy;
}

CpTrace *
cp_view_state_get_trace (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), NULL);
  return self->trace;
}

void
cp_view_state_set_trace (CpViewState *self,
                         CpTrace     *trace)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;

  self->duration = trace ? cp_trace_get_duration (trace) : 0;
  self->selected = CP_SLICE_REF_NONE;
  self->hovered = CP_SLICE_REF_NONE;
  self->has_time_selection = FALSE;
  self->vertical_offset = 0;
  g_array_set_size (self->highlights, 0);
  g_array_set_size (self->matches, 0);
  clear_marks (self);
  g_clear_pointer (&self->collapsed, g_free);
  g_clear_pointer (&self->hidden, g_free);
  self->n_collapsed = trace ? cp_trace_get_n_processes (trace) : 0;
  self->n_hidden_slots = trace ? cp_trace_get_n_lanes (trace) : 0;
  self->collapsed = g_new0 (guint8, MAX (self->n_collapsed, 1));
  self->hidden = g_new0 (guint8, MAX (self->n_hidden_slots, 1));
  self->n_hidden = 0;
  g_array_set_size (self->pinned, 0);
  self->layout_serial++;

  self->start = 0;
  self->end = MAX (self->duration, cp_view_state_get_min_span (self));
  if (self->end > self->duration)
    {
      /* A trace shorter than the narrowest view sits in the middle. */
      gint64 span = self->end;

      self->start = (self->duration - span) / 2;
      self->end = self->start + span;
    }

  g_object_freeze_notify (G_OBJECT (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_END]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VERTICAL_OFFSET]);
  g_object_thaw_notify (G_OBJECT (self));
  emit_changed (self, CP_VIEW_CHANGE_TRACE | CP_VIEW_CHANGE_RANGE | CP_VIEW_CHANGE_VERTICAL |
                      CP_VIEW_CHANGE_SELECTION | CP_VIEW_CHANGE_HOVER |
                      CP_VIEW_CHANGE_TIME_SELECTION | CP_VIEW_CHANGE_HIGHLIGHTS |
                      CP_VIEW_CHANGE_SEARCH | CP_VIEW_CHANGE_LAYOUT | CP_VIEW_CHANGE_MARKS);
}

/* Visible range */

gint64
cp_view_state_get_visible_start (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return self->start;
}

gint64
cp_view_state_get_visible_end (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return self->end;
}

gint64
cp_view_state_get_min_span (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 1);
  return MAX (1, (gint64) ceil (self->viewport_width));
}

gint64
cp_view_state_get_max_span (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 1);
  return MAX (self->duration, cp_view_state_get_min_span (self));
}

/* Clamps a range given as a start and a span (both may be fractional). */
static void
clamp_range (CpViewState *self,
             double       start,
             double       span,
             gint64      *out_start,
             gint64      *out_end)
{
  gint64 min_span = cp_view_state_get_min_span (self);
  gint64 max_span = cp_view_state_get_max_span (self);
  gint64 s, lo, hi;
  gint64 ispan;

  if (!isfinite (span) || span < (double) min_span)
    span = (double) min_span;
  if (span > (double) max_span)
    span = (double) max_span;
  ispan = (gint64) llround (span);
  ispan = CLAMP (ispan, min_span, max_span);

  /* The range stays within [0, duration]; a trace shorter than the
   * narrowest span is centred. */
  lo = MIN (0, (self->duration - ispan) / 2);
  hi = MAX (lo, self->duration - ispan);
  if (!isfinite (start))
    start = 0;
  s = (gint64) llround (CLAMP (start, (double) lo, (double) hi));
  *out_start = s;
  *out_end = s + ispan;
}

static void
apply_range (CpViewState *self,
             gint64       start,
             gint64       end)
{
  gboolean start_changed = start != self->start;
  gboolean end_changed = end != self->end;

  if (!start_changed && !end_changed)
    return;

  self->start = start;
  self->end = end;
  g_object_freeze_notify (G_OBJECT (self));
  if (start_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_START]);
  if (end_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_END]);
  g_object_thaw_notify (G_OBJECT (self));
  emit_changed (self, CP_VIEW_CHANGE_RANGE);
}

void
cp_view_state_set_visible_range (CpViewState *self,
                                 gint64       start,
                                 gint64       end)
{
  gint64 s, e;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (end < start)
    {
      gint64 tmp = start;
      start = end;
      end = tmp;
    }
  clamp_range (self, (double) start, (double) end - (double) start, &s, &e);
  apply_range (self, s, e);
}

double
cp_view_state_get_viewport_width (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), DEFAULT_VIEWPORT_WIDTH);
  return self->viewport_width;
}

void
cp_view_state_set_viewport_width (CpViewState *self,
                                  double       width)
{
  gint64 s, e;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  width = MAX (1.0, width);
  if (width == self->viewport_width)
    return;

  self->viewport_width = width;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEWPORT_WIDTH]);
  /* The zoom limit follows the width; keep the range within it. */
  clamp_range (self, (double) self->start, (double) (self->end - self->start), &s, &e);
  if (s != self->start || e != self->end)
    apply_range (self, s, e);
  else
    emit_changed (self, CP_VIEW_CHANGE_RANGE);
}

double
cp_view_state_time_to_x (CpViewState *self,
                         gint64       t)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return (double) (t - self->start) * self->viewport_width / (double) (self->end - self->start);
}

double
cp_view_state_x_to_time (CpViewState *self,
                         double       x)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return (double) self->start + x * (double) (self->end - self->start) / self->viewport_width;
}

void
cp_view_state_zoom (CpViewState *self,
                    double       factor,
                    gint64       anchor)
{
  double span, new_span, frac;
  gint64 s, e;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (!isfinite (factor) || factor <= 0)
    return;

  span = (double) (self->end - self->start);
  frac = ((double) anchor - (double) self->start) / span;
  new_span = span * factor;
  new_span = CLAMP (new_span, (double) cp_view_state_get_min_span (self),
                    (double) cp_view_state_get_max_span (self));
  /* Keep the anchor at the same fraction of the view. */
  clamp_range (self, (double) anchor - frac * new_span, new_span, &s, &e);
  apply_range (self, s, e);
}

void
cp_view_state_zoom_at_x (CpViewState *self,
                         double       factor,
                         double       x)
{
  double span, new_span, frac, anchor;
  gint64 s, e;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (!isfinite (factor) || factor <= 0 || !isfinite (x))
    return;

  /* Same as cp_view_state_zoom(), without rounding the anchor to a whole ns
   * so that deep zooms keep the pointer exactly where it is. */
  span = (double) (self->end - self->start);
  frac = x / self->viewport_width;
  anchor = (double) self->start + frac * span;
  new_span = CLAMP (span * factor, (double) cp_view_state_get_min_span (self),
                    (double) cp_view_state_get_max_span (self));
  clamp_range (self, anchor - frac * new_span, new_span, &s, &e);
  apply_range (self, s, e);
}

void
cp_view_state_pan (CpViewState *self,
                   gint64       dt)
{
  gint64 s, e;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  clamp_range (self, (double) self->start + (double) dt, (double) (self->end - self->start), &s, &e);
  apply_range (self, s, e);
}

void
cp_view_state_pan_pixels (CpViewState *self,
                          double       dx)
{
  gint64 s, e;
  double span;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  span = (double) (self->end - self->start);
  clamp_range (self, (double) self->start + dx * span / self->viewport_width, span, &s, &e);
  apply_range (self, s, e);
}

void
cp_view_state_fit_all (CpViewState *self)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));
  cp_view_state_set_visible_range (self, 0, cp_view_state_get_max_span (self));
}

void
cp_view_state_fit_range (CpViewState *self,
                         gint64       start,
                         gint64       end)
{
  double span, margin, min_span;
  gint64 s, e;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (end < start)
    {
      gint64 tmp = start;
      start = end;
      end = tmp;
    }
  /* A 5% margin each side so the edges of what is fitted stay visible. */
  span = (double) (end - start);
  min_span = (double) cp_view_state_get_min_span (self);
  margin = span * 0.05;
  span += 2 * margin;
  if (span < min_span)
    {
      margin += (min_span - span) / 2;
      span = min_span;
    }
  clamp_range (self, (double) start - margin, span, &s, &e);
  apply_range (self, s, e);
}

gboolean
cp_view_state_fit_selection (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);

  if (cp_view_state_has_selected (self))
    {
      gint64 start = cp_trace_slice_start (self->trace, self->selected);
      gint64 dur = cp_trace_slice_dur (self->trace, self->selected);

      cp_view_state_fit_range (self, start, start + dur);
      return TRUE;
    }
  if (self->has_time_selection)
    {
      cp_view_state_fit_range (self, self->sel_start, self->sel_end);
      return TRUE;
    }
  return FALSE;
}

void
cp_view_state_reveal_range (CpViewState *self,
                            gint64       start,
                            gint64       end)
{
  gint64 span;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  span = self->end - self->start;
  if (start >= self->start && end <= self->end)
    return;
  if (end - start <= span * 9 / 10)
    {
      /* Centre it. */
      gint64 mid = start + (end - start) / 2;

      cp_view_state_set_visible_range (self, mid - span / 2, mid - span / 2 + span);
    }
  else
    cp_view_state_set_visible_range (self, start - span / 20, start - span / 20 + span);
}

/* Vertical offset */

double
cp_view_state_get_vertical_offset (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return self->vertical_offset;
}

void
cp_view_state_set_vertical_offset (CpViewState *self,
                                   double       offset)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (!isfinite (offset) || offset < 0)
    offset = 0;
  if (offset == self->vertical_offset)
    return;
  self->vertical_offset = offset;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VERTICAL_OFFSET]);
  emit_changed (self, CP_VIEW_CHANGE_VERTICAL);
}

/* Selection and hover */

static gboolean
ref_valid (CpViewState *self,
           CpSliceRef   ref)
{
  return self->trace != NULL && cp_trace_slice_ref_valid (self->trace, ref);
}

CpSliceRef
cp_view_state_get_selected (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), CP_SLICE_REF_NONE);
  return self->selected;
}

gboolean
cp_view_state_has_selected (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);
  return !cp_slice_ref_is_none (self->selected);
}

void
cp_view_state_set_selected (CpViewState *self,
                            CpSliceRef   ref)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (!ref_valid (self, ref))
    ref = CP_SLICE_REF_NONE;
  if (cp_slice_ref_equal (ref, self->selected))
    return;
  self->selected = ref;
  emit_changed (self, CP_VIEW_CHANGE_SELECTION);
}

CpSliceRef
cp_view_state_get_hovered (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), CP_SLICE_REF_NONE);
  return self->hovered;
}

void
cp_view_state_set_hovered (CpViewState *self,
                           CpSliceRef   ref)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (!ref_valid (self, ref))
    ref = CP_SLICE_REF_NONE;
  if (cp_slice_ref_equal (ref, self->hovered))
    return;
  self->hovered = ref;
  emit_changed (self, CP_VIEW_CHANGE_HOVER);
}

void
cp_view_state_select_and_reveal (CpViewState *self,
                                 CpSliceRef   ref)
{
  gint64 start, dur, span;

  g_return_if_fail (CP_IS_VIEW_STATE (self));

  cp_view_state_set_selected (self, ref);
  if (!cp_view_state_has_selected (self))
    return;

  start = cp_trace_slice_start (self->trace, self->selected);
  dur = cp_trace_slice_dur (self->trace, self->selected);
  span = self->end - self->start;
  if (dur > span * 9 / 10)
    {
      /* Too wide to show: zoom out to it. */
      cp_view_state_fit_range (self, start, start + dur);
    }
  else if ((double) dur * self->viewport_width / (double) span < 2.0 && span > 1000 * MAX (dur, 1))
    {
      /* A speck at this zoom: zoom in so it is about 1/20 of the view. */
      gint64 new_span = MAX (MAX (dur, 1) * 20, cp_view_state_get_min_span (self));
      gint64 mid = start + dur / 2;

      cp_view_state_set_visible_range (self, mid - new_span / 2, mid - new_span / 2 + new_span);
    }
  else
    cp_view_state_reveal_range (self, start, start + dur);
}

/* Time selection */

gboolean
cp_view_state_get_time_selection (CpViewState *self,
                                  gint64      *start,
                                  gint64      *end)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);

  if (start)
    *start = self->has_time_selection ? self->sel_start : 0;
  if (end)
    *end = self->has_time_selection ? self->sel_end : 0;
  return self->has_time_selection;
}

void
cp_view_state_set_time_selection (CpViewState *self,
                                  gint64       start,
                                  gint64       end)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (end < start)
    {
      gint64 tmp = start;
      start = end;
      end = tmp;
    }
  if (self->has_time_selection && start == self->sel_start && end == self->sel_end)
    return;
  self->has_time_selection = TRUE;
  self->sel_start = start;
  self->sel_end = end;
  emit_changed (self, CP_VIEW_CHANGE_TIME_SELECTION);
}

void
cp_view_state_clear_time_selection (CpViewState *self)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (!self->has_time_selection)
    return;
  self->has_time_selection = FALSE;
  emit_changed (self, CP_VIEW_CHANGE_TIME_SELECTION);
}

/* Highlights */

void
cp_view_state_set_highlights (CpViewState       *self,
                              CpHighlightKind    kind,
                              const CpHighlight *highlights,
                              guint              n)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));
  g_return_if_fail (kind < CP_HIGHLIGHT_N_KINDS);
  g_return_if_fail (n == 0 || highlights != NULL);

  /* Drop the old ones of this kind, keep the others. */
  for (guint i = self->highlights->len; i > 0; i--)
    {
      if (g_array_index (self->highlights, CpHighlight, i - 1).kind == kind)
        g_array_remove_index (self->highlights, i - 1);
    }
  for (guint i = 0; i < n; i++)
    {
      CpHighlight h = highlights[i];

      h.kind = kind;
      if (h.end < h.start)
        {
          gint64 tmp = h.start;
          h.start = h.end;
          h.end = tmp;
        }
      g_array_append_val (self->highlights, h);
    }
  emit_changed (self, CP_VIEW_CHANGE_HIGHLIGHTS);
}

const CpHighlight *
cp_view_state_get_highlights (CpViewState *self,
                              guint       *n)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), NULL);
  g_return_val_if_fail (n != NULL, NULL);

  *n = self->highlights->len;
  return (const CpHighlight *) (gpointer) self->highlights->data;
}

/* Search */

static int
cmp_refs (gconstpointer a,
          gconstpointer b)
{
  const CpSliceRef *x = a, *y = b;

  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return 0;
}

void
cp_view_state_set_search_matches (CpViewState      *self,
                                  const CpSliceRef *matches,
                                  guint             n)
{
  gboolean sorted = TRUE;

  g_return_if_fail (CP_IS_VIEW_STATE (self));
  g_return_if_fail (n == 0 || matches != NULL);

  g_array_set_size (self->matches, 0);
  g_array_append_vals (self->matches, matches, n);
  for (guint i = 1; i < n && sorted; i++)
    sorted = cmp_refs (&matches[i - 1], &matches[i]) <= 0;
  if (!sorted)
    g_array_sort (self->matches, cmp_refs);
  emit_changed (self, CP_VIEW_CHANGE_SEARCH);
}

const CpSliceRef *
cp_view_state_get_search_matches (CpViewState *self,
                                  guint       *n)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), NULL);
  g_return_val_if_fail (n != NULL, NULL);

  *n = self->matches->len;
  return (const CpSliceRef *) (gpointer) self->matches->data;
}

gboolean
cp_view_state_is_search_match (CpViewState *self,
                               CpSliceRef   ref)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);

  return bsearch (&ref, self->matches->data, self->matches->len,
                  sizeof (CpSliceRef), cmp_refs) != NULL;
}

/* Flows */

gboolean
cp_view_state_get_show_all_flows (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);
  return self->show_all_flows;
}

void
cp_view_state_set_show_all_flows (CpViewState *self,
                                  gboolean     show)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  show = !!show;
  if (show == self->show_all_flows)
    return;
  self->show_all_flows = show;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_ALL_FLOWS]);
  emit_changed (self, CP_VIEW_CHANGE_FLOWS);
}

gint64
cp_view_state_get_ruler_origin (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);

  return self->ruler_origin;
}

void
cp_view_state_set_ruler_origin (CpViewState *self,
                                gint64       origin)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (origin == self->ruler_origin)
    return;
  self->ruler_origin = origin;
  emit_changed (self, CP_VIEW_CHANGE_RANGE);
}

/* Layout preferences */

static void
layout_changed (CpViewState *self)
{
  self->layout_serial++;
  emit_changed (self, CP_VIEW_CHANGE_LAYOUT);
}

gboolean
cp_view_state_get_devices_first (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);
  return self->devices_first;
}

void
cp_view_state_set_devices_first (CpViewState *self,
                                 gboolean     devices_first)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  devices_first = !!devices_first;
  if (devices_first == self->devices_first)
    return;
  self->devices_first = devices_first;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DEVICES_FIRST]);
  layout_changed (self);
}

gboolean
cp_view_state_get_group_collapsed (CpViewState *self,
                                   guint        process)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);
  return process < self->n_collapsed && self->collapsed[process];
}

void
cp_view_state_set_group_collapsed (CpViewState *self,
                                   guint        process,
                                   gboolean     collapsed)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (process >= self->n_collapsed || !!collapsed == !!self->collapsed[process])
    return;
  self->collapsed[process] = !!collapsed;
  layout_changed (self);
}

gboolean
cp_view_state_get_lane_hidden (CpViewState *self,
                               guint        lane)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);
  return lane < self->n_hidden_slots && self->hidden[lane];
}

void
cp_view_state_set_lane_hidden (CpViewState *self,
                               guint        lane,
                               gboolean     hidden)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (lane >= self->n_hidden_slots || !!hidden == !!self->hidden[lane])
    return;
  self->hidden[lane] = !!hidden;
  if (hidden)
    self->n_hidden++;
  else
    self->n_hidden--;
  layout_changed (self);
}

guint
cp_view_state_get_n_hidden_lanes (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return self->n_hidden;
}

void
cp_view_state_show_all_lanes (CpViewState *self)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (self->n_hidden == 0)
    return;
  memset (self->hidden, 0, self->n_hidden_slots);
  self->n_hidden = 0;
  layout_changed (self);
}

gboolean
cp_view_state_get_lane_pinned (CpViewState *self,
                               guint        lane)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), FALSE);

  for (guint i = 0; i < self->pinned->len; i++)
    {
      if (g_array_index (self->pinned, guint, i) == lane)
        return TRUE;
    }
  return FALSE;
}

void
cp_view_state_set_lane_pinned (CpViewState *self,
                               guint        lane,
                               gboolean     pinned)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));

  if (lane >= self->n_hidden_slots)
    return;
  for (guint i = 0; i < self->pinned->len; i++)
    {
      if (g_array_index (self->pinned, guint, i) == lane)
        {
          if (pinned)
            return;
          g_array_remove_index (self->pinned, i);
          layout_changed (self);
          return;
        }
    }
  if (!pinned)
    return;
  g_array_append_val (self->pinned, lane);
  layout_changed (self);
}

const guint *
cp_view_state_get_pinned_lanes (CpViewState *self,
                                guint       *n)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), NULL);
  g_return_val_if_fail (n != NULL, NULL);

  *n = self->pinned->len;
  return (const guint *) (gpointer) self->pinned->data;
}

guint
cp_view_state_get_layout_serial (CpViewState *self)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), 0);
  return self->layout_serial;
}

/* Marks */

void
cp_view_state_set_marks (CpViewState  *self,
                         const CpMark *marks,
                         guint         n)
{
  g_return_if_fail (CP_IS_VIEW_STATE (self));
  g_return_if_fail (n == 0 || marks != NULL);

  clear_marks (self);
  for (guint i = 0; i < n; i++)
    {
      CpMark m = marks[i];

      m.label = g_strdup (m.label);
      if (m.end < m.start)
        m.end = m.start;
      g_array_append_val (self->marks, m);
    }
  emit_changed (self, CP_VIEW_CHANGE_MARKS);
}

const CpMark *
cp_view_state_get_marks (CpViewState *self,
                         guint       *n)
{
  g_return_val_if_fail (CP_IS_VIEW_STATE (self), NULL);
  g_return_val_if_fail (n != NULL, NULL);

  *n = self->marks->len;
  return (const CpMark *) (gpointer) self->marks->data;
}
