/* test-widgets.c: the timeline, the steps chart and Find, each alone
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No application and no CpWindow: one widget in a plain GtkWindow, on a
 * small trace built here, driven through its own gestures, keys and
 * signals. What it selects, shows and finds is checked against the trace
 * as it was built (the times and names below), and each widget must be
 * finalized when the test lets go of it. Each test makes its own objects,
 * so they run in any order and alone (-p).
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "cp-find-bar.h"
#include "cp-renderer.h"
#include "cp-steps-chart.h"
#include "cp-test-trace.h"
#include "cp-timeline-view.h"
#include "cp-ui-test-util.h"
#include "model/cp-lane.h"

/* The trace, in ns: two steps on the main thread, each launching a gemm
 * and then a softmax on stream 7 (steps of equal work: the analysis
 * leaves out a last step that did less than the one before). */
#define STEP1_START    0
#define STEP2_START    200000
#define STEP2_END      400000
#define GEMM1_START    60000
#define GEMM1_DUR      80000
#define SOFTMAX_START  150000
#define SOFTMAX_DUR    30000
#define GEMM2_START    250000
#define GEMM2_DUR      100000
#define SOFTMAX2_START 370000
#define SOFTMAX2_DUR   10000

typedef struct
{
  CpTrace    *trace;
  CpAnalysis *analysis;
  CpViewState *view;
  CpSliceRef  gemm1, softmax, gemm2;
  GtkWindow  *window;
} Fixture;

/* The slice named name that starts at start. */
static CpSliceRef
slice_at (CpTrace    *trace,
          const char *name,
          gint64      start)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    for (guint i = 0; i < cp_lane_get_n_slices (cp_trace_get_lane (trace, l)); i++)
      {
        CpSliceRef r = { l, i };

        if (cp_trace_slice_start (trace, r) == start && g_str_equal (cp_trace_slice_name (trace, r), name))
          return r;
      }
  g_error ("No %s at %" G_GINT64_FORMAT, name, start);
  return CP_SLICE_REF_NONE;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint host = cp_test_trace_host_lane (b, 1);
  guint stream = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(GError) error = NULL;

  cp_test_trace_slice (b, host, STEP1_START, STEP2_START - STEP1_START, "ProfilerStep#1");
  cp_test_trace_slice (b, host, STEP2_START, STEP2_END - STEP2_START, "ProfilerStep#2");
  cp_test_trace_launch (b, host, 50000, 5000, stream, GEMM1_START, GEMM1_DUR, "gemm_kernel");
  cp_test_trace_launch (b, host, 140000, 5000, stream, SOFTMAX_START, SOFTMAX_DUR, "softmax_kernel");
  cp_test_trace_launch (b, host, 240000, 5000, stream, GEMM2_START, GEMM2_DUR, "gemm_kernel");
  cp_test_trace_launch (b, host, 360000, 5000, stream, SOFTMAX2_START, SOFTMAX2_DUR, "softmax_kernel");
  cp_trace_builder_detect_profiler_steps (b);
  f->trace = cp_test_trace_finish (b);
  f->analysis = cp_analysis_new (f->trace, NULL, &error);
  g_assert_no_error (error);
  f->view = cp_view_state_new ();
  cp_view_state_set_trace (f->view, f->trace);

  f->gemm1 = slice_at (f->trace, "gemm_kernel", GEMM1_START);
  f->softmax = slice_at (f->trace, "softmax_kernel", SOFTMAX_START);
  f->gemm2 = slice_at (f->trace, "gemm_kernel", GEMM2_START);

  f->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (f->window, 1000, 500);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->window != NULL)
    cp_ui_destroy_window (f->window);
  g_assert_finalize_object (f->view);
  g_assert_finalize_object (f->analysis);
  g_assert_finalize_object (f->trace);
}

/* Shows the widget alone in the fixture's window; returns a reference the
 * test gives back with cp_ui_wait_finalized(). */
static gpointer
show_alone (Fixture   *f,
            GtkWidget *widget)
{
  g_object_ref_sink (widget);
  gtk_window_set_child (f->window, widget);
  gtk_window_present (f->window);
  return widget;
}

