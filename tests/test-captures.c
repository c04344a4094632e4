/* test-captures.c: the real PyTorch captures in tests/data/captures load with
 * the lanes, steps and spans their recording put there
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "analysis/cp-analysis.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

#define DATALOADER_PREFIX "enumerate(DataLoader)#"

/* What each capture holds, as recorded (see tests/data/captures/README.md).
 * Event counts are the lengths of traceEvents; shares are of the summed
 * ProfilerStep time.
 *
 * Diagnosis: expect is the rule the diagnosis must raise above info, NULL
 * when it must raise none (healthy), or when a CPU-only capture cannot show
 * the loop's bottleneck (no kernels, launches, memcpy kinds or sync waits);
 * its evidence must lie on slices named evidence_prefix. allow lists the
 * other rules that agree with the loop's bottleneck; any other rule above
 * info is a contradiction. */
typedef struct
{
  const char *file;
  const char *scenario;        /* chokepoint_capture metadata; NULL: legacy file */
  guint64     events;          /* traceEvents */
  guint64     complete;        /* of them ph "X" */
  guint       host_threads;    /* host-thread lanes outside pseudo-processes */
  gint64      first_step;      /* ProfilerStep#first_step ... */
  guint       n_steps;
  const char *dataloader;      /* full DataLoader span name, NULL when none */
  guint       n_dataloader;
  double      dataloader_min;  /* bounds of the DataLoader share of step time */
  double      dataloader_max;
  guint       n_comm;          /* gloo:* slices, all on threads other than the steps' */
  double      comm_min;        /* lower bound of their (union) share of step time */
  const char *expect;
  const char *evidence_prefix;
  const char *allow[3];
} CaptureCase;

#define SINGLE_PROCESS DATALOADER_PREFIX "_SingleProcessDataLoaderIter.__next__"
#define MULTI_PROCESS DATALOADER_PREFIX "_MultiProcessingDataLoaderIter.__next__"

static const CaptureCase cases[] = {
  { .file = "torch-healthy-cpu.json.gz", .scenario = "healthy",
    .events = 1635, .complete = 1449, .host_threads = 1, .first_step = 2, .n_steps = 4,
    .dataloader = MULTI_PROCESS, .n_dataloader = 4, .dataloader_max = 0.05 },
  { .file = "torch-input-bound-cpu.json.gz", .scenario = "input-bound",
    .events = 1639, .complete = 1525, .host_threads = 1, .first_step = 2, .n_steps = 4,
    .dataloader = SINGLE_PROCESS, .n_dataloader = 4, .dataloader_min = 0.5, .dataloader_max = 1.0,
    .expect = "input-bound", .evidence_prefix = DATALOADER_PREFIX,
    .allow = { "dataloader-single-process" } },
  { .file = "torch-comm-bound-gloo-cpu.json.gz", .scenario = "comm-bound",
    .events = 1410, .complete = 1258, .host_threads = 3, .first_step = 2, .n_steps = 3,
    .n_comm = 6, .comm_min = 0.2,
    .expect = "comm-bound", .evidence_prefix = "gloo:", .allow = { "low-comm-overlap" } },
  { .file = "torch-launch-bound-cpu.json.gz", .scenario = "launch-bound",
    .events = 32522, .complete = 26206, .host_threads = 1, .first_step = 2, .n_steps = 3,
    .allow = { "launch-bound", "host-overhead" } },
  { .file = "torch-pageable-copies-cpu.json.gz", .scenario = "pageable-transfers",
    .events = 555, .complete = 489, .host_threads = 1, .first_step = 2, .n_steps = 4,
    .allow = { "pageable-memcpy", "transfer-bound" } },
  { .file = "torch-sync-stalls-cpu.json.gz", .scenario = "sync-stalls",
    .events = 2523, .complete = 2257, .host_threads = 1, .first_step = 2, .n_steps = 4,
    .allow = { "sync-stall" } },
  { .file = "torch-fp32-no-tensor-cores-cpu.json.gz", .scenario = "fp32-no-tensor-cores",
    .events = 1179, .complete = 1065, .host_threads = 1, .first_step = 2, .n_steps = 4,
    .dataloader = MULTI_PROCESS, .n_dataloader = 4, .dataloader_max = 0.05,
    .allow = { "no-mixed-precision" } },
  /* PyTorch 1.13 without Kineto: the legacy profiler's bare JSON array. */
  { .file = "torch113-legacy-input-bound-cpu.json.gz", .scenario = NULL,
    .events = 1576, .complete = 1576, .host_threads = 1, .first_step = 1, .n_steps = 4,
    .dataloader = SINGLE_PROCESS, .n_dataloader = 4, .dataloader_min = 0.5, .dataloader_max = 1.0,
    .expect = "input-bound", .evidence_prefix = DATALOADER_PREFIX,
    .allow = { "dataloader-single-process" } },
};

