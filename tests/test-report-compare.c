/* test-report-compare.c: the report of two captures (cp_report_new_compare()
 * and `chokepoint report --compare`), against cp-gen's truth and captures
 * written here with known figures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "analysis/cp-compare.h"
#include "formats/cp-loader.h"
#include "render/cp-report.h"
#include "cp-test-util.h"

#define SOURCE_DATE 1767225600

static char *gen_dir;

/* A capture written by cp-gen once per run, its truth beside it. */
static const char *
gen (const char *name,
     const char *extra1,
     const char *extra2)
{
  g_autofree char *file = g_strconcat (name, ".json", NULL);
  g_autofree char *truth_file = g_strconcat (name, ".json.truth.json", NULL);
  g_autofree char *path = NULL, *truth = NULL;
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", "healthy", "--out", NULL, "--truth", NULL,
                         "--steps", "6", "-q", extra1, extra2, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (gen_dir == NULL)
    gen_dir = cp_test_make_tmpdir ();
  path = g_build_filename (gen_dir, file, NULL);
  truth = g_build_filename (gen_dir, truth_file, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      argv[4] = path;
      argv[6] = truth;
      g_assert_nonnull (argv[0]);
      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  return g_intern_string (path);
}

static JsonObject *
truth_of (const char *path,
          JsonParser *parser)
{
  g_autofree char *truth = g_strconcat (path, ".truth.json", NULL);
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, truth, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static CpReport *
compare_report (const char  *path_a,
                const char  *path_b,
                int          width,
                CpTheme      theme)
{
  g_autoptr(CpAnalysis) a = cp_test_analyse (path_a);
  g_autoptr(CpAnalysis) b = cp_test_analyse (path_b);
  g_autoptr(CpComparison) c = cp_comparison_new (a, b, CP_COMPARE_KERNELS_BY_NAME);
  g_autoptr(GError) error = NULL;
  CpReportOptions options;
  CpReport *report;

  cp_report_options_init (&options);
  options.width = width;
  options.theme = theme;
  options.generated = SOURCE_DATE;
  report = cp_report_new_compare (c, &options, &error);
  g_assert_no_error (error);
  return report;
}

/* Draws the report and checks the waterfall's geometry: one scale for all
 * bars, each category starting where the one before ended. */
static void
draw_and_check (CpReport *report,
                int       width)
{
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface = cp_report_render_image (report, NULL, &error);
  const CpReportBar *bars;
  guint n;
  double px_per_ns = -1;
  int w, h;

  g_assert_no_error (error);
  g_assert_nonnull (surface);
  cp_report_get_size (report, &w, &h);
  g_assert_cmpint (w, ==, width);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, h);
  cairo_surface_destroy (surface);

  bars = cp_report_get_waterfall (report, &n);
  g_assert_cmpuint (n, >=, 3);
  g_assert_cmpint (bars[0].category, ==, -1);
  g_assert_cmpint (bars[n - 1].category, ==, -1);
  g_assert_cmpint (bars[0].from, ==, 0);
  g_assert_cmpint (bars[0].to, ==, bars[0].value);
  g_assert_cmpint (bars[n - 1].to, ==, bars[n - 1].value);
  for (guint i = 1; i + 1 < n; i++)
    {
      g_assert_cmpint (bars[i].category, >=, 0);
      g_assert_cmpint (bars[i].from, ==, bars[i - 1].to * (i > 1) + bars[0].value * (i == 1));
      g_assert_cmpint (bars[i].to - bars[i].from, ==, bars[i].value);
      /* Largest change first. */
      if (i > 1)
        g_assert_cmpint (ABS (bars[i].value), <=, ABS (bars[i - 1].value));
    }
  /* The categories carry A's step time to B's (per-step figures are
   * rounded to the nanosecond each). */
  g_assert_cmpint (ABS (bars[n - 2].to - bars[n - 1].value), <=, (gint64) n);
  /* One linear scale: the categories' bars as long as their change, every
   * bar ending where its value lies (the step times' bars may start cut,
   * left of the scale). */
  for (guint i = 1; i + 1 < n; i++)
    {
      gint64 len = ABS (bars[i].to - bars[i].from);

      g_assert_cmpfloat (bars[i].x1, >=, bars[i].x0);
      g_assert_cmpfloat (bars[i].x1, <=, width);
      if (len > 0 && (px_per_ns < 0 || len > ABS (bars[1].value) / 10))
        {
          double r = (bars[i].x1 - bars[i].x0) / (double) len;

          if (px_per_ns < 0)
            px_per_ns = r;
          g_assert_cmpfloat (fabs (r - px_per_ns), <, 1e-6 * px_per_ns + 1e-12);
        }
    }
  g_assert_cmpfloat (px_per_ns, >, 0);
  for (guint i = 0; i < n; i++)
    {
      double x_end = bars[i].to >= bars[i].from ? bars[i].x1 : bars[i].x0;
      double expect = bars[1].x0 + ((double) bars[i].to - (double) MIN (bars[1].from, bars[1].to)) * px_per_ns;

      g_assert_cmpfloat (fabs (x_end - expect), <, 0.01);
    }
}

static const CpReportBar *
find_bar (CpReport       *report,
          CpTimeCategory  category)
{
  guint n;
  const CpReportBar *bars = cp_report_get_waterfall (report, &n);

  for (guint i = 0; i < n; i++)
    if (bars[i].category == (gint) category)
      return &bars[i];
  return NULL;
}

/* ---------------------------------------------------------------------- */

/* One kernel made twice as slow: it tops the changes with the truth's
 * figures, and the waterfall puts the step's growth on compute. */
static void
test_gen_slow_kernel (void)
{
  const char *a = gen ("healthy", NULL, NULL);
  const char *b = gen ("slow-flash", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *truth = truth_of (b, parser);
  JsonObject *slow = json_object_get_object_member (truth, "slow_kernel");
  gint64 steps = json_object_get_int_member (truth, "steps");
  gint64 total = json_object_get_int_member (slow, "total_ns");
  double factor = json_object_get_double_member (slow, "factor");
  gint64 added = (gint64) (total * (1 - 1 / factor)) / steps;
  g_autoptr(CpReport) report = compare_report (a, b, 1400, CP_THEME_LIGHT);
  const CpReportChange *changes;
  const CpReportBar *bars, *compute;
  gint64 sa, ea, sb, eb;
  guint n;

  draw_and_check (report, 1400);
  changes = cp_report_get_changes (report, &n);
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpuint (n, <=, CP_REPORT_MAX_CHANGES);
  g_assert_nonnull (strstr (changes[0].key, json_object_get_string_member (slow, "text")));
  g_assert_cmpint (changes[0].side, ==, CP_COMPARE_BOTH);
  /* B's figure is the truth's time of the slowed kernel per step. */
  g_assert_cmpint (changes[0].b, ==, total / steps);
  g_assert_cmpfloat (fabs ((double) changes[0].b / changes[0].a - factor), <, 0.05);
  g_assert_cmpint (changes[0].delta, ==, changes[0].b - changes[0].a);
  g_assert_cmpfloat (fabs ((double) changes[0].delta - added), <, 0.05 * added);
  for (guint i = 1; i < n; i++)
    g_assert_cmpint (ABS (changes[i].delta), <=, ABS (changes[i - 1].delta));

  /* The step grew by about what the kernel added, and compute carries it. */
  bars = cp_report_get_waterfall (report, &n);
  g_assert_cmpfloat (fabs ((double) (bars[n - 1].value - bars[0].value) - added), <, 0.15 * added);
  compute = find_bar (report, CP_TIME_COMPUTE_16);
  g_assert_true (compute == &bars[1]);
  g_assert_cmpint (compute->value, >, 0);

  /* Both windows as long, on one scale. */
  g_assert_true (cp_report_get_compare_window (report, 0, &sa, &ea));
  g_assert_true (cp_report_get_compare_window (report, 1, &sb, &eb));
  g_assert_cmpint (ea - sa, ==, eb - sb);
  g_assert_cmpint (ea - sa, >=, bars[0].value / 2);
  g_assert_cmpint (ea, <=, json_object_get_int_member (truth, "duration_ns") + 1);
}

/* A slower data loader: input wait explains the step's growth, no more than
 * the loader's __next__ time (the truth's ranges) per step. */
static void
test_gen_slower_loader (void)
{
  const char *a = gen ("healthy", NULL, NULL);
  const char *b = gen ("loader30", "--loader-ms=30", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *truth = truth_of (b, parser);
  JsonArray *ranges = json_object_get_array_member (truth, "ranges");
  gint64 steps = json_object_get_int_member (truth, "steps");
  gint64 loader = 0, delta;
  g_autoptr(CpReport) report = compare_report (a, b, 1000, CP_THEME_DARK);
  const CpReportBar *bars;
  guint n;

  for (guint i = 0; i < json_array_get_length (ranges); i++)
    {
      JsonObject *r = json_array_get_object_element (ranges, i);

      loader += json_object_get_int_member (r, "end_ns") - json_object_get_int_member (r, "start_ns");
    }
  loader /= steps;

  draw_and_check (report, 1000);
  bars = cp_report_get_waterfall (report, &n);
  delta = bars[n - 1].value - bars[0].value;
  g_assert_cmpint (delta, >, 0);
  g_assert_cmpint (delta, <, loader);
  g_assert_cmpint (bars[1].category, ==, CP_TIME_INPUT_WAIT);
  g_assert_cmpint (bars[1].value, <=, loader);
  g_assert_cmpfloat ((double) bars[1].value / delta, >, 0.9);
}

/* Two steps of 1000 µs, one kernel of 500 µs in A and 800 µs in B in each:
 * every figure is known. */
static const char pair_a[] =
  "{\"traceEvents\": [\n"
  " {\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"cat\": \"user_annotation\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
  " {\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": \"cuda_runtime\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
  " {\"ph\": \"X\", \"name\": \"KERNEL\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": DUR, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},\n"
  " {\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"cat\": \"user_annotation\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 1000},\n"
  " {\"ph\": \"X\", \"name\": \"cudaLaunchKernel\", \"cat\": \"cuda_runtime\", \"pid\": 1, \"tid\": 1, \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 2}},\n"
  " {\"ph\": \"X\", \"name\": \"KERNEL\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1020, \"dur\": DUR, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2}}\n"
  "]}\n";

static char *
write_variant (const char *dir,
               const char *name,
               const char *kernel,
               const char *dur,
               gboolean    steps)
{
  g_auto(GStrv) p1 = g_strsplit (pair_a, "KERNEL", -1);
  g_autofree char *j1 = g_strjoinv (kernel, p1);
  g_auto(GStrv) p2 = g_strsplit (j1, "DUR", -1);
  g_autofree char *j2 = g_strjoinv (dur, p2);
  GString *s = g_string_new (NULL);
  g_auto(GStrv) lines = g_strsplit (j2, "\n", -1);
  g_autofree char *text = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    if (steps || strstr (lines[i], "ProfilerStep") == NULL)
      g_string_append_printf (s, "%s%s", lines[i], lines[i + 1] != NULL ? "\n" : "");
  text = g_string_free (s, FALSE);
  return cp_test_write_file (dir, name, text, -1);
}

static void
test_known_pair (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *a = write_variant (dir, "a.json", "gemm_kernel", "500", TRUE);
  g_autofree char *b = write_variant (dir, "b.json", "gemm_kernel", "800", TRUE);
  g_autoptr(CpReport) report = compare_report (a, b, 900, CP_THEME_LIGHT);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const CpReportChange *changes;
  const CpReportBar *bars;
  gint64 sa, ea, sb, eb;
  guint n;

  draw_and_check (report, 900);
  changes = cp_report_get_changes (report, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (changes[0].key, ==, "gemm_kernel");
  g_assert_cmpint (changes[0].a, ==, 500000);
  g_assert_cmpint (changes[0].b, ==, 800000);
  g_assert_cmpint (changes[0].delta, ==, 300000);
  bars = cp_report_get_waterfall (report, &n);
  g_assert_cmpint (bars[0].value, ==, 1000000);
  g_assert_cmpint (bars[n - 1].value, ==, 1000000);
  /* The same step: the kernel's 300 µs more come out of idle time. */
  g_assert_cmpint (find_bar (report, CP_TIME_COMPUTE_16) != NULL ? find_bar (report, CP_TIME_COMPUTE_16)->value
                                                                 : find_bar (report, CP_TIME_COMPUTE_32)->value, ==, 300000);
  g_assert_cmpint (find_bar (report, CP_TIME_IDLE)->value, ==, -300000);
  /* Each timeline from its typical step (the median of two equal steps is
   * one of them) for one step's time. */
  g_assert_true (cp_report_get_compare_window (report, 0, &sa, &ea));
  g_assert_true (cp_report_get_compare_window (report, 1, &sb, &eb));
  g_assert_true (sa == 0 || sa == 1000000);
  g_assert_cmpint (ea - sa, ==, 1000000);
  g_assert_cmpint (eb - sb, ==, 1000000);

  /* What a reader sees. */
  text = cp_report_get_text (report, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "gemm_kernel"));
  g_assert_nonnull (strstr (text, "+300 µs"));
  g_assert_nonnull (strstr (text, "1.00 ms → 1.00 ms"));
  cp_test_rm_rf (dir);
}

/* ---------------------------------------------------------------------- */
/* The command line                                                       */

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) g_getenv ("CP_CHOKEPOINT"));
  g_ptr_array_add (argv, "report");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  envp = g_environ_setenv (envp, "SOURCE_DATE_EPOCH", "1767225600", TRUE);
  envp = g_environ_setenv (envp, "LANGUAGE", "C", TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_cli_formats (void)
{
  const char *a = gen ("healthy", NULL, NULL);
  const char *b = gen ("slow-flash", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *png = g_build_filename (dir, "cmp.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "cmp.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "cmp.pdf", NULL);
  g_autofree char *out = NULL, *err = NULL, *data = NULL;
  cairo_surface_t *surface;

  g_assert_cmpint (run_cli ((const char *[]) { "--compare", a, b, "-o", png, "--width", "1200", "--scale", "1.5",
                                               NULL }, &out, &err), ==, 0);
  surface = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 1800);
  g_assert_nonnull (strstr (out, "1800 ×"));
  g_assert_cmpint (cairo_image_surface_get_height (surface), >, 600);
  cairo_surface_destroy (surface);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli ((const char *[]) { "--compare", a, b, "-o", svg, "--theme", "dark", NULL }, &out, &err),
                   ==, 0);
  g_assert_true (g_file_get_contents (svg, &data, NULL, NULL));
  g_assert_nonnull (strstr (data, "<svg"));
  g_assert_nonnull (strstr (data, "width=\"1600\""));
  g_clear_pointer (&data, g_free);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_cli ((const char *[]) { "--compare", a, b, "-o", pdf, "--by-op", NULL }, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (pdf, &data, NULL, NULL));
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  cp_test_rm_rf (dir);
}

