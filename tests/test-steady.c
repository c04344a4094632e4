/* test-steady.c: the verdict's window and confidence on captures nobody
 * tidied, against cp-gen's ground truth (never the code's own output):
 * a warm-up iteration without step markers, its fixed run in compare, two
 * devices that step 650 ms apart, a benchmark loop whose repeated module
 * holds little of the work, truncated captures; and, on every generated
 * and real capture at hand, a verdict whose shares do not contradict.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-compare.h"
#include "analysis/cp-steps.h"
#include "cp-test-util.h"
#include "cp-test-xspace.h"
#include "formats/cp-loader.h"

/* "Within 1 point of an exact count over the steady window." */
#define POINT 1.0

typedef struct
{
  char       *dir;
  char       *capture;
  JsonParser *parser;
  JsonObject *truth;
} Generated;

static void
generated_clear (Generated *g)
{
  cp_test_rm_rf (g->dir);
  g_free (g->dir);
  g_free (g->capture);
  g_clear_object (&g->parser);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Generated, generated_clear)

/* cp-gen SCENARIO into a fresh folder, with extra arguments (NULL-ended). */
static void
generate (Generated  *g,
          const char *scenario,
          const char *file_name,
          ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *truth = NULL;
  const char *arg;
  va_list ap;

  g->dir = cp_test_make_tmpdir ();
  g->capture = g_build_filename (g->dir, file_name, NULL);
  truth = g_build_filename (g->dir, "truth.json", NULL);
  g->parser = json_parser_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("CP_GEN"));
  g_ptr_array_add (argv, "--scenario");
  g_ptr_array_add (argv, (gpointer) scenario);
  g_ptr_array_add (argv, "--out");
  g_ptr_array_add (argv, g->capture);
  g_ptr_array_add (argv, "--truth");
  g_ptr_array_add (argv, truth);
  g_ptr_array_add (argv, "-q");
  va_start (ap, file_name);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_nonnull (g_getenv ("CP_GEN"));
  cp_test_run_generator ((const char * const *) argv->pdata, truth, g->parser);
  g->truth = json_node_get_object (json_parser_get_root (g->parser));
}

static gboolean
has_reason (CpAnalysis *a,
            const char *id)
{
  const CpConfidenceReason *reasons;
  guint n;

  cp_analysis_get_confidence (a, &reasons, &n);
  for (guint i = 0; i < n; i++)
    if (g_str_equal (reasons[i].id, id))
      return TRUE;
  return FALSE;
}

static gint64
int_member (JsonObject *o,
            const char *key)
{
  g_assert_true (json_object_has_member (o, key));
  return json_object_get_int_member (o, key);
}

/* A headline never states two shares that contradict: a wait the devices
 * spend idle and the least busy device's busy share cannot add up to more
 * than the window. Communication is busy time (NCCL kernels), so it may. */
static void
check_consistent (CpAnalysis *a,
                  const char *what)
{
  const CpVerdict *v = cp_analysis_get_verdict (a);

  if (isnan (v->busy_percent))
    return;
  for (guint k = 0; k < v->n_causes; k++)
    if (v->causes[k].cause != CP_IDLE_CAUSE_COMMUNICATION && v->causes[k].percent + v->busy_percent > 100.5)
      g_error ("%s: the verdict says %s %.1f%% and busy %.1f%%: %s", what,
               cp_idle_cause_to_string (v->causes[k].cause), v->causes[k].percent, v->busy_percent, v->text);
}

