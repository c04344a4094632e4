/* cp-trace-builder-flows.c: flows at finish: correlations linked, end points bound, indexes sorted
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-lane-private.h"
#include "cp-trace-builder.h"
#include "cp-trace-private.h"
#include "cp-trace-builder-private.h"
#include "cp-huge-pages.h"

typedef struct
{
  GCompareDataFunc tie;
  gpointer         data;
} KeyCmp;

static gint
cmp_key_idx (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  const KeyIdx *x = a, *y = b;
  const KeyCmp *c = user_data;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->sub != y->sub)
    return x->sub < y->sub ? -1 : 1;
  return c->tie (&x->idx, &y->idx, c->data);
}

/* The shift that puts the 16 highest bits in which keys differ (diff, the
 * OR of every key XOR the first) lowest. */
static guint
bucket_shift (guint64 diff)
{
  guint high;

  if (diff == 0)
    return 0;
  high = 63 - __builtin_clzll (diff);
  return high >= 15 ? high - 15 : 0;
}

/* Sorts each bucket of v on its own; start[d] is the end of bucket d. */
static void
sort_buckets (KeyIdx        *v,
              const guint32 *start,
              KeyCmp        *c)
{
  for (guint d = 0, a = 0; d < 65536; d++)
    {
      guint b = start[d];

      if (b - a > 32)
        g_qsort_with_data (v + a, b - a, sizeof (KeyIdx), cmp_key_idx, c);
      else
        for (guint k = a + 1; k < b; k++)
          {
            KeyIdx x = v[k];
            guint j = k;

            while (j > a && cmp_key_idx (&v[j - 1], &x, c) > 0)
              {
                v[j] = v[j - 1];
                j--;
              }
            v[j] = x;
          }
      a = b;
    }
}

/* Sorts v by key, sub, then tie on the indexes (a total order), in about
 * linear time: one counting pass on the 16 highest bits in which keys differ
 * spreads hashes and dense ids alike over 65536 buckets, then each bucket is
 * sorted on its own (insertion sort when short, merge sort when a file puts
 * many elements in one). */
void
cp_builder_sort_by_key (KeyIdx           *v,
                        guint             n,
                        GCompareDataFunc  tie,
                        gpointer          data)
{
  g_autofree KeyIdx *tmp = NULL;
  g_autofree guint32 *start = NULL;
  KeyCmp c = { tie, data };
  guint64 diff = 0;
  guint shift;

  if (n < 2)
    return;
  for (guint i = 1; i < n; i++)
    diff |= v[i].key ^ v[0].key;
  shift = bucket_shift (diff);

  tmp = cp_huge_dup (v, sizeof (KeyIdx) * n);
  start = g_new0 (guint32, 65536 + 1);
  for (guint i = 0; i < n; i++)
    start[((tmp[i].key >> shift) & 0xffff) + 1]++;
  for (guint d = 0; d < 65536; d++)
    start[d + 1] += start[d];
  for (guint i = 0; i < n; i++)
    v[start[(tmp[i].key >> shift) & 0xffff]++] = tmp[i];
  g_clear_pointer (&tmp, g_free);
  sort_buckets (v, start, &c);
}

/* The order of n flow points (key, then order, then tie) into out, made
 * straight from the points: the same sort without a copy of the keys. */
void
cp_builder_sort_points (KeyIdx           *out,
                        const FlowPoint  *points,
                        guint             n,
                        GCompareDataFunc  tie,
                        gpointer          data)
{
  g_autofree guint32 *start = NULL;
  KeyCmp c = { tie, data };
  guint64 diff = 0;
  guint shift;

  for (guint i = 1; i < n; i++)
    diff |= points[i].key ^ points[0].key;
  shift = bucket_shift (diff);
  start = g_new0 (guint32, 65536 + 1);
  for (guint i = 0; i < n; i++)
    start[((points[i].key >> shift) & 0xffff) + 1]++;
  for (guint d = 0; d < 65536; d++)
    start[d + 1] += start[d];
  for (guint i = 0; i < n; i++)
    {
      KeyIdx *o = &out[start[(points[i].key >> shift) & 0xffff]++];

      o->key = points[i].key;
      o->sub = points[i].order;
      o->idx = i;
    }
  sort_buckets (out, start, &c);
}

