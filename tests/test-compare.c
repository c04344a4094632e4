/* test-compare.c: the comparison of two captures (CpComparison) and
 * `chokepoint compare`, against tests/compare-count.py and cp-gen's truth
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "analysis/cp-compare.h"
#include "formats/cp-loader.h"
#include "cp-test-util.h"

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */

static CpComparison *
compare_files (const char         *path_a,
               const char         *path_b,
               CpCompareKernelKey  key)
{
  g_autoptr(CpAnalysis) a = cp_test_analyse (path_a);
  g_autoptr(CpAnalysis) b = cp_test_analyse (path_b);

  return cp_comparison_new (a, b, key);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static JsonNode *
parse_json_file (const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return parse_json (text);
}

/* compare-count.py's figures for the pair; NULL (and a skip) without python3. */
static JsonNode *
oracle (const char *a,
        const char *b)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "compare-count.py", NULL);
  const char *argv[] = { python, script, a, b, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return NULL;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("compare-count.py failed on %s and %s: %s", a, b, err);
  return parse_json (out);
}

static const CpCompareItem *
find_category (CpComparison   *c,
               CpTimeCategory  category)
{
  guint n;
  const CpCompareItem *items = cp_comparison_get_categories (c, &n);

  for (guint i = 0; i < n; i++)
    if (items[i].id == (gint) category)
      return &items[i];
  return NULL;
}

static gint64
category_total (CpComparison   *c,
                CpTimeCategory  category,
                guint           side)
{
  const CpCompareItem *it = find_category (c, category);

  if (it == NULL)
    return 0;
  return side == 0 ? it->a.total : it->b.total;
}

/* Every figure compare-count.py counts, exactly: steps, windows, mean step,
 * input wait, kernel time, each kernel key's count and total on both
 * sides (which also checks the name folding and the only-in sides), and
 * each host op call path's; the slices of the largest change of call path
 * are as many as its count on each side. */
static void
check_against_oracle (CpComparison *c,
                      JsonObject   *o)
{
  JsonObject *kernels = json_object_get_object_member (o, "kernels");
  g_autoptr(GList) keys = json_object_get_members (kernels);
  gint64 mean[2], kt[2];
  guint n_steps[2], n_items;

  cp_comparison_get_step_time (c, &mean[0], &mean[1], NULL, NULL);
  cp_comparison_get_n_steps (c, &n_steps[0], &n_steps[1]);
  cp_comparison_get_kernel_time (c, &kt[0], &kt[1]);
  for (guint s = 0; s < 2; s++)
    {
      JsonObject *side = json_object_get_object_member (o, s == 0 ? "a" : "b");
      CpAnalysis *an = s == 0 ? cp_comparison_get_a (c) : cp_comparison_get_b (c);
      gint64 windows = json_object_get_int_member (side, "windows");

      g_assert_cmpint (n_steps[s], ==, json_object_get_int_member (side, "steps"));
      g_assert_cmpint (mean[s], ==, json_object_get_int_member (side, "mean_step_ns"));
      g_assert_cmpint (category_total (c, CP_TIME_INPUT_WAIT, s), ==, json_object_get_int_member (side, "input_wait_ns"));
      g_assert_cmpint (cp_analysis_get_kernel_time (an), ==, json_object_get_int_member (side, "kernel_ns"));
      g_assert_cmpint (kt[s], ==, json_object_get_int_member (side, "kernel_ns") / MAX (windows, 1));
    }

  cp_comparison_get_kernels (c, &n_items);
  g_assert_cmpuint (n_items, ==, g_list_length (keys));
  for (GList *l = keys; l != NULL; l = l->next)
    {
      JsonObject *k = json_object_get_object_member (kernels, l->data);
      const CpCompareItem *it = cp_comparison_lookup_kernel (c, l->data);
      gint64 ca = json_object_get_int_member (k, "a_count");
      gint64 cb = json_object_get_int_member (k, "b_count");

      if (it == NULL)
        g_error ("kernel key “%s” of compare-count.py is not an item", (const char *) l->data);
      g_assert_cmpstr (it->key, ==, l->data);
      g_assert_cmpint (it->a.count, ==, ca);
      g_assert_cmpint (it->b.count, ==, cb);
      g_assert_cmpint (it->a.total, ==, json_object_get_int_member (k, "a_total_ns"));
      g_assert_cmpint (it->b.total, ==, json_object_get_int_member (k, "b_total_ns"));
      g_assert_cmpint (it->side, ==, ca == 0 ? CP_COMPARE_ONLY_B : cb == 0 ? CP_COMPARE_ONLY_A : CP_COMPARE_BOTH);
      g_assert_cmpint (it->delta, ==, it->b.per_step - it->a.per_step);
    }

  {
    JsonObject *paths = json_object_get_object_member (o, "paths");
    const CpCompareItem *items = cp_comparison_get_host_op_paths (c, &n_items);

    g_assert_cmpuint (n_items, ==, json_object_get_size (paths));
    for (guint i = 0; i < n_items; i++)
      {
        JsonObject *p = json_object_get_object_member (paths, items[i].key);

        if (p == NULL)
          g_error ("call path “%s” is not one of compare-count.py's", items[i].key);
        g_assert_cmpint (items[i].a.count, ==, json_object_get_int_member (p, "a_count"));
        g_assert_cmpint (items[i].b.count, ==, json_object_get_int_member (p, "b_count"));
        g_assert_cmpint (items[i].a.total, ==, json_object_get_int_member (p, "a_total_ns"));
        g_assert_cmpint (items[i].b.total, ==, json_object_get_int_member (p, "b_total_ns"));
      }
    if (n_items > 0)
      for (guint s = 0; s < 2; s++)
        {
          g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));

          cp_comparison_collect_slices (c, &items[0], s, refs);
          g_assert_cmpint (refs->len, ==, s == 0 ? items[0].a.count : items[0].b.count);
        }
  }
}

/* The categories partition every window: their per-step deltas add up to
 * the step-time delta, up to the rounding of one division per category. */
static void
check_partition (CpComparison *c)
{
  guint n;
  const CpCompareItem *items = cp_comparison_get_categories (c, &n);
  gint64 delta, sum = 0;

  cp_comparison_get_step_time (c, NULL, NULL, &delta, NULL);
  for (guint i = 0; i < n; i++)
    sum += items[i].delta;
  g_assert_cmpint (ABS (sum - delta), <=, CP_TIME_N_CATEGORIES + 1);
}

