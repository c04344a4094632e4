/* test-bad-input.c: hostile and damaged captures, and the exact messages they get
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Small bad files live in tests/data/bad/ with the outcome each must have in
 * tests/data/bad/EXPECTED.tsv. Large or numerous ones are made here: a
 * capture truncated at every structural point, nesting 100,000 deep, a
 * 100 MB string, a gzip bomb, a plane with a million lines, and files that
 * are truncated or grow while they are being read. */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "cp-test-pbwriter.h"
#include "cp-test-util.h"
#include "formats/cp-args.h"
#include "formats/cp-chrome-reader.h"
#include "formats/cp-json-tokenizer.h"
#include "formats/cp-loader.h"
#include "formats/cp-mapping.h"
#include "formats/cp-protobuf.h"
#include "formats/cp-sidecar.h"
#include "formats/cp-source.h"

/* Writes a file without the fsync() of g_file_set_contents(): the test
 * writes thousands. */
static void
write_file (const char *path,
            const void *data,
            gsize       len)
{
  FILE *f = fopen (path, "wb");

  g_assert_nonnull (f);
  g_assert_cmpuint (fwrite (data, 1, len, f), ==, len);
  g_assert_cmpint (fclose (f), ==, 0);
}

static CpTrace *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return cp_load_file (file, NULL, NULL, NULL, error);
}

static char *
parse_name (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return g_file_get_parse_name (file);
}

/* The message with {file} replaced by the file's parse name. */
static char *
expand (const char *message,
        const char *path)
{
  g_autofree char *name = parse_name (path);
  g_auto(GStrv) parts = g_strsplit (message, "{file}", -1);

  return g_strjoinv (name, parts);
}

static gboolean
has_warning (CpTrace    *trace,
             const char *pattern)
{
  const CpLoadReport *r = cp_trace_get_load_report (trace);

  for (guint i = 0; i < cp_load_report_n_warnings (r); i++)
    if (g_pattern_match_simple (pattern, cp_load_report_get_warning (r, i)->message))
      return TRUE;
  return FALSE;
}

static void
print_warnings (CpTrace *trace)
{
  const CpLoadReport *r = cp_trace_get_load_report (trace);

  for (guint i = 0; i < cp_load_report_n_warnings (r); i++)
    g_test_message ("  warning: %s", cp_load_report_get_warning (r, i)->message);
}

/* Every string a reader put into the model is valid UTF-8. */
static void
assert_valid_text (CpTrace *trace)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      g_assert_true (g_utf8_validate (cp_lane_get_name (lane), -1, NULL));
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { l, i };
          g_autoptr(GPtrArray) args = NULL;
          g_autoptr(GError) error = NULL;

          g_assert_true (g_utf8_validate (cp_trace_get_string (trace, cp_slices_get_name (s, i)), -1, NULL));
          g_assert_true (g_utf8_validate (cp_trace_get_string (trace, cp_slices_get_cat (s, i)), -1, NULL));
          args = cp_args_decode (trace, ref, &error);
          for (guint a = 0; args != NULL && a < args->len; a++)
            {
              CpArg *arg = g_ptr_array_index (args, a);

              g_assert_true (g_utf8_validate (arg->key, -1, NULL));
              g_assert_true (g_utf8_validate (arg->value, -1, NULL));
            }
        }
    }
  for (guint p = 0; p < cp_trace_get_n_processes (trace); p++)
    {
      const CpProcess *proc = cp_trace_get_process (trace, p);

      g_assert_true (g_utf8_validate (cp_trace_get_string (trace, proc->name), -1, NULL));
      g_assert_true (g_utf8_validate (cp_trace_get_string (trace, proc->key), -1, NULL));
    }
  for (guint d = 0; d < cp_trace_get_n_devices (trace); d++)
    g_assert_true (g_utf8_validate (cp_trace_get_string (trace, cp_trace_get_device (trace, d)->name),
                                    -1, NULL));
  for (guint m = 0; m < cp_trace_get_n_metadata (trace); m++)
    {
      const CpMetadataEntry *e = cp_trace_get_metadata (trace, m);

      g_assert_true (g_utf8_validate (cp_trace_get_string (trace, e->key), -1, NULL));
      g_assert_true (e->json == NULL || g_utf8_validate (e->json, -1, NULL));
    }
}

/* The manifest ---------------------------------------------------------------- */

