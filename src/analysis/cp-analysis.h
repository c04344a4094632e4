/* cp-analysis.h: steps, time breakdown, device metrics, kernel statistics and
 * findings of one capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-trace.h"
#include "cp-finding.h"
#include "cp-framework.h"
#include "cp-rules.h"
#include "cp-intervals.h"
#include "cp-roofline.h"

G_BEGIN_DECLS

/* Where each instant of a step goes. The order is the priority of XProf's
 * flattening (event_span.h, high to low), so an instant where the device
 * computes while the host launches counts as compute. Host-side time is
 * counted only while no device-side category is active. */
typedef enum
{
  CP_TIME_COMPUTE_16,        /* DEVICE_COMPUTE_16 (150): 16/8-bit kernels */
  CP_TIME_COMPUTE_32,        /* DEVICE_COMPUTE_32 (140): other kernels */
  CP_TIME_DEVICE_TO_HOST,    /* DEVICE_TO_HOST (130) copies */
  CP_TIME_DEVICE_TO_DEVICE,  /* DEVICE_TO_DEVICE (120): DtoD and PtoP copies */
  CP_TIME_ASYNC_WAIT,        /* (115, Chokepoint) the device waits for XLA async ops: copy-done, *-done */
  CP_TIME_INPUT_WAIT,        /* HOST_WAIT_INPUT (110): DataLoader.__next__, IteratorGetNext */
  CP_TIME_COLLECTIVES,       /* DEVICE_COLLECTIVES (100): NCCL kernels, gloo ops */
  CP_TIME_LAUNCH,            /* HOST_PREPARE (90): kernel / copy launch calls */
  CP_TIME_HOST_TO_DEVICE,    /* HOST_TO_DEVICE (80) copies */
  CP_TIME_OTHER,             /* HOST_TO_HOST (70) and other copies, memsets */
  CP_TIME_RUNTIME,           /* HOST_RUNTIME (50): other CUDA / HIP API calls, syncs */
  CP_TIME_HOST_COMPUTE,      /* HOST_COMPUTE (10): framework ops, Python, annotations */
  CP_TIME_IDLE,              /* UNKNOWN (0): nothing recorded */
  CP_TIME_N_CATEGORIES
} CpTimeCategory;

const char *cp_time_category_to_string (CpTimeCategory category);
const char *cp_time_category_get_label (CpTimeCategory category);
guint       cp_time_category_get_priority (CpTimeCategory category);

typedef enum
{
  CP_STEPS_NONE,             /* no steps: the whole capture is one window */
  CP_STEPS_PROFILER,         /* ProfilerStep#N annotations */
  CP_STEPS_MARKERS,          /* other step markers (XPlane steps, step_num, group_id) */
  CP_STEPS_LOADER,           /* no markers: iterations from one enumerate(DataLoader) call to the next */
  CP_STEPS_OPTIMIZER,        /* no markers: iterations from one Optimizer.step end to the next */
  CP_STEPS_MODULES,          /* no markers: executions of the repeated top-level XLA module (the jitted step) */
  CP_STEPS_DEVICE_SPAN,      /* the steps found held too little of the device work: one window over the span where the devices work */
} CpStepSource;

const char *cp_step_source_to_string (CpStepSource source);
/* What delimits the steps, for people ("ProfilerStep#N", "step markers"...);
 * NULL for CP_STEPS_NONE. */
const char *cp_step_source_get_label (CpStepSource source);

typedef struct
{
  gint64      number;
  gint64      start;         /* the analysis window of the step */
  gint64      end;
  gint64      host_start;    /* the step marker */
  gint64      host_end;
  CpSliceRef  marker;
  gint64      time[CP_TIME_N_CATEGORIES];
  guint       n_kernels;     /* kernels starting inside the window */
  gboolean    outlier;       /* duration far from the median (robust z-score) */
  gint        device;        /* the device whose own step it is when devices
                              * step at different times; -1 for a step of all */
} CpStepStats;

