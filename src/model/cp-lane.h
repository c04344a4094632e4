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

/* The slices of a lane as struct-of-arrays, sorted by start (ties: longer
 * first). Every array has n entries. Pointers stay valid while the lane lives;
 * the lane is immutable once its trace is built. */
typedef struct
{
  guint          n;
  const gint64  *start;     /* ns from the trace origin */
  const gint64  *dur;       /* ns, >= 0 */
  const CpStr   *name;
  const CpStr   *cat;
  const guint16 *row;       /* nesting depth, or an extra row for overlaps */
  const guint16 *flags;     /* CpSliceFlags */
  const gint64  *corr;      /* correlation id, CP_NONE when absent */
  const gint64  *ext;       /* Kineto "External id" (XPlane: group_id), CP_NONE when absent */
  const guint32 *gpu;       /* 1 + index of a CpGpuInfo in the trace, 0 when none */
  const guint32 *args;      /* 1 + index of an args record in the trace, 0 when none */
  const gint64  *end_max;   /* running maximum of start + dur: end_max[i] = max over j <= i */
} CpSlices;

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
 * (end_max[i-1] < t); slices from i on may overlap [t, ...). */
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
