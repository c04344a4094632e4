/* test-timeline.c: the timeline, the Details pane and Find in the real window
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens a capture in CpWindow and uses the timeline the way a user does:
 * keys through the widget's own key bindings, Ctrl+scroll, a click on a
 * slice and a drag on the ruler through its own controllers, the Details
 * pane and its flow link, Find. Run by run-ui-test.sh inside
 * dbus-run-session with G_DEBUG=fatal-warnings and the memory GSettings
 * backend; skipped (exit 77) without a display.
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cp-application.h"
#include "cp-details-pane.h"
#include "cp-find-bar.h"
#include "cp-timeline-pane.h"
#include "cp-timeline-view-private.h"
#include "cp-window.h"
#include "cp-test-util.h"
#include "cp-ui-test-util.h"

static CpApplication *app;
static char *tmpdir;

/* A step with an op that launches a kernel (correlation 7), a second
 * launch and kernel (8), and a copy. Times in microseconds. */
static const char capture_json[] =
  "{\"schemaVersion\": 1,\n"
  " \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\", \"totalGlobalMem\": 85000000000}],\n"
  " \"traceEvents\": [\n"
  "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 100, \"args\": {\"name\": \"python3\"}},\n"
  "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": 1, \"args\": {\"name\": \"main\"}},\n"
  "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 100, \"tid\": 1, \"ts\": 1000, \"dur\": 600},\n"
  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 1, \"ts\": 1100, \"dur\": 200,"
  "   \"args\": {\"Input Dims\": [[64, 64], [64, 64]], \"External id\": 3}},\n"
  "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 1,"
  "   \"ts\": 1150, \"dur\": 20, \"args\": {\"correlation\": 7}},\n"
  "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 1,"
  "   \"ts\": 1400, \"dur\": 10, \"args\": {\"correlation\": 8}},\n"
  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1300, \"dur\": 100,"
  "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 7, \"grid\": [64, 1, 1], \"block\": [256, 1, 1]}},\n"
  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"relu_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1450, \"dur\": 50,"
  "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 8}},\n"
  "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0,"
  "   \"tid\": 7, \"ts\": 1010, \"dur\": 40, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}}\n"
  " ]}\n";

static gboolean
loaded_cond (gpointer data)
{
  return cp_window_get_state (data) == CP_WINDOW_LOADED;
}

static gboolean
view_ready_cond (gpointer data)
{
  return cp_timeline_view_is_ready (data) && gtk_widget_get_width (data) > 400 &&
         gtk_widget_get_mapped (data);
}

static gboolean
search_done_cond (gpointer data)
{
  return cp_find_bar_get_result (data) != NULL;
}

static gboolean
range_counted_cond (gpointer data)
{
  return cp_ui_find_named (data, "range-lanes") != NULL;
}

static gboolean
status_says_bad_regex_cond (gpointer data)
{
  return strstr (cp_find_bar_get_status (data), "regular expression") != NULL;
}


static double
visible_span (CpViewState *view)
{
  return (double) (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view));
}

