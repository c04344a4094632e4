/* test-model.c: the trace builder and the immutable trace
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "model/cp-lane-private.h"
#include "model/cp-trace-builder.h"

static CpSliceRef
add (CpTraceBuilder *b,
     guint           lane,
     gint64          start,
     gint64          dur,
     const char     *name,
     gint64          corr)
{
  CpSliceInit init;

  cp_slice_init_clear (&init);
  init.start = start;
  init.dur = dur;
  init.name = cp_trace_builder_intern (b, name, -1);
  init.corr = corr;
  return cp_trace_builder_add_slice (b, lane, &init);
}

static void
test_empty (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  CpTrace *trace = cp_trace_builder_finish (b, &error);

  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY);
}

static void
test_sort_rows_origin (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 42);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 7, 0 });
  g_autoptr(CpTrace) trace = NULL;
  const CpSlices *s;
  CpLane *l;

  /* Unsorted, nested, one partial overlap. Absolute epoch-like times. */
  add (b, lane, 1700000000000000200, 50, "child", CP_NONE);
  add (b, lane, 1700000000000000100, 400, "parent", CP_NONE);
  add (b, lane, 1700000000000000300, 250, "overlap", CP_NONE);
  add (b, lane, 1700000000000000600, 10, "later", CP_NONE);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);

  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, 1700000000000000100);
  g_assert_cmpint (cp_trace_get_duration (trace), ==, 510);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 1);
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 4);

  l = cp_trace_get_lane (trace, 0);
  s = cp_lane_get_slices (l);
  g_assert_cmpint (cp_slices_get_start (s, 0), ==, 0);
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (s, 0)), ==, "parent");
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (s, 1)), ==, "child");
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (s, 2)), ==, "overlap");
  g_assert_cmpuint (s->row[0], ==, 0);
  g_assert_cmpuint (s->row[1], ==, 1);
  /* overlap starts inside parent but ends after it: an extra row below. */
  g_assert_cmpuint (s->row[2], >=, 1);
  g_assert_true (s->flags[2] & CP_SLICE_OVERLAP);
  /* later starts after everything before it ended: back on row 0. */
  g_assert_cmpuint (s->row[3], ==, 0);
  g_assert_cmpuint (cp_lane_get_n_rows (l), >=, 2);

  /* Queries. */
  g_assert_cmpint (cp_lane_slice_at (l, 120, -1), ==, 1);
  g_assert_cmpint (cp_lane_slice_at (l, 120, 0), ==, 0);
  g_assert_cmpint (cp_lane_slice_at (l, 1000, -1), ==, -1);
  g_assert_cmpuint (cp_lane_first_ending_after (l, 410), ==, 2);
  g_assert_cmpuint (cp_lane_first_starting_after (l, 200), ==, 3);
  g_assert_cmpint (cp_lane_busy_time (l, 0, 1000), ==, 460);
  g_assert_cmpint (cp_lane_busy_time (l, 450, 505), ==, 5);

  /* Rows: row 0 holds parent and later, in start order; every slice is on
   * exactly one row, and a row's slices never overlap. */
  {
    const guint32 *row;
    guint n, total = 0;

    row = cp_lane_get_row_slices (l, 0, &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpuint (row[0], ==, 0);
    g_assert_cmpuint (row[1], ==, 3);
    for (guint r = 0; r < cp_lane_get_n_rows (l); r++)
      {
        row = cp_lane_get_row_slices (l, r, &n);
        total += n;
        for (guint k = 1; k < n; k++)
          g_assert_cmpint (cp_slices_get_start (s, row[k]), >=, cp_slices_get_end (s, row[k - 1]));
      }
    g_assert_cmpuint (total, ==, 4);
    g_assert_null (cp_lane_get_row_slices (l, cp_lane_get_n_rows (l), &n));
    g_assert_cmpuint (n, ==, 0);
  }
}

/* A slice as a test added it, for an order worked out apart. */
typedef struct
{
  gint64 start;
  gint64 dur;
  guint  added;
} Added;

static gint
cmp_added (gconstpointer a,
           gconstpointer b)
{
  const Added *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur > y->dur ? -1 : 1;
  return x->added < y->added ? -1 : (x->added > y->added);
}

/* Kineto's order on a host thread: a step's operators in order, then the
 * step's runtime calls, which start inside them (fewer than a quarter of
 * the lane, as in real captures, so that the lane is sorted as an
 * in-order majority and a sorted rest merged). The late calls may be in
 * order among themselves (no sort needed) or not, by one swap at the very
 * start, in the middle or at the end; the lane must come out in start
 * order (longer first on ties, then as added), as a sort of what was
 * added says. */
static void
test_late_runs (void)
{
  for (guint variant = 0; variant < 4; variant++)
    {
      g_autoptr(GError) error = NULL;
      CpTraceBuilder *b = cp_trace_builder_new ();
      guint proc = cp_trace_builder_process_for_pid (b, 1);
      guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
      g_autoptr(GArray) added = g_array_new (FALSE, FALSE, sizeof (Added));
      g_autoptr(CpTrace) trace = NULL;
      const CpSlices *s;
      guint n_steps = 200, per_step = 30, late_per_step = 8, n_late = n_steps * late_per_step;
      guint swap = variant == 1 ? 0 : variant == 2 ? n_late / 2 : n_late - 2;

      for (guint step = 0; step < n_steps; step++)
        {
          gint64 t0 = (gint64) step * 1000000;
          Added late[30];

          for (guint o = 0; o < per_step; o++)
            {
              Added op = { t0 + o * 10000, 8000, added->len };

              add (b, lane, op.start, op.dur, "op", CP_NONE);
              g_array_append_val (added, op);
              late[o] = (Added) { op.start + 5000, 1000, 0 };
            }
          for (guint o = 0; o < late_per_step; o++)
            {
              guint at = step * late_per_step + o;
              /* The swapped pair's other half. */
              guint k = variant > 0 && at == swap ? o + 1 : variant > 0 && at == swap + 1 ? o - 1 : o;
              Added call = late[k];

              call.added = added->len;
              add (b, lane, call.start, call.dur, "cudaLaunchKernel", CP_NONE);
              g_array_append_val (added, call);
            }
        }
      trace = cp_trace_builder_finish (b, &error);
      g_assert_no_error (error);
      g_array_sort (added, cmp_added);
      s = cp_lane_get_slices (cp_trace_get_lane (trace, 0));
      g_assert_cmpuint (s->n, ==, added->len);
      for (guint i = 0; i < s->n; i++)
        {
          const Added *want = &g_array_index (added, Added, i);

          g_assert_cmpint (cp_slices_get_start (s, i) + cp_trace_get_origin_abs (trace), ==, want->start);
          g_assert_cmpint (cp_slices_get_dur (s, i), ==, want->dur);
        }
    }
}

