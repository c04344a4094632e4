/* cp-history.h: the run history, a database of every capture's figures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One database (SQLite by default, at $XDG_DATA_HOME/chokepoint/
 * history.sqlite) holds one run per capture content: its path and content
 * hash, wall-clock start, format and framework, the step-time summary, the
 * breakdown, per-device figures, each finding's severity and time at stake,
 * the top kernels and the labels the user gave. The figures are those of
 * the analysis (cp-analysis.h), as `diagnose --json` prints them. The
 * schema, its versions and the metric names are in docs/history.md.
 *
 * A database that is damaged, of another program or of a newer schema is
 * never written to: opening it fails with the reason, and it stays as it is.
 * Writes are transactions; two processes writing at once wait for each
 * other, and a content already known is not added twice.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "analysis/cp-analysis.h"

G_BEGIN_DECLS

/* The schema version this build writes and reads (PRAGMA user_version). */
#define CP_HISTORY_SCHEMA_VERSION 2
/* How many kernels a run keeps, by total time. */
#define CP_HISTORY_TOP_KERNELS 20

#define CP_HISTORY_ERROR (cp_history_error_quark ())

typedef enum
{
  CP_HISTORY_ERROR_DAMAGED,    /* not a database, or a damaged one: left as it is */
  CP_HISTORY_ERROR_NEWER,      /* a schema newer than this build reads: left as it is */
  CP_HISTORY_ERROR_FOREIGN,    /* a database of another program: left as it is */
  CP_HISTORY_ERROR_MISSING,    /* opened for reading and there is none yet */
  CP_HISTORY_ERROR_IO,         /* the folder or the file could not be made or read */
  CP_HISTORY_ERROR_FAILED,     /* the engine failed (busy for too long, disk full...) */
  CP_HISTORY_ERROR_NOT_FOUND,  /* no run with that id or hash */
  CP_HISTORY_ERROR_INVALID,    /* a bad metric name, label or date */
} CpHistoryError;

GQuark cp_history_error_quark (void);

typedef struct
{
  char *key;
  char *value;
} CpHistoryLabel;

typedef struct
{
  char   *category;        /* cp_time_category_to_string() */
  gint64  total_ns;
  gint64  mean_ns;
  double  percent;         /* of step time */
} CpHistoryBreakdown;

typedef struct
{
  gint64  device;          /* ordinal */
  char   *kind;            /* "gpu", "tpu", "other" */
  gint64  kernels;
  gint64  kernel_time_ns;
  gint64  kernel_busy_ns;
  gint64  window_busy_ns;
  gint64  window_ns;
  gint64  idle_ns;
  double  utilization;     /* window_busy_ns / window_ns, 0..1 */
} CpHistoryDevice;

typedef struct
{
  char   *rule;
  char   *severity;             /* "high", "moderate", "info" */
  char   *measured_severity;
  gint64  time_at_stake_ns;
  gint64  time_at_stake_per_step_ns;
  char   *metric;               /* the id of the rule's metric (its first figure), or NULL */
  double  value;                /* its value; NAN when none */
} CpHistoryFinding;

typedef struct
{
  gint64  rank;            /* 1 = the most kernel time */
  char   *name;
  gint64  count;
  gint64  total_ns;
  double  share;           /* of all kernel time */
} CpHistoryKernel;

typedef struct
{
  gint64   id;                 /* 0 until stored */
  char    *hash;               /* "xxh64:<hex>" of the capture's bytes (CP_HISTORY_HASH_PREFIX) */
  char    *path;               /* absolute path when recorded */
  gint64   file_bytes;
  char    *format;             /* the load report's: "chrome-json+gzip", "xplane"... */
  char    *framework;          /* "pytorch", "jax", "tensorflow", or NULL */
  gboolean has_started;
  gint64   started_ns;         /* the capture's wall-clock origin, epoch ns */
  gint64   mtime_ns;           /* the file's modification time, epoch ns */
  gint64   recorded_ns;        /* when the run was recorded, epoch ns */
  gint64   time_ns;            /* the run's place in time: started, else mtime */
  char    *generator;          /* "chokepoint 0.x" */
  char    *step_source;        /* cp_step_source_to_string() */
  gint64   steps;              /* analysis windows */
  gint64   window_ns;          /* Σ window lengths */
  gint64   duration_ns;
  gint64   kernel_time_ns;
  gint64   step_mean_ns;
  gint64   step_p50_ns;        /* nearest rank over the window lengths */
  gint64   step_p90_ns;
  gint64   step_min_ns;
  gint64   step_max_ns;
  double   busy_percent;       /* the verdict's: least busy device, NAN without one */
  double   loading_percent;    /* the verdict's: data loading, NAN without input */
  char    *worst_severity;     /* NULL when there are no findings */
  gint64   warnings;           /* findings above info */
  char    *primary_rule;
  GArray  *labels;             /* CpHistoryLabel, sorted by key */
  GArray  *breakdown;          /* CpHistoryBreakdown, in priority order */
  GArray  *devices;            /* CpHistoryDevice */
  GArray  *findings;           /* CpHistoryFinding, in the findings' order */
  GArray  *kernels;            /* CpHistoryKernel, by rank */
} CpHistoryRun;

