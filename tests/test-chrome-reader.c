/* test-chrome-reader.c: CpSource, the Chrome/Kineto reader and cp-loader
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "cp-test-util.h"
#include "formats/cp-chrome-reader.h"
#include "formats/cp-loader.h"
#include "formats/cp-source.h"

static char *
fixture (const char *name)
{
  g_autofree char *rel = g_build_filename ("chrome", name, NULL);

  return cp_test_data_path (rel);
}

static CpTrace *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return cp_load_file (file, NULL, NULL, NULL, error);
}

static CpTrace *
load_fixture (const char *name)
{
  g_autofree char *path = fixture (name);
  g_autoptr(GError) error = NULL;
  CpTrace *trace = load_path (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Finds the first slice with this name; returns its lane. */
static CpLane *
find_slice (CpTrace    *trace,
            const char *name,
            guint      *index)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      for (guint i = 0; i < s->n; i++)
        if (g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name) == 0)
          {
            *index = i;
            return lane;
          }
    }
  g_error ("no slice named %s", name);
  return NULL;
}

static CpLane *
find_lane (CpTrace    *trace,
           const char *name)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    if (g_strcmp0 (cp_lane_get_name (cp_trace_get_lane (trace, l)), name) == 0)
      return cp_trace_get_lane (trace, l);
  g_error ("no lane named %s", name);
  return NULL;
}

static const CpProcess *
find_process (CpTrace    *trace,
              const char *key)
{
  for (guint p = 0; p < cp_trace_get_n_processes (trace); p++)
    if (g_strcmp0 (cp_trace_get_string (trace, cp_trace_get_process (trace, p)->key), key) == 0)
      return cp_trace_get_process (trace, p);
  return NULL;
}

static JsonNode *
slice_args (CpTrace    *trace,
            CpLane     *lane,
            guint       index)
{
  CpSliceRef ref = { cp_lane_get_index (lane), index };
  CpArgsFormat format;
  const guint8 *data;
  gsize len;
  g_autoptr(JsonParser) parser = json_parser_new ();

  if (!cp_trace_get_args (trace, ref, &format, &data, &len))
    return NULL;
  g_assert_cmpint (format, ==, CP_ARGS_JSON);
  g_assert_true (json_parser_load_from_data (parser, (const char *) data, len, NULL));
  return json_node_copy (json_parser_get_root (parser));
}

static guint
count_flows (CpTrace    *trace,
             CpFlowKind  kind)
{
  guint n, count = 0;
  const CpFlow *flows = cp_trace_get_flows (trace, &n);

  for (guint i = 0; i < n; i++)
    if (flows[i].kind == kind)
      count++;
  return count;
}