static const char *
shared_path (const char *rel)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *path = NULL;

  if (shared == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return NULL;
    }
  path = g_build_filename (shared, rel, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *msg = g_strdup_printf ("%s is missing", path);

      g_test_skip (msg);
      return NULL;
    }
  return g_intern_string (path);
}

/* ---------------------------------------------------------------------- */
/* Generated pairs                                                        */

static char *gen_dir;

/* Writes a capture with cp-gen once per run (and its truth beside it):
 * name.json or name.xplane.pb in gen_dir. */
static const char *
gen (const char *name,
     const char *ext,
     const char *scenario,
     const char *extra1,
     const char *extra2)
{
  g_autofree char *file = g_strconcat (name, ext, NULL);
  g_autofree char *truth_file = g_strconcat (name, ext, ".truth.json", NULL);
  g_autofree char *path = NULL, *truth = NULL;
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", scenario, "--out", NULL, "--truth", NULL,
                         "--steps", "6", "-q", extra1, extra2, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (gen_dir == NULL)
    gen_dir = cp_test_make_tmpdir ();
  path = g_build_filename (gen_dir, file, NULL);
  truth = g_build_filename (gen_dir, truth_file, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      argv[4] = path;
      argv[6] = truth;
      g_assert_nonnull (argv[0]);
      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  return g_intern_string (path);
}

static JsonNode *
truth_of (const char *path)
{
  g_autofree char *truth = g_strconcat (path, ".truth.json", NULL);

  return parse_json_file (truth);
}

static gint64
truth_ranges_total (JsonObject *truth)
{
  JsonArray *ranges = json_object_get_array_member (truth, "ranges");
  gint64 total = 0;

  for (guint i = 0; i < json_array_get_length (ranges); i++)
    {
      JsonObject *r = json_array_get_object_element (ranges, i);

      total += json_object_get_int_member (r, "end_ns") - json_object_get_int_member (r, "start_ns");
    }
  return total;
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                  */

static void
test_normalise (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
      "at::native::vectorized_elementwise_kernel<>" },
    { "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "ncclKernel_AllReduce_RING_LL_Sum_float" },
    { "volta_sgemm_128x64_nt", "volta_sgemm_128x64_nt" },
    { "triton_poi_fused_add_3", "triton_poi_fused_add" },
    { "fusion.12", "fusion" },
    { "copy#4", "copy" },
    { "input_transpose_fusion_1.kd", "input_transpose_fusion" },
    { ".kd", ".kd" },
    { "sm80_kernel_0x7f3a2b", "sm80_kernel_0x" },
    { "tile_160x128_nn", "tile_160x128_nn" },
    { "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x5_nhwc_align8>(cutlass_80_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x5_nhwc_align8::Params)",
      "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816fprop_optimized_bf16_128x128_32x5_nhwc_align8>" },
    { "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1, int>(x)",
      "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1, …>" },
    { "at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)",
      "at::native::::cunn_SoftMaxForward<>" },
    { "std::operator<<", "std::operator<<" },
    { "Functor::operator()(int) const", "Functor::operator() const" },
    { "a::operator[](int)", "a::operator[]" },
    { "operator(int)", "operator" },
    { "Kernel", "Kernel" },
    { "42", "42" },
    { "_7", "_7" },
    { "(x)", "(x)" },
    { "Memcpy HtoD (Pinned -> Device)", "Memcpy HtoD" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = cp_compare_normalise_kernel_name (cases[i].in);

      g_assert_cmpstr (got, ==, cases[i].out);
    }
}

/* compare-count.py folds names by its own implementation of the same rule:
 * both must agree on every name in the shared captures' kernels too (the
 * real-pair tests check it through the keys). Here: the cases above. */
static void
test_normalise_oracle (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "compare-count.py", NULL);
  g_autofree char *dir = cp_test_make_tmpdir ();
  static const char *names[] = {
    "void a::b<c<d>, e>(f)", "fused_mul_add_12", "x.3", "y#", "void cub::DeviceReduceKernel<int>(int)",
    "void cub::kernel<Policy, float>(p)", "sm90_xmma_gemm_f16f16_f32_0x1f", "operator()(int)",
    "std::operator<<(x)", "a::operator[](int)", "operator(int)", "f<a(b)>(c)", "loop_fusion_2.kd", "x.kd", "tile_160x128", "at 0xdeadbeef", "0x1f",
  };
  g_autoptr(GString) doc = g_string_new ("{\"traceEvents\": [");
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) o = NULL;
  g_autoptr(CpComparison) c = NULL;

  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_string_append_printf (doc, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
                            "\"ts\": %u, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7}}",
                            i ? ", " : "", names[i], 10 * i);
  g_string_append (doc, "]}");
  path = cp_test_write_file (dir, "names.json", doc->str, doc->len);
  o = oracle (path, path);
  c = compare_files (path, path, CP_COMPARE_KERNELS_BY_NAME);
  check_against_oracle (c, json_node_get_object (o));
  cp_test_rm_rf (dir);
}

