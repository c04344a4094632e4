/* cp-trace-builder.h: what readers use to make a CpTrace
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-trace.h"

G_BEGIN_DECLS

/* A builder is used by one thread at a time. Readers give absolute times in ns
 * (any origin, possibly epoch); finish() moves the origin to the earliest
 * timestamp, sorts every lane, lays out rows, binds flows and correlations. */
typedef struct _CpTraceBuilder CpTraceBuilder;

/* A key that tells lanes apart within a process: a number (tid, stream,
 * transfer kind) or a string (tid written as text, async track name). */
typedef struct
{
  gint64 num;
  CpStr  str;     /* CP_STR_EMPTY for numeric keys */
} CpLaneKey;

typedef struct
{
  gint64           start;     /* absolute ns */
  gint64           dur;       /* ns, < 0 is clamped to 0 and counted */
  CpStr            name;
  CpStr            cat;
  guint16          flags;     /* CpSliceFlags */
  gint64           corr;      /* CP_NONE when absent */
  gint64           ext;       /* CP_NONE when absent */
  guint32          args;      /* from cp_trace_builder_add_args(), 0 = none */
  const CpGpuInfo *gpu;       /* copied when not NULL */
  guint32          gpu_id;    /* when gpu is NULL: a shared record from
                               * cp_trace_builder_add_gpu_info(), 0 = none */
} CpSliceInit;

/* Initialise with defaults: CP_NONE ids, no args, no gpu info. */
void             cp_slice_init_clear            (CpSliceInit *init);

/* How a flow end point picks its slice, once lanes are sorted. */
typedef enum
{
  CP_FLOW_BIND_ENCLOSING,     /* deepest slice containing ts (v1 's', 't', 'f' with bp=e) */
  CP_FLOW_BIND_NEXT,          /* first slice starting at or after ts (v1 'f' default) */
} CpFlowBind;

CpTraceBuilder  *cp_trace_builder_new            (void);
void             cp_trace_builder_expect_big     (CpTraceBuilder  *self);
guint            cp_trace_builder_get_growing    (CpTraceBuilder  *self,
                                                  GArray         **columns,
                                                  guint            max);
void             cp_trace_builder_free           (CpTraceBuilder *self);

/* Where an HLO op of a program comes from (see CpXlaSource); the strings
 * are the builder's. A second one for the same op is ignored. */
void             cp_trace_builder_add_xla_source (CpTraceBuilder    *self,
                                                  const CpXlaSource *source);
CpStr            cp_trace_builder_intern         (CpTraceBuilder *self,
                                                  const char     *str,
                                                  gssize          len);
const char      *cp_trace_builder_get_string     (CpTraceBuilder *self,
                                                  CpStr           id);
CpLoadReport    *cp_trace_builder_get_report     (CpTraceBuilder *self);

void             cp_trace_builder_set_file       (CpTraceBuilder *self,
                                                  GFile          *file);
void             cp_trace_builder_set_title      (CpTraceBuilder *self,
                                                  const char     *title);
/* Absolute time (ns) of the capture's zero when known (baseTimeNanoseconds,
 * profile_start_time); marks the origin as epoch time. */
void             cp_trace_builder_set_epoch_base (CpTraceBuilder *self,
                                                  gint64          epoch_ns);

/* Times given to the builder (before or after this call) are relative to
 * offset_ns: the trace's absolute origin becomes offset_ns + the earliest
 * time. For readers that learn the base only after the events (Kineto's
 * baseTimeNanoseconds may come last). */
void             cp_trace_builder_set_time_offset (CpTraceBuilder *self,
                                                   gint64          offset_ns);

/* Processes, found or created by pid. */
guint            cp_trace_builder_process_for_pid    (CpTraceBuilder *self,
                                                      gint64          pid);
guint            cp_trace_builder_process_for_string (CpTraceBuilder *self,
                                                      const char     *pid,
                                                      gssize          len);
CpProcess       *cp_trace_builder_get_process        (CpTraceBuilder *self,
                                                      guint           process);

/* Lanes, found or created by (process, kind, key). New lanes take the key as
 * tid/stream and a default name; set the rest with the setters. */
guint            cp_trace_builder_lane           (CpTraceBuilder *self,
                                                  guint           process,
                                                  CpLaneKind      kind,
                                                  CpLaneKey       key);
gboolean         cp_trace_builder_has_lane       (CpTraceBuilder *self,
                                                  guint           process,
                                                  CpLaneKind      kind,
                                                  CpLaneKey       key,
                                                  guint          *lane);
