/* bench-compare.c: what comparing two captures costs beside loading them
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-compare [--size BYTES] [--format json|xplane] [--keep DIR]
 *
 * Generates a pair with cp-gen, each about BYTES uncompressed (default
 * 256M; the target in the issue is 1G): A the healthy scenario, B the same
 * run with a 30 ms DataLoader. Then, in this process, loads both (the peer:
 * two plain loads, as `chokepoint` opening them does) and compares them as
 * `chokepoint compare` does: both analyses and the CpComparison, then the
 * call paths the window's Host Ops page shows. Prints the
 * wall and CPU time of each part and the resident memory after the loads and
 * after the comparison. Target: the comparison costs at most the two loads
 * plus 1 s of CPU, and the two models plus 10% of memory. Run by hand; not a
 * test.
 */

#include "config.h"

#include <locale.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analysis/cp-compare.h"
#include "formats/cp-loader.h"

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* VmRSS in bytes, from /proc/self/status. */
static guint64
rss_bytes (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "VmRSS:");
  return line ? g_ascii_strtoull (line + 6, NULL, 10) * 1024 : 0;
}

static void
generate (const char *format,
          const char *size,
          const char *path,
          const char *extra)
{
  const char *argv[] = { CP_GEN_PATH, "--scenario", "healthy", "--format", format, "--size", size,
                         "--out", path, "-q", extra, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("cp-gen failed: %s", error->message);
}

typedef struct
{
  double wall;
  double cpu;
} Cost;

static void
cost_begin (Cost *c)
{
  c->wall = g_get_monotonic_time () / 1e6;
  c->cpu = cpu_seconds ();
}

static void
cost_end (Cost *c)
{
  c->wall = g_get_monotonic_time () / 1e6 - c->wall;
  c->cpu = cpu_seconds () - c->cpu;
}

static CpTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  CpTrace *trace = cp_load_file (file, NULL, NULL, NULL, &error);

  if (trace == NULL)
    g_error ("%s", error->message);
  return trace;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size = g_strdup ("256M");
  g_autofree char *format = g_strdup ("json");
  g_autofree char *keep = NULL;
  GOptionEntry entries[] = {
    { "size", 's', 0, G_OPTION_ARG_STRING, &size, "Size of each capture, uncompressed (k, M, G)", "BYTES" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "json or xplane", "FORMAT" },
    { "keep", 'k', 0, G_OPTION_ARG_FILENAME, &keep, "Write the pair into this folder and keep it", "DIR" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— time a comparison beside two plain loads");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL, *path_a = NULL, *path_b = NULL;
  const char *ext;
  g_autoptr(CpTrace) ta = NULL;
  g_autoptr(CpTrace) tb = NULL;
  g_autoptr(CpAnalysis) aa = NULL;
  g_autoptr(CpAnalysis) ab = NULL;
  g_autoptr(CpComparison) c = NULL;
  Cost loads, analyses, comparison, paths;
  guint64 rss0, rss_loaded, rss_analysed, rss_compared, bytes_a = 0, bytes_b = 0;
  gint64 mean_a, mean_b, delta;
  double percent;

  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (!g_str_equal (format, "json") && !g_str_equal (format, "xplane"))
    {
      g_printerr ("--format takes json or xplane\n");
      return 2;
    }
  ext = g_str_equal (format, "json") ? ".json" : ".xplane.pb";

  if (keep != NULL)
    {
      g_mkdir_with_parents (keep, 0755);
      dir = g_strdup (keep);
    }
  else
    {
      dir = g_dir_make_tmp ("bench-compare-XXXXXX", &error);
      g_assert_no_error (error);
    }
  path_a = g_strconcat (dir, "/healthy", ext, NULL);
  path_b = g_strconcat (dir, "/loader30", ext, NULL);
  g_print ("Generating two %s captures of about %s each…\n", format, size);
  generate (format, size, path_a, NULL);
  generate (format, size, path_b, "--loader-ms=30");
  {
    GStatBuf st;

    if (g_stat (path_a, &st) == 0)
      bytes_a = st.st_size;
    if (g_stat (path_b, &st) == 0)
      bytes_b = st.st_size;
  }

  rss0 = rss_bytes ();
  cost_begin (&loads);
  ta = load (path_a);
  tb = load (path_b);
  cost_end (&loads);
  rss_loaded = rss_bytes ();
  if (keep == NULL)
    {
      g_unlink (path_a);
      g_unlink (path_b);
      g_rmdir (dir);
    }

  cost_begin (&analyses);
  aa = cp_analysis_new (ta, NULL, &error);
  g_assert_no_error (error);
  ab = cp_analysis_new (tb, NULL, &error);
  g_assert_no_error (error);
  cost_end (&analyses);
  rss_analysed = rss_bytes ();
  cost_begin (&comparison);
  c = cp_comparison_new (aa, ab, CP_COMPARE_KERNELS_BY_NAME);
  cost_end (&comparison);
  rss_compared = rss_bytes ();
  /* The window's Host Ops page (and `compare` without --json) also match
   * host ops by call path: one more walk of each side's host threads. */
  cost_begin (&paths);
  cp_comparison_get_host_op_paths (c, NULL);
  cost_end (&paths);

  cp_comparison_get_step_time (c, &mean_a, &mean_b, &delta, &percent);
  g_print ("Pair: %.0f MB + %.0f MB on disk, %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT " slices; "
           "step %.2f ms -> %.2f ms (%+.1f%%)\n",
           bytes_a / 1e6, bytes_b / 1e6, cp_trace_get_n_slices (ta), cp_trace_get_n_slices (tb),
           mean_a / 1e6, mean_b / 1e6, percent);
  g_print ("Two plain loads (the peer): %.2f s wall, %.2f s CPU\n", loads.wall, loads.cpu);
  g_print ("Both analyses:              %.2f s wall, %.2f s CPU\n", analyses.wall, analyses.cpu);
  g_print ("The comparison itself:      %.4f s wall, %.4f s CPU\n", comparison.wall, comparison.cpu);
  g_print ("Host ops by call path:      %.4f s wall, %.4f s CPU\n", paths.wall, paths.cpu);
  g_print ("Compare beyond the loads: %.2f s CPU (target <= 1 s: %s)\n",
           analyses.cpu + comparison.cpu, analyses.cpu + comparison.cpu <= 1.0 ? "met" : "NOT met");
  g_print ("Memory: %.0f MB after the loads (models %.0f MB), %.0f MB after the analyses (%+.1f%%), "
           "%.0f MB after the comparison (%+.1f%%); target <= 10%%: %s\n",
           (rss_loaded - rss0) / 1e6,
           (cp_trace_get_memory_size (ta) + cp_trace_get_memory_size (tb)) / 1e6,
           (rss_analysed - rss0) / 1e6,
           100.0 * ((double) rss_analysed - rss_loaded) / MAX (rss_loaded - rss0, 1),
           (rss_compared - rss0) / 1e6,
           100.0 * ((double) rss_compared - rss_loaded) / MAX (rss_loaded - rss0, 1),
           (double) rss_compared - rss_loaded <= ((double) rss_loaded - rss0) / 10 ? "met" : "NOT met");
  {
    g_autofree char *loadavg = NULL;

    if (g_file_get_contents ("/proc/loadavg", &loadavg, NULL, NULL))
      g_print ("Load average %.1f on %u CPUs\n", g_ascii_strtod (loadavg, NULL), g_get_num_processors ());
  }
  return 0;
}
