/* test-report-job.c: the report of a job's ranks (cp_report_new_job(),
 * `chokepoint report A B… | DIR`)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: tests/collective-count.py over the raw events of the real
 * 3-rank gloo run (one clock: arrivals exact), and the truth `cp-gen --job`
 * writes for a job with a known straggler. The heat map is read back from
 * the drawn pixels: each cell's colour is the colour of the oracle's delay.
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#include "analysis/cp-job.h"
#include "cp-test-util.h"
#include "render/cp-report.h"

/* The opaque pixel at (x, y) as 0xRRGGBBAA. */
static guint32
pixel_at (cairo_surface_t *s,
          double           x,
          double           y)
{
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  guint32 argb;

  cairo_surface_flush (s);
  memcpy (&argb, data + (int) y * stride + (int) x * 4, 4);
  return (argb << 8) | 0xff;
}

static int
channel_distance (guint32 a,
                  guint32 b)
{
  int d = 0;

  for (int shift = 8; shift <= 24; shift += 8)
    d = MAX (d, ABS ((int) ((a >> shift) & 0xff) - (int) ((b >> shift) & 0xff)));
  return d;
}

static CpJob *
open_files (GPtrArray *paths)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  CpJobOptions options = { TRUE };
  CpJob *job;

  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (files, g_file_new_for_path (g_ptr_array_index (paths, i)));
  job = cp_job_open ((GFile * const *) files->pdata, files->len, &options, NULL, &error);
  g_assert_no_error (error);
  return job;
}

/* Per collective (in the oracle's order): the arrival of each rank number. */
typedef struct
{
  guint    n_ranks;
  guint    n_collectives;
  gint64  *arrival;   /* [collective * n_ranks + rank] */
  gint64   max_skew;
  gint     straggler; /* the rank whose lateness cost the others the most wait */
} Oracle;

static void
oracle_from_arrays (Oracle    *o,
                    JsonArray *colls,
                    guint      n_ranks)
{
  g_autofree gint64 *caused = g_new0 (gint64, n_ranks);

  o->n_ranks = n_ranks;
  o->n_collectives = json_array_get_length (colls);
  o->arrival = g_new0 (gint64, o->n_collectives * n_ranks);
  o->max_skew = 0;
  for (guint c = 0; c < o->n_collectives; c++)
    {
      JsonArray *arr = json_object_get_array_member (json_array_get_object_element (colls, c), "arrival_ns");
      gint64 lo = G_MAXINT64, hi = G_MININT64;
      guint last = 0;

      g_assert_cmpuint (json_array_get_length (arr), ==, n_ranks);
      for (guint k = 0; k < n_ranks; k++)
        {
          gint64 a = json_array_get_int_element (arr, k);

          o->arrival[c * n_ranks + k] = a;
          lo = MIN (lo, a);
          if (a > hi)
            {
              hi = a;
              last = k;
            }
        }
      o->max_skew = MAX (o->max_skew, hi - lo);
      for (guint k = 0; k < n_ranks; k++)
        caused[last] += hi - o->arrival[c * n_ranks + k];
    }
  o->straggler = 0;
  for (guint k = 1; k < n_ranks; k++)
    if (caused[k] > caused[o->straggler])
      o->straggler = k;
}

static gint64
oracle_delay (const Oracle *o,
              guint         c,
              guint         rank)
{
  gint64 lo = G_MAXINT64;

  for (guint k = 0; k < o->n_ranks; k++)
    lo = MIN (lo, o->arrival[c * o->n_ranks + k]);
  return o->arrival[c * o->n_ranks + rank] - lo;
}

/* Draws the job's report, then checks the straggler named and every cell
 * of the heat map against the oracle; colours within tolerance (0: exact). */
static void
check_report (CpJob        *job,
              const Oracle *o,
              int           tolerance)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpReport) report = NULL;
  g_autofree char *text = NULL, *straggler = NULL;
  cairo_surface_t *image;
  CpJobHeatmap map;
  CpReportOptions options;

  cp_report_options_init (&options);
  options.generated = 1;
  report = cp_report_new_job (job, &options, &error);
  g_assert_no_error (error);
  g_assert_false (cp_report_get_job_heatmap (report, &map));
  image = cp_report_render_image (report, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cp_report_get_job_heatmap (report, &map));
  g_assert_cmpuint (map.n_ranks, ==, o->n_ranks);
  g_assert_cmpuint (map.n_collectives, ==, o->n_collectives);

  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (job, c);

      for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
        {
          gint rank = cp_job_get_rank (job, k)->rank;
          guint32 want = cp_job_chart_heat_color (oracle_delay (o, jc->index, rank), o->max_skew);
          double x, y;

          cp_job_heatmap_cell_center (&map, c, k, &x, &y);
          if (channel_distance (pixel_at (image, x, y), want) > tolerance)
            g_error ("collective %u, rank %d: pixel %08x, oracle's delay %" G_GINT64_FORMAT " ns is %08x", jc->index,
                     rank, pixel_at (image, x, y), oracle_delay (o, jc->index, rank), want);
        }
    }
  cairo_surface_destroy (image);

  text = cp_report_get_text (report, NULL, &error);
  g_assert_no_error (error);
  straggler = g_strdup_printf ("Straggler: rank %d\n", o->straggler);
  g_assert_nonnull (strstr (text, straggler));
}