/* Bad arguments (exit 2), pairs that do not compare and files that cannot
 * be read (exit 1): one clear line on stderr, no image. */
static void
test_cli_bad_input (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *k1 = write_variant (dir, "k1.json", "kernel_one", "500", TRUE);
  g_autofree char *k2 = write_variant (dir, "k2.json", "kernel_two", "500", TRUE);
  g_autofree char *nosteps = write_variant (dir, "nosteps.json", "kernel_one", "500", FALSE);
  g_autofree char *damaged = NULL;
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  g_autofree char *k1_text = NULL;
  struct { const char *args[8]; int status; const char *err; } cases[] = {
    { { "--compare", k1, "-o", png, NULL }, 2, "exactly two capture files" },
    { { "--compare", k1, k1, k1, "-o", png, NULL }, 2, "exactly two capture files" },
    { { "--compare", k1, k1, "-o", png, "--range", "0:1ms", NULL }, 2, "do not go with --compare" },
    { { k1, "-o", png, "--by-op", NULL }, 2, "--by-op goes with --compare" },
    { { "--compare", k1, k1, NULL }, 2, "-o OUT.png" },
    { { "--compare", k1, k2, "-o", png, NULL }, 1, "No kernel is found on both sides" },
    { { "--compare", nosteps, k1, "-o", png, NULL }, 1, "A has no steps" },
    { { "--compare", k1, nosteps, "-o", png, NULL }, 1, "B has no steps" },
    { { "--compare", k1, missing, "-o", png, NULL }, 1, "does not exist" },
    { { "--compare", NULL, k1, "-o", png, NULL }, 1, "chokepoint report: A: " },
    { { "--compare", k1, NULL, "-o", png, NULL }, 1, "chokepoint report: B: " },
  };

  g_assert_true (g_file_get_contents (k1, &k1_text, NULL, NULL));
  damaged = cp_test_write_file (dir, "damaged.json", k1_text, 200);
  cases[9].args[1] = damaged;
  cases[10].args[2] = damaged;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status = run_cli (cases[i].args, &out, &err);

      if (status != cases[i].status || strstr (err, cases[i].err) == NULL)
        g_error ("case %u: exit %d, stdout “%s”, stderr “%s”", i, status, out, err);
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    }
  cp_test_rm_rf (dir);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/report-compare/gen/slow-kernel", test_gen_slow_kernel);
  g_test_add_func ("/report-compare/gen/slower-loader", test_gen_slower_loader);
  g_test_add_func ("/report-compare/known-pair", test_known_pair);
  g_test_add_func ("/report-compare/cli/formats", test_cli_formats);
  g_test_add_func ("/report-compare/cli/bad-input", test_cli_bad_input);
  status = g_test_run ();
  if (gen_dir != NULL)
    cp_test_rm_rf (gen_dir);
  g_free (gen_dir);
  return status;
}
