/* test-xplane.c: the XPlane reader (mapping, time base, flows, steps, damage)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <zstd.h>

#include <json-glib/json-glib.h>

#include "formats/cp-loader.h"
#include "formats/cp-protobuf.h"
#include "formats/cp-xplane-reader.h"
#include "cp-test-pbwriter.h"
#include "cp-test-util.h"
#include "cp-test-xspace.h"

#define START G_GINT64_CONSTANT (1700000000000000000)
/* XProf gives the lines it derives on GPUs ids from 0xdeadbeef on. */
#define DERIVED_LINE_ID_FOR_TEST G_GINT64_CONSTANT (0xdeadbef0)

static CpTrace *
load (GByteArray  *space,
      GError     **error)
{
  CpTraceBuilder *b = cp_trace_builder_new ();
  g_autoptr(CpXPlaneReader) r = cp_xplane_reader_new (b);

  CpXPlaneInput input = { 0 };

  input.data = space->data;
  input.len = space->len;
  input.host_hint = "testhost";
  input.progress_total = space->len;
  if (!cp_xplane_reader_add_space (r, &input, NULL, error))
    {
      cp_trace_builder_free (b);
      return NULL;
    }
  cp_xplane_reader_finish (r);
  return cp_trace_builder_finish (b, error);
}

static CpLane *
find_lane (CpTrace    *trace,
           const char *name,
           CpLaneKind  kind)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *l = cp_trace_get_lane (trace, i);

      if (cp_lane_get_kind (l) == kind && g_strcmp0 (cp_lane_get_name (l), name) == 0)
        return l;
    }
  return NULL;
}

static CpLane *
find_transfer (CpTrace        *trace,
               gint            device,
               CpTransferKind  kind)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *l = cp_trace_get_lane (trace, i);

      if (cp_lane_get_kind (l) == CP_LANE_TRANSFER && cp_lane_get_device (l) == device &&
          cp_lane_get_transfer_kind (l) == kind)
        return l;
    }
  return NULL;
}

/* The kernel lane of a device's stream, or NULL. */
static CpLane *
find_kernel_lane (CpTrace *trace,
                  gint     device,
                  gint64   stream)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *l = cp_trace_get_lane (trace, i);

      if (cp_lane_get_kind (l) == CP_LANE_KERNEL && cp_lane_get_device (l) == device &&
          cp_lane_get_stream (l) == stream)
        return l;
    }
  return NULL;
}

static gint
find_slice (CpTrace    *trace,
            CpLane     *lane,
            const char *name)
{
  const CpSlices *s = cp_lane_get_slices (lane);

  for (guint i = 0; i < s->n; i++)
    if (g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name) == 0)
      return (gint) i;
  return -1;
}

static const char *
stat_value (GPtrArray  *stats,
            const char *key)
{
  for (guint i = 0; i < stats->len; i++)
    {
      CpXStatEntry *e = g_ptr_array_index (stats, i);

      if (g_str_equal (e->key, key))
        return e->value;
    }
  return NULL;
}

static GPtrArray *
slice_stats (CpTrace *trace,
             CpLane  *lane,
             gint     index)
{
  CpArgsFormat fmt;
  const guint8 *data;
  gsize len;
  g_autoptr(GError) error = NULL;
  GPtrArray *stats;

  g_assert_cmpint (index, >=, 0);
  g_assert_true (cp_trace_get_args (trace, (CpSliceRef) { cp_lane_get_index (lane), index },
                                    &fmt, &data, &len));
  g_assert_cmpint (fmt, ==, CP_ARGS_XSTATS);
  stats = cp_xstats_decode_slice (trace, (CpSliceRef) { cp_lane_get_index (lane), index }, &error);
  g_assert_no_error (error);
  return stats;
}

static gboolean
has_flow (CpTrace    *trace,
          CpSliceRef  from,
          CpSliceRef  to,
          CpFlowKind  kind)
{
  guint n;
  const CpFlow *flows = cp_trace_get_flows (trace, &n);

  for (guint i = 0; i < n; i++)
    if (flows[i].from.lane == from.lane && flows[i].from.index == from.index &&
        flows[i].to.lane == to.lane && flows[i].to.index == to.index && flows[i].kind == kind)
      return TRUE;
  return FALSE;
}

/* A stream's kernels share device records by kernel_details reference and
 * their own flops, bytes accessed and occupancy; records reused from the
 * line's recent ones must be the ones each event describes. */
#define KD_A "regs:32 static_shared:0 dynamic_shared:0 grid:11,1,1 block:64,1,1 occ_pct:10"
#define KD_B "regs:40 static_shared:0 dynamic_shared:0 grid:22,1,1 block:64,1,1 occ_pct:20"
#define KD_C "regs:48 static_shared:0 dynamic_shared:0 grid:33,1,1 block:64,1,1 occ_pct:30"

static void
test_kernel_records (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *gpu = xp_plane_new (0, "/device:GPU:0");
  /* grid x, flops, bytes accessed (-1: none) and occupancy (NAN: from the
   * details) of each kernel, in order. */
  static const struct { gint grid; gint64 flops; gint64 bytes; double occ; } want[] = {
    { 11, -1, -1, 10 }, { 22, -1, -1, 20 }, { 11, 100, -1, 10 }, { 11, -1, -1, 10 },
    { 11, 100, -1, 10 }, { 11, 200, -1, 10 }, { 33, -1, -1, 30 }, { 11, 100, 7, 10 },
    { 22, -1, -1, 20 }, { -1, 100, -1, 55 }, { -1, -1, -1, -1 }, { -1, 100, -1, 66 },
    { 11, 200, -1, 10 }, { 33, -1, -1, 30 }, { 11, 0, -1, 10 },
  };
  CpLane *stream;
  const CpSlices *s;

  xp_plane_stat (gpu, xp_stat_int (gpu, "core_count", 10));
  xp_line (gpu, 7, 0, "Stream #7", NULL, 10,
           xp_event (gpu, "k", 1000, 10, xp_stat_ref (gpu, "kernel_details", KD_A), NULL),
           xp_event (gpu, "k", 2000, 10, xp_stat_ref (gpu, "kernel_details", KD_B), NULL),
           xp_event (gpu, "k", 3000, 10, xp_stat_ref (gpu, "kernel_details", KD_A),
                     xp_stat_int (gpu, "flops", 100), NULL),
           xp_event (gpu, "k", 4000, 10, xp_stat_ref (gpu, "kernel_details", KD_A), NULL),
           xp_event (gpu, "k", 5000, 10, xp_stat_ref (gpu, "kernel_details", KD_A),
                     xp_stat_int (gpu, "flops", 100), NULL),
           xp_event (gpu, "k", 6000, 10, xp_stat_ref (gpu, "kernel_details", KD_A),
                     xp_stat_int (gpu, "flops", 200), NULL),
           /* Inline details: no reference to key on. */
           xp_event (gpu, "k", 7000, 10, xp_stat_str (gpu, "kernel_details", KD_C), NULL),
           xp_event (gpu, "k", 8000, 10, xp_stat_ref (gpu, "kernel_details", KD_A),
                     xp_stat_int (gpu, "flops", 100), xp_stat_uint (gpu, "bytes_accessed", 7), NULL),
           xp_event (gpu, "k", 9000, 10, xp_stat_ref (gpu, "kernel_details", KD_B), NULL),
           xp_event (gpu, "k", 10000, 10, xp_stat_int (gpu, "flops", 100),
                     xp_stat_double (gpu, "theoretical_occupancy_pct", 55), NULL),
           xp_event (gpu, "k", 11000, 10, NULL),
           xp_event (gpu, "k", 12000, 10, xp_stat_int (gpu, "flops", 100),
                     xp_stat_double (gpu, "theoretical_occupancy_pct", 66), NULL),
           xp_event (gpu, "k", 13000, 10, xp_stat_ref (gpu, "kernel_details", KD_A),
                     xp_stat_int (gpu, "flops", 200), NULL),
           xp_event (gpu, "k", 14000, 10, xp_stat_str (gpu, "kernel_details", KD_C), NULL),
           /* flops 0 is not the same as no flops. */
           xp_event (gpu, "k", 15000, 10, xp_stat_ref (gpu, "kernel_details", KD_A),
                     xp_stat_int (gpu, "flops", 0), NULL),
           NULL);
  xp_space_add_plane (space, gpu);
  trace = load (space, &error);
  g_assert_no_error (error);
  stream = find_kernel_lane (trace, 0, 7);
  g_assert_nonnull (stream);
  s = cp_lane_get_slices (stream);
  g_assert_cmpuint (s->n, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < s->n; i++)
    {
      const CpGpuInfo *gi = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (stream), i });

      g_assert_nonnull (gi);
      g_assert_cmpint (gi->device, ==, 0);
      g_assert_cmpint (gi->stream, ==, 7);
      g_assert_cmpint (gi->grid[0], ==, want[i].grid);
      g_assert_cmpint (gi->flops, ==, want[i].flops);
      g_assert_cmpint (gi->bytes_accessed, ==, want[i].bytes);
      if (want[i].occ < 0)
        g_assert_true (isnan (gi->occupancy));
      else
        g_assert_cmpfloat_with_epsilon (gi->occupancy, want[i].occ, 1e-4);
      if (want[i].grid > 0)
        g_assert_cmpfloat_with_epsilon (gi->blocks_per_sm, want[i].grid / 10.0, 1e-4);
    }
  /* Equal kernels share one record. */
  g_assert_cmpuint (cp_slices_get_gpu (s, 0), ==, cp_slices_get_gpu (s, 3));
  g_assert_cmpuint (cp_slices_get_gpu (s, 2), ==, cp_slices_get_gpu (s, 4));
  g_assert_cmpuint (cp_slices_get_gpu (s, 1), ==, cp_slices_get_gpu (s, 8));
  g_assert_cmpuint (cp_slices_get_gpu (s, 5), ==, cp_slices_get_gpu (s, 12));
  g_assert_cmpuint (cp_slices_get_gpu (s, 6), ==, cp_slices_get_gpu (s, 13));
  g_assert_cmpuint (cp_slices_get_gpu (s, 2), !=, cp_slices_get_gpu (s, 5));
  g_assert_cmpuint (cp_slices_get_gpu (s, 9), !=, cp_slices_get_gpu (s, 11));
}

