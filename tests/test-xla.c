/* test-xla.c: XLA semantics on the real XPlane captures, checked against an
 * independent decode (xla-count.py): steps from the repeated module, the
 * warm-up before them, and per device its own windows, busy time and the
 * time it waits on async ops; plus the XLA op classes by name and category.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-classify.h"
#include "cp-test-util.h"
#include "cp-test-xspace.h"
#include "formats/cp-loader.h"
#include "formats/cp-xplane-reader.h"
#include "model/cp-trace-builder.h"

static void
test_op_classes (void)
{
  static const struct { const char *name; const char *category; CpXlaOpClass want; } cases[] = {
    { "%copy-done.2 = f32[5,1024,1024,256]{3,2,1,0:T(8,128)} copy-done(%copy-start.2)", "copy-done", CP_XLA_OP_ASYNC },
    { "%copy-start.4 = (f32[5]{0}, f32[5]{0}, u32[]{:S(2)}) copy-start(%p)", NULL, CP_XLA_OP_ASYNC },
    { "%copy-done.2 = f32[5]{0} copy-done(%copy-start.2)", NULL, CP_XLA_OP_ASYNC },
    { "%all-reduce = f32[5]{0} all-reduce(%x)", "all-reduce", CP_XLA_OP_COLLECTIVE },
    { "all-gather-done.1", NULL, CP_XLA_OP_COLLECTIVE },
    { "%broadcast_add_fusion.1 = f32[5]{0} fusion(%a, %b)", "loop fusion", CP_XLA_OP_LOOP_FUSION },
    { "input_transpose_fusion.kd", NULL, CP_XLA_OP_INPUT_FUSION },
    { "loop_transpose_fusion", NULL, CP_XLA_OP_LOOP_FUSION },
    { "gemm_fusion_dot_6.kd", NULL, CP_XLA_OP_MATMUL },
    { "%convolution.3 = bf16[8]{0} convolution(%a, %b)", NULL, CP_XLA_OP_CONVOLUTION },
    { "x", "convolution fusion", CP_XLA_OP_CONVOLUTION },
    { "%send-done.1 = token[] send-done(%send.1)", NULL, CP_XLA_OP_SEND_RECV },
    { "%infeed.0 = (f32[8]{0}, token[]) infeed(%t)", NULL, CP_XLA_OP_INFEED },
    { "outfeed", NULL, CP_XLA_OP_OUTFEED },
    { "%transpose.7 = f32[8]{0} transpose(%a)", NULL, CP_XLA_OP_DATA_FORMATTING },
    { "x", "data formatting", CP_XLA_OP_DATA_FORMATTING },
    { "%while.1 = (s32[]) while(%t)", NULL, CP_XLA_OP_CONTROL_FLOW },
    { "%copy.1 = f32[8]{0} copy(%a)", NULL, CP_XLA_OP_COPY },
    { "%add.1 = f32[8]{0} add(%a, %b)", NULL, CP_XLA_OP_OTHER },
    { "x", "non-fusion elementwise", CP_XLA_OP_OTHER },
    /* Not XLA: CUDA kernels stay unclassified. */
    { "void at::native::vectorized_elementwise_kernel<4, float>", NULL, CP_XLA_OP_NONE },
    { "ampere_sgemm_128x64_nn", NULL, CP_XLA_OP_MATMUL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CpXlaOpClass got = cp_classify_xla_op (cases[i].name, cases[i].category);

      if (got != cases[i].want)
        g_error ("%s / %s: %s, expected %s", cases[i].name, cases[i].category,
                 cp_xla_op_class_to_string (got), cp_xla_op_class_to_string (cases[i].want));
    }
}

