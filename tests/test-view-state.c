/* test-view-state.c: zoom and pan math, selection, highlights and layout preferences
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "model/cp-trace-builder.h"
#include "render/cp-view-state.h"

/* A trace of `duration` ns with one slice per 1000 ns on one host lane. */
static CpTrace *
make_trace (gint64 duration)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint lane2 = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
  CpStr name = cp_trace_builder_intern (b, "op", -1);
  CpTrace *trace;

  for (gint64 t = 0; t < duration; t += 1000)
    {
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.start = t;
      init.dur = MIN (500, duration - t);
      init.name = name;
      cp_trace_builder_add_slice (b, t % 2000 ? lane : lane2, &init);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  return trace;
}

static guint n_changes;
static guint last_change;

static void
changed_cb (CpViewState *view,
            guint        what,
            gpointer     data)
{
  n_changes++;
  last_change = what;
}

static void
test_fit_and_limits (void)
{
  g_autoptr(CpTrace) trace = make_trace (10 * CP_NS_PER_MS);
  CpViewState *view = cp_view_state_new ();

  cp_view_state_set_viewport_width (view, 1000);
  cp_view_state_set_trace (view, trace);
  g_assert_cmpint (cp_view_state_get_visible_start (view), ==, 0);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, cp_trace_get_duration (trace));

  /* Zooming out further than the whole trace does nothing. */
  cp_view_state_zoom (view, 4.0, 5 * CP_NS_PER_MS);
  g_assert_cmpint (cp_view_state_get_visible_start (view), ==, 0);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, cp_trace_get_duration (trace));

  /* Zooming in stops at 1 ns per pixel. */
  for (guint i = 0; i < 100; i++)
    cp_view_state_zoom_at_x (view, 0.5, 300);
  g_assert_cmpint (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view), ==, 1000);
  g_assert_cmpint (cp_view_state_get_min_span (view), ==, 1000);

  /* Panning stops at both ends. */
  cp_view_state_pan (view, -100 * CP_NS_PER_MS);
  g_assert_cmpint (cp_view_state_get_visible_start (view), ==, 0);
  cp_view_state_pan (view, 100 * CP_NS_PER_MS);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, cp_trace_get_duration (trace));

  /* A wider viewport raises the limit and widens the range. */
  cp_view_state_set_viewport_width (view, 2000);
  g_assert_cmpint (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view), ==, 2000);
  g_assert_cmpint (cp_view_state_get_visible_end (view), <=, cp_trace_get_duration (trace));

  cp_view_state_fit_all (view);
  g_assert_cmpint (cp_view_state_get_visible_start (view), ==, 0);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, cp_trace_get_duration (trace));

  g_assert_finalize_object (view);
}

static void
test_zoom_keeps_anchor (void)
{
  g_autoptr(CpTrace) trace = make_trace (10 * CP_NS_PER_S / 1000);
  CpViewState *view = cp_view_state_new ();
  GRand *rand = g_rand_new_with_seed (42);

  cp_view_state_set_viewport_width (view, 1600);
  cp_view_state_set_trace (view, trace);

  /* Random zooms at random pointer positions: the time under the pointer
   * stays under it (within a pixel) unless a limit is reached. */
  for (guint i = 0; i < 2000; i++)
    {
      double x = g_rand_double_range (rand, 0, 1600);
      double factor = g_rand_boolean (rand) ? g_rand_double_range (rand, 0.2, 0.99)
                                            : g_rand_double_range (rand, 1.01, 3.0);
      double before = cp_view_state_x_to_time (view, x);
      gint64 span = cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view);
      gint64 new_span;
      double x_after;

      cp_view_state_zoom_at_x (view, factor, x);
      new_span = cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view);
      x_after = cp_view_state_time_to_x (view, (gint64) llround (before));
      g_assert_cmpint (new_span, >=, cp_view_state_get_min_span (view));
      g_assert_cmpint (new_span, <=, cp_view_state_get_max_span (view));
      g_assert_cmpint (cp_view_state_get_visible_start (view), >=, 0);
      g_assert_cmpint (cp_view_state_get_visible_end (view), <=, cp_trace_get_duration (trace));
      /* Limits: at the whole trace, or pinned to an edge. */
      if (new_span != cp_view_state_get_max_span (view) &&
          cp_view_state_get_visible_start (view) != 0 &&
          cp_view_state_get_visible_end (view) != cp_trace_get_duration (trace))
        g_assert_cmpfloat (fabs (x_after - x), <=, 1.0);
      if (factor < 1 && span > cp_view_state_get_min_span (view) * 2)
        g_assert_cmpint (new_span, <, span);
    }

  /* Pan by pixels moves by exactly that many pixels' worth of time. */
  cp_view_state_set_visible_range (view, 1000000, 2600000);
  cp_view_state_pan_pixels (view, 160);
  g_assert_cmpint (cp_view_state_get_visible_start (view), ==, 1160000);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, 2760000);

  g_rand_free (rand);
  g_assert_finalize_object (view);
}

