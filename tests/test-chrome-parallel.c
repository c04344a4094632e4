/* test-chrome-parallel.c: the Chrome reader gives the same trace on 1 to N threads
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Events are read ahead on other threads (cp-chrome-parallel.c) and replayed
 * in file order. Each input is loaded on one thread, then on 2, 3 and 4
 * threads with chunks from 64 bytes (every event a chunk border, most chunk
 * starts wrong) to 1 MiB, and everything the trace holds is compared column
 * by column (the reading thread waiting for the workers' chunks, reading
 * those they have not reached itself, or keeping every other chunk to read
 * in full): the string pool in order, processes, lanes and every slice's
 * columns and arguments, counters, flows, instants, steps, metadata and the
 * load report. The parallel loads must also have replayed events, or the
 * comparison would prove nothing. */

#include "config.h"

#include <string.h>

#include "cp-test-util.h"
#include "formats/cp-chrome-private.h"
#include "formats/cp-chrome-reader.h"
#include "formats/cp-loader.h"
#include "model/cp-huge-pages.h"
#include "model/cp-lane.h"
#include "model/cp-string-pool.h"
#include "model/cp-trace.h"

static char *
dump (CpTrace *t)
{
  GString *out = g_string_new (NULL);
  const CpLoadReport *report = cp_trace_get_load_report (t);
  const CpStringPool *pool = cp_trace_get_string_pool (t);
  const CpFlow *flows;
  const CpStep *steps;
  const CpInstant *inst;
  guint n;

  g_string_append_printf (out, "events %" G_GUINT64_FORMAT " skipped %" G_GUINT64_FORMAT
                          " unknown %" G_GUINT64_FORMAT " unmatched %" G_GUINT64_FORMAT
                          " unclosed %" G_GUINT64_FORMAT " truncated %d at %" G_GUINT64_FORMAT
                          " origin %" G_GINT64_FORMAT " duration %" G_GINT64_FORMAT "\n",
                          report->events, report->skipped, report->unknown_phase,
                          report->unmatched_end, report->unclosed_begin, report->truncated,
                          report->stopped_at, cp_trace_get_origin_abs (t), cp_trace_get_duration (t));
  for (guint i = 0; i < cp_load_report_n_warnings (report); i++)
    g_string_append_printf (out, "warning %s\n", cp_load_report_get_warning (report, i)->message);
  for (guint i = 0; i < cp_string_pool_size (pool); i++)
    g_string_append_printf (out, "str %u %s\n", i, cp_string_pool_get (pool, i));
  for (guint i = 0; i < cp_trace_get_n_processes (t); i++)
    {
      const CpProcess *p = cp_trace_get_process (t, i);

      g_string_append_printf (out, "process %" G_GINT64_FORMAT " %u %u %d %d\n", p->pid, p->key,
                              p->name, p->device, p->is_pseudo);
    }
  for (guint li = 0; li < cp_trace_get_n_lanes (t); li++)
    {
      CpLane *lane = cp_trace_get_lane (t, li);
      const CpSlices *s = cp_lane_get_slices (lane);
      const gint64 *ts;
      const double *vals;
      guint nc = cp_lane_get_counter (lane, &ts, &vals);

      g_string_append_printf (out, "lane %d %s p%u d%d s%" G_GINT64_FORMAT " t%" G_GINT64_FORMAT "\n",
                              cp_lane_get_kind (lane), cp_lane_get_name (lane),
                              cp_lane_get_process (lane), cp_lane_get_device (lane),
                              cp_lane_get_stream (lane), cp_lane_get_tid (lane));
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { li, i };
          const CpGpuInfo *g = cp_trace_get_gpu_info (t, ref);
          CpArgsFormat format;
          const guint8 *args;
          gsize len;

          g_string_append_printf (out, " %" G_GINT64_FORMAT "+%" G_GINT64_FORMAT " n%u c%u r%u f%u c%"
                                  G_GINT64_FORMAT " e%" G_GINT64_FORMAT,
                                  cp_slices_get_start (s, i), cp_slices_get_dur (s, i),
                                  cp_slices_get_name (s, i), cp_slices_get_cat (s, i), s->row[i],
                                  s->flags[i], cp_slices_get_corr (s, i), cp_slices_get_ext (s, i));
          if (g != NULL)
            g_string_append_printf (out, " gpu %" G_GINT64_FORMAT " %d %d %d,%d,%d %d,%d,%d %d %d %g %g %g",
                                    g->bytes, g->device, g->stream, g->grid[0], g->grid[1], g->grid[2],
                                    g->block[0], g->block[1], g->block[2], g->registers,
                                    g->shared_mem, g->occupancy, g->warps_per_sm, g->blocks_per_sm);
          if (cp_trace_get_args (t, ref, &format, &args, &len))
            g_string_append_printf (out, " args %d %.*s", format, (int) len, (const char *) args);
          g_string_append_c (out, '\n');
        }
      for (guint i = 0; i < nc; i++)
        g_string_append_printf (out, " @%" G_GINT64_FORMAT " %.17g\n", ts[i], vals[i]);
    }
  flows = cp_trace_get_flows (t, &n);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "flow %u:%u %u:%u %d %u\n", flows[i].from.lane, flows[i].from.index,
                            flows[i].to.lane, flows[i].to.index, flows[i].kind, flows[i].name);
  inst = cp_trace_get_instants (t, &n);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "instant %" G_GINT64_FORMAT " %u %u %d %d %c\n", inst[i].ts,
                            inst[i].name, inst[i].cat, inst[i].process, inst[i].lane, inst[i].scope);
  steps = cp_trace_get_steps (t, &n);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "step %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                            " %u:%u\n", steps[i].number, steps[i].start, steps[i].end,
                            steps[i].marker.lane, steps[i].marker.index);
  for (guint i = 0; i < cp_trace_get_n_metadata (t); i++)
    {
      const CpMetadataEntry *m = cp_trace_get_metadata (t, i);

      g_string_append_printf (out, "meta %u %s\n", m->key, m->json);
    }
  return g_string_free (out, FALSE);
}