/* The real run: 3 gloo processes on one machine, rank 2 made slow. */
static void
test_real_gloo (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *dir = cp_test_data_path ("captures/torch-ddp-straggler-gloo-cpu");
  g_autofree char *script = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "collective-count.py", NULL);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(CpJob) job = NULL;
  Oracle o = { 0 };
  int status = 0;

  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  g_ptr_array_add (paths, g_strdup (python));
  g_ptr_array_add (paths, g_strdup (script));
  for (guint k = 0; k < 3; k++)
    g_ptr_array_add (paths, g_strdup_printf ("%s/rank-rank%u.pt.trace.json.gz", dir, k));
  g_ptr_array_add (paths, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) paths->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status,
                               &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  oracle_from_arrays (&o, json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                                         "collectives"), 3);
  g_assert_cmpint (o.straggler, ==, 2);

  g_ptr_array_remove_range (paths, 0, 2);
  g_ptr_array_set_size (paths, 3);
  job = open_files (paths);
  check_report (job, &o, 0);
  g_free (o.arrival);
}

static char *
gen_job (const char *ranks,
         const char *straggler,
         JsonParser *truth)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *truth_path = g_build_filename (dir, "truth.json.txt", NULL);
  g_autofree char *ranks_dir = g_build_filename (dir, "ranks", NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--job", ranks_dir, "--truth", truth_path, "--ranks", ranks,
                         "--straggler", straggler, "--delay", "20000000", NULL };

  cp_test_run_generator (argv, truth_path, truth);
  return g_steal_pointer (&dir);
}

/* A generated job of 8 ranks, rank 5 late by 20 ms at every collective:
 * the generator's true arrivals (the clock alignment is within its
 * latency, far below a colour step). */
static void
test_generated (void)
{
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autofree char *dir = gen_job ("8", "5", truth);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(CpJob) job = NULL;
  JsonObject *t = json_node_get_object (json_parser_get_root (truth));
  Oracle o = { 0 };

  for (guint k = 0; k < 8; k++)
    g_ptr_array_add (paths, g_strdup_printf ("%s/ranks/rank-%u.pt.trace.json", dir, k));
  oracle_from_arrays (&o, json_object_get_array_member (t, "collectives"), 8);
  g_assert_cmpint (o.straggler, ==, json_object_get_int_member (t, "straggler"));
  job = open_files (paths);
  check_report (job, &o, 2);
  g_free (o.arrival);
  cp_test_rm_rf (dir);
}

static int
run_report (const char * const *argv,
            char              **out,
            char              **err)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* `chokepoint report DIR`, `report A B C`: the job's image; a damaged rank
 * is named and the rest drawn; options that make no sense for a job are
 * refused. */
static void
test_cli (void)
{
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autofree char *dir = gen_job ("4", "3", truth);
  g_autofree char *ranks = g_build_filename (dir, "ranks", NULL);
  g_autofree char *png = g_build_filename (dir, "job.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "job.pdf", NULL);
  g_autofree char *r0 = g_build_filename (ranks, "rank-0.pt.trace.json", NULL);
  g_autofree char *r1 = g_build_filename (ranks, "rank-1.pt.trace.json", NULL);
  g_autofree char *bad = NULL;
  g_autofree char *out = NULL, *err = NULL, *contents = NULL;
  gsize len = 0;
  const char *exe = g_getenv ("CP_CHOKEPOINT");

  {
    const char *argv[] = { exe, "report", ranks, "-o", png, NULL };

    g_assert_cmpint (run_report (argv, &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "pixels"));
    g_assert_true (g_file_get_contents (png, &contents, &len, NULL));
    g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&contents, g_free);
  }
  {
    const char *argv[] = { exe, "report", r0, r1, "--theme", "dark", "-o", pdf, NULL };

    g_assert_cmpint (run_report (argv, &out, &err), ==, 0);
    g_assert_true (g_file_get_contents (pdf, &contents, &len, NULL));
    g_assert_cmpmem (contents, 5, "%PDF-", 5);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&contents, g_free);
  }
  /* A damaged rank: named on stderr, the other four drawn. */
  bad = cp_test_write_file (ranks, "rank-9.pt.trace.json", "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": ", -1);
  {
    const char *argv[] = { exe, "report", ranks, "-o", png, NULL };

    g_assert_cmpint (run_report (argv, &out, &err), ==, 0);
    g_assert_nonnull (strstr (err, "rank-9.pt.trace.json"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *argv[] = { exe, "report", ranks, "--range", "0:1s", "-o", png, NULL };

    g_assert_cmpint (run_report (argv, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "--range"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  cp_test_rm_rf (dir);
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/report-job/real-gloo", test_real_gloo);
  g_test_add_func ("/report-job/generated", test_generated);
  g_test_add_func ("/report-job/cli", test_cli);
  return g_test_run ();
}
