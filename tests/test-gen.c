/* test-gen.c: the scenario generator (tools/cp-gen) writes what it promises
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every check here reads the generator's output with independent code
 * (json-glib, zlib, zstd, and a small protobuf wire decoder below), never
 * with the project's readers, which the generator exists to test.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <zlib.h>
#include <zstd.h>

#include "cp-test-util.h"

static const char *scenarios[] = {
  "healthy", "input-bound", "launch-bound", "pageable-transfers",
  "sync-stalls", "fp32-no-tensor-cores", "comm-bound",
};

static const char *
cp_gen_path (void)
{
  const char *path = g_getenv ("CP_GEN");

  g_assert_nonnull (path);
  return path;
}

/* Runs cp-gen with the given arguments (NULL-terminated); asserts success. */
static void
run_gen (const char *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;
  va_list ap;

  g_ptr_array_add (argv, (char *) cp_gen_path ());
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, (char *) "--quiet");
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("cp-gen failed: %s", err);
}

static GBytes *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  g_file_get_contents (path, &data, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (data, len);
}

static JsonObject *
load_json_object (const char *path,
                  JsonParser **parser_out)
{
  JsonParser *parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  *parser_out = parser;
  return json_node_get_object (root);
}

static gint64
summary_int (JsonObject *summary,
             const char *key)
{
  g_assert_true (json_object_has_member (summary, key));
  return json_object_get_int_member (summary, key);
}

/* "123.456" microseconds (as json-glib reads the number) to ns. */
static gint64
us_to_ns (JsonNode *node)
{
  return (gint64) (json_node_get_double (node) * 1000.0 + (json_node_get_double (node) >= 0 ? 0.5 : -0.5));
}

typedef struct
{
  guint    events, slices, kernels, memcpys, memsets, runtime, host;
  guint    flow_s, flow_f, counters, metadata;
  gint64   min_ts, max_end;          /* relative to baseTimeNanoseconds */
  GHashTable *runtime_corr;          /* correlation -> TRUE */
  GHashTable *kernel_names;          /* name -> TRUE */
  GHashTable *flow_starts;           /* "cat/id" -> TRUE */
  guint    unmatched_f;
  guint    gpu_without_launch;
  gboolean has_single_loader, has_multi_loader, has_pageable, has_pinned;
  gboolean has_stream_sync, has_device_sync, has_nccl, has_item;
  gint64   nccl_stream, compute_stream;
} JsonFacts;

static void
json_facts_clear (JsonFacts *f)
{
  g_clear_pointer (&f->runtime_corr, g_hash_table_unref);
  g_clear_pointer (&f->kernel_names, g_hash_table_unref);
  g_clear_pointer (&f->flow_starts, g_hash_table_unref);
}