static CpTrace *
load_capture (const CaptureCase *c)
{
  g_autofree char *sub = g_build_filename ("captures", c->file, NULL);
  g_autofree char *path = cp_test_data_path (sub);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  CpTrace *trace;

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static gboolean
lane_is_real_host_thread (CpTrace *trace,
                          CpLane  *lane)
{
  const CpProcess *p;

  if (cp_lane_get_kind (lane) != CP_LANE_HOST_THREAD)
    return FALSE;
  p = cp_trace_get_process (trace, cp_lane_get_process (lane));
  return p != NULL && !p->is_pseudo && !p->is_device;
}

/* Appends [start, end) of every slice whose name starts with prefix to
 * intervals (pairs of gint64) and its lane index to lanes (when not NULL);
 * returns how many there were. */
static guint
collect (CpTrace    *trace,
         const char *prefix,
         GArray     *intervals,
         GArray     *lanes)
{
  guint n = 0;

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      for (guint i = 0; i < s->n; i++)
        {
          const char *name = cp_trace_get_string (trace, cp_slices_get_name (s, i));

          if (g_str_has_prefix (name, prefix))
            {
              gint64 iv[2] = { cp_slices_get_start (s, i), cp_slices_get_end (s, i) };

              g_array_append_vals (intervals, iv, 2);
              if (lanes != NULL)
                g_array_append_val (lanes, l);
              n++;
            }
        }
    }
  return n;
}

static int
compare_start (gconstpointer a,
               gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* |union of the intervals ∩ [t0, t1)|. intervals: pairs of gint64, sorted
 * by start. */
static gint64
union_inside (GArray *intervals,
              gint64  t0,
              gint64  t1)
{
  gint64 covered = 0, reach = t0;

  for (guint i = 0; i + 1 < intervals->len; i += 2)
    {
      gint64 s = MAX (g_array_index (intervals, gint64, i), reach);
      gint64 e = MIN (g_array_index (intervals, gint64, i + 1), t1);

      if (e > s)
        {
          covered += e - s;
          reach = e;
        }
    }
  return covered;
}

static double
share_of_steps (CpTrace *trace,
                GArray  *intervals)
{
  guint n_steps = 0;
  const CpStep *steps = cp_trace_get_steps (trace, &n_steps);
  gint64 total = 0, covered = 0;

  qsort (intervals->data, intervals->len / 2, 2 * sizeof (gint64), compare_start);
  for (guint i = 0; i < n_steps; i++)
    {
      total += steps[i].end - steps[i].start;
      covered += union_inside (intervals, steps[i].start, steps[i].end);
    }
  g_assert_cmpint (total, >, 0);
  return (double) covered / (double) total;
}

static void
test_load (gconstpointer data)
{
  const CaptureCase *c = data;
  g_autoptr(CpTrace) trace = load_capture (c);
  const CpLoadReport *report = cp_trace_get_load_report (trace);

  g_assert_nonnull (report);
  g_assert_cmpstr (report->format, ==, "chrome-json+gzip");
  g_assert_cmpuint (report->events, ==, c->events);
  g_assert_cmpuint (report->by_phase['X'], ==, c->complete);
  g_assert_cmpuint (report->skipped, ==, 0);
  g_assert_cmpuint (report->unknown_phase, ==, 0);
  g_assert_cmpuint (report->unmatched_end, ==, 0);
  g_assert_cmpuint (report->unclosed_begin, ==, 0);
  g_assert_false (report->truncated);
  g_assert_cmpuint (cp_load_report_n_warnings (report), ==, 0);
  g_assert_cmpint (cp_trace_get_duration (trace), >, 0);

  if (c->scenario != NULL)
    {
      /* Kineto: the recording program's metadata came through. */
      const char *meta = cp_trace_lookup_metadata (trace, "chokepoint_capture");
      g_autofree char *needle = g_strdup_printf ("\"%s\"", c->scenario);

      g_assert_nonnull (cp_trace_lookup_metadata (trace, "schemaVersion"));
      g_assert_nonnull (meta);
      g_assert_nonnull (strstr (meta, needle));
    }
}

static void
test_lanes (gconstpointer data)
{
  const CaptureCase *c = data;
  g_autoptr(CpTrace) trace = load_capture (c);
  guint host = 0;

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);

      g_assert_cmpint (cp_lane_get_kind (lane), !=, CP_LANE_KERNEL);
      g_assert_cmpint (cp_lane_get_kind (lane), !=, CP_LANE_TRANSFER);
      g_assert_cmpint (cp_lane_get_kind (lane), !=, CP_LANE_DEVICE_ANNOTATION);
      if (lane_is_real_host_thread (trace, lane))
        {
          host++;
          g_assert_cmpuint (cp_lane_get_n_slices (lane), >, 0);
        }
    }
  g_assert_cmpuint (host, ==, c->host_threads);
  /* CPU activities only: nothing on a device. */
  g_assert_cmpuint (cp_trace_count_slices (trace, CP_LANE_KERNEL), ==, 0);
  g_assert_cmpuint (cp_trace_count_slices (trace, CP_LANE_TRANSFER), ==, 0);
  g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 0);
  for (guint p = 0; p < cp_trace_get_n_processes (trace); p++)
    g_assert_false (cp_trace_get_process (trace, p)->is_device);
}