static void
test_kineto (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("kineto-small.json");
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  const CpProcess *host, *gpu, *spans, *cupti;
  const CpSlices *s;
  const CpGpuInfo *info;
  const CpDevice *dev;
  const CpStep *steps;
  const CpInstant *instants;
  const CpFlow *flows;
  g_autoptr(JsonNode) args = NULL;
  CpLane *lane;
  guint i, n, n_flows;
  const gint64 *cts;
  const double *cvals;
  gboolean launch_found = FALSE;

  g_assert_cmpstr (r->format, ==, "chrome-json");
  g_assert_cmpuint (r->events, ==, 30);
  g_assert_cmpuint (r->by_phase['X'], ==, 13);
  g_assert_cmpuint (r->by_phase['M'], ==, 11);
  g_assert_false (r->truncated);
  g_assert_cmpuint (cp_load_report_n_warnings (r), ==, 0);

  /* baseTimeNanoseconds comes last: times stay exact and absolute. */
  g_assert_true (cp_trace_get_origin_is_epoch (trace));
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, G_GINT64_CONSTANT (1700000000000005000));
  g_assert_cmpint (cp_trace_get_duration (trace), ==, 110000);

  /* Processes: metadata after the events applied; GPU 1 has no events. */
  g_assert_cmpuint (cp_trace_get_n_processes (trace), ==, 5);
  host = find_process (trace, "100");
  gpu = find_process (trace, "0");
  spans = find_process (trace, "Spans");
  cupti = find_process (trace, "-1");
  g_assert_nonnull (host);
  g_assert_nonnull (gpu);
  g_assert_null (find_process (trace, "1"));
  g_assert_cmpstr (cp_trace_get_string (trace, host->name), ==, "python3");
  g_assert_cmpstr (cp_trace_get_string (trace, host->labels), ==, "CPU");
  g_assert_false (host->is_device);
  g_assert_cmpint (host->sort_index, ==, 100);
  g_assert_true (gpu->is_device);
  g_assert_cmpint (gpu->device, ==, 0);
  g_assert_cmpstr (cp_trace_get_string (trace, gpu->labels), ==, "GPU 0");
  g_assert_cmpint (gpu->sort_index, ==, 5000000);
  g_assert_true (spans->is_pseudo);
  g_assert_true (cupti->is_pseudo);
  g_assert_false (host->is_pseudo);

  /* Kernel: its lane, time, columns and zero-copy arguments. */
  lane = find_slice (trace, "ampere_sgemm_64x64_nn", &i);
  s = cp_lane_get_slices (lane);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_KERNEL);
  g_assert_cmpstr (cp_lane_get_name (lane), ==, "stream 7");
  g_assert_cmpint (cp_lane_get_device (lane), ==, 0);
  g_assert_cmpint (cp_lane_get_stream (lane), ==, 7);
  g_assert_cmpint (cp_slices_get_start (s, i), ==, 25000);
  g_assert_cmpint (cp_slices_get_dur (s, i), ==, 12345);
  g_assert_cmpint (cp_slices_get_corr (s, i), ==, 1001);
  g_assert_cmpint (cp_slices_get_ext (s, i), ==, 2);
  info = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (lane), i });
  g_assert_nonnull (info);
  g_assert_cmpint (info->device, ==, 0);
  g_assert_cmpint (info->stream, ==, 7);
  g_assert_cmpint (info->grid[0], ==, 4);
  g_assert_cmpint (info->grid[1], ==, 2);
  g_assert_cmpint (info->grid[2], ==, 1);
  g_assert_cmpint (info->block[0], ==, 256);
  g_assert_cmpint (info->registers, ==, 96);
  g_assert_cmpint (info->shared_mem, ==, 16384);
  g_assert_cmpfloat (info->blocks_per_sm, ==, 0.5f);
  g_assert_cmpfloat (info->warps_per_sm, ==, 4.25f);
  g_assert_cmpfloat (info->occupancy, ==, 12.0f);
  args = slice_args (trace, lane, i);
  g_assert_nonnull (args);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (args), "correlation"), ==, 1001);
  g_assert_true (json_object_has_member (json_node_get_object (args), "occupancy"));
  g_clear_pointer (&args, json_node_unref);

  /* Transfers: per direction, pageable/pinned read from the name. */
  lane = find_slice (trace, "Memcpy HtoD (Pageable -> Device)", &i);
  s = cp_lane_get_slices (lane);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_TRANSFER);
  g_assert_cmpint (cp_lane_get_transfer_kind (lane), ==, CP_TRANSFER_HTOD);
  g_assert_true (s->flags[i] & CP_SLICE_PAGEABLE);
  info = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (lane), i });
  g_assert_cmpint (info->bytes, ==, 4194304);
  lane = find_slice (trace, "Memcpy DtoH (Device -> Pinned)", &i);
  g_assert_cmpint (cp_lane_get_transfer_kind (lane), ==, CP_TRANSFER_DTOH);
  g_assert_true (cp_lane_get_slices (lane)->flags[i] & CP_SLICE_PINNED);
  lane = find_slice (trace, "Memset (Device)", &i);
  g_assert_cmpint (cp_lane_get_transfer_kind (lane), ==, CP_TRANSFER_MEMSET);
  lane = find_slice (trace, "forward", &i);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_DEVICE_ANNOTATION);
  g_assert_cmpint (cp_slices_get_start (cp_lane_get_slices (lane), i), ==, 24999);
  g_assert_cmpint (cp_slices_get_dur (cp_lane_get_slices (lane), i), ==, 34002);

  /* Syncs. */
  lane = find_slice (trace, "cudaDeviceSynchronize", &i);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_HOST_THREAD);
  g_assert_cmpstr (cp_lane_get_name (lane), ==, "thread 101 (python3)");
  g_assert_true (cp_lane_get_slices (lane)->flags[i] & CP_SLICE_SYNC);
  lane = find_slice (trace, "Stream Sync", &i);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_KERNEL);
  g_assert_cmpstr (cp_lane_get_name (lane), ==, "stream 7 (sync)");
  g_assert_true (cp_lane_get_slices (lane)->flags[i] & CP_SLICE_SYNC);

  /* Thread instant on its lane; global instant on the trace. */
  lane = find_slice (trace, "[memory]", &i);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_HOST_THREAD);
  g_assert_true (cp_lane_get_slices (lane)->flags[i] & CP_SLICE_INSTANT);
  g_assert_cmpint (cp_slices_get_dur (cp_lane_get_slices (lane), i), ==, 0);
  instants = cp_trace_get_instants (trace, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (instants[0].scope, ==, 'g');
  g_assert_cmpstr (cp_trace_get_string (trace, instants[0].name), ==, "Iteration Start: PyTorch Profiler");

  /* Flows: the ac2g pair and the correlation of the copy and the sync. */
  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, 3);
  for (guint k = 0; k < n_flows; k++)
    {
      g_assert_cmpint (flows[k].kind, ==, CP_FLOW_LAUNCH);
      if (g_strcmp0 (cp_trace_slice_name (trace, flows[k].to), "ampere_sgemm_64x64_nn") == 0)
        {
          g_assert_cmpstr (cp_trace_slice_name (trace, flows[k].from), ==, "cudaLaunchKernel");
          g_assert_cmpstr (cp_trace_get_string (trace, flows[k].name), ==, "ac2g");
          launch_found = TRUE;
        }
    }
  g_assert_true (launch_found);

  /* Steps, devices, counters, metadata. */
  steps = cp_trace_get_steps (trace, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (steps[0].number, ==, 7);
  g_assert_cmpint (steps[0].start, ==, 5000);
  g_assert_cmpint (steps[0].end, ==, 105000);
  g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 1);
  dev = cp_trace_get_device (trace, 0);
  g_assert_cmpstr (cp_trace_get_string (trace, dev->name), ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpstr (cp_trace_get_string (trace, dev->vendor), ==, "Nvidia");
  g_assert_cmpint (dev->num_sms, ==, 132);
  g_assert_cmpint (dev->compute_major, ==, 9);
  g_assert_cmpint (dev->total_memory, ==, G_GINT64_CONSTANT (85045329920));
  lane = find_lane (trace, "GPU Memory");
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_COUNTER);
  g_assert_cmpuint (cp_lane_get_counter (lane, &cts, &cvals), ==, 2);
  g_assert_cmpint (cts[0], ==, 15000);
  g_assert_cmpfloat (cvals[0], ==, 1024.0);
  g_assert_cmpfloat (cvals[1], ==, 2048.0);
  g_assert_cmpstr (cp_trace_lookup_metadata (trace, "schemaVersion"), ==, "1");
  g_assert_cmpstr (cp_trace_lookup_metadata (trace, "displayTimeUnit"), ==, "\"ms\"");
  g_assert_cmpstr (cp_trace_lookup_metadata (trace, "baseTimeNanoseconds"), ==, "1700000000000000000");
  g_assert_nonnull (strstr (cp_trace_lookup_metadata (trace, "distributedInfo"), "\"world_size\": 2"));
  g_assert_nonnull (strstr (cp_trace_lookup_metadata (trace, "deviceProperties"), "numSms"));
  g_assert_null (cp_trace_lookup_metadata (trace, "traceEvents"));
}

static void
test_kineto_2021 (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("kineto-2021.json");
  CpLane *lane;
  guint i;
  const CpGpuInfo *info;

  lane = find_slice (trace, "volta_scudnn_128x64_relu", &i);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_KERNEL);
  g_assert_cmpint (cp_lane_get_stream (lane), ==, 7);
  g_assert_cmpint (cp_lane_get_device (lane), ==, 0);
  g_assert_cmpint (cp_slices_get_ext (cp_lane_get_slices (lane), i), ==, 537);
  info = cp_trace_get_gpu_info (trace, (CpSliceRef) { cp_lane_get_index (lane), i });
  g_assert_cmpint (info->registers, ==, 128);
  lane = find_slice (trace, "Memcpy HtoD (Pageable -> Device)", &i);
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_TRANSFER);
  g_assert_cmpint (cp_lane_get_transfer_kind (lane), ==, CP_TRANSFER_HTOD);
  lane = find_slice (trace, "Memset (Device)", &i);
  g_assert_cmpint (cp_lane_get_transfer_kind (lane), ==, CP_TRANSFER_MEMSET);
  /* Numeric-string tids are the same thread as numeric ones. */
  lane = find_slice (trace, "aten::conv2d", &i);
  g_assert_cmpstr (cp_lane_get_name (lane), ==, "thread 25738 (python)");
  g_assert_cmpint (cp_lane_get_tid (lane), ==, 25738);
  /* The old "async"/"launch" flow links the launch to the kernel. */
  g_assert_cmpuint (count_flows (trace, CP_FLOW_LAUNCH), >=, 1);
  g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 1);
  g_assert_cmpint (cp_trace_get_device (trace, 0)->num_sms, ==, 80);
  g_assert_cmpint (cp_trace_get_device (trace, 0)->compute_major, ==, 7);
  g_assert_false (cp_trace_get_origin_is_epoch (trace));
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, G_GINT64_CONSTANT (1623142623460016000));
}