static void
collect_json_facts (JsonObject *root,
                    JsonFacts  *f)
{
  JsonArray *events = json_object_get_array_member (root, "traceEvents");
  guint n = json_array_get_length (events);

  memset (f, 0, sizeof *f);
  f->min_ts = G_MAXINT64;
  f->max_end = G_MININT64;
  f->nccl_stream = f->compute_stream = -1;
  f->runtime_corr = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  f->kernel_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  f->flow_starts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  f->events = n;

  /* First pass: runtime correlations and flow starts (order in the file is
   * not time order). */
  for (guint i = 0; i < n; i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");
      const char *cat = json_object_get_string_member_with_default (ev, "cat", "");

      if (g_str_equal (ph, "X") && g_str_equal (cat, "cuda_runtime"))
        {
          JsonObject *args = json_object_get_object_member (ev, "args");
          gint64 *corr = g_new (gint64, 1);

          *corr = json_object_get_int_member (args, "correlation");
          g_hash_table_add (f->runtime_corr, corr);
        }
      else if (g_str_equal (ph, "s"))
        g_hash_table_add (f->flow_starts, g_strdup_printf ("%s/%" G_GINT64_FORMAT, cat,
                                                           json_object_get_int_member (ev, "id")));
    }

  for (guint i = 0; i < n; i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");
      const char *cat = json_object_get_string_member_with_default (ev, "cat", "");
      const char *name = json_object_get_string_member_with_default (ev, "name", "");

      if (json_object_has_member (ev, "ts"))
        {
          gint64 ts = us_to_ns (json_object_get_member (ev, "ts"));
          gint64 end = ts + (json_object_has_member (ev, "dur") ? us_to_ns (json_object_get_member (ev, "dur")) : 0);

          f->min_ts = MIN (f->min_ts, ts);
          f->max_end = MAX (f->max_end, end);
        }
      if (g_str_equal (ph, "M"))
        f->metadata++;
      else if (g_str_equal (ph, "C"))
        f->counters++;
      else if (g_str_equal (ph, "s"))
        f->flow_s++;
      else if (g_str_equal (ph, "f"))
        {
          g_autofree char *key = g_strdup_printf ("%s/%" G_GINT64_FORMAT, cat, json_object_get_int_member (ev, "id"));

          f->flow_f++;
          if (!g_hash_table_contains (f->flow_starts, key))
            f->unmatched_f++;
        }
      if (!g_str_equal (ph, "X"))
        continue;

      g_assert_true (json_object_has_member (ev, "dur"));
      f->slices++;
      if (g_str_equal (cat, "kernel") || g_str_equal (cat, "gpu_memcpy") || g_str_equal (cat, "gpu_memset"))
        {
          JsonObject *args = json_object_get_object_member (ev, "args");
          gint64 corr = json_object_get_int_member (args, "correlation");
          gint64 stream = json_object_get_int_member (args, "stream");

          g_assert_cmpint (stream, ==, json_object_get_int_member (ev, "tid"));
          g_assert_cmpint (json_object_get_int_member (ev, "pid"), ==, 0);
          if (!g_hash_table_contains (f->runtime_corr, &corr))
            f->gpu_without_launch++;
          if (g_str_equal (cat, "kernel"))
            {
              f->kernels++;
              g_assert_true (json_object_has_member (args, "grid"));
              g_assert_true (json_object_has_member (args, "block"));
              g_assert_true (json_object_has_member (args, "registers per thread"));
              g_assert_true (json_object_has_member (args, "est. achieved occupancy %"));
              g_hash_table_add (f->kernel_names, g_strdup (name));
              if (g_str_has_prefix (name, "nccl"))
                f->nccl_stream = stream;
              else
                f->compute_stream = stream;
            }
          else
            {
              g_assert_cmpint (json_object_get_int_member (args, "bytes"), >, 0);
              if (g_str_equal (cat, "gpu_memcpy"))
                f->memcpys++;
              else
                f->memsets++;
            }
          if (strstr (name, "Pageable") != NULL)
            f->has_pageable = TRUE;
          if (strstr (name, "(Pinned -> Device)") != NULL)
            f->has_pinned = TRUE;
          if (g_str_has_prefix (name, "nccl"))
            f->has_nccl = TRUE;
        }
      else if (g_str_equal (cat, "cuda_runtime"))
        {
          f->runtime++;
          f->host++;
          if (g_str_equal (name, "cudaStreamSynchronize"))
            f->has_stream_sync = TRUE;
          if (g_str_equal (name, "cudaDeviceSynchronize"))
            f->has_device_sync = TRUE;
        }
      else if (g_str_equal (cat, "cpu_op") || g_str_equal (cat, "user_annotation"))
        {
          f->host++;
          if (g_str_equal (name, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"))
            f->has_single_loader = TRUE;
          if (g_str_equal (name, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"))
            f->has_multi_loader = TRUE;
          if (g_str_equal (name, "aten::item"))
            f->has_item = TRUE;
        }
    }
}

static gboolean
any_kernel_matches (JsonFacts   *f,
                    const char **patterns)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, f->kernel_names);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    for (guint i = 0; patterns[i] != NULL; i++)
      {
        g_autofree char *lower = g_ascii_strdown (key, -1);

        if (strstr (lower, patterns[i]) != NULL)
          return TRUE;
      }
  return FALSE;
}

/* Each scenario's capture is a well-formed Kineto trace whose events match
 * the generator's own summary, and whose constructs are the ones the
 * scenario promises. */
static void
test_json_scenarios (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint s = 0; s < G_N_ELEMENTS (scenarios); s++)
    {
      const char *name = scenarios[s];
      g_autofree char *out = g_build_filename (dir, "capture.json", NULL);
      g_autofree char *summary_path = g_build_filename (dir, "summary.json", NULL);
      g_autofree char *truth_path = g_build_filename (dir, "truth.json", NULL);
      g_autoptr(JsonParser) parser = NULL, sparser = NULL, tparser = NULL;
      JsonObject *root, *summary, *truth, *dev;
      JsonArray *ranges;
      JsonFacts f;
      /* Tensor-core and 16-bit markers (docs/diagnosis-rules.md §6). */
      const char *tc[] = { "16816", "xmma", "flash_fwd", "flash_bwd", "hmma", "tensorop", "bf16",
                           "bfloat16", "half", "fp16", NULL };
      const char *steps = g_str_equal (name, "launch-bound") ? "1" : "2";

      g_test_message ("scenario %s", name);
      run_gen ("--scenario", name, "--out", out, "--steps", steps, "--seed", "11",
               "--summary", summary_path, "--truth", truth_path, NULL);
      root = load_json_object (out, &parser);
      summary = load_json_object (summary_path, &sparser);
      truth = load_json_object (truth_path, &tparser);

      g_assert_cmpint (json_object_get_int_member (root, "schemaVersion"), ==, 1);
      g_assert_true (json_object_has_member (root, "baseTimeNanoseconds"));
      dev = json_array_get_object_element (json_object_get_array_member (root, "deviceProperties"), 0);
      g_assert_cmpint (json_object_get_int_member (dev, "computeMajor"), ==, 9);
      g_assert_cmpint (json_object_get_int_member (dev, "numSms"), ==, 132);

      collect_json_facts (root, &f);
      g_assert_cmpint (f.events, ==, summary_int (summary, "events"));
      g_assert_cmpint (f.slices, ==, summary_int (summary, "slices"));
      g_assert_cmpint (f.kernels, ==, summary_int (summary, "kernels"));
      g_assert_cmpint (f.memcpys, ==, summary_int (summary, "memcpys"));
      g_assert_cmpint (f.memsets, ==, summary_int (summary, "memsets"));
      g_assert_cmpint (f.runtime, ==, summary_int (summary, "runtime_calls"));
      g_assert_cmpint (f.host, ==, summary_int (summary, "host_slices"));
      g_assert_cmpint (f.counters, ==, summary_int (summary, "counter_samples"));
      g_assert_cmpint (f.metadata, ==, summary_int (summary, "metadata"));
      g_assert_cmpint (f.flow_s, ==, summary_int (summary, "flows") + summary_int (summary, "lone_flow_starts"));
      g_assert_cmpint (f.flow_f, ==, summary_int (summary, "flows"));
      g_assert_cmpint (summary_int (summary, "steps"), ==, atoi (steps));
      g_assert_cmpuint (f.unmatched_f, ==, 0);
      g_assert_cmpuint (f.gpu_without_launch, ==, 0);
      g_assert_cmpint (f.kernels, >, 0);

      /* The origin is the earliest timestamp, and the truth uses it. */
      g_assert_cmpint (summary_int (summary, "origin_ns"), ==,
                       json_object_get_int_member (root, "baseTimeNanoseconds") + f.min_ts);
      g_assert_cmpint (summary_int (truth, "origin_ns"), ==, summary_int (summary, "origin_ns"));
      g_assert_cmpint (summary_int (truth, "duration_ns"), ==, f.max_end - f.min_ts);
      g_assert_cmpstr (json_object_get_string_member (truth, "scenario"), ==, name);
      ranges = json_object_get_array_member (truth, "ranges");
      if (g_str_equal (name, "healthy"))
        {
          g_assert_cmpint (json_array_get_length (json_object_get_array_member (truth, "expect")), ==, 0);
          g_assert_cmpint (json_array_get_length (ranges), ==, 0);
        }
      else
        {
          gint64 prev_end = -1;

          g_assert_cmpint (json_array_get_length (json_object_get_array_member (truth, "expect")), ==, 1);
          g_assert_cmpint (json_array_get_length (ranges), >, 0);
          for (guint r = 0; r < json_array_get_length (ranges); r++)
            {
              JsonObject *range = json_array_get_object_element (ranges, r);
              gint64 a = json_object_get_int_member (range, "start_ns");
              gint64 b = json_object_get_int_member (range, "end_ns");

              g_assert_cmpint (a, >=, 0);
              g_assert_cmpint (a, <, b);
              g_assert_cmpint (b, <=, f.max_end - f.min_ts);
              g_assert_cmpint (a, >, prev_end);
              prev_end = b;
            }
        }

      /* What each scenario is made of. */
      if (g_str_equal (name, "fp32-no-tensor-cores"))
        g_assert_false (any_kernel_matches (&f, tc));
      else
        g_assert_true (any_kernel_matches (&f, tc));
      g_assert_true (f.has_single_loader == g_str_equal (name, "input-bound"));
      g_assert_true (f.has_multi_loader != g_str_equal (name, "input-bound"));
      g_assert_true (f.has_pageable == g_str_equal (name, "pageable-transfers"));
      g_assert_true (f.has_pinned != g_str_equal (name, "pageable-transfers"));
      g_assert_true (f.has_stream_sync == g_str_equal (name, "sync-stalls"));
      g_assert_true (f.has_device_sync == g_str_equal (name, "sync-stalls"));
      g_assert_true (f.has_item == g_str_equal (name, "sync-stalls"));
      g_assert_true (f.has_nccl == g_str_equal (name, "comm-bound"));
      g_assert_true (json_object_has_member (root, "distributedInfo") == g_str_equal (name, "comm-bound"));
      if (f.has_nccl)
        g_assert_cmpint (f.nccl_stream, !=, f.compute_stream);
      json_facts_clear (&f);
    }
  cp_test_rm_rf (dir);
}

/* Same seed, same bytes; another seed, other timings. */
static void
test_deterministic (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *a = g_build_filename (dir, "a.json", NULL);
  g_autofree char *b = g_build_filename (dir, "b.json", NULL);
  g_autofree char *c = g_build_filename (dir, "c.json", NULL);
  g_autoptr(GBytes) ba = NULL, bb = NULL, bc = NULL;

  run_gen ("--scenario", "sync-stalls", "--out", a, "--steps", "3", "--seed", "5", NULL);
  run_gen ("--scenario", "sync-stalls", "--out", b, "--steps", "3", "--seed", "5", NULL);
  run_gen ("--scenario", "sync-stalls", "--out", c, "--steps", "3", "--seed", "6", NULL);
  ba = read_file (a);
  bb = read_file (b);
  bc = read_file (c);
  g_assert_true (g_bytes_equal (ba, bb));
  g_assert_false (g_bytes_equal (ba, bc));
  cp_test_rm_rf (dir);
}

static GBytes *
gunzip (GBytes *in)
{
  z_stream z = { 0, };
  GByteArray *out = g_byte_array_new ();
  guint8 buf[65536];
  gsize len;
  const guint8 *data = g_bytes_get_data (in, &len);
  int ret;

  g_assert_cmpint (inflateInit2 (&z, 15 + 16), ==, Z_OK);
  z.next_in = (Bytef *) data;
  z.avail_in = (uInt) len;
  do
    {
      z.next_out = buf;
      z.avail_out = sizeof buf;
      ret = inflate (&z, Z_NO_FLUSH);
      g_assert_true (ret == Z_OK || ret == Z_STREAM_END);
      g_byte_array_append (out, buf, sizeof buf - z.avail_out);
    }
  while (ret != Z_STREAM_END);
  g_assert_cmpuint (z.avail_in, ==, 0);
  inflateEnd (&z);
  return g_byte_array_free_to_bytes (out);
}

static GBytes *
unzstd (GBytes *in)
{
  ZSTD_DStream *ds = ZSTD_createDStream ();
  GByteArray *out = g_byte_array_new ();
  guint8 buf[65536];
  gsize len;
  const guint8 *data = g_bytes_get_data (in, &len);
  ZSTD_inBuffer zin = { data, len, 0 };
  size_t ret = 1;

  ZSTD_initDStream (ds);
  while (zin.pos < zin.size)
    {
      ZSTD_outBuffer zout = { buf, sizeof buf, 0 };

      ret = ZSTD_decompressStream (ds, &zout, &zin);
      g_assert_false (ZSTD_isError (ret));
      g_byte_array_append (out, buf, zout.pos);
    }
  g_assert_cmpuint (ret, ==, 0);
  ZSTD_freeDStream (ds);
  return g_byte_array_free_to_bytes (out);
}

/* Compressed outputs hold exactly the plain output; the format follows the
 * file name. */
static void
test_compression (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *plain = g_build_filename (dir, "t.json", NULL);
  g_autofree char *gz = g_build_filename (dir, "t.json.gz", NULL);
  g_autofree char *zst = g_build_filename (dir, "t.json.zst", NULL);
  g_autoptr(GBytes) bp = NULL, bg = NULL, bz = NULL, ug = NULL, uz = NULL;

  run_gen ("--scenario", "comm-bound", "--out", plain, "--steps", "2", NULL);
  run_gen ("--scenario", "comm-bound", "--out", gz, "--steps", "2", NULL);
  run_gen ("--scenario", "comm-bound", "--out", zst, "--steps", "2", NULL);
  bp = read_file (plain);
  bg = read_file (gz);
  bz = read_file (zst);
  g_assert_cmpuint (g_bytes_get_size (bg), <, g_bytes_get_size (bp) / 4);
  g_assert_cmpuint (g_bytes_get_size (bz), <, g_bytes_get_size (bp) / 4);
  g_assert_cmpint (((const guint8 *) g_bytes_get_data (bg, NULL))[0], ==, 0x1f);
  g_assert_cmpint (((const guint8 *) g_bytes_get_data (bz, NULL))[0], ==, 0x28);
  ug = gunzip (bg);
  uz = unzstd (bz);
  g_assert_true (g_bytes_equal (ug, bp));
  g_assert_true (g_bytes_equal (uz, bp));
  cp_test_rm_rf (dir);
}

/* --size adds whole steps until the uncompressed capture reaches the size. */
static void
test_size (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *out = g_build_filename (dir, "s.json.zst", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "summary.json", NULL);
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *summary;
  gint64 bytes;

  run_gen ("--scenario", "healthy", "--out", out, "--size", "6M", "--summary", summary_path, NULL);
  summary = load_json_object (summary_path, &parser);
  bytes = summary_int (summary, "bytes");
  g_assert_cmpint (bytes, >=, 6 * 1024 * 1024);
  g_assert_cmpint (bytes, <, 6 * 1024 * 1024 + 1024 * 1024);
  g_assert_cmpint (summary_int (summary, "steps"), >, 3);
  g_assert_cmpint (summary_int (summary, "file_bytes"), <, bytes);
  cp_test_rm_rf (dir);
}

/* Bad command lines fail with a message and no crash. */
static void
test_usage_errors (void)
{
  const char *cases[][6] = {
    { "--scenario", "no-such-thing", "--out", "x.json", NULL },
    { "--scenario", "healthy", "--out", "x.unknown", NULL },
    { "--scenario", "healthy", "--out", "x.json", "--size", "lots" },
    { "--scenario", "healthy", NULL },
  };
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[8] = { cp_gen_path (), NULL, };
      g_autofree char *err = NULL;
      int status = 0;
      guint n = 1;

      for (guint j = 0; j < 6 && cases[i][j] != NULL; j++)
        argv[n++] = cases[i][j];
      g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL);
      g_assert_false (g_spawn_check_wait_status (status, NULL));
      g_assert_true (strstr (err, "cp-gen: ") != NULL);
    }
  cp_test_rm_rf (dir);
}