/* A GPU capture with every kind of line and event the mapping knows. */
static GByteArray *
make_gpu_space (void)
{
  GByteArray *space = g_byte_array_new ();
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  XpPlane *gpu = xp_plane_new (0, "/device:GPU:0");
  XpPlane *meta = xp_plane_new (0, "/host:metadata");

  /* Host: a launch (tid 100), a thread shown under another row (display_id),
   * an aggregated event, a step root, a producer. */
  xp_event_meta (host, "TrainStep", "train",
                 xp_stat_str (host, "framework", "jax"), NULL);
  xp_line (host, 100, 0, "python", NULL, 5,
           xp_event (host, "TrainStep", 0, 9000000,
                     xp_stat_int (host, "_r", 1), xp_stat_int (host, "step_num", 42),
                     xp_stat_int (host, "_pt", 3), xp_stat_uint (host, "_p", 77), NULL),
           xp_event (host, "cudaLaunchKernel", 1500, 2000000,
                     xp_stat_uint (host, "correlation_id", 11), xp_stat_int (host, "device_id", 0),
                     NULL),
           xp_event (host, "cudaMemcpyAsync", 3000000, 1000000,
                     xp_stat_uint (host, "correlation_id", 12), xp_stat_int (host, "device_id", 0),
                     NULL),
           xp_event_aggregated (host, "Summary", 40, 123456),
           NULL);
  xp_line (host, 200, 100, "Host Threads/200", "python helper", 5,
           xp_event (host, "consumer", 9000000, 1000,
                     xp_stat_int (host, "_ct", 3), xp_stat_uint (host, "_c", 77), NULL),
           NULL);
  xp_line (host, 300, 0, "Host Threads/300", NULL, 5, NULL);

  /* GPU 0: caps, a stream with a kernel, a memcpy, a memset and a ROCm-style
   * copy; a derived XLA Ops line; a counter line. */
  xp_plane_stat (gpu, xp_stat_str (gpu, "gpu_device_name", "NVIDIA Test GPU"));
  xp_plane_stat (gpu, xp_stat_str (gpu, "device_vendor", "Nvidia"));
  xp_plane_stat (gpu, xp_stat_int (gpu, "core_count", 80));
  xp_plane_stat (gpu, xp_stat_uint (gpu, "memory_size", G_GUINT64_CONSTANT (17179869184)));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_major", 8));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_minor", 6));
  xp_plane_stat (gpu, xp_stat_double (gpu, "peak_teraflops_per_second", 35.5));
  xp_plane_stat (gpu, xp_stat_uint (gpu, "memory_bandwidth", G_GUINT64_CONSTANT (900000000000)));
  xp_event_meta (gpu, "volta_sgemm_128x64_nn", NULL,
                 xp_stat_str (gpu, "hlo_category", "convolution"),
                 xp_stat_int (gpu, "flops", 1000), NULL);
  xp_line (gpu, 7, 0, "Stream #7(Compute,MemcpyH2D,Memset)", NULL, 10,
           xp_event (gpu, "volta_sgemm_128x64_nn", 4000000, 3000000,
                     xp_stat_uint (gpu, "correlation_id", 11),
                     xp_stat_int (gpu, "group_id", 5),
                     xp_stat_ref (gpu, "kernel_details",
                                  "regs:64 static_shared:1024 dynamic_shared:2048 grid:160,2,1 "
                                  "block:128,1,1 occ_pct:50.5"),
                     xp_stat_int (gpu, "flops", 4096),
                     xp_stat_uint (gpu, "bytes_accessed", 8192),
                     xp_stat_bytes (gpu, "blob", 3),
                     NULL),
           xp_event (gpu, "MemcpyH2D", 8000000, 500000,
                     xp_stat_uint (gpu, "correlation_id", 12),
                     xp_stat_ref (gpu, "memcpy_details",
                                  "kind_src:pageable kind_dst:device size:4096 dest:0 async:0"),
                     NULL),
           xp_event (gpu, "Memset", 9000000, 1000,
                     xp_stat_ref (gpu, "Memset_details", "kind:device num_bytes:64"), NULL),
           xp_event (gpu, "CopyDeviceToDevice", 9500000, 1000,
                     xp_stat_ref (gpu, "memcpy_details", "kind:Unknown size:128 dest:2 async:1"),
                     NULL),
           xp_event (gpu, "MemcpyD2H", 9600000, 1000, NULL),
           NULL);
  xp_line (gpu, DERIVED_LINE_ID_FOR_TEST, 0, "XLA Ops - from #7", NULL, 10,
           xp_event (gpu, "fusion.1", 4000000, 3000000, NULL), NULL);
  xp_line (gpu, G_MAXINT64, 0, "_counters_", NULL, 0,
           xp_event (gpu, "power_mw", 1000000, 0, xp_stat_double (gpu, "power_mw", 250.5), NULL),
           xp_event (gpu, "power_mw", 2000000, 0, xp_stat_double (gpu, "power_mw", 260.0), NULL),
           NULL);

  xp_plane_stat (meta, xp_stat_str (meta, "build", "test"));

  xp_space_add_plane (space, host);
  xp_space_add_plane (space, gpu);
  xp_space_add_plane (space, xp_plane_new (1, "/device:GPU:1"));
  xp_space_add_plane (space, meta);
  xp_space_add_task_env (space, START);
  xp_space_add_hostname (space, "node7");
  return space;
}

