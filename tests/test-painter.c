/* test-painter.c: pixels drawn by the timeline painter on a tiny trace
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <cairo.h>
#ifdef CAIRO_HAS_SCRIPT_SURFACE
#include <cairo-script.h>
#endif

#include "model/cp-trace-builder.h"
#include "render/cp-palette.h"
#include "render/cp-painter.h"
#include "render/cp-painter-private.h"

#define WIDTH   1216     /* gutter 216 + 1000 columns */
#define HEIGHT  400

typedef struct
{
  CpTrace    *trace;
  guint       host;       /* lanes */
  guint       kernel;
  guint       dense;
  guint       htod;
  CpSliceRef  launch;
  CpSliceRef  gemm;
  CpSliceRef  pageable;
  CpSliceRef  pinned;
} Fixture;

static CpSliceRef
add (CpTraceBuilder *b,
     guint           lane,
     gint64          start,
     gint64          dur,
     const char     *name,
     gint64          corr,
     guint16         flags)
{
  CpSliceInit init;

  cp_slice_init_clear (&init);
  init.start = start;
  init.dur = dur;
  init.name = cp_trace_builder_intern (b, name, -1);
  init.corr = corr;
  init.flags = flags;
  return cp_trace_builder_add_slice (b, lane, &init);
}

static guint
lane_named (CpTrace    *trace,
            const char *name)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      if (g_strcmp0 (cp_lane_get_name (cp_trace_get_lane (trace, i)), name) == 0)
        return i;
    }
  g_assert_not_reached ();
  return 0;
}

static CpSliceRef
slice_named (CpTrace    *trace,
             guint       lane,
             const char *name)
{
  const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, lane));

  for (guint i = 0; i < s->n; i++)
    {
      if (g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name) == 0)
        return (CpSliceRef) { lane, i };
    }
  g_assert_not_reached ();
  return CP_SLICE_REF_NONE;
}

/* Times in ns; the views used are [0, 1 ms) at 1000 ns per pixel or the whole
 * 10 s. */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint host = cp_trace_builder_process_for_pid (b, 100);
  guint l;
  CpProcess *p = cp_trace_builder_get_process (b, gpu);

  p->is_device = TRUE;
  p->device = 0;

  l = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 100, 0 });
  cp_trace_builder_set_lane_name (b, l, "host");
  add (b, l, 0, 10 * CP_NS_PER_S, "whole", CP_NONE, 0);
  add (b, l, 40000, 10000, "cudaLaunchKernel", 77, 0);

  l = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  cp_trace_builder_set_lane_name (b, l, "kernels");
  /* 20 us at 1000 ns/px: 20 px wide, too narrow for a label. */
  add (b, l, 60000, 20000, "gemm", 77, 0);
  /* The lone 1 ns kernel, at 5 s. */
  add (b, l, 5 * CP_NS_PER_S, 1, "tiny", CP_NONE, 0);

  l = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 8, 0 });
  cp_trace_builder_set_lane_name (b, l, "dense");
  /* Column 137: ten 50 ns slices (half covered); column 251: twenty (all
   * covered); column 333: one 1 ns slice. */
  for (guint i = 0; i < 10; i++)
    add (b, l, 137000 + i * 100, 50, "small", CP_NONE, 0);
  for (guint i = 0; i < 20; i++)
    add (b, l, 251000 + i * 50, 50, "small", CP_NONE, 0);
  add (b, l, 333500, 1, "small", CP_NONE, 0);

  l = cp_trace_builder_lane (b, gpu, CP_LANE_TRANSFER, (CpLaneKey) { CP_TRANSFER_HTOD, 0 });
  cp_trace_builder_set_lane_transfer_kind (b, l, CP_TRANSFER_HTOD);
  cp_trace_builder_set_lane_name (b, l, "htod");
  add (b, l, 400000, 20000, "Memcpy HtoD (Pageable -> Device)", CP_NONE, CP_SLICE_PAGEABLE);
  add (b, l, 500000, 20000, "Memcpy HtoD (Pinned -> Device)", CP_NONE, CP_SLICE_PINNED);

  f->trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  f->host = lane_named (f->trace, "host");
  f->kernel = lane_named (f->trace, "kernels");
  f->dense = lane_named (f->trace, "dense");
  f->htod = lane_named (f->trace, "htod");
  f->launch = slice_named (f->trace, f->host, "cudaLaunchKernel");
  f->gemm = slice_named (f->trace, f->kernel, "gemm");
  f->pageable = slice_named (f->trace, f->htod, "Memcpy HtoD (Pageable -> Device)");
  f->pinned = slice_named (f->trace, f->htod, "Memcpy HtoD (Pinned -> Device)");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_finalize_object (f->trace);
}

