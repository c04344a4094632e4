/* test-steps.c: step windows and outliers
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "analysis/cp-steps.h"

static CpStepSpan
span (gint64 number,
      gint64 hs,
      gint64 he,
      gint64 dev_end,
      guint  n_ops)
{
  CpStepSpan s = { number, hs, he, dev_end, n_ops, CP_SLICE_REF_NONE };

  return s;
}

static void
test_windows_tb (void)
{
  /* Step 1's device work runs past step 2's host start: step 2 starts where
   * step 1 ends (TB: start = max(prev end, host start)). */
  CpStepSpan s[] = {
    span (1, 100, 200, 260, 5),
    span (2, 200, 300, 310, 5),
    span (3, 320, 400, G_MININT64, 5),
  };
  gboolean keep[3];
  CpInterval w[3];
  guint n = cp_steps_windows (s, 3, TRUE, keep, w);

  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (w[0].start, ==, 100);
  g_assert_cmpint (w[0].end, ==, 260);
  g_assert_cmpint (w[1].start, ==, 260);
  g_assert_cmpint (w[1].end, ==, 310);
  g_assert_cmpint (w[2].start, ==, 320);
  g_assert_cmpint (w[2].end, ==, 400);
}

static void
test_windows_drop (void)
{
  CpStepSpan s[] = {
    span (1, 0, 100, 110, 10),
    span (2, 100, 200, 210, 10),
    span (3, 200, 300, 250, 7),     /* < 0.8 x 10 ops: incomplete */
    span (4, 300, 400, G_MININT64, 0), /* launched nothing */
  };
  gboolean keep[4];
  CpInterval w[4];
  guint n;

  n = cp_steps_windows (s, 4, TRUE, keep, w);
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (keep[0] && keep[1]);
  g_assert_false (keep[2] || keep[3]);
  g_assert_cmpint (w[1].start, ==, 110);

  /* 8 ops is exactly 0.8 x 10: kept. */
  s[2].n_ops = 8;
  n = cp_steps_windows (s, 4, TRUE, keep, w);
  g_assert_cmpuint (n, ==, 3);

  /* Without launch information nothing is dropped. */
  n = cp_steps_windows (s, 4, FALSE, keep, w);
  g_assert_cmpuint (n, ==, 4);

  /* A step swallowed by the one before (its window would be empty). */
  {
    CpStepSpan t[] = { span (1, 0, 100, 500, 1), span (2, 100, 200, 300, 1) };

    n = cp_steps_windows (t, 2, FALSE, keep, w);
    g_assert_cmpuint (n, ==, 1);
    g_assert_true (keep[0]);
    g_assert_false (keep[1]);
  }
}

static void
test_merge (void)
{
  /* The same step on two threads, out of order. */
  CpStep steps[] = {
    { 2, 210, 290, CP_SLICE_REF_NONE },
    { 1, 100, 200, { 3, 0 } },
    { 2, 200, 280, CP_SLICE_REF_NONE },
    { 1, 105, 190, CP_SLICE_REF_NONE },
  };
  g_autoptr(GArray) spans = cp_steps_merge_markers (steps, G_N_ELEMENTS (steps));
  const CpStepSpan *s = (const CpStepSpan *) spans->data;

  g_assert_cmpuint (spans->len, ==, 2);
  g_assert_cmpint (s[0].number, ==, 1);
  g_assert_cmpint (s[0].host_start, ==, 100);
  g_assert_cmpint (s[0].host_end, ==, 200);
  g_assert_cmpuint (s[0].marker.lane, ==, 3);
  g_assert_cmpint (s[1].number, ==, 2);
  g_assert_cmpint (s[1].host_start, ==, 200);
  g_assert_cmpint (s[1].host_end, ==, 290);
}

static void
test_outliers (void)
{
  gint64 d[] = { 100, 101, 99, 100, 180, 100, 102, 20 };
  gboolean out[G_N_ELEMENTS (d)];
  gint64 same[] = { 50, 50, 50, 50, 51 };
  gboolean out2[G_N_ELEMENTS (same)];

  cp_steps_find_outliers (d, G_N_ELEMENTS (d), out);
  for (guint i = 0; i < G_N_ELEMENTS (d); i++)
    g_assert_cmpint (out[i], ==, (i == 4 || i == 7));

  /* Identical steps with a 1 ns wobble: the floored MAD keeps it normal. */
  cp_steps_find_outliers (same, G_N_ELEMENTS (same), out2);
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    g_assert_false (out2[i]);

  /* Fewer than three steps: never outliers. */
  cp_steps_find_outliers (d, 2, out);
  g_assert_false (out[0] || out[1]);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/steps/windows-tb", test_windows_tb);
  g_test_add_func ("/steps/windows-drop", test_windows_drop);
  g_test_add_func ("/steps/merge", test_merge);
  g_test_add_func ("/steps/outliers", test_outliers);

  return g_test_run ();
}
