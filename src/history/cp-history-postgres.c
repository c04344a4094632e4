/* cp-history-postgres.c: the run history's PostgreSQL engine, through libpq
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The location is a libpq connection URI (postgresql://user@host/db). The
 * history's tables live in the connection's current schema, beside a
 * one-row table chokepoint_history that marks the schema as ours and holds
 * its version. Every write transaction first takes one advisory lock (before
 * its BEGIN), so that writers on many machines queue as SQLite's do (a run is a few rows;
 * the wait is milliseconds) and a migration never races another; the
 * unique content hash makes a capture recorded twice at once one run.
 *
 * Statements are sent with their parameters as text (PQexecParams), the
 * history's `?` rewritten to $1, $2...; results are read as text.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <libpq-fe.h>
#include <math.h>
#include <string.h>

#include "cp-history.h"
#include "cp-history-backend.h"

/* Marks a schema as a Chokepoint history, as SQLite's application_id. */
#define CP_HISTORY_PG_APPLICATION "CPH1"
/* The advisory lock every write transaction takes ("CPH1" as a number). */
#define CP_HISTORY_PG_LOCK "1129334833"
/* How many parameters one statement may have. */
#define MAX_PARAMS 32

struct _CpHistoryConn
{
  PGconn  *pg;
  char    *shown;                /* the location without its password */
  gboolean locked;               /* holds the writers' advisory lock */
};

struct _CpHistoryStmt
{
  CpHistoryConn *conn;
  char          *sql;            /* with $n parameters */
  int            n_params;
  char          *params[MAX_PARAMS];
  PGresult      *result;         /* after the first step */
  int            row;            /* the row the columns read */
};

/* postgresql://user:secret@host/db → postgresql://user:***@host/db, and
 * password=secret in a key=value string → password=***. */
char *
cp_history_postgres_redact (const char *location)
{
  const char *scheme = strstr (location, "://");
  GString *out = g_string_new (NULL);

  if (scheme != NULL)
    {
      const char *user = scheme + 3;
      const char *at = strchr (user, '@');
      const char *slash = strchr (user, '/');
      const char *colon = strchr (user, ':');

      if (at != NULL && (slash == NULL || at < slash) && colon != NULL && colon < at)
        {
          g_string_append_len (out, location, colon + 1 - location);
          g_string_append (out, "***");
          g_string_append (out, at);
        }
      else
        g_string_append (out, location);
    }
  else
    g_string_append (out, location);

  /* A password given as a query parameter or key=value pair. */
  for (char *p = strstr (out->str, "password="); p != NULL; p = strstr (p + 1, "password="))
    {
      gsize start = (gsize) (p - out->str) + strlen ("password=");
      gsize end = start;

      while (end < out->len && out->str[end] != '&' && out->str[end] != ' ')
        end++;
      g_string_erase (out, (gssize) start, (gssize) (end - start));
      g_string_insert (out, (gssize) start, "***");
      p = out->str + start;
    }
  return g_string_free (out, FALSE);
}

static char *
pg_message (PGconn         *pg,
            const PGresult *res)
{
  const char *msg = res != NULL ? PQresultErrorMessage (res) : NULL;
  char *out;

  if (msg == NULL || msg[0] == '\0')
    msg = PQerrorMessage (pg);
  out = g_strdup (msg != NULL && msg[0] != '\0' ? msg : _("unknown error"));
  g_strstrip (out);
  return out;
}

static void
set_error (GError        **error,
           CpHistoryConn  *conn,
           const PGresult *res)
{
  g_autofree char *msg = pg_message (conn->pg, res);

  if (PQstatus (conn->pg) != CONNECTION_OK)
    g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                 _("Cannot use the history %s: %s"), conn->shown, msg);
  else
    g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_FAILED,
                 _("The history %s failed: %s"), conn->shown, msg);
}

