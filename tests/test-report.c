/* test-report.c: the report image, its options and `chokepoint report`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cp-test-util.h"
#include "formats/cp-loader.h"
#include "formats/cp-sidecar.h"
#include "render/cp-report.h"

#define SOURCE_DATE 1769964000   /* the reports' date in these tests */

/* The sample capture, loaded once. */
static CpTrace *sample_trace;
static CpAnalysis *sample_analysis;

static char *
sample_path (void)
{
  return g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "data", "samples",
                           "sample-training.pt.trace.json.gz", NULL);
}

static CpTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  CpTrace *trace = cp_load_file (file, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static void
ensure_sample (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  if (sample_trace != NULL)
    return;
  path = sample_path ();
  sample_trace = load (path);
  sample_analysis = cp_analysis_new (sample_trace, NULL, &error);
  g_assert_no_error (error);
}

/* The pixel at logical (x, y) of an image drawn at `scale`, 0xRRGGBBAA. */
static guint32
pixel (cairo_surface_t *s,
       double           x,
       double           y,
       double           scale)
{
  int px = (int) floor (x * scale), py = (int) floor (y * scale);
  const guchar *data = cairo_image_surface_get_data (s);
  guint32 v;
  guint a, r, g, b;

  g_assert_cmpint (px, >=, 0);
  g_assert_cmpint (py, >=, 0);
  g_assert_cmpint (px, <, cairo_image_surface_get_width (s));
  g_assert_cmpint (py, <, cairo_image_surface_get_height (s));
  v = *(const guint32 *) (gconstpointer) (data + py * cairo_image_surface_get_stride (s) + px * 4);
  a = v >> 24;
  r = (v >> 16) & 0xff;
  g = (v >> 8) & 0xff;
  b = v & 0xff;
  if (a > 0 && a < 255)
    {
      r = r * 255 / a;
      g = g * 255 / a;
      b = b * 255 / a;
    }
  return r << 24 | g << 16 | b << 8 | a;
}

static gboolean
near_color (guint32 a,
            guint32 b,
            guint   tolerance)
{
  for (int shift = 8; shift < 32; shift += 8)
    {
      int x = (a >> shift) & 0xff, y = (b >> shift) & 0xff;

      if ((guint) ABS (x - y) > tolerance)
        return FALSE;
    }
  return TRUE;
}

/* Options parsing ---------------------------------------------------------- */

static void
test_parse_time (void)
{
  struct { const char *text; gint64 ns; } good[] = {
    { "0", 0 }, { "1500", 1500 }, { "1500ns", 1500 }, { " 2 s ", 2 * CP_NS_PER_S },
    { "1.5s", 1500 * CP_NS_PER_MS }, { "120ms", 120 * CP_NS_PER_MS }, { "1.25us", 1250 },
    { "1.25µs", 1250 }, { "0.000000001s", 1 }, { ".5ms", 500 * CP_NS_PER_US },
    { "2.", 2 }, { "9223372036s", G_GINT64_CONSTANT (9223372036) * CP_NS_PER_S },
  };
  const char *bad[] = { "", "s", "-1", "1.5 m", "1e3", "1:2", "ms1", "1.2.3", "99999999999999s",
                        "99999999999999999999" };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 ns = -1;

      g_assert_true (cp_report_parse_time (good[i].text, &ns, &error));
      g_assert_no_error (error);
      g_assert_cmpint (ns, ==, good[i].ns);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      gint64 ns;

      g_assert_false (cp_report_parse_time (bad[i], &ns, &error));
      g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
    }
}

