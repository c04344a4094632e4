/* test-panes.c: each side pane built alone on a small trace
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No window and no application: a pane, the trace, its analysis and a view
 * state made here. What the panes show is checked against the trace as it
 * was built (two steps, three launches of two kernels), the properties and
 * their notifications against CpPane's contract, and every pane must be
 * finalized when the test lets go of it. Each test makes its own objects,
 * so they run in any order and alone (-p).
 */

#include "config.h"

#include <adwaita.h>
#include <locale.h>
#include <string.h>

#include "cp-capture-pane.h"
#include "cp-details-pane.h"
#include "cp-findings-pane.h"
#include "cp-kernels-pane.h"
#include "cp-notes-pane.h"
#include "cp-steps-pane.h"
#include "cp-test-trace.h"
#include "cp-timeline-pane.h"
#include "cp-ui-test-util.h"

/* The trace: times in ns. */
#define STEP1_START     0
#define STEP2_START     100000
#define STEP2_END       190000
#define VOLTA_START     50000
#define VOLTA_DUR       70000
#define AMPERE_DUR_1    40000
#define AMPERE_DUR_2    5000

typedef struct
{
  CpTrace    *trace;
  CpAnalysis *analysis;
  guint       host_lane;
  CpSliceRef  volta;       /* the kernel of the first launch */
  CpSliceRef  volta_call;  /* ...and its launch call */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint s7 = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(GError) error = NULL;

  f->host_lane = cp_test_trace_host_lane (b, 1);
  cp_test_trace_slice (b, f->host_lane, STEP1_START, STEP2_START - STEP1_START, "ProfilerStep#1");
  cp_test_trace_slice (b, f->host_lane, STEP2_START, STEP2_END - STEP2_START, "ProfilerStep#2");
  /* A framework op around the first launch: the only host op (runtime
   * calls and steps are not). */
  cp_test_trace_slice (b, f->host_lane, 38000, 15000, "aten::mm");
  f->volta = cp_test_trace_launch (b, f->host_lane, 40000, 10000, s7, VOLTA_START, VOLTA_DUR, "volta_h884gemm");
  cp_test_trace_launch (b, f->host_lane, 130000, 10000, s7, 140000, AMPERE_DUR_1, "ampere_sgemm");
  cp_test_trace_launch (b, f->host_lane, 150000, 10000, s7, 180000, AMPERE_DUR_2, "ampere_sgemm");
  cp_trace_builder_detect_profiler_steps (b);
  f->trace = cp_test_trace_finish (b);
  f->analysis = cp_analysis_new (f->trace, NULL, &error);
  g_assert_no_error (error);

  /* The launch call: the host slice that starts at 40 µs. */
  {
    CpLane *lane = cp_trace_get_lane (f->trace, f->host_lane);
    gboolean found = FALSE;

    for (guint i = 0; i < cp_lane_get_n_slices (lane) && !found; i++)
      {
        CpSliceRef r = { f->host_lane, i };

        if (cp_trace_slice_start (f->trace, r) == 40000)
          {
            f->volta_call = r;
            found = TRUE;
          }
      }
    g_assert_true (found);
  }
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->analysis);
  /* The timeline's index and the Details pane's range count hold it. */
  cp_ui_wait_finalized (f->trace, "the trace to be finalized");
}

/* Helpers */

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

/* Sets a property twice: one notification for the change, none for the
 * same value again; the getter reads back what was set. */
static void
check_set_notifies (gpointer    object,
                    const char *property,
                    gpointer    value)
{
  g_autofree char *signal = g_strconcat ("notify::", property, NULL);
  guint count = 0;
  gulong id = g_signal_connect (object, signal, G_CALLBACK (count_notify_cb), &count);
  g_autoptr(GObject) read = NULL;

  g_object_set (object, property, value, NULL);
  g_assert_cmpuint (count, ==, 1);
  g_object_set (object, property, value, NULL);
  g_assert_cmpuint (count, ==, 1);
  g_object_get (object, property, &read, NULL);
  g_assert_true (read == value);
  g_signal_handler_disconnect (object, id);
}