static JsonObject *
run_oracle (const char *path,
            JsonParser *parser)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".",
                                              "xla-count.py", NULL);
  const char *argv[] = { python, script, path, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (python == NULL)
    return NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* Compares the analysis of path with want (the oracle's or the generator's
 * truth): steps, warm-up, and per device its windows, busy and async time.
 * own_windows: the devices want lists must have windows of their own. */
/* Every device has the kind its plane names (the oracle's "kinds"), and
 * a capture whose devices are all TPUs never says "GPU" in its verdict,
 * findings, device lines or report figures. */
static void
check_kinds (CpTrace    *trace,
             CpAnalysis *a,
             JsonObject *kinds)
{
  g_autoptr(GList) members = json_object_get_members (kinds);
  g_autofree char *json = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *devices;
  guint n_tpu = 0, n = 0;
  GListModel *findings;

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *want = json_object_get_string_member (kinds, l->data);
      CpDeviceKind kind = cp_trace_get_device_kind (trace, (gint) g_ascii_strtoll (l->data, NULL, 10));

      g_assert_cmpstr (cp_device_kind_to_string (kind), ==, want);
      n++;
      n_tpu += g_str_equal (want, "tpu");
    }
  if (n == 0)
    return;
  g_assert_cmpint (cp_analysis_devices_are_tpu (a), ==, n_tpu == n);
  g_assert_cmpint (cp_analysis_devices_are_mixed (a), ==, n_tpu > 0 && n_tpu < n);
  g_assert_cmpstr (cp_analysis_get_device_word (a), ==,
                   n_tpu == n ? "TPU" : n_tpu > 0 ? "device" : "GPU");

  /* The JSON gives each device its kind. */
  json = cp_analysis_to_json (a, FALSE);
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  devices = json_object_get_array_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "metrics"), "devices");
  for (guint d = 0; d < json_array_get_length (devices); d++)
    {
      JsonObject *o = json_array_get_object_element (devices, d);
      g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (o, "device"));

      if (json_object_has_member (kinds, key))
        g_assert_cmpstr (json_object_get_string_member (o, "kind"), ==, json_object_get_string_member (kinds, key));
    }

  if (n_tpu != n)
    return;
  g_assert_null (strstr (cp_analysis_get_verdict (a)->text, "GPU"));
  findings = cp_analysis_get_findings (a);
  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);
      const CpFigure *figs;
      guint n_figs = 0;

      g_assert_null (strstr (cp_finding_get_title (f), "GPU"));
      g_assert_null (strstr (cp_finding_get_summary (f), "GPU"));
      figs = cp_finding_get_figures (f, &n_figs);
      for (guint k = 0; k < n_figs; k++)
        g_assert_null (strstr (figs[k].label, "GPU"));
    }
}

