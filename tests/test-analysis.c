/* test-analysis.c: metrics and findings on tiny hand-built traces, to the ns
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-device-counters.h"
#include "analysis/cp-rules.h"
#include "cp-test-trace.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

static CpAnalysis *
analyse (CpTrace *trace)
{
  g_autoptr(GError) error = NULL;
  CpAnalysis *a = cp_analysis_new (trace, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (a);
  return a;
}

static gint64
total (CpAnalysis     *a,
       CpTimeCategory  c)
{
  CpTimeSummary s;

  cp_analysis_get_time_summary (a, c, &s);
  return s.total;
}

static CpFinding *
finding (CpAnalysis *a,
         const char *rule)
{
  return cp_analysis_lookup_finding (a, rule);
}

static void
assert_severity (CpAnalysis *a,
                 const char *rule,
                 CpSeverity  severity)
{
  CpFinding *f = finding (a, rule);

  if (f == NULL)
    g_error ("no finding %s", rule);
  g_assert_cmpstr (cp_severity_to_string (cp_finding_get_severity (f)), ==,
                   cp_severity_to_string (severity));
}

static void
assert_evidence_inside (CpFinding    *f,
                        const gint64 *ranges,
                        guint         n_ranges)
{
  const CpEvidence *ev;
  guint n;

  ev = cp_finding_get_evidence (f, &n);
  g_assert_cmpuint (n, >, 0);
  /* Evidence is merged per step and lane: each range is the hull of what
   * was found, so it starts and ends inside expected ranges. */
  for (guint i = 0; i < n; i++)
    {
      gboolean start_in = FALSE, end_in = FALSE;

      g_assert_cmpuint (ev[i].count, >=, 1);
      for (guint r = 0; r < n_ranges; r++)
        {
          start_in |= ev[i].start >= ranges[2 * r] && ev[i].start <= ranges[2 * r + 1];
          end_in |= ev[i].end >= ranges[2 * r] && ev[i].end <= ranges[2 * r + 1];
        }
      if (!start_in || !end_in)
        g_error ("%s evidence [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") outside the expected ranges",
                 cp_finding_get_rule_id (f), ev[i].start, ev[i].end);
    }
}

/* Trace A: no steps; nested host ops with launches, two overlapping kernels
 * (one 16-bit on tensor cores), a gap. See the comments for the arithmetic. */
static CpTrace *
trace_a (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint s7 = cp_test_trace_kernel_lane (b, 0, 7);
  guint s8 = cp_test_trace_kernel_lane (b, 0, 8);

  cp_test_trace_slice (b, h, 0, 100, "aten::mm");
  cp_test_trace_launch (b, h, 10, 20, s7, 40, 100, "volta_sgemm_128x64_nn");
  cp_test_trace_launch (b, h, 50, 10, s8, 100, 60, "volta_h884gemm_64x64_ldg8_nn");
  cp_test_trace_slice (b, h, 200, 50, "aten::add");
  cp_test_trace_launch (b, h, 210, 10, s7, 260, 10, "elementwise_kernel<float>");
  return cp_test_trace_finish (b);
}

static void
test_breakdown_no_steps (void)
{
  g_autoptr(CpTrace) trace = trace_a ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpInterval *w;
  guint n;
  CpTimeSummary s;

  g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_NONE);
  cp_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 0);
  w = cp_analysis_get_windows (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (w[0].start, ==, 0);
  g_assert_cmpint (w[0].end, ==, 270);
  g_assert_nonnull (cp_analysis_get_notes (a)[0]);

  /* Flattened: the 16-bit kernel wins over the 32-bit one it overlaps, a
   * launch under a kernel counts as compute, host time only where the device
   * is idle. */
  g_assert_cmpint (total (a, CP_TIME_COMPUTE_16), ==, 60);
  g_assert_cmpint (total (a, CP_TIME_COMPUTE_32), ==, 70);
  g_assert_cmpint (total (a, CP_TIME_LAUNCH), ==, 30);
  g_assert_cmpint (total (a, CP_TIME_HOST_COMPUTE), ==, 60);
  g_assert_cmpint (total (a, CP_TIME_IDLE), ==, 50);
  g_assert_cmpint (total (a, CP_TIME_INPUT_WAIT), ==, 0);
  cp_analysis_get_time_summary (a, CP_TIME_HOST_COMPUTE, &s);
  g_assert_cmpfloat_with_epsilon (s.percent, 100.0 * 60 / 270, 1e-9);
  g_assert_cmpint (s.mean, ==, 60);
}

static void
test_device_metrics (void)
{
  g_autoptr(CpTrace) trace = trace_a ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpDeviceStats *d;
  guint n;

  d = cp_analysis_get_devices (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (d->device, ==, 0);
  g_assert_cmpuint (d->n_kernels, ==, 3);
  g_assert_cmpint (d->kernel_time, ==, 170);
  g_assert_cmpint (d->kernel_busy, ==, 130);
  g_assert_cmpint (d->window_busy, ==, 130);
  g_assert_cmpfloat_with_epsilon (d->utilization, 130.0 / 270.0, 1e-12);
  g_assert_true (isnan (d->sm_efficiency));
  g_assert_true (isnan (d->achieved_occupancy));
  /* HTA idle split: [160, 260) waits for the launch at 210; [0, 40) before
   * the first op is "other". */
  g_assert_cmpint (d->idle, ==, 140);
  g_assert_cmpint (d->idle_host_wait, ==, 100);
  g_assert_cmpint (d->idle_kernel_wait, ==, 0);
  g_assert_cmpint (d->idle_other, ==, 40);
  g_assert_cmpint (d->tensor_core_time, ==, 60);
  g_assert_cmpint (d->half_time, ==, 60);
  /* HTA launch statistics. */
  g_assert_cmpuint (d->n_launched, ==, 3);
  g_assert_cmpuint (d->n_short, ==, 0);
  g_assert_cmpint (d->launch_delay_total, ==, 10 + 40 + 40);
  g_assert_cmpint (d->launch_delay_max, ==, 40);
  g_assert_cmpuint (d->n_delay_outliers, ==, 0);
  g_assert_cmpuint (d->n_kernels_under_10us, ==, 3);
  g_assert_cmpint (d->comm_time, ==, 0);
}

static void
test_kernel_stats (void)
{
  g_autoptr(CpTrace) trace = trace_a ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpKernelStats *k;
  const CpHostOpStats *op;
  guint n;

  k = cp_analysis_get_kernels (a, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpstr (cp_trace_get_string (trace, k[0].name), ==, "volta_sgemm_128x64_nn");
  g_assert_cmpint (k[0].total, ==, 100);
  g_assert_cmpfloat_with_epsilon (k[0].share, 100.0 / 170.0, 1e-12);
  g_assert_false (k[0].tensor_core);
  g_assert_true (k[1].tensor_core);
  g_assert_true (k[1].half);
  g_assert_cmpint (k[2].total, ==, 10);
  g_assert_cmpint (cp_analysis_get_kernel_time (a), ==, 170);

  op = cp_analysis_get_host_ops (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (cp_trace_get_string (trace, op[0].name), ==, "aten::mm");
  g_assert_cmpuint (op[0].count, ==, 1);
  g_assert_cmpint (op[0].total, ==, 100);
  g_assert_true (op[0].tc_eligible);
  g_assert_cmpuint (op[0].n_kernels, ==, 2);
  g_assert_cmpint (op[0].kernel_time, ==, 160);
  g_assert_cmpint (op[0].tensor_core_time, ==, 60);
  g_assert_cmpuint (op[0].n_self_kernels, ==, 2);
  g_assert_cmpint (op[0].self_kernel_time, ==, 160);
  g_assert_cmpuint (op[0].kernels->len, ==, 2);
  g_assert_cmpint (g_array_index (op[0].kernels, CpKernelCount, 0).time, ==, 100);
  g_assert_cmpstr (cp_trace_get_string (trace, op[1].name), ==, "aten::add");
  g_assert_cmpuint (op[1].n_kernels, ==, 1);
  g_assert_cmpint (op[1].kernel_time, ==, 10);
  g_assert_false (op[1].tc_eligible);

  {
    g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));

    cp_analysis_collect_kernel_slices (a, k[2].name, refs);
    g_assert_cmpuint (refs->len, ==, 1);
    g_array_set_size (refs, 0);
    cp_analysis_collect_host_slices (a, op[0].name, refs);
    g_assert_cmpuint (refs->len, ==, 1);
  }
}

static void
test_findings_demotion (void)
{
  g_autoptr(CpTrace) trace = trace_a ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  CpFinding *f;

  /* Host overhead (60 + 50 of 270) and launch (30 of 270) share the same
   * idle gaps: the larger explains the smaller. */
  assert_severity (a, "host-overhead", CP_SEVERITY_HIGH);
  assert_severity (a, "launch-bound", CP_SEVERITY_INFO);
  f = finding (a, "launch-bound");
  g_assert_cmpint (cp_finding_get_measured_severity (f), ==, CP_SEVERITY_MODERATE);
  g_assert_cmpstr (cp_finding_get_explained_by (f), ==, "host-overhead");
  /* The symptom is info: a cause explains it. */
  assert_severity (a, "low-utilization", CP_SEVERITY_INFO);
  g_assert_cmpstr (cp_finding_get_explained_by (finding (a, "low-utilization")), ==, "host-overhead");
  g_assert_null (finding (a, "no-mixed-precision"));
  g_assert_true (cp_analysis_has_warnings (a));

  f = finding (a, "host-overhead");
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, 110);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "host_overhead_percent")->value,
                                  100.0 * 110 / 270, 1e-9);
  {
    static const gint64 ranges[] = { 0, 10, 30, 40, 160, 260 };

    assert_evidence_inside (f, ranges, G_N_ELEMENTS (ranges) / 2);
  }
  /* The one order: the idle cause above info first, though the symptom
   * (info now) has more time at stake; the verdict names it. */
  {
    g_autoptr(CpFinding) first = g_list_model_get_item (cp_analysis_get_findings (a), 0);
    g_autoptr(CpFinding) second = g_list_model_get_item (cp_analysis_get_findings (a), 1);
    const CpVerdict *v = cp_analysis_get_verdict (a);

    g_assert_cmpstr (cp_finding_get_rule_id (first), ==, "host-overhead");
    g_assert_cmpint (cp_finding_get_section (first), ==, CP_FINDING_SECTION_IDLE);
    g_assert_cmpstr (cp_finding_get_rule_id (second), ==, "low-utilization");
    g_assert_cmpint (cp_finding_get_section (second), ==, CP_FINDING_SECTION_INFO);
    g_assert_cmpstr (v->primary_rule, ==, "host-overhead");
    g_assert_cmpuint (v->n_causes, ==, 1);
    g_assert_cmpint (v->causes[0].cause, ==, CP_IDLE_CAUSE_HOST);
    g_assert_cmpint (v->causes[0].time, ==, 110);
    g_assert_cmpfloat_with_epsilon (v->causes[0].percent, 100.0 * 110 / 270, 1e-9);
    g_assert_nonnull (strstr (v->text, "waits mostly for host overhead and launches"));
    /* No steps: shares of the capture. */
    g_assert_nonnull (strstr (v->text, "of the capture"));
    g_assert_null (strstr (v->text, "step time"));
  }
}

