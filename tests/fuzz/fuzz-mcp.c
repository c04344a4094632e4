/* fuzz-mcp.c: the request handler of `chokepoint mcp`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is a session: lines, each handed to a fresh server's
 * cp_mcp_server_handle() as the stdio transport would. The server may read
 * one folder holding a small capture (t.json), so that the tools run; the
 * history it reads does not exist. Every reply (a notification gets
 * none) is one line of JSON, an
 * object with jsonrpc "2.0" and exactly one of result and error; an error
 * has an integer code among JSON-RPC's; a tool result has content and a
 * boolean isError, and structuredContent exactly when it is false. */

#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cp-mcp.h"
#include "cp-fuzz.h"

#define CHECK(cond)                                                          \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

static char *root;
static char *database;

static const char capture[] =
  "{\"traceEvents\":["
  "{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
  "{\"ph\":\"X\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":15,\"dur\":30,"
  "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
  "{\"ph\":\"X\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100}]}";

static void
quiet (const char *text)
{
}

static void
setup (void)
{
  g_autofree char *path = NULL;

  if (root != NULL)
    return;
  root = g_dir_make_tmp ("cp-fuzz-mcp-XXXXXX", NULL);
  CHECK (root != NULL);
  path = g_build_filename (root, "t.json", NULL);
  CHECK (g_file_set_contents (path, capture, -1, NULL));
  database = g_build_filename (root, "no-history.sqlite", NULL);
  /* The tools' log lines would drown the fuzzer's. */
  g_set_printerr_handler (quiet);
}

static void
check_reply (const char *reply)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *o;
  gboolean result, error;

  if (reply == NULL)
    return;
  CHECK (strchr (reply, '\n') == NULL);
  CHECK (json_parser_load_from_data (parser, reply, -1, NULL));
  CHECK (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  o = json_node_get_object (json_parser_get_root (parser));
  CHECK (g_strcmp0 (json_object_get_string_member_with_default (o, "jsonrpc", ""), "2.0") == 0);
  CHECK (json_object_has_member (o, "id"));
  result = json_object_has_member (o, "result");
  error = json_object_has_member (o, "error");
  CHECK (result != error);
  if (error)
    {
      JsonObject *e = json_object_get_object_member (o, "error");
      gint64 code = json_object_get_int_member (e, "code");

      CHECK (code == -32700 || code == -32600 || code == -32601 || code == -32602);
      CHECK (json_object_get_string_member (e, "message") != NULL);
    }
  else
    {
      JsonObject *r = json_object_get_object_member (o, "result");

      CHECK (r != NULL);
      if (json_object_has_member (r, "isError"))
        {
          CHECK (json_node_get_value_type (json_object_get_member (r, "isError")) == G_TYPE_BOOLEAN);
          CHECK (json_array_get_length (json_object_get_array_member (r, "content")) == 1);
          CHECK (json_object_get_boolean_member (r, "isError") != json_object_has_member (r, "structuredContent"));
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  char *roots[2] = { NULL, NULL };
  g_autoptr(CpMcpServer) server = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  gsize from = 0;

  cp_fuzz_init ();
  setup ();
  if (size > 65536)
    return 0;
  roots[0] = root;
  server = cp_mcp_server_new (roots, 64 * 1024 * 1024, database, NULL);
  CHECK (server != NULL);
  /* The corpus names the capture "t.json", relative to the root; the
   * replay's own paths are relative to where it started. */
  CHECK (g_chdir (root) == 0);
  for (gsize i = 0; i <= size; i++)
    {
      g_autofree char *reply = NULL;

      if (i < size && data[i] != '\n')
        continue;
      if (i > from)
        {
          g_autofree char *id = NULL, *cancels = NULL;

          /* What the transport reads of each line before the server. */
          cp_mcp_message_peek ((const char *) data + from, i - from, &id, &cancels);
          CHECK (id == NULL || cancels == NULL);
          reply = cp_mcp_server_handle (server, (const char *) data + from, i - from);
          check_reply (reply);
        }
      from = i + 1;
    }
  CHECK (cp_mcp_server_get_n_cached (server) <= 2);
  CHECK (g_chdir (cwd) == 0);
  return 0;
}
