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
 * durations since the block's start are added when one is read, and ends
 * come from the slices: the index costs about half a byte per slice. */
#define CP_LOD_BLOCK 16

typedef struct
{
  guint           n;
  const guint32  *idx;      /* slice indexes in the lane, by start */
  const CpSlices *slices;   /* the lane's */
  const gint64   *busy;     /* n / CP_LOD_BLOCK + 1 running sums of durations:
                             * busy[b] is the sum over positions before
                             * b * CP_LOD_BLOCK; read with cp_lod_row_busy() */
} CpLodRow;

/* The end (start + duration) of the slice at position k of a row. */
static inline gint64
cp_lod_row_end (const CpLodRow *row,
                guint           k)
{
  return cp_slices_get_end (row->slices, row->idx[k]);
}

/* The sum of the durations of the slices at positions [0, k) of a row
 * (0 <= k <= n). */
static inline gint64
cp_lod_row_busy (const CpLodRow *row,
                 guint           k)
{
  gint64 c = row->busy[k / CP_LOD_BLOCK];

  for (guint m = k - k % CP_LOD_BLOCK; m < k; m++)
    c += cp_slices_get_dur (row->slices, row->idx[m]);
  return c;
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
double          cp_lod_counter_max           (CpLod   *self,
                                              guint    lane,
                                              guint    first,
                                              guint    last);

/* Flows leaving (outgoing) or reaching a lane, as indexes into
 * cp_trace_get_flows(), sorted by the index of their slice on that lane (so
 * by its start). */
const guint32  *cp_lod_get_lane_flows        (CpLod    *self,
                                              guint     lane,
                                              gboolean  outgoing,
                                              guint    *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpLod, cp_lod_unref)

G_END_DECLS