static CpViewState *
make_view (Fixture *f,
           gint64   start,
           gint64   end)
{
  CpViewState *view = cp_view_state_new ();

  cp_view_state_set_viewport_width (view, WIDTH - 216);
  cp_view_state_set_trace (view, f->trace);
  cp_view_state_set_visible_range (view, start, end);
  g_assert_cmpint (cp_view_state_get_visible_start (view), ==, start);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, end);
  return view;
}

static cairo_surface_t *
render (CpPainter   *painter,
        CpViewState *view)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create (surface);

  g_assert_cmpfloat (cp_painter_get_metrics (painter)->gutter_width, ==, 216);
  cp_painter_draw (painter, cr, view, NULL, WIDTH, HEIGHT, CP_PAINT_ALL);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* The pixel at (x, y) as 0xRRGGBBAA, un-premultiplied. */
static guint32
pixel (cairo_surface_t *s,
       int              x,
       int              y)
{
  const guchar *data = cairo_image_surface_get_data (s);
  guint32 v = *(const guint32 *) (gconstpointer) (data + y * cairo_image_surface_get_stride (s) + x * 4);
  guint a = v >> 24, r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, b = v & 0xff;

  if (a > 0 && a < 255)
    {
      r = r * 255 / a;
      g = g * 255 / a;
      b = b * 255 / a;
    }
  return r << 24 | g << 16 | b << 8 | a;
}

static double
lane_row_middle (CpPainter   *painter,
                 CpViewState *view,
                 guint        lane)
{
  g_autoptr(CpTimelineLayout) layout = cp_timeline_layout_new (view, cp_painter_get_metrics (painter));
  gint item = cp_timeline_layout_find_lane (layout, lane);

  g_assert_cmpint (item, >=, 0);
  return cp_timeline_layout_row_y (layout, item, 0, 0) + cp_painter_get_metrics (painter)->row_height / 2;
}

static void
test_known_kernel (Fixture       *f,
                   gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  cairo_surface_t *s;
  double x, y, w, h;
  guint32 gemm = cp_palette_name_color (CP_THEME_LIGHT, "gemm");
  int ym = (int) lane_row_middle (painter, view, f->kernel);
  int yh = (int) lane_row_middle (painter, view, f->dense);

  s = render (painter, view);
  /* gemm: 60..80 us -> columns 60..80 of the time area. */
  g_assert_true (cp_painter_slice_rect (painter, view, NULL, WIDTH, HEIGHT, f->gemm, &x, &y, &w, &h));
  g_assert_cmpfloat (x, ==, 216 + 60);
  g_assert_cmpfloat (w, ==, 20);
  g_assert_cmpfloat (y + h / 2, ==, lane_row_middle (painter, view, f->kernel) - 0.5);
  for (int px = 216 + 60; px < 216 + 79; px++)
    g_assert_cmphex (pixel (s, px, ym), ==, gemm);
  /* Before and after it: the lane's background. */
  g_assert_cmphex (pixel (s, 216 + 57, ym), ==, 0xffffffff);
  g_assert_cmphex (pixel (s, 216 + 83, ym), ==, 0xffffffff);
  /* Not in another lane. */
  g_assert_cmphex (pixel (s, 216 + 70, yh), !=, gemm);
  g_assert_cmpuint (cp_painter_get_stats (painter)->slices, >=, 1);
  cairo_surface_destroy (s);

  /* Selected: an accent ring around it, the fill unchanged inside. */
  cp_view_state_set_selected (view, f->gemm);
  s = render (painter, view);
  g_assert_cmphex (pixel (s, 216 + 58, ym), ==, cp_palette_get_colors (CP_THEME_LIGHT)->accent);
  g_assert_cmphex (pixel (s, 216 + 81, ym), ==, cp_palette_get_colors (CP_THEME_LIGHT)->accent);
  g_assert_cmphex (pixel (s, 216 + 70, ym), ==, gemm);
  /* Its flow from the launch is drawn. */
  g_assert_cmpuint (cp_painter_get_stats (painter)->flows, ==, 1);
  cairo_surface_destroy (s);

  /* Show All Flows, nothing selected: the one flow in view, drawn once
   * (found from its start's lane, not again from its end's). */
  cp_view_state_set_selected (view, CP_SLICE_REF_NONE);
  cp_view_state_set_show_all_flows (view, TRUE);
  s = render (painter, view);
  g_assert_cmpuint (cp_painter_get_stats (painter)->flows, ==, 1);
  cairo_surface_destroy (s);

  cp_painter_free (painter);
}

