/* cp-sidecar.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "cp-json-tokenizer.h"
#include "cp-sidecar.h"

/* A sidecar larger than this is not a sidecar. */
#define MAX_SIDECAR_BYTES  (64 * 1024 * 1024)
/* A folder capture is hashed by at most this many entries, this deep. */
#define MAX_HASH_ENTRIES   4096
#define MAX_HASH_DEPTH     6

G_DEFINE_QUARK (cp-sidecar-error-quark, cp_sidecar_error)

/* Serialising -------------------------------------------------------------- */

static char *
format_color (guint32 rgba)
{
  return g_strdup_printf ("#%08x", rgba);
}

static gboolean
parse_color (const char *text,
             guint32    *rgba)
{
  gsize len;
  guint64 v;
  char *end = NULL;

  if (text == NULL || text[0] != '#')
    return FALSE;
  len = strlen (text + 1);
  if (len != 6 && len != 8)
    return FALSE;
  for (gsize i = 1; i <= len; i++)
    if (!g_ascii_isxdigit (text[i]))
      return FALSE;
  v = g_ascii_strtoull (text + 1, &end, 16);
  *rgba = len == 6 ? (guint32) (v << 8 | 0xff) : (guint32) v;
  return TRUE;
}

static char *
format_time (gint64 usec)
{
  g_autoptr(GDateTime) base = g_date_time_new_from_unix_utc (usec / G_USEC_PER_SEC);
  g_autoptr(GDateTime) dt = NULL;

  if (base == NULL)
    return g_strdup ("1970-01-01T00:00:00Z");
  dt = g_date_time_add (base, usec % G_USEC_PER_SEC);
  return g_date_time_format_iso8601 (dt);
}

static gboolean
parse_time (const char *text,
            gint64     *usec)
{
  g_autoptr(GDateTime) dt = NULL;

  if (text == NULL)
    return FALSE;
  dt = g_date_time_new_from_iso8601 (text, NULL);
  if (dt == NULL)
    return FALSE;
  *usec = g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
  return TRUE;
}

static gboolean
lane_kind_from_string (const char *text,
                       CpLaneKind *kind)
{
  for (guint k = 0; k < CP_LANE_N_KINDS; k++)
    {
      if (g_strcmp0 (text, cp_lane_kind_to_string (k)) == 0)
        {
          *kind = k;
          return TRUE;
        }
    }
  return FALSE;
}

/* The annotations array: what the main thread hands to a writer. */
static JsonNode *
annotations_to_node (CpAnnotations *annotations)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (annotations));

  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpAnnotation) a = g_list_model_get_item (G_LIST_MODEL (annotations), i);
      const CpLaneIdentity *lane = cp_annotation_get_lane_identity (a);
      g_autofree char *color = format_color (cp_annotation_get_color (a));
      g_autofree char *created = format_time (cp_annotation_get_created (a));
      g_autofree char *modified = format_time (cp_annotation_get_modified (a));

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_int_value (b, cp_annotation_get_id (a));
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, cp_annotation_kind_to_string (cp_annotation_get_kind (a)));
      json_builder_set_member_name (b, "text");
      json_builder_add_string_value (b, cp_annotation_get_text (a));
      json_builder_set_member_name (b, "color");
      json_builder_add_string_value (b, color);
      json_builder_set_member_name (b, "start_ns");
      json_builder_add_int_value (b, cp_annotation_get_start (a));
      json_builder_set_member_name (b, "end_ns");
      json_builder_add_int_value (b, cp_annotation_get_end (a));
      json_builder_set_member_name (b, "created");
      json_builder_add_string_value (b, created);
      json_builder_set_member_name (b, "modified");
      json_builder_add_string_value (b, modified);
      if (lane != NULL)
        {
          json_builder_set_member_name (b, "lane");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, cp_lane_kind_to_string (lane->kind));
          json_builder_set_member_name (b, "process");
          json_builder_add_string_value (b, lane->process);
          json_builder_set_member_name (b, "number");
          json_builder_add_int_value (b, lane->number);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, lane->name);
          json_builder_end_object (b);
        }
      if (cp_annotation_is_attached (a))
        {
          json_builder_set_member_name (b, "slice");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "start_ns");
          json_builder_add_int_value (b, cp_annotation_get_slice_start (a));
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, cp_annotation_get_slice_name (a));
          json_builder_end_object (b);
        }
      if (cp_annotation_get_rule (a) != NULL)
        {
          json_builder_set_member_name (b, "rule");
          json_builder_add_string_value (b, cp_annotation_get_rule (a));
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return json_builder_get_root (b);
}

/* The whole document around an annotations array (taken). */
static char *
document_to_json (JsonNode   *annotations,
                  gboolean    have_origin,
                  gint64      origin_abs,
                  const char *capture_name,
                  gint64      capture_bytes,
                  const char *capture_hash)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *saved = format_time (g_get_real_time ());
  g_autofree char *text = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, CP_SIDECAR_FORMAT);
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, CP_SIDECAR_SCHEMA_VERSION);
  json_builder_set_member_name (b, "generator");
  json_builder_add_string_value (b, "Chokepoint " PACKAGE_VERSION);
  json_builder_set_member_name (b, "saved");
  json_builder_add_string_value (b, saved);
  json_builder_set_member_name (b, "capture");
  json_builder_begin_object (b);
  if (capture_name != NULL)
    {
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, capture_name);
    }
  if (capture_bytes >= 0)
    {
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, capture_bytes);
    }
  if (capture_hash != NULL)
    {
      json_builder_set_member_name (b, "sample_sha256");
      json_builder_add_string_value (b, capture_hash);
    }
  if (have_origin)
    {
      json_builder_set_member_name (b, "origin_abs_ns");
      json_builder_add_int_value (b, origin_abs);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "annotations");
  json_builder_add_value (b, annotations);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 2);
  text = json_generator_to_data (gen, NULL);
  return g_strconcat (text, "\n", NULL);
}

char *
cp_sidecar_to_json (CpAnnotations *annotations,
                    CpTrace       *trace,
                    const char    *capture_name,
                    gint64         capture_bytes,
                    const char    *capture_hash)
{
  g_return_val_if_fail (CP_IS_ANNOTATIONS (annotations), NULL);

  return document_to_json (annotations_to_node (annotations), trace != NULL,
                           trace ? cp_trace_get_origin_abs (trace) : 0,
                           capture_name, capture_bytes, capture_hash);
}

