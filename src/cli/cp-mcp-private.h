/* cp-mcp-private.h: what the protocol (cp-mcp-server.c) and the tools
 * (cp-mcp-tools.c) share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-job.h"
#include "cp-mcp.h"

G_BEGIN_DECLS

/* One cached capture (or the ranks of one job). */
typedef struct
{
  char       *key;        /* resolved path; for a job, its paths joined by '\n' */
  gint64      mtime;      /* of the file when read (µs), to notice a rewrite */
  gint64      size;
  CpTrace    *trace;      /* NULL for a job */
  CpAnalysis *analysis;   /* made on first use */
  CpJob      *job;
  guint64     bytes;      /* memory of its traces */
} CpMcpEntry;

struct _CpMcpServer
{
  GPtrArray *roots;       /* resolved folders, char * */
  guint64    memory_limit;
  char      *database;
  gboolean   initialized;
  GQueue     cache;       /* CpMcpEntry *, most recently used first */
  guint64    cache_bytes;
  guint      n_loads;
  GCancellable *cancellable;  /* the request being handled, when it can be cancelled */
};

typedef enum
{
  CP_MCP_ARG_STRING,
  CP_MCP_ARG_INTEGER,
  CP_MCP_ARG_NUMBER,
  CP_MCP_ARG_BOOLEAN,
  CP_MCP_ARG_STRINGS,     /* an array of strings */
} CpMcpArgType;

typedef struct
{
  const char          *name;
  CpMcpArgType         type;
  gboolean             required;
  const char          *description;
  const char * const  *choices;   /* for strings: the allowed values, NULL-ended, or NULL */
  gint64               minimum;   /* for integers */
  gint64               maximum;
} CpMcpArg;

/* Runs a tool on arguments already checked against its CpMcpArg list;
 * returns the JSON object of its result, or NULL with the error the agent
 * is shown (a tool error, isError). */
typedef JsonNode *(*CpMcpToolFunc) (CpMcpServer  *self,
                                    JsonObject   *args,
                                    GError      **error);

typedef struct
{
  const char      *name;
  const char      *title;
  const char      *description;
  const CpMcpArg  *args;          /* ends with a NULL name */
  CpMcpToolFunc    run;
} CpMcpTool;

/* The tools, ending with a NULL name (cp-mcp-tools.c). */
extern const CpMcpTool cp_mcp_tools[];

/* Frees the cache (cp-mcp-tools.c). */
void cp_mcp_cache_clear (CpMcpServer *self);

G_END_DECLS