static void
check_against (const char *path,
               JsonObject *want,
               gboolean    own_windows)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  JsonObject *devices;
  const CpDeviceStats *devs;
  guint n_steps = 0, n_devs = 0;
  gint64 ws = 0, we = 0;
  gint64 steps;

  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);

  steps = json_object_get_int_member (want, "steps");
  {
    const CpStepStats *st = cp_analysis_get_steps (a, &n_steps);
    guint n_all = n_steps;

    /* Devices that step at different times: each step is one device's,
     * and the truth counts a device's steps. */
    if (n_steps > 0 && st[0].device >= 0)
      {
        n_steps = 0;
        for (guint i = 0; i < n_all; i++)
          n_steps += st[i].device == st[0].device;
      }
  }
  g_test_message ("%s: %u steps (oracle %" G_GINT64_FORMAT ")", path, n_steps, steps);
  g_assert_cmpint (n_steps, ==, steps);
  if (steps > 0 && json_object_get_int_member (want, "warmup_ns") > 0)
    {
      g_assert_true (cp_analysis_get_warmup (a, &ws, &we, NULL));
      g_assert_cmpint (ws, ==, 0);
      g_assert_cmpint (we, ==, json_object_get_int_member (want, "warmup_ns"));
    }
  else
    g_assert_false (cp_analysis_get_warmup (a, NULL, NULL, NULL));
  if (json_object_has_member (want, "input_wait_percent"))
    {
      CpTimeSummary input;

      cp_analysis_get_time_summary (a, CP_TIME_INPUT_WAIT, &input);
      g_assert_cmpfloat_with_epsilon (input.percent, json_object_get_double_member (want, "input_wait_percent"), 1e-4);
    }
  if (json_object_has_member (want, "slowest_stage"))
    {
      CpFinding *f = cp_analysis_lookup_finding (a, "input-pipeline");
      g_autofree char *stage = g_strdup_printf (" %s ", json_object_get_string_member (want, "slowest_stage"));
      const CpFigure *self_time, *prefetch;
      const char * const *fixes;

      g_assert_nonnull (f);
      g_assert_cmpint (cp_finding_get_severity (f), ==, CP_SEVERITY_HIGH);
      g_assert_nonnull (strstr (cp_finding_get_summary (f), stage));
      self_time = cp_finding_lookup_figure (f, "slowest_stage_self_ns");
      prefetch = cp_finding_lookup_figure (f, "prefetch");
      g_assert_cmpfloat (self_time->value, ==, (double) json_object_get_int_member (want, "slowest_stage_self_ns"));
      g_assert_cmpfloat (prefetch->value, ==, json_object_get_boolean_member (want, "prefetch") ? 1 : 0);
      /* Without prefetch, prefetch(AUTOTUNE) comes first, then the stage's fix. */
      fixes = cp_finding_get_fixes (f, CP_FRAMEWORK_TENSORFLOW);
      g_assert_nonnull (strstr (fixes[0], "prefetch(tf.data.AUTOTUNE)"));
      g_assert_nonnull (strstr (fixes[1], "num_parallel_calls=tf.data.AUTOTUNE"));
      /* The PyTorch-style input-bound finding tells the same: demoted. */
      if (cp_analysis_lookup_finding (a, "input-bound") != NULL)
        g_assert_cmpstr (cp_finding_get_explained_by (cp_analysis_lookup_finding (a, "input-bound")), ==, "input-pipeline");
    }

  if (json_object_has_member (want, "breakdown"))
    {
      static const CpTimeCategory cats[] = { CP_TIME_COMPUTE_16, CP_TIME_COMPUTE_32, CP_TIME_ASYNC_WAIT,
                                             CP_TIME_COLLECTIVES };
      JsonObject *bd = json_object_get_object_member (want, "breakdown");

      for (guint k = 0; k < G_N_ELEMENTS (cats); k++)
        {
          CpTimeSummary sum;

          cp_analysis_get_time_summary (a, cats[k], &sum);
          g_assert_cmpint (sum.total, ==, json_object_get_int_member (bd, cp_time_category_to_string (cats[k])));
        }
    }

  if (json_object_has_member (want, "kinds"))
    check_kinds (trace, a, json_object_get_object_member (want, "kinds"));

  devices = json_object_get_object_member (want, "devices");
  devs = cp_analysis_get_devices (a, &n_devs);
  for (guint d = 0; d < n_devs; d++)
    {
      g_autofree char *key = g_strdup_printf ("%d", devs[d].device);
      JsonObject *w;

      /* No device with kernels is measured against windows it has no work in. */
      if (devs[d].n_kernels > 0)
        g_assert_cmpint (devs[d].window_busy, >, 0);
      if (!json_object_has_member (devices, key))
        continue;
      w = json_object_get_object_member (devices, key);
      if (own_windows)
        g_assert_true (cp_analysis_device_has_own_windows (a, devs[d].device));
      g_assert_cmpint (devs[d].window_time, ==, json_object_get_int_member (w, "window_ns"));
      g_assert_cmpint (devs[d].window_busy, ==, json_object_get_int_member (w, "busy_ns"));
      g_assert_cmpint (devs[d].async_wait, ==, json_object_get_int_member (w, "async_ns"));
      if (json_object_has_member (w, "async_ops"))
        g_assert_cmpint (devs[d].n_async_ops, ==, json_object_get_int_member (w, "async_ops"));
    }
}