/* Reading ------------------------------------------------------------------ */

static gboolean G_GNUC_PRINTF (2, 3)
damaged (GError    **error,
         const char *format,
         ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DAMAGED, msg);
  return FALSE;
}

static gboolean
get_int (JsonObject *o,
         const char *name,
         gint64     *value)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    return FALSE;
  *value = json_node_get_int (n);
  return TRUE;
}

static const char *
get_string (JsonObject *o,
            const char *name)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

typedef struct
{
  CpAnnotationRecord  record;
  CpLaneIdentity     *lane;
  GPtrArray          *owned;    /* strings made valid UTF-8 */
} Parsed;

static void
parsed_clear (gpointer data)
{
  Parsed *p = data;

  cp_lane_identity_free (p->lane);
  g_clear_pointer (&p->owned, g_ptr_array_unref);
}

/* json-glib turns lone surrogate escapes ("\ud800") into bytes that are not
 * UTF-8; what the annotations hand out must be. */
static const char *
valid_text (Parsed     *p,
            const char *s)
{
  char *copy;

  if (s == NULL || g_utf8_validate (s, -1, NULL))
    return s;
  copy = g_utf8_make_valid (s, -1);
  if (p->owned == NULL)
    p->owned = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (p->owned, copy);
  return copy;
}

static gboolean
parse_annotation (JsonNode  *node,
                  guint      index,
                  gint64     shift,
                  Parsed    *p,
                  GError   **error)
{
  JsonObject *o;
  JsonNode *lane, *slice;
  gint64 id = 0;
  const char *kind, *color;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return damaged (error, _("annotation %u is not an object"), index + 1);
  o = json_node_get_object (node);
  kind = get_string (o, "kind");
  if (!cp_annotation_kind_from_string (kind, &p->record.kind))
    return damaged (error, _("annotation %u has no valid “kind”"), index + 1);
  if (!get_int (o, "start_ns", &p->record.start))
    return damaged (error, _("annotation %u has no valid “start_ns”"), index + 1);
  if (!get_int (o, "end_ns", &p->record.end))
    p->record.end = p->record.start;
  if (p->record.end < p->record.start)
    return damaged (error, _("annotation %u ends before it starts"), index + 1);
  if (get_int (o, "id", &id) && (id <= 0 || id > G_MAXINT32))
    return damaged (error, _("annotation %u has an invalid “id”"), index + 1);
  p->record.id = (guint) id;
  p->record.text = valid_text (p, get_string (o, "text"));
  if (json_object_has_member (o, "text") && p->record.text == NULL)
    return damaged (error, _("annotation %u has a “text” that is not a string"), index + 1);
  color = get_string (o, "color");
  if (color != NULL && !parse_color (color, &p->record.rgba))
    return damaged (error, _("annotation %u has an invalid “color”"), index + 1);
  if (get_string (o, "created") && !parse_time (get_string (o, "created"), &p->record.created))
    return damaged (error, _("annotation %u has an invalid “created” time"), index + 1);
  if (get_string (o, "modified") && !parse_time (get_string (o, "modified"), &p->record.modified))
    return damaged (error, _("annotation %u has an invalid “modified” time"), index + 1);
  p->record.rule = valid_text (p, get_string (o, "rule"));

  lane = json_object_get_member (o, "lane");
  if (lane != NULL && !JSON_NODE_HOLDS_NULL (lane))
    {
      JsonObject *lo;
      CpLaneKind lk;

      if (!JSON_NODE_HOLDS_OBJECT (lane))
        return damaged (error, _("annotation %u has an invalid “lane”"), index + 1);
      lo = json_node_get_object (lane);
      if (!lane_kind_from_string (get_string (lo, "kind"), &lk) || get_string (lo, "process") == NULL)
        return damaged (error, _("annotation %u has an invalid “lane”"), index + 1);
      p->lane = g_new0 (CpLaneIdentity, 1);
      p->lane->kind = lk;
      p->lane->process = g_strdup (valid_text (p, get_string (lo, "process")));
      p->lane->name = g_strdup (get_string (lo, "name") ? valid_text (p, get_string (lo, "name")) : "");
      if (!get_int (lo, "number", &p->lane->number))
        p->lane->number = 0;
      p->record.lane = p->lane;
    }

  slice = json_object_get_member (o, "slice");
  if (slice != NULL && !JSON_NODE_HOLDS_NULL (slice))
    {
      JsonObject *so;

      if (!JSON_NODE_HOLDS_OBJECT (slice) || p->lane == NULL)
        return damaged (error, _("annotation %u has an invalid “slice”"), index + 1);
      so = json_node_get_object (slice);
      if (!get_int (so, "start_ns", &p->record.slice_start) || get_string (so, "name") == NULL)
        return damaged (error, _("annotation %u has an invalid “slice”"), index + 1);
      p->record.slice_name = valid_text (p, get_string (so, "name"));
      if (__builtin_add_overflow (p->record.slice_start, shift, &p->record.slice_start))
        return damaged (error, _("annotation %u has times out of range"), index + 1);
      p->record.attached = TRUE;
    }

  if (__builtin_add_overflow (p->record.start, shift, &p->record.start) ||
      __builtin_add_overflow (p->record.end, shift, &p->record.end))
    return damaged (error, _("annotation %u has times out of range"), index + 1);
  return TRUE;
}