static void
test_selection_and_signals (void)
{
  g_autoptr(CpTrace) trace = make_trace (100000);
  CpViewState *view = cp_view_state_new ();
  CpViewState *copy;
  CpHighlight h[2] = { { 0, 10, 20, 0 }, { CP_LANE_ALL, 5, 1, 0 } };
  CpSliceRef refs[3] = { { 1, 3 }, { 0, 7 }, { 0, 2 } };
  const CpSliceRef *m;
  const CpHighlight *hl;
  CpMark mark = { 7, CP_LANE_ALL, CP_SLICE_REF_NONE, 100, 50, 0, "note" };
  guint n;

  g_signal_connect (view, "changed", G_CALLBACK (changed_cb), NULL);
  cp_view_state_set_trace (view, trace);
  g_assert_true (last_change & CP_VIEW_CHANGE_TRACE);

  n_changes = 0;
  cp_view_state_set_selected (view, (CpSliceRef) { 0, 3 });
  g_assert_cmpuint (n_changes, ==, 1);
  g_assert_cmpuint (last_change, ==, CP_VIEW_CHANGE_SELECTION);
  g_assert_true (cp_view_state_has_selected (view));
  /* Same selection: no signal. An invalid reference clears. */
  cp_view_state_set_selected (view, (CpSliceRef) { 0, 3 });
  g_assert_cmpuint (n_changes, ==, 1);
  cp_view_state_set_selected (view, (CpSliceRef) { 9, 3 });
  g_assert_false (cp_view_state_has_selected (view));

  cp_view_state_set_selected (view, (CpSliceRef) { 0, 3 });
  g_assert_true (cp_view_state_fit_selection (view));
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, cp_trace_slice_start (trace, (CpSliceRef) { 0, 3 }));

  cp_view_state_set_highlights (view, CP_HIGHLIGHT_FINDING, h, 2);
  cp_view_state_set_highlights (view, CP_HIGHLIGHT_SEARCH, h, 1);
  hl = cp_view_state_get_highlights (view, &n);
  g_assert_cmpuint (n, ==, 3);
  /* Reversed ranges are put right. */
  g_assert_cmpint (hl[1].start, ==, 1);
  g_assert_cmpint (hl[1].end, ==, 5);
  cp_view_state_set_highlights (view, CP_HIGHLIGHT_FINDING, NULL, 0);
  hl = cp_view_state_get_highlights (view, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (hl[0].kind, ==, CP_HIGHLIGHT_SEARCH);

  cp_view_state_set_search_matches (view, refs, 3);
  m = cp_view_state_get_search_matches (view, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (m[0].lane, ==, 0);
  g_assert_cmpuint (m[0].index, ==, 2);
  g_assert_cmpuint (m[2].lane, ==, 1);
  g_assert_true (cp_view_state_is_search_match (view, (CpSliceRef) { 0, 7 }));
  g_assert_false (cp_view_state_is_search_match (view, (CpSliceRef) { 0, 8 }));

  cp_view_state_set_time_selection (view, 500, 100);
  g_assert_true (cp_view_state_get_time_selection (view, NULL, NULL));

  cp_view_state_set_marks (view, &mark, 1);
  cp_view_state_set_lane_pinned (view, 1, TRUE);
  cp_view_state_set_lane_hidden (view, 0, TRUE);
  cp_view_state_set_group_collapsed (view, 0, TRUE);

  /* A copy keeps every value and is independent. */
  copy = cp_view_state_copy (view);
  cp_view_state_set_selected (view, CP_SLICE_REF_NONE);
  cp_view_state_set_lane_hidden (view, 0, FALSE);
  g_assert_true (cp_view_state_has_selected (copy));
  g_assert_true (cp_view_state_get_lane_hidden (copy, 0));
  g_assert_true (cp_view_state_get_lane_pinned (copy, 1));
  g_assert_true (cp_view_state_get_group_collapsed (copy, 0));
  g_assert_cmpstr (cp_view_state_get_marks (copy, &n)[0].label, ==, "note");
  g_assert_cmpint (cp_view_state_get_marks (copy, &n)[0].end, ==, 100);
  g_assert_cmpuint (n, ==, 1);
  cp_view_state_get_search_matches (copy, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (cp_view_state_get_visible_start (copy), ==, cp_view_state_get_visible_start (view));
  g_assert_finalize_object (copy);

  /* Layout serial moves with layout changes only. */
  n = cp_view_state_get_layout_serial (view);
  cp_view_state_set_devices_first (view, TRUE);
  g_assert_cmpuint (cp_view_state_get_layout_serial (view), >, n);
  g_assert_true (last_change == CP_VIEW_CHANGE_LAYOUT);

  /* A new trace clears the per-trace state. */
  cp_view_state_set_trace (view, NULL);
  cp_view_state_get_marks (view, &n);
  g_assert_cmpuint (n, ==, 0);
  g_assert_false (cp_view_state_get_time_selection (view, NULL, NULL));
  g_assert_true (cp_view_state_get_devices_first (view));

  g_assert_finalize_object (view);
}

static void
test_select_and_reveal (void)
{
  g_autoptr(CpTrace) trace = make_trace (10 * CP_NS_PER_MS);
  CpViewState *view = cp_view_state_new ();
  CpSliceRef ref = { 0, 4000 };
  gint64 s, d;

  cp_view_state_set_viewport_width (view, 1000);
  cp_view_state_set_trace (view, trace);
  s = cp_trace_slice_start (trace, ref);
  d = cp_trace_slice_dur (trace, ref);
  /* 500 ns in a 10 ms view is a speck: it zooms in to it. */
  cp_view_state_select_and_reveal (view, ref);
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, s);
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, s + d);
  g_assert_cmpfloat (cp_view_state_time_to_x (view, s + d) - cp_view_state_time_to_x (view, s), >=, 2.0);
  g_assert_finalize_object (view);
}