static void
test_phases (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("phases.json");
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  g_autoptr(JsonNode) args = NULL;
  const CpInstant *instants;
  const CpFlow *flows;
  const CpSlices *s;
  CpLane *lane;
  guint i, n, n_flows, generic = 0;
  const gint64 *cts;
  const double *cvals;
  gint64 origin = cp_trace_get_origin_abs (trace);

  g_assert_cmpuint (r->events, ==, 35);
  g_assert_cmpuint (r->unmatched_end, ==, 1);
  g_assert_cmpuint (r->unclosed_begin, ==, 1);
  /* The one P event is a CPU sample now, not an unknown phase. */
  g_assert_cmpuint (r->unknown_phase, ==, 0);
  g_assert_cmpuint (r->cpu_samples, ==, 1);
  g_assert_cmpuint (r->skipped, ==, 1);
  g_assert_cmpuint (r->by_phase['B'], ==, 3);
  g_assert_cmpuint (r->by_phase['E'], ==, 3);
  g_assert_cmpint (origin, ==, 100000);

  /* B/E nest per thread; E arguments are merged in. */
  lane = find_slice (trace, "outer", &i);
  s = cp_lane_get_slices (lane);
  g_assert_cmpstr (cp_lane_get_name (lane), ==, "CrBrowserMain");
  g_assert_cmpint (cp_slices_get_start (s, i) + origin, ==, 100000);
  g_assert_cmpint (cp_slices_get_dur (s, i), ==, 100000);
  g_assert_cmpuint (s->row[i], ==, 0);
  args = slice_args (trace, lane, i);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (args), "a"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (args), "b"), ==, 2);
  g_clear_pointer (&args, json_node_unref);
  lane = find_slice (trace, "inner", &i);
  s = cp_lane_get_slices (lane);
  g_assert_cmpint (cp_slices_get_dur (s, i), ==, 10000);
  g_assert_cmpuint (s->row[i], ==, 1);
  args = slice_args (trace, lane, i);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (args), "result"), ==, "ok");
  g_clear_pointer (&args, json_node_unref);

  /* An unclosed B ends with the trace and is flagged. */
  lane = find_slice (trace, "open", &i);
  s = cp_lane_get_slices (lane);
  g_assert_true (s->flags[i] & CP_SLICE_UNCLOSED);
  g_assert_cmpint (cp_slices_get_end (s, i), ==, cp_trace_get_duration (trace));

  /* Instants by scope. */
  lane = find_slice (trace, "t-instant", &i);
  g_assert_true (cp_lane_get_slices (lane)->flags[i] & CP_SLICE_INSTANT);
  lane = find_slice (trace, "mark", &i);
  g_assert_true (cp_lane_get_slices (lane)->flags[i] & CP_SLICE_INSTANT);
  instants = cp_trace_get_instants (trace, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (instants[0].scope, ==, 'p');
  g_assert_cmpint (instants[0].process, >=, 0);
  g_assert_cmpint (instants[1].scope, ==, 'g');
  g_assert_cmpint (instants[1].process, ==, -1);

  /* Counters: one lane per series, numeric strings accepted. */
  lane = find_lane (trace, "ctr dogs");
  g_assert_cmpuint (cp_lane_get_counter (lane, &cts, &cvals), ==, 2);
  g_assert_cmpfloat (cvals[0], ==, 2.5);
  g_assert_cmpfloat (cvals[1], ==, 4.0);
  lane = find_lane (trace, "ctr cats");
  g_assert_cmpuint (cp_lane_get_counter (lane, &cts, &cvals), ==, 2);

  /* Nestable async, with a legacy id and an id2. */
  lane = find_lane (trace, "load");
  g_assert_cmpint (cp_lane_get_kind (lane), ==, CP_LANE_ASYNC);
  s = cp_lane_get_slices (lane);
  g_assert_cmpuint (s->n, ==, 2);
  g_assert_cmpint (cp_slices_get_dur (s, 0), ==, 75000);
  g_assert_true (s->flags[1] & CP_SLICE_ASYNC_INSTANT);
  lane = find_lane (trace, "req");
  g_assert_cmpint (cp_slices_get_dur (cp_lane_get_slices (lane), 0), ==, 20000);

  /* Objects: N..D lifetime and an O snapshot. */
  lane = find_lane (trace, "obj");
  s = cp_lane_get_slices (lane);
  g_assert_cmpuint (s->n, ==, 2);
  g_assert_cmpint (cp_slices_get_dur (s, 0), ==, 2000);
  g_assert_true (s->flags[1] & CP_SLICE_ASYNC_INSTANT);

  /* Flows: s -> t -> f (f binds to the next slice), and a v2 pair. */
  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, 3);
  for (guint k = 0; k < n_flows; k++)
    {
      const char *from = cp_trace_slice_name (trace, flows[k].from);
      const char *to = cp_trace_slice_name (trace, flows[k].to);

      g_assert_cmpint (flows[k].kind, ==, CP_FLOW_GENERIC);
      generic++;
      if (g_strcmp0 (from, "inner") == 0)
        g_assert_cmpstr (to, ==, "work");
      else if (g_strcmp0 (from, "work") == 0)
        g_assert_cmpstr (to, ==, "late");
      else
        {
          g_assert_cmpstr (from, ==, "producer");
          g_assert_cmpstr (to, ==, "consumer");
        }
    }
  g_assert_cmpuint (generic, ==, 3);

  /* Odd ids and times. */
  lane = find_slice (trace, "big-tid", &i);
  g_assert_cmpint (cp_lane_get_tid (lane), ==, G_GINT64_CONSTANT (5000000000));
  g_assert_true (find_process (trace, "-1")->is_pseudo);
  g_assert_nonnull (find_process (trace, "browser"));
  g_assert_cmpint (find_process (trace, "browser")->pid, ==, CP_NONE);
  lane = find_slice (trace, "string-times", &i);
  g_assert_cmpint (cp_slices_get_start (cp_lane_get_slices (lane), i) + origin, ==, 432500);
  g_assert_cmpint (cp_slices_get_dur (cp_lane_get_slices (lane), i), ==, 250);
  lane = find_slice (trace, "exp-times", &i);
  g_assert_cmpint (cp_slices_get_start (cp_lane_get_slices (lane), i) + origin, ==, 433500);
  g_assert_cmpint (cp_slices_get_dur (cp_lane_get_slices (lane), i), ==, 1000);
  lane = find_slice (trace, "esc\xc3\xa9\xf0\x9f\x98\x80\"q\"", &i);
  g_assert_nonnull (lane);
}

static void
test_ns_precision (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("ns-precision.json");
  CpLane *lane = cp_trace_get_lane (trace, 0);
  const CpSlices *s = cp_lane_get_slices (lane);
  gint64 origin = cp_trace_get_origin_abs (trace);

  g_assert_cmpuint (s->n, ==, 3);
  /* 16-digit microseconds keep their nanoseconds (a double would not). */
  g_assert_cmpint (origin + cp_slices_get_start (s, 0), ==, G_GINT64_CONSTANT (1623142623460111123));
  g_assert_cmpint (cp_slices_get_dur (s, 0), ==, 1);
  g_assert_cmpint (origin + cp_slices_get_start (s, 1), ==, G_GINT64_CONSTANT (1623142623460111124));
  g_assert_cmpint (cp_slices_get_dur (s, 1), ==, 1999);
  g_assert_cmpint (origin + cp_slices_get_start (s, 2), ==, G_GINT64_CONSTANT (1623142623460112457));
  g_assert_cmpint (cp_slices_get_dur (s, 2), ==, 2000);
}