/* Trace B: two ProfilerSteps; the first step's kernel runs into the second;
 * a single-process DataLoader. */
static CpTrace *
trace_b (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint s7 = cp_test_trace_kernel_lane (b, 0, 7);
  const char *loader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

  cp_test_trace_slice (b, h, 0, 100, "ProfilerStep#1");
  cp_test_trace_slice (b, h, 100, 90, "ProfilerStep#2");
  cp_test_trace_slice (b, h, 0, 40, loader);
  cp_test_trace_launch (b, h, 40, 10, s7, 50, 70, "volta_h884gemm");
  cp_test_trace_slice (b, h, 60, 30, "aten::relu");
  cp_test_trace_slice (b, h, 100, 30, loader);
  cp_test_trace_launch (b, h, 130, 10, s7, 140, 50, "volta_h884gemm");
  cp_trace_builder_detect_profiler_steps (b);
  return cp_test_trace_finish (b);
}

static void
test_steps_cut_slices (void)
{
  g_autoptr(CpTrace) trace = trace_b ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpStepStats *st;
  guint n;
  CpTimeSummary s;

  g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_PROFILER);
  st = cp_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 2);
  /* TB windows: step 1 ends with its kernel at 120; step 2 starts there. */
  g_assert_cmpint (st[0].number, ==, 1);
  g_assert_cmpint (st[0].start, ==, 0);
  g_assert_cmpint (st[0].end, ==, 120);
  g_assert_cmpint (st[0].host_end, ==, 100);
  g_assert_cmpint (st[1].start, ==, 120);
  g_assert_cmpint (st[1].end, ==, 190);
  g_assert_cmpint (cp_analysis_get_window_time (a), ==, 190);

  g_assert_cmpint (st[0].time[CP_TIME_INPUT_WAIT], ==, 40);
  g_assert_cmpint (st[0].time[CP_TIME_LAUNCH], ==, 10);
  g_assert_cmpint (st[0].time[CP_TIME_COMPUTE_16], ==, 70);
  g_assert_cmpint (st[0].time[CP_TIME_HOST_COMPUTE], ==, 0);
  g_assert_cmpint (st[1].time[CP_TIME_INPUT_WAIT], ==, 10);
  g_assert_cmpint (st[1].time[CP_TIME_LAUNCH], ==, 10);
  g_assert_cmpint (st[1].time[CP_TIME_COMPUTE_16], ==, 50);
  g_assert_cmpint (st[1].time[CP_TIME_IDLE], ==, 0);
  g_assert_cmpuint (st[0].n_kernels, ==, 1);
  g_assert_cmpuint (st[1].n_kernels, ==, 1);

  cp_analysis_get_time_summary (a, CP_TIME_INPUT_WAIT, &s);
  g_assert_cmpint (s.total, ==, 50);
  g_assert_cmpint (s.mean, ==, 25);
  g_assert_cmpint (s.min, ==, 10);
  g_assert_cmpint (s.max, ==, 40);
  /* Ratio of sums, not mean of ratios. */
  g_assert_cmpfloat_with_epsilon (s.percent, 100.0 * 50 / 190, 1e-9);
  cp_analysis_get_step_summary (a, &s);
  g_assert_cmpint (s.mean, ==, 95);
  g_assert_cmpint (s.min, ==, 70);
  g_assert_cmpint (s.max, ==, 120);
}

static void
test_input_bound (void)
{
  g_autoptr(CpTrace) trace = trace_b ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  CpFinding *f;
  static const gint64 loader_ranges[] = { 0, 40, 100, 130 };

  assert_severity (a, "input-bound", CP_SEVERITY_HIGH);
  f = finding (a, "input-bound");
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, 50);
  g_assert_cmpint (cp_finding_get_time_at_stake_per_step (f), ==, 25);
  assert_evidence_inside (f, loader_ranges, 2);
  g_assert_cmpuint (cp_finding_get_evidence_total (f), ==, 2);
  g_assert_cmpstr (cp_finding_lookup_figure (f, "input_wait_percent")->comparison, ==, ">=");
  g_assert_cmpfloat (cp_finding_lookup_figure (f, "input_wait_percent")->high, ==, 20);
  g_assert_nonnull (cp_finding_get_fixes (f, CP_FRAMEWORK_PYTORCH)[0]);
  g_assert_nonnull (cp_finding_get_fixes (f, CP_FRAMEWORK_JAX)[0]);
  g_assert_nonnull (cp_finding_get_fixes (f, CP_FRAMEWORK_TENSORFLOW)[0]);
  g_assert_nonnull (strstr (cp_finding_get_summary (f), "num_workers=0"));

  /* The single-process loader and the launches are the same gaps. */
  assert_severity (a, "dataloader-single-process", CP_SEVERITY_INFO);
  g_assert_cmpint (cp_finding_get_measured_severity (finding (a, "dataloader-single-process")), ==,
                   CP_SEVERITY_MODERATE);
  assert_severity (a, "launch-bound", CP_SEVERITY_INFO);
  g_assert_cmpstr (cp_finding_get_explained_by (finding (a, "launch-bound")), ==, "input-bound");
  g_assert_null (finding (a, "host-overhead"));
  g_assert_null (finding (a, "low-utilization"));
}

/* Trace C: pageable upload, download, a blocking sync that drains the device. */
static CpTrace *
trace_c (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  guint up = cp_test_trace_copy_lane (b, 0, CP_TRANSFER_HTOD);
  guint down = cp_test_trace_copy_lane (b, 0, CP_TRANSFER_DTOH);
  CpGpuInfo g;

  cp_test_trace_gpu_info_clear (&g);
  cp_test_trace_slice_full (b, h, 0, 10, "cudaMemcpyAsync", 0, 901, NULL);
  g.bytes = 1000;
  cp_test_trace_slice_full (b, up, 10, 100, "Memcpy HtoD (Pageable -> Device)", 0, 901, &g);
  cp_test_trace_launch (b, h, 110, 10, k, 120, 100, "volta_h884gemm");
  cp_test_trace_slice_full (b, h, 130, 10, "cudaMemcpyAsync", 0, 902, NULL);
  g.bytes = 400;
  cp_test_trace_slice_full (b, down, 220, 20, "Memcpy DtoH (Device -> Pinned)", 0, 902, &g);
  cp_test_trace_slice (b, h, 140, 105, "cudaStreamSynchronize");
  cp_test_trace_slice (b, h, 250, 50, "aten::to");
  cp_test_trace_launch (b, h, 300, 10, k, 310, 20, "volta_h884gemm");
  return cp_test_trace_finish (b);
}