typedef struct
{
  gint64  corr;
  gint32  device;
  guint32 lane;
  guint32 index;
  gint64  start;
} CorrEntry;

static gint
cmp_corr_start (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  const CorrEntry *e = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;

  if (e[i].start != e[j].start)
    return e[i].start < e[j].start ? -1 : 1;
  return i < j ? -1 : (i > j);
}

/* The entries' order by (correlation id, start), stable. */
static KeyIdx *
sort_corr_entries (GArray *entries)
{
  const CorrEntry *e = (const CorrEntry *) entries->data;
  KeyIdx *v = cp_huge_new (KeyIdx, MAX (entries->len, 1));

  for (guint i = 0; i < entries->len; i++)
    {
      /* Flip the sign bit so that unsigned order is signed order. */
      v[i].key = (guint64) e[i].corr ^ G_GUINT64_CONSTANT (0x8000000000000000);
      v[i].sub = 0;
      v[i].idx = i;
    }
  cp_builder_sort_by_key (v, entries->len, cmp_corr_start, entries->data);
  return v;
}

/* Launch links from correlation ids. A device slice with a correlation id
 * is launched by the host slice with the same id (on the same device when
 * both say), whatever the timestamps say:
 *  - slices that no launch flow reaches get one;
 *  - a launch flow whose host end was bound by time to another call (in
 *    whole-µs captures a zero-length cudaPeekAtLastError can start in the
 *    same µs as the cudaMemsetAsync that launched the op) is moved to the
 *    call with the op's id;
 *  - a graph launch (cudaGraphLaunch, hipGraphLaunch) is the launch of every
 *    op of the graph, which all carry its correlation id: Kineto writes one
 *    flow start and an end per op, which chain op to op, so each of those
 *    flows is moved to start at the launch. */
