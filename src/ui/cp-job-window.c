/* cp-job-window.c: the window of a job and its Ranks page
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "render/cp-time-format.h"

#include "cp-cancel.h"
#include "cp-job-window.h"
#include "cp-style.h"
#include "cp-window.h"

struct _CpJobWindow
{
  AdwApplicationWindow  parent_instance;

  AdwWindowTitle       *title;
  AdwToastOverlay      *toasts;
  GtkStack             *stack;
  AdwStatusPage        *loading_page;
  GtkProgressBar       *progress;
  AdwStatusPage        *failed_page;
  AdwStatusPage        *memory_page;  /* more ranks than memory: which to open */
  GtkWidget            *open_fitting;
  GtkWidget            *open_all;
  GPtrArray            *asked;        /* the files waiting on that page's answer */
  guint                 n_fitting;
  GtkLabel             *notes;
  GtkLabel             *straggler_title;
  GtkLabel             *straggler_summary;
  GtkWidget            *bars;
  GtkWidget            *heat;
  GtkLabel             *heat_info;
  GtkWidget            *timeline;
  AdwPreferencesGroup  *findings;

  GtkListBox           *file_list;    /* one row per file while loading */
  GCancellable         *cancellable;
  guint                 pulse_id;
  guint                 n_files;
  CpJobProgress        *load_progress;
  CpJob                *job;
  CpJobHeatmap          heat_map;
  gboolean              heat_valid;
  CpJobTimeline         timeline_layout;
  gboolean              timeline_valid;
  gint64                view_start;   /* the timeline's range; view_end 0: the whole job */
  gint64                view_end;
  gint64                drag_start;   /* view_start when a pan began */
  double                pointer_x;    /* over the timeline, for the wheel's zoom */
  double                pointer_y;
  CpJobBars             bars_layout;
  gboolean              bars_valid;
  gint                  selected;
  /* Ranks showing their lanes under their row: per rank (job order) its
   * view and layout (NULL while closed) and the band's height (0). */
  CpPainter            *painter;
  CpViewState         **rank_views;
  CpTimelineLayout    **rank_layouts;
  double               *bands;
};

/* The tallest band of lanes: more lanes scroll inside it. */
#define BAND_MAX_HEIGHT 360.0

G_DEFINE_FINAL_TYPE (CpJobWindow, cp_job_window, ADW_TYPE_APPLICATION_WINDOW)

/* Drawing ------------------------------------------------------------------------- */

static void
draw_bars (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        data)
{
  CpJobWindow *self = data;
  g_autoptr(PangoLayout) layout = NULL;

  if (self->job == NULL)
    return;
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), NULL);
  cp_job_bars_layout (self->job, layout, 0, 8, width, height - 8 - (cp_job_bars_natural_height (self->job, width) - 220),
                      &self->bars_layout);
  self->bars_valid = TRUE;
  cp_job_bars_draw (&self->bars_layout, self->job, cr, layout,
                    cp_ui_widget_is_dark (GTK_WIDGET (area)) ? CP_THEME_DARK : CP_THEME_LIGHT);
}

static void
draw_heat (GtkDrawingArea *area,
           cairo_t        *cr,
           int             width,
           int             height,
           gpointer        data)
{
  CpJobWindow *self = data;
  g_autoptr(PangoLayout) layout = NULL;

  if (self->job == NULL)
    return;
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), NULL);
  cp_job_heatmap_layout (self->job, layout, 0, 0, width, &self->heat_map);
  self->heat_valid = TRUE;
  cp_job_heatmap_draw (&self->heat_map, self->job, cr, layout,
                       cp_ui_widget_is_dark (GTK_WIDGET (area)) ? CP_THEME_DARK : CP_THEME_LIGHT, self->selected);
}

/* The job timeline's rows with the bands open now. */
static void
lay_out_timeline (CpJobWindow   *self,
                  PangoLayout   *layout,
                  double         width,
                  CpJobTimeline *out)
{
  cp_job_timeline_layout (self->job, layout, 0, 0, width, cp_painter_get_metrics (self->painter)->gutter_width,
                          self->bands, out);
}

/* The timeline's height follows the bands open. */
static void
update_timeline_height (CpJobWindow *self)
{
  CpJobTimeline tl;
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (self->timeline, NULL);

  lay_out_timeline (self, layout, 800, &tl);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->timeline), (int) tl.total_height + 4);
  self->timeline_valid = FALSE;
  gtk_widget_queue_draw (self->timeline);
}

