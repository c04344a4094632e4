/* cp-job.h: the ranks of one distributed run, opened as one job
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job is several captures of one run, one per rank. cp_job_open() reads
 * them in parallel (one thread per core), analyses each alone with
 * cp_analysis_new(), then:
 *
 *  - names each rank: from Kineto's distributedInfo (rank, world_size,
 *    backend), else from "rank<N>" in the file name, else by order, and
 *    says which (CpRankSource). A file that cannot be read, that repeats a
 *    rank, or whose world size differs from the others' is left out with a
 *    note; the rest opens.
 *  - finds each rank's collectives: NCCL/RCCL kernels on the device when
 *    the rank has them, else the host's "gloo:" / "nccl:" annotations; the
 *    n-th collective of each rank is the same operation. Sizes come from
 *    record_param_comms ("Collective name", "In msg nelems", "dtype",
 *    "Group size", "Process Group Name") when a rank has one per collective.
 *  - aligns clocks: ranks that name the same host share its clock; the
 *    others are shifted so that the ends of their collectives meet those
 *    of the first rank (median of the differences) unless that offset is
 *    within three median absolute deviations of them (no evidence of
 *    another clock); the residual (the largest difference left) is kept.
 *  - per collective: arrival and end on every rank, skew, the last rank,
 *    the wait of the others, bus bandwidth by NCCL's formulas, and the
 *    time each rank had its transfer exposed (not overlapped by compute).
 *  - job findings (CpJobFinding): straggler, exposed communication, load
 *    imbalance, collective mismatch.
 *
 * Times in CpJobCollective are ns from the job origin (the earliest
 * aligned rank origin). A rank's own time t maps to job time
 * t + cp_job_rank_to_job_offset(). Nothing here includes GTK.
 */

#pragma once

#include <gio/gio.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-finding.h"
#include "model/cp-trace.h"

G_BEGIN_DECLS

typedef enum
{
  CP_RANK_FROM_DISTRIBUTED_INFO,  /* Kineto's distributedInfo.rank */
  CP_RANK_FROM_FILE_NAME,         /* "rank-3", "rank_3", "rank3" in the name */
  CP_RANK_FROM_ORDER,             /* the order the files were given in */
} CpRankSource;

/* "distributed_info", "file_name", "order" for JSON. */
const char *cp_rank_source_to_string (CpRankSource source);

/* Where each file of a job being opened is. */
typedef enum
{
  CP_JOB_FILE_WAITING,       /* for a reading thread */
  CP_JOB_FILE_READING,
  CP_JOB_FILE_ANALYSING,
  CP_JOB_FILE_DONE,
  CP_JOB_FILE_FAILED,        /* left out; cp_job_get_notes() says why */
} CpJobFileState;

/* The progress of each file while a job opens, written by the reading
 * threads and read from any thread (a window's timer): a reference-counted
 * record of n_files states and byte counts. */
typedef struct _CpJobProgress CpJobProgress;

CpJobProgress  *cp_job_progress_new       (guint          n_files);
CpJobProgress  *cp_job_progress_ref       (CpJobProgress *self);
void            cp_job_progress_unref     (CpJobProgress *self);
guint           cp_job_progress_get_n_files (CpJobProgress *self);
/* File index's state, and the bytes of it read so far and in all (the
 * file's size; compressed bytes for compressed input; 0 before it is
 * opened). */
CpJobFileState  cp_job_progress_get_file  (CpJobProgress *self,
                                           guint          index,
                                           guint64       *done,
                                           guint64       *total);
/* The bytes read and in all over every file opened so far, and how many
 * files are done or failed. */
void            cp_job_progress_get_total (CpJobProgress *self,
                                           guint64       *done,
                                           guint64       *total,
                                           guint         *n_finished);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpJobProgress, cp_job_progress_unref)

typedef struct
{
  gboolean       align_clocks;  /* TRUE: align hosts by collective ends */
  CpJobProgress *progress;      /* NULL, or one for as many files as are opened */
} CpJobOptions;