gboolean
cp_sidecar_parse (const char    *data,
                  gssize         len,
                  CpAnnotations *annotations,
                  GError       **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GArray) parsed = NULL;
  JsonNode *root, *list;
  JsonObject *o;
  JsonArray *array;
  gint64 version = 0, origin = 0, shift = 0;
  CpTrace *trace;

  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (CP_IS_ANNOTATIONS (annotations), FALSE);

  /* json-glib recurses once per nesting level (see cp-limits.h). */
  if (!cp_json_depth_within (data, len < 0 ? strlen (data) : (gsize) len, CP_JSON_MAX_DOM_DEPTH))
    return damaged (error, _("it is nested deeper than the limit of %u levels"), CP_JSON_MAX_DOM_DEPTH);
  if (!json_parser_load_from_data (parser, data, len, &local_error))
    {
      /* json-glib quotes the offending text, which may not be UTF-8. */
      g_autofree char *why = g_utf8_make_valid (local_error->message, -1);

      return damaged (error, _("it is not valid JSON (%s)"), why);
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return damaged (error, _("it is not a JSON object"));
  o = json_node_get_object (root);
  if (g_strcmp0 (get_string (o, "format"), CP_SIDECAR_FORMAT) != 0)
    return damaged (error, _("it is not a Chokepoint annotations file"));
  if (!get_int (o, "schema_version", &version) || version < 1)
    return damaged (error, _("it has no valid “schema_version”"));
  if (version > CP_SIDECAR_SCHEMA_VERSION)
    {
      g_set_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_NEWER,
                   _("it was written by a newer version of Chokepoint (schema version %"
                     PRId64 ", this version reads %d)"),
                   version, CP_SIDECAR_SCHEMA_VERSION);
      return FALSE;
    }

  /* Times are from the capture's origin: move them if this trace's origin
   * is not the one they were written against. */
  trace = cp_annotations_get_trace (annotations);
  if (trace != NULL && json_object_has_member (o, "capture"))
    {
      JsonNode *capture = json_object_get_member (o, "capture");

      if (!JSON_NODE_HOLDS_OBJECT (capture))
        return damaged (error, _("its “capture” is not an object"));
      if (get_int (json_node_get_object (capture), "origin_abs_ns", &origin))
        {
          if (__builtin_sub_overflow (origin, cp_trace_get_origin_abs (trace), &shift))
            return damaged (error, _("its “capture” origin is out of range"));
        }
    }

  list = json_object_get_member (o, "annotations");
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    return damaged (error, _("it has no “annotations” list"));
  array = json_node_get_array (list);

  parsed = g_array_sized_new (FALSE, TRUE, sizeof (Parsed), json_array_get_length (array));
  g_array_set_clear_func (parsed, parsed_clear);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      Parsed p = { 0 };

      if (!parse_annotation (json_array_get_element (array, i), i, shift, &p, error))
        {
          parsed_clear (&p);
          return FALSE;
        }
      g_array_append_val (parsed, p);
    }

  for (guint i = 0; i < parsed->len; i++)
    cp_annotations_restore (annotations, &g_array_index (parsed, Parsed, i).record);
  return TRUE;
}

/* Capture hash ------------------------------------------------------------- */

static gboolean
hash_stream_span (GChecksum     *sum,
                  GInputStream  *in,
                  gsize          n,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_autofree guchar *buf = g_malloc (64 * 1024);

  while (n > 0)
    {
      gssize r = g_input_stream_read (in, buf, MIN (n, 64 * 1024), cancellable, error);

      if (r < 0)
        return FALSE;
      if (r == 0)
        break;
      g_checksum_update (sum, buf, r);
      n -= r;
    }
  return TRUE;
}

typedef struct
{
  char   *path;
  goffset size;
} Entry;

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (((const Entry *) a)->path, ((const Entry *) b)->path);
}

static void
entry_clear (gpointer data)
{
  g_free (((Entry *) data)->path);
}

static gboolean
list_folder (GFile         *root,
             GFile         *folder,
             guint          depth,
             GArray        *entries,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GFileEnumerator) e = NULL;

  e = g_file_enumerate_children (folder,
                                 G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                 G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                 G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                 G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, error);
  if (e == NULL)
    return FALSE;
  while (entries->len < MAX_HASH_ENTRIES)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;
      Entry entry;

      if (!g_file_enumerator_iterate (e, &info, &child, cancellable, error))
        return FALSE;
      if (info == NULL)
        break;
      /* Our own sidecars may be written into the folder's parent, never
       * into it, but skip them anyway: they change. */
      if (g_str_has_suffix (g_file_info_get_name (info), CP_SIDECAR_SUFFIX))
        continue;
      entry.path = g_file_get_relative_path (root, child);
      entry.size = g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR ? g_file_info_get_size (info) : -1;
      g_array_append_val (entries, entry);
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY && depth < MAX_HASH_DEPTH &&
          !list_folder (root, child, depth + 1, entries, cancellable, error))
        return FALSE;
    }
  return TRUE;
}

char *
cp_sidecar_hash_capture (GFile         *capture,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GFileInfo) info = NULL;
  goffset size;

  g_return_val_if_fail (G_IS_FILE (capture), NULL);

  info = g_file_query_info (capture, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (info == NULL)
    return NULL;

  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      g_autoptr(GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));

      g_array_set_clear_func (entries, entry_clear);
      if (!list_folder (capture, capture, 0, entries, cancellable, error))
        return NULL;
      g_array_sort (entries, compare_entries);
      g_checksum_update (sum, (const guchar *) "chokepoint-folder\n", -1);
      for (guint i = 0; i < entries->len; i++)
        {
          const Entry *en = &g_array_index (entries, Entry, i);
          g_autofree char *line = g_strdup_printf ("%s\t%" G_GINT64_FORMAT "\n", en->path, (gint64) en->size);

          g_checksum_update (sum, (const guchar *) line, -1);
        }
      return g_strdup (g_checksum_get_string (sum));
    }

  size = g_file_info_get_size (info);
  {
    g_autoptr(GFileInputStream) in = g_file_read (capture, cancellable, error);
    g_autofree char *head = g_strdup_printf ("chokepoint-file\n%" G_GINT64_FORMAT "\n", (gint64) size);
    goffset tail_start;

    if (in == NULL)
      return NULL;
    g_checksum_update (sum, (const guchar *) head, -1);
    if (!hash_stream_span (sum, G_INPUT_STREAM (in), MIN (size, CP_SIDECAR_HASH_SPAN), cancellable, error))
      return NULL;
    tail_start = MAX (size - CP_SIDECAR_HASH_SPAN, CP_SIDECAR_HASH_SPAN);
    if (tail_start < size)
      {
        if (!g_seekable_seek (G_SEEKABLE (in), tail_start, G_SEEK_SET, cancellable, error))
          return NULL;
        if (!hash_stream_span (sum, G_INPUT_STREAM (in), size - tail_start, cancellable, error))
          return NULL;
      }
  }
  return g_strdup (g_checksum_get_string (sum));
}