/* A rank's band after its lanes changed (a group folded or unfolded). */
static void
relayout_band (CpJobWindow *self,
               guint        k)
{
  double max;

  g_clear_pointer (&self->rank_layouts[k], cp_timeline_layout_unref);
  self->rank_layouts[k] = cp_timeline_layout_new (self->rank_views[k], cp_painter_get_metrics (self->painter));
  self->bands[k] = cp_job_timeline_band_natural_height (self->rank_layouts[k], BAND_MAX_HEIGHT);
  max = cp_timeline_layout_get_max_offset (self->rank_layouts[k],
                                           cp_painter_get_metrics (self->painter)->ruler_height + self->bands[k]);
  if (cp_view_state_get_vertical_offset (self->rank_views[k]) > max)
    cp_view_state_set_vertical_offset (self->rank_views[k], max);
  update_timeline_height (self);
}

void
cp_job_window_show_rank_lanes (CpJobWindow *self,
                               guint        index,
                               gboolean     shown)
{
  g_return_if_fail (CP_IS_JOB_WINDOW (self));
  g_return_if_fail (self->job != NULL && index < cp_job_get_n_ranks (self->job));

  if (shown == (self->rank_views[index] != NULL))
    return;
  if (shown)
    {
      CpViewState *view = cp_view_state_new ();

      cp_view_state_set_trace (view, cp_job_get_rank (self->job, index)->trace);
      cp_view_state_set_devices_first (view, TRUE);
      if (self->selected >= 0)
        cp_view_state_set_selected (view, cp_job_get_collective (self->job, self->selected)->slices[index]);
      self->rank_views[index] = view;
      relayout_band (self, index);
      return;
    }
  g_clear_pointer (&self->rank_layouts[index], cp_timeline_layout_unref);
  g_clear_object (&self->rank_views[index]);
  self->bands[index] = 0;
  update_timeline_height (self);
}

CpViewState *
cp_job_window_get_rank_view (CpJobWindow *self,
                             guint        index)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), NULL);

  if (self->job == NULL || index >= cp_job_get_n_ranks (self->job))
    return NULL;
  return self->rank_views[index];
}

gboolean
cp_job_window_get_rank_slice_rect (CpJobWindow *self,
                                   guint        index,
                                   CpSliceRef   ref,
                                   double      *x,
                                   double      *y,
                                   double      *w,
                                   double      *h)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), FALSE);

  if (!self->timeline_valid || cp_job_window_get_rank_view (self, index) == NULL)
    return FALSE;
  return cp_job_timeline_band_slice_rect (&self->timeline_layout, self->job, index, self->painter,
                                          self->rank_views[index], self->rank_layouts[index], ref, x, y, w, h);
}

static void
draw_timeline (GtkDrawingArea *area,
               cairo_t        *cr,
               int             width,
               int             height,
               gpointer        data)
{
  CpJobWindow *self = data;
  g_autoptr(PangoLayout) layout = NULL;
  CpTheme theme;

  if (self->job == NULL)
    return;
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), NULL);
  lay_out_timeline (self, layout, width, &self->timeline_layout);
  if (self->view_end > self->view_start)
    cp_job_timeline_set_range (&self->timeline_layout, self->view_start, self->view_end);
  self->timeline_valid = TRUE;
  theme = cp_ui_widget_is_dark (GTK_WIDGET (area)) ? CP_THEME_DARK : CP_THEME_LIGHT;
  cp_job_timeline_draw (&self->timeline_layout, self->job, cr, layout, theme, self->selected);
  cp_painter_set_theme (self->painter, theme);
  for (guint k = 0; k < self->timeline_layout.n_ranks; k++)
    if (self->rank_views[k] != NULL)
      cp_job_timeline_draw_band (&self->timeline_layout, self->job, k, self->painter, self->rank_views[k],
                                 self->rank_layouts[k], cr);
}

/* What a cell of the heat map says. */
static char *
describe_cell (CpJob *job,
               guint  c,
               guint  k)
{
  const CpJobCollective *jc = cp_job_get_collective (job, c);
  g_autofree char *delay = cp_time_format_duration (cp_job_chart_delay (job, c, k));
  g_autofree char *skew = cp_time_format_duration (jc->skew);

  /* Translators: the heat map's cell under the pointer: collective number,
   * its name, the process group, the rank, its delay, the last rank, the
   * skew. */
  return g_strdup_printf (_("Collective %u (%s, group %s): rank %d arrived %s after the first. "
                            "Rank %d came last; skew %s."),
                          jc->index, jc->name, jc->group, cp_job_get_rank (job, k)->rank, delay,
                          cp_job_get_rank (job, jc->last_rank)->rank, skew);
}

/* The collective selected on the heat map and the timeline alike. */
static void
select_collective (CpJobWindow *self,
                   guint        c)
{
  if (self->selected == (gint) c)
    return;
  self->selected = c;
  for (guint k = 0; k < cp_job_get_n_ranks (self->job); k++)
    if (self->rank_views[k] != NULL)
      cp_view_state_set_selected (self->rank_views[k], cp_job_get_collective (self->job, c)->slices[k]);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "job.zoom-collective", TRUE);
  gtk_widget_queue_draw (self->heat);
  gtk_widget_queue_draw (self->timeline);
}

