/* cp-breakdown.c: the flattened time breakdown, per step and overall
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-analysis-private.h"
#include "cp-heap.h"

/* Classifies every slice once (kept for the later passes), counting per
 * lane and category, with the blocking calls of host lanes. */
void
_cp_analysis_classify_lanes (CpAnalysis *self)
{
  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s;

      if (info->kind != CP_LANE_HOST_THREAD && info->kind != CP_LANE_KERNEL &&
          info->kind != CP_LANE_TRANSFER)
        continue;

      s = info->slices;
      info->cls = g_new (gint8, MAX (s->n, 1));
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
          CpSliceClass c = _cp_analysis_classify_slice (self, l, i, nf);

          info->cls[i] = c;
          if (c >= 0 && cp_slices_get_dur (s, i) > 0)
            info->cat_count[c]++;
          if (info->kind == CP_LANE_HOST_THREAD && (nf & CP_NAME_LAUNCH))
            self->n_launch_calls++;
          if (info->kind == CP_LANE_HOST_THREAD && cp_slices_get_dur (s, i) > 0 &&
              ((nf & (CP_NAME_SYNC | CP_NAME_SYNC_COPY | CP_NAME_ITEM)) || (s->flags[i] & CP_SLICE_SYNC)))
            {
              if (info->sync == NULL)
                info->sync = cp_intervals_new ();
              cp_intervals_add_sorted (info->sync, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
            }
        }
    }
}

/* The classified slices of some lanes in start order, those of the
 * categories in a mask (and not empty) only: a heap of the lanes' next
 * slices, so that nothing per category or lane is built. */
typedef struct
{
  CpAnalysis *self;
  guint32     mask;
  CpHeap      heap;      /* key: the next slice's start; tag: its lane */
  guint      *cursor;    /* per lane of the analysis */
} ClassWalk;

static gboolean
lane_next (ClassWalk *w,
           guint      l)
{
  const CpLaneInfo *info = &w->self->lanes[l];
  const CpSlices *s = info->slices;
  guint i = w->cursor[l];

  while (i < s->n && (info->cls[i] < 0 || !(w->mask & (1u << info->cls[i])) || cp_slices_get_dur (s, i) <= 0))
    i++;
  w->cursor[l] = i;
  if (i >= s->n)
    return FALSE;
  _cp_heap_push (&w->heap, (CpHeapItem) { cp_slices_get_start (s, i), l, 0 });
  return TRUE;
}

static void
walk_init (ClassWalk   *w,
           CpAnalysis  *self,
           const guint *lanes,
           guint        n_lanes,
           guint32      mask)
{
  w->self = self;
  w->mask = mask;
  w->heap = (CpHeap) { 0 };
  w->cursor = g_new0 (guint, MAX (self->n_lanes, 1));
  for (guint k = 0; k < (lanes != NULL ? n_lanes : self->n_lanes); k++)
    {
      guint l = lanes != NULL ? lanes[k] : k;
      gboolean any = FALSE;

      if (self->lanes[l].cls == NULL)
        continue;
      for (guint c = 0; c < CP_TIME_N_CATEGORIES && !any; c++)
        any = (mask & (1u << c)) && self->lanes[l].cat_count[c] > 0;
      if (any)
        lane_next (w, l);
    }
}

/* The next slice; FALSE at the end. */
static gboolean
walk_next (ClassWalk *w,
           guint     *lane,
           guint     *index)
{
  CpHeapItem it;

  if (w->heap.n == 0)
    return FALSE;
  it = _cp_heap_pop (&w->heap);
  *lane = it.tag;
  *index = w->cursor[it.tag]++;
  lane_next (w, it.tag);
  return TRUE;
}

static void
walk_clear (ClassWalk *w)
{
  g_free (w->heap.v);
  g_free (w->cursor);
}

