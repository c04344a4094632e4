/* cp-types.h: plain types shared by the trace model, readers, analysis and drawing
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Time is always gint64 nanoseconds from the trace origin (the earliest
 * timestamp in the capture) unless a name says "abs". */
#define CP_NS_PER_US  G_GINT64_CONSTANT (1000)
#define CP_NS_PER_MS  G_GINT64_CONSTANT (1000000)
#define CP_NS_PER_S   G_GINT64_CONSTANT (1000000000)

/* The absolute times a trace can hold: within CP_TIME_ABS_LIMIT ns (about
 * 146 years) of the readers' zero (the Unix epoch for epoch clocks), so that
 * the difference of any two fits in a gint64. The builder skips events that
 * start outside it and cuts ends at its edge (docs/limits.md). */
#define CP_TIME_ABS_LIMIT ((G_GINT64_CONSTANT (1) << 62) - 1)
#define CP_TIME_ABS_IN_RANGE(t) ((t) >= -CP_TIME_ABS_LIMIT && (t) <= CP_TIME_ABS_LIMIT)

/* Sums of durations or byte counts: one slice lasts at most 2 *
 * CP_TIME_ABS_LIMIT, but a few added up can pass G_MAXINT64, so totals
 * saturate there instead of wrapping. */
static inline gint64
cp_sat_add (gint64 total,
            gint64 d)
{
  gint64 r;

  if (__builtin_add_overflow (total, d, &r))
    return d > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

/* An id into the trace's string pool. 0 is always the empty string. */
typedef guint32 CpStr;
#define CP_STR_EMPTY ((CpStr) 0)

/* "No value" for the integer analysis columns (correlation, External id...). */
#define CP_NONE G_GINT64_CONSTANT (-1)

typedef enum
{
  CP_LANE_HOST_THREAD,       /* a CPU thread: Python, data loader, CUDA runtime calls */
  CP_LANE_KERNEL,            /* a GPU stream (Kineto) or device stream line (XPlane) */
  CP_LANE_TRANSFER,          /* memcpy / memset on one device, by direction */
  CP_LANE_DEVICE_ANNOTATION, /* gpu_user_annotation, XLA Ops/Modules, Steps, Framework Ops */
  CP_LANE_ASYNC,             /* nestable async b/e/n spans of a process */
  CP_LANE_COUNTER,           /* one counter series */
  CP_LANE_N_KINDS
} CpLaneKind;

typedef enum
{
  CP_TRANSFER_NONE = 0,
  CP_TRANSFER_HTOD,
  CP_TRANSFER_DTOH,
  CP_TRANSFER_DTOD,
  CP_TRANSFER_PTOP,
  CP_TRANSFER_MEMSET,
  CP_TRANSFER_OTHER,       /* HtoH, arrays, unknown kinds */
  CP_TRANSFER_N_KINDS
} CpTransferKind;

/* Per-slice flags (guint16). */
typedef enum
{
  CP_SLICE_INSTANT       = 1 << 0, /* zero-duration thread instant (i/I/R) */
  CP_SLICE_UNCLOSED      = 1 << 1, /* B with no E: closed at the end of the trace */
  CP_SLICE_OVERLAP       = 1 << 2, /* partially overlaps an earlier slice: placed on an extra row */
  CP_SLICE_PAGEABLE      = 1 << 3, /* memcpy from/to pageable host memory */
  CP_SLICE_PINNED        = 1 << 4, /* memcpy from/to pinned host memory */
  CP_SLICE_ASYNC_INSTANT = 1 << 5, /* an async 'n' event */
  CP_SLICE_SYNC          = 1 << 6, /* a synchronising call or wait (cuda_sync, *Synchronize) */
  CP_SLICE_HAS_FLOW_IN   = 1 << 7,
  CP_SLICE_HAS_FLOW_OUT  = 1 << 8,
} CpSliceFlags;

/* Where a slice's raw arguments live. Decoded on demand only. */
typedef enum
{
  CP_ARGS_NONE = 0,
  CP_ARGS_JSON,            /* JSON object text ('{...}') */
  CP_ARGS_XSTATS,          /* packed XPlane stats, see formats/cp-xplane-reader.h */
} CpArgsFormat;

/* A slice is addressed by its lane (index in the trace's lane list) and its
 * index in that lane (slices are sorted by start). */
typedef struct
{
  guint32 lane;
  guint32 index;
} CpSliceRef;

#define CP_SLICE_REF_NONE ((CpSliceRef) { G_MAXUINT32, G_MAXUINT32 })

typedef enum
{
  CP_FLOW_GENERIC,         /* s/t/f or flow v2 of another category */
  CP_FLOW_LAUNCH,          /* host launch -> GPU activity (ac2g, correlation, XPlane correlation_id) */
  CP_FLOW_FWD_BWD,         /* forward op -> backward op */
  CP_FLOW_PRODUCER,        /* XPlane _p/_c producer -> consumer */
} CpFlowKind;

typedef struct
{
  CpSliceRef from;
  CpSliceRef to;
  CpStr      name;         /* flow name or category ("ac2g", "fwdbwd"...) */
  guint8     kind;         /* CpFlowKind */
} CpFlow;

/* Device-side columns that analysis needs, for kernel and transfer slices
 * (and any slice whose arguments carry them). -1 / NAN where absent. */
typedef struct
{
  gint64  bytes;           /* memcpy / memset bytes */
  gint32  device;
  gint32  stream;
  gint32  grid[3];
  gint32  block[3];
  gint32  registers;       /* registers per thread */
  gint32  shared_mem;      /* bytes, static + dynamic */
  float   blocks_per_sm;
  float   warps_per_sm;
  float   occupancy;       /* est. achieved occupancy, percent; NAN (or -1)
                            * when absent, and when 0 for every kernel of
                            * the capture (a placeholder) */
  gint64  flops;           /* XPlane cost stats, -1 when absent */
  gint64  bytes_accessed;
} CpGpuInfo;

/* What a device is, from the name of its process or plane: XPlane names
 * its planes "/device:TPU:0" or "/device:GPU:0" (a TensorBoard profile
 * folder prefixes the host, "worker0 /device:TPU:0"); Kineto's device
 * processes are GPUs, but for Meta's MTIA, which Kineto names "MTIA 17";
 * other XPlane device planes (custom accelerators) are
 * CP_DEVICE_KIND_OTHER. The rules take an MTIA for a GPU (it launches
 * kernels from a runtime on the host); what people read names it. */
typedef enum
{
  CP_DEVICE_KIND_GPU,
  CP_DEVICE_KIND_TPU,
  CP_DEVICE_KIND_OTHER,
  CP_DEVICE_KIND_MTIA,
} CpDeviceKind;

/* One device the capture describes (Kineto deviceProperties, XPlane plane stats). */
typedef struct
{
  gint32  ordinal;
  CpStr   name;            /* "NVIDIA H100 80GB HBM3" */
  CpStr   vendor;          /* "Nvidia", "AMD", "" */
  gint64  total_memory;    /* bytes, -1 unknown */
  gint32  compute_major;   /* -1 unknown */
  gint32  compute_minor;
  gint32  num_sms;         /* -1 unknown */
  gint32  max_threads_per_sm;
  gint32  warp_size;
  double  peak_tflops;     /* 0 unknown */
  double  memory_bandwidth;/* bytes/s, 0 unknown */
  gint64  clock_khz;       /* the SMs' clock (XPlane clock_rate), kHz; 0 unknown */
} CpDevice;

typedef struct
{
  CpStr   key;             /* pid as text, or its string form */
  gint64  pid;             /* numeric pid, or CP_NONE when the pid is a string */
  CpStr   name;            /* process_name */
  CpStr   labels;          /* process_labels */
  gint64  sort_index;      /* process_sort_index, or derived */
  gint32  device;          /* device ordinal when this process is a GPU/TPU, else -1 */
  gint32  host;            /* host number for multi-host captures, 0 otherwise */
  gboolean is_device;
  gboolean is_pseudo;      /* Kineto "Spans"/"Traces", CUPTI overhead (pid -1) */
} CpProcess;

typedef struct
{
  gint64  ts;              /* ns from origin */
  CpStr   name;
  CpStr   cat;
  gint32  process;         /* index, or -1 for global scope */
  gint32  lane;            /* lane index for thread scope, else -1 */
  gchar   scope;           /* 't', 'p' or 'g' */
} CpInstant;

/* A training/inference step: ProfilerStep#N in PyTorch captures, step markers
 * in XPlane captures. */
typedef struct
{
  gint64     number;       /* N of ProfilerStep#N, step_num, group_id... */
  gint64     start;
  gint64     end;
  CpSliceRef marker;       /* the slice that marks the step, if any */
} CpStep;

typedef struct
{
  CpStr   key;
  char   *json;            /* the value as JSON text */
} CpMetadataEntry;

/* Where an XLA (HLO) op comes from, as the HLO module's op metadata says
 * (XPlane: the "Hlo Proto" of each program on /host:metadata). */
typedef struct
{
  gint64  program_id;      /* the module's program id */
  CpStr   hlo_op;          /* the instruction, "fusion.3" */
  CpStr   module;          /* "jit_loss_fn" */
  CpStr   op_name;         /* the framework's name, "jit(loss_fn)/jvp()/dot_general", or "" */
  CpStr   file;            /* the source file, or "" */
  gint32  line;            /* 0 when unknown */
  CpStr   function;        /* the function, or "" */
  CpStr   code;            /* "file.py(42): function" (or "file.py(42)"), "" without a file */
} CpXlaSource;

G_END_DECLS