/* The shipped sample is what the documented command makes. */
static void
test_sample (void)
{
  const char *root = g_getenv ("CP_SOURCE_ROOT");
  g_autofree char *sample = NULL;
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *fresh = g_build_filename (dir, "fresh.json", NULL);
  g_autoptr(GBytes) shipped = NULL, made = NULL, unpacked = NULL;

  g_assert_nonnull (root);
  sample = g_build_filename (root, "data", "samples", "sample-training.pt.trace.json.gz", NULL);
  g_assert_true (g_file_test (sample, G_FILE_TEST_IS_REGULAR));
  run_gen ("--scenario", "input-bound", "--steps", "5", "--seed", "7", "--out", fresh, NULL);
  shipped = read_file (sample);
  g_assert_cmpuint (g_bytes_get_size (shipped), <, 4 * 1024 * 1024);
  unpacked = gunzip (shipped);
  made = read_file (fresh);
  g_assert_true (g_bytes_equal (unpacked, made));
  cp_test_rm_rf (dir);
}

/* ------------------------------------------------------------------------ */
/* XPlane: an independent protobuf wire decoder, just enough to check the
 * structure the generator writes and to read its events back. */

typedef struct
{
  const guint8 *p;
  const guint8 *end;
} Wire;

typedef struct
{
  guint         field;
  guint         type;
  guint64       v;
  const guint8 *data;
  gsize         len;
} WireField;

static guint64
wire_varint (Wire *w)
{
  guint64 v = 0;

  for (int shift = 0; shift < 70; shift += 7)
    {
      guint8 b;

      g_assert_true (w->p < w->end);
      b = *w->p++;
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        return v;
    }
  g_assert_not_reached ();
}

static gboolean
wire_next (Wire      *w,
           WireField *f)
{
  guint64 tag;

  if (w->p >= w->end)
    return FALSE;
  tag = wire_varint (w);
  f->field = (guint) (tag >> 3);
  f->type = (guint) (tag & 7);
  f->data = NULL;
  f->len = 0;
  f->v = 0;
  g_assert_cmpuint (f->field, >, 0);
  switch (f->type)
    {
    case 0:
      f->v = wire_varint (w);
      break;
    case 1:
      g_assert_cmpint (w->end - w->p, >=, 8);
      for (int i = 0; i < 8; i++)
        f->v |= (guint64) w->p[i] << (8 * i);
      w->p += 8;
      break;
    case 2:
      f->len = wire_varint (w);
      g_assert_cmpuint (f->len, <=, (gsize) (w->end - w->p));
      f->data = w->p;
      w->p += f->len;
      break;
    default:
      g_error ("unexpected wire type %u", f->type);
    }
  return TRUE;
}

static Wire
wire_sub (const WireField *f)
{
  Wire w = { f->data, f->data + f->len };

  g_assert_cmpuint (f->type, ==, 2);
  return w;
}

static char *
wire_string (const WireField *f)
{
  g_assert_cmpuint (f->type, ==, 2);
  g_assert_true (g_utf8_validate ((const char *) f->data, f->len, NULL));
  return g_strndup ((const char *) f->data, f->len);
}

/* A map<int64, {id = 1, name = 2}> entry: checks key == id, returns the name. */
static char *
wire_metadata_entry (const WireField *f,
                     gint64          *key_out)
{
  Wire w = wire_sub (f);
  WireField e;
  gint64 key = 0, id = -1;
  char *name = NULL;

  while (wire_next (&w, &e))
    {
      if (e.field == 1)
        key = (gint64) e.v;
      else if (e.field == 2)
        {
          Wire m = wire_sub (&e);
          WireField mf;

          while (wire_next (&m, &mf))
            if (mf.field == 1)
              id = (gint64) mf.v;
            else if (mf.field == 2)
              {
                g_free (name);
                name = wire_string (&mf);
              }
        }
    }
  g_assert_cmpint (key, ==, id);
  g_assert_nonnull (name);
  *key_out = key;
  return name;
}

typedef struct
{
  char   *lane;      /* "h<tid>", "g<stream>" or "c<counter>" */
  gint64  start;     /* ns from the origin */
  gint64  dur;
  char   *name;
  gint64  corr;      /* -1 when none */
  gint64  value;     /* counters */
} Record;

static void
record_free (gpointer p)
{
  Record *r = p;

  g_free (r->lane);
  g_free (r->name);
  g_free (r);
}

static int
record_compare (gconstpointer a,
                gconstpointer b)
{
  const Record *x = *(Record * const *) a, *y = *(Record * const *) b;
  int c = strcmp (x->lane, y->lane);

  if (c != 0)
    return c;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur < y->dur ? -1 : 1;
  c = strcmp (x->name, y->name);
  if (c != 0)
    return c;
  return x->corr < y->corr ? -1 : (x->corr > y->corr);
}

typedef struct
{
  guint       planes, lines, events;
  GPtrArray  *records;
  gboolean    saw_kernel_details, saw_memcpy_details, saw_memset_details, saw_steps, saw_device_caps;
  gboolean    saw_producer, saw_consumer;
  gint64      profile_start;
} XFacts;

static void
decode_plane (const WireField *pf,
              XFacts          *x)
{
  Wire w = wire_sub (pf);
  WireField f;
  g_autofree char *name = NULL;
  g_autoptr(GHashTable) stat_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) event_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) stats = g_ptr_array_new_with_free_func (g_free);
  gboolean gpu, host;

  /* Metadata follows the lines on the wire: collect everything first. */
  while (wire_next (&w, &f))
    {
      gint64 key;
      char *md;

      switch (f.field)
        {
        case 1: g_assert_cmpuint (f.type, ==, 0); break;
        case 2: g_free (name); name = wire_string (&f); break;
        case 3: g_ptr_array_add (lines, g_memdup2 (&f, sizeof f)); break;
        case 4:
          md = wire_metadata_entry (&f, &key);
          g_assert_false (g_hash_table_contains (event_names, &key));
          g_hash_table_insert (event_names, g_memdup2 (&key, sizeof key), md);
          break;
        case 5:
          md = wire_metadata_entry (&f, &key);
          g_assert_false (g_hash_table_contains (stat_names, &key));
          g_hash_table_insert (stat_names, g_memdup2 (&key, sizeof key), md);
          break;
        case 6: g_ptr_array_add (stats, g_memdup2 (&f, sizeof f)); break;
        default: g_error ("unexpected XPlane field %u", f.field);
        }
    }
  g_assert_nonnull (name);
  x->planes++;
  gpu = g_str_equal (name, "/device:GPU:0");
  host = g_str_equal (name, "/host:CPU");
  g_assert_true (gpu || host || g_str_equal (name, "Task Environment"));

  /* Stat metadata ids count from 1 within the plane. */
  for (gint64 id = 1; id <= (gint64) g_hash_table_size (stat_names); id++)
    g_assert_true (g_hash_table_contains (stat_names, &id));

  for (guint i = 0; i < stats->len; i++)
    {
      Wire sw = wire_sub (g_ptr_array_index (stats, i));
      WireField sf;
      const char *sname = NULL;

      while (wire_next (&sw, &sf))
        if (sf.field == 1)
          {
            gint64 id = (gint64) sf.v;

            sname = g_hash_table_lookup (stat_names, &id);
            g_assert_nonnull (sname);
          }
        else
          {
            if (g_strcmp0 (sname, "profile_start_time") == 0)
              x->profile_start = (gint64) sf.v;
            if (g_strcmp0 (sname, "compute_cap_major") == 0)
              {
                g_assert_cmpuint (sf.v, ==, 9);
                x->saw_device_caps = TRUE;
              }
            if (sf.field == 7)
              {
                gint64 ref = (gint64) sf.v;

                g_assert_true (g_hash_table_contains (stat_names, &ref));
              }
          }
    }

  for (guint l = 0; l < lines->len; l++)
    {
      Wire lw = wire_sub (g_ptr_array_index (lines, l));
      WireField lf;
      gint64 line_id = 0, base = 0, duration_ps = 0, last_offset = -1;
      g_autofree char *line_name = NULL;
      g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (g_free);

      while (wire_next (&lw, &lf))
        switch (lf.field)
          {
          case 1: line_id = (gint64) lf.v; break;
          case 2: g_free (line_name); line_name = wire_string (&lf); break;
          case 3: base = (gint64) lf.v; break;
          case 4: g_ptr_array_add (events, g_memdup2 (&lf, sizeof lf)); break;
          case 9: duration_ps = (gint64) lf.v; break;
          default: g_error ("unexpected XLine field %u", lf.field);
          }
      g_assert_nonnull (line_name);
      x->lines++;
      if (gpu && line_id != G_MAXINT64)
        g_assert_true (g_str_has_prefix (line_name, "Stream #"));
      if (line_id == G_MAXINT64)
        {
          g_assert_cmpstr (line_name, ==, "_counters_");
          g_assert_cmpint (base, ==, 0);
        }

      for (guint e = 0; e < events->len; e++)
        {
          Wire ew = wire_sub (g_ptr_array_index (events, e));
          WireField ef;
          gint64 offset_ps = 0, dur_ps = 0, md = 0, corr = -1;
          double value = 0;
          Record *r;

          while (wire_next (&ew, &ef))
            switch (ef.field)
              {
              case 1: md = (gint64) ef.v; break;
              case 2: offset_ps = (gint64) ef.v; break;
              case 3: dur_ps = (gint64) ef.v; break;
              case 4:
                {
                  Wire sw = wire_sub (&ef);
                  WireField sf;
                  const char *sname = NULL;

                  while (wire_next (&sw, &sf))
                    if (sf.field == 1)
                      {
                        gint64 id = (gint64) sf.v;

                        sname = g_hash_table_lookup (stat_names, &id);
                        g_assert_nonnull (sname);
                      }
                    else
                      {
                        g_assert_nonnull (sname);
                        if (g_str_equal (sname, "correlation_id"))
                          corr = (gint64) sf.v;
                        else if (sf.field == 2)
                          memcpy (&value, &sf.v, sizeof value);
                        if (sf.field == 7)
                          {
                            gint64 ref = (gint64) sf.v;
                            const char *s = g_hash_table_lookup (stat_names, &ref);

                            g_assert_nonnull (s);
                            if (g_str_equal (sname, "kernel_details"))
                              {
                                g_assert_true (g_str_has_prefix (s, "regs:") && strstr (s, " grid:") && strstr (s, " occ_pct:"));
                                x->saw_kernel_details = TRUE;
                              }
                            else if (g_str_equal (sname, "memcpy_details"))
                              {
                                g_assert_true (g_str_has_prefix (s, "kind_src:") && strstr (s, " size:"));
                                x->saw_memcpy_details = TRUE;
                              }
                            else if (g_str_equal (sname, "Memset_details"))
                              {
                                g_assert_true (strstr (s, "num_bytes:") != NULL);
                                x->saw_memset_details = TRUE;
                              }
                          }
                        if (g_str_equal (sname, "step_num"))
                          x->saw_steps = TRUE;
                        if (g_str_equal (sname, "_p"))
                          x->saw_producer = TRUE;
                        if (g_str_equal (sname, "_c"))
                          x->saw_consumer = TRUE;
                      }
                }
                break;
              default:
                g_error ("unexpected XEvent field %u", ef.field);
              }
          g_assert_true (g_hash_table_contains (event_names, &md));
          g_assert_cmpint (offset_ps % 1000, ==, 0);
          g_assert_cmpint (offset_ps, >=, last_offset);
          last_offset = offset_ps;
          if (line_id != G_MAXINT64)
            g_assert_cmpint (offset_ps + dur_ps, <=, duration_ps);
          x->events++;

          r = g_new0 (Record, 1);
          r->start = x->profile_start + base + offset_ps / 1000;   /* absolute for now */
          r->dur = dur_ps / 1000;
          r->name = g_strdup (g_hash_table_lookup (event_names, &md));
          r->corr = corr;
          if (line_id == G_MAXINT64)
            {
              r->lane = g_strdup_printf ("c%s", r->name);
              r->value = (gint64) value;
            }
          else
            r->lane = g_strdup_printf ("%c%" G_GINT64_FORMAT, host ? 'h' : 'g', line_id);
          g_ptr_array_add (x->records, r);
        }
    }
}

