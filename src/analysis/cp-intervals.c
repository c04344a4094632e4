/* cp-intervals.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp-intervals.h"

CpIntervals *
cp_intervals_new (void)
{
  CpIntervals *set = g_new0 (CpIntervals, 1);

  set->ref_count = 1;
  return set;
}

CpIntervals *
cp_intervals_new_sized (gsize reserve)
{
  CpIntervals *set = cp_intervals_new ();

  if (reserve > 0)
    {
      set->v = g_new (CpInterval, reserve);
      set->cap = reserve;
    }
  return set;
}

CpIntervals *
cp_intervals_copy (const CpIntervals *set)
{
  CpIntervals *copy;

  g_return_val_if_fail (set != NULL, NULL);

  copy = cp_intervals_new_sized (set->n);
  if (set->n > 0)
    memcpy (copy->v, set->v, set->n * sizeof (CpInterval));
  copy->n = set->n;
  return copy;
}

CpIntervals *
cp_intervals_ref (CpIntervals *set)
{
  g_return_val_if_fail (set != NULL, NULL);
  g_return_val_if_fail (set->ref_count > 0, NULL);

  g_atomic_int_inc (&set->ref_count);
  return set;
}

void
cp_intervals_free (CpIntervals *set)
{
  if (set == NULL)
    return;
  if (!g_atomic_int_dec_and_test (&set->ref_count))
    return;
  g_free (set->v);
  g_free (set);
}

void
cp_intervals_clear (CpIntervals *set)
{
  g_return_if_fail (set != NULL);
  g_return_if_fail (set->ref_count == 1);
  set->n = 0;
}

static inline void
grow (CpIntervals *set)
{
  gsize cap = set->cap ? set->cap * 2 : 16;

  set->v = g_renew (CpInterval, set->v, cap);
  set->cap = cap;
}

static inline void
push (CpIntervals *set,
      gint64       start,
      gint64       end)
{
  if (G_UNLIKELY (set->n == set->cap))
    grow (set);
  set->v[set->n].start = start;
  set->v[set->n].end = end;
  set->n++;
}

void
cp_intervals_add (CpIntervals *set,
                  gint64       start,
                  gint64       end)
{
  g_return_if_fail (set != NULL);
  g_return_if_fail (set->ref_count == 1);
  if (end <= start)
    return;
  push (set, start, end);
}

void
cp_intervals_add_sorted (CpIntervals *set,
                         gint64       start,
                         gint64       end)
{
  CpInterval *last;

  g_return_if_fail (set != NULL);
  g_return_if_fail (set->ref_count == 1);
  if (end <= start)
    return;
  if (set->n > 0)
    {
      last = &set->v[set->n - 1];
      g_assert (start >= last->start);
      if (start <= last->end)
        {
          if (end > last->end)
            last->end = end;
          return;
        }
    }
  push (set, start, end);
}

static int
cmp_interval (const void *a,
              const void *b)
{
  const CpInterval *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return 0;
}

void
cp_intervals_normalize (CpIntervals *set)
{
  gboolean sorted = TRUE;
  gsize out = 0;

  g_return_if_fail (set != NULL);
  g_return_if_fail (set->ref_count == 1);
  if (set->n == 0)
    return;

  for (gsize i = 1; i < set->n && sorted; i++)
    sorted = set->v[i].start >= set->v[i - 1].start;
  if (!sorted)
    qsort (set->v, set->n, sizeof (CpInterval), cmp_interval);

  for (gsize i = 0; i < set->n; i++)
    {
      CpInterval cur = set->v[i];

      if (cur.end <= cur.start)
        continue;
      if (out > 0 && cur.start <= set->v[out - 1].end)
        {
          if (cur.end > set->v[out - 1].end)
            set->v[out - 1].end = cur.end;
        }
      else
        set->v[out++] = cur;
    }
  set->n = out;
}

CpIntervals *
cp_intervals_union (const CpIntervals *a,
                    const CpIntervals *b)
{
  CpIntervals *out;
  gsize i = 0, j = 0;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  out = cp_intervals_new_sized (a->n + b->n);
  while (i < a->n || j < b->n)
    {
      const CpInterval *next;

      if (j >= b->n || (i < a->n && a->v[i].start <= b->v[j].start))
        next = &a->v[i++];
      else
        next = &b->v[j++];
      cp_intervals_add_sorted (out, next->start, next->end);
    }
  return out;
}

CpIntervals *
cp_intervals_intersect (const CpIntervals *a,
                        const CpIntervals *b)
{
  CpIntervals *out;
  gsize i = 0, j = 0;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  out = cp_intervals_new_sized (MIN (a->n + b->n, MAX (a->n, b->n)));
  while (i < a->n && j < b->n)
    {
      gint64 s = MAX (a->v[i].start, b->v[j].start);
      gint64 e = MIN (a->v[i].end, b->v[j].end);

      if (s < e)
        push (out, s, e);
      if (a->v[i].end < b->v[j].end)
        i++;
      else
        j++;
    }
  return out;
}

void
cp_intervals_foreach_intersection (const CpIntervals *a,
                                   const CpIntervals *b,
                                   CpIntervalFunc     func,
                                   gpointer           user_data)
{
  gsize i = 0, j = 0;

  g_return_if_fail (a != NULL && b != NULL && func != NULL);

  while (i < a->n && j < b->n)
    {
      gint64 s = MAX (a->v[i].start, b->v[j].start);
      gint64 e = MIN (a->v[i].end, b->v[j].end);

      if (s < e)
        func (s, e, user_data);
      if (a->v[i].end < b->v[j].end)
        i++;
      else
        j++;
    }
}

CpIntervals *
cp_intervals_subtract (const CpIntervals *a,
                       const CpIntervals *b)
{
  CpIntervals *out;
  gsize j = 0;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);

  out = cp_intervals_new_sized (a->n + 1);
  for (gsize i = 0; i < a->n; i++)
    {
      gint64 s = a->v[i].start;
      gint64 e = a->v[i].end;

      /* Skip the parts of b that end before this interval. */
      while (j < b->n && b->v[j].end <= s)
        j++;
      for (gsize k = j; k < b->n && b->v[k].start < e; k++)
        {
          if (b->v[k].start > s)
            push (out, s, b->v[k].start);
          if (b->v[k].end > s)
            s = b->v[k].end;
          if (s >= e)
            break;
        }
      if (s < e)
        push (out, s, e);
    }
  return out;
}