static void
check_capture (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *want = run_oracle (path, parser);

  if (want == NULL)
    {
      g_test_message ("python3 not found: %s not cross-checked", path);
      return;
    }
  /* The oracle lists devices with XLA Modules lines, which have their own. */
  check_against (path, want, TRUE);
  if (json_object_get_int_member (want, "steps") > 0)
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, NULL);
      g_autoptr(CpAnalysis) a = cp_analysis_new (trace, NULL, NULL);

      g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_MODULES);
    }
}

/* The generator's XLA scenarios against their truth. */
static void
test_scenarios (void)
{
  static const char * const names[] = {
    "xla-jax-gpu", "xla-tpu-async", "xla-tf-two-gpu", "xla-tf-data-starved",
  };
  const char *gen = g_getenv ("CP_GEN");
  g_autofree char *dir = cp_test_make_tmpdir ();

  g_assert_nonnull (gen);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *capture = g_strdup_printf ("%s/%s.xplane.pb", dir, names[i]);
      g_autofree char *truth = g_strdup_printf ("%s/%s.truth.json", dir, names[i]);
      const char *argv[] = { gen, "--scenario", names[i], "--out", capture, "--truth", truth,
                             "--steps", "7", "-q", NULL };
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GFile) file = g_file_new_for_path (capture);
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(CpAnalysis) a = NULL;
      int status = 0;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_true (json_parser_load_from_file (parser, truth, &error));
      g_assert_no_error (error);
      g_test_message ("%s", names[i]);
      check_against (capture, json_node_get_object (json_parser_get_root (parser)),
                     strcmp (names[i], "xla-tpu-async") == 0 || strcmp (names[i], "xla-tf-two-gpu") == 0);

      trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      a = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      {
        g_autoptr(JsonParser) oracle_parser = json_parser_new ();
        JsonObject *oracle = run_oracle (capture, oracle_parser);

        if (oracle != NULL)
          {
            JsonObject *kinds = json_object_get_object_member (oracle, "kinds");

            g_assert_cmpuint (json_object_get_size (kinds), >, 0);
            check_kinds (trace, a, kinds);
            g_assert_cmpint (cp_analysis_devices_are_tpu (a), ==, strcmp (names[i], "xla-tpu-async") == 0);
          }
      }
      if (strcmp (names[i], "xla-jax-gpu") == 0 || strcmp (names[i], "xla-tpu-async") == 0)
        g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_MODULES);
      else
        g_assert_cmpint (cp_analysis_get_step_source (a), ==, CP_STEPS_MARKERS);
    }
  cp_test_rm_rf (dir);
}

/* A profile folder of two TensorFlow workers whose steps differ (worker 1
 * runs after worker 0): each worker's GPU is measured against its own
 * host's steps, and neither shows 0% utilisation. */