static void
test_truncated (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("truncated.pt.trace.json.tmp");
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  g_autofree char *path = fixture ("truncated.pt.trace.json.tmp");
  g_autofree char *text = NULL;
  gsize len;
  const char *last;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_assert_true (r->truncated);
  /* Stopped after the last complete event: the '}' of the ac2g flow start. */
  last = g_strrstr (text, "},");
  g_assert_nonnull (last);
  g_assert_cmpuint (r->stopped_at, ==, (guint64) (last - text) + 1);
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 3);
  g_assert_cmpuint (cp_load_report_n_warnings (r), >=, 1);
  g_assert_cmpuint (cp_load_report_get_warning (r, 0)->offset, ==, r->stopped_at);
  /* deviceProperties came before the events and was kept. */
  g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 1);
}

static void
test_tolerance (void)
{
  g_autoptr(CpTrace) open = load_fixture ("array-open.json");
  g_autoptr(CpTrace) commas = load_fixture ("trailing-commas.json");

  /* A missing ']' is allowed by the array format: not a truncation. */
  g_assert_cmpuint (cp_trace_get_n_slices (open), ==, 2);
  g_assert_false (cp_trace_get_load_report (open)->truncated);
  g_assert_cmpuint (cp_trace_get_n_slices (commas), ==, 2);
  g_assert_cmpuint (cp_trace_get_load_report (commas)->events, ==, 2);
  g_assert_nonnull (cp_trace_lookup_metadata (commas, "otherData"));
}

static void
test_unescaped_quotes (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("unescaped-quotes.json");
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  guint i;

  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 2);
  g_assert_nonnull (find_slice (trace, "torch/nn/modules/module.py(1501): _call_impl\"wrapper\"", &i));
  g_assert_false (r->truncated);
  g_assert_cmpuint (cp_load_report_n_warnings (r), ==, 1);
  g_assert_nonnull (strstr (cp_load_report_get_warning (r, 0)->message, "unescaped quotes"));
}

/* Keys that begin like the ones the reader matches whole ("tids" after
 * "tid", "External idx" after "External id") and an escaped "ts" are
 * other keys: they must not set the fields. */
static void
test_look_alike_keys (void)
{
  const char *json =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"name\":\"first\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":1},\n"
    "{\"phase\":\"B\",\"ph\":\"X\",\"names\":\"wrong\",\"name\":\"second\",\"pids\":7,\"pid\":1,"
    "\"tids\":99,\"tid\":2,\"ts\":30,\"ts2\":900,\"t\\u0073\":999,\"durs\":1000,\"dur\":5,\"cats\":\"x\","
    "\"args\":{\"External idx\":7,\"External id\":3,\"correlations\":9,\"correlation\":4,"
    "\"devices\":5,\"streams\":6}},\n"
    "{\"ph\":\"X\",\"name\":\"third\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":1}\n"
    "]}\n";
  g_autofree char *dir = g_dir_make_tmp ("cp-keys-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "keys.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  const CpSlices *s;
  CpLane *lane;
  guint a, b;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  trace = load_path (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 3);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 1);
  lane = find_slice (trace, "first", &a);
  g_assert_true (find_slice (trace, "second", &b) == lane);
  s = cp_lane_get_slices (lane);
  g_assert_cmpint (cp_lane_get_tid (lane), ==, 2);
  g_assert_cmpint (cp_slices_get_start (s, b) - cp_slices_get_start (s, a), ==, 20000);
  g_assert_cmpint (cp_slices_get_dur (s, b), ==, 5000);
  g_assert_cmpint (cp_slices_get_ext (s, b), ==, 3);
  g_assert_cmpint (cp_slices_get_corr (s, b), ==, 4);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_cloud_trace (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("cloud-trace.json");
  CpLane *lane;
  guint i;
  g_autoptr(JsonNode) args = NULL;

  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 2);
  g_assert_true (cp_trace_get_origin_is_epoch (trace));
  /* 2015-09-03T16:40:00Z is 1441298400 s after the epoch. */
  g_assert_cmpint (cp_trace_get_origin_abs (trace), ==, G_GINT64_CONSTANT (1441298400841654024));
  lane = find_slice (trace, "/action1", &i);
  g_assert_cmpint (cp_slices_get_start (cp_lane_get_slices (lane), i), ==, 1226004);
  g_assert_cmpint (cp_slices_get_dur (cp_lane_get_slices (lane), i), ==, 8849510);
  g_assert_cmpuint (cp_lane_get_slices (lane)->row[i], ==, 1);
  lane = find_slice (trace, "/endpoint", &i);
  args = slice_args (trace, lane, i);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (args), "key1"), ==, "value1");
}

static void
test_not_a_trace (void)
{
  static const struct { const char *name; int code; const char *says; } cases[] = {
    { "empty.json", CP_TRACE_ERROR_EMPTY, "is empty" },
    { "blank.json", CP_TRACE_ERROR_NOT_A_TRACE, "blank" },
    { "empty-object.json", CP_TRACE_ERROR_NOT_A_TRACE, "empty JSON object" },
    { "rocprof.json", CP_TRACE_ERROR_NOT_A_TRACE, "rocprofiler" },
    { "execution-trace.json", CP_TRACE_ERROR_NOT_A_TRACE, "execution trace" },
    { "memory-timeline.json", CP_TRACE_ERROR_NOT_A_TRACE, "memory timeline" },
    { "page.html", CP_TRACE_ERROR_NOT_A_TRACE, "HTML" },
    { "garbage.json", CP_TRACE_ERROR_DAMAGED, "byte 29" },
    { "scalar.json", CP_TRACE_ERROR_NOT_A_TRACE, "single JSON value" },
  };
  g_autofree char *dir = cp_test_make_tmpdir ();
  guint8 binary[600];

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = fixture (cases[i].name);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = load_path (path, &error);

      g_test_message ("%s: %s", cases[i].name, error ? error->message : "(loaded)");
      g_assert_null (trace);
      g_assert_error (error, CP_TRACE_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, cases[i].says));
      g_assert_nonnull (strstr (error->message, cases[i].name));
    }

  /* Binary data, a missing file, a folder. */
  for (guint i = 0; i < sizeof binary; i++)
    binary[i] = (guint8) (i * 7 + (i >> 3));
  binary[0] = 0x03;
  {
    g_autofree char *path = cp_test_write_file (dir, "weights.bin", binary, sizeof binary);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (path, &error);

    g_assert_null (trace);
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE);
    g_assert_nonnull (strstr (error->message, "binary"));
    g_assert_nonnull (strstr (error->message, "weights.bin"));
  }
  {
    g_autofree char *path = g_build_filename (dir, "missing.json", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (path, &error);

    g_assert_null (trace);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_assert_nonnull (strstr (error->message, "missing.json"));
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (dir, &error);

    g_assert_null (trace);
    /* Folders are profile folders (the XPlane reader's); an empty one is refused. */
    g_assert_nonnull (error);
    g_assert_true (error->domain == CP_TRACE_ERROR);
    g_assert_nonnull (strstr (error->message, "folder"));
  }
  cp_test_rm_rf (dir);
}