static void
test_manifest (void)
{
  g_autofree char *manifest = cp_test_data_path ("bad/EXPECTED.tsv");
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  guint n_checked = 0;

  g_assert_true (g_file_get_contents (manifest, &text, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) col = NULL;
      g_autofree char *rel = NULL;
      g_autofree char *path = NULL;
      g_autofree char *expected = NULL;
      g_autoptr(GError) load_error = NULL;
      g_autoptr(CpTrace) trace = NULL;

      if (lines[i][0] == '#' || lines[i][0] == '\0')
        continue;
      col = g_strsplit (lines[i], "\t", 4);
      g_assert_cmpuint (g_strv_length (col), ==, 4);
      rel = g_build_filename ("bad", col[0], NULL);
      path = cp_test_data_path (rel);
      expected = expand (col[3], path);
      g_test_message ("%s", col[0]);
      trace = load_path (path, &load_error);

      if (strcmp (col[1], "error") == 0)
        {
          if (trace != NULL)
            {
              print_warnings (trace);
              g_error ("%s loaded, but it must fail with: %s", col[0], expected);
            }
          g_assert_true (load_error->domain == CP_TRACE_ERROR || load_error->domain == G_IO_ERROR);
          if (strcmp (load_error->message, expected) != 0)
            g_error ("%s: the message is\n  %s\nbut must be\n  %s", col[0], load_error->message, expected);
        }
      else
        {
          g_assert_cmpstr (col[1], ==, "loads");
          if (trace == NULL)
            g_error ("%s did not load: %s", col[0], load_error->message);
          assert_valid_text (trace);
          if (strcmp (col[2], "-") != 0)
            g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, g_ascii_strtoull (col[2], NULL, 10));
          if (strcmp (expected, "-") == 0)
            g_assert_cmpuint (cp_load_report_n_warnings (cp_trace_get_load_report (trace)), ==, 0);
          else if (!has_warning (trace, expected))
            {
              print_warnings (trace);
              g_error ("%s: no load-report warning\n  %s", col[0], expected);
            }
        }
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >=, 25);
}

/* Truncation ------------------------------------------------------------------ */

static gboolean
is_structural (guint8 c)
{
  return strchr ("{}[],:\"", c) != NULL && c != '\0';
}

/* Loads every prefix of data that ends at a structural point (before and
 * after each bracket, comma, colon and quote). A prefix either loads, with
 * the truncation in its report, or fails with a CP_TRACE_ERROR that names
 * the file; the events loaded never decrease as the prefix grows. */
static void
check_prefixes (const char   *dir,
                const char   *name,
                const guint8 *data,
                gsize         len,
                guint         step,
                gboolean      structural_only,
                guint64       full_events)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *shown = parse_name (path);
  guint64 last_events = 0;
  guint n_loaded = 0, n_failed = 0;

  gsize content_end = len;

  /* Cutting only blanks after the document leaves it whole. */
  while (content_end > 0 && g_ascii_isspace (data[content_end - 1]))
    content_end--;
  for (gsize cut = 0; cut < content_end; cut += step)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;

      if (structural_only && cut > 0 && !is_structural (data[cut]) && !is_structural (data[cut - 1]))
        continue;
      write_file (path, (const char *) data, cut);
      trace = load_path (path, &error);
      if (trace == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (error->domain == CP_TRACE_ERROR);
          g_assert_nonnull (strstr (error->message, shown));
          if (g_test_verbose ())
            g_test_message ("cut at %" G_GSIZE_FORMAT ": %s", cut, error->message);
          n_failed++;
          continue;
        }
      n_loaded++;
      {
        const CpLoadReport *r = cp_trace_get_load_report (trace);

        if (!r->truncated)
          g_error ("%s cut at byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " loaded without "
                   "reporting the truncation", name, cut, len);
        g_assert_cmpuint (r->events, >=, last_events);
        g_assert_cmpuint (r->events, <=, full_events);
        last_events = r->events;
        assert_valid_text (trace);
      }
    }
  g_test_message ("%s: %u prefixes loaded, %u refused", name, n_loaded, n_failed);
  /* Data cut at its very start is refused, data cut near its end loads. */
  g_assert_cmpuint (n_loaded, >, 0);
  g_assert_cmpuint (n_failed, >, 0);
}