static void
decode_xspace (GBytes *bytes,
               XFacts *x)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  Wire w = { data, data + len };
  WireField f;
  g_autoptr(GPtrArray) planes = g_ptr_array_new_with_free_func (g_free);
  gboolean saw_host_name = FALSE;

  memset (x, 0, sizeof *x);
  x->records = g_ptr_array_new_with_free_func (record_free);
  while (wire_next (&w, &f))
    {
      if (f.field == 1)
        g_ptr_array_add (planes, g_memdup2 (&f, sizeof f));
      else if (f.field == 4)
        {
          g_free (wire_string (&f));
          saw_host_name = TRUE;
        }
      else
        g_error ("unexpected XSpace field %u", f.field);
    }
  g_assert_true (saw_host_name);
  /* The wall-clock start lives on Task Environment: read it first. */
  for (guint i = 0; i < planes->len; i++)
    {
      XFacts probe = { 0, };

      probe.records = g_ptr_array_new_with_free_func (record_free);
      decode_plane (g_ptr_array_index (planes, i), &probe);
      if (probe.profile_start != 0)
        x->profile_start = probe.profile_start;
      g_ptr_array_unref (probe.records);
    }
  g_assert_cmpint (x->profile_start, >, 0);
  for (guint i = 0; i < planes->len; i++)
    decode_plane (g_ptr_array_index (planes, i), x);
}

/* The JSON twin's events in the same form. */
static GPtrArray *
json_records (JsonObject *root,
              gint64      origin_ns)
{
  JsonArray *events = json_object_get_array_member (root, "traceEvents");
  gint64 base = json_object_get_int_member (root, "baseTimeNanoseconds");
  GPtrArray *records = g_ptr_array_new_with_free_func (record_free);

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");
      const char *cat = json_object_get_string_member_with_default (ev, "cat", "");
      JsonObject *args;
      Record *r;

      if (!(g_str_equal (ph, "X") && !g_str_equal (cat, "Trace")) && !g_str_equal (ph, "C"))
        continue;
      args = json_object_get_object_member (ev, "args");
      r = g_new0 (Record, 1);
      r->start = base + us_to_ns (json_object_get_member (ev, "ts")) - origin_ns;
      r->name = g_strdup (json_object_get_string_member (ev, "name"));
      r->corr = -1;
      if (g_str_equal (ph, "C"))
        {
          r->lane = g_strdup_printf ("c%s", r->name);
          r->value = json_object_get_int_member (args, "");
        }
      else
        {
          gboolean gpu = g_str_equal (cat, "kernel") || g_str_has_prefix (cat, "gpu_");

          r->dur = us_to_ns (json_object_get_member (ev, "dur"));
          r->lane = g_strdup_printf ("%c%" G_GINT64_FORMAT, gpu ? 'g' : 'h', json_object_get_int_member (ev, "tid"));
          if (json_object_has_member (args, "correlation"))
            r->corr = json_object_get_int_member (args, "correlation");
        }
      g_ptr_array_add (records, r);
    }
  return records;
}

/* Every scenario as XPlane: well-formed, counted as the generator says, and
 * the same events to the ns as its Kineto twin. */
static void
test_xplane_twins (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint s = 0; s < G_N_ELEMENTS (scenarios); s++)
    {
      const char *name = scenarios[s];
      g_autofree char *xp = g_build_filename (dir, "t.xplane.pb", NULL);
      g_autofree char *js = g_build_filename (dir, "t.json", NULL);
      g_autofree char *xsum = g_build_filename (dir, "xsum.json", NULL);
      g_autofree char *jsum = g_build_filename (dir, "jsum.json", NULL);
      g_autofree char *xtruth = g_build_filename (dir, "xtruth.json", NULL);
      g_autofree char *jtruth = g_build_filename (dir, "jtruth.json", NULL);
      g_autoptr(JsonParser) p1 = NULL, p2 = NULL, p3 = NULL, p4 = NULL, p5 = NULL;
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GPtrArray) jrec = NULL;
      JsonObject *xs, *jsummary, *root, *xt, *jt;
      XFacts x;
      gint64 origin;

      g_test_message ("scenario %s", name);
      run_gen ("--scenario", name, "--out", xp, "--steps", "1", "--seed", "3", "--summary", xsum,
               "--truth", xtruth, NULL);
      run_gen ("--scenario", name, "--out", js, "--steps", "1", "--seed", "3", "--summary", jsum,
               "--truth", jtruth, NULL);
      xs = load_json_object (xsum, &p1);
      jsummary = load_json_object (jsum, &p2);
      root = load_json_object (js, &p3);
      xt = load_json_object (xtruth, &p4);
      jt = load_json_object (jtruth, &p5);

      bytes = read_file (xp);
      g_assert_cmpint (g_bytes_get_size (bytes), ==, summary_int (xs, "bytes"));
      decode_xspace (bytes, &x);
      g_assert_cmpuint (x.planes, ==, summary_int (xs, "planes"));
      g_assert_cmpuint (x.lines, ==, summary_int (xs, "lines"));
      g_assert_cmpuint (x.events, ==, summary_int (xs, "events"));
      g_assert_true (x.saw_kernel_details && x.saw_memcpy_details);
      g_assert_true (x.saw_memset_details == (summary_int (xs, "memsets") > 0));
      g_assert_true (x.saw_steps && x.saw_device_caps && x.saw_producer && x.saw_consumer);

      /* Same counts as the JSON twin, less the JSON-only Spans slice. */
      g_assert_cmpint (summary_int (xs, "slices"), ==, summary_int (jsummary, "slices") - 1);
      g_assert_cmpint (summary_int (xs, "kernels"), ==, summary_int (jsummary, "kernels"));
      g_assert_cmpint (summary_int (xs, "transfers"), ==, summary_int (jsummary, "transfers"));
      g_assert_cmpint (summary_int (xs, "flows"), ==, summary_int (jsummary, "flows"));
      g_assert_cmpint (summary_int (xs, "duration_ns"), ==, summary_int (jsummary, "duration_ns"));
      origin = summary_int (xs, "origin_ns");
      g_assert_cmpint (origin, ==, summary_int (jsummary, "origin_ns"));
      g_assert_cmpint (x.profile_start, ==, origin);

      /* The same ground truth. */
      g_assert_cmpint (json_array_get_length (json_object_get_array_member (xt, "ranges")), ==,
                       json_array_get_length (json_object_get_array_member (jt, "ranges")));
      g_assert_cmpint (summary_int (xt, "duration_ns"), ==, summary_int (jt, "duration_ns"));

      /* The same events, to the ns. */
      for (guint i = 0; i < x.records->len; i++)
        ((Record *) g_ptr_array_index (x.records, i))->start -= origin;
      jrec = json_records (root, origin);
      g_assert_cmpuint (x.records->len, ==, jrec->len);
      g_ptr_array_sort (x.records, record_compare);
      g_ptr_array_sort (jrec, record_compare);
      for (guint i = 0; i < jrec->len; i++)
        {
          Record *a = g_ptr_array_index (x.records, i), *b = g_ptr_array_index (jrec, i);

          g_assert_cmpstr (a->lane, ==, b->lane);
          g_assert_cmpint (a->start, ==, b->start);
          g_assert_cmpint (a->dur, ==, b->dur);
          g_assert_cmpstr (a->name, ==, b->name);
          g_assert_cmpint (a->corr, ==, b->corr);
          g_assert_cmpint (a->value, ==, b->value);
        }
      g_assert_cmpint (((Record *) g_ptr_array_index (jrec, 0))->start, >=, 0);
      g_ptr_array_unref (x.records);
    }
  cp_test_rm_rf (dir);
}

