/* test-lod.c: the level-of-detail index against brute force
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "model/cp-trace-builder.h"
#include "render/cp-lod.h"

/* A kernel lane with random, often overlapping slices (so several rows), a
 * host lane with nesting, and a counter lane. */
static CpTrace *
make_random_trace (guint32 seed)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  GRand *rand = g_rand_new_with_seed (seed);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint host = cp_trace_builder_process_for_pid (b, 1);
  guint kl = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  guint hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint cl = cp_trace_builder_lane (b, gpu, CP_LANE_COUNTER, (CpLaneKey) { 0, 1 });
  CpStr name = cp_trace_builder_intern (b, "k", -1);
  gint64 t = 0;
  CpTrace *trace;

  for (guint i = 0; i < 3000; i++)
    {
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.name = name;
      t += g_rand_int_range (rand, 0, 400);
      init.start = t;
      /* Mostly tiny, some long; some zero-length. */
      init.dur = g_rand_int_range (rand, 0, 10) == 0 ? g_rand_int_range (rand, 0, 3000)
                                                      : g_rand_int_range (rand, 0, 60);
      cp_trace_builder_add_slice (b, kl, &init);
    }
  t = 0;
  for (guint i = 0; i < 500; i++)
    {
      CpSliceInit init;
      gint64 d = g_rand_int_range (rand, 100, 2000);

      cp_slice_init_clear (&init);
      init.name = name;
      init.start = t;
      init.dur = d;
      cp_trace_builder_add_slice (b, hl, &init);
      /* Two children. */
      init.start = t + d / 10;
      init.dur = d / 3;
      cp_trace_builder_add_slice (b, hl, &init);
      init.start = t + d / 2;
      init.dur = d / 3;
      cp_trace_builder_add_slice (b, hl, &init);
      t += d + g_rand_int_range (rand, 0, 500);
    }
  for (guint i = 0; i < 5000; i++)
    cp_trace_builder_add_counter (b, cl, i * 37, g_rand_double_range (rand, -5, 100));

  g_rand_free (rand);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  return trace;
}

static gint64
brute_row_coverage (CpLane *lane,
                    guint   row,
                    gint64  t0,
                    gint64  t1)
{
  const CpSlices *s = cp_lane_get_slices (lane);
  gint64 sum = 0;

  for (guint i = 0; i < s->n; i++)
    {
      gint64 a, b;

      if (s->row[i] != row)
        continue;
      a = MAX (cp_slices_get_start (s, i), t0);
      b = MIN (cp_slices_get_end (s, i), t1);
      if (b > a)
        sum += b - a;
    }
  return sum;
}

static void
test_row_coverage (void)
{
  g_autoptr(CpTrace) trace = make_random_trace (1);
  g_autoptr(CpLod) lod = cp_lod_new (trace);
  GRand *rand = g_rand_new_with_seed (2);
  gint64 dur = cp_trace_get_duration (trace);

  g_assert_cmpuint (cp_lane_get_n_rows (cp_trace_get_lane (trace, 0)), >, 1);
  for (guint lane = 0; lane < 2; lane++)
    {
      CpLane *l = cp_trace_get_lane (trace, lane);

      g_assert_cmpuint (cp_lod_get_n_rows (lod, lane), ==, cp_lane_get_n_rows (l));
      for (guint row = 0; row < cp_lane_get_n_rows (l); row++)
        {
          const CpLodRow *r = cp_lod_get_row (lod, lane, row);
          const CpSlices *s = cp_lane_get_slices (l);
          gint64 sum = 0;

          /* Running sums kept per block of positions, ends from the slices. */
          for (guint k = 0; k <= r->n; k++)
            {
              g_assert_cmpint (cp_lod_row_busy (r, k), ==, sum);
              if (k == r->n)
                break;
              g_assert_cmpint (cp_lod_row_end (r, k), ==, cp_slices_get_end (s, r->idx[k]));
              sum += cp_slices_get_dur (s, r->idx[k]);
            }
          if (row == 0)
            g_assert_cmpuint (r->n, >, 2 * CP_LOD_BLOCK);
          for (guint k = 0; k < 300; k++)
            {
              gint64 a = g_rand_int_range (rand, -100, (gint32) dur + 100);
              gint64 w = g_rand_int_range (rand, 0, k % 2 ? 50 : 5000);

              g_assert_cmpint (cp_lod_row_coverage (lod, lane, row, a, a + w), ==,
                               brute_row_coverage (l, row, a, a + w));
            }
          /* Pixel columns: every column of a 997 px view, summed, is the
           * row's whole coverage; each column equals its brute force union. */
          {
            gint64 total = 0;
            double npp = (double) dur / 997;

            for (guint c = 0; c < 997; c++)
              {
                gint64 c0 = (gint64) floor (c * npp), c1 = (gint64) floor ((c + 1) * npp);
                gint64 cov = cp_lod_row_coverage (lod, lane, row, c0, c1);

                g_assert_cmpint (cov, ==, brute_row_coverage (l, row, c0, c1));
                g_assert_cmpint (cov, <=, c1 - c0);
                total += cov;
              }
            total += cp_lod_row_coverage (lod, lane, row, (gint64) floor (997 * npp), dur + 1);
            g_assert_cmpint (total, ==, brute_row_coverage (l, row, 0, dur + 1));
          }
        }
    }
  g_rand_free (rand);
}

