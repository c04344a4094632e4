/* cp-mcp-server.c: JSON-RPC 2.0 and the MCP lifecycle of `chokepoint mcp`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Methods: initialize (protocol versions 2025-06-18 and 2025-03-26; any
 * other request gets the newest), notifications/initialized, ping,
 * tools/list and tools/call; notifications/cancelled is the transport's
 * (cp-cli-mcp.c), which cancels the request's GCancellable. Batches (arrays) are not taken: 2025-06-18
 * dropped them. Errors: -32700 parse error, -32600 invalid request (also a
 * tool call before initialize), -32601 unknown method, -32602 bad params
 * (unknown tool, missing or mistyped argument). What goes wrong inside a
 * tool (a file that cannot be read, a path outside the roots) is a result
 * with isError, so that the agent reads it.
 *
 * The tool descriptions are the protocol's contract, like the JSON keys,
 * and stay in English; the messages of tool errors are translated.
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>

#include "cp-mcp-private.h"

#define ERROR_PARSE            -32700
#define ERROR_INVALID_REQUEST  -32600
#define ERROR_METHOD_NOT_FOUND -32601
#define ERROR_INVALID_PARAMS   -32602

static const char * const protocol_versions[] = { "2025-06-18", "2025-03-26", NULL };

CpMcpServer *
cp_mcp_server_new (char * const  *roots,
                   guint64        memory_limit,
                   const char    *database,
                   GError       **error)
{
  g_autoptr(GPtrArray) resolved = g_ptr_array_new_with_free_func (g_free);
  CpMcpServer *self;

  for (guint i = 0; roots != NULL && roots[i] != NULL; i++)
    {
      char *real = realpath (roots[i], NULL);

      if (real == NULL)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("--root “%s”: %s"), roots[i], g_strerror (saved));
          return NULL;
        }
      if (!g_file_test (real, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY, _("--root “%s” is not a folder"), roots[i]);
          free (real);
          return NULL;
        }
      g_ptr_array_add (resolved, g_strdup (real));
      free (real);
    }

  self = g_new0 (CpMcpServer, 1);
  self->roots = g_steal_pointer (&resolved);
  self->memory_limit = memory_limit;
  self->database = g_strdup (database);
  g_queue_init (&self->cache);
  return self;
}

void
cp_mcp_server_free (CpMcpServer *self)
{
  if (self == NULL)
    return;
  cp_mcp_cache_clear (self);
  g_ptr_array_unref (self->roots);
  g_free (self->database);
  g_free (self);
}

guint
cp_mcp_server_get_n_loads (CpMcpServer *self)
{
  return self->n_loads;
}

guint
cp_mcp_server_get_n_cached (CpMcpServer *self)
{
  return self->cache.length;
}

/* Replies */

static char *
to_line (JsonNode *node)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_root (gen, node);
  json_generator_set_pretty (gen, FALSE);
  return json_generator_to_data (gen, NULL);
}

static char *
reply_error (JsonNode   *id,
             int         code,
             const char *message)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  /* json-glib's parse errors quote the input with its escapes decoded
   * ("\222" as the byte 0x92): the reply must stay UTF-8. */
  g_autofree char *valid = g_utf8_make_valid (message, -1);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "jsonrpc");
  json_builder_add_string_value (b, "2.0");
  json_builder_set_member_name (b, "id");
  if (id != NULL)
    json_builder_add_value (b, json_node_copy (id));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "error");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "code");
  json_builder_add_int_value (b, code);
  json_builder_set_member_name (b, "message");
  json_builder_add_string_value (b, valid);
  json_builder_end_object (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return to_line (root);
}

/* Takes result. */
static char *
reply_result (JsonNode *id,
              JsonNode *result)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) o = json_object_new ();

  json_object_set_string_member (o, "jsonrpc", "2.0");
  json_object_set_member (o, "id", json_node_copy (id));
  json_object_set_member (o, "result", result);
  json_node_set_object (root, o);
  return to_line (root);
}

/* Depth of nesting, outside strings, so that the parser never recurses
 * deeper than CP_MCP_MAX_DEPTH. */
static gboolean
depth_ok (const char *data,
          gsize       length)
{
  gboolean in_string = FALSE, escaped = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > CP_MCP_MAX_DEPTH)
            return FALSE;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

/* Methods */