/* Every pane starts with nothing. */
static void
check_empty_properties (CpPane *pane)
{
  g_assert_null (cp_pane_get_trace (pane));
  g_assert_null (cp_pane_get_view_state (pane));
  g_assert_null (cp_pane_get_analysis (pane));
  g_assert_false (cp_pane_is_ready (pane));
}

/* The page CpPane shows: "none", "running" or "results". */
static const char *
pane_page (CpPane *pane)
{
  GtkWidget *stack = gtk_widget_get_first_child (GTK_WIDGET (pane));

  g_assert_true (GTK_IS_STACK (stack));
  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

/* Whether a label that is shown (on the visible page of every stack above
 * it) contains text. */
static gboolean
shown_label_has (GtkWidget  *widget,
                 const char *text)
{
  if (!gtk_widget_get_visible (widget) || !gtk_widget_get_child_visible (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    if (shown_label_has (child, text))
      return TRUE;
  return FALSE;
}

/* A pane that waits for the analysis: nothing without a trace,
 * "Analysing…" with a trace but not its analysis (none, or another
 * trace's), the results with both, and nothing again without a trace. */
static void
check_waits_for_analysis (CpPane  *pane,
                          Fixture *f)
{
  g_autoptr(CpViewState) view = cp_view_state_new ();
  g_autoptr(CpTrace) other = cp_test_trace_finish (cp_test_trace_new ());
  g_autoptr(CpAnalysis) other_analysis = cp_analysis_new (other, NULL, NULL);

  check_empty_properties (pane);
  g_assert_cmpstr (pane_page (pane), ==, "none");

  cp_view_state_set_trace (view, f->trace);
  check_set_notifies (pane, "view-state", view);
  check_set_notifies (pane, "trace", f->trace);
  g_assert_cmpstr (pane_page (pane), ==, "running");
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Analysing the capture"));

  check_set_notifies (pane, "analysis", other_analysis);
  g_assert_false (cp_pane_is_ready (pane));
  g_assert_cmpstr (pane_page (pane), ==, "running");

  check_set_notifies (pane, "analysis", f->analysis);
  g_assert_true (cp_pane_is_ready (pane));
  g_assert_cmpstr (pane_page (pane), ==, "results");
  g_assert_false (shown_label_has (GTK_WIDGET (pane), "Analysing the capture"));

  cp_pane_set_trace (pane, NULL);
  g_assert_cmpstr (pane_page (pane), ==, "none");
  cp_pane_set_trace (pane, f->trace);
  g_assert_cmpstr (pane_page (pane), ==, "results");

  /* The other trace's objects go with this scope. */
  cp_pane_set_analysis (pane, f->analysis);
}

/* Tests */

static void
test_findings (Fixture       *f,
               gconstpointer  data)
{
  CpFindingsPane *pane = g_object_ref_sink (CP_FINDINGS_PANE (cp_findings_pane_new ()));
  GListModel *findings = cp_analysis_get_findings (f->analysis);

  g_assert_cmpstr (cp_findings_pane_get_verdict_text (pane), ==, "");
  check_waits_for_analysis (CP_PANE (pane), f);

  /* One row per finding of the analysis, and its verdict. */
  g_assert_cmpuint (cp_findings_pane_get_n_findings (pane), ==, g_list_model_get_n_items (findings));
  g_assert_cmpstr (cp_findings_pane_get_verdict_text (pane), ==, cp_analysis_get_verdict (f->analysis)->text);
  /* The fixture has two steps: the verdict is provisional, and the banner
   * under it says why. */
  g_assert_nonnull (cp_findings_pane_get_confidence_text (pane));
  g_assert_true (g_str_has_prefix (cp_findings_pane_get_confidence_text (pane), "Provisional: "));
  g_assert_nonnull (strstr (cp_findings_pane_get_confidence_text (pane), "2 steps"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Provisional: "));
  g_assert_null (cp_findings_pane_get_selected (pane));
  if (g_list_model_get_n_items (findings) > 0)
    {
      g_autoptr(CpFinding) first = g_list_model_get_item (findings, 0);

      g_assert_true (cp_findings_pane_select (pane, cp_finding_get_rule_id (first)));
      g_assert_true (cp_findings_pane_get_selected (pane) != NULL);
    }
  g_assert_false (cp_findings_pane_select (pane, "no-such-rule"));

  /* Without the analysis the findings go. */
  cp_pane_set_analysis (CP_PANE (pane), NULL);
  g_assert_cmpuint (cp_findings_pane_get_n_findings (pane), ==, 0);
  g_assert_cmpstr (pane_page (CP_PANE (pane)), ==, "running");

  g_assert_finalize_object (pane);
}

static void
test_steps (Fixture       *f,
            gconstpointer  data)
{
  CpStepsPane *pane = g_object_ref_sink (CP_STEPS_PANE (cp_steps_pane_new ()));

  check_waits_for_analysis (CP_PANE (pane), f);

  /* The two ProfilerSteps built above. */
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "2 steps"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Time per category"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Click a bar to zoom"));
  /* The chart follows the pane's view state. */
  g_assert_nonnull (cp_steps_pane_get_chart (pane));

  g_assert_finalize_object (pane);
}

static void
view_changed_cb (CpViewState *view,
                 guint        what,
                 guint       *count)
{
  (*count)++;
}

static void
test_kernels (Fixture       *f,
              gconstpointer  data)
{
  CpKernelsPane *pane = g_object_ref_sink (CP_KERNELS_PANE (cp_kernels_pane_new ()));
  CpViewState *view;
  const CpHighlight *hl;
  guint n = 0, changes = 0;

  g_assert_cmpuint (cp_kernels_pane_get_n_rows (pane), ==, 0);
  check_waits_for_analysis (CP_PANE (pane), f);
  view = cp_pane_get_view_state (CP_PANE (pane));

  /* Two kernel names, longest total first: volta 70 µs, ampere 45 µs. */
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (pane), ==, 2);
  g_assert_cmpstr (cp_kernels_pane_get_row_name (pane, 0), ==, "volta_h884gemm");
  g_assert_cmpstr (cp_kernels_pane_get_row_name (pane, 1), ==, "ampere_sgemm");
  g_assert_true (cp_kernels_pane_sort_by (pane, "count", TRUE));
  g_assert_cmpstr (cp_kernels_pane_get_row_name (pane, 0), ==, "ampere_sgemm");
  g_assert_false (cp_kernels_pane_sort_by (pane, "no-such-column", TRUE));

  /* Selecting a row highlights each of its slices on the timeline. */
  g_signal_connect (view, "changed", G_CALLBACK (view_changed_cb), &changes);
  cp_kernels_pane_select_row (pane, 0);
  g_assert_cmpuint (changes, >, 0);
  hl = cp_view_state_get_highlights (view, &n);
  g_assert_cmpuint (n, ==, 2);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (hl[i].end - hl[i].start, ==, i == 0 ? AMPERE_DUR_1 : AMPERE_DUR_2);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "2 slices highlighted"));
  g_signal_handlers_disconnect_by_func (view, view_changed_cb, &changes);

  /* The filter (either case), then the host ops: aten::mm alone. */
  cp_kernels_pane_set_filter (pane, "VOLTA");
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (pane), ==, 1);
  cp_kernels_pane_set_filter (pane, NULL);
  cp_kernels_pane_show_kernels (pane, FALSE);
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (pane), ==, 1);
  g_assert_cmpstr (cp_kernels_pane_get_row_name (pane, 0), ==, "aten::mm");
  cp_kernels_pane_select_row (pane, 0);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "volta_h884gemm"));
  cp_kernels_pane_set_filter (pane, "relu");
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (pane), ==, 0);

  g_assert_finalize_object (pane);
}