static gboolean
result_ok (const PGresult *res)
{
  ExecStatusType st = PQresultStatus (res);

  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

/* Runs a statement without parameters; the result on success. */
static PGresult *
run_simple (CpHistoryConn  *conn,
            const char     *sql,
            GError        **error)
{
  PGresult *res = PQexec (conn->pg, sql);

  if (res == NULL || !result_ok (res))
    {
      set_error (error, conn, res);
      PQclear (res);
      return NULL;
    }
  return res;
}

static void
ignore_notice (void       *data,
               const char *message)
{
  /* CREATE TABLE IF NOT EXISTS and the like talk; the history does not. */
}

static gboolean
has_meta_table (CpHistoryConn  *conn,
                gboolean       *exists,
                GError        **error)
{
  PGresult *res = run_simple (conn, "SELECT to_regclass('chokepoint_history') IS NOT NULL", error);

  if (res == NULL)
    return FALSE;
  *exists = PQntuples (res) == 1 && strcmp (PQgetvalue (res, 0, 0), "t") == 0;
  PQclear (res);
  return TRUE;
}

static void
pg_close (CpHistoryConn *conn)
{
  if (conn == NULL)
    return;
  PQfinish (conn->pg);
  g_free (conn->shown);
  g_free (conn);
}

static CpHistoryConn *
pg_open (const char  *location,
         gboolean     create,
         GError     **error)
{
  CpHistoryConn *conn = g_new0 (CpHistoryConn, 1);
  gboolean exists = FALSE;
  PGresult *res;

  conn->shown = cp_history_postgres_redact (location);
  conn->pg = PQconnectdb (location);
  if (conn->pg == NULL || PQstatus (conn->pg) != CONNECTION_OK)
    {
      g_autofree char *msg = conn->pg != NULL ? pg_message (conn->pg, NULL) : g_strdup (_("out of memory"));

      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_IO,
                   _("Cannot connect to the history %s: %s"), conn->shown, msg);
      pg_close (conn);
      return NULL;
    }
  PQsetNoticeProcessor (conn->pg, ignore_notice, NULL);
  /* Text results the history reads back exactly: no rounding of doubles,
   * UTF-8 whatever the server's default. */
  res = run_simple (conn, "SET extra_float_digits = 3; SET client_encoding = 'UTF8'", error);
  if (res == NULL)
    {
      pg_close (conn);
      return NULL;
    }
  PQclear (res);
  if (!create)
    {
      if (!has_meta_table (conn, &exists, error))
        {
          pg_close (conn);
          return NULL;
        }
      if (!exists)
        {
          g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_MISSING,
                       _("No history at %s yet: record runs with “chokepoint history add”"), conn->shown);
          pg_close (conn);
          return NULL;
        }
    }
  return conn;
}

static gboolean
pg_get_version (CpHistoryConn  *conn,
                gint64         *version,
                gboolean       *foreign,
                GError        **error)
{
  gboolean exists = FALSE;
  PGresult *res;

  *version = 0;
  *foreign = FALSE;
  /* The mark and the tables in one statement, so one snapshot: read apart,
   * another process that makes the history at that moment could show its
   * tables without its mark, and the new history would pass for someone
   * else's. Once the mark is seen it stays, so it is read after. */
  res = run_simple (conn,
                    "SELECT count(*) FILTER (WHERE tablename = 'chokepoint_history'), count(*)"
                    " FROM pg_catalog.pg_tables WHERE schemaname = current_schema()", error);
  if (res == NULL)
    return FALSE;
  exists = g_ascii_strtoll (PQgetvalue (res, 0, 0), NULL, 10) > 0;
  /* No mark: a schema that already holds tables is someone else's. */
  *foreign = !exists && g_ascii_strtoll (PQgetvalue (res, 0, 1), NULL, 10) > 0;
  PQclear (res);
  if (!exists)
    return TRUE;
  res = run_simple (conn, "SELECT application, version FROM chokepoint_history", error);
  if (res == NULL)
    return FALSE;
  if (PQntuples (res) != 1 || PQnfields (res) != 2 ||
      strcmp (PQgetvalue (res, 0, 0), CP_HISTORY_PG_APPLICATION) != 0)
    *foreign = TRUE;
  else
    *version = g_ascii_strtoll (PQgetvalue (res, 0, 1), NULL, 10);
  PQclear (res);
  return TRUE;
}

