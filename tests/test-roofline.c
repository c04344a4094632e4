/* test-roofline.c: the performance model per kernel and host op
 *
 * Shape-derived FLOPs are checked against the formulas written out by hand
 * (2·M·N·K, 2·N·C_out·H_out·W_out·C_in·k_h·k_w, 2·B·H·L·S·(E + E_v)) on
 * captures written here; the real captures against tests/roofline-count.py,
 * an independent count over their raw events.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <json-glib/json-glib.h>

#include "analysis/cp-analysis.h"
#include "formats/cp-loader.h"
#include "formats/cp-xplane-reader.h"
#include "model/cp-trace-builder.h"
#include "cp-test-xspace.h"
#include "cp-test-util.h"

/* The datasheet figures the tests expect (H100 SXM, bf16 dense). */
#define H100_BF16 989.5
#define H100_BW 3350.0

typedef struct
{
  const char *op;
  const char *args;       /* the op's arguments, inside {} */
  const char *kernel;     /* launched kernel's name */
  guint       kernel_us;  /* its duration */
} Op;

/* A Kineto capture: each op on the host thread launches its kernel (and
 * a second one when kernel2 is set). */
static CpAnalysis *
analyse_ops (const char *device_name,
             const Op   *ops,
             guint       n_ops,
             const char *second_kernel,
             guint       second_us)
{
  g_autoptr(GString) j = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [");
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  CpAnalysis *analysis;
  guint corr = 100, t = 1000;

  g_string_append_printf (j, "{\"id\": 0, \"name\": \"%s\", \"totalGlobalMem\": 85018279936, "
                          "\"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}], \"traceEvents\": [",
                          device_name);
  g_string_append (j, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"python\"}},\n"
                      "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"python\"}},\n"
                      "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 0, \"args\": {\"labels\": \"GPU 0\"}}");
  for (guint i = 0; i < n_ops; i++)
    {
      guint k = ops[i].kernel_us;
      gboolean two = second_kernel != NULL && i == 0;

      g_string_append_printf (j, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, "
                              "\"ts\": %u, \"dur\": 40, \"args\": {%s}}", ops[i].op, t, ops[i].args);
      g_string_append_printf (j, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 5, \"args\": {\"correlation\": %u}}",
                              t + 5, corr);
      g_string_append_printf (j, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
                              "\"ts\": %u, \"dur\": %u, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %u}}",
                              ops[i].kernel, t + 20, k, corr);
      corr++;
      if (two)
        {
          g_string_append_printf (j, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                  "\"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 5, \"args\": {\"correlation\": %u}}",
                                  t + 20, corr);
          g_string_append_printf (j, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
                                  "\"ts\": %u, \"dur\": %u, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %u}}",
                                  second_kernel, t + 20 + k + 1, second_us, corr);
          corr++;
        }
      t += 1000;
    }
  g_string_append (j, "]}\n");

  path = cp_test_write_file (dir, "ops.pt.trace.json", j->str, (gssize) j->len);
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  cp_test_rm_rf (dir);
  return analysis;
}

static const CpRooflineStats *
find (CpAnalysis *analysis,
      gboolean    ops,
      const char *name)
{
  guint n;
  const CpRooflineStats *st = cp_analysis_get_roofline (analysis, ops, &n);
  CpTrace *trace = cp_analysis_get_trace (analysis);

  for (guint k = 0; k < n; k++)
    if (g_str_equal (cp_trace_get_string (trace, st[k].name), name))
      return &st[k];
  g_error ("no roofline entry for %s", name);
  return NULL;
}

static void
assert_close (double got,
              double want)
{
  if (!(fabs (got - want) <= 1e-9 * MAX (fabs (want), 1.0)))
    g_error ("got %.17g, want %.17g", got, want);
}

static void
test_device_table (void)
{
  static const struct { const char *name; gint64 mem; const char *row; } cases[] = {
    { "NVIDIA H100 80GB HBM3", -1, "NVIDIA H100 SXM" },
    { "NVIDIA H100 PCIe", -1, "NVIDIA H100 PCIe" },
    { "NVIDIA H100", -1, NULL },                 /* SXM or PCIe? not said */
    { "NVIDIA H200", -1, "NVIDIA H200" },
    { "NVIDIA B200", -1, "NVIDIA B200" },
    { "NVIDIA A100-SXM4-80GB", -1, "NVIDIA A100 80GB SXM" },
    { "NVIDIA A100 80GB PCIe", -1, "NVIDIA A100 80GB PCIe" },
    { "NVIDIA A100-SXM4-40GB", -1, "NVIDIA A100 40GB" },
    { "NVIDIA A100-PG509-200", 42505273344, "NVIDIA A100 40GB" },
    { "NVIDIA A100-PG509-200", -1, NULL },
    { "NVIDIA L4", -1, "NVIDIA L4" },
    { "NVIDIA GeForce RTX 4090", -1, "NVIDIA GeForce RTX 4090" },
    { "NVIDIA GeForce RTX 3090", -1, "NVIDIA GeForce RTX 3090" },
    { "NVIDIA GeForce RTX 3090 Ti", -1, NULL },
    { "AMD Instinct MI250X / MI250", -1, "AMD Instinct MI250X" },
    { "AMD Instinct MI250", -1, "AMD Instinct MI250" },
    { "AMD Instinct MI300X", -1, "AMD Instinct MI300X" },
    { "AMD Instinct MI210", -1, NULL },
    { "TPU v4", -1, "TPU v4" },
    { "TPU v5 lite", -1, "TPU v5e" },
    { "TPU v5p", -1, "TPU v5p" },
    { "TPU v6 Lite", -1, "TPU v6e" },
    { "Tesla V100-SXM2-16GB", -1, NULL },
    { "Quadro GP100", -1, NULL },
    { "", -1, NULL },
  };
  guint n;
  const CpDevicePeak *rows = cp_device_peak_table (&n);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const CpDevicePeak *row = cp_device_peak_lookup (cases[i].name, cases[i].mem);

      if (cases[i].row == NULL)
        g_assert_null (row);
      else
        {
          g_assert_nonnull (row);
          g_assert_cmpstr (row->name, ==, cases[i].row);
        }
    }
  /* Every row has a bandwidth and a 16-bit peak. */
  g_assert_cmpuint (n, >=, 17);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (rows[i].bandwidth, >, 0);
      g_assert_cmpfloat (rows[i].tflops[CP_PRECISION_16], >, 0);
    }
  /* H100 SXM: 1,979 TFLOPS bf16 with sparsity, dense half; 3.35 TB/s. */
  assert_close (cp_device_peak_lookup ("NVIDIA H100 80GB HBM3", -1)->tflops[CP_PRECISION_16], H100_BF16);
  assert_close (cp_device_peak_lookup ("NVIDIA H100 80GB HBM3", -1)->bandwidth, H100_BW);
}