/* Compressed XPlane holds exactly the plain bytes; --size works too. */
static void
test_xplane_compression_size (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *plain = g_build_filename (dir, "t.xplane.pb", NULL);
  g_autofree char *gz = g_build_filename (dir, "t.xplane.pb.gz", NULL);
  g_autofree char *zst = g_build_filename (dir, "t.xplane.pb.zst", NULL);
  g_autofree char *sized = g_build_filename (dir, "s.pb", NULL);
  g_autofree char *summary_path = g_build_filename (dir, "summary.json", NULL);
  g_autoptr(GBytes) bp = NULL, bg = NULL, bz = NULL, ug = NULL, uz = NULL, bs = NULL;
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *summary;
  XFacts x;

  run_gen ("--scenario", "healthy", "--out", plain, "--steps", "2", NULL);
  run_gen ("--scenario", "healthy", "--out", gz, "--steps", "2", NULL);
  run_gen ("--scenario", "healthy", "--out", zst, "--steps", "2", NULL);
  bp = read_file (plain);
  bg = read_file (gz);
  bz = read_file (zst);
  ug = gunzip (bg);
  uz = unzstd (bz);
  g_assert_true (g_bytes_equal (ug, bp));
  g_assert_true (g_bytes_equal (uz, bp));

  run_gen ("--scenario", "launch-bound", "--out", sized, "--format", "xplane", "--size", "2M",
           "--summary", summary_path, NULL);
  summary = load_json_object (summary_path, &parser);
  g_assert_cmpint (summary_int (summary, "bytes"), >=, 2 * 1024 * 1024);
  g_assert_cmpint (summary_int (summary, "bytes"), <, 3 * 1024 * 1024);
  bs = read_file (sized);
  decode_xspace (bs, &x);
  g_assert_cmpuint (x.events, ==, summary_int (summary, "events"));
  g_ptr_array_unref (x.records);
  cp_test_rm_rf (dir);
}

/* ------------------------------------------------------------------------ */
/* Scenarios for the steady-state window: each truth against the written
 * file, counted again here from the raw events and, where one applies, by
 * the project's independent Python counters (the *-count.py scripts and
 * kernel-busy.py). */

/* Runs tests/script on path; its one JSON object, or NULL without python3. */
static JsonObject *
run_counter (const char *script,
             const char *path,
             JsonParser *parser)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *file = g_build_filename (g_getenv ("G_TEST_SRCDIR"), script, NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { python, file, path, NULL };
  int status = 0;

  if (python == NULL)
    {
      g_test_message ("python3 not found: %s not run on %s", script, path);
      return NULL;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

typedef struct
{
  gint64 a;
  gint64 b;
} Span;

static int
span_compare (gconstpointer x,
              gconstpointer y)
{
  const Span *p = x, *q = y;

  return p->a < q->a ? -1 : (p->a > q->a);
}

static int
ns_compare (gconstpointer x,
            gconstpointer y)
{
  gint64 p = *(const gint64 *) x, q = *(const gint64 *) y;

  return p < q ? -1 : (p > q);
}

static void
span_add (GArray *spans,
          gint64  a,
          gint64  b)
{
  Span sp = { a, b };

  g_array_append_val (spans, sp);
}

/* |U(spans) ∩ [a, b)| */
static gint64
union_within (GArray *spans,
              gint64  a,
              gint64  b)
{
  gint64 total = 0, cs = 0, ce = G_MININT64;

  g_array_sort (spans, span_compare);
  for (guint i = 0; i <= spans->len; i++)
    {
      const Span *sp = i < spans->len ? &g_array_index (spans, Span, i) : NULL;

      if (sp != NULL && sp->a <= ce)
        {
          ce = MAX (ce, sp->b);
          continue;
        }
      if (ce > cs)
        total += MAX (0, MIN (ce, b) - MAX (cs, a));
      if (sp != NULL)
        {
          cs = sp->a;
          ce = sp->b;
        }
    }
  return total;
}

static gint64
int_member (JsonObject *o,
            const char *key)
{
  g_assert_true (json_object_has_member (o, key));
  return json_object_get_int_member (o, key);
}

/* kernel-busy.py's union of the kernels' intervals on a device (Kineto's
 * device, an XPlane GPU plane's id), or -1 without python3. */
static gint64
counted_kernel_busy (const char *capture,
                     gint64      device)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *counted = run_counter ("kernel-busy.py", capture, parser);
  g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT, device);

  if (counted == NULL)
    return -1;
  return int_member (json_object_get_object_member (json_object_get_object_member (counted, "devices"), key),
                     "kernel_busy_ns");
}

/* What a Kineto capture without step markers holds, ns from its origin
 * (the earliest timestamp). */
typedef struct
{
  GArray  *loaders;        /* DataLoader __next__ spans */
  GArray  *kernels;
  guint    markers;        /* ProfilerStep#N */
  gboolean single, multi;  /* which DataLoader iterator */
  gint64   end;            /* the last event's end */
  gint64   longest_free;   /* cudaFree */
  gint64   first_launch;   /* the first cudaLaunchKernel's duration */
} LoopFacts;

static void
collect_loop_facts (JsonObject *root,
                    LoopFacts  *f)
{
  JsonArray *events = json_object_get_array_member (root, "traceEvents");
  gint64 origin = G_MAXINT64, first_launch_ts = G_MAXINT64;

  memset (f, 0, sizeof *f);
  f->loaders = g_array_new (FALSE, FALSE, sizeof (Span));
  f->kernels = g_array_new (FALSE, FALSE, sizeof (Span));
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);

      if (json_object_has_member (ev, "ts"))
        origin = MIN (origin, us_to_ns (json_object_get_member (ev, "ts")));
    }
  f->end = G_MININT64;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *cat = json_object_get_string_member_with_default (ev, "cat", "");
      const char *name = json_object_get_string_member_with_default (ev, "name", "");
      gint64 ts, dur;

      if (!json_object_has_member (ev, "ts"))
        continue;
      ts = us_to_ns (json_object_get_member (ev, "ts")) - origin;
      dur = json_object_has_member (ev, "dur") ? us_to_ns (json_object_get_member (ev, "dur")) : 0;
      f->end = MAX (f->end, ts + dur);
      if (!g_str_equal (json_object_get_string_member (ev, "ph"), "X"))
        continue;
      if (g_str_has_prefix (name, "ProfilerStep#"))
        f->markers++;
      if (g_str_has_prefix (name, "enumerate(DataLoader)#") && g_str_has_suffix (name, ".__next__"))
        {
          span_add (f->loaders, ts, ts + dur);
          f->single |= strstr (name, "_SingleProcessDataLoaderIter") != NULL;
          f->multi |= strstr (name, "_MultiProcessingDataLoaderIter") != NULL;
        }
      if (g_str_equal (cat, "kernel"))
        span_add (f->kernels, ts, ts + dur);
      if (g_str_equal (cat, "cuda_runtime") && g_str_equal (name, "cudaFree"))
        f->longest_free = MAX (f->longest_free, dur);
      if (g_str_equal (cat, "cuda_runtime") && g_str_equal (name, "cudaLaunchKernel") && ts < first_launch_ts)
        {
          first_launch_ts = ts;
          f->first_launch = dur;
        }
    }
  g_array_sort (f->loaders, span_compare);
}

static void
loop_facts_clear (LoopFacts *f)
{
  g_clear_pointer (&f->loaders, g_array_unref);
  g_clear_pointer (&f->kernels, g_array_unref);
}

/* The truth's iterations are the file's: from one __next__ to the next
 * (the last to the capture's end), with the loading and the kernels'
 * union inside each; its steady figures follow from them. Returns the
 * length of iteration 0, the warm-up. */