static void
test_capture (Fixture       *f,
              gconstpointer  data)
{
  CpCapturePane *pane = g_object_ref_sink (CP_CAPTURE_PANE (cp_capture_pane_new ()));

  check_empty_properties (CP_PANE (pane));
  /* It needs no analysis: its groups show from the start. */
  g_assert_cmpstr (pane_page (CP_PANE (pane)), ==, "results");
  g_assert_false (shown_label_has (GTK_WIDGET (pane), "Time Span"));

  check_set_notifies (pane, "trace", f->trace);
  g_assert_cmpstr (pane_page (CP_PANE (pane)), ==, "results");
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Time Span"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Load Report"));
  cp_capture_pane_set_location (pane, "/somewhere/else/trace.json");
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "/somewhere/else/trace.json"));

  cp_pane_set_trace (CP_PANE (pane), NULL);
  g_assert_false (shown_label_has (GTK_WIDGET (pane), "Time Span"));

  g_assert_finalize_object (pane);
}

typedef struct
{
  GtkWidget  *pane;
  const char *text;
} LabelWait;

static gboolean
label_shown_cond (gpointer data)
{
  LabelWait *w = data;

  return shown_label_has (w->pane, w->text);
}

static void
test_details (Fixture       *f,
              gconstpointer  data)
{
  CpDetailsPane *pane = g_object_ref_sink (CP_DETAILS_PANE (cp_details_pane_new ()));
  g_autoptr(CpViewState) view = cp_view_state_new ();
  /* The header of the lanes' table, once the range is counted. */
  LabelWait wait = { GTK_WIDGET (pane), "Busy" };
  CpSliceRef selected;

  check_empty_properties (CP_PANE (pane));
  cp_view_state_set_trace (view, f->trace);
  check_set_notifies (pane, "trace", f->trace);
  check_set_notifies (pane, "view-state", view);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Nothing Selected"));
  g_assert_cmpuint (cp_details_pane_get_n_flows (pane), ==, 0);

  /* A kernel: its name, and the flow from its launch. */
  cp_view_state_set_selected (view, f->volta);
  g_assert_false (shown_label_has (GTK_WIDGET (pane), "Nothing Selected"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "volta_h884gemm"));
  g_assert_cmpuint (cp_details_pane_get_n_flows (pane), ==, 1);
  g_assert_true (cp_details_pane_follow_flow (pane, 0));
  selected = cp_view_state_get_selected (view);
  g_assert_cmpuint (selected.lane, ==, f->volta_call.lane);
  g_assert_cmpuint (selected.index, ==, f->volta_call.index);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "cudaLaunchKernel"));
  g_assert_false (cp_details_pane_follow_flow (pane, 5));

  /* With the analysis, the Source section: what is around the kernel's
   * launch, innermost first (aten::mm, then the step), as links. */
  g_assert_cmpuint (cp_details_pane_get_n_sources (pane), ==, 0);
  check_set_notifies (pane, "analysis", f->analysis);
  cp_view_state_set_selected (view, f->volta);
  g_assert_cmpuint (cp_details_pane_get_n_sources (pane), ==, 2);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Op: aten::mm"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Within: ProfilerStep#1"));
  g_assert_true (cp_details_pane_follow_source (pane, 0));
  selected = cp_view_state_get_selected (view);
  g_assert_cmpstr (cp_trace_slice_name (f->trace, selected), ==, "aten::mm");
  /* aten::mm's own: the step around it. */
  g_assert_cmpuint (cp_details_pane_get_n_sources (pane), ==, 1);
  g_assert_false (cp_details_pane_follow_source (pane, 1));

  /* A range: its figures are counted in a worker thread. */
  cp_view_state_set_selected (view, CP_SLICE_REF_NONE);
  cp_view_state_set_time_selection (view, STEP2_START, STEP2_END);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Selected Range"));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "Counting"));
  cp_ui_wait_for (label_shown_cond, &wait, "the range to be counted");
  g_assert_false (shown_label_has (GTK_WIDGET (pane), "Counting"));

  /* Another view state: the pane follows it and not the old one. */
  {
    g_autoptr(CpViewState) other = cp_view_state_new ();

    cp_pane_set_view_state (CP_PANE (pane), other);
    g_assert_true (shown_label_has (GTK_WIDGET (pane), "Nothing Selected"));
    cp_view_state_set_selected (view, f->volta);
    g_assert_true (shown_label_has (GTK_WIDGET (pane), "Nothing Selected"));
    cp_pane_set_view_state (CP_PANE (pane), NULL);
  }

  g_assert_finalize_object (pane);
}

