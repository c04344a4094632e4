/* cp-timeline-view.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "model/cp-timing.h"
#include "render/cp-lod.h"
#include "render/cp-painter.h"
#include "render/cp-time-format.h"

#include "cp-style.h"
#include "cp-timeline-view-private.h"

/* Pixels a press may move and still be a click. */
#define CLICK_SLOP        4.0
/* Hit tolerance for slices narrower than this many pixels. */
#define HIT_TOLERANCE     3.0
/* One W/S press scales the span by this; A/D pan this much of it. */
#define KEY_ZOOM          0.6
#define KEY_PAN           0.2
/* One wheel notch with Ctrl. */
#define WHEEL_ZOOM        1.25
/* One wheel notch without modifiers, in pixels. */
#define WHEEL_STEP        48.0

typedef enum
{
  DRAG_NONE,
  DRAG_PENDING,           /* pressed, not moved yet: may be a click */
  DRAG_PAN,
  DRAG_RANGE,
} DragMode;

struct _CpTimelineView
{
  GtkWidget          parent_instance;

  /* Owned references */
  CpTrace           *trace;
  CpViewState       *view;
  CpPainter         *painter;
  CpTimelineLayout  *layout;
  GskRenderNode     *base_node;       /* everything but the hover outline */
  GtkAdjustment     *vadj;
  GtkWidget         *menu;            /* lane context menu (a child) */
  GCancellable      *index_cancellable;

  gulong             view_changed_id;
  gboolean           indexing;
  gboolean           updating_adj;
  gboolean           auto_order;      /* devices first when hosts fill the view */
  gboolean           order_decided;   /* ...decided once for this trace */

  /* Pointer */
  double             pointer_x;
  double             pointer_y;
  gboolean           pointer_inside;

  /* Press and drag */
  DragMode           drag_mode;
  double             drag_x;
  double             drag_y;
  gint64             drag_t0;
  gint64             drag_t1;
  double             drag_offset;
  CpHit              press_hit;

  /* Pinch */
  gint64             pinch_t0;
  gint64             pinch_t1;
  double             pinch_frac;

  /* The lane or group the context menu is about. */
  guint              menu_lane;
  guint              menu_process;
};

/* The context menu's annotation items (the window's actions). */
#define MENU_ADD_MARKER   "win.add-marker-at"
#define MENU_SLICE_NOTE   "win.add-slice-note"
#define MENU_RANGE_NOTE   "win.add-note"

