/* cp-history-private.h: what the history's files share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-history.h"
#include "cp-history-backend.h"

G_BEGIN_DECLS

typedef enum
{
  CP_HISTORY_METRIC_FIXED,
  CP_HISTORY_METRIC_BREAKDOWN,     /* breakdown.<category>.percent */
  CP_HISTORY_METRIC_FINDING,       /* finding.<rule>.time_at_stake */
  CP_HISTORY_METRIC_DEVICE,        /* device.<n>.utilization */
} CpHistoryMetricKind;

typedef struct
{
  const char *name;
  const char *sql;        /* its value over runs r */
  const char *unit;       /* "ns", "%", "count" */
} CpHistoryMetric;

/* Parses a metric name: its kind, the fixed one, or the middle part
 * (category, rule id, device ordinal) to free. */
gboolean _cp_history_metric_parse (const char              *name,
                                   CpHistoryMetricKind     *kind,
                                   const CpHistoryMetric  **fixed,
                                   char                   **part,
                                   GError                 **error);

/* For the queries of other files (cp-history-fleet.c): the history's
 * engine and connection, and the filter's " WHERE ..." over runs r with
 * its bindings from *k on. */
const CpHistoryBackend *_cp_history_get_backend (CpHistory             *self);
CpHistoryConn          *_cp_history_get_conn    (CpHistory             *self);
void                    _cp_history_filter_sql  (const CpHistoryFilter *filter,
                                                 GString               *sql);
void                    _cp_history_filter_bind (CpHistory             *self,
                                                 CpHistoryStmt         *stmt,
                                                 const CpHistoryFilter *filter,
                                                 guint                 *k);

/* The SHA-256 name of runs recorded before the XXH64 one
 * (cp-history-hash.c). */
char *_cp_history_hash_file_legacy (GFile         *file,
                                    GCancellable  *cancellable,
                                    GError       **error);

G_END_DECLS
