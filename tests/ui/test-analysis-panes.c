/* test-analysis-panes.c: the Findings, Steps and Kernels pages in the window
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens generated captures (cp-gen) in CpWindow, waits for the analysis that
 * runs in a worker thread after loading, and uses the three panes: opening a
 * finding highlights its evidence and zooms to it, F8's action steps through
 * the evidence, a click on a step bar zooms to the step, selecting a kernel
 * or host op highlights its slices, the tables sort and filter. With
 * CP_SCREENSHOT_DIR set it also writes PNGs of each page in the light and
 * dark styles. Run by run-ui-test.sh (skipped without a display).
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "cp-application.h"
#include "cp-capture-pane.h"
#include "cp-details-pane.h"
#include "cp-findings-pane.h"
#include "cp-notes-pane.h"
#include "cp-kernels-pane.h"
#include "cp-steps-pane.h"
#include "cp-timeline-view.h"
#include "cp-test-util.h"
#include "cp-window.h"
#include "cp-ui-test-util.h"

static CpApplication *app;
static char *tmpdir;

static gboolean
analysed (gpointer data)
{
  return cp_window_get_analysis (data) != NULL;
}

static char *
generate (const char *scenario)
{
  g_autofree char *name = g_strconcat (scenario, ".json", NULL);
  char *path = g_build_filename (tmpdir, name, NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", scenario, "--out", path, "--steps", "5", "-q", NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static CpWindow *
open_window (const char *scenario)
{
  g_autofree char *path = generate (scenario);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CpWindow *window = cp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (analysed, window, "the analysis");
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_LOADED);
  return window;
}

static gboolean
shown_cond (gpointer data)
{
  return gtk_widget_get_mapped (data) &&
         gtk_widget_get_width (data) > 0 && gtk_widget_get_height (data) > 0;
}

static void
show_page (CpWindow   *window,
           GtkWidget  *pane)
{
  AdwViewStack *stack = ADW_VIEW_STACK (gtk_widget_get_ancestor (pane, ADW_TYPE_VIEW_STACK));

  adw_view_stack_set_visible_child (stack, pane);
  cp_ui_wait_for (shown_cond, pane, "the page to be shown");
  /* Laid out and drawn at its size. */
  cp_ui_wait_frame (pane);
}

static guint
highlights_of (CpViewState     *view,
               CpHighlightKind  kind)
{
  const CpHighlight *hl;
  guint n, count = 0;

  hl = cp_view_state_get_highlights (view, &n);
  for (guint i = 0; i < n; i++)
    count += hl[i].kind == kind;
  return count;
}

/* The view state the panes share: the window's, or one the test gives them
 * when the window has none. */
static CpViewState *
view_state_for (CpWindow  *window,
                GtkWidget *findings,
                GtkWidget *steps,
                GtkWidget *kernels)
{
  CpViewState *view = NULL;

  g_object_get (findings, "view-state", &view, NULL);
  if (view == NULL)
    {
      view = cp_view_state_new ();
      cp_view_state_set_trace (view, cp_window_get_trace (window));
      g_object_set (findings, "view-state", view, NULL);
      g_object_set (steps, "view-state", view, NULL);
      g_object_set (kernels, "view-state", view, NULL);
    }
  return view;
}

