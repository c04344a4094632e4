/* cp-analysis-private.h: the state shared by the parts of one analysis
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-analysis.h"
#include "cp-classify.h"
#include "model/cp-lane-private.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Fixed constants of the metrics, with their sources. */
#define CP_HTA_KERNEL_WAIT_NS     (30 * CP_NS_PER_US)   /* HTA consecutive_kernel_delay (µs in practice) */
#define CP_HTA_SHORT_LAUNCH_NS    (50 * CP_NS_PER_US)   /* HTA H3: cpu_dur <= 50 µs */
#define CP_HTA_RUNTIME_OUTLIER_NS (50 * CP_NS_PER_US)   /* HTA H3: cpu_dur > 50 µs */
#define CP_HTA_DELAY_OUTLIER_NS   (100 * CP_NS_PER_US)  /* HTA H3: delay > 100 µs */
#define CP_SMALL_KERNEL_NS        (10 * CP_NS_PER_US)   /* §6: kernels under 10 µs */
#define CP_TB_LAST_STEP_RATIO     0.8                   /* TB: last step with < 0.8x the ops is dropped */

/* What a slice counts as in the breakdown; -1 = nothing. */
typedef gint8 CpSliceClass;

typedef struct
{
  CpLane      *lane;
  const CpSlices *slices;      /* the lane's columns (cached: no type check per call) */
  CpLaneKind   kind;
  gint         device_index;   /* into devices, -1 for host lanes */
  guint8      *markers;        /* bitmap: slices that are step markers (NULL: none) */
  guint        n_markers;
  gint8       *cls;            /* per slice: its CpSliceClass, computed once */
  guint32      cat_count[CP_TIME_N_CATEGORIES]; /* slices of each class (not empty) */
  CpIntervals *sync;           /* host lanes: union of blocking calls (during the phases) */
  CpSliceRef  *launch;         /* device lanes: launching host slice per slice */
} CpLaneInfo;

/* One stage of a tf.data (or Grain) input pipeline. */
typedef struct
{
  char    *stage;              /* "Map", "Prefetch", "TFRecord"... */
  guint    count;              /* events */
  gint64   total;              /* Σ durations */
  gint64   self_time;          /* less the stages nested in them */
} CpPipelineStage;

/* A device's own steps (its Steps line, its executions of the repeated
 * module, or its host's markers), by start. */
typedef struct
{
  gint    device;              /* ordinal */
  GArray *steps;               /* of CpStepStats */
} CpDeviceSteps;

typedef struct
{
  CpIntervals *kernels;        /* U(kernels) over the capture */
  CpIntervals *ops;            /* U(kernels, copies, memsets) */
  CpIntervals *compute;        /* U(non-collective kernels) */
  CpIntervals *comm;           /* U(collective kernels) */
  GArray      *lanes;          /* guint: device lane indexes */
} CpDeviceSets;

struct _CpAnalysis
{
  GObject          parent_instance;

  CpTrace         *trace;
  CpNameCache     *names;
  CpFrameworkInfo  framework;      /* cp_framework_detect() */
  /* The kind every device of the capture has, once at the start; mixed:
   * TRUE when two kinds meet (GPU and TPU, or another accelerator). */
  CpDeviceKind     devices_kind;
  gboolean         devices_mixed;
  GPtrArray       *not_checked;    /* of const CpRule *: rules that do not apply to the capture */
  double           seconds;

  /* XLA ops (XPlane captures only): class + 1 by name and by stats record,
   * 0 = not known yet; a record without hlo_category / hlo_op is 0xff. */
  gboolean         is_xplane;
  guint8          *xla_by_name;
  guint            n_xla_by_name;
  GHashTable      *xla_by_args;
  CpStr            key_hlo_category;
  CpStr            key_hlo_op;
  CpStr            key_program_id;

  guint            n_lanes;
  CpLaneInfo      *lanes;

  /* Steps and windows. */
  CpStepSource     step_source;
  GArray          *steps;          /* of CpStepStats */
  guint            n_dropped_steps;
  GArray          *windows;        /* of CpInterval, sorted, disjoint */
  CpIntervals     *window_set;
  gint64           window_time;
  GHashTable      *device_windows; /* device ordinal -> CpIntervals*: windows from the device's own steps */
  GArray          *device_steps;   /* of CpDeviceSteps: devices with steps of their own; NULL when none */
  GArray          *warmup_steps;   /* of CpStepStats: leading iterations left out as a warm-up */
  CpIntervals     *dropped_set;    /* the steps left out as empty or incomplete (while the window is settled) */
  gboolean         out_of_step;    /* devices step at different times: each step is one device's */
  double           steps_device_share; /* device busy time inside the steps found / all of it (before a fall-back); NAN without device work */
  double           device_work_share;  /* the same inside the windows used */
  gint64           warmup_start;   /* the warm-up before the first step; empty when start == end */
  gint64           warmup_end;
  gint64           warmup_compile; /* host compilation / autotuning time in it */
  GPtrArray       *notes;          /* of char*, NULL-terminated on request */

