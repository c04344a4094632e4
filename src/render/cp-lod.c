/* cp-lod.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "cp-lod.h"

#define FANOUT_SHIFT 4
#define FANOUT (1u << FANOUT_SHIFT)
/* A counter's samples per superblock: its starts stay in cache. */
#define COUNTER_SUPER (FANOUT * FANOUT)

typedef struct
{
  CpLane    *lane;          /* borrowed from the trace */
  guint      n_rows;
  CpLodRow  *rows;
  gint64    *busy_data;     /* every row's running sums, block ends and superblock
                             * ends, back to back */
  gsize      busy_len;
  guint32   *end32_mem;     /* every row's block ends from their superblocks'
                             * bases, each row's from a cache line */
  gsize      end32_len;
  CpLodPos  *pos_data;      /* the copied rows' positions, back to back */
  gsize      pos_len;
  gint64    *pos_base_data; /* and their blocks' bases */
  gsize      pos_base_len;

  /* Counters. */
  guint      n_samples;
  const double *values;
  double     vmin;
  double     vmax;
  guint      n_levels;
  double   **level_max;     /* level l holds the max of FANOUT^(l+1) samples */
  guint     *level_len;
  const gint64 *ts;
  gint64    *block_ts;      /* the time of every FANOUT-th sample */
  gint64    *super_ts;      /* the time of every COUNTER_SUPER-th sample: a
                             * few kilobytes, which stay in the processor's
                             * cache while a walk gallops over them */
} LodLane;

struct _CpLod
{
  gatomicrefcount  ref_count;
  guint            n_lanes;
  LodLane         *lanes;
  gsize            memory;

  /* Flows by lane: [flow_offsets[l], flow_offsets[l + 1]) of flows_out
   * (and of flows_in) belong to lane l. */
  const guint32   *flows_out;     /* the trace's */
  const guint32   *flows_in;
  guint32         *out_offsets;
  guint32         *in_offsets;
};

/* The trace's flows in (lane, slice) order of one end, cut per lane. */
static void
build_flow_index (CpLod         *self,
                  CpTrace       *trace,
                  gboolean       outgoing,
                  const guint32 **out_index,
                  guint32      **out_offsets)
{
  guint n_flows = 0;
  const CpFlow *flows = cp_trace_get_flows (trace, &n_flows);
  const guint32 *order = cp_trace_get_flow_order (trace, !outgoing, &n_flows);
  guint32 *offsets = g_new0 (guint32, self->n_lanes + 1);

  for (guint f = 0; f < n_flows; f++)
    {
      guint32 lane = outgoing ? flows[order[f]].from.lane : flows[order[f]].to.lane;

      if (lane < self->n_lanes)
        offsets[lane + 1]++;
    }
  for (guint l = 0; l < self->n_lanes; l++)
    offsets[l + 1] += offsets[l];
  *out_index = order;
  *out_offsets = offsets;
  self->memory += sizeof (guint32) * (self->n_lanes + 1);
}

/* Whether a row's slices lie apart in its lane, other rows' between them:
 * more than one slice in CP_LOD_SPREAD of the lane's span from its first
 * slice to its last is not the row's. A block of its positions then reads
 * more cache lines of the slices' columns (and of the row's positions) than
 * a copy of them takes, and a zoomed-out frame reads one block per pixel
 * column from memory that no cache holds at ten million slices: copying
 * every such row (all of a nested lane's) made those frames as fast as at
 * one million. A lane of one row (a GPU stream) has its slices next to each
 * other and reads them in place. */
#define CP_LOD_SPREAD 8
#define CP_LOD_COPY_MIN (4 * CP_LOD_BLOCK)

static gboolean
row_is_spread (const CpLodRow *row)
{
  guint64 span;

  if (row->n < CP_LOD_COPY_MIN)
    return FALSE;
  span = (guint64) row->idx[row->n - 1] - row->idx[0] + 1;
  return span > row->n + row->n / CP_LOD_SPREAD;
}

/* Copies the starts and durations of the spread rows in row order. A block
 * whose values do not fit 32 bits from its base (it spans 4.3 s or more, or
 * holds a slice that long) keeps CP_LOD_NO_POS and is read from the
 * slices. */