/* Writing ------------------------------------------------------------------ */

gboolean
cp_sidecar_write_atomic (GFile       *file,
                         const char  *data,
                         gsize        len,
                         GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("this kind of location cannot be written to"));
      return FALSE;
    }
  /* A temporary file beside it, fsync()ed, then renamed over it: the old
   * file stays whole until the new one is complete on disk. */
  return g_file_set_contents_full (path, data, len,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0644, error);
}

/* CpSidecar ---------------------------------------------------------------- */

typedef enum
{
  PROBLEM_NONE,
  PROBLEM_DAMAGED,
  PROBLEM_NEWER,
  PROBLEM_UNREADABLE,
} Problem;

struct _CpSidecar
{
  GObject                parent_instance;

  GFile                 *capture;
  CpAnnotations         *annotations;
  GFile                 *primary;
  GMainContext          *context;
  CpSidecarWritableFunc  writable_func;
  gpointer               writable_data;

  /* Guards everything below, which a writer thread reads and changes. */
  GMutex                 lock;
  char                  *fallback_folder;
  char                  *hash;
  gint64                 capture_bytes;
  GFile                 *file;
  gboolean               use_fallback;  /* the capture's folder is out */
  gboolean               disabled;      /* nowhere left to write */
  gboolean               merged;        /* both copies were read: the data folder's
                                         * goes once the primary holds both */
  guint64                written_serial;

  /* Held by a writer for a whole write, so writes never interleave. */
  GMutex                 write_lock;

  /* Main thread only. */
  char                  *merge_note;
  Problem                problem;
  GFile                 *problem_file;
  guint                  autosave_ms;
  guint                  autosave_id;
  gboolean               writing;
};

G_DEFINE_FINAL_TYPE (CpSidecar, cp_sidecar, G_TYPE_OBJECT)

enum {
  SIGNAL_SAVED,
  SIGNAL_RELOCATED,
  SIGNAL_SAVE_FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
default_writable (GFile    *folder,
                  gpointer  user_data)
{
  g_autofree char *path = g_file_get_path (folder);

  return path != NULL && g_access (path, W_OK) == 0;
}

CpSidecar *
cp_sidecar_new (GFile         *capture,
                CpAnnotations *annotations)
{
  CpSidecar *self;
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GFile) parent = NULL;

  g_return_val_if_fail (G_IS_FILE (capture), NULL);
  g_return_val_if_fail (CP_IS_ANNOTATIONS (annotations), NULL);

  self = g_object_new (CP_TYPE_SIDECAR, NULL);
  self->capture = g_object_ref (capture);
  self->annotations = g_object_ref (annotations);
  base = g_file_get_basename (capture);
  name = g_strconcat (base ? base : "capture", CP_SIDECAR_SUFFIX, NULL);
  parent = g_file_get_parent (capture);
  self->primary = parent ? g_file_get_child (parent, name) : g_file_new_for_path (name);
  return self;
}

GFile *
cp_sidecar_get_capture (CpSidecar *self)
{
  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);
  return self->capture;
}

CpAnnotations *
cp_sidecar_get_annotations (CpSidecar *self)
{
  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);
  return self->annotations;
}

GFile *
cp_sidecar_get_primary_file (CpSidecar *self)
{
  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);
  return self->primary;
}

void
cp_sidecar_set_fallback_folder (CpSidecar  *self,
                                const char *path)
{
  g_return_if_fail (CP_IS_SIDECAR (self));

  g_mutex_lock (&self->lock);
  g_free (self->fallback_folder);
  self->fallback_folder = g_strdup (path);
  g_mutex_unlock (&self->lock);
}

void
cp_sidecar_set_writable_func (CpSidecar             *self,
                              CpSidecarWritableFunc  func,
                              gpointer               user_data)
{
  g_return_if_fail (CP_IS_SIDECAR (self));

  self->writable_func = func ? func : default_writable;
  self->writable_data = func ? user_data : NULL;
}

/* Hashes the capture once (call with the lock held). */
static const char *
ensure_hash (CpSidecar  *self,
             GError    **error)
{
  if (self->hash == NULL)
    {
      g_autoptr(GFileInfo) info = g_file_query_info (self->capture, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                     G_FILE_QUERY_INFO_NONE, NULL, NULL);

      self->hash = cp_sidecar_hash_capture (self->capture, NULL, error);
      self->capture_bytes = info ? g_file_info_get_size (info) : -1;
    }
  return self->hash;
}

/* Call with the lock held. */
static GFile *
fallback_file_locked (CpSidecar  *self,
                      GError    **error)
{
  g_autofree char *name = NULL;
  const char *hash = ensure_hash (self, error);

  if (hash == NULL)
    return NULL;
  name = g_strconcat (hash, CP_SIDECAR_SUFFIX, NULL);
  if (self->fallback_folder != NULL)
    return g_file_new_build_filename (self->fallback_folder, name, NULL);
  return g_file_new_build_filename (g_get_user_data_dir (), "chokepoint", "annotations", name, NULL);
}

GFile *
cp_sidecar_get_fallback_file (CpSidecar *self,
                              GError   **error)
{
  GFile *file;

  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);

  g_mutex_lock (&self->lock);
  file = fallback_file_locked (self, error);
  g_mutex_unlock (&self->lock);
  return file;
}

GFile *
cp_sidecar_get_file (CpSidecar *self)
{
  GFile *file;

  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);

  g_mutex_lock (&self->lock);
  file = self->file;
  g_mutex_unlock (&self->lock);
  return file;
}

gboolean
cp_sidecar_is_fallback (CpSidecar *self)
{
  gboolean ret;

  g_return_val_if_fail (CP_IS_SIDECAR (self), FALSE);

  g_mutex_lock (&self->lock);
  ret = self->file != NULL && !g_file_equal (self->file, self->primary);
  g_mutex_unlock (&self->lock);
  return ret;
}

static char *
dup_display (GFile *file)
{
  return g_file_get_parse_name (file);
}

/* Reads one candidate. Returns TRUE when the file was read into the
 * annotations, FALSE with *absent when it does not exist, else FALSE with an
 * error (CP_SIDECAR_ERROR). */