/* A text digest of everything a trace holds, to compare two loads. */
static char *
digest (CpTrace *trace,
        gboolean with_args)
{
  GString *out = g_string_new (NULL);
  guint n;
  const CpFlow *flows = cp_trace_get_flows (trace, &n);
  const CpInstant *instants;

  g_string_append_printf (out, "origin %" G_GINT64_FORMAT " dur %" G_GINT64_FORMAT "\n",
                          cp_trace_get_origin_abs (trace), cp_trace_get_duration (trace));
  for (guint p = 0; p < cp_trace_get_n_processes (trace); p++)
    {
      const CpProcess *proc = cp_trace_get_process (trace, p);

      g_string_append_printf (out, "process %s %s %s dev %d %d %d sort %" G_GINT64_FORMAT "\n",
                              cp_trace_get_string (trace, proc->key),
                              cp_trace_get_string (trace, proc->name),
                              cp_trace_get_string (trace, proc->labels),
                              proc->device, proc->is_device, proc->is_pseudo, proc->sort_index);
    }
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);
      const gint64 *ts;
      const double *v;
      guint nc = cp_lane_get_counter (lane, &ts, &v);

      g_string_append_printf (out, "lane %s kind %d proc %u dev %d\n", cp_lane_get_name (lane),
                              cp_lane_get_kind (lane), cp_lane_get_process (lane), cp_lane_get_device (lane));
      for (guint i = 0; i < s->n; i++)
        {
          g_string_append_printf (out, "  %" G_GINT64_FORMAT "+%" G_GINT64_FORMAT " %s/%s f%x r%u c%" G_GINT64_FORMAT
                                  " e%" G_GINT64_FORMAT,
                                  cp_slices_get_start (s, i), cp_slices_get_dur (s, i), cp_trace_get_string (trace, cp_slices_get_name (s, i)),
                                  cp_trace_get_string (trace, cp_slices_get_cat (s, i)), s->flags[i], s->row[i],
                                  cp_slices_get_corr (s, i), cp_slices_get_ext (s, i));
          {
            CpSliceRef ref = { l, i };
            const CpGpuInfo *g = cp_trace_get_gpu_info (trace, ref);

            if (g != NULL)
              g_string_append_printf (out, " gpu %" G_GINT64_FORMAT " d%d s%d g%d,%d,%d b%d,%d,%d r%d m%d %g %g %g",
                                      g->bytes, g->device, g->stream, g->grid[0], g->grid[1], g->grid[2],
                                      g->block[0], g->block[1], g->block[2], g->registers, g->shared_mem,
                                      g->blocks_per_sm, g->warps_per_sm, g->occupancy);
          }
          if (with_args)
            {
              CpSliceRef ref = { l, i };
              CpArgsFormat format;
              const guint8 *data;
              gsize len;

              if (cp_trace_get_args (trace, ref, &format, &data, &len))
                g_string_append_printf (out, " %.*s", (int) len, (const char *) data);
            }
          g_string_append_c (out, '\n');
        }
      for (guint i = 0; i < nc; i++)
        g_string_append_printf (out, "  c %" G_GINT64_FORMAT " %g\n", ts[i], v[i]);
    }
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "flow %u:%u -> %u:%u %d\n", flows[i].from.lane, flows[i].from.index,
                            flows[i].to.lane, flows[i].to.index, flows[i].kind);
  instants = cp_trace_get_instants (trace, &n);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "instant %" G_GINT64_FORMAT " %s %c\n", instants[i].ts,
                            cp_trace_get_string (trace, instants[i].name), instants[i].scope);
  {
    const CpLoadReport *r = cp_trace_get_load_report (trace);

    g_string_append_printf (out, "events %" G_GUINT64_FORMAT " skipped %" G_GUINT64_FORMAT
                            " unknown %" G_GUINT64_FORMAT " unmatched %" G_GUINT64_FORMAT
                            " unclosed %" G_GUINT64_FORMAT " truncated %d\n",
                            r->events, r->skipped, r->unknown_phase, r->unmatched_end,
                            r->unclosed_begin, r->truncated);
    for (guint c = 0; c < 128; c++)
      if (r->by_phase[c] > 0)
        g_string_append_printf (out, "phase %u %" G_GUINT64_FORMAT "\n", c, r->by_phase[c]);
    for (guint i = 0; i < cp_load_report_n_warnings (r); i++)
      {
        const CpLoadWarning *w = cp_load_report_get_warning (r, i);

        g_string_append_printf (out, "warning %" G_GUINT64_FORMAT " %s\n", w->offset, w->message);
      }
  }
  return g_string_free (out, FALSE);
}

/* Reads a file through the reader in chunks of the given size, without the
 * mapping (the path compressed input takes). */
static CpTrace *
read_in_chunks (const char *path,
                gsize       chunk)
{
  g_autofree char *text = NULL;
  gsize len;
  CpTraceBuilder *builder = cp_trace_builder_new ();
  g_autoptr(CpChromeReader) reader = cp_chrome_reader_new (builder, NULL, path);
  g_autoptr(GError) error = NULL;
  CpTrace *trace;

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  for (gsize off = 0; off < len; off += chunk)
    {
      g_autofree char *piece = g_memdup2 (text + off, MIN (chunk, len - off));

      if (!cp_chrome_reader_feed (reader, piece, MIN (chunk, len - off), &error))
        break;
    }
  g_assert_no_error (error);
  g_assert_true (cp_chrome_reader_finish (reader, &error));
  g_assert_no_error (error);
  trace = cp_trace_builder_finish (builder, &error);
  g_assert_no_error (error);
  return trace;
}

static void
test_chunking (void)
{
  static const char *names[] = {
    "kineto-small.json", "kineto-2021.json", "phases.json", "ns-precision.json",
    "trailing-commas.json", "array-open.json", "unescaped-quotes.json", "direct-edge.json",
  };

  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *path = fixture (names[k]);
      g_autoptr(CpTrace) mapped = load_fixture (names[k]);
      g_autofree char *want = digest (mapped, TRUE);
      static const gsize sizes[] = { 1, 2, 3, 7, 64, 1000, 1 << 20 };

      for (guint c = 0; c < G_N_ELEMENTS (sizes); c++)
        {
          g_autoptr(CpTrace) chunked = read_in_chunks (path, sizes[c]);
          g_autofree char *got = digest (chunked, TRUE);

          g_test_message ("%s in chunks of %" G_GSIZE_FORMAT, names[k], sizes[c]);
          g_assert_cmpstr (got, ==, want);
        }
    }
}