static void
test_transfers_sync (void)
{
  g_autoptr(CpTrace) trace = trace_c ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpTransferStats *t;
  const CpDeviceStats *d;
  CpFinding *f;
  guint n;

  g_assert_cmpint (total (a, CP_TIME_COMPUTE_16), ==, 120);
  g_assert_cmpint (total (a, CP_TIME_DEVICE_TO_HOST), ==, 20);
  g_assert_cmpint (total (a, CP_TIME_HOST_TO_DEVICE), ==, 100);
  g_assert_cmpint (total (a, CP_TIME_LAUNCH), ==, 30);
  g_assert_cmpint (total (a, CP_TIME_RUNTIME), ==, 5);
  g_assert_cmpint (total (a, CP_TIME_HOST_COMPUTE), ==, 50);
  g_assert_cmpint (total (a, CP_TIME_IDLE), ==, 5);

  t = cp_analysis_get_transfers (a, &n);
  g_assert_cmpuint (n, ==, CP_TRANSFER_N_KINDS);
  g_assert_cmpuint (t[CP_TRANSFER_HTOD].count, ==, 1);
  g_assert_cmpint (t[CP_TRANSFER_HTOD].bytes, ==, 1000);
  g_assert_cmpint (t[CP_TRANSFER_HTOD].time, ==, 100);
  g_assert_cmpfloat_with_epsilon (t[CP_TRANSFER_HTOD].bandwidth, 10.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (t[CP_TRANSFER_HTOD].peak_bandwidth, 10.0, 1e-12);
  g_assert_cmpuint (t[CP_TRANSFER_HTOD].n_pageable, ==, 1);
  g_assert_cmpfloat_with_epsilon (t[CP_TRANSFER_DTOH].bandwidth, 20.0, 1e-12);
  g_assert_cmpuint (t[CP_TRANSFER_DTOH].n_pageable, ==, 0);
  g_assert_true (isnan (t[CP_TRANSFER_DTOD].bandwidth));

  d = cp_analysis_get_devices (a, &n);
  g_assert_cmpint (d->idle, ==, 90);
  g_assert_cmpint (d->idle_kernel_wait, ==, 10);
  g_assert_cmpint (d->idle_host_wait, ==, 70);
  g_assert_cmpint (d->idle_other, ==, 10);
  g_assert_cmpuint (d->n_kernels, ==, 2);

  assert_severity (a, "pageable-memcpy", CP_SEVERITY_HIGH);
  assert_severity (a, "transfer-bound", CP_SEVERITY_INFO);
  g_assert_cmpstr (cp_finding_get_explained_by (finding (a, "transfer-bound")), ==, "pageable-memcpy");
  assert_severity (a, "output-bound", CP_SEVERITY_MODERATE);
  assert_severity (a, "sync-stall", CP_SEVERITY_HIGH);
  assert_severity (a, "host-overhead", CP_SEVERITY_INFO);
  g_assert_cmpstr (cp_finding_get_explained_by (finding (a, "host-overhead")), ==, "sync-stall");
  assert_severity (a, "launch-bound", CP_SEVERITY_INFO);
  assert_severity (a, "low-utilization", CP_SEVERITY_INFO);

  f = finding (a, "sync-stall");
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, 70);
  {
    static const gint64 ranges[] = { 140, 310 };

    assert_evidence_inside (f, ranges, 1);
  }
  f = finding (a, "pageable-memcpy");
  {
    static const gint64 ranges[] = { 10, 110 };

    assert_evidence_inside (f, ranges, 1);
  }
}

/* Trace D: a collective that compute hides for only 20 of its 120 ns. */
static void
test_comm (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  guint c = cp_test_trace_kernel_lane (b, 0, 20);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const CpDeviceStats *d;

  cp_test_trace_slice (b, k, 0, 100, "volta_h884gemm");
  cp_test_trace_slice (b, c, 80, 120, "ncclKernel_AllReduce_RING_LL_Sum_float");
  trace = cp_test_trace_finish (b);
  a = analyse (trace);

  g_assert_cmpint (total (a, CP_TIME_COLLECTIVES), ==, 100);
  d = cp_analysis_get_devices (a, NULL);
  g_assert_cmpint (d->comm_time, ==, 120);
  g_assert_cmpint (d->comm_overlap, ==, 20);
  g_assert_cmpfloat (d->utilization, ==, 1.0);

  assert_severity (a, "comm-bound", CP_SEVERITY_HIGH);
  assert_severity (a, "low-comm-overlap", CP_SEVERITY_INFO);
  g_assert_cmpstr (cp_finding_get_explained_by (finding (a, "low-comm-overlap")), ==, "comm-bound");
  g_assert_null (finding (a, "host-overhead"));
  g_assert_null (finding (a, "low-utilization"));
}

/* Trace E: 32-bit GEMMs without tensor cores. */
static CpTrace *
trace_e (gint compute_major)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);

  cp_trace_builder_device (b, 0)->compute_major = compute_major;
  cp_test_trace_slice (b, h, 0, 9, "aten::linear");
  cp_test_trace_slice (b, h, 0, 9, "aten::addmm");
  cp_test_trace_launch (b, h, 2, 5, k, 20, 80, "ampere_sgemm_64x32_sliced1x4_tn");
  /* Launched by a non-eligible op: not eligible (TB counts kernels of eligible ops). */
  cp_test_trace_slice (b, h, 9, 11, "aten::add");
  cp_test_trace_launch (b, h, 10, 5, k, 100, 20, "vectorized_elementwise_kernel<float>");
  return cp_test_trace_finish (b);
}

static void
test_precision (void)
{
  g_autoptr(CpTrace) trace = trace_e (8);
  g_autoptr(CpAnalysis) a = analyse (trace);
  g_autoptr(CpTrace) old = trace_e (6);
  g_autoptr(CpAnalysis) a_old = analyse (old);
  CpFinding *f;

  assert_severity (a, "no-mixed-precision", CP_SEVERITY_HIGH);
  f = finding (a, "no-mixed-precision");
  /* 80 of 100 ns of compute are eligible 32-bit; half of it is at stake. */
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "fp32_eligible_percent")->value, 80.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "half_percent")->value, 0.0, 1e-9);
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, 40);
  {
    static const gint64 ranges[] = { 20, 100 };

    assert_evidence_inside (f, ranges, 1);
  }
  /* No tensor cores on compute capability 6: only info. */
  assert_severity (a_old, "no-mixed-precision", CP_SEVERITY_INFO);
}

static const CpHostOpStats *
find_op (CpTrace    *trace,
         CpAnalysis *a,
         const char *name)
{
  const CpHostOpStats *ops;
  guint n;

  ops = cp_analysis_get_host_ops (a, &n);
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (cp_trace_get_string (trace, ops[i].name), name) == 0)
      return &ops[i];
  g_error ("no host op %s", name);
  return NULL;
}

static void
test_host_op_nesting (void)
{
  g_autoptr(CpTrace) trace = trace_e (8);
  g_autoptr(CpAnalysis) a = analyse (trace);
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(CpTrace) t2 = NULL;
  g_autoptr(CpAnalysis) a2 = NULL;
  const CpHostOpStats *op;

  /* The deepest op gets the kernel as "self"; every op around it as total. */
  op = find_op (trace, a, "aten::addmm");
  g_assert_cmpuint (op->n_self_kernels, ==, 1);
  g_assert_cmpint (op->self_kernel_time, ==, 80);
  g_assert_cmpuint (op->n_kernels, ==, 1);
  g_assert_cmpint (op->kernel_time, ==, 80);
  op = find_op (trace, a, "aten::linear");
  g_assert_cmpuint (op->n_self_kernels, ==, 0);
  g_assert_cmpuint (op->n_kernels, ==, 1);
  g_assert_cmpint (op->kernel_time, ==, 80);
  g_assert_cmpstr (cp_trace_get_string (trace, g_array_index (op->kernels, CpKernelCount, 0).name), ==,
                   "ampere_sgemm_64x32_sliced1x4_tn");
  op = find_op (trace, a, "aten::add");
  g_assert_cmpint (op->kernel_time, ==, 20);
  g_assert_cmpfloat_with_epsilon (op->kernel_share, 0.2, 1e-12);

  /* An op inside an op of the same name counts the kernel once. */
  cp_test_trace_slice (b, h, 0, 50, "aten::to");
  cp_test_trace_slice (b, h, 5, 40, "aten::copy_");
  cp_test_trace_slice (b, h, 10, 30, "aten::to");
  cp_test_trace_launch (b, h, 12, 5, k, 20, 10, "copy_kernel");
  t2 = cp_test_trace_finish (b);
  a2 = analyse (t2);
  op = find_op (t2, a2, "aten::to");
  g_assert_cmpuint (op->count, ==, 2);
  g_assert_cmpint (op->total, ==, 80);
  g_assert_cmpuint (op->n_kernels, ==, 1);
  g_assert_cmpuint (op->n_self_kernels, ==, 1);
  op = find_op (t2, a2, "aten::copy_");
  g_assert_cmpuint (op->n_kernels, ==, 1);
  g_assert_cmpuint (op->n_self_kernels, ==, 0);
}

/* Launches given by flows: a kernel that two flows of the same call reach
 * counts once; a kernel reached from two calls belongs to the call of the
 * first flow added, even the later call; a call outside any op gives its
 * kernel to no op. */
static void
test_launch_flows (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  CpStr flow = cp_trace_builder_intern (b, "ac2g", -1);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const CpHostOpStats *op;
  CpSliceRef call1, call2, call3, k1, k2, k3;

  cp_test_trace_slice (b, h, 0, 100, "aten::linear");
  cp_test_trace_slice (b, h, 10, 30, "aten::addmm");
  call1 = cp_test_trace_slice (b, h, 12, 5, "cudaLaunchKernel");
  cp_test_trace_slice (b, h, 50, 40, "aten::relu");
  call2 = cp_test_trace_slice (b, h, 55, 5, "cudaLaunchKernel");
  call3 = cp_test_trace_slice (b, h, 200, 5, "cudaLaunchKernel");
  k1 = cp_test_trace_slice (b, k, 20, 40, "ampere_sgemm_64x32_sliced1x4_tn");
  k2 = cp_test_trace_slice (b, k, 70, 10, "vectorized_elementwise_kernel");
  k3 = cp_test_trace_slice (b, k, 210, 7, "vectorized_elementwise_kernel");
  /* call1 -> k1 twice; call2 -> k2 before call1 -> k2 (the later call
   * first); call3 -> k3. */
  cp_trace_builder_add_flow (b, call1, k1, CP_FLOW_LAUNCH, flow);
  cp_trace_builder_add_flow (b, call1, k1, CP_FLOW_LAUNCH, flow);
  cp_trace_builder_add_flow (b, call2, k2, CP_FLOW_LAUNCH, flow);
  cp_trace_builder_add_flow (b, call1, k2, CP_FLOW_LAUNCH, flow);
  cp_trace_builder_add_flow (b, call3, k3, CP_FLOW_LAUNCH, flow);
  trace = cp_test_trace_finish (b);
  a = analyse (trace);

  op = find_op (trace, a, "aten::addmm");
  g_assert_cmpuint (op->n_self_kernels, ==, 1);
  g_assert_cmpint (op->self_kernel_time, ==, 40);
  g_assert_cmpuint (op->n_kernels, ==, 1);
  g_assert_cmpint (op->kernel_time, ==, 40);
  g_assert_cmpuint (op->kernels->len, ==, 1);
  op = find_op (trace, a, "aten::relu");
  g_assert_cmpuint (op->n_self_kernels, ==, 1);
  g_assert_cmpint (op->kernel_time, ==, 10);
  op = find_op (trace, a, "aten::linear");
  g_assert_cmpuint (op->n_self_kernels, ==, 0);
  g_assert_cmpuint (op->n_kernels, ==, 2);
  g_assert_cmpint (op->kernel_time, ==, 50);
  g_assert_cmpuint (op->kernels->len, ==, 2);
  /* Every kernel counts in the totals, k3 too. */
  g_assert_cmpint (cp_analysis_get_kernel_time (a), ==, 57);
}