static void
test_two_workers (void)
{
  const char *gen = g_getenv ("CP_GEN");
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *run = g_build_filename (dir, "logdir", "plugins", "profile", "run1", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (run);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  JsonObject *truth[2];
  g_autoptr(JsonParser) p0 = json_parser_new ();
  g_autoptr(JsonParser) p1 = json_parser_new ();
  JsonParser *parsers[2] = { p0, p1 };
  const CpDeviceStats *devs;
  guint n_devs = 0, checked = 0;

  g_assert_nonnull (gen);
  g_assert_cmpint (g_mkdir_with_parents (run, 0755), ==, 0);
  for (guint h = 0; h < 2; h++)
    {
      g_autofree char *host = g_strdup_printf ("%u", h);
      g_autofree char *capture = g_strdup_printf ("%s/worker%u.xplane.pb", run, h);
      g_autofree char *truth_path = g_strdup_printf ("%s/truth%u.json", dir, h);
      const char *argv[] = { gen, "--scenario", "xla-tf-worker", "--host", host, "--out", capture,
                             "--truth", truth_path, "-q", NULL };
      int status = 0;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_true (json_parser_load_from_file (parsers[h], truth_path, &error));
      g_assert_no_error (error);
      truth[h] = json_object_get_object_member (json_node_get_object (json_parser_get_root (parsers[h])), "devices");
    }
  trace = cp_load_file (folder, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  devs = cp_analysis_get_devices (a, &n_devs);
  g_assert_cmpuint (n_devs, ==, 2);
  for (guint d = 0; d < n_devs; d++)
    {
      /* Host h's GPU 0 is ordinal h in the folder. */
      JsonObject *w = json_object_get_object_member (truth[devs[d].device], "0");

      g_assert_true (cp_analysis_device_has_own_windows (a, devs[d].device));
      g_assert_cmpint (devs[d].window_time, ==, json_object_get_int_member (w, "window_ns"));
      g_assert_cmpint (devs[d].window_busy, ==, json_object_get_int_member (w, "busy_ns"));
      g_assert_cmpfloat (devs[d].utilization, >, 0.25);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 2);
  cp_test_rm_rf (dir);
}

static void
test_shared_traces (void)
{
  const char *root = cp_test_shared_traces ();
  GQueue dirs = G_QUEUE_INIT;
  guint n = 0;

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
          g_autofree char *path = g_build_filename (dir, name, NULL);

          if (g_file_test (path, G_FILE_TEST_IS_DIR))
            g_queue_push_tail (&dirs, g_steal_pointer (&path));
          else if (g_str_has_suffix (name, ".xplane.pb") && strstr (path, "_corrupted_") == NULL)
            {
              check_capture (path);
              n++;
            }
        }
    }
  if (n == 0)
    g_test_skip ("no .xplane.pb under the shared traces");
}

/* Where each HLO op comes from (the programs' HloProto), against
 * tests/hlo-source.py over the raw wire: the capture's table op by op, and
 * the device time per source line through cp_analysis_xla_source(). */