static gboolean
read_candidate_into (CpAnnotations  *annotations,
                     GFile          *file,
                     gboolean       *absent,
                     GError        **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *data = NULL;
  g_autofree char *where = dup_display (file);
  gsize len = 0;

  *absent = FALSE;
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (info == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      *absent = TRUE;
      return FALSE;
    }
  if (info != NULL && g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DAMAGED,
                   _("The annotations file “%s” cannot be read: it is not a regular file"), where);
      return FALSE;
    }
  if (info != NULL && g_file_info_get_size (info) > MAX_SIDECAR_BYTES)
    {
      g_set_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DAMAGED,
                   _("The annotations file “%s” cannot be read: it is too large to be one"), where);
      return FALSE;
    }
  if (info == NULL || !g_file_load_contents (file, NULL, &data, &len, NULL, &local_error))
    {
      g_set_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_IO,
                   _("The annotations file “%s” cannot be read: %s"), where, local_error->message);
      return FALSE;
    }
  if (!cp_sidecar_parse (data, len, annotations, &local_error))
    {
      g_set_error (error, CP_SIDECAR_ERROR, local_error->code,
                   _("The annotations file “%s” cannot be used: %s"), where, local_error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_candidate (CpSidecar  *self,
                GFile      *file,
                gboolean   *absent,
                GError    **error)
{
  return read_candidate_into (self->annotations, file, absent, error);
}

static void
set_problem (CpSidecar *self,
             GFile     *file,
             GError    *error)
{
  if (error->code == CP_SIDECAR_ERROR_NEWER)
    self->problem = PROBLEM_NEWER;
  else if (error->code == CP_SIDECAR_ERROR_DAMAGED)
    self->problem = PROBLEM_DAMAGED;
  else
    self->problem = PROBLEM_UNREADABLE;
  g_set_object (&self->problem_file, file);
}

static void schedule_autosave (CpSidecar *self);

/* The annotation as a record, to restore it into another collection. */
static void
record_from_annotation (CpAnnotation       *a,
                        CpAnnotationRecord *r)
{
  memset (r, 0, sizeof *r);
  r->id = cp_annotation_get_id (a);
  r->kind = cp_annotation_get_kind (a);
  r->text = cp_annotation_get_text (a);
  r->rgba = cp_annotation_get_color (a);
  r->start = cp_annotation_get_start (a);
  r->end = cp_annotation_get_end (a);
  r->created = cp_annotation_get_created (a);
  r->modified = cp_annotation_get_modified (a);
  r->lane = cp_annotation_get_lane_identity (a);
  r->attached = cp_annotation_is_attached (a);
  r->slice_start = cp_annotation_get_slice_start (a);
  r->slice_name = cp_annotation_get_slice_name (a);
  r->rule = cp_annotation_get_rule (a);
}

/* Merges from into into: an annotation is the same one when its id and
 * creation time match, and the copy changed last wins; the others are
 * added (with a new id when theirs is taken). Returns how many of from's
 * differed from into's. */
static guint
merge_annotations (CpAnnotations *into,
                   CpAnnotations *from)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (from));
  g_autoptr(GPtrArray) theirs = g_ptr_array_new_with_free_func (g_object_unref);
  guint differed = 0;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (theirs, g_list_model_get_item (G_LIST_MODEL (from), i));
  for (guint i = 0; i < theirs->len; i++)
    {
      CpAnnotation *b = g_ptr_array_index (theirs, i);
      CpAnnotation *a = cp_annotations_lookup (into, cp_annotation_get_id (b));
      CpAnnotationRecord r;

      record_from_annotation (b, &r);
      if (a != NULL && cp_annotation_get_created (a) == r.created)
        {
          if (cp_annotation_get_modified (a) == r.modified)
            continue;
          differed++;
          if (cp_annotation_get_modified (a) > r.modified)
            continue;
          cp_annotations_remove (into, a);
        }
      else
        differed++;
      cp_annotations_restore (into, &r);
    }
  return differed;
}

/* Both copies exist (the capture's folder was out for a while, or another
 * window saved in the data folder): the data folder's is merged in. */
static void
merge_fallback (CpSidecar *self)
{
  g_autoptr(GFile) fallback = cp_sidecar_get_fallback_file (self, NULL);
  g_autoptr(CpAnnotations) theirs = NULL;
  g_autoptr(GError) local_error = NULL;
  gboolean absent;
  guint differed;

  if (fallback == NULL)
    return;
  theirs = cp_annotations_new ();
  cp_annotations_set_trace (theirs, cp_annotations_get_trace (self->annotations));
  if (!read_candidate_into (theirs, fallback, &absent, &local_error))
    {
      cp_annotations_set_trace (theirs, NULL);
      if (absent)
        return;
      /* The copy beside the capture is used; the other is left alone. */
      g_free (self->merge_note);
      self->merge_note = g_strdup_printf (_("A second copy of the notes could not be used (%s); it "
                                            "is left as it is"), local_error->message);
      return;
    }
  differed = merge_annotations (self->annotations, theirs);
  cp_annotations_set_trace (theirs, NULL);
  g_mutex_lock (&self->lock);
  self->merged = TRUE;
  g_mutex_unlock (&self->lock);
  if (differed > 0)
    {
      g_autofree char *where = dup_display (fallback);

      g_free (self->merge_note);
      self->merge_note =
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                      "The notes beside the capture and the copy in “%s” disagreed: "
                                      "%u note was merged in from that copy",
                                      "The notes beside the capture and the copy in “%s” disagreed: "
                                      "%u notes were merged in from that copy",
                                      differed),
                        where, differed);
    }
}

const char *
cp_sidecar_get_merge_note (CpSidecar *self)
{
  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);
  return self->merge_note;
}