static void
test_flows_and_correlation (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_pid (b, 100);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint hl, kl, kl2;
  CpSliceRef launch1, launch2;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (guint));
  const CpFlow *flows;
  guint n_flows;
  CpProcess *p;

  p = cp_trace_builder_get_process (b, gpu);
  p->is_device = TRUE;
  p->device = 0;
  p->sort_index = 5000000;
  hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  kl = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  kl2 = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 3, 0 });
  cp_trace_builder_set_lane_device (b, kl, 0, 7);
  cp_trace_builder_set_lane_device (b, kl2, 0, 3);

  launch2 = add (b, hl, 500, 10, "cudaLaunchKernel", 2);
  launch1 = add (b, hl, 100, 10, "cudaLaunchKernel", 1);
  add (b, kl, 200, 50, "gemm", 1);
  add (b, kl2, 600, 50, "relu", 2);
  /* An explicit flow for correlation 2 (ac2g): correlation must not add a twin. */
  cp_trace_builder_add_flow_point (b, 2, hl, 500, CP_FLOW_BIND_ENCLOSING, 0, CP_FLOW_LAUNCH, 0);
  cp_trace_builder_add_flow_point (b, 2, kl2, 600, CP_FLOW_BIND_ENCLOSING, 2, CP_FLOW_LAUNCH, 0);
  (void) launch1;
  (void) launch2;

  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  /* Host process first, then the device with its streams ordered by id. */
  g_assert_cmpint (cp_lane_get_kind (cp_trace_get_lane (trace, 0)), ==, CP_LANE_HOST_THREAD);
  g_assert_cmpint (cp_lane_get_stream (cp_trace_get_lane (trace, 1)), ==, 3);
  g_assert_cmpint (cp_lane_get_stream (cp_trace_get_lane (trace, 2)), ==, 7);

  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, 2);
  for (guint i = 0; i < n_flows; i++)
    {
      g_assert_cmpint (flows[i].kind, ==, CP_FLOW_LAUNCH);
      g_assert_cmpuint (flows[i].from.lane, ==, 0);
    }

  cp_trace_find_flows (trace, (CpSliceRef) { 2, 0 }, found);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_cmpuint (flows[g_array_index (found, guint, 0)].from.index, ==, 0);
  g_assert_true (cp_lane_get_slices (cp_trace_get_lane (trace, 2))->flags[0] & CP_SLICE_HAS_FLOW_IN);
  g_assert_true (cp_lane_get_slices (cp_trace_get_lane (trace, 0))->flags[0] & CP_SLICE_HAS_FLOW_OUT);
}

/* Flow end points added one by one, taken in a block, or both in either
 * order: the same flows, host call i to kernel i, whatever the path. */
typedef enum { POINTS_ADD, POINTS_TAKE, POINTS_ADD_THEN_TAKE, POINTS_TAKE_THEN_ADD } PointsPath;

static void
check_point_path (PointsPath path)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_pid (b, 100);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint hl, kl, n_flows, n_taken = 0;
  const guint n = 64;
  g_autoptr(CpTrace) trace = NULL;
  CpBuilderFlowPoint *block;
  const CpFlow *flows;
  CpStr ac2g;
  CpProcess *p;

  p = cp_trace_builder_get_process (b, gpu);
  p->is_device = TRUE;
  hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  kl = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  cp_trace_builder_set_link_correlations (b, FALSE);
  ac2g = cp_trace_builder_intern (b, "ac2g", -1);
  for (guint i = 0; i < n; i++)
    {
      add (b, hl, i * 1000, 100, "cudaLaunchKernel", CP_NONE);
      add (b, kl, i * 1000 + 400, 200, "gemm", CP_NONE);
    }

  /* Point pairs in reverse key order, so that only binding by key and
   * time, not insertion order, makes the expected flows. The block has
   * room past the points (for the finish's order, when all are taken). */
  block = g_new0 (CpBuilderFlowPoint, 3 * n);
  for (guint k = 0; k < n; k++)
    {
      guint i = n - 1 - k;
      gboolean taken = path == POINTS_TAKE ||
                       (path == POINTS_ADD_THEN_TAKE && k >= n / 2) ||
                       (path == POINTS_TAKE_THEN_ADD && k < n / 2);

      if (!taken)
        {
          cp_trace_builder_add_flow_point (b, 1000 + i, hl, i * 1000 + 50, CP_FLOW_BIND_ENCLOSING, 0,
                                           CP_FLOW_LAUNCH, ac2g);
          cp_trace_builder_add_flow_point (b, 1000 + i, kl, i * 1000 + 300, CP_FLOW_BIND_NEXT, 2,
                                           CP_FLOW_LAUNCH, ac2g);
          continue;
        }
      for (guint end = 0; end < 2; end++)
        {
          CpBuilderFlowPoint *q = &block[n_taken];

          q->key = 1000 + i;
          q->lane = end ? kl : hl;
          q->ts = i * 1000 + (end ? 300 : 50);
          q->bind = end ? CP_FLOW_BIND_NEXT : CP_FLOW_BIND_ENCLOSING;
          q->order = end ? 2 : 0;
          q->kind = CP_FLOW_LAUNCH;
          q->name = ac2g;
          q->seq = n_taken++;
        }
      if (path == POINTS_TAKE_THEN_ADD && k == n / 2 - 1)
        {
          cp_trace_builder_take_flow_points (b, block, n_taken, 3 * n * sizeof (CpBuilderFlowPoint));
          block = NULL;
        }
    }
  if (block != NULL)
    cp_trace_builder_take_flow_points (b, block, n_taken, 3 * n * sizeof (CpBuilderFlowPoint));

  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, n);
  for (guint f = 0; f < n_flows; f++)
    {
      const CpSlices *hs = cp_lane_get_slices (cp_trace_get_lane (trace, flows[f].from.lane));
      const CpSlices *ks = cp_lane_get_slices (cp_trace_get_lane (trace, flows[f].to.lane));
      gint64 from = cp_slices_get_start (hs, flows[f].from.index);
      gint64 to = cp_slices_get_start (ks, flows[f].to.index);

      g_assert_cmpint (cp_lane_get_kind (cp_trace_get_lane (trace, flows[f].from.lane)), ==, CP_LANE_HOST_THREAD);
      g_assert_cmpint (cp_lane_get_kind (cp_trace_get_lane (trace, flows[f].to.lane)), ==, CP_LANE_KERNEL);
      g_assert_cmpint (to - from, ==, 400);
      g_assert_cmpint (flows[f].kind, ==, CP_FLOW_LAUNCH);
      g_assert_cmpstr (cp_trace_get_string (trace, flows[f].name), ==, "ac2g");
    }
}