static void
test_gpu_mapping (void)
{
  g_autoptr(GByteArray) space = make_gpu_space ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = load (space, &error);
  const CpLoadReport *report;
  CpLane *main_lane, *stream, *ops, *htod, *memset, *dtod, *dtoh, *power;
  const CpSlices *s;
  const CpGpuInfo *gi;
  const CpDevice *dev;
  const CpProcess *proc;
  gint k, launch;

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  report = cp_trace_get_load_report (trace);

  /* Lanes: one host row (tid 200 has display_id 100, so it shares tid 100's
   * row; the thread without events makes no lane), kernel stream 7, four
   * transfer directions, one annotation line, one counter. */
  main_lane = find_lane (trace, "python", CP_LANE_HOST_THREAD);
  g_assert_nonnull (main_lane);
  g_assert_cmpuint (cp_lane_get_n_slices (main_lane), ==, 4);
  g_assert_cmpint (cp_lane_get_tid (main_lane), ==, 100);
  g_assert_null (find_lane (trace, "python helper", CP_LANE_HOST_THREAD));
  g_assert_null (find_lane (trace, "Host Threads/300", CP_LANE_HOST_THREAD));

  stream = find_lane (trace, "Stream #7(Compute,MemcpyH2D,Memset)", CP_LANE_KERNEL);
  g_assert_nonnull (stream);
  g_assert_cmpint (cp_lane_get_device (stream), ==, 0);
  g_assert_cmpint (cp_lane_get_stream (stream), ==, 7);
  g_assert_cmpuint (cp_lane_get_n_slices (stream), ==, 1);
  ops = find_lane (trace, "XLA Ops - from #7", CP_LANE_DEVICE_ANNOTATION);
  g_assert_nonnull (ops);
  htod = find_transfer (trace, 0, CP_TRANSFER_HTOD);
  memset = find_transfer (trace, 0, CP_TRANSFER_MEMSET);
  dtod = find_transfer (trace, 0, CP_TRANSFER_DTOD);
  dtoh = find_transfer (trace, 0, CP_TRANSFER_DTOH);
  g_assert_nonnull (htod);
  g_assert_nonnull (memset);
  g_assert_nonnull (dtod);
  g_assert_nonnull (dtoh);
  power = find_lane (trace, "power_mw", CP_LANE_COUNTER);
  g_assert_nonnull (power);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 8);
  g_assert_cmpuint (cp_trace_count_slices (trace, CP_LANE_KERNEL), ==, 1);
  g_assert_cmpuint (cp_trace_count_slices (trace, CP_LANE_TRANSFER), ==, 4);

  /* Counters. */
  {
    const gint64 *ts;
    const double *v;

    g_assert_cmpuint (cp_lane_get_counter (power, &ts, &v), ==, 2);
    g_assert_cmpfloat (v[0], ==, 250.5);
    g_assert_cmpfloat (v[1], ==, 260.0);
    g_assert_cmpint (ts[1] - ts[0], ==, 1000);
  }

  /* Time: epoch from Task Environment + line base + ps floored to ns. The
   * origin is the earliest timestamp: the host line's first event at
   * START + 5 ns (the counter line's base is 0, its first sample at
   * START + 1000 ns). */
  g_assert_true (cp_trace_get_origin_is_epoch (trace));
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, START + 5);
  s = cp_lane_get_slices (main_lane);
  k = find_slice (trace, main_lane, "train");
  g_assert_cmpint (k, ==, 0);
  g_assert_cmpint (cp_slices_get_start (s, k), ==, 0);
  g_assert_cmpint (cp_slices_get_dur (s, k), ==, 9000);
  launch = find_slice (trace, main_lane, "cudaLaunchKernel");
  /* 1500 ps -> 1 ns; end 2001500 ps -> 2001 ns. */
  g_assert_cmpint (cp_slices_get_start (s, launch), ==, 1);
  g_assert_cmpint (cp_slices_get_dur (s, launch), ==, 2000);
  g_assert_cmpint (cp_slices_get_corr (s, launch), ==, 11);
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_cat (s, launch)), ==, "cuda_runtime");
  /* Equal stats but for correlation_id share one record; the decoded stats
   * still show each slice's own correlation_id. */
  {
    gint copy = find_slice (trace, main_lane, "cudaMemcpyAsync");
    g_autoptr(GPtrArray) a = slice_stats (trace, main_lane, launch);
    g_autoptr(GPtrArray) b = slice_stats (trace, main_lane, copy);

    g_assert_cmpuint (cp_slices_get_args (s, launch), !=, 0);
    g_assert_cmpuint (cp_slices_get_args (s, launch), ==, cp_slices_get_args (s, copy));
    g_assert_cmpstr (stat_value (a, "correlation_id"), ==, "11");
    g_assert_cmpstr (stat_value (b, "correlation_id"), ==, "12");
    g_assert_cmpstr (stat_value (b, "device_id"), ==, "0");
  }
  g_assert_cmpuint (report->aggregated, ==, 1);
  g_assert_cmpuint (report->events, ==, 13);
  g_assert_cmpuint (report->skipped, ==, 0);
  g_assert_false (report->truncated);

  /* Metadata display name, long_name and merged stats. */
  {
    g_autoptr(GPtrArray) stats = slice_stats (trace, main_lane, k);

    g_assert_cmpstr (stat_value (stats, "long_name"), ==, "TrainStep");
    g_assert_cmpstr (stat_value (stats, "framework"), ==, "jax");
    g_assert_cmpstr (stat_value (stats, "step_num"), ==, "42");
    /* Producer ids and the root mark become flows and steps, not stats. */
    g_assert_null (stat_value (stats, "_p"));
    g_assert_null (stat_value (stats, "_pt"));
    g_assert_null (stat_value (stats, "_r"));
    g_assert_cmpstr (((CpXStatEntry *) g_ptr_array_index (stats, 0))->key, ==, "long_name");
  }

  /* The kernel: columns, gpu info, stats (metadata flops overridden by the event's). */
  s = cp_lane_get_slices (stream);
  g_assert_cmpint (cp_slices_get_start (s, 0), ==, 10 + 4000 - 5);
  g_assert_cmpint (cp_slices_get_dur (s, 0), ==, 3000);
  g_assert_cmpint (cp_slices_get_corr (s, 0), ==, 11);
  g_assert_cmpint (cp_slices_get_ext (s, 0), ==, 5);
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_cat (s, 0)), ==, "kernel");
  gi = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (stream), 0 });
  g_assert_nonnull (gi);
  g_assert_cmpint (gi->device, ==, 0);
  g_assert_cmpint (gi->stream, ==, 7);
  g_assert_cmpint (gi->registers, ==, 64);
  g_assert_cmpint (gi->shared_mem, ==, 3072);
  g_assert_cmpint (gi->grid[0], ==, 160);
  g_assert_cmpint (gi->grid[1], ==, 2);
  g_assert_cmpint (gi->grid[2], ==, 1);
  g_assert_cmpint (gi->block[0], ==, 128);
  g_assert_cmpfloat_with_epsilon (gi->occupancy, 50.5, 1e-4);
  g_assert_cmpfloat_with_epsilon (gi->blocks_per_sm, 4.0, 1e-4);
  g_assert_cmpfloat_with_epsilon (gi->warps_per_sm, 16.0, 1e-4);
  g_assert_cmpint (gi->flops, ==, 4096);
  g_assert_cmpint (gi->bytes_accessed, ==, 8192);
  {
    g_autoptr(GPtrArray) stats = slice_stats (trace, stream, 0);

    g_assert_cmpstr (stat_value (stats, "hlo_category"), ==, "convolution");
    g_assert_cmpstr (stat_value (stats, "flops"), ==, "4096");
    g_assert_cmpstr (stat_value (stats, "kernel_details"), ==,
                     "regs:64 static_shared:1024 dynamic_shared:2048 grid:160,2,1 block:128,1,1 "
                     "occ_pct:50.5");
    g_assert_cmpstr (stat_value (stats, "correlation_id"), ==, "11");
    g_assert_cmpstr (stat_value (stats, "group_id"), ==, "5");
    g_assert_nonnull (stat_value (stats, "blob"));
    g_assert_nonnull (strstr (stat_value (stats, "blob"), "3"));
  }

  /* Transfers: direction, bytes, pageable flag. */
  s = cp_lane_get_slices (htod);
  g_assert_cmpuint (s->n, ==, 1);
  g_assert_true (s->flags[0] & CP_SLICE_PAGEABLE);
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_cat (s, 0)), ==, "gpu_memcpy");
  gi = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (htod), 0 });
  g_assert_cmpint (gi->bytes, ==, 4096);
  gi = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (memset), 0 });
  g_assert_cmpint (gi->bytes, ==, 64);
  g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_cat (cp_lane_get_slices (memset), 0)), ==,
                   "gpu_memset");
  gi = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (dtod), 0 });
  g_assert_cmpint (gi->bytes, ==, 128);

  /* Flows: launch -> kernel, memcpy call -> memcpy, producer -> consumer. */
  {
    CpSliceRef from = { cp_lane_get_index (main_lane), launch };
    CpSliceRef to = { cp_lane_get_index (stream), 0 };
    CpSliceRef copy_from = { cp_lane_get_index (main_lane),
                             find_slice (trace, main_lane, "cudaMemcpyAsync") };
    CpSliceRef copy_to = { cp_lane_get_index (htod), 0 };
    CpSliceRef prod = { cp_lane_get_index (main_lane), k };
    CpSliceRef cons = { cp_lane_get_index (main_lane), find_slice (trace, main_lane, "consumer") };
    guint n;

    g_assert_true (has_flow (trace, from, to, CP_FLOW_LAUNCH));
    g_assert_true (has_flow (trace, copy_from, copy_to, CP_FLOW_LAUNCH));
    g_assert_true (has_flow (trace, prod, cons, CP_FLOW_PRODUCER));
    cp_trace_get_flows (trace, &n);
    g_assert_cmpuint (n, ==, 3);
  }

  /* Steps: the _r root with step_num. */
  {
    guint n;
    const CpStep *steps = cp_trace_get_steps (trace, &n);

    g_assert_cmpuint (n, ==, 1);
    g_assert_cmpint (steps[0].number, ==, 42);
    g_assert_cmpint (steps[0].start, ==, 0);
    g_assert_cmpint (steps[0].end, ==, 9000);
    g_assert_cmpstr (cp_trace_slice_name (trace, steps[0].marker), ==, "train");
  }

  /* Devices: both GPUs, caps from plane stats. */
  g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 2);
  dev = cp_trace_find_device (trace, 0);
  g_assert_nonnull (dev);
  g_assert_cmpstr (cp_trace_get_string (trace, dev->name), ==, "NVIDIA Test GPU");
  g_assert_cmpstr (cp_trace_get_string (trace, dev->vendor), ==, "Nvidia");
  g_assert_cmpint (dev->num_sms, ==, 80);
  g_assert_cmpint (dev->total_memory, ==, G_GINT64_CONSTANT (17179869184));
  g_assert_cmpint (dev->compute_major, ==, 8);
  g_assert_cmpint (dev->compute_minor, ==, 6);
  g_assert_cmpint (dev->warp_size, ==, 32);
  g_assert_cmpfloat (dev->peak_tflops, ==, 35.5);
  g_assert_cmpfloat (dev->memory_bandwidth, ==, 9e11);
  g_assert_nonnull (cp_trace_find_device (trace, 1));

  /* Processes: hosts first, named after the host. */
  proc = cp_trace_get_process (trace, cp_lane_get_process (main_lane));
  g_assert_cmpstr (cp_trace_get_string (trace, proc->name), ==, "node7 /host:CPU");
  g_assert_false (proc->is_device);
  proc = cp_trace_get_process (trace, cp_lane_get_process (stream));
  g_assert_true (proc->is_device);
  g_assert_cmpint (proc->device, ==, 0);
  g_assert_cmpuint (cp_lane_get_index (main_lane), <, cp_lane_get_index (stream));

  /* Bookkeeping planes are metadata. */
  g_assert_nonnull (cp_trace_lookup_metadata (trace, "/host:metadata"));
  g_assert_nonnull (strstr (cp_trace_lookup_metadata (trace, "/host:metadata"), "\"build\":\"test\""));
  g_assert_nonnull (strstr (cp_trace_lookup_metadata (trace, "Task Environment"),
                            "1700000000000000000"));
  g_assert_cmpstr (cp_trace_lookup_metadata (trace, "hostnames"), ==, "[\"node7\"]");
}

/* TPU planes: op lines are kernels, the rest annotations; Steps make steps. */
static void
test_tpu_mapping (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *tpu = xp_plane_new (3, "/device:TPU:3");
  CpLane *ops, *modules, *steps_lane, *fw, *chip;
  guint n;
  const CpStep *steps;
  const CpDevice *dev;

  xp_plane_stat (tpu, xp_stat_str (tpu, "device_type_string", "TPU v6 Lite"));
  xp_plane_stat (tpu, xp_stat_double (tpu, "peak_teraflops_per_second", 918.0));
  xp_plane_stat (tpu, xp_stat_double (tpu, "peak_hbm_bw_gigabytes_per_second", 1600.0));
  xp_event_meta (tpu, "%fusion.3 = f32[8] fusion(...)", "fusion.3",
                 xp_stat_int (tpu, "flops", 640), xp_stat_int (tpu, "bytes_accessed", 128), NULL);
  xp_line (tpu, 1, 0, "Steps", NULL, 0,
           xp_event (tpu, "1", 0, 5000000, NULL),
           xp_event (tpu, "2", 5000000, 5000000, xp_stat_int (tpu, "step_num", 7), NULL),
           NULL);
  xp_line (tpu, 2, 0, "XLA Modules", NULL, 0,
           xp_event (tpu, "jit_train(1)", 0, 4000000, NULL), NULL);
  xp_line (tpu, 3, 0, "XLA Ops", NULL, 0,
           xp_event (tpu, "%fusion.3 = f32[8] fusion(...)", 1000000, 2000000,
                     xp_stat_uint (tpu, "device_offset_ps", 999), NULL),
           NULL);
  xp_line (tpu, 4, 0, "TensorFlow Ops", NULL, 0,
           xp_event (tpu, "dense/MatMul", 1000000, 2000000, NULL), NULL);
  xp_space_add_plane (space, tpu);
  tpu = xp_plane_new (0, "#Chip 0 HBM");
  xp_line (tpu, 1, 0, "Bandwidth", NULL, 0, xp_event (tpu, "read", 0, 1000, NULL), NULL);
  xp_space_add_plane (space, tpu);
  xp_space_add_task_env (space, START);

  trace = load (space, &error);
  g_assert_no_error (error);

  ops = find_lane (trace, "XLA Ops", CP_LANE_KERNEL);
  modules = find_lane (trace, "XLA Modules", CP_LANE_DEVICE_ANNOTATION);
  steps_lane = find_lane (trace, "Steps", CP_LANE_DEVICE_ANNOTATION);
  fw = find_lane (trace, "TensorFlow Ops", CP_LANE_DEVICE_ANNOTATION);
  chip = find_lane (trace, "Bandwidth", CP_LANE_DEVICE_ANNOTATION);
  g_assert_nonnull (ops);
  g_assert_nonnull (modules);
  g_assert_nonnull (steps_lane);
  g_assert_nonnull (fw);
  g_assert_nonnull (chip);
  g_assert_cmpint (cp_lane_get_device (ops), ==, 3);
  g_assert_cmpint (cp_lane_get_stream (ops), ==, 3);
  g_assert_cmpint (cp_lane_get_device (modules), ==, 3);
  g_assert_cmpstr (cp_trace_slice_name (trace, (CpSliceRef) { cp_lane_get_index (ops), 0 }), ==,
                   "fusion.3");
  {
    const CpGpuInfo *gi = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (ops), 0 });

    g_assert_nonnull (gi);
    g_assert_cmpint (gi->flops, ==, 640);
    g_assert_cmpint (gi->bytes_accessed, ==, 128);
    g_assert_cmpint (gi->device, ==, 3);
  }

  steps = cp_trace_get_steps (trace, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (steps[0].number, ==, 1);
  g_assert_cmpint (steps[1].number, ==, 7);
  g_assert_cmpint (steps[1].start - steps[0].start, ==, 5000);
  g_assert_cmpint (steps[1].end - steps[1].start, ==, 5000);

  dev = cp_trace_find_device (trace, 3);
  g_assert_nonnull (dev);
  g_assert_cmpstr (cp_trace_get_string (trace, dev->name), ==, "TPU v6 Lite");
  g_assert_cmpstr (cp_trace_get_string (trace, dev->vendor), ==, "Google");
  g_assert_cmpfloat (dev->peak_tflops, ==, 918.0);
  g_assert_cmpfloat (dev->memory_bandwidth, ==, 1.6e12);
}

