/* cp-args.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "cp-args.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"
#include "cp-xplane-reader.h"

static void
cp_arg_free (CpArg *arg)
{
  g_free (arg->key);
  g_free (arg->value);
  g_free (arg);
}

static void
add (GPtrArray  *out,
     const char *key,
     char       *value)
{
  CpArg *arg = g_new0 (CpArg, 1);

  arg->key = g_strdup (key);
  arg->value = value;
  g_ptr_array_add (out, arg);
}

static char *
node_text (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_NULL:
      return g_strdup ("null");
    case JSON_NODE_VALUE:
      {
        GType type = json_node_get_value_type (node);

        if (type == G_TYPE_STRING)
          return g_strdup (json_node_get_string (node));
        if (type == G_TYPE_INT64)
          return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
        if (type == G_TYPE_BOOLEAN)
          return g_strdup (json_node_get_boolean (node) ? "true" : "false");
        if (type == G_TYPE_DOUBLE)
          {
            /* The shortest text that reads back as the same double: 0.025
             * rather than 0.025000000000000001. */
            double v = json_node_get_double (node);
            char buf[G_ASCII_DTOSTR_BUF_SIZE];

            g_ascii_formatd (buf, sizeof buf, "%.15g", v);
            if (g_ascii_strtod (buf, NULL) != v)
              g_ascii_formatd (buf, sizeof buf, "%.17g", v);
            return g_strdup (buf);
          }
        return json_to_string (node, FALSE);
      }
    case JSON_NODE_OBJECT:
    case JSON_NODE_ARRAY:
    default:
      return json_to_string (node, FALSE);
    }
}

static gboolean
decode_json (const guint8  *data,
             gsize          len,
             GPtrArray     *out,
             GError       **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;
  JsonObject *obj;
  GList *members;

  if (!cp_json_depth_within ((const char *) data, len, CP_JSON_MAX_DOM_DEPTH))
    {
      /* json-glib would recurse once per level (see cp-limits.h). */
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                   _("The arguments are nested deeper than the limit of %u levels and are not shown"),
                   CP_JSON_MAX_DOM_DEPTH);
      return FALSE;
    }
  if (len > G_MAXSSIZE ||
      !json_parser_load_from_data (parser, (const char *) data, (gssize) len, &local_error))
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                   _("The arguments are not valid JSON: %s"),
                   local_error ? local_error->message : _("too long"));
      return FALSE;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                           _("The arguments are not a JSON object"));
      return FALSE;
    }
  obj = json_node_get_object (root);
  /* Members in the order the capture wrote them. */
  members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    add (out, l->data, node_text (json_object_get_member (obj, l->data)));
  g_list_free (members);
  return TRUE;
}

GPtrArray *
cp_args_decode (CpTrace     *trace,
                CpSliceRef   ref,
                GError     **error)
{
  g_autoptr(GPtrArray) out = NULL;
  CpArgsFormat format = CP_ARGS_NONE;
  const guint8 *data = NULL;
  gsize len = 0;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_arg_free);
  if (!cp_trace_slice_ref_valid (trace, ref) ||
      !cp_trace_get_args (trace, ref, &format, &data, &len))
    return g_steal_pointer (&out);

  switch (format)
    {
    case CP_ARGS_JSON:
      if (!decode_json (data, len, out, error))
        return NULL;
      break;

    case CP_ARGS_XSTATS:
      {
        g_autoptr(GPtrArray) stats = cp_xstats_decode_slice (trace, ref, error);

        if (stats == NULL)
          return NULL;
        for (guint i = 0; i < stats->len; i++)
          {
            CpXStatEntry *e = g_ptr_array_index (stats, i);

            add (out, e->key, g_strdup (e->value));
          }
      }
      break;

    case CP_ARGS_NONE:
    default:
      break;
    }
  return g_steal_pointer (&out);
}