  /* The breakdown. */
  CpIntervals     *cat_union[CP_TIME_N_CATEGORIES];  /* raw unions: INPUT_WAIT only (the others: _cp_analysis_class_union ()) */
  CpIntervals     *exposed[CP_TIME_N_CATEGORIES];    /* flattened */
  CpIntervals     *all_host;       /* U of every classified slice */
  guint64          n_launch_calls; /* host calls named as launches */
  CpTimeSummary    summary[CP_TIME_N_CATEGORIES];

  /* Devices. */
  GArray          *devices;        /* of CpDeviceStats */
  CpDeviceSets    *device_sets;    /* parallel to devices */
  CpIntervals     *all_ops;        /* U(ops) of every device */
  CpTransferStats  transfers[CP_TRANSFER_N_KINDS];
  gint64           copy_bytes_timed[CP_TRANSFER_N_KINDS];  /* copies with bytes and a duration */
  gint64           copy_time_timed[CP_TRANSFER_N_KINDS];
  gboolean         has_flows;

  /* Kernels and host ops. */
  GArray          *kernels;        /* of CpKernelStats */
  GArray          *host_ops;       /* of CpHostOpStats */
  gint64           kernel_time;
  gint64           host_op_time;
  gint64           eligible_kernel_time;      /* launched by TC-eligible ops, or GEMM-like */
  gint64           eligible_fp32_time;        /* of those, neither TC nor 16-bit */
  GArray          *eligible_fp32;             /* of CpSliceRef, for evidence */
  gint64           compute_kernel_time;       /* non-collective kernel time */
  GArray          *roofline_kernels;          /* of CpRooflineStats (cp-roofline-pass.c) */
  GArray          *roofline_ops;

  /* The input pipeline (cp-input-pipeline.c), computed on first use. */
  GArray          *memory;         /* of CpMemoryStats (cp-memory.h); NULL until computed */
  GArray          *device_counters;/* of CpDeviceCounters (cp-device-counters.h); NULL until computed */
  GArray          *pipeline;       /* of CpPipelineStage, most self time first; NULL until computed */
  guint            pipeline_events;
  guint            pipeline_get_next;   /* IteratorGetNext / next-batch calls */
  gboolean         pipeline_prefetch;

  /* Confidence (cp-confidence.c), assessed before the rules. */
  CpConfidenceLevel confidence;
  GArray          *confidence_reasons; /* of CpConfidenceReason, texts owned */
  gboolean         devices_unrecorded; /* the capture names devices (or launches work) but no device activity survived */
  gboolean         host_only;          /* no device in the capture at all (a CPU-only run) */

  /* Findings. */
  GListStore      *findings;
  CpVerdict        verdict;
  char            *verdict_text;
  char            *section_titles[CP_N_FINDING_SECTIONS];

  /* CPU seconds of each phase of cp_analysis_new(), for tools/bench-analysis. */
  double           phase_cpu[8];
};

#define CP_ANALYSIS_N_PHASES 6
extern const char * const _cp_analysis_phase_names[CP_ANALYSIS_N_PHASES];

/* The parts, in the order cp_analysis_new() runs them. */
void _cp_analysis_find_devices_kind (CpAnalysis *self); /* cp-verdict.c */
/* Whether a host slice is an op of the statistics (not a runtime call, a
 * step marker or a Python function); nf its name's CP_NAME_* flags,
 * python_cat the string of "python_function" (cp-kernel-stats.c). */
gboolean _cp_analysis_is_host_op (CpAnalysis *self,
                                  guint       lane,
                                  guint       index,
                                  guint32     nf,
                                  CpStr       cat,
                                  CpStr       python_cat);
void _cp_analysis_prepare_lanes   (CpAnalysis *self);
void _cp_analysis_build_steps     (CpAnalysis *self);
/* The steady-state window (cp-steady.c), once the steps are found: devices
 * out of step, the warm-up left out, the devices' own windows, the window
 * sets, and the span where the devices work when the steps hold too little
 * of their work. */
void _cp_analysis_settle_window   (CpAnalysis *self);
/* Classifies every slice once (cp-breakdown.c), in the lanes phase. */
void _cp_analysis_classify_lanes  (CpAnalysis *self);
void _cp_analysis_breakdown       (CpAnalysis *self);
void _cp_analysis_device_metrics  (CpAnalysis *self);
void _cp_analysis_kernel_stats    (CpAnalysis *self);
/* The roofline pass (cp-roofline-pass.c), run inside the kernel statistics:
 * begun before their walk of the host lanes, given there every kernel
 * launched from inside an op, and finished after it. */
typedef struct _CpRooflineWalk CpRooflineWalk;
CpRooflineWalk *_cp_analysis_roofline_begin  (CpAnalysis     *self);
/* Kernel (lane, index), launched on host lane host_lane while the ops
 * stack_index[chain[0]], stack_index[chain[1]]... were open, innermost
 * first; memo is the caller's word per stack position, 0 when the op there
 * was pushed, that the pass uses to look at each op once. */