G_DEFINE_FINAL_TYPE (CpTimelineView, cp_timeline_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRACE,
  PROP_VIEW_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SLICE_CLICKED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void update_adjustment (CpTimelineView *self);

static void
invalidate (CpTimelineView *self)
{
  g_clear_pointer (&self->base_node, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static double
gutter_width (CpTimelineView *self)
{
  return cp_painter_get_metrics (self->painter)->gutter_width;
}

static gboolean
ready (CpTimelineView *self)
{
  return self->trace != NULL && self->view != NULL &&
         cp_view_state_get_trace (self->view) == self->trace &&
         cp_lod_peek (self->trace) != NULL;
}

static CpTimelineLayout *
ensure_layout (CpTimelineView *self)
{
  if (!ready (self))
    return NULL;
  if (self->layout == NULL || !cp_timeline_layout_is_current (self->layout, self->view) ||
      memcmp (cp_timeline_layout_get_metrics (self->layout), cp_painter_get_metrics (self->painter),
              sizeof (CpLayoutMetrics)) != 0)
    {
      g_clear_pointer (&self->layout, cp_timeline_layout_unref);
      self->layout = cp_timeline_layout_new (self->view, cp_painter_get_metrics (self->painter));
    }
  return self->layout;
}

static double
max_offset (CpTimelineView *self)
{
  CpTimelineLayout *layout = ensure_layout (self);

  if (layout == NULL)
    return 0;
  return cp_timeline_layout_get_max_offset (layout, gtk_widget_get_height (GTK_WIDGET (self)));
}

static void
set_offset (CpTimelineView *self,
            double          offset)
{
  if (self->view == NULL)
    return;
  cp_view_state_set_vertical_offset (self->view, CLAMP (offset, 0, max_offset (self)));
}

static CpHit
hit_at (CpTimelineView *self,
        double          x,
        double          y)
{
  CpHit none = { CP_HIT_NONE, -1, 0, 0, -1, CP_SLICE_REF_NONE, 0 };
  CpTimelineLayout *layout = ensure_layout (self);

  if (layout == NULL)
    return none;
  return cp_timeline_layout_hit_test (layout, self->view, x, y,
                                      gtk_widget_get_height (GTK_WIDGET (self)), HIT_TOLERANCE);
}

/* The time area's x of the pointer, or its middle when the pointer is
 * elsewhere: what W/S zoom around. */
static double
anchor_x (CpTimelineView *self)
{
  double gw = gutter_width (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - gw;

  if (self->pointer_inside && self->pointer_x >= gw)
    return self->pointer_x - gw;
  return w / 2;
}

/* Theme and font */

static void
update_style (CpTimelineView *self)
{
  PangoContext *context = gtk_widget_get_pango_context (GTK_WIDGET (self));
  const PangoFontDescription *font = context ? pango_context_get_font_description (context) : NULL;

  cp_painter_set_theme (self->painter, cp_ui_widget_is_dark (GTK_WIDGET (self)) ? CP_THEME_DARK : CP_THEME_LIGHT);
  cp_painter_set_font (self->painter, font);
  if (self->view)
    cp_view_state_set_viewport_width (self->view,
                                      MAX (gtk_widget_get_width (GTK_WIDGET (self)) - gutter_width (self), 1));
  update_adjustment (self);
  invalidate (self);
}

static void
dark_changed_cb (CpTimelineView *self)
{
  update_style (self);
}

/* Level-of-detail index, built once per trace in a worker */

static void
index_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  cp_lod_ensure (task_data);
  g_task_return_boolean (task, TRUE);
}

/* Devices first, once per trace, when the user has not chosen an order and
 * the host lanes (Python stacks, JAX host threads) are taller than the
 * view: otherwise the device lanes, the ones the capture is about, start
 * screens down. */
static void
maybe_order_lanes (CpTimelineView *self)
{
  CpTimelineLayout *layout;
  double room;

  if (!self->auto_order || self->order_decided || self->view == NULL ||
      gtk_widget_get_height (GTK_WIDGET (self)) <= 0)
    return;
  layout = ensure_layout (self);
  if (layout == NULL)
    return;
  self->order_decided = TRUE;
  if (cp_view_state_get_devices_first (self->view))
    return;
  room = gtk_widget_get_height (GTK_WIDGET (self)) - cp_timeline_layout_get_metrics (layout)->ruler_height -
         cp_timeline_layout_get_pinned_height (layout);
  for (guint i = 0; i < cp_timeline_layout_get_n_items (layout); i++)
    {
      const CpLayoutItem *it = cp_timeline_layout_get_item (layout, i);

      if (it->pinned || it->kind != CP_LAYOUT_GROUP || !it->is_device)
        continue;
      if (i > 0 && it->y >= room)
        cp_view_state_set_devices_first (self->view, TRUE);
      return;
    }
}

static void
index_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (source);

  if (!g_task_propagate_boolean (G_TASK (result), NULL))
    return;
  self->indexing = FALSE;
  maybe_order_lanes (self);
  update_adjustment (self);
  invalidate (self);
}

static void
ensure_index (CpTimelineView *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->trace == NULL || cp_lod_peek (self->trace) != NULL || self->indexing)
    return;
  self->indexing = TRUE;
  g_cancellable_cancel (self->index_cancellable);
  g_clear_object (&self->index_cancellable);
  self->index_cancellable = g_cancellable_new ();
  task = g_task_new (self, self->index_cancellable, index_done_cb, NULL);
  g_task_set_source_tag (task, ensure_index);
  g_task_set_task_data (task, g_object_ref (self->trace), g_object_unref);
  g_task_run_in_thread (task, index_thread);
}

/* View state */

static void
view_changed_cb (CpTimelineView *self,
                 guint           what,
                 CpViewState    *view)
{
  if (what & (CP_VIEW_CHANGE_LAYOUT | CP_VIEW_CHANGE_TRACE))
    {
      g_clear_pointer (&self->layout, cp_timeline_layout_unref);
      /* The content may have shrunk under the offset. */
      if (ready (self) && cp_view_state_get_vertical_offset (view) > max_offset (self))
        set_offset (self, max_offset (self));
      update_adjustment (self);
    }
  if (what & CP_VIEW_CHANGE_VERTICAL)
    update_adjustment (self);
  if (what == CP_VIEW_CHANGE_HOVER)
    gtk_widget_queue_draw (GTK_WIDGET (self));
  else
    invalidate (self);
}

static void
update_adjustment (CpTimelineView *self)
{
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  double upper = h, value = 0, page = h;
  CpTimelineLayout *layout = ensure_layout (self);

  if (layout != NULL)
    {
      const CpLayoutMetrics *m = cp_timeline_layout_get_metrics (layout);
      double room = MAX (h - m->ruler_height - cp_timeline_layout_get_pinned_height (layout), 1);

      page = room;
      upper = MAX (cp_timeline_layout_get_content_height (layout), room);
      value = CLAMP (cp_view_state_get_vertical_offset (self->view), 0, upper - page);
    }
  self->updating_adj = TRUE;
  gtk_adjustment_configure (self->vadj, value, 0, upper, page / 10, page * 0.9, page);
  self->updating_adj = FALSE;
}

static void
vadj_value_changed_cb (CpTimelineView *self,
                       GtkAdjustment  *adj)
{
  if (self->updating_adj)
    return;
  set_offset (self, gtk_adjustment_get_value (adj));
}

/* Drawing */

/* CHOKEPOINT_TIMINGS: the first frame that shows a timeline is painted. */
static gboolean first_frame_marked;

static void
first_frame_painted (GdkFrameClock *clock,
                     gpointer       data)
{
  g_signal_handlers_disconnect_by_func (clock, first_frame_painted, data);
  cp_timing_mark ("first-frame");
}

static void
note_first_frame (GtkWidget *widget)
{
  GdkFrameClock *clock;

  if (G_LIKELY (first_frame_marked) || !cp_timing_enabled ())
    return;
  clock = gtk_widget_get_frame_clock (widget);
  if (clock == NULL)
    return;
  first_frame_marked = TRUE;
  g_signal_connect (clock, "after-paint", G_CALLBACK (first_frame_painted), NULL);
}

static void
cp_timeline_view_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);
  double w = gtk_widget_get_width (widget);
  double h = gtk_widget_get_height (widget);
  CpTimelineLayout *layout;
  CpSliceRef hov;
  double x, y, sw, sh;

  if (w <= 0 || h <= 0 || self->view == NULL)
    return;

  layout = ensure_layout (self);
  if (layout == NULL)
    {
      /* No trace yet, or its index is still being built (in a thread):
       * nothing to draw until it is ready. */
      ensure_index (self);
      return;
    }

  if (self->base_node == NULL)
    {
      GtkSnapshot *sub = gtk_snapshot_new ();
      cairo_t *cr = gtk_snapshot_append_cairo (sub, &GRAPHENE_RECT_INIT (0, 0, w, h));

      cp_painter_draw (self->painter, cr, self->view, layout, w, h, CP_PAINT_BASE);
      cairo_destroy (cr);
      self->base_node = gtk_snapshot_free_to_node (sub);
    }
  if (self->base_node)
    {
      gtk_snapshot_append_node (snapshot, self->base_node);
      note_first_frame (widget);
    }

  /* The hover outline, uncached, over the slice only. */
  hov = cp_view_state_get_hovered (self->view);
  if (!cp_slice_ref_is_none (hov) &&
      cp_painter_slice_rect (self->painter, self->view, layout, w, h, hov, &x, &y, &sw, &sh))
    {
      graphene_rect_t r = GRAPHENE_RECT_INIT (MAX (x - 6, 0), MAX (y - 4, 0), 0, 0);
      cairo_t *cr;

      r.size.width = MIN (x + MAX (sw, 4) + 6, w) - r.origin.x;
      r.size.height = MIN (y + sh + 4, h) - r.origin.y;
      if (r.size.width > 0 && r.size.height > 0)
        {
          cr = gtk_snapshot_append_cairo (snapshot, &r);
          cp_painter_draw (self->painter, cr, self->view, layout, w, h, CP_PAINT_HOVER);
          cairo_destroy (cr);
        }
    }
}