static void
show_cell (CpJobWindow *self,
           double       x,
           double       y,
           gboolean     select)
{
  guint c, k;
  g_autofree char *text = NULL;

  if (self->job == NULL || !self->heat_valid || !cp_job_heatmap_hit (&self->heat_map, x, y, &c, &k))
    return;
  text = describe_cell (self->job, c, k);
  gtk_label_set_text (self->heat_info, text);
  if (select)
    select_collective (self, c);
}

/* Zoom and pan --------------------------------------------------------------------------- */

/* The range shown: the window's, else the whole job's. */
static void
view_range (CpJobWindow *self,
            gint64      *start,
            gint64      *end)
{
  CpJobTimeline tl;

  if (self->job == NULL)
    {
      *start = *end = 0;
      return;
    }
  /* The layout's extent, without drawing: the rows' width does not matter. */
  tl.n_ranks = 0;
  tl.full_start = 0;
  tl.full_end = 1;
  for (guint k = 0; k < cp_job_get_n_ranks (self->job); k++)
    tl.full_end = MAX (tl.full_end, cp_job_rank_to_job_offset (self->job, k) +
                                    cp_trace_get_duration (cp_job_get_rank (self->job, k)->trace));
  tl.start = tl.full_start;
  tl.end = tl.full_end;
  if (self->view_end > self->view_start)
    cp_job_timeline_set_range (&tl, self->view_start, self->view_end);
  *start = tl.start;
  *end = tl.end;
}

static void
set_view (CpJobWindow *self,
          gint64       start,
          gint64       end)
{
  gint64 s, e;

  self->view_start = start;
  self->view_end = end;
  /* Kept inside the job, as the layout will draw it. */
  view_range (self, &s, &e);
  self->view_start = s;
  self->view_end = e;
  gtk_widget_queue_draw (self->timeline);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "job.zoom-collective", self->selected >= 0);
}

/* Zooms by factor (< 1 in) around the job time at. */
static void
zoom_around (CpJobWindow *self,
             gint64       at,
             double       factor)
{
  gint64 start, end;
  double span;

  view_range (self, &start, &end);
  span = (double) (end - start);
  /* The span rounded up, so that zooming out undoes zooming in. */
  set_view (self, at - (gint64) ((at - start) * factor), at - (gint64) ((at - start) * factor) + (gint64) ceil (span * factor));
}

static void
zoom_action (GtkWidget  *widget,
             const char *action,
             GVariant   *param)
{
  CpJobWindow *self = CP_JOB_WINDOW (widget);
  gint64 start, end;

  if (self->job == NULL)
    return;
  view_range (self, &start, &end);
  if (g_str_equal (action, "job.zoom-in"))
    zoom_around (self, start + (end - start) / 2, 0.5);
  else if (g_str_equal (action, "job.zoom-out"))
    zoom_around (self, start + (end - start) / 2, 2.0);
  else if (g_str_equal (action, "job.zoom-fit"))
    set_view (self, 0, 0);
  else if (self->selected >= 0)
    {
      cp_job_timeline_collective_range (self->job, self->selected, &start, &end);
      set_view (self, start, end);
    }
}

/* Ctrl and the wheel zoom around the pointer; the wheel alone scrolls the
 * page. */
static gboolean
timeline_scroll (GtkEventControllerScroll *scroll,
                 double                    dx,
                 double                    dy,
                 CpJobWindow              *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  double x = self->pointer_x;
  guint k;
  gboolean in_band;

  if (!self->timeline_valid || dy == 0)
    return FALSE;
  /* The wheel over a band with more lanes than it shows scrolls them, up
   * to their ends, then the page. */
  if (!(mods & GDK_CONTROL_MASK))
    {
      CpViewState *view;
      double offset, max;

      if (!cp_job_timeline_rank_at (&self->timeline_layout, self->pointer_y, &k, &in_band) || !in_band)
        return FALSE;
      view = self->rank_views[k];
      max = cp_timeline_layout_get_max_offset (self->rank_layouts[k],
                                               cp_painter_get_metrics (self->painter)->ruler_height + self->bands[k]);
      offset = CLAMP (cp_view_state_get_vertical_offset (view) + dy * 40, 0, max);
      if (offset == cp_view_state_get_vertical_offset (view))
        return FALSE;
      cp_view_state_set_vertical_offset (view, offset);
      gtk_widget_queue_draw (self->timeline);
      return TRUE;
    }
  if (x < self->timeline_layout.x || x > self->timeline_layout.x + self->timeline_layout.width)
    x = self->timeline_layout.x + self->timeline_layout.width / 2;
  zoom_around (self, cp_job_timeline_time_at (&self->timeline_layout, x), dy < 0 ? 0.8 : 1.25);
  return TRUE;
}