static void
test_notes (Fixture       *f,
            gconstpointer  data)
{
  CpNotesPane *pane = g_object_ref_sink (CP_NOTES_PANE (cp_notes_pane_new ()));
  g_autoptr(CpViewState) view = cp_view_state_new ();
  g_autoptr(CpAnnotations) notes = cp_annotations_new ();
  GtkListBox *list;
  CpAnnotation *marker;

  check_empty_properties (CP_PANE (pane));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "No Notes"));

  cp_view_state_set_trace (view, f->trace);
  cp_annotations_set_trace (notes, f->trace);
  check_set_notifies (pane, "annotations", notes);
  check_set_notifies (pane, "view-state", view);
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "No Notes"));

  /* A marker: one row; activating it brings its time into view. */
  marker = cp_annotations_add_marker (notes, STEP2_END - 1000, CP_ANNOTATION_ALL_LANES, "here", 0);
  g_assert_nonnull (marker);
  g_assert_false (shown_label_has (GTK_WIDGET (pane), "No Notes"));
  list = GTK_LIST_BOX (cp_ui_find_widget (GTK_WIDGET (pane), GTK_TYPE_LIST_BOX));
  g_assert_nonnull (gtk_list_box_get_row_at_index (list, 0));
  g_assert_null (gtk_list_box_get_row_at_index (list, 1));
  cp_view_state_set_visible_range (view, STEP1_START, STEP1_START + 10000);
  cp_notes_pane_activate (pane, 0);
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, STEP2_END - 1000);
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, STEP2_END - 1000);

  cp_notes_pane_set_location (pane, "/notes/beside/trace.json");
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "/notes/beside/trace.json"));

  g_assert_true (cp_annotations_remove (notes, marker));
  g_assert_true (shown_label_has (GTK_WIDGET (pane), "No Notes"));

  g_assert_finalize_object (pane);
}

