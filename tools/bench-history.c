/* bench-history.c: what recording a run costs, and history trend over many
 * runs
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-history [--runs N] [--steps S] [--repeat R]
 *
 * 1. Generates an input-bound capture of S steps (default 200) with cp-gen,
 *    then times, R times each, what `diagnose` does (load and analyse) and
 *    what `diagnose --record` does (the same with the hash in a thread
 *    beside it, then the run's figures stored in an existing history).
 *    Target: at most 5% more.
 * 2. Fills a history in a temporary folder with N runs (default 100,000)
 *    made from that run: ten series (label model=m0..m9), each run with its
 *    own hash, time and step time. Then times `history trend` over one
 *    series (a tenth of the runs) for three metrics, best and median of R,
 *    beside a peer: Python's sqlite3 reading the same column of the same
 *    rows. Target: under 100 ms.
 * On a shared machine wall time is mostly waiting for a core, so each
 * timing also gives CPU time: the process's for diagnose and record (the
 * hash thread included, which a free core would run beside the loading),
 * the calling thread's for trend.
 * Run by hand; not a test.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis/cp-analysis.h"
#include "formats/cp-loader.h"
#include "history/cp-history.h"

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
report (const char *what,
        GArray     *times)
{
  g_array_sort (times, compare_double);
  g_print ("%-44s best %8.2f ms  median %8.2f ms\n", what,
           1e3 * g_array_index (times, double, 0), 1e3 * g_array_index (times, double, times->len / 2));
}

static gpointer
hash_thread (gpointer data)
{
  return cp_history_hash_file (data, NULL, NULL);
}

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

static double
cpu (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main (int   argc,
      char *argv[])
{
  int n_runs = 100000, steps = 200, repeat = 7;
  const GOptionEntry entries[] = {
    { "runs", 'n', 0, G_OPTION_ARG_INT, &n_runs, "Runs in the history (default 100000)", "N" },
    { "steps", 's', 0, G_OPTION_ARG_INT, &steps, "Steps of the generated capture (default 200)", "S" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Repetitions of each timing (default 7)", "R" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— time the run history");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL, *capture = NULL, *db = NULL, *steps_s = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GArray) t_diag = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) t_rec = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) c_diag = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) c_rec = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) c_hash = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) t_store = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(CpHistoryRun) base = NULL;
  g_autoptr(CpHistory) history = NULL;
  const char *metrics[] = { "step_time.mean", "gpu.utilization", "finding.input-bound.time_at_stake" };
  double t0, c0, fill;
  int status = 0;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-history: %s\n", error->message);
      return 2;
    }
  dir = g_dir_make_tmp ("chokepoint-bench-history-XXXXXX", &error);
  g_assert_no_error (error);
  capture = g_build_filename (dir, "input-bound.json", NULL);
  db = g_build_filename (dir, "history.sqlite", NULL);
  steps_s = g_strdup_printf ("%d", steps);
  {
    const char *gen[] = { CP_GEN_PATH, "--scenario", "input-bound", "--steps", steps_s, "--out", capture, "-q", NULL };

    if (!g_spawn_sync (NULL, (char **) gen, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
        !g_spawn_check_wait_status (status, &error))
      g_error ("cp-gen failed: %s", error->message);
  }
  file = g_file_new_for_path (capture);

  /* 1. diagnose, and diagnose --record as the command does it: the hash in
   * a thread while the capture loads, then the figures stored in a history
   * that exists already. */
  for (int r = 0; r < repeat; r++)
    {
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(CpAnalysis) analysis = NULL;
      g_autoptr(CpTrace) trace2 = NULL;
      g_autoptr(CpAnalysis) analysis2 = NULL;
      g_autoptr(CpHistory) h = NULL;
      g_autoptr(CpHistoryRun) run = NULL;
      g_autofree char *one_db = g_strdup_printf ("%s/record-%d.sqlite", dir, r);
      GThread *thread;
      char *hash;
      gboolean added;
      double d;

      cp_history_close (cp_history_open (one_db, TRUE, &error));
      g_assert_no_error (error);

      t0 = now ();
      c0 = cpu (CLOCK_PROCESS_CPUTIME_ID);
      trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      analysis = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      d = now () - t0;
      g_array_append_val (t_diag, d);
      d = cpu (CLOCK_PROCESS_CPUTIME_ID) - c0;
      g_array_append_val (c_diag, d);

      /* The hash alone, for its CPU time. */
      c0 = cpu (CLOCK_THREAD_CPUTIME_ID);
      g_free (cp_history_hash_file (file, NULL, NULL));
      d = cpu (CLOCK_THREAD_CPUTIME_ID) - c0;
      g_array_append_val (c_hash, d);

      t0 = now ();
      c0 = cpu (CLOCK_PROCESS_CPUTIME_ID);
      thread = g_thread_new ("hash", hash_thread, file);
      trace2 = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      analysis2 = cp_analysis_new (trace2, NULL, &error);
      g_assert_no_error (error);
      hash = g_thread_join (thread);
      {
        double t1 = now ();

        run = cp_history_run_new_from_analysis (analysis2, hash);
        g_free (hash);
        h = cp_history_open (one_db, TRUE, &error);
        g_assert_no_error (error);
        cp_history_add (h, run, &added, &error);
        g_assert_no_error (error);
        d = now () - t1;
        g_array_append_val (t_store, d);
      }
      d = now () - t0;
      g_array_append_val (t_rec, d);
      d = cpu (CLOCK_PROCESS_CPUTIME_ID) - c0;
      g_array_append_val (c_rec, d);
      if (base == NULL)
        base = g_steal_pointer (&run);
    }
  g_print ("capture: %s, %d steps, %" G_GINT64_FORMAT " bytes\n", capture, steps, base->file_bytes);
  report ("diagnose (load + analyse), wall", t_diag);
  report ("diagnose --record, wall", t_rec);
  g_print ("%-44s %+.1f%%\n", "recording over diagnose, wall (medians)",
           100 * (g_array_index (t_rec, double, t_rec->len / 2) / g_array_index (t_diag, double, t_diag->len / 2) - 1));
  report ("diagnose, CPU (all threads)", c_diag);
  report ("diagnose --record, CPU (all threads)", c_rec);
  report ("  of which the hash, CPU", c_hash);
  report ("  and the store (figures, open, add), wall", t_store);
  g_print ("%-44s %+.1f%%\n", "recording over diagnose, CPU (medians)",
           100 * (g_array_index (c_rec, double, c_rec->len / 2) / g_array_index (c_diag, double, c_diag->len / 2) - 1));
  g_print ("%-44s %+.1f%%\n", "the same less the hash (a free core runs it)",
           100 * ((g_array_index (c_rec, double, c_rec->len / 2) - g_array_index (c_hash, double, c_hash->len / 2)) /
                  g_array_index (c_diag, double, c_diag->len / 2) - 1));

  /* 2. A history of n_runs runs in ten series. */
  history = cp_history_open (db, TRUE, &error);
  g_assert_no_error (error);
  t0 = now ();
  for (int i = 0; i < n_runs; i++)
    {
      g_autofree char *model = g_strdup_printf ("m%d", i % 10);
      g_autofree char *commit = g_strdup_printf ("%08x", (guint) i * 2654435761u);
      gboolean added;

      g_free (base->hash);
      base->hash = g_strdup_printf ("xxh64:%016x", i);
      base->time_ns = base->started_ns + (gint64) i * 60 * G_GINT64_CONSTANT (1000000000);
      base->step_mean_ns = 50000000 + (i % 977) * 1000;
      cp_history_run_set_label (base, "model", model);
      cp_history_run_set_label (base, "commit", commit);
      if (!cp_history_add (history, base, &added, &error))
        g_error ("add: %s", error->message);
    }
  fill = now () - t0;
  g_print ("%-44s %.1f s (%.0f runs/s)\n", "filled the history", fill, n_runs / fill);

  for (guint m = 0; m < G_N_ELEMENTS (metrics); m++)
    {
      g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr(GArray) cpus = g_array_new (FALSE, FALSE, sizeof (double));
      g_autofree char *what = NULL, *what_cpu = NULL;
      CpHistoryLabel label = { (char *) "model", (char *) "m3" };
      g_autoptr(GArray) labels = g_array_new (FALSE, FALSE, sizeof (CpHistoryLabel));
      CpHistoryFilter filter = { 0 };
      guint n = 0;

      g_array_append_val (labels, label);
      filter.labels = labels;
      for (int r = 0; r < repeat; r++)
        {
          g_autoptr(GArray) points = NULL;
          double d;

          t0 = now ();
          c0 = cpu (CLOCK_THREAD_CPUTIME_ID);
          points = cp_history_trend (history, metrics[m], &filter, &error);
          g_assert_no_error (error);
          cp_history_mark_regressions (points, metrics[m], 0.05);
          d = cpu (CLOCK_THREAD_CPUTIME_ID) - c0;
          g_array_append_val (cpus, d);
          d = now () - t0;
          n = points->len;
          g_array_append_val (times, d);
        }
      what = g_strdup_printf ("trend %s (%u of %d runs), wall", metrics[m], n, n_runs);
      report (what, times);
      what_cpu = g_strdup_printf ("trend %s, CPU", metrics[m]);
      report (what_cpu, cpus);
    }

  /* The peer: Python's sqlite3 reading one series' column. */
  {
    g_autofree char *script = g_strdup_printf (
      "import sqlite3, time\n"
      "con = sqlite3.connect('file:%s?mode=ro', uri=True)\n"
      "best = 1e9\n"
      "for _ in range(%d):\n"
      "    t = time.perf_counter()\n"
      "    rows = con.execute(\"SELECT r.id, r.time_ns, r.step_mean_ns FROM runs r WHERE r.id IN (SELECT run_id FROM run_labels WHERE key = 'model' AND value = 'm3') ORDER BY r.time_ns, r.id\").fetchall()\n"
      "    best = min(best, time.perf_counter() - t)\n"
      "print('%%-44s best %%8.2f ms' %% ('peer: python sqlite3, %%d rows' %% len(rows), best * 1e3))\n",
      db, repeat);
    const char *py[] = { "python3", "-c", script, NULL };
    g_autofree char *out = NULL;

    if (g_spawn_sync (NULL, (char **) py, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, NULL))
      g_print ("%s", out);
  }
  g_clear_pointer (&history, cp_history_close);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);

    if (system (cmd) != 0)
      g_printerr ("bench-history: could not remove %s\n", dir);
  }
  return 0;
}