static char *
load_dump (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) t = cp_load_file (file, NULL, NULL, NULL, &error);

  if (t == NULL)
    return g_strdup_printf ("error %s", error->message);
  return dump (t);
}

/* The most chunks the reading thread kept for itself in the last
 * check_same() (CP_CHROME_PAR_KEEP), and the most it read the second half
 * of itself (CP_CHROME_PAR_CLAIM). */
static guint64 check_kept;
static guint64 check_claimed;

/* Loads path on 1 thread, then on several with several chunk sizes and
 * ways to meet the workers; returns the most events any parallel load
 * replayed. */
static guint64
check_same (const char *path)
{
  static const guint threads[] = { 2, 3, 4, 2, 2, 2, 2, 3, 2, 2, 3, 2 };
  static const gsize chunks[] = { 64, 777, 4096, 65536, 1 << 20, 4096, 64, 4096, 1000, 4096, 777, 200 };
  static const CpChromeParMode modes[] = {
    CP_CHROME_PAR_WAIT, CP_CHROME_PAR_WAIT, CP_CHROME_PAR_WAIT, CP_CHROME_PAR_FREE,
    CP_CHROME_PAR_WAIT, CP_CHROME_PAR_FREE, CP_CHROME_PAR_KEEP, CP_CHROME_PAR_KEEP,
    CP_CHROME_PAR_KEEP, CP_CHROME_PAR_CLAIM, CP_CHROME_PAR_CLAIM, CP_CHROME_PAR_CLAIM,
  };
  g_autofree char *want = NULL;
  guint64 most = 0;

  check_kept = 0;
  check_claimed = 0;
  _cp_chrome_set_threads (1, 0, CP_CHROME_PAR_FREE);
  want = load_dump (path);
  for (guint k = 0; k < G_N_ELEMENTS (threads); k++)
    {
      g_autofree char *got = NULL;

      _cp_chrome_set_threads (threads[k], chunks[k], modes[k]);
      got = load_dump (path);
      most = MAX (most, _cp_chrome_get_replayed ());
      if (modes[k] == CP_CHROME_PAR_KEEP)
        check_kept = MAX (check_kept, _cp_chrome_get_kept ());
      if (modes[k] == CP_CHROME_PAR_CLAIM)
        check_claimed = MAX (check_claimed, _cp_chrome_get_claimed ());
      if (g_strcmp0 (got, want) != 0)
        {
          gsize i = 0;

          while (got[i] != '\0' && got[i] == want[i])
            i++;
          g_error ("%s: %u threads, chunks of %" G_GSIZE_FORMAT " bytes, mode %d: the trace differs at "
                   "byte %" G_GSIZE_FORMAT " of its dump:\n1 thread: %.200s\nparallel: %.200s",
                   path, threads[k], chunks[k], modes[k], i, want + i, got + i);
        }
    }
  _cp_chrome_set_threads (0, 0, CP_CHROME_PAR_FREE);
  return most;
}