/* Destroys the window (and with it the widget's parent) and waits until the
 * widget is finalized too. */
static void
let_go (Fixture    *f,
        gpointer    widget,
        const char *what)
{
  cp_ui_destroy_window (g_steal_pointer (&f->window));
  cp_ui_wait_finalized (widget, what);
}

static gboolean
laid_out_cond (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 500;
}

static gboolean
timeline_ready_cond (gpointer data)
{
  return laid_out_cond (data) && cp_timeline_view_is_ready (data) &&
         cp_timeline_view_get_layout (data) != NULL;
}

static gint64
span_of (CpViewState *view)
{
  return cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view);
}

/* The visible range holds [start, end], with at most slack of it again
 * around (fits leave a margin). */
static void
assert_fits (CpViewState *view,
             gint64       start,
             gint64       end,
             double       slack)
{
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, start);
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, end);
  g_assert_cmpfloat ((double) span_of (view), <=, (double) (end - start) * (1 + slack));
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

static void
count_cb (gpointer  instance,
          guint    *count)
{
  (*count)++;
}

/* CpTimelineView ------------------------------------------------------- */

static void
test_timeline_view (Fixture       *f,
                    gconstpointer  data)
{
  CpTimelineView *timeline = show_alone (f, cp_timeline_view_new ());
  GtkWidget *w = GTK_WIDGET (timeline);
  guint trace_notes = 0, view_notes = 0, clicks = 0;
  double x, y, gutter;
  gint64 span, start, t0, t1;

  g_assert_null (cp_timeline_view_get_trace (timeline));
  g_assert_null (cp_timeline_view_get_view_state (timeline));
  g_assert_null (cp_timeline_view_get_layout (timeline));
  g_signal_connect (timeline, "notify::trace", G_CALLBACK (count_notify_cb), &trace_notes);
  g_signal_connect (timeline, "notify::view-state", G_CALLBACK (count_notify_cb), &view_notes);
  g_signal_connect (timeline, "slice-clicked", G_CALLBACK (count_cb), &clicks);

  /* The properties notify once per change. */
  cp_timeline_view_set_view_state (timeline, f->view);
  cp_timeline_view_set_view_state (timeline, f->view);
  cp_timeline_view_set_trace (timeline, f->trace);
  cp_timeline_view_set_trace (timeline, f->trace);
  g_assert_cmpuint (view_notes, ==, 1);
  g_assert_cmpuint (trace_notes, ==, 1);
  g_assert_true (cp_timeline_view_get_trace (timeline) == f->trace);
  g_assert_true (cp_timeline_view_get_view_state (timeline) == f->view);
  cp_ui_wait_for (timeline_ready_cond, timeline, "the timeline's index and layout");
  cp_ui_wait_frame (w);

  /* 0: the whole capture, from the first step's start to the second's end. */
  cp_ui_press_key (w, GDK_KEY_0, 0);
  assert_fits (f->view, STEP1_START, STEP2_END, 0.15);
  span = span_of (f->view);

  /* W zooms in, S back out; D pans later, A earlier. */
  cp_ui_pointer_at (w, gtk_widget_get_width (w) / 2.0, 100);
  cp_ui_press_key (w, GDK_KEY_w, 0);
  g_assert_cmpint (span_of (f->view), <, span);
  start = cp_view_state_get_visible_start (f->view);
  cp_ui_press_key (w, GDK_KEY_d, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (f->view), >, start);
  cp_ui_press_key (w, GDK_KEY_a, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (f->view), ==, start);
  cp_ui_press_key (w, GDK_KEY_s, 0);
  g_assert_cmpint (llabs (span_of (f->view) - span), <=, span / 100);

  /* A click on the second gemm launch selects it and says so once. */
  cp_ui_press_key (w, GDK_KEY_0, 0);
  cp_ui_wait_frame (w);
  g_assert_true (cp_timeline_view_get_slice_point (timeline, f->gemm2, &x, &y));
  cp_ui_drag (w, x, y, 0, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm2));
  g_assert_cmpuint (clicks, ==, 1);

  /* F fits it: its 100 µs fill the view, less the margin. */
  cp_ui_press_key (w, GDK_KEY_f, 0);
  assert_fits (f->view, GEMM2_START, GEMM2_START + GEMM2_DUR, 0.15);

  /* , steps back along its lane: softmax, then the first gemm. */
  cp_ui_press_key (w, GDK_KEY_comma, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->softmax));
  cp_ui_press_key (w, GDK_KEY_comma, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm1));
  /* The view follows the selection. */
  g_assert_cmpint (cp_view_state_get_visible_start (f->view), <=, GEMM1_START);
  cp_ui_press_key (w, GDK_KEY_period, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->softmax));

  /* Escape clears it. */
  cp_ui_press_key (w, GDK_KEY_Escape, 0);
  g_assert_false (cp_view_state_has_selected (f->view));

  /* A drag on the ruler selects the time range under it: 300 px of a
   * view that shows the whole capture. */
  cp_ui_press_key (w, GDK_KEY_0, 0);
  cp_ui_wait_frame (w);
  gutter = cp_timeline_layout_get_metrics (cp_timeline_view_get_layout (timeline))->gutter_width;
  cp_ui_drag (w, gutter + 100, 5, 300, 0);
  g_assert_true (cp_view_state_get_time_selection (f->view, &t0, &t1));
  g_assert_cmpint (t0, <, t1);
  g_assert_cmpfloat_with_epsilon ((double) (t1 - t0) / (double) span_of (f->view),
                                  300.0 / cp_view_state_get_viewport_width (f->view), 0.01);
  g_assert_cmpuint (clicks, ==, 1);

  /* Without a trace it shows nothing, and keeps no layout. */
  cp_timeline_view_set_trace (timeline, NULL);
  g_assert_cmpuint (trace_notes, ==, 2);
  g_assert_null (cp_timeline_view_get_trace (timeline));

  /* The index's task holds the view until its callback has run. */
  let_go (f, timeline, "the timeline view to be finalized");
}

