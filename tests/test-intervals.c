/* test-intervals.c: interval algebra and the priority sweep / claiming
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "analysis/cp-intervals.h"
#include "analysis/cp-sweep.h"

static CpIntervals *
make (const gint64 *pairs,
      guint         n_pairs)
{
  CpIntervals *set = cp_intervals_new ();

  for (guint i = 0; i < n_pairs; i++)
    cp_intervals_add (set, pairs[2 * i], pairs[2 * i + 1]);
  cp_intervals_normalize (set);
  return set;
}

#define MAKE(...) make ((const gint64[]) { __VA_ARGS__ }, \
                        sizeof ((const gint64[]) { __VA_ARGS__ }) / sizeof (gint64) / 2)

static void
assert_set (const CpIntervals *set,
            const gint64      *pairs,
            guint              n_pairs)
{
  g_assert_cmpuint (set->n, ==, n_pairs);
  for (guint i = 0; i < n_pairs; i++)
    {
      g_assert_cmpint (set->v[i].start, ==, pairs[2 * i]);
      g_assert_cmpint (set->v[i].end, ==, pairs[2 * i + 1]);
    }
}

#define ASSERT_SET(set, ...) assert_set (set, (const gint64[]) { __VA_ARGS__ }, \
                                         sizeof ((const gint64[]) { __VA_ARGS__ }) / sizeof (gint64) / 2)

static void
test_normalize (void)
{
  /* Unsorted, overlapping, nested, touching, empty and reversed intervals. */
  g_autoptr(CpIntervals) set = cp_intervals_new ();

  cp_intervals_add (set, 50, 60);
  cp_intervals_add (set, 0, 10);
  cp_intervals_add (set, 5, 8);     /* nested */
  cp_intervals_add (set, 10, 20);   /* touches [0, 10) */
  cp_intervals_add (set, 30, 30);   /* empty: dropped */
  cp_intervals_add (set, 40, 35);   /* reversed: dropped */
  cp_intervals_add (set, 55, 70);   /* overlaps [50, 60) */
  cp_intervals_normalize (set);
  ASSERT_SET (set, 0, 20, 50, 70);
  g_assert_cmpint (cp_intervals_length (set), ==, 40);
}

static void
test_add_sorted (void)
{
  g_autoptr(CpIntervals) set = cp_intervals_new ();

  /* Nested slices arrive sorted by start, as on a lane. */
  cp_intervals_add_sorted (set, 0, 100);
  cp_intervals_add_sorted (set, 10, 20);
  cp_intervals_add_sorted (set, 90, 130);
  cp_intervals_add_sorted (set, 130, 140);
  cp_intervals_add_sorted (set, 200, 200);
  cp_intervals_add_sorted (set, 300, 310);
  ASSERT_SET (set, 0, 140, 300, 310);
}

static void
test_algebra (void)
{
  g_autoptr(CpIntervals) a = MAKE (0, 10, 20, 30, 40, 50);
  g_autoptr(CpIntervals) b = MAKE (5, 25, 45, 60);
  g_autoptr(CpIntervals) u = cp_intervals_union (a, b);
  g_autoptr(CpIntervals) i = cp_intervals_intersect (a, b);
  g_autoptr(CpIntervals) d = cp_intervals_subtract (a, b);
  g_autoptr(CpIntervals) d2 = cp_intervals_subtract (b, a);
  g_autoptr(CpIntervals) empty = cp_intervals_new ();
  g_autoptr(CpIntervals) ue = cp_intervals_union (a, empty);
  g_autoptr(CpIntervals) ie = cp_intervals_intersect (a, empty);
  g_autoptr(CpIntervals) de = cp_intervals_subtract (a, empty);
  g_autoptr(CpIntervals) ed = cp_intervals_subtract (empty, a);

  ASSERT_SET (u, 0, 30, 40, 60);
  ASSERT_SET (i, 5, 10, 20, 25, 45, 50);
  ASSERT_SET (d, 0, 5, 25, 30, 40, 45);
  ASSERT_SET (d2, 10, 20, 50, 60);
  g_assert_true (cp_intervals_equal (ue, a));
  g_assert_cmpuint (ie->n, ==, 0);
  g_assert_true (cp_intervals_equal (de, a));
  g_assert_cmpuint (ed->n, ==, 0);
  g_assert_cmpint (cp_intervals_overlap_length (a, b), ==, 15);
  g_assert_cmpint (cp_intervals_overlap_length (b, a), ==, 15);
}

static void
test_subtract_spanning (void)
{
  /* One interval of b covering several of a, and several of b inside one of a. */
  g_autoptr(CpIntervals) a = MAKE (0, 100, 200, 210, 220, 230);
  g_autoptr(CpIntervals) b = MAKE (10, 20, 30, 40, 90, 205, 225, 300);
  g_autoptr(CpIntervals) d = cp_intervals_subtract (a, b);

  ASSERT_SET (d, 0, 10, 20, 30, 40, 90, 205, 210, 220, 225);
}