static gint64
check_iterations (JsonObject *truth,
                  LoopFacts  *f)
{
  JsonArray *its = json_object_get_array_member (truth, "iterations");
  JsonArray *warmup = json_object_get_array_member (truth, "warmup_iterations");
  JsonObject *steady = json_object_get_object_member (truth, "steady");
  g_autoptr(GArray) lengths = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 total = 0, loading = 0, busy = 0, all_busy = 0, median;
  guint n;

  g_assert_cmpuint (f->markers, ==, 0);
  g_assert_cmpuint (json_array_get_length (its), ==, f->loaders->len);
  g_assert_cmpint (int_member (truth, "steps"), ==, f->loaders->len);
  g_assert_cmpint (int_member (truth, "duration_ns"), ==, f->end);
  g_assert_cmpuint (json_array_get_length (warmup), ==, 1);
  g_assert_cmpint (json_array_get_int_element (warmup, 0), ==, 0);
  for (guint i = 0; i < f->loaders->len; i++)
    {
      JsonObject *it = json_array_get_object_element (its, i);
      const Span *ld = &g_array_index (f->loaders, Span, i);
      gint64 end = i + 1 < f->loaders->len ? g_array_index (f->loaders, Span, i + 1).a : f->end;
      gint64 k = union_within (f->kernels, ld->a, end);
      gint64 len = end - ld->a;

      g_assert_cmpint (int_member (it, "start_ns"), ==, ld->a);
      g_assert_cmpint (int_member (it, "end_ns"), ==, end);
      g_assert_cmpint (int_member (it, "loading_ns"), ==, MIN (ld->b, end) - ld->a);
      g_assert_cmpint (int_member (it, "gpu_busy_ns"), ==, k);
      all_busy += k;
      if (i == 0)
        continue;
      g_array_append_val (lengths, len);
      total += len;
      loading += MIN (ld->b, end) - ld->a;
      busy += k;
    }
  /* Every kernel lies in some iteration. */
  g_assert_cmpint (all_busy, ==, union_within (f->kernels, G_MININT64, G_MAXINT64));

  n = lengths->len;
  g_assert_cmpuint (n, >, 0);
  g_array_sort (lengths, ns_compare);
  median = n % 2 ? g_array_index (lengths, gint64, n / 2)
                 : (g_array_index (lengths, gint64, n / 2 - 1) + g_array_index (lengths, gint64, n / 2)) / 2;
  g_assert_cmpint (int_member (steady, "n"), ==, n);
  g_assert_cmpint (int_member (steady, "mean_ns"), ==, (total + n / 2) / n);
  g_assert_cmpint (int_member (steady, "median_ns"), ==, median);
  g_assert_cmpint (int_member (steady, "loading_ns"), ==, loading);
  g_assert_cmpint (int_member (steady, "gpu_busy_ns"), ==, busy);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (steady, "loading_percent"), 100.0 * loading / total, 1e-5);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (steady, "gpu_busy_percent"), 100.0 * busy / total, 1e-5);
  return g_array_index (f->loaders, Span, 1).a - g_array_index (f->loaders, Span, 0).a;
}

/* The kernels' busy time over all iterations: all of the capture's. */
static gint64
iterations_busy (JsonObject *truth)
{
  JsonArray *its = json_object_get_array_member (truth, "iterations");
  gint64 busy = 0;

  for (guint i = 0; i < json_array_get_length (its); i++)
    busy += int_member (json_array_get_object_element (its, i), "gpu_busy_ns");
  return busy;
}

static gboolean
array_has_string (JsonArray  *a,
                  const char *s)
{
  for (guint i = 0; i < json_array_get_length (a); i++)
    if (g_strcmp0 (json_array_get_string_element (a, i), s) == 0)
      return TRUE;
  return FALSE;
}

/* warmup-input-bound and its fixed run (--loader-workers 4): iterations
 * without step markers as the truth says, a warm-up of seconds that the
 * fixed run makes longer while its steady iterations get shorter (so the
 * mean over all iterations gets worse), the kernels' busy time as
 * kernel-busy.py counts it, and an XPlane twin with the same truth. */
static void
test_warmup_loop (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(JsonParser) first_truth = NULL;
  gint64 warm[2], steady_mean[2], all_mean[2];
  double loading[2];

  for (guint r = 0; r < 2; r++)
    {
      g_autofree char *capture = g_strdup_printf ("%s/loop%u.json", dir, r);
      g_autofree char *truth_path = g_strdup_printf ("%s/loop%u.truth.json", dir, r);
      g_autoptr(JsonParser) parser = NULL, tparser = NULL;
      JsonObject *root, *truth;
      JsonArray *expect;
      LoopFacts f;
      gint64 counted;

      if (r == 0)
        run_gen ("--scenario", "warmup-input-bound", "--out", capture, "--truth", truth_path, NULL);
      else
        run_gen ("--scenario", "warmup-input-bound", "--loader-workers", "4", "--out", capture,
                 "--truth", truth_path, NULL);
      root = load_json_object (capture, &parser);
      truth = load_json_object (truth_path, &tparser);
      collect_loop_facts (root, &f);
      warm[r] = check_iterations (truth, &f);
      steady_mean[r] = int_member (json_object_get_object_member (truth, "steady"), "mean_ns");
      loading[r] = json_object_get_double_member (json_object_get_object_member (truth, "steady"), "loading_percent");
      all_mean[r] = (f.end - g_array_index (f.loaders, Span, 0).a) / (gint64) f.loaders->len;
      g_test_message ("loader workers %s: warm-up %" G_GINT64_FORMAT " ns, steady mean %" G_GINT64_FORMAT
                      " ns, loading %.1f%%, mean of all %" G_GINT64_FORMAT " ns",
                      r ? "4" : "0", warm[r], steady_mean[r], loading[r], all_mean[r]);

      /* The fixed run expects nothing; the first the input-bound rule. */
      expect = json_object_get_array_member (truth, "expect");
      g_assert_cmpuint (json_array_get_length (expect), ==, r ? 0 : 1);
      g_assert_true (r || array_has_string (expect, "input-bound"));
      g_assert_true (f.single == (r == 0) && f.multi == (r == 1));
      g_assert_cmpint (json_object_get_int_member_with_default (truth, "loader_workers", 0), ==, r ? 4 : 0);
      /* The warm-up: the CUDA context and the first launch's loading. */
      g_assert_cmpint (f.longest_free, >=, G_GINT64_CONSTANT (1100000000));
      g_assert_cmpint (f.first_launch, >=, G_GINT64_CONSTANT (1500000000));

      counted = counted_kernel_busy (capture, 0);
      if (counted >= 0)
        g_assert_cmpint (counted, ==, iterations_busy (truth));
      if (r == 0)
        first_truth = g_steal_pointer (&tparser);
      loop_facts_clear (&f);
    }

  /* What the scenario promises, seed 1. */
  g_assert_cmpint (warm[0], >, G_GINT64_CONSTANT (4200000000));
  g_assert_cmpint (warm[0], <, G_GINT64_CONSTANT (5000000000));
  g_assert_cmpint (steady_mean[0], >, 150000000);
  g_assert_cmpint (steady_mean[0], <, 170000000);
  g_assert_cmpfloat (loading[0], >, 30);
  g_assert_cmpfloat (loading[0], <, 36);
  g_assert_cmpint (steady_mean[1], >, 110000000);
  g_assert_cmpint (steady_mean[1], <, 125000000);
  g_assert_cmpfloat (loading[1], <, 6);
  /* The trap: the fix shortens the steady iterations and lengthens the
   * warm-up, so the mean over all iterations gets worse. */
  g_assert_cmpint (warm[1], >, warm[0]);
  g_assert_cmpint (steady_mean[1], <, steady_mean[0]);
  g_assert_cmpint (all_mean[1], >, all_mean[0]);

  /* The XPlane capture: the same simulation, the same truth, the same
   * kernels. */
  {
    g_autofree char *capture = g_build_filename (dir, "loop.xplane.pb", NULL);
    g_autofree char *truth_path = g_build_filename (dir, "loop.xplane.truth.json", NULL);
    g_autoptr(JsonParser) tparser = NULL;
    JsonObject *xt, *jt = json_node_get_object (json_parser_get_root (first_truth));
    gint64 counted;

    run_gen ("--scenario", "warmup-input-bound", "--out", capture, "--truth", truth_path, NULL);
    xt = load_json_object (truth_path, &tparser);
    g_assert_true (json_node_equal (json_object_get_member (xt, "iterations"), json_object_get_member (jt, "iterations")));
    g_assert_true (json_node_equal (json_object_get_member (xt, "steady"), json_object_get_member (jt, "steady")));
    counted = counted_kernel_busy (capture, 0);
    if (counted >= 0)
      g_assert_cmpint (counted, ==, iterations_busy (xt));
  }
  cp_test_rm_rf (dir);
}

/* The allocated total after each ProfilerStep's last allocator event is
 * the truth's: memory-oscillating's cycle (and no memory-leak expected),
 * memory-leak's 512 MiB a step; memory-count.py finds the truth's peaks. */
