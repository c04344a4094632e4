/* test-real-captures.c: the analysis on every real capture in ../shared/traces
 * and tests/data/captures, and GPU busy time and kernel totals checked against
 * an independent Python count (tests/kernel-busy.py: Kineto JSON and XPlane)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

static void
collect (const char *dir,
         GPtrArray  *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect (path, out);
      else if (!g_str_has_suffix (name, ".md") && !g_str_has_suffix (name, ".txt") &&
               !g_str_has_suffix (name, ".py"))
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

static gint
cmp_paths (gconstpointer a,
           gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

/* Is x within 0.1% of want (exact when want is 0)? */
static gboolean
close_enough (double x,
              double want)
{
  if (want == 0)
    return x == 0;
  return fabs (x - want) <= 0.001 * fabs (want);
}

static void
compare_with_python (const char *python,
                     const char *path,
                     CpTrace    *trace,
                     CpAnalysis *analysis)
{
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "kernel-busy.py", NULL);
  const char *argv[] = { python, script, path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *devices;
  g_autoptr(GList) members = NULL;
  const CpDeviceStats *devs;
  guint n_devs;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("kernel-busy.py failed on %s: %s", path, err);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  devices = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "devices");

  devs = cp_analysis_get_devices (analysis, &n_devs);

  /* The trace's own kernel count (`info`, the Capture page) leaves the
   * cuda_sync waits on GPU streams out and counts them as syncs. */
  if (json_object_has_member (json_node_get_object (json_parser_get_root (parser)), "device_syncs"))
    {
      gint64 want_kernels = 0;
      gint64 want_syncs = json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)),
                                                      "device_syncs");
      g_autoptr(GList) all = json_object_get_members (devices);

      for (GList *l = all; l != NULL; l = l->next)
        want_kernels += json_object_get_int_member (json_object_get_object_member (devices, l->data), "kernels");
      if ((gint64) cp_trace_count_slices (trace, CP_LANE_KERNEL) != want_kernels ||
          (gint64) cp_trace_count_device_syncs (trace) != want_syncs)
        g_error ("%s: the trace counts %" G_GUINT64_FORMAT " kernels and %" G_GUINT64_FORMAT
                 " device syncs; Python %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT,
                 path, cp_trace_count_slices (trace, CP_LANE_KERNEL), cp_trace_count_device_syncs (trace),
                 want_kernels, want_syncs);
    }

  members = json_object_get_members (devices);
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonObject *want = json_object_get_object_member (devices, l->data);
      gint ordinal = atoi (l->data);
      const CpDeviceStats *have = NULL;

      for (guint d = 0; d < n_devs; d++)
        if (devs[d].device == ordinal)
          have = &devs[d];
      if (have == NULL)
        g_error ("%s: device %d has kernels in the JSON but not in the analysis", path, ordinal);
      if (!close_enough (have->n_kernels, json_object_get_int_member (want, "kernels")) ||
          !close_enough (have->kernel_time, json_object_get_int_member (want, "kernel_time_ns")) ||
          !close_enough (have->kernel_busy, json_object_get_int_member (want, "kernel_busy_ns")))
        g_error ("%s: device %d: analysis %u kernels, %" G_GINT64_FORMAT " ns, busy %" G_GINT64_FORMAT
                 " ns; Python %" G_GINT64_FORMAT " kernels, %" G_GINT64_FORMAT " ns, busy %" G_GINT64_FORMAT " ns",
                 path, ordinal, have->n_kernels, have->kernel_time, have->kernel_busy,
                 json_object_get_int_member (want, "kernels"),
                 json_object_get_int_member (want, "kernel_time_ns"),
                 json_object_get_int_member (want, "kernel_busy_ns"));
    }
  /* And no device with kernels that Python does not see (XPlane: only GPU
   * planes are counted there, so TPU devices are the analysis' alone). */
  if (json_object_has_member (json_node_get_object (json_parser_get_root (parser)), "scope"))
    return;
  for (guint d = 0; d < n_devs; d++)
    if (devs[d].n_kernels > 0)
      {
        g_autofree char *key = g_strdup_printf ("%d", devs[d].device);

        if (!json_object_has_member (devices, key))
          g_error ("%s: device %d has %u kernels in the analysis only", path, devs[d].device, devs[d].n_kernels);
      }
}