CpHistoryRun *cp_history_run_new            (void);
void          cp_history_run_free           (CpHistoryRun *run);
/* The figures of an analysis; hash from cp_history_hash_file(). Labels come
 * from a "chokepoint" object among the capture's metadata, if it has one. */
CpHistoryRun *cp_history_run_new_from_analysis (CpAnalysis *analysis,
                                                const char *hash);
/* Sets (or replaces) a label. */
void          cp_history_run_set_label      (CpHistoryRun *run,
                                             const char   *key,
                                             const char   *value);
const char   *cp_history_run_get_label      (CpHistoryRun *run,
                                             const char   *key);
/* The run as a JSON object (docs/history.md), for `history show --json`. */
char         *cp_history_run_to_json        (CpHistoryRun *run,
                                             gboolean      pretty);
/* The same as one value of a builder; full FALSE leaves out the breakdown,
 * devices, findings and kernels (`history list --json`). */
void          cp_history_run_build_json     (CpHistoryRun *run,
                                             JsonBuilder  *builder,
                                             gboolean      full);

/* The run's metrics as OpenMetrics text (gauges, ending in "# EOF"),
 * which the Prometheus text format reads too (docs/history.md). */
char         *cp_history_run_to_openmetrics (const CpHistoryRun *run);

/* Parses "KEY=VALUE": the key is 1-64 characters of [A-Za-z0-9_.-], the
 * value any UTF-8 up to 256 bytes. */
gboolean      cp_history_parse_label        (const char  *text,
                                             char       **key,
                                             char       **value,
                                             GError     **error);

/* A run's identity: "xxh64:<16 hex digits>", the XXH64 (seed 0) of the
 * file's bytes; for a folder (an XPlane profile folder), of each regular
 * file's relative path, a NUL and its bytes, by path. Runs recorded before
 * version 2 of the history carry "sha256:<hex>" (docs/history.md). */
#define CP_HISTORY_HASH_PREFIX "xxh64:"
#define CP_HISTORY_LEGACY_HASH_PREFIX "sha256:"
char         *cp_history_hash_file          (GFile        *file,
                                             GCancellable *cancellable,
                                             GError      **error);

/* Where the history lives: $CHOKEPOINT_DATABASE when set, else
 * $CHOKEPOINT_HISTORY, else g_get_user_data_dir()/chokepoint/history.sqlite.
 * A location starting with postgresql:// (or postgres://) is a libpq
 * connection URI, used when built with PostgreSQL; anything else is an
 * SQLite file. */
char         *cp_history_default_location   (void);
gboolean      cp_history_location_is_postgres (const char *location);

typedef struct _CpHistory CpHistory;

/* Opens (create: and makes, with its folder, then migrates) the history.
 * Read-only callers pass create FALSE: a history that does not exist is
 * CP_HISTORY_ERROR_MISSING. */
CpHistory    *cp_history_open               (const char  *location,
                                             gboolean     create,
                                             GError     **error);
void          cp_history_close              (CpHistory   *self);
/* For messages: a PostgreSQL location without its password. */
const char   *cp_history_get_location       (CpHistory   *self);

/* Stores a run in one transaction. *added is FALSE when a run with its hash
 * is already there (run->id is then that run's id), or when a run recorded
 * under the SHA-256 name has the same path, size and SHA-256: that run is
 * then renamed to run->hash. */
gboolean      cp_history_add                (CpHistory    *self,
                                             CpHistoryRun *run,
                                             gboolean     *added,
                                             GError      **error);
/* Every hash known, as a set of strings. */
GHashTable   *cp_history_get_hashes         (CpHistory    *self,
                                             GError      **error);