/* One member of a JSON object at p (after '{' or ','): its key, the raw
 * text of its value (a string with its quotes, a container with its
 * brackets, a number or literal as written) and, for a string, its flags
 * (CP_JSON_ESCAPED, CP_JSON_REPAIRED...). FALSE when malformed or for a
 * key with escapes. */
static gboolean
json_member (const guchar  *p,
             const guchar  *end,
             const guchar **key,
             gsize         *key_len,
             const guchar **value,
             gsize         *value_len,
             guint         *string_flags,
             const guchar **next)
{
  const guchar *stop, *start;
  guint flags = 0;

  p = cp_json_lex_skip_ws (p, end);
  if (p >= end || *p != '"')
    return FALSE;
  if (cp_json_lex_string (p + 1, end, TRUE, &flags, &stop) != CP_JSON_LEX_CLOSED || flags != 0)
    return FALSE;
  *key = p + 1;
  *key_len = stop - (p + 1);
  p = cp_json_lex_skip_ws (stop + 1, end);
  if (p >= end || *p != ':')
    return FALSE;
  p = cp_json_lex_skip_ws (p + 1, end);
  if (p >= end)
    return FALSE;
  start = p;
  *string_flags = 0;
  if (*p == '"')
    {
      if (cp_json_lex_string (p + 1, end, FALSE, string_flags, &stop) != CP_JSON_LEX_CLOSED)
        return FALSE;
      p = stop + 1;
    }
  else if (*p == '{' || *p == '[')
    {
      if ((p = cp_json_lex_skip_container (p + 1, end)) == NULL)
        return FALSE;
    }
  else
    {
      p = cp_json_lex_word_end (p, end);
      if (p == start)
        return FALSE;
    }
  *value = start;
  *value_len = p - start;
  *next = cp_json_lex_skip_ws (p, end);
  return TRUE;
}

/* One member of a flat JSON object: its key and a scalar value's raw text
 * (strings without their quotes); containers are skipped (value NULL).
 * FALSE when the text is not that simple: an escaped or repaired string,
 * or anything malformed. */
static gboolean
flat_member (const guchar  *p,
             const guchar  *end,
             const guchar **key,
             gsize         *key_len,
             const guchar **value,
             gsize         *value_len,
             const guchar **next)
{
  guint flags;

  if (!json_member (p, end, key, key_len, value, value_len, &flags, next))
    return FALSE;
  if (**value == '"')
    {
      if (flags & (CP_JSON_ESCAPED | CP_JSON_REPAIRED))
        return FALSE;
      *value += 1;
      *value_len -= 2;
    }
  else if (**value == '{' || **value == '[')
    {
      *value = NULL;
      *value_len = 0;
    }
  return TRUE;
}

/* One member of a JSON object with the raw text of its value, whatever it
 * holds; FALSE as json_member(), and for a value string Kineto's quote
 * repair would change. */
static gboolean
raw_member (const guchar  *p,
            const guchar  *end,
            const guchar **key,
            gsize         *key_len,
            const guchar **value,
            gsize         *value_len,
            const guchar **next)
{
  guint flags;

  return json_member (p, end, key, key_len, value, value_len, &flags, next) && !(flags & CP_JSON_REPAIRED);
}

/* Called for each member of the top-level object; FALSE stops the walk as
 * malformed. */
typedef gboolean (*MemberFunc) (const guchar *key,
                                gsize         key_len,
                                const guchar *value,
                                gsize         value_len,
                                gpointer      data);

typedef gboolean (*ReadMember) (const guchar  *p,
                                const guchar  *end,
                                const guchar **key,
                                gsize         *key_len,
                                const guchar **value,
                                gsize         *value_len,
                                const guchar **next);

/* Walks the top-level members of a slice's JSON arguments with read (the
 * flat or the raw member reader). TRUE when walked whole, or when the
 * slice has no arguments; FALSE when they are not JSON, not an object, or
 * read or func says they are not simple enough. */