/* A figure over the analysis windows: total, per-window mean, minimum and
 * maximum, and percent = 100 · total / Σ window time (ratio of sums). */
typedef struct
{
  gint64 total;
  gint64 mean;
  gint64 min;
  gint64 max;
  double percent;
} CpTimeSummary;

typedef struct
{
  gint     device;               /* ordinal */
  guint    lane;                 /* its kernel lane with the most kernel time */
  guint    n_kernels;
  gint64   kernel_time;          /* Σ kernel durations */
  gint64   kernel_busy;          /* |U(kernels)| over the whole capture */
  gint64   window_busy;          /* |U(kernels) ∩ windows| */
  double   utilization;          /* window_busy / window time */
  gint64   window_time;          /* Σ of the windows it is measured over (its own, or the shared ones) */
  double   sm_efficiency;        /* NAN when the capture lacks blocks per SM */
  double   achieved_occupancy;   /* percent; NAN when the capture lacks it */
  gint64   idle;                 /* window time with no kernel, copy or memset */
  gint64   idle_host_wait;       /* HTA: the next op was launched after the device went idle */
  gint64   idle_kernel_wait;     /* HTA: launched in time, gap < 30 µs */
  gint64   idle_other;           /* the rest, with idle before the first / after the last op */
  gint64   comm_time;            /* |U(collective kernels) ∩ windows| */
  gint64   comm_overlap;         /* |U(collectives) ∩ U(compute) ∩ windows| */
  gint64   tensor_core_time;     /* kernel time of tensor-core kernels */
  gint64   half_time;            /* kernel time of 16-bit kernels */
  guint    n_async_ops;          /* XLA async ops (copy-start/-done, *-done): not kernels */
  gint64   async_time;           /* Σ their durations: the device waits in them */
  gint64   async_wait;           /* |U(async ops) ∩ windows| */
  /* Launch statistics (HTA cuda_kernel_launch_stats). */
  guint    n_launched;           /* device ops matched to their launch call */
  guint    n_short;              /* launch ≤ 50 µs and device time < launch time */
  gint64   short_time;           /* device time of those */
  guint    n_runtime_outliers;   /* launch call > 50 µs */
  guint    n_delay_outliers;     /* launch delay > 100 µs */
  gint64   launch_delay_total;
  gint64   launch_delay_max;
  guint    n_kernels_under_10us;
  gint64   time_under_10us;
} CpDeviceStats;

typedef struct
{
  CpTransferKind kind;
  guint          count;
  gint64         bytes;          /* Σ bytes of the copies that state them */
  gint64         time;           /* Σ durations */
  double         bandwidth;      /* GB/s over copies with bytes and duration; NAN when none */
  double         peak_bandwidth; /* GB/s of the fastest copy; NAN when none */
  guint          n_pageable;
  gint64         pageable_time;
} CpTransferStats;

typedef struct
{
  CpStr    name;
  guint    count;
  gint64   total;
  gint64   min;
  gint64   max;
  double   share;                /* of all kernel time */
  gboolean tensor_core;
  gboolean half;
  double   occupancy;            /* duration-weighted mean, percent; NAN when absent */
  gint32   grid[3];              /* -1 when unknown or varying between launches */
  gint32   block[3];
} CpKernelStats;

typedef struct
{
  CpStr    name;
  gint64   count;
  gint64   time;
} CpKernelCount;

typedef struct
{
  CpStr    name;
  guint    count;
  gint64   total;                /* host time, inclusive */
  gint64   min;
  gint64   max;
  double   share;                /* of all host op time */
  gboolean tc_eligible;
  /* Kernels launched from inside the op, at any depth (TB "device total");
   * an op nested in an op of the same name counts them once. */
  guint    n_kernels;
  gint64   kernel_time;
  double   kernel_share;         /* of all kernel time */
  gint64   tensor_core_time;
  /* Kernels whose deepest enclosing op is this one (TB "device self"). */
  guint    n_self_kernels;
  gint64   self_kernel_time;
  GArray  *kernels;              /* of CpKernelCount (at any depth), by time; may be NULL */
} CpHostOpStats;