static void
timeline_motion (GtkEventControllerMotion *motion,
                 double                    x,
                 double                    y,
                 CpJobWindow              *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

static void
timeline_drag_begin (GtkGestureDrag *drag,
                     double          x,
                     double          y,
                     CpJobWindow    *self)
{
  gint64 end;

  view_range (self, &self->drag_start, &end);
}

/* Dragging moves the range with the pointer. */
static void
timeline_drag_update (GtkGestureDrag *drag,
                      double          dx,
                      double          dy,
                      CpJobWindow    *self)
{
  gint64 start, end, shift;

  if (!self->timeline_valid || dx == 0)
    return;
  view_range (self, &start, &end);
  shift = (gint64) (dx / MAX (self->timeline_layout.width, 1.0) * (double) (end - start));
  set_view (self, self->drag_start - shift, self->drag_start - shift + (end - start));
}

/* Opening one rank ------------------------------------------------------------------------ */

typedef struct
{
  gint64 start, end;    /* in the rank's own time */
} RankRange;

static void
rank_trace_cb (CpWindow   *window,
               GParamSpec *pspec,
               RankRange  *range)
{
  if (cp_window_get_trace (window) == NULL)
    return;
  cp_view_state_set_visible_range (cp_window_get_view_state (window), range->start, range->end);
  g_signal_handlers_disconnect_by_func (window, rank_trace_cb, range);
}

void
cp_job_window_open_rank (CpJobWindow *self,
                         guint        index)
{
  const CpJobRank *r;
  g_autoptr(GFile) file = NULL;
  GtkApplication *app;
  CpWindow *window;
  RankRange *range;
  gint64 start, end, off;

  g_return_if_fail (CP_IS_JOB_WINDOW (self));
  g_return_if_fail (self->job != NULL && index < cp_job_get_n_ranks (self->job));

  app = gtk_window_get_application (GTK_WINDOW (self));
  if (!CP_IS_APPLICATION (app))
    return;
  r = cp_job_get_rank (self->job, index);
  file = g_file_parse_name (r->path);
  off = cp_job_rank_to_job_offset (self->job, index);
  view_range (self, &start, &end);
  range = g_new (RankRange, 1);
  range->start = start - off;
  range->end = end - off;
  window = cp_window_new (CP_APPLICATION (app));
  g_signal_connect_data (window, "notify::trace", G_CALLBACK (rank_trace_cb), range,
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
}

/* What a slice of a rank's band is, for the label under the heat map. */
static char *
describe_slice (CpJob      *job,
                guint       k,
                CpSliceRef  ref)
{
  CpTrace *trace = cp_job_get_rank (job, k)->trace;
  const CpSlices *sl = cp_lane_get_slices (cp_trace_get_lane (trace, ref.lane));
  g_autofree char *lane = cp_timeline_lane_label (trace, ref.lane);
  g_autofree char *dur = cp_time_format_duration (cp_slices_get_end (sl, ref.index) -
                                                  cp_slices_get_start (sl, ref.index));

  /* Translators: a slice of a rank's lanes: rank, slice name, lane, duration. */
  return g_strdup_printf (_("Rank %d: %s on %s, %s"), cp_job_get_rank (job, k)->rank,
                          cp_trace_get_string (trace, cp_slices_get_name (sl, ref.index)), lane, dur);
}

/* A click in a rank's band: a group's header folds or unfolds it, a slice
 * is selected (with its collective, when it is one). */
static void
band_pressed (CpJobWindow *self,
              guint        k,
              double       x,
              double       y)
{
  CpHit hit;

  if (!cp_job_timeline_band_hit (&self->timeline_layout, self->job, k, self->rank_views[k], self->rank_layouts[k],
                                 x, y, &hit))
    return;
  if (hit.kind == CP_HIT_GROUP)
    {
      cp_view_state_set_group_collapsed (self->rank_views[k], hit.process,
                                         !cp_view_state_get_group_collapsed (self->rank_views[k], hit.process));
      relayout_band (self, k);
    }
  else if (hit.kind == CP_HIT_SLICE)
    {
      g_autofree char *text = describe_slice (self->job, k, hit.slice);

      for (guint c = 0; c < cp_job_get_n_collectives (self->job); c++)
        if (cp_job_get_collective (self->job, c)->slices[k].lane == hit.slice.lane &&
            cp_job_get_collective (self->job, c)->slices[k].index == hit.slice.index)
          {
            select_collective (self, c);
            break;
          }
      cp_view_state_set_selected (self->rank_views[k], hit.slice);
      gtk_label_set_text (self->heat_info, text);
      gtk_widget_queue_draw (self->timeline);
    }
}

static void
timeline_pressed (GtkGestureClick *click,
                  int              n_press,
                  double           x,
                  double           y,
                  CpJobWindow     *self)
{
  guint c, k;
  gboolean in_band;
  g_autofree char *text = NULL;
  const CpJobTimeline *tl = &self->timeline_layout;

  if (self->job == NULL || !self->timeline_valid || !cp_job_timeline_rank_at (tl, y, &k, &in_band))
    return;
  /* A double click on a rank's row or band opens its capture at the range
   * shown. */
  if (n_press == 2 && x >= tl->x)
    {
      cp_job_window_open_rank (self, k);
      return;
    }
  if (n_press != 1)
    return;
  if (in_band)
    {
      band_pressed (self, k, x, y);
      return;
    }
  /* A click on a rank's name opens or closes its lanes. */
  if (x < tl->x)
    {
      cp_job_window_show_rank_lanes (self, k, self->rank_views[k] == NULL);
      return;
    }
  if (!cp_job_timeline_hit (tl, self->job, x, y, &c, &k))
    return;
  text = describe_cell (self->job, c, k);
  gtk_label_set_text (self->heat_info, text);
  select_collective (self, c);
}

static void
heat_motion (GtkEventControllerMotion *motion,
             double                    x,
             double                    y,
             CpJobWindow              *self)
{
  show_cell (self, x, y, FALSE);
}

static void
heat_pressed (GtkGestureClick *click,
              int              n_press,
              double           x,
              double           y,
              CpJobWindow     *self)
{
  show_cell (self, x, y, TRUE);
}

static gboolean
bars_tooltip (GtkWidget   *widget,
              int          x,
              int          y,
              gboolean     keyboard,
              GtkTooltip  *tooltip,
              CpJobWindow *self)
{
  GString *text;
  guint k;
  g_autofree char *step = NULL;

  if (self->job == NULL || !self->bars_valid || !cp_job_bars_hit (&self->bars_layout, self->job, x, y, &k))
    return FALSE;
  step = cp_time_format_duration (cp_job_bars_rank_step (self->job, k));
  text = g_string_new (NULL);
  /* Translators: the tooltip of a rank's bar. */
  g_string_append_printf (text, _("Rank %d: mean step %s"), cp_job_get_rank (self->job, k)->rank, step);
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      gint64 v = cp_job_bars_rank_part (self->job, k, c);
      g_autofree char *d = NULL;

      if (v <= 0)
        continue;
      d = cp_time_format_duration (v);
      g_string_append_printf (text, "\n%s: %s", cp_time_category_get_label (c), d);
    }
  gtk_tooltip_set_text (tooltip, text->str);
  g_string_free (text, TRUE);
  return TRUE;
}

/* The page --------------------------------------------------------------------------- */

static void
fill_findings (CpJobWindow *self)
{
  CpFramework order[CP_N_FRAMEWORKS];
  guint lead = cp_analysis_get_fix_order (cp_job_get_rank (self->job, 0)->analysis, order);

  if (cp_job_get_n_findings (self->job) == 0)
    {
      AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("No problems found across the ranks."));
      adw_preferences_group_add (self->findings, GTK_WIDGET (row));
      return;
    }
  for (guint i = 0; i < cp_job_get_n_findings (self->job); i++)
    {
      const CpJobFinding *f = cp_job_get_finding (self->job, i);
      GtkWidget *row = adw_expander_row_new ();
      GtkWidget *what = adw_action_row_new ();
      g_autofree char *title = g_markup_escape_text (f->title, -1);
      g_autofree char *summary = g_markup_escape_text (f->summary, -1);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), cp_severity_get_label (f->severity));
      adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), i == 0);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (what), _("What happened"));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (what), summary);
      adw_expander_row_add_row (ADW_EXPANDER_ROW (row), what);
      for (guint o = 0; o < CP_N_FRAMEWORKS; o++)
        {
          CpFramework fw = order[o];

          if (lead > 0 && o >= lead)
            break;
          for (guint j = 0; j < 3 && f->fixes[fw][j] != NULL; j++)
            {
              GtkWidget *fix = adw_action_row_new ();
              g_autofree char *label = g_strdup_printf (_("Fix (%s)"), cp_framework_get_label (fw));
              g_autofree char *text = g_markup_escape_text (_(f->fixes[fw][j]), -1);

              adw_preferences_row_set_title (ADW_PREFERENCES_ROW (fix), label);
              adw_action_row_set_subtitle (ADW_ACTION_ROW (fix), text);
              adw_expander_row_add_row (ADW_EXPANDER_ROW (row), fix);
            }
        }
      adw_preferences_group_add (self->findings, row);
    }
}