static void
test_clip_complement (void)
{
  g_autoptr(CpIntervals) a = MAKE (0, 10, 20, 30, 40, 50);
  g_autoptr(CpIntervals) c = cp_intervals_clip (a, 5, 45);
  g_autoptr(CpIntervals) g = cp_intervals_complement (a, 5, 45);
  g_autoptr(CpIntervals) g2 = cp_intervals_complement (a, -10, 60);
  g_autoptr(CpIntervals) none = cp_intervals_clip (a, 50, 40);

  ASSERT_SET (c, 5, 10, 20, 30, 40, 45);
  ASSERT_SET (g, 10, 20, 30, 40);
  ASSERT_SET (g2, -10, 0, 10, 20, 30, 40, 50, 60);
  g_assert_cmpuint (none->n, ==, 0);
  g_assert_cmpint (cp_intervals_length_in (a, 5, 45), ==, 20);
  g_assert_cmpint (cp_intervals_length_in (a, 10, 20), ==, 0);
  g_assert_cmpint (cp_intervals_length_in (a, 45, 5), ==, 0);
  g_assert_cmpuint (cp_intervals_first_ending_after (a, 10), ==, 1);
  g_assert_cmpuint (cp_intervals_first_ending_after (a, 9), ==, 0);
  g_assert_cmpuint (cp_intervals_first_ending_after (a, 50), ==, 3);
}

static void
test_windows (void)
{
  /* Per-step windows: an interval that spans several windows counts in each. */
  g_autoptr(CpIntervals) a = MAKE (0, 25, 35, 36, 50, 90);
  CpInterval w[] = { { 0, 10 }, { 10, 30 }, { 30, 40 }, { 60, 70 }, { 95, 100 } };
  gint64 out[G_N_ELEMENTS (w)];

  cp_intervals_lengths_in_windows (a, w, G_N_ELEMENTS (w), out);
  g_assert_cmpint (out[0], ==, 10);
  g_assert_cmpint (out[1], ==, 15);
  g_assert_cmpint (out[2], ==, 1);
  g_assert_cmpint (out[3], ==, 10);
  g_assert_cmpint (out[4], ==, 0);
}

static void
test_union_many_touching (void)
{
  g_autoptr(CpIntervals) a = MAKE (0, 10);
  g_autoptr(CpIntervals) b = MAKE (10, 20, 50, 60);
  g_autoptr(CpIntervals) c = MAKE (15, 30);
  g_autoptr(CpIntervals) e = cp_intervals_new ();
  CpIntervals *sets[] = { a, NULL, b, e, c };
  g_autoptr(CpIntervals) u = cp_intervals_union_many (sets, G_N_ELEMENTS (sets));
  g_autoptr(CpIntervals) none = cp_intervals_union_many (sets, 0);
  g_autoptr(CpIntervals) gaps = MAKE (0, 5, 20, 40, 60, 70, 80, 90);
  g_autoptr(CpIntervals) touch = cp_intervals_select_touching (gaps, b);

  ASSERT_SET (u, 0, 30, 50, 60);
  g_assert_cmpuint (none->n, ==, 0);
  /* [20, 40) only touches b at 20 (no length), [60, 70) at 60: neither selected. */
  g_assert_cmpuint (touch->n, ==, 0);
  {
    g_autoptr(CpIntervals) t2 = cp_intervals_select_touching (gaps, c);
    g_autoptr(CpIntervals) probe = MAKE (3, 4, 85, 200);
    g_autoptr(CpIntervals) t3 = cp_intervals_select_touching (gaps, probe);

    ASSERT_SET (t2, 20, 40);
    ASSERT_SET (t3, 0, 5, 80, 90);
  }
}

/* Random sets against a bitmap. */
#define SPAN 200

static CpIntervals *
random_set (GRand   *rand,
            gboolean bits[SPAN])
{
  CpIntervals *set = cp_intervals_new ();
  guint n = g_rand_int_range (rand, 0, 8);

  for (guint i = 0; i < SPAN; i++)
    bits[i] = FALSE;
  for (guint i = 0; i < n; i++)
    {
      gint64 s = g_rand_int_range (rand, 0, SPAN);
      gint64 e = s + g_rand_int_range (rand, 0, 40);

      e = MIN (e, SPAN);
      cp_intervals_add (set, s, e);
      for (gint64 t = s; t < e; t++)
        bits[t] = TRUE;
    }
  cp_intervals_normalize (set);
  return set;
}

