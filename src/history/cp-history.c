/* cp-history.c: opening, migrating, writing and reading the run history
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything here goes through the engine's table of functions
 * (cp-history-backend.h); the SQL is the subset SQLite and PostgreSQL share
 * (INSERT ... ON CONFLICT DO NOTHING RETURNING, DELETE ... RETURNING).
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-history.h"
#include "cp-history-backend.h"
#include "cp-history-private.h"
#include "analysis/cp-rules.h"

struct _CpHistory
{
  const CpHistoryBackend *be;
  CpHistoryConn          *conn;
  char                   *location;
};

/* A prepared statement with its engine, freed by g_autoptr. */
typedef struct
{
  const CpHistoryBackend *be;
  CpHistoryStmt          *stmt;
} Stmt;

static void
stmt_free (Stmt *s)
{
  if (s == NULL)
    return;
  s->be->finalize (s->stmt);
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Stmt, stmt_free)

static Stmt *
prepare (CpHistory   *self,
         const char  *sql,
         GError     **error)
{
  CpHistoryStmt *stmt = self->be->prepare (self->conn, sql, error);
  Stmt *s;

  if (stmt == NULL)
    return NULL;
  s = g_new (Stmt, 1);
  s->be = self->be;
  s->stmt = stmt;
  return s;
}

static const char *
text_or_null (Stmt  *s,
              guint  column)
{
  return s->be->column_text (s->stmt, column);
}

static gboolean
migrate (CpHistory  *self,
         GError    **error)
{
  gint64 version = 0;
  gboolean foreign = FALSE;

  if (!self->be->begin (self->conn, error))
    return FALSE;
  /* Read again under the write lock: another process may have migrated. */
  if (!self->be->get_version (self->conn, &version, &foreign, error))
    goto fail;
  for (gint64 v = version + 1; v <= CP_HISTORY_SCHEMA_VERSION; v++)
    {
      g_autofree char *sql = cp_history_schema_render (self->be, cp_history_schema_migration ((guint) v));

      if (!self->be->exec (self->conn, sql, error) ||
          !self->be->set_version (self->conn, v, error))
        goto fail;
    }
  if (!self->be->commit (self->conn, error))
    goto fail;
  return TRUE;

fail:
  self->be->rollback (self->conn);
  return FALSE;
}