#define BF16 "\"c10::BFloat16\""

static const Op shape_ops[] = {
  { "aten::mm", "\"Input Dims\": [[64, 128], [128, 256]], \"Input type\": [" BF16 ", " BF16 "]",
    "k_mm", 10 },
  { "aten::bmm", "\"Input Dims\": [[8, 32, 64], [8, 64, 16]], \"Input type\": [" BF16 ", " BF16 "]",
    "k_bmm", 10 },
  { "aten::addmm", "\"Input Dims\": [[256], [64, 128], [128, 256], [], []], "
    "\"Input type\": [" BF16 ", " BF16 ", " BF16 ", \"Scalar\", \"Scalar\"], "
    "\"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"]", "k_addmm", 10 },
  { "aten::linear", "\"Input Dims\": [[4, 10, 32], [64, 32], [64]], "
    "\"Input type\": [" BF16 ", " BF16 ", " BF16 "]", "k_linear", 10 },
  { "aten::matmul", "\"Input Dims\": [[2, 1, 16, 32], [3, 32, 8]], \"Input type\": [\"float\", \"float\"]",
    "k_matmul", 10 },
  { "aten::conv2d", "\"Input Dims\": [[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], []], "
    "\"Input type\": [" BF16 ", " BF16 ", " BF16 ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"], "
    "\"Concrete Inputs\": [\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\"]", "k_conv_same", 10 },
  { "aten::conv2d", "\"Input Dims\": [[2, 8, 32, 32], [16, 4, 3, 3], [16], [], [], [], []], "
    "\"Input type\": [" BF16 ", " BF16 ", " BF16 ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"], "
    "\"Concrete Inputs\": [\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"2\"]", "k_conv_strided", 10 },
  { "aten::cudnn_convolution", "\"Input Dims\": [[4, 3, 224, 224], [768, 3, 16, 16], [], [], [], [], [], [], []], "
    "\"Input type\": [" BF16 ", " BF16 ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
    "\"Scalar\", \"Scalar\", \"Scalar\"], "
    "\"Concrete Inputs\": [\"\", \"\", \"[0, 0]\", \"[16, 16]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"True\"]",
    "k_patchify", 10 },
  { "aten::scaled_dot_product_attention", "\"Input Dims\": [[2, 4, 128, 64], [2, 4, 256, 64], [2, 4, 256, 32], "
    "[], [], [], [], []], \"Input type\": [" BF16 ", " BF16 ", " BF16 ", \"\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"], "
    "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]", "k_sdpa", 10 },
  { "aten::scaled_dot_product_attention", "\"Input Dims\": [[1, 8, 512, 64], [1, 8, 512, 64], [1, 8, 512, 64], "
    "[], [], [], [], []], \"Input type\": [" BF16 ", " BF16 ", " BF16 ", \"\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"], "
    "\"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\", \"False\"]", "k_sdpa_causal", 10 },
  { "aten::_flash_attention_forward", "\"Input Dims\": [[2, 128, 4, 64], [2, 256, 4, 64], [2, 256, 4, 64]], "
    "\"Input type\": [" BF16 ", " BF16 ", " BF16 "]", "k_flash", 10 },
  { "aten::add", "\"Input Dims\": [[4, 1, 8], [1, 16, 8], []], \"Input type\": [\"float\", \"float\", \"Scalar\"]",
    "k_add", 10 },
  { "aten::mm", "\"flops\": 1000000, \"Input Dims\": [[10, 20], [20, 30]], \"Input type\": [" BF16 ", " BF16 "]",
    "k_counted", 10 },
  { "aten::softmax", "\"Input Dims\": [[4, 16]], \"Input type\": [\"float\"]", "k_softmax", 10 },
  { "aten::conv2d", "\"Input Dims\": [[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], []], "
    "\"Input type\": [" BF16 ", " BF16 ", " BF16 ", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"]",
    "k_conv_unsaid", 10 },
};

