/* bench-job.c: what opening the ranks of a job costs, beside one rank alone
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-job [--ranks 8,64] [--rank-size BYTES] [--keep DIR]
 *
 * For each rank count N, generates a job with `cp-gen --job` whose rank
 * files are about BYTES each (default 100M, the figure), then in
 * this process opens it as `chokepoint diagnose DIR` does (cp_job_open: the
 * ranks read and analysed in parallel, their collectives matched and the
 * clocks aligned), and prints wall and CPU time, GB of file per second of
 * wall clock, and the resident memory it took beside N times what one rank
 * takes loaded and analysed alone. The peers, in the same run: one rank
 * file read by Python's json.load and Node's JSON.parse (when installed),
 * so the per-byte speed can be set against theirs. Targets: time
 * proportional to the bytes (the GB/s of every N alike), memory at most
 * the sum of the single-rank models, collective matching linear in the
 * collectives. Run by hand; not a test.
 */

#include "config.h"

#include <locale.h>
#include <malloc.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analysis/cp-job.h"
#include "formats/cp-loader.h"

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* A field of /proc/self/status in bytes ("VmRSS:", "VmHWM:"). */
static guint64
status_bytes (const char *field)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, field);
  return line ? g_ascii_strtoull (line + strlen (field), NULL, 10) * 1024 : 0;
}

/* Resets VmHWM to the current RSS (Linux ≥ 4.0), so each phase has its own
 * peak. */
static void
reset_peak (void)
{
  g_file_set_contents ("/proc/self/clear_refs", "5", 1, NULL);
}

static void
run_or_die (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
                     &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("%s failed: %s", argv[0], error->message);
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

/* Generates dir with n ranks of `steps` steps each. */
static void
generate (const char *dir,
          guint       n,
          guint       steps)
{
  g_autofree char *ranks = g_strdup_printf ("%u", n);
  g_autofree char *s = g_strdup_printf ("%u", steps);
  const char *argv[] = { CP_GEN_PATH, "--job", dir, "--ranks", ranks, "--steps", s, "--straggler", "1",
                         "--delay", "2000000", NULL };

  run_or_die (argv);
}

static GPtrArray *
rank_files (const char *dir,
            guint       n)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint r = 0; r < n; r++)
    {
      g_autofree char *name = g_strdup_printf ("%s/rank-%u.pt.trace.json", dir, r);

      g_ptr_array_add (files, g_file_new_for_path (name));
    }
  return files;
}