static void
test_take_flow_points (void)
{
  check_point_path (POINTS_ADD);
  check_point_path (POINTS_TAKE);
  check_point_path (POINTS_ADD_THEN_TAKE);
  check_point_path (POINTS_TAKE_THEN_ADD);
}

static void
test_steps_and_args (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_string (b, "Spans", -1);
  guint hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD,
                                    (CpLaneKey) { 0, cp_trace_builder_intern (b, "main", -1) });
  g_autoptr(CpTrace) trace = NULL;
  const CpStep *steps;
  guint n_steps;
  CpSliceInit init;
  CpArgsFormat fmt;
  const guint8 *data;
  gsize len;

  add (b, hl, 2000, 900, "ProfilerStep#11", CP_NONE);
  add (b, hl, 1000, 900, "ProfilerStep #10", CP_NONE);
  add (b, hl, 1100, 100, "ProfilerStepX", CP_NONE);
  cp_slice_init_clear (&init);
  init.start = 1500;
  init.dur = 5;
  init.name = cp_trace_builder_intern (b, "with args", -1);
  init.args = cp_trace_builder_add_args (b, CP_ARGS_JSON, "{\"a\":1}", 7);
  cp_trace_builder_add_slice (b, hl, &init);
  cp_trace_builder_detect_profiler_steps (b);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  steps = cp_trace_get_steps (trace, &n_steps);
  g_assert_cmpuint (n_steps, ==, 2);
  g_assert_cmpint (steps[0].number, ==, 10);
  g_assert_cmpint (steps[0].start, ==, 0);
  g_assert_cmpint (steps[0].end, ==, 900);
  g_assert_cmpint (steps[1].number, ==, 11);
  g_assert_cmpstr (cp_trace_slice_name (trace, steps[1].marker), ==, "ProfilerStep#11");

  g_assert_cmpstr (cp_lane_get_name (cp_trace_get_lane (trace, 0)), ==, "main");
  {
    CpLane *l = cp_trace_get_lane (trace, 0);
    const CpSlices *s = cp_lane_get_slices (l);
    guint idx = G_MAXUINT;

    for (guint i = 0; i < s->n; i++)
      if (g_str_equal (cp_trace_get_string (trace, cp_slices_get_name (s, i)), "with args"))
        idx = i;
    g_assert_cmpuint (idx, !=, G_MAXUINT);
    g_assert_true (cp_trace_get_args (trace, (CpSliceRef) { 0, idx }, &fmt, &data, &len));
    g_assert_cmpint (fmt, ==, CP_ARGS_JSON);
    g_assert_cmpmem (data, len, "{\"a\":1}", 7);
    g_assert_false (cp_trace_get_args (trace, (CpSliceRef) { 0, 0 }, &fmt, &data, &len));

    /* The same record by its id. */
    g_assert_true (cp_trace_get_args_by_id (trace, cp_slices_get_args (s, idx), &fmt, &data, &len));
    g_assert_cmpint (fmt, ==, CP_ARGS_JSON);
    g_assert_cmpmem (data, len, "{\"a\":1}", 7);
    g_assert_false (cp_trace_get_args_by_id (trace, 0, &fmt, &data, &len));
    g_assert_false (cp_trace_get_args_by_id (trace, cp_slices_get_args (s, idx) + 1, &fmt, &data, &len));
  }
}

/* The flow indexes find every flow of a slice, with many flows and slices
 * past 65536 on a lane (the indexes are radix-sorted). */
static void
test_flow_index (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint p = cp_trace_builder_process_for_pid (b, 1);
  guint lanes[3];
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  const guint n_slices = 70000;
  guint n_flows;
  const CpFlow *flows;

  for (guint l = 0; l < 3; l++)
    {
      lanes[l] = cp_trace_builder_lane (b, p, CP_LANE_HOST_THREAD, (CpLaneKey) { l + 1, 0 });
      for (guint i = 0; i < n_slices; i++)
        {
          CpSliceInit init;

          cp_slice_init_clear (&init);
          init.start = i * 10;
          init.dur = 5;
          cp_trace_builder_add_slice (b, lanes[l], &init);
        }
    }
  for (guint f = 0; f < 5000; f++)
    {
      CpSliceRef from = { lanes[g_rand_int_range (rand, 0, 3)], g_rand_int_range (rand, 0, n_slices) };
      CpSliceRef to = { lanes[g_rand_int_range (rand, 0, 3)], g_rand_int_range (rand, 0, n_slices) };

      cp_trace_builder_add_flow (b, from, to, CP_FLOW_GENERIC, 0);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, 5000);
  for (guint f = 0; f < n_flows; f += 7)
    {
      g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (guint));
      gboolean found = FALSE;
      guint expected = 0;

      /* A flow from a slice to itself is found as both. */
      for (guint k = 0; k < n_flows; k++)
        expected += (flows[k].from.lane == flows[f].from.lane && flows[k].from.index == flows[f].from.index) +
                    (flows[k].to.lane == flows[f].from.lane && flows[k].to.index == flows[f].from.index);
      cp_trace_find_flows (trace, flows[f].from, out);
      g_assert_cmpuint (out->len, ==, expected);
      for (guint k = 0; k < out->len; k++)
        found = found || g_array_index (out, guint, k) == f;
      g_assert_true (found);
    }
}

