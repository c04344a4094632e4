/* test-cli-info.c: `chokepoint info` as a user runs it, without a display
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#include "cp-test-util.h"

static int
run (const char * const *args,
     char              **out,
     char              **err)
{
  const char *root = g_getenv ("CP_BUILD_ROOT");
  g_autofree char *exe = g_build_filename (root ? root : ".", "src", "chokepoint", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_get_environ ();
  int status;

  /* No display: the command must not need one. */
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  g_ptr_array_add (argv, exe);
  g_ptr_array_add (argv, (gpointer) "info");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
test_text (void)
{
  g_autofree char *path = cp_test_data_path ("chrome/kineto-small.json");
  const char *args[] = { path, NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "chrome-json"));
  g_assert_nonnull (strstr (out, "Slices:      13"));
  g_assert_nonnull (strstr (out, "NVIDIA H100 80GB HBM3"));
  g_assert_nonnull (strstr (out, "thread 101 (python3)"));
  g_assert_nonnull (strstr (out, "stream 7"));
}

static void
test_json (void)
{
  g_autofree char *path = cp_test_data_path ("chrome/kineto-small.json");
  const char *args[] = { "--json", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o, *r;
  static const char *keys[] = {
    "format", "file", "bytes", "slices", "kernels", "transfers", "flows", "lanes", "processes",
    "devices", "steps", "duration_ns", "origin_ns", "load_seconds", "load_report",
  };
  static const char *report_keys[] = {
    "events", "by_phase", "skipped", "unknown_phase", "unmatched_end", "unclosed_begin",
    "aggregated", "truncated", "stopped_at", "warnings",
  };

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_assert_true (json_object_has_member (o, keys[i]));
  r = json_object_get_object_member (o, "load_report");
  for (guint i = 0; i < G_N_ELEMENTS (report_keys); i++)
    g_assert_true (json_object_has_member (r, report_keys[i]));
  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==, "chrome-json");
  g_assert_cmpint (json_object_get_int_member (o, "slices"), ==, 13);
  /* One kernel; the Stream Sync on the GPU stream is a sync, not a kernel. */
  g_assert_cmpint (json_object_get_int_member (o, "kernels"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "device_syncs"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "transfers"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (o, "flows"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (o, "devices"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "steps"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (o, "duration_ns"), ==, 110000);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (r, "by_phase"), "X"), ==, 13);
}

/* cuda_sync waits on a GPU stream are device syncs, not kernels: checked
 * against tests/kernel-busy.py's count over the raw events. */
static void
test_device_syncs (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "kernel-busy.py", NULL);
  g_autofree char *out = NULL, *err = NULL, *want = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) oracle = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *o, *w;
  int status = 0;

  if (shared == NULL || python == NULL)
    {
      g_test_skip ("../shared/traces or python3 is missing");
      return;
    }
  path = g_build_filename (shared, "facebookresearch__HolisticTraceAnalysis", "tests", "data", "critical_path",
                           "simple_add", "benchmark_result_493459_1694039959_trace.json.gz", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the HTA simple_add capture is missing");
      return;
    }
  {
    const char *args[] = { "--json", path, NULL };
    const char *argv[] = { python, script, path, NULL };

    g_assert_cmpint (run (args, &out, &err), ==, 0);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                 &want, NULL, &status, &error));
    g_assert_no_error (error);
  }
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  g_assert_true (json_parser_load_from_data (oracle, want, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  w = json_node_get_object (json_parser_get_root (oracle));
  g_assert_cmpint (json_object_get_int_member (o, "kernels"), ==,
                   json_object_get_int_member (json_object_get_object_member (
                     json_object_get_object_member (w, "devices"), "0"), "kernels"));
  g_assert_cmpint (json_object_get_int_member (o, "device_syncs"), ==,
                   json_object_get_int_member (w, "device_syncs"));
  g_assert_cmpint (json_object_get_int_member (o, "device_syncs"), >, 0);
}

static void
test_truncated_json (void)
{
  g_autofree char *path = cp_test_data_path ("chrome/truncated.pt.trace.json.tmp");
  const char *args[] = { "--json", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *r;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  r = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "load_report");
  g_assert_true (json_object_get_boolean_member (r, "truncated"));
  g_assert_cmpint (json_object_get_int_member (r, "stopped_at"), >, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (r, "warnings")), >=, 1);
}

