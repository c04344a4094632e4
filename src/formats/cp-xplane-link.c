/* cp-xplane-link.c: linking launches to kernels, flows, producers and consumers
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-protobuf.h"
#include "cp-xplane-private.h"

/* ------------------------------------------------------------------------ */
/* Linking                                                                   */

static gint
cmp_corr (gconstpointer a,
          gconstpointer b,
          gpointer      user_data)
{
  const CorrPoint *x = a, *y = b;

  if (x->corr != y->corr)
    return x->corr < y->corr ? -1 : 1;
  return 0;
}

static gint
cmp_pc (gconstpointer a,
        gconstpointer b)
{
  const PcPoint *x = a, *y = b;

  if (x->type != y->type)
    return x->type < y->type ? -1 : 1;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return 0;
}

static gint
cmp_flow_point (gconstpointer a,
                gconstpointer b)
{
  const FlowPoint *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return 0;
}

/* Sorts by correlation id, stably. Ids are usually dense counters: a
 * counting sort then, a comparison sort otherwise. */
static void
corr_sort (CorrVec *vec)
{
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  gboolean sorted = TRUE;
  guint64 range;

  for (gsize i = 0; i < vec->n; i++)
    {
      lo = MIN (lo, vec->v[i].corr);
      hi = MAX (hi, vec->v[i].corr);
      if (i > 0 && vec->v[i].corr < vec->v[i - 1].corr)
        sorted = FALSE;
    }
  if (sorted || vec->n < 2)
    return;
  range = (guint64) hi - (guint64) lo;
  if (range < (guint64) vec->n * 4 + 1024)
    {
      g_autofree guint32 *count = g_new0 (guint32, range + 2);
      g_autofree CorrPoint *out = g_new (CorrPoint, vec->n);

      for (gsize i = 0; i < vec->n; i++)
        count[(guint64) vec->v[i].corr - (guint64) lo + 1]++;
      for (guint64 k = 1; k <= range + 1; k++)
        count[k] += count[k - 1];
      for (gsize i = 0; i < vec->n; i++)
        out[count[(guint64) vec->v[i].corr - (guint64) lo]++] = vec->v[i];
      memcpy (vec->v, out, sizeof (CorrPoint) * vec->n);
    }
  else
    g_qsort_with_data (vec->v, (gint) MIN (vec->n, (gsize) G_MAXINT), sizeof (CorrPoint),
                       cmp_corr, NULL);
}

/* The correlation points of one LinkLane, read back from the builder's
 * column in insertion order. */
typedef struct
{
  const guint64  *present;
  const guint32  *v32;
  const gint64   *v64;
  const LinkLane *ll;
  guint           order;  /* ties between lanes */
  guint           k;      /* the value, from ll->from on */
  guint           end;
  guint           word;
  guint64         bits;   /* set bits of present[word] after the current one */
  guint           index;  /* the slice of value k */
  gint64          value;
} Cursor;

static inline void
cursor_load (Cursor *c)
{
  c->index = c->word * 64 + (guint) __builtin_ctzll (c->bits);
  c->bits &= c->bits - 1;
  c->value = c->v32 != NULL ? (gint64) c->v32[c->k] : c->v64[c->k];
}

/* FALSE when the lane has no point. */
static gboolean
cursor_init (Cursor         *c,
             CpTraceBuilder *builder,
             const LinkLane *ll,
             guint           order)
{
  guint n_values, skip = ll->from;

  cp_trace_builder_peek_corr (builder, ll->lane, &c->present, &c->v32, &c->v64, &n_values);
  c->ll = ll;
  c->order = order;
  c->k = ll->from;
  c->end = (guint) MIN ((guint64) ll->from + ll->n, (guint64) n_values);
  if (c->k >= c->end || c->present == NULL)
    return FALSE;
  /* The word holding set bit number `from`. */
  c->word = 0;
  for (;;)
    {
      guint in_word = (guint) __builtin_popcountll (c->present[c->word]);

      if (skip < in_word)
        break;
      skip -= in_word;
      c->word++;
    }
  c->bits = c->present[c->word];
  while (skip-- > 0)
    c->bits &= c->bits - 1;
  cursor_load (c);
  return TRUE;
}

/* FALSE past the last point. */
static inline gboolean
cursor_next (Cursor *c)
{
  if (++c->k >= c->end)
    return FALSE;
  while (c->bits == 0)
    c->bits = c->present[++c->word];
  cursor_load (c);
  return TRUE;
}