/* Arguments and device records shared between slices. */
static void
test_shared_records (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint p = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, p, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  CpGpuInfo info = { 0 };
  guint32 gpu_id, args_id;
  const guint8 *data;
  gsize len;
  g_autoptr(CpTrace) trace = NULL;
  const CpSlices *s;

  info.device = 3;
  info.stream = 7;
  info.bytes = 4096;
  gpu_id = cp_trace_builder_add_gpu_info (b, &info);
  g_assert_cmpuint (gpu_id, ==, 1);
  args_id = cp_trace_builder_add_args (b, CP_ARGS_JSON, "{\"k\":1}", 7);
  g_assert_true (cp_trace_builder_get_args (b, args_id, &data, &len));
  g_assert_cmpmem (data, len, "{\"k\":1}", 7);
  g_assert_false (cp_trace_builder_get_args (b, args_id + 1, &data, &len));
  g_assert_false (cp_trace_builder_get_args (b, 0, &data, &len));

  for (guint i = 0; i < 3; i++)
    {
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.start = i * 100;
      init.dur = 10;
      init.gpu_id = i < 2 ? gpu_id : 99;
      init.args = args_id;
      cp_trace_builder_add_slice (b, lane, &init);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  s = cp_lane_get_slices (cp_trace_get_lane (trace, 0));
  g_assert_cmpuint (cp_slices_get_gpu (s, 0), ==, cp_slices_get_gpu (s, 1));
  g_assert_cmpint (cp_trace_get_gpu_info (trace, (CpSliceRef) { 0, 1 })->bytes, ==, 4096);
  g_assert_cmpint (cp_trace_get_gpu_info (trace, (CpSliceRef) { 0, 0 })->device, ==, 3);
  /* An unknown id is no record. */
  g_assert_null (cp_trace_get_gpu_info (trace, (CpSliceRef) { 0, 2 }));
  g_assert_cmpuint (cp_slices_get_args (s, 0), ==, cp_slices_get_args (s, 2));
}

static void
test_counters_instants (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint p = cp_trace_builder_process_for_pid (b, 1);
  guint cl = cp_trace_builder_lane (b, p, CP_LANE_COUNTER,
                                    (CpLaneKey) { 0, cp_trace_builder_intern (b, "mem", -1) });
  g_autoptr(CpTrace) trace = NULL;
  const gint64 *ts;
  const double *v;
  const CpInstant *in;
  guint n;

  cp_trace_builder_add_counter (b, cl, 300, 3.0);
  cp_trace_builder_add_counter (b, cl, 100, 1.0);
  cp_trace_builder_add_counter (b, cl, 200, NAN);
  cp_trace_builder_add_instant (b, 50, cp_trace_builder_intern (b, "mark", -1), 0, -1, -1, 'g');
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  n = cp_lane_get_counter (cp_trace_get_lane (trace, 0), &ts, &v);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (ts[0], ==, 50);
  g_assert_cmpfloat (v[0], ==, 1.0);
  g_assert_cmpint (ts[1], ==, 250);
  in = cp_trace_get_instants (trace, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (in[0].ts, ==, 0);
  g_assert_cmpuint (cp_trace_get_load_report (trace)->skipped, ==, 1);
}

static void
test_time_offset_and_gpu_correlation (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_pid (b, 100);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint kl = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  g_autoptr(CpTrace) trace = NULL;
  CpGpuInfo info = { 0 };
  CpSliceInit init;
  const CpFlow *flows;
  guint n_flows;

  add (b, hl, 1000, 10, "cudaLaunchKernel", 5);
  cp_slice_init_clear (&init);
  init.start = 1500;
  init.dur = 100;
  init.name = cp_trace_builder_intern (b, "gemm", -1);
  init.corr = 5;
  info.device = 0;
  info.stream = 7;
  init.gpu = &info;
  cp_trace_builder_add_slice (b, kl, &init);
  /* Relative times; the base arrives last, as in some Kineto files. */
  cp_trace_builder_set_time_offset (b, 1700000000000000000);
  cp_trace_builder_set_epoch_base (b, 1700000000000000000);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, 1700000000000001000);
  g_assert_true (cp_trace_get_origin_is_epoch (trace));
  g_assert_cmpint (cp_trace_get_duration (trace), ==, 600);
  /* The kernel's GPU info (device 0) is read while linking correlations. */
  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, 1);
  g_assert_cmpint (flows[0].kind, ==, CP_FLOW_LAUNCH);
}


/* Expected ids of the slice starting at t (test_sparse_columns). */
static gint64
expected_corr (gint64 t,
               gboolean wide)
{
  gint64 k = t / 10;

  if (k % 3 != 0)
    return CP_NONE;
  return wide && k % 2 == 0 ? G_GINT64_CONSTANT (1) << 40 | k : k;
}

static gint64
expected_ext (gint64 t)
{
  gint64 k = t / 10;

  return k % 7 == 0 ? 1000 + k : CP_NONE;
}

/* Nearly every slice has arguments: the dense form. */
static guint32
expected_args (gint64 t)
{
  gint64 k = t / 10;

  return k % 20 == 0 ? 0 : (guint32) k + 1;
}

