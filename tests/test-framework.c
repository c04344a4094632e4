/* test-framework.c: the framework told from a capture, on the shared real
 * captures and the generator's scenarios, against an independent count of
 * the raw events (framework-count.py); and the fixes of the capture's
 * framework leading the findings.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-framework.h"
#include "cp-test-trace.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

/* Captures under ../shared/traces and the framework each was recorded
 * with, as their MANIFEST.md describes them (the oracle's counts are
 * compared signal by signal on top). */
static const struct { const char *path; const char *framework; } shared[] = {
  { "AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "pytorch" },
  { "AMD-AGI__TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz", "pytorch" },
  { "AMD-AGI__TraceLens/tests/traces/torch_compile_triton/trace.json.gz", "pytorch" },
  { "AMD-AGI__TraceLens/tests/traces/inference/xdit_flux.1/capture_traces/capture_trace_rank_0.json.gz", "pytorch" },
  { "AMD-AGI__TraceLens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz", "pytorch" },
  { "AMD-AGI__TraceLens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz", "pytorch" },
  { "facebookresearch__HolisticTraceAnalysis/tests/data/triton_example/triton_example.json.gz", "pytorch" },
  { "facebookresearch__HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/rank0.json.gz", "pytorch" },
  { "facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz", "pytorch" },
  { "facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz", "pytorch" },
  { "pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz", "pytorch" },
  { "catapult-project__catapult/tracing/test_data/simple_trace.json", "none" },
  { "AMD-AGI__TraceLens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb", "jax" },
  { "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", "jax" },
  { "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb", "jax" },
  { "openxla__xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb", "jax" },
};

/* The generator's scenarios and the framework they lay out. */
static const struct { const char *scenario; const char *format; const char *framework; } generated[] = {
  { "healthy", "json", "pytorch" },
  { "launch-bound", "json", "pytorch" },
  { "xla-jax-gpu", "xplane", "jax" },
  { "xla-tpu-async", "xplane", "jax" },
  { "xla-tf-two-gpu", "xplane", "tensorflow" },
  { "xla-tf-data-starved", "xplane", "tensorflow" },
};

/* Fixes that say the capture already applies what they are about. */
static guint n_already;

static JsonObject *
run_oracle (const char *path,
            JsonParser *parser)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".",
                                              "framework-count.py", NULL);
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

/* The PyTorch-only fixes a JAX or TensorFlow capture must not lead with. */
static gboolean
is_pytorch_fix (const char *fix)
{
  return strstr (fix, "torch") != NULL || strstr (fix, "DataLoader") != NULL || strstr (fix, "CUDA graph") != NULL;
}

