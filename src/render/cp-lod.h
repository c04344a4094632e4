/* cp-lod.h: the level-of-detail index the painter draws from
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* Built once per trace after loading. For every row of every lane (slices
 * of a row never overlap, so starts and ends are both sorted) it keeps the
 * running sum of the durations: the time a row covers inside any interval,
 * at any zoom, is then two binary searches away. A frame draws slices one by
 * one only where they are at least a pixel wide; elsewhere it draws each
 * pixel column's exact coverage, so its cost follows the pixels, and a slice
 * of 1 ns in a 10 s view still marks its column.
 *
 * Counter lanes get a max pyramid (fan-out 16) over their samples.
 *
 * Immutable once built; any number of threads may read it. It refers to the
 * trace's lanes without a reference: it is valid while the trace lives. */
typedef struct _CpLod CpLod;

/* The running sums are kept per block of CP_LOD_BLOCK positions; the few
 * durations since the block's start are added when one is read. Ends come
 * from the slices, or, for a nested lane's rows, from a copy of their
 * starts and durations in row order: the index costs about half a byte
 * per slice of a lane of one row and eight and a half per slice of a
 * nested lane. */
#define CP_LOD_BLOCK 16

/* Block ends are summed up again per superblock of CP_LOD_SUPER blocks: the
 * few kilobytes a row's superblock ends take stay in the processor's cache,
 * so a seek far ahead (a zoomed-out view's next column) gallops over them
 * and then reads one superblock's block ends, one cache line in 32 bits
 * (block_end32), however many slices it skips. */
#define CP_LOD_SUPER 16

/* A position's start (from its block's base) and duration. */
typedef struct
{
  guint32 start;
  guint32 dur;
} CpLodPos;

typedef struct
{
  guint           n;
  const guint32  *idx;      /* slice indexes in the lane, by start */
  const CpSlices *slices;   /* the lane's */
  const gint64   *busy;     /* n / CP_LOD_BLOCK + 1 running sums of durations:
                             * busy[b] is the sum over positions before
                             * b * CP_LOD_BLOCK; read with cp_lod_row_busy() */
  const gint64   *block_end; /* per block of CP_LOD_BLOCK positions, the end of
                              * its last slice: a search over a zoomed-out
                              * view reads these, not the slices */
  const gint64   *super_end; /* per superblock of CP_LOD_SUPER blocks, the end
                              * of its last block */
  const CpLodPos *pos;      /* NULL, or (a row whose slices lie far apart in
                             * its lane, as the upper rows of a nested lane
                             * do) every position's start and duration in
                             * row order: a block is then two cache lines
                             * instead of one line per slice */
  const gint64   *pos_base; /* with pos, per block: the start its positions'
                             * starts count from, or CP_LOD_NO_POS where a
                             * value does not fit (read the slices then) */
  const guint32  *block_end32; /* block_end again, from the superblock's base
                               * (cp_lod_super_base()), in 32 bits: a
                               * superblock's in one cache line, or all
                               * CP_LOD_NO_END32 where they do not fit */
  gint64          end_base0;  /* the first superblock's base: block_end[0] */
  gboolean        consecutive; /* idx[k] == first + k for every k (a lane of
                                * one row): read without idx */
  guint32         first;
} CpLodRow;

#define CP_LOD_NO_END32 G_MAXUINT32

#define CP_LOD_NO_POS G_MININT64

/* The index in its lane of the slice at position k of a row. */
G_ALWAYS_INLINE static inline guint32
cp_lod_row_slice (const CpLodRow *row,
                  guint           k)
{
  return row->consecutive ? row->first + k : row->idx[k];
}

/* Whether the row's copy holds position k (else read the slices). */
G_ALWAYS_INLINE static inline gboolean
cp_lod_row_in_copy (const CpLodRow *row,
                    guint           k)
{
  return row->pos != NULL && G_LIKELY (row->pos_base[k / CP_LOD_BLOCK] != CP_LOD_NO_POS);
}

/* The start of the slice at position k of a row. */
G_ALWAYS_INLINE static inline gint64
cp_lod_row_start (const CpLodRow *row,
                  guint           k)
{
  if (cp_lod_row_in_copy (row, k))
    return row->pos_base[k / CP_LOD_BLOCK] + (gint64) row->pos[k].start;
  return cp_slices_get_start (row->slices, cp_lod_row_slice (row, k));
}

/* The duration of the slice at position k of a row. */
G_ALWAYS_INLINE static inline gint64
cp_lod_row_dur (const CpLodRow *row,
                guint           k)
{
  if (cp_lod_row_in_copy (row, k))
    return (gint64) row->pos[k].dur;
  return cp_slices_get_dur (row->slices, cp_lod_row_slice (row, k));
}