static void
test_light_dark (Fixture       *f,
                 gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  int ym = (int) lane_row_middle (painter, view, f->kernel);
  cairo_surface_t *light, *dark;
  guint32 lb, db, lg, dg;

  light = render (painter, view);
  cp_painter_set_theme (painter, CP_THEME_DARK);
  dark = render (painter, view);

  lb = pixel (light, 216 + 550, ym);
  db = pixel (dark, 216 + 550, ym);
  g_assert_cmphex (lb, ==, cp_palette_get_colors (CP_THEME_LIGHT)->background);
  g_assert_cmphex (db, ==, cp_palette_get_colors (CP_THEME_DARK)->background);
  /* A light background is light, a dark one dark. */
  g_assert_cmpfloat (cp_palette_luminance (lb), >, 0.8);
  g_assert_cmpfloat (cp_palette_luminance (db), <, 0.05);

  /* The same name keeps its hue family but is dimmed on dark, and stands
   * out from each background. */
  lg = pixel (light, 216 + 70, ym);
  dg = pixel (dark, 216 + 70, ym);
  g_assert_cmphex (lg, ==, cp_palette_name_color (CP_THEME_LIGHT, "gemm"));
  g_assert_cmphex (dg, ==, cp_palette_name_color (CP_THEME_DARK, "gemm"));
  g_assert_cmphex (lg, !=, dg);
  g_assert_cmpfloat (cp_palette_luminance (dg), <, cp_palette_luminance (lg));
  g_assert_cmpfloat (cp_palette_contrast (dg, db), >, 1.5);
  g_assert_cmpfloat (cp_palette_contrast (lg, lb), >, 1.5);
  /* The gutter differs too. */
  g_assert_cmphex (pixel (light, 2, ym), !=, pixel (dark, 2, ym));

  cairo_surface_destroy (light);
  cairo_surface_destroy (dark);
  cp_painter_free (painter);
}

static void
test_lone_tiny_slice (Fixture       *f,
                      gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, 10 * CP_NS_PER_S);
  int ym = (int) lane_row_middle (painter, view, f->kernel);
  cairo_surface_t *s = render (painter, view);
  guint32 bg = cp_palette_get_colors (CP_THEME_LIGHT)->background;
  guint32 p;

  /* 1 ns at 5 s in a 10 s view over 1000 px: column 500 is marked, clearly
   * (at least 45% of the density colour over white), its neighbours not. */
  p = pixel (s, 216 + 500, ym);
  g_assert_cmphex (p, !=, bg);
  g_assert_cmpuint (p >> 24, <, 0xff - 70);
  g_assert_cmphex (pixel (s, 216 + 502, ym), ==, bg);
  g_assert_cmphex (pixel (s, 216 + 497, ym), ==, bg);
  /* gemm, launch and the rest are slivers too, never lost. */
  g_assert_cmphex (pixel (s, 216 + 0, ym), !=, bg);
  cairo_surface_destroy (s);
  cp_painter_free (painter);
}