static void
show_job (CpJobWindow *self)
{
  CpJob *job = self->job;
  const CpJobFinding *straggler = cp_job_find_finding (job, "job-straggler");
  const char * const *notes = cp_job_get_notes (job);
  guint n = cp_job_get_n_ranks (job);
  g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Job of %u rank", "Job of %u ranks", n), n);

  adw_window_title_set_title (self->title, title);
  gtk_window_set_title (GTK_WINDOW (self), title);

  if (notes[0] != NULL)
    {
      g_autofree char *text = g_strjoinv ("\n", (char **) notes);
      g_autofree char *toast = NULL;
      guint n_notes = g_strv_length ((char **) notes);

      gtk_label_set_text (self->notes, text);
      gtk_widget_set_visible (GTK_WIDGET (self->notes), TRUE);
      if (n_notes == 1)
        toast = g_strdup (notes[0]);
      else
        /* Translators: a toast when ranks of a job were guessed or left
         * out: the first note, then how many more the page lists. */
        toast = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (and %u more note on the page)",
                                              "%s (and %u more notes on the page)", n_notes - 1),
                                 notes[0], n_notes - 1);
      adw_toast_overlay_add_toast (self->toasts, adw_toast_new (toast));
    }
  if (straggler != NULL)
    {
      gtk_label_set_text (self->straggler_title, straggler->title);
      gtk_label_set_text (self->straggler_summary, straggler->summary);
    }
  else
    {
      gtk_label_set_text (self->straggler_title, _("No straggler"));
      gtk_label_set_text (self->straggler_summary,
                          _("No rank is late to the collectives more than the others."));
    }
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->bars),
                                       (int) cp_job_bars_natural_height (job, 800) + 8);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->heat),
                                       (int) cp_job_heatmap_natural_height (job, 800) + 4);
  self->rank_views = g_new0 (CpViewState *, n);
  self->rank_layouts = g_new0 (CpTimelineLayout *, n);
  self->bands = g_new0 (double, n);
  update_timeline_height (self);
  if (cp_job_get_n_collectives (job) == 0)
    gtk_label_set_text (self->heat_info, _("The ranks have no collective in common."));
  else
    gtk_label_set_text (self->heat_info, _("Point at a cell for its collective, rank and delay; click to select "
                                           "the collective."));
  fill_findings (self);
  gtk_stack_set_visible_child_name (self->stack, "ranks");
}