static void
check_lane_columns (CpLane   *lane,
                    guint     n,
                    gboolean  wide)
{
  const CpSlices *s = cp_lane_get_slices (lane);
  gint64 running = G_MININT64;
  guint expect_first = 0;

  g_assert_cmpuint (s->n, ==, n);
  for (guint i = 0; i < s->n; i++)
    {
      g_assert_true (i == 0 || cp_slices_get_start (s, i - 1) < cp_slices_get_start (s, i));
      g_assert_cmpint (cp_slices_get_corr (s, i), ==, expected_corr (cp_slices_get_start (s, i), wide));
      g_assert_cmpint (cp_slices_get_ext (s, i), ==, expected_ext (cp_slices_get_start (s, i)));
      g_assert_cmpuint (cp_slices_get_args (s, i), ==, expected_args (cp_slices_get_start (s, i)));
      g_assert_cmpuint (cp_slices_get_gpu (s, i), ==, 0);
      g_assert_cmpint (cp_slices_get_dur (s, i), ==, (cp_slices_get_start (s, i) / 10) % 5 == 0 ? 3000 : 5);
    }
  /* first_ending_after() against a scan, at every end and around it. */
  for (guint i = 0; i < s->n; i++)
    {
      gint64 e = cp_slices_get_end (s, i);

      for (gint64 t = e - 1; t <= e + 1; t++)
        {
          running = G_MININT64;
          expect_first = s->n;
          for (guint j = 0; j < s->n; j++)
            {
              running = MAX (running, cp_slices_get_end (s, j));
              if (running >= t)
                {
                  expect_first = j;
                  break;
                }
            }
          g_assert_cmpuint (cp_lane_first_ending_after (lane, t), ==, expect_first);
        }
    }
}

static void
sparse_columns (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint shuffled = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint nearly = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
  guint wide = cp_trace_builder_lane (b, proc, CP_LANE_KERNEL, (CpLaneKey) { 3, 0 });
  guint empty = cp_trace_builder_lane (b, proc, CP_LANE_KERNEL, (CpLaneKey) { 4, 0 });
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(CpTrace) trace = NULL;
  const guint n = 700;
  guint32 order[700];

  for (guint i = 0; i < n; i++)
    order[i] = i;
  for (guint i = n - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, i + 1);
      guint32 t = order[i];

      order[i] = order[j];
      order[j] = t;
    }

  for (guint k = 0; k < n; k++)
    {
      CpSliceInit init;
      /* Shuffled; nearly in order (every 50th slice comes 3 places late);
       * in order. Every fifth slice is long and covers the next blocks. */
      guint which[3] = { order[k], k % 50 == 0 && k + 3 < n ? k + 3 : (k % 50 == 3 && k >= 3 ? k - 3 : k), k };
      guint lanes[3] = { shuffled, nearly, wide };

      for (guint l = 0; l < 3; l++)
        {
          gint64 t = (gint64) which[l] * 10;

          cp_slice_init_clear (&init);
          init.start = t;
          init.dur = which[l] % 5 == 0 ? 3000 : 5;
          init.name = cp_trace_builder_intern (b, "s", -1);
          /* Ids past 32 bits on the shuffled lane (sorted) and the wide
           * one (in order). */
          init.corr = expected_corr (t, l != 1);
          init.ext = expected_ext (t);
          init.args = expected_args (t);
          cp_trace_builder_add_slice (b, lanes[l], &init);
        }
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      if (cp_lane_get_tid (lane) == 4 || s->n == 0)
        {
          g_assert_cmpuint (s->n, ==, 0);
          g_assert_cmpuint (cp_lane_first_ending_after (lane, 0), ==, 0);
          continue;
        }
      check_lane_columns (lane, n, cp_lane_get_tid (lane) != 2);
    }
  (void) empty;
}

/* With and without the sort's POPCNT clone. */
static void
test_sparse_columns (void)
{
  _cp_sparse_set_popcnt (FALSE);
  sparse_columns ();
  _cp_sparse_set_popcnt (TRUE);
  sparse_columns ();
}

static void
test_long_durations (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  const gint64 durs[] = { 0, 5, G_MAXUINT32 - 1, G_MAXUINT32, (gint64) G_MAXUINT32 + 1,
                          G_GINT64_CONSTANT (1000000000000), 7 };
  g_autoptr(CpTrace) trace = NULL;
  const CpSlices *s;
  CpLane *l;

  guint other = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
  CpSliceRef grow, shrink;
  const CpSlices *o;

  /* Added in reverse start order, so the lane is sorted at finish(). */
  for (gint k = G_N_ELEMENTS (durs) - 1; k >= 0; k--)
    add (b, lane, 1000 + k * 10, durs[k], "x", CP_NONE);
  /* Durations changed after the fact (B/E matching), both ways. */
  shrink = add (b, other, 1500, G_GINT64_CONSTANT (1) << 40, "shrink", CP_NONE);
  grow = add (b, other, 1000, 0, "grow", CP_NONE);
  cp_trace_builder_close_slice (b, grow, 1000 + (G_GINT64_CONSTANT (1) << 33), 0);
  cp_trace_builder_close_slice (b, shrink, 1600, 0);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  l = cp_trace_get_lane (trace, 0);
  s = cp_lane_get_slices (l);
  g_assert_cmpuint (s->n, ==, G_N_ELEMENTS (durs));
  g_assert_cmpuint (s->n_long, ==, 3);
  for (guint i = 0; i < s->n; i++)
    {
      g_assert_cmpint (cp_slices_get_start (s, i), ==, i * 10);
      g_assert_cmpint (cp_slices_get_dur (s, i), ==, durs[i]);
    }
  g_assert_cmpuint (cp_lane_first_ending_after (l, 50 + durs[5]), ==, 5);
  g_assert_cmpuint (cp_lane_first_ending_after (l, 51 + durs[5]), ==, s->n);
  /* [10, 15) and [20, 100): the long slices cover the rest. */
  g_assert_cmpint (cp_lane_busy_time (l, 0, 100), ==, 5 + 80);

  o = cp_lane_get_slices (cp_trace_get_lane (trace, 1));
  g_assert_cmpuint (o->n, ==, 2);
  g_assert_cmpuint (o->n_long, ==, 1);
  g_assert_cmpint (cp_slices_get_dur (o, 0), ==, G_GINT64_CONSTANT (1) << 33);
  g_assert_cmpint (cp_slices_get_dur (o, 1), ==, 100);
}