void            _cp_analysis_roofline_launch (CpAnalysis     *self,
                                              CpRooflineWalk *walk,
                                              guint           lane,
                                              guint           index,
                                              guint           host_lane,
                                              const guint32  *stack_index,
                                              gint32         *memo,
                                              const guint32  *chain,
                                              guint           n_chain);
/* Gives every kernel and op its figures, and frees walk. */
void            _cp_analysis_roofline        (CpAnalysis     *self,
                                              CpRooflineWalk *walk);
void _cp_analysis_roofline_to_json (CpAnalysis *self, JsonBuilder *b); /* cp-roofline-pass.c */
void _cp_analysis_evaluate_rules  (CpAnalysis *self);
/* The tf.data / Grain stages of the host planes (once). */
void _cp_analysis_input_pipeline  (CpAnalysis *self);
/* Assesses the confidence (cp-confidence.c) once the breakdown and the
 * devices are known; has_device: device work was recorded and traced. */
void _cp_analysis_assess_confidence (CpAnalysis *self,
                                     gboolean    has_device,
                                     gboolean    device_untraced);
/* Writes key: {level, reasons: [{id, level, text}]} (cp-confidence.c). */
void _cp_json_add_confidence (JsonBuilder              *b,
                              const char               *key,
                              CpConfidenceLevel         level,
                              const CpConfidenceReason *reasons,
                              guint                     n_reasons);
/* The kernel busy time of the least busy device with kernels, % of its
 * window time; NAN without one (cp-verdict.c). */
double _cp_analysis_busy_percent (CpAnalysis *self);
/* Called by the rules once the findings are sorted (cp-verdict.c). */
void _cp_analysis_build_verdict   (CpAnalysis *self);

/* Helpers. */
CpSliceClass _cp_analysis_classify_slice (CpAnalysis *self,
                                          guint       lane,
                                          guint       index,
                                          guint32     name_flags);
/* The union of the slices (not empty) whose class is in mask (bits of
 * CpTimeCategory) on the given lanes, all lanes when lanes is NULL: a new
 * set, built now. */
CpIntervals *_cp_analysis_class_union    (CpAnalysis  *self,
                                          const guint *lanes,
                                          guint        n_lanes,
                                          guint32      mask);
/* The XLA op class of a device slice (CP_XLA_OP_NONE outside XPlane
 * captures). */
CpXlaOpClass _cp_analysis_xla_class      (CpAnalysis *self,
                                          guint       lane,
                                          guint       index);
/* The slices open at a point of a walk down a lane in start order, each
 * with a value: as deep as the nesting, not as long as the lane. */
typedef struct
{
  guint32 *index;
  guint32 *value;
  guint    depth;
  guint    cap;
} CpNestStack;

/* Drops the slices that ended by start. */
static inline void
_cp_nest_stack_close (CpNestStack    *st,
                      const CpSlices *s,
                      gint64          start)
{
  while (st->depth > 0 && cp_slices_get_end (s, st->index[st->depth - 1]) <= start)
    st->depth--;
}

static inline void
_cp_nest_stack_push (CpNestStack *st,
                     guint32      index,
                     guint32      value)
{
  if (st->depth == st->cap)
    {
      st->cap = st->cap ? 2 * st->cap : 64;
      st->index = g_renew (guint32, st->index, st->cap);
      st->value = g_renew (guint32, st->value, st->cap);
    }
  st->index[st->depth] = index;
  st->value[st->depth] = value;
  st->depth++;
}

/* The value of the innermost open slice, or none. */
static inline guint32
_cp_nest_stack_top (const CpNestStack *st,
                    guint32            none)
{
  return st->depth > 0 ? st->value[st->depth - 1] : none;
}

static inline void
_cp_nest_stack_clear (CpNestStack *st)
{
  g_clear_pointer (&st->index, g_free);
  g_clear_pointer (&st->value, g_free);
  st->depth = st->cap = 0;
}

/* The class computed by the breakdown (or computed now). */
static inline CpSliceClass _cp_analysis_slice_class (CpAnalysis *self,
                                                     guint       lane,
                                                     guint       index);
gboolean     _cp_analysis_is_marker      (CpAnalysis *self,
                                          guint       lane,
                                          guint       index);
void         _cp_analysis_add_note       (CpAnalysis *self,
                                          const char *format,
                                          ...) G_GNUC_PRINTF (2, 3);
const CpGpuInfo *_cp_analysis_gpu_info   (CpAnalysis *self,
                                          guint       lane,
                                          guint       index);

static inline CpSliceClass
_cp_analysis_slice_class (CpAnalysis *self,
                          guint       lane,
                          guint       index)
{
  const CpLaneInfo *info = &self->lanes[lane];

  if (G_LIKELY (info->cls != NULL))
    return info->cls[index];
  return _cp_analysis_classify_slice (self, lane, index,
                                      cp_name_cache_lookup (self->names,
                                                            cp_slices_get_name (info->slices, index)));
}

G_END_DECLS