static void
check_bits (const CpIntervals *set,
            const gboolean     bits[SPAN])
{
  gint64 len = 0;

  for (gsize k = 0; k < set->n; k++)
    {
      g_assert_cmpint (set->v[k].start, <, set->v[k].end);
      if (k > 0)
        g_assert_cmpint (set->v[k].start, >, set->v[k - 1].end);
    }
  for (gint64 t = 0; t < SPAN; t++)
    {
      g_assert_cmpint (cp_intervals_length_in (set, t, t + 1), ==, bits[t] ? 1 : 0);
      len += bits[t];
    }
  g_assert_cmpint (cp_intervals_length (set), ==, len);
}

static void
test_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  for (guint iter = 0; iter < 500; iter++)
    {
      gboolean ba[SPAN], bb[SPAN], bu[SPAN], bi[SPAN], bd[SPAN];
      g_autoptr(CpIntervals) a = random_set (rand, ba);
      g_autoptr(CpIntervals) b = random_set (rand, bb);
      g_autoptr(CpIntervals) u = cp_intervals_union (a, b);
      g_autoptr(CpIntervals) i = cp_intervals_intersect (a, b);
      g_autoptr(CpIntervals) d = cp_intervals_subtract (a, b);

      for (guint t = 0; t < SPAN; t++)
        {
          bu[t] = ba[t] || bb[t];
          bi[t] = ba[t] && bb[t];
          bd[t] = ba[t] && !bb[t];
        }
      check_bits (a, ba);
      check_bits (u, bu);
      check_bits (i, bi);
      check_bits (d, bd);
      g_assert_cmpint (cp_intervals_overlap_length (a, b), ==, cp_intervals_length (i));
    }
}

/* The priority sweep (XProf) */

enum { COMPUTE, LAUNCH, COMM, HOST, N_TYPES };
static const guint prio[N_TYPES] = { [COMPUTE] = 140, [LAUNCH] = 90, [COMM] = 100, [HOST] = 10 };

static void
test_sweep_golden (void)
{
  /* Two overlapping kernels, a launch call under a kernel (XProf counts
   * compute, not launch), a collective overlapping compute, nested host work
   * and a hole. */
  CpTypedSpan spans[] = {
    { 0, 100, COMPUTE },
    { 50, 150, COMPUTE },
    { 120, 180, LAUNCH },      /* 120..150 under compute */
    { 140, 220, COMM },        /* 140..180 under compute or launch */
    { 0, 400, HOST },          /* outermost host op */
    { 250, 300, LAUNCH },      /* nested in host */
  };
  gint64 totals[N_TYPES + 1];
  CpIntervals *segs[N_TYPES + 1];

  cp_priority_sweep (spans, G_N_ELEMENTS (spans), prio, N_TYPES, 0, 500, totals, segs);
  g_assert_cmpint (totals[COMPUTE], ==, 150);
  g_assert_cmpint (totals[COMM], ==, 70);        /* 150..220 */
  g_assert_cmpint (totals[LAUNCH], ==, 50);      /* 250..300; 150..180 goes to COMM (100 > 90) */
  g_assert_cmpint (totals[HOST], ==, 130);       /* 220..250 + 300..400 */
  g_assert_cmpint (totals[N_TYPES], ==, 100);    /* 400..500 unknown */
  ASSERT_SET (segs[COMM], 150, 220);
  ASSERT_SET (segs[HOST], 220, 250, 300, 400);
  ASSERT_SET (segs[N_TYPES], 400, 500);
  for (guint k = 0; k <= N_TYPES; k++)
    cp_intervals_free (segs[k]);

  /* A window cuts spans. */
  cp_priority_sweep (spans, G_N_ELEMENTS (spans), prio, N_TYPES, 90, 260, totals, NULL);
  g_assert_cmpint (totals[COMPUTE], ==, 60);
  g_assert_cmpint (totals[COMM], ==, 70);
  g_assert_cmpint (totals[LAUNCH], ==, 10);
  g_assert_cmpint (totals[HOST], ==, 30);
  g_assert_cmpint (totals[N_TYPES], ==, 0);
}

static void
test_sweep_ties (void)
{
  /* At equal times ends come before starts, and zero-length spans own
   * nothing; equal spans of two types go to the higher priority. */
  CpTypedSpan spans[] = {
    { 0, 10, HOST }, { 10, 20, LAUNCH }, { 10, 20, HOST }, { 20, 20, COMPUTE },
  };
  gint64 totals[N_TYPES + 1];

  cp_priority_sweep (spans, G_N_ELEMENTS (spans), prio, N_TYPES, 0, 20, totals, NULL);
  g_assert_cmpint (totals[HOST], ==, 10);
  g_assert_cmpint (totals[LAUNCH], ==, 10);
  g_assert_cmpint (totals[COMPUTE], ==, 0);
  g_assert_cmpint (totals[N_TYPES], ==, 0);
}