static void
test_resnet_workers (void)
{
  const char *a = shared_path ("pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz");
  const char *b = shared_path ("pytorch__kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.pt.trace.json.gz");
  g_autoptr(JsonNode) o = NULL;
  g_autoptr(CpComparison) c = NULL;
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  const CpCompareItem *input;
  const CpCompareFinding *fs;
  gint64 delta;
  guint n;
  gboolean input_bound_gone = FALSE;

  if (a == NULL || b == NULL || (o = oracle (a, b)) == NULL)
    return;
  c = compare_files (a, b, CP_COMPARE_KERNELS_BY_NAME);
  check_against_oracle (c, json_node_get_object (o));
  check_partition (c);

  /* num_workers 0 -> 4: faster, and mostly because data loading went. */
  cp_comparison_get_step_time (c, NULL, NULL, &delta, NULL);
  g_assert_cmpint (delta, <, 0);
  n = cp_comparison_explain (c, explained);
  g_assert_cmpuint (n, >, 0);
  input = find_category (c, CP_TIME_INPUT_WAIT);
  g_assert_true (explained[0] == input);
  g_assert_cmpint (input->delta, <, 0);
  g_assert_cmpfloat ((double) input->delta / delta, >, 0.5);
  g_test_message ("step %" G_GINT64_FORMAT " ns, data loading %" G_GINT64_FORMAT " ns per step", delta, input->delta);

  g_assert_true (cp_comparison_get_comparable (c) & CP_COMPARE_GROUP_KERNELS);
  g_assert_true (cp_comparison_get_comparable (c) & CP_COMPARE_GROUP_HOST_OPS);

  /* The single-process DataLoader exists in A only, and highlights its
   * __next__ slices there and nothing in B. */
  {
    const CpCompareItem *ops = cp_comparison_get_host_ops (c, &n);
    g_autoptr(GArray) ra = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
    g_autoptr(GArray) rb = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
    guint k;

    for (k = 0; k < n && strstr (ops[k].key, "_SingleProcessDataLoaderIter.__next__") == NULL; k++)
      ;
    g_assert_cmpuint (k, <, n);
    g_assert_cmpint (ops[k].side, ==, CP_COMPARE_ONLY_A);
    cp_comparison_collect_slices (c, &ops[k], 0, ra);
    cp_comparison_collect_slices (c, &ops[k], 1, rb);
    g_assert_cmpint (ra->len, ==, ops[k].a.count);
    g_assert_cmpuint (rb->len, ==, 0);
  }
  fs = cp_comparison_get_findings (c, &n);
  for (guint i = 0; i < n; i++)
    if (g_str_equal (fs[i].rule_id, "input-bound"))
      input_bound_gone = fs[i].change == CP_COMPARE_FINDING_DISAPPEARED || fs[i].change == CP_COMPARE_FINDING_BETTER;
  g_assert_true (input_bound_gone);
}

/* Kernels by launching op (CP_COMPARE_KERNELS_BY_OP) against
 * compare-count.py's "ops": the same ops, counts and kernel time. */
static void
check_by_op_against_oracle (CpComparison *by_op,
                            JsonObject   *o)
{
  JsonObject *ops = json_object_get_object_member (o, "ops");
  const CpCompareItem *items;
  guint n;

  g_assert_cmpint (cp_comparison_get_kernel_key (by_op), ==, CP_COMPARE_KERNELS_BY_OP);
  items = cp_comparison_get_kernels (by_op, &n);
  g_assert_cmpuint (n, ==, json_object_get_size (ops));
  for (guint i = 0; i < n; i++)
    {
      JsonObject *op = json_object_get_object_member (ops, items[i].key);

      if (op == NULL)
        g_error ("launching op “%s” is not one of compare-count.py's", items[i].key);
      g_assert_cmpint (items[i].a.count, ==, json_object_get_int_member (op, "a_count"));
      g_assert_cmpint (items[i].b.count, ==, json_object_get_int_member (op, "b_count"));
      g_assert_cmpint (items[i].a.total, ==, json_object_get_int_member (op, "a_total_ns"));
      g_assert_cmpint (items[i].b.total, ==, json_object_get_int_member (op, "b_total_ns"));
    }
}

static void
test_real_pair (gconstpointer data)
{
  const char * const *pair = data;
  const char *a = shared_path (pair[0]);
  const char *b = shared_path (pair[1]);
  g_autoptr(JsonNode) o = NULL;
  g_autoptr(CpComparison) c = NULL;
  g_autoptr(CpComparison) by_op = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) root = NULL;
  guint n_a, n_b, n;

  if (a == NULL || b == NULL || (o = oracle (a, b)) == NULL)
    return;
  c = compare_files (a, b, CP_COMPARE_KERNELS_BY_NAME);
  check_against_oracle (c, json_node_get_object (o));
  check_partition (c);
  cp_comparison_get_n_steps (c, &n_a, &n_b);
  cp_comparison_get_steps (c, &n);
  g_assert_cmpuint (n, ==, MIN (n_a, n_b));
  /* One device on each side: matched, whatever the ranks' ordinals. */
  g_assert_true (cp_comparison_get_comparable (c) & CP_COMPARE_GROUP_DEVICES);

  /* By launching op: every kernel with an op around its launch, once. */
  by_op = compare_files (a, b, CP_COMPARE_KERNELS_BY_OP);
  check_by_op_against_oracle (by_op, json_node_get_object (o));
  {
    const CpCompareItem *items = cp_comparison_get_kernels (by_op, &n);
    gint64 total[2] = { 0, 0 };

    for (guint i = 0; i < n; i++)
      {
        total[0] += items[i].a.total;
        total[1] += items[i].b.total;
      }
    g_assert_cmpint (total[0], <=, cp_analysis_get_kernel_time (cp_comparison_get_a (c)));
    g_assert_cmpint (total[1], <=, cp_analysis_get_kernel_time (cp_comparison_get_b (c)));
  }

  /* The JSON holds the same figures. */
  json = cp_comparison_to_json (c, FALSE);
  root = parse_json (json);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "schema"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (root), "a"), "mean_step_ns"),
                   ==, json_object_get_int_member (json_object_get_object_member (json_node_get_object (o), "a"), "mean_step_ns"));
}

/* Runs a counting script of tests/ on one file; its stdout. */
static char *
count_script (const char *script_name,
              const char *path)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), script_name, NULL);
  const char *argv[] = { python, script, path, NULL };
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = 0;

  g_assert_nonnull (python);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed on %s: %s", script_name, path, err);
  return out;
}

/* Two XPlane captures of one JAX program on MI300 GPUs, an older and a
 * newer ROCm (whose kernel names end in ".kd"): the steps are xla-count.py's
 * executions of the repeated module, every kernel xplane-count.py counts is
 * in an item, and once folded the kernels match. */
static void
test_mi300_xplane_pair (void)
{
  const char *paths[2] = {
    shared_path ("AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"),
    shared_path ("AMD-AGI__TraceLens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb"),
  };
  g_autoptr(CpComparison) c = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  const CpCompareItem *items;
  guint n, n_steps[2];
  double match[2];

  if (paths[0] == NULL || paths[1] == NULL)
    return;
  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  c = compare_files (paths[0], paths[1], CP_COMPARE_KERNELS_BY_NAME);
  check_partition (c);
  cp_comparison_get_n_steps (c, &n_steps[0], &n_steps[1]);
  items = cp_comparison_get_kernels (c, &n);
  for (guint s = 0; s < 2; s++)
    {
      g_autofree char *xla = count_script ("xla-count.py", paths[s]);
      g_autofree char *counts = count_script ("xplane-count.py", paths[s]);
      g_autoptr(JsonNode) root = parse_json (xla);
      const char *k = strstr (counts, " kernels=");
      gint64 sum = 0;

      g_assert_cmpint (n_steps[s], ==, json_object_get_int_member (json_node_get_object (root), "steps"));
      g_assert_nonnull (k);
      for (guint i = 0; i < n; i++)
        sum += s == 0 ? items[i].a.count : items[i].b.count;
      g_assert_cmpint (sum, ==, g_ascii_strtoll (k + 9, NULL, 10));
    }
  g_assert_true (cp_comparison_get_comparable (c) & CP_COMPARE_GROUP_KERNELS);
  cp_comparison_get_kernel_match (c, &match[0], &match[1]);
  g_assert_cmpfloat (match[0], >, 95);
  g_assert_cmpfloat (match[1], >, 95);
}