typedef struct
{
  char         *path;            /* as the user gave it (parse name) */
  CpTrace      *trace;
  CpAnalysis   *analysis;
  gint          rank;
  gint          world_size;      /* -1 when the capture does not say */
  char         *backend;         /* "nccl", "gloo"... or NULL */
  CpRankSource  rank_source;
  char         *host;            /* the capture's host name, NULL when unknown */
  gint64        clock_offset;    /* ns added to this rank's absolute times */
  gint64        clock_residual;  /* largest |end − reference end| after alignment */
  gboolean      clock_aligned;   /* the offset came from the collectives */
  gboolean      device_collectives; /* collectives are device kernels */
  guint         n_collectives;
  gint64        comm_time;       /* |U(this rank's collectives)| */
  gint64        exposed_comm;    /* Σ exposed of its matched collectives */
  gint64        wait_time;       /* Σ waits for later ranks */
  gint64        compute_time;    /* |U(compute)| between its first and last collective */
  gint64        caused_wait;     /* Σ waits of others at collectives it came last to */
  /* Its own figures: from its analysis, or in a merged job (trace and
   * analysis NULL) from its summary. */
  gint64        origin_abs;      /* epoch ns of its time 0 */
  guint         n_steps;         /* analysis windows */
  gint64        window_time;     /* their total, ns */
  CpTimeSummary step;            /* the step times */
  gint64        breakdown[CP_TIME_N_CATEGORIES];  /* per category, the total */
  double       *utilization;     /* per device */
  guint         n_devices;
  gint          fix_lead;        /* the CpFramework whose fixes come first, -1 none */
  CpConfidenceLevel confidence;  /* its analysis's (or its summary's) confidence */
  GArray       *confidence_reasons; /* of CpConfidenceReason, id and text owned; may be NULL */
} CpJobRank;

typedef struct
{
  guint    index;          /* the n-th collective of its group */
  char    *group;          /* process group name ("0" when not said) */
  char    *name;           /* "all_reduce", "all_gather"... */
  gint64   bytes;          /* message size per rank, -1 unknown */
  char    *dtype;          /* NULL unknown */
  gint     group_size;     /* -1 unknown */
  gint64  *arrival;        /* per job rank (index into cp_job_get_rank()); job ns */
  gint64  *end;
  CpSliceRef *slices;      /* per rank: the collective's slice in that rank's trace */
  gint64  *exposed;        /* per rank: ns of the transfer (from the last
                            * arrival to its end) no compute of the rank
                            * overlaps; the wait before is not counted */
  gint64   first_arrival;
  gint64   last_arrival;
  gint64   skew;           /* last − first arrival */
  guint    last_rank;      /* job rank index of the last to arrive */
  gint64   wait_total;     /* Σ over ranks of last_arrival − arrival */
  gint64   transfer_time;  /* end − arrival of the last rank */
  double   bus_bandwidth;  /* GB/s by NCCL's formulas; NaN unknown */
  char    *mismatch;       /* what disagrees across ranks, NULL when all agree */
} CpJobCollective;

typedef struct
{
  const char  *id;            /* "job-straggler", "job-exposed-comm", ... */
  CpSeverity   severity;
  char        *title;
  char        *summary;
  gint         rank;          /* the rank concerned, -1 for the job */
  gint64       time_at_stake; /* ns */
  const char  *fixes[CP_N_FRAMEWORKS][3]; /* untranslated (N_), NULL-ended */
} CpJobFinding;

#define CP_TYPE_JOB (cp_job_get_type ())
G_DECLARE_FINAL_TYPE (CpJob, cp_job, CP, JOB, GObject)

/* The captures of a folder: its *.pt.trace.json[.gz] files, or when there
 * are none the hosts' XSpaces of the TensorBoard run it opens
 * (cp_xplane_folder_hosts()) when there are several, or else its
 * *.json[.gz] files, sorted by name with numbers by their
 * value ("worker2" before "worker10": the order ranks take when nothing
 * else says theirs). NULL with error set when
 * the folder cannot be listed or holds none. */
GPtrArray             *cp_job_list_folder      (GFile         *folder,
                                                GError       **error);

/* The memory free for reading a job: CHOKEPOINT_MEMORY_AVAILABLE (bytes)
 * when set, else the system's MemAvailable; 0 when neither tells. */
guint64                cp_job_memory_available (void);
/* How many of the files, first to last, fit in available bytes once read
 * (each rank at three times cp_load_estimate_peak(), for its model and its
 * analysis, summed; nine tenths of available may be used); need_all and need_fitting (may be NULL): what all of them and
 * those take. All fit when available or an estimate is 0 (unknown). */