gboolean
cp_sidecar_load (CpSidecar *self,
                 GError   **error)
{
  g_autoptr(GError) primary_error = NULL;
  g_autoptr(GError) fallback_error = NULL;
  g_autoptr(GFile) fallback = NULL;
  gboolean absent;

  g_return_val_if_fail (CP_IS_SIDECAR (self), FALSE);

  if (read_candidate (self, self->primary, &absent, &primary_error))
    {
      guint64 serial = cp_annotations_get_serial (self->annotations);

      merge_fallback (self);
      g_mutex_lock (&self->lock);
      g_set_object (&self->file, self->primary);
      /* Merged notes are written back (to one place) by the next save. */
      self->written_serial = self->merged && cp_annotations_get_serial (self->annotations) != serial
                               ? serial : cp_annotations_get_serial (self->annotations);
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  if (!absent)
    {
      set_problem (self, self->primary, primary_error);
      /* Annotations this version saved while the primary was unusable. */
      if (self->problem == PROBLEM_NEWER)
        {
          fallback = cp_sidecar_get_fallback_file (self, NULL);
          if (fallback != NULL && read_candidate (self, fallback, &absent, NULL))
            {
              g_mutex_lock (&self->lock);
              g_set_object (&self->file, fallback);
              g_mutex_unlock (&self->lock);
            }
        }
      g_mutex_lock (&self->lock);
      self->written_serial = cp_annotations_get_serial (self->annotations);
      g_mutex_unlock (&self->lock);
      g_propagate_error (error, g_steal_pointer (&primary_error));
      return FALSE;
    }

  /* Nothing beside the capture: the fallback folder. Hashing needs to read
   * the capture; when that fails there is simply no fallback to read. */
  fallback = cp_sidecar_get_fallback_file (self, NULL);
  if (fallback == NULL)
    return TRUE;
  if (read_candidate (self, fallback, &absent, &fallback_error))
    {
      g_mutex_lock (&self->lock);
      g_set_object (&self->file, fallback);
      self->written_serial = cp_annotations_get_serial (self->annotations);
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  if (absent)
    return TRUE;
  set_problem (self, fallback, fallback_error);
  g_mutex_lock (&self->lock);
  self->written_serial = cp_annotations_get_serial (self->annotations);
  g_mutex_unlock (&self->lock);
  g_propagate_error (error, g_steal_pointer (&fallback_error));
  return FALSE;
}

gboolean
cp_sidecar_has_problem (CpSidecar *self)
{
  g_return_val_if_fail (CP_IS_SIDECAR (self), FALSE);
  return self->problem != PROBLEM_NONE;
}

/* Renames a file aside to <name>.damaged, .damaged-2, ...; returns the new
 * file or NULL. */
static GFile *
rename_aside (GFile   *file,
              GError **error)
{
  g_autofree char *base = g_file_get_basename (file);
  g_autoptr(GFile) parent = g_file_get_parent (file);

  for (guint i = 1; i < 1000; i++)
    {
      g_autofree char *name = i == 1 ? g_strconcat (base, CP_SIDECAR_DAMAGED_SUFFIX, NULL)
                                     : g_strdup_printf ("%s%s-%u", base, CP_SIDECAR_DAMAGED_SUFFIX, i);
      g_autoptr(GFile) target = g_file_get_child (parent, name);
      g_autoptr(GError) local_error = NULL;

      if (g_file_move (file, target, G_FILE_COPY_NOFOLLOW_SYMLINKS | G_FILE_COPY_NO_FALLBACK_FOR_MOVE,
                       NULL, NULL, NULL, &local_error))
        return g_steal_pointer (&target);
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("too many damaged copies already"));
  return NULL;
}

char *
cp_sidecar_accept_problem (CpSidecar *self)
{
  g_autofree char *where = NULL;
  g_autofree char *message = NULL;
  gboolean is_primary;

  g_return_val_if_fail (CP_IS_SIDECAR (self), NULL);

  if (self->problem == PROBLEM_NONE)
    return NULL;

  where = dup_display (self->problem_file);
  is_primary = g_file_equal (self->problem_file, self->primary);

  if (self->problem == PROBLEM_DAMAGED)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GFile) kept = rename_aside (self->problem_file, &error);

      if (kept != NULL)
        {
          g_autofree char *kept_name = dup_display (kept);

          message = g_strdup_printf (_("It was kept as “%s”; new annotations are saved to a fresh file."),
                                     kept_name);
        }
      else if (is_primary)
        {
          /* It cannot even be renamed: leave it, and save elsewhere. */
          g_mutex_lock (&self->lock);
          self->use_fallback = TRUE;
          g_mutex_unlock (&self->lock);
          message = g_strdup_printf (_("It was left as it is (%s); new annotations are saved in the "
                                       "application’s data folder."), error->message);
        }
      else
        {
          g_mutex_lock (&self->lock);
          self->disabled = TRUE;
          g_mutex_unlock (&self->lock);
          message = g_strdup_printf (_("It was left as it is (%s); new annotations will not be saved."),
                                     error->message);
        }
    }
  else if (is_primary)
    {
      g_autoptr(GFile) fallback = NULL;

      g_mutex_lock (&self->lock);
      self->use_fallback = TRUE;
      fallback = fallback_file_locked (self, NULL);
      g_mutex_unlock (&self->lock);
      if (fallback != NULL)
        {
          g_autofree char *fallback_name = dup_display (fallback);

          message = g_strdup_printf (_("It is left as it is; annotations made now are saved in “%s”."),
                                     fallback_name);
        }
      else
        {
          g_mutex_lock (&self->lock);
          self->disabled = TRUE;
          g_mutex_unlock (&self->lock);
          message = g_strdup (_("It is left as it is; annotations made now will not be saved."));
        }
    }
  else
    {
      /* The fallback itself is unusable: nowhere else to go. */
      g_mutex_lock (&self->lock);
      self->disabled = TRUE;
      g_mutex_unlock (&self->lock);
      message = g_strdup (_("It is left as it is; annotations made now will not be saved."));
    }

  self->problem = PROBLEM_NONE;
  g_clear_object (&self->problem_file);
  schedule_autosave (self);
  return g_steal_pointer (&message);
}

/* Emissions from a writer thread, delivered on the owner's context. */
typedef struct
{
  CpSidecar *self;
  guint      signal;
  GFile     *file;
  char      *text;
} Emission;

static void
emission_free (gpointer data)
{
  Emission *e = data;

  g_object_unref (e->self);
  g_clear_object (&e->file);
  g_free (e->text);
  g_free (e);
}