static void
test_hlo_sources (void)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".",
                                              "hlo-source.py", NULL);
  const char *argv[] = { python, script, root, NULL };
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GList) paths = NULL;
  JsonObject *all;
  int status = 0;
  guint n_captures = 0, n_ops = 0;

  if (root == NULL || python == NULL)
    {
      g_test_skip ("no shared traces, or no python3 for the independent reading");
      return;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  all = json_node_get_object (json_parser_get_root (parser));
  paths = json_object_get_members (all);
  for (GList *l = paths; l != NULL; l = l->next)
    {
      JsonObject *want = json_object_get_object_member (all, l->data);
      JsonObject *sources = json_object_get_object_member (want, "sources");
      JsonObject *by_line = json_object_get_object_member (want, "time_by_line");
      g_autoptr(GFile) file = NULL;
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(CpAnalysis) a = NULL;
      g_autoptr(GList) keys = NULL;
      g_autoptr(GHashTable) got = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      const CpStringPool *pool;

      if (strstr (l->data, "_corrupted_") != NULL)
        continue;
      file = g_file_new_for_path (l->data);
      trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      a = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      pool = cp_trace_get_string_pool (trace);

      /* The table, op by op. */
      g_assert_cmpuint (cp_trace_get_n_xla_sources (trace), ==, json_object_get_size (sources));
      keys = json_object_get_members (sources);
      for (GList *k = keys; k != NULL; k = k->next)
        {
          JsonArray *w = json_object_get_array_member (sources, k->data);
          const char *slash = strchr (k->data, '/');
          gint64 program = g_ascii_strtoll (k->data, NULL, 10);
          const CpXlaSource *src = cp_trace_find_xla_source (trace, program, cp_string_pool_lookup (pool, slash + 1));

          if (src == NULL)
            g_error ("%s: no source for %s", (char *) l->data, (char *) k->data);
          g_assert_cmpstr (cp_trace_get_string (trace, src->op_name), ==, json_array_get_string_element (w, 0));
          g_assert_cmpstr (cp_trace_get_string (trace, src->file), ==, json_array_get_string_element (w, 1));
          g_assert_cmpint (src->line, ==, json_array_get_int_element (w, 2));
          g_assert_cmpstr (cp_trace_get_string (trace, src->function), ==, json_array_get_string_element (w, 3));
          n_ops++;
        }

      /* Device time per source line, slice by slice. */
      for (guint ln = 0; ln < cp_trace_get_n_lanes (trace); ln++)
        {
          CpLane *lane = cp_trace_get_lane (trace, ln);
          const CpProcess *proc = cp_trace_get_process (trace, cp_lane_get_process (lane));
          const CpSlices *sl = cp_lane_get_slices (lane);

          if (proc == NULL || !proc->is_device)
            continue;
          for (guint i = 0; i < sl->n; i++)
            {
              const CpXlaSource *src = cp_analysis_xla_source (a, (CpSliceRef) { ln, i });
              g_autofree char *key = NULL;
              gint64 *t;

              if (src == NULL || src->file == CP_STR_EMPTY)
                continue;
              key = g_strdup (cp_trace_get_string (trace, src->code));
              t = g_hash_table_lookup (got, key);
              if (t == NULL)
                {
                  t = g_new0 (gint64, 1);
                  g_hash_table_insert (got, g_strdup (key), t);
                }
              *t += cp_slices_get_dur (sl, i);
            }
        }
      g_assert_cmpuint (g_hash_table_size (got), ==, json_object_get_size (by_line));
      {
        g_autoptr(GList) lines = json_object_get_members (by_line);

        for (GList *k = lines; k != NULL; k = k->next)
          {
            gint64 *t = g_hash_table_lookup (got, k->data);

            if (t == NULL || *t != json_object_get_int_member (by_line, k->data))
              g_error ("%s: %s: %" G_GINT64_FORMAT " ns of device time, Python %" G_GINT64_FORMAT,
                       (char *) l->data, (char *) k->data, t ? *t : -1,
                       json_object_get_int_member (by_line, k->data));
          }
      }
      /* The Kernels pane's Code page: kernel time by line of code. */
      {
        JsonObject *kernel_lines = json_object_get_object_member (want, "kernel_time_by_line");
        g_autoptr(GArray) groups = cp_analysis_kernels_by_source (a, CP_SOURCE_FRAME, NULL);

        g_assert_cmpuint (groups->len, ==, json_object_get_size (kernel_lines));
        for (guint g = 0; g < groups->len; g++)
          {
            const CpSourceGroup *grp = &g_array_index (groups, CpSourceGroup, g);
            const char *code = cp_trace_get_string (trace, grp->name);
            g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));

            if (!json_object_has_member (kernel_lines, code))
              g_error ("%s: Code group %s, not in hlo-source.py", (char *) l->data, code);
            g_assert_cmpint (grp->time, ==, json_object_get_int_member (kernel_lines, code));
            /* Its row highlights exactly its kernels. */
            cp_analysis_collect_xla_code_slices (a, grp->name, refs);
            g_assert_cmpuint (refs->len, ==, grp->kernels);
          }
      }
      n_captures++;
    }
  g_test_message ("%u captures, %u HLO ops compared with hlo-source.py", n_captures, n_ops);
  if (n_captures == 0)
    g_test_skip ("no XPlane capture with HLO under the shared traces");
}

/* An "Hlo Proto" that is not one (zeros: field number 0) is left out: the
 * capture loads and its ops have no source, without a crash or a warning
 * about the events. */
static void
test_hlo_damaged (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  XpPlane *meta = xp_plane_new (1, "/host:metadata");
  XpPlane *gpu = xp_plane_new (2, "/device:GPU:0");

  xp_event_meta (meta, "jit_step(7)", NULL, xp_stat_bytes (meta, "Hlo Proto", 64), NULL);
  xp_line (gpu, 7, 0, "Stream #7(Compute)", NULL, 1000,
           xp_event (gpu, "fusion_kernel", 0, 1000000,
                     xp_stat_int (gpu, "program_id", 7), xp_stat_str (gpu, "hlo_op", "fusion.1"), NULL),
           NULL);
  xp_space_add_plane (space, meta);
  xp_space_add_plane (space, gpu);
  trace = xp_space_load (space, &a);
  g_assert_cmpuint (cp_trace_get_n_xla_sources (trace), ==, 0);
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    for (guint i = 0; i < cp_lane_get_n_slices (cp_trace_get_lane (trace, l)); i++)
      g_assert_null (cp_analysis_xla_source (a, (CpSliceRef) { l, i }));
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), >, 0);
}

