/* cp-job-private.h: what cp-job.c and cp-job-json.c share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "analysis/cp-intervals.h"
#include "analysis/cp-job.h"

G_BEGIN_DECLS

/* A collective as one rank saw it, in the rank's own time. */
typedef struct
{
  gint64      start;
  gint64      end;
  /* The strings are the trace's (name) or the slot's string chunk's. */
  const char *name;        /* the slice's name */
  const char *op;          /* "all_reduce"... (record_param_comms' name when known) */
  gint64      bytes;       /* -1 unknown */
  const char *dtype;
  gint        group_size;  /* -1 unknown */
  const char *group;       /* NULL: the default group */
  CpSliceRef  ref;
} RankColl;

/* What a rank was doing in some windows: per name, its time there and its
 * deepest row. */
typedef struct
{
  const char *name;
  gint64      ns;
  guint       depth;       /* row + 1 */
} CpJobActivity;

#define CP_JOB_BEFORE 3    /* activities kept per collective in a summary */

typedef struct
{
  GFile       *file;
  CpJobRank    r;
  gboolean     have_rank;
  gboolean     used;       /* part of the job */
  char        *error;      /* why it could not be read */
  GArray      *colls;      /* RankColl, by start */
  GStringChunk *strings;   /* the colls' op, dtype and group, each once */
  CpIntervals *compute;    /* kernels (or host aten ops) other than collectives */
  guint        n_params;   /* record_param_comms with a name, when not one per collective */
  gint64       to_job;     /* job ns = rank ns + to_job */
  gboolean     ok;         /* read (a capture, or a rank's summary) */
  /* A rank from its summary (cp-job-merge.c): per collective, in the
   * order of colls, what the rank did between the previous one and its
   * arrival (CP_JOB_BEFORE CpJobActivity each, by time; ref.index of a
   * collective is its position). */
  CpJobActivity *before;
} Slot;

struct _CpJob
{
  GObject          parent_instance;
  Slot            *slots;
  guint            n_slots;
  guint           *order;      /* slots used, by rank */
  guint            n_ranks;
  gint             world_size;
  gboolean         align;
  CpJobCollective *colls;
  guint            n_colls;
  guint            n_mismatches;
  GArray          *findings;   /* CpJobFinding */
  GPtrArray       *notes;      /* char *, NULL-ended on demand */
};

/* The job findings (cp-job-find.c), once the figures are in. */
void cp_job_find (CpJob *self);

/* What s did in n windows (pairs of its ns): CpJobActivity, unsorted;
 * collectives, step markers and whole-capture spans left out. */
GArray     *_cp_job_activity       (Slot          *s,
                                    const gint64  *windows,
                                    guint          n_windows);
/* Of activities, the one it was mostly in: the most time, the deepest of
 * those within 80% of it; NULL when none. */
const char *_cp_job_mostly         (const CpJobActivity *activities,
                                    guint                n);

/* A rank's "breakdown_ns" and "utilization" members (cp-job-json.c). */
void        _cp_job_add_breakdown (JsonBuilder     *b,
                                   const CpJobRank *r);
/* Rank, world size, backend and host from the capture's metadata. */
void        _cp_job_read_distributed_info (Slot *s);
/* Confidence reasons with owned id and text (cp-job.c). */
GArray     *_cp_job_new_reasons       (void);
void        _cp_job_add_reason        (GArray            *reasons,
                                       const char        *id,
                                       CpConfidenceLevel  level,
                                       const char        *text);
/* A slot's own figures from its analysis (origin, steps, breakdown...). */
void        _cp_job_facts_from_analysis (Slot *s);
/* Its collectives and compute (s->colls, s->compute) from its trace. */
void        _cp_job_find_collectives    (Slot *s);
/* Its compute per analysis window, from s->compute. */
gint64      _cp_job_compute_per_step    (Slot *s);
/* Once the slots are read (or parsed): ranks named, collectives matched,
 * figures and findings. FALSE with error when no rank is left. */
gboolean    _cp_job_finish              (CpJob   *self,
                                         GError **error);
/* Reads a slot's capture and analyses it (s->file), telling progress
 * (may be NULL) as file index; s->ok says how it went. */
void        _cp_job_read_slot           (Slot                 *s,
                                         GCancellable         *cancellable,
                                         CpJobProgress        *progress,
                                         guint                 index);
void        _cp_job_slot_clear          (Slot *s);

/* The operation of a collective kernel or annotation: "nccl:all_reduce",
 * "ncclDevKernel_AllGather_RING_LL" → "all_reduce", "all_gather". */
char *_cp_job_collective_op (const char *name);

/* An XLA collective as its HLO text tells it (cp-job-xla.c). */
typedef enum
{
  CP_HLO_SYNC,
  CP_HLO_START,   /* all-reduce-start: the transfer begins */
  CP_HLO_DONE,    /* all-reduce-done: it ends */
} CpHloPhase;

typedef struct
{
  char       op[32];       /* "all_reduce", "all_gather"... */
  CpHloPhase phase;
  gint64     bytes;        /* the result's shape, -1 unknown (a tuple) */
  char       dtype[16];    /* "f32", "bf16"... ("" unknown) */
  gint       group_size;   /* replica_groups' size, -1 not said */
} CpHloCollective;

/* Parses "%all-reduce.5 = f32[1024]{0} all-reduce(%x), replica_groups={{0,1}}"
 * or a bare op name ("all-reduce-start.2"); FALSE when the op is not a
 * collective. */
gboolean _cp_job_parse_hlo_collective (const char      *text,
                                       CpHloCollective *out);
/* An XPlane rank's collectives (RankColl, appended to dev unsorted) and
 * its device compute, from its first device that has collectives. */
void     _cp_job_xla_collectives      (Slot            *s,
                                       GArray          *dev,
                                       CpIntervals     *compute);

G_END_DECLS
