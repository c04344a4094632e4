/* cp-lane.h: one row group of the timeline and its slices, stored as columns
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "cp-types.h"

G_BEGIN_DECLS

#define CP_TYPE_LANE (cp_lane_get_type ())

G_DECLARE_FINAL_TYPE (CpLane, cp_lane, CP, LANE, GObject)

/* A column that many slices may leave empty, stored compactly. Sparse form
 * (present not NULL): bit i of present says whether slice i has a value, and
 * the values of the slices that have one follow in slice order. Dense form
 * (present NULL, v32 or v64 not NULL): one value per slice, the absent ones
 * included, for columns that nearly every slice fills. Either way the values
 * are 32-bit numbers when every value of the lane fits in [0, G_MAXUINT32]
 * (v32), else 64-bit ones (v64); all NULL: no slice has a value. Read it with
 * cp_sparse_column_get(). */
typedef struct
{
  const guint64 *present;   /* (n + 63) / 64 words, or NULL */
  const guint32 *rank;      /* per word: the number of values before it */
  const guint32 *v32;       /* NULL when the values are in v64 */
  const gint64  *v64;
} CpSparseColumn;

/* The value of slice i, or absent when it has none. */
static inline gint64
cp_sparse_column_get (const CpSparseColumn *column,
                      guint                 i,
                      gint64                absent)
{
  guint64 word, bit;
  guint32 r;

  if (column->present == NULL)
    return column->v32 != NULL ? (gint64) column->v32[i] :
           column->v64 != NULL ? column->v64[i] : absent;
  word = column->present[i / 64];
  bit = G_GUINT64_CONSTANT (1) << (i % 64);
  if ((word & bit) == 0)
    return absent;
  r = column->rank[i / 64] + (guint32) __builtin_popcountll (word & (bit - 1));
  return column->v32 != NULL ? (gint64) column->v32[r] : column->v64[r];
}

/* The slices of a lane as struct-of-arrays, sorted by start (ties: longer
 * first). Every array has n entries. Pointers stay valid while the lane lives;
 * the lane is immutable once its trace is built. Starts are 32-bit offsets
 * in blocks of 64 slices: read them with cp_slices_get_start(). Durations
 * (>= 0) are 32-bit
 * with the few longer ones aside: read them with cp_slices_get_dur().
 * Names are a table per lane with a 16-bit index per slice (or 32-bit
 * ids when a lane has more than 65,536): read them with cp_slices_get_name().
 * Categories are a small table per lane with an 8-bit index per slice (or
 * 32-bit ids when a lane has many): read them with cp_slices_get_cat().
 * Correlation and External
 * ids, device records and arguments are sparse columns: read them with
 * cp_slices_get_corr(), cp_slices_get_ext(), cp_slices_get_gpu() and
 * cp_slices_get_args(). */
typedef struct
{
  guint          n;
  /* Starts in ns from the trace origin, 32-bit offsets from the start of
   * their block of 64 slices (that slice's start is the block's base);
   * G_MAXUINT32 for an offset of 2^32 - 1 ns (4.3 s) or more, whose start is
   * in a side table: read starts with cp_slices_get_start(). */
  const guint32 *start32;
  const gint64  *start_base;/* (n + 63) / 64 */
  guint          n_far;     /* those far slices: */
  const guint32 *far_index; /* their indexes, sorted */
  const gint64  *far_start; /* and their starts */
  const guint32 *dur32;     /* ns; G_MAXUINT32 for 2^32 - 1 ns (4.3 s) or more:
                             * read durations with cp_slices_get_dur() */
  guint          n_long;    /* those long slices: */
  const guint32 *long_index;/* their indexes, sorted */
  const gint64  *long_dur;  /* and their durations (ns) */
  const guint16 *name16;    /* names, when name_table is not NULL: an index in it */
  const CpStr   *name_table;/* the lane's distinct names (up to 65,536), or NULL */
  const CpStr   *name32;    /* when name_table is NULL: one per slice */
  const guint8  *cat8;      /* categories, when cat_table is not NULL: an index in it */
  const CpStr   *cat_table; /* the lane's few distinct categories, or NULL */
  const CpStr   *cat32;     /* when cat_table is NULL: one per slice */
  const guint16 *row;       /* nesting depth, or an extra row for overlaps */
  const guint16 *flags;     /* CpSliceFlags */
  CpSparseColumn corr;      /* correlation id, CP_NONE when absent */
  CpSparseColumn ext;       /* Kineto "External id" (XPlane: group_id), CP_NONE when absent */
  CpSparseColumn gpu;       /* 1 + index of a CpGpuInfo in the trace, 0 when none */
  CpSparseColumn args;      /* 1 + index of an args record in the trace, 0 when none */
} CpSlices;

/* The start of a slice whose start32 is G_MAXUINT32. */
gint64          cp_slices_get_far_start    (const CpSlices *slices,
                                            guint           i);