static JsonNode *
handle_initialize (CpMcpServer *self,
                   JsonObject  *params)
{
  const char *asked = NULL, *version = protocol_versions[0];
  g_autoptr(JsonBuilder) b = json_builder_new ();

  if (params != NULL && json_object_has_member (params, "protocolVersion"))
    {
      JsonNode *v = json_object_get_member (params, "protocolVersion");

      if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING)
        asked = json_node_get_string (v);
    }
  for (guint i = 0; asked != NULL && protocol_versions[i] != NULL; i++)
    if (strcmp (asked, protocol_versions[i]) == 0)
      version = protocol_versions[i];
  self->initialized = TRUE;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "protocolVersion");
  json_builder_add_string_value (b, version);
  json_builder_set_member_name (b, "capabilities");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tools");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "listChanged");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "serverInfo");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, "chokepoint");
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, "Chokepoint");
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "instructions");
  json_builder_add_string_value (b,
                                 "Chokepoint reads GPU and TPU profiler captures (PyTorch/Kineto and Chrome trace "
                                 "JSON, XPlane) and says why the accelerator waits. Start with diagnose on a "
                                 "capture; capture_summary lists its lanes for lane_slices; search_slices finds "
                                 "slices by name. Paths must lie inside the folders the server was started with. "
                                 "Times are integer nanoseconds from the capture's origin.");
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static const char *
arg_type_name (CpMcpArgType type)
{
  switch (type)
    {
    case CP_MCP_ARG_STRING:
      return "string";
    case CP_MCP_ARG_INTEGER:
      return "integer";
    case CP_MCP_ARG_NUMBER:
      return "number";
    case CP_MCP_ARG_BOOLEAN:
      return "boolean";
    case CP_MCP_ARG_STRINGS:
    default:
      return "array";
    }
}

static void
build_schema (JsonBuilder     *b,
              const CpMcpTool *tool)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "object");
  json_builder_set_member_name (b, "properties");
  json_builder_begin_object (b);
  for (const CpMcpArg *a = tool->args; a->name != NULL; a++)
    {
      json_builder_set_member_name (b, a->name);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, arg_type_name (a->type));
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, a->description);
      if (a->type == CP_MCP_ARG_STRINGS)
        {
          json_builder_set_member_name (b, "items");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "type");
          json_builder_add_string_value (b, "string");
          json_builder_end_object (b);
        }
      if (a->choices != NULL)
        {
          json_builder_set_member_name (b, "enum");
          json_builder_begin_array (b);
          for (guint i = 0; a->choices[i] != NULL; i++)
            json_builder_add_string_value (b, a->choices[i]);
          json_builder_end_array (b);
        }
      if (a->type == CP_MCP_ARG_INTEGER && a->minimum < a->maximum)
        {
          json_builder_set_member_name (b, "minimum");
          json_builder_add_int_value (b, a->minimum);
          json_builder_set_member_name (b, "maximum");
          json_builder_add_int_value (b, a->maximum);
        }
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "required");
  json_builder_begin_array (b);
  for (const CpMcpArg *a = tool->args; a->name != NULL; a++)
    if (a->required)
      json_builder_add_string_value (b, a->name);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "additionalProperties");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
}

static JsonNode *
handle_tools_list (void)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tools");
  json_builder_begin_array (b);
  for (const CpMcpTool *t = cp_mcp_tools; t->name != NULL; t++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, t->name);
      json_builder_set_member_name (b, "title");
      json_builder_add_string_value (b, t->title);
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, t->description);
      json_builder_set_member_name (b, "inputSchema");
      build_schema (b, t);
      json_builder_set_member_name (b, "annotations");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "readOnlyHint");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_set_member_name (b, "openWorldHint");
      json_builder_add_boolean_value (b, FALSE);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Checks one argument against its description; a message when it does not fit. */
static char *
check_arg (const CpMcpArg *a,
           JsonNode       *v)
{
  GType type = JSON_NODE_HOLDS_VALUE (v) ? json_node_get_value_type (v) : G_TYPE_INVALID;

  switch (a->type)
    {
    case CP_MCP_ARG_STRING:
      if (type != G_TYPE_STRING)
        return g_strdup_printf ("argument “%s” must be a string", a->name);
      if (a->choices != NULL)
        {
          const char *s = json_node_get_string (v);

          for (guint i = 0; a->choices[i] != NULL; i++)
            if (strcmp (s, a->choices[i]) == 0)
              return NULL;
          return g_strdup_printf ("argument “%s” takes one of its enum values, not “%s”", a->name, s);
        }
      return NULL;
    case CP_MCP_ARG_INTEGER:
      if (type != G_TYPE_INT64)
        return g_strdup_printf ("argument “%s” must be an integer", a->name);
      if (a->minimum < a->maximum &&
          (json_node_get_int (v) < a->minimum || json_node_get_int (v) > a->maximum))
        return g_strdup_printf ("argument “%s” must be from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT,
                                a->name, a->minimum, a->maximum);
      return NULL;
    case CP_MCP_ARG_NUMBER:
      if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
        return g_strdup_printf ("argument “%s” must be a number", a->name);
      return NULL;
    case CP_MCP_ARG_BOOLEAN:
      if (type != G_TYPE_BOOLEAN)
        return g_strdup_printf ("argument “%s” must be true or false", a->name);
      return NULL;
    case CP_MCP_ARG_STRINGS:
    default:
      if (!JSON_NODE_HOLDS_ARRAY (v))
        return g_strdup_printf ("argument “%s” must be an array of strings", a->name);
      for (guint i = 0; i < json_array_get_length (json_node_get_array (v)); i++)
        {
          JsonNode *e = json_array_get_element (json_node_get_array (v), i);

          if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
            return g_strdup_printf ("argument “%s” must be an array of strings", a->name);
        }
      return NULL;
    }
}

