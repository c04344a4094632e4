/* cp-history-sqlite.c: the run history's SQLite engine
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One file, in WAL mode so that readers never wait for a writer, with a
 * busy timeout so that two writers wait for each other. The database is
 * marked as ours by PRAGMA application_id and versioned by PRAGMA
 * user_version. Before SQLite opens an existing file its header is read
 * here: a file that is not an SQLite database is left untouched (SQLite
 * itself would refuse it too, but only once it has made its -wal and -shm
 * files beside it).
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "cp-history.h"
#include "cp-history-backend.h"

/* "CPH1": PRAGMA application_id of a Chokepoint history. */
#define CP_HISTORY_APPLICATION_ID 0x43504831
/* How long a writer waits for another one. */
#define BUSY_TIMEOUT_MS 60000

struct _CpHistoryConn
{
  sqlite3 *db;
  char    *path;
};

struct _CpHistoryStmt
{
  sqlite3_stmt  *stmt;
  CpHistoryConn *conn;
};

static void
set_error (GError     **error,
           sqlite3     *db,
           int          rc,
           const char  *path)
{
  int primary = rc & 0xff;
  const char *msg = db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc);

  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
    g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_DAMAGED,
                 _("The history %s is damaged (%s); it was left as it is"), path, msg);
  else if (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_PERM ||
           primary == SQLITE_READONLY)
    g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                 _("Cannot use the history %s: %s"), path, msg);
  else
    g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_FAILED,
                 _("The history %s failed: %s"), path, msg);
}

/* An existing file that is not empty must start with SQLite's header. */
static gboolean
check_header (const char  *path,
              GError     **error)
{
  static const char magic[16] = "SQLite format 3";
  char head[16];
  FILE *f = g_fopen (path, "rb");
  size_t n;

  if (f == NULL)
    {
      int saved = errno;

      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                   _("Cannot use the history %s: %s"), path, g_strerror (saved));
      return FALSE;
    }
  n = fread (head, 1, sizeof head, f);
  fclose (f);
  if (n == 0)
    return TRUE;
  if (n < sizeof head || memcmp (head, magic, sizeof head) != 0)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_DAMAGED,
                   _("The history %s is not an SQLite database (damaged, or another file); it was left as it is"),
                   path);
      return FALSE;
    }
  return TRUE;
}

static CpHistoryConn *
sqlite_open (const char  *location,
             gboolean     create,
             GError     **error)
{
  CpHistoryConn *conn;
  sqlite3 *db = NULL;
  int rc, flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  gboolean exists = g_file_test (location, G_FILE_TEST_EXISTS);

  if (exists && !g_file_test (location, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                   _("Cannot use the history %s: it is not a regular file"), location);
      return NULL;
    }
  if (!exists && !create)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_MISSING,
                   _("No history at %s yet: record runs with “chokepoint history add”"), location);
      return NULL;
    }
  if (exists && !check_header (location, error))
    return NULL;
  if (create)
    flags |= SQLITE_OPEN_CREATE;

  rc = sqlite3_open_v2 (location, &db, flags, NULL);
  if (rc != SQLITE_OK)
    {
      set_error (error, db, rc, location);
      sqlite3_close (db);
      return NULL;
    }
  sqlite3_extended_result_codes (db, 1);
  sqlite3_busy_timeout (db, BUSY_TIMEOUT_MS);

  conn = g_new0 (CpHistoryConn, 1);
  conn->db = db;
  conn->path = g_strdup (location);
  return conn;
}

static void
sqlite_close (CpHistoryConn *conn)
{
  if (conn == NULL)
    return;
  sqlite3_close_v2 (conn->db);
  g_free (conn->path);
  g_free (conn);
}