static void
test_parse_range (void)
{
  gint64 a, b;
  g_autoptr(GError) error = NULL;

  g_assert_true (cp_report_parse_range ("1.5s:2s", &a, &b, NULL));
  g_assert_cmpint (a, ==, 1500 * CP_NS_PER_MS);
  g_assert_cmpint (b, ==, 2 * CP_NS_PER_S);
  g_assert_true (cp_report_parse_range ("120ms:180ms", &a, &b, NULL));
  g_assert_cmpint (a, ==, 120 * CP_NS_PER_MS);
  g_assert_cmpint (b, ==, 180 * CP_NS_PER_MS);
  g_assert_true (cp_report_parse_range ("1000:5000", &a, &b, NULL));
  g_assert_cmpint (a, ==, 1000);
  g_assert_cmpint (b, ==, 5000);
  g_assert_true (cp_report_parse_range (":2ms", &a, &b, NULL));
  g_assert_cmpint (a, ==, 0);
  g_assert_cmpint (b, ==, 2 * CP_NS_PER_MS);
  g_assert_true (cp_report_parse_range ("3ms:", &a, &b, NULL));
  g_assert_cmpint (a, ==, 3 * CP_NS_PER_MS);
  g_assert_cmpint (b, ==, G_MAXINT64);

  g_assert_false (cp_report_parse_range ("2s:1s", &a, &b, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (cp_report_parse_range ("1s", &a, &b, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (cp_report_parse_range ("1s:2s:3s", &a, &b, &error));
  g_clear_error (&error);
  g_assert_false (cp_report_parse_range ("1s:x", &a, &b, &error));
  g_clear_error (&error);
}

static void
test_format_names (void)
{
  CpReportFormat f;

  g_assert_true (cp_report_format_for_name ("a.png", &f));
  g_assert_cmpint (f, ==, CP_REPORT_FORMAT_PNG);
  g_assert_true (cp_report_format_for_name ("A.SVG", &f));
  g_assert_cmpint (f, ==, CP_REPORT_FORMAT_SVG);
  g_assert_true (cp_report_format_for_name ("x.y.pdf", &f));
  g_assert_cmpint (f, ==, CP_REPORT_FORMAT_PDF);
  g_assert_false (cp_report_format_for_name ("a.jpg", &f));
  g_assert_false (cp_report_format_for_name ("png", &f));
}

static void
test_lane_patterns (void)
{
  guint n_kernel = 0, n_thread = 0, n_gpu = 0, n_all = 0;

  ensure_sample ();
  for (guint i = 0; i < cp_trace_get_n_lanes (sample_trace); i++)
    {
      n_kernel += cp_report_lane_matches (sample_trace, i, "kernel");
      n_thread += cp_report_lane_matches (sample_trace, i, "THREAD*");
      n_gpu += cp_report_lane_matches (sample_trace, i, "gpu 0/*, *spans");
      n_all += cp_report_lane_matches (sample_trace, i, "*");
    }
  /* One stream, two named threads; GPU 0 holds the stream and two copy
   * lanes; Spans its one lane. */
  g_assert_cmpuint (n_kernel, ==, 1);
  g_assert_cmpuint (n_thread, ==, 2);
  g_assert_cmpuint (n_gpu, ==, 4);
  g_assert_cmpuint (n_all, ==, cp_trace_get_n_lanes (sample_trace));
}

static void
test_invalid_options (void)
{
  CpReportOptions o;
  g_autoptr(GError) error = NULL;

  ensure_sample ();
  cp_report_options_init (&o);
  o.width = 100;
  g_assert_null (cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_clear_error (&error);

  cp_report_options_init (&o);
  o.scale = 9;
  g_assert_null (cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_clear_error (&error);

  cp_report_options_init (&o);
  o.range = CP_REPORT_RANGE_CUSTOM;
  o.start = 10 * CP_NS_PER_S;
  o.end = 11 * CP_NS_PER_S;
  g_assert_null (cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_clear_error (&error);

  cp_report_options_init (&o);
  o.range = CP_REPORT_RANGE_VIEW;
  g_assert_null (cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_clear_error (&error);

  cp_report_options_init (&o);
  o.lanes = CP_REPORT_LANES_PATTERN;
  o.lane_pattern = "no-such-lane*";
  g_assert_null (cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error));
  g_assert_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "no-such-lane*"));
}

/* Drawing -------------------------------------------------------------------- */

/* Annotations on the sample: a marker across every lane, a note on the GPU
 * stream, and the input-bound evidence pinned as a note. */
static CpAnnotations *
sample_annotations (void)
{
  CpAnnotations *a = cp_annotations_new ();
  guint stream = G_MAXUINT;

  for (guint i = 0; i < cp_trace_get_n_lanes (sample_trace); i++)
    if (cp_lane_get_kind (cp_trace_get_lane (sample_trace, i)) == CP_LANE_KERNEL)
      stream = i;
  g_assert_cmpuint (stream, !=, G_MAXUINT);

  cp_annotations_set_trace (a, sample_trace);
  cp_annotations_add_marker (a, 100 * CP_NS_PER_MS, CP_ANNOTATION_ALL_LANES, "Warm-up ends", 0x26a269ff);
  cp_annotations_add_note (a, 150 * CP_NS_PER_MS, 170 * CP_NS_PER_MS, stream, "Kernel gap\nWhy here?",
                           0x3584e4ff);
  g_assert_nonnull (cp_report_pin_finding (a, cp_analysis_lookup_finding (sample_analysis, "input-bound"), 2,
                                           CP_FRAMEWORK_PYTORCH));
  return a;
}

/* A pinned finding's note carries the first fix of the framework it is
 * given: the DataLoader for PyTorch, tf.data or Grain for JAX, prefetch for
 * TensorFlow, never PyTorch's advice to a JAX or TensorFlow user. */
static void
test_pin_framework (void)
{
  static const struct { CpFramework fw; const char *has; } cases[] = {
    { CP_FRAMEWORK_PYTORCH, "DataLoader(num_workers=N)" },
    { CP_FRAMEWORK_JAX, "Grain" },
    { CP_FRAMEWORK_TENSORFLOW, ".prefetch(tf.data.AUTOTUNE)" },
  };
  CpFinding *f = cp_analysis_lookup_finding (sample_analysis, "input-bound");

  g_assert_nonnull (f);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CpAnnotations) a = cp_annotations_new ();
      CpAnnotation *note;
      const char *text;

      cp_annotations_set_trace (a, sample_trace);
      note = cp_report_pin_finding (a, f, 0, cases[i].fw);
      g_assert_nonnull (note);
      text = cp_annotation_get_text (note);
      g_assert_true (g_str_has_prefix (text, cp_finding_get_title (f)));
      g_assert_nonnull (strstr (text, cases[i].has));
      if (cases[i].fw != CP_FRAMEWORK_PYTORCH)
        g_assert_null (strstr (text, "DataLoader"));
    }
}

/* Markup safety: labels with <, & and quotes in every section of the report
 * (title, device, lanes, kernel and op names, a note, the findings' figures
 * with "< 10%" thresholds) lay out as the exact text, and Pango never warns
 * (warnings are fatal here: a markup error also leaves the previous text in
 * the layout, which was drawn in its place). */
#define HOSTILE_TITLE "Title <&> \"q\" 'a' </b>"
#define HOSTILE_NOTE "Note <i>&amp; \"why\" 'here' <"

static void
test_markup (void)
{
  g_autofree char *path = cp_test_data_path ("markup/markup.pt.trace.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(CpAnnotations) notes = cp_annotations_new ();
  g_autoptr(CpReport) report = NULL;
  g_autofree char *text = NULL;
  const char *verdict;
  GLogLevelFlags fatal;
  CpReportOptions o;
  const char *want[] = {
    HOSTILE_TITLE,
    "GPU <&> \"dev\" 'x'",
    HOSTILE_NOTE,
    /* The line the unescaped threshold used to replace. */
    "16-bit share of device compute time (XProf)",
    "moderate < 10.0%",
    "Why the GPU Waits",
    "Speed-ups Once the GPU Is Busy",
    "Also Noted",
  };

  g_assert_no_error (error);
  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (cp_analysis_lookup_finding (analysis, "no-mixed-precision"));
  cp_annotations_set_trace (notes, trace);
  cp_annotations_add_note (notes, 100 * CP_NS_PER_US, 400 * CP_NS_PER_US, 0, HOSTILE_NOTE, 0x3584e4ff);

  cp_report_options_init (&o);
  o.generated = SOURCE_DATE;
  o.title = HOSTILE_TITLE;
  report = cp_report_new (trace, analysis, notes, NULL, &o, &error);
  g_assert_no_error (error);

  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
  text = cp_report_get_text (report, NULL, &error);
  g_assert_no_error (error);
  /* And the drawing itself, in both themes. */
  for (guint theme = 0; theme < 2; theme++)
    {
      g_autoptr(CpReport) r = NULL;
      cairo_surface_t *img;

      o.theme = theme ? CP_THEME_DARK : CP_THEME_LIGHT;
      r = cp_report_new (trace, analysis, notes, NULL, &o, &error);
      g_assert_no_error (error);
      img = cp_report_render_image (r, NULL, &error);
      g_assert_no_error (error);
      cairo_surface_destroy (img);
    }
  g_log_set_always_fatal (fatal);

  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (strstr (text, want[i]) == NULL)
      g_error ("the report does not read “%s”:\n%s", want[i], text);
  /* The verdict is its own line, whole. */
  verdict = cp_analysis_get_verdict (analysis)->text;
  g_assert_true (g_str_has_prefix (verdict, "The GPU waits mostly for input"));
  g_assert_nonnull (strstr (text, verdict));
  /* Every figure of every finding listed above info reads as its label. */
  for (guint k = 0; k < g_list_model_get_n_items (cp_analysis_get_findings (analysis)); k++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (cp_analysis_get_findings (analysis), k);
      const CpFigure *figs;
      guint n_figs;

      if (cp_finding_get_severity (f) == CP_SEVERITY_INFO)
        continue;
      figs = cp_finding_get_figures (f, &n_figs);
      for (guint i = 0; i < MIN (n_figs, 6); i++)
        if (strstr (text, figs[i].label) == NULL)
          g_error ("the report does not read the figure “%s”", figs[i].label);
    }
}

/* Under the verdict, the confidence when it is not high: a capture cut
 * before any kernel reads "Low confidence" and why, and is "Not judged"
 * rather than healthy; the whole capture reads neither. */
static void
report_text_of (const char *path,
                char      **text)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(CpReport) report = NULL;
  CpReportOptions o;

  g_assert_no_error (error);
  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  cp_report_options_init (&o);
  o.generated = SOURCE_DATE;
  report = cp_report_new (trace, analysis, NULL, NULL, &o, &error);
  g_assert_no_error (error);
  *text = cp_report_get_text (report, NULL, &error);
  g_assert_no_error (error);
}

static void
test_confidence (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *whole = g_build_filename (dir, "whole.json.gz", NULL);
  g_autofree char *truth = g_build_filename (dir, "truth.json", NULL);
  g_autofree char *data = NULL, *cut = NULL, *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", "input-bound", "--format", "json.gz", "--out", whole,
                         "--truth", truth, "-q", NULL };
  gsize len;

  cp_test_run_generator (argv, truth, parser);
  report_text_of (whole, &text);
  g_assert_null (strstr (text, "Low confidence"));
  g_assert_null (strstr (text, "Provisional"));
  g_assert_null (strstr (text, "Not judged"));
  g_clear_pointer (&text, g_free);

  /* cp-gen writes each step's host events before its device work. */
  g_assert_true (g_file_get_contents (whole, &data, &len, NULL));
  cut = cp_test_write_file (dir, "cut.json.gz", data, 20000);
  report_text_of (cut, &text);
  if (strstr (text, "Low confidence") == NULL || strstr (text, "truncated at byte") == NULL ||
      strstr (text, "Not judged") == NULL || strstr (text, "Healthy") != NULL)
    g_error ("the report of a cut capture reads:\n%s", text);
  cp_test_rm_rf (dir);
}

static cairo_surface_t *
render (CpReport *report)
{
  g_autoptr(GError) error = NULL;
  cairo_surface_t *s = cp_report_render_image (report, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  cairo_surface_flush (s);
  return s;
}

static void
test_size_and_probes (void)
{
  g_autoptr(CpAnnotations) notes = NULL;
  g_autoptr(CpReport) with = NULL;
  g_autoptr(CpReport) without = NULL;
  g_autoptr(CpReport) no_findings = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *a, *b, *c;
  CpReportOptions o;
  const double scale = 1.5;
  int w, h, hb;
  guint n_differ = 0, n_pixels = 0;
  double ex, ey, ew, eh;

  ensure_sample ();
  notes = sample_annotations ();
  cp_report_options_init (&o);
  o.width = 1200;
  o.scale = scale;
  o.generated = SOURCE_DATE;

  with = cp_report_new (sample_trace, sample_analysis, notes, NULL, &o, &error);
  g_assert_no_error (error);
  without = cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error);
  g_assert_no_error (error);
  o.findings = FALSE;
  no_findings = cp_report_new (sample_trace, sample_analysis, notes, NULL, &o, &error);
  g_assert_no_error (error);

  a = render (with);
  b = render (without);
  c = render (no_findings);

  /* The requested width, at the requested scale. */
  cp_report_get_size (with, &w, &h);
  g_assert_cmpint (w, ==, 1200);
  g_assert_cmpint (cairo_image_surface_get_width (a), ==, 1800);
  g_assert_cmpint (cairo_image_surface_get_height (a), ==, (int) ceil (h * scale));
  g_assert_cmpint (h, >, 1000);
  cp_report_get_size (without, NULL, &hb);
  /* Without annotations there are no callouts and no list of notes. */
  g_assert_cmpint (hb, <, h);

  /* Each annotation has its numbered badge in its colour where the report
   * says, absent from the report without annotations. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(CpAnnotation) an = g_list_model_get_item (G_LIST_MODEL (notes), i);
      double x, y;

      g_assert_true (cp_report_get_note_point (with, i, &x, &y));
      g_assert_true (near_color (pixel (a, x - 6.5, y, scale), cp_annotation_get_color (an), 8));
      g_assert_false (near_color (pixel (b, x - 6.5, y, scale), cp_annotation_get_color (an), 8));
    }
  g_assert_false (cp_report_get_note_point (without, 0, NULL, NULL));

  /* The callout box of the first note sits above the timeline, in its
   * colour: along the leader line from the badge upwards, the colour is the
   * note's. */
  {
    g_autoptr(CpAnnotation) first = g_list_model_get_item (G_LIST_MODEL (notes), 0);
    double x, y;
    guint found = 0;

    g_assert_true (cp_report_get_note_point (with, 0, &x, &y));
    for (double yy = y - 12; yy > y - 400 && yy > 0; yy -= 1)
      found += near_color (pixel (a, x, yy, scale), cp_annotation_get_color (first), 8);
    g_assert_cmpuint (found, >, 20);
  }

  /* The finding's evidence is highlighted: tagged with its number in the
   * severity's colour, and tinted. */
  g_assert_true (cp_report_get_evidence_rect (with, 0, &ex, &ey, &ew, &eh));
  g_assert_cmpfloat (ew, >, 20);
  g_assert_true (near_color (pixel (a, ex + 4, ey + 12, scale),
                             cp_report_severity_color (CP_SEVERITY_HIGH, CP_THEME_LIGHT), 8));
  for (double yy = ey + 2; yy < ey + eh - 2; yy += 2)
    for (double xx = ex + 2; xx < ex + ew - 2; xx += 2)
      {
        n_pixels++;
        n_differ += pixel (a, xx, yy, scale) != pixel (c, xx, yy, scale);
      }
  /* Where slices leave the band visible, the tint shows; at least a fifth. */
  g_assert_cmpuint (n_differ * 5, >, n_pixels);

  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  cairo_surface_destroy (c);
  cp_annotations_set_trace (notes, NULL);
}

static void
test_themes (void)
{
  g_autoptr(CpReport) light = NULL;
  g_autoptr(CpReport) dark = NULL;
  CpReportOptions o;
  cairo_surface_t *l, *d;

  ensure_sample ();
  cp_report_options_init (&o);
  o.width = 800;
  o.generated = SOURCE_DATE;
  light = cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, NULL);
  o.theme = CP_THEME_DARK;
  dark = cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, NULL);
  l = render (light);
  d = render (dark);
  /* The page: white, and dark grey. */
  g_assert_cmphex (pixel (l, 5, 5, 1), ==, 0xffffffff);
  g_assert_cmphex (pixel (d, 5, 5, 1), ==, 0x242424ff);
  cairo_surface_destroy (l);
  cairo_surface_destroy (d);
}