static void
test_count_and_first (void)
{
  g_autoptr(CpTrace) trace = make_random_trace (3);
  g_autoptr(CpLod) lod = cp_lod_new (trace);
  CpLane *l = cp_trace_get_lane (trace, 0);
  const CpSlices *s = cp_lane_get_slices (l);
  GRand *rand = g_rand_new_with_seed (4);
  gint64 dur = cp_trace_get_duration (trace);

  for (guint k = 0; k < 500; k++)
    {
      gint64 a = g_rand_int_range (rand, -10, (gint32) dur);
      gint64 b = a + g_rand_int_range (rand, 1, 3000);
      guint64 expected = 0;

      for (guint i = 0; i < s->n; i++)
        {
          gint64 e = cp_slices_get_end (s, i);

          if (cp_slices_get_dur (s, i) == 0 ? (cp_slices_get_start (s, i) >= a && cp_slices_get_start (s, i) < b) : (cp_slices_get_start (s, i) < b && e > a))
            expected++;
        }
      g_assert_cmpuint (cp_lod_count_slices (lod, 0, a, b), ==, expected);

      /* first_ending_after: every earlier slice of the row ends at or
       * before a; that one does not. */
      for (guint row = 0; row < cp_lod_get_n_rows (lod, 0); row++)
        {
          const CpLodRow *r = cp_lod_get_row (lod, 0, row);
          guint j = cp_lod_row_first_ending_after (lod, 0, row, a);

          if (j > 0)
            {
              guint32 i = r->idx[j - 1];

              g_assert_true (cp_slices_get_end (s, i) < a ||
                             (cp_slices_get_end (s, i) == a && cp_slices_get_dur (s, i) > 0));
            }
          if (j < r->n)
            {
              guint32 i = r->idx[j];

              g_assert_true (cp_slices_get_end (s, i) >= a);
            }
        }
    }
  g_rand_free (rand);
}

/* The first position not ending before t, by brute force (a zero-length
 * slice at t does not end before it). */
static guint
brute_seek (const CpLodRow *r,
            const CpSlices *s,
            gint64          t)
{
  for (guint k = 0; k < r->n; k++)
    {
      gint64 st = cp_slices_get_start (s, r->idx[k]), e = cp_slices_get_end (s, r->idx[k]);

      if (!(e < t || (e == t && st < t)))
        return k;
    }
  return r->n;
}