static void
test_steps (gconstpointer data)
{
  const CaptureCase *c = data;
  g_autoptr(CpTrace) trace = load_capture (c);
  guint n_steps = 0;
  const CpStep *steps = cp_trace_get_steps (trace, &n_steps);
  guint step_lane = G_MAXUINT;

  g_assert_cmpuint (n_steps, ==, c->n_steps);
  for (guint i = 0; i < n_steps; i++)
    {
      g_autofree char *expected = g_strdup_printf ("ProfilerStep#%" G_GINT64_FORMAT,
                                                   c->first_step + i);

      g_assert_cmpint (steps[i].number, ==, c->first_step + i);
      g_assert_cmpint (steps[i].start, >=, 0);
      g_assert_cmpint (steps[i].end, >, steps[i].start);
      g_assert_cmpint (steps[i].end, <=, cp_trace_get_duration (trace));
      if (i > 0)
        g_assert_cmpint (steps[i].start, >=, steps[i - 1].end);

      /* The marker is the ProfilerStep#N slice on the training thread, and
       * the step spans exactly that slice. */
      g_assert_true (cp_trace_slice_ref_valid (trace, steps[i].marker));
      g_assert_cmpstr (cp_trace_slice_name (trace, steps[i].marker), ==, expected);
      g_assert_cmpint (cp_trace_slice_start (trace, steps[i].marker), ==, steps[i].start);
      g_assert_cmpint (cp_trace_slice_start (trace, steps[i].marker)
                       + cp_trace_slice_dur (trace, steps[i].marker), ==, steps[i].end);
      g_assert_true (lane_is_real_host_thread (trace,
                                               cp_trace_get_lane (trace, steps[i].marker.lane)));
      if (step_lane == G_MAXUINT)
        step_lane = steps[i].marker.lane;
      g_assert_cmpuint (steps[i].marker.lane, ==, step_lane);
    }
}

static void
test_dataloader (gconstpointer data)
{
  const CaptureCase *c = data;
  g_autoptr(CpTrace) trace = load_capture (c);
  g_autoptr(GArray) intervals = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_steps = 0;
  const CpStep *steps = cp_trace_get_steps (trace, &n_steps);
  guint n;

  n = collect (trace, "enumerate(", intervals, lanes);
  g_assert_cmpuint (n, ==, c->n_dataloader);
  if (n == 0)
    return;

  /* Every span has the iterator class the recording used, sits on the
   * stepping thread, and falls inside a step. */
  for (guint i = 0; i < n; i++)
    {
      guint lane = g_array_index (lanes, guint, i);
      gint64 s = g_array_index (intervals, gint64, 2 * i);
      gint64 e = g_array_index (intervals, gint64, 2 * i + 1);
      gboolean inside = FALSE;

      g_assert_cmpuint (lane, ==, steps[0].marker.lane);
      for (guint k = 0; k < n_steps && !inside; k++)
        inside = s >= steps[k].start && e <= steps[k].end;
      g_assert_true (inside);
    }
  {
    g_autoptr(GArray) exact = g_array_new (FALSE, FALSE, sizeof (gint64));

    g_assert_cmpuint (collect (trace, c->dataloader, exact, NULL), ==, n);
  }

  {
    double share = share_of_steps (trace, intervals);

    g_test_message ("%s: DataLoader share of step time %.4f", c->file, share);
    g_assert_cmpfloat (share, >=, c->dataloader_min);
    g_assert_cmpfloat (share, <=, c->dataloader_max);
  }
}