static GBytes *
gzip_bytes (const guint8 *data,
            gsize         len)
{
  z_stream zs = { 0 };
  gsize cap = compressBound (len) + 64;
  guint8 *out = g_malloc (cap);

  g_assert_cmpint (deflateInit2 (&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  zs.next_in = (guint8 *) data;
  zs.avail_in = len;
  zs.next_out = out;
  zs.avail_out = cap;
  g_assert_cmpint (deflate (&zs, Z_FINISH), ==, Z_STREAM_END);
  deflateEnd (&zs);
  return g_bytes_new_take (out, zs.total_out);
}

static GBytes *
zstd_bytes (const guint8 *data,
            gsize         len,
            int           level)
{
  gsize cap = ZSTD_compressBound (len);
  guint8 *out = g_malloc (cap);
  gsize n = ZSTD_compress (out, cap, data, len, level);

  g_assert_false (ZSTD_isError (n));
  return g_bytes_new_take (out, n);
}

static char *
write_bytes (const char *dir,
             const char *name,
             GBytes     *a,
             GBytes     *b)
{
  g_autoptr(GByteArray) all = g_byte_array_new ();

  g_byte_array_append (all, g_bytes_get_data (a, NULL), g_bytes_get_size (a));
  if (b)
    g_byte_array_append (all, g_bytes_get_data (b, NULL), g_bytes_get_size (b));
  return cp_test_write_file (dir, name, all->data, all->len);
}

static void
test_compressed (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = fixture ("kineto-small.json");
  g_autofree char *text = NULL;
  gsize len, half;
  g_autoptr(CpTrace) plain = load_fixture ("kineto-small.json");
  g_autofree char *want = digest (plain, TRUE);
  struct { const char *name; const char *format; GBytes *a; GBytes *b; } files[4];

  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  half = len / 2;
  files[0] = (typeof (files[0])) { "t.json.gz", "chrome-json+gzip", gzip_bytes ((guint8 *) text, len), NULL };
  files[1] = (typeof (files[0])) { "t.json.zst", "chrome-json+zstd", zstd_bytes ((guint8 *) text, len, 3), NULL };
  /* Concatenated gzip members and several zstd frames, split mid-token. */
  files[2] = (typeof (files[0])) { "members.gz", "chrome-json+gzip",
                                   gzip_bytes ((guint8 *) text, half), gzip_bytes ((guint8 *) text + half, len - half) };
  files[3] = (typeof (files[0])) { "frames.zst", "chrome-json+zstd",
                                   zstd_bytes ((guint8 *) text, half, 1), zstd_bytes ((guint8 *) text + half, len - half, 19) };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *p = write_bytes (dir, files[i].name, files[i].a, files[i].b);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = load_path (p, &error);
      g_autofree char *got = NULL;

      g_test_message ("%s", files[i].name);
      g_assert_no_error (error);
      g_assert_cmpstr (cp_trace_get_load_report (trace)->format, ==, files[i].format);
      g_assert_cmpuint (cp_trace_get_load_report (trace)->input_bytes, ==, len);
      got = digest (trace, TRUE);
      g_assert_cmpstr (got, ==, want);
      g_bytes_unref (files[i].a);
      g_clear_pointer (&files[i].b, g_bytes_unref);
    }
  cp_test_rm_rf (dir);
}

/* The chunks of a compressed file read whole, with the inflating thread
 * (as by default on two cores) or without it (CHOKEPOINT_THREADS=1);
 * error: the read's error, if any. */
static GByteArray *
read_all (const char  *path,
          gboolean     ahead,
          guint64     *consumed,
          GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *saved = g_strdup (g_getenv ("CHOKEPOINT_THREADS"));
  g_autoptr(CpSource) source = NULL;
  GByteArray *out = g_byte_array_new ();

  if (ahead)
    g_unsetenv ("CHOKEPOINT_THREADS");
  else
    g_setenv ("CHOKEPOINT_THREADS", "1", TRUE);
  source = cp_source_open (file, NULL, error);
  if (saved != NULL)
    g_setenv ("CHOKEPOINT_THREADS", saved, TRUE);
  else
    g_unsetenv ("CHOKEPOINT_THREADS");
  g_assert_nonnull (source);
  for (;;)
    {
      g_autoptr(GBytes) chunk = cp_source_read (source, NULL, error);

      if (chunk == NULL)
        break;
      g_byte_array_append (out, g_bytes_get_data (chunk, NULL), (guint) g_bytes_get_size (chunk));
      g_assert_cmpuint (cp_source_get_produced (source), ==, out->len);
    }
  *consumed = cp_source_get_consumed (source);
  return out;
}

/* Inflating ahead on a thread gives the same bytes, counters and errors as
 * inflating on the reading thread, for gzip and zstd, whole and cut; a
 * source let go mid-read stops its thread. */
static void
test_inflate_ahead (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(GString) big = g_string_new ("{\"traceEvents\": [\n");
  GBytes *packed[2];

  /* About 12 MB of text: a dozen chunks and more than READ_AHEAD. */
  for (guint i = 0; big->len < 12u << 20; i++)
    g_string_append_printf (big, "{\"ph\": \"X\", \"name\": \"op%u\", \"pid\": 1, \"tid\": %u, \"ts\": %u, \"dur\": %u},\n",
                            i % 977, i % 5, i * 3, i % 17);
  g_string_append (big, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 1}]}");
  packed[0] = gzip_bytes ((guint8 *) big->str, big->len);
  packed[1] = zstd_bytes ((guint8 *) big->str, big->len, 3);

  for (guint k = 0; k < 2; k++)
    for (guint cut = 0; cut < 2; cut++)
      {
        g_autoptr(GBytes) data = cut ? g_bytes_new_from_bytes (packed[k], 0, g_bytes_get_size (packed[k]) / 2)
                                     : g_bytes_ref (packed[k]);
        g_autofree char *name = g_strdup_printf ("big%u%s", cut, k == 0 ? ".json.gz" : ".json.zst");
        g_autofree char *path = write_bytes (dir, name, data, NULL);
        g_autoptr(GError) e1 = NULL, e2 = NULL;
        guint64 c1 = 0, c2 = 0;
        g_autoptr(GByteArray) one = read_all (path, FALSE, &c1, &e1);
        g_autoptr(GByteArray) two = read_all (path, TRUE, &c2, &e2);

        g_test_message ("%s", name);
        g_assert_cmpuint (one->len, ==, two->len);
        g_assert_cmpmem (one->data, one->len, two->data, two->len);
        g_assert_cmpuint (c1, ==, c2);
        if (cut)
          {
            g_assert_nonnull (e1);
            g_assert_nonnull (e2);
            g_assert_cmpstr (e1->message, ==, e2->message);
            g_assert_cmpuint (one->len, <, big->len);
          }
        else
          {
            g_assert_no_error (e1);
            g_assert_no_error (e2);
            g_assert_cmpuint (two->len, ==, big->len);
            g_assert_cmpmem (two->data, two->len, big->str, big->len);
            g_assert_cmpuint (c2, ==, g_bytes_get_size (data));
          }
      }

  /* Let go after one chunk: the thread stops (ASan and the suite's time
   * would tell otherwise). */
  {
    g_autofree char *path = write_bytes (dir, "early.json.gz", packed[0], NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autoptr(GError) error = NULL;
    CpSource *source = cp_source_open (file, NULL, &error);
    g_autoptr(GBytes) first = NULL, second = NULL;

    g_assert_no_error (error);
    first = cp_source_read (source, NULL, &error);
    second = cp_source_read (source, NULL, &error);
    g_assert_nonnull (second);
    cp_source_free (source);
  }
  g_bytes_unref (packed[0]);
  g_bytes_unref (packed[1]);
  cp_test_rm_rf (dir);
}