static void
test_seek (void)
{
  g_autoptr(CpTrace) trace = make_random_trace (11);
  g_autoptr(CpLod) lod = cp_lod_new (trace);
  GRand *rand = g_rand_new_with_seed (12);
  gint64 dur = cp_trace_get_duration (trace);
  const double *values;
  const gint64 *ts;
  guint n_samples = 0, counter = G_MAXUINT;

  for (guint lane = 0; lane < 2; lane++)
    {
      CpLane *l = cp_trace_get_lane (trace, lane);
      const CpSlices *s = cp_lane_get_slices (l);

      for (guint row = 0; row < cp_lane_get_n_rows (l); row++)
        {
          const CpLodRow *r = cp_lod_get_row (lod, lane, row);

          for (guint k = 0; k < 400; k++)
            {
              /* Times inside, around, at a slice's end or start exactly. */
              gint64 t = g_rand_int_range (rand, -100, (gint32) dur + 100);
              guint want, from, got;
              gint64 covered;

              if (r->n > 0 && k % 3 == 1)
                t = cp_slices_get_end (s, r->idx[g_rand_int_range (rand, 0, r->n)]);
              else if (r->n > 0 && k % 3 == 2)
                t = cp_slices_get_start (s, r->idx[g_rand_int_range (rand, 0, r->n)]);
              want = brute_seek (r, s, t);
              /* From anywhere up to the answer: the answer, and the time
               * covered before t. */
              from = g_rand_int_range (rand, 0, want + 1);
              g_assert_cmpuint (cp_lod_row_seek (r, from, t), ==, want);
              got = cp_lod_row_seek_covered (r, from, t, &covered);
              g_assert_cmpuint (got, ==, want);
              g_assert_cmpint (covered, ==, brute_row_coverage (l, row, G_MININT64 / 4, t));
              /* A hint, right or wrong, changes nothing. */
              {
                guint nb = (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK, wb = want / CP_LOD_BLOCK;
                guint hints[] = { wb, wb + 1, wb - 1, wb + 2, wb - 2, 0, nb - 1, nb, nb + 7, G_MAXUINT,
                                  (guint) g_rand_int_range (rand, 0, (gint32) nb + 1) };

                for (guint h = 0; h < G_N_ELEMENTS (hints); h++)
                  {
                    gint64 hc;

                    g_assert_cmpuint (cp_lod_row_seek_covered_hinted (r, from, t, hints[h], &hc), ==, want);
                    g_assert_cmpint (hc, ==, covered);
                  }
              }
              g_assert_cmpuint (cp_lod_row_first_ending_after (lod, lane, row, t), ==, want);
              /* From past it: from itself. */
              if (want + 1 < r->n)
                {
                  from = g_rand_int_range (rand, want + 1, r->n);
                  g_assert_cmpuint (cp_lod_row_seek (r, from, t), ==, from);
                  g_assert_cmpuint (cp_lod_row_seek_covered (r, from, t, &covered), ==, from);
                }
            }
        }
    }

  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    if (cp_lane_get_kind (cp_trace_get_lane (trace, i)) == CP_LANE_COUNTER)
      {
        counter = i;
        n_samples = cp_lane_get_counter (cp_trace_get_lane (trace, i), &ts, &values);
      }
  g_assert_cmpuint (n_samples, >, 100);
  for (guint k = 0; k < 2000; k++)
    {
      gint64 t = g_rand_int_range (rand, -50, (gint32) ts[n_samples - 1] + 50);
      guint want = 0, from;

      if (k % 2)
        t = ts[g_rand_int_range (rand, 0, n_samples)];
      while (want < n_samples && ts[want] < t)
        want++;
      from = g_rand_int_range (rand, 0, want + 1);
      g_assert_cmpuint (cp_lod_counter_seek (lod, counter, from, t), ==, want);
      if (want + 1 < n_samples)
        {
          from = g_rand_int_range (rand, want + 1, n_samples);
          g_assert_cmpuint (cp_lod_counter_seek (lod, counter, from, t), ==, from);
        }
    }
  g_assert_cmpuint (cp_lod_counter_seek (lod, counter, n_samples + 5, 0), ==, n_samples);
  /* The hint reads nothing it should not, wherever it is asked for. */
  {
    CpLodCounterAhead ahead = { 0 };
    gint64 end = ts[n_samples - 1];

    for (gint64 t = -100; t < end + 200; t += 53)
      cp_lod_counter_ahead (lod, counter, &ahead, t + 400, t);
    /* Times back and far off, and lanes without samples or not there. */
    cp_lod_counter_ahead (lod, counter, &ahead, 0, -5);
    cp_lod_counter_ahead (lod, counter, &ahead, G_MAXINT64, G_MININT64);
    cp_lod_counter_ahead (lod, counter, &ahead, G_MININT64, G_MAXINT64);
    cp_lod_counter_ahead (lod, 0, &ahead, 0, 0);
    cp_lod_counter_ahead (lod, 1000, &ahead, 0, 0);
    cp_lod_counter_ahead (NULL, counter, &ahead, 0, 0);
  }
  g_rand_free (rand);
}

/* A host lane whose parents have five children each: both rows have other
 * rows' slices between theirs (the parents are every sixth slice), so the
 * index copies them; a few parents far apart or longer than 4.3 s keep
 * their blocks in the slices. A second lane of one row, slices back to
 * back, is read in place. */
static CpTrace *
make_spread_trace (guint32 seed)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  GRand *rand = g_rand_new_with_seed (seed);
  guint host = cp_trace_builder_process_for_pid (b, 1);
  guint hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint flat = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 2, 0 });
  CpStr name = cp_trace_builder_intern (b, "op", -1);
  gint64 t = 0;
  CpTrace *trace;

  for (guint i = 0; i < 2000; i++)
    {
      CpSliceInit init;
      gint64 d = g_rand_int_range (rand, 60, 3000);

      if (i % 700 == 350)
        d = G_GINT64_CONSTANT (6000000000);   /* longer than 32 bits of ns */
      cp_slice_init_clear (&init);
      init.name = name;
      init.start = t;
      init.dur = d;
      cp_trace_builder_add_slice (b, hl, &init);
      for (guint c = 0; c < 5; c++)
        {
          init.start = t + (d / 6) * c + (c == 2 ? 0 : 1);
          init.dur = g_rand_int_range (rand, 0, 3) == 0 ? 0 : d / 7;
          cp_trace_builder_add_slice (b, hl, &init);
        }
      init.start = t;
      init.dur = g_rand_int_range (rand, 0, (gint32) MIN (d, 2000));
      cp_trace_builder_add_slice (b, flat, &init);
      t += d + g_rand_int_range (rand, 0, 300);
      if (i % 500 == 499)
        t += G_GINT64_CONSTANT (5000000000);  /* a block spanning 5 s */
    }
  g_rand_free (rand);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  return trace;
}