static char *
handle_tools_call (CpMcpServer *self,
                   JsonNode    *id,
                   JsonObject  *params)
{
  const CpMcpTool *tool = NULL;
  JsonNode *name_node, *args_node;
  JsonObject *args;
  g_autoptr(JsonObject) empty = NULL;
  g_autoptr(GList) members = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) data = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char *name;

  if (params == NULL || (name_node = json_object_get_member (params, "name")) == NULL ||
      !JSON_NODE_HOLDS_VALUE (name_node) || json_node_get_value_type (name_node) != G_TYPE_STRING)
    return reply_error (id, ERROR_INVALID_PARAMS, "tools/call needs params.name, a string");
  name = json_node_get_string (name_node);
  for (const CpMcpTool *t = cp_mcp_tools; t->name != NULL; t++)
    if (strcmp (t->name, name) == 0)
      tool = t;
  if (tool == NULL)
    {
      g_autofree char *message = g_strdup_printf ("unknown tool “%s”", name);

      return reply_error (id, ERROR_INVALID_PARAMS, message);
    }

  args_node = json_object_get_member (params, "arguments");
  if (args_node == NULL || JSON_NODE_HOLDS_NULL (args_node))
    args = empty = json_object_new ();
  else if (JSON_NODE_HOLDS_OBJECT (args_node))
    args = json_node_get_object (args_node);
  else
    return reply_error (id, ERROR_INVALID_PARAMS, "params.arguments must be an object");

  members = json_object_get_members (args);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const CpMcpArg *a = tool->args;
      g_autofree char *message = NULL;

      while (a->name != NULL && strcmp (a->name, l->data) != 0)
        a++;
      if (a->name == NULL)
        message = g_strdup_printf ("%s takes no argument “%s”", tool->name, (const char *) l->data);
      else
        message = check_arg (a, json_object_get_member (args, a->name));
      if (message != NULL)
        return reply_error (id, ERROR_INVALID_PARAMS, message);
    }
  for (const CpMcpArg *a = tool->args; a->name != NULL; a++)
    if (a->required && !json_object_has_member (args, a->name))
      {
        g_autofree char *message = g_strdup_printf ("%s needs the argument “%s”", tool->name, a->name);

        return reply_error (id, ERROR_INVALID_PARAMS, message);
      }

  data = tool->run (self, args, &error);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "content");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "text");
  json_builder_set_member_name (b, "text");
  if (data != NULL)
    {
      g_autofree char *text = to_line (data);

      json_builder_add_string_value (b, text);
    }
  else
    {
      g_autofree char *valid = g_utf8_make_valid (error->message, -1);

      json_builder_add_string_value (b, valid);
    }
  json_builder_end_object (b);
  json_builder_end_array (b);
  if (data != NULL)
    {
      json_builder_set_member_name (b, "structuredContent");
      json_builder_add_value (b, g_steal_pointer (&data));
    }
  json_builder_set_member_name (b, "isError");
  json_builder_add_boolean_value (b, error != NULL);
  json_builder_end_object (b);
  return reply_result (id, json_builder_get_root (b));
}

/* An id (string or integer) as JSON text; NULL for anything else. */
static char *
id_text (JsonNode *id)
{
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) ||
      (json_node_get_value_type (id) != G_TYPE_STRING && json_node_get_value_type (id) != G_TYPE_INT64))
    return NULL;
  return json_to_string (id, FALSE);
}

