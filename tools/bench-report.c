/* bench-report.c: how long the report of a large capture takes once it is loaded
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Not a test: run by hand (see README, "Performance").
 *
 *   bench-report [--size BYTES] [--gen PATH] [--dir DIR] [--keep] [--runs N]
 *   bench-report --capture FILE
 *
 * Generates a capture of about --size bytes of JSON (default 1 GB, scenario
 * input-bound, so that a finding's evidence is drawn) with the project's
 * generator, stored zstd-compressed to spare the disk; loads it, analyses it,
 * adds a few annotations, then times the report: drawing the whole capture at
 * 1600 px (the window's export, whose analysis is already done), the same at
 * scale 2, writing the PNG file, and the command line's whole job after
 * loading (analysis + report). The design target is 2 s for the report of a
 * 1 GB capture once loaded. No other viewer exports such a report, so there
 * is no peer to run beside it; the load time is printed for scale. */

#include "config.h"

#include <locale.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "formats/cp-loader.h"
#include "render/cp-painter.h"
#include "render/cp-report.h"

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* CPU time of the process (user + system, every thread). */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
load_average (void)
{
  double la[1] = { 0 };

  return getloadavg (la, 1) == 1 ? la[0] : 0;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof (double), (int (*) (const void *, const void *)) compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
time_render (CpReport *report,
             double   *cpu,
             int      *w,
             int      *h)
{
  g_autoptr(GError) error = NULL;
  double c0 = cpu_now ();
  double t0 = now ();
  cairo_surface_t *s = cp_report_render_image (report, NULL, &error);
  double t = now () - t0;

  *cpu = cpu_now () - c0;
  if (s == NULL)
    g_error ("report: %s", error->message);
  if (w)
    *w = cairo_image_surface_get_width (s);
  if (h)
    *h = cairo_image_surface_get_height (s);
  cairo_surface_destroy (s);
  return t;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size_text = g_strdup ("1G");
  g_autofree char *gen = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *capture = NULL;
  gboolean keep = FALSE;
  int runs = 5;
  const GOptionEntry entries[] = {
    { "size", 0, 0, G_OPTION_ARG_STRING, &size_text, "Uncompressed size of the generated capture (default 1G)", "BYTES" },
    { "gen", 0, 0, G_OPTION_ARG_FILENAME, &gen, "The cp-gen executable (default: beside this one)", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Folder for the generated capture (default: a temporary one)", "DIR" },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep, "Keep the generated capture", NULL },
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Timed runs of each measurement (default 5)", "N" },
    { "capture", 0, 0, G_OPTION_ARG_FILENAME, &capture, "Use this capture instead of generating one", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— time the report of a large capture");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(CpAnnotations) notes = NULL;
  g_autofree char *png = NULL;
  g_autofree double *t_view = NULL;
  g_autofree double *t_hidpi = NULL;
  g_autofree double *t_write = NULL;
  g_autofree double *t_cli = NULL;
  g_autofree double *c_view = NULL;
  g_autofree double *c_hidpi = NULL;
  g_autofree double *c_write = NULL;
  g_autofree double *c_cli = NULL;
  double c0;
  CpReportOptions o;
  double t0, t_load, t_analysis;
  gboolean made_dir = FALSE;
  int w = 0, h = 0, w2 = 0, h2 = 0;

  /* Option help and figures in the user's character set (…, —, µ);
   * numbers stay in the C locale, so the files written stay valid. */
  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-report: %s\n", error->message);
      return 2;
    }
  runs = CLAMP (runs, 1, 50);

  if (capture == NULL)
    {
      g_autofree char *self_dir = g_path_get_dirname (argv[0]);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      const char *gen_argv[12];
      int status;

      if (gen == NULL)
        gen = g_build_filename (self_dir, "cp-gen", NULL);
      if (dir == NULL)
        {
          dir = g_dir_make_tmp ("chokepoint-bench-report-XXXXXX", &error);
          if (dir == NULL)
            g_error ("%s", error->message);
          made_dir = TRUE;
        }
      capture = g_build_filename (dir, "input-bound.pt.trace.json.zst", NULL);
      gen_argv[0] = gen;
      gen_argv[1] = "--scenario";
      gen_argv[2] = "input-bound";
      gen_argv[3] = "--size";
      gen_argv[4] = size_text;
      gen_argv[5] = "--out";
      gen_argv[6] = capture;
      gen_argv[7] = "--quiet";
      gen_argv[8] = NULL;
      g_print ("Generating %s of JSON (input-bound, zstd) with %s...\n", size_text, gen);
      t0 = now ();
      if (!g_spawn_sync (NULL, (char **) gen_argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error) ||
          !g_spawn_check_wait_status (status, &error))
        g_error ("cp-gen failed: %s %s", error ? error->message : "", err ? err : "");
      g_print ("  generated in %.1f s\n", now () - t0);
    }

  file = g_file_new_for_path (capture);
  t0 = now ();
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  t_load = now () - t0;
  if (trace == NULL)
    g_error ("%s", error->message);
  {
    const CpLoadReport *lr = cp_trace_get_load_report (trace);

    g_print ("Loaded %s: %.0f MB of JSON, %" G_GUINT64_FORMAT " slices, %u lanes, in %.2f s\n",
             capture, lr->input_bytes / 1e6, cp_trace_get_n_slices (trace), cp_trace_get_n_lanes (trace),
             t_load);
  }

  t0 = now ();
  analysis = cp_analysis_new (trace, NULL, &error);
  t_analysis = now () - t0;
  g_print ("Analysis: %.3f s, %u findings\n", t_analysis,
           g_list_model_get_n_items (cp_analysis_get_findings (analysis)));

  /* A few annotations, as a user would leave them. */
  notes = cp_annotations_new ();
  cp_annotations_set_trace (notes, trace);
  for (guint i = 0; i < 6; i++)
    cp_annotations_add_marker (notes, cp_trace_get_duration (trace) / 7 * (i + 1), CP_ANNOTATION_ALL_LANES,
                               "A marker", 0);
  {
    CpFinding *f = cp_analysis_lookup_finding (analysis, "input-bound");
    guint n_ev = 0;

    if (f != NULL && (cp_finding_get_evidence (f, &n_ev), n_ev > 0))
      cp_report_pin_finding (notes, f, n_ev / 2, CP_FRAMEWORK_PYTORCH);
  }

  /* The LOD index is built on the first drawing (the window has it already
   * when the user exports): build it outside the timings, and say how long. */
  t0 = now ();
  cp_lod_ensure (trace);
  g_print ("Level-of-detail index (built once, before the window's first frame): %.3f s\n", now () - t0);

  t_view = g_new0 (double, runs);
  t_hidpi = g_new0 (double, runs);
  t_write = g_new0 (double, runs);
  t_cli = g_new0 (double, runs);
  c_view = g_new0 (double, runs);
  c_hidpi = g_new0 (double, runs);
  c_write = g_new0 (double, runs);
  c_cli = g_new0 (double, runs);
  png = g_build_filename (dir ? dir : g_get_tmp_dir (), "bench-report.png", NULL);
  for (int r = 0; r < runs; r++)
    {
      g_autoptr(CpReport) report = NULL;
      g_autoptr(CpReport) hidpi = NULL;
      g_autoptr(CpReport) cli = NULL;
      g_autoptr(GFile) out = g_file_new_for_path (png);

      cp_report_options_init (&o);
      report = cp_report_new (trace, analysis, notes, NULL, &o, &error);
      t_view[r] = time_render (report, &c_view[r], &w, &h);

      o.scale = 2;
      hidpi = cp_report_new (trace, analysis, notes, NULL, &o, &error);
      t_hidpi[r] = time_render (hidpi, &c_hidpi[r], &w2, &h2);

      c0 = cpu_now ();
      t0 = now ();
      if (!cp_report_write (report, out, NULL, &error))
        g_error ("%s", error->message);
      t_write[r] = now () - t0;
      c_write[r] = cpu_now () - c0;

      /* The command line: analysis, then the report, then the file. */
      c0 = cpu_now ();
      t0 = now ();
      {
        g_autoptr(CpAnalysis) again = cp_analysis_new (trace, NULL, NULL);

        o.scale = 1;
        cli = cp_report_new (trace, again, notes, NULL, &o, &error);
        if (!cp_report_write (cli, out, NULL, &error))
          g_error ("%s", error->message);
      }
      t_cli[r] = now () - t0;
      c_cli[r] = cpu_now () - c0;
    }

  g_print ("\nReport of the whole capture, median of %d runs (load average %.1f):\n", runs, load_average ());
  g_print ("                                               wall      CPU\n");
  g_print ("  draw, 1600 px wide (%4d x %5d)          %6.3f s  %6.3f s\n", w, h, median (t_view, runs),
           median (c_view, runs));
  g_print ("  draw, scale 2 (%4d x %5d)               %6.3f s  %6.3f s\n", w2, h2, median (t_hidpi, runs),
           median (c_hidpi, runs));
  g_print ("  draw and write the PNG (the window)        %6.3f s  %6.3f s\n", median (t_write, runs),
           median (c_write, runs));
  g_print ("  analysis + draw + PNG (the command line)   %6.3f s  %6.3f s\n", median (t_cli, runs),
           median (c_cli, runs));
  g_print ("  target, once loaded                         2.000 s\n");
  g_print ("  for scale: loading took                    %6.2f s\n", t_load);

  if (made_dir && !keep)
    {
      g_unlink (capture);
      g_unlink (png);
      g_rmdir (dir);
    }
  else
    g_print ("Kept %s\n", capture);
  cp_annotations_set_trace (notes, NULL);
  return 0;
}
