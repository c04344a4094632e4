/* cp-history-backend.h: what a database engine gives the run history
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The history speaks SQL through this table of functions, so that a second
 * engine is one more file: open and close, exec, prepare / bind / step /
 * column, transactions and the schema version. Statements are written once,
 * with `?` parameters numbered from 1 in the order they appear; the schema
 * (cp-history-schema.c) is written once too, with the placeholders {id},
 * {int}, {real} and {text} that each engine's dialect fills in. An engine
 * whose parameters are spelled otherwise ($1, $2...) rewrites them in its
 * prepare().
 *
 * Only cp-history*.c include this header.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CpHistoryConn CpHistoryConn;
typedef struct _CpHistoryStmt CpHistoryStmt;

typedef enum
{
  CP_HISTORY_STEP_ERROR,
  CP_HISTORY_STEP_ROW,
  CP_HISTORY_STEP_DONE,
} CpHistoryStep;

typedef struct
{
  const char *name;          /* "sqlite" */

  /* The dialect: what the schema's placeholders become. */
  const char *type_id;       /* {id}: an integer primary key the engine numbers */
  const char *type_int;      /* {int}: a 64-bit integer */
  const char *type_real;     /* {real}: a double */
  const char *type_text;     /* {text}: UTF-8 text */

  /* Opens the database at location. With create FALSE a database that does
   * not exist is CP_HISTORY_ERROR_MISSING, and nothing is created. Errors
   * are CP_HISTORY_ERROR_*: a file that is not a database of this engine is
   * DAMAGED, and is left as it is. */
  CpHistoryConn *(*open)        (const char     *location,
                                 gboolean        create,
                                 GError        **error);
  void           (*close)       (CpHistoryConn  *conn);

  /* The schema version the database holds (0: a new, empty database), and
   * whether it is ours at all (*foreign TRUE: it holds tables, or an
   * application id, of something else). */
  gboolean       (*get_version) (CpHistoryConn  *conn,
                                 gint64         *version,
                                 gboolean       *foreign,
                                 GError        **error);
  /* Once the database is known to be ours, at a version this build reads:
   * the engine's settings (SQLite: WAL, foreign keys). */
  gboolean       (*ready)       (CpHistoryConn  *conn,
                                 GError        **error);
  /* Inside a transaction: marks the database as ours, at this version. */
  gboolean       (*set_version) (CpHistoryConn  *conn,
                                 gint64          version,
                                 GError        **error);

  /* One or more statements without parameters or results. */
  gboolean       (*exec)        (CpHistoryConn  *conn,
                                 const char     *sql,
                                 GError        **error);

  CpHistoryStmt *(*prepare)     (CpHistoryConn  *conn,
                                 const char     *sql,
                                 GError        **error);
  void           (*bind_int)    (CpHistoryStmt  *stmt,
                                 guint           index,
                                 gint64          value);
  void           (*bind_double) (CpHistoryStmt  *stmt,
                                 guint           index,
                                 double          value);   /* NAN binds NULL */
  void           (*bind_text)   (CpHistoryStmt  *stmt,
                                 guint           index,
                                 const char     *value);   /* NULL binds NULL; copied */
  void           (*bind_null)   (CpHistoryStmt  *stmt,
                                 guint           index);
  CpHistoryStep  (*step)        (CpHistoryStmt  *stmt,
                                 GError        **error);
  gboolean       (*column_is_null) (CpHistoryStmt *stmt,
                                    guint          column);
  gint64         (*column_int)  (CpHistoryStmt  *stmt,
                                 guint           column);
  double         (*column_double) (CpHistoryStmt *stmt,
                                   guint          column);   /* NULL reads NAN */
  /* Valid until the next step, reset or finalize; NULL for NULL. */
  const char    *(*column_text) (CpHistoryStmt  *stmt,
                                 guint           column);
  /* Ready to step again with new bindings. */
  void           (*reset)       (CpHistoryStmt  *stmt);
  void           (*finalize)    (CpHistoryStmt  *stmt);

  /* A write transaction that takes the write lock at once (so two writers
   * wait for each other instead of failing half-way), its commit and its
   * rollback. */
  gboolean       (*begin)       (CpHistoryConn  *conn,
                                 GError        **error);
  gboolean       (*commit)      (CpHistoryConn  *conn,
                                 GError        **error);
  void           (*rollback)    (CpHistoryConn  *conn);
} CpHistoryBackend;

/* The engines built in. */
extern const CpHistoryBackend cp_history_sqlite_backend;
#if HAVE_POSTGRESQL
extern const CpHistoryBackend cp_history_postgres_backend;
/* The location with any password replaced by *** (free it). */
char *cp_history_postgres_redact (const char *location);
#endif

/* The schema (cp-history-schema.c): the statements that take a database
 * from version n - 1 to n, written with the dialect's placeholders, for n
 * from 1 to CP_HISTORY_SCHEMA_VERSION; NULL past it. */
const char *cp_history_schema_migration (guint version);
/* One statement of the schema in a backend's dialect (free it). */
char       *cp_history_schema_render    (const CpHistoryBackend *backend,
                                         const char             *sql);

G_END_DECLS