CpIntervals *
_cp_analysis_class_union (CpAnalysis  *self,
                          const guint *lanes,
                          guint        n_lanes,
                          guint32      mask)
{
  CpIntervals *out = cp_intervals_new ();
  ClassWalk w;
  guint l, i;

  /* One lane (a lane's evidence): in its own order, no heap. */
  if (lanes != NULL && n_lanes == 1)
    {
      const CpLaneInfo *info = &self->lanes[lanes[0]];
      const CpSlices *s = info->slices;

      for (i = 0; info->cls != NULL && i < s->n; i++)
        if (info->cls[i] >= 0 && (mask & (1u << info->cls[i])) && cp_slices_get_dur (s, i) > 0)
          cp_intervals_add_sorted (out, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
      return out;
    }
  walk_init (&w, self, lanes, n_lanes, mask);
  while (walk_next (&w, &l, &i))
    cp_intervals_add_sorted (out, cp_slices_get_start (self->lanes[l].slices, i),
                             cp_slices_get_end (self->lanes[l].slices, i));
  walk_clear (&w);
  return out;
}

/* Priority flattening (see cp-sweep.h) in one sweep over the slices: at
 * each instant the highest-priority category (the lowest) covering it owns
 * it. A category covers [its first start, the largest end of its slices
 * started so far); between two starts ownership changes only where those
 * ends fall. The same sets as claiming on per-category unions, without
 * building them. */
static void
flatten (CpAnalysis *self)
{
  gint64 end_of[CP_TIME_IDLE];
  gint64 now = G_MININT64;
  ClassWalk w;
  guint l, i;

  for (guint c = 0; c < CP_TIME_IDLE; c++)
    {
      end_of[c] = G_MININT64;
      self->exposed[c] = cp_intervals_new ();
    }
  self->all_host = cp_intervals_new ();
  walk_init (&w, self, NULL, 0, (1u << CP_TIME_IDLE) - 1);
  for (;;)
    {
      gboolean more = walk_next (&w, &l, &i);
      gint64 t = more ? cp_slices_get_start (self->lanes[l].slices, i) : G_MAXINT64;

      /* [now, t) to its owners. */
      while (now < t)
        {
          guint owner = 0;
          gint64 until;

          while (owner < CP_TIME_IDLE && end_of[owner] <= now)
            owner++;
          if (owner == CP_TIME_IDLE)
            {
              now = t;
              break;
            }
          until = MIN (t, end_of[owner]);
          cp_intervals_add_sorted (self->exposed[owner], now, until);
          cp_intervals_add_sorted (self->all_host, now, until);
          now = until;
        }
      if (!more)
        break;
      end_of[self->lanes[l].cls[i]] = MAX (end_of[self->lanes[l].cls[i]],
                                            cp_slices_get_end (self->lanes[l].slices, i));
    }
  walk_clear (&w);
}

void
_cp_analysis_breakdown (CpAnalysis *self)
{
  const CpInterval *windows = (const CpInterval *) self->windows->data;
  guint n_windows = self->windows->len;
  g_autofree gint64 *lengths = g_new0 (gint64, MAX (n_windows, 1));

  flatten (self);
  /* The rules and the verdict read the data loading in all. */
  self->cat_union[CP_TIME_INPUT_WAIT] = _cp_analysis_class_union (self, NULL, 0, 1u << CP_TIME_INPUT_WAIT);

  /* Kept inside the windows, which is all the figures look at. */
  for (guint c = 0; c < CP_TIME_IDLE; c++)
    {
      const CpIntervals *e = self->exposed[c];

      /* Most captures are one window covering everything: no copy then. */
      if (e->n > 0 && !(self->window_set->n == 1 && self->window_set->v[0].start <= e->v[0].start &&
                        self->window_set->v[0].end >= e->v[e->n - 1].end))
        {
          CpIntervals *clipped = cp_intervals_intersect (e, self->window_set);

          cp_intervals_free (self->exposed[c]);
          self->exposed[c] = clipped;
        }
    }
  self->exposed[CP_TIME_IDLE] = cp_intervals_subtract (self->window_set, self->all_host);

  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary *sum = &self->summary[c];

      cp_intervals_lengths_in_windows (self->exposed[c], windows, n_windows, lengths);
      sum->total = 0;
      sum->min = n_windows ? G_MAXINT64 : 0;
      sum->max = 0;
      for (guint w = 0; w < n_windows; w++)
        {
          sum->total += lengths[w];
          sum->min = MIN (sum->min, lengths[w]);
          sum->max = MAX (sum->max, lengths[w]);
          if (w < self->steps->len)
            g_array_index (self->steps, CpStepStats, w).time[c] = lengths[w];
        }
      sum->mean = n_windows ? sum->total / n_windows : 0;
      /* Ratio of sums, XProf's convention: Σ category / Σ window. */
      sum->percent = self->window_time > 0 ? 100.0 * sum->total / self->window_time : 0.0;
    }
}