/* Starts are 32-bit offsets in blocks of 64 slices; those 4.3 s or more
 * past their block's first slice, and epoch-sized ones, read back exactly
 * from the side table, and searches over them still work. */
static void
test_far_starts (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(CpTrace) trace = NULL;
  const gint64 epoch = G_GINT64_CONSTANT (1700000000000000000);
  const CpSlices *s;
  CpLane *l;
  gint64 t = epoch;
  guint n_far = 0;

  /* Dense runs (1 us apart), runs a second apart, and gaps of hours. */
  for (guint i = 0; i < 1000; i++)
    {
      t += i % 300 < 100 ? 1000 : i % 300 < 200 ? G_GINT64_CONSTANT (1000000000)
         : i % 97 == 0 ? G_GINT64_CONSTANT (3600000000000) : 7;
      g_array_append_val (want, t);
    }
  /* Added out of order, so finish() sorts first. */
  for (guint i = want->len; i-- > 0;)
    add (b, lane, g_array_index (want, gint64, i), 10, "x", CP_NONE);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  l = cp_trace_get_lane (trace, 0);
  s = cp_lane_get_slices (l);
  g_assert_cmpuint (s->n, ==, want->len);
  for (guint i = 0; i < s->n; i++)
    {
      gint64 expect = g_array_index (want, gint64, i) - (epoch + 1000);

      g_assert_cmpint (cp_slices_get_start (s, i), ==, expect);
      g_assert_cmpint (cp_slices_get_end (s, i), ==, expect + 10);
      g_assert_cmpuint (cp_lane_first_starting_after (l, expect), ==, i + 1);
      g_assert_cmpuint (cp_lane_first_starting_after (l, expect - 1), ==, i);
      if (s->start32[i] == G_MAXUINT32)
        n_far++;
    }
  g_assert_cmpuint (n_far, ==, s->n_far);
  g_assert_cmpuint (n_far, >, 0);
  g_assert_cmpuint (n_far, <, s->n / 2);
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, epoch + 1000);
}

/* Names: a table per lane and 16-bit indexes, or 32-bit ids past 65,536
 * distinct names on a lane; both read the same. */
static void
test_name_tables (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint few = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint many = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
  guint exact = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 3, 0 });
  g_autoptr(CpTrace) trace = NULL;
  const guint n_many = 70000;

  for (guint i = 0; i < 1000; i++)
    add (b, few, i * 10, 5, i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c", CP_NONE);
  for (guint i = 0; i < n_many; i++)
    {
      g_autofree char *name = g_strdup_printf ("n%u", i);

      add (b, many, i * 10, 5, name, CP_NONE);
    }
  /* Exactly 65,536 distinct names still fit 16 bits (some repeated). */
  for (guint i = 0; i < 65536 + 100; i++)
    {
      g_autofree char *name = g_strdup_printf ("n%u", i % 65536);

      add (b, exact, i * 10, 5, name, CP_NONE);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  for (guint li = 0; li < cp_trace_get_n_lanes (trace); li++)
    {
      CpLane *lane = cp_trace_get_lane (trace, li);
      const CpSlices *s = cp_lane_get_slices (lane);

      if (s->n == 1000)
        {
          g_assert_nonnull (s->name_table);
          for (guint i = 0; i < s->n; i++)
            g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (s, i)), ==,
                             i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c");
        }
      else
        {
          guint mod = s->n == n_many ? n_many : 65536;

          g_assert_true (s->n == n_many || s->n == 65536 + 100);
          if (s->n == n_many)
            g_assert_null (s->name_table);
          else
            g_assert_nonnull (s->name_table);
          for (guint i = 0; i < s->n; i++)
            {
              g_autofree char *want = g_strdup_printf ("n%u", i % mod);

              g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (s, i)), ==, want);
            }
        }
    }
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 3);
}

/* Lanes are finished on several threads for big captures: the trace must be
 * the same, column by column, as with one thread. Lanes of different sizes
 * and kinds, unsorted slices, shared and distinct names (16- and 32-bit
 * tables), categories, long durations, sparse columns, flows and counters. */