static void
test_truncated_json (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *src = cp_test_data_path ("chrome/kineto-small.json");
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  gsize len = 0;
  g_autoptr(CpTrace) full = NULL;
  guint64 events;

  g_assert_true (g_file_get_contents (src, &text, &len, NULL));
  full = load_path (src, NULL);
  g_assert_nonnull (full);
  events = cp_trace_get_load_report (full)->events;
  check_prefixes (dir, "cut.json", (const guint8 *) text, len, 1, TRUE, events);

  /* The exact messages at two points: inside the first event, and after
   * the second one. */
  path = g_build_filename (dir, "cut.json", NULL);
  {
    const char *small = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
                        "\"ts\": 1, \"dur\": 1}, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, "
                        "\"tid\": 1, \"ts\": 3, \"dur\": 1}, {\"ph\": \"X\", \"name\": \"c\"";
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) one = NULL;
    g_autoptr(CpTrace) two = NULL;
    g_autofree char *expected = NULL;

    write_file (path, small, 30);
    one = load_path (path, &error);
    g_assert_null (one);
    expected = expand ("“{file}” is damaged before its first event: The file ends at byte 30 in "
                       "the middle of the JSON text", path);
    g_assert_cmpstr (error->message, ==, expected);
    g_clear_error (&error);

    write_file (path, small, strlen (small));
    two = load_path (path, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (cp_trace_get_n_slices (two), ==, 2);
    g_assert_true (has_warning (two, "Reading stopped early (The file ends at byte 170 in the middle "
                                     "of the JSON text); every complete event before byte 145 was "
                                     "loaded"));
  }
  cp_test_rm_rf (dir);
}

static GBytes *
gzip_bytes (const void *data,
            gsize       len,
            int         level)
{
  z_stream zs = { 0 };
  gsize cap = compressBound (len) + 64;
  guint8 *out = g_malloc (cap);

  g_assert_cmpint (deflateInit2 (&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  zs.next_in = (guint8 *) data;
  zs.avail_in = len;
  zs.next_out = out;
  zs.avail_out = cap;
  g_assert_cmpint (deflate (&zs, Z_FINISH), ==, Z_STREAM_END);
  deflateEnd (&zs);
  return g_bytes_new_take (out, zs.total_out);
}

static GBytes *
zstd_bytes (const void *data,
            gsize       len)
{
  gsize cap = ZSTD_compressBound (len);
  guint8 *out = g_malloc (cap);
  gsize n = ZSTD_compress (out, cap, data, len, 3);

  g_assert_false (ZSTD_isError (n));
  return g_bytes_new_take (out, n);
}

static void
test_truncated_compressed (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(GString) text = g_string_new ("{\"traceEvents\": [\n");
  g_autoptr(GBytes) gz = NULL;
  g_autoptr(GBytes) zs = NULL;
  guint64 events = 0;

  /* About 600 KB, so that zstd writes several blocks (a cut inside the
   * first block leaves nothing to salvage). Compressed data has no
   * structural points to speak of: cut every so many bytes. */
  while (text->len < 600 * 1000)
    {
      g_string_append_printf (text, "{\"ph\": \"X\", \"name\": \"op%" G_GUINT64_FORMAT "\", \"pid\": 1, "
                                    "\"tid\": 1, \"ts\": %" G_GUINT64_FORMAT ", \"dur\": 1},\n",
                              events * 7919 % 1000, events * 2);
      events++;
    }
  g_string_append (text, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 0}]}");
  events++;
  gz = gzip_bytes (text->str, text->len, 6);
  zs = zstd_bytes (text->str, text->len);
  check_prefixes (dir, "cut.json.gz", g_bytes_get_data (gz, NULL), g_bytes_get_size (gz),
                  g_bytes_get_size (gz) / 200, FALSE, events);
  check_prefixes (dir, "cut.json.zst", g_bytes_get_data (zs, NULL), g_bytes_get_size (zs),
                  g_bytes_get_size (zs) / 200, FALSE, events);
  cp_test_rm_rf (dir);
}

/* The offsets where fields start, down to events (XSpace > XPlane > XLine
 * > XEvent), for cutting an XPlane file at every structural point. */
static void
field_starts (const guint8 *data,
              gsize         len,
              CpPbReader   *r,
              guint         depth,
              GArray       *out)
{
  CpPbField f;

  while (cp_pb_reader_next (r, &f))
    {
      /* The depth in the top bits: a cut between the XSpace's own fields
       * leaves a shorter but valid XSpace. */
      guint64 off = f.offset | ((guint64) depth << 56);

      g_array_append_val (out, off);
      if (f.wire_type == CP_PB_WIRE_LEN && depth < 3)
        {
          CpPbReader sub;

          off = (f.offset + 1) | ((guint64) (depth + 1) << 56);
          g_array_append_val (out, off);
          if (cp_pb_reader_init_sub (&sub, r, &f))
            field_starts (data, len, &sub, depth + 1, out);
        }
    }
}