static const char *hta_compare[] = {
  "facebookresearch__HolisticTraceAnalysis/tests/data/trace_compare/base/base.json.gz",
  "facebookresearch__HolisticTraceAnalysis/tests/data/trace_compare/test/test.json.gz",
};
static const char *hta_diff[] = {
  "facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz",
  "facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz",
};
static const char *kineto_fix[] = {
  "pytorch__kineto/docs/traces/before_fix_trace.json",
  "pytorch__kineto/docs/traces/after_fix_trace.json",
};

/* The same run with a slower DataLoader: slower by about the time the GPU
 * now waits for input, and that is where the change goes. */
static void
test_gen_slower_loader (void)
{
  const char *a = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *b = gen ("loader30", ".json", "healthy", "--loader-ms=30", NULL);
  g_autoptr(JsonNode) o = oracle (a, b);
  g_autoptr(JsonNode) truth = truth_of (b);
  g_autoptr(CpComparison) c = NULL;
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  const CpCompareItem *input;
  gint64 delta, mean_b, loader_per_step;
  guint n_a, n_b;

  if (o == NULL)
    return;
  c = compare_files (a, b, CP_COMPARE_KERNELS_BY_NAME);
  check_against_oracle (c, json_node_get_object (o));
  check_partition (c);
  cp_comparison_get_step_time (c, NULL, &mean_b, &delta, NULL);
  cp_comparison_get_n_steps (c, &n_a, &n_b);
  g_assert_cmpuint (n_b, ==, json_object_get_int_member (json_node_get_object (truth), "steps"));

  cp_comparison_explain (c, explained);
  input = find_category (c, CP_TIME_INPUT_WAIT);
  g_assert_true (explained[0] == input);
  g_assert_cmpfloat ((double) input->delta / delta, >, 0.9);
  /* The GPU waits for input at most as long as the loader runs (the
   * truth's ranges are the __next__ spans), and the step grew by less than
   * the 30 ms the loader takes: the GPU's ~25 ms of work overlaps part. */
  loader_per_step = truth_ranges_total (json_node_get_object (truth)) / n_b;
  g_assert_cmpint (input->b.per_step, <=, loader_per_step);
  g_assert_cmpint (delta, >, 0);
  g_assert_cmpint (delta, <, loader_per_step);
  /* The data-loading share of B as the verdict gives it is the loader's. */
  g_assert_cmpfloat (fabs (cp_analysis_get_verdict (cp_comparison_get_b (c))->loading_percent -
                           100.0 * loader_per_step / mean_b), <, 2.0);
}

/* The same pair as XPlane, and mixed: cp-gen writes the same events in
 * both formats, so the mixed comparison and the XPlane one must say what
 * the Chrome one says, and the mixed one must say what does not compare. */
static void
test_gen_xplane_and_mixed (void)
{
  const char *ja = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *jb = gen ("loader30", ".json", "healthy", "--loader-ms=30", NULL);
  const char *xa = gen ("healthy", ".xplane.pb", "healthy", NULL, NULL);
  const char *xb = gen ("loader30", ".xplane.pb", "healthy", "--loader-ms=30", NULL);
  g_autoptr(CpComparison) cj = compare_files (ja, jb, CP_COMPARE_KERNELS_BY_NAME);
  g_autoptr(CpComparison) cx = compare_files (xa, xb, CP_COMPARE_KERNELS_BY_NAME);
  g_autoptr(CpComparison) cm = compare_files (ja, xb, CP_COMPARE_KERNELS_BY_NAME);
  CpComparison *each[] = { cx, cm };
  const char * const *notes;
  gint64 dj, d;
  gboolean noted = FALSE;

  cp_comparison_get_step_time (cj, NULL, NULL, &dj, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (each); i++)
    {
      const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
      guint comparable = cp_comparison_get_comparable (each[i]);

      check_partition (each[i]);
      cp_comparison_get_step_time (each[i], NULL, NULL, &d, NULL);
      /* XPlane keeps ns; the Kineto JSON µs with three decimals. */
      g_assert_cmpint (ABS (d - dj), <=, 1000);
      cp_comparison_explain (each[i], explained);
      g_assert_cmpint (explained[0]->id, ==, CP_TIME_INPUT_WAIT);
      g_assert_true (comparable & CP_COMPARE_GROUP_STEPS);
      g_assert_true (comparable & CP_COMPARE_GROUP_CATEGORIES);
      g_assert_true (comparable & CP_COMPARE_GROUP_KERNELS);
      g_assert_true (comparable & CP_COMPARE_GROUP_DEVICES);
    }
  g_assert_true (cp_comparison_get_comparable (cx) & CP_COMPARE_GROUP_HOST_OPS);
  g_assert_false (cp_comparison_get_comparable (cm) & CP_COMPARE_GROUP_HOST_OPS);
  notes = cp_comparison_get_notes (cm);
  for (guint i = 0; notes[i] != NULL; i++)
    noted |= strstr (notes[i], "host ops do not compare") != NULL;
  g_assert_true (noted);
  {
    double ma, mb;

    cp_comparison_get_kernel_match (cm, &ma, &mb);
    g_assert_cmpfloat (ma, ==, 100.0);
    g_assert_cmpfloat (mb, ==, 100.0);
  }
}