/* The start of slice i in ns from the trace origin. */
static inline gint64
cp_slices_get_start (const CpSlices *slices,
                     guint           i)
{
  guint32 o = slices->start32[i];

  return G_LIKELY (o != G_MAXUINT32) ? slices->start_base[i / 64] + (gint64) o
                                     : cp_slices_get_far_start (slices, i);
}

/* The end of slice i (start + duration). */
static inline gint64
cp_slices_get_end (const CpSlices *slices,
                   guint           i);

/* The duration of a slice whose dur32 is G_MAXUINT32. */
gint64          cp_slices_get_long_dur     (const CpSlices *slices,
                                            guint           i);

/* The duration of slice i in ns (>= 0). */
static inline gint64
cp_slices_get_dur (const CpSlices *slices,
                   guint           i)
{
  guint32 d = slices->dur32[i];

  return G_LIKELY (d != G_MAXUINT32) ? (gint64) d : cp_slices_get_long_dur (slices, i);
}

static inline gint64
cp_slices_get_end (const CpSlices *slices,
                   guint           i)
{
  return cp_slices_get_start (slices, i) + cp_slices_get_dur (slices, i);
}

/* The name of slice i. */
static inline CpStr
cp_slices_get_name (const CpSlices *slices,
                    guint           i)
{
  return slices->name_table != NULL ? slices->name_table[slices->name16[i]] : slices->name32[i];
}

/* The category of slice i. */
static inline CpStr
cp_slices_get_cat (const CpSlices *slices,
                   guint           i)
{
  return slices->cat_table != NULL ? slices->cat_table[slices->cat8[i]] : slices->cat32[i];
}

/* The correlation id of slice i, CP_NONE when absent. */
static inline gint64
cp_slices_get_corr (const CpSlices *slices,
                    guint           i)
{
  return cp_sparse_column_get (&slices->corr, i, CP_NONE);
}

/* The External id (XPlane: group_id) of slice i, CP_NONE when absent. */
static inline gint64
cp_slices_get_ext (const CpSlices *slices,
                   guint           i)
{
  return cp_sparse_column_get (&slices->ext, i, CP_NONE);
}

/* 1 + the index of slice i's CpGpuInfo in the trace, 0 when it has none
 * (cp_trace_get_gpu_info() resolves it). */
static inline guint32
cp_slices_get_gpu (const CpSlices *slices,
                   guint           i)
{
  return (guint32) cp_sparse_column_get (&slices->gpu, i, 0);
}

/* The id of slice i's arguments record (cp_trace_get_args_by_id()), 0 when
 * it has none. */
static inline guint32
cp_slices_get_args (const CpSlices *slices,
                    guint           i)
{
  return (guint32) cp_sparse_column_get (&slices->args, i, 0);
}

CpLaneKind      cp_lane_get_kind          (CpLane *self);
CpTransferKind  cp_lane_get_transfer_kind (CpLane *self);
const char     *cp_lane_get_name          (CpLane *self);
guint           cp_lane_get_index         (CpLane *self);
guint           cp_lane_get_process       (CpLane *self);
gint            cp_lane_get_device        (CpLane *self);
gint64          cp_lane_get_stream        (CpLane *self);
gint64          cp_lane_get_tid           (CpLane *self);
gint64          cp_lane_get_sort_key      (CpLane *self);
guint           cp_lane_get_n_slices      (CpLane *self);
guint           cp_lane_get_n_rows        (CpLane *self);
const CpSlices *cp_lane_get_slices        (CpLane *self);
/* Slice indexes on one row, sorted by start; slices of a row never overlap,
 * so their ends are sorted too. NULL (and 0) for a row the lane lacks. */
const guint32  *cp_lane_get_row_slices    (CpLane *self,
                                           guint   row,
                                           guint  *n);

/* The first slice index i such that every slice before i ends before t
 * (max over j < i of start[j] + dur[j] is < t); slices from i on may overlap
 * [t, ...). */
guint           cp_lane_first_ending_after (CpLane *self,
                                            gint64  t);
/* The first slice index whose start is > t (upper bound on starts). */
guint           cp_lane_first_starting_after (CpLane *self,
                                              gint64  t);
/* The deepest slice containing t (start <= t < end, or t == start for
 * instants), or -1. */
gint            cp_lane_slice_at           (CpLane *self,
                                            gint64  t,
                                            gint    row);

/* Counter lanes: the samples (sorted by time). */
guint           cp_lane_get_counter        (CpLane         *self,
                                            const gint64  **ts,
                                            const double  **values);

/* Busy time: the length of the union of the lane's slices clipped to [t0, t1). */
gint64          cp_lane_busy_time          (CpLane *self,
                                            gint64  t0,
                                            gint64  t1);

const char     *cp_lane_kind_to_string     (CpLaneKind kind);
const char     *cp_transfer_kind_to_string (CpTransferKind kind);

G_END_DECLS