static gboolean
timeline_ready_cond (gpointer data)
{
  return cp_timeline_view_is_ready (data);
}

static void
test_timeline (Fixture       *f,
               gconstpointer  data)
{
  CpTimelinePane *pane = g_object_ref_sink (CP_TIMELINE_PANE (cp_timeline_pane_new ()));
  CpTimelineView *timeline = cp_timeline_pane_get_view (pane);
  CpFindBar *find_bar = cp_timeline_pane_get_find_bar (pane);
  g_autoptr(CpViewState) view = cp_view_state_new ();

  check_empty_properties (CP_PANE (pane));
  g_assert_cmpstr (pane_page (CP_PANE (pane)), ==, "results");

  /* The pane hands its trace and view state to the timeline and Find. */
  check_set_notifies (pane, "view-state", view);
  check_set_notifies (pane, "trace", f->trace);
  g_assert_true (cp_timeline_view_get_trace (timeline) == f->trace);
  g_assert_true (cp_timeline_view_get_view_state (timeline) == view);
  g_assert_true (cp_find_bar_get_view_state (find_bar) == view);
  cp_ui_wait_for (timeline_ready_cond, timeline, "the timeline's index");

  g_assert_false (cp_find_bar_is_open (find_bar));
  cp_timeline_pane_find (pane);
  g_assert_true (cp_find_bar_is_open (find_bar));
  cp_find_bar_close (find_bar);
  g_assert_false (cp_find_bar_is_open (find_bar));

  cp_pane_set_trace (CP_PANE (pane), NULL);
  g_assert_null (cp_timeline_view_get_trace (timeline));

  /* The index's task keeps the view until its callback has run, after
   * the index is there. */
  cp_ui_wait_finalized (pane, "the timeline pane to be finalized");
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

  g_test_add ("/ui/panes/findings", Fixture, NULL, fixture_set_up, test_findings, fixture_tear_down);
  g_test_add ("/ui/panes/steps", Fixture, NULL, fixture_set_up, test_steps, fixture_tear_down);
  g_test_add ("/ui/panes/kernels", Fixture, NULL, fixture_set_up, test_kernels, fixture_tear_down);
  g_test_add ("/ui/panes/capture", Fixture, NULL, fixture_set_up, test_capture, fixture_tear_down);
  g_test_add ("/ui/panes/details", Fixture, NULL, fixture_set_up, test_details, fixture_tear_down);
  g_test_add ("/ui/panes/notes", Fixture, NULL, fixture_set_up, test_notes, fixture_tear_down);
  g_test_add ("/ui/panes/timeline", Fixture, NULL, fixture_set_up, test_timeline, fixture_tear_down);

  return g_test_run ();
}