/* The end (start + duration) of the slice at position k of a row. */
G_ALWAYS_INLINE static inline gint64
cp_lod_row_end (const CpLodRow *row,
                guint           k)
{
  if (cp_lod_row_in_copy (row, k))
    return cp_lod_row_start (row, k) + (gint64) row->pos[k].dur;
  return cp_slices_get_end (row->slices, cp_lod_row_slice (row, k));
}

/* The sum of the durations of the slices at positions [0, k) of a row
 * (0 <= k <= n). */
static inline gint64
cp_lod_row_busy (const CpLodRow *row,
                 guint           k)
{
  gint64 c = row->busy[k / CP_LOD_BLOCK];

  for (guint m = k - k % CP_LOD_BLOCK; m < k; m++)
    c += cp_lod_row_dur (row, m);
  return c;
}

/* Whether the slice at position k ends before t. A zero-length slice at t
 * does not: it would be lost otherwise. */
G_ALWAYS_INLINE static inline gboolean
cp_lod_row_ends_before (const CpLodRow *row,
                        guint           k,
                        gint64          t)
{
  gint64 end = cp_lod_row_end (row, k);

  return end < t || (end == t && cp_lod_row_start (row, k) < t);
}

/* What superblock sb's 32-bit block ends count from: the end of the one
 * before, which no end of sb's is under. */
G_ALWAYS_INLINE static inline gint64
cp_lod_super_base (const CpLodRow *row,
                   guint           sb)
{
  return sb > 0 ? row->super_end[sb - 1] : row->end_base0;
}

/* t from base, for a comparison with 32-bit ends from it: exact within
 * [-1, 2^33], clamped outside, so that no time overflows. */
G_ALWAYS_INLINE static inline gint64
cp_lod_rel_time (gint64 t,
                 gint64 base)
{
  guint64 d = (guint64) t - (guint64) base;

  if (t < base)
    return -1;
  return d > ((guint64) 1 << 33) ? (gint64) 1 << 33 : (gint64) d;
}

/* Whether superblock sb's block ends are kept in 32 bits (nb blocks). */
G_ALWAYS_INLINE static inline gboolean
cp_lod_super_has_end32 (const CpLodRow *row,
                        guint           sb,
                        guint           nb)
{
  return G_LIKELY (row->block_end32[MIN ((sb + 1) * CP_LOD_SUPER, nb) - 1] != CP_LOD_NO_END32);
}

/* Whether block b ends before t: its end from the superblock's base is
 * compared with rt, t from that base (rel TRUE), or its end with t. */
G_ALWAYS_INLINE static inline gboolean
cp_lod_block_ends_before_in (const CpLodRow *row,
                             guint           b,
                             gint64          t,
                             gboolean        rel,
                             gint64          rt)
{
  gint64 end = rel ? (gint64) row->block_end32[b] : row->block_end[b];
  gint64 at = rel ? rt : t;

  if (end != at)
    return end < at;
  return cp_lod_row_ends_before (row, MIN ((b + 1) * CP_LOD_BLOCK, row->n) - 1, t);
}