#define CP_ANALYSIS_ERROR (cp_analysis_error_quark ())

typedef enum
{
  CP_ANALYSIS_ERROR_CANCELLED,
} CpAnalysisError;

GQuark cp_analysis_error_quark (void);

#define CP_TYPE_ANALYSIS (cp_analysis_get_type ())

G_DECLARE_FINAL_TYPE (CpAnalysis, cp_analysis, CP, ANALYSIS, GObject)

/* Analyses a trace (blocking; the trace is only read). Fails only when
 * cancelled. */
CpAnalysis          *cp_analysis_new                (CpTrace              *trace,
                                                     GCancellable         *cancellable,
                                                     GError              **error);
/* The same in a worker thread. */
void                 cp_analysis_new_async          (CpTrace              *trace,
                                                     GCancellable         *cancellable,
                                                     GAsyncReadyCallback   callback,
                                                     gpointer              user_data);
CpAnalysis          *cp_analysis_new_finish         (GAsyncResult         *result,
                                                     GError              **error);

CpTrace             *cp_analysis_get_trace          (CpAnalysis *self);
double               cp_analysis_get_seconds        (CpAnalysis *self);

/* Steps and windows. */
CpStepSource         cp_analysis_get_step_source    (CpAnalysis *self);
const CpStepStats   *cp_analysis_get_steps          (CpAnalysis *self,
                                                     guint      *n_steps);
/* Whether the windows are steps (figures are per step), rather than the
 * whole capture or the span where the devices work. */
gboolean             cp_analysis_has_steps          (CpAnalysis *self);
guint                cp_analysis_get_n_dropped_steps (CpAnalysis *self);
/* The analysis windows: one per step, or the whole capture. */
const CpInterval    *cp_analysis_get_windows        (CpAnalysis *self,
                                                     guint      *n_windows);
gint64               cp_analysis_get_window_time    (CpAnalysis *self);
/* The warm-up before the first step (start-up, XLA compilation, autotuning,
 * the first module execution), excluded from the windows: FALSE when the
 * capture has no steps or they start at its beginning. compile_time is the
 * host time in compilation and autotuning inside it. */
gboolean             cp_analysis_get_warmup         (CpAnalysis *self,
                                                     gint64     *start,
                                                     gint64     *end,
                                                     gint64     *compile_time);
/* How the window the verdict is computed over was settled (cp-steady.c). */
typedef struct
{
  /* How the steps were found: "markers" (ProfilerStep#N and other step
   * markers), "dataloader", "optimizer", "repeated-module", "per-device"
   * (devices that step at different times, each over its own steps),
   * "device-activity" (the steps held too little of the device work: the
   * span where the devices work), or "none" (the whole capture). */
  const char *steps_source;
  guint       n_steps;             /* steady steps in the window */
  guint       n_warmup;            /* leading steps left out as a warm-up */
  gint64      warmup_time;         /* their time */
  gint64      step_median;         /* median steady step; 0 without steps */
  double      device_work_share;   /* 0-1: the devices' busy time inside the window / all of it; NAN without device work */
  double      steps_device_share;  /* the same inside the steps found, warm-up included, before a fall-back */
  gboolean    out_of_step;         /* devices step at different times */
  gboolean    device_span;         /* fell back to the span where the devices work */
} CpWindowInfo;

void                 cp_analysis_get_window_info    (CpAnalysis   *self,
                                                     CpWindowInfo *info);
/* The steps left out as a warm-up, in order (their start and end; no
 * breakdown). */
const CpStepStats   *cp_analysis_get_warmup_steps   (CpAnalysis *self,
                                                     guint      *n_steps);