static double
coverage_at (cairo_surface_t *s,
             int              x,
             int              y)
{
  /* Density colour composited over white: recover its opacity from the red
   * channel, then the coverage from the opacity. */
  guint32 density = cp_palette_get_colors (CP_THEME_LIGHT)->density[CP_LANE_KERNEL];
  double r = (pixel (s, x, y) >> 24) & 0xff, dr = (density >> 24) & 0xff;
  double a = (255 - r) / (255 - dr);

  return (a - 0.45) / (1 - 0.45);
}

static void
test_coverage_columns (Fixture       *f,
                       gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  int ym = (int) lane_row_middle (painter, view, f->dense);
  cairo_surface_t *s = render (painter, view);

  /* Each column shows the union of the slices under it. */
  g_assert_cmpfloat (fabs (coverage_at (s, 216 + 137, ym) - 0.5), <, 0.02);
  g_assert_cmpfloat (fabs (coverage_at (s, 216 + 251, ym) - 1.0), <, 0.02);
  g_assert_cmpfloat (fabs (coverage_at (s, 216 + 333, ym) - 0.001), <, 0.02);
  g_assert_cmphex (pixel (s, 216 + 136, ym), ==, 0xffffffff);
  g_assert_cmphex (pixel (s, 216 + 138, ym), ==, 0xffffffff);
  g_assert_cmpuint (cp_painter_get_stats (painter)->columns, >=, 3);
  cairo_surface_destroy (s);
  cp_painter_free (painter);
}

static void
test_transfers (Fixture       *f,
                gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  double y = lane_row_middle (painter, view, f->htod);
  cairo_surface_t *s = render (painter, view);
  guint32 htod = cp_palette_transfer_color (CP_THEME_LIGHT, CP_TRANSFER_HTOD);
  guint n_other = 0;

  /* Coloured by direction, not by name; the pageable one is hatched. */
  g_assert_cmphex (cp_palette_transfer_color (CP_THEME_LIGHT, CP_TRANSFER_HTOD), !=,
                   cp_palette_transfer_color (CP_THEME_LIGHT, CP_TRANSFER_DTOH));
  for (int px = 216 + 500; px < 216 + 519; px++)
    for (int py = (int) y - 6; py <= (int) y + 6; py++)
      g_assert_cmphex (pixel (s, px, py), ==, htod);
  for (int px = 216 + 400; px < 216 + 419; px++)
    for (int py = (int) y - 6; py <= (int) y + 6; py++)
      {
        guint32 p = pixel (s, px, py);

        if (p != htod)
          n_other++;
      }
  g_assert_cmpuint (n_other, >, 20);
  cairo_surface_destroy (s);
  cp_painter_free (painter);
}

static void
test_highlights_search_marks (Fixture       *f,
                              gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  const CpPaletteColors *colors = cp_palette_get_colors (CP_THEME_LIGHT);
  int yk = (int) lane_row_middle (painter, view, f->kernel);
  CpHighlight finding = { f->kernel, 600000, 700000, CP_HIGHLIGHT_FINDING };
  CpMark mark = { 1, CP_LANE_ALL, CP_SLICE_REF_NONE, 800000, 800000, 0x33d17aff, "note" };
  cairo_surface_t *s;
  double x, y, w, h;

  cp_view_state_set_highlights (view, CP_HIGHLIGHT_FINDING, &finding, 1);
  cp_view_state_set_search_matches (view, &f->gemm, 1);
  cp_view_state_set_marks (view, &mark, 1);
  s = render (painter, view);

  /* The finding's band tints its lane only, with an outline at its edges. */
  g_assert_cmphex (pixel (s, 216 + 650, yk), !=, 0xffffffff);
  g_assert_cmphex (pixel (s, 216 + 600, yk), ==, colors->finding);
  g_assert_cmphex (pixel (s, 216 + 650, (int) lane_row_middle (painter, view, f->htod)), ==, 0xffffffff);
  /* The search hit is outlined. */
  cp_painter_slice_rect (painter, view, NULL, WIDTH, HEIGHT, f->gemm, &x, &y, &w, &h);
  g_assert_cmphex (pixel (s, (int) x + 1, yk), ==, colors->search);
  /* The mark is a line across every lane in its colour. */
  g_assert_cmphex (pixel (s, 216 + 799, yk), ==, 0x33d17aff);
  g_assert_cmphex (pixel (s, 216 + 799, (int) lane_row_middle (painter, view, f->htod)), ==, 0x33d17aff);
  cairo_surface_destroy (s);
  cp_painter_free (painter);
}