static void
test_truncated_xplane (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *src = NULL;
  g_autofree char *path = g_build_filename (dir, "cut.xplane.pb", NULL);
  g_autofree guint8 *data = NULL;
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(CpTrace) full = NULL;
  CpPbReader r;
  gsize len = 0;
  guint n_loaded = 0, n_failed = 0;

  /* A small capture of the scenario generator (its seed corpus copy). */
  src = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "fuzz", "corpus", "xplane-reader",
                          "gen-healthy.xplane.pb", NULL);
  g_assert_true (g_file_get_contents (src, (char **) &data, &len, NULL));
  full = load_path (src, NULL);
  g_assert_nonnull (full);

  cp_pb_reader_init (&r, data, len, 0);
  field_starts (data, len, &r, 0, starts);
  g_assert_cmpuint (starts->len, >, 50);
  for (guint i = 0; i < starts->len; i++)
    {
      guint64 cut = g_array_index (starts, guint64, i) & ((G_GUINT64_CONSTANT (1) << 56) - 1);
      guint depth = g_array_index (starts, guint64, i) >> 56;
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;

      if (cut == 0 || cut >= len)
        continue;
      write_file (path, (const char *) data, cut);
      trace = load_path (path, &error);
      if (trace == NULL)
        {
          g_assert_true (error->domain == CP_TRACE_ERROR);
          n_failed++;
          continue;
        }
      n_loaded++;
      if (depth > 0)
        g_assert_true (cp_trace_get_load_report (trace)->truncated);
      g_assert_cmpuint (cp_trace_get_n_slices (trace), <=, cp_trace_get_n_slices (full));
      assert_valid_text (trace);
    }
  g_test_message ("%u prefixes loaded, %u refused", n_loaded, n_failed);
  g_assert_cmpuint (n_loaded, >, 0);
  cp_test_rm_rf (dir);
}

/* Nesting ------------------------------------------------------------------------ */

#define DEEP 100000

static gboolean
count_token (CpJsonTokenizer   *tok,
             const CpJsonToken *t,
             gpointer           data)
{
  return TRUE;
}

static GString *
deep_array (void)
{
  GString *s = g_string_sized_new (2 * DEEP);

  for (guint i = 0; i < DEEP; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < DEEP; i++)
    g_string_append_c (s, ']');
  return s;
}