void
cp_builder_link_correlations (CpTrace *trace,
                              GArray  *flows,
                              CpStr    name)
{
  g_autoptr(GArray) host = NULL;
  g_autoptr(GArray) dev = NULL;
  g_autoptr(GHashTable) to_fix = NULL;
  g_autofree guint64 *lane_base = NULL;
  g_autofree guint64 *launched = NULL;
  g_autofree KeyIdx *host_order = NULL;
  g_autofree KeyIdx *dev_order = NULL;
  guint n_lanes = trace->lane_array->len;
  guint n_flows = flows->len;
  guint h = 0;
  gsize n_host = 0, n_dev = 0;

  /* One bit per slice of the trace: reached by a launch flow already. The
   * launch flows whose host end does not carry their op's correlation id
   * (bound by time, or chained from op to op) are kept aside by the op's
   * bit, to be moved to the call with the id. */
  lane_base = g_new (guint64, n_lanes + 1);
  lane_base[0] = 0;
  for (guint li = 0; li < n_lanes; li++)
    {
      CpLane *lane = g_ptr_array_index (trace->lane_array, li);
      CpLaneKind kind = cp_lane_get_kind (lane);

      lane_base[li + 1] = lane_base[li] + cp_lane_get_n_slices (lane);
      if (kind == CP_LANE_HOST_THREAD)
        n_host += cp_lane_get_slices (lane)->n;
      else if (kind == CP_LANE_KERNEL || kind == CP_LANE_TRANSFER)
        n_dev += cp_lane_get_slices (lane)->n;
    }
  launched = g_new0 (guint64, lane_base[n_lanes] / 64 + 1);
  for (guint i = 0; i < n_flows; i++)
    {
      const CpFlow *f = &g_array_index (flows, CpFlow, i);
      CpLane *from_lane, *to_lane;
      gint64 to_corr;

      if (f->kind != CP_FLOW_LAUNCH)
        continue;
      {
        guint64 bit = lane_base[f->to.lane] + f->to.index;

        launched[bit / 64] |= G_GUINT64_CONSTANT (1) << (bit % 64);
        to_lane = g_ptr_array_index (trace->lane_array, f->to.lane);
        from_lane = g_ptr_array_index (trace->lane_array, f->from.lane);
        to_corr = cp_slices_get_corr (cp_lane_get_slices (to_lane), f->to.index);
        if (to_corr == CP_NONE)
          continue;
        if (cp_lane_get_kind (from_lane) == CP_LANE_HOST_THREAD &&
            cp_slices_get_corr (cp_lane_get_slices (from_lane), f->from.index) == to_corr)
          continue;
        if (to_fix == NULL)
          to_fix = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
        /* The key is the op's bit, stored in the table itself. */
        {
          gint64 *key = g_new (gint64, 1);

          *key = (gint64) bit;
          if (!g_hash_table_contains (to_fix, key))
            g_hash_table_insert (to_fix, key, GUINT_TO_POINTER (i + 1));
          else
            g_free (key);
        }
      }
    }

  /* The device slices with an id that the matching below can change: those
   * no launch flow reaches, and those whose flow is to be moved. The
   * others (in a Kineto capture nearly all) are left out of it, and when
   * none is left the host's ids are not even gathered. */
  dev = cp_array_new_big (FALSE, sizeof (CorrEntry), (guint) MIN (n_dev, G_MAXUINT32));
  for (guint pass = 0; pass < 2; pass++)
    {
      GArray *target = pass == 0 ? dev : host;

      if (pass == 1)
        {
          if (dev->len == 0)
            return;
          host = target = cp_array_new_big (FALSE, sizeof (CorrEntry), (guint) MIN (n_host, G_MAXUINT32));
        }
      for (guint li = 0; li < n_lanes; li++)
        {
          CpLane *lane = g_ptr_array_index (trace->lane_array, li);
          const CpSlices *s = cp_lane_get_slices (lane);
          CpLaneKind kind = cp_lane_get_kind (lane);

          if (pass == 1 ? kind != CP_LANE_HOST_THREAD : kind != CP_LANE_KERNEL && kind != CP_LANE_TRANSFER)
            continue;
          for (guint i = 0; i < s->n; i++)
            {
              CorrEntry e;
              guint32 gpu;

              e.corr = cp_slices_get_corr (s, i);
              if (e.corr == CP_NONE)
                continue;
              if (pass == 0)
                {
                  gint64 bit = (gint64) (lane_base[li] + i);

                  if ((launched[bit / 64] & (G_GUINT64_CONSTANT (1) << (bit % 64))) &&
                      (to_fix == NULL || !g_hash_table_contains (to_fix, &bit)))
                    continue;
                }
              gpu = cp_slices_get_gpu (s, i);
              e.device = cp_lane_get_device (lane);
              if (gpu != 0)
                {
                  const CpGpuInfo *g = &g_array_index (trace->gpu_infos, CpGpuInfo, gpu - 1);

                  if (g->device >= 0)
                    e.device = g->device;
                }
              if (kind == CP_LANE_HOST_THREAD && gpu == 0)
                e.device = -1;
              e.lane = li;
              e.index = i;
              e.start = cp_slices_get_start (s, i);
              cp_array_append_big (target, e);
            }
        }
    }
  if (host->len == 0)
    return;

  host_order = sort_corr_entries (host);
  dev_order = sort_corr_entries (dev);

#define HOST(k) (&g_array_index (host, CorrEntry, host_order[k].idx))
  for (guint d = 0; d < dev->len; d++)
    {
      const CorrEntry *de = &g_array_index (dev, CorrEntry, dev_order[d].idx);
      CpSliceRef to = { de->lane, de->index };
      guint64 bit = lane_base[de->lane] + de->index;
      const CorrEntry *match = NULL;

      while (h < host->len && HOST (h)->corr < de->corr)
        h++;
      for (guint k = h; k < host->len && HOST (k)->corr == de->corr; k++)
        {
          const CorrEntry *he = HOST (k);

          if (he->device < 0 || de->device < 0 || he->device == de->device)
            {
              match = he;
              break;
            }
        }
      if (match == NULL)
        continue;
      if (launched[bit / 64] & (G_GUINT64_CONSTANT (1) << (bit % 64)))
        {
          gint64 key = (gint64) bit;
          guint fi = to_fix ? GPOINTER_TO_UINT (g_hash_table_lookup (to_fix, &key)) : 0;

          if (fi != 0)
            {
              CpFlow *f = &g_array_index (flows, CpFlow, fi - 1);

              f->from.lane = match->lane;
              f->from.index = match->index;
            }
          continue;
        }

      {
        CpFlow f;

        f.from.lane = match->lane;
        f.from.index = match->index;
        f.to = to;
        f.kind = CP_FLOW_LAUNCH;
        f.name = name;
        cp_array_append_big (flows, f);
      }
    }
#undef HOST
}