static void
test_comm (gconstpointer data)
{
  const CaptureCase *c = data;
  g_autoptr(CpTrace) trace = load_capture (c);
  g_autoptr(GArray) intervals = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n_steps = 0;
  const CpStep *steps = cp_trace_get_steps (trace, &n_steps);
  guint n;

  g_assert_cmpuint (n_steps, >, 0);
  n = collect (trace, "gloo:", intervals, lanes);
  g_assert_cmpuint (n, ==, c->n_comm);
  if (n == 0)
    return;

  /* gloo runs the all-reduce on its own threads, not on the training thread. */
  for (guint i = 0; i < n; i++)
    {
      guint lane = g_array_index (lanes, guint, i);

      g_assert_cmpuint (lane, !=, steps[0].marker.lane);
      g_assert_true (lane_is_real_host_thread (trace, cp_trace_get_lane (trace, lane)));
    }
  {
    double share = share_of_steps (trace, intervals);

    g_test_message ("%s: gloo share of step time %.4f", c->file, share);
    g_assert_cmpfloat (share, >=, c->comm_min);
  }
}

/* TRUE when [start, end) lies inside a slice of lane whose name starts with
 * prefix. */
static gboolean
inside_named_slice (CpTrace    *trace,
                    guint       lane_index,
                    gint64      start,
                    gint64      end,
                    const char *prefix)
{
  const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, lane_index));

  for (guint i = 0; i < s->n; i++)
    {
      if (cp_slices_get_start (s, i) <= start && end <= cp_slices_get_end (s, i)
          && g_str_has_prefix (cp_trace_get_string (trace, cp_slices_get_name (s, i)), prefix))
        return TRUE;
    }
  return FALSE;
}

static gboolean
allowed (const CaptureCase *c,
         const char        *rule_id)
{
  if (g_strcmp0 (rule_id, c->expect) == 0)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (c->allow) && c->allow[i] != NULL; i++)
    {
      if (g_str_equal (rule_id, c->allow[i]))
        return TRUE;
    }
  return FALSE;
}

static void
test_diagnosis (gconstpointer data)
{
  const CaptureCase *c = data;
  g_autoptr(CpTrace) trace = load_capture (c);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpAnalysis) analysis = cp_analysis_new (trace, NULL, &error);
  GListModel *findings;

  g_assert_no_error (error);
  g_assert_nonnull (analysis);
  g_assert_cmpint (cp_analysis_get_step_source (analysis), ==, CP_STEPS_PROFILER);

  /* Nothing contradicts the loop's bottleneck. */
  findings = cp_analysis_get_findings (analysis);
  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);

      g_test_message ("%s: %s (severity %d): %s", c->file, cp_finding_get_rule_id (f),
                      cp_finding_get_severity (f), cp_finding_get_summary (f));
      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO && !allowed (c, cp_finding_get_rule_id (f)))
        g_error ("%s: unexpected finding above info: %s", c->file, cp_finding_get_rule_id (f));
    }

  if (c->expect == NULL)
    {
      if (c->allow[0] == NULL)
        g_assert_false (cp_analysis_has_warnings (analysis));
      return;
    }

  /* The intended bottleneck is named above info, with its evidence on the
   * spans that cause it. */
  {
    CpFinding *f = cp_analysis_lookup_finding (analysis, c->expect);
    const CpEvidence *evidence;
    guint n_evidence = 0;

    g_assert_nonnull (f);
    g_assert_cmpint (cp_finding_get_severity (f), >, CP_SEVERITY_INFO);
    g_assert_null (cp_finding_get_explained_by (f));
    evidence = cp_finding_get_evidence (f, &n_evidence);
    g_assert_cmpuint (n_evidence, >, 0);
    for (guint i = 0; i < n_evidence; i++)
      {
        g_assert_cmpint (evidence[i].end, >, evidence[i].start);
        g_assert_true (inside_named_slice (trace, evidence[i].lane, evidence[i].start,
                                           evidence[i].end, c->evidence_prefix));
      }
  }
}

static char *
case_name (const CaptureCase *c)
{
  const char *end = strstr (c->file, ".json");

  return g_strndup (c->file, end != NULL ? (gsize) (end - c->file) : strlen (c->file));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = case_name (&cases[i]);
      static const struct
      {
        const char      *what;
        GTestDataFunc    func;
      } checks[] = {
        { "load", test_load },
        { "lanes", test_lanes },
        { "steps", test_steps },
        { "dataloader", test_dataloader },
        { "comm", test_comm },
        { "diagnosis", test_diagnosis },
      };

      for (guint k = 0; k < G_N_ELEMENTS (checks); k++)
        {
          g_autofree char *path = g_strdup_printf ("/captures/%s/%s", checks[k].what, name);

          g_test_add_data_func (path, &cases[i], checks[k].func);
        }
    }
  return g_test_run ();
}