static void
test_input_bound (void)
{
  CpWindow *window = open_window ("input-bound");
  CpAnalysis *analysis = cp_window_get_analysis (window);
  GtkWidget *findings = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_FINDINGS_PANE);
  GtkWidget *steps = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_STEPS_PANE);
  GtkWidget *kernels = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_KERNELS_PANE);
  g_autoptr(CpViewState) view = NULL;
  CpFinding *f;
  const CpEvidence *ev;
  guint n_ev, n_steps;
  gint pos;

  g_assert_nonnull (findings);
  g_assert_nonnull (steps);
  g_assert_nonnull (kernels);
  /* The Findings tab asks for attention: there is a problem. */
  g_assert_true (adw_view_stack_page_get_needs_attention (
    adw_view_stack_get_page (ADW_VIEW_STACK (gtk_widget_get_ancestor (findings, ADW_TYPE_VIEW_STACK)), findings)));
  /* The answer first: the window opened on Findings, which leads with the
   * verdict. */
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (
                     ADW_VIEW_STACK (gtk_widget_get_ancestor (findings, ADW_TYPE_VIEW_STACK))), ==, "findings");
  g_assert_cmpstr (cp_findings_pane_get_verdict_text (CP_FINDINGS_PANE (findings)), ==,
                   cp_analysis_get_verdict (analysis)->text);
  g_assert_true (g_str_has_prefix (cp_findings_pane_get_verdict_text (CP_FINDINGS_PANE (findings)),
                                   "The GPU waits mostly for input"));
  g_assert_true (cp_ui_label_tree_has (findings, "Why the GPU Waits"));
  view = view_state_for (window, findings, steps, kernels);

  /* Findings: the problem first; opening it highlights all its evidence and
   * shows all of it. */
  g_assert_cmpuint (cp_findings_pane_get_n_problems (CP_FINDINGS_PANE (findings)), ==, 1);
  g_assert_cmpuint (cp_findings_pane_get_n_findings (CP_FINDINGS_PANE (findings)), >=, 2);
  show_page (window, findings);
  g_assert_true (cp_findings_pane_select (CP_FINDINGS_PANE (findings), "input-bound"));
  f = cp_findings_pane_get_selected (CP_FINDINGS_PANE (findings));
  g_assert_cmpstr (cp_finding_get_rule_id (f), ==, "input-bound");
  ev = cp_finding_get_evidence (f, &n_ev);
  g_assert_cmpuint (n_ev, >, 1);
  g_assert_cmpuint (highlights_of (view, CP_HIGHLIGHT_FINDING), ==, n_ev);
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, ev[0].start);
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, ev[n_ev - 1].end);
  cp_ui_screenshot (GTK_WIDGET (window), "findings-light.png");

  /* F8 (findings.next-evidence) steps through the evidence, and wraps. */
  g_assert_true (gtk_widget_activate_action (findings, "findings.next-evidence", NULL));
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, ev[0].start);
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, ev[0].end);
  g_assert_cmpint (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view), <,
                   ev[n_ev - 1].end - ev[0].start);
  g_assert_true (gtk_widget_activate_action (findings, "findings.next-evidence", NULL));
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, ev[1].start);
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, ev[1].end);
  g_assert_true (gtk_widget_activate_action (findings, "findings.previous-evidence", NULL));
  pos = cp_findings_pane_step_evidence (CP_FINDINGS_PANE (findings), -1);
  g_assert_cmpint (pos, ==, (gint) n_ev - 1);
  /* Evidence is one range per step (the input is on one thread). */
  {
    guint n_windows;

    cp_analysis_get_windows (analysis, &n_windows);
    g_assert_cmpuint (n_ev, <=, n_windows + 1);
    g_assert_cmpuint (cp_finding_get_evidence_found (f), >=, n_ev);
  }
  /* F8 and Shift+F8 are the application's accelerators for the window's
   * actions, which GTK runs in the capture phase: the focused timeline on
   * another page cannot keep them. They reveal Findings and step. */
  {
    g_auto(GStrv) next = gtk_application_get_accels_for_action (gtk_window_get_application (GTK_WINDOW (window)),
                                                                "win.next-evidence");
    g_auto(GStrv) prev = gtk_application_get_accels_for_action (gtk_window_get_application (GTK_WINDOW (window)),
                                                                "win.previous-evidence");
    GtkWidget *timeline = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_VIEW);

    g_assert_cmpstr (next[0], ==, "F8");
    g_assert_cmpstr (prev[0], ==, "<Shift>F8");
    show_page (window, steps);
    gtk_widget_grab_focus (timeline);
    g_assert_true (gtk_widget_activate_action (timeline, "win.next-evidence", NULL));
    g_assert_cmpstr (adw_view_stack_get_visible_child_name (
                       ADW_VIEW_STACK (gtk_widget_get_ancestor (findings, ADW_TYPE_VIEW_STACK))), ==, "findings");
    g_assert_cmpint (cp_view_state_get_visible_start (view), <=, ev[0].start);
    g_assert_cmpint (cp_view_state_get_visible_end (view), >=, ev[0].end);
    g_assert_true (gtk_widget_activate_action (timeline, "win.previous-evidence", NULL));
    g_assert_cmpint (cp_view_state_get_visible_start (view), <=, ev[n_ev - 1].start);
    g_assert_cmpint (cp_view_state_get_visible_end (view), >=, ev[n_ev - 1].end);
    g_assert_true (cp_ui_label_tree_has (findings, "Evidence 5 of 5"));
  }
  /* Closing it clears the highlights. */
  g_assert_true (cp_findings_pane_select (CP_FINDINGS_PANE (findings), "nonsense") == FALSE);

  /* Steps: one bar per step; a click on a bar zooms to it. */
  show_page (window, steps);
  cp_analysis_get_steps (analysis, &n_steps);
  g_assert_cmpuint (n_steps, ==, 5);
  g_assert_cmpuint (cp_steps_chart_get_n_bars (cp_steps_pane_get_chart (CP_STEPS_PANE (steps))), ==, n_steps);
  {
    const CpStepStats *st = cp_analysis_get_steps (analysis, NULL);
    CpStepsChart *chart = cp_steps_pane_get_chart (CP_STEPS_PANE (steps));
    double w = gtk_widget_get_width (GTK_WIDGET (chart));
    gint bar;

    g_assert_cmpfloat (w, >, 100);
    bar = cp_steps_chart_bar_at (chart, w - 10);
    g_assert_cmpint (bar, ==, (gint) n_steps - 1);
    g_assert_cmpint (cp_steps_chart_bar_at (chart, 2), ==, -1);
    cp_steps_chart_activate (chart, 2);
    g_assert_cmpint (cp_view_state_get_visible_start (view), <=, st[2].start);
    g_assert_cmpint (cp_view_state_get_visible_end (view), >=, st[2].end);
    g_assert_cmpint (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view), <,
                     2 * (st[2].end - st[2].start));
  }
  cp_ui_screenshot (GTK_WIDGET (window), "steps-light.png");

  /* Kernels: sorted by total time; selecting a row highlights its slices. */
  show_page (window, kernels);
  {
    guint n_kernels;
    const CpKernelStats *ks = cp_analysis_get_kernels (analysis, &n_kernels);

    g_assert_cmpuint (cp_kernels_pane_get_n_rows (CP_KERNELS_PANE (kernels)), ==, n_kernels);

    g_assert_cmpstr (cp_kernels_pane_get_row_name (CP_KERNELS_PANE (kernels), 0), ==,
                     cp_trace_get_string (cp_window_get_trace (window), ks[0].name));
    cp_kernels_pane_select_row (CP_KERNELS_PANE (kernels), 0);
    g_assert_cmpuint (highlights_of (view, CP_HIGHLIGHT_SEARCH), ==, ks[0].count);
  }
  cp_ui_screenshot (GTK_WIDGET (window), "kernels-light.png");
  g_assert_true (cp_kernels_pane_sort_by (CP_KERNELS_PANE (kernels), "count", TRUE));
  {
    const char *first = cp_kernels_pane_get_row_name (CP_KERNELS_PANE (kernels), 0);
    const CpKernelStats *ks;
    guint n, best = 0;

    ks = cp_analysis_get_kernels (analysis, &n);
    for (guint i = 0; i < n; i++)
      best = MAX (best, ks[i].count);
    for (guint i = 0; i < n; i++)
      if (g_strcmp0 (cp_trace_get_string (cp_window_get_trace (window), ks[i].name), first) == 0)
        g_assert_cmpuint (ks[i].count, ==, best);
  }
  cp_kernels_pane_set_filter (CP_KERNELS_PANE (kernels), "no kernel is named like this");
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (CP_KERNELS_PANE (kernels)), ==, 0);
  cp_kernels_pane_set_filter (CP_KERNELS_PANE (kernels), "");
  cp_kernels_pane_show_kernels (CP_KERNELS_PANE (kernels), FALSE);
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (CP_KERNELS_PANE (kernels)), >, 0);
  cp_kernels_pane_select_row (CP_KERNELS_PANE (kernels), 0);
  g_assert_cmpuint (highlights_of (view, CP_HIGHLIGHT_SEARCH), >, 0);
  cp_ui_screenshot (GTK_WIDGET (window), "host-ops-light.png");

  /* The same pages in the dark style. */
  if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      show_page (window, findings);
      cp_ui_screenshot (GTK_WIDGET (window), "findings-dark.png");
      show_page (window, steps);
      cp_ui_screenshot (GTK_WIDGET (window), "steps-dark.png");
      show_page (window, kernels);
      cp_ui_screenshot (GTK_WIDGET (window), "host-ops-dark.png");
      cp_kernels_pane_show_kernels (CP_KERNELS_PANE (kernels), TRUE);
      cp_ui_screenshot (GTK_WIDGET (window), "kernels-dark.png");
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
    }

  cp_ui_destroy_window (GTK_WINDOW (window));
}