static inline gint32
cursor_device (const Cursor *c)
{
  return c->ll->devices != NULL ? g_array_index (c->ll->devices, gint32, c->k - c->ll->from)
                                : c->ll->device;
}

static inline gboolean
cursor_before (const Cursor *a,
               const Cursor *b)
{
  return a->value != b->value ? a->value < b->value : a->order < b->order;
}

/* A binary heap of cursors, the one with the lowest (value, order) first. */
static void
heap_down (Cursor **heap,
           guint    n,
           guint    i)
{
  for (;;)
    {
      guint l = 2 * i + 1, best = i;
      Cursor *t;

      if (l < n && cursor_before (heap[l], heap[best]))
        best = l;
      if (l + 1 < n && cursor_before (heap[l + 1], heap[best]))
        best = l + 1;
      if (best == i)
        return;
      t = heap[i];
      heap[i] = heap[best];
      heap[best] = t;
      i = best;
    }
}

/* Moves the first cursor of the heap to its next point; returns the new size. */
static inline guint
heap_advance (Cursor **heap,
              guint    n)
{
  if (!cursor_next (heap[0]))
    heap[0] = heap[--n];
  if (n > 0)
    heap_down (heap, n, 0);
  return n;
}

typedef struct
{
  CpSliceRef ref;
  gint32     device;
} HostPoint;

/* Launches: host -> device by correlation id (and device when both are
 * known). Each activity links to the first launch with its id, in id order
 * then lane order. The ids of a lane nearly always grow (a thread launches,
 * a stream runs, in order): the lanes are then merged as they are; otherwise
 * their points are gathered and sorted. */
static void
link_launches (Space *space)
{
  CpXPlaneReader *reader = space->reader;
  guint n_lanes = space->link_lanes->len;
  g_autofree Cursor *cursors = g_new0 (Cursor, MAX (n_lanes, 1));
  g_autofree Cursor **host = g_new (Cursor *, MAX (n_lanes, 1));
  g_autofree Cursor **dev = g_new (Cursor *, MAX (n_lanes, 1));
  g_autofree HostPoint *group = NULL;
  guint n_group = 0, group_cap = 0;
  guint n_host = 0, n_dev = 0;
  gboolean sorted = TRUE, have_group = FALSE;
  gint64 group_value = 0;

  for (guint i = 0; i < n_lanes; i++)
    {
      const LinkLane *ll = &g_array_index (space->link_lanes, LinkLane, i);
      Cursor probe;

      if (!cursor_init (&cursors[i], reader->builder, ll, i))
        continue;
      probe = cursors[i];
      for (gint64 last = probe.value; sorted && cursor_next (&probe); last = probe.value)
        sorted = probe.value >= last;
      if (ll->host)
        host[n_host++] = &cursors[i];
      else
        dev[n_dev++] = &cursors[i];
    }

  if (!sorted)
    {
      /* Gather, sort by id (stably), then walk both lists. */
      CorrVec hv = { 0 }, dv = { 0 };
      gsize h = 0;

      for (guint i = 0; i < n_host + n_dev; i++)
        {
          Cursor *c = i < n_host ? host[i] : dev[i - n_host];

          do
            {
              CorrPoint p = { c->value, cursor_device (c), { c->ll->lane, c->index } };

              corr_push (i < n_host ? &hv : &dv, &p);
            }
          while (cursor_next (c));
        }
      corr_sort (&hv);
      corr_sort (&dv);
      for (gsize d = 0; d < dv.n; d++)
        {
          const CorrPoint *dp = &dv.v[d];

          while (h < hv.n && hv.v[h].corr < dp->corr)
            h++;
          for (gsize k = h; k < hv.n && hv.v[k].corr == dp->corr; k++)
            {
              const CorrPoint *hp = &hv.v[k];

              if (hp->device < 0 || dp->device < 0 || hp->device == dp->device)
                {
                  cp_trace_builder_add_flow (reader->builder, hp->ref, dp->ref, CP_FLOW_LAUNCH,
                                             reader->flow_correlation);
                  break;
                }
            }
        }
      g_free (hv.v);
      g_free (dv.v);
      return;
    }

  for (guint i = n_host / 2; i-- > 0;)
    heap_down (host, n_host, i);
  for (guint i = n_dev / 2; i-- > 0;)
    heap_down (dev, n_dev, i);
  while (n_dev > 0)
    {
      Cursor *d = dev[0];
      gint32 device = cursor_device (d);

      if (!have_group || group_value != d->value)
        {
          /* The launches with this id. */
          group_value = d->value;
          have_group = TRUE;
          n_group = 0;
          while (n_host > 0 && host[0]->value < group_value)
            n_host = heap_advance (host, n_host);
          while (n_host > 0 && host[0]->value == group_value)
            {
              if (n_group == group_cap)
                {
                  group_cap = MAX (16, 2 * group_cap);
                  group = g_renew (HostPoint, group, group_cap);
                }
              group[n_group].ref = (CpSliceRef) { host[0]->ll->lane, host[0]->index };
              group[n_group].device = cursor_device (host[0]);
              n_group++;
              n_host = heap_advance (host, n_host);
            }
        }
      for (guint k = 0; k < n_group; k++)
        {
          const HostPoint *hp = &group[k];

          if (hp->device < 0 || device < 0 || hp->device == device)
            {
              cp_trace_builder_add_flow (reader->builder, hp->ref,
                                         (CpSliceRef) { d->ll->lane, d->index },
                                         CP_FLOW_LAUNCH, reader->flow_correlation);
              break;
            }
        }
      n_dev = heap_advance (dev, n_dev);
    }
}