static void
test_errors (void)
{
  g_autofree char *rocprof = cp_test_data_path ("chrome/rocprof.json");
  g_autofree char *empty = cp_test_data_path ("chrome/empty.json");
  const char *a[] = { rocprof, NULL };
  const char *b[] = { empty, NULL };
  const char *c[] = { "/nonexistent/capture.json", NULL };
  const char *d[] = { NULL };
  const char *e[] = { "--no-such-option", rocprof, NULL };
  const char *f[] = { rocprof, empty, NULL };
  const char *h[] = { "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (a, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "rocprof.json"));
  g_assert_nonnull (strstr (err, "rocprofiler"));
  g_assert_cmpstr (out, ==, "");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (b, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "is empty"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (c, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "does not exist"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (d, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (e, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (f, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (h, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "--json"));
}

/* CPU profile samples: `info` gives their count and CPU time, checked
 * against tests/chrome-count.py on the DevTools fixture and on catapult's
 * legacy-sample trace (skipped without ../shared/traces). */
static void
check_cpu_samples (const char *path)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "chrome-count.py", NULL);
  g_autofree char *out = NULL, *err = NULL, *want = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) oracle = json_parser_new ();
  g_autoptr(GError) error = NULL;
  const char *args[] = { "--json", path, NULL };
  const char *argv[] = { python, script, path, NULL };
  JsonObject *o, *w;
  int status = 0;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &want, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  g_assert_true (json_parser_load_from_data (oracle, want, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  w = json_node_get_object (json_parser_get_root (oracle));
  g_assert_cmpint (json_object_get_int_member (o, "cpu_samples"), >, 0);
  g_assert_cmpint (json_object_get_int_member (o, "cpu_samples"), ==, json_object_get_int_member (w, "cpu_samples"));
  g_assert_cmpint (json_object_get_int_member (o, "cpu_sample_time_ns"), ==, json_object_get_int_member (w, "cpu_time_ns"));
  g_assert_cmpint (json_object_get_int_member (o, "slices"), ==, json_object_get_int_member (w, "slices"));
}

static void
test_cpu_samples (void)
{
  g_autofree char *fixture = cp_test_data_path ("chrome/devtools-cpu-profile.json");
  const char *shared = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");

  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  check_cpu_samples (fixture);
  if (shared != NULL)
    {
      g_autofree char *legacy = g_build_filename (shared, "catapult-project__catapult", "tracing", "test_data",
                                                  "simple_trace.json", NULL);

      if (g_file_test (legacy, G_FILE_TEST_EXISTS))
        check_cpu_samples (legacy);
    }
}

/* Meta's MTIA captures: Kineto names the device process "MTIA 17" (or 9)
 * in its process_name metadata, and the single-rank one has no
 * deviceProperties. info lists both devices, as MTIAs. */
static void
test_mtia (void)
{
  static const struct { const char *path; gint ordinal; gboolean described; } captures[] = {
    { "facebookresearch__HolisticTraceAnalysis/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz", 17, TRUE },
    { "facebookresearch__HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz", 9, FALSE },
  };
  const char *root = cp_test_shared_traces ();
  guint seen = 0;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  for (guint c = 0; c < G_N_ELEMENTS (captures); c++)
    {
      g_autofree char *path = g_build_filename (root, captures[c].path, NULL);
      const char *args[] = { "--json", path, NULL };
      const char *text_args[] = { path, NULL };
      g_autofree char *out = NULL, *err = NULL, *text = NULL, *text_err = NULL;
      g_autofree char *want = g_strdup_printf ("MTIA %d (pid %d", captures[c].ordinal, captures[c].ordinal);
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o, *d;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      g_assert_cmpint (run (args, &out, &err), ==, 0);
      g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpint (json_object_get_int_member (o, "devices"), ==, 1);
      d = json_array_get_object_element (json_object_get_array_member (o, "device_list"), 0);
      g_assert_cmpint (json_object_get_int_member (d, "ordinal"), ==, captures[c].ordinal);
      g_assert_cmpstr (json_object_get_string_member (d, "kind"), ==, "mtia");
      g_assert_cmpint (json_object_get_boolean_member (d, "described"), ==, captures[c].described);
      g_assert_cmpint (run (text_args, &text, &text_err), ==, 0);
      g_assert_nonnull (strstr (text, want));
      g_assert_nonnull (strstr (text, "Devices:     1 ("));
      seen++;
    }
  if (seen == 0)
    g_test_skip ("the MTIA captures are missing");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli-info/text", test_text);
  g_test_add_func ("/cli-info/json", test_json);
  g_test_add_func ("/cli-info/truncated", test_truncated_json);
  g_test_add_func ("/cli-info/device-syncs", test_device_syncs);
  g_test_add_func ("/cli-info/mtia", test_mtia);
  g_test_add_func ("/cli-info/cpu-samples", test_cpu_samples);
  g_test_add_func ("/cli-info/errors", test_errors);
  return g_test_run ();
}