static void
test_warmup_rule (void)
{
  /* The cases the rule is written for, by hand. */
  const gint64 warm[] = { 4500, 160, 158, 162, 161, 159 };
  const gint64 two_warm[] = { 5000, 2000, 160, 158, 162, 161 };
  const gint64 steady[] = { 160, 158, 162, 161, 159, 160 };
  const gint64 late[] = { 160, 158, 4500, 161, 159, 160 };
  const gint64 pair[] = { 900, 200 };
  const gint64 near_pair[] = { 700, 200 };
  const gint64 three[] = { 4500, 160, 162 };
  const gint64 mild[] = { 230, 160, 158, 162, 161, 159 };

  g_assert_cmpuint (cp_steps_find_warmup (warm, G_N_ELEMENTS (warm)), ==, 1);
  g_assert_cmpuint (cp_steps_find_warmup (two_warm, G_N_ELEMENTS (two_warm)), ==, 2);
  g_assert_cmpuint (cp_steps_find_warmup (steady, G_N_ELEMENTS (steady)), ==, 0);
  /* A slow step later on (a checkpoint) is how the run behaves. */
  g_assert_cmpuint (cp_steps_find_warmup (late, G_N_ELEMENTS (late)), ==, 0);
  g_assert_cmpuint (cp_steps_find_warmup (pair, 2), ==, 1);
  g_assert_cmpuint (cp_steps_find_warmup (near_pair, 2), ==, 0);
  /* Two steps are left at least. */
  g_assert_cmpuint (cp_steps_find_warmup (three, 3), ==, 1);
  /* An outlier, but under 1.5x the median: a step that ran long, kept. */
  g_assert_cmpuint (cp_steps_find_warmup (mild, G_N_ELEMENTS (mild)), ==, 0);
  g_assert_cmpuint (cp_steps_median (steady, G_N_ELEMENTS (steady)), ==, 160);
}

/* A PyTorch loop without ProfilerStep markers whose first iteration is a
 * 4.6 s warm-up: left out, and the verdict is the steady state's. */
static void
check_warmup_run (const char *format,
                  gboolean    fixed)
{
  g_auto(Generated) g = { 0 };
  g_autoptr(CpAnalysis) a = NULL;
  g_autofree char *name = g_strconcat ("run.", format, NULL);
  JsonObject *steady;
  const CpVerdict *v;
  CpWindowInfo info;
  CpTimeSummary st;
  const CpStepStats *warm;
  guint n_warm;
  double truth_mean, truth_loading, truth_busy;

  if (fixed)
    generate (&g, "warmup-input-bound", name, "--format", format, "--loader-workers", "4", NULL);
  else
    generate (&g, "warmup-input-bound", name, "--format", format, NULL);
  steady = json_object_get_object_member (g.truth, "steady");
  truth_mean = int_member (steady, "mean_ns");
  truth_loading = json_object_get_double_member (steady, "loading_percent");
  truth_busy = json_object_get_double_member (steady, "gpu_busy_percent");

  a = cp_test_analyse (g.capture);
  cp_analysis_get_window_info (a, &info);
  g_assert_cmpuint (info.n_steps, ==, int_member (steady, "n"));
  g_assert_cmpuint (info.n_warmup, ==, json_array_get_length (json_object_get_array_member (g.truth, "warmup_iterations")));
  warm = cp_analysis_get_warmup_steps (a, &n_warm);
  g_assert_cmpuint (n_warm, ==, 1);
  /* The left-out iteration is the truth's first. */
  {
    JsonObject *it0 = json_array_get_object_element (json_object_get_array_member (g.truth, "iterations"), 0);

    g_assert_cmpint (warm[0].host_start, ==, int_member (it0, "start_ns"));
  }
  cp_analysis_get_step_summary (a, &st);
  g_test_message ("%s%s: mean %" G_GINT64_FORMAT " (truth %.0f), median %" G_GINT64_FORMAT " (truth %" G_GINT64_FORMAT ")",
                  format, fixed ? " fixed" : "", st.mean, truth_mean, info.step_median, int_member (steady, "median_ns"));
  g_assert_cmpfloat (fabs (st.mean - truth_mean), <=, 0.01 * truth_mean);
  g_assert_cmpfloat (fabs ((double) info.step_median - int_member (steady, "median_ns")), <=,
                     0.01 * int_member (steady, "median_ns"));

  v = cp_analysis_get_verdict (a);
  g_test_message ("%s", v->text);
  g_assert_cmpfloat (fabs (v->busy_percent - truth_busy), <=, POINT);
  g_assert_cmpint (cp_analysis_get_confidence (a, NULL, NULL), ==, CP_CONFIDENCE_HIGH);
  check_consistent (a, g.capture);
  if (!fixed)
    {
      /* Data loading is a third of a steady iteration: the first cause. */
      g_assert_cmpfloat (fabs (v->loading_percent - truth_loading), <=, POINT);
      g_assert_cmpuint (v->n_causes, >=, 1);
      g_assert_cmpint (v->causes[0].cause, ==, CP_IDLE_CAUSE_INPUT);
      g_assert_cmpstr (v->primary_rule, ==, "input-bound");
    }
  else
    {
      /* Workers: the GPU is busy; no wait is named. */
      g_assert_true (v->busy_first);
      g_assert_cmpuint (v->n_causes, ==, 0);
      g_assert_false (cp_analysis_has_warnings (a));
    }
}