/* Trace F: est. SM efficiency and achieved occupancy. */
static void
test_sm_efficiency (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k1 = cp_test_trace_kernel_lane (b, 0, 7);
  guint k2 = cp_test_trace_kernel_lane (b, 0, 8);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const CpDeviceStats *d;
  const CpKernelStats *ks;
  guint n;
  CpGpuInfo g;

  cp_test_trace_gpu_info_clear (&g);
  g.blocks_per_sm = 0.5f;
  g.occupancy = 40;
  g.grid[0] = 8; g.grid[1] = 1; g.grid[2] = 1;
  g.block[0] = 256; g.block[1] = 1; g.block[2] = 1;
  cp_test_trace_slice_full (b, k1, 0, 100, "volta_h884gemm", 0, CP_NONE, &g);
  g.blocks_per_sm = 0.75f;
  g.occupancy = 60;
  cp_test_trace_slice_full (b, k2, 50, 100, "volta_h884gemm", 0, CP_NONE, &g);
  g.grid[0] = 16;
  g.blocks_per_sm = NAN;
  g.occupancy = NAN;
  cp_test_trace_slice_full (b, k1, 160, 0, "other_half_kernel", 0, CP_NONE, &g);
  cp_test_trace_slice (b, h, 150, 50, "python_work");
  trace = cp_test_trace_finish (b);
  a = analyse (trace);

  d = cp_analysis_get_devices (a, &n);
  /* ∫ min(Σ blocks/SM, 1) = 50·0.5 + 50·1 + 50·0.75 = 112.5 over 200. */
  g_assert_cmpfloat_with_epsilon (d->sm_efficiency, 112.5 / 200.0, 1e-6);
  /* Duration-weighted: (40·100 + 60·100) / 200. */
  g_assert_cmpfloat_with_epsilon (d->achieved_occupancy, 50.0, 1e-6);

  ks = cp_analysis_get_kernels (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ks[0].count, ==, 2);
  g_assert_cmpfloat_with_epsilon (ks[0].occupancy, 50.0, 1e-6);
  g_assert_cmpint (ks[0].grid[0], ==, 8);
  g_assert_cmpint (ks[0].block[0], ==, 256);
  g_assert_cmpint (ks[1].grid[0], ==, 16);
}

/* One kernel lane of occupancies (NAN: the slice has none); the analysis. */
static CpAnalysis *
occupancy_trace (const float *occ,
                 guint        n,
                 CpTrace    **trace_out)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  CpGpuInfo g;

  cp_test_trace_gpu_info_clear (&g);
  for (guint i = 0; i < n; i++)
    {
      g.occupancy = occ[i];
      cp_test_trace_slice_full (b, k, 100 * i, 100, i % 2 ? "kernel_b" : "kernel_a", 0, CP_NONE, &g);
    }
  *trace_out = cp_test_trace_finish (b);
  return analyse (*trace_out);
}

/* An occupancy of 0 on every kernel is a placeholder (ROCm writes one):
 * absent in the trace and the analysis, null in the JSON. A 0 beside
 * measured ones stays: (0·100 + 50·100) / 200 = 25 on the device. */
static void
test_placeholder_occupancy (void)
{
  static const float zeros[] = { 0, 0, 0, 0 };
  static const float mixed[] = { 0, 50 };
  g_autoptr(CpTrace) t1 = NULL;
  g_autoptr(CpTrace) t2 = NULL;
  g_autoptr(CpAnalysis) a1 = occupancy_trace (zeros, G_N_ELEMENTS (zeros), &t1);
  g_autoptr(CpAnalysis) a2 = occupancy_trace (mixed, G_N_ELEMENTS (mixed), &t2);
  g_autofree char *json = cp_analysis_to_json (a1, FALSE);
  const CpKernelStats *ks;
  const CpDeviceStats *d;
  guint n, lane = G_MAXUINT;

  for (guint l = 0; l < cp_trace_get_n_lanes (t1); l++)
    if (cp_lane_get_kind (cp_trace_get_lane (t1, l)) == CP_LANE_KERNEL)
      lane = l;
  g_assert_cmpuint (cp_lane_get_n_slices (cp_trace_get_lane (t1, lane)), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      CpSliceRef r = { lane, i };

      g_assert_true (isnan (cp_trace_get_gpu_info (t1, r)->occupancy));
    }
  d = cp_analysis_get_devices (a1, &n);
  g_assert_true (isnan (d->achieved_occupancy));
  ks = cp_analysis_get_kernels (a1, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (isnan (ks[0].occupancy) && isnan (ks[1].occupancy));
  g_assert_nonnull (strstr (json, "\"achieved_occupancy\":null"));
  g_assert_null (strstr (json, "\"occupancy\":0"));

  d = cp_analysis_get_devices (a2, &n);
  g_assert_cmpfloat_with_epsilon (d->achieved_occupancy, 25.0, 1e-6);
  ks = cp_analysis_get_kernels (a2, &n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpfloat (ks[i].occupancy, ==, g_str_equal (cp_trace_get_string (t2, ks[i].name), "kernel_a") ? 0 : 50);
}

/* The real ROCm captures: XLA on MI300X, whose kernel_details say
 * occ_pct:0 for every kernel, show no occupancy; an H100 capture keeps
 * Kineto's measured ones. */
static void
test_placeholder_occupancy_real (void)
{
  static const struct { const char *path; gboolean measured; } captures[] = {
    { "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb", FALSE },
    { "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", FALSE },
    { "AMD-AGI__TraceLens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb", FALSE },
    { "AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", TRUE },
  };
  const char *root = cp_test_shared_traces ();
  guint seen = 0;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  for (guint c = 0; c < G_N_ELEMENTS (captures); c++)
    {
      g_autofree char *path = g_build_filename (root, captures[c].path, NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(CpAnalysis) a = NULL;
      const CpDeviceStats *d;
      guint n, with_kernels = 0;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      a = analyse (trace);
      d = cp_analysis_get_devices (a, &n);
      for (guint i = 0; i < n; i++)
        if (d[i].n_kernels > 0)
          {
            with_kernels++;
            if (captures[c].measured)
              g_assert_cmpfloat (d[i].achieved_occupancy, >, 0);
            else
              g_assert_true (isnan (d[i].achieved_occupancy));
          }
      g_assert_cmpuint (with_kernels, >, 0);
      seen++;
    }
  if (seen == 0)
    g_test_skip ("none of the captures is there");
}

/* Eleven 1 ms kernels on GPU 0, and its counters sampled every ms:
 * the SM clock at 1980 MHz but 1400 MHz from 4 to 8 ms, power 300 then
 * 350 W (in mW), temperature 60 then 80 °C. With clock FALSE, no clock
 * counter; with power FALSE, no power or temperature counter. */
static CpAnalysis *
counter_trace (gboolean clock,
               gboolean power)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  guint c = clock ? cp_test_trace_counter_lane (b, 0, "sm_clock_mhz") : 0;
  guint p = power ? cp_test_trace_counter_lane (b, 0, "power_mw") : 0;
  guint t = power ? cp_test_trace_counter_lane (b, 0, "gpu_temp_c") : 0;
  g_autoptr(CpTrace) trace = NULL;

  for (gint64 i = 0; i < 11; i++)
    {
      cp_test_trace_slice (b, k, i * 1000000, 1000000, "sgemm_kernel");
      if (clock)
        cp_trace_builder_add_counter (b, c, i * 1000000, i >= 4 && i < 8 ? 1400 : 1980);
    }
  if (power)
    {
      cp_trace_builder_add_counter (b, p, 1000000, 300000);
      cp_trace_builder_add_counter (b, p, 2000000, 350000);
      cp_trace_builder_add_counter (b, t, 1000000, 60);
      cp_trace_builder_add_counter (b, t, 2000000, 80);
    }
  trace = cp_test_trace_finish (b);
  return analyse (trace);
}

static gboolean
analysis_has_note (CpAnalysis *a,
                   const char *part)
{
  const char * const *notes = cp_analysis_get_notes (a);

  for (guint i = 0; notes[i] != NULL; i++)
    if (strstr (notes[i], part) != NULL)
      return TRUE;
  return FALSE;
}

/* Power, temperature and clock: their figures in the JSON, and the SM
 * clock at 1400 of 1980 MHz for 4 of the 11 busy ms: throttled 36.4% of
 * the busy time (moderate at 10%), 4 ms × (1 - 1400 / 1980) at stake. */
static void
test_device_counters (void)
{
  g_autoptr(CpAnalysis) a = counter_trace (TRUE, TRUE);
  g_autoptr(CpAnalysis) none = counter_trace (FALSE, FALSE);
  g_autoptr(CpAnalysis) no_clock = counter_trace (FALSE, TRUE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *json = cp_analysis_to_json (a, FALSE);
  JsonObject *dev, *clock, *power, *temp;
  CpFinding *f;

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  dev = json_array_get_object_element (json_object_get_array_member (
          json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "metrics"), "devices"), 0);
  clock = json_object_get_object_member (dev, "sm_clock_mhz");
  power = json_object_get_object_member (dev, "power_w");
  temp = json_object_get_object_member (dev, "temperature_c");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (clock, "mean"), (7 * 1980.0 + 4 * 1400.0) / 11, 1e-9);
  g_assert_cmpfloat (json_object_get_double_member (clock, "min"), ==, 1400);
  g_assert_cmpfloat (json_object_get_double_member (clock, "max"), ==, 1980);
  g_assert_cmpint (json_object_get_int_member (clock, "samples"), ==, 11);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (power, "mean"), 325, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (power, "max"), 350, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (temp, "mean"), 70, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (temp, "max"), 80, 1e-9);
  g_assert_false (analysis_has_note (a, "throttling was not checked"));
  g_assert_false (analysis_has_note (a, "throttling were not checked"));

  f = finding (a, "clock-throttling");
  g_assert_nonnull (f);
  g_assert_cmpint (cp_finding_get_severity (f), ==, CP_SEVERITY_MODERATE);
  g_assert_cmpint (cp_finding_get_section (f), ==, CP_FINDING_SECTION_SPEEDUP);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "throttled_percent")->value, 400.0 / 11, 1e-9);
  g_assert_cmpfloat (cp_finding_lookup_figure (f, "clock_low_mhz")->value, ==, 1400);
  g_assert_cmpfloat (cp_finding_lookup_figure (f, "clock_max_mhz")->value, ==, 1980);
  g_assert_cmpfloat (cp_finding_lookup_figure (f, "throttled_ns")->value, ==, 4000000);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "power_max_w")->value, 350, 1e-9);
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, (gint64) llround (4000000 * (1 - 1400.0 / 1980)));
  g_assert_cmpuint (cp_finding_get_evidence_total (f), ==, 1);

  g_assert_null (finding (none, "clock-throttling"));
  g_assert_true (analysis_has_note (none, "No power, temperature or clock counters"));
  {
    g_autofree char *plain = cp_analysis_to_json (none, FALSE);

    g_assert_nonnull (strstr (plain, "\"power_w\":null"));
  }
  g_assert_true (analysis_has_note (no_clock, "No SM clock counter"));
}