static void
cp_timeline_view_size_allocate (GtkWidget *widget,
                                int        width,
                                int        height,
                                int        baseline)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (self->view)
    cp_view_state_set_viewport_width (self->view, MAX (width - gutter_width (self), 1));
  if (self->menu)
    gtk_popover_present (GTK_POPOVER (self->menu));
  maybe_order_lanes (self);
  if (ready (self) && cp_view_state_get_vertical_offset (self->view) > max_offset (self))
    set_offset (self, max_offset (self));
  update_adjustment (self);
  invalidate (self);
}

static void
cp_timeline_view_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);
  const CpLayoutMetrics *m = cp_painter_get_metrics (self->painter);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = (int) m->gutter_width + 120;
      *natural = (int) m->gutter_width + 800;
    }
  else
    {
      *minimum = (int) (m->ruler_height + m->header_height + m->min_lane_height);
      *natural = 480;
    }
  *minimum_baseline = *natural_baseline = -1;
}

static void
cp_timeline_view_css_changed (GtkWidget         *widget,
                              GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (cp_timeline_view_parent_class)->css_changed (widget, change);
  update_style (CP_TIMELINE_VIEW (widget));
}

/* Tooltip */

static gboolean
query_tooltip_cb (CpTimelineView *self,
                  int             x,
                  int             y,
                  gboolean        keyboard,
                  GtkTooltip     *tooltip)
{
  CpHit hit;
  g_autoptr(GString) text = NULL;

  if (keyboard || !ready (self))
    return FALSE;
  hit = hit_at (self, x, y);
  if (hit.kind == CP_HIT_SLICE)
    {
      CpLane *lane = cp_trace_get_lane (self->trace, hit.slice.lane);
      const CpSlices *s = cp_lane_get_slices (lane);
      guint32 i = hit.slice.index;
      g_autofree char *name = g_markup_escape_text (cp_trace_get_string (self->trace, cp_slices_get_name (s, i)), -1);
      g_autofree char *cat = g_markup_escape_text (cp_trace_get_string (self->trace, cp_slices_get_cat (s, i)), -1);
      g_autofree char *lane_name = g_markup_escape_text (cp_timeline_layout_get_label (self->layout, hit.item), -1);
      g_autofree char *start = cp_time_format_offset (cp_slices_get_start (s, i));
      g_autofree char *dur = cp_time_format_duration (cp_slices_get_dur (s, i));

      text = g_string_new (NULL);
      g_string_append_printf (text, "<b>%s</b>", name);
      if (*cat)
        /* Translators: tooltip line, the slice's category. */
        g_string_append_printf (text, "\n%s %s", _("Category:"), cat);
      g_string_append_printf (text, "\n%s %s", _("Start:"), start);
      g_string_append_printf (text, "\n%s %s", _("Duration:"), dur);
      g_string_append_printf (text, "\n%s %s", _("Lane:"), lane_name);
      if (s->flags[i] & CP_SLICE_PAGEABLE)
        g_string_append_printf (text, "\n<i>%s</i>", _("Pageable host memory"));
    }
  else if (hit.kind == CP_HIT_LANE &&
           cp_lane_get_kind (cp_trace_get_lane (self->trace, hit.lane)) == CP_LANE_COUNTER)
    {
      const gint64 *ts;
      const double *values;
      guint n = cp_lane_get_counter (cp_trace_get_lane (self->trace, hit.lane), &ts, &values);
      guint lo = 0, hi = n;
      gint64 t = (gint64) floor (hit.time);
      g_autofree char *lane_name = g_markup_escape_text (cp_timeline_layout_get_label (self->layout, hit.item), -1);
      g_autofree char *when = cp_time_format_offset (t);

      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (ts[mid] <= t)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo == 0)
        return FALSE;
      text = g_string_new (NULL);
      g_string_append_printf (text, "<b>%s</b>\n%.6g\n%s %s", lane_name, values[lo - 1], _("At:"), when);
    }
  else if (hit.kind == CP_HIT_LANE_LABEL || hit.kind == CP_HIT_GROUP)
    {
      g_autofree char *label = g_markup_escape_text (cp_timeline_layout_get_label (self->layout, hit.item), -1);

      text = g_string_new (label);
      if (hit.kind == CP_HIT_GROUP)
        g_string_append_printf (text, "\n<i>%s</i>", _("Click to collapse or expand; right-click for more"));
      else
        g_string_append_printf (text, "\n<i>%s</i>", _("Right-click to pin or hide the lane"));
    }
  else
    return FALSE;

  gtk_tooltip_set_markup (tooltip, text->str);
  return TRUE;
}