/* AMP on: fp32 SIMT kernels (A) against bf16 tensor-core ones (B). */
static void
test_gen_amp_on (void)
{
  const char *a = gen ("fp32", ".json", "fp32-no-tensor-cores", NULL, NULL);
  const char *b = gen ("healthy", ".json", "healthy", NULL, NULL);
  g_autoptr(JsonNode) o = oracle (a, b);
  g_autoptr(JsonNode) truth = truth_of (a);
  g_autoptr(CpComparison) c = NULL;
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  const CpCompareFinding *fs;
  JsonArray *expect = json_object_get_array_member (json_node_get_object (truth), "expect");
  gint64 delta;
  guint n, checked = 0;

  if (o == NULL)
    return;
  c = compare_files (a, b, CP_COMPARE_KERNELS_BY_NAME);
  check_against_oracle (c, json_node_get_object (o));
  check_partition (c);
  cp_comparison_get_step_time (c, NULL, NULL, &delta, NULL);
  g_assert_cmpint (delta, <, 0);
  cp_comparison_explain (c, explained);
  g_assert_cmpint (explained[0]->id, ==, CP_TIME_COMPUTE_32);
  g_assert_cmpint (explained[0]->delta, <, 0);
  g_assert_cmpint (find_category (c, CP_TIME_COMPUTE_16)->side, ==, CP_COMPARE_ONLY_B);
  g_assert_cmpint (find_category (c, CP_TIME_COMPUTE_16)->delta, >, 0);

  /* What the truth says A has (no mixed precision) is gone in B. */
  fs = cp_comparison_get_findings (c, &n);
  for (guint e = 0; e < json_array_get_length (expect); e++)
    for (guint i = 0; i < n; i++)
      if (g_str_equal (fs[i].rule_id, json_array_get_string_element (expect, e)))
        {
          g_assert_true (fs[i].change == CP_COMPARE_FINDING_DISAPPEARED || fs[i].change == CP_COMPARE_FINDING_BETTER);
          checked++;
        }
  g_assert_cmpuint (checked, ==, json_array_get_length (expect));
}

/* One kernel twice as slow: its item carries the truth's figures, it tops
 * the kernels, and the step grows by about what it added. */
