/* cp-gen.h: the scenario generator's simulation, shared by its writers
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cp-gen simulates a PyTorch training loop on one GPU (host threads issuing
 * CUDA work, streams executing it in order, a bounded launch queue) and
 * produces, step by step, the events a profiler would record. Writers turn
 * the same events into Kineto JSON or XPlane protobuf, so both formats carry
 * identical lanes, slices and times. The generator deliberately does not use
 * the project's readers: it is an independent source of truth for them.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  CP_GEN_CAT_CPU_OP,
  CP_GEN_CAT_USER_ANNOTATION,
  CP_GEN_CAT_RUNTIME,
  CP_GEN_CAT_KERNEL,
  CP_GEN_CAT_MEMCPY,
  CP_GEN_CAT_MEMSET,
  CP_GEN_CAT_COUNTER,
} CpGenCat;

typedef enum
{
  CP_GEN_LANE_HOST,     /* a host thread: Kineto pid/tid, XPlane /host:CPU line */
  CP_GEN_LANE_STREAM,   /* a CUDA stream: Kineto device/stream, XPlane GPU line */
  CP_GEN_LANE_COUNTERS, /* Kineto "GPU 0 Counters", XPlane _counters_ line */
} CpGenLaneKind;

/* Activity types seen on a stream, for XPlane's "Stream #N(...)" names. */
typedef enum
{
  CP_GEN_STREAM_COMPUTE  = 1 << 0,
  CP_GEN_STREAM_H2D      = 1 << 1,
  CP_GEN_STREAM_D2H      = 1 << 2,
  CP_GEN_STREAM_MEMSET   = 1 << 3,
} CpGenStreamTypes;

#define CP_GEN_MAX_LANES 8

typedef struct
{
  CpGenLaneKind kind;
  gint64        id;          /* tid, stream id, or 0 for counters */
  const char   *name;        /* thread name ("python3"), or NULL */
  guint         types;       /* CpGenStreamTypes for streams */
} CpGenLane;

enum
{
  CP_GEN_EVF_SYNC = 1 << 0,  /* a synchronising runtime call (Kineto writes a lone ac2g 's') */
  CP_GEN_EVF_STEP = 1 << 1,  /* a ProfilerStep#N annotation */
};

/* One recorded activity. Times are ns from the trace origin. */
typedef struct
{
  gint64  ts;
  gint64  dur;
  guint64 corr;      /* CUDA correlation id, 0 for none */
  guint64 bytes;     /* memcpy and memset sizes */
  double  value;     /* counter samples */
  gint32  partner;   /* runtime call <-> GPU activity, index in the step's events; -1 none */
  guint32 name;      /* index into the name table */
  guint32 ext_id;    /* Kineto "External id", 0 for none */
  guint32 ev_idx;    /* Kineto "Ev Idx" of host events */
  guint32 flow_out;  /* forward op -> backward op (fwdbwd) id it starts, 0 none */
  guint32 flow_in;   /* fwdbwd id it ends, 0 none */
  guint32 step_num;
  guint16 spec;      /* kernel spec, memcpy spec, or cpu op args index */
  guint16 cbid;      /* CUDA runtime callback id */
  guint8  cat;       /* CpGenCat */
  guint8  lane;
  guint8  flags;
} CpGenEvent;

typedef struct
{
  const char *name;
  guint       grid[3];
  guint       block[3];
  guint       regs;
  guint       static_smem;
  guint       dynamic_smem;
  guint       occupancy;     /* est. achieved occupancy % */
} CpGenKernelSpec;

typedef enum
{
  CP_GEN_COPY_H2D,
  CP_GEN_COPY_D2H,
} CpGenCopyDir;

typedef struct
{
  const char  *name;         /* "Memcpy HtoD (Pinned -> Device)" */
  CpGenCopyDir dir;
  const char  *xplane_src;   /* memcpy_details kind_src */
  const char  *xplane_dst;   /* memcpy_details kind_dst */
} CpGenCopySpec;

typedef struct
{
  const char *name;
  const char *expect;        /* the rule the diagnosis must raise, NULL for healthy */
  const char *related;       /* comma-separated rules describing the same cause, or NULL */
  const char *summary;       /* one line for --list and the docs */
  guint       default_steps; /* steps without --steps or --size; 0: 6 */
  const char *truth;         /* truth members beyond ranges, for --list, or NULL */
} CpGenScenarioInfo;

typedef struct _CpGenSim CpGenSim;

/* Called for every merged ground-truth range (ns from the origin), in order. */
typedef void (*CpGenTruthFunc) (gint64 start, gint64 end, gpointer user_data);

/* Changes to a scenario, for pairs of captures of "the same run" with one
 * thing changed (set before any simulation is created; every simulation of
 * the process uses them). */
typedef struct
{
  gint64      loader_ns;     /* > 0: the DataLoader __next__ takes this long (mean) */
  const char *slow_kernel;   /* kernels whose name holds this run slow_factor× longer */
  double      slow_factor;
  guint       loader_workers; /* > 0: a num_workers=0 DataLoader gets this many workers */
} CpGenVariation;

void                     cp_gen_set_variation      (const CpGenVariation *variation);
/* Whether the scenario's DataLoader runs in the training process
 * (num_workers=0), the loaders --loader-workers can change. */