/* Pointer */

static void
update_hover (CpTimelineView *self)
{
  CpHit hit;

  if (!ready (self))
    return;
  if (!self->pointer_inside || self->drag_mode == DRAG_PAN || self->drag_mode == DRAG_RANGE)
    {
      cp_view_state_set_hovered (self->view, CP_SLICE_REF_NONE);
      return;
    }
  hit = hit_at (self, self->pointer_x, self->pointer_y);
  cp_view_state_set_hovered (self->view, hit.kind == CP_HIT_SLICE ? hit.slice : CP_SLICE_REF_NONE);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self),
                                   hit.kind == CP_HIT_GROUP || hit.kind == CP_HIT_SLICE ? "pointer" :
                                   hit.kind == CP_HIT_RULER ? "text" : NULL);
}

static void
motion_cb (CpTimelineView           *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  update_hover (self);
}

static void
leave_cb (CpTimelineView           *self,
          GtkEventControllerMotion *motion)
{
  self->pointer_inside = FALSE;
  if (self->view)
    cp_view_state_set_hovered (self->view, CP_SLICE_REF_NONE);
}

static void
click (CpTimelineView *self,
       const CpHit    *hit)
{
  switch (hit->kind)
    {
    case CP_HIT_SLICE:
      cp_view_state_set_selected (self->view, hit->slice);
      g_signal_emit (self, signals[SLICE_CLICKED], 0);
      break;
    case CP_HIT_GROUP:
      cp_view_state_set_group_collapsed (self->view, hit->process,
                                         !cp_view_state_get_group_collapsed (self->view, hit->process));
      break;
    case CP_HIT_LANE:
      cp_view_state_set_selected (self->view, CP_SLICE_REF_NONE);
      break;
    case CP_HIT_RULER:
      cp_view_state_clear_time_selection (self->view);
      break;
    case CP_HIT_LANE_LABEL:
    case CP_HIT_NONE:
    default:
      break;
    }
}

static void
drag_begin_cb (CpTimelineView *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  if (!ready (self))
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->drag_mode = DRAG_PENDING;
  self->drag_x = x;
  self->drag_y = y;
  self->drag_t0 = cp_view_state_get_visible_start (self->view);
  self->drag_t1 = cp_view_state_get_visible_end (self->view);
  self->drag_offset = cp_view_state_get_vertical_offset (self->view);
  self->press_hit = hit_at (self, x, y);
}

static gint64
clamp_to_trace (CpTimelineView *self,
                double          t)
{
  return (gint64) CLAMP (t, 0, (double) cp_trace_get_duration (self->trace));
}

static void
drag_update_cb (CpTimelineView *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  double gw = gutter_width (self);
  double area_w = MAX (gtk_widget_get_width (GTK_WIDGET (self)) - gw, 1);
  double npp = (double) (self->drag_t1 - self->drag_t0) / area_w;

  if (self->drag_mode == DRAG_NONE || !ready (self))
    return;
  if (self->drag_mode == DRAG_PENDING)
    {
      if (fabs (dx) < CLICK_SLOP && fabs (dy) < CLICK_SLOP)
        return;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      self->drag_mode = self->press_hit.kind == CP_HIT_RULER ? DRAG_RANGE : DRAG_PAN;
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), self->drag_mode == DRAG_PAN ? "grabbing" : "text");
      cp_view_state_set_hovered (self->view, CP_SLICE_REF_NONE);
    }

  if (self->drag_mode == DRAG_PAN)
    {
      double shift = -dx * npp;

      cp_view_state_set_visible_range (self->view,
                                       self->drag_t0 + (gint64) llround (shift),
                                       self->drag_t1 + (gint64) llround (shift));
      set_offset (self, self->drag_offset - dy);
    }
  else if (self->drag_mode == DRAG_RANGE)
    {
      double a = self->drag_t0 + (self->drag_x - gw) * npp;
      double b = self->drag_t0 + (self->drag_x + dx - gw) * npp;

      cp_view_state_set_time_selection (self->view, clamp_to_trace (self, MIN (a, b)),
                                        clamp_to_trace (self, MAX (a, b)));
    }
}

static void
drag_end_cb (CpTimelineView *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  DragMode mode = self->drag_mode;

  self->drag_mode = DRAG_NONE;
  if (!ready (self))
    return;
  if (mode == DRAG_PENDING)
    click (self, &self->press_hit);
  update_hover (self);
}

/* Context menu on lane names and group headers */

/* Annotation items: a marker at the time clicked, a note on the slice
 * clicked, a note on the selected range. They are the window's actions. */
static void
append_annotation_items (CpTimelineView *self,
                         GMenu          *section,
                         const CpHit    *hit)
{
  g_autoptr(GMenuItem) marker = g_menu_item_new (_("Add _Marker Here"), NULL);
  gint64 a, b;

  g_menu_item_set_action_and_target_value (marker, MENU_ADD_MARKER,
                                           g_variant_new_int64 ((gint64) hit->time));
  g_menu_append_item (section, marker);
  if (hit->kind == CP_HIT_SLICE)
    {
      g_autoptr(GMenuItem) note = g_menu_item_new (_("Add _Note to Slice"), NULL);

      g_menu_item_set_action_and_target_value (note, MENU_SLICE_NOTE,
                                               g_variant_new ("(uu)", hit->slice.lane, hit->slice.index));
      g_menu_append_item (section, note);
    }
  if (cp_view_state_get_time_selection (self->view, &a, &b) && b > a)
    g_menu_append (section, _("Add Note to Selected _Range"), MENU_RANGE_NOTE);
}