static void
test_healthy (void)
{
  CpWindow *window = open_window ("healthy");
  GtkWidget *findings = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_FINDINGS_PANE);

  /* No problems, and the pane says so; the tab does not ask for attention. */
  g_assert_cmpuint (cp_findings_pane_get_n_problems (CP_FINDINGS_PANE (findings)), ==, 0);
  g_assert_false (adw_view_stack_page_get_needs_attention (
    adw_view_stack_get_page (ADW_VIEW_STACK (gtk_widget_get_ancestor (findings, ADW_TYPE_VIEW_STACK)), findings)));
  g_assert_false (cp_analysis_has_warnings (cp_window_get_analysis (window)));
  /* Nothing to answer: the window stays on its first page. */
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (
                     ADW_VIEW_STACK (gtk_widget_get_ancestor (findings, ADW_TYPE_VIEW_STACK))), ==, "capture");
  show_page (window, findings);
  cp_ui_screenshot (GTK_WIDGET (window), "findings-healthy-light.png");
  g_assert_cmpint (cp_findings_pane_step_evidence (CP_FINDINGS_PANE (findings), 1), ==,
                   cp_findings_pane_get_n_findings (CP_FINDINGS_PANE (findings)) > 0 ? 0 : -1);

  cp_ui_destroy_window (GTK_WINDOW (window));
}

