/* cp-history-fleet.h: fleet-wide answers from the run history
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `chokepoint history fleet`: over the runs a filter selects, how often each
 * finding occurs, the worst runs of each metric, the distribution of GPU
 * utilisation per value of a label (node, image, model...), and each label
 * value's regressions in the week before `until` against the week before
 * that. The same SQL on SQLite and PostgreSQL; docs/history.md defines
 * every figure.
 */

#pragma once

#include "cp-history.h"

G_BEGIN_DECLS

typedef struct
{
  char   *rule;
  gint64  runs;                /* runs with the finding, at any severity */
  gint64  above_info;          /* of those, at low severity or above */
  double  percent;             /* 100 * runs / the runs selected */
  gint64  time_at_stake_ns;    /* summed over those runs */
} CpFleetFinding;

typedef struct
{
  gint64  id;
  double  value;               /* in the metric's unit */
  char   *path;
} CpFleetRun;

typedef struct
{
  char   *metric;
  char   *unit;
  int     worse;               /* cp_history_metric_worse() */
  GArray *runs;                /* CpFleetRun, worst first */
} CpFleetWorst;

typedef struct
{
  char   *key;                 /* NULL: every run */
  char   *value;
  gint64  runs;                /* runs with a utilisation */
  double  mean, min, p10, p50, p90, max;   /* %; percentiles by nearest rank */
} CpFleetUtilization;

typedef struct
{
  char   *key;                 /* NULL: every run */
  char   *value;
  char   *metric;
  char   *unit;
  gint64  runs_before, runs_after;
  double  before, after;       /* means over the previous and the last week */
  double  change_percent;      /* 100 * (after - before) / |before| */
  gboolean regression;         /* worse by more than the threshold */
} CpFleetChange;

typedef struct _CpHistoryFleet CpHistoryFleet;

struct _CpHistoryFleet
{
  gint64     runs;             /* runs selected */
  gint64     until_ns;         /* the end of the last week */
  double     threshold;        /* percent */
  char     **keys;
  GPtrArray *findings;         /* CpFleetFinding, most prevalent first */
  GPtrArray *worst;            /* CpFleetWorst, one per metric */
  GPtrArray *utilization;      /* CpFleetUtilization, every run first, then per key and value */
  GPtrArray *changes;          /* CpFleetChange, per group and metric with runs in both weeks */
};

/* The metrics whose worst runs and weekly changes are shown. */
extern const char * const cp_history_fleet_metrics[];

/* keys: the labels to group by (NULL: node, image, model); worst: runs
 * per metric; threshold: percent. */
CpHistoryFleet *cp_history_fleet          (CpHistory             *self,
                                           const CpHistoryFilter *filter,
                                           const char * const    *keys,
                                           guint                  worst,
                                           gint64                 until_ns,
                                           double                 threshold,
                                           GError               **error);
void            cp_history_fleet_free     (CpHistoryFleet        *fleet);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpHistoryFleet, cp_history_fleet_free)

G_END_DECLS
