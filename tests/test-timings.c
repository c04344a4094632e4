/* test-timings.c: CHOKEPOINT_TIMINGS=1 prints the milestones, in order
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib-unix.h>

#include "cp-test-util.h"

#define PREFIX "chokepoint-timing: "

/* The milestone lines of err, in order: names and seconds. Any line that
 * starts with the prefix must be well formed. */
static void
parse_lines (const char *err,
             GPtrArray  *names,
             GArray     *seconds)
{
  g_auto(GStrv) lines = g_strsplit (err, "\n", -1);

  for (guint i = 0; lines[i]; i++)
    {
      g_auto(GStrv) parts = NULL;
      char *end = NULL;
      double s;

      if (!g_str_has_prefix (lines[i], PREFIX))
        continue;
      parts = g_strsplit (lines[i] + strlen (PREFIX), " ", -1);
      g_assert_cmpuint (g_strv_length (parts), ==, 3);
      g_assert_cmpstr (parts[2], ==, "s");
      s = g_ascii_strtod (parts[1], &end);
      g_assert_true (end != parts[1] && *end == '\0');
      g_assert_cmpfloat (s, >=, 0);
      /* From the process start: a small capture is done within seconds. */
      g_assert_cmpfloat (s, <, 120);
      g_ptr_array_add (names, g_strdup (parts[0]));
      g_array_append_val (seconds, s);
    }
}

static char *
run_cli (const char *command,
         const char *timings,
         const char *file)
{
  const char *exe = g_getenv ("CP_CHOKEPOINT");
  const char *argv[] = { exe, command, file, NULL };
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  char *err = NULL;
  int status;

  envp = timings ? g_environ_setenv (envp, "CHOKEPOINT_TIMINGS", timings, TRUE)
                 : g_environ_unsetenv (envp, "CHOKEPOINT_TIMINGS");
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  return err;
}

static void
test_cli_order (void)
{
  g_autofree char *path = cp_test_data_path ("chrome/kineto-small.json");
  g_autofree char *err = run_cli ("diagnose", "1", path);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) seconds = g_array_new (FALSE, FALSE, sizeof (double));

  parse_lines (err, names, seconds);
  g_assert_cmpuint (names->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (names, 0), ==, "load-done");
  g_assert_cmpstr (g_ptr_array_index (names, 1), ==, "analysis-done");
  g_assert_cmpfloat (g_array_index (seconds, double, 0), <=, g_array_index (seconds, double, 1));
}

static void
test_cli_info (void)
{
  g_autofree char *path = cp_test_data_path ("chrome/kineto-small.json");
  g_autofree char *err = run_cli ("info", "1", path);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) seconds = g_array_new (FALSE, FALSE, sizeof (double));

  /* info loads and analyses nothing more. */
  parse_lines (err, names, seconds);
  g_assert_cmpuint (names->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (names, 0), ==, "load-done");
}

static void
test_off (void)
{
  g_autofree char *path = cp_test_data_path ("chrome/kineto-small.json");
  g_autofree char *unset = run_cli ("diagnose", NULL, path);
  g_autofree char *zero = run_cli ("diagnose", "0", path);

  g_assert_null (strstr (unset, "chokepoint-timing"));
  g_assert_null (strstr (zero, "chokepoint-timing"));
}

/* The window: load-done, then first-frame; analysis-done too. */
static void
test_window (void)
{
  const char *exe = g_getenv ("CP_CHOKEPOINT");
  g_autofree char *path = cp_test_data_path ("chrome/kineto-small.json");
  const char *argv[] = { exe, path, NULL };
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) err = g_string_new (NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) seconds = g_array_new (FALSE, FALSE, sizeof (double));
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;
  GPid pid;
  int fd, status;
  guint load = G_MAXUINT, frame = G_MAXUINT, analysis = G_MAXUINT;

  g_autofree char *schemas = g_build_filename (g_getenv ("CP_BUILD_ROOT"), "data", NULL);
  g_autofree char *compiled = g_build_filename (schemas, "gschemas.compiled", NULL);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_skip ("no display for the window");
      return;
    }
  if (!g_file_test (compiled, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("built without the window (no compiled schemas)");
      return;
    }
  envp = g_environ_setenv (envp, "CHOKEPOINT_TIMINGS", "1", TRUE);
  envp = g_environ_setenv (envp, "GSETTINGS_SCHEMA_DIR", schemas, TRUE);
  envp = g_environ_setenv (envp, "GDK_DEBUG", "no-portals", TRUE);
  envp = g_environ_setenv (envp, "GSETTINGS_BACKEND", "memory", TRUE);
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, envp,
                                           G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                           NULL, NULL, &pid, NULL, NULL, &fd, &error));
  g_assert_no_error (error);
  g_unix_set_fd_nonblocking (fd, TRUE, NULL);
  while (g_get_monotonic_time () < deadline &&
         !(strstr (err->str, PREFIX "first-frame") && strstr (err->str, PREFIX "analysis-done")))
    {
      char buf[4096];
      ssize_t n = read (fd, buf, sizeof buf);

      if (n > 0)
        g_string_append_len (err, buf, n);
      else if (n == 0)
        break;
      else
        g_usleep (20000);
    }
  kill (pid, SIGTERM);
  waitpid (pid, &status, 0);
  g_spawn_close_pid (pid);
  close (fd);

  parse_lines (err->str, names, seconds);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);

      if (strcmp (n, "load-done") == 0 && load == G_MAXUINT)
        load = i;
      else if (strcmp (n, "first-frame") == 0)
        {
          g_assert_cmpuint (frame, ==, G_MAXUINT);
          frame = i;
        }
      else if (strcmp (n, "analysis-done") == 0)
        analysis = i;
    }
  if (load == G_MAXUINT || frame == G_MAXUINT || analysis == G_MAXUINT)
    g_error ("missing milestones in the window's output:\n%s", err->str);
  g_assert_cmpuint (load, <, frame);
  g_assert_cmpuint (load, <, analysis);
  g_assert_cmpfloat (g_array_index (seconds, double, load), <=, g_array_index (seconds, double, frame));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timings/cli-order", test_cli_order);
  g_test_add_func ("/timings/cli-info", test_cli_info);
  g_test_add_func ("/timings/off", test_off);
  g_test_add_func ("/timings/window", test_window);
  return g_test_run ();
}
