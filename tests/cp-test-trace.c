/* cp-test-trace.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "cp-test-trace.h"

#define HOST_PID 100

static gint64 next_corr = 1;

CpTraceBuilder *
cp_test_trace_new (void)
{
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, HOST_PID);

  /* Pin the origin at 0. */
  cp_trace_builder_add_instant (b, 0, cp_trace_builder_intern (b, "origin", -1), CP_STR_EMPTY,
                                proc, -1, 'g');
  return b;
}

guint
cp_test_trace_host_lane (CpTraceBuilder *b,
                         gint64          tid)
{
  guint proc = cp_trace_builder_process_for_pid (b, HOST_PID);

  return cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { tid, CP_STR_EMPTY });
}

static guint
device_process (CpTraceBuilder *b,
                gint            device)
{
  guint proc = cp_trace_builder_process_for_pid (b, device);
  CpProcess *p = cp_trace_builder_get_process (b, proc);

  p->is_device = TRUE;
  p->device = device;
  cp_trace_builder_device (b, device);
  return proc;
}

guint
cp_test_trace_kernel_lane (CpTraceBuilder *b,
                           gint            device,
                           gint64          stream)
{
  guint lane = cp_trace_builder_lane (b, device_process (b, device), CP_LANE_KERNEL,
                                      (CpLaneKey) { stream, CP_STR_EMPTY });

  cp_trace_builder_set_lane_device (b, lane, device, stream);
  return lane;
}

guint
cp_test_trace_copy_lane (CpTraceBuilder *b,
                         gint            device,
                         CpTransferKind  kind)
{
  guint lane = cp_trace_builder_lane (b, device_process (b, device), CP_LANE_TRANSFER,
                                      (CpLaneKey) { kind, CP_STR_EMPTY });

  cp_trace_builder_set_lane_device (b, lane, device, -1);
  cp_trace_builder_set_lane_transfer_kind (b, lane, kind);
  return lane;
}

guint
cp_test_trace_counter_lane (CpTraceBuilder *b,
                            gint            device,
                            const char     *name)
{
  guint lane = cp_trace_builder_lane (b, device_process (b, device), CP_LANE_COUNTER,
                                      (CpLaneKey) { 0, cp_trace_builder_intern (b, name, -1) });

  cp_trace_builder_set_lane_device (b, lane, device, -1);
  return lane;
}

void
cp_test_trace_gpu_info_clear (CpGpuInfo *gpu)
{
  gpu->bytes = -1;
  gpu->device = -1;
  gpu->stream = -1;
  for (guint k = 0; k < 3; k++)
    gpu->grid[k] = gpu->block[k] = -1;
  gpu->registers = -1;
  gpu->shared_mem = -1;
  gpu->blocks_per_sm = NAN;
  gpu->warps_per_sm = NAN;
  gpu->occupancy = NAN;
  gpu->flops = -1;
  gpu->bytes_accessed = -1;
}

CpSliceRef
cp_test_trace_slice_full (CpTraceBuilder  *b,
                          guint            lane,
                          gint64           start,
                          gint64           dur,
                          const char      *name,
                          guint16          flags,
                          gint64           corr,
                          const CpGpuInfo *gpu)
{
  CpSliceInit init;

  cp_slice_init_clear (&init);
  init.start = start;
  init.dur = dur;
  init.name = cp_trace_builder_intern (b, name, -1);
  init.flags = flags;
  init.corr = corr;
  init.gpu = gpu;
  return cp_trace_builder_add_slice (b, lane, &init);
}

CpSliceRef
cp_test_trace_slice (CpTraceBuilder *b,
                     guint           lane,
                     gint64          start,
                     gint64          dur,
                     const char     *name)
{
  return cp_test_trace_slice_full (b, lane, start, dur, name, 0, CP_NONE, NULL);
}

CpSliceRef
cp_test_trace_launch (CpTraceBuilder *b,
                      guint           host_lane,
                      gint64          call_start,
                      gint64          call_dur,
                      guint           kernel_lane,
                      gint64          start,
                      gint64          dur,
                      const char     *kernel)
{
  gint64 corr = next_corr++;

  cp_test_trace_slice_full (b, host_lane, call_start, call_dur, "cudaLaunchKernel", 0, corr, NULL);
  return cp_test_trace_slice_full (b, kernel_lane, start, dur, kernel, 0, corr, NULL);
}

CpTrace *
cp_test_trace_finish (CpTraceBuilder *b)
{
  g_autoptr(GError) error = NULL;
  CpTrace *trace = cp_trace_builder_finish (b, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, 0);
  return trace;
}
