/* cp-xplane-reader.h: JAX / TensorFlow / XProf captures (XSpace protobuf)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "formats/cp-loader.h"
#include "formats/cp-source.h"
#include "model/cp-trace-builder.h"

G_BEGIN_DECLS

/* How an XSpace becomes a CpTrace (see docs/DESIGN.md and formats.md §1):
 *
 * Processes: one per plane that has events, keyed "<host>:<plane name>",
 * named "<hostname> <plane name>" (XProf's naming), CpProcess.host = the
 * host's number in a profile folder (0 for a single file). Host planes sort
 * before device planes within a host, hosts in folder order.
 *
 * Lanes:
 *  - /host:CPU (and other /host: planes with lines): one CP_LANE_HOST_THREAD
 *    lane per row, keyed by display_id (else the line id, the OS tid), named
 *    display_name (else name).
 *  - /device:GPU:N: "Stream #S(...)" and other raw lines are CP_LANE_KERNEL
 *    lanes (device N, stream = line id). Memcpy events (a memcpy_details stat
 *    or a name starting "Memcpy"/"Copy") and memset events (Memset_details or
 *    "Memset") go to CP_LANE_TRANSFER lanes of device N, one per direction
 *    (from the name, else kind_src/kind_dst of the details), with the bytes
 *    from size:/num_bytes:. Lines XProf derives (Steps, XLA Modules, XLA Ops,
 *    Framework Ops..., ids >= 0xdeadbeef) and "CUPTI overhead" are
 *    CP_LANE_DEVICE_ANNOTATION lanes, so that kernels are not counted twice.
 *  - /device:TPU:N (and SparseCore planes), /device:CUSTOM:, /custom:,
 *    /virtualdevice: and #Chip planes: op lines ("XLA Ops", "Sparse Core Ops")
 *    are CP_LANE_KERNEL lanes (the ops are what the device executes, as
 *    kernels are on a GPU; stream = line id); every other line (Steps,
 *    XLA Modules, Async XLA Ops, Framework Ops, TensorFlow Ops, XLA TraceMe,
 *    name scopes...) is a CP_LANE_DEVICE_ANNOTATION lane.
 *  - A "_counters_" line on any plane: one CP_LANE_COUNTER lane per counter
 *    (event name), the value being the event's first numeric stat.
 *  - Task Environment, /host:metadata, /host:tfstreamz,
 *    /host:__ScopeRangeCallStack__ and planes without lines are not lanes:
 *    their stats become trace metadata (key = plane name).
 *  - Device ordinals: N on the first host; on host h of a folder, N plus
 *    the number of device ordinals used by the hosts before it.
 *
 * Time: a line's timestamp_ns is the base of its events' offset_ps. Bases
 * below half of profile_start_time (Task Environment) are relative to it and
 * get it added, so every slice is in epoch ns; starts and ends are floored to
 * ns separately (end = floor((offset + duration) / 1000)), which keeps nested
 * events nested. Events with num_occurrences are aggregated: counted in
 * report->aggregated and report->events, not drawn.
 *
 * Slices: name = the metadata's display_name, else its name, overridden by a
 * step_name stat. Categories mirror Kineto's so analysis treats both formats
 * alike: "kernel", "gpu_memcpy", "gpu_memset" on device lanes,
 * "gpu_user_annotation" on device annotation lanes, "cuda_runtime" for host
 * events with a correlation_id, "cpu_op" for other host events. Columns:
 * corr = correlation_id, ext = group_id, CpGpuInfo for device-side slices
 * (device, stream, bytes, grid, block, registers, shared memory, occupancy
 * from kernel_details, flops, bytes_accessed).
 *
 * Flows: host event -> device event with the same correlation_id within one
 * host (and the same device when device_id names a GPU plane of that host);
 * producer -> consumer for equal (_pt, _p) and (_ct, _c); and events sharing
 * a "flow" stat id (out -> inout -> in). The builder's own correlation
 * linking is turned off: correlation ids repeat across hosts.
 *
 * Steps: the Steps line of the first device plane that has one; else host
 * events with a _r (root) stat, numbered by step_num, iter_num or group_id;
 * else the span of each group_id. Every host of a folder adds its own.
 */

/* CP_ARGS_XSTATS: the stats of one event, packed. A record is a sequence of
 * entries, each:
 *
 *   key   varint   CpStr of the stat name in the trace's string pool
 *   type  1 byte   CpXStatType
 *   value          INT64: zigzag varint; UINT64: varint; DOUBLE: 8 bytes,
 *                  little-endian IEEE; STRING: varint CpStr (str_value, or
 *                  ref_value resolved to its stat name); BYTES: varint length
 *                  of the value, which is not kept; INCLUDE: varint id of
 *                  another CP_ARGS_XSTATS record (the event metadata's
 *                  stats), whose entries come first, key 0.
 *
 * Entries are in file order: metadata stats (through INCLUDE) then event
 * stats; for a key that repeats, the later entry wins. An event's own
 * correlation_id and group_id are left out (they are the slice's corr and
 * ext columns; see cp_xstats_decode_slice()), so are the producer/consumer
 * stats and root mark (_p, _c, _pt, _ct, _r: they become flows and steps,
 * and XProf does not show them), and slices with equal records share one. */
