/* bench-first-frame.c: how soon the window draws a capture, beside Node
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Not a test: run by hand, under a display (Xvfb will do):
 *
 *   xvfb-run -a build/tools/bench-first-frame [--size 200M] [--runs 5]
 *                                             [--capture FILE] [--keep]
 *
 * Writes a compact Kineto-style capture (the one bench-load --compact
 * reads) unless --capture names one, then, --runs times and interleaved so
 * that a change in the machine's load hits each alike:
 *
 * - Node's bare JSON.parse of the file (the wall clock of the process);
 * - `chokepoint info` of it (the load and nothing else);
 * - the window opened on it with CHOKEPOINT_TIMINGS=1, once with the
 *   renderer Chokepoint picks, once with GSK_RENDERER=cairo and once with
 *   GSK_RENDERER=gl: the seconds from the process start to "load-done",
 *   "first-frame" and "analysis-done" as the application prints them.
 *
 * Each window runs in a settings and data folder of its own (no history,
 * no recent files) and without a session bus, so it never hands the file
 * to a Chokepoint already running. It prints the medians and the first
 * frame as a share of Node's time (the target: at most half). */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cp-compact-gen.h"

/* The milestones a window prints, in the order of this table. */
enum { LOAD_DONE, FIRST_FRAME, ANALYSIS_DONE, N_MARKS };
static const char *const mark_names[N_MARKS] = { "load-done", "first-frame", "analysis-done" };

/* How long one window may take to print every milestone. */
#define WINDOW_TIMEOUT_S 120

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* Runs argv with its output thrown away; the wall clock, or a negative
 * number when it failed. */
static double
run_quiet (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  double t0 = now ();
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, &error))
    {
      g_printerr ("bench-first-frame: %s: %s\n", argv[0], error->message);
      return -1;
    }
  if (!g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-first-frame: %s: %s\n", argv[0], error->message);
      return -1;
    }
  return now () - t0;
}

/* Reads "chokepoint-timing: NAME S s" lines from fd until every milestone
 * came or the time is up; marks[] get the seconds (negative: never came). */
static void
read_marks (int     fd,
            double *marks)
{
  g_autoptr(GString) buf = g_string_new (NULL);
  double deadline = now () + WINDOW_TIMEOUT_S;
  guint seen = 0;

  for (guint m = 0; m < N_MARKS; m++)
    marks[m] = -1;
  while (seen < N_MARKS && now () < deadline)
    {
      struct pollfd p = { fd, POLLIN, 0 };
      char chunk[4096];
      ssize_t n;
      char *nl;

      if (poll (&p, 1, 250) <= 0)
        continue;
      n = read (fd, chunk, sizeof chunk);
      if (n <= 0)
        break;
      g_string_append_len (buf, chunk, n);
      while ((nl = strchr (buf->str, '\n')) != NULL)
        {
          char name[64];
          double s;

          *nl = '\0';
          if (sscanf (buf->str, "chokepoint-timing: %63s %lf s", name, &s) == 2)
            for (guint m = 0; m < N_MARKS; m++)
              if (strcmp (name, mark_names[m]) == 0 && marks[m] < 0)
                {
                  marks[m] = s;
                  seen++;
                }
          g_string_erase (buf, 0, nl - buf->str + 1);
        }
    }
}

/* Opens the window on capture with GSK_RENDERER=renderer (NULL: unset),
 * reads its milestones and closes it. */
static gboolean
run_window (const char *app,
            const char *capture,
            const char *home,
            const char *renderer,
            double     *marks)
{
  const char *argv[] = { app, capture, NULL };
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *config = g_build_filename (home, "config", NULL);
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  GPid pid;
  int err_fd, status;

  env = g_environ_setenv (env, "CHOKEPOINT_TIMINGS", "1", TRUE);
  env = g_environ_setenv (env, "GSETTINGS_BACKEND", "memory", TRUE);
  env = g_environ_setenv (env, "XDG_CONFIG_HOME", config, TRUE);
  env = g_environ_setenv (env, "XDG_DATA_HOME", data, TRUE);
  env = g_environ_setenv (env, "XDG_CACHE_HOME", cache, TRUE);
  /* No session bus: a non-unique application that opens its own window. */
  env = g_environ_setenv (env, "DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/chokepoint-bench", TRUE);
  env = g_environ_setenv (env, "GTK_A11Y", "none", TRUE);
  env = g_environ_setenv (env, "NO_AT_BRIDGE", "1", TRUE);
  if (renderer != NULL)
    env = g_environ_setenv (env, "GSK_RENDERER", renderer, TRUE);
  else
    env = g_environ_unsetenv (env, "GSK_RENDERER");

  if (!g_spawn_async_with_pipes (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                 NULL, NULL, &pid, NULL, NULL, &err_fd, &error))
    {
      g_printerr ("bench-first-frame: %s: %s\n", app, error->message);
      return FALSE;
    }
  read_marks (err_fd, marks);
  kill (pid, SIGTERM);
  waitpid (pid, &status, 0);
  g_spawn_close_pid (pid);
  close (err_fd);
  for (guint m = 0; m < N_MARKS; m++)
    if (marks[m] < 0)
      {
        g_printerr ("bench-first-frame: the window (GSK_RENDERER=%s) did not print “%s” within %d s\n",
                    renderer ? renderer : "unset", mark_names[m], WINDOW_TIMEOUT_S);
        return FALSE;
      }
  return TRUE;
}

/* Removes path and everything below it. */
static void
remove_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d != NULL)
    {
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
        }
      g_dir_close (d);
    }
  g_rmdir (path);
}