/* Devices measured against windows from their own steps (their own Steps or
 * XLA Modules line) rather than the shared ones. */
gboolean             cp_analysis_device_has_own_windows (CpAnalysis *self,
                                                         gint        device);
/* The framework the capture was recorded from (cp_framework_detect()). */
const CpFrameworkInfo *cp_analysis_get_framework    (CpAnalysis *self);
/* The frameworks in the order their fixes are shown: the capture's first.
 * Returns how many lead (1, or 0 when the framework is not recognised and
 * all are shown alike); the others are folded under "Other frameworks". */
guint                cp_analysis_get_fix_order      (CpAnalysis  *self,
                                                     CpFramework  order[CP_N_FRAMEWORKS]);
/* The rules that do not apply to the capture's framework or device kind
 * (cp_rule_applies() says why), in catalog order. */
const CpRule * const *cp_analysis_get_unchecked_rules (CpAnalysis *self,
                                                      guint      *n_rules);
/* The device kind the rules are chosen for: TPU when every device is one,
 * else GPU. */
CpDeviceKind         cp_analysis_get_rule_device_kind (CpAnalysis *self);
/* Statements about the capture and the window (no steps, no device...). */
const char * const  *cp_analysis_get_notes          (CpAnalysis *self);

void                 cp_analysis_get_time_summary   (CpAnalysis     *self,
                                                     CpTimeCategory  category,
                                                     CpTimeSummary  *summary);
/* Window durations: total, mean, min, max (percent = 100). */
void                 cp_analysis_get_step_summary   (CpAnalysis     *self,
                                                     CpTimeSummary  *summary);
/* The set of instants given to a category inside the windows (the
 * flattened breakdown). */
const CpIntervals   *cp_analysis_get_category_set   (CpAnalysis     *self,
                                                     CpTimeCategory  category);

const CpDeviceStats *cp_analysis_get_devices        (CpAnalysis *self,
                                                     guint      *n_devices);
const CpTransferStats *cp_analysis_get_transfers    (CpAnalysis *self,
                                                     guint      *n_kinds);
/* Sorted by total time, longest first. */
const CpKernelStats *cp_analysis_get_kernels        (CpAnalysis *self,
                                                     guint      *n_kernels);
const CpHostOpStats *cp_analysis_get_host_ops       (CpAnalysis *self,
                                                     guint      *n_ops);
gint64               cp_analysis_get_kernel_time    (CpAnalysis *self);
/* The performance model (cp-roofline.h) per kernel name, or per host op
 * name with figures, most device time first. */
const CpRooflineStats *cp_analysis_get_roofline     (CpAnalysis *self,
                                                     gboolean    host_ops,
                                                     guint      *n);
/* A device's ceilings for a precision; CP_PEAK_UNKNOWN and 0 when neither
 * the capture nor the table of known devices gives them. */
void                 cp_analysis_get_device_peak    (CpAnalysis   *self,
                                                     gint          ordinal,
                                                     CpPrecision   precision,
                                                     CpPeakSource *source,
                                                     double       *tflops,
                                                     double       *bandwidth);

/* Findings (CpFinding), in the one order of cp_findings_compare(): idle
 * causes by time at stake, then speed-ups, then info. */
GListModel          *cp_analysis_get_findings       (CpAnalysis *self);
CpFinding           *cp_analysis_lookup_finding     (CpAnalysis *self,
                                                     const char *rule_id);
/* The highest severity among the findings; FALSE when there are none. */
gboolean             cp_analysis_get_worst_severity (CpAnalysis *self,
                                                     CpSeverity *severity);
/* TRUE when a finding is above info. */
gboolean             cp_analysis_has_warnings       (CpAnalysis *self);

/* How far the verdict can be trusted, and why not more (cp-confidence.c). */
typedef enum
{
  CP_CONFIDENCE_HIGH,
  CP_CONFIDENCE_MEDIUM,
  CP_CONFIDENCE_LOW,
} CpConfidenceLevel;

