/* test-source-chain.c: from a kernel back to the op, module and Python
 * frame that launched it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracle: tests/source-chain.py, which finds each kernel's launch by its
 * correlation id and what spans it on its thread, from the raw events. On
 * real captures recorded with with_stack and with_modules, every kernel's
 * chain (cp_analysis_source_chain()) has the same names in the same
 * order, the launch first, and kinds that agree with the events'
 * categories, and the kernel time by module and by the user's code line
 * is the oracle's. A trace built in code checks the kinds, a host slice's
 * own chain and a kernel without a launch.
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

static const char *const captures[] = {
  "AMD-AGI__TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
  "AMD-AGI__TraceLens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz",
  "AMD-AGI__TraceLens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
};

static JsonObject *
oracle (const char *path,
        JsonParser *parser)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "source-chain.py", NULL);
  const char *argv[] = { python, script, path, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  return json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "kernels");
}

static void
test_real (gconstpointer data)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *want;
  guint checked = 0, modules = 0, frames = 0;

  if (root == NULL || python == NULL)
    {
      g_test_skip ("../shared/traces or python3 is missing");
      return;
    }
  path = g_build_filename (root, (const char *) data, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip_printf ("%s is missing", path);
      return;
    }
  want = oracle (path, parser);
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      if (cp_lane_get_kind (lane) != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          g_autofree char *key = NULL;
          g_autoptr(GArray) chain = NULL;
          JsonObject *w;
          JsonArray *around, *cats;

          if (cp_slices_get_corr (s, i) == CP_NONE)
            continue;
          key = g_strdup_printf ("%" G_GINT64_FORMAT, cp_slices_get_corr (s, i));
          w = json_object_has_member (want, key) ? json_object_get_object_member (want, key) : NULL;
          chain = cp_analysis_source_chain (a, (CpSliceRef) { l, i });
          if (w == NULL)
            {
              g_assert_cmpuint (chain->len, ==, 0);
              continue;
            }
          around = json_object_get_array_member (w, "around");
          cats = json_object_get_array_member (w, "categories");
          g_assert_cmpuint (chain->len, ==, 1 + json_array_get_length (around));
          g_assert_cmpint (g_array_index (chain, CpSourceLink, 0).kind, ==, CP_SOURCE_LAUNCH);
          g_assert_cmpstr (cp_trace_slice_name (trace, g_array_index (chain, CpSourceLink, 0).ref), ==,
                           json_object_get_string_member (w, "launch"));
          for (guint k = 0; k < json_array_get_length (around); k++)
            {
              const CpSourceLink *link = &g_array_index (chain, CpSourceLink, k + 1);
              const char *name = json_array_get_string_element (around, k);
              gboolean python_frame = g_str_equal (json_array_get_string_element (cats, k), "python_function");

              g_assert_cmpstr (cp_trace_slice_name (trace, link->ref), ==, name);
              if (python_frame)
                {
                  g_assert_cmpint (link->kind, ==, g_str_has_prefix (name, "nn.Module: ") ? CP_SOURCE_MODULE
                                                                                           : CP_SOURCE_FRAME);
                  modules += link->kind == CP_SOURCE_MODULE;
                  frames += link->kind == CP_SOURCE_FRAME;
                }
              else
                g_assert_cmpint (link->kind, !=, CP_SOURCE_MODULE);
            }
          checked++;
        }
    }
  g_assert_cmpuint (checked, ==, json_object_get_size (want));
  g_assert_cmpuint (checked, >, 0);
  g_assert_cmpuint (modules, >, 0);
  g_assert_cmpuint (frames, >, 0);
  g_test_message ("%u kernels, %u module and %u frame links agree", checked, modules, frames);

  /* Kernel time by module and by the user's code, as the oracle sums it. */
  for (guint by = 0; by < 2; by++)
    {
      JsonObject *groups = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                          by == 0 ? "modules" : "code");
      g_autoptr(GArray) got = cp_analysis_kernels_by_source (a, by == 0 ? CP_SOURCE_MODULE : CP_SOURCE_FRAME, NULL);

      g_assert_cmpuint (got->len, ==, json_object_get_size (groups));
      g_assert_cmpuint (got->len, >, 0);
      for (guint k = 0; k < got->len; k++)
        {
          const CpSourceGroup *g = &g_array_index (got, CpSourceGroup, k);
          const char *name = cp_trace_get_string (trace, g->name);
          JsonObject *o;

          if (!json_object_has_member (groups, name))
            g_error ("“%s” is not one of source-chain.py's groups", name);
          o = json_object_get_object_member (groups, name);
          g_assert_cmpint (g->kernels, ==, json_object_get_int_member (o, "kernels"));
          g_assert_cmpint (g->time, ==, json_object_get_int_member (o, "time_ns"));
          if (k > 0)
            g_assert_cmpint (g->time, <=, g_array_index (got, CpSourceGroup, k - 1).time);
        }
    }
}