static void
test_reload_replaces_analysis (void)
{
  CpWindow *window = open_window ("launch-bound");
  CpAnalysis *first = cp_window_get_analysis (window);
  GtkWidget *findings = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_FINDINGS_PANE);

  g_assert_nonnull (cp_analysis_lookup_finding (first, "launch-bound"));
  g_assert_true (cp_pane_get_analysis (CP_PANE (findings)) == first);
  g_assert_cmpuint (cp_findings_pane_get_n_problems (CP_FINDINGS_PANE (findings)), ==, 1);

  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* Markup safety in the panes: a capture whose file, process, thread, device,
 * op and kernel names hold <, & and quotes, and a note that does, shows each
 * as the exact text on every page, and neither GTK nor Pango warns (the UI
 * tests run with fatal warnings). */
#define HOSTILE_NOTE "Note <i>&amp; \"why\" 'here' <"

static void
test_markup (void)
{
  g_autofree char *src = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "data", "markup",
                                           "markup.pt.trace.json", NULL);
  g_autofree char *path = g_build_filename (tmpdir, "run <&> \"x\" 'y'.pt.trace.json", NULL);
  g_autofree char *contents = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpAnnotations) notes = NULL;
  CpWindow *window;
  CpAnalysis *analysis;
  CpViewState *view;
  CpTrace *trace;
  GtkWidget *findings, *kernels, *capture, *details, *notes_pane, *steps;
  const char *kernel = "volta_sgemm_128x64_nn<float, 8> & \"k\" 'q' </span>";
  const char *op = "aten::mm <&> \"op\"";

  if (!g_file_test (src, G_FILE_TEST_EXISTS))
    {
      g_clear_pointer (&src, g_free);
      src = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "data", "markup", "markup.pt.trace.json", NULL);
    }
  g_assert_true (g_file_get_contents (src, &contents, &len, &error));
  g_assert_true (g_file_set_contents (path, contents, len, &error));
  file = g_file_new_for_path (path);
  window = cp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (analysed, window, "the analysis");
  analysis = cp_window_get_analysis (window);
  trace = cp_window_get_trace (window);
  view = cp_window_get_view_state (window);
  findings = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_FINDINGS_PANE);
  kernels = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_KERNELS_PANE);
  capture = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_CAPTURE_PANE);
  details = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_DETAILS_PANE);
  notes_pane = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_NOTES_PANE);
  steps = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_STEPS_PANE);

  /* The title is the file's name, as it is. */
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "run <&> \"x\" 'y'.pt.trace.json");

  /* Findings: the verdict, and the figures with their "< 10%" thresholds. */
  show_page (window, findings);
  g_assert_true (cp_ui_label_tree_has (findings, cp_analysis_get_verdict (analysis)->text));
  g_assert_true (cp_findings_pane_select (CP_FINDINGS_PANE (findings), "no-mixed-precision"));
  cp_ui_wait_shows (findings, "16-bit share of device compute time (XProf)");
  g_assert_true (cp_ui_label_tree_has (findings, "< 10.0%"));
  g_assert_true (cp_findings_pane_step_evidence (CP_FINDINGS_PANE (findings), 1) >= 0);

  /* Capture: process and device names. */
  show_page (window, capture);
  g_assert_true (cp_ui_label_tree_has (capture, "GPU <&> \"dev\" 'x'"));

  /* Kernels and host ops. */
  show_page (window, kernels);
  g_assert_true (cp_ui_label_tree_has (kernels, kernel));
  g_assert_true (cp_ui_label_tree_has (kernels, op));

  show_page (window, steps);

  /* Details of the kernel, with its flow link (markup) to the launch. */
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    if (cp_lane_get_kind (cp_trace_get_lane (trace, l)) == CP_LANE_KERNEL)
      cp_view_state_set_selected (view, (CpSliceRef) { l, 0 });
  show_page (window, details);
  g_assert_true (cp_ui_label_tree_has (details, kernel));
  g_assert_true (cp_ui_label_tree_has (details, "cudaLaunchKernel"));
  /* And of the launch, whose flow link names the kernel. */
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      if (cp_lane_get_kind (lane) != CP_LANE_HOST_THREAD)
        continue;
      for (guint i = 0; i < s->n; i++)
        if (g_str_equal (cp_trace_get_string (trace, cp_slices_get_name (s, i)), "cudaLaunchKernel"))
          {
            cp_view_state_set_selected (view, (CpSliceRef) { l, i });
            break;
          }
    }
  cp_ui_wait_shows (details, "cudaLaunchKernel");
  g_assert_true (cp_ui_label_tree_has (details, kernel));

  /* A note, on the Notes page. */
  g_object_get (window, "annotations", &notes, NULL);
  g_assert_nonnull (notes);
  cp_annotations_add_note (notes, 100 * CP_NS_PER_US, 400 * CP_NS_PER_US, 0, HOSTILE_NOTE, 0x3584e4ff);
  show_page (window, notes_pane);
  g_assert_true (cp_ui_label_tree_has (notes_pane, HOSTILE_NOTE));

  cp_ui_destroy_window (GTK_WINDOW (window));
}


int
main (int   argc,
      char *argv[])
{
  int status;

  setlocale (LC_ALL, "");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  /* No transitions: the screenshots show the pages, not a crossfade. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  tmpdir = cp_test_make_tmpdir ();
  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/analysis-panes/input-bound", test_input_bound);
  g_test_add_func ("/analysis-panes/healthy", test_healthy);
  g_test_add_func ("/analysis-panes/launch-bound", test_reload_replaces_analysis);
  g_test_add_func ("/analysis-panes/markup", test_markup);

  status = g_test_run ();
  g_object_unref (app);
  cp_test_rm_rf (tmpdir);
  g_free (tmpdir);
  return status;
}