static void
build_copies (LodLane *ll)
{
  gsize n_pos = 0, n_base = 0, at = 0, at_base = 0;

  for (guint r = 0; r < ll->n_rows; r++)
    {
      if (row_is_spread (&ll->rows[r]))
        {
          n_pos += ll->rows[r].n;
          n_base += (ll->rows[r].n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
        }
    }
  if (n_pos == 0)
    return;
  ll->pos_data = g_new (CpLodPos, n_pos);
  ll->pos_len = n_pos;
  ll->pos_base_data = g_new (gint64, n_base);
  ll->pos_base_len = n_base;
  for (guint r = 0; r < ll->n_rows; r++)
    {
      CpLodRow *row = &ll->rows[r];
      CpLodPos *p;
      gint64 *base;
      guint nb;

      if (!row_is_spread (row))
        continue;
      p = ll->pos_data + at;
      base = ll->pos_base_data + at_base;
      nb = (row->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
      for (guint b = 0; b < nb; b++)
        {
          guint k0 = b * CP_LOD_BLOCK, k1 = MIN (k0 + CP_LOD_BLOCK, row->n);
          gint64 b0 = cp_slices_get_start (row->slices, row->idx[k0]);
          gboolean fits = TRUE;

          for (guint k = k0; k < k1; k++)
            {
              guint32 i = row->idx[k];
              gint64 st = cp_slices_get_start (row->slices, i) - b0;
              gint64 d = cp_slices_get_dur (row->slices, i);

              if (st < 0 || st > G_MAXUINT32 || d > G_MAXUINT32 || st + d > G_MAXUINT32)
                fits = FALSE;
              p[k].start = fits ? (guint32) st : 0;
              p[k].dur = fits ? (guint32) d : 0;
            }
          base[b] = fits ? b0 : CP_LOD_NO_POS;
        }
      row->pos = p;
      row->pos_base = base;
      at += row->n;
      at_base += nb;
    }
}

/* A row's running sums, block ends and superblock ends. */
static gsize
row_words (guint n)
{
  gsize nb = ((gsize) n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;

  return (gsize) n / CP_LOD_BLOCK + 1 + nb + (nb + CP_LOD_SUPER - 1) / CP_LOD_SUPER;
}

/* A row's 32-bit block ends, whole superblocks (a cache line each). */
static gsize
ends32_words (guint n)
{
  gsize nb = (n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;

  return (nb + CP_LOD_SUPER - 1) / CP_LOD_SUPER * CP_LOD_SUPER;
}

/* Every row's block ends again in 32 bits, counted from the end of the
 * superblock before (the row's first block end for the first): a
 * superblock's sixteen are one cache line, where the ends themselves take
 * two. A superblock whose ends do not fit (it spans 4.3 s or more) has
 * CP_LOD_NO_END32 in all of them; a seek there reads block_end. */
static void
build_ends32 (LodLane *ll)
{
  gsize total = 0, at;
  guint32 *mem;

  for (guint r = 0; r < ll->n_rows; r++)
    total += ends32_words (ll->rows[r].n);
  /* Room to start from a cache line. */
  ll->end32_len = total + CP_LOD_SUPER;
  ll->end32_mem = g_new (guint32, ll->end32_len);
  mem = ll->end32_mem;
  while (((guintptr) mem) % (CP_LOD_SUPER * sizeof (guint32)) != 0)
    mem++;
  at = 0;
  for (guint r = 0; r < ll->n_rows; r++)
    {
      CpLodRow *row = &ll->rows[r];
      guint nb = (row->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
      guint32 *e = mem + at;

      row->end_base0 = nb > 0 ? row->block_end[0] : 0;
      for (guint sb = 0; sb * CP_LOD_SUPER < nb; sb++)
        {
          guint b0 = sb * CP_LOD_SUPER, b1 = MIN (b0 + CP_LOD_SUPER, nb);
          gint64 base = cp_lod_super_base (row, sb);
          gboolean fits = TRUE;

          /* Ends are sorted, but a hostile capture's times may lie anywhere
           * in 64 bits: what does not fit from the base is marked. */
          for (guint b = b0; b < b1; b++)
            fits = fits && row->block_end[b] >= base &&
                   (guint64) row->block_end[b] - (guint64) base < CP_LOD_NO_END32;
          for (guint b = b0; b < b1; b++)
            e[b] = fits ? (guint32) ((guint64) row->block_end[b] - (guint64) base) : CP_LOD_NO_END32;
        }
      row->block_end32 = e;
      at += ends32_words (row->n);
    }
}

static void
build_rows (LodLane *ll)
{
  const CpSlices *s = cp_lane_get_slices (ll->lane);
  gsize total = 0, pos = 0;

  ll->n_rows = cp_lane_get_n_rows (ll->lane);
  ll->rows = g_new0 (CpLodRow, MAX (ll->n_rows, 1));
  for (guint r = 0; r < ll->n_rows; r++)
    {
      guint n;

      cp_lane_get_row_slices (ll->lane, r, &n);
      total += row_words (n);
    }
  ll->busy_len = total;
  ll->busy_data = g_new (gint64, MAX (total, 1));

  for (guint r = 0; r < ll->n_rows; r++)
    {
      CpLodRow *row = &ll->rows[r];
      gint64 *busy = ll->busy_data + pos, *block_end, *super_end;
      gint64 sum = 0;
      guint nb;

      row->idx = cp_lane_get_row_slices (ll->lane, r, &row->n);
      row->slices = s;
      row->consecutive = row->n > 0;
      for (guint k = 1; k < row->n && row->consecutive; k++)
        row->consecutive = row->idx[k] == row->idx[0] + k;
      row->first = row->n > 0 ? row->idx[0] : 0;
      block_end = busy + row->n / CP_LOD_BLOCK + 1;
      for (guint k = 0; k < row->n; k++)
        {
          if (k % CP_LOD_BLOCK == 0)
            busy[k / CP_LOD_BLOCK] = sum;
          sum += cp_slices_get_dur (s, row->idx[k]);
          if (k % CP_LOD_BLOCK == CP_LOD_BLOCK - 1 || k == row->n - 1)
            block_end[k / CP_LOD_BLOCK] = cp_slices_get_end (s, row->idx[k]);
        }
      if (row->n % CP_LOD_BLOCK == 0)
        busy[row->n / CP_LOD_BLOCK] = sum;
      nb = (row->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
      super_end = block_end + nb;
      for (guint b = CP_LOD_SUPER - 1; b < nb + CP_LOD_SUPER - 1; b += CP_LOD_SUPER)
        super_end[b / CP_LOD_SUPER] = block_end[MIN (b, nb - 1)];
      row->busy = busy;
      row->block_end = block_end;
      row->super_end = super_end;
      pos += row_words (row->n);
    }
  build_ends32 (ll);
  build_copies (ll);
}

static void
build_counter (LodLane *ll)
{
  const gint64 *ts;
  guint n = cp_lane_get_counter (ll->lane, &ts, &ll->values);
  const double *prev;
  guint prev_len;

  ll->n_samples = n;
  ll->vmin = 0;
  ll->vmax = 0;
  if (n == 0)
    return;

  ll->ts = ts;
  ll->block_ts = g_new (gint64, (n + FANOUT - 1) / FANOUT);
  for (guint i = 0; i < n; i += FANOUT)
    ll->block_ts[i / FANOUT] = ts[i];
  ll->super_ts = g_new (gint64, (n + COUNTER_SUPER - 1) / COUNTER_SUPER);
  for (guint i = 0; i < n; i += COUNTER_SUPER)
    ll->super_ts[i / COUNTER_SUPER] = ts[i];

  ll->vmin = ll->vmax = ll->values[0];
  for (guint i = 1; i < n; i++)
    {
      double v = ll->values[i];

      if (isnan (v))
        continue;
      ll->vmin = MIN (ll->vmin, v);
      ll->vmax = MAX (ll->vmax, v);
    }

  /* Max pyramid: level 0 has one entry per FANOUT samples, each next level
   * one per FANOUT entries of the previous, until one entry is left. */
  for (guint len = n; len > 1; len = (len + FANOUT - 1) / FANOUT)
    ll->n_levels++;
  ll->level_max = g_new0 (double *, MAX (ll->n_levels, 1));
  ll->level_len = g_new0 (guint, MAX (ll->n_levels, 1));
  prev = ll->values;
  prev_len = n;
  for (guint l = 0; l < ll->n_levels; l++)
    {
      guint len = (prev_len + FANOUT - 1) / FANOUT;
      double *out = g_new (double, len);

      for (guint i = 0; i < len; i++)
        {
          double m = -INFINITY;

          for (guint j = i * FANOUT; j < MIN ((i + 1) * FANOUT, prev_len); j++)
            {
              if (!isnan (prev[j]))
                m = MAX (m, prev[j]);
            }
          out[i] = m;
        }
      ll->level_max[l] = out;
      ll->level_len[l] = len;
      prev = out;
      prev_len = len;
    }
}

CpLod *
cp_lod_new (CpTrace *trace)
{
  CpLod *self;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);

  self = g_new0 (CpLod, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->n_lanes = cp_trace_get_n_lanes (trace);
  self->lanes = g_new0 (LodLane, MAX (self->n_lanes, 1));
  self->memory = sizeof *self + sizeof (LodLane) * self->n_lanes;

  for (guint i = 0; i < self->n_lanes; i++)
    {
      LodLane *ll = &self->lanes[i];

      ll->lane = cp_trace_get_lane (trace, i);
      build_rows (ll);
      build_counter (ll);
      self->memory += sizeof (CpLodRow) * ll->n_rows + sizeof (gint64) * ll->busy_len;
      self->memory += sizeof (guint32) * ll->end32_len;
      self->memory += sizeof (CpLodPos) * ll->pos_len + sizeof (gint64) * ll->pos_base_len;
      for (guint l = 0; l < ll->n_levels; l++)
        self->memory += sizeof (double) * ll->level_len[l];
      self->memory += sizeof (gint64) * ((ll->n_samples + FANOUT - 1) / FANOUT);
      self->memory += sizeof (gint64) * ((ll->n_samples + COUNTER_SUPER - 1) / COUNTER_SUPER);
    }

  build_flow_index (self, trace, TRUE, &self->flows_out, &self->out_offsets);
  build_flow_index (self, trace, FALSE, &self->flows_in, &self->in_offsets);

  return self;
}

CpLod *
cp_lod_ref (CpLod *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
cp_lod_unref (CpLod *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  for (guint i = 0; i < self->n_lanes; i++)
    {
      LodLane *ll = &self->lanes[i];

      g_free (ll->rows);
      g_free (ll->busy_data);
      g_free (ll->end32_mem);
      g_free (ll->pos_data);
      g_free (ll->pos_base_data);
      for (guint l = 0; l < ll->n_levels; l++)
        g_free (ll->level_max[l]);
      g_free (ll->level_max);
      g_free (ll->level_len);
      g_free (ll->block_ts);
      g_free (ll->super_ts);
    }
  g_free (self->lanes);
  g_free (self->out_offsets);
  g_free (self->in_offsets);
  g_free (self);
}

#define LOD_KEY "cp-lod"

CpLod *
cp_lod_ensure (CpTrace *trace)
{
  CpLod *lod;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);

  lod = g_object_get_data (G_OBJECT (trace), LOD_KEY);
  if (lod != NULL)
    return lod;

  lod = cp_lod_new (trace);
  /* Another thread may have built one meanwhile: the first one stays. */
  if (!g_object_replace_data (G_OBJECT (trace), LOD_KEY, NULL, lod,
                              (GDestroyNotify) cp_lod_unref, NULL))
    {
      cp_lod_unref (lod);
      lod = g_object_get_data (G_OBJECT (trace), LOD_KEY);
    }
  return lod;
}

CpLod *
cp_lod_peek (CpTrace *trace)
{
  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  return g_object_get_data (G_OBJECT (trace), LOD_KEY);
}

gsize
cp_lod_get_memory_size (CpLod *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->memory;
}

guint
cp_lod_get_n_rows (CpLod *self,
                   guint  lane)
{
  g_return_val_if_fail (self != NULL, 0);
  return lane < self->n_lanes ? self->lanes[lane].n_rows : 0;
}

const CpLodRow *
cp_lod_get_row (CpLod *self,
                guint  lane,
                guint  row)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (lane >= self->n_lanes || row >= self->lanes[lane].n_rows)
    return NULL;
  return &self->lanes[lane].rows[row];
}

guint
cp_lod_row_first_ending_after (CpLod  *self,
                               guint   lane,
                               guint   row,
                               gint64  t)
{
  const CpLodRow *r = cp_lod_get_row (self, lane, row);

  if (r == NULL)
    return 0;
  return cp_lod_row_seek (r, 0, t);
}

/* Covered time in [-inf, t). */
static gint64
row_covered_before (const CpLodRow *row,
                    gint64          t)
{
  gint64 c;

  cp_lod_row_seek_covered (row, 0, t, &c);
  return c;
}

gint64
cp_lod_row_coverage (CpLod  *self,
                     guint   lane,
                     guint   row,
                     gint64  t0,
                     gint64  t1)
{
  const CpLodRow *r = cp_lod_get_row (self, lane, row);

  if (r == NULL || t1 <= t0)
    return 0;
  return row_covered_before (r, t1) - row_covered_before (r, t0);
}

guint64
cp_lod_count_slices (CpLod  *self,
                     guint   lane,
                     gint64  t0,
                     gint64  t1)
{
  guint64 count = 0;

  g_return_val_if_fail (self != NULL, 0);

  if (lane >= self->n_lanes || t1 <= t0)
    return 0;

  for (guint r = 0; r < self->lanes[lane].n_rows; r++)
    {
      const CpLodRow *row = &self->lanes[lane].rows[r];
      const CpSlices *s = cp_lane_get_slices (self->lanes[lane].lane);
      guint first = cp_lod_row_seek (row, 0, t0);
      guint lo = first, hi = row->n;

      /* A slice ending exactly at t0 does not overlap [t0, t1) unless it
       * is zero-length and at t0. */
      while (first < row->n)
        {
          guint32 i = row->idx[first];

          if (cp_slices_get_dur (s, i) == 0 && cp_slices_get_start (s, i) < t0)
            first++;
          else
            break;
        }
      lo = first;
      /* First position starting at or after t1. */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (cp_slices_get_start (s, row->idx[mid]) < t1)
            lo = mid + 1;
          else
            hi = mid;
        }
      count += lo - first;
    }
  return count;
}

gboolean
cp_lod_counter_range (CpLod  *self,
                      guint   lane,
                      double *min,
                      double *max)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (lane >= self->n_lanes || self->lanes[lane].n_samples == 0)
    return FALSE;
  if (min)
    *min = self->lanes[lane].vmin;
  if (max)
    *max = self->lanes[lane].vmax;
  return TRUE;
}

guint
cp_lod_counter_seek (CpLod  *self,
                     guint   lane,
                     guint   from,
                     gint64  t)
{
  const LodLane *ll;
  guint nb, nsb, sb, b, lo, end;

  g_return_val_if_fail (self != NULL, 0);

  if (lane >= self->n_lanes)
    return 0;
  ll = &self->lanes[lane];
  if (from >= ll->n_samples || ll->ts[from] >= t)
    return MIN (from, ll->n_samples);
  nb = (ll->n_samples + FANOUT - 1) / FANOUT;
  nsb = (ll->n_samples + COUNTER_SUPER - 1) / COUNTER_SUPER;
  /* The last superblock starting before t, galloping from from's over
   * their starts (in cache); then the last of its blocks starting before t,
   * from from's if it is there: one or two cache lines of block starts. */
  sb = cp_lod_last_before (ll->super_ts, from / COUNTER_SUPER, nsb, t);
  lo = MAX (sb * FANOUT, from / FANOUT);
  lo = cp_lod_last_before (ll->block_ts, lo, MIN ((sb + 1) * FANOUT, nb), t);
  /* Inside it, after from. */
  end = MIN ((lo + 1) * FANOUT, ll->n_samples);
  for (b = MAX (from + 1, lo * FANOUT); b < end && ll->ts[b] < t; b++)
    ;
  return b;
}

/* The last superblock at or after sb (whose start is before t, or sb is 0)
 * that starts before t. */
static inline guint
counter_super_at (const LodLane *ll,
                  guint          sb,
                  gint64         t)
{
  guint nsb = (ll->n_samples + COUNTER_SUPER - 1) / COUNTER_SUPER;

  sb = MIN (sb, nsb - 1);
  if (ll->super_ts[sb] >= t)
    return sb;
  return cp_lod_last_before (ll->super_ts, sb, nsb, t);
}

void
cp_lod_counter_ahead (CpLod             *self,
                      guint              lane,
                      CpLodCounterAhead *ahead,
                      gint64             t_far,
                      gint64             t_near)
{
  const LodLane *ll;
  guint nb, b, k0, k1;

  if (self == NULL || lane >= self->n_lanes || self->lanes[lane].n_samples == 0)
    return;
  ll = &self->lanes[lane];
  nb = (ll->n_samples + FANOUT - 1) / FANOUT;

  /* Far: the block starts of the superblock t_far falls in. */
  ahead->far_sb = counter_super_at (ll, ahead->far_sb, t_far);
  b = ahead->far_sb * FANOUT;
  __builtin_prefetch (&ll->block_ts[b]);
  __builtin_prefetch (&ll->block_ts[MIN (b + FANOUT, nb) - 1]);

  /* Near: those block starts have arrived; the block t_near falls in, and
   * what a seek and a max ending there read of it: its times, its values,
   * and the entries above it that a max's loose ends take. */
  ahead->near_sb = counter_super_at (ll, ahead->near_sb, t_near);
  b = ahead->near_sb * FANOUT;
  if (ll->block_ts[b] < t_near)
    b = cp_lod_last_before (ll->block_ts, b, MIN (b + FANOUT, nb), t_near);
  k0 = b * FANOUT;
  k1 = MIN (k0 + FANOUT, ll->n_samples) - 1;
  __builtin_prefetch (&ll->ts[k0]);
  __builtin_prefetch (&ll->ts[k1]);
  __builtin_prefetch (&ll->values[k0]);
  __builtin_prefetch (&ll->values[k1]);
  for (guint l = 0, at = b; l < MIN (ll->n_levels, 2); l++, at /= FANOUT)
    {
      if (at < ll->level_len[l])
        __builtin_prefetch (&ll->level_max[l][at]);
    }
}

/* The larger of m and v, where a missing sample (NaN) is not one. */
static inline double
max_sample (double m,
            double v)
{
  return isnan (v) || m > v ? m : v;
}

double
cp_lod_counter_max (CpLod *self,
                    guint  lane,
                    guint  first,
                    guint  last)
{
  const LodLane *ll;
  double m = -INFINITY;
  guint level = 0, shift = 0;
  const double *data;

  g_return_val_if_fail (self != NULL, NAN);

  if (lane >= self->n_lanes)
    return NAN;
  ll = &self->lanes[lane];
  last = MIN (last, ll->n_samples);
  if (first >= last)
    return NAN;

  /* Climb: take loose entries at each level until [first, last) is aligned
   * to the next level's entries, then come down on the right. Positions are
   * kept in samples; an entry of the current level holds 2^shift of them,
   * and first (and, above level 0, last) is a multiple of that. */
  data = ll->values;
  while (TRUE)
    {
      guint64 up = (guint64) 1 << (shift + FANOUT_SHIFT);
      guint64 a, b;

      if (level >= ll->n_levels || (guint64) first + up > last)
        break;
      /* The entries from first up to the next aligned boundary a, and from
       * the last one, b, to last: a <= b since first + up <= last. */
      a = ((guint64) first + up - 1) & ~(up - 1);
      b = (guint64) last & ~(up - 1);
      for (guint64 i = first >> shift; i < a >> shift; i++)
        m = max_sample (m, data[i]);
      for (guint64 i = b >> shift; i < last >> shift; i++)
        m = max_sample (m, data[i]);
      if (a == b)
        return m;
      first = (guint) a;
      last = (guint) b;
      data = ll->level_max[level];
      level++;
      shift += FANOUT_SHIFT;
    }
  for (guint64 i = first >> shift; i < last >> shift; i++)
    m = max_sample (m, data[i]);
  return m;
}

const guint32 *
cp_lod_get_lane_flows (CpLod    *self,
                       guint     lane,
                       gboolean  outgoing,
                       guint    *n)
{
  const guint32 *offsets;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (n != NULL, NULL);

  if (lane >= self->n_lanes)
    {
      *n = 0;
      return NULL;
    }
  offsets = outgoing ? self->out_offsets : self->in_offsets;
  *n = offsets[lane + 1] - offsets[lane];
  if (*n == 0)
    return NULL;
  return (outgoing ? self->flows_out : self->flows_in) + offsets[lane];
}