gboolean                 cp_gen_scenario_loads_in_process (const CpGenScenarioInfo *info);

/* An iteration of a loop without step markers (a capture taken without a
 * profiler schedule): from the start of one DataLoader __next__ to the
 * start of the next, the last one to the end of the capture. loading_ns
 * is the __next__ time inside it, gpu_busy_ns the union of the kernels'
 * intervals clipped to it. */
typedef struct
{
  guint    index;
  gboolean warmup;           /* the run's first iteration: context, autotuning, lazy loading */
  gint64   start;
  gint64   end;
  gint64   loading_ns;
  gint64   gpu_busy_ns;
} CpGenIteration;

/* Called for every iteration of such a loop, in order, once it has ended. */
typedef void (*CpGenIterationFunc) (const CpGenIteration *iteration,
                                    gpointer              user_data);

/* What the slowing did in this simulation: the kernels slowed and their
 * total duration as run (already multiplied). */
void                     cp_gen_sim_slowed         (CpGenSim *sim,
                                                    guint64  *n_kernels,
                                                    gint64   *total_ns);

/* One allocator event of a memory scenario, as Kineto writes "[memory]"
 * (profile_memory=True): on the main host thread; bytes < 0 frees addr;
 * allocated and reserved are the allocator's totals after it. */
typedef struct
{
  gint64  ts;
  gint64  bytes;
  guint64 addr;
  gint64  allocated;
  gint64  reserved;
} CpGenMemEvent;

/* The step's allocator events (none outside the memory scenarios), valid
 * until the next cp_gen_sim_step(). */
const CpGenMemEvent     *cp_gen_sim_memory_events  (CpGenSim *sim,
                                                    guint    *n_events);
/* The truth of a memory scenario so far: the largest allocated and
 * reserved totals and the events written; FALSE for other scenarios. */
gboolean                 cp_gen_sim_memory_truth   (CpGenSim *sim,
                                                    gint64   *peak_allocated,
                                                    gint64   *peak_reserved,
                                                    guint64  *n_events);
/* A memory scenario's allocated total at the end of each step so far (after
 * the step's last allocator event), in step order. */
const gint64            *cp_gen_sim_memory_step_ends (CpGenSim *sim,
                                                      guint    *n_steps);

const CpGenScenarioInfo *cp_gen_scenarios          (guint *n);
const CpGenScenarioInfo *cp_gen_scenario_lookup    (const char *name);

CpGenSim       *cp_gen_sim_new            (const CpGenScenarioInfo *scenario,
                                           guint64                  seed);
void            cp_gen_sim_free           (CpGenSim *sim);

/* Simulates the next training step. The events stay valid until the next
 * call; they are not sorted. */
const CpGenEvent *cp_gen_sim_step         (CpGenSim *sim,
                                           guint    *n_events);
/* Closes pending ground-truth ranges at the end of the capture. */
void            cp_gen_sim_finish         (CpGenSim *sim);
void            cp_gen_sim_set_truth_func (CpGenSim       *sim,
                                           CpGenTruthFunc  func,
                                           gpointer        user_data);
void            cp_gen_sim_set_iteration_func (CpGenSim           *sim,
                                               CpGenIterationFunc  func,
                                               gpointer            user_data);

guint           cp_gen_sim_steps_done     (CpGenSim *sim);
/* The latest end of any event so far (ns from the origin). */
gint64          cp_gen_sim_end_ns         (CpGenSim *sim);

const CpGenLane *cp_gen_sim_lanes         (CpGenSim *sim,
                                           guint    *n_lanes);
const char     *cp_gen_sim_name           (CpGenSim *sim,
                                           guint32   name);
guint           cp_gen_sim_n_names        (CpGenSim *sim);
const char     *cp_gen_sim_args           (CpGenSim *sim,
                                           guint16   args);
const CpGenKernelSpec *cp_gen_sim_kernel  (CpGenSim *sim,
                                           guint16   spec);
const CpGenCopySpec   *cp_gen_sim_copy    (guint16   spec);

/* Fixed facts of the simulated machine and run. */
typedef struct
{
  gint64      pid;               /* host process id */
  gint64      base_time_ns;      /* Kineto baseTimeNanoseconds (epoch ns) */
  gint64      origin_rel_ns;     /* origin relative to base_time_ns */
  const char *process_name;
  const char *hostname;
  const char *device_name;
  guint64     total_global_mem;
  guint       num_sms;
  guint       compute_major;
  guint       compute_minor;
  guint       clock_khz;
  guint64     memory_bandwidth;  /* bytes/s */
  guint       world_size;        /* > 1 when the run is distributed */
  guint       ranks_per_node;
  const char *trace_id;
} CpGenRunInfo;

const CpGenRunInfo *cp_gen_sim_run_info   (CpGenSim *sim);

/* Counter series names, used by both writers. */
#define CP_GEN_COUNTER_POWER "power_mw"
#define CP_GEN_COUNTER_CLOCK "sm_clock_mhz"

/* cp-gen --job DIR ...: the ranks of a simulated run (cp-gen-job.c). */
int cp_gen_job_main (int    argc,
                     char **argv);

G_END_DECLS