/* cp-gen's healthy run samples power at 540 W ± 12% and the SM clock
 * from 1755 to 1980 MHz (tools/cp-gen-sim.c): the figures stay inside,
 * and a clock never under 85% of its highest is not throttled. */
static void
test_device_counters_generated (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *capture = g_build_filename (dir, "healthy.json", NULL);
  g_autofree char *truth_path = g_build_filename (dir, "truth.json", NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", "healthy", "--out", capture, "--truth", truth_path,
                         "--steps", "4", "-q", NULL };
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const CpDeviceCounters *dc;
  const CpCounterStats *power, *clock;

  g_assert_nonnull (argv[0]);
  cp_test_run_generator (argv, truth_path, truth);
  file = g_file_new_for_path (capture);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = analyse (trace);
  dc = cp_analysis_get_device_counters (a, 0);
  g_assert_nonnull (dc);
  power = &dc->counters[CP_DEVICE_COUNTER_POWER];
  clock = &dc->counters[CP_DEVICE_COUNTER_CLOCK];
  g_assert_cmpuint (power->n_samples, >, 0);
  g_assert_cmpfloat (power->min, >=, 540 * 0.88 - 1e-9);
  g_assert_cmpfloat (power->max, <=, 540 * 1.12 + 1e-9);
  g_assert_cmpfloat (clock->min, >=, 1755);
  g_assert_cmpfloat (clock->max, <=, 1980);
  g_assert_true (fmod (clock->min - 1755, 15) == 0 && fmod (clock->max - 1755, 15) == 0);
  g_assert_null (finding (a, "clock-throttling"));
  cp_test_rm_rf (dir);
}

static void
test_kernel_shape_varies (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const CpKernelStats *ks;
  CpGpuInfo g;

  cp_test_trace_gpu_info_clear (&g);
  g.grid[0] = 8; g.grid[1] = 1; g.grid[2] = 1;
  g.block[0] = 128; g.block[1] = 1; g.block[2] = 1;
  cp_test_trace_slice_full (b, k, 0, 10, "kern", 0, CP_NONE, &g);
  g.grid[0] = 9;
  cp_test_trace_slice_full (b, k, 20, 30, "kern", 0, CP_NONE, &g);
  trace = cp_test_trace_finish (b);
  a = analyse (trace);
  ks = cp_analysis_get_kernels (a, NULL);
  g_assert_cmpint (ks[0].grid[0], ==, -1);
  g_assert_cmpint (ks[0].block[0], ==, 128);
  g_assert_cmpint (ks[0].min, ==, 10);
  g_assert_cmpint (ks[0].max, ==, 30);
}

/* Trace G: memory counter near the limit, DataParallel over two GPUs, a gap
 * over 500 ms. */
static void
test_memory_dp_gaps (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k0 = cp_test_trace_kernel_lane (b, 0, 7);
  guint k1 = cp_test_trace_kernel_lane (b, 1, 7);
  guint mem = cp_test_trace_counter_lane (b, 0, "GPU 0 memory allocated");
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  CpFinding *f;
  const CpEvidence *ev;
  guint n;

  cp_trace_builder_device (b, 0)->total_memory = 8000000000;
  cp_trace_builder_add_counter (b, mem, 0, 1e9);
  cp_trace_builder_add_counter (b, mem, 100, 7.5e9);
  cp_trace_builder_add_counter (b, mem, 200, 2e9);
  cp_test_trace_slice (b, h, 0, 50, "nn.Module: DataParallel_0");
  cp_test_trace_slice (b, k0, 0, 10, "volta_h884gemm");
  cp_test_trace_slice (b, k0, 600 * CP_NS_PER_MS, 10, "volta_h884gemm");
  cp_test_trace_slice (b, k1, 0, 600 * CP_NS_PER_MS + 10, "volta_h884gemm");
  trace = cp_test_trace_finish (b);
  a = analyse (trace);

  assert_severity (a, "memory-pressure", CP_SEVERITY_MODERATE);
  f = finding (a, "memory-pressure");
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "peak_memory_ratio")->value, 0.9375, 1e-12);
  ev = cp_finding_get_evidence (f, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (cp_lane_get_kind (cp_trace_get_lane (trace, ev[0].lane)), ==, CP_LANE_COUNTER);
  g_assert_cmpint (ev[0].start, ==, 100);
  g_assert_cmpint (ev[0].end, ==, 200);

  assert_severity (a, "dataparallel", CP_SEVERITY_MODERATE);
  g_assert_cmpfloat (cp_finding_lookup_figure (finding (a, "dataparallel"), "devices_used")->value, ==, 2);

  /* The gap is a symptom; the causes above explain the run. */
  f = finding (a, "gpu-gaps");
  g_assert_nonnull (f);
  g_assert_cmpint (cp_finding_get_severity (f), ==, CP_SEVERITY_INFO);
  g_assert_cmpint (cp_finding_get_measured_severity (f), ==, CP_SEVERITY_MODERATE);
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, 600 * CP_NS_PER_MS - 10);
}

/* A healthy capture: back-to-back 16-bit tensor-core kernels, launches hidden. */
static void
test_healthy (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  CpSeverity worst;

  cp_test_trace_slice (b, h, 0, 1000, "ProfilerStep#1");
  cp_test_trace_slice (b, h, 1000, 1000, "ProfilerStep#2");
  for (gint64 t = 0; t < 2000; t += 100)
    cp_test_trace_launch (b, h, t + 1, 10, k, t + 20, 100, "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn");
  cp_trace_builder_detect_profiler_steps (b);
  trace = cp_test_trace_finish (b);
  a = analyse (trace);

  g_assert_false (cp_analysis_has_warnings (a));
  if (cp_analysis_get_worst_severity (a, &worst))
    g_assert_cmpint (worst, ==, CP_SEVERITY_INFO);
  /* The verdict: nothing to blame, and how busy the GPU is. */
  {
    const CpVerdict *v = cp_analysis_get_verdict (a);
    const CpDeviceStats *dev = cp_analysis_get_devices (a, NULL);
    g_autofree char *want = NULL;

    g_assert_null (v->primary_rule);
    g_assert_cmpuint (v->n_causes, ==, 0);
    g_assert_cmpuint (v->n_speedups, ==, 0);
    g_assert_cmpfloat_with_epsilon (v->busy_percent, 100.0 * dev[0].utilization, 1e-9);
    g_assert_cmpfloat (v->busy_percent, >, 90);
    g_assert_true (isnan (v->loading_percent));
    /* Busy past CP_VERDICT_BUSY_PERCENT: said first, no wait named. */
    g_assert_true (v->busy_first);
    want = g_strdup_printf ("The GPU is busy %.0f%% of the step time.", v->busy_percent);
    g_assert_cmpstr (v->text, ==, want);
  }
}

static void
test_host_only (void)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const char * const *notes;
  gboolean found = FALSE;

  cp_test_trace_slice (b, h, 0, 100, "python_work");
  trace = cp_test_trace_finish (b);
  a = analyse (trace);
  g_assert_cmpuint (g_list_model_get_n_items (cp_analysis_get_findings (a)), ==, 0);
  notes = cp_analysis_get_notes (a);
  for (guint i = 0; notes[i] != NULL; i++)
    found |= strstr (notes[i], "no device activity") != NULL;
  g_assert_true (found);
  g_assert_cmpint (total (a, CP_TIME_HOST_COMPUTE), ==, 100);
}