static void
test_memory_step_ends (void)
{
  static const gint64 cycle_mib[] = { 96, 128, 130, 192, 320, 162, 264, 320 };
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint c = 0; c < 2; c++)
    {
      gboolean leak = c == 1;
      g_autofree char *capture = g_strdup_printf ("%s/memory%u.json", dir, c);
      g_autofree char *truth_path = g_strdup_printf ("%s/memory%u.truth.json", dir, c);
      g_autoptr(JsonParser) parser = NULL, tparser = NULL, mparser = json_parser_new ();
      g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (Span));
      g_autoptr(GArray) mem_ts = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) mem_total = g_array_new (FALSE, FALSE, sizeof (gint64));
      JsonObject *root, *truth, *mem, *counted;
      JsonArray *events, *ends, *expect;
      gint64 base;

      if (leak)
        run_gen ("--scenario", "memory-leak", "--steps", "3", "--out", capture, "--truth", truth_path, NULL);
      else
        run_gen ("--scenario", "memory-oscillating", "--out", capture, "--truth", truth_path, NULL);
      root = load_json_object (capture, &parser);
      truth = load_json_object (truth_path, &tparser);
      base = json_object_get_int_member (root, "baseTimeNanoseconds");
      events = json_object_get_array_member (root, "traceEvents");
      for (guint i = 0; i < json_array_get_length (events); i++)
        {
          JsonObject *ev = json_array_get_object_element (events, i);
          const char *name = json_object_get_string_member_with_default (ev, "name", "");
          gint64 ts;

          if (!json_object_has_member (ev, "ts"))
            continue;
          ts = base + us_to_ns (json_object_get_member (ev, "ts"));
          if (g_str_has_prefix (name, "ProfilerStep#"))
            span_add (steps, ts, ts + us_to_ns (json_object_get_member (ev, "dur")));
          else if (g_str_equal (name, "[memory]"))
            {
              gint64 total = json_object_get_int_member (json_object_get_object_member (ev, "args"), "Total Allocated");

              g_array_append_val (mem_ts, ts);
              g_array_append_val (mem_total, total);
            }
        }
      g_array_sort (steps, span_compare);

      mem = json_object_get_object_member (truth, "memory");
      ends = json_object_get_array_member (mem, "step_end_allocated_bytes");
      g_assert_cmpuint (json_array_get_length (ends), ==, steps->len);
      g_assert_cmpuint (steps->len, ==, leak ? 3 : 3 * G_N_ELEMENTS (cycle_mib));
      for (guint k = 0; k < steps->len; k++)
        {
          const Span *st = &g_array_index (steps, Span, k);
          gint64 at_end = -1, last_ts = G_MININT64;

          /* The file is in step order; within a step the last event wins. */
          for (guint i = 0; i < mem_ts->len; i++)
            {
              gint64 ts = g_array_index (mem_ts, gint64, i);

              if (ts >= st->a && ts <= st->b && ts >= last_ts)
                {
                  last_ts = ts;
                  at_end = g_array_index (mem_total, gint64, i);
                }
            }
          g_assert_cmpint (json_array_get_int_element (ends, k), ==, at_end);
          if (leak)
            g_assert_cmpint (at_end, ==, (G_GINT64_CONSTANT (4) << 30) + (gint64) (k + 1) * (512 << 20));
          else
            g_assert_cmpint (at_end, ==, cycle_mib[k % G_N_ELEMENTS (cycle_mib)] << 20);
        }
      expect = json_object_get_array_member (truth, "expect");
      g_assert_true (array_has_string (expect, "memory-leak") == leak);
      g_assert_cmpuint (json_array_get_length (expect), ==, leak ? 1 : 0);
      g_assert_true (array_has_string (json_object_get_array_member (truth, "related"), "memory-headroom"));

      counted = run_counter ("memory-count.py", capture, mparser);
      if (counted != NULL)
        {
          JsonObject *dev = json_array_get_object_element (
            json_object_get_array_member (json_object_get_object_member (counted, capture), "devices"), 0);

          g_assert_cmpint (int_member (dev, "events"), ==, int_member (mem, "events"));
          g_assert_cmpint (int_member (dev, "peak_allocated"), ==, int_member (mem, "peak_allocated_bytes"));
          g_assert_cmpint (int_member (dev, "peak_reserved"), ==, int_member (mem, "peak_reserved_bytes"));
        }
    }
  cp_test_rm_rf (dir);
}

/* An XLA capture's events, decoded with the wire reader above: times in ns
 * since the epoch (line timestamp + offset), and the stats the XLA
 * scenarios' truths rest on. */
typedef struct
{
  char   *plane;
  char   *line;
  char   *name;
  gint64  start;
  gint64  end;
  gint64  corr;      /* correlation_id, -1 */
  char   *module;    /* module_name, else hlo_module; NULL */
} XlaEvent;

static void
xla_event_free (gpointer p)
{
  XlaEvent *e = p;

  g_free (e->plane);
  g_free (e->line);
  g_free (e->name);
  g_free (e->module);
  g_free (e);
}

/* One XStat: its name and its text (a string, or a reference to a stat
 * name) or integer; owned keeps a string alive. */
static void
read_stat (const WireField  *f,
           GHashTable       *stat_names,
           const char      **name,
           const char      **text,
           gint64           *value,
           char            **owned)
{
  Wire w = wire_sub (f);
  WireField sf;

  while (wire_next (&w, &sf))
    {
      gint64 id = (gint64) sf.v;

      if (sf.field == 1)
        *name = g_hash_table_lookup (stat_names, &id);
      else if (sf.field == 7)
        *text = g_hash_table_lookup (stat_names, &id);
      else if (sf.field == 5)
        {
          g_free (*owned);
          *text = *owned = wire_string (&sf);
        }
      else if (sf.field == 3 || sf.field == 4)
        *value = (gint64) sf.v;
    }
}

/* The events of every plane, and each plane's string stats as
 * "plane/stat" -> value in plane_stats. */
static GPtrArray *
decode_xla (GBytes     *bytes,
            GHashTable *plane_stats)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  Wire w = { data, data + len };
  WireField f;
  GPtrArray *out = g_ptr_array_new_with_free_func (xla_event_free);

  while (wire_next (&w, &f))
    {
      Wire pw;
      WireField pf;
      g_autofree char *pname = NULL;
      g_autoptr(GHashTable) stat_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      g_autoptr(GHashTable) event_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GPtrArray) stats = g_ptr_array_new_with_free_func (g_free);

      if (f.field != 1)
        continue;
      pw = wire_sub (&f);
      while (wire_next (&pw, &pf))
        {
          gint64 key;
          char *md;

          if (pf.field == 2)
            {
              g_free (pname);
              pname = wire_string (&pf);
            }
          else if (pf.field == 3)
            g_ptr_array_add (lines, g_memdup2 (&pf, sizeof pf));
          else if (pf.field == 4 || pf.field == 5)
            {
              md = wire_metadata_entry (&pf, &key);
              g_hash_table_insert (pf.field == 4 ? event_names : stat_names, g_memdup2 (&key, sizeof key), md);
            }
          else if (pf.field == 6)
            g_ptr_array_add (stats, g_memdup2 (&pf, sizeof pf));
        }
      g_assert_nonnull (pname);


      for (guint i = 0; i < stats->len; i++)
        {
          const char *sname = NULL, *sval = NULL;
          g_autofree char *owned = NULL;
          gint64 ival = 0;

          read_stat (g_ptr_array_index (stats, i), stat_names, &sname, &sval, &ival, &owned);
          if (sname != NULL && sval != NULL)
            g_hash_table_insert (plane_stats, g_strdup_printf ("%s/%s", pname, sname), g_strdup (sval));
        }
      for (guint l = 0; l < lines->len; l++)
        {
          Wire lw = wire_sub (g_ptr_array_index (lines, l));
          WireField lf;
          g_autofree char *lname = NULL;
          gint64 base = 0;
          g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func (g_free);

          while (wire_next (&lw, &lf))
            if (lf.field == 2)
              {
                g_free (lname);
                lname = wire_string (&lf);
              }
            else if (lf.field == 3)
              base = (gint64) lf.v;
            else if (lf.field == 4)
              g_ptr_array_add (events, g_memdup2 (&lf, sizeof lf));
          for (guint e = 0; e < events->len; e++)
            {
              Wire ew = wire_sub (g_ptr_array_index (events, e));
              WireField ef;
              XlaEvent *x = g_new0 (XlaEvent, 1);
              gint64 md = 0, offset_ps = 0, dur_ps = 0;
              g_autofree char *hlo_module = NULL;

              x->corr = -1;
              while (wire_next (&ew, &ef))
                if (ef.field == 1)
                  md = (gint64) ef.v;
                else if (ef.field == 2)
                  offset_ps = (gint64) ef.v;
                else if (ef.field == 3)
                  dur_ps = (gint64) ef.v;
                else if (ef.field == 4)
                  {
                    const char *sname = NULL, *sval = NULL;
                    g_autofree char *owned = NULL;
                    gint64 ival = 0;

                    read_stat (&ef, stat_names, &sname, &sval, &ival, &owned);
                    if (g_strcmp0 (sname, "correlation_id") == 0)
                      x->corr = ival;
                    else if (g_strcmp0 (sname, "module_name") == 0)
                      x->module = g_strdup (sval);
                    else if (g_strcmp0 (sname, "hlo_module") == 0)
                      hlo_module = g_strdup (sval);
                  }
              if (x->module == NULL)
                x->module = g_steal_pointer (&hlo_module);
              x->plane = g_strdup (pname);
              x->line = g_strdup (lname);
              x->name = g_strdup (g_hash_table_lookup (event_names, &md));
              g_assert_nonnull (x->name);
              x->start = base + offset_ps / 1000;
              x->end = x->start + dur_ps / 1000;
              g_ptr_array_add (out, x);
            }
        }
    }
  return out;
}

/* xla-tf-two-gpu-apart: per GPU its Steps line's windows, the kernels'
 * busy time in them, the rest (the wait for the host, whose launch of the
 * step's first kernel ends just before it) and how far apart the GPUs'
 * first steps are; with one step each and with --steps 3. */
