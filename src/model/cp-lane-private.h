/* cp-lane-private.h: how the builder fills a lane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-lane.h"

G_BEGIN_DECLS

/* Takes ownership of every g_malloc'd array in columns, of start (the n
 * sorted starts, turned into the columns' 32-bit form in place) and of
 * counter_ts, counter_values. */
CpLane *_cp_lane_new (CpLaneKind      kind,
                      CpTransferKind  transfer_kind,
                      const char     *name,
                      guint           index,
                      guint           process,
                      gint            device,
                      gint64          stream,
                      gint64          tid,
                      gint64          sort_key,
                      CpSlices       *columns,
                      gint64         *start,
                      gint64         *counter_ts,
                      double         *counter_values,
                      guint           n_counter);

gsize   _cp_lane_get_memory_size (CpLane *self);

/* Slice indexes of one row, sorted by start (slices of a row never overlap). */
const guint32 *_cp_lane_get_row (CpLane *self,
                                 guint   row,
                                 guint  *n);

/* Builds a CpSparseColumn while a lane's slices are added, in index order. */
typedef struct
{
  guint64 *present;
  guint    n_words;     /* allocated words of present */
  guint32 *v32;         /* the values while they all fit in 32 bits */
  gint64  *v64;         /* then */
  guint    n_values;
  guint    cap_values;
} CpSparseBuilder;

/* Records the value of slice i; i must be larger than every index given before. */
void    _cp_sparse_builder_set     (CpSparseBuilder *builder,
                                    guint            i,
                                    gint64           value);
/* Reorders the n slices: slice k takes the value of slice perm[k].
 * scratch: room for n 64-bit values, through which the values are copied
 * (they stay in the builder's own arrays). */
void    _cp_sparse_builder_permute (CpSparseBuilder *builder,
                                    const guint32   *perm,
                                    guint            n,
                                    gpointer         scratch);
/* Whether _cp_sparse_builder_permute() may use its POPCNT clone where the
 * processor has the instruction (the default); for tests. */
void    _cp_sparse_set_popcnt      (gboolean         use);
/* Moves what was built for n slices into column (freed with the lane) and
 * empties builder; absent is the value of slices without one, for the dense
 * form. */
void    _cp_sparse_builder_finish  (CpSparseBuilder *builder,
                                    guint            n,
                                    gint64           absent,
                                    CpSparseColumn  *column);
void    _cp_sparse_builder_clear   (CpSparseBuilder *builder);
/* Frees what _cp_sparse_builder_finish() put in column and empties it. */
void    _cp_sparse_column_clear    (CpSparseColumn  *column);

G_END_DECLS