/* 10 µs per kernel: achieved TFLOP/s = flops / 1e-5 s / 1e12. */
static void
check_flops (CpAnalysis    *a,
             const char    *kernel,
             double         flops,
             double         bytes,
             CpFlopsSource  source)
{
  const CpRooflineStats *st = find (a, FALSE, kernel);

  g_assert_cmpint (st->source, ==, source);
  assert_close (st->flops, flops);
  if (isnan (bytes))
    g_assert_cmpint (st->bytes_time, ==, 0);
  else
    assert_close (st->bytes, bytes);
  assert_close (st->achieved_tflops, flops / 1e-5 / 1e12);
}

static void
test_shapes (void)
{
  g_autoptr(CpAnalysis) a = analyse_ops ("NVIDIA H100 80GB HBM3", shape_ops, G_N_ELEMENTS (shape_ops), NULL, 0);
  const CpRooflineStats *st;
  double i_mm;

  /* mm: 2·M·N·K; bytes: A + B read, C written, 2 bytes each. */
  check_flops (a, "k_mm", 2.0 * 64 * 256 * 128, (64 * 128 + 128 * 256 + 64 * 256) * 2.0, CP_FLOPS_ESTIMATED);
  check_flops (a, "k_bmm", 2.0 * 8 * 32 * 16 * 64, (8 * 32 * 64 + 8 * 64 * 16 + 8 * 32 * 16) * 2.0,
               CP_FLOPS_ESTIMATED);
  check_flops (a, "k_addmm", 2.0 * 64 * 256 * 128, (256 + 64 * 128 + 128 * 256 + 64 * 256) * 2.0,
               CP_FLOPS_ESTIMATED);
  /* linear: 2 · (4·10) · K 32 · N 64 */
  check_flops (a, "k_linear", 2.0 * 40 * 32 * 64, (4 * 10 * 32 + 64 * 32 + 64 + 40 * 64) * 2.0, CP_FLOPS_ESTIMATED);
  /* matmul broadcast: batch [2, 1] with [3] -> 2·3 batches of 16×32 · 32×8, fp32. */
  check_flops (a, "k_matmul", 2.0 * 6 * 16 * 8 * 32, (2 * 16 * 32 + 3 * 32 * 8 + 6 * 16 * 8) * 4.0,
               CP_FLOPS_ESTIMATED);
  /* conv2d, padding 1, stride 1: 32×32 out; 2·N·C_out·HW·C_in·kh·kw */
  check_flops (a, "k_conv_same", 2.0 * 2 * 16 * 32 * 32 * 3 * 3 * 3,
               (2 * 3 * 32 * 32 + 16 * 3 * 3 * 3 + 16 + 2 * 16 * 32 * 32) * 2.0, CP_FLOPS_ESTIMATED);
  /* stride 2, no padding: (32 - 2 - 1) / 2 + 1 = 15; groups 2: C_in / g = 4 */
  check_flops (a, "k_conv_strided", 2.0 * 2 * 16 * 15 * 15 * 4 * 3 * 3,
               (2 * 8 * 32 * 32 + 16 * 4 * 3 * 3 + 16 + 2 * 16 * 15 * 15) * 2.0, CP_FLOPS_ESTIMATED);
  /* ViT patches: 224 / 16 = 14 */
  check_flops (a, "k_patchify", 2.0 * 4 * 768 * 14 * 14 * 3 * 16 * 16,
               (4 * 3 * 224 * 224 + 768 * 3 * 16 * 16 + 4 * 768 * 14 * 14) * 2.0, CP_FLOPS_ESTIMATED);
  /* SDPA: Q·Kᵀ 2·B·H·L·S·E + P·V 2·B·H·L·S·Ev */
  check_flops (a, "k_sdpa", 2.0 * 2 * 4 * 128 * 256 * 64 + 2.0 * 2 * 4 * 128 * 256 * 32,
               (2 * 4 * 128 * 64 + 2 * 4 * 256 * 64 + 2 * 4 * 256 * 32 + 2 * 4 * 128 * 32) * 2.0,
               CP_FLOPS_ESTIMATED);
  /* is_causal: half of the scores are skipped */
  check_flops (a, "k_sdpa_causal", 4.0 * 8 * 512 * 512 * 64 / 2, 4 * 8 * 512 * 64 * 2.0, CP_FLOPS_ESTIMATED);
  /* flash attention's [B, L, H, E] layout */
  check_flops (a, "k_flash", 4.0 * 2 * 4 * 128 * 256 * 64,
               (2 * 128 * 4 * 64 + 2 * 2 * 256 * 4 * 64 + 2 * 128 * 4 * 64) * 2.0, CP_FLOPS_ESTIMATED);
  /* elementwise, broadcast to [4, 16, 8]: one FLOP an element */
  check_flops (a, "k_add", 4.0 * 16 * 8, (4 * 8 + 16 * 8 + 4 * 16 * 8) * 4.0, CP_FLOPS_ESTIMATED);
  /* with_flops: the argument wins over the shapes, the bytes come from them */
  check_flops (a, "k_counted", 1e6, (10 * 20 + 20 * 30 + 10 * 30) * 2.0, CP_FLOPS_COUNTED);

  /* No formula, or a convolution whose stride and padding are not said. */
  g_assert_cmpint (find (a, FALSE, "k_softmax")->source, ==, CP_FLOPS_NONE);
  g_assert_true (isnan (find (a, FALSE, "k_softmax")->roofline_percent));
  g_assert_cmpint (find (a, FALSE, "k_conv_unsaid")->source, ==, CP_FLOPS_NONE);

  /* The roofline: bf16 mm at intensity I is under min (989.5, I · 3.35). */
  st = find (a, FALSE, "k_mm");
  i_mm = (2.0 * 64 * 256 * 128) / ((64 * 128 + 128 * 256 + 64 * 256) * 2.0);
  assert_close (st->intensity, i_mm);
  g_assert_cmpint (st->precision, ==, CP_PRECISION_16);
  g_assert_cmpint (st->peak_source, ==, CP_PEAK_TABLE);
  assert_close (st->peak_tflops, H100_BF16);
  assert_close (st->roofline_percent, 100.0 * (2.0 * 64 * 256 * 128 / 1e-5 / 1e12) /
                                      MIN (H100_BF16, i_mm * H100_BW / 1000.0));
  g_assert_cmpint (st->bound, ==, i_mm < H100_BF16 * 1000.0 / H100_BW ? CP_BOUND_MEMORY : CP_BOUND_COMPUTE);
  /* fp32 matmul: the fp32 ceiling (67 TFLOPS) */
  assert_close (find (a, FALSE, "k_matmul")->peak_tflops, 67.0);

  /* Host ops carry the same figures over their kernel time. */
  st = find (a, TRUE, "aten::bmm");
  assert_close (st->flops, 2.0 * 8 * 32 * 16 * 64);
  g_assert_cmpint (st->time, ==, 10000);
}