static void
test_generated (void)
{
  static const char *scenarios[] = { "healthy", "launch-bound", "input-bound", "sync-stalls", "comm-bound" };
  const char *gen = g_getenv ("CP_GEN");
  g_autofree char *dir = cp_test_make_tmpdir ();

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s.json", dir, scenarios[i]);
      g_autofree char *cmd = g_strdup_printf ("'%s' --scenario %s -n 4 -q -o '%s'", gen, scenarios[i], path);
      int status;

      g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_cmpuint (check_same (path), >, 1000);
      /* Kept chunks read in full, between replayed ones, and chunks
       * whose second half the reading thread read itself. */
      g_assert_cmpuint (check_kept, >, 10);
      g_assert_cmpuint (check_claimed, >, 10);
    }
  cp_test_rm_rf (dir);
}

/* A big capture's columns start with room reserved (cp_trace_builder_expect_big()):
 * the same trace, on one thread and on two, where the worker populates
 * the columns' pages ahead of the reading thread. */
static void
test_reserved (void)
{
  static const char *scenarios[] = { "healthy", "launch-bound", "memory-leak" };
  const char *gen = g_getenv ("CP_GEN");
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree guint8 *probe = g_malloc0 (65536);
  gboolean can_populate = cp_huge_pages_populate (probe, 65536);

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s.json", dir, scenarios[i]);
      g_autofree char *cmd = g_strdup_printf ("'%s' --scenario %s -n 4 -q -o '%s'", gen, scenarios[i], path);
      g_autofree char *want = NULL;
      int status;

      g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      _cp_chrome_set_threads (1, 0, CP_CHROME_PAR_FREE);
      want = load_dump (path);
      g_assert_true (g_str_has_prefix (want, "events "));
      for (guint threads = 1; threads <= 2; threads++)
        {
          g_autofree char *got = NULL;

          gboolean gc_friendly = g_mem_gc_friendly;

          /* gc-friendly (as meson test runs) turns the reservation off. */
          g_mem_gc_friendly = FALSE;
          /* A worker that runs as far ahead as the ring goes populates
           * the arrays' pages ahead. Whether it gets that far depends on
           * the two threads' speeds: almost every load here, so a few
           * loads in a row that never do are a failure. */
          for (guint attempt = 0; attempt < 10; attempt++)
            {
              g_clear_pointer (&got, g_free);
              _cp_chrome_set_threads (threads, 4096, CP_CHROME_PAR_WAIT);
              _cp_chrome_set_big_input (1);
              got = load_dump (path);
              _cp_chrome_set_big_input (0);
              g_assert_cmpstr (got, ==, want);
              if (threads == 1 || !can_populate || _cp_chrome_get_populated () > 0)
                break;
              g_assert_cmpuint (attempt, <, 9);
            }
          g_mem_gc_friendly = gc_friendly;
        }
    }
  _cp_chrome_set_threads (0, 0, CP_CHROME_PAR_FREE);
  cp_test_rm_rf (dir);
}