typedef struct
{
  const char        *id;     /* "truncated", "damaged", "no-device-events", "few-steps",
                              * "unrecorded", "window-coverage", "devices-out-of-step" */
  CpConfidenceLevel  level;  /* the level this reason alone gives */
  const char        *text;   /* translated, a phrase: "1 step" */
} CpConfidenceReason;

/* "high", "medium", "low". */
const char          *cp_confidence_level_to_string  (CpConfidenceLevel level);
/* The lowest level any reason gives (HIGH without reasons); reasons in the
 * order they were found. */
CpConfidenceLevel    cp_analysis_get_confidence     (CpAnalysis                *self,
                                                     const CpConfidenceReason **reasons,
                                                     guint                     *n_reasons);
/* The line shown under the verdict when the confidence is not high:
 * "Provisional: 1 step; 93% of the window has no recorded activity"
 * (translated); NULL when it is high. */
char                *cp_analysis_dup_confidence_banner (CpAnalysis *self);

/* The verdict: why the accelerator waits, in one sentence, with the figures
 * it is made of. Built with the findings. */
#define CP_VERDICT_MAX_SPEEDUPS 8

typedef struct
{
  CpIdleCause cause;
  const char *rule_id;        /* its finding with the most time at stake */
  gint64      time;           /* the device time it costs (that time at stake) */
  double      percent;        /* of step time */
} CpVerdictCause;

/* A device's own wait, when devices step at different times and wait for
 * different things. */
typedef struct
{
  gint        device;         /* ordinal */
  double      busy_percent;   /* of its own step time */
  CpIdleCause cause;          /* what it waits for most */
  double      percent;        /* of its own step time */
} CpVerdictDevice;

#define CP_VERDICT_MAX_DEVICES 16
/* A device busy this much of the window is not said to wait: the verdict
 * says it is busy, then what speeds it up. */
#define CP_VERDICT_BUSY_PERCENT 90.0

typedef struct
{
  const char     *text;              /* translated */
  const char     *primary_rule;      /* the first cause, else the first speed-up; NULL when healthy */
  const char     *device_word;       /* cp_analysis_get_device_word() */
  double          busy_percent;      /* kernel busy time of the least busy device, % of step time; NAN without one */
  double          loading_percent;   /* data loading (host time in the input iterator), % of step time; NAN without input */
  guint           n_causes;          /* idle causes above info, most device time first */
  CpVerdictCause  causes[CP_N_IDLE_CAUSES];
  guint           n_speedups;        /* speed-ups above info, in findings order */
  const char     *speedups[CP_VERDICT_MAX_SPEEDUPS];
  double          compute_percent;   /* non-collective kernel busy time of the least busy device, % of its window time; NAN without one */
  gboolean        busy_first;        /* busy CP_VERDICT_BUSY_PERCENT or more: said first, no cause named */
  gboolean        host_only;         /* no device in the capture: the causes are the host's */
  gboolean        withheld;          /* no device activity survived: no idle cause is named */
  guint           n_devices;         /* per device, when devices step apart and wait for different things */
  CpVerdictDevice devices[CP_VERDICT_MAX_DEVICES];
} CpVerdict;

const CpVerdict     *cp_analysis_get_verdict        (CpAnalysis *self);
/* The one word the verdict and the section titles use for the device:
 * "GPU", "TPU", or "device" when the capture mixes kinds (translated). */
const char          *cp_analysis_get_device_word    (CpAnalysis *self);
/* Whether every device of the capture is a TPU (device word "TPU"). */
gboolean             cp_analysis_devices_are_tpu    (CpAnalysis *self);
/* Whether the capture's devices are of more than one kind (a GPU and a
 * TPU, or another accelerator): fixes then say "device". */