/* The lane's tooltip would lie over the menu it opened: none while the
 * menu is open. */
static void
menu_closed_cb (CpTimelineView *self)
{
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
}

static void
popup_menu (CpTimelineView *self,
            const CpHit    *hit,
            double          x,
            double          y)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) notes_section = g_menu_new ();
  g_autoptr(GMenu) lane_section = g_menu_new ();
  g_autoptr(GMenu) group_section = g_menu_new ();
  g_autoptr(GMenu) view_section = g_menu_new ();
  GdkRectangle rect = { (int) x, (int) y, 1, 1 };
  gboolean in_time = x >= gutter_width (self);

  self->menu_process = hit->process;
  self->menu_lane = hit->lane;
  if (in_time && (hit->kind == CP_HIT_RULER || hit->kind == CP_HIT_LANE || hit->kind == CP_HIT_SLICE ||
                  hit->kind == CP_HIT_GROUP))
    {
      append_annotation_items (self, notes_section, hit);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (notes_section));
    }
  if (hit->kind == CP_HIT_LANE || hit->kind == CP_HIT_LANE_LABEL || hit->kind == CP_HIT_SLICE)
    {
      g_menu_append (lane_section,
                     cp_view_state_get_lane_pinned (self->view, hit->lane) ? _("_Unpin Lane") : _("_Pin Lane to Top"),
                     "timeline.toggle-pin");
      g_menu_append (lane_section, _("_Hide Lane"), "timeline.hide-lane");
      g_menu_append_section (menu, NULL, G_MENU_MODEL (lane_section));
    }
  if (hit->kind != CP_HIT_RULER)
    {
      g_menu_append (group_section,
                     cp_view_state_get_group_collapsed (self->view, hit->process) ? _("_Expand Group") : _("_Collapse Group"),
                     "timeline.toggle-group");
      g_menu_append_section (menu, NULL, G_MENU_MODEL (group_section));
    }
  if (cp_view_state_get_n_hidden_lanes (self->view) > 0)
    {
      g_menu_append (view_section, _("_Show Hidden Lanes"), "timeline.show-all-lanes");
      g_menu_append_section (menu, NULL, G_MENU_MODEL (view_section));
    }

  if (self->menu == NULL)
    {
      self->menu = gtk_popover_menu_new_from_model (NULL);
      gtk_widget_set_parent (self->menu, GTK_WIDGET (self));
      gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
      gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
      g_signal_connect_object (self->menu, "closed", G_CALLBACK (menu_closed_cb), self, G_CONNECT_SWAPPED);
    }
  /* Turning tooltips off hides the one shown now. */
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), FALSE);
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->menu), G_MENU_MODEL (menu));
  gtk_popover_set_pointing_to (GTK_POPOVER (self->menu), &rect);
  gtk_popover_popup (GTK_POPOVER (self->menu));
}

/* On release: a popover opened on press would take the release of a
 * press it never saw. */
static void
secondary_released_cb (CpTimelineView  *self,
                       int              n_press,
                       double           x,
                       double           y,
                       GtkGestureClick *gesture)
{
  CpHit hit;

  if (!ready (self))
    return;
  hit = hit_at (self, x, y);
  if (hit.kind == CP_HIT_NONE || (hit.kind == CP_HIT_RULER && x < gutter_width (self)) ||
      (hit.kind != CP_HIT_RULER && hit.item < 0))
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  popup_menu (self, &hit, x, y);
}

static void
toggle_pin_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (ready (self))
    cp_view_state_set_lane_pinned (self->view, self->menu_lane,
                                   !cp_view_state_get_lane_pinned (self->view, self->menu_lane));
}

static void
hide_lane_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (ready (self))
    cp_view_state_set_lane_hidden (self->view, self->menu_lane, TRUE);
}

static void
toggle_group_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (ready (self))
    cp_view_state_set_group_collapsed (self->view, self->menu_process,
                                       !cp_view_state_get_group_collapsed (self->view, self->menu_process));
}

static void
show_all_lanes_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (ready (self))
    cp_view_state_show_all_lanes (self->view);
}

/* Scroll and pinch */

gboolean
_cp_timeline_view_scroll (CpTimelineView  *self,
                          double           dx,
                          double           dy,
                          GdkModifierType  state,
                          gboolean         wheel)
{
  double area_w = MAX (gtk_widget_get_width (GTK_WIDGET (self)) - gutter_width (self), 1);

  if (!ready (self))
    return FALSE;

  if (state & GDK_CONTROL_MASK)
    {
      /* Zoom at the pointer: a notch scales by WHEEL_ZOOM, a touchpad
       * follows the finger. */
      double factor = wheel ? pow (WHEEL_ZOOM, dy) : exp (dy * 0.01);

      cp_view_state_zoom_at_x (self->view, factor, anchor_x (self));
      return TRUE;
    }
  if (state & GDK_SHIFT_MASK)
    {
      /* Time pan; a vertical wheel pans horizontally. */
      double d = (fabs (dy) > fabs (dx) ? dy : dx) * (wheel ? area_w * 0.1 : 1);

      cp_view_state_pan_pixels (self->view, d);
      return TRUE;
    }
  if (dx != 0)
    cp_view_state_pan_pixels (self->view, dx * (wheel ? area_w * 0.1 : 1));
  if (dy != 0)
    set_offset (self, cp_view_state_get_vertical_offset (self->view) + dy * (wheel ? WHEEL_STEP : 1));
  return TRUE;
}