/* Hand-made inputs that a structural scan can get wrong. */
static void
test_adversarial (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autoptr(GString) big = g_string_new (NULL);
  g_autoptr(GString) quotes = g_string_new (NULL);
  g_autoptr(GString) many = g_string_new ("[");
  struct { const char *name; const char *text; } cases[] = {
    /* '{' and "traceEvents" inside strings, before and among the events. */
    { "braces", "{\"note\": \"}, {\\\"traceEvents\\\": [{\", \"traceEvents\": ["
                "{\"ph\":\"X\",\"name\":\"a, {\\\"ph\\\":\\\"X\\\"}\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},"
                "{\"ph\":\"X\",\"name\":\"b\",\"ts\":3,\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"s\":\"[{,{\"}},"
                "{\"ph\":\"X\",\"name\":\"c\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1}],"
                "\"after\": [{\"ph\":\"X\",\"name\":\"outside\",\"ts\":9,\"dur\":1,\"pid\":1,\"tid\":1}],"
                "\"traceName\": \"x\"}" },
    /* Metadata after the events, events with nested arrays of objects. */
    { "meta-after", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"ts\":1,\"dur\":4,"
                    "\"pid\":0,\"tid\":7,\"args\":{\"device\":0,\"stream\":7,\"grid\":[1,2,3],"
                    "\"block\":[4,5,6],\"correlation\":9,\"list\":[{\"a\":1},{\"b\":[{}]}]}},"
                    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"proc\"}},"
                    "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":2,\"pid\":0,\"args\":{\"x\":1.5,\"y\":\"2\"}},"
                    "{\"ph\":\"B\",\"name\":\"b\",\"ts\":2,\"pid\":0,\"tid\":1},"
                    "{\"ph\":\"E\",\"ts\":3,\"pid\":0,\"tid\":1},"
                    "{\"ph\":\"X\",\"id2\":{\"local\":\"0x1\"},\"name\":\"id2\",\"ts\":3,\"dur\":1,\"pid\":0,\"tid\":1},"
                    "{\"ph\":\"X\",\"na\\u006de\":\"escaped key\",\"ts\":3,\"dur\":1,\"pid\":0,\"tid\":1}],"
                    "\"deviceProperties\":[{\"id\":0,\"name\":\"GPU\"}],\"baseTimeNanoseconds\":1000}" },
    /* Arguments the reader does not know: kept for counters (ph "C", or
     * no ph read yet), and dropped by the workers otherwise, whatever
     * comes after them. */
    { "phases", "[{\"ph\":\"C\",\"name\":\"m\",\"ts\":1,\"pid\":1,\"args\":{\"a\":1,\"b\":[2],\"c\":{\"d\":3}}},"
                "{\"name\":\"m\",\"ts\":2,\"pid\":1,\"args\":{\"a\":4,\"e\":5},\"ph\":\"C\"},"
                "{\"ph\":\"X\",\"name\":\"x\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"a\":6,\"External id\":7},\"ph\":\"C\"},"
                "{\"ph\":1,\"name\":\"m\",\"ts\":4,\"pid\":1,\"args\":{\"a\":8},\"ph\":\"C\"},"
                "{\"ph\":\"CC\",\"name\":\"m\",\"ts\":5,\"pid\":1,\"args\":{\"a\":9}},"
                "{\"ph\":\"C\",\"ph\":\"X\",\"name\":\"y\",\"ts\":6,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"a\":10,\"correlation\":11}},"
                "{\"ph\":\"X\",\"ph\":\"C\",\"name\":\"m\",\"ts\":7,\"pid\":1,\"args\":{\"a\":12,\"f\":\"13\"}}]" },
    /* The array form, and a damaged end. */
    { "array", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n"
               "  {\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1} ,\n"
               "{\"ph\":\"i\",\"name\":\"c\",\"ts\":2,\"pid\":1,\"tid\":1,\"s\":\"t\"}" },
    { "truncated", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},"
                   "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1},{\"ph\":\"X\",\"na" },
    { "garbage", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},"
                 "{\"ph\":\"X\",\"name\":\"b\" \"ts\":2},{\"ph\":\"X\",\"name\":\"c\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":1}]}" },
  };
  guint64 replayed;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = cp_test_write_file (dir, cases[i].name, cases[i].text, -1);

      check_same (path);
    }

  /* Escaped quotes and backslashes everywhere, so that chunk borders fall
   * between a backslash and its quote; a huge single event (args over
   * many chunks, holding text that looks like events); many small events. */
  g_string_append (quotes, "{\"traceEvents\":[");
  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (quotes, "%s{\"ph\":\"X\",\"name\":\"q\\\\\\\"%u\\\"}, {\\\"\",\"ts\":%u,"
                            "\"dur\":1,\"pid\":1,\"tid\":%u,\"args\":{\"t\":\"\\\\\\\\\\\"},{\"}}",
                            i ? "," : "", i % 7, i, i % 3);
  g_string_append (quotes, "]}");
  g_string_append (big, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"first\",\"ts\":0,\"dur\":1,\"pid\":1,\"tid\":1},"
                        "{\"ph\":\"X\",\"name\":\"huge\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"v\":[");
  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, "%s{\"ph\":\"X\",\"name\":\"fake%u\",\"ts\":%u}", i ? "," : "", i, i);
  g_string_append (big, "]}}");
  for (guint i = 0; i < 2000; i++)
    g_string_append_printf (big, ",{\"ph\":\"X\",\"name\":\"after%u\",\"ts\":%u,\"dur\":1,\"pid\":1,\"tid\":2}",
                            i % 10, i + 2);
  g_string_append (big, "]}");
  for (guint i = 0; i < 5000; i++)
    g_string_append_printf (many, "%s{\"name\":\"m%u\",\"ph\":\"%s\",\"ts\":%u.%03u,\"pid\":\"p%u\",\"tid\":%u%s}",
                            i ? ",\n" : "", i % 13, i % 5 == 0 ? "B" : i % 5 == 1 ? "E" : "X", i, i % 1000,
                            i % 2, i % 4, i % 5 >= 2 ? ",\"dur\":0.5" : "");
  g_string_append (many, "]");
  {
    g_autofree char *p1 = cp_test_write_file (dir, "quotes.json", quotes->str, quotes->len);
    g_autofree char *p2 = cp_test_write_file (dir, "huge.json", big->str, big->len);
    g_autofree char *p3 = cp_test_write_file (dir, "many.json", many->str, many->len);

    replayed = check_same (p1);
    g_assert_cmpuint (replayed, >, 1000);
    replayed = check_same (p2);
    g_assert_cmpuint (replayed, >, 1000);
    replayed = check_same (p3);
    g_assert_cmpuint (replayed, >, 1000);
    g_assert_cmpuint (check_kept, >, 10);
    g_assert_cmpuint (check_claimed, >, 10);
  }
  cp_test_rm_rf (dir);
}