static void
check_capture (const char *path,
               const char *want_framework)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(CpAnalysis) a = NULL;
  JsonObject *want, *counts;
  JsonArray *variants;
  const CpFrameworkInfo *info;
  GListModel *findings;
  CpFramework lead;
  guint variant_bits = 0;
  g_autofree char *described = NULL;

  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  info = cp_analysis_get_framework (a);
  described = cp_framework_info_describe (info);
  g_test_message ("%s: %s", path, described);

  g_assert_cmpstr (cp_detected_framework_to_string (info->framework), ==, want_framework);
  want = run_oracle (path, parser);
  if (want == NULL)
    {
      g_test_message ("python3 not found: %s not cross-checked", path);
      return;
    }
  counts = json_object_get_object_member (want, "counts");
  for (guint s = 0; s < CP_N_FRAMEWORK_SIGNALS; s++)
    {
      const char *id = cp_framework_signal_to_string (s);

      g_assert_true (json_object_has_member (counts, id));
      if ((gint64) info->counts[s] != json_object_get_int_member (counts, id))
        g_error ("%s: signal %s: %" G_GUINT64_FORMAT " events, the raw events have %" G_GINT64_FORMAT,
                 path, id, info->counts[s], json_object_get_int_member (counts, id));
    }
  g_assert_cmpstr (json_object_get_string_member (want, "framework"), ==, want_framework);
  variants = json_object_get_array_member (want, "variants");
  for (guint k = 0; k < json_array_get_length (variants); k++)
    {
      const char *v = json_array_get_string_element (variants, k);
      gboolean found = FALSE;

      for (guint b = 0; b < CP_N_FRAMEWORK_VARIANTS; b++)
        if (g_strcmp0 (cp_framework_variant_to_string (1u << b), v) == 0)
          {
            variant_bits |= 1u << b;
            found = TRUE;
          }
      g_assert_true (found);
    }
  g_assert_cmphex (info->variants, ==, variant_bits);

  /* Rules for another framework or device kind are listed as not checked,
   * with why, and none of them has a finding. */
  {
    guint n_unchecked;
    const CpRule * const *unchecked = cp_analysis_get_unchecked_rules (a, &n_unchecked);
    gboolean tpu = cp_analysis_devices_are_tpu (a);

    for (guint k = 0; k < n_unchecked; k++)
      {
        const char *why = NULL;

        g_assert_false (cp_rule_applies (unchecked[k], info->framework, cp_analysis_get_rule_device_kind (a), &why));
        g_assert_nonnull (why);
        g_assert_null (cp_analysis_lookup_finding (a, unchecked[k]->id));
      }
    /* DataParallel and the DataLoader rule are PyTorch's; a TPU has no
     * kernel launches or pageable copies to measure. */
    if (info->framework == CP_DETECTED_JAX || info->framework == CP_DETECTED_TENSORFLOW)
      {
        g_assert_null (cp_analysis_lookup_finding (a, "dataparallel"));
        g_assert_null (cp_analysis_lookup_finding (a, "dataloader-single-process"));
        g_assert_cmpuint (n_unchecked, >=, 2);
      }
    if (tpu)
      {
        gboolean launch = FALSE;

        for (guint k = 0; k < n_unchecked; k++)
          launch |= g_str_equal (unchecked[k]->id, "launch-bound");
        g_assert_true (launch);
      }
  }

  /* The fixes that lead are the framework's: no JAX or TensorFlow capture
   * leads with a PyTorch fix, and a capture already under torch.compile,
   * CUDA graphs or jax.jit is not told to use it (a fix naming it says
   * what to look at in it instead). */
  if (!cp_framework_info_get_fixes_framework (info, &lead))
    return;
  findings = cp_analysis_get_findings (a);
  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);
      const char * const *fixes = cp_finding_get_fixes (f, lead);

      for (guint k = 0; fixes[k] != NULL; k++)
        {
          if (lead != CP_FRAMEWORK_PYTORCH && is_pytorch_fix (fixes[k]))
            g_error ("%s: %s leads with a PyTorch fix: %s", path, cp_finding_get_rule_id (f), fixes[k]);
          if ((info->variants & CP_VARIANT_TORCH_COMPILE) && strstr (fixes[k], "torch.compile") != NULL &&
              strstr (fixes[k], "already") == NULL)
            g_error ("%s: %s offers torch.compile to a compiled capture: %s", path, cp_finding_get_rule_id (f), fixes[k]);
          if ((info->variants & CP_VARIANT_CUDA_GRAPHS) && strstr (fixes[k], "CUDA graph") != NULL &&
              strstr (fixes[k], "already") == NULL)
            g_error ("%s: %s offers CUDA graphs to a capture that has them: %s", path, cp_finding_get_rule_id (f), fixes[k]);
          if ((info->variants & CP_VARIANT_JIT) && strstr (fixes[k], "jax.jit") != NULL &&
              strstr (fixes[k], "already") == NULL)
            g_error ("%s: %s offers jax.jit to a jitted capture: %s", path, cp_finding_get_rule_id (f), fixes[k]);
          if ((info->variants & CP_VARIANT_TF_FUNCTION) && g_str_has_prefix (fixes[k], "Wrap the step in tf.function"))
            g_error ("%s: %s offers tf.function to a capture that runs one: %s", path, cp_finding_get_rule_id (f), fixes[k]);
          if (strstr (fixes[k], "already") != NULL)
            n_already++;
          if (cp_analysis_devices_are_tpu (a) && strstr (fixes[k], "GPU") != NULL)
            g_error ("%s: %s says GPU on a TPU: %s", path, cp_finding_get_rule_id (f), fixes[k]);
        }
    }
}