/* Shapes that fit no formula give no figures rather than wrong ones. */
static void
test_bad_shapes (void)
{
  static const Op ops[] = {
    { "aten::mm", "\"Input Dims\": [[-4, 8], [8, 2]], \"Input type\": [\"float\", \"float\"]", "k_negative", 10 },
    { "aten::mm", "\"Input Dims\": [[4, 8], [9, 2]], \"Input type\": [\"float\", \"float\"]", "k_mismatch", 10 },
    { "aten::mm", "\"Input Dims\": [[1e30, 8], [8, 2]], \"Input type\": [\"float\", \"float\"]", "k_float_dim", 10 },
    { "aten::mm", "\"Input Dims\": [[4, 8], [8, 2]], \"Input type\": [\"Scalar\", \"float\"]", "k_not_tensor", 10 },
    { "aten::bmm", "\"Input Dims\": \"nope\"", "k_not_array", 10 },
    { "aten::conv2d", "\"Input Dims\": [[2, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], []], "
      "\"Input type\": [\"float\", \"float\", \"float\", \"\", \"\", \"\", \"\"], "
      "\"Concrete Inputs\": [\"\", \"\", \"\", \"[0, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\"]", "k_stride0", 10 },
    { "aten::mm", "\"flops\": -5, \"Input type\": [\"float\"]", "k_negative_flops", 10 },
    { "aten::mm", "\"Input Dims\": [[1099511627777, 1], [1, 1]], \"Input type\": [\"float\", \"float\"]",
      "k_huge", 10 },
  };
  g_autoptr(CpAnalysis) a = analyse_ops ("NVIDIA H100 80GB HBM3", ops, G_N_ELEMENTS (ops), NULL, 0);

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      const CpRooflineStats *st = find (a, FALSE, ops[i].kernel);

      if (st->source != CP_FLOPS_NONE)
        g_error ("%s got figures", ops[i].kernel);
      g_assert_true (isnan (st->achieved_tflops));
    }
}