static void
test_launches_without_kernels (void)
{
  /* A CUDA graph capture: launches record into a graph, nothing runs. The
   * idle device must not be blamed on the host. */
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  const char * const *notes;
  gboolean found = FALSE;

  cp_test_trace_slice (b, h, 0, 10000, "aten::graph_capture");
  for (guint i = 0; i < 30; i++)
    cp_test_trace_slice (b, h, 100 + i * 300, 100, "cudaLaunchKernel");
  cp_test_trace_slice (b, k, 9500, 10, "fill_kernel");
  trace = cp_test_trace_finish (b);
  a = analyse (trace);

  notes = cp_analysis_get_notes (a);
  for (guint i = 0; notes[i] != NULL; i++)
    found |= strstr (notes[i], "30 launch calls but only 1 device operations") != NULL;
  g_assert_true (found);
  g_assert_null (finding (a, "host-overhead"));
  g_assert_null (finding (a, "low-utilization"));
  g_assert_null (finding (a, "launch-bound"));
  g_assert_false (cp_analysis_has_warnings (a));
}

static void
test_empty_steps (void)
{
  /* Zero-length step markers give no window: the whole capture is one. */
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  guint n;

  cp_test_trace_slice (b, h, 10, 0, "ProfilerStep#1");
  cp_test_trace_slice (b, h, 0, 50, "work");
  cp_trace_builder_detect_profiler_steps (b);
  trace = cp_test_trace_finish (b);
  a = analyse (trace);
  g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_NONE);
  cp_analysis_get_windows (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (cp_analysis_get_n_dropped_steps (a), ==, 0);
}

static void
test_cancel (void)
{
  g_autoptr(CpTrace) trace = trace_a ();
  g_autoptr(GCancellable) c = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpAnalysis) a = NULL;

  g_cancellable_cancel (c);
  a = cp_analysis_new (trace, c, &error);
  g_assert_null (a);
  g_assert_error (error, CP_ANALYSIS_ERROR, CP_ANALYSIS_ERROR_CANCELLED);
}

static void
async_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  CpAnalysis **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = cp_analysis_new_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_async (void)
{
  g_autoptr(CpTrace) trace = trace_b ();
  CpAnalysis *a = NULL;

  cp_analysis_new_async (trace, NULL, async_done, &a);
  while (a == NULL)
    g_main_context_iteration (NULL, TRUE);
  assert_severity (a, "input-bound", CP_SEVERITY_HIGH);
  g_assert_finalize_object (a);
}

static void
test_json (void)
{
  g_autoptr(CpTrace) trace = trace_c ();
  g_autoptr(CpAnalysis) a = analyse (trace);
  g_autofree char *text = cp_analysis_to_json (a, TRUE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *dev, *f0, *ev0;
  JsonArray *devices, *findings;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, CP_ANALYSIS_JSON_SCHEMA_VERSION);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "window"), "source"), ==, "none");

  devices = json_object_get_array_member (json_object_get_object_member (root, "metrics"), "devices");
  g_assert_cmpuint (json_array_get_length (devices), ==, 1);
  dev = json_array_get_object_element (devices, 0);
  g_assert_cmpint (json_object_get_int_member (dev, "device"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (dev, "kernels"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (dev, "kernel_time_ns"), ==, 120);
  g_assert_cmpint (json_object_get_int_member (dev, "kernel_busy_ns"), ==, 120);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (dev, "utilization"), 120.0 / 330.0, 1e-9);
  g_assert_cmpint (json_object_get_int_member (dev, "idle_host_wait_ns"), ==, 70);
  g_assert_true (json_object_get_null_member (dev, "sm_efficiency"));

  findings = json_object_get_array_member (root, "findings");
  g_assert_cmpuint (json_array_get_length (findings), >, 0);
  f0 = json_array_get_object_element (findings, 0);
  g_assert_true (json_object_has_member (f0, "rule"));
  g_assert_true (json_object_has_member (f0, "title"));
  g_assert_true (json_object_has_member (f0, "severity"));
  g_assert_true (json_object_has_member (f0, "figures"));
  g_assert_true (json_object_has_member (f0, "time_at_stake_ns"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_object_get_object_member (f0, "fixes"), "pytorch")), >, 0);
  ev0 = json_array_get_object_element (json_object_get_array_member (f0, "evidence"), 0);
  g_assert_true (json_object_has_member (ev0, "lane"));
  g_assert_true (json_object_has_member (ev0, "start_ns"));
  g_assert_true (json_object_has_member (ev0, "end_ns"));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (root, "summary"), "healthy"));
}

static void
test_rule_table (void)
{
  static const char * const contract[] = {
    "input-pipeline", "input-bound", "dataloader-single-process", "launch-bound", "host-overhead",
    "transfer-bound", "pageable-memcpy", "sync-stall", "async-wait", "output-bound",
    "no-mixed-precision", "below-roofline", "clock-throttling", "low-utilization", "gpu-gaps", "comm-bound",
    "low-comm-overlap", "memory-pressure", "memory-fragmentation", "memory-leak",
    "memory-headroom", "dataparallel",
  };
  guint n;
  CpSeverity sev;

  cp_rules_get_all (&n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (contract));
  for (guint i = 0; i < G_N_ELEMENTS (contract); i++)
    {
      const CpRule *r = cp_rules_lookup (contract[i]);

      g_assert_nonnull (r);
      g_assert_nonnull (r->source);
      g_assert_false (isnan (r->moderate));
      for (guint k = 0; k < CP_N_FRAMEWORKS; k++)
        g_assert_nonnull (r->fixes[k][0]);
    }
  g_assert_null (cp_rules_lookup ("nonsense"));

  /* Exact comparisons: XProf >=, TB >, TB <. */
  g_assert_true (cp_rule_grade (cp_rules_lookup ("input-bound"), 20.0, &sev));
  g_assert_cmpint (sev, ==, CP_SEVERITY_HIGH);
  g_assert_true (cp_rule_grade (cp_rules_lookup ("input-bound"), 5.0, &sev));
  g_assert_cmpint (sev, ==, CP_SEVERITY_MODERATE);
  g_assert_false (cp_rule_grade (cp_rules_lookup ("input-bound"), 4.999, &sev));
  g_assert_false (cp_rule_grade (cp_rules_lookup ("dataloader-single-process"), 0.05, &sev));
  g_assert_true (cp_rule_grade (cp_rules_lookup ("dataloader-single-process"), 0.0501, &sev));
  g_assert_false (cp_rule_grade (cp_rules_lookup ("low-utilization"), 0.5, &sev));
  g_assert_true (cp_rule_grade (cp_rules_lookup ("low-utilization"), 0.4999, &sev));
  g_assert_false (cp_rule_grade (cp_rules_lookup ("gpu-gaps"), 500, &sev));
  g_assert_true (cp_rule_grade (cp_rules_lookup ("gpu-gaps"), 500.001, &sev));
  g_assert_false (cp_rule_grade (cp_rules_lookup ("memory-pressure"), 0.9, &sev));
  g_assert_false (cp_rule_grade (cp_rules_lookup ("memory-headroom"), 0.5, &sev));
  g_assert_true (cp_rule_grade (cp_rules_lookup ("memory-headroom"), 0.4999, &sev));
  g_assert_false (cp_rule_grade (cp_rules_lookup ("memory-leak"), 5, &sev));
  g_assert_true (cp_rule_grade (cp_rules_lookup ("memory-leak"), 20.001, &sev));
  g_assert_cmpint (sev, ==, CP_SEVERITY_HIGH);
  g_assert_true (cp_rule_grade (cp_rules_lookup ("launch-bound"), 15, &sev));
  g_assert_cmpint (sev, ==, CP_SEVERITY_HIGH);
}

static void
test_evidence_cap (void)
{
  g_autoptr(CpFinding) f = cp_finding_new ("input-bound", "Input-bound", CP_SEVERITY_HIGH);
  const CpEvidence *ev;
  guint n;

  /* Lengths 0..1999 in a scrambled order: the 500 longest stay, by start. */
  for (guint i = 0; i < 2000; i++)
    {
      guint k = (i * 7919) % 2000;

      cp_finding_add_evidence (f, k % 3, 10000 * (gint64) k, 10000 * (gint64) k + k);
    }
  cp_finding_add_evidence (f, 0, 10, 5);  /* reversed: ignored */
  ev = cp_finding_get_evidence (f, &n);
  g_assert_cmpuint (n, ==, CP_FINDING_MAX_EVIDENCE);
  g_assert_cmpuint (cp_finding_get_evidence_total (f), ==, 2000);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpint (ev[i].end - ev[i].start, >=, 2000 - CP_FINDING_MAX_EVIDENCE);
      if (i > 0)
        g_assert_cmpint (ev[i].start, >, ev[i - 1].start);
    }
}

/* Evidence per step: one range per window and lane (the hull of what was
 * found, with its count), one per gap between windows. */