static gboolean
pg_ready (CpHistoryConn  *conn,
          GError        **error)
{
  return TRUE;
}

static gboolean
pg_exec (CpHistoryConn  *conn,
         const char     *sql,
         GError        **error)
{
  PGresult *res = run_simple (conn, sql, error);

  PQclear (res);
  return res != NULL;
}

static gboolean
pg_set_version (CpHistoryConn  *conn,
                gint64          version,
                GError        **error)
{
  g_autofree char *sql =
    g_strdup_printf ("CREATE TABLE IF NOT EXISTS chokepoint_history (application TEXT NOT NULL, version BIGINT NOT NULL);"
                     " DELETE FROM chokepoint_history;"
                     " INSERT INTO chokepoint_history (application, version) VALUES ('" CP_HISTORY_PG_APPLICATION
                     "', %" G_GINT64_FORMAT ")", version);

  return pg_exec (conn, sql, error);
}

/* `?` → $1, $2...; a `?` inside a quoted string stays. */
static char *
rewrite_params (const char *sql,
                int        *n_params)
{
  GString *out = g_string_sized_new (strlen (sql) + 16);
  gboolean quoted = FALSE;

  *n_params = 0;
  for (const char *p = sql; *p != '\0'; p++)
    {
      if (*p == '\'')
        quoted = !quoted;
      if (*p == '?' && !quoted)
        g_string_append_printf (out, "$%d", ++*n_params);
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static CpHistoryStmt *
pg_prepare (CpHistoryConn  *conn,
            const char     *sql,
            GError        **error)
{
  CpHistoryStmt *s = g_new0 (CpHistoryStmt, 1);

  s->conn = conn;
  s->sql = rewrite_params (sql, &s->n_params);
  if (s->n_params > MAX_PARAMS)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_FAILED,
                   "A history statement has %d parameters, more than %d", s->n_params, MAX_PARAMS);
      g_free (s->sql);
      g_free (s);
      return NULL;
    }
  return s;
}

static void
set_param (CpHistoryStmt *s,
           guint          index,
           char          *value)
{
  if (index == 0 || index > MAX_PARAMS)
    {
      g_free (value);
      g_return_if_reached ();
    }
  g_free (s->params[index - 1]);
  s->params[index - 1] = value;
}

static void
pg_bind_int (CpHistoryStmt *s,
             guint          index,
             gint64         value)
{
  set_param (s, index, g_strdup_printf ("%" G_GINT64_FORMAT, value));
}