static void
test_inherit_by_share (void)
{
  static const Op ops[] = {
    { "aten::mm", "\"Input Dims\": [[64, 128], [128, 256]], \"Input type\": [" BF16 ", " BF16 "]", "k_main", 10 },
  };
  g_autoptr(CpAnalysis) a = analyse_ops ("NVIDIA H100 80GB HBM3", ops, 1, "k_reduce", 30);
  double flops = 2.0 * 64 * 256 * 128;

  /* Two kernels of one op share its FLOPs by time: 10 and 30 µs. */
  assert_close (find (a, FALSE, "k_main")->flops, flops / 4);
  assert_close (find (a, FALSE, "k_reduce")->flops, flops * 3 / 4);
  g_assert_true (find (a, FALSE, "k_reduce")->inherited);
  assert_close (find (a, TRUE, "aten::mm")->flops, flops);
  g_assert_cmpint (find (a, TRUE, "aten::mm")->time, ==, 40000);
}

/* A transpose launched inside the op does no FLOPs: the op's FLOPs go to
 * its kernel that computes (10 µs), its bytes to that kernel as to the op,
 * and the transpose (30 µs) takes three quarters of the bytes (its share
 * of the op's 40 µs of kernels): memory-bound, measured by bandwidth. */
static void
test_layout_kernels (void)
{
  static const Op ops[] = {
    { "aten::mm", "\"Input Dims\": [[64, 128], [128, 256]], \"Input type\": [" BF16 ", " BF16 "]", "k_main", 10 },
  };
  g_autoptr(CpAnalysis) a = analyse_ops ("NVIDIA H100 80GB HBM3", ops, 1, "batched_transpose_32x32_half", 30);
  double flops = 2.0 * 64 * 256 * 128;
  double bytes = 2.0 * (64 * 128 + 128 * 256 + 64 * 256);
  const CpRooflineStats *main_k = find (a, FALSE, "k_main");
  const CpRooflineStats *tr = find (a, FALSE, "batched_transpose_32x32_half");
  const CpRooflineStats *op = find (a, TRUE, "aten::mm");

  assert_close (main_k->flops, flops);
  assert_close (main_k->bytes, bytes);
  assert_close (main_k->intensity, flops / bytes);
  assert_close (main_k->achieved_tflops, flops / 10e-6 / 1e12);
  g_assert_true (main_k->inherited);
  g_assert_cmpint (tr->source, ==, CP_FLOPS_ESTIMATED);
  g_assert_true (tr->inherited);
  assert_close (tr->flops, 0);
  assert_close (tr->bytes, bytes * 3 / 4);
  assert_close (tr->achieved_gbs, bytes * 3 / 4 / 30e-6 / 1e9);
  g_assert_cmpint (tr->bound, ==, CP_BOUND_MEMORY);
  assert_close (tr->roofline_percent, 100.0 * (bytes * 3 / 4 / 30e-6 / 1e9) / H100_BW);
  /* The op keeps all its figures over all its kernel time. */
  assert_close (op->flops, flops);
  assert_close (op->bytes, bytes);
  g_assert_cmpint (op->time, ==, 40000);
  assert_close (op->achieved_tflops, flops / 40e-6 / 1e12);
}

/* below-roofline: 13 of the 15 kernels (10 µs each) have a roofline, all
 * under 1% of it; the other two have no FLOPs and do not count. */
