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
  return g_test_run ();
}