typedef enum
{
  CP_XSTAT_INT64   = 0,
  CP_XSTAT_UINT64  = 1,
  CP_XSTAT_DOUBLE  = 2,
  CP_XSTAT_STRING  = 3,
  CP_XSTAT_BYTES   = 4,
  CP_XSTAT_INCLUDE = 5,
} CpXStatType;

typedef struct
{
  char *key;
  char *value;
} CpXStatEntry;

/* Decodes a CP_ARGS_XSTATS record of trace into a GPtrArray of CpXStatEntry
 * (freed with the array), includes expanded and repeated keys resolved (the
 * later value replaces the earlier one in place). NULL with error set
 * (CP_TRACE_ERROR_DAMAGED) when the record is malformed. */
GPtrArray *cp_xstats_decode (CpTrace       *trace,
                             const guint8  *data,
                             gsize          len,
                             GError       **error);

/* The stats of an XPlane slice, for the Details pane: its record decoded as
 * above, plus the event's correlation_id and group_id, which the reader keeps
 * in the corr and ext columns instead of the record (so that events with
 * otherwise equal stats share one record). An empty array for a slice
 * without stats. */
GPtrArray *cp_xstats_decode_slice (CpTrace     *trace,
                                   CpSliceRef   ref,
                                   GError     **error);

/* One reader adds one or more XSpaces (hosts) to a builder. */
typedef struct _CpXPlaneReader CpXPlaneReader;

CpXPlaneReader *cp_xplane_reader_new       (CpTraceBuilder      *builder);
void            cp_xplane_reader_free      (CpXPlaneReader      *self);

/* One serialized XSpace held in memory (a mapped file or a decompressed
 * buffer). The reader keeps no pointer into it after add_space() returns. */
typedef struct
{
  const guint8       *data;
  gsize               len;
  /* Names the host when the XSpace has no hostnames (the file name without
   * ".xplane.pb"); may be NULL. */
  const char         *host_hint;
  /* Called now and then with an offset before which the reader will not
   * touch the data again, so that a mapping can drop those pages (see
   * cp_source_release_before()); may be NULL. */
  void              (*release)      (guint64  offset,
                                     gpointer user_data);
  /* Called with ranges that the reader has read and will read once more
   * (a line's header pass before its events), when the data can be dropped
   * and read again (a file mapping, whose pages come back from the page
   * cache; see cp_source_drop_range()); may be NULL. Takes release_data. */
  void              (*drop)         (guint64  from,
                                     guint64  to,
                                     gpointer user_data);
  /* Called, possibly from several threads at once, with ranges that the
   * reader has read for good (a line's events), whatever the data is; may be
   * NULL. Takes release_data. */
  void              (*discard)      (guint64  from,
                                     guint64  to,
                                     gpointer user_data);
  gpointer            release_data;
  /* progress gets (progress_base + done, progress_total), done growing from
   * 0 to progress_span (len when 0) as the data is read. */
  CpLoadProgressFunc  progress;
  gpointer            progress_data;
  guint64             progress_base;
  guint64             progress_span;
  guint64             progress_total;
} CpXPlaneInput;

/* Reads one XSpace. A damaged or truncated XSpace loads what is complete,
 * with warnings in the builder's report; FALSE (error set) when nothing could
 * be read or on cancellation. */
gboolean        cp_xplane_reader_add_space (CpXPlaneReader      *self,
                                            const CpXPlaneInput *input,
                                            GCancellable        *cancellable,
                                            GError             **error);

/* Links flows and adds steps; call once after the last space. */
void            cp_xplane_reader_finish    (CpXPlaneReader      *self);

/* Reads a whole XPlane file from a source (plain: the mapping, read in place
 * and released as it goes; gzip or zstd: decompressed into one buffer within
 * the source's limits) as one more host of the reader. */
gboolean        cp_xplane_reader_read      (CpXPlaneReader      *self,
                                            CpSource            *source,
                                            GCancellable        *cancellable,
                                            CpLoadProgressFunc   progress,
                                            gpointer             progress_data,
                                            guint64              progress_base,
                                            guint64              progress_total,
                                            GError             **error);

/* Opens a TensorBoard profile folder as one capture: a run folder
 * (logdir/plugins/profile/<run>/, holding <host>.xplane.pb files, possibly
 * compressed), or a logdir or plugins/profile folder, of which the newest run
 * is opened. Every host's planes become their own processes. Format
 * "xplane-folder". */
CpTrace        *cp_xplane_load_folder      (GFile               *folder,
                                            GCancellable        *cancellable,
                                            CpLoadProgressFunc   progress,
                                            gpointer             progress_data,
                                            GError             **error);

/* The host captures (GFile) of the run that cp_xplane_load_folder() would
 * open for folder, sorted by name; empty when there is none. Blocking. */
GPtrArray      *cp_xplane_folder_hosts     (GFile               *folder,
                                            GCancellable        *cancellable);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpXPlaneReader, cp_xplane_reader_free)

/* For tests and benchmarks: the lines of a capture are read by up to
 * n_threads threads (0, the default: one per core, up to 8, for captures of
 * a million events or more), and lines of at least big_line events (0: the
 * default, 16,384) get a thread of their own. The trace is the same either
 * way. */
void             _cp_xplane_set_threads (guint n_threads,
                                         guint big_line);
/* For tests: decompressed XPlane data past this many bytes goes to a
 * temporary file (0: the default, CP_XPLANE_INFLATE_IN_MEMORY). */
void             _cp_xplane_set_inflate_in_memory (guint bytes);

G_END_DECLS