/* Time base: lines in epoch ns without a Task Environment, extreme values. */
static void
test_time_base (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  CpLane *a, *b;
  const CpSlices *s;

  /* Epoch bases; one line with a negative offset and one whose offset plus
   * duration overflows int64 picoseconds. */
  xp_line (host, 1, 0, "a", NULL, START,
           xp_event (host, "neg", -2500, 1000, NULL),
           xp_event (host, "x", 1000, 1000, NULL), NULL);
  xp_line (host, 2, 0, "b", NULL, START + 1000000,
           xp_event (host, "huge", G_MAXINT64 - 10, G_MAXINT64, NULL), NULL);
  xp_space_add_plane (space, host);

  trace = load (space, &error);
  g_assert_no_error (error);
  g_assert_true (cp_trace_get_origin_is_epoch (trace));
  /* floor (-2500 / 1000) = -3 */
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, START - 3);
  a = find_lane (trace, "a", CP_LANE_HOST_THREAD);
  b = find_lane (trace, "b", CP_LANE_HOST_THREAD);
  s = cp_lane_get_slices (a);
  g_assert_cmpint (cp_slices_get_start (s, 0), ==, 0);
  /* end = floor (-1500 / 1000) = -2 */
  g_assert_cmpint (cp_slices_get_dur (s, 0), ==, 1);
  g_assert_cmpint (cp_slices_get_start (s, 1), ==, 4);
  s = cp_lane_get_slices (b);
  g_assert_cmpuint (s->n, ==, 1);
  g_assert_cmpint (cp_slices_get_start (s, 0), >, 0);
  g_assert_cmpint (cp_slices_get_dur (s, 0), >=, 0);
  g_assert_cmpint (cp_slices_get_end (s, 0), >=, cp_slices_get_start (s, 0));
}

/* Flows from the "flow" stat, device matching, unknown metadata. */
static void
test_flows_and_unknowns (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  XpPlane *gpu0 = xp_plane_new (0, "/device:GPU:0");
  XpPlane *gpu1 = xp_plane_new (1, "/device:GPU:1");
  guint64 id = 12345;
  CpLane *t, *s0, *s1;
  guint n;

  /* flow: out on the host, in on the device (category 9: gpu_launch). */
  xp_line (host, 1, 0, "t", NULL, 0,
           xp_event (host, "enqueue", 0, 1000000,
                     xp_stat_uint (host, "flow", (id << 2) | 2 | (G_GUINT64_CONSTANT (9) << 58)),
                     NULL),
           /* launch on GPU 1 with correlation 5: must not link GPU 0's 5 */
           xp_event (host, "launch", 2000000, 1000,
                     xp_stat_uint (host, "correlation_id", 5), xp_stat_int (host, "device_id", 1),
                     NULL),
           /* an event whose metadata id is unknown: empty name, no error */
           xp_event_raw (999, 3000000, 10),
           /* an event with no metadata id at all (id 0) */
           xp_event_raw (0, 4000000, 10),
           NULL);
  xp_line (gpu0, 1, 0, "Stream #1", NULL, 0,
           xp_event (gpu0, "k_in", 1500000, 1000,
                     xp_stat_uint (gpu0, "flow", (id << 2) | 1 | (G_GUINT64_CONSTANT (9) << 58)),
                     NULL),
           xp_event (gpu0, "k0", 2500000, 1000, xp_stat_uint (gpu0, "correlation_id", 5), NULL),
           NULL);
  xp_line (gpu1, 1, 0, "Stream #1", NULL, 0,
           xp_event (gpu1, "k1", 2600000, 1000, xp_stat_uint (gpu1, "correlation_id", 5), NULL),
           NULL);
  /* a stat with an unknown metadata id */
  {
    GByteArray *e = xp_event (gpu1, "k2", 2700000, 1000, NULL);
    GByteArray *st = g_byte_array_new ();

    pbw_int (st, 1, 4242);
    pbw_int (st, 4, 1);
    pbw_msg (e, 4, st);
    xp_line (gpu1, 2, 0, "Stream #2", NULL, 0, e, NULL);
  }
  xp_space_add_plane (space, host);
  xp_space_add_plane (space, gpu0);
  xp_space_add_plane (space, gpu1);
  xp_space_add_task_env (space, START);

  trace = load (space, &error);
  g_assert_no_error (error);
  t = find_lane (trace, "t", CP_LANE_HOST_THREAD);
  s0 = find_kernel_lane (trace, 0, 1);
  s1 = find_kernel_lane (trace, 1, 1);
  g_assert_nonnull (s0);
  g_assert_nonnull (s1);
  g_assert_cmpuint (cp_lane_get_n_slices (t), ==, 4);
  g_assert_cmpint (find_slice (trace, t, ""), >=, 0);

  g_assert_true (has_flow (trace, (CpSliceRef) { cp_lane_get_index (t), find_slice (trace, t, "enqueue") },
                           (CpSliceRef) { cp_lane_get_index (s0), find_slice (trace, s0, "k_in") },
                           CP_FLOW_LAUNCH));
  g_assert_true (has_flow (trace, (CpSliceRef) { cp_lane_get_index (t), find_slice (trace, t, "launch") },
                           (CpSliceRef) { cp_lane_get_index (s1), 0 }, CP_FLOW_LAUNCH));
  g_assert_false (has_flow (trace, (CpSliceRef) { cp_lane_get_index (t), find_slice (trace, t, "launch") },
                            (CpSliceRef) { cp_lane_get_index (s0), find_slice (trace, s0, "k0") },
                            CP_FLOW_LAUNCH));
  cp_trace_get_flows (trace, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (cp_load_report_n_warnings (cp_trace_get_load_report (trace)), >=, 1);
}

/* Launch links come from the correlation ids kept in the lanes: merged lane
 * by lane when each lane's ids grow, gathered and sorted when one does not;
 * both give the same flows. */
static void
check_launch_links (gboolean in_order)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  XpPlane *gpu0 = xp_plane_new (0, "/device:GPU:0");
  XpPlane *gpu1 = xp_plane_new (1, "/device:GPU:1");
  CpLane *a, *b, *s0, *s1;
  const CpFlow *flows;
  guint n;

  xp_line (host, 1, 0, "a", NULL, 0,
           xp_event (host, "no-corr", 0, 100, NULL),
           xp_event (host, in_order ? "launch1" : "launch3", 1000, 100,
                     xp_stat_uint (host, "correlation_id", in_order ? 1 : 3), NULL),
           xp_event (host, in_order ? "launch3" : "launch1", 3000, 100,
                     xp_stat_uint (host, "correlation_id", in_order ? 3 : 1), NULL),
           NULL);
  xp_line (host, 2, 0, "b", NULL, 0,
           xp_event (host, "launch2", 2000, 100, xp_stat_uint (host, "correlation_id", 2),
                     xp_stat_int (host, "device_id", 0), NULL),
           xp_event (host, "no-corr", 2500, 100, NULL),
           xp_event (host, "launch4", 4000, 100, xp_stat_uint (host, "correlation_id", 4),
                     xp_stat_int (host, "device_id", 1), NULL),
           NULL);
  xp_line (gpu0, 1, 0, "Stream #1", NULL, 0,
           xp_event (gpu0, "k1", 10000, 100, xp_stat_uint (gpu0, "correlation_id", 1), NULL),
           xp_event (gpu0, "k2", 11000, 100, xp_stat_uint (gpu0, "correlation_id", 2), NULL),
           xp_event (gpu0, "k-none", 11500, 100, NULL),
           xp_event (gpu0, "k3", 12000, 100, xp_stat_uint (gpu0, "correlation_id", 3), NULL),
           xp_event (gpu0, "k3-again", 12500, 100, xp_stat_uint (gpu0, "correlation_id", 3), NULL),
           /* id 4 was launched on GPU 1 */
           xp_event (gpu0, "k4-other", 13000, 100, xp_stat_uint (gpu0, "correlation_id", 4), NULL),
           NULL);
  xp_line (gpu1, 1, 0, "Stream #1", NULL, 0,
           xp_event (gpu1, "k4", 14000, 100, xp_stat_uint (gpu1, "correlation_id", 4), NULL),
           /* no launch has id 9 */
           xp_event (gpu1, "k9", 15000, 100, xp_stat_uint (gpu1, "correlation_id", 9), NULL),
           NULL);
  xp_space_add_plane (space, host);
  xp_space_add_plane (space, gpu0);
  xp_space_add_plane (space, gpu1);
  xp_space_add_task_env (space, START);

  trace = load (space, &error);
  g_assert_no_error (error);
  a = find_lane (trace, "a", CP_LANE_HOST_THREAD);
  b = find_lane (trace, "b", CP_LANE_HOST_THREAD);
  s0 = find_kernel_lane (trace, 0, 1);
  s1 = find_kernel_lane (trace, 1, 1);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_nonnull (s0);
  g_assert_nonnull (s1);

#define REF(lane, name) ((CpSliceRef) { cp_lane_get_index (lane), (guint) find_slice (trace, lane, name) })
  g_assert_true (has_flow (trace, REF (a, "launch1"), REF (s0, "k1"), CP_FLOW_LAUNCH));
  g_assert_true (has_flow (trace, REF (b, "launch2"), REF (s0, "k2"), CP_FLOW_LAUNCH));
  g_assert_true (has_flow (trace, REF (a, "launch3"), REF (s0, "k3"), CP_FLOW_LAUNCH));
  g_assert_true (has_flow (trace, REF (a, "launch3"), REF (s0, "k3-again"), CP_FLOW_LAUNCH));
  g_assert_true (has_flow (trace, REF (b, "launch4"), REF (s1, "k4"), CP_FLOW_LAUNCH));
  g_assert_false (has_flow (trace, REF (b, "launch4"), REF (s0, "k4-other"), CP_FLOW_LAUNCH));
#undef REF
  flows = cp_trace_get_flows (trace, &n);
  g_assert_nonnull (flows);
  g_assert_cmpuint (n, ==, 5);
}

