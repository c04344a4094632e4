/* test-args.c: decoding a slice's arguments for display
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "formats/cp-args.h"
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

  return g_test_run ();
}