static int
cmp_double (gconstpointer a,
            gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The median of the n values at v (sorted in place); negative when any
 * run failed. */
static double
median (double *v,
        guint   n)
{
  for (guint i = 0; i < n; i++)
    if (v[i] < 0)
      return -1;
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct
{
  const char *label;
  const char *renderer;      /* GSK_RENDERER, NULL: Chokepoint's choice */
  double     *marks[N_MARKS];
} Variant;

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size = g_strdup ("200M");
  g_autofree char *capture = NULL;
  g_autofree char *app = g_strdup (CP_APP_PATH);
  g_autofree char *dir = NULL;
  g_autofree char *node = g_find_program_in_path ("node");
  gboolean keep = FALSE, made_dir = FALSE;
  int runs = 5;
  const GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "Size of the generated capture (default 200M)", "BYTES" },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs of each (default 5; the median is printed)", "N" },
    { "capture", 0, 0, G_OPTION_ARG_FILENAME, &capture, "Open this capture instead of a generated one", "FILE" },
    { "app", 0, 0, G_OPTION_ARG_FILENAME, &app, "The chokepoint executable (default: this build's)", "PATH" },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep, "Keep the generated capture", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- the first drawn frame, beside Node's JSON.parse");
  g_autoptr(GError) error = NULL;
  Variant variants[] = {
    { "chokepoint, its own choice", NULL, { NULL } },
    { "chokepoint, GSK_RENDERER=cairo", "cairo", { NULL } },
    { "chokepoint, GSK_RENDERER=gl", "gl", { NULL } },
  };
  g_autofree double *node_s = NULL, *info_s = NULL;
  g_autofree char *js = NULL;
  double node_median, info_median;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || runs < 1 || runs > 100)
    {
      g_printerr ("bench-first-frame: %s\n", error ? error->message : "--runs takes 1 to 100");
      return 2;
    }
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("bench-first-frame: there is no display; run it as  xvfb-run -a %s\n", argv[0]);
      return 2;
    }
  if (!g_file_test (app, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_printerr ("bench-first-frame: %s is not an executable (build it, or name one with --app)\n", app);
      return 2;
    }
  if (node == NULL)
    {
      g_printerr ("bench-first-frame: node is not installed (apt-get install nodejs): it is the peer\n");
      return 2;
    }
  dir = g_dir_make_tmp ("chokepoint-first-frame-XXXXXX", &error);
  if (dir == NULL)
    {
      g_printerr ("bench-first-frame: %s\n", error->message);
      return 1;
    }
  made_dir = TRUE;
  if (capture == NULL)
    capture = cp_compact_gen_write (dir, size);

  {
    GStatBuf st;

    if (g_stat (capture, &st) != 0)
      {
        g_printerr ("bench-first-frame: %s: %s\n", capture, g_strerror (errno));
        return 1;
      }
    g_print ("capture %s: %.1f MB; %d runs of each\n", capture, st.st_size / 1e6, runs);
  }

  node_s = g_new (double, runs);
  info_s = g_new (double, runs);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    for (guint m = 0; m < N_MARKS; m++)
      variants[v].marks[m] = g_new (double, runs);
  js = g_strdup ("JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')).traceEvents.length");

  for (int i = 0; i < runs; i++)
    {
      const char *node_argv[] = { node, "-e", js, capture, NULL };
      const char *info_argv[] = { app, "info", capture, NULL };

      node_s[i] = run_quiet (node_argv);
      info_s[i] = run_quiet (info_argv);
      for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
        {
          g_autofree char *home = g_build_filename (dir, "home", NULL);
          double marks[N_MARKS];

          if (!run_window (app, capture, home, variants[v].renderer, marks))
            for (guint m = 0; m < N_MARKS; m++)
              marks[m] = -1;
          for (guint m = 0; m < N_MARKS; m++)
            variants[v].marks[m][i] = marks[m];
        }
      g_print ("  run %d of %d done\n", i + 1, runs);
    }

  node_median = median (node_s, runs);
  info_median = median (info_s, runs);
  g_print ("\nMedians of %d runs, seconds from the process start:\n", runs);
  g_print ("  %-34s %8s %12s %14s\n", "", "load-done", "first-frame", "analysis-done");
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      double med[N_MARKS];

      for (guint m = 0; m < N_MARKS; m++)
        med[m] = median (variants[v].marks[m], runs);
      if (med[FIRST_FRAME] < 0)
        {
          g_print ("  %-34s failed\n", variants[v].label);
          continue;
        }
      g_print ("  %-34s %8.2f s %10.2f s %12.2f s", variants[v].label, med[LOAD_DONE], med[FIRST_FRAME],
               med[ANALYSIS_DONE]);
      if (node_median > 0)
        g_print ("   first frame %.2fx Node's time", med[FIRST_FRAME] / node_median);
      g_print ("\n");
    }
  if (info_median > 0)
    g_print ("  %-34s %8.2f s (the whole process)\n", "chokepoint info", info_median);
  if (node_median > 0)
    g_print ("  %-34s %8.2f s (the whole process)\n", "node JSON.parse", node_median);
  g_print ("  target: the first frame in at most half of Node's time\n");
  {
    double avg[3];

    if (getloadavg (avg, 3) == 3)
      g_print ("  load average during the run: %.1f (on %ld CPUs)\n", avg[0], sysconf (_SC_NPROCESSORS_ONLN));
  }

  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    for (guint m = 0; m < N_MARKS; m++)
      g_free (variants[v].marks[m]);
  if (made_dir && !keep)
    remove_tree (dir);
  else if (keep)
    g_print ("kept %s\n", dir);
  return 0;
}