static void
test_launch_links (void)
{
  check_launch_links (TRUE);
  check_launch_links (FALSE);
}

/* group_id spans make steps when nothing else does. */
static void
test_group_steps (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  const CpStep *steps;
  guint n;

  xp_line (host, 1, 0, "t", NULL, 0,
           xp_event (host, "a", 0, 1000000, xp_stat_int (host, "group_id", 3), NULL),
           xp_event (host, "b", 3000000, 1000000, xp_stat_int (host, "group_id", 3), NULL),
           xp_event (host, "c", 5000000, 1000000, xp_stat_int (host, "group_id", 4), NULL),
           NULL);
  xp_space_add_plane (space, host);
  xp_space_add_task_env (space, START);
  trace = load (space, &error);
  g_assert_no_error (error);
  steps = cp_trace_get_steps (trace, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (steps[0].number, ==, 3);
  g_assert_cmpint (steps[0].end - steps[0].start, ==, 4000);
  g_assert_cmpint (steps[1].number, ==, 4);
}

/* Cut at every byte: loads what is complete or fails cleanly. */
static void
test_truncated (void)
{
  g_autoptr(GByteArray) space = make_gpu_space ();
  g_autoptr(GHashTable) boundaries = g_hash_table_new (NULL, NULL);
  guint64 full_slices;
  guint loaded = 0;
  CpPbReader r;
  CpPbField f;

  /* Cuts at the end of a top-level field leave a shorter but whole XSpace. */
  cp_pb_reader_init (&r, space->data, space->len, 0);
  g_hash_table_add (boundaries, GUINT_TO_POINTER (0));
  while (cp_pb_reader_next (&r, &f))
    g_hash_table_add (boundaries, GUINT_TO_POINTER ((guint) cp_pb_reader_offset (&r)));

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load (space, &error);

    g_assert_no_error (error);
    full_slices = cp_trace_get_n_slices (trace);
  }

  for (guint cut = 0; cut < space->len; cut++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GByteArray) part = g_byte_array_new ();
      g_autoptr(CpTrace) trace = NULL;

      g_byte_array_append (part, space->data, cut);
      trace = load (part, &error);
      if (trace == NULL)
        {
          g_assert_nonnull (error);
          continue;
        }
      loaded++;
      g_assert_cmpuint (cp_trace_get_n_slices (trace), <=, full_slices);
      if (!g_hash_table_contains (boundaries, GUINT_TO_POINTER (cut)))
        {
          const CpLoadReport *report = cp_trace_get_load_report (trace);

          g_assert_true (report->truncated);
          g_assert_cmpuint (report->stopped_at, <=, cut);
        }
    }
  g_assert_cmpuint (loaded, >, space->len / 2);
}

/* Random mutations never crash (the sanitizer build checks memory). */
static void
test_mutations (void)
{
  g_autoptr(GByteArray) space = make_gpu_space ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint round = 0; round < 3000; round++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GByteArray) copy = g_byte_array_new ();
      g_autoptr(CpTrace) trace = NULL;
      guint n = g_rand_int_range (rand, 1, 4);

      g_byte_array_append (copy, space->data, space->len);
      for (guint k = 0; k < n; k++)
        copy->data[g_rand_int_range (rand, 0, copy->len)] = g_rand_int_range (rand, 0, 256);
      trace = load (copy, &error);
      g_assert_true ((trace == NULL) == (error != NULL));
    }
}

/* Malformed structures get a clear error. */
static void
test_malformed (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;

  /* A wrong wire type at the top. */
  pbw_tag (buf, 1, 7);
  trace = load (buf, &error);
  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
  g_assert_nonnull (strstr (error->message, "byte 0"));
  g_clear_error (&error);

  /* An absurd varint. */
  g_byte_array_set_size (buf, 0);
  g_byte_array_append (buf, (const guint8 *) "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12);
  trace = load (buf, &error);
  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
  g_clear_error (&error);

  /* A plane length past the end: truncated, and nothing complete. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (buf, 1, 2);
  pbw_raw_varint (buf, 1000);
  pbw_str (buf, 2, "/host:CPU");
  trace = load (buf, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* Empty input and a space with no planes. */
  g_byte_array_set_size (buf, 0);
  trace = load (buf, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_clear_error (&error);
  pbw_str (buf, 4, "host");
  trace = load (buf, &error);
  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY);
  g_clear_error (&error);

  /* A recursion bomb in an unknown field of an event (deep groups) and deep
   * messages in an unknown plane field: the event is skipped or loaded, the
   * rest loads. */
  {
    g_autoptr(GByteArray) space = g_byte_array_new ();
    XpPlane *host = xp_plane_new (0, "/host:CPU");
    GByteArray *bomb = xp_event (host, "bomb", 0, 10, NULL);
    GByteArray *nest = g_byte_array_new ();

    for (guint i = 0; i < 100000; i++)
      pbw_tag (bomb, 15, CP_PB_WIRE_SGROUP);
    pbw_uint (nest, 1, 1);
    for (guint i = 0; i < 2000; i++)
      {
        GByteArray *outer = g_byte_array_new ();

        pbw_msg (outer, 1, nest);
        nest = outer;
      }
    xp_line (host, 1, 0, "t", NULL, 0, bomb, xp_event (host, "ok", 100000, 10, NULL), NULL);
    xp_space_add_plane (space, host);
    pbw_msg (space, 9, nest);
    trace = load (space, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 1);
    g_assert_cmpuint (cp_trace_get_load_report (trace)->skipped, ==, 1);
    g_assert_cmpuint (cp_load_report_n_warnings (cp_trace_get_load_report (trace)), >=, 1);
    g_clear_object (&trace);
  }

  /* Stats decoding refuses malformed records. */
  {
    g_autoptr(GByteArray) space = make_gpu_space ();
    g_autoptr(GPtrArray) stats = NULL;

    trace = load (space, &error);
    g_assert_no_error (error);
    stats = cp_xstats_decode (trace, (const guint8 *) "\x01\x09", 2, &error);
    g_assert_null (stats);
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
    g_clear_error (&error);
    stats = cp_xstats_decode (trace, (const guint8 *) "\x01\x02\x00", 3, &error);
    g_assert_null (stats);
    g_clear_error (&error);
    stats = cp_xstats_decode (trace, (const guint8 *) "\x00\x05\xff\xff\xff\x0f", 6, &error);
    g_assert_null (stats);
    g_clear_error (&error);
    stats = cp_xstats_decode (trace, (const guint8 *) "", 0, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (stats->len, ==, 0);
  }
}

/* A plane with a million lines with events: bounded lanes, quick. */
static void
test_million_lines (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  const CpLoadReport *report;

  xp_event_meta (host, "e", NULL, NULL);
  for (guint i = 1; i <= 1000000; i++)
    xp_line (host, i, 0, "t", NULL, 0, xp_event_raw (1, 0, 1000), NULL);
  xp_space_add_plane (space, host);
  trace = load (space, &error);
  g_assert_no_error (error);
  report = cp_trace_get_load_report (trace);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 10000);
  g_assert_cmpuint (report->skipped, ==, 1000000 - 10000);
  g_assert_cmpuint (cp_load_report_n_warnings (report), >=, 1);
}

static GBytes *
gzip_bytes (GByteArray *in)
{
  g_autoptr(GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
  g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) out = g_converter_output_stream_new (mem, G_CONVERTER (z));
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (out, in->data, in->len, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (out, NULL, &error);
  g_assert_no_error (error);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}

static char *
write_space (const char *dir,
             const char *name,
             GByteArray *space)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_mkdir_with_parents (parent, 0700);
  if (g_str_has_suffix (name, ".gz"))
    {
      g_autoptr(GBytes) gz = gzip_bytes (space);
      gsize n;
      const void *d = g_bytes_get_data (gz, &n);

      return cp_test_write_file (parent, strrchr (path, '/') + 1, d, n);
    }
  if (g_str_has_suffix (name, ".zst"))
    {
      gsize cap = ZSTD_compressBound (space->len);
      g_autofree guint8 *buf = g_malloc (cap);
      gsize n = ZSTD_compress (buf, cap, space->data, space->len, 3);

      g_assert_false (ZSTD_isError (n));
      return cp_test_write_file (parent, strrchr (path, '/') + 1, buf, n);
    }
  return cp_test_write_file (parent, strrchr (path, '/') + 1, space->data, space->len);
}

static CpTrace *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return cp_load_file (file, NULL, NULL, NULL, error);
}

static void
record_progress (guint64  done,
                 guint64  total,
                 gpointer data)
{
  guint64 *last = data;

  g_assert_cmpuint (done, >=, last[0]);
  last[0] = done;
  last[1] = total;
}

