/* test-history-metric.c: metric values of a run, --fail-if conditions
 * (parsed, evaluated, fuzzed) and the OpenMetrics text
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "history/cp-history.h"
#include "cp-test-util.h"

/* A run written by hand: every figure below is known. */
static CpHistoryRun *
make_run (void)
{
  CpHistoryRun *run = cp_history_run_new ();
  CpHistoryDevice d0 = { 0, g_strdup ("gpu"), 100, 0, 0, 0, 0, 0, 0.92 };
  CpHistoryDevice d1 = { 1, g_strdup ("gpu"), 100, 0, 0, 0, 0, 0, 0.61 };
  CpHistoryBreakdown b = { g_strdup ("input_wait"), 0, 0, 12.5 };
  CpHistoryFinding f = { g_strdup ("input-bound"), g_strdup ("high"), g_strdup ("high"), 1500000000, 0,
                         g_strdup ("input_wait_percent"), 12.5 };

  run->step_mean_ns = 120000000;
  run->step_p90_ns = 150000000;
  run->steps = 8;
  run->busy_percent = 61;
  run->loading_percent = 14.25;
  run->warnings = 2;
  run->framework = g_strdup ("pytorch");
  run->format = g_strdup ("chrome-json");
  run->step_source = g_strdup ("profiler-steps");
  run->generator = g_strdup ("chokepoint test");
  g_array_append_val (run->devices, d0);
  g_array_append_val (run->devices, d1);
  g_array_append_val (run->breakdown, b);
  g_array_append_val (run->findings, f);
  cp_history_run_set_label (run, "model", "res\"net\n50");
  cp_history_run_set_label (run, "job", "nightly");
  return run;
}

static void
test_values (void)
{
  g_autoptr(CpHistoryRun) run = make_run ();
  const struct { const char *metric; double value; } cases[] = {
    { "step_time.mean", 120000000 },
    { "step_time.p90", 150000000 },
    { "steps", 8 },
    { "gpu.utilization", 61 },            /* the least busy device */
    { "device.0.utilization", 92 },
    { "device.1.utilization", 61 },
    { "gpu.busy", 61 },
    { "input.share", 14.25 },
    { "warnings", 2 },
    { "breakdown.input_wait.percent", 12.5 },
    { "finding.input-bound.time_at_stake", 1500000000 },
    { "finding.comm-bound.time_at_stake", 0 },   /* no finding: nothing at stake */
  };
  double v;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_true (cp_history_run_get_metric (run, cases[i].metric, &v, NULL));
      g_assert_cmpfloat_with_epsilon (v, cases[i].value, 1e-9);
    }
  g_assert_true (cp_history_run_get_metric (run, "device.7.utilization", &v, NULL));
  g_assert_true (isnan (v));
  g_assert_false (cp_history_run_get_metric (run, "gpu.utilisation", &v, NULL));
}

static void
test_conditions (void)
{
  g_autoptr(CpHistoryRun) run = make_run ();
  const struct { const char *text; gboolean holds; double threshold; } good[] = {
    { "gpu.utilization<80%", TRUE, 80 },
    { "gpu.utilization < 50", FALSE, 50 },
    { "  input.share>10%  ", TRUE, 10 },
    { "input.share>=14.25", TRUE, 14.25 },
    { "input.share>14.25", FALSE, 14.25 },
    { "step_time.mean>=120ms", TRUE, 120e6 },
    { "step_time.mean > 0.12 s", FALSE, 0.12e9 },
    { "step_time.p90<=150000us", TRUE, 150e6 },
    { "steps==8", TRUE, 8 },
    { "steps!=8", FALSE, 8 },
    { "finding.input-bound.time_at_stake>1s", TRUE, 1e9 },
    { "device.7.utilization<100%", FALSE, 100 },   /* no such device: never holds */
    { "warnings>-1", TRUE, -1 },
  };
  const struct { const char *text; guint position; } bad[] = {
    { "", 1 },
    { "<80%", 1 },
    { "gpu.utilisation<80%", 1 },
    { "gpu.utilization", 16 },
    { "gpu.utilization=80", 16 },
    { "gpu.utilization<", 17 },
    { "gpu.utilization<<80", 17 },
    { "gpu.utilization<.%", 17 },
    { "gpu.utilization<80ms", 19 },
    { "step_time.mean<80%", 18 },
    { "steps>3 x", 9 },
    { "steps>3s", 8 },
    { "steps>1e5", 8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CpHistoryCondition) c = cp_history_condition_parse (good[i].text, &error);

      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (cp_history_condition_get_threshold (c), good[i].threshold, 1e-6);
      g_assert_cmpint (cp_history_condition_holds (c, run, NULL), ==, good[i].holds);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CpHistoryCondition) c = cp_history_condition_parse (bad[i].text, &error);
      g_autofree char *at = g_strdup_printf ("at character %u:", bad[i].position);

      g_assert_null (c);
      g_assert_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID);
      if (strstr (error->message, at) == NULL)
        g_error ("“%s”: expected “%s” in “%s”", bad[i].text, at, error->message);
    }

  /* A number that is finite alone but not once scaled to ns (found by
   * the fuzzer): refused where the number starts. */
  {
    g_autofree char *digits = g_strnfill (305, '7');
    g_autofree char *text = g_strdup_printf ("step_time.mean>%ss", digits);
    g_autoptr(GError) error = NULL;
    g_autoptr(CpHistoryCondition) c = cp_history_condition_parse (text, &error);

    g_assert_null (c);
    g_assert_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "at character 16:"));
  }
}