/* The TPU capture: copy-done waits are not compute, the 19 s before the
 * first jit_f execution are warm-up. */
static void
test_tpu_figures (void)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  CpTimeSummary wait, c32;

  if (root == NULL)
    {
      g_test_skip ("no shared traces");
      return;
    }
  path = g_build_filename (root, "openxla__xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no TPU capture");
      return;
    }
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  cp_analysis_get_time_summary (a, CP_TIME_ASYNC_WAIT, &wait);
  cp_analysis_get_time_summary (a, CP_TIME_COMPUTE_32, &c32);
  g_assert_cmpfloat (wait.percent, >, 80.0);
  g_assert_cmpfloat (c32.percent, <, 15.0);

  /* The op profile: ~96% of the op time is async (copy-done) ops. */
  {
    g_autofree char *json = cp_analysis_to_json (a, FALSE);
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonArray *ops;
    double async_share = -1;

    g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
    ops = json_object_get_array_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "metrics"), "xla_ops");
    for (guint i = 0; i < json_array_get_length (ops); i++)
      {
        JsonObject *o = json_array_get_object_element (ops, i);

        if (g_str_equal (json_object_get_string_member (o, "class"), "async"))
          async_share = json_object_get_double_member (o, "share");
      }
    g_assert_cmpfloat (async_share, >, 0.95);
    g_assert_cmpfloat (async_share, <, 0.98);
  }
}

/* A space with one device plane per name in planes, each with a busy XLA
 * line (a fusion every 100 µs for 40 µs, ten times), analysed. */
static CpAnalysis *
analyse_planes (const char * const *planes,
                CpTrace           **trace_out,
                GByteArray        **space_out)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  CpTrace *trace;
  CpAnalysis *a;

  for (guint p = 0; planes[p] != NULL; p++)
    {
      XpPlane *plane = xp_plane_new (p + 1, planes[p]);

      xp_line (plane, 1, 0, "XLA Ops", NULL, 1000,
               xp_event (plane, "fusion.1", 0, 40000000, NULL),
               xp_event (plane, "fusion.1", 100000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 200000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 300000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 400000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 500000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 600000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 700000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 800000000, 40000000, NULL),
               xp_event (plane, "fusion.1", 900000000, 40000000, NULL),
               NULL);
      xp_space_add_plane (space, plane);
    }
  trace = xp_space_load (space, &a);
  *trace_out = trace;
  *space_out = g_steal_pointer (&space);
  return a;
}

/* What `chokepoint CMD path` prints on stdout; it must succeed. */
static char *
run_cli (const char *cmd,
         const char *path)
{
  const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), cmd, path, NULL };
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

/* A capture that mixes device kinds (a GPU beside a TPU) calls them
 * "device" in the verdict and "Devices" in the section titles; all-TPU
 * says "TPU"; all-GPU "GPU". Each device keeps its own kind. */