CpIntervals *
cp_intervals_union_many (CpIntervals * const *sets,
                         guint               n_sets)
{
  g_autoptr(GPtrArray) round = g_ptr_array_new ();
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_intervals_free);
  CpIntervals *result;

  for (guint i = 0; i < n_sets; i++)
    if (sets[i] != NULL && sets[i]->n > 0)
      g_ptr_array_add (round, sets[i]);

  if (round->len == 0)
    return cp_intervals_new ();
  if (round->len == 1)
    return cp_intervals_ref (g_ptr_array_index (round, 0));

  /* Pairwise rounds keep the work at O(total · log k). */
  while (round->len > 1)
    {
      g_autoptr(GPtrArray) next = g_ptr_array_new ();

      for (guint i = 0; i + 1 < round->len; i += 2)
        {
          CpIntervals *u = cp_intervals_union (g_ptr_array_index (round, i),
                                               g_ptr_array_index (round, i + 1));

          g_ptr_array_add (owned, u);
          g_ptr_array_add (next, u);
        }
      if (round->len % 2 == 1)
        g_ptr_array_add (next, g_ptr_array_index (round, round->len - 1));
      g_ptr_array_unref (round);
      round = g_steal_pointer (&next);
    }

  result = g_ptr_array_index (round, 0);
  /* The last union is owned: take it out of the free list. */
  for (guint i = 0; i < owned->len; i++)
    if (g_ptr_array_index (owned, i) == result)
      {
        g_ptr_array_index (owned, i) = NULL;
        break;
      }
  return result;
}