static void
test_gen_slow_kernel (void)
{
  const char *a = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *b = gen ("slow-flash", ".json", "healthy", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  g_autoptr(JsonNode) o = oracle (a, b);
  g_autoptr(JsonNode) truth = truth_of (b);
  JsonObject *slow = json_object_get_object_member (json_node_get_object (truth), "slow_kernel");
  g_autoptr(CpComparison) c = NULL;
  const CpCompareItem *it, *items;
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  gint64 delta, added_per_step;
  guint n, n_b;

  if (o == NULL)
    return;
  c = compare_files (a, b, CP_COMPARE_KERNELS_BY_NAME);
  check_against_oracle (c, json_node_get_object (o));
  check_partition (c);
  it = cp_comparison_lookup_kernel (c, json_object_get_string_member (slow, "text"));
  g_assert_nonnull (it);
  g_assert_cmpint (it->side, ==, CP_COMPARE_BOTH);
  g_assert_cmpint (it->b.count, ==, json_object_get_int_member (slow, "count"));
  g_assert_cmpint (it->b.total, ==, json_object_get_int_member (slow, "total_ns"));
  /* Same jittered distribution on both sides, twice as long in B. */
  g_assert_cmpfloat (fabs ((double) it->b.mean / it->a.mean - json_object_get_double_member (slow, "factor")), <, 0.05);
  items = cp_comparison_get_kernels (c, &n);
  g_assert_true (&items[0] == it);

  /* The slices to highlight on both timelines: one per launch. */
  for (guint side = 0; side < 2; side++)
    {
      g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
      CpTrace *trace = cp_analysis_get_trace (side == 0 ? cp_comparison_get_a (c) : cp_comparison_get_b (c));
      gint64 total = 0;

      cp_comparison_collect_slices (c, it, side, refs);
      g_assert_cmpint (refs->len, ==, side == 0 ? it->a.count : it->b.count);
      for (guint i = 0; i < refs->len; i++)
        {
          CpSliceRef *r = &g_array_index (refs, CpSliceRef, i);

          g_assert_nonnull (strstr (cp_trace_slice_name (trace, *r), json_object_get_string_member (slow, "text")));
          total += cp_trace_slice_dur (trace, *r);
        }
      g_assert_cmpint (total, ==, side == 0 ? it->a.total : it->b.total);
    }

  cp_comparison_get_n_steps (c, NULL, &n_b);
  added_per_step = (gint64) (json_object_get_int_member (slow, "total_ns") *
                             (1 - 1 / json_object_get_double_member (slow, "factor"))) / n_b;
  cp_comparison_get_step_time (c, NULL, NULL, &delta, NULL);
  /* GPU-bound: the step grows by the added kernel time, less what jitter
   * elsewhere gives back. */
  g_assert_cmpfloat (fabs ((double) delta - added_per_step), <, 0.15 * added_per_step);
  cp_comparison_explain (c, explained);
  g_assert_cmpint (explained[0]->id, ==, CP_TIME_COMPUTE_16);

  /* By launching op: as compare-count.py counts them, and the op that
   * launches the slowed kernel changed most. */
  {
    g_autoptr(CpComparison) by_op = compare_files (a, b, CP_COMPARE_KERNELS_BY_OP);
    JsonObject *ops = json_object_get_object_member (json_node_get_object (o), "ops");
    g_autoptr(GList) names = json_object_get_members (ops);
    const char *grown = NULL;
    gint64 most = G_MININT64;

    check_by_op_against_oracle (by_op, json_node_get_object (o));
    for (GList *l = names; l != NULL; l = l->next)
      {
        JsonObject *op = json_object_get_object_member (ops, l->data);
        gint64 d = json_object_get_int_member (op, "b_total_ns") - json_object_get_int_member (op, "a_total_ns");

        if (d > most)
          {
            most = d;
            grown = l->data;
          }
      }
    items = cp_comparison_get_kernels (by_op, &n);
    g_assert_cmpuint (n, >, 0);
    g_assert_cmpstr (items[0].key, ==, grown);
  }
}

static void
count_notify (guint *counter)
{
  (*counter)++;
}

static void
test_typical_step (void)
{
  const char *a = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *b = gen ("loader30", ".json", "healthy", "--loader-ms=30", NULL);
  g_autoptr(CpComparison) c = compare_files (a, b, CP_COMPARE_KERNELS_BY_NAME);
  guint n_a, notified = 0;
  const CpStepStats *st = cp_analysis_get_steps (cp_comparison_get_a (c), &n_a);
  gint typical = cp_comparison_get_typical_step (c, 0);
  guint shorter = 0, longer = 0;

  /* The median: as many steps shorter as longer, give or take one. */
  g_assert_cmpint (typical, >=, 0);
  for (guint i = 0; i < n_a; i++)
    {
      gint64 d = st[i].end - st[i].start, t = st[typical].end - st[typical].start;

      shorter += d < t;
      longer += d > t;
    }
  g_assert_cmpint (ABS ((gint) shorter - (gint) longer), <=, 1);

  g_signal_connect_swapped (c, "notify::typical-step-a", G_CALLBACK (count_notify), &notified);
  g_assert_true (cp_comparison_set_typical_step (c, 0, (typical + 1) % n_a));
  g_assert_cmpint (cp_comparison_get_typical_step (c, 0), ==, (typical + 1) % n_a);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_false (cp_comparison_set_typical_step (c, 0, n_a));
  g_assert_cmpint (cp_comparison_get_typical_step (c, 0), ==, (typical + 1) % n_a);
  g_assert_cmpuint (notified, ==, 1);
}

/* ---------------------------------------------------------------------- */
/* The command                                                            */

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *ignored_out = NULL, *ignored_err = NULL;
  int status = 0;

  if (out == NULL)
    out = &ignored_out;
  if (err == NULL)
    err = &ignored_err;
  g_ptr_array_add (argv, (gpointer) g_getenv ("CP_CHOKEPOINT"));
  g_assert_nonnull (argv->pdata[0]);
  g_ptr_array_add (argv, "compare");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);
  envp = g_environ_setenv (envp, "LANGUAGE", "C", TRUE);
  g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_cli_gates (void)
{
  const char *h = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *l = gen ("loader30", ".json", "healthy", "--loader-ms=30", NULL);
  const char *s = gen ("slow-flash", ".json", "healthy", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  struct { const char *args[8]; int status; const char *err; } cases[] = {
    /* B ~63% slower (oracle: 24.65 -> 40.25 ms for these seeds). */
    { { "--fail-on-regression=5", h, l, NULL }, 3, "regression: mean step time" },
    { { "--fail-on-regression=100", h, l, NULL }, 0, NULL },
    { { "--fail-on-regression=0", l, h, NULL }, 0, NULL },
    { { "--metric", "data-loading:5", h, l, NULL }, 3, "regression: data-loading share" },
    { { "--metric", "data-loading:5", l, h, NULL }, 0, NULL },
    { { "--metric", "utilization:10", h, l, NULL }, 3, "regression: utilisation" },
    { { "--metric", "kernel-time:1", h, s, NULL }, 3, "regression: kernel time per step" },
    { { "--metric", "kernel:flash_fwd_kernel:50", h, s, NULL }, 3, "flash_fwd_kernel" },
    { { "--metric", "kernel:flash_fwd_kernel:150", h, s, NULL }, 0, NULL },
    { { "--metric", "kernel:no_such_kernel:5", h, s, NULL }, 1, "no kernel “no_such_kernel” on both sides" },
    { { "--metric", "step-time:5", "--metric", "kernel-time:50", h, l }, 3, "regression: mean step time" },
    { { "--metric", "speed:5", h, l, NULL }, 2, "--metric takes NAME:PCT" },
    { { "--metric", "step-time:lots", h, l, NULL }, 2, "--metric takes NAME:PCT" },
    { { "--fail-on-regression=fast", h, l, NULL }, 2, "--fail-on-regression takes a percentage" },
    { { "--format=xml", h, l, NULL }, 2, "--format takes" },
    { { "--json", "--format=markdown", h, l, NULL }, 2, "contradict" },
    { { h, NULL }, 2, "give exactly two capture files" },
    { { h, l, s, NULL }, 2, "give exactly two capture files" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      int status = run_cli (cases[i].args, NULL, &err);

      if (status != cases[i].status || (cases[i].err != NULL && strstr (err, cases[i].err) == NULL))
        g_error ("case %u: exit %d (want %d), stderr: %s", i, status, cases[i].status, err);
    }
}

static void
test_cli_formats (void)
{
  const char *h = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *l = gen ("loader30", ".json", "healthy", "--loader-ms=30", NULL);
  g_autoptr(JsonNode) o = oracle (h, l);
  g_autofree char *text = NULL, *md = NULL, *json = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *r, *st;
  gint64 want;

  if (o == NULL)
    return;
  want = json_object_get_int_member (json_object_get_object_member (json_node_get_object (o), "b"), "mean_step_ns") -
         json_object_get_int_member (json_object_get_object_member (json_node_get_object (o), "a"), "mean_step_ns");

  g_assert_cmpint (run_cli ((const char *[]) { h, l, NULL }, &text, NULL), ==, 0);
  g_assert_nonnull (strstr (text, "Step time: "));
  g_assert_nonnull (strstr (text, "What explains it"));
  g_assert_nonnull (strstr (text, "Input: data loading"));

  g_assert_cmpint (run_cli ((const char *[]) { "--format=markdown", h, l, NULL }, &md, NULL), ==, 0);
  g_assert_true (g_str_has_prefix (md, "### "));
  g_assert_nonnull (strstr (md, "**Mean step time:**"));
  g_assert_nonnull (strstr (md, "|---|---:|---:|---:|---:|"));

  g_assert_cmpint (run_cli ((const char *[]) { "--json", h, l, NULL }, &json, NULL), ==, 0);
  root = parse_json (json);
  r = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (r, "schema"), ==, 1);
  st = json_object_get_object_member (r, "step_time");
  g_assert_cmpint (json_object_get_int_member (st, "delta_ns"), ==, want);
  g_assert_cmpstr (json_object_get_string_member (r, "kernel_key"), ==, "name");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (r, "explained_by"), 0),
                                                  "category"), ==, "input_wait");
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (r, "comparable"), "kernels"));

  /* --by-op: kernels under the ops that launched them. */
  {
    g_autofree char *op_json = NULL;
    g_autoptr(JsonNode) op_root = NULL;
    JsonArray *kernels;
    gboolean found = FALSE;

    g_assert_cmpint (run_cli ((const char *[]) { "--by-op", "--json", h, l, NULL }, &op_json, NULL), ==, 0);
    op_root = parse_json (op_json);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (op_root), "kernel_key"), ==, "op");
    kernels = json_object_get_array_member (json_node_get_object (op_root), "kernels");
    for (guint i = 0; i < json_array_get_length (kernels); i++)
      found |= g_str_equal (json_object_get_string_member (json_array_get_object_element (kernels, i), "key"), "aten::mm");
    g_assert_true (found);
  }
}