static void
test_warmup_json (void)
{
  check_warmup_run ("json.gz", FALSE);
  check_warmup_run ("json.gz", TRUE);
}

static void
test_warmup_xplane (void)
{
  check_warmup_run ("xplane", FALSE);
}

/* compare A (num_workers 0) with B (num_workers 4, a longer warm-up):
 * the steady steps of each, so the fix is no regression. */
static void
test_warmup_compare (void)
{
  g_auto(Generated) ga = { 0 };
  g_auto(Generated) gb = { 0 };
  const char *chokepoint = g_getenv ("CP_CHOKEPOINT");
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  double mean_a, mean_b;

  generate (&ga, "warmup-input-bound", "a.json.gz", NULL);
  generate (&gb, "warmup-input-bound", "b.json.gz", "--loader-workers", "4", NULL);
  mean_a = int_member (json_object_get_object_member (ga.truth, "steady"), "mean_ns");
  mean_b = int_member (json_object_get_object_member (gb.truth, "steady"), "mean_ns");
  g_assert_cmpfloat (mean_b, <, mean_a);
  /* The trap: over all iterations B is slower. */
  {
    double all_a = int_member (ga.truth, "duration_ns"), all_b = int_member (gb.truth, "duration_ns");

    g_assert_cmpfloat (all_b, >, all_a);
  }

  g_assert_nonnull (chokepoint);
  {
    const char *argv[] = { chokepoint, "compare", "--json", "--fail-on-regression=5", ga.capture, gb.capture, NULL };
    g_autoptr(JsonParser) p = json_parser_new ();
    JsonObject *root, *step, *sa, *sb;

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
    g_assert_no_error (error);
    g_test_message ("%s", err);
    /* No regression: exit 0. */
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (json_parser_load_from_data (p, out, -1, &error));
    root = json_node_get_object (json_parser_get_root (p));
    step = json_object_get_object_member (root, "step_time");
    g_assert_cmpfloat (fabs (int_member (step, "a_ns") - mean_a), <=, 0.01 * mean_a);
    g_assert_cmpfloat (fabs (int_member (step, "b_ns") - mean_b), <=, 0.01 * mean_b);
    /* Which steps were compared. */
    sa = json_object_get_object_member (root, "a");
    sb = json_object_get_object_member (root, "b");
    g_assert_cmpint (int_member (sa, "warmup_steps"), ==, 1);
    g_assert_cmpint (int_member (sb, "warmup_steps"), ==, 1);
    g_assert_cmpint (int_member (sa, "steps"), ==, int_member (json_object_get_object_member (ga.truth, "steady"), "n"));
    g_assert_cmpstr (json_object_get_string_member (sa, "steps_source"), ==, "dataloader");
    g_assert_true (json_object_has_member (root, "confidence"));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    const char *argv[] = { chokepoint, "compare", ga.capture, gb.capture, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_nonnull (strstr (out, "1 warm-up step left out"));
    g_assert_nonnull (strstr (out, "mean per steady step"));
    g_assert_nonnull (strstr (out, "median "));
  }
}

/* TensorFlow on two GPUs whose single steps run 650 ms apart: each is
 * measured over its own step, and the verdict is the ~12% host wait each
 * really had, not 90% "nothing recorded" of one 670 ms hull. */
static void
test_out_of_step (void)
{
  g_auto(Generated) g = { 0 };
  g_autoptr(CpAnalysis) a = NULL;
  JsonObject *devices;
  const CpDeviceStats *devs;
  const CpVerdict *v;
  CpWindowInfo info;
  CpTimeSummary idle;
  guint n_devs;
  gint64 wait = 0, window = 0;

  generate (&g, "xla-tf-two-gpu-apart", "tf.xplane.pb", NULL);
  devices = json_object_get_object_member (g.truth, "devices");
  a = cp_test_analyse (g.capture);
  cp_analysis_get_window_info (a, &info);
  g_assert_true (info.out_of_step);
  g_assert_cmpstr (info.steps_source, ==, "per-device");

  devs = cp_analysis_get_devices (a, &n_devs);
  g_assert_cmpuint (n_devs, ==, 2);
  for (guint d = 0; d < n_devs; d++)
    {
      g_autofree char *key = g_strdup_printf ("%d", devs[d].device);
      JsonObject *w = json_object_get_object_member (devices, key);

      g_assert_true (cp_analysis_device_has_own_windows (a, devs[d].device));
      g_assert_cmpint (devs[d].window_time, ==, int_member (w, "window_ns"));
      g_assert_cmpint (devs[d].window_busy, ==, int_member (w, "busy_ns"));
      wait += int_member (w, "host_wait_ns");
      window += int_member (w, "window_ns");
    }
  /* The window is the two steps, not the 650 ms between them. */
  g_assert_cmpint (cp_analysis_get_window_time (a), ==, window);
  cp_analysis_get_time_summary (a, CP_TIME_IDLE, &idle);
  g_assert_cmpfloat (idle.percent, <, 5);

  v = cp_analysis_get_verdict (a);
  g_test_message ("%s", v->text);
  g_assert_cmpuint (v->n_causes, >=, 1);
  g_assert_cmpint (v->causes[0].cause, ==, CP_IDLE_CAUSE_HOST);
  g_assert_cmpfloat (fabs (v->causes[0].percent - 100.0 * wait / window), <=, POINT);
  g_assert_cmpfloat (fabs (v->busy_percent - 100.0 * 17600000 / 20300000), <=, POINT);
  check_consistent (a, g.capture);
  /* One step each, out of step: provisional. */
  g_assert_cmpint (cp_analysis_get_confidence (a, NULL, NULL), ==, CP_CONFIDENCE_MEDIUM);
  g_assert_true (has_reason (a, "devices-out-of-step"));
  g_assert_true (has_reason (a, "few-steps"));
  g_assert_false (has_reason (a, "unrecorded"));
  {
    g_autofree char *banner = cp_analysis_dup_confidence_banner (a);

    g_assert_true (g_str_has_prefix (banner, "Provisional: "));
  }
}

#define MS_PS G_GINT64_CONSTANT (1000000000)

/* A GPU plane with a Steps line of three 20 ms steps from start_ms, each
 * with its kernels from busy_from_ms into the step to its end. */
static XpPlane *
stepping_gpu (gint   ordinal,
              gint64 start_ms,
              gint64 busy_from_ms)
{
  g_autofree char *name = g_strdup_printf ("/device:GPU:%d", ordinal);
  XpPlane *gpu = xp_plane_new (1 + ordinal, name);
  GByteArray *steps[3], *kernels[3];

  xp_plane_stat (gpu, xp_stat_str (gpu, "device_vendor", "Nvidia"));
  for (guint k = 0; k < 3; k++)
    {
      g_autofree char *number = g_strdup_printf ("%u", k + 1);
      gint64 at = (start_ms + 20 * k) * MS_PS;

      steps[k] = xp_event (gpu, number, at, 20 * MS_PS, NULL);
      kernels[k] = xp_event (gpu, "volta_sgemm_128x64_nn", at + busy_from_ms * MS_PS, (20 - busy_from_ms) * MS_PS, NULL);
    }
  xp_line (gpu, 1, 0, "Steps", NULL, 0, steps[0], steps[1], steps[2], NULL);
  xp_line (gpu, 20, 0, "Stream #20(Compute)", NULL, 0, kernels[0], kernels[1], kernels[2], NULL);
  return gpu;
}

/* Two GPUs 700 ms apart that wait for different things: GPU 0 on its
 * input (IteratorGetNext, 6 ms of each 20 ms step), GPU 1 on its host
 * (4 ms of host compute): the verdict says each. */
static void
test_out_of_step_disagree (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(CpAnalysis) a = NULL;
  g_autofree char *dir = NULL, *path = NULL;
  XpPlane *host = xp_plane_new (10, "/host:CPU");
  GByteArray *ev[6];
  const CpVerdict *v;

  for (guint k = 0; k < 3; k++)
    {
      ev[k] = xp_event (host, "IteratorGetNext", (10 + 20 * k) * MS_PS, 6 * MS_PS, NULL);
      ev[3 + k] = xp_event (host, "PrepareBatchOnHost", (710 + 20 * k) * MS_PS, 4 * MS_PS, NULL);
    }
  xp_line (host, 100, 0, "python3", NULL, 0, ev[0], ev[1], ev[2], ev[3], ev[4], ev[5], NULL);
  xp_space_add_plane (space, host);
  xp_space_add_plane (space, stepping_gpu (0, 10, 6));
  xp_space_add_plane (space, stepping_gpu (1, 710, 4));
  /* Through the loader, as a file: the analysis knows it is XPlane. */
  dir = cp_test_make_tmpdir ();
  path = cp_test_write_file (dir, "apart.xplane.pb", space->data, space->len);
  a = cp_test_analyse (path);
  cp_test_rm_rf (dir);

  v = cp_analysis_get_verdict (a);
  g_test_message ("%s", v->text);
  g_assert_cmpuint (v->n_devices, ==, 2);
  g_assert_cmpint (v->devices[0].device, ==, 0);
  g_assert_cmpint (v->devices[0].cause, ==, CP_IDLE_CAUSE_INPUT);
  g_assert_cmpfloat (fabs (v->devices[0].percent - 30.0), <=, 0.01);
  g_assert_cmpfloat (fabs (v->devices[0].busy_percent - 70.0), <=, 0.01);
  g_assert_cmpint (v->devices[1].device, ==, 1);
  g_assert_cmpint (v->devices[1].cause, ==, CP_IDLE_CAUSE_HOST);
  g_assert_cmpfloat (fabs (v->devices[1].percent - 20.0), <=, 0.01);
  g_assert_cmpfloat (fabs (v->devices[1].busy_percent - 80.0), <=, 0.01);
  g_assert_nonnull (strstr (v->text, "wait for different things"));
  g_assert_nonnull (strstr (v->text, "device 0 mostly for input (30.0%"));
  g_assert_nonnull (strstr (v->text, "device 1 mostly for host overhead and launches (20.0%"));
  check_consistent (a, "two GPUs out of step");
}

/* A JAX micro-benchmark whose most repeated module holds a fifth of the
 * device work: the window is the span where the device works. */
static void
test_bench_loop (void)
{
  g_auto(Generated) g = { 0 };
  g_autoptr(CpAnalysis) a = NULL;
  const CpVerdict *v;
  CpWindowInfo info;
  double held;

  generate (&g, "xla-jax-bench-loop", "bench.xplane.pb", NULL);
  a = cp_test_analyse (g.capture);
  cp_analysis_get_window_info (a, &info);
  held = (double) int_member (g.truth, "busy_in_repeated_ns") / int_member (g.truth, "device_busy_ns");
  g_test_message ("the repeated module holds %.3f of the work; the analysis says %.3f", held, info.steps_device_share);
  g_assert_true (info.device_span);
  g_assert_cmpstr (info.steps_source, ==, "device-activity");
  g_assert_cmpuint (info.n_steps, ==, 0);
  g_assert_cmpfloat (fabs (info.steps_device_share - held), <, 0.05);
  g_assert_cmpint (cp_analysis_get_window_time (a), ==, int_member (g.truth, "device_span_ns"));
  g_assert_cmpfloat (info.device_work_share, ==, 1.0);

  v = cp_analysis_get_verdict (a);
  g_test_message ("%s", v->text);
  g_assert_cmpfloat (fabs (v->busy_percent - json_object_get_double_member (g.truth, "busy_over_span_percent")), <=, POINT);
  g_assert_true (has_reason (a, "window-coverage"));
  check_consistent (a, g.capture);
}

/* A capture cut before any kernel: never high, and no cause named. */
static void
check_truncated (const char *path,
                 gsize       keep)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *data = NULL;
  g_autofree char *cut = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(GError) error = NULL;
  const CpVerdict *v;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (len, >, keep);
  cut = cp_test_write_file (dir, "cut.json.gz", data, keep);
  a = cp_test_analyse (cut);
  v = cp_analysis_get_verdict (a);
  g_test_message ("%s", v->text);
  g_assert_cmpint (cp_analysis_get_confidence (a, NULL, NULL), ==, CP_CONFIDENCE_LOW);
  g_assert_true (has_reason (a, "truncated"));
  g_assert_true (has_reason (a, "no-device-events"));
  g_assert_true (v->withheld);
  g_assert_cmpuint (v->n_causes, ==, 0);
  g_assert_false (cp_analysis_has_warnings (a));
  g_assert_nonnull (strstr (v->text, "cannot be told"));
  {
    g_autofree char *json = cp_analysis_to_json (a, FALSE);

    g_assert_nonnull (strstr (json, "\"healthy\":false"));
  }
  cp_test_rm_rf (dir);
}