/* Loading ------------------------------------------------------------------------------- */

/* A file's share read and analysed, for its bar and the whole one: reading
 * is nine tenths of the work, the analysis the last tenth. */
static double
file_fraction (CpJobFileState state,
               guint64        done,
               guint64        total)
{
  switch (state)
    {
    case CP_JOB_FILE_WAITING:
      return 0;
    case CP_JOB_FILE_READING:
      return total > 0 ? 0.9 * MIN (done, total) / total : 0;
    case CP_JOB_FILE_ANALYSING:
      return 0.9;
    case CP_JOB_FILE_DONE:
    case CP_JOB_FILE_FAILED:
    default:
      return 1;
    }
}

static char *
file_state_text (CpJobFileState state,
                 guint64        done,
                 guint64        total)
{
  switch (state)
    {
    case CP_JOB_FILE_WAITING:
      return g_strdup (_("Waiting"));
    case CP_JOB_FILE_READING:
      if (total == 0)
        return g_strdup (_("Reading"));
      /* Translators: a rank's file being read, with how much of it is. */
      return g_strdup_printf (_("Reading, %.0f%%"), 100.0 * MIN (done, total) / total);
    case CP_JOB_FILE_ANALYSING:
      return g_strdup (_("Analysing"));
    case CP_JOB_FILE_DONE:
      return g_strdup (_("Read"));
    case CP_JOB_FILE_FAILED:
    default:
      return g_strdup (_("Left out"));
    }
}

/* Each file's row and the whole bar, from what the reading threads wrote. */
static gboolean
pulse (gpointer data)
{
  CpJobWindow *self = data;
  guint n = self->load_progress != NULL ? cp_job_progress_get_n_files (self->load_progress) : 0;
  double sum = 0;
  guint finished = 0;

  for (guint i = 0; i < n; i++)
    {
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->file_list, (int) i);
      guint64 done, total;
      CpJobFileState state = cp_job_progress_get_file (self->load_progress, i, &done, &total);
      g_autofree char *text = file_state_text (state, done, total);
      double f = file_fraction (state, done, total);

      sum += f;
      finished += state >= CP_JOB_FILE_DONE;
      if (row == NULL)
        continue;
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
      gtk_progress_bar_set_fraction (g_object_get_data (G_OBJECT (row), "cp-bar"), f);
    }
  if (n > 0)
    {
      g_autofree char *text = g_strdup_printf (_("%u of %u read"), finished, n);

      gtk_progress_bar_set_fraction (self->progress, sum / n);
      gtk_progress_bar_set_text (self->progress, text);
    }
  return G_SOURCE_CONTINUE;
}

static void
stop_pulse (CpJobWindow *self)
{
  if (self->pulse_id != 0)
    {
      g_source_remove (self->pulse_id);
      self->pulse_id = 0;
    }
}