static void
test_rule (void)
{
  g_autoptr(CpAnalysis) a = analyse_ops ("NVIDIA H100 80GB HBM3", shape_ops, G_N_ELEMENTS (shape_ops), NULL, 0);
  g_autoptr(CpAnalysis) unknown = analyse_ops ("Quadro GP100", shape_ops, G_N_ELEMENTS (shape_ops), NULL, 0);
  CpFinding *f = cp_analysis_lookup_finding (a, "below-roofline");
  guint n;
  const CpRooflineStats *st = cp_analysis_get_roofline (a, FALSE, &n);
  double saved = 0;
  guint far = 0;

  CpSeverity sev;

  g_assert_nonnull (f);
  /* High by its thresholds (the idle time around these short kernels,
   * host overhead, may then explain it and demote it to info). */
  g_assert_true (cp_rule_grade (cp_rules_lookup ("below-roofline"),
                                cp_finding_lookup_figure (f, "far_below_percent")->value, &sev));
  g_assert_cmpint (sev, ==, CP_SEVERITY_HIGH);
  g_assert_nonnull (cp_finding_lookup_figure (f, "far_below_percent"));
  assert_close (cp_finding_lookup_figure (f, "far_below_percent")->value, 100.0 * 13 / 15);
  for (guint k = 0; k < n; k++)
    if (!isnan (st[k].roofline_percent))
      {
        g_assert_cmpfloat (st[k].roofline_percent, <, 30);
        saved += (double) st[k].time * (1 - st[k].roofline_percent / 30);
        far++;
      }
  g_assert_cmpuint (far, ==, 13);
  /* No steps: the whole capture is the window, and every kernel is in it. */
  g_assert_cmpint (cp_finding_get_time_at_stake (f), ==, (gint64) saved);
  /* Without a ceiling nothing is far from it. */
  g_assert_null (cp_analysis_lookup_finding (unknown, "below-roofline"));
}

static void
test_unknown_device (void)
{
  g_autoptr(CpAnalysis) a = analyse_ops ("Quadro GP100", shape_ops, 1, NULL, 0);
  const CpRooflineStats *st = find (a, FALSE, "k_mm");
  g_autofree char *json = cp_analysis_to_json (a, FALSE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *r, *dev, *k;
  CpPeakSource source;
  double tflops, bw;

  /* FLOPs are still known; the ceiling is not, and is not guessed. */
  assert_close (st->flops, 2.0 * 64 * 256 * 128);
  g_assert_cmpint (st->peak_source, ==, CP_PEAK_UNKNOWN);
  g_assert_cmpfloat (st->peak_tflops, ==, 0);
  g_assert_true (isnan (st->roofline_percent));
  g_assert_cmpint (st->bound, ==, CP_BOUND_UNKNOWN);
  cp_analysis_get_device_peak (a, 0, CP_PRECISION_16, &source, &tflops, &bw);
  g_assert_cmpint (source, ==, CP_PEAK_UNKNOWN);

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  r = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "roofline");
  dev = json_array_get_object_element (json_object_get_array_member (r, "devices"), 0);
  g_assert_cmpstr (json_object_get_string_member (dev, "name"), ==, "Quadro GP100");
  g_assert_cmpstr (json_object_get_string_member (dev, "peak_source"), ==, "unknown");
  g_assert_true (json_object_get_null_member (dev, "bandwidth_gbps"));
  k = json_array_get_object_element (json_object_get_array_member (r, "kernels"), 0);
  g_assert_true (json_object_get_null_member (k, "roofline_percent"));
  g_assert_cmpstr (json_object_get_string_member (k, "bound"), ==, "unknown");
  g_assert_cmpstr (json_object_get_string_member (k, "flops_source"), ==, "estimate");
}

/* A GPU the table does not name, as an XPlane plane describes it: the peaks
 * come from its SMs and clock. The oracle is each vendor's datasheet for a
 * device with those SMs and that clock (dense figures). */
static CpAnalysis *
analyse_xplane_gpu (const char *name,
                    gint        major,
                    gint        minor,
                    gint        sms,
                    gint64      clock_khz,
                    guint64     bandwidth)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(CpTrace) trace = NULL;
  XpPlane *gpu = xp_plane_new (1, "/device:GPU:0");
  CpAnalysis *a;

  xp_plane_stat (gpu, xp_stat_str (gpu, "gpu_device_name", name));
  xp_plane_stat (gpu, xp_stat_str (gpu, "device_vendor", "Nvidia"));
  xp_plane_stat (gpu, xp_stat_int (gpu, "core_count", sms));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_major", major));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_minor", minor));
  if (clock_khz > 0)
    xp_plane_stat (gpu, xp_stat_int (gpu, "clock_rate", clock_khz));
  if (bandwidth > 0)
    xp_plane_stat (gpu, xp_stat_uint (gpu, "memory_bandwidth", bandwidth));
  /* A half-precision GEMM of 2 GFLOP and 16 MB in 1 ms. */
  xp_line (gpu, 7, 0, "Stream #7(Compute)", NULL, 1000,
           xp_event (gpu, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_tn", 0, G_GINT64_CONSTANT (1000000000),
                     xp_stat_int (gpu, "flops", G_GINT64_CONSTANT (2000000000)),
                     xp_stat_uint (gpu, "bytes_accessed", 16000000), NULL),
           NULL);
  xp_space_add_plane (space, gpu);
  trace = xp_space_load (space, &a);
  return a;
}

