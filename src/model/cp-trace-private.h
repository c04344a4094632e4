/* cp-trace-private.h: the fields of CpTrace, filled by CpTraceBuilder
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-trace.h"

G_BEGIN_DECLS

typedef struct
{
  const guint8 *data;
  guint32       len;
  guint8        format;    /* CpArgsFormat */
} CpArgsRecord;

struct _CpTrace
{
  GObject         parent_instance;

  CpStringPool   *strings;
  GListStore     *lanes;         /* of CpLane */
  GPtrArray      *lane_array;    /* same lanes, for fast indexing */
  GArray         *processes;     /* of CpProcess */
  GArray         *devices;       /* of CpDevice */
  GArray         *flows;         /* of CpFlow */
  guint32        *flows_by_from; /* flow indexes sorted by (from.lane, from.index) */
  guint32        *flows_by_to;
  GArray         *instants;      /* of CpInstant */
  GArray         *steps;         /* of CpStep */
  GArray         *gpu_infos;     /* of CpGpuInfo */
  GArray         *args;          /* of CpArgsRecord */
  GPtrArray      *args_chunks;   /* arena memory behind args */
  GBytes         *args_source;   /* mapped source behind zero-copy args */
  gboolean        args_source_in_file; /* ...a read-only file mapping */
  gsize           args_arena_bytes;
  GArray         *metadata;      /* of CpMetadataEntry */
  GArray         *xla_sources;   /* of CpXlaSource, by (program id, op), or NULL */
  CpLoadReport   *report;
  CpMemory       *memory;        /* NULL: no allocator events */
  GFile          *file;
  char           *title;

  gint64          origin_abs;
  gboolean        origin_is_epoch;
  gint64          duration;
  guint64         n_slices;
};

CpTrace *_cp_trace_new (void);
/* Takes memory (finished); the reader sets it before the trace is shared. */
void     _cp_trace_sort_xla_sources  (CpTrace  *self);
void     _cp_trace_set_memory_events (CpTrace  *self,
                                      CpMemory *memory);

G_END_DECLS