/* Kinds, a host slice's own chain and a kernel without a launch, on a
 * capture written here. */
static void
test_kinds (void)
{
  const char *json =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): step\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 98},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear_0\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 90},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 80},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 1, \"tid\": 1, \"ts\": 4, \"dur\": 70},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 10, \"args\": {\"correlation\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 30, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"orphan\", \"pid\": 0, \"tid\": 7, \"ts\": 60, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 99}}\n"
    "]}\n";
  static const CpSourceKind kinds[] = { CP_SOURCE_LAUNCH, CP_SOURCE_OP, CP_SOURCE_OP, CP_SOURCE_MODULE,
                                        CP_SOURCE_FRAME, CP_SOURCE_SCOPE };
  static const char *const names[] = { "cudaLaunchKernel", "aten::addmm", "aten::linear", "nn.Module: Linear_0",
                                       "train.py(10): step", "ProfilerStep#1" };
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = cp_test_write_file (dir, "chain.json", json, -1);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_autoptr(CpAnalysis) a = NULL;
  CpSliceRef gemm = CP_SLICE_REF_NONE, orphan = CP_SLICE_REF_NONE, addmm = CP_SLICE_REF_NONE;

  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

      for (guint i = 0; i < s->n; i++)
        {
          const char *name = cp_trace_get_string (trace, cp_slices_get_name (s, i));

          if (g_str_equal (name, "gemm"))
            gemm = (CpSliceRef) { l, i };
          else if (g_str_equal (name, "orphan"))
            orphan = (CpSliceRef) { l, i };
          else if (g_str_equal (name, "aten::addmm"))
            addmm = (CpSliceRef) { l, i };
        }
    }
  {
    g_autoptr(GArray) chain = cp_analysis_source_chain (a, gemm);

    g_assert_cmpuint (chain->len, ==, G_N_ELEMENTS (kinds));
    for (guint k = 0; k < chain->len; k++)
      {
        const CpSourceLink *link = &g_array_index (chain, CpSourceLink, k);

        g_assert_cmpint (link->kind, ==, kinds[k]);
        g_assert_cmpstr (cp_trace_slice_name (trace, link->ref), ==, names[k]);
        g_assert_cmpstr (cp_source_kind_to_string (link->kind), !=, "");
      }
  }
  {
    g_autoptr(GArray) chain = cp_analysis_source_chain (a, addmm);

    /* A host slice: what is around it, without itself. */
    g_assert_cmpuint (chain->len, ==, 4);
    g_assert_cmpstr (cp_trace_slice_name (trace, g_array_index (chain, CpSourceLink, 0).ref), ==, "aten::linear");
  }
  {
    g_autoptr(GArray) chain = cp_analysis_source_chain (a, orphan);

    g_assert_cmpuint (chain->len, ==, 0);
  }
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/source-chain/kinds", test_kinds);
  for (guint i = 0; i < G_N_ELEMENTS (captures); i++)
    {
      g_autofree char *name = g_path_get_basename (captures[i]);
      g_autofree char *test = g_strdup_printf ("/source-chain/real/%s", name);

      g_test_add_data_func (test, captures[i], test_real);
    }
  return g_test_run ();
}