/* A row per file on the loading page, in the order given. */
static void
fill_file_list (CpJobWindow *self,
                GPtrArray   *files)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->file_list))) != NULL)
    gtk_list_box_remove (self->file_list, child);
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *name = g_file_get_basename (g_ptr_array_index (files, i));
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *bar = gtk_progress_bar_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name != NULL ? name : "?");
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Waiting"));
      gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
      gtk_widget_set_size_request (bar, 120, -1);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), bar);
      g_object_set_data (G_OBJECT (row), "cp-bar", bar);
      gtk_list_box_append (self->file_list, row);
    }
}

static void
opened_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(CpJobWindow) self = data;
  g_autoptr(GError) error = NULL;
  CpJob *job = cp_job_open_finish (result, &error);

  stop_pulse (self);
  pulse (self);
  g_clear_object (&self->cancellable);
  if (job == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          adw_status_page_set_title (self->failed_page, _("Opening Cancelled"));
          adw_status_page_set_description (self->failed_page, _("No rank of the job was opened."));
        }
      else
        {
          adw_status_page_set_title (self->failed_page, _("The Job Could Not Be Opened"));
          adw_status_page_set_description (self->failed_page, error->message);
        }
      gtk_stack_set_visible_child_name (self->stack, "failed");
      return;
    }
  self->job = job;
  show_job (self);
}

static void start_reading (CpJobWindow *self,
                           GPtrArray   *list);

static void
memory_answer_cb (GtkButton   *button,
                  CpJobWindow *self)
{
  g_autoptr(GPtrArray) list = g_steal_pointer (&self->asked);

  if (list == NULL)
    return;
  if (GTK_WIDGET (button) == self->open_fitting)
    g_ptr_array_set_size (list, self->n_fitting);
  start_reading (self, list);
}

void
cp_job_window_open (CpJobWindow   *self,
                    GFile * const *files,
                    guint          n_files)
{
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *subtitle = NULL;

  g_return_if_fail (CP_IS_JOB_WINDOW (self));
  g_return_if_fail (n_files > 0);
  g_return_if_fail (self->job == NULL && self->cancellable == NULL);

  if (n_files == 1)
    {
      list = cp_job_list_folder (files[0], &error);
      subtitle = g_file_get_basename (files[0]);
      if (list == NULL)
        {
          adw_status_page_set_title (self->failed_page, _("The Job Could Not Be Opened"));
          adw_status_page_set_description (self->failed_page, error->message);
          gtk_stack_set_visible_child_name (self->stack, "failed");
          return;
        }
    }
  else
    {
      g_autoptr(GFile) parent = g_file_get_parent (files[0]);

      list = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < n_files; i++)
        g_ptr_array_add (list, g_object_ref (files[i]));
      subtitle = parent != NULL ? g_file_get_basename (parent) : NULL;
    }
  adw_window_title_set_subtitle (self->title, subtitle != NULL ? subtitle : "");

  /* More than the machine has free: ask which ranks to read. */
  {
    guint64 available = cp_job_memory_available (), need = 0, need_fit = 0;
    guint fit = cp_job_count_fitting ((GFile * const *) list->pdata, list->len, available, &need, &need_fit);

    if (fit < list->len)
      {
        g_autofree char *s_need = g_format_size (need);
        g_autofree char *s_free = g_format_size (available);
        g_autofree char *s_fit = g_format_size (need_fit);
        g_autofree char *text = NULL;
        g_autofree char *fitting = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Open the _First Rank",
                                                                 "Open the _First %u Ranks", fit), fit);
        g_autofree char *all = g_strdup_printf (_("Open _All %u Anyway"), list->len);

        if (fit > 0)
          text = g_strdup_printf (_("The %u ranks need about %s of memory once read, and %s is free. "
                                    "The first %u (about %s) fit."), list->len, s_need, s_free, fit, s_fit);
        else
          text = g_strdup_printf (_("The %u ranks need about %s of memory once read, and %s is free. "
                                    "Not even the first fits."), list->len, s_need, s_free);
        adw_status_page_set_description (self->memory_page, text);
        gtk_button_set_label (GTK_BUTTON (self->open_fitting), fitting);
        gtk_button_set_label (GTK_BUTTON (self->open_all), all);
        gtk_widget_set_visible (self->open_fitting, fit > 0);
        g_clear_pointer (&self->asked, g_ptr_array_unref);
        self->asked = g_steal_pointer (&list);
        self->n_fitting = fit;
        gtk_stack_set_visible_child_name (self->stack, "memory");
        return;
      }
  }
  start_reading (self, list);
}