G_ALWAYS_INLINE static inline gboolean
cp_lod_block_ends_before (const CpLodRow *row,
                          guint           b,
                          gint64          t)
{
  guint nb = (row->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK, sb = b / CP_LOD_SUPER;
  gboolean rel = cp_lod_super_has_end32 (row, sb, nb);

  return cp_lod_block_ends_before_in (row, b, t, rel, rel ? cp_lod_rel_time (t, cp_lod_super_base (row, sb)) : 0);
}

/* Whether the last block of superblock sb ends before t (nb blocks). */
G_ALWAYS_INLINE static inline gboolean
cp_lod_super_ends_before (const CpLodRow *row,
                          guint           sb,
                          guint           nb,
                          gint64          t)
{
  gint64 end = row->super_end[sb];

  if (end != t)
    return end < t;
  return cp_lod_block_ends_before (row, MIN ((sb + 1) * CP_LOD_SUPER, nb) - 1, t);
}

/* The first position >= from whose slice does not end before t (row->n if
 * none), and in *covered the time the row covers before t. It gallops from
 * from over the blocks' ends, then reads the slices of one block one after
 * the other (which the processor fetches together), summing the durations
 * the coverage needs: a far answer costs a few slices read, not dozens.
 * hint is a block the answer may lie in (G_MAXUINT: none), as
 * cp_lod_row_ahead() found it: two block ends tell whether it is, and
 * spare the searches when it is; the answer is the same either way. */
static inline guint
cp_lod_row_seek_covered_hinted (const CpLodRow *row,
                                guint           from,
                                gint64          t,
                                guint           hint,
                                gint64         *covered)
{
  const CpSlices *s = row->slices;
  guint nb = (row->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
  guint b, m, last;
  gint64 c;

  if (from >= row->n || !cp_lod_row_ends_before (row, from, t))
    {
      m = from;
      c = cp_lod_row_busy (row, MIN (m, row->n));
    }
  else
    {
      b = from / CP_LOD_BLOCK;
      if (cp_lod_block_ends_before (row, b, t))
        {
          guint sb = b / CP_LOD_SUPER, lo, hi;

          /* Ends only grow along a row: block hint is the first one not
           * ending before t if the one before it does. */
          if (hint > b && hint < nb && cp_lod_block_ends_before (row, hint - 1, t) &&
              !cp_lod_block_ends_before (row, hint, t))
            lo = hint;
          else
            {
              if (cp_lod_super_ends_before (row, sb, nb, t))
                {
                  /* Past this superblock: gallop over the next ones. */
                  guint nsb = (nb + CP_LOD_SUPER - 1) / CP_LOD_SUPER;
                  guint slo = sb, shi = sb + 1, step = 1;

                  while (shi < nsb && cp_lod_super_ends_before (row, shi, nb, t))
                    {
                      slo = shi;
                      step *= 2;
                      shi = slo + step;
                    }
                  shi = MIN (shi, nsb);
                  slo++;
                  while (slo < shi)
                    {
                      guint mid = slo + (shi - slo) / 2;

                      if (cp_lod_super_ends_before (row, mid, nb, t))
                        slo = mid + 1;
                      else
                        shi = mid;
                    }
                  if (slo >= nsb)
                    {
                      *covered = cp_lod_row_busy (row, row->n);
                      return row->n;
                    }
                  lo = slo * CP_LOD_SUPER;
                }
              else
                lo = b + 1;
              /* The answer is a block of superblock lo / CP_LOD_SUPER, whose
               * last block does not end before t: a search over its block
               * ends, one cache line in 32 bits. */
              {
                guint sb2 = lo / CP_LOD_SUPER;
                gboolean rel = cp_lod_super_has_end32 (row, sb2, nb);
                gint64 rt = rel ? cp_lod_rel_time (t, cp_lod_super_base (row, sb2)) : 0;

                hi = MIN ((sb2 + 1) * CP_LOD_SUPER, nb);
                while (lo < hi)
                  {
                    guint mid = lo + (hi - lo) / 2;

                    if (cp_lod_block_ends_before_in (row, mid, t, rel, rt))
                      lo = mid + 1;
                    else
                      hi = mid;
                  }
              }
            }
          b = lo;
        }
      /* Block b's last slice does not end before t. */
      c = row->busy[b];
      last = MIN ((b + 1) * CP_LOD_BLOCK, row->n) - 1;
      if (row->pos != NULL && row->pos_base[b] != CP_LOD_NO_POS)
        {
          /* The block's copy: relative to its base, in two cache lines. */
          const CpLodPos *p = row->pos;
          gint64 rt = t - row->pos_base[b];

          for (m = b * CP_LOD_BLOCK; m < last; m++)
            {
              gint64 st = p[m].start, en = st + p[m].dur;

              if (!(en < rt || (en == rt && st < rt)))
                break;
              c += p[m].dur;
            }
        }
      else
        for (m = b * CP_LOD_BLOCK; m < last; m++)
          {
            guint32 i = cp_lod_row_slice (row, m);
            gint64 st = cp_slices_get_start (s, i), d = cp_slices_get_dur (s, i);

            if (!(st + d < t || (st + d == t && st < t)))
              break;
            c += d;
          }
    }
  if (m < row->n)
    {
      gint64 st = cp_lod_row_start (row, m);

      if (t > st)
        c += MIN (t - st, cp_lod_row_dur (row, m));
    }
  *covered = c;
  return m;
}

/* The same without a hint. */
static inline guint
cp_lod_row_seek_covered (const CpLodRow *row,
                         guint           from,
                         gint64          t,
                         gint64         *covered)
{
  return cp_lod_row_seek_covered_hinted (row, from, t, G_MAXUINT, covered);
}

/* The same without the coverage. */
static inline guint
cp_lod_row_seek (const CpLodRow *row,
                 guint           from,
                 gint64          t)
{
  gint64 covered;

  return cp_lod_row_seek_covered (row, from, t, &covered);
}

/* Where a walk over a zoomed-out row's columns asks ahead: the superblocks
 * its lookahead times fell in last, which the next asks start from
 * (zero-initialized: from the row's start). */
typedef struct
{
  guint far_sb;
  guint near_sb;
  guint close_sb;
} CpLodAhead;

/* Given v[from] < t in the sorted v[0, n), the last i in [from, n) with
 * v[i] < t: a gallop from from, then a binary search, so that a near
 * answer costs a few reads. */
G_ALWAYS_INLINE static inline guint
cp_lod_last_before (const gint64 *v,
                    guint         from,
                    guint         n,
                    gint64        t)
{
  guint lo = from, hi = from + 1, step = 1;

  while (hi < n && v[hi] < t)
    {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
  hi = MIN (hi, n);
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (v[mid] < t)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* The first superblock at or after sb whose last block does not end before
 * t, or the last one: a gallop over the superblock ends, which stay in the
 * processor's cache during a walk. */
G_ALWAYS_INLINE static inline guint
cp_lod_row_super_at (const CpLodRow *row,
                     guint           sb,
                     gint64          t)
{
  guint nsb = (row->n + CP_LOD_BLOCK * CP_LOD_SUPER - 1) / (CP_LOD_BLOCK * CP_LOD_SUPER);

  if (sb + 1 >= nsb)
    return nsb > 0 ? nsb - 1 : 0;
  if (row->super_end[sb] >= t)
    return sb;
  return MIN (cp_lod_last_before (row->super_end, sb, nsb, t) + 1, nsb - 1);
}

/* The block of superblock sb that a seek to t ends in (near enough: ties
 * at t are not told apart, which only a hint can afford). */
G_ALWAYS_INLINE static inline guint
cp_lod_row_block_near (const CpLodRow *row,
                       guint           sb,
                       gint64          t)
{
  guint nb = (row->n + CP_LOD_BLOCK - 1) / CP_LOD_BLOCK;
  guint lo = sb * CP_LOD_SUPER, hi = MIN (lo + CP_LOD_SUPER, nb);
  gboolean rel = cp_lod_super_has_end32 (row, sb, nb);
  gint64 rt = rel ? cp_lod_rel_time (t, cp_lod_super_base (row, sb)) : t;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if ((rel ? (gint64) row->block_end32[mid] : row->block_end[mid]) < rt)
        lo = mid + 1;
      else
        hi = mid;
    }
  return MIN (lo, nb - 1);
}

/* Asks the processor, in stages, for what the seeks of a walk's coming
 * columns will read, so that the misses of several columns overlap
 * instead of waiting on memory one after the other:
 * - for the column ending at t_far, its superblock's block ends;
 * - for the one ending at t_near (whose block ends were asked for a few
 *   columns before and have arrived), its block: the running sum, and the
 *   copy's starts and durations, or the slices' of a row of consecutive
 *   slices, or the block's positions;
 * - for the one ending at t_close, in a row read through positions (which
 *   have arrived by then), the slices they name.
 * The times are the columns' edges, so what is asked for is the block the
 * seek will read, not a guess from the positions columns took so far.
 * Only a hint: it reads what the row holds and changes nothing. Returns
 * the block found for t_near, for that seek to start from
 * (cp_lod_row_seek_covered_hinted()), or G_MAXUINT. */
static inline guint
cp_lod_row_ahead (const CpLodRow *row,
                  CpLodAhead     *ahead,
                  gint64          t_far,
                  gint64          t_near,
                  gint64          t_close)
{
  guint b, near, k0, k1;
  guint32 i0, i1;

  if (row->n == 0)
    return G_MAXUINT;
  ahead->far_sb = cp_lod_row_super_at (row, ahead->far_sb, t_far);
  b = ahead->far_sb * CP_LOD_SUPER;
  __builtin_prefetch (&row->block_end32[b]);

  ahead->near_sb = cp_lod_row_super_at (row, ahead->near_sb, t_near);
  near = b = cp_lod_row_block_near (row, ahead->near_sb, t_near);
  k0 = b * CP_LOD_BLOCK;
  k1 = MIN (k0 + CP_LOD_BLOCK, row->n) - 1;
  __builtin_prefetch (&row->busy[b]);
  if (row->pos != NULL)
    {
      __builtin_prefetch (&row->pos_base[b]);
      __builtin_prefetch (&row->pos[k0]);
      __builtin_prefetch (&row->pos[k1]);
      return near;
    }
  if (!row->consecutive)
    {
      __builtin_prefetch (&row->idx[k0]);
      __builtin_prefetch (&row->idx[k1]);
      ahead->close_sb = cp_lod_row_super_at (row, ahead->close_sb, t_close);
      b = cp_lod_row_block_near (row, ahead->close_sb, t_close);
      k0 = b * CP_LOD_BLOCK;
      k1 = MIN (k0 + CP_LOD_BLOCK, row->n) - 1;
    }
  i0 = cp_lod_row_slice (row, k0);
  i1 = cp_lod_row_slice (row, k1);
  /* A row's slices are in index order: the block's lie in [i0, i1]. */
  if (i1 < i0 || i1 - i0 > 256)
    return near;
  __builtin_prefetch (&row->slices->start_base[i0 / 64]);
  for (guint32 i = i0; i <= i1; i += 16)
    {
      __builtin_prefetch (&row->slices->start32[i]);
      __builtin_prefetch (&row->slices->dur32[i]);
    }
  __builtin_prefetch (&row->slices->start32[i1]);
  __builtin_prefetch (&row->slices->dur32[i1]);
  return near;
}

CpLod          *cp_lod_new                   (CpTrace *trace);
CpLod          *cp_lod_ref                   (CpLod   *self);
void            cp_lod_unref                 (CpLod   *self);

/* The index of a trace, built on first use and kept with the trace.
 * Thread-safe; the result lives as long as the trace. */
CpLod          *cp_lod_ensure                (CpTrace *trace);

/* The index of a trace if it was built already, else NULL (never blocks). */
CpLod          *cp_lod_peek                  (CpTrace *trace);

/* Bytes the index adds to the trace. */
gsize           cp_lod_get_memory_size       (CpLod   *self);

guint           cp_lod_get_n_rows            (CpLod   *self,
                                              guint    lane);
const CpLodRow *cp_lod_get_row               (CpLod   *self,
                                              guint    lane,
                                              guint    row);

/* Row queries. Positions are indexes into CpLodRow.idx. */
/* The first position whose slice ends after t (end > t), or that is an
 * instant at t or later. */
guint           cp_lod_row_first_ending_after (CpLod  *self,
                                               guint   lane,
                                               guint   row,
                                               gint64  t);
/* The time the row's slices cover in [t0, t1). */
gint64          cp_lod_row_coverage          (CpLod   *self,
                                              guint    lane,
                                              guint    row,
                                              gint64   t0,
                                              gint64   t1);
/* Slices of the lane overlapping [t0, t1) (zero-length ones count when
 * t0 <= start < t1). */
guint64         cp_lod_count_slices          (CpLod   *self,
                                              guint    lane,
                                              gint64   t0,
                                              gint64   t1);

/* Counter lanes: the value range, and the largest sample in positions
 * [first, last). FALSE for a lane without samples. */
gboolean        cp_lod_counter_range         (CpLod   *self,
                                              guint    lane,
                                              double  *min,
                                              double  *max);
/* The first sample at or after position from whose time is t or later
 * (the number of samples if none). */
guint           cp_lod_counter_seek          (CpLod   *self,
                                              guint    lane,
                                              guint    from,
                                              gint64   t);
double          cp_lod_counter_max           (CpLod   *self,
                                              guint    lane,
                                              guint    first,
                                              guint    last);
/* Where a walk over a zoomed-out counter's columns asks ahead: the
 * superblocks its lookahead times fell in last, which the next asks start
 * from (zero-initialized: from the lane's start). */
typedef struct
{
  guint far_sb;
  guint near_sb;
} CpLodCounterAhead;

/* Asks the processor, in two stages, for what the seek and the max of a
 * coming column will read, so that the misses of several columns overlap:
 * for the column ending at t_far, the block starts of its superblock; for
 * the one ending at t_near (whose block starts were asked for a few columns
 * before), the times and values of the block it ends in and the entries
 * above them. The times are the columns' edges, so what is asked for is
 * what the seek will read, however unevenly the samples are spread. Only a
 * hint: it changes nothing. */
void            cp_lod_counter_ahead         (CpLod             *self,
                                              guint              lane,
                                              CpLodCounterAhead *ahead,
                                              gint64             t_far,
                                              gint64             t_near);

/* Flows leaving (outgoing) or reaching a lane, as indexes into
 * cp_trace_get_flows(), sorted by the index of their slice on that lane (so
 * by its start). */
const guint32  *cp_lod_get_lane_flows        (CpLod    *self,
                                              guint     lane,
                                              gboolean  outgoing,
                                              guint    *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpLod, cp_lod_unref)

G_END_DECLS