static void
test_timeline (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "timeline.pt.trace.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CpWindow *window;
  CpTimelinePane *pane;
  CpTimelineView *view;
  CpViewState *vs;
  CpDetailsPane *details;
  CpFindBar *bar;
  CpTrace *trace;
  CpSliceRef gemm, mm, launch;
  GtkWidget *label;
  AdwViewStack *stack;
  double x, y, span, gutter, t_before;
  gint64 start, end;

  g_assert_true (g_file_set_contents (path, capture_json, -1, NULL));
  window = cp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 800);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture to load");

  pane = CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE));
  view = cp_timeline_pane_get_view (pane);
  details = CP_DETAILS_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_DETAILS_PANE));
  stack = ADW_VIEW_STACK (cp_ui_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  g_assert_nonnull (details);
  cp_ui_wait_for (view_ready_cond, view, "the timeline");
  cp_ui_wait_frame (GTK_WIDGET (view));

  /* One view state for the window, the timeline and the panes. */
  vs = cp_window_get_view_state (window);
  trace = cp_window_get_trace (window);
  g_assert_true (cp_timeline_view_get_view_state (view) == vs);
  g_assert_true (cp_pane_get_view_state (CP_PANE (details)) == vs);
  g_assert_true (cp_view_state_get_trace (vs) == trace);
  gtk_widget_grab_focus (GTK_WIDGET (view));
  gutter = cp_timeline_layout_get_metrics (cp_timeline_view_get_layout (view))->gutter_width;
  g_assert_cmpfloat (cp_view_state_get_viewport_width (vs), ==, gtk_widget_get_width (GTK_WIDGET (view)) - gutter);
  gemm = cp_ui_find_slice (trace, "gemm_kernel");
  mm = cp_ui_find_slice (trace, "aten::mm");

  /* Whole trace first. W zooms in at the pointer; S zooms back out. */
  g_assert_cmpint (cp_view_state_get_visible_start (vs), ==, 0);
  g_assert_cmpint (cp_view_state_get_visible_end (vs), ==, cp_trace_get_duration (trace));
  x = gutter + 300;
  cp_ui_pointer_at (GTK_WIDGET (view), x, 200);
  t_before = cp_view_state_x_to_time (vs, x - gutter);
  span = visible_span (vs);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_w, 0);
  g_assert_cmpfloat (visible_span (vs), <, span * 0.7);
  g_assert_cmpfloat (fabs (cp_view_state_time_to_x (vs, (gint64) llround (t_before)) - (x - gutter)), <=, 1.0);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_w, 0);
  span = visible_span (vs);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_s, 0);
  g_assert_cmpfloat (visible_span (vs), >, span * 1.4);
  /* D pans right, A back. */
  start = cp_view_state_get_visible_start (vs);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_d, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (vs), >, start);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_a, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (vs), ==, start);

  /* Ctrl+scroll zooms at the pointer too; plain scroll does not zoom. */
  x = gutter + 500;
  cp_ui_pointer_at (GTK_WIDGET (view), x, 200);
  t_before = cp_view_state_x_to_time (vs, x - gutter);
  span = visible_span (vs);
  g_assert_true (_cp_timeline_view_scroll (view, 0, -2, GDK_CONTROL_MASK, TRUE));
  g_assert_cmpfloat (visible_span (vs), <, span);
  g_assert_cmpfloat (fabs (cp_view_state_time_to_x (vs, (gint64) llround (t_before)) - (x - gutter)), <=, 1.0);
  span = visible_span (vs);
  _cp_timeline_view_scroll (view, 0, 1, 0, TRUE);
  g_assert_cmpfloat (visible_span (vs), ==, span);
  /* Shift+scroll pans in time. */
  start = cp_view_state_get_visible_start (vs);
  _cp_timeline_view_scroll (view, 0, 1, GDK_SHIFT_MASK, TRUE);
  g_assert_cmpint (cp_view_state_get_visible_start (vs), !=, start);

  /* 0 fits everything again. */
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_0, 0);
  g_assert_cmpint (cp_view_state_get_visible_end (vs) - cp_view_state_get_visible_start (vs), ==,
                   cp_trace_get_duration (trace));

  /* Click on the kernel: it is selected and the Details pane shows it, from
   * the first page (this capture has a problem, so the window opened on
   * Findings, where stepping through evidence selects slices too). */
  adw_view_stack_set_visible_child_name (stack, "capture");
  g_assert_true (cp_timeline_view_get_slice_point (view, gemm, &x, &y));
  cp_ui_drag (GTK_WIDGET (view), x, y, 0, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (vs), gemm));
  cp_ui_wait_page (GTK_WIDGET (stack), "details");
  cp_ui_wait_label_text (GTK_WIDGET (details), "slice-name", "gemm_kernel");

  /* Its flow link leads to the launch, which gets selected and shown. */
  g_assert_cmpuint (cp_details_pane_get_n_flows (details), ==, 1);
  label = cp_ui_find_named (GTK_WIDGET (details), "flow-link");
  g_assert_nonnull (label);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "Launched by cudaLaunchKernel"));
  {
    gboolean handled = FALSE;

    g_signal_emit_by_name (label, "activate-link", "flow:0", &handled);
    g_assert_true (handled);
  }
  launch = cp_view_state_get_selected (vs);
  g_assert_cmpstr (cp_trace_slice_name (trace, launch), ==, "cudaLaunchKernel");
  g_assert_cmpint (cp_trace_slice_start (trace, launch), >=, cp_view_state_get_visible_start (vs));
  g_assert_cmpint (cp_trace_slice_start (trace, launch), <=, cp_view_state_get_visible_end (vs));
  cp_ui_wait_label_text (GTK_WIDGET (details), "slice-name", "cudaLaunchKernel");
  /* And back: the launch links to its kernel. */
  g_assert_cmpuint (cp_details_pane_get_n_flows (details), ==, 1);
  g_assert_true (cp_details_pane_follow_flow (details, 0));
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (vs), gemm));

  /* Nested slices: the op under the step, on its own row. Escape clears.
   * F fits the selection. */
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_0, 0);
  g_assert_true (cp_timeline_view_get_slice_point (view, mm, &x, &y));
  cp_ui_drag (GTK_WIDGET (view), x, y, 0, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (vs), mm));
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_f, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (vs), <=, cp_trace_slice_start (trace, mm));
  g_assert_cmpint (cp_view_state_get_visible_end (vs), >=, cp_trace_slice_start (trace, mm) + cp_trace_slice_dur (trace, mm));
  g_assert_cmpfloat (visible_span (vs), <, cp_trace_slice_dur (trace, mm) * 1.5);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_Escape, 0);
  g_assert_false (cp_view_state_has_selected (vs));
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_Home, 0);

  /* . and , step along the selected lane's row. */
  {
    CpSliceRef second = cp_ui_find_slice (trace, "relu_kernel");

    cp_view_state_set_selected (vs, gemm);
    cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_period, 0);
    g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (vs), second));
    cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_comma, 0);
    g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (vs), gemm));
  }

  /* A drag on the ruler selects a range; the pane counts what it holds. */
  cp_ui_drag (GTK_WIDGET (view), gutter + 100, 5, 400, 0);
  g_assert_true (cp_view_state_get_time_selection (vs, &start, &end));
  g_assert_cmpint (end, >, start);
  g_assert_cmpfloat (fabs (cp_view_state_time_to_x (vs, start) - 100), <=, 1.0);
  g_assert_cmpfloat (fabs (cp_view_state_time_to_x (vs, end) - 500), <=, 1.0);
  g_assert_nonnull (cp_ui_find_named (GTK_WIDGET (details), "range-duration"));
  cp_ui_wait_for (range_counted_cond, details, "the range's lanes");
  /* A drag in the lanes pans. */
  start = cp_view_state_get_visible_start (vs);
  cp_ui_press_key (GTK_WIDGET (view), GDK_KEY_w, 0);
  start = cp_view_state_get_visible_start (vs);
  cp_ui_drag (GTK_WIDGET (view), gutter + 300, 300, -100, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (vs), >, start);

  /* Find (Ctrl+F opens the bar): every match across the capture, Enter
   * steps through them in time order. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL));
  bar = cp_timeline_pane_get_find_bar (pane);
  g_assert_true (cp_find_bar_is_open (bar));
  cp_find_bar_search (bar, "kernel", CP_SEARCH_SUBSTRING);
  cp_ui_wait_for (search_done_cond, bar, "the search");
  /* cudaLaunchKernel twice, gemm_kernel and relu_kernel. */
  g_assert_cmpuint (cp_find_bar_get_result (bar)->n_matches, ==, 4);
  {
    guint n;

    cp_view_state_get_search_matches (vs, &n);
    g_assert_cmpuint (n, ==, 4);
  }
  g_assert_nonnull (strstr (cp_find_bar_get_status (bar), "4 matches"));
  g_assert_nonnull (strstr (cp_find_bar_get_status (bar), "max 100 µs"));
  cp_view_state_set_selected (vs, CP_SLICE_REF_NONE);
  cp_find_bar_step (bar, TRUE);
  g_assert_cmpstr (cp_trace_slice_name (trace, cp_view_state_get_selected (vs)), ==, "cudaLaunchKernel");
  g_assert_nonnull (strstr (cp_find_bar_get_status (bar), "1 of 4"));
  cp_find_bar_step (bar, TRUE);
  g_assert_cmpstr (cp_trace_slice_name (trace, cp_view_state_get_selected (vs)), ==, "gemm_kernel");
  cp_find_bar_step (bar, FALSE);
  g_assert_cmpstr (cp_trace_slice_name (trace, cp_view_state_get_selected (vs)), ==, "cudaLaunchKernel");
  /* A bad regular expression says so. */
  cp_find_bar_search (bar, "kernel(", CP_SEARCH_REGEX);
  cp_ui_wait_for (status_says_bad_regex_cond, bar, "the bad pattern to be reported");
  cp_find_bar_close (bar);
  {
    guint n;

    cp_view_state_get_search_matches (vs, &n);
    g_assert_cmpuint (n, ==, 0);
  }

  /* Devices first, from the main menu's action. */
  g_assert_false (cp_timeline_layout_get_item (cp_timeline_view_get_layout (view), 0)->is_device);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.devices-first", NULL));
  g_assert_true (cp_view_state_get_devices_first (vs));
  g_assert_true (cp_timeline_layout_get_item (cp_timeline_view_get_layout (view), 0)->is_device);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-all-flows", NULL));
  g_assert_true (cp_view_state_get_show_all_flows (vs));
  /* Drawn with every flow (fatal warnings: nothing the painter does warns). */
  cp_ui_wait_frame (GTK_WIDGET (view));

  cp_ui_destroy_window (GTK_WINDOW (window));
}


