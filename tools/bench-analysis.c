/* bench-analysis.c: time of the whole analysis on a generated capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-analysis [--slices N] [--scenario NAME] [--runs R] [--keep FILE]
 *
 * Generates a capture of about N slices (default 5,000,000) with cp-gen (an
 * XPlane twin of a scenario, default launch-bound: the densest in launches,
 * flows and tiny kernels), loads it through cp_load_file(), then runs the
 * complete analysis (steps, breakdown, device metrics, kernel and host-op
 * statistics, every rule) R times and prints the best and median wall time
 * and the CPU time, beside a peer: one pass that reads every slice's start,
 * duration and name and does nothing else. Target: at most 1 s for 5M slices.
 * Run by hand; not a test.
 */

#include "config.h"

#include <locale.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-analysis-private.h"
#include "formats/cp-loader.h"

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
generate (const char *scenario,
          guint       steps,
          const char *path)
{
  g_autofree char *steps_s = g_strdup_printf ("%u", steps);
  const char *argv[] = { CP_GEN_PATH, "--scenario", scenario, "--format", "xplane", "--steps", steps_s,
                         "--out", path, "-q", NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("cp-gen failed: %s", error->message);
}

static CpTrace *
load (const char *path,
      double     *seconds)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  CpTrace *trace = cp_load_file (file, NULL, NULL, NULL, &error);

  if (trace == NULL)
    g_error ("%s", error->message);
  if (seconds)
    *seconds = (g_get_monotonic_time () - t0) / 1e6;
  return trace;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : (x > y);
}

int
main (int   argc,
      char *argv[])
{
  gint64 target = 5000000;
  gint runs = 3;
  g_autofree char *scenario = g_strdup ("launch-bound");
  g_autofree char *keep = NULL;
  GOptionEntry entries[] = {
    { "slices", 'n', 0, G_OPTION_ARG_INT64, &target, "Slices to generate (about)", "N" },
    { "scenario", 's', 0, G_OPTION_ARG_STRING, &scenario, "cp-gen scenario", "NAME" },
    { "runs", 'r', 0, G_OPTION_ARG_INT, &runs, "Analysis runs", "R" },
    { "keep", 'k', 0, G_OPTION_ARG_FILENAME, &keep, "Write the capture here and keep it", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— time the analysis of a generated capture");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *probe = NULL;
  g_autofree char *path = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree double *wall = NULL;
  double load_s, cpu = 0, peer = 0;
  guint64 slices, per_step;
  guint steps, n_findings = 0;
  gint64 sink = 0;

  /* Option help and figures in the user's character set (…, —, µ);
   * numbers stay in the C locale, so the files written stay valid. */
  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  runs = MAX (runs, 1);

  dir = g_dir_make_tmp ("bench-analysis-XXXXXX", &error);
  g_assert_no_error (error);

  /* Slices per step, from a short capture of the same scenario. */
  probe = g_build_filename (dir, "probe.xplane.pb", NULL);
  generate (scenario, 4, probe);
  {
    g_autoptr(CpTrace) t = load (probe, NULL);

    per_step = MAX (cp_trace_get_n_slices (t) / 4, 1);
  }
  g_unlink (probe);
  steps = (guint) MAX ((target + per_step - 1) / per_step, 1);

  path = keep ? g_strdup (keep) : g_build_filename (dir, "capture.xplane.pb", NULL);
  g_print ("Generating %s with %u steps (about %" G_GUINT64_FORMAT " slices per step)…\n",
           scenario, steps, per_step);
  generate (scenario, steps, path);
  trace = load (path, &load_s);
  if (keep == NULL)
    g_unlink (path);
  g_rmdir (dir);

  slices = cp_trace_get_n_slices (trace);
  {
    guint n_flows;

    cp_trace_get_flows (trace, &n_flows);
    g_print ("Capture: %" G_GUINT64_FORMAT " slices (%" G_GUINT64_FORMAT " kernels), %u flows, %u lanes; loaded in %.2f s\n",
             slices, cp_trace_count_slices (trace, CP_LANE_KERNEL), n_flows,
             cp_trace_get_n_lanes (trace), load_s);
  }

  /* Peer: read every slice once. */
  {
    gint64 t0 = g_get_monotonic_time ();

    for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
      {
        const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

        for (guint i = 0; i < s->n; i++)
          sink += cp_slices_get_start (s, i) ^ cp_slices_get_dur (s, i) ^ cp_slices_get_name (s, i);
      }
    peer = (g_get_monotonic_time () - t0) / 1e6;
  }

  wall = g_new (double, runs);
  for (gint r = 0; r < runs; r++)
    {
      double c0 = cpu_seconds ();
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(CpAnalysis) a = cp_analysis_new (trace, NULL, &error);

      g_assert_no_error (error);
      wall[r] = (g_get_monotonic_time () - t0) / 1e6;
      cpu += cpu_seconds () - c0;
      n_findings = g_list_model_get_n_items (cp_analysis_get_findings (a));
      g_print ("  run %d: %.3f s wall;", r + 1, wall[r]);
      for (guint p = 0; p < CP_ANALYSIS_N_PHASES; p++)
        g_print (" %s %.3f", _cp_analysis_phase_names[p], a->phase_cpu[p]);
      g_print (" (CPU s)\n");
    }
  qsort (wall, runs, sizeof (double), cmp_double);

  g_print ("Analysis: best %.3f s, median %.3f s, mean CPU %.3f s over %d runs "
           "(%.1f M slices/s); %u findings\n",
           wall[0], wall[runs / 2], cpu / runs, runs, slices / wall[0] / 1e6, n_findings);
  g_print ("Peer (one read of every slice's start, duration, name): %.3f s [%" G_GINT64_FORMAT "]\n",
           peer, sink & 1);
  {
    g_autofree char *loadavg = NULL;
    double load = 0;
    double cpu_5m = cpu / runs * 5e6 / MAX (slices, 1);
    double wall_5m = wall[0] * 5e6 / MAX (slices, 1);

    /* The analysis is single-threaded: on a busy machine its wall time is
     * its CPU time stretched by the other processes; both are shown. */
    if (g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL))
      load = g_ascii_strtod (loadavg, NULL);
    g_print ("Target <= 1 s for 5M slices: CPU %.3f s (%s), wall %.3f s (%s); load average %.1f on %u CPUs\n",
             cpu_5m, cpu_5m <= 1.0 ? "met" : "NOT met", wall_5m, wall_5m <= 1.0 ? "met" : "not met",
             load, g_get_num_processors ());
  }
  return 0;
}