/* HTA's launch statistics against tests/launch-count.py, which links every
 * device op to the host call with its correlation id (graph launches
 * included) and knows nothing of flows or timestamps. Kineto JSON only. */
static void
compare_launches (const char *python,
                  const char *path,
                  CpAnalysis *analysis)
{
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "launch-count.py", NULL);
  const char *argv[] = { python, script, path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *devices;
  const CpDeviceStats *devs;
  guint n_devs;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("launch-count.py failed on %s: %s", path, err);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  devices = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "devices");
  devs = cp_analysis_get_devices (analysis, &n_devs);
  for (guint d = 0; d < n_devs; d++)
    {
      g_autofree char *key = g_strdup_printf ("%d", devs[d].device);
      JsonObject *want = json_object_has_member (devices, key) ? json_object_get_object_member (devices, key) : NULL;
      gint64 launched = want ? json_object_get_int_member (want, "launched") : 0;
      gint64 n_short = want ? json_object_get_int_member (want, "short") : 0;
      gint64 short_time = want ? json_object_get_int_member (want, "short_time_ns") : 0;

      if (devs[d].n_launched != launched || devs[d].n_short != n_short || devs[d].short_time != short_time)
        g_error ("%s: device %d: analysis %u launched, %u short (%" G_GINT64_FORMAT " ns); Python %"
                 G_GINT64_FORMAT ", %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " ns)",
                 path, devs[d].device, devs[d].n_launched, devs[d].n_short, devs[d].short_time,
                 launched, n_short, short_time);
    }
}

static void
test_real_captures (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *own = cp_test_data_path ("captures");
  g_autofree char *python = g_find_program_in_path ("python3");
  guint analysed = 0, compared = 0, refused = 0;

  if (shared == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  collect (shared, files);
  collect (own, files);
  g_ptr_array_sort (files, cmp_paths);
  g_assert_cmpuint (files->len, >, 0);

  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_autoptr(CpAnalysis) analysis = NULL;
      g_autofree char *json = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (trace == NULL)
        {
          /* Not a capture (or one the readers refuse): not the analysis' business,
           * but it must be a clean error. */
          g_assert_nonnull (error);
          g_test_message ("not loaded: %s: %s", path, error->message);
          refused++;
          continue;
        }
      analysis = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (analysis);
      json = cp_analysis_to_json (analysis, FALSE);
      json_parser_load_from_data (parser, json, -1, &error);
      g_assert_no_error (error);
      analysed++;

      /* Every finding has evidence on a real lane, inside the capture. */
      for (guint k = 0; k < g_list_model_get_n_items (cp_analysis_get_findings (analysis)); k++)
        {
          g_autoptr(CpFinding) f = g_list_model_get_item (cp_analysis_get_findings (analysis), k);
          const CpEvidence *ev;
          guint n;

          ev = cp_finding_get_evidence (f, &n);
          g_assert_cmpuint (n, >, 0);
          for (guint e = 0; e < n; e++)
            {
              g_assert_cmpuint (ev[e].lane, <, cp_trace_get_n_lanes (trace));
              g_assert_cmpint (ev[e].start, <=, ev[e].end);
              g_assert_cmpint (ev[e].start, >=, 0);
              g_assert_cmpint (ev[e].end, <=, cp_trace_get_duration (trace));
            }
        }

      if (python != NULL && (g_str_has_suffix (path, ".json") || g_str_has_suffix (path, ".json.gz") ||
                             g_str_has_suffix (path, ".pb") || g_str_has_suffix (path, ".pb.gz")))
        {
          compare_with_python (python, path, trace, analysis);
          if (g_str_has_suffix (path, ".json") || g_str_has_suffix (path, ".json.gz"))
            compare_launches (python, path, analysis);
          compared++;
        }
    }
  g_test_message ("%u captures analysed, %u compared with kernel-busy.py, %u not loadable",
                  analysed, compared, refused);
  g_assert_cmpuint (analysed, >, 0);
  if (python == NULL)
    g_test_message ("python3 not found: the independent count was not run");
}

/* The verdict on the TensorBoard plugin's ResNet-50 samples: with
 * num_workers=0 it names input and gives the data-loading share of step time
 * within 0.5 points of tests/input-share.py's exact count (an oracle over the
 * raw events); with num_workers=4 there is no input-bound finding. */