static gboolean
scroll_cb (CpTimelineView           *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *scroll)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  gboolean wheel = gtk_event_controller_scroll_get_unit (scroll) == GDK_SCROLL_UNIT_WHEEL;

  return _cp_timeline_view_scroll (self, dx, dy, state, wheel);
}

static void
pinch_begin_cb (CpTimelineView *self,
                GdkEventSequence *sequence,
                GtkGestureZoom *gesture)
{
  double cx = 0, cy = 0;
  double area_w = MAX (gtk_widget_get_width (GTK_WIDGET (self)) - gutter_width (self), 1);

  if (!ready (self))
    return;
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy);
  self->pinch_t0 = cp_view_state_get_visible_start (self->view);
  self->pinch_t1 = cp_view_state_get_visible_end (self->view);
  self->pinch_frac = CLAMP ((cx - gutter_width (self)) / area_w, 0, 1);
}

static void
pinch_scale_changed_cb (CpTimelineView *self,
                        double          scale,
                        GtkGestureZoom *gesture)
{
  double span, new_span, anchor;

  if (!ready (self) || scale <= 0 || self->pinch_t1 <= self->pinch_t0)
    return;
  /* Spreading the fingers (scale > 1) zooms in around the point between
   * them, from where the pinch began. */
  span = (double) (self->pinch_t1 - self->pinch_t0);
  new_span = span / scale;
  anchor = self->pinch_t0 + self->pinch_frac * span;
  new_span = CLAMP (new_span, (double) cp_view_state_get_min_span (self->view),
                    (double) cp_view_state_get_max_span (self->view));
  cp_view_state_set_visible_range (self->view,
                                   (gint64) llround (anchor - self->pinch_frac * new_span),
                                   (gint64) llround (anchor - self->pinch_frac * new_span + new_span));
}

/* Keyboard actions */

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);
  gboolean in = g_str_equal (action_name, "timeline.zoom-in");

  if (ready (self))
    cp_view_state_zoom_at_x (self->view, in ? KEY_ZOOM : 1.0 / KEY_ZOOM, anchor_x (self));
}

static void
pan_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);
  double area_w = MAX (gtk_widget_get_width (widget) - gutter_width (self), 1);
  double sign = g_str_equal (action_name, "timeline.pan-left") ? -1 : 1;

  if (ready (self))
    cp_view_state_pan_pixels (self->view, sign * KEY_PAN * area_w);
}

static void
fit_selection_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (ready (self) && !cp_view_state_fit_selection (self->view))
    gtk_widget_error_bell (widget);
}

static void
fit_all_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (ready (self))
    cp_view_state_fit_all (self->view);
}

/* The slice next to the selected one on its row (siblings at the same
 * depth), in time order. */
static void
step_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);
  gboolean forward = g_str_equal (action_name, "timeline.next-slice");
  CpSliceRef sel;
  const CpSlices *s;
  const CpLodRow *row;
  guint lo = 0, hi;

  if (!ready (self))
    return;
  sel = cp_view_state_get_selected (self->view);
  if (cp_slice_ref_is_none (sel))
    {
      gtk_widget_error_bell (widget);
      return;
    }
  s = cp_lane_get_slices (cp_trace_get_lane (self->trace, sel.lane));
  row = cp_lod_get_row (cp_lod_peek (self->trace), sel.lane, s->row[sel.index]);
  if (row == NULL)
    return;
  /* Position of the selection in its row: slices of a row are sorted by
   * start and do not overlap, so indexes are increasing too. */
  hi = row->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (row->idx[mid] < sel.index)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo >= row->n || row->idx[lo] != sel.index)
    return;
  if (forward ? lo + 1 >= row->n : lo == 0)
    {
      gtk_widget_error_bell (widget);
      return;
    }
  cp_view_state_select_and_reveal (self->view,
                                   (CpSliceRef) { sel.lane, row->idx[forward ? lo + 1 : lo - 1] });
}

static void
scroll_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);
  double page = gtk_adjustment_get_page_size (self->vadj) * 0.9;
  double step;

  if (!ready (self))
    return;
  if (g_str_equal (action_name, "timeline.scroll-up"))
    step = -WHEEL_STEP;
  else if (g_str_equal (action_name, "timeline.scroll-down"))
    step = WHEEL_STEP;
  else if (g_str_equal (action_name, "timeline.page-up"))
    step = -page;
  else
    step = page;
  set_offset (self, cp_view_state_get_vertical_offset (self->view) + step);
}

static void
clear_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (widget);

  if (self->view == NULL)
    return;
  if (self->menu && gtk_widget_get_visible (self->menu))
    {
      gtk_popover_popdown (GTK_POPOVER (self->menu));
      return;
    }
  cp_view_state_set_selected (self->view, CP_SLICE_REF_NONE);
  cp_view_state_clear_time_selection (self->view);
}

/* GObject */

static void
cp_timeline_view_dispose (GObject *object)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (object);

  g_cancellable_cancel (self->index_cancellable);
  g_clear_object (&self->index_cancellable);
  g_clear_pointer (&self->menu, gtk_widget_unparent);
  cp_timeline_view_set_view_state (self, NULL);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->layout, cp_timeline_layout_unref);
  g_clear_pointer (&self->base_node, gsk_render_node_unref);

  G_OBJECT_CLASS (cp_timeline_view_parent_class)->dispose (object);
}

static void
cp_timeline_view_finalize (GObject *object)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (object);

  g_clear_pointer (&self->painter, cp_painter_free);
  g_clear_object (&self->vadj);

  G_OBJECT_CLASS (cp_timeline_view_parent_class)->finalize (object);
}