static void
test_shared (void)
{
  const char *root = cp_test_shared_traces ();
  guint checked = 0;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (shared); i++)
    {
      g_autofree char *path = g_build_filename (root, shared[i].path, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_test_message ("%s is missing", path);
          continue;
        }
      check_capture (path, shared[i].framework);
      checked++;
    }
  if (checked == 0)
    g_test_skip ("none of the shared captures is there");
  /* The compiled, graph-launching and jitted captures among them had
   * fixes turned into what to look at. */
  else
    g_assert_cmpuint (n_already, >, 0);
}

static void
test_generated (void)
{
  const char *gen = g_getenv ("CP_GEN");
  g_autofree char *dir = cp_test_make_tmpdir ();

  g_assert_nonnull (gen);
  for (guint i = 0; i < G_N_ELEMENTS (generated); i++)
    {
      g_autofree char *capture = g_strdup_printf ("%s/%s.%s", dir, generated[i].scenario,
                                                  g_str_equal (generated[i].format, "json") ? "json" : "xplane.pb");
      const char *argv[] = { gen, "--scenario", generated[i].scenario, "--format", generated[i].format,
                             "--out", capture, "--steps", "4", "-q", NULL };
      g_autoptr(GError) error = NULL;
      int status = 0;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      check_capture (capture, generated[i].framework);
    }
  cp_test_rm_rf (dir);
}

/* A JAX capture whose GPU 0 only copies (its plane holds 53
 * CopyDeviceToDevice events and nothing else) and whose GPU 7 computes:
 * GPU 0 is not the least busy device, nor shown at 0% utilisation. */
static void
test_copy_only_device (void)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  CpFinding *low;
  const CpDeviceStats *devs;
  guint n;
  gboolean seen = FALSE;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  path = g_build_filename (root, "AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/"
                           "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the jax_conv_minimal_legacy capture is missing");
      return;
    }
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  devs = cp_analysis_get_devices (a, &n);
  for (guint d = 0; d < n; d++)
    if (devs[d].device == 0)
      {
        g_assert_cmpuint (devs[d].n_kernels, ==, 0);
        seen = TRUE;
      }
  g_assert_true (seen);
  /* The verdict's busy share and low-utilization speak of GPU 7. */
  g_assert_cmpfloat (cp_analysis_get_verdict (a)->busy_percent, >, 0.0);
  low = cp_analysis_lookup_finding (a, "low-utilization");
  if (low != NULL)
    {
      g_assert_cmpfloat (cp_finding_lookup_figure (low, "device")->value, ==, 7);
      g_assert_cmpfloat (cp_finding_lookup_figure (low, "utilization")->value, >, 0.0);
    }
  /* The JSON marks the device. */
  {
    g_autofree char *json = cp_analysis_to_json (a, FALSE);

    g_assert_nonnull (strstr (json, "\"only_copies\":true"));
  }
}

/* The rules of cp-framework.h on small hand-made traces. */
static void
detect_names (const char * const *host,
              const char * const *kernels,
              CpFrameworkInfo    *info)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  g_autoptr(CpTrace) trace = NULL;
  gint64 t = 0;

  for (guint i = 0; host != NULL && host[i] != NULL; i++, t += 10)
    cp_test_trace_slice (b, h, t, 5, host[i]);
  for (guint i = 0; kernels != NULL && kernels[i] != NULL; i++, t += 10)
    cp_test_trace_slice (b, k, t, 5, kernels[i]);
  trace = cp_test_trace_finish (b);
  cp_framework_detect (trace, info);
}