static const char steps_k1[] =
  "{\"traceEvents\": [\n"
  " {\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"cat\": \"user_annotation\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
  " {\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": \"cuda_runtime\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
  " {\"ph\": \"X\", \"name\": \"KERNEL\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 500, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},\n"
  " {\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"cat\": \"user_annotation\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 1000},\n"
  " {\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": \"cuda_runtime\", \"pid\": 1, \"tid\": 1, \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 2}},\n"
  " {\"ph\": \"X\", \"name\": \"KERNEL\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1020, \"dur\": 500, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2}}\n"
  "]}\n";

static char *
write_variant (const char *dir,
               const char *name,
               const char *kernel,
               gboolean    steps)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = g_strsplit (steps_k1, "KERNEL", -1);
  g_autofree char *joined = g_strjoinv (kernel, parts);

  if (steps)
    text = g_strdup (joined);
  else
    {
      g_auto(GStrv) lines = g_strsplit (joined, "\n", -1);
      GString *s = g_string_new (NULL);

      for (guint i = 0; lines[i] != NULL; i++)
        if (strstr (lines[i], "ProfilerStep") == NULL)
          g_string_append_printf (s, "%s\n", lines[i]);
      text = g_string_free (s, FALSE);
    }
  return cp_test_write_file (dir, name, text, -1);
}

/* A capture of ProfilerStep#first … #first+n-1, back to back, step k
 * lasting base + k * inc µs with one 100 µs kernel in it. */
static char *
write_numbered_steps (const char *dir,
                      const char *name,
                      guint       first,
                      guint       n,
                      gint64      base,
                      gint64      inc)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\": [\n");
  gint64 ts = 0;

  for (guint k = 0; k < n; k++)
    {
      gint64 dur = base + (gint64) (first + k) * inc;

      g_string_append_printf (s, "%s {\"ph\": \"X\", \"name\": \"ProfilerStep#%u\", \"cat\": \"user_annotation\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"dur\": %" G_GINT64_FORMAT "},\n",
                              k > 0 ? "," : "", first + k, ts, dur);
      g_string_append_printf (s, " {\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": \"cuda_runtime\", \"pid\": 1, "
                              "\"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"dur\": 5, \"args\": {\"correlation\": %u}},\n",
                              ts + 10, k + 1);
      g_string_append_printf (s, " {\"ph\": \"X\", \"name\": \"gemm\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, "
                              "\"ts\": %" G_GINT64_FORMAT ", \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 7, "
                              "\"correlation\": %u}}\n", ts + 20, k + 1);
      ts += dur;
    }
  g_string_append (s, "]}\n");
  return cp_test_write_file (dir, name, s->str, -1);
}

/* Steps paired by number: A profiled #10–#14, B #12–#17. In order, A's
 * i-th meets B's i-th (five pairs, #10 with #12); by number, #12, #13 and
 * #14 meet themselves, with the durations written. The per-step figures do
 * not change; the command takes --steps=number, refuses a bad value, and
 * says so when no number is on both sides. */
static void
test_steps_by_number (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *pa = write_numbered_steps (dir, "a.json", 10, 5, 1000, 100);
  g_autofree char *pb = write_numbered_steps (dir, "b.json", 12, 6, 2000, 10);
  g_autofree char *pc = write_numbered_steps (dir, "c.json", 40, 3, 2000, 10);
  g_autoptr(CpComparison) c = compare_files (pa, pb, CP_COMPARE_KERNELS_BY_NAME);
  g_autoptr(CpComparison) disjoint = compare_files (pa, pc, CP_COMPARE_KERNELS_BY_NAME);
  const CpCompareStep *st;
  gint64 mean_a, mean_b, delta, mean_a2, mean_b2, delta2;
  double pct, pct2;
  guint n = 0;

  g_assert_cmpint (cp_comparison_get_step_match (c), ==, CP_COMPARE_STEPS_IN_ORDER);
  st = cp_comparison_get_steps (c, &n);
  g_assert_cmpuint (n, ==, 5);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (st[i].index, ==, i);
      g_assert_cmpuint (st[i].index_b, ==, i);
      g_assert_cmpint (st[i].number_a, ==, 10 + i);
      g_assert_cmpint (st[i].number_b, ==, 12 + i);
    }
  cp_comparison_get_step_time (c, &mean_a, &mean_b, &delta, &pct);
  g_assert_true (g_strv_contains (cp_comparison_get_notes (c),
                                  "A has 5 steps and B 6: per-step figures divide by each side’s own count, "
                                  "and the first 5 steps are matched in order"));

  g_assert_true (cp_comparison_set_step_match (c, CP_COMPARE_STEPS_BY_NUMBER));
  g_assert_true (g_strv_contains (cp_comparison_get_notes (c),
                                  "A has 5 steps and B 6: per-step figures divide by each side’s own count, "
                                  "and the 3 steps numbered on both sides are matched by number"));
  g_assert_cmpint (cp_comparison_get_step_match (c), ==, CP_COMPARE_STEPS_BY_NUMBER);
  st = cp_comparison_get_steps (c, &n);
  g_assert_cmpuint (n, ==, 3);
  for (guint i = 0; i < n; i++)
    {
      gint64 num = 12 + i;

      g_assert_cmpint (st[i].number_a, ==, num);
      g_assert_cmpint (st[i].number_b, ==, num);
      g_assert_cmpuint (st[i].index, ==, num - 10);
      g_assert_cmpuint (st[i].index_b, ==, num - 12);
      g_assert_cmpint (st[i].duration_a, ==, (1000 + num * 100) * 1000);
      g_assert_cmpint (st[i].duration_b, ==, (2000 + num * 10) * 1000);
      g_assert_cmpint (st[i].delta, ==, st[i].duration_b - st[i].duration_a);
    }
  cp_comparison_get_step_time (c, &mean_a2, &mean_b2, &delta2, &pct2);
  g_assert_cmpint (mean_a2, ==, mean_a);
  g_assert_cmpint (mean_b2, ==, mean_b);

  /* No number on both sides: refused, the pairs stay in order. */
  g_assert_false (cp_comparison_set_step_match (disjoint, CP_COMPARE_STEPS_BY_NUMBER));
  g_assert_cmpint (cp_comparison_get_step_match (disjoint), ==, CP_COMPARE_STEPS_IN_ORDER);
  cp_comparison_get_steps (disjoint, &n);
  g_assert_cmpuint (n, ==, 3);

  /* The command. */
  {
    const char *args[] = { "--json", "--steps=number", pa, pb, NULL };
    const char *bad[] = { "--steps=bogus", pa, pb, NULL };
    const char *none[] = { "--steps=number", pa, pc, NULL };
    g_autofree char *out = NULL, *err = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
    g_autoptr(JsonNode) root = NULL;
    JsonArray *steps;

    g_assert_cmpint (run_cli (args, &out, NULL), ==, 0);
    root = parse_json (out);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "step_match"), ==, "number");
    steps = json_object_get_array_member (json_node_get_object (root), "steps");
    g_assert_cmpuint (json_array_get_length (steps), ==, 3);
    for (guint i = 0; i < 3; i++)
      {
        JsonObject *o = json_array_get_object_element (steps, i);

        g_assert_cmpint (json_object_get_int_member (o, "number_a"), ==, 12 + i);
        g_assert_cmpint (json_object_get_int_member (o, "number_b"), ==, 12 + i);
        g_assert_cmpint (json_object_get_int_member (o, "index_b"), ==, i);
        g_assert_cmpint (json_object_get_int_member (o, "a_ns"), ==, (1000 + (12 + i) * 100) * 1000);
      }
    g_assert_cmpint (run_cli (bad, NULL, &err2), ==, 2);
    g_assert_nonnull (strstr (err2, "--steps takes"));
    g_assert_cmpint (run_cli (none, &out3, &err3), ==, 1);
    g_assert_nonnull (strstr (err3, "no step number is found in both"));
    g_assert_cmpstr (out3, ==, "");
  }
  cp_test_rm_rf (dir);
}