/* Reads the ranks of list in parallel, the loading page showing each. */
static void
start_reading (CpJobWindow *self,
               GPtrArray   *list)
{
  g_autofree char *what = NULL;

  self->n_files = list->len;
  what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Reading %u rank in parallel…",
                                       "Reading %u ranks in parallel…", list->len), list->len);
  adw_status_page_set_title (self->loading_page, what);
  gtk_stack_set_visible_child_name (self->stack, "loading");
  self->cancellable = g_cancellable_new ();
  g_clear_pointer (&self->load_progress, cp_job_progress_unref);
  self->load_progress = cp_job_progress_new (list->len);
  fill_file_list (self, list);
  gtk_progress_bar_set_fraction (self->progress, 0);
  self->pulse_id = g_timeout_add (100, pulse, self);
  {
    CpJobOptions options = { TRUE, self->load_progress };

    cp_job_open_async ((GFile * const *) list->pdata, list->len, &options, self->cancellable, opened_cb,
                       g_object_ref (self));
  }
}

void
cp_job_window_cancel (CpJobWindow *self)
{
  g_return_if_fail (CP_IS_JOB_WINDOW (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

gboolean
cp_job_window_is_loading (CpJobWindow *self)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), FALSE);
  return self->cancellable != NULL;
}

CpJob *
cp_job_window_get_job (CpJobWindow *self)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), NULL);
  return self->job;
}

gboolean
cp_job_window_get_heatmap (CpJobWindow  *self,
                           CpJobHeatmap *map)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), FALSE);

  if (!self->heat_valid)
    return FALSE;
  *map = self->heat_map;
  return TRUE;
}

gboolean
cp_job_window_get_timeline (CpJobWindow   *self,
                            CpJobTimeline *timeline)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), FALSE);

  if (!self->timeline_valid)
    return FALSE;
  *timeline = self->timeline_layout;
  return TRUE;
}

void
cp_job_window_get_visible_range (CpJobWindow *self,
                                 gint64      *start,
                                 gint64      *end)
{
  g_return_if_fail (CP_IS_JOB_WINDOW (self));
  view_range (self, start, end);
}

gint
cp_job_window_get_selected_collective (CpJobWindow *self)
{
  g_return_val_if_fail (CP_IS_JOB_WINDOW (self), -1);
  return self->selected;
}

/* The widget ------------------------------------------------------------------------------ */

static void
cancel_clicked (CpJobWindow *self)
{
  cp_job_window_cancel (self);
}

static void
cp_job_window_dispose (GObject *object)
{
  CpJobWindow *self = CP_JOB_WINDOW (object);

  stop_pulse (self);
  cp_ui_cancel (&self->cancellable);
  for (guint k = 0; self->rank_views != NULL && k < cp_job_get_n_ranks (self->job); k++)
    {
      g_clear_object (&self->rank_views[k]);
      g_clear_pointer (&self->rank_layouts[k], cp_timeline_layout_unref);
    }
  g_clear_pointer (&self->rank_views, g_free);
  g_clear_pointer (&self->rank_layouts, g_free);
  g_clear_pointer (&self->bands, g_free);
  g_clear_pointer (&self->painter, cp_painter_free);
  g_clear_object (&self->job);
  g_clear_pointer (&self->load_progress, cp_job_progress_unref);
  g_clear_pointer (&self->asked, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_JOB_WINDOW);
  G_OBJECT_CLASS (cp_job_window_parent_class)->dispose (object);
}

static void
cp_job_window_class_init (CpJobWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = cp_job_window_dispose;
  gtk_widget_class_install_action (widget_class, "job.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "job.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "job.zoom-fit", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "job.zoom-collective", NULL, zoom_action);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-job-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, title);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, toasts);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, loading_page);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, progress);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, failed_page);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, memory_page);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, open_fitting);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, open_all);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, file_list);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, notes);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, straggler_title);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, straggler_summary);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, bars);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, heat);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, heat_info);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, CpJobWindow, findings);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked);
  gtk_widget_class_bind_template_callback (widget_class, memory_answer_cb);
  gtk_widget_class_bind_template_callback (widget_class, bars_tooltip);
  gtk_widget_class_bind_template_callback (widget_class, heat_motion);
  gtk_widget_class_bind_template_callback (widget_class, heat_pressed);
  gtk_widget_class_bind_template_callback (widget_class, timeline_pressed);
  gtk_widget_class_bind_template_callback (widget_class, timeline_scroll);
  gtk_widget_class_bind_template_callback (widget_class, timeline_motion);
  gtk_widget_class_bind_template_callback (widget_class, timeline_drag_begin);
  gtk_widget_class_bind_template_callback (widget_class, timeline_drag_update);
}

static void
cp_job_window_init (CpJobWindow *self)
{
  self->selected = -1;
  self->painter = cp_painter_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "job.zoom-collective", FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->bars), draw_bars, self, NULL);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->heat), draw_heat, self, NULL);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->timeline), draw_timeline, self, NULL);
}

CpJobWindow *
cp_job_window_new (CpApplication *application)
{
  return g_object_new (CP_TYPE_JOB_WINDOW, "application", application, NULL);
}