/* A note's label on the ruler leaves the ticks and their times in sight:
 * every ruler pixel that a tick or its time draws without the note is the
 * same with it, but for the flag itself. Marks just right of a tick (over
 * its time) and just left of the next (its label would cross the tick). */
static void
test_mark_label_keeps_ticks (Fixture       *f,
                             gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  const CpPaletteColors *colors = cp_palette_get_colors (CP_THEME_LIGHT);
  int rh = (int) cp_painter_get_metrics (painter)->ruler_height;
  const gint64 at[] = { 203000, 385000, 611000 };
  cairo_surface_t *plain = render (painter, view);

  for (guint k = 0; k < G_N_ELEMENTS (at); k++)
    {
      CpMark mark = { 1, CP_LANE_ALL, CP_SLICE_REF_NONE, at[k], at[k], 0x33d17aff,
                      "a note with a long label that would cross several ticks" };
      cairo_surface_t *s;
      int fx = 216 + (int) (at[k] / 1000);
      guint covered = 0, drawn = 0;
      gboolean label_seen = FALSE;

      cp_view_state_set_marks (view, &mark, 1);
      s = render (painter, view);
      for (int y = 0; y < rh; y++)
        for (int x = 216; x < WIDTH; x++)
          {
            guint32 p = pixel (plain, x, y);

            if (pixel (s, x, y) == 0x33d17aff)
              label_seen = TRUE;
            if (p == colors->header || ABS (x - fx) <= 6)
              continue;
            drawn++;
            if (pixel (s, x, y) != p)
              {
                g_test_message ("mark %u: (%d, %d) was %08x, is %08x", k, x, y, p, pixel (s, x, y));
                covered++;
              }
          }
      g_assert_true (label_seen);
      g_assert_cmpuint (drawn, >, 100);
      g_assert_cmpuint (covered, ==, 0);
      cairo_surface_destroy (s);
    }
  cairo_surface_destroy (plain);
  cp_painter_free (painter);
}

static void
test_collapsed_group (Fixture       *f,
                      gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  g_autoptr(CpTimelineLayout) layout = NULL;
  guint gpu = cp_lane_get_process (cp_trace_get_lane (f->trace, f->kernel));
  double y, h;
  gint g;
  cairo_surface_t *s;

  cp_view_state_set_group_collapsed (view, gpu, TRUE);
  layout = cp_timeline_layout_new (view, cp_painter_get_metrics (painter));
  g = cp_timeline_layout_find_group (layout, gpu);
  cp_timeline_layout_item_rect (layout, g, 0, HEIGHT, &y, &h);
  s = cp_painter_slice_rect (painter, view, layout, WIDTH, HEIGHT, f->gemm, NULL, NULL, NULL, NULL)
      ? NULL : render (painter, view);
  g_assert_nonnull (s);
  /* The header summarises its lanes: gemm's columns are busy, others not. */
  g_assert_cmphex (pixel (s, 216 + 70, (int) (y + h / 2)), !=, cp_palette_get_colors (CP_THEME_LIGHT)->header);
  g_assert_cmphex (pixel (s, 216 + 90, (int) (y + h / 2)), ==, cp_palette_get_colors (CP_THEME_LIGHT)->header);
  cairo_surface_destroy (s);
  cp_painter_free (painter);
}

typedef struct
{
  CpViewState     *view;
  cairo_surface_t *surface;
} ThreadJob;

static gpointer
draw_in_thread (gpointer data)
{
  ThreadJob *job = data;
  CpPainter *painter = cp_painter_new ();

  job->surface = render (painter, job->view);
  cp_painter_free (painter);
  cp_painter_release_thread_fonts ();
  return NULL;
}