static void
test_rules (void)
{
  CpFrameworkInfo info;
  CpFramework lead;

  /* XLA alone: its fixes are JAX's. */
  {
    const char *host[] = { "jit_step:XLA GPU module", "GpuExecutable::ExecuteThunks", NULL };

    detect_names (host, NULL, &info);
    /* "jit_step:XLA GPU module" is a jit_ module too: JAX. */
    g_assert_cmpint (info.framework, ==, CP_DETECTED_JAX);
  }
  {
    const char *host[] = { "cluster_3:XLA GPU module", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_XLA);
    g_assert_cmpuint (info.variants, ==, 0);
    g_assert_true (cp_framework_info_get_fixes_framework (&info, &lead));
    g_assert_cmpint (lead, ==, CP_FRAMEWORK_JAX);
  }
  /* tf.data feeding JAX stays JAX's; with tf.function it is TensorFlow's. */
  {
    const char *host[] = { "PjitFunction(train_step)", "Iterator::Model", "Iterator::Model::Map",
                           "IteratorGetNext", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_JAX);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_JIT | CP_VARIANT_TF_DATA);
    g_assert_cmpuint (info.counts[CP_SIGNAL_TF_DATA], ==, 3);
  }
  {
    const char *host[] = { "PjitFunction(f)", "__inference_train_function_12", "Iterator::Model",
                           "IteratorGetNext", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_TENSORFLOW);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_TF_FUNCTION | CP_VARIANT_TF_DATA);
  }
  /* TensorFlow calls a tf.function eagerly: "EagerLocalExecute:
   * __inference_…" is the function, and the one EagerKernelExecute of
   * each call is not eager execution of ops. */
  {
    const char *host[] = { "EagerLocalExecute: __inference_train_step_1234", "EagerKernelExecute",
                           "ExecutorState::Process", "a_inference_train_step_1234__XlaMustCompile_true_config_proto_1",
                           NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_TENSORFLOW);
    g_assert_cmpuint (info.counts[CP_SIGNAL_TF_FUNCTION], ==, 2);
    g_assert_cmpuint (info.counts[CP_SIGNAL_TF_EAGER], ==, 1);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_TF_FUNCTION);
  }
  {
    const char *host[] = { "EagerLocalExecute: MatMul", "EagerKernelExecute", "EagerLocalExecute: AddV2",
                           "EagerKernelExecute", "__forward_call_99", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_TENSORFLOW);
    g_assert_cmpuint (info.counts[CP_SIGNAL_TF_FUNCTION], ==, 1);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_TF_FUNCTION | CP_VARIANT_EAGER);
  }
  /* Triton kernels count on kernel lanes only; eager without them. */
  {
    const char *host[] = { "aten::mm", "triton_poi_fused_add_0", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_PYTORCH);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_EAGER);
    g_assert_cmpuint (info.counts[CP_SIGNAL_TRITON], ==, 0);
  }
  {
    const char *host[] = { "aten::mm", "cudaGraphLaunch", NULL };
    const char *kernels[] = { "triton_poi_fused_add_0", "triton_red_fused_sum_1", NULL };

    detect_names (host, kernels, &info);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_TORCH_COMPILE | CP_VARIANT_CUDA_GRAPHS);
    g_assert_cmpuint (info.counts[CP_SIGNAL_TRITON], ==, 2);
  }
  /* Keras in any case; nothing known: none, and no fixes lead. */
  {
    const char *host[] = { "$KerasTensor call", "$keras/src/engine.py:10 fit", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_TENSORFLOW);
    g_assert_cmpuint (info.counts[CP_SIGNAL_KERAS], ==, 2);
    g_assert_cmphex (info.variants, ==, CP_VARIANT_KERAS);
  }
  {
    const char *host[] = { "MessageLoop::RunTask", "ThreadControllerImpl::RunTask", NULL };

    detect_names (host, NULL, &info);
    g_assert_cmpint (info.framework, ==, CP_DETECTED_NONE);
    g_assert_false (cp_framework_info_get_fixes_framework (&info, &lead));
    g_assert_null (cp_framework_info_describe_evidence (&info));
  }
}

/* Five TensorFlow steps of 10 ms on device 0 (named name, of vendor and
 * compute capability major.x): the host runs the step for 9 ms, as a
 * tf.function or op by op, and launches one 1.5 ms fp32 GEMM at 8 ms.
 * The device idles 85% of each step (host-overhead), all its compute is
 * fp32 GEMM (no-mixed-precision). */
static CpAnalysis *
tf_steps (const char *name,
          const char *vendor,
          gint        major,
          gboolean    function)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint h = cp_test_trace_host_lane (b, 1);
  guint k = cp_test_trace_kernel_lane (b, 0, 7);
  CpDevice *dev = cp_trace_builder_device (b, 0);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  CpAnalysis *a;

  dev->name = cp_trace_builder_intern (b, name, -1);
  dev->vendor = cp_trace_builder_intern (b, vendor, -1);
  dev->compute_major = major;
  for (gint64 step = 0; step < 5; step++)
    {
      gint64 t = step * 10000000;

      cp_test_trace_slice (b, h, t, 9000000, function ? "EagerLocalExecute: __inference_train_step_7"
                                                      : "EagerLocalExecute: MatMul");
      cp_test_trace_slice (b, h, t + 100000, 8800000, "EagerKernelExecute");
      cp_test_trace_launch (b, h, t + 8000000, 10000, k, t + 8100000, 1500000, "volta_sgemm_128x64_nn");
    }
  trace = cp_test_trace_finish (b);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  return a;
}