static gboolean
sqlite_exec (CpHistoryConn  *conn,
             const char     *sql,
             GError        **error)
{
  int rc = sqlite3_exec (conn->db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    {
      set_error (error, conn->db, rc, conn->path);
      return FALSE;
    }
  return TRUE;
}

static CpHistoryStmt *
sqlite_prepare (CpHistoryConn  *conn,
                const char     *sql,
                GError        **error)
{
  sqlite3_stmt *stmt = NULL;
  CpHistoryStmt *s;
  int rc = sqlite3_prepare_v2 (conn->db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    {
      set_error (error, conn->db, rc, conn->path);
      return NULL;
    }
  s = g_new0 (CpHistoryStmt, 1);
  s->stmt = stmt;
  s->conn = conn;
  return s;
}

static void
sqlite_bind_int (CpHistoryStmt *s,
                 guint          index,
                 gint64         value)
{
  sqlite3_bind_int64 (s->stmt, (int) index, value);
}

static void
sqlite_bind_double (CpHistoryStmt *s,
                    guint          index,
                    double         value)
{
  if (isfinite (value))
    sqlite3_bind_double (s->stmt, (int) index, value);
  else
    sqlite3_bind_null (s->stmt, (int) index);
}

static void
sqlite_bind_text (CpHistoryStmt *s,
                  guint          index,
                  const char    *value)
{
  if (value != NULL)
    sqlite3_bind_text (s->stmt, (int) index, value, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (s->stmt, (int) index);
}

static void
sqlite_bind_null (CpHistoryStmt *s,
                  guint          index)
{
  sqlite3_bind_null (s->stmt, (int) index);
}

static CpHistoryStep
sqlite_step (CpHistoryStmt  *s,
             GError        **error)
{
  int rc = sqlite3_step (s->stmt);

  if (rc == SQLITE_ROW)
    return CP_HISTORY_STEP_ROW;
  if (rc == SQLITE_DONE)
    return CP_HISTORY_STEP_DONE;
  set_error (error, s->conn->db, rc, s->conn->path);
  return CP_HISTORY_STEP_ERROR;
}

static gboolean
sqlite_column_is_null (CpHistoryStmt *s,
                       guint          column)
{
  return sqlite3_column_type (s->stmt, (int) column) == SQLITE_NULL;
}

static gint64
sqlite_column_int (CpHistoryStmt *s,
                   guint          column)
{
  return sqlite3_column_int64 (s->stmt, (int) column);
}

static double
sqlite_column_double (CpHistoryStmt *s,
                      guint          column)
{
  if (sqlite3_column_type (s->stmt, (int) column) == SQLITE_NULL)
    return NAN;
  return sqlite3_column_double (s->stmt, (int) column);
}

static const char *
sqlite_column_text (CpHistoryStmt *s,
                    guint          column)
{
  return (const char *) sqlite3_column_text (s->stmt, (int) column);
}

static void
sqlite_reset (CpHistoryStmt *s)
{
  sqlite3_reset (s->stmt);
  sqlite3_clear_bindings (s->stmt);
}

static void
sqlite_finalize (CpHistoryStmt *s)
{
  if (s == NULL)
    return;
  sqlite3_finalize (s->stmt);
  g_free (s);
}

/* The version, the mark and the number of tables, read in one snapshot. */
static gboolean
query_three (CpHistoryConn  *conn,
             gint64         *version,
             gint64         *app_id,
             gint64         *n_tables,
             GError        **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (conn->db,
                               "SELECT (SELECT user_version FROM pragma_user_version),"
                               " (SELECT application_id FROM pragma_application_id),"
                               " (SELECT count(*) FROM sqlite_schema)", -1, &stmt, NULL);

  if (rc == SQLITE_OK)
    {
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        {
          *version = sqlite3_column_int64 (stmt, 0);
          *app_id = sqlite3_column_int64 (stmt, 1);
          *n_tables = sqlite3_column_int64 (stmt, 2);
          rc = SQLITE_OK;
        }
    }
  if (rc != SQLITE_OK)
    set_error (error, conn->db, rc, conn->path);
  sqlite3_finalize (stmt);
  return rc == SQLITE_OK;
}

static gboolean
sqlite_get_version (CpHistoryConn  *conn,
                    gint64         *version,
                    gboolean       *foreign,
                    GError        **error)
{
  gint64 app_id = 0, n_tables = 0;

  /* The first read of the file: a damaged header or page fails here.
   * One statement, so one snapshot: read apart, another process that
   * makes the history at that moment could show its tables without its
   * mark, and the new history would pass for someone else's. */
  if (!query_three (conn, version, &app_id, &n_tables, error))
    return FALSE;
  *foreign = (app_id != 0 && app_id != CP_HISTORY_APPLICATION_ID) ||
             (app_id == 0 && (*version != 0 || n_tables > 0));
  return TRUE;
}

static gboolean
sqlite_ready (CpHistoryConn  *conn,
              GError        **error)
{
  gint64 waited_ms = 0;
  int rc;

  /* WAL lets readers go on while one process writes; NORMAL syncs at
   * checkpoints, which WAL keeps consistent. Switching a new database to
   * WAL needs it alone, and SQLite does not wait for that itself when
   * another process makes the same new database at the same moment. */
  while ((rc = sqlite3_exec (conn->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)) != SQLITE_OK &&
         ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) && waited_ms < BUSY_TIMEOUT_MS)
    {
      g_usleep (10000);
      waited_ms += 10;
    }
  if (rc != SQLITE_OK)
    {
      set_error (error, conn->db, rc, conn->path);
      return FALSE;
    }
  return sqlite_exec (conn, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", error);
}

static gboolean
sqlite_set_version (CpHistoryConn  *conn,
                    gint64          version,
                    GError        **error)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA application_id = %d; PRAGMA user_version = %" G_GINT64_FORMAT,
                                          CP_HISTORY_APPLICATION_ID, version);

  return sqlite_exec (conn, sql, error);
}

static gboolean
sqlite_begin (CpHistoryConn  *conn,
              GError        **error)
{
  return sqlite_exec (conn, "BEGIN IMMEDIATE", error);
}

static gboolean
sqlite_commit (CpHistoryConn  *conn,
               GError        **error)
{
  return sqlite_exec (conn, "COMMIT", error);
}

static void
sqlite_rollback (CpHistoryConn *conn)
{
  if (!sqlite3_get_autocommit (conn->db))
    sqlite3_exec (conn->db, "ROLLBACK", NULL, NULL, NULL);
}

const CpHistoryBackend cp_history_sqlite_backend = {
  .name = "sqlite",
  .type_id = "INTEGER PRIMARY KEY",
  .type_int = "INTEGER",
  .type_real = "REAL",
  .type_text = "TEXT",
  .open = sqlite_open,
  .close = sqlite_close,
  .get_version = sqlite_get_version,
  .ready = sqlite_ready,
  .set_version = sqlite_set_version,
  .exec = sqlite_exec,
  .prepare = sqlite_prepare,
  .bind_int = sqlite_bind_int,
  .bind_double = sqlite_bind_double,
  .bind_text = sqlite_bind_text,
  .bind_null = sqlite_bind_null,
  .step = sqlite_step,
  .column_is_null = sqlite_column_is_null,
  .column_int = sqlite_column_int,
  .column_double = sqlite_column_double,
  .column_text = sqlite_column_text,
  .reset = sqlite_reset,
  .finalize = sqlite_finalize,
  .begin = sqlite_begin,
  .commit = sqlite_commit,
  .rollback = sqlite_rollback,
};