static void
cp_timeline_view_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_VIEW_STATE:
      g_value_set_object (value, self->view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_timeline_view_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  CpTimelineView *self = CP_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_timeline_view_set_trace (self, g_value_get_object (value));
      break;
    case PROP_VIEW_STATE:
      cp_timeline_view_set_view_state (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
add_key (GtkWidgetClass *widget_class,
         guint           key,
         const char     *action)
{
  gtk_widget_class_add_binding_action (widget_class, key, 0, action, NULL);
}

static void
cp_timeline_view_class_init (CpTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_timeline_view_dispose;
  object_class->finalize = cp_timeline_view_finalize;
  object_class->get_property = cp_timeline_view_get_property;
  object_class->set_property = cp_timeline_view_set_property;

  widget_class->snapshot = cp_timeline_view_snapshot;
  widget_class->size_allocate = cp_timeline_view_size_allocate;
  widget_class->measure = cp_timeline_view_measure;
  widget_class->css_changed = cp_timeline_view_css_changed;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, CP_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL, CP_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The user clicked a slice, which is now the selection: the window shows
   * its details. Selections that panes make do not emit it. */
  signals[SLICE_CLICKED] =
    g_signal_new ("slice-clicked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan-left", NULL, pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan-right", NULL, pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.fit-selection", NULL, fit_selection_action);
  gtk_widget_class_install_action (widget_class, "timeline.fit-all", NULL, fit_all_action);
  gtk_widget_class_install_action (widget_class, "timeline.next-slice", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "timeline.previous-slice", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "timeline.clear", NULL, clear_action);
  gtk_widget_class_install_action (widget_class, "timeline.scroll-up", NULL, scroll_action);
  gtk_widget_class_install_action (widget_class, "timeline.scroll-down", NULL, scroll_action);
  gtk_widget_class_install_action (widget_class, "timeline.page-up", NULL, scroll_action);
  gtk_widget_class_install_action (widget_class, "timeline.page-down", NULL, scroll_action);
  gtk_widget_class_install_action (widget_class, "timeline.toggle-pin", NULL, toggle_pin_action);
  gtk_widget_class_install_action (widget_class, "timeline.hide-lane", NULL, hide_lane_action);
  gtk_widget_class_install_action (widget_class, "timeline.toggle-group", NULL, toggle_group_action);
  gtk_widget_class_install_action (widget_class, "timeline.show-all-lanes", NULL, show_all_lanes_action);

  add_key (widget_class, GDK_KEY_w, "timeline.zoom-in");
  add_key (widget_class, GDK_KEY_W, "timeline.zoom-in");
  add_key (widget_class, GDK_KEY_s, "timeline.zoom-out");
  add_key (widget_class, GDK_KEY_S, "timeline.zoom-out");
  add_key (widget_class, GDK_KEY_a, "timeline.pan-left");
  add_key (widget_class, GDK_KEY_A, "timeline.pan-left");
  add_key (widget_class, GDK_KEY_Left, "timeline.pan-left");
  add_key (widget_class, GDK_KEY_d, "timeline.pan-right");
  add_key (widget_class, GDK_KEY_D, "timeline.pan-right");
  add_key (widget_class, GDK_KEY_Right, "timeline.pan-right");
  add_key (widget_class, GDK_KEY_f, "timeline.fit-selection");
  add_key (widget_class, GDK_KEY_F, "timeline.fit-selection");
  add_key (widget_class, GDK_KEY_0, "timeline.fit-all");
  add_key (widget_class, GDK_KEY_KP_0, "timeline.fit-all");
  add_key (widget_class, GDK_KEY_Home, "timeline.fit-all");
  add_key (widget_class, GDK_KEY_period, "timeline.next-slice");
  add_key (widget_class, GDK_KEY_comma, "timeline.previous-slice");
  add_key (widget_class, GDK_KEY_Escape, "timeline.clear");
  add_key (widget_class, GDK_KEY_Up, "timeline.scroll-up");
  add_key (widget_class, GDK_KEY_Down, "timeline.scroll-down");
  add_key (widget_class, GDK_KEY_Page_Up, "timeline.page-up");
  add_key (widget_class, GDK_KEY_Page_Down, "timeline.page-down");
  /* M marks the moment under the pointer (the window's action). */
  add_key (widget_class, GDK_KEY_m, "win.add-marker");
  add_key (widget_class, GDK_KEY_M, "win.add-marker");
  /* N notes the selected range or slice. */
  add_key (widget_class, GDK_KEY_n, "win.add-note");
  add_key (widget_class, GDK_KEY_N, "win.add-note");

  gtk_widget_class_set_css_name (widget_class, "timeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cp_timeline_view_init (CpTimelineView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->painter = cp_painter_new ();
  self->vadj = g_object_ref_sink (gtk_adjustment_new (0, 0, 1, 1, 1, 1));
  g_signal_connect_object (self->vadj, "value-changed", G_CALLBACK (vadj_value_changed_cb), self,
                           G_CONNECT_SWAPPED);

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Timeline"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Slices of the capture's lanes over time. W and S zoom, A and D pan, "
                                    "F fits the selection, Ctrl+F finds slices."),
                                  -1);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_object (controller, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (controller, "leave", G_CALLBACK (leave_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gesture, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gesture, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_SECONDARY);
  g_signal_connect_object (gesture, "released", G_CALLBACK (secondary_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (controller, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect_object (gesture, "begin", G_CALLBACK (pinch_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gesture, "scale-changed", G_CALLBACK (pinch_scale_changed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
}

GtkWidget *
cp_timeline_view_new (void)
{
  return g_object_new (CP_TYPE_TIMELINE_VIEW, NULL);
}

CpTrace *
cp_timeline_view_get_trace (CpTimelineView *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), NULL);
  return self->trace;
}

void
cp_timeline_view_set_trace (CpTimelineView *self,
                            CpTrace        *trace)
{
  g_return_if_fail (CP_IS_TIMELINE_VIEW (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;
  self->indexing = FALSE;
  self->order_decided = FALSE;
  g_clear_pointer (&self->layout, cp_timeline_layout_unref);
  /* A view state of our own when none was given. */
  if (self->view == NULL && trace != NULL)
    {
      g_autoptr(CpViewState) view = cp_view_state_new ();

      cp_timeline_view_set_view_state (self, view);
    }
  if (self->view && cp_view_state_get_trace (self->view) != trace)
    {
      cp_view_state_set_viewport_width (self->view,
                                        MAX (gtk_widget_get_width (GTK_WIDGET (self)) - gutter_width (self), 1));
      cp_view_state_set_trace (self->view, trace);
    }
  ensure_index (self);
  maybe_order_lanes (self);
  update_adjustment (self);
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

CpViewState *
cp_timeline_view_get_view_state (CpTimelineView *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), NULL);
  return self->view;
}

void
cp_timeline_view_set_view_state (CpTimelineView *self,
                                 CpViewState    *view)
{
  g_return_if_fail (CP_IS_TIMELINE_VIEW (self));
  g_return_if_fail (view == NULL || CP_IS_VIEW_STATE (view));

  if (self->view == view)
    return;
  if (self->view)
    g_clear_signal_handler (&self->view_changed_id, self->view);
  g_set_object (&self->view, view);
  if (view)
    {
      self->view_changed_id = g_signal_connect_object (view, "changed", G_CALLBACK (view_changed_cb), self,
                                                       G_CONNECT_SWAPPED);
      if (gtk_widget_get_width (GTK_WIDGET (self)) > 0)
        cp_view_state_set_viewport_width (view, MAX (gtk_widget_get_width (GTK_WIDGET (self)) - gutter_width (self), 1));
      if (self->trace && cp_view_state_get_trace (view) != self->trace)
        cp_view_state_set_trace (view, self->trace);
    }
  g_clear_pointer (&self->layout, cp_timeline_layout_unref);
  update_adjustment (self);
  invalidate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
}

GtkAdjustment *
cp_timeline_view_get_vadjustment (CpTimelineView *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), NULL);
  return self->vadj;
}

CpTimelineLayout *
cp_timeline_view_get_layout (CpTimelineView *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), NULL);
  return ensure_layout (self);
}

gboolean
cp_timeline_view_get_slice_point (CpTimelineView *self,
                                  CpSliceRef      ref,
                                  double         *x,
                                  double         *y)
{
  CpTimelineLayout *layout;
  double sx, sy, sw, sh;
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));

  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), FALSE);

  layout = ensure_layout (self);
  if (layout == NULL ||
      !cp_painter_slice_rect (self->painter, self->view, layout, w, h, ref, &sx, &sy, &sw, &sh))
    return FALSE;
  /* The middle of the visible part. */
  {
    double a = MAX (sx, gutter_width (self)), b = MIN (sx + sw, w);

    if (x)
      *x = (a + b) / 2;
    if (y)
      *y = sy + sh / 2;
  }
  return TRUE;
}

