/* test-diagnose-cli.c: `chokepoint diagnose` exit statuses, text and JSON,
 * run without a display
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "cp-test-util.h"

typedef struct
{
  char *dir;
  char *healthy;
  char *input_bound;
} Fixture;

static int
run (const char * const *args,
     char              **out,
     char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *ignored_out = NULL;
  g_autofree char *ignored_err = NULL;
  int status = 0;

  /* Always capture: the child must not write into the TAP stream. */
  if (out == NULL)
    out = &ignored_out;
  if (err == NULL)
    err = &ignored_err;
  g_ptr_array_add (argv, (gpointer) g_getenv ("CP_CHOKEPOINT"));
  g_assert_nonnull (argv->pdata[0]);
  g_ptr_array_add (argv, "diagnose");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  /* No display: the command must not need one. */
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);

  g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
gen (const char *scenario,
     const char *path)
{
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", scenario, "--out", path, "--steps", "4", "-q", NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = cp_test_make_tmpdir ();
  f->healthy = g_build_filename (f->dir, "healthy.json.gz", NULL);
  f->input_bound = g_build_filename (f->dir, "input-bound.json", NULL);
  gen ("healthy", f->healthy);
  gen ("input-bound", f->input_bound);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cp_test_rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->healthy);
  g_free (f->input_bound);
}