/* Files through the loader: plain, gzip, zstd, truncated. */
static void
test_loader (void)
{
  g_autoptr(GByteArray) space = make_gpu_space ();
  g_autofree char *dir = cp_test_make_tmpdir ();
  static const struct { const char *name; const char *format; } cases[] = {
    { "node7.xplane.pb", "xplane" },
    { "node7.xplane.pb.gz", "xplane+gzip" },
    { "node7.xplane.pb.zst", "xplane+zstd" },
    { "renamed.bin", "xplane" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_space (dir, cases[i].name, space);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = load_path (path, &error);
      const CpLoadReport *report;

      g_assert_no_error (error);
      report = cp_trace_get_load_report (trace);
      g_assert_cmpstr (report->format, ==, cases[i].format);
      g_assert_cmpuint (report->input_bytes, ==, space->len);
      g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 10);
      g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 8);
      g_assert_false (report->truncated);
    }

  /* Truncated, plain and compressed: what is complete loads. */
  {
    g_autoptr(GByteArray) cut = g_byte_array_new ();

    g_byte_array_append (cut, space->data, space->len * 2 / 3);
    for (guint i = 0; i < 2; i++)
      {
        g_autofree char *path = write_space (dir, i == 0 ? "cut.xplane.pb" : "cut.xplane.pb.gz", cut);
        g_autoptr(GError) error = NULL;
        g_autoptr(CpTrace) trace = load_path (path, &error);

        g_assert_no_error (error);
        g_assert_true (cp_trace_get_load_report (trace)->truncated);
        g_assert_cmpuint (cp_trace_get_load_report (trace)->stopped_at, <=, cut->len);
        g_assert_cmpuint (cp_trace_get_n_slices (trace), >, 0);
      }
  }

  /* Cancelled: stops with G_IO_ERROR_CANCELLED; progress went up to the end
   * of a whole load. */
  {
    g_autofree char *path = g_build_filename (dir, "node7.xplane.pb", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;
    guint64 last[2] = { 0, 0 };

    trace = cp_load_file (file, NULL, record_progress, last, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (last[0], ==, space->len);
    g_assert_cmpuint (last[1], ==, space->len);
    g_clear_object (&trace);

    g_cancellable_cancel (cancellable);
    trace = cp_load_file (file, cancellable, NULL, NULL, &error);
    g_assert_null (trace);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }

  /* Damaged: the message names the file and the offset. */
  {
    g_autoptr(GByteArray) bad = g_byte_array_new ();
    g_autofree char *path = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    g_byte_array_append (bad, (const guint8 *) "\x0a\x05\x08\x01\x13\x00\x00", 7);
    path = write_space (dir, "bad.xplane.pb", bad);
    trace = load_path (path, &error);
    g_assert_null (trace);
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
    g_assert_nonnull (strstr (error->message, "bad.xplane.pb"));
    g_assert_nonnull (strstr (error->message, "byte 4"));
  }
  cp_test_rm_rf (dir);
}

static GByteArray *
make_host_space (const char *hostname,
                 guint64     start,
                 guint       n_gpus)
{
  GByteArray *space = g_byte_array_new ();
  XpPlane *host = xp_plane_new (0, "/host:CPU");

  xp_line (host, 1, 0, "main", NULL, 0,
           xp_event (host, "launch", 0, 1000000, xp_stat_uint (host, "correlation_id", 1),
                     xp_stat_int (host, "device_id", n_gpus - 1), NULL), NULL);
  xp_space_add_plane (space, host);
  for (guint g = 0; g < n_gpus; g++)
    {
      g_autofree char *name = g_strdup_printf ("/device:GPU:%u", g);
      XpPlane *gpu = xp_plane_new (g, name);

      xp_line (gpu, 1, 0, "Stream #1", NULL, 0,
               xp_event (gpu, "kernel", 2000000, 1000000, xp_stat_uint (gpu, "correlation_id", 1),
                         NULL), NULL);
      xp_space_add_plane (space, gpu);
    }
  xp_space_add_task_env (space, start);
  xp_space_add_hostname (space, hostname);
  return space;
}

/* TensorBoard profile folders: hosts become process groups. */
static void
test_folder (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *logdir = g_build_filename (dir, "logdir", NULL);
  g_autofree char *profile = g_build_filename (logdir, "plugins", "profile", NULL);
  g_autofree char *run = g_build_filename (profile, "2025_03_04_10_00_00", NULL);
  g_autoptr(GByteArray) a = make_host_space ("alpha", START, 2);
  g_autoptr(GByteArray) b = make_host_space ("beta", START + 500, 2);
  g_autoptr(GByteArray) old = make_host_space ("old", START, 1);
  const char *opens[] = { logdir, profile, run };

  g_free (write_space (profile, "2025_03_01_09_00_00/old.xplane.pb", old));
  g_free (write_space (run, "alpha.xplane.pb", a));
  g_free (write_space (run, "beta.xplane.pb.gz", b));
  g_free (write_space (run, "alpha.trace.json.gz", old));

  for (guint k = 0; k < G_N_ELEMENTS (opens); k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = load_path (opens[k], &error);
      guint hosts_seen = 0, n_flows;
      const CpFlow *flows;

      g_assert_no_error (error);
      g_assert_cmpstr (cp_trace_get_load_report (trace)->format, ==, "xplane-folder");
      g_assert_cmpstr (cp_trace_get_title (trace), ==, "2025_03_04_10_00_00 (2 hosts)");
      /* 2 hosts x (1 host lane + 2 kernel lanes) */
      g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 6);
      g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 4);
      for (guint p = 0; p < cp_trace_get_n_processes (trace); p++)
        {
          const CpProcess *proc = cp_trace_get_process (trace, p);
          const char *name = cp_trace_get_string (trace, proc->name);

          if (g_str_has_prefix (name, "beta"))
            {
              g_assert_cmpint (proc->host, ==, 1);
              if (proc->is_device)
                g_assert_cmpint (proc->device, >=, 2);
              hosts_seen |= 2;
            }
          else
            {
              g_assert_true (g_str_has_prefix (name, "alpha"));
              g_assert_cmpint (proc->host, ==, 0);
              if (proc->is_device)
                g_assert_cmpint (proc->device, <, 2);
              hosts_seen |= 1;
            }
        }
      g_assert_cmpuint (hosts_seen, ==, 3);
      /* Host lanes of alpha come before beta's. */
      g_assert_true (g_str_has_prefix (cp_trace_get_string (trace,
                       cp_trace_get_process (trace, cp_lane_get_process (cp_trace_get_lane (trace, 0)))->name),
                       "alpha"));
      /* Correlation 1 exists on both hosts: each launch links its own host's GPU 1 only. */
      flows = cp_trace_get_flows (trace, &n_flows);
      g_assert_cmpuint (n_flows, ==, 2);
      for (guint f = 0; f < n_flows; f++)
        {
          const CpProcess *from = cp_trace_get_process (trace,
                                    cp_lane_get_process (cp_trace_get_lane (trace, flows[f].from.lane)));
          const CpProcess *to = cp_trace_get_process (trace,
                                  cp_lane_get_process (cp_trace_get_lane (trace, flows[f].to.lane)));

          g_assert_cmpint (from->host, ==, to->host);
          g_assert_cmpint (to->device % 2, ==, 1);
        }
    }

  /* One file of the folder opened as a file is just that file. */
  {
    g_autofree char *path = g_build_filename (run, "alpha.xplane.pb", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (path, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (cp_trace_get_load_report (trace)->format, ==, "xplane");
    g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 3);
  }

  /* A folder without captures. */
  {
    g_autofree char *empty = g_build_filename (dir, "empty", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    g_mkdir_with_parents (empty, 0700);
    trace = load_path (empty, &error);
    g_assert_null (trace);
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE);
    g_assert_nonnull (strstr (error->message, "empty"));
  }
  cp_test_rm_rf (dir);
}