static void
test_worker_thread (Fixture       *f,
                    gconstpointer  data)
{
  CpPainter *painter = cp_painter_new ();
  g_autoptr(CpViewState) view = make_view (f, 0, CP_NS_PER_MS);
  ThreadJob job;
  GThread *thread;
  cairo_surface_t *here;
  int stride;

  cp_view_state_set_selected (view, f->gemm);
  here = render (painter, view);

  /* A frozen copy drawn by a worker gives the same image, while the
   * original moves on. */
  job.view = cp_view_state_copy (view);
  job.surface = NULL;
  thread = g_thread_new ("painter", draw_in_thread, &job);
  cp_view_state_zoom (view, 0.5, 0);
  cp_view_state_set_selected (view, CP_SLICE_REF_NONE);
  g_thread_join (thread);

  stride = cairo_image_surface_get_stride (here);
  g_assert_cmpmem (cairo_image_surface_get_data (here), stride * HEIGHT,
                   cairo_image_surface_get_data (job.surface), stride * HEIGHT);
  cairo_surface_destroy (job.surface);
  cairo_surface_destroy (here);
  g_object_unref (job.view);
  cp_painter_free (painter);
}


/* A counter lane of 200,000 samples over 10 s, in bursts, a few of them not
 * numbers (which the builder skips), beside a lane of kernels. */
static CpTrace *
make_counter_trace (guint *counter)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint gpu = cp_trace_builder_process_for_pid (b, 0), k, c;
  GRand *rand = g_rand_new_with_seed (31);
  CpTrace *trace;
  double v = 500;

  cp_trace_builder_get_process (b, gpu)->is_device = TRUE;
  k = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  cp_trace_builder_set_lane_name (b, k, "kernels");
  for (guint i = 0; i < 20000; i++)
    add (b, k, (gint64) i * 500000, 200000, "gemm", CP_NONE, 0);
  c = cp_trace_builder_lane (b, gpu, CP_LANE_COUNTER, (CpLaneKey) { 0, cp_trace_builder_intern (b, "mem", -1) });
  cp_trace_builder_set_lane_name (b, c, "memory");
  for (guint i = 0; i < 200000; i++)
    {
      /* Uneven: bursts of close samples, then gaps; a random walk with a
       * rare spike. */
      gint64 t = (gint64) i * 50000 + (i % 1000 < 500 ? 0 : 20000) + g_rand_int_range (rand, 0, 20000);

      v += g_rand_double_range (rand, -10, 10);
      cp_trace_builder_add_counter (b, c, t, i % 7919 == 0 ? NAN : i % 50021 == 0 ? v + 400 : v);
    }
  g_rand_free (rand);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  *counter = lane_named (trace, "memory");
  return trace;
}

/* Each column's bar reaches the largest value in it (the one in effect
 * when it starts, and every sample inside), counted here sample by sample:
 * its top is in the line's colour, and so is the step from the column
 * before, and nothing above. */