static void
collect (const char *dir,
         GPtrArray  *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect (path, out);
      else if (g_str_has_suffix (name, ".json"))
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

static void
test_shared (void)
{
  const char *root = cp_test_shared_traces ();
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  guint64 replayed = 0;

  if (root == NULL)
    {
      g_test_skip ("no shared captures (../shared/traces)");
      return;
    }
  collect (root, files);
  if (files->len == 0)
    {
      g_test_skip ("no JSON captures in ../shared/traces");
      return;
    }
  for (guint i = 0; i < files->len; i++)
    replayed += check_same (g_ptr_array_index (files, i));
  g_assert_cmpuint (replayed, >, 1000);
}

/* Without CHOKEPOINT_THREADS: one worker for a big capture read alone on
 * two cores or more, none for a small one or beside another read; the
 * variable decides when set. */
static void
test_default (void)
{
  gsize chunk = 0;
  g_autofree char *saved = g_strdup (g_getenv ("CHOKEPOINT_THREADS"));

  _cp_chrome_set_threads (0, 0, CP_CHROME_PAR_FREE);
  g_unsetenv ("CHOKEPOINT_THREADS");
  g_assert_cmpuint (cp_chrome_par_threads ((gsize) 1 << 20, TRUE, &chunk), ==, 1);
  g_assert_cmpuint (chunk, >, 0);
  g_assert_cmpuint (cp_chrome_par_threads ((gsize) 64 << 20, FALSE, &chunk), ==, 1);
  g_assert_cmpuint (cp_chrome_par_threads ((gsize) 64 << 20, TRUE, &chunk), ==,
                    g_get_num_processors () >= 2 ? 2 : 1);
  g_setenv ("CHOKEPOINT_THREADS", "3", TRUE);
  g_assert_cmpuint (cp_chrome_par_threads ((gsize) 1 << 20, FALSE, &chunk), ==, 3);
  g_setenv ("CHOKEPOINT_THREADS", "1", TRUE);
  g_assert_cmpuint (cp_chrome_par_threads ((gsize) 64 << 20, TRUE, &chunk), ==, 1);
  if (saved != NULL)
    g_setenv ("CHOKEPOINT_THREADS", saved, TRUE);
  else
    g_unsetenv ("CHOKEPOINT_THREADS");
}

/* Numbers in every form a writer may use, valued by the test from the
 * integers it chose: times of 1 to 16 integer digits with 0 to 6 decimals
 * (past three only zeros, so every value is exact), exponents, strings,
 * signs; pids, tids and correlations of 1 to 17 digits, plain or quoted.
 * Each event has a thread of its own. The reader values the plain ones in
 * one pass over the text and hands the others to the general path; both,
 * on one thread (read directly) and on two (read ahead and replayed), must
 * give the chosen integers. */
static void
render_us (GString *out,
           GRand   *rand,
           gint64   ns)
{
  guint64 a = (guint64) (ns < 0 ? -ns : ns);
  const char *sign = ns < 0 ? "-" : "";
  guint64 us = a / 1000, frac = a % 1000;

  switch (g_rand_int_range (rand, 0, 7))
    {
    case 0:
      /* Three decimals, then zeros. */
      g_string_append_printf (out, "%s%" G_GUINT64_FORMAT ".%03" G_GUINT64_FORMAT "%.*s", sign, us, frac,
                              g_rand_int_range (rand, 0, 4), "000");
      break;
    case 1:
      /* As few decimals as the value needs (none for whole microseconds). */
      if (frac == 0)
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT, sign, us);
      else if (frac % 100 == 0)
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, sign, us, frac / 100);
      else if (frac % 10 == 0)
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT ".%02" G_GUINT64_FORMAT, sign, us, frac / 10);
      else
        g_string_append_printf (out, "%s%" G_GUINT64_FORMAT ".%03" G_GUINT64_FORMAT, sign, us, frac);
      break;
    case 2:
      /* Nanoseconds with an exponent. */
      g_string_append_printf (out, "%s%" G_GUINT64_FORMAT "e-3", sign, a);
      break;
    case 3:
      g_string_append_printf (out, "%s%" G_GUINT64_FORMAT ".%03" G_GUINT64_FORMAT "E+0", sign, us, frac);
      break;
    case 4:
      g_string_append_printf (out, "\"%s%" G_GUINT64_FORMAT ".%03" G_GUINT64_FORMAT "\"", sign, us, frac);
      break;
    default:
      g_string_append_printf (out, "%s%" G_GUINT64_FORMAT ".%03" G_GUINT64_FORMAT, sign, us, frac);
      break;
    }
}