static void
pg_bind_double (CpHistoryStmt *s,
                guint          index,
                double         value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    set_param (s, index, NULL);
  else
    set_param (s, index, g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", value)));
}

static void
pg_bind_text (CpHistoryStmt *s,
              guint          index,
              const char    *value)
{
  set_param (s, index, g_strdup (value));
}

static void
pg_bind_null (CpHistoryStmt *s,
              guint          index)
{
  set_param (s, index, NULL);
}

static CpHistoryStep
pg_step (CpHistoryStmt  *s,
         GError        **error)
{
  if (s->result == NULL)
    {
      s->result = PQexecParams (s->conn->pg, s->sql, s->n_params, NULL,
                                (const char * const *) s->params, NULL, NULL, 0);
      if (s->result == NULL || !result_ok (s->result))
        {
          set_error (error, s->conn, s->result);
          PQclear (s->result);
          s->result = NULL;
          return CP_HISTORY_STEP_ERROR;
        }
      s->row = -1;
    }
  if (s->row + 1 < PQntuples (s->result))
    {
      s->row++;
      return CP_HISTORY_STEP_ROW;
    }
  s->row = PQntuples (s->result);
  return CP_HISTORY_STEP_DONE;
}

static gboolean
pg_column_is_null (CpHistoryStmt *s,
                   guint          column)
{
  if (s->result == NULL || s->row < 0 || s->row >= PQntuples (s->result) ||
      (int) column >= PQnfields (s->result))
    return TRUE;
  return PQgetisnull (s->result, s->row, (int) column);
}

static const char *
pg_column_text (CpHistoryStmt *s,
                guint          column)
{
  if (pg_column_is_null (s, column))
    return NULL;
  return PQgetvalue (s->result, s->row, (int) column);
}

static gint64
pg_column_int (CpHistoryStmt *s,
               guint          column)
{
  const char *text = pg_column_text (s, column);

  if (text == NULL)
    return 0;
  /* A numeric or double column read as an integer (count(*), sums). */
  if (strpbrk (text, ".eE") != NULL)
    return (gint64) g_ascii_strtod (text, NULL);
  return g_ascii_strtoll (text, NULL, 10);
}

static double
pg_column_double (CpHistoryStmt *s,
                  guint          column)
{
  const char *text = pg_column_text (s, column);

  if (text == NULL)
    return NAN;
  return g_ascii_strtod (text, NULL);
}

static void
pg_reset (CpHistoryStmt *s)
{
  PQclear (s->result);
  s->result = NULL;
  s->row = -1;
  for (guint i = 0; i < MAX_PARAMS; i++)
    g_clear_pointer (&s->params[i], g_free);
}

static void
pg_finalize (CpHistoryStmt *s)
{
  if (s == NULL)
    return;
  pg_reset (s);
  g_free (s->sql);
  g_free (s);
}

/* The writers' lock is taken before the transaction begins, so that the
 * transaction's snapshots (and catalogue) are those after the previous
 * writer's commit: a migration then sees the tables another process made. */
static void
unlock (CpHistoryConn *conn)
{
  if (conn->locked)
    {
      PQclear (PQexec (conn->pg, "SELECT pg_advisory_unlock(" CP_HISTORY_PG_LOCK ")"));
      conn->locked = FALSE;
    }
}

static gboolean
pg_begin (CpHistoryConn  *conn,
          GError        **error)
{
  if (!pg_exec (conn, "SELECT pg_advisory_lock(" CP_HISTORY_PG_LOCK ")", error))
    return FALSE;
  conn->locked = TRUE;
  if (!pg_exec (conn, "BEGIN", error))
    {
      unlock (conn);
      return FALSE;
    }
  return TRUE;
}

static gboolean
pg_commit (CpHistoryConn  *conn,
           GError        **error)
{
  gboolean done = pg_exec (conn, "COMMIT", error);

  unlock (conn);
  return done;
}

static void
pg_rollback (CpHistoryConn *conn)
{
  if (PQtransactionStatus (conn->pg) != PQTRANS_IDLE)
    PQclear (PQexec (conn->pg, "ROLLBACK"));
  unlock (conn);
}

const CpHistoryBackend cp_history_postgres_backend = {
  .name = "postgresql",
  .type_id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
  .type_int = "BIGINT",
  .type_real = "DOUBLE PRECISION",
  .type_text = "TEXT",
  .open = pg_open,
  .close = pg_close,
  .get_version = pg_get_version,
  .ready = pg_ready,
  .set_version = pg_set_version,
  .exec = pg_exec,
  .prepare = pg_prepare,
  .bind_int = pg_bind_int,
  .bind_double = pg_bind_double,
  .bind_text = pg_bind_text,
  .bind_null = pg_bind_null,
  .step = pg_step,
  .column_is_null = pg_column_is_null,
  .column_int = pg_column_int,
  .column_double = pg_column_double,
  .column_text = pg_column_text,
  .reset = pg_reset,
  .finalize = pg_finalize,
  .begin = pg_begin,
  .commit = pg_commit,
  .rollback = pg_rollback,
};