/* `chokepoint info --json` shows XPlane captures like any other. */
static void
test_cli_info (void)
{
  const char *exe = g_getenv ("CP_CHOKEPOINT");
  g_autoptr(GByteArray) space = make_gpu_space ();
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *report;
  int status;

  if (exe == NULL || !g_file_test (exe, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("the chokepoint executable is not built");
      return;
    }
  dir = cp_test_make_tmpdir ();
  path = write_space (dir, "node7.xplane.pb", space);
  {
    const char *argv[] = { exe, "info", "--json", path, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status,
                  &error);
  }
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "format"), ==, "xplane");
  g_assert_cmpint (json_object_get_int_member (root, "slices"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (root, "kernels"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (root, "transfers"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (root, "lanes"), ==, 8);
  g_assert_cmpint (json_object_get_int_member (root, "devices"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (root, "steps"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (root, "flows"), ==, 3);
  report = json_object_get_object_member (root, "load_report");
  g_assert_cmpint (json_object_get_int_member (report, "aggregated"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (report, "events"), ==, 13);

  /* A damaged one: non-zero exit, the reason on stderr. */
  {
    g_autofree char *bad = cp_test_write_file (dir, "bad.xplane.pb", "\x0a\x05\x08\x01\x13\x00\x00", 7);
    const char *argv[] = { exe, "info", bad, NULL };
    g_autofree char *err = NULL;

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                  &status, &error);
    g_assert_no_error (error);
    g_assert_false (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (err, "damaged at byte 4"));
  }
  cp_test_rm_rf (dir);
}

/* A lane's identity across formats. */
static char *
lane_key (CpTrace *trace,
          CpLane  *lane)
{
  CpLaneKind kind = cp_lane_get_kind (lane);

  switch (kind)
    {
    case CP_LANE_KERNEL:
      return g_strdup_printf ("kernel dev %d stream %" G_GINT64_FORMAT, cp_lane_get_device (lane),
                              cp_lane_get_stream (lane));
    case CP_LANE_TRANSFER:
      return g_strdup_printf ("transfer dev %d %s", cp_lane_get_device (lane),
                              cp_transfer_kind_to_string (cp_lane_get_transfer_kind (lane)));
    case CP_LANE_HOST_THREAD:
      return g_strdup_printf ("host tid %" G_GINT64_FORMAT, cp_lane_get_tid (lane));
    case CP_LANE_COUNTER:
    case CP_LANE_DEVICE_ANNOTATION:
    case CP_LANE_ASYNC:
    case CP_LANE_N_KINDS:
    default:
      return g_strdup_printf ("%s %s", cp_lane_kind_to_string (kind), cp_lane_get_name (lane));
    }
}

static GHashTable *
lanes_by_key (CpTrace *trace)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *lane = cp_trace_get_lane (trace, i);
      const CpProcess *proc = cp_trace_get_process (trace, cp_lane_get_process (lane));
      const char *pname = cp_trace_get_string (trace, proc->key);

      /* Kineto's own "Spans" process has no XPlane counterpart. */
      if (proc->is_pseudo || g_strcmp0 (pname, "Spans") == 0)
        continue;
      g_hash_table_insert (table, lane_key (trace, lane), lane);
    }
  return table;
}

/* The scenario generator's captures read the same from JSON and XPlane:
 * same lanes (kind, device, stream), slice counts, names and times to the ns. */
/* Everything a trace holds, as text, for comparing two loads. */
static char *
trace_dump (CpTrace *t)
{
  GString *out = g_string_new (NULL);
  const CpLoadReport *report = cp_trace_get_load_report (t);
  guint n;
  const CpFlow *flows = cp_trace_get_flows (t, &n);
  const CpStep *steps;

  g_string_append_printf (out, "events %" G_GUINT64_FORMAT " aggregated %" G_GUINT64_FORMAT
                          " skipped %" G_GUINT64_FORMAT " truncated %d at %" G_GUINT64_FORMAT
                          " origin %" G_GINT64_FORMAT " duration %" G_GINT64_FORMAT "\n",
                          report->events, report->aggregated, report->skipped, report->truncated,
                          report->stopped_at, cp_trace_get_origin_abs (t), cp_trace_get_duration (t));
  for (guint i = 0; i < cp_load_report_n_warnings (report); i++)
    g_string_append_printf (out, "warning %s\n", cp_load_report_get_warning (report, i)->message);
  for (guint i = 0; i < cp_trace_get_n_processes (t); i++)
    {
      const CpProcess *p = cp_trace_get_process (t, i);

      g_string_append_printf (out, "process %" G_GINT64_FORMAT " %s %d\n", p->pid,
                              cp_trace_get_string (t, p->name), p->device);
    }
  for (guint li = 0; li < cp_trace_get_n_lanes (t); li++)
    {
      CpLane *lane = cp_trace_get_lane (t, li);
      const CpSlices *s = cp_lane_get_slices (lane);
      const gint64 *ts;
      const double *vals;
      guint nc = cp_lane_get_counter (lane, &ts, &vals);

      g_string_append_printf (out, "lane %d %s p%u d%d s%" G_GINT64_FORMAT "\n",
                              cp_lane_get_kind (lane), cp_lane_get_name (lane),
                              cp_lane_get_process (lane), cp_lane_get_device (lane),
                              cp_lane_get_stream (lane));
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { li, i };
          const CpGpuInfo *g = cp_trace_get_gpu_info (t, ref);

          g_string_append_printf (out, " %" G_GINT64_FORMAT "+%" G_GINT64_FORMAT " %s %s r%u f%u c%"
                                  G_GINT64_FORMAT " e%" G_GINT64_FORMAT,
                                  cp_slices_get_start (s, i), cp_slices_get_dur (s, i),
                                  cp_trace_get_string (t, cp_slices_get_name (s, i)),
                                  cp_trace_get_string (t, cp_slices_get_cat (s, i)), s->row[i],
                                  s->flags[i], cp_slices_get_corr (s, i), cp_slices_get_ext (s, i));
          if (g != NULL)
            g_string_append_printf (out, " gpu %" G_GINT64_FORMAT " %d %d %d %d %g %g %" G_GINT64_FORMAT,
                                    g->bytes, g->device, g->stream, g->grid[0], g->registers,
                                    g->occupancy, g->warps_per_sm, g->flops);
          if (cp_slices_get_args (s, i) != 0)
            {
              g_autoptr(GError) error = NULL;
              g_autoptr(GPtrArray) stats = cp_xstats_decode_slice (t, ref, &error);

              g_assert_no_error (error);
              for (guint k = 0; k < stats->len; k++)
                {
                  CpXStatEntry *e = g_ptr_array_index (stats, k);

                  g_string_append_printf (out, " %s=%s", e->key, e->value);
                }
            }
          g_string_append_c (out, '\n');
        }
      for (guint i = 0; i < nc; i++)
        g_string_append_printf (out, " @%" G_GINT64_FORMAT " %g\n", ts[i], vals[i]);
    }
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "flow %u:%u %u:%u %d %s\n", flows[i].from.lane, flows[i].from.index,
                            flows[i].to.lane, flows[i].to.index, flows[i].kind,
                            cp_trace_get_string (t, flows[i].name));
  steps = cp_trace_get_steps (t, &n);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "step %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                            " %u:%u\n", steps[i].number, steps[i].start, steps[i].end,
                            steps[i].marker.lane, steps[i].marker.index);
  return g_string_free (out, FALSE);
}

/* Lines are read by several threads: the trace must not depend on how many,
 * nor on which lines get a thread of their own. Every line its own group
 * (big_line 1) on 1, 2 and 4 threads against the default, on captures with
 * lines sharing lanes, steps, flows, counters and damage. */
static void
check_threads_same (GByteArray *space,
                    const char *what)
{
  g_autofree char *want = NULL;

  for (guint k = 0; k < 4; k++)
    {
      static const guint threads[] = { 1, 1, 2, 4 };
      static const guint big[] = { 0, 1, 1, 1 };
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) t = NULL;
      g_autofree char *dump = NULL;

      _cp_xplane_set_threads (threads[k], big[k]);
      t = load (space, &error);
      dump = t != NULL ? trace_dump (t) : g_strdup (error->message);
      if (k == 0)
        want = g_steal_pointer (&dump);
      else if (g_strcmp0 (dump, want) != 0)
        g_error ("%s: %u threads, big lines from %u events: the trace differs", what,
                 threads[k], big[k]);
    }
  _cp_xplane_set_threads (0, 0);
}

static void
test_threads (void)
{
  g_autoptr(GByteArray) gpu = make_gpu_space ();
  g_autoptr(GByteArray) many = g_byte_array_new ();
  XpPlane *host = xp_plane_new (0, "/host:CPU");
  XpPlane *dev = xp_plane_new (0, "/device:GPU:0");
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);

  check_threads_same (gpu, "gpu space");
  /* Cut anywhere and with bytes changed: the same warnings in the same order. */
  for (guint cut = 1; cut < gpu->len; cut += gpu->len / 23 + 1)
    {
      g_autoptr(GByteArray) part = g_byte_array_new ();
      g_autofree char *what = g_strdup_printf ("gpu space cut at %u", cut);

      g_byte_array_append (part, gpu->data, cut);
      check_threads_same (part, what);
    }
  for (guint m = 0; m < 20; m++)
    {
      g_autoptr(GByteArray) bad = g_byte_array_new ();
      g_autofree char *what = g_strdup_printf ("gpu space mutation %u", m);

      g_byte_array_append (bad, gpu->data, gpu->len);
      for (guint j = 0; j < 3; j++)
        bad->data[g_rand_int_range (rand, 0, bad->len)] = (guint8) g_rand_int_range (rand, 0, 256);
      check_threads_same (bad, what);
    }

  /* Several threads with launches, producers, steps by position and group
   * ids across lines; two lines sharing a row; a stream with copies. */
  xp_event_meta (host, "op", NULL, NULL);
  for (guint l = 0; l < 6; l++)
    {
      GByteArray *ev[40];

      for (guint i = 0; i < 40; i++)
        {
          gint64 at = (gint64) (l * 1000 + i * 20) * 1000;

          if (i % 4 == 0)
            ev[i] = xp_event (host, "cudaLaunchKernel", at, 5000,
                              xp_stat_uint (host, "correlation_id", l * 100 + i),
                              xp_stat_int (host, "device_id", 0), NULL);
          else if (i % 4 == 1)
            ev[i] = xp_event (host, "step", at, 9000, xp_stat_int (host, "_r", 1),
                              xp_stat_int (host, "group_id", i / 8), NULL);
          else if (i % 4 == 2)
            ev[i] = xp_event (host, "op", at, 3000, xp_stat_int (host, "_pt", 1),
                              xp_stat_uint (host, "_p", (guint64) (i + l)), NULL);
          else
            ev[i] = xp_event (host, "op", at, 3000, xp_stat_int (host, "_ct", 1),
                              xp_stat_uint (host, "_c", (guint64) (i + l + 2)),
                              xp_stat_str (host, "note", l % 2 ? "odd" : "even"), NULL);
        }
      xp_line (host, l + 1, l == 5 ? 1 : 0, "thread", NULL, 100,
               ev[0], ev[1], ev[2], ev[3], ev[4], ev[5], ev[6], ev[7], ev[8], ev[9], ev[10],
               ev[11], ev[12], ev[13], ev[14], ev[15], ev[16], ev[17], ev[18], ev[19], ev[20],
               ev[21], ev[22], ev[23], ev[24], ev[25], ev[26], ev[27], ev[28], ev[29], ev[30],
               ev[31], ev[32], ev[33], ev[34], ev[35], ev[36], ev[37], ev[38], ev[39], NULL);
    }
  for (guint l = 0; l < 3; l++)
    {
      GByteArray *ev[10];

      for (guint i = 0; i < 10; i++)
        {
          guint l0 = (l * 2 + i) % 6, i0 = (i * 4) % 40;

          ev[i] = i % 3 == 2
                  ? xp_event (dev, "MemcpyH2D", (gint64) (l0 * 1000 + i0 * 20 + 7) * 1000, 900,
                              xp_stat_uint (dev, "correlation_id", l0 * 100 + i0),
                              xp_stat_ref (dev, "memcpy_details", "kind_src:pinned kind_dst:device size:64"),
                              NULL)
                  : xp_event (dev, "k", (gint64) (l0 * 1000 + i0 * 20 + 7) * 1000, 900,
                              xp_stat_uint (dev, "correlation_id", l0 * 100 + i0),
                              xp_stat_ref (dev, "kernel_details", i % 2 ? KD_A : KD_B), NULL);
        }
      xp_line (dev, 10 + l, 0, "Stream", NULL, 100, ev[0], ev[1], ev[2], ev[3], ev[4], ev[5], ev[6],
               ev[7], ev[8], ev[9], NULL);
    }
  xp_line (dev, 99, 0, "Steps", NULL, 100,
           xp_event (dev, "1", 0, 50000000, NULL), xp_event (dev, "x", 50000000, 50000000, NULL), NULL);
  xp_space_add_plane (many, host);
  xp_space_add_plane (many, dev);
  check_threads_same (many, "threads and streams");
}