static gint64
random_digits (GRand *rand,
               guint  lo,
               guint  hi)
{
  guint n = (guint) g_rand_int_range (rand, (gint32) lo, (gint32) hi + 1);
  gint64 v = g_rand_int_range (rand, 1, 10);

  for (guint i = 1; i < n; i++)
    v = v * 10 + g_rand_int_range (rand, 0, 10);
  return v;
}

static void
test_numbers (void)
{
  enum { N = 3000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (22);
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "numbers.json", NULL);
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autofree gint64 *ts = g_new (gint64, N);
  g_autofree gint64 *dur = g_new (gint64, N);
  g_autofree gint64 *pid = g_new (gint64, N);
  g_autofree gint64 *tid = g_new (gint64, N);
  g_autofree gint64 *corr = g_new (gint64, N);
  g_autofree guint8 *found = g_new0 (guint8, N);

  for (guint i = 0; i < N; i++)
    {
      /* 1 to 16 integer digits of microseconds, within the times a
       * trace may hold (CP_TIME_ABS_LIMIT, 4.6e18 ns). */
      ts[i] = random_digits (rand, 1, 16);
      if (ts[i] >= G_GINT64_CONSTANT (4000000000000000))
        ts[i] /= 3;
      ts[i] = ts[i] * 1000 + g_rand_int_range (rand, 0, 1000);
      if (g_rand_int_range (rand, 0, 20) == 0)
        ts[i] = -ts[i];
      dur[i] = random_digits (rand, 1, 12);
      pid[i] = random_digits (rand, 1, 17);
      tid[i] = (gint64) i * 1000003 + random_digits (rand, 1, 5);
      corr[i] = random_digits (rand, 1, 17);
      g_string_append_printf (json, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n%u\", \"pid\": ",
                              i == 0 ? "" : ",\n", i);
      g_string_append_printf (json, g_rand_int_range (rand, 0, 4) == 0 ? "\"%" G_GINT64_FORMAT "\"" : "%" G_GINT64_FORMAT,
                              pid[i]);
      g_string_append_printf (json, ",\"tid\":%" G_GINT64_FORMAT ", \"ts\": ", tid[i]);
      render_us (json, rand, ts[i]);
      g_string_append (json, g_rand_boolean (rand) ? ",\"dur\":" : " , \"dur\" : ");
      render_us (json, rand, dur[i]);
      g_string_append_printf (json, ", \"args\": {\"External id\": %" G_GINT64_FORMAT "}}", corr[i]);
    }
  g_string_append (json, "\n]\n");
  g_assert_true (g_file_set_contents (path, json->str, (gssize) json->len, NULL));

  for (guint threads = 1; threads <= 2; threads++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) t = NULL;
      gint64 origin;
      guint seen = 0;

      _cp_chrome_set_threads (threads, 1000, CP_CHROME_PAR_WAIT);
      t = cp_load_file (file, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      if (threads == 2)
        g_assert_cmpuint (_cp_chrome_get_replayed (), >, N / 2);
      origin = cp_trace_get_origin_abs (t);
      memset (found, 0, N);
      for (guint l = 0; l < cp_trace_get_n_lanes (t); l++)
        {
          CpLane *lane = cp_trace_get_lane (t, l);
          const CpSlices *sl = cp_lane_get_slices (lane);

          for (guint j = 0; j < sl->n; j++)
            {
              const char *name = cp_trace_get_string (t, cp_slices_get_name (sl, j));
              guint i = (guint) g_ascii_strtoull (name + 1, NULL, 10);

              g_assert_cmpuint (i, <, N);
              g_assert_false (found[i]);
              found[i] = 1;
              seen++;
              g_assert_cmpint (origin + cp_slices_get_start (sl, j), ==, ts[i]);
              g_assert_cmpint (cp_slices_get_dur (sl, j), ==, dur[i]);
              g_assert_cmpint (cp_lane_get_tid (lane), ==, tid[i]);
              g_assert_cmpint (cp_trace_get_process (t, cp_lane_get_process (lane))->pid, ==, pid[i]);
              g_assert_cmpint (cp_slices_get_ext (sl, j), ==, corr[i]);
            }
        }
      g_assert_cmpuint (seen, ==, N);
    }
  _cp_chrome_set_threads (0, 0, CP_CHROME_PAR_FREE);
  cp_test_rm_rf (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/chrome-parallel/default", test_default);
  g_test_add_func ("/chrome-parallel/generated", test_generated);
  g_test_add_func ("/chrome-parallel/adversarial", test_adversarial);
  g_test_add_func ("/chrome-parallel/reserved", test_reserved);
  g_test_add_func ("/chrome-parallel/shared", test_shared);
  g_test_add_func ("/chrome-parallel/numbers", test_numbers);
  return g_test_run ();
}
