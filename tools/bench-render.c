/* bench-render.c: frame times of the timeline painter on large captures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Builds synthetic captures of 1M and 10M slices, renders frames at random
 * zooms and offsets into a 1920x1080 image surface with the same painter as
 * the window, and prints the median, 95th, 99th and 99.9th percentile ms
 * per frame, the 10M/1M ratios of the median and the 99th percentile and
 * the memory the level-of-detail index adds. Run by hand:
 *
 *   build/tools/bench-render [--frames 200] [--sizes 1000000,10000000] [--zoom Z] [--threads N]
 *   build/tools/bench-render --png out.png --sizes 200000 [--range A:B] [--dark]
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "render/cp-lod.h"
#include "render/cp-painter.h"
#include "render/cp-view-state.h"

#include "cp-synth-trace.h"

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
percentile (double *v,
            guint   n,
            double  p)
{
  guint i = (guint) floor (p * (n - 1) + 0.5);

  return v[MIN (i, n - 1)];
}

typedef struct
{
  double median;
  double p95;
  double p99;
  double p999;
  double cpu_median;
  double cpu_p95;
} Figures;

/* CPU time of the process, in ms, every thread that walks rows included:
 * unlike wall time it does not count the time other processes on a busy
 * machine take the cores. */
static double
process_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static Figures
bench_trace (CpTrace *trace,
             guint    frames,
             int      width,
             int      height,
             gboolean dark,
             double   fixed_zoom,
             guint    threads,
             guint32  seed)
{
  g_autoptr(CpViewState) view = cp_view_state_new ();
  CpPainter *painter = cp_painter_new ();
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  g_autofree double *ms = g_new (double, frames);
  g_autofree double *cpu = g_new (double, frames);
  GRand *rand = g_rand_new_with_seed (seed);
  gint64 duration = cp_trace_get_duration (trace);
  double area_w = width - cp_painter_get_metrics (painter)->gutter_width;
  double max_zoom = log2 ((double) duration / area_w);
  CpTimelineLayout *layout;
  guint64 slices = 0, columns = 0, labels = 0;
  Figures f;

  cp_painter_set_threads (painter, threads);
  cp_painter_set_theme (painter, dark ? CP_THEME_DARK : CP_THEME_LIGHT);
  cp_view_state_set_viewport_width (view, area_w);
  cp_view_state_set_trace (view, trace);
  layout = cp_timeline_layout_new (view, cp_painter_get_metrics (painter));

  for (guint i = 0; i <= frames; i++)
    {
      /* Zoom log-uniform between the whole trace and 1 ns per pixel, or
       * the one asked for. */
      double zoom = g_rand_double_range (rand, 0, MAX (max_zoom, 0));
      if (!isnan (fixed_zoom))
        zoom = MIN (fixed_zoom, MAX (max_zoom, 0));
      gint64 span = (gint64) ((double) duration / exp2 (zoom));
      gint64 start = (gint64) g_rand_double_range (rand, 0, (double) MAX (duration - span, 1));
      cairo_t *cr;
      gint64 t_begin, t_end;
      double c_begin, c_end;

      cp_view_state_set_visible_range (view, start, start + span);
      t_begin = g_get_monotonic_time ();
      c_begin = process_cpu_ms ();
      cr = cairo_create (surface);
      cp_painter_draw (painter, cr, view, layout, width, height, CP_PAINT_ALL);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      t_end = g_get_monotonic_time ();
      c_end = process_cpu_ms ();
      /* The first frame warms the caches and is not counted. */
      if (i > 0)
        {
          const CpPaintStats *st = cp_painter_get_stats (painter);

          ms[i - 1] = (double) (t_end - t_begin) / 1000.0;
          cpu[i - 1] = c_end - c_begin;
          if (g_getenv ("BENCH_VERBOSE"))
            g_print ("    %.3f ms  %.1f ns/px  %u slices %u columns %u rects %u labels\n", ms[i - 1],
                     (double) span / area_w, st->slices, st->columns, st->rects, st->labels);
          slices += st->slices;
          columns += st->columns;
          labels += st->labels;
        }
    }
  qsort (ms, frames, sizeof (double), cmp_double);
  qsort (cpu, frames, sizeof (double), cmp_double);
  f.median = percentile (ms, frames, 0.5);
  f.p95 = percentile (ms, frames, 0.95);
  f.p99 = percentile (ms, frames, 0.99);
  f.p999 = percentile (ms, frames, 0.999);
  f.cpu_median = percentile (cpu, frames, 0.5);
  f.cpu_p95 = percentile (cpu, frames, 0.95);
  g_print ("  frames %u  wall: median %.2f ms  p95 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms;"
           "  CPU: median %.2f ms  p95 %.2f ms\n"
           "  per frame: %" G_GUINT64_FORMAT " slices drawn one by one, %" G_GUINT64_FORMAT " coverage columns, %" G_GUINT64_FORMAT " labels\n",
           frames, f.median, f.p95, f.p99, f.p999, ms[frames - 1], f.cpu_median, f.cpu_p95,
           slices / frames, columns / frames, labels / frames);

  cp_timeline_layout_unref (layout);
  g_rand_free (rand);
  cairo_surface_destroy (surface);
  cp_painter_free (painter);
  return f;
}