static void
test_compressed_damage (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(GString) big = g_string_new ("{\"traceEvents\": [\n");
  g_autoptr(GBytes) gz = NULL;
  g_autoptr(GBytes) zs = NULL;
  gsize n;
  const guint8 *d;

  /* Enough events that a cut file still holds many complete ones. */
  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, "{\"ph\": \"X\", \"name\": \"op%u\", \"pid\": 1, \"tid\": %u, \"ts\": %u.%03u, \"dur\": 1.5},\n",
                            i % 97, i % 3, i * 7, i % 1000);
  g_string_append (big, "{\"ph\": \"X\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}");
  gz = gzip_bytes ((guint8 *) big->str, big->len);
  zs = zstd_bytes ((guint8 *) big->str, big->len, 3);

  /* Cut in the middle: every complete event before the cut loads. */
  {
    g_autoptr(GBytes) cut = g_bytes_new_from_bytes (gz, 0, g_bytes_get_size (gz) * 2 / 3);
    g_autofree char *p = write_bytes (dir, "cut.json.gz", cut, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (p, &error);
    const CpLoadReport *r;

    g_assert_no_error (error);
    r = cp_trace_get_load_report (trace);
    g_assert_true (r->truncated);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), >, 1000);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), <, 20001);
    g_assert_nonnull (strstr (cp_load_report_get_warning (r, 0)->message, "truncated"));
  }
  {
    g_autoptr(GBytes) cut = g_bytes_new_from_bytes (zs, 0, g_bytes_get_size (zs) / 2);
    g_autofree char *p = write_bytes (dir, "cut.json.zst", cut, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (p, &error);

    g_assert_no_error (error);
    g_assert_true (cp_trace_get_load_report (trace)->truncated);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), >, 100);
  }
  /* Corrupted bytes in the middle of the deflate stream. */
  {
    g_autofree guint8 *bad = NULL;
    g_autoptr(GBytes) b = NULL;
    g_autofree char *p = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    d = g_bytes_get_data (gz, &n);
    bad = g_memdup2 (d, n);
    for (gsize k = n / 2; k < n / 2 + 64; k++)
      bad[k] ^= 0x5a;
    b = g_bytes_new (bad, n);
    p = write_bytes (dir, "bad.json.gz", b, NULL);
    trace = load_path (p, &error);
    if (trace != NULL)
      g_assert_true (cp_trace_get_load_report (trace)->truncated);
    else
      g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
  }
  /* A damaged header: nothing to read. */
  {
    d = g_bytes_get_data (zs, &n);
    {
      guint8 head[16];
      g_autoptr(GBytes) b = NULL;
      g_autofree char *p = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;

      memcpy (head, d, 4);
      memset (head + 4, 0xff, sizeof head - 4);
      b = g_bytes_new (head, sizeof head);
      p = write_bytes (dir, "head.json.zst", b, NULL);
      trace = load_path (p, &error);
      g_assert_null (trace);
      g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
      g_assert_nonnull (strstr (error->message, "head.json.zst"));
    }
  }
  /* Bytes after the gzip stream are ignored with a warning. */
  {
    g_autoptr(GBytes) tail = g_bytes_new_static ("garbage!", 8);
    g_autofree char *p = write_bytes (dir, "tail.json.gz", gz, tail);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (p, &error);
    const CpLoadReport *r;
    gboolean found = FALSE;

    g_assert_no_error (error);
    r = cp_trace_get_load_report (trace);
    g_assert_false (r->truncated);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 20001);
    for (guint i = 0; i < cp_load_report_n_warnings (r); i++)
      found |= strstr (cp_load_report_get_warning (r, i)->message, "after the end of the gzip") != NULL;
    g_assert_true (found);
  }
  cp_test_rm_rf (dir);
}

static void
test_bomb (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  gsize len = 48 * 1024 * 1024;
  g_autofree char *text = g_malloc (len);
  g_autoptr(GBytes) zs = NULL;
  g_autofree char *p = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;

  /* 48 MiB of blanks inside an event array: a tiny zstd file. */
  memset (text, ' ', len);
  memcpy (text, "{\"traceEvents\": [", 17);
  memcpy (text + len - 2, "]}", 2);
  zs = zstd_bytes ((guint8 *) text, len, 1);
  g_assert_cmpuint (g_bytes_get_size (zs) * CP_SOURCE_MAX_RATIO, <, len);
  p = write_bytes (dir, "bomb.json.zst", zs, NULL);
  trace = load_path (p, &error);
  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "1000 times"));
  g_assert_nonnull (strstr (error->message, "bomb.json.zst"));
  cp_test_rm_rf (dir);
}

static void
test_source (void)
{
  static const struct { const char *name; CpContentKind kind; } cases[] = {
    { "kineto-small.json", CP_CONTENT_JSON_OBJECT },
    { "phases.json", CP_CONTENT_JSON_ARRAY },
    { "empty.json", CP_CONTENT_EMPTY },
    { "page.html", CP_CONTENT_UNKNOWN },
  };
  static const guint8 xspace[] = { 0x0a, 0x05, 0x12, 0x03, 'c', 'p', 'u' };
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = fixture (cases[i].name);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpSource) source = cp_source_open (file, NULL, &error);
      guint64 total = 0;

      g_assert_no_error (error);
      g_assert_cmpint (cp_source_get_content_kind (source), ==, cases[i].kind);
      g_assert_cmpint (cp_source_get_compression (source), ==, CP_COMPRESSION_NONE);
      if (cp_source_get_file_size (source) > 0)
        g_assert_nonnull (cp_source_get_mapped (source));
      for (;;)
        {
          g_autoptr(GBytes) chunk = cp_source_read (source, NULL, &error);

          g_assert_no_error (error);
          if (chunk == NULL)
            break;
          total += g_bytes_get_size (chunk);
        }
      g_assert_cmpuint (total, ==, cp_source_get_file_size (source));
      g_assert_cmpuint (cp_source_get_consumed (source), ==, total);
    }

  {
    g_autofree char *path = cp_test_write_file (dir, "host.xplane.pb", xspace, sizeof xspace);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autoptr(CpSource) source = cp_source_open (file, NULL, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    g_assert_cmpint (cp_source_get_content_kind (source), ==, CP_CONTENT_XPLANE);
    (void) trace;
    (void) error;
  }
  cp_test_rm_rf (dir);
}