static void
test_xla_two_gpu_apart (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  const char *steps[] = { NULL, "3" };

  for (guint c = 0; c < G_N_ELEMENTS (steps); c++)
    {
      g_autofree char *capture = g_strdup_printf ("%s/apart%u.xplane.pb", dir, c);
      g_autofree char *truth_path = g_strdup_printf ("%s/apart%u.truth.json", dir, c);
      g_autoptr(JsonParser) tparser = NULL;
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GPtrArray) events = NULL;
      g_autoptr(GHashTable) plane_stats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_autoptr(GHashTable) launch_end = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      JsonObject *truth, *devices;
      gint64 first0 = 0;
      guint n_steps = steps[c] ? 3 : 1;

      if (steps[c] != NULL)
        run_gen ("--scenario", "xla-tf-two-gpu-apart", "--steps", steps[c], "--out", capture, "--truth", truth_path, NULL);
      else
        run_gen ("--scenario", "xla-tf-two-gpu-apart", "--out", capture, "--truth", truth_path, NULL);
      truth = load_json_object (truth_path, &tparser);
      bytes = read_file (capture);
      events = decode_xla (bytes, plane_stats);
      g_assert_cmpint (int_member (truth, "steps"), ==, n_steps);
      devices = json_object_get_object_member (truth, "devices");
      g_assert_cmpuint (json_object_get_size (devices), ==, 2);

      for (guint i = 0; i < events->len; i++)
        {
          XlaEvent *x = g_ptr_array_index (events, i);

          if (g_str_equal (x->name, "cudaLaunchKernel"))
            g_hash_table_insert (launch_end, g_memdup2 (&x->corr, sizeof x->corr), g_memdup2 (&x->end, sizeof x->end));
        }
      for (gint d = 0; d < 2; d++)
        {
          g_autofree char *plane = g_strdup_printf ("/device:GPU:%d", d);
          g_autofree char *key = g_strdup_printf ("%d", d);
          g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (Span));
          g_autoptr(GArray) kernels = g_array_new (FALSE, FALSE, sizeof (Span));
          JsonObject *want = json_object_get_object_member (devices, key);
          gint64 window = 0, busy = 0, counted;

          for (guint i = 0; i < events->len; i++)
            {
              XlaEvent *x = g_ptr_array_index (events, i);

              if (!g_str_equal (x->plane, plane))
                continue;
              if (g_str_equal (x->line, "Steps"))
                span_add (windows, x->start, x->end);
              else
                {
                  const gint64 *launched = g_hash_table_lookup (launch_end, &x->corr);

                  g_assert_nonnull (launched);
                  g_assert_cmpint (*launched, <=, x->start);
                  span_add (kernels, x->start, x->end);
                }
            }
          g_assert_cmpuint (windows->len, ==, n_steps);
          g_array_sort (windows, span_compare);
          for (guint w = 0; w < windows->len; w++)
            {
              const Span *sp = &g_array_index (windows, Span, w);

              /* ~20 ms steps, each waiting 2-3 ms for its host first. */
              g_assert_cmpint (sp->b - sp->a, >, 19000000);
              g_assert_cmpint (sp->b - sp->a, <, 21000000);
              g_assert_cmpint (sp->b - sp->a - union_within (kernels, sp->a, sp->b), >=, 2000000);
              g_assert_cmpint (sp->b - sp->a - union_within (kernels, sp->a, sp->b), <=, 3000000);
              window += sp->b - sp->a;
              busy += union_within (kernels, sp->a, sp->b);
            }
          if (d == 0)
            first0 = g_array_index (windows, Span, 0).a;
          g_assert_cmpint (int_member (want, "window_ns"), ==, window);
          g_assert_cmpint (int_member (want, "busy_ns"), ==, busy);
          g_assert_cmpint (int_member (want, "async_ns"), ==, 0);
          g_assert_cmpint (int_member (want, "host_wait_ns"), ==, window - busy);
          g_assert_cmpint (int_member (want, "apart_ns"), ==, g_array_index (windows, Span, 0).a - first0);
          g_assert_cmpint (int_member (want, "apart_ns"), ==, d ? 650000000 : 0);
          counted = counted_kernel_busy (capture, 1 + d);
          if (counted >= 0)
            g_assert_cmpint (counted, ==, busy);
        }
    }
  cp_test_rm_rf (dir);
}

/* xla-jax-bench-loop: the most executed module and each module's
 * executions, the device's busy time, the part inside the repeated
 * module's executions (each to the end of the kernels it launched) and
 * the span of device work, counted here, by xla-count.py (steps, warm-up)
 * and kernel-busy.py (busy time); an AMD device. */
static void
test_xla_bench_loop (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *capture = g_build_filename (dir, "bench.xplane.pb", NULL);
  g_autofree char *truth_path = g_build_filename (dir, "bench.truth.json", NULL);
  g_autoptr(JsonParser) tparser = NULL, xparser = json_parser_new ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GHashTable) plane_stats = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) executions = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) kernels = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) own = g_array_new (FALSE, FALSE, sizeof (Span));
  JsonObject *truth, *want_exec, *counted;
  const char *repeated = NULL;
  guint most = 0;
  gint64 busy, in_repeated = 0, first = G_MAXINT64, last = G_MININT64, counted_busy;

  run_gen ("--scenario", "xla-jax-bench-loop", "--out", capture, "--truth", truth_path, NULL);
  truth = load_json_object (truth_path, &tparser);
  bytes = read_file (capture);
  events = decode_xla (bytes, plane_stats);
  g_assert_cmpstr (g_hash_table_lookup (plane_stats, "/device:GPU:0/device_vendor"), ==, "AMD");

  for (guint i = 0; i < events->len; i++)
    {
      XlaEvent *x = g_ptr_array_index (events, i);

      if (g_str_equal (x->name, "GpuExecutable::ExecuteThunks"))
        {
          guint n = GPOINTER_TO_UINT (g_hash_table_lookup (executions, x->module)) + 1;

          g_hash_table_insert (executions, x->module, GUINT_TO_POINTER (n));
          if (n > most)
            {
              most = n;
              repeated = x->module;
            }
        }
      else if (g_str_equal (x->plane, "/device:GPU:0"))
        {
          span_add (kernels, x->start, x->end);
          first = MIN (first, x->start);
          last = MAX (last, x->end);
        }
    }
  g_assert_cmpstr (json_object_get_string_member (truth, "repeated_module"), ==, repeated);
  want_exec = json_object_get_object_member (truth, "executions");
  g_assert_cmpuint (json_object_get_size (want_exec), ==, g_hash_table_size (executions));
  {
    GHashTableIter iter;
    gpointer module, n;

    g_hash_table_iter_init (&iter, executions);
    while (g_hash_table_iter_next (&iter, &module, &n))
      g_assert_cmpint (int_member (want_exec, module), ==, GPOINTER_TO_UINT (n));
  }
  g_assert_cmpint (int_member (truth, "steps"), ==, most);
  g_assert_cmpuint (most, ==, 10);

  /* Each execution of the repeated module, to the end of the kernels
   * whose launch lies in it. */
  for (guint i = 0; i < events->len; i++)
    {
      XlaEvent *x = g_ptr_array_index (events, i);
      gint64 end;

      if (!g_str_equal (x->name, "GpuExecutable::ExecuteThunks") || g_strcmp0 (x->module, repeated) != 0)
        continue;
      end = x->end;
      for (guint l = 0; l < events->len; l++)
        {
          XlaEvent *lc = g_ptr_array_index (events, l);

          if (!g_str_equal (lc->name, "hipModuleLaunchKernel") || lc->start < x->start || lc->start > x->end)
            continue;
          for (guint k = 0; k < events->len; k++)
            {
              XlaEvent *kv = g_ptr_array_index (events, k);

              if (kv->corr == lc->corr && g_str_equal (kv->plane, "/device:GPU:0"))
                {
                  end = MAX (end, kv->end);
                  span_add (own, kv->start, kv->end);
                }
            }
        }
      span_add (windows, x->start, end);
    }
  busy = union_within (kernels, G_MININT64, G_MAXINT64);
  for (guint w = 0; w < windows->len; w++)
    in_repeated += union_within (kernels, g_array_index (windows, Span, w).a, g_array_index (windows, Span, w).b);
  g_assert_cmpint (int_member (truth, "device_busy_ns"), ==, busy);
  g_assert_cmpint (int_member (truth, "busy_in_repeated_ns"), ==, in_repeated);
  g_assert_cmpint (int_member (truth, "repeated_kernel_ns"), ==, union_within (own, G_MININT64, G_MAXINT64));
  g_assert_cmpint (int_member (truth, "device_span_ns"), ==, last - first);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (truth, "busy_over_span_percent"),
                                  100.0 * busy / (last - first), 1e-5);
  /* The point of the scenario: the steps hold a small part of the work. */
  g_assert_cmpfloat (100.0 * in_repeated / busy, >, 15);
  g_assert_cmpfloat (100.0 * in_repeated / busy, <, 55);

  counted = run_counter ("xla-count.py", capture, xparser);
  if (counted != NULL)
    {
      g_assert_cmpint (int_member (counted, "steps"), ==, int_member (truth, "steps"));
      g_assert_cmpint (int_member (counted, "warmup_ns"), ==, int_member (truth, "warmup_ns"));
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (counted, "kinds"), "0"), ==, "gpu");
    }
  counted_busy = counted_kernel_busy (capture, 1);
  if (counted_busy >= 0)
    g_assert_cmpint (counted_busy, ==, busy);
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gen/json/scenarios", test_json_scenarios);
  g_test_add_func ("/gen/json/deterministic", test_deterministic);
  g_test_add_func ("/gen/json/compression", test_compression);
  g_test_add_func ("/gen/json/size", test_size);
  g_test_add_func ("/gen/xplane/twins", test_xplane_twins);
  g_test_add_func ("/gen/xplane/compression-size", test_xplane_compression_size);
  g_test_add_func ("/gen/usage-errors", test_usage_errors);
  g_test_add_func ("/gen/sample", test_sample);
  g_test_add_func ("/gen/json/warmup-loop", test_warmup_loop);
  g_test_add_func ("/gen/json/memory-step-ends", test_memory_step_ends);
  g_test_add_func ("/gen/xplane/two-gpu-apart", test_xla_two_gpu_apart);
  g_test_add_func ("/gen/xplane/bench-loop", test_xla_bench_loop);
  return g_test_run ();
}
