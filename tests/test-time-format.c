/* test-time-format.c: time labels and ruler tick steps
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "model/cp-types.h"
#include "render/cp-time-format.h"

static void
check_duration (gint64      ns,
                const char *expected)
{
  g_autofree char *s = cp_time_format_duration (ns);

  g_assert_cmpstr (s, ==, expected);
}

static void
check_tick (gint64      t,
            gint64      step,
            gint64      ref,
            const char *expected)
{
  g_autofree char *s = cp_time_format_tick (t, step, ref);

  g_assert_cmpstr (s, ==, expected);
}

static void
test_duration (void)
{
  check_duration (0, "0 ns");
  check_duration (850, "850 ns");
  check_duration (1234, "1.23 µs");
  check_duration (12345, "12.3 µs");
  check_duration (123456, "123 µs");
  check_duration (12345678, "12.3 ms");
  check_duration (2500000000, "2.50 s");
  check_duration (125000000000, "125 s");
}

static void
test_ticks (void)
{
  /* The unit follows the largest time shown; decimals follow the step. */
  check_tick (0, 100000000, 2600000000, "0.0 s");
  check_tick (1300000000, 100000000, 2600000000, "1.3 s");
  check_tick (2000000000, 1000000000, 2600000000, "2 s");
  check_tick (3200000010, 10, 3200001000, "3.20000001 s");
  check_tick (1500000, 500000, 3000000, "1.5 ms");
  check_tick (1500000, 200000, 3000000, "1.5 ms");
  check_tick (40, 20, 900, "40 ns");
  check_tick (12000, 2000, 30000, "12 µs");
  check_tick (12000, 200, 30000, "12.0 µs");
}

static void
check_offset (gint64      t,
              const char *expected)
{
  g_autofree char *s = cp_time_format_offset (t);

  g_assert_cmpstr (s, ==, expected);
}

static void
test_offset (void)
{
  /* Exact, with only the decimals the value needs: a whole-µs capture
   * reads "184 µs", not "184.000 µs". */
  check_offset (184000, "184 µs");
  check_offset (45836000, "45.836 ms");
  check_offset (1234567890, "1.23456789 s");
  check_offset (1234567891, "1.234567891 s");
  check_offset (2000000000, "2 s");
  check_offset (1500, "1.5 µs");
  check_offset (999, "999 ns");
  check_offset (0, "0 ns");
}

static void
test_range_edge (void)
{
  g_autofree char *a = cp_time_format_range_edge (193497382, 374511064);
  g_autofree char *b = cp_time_format_range_edge (568008446, 374511064);
  g_autofree char *c = cp_time_format_range_edge (1234567, 2000);
  g_autofree char *d = cp_time_format_range_edge (1999990000, 50000000);

  /* 375 ms: to 0.1 ms. */
  g_assert_cmpstr (a, ==, "193.5 ms");
  g_assert_cmpstr (b, ==, "568.0 ms");
  /* 2 µs: to the ns. */
  g_assert_cmpstr (c, ==, "1.234567 ms");
  /* Rounding carries: 1.99999 s to 10 µs. */
  g_assert_cmpstr (d, ==, "1.99999 s");
}

static void
test_origin_date (void)
{
  /* The capture says it is Unix time. */
  g_assert_true (cp_time_origin_is_date (5, TRUE));
  /* Kineto 2021 (ResNet-50 sample): 1623142623460016 µs is 2021-06-08. */
  g_assert_true (cp_time_origin_is_date (G_GINT64_CONSTANT (1623142623460016) * 1000, FALSE));
  /* Boot time and a capture's own zero are not dates; nor is a far future. */
  g_assert_false (cp_time_origin_is_date (5 * 24 * G_GINT64_CONSTANT (3600) * CP_NS_PER_S, FALSE));
  g_assert_false (cp_time_origin_is_date (0, FALSE));
  g_assert_false (cp_time_origin_is_date (G_GINT64_CONSTANT (1000000000000000000) * 9, FALSE));
}

static void
test_pick_step (void)
{
  /* 1-2-5 steps, the smallest at least min_px apart. */
  g_assert_cmpint (cp_time_pick_step (1.0, 60), ==, 100);
  g_assert_cmpint (cp_time_pick_step (1.0, 100), ==, 100);
  g_assert_cmpint (cp_time_pick_step (1.0, 101), ==, 200);
  g_assert_cmpint (cp_time_pick_step (0.01, 60), ==, 1);
  g_assert_cmpint (cp_time_pick_step (3.3, 64), ==, 500);
  g_assert_cmpint (cp_time_pick_step (1e6, 64), ==, 100000000);
  /* 10 s over 1600 px: 6.25 ms per pixel, 64 px -> 0.4 s -> 0.5 s. */
  g_assert_cmpint (cp_time_pick_step (10e9 / 1600, 64), ==, 500000000);
  /* Hours fit too. */
  g_assert_cmpint (cp_time_pick_step (3600e9 / 1000, 80), ==, 500000000000);

  for (double npp = 0.5; npp < 1e10; npp *= 1.7)
    {
      gint64 step = cp_time_pick_step (npp, 70);
      gint64 minor = cp_time_minor_step (step);

      g_assert_cmpfloat ((double) step / npp, >=, 70);
      /* Not more than 2.5 times too far apart (the 1-2-5 spacing). */
      g_assert_cmpfloat ((double) step / npp, <, 70 * 2.5 + 1);
      g_assert_cmpint (minor, >=, 1);
      g_assert_cmpint (step % minor, ==, 0);
    }
  g_assert_cmpint (cp_time_minor_step (100), ==, 20);
  g_assert_cmpint (cp_time_minor_step (200), ==, 50);
  g_assert_cmpint (cp_time_minor_step (500), ==, 100);
  g_assert_cmpint (cp_time_minor_step (1), ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/time-format/duration", test_duration);
  g_test_add_func ("/time-format/ticks", test_ticks);
  g_test_add_func ("/time-format/pick-step", test_pick_step);
  g_test_add_func ("/time-format/offset", test_offset);
  g_test_add_func ("/time-format/origin-date", test_origin_date);
  g_test_add_func ("/time-format/range-edge", test_range_edge);

  return g_test_run ();
}
