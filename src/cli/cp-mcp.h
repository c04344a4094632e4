/* cp-mcp.h: the Model Context Protocol server behind `chokepoint mcp`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The server answers JSON-RPC 2.0 messages, one per line (MCP's stdio
 * transport), without doing any I/O of its own on them: cp-cli-mcp.c reads
 * standard input and writes the replies, and the fuzzer calls
 * cp_mcp_server_handle() directly. Its tools return the JSON of the
 * command line (info, diagnose, compare, diagnose of ranks, history), plus
 * the slices of a lane and the search, documented in docs/mcp.md.
 *
 * Captures stay loaded between calls in a cache that drops the least
 * recently used one when their memory passes the limit. A path is read only
 * when, with its symbolic links and ".." resolved, it lies inside one of
 * the roots.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The longest message the server reads; a longer line is answered with a
 * parse error and skipped. */
#define CP_MCP_MAX_MESSAGE (16 * 1024 * 1024)
/* The deepest nesting of arrays and objects a message may have. */
#define CP_MCP_MAX_DEPTH 64

typedef struct _CpMcpServer CpMcpServer;

/* roots: the folders the tools may read (each must exist; resolved here).
 * memory_limit: bytes the cached captures may take. database: the run
 * history the history tools read (NULL: the default one). NULL with error
 * set when a root cannot be resolved. */
CpMcpServer *cp_mcp_server_new    (char * const  *roots,
                                   guint64        memory_limit,
                                   const char    *database,
                                   GError       **error);
void         cp_mcp_server_free   (CpMcpServer   *self);

/* Handles one message (the bytes of a line, without its newline). Returns
 * the reply as one line of JSON without the newline, or NULL when none is
 * due (a notification). Never fails: bad input gets a JSON-RPC error. */
char        *cp_mcp_server_handle (CpMcpServer   *self,
                                   const char    *data,
                                   gsize          length);

/* The same with a cancellable for the reads and analyses the request
 * makes (NULL: none): cancelled, they stop and the tool fails. */
char        *cp_mcp_server_handle_cancellable (CpMcpServer  *self,
                                               const char   *data,
                                               gsize         length,
                                               GCancellable *cancellable);

/* What the transport needs to know of a message before the server handles
 * it: its id as JSON text ("7", "\"a\""; NULL for a notification or when
 * it is not a well-formed request), and for notifications/cancelled the
 * id of the request it cancels (NULL otherwise). Both newly allocated. */
void         cp_mcp_message_peek (const char  *data,
                                  gsize        length,
                                  char       **id,
                                  char       **cancels);

/* How many times a capture was read from disk, and how many are in the
 * cache now (for the log and the tests). */
guint        cp_mcp_server_get_n_loads  (CpMcpServer *self);
guint        cp_mcp_server_get_n_cached (CpMcpServer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpMcpServer, cp_mcp_server_free)

G_END_DECLS