void             cp_trace_builder_set_lane_name  (CpTraceBuilder *self,
                                                  guint           lane,
                                                  const char     *name);
void             cp_trace_builder_set_lane_sort_key (CpTraceBuilder *self,
                                                     guint           lane,
                                                     gint64          sort_key);
void             cp_trace_builder_set_lane_device (CpTraceBuilder *self,
                                                   guint           lane,
                                                   gint            device,
                                                   gint64          stream);
void             cp_trace_builder_set_lane_transfer_kind (CpTraceBuilder *self,
                                                          guint           lane,
                                                          CpTransferKind  kind);
guint            cp_trace_builder_get_n_lanes    (CpTraceBuilder *self);
CpLaneKind       cp_trace_builder_get_lane_kind  (CpTraceBuilder *self,
                                                  guint           lane);
guint            cp_trace_builder_get_lane_process (CpTraceBuilder *self,
                                                    guint           lane);

/* Slices. The returned reference is in insertion order; flows added with it
 * are remapped when lanes are sorted. */
CpSliceRef       cp_trace_builder_add_slice      (CpTraceBuilder    *self,
                                                  guint              lane,
                                                  const CpSliceInit *init);
/* Change the duration and flags of a slice added earlier (B/E matching). */
void             cp_trace_builder_close_slice    (CpTraceBuilder *self,
                                                  CpSliceRef      ref,
                                                  gint64          end_abs,
                                                  guint16         add_flags);
guint            cp_trace_builder_get_n_slices   (CpTraceBuilder *self,
                                                  guint           lane);
/* The correlation ids recorded so far on a lane, in insertion order, for a
 * reader that links them before finish(): *n_values values (in *v32, or in
 * *v64 once one needs 64 bits); value k belongs to the slice whose index is
 * the position of the k-th set bit of *present. Valid until the next slice
 * is added. */
void             cp_trace_builder_peek_corr      (CpTraceBuilder  *self,
                                                  guint            lane,
                                                  const guint64  **present,
                                                  const guint32  **v32,
                                                  const gint64   **v64,
                                                  guint           *n_values);

/* Arguments: copied into the trace's arena. Returns the id for CpSliceInit.args. */
guint32          cp_trace_builder_add_args       (CpTraceBuilder *self,
                                                  CpArgsFormat    format,
                                                  const void     *data,
                                                  gsize           len);
/* The bytes of an arguments record added earlier (for readers that share
 * identical records between slices). FALSE for an unknown id. */
gboolean         cp_trace_builder_get_args       (CpTraceBuilder *self,
                                                  guint32         args_id,
                                                  const guint8  **data,
                                                  gsize          *len);

/* A device-side record that several slices can share (CpSliceInit.gpu_id).
 * Returns its id (1-based). */
guint32          cp_trace_builder_add_gpu_info   (CpTraceBuilder  *self,
                                                  const CpGpuInfo *info);

/* Arguments that stay in a mapped source the trace keeps alive (zero-copy):
 * set the source once, then refer to byte ranges of it. */
void             cp_trace_builder_set_args_source (CpTraceBuilder *self,
                                                   GBytes         *source);
/* The source is a read-only mapping of a file (not memory of its own), so
 * cp_trace_release_args_pages() may hand its pages back. */
void             cp_trace_builder_set_args_source_in_file (CpTraceBuilder *self,
                                                           gboolean        in_file);
guint32          cp_trace_builder_add_args_ref   (CpTraceBuilder *self,
                                                  CpArgsFormat    format,
                                                  guint64         offset,
                                                  gsize           len);

/* Counters: samples on a counter lane. */
void             cp_trace_builder_add_counter    (CpTraceBuilder *self,
                                                  guint           lane,
                                                  gint64          ts_abs,
                                                  double          value);

void             cp_trace_builder_add_instant    (CpTraceBuilder *self,
                                                  gint64          ts_abs,
                                                  CpStr           name,
                                                  CpStr           cat,
                                                  gint            process,
                                                  gint            lane,
                                                  gchar           scope);

/* Flows between known slices (insertion references). */
void             cp_trace_builder_add_flow       (CpTraceBuilder *self,
                                                  CpSliceRef      from,
                                                  CpSliceRef      to,
                                                  CpFlowKind      kind,
                                                  CpStr           name);
/* Flow end points bound to slices at finish(): points with the same key are
 * ordered by 'order' (s=0, t=1, f=2) then time, and consecutive points make
 * flows. */