static void
test_evidence_per_step (void)
{
  static const CpInterval windows[] = { { 0, 100 }, { 100, 200 }, { 300, 400 } };
  g_autoptr(CpFinding) f = cp_finding_new ("input-bound", "Input-bound", CP_SEVERITY_HIGH);
  const CpEvidence *ev;
  guint n;

  cp_finding_set_evidence_windows (f, windows, G_N_ELEMENTS (windows));
  cp_finding_add_evidence (f, 1, 30, 40);
  cp_finding_add_evidence (f, 1, 10, 20);
  cp_finding_add_evidence (f, 1, 60, 130);   /* starts in the first step: stays there */
  cp_finding_add_evidence (f, 2, 50, 60);
  cp_finding_add_evidence (f, 1, 150, 160);
  cp_finding_add_evidence (f, 1, 250, 260);  /* between steps */
  cp_finding_add_evidence (f, 1, 270, 280);
  cp_finding_add_evidence (f, 1, 399, 400);
  cp_finding_add_evidence (f, 1, 500, 510);  /* after the last */

  ev = cp_finding_get_evidence (f, &n);
  g_assert_cmpuint (cp_finding_get_evidence_found (f), ==, 9);
  g_assert_cmpuint (cp_finding_get_evidence_total (f), ==, 6);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpuint (ev[0].lane, ==, 1);
  g_assert_cmpint (ev[0].start, ==, 10);
  g_assert_cmpint (ev[0].end, ==, 130);
  g_assert_cmpuint (ev[0].count, ==, 3);
  g_assert_cmpuint (ev[1].lane, ==, 2);
  g_assert_cmpint (ev[1].start, ==, 50);
  g_assert_cmpuint (ev[1].count, ==, 1);
  g_assert_cmpint (ev[2].start, ==, 150);
  g_assert_cmpint (ev[3].start, ==, 250);
  g_assert_cmpint (ev[3].end, ==, 280);
  g_assert_cmpuint (ev[3].count, ==, 2);
  g_assert_cmpint (ev[4].start, ==, 399);
  g_assert_cmpuint (ev[4].count, ==, 1);
  g_assert_cmpint (ev[5].start, ==, 500);
}

static void
test_format_duration (void)
{
  struct { gint64 ns; const char *text; } cases[] = {
    { 0, "0 ns" }, { 999, "999 ns" }, { 1000, "1.00 µs" }, { 12345, "12.3 µs" },
    { 41 * CP_NS_PER_MS, "41.0 ms" }, { 1250 * CP_NS_PER_MS, "1.25 s" }, { 123456789, "123 ms" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *s = cp_format_ns (cases[i].ns);

      g_assert_cmpstr (s, ==, cases[i].text);
    }
}

/* A Kineto capture written out and read back, as a user's file is. */
static CpTrace *
load_json_text (const char *text)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = cp_test_write_file (dir, "t.pt.trace.json", text, -1);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  CpTrace *trace = cp_load_file (file, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  cp_test_rm_rf (dir);
  return trace;
}

/* The name of the host slice the launch flow into the device slice called
 * `op` starts at, or NULL. */
static const char *
launch_of (CpTrace    *trace,
           const char *op)
{
  const CpFlow *flows;
  guint n;

  flows = cp_trace_get_flows (trace, &n);
  for (guint i = 0; i < n; i++)
    {
      CpLane *to = cp_trace_get_lane (trace, flows[i].to.lane);
      CpLane *from = cp_trace_get_lane (trace, flows[i].from.lane);

      if (flows[i].kind == CP_FLOW_LAUNCH &&
          g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_name (cp_lane_get_slices (to), flows[i].to.index)), op) == 0 &&
          cp_lane_get_kind (from) == CP_LANE_HOST_THREAD)
        return cp_trace_get_string (trace, cp_slices_get_name (cp_lane_get_slices (from), flows[i].from.index));
    }
  return NULL;
}

/* Every kernel of a graph launch is linked to the launch (Kineto: one flow
 * start, an end per kernel, all with the launch's correlation id); and in a
 * whole-µs capture the correlation id, not the timestamp, picks the call: the
 * memset's flow starts in the µs where a zero-length cudaPeekAtLastError
 * also starts. Known truth: 3 graph kernels and 1 memset launched; all four
 * are short (launch ≤ 50 µs, device time below the launch's). */