/* The ruler's origin: 0 until set, a redraw (a range change) when set,
 * kept by a copy (what a worker draws), and no signal when unchanged. */
static void
test_ruler_origin (void)
{
  g_autoptr(CpTrace) trace = make_trace (10 * CP_NS_PER_MS);
  CpViewState *view = cp_view_state_new ();
  CpViewState *copy;

  cp_view_state_set_trace (view, trace);
  g_assert_cmpint (cp_view_state_get_ruler_origin (view), ==, 0);
  g_signal_connect (view, "changed", G_CALLBACK (changed_cb), NULL);
  n_changes = 0;
  cp_view_state_set_ruler_origin (view, 3 * CP_NS_PER_MS);
  g_assert_cmpuint (n_changes, ==, 1);
  g_assert_cmpuint (last_change, ==, CP_VIEW_CHANGE_RANGE);
  cp_view_state_set_ruler_origin (view, 3 * CP_NS_PER_MS);
  g_assert_cmpuint (n_changes, ==, 1);
  g_assert_cmpint (cp_view_state_get_ruler_origin (view), ==, 3 * CP_NS_PER_MS);
  copy = cp_view_state_copy (view);
  g_assert_cmpint (cp_view_state_get_ruler_origin (copy), ==, 3 * CP_NS_PER_MS);
  g_assert_finalize_object (copy);
  g_assert_finalize_object (view);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/view-state/fit-and-limits", test_fit_and_limits);
  g_test_add_func ("/view-state/zoom-keeps-anchor", test_zoom_keeps_anchor);
  g_test_add_func ("/view-state/selection-and-signals", test_selection_and_signals);
  g_test_add_func ("/view-state/select-and-reveal", test_select_and_reveal);
  g_test_add_func ("/view-state/ruler-origin", test_ruler_origin);

  return g_test_run ();
}