CpHistory *
cp_history_open (const char  *location,
                 gboolean     create,
                 GError     **error)
{
  g_autoptr(CpHistory) self = g_new0 (CpHistory, 1);
  gint64 version = 0;
  gboolean foreign = FALSE;

  g_return_val_if_fail (location != NULL, NULL);

  if (cp_history_location_is_postgres (location))
    {
#if HAVE_POSTGRESQL
      self->be = &cp_history_postgres_backend;
      self->location = cp_history_postgres_redact (location);
#else
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                   _("This Chokepoint was built without PostgreSQL, so it cannot use the history %s "
                     "(build it with -Dpostgresql=enabled, or give an SQLite file)"), location);
      return NULL;
#endif
    }
  else
    {
      self->be = &cp_history_sqlite_backend;
      self->location = g_strdup (location);
    }
  if (create && self->be == &cp_history_sqlite_backend)
    {
      g_autofree char *dir = g_path_get_dirname (location);

      if (g_mkdir_with_parents (dir, 0700) != 0)
        {
          int saved = errno;

          g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                       _("Cannot make the folder %s for the history: %s"), dir, g_strerror (saved));
          return NULL;
        }
    }
  self->conn = self->be->open (location, create, error);
  if (self->conn == NULL)
    return NULL;
  if (!self->be->get_version (self->conn, &version, &foreign, error))
    return NULL;
  if (foreign)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_FOREIGN,
                   _("%s is a database of another program, not a Chokepoint history; it was left as it is"),
                   self->location);
      return NULL;
    }
  if (version > CP_HISTORY_SCHEMA_VERSION)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_NEWER,
                   _("The history %s was written by a newer Chokepoint (schema version %" PRId64
                     ", this one reads up to %d); it was left as it is"),
                   self->location, version, CP_HISTORY_SCHEMA_VERSION);
      return NULL;
    }
  if (!self->be->ready (self->conn, error))
    return NULL;
  if (version < CP_HISTORY_SCHEMA_VERSION && !migrate (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

gboolean
cp_history_location_is_postgres (const char *location)
{
  return g_str_has_prefix (location, "postgresql://") || g_str_has_prefix (location, "postgres://");
}

void
cp_history_close (CpHistory *self)
{
  if (self == NULL)
    return;
  if (self->conn != NULL)
    self->be->close (self->conn);
  g_free (self->location);
  g_free (self);
}

const char *
cp_history_get_location (CpHistory *self)
{
  return self->location;
}

/* Writing. */

static const char insert_run_sql[] =
  "INSERT INTO runs (content_hash, path, file_bytes, format, framework, started_ns, mtime_ns,"
  " recorded_ns, time_ns, generator, step_source, steps, window_ns, duration_ns, kernel_time_ns,"
  " step_mean_ns, step_p50_ns, step_p90_ns, step_min_ns, step_max_ns, busy_percent,"
  " loading_percent, worst_severity, warnings, primary_rule)"
  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
  " ON CONFLICT (content_hash) DO NOTHING RETURNING id";

static gboolean
insert_children (CpHistory     *self,
                 CpHistoryRun  *run,
                 GError       **error)
{
  const CpHistoryBackend *be = self->be;
  g_autoptr(Stmt) labels = prepare (self, "INSERT INTO run_labels (run_id, key, value) VALUES (?, ?, ?)", error);
  g_autoptr(Stmt) breakdown = labels ? prepare (self, "INSERT INTO run_breakdown (run_id, category, total_ns, mean_ns, percent)"
                                                      " VALUES (?, ?, ?, ?, ?)", error) : NULL;
  g_autoptr(Stmt) devices = breakdown ? prepare (self, "INSERT INTO run_devices (run_id, device, kind, kernels, kernel_time_ns,"
                                                       " kernel_busy_ns, window_busy_ns, window_ns, idle_ns, utilization)"
                                                       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", error) : NULL;
  g_autoptr(Stmt) findings = devices ? prepare (self, "INSERT INTO run_findings (run_id, position, rule, severity,"
                                                      " measured_severity, time_at_stake_ns, time_at_stake_per_step_ns,"
                                                      " metric, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", error) : NULL;
  g_autoptr(Stmt) kernels = findings ? prepare (self, "INSERT INTO run_kernels (run_id, rank, name, count, total_ns, share)"
                                                      " VALUES (?, ?, ?, ?, ?, ?)", error) : NULL;

  if (kernels == NULL)
    return FALSE;

#define STEP_DONE(s) G_STMT_START {                                  \
    if (be->step ((s)->stmt, error) != CP_HISTORY_STEP_DONE)           \
      return FALSE;                                                    \
    be->reset ((s)->stmt);                                             \
  } G_STMT_END

  for (guint i = 0; i < run->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (run->labels, CpHistoryLabel, i);

      be->bind_int (labels->stmt, 1, run->id);
      be->bind_text (labels->stmt, 2, l->key);
      be->bind_text (labels->stmt, 3, l->value);
      STEP_DONE (labels);
    }
  for (guint i = 0; i < run->breakdown->len; i++)
    {
      const CpHistoryBreakdown *x = &g_array_index (run->breakdown, CpHistoryBreakdown, i);

      be->bind_int (breakdown->stmt, 1, run->id);
      be->bind_text (breakdown->stmt, 2, x->category);
      be->bind_int (breakdown->stmt, 3, x->total_ns);
      be->bind_int (breakdown->stmt, 4, x->mean_ns);
      be->bind_double (breakdown->stmt, 5, isfinite (x->percent) ? x->percent : 0.0);
      STEP_DONE (breakdown);
    }
  for (guint i = 0; i < run->devices->len; i++)
    {
      const CpHistoryDevice *x = &g_array_index (run->devices, CpHistoryDevice, i);

      be->bind_int (devices->stmt, 1, run->id);
      be->bind_int (devices->stmt, 2, x->device);
      be->bind_text (devices->stmt, 3, x->kind);
      be->bind_int (devices->stmt, 4, x->kernels);
      be->bind_int (devices->stmt, 5, x->kernel_time_ns);
      be->bind_int (devices->stmt, 6, x->kernel_busy_ns);
      be->bind_int (devices->stmt, 7, x->window_busy_ns);
      be->bind_int (devices->stmt, 8, x->window_ns);
      be->bind_int (devices->stmt, 9, x->idle_ns);
      be->bind_double (devices->stmt, 10, x->utilization);
      STEP_DONE (devices);
    }
  for (guint i = 0; i < run->findings->len; i++)
    {
      const CpHistoryFinding *x = &g_array_index (run->findings, CpHistoryFinding, i);

      be->bind_int (findings->stmt, 1, run->id);
      be->bind_int (findings->stmt, 2, i);
      be->bind_text (findings->stmt, 3, x->rule);
      be->bind_text (findings->stmt, 4, x->severity);
      be->bind_text (findings->stmt, 5, x->measured_severity);
      be->bind_int (findings->stmt, 6, x->time_at_stake_ns);
      be->bind_int (findings->stmt, 7, x->time_at_stake_per_step_ns);
      be->bind_text (findings->stmt, 8, x->metric);
      be->bind_double (findings->stmt, 9, x->value);
      STEP_DONE (findings);
    }
  for (guint i = 0; i < run->kernels->len; i++)
    {
      const CpHistoryKernel *x = &g_array_index (run->kernels, CpHistoryKernel, i);

      be->bind_int (kernels->stmt, 1, run->id);
      be->bind_int (kernels->stmt, 2, x->rank);
      be->bind_text (kernels->stmt, 3, x->name);
      be->bind_int (kernels->stmt, 4, x->count);
      be->bind_int (kernels->stmt, 5, x->total_ns);
      be->bind_double (kernels->stmt, 6, isfinite (x->share) ? x->share : 0.0);
      STEP_DONE (kernels);
    }
#undef STEP_DONE
  return TRUE;
}

/* Runs recorded before the XXH64 name kept their SHA-256 one. A run with
 * the capture's path and size and a SHA-256 name is that capture when the
 * SHA-256 of the file still agrees; it is then renamed (in a transaction of
 * its own, and only if nobody renamed or forgot it meanwhile) and the new
 * run is not added. Returns the renamed run's id, 0 when there is none, -1
 * on a database error. */
static gint64
adopt_legacy_run (CpHistory     *self,
                  CpHistoryRun  *run,
                  GError       **error)
{
  const CpHistoryBackend *be = self->be;
  g_autoptr(Stmt) s = NULL;
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GPtrArray) hashes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GFile) file = NULL;
  g_autofree char *legacy = NULL;
  CpHistoryStep step;
  gint64 id = 0;

  if (run->path == NULL || !g_str_has_prefix (run->hash, CP_HISTORY_HASH_PREFIX))
    return 0;

  /* By the index on (path, file_bytes). */
  s = prepare (self, "SELECT id, content_hash FROM runs WHERE path = ? AND file_bytes = ?"
                     " AND content_hash LIKE 'sha256:%'", error);
  if (s == NULL)
    return -1;
  be->bind_text (s->stmt, 1, run->path);
  be->bind_int (s->stmt, 2, run->file_bytes);
  while ((step = be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      gint64 row = be->column_int (s->stmt, 0);

      g_array_append_val (ids, row);
      g_ptr_array_add (hashes, g_strdup (text_or_null (s, 1)));
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return -1;
  g_clear_pointer (&s, stmt_free);
  if (ids->len == 0)
    return 0;

  /* A file that cannot be read now is simply not that run. */
  file = g_file_new_for_path (run->path);
  legacy = _cp_history_hash_file_legacy (file, NULL, NULL);
  for (guint i = 0; legacy != NULL && i < ids->len && id == 0; i++)
    if (g_strcmp0 (hashes->pdata[i], legacy) == 0)
      id = g_array_index (ids, gint64, i);
  if (id == 0)
    return 0;

  if (!be->begin (self->conn, error))
    return -1;
  s = prepare (self, "UPDATE runs SET content_hash = ? WHERE id = ? AND content_hash = ? RETURNING id", error);
  if (s == NULL)
    goto fail;
  be->bind_text (s->stmt, 1, run->hash);
  be->bind_int (s->stmt, 2, id);
  be->bind_text (s->stmt, 3, legacy);
  step = be->step (s->stmt, error);
  if (step == CP_HISTORY_STEP_ERROR)
    goto fail;
  if (step == CP_HISTORY_STEP_ROW && be->step (s->stmt, error) != CP_HISTORY_STEP_DONE)
    goto fail;
  g_clear_pointer (&s, stmt_free);
  if (step != CP_HISTORY_STEP_ROW)
    {
      be->rollback (self->conn);
      return 0;
    }
  if (!be->commit (self->conn, error))
    goto fail;
  return id;

fail:
  g_clear_pointer (&s, stmt_free);
  be->rollback (self->conn);
  return -1;
}

gboolean
cp_history_add (CpHistory     *self,
                CpHistoryRun  *run,
                gboolean      *added,
                GError       **error)
{
  const CpHistoryBackend *be = self->be;
  g_autoptr(Stmt) s = NULL;
  CpHistoryStep step;
  gint64 legacy;
  guint k = 1;

  g_return_val_if_fail (run != NULL && run->hash != NULL, FALSE);
  *added = FALSE;

  if (cp_history_lookup_hash (self, run->hash, NULL) == 0)
    {
      legacy = adopt_legacy_run (self, run, error);
      if (legacy < 0)
        return FALSE;
      if (legacy > 0)
        {
          run->id = legacy;
          return TRUE;
        }
    }

  if (!be->begin (self->conn, error))
    return FALSE;
  s = prepare (self, insert_run_sql, error);
  if (s == NULL)
    goto fail;
  be->bind_text (s->stmt, k++, run->hash);
  be->bind_text (s->stmt, k++, run->path);
  be->bind_int (s->stmt, k++, run->file_bytes);
  be->bind_text (s->stmt, k++, run->format);
  be->bind_text (s->stmt, k++, run->framework);
  if (run->has_started)
    be->bind_int (s->stmt, k++, run->started_ns);
  else
    be->bind_null (s->stmt, k++);
  be->bind_int (s->stmt, k++, run->mtime_ns);
  be->bind_int (s->stmt, k++, run->recorded_ns);
  be->bind_int (s->stmt, k++, run->time_ns);
  be->bind_text (s->stmt, k++, run->generator);
  be->bind_text (s->stmt, k++, run->step_source);
  be->bind_int (s->stmt, k++, run->steps);
  be->bind_int (s->stmt, k++, run->window_ns);
  be->bind_int (s->stmt, k++, run->duration_ns);
  be->bind_int (s->stmt, k++, run->kernel_time_ns);
  be->bind_int (s->stmt, k++, run->step_mean_ns);
  be->bind_int (s->stmt, k++, run->step_p50_ns);
  be->bind_int (s->stmt, k++, run->step_p90_ns);
  be->bind_int (s->stmt, k++, run->step_min_ns);
  be->bind_int (s->stmt, k++, run->step_max_ns);
  be->bind_double (s->stmt, k++, run->busy_percent);
  be->bind_double (s->stmt, k++, run->loading_percent);
  be->bind_text (s->stmt, k++, run->worst_severity);
  be->bind_int (s->stmt, k++, run->warnings);
  be->bind_text (s->stmt, k++, run->primary_rule);

  step = be->step (s->stmt, error);
  if (step == CP_HISTORY_STEP_ERROR)
    goto fail;
  if (step == CP_HISTORY_STEP_DONE)
    {
      /* Known already: nothing was written. */
      g_clear_pointer (&s, stmt_free);
      be->rollback (self->conn);
      run->id = cp_history_lookup_hash (self, run->hash, error);
      return run->id != 0;
    }
  run->id = be->column_int (s->stmt, 0);
  if (be->step (s->stmt, error) != CP_HISTORY_STEP_DONE)
    goto fail;
  g_clear_pointer (&s, stmt_free);
  if (!insert_children (self, run, error) || !be->commit (self->conn, error))
    goto fail;
  *added = TRUE;
  return TRUE;

fail:
  g_clear_pointer (&s, stmt_free);
  be->rollback (self->conn);
  run->id = 0;
  return FALSE;
}

gint64
cp_history_lookup_hash (CpHistory   *self,
                        const char  *hash,
                        GError     **error)
{
  g_autoptr(Stmt) s = prepare (self, "SELECT id FROM runs WHERE content_hash = ?", error);
  CpHistoryStep step;

  if (s == NULL)
    return 0;
  self->be->bind_text (s->stmt, 1, hash);
  step = self->be->step (s->stmt, error);
  if (step == CP_HISTORY_STEP_ROW)
    return self->be->column_int (s->stmt, 0);
  if (step == CP_HISTORY_STEP_DONE)
    g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_NOT_FOUND,
                 _("No run with the hash %s in the history"), hash);
  return 0;
}

GHashTable *
cp_history_get_hashes (CpHistory  *self,
                       GError    **error)
{
  g_autoptr(Stmt) s = prepare (self, "SELECT content_hash FROM runs", error);
  g_autoptr(GHashTable) set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  CpHistoryStep step;

  if (s == NULL)
    return NULL;
  while ((step = self->be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)
    g_hash_table_add (set, g_strdup (text_or_null (s, 0)));
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;
  return g_steal_pointer (&set);
}

/* Reading. */

#define RUN_COLUMNS \
  "r.id, r.content_hash, r.path, r.file_bytes, r.format, r.framework, r.started_ns, r.mtime_ns," \
  " r.recorded_ns, r.time_ns, r.generator, r.step_source, r.steps, r.window_ns, r.duration_ns," \
  " r.kernel_time_ns, r.step_mean_ns, r.step_p50_ns, r.step_p90_ns, r.step_min_ns, r.step_max_ns," \
  " r.busy_percent, r.loading_percent, r.worst_severity, r.warnings, r.primary_rule"

static CpHistoryRun *
read_run (Stmt *s)
{
  const CpHistoryBackend *be = s->be;
  CpHistoryRun *run = cp_history_run_new ();
  guint k = 0;

  run->id = be->column_int (s->stmt, k++);
  run->hash = g_strdup (text_or_null (s, k++));
  run->path = g_strdup (text_or_null (s, k++));
  run->file_bytes = be->column_int (s->stmt, k++);
  run->format = g_strdup (text_or_null (s, k++));
  run->framework = g_strdup (text_or_null (s, k++));
  run->has_started = !be->column_is_null (s->stmt, k);
  run->started_ns = be->column_int (s->stmt, k++);
  run->mtime_ns = be->column_int (s->stmt, k++);
  run->recorded_ns = be->column_int (s->stmt, k++);
  run->time_ns = be->column_int (s->stmt, k++);
  run->generator = g_strdup (text_or_null (s, k++));
  run->step_source = g_strdup (text_or_null (s, k++));
  run->steps = be->column_int (s->stmt, k++);
  run->window_ns = be->column_int (s->stmt, k++);
  run->duration_ns = be->column_int (s->stmt, k++);
  run->kernel_time_ns = be->column_int (s->stmt, k++);
  run->step_mean_ns = be->column_int (s->stmt, k++);
  run->step_p50_ns = be->column_int (s->stmt, k++);
  run->step_p90_ns = be->column_int (s->stmt, k++);
  run->step_min_ns = be->column_int (s->stmt, k++);
  run->step_max_ns = be->column_int (s->stmt, k++);
  run->busy_percent = be->column_double (s->stmt, k++);
  run->loading_percent = be->column_double (s->stmt, k++);
  run->worst_severity = g_strdup (text_or_null (s, k++));
  run->warnings = be->column_int (s->stmt, k++);
  run->primary_rule = g_strdup (text_or_null (s, k++));
  return run;
}

/* " WHERE ..." for a filter over runs r, binding from index *k on. */
static void
filter_sql (const CpHistoryFilter *filter,
            GString               *sql)
{
  const char *glue = " WHERE ";

  if (filter == NULL)
    return;
  if (filter->has_since)
    {
      g_string_append_printf (sql, "%sr.time_ns >= ?", glue);
      glue = " AND ";
    }
  for (guint i = 0; filter->labels != NULL && i < filter->labels->len; i++)
    {
      g_string_append_printf (sql, "%sr.id IN (SELECT run_id FROM run_labels WHERE key = ? AND value = ?)", glue);
      glue = " AND ";
    }
}

static void
filter_bind (const CpHistoryBackend *be,
             Stmt                   *s,
             const CpHistoryFilter  *filter,
             guint                  *k)
{
  if (filter == NULL)
    return;
  if (filter->has_since)
    be->bind_int (s->stmt, (*k)++, filter->since_ns);
  for (guint i = 0; filter->labels != NULL && i < filter->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (filter->labels, CpHistoryLabel, i);

      be->bind_text (s->stmt, (*k)++, l->key);
      be->bind_text (s->stmt, (*k)++, l->value);
    }
}

static gboolean
read_labels (CpHistory              *self,
             GHashTable             *by_id,
             const CpHistoryFilter  *filter,
             GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT l.run_id, l.key, l.value FROM run_labels l"
                                         " WHERE l.run_id IN (SELECT r.id FROM runs r");
  g_autoptr(Stmt) s = NULL;
  CpHistoryStep step;
  guint k = 1;

  filter_sql (filter, sql);
  g_string_append (sql, ") ORDER BY l.run_id, l.key");
  s = prepare (self, sql->str, error);
  if (s == NULL)
    return FALSE;
  filter_bind (self->be, s, filter, &k);
  while ((step = self->be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      gint64 id = self->be->column_int (s->stmt, 0);
      CpHistoryRun *run = g_hash_table_lookup (by_id, &id);

      if (run != NULL)
        cp_history_run_set_label (run, text_or_null (s, 1), text_or_null (s, 2));
    }
  return step == CP_HISTORY_STEP_DONE;
}

GPtrArray *
cp_history_list (CpHistory              *self,
                 const CpHistoryFilter  *filter,
                 GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT " RUN_COLUMNS " FROM runs r");
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_history_run_free);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(Stmt) s = NULL;
  CpHistoryStep step;
  guint k = 1;

  filter_sql (filter, sql);
  if (filter != NULL && filter->limit > 0)
    {
      /* The latest runs, then oldest first. */
      g_string_prepend (sql, "SELECT * FROM (");
      g_string_append_printf (sql, " ORDER BY r.time_ns DESC, r.id DESC LIMIT %u) AS r ORDER BY r.time_ns, r.id",
                              filter->limit);
    }
  else
    g_string_append (sql, " ORDER BY r.time_ns, r.id");
  s = prepare (self, sql->str, error);
  if (s == NULL)
    return NULL;
  filter_bind (self->be, s, filter, &k);
  while ((step = self->be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      CpHistoryRun *run = read_run (s);

      g_ptr_array_add (runs, run);
      g_hash_table_insert (by_id, &run->id, run);
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;
  g_clear_pointer (&s, stmt_free);
  if (runs->len > 0 && !read_labels (self, by_id, filter, error))
    return NULL;
  return g_steal_pointer (&runs);
}

static gboolean
is_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

static gboolean
is_hex (const char *s)
{
  for (; *s != '\0'; s++)
    if (!g_ascii_isxdigit (*s))
      return FALSE;
  return TRUE;
}

/* The id of a run named by id or by (a prefix of) its hash: "xxh64:HEX",
 * "sha256:HEX" (runs recorded before), or HEX of either. */
static gint64
resolve (CpHistory   *self,
         const char  *id_or_hash,
         GError     **error)
{
  const char *prefixes[] = { CP_HISTORY_HASH_PREFIX, CP_HISTORY_LEGACY_HASH_PREFIX };
  const char *hex = id_or_hash;
  g_autoptr(Stmt) s = NULL;
  g_autofree char *lower = NULL;
  CpHistoryStep step;
  gint64 id = 0;
  guint n = 0, first = 0, last = G_N_ELEMENTS (prefixes);

  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (g_str_has_prefix (id_or_hash, prefixes[i]))
      {
        hex = id_or_hash + strlen (prefixes[i]);
        first = i;
        last = i + 1;
      }

  if (hex == id_or_hash && is_digits (id_or_hash) && strlen (id_or_hash) < 19)
    {
      s = prepare (self, "SELECT id FROM runs WHERE id = ?", error);
      if (s == NULL)
        return 0;
      self->be->bind_int (s->stmt, 1, g_ascii_strtoll (id_or_hash, NULL, 10));
    }
  else if (strlen (hex) >= 8 && strlen (hex) <= 64 && is_hex (hex))
    {
      lower = g_ascii_strdown (hex, -1);
      s = prepare (self, "SELECT id FROM runs WHERE content_hash LIKE ? OR content_hash LIKE ? LIMIT 2", error);
      if (s == NULL)
        return 0;
      for (guint i = 0; i < 2; i++)
        {
          g_autofree char *pattern = g_strconcat (prefixes[MIN (first + i, last - 1)], lower, "%", NULL);

          self->be->bind_text (s->stmt, i + 1, pattern);
        }
    }
  else
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
                   _("“%s” is neither a run id nor at least 8 hex digits of a hash"), id_or_hash);
      return 0;
    }
  while ((step = self->be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      id = self->be->column_int (s->stmt, 0);
      n++;
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return 0;
  if (n == 0)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_NOT_FOUND,
                   _("No run “%s” in the history"), id_or_hash);
      return 0;
    }
  if (n > 1)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
                   _("“%s” names more than one run: give more of the hash"), id_or_hash);
      return 0;
    }
  return id;
}