static void
test_launch_links_by_correlation (void)
{
  static const char json[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"pid\": 100, \"tid\": 100,"
    " \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 50}},\n"
    "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 50, \"pid\": 100, \"tid\": 100, \"ts\": 10},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"graph_k1\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 2,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 50, \"graph id\": 3}},\n"
    "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 50, \"pid\": 0, \"tid\": 7, \"ts\": 20, \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"graph_k2\", \"pid\": 0, \"tid\": 7, \"ts\": 23, \"dur\": 2,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 50, \"graph id\": 3}},\n"
    "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 50, \"pid\": 0, \"tid\": 7, \"ts\": 23, \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"graph_k3\", \"pid\": 0, \"tid\": 7, \"ts\": 26, \"dur\": 2,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 50, \"graph id\": 3}},\n"
    "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 50, \"pid\": 0, \"tid\": 7, \"ts\": 26, \"bp\": \"e\"},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemsetAsync\", \"pid\": 100, \"tid\": 100,"
    " \"ts\": 40, \"dur\": 3, \"args\": {\"correlation\": 61}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaPeekAtLastError\", \"pid\": 100, \"tid\": 100,"
    " \"ts\": 40, \"dur\": 0, \"args\": {\"correlation\": 60}},\n"
    "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 61, \"pid\": 100, \"tid\": 100, \"ts\": 40},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7, \"ts\": 50, \"dur\": 1,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 61, \"bytes\": 64}},\n"
    "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 61, \"pid\": 0, \"tid\": 7, \"ts\": 50, \"bp\": \"e\"}\n"
    "]}\n";
  g_autoptr(CpTrace) trace = load_json_text (json);
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpDeviceStats *d;
  guint n;

  g_assert_cmpstr (launch_of (trace, "graph_k1"), ==, "cudaGraphLaunch");
  g_assert_cmpstr (launch_of (trace, "graph_k2"), ==, "cudaGraphLaunch");
  g_assert_cmpstr (launch_of (trace, "graph_k3"), ==, "cudaGraphLaunch");
  g_assert_cmpstr (launch_of (trace, "Memset (Device)"), ==, "cudaMemsetAsync");

  d = cp_analysis_get_devices (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (d->n_launched, ==, 4);
  g_assert_cmpuint (d->n_short, ==, 4);
  g_assert_cmpint (d->short_time, ==, 3 * 2000 + 1000);
}

/* An MTIA capture: the device's events (mtia_ccp_events, on the device's
 * pid) are kernels, DMA copies and event syncs, launched from mtia_runtime
 * calls by correlation id. Known truth: one kernel and one 4 KiB
 * host-to-device copy launched, one event record that is a sync. */
static void
test_mtia_launches (void)
{
  static const char json[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 9, \"tid\": 0, \"args\": {\"name\": \"MTIA 9\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"enqueueCommand memcpyHtoDAsync\", \"pid\": 500, \"tid\": 500,"
    " \"ts\": 10, \"dur\": 4, \"args\": {\"correlation\": 1, \"device\": 9}},\n"
    "{\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"runFunction - job_prep_and_submit_for_execution\","
    " \"pid\": 500, \"tid\": 500, \"ts\": 20, \"dur\": 30, \"args\": {\"correlation\": 2}},\n"
    "{\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"recordEvent\", \"pid\": 500, \"tid\": 500,"
    " \"ts\": 60, \"dur\": 2, \"args\": {\"correlation\": 3, \"device\": 9}},\n"
    "{\"ph\": \"X\", \"cat\": \"mtia_ccp_events\", \"name\": \"dma_request\", \"pid\": 9, \"tid\": 801, \"ts\": 18, \"dur\": 5,"
    " \"args\": {\"direction\": \"HOST_TO_DEVICE\", \"size\": 4096, \"correlation\": 1, \"sqid\": 1}},\n"
    "{\"ph\": \"X\", \"cat\": \"mtia_ccp_events\", \"name\": \"add-dtype_Float\", \"pid\": 9, \"tid\": 4, \"ts\": 55, \"dur\": 100,"
    " \"args\": {\"correlation\": 2, \"stream\": 102}},\n"
    "{\"ph\": \"X\", \"cat\": \"mtia_ccp_events\", \"name\": \"event_record\", \"pid\": 9, \"tid\": 4, \"ts\": 160, \"dur\": 1,"
    " \"args\": {\"correlation\": 3, \"stream\": 102}}\n"
    "]}\n";
  g_autoptr(CpTrace) trace = load_json_text (json);
  g_autoptr(CpAnalysis) a = analyse (trace);
  const CpDeviceStats *d;
  const CpTransferStats *t;
  guint n;

  g_assert_cmpuint (cp_trace_count_slices (trace, CP_LANE_KERNEL), ==, 1);
  g_assert_cmpuint (cp_trace_count_slices (trace, CP_LANE_TRANSFER), ==, 1);
  g_assert_cmpuint (cp_trace_count_device_syncs (trace), ==, 1);
  g_assert_cmpstr (launch_of (trace, "add-dtype_Float"), ==, "runFunction - job_prep_and_submit_for_execution");
  g_assert_cmpstr (launch_of (trace, "dma_request"), ==, "enqueueCommand memcpyHtoDAsync");

  d = cp_analysis_get_devices (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (d->device, ==, 9);
  g_assert_cmpuint (d->n_kernels, ==, 1);
  g_assert_cmpint (d->kernel_time, ==, 100000);
  g_assert_cmpuint (d->n_launched, ==, 2);
  /* Launch delays, from the end of the call: the copy 4 µs, the kernel 5 µs. */
  g_assert_cmpint (d->launch_delay_total, ==, 4000 + 5000);
  t = cp_analysis_get_transfers (a, &n);
  g_assert_cmpuint (t[CP_TRANSFER_HTOD].count, ==, 1);
  g_assert_cmpint (t[CP_TRANSFER_HTOD].bytes, ==, 4096);

  /* Its process is "MTIA 9": an MTIA, so named for people; the rules
   * take it for a GPU. */
  g_assert_cmpint (cp_trace_get_device_kind (trace, 9), ==, CP_DEVICE_KIND_MTIA);
  g_assert_cmpstr (cp_analysis_get_device_word (a), ==, "MTIA");
  g_assert_cmpstr (cp_analysis_get_verdict (a)->device_word, ==, "MTIA");
  g_assert_cmpstr (cp_analysis_get_section_title (a, CP_FINDING_SECTION_IDLE), ==, "Why the MTIA Waits");
  g_assert_cmpint (cp_analysis_get_rule_device_kind (a), ==, CP_DEVICE_KIND_GPU);
  {
    g_autofree char *out = cp_analysis_to_json (a, FALSE);

    g_assert_nonnull (strstr (out, "\"kind\":\"mtia\""));
  }
}

/* Without step markers, iterations come from the training loop itself. Known
 * truth: DataLoader calls at 0, 100 and 200 µs (each 40 µs), an optimizer
 * step ending each iteration, work until 290 µs: iterations [0, 100),
 * [100, 200), [200, 290), with the loader 40% of the first two. Optimizer
 * steps alone (a second capture): iterations between their ends. */
static void
test_iterations_without_markers (void)
{
  {
    CpTraceBuilder *b = cp_test_trace_new ();
    guint h = cp_test_trace_host_lane (b, 1);
    g_autoptr(CpTrace) trace = NULL;
    g_autoptr(CpAnalysis) a = NULL;
    const CpStepStats *st;
    guint n;

    for (guint i = 0; i < 3; i++)
      {
        cp_test_trace_slice (b, h, i * 100, 40, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
        cp_test_trace_slice (b, h, i * 100 + 40, 40, "aten::conv2d");
        cp_test_trace_slice (b, h, i * 100 + 80, i == 2 ? 10 : 15, "Optimizer.step#SGD.step");
      }
    trace = cp_test_trace_finish (b);
    a = analyse (trace);
    g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_LOADER);
    g_assert_cmpstr (cp_step_source_to_string (CP_STEPS_LOADER), ==, "dataloader-iterations");
    st = cp_analysis_get_steps (a, &n);
    g_assert_cmpuint (n, ==, 3);
    g_assert_cmpint (st[0].start, ==, 0);
    g_assert_cmpint (st[0].end, ==, 100);
    g_assert_cmpint (st[1].start, ==, 100);
    g_assert_cmpint (st[1].end, ==, 200);
    g_assert_cmpint (st[2].start, ==, 200);
    g_assert_cmpint (st[2].end, ==, 290);
    g_assert_cmpint (st[0].time[CP_TIME_INPUT_WAIT], ==, 40);
    g_assert_cmpint (st[1].time[CP_TIME_INPUT_WAIT], ==, 40);
  }
  {
    CpTraceBuilder *b = cp_test_trace_new ();
    guint h = cp_test_trace_host_lane (b, 1);
    g_autoptr(CpTrace) trace = NULL;
    g_autoptr(CpAnalysis) a = NULL;
    const CpStepStats *st;
    guint n;

    for (guint i = 0; i < 3; i++)
      {
        cp_test_trace_slice (b, h, i * 100, 70, "aten::linear");
        cp_test_trace_slice (b, h, i * 100 + 70, 20, "Optimizer.step#Adam.step");
      }
    trace = cp_test_trace_finish (b);
    a = analyse (trace);
    g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_OPTIMIZER);
    st = cp_analysis_get_steps (a, &n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpint (st[0].start, ==, 90);
    g_assert_cmpint (st[0].end, ==, 190);
    g_assert_cmpint (st[1].start, ==, 190);
    g_assert_cmpint (st[1].end, ==, 290);
  }
}

/* The real num_workers=0 ResNet-50 capture with its ProfilerStep markers
 * taken out (by Python, as a capture recorded without a schedule has none):
 * the iterations start at the DataLoader calls, which Python lists from the
 * raw events, and the data-loading share stays that of the ProfilerStep
 * windows (within 0.5 points), not that of the whole capture. */
static void
test_iterations_real_capture (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *src = NULL, *dir = NULL, *out_path = NULL, *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) starts = NULL;
  int status = 0;
  static const char script[] =
    "import gzip, json, sys, decimal\n"
    "doc = json.load(gzip.open(sys.argv[1]), parse_float=decimal.Decimal)\n"
    "ev = doc['traceEvents'] if isinstance(doc, dict) else doc\n"
    "keep = [e for e in ev if not str(e.get('name', '')).startswith('ProfilerStep#')]\n"
    "if isinstance(doc, dict):\n"
    "    doc['traceEvents'] = keep\n"
    "else:\n"
    "    doc = keep\n"
    "json.dump(doc, open(sys.argv[2], 'w'), default=str)\n"
    "dl = sorted(int(e['ts'] * 1000) for e in ev if e.get('ph') == 'X' and\n"
    "            str(e.get('name', '')).startswith('enumerate(DataLoader)#'))\n"
    "print(' '.join(str(t - dl[0]) for t in dl))\n";

  if (shared == NULL || python == NULL)
    {
      g_test_skip ("../shared/traces or python3 is missing");
      return;
    }
  src = g_build_filename (shared, "pytorch__kineto", "tb_plugin", "samples", "resnet50_num_workers_0",
                          "worker0.1623143089861.pt.trace.json.gz", NULL);
  if (!g_file_test (src, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the ResNet-50 num_workers=0 capture is missing");
      return;
    }
  dir = cp_test_make_tmpdir ();
  out_path = g_build_filename (dir, "nosteps.pt.trace.json", NULL);
  {
    const char *argv[] = { python, "-c", script, src, out_path, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &out, &err, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  starts = g_strsplit (g_strstrip (out), " ", -1);
  {
    g_autoptr(GFile) with_file = g_file_new_for_path (src);
    g_autoptr(GFile) without_file = g_file_new_for_path (out_path);
    g_autoptr(CpTrace) with = cp_load_file (with_file, NULL, NULL, NULL, &error);
    g_autoptr(CpTrace) without = NULL;
    g_autoptr(CpAnalysis) a_with = NULL;
    g_autoptr(CpAnalysis) a_without = NULL;
    const CpStepStats *st;
    CpTimeSummary in_with, in_without;
    guint n;

    g_assert_no_error (error);
    without = cp_load_file (without_file, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    a_with = analyse (with);
    a_without = analyse (without);
    g_assert_cmpint (cp_analysis_get_step_source (a_with), ==, CP_STEPS_PROFILER);
    g_assert_cmpint (cp_analysis_get_step_source (a_without), ==, CP_STEPS_LOADER);
    st = cp_analysis_get_steps (a_without, &n);
    g_assert_cmpuint (n, >=, 5);
    g_assert_cmpuint (n, <=, g_strv_length (starts));
    for (guint i = 0; i < n; i++)
      g_assert_cmpint (st[i].host_start - st[0].host_start, ==, g_ascii_strtoll (starts[i], NULL, 10));
    cp_analysis_get_time_summary (a_with, CP_TIME_INPUT_WAIT, &in_with);
    cp_analysis_get_time_summary (a_without, CP_TIME_INPUT_WAIT, &in_without);
    g_assert_cmpfloat (in_with.percent, >, 20.0);
    g_assert_cmpfloat (fabs (in_without.percent - in_with.percent), <, 0.5);
  }
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/breakdown-no-steps", test_breakdown_no_steps);
  g_test_add_func ("/analysis/device-metrics", test_device_metrics);
  g_test_add_func ("/analysis/launch-links-by-correlation", test_launch_links_by_correlation);
  g_test_add_func ("/analysis/mtia-launches", test_mtia_launches);
  g_test_add_func ("/analysis/iterations-without-markers", test_iterations_without_markers);
  g_test_add_func ("/analysis/iterations-real-capture", test_iterations_real_capture);
  g_test_add_func ("/analysis/kernel-stats", test_kernel_stats);
  g_test_add_func ("/analysis/findings-demotion", test_findings_demotion);
  g_test_add_func ("/analysis/steps-cut-slices", test_steps_cut_slices);
  g_test_add_func ("/analysis/input-bound", test_input_bound);
  g_test_add_func ("/analysis/transfers-sync", test_transfers_sync);
  g_test_add_func ("/analysis/comm", test_comm);
  g_test_add_func ("/analysis/precision", test_precision);
  g_test_add_func ("/analysis/host-op-nesting", test_host_op_nesting);
  g_test_add_func ("/analysis/launch-flows", test_launch_flows);
  g_test_add_func ("/analysis/sm-efficiency", test_sm_efficiency);
  g_test_add_func ("/analysis/kernel-shape-varies", test_kernel_shape_varies);
  g_test_add_func ("/analysis/memory-dp-gaps", test_memory_dp_gaps);
  g_test_add_func ("/analysis/healthy", test_healthy);
  g_test_add_func ("/analysis/host-only", test_host_only);
  g_test_add_func ("/analysis/empty-steps", test_empty_steps);
  g_test_add_func ("/analysis/launches-without-kernels", test_launches_without_kernels);
  g_test_add_func ("/analysis/cancel", test_cancel);
  g_test_add_func ("/analysis/async", test_async);
  g_test_add_func ("/analysis/json", test_json);
  g_test_add_func ("/analysis/placeholder-occupancy", test_placeholder_occupancy);
  g_test_add_func ("/analysis/device-counters", test_device_counters);
  g_test_add_func ("/analysis/device-counters-generated", test_device_counters_generated);
  g_test_add_func ("/analysis/placeholder-occupancy-real", test_placeholder_occupancy_real);
  g_test_add_func ("/analysis/rule-table", test_rule_table);
  g_test_add_func ("/analysis/evidence-cap", test_evidence_cap);
  g_test_add_func ("/analysis/evidence-per-step", test_evidence_per_step);
  g_test_add_func ("/analysis/format-duration", test_format_duration);

  return g_test_run ();
}