static gpointer
sort_pc_points (gpointer data)
{
  Space *space = data;

  g_array_sort (space->producers, cmp_pc);
  g_array_sort (space->consumers, cmp_pc);
  return NULL;
}

void
cp_xplane_space_link (Space *space)
{
  CpXPlaneReader *reader = space->reader;
  GThread *sorter = NULL;
  gsize h = 0;

  /* The producer and consumer points are sorted on a second thread while
   * launches are linked (they share nothing). */
  if (space->producers->len + space->consumers->len >= 100000 && g_get_num_processors () > 1)
    sorter = g_thread_try_new ("cp-xplane-link", sort_pc_points, space, NULL);
  link_launches (space);
  if (sorter != NULL)
    g_thread_join (sorter);
  else
    sort_pc_points (space);

  /* Producer -> consumer. */
  h = 0;
  for (guint c = 0; c < space->consumers->len; c++)
    {
      const PcPoint *cp = &g_array_index (space->consumers, PcPoint, c);
      const PcPoint *match = NULL;

      while (h < space->producers->len && cmp_pc (&(PcPoint) { cp->type, cp->id, G_MININT64, { 0, 0 } },
                                                   &g_array_index (space->producers, PcPoint, h)) > 0)
        h++;
      for (guint k = h; k < space->producers->len; k++)
        {
          const PcPoint *pp = &g_array_index (space->producers, PcPoint, k);

          if (pp->type != cp->type || pp->id != cp->id)
            break;
          /* The latest producer that starts no later than the consumer, else the first. */
          if (match == NULL || pp->start <= cp->start)
            match = pp;
        }
      if (match != NULL && (match->ref.lane != cp->ref.lane || match->ref.index != cp->ref.index))
        cp_trace_builder_add_flow (reader->builder, match->ref, cp->ref, CP_FLOW_PRODUCER,
                                   reader->flow_producer);
    }

  /* "flow" stats: out -> inout -> in, per id. */
  g_array_sort (space->flow_points, cmp_flow_point);
  for (guint i = 1; i < space->flow_points->len; i++)
    {
      const FlowPoint *a = &g_array_index (space->flow_points, FlowPoint, i - 1);
      const FlowPoint *b = &g_array_index (space->flow_points, FlowPoint, i);

      if (a->key != b->key || (a->ref.lane == b->ref.lane && a->ref.index == b->ref.index))
        continue;
      cp_trace_builder_add_flow (reader->builder, a->ref, b->ref,
                                 a->category == 9 ? CP_FLOW_LAUNCH : CP_FLOW_GENERIC,
                                 reader->flow_generic);
    }

  /* Steps: every space (host) its own; the analysis joins them. */
    {
      if (space->device_steps->len > 0)
        g_array_append_vals (reader->steps, space->device_steps->data, space->device_steps->len);
      else if (space->root_steps->len > 0)
        g_array_append_vals (reader->steps, space->root_steps->data, space->root_steps->len);
      else if (g_hash_table_size (space->group_spans) > 0)
        {
          GHashTableIter iter;
          gpointer v;

          g_hash_table_iter_init (&iter, space->group_spans);
          while (g_hash_table_iter_next (&iter, NULL, &v))
            g_array_append_val (reader->steps, *(StepCand *) v);
        }
    }
}