static void
test_usage (Fixture       *f,
            gconstpointer  data)
{
  const char *none[] = { NULL };
  const char *two[] = { f->healthy, f->input_bound, NULL };
  const char *bad_level[] = { "--fail-on=low", f->healthy, NULL };
  const char *info_level[] = { "--fail-on=info", f->healthy, NULL };
  const char *bad_option[] = { "--frobnicate", f->healthy, NULL };
  const char *help[] = { "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (none, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "capture file"));
  /* Two files are the ranks of one job. */
  g_assert_cmpint (run (two, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Job:"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (bad_level, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "low"));
  g_assert_cmpint (run (info_level, NULL, NULL), ==, 2);
  g_assert_cmpint (run (bad_option, NULL, NULL), ==, 2);
  g_assert_cmpint (run (help, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "--fail-on"));
}

static void
test_bad_files (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "missing.json", NULL);
  g_autofree char *text = cp_test_write_file (f->dir, "notes.txt", "hello, not a capture\n", -1);
  g_autofree char *empty = cp_test_write_file (f->dir, "empty.json", "", 0);
  const char *a1[] = { missing, NULL };
  const char *a2[] = { text, NULL };
  const char *a3[] = { "--json", empty, NULL };
  g_autofree char *err1 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;

  g_assert_cmpint (run (a1, NULL, &err1), ==, 1);
  g_assert_nonnull (strstr (err1, "missing.json"));
  g_assert_cmpint (run (a2, NULL, &err2), ==, 1);
  g_assert_nonnull (strstr (err2, "notes.txt"));
  g_assert_cmpint (run (a3, &out3, &err3), ==, 1);
  g_assert_cmpstr (out3, ==, "");
  g_assert_cmpstr (err3, !=, "");
}

/* No [INFO] finding is printed before a [HIGH] or [MODERATE] one. */
static void
assert_problems_first (const char *out)
{
  const char *info = strstr (out, "\n[INFO] ");

  if (info == NULL)
    return;
  g_assert_null (strstr (info, "\n[HIGH] "));
  g_assert_null (strstr (info, "\n[MODERATE] "));
}

static void
test_text (Fixture       *f,
           gconstpointer  data)
{
  const char *healthy[] = { f->healthy, NULL };
  const char *input[] = { f->input_bound, NULL };
  g_autofree char *out1 = NULL, *out2 = NULL;

  g_assert_cmpint (run (healthy, &out1, NULL), ==, 0);
  g_assert_nonnull (strstr (out1, "ProfilerStep#N"));
  g_assert_nonnull (strstr (out1, "No problems found"));
  g_assert_nonnull (strstr (out1, "GPU 0: utilisation"));

  g_assert_cmpint (run (input, &out2, NULL), ==, 0);
  /* The verdict is the first line. */
  g_assert_true (g_str_has_prefix (out2, "Verdict:  The GPU waits mostly for input"));
  g_assert_nonnull (strstr (out2, "[HIGH] Input-bound (input-bound)"));
  g_assert_nonnull (strstr (out2, "num_workers"));
  /* A PyTorch capture (the generator writes Kineto's aten:: ops): its
   * fixes first, the others folded below, marked with their framework. */
  g_assert_nonnull (strstr (out2, "Framework: PyTorch (eager), inferred from"));
  g_assert_nonnull (strstr (out2, "Fixes (PyTorch, this capture's framework):"));
  g_assert_null (strstr (out2, "PyTorch: "));
  g_assert_nonnull (strstr (out2, "Other frameworks:"));
  g_assert_nonnull (strstr (out2, "JAX: "));
  g_assert_nonnull (strstr (out2, "TensorFlow: "));
  g_assert_nonnull (strstr (out2, "per step"));
  g_assert_null (strstr (out2, "No problems found"));
  assert_problems_first (out2);

  /* A real capture where low utilisation (info, explained by input-bound)
   * has more time at stake than the cause: the cause still comes first. */
  if (g_getenv ("CP_SHARED_TRACES") != NULL)
    {
      g_autofree char *owl = g_build_filename (g_getenv ("CP_SHARED_TRACES"), "AMD-AGI__TraceLens", "tests",
                                               "traces", "h100",
                                               "google_owlv2-large-patch14-ensemble__1016001.json.gz", NULL);
      const char *real[] = { owl, NULL };
      g_autofree char *out3 = NULL;

      if (g_file_test (owl, G_FILE_TEST_EXISTS))
        {
          g_assert_cmpint (run (real, &out3, NULL), ==, 0);
          g_assert_nonnull (strstr (out3, "[HIGH] Input-bound (input-bound)"));
          g_assert_nonnull (strstr (out3, "[INFO] Low GPU utilisation (low-utilization)"));
          assert_problems_first (out3);
        }
    }
}

static void
test_fail_on (Fixture       *f,
              gconstpointer  data)
{
  const char *h_mod[] = { "--fail-on=moderate", f->healthy, NULL };
  const char *h_high[] = { "--fail-on", "high", f->healthy, NULL };
  const char *i_high[] = { "--fail-on=high", f->input_bound, NULL };
  const char *i_mod[] = { "--json", "--fail-on=moderate", f->input_bound, NULL };
  g_autofree char *out = NULL;

  g_assert_cmpint (run (h_mod, NULL, NULL), ==, 0);
  g_assert_cmpint (run (h_high, NULL, NULL), ==, 0);
  g_assert_cmpint (run (i_high, NULL, NULL), ==, 3);
  /* The report is still written before the status. */
  g_assert_cmpint (run (i_mod, &out, NULL), ==, 3);
  g_assert_nonnull (strstr (out, "\"schema_version\""));
}

static void
test_json (Fixture       *f,
           gconstpointer  data)
{
  const char *args[] = { "--json", f->input_bound, NULL };
  g_autofree char *out = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *metrics, *dev, *finding = NULL;
  JsonArray *findings, *steps;

  g_assert_cmpint (run (args, &out, NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, 3);
  /* The answer first: the verdict names input and gives its figures. */
  {
    JsonObject *verdict = json_object_get_object_member (root, "verdict");
    JsonObject *vf = json_object_get_object_member (verdict, "figures");
    JsonArray *causes = json_object_get_array_member (vf, "causes");
    JsonObject *first = json_array_get_object_element (causes, 0);

    g_assert_nonnull (strstr (json_object_get_string_member (verdict, "text"), "waits mostly for input"));
    g_assert_cmpstr (json_object_get_string_member (verdict, "primary_rule"), ==,
                     json_object_get_string_member (first, "rule"));
    g_assert_cmpstr (json_object_get_string_member (first, "cause"), ==, "input");
    g_assert_cmpfloat (json_object_get_double_member (first, "percent"), >, 0);
    g_assert_cmpfloat (json_object_get_double_member (vf, "loading_percent"), >=,
                       json_object_get_double_member (first, "percent") - 1e-9);
    g_assert_cmpfloat (json_object_get_double_member (vf, "busy_percent"), >, 0);
    /* The JSON keeps the one order: its first member is the verdict's. */
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                       json_object_get_array_member (root, "findings"), 0), "section"), ==, "idle");
  }
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "window"), "source"), ==,
                   "profiler-steps");

  metrics = json_object_get_object_member (root, "metrics");
  dev = json_array_get_object_element (json_object_get_array_member (metrics, "devices"), 0);
  g_assert_cmpint (json_object_get_int_member (dev, "device"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (dev, "kernels"), >, 0);
  g_assert_cmpint (json_object_get_int_member (dev, "kernel_time_ns"), >=, json_object_get_int_member (dev, "kernel_busy_ns"));
  g_assert_true (json_object_has_member (dev, "utilization"));
  g_assert_true (json_object_has_member (dev, "idle_host_wait_ns"));
  g_assert_true (json_object_has_member (dev, "idle_kernel_wait_ns"));
  g_assert_true (json_object_has_member (dev, "idle_other_ns"));

  steps = json_object_get_array_member (root, "steps");
  g_assert_cmpuint (json_array_get_length (steps), >=, 3);

  findings = json_object_get_array_member (root, "findings");
  for (guint i = 0; i < json_array_get_length (findings); i++)
    {
      JsonObject *o = json_array_get_object_element (findings, i);

      if (g_strcmp0 (json_object_get_string_member (o, "rule"), "input-bound") == 0)
        finding = o;
    }
  g_assert_nonnull (finding);
  g_assert_cmpstr (json_object_get_string_member (finding, "severity"), ==, "high");
  g_assert_cmpint (json_object_get_int_member (finding, "time_at_stake_ns"), >, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (finding, "figures")), >, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (finding, "evidence")), >, 0);
  g_assert_true (json_object_has_member (json_object_get_object_member (finding, "fixes"), "tensorflow"));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (root, "summary"), "healthy"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/diagnose-cli/usage", Fixture, NULL, fixture_setup, test_usage, fixture_teardown);
  g_test_add ("/diagnose-cli/bad-files", Fixture, NULL, fixture_setup, test_bad_files, fixture_teardown);
  g_test_add ("/diagnose-cli/text", Fixture, NULL, fixture_setup, test_text, fixture_teardown);
  g_test_add ("/diagnose-cli/fail-on", Fixture, NULL, fixture_setup, test_fail_on, fixture_teardown);
  g_test_add ("/diagnose-cli/json", Fixture, NULL, fixture_setup, test_json, fixture_teardown);

  return g_test_run ();
}