/* Random strings made of the grammar's pieces and stray bytes: the parser
 * accepts or refuses each with a position inside it, and what it accepts
 * evaluates. */
static void
test_fuzz (void)
{
  static const char * const pieces[] = {
    "gpu.utilization", "input.share", "step_time.mean", "steps", "finding.input-bound.time_at_stake",
    "device.", "breakdown.", ".percent", "<", ">", "=", "!", "<=", ">=", "==", "!=", " ", "%", "ms",
    "s", "us", "µs", "ns", "-", "+", ".", "0", "1", "80", "3.5", "1e9", "\t", "\xff", "\xc3", "x",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (19);
  g_autoptr(CpHistoryRun) run = make_run ();
  guint n_ok = 0;

  for (guint i = 0; i < 200000; i++)
    {
      GString *s = g_string_new (NULL);
      guint n = g_rand_int_range (rand, 0, 7);
      g_autoptr(CpHistoryCondition) c = NULL;
      g_autoptr(GError) error = NULL;

      for (guint k = 0; k < n; k++)
        g_string_append (s, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      c = cp_history_condition_parse (s->str, &error);
      if (c != NULL)
        {
          n_ok++;
          g_assert_true (isfinite (cp_history_condition_get_threshold (c)));
          g_assert_true (cp_history_metric_is_valid (cp_history_condition_get_metric (c), NULL));
          (void) cp_history_condition_holds (c, run, NULL);
        }
      else
        {
          const char *at = strstr (error->message, "at character ");

          g_assert_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID);
          if (g_utf8_validate (s->str, -1, NULL))
            {
              guint64 pos;

              g_assert_nonnull (at);
              pos = g_ascii_strtoull (at + strlen ("at character "), NULL, 10);
              g_assert_cmpuint (pos, >=, 1);
              g_assert_cmpuint (pos, <=, s->len + 1);
            }
        }
      g_string_free (s, TRUE);
    }
  /* The pieces make valid conditions too, not only errors. */
  g_assert_cmpuint (n_ok, >, 100);
  g_test_message ("%u of 200000 random conditions parsed", n_ok);
}

/* Every sample line is NAME{LABELS} VALUE with the labels escaped, every
 * family is typed before its samples, and the text ends in # EOF. */
static void
test_openmetrics (void)
{
  g_autoptr(CpHistoryRun) run = make_run ();
  g_autofree char *text = cp_history_run_to_openmetrics (run);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GHashTable) typed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GRegex) sample = g_regex_new ("^(chokepoint_[a-z_]+)\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\",?)*)\\} "
                                          "(-?[0-9.e+-]+)$", 0, 0, NULL);
  guint n_samples = 0;

  g_assert_true (g_str_has_suffix (text, "# EOF\n"));
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_autoptr(GMatchInfo) m = NULL;
      g_autofree char *name = NULL, *labels = NULL;

      if (g_str_has_prefix (lines[i], "# TYPE "))
        {
          g_auto(GStrv) parts = g_strsplit (lines[i], " ", 4);

          g_assert_cmpstr (parts[3], ==, "gauge");
          g_hash_table_add (typed, g_strdup (parts[2]));
          continue;
        }
      if (lines[i][0] == '#')
        continue;
      if (!g_regex_match (sample, lines[i], 0, &m))
        g_error ("not a sample line: %s", lines[i]);
      name = g_match_info_fetch (m, 1);
      labels = g_match_info_fetch (m, 2);
      g_assert_true (g_hash_table_contains (typed, name));
      /* The user's labels, escaped, and "job" kept clear of Prometheus'. */
      g_assert_nonnull (strstr (labels, "model=\"res\\\"net\\n50\""));
      g_assert_nonnull (strstr (labels, "label_job=\"nightly\""));
      g_assert_nonnull (strstr (labels, "framework=\"pytorch\""));
      n_samples++;
    }
  g_assert_nonnull (strstr (text, "chokepoint_device_utilization_ratio{device=\"1\",kind=\"gpu\","));
  g_assert_nonnull (strstr (text, "} 0.61\n"));
  g_assert_nonnull (strstr (text, "chokepoint_input_share_ratio{framework=\"pytorch\",label_job=\"nightly\","
                                  "model=\"res\\\"net\\n50\"} 0.1425\n"));
  g_assert_nonnull (strstr (text, "chokepoint_step_time_seconds{stat=\"mean\","));
  g_assert_nonnull (strstr (text, "chokepoint_finding_severity{rule=\"input-bound\","));
  g_assert_cmpuint (n_samples, >, 10);
}