/* Within 0.5% of the datasheet (its figures are rounded). */
static void
assert_peak (CpAnalysis  *a,
             CpPrecision  p,
             double       datasheet)
{
  CpPeakSource source;
  double tflops, bw;

  cp_analysis_get_device_peak (a, 0, p, &source, &tflops, &bw);
  g_assert_cmpint (source, ==, CP_PEAK_PROPERTIES);
  g_assert_cmpfloat (fabs (tflops - datasheet), <=, datasheet * 0.005);
}

static void
test_peaks_from_properties (void)
{
  g_autoptr(CpAnalysis) a100 = analyse_xplane_gpu ("NVIDIA Test GA100", 8, 0, 108, 1410000,
                                                   G_GUINT64_CONSTANT (1555000000000));
  g_autoptr(CpAnalysis) l4 = analyse_xplane_gpu ("NVIDIA Test AD104", 8, 9, 58, 2040000,
                                                 G_GUINT64_CONSTANT (300000000000));
  g_autoptr(CpAnalysis) rtx4080 = analyse_xplane_gpu ("NVIDIA GeForce RTX 4080", 8, 9, 76, 2505000,
                                                      G_GUINT64_CONSTANT (716800000000));
  g_autoptr(CpAnalysis) v100 = analyse_xplane_gpu ("NVIDIA Test GV100", 7, 0, 80, 1530000,
                                                   G_GUINT64_CONSTANT (900000000000));
  g_autoptr(CpAnalysis) no_clock = analyse_xplane_gpu ("NVIDIA Test GA100", 8, 0, 108, 0,
                                                       G_GUINT64_CONSTANT (1555000000000));
  g_autoptr(CpAnalysis) no_bandwidth = analyse_xplane_gpu ("NVIDIA Test GA100", 8, 0, 108, 1410000, 0);
  g_autoptr(CpAnalysis) pascal = analyse_xplane_gpu ("NVIDIA Test GP100", 6, 0, 56, 1480000,
                                                     G_GUINT64_CONSTANT (732000000000));
  const CpRooflineStats *st;
  CpPeakSource source;
  double tflops, bw;
  g_autofree char *json = cp_analysis_to_json (a100, FALSE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *dev;

  /* A100 datasheet: FP32 19.5, TF32 156, BF16/FP16 312, INT8 624. */
  assert_peak (a100, CP_PRECISION_FP32, 19.5);
  assert_peak (a100, CP_PRECISION_TF32, 156);
  assert_peak (a100, CP_PRECISION_16, 312);
  assert_peak (a100, CP_PRECISION_INT8, 624);
  cp_analysis_get_device_peak (a100, 0, CP_PRECISION_16, &source, &tflops, &bw);
  assert_close (bw, 1555);
  /* L4 datasheet: FP32 30.3, TF32 60, FP16 121, FP8 242.5 (dense). */
  assert_peak (l4, CP_PRECISION_FP32, 30.3);
  assert_peak (l4, CP_PRECISION_TF32, 60.3);
  assert_peak (l4, CP_PRECISION_16, 121);
  assert_peak (l4, CP_PRECISION_FP8, 242.5);
  /* Ada whitepaper, RTX 4080: FP32 48.7, FP16 tensor with FP32
   * accumulation 97.5 (GeForce: half the L4's rate per SM and clock). */
  assert_peak (rtx4080, CP_PRECISION_FP32, 48.7);
  assert_peak (rtx4080, CP_PRECISION_16, 97.5);
  /* V100 SXM2 datasheet: FP32 15.7, tensor 125; no TF32: FP32's. */
  assert_peak (v100, CP_PRECISION_FP32, 15.7);
  assert_peak (v100, CP_PRECISION_16, 125);
  assert_peak (v100, CP_PRECISION_TF32, 15.7);

  /* The kernel is placed under that roof: 2 TFLOP/s at 125 FLOP per byte. */
  st = find (a100, FALSE, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_tn");
  g_assert_nonnull (st);
  g_assert_cmpint (st->peak_source, ==, CP_PEAK_PROPERTIES);
  assert_close (st->achieved_tflops, 2.0);
  assert_close (st->intensity, 125.0);
  g_assert_cmpint (st->bound, ==, CP_BOUND_MEMORY);
  g_assert_cmpfloat (fabs (st->roofline_percent - 100.0 * 2.0 / (125.0 * 1555 / 1000)), <, 0.01);

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  dev = json_array_get_object_element (json_object_get_array_member (
          json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "roofline"),
          "devices"), 0);
  g_assert_cmpstr (json_object_get_string_member (dev, "peak_source"), ==, "properties");

  /* Without the clock, the bandwidth or a known architecture: not guessed. */
  cp_analysis_get_device_peak (no_clock, 0, CP_PRECISION_16, &source, &tflops, &bw);
  g_assert_cmpint (source, ==, CP_PEAK_UNKNOWN);
  cp_analysis_get_device_peak (no_bandwidth, 0, CP_PRECISION_16, &source, &tflops, &bw);
  g_assert_cmpint (source, ==, CP_PEAK_UNKNOWN);
  cp_analysis_get_device_peak (pascal, 0, CP_PRECISION_16, &source, &tflops, &bw);
  g_assert_cmpint (source, ==, CP_PEAK_UNKNOWN);
}

/* Real captures against tests/roofline-count.py. */

static gboolean
close_or_null (JsonObject *o,
               const char *key,
               double      got)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return isnan (got);
  return fabs (json_node_get_double (n) - got) <= 1e-6 * MAX (fabs (got), 1e-9);
}