static gboolean
write_png (CpTrace    *trace,
           const char *path,
           const char *range,
           int         width,
           int         height,
           gboolean    dark)
{
  g_autoptr(CpViewState) view = cp_view_state_new ();
  CpPainter *painter = cp_painter_new ();
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);
  cairo_status_t status;

  cp_painter_set_theme (painter, dark ? CP_THEME_DARK : CP_THEME_LIGHT);
  cp_view_state_set_viewport_width (view, width - cp_painter_get_metrics (painter)->gutter_width);
  cp_view_state_set_trace (view, trace);
  if (range)
    {
      gint64 a = g_ascii_strtoll (range, NULL, 10);
      const char *colon = strchr (range, ':');
      gint64 b = colon ? g_ascii_strtoll (colon + 1, NULL, 10) : a;

      cp_view_state_set_visible_range (view, a, b);
    }
  cp_painter_draw (painter, cr, view, NULL, width, height, CP_PAINT_ALL);
  cairo_destroy (cr);
  status = cairo_surface_write_to_png (surface, path);
  cairo_surface_destroy (surface);
  cp_painter_free (painter);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_printerr ("%s: %s\n", path, cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) ctx = g_option_context_new ("- timeline frame times");
  g_autoptr(GError) error = NULL;
  g_autofree char *sizes = NULL;
  g_autofree char *png = NULL;
  g_autofree char *range = NULL;
  g_auto(GStrv) parts = NULL;
  int frames = 200, width = 1920, height = 1080, threads = 0;
  gboolean dark = FALSE;
  double first_p99 = 0, first_median = 0, first_cpu = 0, zoom = NAN;
  GOptionEntry entries[] = {
    { "frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames per capture (200)", "N" },
    { "sizes", 's', 0, G_OPTION_ARG_STRING, &sizes, "Slice counts (1000000,10000000)", "N,N" },
    { "width", 'w', 0, G_OPTION_ARG_INT, &width, "Frame width (1920)", "PX" },
    { "height", 'h', 0, G_OPTION_ARG_INT, &height, "Frame height (1080)", "PX" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
    { "png", 0, 0, G_OPTION_ARG_FILENAME, &png, "Write one frame of the first size to a PNG", "FILE" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range, "Visible range for --png, ns from the start", "A:B" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads,
      "Threads that walk a frame's rows (0, the default: one per processor)", "N" },
    { "zoom", 'z', 0, G_OPTION_ARG_DOUBLE, &zoom,
      "Draw every frame this many halvings in from the whole capture (0: all of it), at random offsets", "Z" },
    { NULL }
  };

  /* Option help and figures in the user's character set (…, —, µ);
   * numbers stay in the C locale, so the files written stay valid. */
  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (frames < 1 || width < 300 || height < 100 || threads < 0)
    {
      g_printerr ("bad --frames, --width, --height or --threads\n");
      return 2;
    }
  if (!isnan (zoom) && !(zoom >= 0))
    {
      g_printerr ("bad --zoom %g: halvings in from the whole capture, 0 or more\n", zoom);
      return 2;
    }
  parts = g_strsplit (sizes ? sizes : "1000000,10000000", ",", -1);

  for (guint i = 0; parts[i]; i++)
    {
      guint64 target = g_ascii_strtoull (parts[i], NULL, 10);
      g_autoptr(CpTrace) trace = NULL;
      gint64 t0, t1;
      CpLod *lod;
      Figures f;

      if (target == 0)
        continue;
      t0 = g_get_monotonic_time ();
      trace = cp_synth_trace_new (target, 7, &error);
      if (trace == NULL)
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      t1 = g_get_monotonic_time ();
      if (png)
        return write_png (trace, png, range, width, height, dark) ? 0 : 1;

      g_print ("capture: %" G_GUINT64_FORMAT " slices, %u lanes, %.3f s long, model %.1f MB (built in %.2f s)\n",
               cp_trace_get_n_slices (trace), cp_trace_get_n_lanes (trace),
               (double) cp_trace_get_duration (trace) / 1e9,
               cp_trace_get_memory_size (trace) / 1e6, (t1 - t0) / 1e6);
      t0 = g_get_monotonic_time ();
      lod = cp_lod_ensure (trace);
      t1 = g_get_monotonic_time ();
      g_print ("  LOD index: %.1f MB (%.1f bytes per slice, %.1f%% of the model), built in %.0f ms\n",
               cp_lod_get_memory_size (lod) / 1e6,
               (double) cp_lod_get_memory_size (lod) / (double) MAX (cp_trace_get_n_slices (trace), 1),
               100.0 * cp_lod_get_memory_size (lod) / (double) MAX (cp_trace_get_memory_size (trace), 1),
               (t1 - t0) / 1e3);
      f = bench_trace (trace, frames, width, height, dark, zoom, (guint) threads, 1234);
      if (i == 0)
        {
          first_median = f.median;
          first_cpu = f.cpu_median;
          first_p99 = f.p99;
        }
      else
        {
          g_print ("  median ratio to the first size: wall %.2f, CPU %.2f (target <= 1.5); target median <= 16 ms\n",
                   f.median / MAX (first_median, 1e-9), f.cpu_median / MAX (first_cpu, 1e-9));
          g_print ("  p99 ratio to the first size: %.2f (target <= 1.2); target p99 <= 16 ms: %s\n",
                   f.p99 / MAX (first_p99, 1e-9), f.p99 <= 16.0 ? "met" : "NOT met");
        }
    }
  return 0;
}