guint                  cp_job_count_fitting    (GFile * const *files,
                                                guint          n_files,
                                                guint64        available,
                                                guint64       *need_all,
                                                guint64       *need_fitting);

/* TRUE when file is a folder of per-rank Kineto captures
 * (*.pt.trace.json[.gz]) or a TensorBoard run of several hosts: a job, not
 * one capture. Blocking. */
gboolean               cp_job_is_folder        (GFile         *file);

/* Reads and analyses the files as the ranks of one job. Fails (NULL, error
 * set) only when fewer than one rank could be read, or when cancelled; the
 * files left out are named in cp_job_get_notes(). options may be NULL
 * (clocks aligned). */
CpJob                 *cp_job_open             (GFile * const      *files,
                                                guint               n_files,
                                                const CpJobOptions *options,
                                                GCancellable       *cancellable,
                                                GError            **error);

/* The same in a worker thread (GTask), for the window; the files are
 * copied. */
void                   cp_job_open_async       (GFile * const      *files,
                                                guint               n_files,
                                                const CpJobOptions *options,
                                                GCancellable       *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer            user_data);
CpJob                 *cp_job_open_finish      (GAsyncResult       *result,
                                                GError            **error);

/* One rank's summary for a job merged elsewhere (cp_job_merge()): the
 * capture read, analysed and summarised as JSON, "chokepoint-rank/1"
 * (docs/diagnose-json.md). Blocking. NULL with error when it cannot be
 * read. */
char                  *cp_job_rank_summary     (GFile         *file,
                                                GCancellable  *cancellable,
                                                GError       **error);
/* The job of the ranks whose summaries these are, as cp_job_open() of
 * their captures would give it (what the straggler did while the others
 * waited is then what it did before those collectives). A summary that
 * cannot be read or is not one is named in the notes and left out; NULL
 * with error when none is left. Blocking. */
CpJob                 *cp_job_merge            (GFile * const      *summaries,
                                                guint               n,
                                                const CpJobOptions *options,
                                                GError            **error);

/* Ranks sorted by rank number. */
guint                  cp_job_get_n_ranks      (CpJob *self);
const CpJobRank       *cp_job_get_rank         (CpJob *self,
                                                guint  index);
/* The frameworks in the order their fixes are shown: the first rank's
 * framework first. Returns how many lead (1, or 0 when it is not known). */
guint                  cp_job_get_fix_order    (CpJob       *self,
                                                CpFramework  order[CP_N_FRAMEWORKS]);
/* The world size the ranks agree on, -1 when none says. */
gint                   cp_job_get_world_size   (CpJob *self);
/* Job ns = rank ns + this. */
gint64                 cp_job_rank_to_job_offset (CpJob *self,
                                                  guint  index);

/* Collectives in order of their first arrival. */
guint                  cp_job_get_n_collectives (CpJob *self);
const CpJobCollective *cp_job_get_collective   (CpJob *self,
                                                guint  index);
/* Number of collectives whose name, size or dtype disagree across ranks,
 * plus one when the ranks have different numbers of collectives. */
guint                  cp_job_get_n_mismatches (CpJob *self);

/* Job findings: the most severe first, then by time at stake. */
guint                  cp_job_get_n_findings   (CpJob *self);
const CpJobFinding    *cp_job_get_finding      (CpJob *self,
                                                guint  index);
/* The finding with that id ("job-straggler"), or NULL. */
const CpJobFinding    *cp_job_find_finding     (CpJob      *self,
                                                const char *id);

/* What was guessed or left out, one translated sentence each; NULL-ended. */
const char * const    *cp_job_get_notes        (CpJob *self);
/* The job's confidence: the lowest of its ranks', with each rank's reasons
 * led by "rank N: " (a new array of CpConfidenceReason, texts owned; free
 * with g_array_unref()). */
CpConfidenceLevel      cp_job_get_confidence   (CpJob   *self,
                                                GArray **reasons);

/* The job as JSON (docs/diagnose-json.md, "Jobs"). */
char                  *cp_job_to_json          (CpJob    *self,
                                                gboolean  pretty);

G_END_DECLS