static void
compare_with_oracle (const char *path)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "roofline-count.py", NULL);
  const char *argv[] = { python, script, path, NULL };
  g_autofree char *want = NULL;
  g_autoptr(JsonParser) oracle = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  JsonObject *w;
  int status = 0;
  guint checked = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &want, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (json_parser_load_from_data (oracle, want, -1, NULL));
  w = json_node_get_object (json_parser_get_root (oracle));

  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);

  for (guint ops = 0; ops < 2; ops++)
    {
      JsonObject *want_set = json_object_get_object_member (w, ops ? "host_ops" : "kernels");
      guint n;
      const CpRooflineStats *st = cp_analysis_get_roofline (a, ops, &n);

      for (guint k = 0; k < n; k++)
        {
          const char *name = cp_trace_get_string (trace, st[k].name);
          JsonObject *o;

          if (st[k].source == CP_FLOPS_NONE)
            continue;
          g_assert_true (json_object_has_member (want_set, name));
          o = json_object_get_object_member (want_set, name);
          g_assert_cmpint (json_object_get_int_member (o, "count"), ==, st[k].count);
          g_assert_cmpint (json_object_get_int_member (o, "time"), ==, st[k].time);
          g_assert_cmpint (json_object_get_int_member (o, "timed"), ==, st[k].timed);
          g_assert_cmpstr (json_object_get_string_member (o, "source"), ==, cp_flops_source_to_string (st[k].source));
          if (!close_or_null (o, "flops", st[k].flops) || !close_or_null (o, "intensity", st[k].intensity) ||
              !close_or_null (o, "achieved_tflops", st[k].achieved_tflops) ||
              !close_or_null (o, "percent", st[k].roofline_percent))
            g_error ("%s: %s differs from the oracle", path, name);
          g_assert_cmpstr (json_object_get_string_member (o, "bound"), ==, cp_bound_to_string (st[k].bound));
          checked++;
        }
      /* Every name the oracle gives figures is there too. */
      {
        g_autoptr(GList) names = json_object_get_members (want_set);
        guint with_figures = 0;

        for (GList *l = names; l != NULL; l = l->next)
          if (!g_str_equal (json_object_get_string_member (json_object_get_object_member (want_set, l->data), "source"),
                            "none"))
            with_figures++;
        for (guint k = 0; k < n; k++)
          with_figures -= st[k].source != CP_FLOPS_NONE;
        g_assert_cmpuint (with_figures, ==, 0);
      }
    }
  g_assert_cmpuint (checked, >, 0);
}

static void
test_real_captures (void)
{
  static const char * const captures[] = {
    "openxla__xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb",
    "AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
    "AMD-AGI__TraceLens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz",
    "AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "AMD-AGI__TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz",
  };
  const char *shared = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  guint found = 0;

  if (shared == NULL || python == NULL)
    {
      g_test_skip ("../shared/traces or python3 is missing");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (captures); i++)
    {
      g_autofree char *path = g_build_filename (shared, captures[i], NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      compare_with_oracle (path);
      found++;
    }
  if (found == 0)
    g_test_skip ("none of the captures with FLOPs or shapes is in ../shared/traces");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/roofline/device-table", test_device_table);
  g_test_add_func ("/roofline/shapes", test_shapes);
  g_test_add_func ("/roofline/inherit-by-share", test_inherit_by_share);
  g_test_add_func ("/roofline/layout-kernels", test_layout_kernels);
  g_test_add_func ("/roofline/bad-shapes", test_bad_shapes);
  g_test_add_func ("/roofline/unknown-device", test_unknown_device);
  g_test_add_func ("/roofline/peaks-from-properties", test_peaks_from_properties);
  g_test_add_func ("/roofline/rule", test_rule);
  g_test_add_func ("/roofline/real-captures", test_real_captures);
  return g_test_run ();
}