static void
test_deep_nesting (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(GString) deep = deep_array ();

  /* The tokenizer refuses it at its depth limit. */
  {
    g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (count_token, NULL);
    g_autoptr(GError) error = NULL;

    g_assert_false (cp_json_tokenizer_feed (tok, deep->str, deep->len, &error));
    g_assert_error (error, CP_JSON_ERROR, CP_JSON_ERROR_LIMIT);
    g_assert_cmpstr (error->message, ==, "The JSON document is nested deeper than the limit of "
                                         "10000 levels at byte 10000");
  }

  /* As a whole capture: the Chrome reader skips what it does not read
   * without a stack, so it says what the document is instead. */
  {
    g_autofree char *path = cp_test_write_file (dir, "deep.json", deep->str, deep->len);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = load_path (path, &error);
    g_autofree char *expected = NULL;

    g_assert_null (trace);
    expected = expand ("“{file}” is not a trace: it is a JSON array of arrays, like a PyTorch "
                       "memory timeline (export_memory_timeline raw data), not a trace", path);
    g_assert_cmpstr (error->message, ==, expected);
  }
  {
    g_autoptr(GString) text = g_string_new ("{\"traceEvents\": [], \"deep\": ");
    g_autofree char *path = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;
    g_autofree char *expected = NULL;

    g_string_append_len (text, deep->str, deep->len);
    g_string_append (text, "}");
    path = cp_test_write_file (dir, "deep-top.json", text->str, text->len);
    trace = load_path (path, &error);
    g_assert_null (trace);
    expected = expand ("“{file}” holds no trace events", path);
    g_assert_cmpstr (error->message, ==, expected);
  }

  /* In an event's arguments and in deviceProperties (both skipped without a
   * stack by the reader): the capture loads; json-glib never sees them. */
  {
    g_autoptr(GString) text = g_string_new ("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"deep\", "
                                            "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, "
                                            "\"args\": {\"a\": ");
    g_autofree char *path = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;
    g_autoptr(GPtrArray) args = NULL;
    CpSliceRef ref = { 0, 0 };

    g_string_append_len (text, deep->str, deep->len);
    g_string_append (text, "}}], \"deviceProperties\": ");
    g_string_append_len (text, deep->str, deep->len);
    g_string_append (text, "}");
    path = cp_test_write_file (dir, "deep-args.json", text->str, text->len);
    trace = load_path (path, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 1);
    g_assert_true (has_warning (trace, "The device properties are nested deeper than the limit of "
                                       "512 levels and were not read"));
    for (ref.lane = 0; ref.lane < cp_trace_get_n_lanes (trace); ref.lane++)
      if (cp_lane_get_n_slices (cp_trace_get_lane (trace, ref.lane)) > 0)
        break;
    args = cp_args_decode (trace, ref, &error);
    g_assert_null (args);
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT);
    g_assert_cmpstr (error->message, ==, "The arguments are nested deeper than the limit of 512 "
                                         "levels and are not shown");
  }

  /* An annotations sidecar: refused as damaged, with the limit named. */
  {
    g_autoptr(GString) text = g_string_new ("{\"format\": \"chokepoint-annotations\", "
                                            "\"schema_version\": 1, \"annotations\": [], \"x\": ");
    g_autoptr(CpAnnotations) annotations = cp_annotations_new ();
    g_autoptr(GError) error = NULL;

    g_string_append_len (text, deep->str, deep->len);
    g_string_append (text, "}");
    g_assert_false (cp_sidecar_parse (text->str, text->len, annotations, &error));
    g_assert_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DAMAGED);
    g_assert_cmpstr (error->message, ==, "it is nested deeper than the limit of 512 levels");
  }

  /* Deep but within the limit: decoded. */
  {
    const char *text = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"x\", \"pid\": 1, \"tid\": 1, "
                       "\"ts\": 1, \"dur\": 1, \"args\": {\"a\": [[[[1]]]]}}]}";
    g_autofree char *path = cp_test_write_file (dir, "nested.json", text, -1);
    g_autoptr(CpTrace) trace = load_path (path, NULL);
    g_autoptr(GPtrArray) args = NULL;
    CpSliceRef ref = { 0, 0 };

    for (ref.lane = 0; ref.lane < cp_trace_get_n_lanes (trace); ref.lane++)
      if (cp_lane_get_n_slices (cp_trace_get_lane (trace, ref.lane)) > 0)
        break;
    args = cp_args_decode (trace, ref, NULL);
    g_assert_nonnull (args);
    g_assert_cmpuint (args->len, ==, 1);
  }
  cp_test_rm_rf (dir);
}

/* A 100 MB string --------------------------------------------------------- */

#define HUGE_STRING (100u * 1000u * 1000u)

/* Feeds a capture with 100 MB of text where prefix ends: one string
 * (strings TRUE) or many 1 KiB strings separated by commas, made and fed
 * 1 MiB at a time (the text never exists in memory as a whole). */
static gboolean
feed_huge (CpChromeReader  *reader,
           const char      *prefix,
           gboolean         strings,
           const char      *suffix,
           GError         **error)
{
  g_autofree char *chunk = g_malloc (1024 * 1024);
  gsize done = 0;

  if (!cp_chrome_reader_feed (reader, prefix, strlen (prefix), error))
    return FALSE;
  memset (chunk, 'x', 1024 * 1024);
  if (strings)
    for (gsize i = 0; i < 1024 * 1024; i += 1024)
      memcpy (chunk + i + 1021, "\",\"", 3);
  while (done < HUGE_STRING)
    {
      gsize n = MIN (1024 * 1024, HUGE_STRING - done);

      if (!cp_chrome_reader_feed (reader, chunk, n, error))
        return FALSE;
      done += n;
    }
  return cp_chrome_reader_feed (reader, suffix, strlen (suffix), error);
}