/* A view set before the trace, and a trace dropped while its index is
 * still being built: the widget goes all the same. */
static void
test_timeline_view_dropped_early (Fixture       *f,
                                  gconstpointer  data)
{
  CpTimelineView *timeline = g_object_ref_sink (CP_TIMELINE_VIEW (cp_timeline_view_new ()));

  cp_timeline_view_set_view_state (timeline, f->view);
  cp_timeline_view_set_trace (timeline, f->trace);
  cp_ui_wait_finalized (timeline, "the timeline view, let go while indexing");
}

/* CpStepsChart --------------------------------------------------------- */

static void
test_steps_chart (Fixture       *f,
                  gconstpointer  data)
{
  CpStepsChart *chart = show_alone (f, cp_steps_chart_new ());
  GtkWidget *w = GTK_WIDGET (chart);
  GtkGesture *click;
  GtkEventController *motion;
  const char *tip;
  gint last = -1;
  int min, nat;
  double x_second = -1;

  /* Nothing to draw without an analysis. */
  g_assert_null (cp_steps_chart_get_analysis (chart));
  g_assert_cmpuint (cp_steps_chart_get_n_bars (chart), ==, 0);
  g_assert_cmpint (cp_steps_chart_bar_at (chart, 500), ==, -1);

  cp_steps_chart_set_analysis (chart, f->analysis);
  cp_steps_chart_set_view_state (chart, f->view);
  g_assert_true (cp_steps_chart_get_analysis (chart) == f->analysis);
  /* One bar per ProfilerStep. */
  g_assert_cmpuint (cp_steps_chart_get_n_bars (chart), ==, 2);
  cp_ui_wait_for (laid_out_cond, w, "the chart to be laid out");
  cp_ui_wait_frame (w);

  /* Across the widget the bars come in order, each once, both reached. */
  for (double x = 0; x < gtk_widget_get_width (w); x += 1)
    {
      gint bar = cp_steps_chart_bar_at (chart, x);

      if (bar < 0)
        continue;
      g_assert_cmpint (bar, >=, last);
      if (bar == 1 && x_second < 0)
        x_second = x + 5;
      last = bar;
    }
  g_assert_cmpint (last, ==, 1);
  g_assert_cmpfloat (x_second, >, 0);

  /* The pointer over the second bar hovers it (CpChart): its tooltip
   * names the step and its time, the cursor says it can be clicked;
   * leaving forgets it. */
  motion = cp_ui_find_controller (w, GTK_TYPE_EVENT_CONTROLLER_MOTION);
  g_signal_emit_by_name (motion, "motion", x_second, gtk_widget_get_height (w) - 20.0);
  g_assert_cmpint (cp_chart_get_hover (CP_CHART (chart)), ==, 1);
  tip = gtk_widget_get_tooltip_text (w);
  g_assert_nonnull (tip);
  g_assert_nonnull (strstr (tip, "Step 2"));
  g_assert_nonnull (strstr (tip, "200 µs"));
  g_assert_nonnull (gtk_widget_get_cursor (w));
  g_assert_cmpstr (gdk_cursor_get_name (gtk_widget_get_cursor (w)), ==, "pointer");
  g_signal_emit_by_name (motion, "motion", 2.0, 2.0);
  g_assert_cmpint (cp_chart_get_hover (CP_CHART (chart)), ==, -1);
  g_assert_null (gtk_widget_get_tooltip_text (w));
  g_assert_null (gtk_widget_get_cursor (w));
  g_signal_emit_by_name (motion, "motion", x_second, gtk_widget_get_height (w) - 20.0);
  g_signal_emit_by_name (motion, "leave");
  g_assert_cmpint (cp_chart_get_hover (CP_CHART (chart)), ==, -1);
  /* The size its class gives: room for the axis and one bar. */
  gtk_widget_measure (w, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_assert_cmpint (min, ==, 112);
  g_assert_cmpint (nat, ==, 280);

  /* A click on the second bar zooms the view to the second step. */
  cp_view_state_fit_all (f->view);
  click = cp_ui_find_controller (w, GTK_TYPE_GESTURE_CLICK);
  g_signal_emit_by_name (click, "pressed", 1, x_second, gtk_widget_get_height (w) - 20.0);
  assert_fits (f->view, STEP2_START, STEP2_END, 0.15);
  g_assert_cmpint (cp_view_state_get_visible_start (f->view), >, STEP2_START - (STEP2_END - STEP2_START) / 5);

  /* And activating the first, to the first. */
  cp_steps_chart_activate (chart, 0);
  assert_fits (f->view, STEP1_START, STEP2_START, 0.15);
  cp_steps_chart_activate (chart, 2);
  assert_fits (f->view, STEP1_START, STEP2_START, 0.15);

  /* The categories differ, and each looks different in the dark. */
  g_assert_cmphex (cp_steps_chart_category_color (CP_TIME_COMPUTE_16, FALSE), !=,
                   cp_steps_chart_category_color (CP_TIME_COMPUTE_32, FALSE));
  g_assert_cmphex (cp_steps_chart_category_color (CP_TIME_COMPUTE_16, FALSE), !=,
                   cp_steps_chart_category_color (CP_TIME_COMPUTE_16, TRUE));

  cp_steps_chart_set_analysis (chart, NULL);
  g_assert_cmpuint (cp_steps_chart_get_n_bars (chart), ==, 0);
  cp_ui_wait_frame (w);

  let_go (f, chart, "the steps chart to be finalized");
}

/* CpFindBar ------------------------------------------------------------ */

static gboolean
result_cond (gpointer data)
{
  return cp_find_bar_get_result (data) != NULL;
}

static GtkWidget *
find_button (GtkWidget  *root,
             const char *icon)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (root)), icon) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button (c, icon);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_find_bar (Fixture       *f,
               gconstpointer  data)
{
  CpFindBar *bar = show_alone (f, cp_find_bar_new ());
  GtkWidget *entry = cp_ui_find_widget (GTK_WIDGET (bar), GTK_TYPE_SEARCH_ENTRY);
  GtkWidget *next = find_button (GTK_WIDGET (bar), "go-down-symbolic");
  GtkWidget *prev = find_button (GTK_WIDGET (bar), "go-up-symbolic");
  const CpSearchResult *result;
  guint view_notes = 0, closed = 0;
  guint n_matches;

  g_assert_nonnull (entry);
  g_assert_nonnull (next);
  g_assert_nonnull (prev);
  g_signal_connect (bar, "notify::view-state", G_CALLBACK (count_notify_cb), &view_notes);
  g_signal_connect (bar, "closed", G_CALLBACK (count_cb), &closed);
  cp_find_bar_set_view_state (bar, f->view);
  cp_find_bar_set_view_state (bar, f->view);
  g_assert_cmpuint (view_notes, ==, 1);
  g_assert_true (cp_find_bar_get_view_state (bar) == f->view);

  g_assert_false (cp_find_bar_is_open (bar));
  cp_find_bar_open (bar);
  g_assert_true (cp_find_bar_is_open (bar));

  /* Typing searches once the typing stops: two gemm launches. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "gemm");
  cp_ui_wait_for (result_cond, bar, "the search for what was typed");
  result = cp_find_bar_get_result (bar);
  g_assert_cmpuint (result->n_matches, ==, 2);
  g_assert_cmpint (result->total, ==, GEMM1_DUR + GEMM2_DUR);
  g_assert_cmpint (result->max, ==, GEMM2_DUR);
  g_assert_nonnull (strstr (cp_find_bar_get_status (bar), "2 matches"));
  cp_view_state_get_search_matches (f->view, &n_matches);
  g_assert_cmpuint (n_matches, ==, 2);
  g_assert_true (cp_view_state_is_search_match (f->view, f->gemm1));
  g_assert_true (cp_view_state_is_search_match (f->view, f->gemm2));
  g_assert_false (cp_view_state_is_search_match (f->view, f->softmax));

  /* Enter: the first in time, then the next; the button the same; it
   * wraps around. */
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm1));
  g_assert_true (g_str_has_prefix (cp_find_bar_get_status (bar), "1 of 2"));
  g_signal_emit_by_name (next, "clicked");
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm2));
  g_assert_true (g_str_has_prefix (cp_find_bar_get_status (bar), "2 of 2"));
  assert_fits (f->view, GEMM2_START, GEMM2_START + GEMM2_DUR, 100);
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm1));
  /* Previous, by the button and by the entry's signal (Shift+Enter). */
  g_signal_emit_by_name (prev, "clicked");
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm2));
  g_signal_emit_by_name (entry, "previous-match");
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm1));

  /* A regular expression: both names, all four launches. */
  cp_find_bar_search (bar, "^(gemm|softmax)_kernel$", CP_SEARCH_REGEX);
  cp_ui_wait_for (result_cond, bar, "the regular expression's search");
  g_assert_cmpuint (cp_find_bar_get_result (bar)->n_matches, ==, 4);
  cp_find_bar_search (bar, "no_such_kernel", CP_SEARCH_SUBSTRING);
  cp_ui_wait_for (result_cond, bar, "the search that finds nothing");
  g_assert_cmpuint (cp_find_bar_get_result (bar)->n_matches, ==, 0);
  g_assert_cmpstr (cp_find_bar_get_status (bar), ==, "No matches");
  cp_find_bar_search (bar, "softmax", CP_SEARCH_SUBSTRING);
  cp_ui_wait_for (result_cond, bar, "the search for softmax");
  g_assert_cmpuint (cp_find_bar_get_result (bar)->n_matches, ==, 2);
  g_assert_cmpint (cp_find_bar_get_result (bar)->total, ==, SOFTMAX_DUR + SOFTMAX2_DUR);

  /* Escape (the entry's stop-search) closes the bar and clears the
   * matches; the selection stays. */
  g_signal_emit_by_name (entry, "stop-search");
  g_assert_false (cp_find_bar_is_open (bar));
  g_assert_cmpuint (closed, ==, 1);
  cp_view_state_get_search_matches (f->view, &n_matches);
  g_assert_cmpuint (n_matches, ==, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (f->view), f->gemm1));

  let_go (f, bar, "the find bar to be finalized");
}