static gboolean
emission_dispatch (gpointer data)
{
  Emission *e = data;

  if (e->signal == SIGNAL_SAVED)
    g_signal_emit (e->self, signals[SIGNAL_SAVED], 0, e->file);
  else if (e->signal == SIGNAL_RELOCATED)
    g_signal_emit (e->self, signals[SIGNAL_RELOCATED], 0, e->file, e->text);
  else
    g_signal_emit (e->self, signals[SIGNAL_SAVE_FAILED], 0, e->text);
  return G_SOURCE_REMOVE;
}

/* Queues an emission; flush_emissions() delivers them once no lock is held,
 * so that handlers may call back into the sidecar. */
static void
emit_later (CpSidecar  *self,
            GPtrArray  *queue,
            guint       signal,
            GFile      *file,
            const char *text)
{
  Emission *e = g_new0 (Emission, 1);

  e->self = g_object_ref (self);
  e->signal = signal;
  e->file = file ? g_object_ref (file) : NULL;
  e->text = g_strdup (text);
  g_ptr_array_add (queue, e);
}

static void
flush_emissions (CpSidecar *self,
                 GPtrArray *queue)
{
  for (guint i = 0; i < queue->len; i++)
    g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, emission_dispatch,
                                g_ptr_array_index (queue, i), emission_free);
  g_ptr_array_set_size (queue, 0);
}

/* One write: a snapshot of the annotations taken on the main thread. */
typedef struct
{
  JsonNode *annotations;
  guint64   serial;
  gboolean  have_origin;
  gint64    origin;
} Snapshot;

static void
snapshot_free (gpointer data)
{
  Snapshot *s = data;

  g_clear_pointer (&s->annotations, json_node_unref);
  g_free (s);
}

static Snapshot *
take_snapshot (CpSidecar *self)
{
  Snapshot *s = g_new0 (Snapshot, 1);
  CpTrace *trace = cp_annotations_get_trace (self->annotations);

  s->annotations = annotations_to_node (self->annotations);
  s->serial = cp_annotations_get_serial (self->annotations);
  s->have_origin = trace != NULL;
  s->origin = trace ? cp_trace_get_origin_abs (trace) : 0;
  return s;
}

static gboolean
ensure_folder (GFile   *file,
               GError **error)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GError) local_error = NULL;

  if (parent == NULL || g_file_make_directory_with_parents (parent, NULL, &local_error) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/* Writes a snapshot beside the capture, else in the fallback folder. Runs
 * in any thread; emits on the owner's context. */
static gboolean write_snapshot_locked (CpSidecar  *self,
                                       Snapshot   *snap,
                                       GPtrArray  *queue,
                                       GError    **error);

static gboolean
write_snapshot (CpSidecar  *self,
                Snapshot   *snap,
                GError    **error)
{
  g_autoptr(GPtrArray) queue = g_ptr_array_new ();
  gboolean ok;

  g_mutex_lock (&self->write_lock);
  ok = write_snapshot_locked (self, snap, queue, error);
  g_mutex_unlock (&self->write_lock);
  flush_emissions (self, queue);
  return ok;
}

/* Call with the write lock held. */
static gboolean
write_snapshot_locked (CpSidecar  *self,
                       Snapshot   *snap,
                       GPtrArray  *queue,
                       GError    **error)
{
  g_autoptr(GError) primary_error = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFile) fallback = NULL;
  g_autoptr(GFile) previous = NULL;
  g_autofree char *data = NULL;
  g_autofree char *name = g_file_get_basename (self->capture);
  gboolean use_fallback, disabled;
  const char *hash;
  gint64 bytes;
  gboolean ok = FALSE;

  g_mutex_lock (&self->lock);
  if (snap->serial <= self->written_serial)
    {
      /* A later snapshot was written already. */
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  use_fallback = self->use_fallback;
  disabled = self->disabled;
  hash = ensure_hash (self, NULL);
  bytes = self->capture_bytes;
  previous = self->file ? g_object_ref (self->file) : NULL;
  data = document_to_json (json_node_ref (snap->annotations), snap->have_origin, snap->origin,
                           name, bytes, hash);
  g_mutex_unlock (&self->lock);

  if (disabled)
    {
      g_set_error_literal (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DISABLED,
                           _("Annotations are not saved for this capture"));
      return FALSE;
    }

  if (!use_fallback)
    {
      g_autoptr(GFile) folder = g_file_get_parent (self->primary);

      if (folder != NULL && !self->writable_func (folder, self->writable_data))
        g_set_error_literal (&primary_error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                             _("the capture’s folder is read-only"));
      else if (cp_sidecar_write_atomic (self->primary, data, strlen (data), &primary_error))
        {
          gboolean merged;

          g_mutex_lock (&self->lock);
          g_set_object (&self->file, self->primary);
          self->written_serial = snap->serial;
          merged = self->merged;
          self->merged = FALSE;
          fallback = merged ? fallback_file_locked (self, NULL) : NULL;
          g_mutex_unlock (&self->lock);
          /* The primary holds both copies now: one place again. */
          if (fallback != NULL)
            g_file_delete (fallback, NULL, NULL);
          emit_later (self, queue, SIGNAL_SAVED, self->primary, NULL);
          return TRUE;
        }
    }

  /* The capture's folder is out: the user data folder, by content hash. */
  g_mutex_lock (&self->lock);
  fallback = fallback_file_locked (self, &local_error);
  g_mutex_unlock (&self->lock);
  if (fallback != NULL && ensure_folder (fallback, &local_error) &&
      cp_sidecar_write_atomic (fallback, data, strlen (data), &local_error))
    {
      g_mutex_lock (&self->lock);
      g_set_object (&self->file, fallback);
      self->use_fallback = TRUE;
      self->written_serial = snap->serial;
      g_mutex_unlock (&self->lock);
      if (previous == NULL || !g_file_equal (previous, fallback))
        {
          g_autofree char *why = NULL;

          if (primary_error != NULL)
            why = g_strdup_printf (_("Annotations could not be saved beside the capture (%s)"),
                                   primary_error->message);
          else
            why = g_strdup (_("Annotations cannot be saved beside the capture"));
          emit_later (self, queue, SIGNAL_RELOCATED, fallback, why);
        }
      emit_later (self, queue, SIGNAL_SAVED, fallback, NULL);
      ok = TRUE;
    }
  else
    {
      g_autofree char *msg = NULL;

      if (primary_error != NULL)
        msg = g_strdup_printf (_("Annotations could not be saved: %s; nor in the data folder: %s"),
                               primary_error->message,
                               local_error ? local_error->message : _("unknown error"));
      else
        msg = g_strdup_printf (_("Annotations could not be saved: %s"),
                               local_error ? local_error->message : _("unknown error"));
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, msg);
      emit_later (self, queue, SIGNAL_SAVE_FAILED, NULL, msg);
    }
  return ok;
}