gboolean             cp_analysis_devices_are_mixed  (CpAnalysis *self);
/* "Why the GPU Waits", "Speed-ups Once the GPU Is Busy", "Also Noted". */
const char          *cp_analysis_get_section_title  (CpAnalysis       *self,
                                                     CpFindingSection  section);

/* Slices for highlighting: every device slice with this kernel name, or every
 * host slice with this name (appended to out, CpSliceRef). */
void                 cp_analysis_collect_kernel_slices (CpAnalysis *self,
                                                        CpStr       name,
                                                        GArray     *out);
void                 cp_analysis_collect_host_slices   (CpAnalysis *self,
                                                        CpStr       name,
                                                        GArray     *out);

/* The whole result as JSON (docs/diagnose-json.md). */
#define CP_ANALYSIS_JSON_SCHEMA_VERSION 3
char                *cp_analysis_to_json            (CpAnalysis *self,
                                                     gboolean    pretty);

/* The chain from a slice back to the code behind it (with_stack and
 * with_modules captures): for a kernel or copy first the host call that
 * launched it, then every slice around that call (or around the host
 * slice itself) on its thread, innermost first: ops, nn.Module scopes,
 * Python frames, other scopes (record_function, steps). Empty for a
 * device slice with no launch link. Free with g_array_unref(). */
typedef enum
{
  CP_SOURCE_LAUNCH,   /* the runtime call that launched a kernel or copy */
  CP_SOURCE_OP,       /* a framework op (aten::mm) */
  CP_SOURCE_MODULE,   /* an nn.Module scope ("nn.Module: Linear_0") */
  CP_SOURCE_FRAME,    /* a Python frame ("model.py(42): forward") */
  CP_SOURCE_SCOPE,    /* anything else around it */
} CpSourceKind;

typedef struct
{
  CpSourceKind kind;
  CpSliceRef   ref;
} CpSourceLink;

GArray              *cp_analysis_source_chain       (CpAnalysis *self,
                                                     CpSliceRef  ref);
/* Where an XLA op or kernel comes from (XPlane captures with the programs'
 * HLO): the slice's hlo_op and program_id stats (on a TPU's XLA Ops line
 * the slice's name is the op), looked up in the capture's HLO op metadata.
 * NULL when the capture does not say. */
const CpXlaSource   *cp_analysis_xla_source         (CpAnalysis *self,
                                                     CpSliceRef  ref);
/* The kernel slices whose HLO op comes from that line of code (a
 * CpXlaSource code, as cp_analysis_kernels_by_source() groups them). */
void                 cp_analysis_collect_xla_code_slices (CpAnalysis *self,
                                                          CpStr       code,
                                                          GArray     *out);
/* "launch", "op", "module", "frame", "scope". */
const char          *cp_source_kind_to_string       (CpSourceKind kind);

/* Whether a Python frame is the interpreter's or a library's (torch,
 * site-packages, threading, multiprocessing, runpy, concurrent, asyncio,
 * or a "<built-in ...>" name) rather than the user's code. */
gboolean             cp_source_frame_is_library     (const char *name);

/* Kernel time by what is around the launches. CP_SOURCE_MODULE: every
 * nn.Module around a launch counts the kernel once, so a module's figures
 * hold its submodules'. CP_SOURCE_FRAME: the innermost frame of the
 * user's code around it (library frames skipped), each kernel once; a
 * kernel of an XLA program without one counts under its HLO op's line of
 * code (CpXlaSource.code).
 * Kernels without a launch, or with no such module or frame, are left
 * out. Largest time first; a chain per kernel, so call it off the main
 * thread on big captures. Free with g_array_unref(). */
typedef struct
{
  CpStr   name;
  guint64 kernels;
  gint64  time;      /* ns, summed kernel durations */
} CpSourceGroup;

GArray              *cp_analysis_kernels_by_source  (CpAnalysis   *self,
                                                     CpSourceKind  kind,
                                                     GCancellable *cancellable);

G_END_DECLS