static void
test_twins (void)
{
  static const char *const scenarios[] = {
    "healthy", "input-bound", "launch-bound", "pageable-transfers", "sync-stalls",
    "fp32-no-tensor-cores", "comm-bound",
  };
  const char *build = g_getenv ("CP_BUILD_ROOT");
  g_autofree char *gen = g_getenv ("CP_GEN") ? g_strdup (g_getenv ("CP_GEN"))
                       : build ? g_build_filename (build, "tools", "cp-gen", NULL) : NULL;
  g_autofree char *dir = NULL;

  if (gen == NULL || !g_file_test (gen, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("cp-gen is not built");
      return;
    }
  dir = cp_test_make_tmpdir ();

  for (guint k = 0; k < G_N_ELEMENTS (scenarios); k++)
    {
      g_autofree char *json = g_strdup_printf ("%s/%s.json", dir, scenarios[k]);
      g_autofree char *xplane = g_strdup_printf ("%s/%s.xplane.pb", dir, scenarios[k]);
      g_autoptr(CpTrace) a = NULL;
      g_autoptr(CpTrace) b = NULL;
      g_autoptr(GHashTable) la = NULL;
      g_autoptr(GHashTable) lb = NULL;
      g_autoptr(GError) error = NULL;
      GHashTableIter iter;
      gpointer key, value;
      guint n_steps_a, n_steps_b;
      const CpStep *sa, *sb;

      for (guint f = 0; f < 2; f++)
        {
          const char *argv[] = { gen, "--scenario", scenarios[k], "--steps", "2", "--seed", "5",
                                 "--out", f == 0 ? json : xplane, NULL };
          int status;

          g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL |
                        G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
          g_assert_no_error (error);
          g_assert_true (g_spawn_check_wait_status (status, NULL));
        }
      a = load_path (json, &error);
      g_assert_no_error (error);
      b = load_path (xplane, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (cp_trace_get_load_report (b)->format, ==, "xplane");
      /* Whatever the number of reading threads. */
      {
        gchar *bytes = NULL;
        gsize n = 0;
        g_autoptr(GByteArray) space = NULL;

        g_assert_true (g_file_get_contents (xplane, &bytes, &n, NULL));
        space = g_byte_array_new_take ((guint8 *) bytes, n);
        check_threads_same (space, xplane);
      }

      la = lanes_by_key (a);
      lb = lanes_by_key (b);
      g_assert_cmpuint (g_hash_table_size (la), ==, g_hash_table_size (lb));
      g_hash_table_iter_init (&iter, la);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          CpLane *x = value;
          CpLane *y = g_hash_table_lookup (lb, key);
          const CpSlices *sx, *sy;

          if (y == NULL)
            g_error ("%s: lane “%s” is missing from the XPlane twin", scenarios[k], (char *) key);
          g_assert_cmpint (cp_lane_get_kind (x), ==, cp_lane_get_kind (y));
          if (cp_lane_get_kind (x) == CP_LANE_COUNTER)
            {
              /* Kineto puts counters in a "GPU 0 Counters" process of its
               * own, XPlane on the GPU plane: only the series compare. */
              const gint64 *tx, *ty;
              const double *vx, *vy;
              guint nx = cp_lane_get_counter (x, &tx, &vx);
              guint ny = cp_lane_get_counter (y, &ty, &vy);

              g_assert_cmpuint (nx, ==, ny);
              for (guint i = 0; i < nx; i++)
                {
                  g_assert_cmpint (tx[i] + cp_trace_get_origin_abs (a), ==,
                                   ty[i] + cp_trace_get_origin_abs (b));
                  g_assert_cmpfloat (vx[i], ==, vy[i]);
                }
              continue;
            }
          g_assert_cmpint (cp_lane_get_device (x), ==, cp_lane_get_device (y));
          g_assert_cmpint (cp_lane_get_stream (x), ==, cp_lane_get_stream (y));
          sx = cp_lane_get_slices (x);
          sy = cp_lane_get_slices (y);
          g_assert_cmpuint (sx->n, ==, sy->n);
          for (guint i = 0; i < sx->n; i++)
            {
              g_assert_cmpint (cp_slices_get_start (sx, i) + cp_trace_get_origin_abs (a), ==,
                               cp_slices_get_start (sy, i) + cp_trace_get_origin_abs (b));
              g_assert_cmpint (cp_slices_get_dur (sx, i), ==, cp_slices_get_dur (sy, i));
              g_assert_cmpstr (cp_trace_get_string (a, cp_slices_get_name (sx, i)), ==,
                               cp_trace_get_string (b, cp_slices_get_name (sy, i)));
            }
        }
      sa = cp_trace_get_steps (a, &n_steps_a);
      sb = cp_trace_get_steps (b, &n_steps_b);
      g_assert_cmpuint (n_steps_a, ==, n_steps_b);
      for (guint i = 0; i < n_steps_a; i++)
        {
          g_assert_cmpint (sa[i].number, ==, sb[i].number);
          g_assert_cmpint (sa[i].start + cp_trace_get_origin_abs (a), ==,
                           sb[i].start + cp_trace_get_origin_abs (b));
        }
      g_test_message ("%s: %u lanes alike", scenarios[k], g_hash_table_size (la));
    }
  cp_test_rm_rf (dir);
}

/* Every real capture loads; counts match an independent decode. */
static void
test_shared_traces (void)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *script = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  GQueue dirs = G_QUEUE_INIT;
  guint n_loaded = 0, n_corrupted = 0;

  if (root == NULL)
    {
      g_test_skip ("no shared traces");
      return;
    }
  g_queue_push_tail (&dirs, g_strdup (root));
  while (!g_queue_is_empty (&dirs))
    {
      g_autofree char *dir = g_queue_pop_head (&dirs);
      g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;

      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          char *path = g_build_filename (dir, name, NULL);

          if (g_file_test (path, G_FILE_TEST_IS_DIR))
            g_queue_push_tail (&dirs, path);
          else if (g_str_has_suffix (name, ".xplane.pb"))
            g_ptr_array_add (files, path);
          else
            g_free (path);
        }
    }
  if (files->len == 0)
    {
      g_test_skip ("no .xplane.pb under the shared traces");
      return;
    }

  script = g_build_filename (g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".",
                             "xplane-count.py", NULL);

  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;

      trace = load_path (path, &error);
      if (strstr (path, "_corrupted_") != NULL)
        {
          g_assert_null (trace);
          g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
          g_assert_nonnull (strstr (error->message, "damaged at byte"));
          g_assert_nonnull (strstr (error->message, "tpu_inference_2.xplane.pb"));
          n_corrupted++;
          continue;
        }
      g_assert_no_error (error);
      /* The same whatever the number of reading threads. */
      {
        gchar *bytes = NULL;
        gsize n = 0;
        g_autoptr(GByteArray) space = NULL;

        g_assert_true (g_file_get_contents (path, &bytes, &n, NULL));
        space = g_byte_array_new_take ((guint8 *) bytes, n);
        check_threads_same (space, path);
      }
      g_assert_nonnull (trace);
      g_assert_cmpstr (cp_trace_get_load_report (trace)->format, ==, "xplane");
      g_assert_cmpuint (cp_load_report_n_warnings (cp_trace_get_load_report (trace)), ==, 0);
      g_assert_false (cp_trace_get_load_report (trace)->truncated);
      n_loaded++;

      if (python != NULL && g_file_test (script, G_FILE_TEST_EXISTS))
        {
          const char *argv[] = { python, script, path, NULL };
          g_autofree char *out = NULL;
          g_autofree char *expected = NULL;
          int status;
          const CpLoadReport *report = cp_trace_get_load_report (trace);
          guint n_counter = 0;
          guint64 n_samples = 0;

          g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL,
                        &status, &error);
          g_assert_no_error (error);
          g_assert_true (g_spawn_check_wait_status (status, NULL));
          for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
            if (cp_lane_get_kind (cp_trace_get_lane (trace, l)) == CP_LANE_COUNTER)
              {
                n_counter++;
                n_samples += cp_lane_get_counter (cp_trace_get_lane (trace, l), NULL, NULL);
              }
          expected = g_strdup_printf ("lanes=%u slices=%" G_GUINT64_FORMAT " kernels=%" G_GUINT64_FORMAT
                                      " transfers=%" G_GUINT64_FORMAT " annotations=%" G_GUINT64_FORMAT
                                      " counters=%u samples=%" G_GUINT64_FORMAT " events=%"
                                      G_GUINT64_FORMAT " aggregated=%" G_GUINT64_FORMAT "\n",
                                      cp_trace_get_n_lanes (trace), cp_trace_get_n_slices (trace),
                                      cp_trace_count_slices (trace, CP_LANE_KERNEL),
                                      cp_trace_count_slices (trace, CP_LANE_TRANSFER),
                                      cp_trace_count_slices (trace, CP_LANE_DEVICE_ANNOTATION),
                                      n_counter, n_samples, report->events, report->aggregated);
          g_test_message ("%s: %s", path, out);
          g_assert_cmpstr (out, ==, expected);
        }
    }
  if (python == NULL)
    g_test_message ("python3 not found: counts not cross-checked");
  g_assert_cmpuint (n_loaded, >, 0);
  g_assert_cmpuint (n_corrupted, <=, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/xplane/gpu-mapping", test_gpu_mapping);
  g_test_add_func ("/xplane/tpu-mapping", test_tpu_mapping);
  g_test_add_func ("/xplane/time-base", test_time_base);
  g_test_add_func ("/xplane/flows-unknowns", test_flows_and_unknowns);
  g_test_add_func ("/xplane/launch-links", test_launch_links);
  g_test_add_func ("/xplane/kernel-records", test_kernel_records);
  g_test_add_func ("/xplane/threads", test_threads);
  g_test_add_func ("/xplane/group-steps", test_group_steps);
  g_test_add_func ("/xplane/truncated", test_truncated);
  g_test_add_func ("/xplane/mutations", test_mutations);
  g_test_add_func ("/xplane/malformed", test_malformed);
  g_test_add_func ("/xplane/million-lines", test_million_lines);
  g_test_add_func ("/xplane/loader", test_loader);
  g_test_add_func ("/xplane/folder", test_folder);
  g_test_add_func ("/xplane/twins", test_twins);
  g_test_add_func ("/xplane/cli-info", test_cli_info);
  g_test_add_func ("/xplane/shared-traces", test_shared_traces);

  return g_test_run ();
}