gsize
cp_intervals_first_ending_after (const CpIntervals *set,
                                 gint64             t)
{
  gsize lo = 0, hi;

  g_return_val_if_fail (set != NULL, 0);

  hi = set->n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (set->v[mid].end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

CpIntervals *
cp_intervals_clip (const CpIntervals *set,
                   gint64             t0,
                   gint64             t1)
{
  CpIntervals *out;

  g_return_val_if_fail (set != NULL, NULL);

  out = cp_intervals_new ();
  if (t1 <= t0)
    return out;
  for (gsize i = cp_intervals_first_ending_after (set, t0); i < set->n && set->v[i].start < t1; i++)
    push (out, MAX (set->v[i].start, t0), MIN (set->v[i].end, t1));
  return out;
}

CpIntervals *
cp_intervals_complement (const CpIntervals *set,
                         gint64             t0,
                         gint64             t1)
{
  CpIntervals *out;
  gint64 cur = t0;

  g_return_val_if_fail (set != NULL, NULL);

  out = cp_intervals_new ();
  if (t1 <= t0)
    return out;
  for (gsize i = cp_intervals_first_ending_after (set, t0); i < set->n && set->v[i].start < t1; i++)
    {
      if (set->v[i].start > cur)
        push (out, cur, set->v[i].start);
      if (set->v[i].end > cur)
        cur = set->v[i].end;
    }
  if (cur < t1)
    push (out, cur, t1);
  return out;
}

CpIntervals *
cp_intervals_select_touching (const CpIntervals *set,
                              const CpIntervals *b)
{
  CpIntervals *out;
  gsize j = 0;

  g_return_val_if_fail (set != NULL && b != NULL, NULL);

  out = cp_intervals_new ();
  for (gsize i = 0; i < set->n; i++)
    {
      while (j < b->n && b->v[j].end <= set->v[i].start)
        j++;
      if (j < b->n && b->v[j].start < set->v[i].end)
        push (out, set->v[i].start, set->v[i].end);
    }
  return out;
}

gint64
cp_intervals_length (const CpIntervals *set)
{
  gint64 total = 0;

  g_return_val_if_fail (set != NULL, 0);

  for (gsize i = 0; i < set->n; i++)
    total += set->v[i].end - set->v[i].start;
  return total;
}

gint64
cp_intervals_length_in (const CpIntervals *set,
                        gint64             t0,
                        gint64             t1)
{
  gint64 total = 0;

  g_return_val_if_fail (set != NULL, 0);

  if (t1 <= t0)
    return 0;
  for (gsize i = cp_intervals_first_ending_after (set, t0); i < set->n && set->v[i].start < t1; i++)
    total += MIN (set->v[i].end, t1) - MAX (set->v[i].start, t0);
  return total;
}

gint64
cp_intervals_overlap_length (const CpIntervals *a,
                             const CpIntervals *b)
{
  gint64 total = 0;
  gsize i = 0, j = 0;

  g_return_val_if_fail (a != NULL && b != NULL, 0);

  while (i < a->n && j < b->n)
    {
      gint64 s = MAX (a->v[i].start, b->v[j].start);
      gint64 e = MIN (a->v[i].end, b->v[j].end);

      if (s < e)
        total += e - s;
      if (a->v[i].end < b->v[j].end)
        i++;
      else
        j++;
    }
  return total;
}

void
cp_intervals_lengths_in_windows (const CpIntervals *set,
                                 const CpInterval  *windows,
                                 guint              n_windows,
                                 gint64            *out)
{
  gsize i = 0;

  g_return_if_fail (set != NULL);
  g_return_if_fail (n_windows == 0 || (windows != NULL && out != NULL));

  for (guint w = 0; w < n_windows; w++)
    {
      gint64 t0 = windows[w].start, t1 = windows[w].end;
      gint64 total = 0;

      /* Windows are sorted and disjoint, so the cursor only moves forward;
       * an interval spanning several windows is visited once per window. */
      while (i < set->n && set->v[i].end <= t0)
        i++;
      for (gsize k = i; k < set->n && set->v[k].start < t1; k++)
        {
          gint64 s = MAX (set->v[k].start, t0);
          gint64 e = MIN (set->v[k].end, t1);

          if (s < e)
            total += e - s;
        }
      out[w] = total;
    }
}

gboolean
cp_intervals_equal (const CpIntervals *a,
                    const CpIntervals *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a->n != b->n)
    return FALSE;
  return a->n == 0 || memcmp (a->v, b->v, a->n * sizeof (CpInterval)) == 0;
}