gboolean
cp_sidecar_has_unsaved_changes (CpSidecar *self)
{
  gboolean ret;

  g_return_val_if_fail (CP_IS_SIDECAR (self), FALSE);

  g_mutex_lock (&self->lock);
  ret = cp_annotations_get_serial (self->annotations) > self->written_serial;
  g_mutex_unlock (&self->lock);
  return ret;
}

gboolean
cp_sidecar_save (CpSidecar *self,
                 GError   **error)
{
  Snapshot *snap;
  gboolean ok;

  g_return_val_if_fail (CP_IS_SIDECAR (self), FALSE);

  if (self->problem != PROBLEM_NONE || !cp_sidecar_has_unsaved_changes (self))
    return TRUE;
  snap = take_snapshot (self);
  ok = write_snapshot (self, snap, error);
  snapshot_free (snap);
  return ok;
}

static void
write_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  GError *error = NULL;

  if (write_snapshot (CP_SIDECAR (source), task_data, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void start_write (CpSidecar *self);

static void
write_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  CpSidecar *self = CP_SIDECAR (source);
  g_autoptr(GError) error = NULL;

  self->writing = FALSE;
  /* Failures were emitted as "save-failed"; the next change tries again. */
  if (g_task_propagate_boolean (G_TASK (result), &error) &&
      cp_sidecar_has_unsaved_changes (self) && self->autosave_id == 0)
    schedule_autosave (self);
}

static void
start_write (CpSidecar *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->writing || self->problem != PROBLEM_NONE || !cp_sidecar_has_unsaved_changes (self))
    return;
  self->writing = TRUE;
  task = g_task_new (self, NULL, write_done_cb, NULL);
  g_task_set_source_tag (task, start_write);
  g_task_set_task_data (task, take_snapshot (self), snapshot_free);
  g_task_run_in_thread (task, write_thread);
}

static gboolean
autosave_cb (gpointer user_data)
{
  CpSidecar *self = user_data;

  self->autosave_id = 0;
  if (self->writing)
    return G_SOURCE_REMOVE;   /* write_done_cb() schedules the rest */
  start_write (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_autosave (CpSidecar *self)
{
  GSource *source;

  if (self->autosave_ms == 0 || self->problem != PROBLEM_NONE)
    return;
  if (self->autosave_id != 0)
    {
      GSource *old = g_main_context_find_source_by_id (self->context, self->autosave_id);

      if (old != NULL)
        g_source_destroy (old);
      self->autosave_id = 0;
    }
  source = g_timeout_source_new (self->autosave_ms);
  g_source_set_callback (source, autosave_cb, self, NULL);
  g_source_set_name (source, "[chokepoint] sidecar autosave");
  self->autosave_id = g_source_attach (source, self->context);
  g_source_unref (source);
}

static void
annotations_changed_cb (CpSidecar *self)
{
  schedule_autosave (self);
}

void
cp_sidecar_set_autosave (CpSidecar *self,
                         guint      delay_ms)
{
  g_return_if_fail (CP_IS_SIDECAR (self));

  self->autosave_ms = delay_ms;
  g_signal_handlers_disconnect_by_func (self->annotations, annotations_changed_cb, self);
  if (delay_ms > 0)
    g_signal_connect_object (self->annotations, "changed", G_CALLBACK (annotations_changed_cb), self,
                             G_CONNECT_SWAPPED);
  /* Changes made before, such as notes merged in by the load. */
  if (delay_ms > 0 && cp_sidecar_has_unsaved_changes (self))
    schedule_autosave (self);
}

gboolean
cp_sidecar_flush (CpSidecar *self,
                  GError   **error)
{
  g_return_val_if_fail (CP_IS_SIDECAR (self), FALSE);

  if (self->autosave_id != 0)
    {
      GSource *old = g_main_context_find_source_by_id (self->context, self->autosave_id);

      if (old != NULL)
        g_source_destroy (old);
      self->autosave_id = 0;
    }
  /* A write in flight holds the write lock: this one waits for it, and the
   * serial check keeps the newest content. */
  return cp_sidecar_save (self, error);
}

static void
cp_sidecar_dispose (GObject *object)
{
  CpSidecar *self = CP_SIDECAR (object);

  if (self->autosave_id != 0)
    {
      GSource *old = g_main_context_find_source_by_id (self->context, self->autosave_id);

      if (old != NULL)
        g_source_destroy (old);
      self->autosave_id = 0;
    }
  if (self->annotations != NULL)
    g_signal_handlers_disconnect_by_func (self->annotations, annotations_changed_cb, self);

  G_OBJECT_CLASS (cp_sidecar_parent_class)->dispose (object);
}

static void
cp_sidecar_finalize (GObject *object)
{
  CpSidecar *self = CP_SIDECAR (object);

  g_clear_object (&self->capture);
  g_clear_object (&self->annotations);
  g_clear_object (&self->primary);
  g_clear_object (&self->file);
  g_clear_object (&self->problem_file);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->fallback_folder);
  g_free (self->hash);
  g_free (self->merge_note);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->write_lock);

  G_OBJECT_CLASS (cp_sidecar_parent_class)->finalize (object);
}

static void
cp_sidecar_class_init (CpSidecarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = cp_sidecar_dispose;
  object_class->finalize = cp_sidecar_finalize;

  signals[SIGNAL_SAVED] =
    g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
  signals[SIGNAL_RELOCATED] =
    g_signal_new ("relocated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_FILE, G_TYPE_STRING);
  signals[SIGNAL_SAVE_FAILED] =
    g_signal_new ("save-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
cp_sidecar_init (CpSidecar *self)
{
  g_mutex_init (&self->lock);
  g_mutex_init (&self->write_lock);
  self->writable_func = default_writable;
  self->context = g_main_context_ref_thread_default ();
  self->capture_bytes = -1;
}