static void
test_huge_string (void)
{
  /* As a name: refused at the string limit, with its message. */
  {
    g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
    g_autoptr(CpChromeReader) reader = cp_chrome_reader_new (builder, NULL, "huge.json");
    g_autoptr(GError) error = NULL;

    g_assert_false (feed_huge (reader, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"", FALSE,
                               "\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}", &error));
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT);
    g_assert_cmpstr (error->message, ==, "“huge.json”: A value at byte 37 is longer than the "
                                         "limit of 64 MiB");
    g_clear_error (&error);
    g_assert_false (cp_chrome_reader_finish (reader, &error));
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT);
  }

  /* As an argument: the same (arguments are read for the columns analysis
   * needs). */
  {
    g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
    g_autoptr(CpChromeReader) reader = cp_chrome_reader_new (builder, NULL, "huge-arg.json");
    g_autoptr(GError) error = NULL;

    g_assert_false (feed_huge (reader, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, "
                                       "\"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"s\": \"", FALSE,
                               "\"}}]}", &error));
    g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT);
    g_assert_cmpstr (error->message, ==, "“huge-arg.json”: A value at byte 95 is longer than the "
                                         "limit of 64 MiB");
  }

  /* 100 MB of arguments in 1 KiB strings: past their own limit, the
   * arguments are dropped; the event and the next one load. */
  {
    g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
    g_autoptr(CpChromeReader) reader = cp_chrome_reader_new (builder, NULL, "huge-args.json");
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = NULL;

    gboolean fed = feed_huge (reader, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, "
                                      "\"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"s\": [\"", TRUE,
                              "\"]}}, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, "
                              "\"ts\": 3, \"dur\": 1}]}", &error);

    g_assert_no_error (error);
    g_assert_true (fed);
    g_assert_true (cp_chrome_reader_finish (reader, &error));
    g_clear_pointer (&reader, cp_chrome_reader_free);
    trace = cp_trace_builder_finish (g_steal_pointer (&builder), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 2);
    g_assert_true (has_warning (trace, "Event arguments larger than 16 MiB were not kept"));
  }
}

/* A gzip bomb ------------------------------------------------------------------ */

static void
test_gzip_bomb (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "bomb.json.gz", NULL);
  g_autofree guint8 *blank = g_malloc (1024 * 1024);
  g_autoptr(GByteArray) out = g_byte_array_new ();
  guint8 buf[65536];
  z_stream zs = { 0 };
  const char *head = "{\"traceEvents\": [";
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree char *expected = NULL;

  /* 256 MiB of blanks inside the event array, compressed as tightly as
   * deflate goes (about 1030:1). */
  memset (blank, ' ', 1024 * 1024);
  g_assert_cmpint (deflateInit2 (&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), ==, Z_OK);
  for (guint i = 0; i <= 256; i++)
    {
      int flush = i == 256 ? Z_FINISH : Z_NO_FLUSH;

      zs.next_in = (guint8 *) (i == 0 ? (const guint8 *) head : blank);
      zs.avail_in = i == 0 ? strlen (head) : 1024 * 1024;
      do
        {
          zs.next_out = buf;
          zs.avail_out = sizeof buf;
          g_assert_cmpint (deflate (&zs, flush), !=, Z_STREAM_ERROR);
          g_byte_array_append (out, buf, sizeof buf - zs.avail_out);
        }
      while (zs.avail_out == 0);
    }
  deflateEnd (&zs);
  g_assert_cmpuint (out->len * CP_SOURCE_MAX_RATIO, <, 256u * 1024 * 1024);
  write_file (path, (const char *) out->data, out->len);

  trace = load_path (path, &error);
  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT);
  expected = expand ("“{file}” expands to more than 1000 times its compressed size (* bytes from *), "
                     "the limit for compressed captures; it looks like a decompression bomb", path);
  g_assert_true (g_pattern_match_simple (expected, error->message));
  cp_test_rm_rf (dir);
}

/* A plane with a million lines ------------------------------------------------ */

static void
test_million_lines (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(GByteArray) space = g_byte_array_new ();
  GByteArray *plane = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree char *path = NULL;
  const CpLoadReport *report;

  pbw_uint (plane, 1, 1);
  pbw_str (plane, 2, "/host:CPU");
  for (guint i = 0; i < 1000000; i++)
    {
      GByteArray *line = g_byte_array_new ();
      GByteArray *event = g_byte_array_new ();

      pbw_uint (line, 1, i + 1);
      pbw_uint (line, 3, G_GINT64_CONSTANT (1700000000000000000));
      pbw_uint (event, 1, 1);
      pbw_uint (event, 2, 1000);
      pbw_uint (event, 3, 5000);
      pbw_msg (line, 4, event);
      pbw_msg (plane, 3, line);
    }
  {
    GByteArray *entry = g_byte_array_new ();
    GByteArray *meta = g_byte_array_new ();

    pbw_uint (meta, 1, 1);
    pbw_str (meta, 2, "op");
    pbw_uint (entry, 1, 1);
    pbw_msg (entry, 2, meta);
    pbw_msg (plane, 4, entry);
  }
  pbw_msg (space, 1, plane);
  path = cp_test_write_file (dir, "lines.xplane.pb", space->data, space->len);

  trace = load_path (path, &error);
  g_assert_no_error (error);
  report = cp_trace_get_load_report (trace);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, CP_XPLANE_MAX_LANES_PER_PLANE);
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, CP_XPLANE_MAX_LANES_PER_PLANE);
  g_assert_cmpuint (report->skipped, ==, 1000000 - CP_XPLANE_MAX_LANES_PER_PLANE);
  g_assert_true (has_warning (trace, "Plane “/host:CPU” has more than 10000 lines with events; the "
                                     "events of the others were skipped"));
  cp_test_rm_rf (dir);
}