static void
test_range_and_lanes (void)
{
  g_autoptr(CpReport) all = NULL;
  g_autoptr(CpReport) narrow = NULL;
  g_autoptr(GError) error = NULL;
  CpReportOptions o;
  cairo_surface_t *a, *n;
  int ha, hn;

  ensure_sample ();
  cp_report_options_init (&o);
  o.width = 1000;
  o.generated = SOURCE_DATE;
  o.findings = FALSE;
  o.steps = FALSE;
  all = cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error);
  g_assert_no_error (error);
  o.range = CP_REPORT_RANGE_CUSTOM;
  o.start = 50 * CP_NS_PER_MS;
  o.end = G_MAXINT64;
  o.lanes = CP_REPORT_LANES_PATTERN;
  o.lane_pattern = "kernel";
  narrow = cp_report_new (sample_trace, sample_analysis, NULL, NULL, &o, &error);
  g_assert_no_error (error);
  a = render (all);
  n = render (narrow);
  cp_report_get_size (all, NULL, &ha);
  cp_report_get_size (narrow, NULL, &hn);
  /* One lane instead of eight: a much shorter timeline. */
  g_assert_cmpint (hn + 200, <, ha);
  cairo_surface_destroy (a);
  cairo_surface_destroy (n);
}

/* Files, the command line, and the window's path ------------------------------------ */