static void
test_mixed_kinds (void)
{
  static const char * const mixed[] = { "/device:GPU:0", "/device:TPU:0", NULL };
  static const char * const tpus[] = { "/device:TPU:0", "/device:TPU:1", NULL };
  static const char * const gpus[] = { "/device:GPU:0", NULL };
  static const struct { const char * const *planes; const char *word; gboolean tpu, mixed; } cases[] = {
    { mixed, "device", FALSE, TRUE },
    { tpus, "TPU", TRUE, FALSE },
    { gpus, "GPU", FALSE, FALSE },
  };
  const char *exe = g_getenv ("CP_CHOKEPOINT");
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(GByteArray) space = NULL;
      g_autoptr(CpAnalysis) a = analyse_planes (cases[c].planes, &trace, &space);
      const CpVerdict *v = cp_analysis_get_verdict (a);
      const char *idle = cp_analysis_get_section_title (a, CP_FINDING_SECTION_IDLE);
      guint n_gpu = 0, n_tpu = 0;

      for (guint i = 0; i < cp_trace_get_n_processes (trace); i++)
        {
          const CpProcess *p = cp_trace_get_process (trace, i);

          if (!p->is_device || p->device < 0)
            continue;
          n_gpu += cp_process_get_device_kind (trace, p) == CP_DEVICE_KIND_GPU;
          n_tpu += cp_process_get_device_kind (trace, p) == CP_DEVICE_KIND_TPU;
        }
      g_assert_cmpuint (n_gpu + n_tpu, ==, g_strv_length ((char **) cases[c].planes));
      g_assert_cmpstr (cp_analysis_get_device_word (a), ==, cases[c].word);
      g_assert_cmpint (cp_analysis_devices_are_tpu (a), ==, cases[c].tpu);
      g_assert_cmpint (cp_analysis_devices_are_mixed (a), ==, cases[c].mixed);
      g_assert_cmpstr (v->device_word, ==, cases[c].word);
      if (cases[c].mixed)
        {
          g_assert_cmpstr (idle, ==, "Why the Devices Wait");
          g_assert_cmpint (cp_analysis_get_rule_device_kind (a), ==, CP_DEVICE_KIND_GPU);
        }
      else
        {
          g_autofree char *want = g_strdup_printf ("Why the %s Waits", cases[c].word);

          g_assert_cmpstr (idle, ==, want);
        }

      /* `info` names each device by its kind: "TPU 0 (pid …" for a TPU
       * plane, "GPU 0 (pid …" for a GPU's, never a TPU as a GPU. */
      if (exe != NULL && g_file_test (exe, G_FILE_TEST_IS_EXECUTABLE))
        {
          g_autofree char *name = g_strdup_printf ("case%u.xplane.pb", c);
          g_autofree char *path = cp_test_write_file (dir, name, (const char *) space->data, space->len);
          g_autofree char *info = run_cli ("info", path);
          g_auto(GStrv) lines = g_strsplit (info, "\n", -1);
          guint n_tpu_lines = 0, n_gpu_lines = 0;

          for (guint i = 0; lines[i] != NULL; i++)
            {
              gboolean is_tpu_plane = strstr (lines[i], "/device:TPU:") != NULL;
              gboolean is_gpu_plane = strstr (lines[i], "/device:GPU:") != NULL;

              if (!is_tpu_plane && !is_gpu_plane)
                continue;
              g_assert_nonnull (strstr (lines[i], is_tpu_plane ? "TPU " : "GPU "));
              g_assert_null (strstr (lines[i], is_tpu_plane ? "GPU " : "TPU "));
              n_tpu_lines += is_tpu_plane;
              n_gpu_lines += is_gpu_plane;
            }
          g_assert_cmpuint (n_tpu_lines + n_gpu_lines, ==, g_strv_length ((char **) cases[c].planes));
          if (cases[c].tpu)
            g_assert_null (strstr (info, "GPU"));
        }
    }
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/xla/op-classes", test_op_classes);
  g_test_add_func ("/xla/shared-traces", test_shared_traces);
  g_test_add_func ("/xla/hlo-sources", test_hlo_sources);
  g_test_add_func ("/xla/hlo-damaged", test_hlo_damaged);
  g_test_add_func ("/xla/scenarios", test_scenarios);
  g_test_add_func ("/xla/two-workers", test_two_workers);
  g_test_add_func ("/xla/tpu-figures", test_tpu_figures);
  g_test_add_func ("/xla/mixed-kinds", test_mixed_kinds);

  return g_test_run ();
}
