/* cp-trace.h: an immutable profiler capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "cp-lane.h"
#include "cp-load-report.h"
#include "cp-memory.h"
#include "cp-string-pool.h"
#include "cp-types.h"

G_BEGIN_DECLS

#define CP_TRACE_ERROR (cp_trace_error_quark ())

typedef enum
{
  CP_TRACE_ERROR_NOT_A_TRACE,     /* the content is not a capture we read */
  CP_TRACE_ERROR_UNSUPPORTED,     /* a capture-like file we know but do not read */
  CP_TRACE_ERROR_DAMAGED,         /* a capture too damaged to load anything */
  CP_TRACE_ERROR_EMPTY,           /* the file is empty or holds no events */
  CP_TRACE_ERROR_LIMIT,           /* a documented limit was exceeded */
  CP_TRACE_ERROR_IO,
} CpTraceError;

GQuark cp_trace_error_quark (void);

#define CP_TYPE_TRACE (cp_trace_get_type ())

G_DECLARE_FINAL_TYPE (CpTrace, cp_trace, CP, TRACE, GObject)

/* Lanes in display order: processes by (device last, sort index, pid), then by
 * kind, then by sort key. cp_trace_get_lanes() is a GListModel of CpLane. */
GListModel          *cp_trace_get_lanes         (CpTrace *self);
guint                cp_trace_get_n_lanes       (CpTrace *self);
CpLane              *cp_trace_get_lane          (CpTrace *self,
                                                 guint    index);

guint                cp_trace_get_n_processes   (CpTrace *self);
const CpProcess     *cp_trace_get_process       (CpTrace *self,
                                                 guint    index);
guint                cp_trace_get_n_devices     (CpTrace *self);
const CpDevice      *cp_trace_get_device        (CpTrace *self,
                                                 guint    index);
/* The device with this ordinal, or NULL. */
const CpDevice      *cp_trace_find_device       (CpTrace *self,
                                                 gint     ordinal);

/* The kind of a device process, from its name (see CpDeviceKind). */
CpDeviceKind         cp_process_get_device_kind (CpTrace         *self,
                                                 const CpProcess *process);
/* The kind of the device with this ordinal: that of the first device
 * process with the ordinal, CP_DEVICE_KIND_GPU when there is none. */
CpDeviceKind         cp_trace_get_device_kind   (CpTrace *self,
                                                 gint     ordinal);
/* "gpu", "tpu" or "other", as the JSON writes it. */
const char          *cp_device_kind_to_string   (CpDeviceKind kind);

const char          *cp_trace_get_string       (CpTrace *self,
                                                 CpStr    id);
const CpStringPool  *cp_trace_get_string_pool  (CpTrace *self);

/* Time: ns from origin. The origin is the earliest timestamp; its absolute
 * value is epoch ns when the capture says so (origin_is_epoch). */
gint64               cp_trace_get_origin_abs    (CpTrace *self);
gboolean             cp_trace_get_origin_is_epoch (CpTrace *self);
gint64               cp_trace_get_duration      (CpTrace *self);

guint64              cp_trace_get_n_slices      (CpTrace *self);
/* Slices on lanes of the given kind. On kernel lanes only the kernels count:
 * the waits Kineto puts on a GPU stream (cuda_sync: Stream Sync, Event Sync,
 * Context Sync, flagged CP_SLICE_SYNC) are counted by
 * cp_trace_count_device_syncs(). */
guint64              cp_trace_count_slices      (CpTrace    *self,
                                                 CpLaneKind  kind);
/* Synchronisation slices on device lanes (flagged CP_SLICE_SYNC). */
guint64              cp_trace_count_device_syncs (CpTrace   *self);

const CpFlow        *cp_trace_get_flows         (CpTrace *self,
                                                 guint   *n_flows);
/* Indexes of every flow sorted by the (lane, slice index) of its start
 * (by_to FALSE) or of its end; *n is the number of flows. Valid while the
 * trace lives. */
const guint32       *cp_trace_get_flow_order    (CpTrace  *self,
                                                 gboolean  by_to,
                                                 guint    *n);
/* Indexes of the flows that start or end at a slice, appended to out (guint). */
void                 cp_trace_find_flows        (CpTrace    *self,
                                                 CpSliceRef  ref,
                                                 GArray     *out);

const CpInstant     *cp_trace_get_instants      (CpTrace *self,
                                                 guint   *n_instants);
const CpStep        *cp_trace_get_steps         (CpTrace *self,
                                                 guint   *n_steps);

const CpGpuInfo     *cp_trace_get_gpu_info      (CpTrace    *self,
                                                 CpSliceRef  ref);

/* Raw arguments of a slice; FALSE when it has none. The bytes stay valid
 * while the trace lives. */
gboolean             cp_trace_get_args          (CpTrace       *self,
                                                 CpSliceRef     ref,
                                                 CpArgsFormat  *format,
                                                 const guint8 **data,
                                                 gsize         *len);

/* When the arguments are read in place from a mapping of the file, hands
 * its resident pages back to the page cache: the bytes stay valid and are
 * read again on the next access. For after a pass that reads arguments all
 * over a large capture (the analysis, a job's collective sizes), so their
 * pages do not stay in the process' memory. Does nothing otherwise. */
void                 cp_trace_release_args_pages (CpTrace      *self);

/* An arguments record by its id (the value of CpSlices.args, 1-based), for
 * formats whose records refer to others (XPlane stats include the stats of
 * their event metadata). FALSE when the id is 0 or unknown. */
gboolean             cp_trace_get_args_by_id    (CpTrace       *self,
                                                 guint32        args_id,
                                                 CpArgsFormat  *format,
                                                 const guint8 **data,
                                                 gsize         *len);

/* Top-level keys of the capture other than its events (deviceProperties,
 * distributedInfo, schemaVersion...), as JSON text. */
guint                cp_trace_get_n_metadata    (CpTrace *self);
/* Where the HLO op hlo_op of a program comes from, or NULL when the
 * capture does not say. */
const CpXlaSource   *cp_trace_find_xla_source (CpTrace *self,
                                               gint64   program_id,
                                               CpStr    hlo_op);
guint                cp_trace_get_n_xla_sources (CpTrace *self);
const CpMetadataEntry *cp_trace_get_metadata    (CpTrace *self,
                                                 guint    index);
const char          *cp_trace_lookup_metadata   (CpTrace    *self,
                                                 const char *key);

const CpLoadReport  *cp_trace_get_load_report   (CpTrace *self);

/* The allocator events per device (cp-memory.h), or NULL when the capture
 * has none. */
const CpMemory      *cp_trace_get_memory_events (CpTrace *self);

/* The file (or folder) it was read from; may be NULL for in-memory traces. */
GFile               *cp_trace_get_file          (CpTrace *self);
const char          *cp_trace_get_title         (CpTrace *self);

/* Bytes held by the model (columns, strings, args, indexes), for benchmarks. */
gsize                cp_trace_get_memory_size   (CpTrace *self);

/* Convenience accessors. */
const char          *cp_trace_slice_name        (CpTrace    *self,
                                                 CpSliceRef  ref);
gint64               cp_trace_slice_start       (CpTrace    *self,
                                                 CpSliceRef  ref);
gint64               cp_trace_slice_dur         (CpTrace    *self,
                                                 CpSliceRef  ref);
gboolean             cp_trace_slice_ref_valid   (CpTrace    *self,
                                                 CpSliceRef  ref);

G_END_DECLS