static void
test_transfer_names (void)
{
  static const struct { const char *name; CpTransferKind kind; guint16 flags; } cases[] = {
    { "Memcpy HtoD (Pageable -> Device)", CP_TRANSFER_HTOD, CP_SLICE_PAGEABLE },
    { "Memcpy HtoD (Pinned -> Device)", CP_TRANSFER_HTOD, CP_SLICE_PINNED },
    { "Memcpy DtoH (Device -> Pageable)", CP_TRANSFER_DTOH, CP_SLICE_PAGEABLE },
    { "Memcpy DtoD (Device -> Device)", CP_TRANSFER_DTOD, 0 },
    { "Memcpy PtoP (Device -> Device)", CP_TRANSFER_PTOP, 0 },
    { "Memcpy HtoH (Pinned -> Pinned)", CP_TRANSFER_OTHER, CP_SLICE_PINNED },
    { "Memcpy AtoD (Array -> Device)", CP_TRANSFER_OTHER, 0 },
    { "Memset (Device)", CP_TRANSFER_MEMSET, 0 },
    { "hipMemcpyAsync", CP_TRANSFER_OTHER, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint16 flags;

      g_assert_cmpint (cp_chrome_transfer_kind (cases[i].name, &flags), ==, cases[i].kind);
      g_assert_cmpuint (flags, ==, cases[i].flags);
    }
}

/* Asynchronous loading: progress on the caller's context, then the trace;
 * cancellation frees everything and says so. */
typedef struct
{
  GMainLoop    *loop;
  CpTrace      *trace;
  GError       *error;
  guint         progress_calls;
  guint64       last_done;
  gboolean      destroyed;
  GCancellable *cancel_on_progress;
} AsyncState;

static void
on_progress (guint64  done,
             guint64  total,
             gpointer data)
{
  AsyncState *s = data;

  g_assert_cmpuint (done, <=, total);
  g_assert_cmpuint (done, >=, s->last_done);
  s->last_done = done;
  s->progress_calls++;
  if (s->cancel_on_progress)
    g_cancellable_cancel (s->cancel_on_progress);
}

static void
on_destroy (gpointer data)
{
  AsyncState *s = data;

  s->destroyed = TRUE;
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  AsyncState *s = data;

  s->trace = cp_load_file_finish (result, &s->error);
  g_main_loop_quit (s->loop);
}

static char *
write_big (const char *dir)
{
  g_autoptr(GString) big = g_string_new ("[\n");

  for (guint i = 0; i < 200000; i++)
    g_string_append_printf (big, "{\"ph\": \"X\", \"name\": \"op%u\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 2, "
                                 "\"ts\": %u.500, \"dur\": 0.25, \"args\": {\"External id\": %u}},\n", i % 50, i, i);
  g_string_append (big, "{\"ph\": \"X\", \"name\": \"end\", \"pid\": 1, \"tid\": 2, \"ts\": 1, \"dur\": 1}]\n");
  return cp_test_write_file (dir, "big.json", big->str, big->len);
}

static void
test_async (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = write_big (dir);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  AsyncState s = { 0 };

  s.loop = g_main_loop_new (NULL, FALSE);
  cp_load_file_async (file, NULL, on_progress, &s, on_destroy, on_loaded, &s);
  g_main_loop_run (s.loop);
  g_assert_no_error (s.error);
  g_assert_nonnull (s.trace);
  g_assert_cmpuint (cp_trace_get_n_slices (s.trace), ==, 200001);
  g_clear_object (&s.trace);
  /* The progress data is released on this context. */
  while (!s.destroyed)
    g_main_context_iteration (NULL, TRUE);

  /* Cancelled from the first progress report. */
  g_main_loop_unref (s.loop);
  memset (&s, 0, sizeof s);
  s.loop = g_main_loop_new (NULL, FALSE);
  s.cancel_on_progress = g_cancellable_new ();
  cp_load_file_async (file, s.cancel_on_progress, on_progress, &s, on_destroy, on_loaded, &s);
  g_main_loop_run (s.loop);
  /* The worker may finish before the main loop sees the first report. */
  if (s.trace == NULL)
    g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&s.error);
  g_clear_object (&s.trace);
  while (!s.destroyed)
    g_main_context_iteration (NULL, TRUE);
  g_object_unref (s.cancel_on_progress);
  g_main_loop_unref (s.loop);

  /* Cancelled from a progress report of a blocking load: deterministic. */
  {
    AsyncState st = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    st.cancel_on_progress = g_cancellable_new ();
    trace = cp_load_file (file, st.cancel_on_progress, on_progress, &st, &error);
    g_assert_null (trace);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_cmpuint (st.progress_calls, ==, 1);
    g_object_unref (st.cancel_on_progress);
  }

  /* Cancelled before it starts. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    g_cancellable_cancel (cancellable);
    trace = cp_load_file (file, cancellable, NULL, NULL, &error);
    g_assert_null (trace);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }
  cp_test_rm_rf (dir);
}

/* A DevTools performance export that holds only a sampled CPU profile
 * (Profile and ProfileChunk events): one flame-chart lane for the thread,
 * consecutive equal frames merged, the (root) node left out, an (idle)
 * sample closing every frame. Known truth (samples every 10 µs): main
 * [0, 40), work [10, 30) under it, then after the idle sample main and an
 * anonymous function [50, 70); 6 samples with a stack, 60 µs of CPU. */
static void
test_cpu_profile (void)
{
  g_autoptr(CpTrace) trace = load_fixture ("devtools-cpu-profile.json");
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  CpLane *lane = find_lane (trace, "CPU samples, thread 1");
  const CpSlices *s = cp_lane_get_slices (lane);
  const char *want_names[] = { "main", "work", "main", "(anonymous)" };
  const gint64 want_start[] = { 0, 10, 50, 50 };
  const gint64 want_dur[] = { 40, 20, 20, 20 };
  const guint want_row[] = { 0, 1, 0, 1 };
  gint64 t0;

  g_assert_cmpuint (s->n, ==, 4);
  t0 = cp_slices_get_start (s, 0);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (s, i)), ==, want_names[i]);
      g_assert_cmpint (cp_slices_get_start (s, i) - t0, ==, want_start[i] * 1000);
      g_assert_cmpint (cp_slices_get_dur (s, i), ==, want_dur[i] * 1000);
      g_assert_cmpuint (s->row[i], ==, want_row[i]);
    }
  g_assert_cmpuint (r->cpu_samples, ==, 6);
  g_assert_cmpuint (r->cpu_sample_threads, ==, 1);
  g_assert_cmpint (r->cpu_sample_time, ==, 60000);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chrome/kineto", test_kineto);
  g_test_add_func ("/chrome/kineto-2021", test_kineto_2021);
  g_test_add_func ("/chrome/phases", test_phases);
  g_test_add_func ("/chrome/ns-precision", test_ns_precision);
  g_test_add_func ("/chrome/truncated", test_truncated);
  g_test_add_func ("/chrome/tolerance", test_tolerance);
  g_test_add_func ("/chrome/unescaped-quotes", test_unescaped_quotes);
  g_test_add_func ("/chrome/look-alike-keys", test_look_alike_keys);
  g_test_add_func ("/chrome/cloud-trace", test_cloud_trace);
  g_test_add_func ("/chrome/not-a-trace", test_not_a_trace);
  g_test_add_func ("/chrome/chunking", test_chunking);
  g_test_add_func ("/chrome/compressed", test_compressed);
  g_test_add_func ("/chrome/compressed-damage", test_compressed_damage);
  g_test_add_func ("/chrome/inflate-ahead", test_inflate_ahead);
  g_test_add_func ("/chrome/bomb", test_bomb);
  g_test_add_func ("/chrome/source", test_source);
  g_test_add_func ("/chrome/transfer-names", test_transfer_names);
  g_test_add_func ("/chrome/async", test_async);
  g_test_add_func ("/chrome/cpu-profile", test_cpu_profile);
  return g_test_run ();
}