static gboolean
analysed_cond (gpointer data)
{
  return cp_window_get_analysis (data) != NULL;
}

/* A window on a capture of ../shared/traces (path below it), loaded and
 * analysed; NULL, with the test skipped, when the capture is missing. */
static CpWindow *
open_shared (const char *relative)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  CpWindow *window;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return NULL;
    }
  path = g_build_filename (root, relative, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip_printf ("%s is missing", path);
      return NULL;
    }
  /* No cross-fade between the loading and the loaded page in the shots. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  file = g_file_new_for_path (path);
  window = cp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture to load");
  cp_ui_wait_for (analysed_cond, window, "the analysis");
  return window;
}

/* The first kernel slice whose name (xla: its HLO op's) holds text. */
static CpSliceRef
first_kernel (CpWindow   *window,
              const char *text,
              gboolean    xla)
{
  CpTrace *trace = cp_window_get_trace (window);
  CpAnalysis *analysis = cp_window_get_analysis (window);

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *sl = cp_lane_get_slices (lane);

      if (cp_lane_get_kind (lane) != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < sl->n; i++)
        {
          CpSliceRef ref = { l, i };
          const CpXlaSource *src = xla ? cp_analysis_xla_source (analysis, ref) : NULL;
          CpStr name = xla ? (src != NULL ? src->hlo_op : CP_STR_EMPTY) : cp_slices_get_name (sl, i);

          if (strstr (cp_trace_get_string (trace, name), text) != NULL)
            return ref;
        }
    }
  return CP_SLICE_REF_NONE;
}