CpHistoryRun *
cp_history_get_run (CpHistory   *self,
                    const char  *id_or_hash,
                    GError     **error)
{
  const CpHistoryBackend *be = self->be;
  gint64 id = resolve (self, id_or_hash, error);
  g_autoptr(CpHistoryRun) run = NULL;
  g_autoptr(Stmt) s = NULL;
  CpHistoryStep step;

  if (id == 0)
    return NULL;
  s = prepare (self, "SELECT " RUN_COLUMNS " FROM runs r WHERE r.id = ?", error);
  if (s == NULL)
    return NULL;
  be->bind_int (s->stmt, 1, id);
  if (be->step (s->stmt, error) != CP_HISTORY_STEP_ROW)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_NOT_FOUND,
                     _("No run “%s” in the history"), id_or_hash);
      return NULL;
    }
  run = read_run (s);
  g_clear_pointer (&s, stmt_free);

#define EACH_ROW(sql_text)                                            \
  g_clear_pointer (&s, stmt_free);                                    \
  s = prepare (self, sql_text, error);                                \
  if (s == NULL)                                                      \
    return NULL;                                                      \
  be->bind_int (s->stmt, 1, id);                                      \
  while ((step = be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)

  EACH_ROW ("SELECT key, value FROM run_labels WHERE run_id = ? ORDER BY key")
    cp_history_run_set_label (run, text_or_null (s, 0), text_or_null (s, 1));
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;

  EACH_ROW ("SELECT b.category, b.total_ns, b.mean_ns, b.percent FROM run_breakdown b WHERE b.run_id = ?")
    {
      CpHistoryBreakdown x;

      x.category = g_strdup (text_or_null (s, 0));
      x.total_ns = be->column_int (s->stmt, 1);
      x.mean_ns = be->column_int (s->stmt, 2);
      x.percent = be->column_double (s->stmt, 3);
      g_array_append_val (run->breakdown, x);
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;

  EACH_ROW ("SELECT device, kind, kernels, kernel_time_ns, kernel_busy_ns, window_busy_ns, window_ns,"
            " idle_ns, utilization FROM run_devices WHERE run_id = ? ORDER BY device")
    {
      CpHistoryDevice x;

      x.device = be->column_int (s->stmt, 0);
      x.kind = g_strdup (text_or_null (s, 1));
      x.kernels = be->column_int (s->stmt, 2);
      x.kernel_time_ns = be->column_int (s->stmt, 3);
      x.kernel_busy_ns = be->column_int (s->stmt, 4);
      x.window_busy_ns = be->column_int (s->stmt, 5);
      x.window_ns = be->column_int (s->stmt, 6);
      x.idle_ns = be->column_int (s->stmt, 7);
      x.utilization = be->column_double (s->stmt, 8);
      g_array_append_val (run->devices, x);
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;

  EACH_ROW ("SELECT rule, severity, measured_severity, time_at_stake_ns, time_at_stake_per_step_ns,"
            " metric, value FROM run_findings WHERE run_id = ? ORDER BY position")
    {
      CpHistoryFinding x;

      x.rule = g_strdup (text_or_null (s, 0));
      x.severity = g_strdup (text_or_null (s, 1));
      x.measured_severity = g_strdup (text_or_null (s, 2));
      x.time_at_stake_ns = be->column_int (s->stmt, 3);
      x.time_at_stake_per_step_ns = be->column_int (s->stmt, 4);
      x.metric = g_strdup (text_or_null (s, 5));
      x.value = be->column_double (s->stmt, 6);
      g_array_append_val (run->findings, x);
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;

  EACH_ROW ("SELECT rank, name, count, total_ns, share FROM run_kernels WHERE run_id = ? ORDER BY rank")
    {
      CpHistoryKernel x;

      x.rank = be->column_int (s->stmt, 0);
      x.name = g_strdup (text_or_null (s, 1));
      x.count = be->column_int (s->stmt, 2);
      x.total_ns = be->column_int (s->stmt, 3);
      x.share = be->column_double (s->stmt, 4);
      g_array_append_val (run->kernels, x);
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;
#undef EACH_ROW

  return g_steal_pointer (&run);
}

gboolean
cp_history_forget (CpHistory   *self,
                   gint64       id,
                   GError     **error)
{
  const CpHistoryBackend *be = self->be;
  g_autoptr(Stmt) s = NULL;
  CpHistoryStep step;

  if (!be->begin (self->conn, error))
    return FALSE;
  s = prepare (self, "DELETE FROM runs WHERE id = ? RETURNING id", error);
  if (s == NULL)
    goto fail;
  be->bind_int (s->stmt, 1, id);
  step = be->step (s->stmt, error);
  if (step == CP_HISTORY_STEP_ERROR)
    goto fail;
  if (step == CP_HISTORY_STEP_DONE)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_NOT_FOUND,
                   _("No run %" PRId64 " in the history"), id);
      goto fail;
    }
  if (be->step (s->stmt, error) != CP_HISTORY_STEP_DONE)
    goto fail;
  g_clear_pointer (&s, stmt_free);
  if (!be->commit (self->conn, error))
    goto fail;
  return TRUE;

fail:
  g_clear_pointer (&s, stmt_free);
  be->rollback (self->conn);
  return FALSE;
}

GArray *
cp_history_trend (CpHistory              *self,
                  const char             *metric,
                  const CpHistoryFilter  *filter,
                  GError                **error)
{
  const CpHistoryBackend *be = self->be;
  g_autoptr(GString) sql = g_string_new ("SELECT r.id, r.time_ns, ");
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (CpHistoryPoint));
  g_autoptr(Stmt) s = NULL;
  g_autofree char *part = NULL;
  const CpHistoryMetric *fixed = NULL;
  CpHistoryMetricKind kind;
  CpHistoryStep step;
  guint k = 1;

  if (!_cp_history_metric_parse (metric, &kind, &fixed, &part, error))
    return NULL;
  switch (kind)
    {
    case CP_HISTORY_METRIC_FIXED:
      g_string_append (sql, fixed->sql);
      break;
    case CP_HISTORY_METRIC_BREAKDOWN:
      g_string_append (sql, "(SELECT b.percent FROM run_breakdown b WHERE b.run_id = r.id AND b.category = ?)");
      break;
    case CP_HISTORY_METRIC_FINDING:
      /* A rule without a finding in a run had no time at stake there. */
      g_string_append (sql, "COALESCE((SELECT f.time_at_stake_ns FROM run_findings f"
                            " WHERE f.run_id = r.id AND f.rule = ?), 0)");
      break;
    case CP_HISTORY_METRIC_DEVICE:
    default:
      g_string_append (sql, "(SELECT 100.0 * d.utilization FROM run_devices d WHERE d.run_id = r.id AND d.device = ?)");
      break;
    }
  g_string_append (sql, " FROM runs r");
  filter_sql (filter, sql);
  g_string_append (sql, " ORDER BY r.time_ns, r.id");
  s = prepare (self, sql->str, error);
  if (s == NULL)
    return NULL;
  if (kind == CP_HISTORY_METRIC_DEVICE)
    be->bind_int (s->stmt, k++, g_ascii_strtoll (part, NULL, 10));
  else if (kind != CP_HISTORY_METRIC_FIXED)
    be->bind_text (s->stmt, k++, part);
  filter_bind (be, s, filter, &k);
  while ((step = be->step (s->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      CpHistoryPoint p;

      p.id = be->column_int (s->stmt, 0);
      p.time_ns = be->column_int (s->stmt, 1);
      p.value = be->column_double (s->stmt, 2);
      p.baseline = NAN;
      p.regression = FALSE;
      g_array_append_val (points, p);
    }
  if (step == CP_HISTORY_STEP_ERROR)
    return NULL;
  return g_steal_pointer (&points);
}

/* For the other files of src/history (cp-history-private.h). */

const CpHistoryBackend *
_cp_history_get_backend (CpHistory *self)
{
  return self->be;
}

CpHistoryConn *
_cp_history_get_conn (CpHistory *self)
{
  return self->conn;
}

void
_cp_history_filter_sql (const CpHistoryFilter *filter,
                        GString               *sql)
{
  filter_sql (filter, sql);
}

void
_cp_history_filter_bind (CpHistory             *self,
                         CpHistoryStmt         *stmt,
                         const CpHistoryFilter *filter,
                         guint                 *k)
{
  Stmt s = { self->be, stmt };

  filter_bind (self->be, &s, filter, k);
}