typedef struct
{
  char *dir;
  char *capture;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *src = sample_path ();
  g_autofree char *contents = NULL;
  gsize len;

  ensure_sample ();
  f->dir = cp_test_make_tmpdir ();
  g_assert_true (g_file_get_contents (src, &contents, &len, NULL));
  f->capture = cp_test_write_file (f->dir, "run.pt.trace.json.gz", contents, len);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cp_test_rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->capture);
}

static char *
chokepoint_path (void)
{
  return g_build_filename (g_getenv ("CP_BUILD_ROOT"), "src", "chokepoint", NULL);
}

/* Runs `chokepoint report ARGS...` with no display; returns its status. */
static int
run_cli (Fixture     *f,
         char       **out,
         char       **err,
         const char  *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *data_home = g_build_filename (f->dir, "xdg-data", NULL);
  g_autofree char *epoch = g_strdup_printf ("%d", SOURCE_DATE);
  int status = -1;
  va_list args;

  g_ptr_array_add (argv, chokepoint_path ());
  g_ptr_array_add (argv, g_strdup ("report"));
  va_start (args, first);
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (args);
  g_ptr_array_add (argv, NULL);

  /* No display at all: the command must not need one. */
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  envp = g_environ_setenv (envp, "XDG_DATA_HOME", data_home, TRUE);
  envp = g_environ_setenv (envp, "SOURCE_DATE_EPOCH", epoch, TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, envp,
                               out ? G_SPAWN_DEFAULT : G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               out, err, &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
write_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GError **error = user_data;

  if (!cp_report_write_finish (CP_REPORT (source), result, error) && *error == NULL)
    g_assert_not_reached ();
  *(gboolean *) g_object_get_data (source, "done") = TRUE;
}

static void
test_cli_matches_window (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *cli_png = g_build_filename (f->dir, "cli.png", NULL);
  g_autofree char *win_png = g_build_filename (f->dir, "window.png", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *cli_bytes = NULL;
  g_autofree char *win_bytes = NULL;
  gsize cli_len, win_len;
  g_autoptr(CpTrace) trace = load (f->capture);
  g_autoptr(CpAnalysis) analysis = cp_analysis_new (trace, NULL, NULL);
  g_autoptr(CpAnnotations) notes = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(CpReport) report = NULL;
  g_autoptr(GFile) capture = g_file_new_for_path (f->capture);
  g_autoptr(GFile) win_file = g_file_new_for_path (win_png);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *png;
  CpReportOptions o;
  gboolean done = FALSE;
  guint stream = 0;

  /* Annotations saved beside the capture, as the window saves them. */
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    if (cp_lane_get_kind (cp_trace_get_lane (trace, i)) == CP_LANE_KERNEL)
      stream = i;
  cp_annotations_set_trace (notes, trace);
  cp_annotations_add_marker (notes, 80 * CP_NS_PER_MS, CP_ANNOTATION_ALL_LANES, "Marker for the CLI", 0);
  cp_annotations_add_note (notes, 150 * CP_NS_PER_MS, 170 * CP_NS_PER_MS, stream, "Stream note", 0xe66100ff);
  sidecar = cp_sidecar_new (capture, notes);
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);

  g_assert_cmpint (run_cli (f, &out, &err, f->capture, "-o", cli_png, "--width", "1000", "--scale", "1.5",
                            "--theme", "dark", "--range", "50ms:200ms", "--lanes", "thread*,kernel", NULL),
                   ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_assert_nonnull (strstr (out, "1500 ×"));

  /* The window's path: the same options from the export dialog, drawn in a
   * worker thread. */
  cp_report_options_init (&o);
  o.width = 1000;
  o.scale = 1.5;
  o.theme = CP_THEME_DARK;
  o.range = CP_REPORT_RANGE_CUSTOM;
  o.start = 50 * CP_NS_PER_MS;
  o.end = 200 * CP_NS_PER_MS;
  o.lanes = CP_REPORT_LANES_PATTERN;
  o.lane_pattern = "thread*,kernel";
  o.generated = SOURCE_DATE;
  report = cp_report_new (trace, analysis, notes, NULL, &o, &error);
  g_assert_no_error (error);
  g_object_set_data (G_OBJECT (report), "done", &done);
  cp_report_write_async (report, win_file, NULL, write_done_cb, &error);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (error);

  g_assert_true (g_file_get_contents (cli_png, &cli_bytes, &cli_len, NULL));
  g_assert_true (g_file_get_contents (win_png, &win_bytes, &win_len, NULL));
  g_assert_cmpuint (cli_len, >, 10000);
  g_assert_cmpuint (cli_len, ==, win_len);
  g_assert_true (memcmp (cli_bytes, win_bytes, cli_len) == 0);

  png = cairo_image_surface_create_from_png (cli_png);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, 1500);
  cairo_surface_destroy (png);
  cp_annotations_set_trace (notes, NULL);
}

static void
test_cli_formats (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *svg = g_build_filename (f->dir, "r.svg", NULL);
  g_autofree char *pdf = g_build_filename (f->dir, "r.pdf", NULL);
  g_autofree char *png = g_build_filename (f->dir, "r.png", NULL);
  g_autofree char *text = NULL;
  gsize len;

  g_assert_cmpint (run_cli (f, NULL, NULL, f->capture, "-o", svg, NULL), ==, 0);
  g_assert_true (g_file_get_contents (svg, &text, &len, NULL));
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_assert_nonnull (strstr (text, "<svg"));
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (run_cli (f, NULL, NULL, f->capture, "-o", pdf, "--theme", "light", NULL), ==, 0);
  g_assert_true (g_file_get_contents (pdf, &text, &len, NULL));
  g_assert_true (g_str_has_prefix (text, "%PDF-"));
  g_clear_pointer (&text, g_free);

  /* Default size: 1600 wide. */
  g_assert_cmpint (run_cli (f, NULL, NULL, f->capture, "-o", png, NULL), ==, 0);
  {
    cairo_surface_t *s = cairo_image_surface_create_from_png (png);

    g_assert_cmpint (cairo_image_surface_get_width (s), ==, 1600);
    cairo_surface_destroy (s);
  }
}

static void
test_cli_errors (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *png = g_build_filename (f->dir, "e.png", NULL);
  g_autofree char *missing_dir = g_build_filename (f->dir, "nope", "e.png", NULL);
  g_autofree char *missing = g_build_filename (f->dir, "missing.json", NULL);
  g_autofree char *not_a_capture = cp_test_write_file (f->dir, "notes.txt", "hello", 5);
  /* @C stands for the capture, @O for the output file. */
  struct {
    int         status;
    const char *needle;
    const char *args[7];
  } cases[] = {
    { 2, "exactly one capture", { "-o", "@O", NULL } },
    { 2, "is given twice", { "@C", "@C", "-o", "@O", NULL } },
    { 2, "-o OUT.png", { "@C", NULL } },
    { 2, ".png, .svg or .pdf", { "@C", "-o", "report.jpg", NULL } },
    { 2, "not a range", { "@C", "-o", "@O", "--range", "5s", NULL } },
    { 2, "not a time", { "@C", "-o", "@O", "--range", "1x:2s", NULL } },
    { 2, "ends before it starts", { "@C", "-o", "@O", "--range", "2s:1s", NULL } },
    { 2, "starts after the capture ends", { "@C", "-o", "@O", "--range", "5s:6s", NULL } },
    { 2, "light or dark", { "@C", "-o", "@O", "--theme", "blue", NULL } },
    { 2, "width", { "@C", "-o", "@O", "--width", "20", NULL } },
    { 2, "scale", { "@C", "-o", "@O", "--scale", "10", NULL } },
    { 2, "No lane matches", { "@C", "-o", "@O", "--lanes", "zzz*", NULL } },
    { 2, "Unknown option", { "@C", "-o", "@O", "--frobnicate", NULL } },
    { 1, "missing.json", { "@M", "-o", "@O", NULL } },
    { 1, "notes.txt", { "@N", "-o", "@O", NULL } },
    { 1, "does not exist", { "@C", "-o", "@D", NULL } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      const char *a[7] = { NULL };

      for (guint k = 0; k < 6 && cases[i].args[k] != NULL; k++)
        {
          const char *arg = cases[i].args[k];

          a[k] = g_str_equal (arg, "@C") ? f->capture : g_str_equal (arg, "@O") ? png :
                 g_str_equal (arg, "@M") ? missing : g_str_equal (arg, "@N") ? not_a_capture :
                 g_str_equal (arg, "@D") ? missing_dir : arg;
        }
      g_assert_cmpint (run_cli (f, &out, &err, a[0], a[1], a[2], a[3], a[4], a[5], NULL), ==,
                       cases[i].status);
      if (strstr (err, cases[i].needle) == NULL)
        g_error ("case %u: “%s” is not in “%s”", i, cases[i].needle, err);
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    }
}

static void
test_cli_damaged_sidecar (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *png = g_build_filename (f->dir, "d.png", NULL);
  g_autofree char *sidecar = g_strconcat (f->capture, CP_SIDECAR_SUFFIX, NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *after = NULL;

  /* A damaged sidecar: a warning, a report without annotations, and the
   * file untouched (the command line only reads). */
  g_assert_true (g_file_set_contents (sidecar, "{ damaged", -1, NULL));
  g_assert_cmpint (run_cli (f, &out, &err, f->capture, "-o", png, NULL), ==, 0);
  g_assert_nonnull (strstr (err, "warning"));
  g_assert_nonnull (strstr (err, "not valid JSON"));
  g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (sidecar, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, "{ damaged");
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/report/parse-time", test_parse_time);
  g_test_add_func ("/report/parse-range", test_parse_range);
  g_test_add_func ("/report/format-names", test_format_names);
  g_test_add_func ("/report/lane-patterns", test_lane_patterns);
  g_test_add_func ("/report/invalid-options", test_invalid_options);
  g_test_add_func ("/report/size-and-probes", test_size_and_probes);
  g_test_add_func ("/report/themes", test_themes);
  g_test_add_func ("/report/range-and-lanes", test_range_and_lanes);
  g_test_add_func ("/report/markup", test_markup);
  g_test_add_func ("/report/pin-framework", test_pin_framework);
  g_test_add_func ("/report/confidence", test_confidence);
  g_test_add ("/report/cli/matches-window", Fixture, NULL, fixture_setup, test_cli_matches_window,
              fixture_teardown);
  g_test_add ("/report/cli/formats", Fixture, NULL, fixture_setup, test_cli_formats, fixture_teardown);
  g_test_add ("/report/cli/errors", Fixture, NULL, fixture_setup, test_cli_errors, fixture_teardown);
  g_test_add ("/report/cli/damaged-sidecar", Fixture, NULL, fixture_setup, test_cli_damaged_sidecar,
              fixture_teardown);

  ret = g_test_run ();
  g_clear_object (&sample_analysis);
  g_clear_object (&sample_trace);
  return ret;
}