/* Selects ref and shows the Details page; returns the pane. */
static CpDetailsPane *
show_details (CpWindow   *window,
              CpSliceRef  ref)
{
  AdwViewStack *stack = ADW_VIEW_STACK (cp_ui_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));

  g_assert_false (cp_slice_ref_is_none (ref));
  cp_view_state_select_and_reveal (cp_window_get_view_state (window), ref);
  adw_view_stack_set_visible_child_name (stack, "details");
  cp_ui_wait_page (GTK_WIDGET (stack), "details");
  return CP_DETAILS_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_DETAILS_PANE));
}

/* The screenshot of the window, light and dark. */
static void
shots (CpWindow   *window,
       const char *name)
{
  g_autofree char *dark = g_strdup_printf ("%s-dark", name);

  cp_ui_wait_frame (GTK_WIDGET (window));
  cp_ui_screenshot (GTK_WIDGET (window), name);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  cp_ui_wait_frame (GTK_WIDGET (window));
  cp_ui_screenshot (GTK_WIDGET (window), dark);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
}

/* A real capture recorded with stacks and modules: a kernel's Details
 * show the op, the nn.Modules and the user's Python frames around its
 * launch (tests/source-chain.py checks the chain itself), each a link
 * that selects its slice; the library frames fold under "All frames". */
