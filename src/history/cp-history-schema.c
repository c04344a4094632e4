/* cp-history-schema.c: the one schema of the run history, and its versions
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Written once for every engine: {id}, {int}, {real} and {text} become the
 * engine's types (cp-history-backend.h). Migration n takes a database from
 * version n - 1 to n; each runs in the transaction that also sets the
 * version, so a database is at one version or the next, never between.
 * docs/history.md describes every table and column; keep it true.
 */

#include "config.h"

#include <string.h>

#include "cp-history.h"
#include "cp-history-backend.h"

static const char * const migrations[] = {
  /* 1: runs, with their labels, breakdown, devices, findings and kernels. */
  "CREATE TABLE runs ("
  "  id {id},"
  "  content_hash {text} NOT NULL UNIQUE,"
  "  path {text} NOT NULL,"
  "  file_bytes {int} NOT NULL,"
  "  format {text},"
  "  framework {text},"
  "  started_ns {int},"
  "  mtime_ns {int} NOT NULL,"
  "  recorded_ns {int} NOT NULL,"
  "  time_ns {int} NOT NULL,"
  "  generator {text} NOT NULL,"
  "  step_source {text} NOT NULL,"
  "  steps {int} NOT NULL,"
  "  window_ns {int} NOT NULL,"
  "  duration_ns {int} NOT NULL,"
  "  kernel_time_ns {int} NOT NULL,"
  "  step_mean_ns {int} NOT NULL,"
  "  step_p50_ns {int} NOT NULL,"
  "  step_p90_ns {int} NOT NULL,"
  "  step_min_ns {int} NOT NULL,"
  "  step_max_ns {int} NOT NULL,"
  "  busy_percent {real},"
  "  loading_percent {real},"
  "  worst_severity {text},"
  "  warnings {int} NOT NULL,"
  "  primary_rule {text}"
  ");\n"
  "CREATE INDEX runs_by_time ON runs (time_ns, id);\n"
  "CREATE TABLE run_labels ("
  "  run_id {int} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
  "  key {text} NOT NULL,"
  "  value {text} NOT NULL,"
  "  PRIMARY KEY (run_id, key)"
  ");\n"
  "CREATE INDEX run_labels_by_value ON run_labels (key, value, run_id);\n"
  "CREATE TABLE run_breakdown ("
  "  run_id {int} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
  "  category {text} NOT NULL,"
  "  total_ns {int} NOT NULL,"
  "  mean_ns {int} NOT NULL,"
  "  percent {real} NOT NULL,"
  "  PRIMARY KEY (run_id, category)"
  ");\n"
  "CREATE TABLE run_devices ("
  "  run_id {int} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
  "  device {int} NOT NULL,"
  "  kind {text} NOT NULL,"
  "  kernels {int} NOT NULL,"
  "  kernel_time_ns {int} NOT NULL,"
  "  kernel_busy_ns {int} NOT NULL,"
  "  window_busy_ns {int} NOT NULL,"
  "  window_ns {int} NOT NULL,"
  "  idle_ns {int} NOT NULL,"
  "  utilization {real},"
  "  PRIMARY KEY (run_id, device)"
  ");\n"
  "CREATE TABLE run_findings ("
  "  run_id {int} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
  "  position {int} NOT NULL,"
  "  rule {text} NOT NULL,"
  "  severity {text} NOT NULL,"
  "  measured_severity {text} NOT NULL,"
  "  time_at_stake_ns {int} NOT NULL,"
  "  time_at_stake_per_step_ns {int} NOT NULL,"
  "  metric {text},"
  "  value {real},"
  "  PRIMARY KEY (run_id, rule)"
  ");\n"
  "CREATE TABLE run_kernels ("
  "  run_id {int} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
  "  rank {int} NOT NULL,"
  "  name {text} NOT NULL,"
  "  count {int} NOT NULL,"
  "  total_ns {int} NOT NULL,"
  "  share {real} NOT NULL,"
  "  PRIMARY KEY (run_id, rank)"
  ");\n",
  /* 2: runs are named by XXH64; those named by SHA-256 before are found
   * by path and size when their capture is recorded again. */
  "CREATE INDEX runs_by_path ON runs (path, file_bytes);\n",
};

G_STATIC_ASSERT (G_N_ELEMENTS (migrations) == CP_HISTORY_SCHEMA_VERSION);

const char *
cp_history_schema_migration (guint version)
{
  if (version == 0 || version > G_N_ELEMENTS (migrations))
    return NULL;
  return migrations[version - 1];
}

char *
cp_history_schema_render (const CpHistoryBackend *backend,
                          const char             *sql)
{
  GString *out = g_string_new (sql);

  g_string_replace (out, "{id}", backend->type_id, 0);
  g_string_replace (out, "{int}", backend->type_int, 0);
  g_string_replace (out, "{real}", backend->type_real, 0);
  g_string_replace (out, "{text}", backend->type_text, 0);
  return g_string_free (out, FALSE);
}