static void
check_counter_columns (CpTrace         *trace,
                       guint            lane,
                       CpViewState     *view,
                       CpPainter       *painter,
                       cairo_surface_t *s)
{
  g_autoptr(CpTimelineLayout) layout = cp_timeline_layout_new (view, cp_painter_get_metrics (painter));
  gint item = cp_timeline_layout_find_lane (layout, lane);
  gint64 t0 = cp_view_state_get_visible_start (view), t1 = cp_view_state_get_visible_end (view);
  double ns_per_px = (double) (t1 - t0) / (WIDTH - 216);
  const gint64 *ts;
  const double *values;
  guint n = cp_lane_get_counter (cp_trace_get_lane (trace, lane), &ts, &values), k = 0;
  double y, h, vmin = INFINITY, vmax = -INFINITY, lo, hi, bottom, carry = NAN;
  guint32 line = cp_palette_get_colors (CP_THEME_LIGHT)->counter;
  gint prev_top = -1, bars = 0, steps = 0;

  g_assert_cmpint (item, >=, 0);
  g_assert_true (cp_timeline_layout_item_rect (layout, item, 0, HEIGHT, &y, &h));
  for (guint i = 0; i < n; i++)
    if (!isnan (values[i]))
      {
        vmin = MIN (vmin, values[i]);
        vmax = MAX (vmax, values[i]);
      }
  lo = MIN (0, vmin);
  hi = vmax > lo ? vmax : lo + 1;
  bottom = floor (y + h - 2);
  while (k < n && ts[k] <= t0)
    carry = values[k++];
  for (gint c = 0; c < WIDTH - 216; c++)
    {
      gint64 c1 = t0 + (gint64) floor ((c + 1) * ns_per_px);
      double m = carry;
      gint top = -1, first_line = -1;

      while (k < n && ts[k] < MIN (c1, t1))
        {
          if (!isnan (values[k]))
            m = isnan (m) ? values[k] : MAX (m, values[k]);
          carry = values[k++];
        }
      if (!isnan (m))
        top = (gint) floor (bottom - (m - lo) / (hi - lo) * (h - 6) + 0.5);
      for (gint py = (gint) ceil (y); py <= (gint) bottom; py++)
        if (pixel (s, 216 + c, py) == line)
          {
            first_line = py;
            break;
          }
      if (top < 0)
        g_assert_cmpint (first_line, ==, -1);
      else
        {
          g_assert_cmpuint (pixel (s, 216 + c, top), ==, line);
          g_assert_cmpint (first_line, ==, prev_top >= 0 ? MIN (top, prev_top) : top);
          /* Under the line, the fill, down to the bottom. */
          if (top + 1 < bottom && (prev_top < 0 || prev_top <= top))
            g_assert_cmpuint (pixel (s, 216 + c, top + 1), !=, line);
          bars++;
          steps += prev_top >= 0 && prev_top != top;
        }
      prev_top = top;
    }
  g_assert_cmpint (bars, >, 900);
  g_assert_cmpint (steps, >, 10);
}

#ifdef CAIRO_HAS_SCRIPT_SURFACE
static cairo_status_t
discard_write (void                *closure,
               const unsigned char *data,
               unsigned int         length)
{
  return CAIRO_STATUS_SUCCESS;
}
#endif

static void
test_counter (void)
{
  guint lane;
  CpTrace *trace = make_counter_trace (&lane);
  CpPainter *painter = cp_painter_new ();
  gint64 dur = cp_trace_get_duration (trace);
  gint64 ranges[][2] = { { 0, dur }, { dur / 3, dur / 3 + dur / 40 }, { dur / 2, dur / 2 + 20000000 } };

  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      CpViewState *view = cp_view_state_new ();
      cairo_surface_t *image;

      cp_view_state_set_viewport_width (view, WIDTH - 216);
      cp_view_state_set_trace (view, trace);
      cp_view_state_set_visible_range (view, ranges[r][0], ranges[r][1]);
      image = render (painter, view);
      check_counter_columns (trace, lane, view, painter, image);

      /* Rows walked on one thread, on several, or all on helpers: the same
       * pixels. */
      for (guint threads = 1; threads <= 9; threads += 4)
        {
          CpPainter *other = cp_painter_new ();
          cairo_surface_t *again;

          cp_painter_set_threads (other, MIN (threads, 5));
          cp_painter_set_helpers_only (other, threads == 9);
          again = render (other, view);
          g_assert_cmpmem (cairo_image_surface_get_data (image), cairo_image_surface_get_stride (image) * HEIGHT,
                           cairo_image_surface_get_data (again), cairo_image_surface_get_stride (again) * HEIGHT);
          g_assert_cmpuint (cp_painter_get_stats (other)->columns, ==, cp_painter_get_stats (painter)->columns);
          g_assert_cmpuint (cp_painter_get_stats (other)->slices, ==, cp_painter_get_stats (painter)->slices);
          cairo_surface_destroy (again);
          cp_painter_free (other);
        }

#ifdef CAIRO_HAS_SCRIPT_SURFACE
      {
        /* A vector target gets rectangles instead of one image: drawn
         * through a script surface that forwards to an image, every pixel
         * is the same. */
        cairo_device_t *script = cairo_script_create_for_stream (discard_write, NULL);
        cairo_surface_t *target = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
        cairo_surface_t *proxy = cairo_script_surface_create_for_target (script, target);
        cairo_t *cr = cairo_create (proxy);
        int stride = cairo_image_surface_get_stride (image);

        g_assert_cmpint (cairo_surface_get_type (cairo_get_target (cr)), ==, CAIRO_SURFACE_TYPE_SCRIPT);
        cp_painter_draw (painter, cr, view, NULL, WIDTH, HEIGHT, CP_PAINT_ALL);
        g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
        cairo_destroy (cr);
        cairo_surface_finish (proxy);
        cairo_surface_destroy (proxy);
        cairo_device_finish (script);
        cairo_device_destroy (script);
        cairo_surface_flush (target);
        g_assert_cmpmem (cairo_image_surface_get_data (image), stride * HEIGHT,
                         cairo_image_surface_get_data (target), stride * HEIGHT);
        cairo_surface_destroy (target);
      }
#endif
      cairo_surface_destroy (image);
      g_object_unref (view);
    }
  cp_painter_free (painter);
  g_assert_finalize_object (trace);
}