static void
test_source (void)
{
  CpWindow *window = open_shared ("AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
  CpDetailsPane *details;
  CpViewState *vs;
  CpTrace *trace;
  CpSliceRef kernel = CP_SLICE_REF_NONE;
  GtkWidget *links, *module = NULL;
  guint n_modules = 0;

  if (window == NULL)
    return;
  trace = cp_window_get_trace (window);
  vs = cp_window_get_view_state (window);

  /* The first layer-norm kernel. */
  kernel = first_kernel (window, "layer_norm", FALSE);
  details = show_details (window, kernel);
  links = cp_ui_find_named (GTK_WIDGET (details), "source-links");
  g_assert_nonnull (links);
  g_assert_true (cp_ui_label_tree_has (links, "Op: aten::native_layer_norm"));
  g_assert_true (cp_ui_label_tree_has (links, "Module: LayerNorm_0"));
  g_assert_true (cp_ui_label_tree_has (links, "Code: transformers/models/bert/modeling_bert.py"));
  g_assert_nonnull (cp_ui_find_named (links, "all-frames"));
  for (GtkWidget *c = gtk_widget_get_first_child (links); c; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LABEL (c) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (c)), "Module: "))
      {
        n_modules++;
        if (module == NULL)
          module = c;
      }
  g_assert_cmpuint (n_modules, >=, 2);
  shots (window, "details-source");

  /* The innermost module's link selects it. */
  {
    gboolean handled = FALSE;
    g_autofree char *uri = NULL;
    const char *markup_text = gtk_label_get_label (GTK_LABEL (module));
    const char *href = strstr (markup_text, "href=\"");

    g_assert_nonnull (href);
    uri = g_strndup (href + 6, strchr (href + 6, '"') - (href + 6));
    g_signal_emit_by_name (module, "activate-link", uri, &handled);
    g_assert_true (handled);
    g_assert_cmpstr (cp_trace_slice_name (trace, cp_view_state_get_selected (vs)), ==, "nn.Module: LayerNorm_0");
  }
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* A JAX capture's GPU kernel: Details names its HLO op, the JAX op and the
 * line of the user's code, as the program's HLO (hlo-source.py reads the
 * same) says. */
static void
test_xla_source (void)
{
  CpWindow *window = open_shared ("AMD-AGI__TraceLens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb");
  CpDetailsPane *details;
  CpSliceRef kernel = CP_SLICE_REF_NONE;
  GtkWidget *box;

  if (window == NULL)
    return;

  /* The fused attention's first forward kernel. */
  kernel = first_kernel (window, "te_fused_attn_forward", TRUE);
  details = show_details (window, kernel);
  box = cp_ui_find_named (GTK_WIDGET (details), "xla-source");
  g_assert_nonnull (box);
  g_assert_true (cp_ui_label_tree_has (box, "HLO op: te_fused_attn_forward_ffi"));
  g_assert_true (cp_ui_label_tree_has (box, " in jit_loss_fn"));
  g_assert_true (cp_ui_label_tree_has (box, "Op: jit(loss_fn)/"));
  g_assert_true (cp_ui_label_tree_has (box, "Code: /workspace/12_te_fused_attn.py("));
  shots (window, "details-xla-source");
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* A torch.compile capture: the Triton kernel's Details say which kind of
 * Inductor kernel it is, the ops it fuses and the file Inductor generated
 * for it, as its launching op's arguments in the capture say
 * (kernel_backend "triton", kernel_file). */
static void
test_inductor_source (void)
{
  CpWindow *window = open_shared ("AMD-AGI__TraceLens/tests/traces/torch_compile_triton/trace.json.gz");
  CpDetailsPane *details;
  CpSliceRef kernel = CP_SLICE_REF_NONE;
  GtkWidget *label;

  if (window == NULL)
    return;
  kernel = first_kernel (window, "triton_red_fused_add_mean_mul_pow_rsqrt_0", FALSE);
  details = show_details (window, kernel);
  label = cp_ui_find_named (GTK_WIDGET (details), "inductor");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   "Inductor reduction kernel (triton) fusing add_mean_mul_pow_rsqrt, generated in "
                   "/tmp/torchinductor_root/mw/cmwjlpfu2kb4ehcuvblmjopjzi4rp4n2rtyqnvbbrb4xvqkksyqd.py");
  shots (window, "details-inductor");
  cp_ui_destroy_window (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("# SKIP no display (run under Xvfb)\n");
      return 77;
    }

  g_test_init (&argc, &argv, NULL);

  tmpdir = g_dir_make_tmp ("chokepoint-timeline-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/ui/timeline/navigate-select-find", test_timeline);
  g_test_add_func ("/ui/timeline/source", test_source);
  g_test_add_func ("/ui/timeline/xla-source", test_xla_source);
  g_test_add_func ("/ui/timeline/inductor-source", test_inductor_source);

  status = g_test_run ();

  g_clear_object (&app);
  {
    g_autofree char *path = g_build_filename (tmpdir, "timeline.pt.trace.json", NULL);

    g_unlink (path);
    g_rmdir (tmpdir);
  }
  g_free (tmpdir);
  return status;
}