/* Files that change while they are read -------------------------------------- */

/* A capture of about 24 MiB (three mapped slices), with arguments that stay
 * zero-copy references into the mapping. */
static char *
write_big_capture (const char *dir,
                   const char *name)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\": [\n");
  guint i = 0;

  while (s->len < 24u * 1024 * 1024)
    {
      g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"op%u\", \"cat\": \"cpu_op\", \"pid\": 1, "
                                 "\"tid\": %u, \"ts\": %u, \"dur\": 2, \"args\": {\"External id\": %u, "
                                 "\"Input Dims\": [[32, 3, 224, 224], [64]]}},\n",
                              i % 100, 1 + i % 4, i * 3, i);
      i++;
    }
  g_string_append (s, "{\"ph\": \"X\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1}\n]}\n");
  return cp_test_write_file (dir, name, s->str, s->len);
}

typedef struct
{
  const char *path;
  guint       calls;
  gboolean    grow;
  gsize       truncate_to;
} ChangeData;

static void
change_on_progress (guint64  done,
                    guint64  total,
                    gpointer user_data)
{
  ChangeData *c = user_data;

  if (c->calls++ != 0)
    return;
  if (c->grow)
    {
      FILE *f = fopen (c->path, "ab");

      g_assert_nonnull (f);
      fputs ("\n\n\n\n\n\n\n\n", f);
      fclose (f);
    }
  else
    g_assert_cmpint (truncate (c->path, c->truncate_to), ==, 0);
}