/* The renderer ------------------------------------------------------- */

/* A fake /dev/dri: the nodes named, as plain files. */
static char *
fake_dri (const char * const *nodes)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("chokepoint-dri-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint i = 0; nodes[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dir, nodes[i], NULL);

      g_assert_true (g_file_set_contents (path, "", 0, NULL));
    }
  return dir;
}

static void
remove_dri (char *dir)
{
  const char *name;
  GDir *d = g_dir_open (dir, 0, NULL);

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_clear_pointer (&d, g_dir_close);
  g_rmdir (dir);
  g_free (dir);
}

static void
test_renderer (void)
{
  const char *gpu_nodes[] = { "card0", "renderD128", NULL };
  const char *card_only[] = { "card0", NULL };
  char *gpu = fake_dri (gpu_nodes);
  char *no_render = fake_dri (card_only);
  g_autofree char *saved = g_strdup (g_getenv ("GSK_RENDERER"));
  g_autofree char *missing = g_build_filename (gpu, "no-such-folder", NULL);

  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  g_unsetenv ("GALLIUM_DRIVER");
  /* A render node the user can open: the GPU draws. */
  g_assert_false (cp_ui_gl_is_software (gpu));
  /* None, or no /dev/dri at all (a VM, a container, Xvfb on a server):
   * Mesa would fall back to llvmpipe. */
  g_assert_true (cp_ui_gl_is_software (no_render));
  g_assert_true (cp_ui_gl_is_software (missing));
  /* Mesa told to draw in software, GPU or not. */
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "1", TRUE);
  g_assert_true (cp_ui_gl_is_software (gpu));
  g_setenv ("LIBGL_ALWAYS_SOFTWARE", "0", TRUE);
  g_assert_false (cp_ui_gl_is_software (gpu));
  g_unsetenv ("LIBGL_ALWAYS_SOFTWARE");
  g_setenv ("GALLIUM_DRIVER", "llvmpipe", TRUE);
  g_assert_true (cp_ui_gl_is_software (gpu));
  g_setenv ("GALLIUM_DRIVER", "radeonsi", TRUE);
  g_assert_false (cp_ui_gl_is_software (gpu));
  g_unsetenv ("GALLIUM_DRIVER");

  /* The user's GSK_RENDERER always wins. */
  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_assert_null (cp_ui_choose_renderer ());
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "gl");
  /* Unset, it follows this machine's /dev/dri. */
  g_unsetenv ("GSK_RENDERER");
  if (cp_ui_gl_is_software ("/dev/dri"))
    {
      g_assert_cmpstr (cp_ui_choose_renderer (), ==, "cairo");
      g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "cairo");
    }
  else
    {
      g_assert_null (cp_ui_choose_renderer ());
      g_assert_null (g_getenv ("GSK_RENDERER"));
    }

  if (saved != NULL)
    g_setenv ("GSK_RENDERER", saved, TRUE);
  else
    g_unsetenv ("GSK_RENDERER");
  remove_dri (gpu);
  remove_dri (no_render);
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("# SKIP no display (run under Xvfb)\n");
      return 77;
    }

  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add ("/ui/widgets/timeline-view", Fixture, NULL, fixture_set_up, test_timeline_view, fixture_tear_down);
  g_test_add ("/ui/widgets/timeline-view/dropped-early", Fixture, NULL, fixture_set_up,
              test_timeline_view_dropped_early, fixture_tear_down);
  g_test_add ("/ui/widgets/steps-chart", Fixture, NULL, fixture_set_up, test_steps_chart, fixture_tear_down);
  g_test_add ("/ui/widgets/find-bar", Fixture, NULL, fixture_set_up, test_find_bar, fixture_tear_down);
  g_test_add_func ("/ui/renderer/choice", test_renderer);

  return g_test_run ();
}
