/* cp-trace-builder-private.h: what the builder and its finish share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-lane-private.h"
#include "cp-trace-builder.h"
#include "cp-trace-private.h"

G_BEGIN_DECLS

#define ARGS_CHUNK_SIZE (4 * 1024 * 1024)
#define MAX_ROWS CP_LANE_MAX_ROWS

typedef struct
{
  guint           process;
  CpLaneKind      kind;
  CpLaneKey       key;
  char           *name;
  gint64          sort_key;
  gint            device;
  gint64          stream;
  CpTransferKind  transfer_kind;

  /* Columns in insertion order. */
  guint           n;
  guint           cap;
  gint64         *start;
  CpStr          *names;
  guint8         *cat8;          /* see blane_set_cat() */
  CpStr          *cat_table;
  guint           n_cats;
  guint           last_cat;
  CpStr          *cat32;
  guint16        *flags;
  CpSparseBuilder corr;
  CpSparseBuilder ext;
  CpSparseBuilder gpu;
  CpSparseBuilder args;
  gboolean        unsorted;

  GArray         *counter_ts;
  GArray         *counter_values;

  guint32        *dur32;         /* see blane_dur() */
  GHashTable     *long_durs;
  /* Set by finish(): the long durations as in CpSlices. */
  guint           n_long;
  guint32        *long_index;
  gint64         *long_dur;

  /* Set by finish(): insertion index -> sorted index (NULL: identity). */
  guint32        *new_index;
  guint16        *rows;
  guint           final_index;
} BLane;

typedef CpBuilderFlowPoint FlowPoint;

typedef struct
{
  guint    process;
  guint    kind;
  gint64   num;
  CpStr    str;
} LaneKey;

struct _CpTraceBuilder
{
  CpStringPool *strings;
  CpLoadReport *report;
  GFile        *file;
  char         *title;
  gint64        epoch_base;
  gboolean      has_epoch;
  gint64        time_offset;

  GArray       *processes;       /* of CpProcess */
  GArray       *process_sort_set;/* of gboolean */
  GHashTable   *pid_numbers;     /* gint64* -> index+1 */
  GHashTable   *pid_strings;     /* CpStr -> index+1 */

  GPtrArray    *lanes;           /* of BLane* */
  GHashTable   *lane_keys;       /* LaneKey* -> index+1 */

  GArray       *gpu_infos;
  GArray       *args;            /* of CpArgsRecord */
  GPtrArray    *args_chunks;
  guint8       *args_chunk;
  gsize         args_chunk_used;
  gsize         args_arena_bytes;
  GBytes       *args_source;
  gboolean      args_source_in_file;

  GArray       *flows;           /* of CpFlow, insertion refs */
  GArray       *flow_points;     /* of FlowPoint */
  FlowPoint    *taken_points;    /* cp_trace_builder_take_flow_points() */
  guint         n_taken_points;
  gsize         taken_bytes;
  GArray       *instants;        /* of CpInstant, absolute ts, builder lane index */
  GArray       *steps;           /* of CpStep, absolute times, insertion refs */
  GArray       *devices;
  GHashTable   *device_index;  /* ordinal -> index + 1 in devices */
  GArray       *metadata;
  GArray       *xla_sources;  /* of CpXlaSource */
  gboolean      link_correlations;
  guint64       negative_durations;
  guint64       out_of_range;

  gint64        min_ts;
  gint64        max_ts;
  gboolean      any;
  guint         finish_threads;  /* 0: by size and cores */
};

/* A sort key and the index of what it sorts. */
typedef struct
{
  guint64 key;
  guint32 sub;     /* compared after key, before the indexes */
  guint32 idx;
} KeyIdx;

/* cp-trace-builder.c */
void cp_builder_blane_finish_durations (BLane *l);

/* cp-trace-builder-flows.c */
void cp_builder_sort_by_key (KeyIdx           *v,
                             guint             n,
                             GCompareDataFunc  tie,
                             gpointer          data);
void cp_builder_sort_points (KeyIdx           *out,
                             const FlowPoint  *points,
                             guint             n,
                             GCompareDataFunc  tie,
                             gpointer          data);
void cp_builder_link_correlations (CpTrace *trace,
                                   GArray  *flows,
                                   CpStr    name);
gint cp_builder_cmp_points (gconstpointer a,
                            gconstpointer b,
                            gpointer      user_data);
CpSliceRef cp_builder_bind_point (CpTrace         *trace,
                                  const FlowPoint *p,
                                  guint            final_lane,
                                  gint64           origin,
                                  guint           *hint);
void cp_builder_sort_flow_index (guint32      *order,
                                 const CpFlow *flows,
                                 guint         n,
                                 guint         n_lanes,
                                 gboolean      by_to);

/* Durations are 32-bit ns from the start, as in CpSlices; the few of
 * G_MAXUINT32 ns or more are in long_durs (index -> gint64). */
static inline gint64
blane_dur (const BLane *l,
           guint        i)
{
  guint32 d = l->dur32[i];

  if (G_LIKELY (d != G_MAXUINT32))
    return d;
  return *(const gint64 *) g_hash_table_lookup (l->long_durs, GUINT_TO_POINTER (i + 1));
}

static inline CpSliceRef
remap_ref (CpTraceBuilder *self,
           CpSliceRef      ref)
{
  BLane *l;
  CpSliceRef out = CP_SLICE_REF_NONE;

  if (ref.lane >= self->lanes->len)
    return out;
  l = g_ptr_array_index (self->lanes, ref.lane);
  if (ref.index >= l->n)
    return out;
  out.lane = l->final_index;
  out.index = l->new_index ? l->new_index[ref.index] : ref.index;
  return out;
}

G_END_DECLS