static gint64
random_time (GRand  *rand,
             gint64  dur)
{
  return (gint64) (g_rand_double (rand) * (double) (dur + 200)) - 100;
}

static void
test_copied_rows (void)
{
  g_autoptr(CpTrace) trace = make_spread_trace (21);
  g_autoptr(CpLod) lod = cp_lod_new (trace);
  GRand *rand = g_rand_new_with_seed (22);
  gint64 dur = cp_trace_get_duration (trace);
  guint copied = 0, in_slices = 0, in_place = 0, wide_supers = 0, narrow_supers = 0, ties = 0;

  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, 2);
  g_assert_cmpuint (cp_lane_get_n_rows (cp_trace_get_lane (trace, 0)), ==, 2);
  g_assert_cmpuint (cp_lane_get_n_rows (cp_trace_get_lane (trace, 1)), ==, 1);
  for (guint lane = 0; lane < 2; lane++)
    {
      CpLane *l = cp_trace_get_lane (trace, lane);
      const CpSlices *s = cp_lane_get_slices (l);

      for (guint row = 0; row < cp_lane_get_n_rows (l); row++)
        {
          const CpLodRow *r = cp_lod_get_row (lod, lane, row);
          gint64 sum = 0;

          /* Each superblock's block ends in 32 bits from its base, or all
           * marked where they do not fit; ends from the slices. */
          for (guint b = 0; b < (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK; b++)
            {
              guint last = MIN ((b + 1) * CP_LOD_BLOCK, r->n) - 1;
              gint64 end = cp_slices_get_end (s, r->idx[last]);

              if (r->block_end32[b] == CP_LOD_NO_END32)
                {
                  wide_supers += b % CP_LOD_SUPER == 0;
                  g_assert_false (cp_lod_super_has_end32 (r, b / CP_LOD_SUPER, (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK));
                }
              else
                {
                  narrow_supers += b % CP_LOD_SUPER == 0;
                  g_assert_cmpint (cp_lod_super_base (r, b / CP_LOD_SUPER) + (gint64) r->block_end32[b], ==, end);
                }
            }
          g_assert_cmpuint (((guintptr) r->block_end32) % 64, ==, 0);
          /* Seeks to a block's end exactly, from inside it: where its last
           * slice is one of no length, the tie decides. */
          for (guint b = 0; b < (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK; b++)
            {
              guint last = MIN ((b + 1) * CP_LOD_BLOCK, r->n) - 1;
              gint64 at = cp_slices_get_end (s, r->idx[last]), covered;
              guint want = brute_seek (r, s, at);

              if (want < b * CP_LOD_BLOCK)
                continue;
              g_assert_cmpuint (cp_lod_row_seek_covered (r, b * CP_LOD_BLOCK, at, &covered), ==, want);
              g_assert_cmpint (covered, ==, brute_row_coverage (l, row, G_MININT64 / 4, at));
              ties += cp_slices_get_dur (s, r->idx[last]) == 0;
            }
          if (r->pos == NULL)
            in_place++;
          else
            {
              copied++;
              for (guint b = 0; b < (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK; b++)
                in_slices += r->pos_base[b] == CP_LOD_NO_POS;
            }
          for (guint k = 0; k <= r->n; k++)
            {
              g_assert_cmpint (cp_lod_row_busy (r, k), ==, sum);
              if (k == r->n)
                break;
              g_assert_cmpint (cp_lod_row_start (r, k), ==, cp_slices_get_start (s, r->idx[k]));
              g_assert_cmpint (cp_lod_row_dur (r, k), ==, cp_slices_get_dur (s, r->idx[k]));
              g_assert_cmpint (cp_lod_row_end (r, k), ==, cp_slices_get_end (s, r->idx[k]));
              sum += cp_slices_get_dur (s, r->idx[k]);
            }
          for (guint k = 0; k < 600; k++)
            {
              gint64 t = random_time (rand, dur), covered;
              guint want, from;

              if (r->n > 0 && k % 3 == 1)
                t = cp_slices_get_end (s, r->idx[g_rand_int_range (rand, 0, r->n)]);
              else if (r->n > 0 && k % 3 == 2)
                t = cp_slices_get_start (s, r->idx[g_rand_int_range (rand, 0, r->n)]);
              want = brute_seek (r, s, t);
              from = g_rand_int_range (rand, 0, want + 1);
              g_assert_cmpuint (cp_lod_row_seek_covered (r, from, t, &covered), ==, want);
              g_assert_cmpint (covered, ==, brute_row_coverage (l, row, G_MININT64 / 4, t));
            }
          /* Pixel columns of a zoomed-out view, each its brute force union. */
          for (guint c = 0; c < 499; c++)
            {
              gint64 c0 = (gint64) ((double) dur * c / 499), c1 = (gint64) ((double) dur * (c + 1) / 499);

              g_assert_cmpint (cp_lod_row_coverage (lod, lane, row, c0, c1), ==, brute_row_coverage (l, row, c0, c1));
            }
        }
    }
  /* The nested lane's rows are copied, with blocks of both kinds; the flat
   * lane's row is not. */
  g_assert_cmpuint (copied, ==, 2);
  g_assert_cmpuint (in_place, ==, 1);
  g_assert_nonnull (cp_lod_get_row (lod, 0, 0)->pos);
  g_assert_nonnull (cp_lod_get_row (lod, 0, 1)->pos);
  g_assert_null (cp_lod_get_row (lod, 1, 0)->pos);
  /* The flat lane's slices are the row's, in order: read without idx. */
  g_assert_true (cp_lod_get_row (lod, 1, 0)->consecutive);
  g_assert_false (cp_lod_get_row (lod, 0, 0)->consecutive);
  g_assert_false (cp_lod_get_row (lod, 0, 1)->consecutive);
  g_assert_cmpuint (in_slices, >=, 2);
  /* Superblocks of both kinds: the 5 s gaps and 6 s slices do not fit. */
  g_assert_cmpuint (wide_supers, >=, 2);
  g_assert_cmpuint (narrow_supers, >=, 2);
  g_assert_cmpuint (ties, >=, 10);
  g_rand_free (rand);
}

/* The first of ends[0, n) not before t, or the last: what a walk's asks
 * ahead must find, by brute force. */
static guint
brute_first_not_before (const gint64 *ends,
                        guint         n,
                        gint64        t)
{
  guint i = 0;

  while (i + 1 < n && ends[i] < t)
    i++;
  return i;
}

/* A walk's asks ahead find the superblocks and blocks their times fall in,
 * galloping from where the last ones were, on rows of every kind (through
 * positions, copied, consecutive); under the sanitizers they also show
 * that the hints read nothing outside the row. */
static void
check_ahead (CpTrace *trace,
             guint32  seed)
{
  g_autoptr(CpLod) lod = cp_lod_new (trace);
  GRand *rand = g_rand_new_with_seed (seed);
  gint64 dur = cp_trace_get_duration (trace);

  for (guint lane = 0; lane < cp_trace_get_n_lanes (trace); lane++)
    {
      CpLane *l = cp_trace_get_lane (trace, lane);

      if (cp_lane_get_kind (l) == CP_LANE_COUNTER)
        continue;
      for (guint row = 0; row < cp_lane_get_n_rows (l); row++)
        {
          const CpLodRow *r = cp_lod_get_row (lod, lane, row);
          guint nb = (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
          guint nsb = (nb + CP_LOD_SUPER - 1) / CP_LOD_SUPER;

          for (guint walk = 0; walk < 6; walk++)
            {
              CpLodAhead ahead = { 0 };
              /* Columns from before the row to past it, some walks wide
               * (many superblocks a column), some narrow. */
              gint64 width = walk % 2 ? dur / 40 + 1 : dur / 3000 + 1;
              gint64 t = -width - 50;

              while (t < dur + 30 * width)
                {
                  gint64 far = t + 8 * width, near = t + 4 * width, close = t + 2 * width;
                  guint before = ahead.close_sb;
                  guint found = cp_lod_row_ahead (r, &ahead, far, near, close);

                  if (r->n == 0)
                    {
                      g_assert_cmpuint (ahead.far_sb, ==, 0);
                      g_assert_cmpuint (found, ==, G_MAXUINT);
                      t += width;
                      continue;
                    }
                  g_assert_cmpuint (found, ==, brute_first_not_before (r->block_end, nb, near));
                  /* The seek it is for, from anywhere before, with the
                   * block found as its hint: the answer by brute force. */
                  {
                    guint want = 0, from;
                    gint64 got_cov, want_cov;

                    while (want < r->n && cp_lod_row_ends_before (r, want, near))
                      want++;
                    from = g_rand_int_range (rand, 0, (gint32) want + 1);
                    g_assert_cmpuint (cp_lod_row_seek_covered_hinted (r, from, near, found, &got_cov), ==, want);
                    g_assert_cmpuint (cp_lod_row_seek_covered (r, from, near, &want_cov), ==, want);
                    g_assert_cmpint (got_cov, ==, want_cov);
                  }
                  g_assert_cmpuint (ahead.far_sb, ==, brute_first_not_before (r->super_end, nsb, far));
                  g_assert_cmpuint (ahead.near_sb, ==, brute_first_not_before (r->super_end, nsb, near));
                  if (r->pos == NULL && !r->consecutive)
                    g_assert_cmpuint (ahead.close_sb, ==, brute_first_not_before (r->super_end, nsb, close));
                  else
                    g_assert_cmpuint (ahead.close_sb, ==, before);
                  g_assert_cmpuint (cp_lod_row_block_near (r, ahead.near_sb, near), ==,
                                    brute_first_not_before (r->block_end, nb, near));
                  t += g_rand_int_range (rand, 1, 3) * width;
                }
            }
          /* At a superblock's end exactly, and either side of it, from
           * anywhere before the answer. */
          for (guint sb = 0; sb < nsb; sb++)
            for (gint64 d = -1; d <= 1; d++)
              {
                gint64 at = r->super_end[sb] + d;
                guint want = brute_first_not_before (r->super_end, nsb, at);

                g_assert_cmpuint (cp_lod_row_super_at (r, g_rand_int_range (rand, 0, want + 1), at), ==, want);
                g_assert_cmpuint (cp_lod_row_block_near (r, want, at), ==,
                                  brute_first_not_before (r->block_end, nb, at));
              }
          /* From past the end, and from the last superblock. */
          {
            CpLodAhead ahead = { nsb + 3, nsb, nsb > 0 ? nsb - 1 : 0 };

            cp_lod_row_ahead (r, &ahead, G_MININT64 / 4, G_MININT64 / 4, G_MAXINT64 / 4);
            if (r->n > 0)
              g_assert_cmpuint (ahead.far_sb, ==, nsb - 1);
          }
        }
    }
  g_rand_free (rand);
}

static void
test_ahead (void)
{
  g_autoptr(CpTrace) random = make_random_trace (31);
  g_autoptr(CpTrace) spread = make_spread_trace (32);

  check_ahead (random, 33);
  check_ahead (spread, 34);
}

/* Times far apart in 64 bits (a hostile capture's): a row whose blocks
 * jump from near the lowest time to near the highest. Its superblocks do
 * not fit 32 bits from their bases, seeks and asks ahead clamp instead of
 * overflowing (UBSan would say), and answers match brute force. */
static void
test_far_times (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_pid (b, 1);
  guint lane = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  CpStr name = cp_trace_builder_intern (b, "op", -1);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpLod) lod = NULL;
  const gint64 far = G_MAXINT64 / 4;
  const CpLodRow *r;
  const CpSlices *s;
  gint64 probes[] = { G_MININT64 / 2, -far - 1, -far, -far + 5, -1, 0, 1, far - 1, far, far + 10, G_MAXINT64 / 2 };
  guint wide = 0;

  for (guint i = 0; i < 5000; i++)
    {
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.name = name;
      init.start = (i < 2500 ? -far : far) + (gint64) (i % 2500) * 1000;
      init.dur = 400;
      cp_trace_builder_add_slice (b, lane, &init);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  lod = cp_lod_new (trace);
  r = cp_lod_get_row (lod, 0, 0);
  s = cp_lane_get_slices (cp_trace_get_lane (trace, 0));
  g_assert_cmpuint (r->n, ==, 5000);
  for (guint sb = 0; sb * CP_LOD_SUPER * CP_LOD_BLOCK < r->n; sb++)
    wide += !cp_lod_super_has_end32 (r, sb, (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK);
  g_assert_cmpuint (wide, >=, 1);
  for (guint i = 0; i < G_N_ELEMENTS (probes); i++)
    for (guint from = 0; from < r->n; from += 617)
      {
        gint64 t = probes[i], covered;
        guint want = brute_seek (r, s, t);
        CpLodAhead ahead = { 0 };

        if (from > want)
          continue;
        g_assert_cmpuint (cp_lod_row_seek_covered (r, from, t, &covered), ==, want);
        cp_lod_row_ahead (r, &ahead, t, t, t);
        g_assert_cmpuint (cp_lod_row_block_near (r, ahead.near_sb, t), ==,
                          brute_first_not_before (r->block_end, (r->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK, t));
      }
}


/* A long counter with samples at the same time and values that are not
 * numbers (which the builder skips, leaving gaps in time), alone and in
 * runs longer than a block and than a superblock: seeks and maxima against
 * brute force, over ranges of every length. */
static void
test_counter_gaps (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint gpu = cp_trace_builder_process_for_pid (b, 0), lane, n;
  guint cl = cp_trace_builder_lane (b, gpu, CP_LANE_COUNTER, (CpLaneKey) { 0, 1 });
  GRand *rand = g_rand_new_with_seed (77);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpLod) lod = NULL;
  const gint64 *ts;
  const double *values;
  gint64 t = 0;

  for (guint i = 0; i < 70000; i++)
    {
      gboolean gap = (i >= 1000 && i < 1040) || (i >= 20000 && i < 20700) || g_rand_int_range (rand, 0, 50) == 0;

      t += g_rand_int_range (rand, 0, 4) == 0 ? 0 : g_rand_int_range (rand, 1, 3000);
      cp_trace_builder_add_counter (b, cl, t, gap ? NAN : g_rand_double_range (rand, -1e6, 1e6));
    }
  g_rand_free (rand);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  lod = cp_lod_new (trace);
  rand = g_rand_new_with_seed (78);
  lane = 0;
  g_assert_cmpint (cp_lane_get_kind (cp_trace_get_lane (trace, lane)), ==, CP_LANE_COUNTER);
  n = cp_lane_get_counter (cp_trace_get_lane (trace, lane), &ts, &values);
  g_assert_cmpuint (n, >, 60000);

  for (guint k = 0; k < 4000; k++)
    {
      guint lens[] = { 3, 40, 700, 12000, 70000 };
      guint a = g_rand_int_range (rand, 0, n), e;
      double want = -INFINITY, got;
      gint64 at;
      guint from, seek;

      if (k % 5 == 1)
        a = 20000 + g_rand_int_range (rand, 0, 700);
      e = a + g_rand_int_range (rand, 1, lens[k % G_N_ELEMENTS (lens)] + 1);
      e = MIN (e, n);
      for (guint i = a; i < e; i++)
        if (!isnan (values[i]))
          want = MAX (want, values[i]);
      got = cp_lod_counter_max (lod, lane, a, e);
      g_assert_cmpfloat (got, ==, want);

      /* The first sample at or after a time, from anywhere before it. */
      at = k % 2 ? ts[g_rand_int_range (rand, 0, n)] : g_rand_int_range (rand, -10, (gint32) ts[n - 1] + 10);
      seek = 0;
      while (seek < n && ts[seek] < at)
        seek++;
      from = g_rand_int_range (rand, 0, seek + 1);
      g_assert_cmpuint (cp_lod_counter_seek (lod, lane, from, at), ==, seek);
      g_assert_cmpuint (cp_lod_counter_seek (lod, lane, seek / 2, at), ==, seek);
    }
  g_rand_free (rand);
}

static void
test_counter_max (void)
{
  g_autoptr(CpTrace) trace = make_random_trace (5);
  g_autoptr(CpLod) lod = cp_lod_new (trace);
  GRand *rand = g_rand_new_with_seed (6);
  const double *values;
  const gint64 *ts;
  guint lane = G_MAXUINT, n;
  double vmin, vmax;

  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      if (cp_lane_get_kind (cp_trace_get_lane (trace, i)) == CP_LANE_COUNTER)
        lane = i;
    }
  g_assert_cmpuint (lane, !=, G_MAXUINT);
  n = cp_lane_get_counter (cp_trace_get_lane (trace, lane), &ts, &values);
  g_assert_cmpuint (n, ==, 5000);
  g_assert_true (cp_lod_counter_range (lod, lane, &vmin, &vmax));
  g_assert_cmpfloat (vmin, <, 0);
  g_assert_cmpfloat (vmax, >, 90);

  for (guint k = 0; k < 2000; k++)
    {
      guint a = g_rand_int_range (rand, 0, n);
      guint b = a + g_rand_int_range (rand, 1, k % 3 == 0 ? 4000 : 40);
      double expected = -INFINITY;

      b = MIN (b, n);
      for (guint i = a; i < b; i++)
        expected = MAX (expected, values[i]);
      g_assert_cmpfloat (cp_lod_counter_max (lod, lane, a, b), ==, expected);
    }
  g_assert_true (isnan (cp_lod_counter_max (lod, lane, 10, 10)));
  g_assert_false (cp_lod_counter_range (lod, 0, NULL, NULL));
  g_rand_free (rand);
}

static void
test_flows_and_ensure (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint host = cp_trace_builder_process_for_pid (b, 1);
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint hl = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
  guint kl = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  g_autoptr(CpTrace) trace = NULL;
  const CpFlow *flows;
  const guint32 *ids;
  guint n_flows, n;
  CpLod *lod;

  /* Launches in reverse order so the flow list is not already sorted. */
  for (gint i = 9; i >= 0; i--)
    {
      CpSliceInit init;

      cp_slice_init_clear (&init);
      init.name = cp_trace_builder_intern (b, "cudaLaunchKernel", -1);
      init.start = i * 1000;
      init.dur = 100;
      init.corr = 100 + i;
      cp_trace_builder_add_slice (b, hl, &init);
      init.name = cp_trace_builder_intern (b, "kernel", -1);
      init.start = i * 1000 + 300;
      init.dur = 200;
      cp_trace_builder_add_slice (b, kl, &init);
    }
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  flows = cp_trace_get_flows (trace, &n_flows);
  g_assert_cmpuint (n_flows, ==, 10);

  g_assert_null (cp_lod_peek (trace));
  lod = cp_lod_ensure (trace);
  g_assert_true (lod == cp_lod_ensure (trace));
  g_assert_true (lod == cp_lod_peek (trace));
  g_assert_cmpuint (cp_lod_get_memory_size (lod), >, 0);
  for (guint lane = 0; lane < 2; lane++)
    {
      gboolean host_lane = cp_lane_get_kind (cp_trace_get_lane (trace, lane)) == CP_LANE_HOST_THREAD;

      ids = cp_lod_get_lane_flows (lod, lane, TRUE, &n);
      g_assert_cmpuint (n, ==, host_lane ? 10 : 0);
      for (guint k = 1; k < n; k++)
        g_assert_cmpuint (flows[ids[k - 1]].from.index, <, flows[ids[k]].from.index);
      ids = cp_lod_get_lane_flows (lod, lane, FALSE, &n);
      g_assert_cmpuint (n, ==, host_lane ? 0 : 10);
      for (guint k = 1; k < n; k++)
        g_assert_cmpuint (flows[ids[k - 1]].to.index, <, flows[ids[k]].to.index);
    }
}

static gpointer
ensure_thread (gpointer data)
{
  return cp_lod_ensure (data);
}

static void
test_ensure_threads (void)
{
  g_autoptr(CpTrace) trace = make_random_trace (7);
  GThread *threads[4];
  gpointer results[4];

  /* Racing threads all get the one index that stays with the trace. */
  for (guint i = 0; i < 4; i++)
    threads[i] = g_thread_new ("lod", ensure_thread, trace);
  for (guint i = 0; i < 4; i++)
    results[i] = g_thread_join (threads[i]);
  for (guint i = 1; i < 4; i++)
    g_assert_true (results[i] == results[0]);
  g_assert_true (results[0] == cp_lod_ensure (trace));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/lod/row-coverage", test_row_coverage);
  g_test_add_func ("/lod/count-and-first", test_count_and_first);
  g_test_add_func ("/lod/counter-max", test_counter_max);
  g_test_add_func ("/lod/counter-gaps", test_counter_gaps);
  g_test_add_func ("/lod/seek", test_seek);
  g_test_add_func ("/lod/copied-rows", test_copied_rows);
  g_test_add_func ("/lod/ahead", test_ahead);
  g_test_add_func ("/lod/far-times", test_far_times);
  g_test_add_func ("/lod/flows-and-ensure", test_flows_and_ensure);
  g_test_add_func ("/lod/ensure-threads", test_ensure_threads);

  return g_test_run ();
}
