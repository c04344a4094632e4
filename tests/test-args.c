/* test-args.c: decoding a slice's arguments for display
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "cp-test-util.h"
#include "formats/cp-args.h"
#include "formats/cp-loader.h"
#include "formats/cp-xplane-reader.h"
#include "model/cp-trace-builder.h"

static CpSliceRef
add (CpTraceBuilder *b,
     guint           lane,
     gint64          start,
     guint32         args)
{
  CpSliceInit init;

  cp_slice_init_clear (&init);
  init.start = start;
  init.dur = 10;
  init.name = cp_trace_builder_intern (b, "op", -1);
  init.args = args;
  return cp_trace_builder_add_slice (b, lane, &init);
}

static const CpArg *
arg (GPtrArray *args,
     guint      i)
{
  return g_ptr_array_index (args, i);
}

static void
test_json (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  const char *json = "{\"External id\": 42, \"Input Dims\": [[8, 3], []], \"name\": \"x\\ty\","
                     " \"ratio\": 0.025, \"ok\": true, \"none\": null, \"nested\": {\"a\": 1}}";
  const char *bad = "{\"unterminated\": ";
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GPtrArray) args = NULL;

  add (b, lane, 0, cp_trace_builder_add_args (b, CP_ARGS_JSON, json, strlen (json)));
  add (b, lane, 100, 0);
  add (b, lane, 200, cp_trace_builder_add_args (b, CP_ARGS_JSON, bad, strlen (bad)));
  add (b, lane, 300, cp_trace_builder_add_args (b, CP_ARGS_JSON, "[1, 2]", 6));
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  args = cp_args_decode (trace, (CpSliceRef) { 0, 0 }, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (args->len, ==, 7);
  /* In the capture's order, values as display text. */
  g_assert_cmpstr (arg (args, 0)->key, ==, "External id");
  g_assert_cmpstr (arg (args, 0)->value, ==, "42");
  g_assert_cmpstr (arg (args, 1)->key, ==, "Input Dims");
  g_assert_cmpstr (arg (args, 1)->value, ==, "[[8,3],[]]");
  g_assert_cmpstr (arg (args, 2)->value, ==, "x\ty");
  g_assert_cmpstr (arg (args, 3)->value, ==, "0.025");
  g_assert_cmpstr (arg (args, 4)->value, ==, "true");
  g_assert_cmpstr (arg (args, 5)->value, ==, "null");
  g_assert_cmpstr (arg (args, 6)->value, ==, "{\"a\":1}");
  g_clear_pointer (&args, g_ptr_array_unref);

  /* No arguments: an empty list. */
  args = cp_args_decode (trace, (CpSliceRef) { 0, 1 }, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (args->len, ==, 0);
  g_clear_pointer (&args, g_ptr_array_unref);
  args = cp_args_decode (trace, (CpSliceRef) { 5, 1 }, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (args->len, ==, 0);
  g_clear_pointer (&args, g_ptr_array_unref);

  /* Damaged or not an object: an error, no crash. */
  args = cp_args_decode (trace, (CpSliceRef) { 0, 2 }, &error);
  g_assert_null (args);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
  g_clear_error (&error);
  args = cp_args_decode (trace, (CpSliceRef) { 0, 3 }, &error);
  g_assert_null (args);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
}

/* cp_args_lookup() reads a few keys in place: scalars as cp_args_decode()
 * shows them, containers and absent keys NULL, and FALSE (nothing) where
 * the text needs the full decoder (an escaped string, damage). */
static void
test_lookup (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  const char *json = "{ \"Collective name\" : \"allreduce\", \"In msg nelems\": 1048576, \"dims\": [[1, \"}\"]],"
                     " \"dtype\": \"Float\", \"nested\": {\"dtype\": \"no\"}, \"ok\": true, \"u\": \"\u00e9t\u00e9\" }";
  const char *utf8 = "{\"name\": \"été\"}";
  const char *escaped = "{\"name\": \"x\\ty\"}";
  const char *bad = "{\"name\": ";
  const char * const keys[] = { "Collective name", "In msg nelems", "dtype", "dims", "absent", "ok", NULL };
  const char * const one[] = { "name", NULL };
  char *v[G_N_ELEMENTS (keys)];
  g_autoptr(CpTrace) trace = NULL;

  add (b, lane, 0, cp_trace_builder_add_args (b, CP_ARGS_JSON, json, strlen (json)));
  add (b, lane, 100, cp_trace_builder_add_args (b, CP_ARGS_JSON, utf8, strlen (utf8)));
  add (b, lane, 200, cp_trace_builder_add_args (b, CP_ARGS_JSON, escaped, strlen (escaped)));
  add (b, lane, 300, cp_trace_builder_add_args (b, CP_ARGS_JSON, bad, strlen (bad)));
  add (b, lane, 400, 0);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  g_assert_true (cp_args_lookup (trace, (CpSliceRef) { 0, 0 }, keys, v));
  g_assert_cmpstr (v[0], ==, "allreduce");
  g_assert_cmpstr (v[1], ==, "1048576");
  g_assert_cmpstr (v[2], ==, "Float");   /* the top level's, not the nested one */
  g_assert_null (v[3]);
  g_assert_null (v[4]);
  g_assert_cmpstr (v[5], ==, "true");
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    g_free (v[k]);

  g_assert_true (cp_args_lookup (trace, (CpSliceRef) { 0, 1 }, one, v));
  g_assert_cmpstr (v[0], ==, "été");
  g_free (v[0]);
  g_assert_false (cp_args_lookup (trace, (CpSliceRef) { 0, 2 }, one, v));
  g_assert_null (v[0]);
  g_assert_false (cp_args_lookup (trace, (CpSliceRef) { 0, 3 }, one, v));
  g_assert_null (v[0]);
  g_assert_true (cp_args_lookup (trace, (CpSliceRef) { 0, 4 }, one, v));
  g_assert_null (v[0]);
}

/* cp_args_lookup_raw() gives each key's value as JSON text, containers
 * and strings whole, the last of a repeated key, and FALSE only where the
 * object itself is malformed. */
static void
test_lookup_raw (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  const char *json = "{ \"Input Dims\" : [[8, 512], [], [\"]\"]], \"name\": \"x\\\"y\", \"nested\": {\"flops\": 1},"
                     " \"flops\": 12, \"Input type\": [\"float\", \"\"], \"flops\": 4.5e3 }";
  const char *bad = "{\"Input Dims\": [[1, 2], \"flops\": 3}";
  const char * const keys[] = { "Input Dims", "name", "flops", "Input type", "absent", NULL };
  const guint8 *v[G_N_ELEMENTS (keys)];
  gsize n[G_N_ELEMENTS (keys)];
  g_autoptr(CpTrace) trace = NULL;

  add (b, lane, 0, cp_trace_builder_add_args (b, CP_ARGS_JSON, json, strlen (json)));
  add (b, lane, 100, cp_trace_builder_add_args (b, CP_ARGS_JSON, bad, strlen (bad)));
  add (b, lane, 200, 0);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  g_assert_true (cp_args_lookup_raw (trace, (CpSliceRef) { 0, 0 }, keys, v, n));
  g_assert_cmpmem (v[0], n[0], "[[8, 512], [], [\"]\"]]", strlen ("[[8, 512], [], [\"]\"]]"));
  g_assert_cmpmem (v[1], n[1], "\"x\\\"y\"", strlen ("\"x\\\"y\""));
  g_assert_cmpmem (v[2], n[2], "4.5e3", 5);   /* the last "flops" of the top level */
  g_assert_cmpmem (v[3], n[3], "[\"float\", \"\"]", strlen ("[\"float\", \"\"]"));
  g_assert_null (v[4]);
  g_assert_cmpuint (n[4], ==, 0);

  g_assert_false (cp_args_lookup_raw (trace, (CpSliceRef) { 0, 1 }, keys, v, n));
  g_assert_null (v[0]);
  g_assert_true (cp_args_lookup_raw (trace, (CpSliceRef) { 0, 2 }, keys, v, n));
  g_assert_null (v[0]);
}

/* On a real capture, json-glib as the oracle: for every top-level member
 * of every slice's arguments, the text cp_args_lookup_raw() gives parses
 * to the same JSON as that member of the whole object. */
static void
test_lookup_raw_real (void)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  guint checked = 0;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  path = g_build_filename (root, "pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz", NULL);
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { l, i };
          CpArgsFormat format;
          const guint8 *data;
          gsize len;
          g_autoptr(JsonParser) whole = json_parser_new ();
          JsonObject *o;
          g_autoptr(GList) members = NULL;

          if (!cp_trace_get_args (trace, ref, &format, &data, &len) || format != CP_ARGS_JSON ||
              !json_parser_load_from_data (whole, (const char *) data, (gssize) len, NULL))
            continue;
          o = json_node_get_object (json_parser_get_root (whole));
          members = json_object_get_members (o);
          for (GList *m = members; m != NULL; m = m->next)
            {
              const char *keys[2] = { m->data, NULL };
              const guint8 *v[1];
              gsize n[1];
              g_autoptr(JsonParser) part = json_parser_new ();
              g_autofree char *want = NULL, *got = NULL;

              g_assert_true (cp_args_lookup_raw (trace, ref, keys, v, n));
              g_assert_nonnull (v[0]);
              g_assert_true (json_parser_load_from_data (part, (const char *) v[0], (gssize) n[0], NULL));
              want = json_to_string (json_object_get_member (o, m->data), FALSE);
              got = json_to_string (json_parser_get_root (part), FALSE);
              g_assert_cmpstr (got, ==, want);
              checked++;
            }
        }
    }
  g_assert_cmpuint (checked, >, 1000);
  g_test_message ("%u members agree", checked);
}