/* Wall seconds of `argv` on file, or a negative number when it cannot run. */
static double
peer_seconds (const char * const *argv)
{
  g_autofree char *prog = g_find_program_in_path (argv[0]);
  gint64 t0;
  int status = 0;

  if (prog == NULL)
    return -1;
  t0 = g_get_monotonic_time ();
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                     NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    return -1;
  return (g_get_monotonic_time () - t0) / 1e6;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *ranks_arg = g_strdup ("8,64");
  g_autofree char *size_arg = g_strdup ("100M");
  g_autofree char *keep = NULL;
  GOptionEntry entries[] = {
    { "ranks", 'r', 0, G_OPTION_ARG_STRING, &ranks_arg, "Rank counts to open, comma-separated", "N,N…" },
    { "rank-size", 's', 0, G_OPTION_ARG_STRING, &size_arg, "Size of each rank file (k, M, G)", "BYTES" },
    { "keep", 'k', 0, G_OPTION_ARG_FILENAME, &keep, "Generate into this folder and keep it", "DIR" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— open generated jobs of many ranks");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) counts = NULL;
  g_autofree char *root = NULL;
  guint64 target;
  guint steps;
  char *end;

  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  target = g_ascii_strtoull (size_arg, &end, 10);
  if (*end == 'k' || *end == 'K')
    target <<= 10;
  else if (*end == 'M')
    target <<= 20;
  else if (*end == 'G')
    target <<= 30;
  if (target < 100000)
    {
      g_printerr ("--rank-size takes at least 100k\n");
      return 2;
    }
  counts = g_strsplit (ranks_arg, ",", -1);
  if (keep != NULL)
    {
      g_mkdir_with_parents (keep, 0755);
      root = g_strdup (keep);
    }
  else
    {
      root = g_dir_make_tmp ("bench-job-XXXXXX", &error);
      g_assert_no_error (error);
    }

  /* Steps for the size: a small job measures the bytes a step takes. */
  {
    g_autofree char *probe = g_build_filename (root, "probe", NULL);
    g_autofree char *file = g_build_filename (probe, "rank-0.pt.trace.json", NULL);
    guint64 bytes;

    generate (probe, 2, 200);
    bytes = file_size (file);
    steps = MAX (1, (guint) (target / MAX (bytes / 200, 1)));
    g_print ("A step takes %" G_GUINT64_FORMAT " bytes of a rank file: %u steps per rank for %s\n",
             bytes / 200, steps, size_arg);
  }

  /* One rank alone: its model's memory and the peers. */
  {
    g_autofree char *one = g_build_filename (root, "one", NULL);
    g_autofree char *file = g_build_filename (one, "rank-0.pt.trace.json", NULL);
    g_autoptr(GFile) gfile = NULL;
    g_autoptr(CpTrace) trace = NULL;
    g_autoptr(CpAnalysis) analysis = NULL;
    guint64 rss0, rss1, bytes;
    double t0, c0, wall, cpu, py, node;
    const char *py_argv[] = { "python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", file, NULL };
    const char *node_argv[] = { "node", "-e", "JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))",
                                file, NULL };

    if (!g_file_test (file, G_FILE_TEST_EXISTS))
      generate (one, 2, steps);
    bytes = file_size (file);
    gfile = g_file_new_for_path (file);
    rss0 = status_bytes ("VmRSS:");
    reset_peak ();
    t0 = g_get_monotonic_time () / 1e6;
    c0 = cpu_seconds ();
    trace = cp_load_file (gfile, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    analysis = cp_analysis_new (trace, NULL, &error);
    g_assert_no_error (error);
    wall = g_get_monotonic_time () / 1e6 - t0;
    cpu = cpu_seconds () - c0;
    rss1 = status_bytes ("VmRSS:");
    g_print ("  (one rank: anon %.0f MB, file %.0f MB)\n", status_bytes ("RssAnon:") / 1e6, status_bytes ("RssFile:") / 1e6);
    g_print ("One rank alone: %.0f MB, %.2f s wall, %.2f s CPU, model %.0f MB resident (peak %.0f MB while read)\n",
             bytes / 1e6, wall, cpu, (rss1 - rss0) / 1e6, (status_bytes ("VmHWM:") - rss0) / 1e6);
    py = peer_seconds (py_argv);
    node = peer_seconds (node_argv);
    if (py >= 0)
      g_print ("  peer: Python json.load of it %.2f s wall (%.2fx Chokepoint's load and analysis)\n", py, py / wall);
    if (node >= 0)
      g_print ("  peer: Node JSON.parse of it %.2f s wall (%.2fx)\n", node, node / wall);
    g_clear_object (&analysis);
    g_clear_object (&trace);
    /* Give the freed model back, so each job starts from the same RSS. */
    malloc_trim (0);

    g_print ("\n%6s %9s %9s %9s %8s %11s %12s %12s %8s\n", "ranks", "GB", "wall s", "CPU s", "GB/s",
             "collectives", "peak MB", "N x one MB", "ratio");
    for (guint k = 0; counts[k] != NULL; k++)
      {
        guint n = (guint) g_ascii_strtoull (counts[k], NULL, 10);
        g_autofree char *name = g_strdup_printf ("job-%u", n);
        g_autofree char *dir = g_build_filename (root, name, NULL);
        g_autofree char *first = g_build_filename (dir, "rank-0.pt.trace.json", NULL);
        g_autoptr(GPtrArray) files = NULL;
        g_autoptr(CpJob) job = NULL;
        guint64 total = 0, base, peak;
        double jt0, jc0;

        if (n < 2)
          continue;
        if (!g_file_test (first, G_FILE_TEST_EXISTS))
          generate (dir, n, steps);
        files = rank_files (dir, n);
        for (guint r = 0; r < n; r++)
          {
            g_autofree char *p = g_file_get_path (files->pdata[r]);

            total += file_size (p);
          }
        base = status_bytes ("VmRSS:");
        reset_peak ();
        jt0 = g_get_monotonic_time () / 1e6;
        jc0 = cpu_seconds ();
        job = cp_job_open ((GFile * const *) files->pdata, n, NULL, NULL, &error);
        g_assert_no_error (error);
        wall = g_get_monotonic_time () / 1e6 - jt0;
        cpu = cpu_seconds () - jc0;
        peak = status_bytes ("VmHWM:");
        malloc_trim (0);
        g_print ("  (after the open, freed memory trimmed: %.0f MB resident beyond the start)\n",
                 (status_bytes ("VmRSS:") - base) / 1e6);
        g_print ("%6u %9.2f %9.2f %9.2f %8.2f %11u %12.0f %12.0f %8.2f\n", n, total / 1e9, wall, cpu,
                 total / 1e9 / wall, cp_job_get_n_collectives (job), (peak - base) / 1e6,
                 n * (rss1 - rss0) / 1e6, (double) (peak - base) / (n * (double) (rss1 - rss0)));
        g_clear_object (&job);
        malloc_trim (0);
        if (keep == NULL)
          {
            for (guint r = 0; r < n; r++)
              g_file_delete (files->pdata[r], NULL, NULL);
          }
      }
  }
  if (keep == NULL)
    {
      const char *argv_rm[] = { "rm", "-rf", root, NULL };

      g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  return 0;
}