static void
test_palette (void)
{
  guint n = cp_palette_get_n_name_colors ();
  guint32 v;

  /* Stable and digit-blind. */
  g_assert_cmphex (cp_palette_name_color (CP_THEME_LIGHT, "ProfilerStep#12"), ==,
                   cp_palette_name_color (CP_THEME_LIGHT, "ProfilerStep#13"));
  g_assert_cmpuint (cp_palette_name_index ("aten::mm"), ==, cp_palette_name_index ("aten::mm"));
  /* Every colour readable: its text colour contrasts by 4.5:1 or more in
   * both styles, and the colours are distinct. */
  for (guint i = 0; i < n; i++)
    for (CpTheme t = CP_THEME_LIGHT; t <= CP_THEME_DARK; t++)
      {
        guint32 c = cp_palette_indexed_color (t, i);

        g_assert_cmpfloat (cp_palette_contrast (c, cp_palette_text_on (c) | 0xff), >=, 4.5);
        for (guint j = 0; j < i; j++)
          g_assert_cmphex (c, !=, cp_palette_indexed_color (t, j));
      }
  /* Names spread over the palette. */
  {
    guint used[64] = { 0 };
    guint distinct = 0;

    for (guint i = 0; i < 200; i++)
      {
        g_autofree char *name = g_strdup_printf ("kernel_%c%c", 'a' + i % 26, 'a' + i / 26);

        used[cp_palette_name_index (name)]++;
      }
    for (guint i = 0; i < n; i++)
      distinct += used[i] > 0;
    g_assert_cmpuint (distinct, ==, n);
  }
  g_assert_true (cp_rgba_parse ("#1c71d8", &v));
  g_assert_cmphex (v, ==, 0x1c71d8ff);
  g_assert_true (cp_rgba_parse ("#1c71d880", &v));
  g_assert_cmphex (v, ==, 0x1c71d880);
  g_assert_false (cp_rgba_parse ("1c71d8", &v));
  g_assert_false (cp_rgba_parse ("#1c71d", &v));
  g_assert_false (cp_rgba_parse ("#1c71dz", &v));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/painter/known-kernel", test_known_kernel);
  ADD ("/painter/light-dark", test_light_dark);
  ADD ("/painter/lone-tiny-slice", test_lone_tiny_slice);
  ADD ("/painter/coverage-columns", test_coverage_columns);
  ADD ("/painter/transfers", test_transfers);
  ADD ("/painter/highlights-search-marks", test_highlights_search_marks);
  ADD ("/painter/collapsed-group", test_collapsed_group);
  ADD ("/painter/mark-label-keeps-ticks", test_mark_label_keeps_ticks);
  ADD ("/painter/worker-thread", test_worker_thread);
#undef ADD
  g_test_add_func ("/painter/palette", test_palette);
  g_test_add_func ("/painter/counter", test_counter);

  return g_test_run ();
}