static void
test_truncated (void)
{
  g_auto(Generated) g = { 0 };
  const char *root = cp_test_shared_traces ();

  /* cp-gen writes each step's host events before its device work. */
  generate (&g, "input-bound", "run.json.gz", "--format", "json.gz", NULL);
  check_truncated (g.capture, 20000);
  if (root != NULL)
    {
      g_autofree char *real = g_build_filename (root, "pytorch__kineto", "tb_plugin", "samples", "resnet50_num_workers_0",
                                                "worker0.1623143089861.pt.trace.json.gz", NULL);

      if (g_file_test (real, G_FILE_TEST_EXISTS))
        check_truncated (real, 400000);
    }
}

/* The whole set of generated shapes: the shares never contradict. */
static void
test_consistent (void)
{
  static const char * const scenarios[] = {
    "healthy", "input-bound", "launch-bound", "pageable-transfers", "sync-stalls",
    "fp32-no-tensor-cores", "comm-bound", "xla-jax-gpu", "xla-tpu-async", "xla-tf-two-gpu",
    "xla-tf-data-starved",
  };

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_auto(Generated) g = { 0 };
      g_autoptr(CpAnalysis) a = NULL;
      gboolean xla = g_str_has_prefix (scenarios[i], "xla-");

      generate (&g, scenarios[i], xla ? "c.xplane.pb" : "c.json", NULL);
      a = cp_test_analyse (g.capture);
      check_consistent (a, scenarios[i]);
      /* Tidy captures of several steps: nothing to doubt. */
      if (!g_str_equal (scenarios[i], "xla-tf-two-gpu"))
        {
          const CpConfidenceReason *r;
          guint n;

          cp_analysis_get_confidence (a, &r, &n);
          if (n > 0)
            g_error ("%s: %s (%s)", scenarios[i], r[0].id, r[0].text);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/steady/warmup-rule", test_warmup_rule);
  g_test_add_func ("/steady/warmup/json", test_warmup_json);
  g_test_add_func ("/steady/warmup/xplane", test_warmup_xplane);
  g_test_add_func ("/steady/warmup/compare", test_warmup_compare);
  g_test_add_func ("/steady/out-of-step", test_out_of_step);
  g_test_add_func ("/steady/out-of-step-disagree", test_out_of_step_disagree);
  g_test_add_func ("/steady/bench-loop", test_bench_loop);
  g_test_add_func ("/steady/truncated", test_truncated);
  g_test_add_func ("/steady/consistent", test_consistent);
  return g_test_run ();
}