static CpTrace *
parallel_finish_trace (guint n_threads)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (77);
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lanes[12];
  CpTrace *trace;

  _cp_trace_builder_set_finish_threads (b, n_threads);
  for (guint li = 0; li < G_N_ELEMENTS (lanes); li++)
    lanes[li] = cp_trace_builder_lane (b, proc, li % 3 == 0 ? CP_LANE_KERNEL : CP_LANE_HOST_THREAD,
                                       (CpLaneKey) { li + 1, 0 });
  for (guint li = 0; li < G_N_ELEMENTS (lanes); li++)
    {
      guint n = li == 4 ? 70000 : 500 + li * 3000;

      for (guint i = 0; i < n; i++)
        {
          CpSliceInit init;
          g_autofree char *name = g_strdup_printf (li == 4 ? "big%u" : "op%u",
                                                   li == 4 ? i : (guint) g_rand_int_range (rand, 0, 40));
          g_autofree char *cat = g_strdup_printf ("cat%u", (i + li) % 3);

          cp_slice_init_clear (&init);
          /* Mostly in order, some not; now and then hours long. */
          init.start = (gint64) i * 1000 - (i % 17 == 0 ? g_rand_int_range (rand, 0, 50000) : 0);
          init.dur = i % 501 == 0 ? G_GINT64_CONSTANT (5000000000) : g_rand_int_range (rand, 0, 3000);
          init.name = cp_trace_builder_intern (b, name, -1);
          init.cat = cp_trace_builder_intern (b, cat, -1);
          /* Kernels carry the ids of lane 1's calls: launches to link. */
          if (i % 3 == 0)
            init.corr = (gint64) (li % 3 == 0 ? 1 : li) * 1000000 + i;
          if (i % 7 == 0)
            init.ext = i;
          cp_trace_builder_add_slice (b, lanes[li], &init);
        }
    }
  for (guint i = 0; i < 400; i++)
    {
      CpSliceRef from = { lanes[1], i * 5 }, to = { lanes[0], i };

      cp_trace_builder_add_flow (b, from, to, CP_FLOW_LAUNCH, CP_STR_EMPTY);
    }
  /* Flow end points, bound at finish: a start inside a host slice, an end
   * at the next kernel. Handed over in a block with room for their order,
   * as the Chrome reader does, and enough of them for the finish to sort
   * them on a thread of their own and fault in the flows' pages on another
   * (more than 1 MB of flows to come). */
  {
    guint n_pairs = 50000, n = 2 * n_pairs;
    gsize bytes = (gsize) n * (sizeof (CpBuilderFlowPoint) + 16);
    CpBuilderFlowPoint *pts = g_malloc0 (bytes);
    CpStr ac2g = cp_trace_builder_intern (b, "ac2g", -1);

    for (guint i = 0; i < n_pairs; i++)
      {
        CpBuilderFlowPoint *s = &pts[2 * i], *f = &pts[2 * i + 1];
        gint64 at = (gint64) (i % 1500) * 2000;

        *s = (CpBuilderFlowPoint) { i, at + 300, lanes[1], 2 * i, ac2g, CP_FLOW_BIND_ENCLOSING, 0, CP_FLOW_LAUNCH };
        *f = (CpBuilderFlowPoint) { i, at + 500, lanes[3], 2 * i + 1, ac2g, CP_FLOW_BIND_NEXT, 2, CP_FLOW_LAUNCH };
      }
    cp_trace_builder_take_flow_points (b, pts, n, bytes);
  }
  for (guint i = 0; i < 3000; i++)
    {
      guint c = cp_trace_builder_lane (b, proc, CP_LANE_COUNTER,
                                       (CpLaneKey) { 0, cp_trace_builder_intern (b, "mem", -1) });

      cp_trace_builder_add_counter (b, c, (gint64) ((i * 7919) % 3000) * 100, i);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  return trace;
}

static void
test_parallel_finish (void)
{
  g_autoptr(CpTrace) one = parallel_finish_trace (1);
  guint n_flows_one, n_flows_many;

  for (guint threads = 2; threads <= 8; threads *= 2)
    {
      g_autoptr(CpTrace) many = parallel_finish_trace (threads);

      g_assert_cmpuint (cp_trace_get_n_lanes (many), ==, cp_trace_get_n_lanes (one));
      g_assert_cmpuint (cp_trace_get_n_slices (many), ==, cp_trace_get_n_slices (one));
      for (guint li = 0; li < cp_trace_get_n_lanes (one); li++)
        {
          CpLane *a = cp_trace_get_lane (one, li), *c = cp_trace_get_lane (many, li);
          const CpSlices *x = cp_lane_get_slices (a), *y = cp_lane_get_slices (c);
          const gint64 *ta, *tc;
          const double *va, *vc;
          guint na = cp_lane_get_counter (a, &ta, &va), nc = cp_lane_get_counter (c, &tc, &vc);

          g_assert_cmpuint (cp_lane_get_index (c), ==, li);
          g_assert_cmpint (cp_lane_get_kind (c), ==, cp_lane_get_kind (a));
          g_assert_cmpint (cp_lane_get_tid (c), ==, cp_lane_get_tid (a));
          g_assert_cmpuint (cp_lane_get_n_rows (c), ==, cp_lane_get_n_rows (a));
          g_assert_cmpuint (y->n, ==, x->n);
          g_assert_true ((x->name_table == NULL) == (y->name_table == NULL));
          for (guint i = 0; i < x->n; i++)
            {
              g_assert_cmpint (cp_slices_get_start (y, i), ==, cp_slices_get_start (x, i));
              g_assert_cmpint (cp_slices_get_dur (y, i), ==, cp_slices_get_dur (x, i));
              g_assert_cmpstr (cp_trace_get_string (many, cp_slices_get_name (y, i)), ==,
                               cp_trace_get_string (one, cp_slices_get_name (x, i)));
              g_assert_cmpstr (cp_trace_get_string (many, cp_slices_get_cat (y, i)), ==,
                               cp_trace_get_string (one, cp_slices_get_cat (x, i)));
              g_assert_cmpuint (y->row[i], ==, x->row[i]);
              g_assert_cmpuint (y->flags[i], ==, x->flags[i]);
              g_assert_cmpint (cp_slices_get_corr (y, i), ==, cp_slices_get_corr (x, i));
              g_assert_cmpint (cp_slices_get_ext (y, i), ==, cp_slices_get_ext (x, i));
            }
          g_assert_cmpuint (nc, ==, na);
          for (guint i = 0; i < na; i++)
            {
              g_assert_cmpint (tc[i], ==, ta[i]);
              g_assert_cmpfloat (vc[i], ==, va[i]);
            }
        }
      cp_trace_get_flows (one, &n_flows_one);
      {
        const CpFlow *fa = cp_trace_get_flows (one, &n_flows_one);
        const CpFlow *fc = cp_trace_get_flows (many, &n_flows_many);

        g_assert_cmpuint (n_flows_many, ==, n_flows_one);
        /* The explicit ones, a flow for each pair of points, and the
         * launches linked by correlation id: all of them in the indexes. */
        g_assert_cmpuint (n_flows_one, >, 400 + 1500 + 1000);
        /* The flow indexes too (made on two threads then). */
        for (guint by_to = 0; by_to < 2; by_to++)
          {
            guint na, nc;
            const guint32 *oa = cp_trace_get_flow_order (one, by_to, &na);
            const guint32 *oc = cp_trace_get_flow_order (many, by_to, &nc);

            g_assert_cmpuint (nc, ==, na);
            g_assert_cmpmem (oc, nc * sizeof (guint32), oa, na * sizeof (guint32));
          }
        for (guint i = 0; i < n_flows_one; i++)
          {
            g_assert_cmpuint (fc[i].from.lane, ==, fa[i].from.lane);
            g_assert_cmpuint (fc[i].from.index, ==, fa[i].from.index);
            g_assert_cmpuint (fc[i].to.lane, ==, fa[i].to.lane);
            g_assert_cmpuint (fc[i].to.index, ==, fa[i].to.index);
            g_assert_cmpuint (fc[i].kind, ==, fa[i].kind);
            g_assert_cmpuint (fc[i].name, ==, fa[i].name);
          }
      }
    }
}