gboolean
cp_timeline_view_is_ready (CpTimelineView *self)
{
  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), FALSE);
  return ready (self);
}

gboolean
cp_timeline_view_get_pointer_time (CpTimelineView *self,
                                   gint64         *t)
{
  double gw;

  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), FALSE);

  gw = gutter_width (self);
  if (!ready (self) || !self->pointer_inside || self->pointer_x < gw)
    return FALSE;
  if (t != NULL)
    *t = CLAMP ((gint64) cp_view_state_x_to_time (self->view, self->pointer_x - gw), 0,
                cp_trace_get_duration (self->trace));
  return TRUE;
}

gboolean
cp_timeline_view_get_range_rect (CpTimelineView *self,
                                 guint           lane,
                                 gint64          start,
                                 gint64          end,
                                 GdkRectangle   *rect)
{
  CpTimelineLayout *layout;
  double gw, w, h, x0, x1, y = 0, lh;
  gint item = -1;

  g_return_val_if_fail (CP_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (rect != NULL, FALSE);

  layout = ensure_layout (self);
  if (layout == NULL)
    return FALSE;
  gw = gutter_width (self);
  w = gtk_widget_get_width (GTK_WIDGET (self));
  h = gtk_widget_get_height (GTK_WIDGET (self));
  x0 = gw + cp_view_state_time_to_x (self->view, start);
  x1 = gw + cp_view_state_time_to_x (self->view, MAX (end, start));
  if (x1 < gw || x0 > w)
    return FALSE;
  x0 = CLAMP (x0, gw, w - 1);
  x1 = CLAMP (x1, x0 + 1, w);
  lh = cp_timeline_layout_get_metrics (layout)->ruler_height;
  if (lane != CP_LANE_ALL)
    item = cp_timeline_layout_find_lane (layout, lane);
  if (item >= 0)
    {
      double iy, ih;

      if (cp_timeline_layout_item_rect (layout, item, cp_view_state_get_vertical_offset (self->view), h,
                                        &iy, &ih))
        {
          y = iy;
          lh = ih;
        }
    }
  rect->x = (int) floor (x0);
  rect->y = (int) floor (y);
  rect->width = MAX ((int) ceil (x1 - x0), 1);
  rect->height = MAX ((int) lh, 1);
  return TRUE;
}

void
cp_timeline_view_set_auto_lane_order (CpTimelineView *self,
                                      gboolean        auto_order)
{
  g_return_if_fail (CP_IS_TIMELINE_VIEW (self));

  self->auto_order = !!auto_order;
  maybe_order_lanes (self);
}
