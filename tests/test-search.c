/* test-search.c: finding slices by name, and the statistics of a range
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "model/cp-trace-builder.h"
#include "render/cp-range-stats.h"
#include "render/cp-search.h"

static CpTrace *
make_trace (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_pid (b, 1);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint kl = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  guint cl = cp_trace_builder_lane (b, gpu, CP_LANE_COUNTER, (CpLaneKey) { 0, 1 });
  const char *kernels[] = { "ampere_sgemm_128x64", "Memcpy", "ampere_sgemm_64x64", "elementwise" };
  CpTrace *trace;

  /* Kernels every 100 ns, 10..40 ns long; launches on the host lane. */
  for (guint i = 0; i < 40; i++)
    {
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.start = 1000 + i * 100;
      init.dur = 10 + (i % 4) * 10;
      init.name = cp_trace_builder_intern (b, kernels[i % 4], -1);
      cp_trace_builder_add_slice (b, kl, &init);
      init.start = 990 + i * 100;
      init.dur = 5;
      init.name = cp_trace_builder_intern (b, "cudaLaunchKernel", -1);
      cp_trace_builder_add_slice (b, hl, &init);
    }
  cp_trace_builder_add_counter (b, cl, 0, 1);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  return trace;
}

static void
test_substring (void)
{
  g_autoptr(CpTrace) trace = make_trace ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpSearchResult) r = NULL;

  /* Smart case: lower case matches any case. */
  r = cp_search_run (trace, "sgemm", CP_SEARCH_SUBSTRING, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->n_matches, ==, 20);
  g_assert_cmpuint (r->n_names, ==, 2);
  /* Durations 10 and 30 ns, ten of each. */
  g_assert_cmpint (r->total, ==, 10 * 10 + 10 * 30);
  g_assert_cmpint (r->max, ==, 30);
  g_assert_cmpfloat (cp_search_result_mean (r), ==, 20.0);
  g_assert_cmpstr (cp_trace_slice_name (trace, r->longest), ==, "ampere_sgemm_64x64");
  for (guint i = 1; i < r->n_matches; i++)
    {
      g_assert_true (r->matches[i - 1].lane < r->matches[i].lane ||
                     (r->matches[i - 1].lane == r->matches[i].lane &&
                      r->matches[i - 1].index < r->matches[i].index));
      g_assert_cmpint (cp_trace_slice_start (trace, r->by_time[i - 1]), <=,
                       cp_trace_slice_start (trace, r->by_time[i]));
    }
  g_clear_pointer (&r, cp_search_result_free);

  r = cp_search_run (trace, "memcpy", CP_SEARCH_SUBSTRING, NULL, &error);
  g_assert_cmpuint (r->n_matches, ==, 10);
  g_clear_pointer (&r, cp_search_result_free);
  /* A capital makes it case-sensitive. */
  r = cp_search_run (trace, "MEMCPY", CP_SEARCH_SUBSTRING, NULL, &error);
  g_assert_cmpuint (r->n_matches, ==, 0);
  g_clear_pointer (&r, cp_search_result_free);
  /* Across lanes. */
  r = cp_search_run (trace, "launch", CP_SEARCH_SUBSTRING, NULL, &error);
  g_assert_cmpuint (r->n_matches, ==, 40);
  g_clear_pointer (&r, cp_search_result_free);
  r = cp_search_run (trace, "", CP_SEARCH_SUBSTRING, NULL, &error);
  g_assert_cmpuint (r->n_matches, ==, 0);
}

static void
test_regex_and_errors (void)
{
  g_autoptr(CpTrace) trace = make_trace ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpSearchResult) r = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  r = cp_search_run (trace, "^ampere_.*128", CP_SEARCH_REGEX, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->n_matches, ==, 10);
  g_clear_pointer (&r, cp_search_result_free);

  r = cp_search_run (trace, "sgemm(", CP_SEARCH_REGEX, NULL, &error);
  g_assert_null (r);
  g_assert_true (error->domain == G_REGEX_ERROR);
  g_clear_error (&error);

  g_cancellable_cancel (cancellable);
  r = cp_search_run (trace, "a", CP_SEARCH_SUBSTRING, cancellable, &error);
  g_assert_null (r);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_step (void)
{
  g_autoptr(CpTrace) trace = make_trace ();
  g_autoptr(CpSearchResult) r = cp_search_run (trace, "elementwise", CP_SEARCH_SUBSTRING, NULL, NULL);
  CpSliceRef cur = CP_SLICE_REF_NONE;
  gint pos;

  g_assert_cmpuint (r->n_matches, ==, 10);
  g_assert_cmpint (cp_search_result_step (r, trace, cur, TRUE), ==, 0);
  g_assert_cmpint (cp_search_result_step (r, trace, cur, FALSE), ==, 9);
  /* Forward through all of them, then around. */
  for (guint i = 0; i < 10; i++)
    {
      pos = cp_search_result_step (r, trace, cur, TRUE);
      g_assert_cmpint (pos, ==, (gint) i);
      cur = r->by_time[pos];
    }
  g_assert_cmpint (cp_search_result_step (r, trace, cur, TRUE), ==, 0);
  g_assert_cmpint (cp_search_result_step (r, trace, cur, FALSE), ==, 8);
  /* From a slice that is not a match: the next match after it in time. */
  cur = (CpSliceRef) { r->by_time[3].lane, r->by_time[3].index - 1 };
  g_assert_cmpint (cp_search_result_step (r, trace, cur, TRUE), ==, 3);
  g_assert_cmpint (cp_search_result_step (r, trace, cur, FALSE), ==, 2);
}

static void
test_range_stats (void)
{
  g_autoptr(CpTrace) trace = make_trace ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) stats = NULL;

  /* [1000, 1400): kernels at 1000 (10), 1100 (20), 1200 (30), 1300 (40). */
  stats = cp_range_stats_compute (trace, 1000, 1400, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats->len, ==, 2);
  for (guint i = 0; i < stats->len; i++)
    {
      CpRangeLaneStats *st = &g_array_index (stats, CpRangeLaneStats, i);
      CpLane *lane = cp_trace_get_lane (trace, st->lane);

      if (cp_lane_get_kind (lane) == CP_LANE_KERNEL)
        {
          g_assert_cmpuint (st->slices, ==, 4);
          g_assert_cmpint (st->busy, ==, 100);
        }
      else
        {
          /* Launches at 990 (ends 995, before the range), 1090, 1190, 1290, 1390. */
          g_assert_cmpuint (st->slices, ==, 4);
          g_assert_cmpint (st->busy, ==, 5 * 3 + 5);
        }
    }
  g_clear_pointer (&stats, g_array_unref);
  stats = cp_range_stats_compute (trace, 50000, 60000, NULL, &error);
  g_assert_cmpuint (stats->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/search/substring", test_substring);
  g_test_add_func ("/search/regex-and-errors", test_regex_and_errors);
  g_test_add_func ("/search/step", test_step);
  g_test_add_func ("/search/range-stats", test_range_stats);

  return g_test_run ();
}