void             cp_trace_builder_add_flow_point (CpTraceBuilder *self,
                                                  guint64         key,
                                                  guint           lane,
                                                  gint64          ts_abs,
                                                  CpFlowBind      bind,
                                                  guint8          order,
                                                  CpFlowKind      kind,
                                                  CpStr           name);
/* A flow end point as the builder keeps it: key, time (absolute,
 * within +-CP_TIME_ABS_LIMIT), lane, seq (its index among the points),
 * name, and bind, order and kind as cp_trace_builder_add_flow_point()
 * takes them. */
typedef struct
{
  guint64    key;
  gint64     ts;
  guint32    lane;
  guint32    seq;
  CpStr      name;
  guint8     bind;
  guint8     order;
  guint8     kind;
} CpBuilderFlowPoint;

/* The same as adding the n points one by one (their lanes exist), in
 * memory the builder takes over and frees with g_free(): a reader that
 * gathered its points in a block of its own writes them over it instead
 * of into fresh pages (on a virtual machine, first writes to fresh memory
 * are much of a big capture's finish). block_bytes is the block's size:
 * what lies past the points is the finish's to use. */
void             cp_trace_builder_take_flow_points (CpTraceBuilder     *self,
                                                    CpBuilderFlowPoint *points,
                                                    guint               n,
                                                    gsize               block_bytes);
/* At finish(), link host slices to kernel/transfer slices with the same
 * correlation id (and device, when both sides know it), where no launch flow
 * already reaches the device slice. On by default. */
void             cp_trace_builder_set_link_correlations (CpTraceBuilder *self,
                                                         gboolean        link);

void             cp_trace_builder_add_step       (CpTraceBuilder *self,
                                                  gint64          number,
                                                  gint64          start_abs,
                                                  gint64          end_abs,
                                                  CpSliceRef      marker);
/* Add a step for every host slice whose name matches ProfilerStep#N. */
void             cp_trace_builder_detect_profiler_steps (CpTraceBuilder *self);

/* Devices: found or created by ordinal. */
CpDevice        *cp_trace_builder_device         (CpTraceBuilder *self,
                                                  gint            ordinal);

void             cp_trace_builder_add_metadata   (CpTraceBuilder *self,
                                                  const char     *key,
                                                  const char     *json,
                                                  gssize          len);

/* Consumes the builder. Fails with CP_TRACE_ERROR_EMPTY when nothing was
 * added (no slices, counters or instants). */
CpTrace         *cp_trace_builder_finish         (CpTraceBuilder *self,
                                                  GError        **error);

/* Adding slices from several threads. A sink is one lane of the builder;
 * slices added to it touch nothing else, so each lane may be filled by its
 * own thread while the builder itself is used by one thread at a time (its
 * other calls, lane creation included, need the caller's lock). What the
 * trace counts as a whole (time span, negative durations, skipped slices)
 * goes to the caller's CpSinkStats, merged with merge_sink_stats(). */
typedef struct _CpLaneSink CpLaneSink;

typedef struct
{
  gint64   min_ts;
  gint64   max_ts;
  gboolean any;
  guint64  negative_durations;
  guint64  skipped;
  guint64  out_of_range;  /* starts outside CP_TIME_ABS_LIMIT (also in skipped) */
} CpSinkStats;

void             cp_sink_stats_init              (CpSinkStats       *stats);
/* Adds what from counted to into (threads' stats before one merge). */
void             cp_sink_stats_add               (CpSinkStats       *into,
                                                  const CpSinkStats *from);
void             cp_trace_builder_merge_sink_stats (CpTraceBuilder  *self,
                                                    const CpSinkStats *stats);
/* The sink stays valid until finish(), however many lanes are added. */
CpLaneSink      *cp_trace_builder_get_sink       (CpTraceBuilder    *self,
                                                  guint              lane);
/* As cp_trace_builder_add_slice() (init->gpu must be NULL: use gpu_id). */
CpSliceRef       cp_lane_sink_add_slice          (CpLaneSink        *sink,
                                                  guint              lane,
                                                  const CpSliceInit *init,
                                                  CpSinkStats       *stats);
/* How many correlation ids the lane holds. */
guint            cp_lane_sink_get_n_corr         (CpLaneSink        *sink);

/* For tests: finish() with exactly this many threads (at most one per lane
 * and 8), whatever the size of the capture; 0 (the default) picks by size
 * and cores. The trace is the same either way. */
void             _cp_trace_builder_set_finish_threads (CpTraceBuilder *self,
                                                       guint           n_threads);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpTraceBuilder, cp_trace_builder_free)

G_END_DECLS