static gboolean
walk_members (CpTrace    *trace,
              CpSliceRef  ref,
              ReadMember  read,
              MemberFunc  func,
              gpointer    data)
{
  CpArgsFormat format = CP_ARGS_NONE;
  const guint8 *bytes = NULL;
  gsize len = 0;
  const guchar *p, *end;

  if (!cp_trace_slice_ref_valid (trace, ref) || !cp_trace_get_args (trace, ref, &format, &bytes, &len))
    return TRUE;
  if (format != CP_ARGS_JSON)
    return FALSE;
  end = bytes + len;
  p = cp_json_lex_skip_ws (bytes, end);
  if (p >= end || *p != '{')
    return FALSE;
  p = cp_json_lex_skip_ws (p + 1, end);
  if (p < end && *p == '}')
    return TRUE;
  for (;;)
    {
      const guchar *key, *value, *next;
      gsize key_len, value_len;

      if (!read (p, end, &key, &key_len, &value, &value_len, &next) ||
          !func (key, key_len, value, value_len, data) || next >= end)
        return FALSE;
      if (*next == '}')
        return TRUE;
      if (*next != ',')
        return FALSE;
      p = next + 1;
    }
}

static gboolean
key_is (const char   *want,
        const guchar *key,
        gsize         key_len)
{
  return strlen (want) == key_len && memcmp (want, key, key_len) == 0;
}

typedef struct
{
  const char * const *keys;
  char              **values;
} FlatLookup;

/* The first of each key counts, as a scalar. */
static gboolean
take_flat (const guchar *key,
           gsize         key_len,
           const guchar *value,
           gsize         value_len,
           gpointer      data)
{
  FlatLookup *l = data;

  for (gsize k = 0; l->keys[k] != NULL; k++)
    if (l->values[k] == NULL && value != NULL && key_is (l->keys[k], key, key_len))
      {
        if (!g_utf8_validate ((const char *) value, value_len, NULL))
          return FALSE;
        l->values[k] = g_strndup ((const char *) value, value_len);
      }
  return TRUE;
}

gboolean
cp_args_lookup (CpTrace            *trace,
                CpSliceRef          ref,
                const char * const *keys,
                char              **values)
{
  FlatLookup l = { keys, values };
  gsize n_keys;

  g_return_val_if_fail (CP_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (keys != NULL && values != NULL, FALSE);

  n_keys = g_strv_length ((char **) keys);
  for (gsize k = 0; k < n_keys; k++)
    values[k] = NULL;
  if (walk_members (trace, ref, flat_member, take_flat, &l))
    return TRUE;
  for (gsize k = 0; k < n_keys; k++)
    g_clear_pointer (&values[k], g_free);
  return FALSE;
}

typedef struct
{
  const char * const *keys;
  const guint8      **values;
  gsize              *lens;
} RawLookup;

/* The last of each key counts, as when the whole object is parsed. */
static gboolean
take_raw (const guchar *key,
          gsize         key_len,
          const guchar *value,
          gsize         value_len,
          gpointer      data)
{
  RawLookup *l = data;

  for (gsize k = 0; l->keys[k] != NULL; k++)
    if (key_is (l->keys[k], key, key_len))
      {
        l->values[k] = value;
        l->lens[k] = value_len;
      }
  return TRUE;
}

gboolean
cp_args_lookup_raw (CpTrace            *trace,
                    CpSliceRef          ref,
                    const char * const *keys,
                    const guint8      **values,
                    gsize              *lens)
{
  RawLookup l = { keys, values, lens };
  gsize n_keys;

  g_return_val_if_fail (CP_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (keys != NULL && values != NULL && lens != NULL, FALSE);

  n_keys = g_strv_length ((char **) keys);
  for (gsize k = 0; k < n_keys; k++)
    {
      values[k] = NULL;
      lens[k] = 0;
    }
  if (walk_members (trace, ref, raw_member, take_raw, &l))
    return TRUE;
  for (gsize k = 0; k < n_keys; k++)
    {
      values[k] = NULL;
      lens[k] = 0;
    }
  return FALSE;
}