static void
test_truncated_while_read (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = write_big_capture (dir, "shrinks.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  ChangeData c = { path, 0, FALSE, 4096 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree char *expected = NULL;
  guint alive = cp_mapping_get_n_alive ();

  /* Cut to 4 KiB after the first 8 MiB were read: the pages past the new
   * end read as zeros instead of killing the process with SIGBUS. */
  trace = cp_load_file (file, NULL, change_on_progress, &c, &error);
  g_assert_null (trace);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
  expected = expand ("“{file}” was truncated or replaced by another program while it was being "
                     "read; open it again once it is complete", path);
  g_assert_cmpstr (error->message, ==, expected);
  g_assert_cmpuint (cp_mapping_get_n_alive (), ==, alive);
  cp_test_rm_rf (dir);
}

static void
test_grows_while_read (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = write_big_capture (dir, "grows.json");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  ChangeData c = { path, 0, TRUE, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree char *expected = NULL;
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  trace = cp_load_file (file, NULL, change_on_progress, &c, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("“%s” changed while it was being read: it had %" G_GUINT64_FORMAT
                              " bytes when it was opened and has %" G_GUINT64_FORMAT " now; open "
                              "it again to see its current content",
                              path, (guint64) st.st_size, (guint64) st.st_size + 8);
  g_assert_true (has_warning (trace, expected));
  cp_test_rm_rf (dir);
}

/* The trace keeps arguments as references into the mapping: truncating the
 * file after the load must not crash whoever reads them later. */
static void
test_truncated_after_load (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = write_big_capture (dir, "after.json");
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = load_path (path, &error);
  guint decoded = 0, refused = 0;

  g_assert_no_error (error);
  g_assert_cmpint (truncate (path, 0), ==, 0);
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);

      for (guint i = 0; i < cp_lane_get_n_slices (lane); i += 97)
        {
          CpSliceRef ref = { l, i };
          g_autoptr(GError) arg_error = NULL;
          g_autoptr(GPtrArray) args = cp_args_decode (trace, ref, &arg_error);

          if (args != NULL)
            decoded++;
          else
            refused++;
        }
    }
  /* The pages are gone: what was there reads as zeros, which is not JSON. */
  g_assert_cmpuint (refused, >, 0);
  g_test_message ("%u argument records decoded, %u unreadable after the truncation", decoded, refused);
  cp_test_rm_rf (dir);
}

typedef struct
{
  const char *path;
  gulong      delay_us;
} RaceData;

static gpointer
truncate_later (gpointer data)
{
  RaceData *r = data;

  g_usleep (r->delay_us);
  g_assert_cmpint (truncate (r->path, 1000), ==, 0);
  return NULL;
}

/* Another thread truncates the file at some moment of the load: whatever
 * the moment, the load ends with a trace or an error, never a crash. */
static void
test_truncated_by_thread (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *big = write_big_capture (dir, "template.json");
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autofree char *path = g_build_filename (dir, "race.json", NULL);
  static const gulong delays[] = { 0, 2000, 10000, 30000, 60000, 120000 };
  guint outcomes[2] = { 0, 0 };

  g_assert_true (g_file_get_contents (big, &text, &len, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (delays); i++)
    {
      RaceData r = { path, delays[i] };
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;
      GThread *thread;

      write_file (path, text, len);
      thread = g_thread_new ("truncate", truncate_later, &r);
      trace = load_path (path, &error);
      g_thread_join (thread);
      if (trace == NULL)
        g_assert_true (error->domain == CP_TRACE_ERROR || error->domain == G_IO_ERROR);
      outcomes[trace != NULL]++;
    }
  g_test_message ("%u loads failed, %u succeeded", outcomes[0], outcomes[1]);
  cp_test_rm_rf (dir);
}

/* Compressed and XPlane files, cut while they are read. */
static void
test_other_formats_while_read (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *big = write_big_capture (dir, "template.json");
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GBytes) zs = NULL;
  g_autofree char *zpath = NULL;

  g_assert_true (g_file_get_contents (big, &text, &len, NULL));
  zs = zstd_bytes (text, len);
  zpath = cp_test_write_file (dir, "cut.json.zst", g_bytes_get_data (zs, NULL), g_bytes_get_size (zs));
  {
    g_autoptr(GFile) file = g_file_new_for_path (zpath);
    ChangeData c = { zpath, 0, FALSE, g_bytes_get_size (zs) / 3 };
    g_autoptr(GError) error = NULL;
    g_autoptr(CpTrace) trace = cp_load_file (file, NULL, change_on_progress, &c, &error);

    /* The stream ends early: what came before loads, with the damage. */
    g_assert_no_error (error);
    g_assert_true (cp_trace_get_load_report (trace)->truncated);
    g_assert_true (has_warning (trace, "*changed while it was being read*"));
  }

  {
    g_autofree char *src = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "fuzz", "corpus",
                                             "xplane-reader", "gen-healthy.xplane.pb", NULL);
    g_autofree char *pb = NULL;
    g_autoptr(GByteArray) many = g_byte_array_new ();
    g_autofree char *xpath = NULL;
    gsize pb_len = 0;

    /* The same XSpace planes repeated to 24 MiB (an XSpace is a list of
     * planes, so the concatenation is one valid XSpace). */
    g_assert_true (g_file_get_contents (src, &pb, &pb_len, NULL));
    while (many->len < 24u * 1024 * 1024)
      g_byte_array_append (many, (const guint8 *) pb, pb_len);
    xpath = cp_test_write_file (dir, "cut.xplane.pb", many->data, many->len);
    {
      g_autoptr(GFile) file = g_file_new_for_path (xpath);
      ChangeData c = { xpath, 0, FALSE, 4096 };
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = cp_load_file (file, NULL, change_on_progress, &c, &error);

      if (trace == NULL)
        g_assert_true (error->domain == CP_TRACE_ERROR);
      g_test_message ("XPlane cut while read: %s", trace ? "loaded" : error->message);
    }
  }
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bad/manifest", test_manifest);
  g_test_add_func ("/bad/truncated-json", test_truncated_json);
  g_test_add_func ("/bad/truncated-compressed", test_truncated_compressed);
  g_test_add_func ("/bad/truncated-xplane", test_truncated_xplane);
  g_test_add_func ("/bad/deep-nesting", test_deep_nesting);
  g_test_add_func ("/bad/huge-string", test_huge_string);
  g_test_add_func ("/bad/gzip-bomb", test_gzip_bomb);
  g_test_add_func ("/bad/million-lines", test_million_lines);
  g_test_add_func ("/bad/truncated-while-read", test_truncated_while_read);
  g_test_add_func ("/bad/grows-while-read", test_grows_while_read);
  g_test_add_func ("/bad/truncated-after-load", test_truncated_after_load);
  g_test_add_func ("/bad/truncated-by-thread", test_truncated_by_thread);
  g_test_add_func ("/bad/other-formats-while-read", test_other_formats_while_read);

  return g_test_run ();
}