/* Pairs that do not compare, and files that cannot be read: one clear
 * line on stderr, exit 1, nothing on stdout. Two captures of different
 * lengths do compare. */
static void
test_cli_bad_pairs (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *k1 = write_variant (dir, "k1.json", "kernel_one", TRUE);
  g_autofree char *k2 = write_variant (dir, "k2.json", "kernel_two", TRUE);
  g_autofree char *nosteps = write_variant (dir, "nosteps.json", "kernel_one", FALSE);
  g_autofree char *damaged = cp_test_write_file (dir, "damaged.json", steps_k1, 200);
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  const char *h = gen ("healthy", ".json", "healthy", NULL, NULL);
  const char *h12 = gen ("healthy12", ".json", "healthy", "--steps=12", NULL);
  struct { const char *a, *b; const char *err; } cases[] = {
    { k1, k2, "No kernel is found on both sides" },
    { nosteps, k1, "A has no steps" },
    { k1, nosteps, "B has no steps" },
    { damaged, k1, "chokepoint compare: A: " },
    { k1, damaged, "chokepoint compare: B: " },
    { k1, missing, "does not exist" },
    { dir, k1, "chokepoint compare: A: " },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status = run_cli ((const char *[]) { cases[i].a, cases[i].b, NULL }, &out, &err);

      if (status != 1 || strstr (err, cases[i].err) == NULL || *out != '\0')
        g_error ("case %u: exit %d, stdout “%s”, stderr “%s”", i, status, out, err);
      g_assert_cmpuint (strlen (err), <, 400);
    }

  /* The window asks the same question of the model. */
  {
    struct { const char *a, *b; gint code; } api[] = {
      { k1, k2, CP_COMPARE_ERROR_NO_COMMON_KERNELS },
      { nosteps, k1, CP_COMPARE_ERROR_NO_STEPS },
      { k1, nosteps, CP_COMPARE_ERROR_NO_STEPS },
      { k1, k1, -1 },
    };

    for (guint i = 0; i < G_N_ELEMENTS (api); i++)
      {
        g_autoptr(CpComparison) c = compare_files (api[i].a, api[i].b, CP_COMPARE_KERNELS_BY_NAME);
        g_autoptr(GError) error = NULL;

        if (api[i].code < 0)
          {
            g_assert_true (cp_comparison_check (c, &error));
            g_assert_no_error (error);
          }
        else
          {
            g_assert_false (cp_comparison_check (c, &error));
            g_assert_error (error, CP_COMPARE_ERROR, api[i].code);
          }
      }
  }

  /* 6 steps against 12: per-step figures, the first 6 matched. */
  {
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr(CpComparison) c = compare_files (h, h12, CP_COMPARE_KERNELS_BY_NAME);
    guint n_a, n_b, n;
    double ma, mb;

    g_assert_cmpint (run_cli ((const char *[]) { h, h12, NULL }, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "per-step figures divide by each side’s own count"));
    cp_comparison_get_n_steps (c, &n_a, &n_b);
    cp_comparison_get_steps (c, &n);
    g_assert_cmpuint (n_a, <, n_b);
    g_assert_cmpuint (n, ==, n_a);
    cp_comparison_get_kernel_match (c, &ma, &mb);
    g_assert_cmpfloat (ma, ==, 100.0);
    g_assert_cmpfloat (mb, ==, 100.0);
  }
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compare/normalise", test_normalise);
  g_test_add_func ("/compare/normalise-oracle", test_normalise_oracle);
  g_test_add_func ("/compare/real/resnet-num-workers", test_resnet_workers);
  g_test_add_data_func ("/compare/real/hta-trace-compare", hta_compare, test_real_pair);
  g_test_add_data_func ("/compare/real/hta-trace-diff", hta_diff, test_real_pair);
  g_test_add_data_func ("/compare/real/kineto-before-after-fix", kineto_fix, test_real_pair);
  g_test_add_func ("/compare/real/mi300-xplane", test_mi300_xplane_pair);
  g_test_add_func ("/compare/gen/slower-loader", test_gen_slower_loader);
  g_test_add_func ("/compare/gen/xplane-and-mixed", test_gen_xplane_and_mixed);
  g_test_add_func ("/compare/gen/amp-on", test_gen_amp_on);
  g_test_add_func ("/compare/gen/slow-kernel", test_gen_slow_kernel);
  g_test_add_func ("/compare/typical-step", test_typical_step);
  g_test_add_func ("/compare/steps-by-number", test_steps_by_number);
  g_test_add_func ("/compare/cli/gates", test_cli_gates);
  g_test_add_func ("/compare/cli/formats", test_cli_formats);
  g_test_add_func ("/compare/cli/bad-pairs", test_cli_bad_pairs);
  status = g_test_run ();
  if (gen_dir != NULL)
    cp_test_rm_rf (gen_dir);
  g_free (gen_dir);
  return status;
}