/* The run's id when the hash is known, else 0. */
gint64        cp_history_lookup_hash        (CpHistory    *self,
                                             const char   *hash,
                                             GError      **error);

typedef struct
{
  gboolean  has_since;
  gint64    since_ns;          /* runs whose time_ns is at or after this */
  GArray   *labels;            /* CpHistoryLabel that must all match; may be NULL */
  guint     limit;             /* 0: no limit (list: the latest runs) */
} CpHistoryFilter;

/* Runs matching the filter, oldest first, with their labels and summary
 * figures (not their breakdown, devices, findings or kernels). */
GPtrArray    *cp_history_list               (CpHistory             *self,
                                             const CpHistoryFilter *filter,
                                             GError               **error);
/* One run with everything it holds; id or "xxh64:..." hash (a unique
 * prefix of at least 8 hex digits will do, with or without "xxh64:" or
 * "sha256:"). */
CpHistoryRun *cp_history_get_run            (CpHistory    *self,
                                             const char   *id_or_hash,
                                             GError      **error);
/* Removes a run and all it holds. */
gboolean      cp_history_forget             (CpHistory    *self,
                                             gint64        id,
                                             GError      **error);

typedef struct
{
  gint64 id;
  gint64 time_ns;
  double value;                /* NAN when the run does not have the metric */
  double baseline;             /* cp_history_mark_regressions(): median of the earlier values; NAN before */
  gboolean regression;         /* worse than the baseline by more than the threshold */
} CpHistoryPoint;

/* The metric names `history trend` takes (docs/history.md); NULL-terminated
 * list of the fixed ones (breakdown.<category>.percent,
 * finding.<rule>.time_at_stake, device.<n>.utilization come on top). */
const char * const *cp_history_metric_names (void);
gboolean      cp_history_metric_is_valid    (const char  *metric,
                                             GError     **error);
/* The unit of a metric: "ns", "%", "count". */
const char   *cp_history_metric_unit        (const char  *metric);
/* A metric's value in a run (NAN when the run lacks it: no devices, no
 * input), the same as trend gives once the run is stored. */
gboolean      cp_history_run_get_metric     (const CpHistoryRun *run,
                                             const char         *metric,
                                             double             *value,
                                             GError            **error);

/* A condition over a metric, "METRIC OP NUMBER [UNIT]": OP is <, <=, >,
 * >=, == or !=; times take ns (default), us, ms or s, shares % or nothing.
 * Errors are CP_HISTORY_ERROR_INVALID and name the character where the
 * condition goes wrong. */
typedef enum
{
  CP_HISTORY_LT,
  CP_HISTORY_LE,
  CP_HISTORY_GT,
  CP_HISTORY_GE,
  CP_HISTORY_EQ,
  CP_HISTORY_NE,
} CpHistoryCompare;

typedef struct _CpHistoryCondition CpHistoryCondition;

CpHistoryCondition *cp_history_condition_parse  (const char          *text,
                                                 GError             **error);
void          cp_history_condition_free     (CpHistoryCondition *cond);
const char   *cp_history_condition_get_text (CpHistoryCondition *cond);
const char   *cp_history_condition_get_metric (CpHistoryCondition *cond);
CpHistoryCompare cp_history_condition_get_op (CpHistoryCondition *cond);
/* In the metric's unit: ns, %, count. */
double        cp_history_condition_get_threshold (CpHistoryCondition *cond);
/* Whether it holds for the run (never when the run lacks the metric);
 * value: the metric's value in the run. */
gboolean      cp_history_condition_holds    (CpHistoryCondition *cond,
                                             const CpHistoryRun *run,
                                             double             *value);

/* Which way a metric gets worse: 1 when higher is worse (step time, time
 * at stake, input share), -1 when lower is (utilisation, compute shares),
 * 0 when neither (steps, duration). */
int           cp_history_metric_worse       (const char  *metric);

/* Marks each point whose value is worse than the median of the values of
 * the points before it by more than threshold (0.05: 5%), in the metric's
 * direction; sets every point's baseline. O(n log n): two heaps. */
void          cp_history_mark_regressions   (GArray      *points,
                                             const char  *metric,
                                             double       threshold);

/* One point per run matching the filter, oldest first (CpHistoryPoint). */
GArray       *cp_history_trend              (CpHistory             *self,
                                             const char            *metric,
                                             const CpHistoryFilter *filter,
                                             GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpHistoryRun, cp_history_run_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpHistory, cp_history_close)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpHistoryCondition, cp_history_condition_free)

G_END_DECLS