static const struct
{
  const char *file;
  gboolean    input_first;  /* input costs the most device time */
} resnet_samples[] = {
  { "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", TRUE },
  { "resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", TRUE },
  /* PyTorch 1.8 eager dispatch: conv2d, batch_norm and zero_grad keep the
   * GPU idle longer (25.2% of the step time) than the DataLoader (22.0%). */
  { "resnet50_num_workers_0/worker0.pt.trace.json.gz", FALSE },
  { "resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz", FALSE },
  { "resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz", FALSE },
  { "resnet50_num_workers_4/worker0.pt.trace.json.gz", FALSE },
};

static void
test_resnet_verdict (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "input-share.py", NULL);
  guint checked = 0;

  if (shared == NULL || python == NULL)
    {
      g_test_skip (shared == NULL ? "../shared/traces is missing" : "python3 is missing");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (resnet_samples); i++)
    {
      g_autofree char *path = g_build_filename (shared, "pytorch__kineto", "tb_plugin", "samples",
                                                resnet_samples[i].file, NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(CpAnalysis) a = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      const char *argv[] = { python, script, path, NULL };
      g_autofree char *out = NULL, *err = NULL;
      gboolean workers0 = strstr (resnet_samples[i].file, "workers_0") != NULL;
      const CpVerdict *v;
      double want;
      int status = 0;
      gboolean has_input = FALSE;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      a = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      v = cp_analysis_get_verdict (a);

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, NULL))
        g_error ("input-share.py failed on %s: %s", path, err);
      json_parser_load_from_data (parser, out, -1, &error);
      g_assert_no_error (error);
      want = json_object_get_double_member (json_node_get_object (json_parser_get_root (parser)), "percent");
      g_test_message ("%s: data loading %.2f%% (Python %.2f%%); verdict: %s", resnet_samples[i].file,
                      v->loading_percent, want, v->text);

      for (guint k = 0; k < v->n_causes; k++)
        has_input |= v->causes[k].cause == CP_IDLE_CAUSE_INPUT;
      if (workers0)
        {
          g_autofree char *shown = g_strdup_printf ("data loading takes %.1f%%", v->loading_percent);
          CpFinding *f = cp_analysis_lookup_finding (a, "input-bound");

          g_assert_cmpfloat (fabs (v->loading_percent - want), <=, 0.5);
          g_assert_true (has_input);
          g_assert_nonnull (strstr (v->text, shown));
          /* Both input figures, in the finding too. */
          g_assert_nonnull (f);
          g_assert_cmpfloat (fabs (cp_finding_lookup_figure (f, "loading_percent")->value - want), <=, 0.5);
          g_assert_cmpfloat (cp_finding_lookup_figure (f, "input_wait_percent")->value, <=,
                             cp_finding_lookup_figure (f, "loading_percent")->value);
          /* Its evidence: one range per step on the DataLoader's thread,
           * covering every range found. */
          {
            const CpEvidence *ev;
            guint n_ev, n_windows;
            guint64 covered = 0;

            ev = cp_finding_get_evidence (f, &n_ev);
            cp_analysis_get_windows (a, &n_windows);
            g_assert_cmpuint (n_ev, >=, 1);
            g_assert_cmpuint (n_ev, <=, n_windows + 1);
            for (guint e = 0; e < n_ev; e++)
              covered += ev[e].count;
            g_assert_cmpuint (covered, ==, cp_finding_get_evidence_found (f));
            g_assert_cmpuint (covered, >, n_ev);
          }
          if (resnet_samples[i].input_first)
            {
              g_assert_cmpint (v->causes[0].cause, ==, CP_IDLE_CAUSE_INPUT);
              g_assert_true (g_str_has_prefix (v->text, "The GPU waits mostly for input"));
            }
        }
      else
        {
          g_assert_null (cp_analysis_lookup_finding (a, "input-bound"));
          g_assert_false (has_input);
          g_assert_cmpfloat (want, <, 5);
        }
      checked++;
    }
  if (checked == 0)
    g_test_skip ("the ResNet-50 samples are missing");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/real-captures/analyse-all", test_real_captures);
  g_test_add_func ("/real-captures/resnet-verdict", test_resnet_verdict);

  return g_test_run ();
}