static GArray *
make_points (const double *values,
             guint         n)
{
  GArray *points = g_array_new (FALSE, TRUE, sizeof (CpHistoryPoint));

  for (guint i = 0; i < n; i++)
    {
      CpHistoryPoint p = { i + 1, i, values[i], NAN, FALSE };

      g_array_append_val (points, p);
    }
  return points;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The regression marks against a by-hand series and, for random series,
 * against the median computed the slow way: sorting the earlier values. */
static void
test_regressions (void)
{
  const double steps[] = { 100, 104, 96, 100, 106, NAN, 104.9, 200 };
  const gboolean step_marks[] = { FALSE, FALSE, FALSE, FALSE, TRUE, FALSE, FALSE, TRUE };
  const double util[] = { 90, 91, 80, 89, 84 };
  const gboolean util_marks[] = { FALSE, FALSE, TRUE, FALSE, TRUE };
  g_autoptr(GArray) a = make_points (steps, G_N_ELEMENTS (steps));
  g_autoptr(GArray) b = make_points (util, G_N_ELEMENTS (util));
  g_autoptr(GArray) c = make_points (steps, G_N_ELEMENTS (steps));
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);

  cp_history_mark_regressions (a, "step_time.mean", 0.05);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpint (g_array_index (a, CpHistoryPoint, i).regression, ==, step_marks[i]);
  g_assert_true (isnan (g_array_index (a, CpHistoryPoint, 0).baseline));
  g_assert_cmpfloat (g_array_index (a, CpHistoryPoint, 4).baseline, ==, 100);   /* 96 100 100 104 */
  g_assert_cmpfloat (g_array_index (a, CpHistoryPoint, 7).baseline, ==, 102);   /* 96 100 100 104 104.9 106 */
  cp_history_mark_regressions (b, "gpu.utilization", 0.05);
  for (guint i = 0; i < b->len; i++)
    g_assert_cmpint (g_array_index (b, CpHistoryPoint, i).regression, ==, util_marks[i]);
  cp_history_mark_regressions (c, "steps", 0.05);   /* neither way is worse */
  for (guint i = 0; i < c->len; i++)
    g_assert_false (g_array_index (c, CpHistoryPoint, i).regression);

  for (guint round = 0; round < 20; round++)
    {
      guint n = g_rand_int_range (rand, 1, 400);
      g_autofree double *values = g_new (double, n);
      g_autoptr(GArray) points = NULL;
      g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (double));

      for (guint i = 0; i < n; i++)
        values[i] = g_rand_int_range (rand, 0, 10) == 0 ? NAN : g_rand_int_range (rand, 50, 150);
      points = make_points (values, n);
      cp_history_mark_regressions (points, "step_time.p90", 0.1);
      for (guint i = 0; i < n; i++)
        {
          const CpHistoryPoint *p = &g_array_index (points, CpHistoryPoint, i);
          double median = NAN;

          if (before->len > 0)
            {
              g_autoptr(GArray) sorted = g_array_copy (before);

              g_array_sort (sorted, compare_doubles);
              median = sorted->len % 2 ? g_array_index (sorted, double, sorted->len / 2)
                                       : (g_array_index (sorted, double, sorted->len / 2 - 1) +
                                          g_array_index (sorted, double, sorted->len / 2)) / 2;
              g_assert_cmpfloat (p->baseline, ==, median);
            }
          else
            g_assert_true (isnan (p->baseline));
          g_assert_cmpint (p->regression, ==, isfinite (values[i]) && isfinite (median) && values[i] > median * 1.1);
          if (isfinite (values[i]))
            g_array_append_val (before, values[i]);
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/history-metric/values", test_values);
  g_test_add_func ("/history-metric/conditions", test_conditions);
  g_test_add_func ("/history-metric/fuzz", test_fuzz);
  g_test_add_func ("/history-metric/openmetrics", test_openmetrics);
  g_test_add_func ("/history-metric/regressions", test_regressions);
  return g_test_run ();
}