void
cp_mcp_message_peek (const char  *data,
                     gsize        length,
                     char       **id,
                     char       **cancels)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *request;
  JsonNode *root, *method, *params;

  *id = NULL;
  *cancels = NULL;
  if (length > CP_MCP_MAX_MESSAGE || !g_utf8_validate (data, length, NULL) || !depth_ok (data, length))
    return;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, length, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  request = json_node_get_object (root);
  *id = id_text (json_object_get_member (request, "id"));
  method = json_object_get_member (request, "method");
  params = json_object_get_member (request, "params");
  if (*id == NULL && method != NULL && JSON_NODE_HOLDS_VALUE (method) &&
      json_node_get_value_type (method) == G_TYPE_STRING &&
      strcmp (json_node_get_string (method), "notifications/cancelled") == 0 &&
      params != NULL && JSON_NODE_HOLDS_OBJECT (params))
    *cancels = id_text (json_object_get_member (json_node_get_object (params), "requestId"));
}

char *
cp_mcp_server_handle_cancellable (CpMcpServer  *self,
                                  const char   *data,
                                  gsize         length,
                                  GCancellable *cancellable)
{
  char *reply;

  self->cancellable = cancellable;
  reply = cp_mcp_server_handle (self, data, length);
  self->cancellable = NULL;
  return reply;
}

char *
cp_mcp_server_handle (CpMcpServer *self,
                      const char  *data,
                      gsize        length)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  JsonObject *request, *params = NULL;
  JsonNode *root, *id, *method_node, *version, *params_node;
  const char *method;

  if (length > CP_MCP_MAX_MESSAGE)
    return reply_error (NULL, ERROR_PARSE, "message too long");
  if (!g_utf8_validate (data, length, NULL))
    return reply_error (NULL, ERROR_PARSE, "message is not UTF-8");
  if (!depth_ok (data, length))
    return reply_error (NULL, ERROR_PARSE, "message nested too deeply");
  if (!json_parser_load_from_data (parser, data, length, &error))
    {
      g_autofree char *message = g_strdup_printf ("parse error: %s", error->message);

      return reply_error (NULL, ERROR_PARSE, message);
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return reply_error (NULL, ERROR_INVALID_REQUEST, "a request is a JSON object (batches are not taken)");
  request = json_node_get_object (root);

  id = json_object_get_member (request, "id");
  if (id != NULL && !(JSON_NODE_HOLDS_VALUE (id) &&
                      (json_node_get_value_type (id) == G_TYPE_STRING ||
                       json_node_get_value_type (id) == G_TYPE_INT64)))
    return reply_error (NULL, ERROR_INVALID_REQUEST, "id must be a string or an integer");
  version = json_object_get_member (request, "jsonrpc");
  if (version == NULL || !JSON_NODE_HOLDS_VALUE (version) || json_node_get_value_type (version) != G_TYPE_STRING ||
      strcmp (json_node_get_string (version), "2.0") != 0)
    return reply_error (id, ERROR_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
  method_node = json_object_get_member (request, "method");
  if (method_node == NULL)
    {
      /* A response to a request of ours: the server sends none, so it is
       * ignored, as is anything else without a method and an id. */
      if (id != NULL && (json_object_has_member (request, "result") || json_object_has_member (request, "error")))
        return NULL;
      return reply_error (id, ERROR_INVALID_REQUEST, "a request needs a method");
    }
  if (!JSON_NODE_HOLDS_VALUE (method_node) || json_node_get_value_type (method_node) != G_TYPE_STRING)
    return reply_error (id, ERROR_INVALID_REQUEST, "method must be a string");
  method = json_node_get_string (method_node);
  params_node = json_object_get_member (request, "params");
  if (params_node != NULL && !JSON_NODE_HOLDS_NULL (params_node))
    {
      if (!JSON_NODE_HOLDS_OBJECT (params_node))
        {
          if (id == NULL)
            return NULL;
          return reply_error (id, ERROR_INVALID_PARAMS, "params must be an object");
        }
      params = json_node_get_object (params_node);
    }

  /* Notifications get no reply, known or not. */
  if (id == NULL)
    return NULL;

  if (strcmp (method, "initialize") == 0)
    return reply_result (id, handle_initialize (self, params));
  if (strcmp (method, "ping") == 0)
    {
      JsonNode *empty = json_node_new (JSON_NODE_OBJECT);

      json_node_take_object (empty, json_object_new ());
      return reply_result (id, empty);
    }
  if (strcmp (method, "tools/list") == 0 || strcmp (method, "tools/call") == 0)
    {
      if (!self->initialized)
        return reply_error (id, ERROR_INVALID_REQUEST, "send initialize first");
      if (strcmp (method, "tools/list") == 0)
        return reply_result (id, handle_tools_list ());
      return handle_tools_call (self, id, params);
    }
  {
    g_autofree char *message = g_strdup_printf ("unknown method “%s”", method);

    return reply_error (id, ERROR_METHOD_NOT_FOUND, message);
  }
}