/* Orders the points of one key: by order (s, t, f), time, then insertion. */
gint
cp_builder_cmp_points (gconstpointer a,
                       gconstpointer b,
                       gpointer      user_data)
{
  const FlowPoint *points = user_data;
  const FlowPoint *x = &points[*(const guint32 *) a], *y = &points[*(const guint32 *) b];

  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* The first index in [0, n) whose start is > t (upper) or >= t (lower), or n:
 * a search outward from hint, a recent answer on the same lane (readers add
 * flow points roughly in time order), then a binary search in what is left. */
static guint
gallop_bound (const CpSlices *s,
              guint         n,
              gint64        t,
              guint         hint,
              gboolean      upper)
{
#define BEFORE(i) (upper ? cp_slices_get_start (s, i) <= t : cp_slices_get_start (s, i) < t)
  guint lo, hi, step = 1;

  hint = MIN (hint, n);
  if (hint < n && BEFORE (hint))
    {
      /* Everything up to hint is before the bound. */
      lo = hint + 1;
      hi = n;
      while (lo < n)
        {
          guint j = hint + step;

          if (j >= n || j < hint)
            break;
          if (!BEFORE (j))
            {
              hi = j;
              break;
            }
          lo = j + 1;
          step *= 2;
        }
    }
  else
    {
      /* Everything from hint on is at or after the bound. */
      lo = 0;
      hi = hint;
      while (hi > 0)
        {
          guint j;

          if (step > hint)
            break;
          j = hint - step;
          if (BEFORE (j))
            {
              lo = j + 1;
              break;
            }
          hi = j;
          step *= 2;
        }
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (BEFORE (mid))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
#undef BEFORE
}

CpSliceRef
cp_builder_bind_point (CpTrace         *trace,
                       const FlowPoint *p,
                       guint            final_lane,
                       gint64           origin,
                       guint           *hint)
{
  CpLane *lane = g_ptr_array_index (trace->lane_array, final_lane);
  const CpSlices *s = cp_lane_get_slices (lane);
  gint64 t = p->ts - origin;
  CpSliceRef ref = CP_SLICE_REF_NONE;

  if (p->bind == CP_FLOW_BIND_ENCLOSING)
    {
      guint hi = gallop_bound (s, s->n, t, *hint, TRUE);
      gint i = -1;

      *hint = hi;
      /* Fast path: the latest-starting slice that contains t is the deepest
       * one when slices nest (ties sort longer first, so the inner one comes
       * later). Look back a few slices only; overlapping layouts and long
       * runs of finished siblings take the exact search by rows. */
      for (guint k = hi, steps = 0; k > 0 && steps < 8; k--, steps++)
        {
          guint j = k - 1;

          if (t < cp_slices_get_end (s, j) || (cp_slices_get_dur (s, j) == 0 && t == cp_slices_get_start (s, j)))
            {
              if (!(s->flags[j] & CP_SLICE_OVERLAP))
                i = j;
              break;
            }
        }
      if (i < 0)
        i = cp_lane_slice_at (lane, t, -1);

      if (i >= 0)
        {
          ref.lane = final_lane;
          ref.index = i;
        }
    }
  else
    {
      guint lo = gallop_bound (s, s->n, t, *hint, FALSE);

      *hint = lo;
      if (lo < s->n)
        {
          ref.lane = final_lane;
          ref.index = lo;
        }
    }
  return ref;
}

/* Sorts flow indexes by (lane, index) of their start (or end) point, stably
 * and in linear time (captures have millions of flows): a counting sort on
 * the lane, then, for the lanes whose flows are not already in slice order
 * (readers usually add them in order), a merge of the few sorted runs they
 * make (flows added by different passes of a reader), or radix passes on the
 * slice index. Scratch memory is at most one lane's share. */
#define MAX_FLOW_RUNS 8

void
cp_builder_sort_flow_index (guint32      *order,
                            const CpFlow *flows,
                            guint         n,
                            guint         n_lanes,
                            gboolean      by_to)
{
  g_autofree guint32 *start = g_new0 (guint32, n_lanes + 1);
  g_autofree guint32 *fill = g_new (guint32, n_lanes + 1);

#define POINT(i) (by_to ? flows[i].to : flows[i].from)
  for (guint i = 0; i < n; i++)
    start[POINT (i).lane + 1]++;
  for (guint l = 1; l <= n_lanes; l++)
    start[l] += start[l - 1];
  memcpy (fill, start, sizeof (guint32) * (n_lanes + 1));
  for (guint i = 0; i < n; i++)
    order[fill[POINT (i).lane]++] = i;

  for (guint l = 0; l < n_lanes; l++)
    {
      guint32 *seg = order + start[l];
      guint len = start[l + 1] - start[l];
      guint runs = 1;

      for (guint i = 1; i < len && runs <= MAX_FLOW_RUNS; i++)
        if (POINT (seg[i - 1]).index > POINT (seg[i]).index)
          runs++;
      if (runs == 1)
        continue;
      if (runs <= MAX_FLOW_RUNS)
        {
          /* Merge the first run with the next until one is left; the
           * smaller of the two goes to scratch. */
          guint a = 1;

          while (a < len && POINT (seg[a - 1]).index <= POINT (seg[a]).index)
            a++;
          while (a < len)
            {
              guint b = 1, i, j, k;
              g_autofree guint32 *tmp = NULL;

              while (a + b < len && POINT (seg[a + b - 1]).index <= POINT (seg[a + b]).index)
                b++;
              if (a <= b)
                {
                  /* Forward: the first run from scratch, the second in place. */
                  tmp = g_memdup2 (seg, sizeof (guint32) * a);
                  for (i = 0, j = a, k = 0; i < a; k++)
                    {
                      if (j < a + b && POINT (seg[j]).index < POINT (tmp[i]).index)
                        seg[k] = seg[j++];
                      else
                        seg[k] = tmp[i++];
                    }
                }
              else
                {
                  /* Backward: the second run from scratch, the first in place. */
                  tmp = g_memdup2 (seg + a, sizeof (guint32) * b);
                  for (i = a, j = b, k = a + b; j > 0; k--)
                    {
                      if (i > 0 && POINT (seg[i - 1]).index > POINT (tmp[j - 1]).index)
                        seg[k - 1] = seg[--i];
                      else
                        seg[k - 1] = tmp[--j];
                    }
                }
              a += b;
            }
          continue;
        }
      {
        g_autofree guint32 *tmp = cp_huge_new (guint32, len);
        g_autofree guint32 *count = g_new (guint32, 65536 + 1);

        for (guint pass = 0; pass < 2; pass++)
          {
            guint32 *src = pass == 0 ? seg : tmp, *dst = pass == 0 ? tmp : seg;

            memset (count, 0, sizeof (guint32) * (65536 + 1));
            for (guint i = 0; i < len; i++)
              count[((POINT (src[i]).index >> (16 * pass)) & 0xffff) + 1]++;
            for (guint k = 1; k <= 65536; k++)
              count[k] += count[k - 1];
            for (guint i = 0; i < len; i++)
              dst[count[(POINT (src[i]).index >> (16 * pass)) & 0xffff]++] = src[i];
          }
      }
    }
#undef POINT
}