/* On real captures, every slice's arguments: each top-level scalar that
 * cp_args_lookup() finds equals what json-glib decodes for that key (a
 * number in value). */
static void
test_lookup_real (void)
{
  static const char *files[] = {
    "pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz",
    "facebookresearch__HolisticTraceAnalysis/tests/data/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz",
  };
  const char *root = cp_test_shared_traces ();
  guint checked = 0;

  if (root == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = g_build_filename (root, files[f], NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = NULL;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
        {
          const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

          for (guint i = 0; i < s->n; i++)
            {
              CpSliceRef ref = { l, i };
              g_autoptr(GPtrArray) args = cp_args_decode (trace, ref, NULL);
              const char *keys[2] = { NULL, NULL };
              char *v[2] = { NULL, NULL };

              if (args == NULL || args->len == 0)
                continue;
              for (guint k = 0; k < args->len; k++)
                {
                  const CpArg *a = arg (args, k);

                  keys[0] = a->key;
                  if (!cp_args_lookup (trace, ref, keys, v))
                    continue;
                  if (v[0] != NULL)
                    {
                      char *e1, *e2;
                      double x = g_ascii_strtod (v[0], &e1), y = g_ascii_strtod (a->value, &e2);

                      /* A number as written ("40.0"); json-glib prints
                       * its double ("40"). */
                      if (*v[0] != '\0' && *e1 == '\0' && *a->value != '\0' && *e2 == '\0' &&
                          !g_str_equal (v[0], a->value))
                        {
                          /* json-glib wraps integers past G_MAXINT64 (the
                           * large-integer trace's ids); lookup keeps the text. */
                          if (fabs (x) < 9.2e18)
                            g_assert_cmpfloat (x, ==, y);
                        }
                      else
                        g_assert_cmpstr (v[0], ==, a->value);
                      checked++;
                    }
                  else
                    g_assert_true (a->value[0] == '{' || a->value[0] == '[');
                  g_free (v[0]);
                }
            }
        }
    }
  if (checked == 0)
    g_test_skip ("none of the captures is in ../shared/traces");
  g_test_message ("%u arguments agree", checked);
}

static void
test_xstats (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint proc = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, proc, CP_LANE_DEVICE_ANNOTATION, (CpLaneKey) { 1, 0 });
  CpStr k_flops = cp_trace_builder_intern (b, "flops", -1);
  CpStr k_name = cp_trace_builder_intern (b, "hlo_op", -1);
  CpStr v_name = cp_trace_builder_intern (b, "fusion.3", -1);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GPtrArray) args = NULL;
  guint8 rec[16];
  gsize n = 0;

  /* flops: INT64 1000 (zigzag 2000 = 0xd0 0x0f); hlo_op: STRING fusion.3. */
  g_assert_cmpuint (k_flops, <, 128);
  g_assert_cmpuint (v_name, <, 128);
  rec[n++] = (guint8) k_flops;
  rec[n++] = CP_XSTAT_INT64;
  rec[n++] = 0xd0;
  rec[n++] = 0x0f;
  rec[n++] = (guint8) k_name;
  rec[n++] = CP_XSTAT_STRING;
  rec[n++] = (guint8) v_name;
  add (b, lane, 0, cp_trace_builder_add_args (b, CP_ARGS_XSTATS, rec, n));
  /* Truncated: the value is missing. */
  add (b, lane, 100, cp_trace_builder_add_args (b, CP_ARGS_XSTATS, rec, 3));
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  args = cp_args_decode (trace, (CpSliceRef) { 0, 0 }, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (args->len, ==, 2);
  g_assert_cmpstr (arg (args, 0)->key, ==, "flops");
  g_assert_cmpstr (arg (args, 0)->value, ==, "1000");
  g_assert_cmpstr (arg (args, 1)->key, ==, "hlo_op");
  g_assert_cmpstr (arg (args, 1)->value, ==, "fusion.3");
  g_clear_pointer (&args, g_ptr_array_unref);

  args = cp_args_decode (trace, (CpSliceRef) { 0, 1 }, &error);
  g_assert_null (args);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/args/json", test_json);
  g_test_add_func ("/args/xstats", test_xstats);
  g_test_add_func ("/args/lookup", test_lookup);
  g_test_add_func ("/args/lookup-real", test_lookup_real);
  g_test_add_func ("/args/lookup-raw", test_lookup_raw);
  g_test_add_func ("/args/lookup-raw-real", test_lookup_raw_real);

  return g_test_run ();
}