/* Whether a finding's fixes for a framework hold a text. */
static gboolean
fixes_have (CpAnalysis  *a,
            const char  *rule,
            CpFramework  fw,
            const char  *text)
{
  CpFinding *f = cp_analysis_lookup_finding (a, rule);
  const char * const *fixes;

  g_assert_nonnull (f);
  fixes = cp_finding_get_fixes (f, fw);
  for (guint i = 0; fixes[i] != NULL; i++)
    if (strstr (fixes[i], text) != NULL)
      return TRUE;
  return FALSE;
}

/* A capture that runs its step as a tf.function is not told to wrap it in
 * one; one that runs op by op is. */
static void
test_tf_function_fix (void)
{
  g_autoptr(CpAnalysis) graph = tf_steps ("", "", -1, TRUE);
  g_autoptr(CpAnalysis) eager = tf_steps ("", "", -1, FALSE);

  g_assert_cmphex (cp_analysis_get_framework (graph)->variants, ==, CP_VARIANT_TF_FUNCTION);
  g_assert_false (fixes_have (graph, "host-overhead", CP_FRAMEWORK_TENSORFLOW, "Wrap the step in tf.function"));
  g_assert_true (fixes_have (graph, "host-overhead", CP_FRAMEWORK_TENSORFLOW, "already runs in tf.function"));
  g_assert_cmphex (cp_analysis_get_framework (eager)->variants, ==, CP_VARIANT_EAGER);
  g_assert_true (fixes_have (eager, "host-overhead", CP_FRAMEWORK_TENSORFLOW, "Wrap the step in tf.function"));
}

/* TF32 is offered only where the device may have it: not on a V100
 * (7.0) or T4 (7.5), nor on an MI250X; on an A100, an MI300X, and where
 * the capture does not say what the device is. */
static void
test_tf32_fix (void)
{
  static const struct { const char *name, *vendor; gint major; gboolean tf32; } devices[] = {
    { "Tesla V100-SXM2-16GB", "", 7, FALSE },
    { "Tesla T4", "", 7, FALSE },
    { "Tesla T4", "", -1, FALSE },
    { "AMD Instinct MI250X", "AMD", 9, FALSE },
    { "NVIDIA A100-SXM4-40GB", "", 8, TRUE },
    { "AMD Instinct MI300X", "AMD", 9, TRUE },
    { "", "", -1, TRUE },
    { "Some Accelerator", "", -1, TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    {
      g_autoptr(CpAnalysis) a = tf_steps (devices[i].name, devices[i].vendor, devices[i].major, TRUE);

      g_test_message ("%s (%d): TF32 %s", devices[i].name, devices[i].major, devices[i].tf32 ? "yes" : "no");
      g_assert_cmpint (fixes_have (a, "no-mixed-precision", CP_FRAMEWORK_PYTORCH, "TF32"), ==, devices[i].tf32);
      g_assert_cmpint (fixes_have (a, "no-mixed-precision", CP_FRAMEWORK_JAX, "tensorfloat32"), ==, devices[i].tf32);
      g_assert_cmpint (fixes_have (a, "no-mixed-precision", CP_FRAMEWORK_TENSORFLOW, "TF32"), ==, devices[i].tf32);
      /* Mixed precision itself stays offered. */
      g_assert_true (fixes_have (a, "no-mixed-precision", CP_FRAMEWORK_TENSORFLOW, "mixed_float16"));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/framework/rules", test_rules);
  g_test_add_func ("/framework/shared", test_shared);
  g_test_add_func ("/framework/generated", test_generated);
  g_test_add_func ("/framework/copy-only-device", test_copy_only_device);
  g_test_add_func ("/framework/tf-function-fix", test_tf_function_fix);
  g_test_add_func ("/framework/tf32-fix", test_tf32_fix);

  return g_test_run ();
}