static void
test_claiming (void)
{
  /* TensorBoard's order: Kernel, Memcpy, Communication, Runtime, DataLoader, CpuOp. */
  g_autoptr(CpIntervals) kernel = MAKE (0, 30);
  g_autoptr(CpIntervals) memcpy_ = MAKE (20, 40);
  g_autoptr(CpIntervals) comm = MAKE (10, 50);
  g_autoptr(CpIntervals) runtime = MAKE (45, 60);
  g_autoptr(CpIntervals) loader = MAKE (55, 80);
  g_autoptr(CpIntervals) cpu = MAKE (0, 100);
  CpIntervals *roles[] = { kernel, memcpy_, NULL, comm, runtime, loader, cpu };
  gint64 claimed[G_N_ELEMENTS (roles) + 1];
  CpIntervals *sets[G_N_ELEMENTS (roles) + 1];

  cp_claim_sequential (roles, G_N_ELEMENTS (roles), 0, 120, claimed, sets);
  g_assert_cmpint (claimed[0], ==, 30);
  g_assert_cmpint (claimed[1], ==, 10);
  g_assert_cmpint (claimed[2], ==, 0);
  g_assert_cmpint (claimed[3], ==, 10);
  g_assert_cmpint (claimed[4], ==, 10);
  g_assert_cmpint (claimed[5], ==, 20);
  g_assert_cmpint (claimed[6], ==, 20);
  g_assert_cmpint (claimed[7], ==, 20);     /* other: 100..120 */
  ASSERT_SET (sets[5], 60, 80);
  for (guint k = 0; k <= G_N_ELEMENTS (roles); k++)
    cp_intervals_free (sets[k]);

  /* A window that cuts. */
  cp_claim_sequential (roles, G_N_ELEMENTS (roles), 25, 58, claimed, NULL);
  g_assert_cmpint (claimed[0], ==, 5);
  g_assert_cmpint (claimed[1], ==, 10);
  g_assert_cmpint (claimed[3], ==, 10);
  g_assert_cmpint (claimed[4], ==, 8);
  g_assert_cmpint (claimed[5], ==, 0);
  g_assert_cmpint (claimed[7], ==, 0);
}

static void
test_sweep_equals_claiming (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  /* Claiming in priority order is the priority sweep. */
  for (guint iter = 0; iter < 300; iter++)
    {
      g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (CpTypedSpan));
      CpIntervals *roles[N_TYPES];
      const guint by_prio[N_TYPES] = { COMPUTE, COMM, LAUNCH, HOST };
      CpIntervals *ordered[N_TYPES];
      gint64 sweep[N_TYPES + 1], claim[N_TYPES + 1];
      gint64 t0 = g_rand_int_range (rand, 0, 50), t1 = t0 + g_rand_int_range (rand, 0, 300);
      guint n = g_rand_int_range (rand, 0, 20);

      for (guint k = 0; k < N_TYPES; k++)
        roles[k] = cp_intervals_new ();
      for (guint i = 0; i < n; i++)
        {
          CpTypedSpan s;

          s.start = g_rand_int_range (rand, 0, 300);
          s.end = s.start + g_rand_int_range (rand, 0, 60);
          s.type = g_rand_int_range (rand, 0, N_TYPES);
          g_array_append_val (spans, s);
          cp_intervals_add (roles[s.type], s.start, s.end);
        }
      for (guint k = 0; k < N_TYPES; k++)
        {
          cp_intervals_normalize (roles[k]);
          ordered[k] = roles[by_prio[k]];
        }
      cp_priority_sweep ((CpTypedSpan *) spans->data, spans->len, prio, N_TYPES, t0, t1, sweep, NULL);
      cp_claim_sequential (ordered, N_TYPES, t0, t1, claim, NULL);
      for (guint k = 0; k < N_TYPES; k++)
        g_assert_cmpint (sweep[by_prio[k]], ==, claim[k]);
      g_assert_cmpint (sweep[N_TYPES], ==, claim[N_TYPES]);
      for (guint k = 0; k < N_TYPES; k++)
        cp_intervals_free (roles[k]);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/intervals/normalize", test_normalize);
  g_test_add_func ("/intervals/add-sorted", test_add_sorted);
  g_test_add_func ("/intervals/algebra", test_algebra);
  g_test_add_func ("/intervals/subtract-spanning", test_subtract_spanning);
  g_test_add_func ("/intervals/clip-complement", test_clip_complement);
  g_test_add_func ("/intervals/windows", test_windows);
  g_test_add_func ("/intervals/union-many-touching", test_union_many_touching);
  g_test_add_func ("/intervals/random", test_random);
  g_test_add_func ("/sweep/golden", test_sweep_golden);
  g_test_add_func ("/sweep/ties", test_sweep_ties);
  g_test_add_func ("/sweep/claiming", test_claiming);
  g_test_add_func ("/sweep/equals-claiming", test_sweep_equals_claiming);

  return g_test_run ();
}