/* The flow order of both ends, whatever the readers' order: in order, in a
 * few sorted runs (merged), or shuffled (radix passes); stable on ties. */
static void
check_flow_order (CpTrace  *trace,
                  gboolean  by_to)
{
  guint n, n_flows;
  const CpFlow *flows = cp_trace_get_flows (trace, &n_flows);
  const guint32 *order = cp_trace_get_flow_order (trace, by_to, &n);
  g_autofree guint8 *seen = g_new0 (guint8, MAX (n, 1));

  g_assert_cmpuint (n, ==, n_flows);
  for (guint k = 0; k < n; k++)
    {
      g_assert_cmpuint (order[k], <, n);
      g_assert_false (seen[order[k]]);
      seen[order[k]] = 1;
      if (k > 0)
        {
          CpSliceRef a = by_to ? flows[order[k - 1]].to : flows[order[k - 1]].from;
          CpSliceRef c = by_to ? flows[order[k]].to : flows[order[k]].from;

          g_assert_true (a.lane < c.lane || (a.lane == c.lane && a.index < c.index) ||
                         (a.lane == c.lane && a.index == c.index && order[k - 1] < order[k]));
        }
    }
}

static void
test_flow_runs (void)
{
  for (guint pattern = 0; pattern < 4; pattern++)
    {
      g_autoptr(GError) error = NULL;
      CpTraceBuilder *b = cp_trace_builder_new ();
      guint p = cp_trace_builder_process_for_pid (b, 1);
      guint host = cp_trace_builder_lane (b, p, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
      guint dev = cp_trace_builder_lane (b, p, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(GRand) rand = g_rand_new_with_seed (11 + pattern);
      const guint n_slices = 20000;
      /* pattern 0: one run; 1 and 3: three runs of different lengths, with
       * ties, the shorter run first (merged forward) or second (backward);
       * 2: random (more runs than are merged). */
      const guint run_len[2][3] = { { 300, 9000, 4000 }, { 9000, 300, 4000 } };
      gboolean runs = pattern == 1 || pattern == 3;

      for (guint i = 0; i < n_slices; i++)
        {
          CpSliceInit init;

          cp_slice_init_clear (&init);
          init.start = i * 10;
          init.dur = 5;
          cp_trace_builder_add_slice (b, host, &init);
          cp_trace_builder_add_slice (b, dev, &init);
        }
      for (guint r = 0; r < (runs ? 3 : 1); r++)
        for (guint f = 0; f < (runs ? run_len[pattern == 3][r] : 6000); f++)
          {
            guint i = pattern == 2 ? (guint) g_rand_int_range (rand, 0, n_slices)
                                   : f * (n_slices / 9000) % n_slices;
            CpSliceRef from = { host, i };
            CpSliceRef to = { dev, pattern == 2 ? (guint) g_rand_int_range (rand, 0, n_slices) : i };

            cp_trace_builder_add_flow (b, from, to, CP_FLOW_LAUNCH, 0);
          }
      trace = cp_trace_builder_finish (b, &error);
      g_assert_no_error (error);
      check_flow_order (trace, FALSE);
      check_flow_order (trace, TRUE);
    }
}

/* A lane with a few categories keeps an 8-bit index; one with more than the
 * table holds switches to 32-bit ids mid-way; both read the same. */
static void
test_categories (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint few = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint many = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
  g_autoptr(CpTrace) trace = NULL;
  const guint n = 300;

  for (guint k = 0; k < n; k++)
    {
      /* Reverse start order, so both lanes are permuted at finish(). */
      gint64 t = (gint64) (n - k) * 10;
      g_autofree char *cat_few = g_strdup_printf ("c%u", (n - k) % 3);
      g_autofree char *cat_many = g_strdup_printf ("c%u", (n - k) % 150);
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.start = t;
      init.dur = 5;
      init.cat = cp_trace_builder_intern (b, cat_few, -1);
      cp_trace_builder_add_slice (b, few, &init);
      init.cat = cp_trace_builder_intern (b, cat_many, -1);
      cp_trace_builder_add_slice (b, many, &init);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  for (guint l = 0; l < 2; l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);
      guint mod = cp_lane_get_tid (lane) == 1 ? 3 : 150;

      g_assert_cmpuint (s->n, ==, n);
      g_assert_true ((s->cat_table != NULL) == (mod == 3));
      for (guint i = 0; i < s->n; i++)
        {
          g_autofree char *want = g_strdup_printf ("c%u", (guint) ((cp_slices_get_start (s, i) + 10) / 10) % mod);

          g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_cat (s, i)), ==, want);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/empty", test_empty);
  g_test_add_func ("/model/sparse-columns", test_sparse_columns);
  g_test_add_func ("/model/long-durations", test_long_durations);
  g_test_add_func ("/model/far-starts", test_far_starts);
  g_test_add_func ("/model/name-tables", test_name_tables);
  g_test_add_func ("/model/parallel-finish", test_parallel_finish);
  g_test_add_func ("/model/categories", test_categories);
  g_test_add_func ("/model/sort-rows-origin", test_sort_rows_origin);
  g_test_add_func ("/model/late-runs", test_late_runs);
  g_test_add_func ("/model/flows-correlation", test_flows_and_correlation);
  g_test_add_func ("/model/steps-args", test_steps_and_args);
  g_test_add_func ("/model/shared-records", test_shared_records);
  g_test_add_func ("/model/flow-index", test_flow_index);
  g_test_add_func ("/model/take-flow-points", test_take_flow_points);
  g_test_add_func ("/model/flow-runs", test_flow_runs);
  g_test_add_func ("/model/counters-instants", test_counters_instants);
  g_test_add_func ("/model/time-offset-gpu-correlation", test_time_offset_and_gpu_correlation);
  return g_test_run ();
}
