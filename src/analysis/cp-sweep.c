/* cp-sweep.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>

#include "cp-sweep.h"

typedef struct
{
  gint64 t;
  guint  priority;
  guint  type;
  gboolean is_start;
} Boundary;

static int
cmp_boundary (const void *a,
              const void *b)
{
  const Boundary *x = a, *y = b;

  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  /* Ends before starts. */
  if (x->is_start != y->is_start)
    return x->is_start ? 1 : -1;
  /* Among starts, higher priority first (ends: any stable order). */
  if (x->priority != y->priority)
    return x->priority > y->priority ? -1 : 1;
  if (x->type != y->type)
    return x->type < y->type ? -1 : 1;
  return 0;
}

static guint
top_type (const gint64 *count,
          const guint  *priority,
          guint         n_types)
{
  guint best = n_types;

  for (guint k = 0; k < n_types; k++)
    if (count[k] > 0 && (best == n_types || priority[k] > priority[best]))
      best = k;
  return best;
}

void
cp_priority_sweep (const CpTypedSpan *spans,
                   gsize              n_spans,
                   const guint       *priority,
                   guint              n_types,
                   gint64             t0,
                   gint64             t1,
                   gint64            *totals,
                   CpIntervals      **segments)
{
  g_autofree Boundary *b = NULL;
  g_autofree gint64 *count = NULL;
  gsize n = 0;
  gint64 prev;

  g_return_if_fail (n_spans == 0 || spans != NULL);
  g_return_if_fail (priority != NULL || n_types == 0);
  g_return_if_fail (totals != NULL);

  for (guint k = 0; k <= n_types; k++)
    totals[k] = 0;
  if (segments != NULL)
    for (guint k = 0; k <= n_types; k++)
      segments[k] = cp_intervals_new ();
  if (t1 <= t0)
    return;

  b = g_new (Boundary, 2 * n_spans + 1);
  for (gsize i = 0; i < n_spans; i++)
    {
      gint64 s = MAX (spans[i].start, t0);
      gint64 e = MIN (spans[i].end, t1);

      if (spans[i].type >= n_types || e <= s)
        continue;
      b[n++] = (Boundary) { s, priority[spans[i].type], spans[i].type, TRUE };
      b[n++] = (Boundary) { e, priority[spans[i].type], spans[i].type, FALSE };
    }
  qsort (b, n, sizeof (Boundary), cmp_boundary);

  count = g_new0 (gint64, MAX (n_types, 1));
  prev = t0;
  for (gsize i = 0; i <= n; i++)
    {
      gint64 t = i < n ? b[i].t : t1;

      if (t > prev)
        {
          guint owner = top_type (count, priority, n_types);

          totals[owner] += t - prev;
          if (segments != NULL)
            cp_intervals_add_sorted (segments[owner], prev, t);
          prev = t;
        }
      if (i < n)
        count[b[i].type] += b[i].is_start ? 1 : -1;
    }
}

void
cp_claim_sequential (CpIntervals * const *roles,
                     guint                n_roles,
                     gint64               t0,
                     gint64               t1,
                     gint64              *claimed,
                     CpIntervals        **claimed_sets)
{
  g_autoptr(CpIntervals) taken = cp_intervals_new ();
  g_autoptr(CpIntervals) rest = NULL;

  g_return_if_fail (n_roles == 0 || roles != NULL);
  g_return_if_fail (claimed != NULL);

  for (guint r = 0; r < n_roles; r++)
    {
      g_autoptr(CpIntervals) mine = NULL;
      g_autoptr(CpIntervals) part = NULL;
      CpIntervals *merged;

      if (roles[r] == NULL || t1 <= t0)
        mine = cp_intervals_new ();
      else
        mine = cp_intervals_clip (roles[r], t0, t1);
      part = cp_intervals_subtract (mine, taken);
      claimed[r] = cp_intervals_length (part);
      merged = cp_intervals_union (taken, mine);
      cp_intervals_free (taken);
      taken = merged;
      if (claimed_sets != NULL)
        claimed_sets[r] = g_steal_pointer (&part);
    }

  rest = cp_intervals_complement (taken, t0, t1);
  claimed[n_roles] = cp_intervals_length (rest);
  if (claimed_sets != NULL)
    claimed_sets[n_roles] = g_steal_pointer (&rest);
}
