/* cp-mcp-tools.c: the tools of `chokepoint mcp`, the capture cache and the
 * path policy
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every tool that has a command line twin returns the JSON that command
 * prints, made by the same function (info, diagnose, compare, diagnose of
 * ranks) or by running the command itself (history, whose output is taken
 * from g_print()). lane_slices and search_slices have no twin; their JSON
 * is in docs/mcp.md.
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cp-compare.h"
#include "cp-cli.h"
#include "cp-mcp-private.h"
#include "formats/cp-loader.h"
#include "render/cp-search.h"

#define PAGE_DEFAULT 200
#define PAGE_MAX     5000
#define MIB          (1024.0 * 1024.0)

/* Paths */

static gboolean
inside (const char *path,
        const char *root)
{
  gsize n = strlen (root);

  if (strcmp (root, "/") == 0)
    return TRUE;
  return strncmp (path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The path with its links and ".." resolved, when it lies in a root. */
static char *
resolve (CpMcpServer  *self,
         const char   *path,
         GError      **error)
{
  char *real;
  g_autofree char *copy = NULL;
  g_autoptr(GString) roots = g_string_new (NULL);

  if (path[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The path is empty"));
      return NULL;
    }
  real = realpath (path, NULL);
  if (real == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("“%s”: %s"), path, g_strerror (saved));
      return NULL;
    }
  copy = g_strdup (real);
  free (real);
  for (guint i = 0; i < self->roots->len; i++)
    {
      if (inside (copy, self->roots->pdata[i]))
        return g_steal_pointer (&copy);
      g_string_append_printf (roots, "%s%s", i > 0 ? ", " : "", (const char *) self->roots->pdata[i]);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
               _("“%s” is outside the folders this server may read (%s)"), path, roots->str);
  return NULL;
}

/* The cache */

static void
entry_free (CpMcpEntry *e)
{
  g_free (e->key);
  g_clear_object (&e->analysis);
  g_clear_object (&e->trace);
  g_clear_object (&e->job);
  g_free (e);
}

void
cp_mcp_cache_clear (CpMcpServer *self)
{
  g_queue_clear_full (&self->cache, (GDestroyNotify) entry_free);
  self->cache_bytes = 0;
}

/* Drops the least recently used entries, but never the newest, while the
 * cache takes more than the limit. */
static void
cache_trim (CpMcpServer *self)
{
  while (self->cache_bytes > self->memory_limit && self->cache.length > 1)
    {
      CpMcpEntry *e = g_queue_pop_tail (&self->cache);

      g_printerr (_("chokepoint mcp: dropped %s from the cache (%.1f MiB)\n"), e->key, (double) e->bytes / MIB);
      self->cache_bytes -= e->bytes;
      entry_free (e);
    }
}

static CpMcpEntry *
cache_find (CpMcpServer *self,
            const char  *key,
            gint64       mtime,
            gint64       size)
{
  for (GList *l = self->cache.head; l != NULL; l = l->next)
    {
      CpMcpEntry *e = l->data;

      if (strcmp (e->key, key) != 0)
        continue;
      g_queue_unlink (&self->cache, l);
      if (e->mtime != mtime || e->size != size)
        {
          /* Rewritten since it was read. */
          self->cache_bytes -= e->bytes;
          entry_free (e);
          g_list_free (l);
          return NULL;
        }
      g_queue_push_head_link (&self->cache, l);
      return e;
    }
  return NULL;
}

static void
cache_add (CpMcpServer *self,
           CpMcpEntry  *e)
{
  g_queue_push_head (&self->cache, e);
  self->cache_bytes += e->bytes;
  self->n_loads++;
  cache_trim (self);
}

static gboolean
stat_path (const char  *path,
           gint64      *mtime,
           gint64      *size,
           GError     **error)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("“%s”: %s"), path, g_strerror (saved));
      return FALSE;
    }
  *mtime = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
  *size = st.st_size;
  return TRUE;
}

/* The capture at path (an argument), loaded or from the cache. */
static CpMcpEntry *
get_capture (CpMcpServer  *self,
             const char   *path,
             GError      **error)
{
  g_autofree char *real = resolve (self, path, error);
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;
  CpMcpEntry *e;
  gint64 mtime = 0, size = 0;
  guint64 peak;
  gint64 t0;

  if (real == NULL || !stat_path (real, &mtime, &size, error))
    return NULL;
  e = cache_find (self, real, mtime, size);
  if (e != NULL)
    return e;

  file = g_file_new_for_path (real);
  peak = cp_load_estimate_peak (file);
  if (peak > self->memory_limit)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("Reading “%s” takes about %.0f MiB, more than this server’s memory limit of %.0f MiB (--memory-limit)"),
                   path, (double) peak / MIB, (double) self->memory_limit / MIB);
      return NULL;
    }
  t0 = g_get_monotonic_time ();
  g_printerr (_("chokepoint mcp: reading %s…\n"), real);
  trace = cp_load_file (file, self->cancellable, NULL, NULL, error);
  if (trace == NULL)
    return NULL;
  e = g_new0 (CpMcpEntry, 1);
  e->key = g_steal_pointer (&real);
  e->mtime = mtime;
  e->size = size;
  e->bytes = cp_trace_get_memory_size (trace);
  e->trace = g_steal_pointer (&trace);
  g_printerr (_("chokepoint mcp: loaded %s (%.1f MiB in memory, %.2f s)\n"), e->key, (double) e->bytes / MIB,
              (double) (g_get_monotonic_time () - t0) / G_USEC_PER_SEC);
  cache_add (self, e);
  return e;
}

static CpAnalysis *
get_analysis (CpMcpServer  *self,
              const char   *path,
              GError      **error)
{
  CpMcpEntry *e = get_capture (self, path, error);

  if (e == NULL)
    return NULL;
  if (e->analysis == NULL)
    e->analysis = cp_analysis_new (e->trace, self->cancellable, error);
  return e->analysis != NULL ? g_object_ref (e->analysis) : NULL;
}

/* Arguments (already checked against the tool's list) */

static const char *
arg_string (JsonObject *args,
            const char *name,
            const char *fallback)
{
  JsonNode *v = json_object_get_member (args, name);

  return v != NULL ? json_node_get_string (v) : fallback;
}

static gint64
arg_int (JsonObject *args,
         const char *name,
         gint64      fallback)
{
  JsonNode *v = json_object_get_member (args, name);

  return v != NULL ? json_node_get_int (v) : fallback;
}

static gboolean
arg_bool (JsonObject *args,
          const char *name,
          gboolean    fallback)
{
  JsonNode *v = json_object_get_member (args, name);

  return v != NULL ? json_node_get_boolean (v) : fallback;
}

/* The cursor of a paged tool: the position to go on from, as text. */
static gboolean
arg_cursor (JsonObject  *args,
            guint64     *position,
            GError     **error)
{
  const char *text = arg_string (args, "cursor", NULL);

  *position = 0;
  if (text == NULL)
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT32, position, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a cursor this server gave (use next_cursor of the previous page)"), text);
      return FALSE;
    }
  return TRUE;
}

/* Parses the JSON text a command line function wrote. */
static JsonNode *
parse_json (char    *text,
            GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *owned = text;

  if (owned == NULL || !json_parser_load_from_data (parser, owned, -1, error))
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("The result could not be written"));
      return NULL;
    }
  return json_node_copy (json_parser_get_root (parser));
}

/* The tools */

static JsonNode *
tool_summary (CpMcpServer  *self,
              JsonObject   *args,
              GError      **error)
{
  CpMcpEntry *e = get_capture (self, arg_string (args, "path", ""), error);

  return e != NULL ? parse_json (cp_cli_info_to_json (e->trace, FALSE), error) : NULL;
}

static JsonNode *
tool_diagnose (CpMcpServer  *self,
               JsonObject   *args,
               GError      **error)
{
  g_autoptr(CpAnalysis) a = get_analysis (self, arg_string (args, "path", ""), error);

  return a != NULL ? parse_json (cp_analysis_to_json (a, FALSE), error) : NULL;
}

static JsonNode *
tool_kernel_stats (CpMcpServer  *self,
                   JsonObject   *args,
                   GError      **error)
{
  static const char * const members[] = { "kernel_time_ns", "kernel_names", "kernels", "host_op_names", "host_ops",
                                          "xla_ops", NULL };
  g_autoptr(JsonNode) whole = tool_diagnose (self, args, error);
  JsonObject *metrics, *out;
  JsonNode *node;

  if (whole == NULL)
    return NULL;
  metrics = json_object_get_object_member (json_node_get_object (whole), "metrics");
  out = json_object_new ();
  for (guint i = 0; members[i] != NULL; i++)
    if (json_object_has_member (metrics, members[i]))
      json_object_set_member (out, members[i], json_node_copy (json_object_get_member (metrics, members[i])));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, out);
  return node;
}

static void
add_lane (JsonBuilder *b,
          CpTrace     *trace,
          guint        index)
{
  CpLane *lane = cp_trace_get_lane (trace, index);
  const CpProcess *p = cp_trace_get_process (trace, cp_lane_get_process (lane));

  json_builder_set_member_name (b, "lane");
  json_builder_add_int_value (b, index);
  json_builder_set_member_name (b, "lane_name");
  json_builder_add_string_value (b, cp_lane_get_name (lane));
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, cp_lane_kind_to_string (cp_lane_get_kind (lane)));
  json_builder_set_member_name (b, "process");
  json_builder_add_string_value (b, cp_trace_get_string (trace, p->key));
}

static void
add_slice (JsonBuilder *b,
           CpTrace     *trace,
           CpSliceRef   ref,
           gboolean     with_lane)
{
  const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, ref.lane));

  json_builder_begin_object (b);
  if (with_lane)
    add_lane (b, trace, ref.lane);
  json_builder_set_member_name (b, "index");
  json_builder_add_int_value (b, ref.index);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, cp_trace_get_string (trace, cp_slices_get_name (s, ref.index)));
  json_builder_set_member_name (b, "category");
  json_builder_add_string_value (b, cp_trace_get_string (trace, cp_slices_get_cat (s, ref.index)));
  json_builder_set_member_name (b, "start_ns");
  json_builder_add_int_value (b, cp_slices_get_start (s, ref.index));
  json_builder_set_member_name (b, "dur_ns");
  json_builder_add_int_value (b, cp_slices_get_dur (s, ref.index));
  json_builder_set_member_name (b, "depth");
  json_builder_add_int_value (b, s->row[ref.index]);
  json_builder_end_object (b);
}

static void
add_cursor (JsonBuilder *b,
            guint64      next,
            guint64      total)
{
  json_builder_set_member_name (b, "next_cursor");
  if (next < total)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, next);

      json_builder_add_string_value (b, text);
    }
  else
    json_builder_add_null_value (b);
}

static JsonNode *
tool_lane_slices (CpMcpServer  *self,
                  JsonObject   *args,
                  GError      **error)
{
  CpMcpEntry *e = get_capture (self, arg_string (args, "path", ""), error);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  gint64 start = arg_int (args, "start_ns", G_MININT64), end = arg_int (args, "end_ns", G_MAXINT64);
  gint64 limit = arg_int (args, "limit", PAGE_DEFAULT), lane_index = arg_int (args, "lane", 0);
  g_autoptr(GArray) hits = g_array_new (FALSE, FALSE, sizeof (guint));
  const CpSlices *s;
  guint64 cursor;
  guint hi, lo, a, z;

  if (e == NULL || !arg_cursor (args, &cursor, error))
    return NULL;
  if (lane_index >= cp_trace_get_n_lanes (e->trace))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("The capture has %u lanes (0 to %u); there is no lane %" PRId64 " (capture_summary lists them)"),
                   cp_trace_get_n_lanes (e->trace), MAX (cp_trace_get_n_lanes (e->trace), 1) - 1, lane_index);
      return NULL;
    }
  if (start > end)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("start_ns is after end_ns"));
      return NULL;
    }
  s = cp_lane_get_slices (cp_trace_get_lane (e->trace, (guint) lane_index));

  /* Slices overlap [start, end) when they start before end and end after
   * start (a slice of no length at start counts). Starts are sorted: the
   * candidates are those before the first start at or after end. */
  lo = 0;
  hi = s->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (cp_slices_get_start (s, mid) < end)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint i = 0; i < lo; i++)
    {
      gint64 st = cp_slices_get_start (s, i), en = cp_slices_get_end (s, i);

      if (en > start || (st >= start && en == st))
        g_array_append_val (hits, i);
    }

  json_builder_begin_object (b);
  add_lane (b, e->trace, (guint) lane_index);
  json_builder_set_member_name (b, "start_ns");
  if (start != G_MININT64)
    json_builder_add_int_value (b, start);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "end_ns");
  if (end != G_MAXINT64)
    json_builder_add_int_value (b, end);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, hits->len);
  json_builder_set_member_name (b, "slices");
  json_builder_begin_array (b);
  a = (guint) MIN (cursor, hits->len);
  z = (guint) MIN ((guint64) a + (guint64) limit, hits->len);
  for (guint i = a; i < z; i++)
    add_slice (b, e->trace, (CpSliceRef) { (guint32) lane_index, g_array_index (hits, guint, i) }, FALSE);
  json_builder_end_array (b);
  add_cursor (b, z, hits->len);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static JsonNode *
tool_search (CpMcpServer  *self,
             JsonObject   *args,
             GError      **error)
{
  CpMcpEntry *e = get_capture (self, arg_string (args, "path", ""), error);
  const char *query = arg_string (args, "query", "");
  gboolean regex = arg_bool (args, "regex", FALSE);
  gint64 limit = arg_int (args, "limit", PAGE_DEFAULT);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(CpSearchResult) r = NULL;
  guint64 cursor;
  guint a, z;

  if (e == NULL || !arg_cursor (args, &cursor, error))
    return NULL;
  r = cp_search_run (e->trace, query, regex ? CP_SEARCH_REGEX : CP_SEARCH_SUBSTRING, NULL, error);
  if (r == NULL)
    return NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "query");
  json_builder_add_string_value (b, query);
  json_builder_set_member_name (b, "regex");
  json_builder_add_boolean_value (b, regex);
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, r->n_matches);
  json_builder_set_member_name (b, "names");
  json_builder_add_int_value (b, r->n_names);
  json_builder_set_member_name (b, "total_ns");
  json_builder_add_int_value (b, r->total);
  json_builder_set_member_name (b, "max_ns");
  json_builder_add_int_value (b, r->max);
  json_builder_set_member_name (b, "slices");
  json_builder_begin_array (b);
  a = (guint) MIN (cursor, r->n_matches);
  z = (guint) MIN ((guint64) a + (guint64) limit, r->n_matches);
  for (guint i = a; i < z; i++)
    add_slice (b, e->trace, r->by_time[i], TRUE);
  json_builder_end_array (b);
  add_cursor (b, z, r->n_matches);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static JsonNode *
tool_compare (CpMcpServer  *self,
              JsonObject   *args,
              GError      **error)
{
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(CpAnalysis) b = NULL;
  g_autoptr(CpComparison) c = NULL;
  g_autoptr(GError) local = NULL;
  const char *steps = arg_string (args, "steps", "order");

  /* Each side keeps its own reference, so that reading B may drop A from
   * the cache without freeing it. */
  a = get_analysis (self, arg_string (args, "a", ""), &local);
  if (a == NULL)
    {
      g_set_error (error, local->domain, local->code, _("A: %s"), local->message);
      return NULL;
    }
  b = get_analysis (self, arg_string (args, "b", ""), &local);
  if (b == NULL)
    {
      g_set_error (error, local->domain, local->code, _("B: %s"), local->message);
      return NULL;
    }
  c = cp_comparison_new (a, b, arg_bool (args, "by_op", FALSE) ? CP_COMPARE_KERNELS_BY_OP : CP_COMPARE_KERNELS_BY_NAME);
  if (!cp_comparison_check (c, error))
    return NULL;
  if (strcmp (steps, "number") == 0 && !cp_comparison_set_step_match (c, CP_COMPARE_STEPS_BY_NUMBER))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           _("steps=number: no step number is found in both A and B"));
      return NULL;
    }
  return parse_json (cp_comparison_to_json (c, FALSE), error);
}

static JsonNode *
tool_job (CpMcpServer  *self,
          JsonObject   *args,
          GError      **error)
{
  JsonArray *paths = json_object_get_array_member (args, "paths");
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(GString) key = g_string_new ("job");
  g_autoptr(CpJob) job = NULL;
  CpJobOptions options = { arg_bool (args, "align_clocks", TRUE) };
  gint64 newest = 0, total = 0;
  CpMcpEntry *e;

  if (json_array_get_length (paths) == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Give the captures of the ranks, or one folder of them"));
      return NULL;
    }
  if (json_array_get_length (paths) == 1)
    {
      g_autofree char *folder = resolve (self, json_array_get_string_element (paths, 0), error);
      g_autoptr(GFile) dir = NULL;

      if (folder == NULL)
        return NULL;
      dir = g_file_new_for_path (folder);
      files = cp_job_list_folder (dir, error);
      if (files == NULL)
        return NULL;
    }
  else
    {
      files = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < json_array_get_length (paths); i++)
        g_ptr_array_add (files, g_file_new_for_path (json_array_get_string_element (paths, i)));
    }
  /* Every file is checked, those of a folder too: a link inside it may
   * point anywhere. */
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *given = g_file_get_path (files->pdata[i]);
      g_autofree char *real = given != NULL ? resolve (self, given, error) : NULL;
      gint64 mtime = 0, size = 0;

      if (real == NULL || !stat_path (real, &mtime, &size, error))
        {
          if (error != NULL && *error == NULL)
            g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("A rank is not a local file"));
          return NULL;
        }
      g_string_append_printf (key, "\n%s", real);
      newest = MAX (newest, mtime);
      total += size;
      g_object_unref (files->pdata[i]);
      files->pdata[i] = g_file_new_for_path (real);
    }
  g_string_append_printf (key, "\n%d", options.align_clocks);

  e = cache_find (self, key->str, newest, total);
  if (e == NULL)
    {
      job = cp_job_open ((GFile * const *) files->pdata, files->len, &options, self->cancellable, error);
      if (job == NULL)
        return NULL;
      e = g_new0 (CpMcpEntry, 1);
      e->key = g_strdup (key->str);
      e->mtime = newest;
      e->size = total;
      for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
        e->bytes += cp_trace_get_memory_size (cp_job_get_rank (job, k)->trace);
      e->job = g_object_ref (job);
      g_printerr (_("chokepoint mcp: loaded the %u ranks of a job (%.1f MiB in memory)\n"),
                  cp_job_get_n_ranks (job), (double) e->bytes / MIB);
      cache_add (self, e);
    }
  else
    job = g_object_ref (e->job);
  return parse_json (cp_job_to_json (job, FALSE), error);
}

/* The history tools run `chokepoint history SUB --json` itself, with what
 * it prints taken from g_print() and g_printerr(). */
static GString *captured_out;
static GString *captured_err;

static void
capture_out (const char *text)
{
  g_string_append (captured_out, text);
}

static void
capture_err (const char *text)
{
  g_string_append (captured_err, text);
}

static JsonNode *
run_history (CpMcpServer  *self,
             GPtrArray    *argv,
             GError      **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GString) err = g_string_new (NULL);
  g_autofree char **args = NULL;
  GPrintFunc old_out, old_err;
  int status;

  if (self->database != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("--database=%s", self->database));
  g_ptr_array_add (argv, g_strdup ("--json"));
  g_ptr_array_add (argv, NULL);
  /* The option parser moves and drops the pointers it is given: it gets a
   * copy, and argv keeps them to free. */
  args = g_memdup2 (argv->pdata, argv->len * sizeof (char *));

  captured_out = out;
  captured_err = err;
  old_out = g_set_print_handler (capture_out);
  old_err = g_set_printerr_handler (capture_err);
  status = cp_cli_history ((int) argv->len - 1, args);
  g_set_print_handler (old_out);
  g_set_printerr_handler (old_err);
  captured_out = captured_err = NULL;

  if (status != CP_EXIT_OK)
    {
      g_strchomp (err->str);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           err->len > 0 ? err->str : _("The history command failed"));
      return NULL;
    }
  return parse_json (g_string_free (g_steal_pointer (&out), FALSE), error);
}

static void
add_filter (GPtrArray  *argv,
            JsonObject *args)
{
  JsonArray *labels = json_object_has_member (args, "labels") ? json_object_get_array_member (args, "labels") : NULL;

  if (json_object_has_member (args, "since"))
    g_ptr_array_add (argv, g_strdup_printf ("--since=%s", arg_string (args, "since", "")));
  for (guint i = 0; labels != NULL && i < json_array_get_length (labels); i++)
    g_ptr_array_add (argv, g_strdup_printf ("--label=%s", json_array_get_string_element (labels, i)));
}

static JsonNode *
tool_history_list (CpMcpServer  *self,
                   JsonObject   *args,
                   GError      **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (argv, g_strdup ("history"));
  g_ptr_array_add (argv, g_strdup ("list"));
  add_filter (argv, args);
  if (json_object_has_member (args, "limit"))
    g_ptr_array_add (argv, g_strdup_printf ("--limit=%" G_GINT64_FORMAT, arg_int (args, "limit", 0)));
  return run_history (self, argv, error);
}

static JsonNode *
tool_history_trend (CpMcpServer  *self,
                    JsonObject   *args,
                    GError      **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (argv, g_strdup ("history"));
  g_ptr_array_add (argv, g_strdup ("trend"));
  g_ptr_array_add (argv, g_strdup_printf ("--metric=%s", arg_string (args, "metric", "")));
  add_filter (argv, args);
  if (json_object_has_member (args, "threshold"))
    {
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_dtostr (number, sizeof number, json_object_get_double_member (args, "threshold"));
      g_ptr_array_add (argv, g_strdup_printf ("--threshold=%s", number));
    }
  return run_history (self, argv, error);
}

static JsonNode *
tool_history_show (CpMcpServer  *self,
                   JsonObject   *args,
                   GError      **error)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  const char *run = arg_string (args, "run", "");

  /* An id or a hash never starts with "-"; an option must not slip in. */
  if (run[0] == '-' || run[0] == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s” is not a run id or hash"), run);
      return NULL;
    }
  g_ptr_array_add (argv, g_strdup ("history"));
  g_ptr_array_add (argv, g_strdup ("show"));
  g_ptr_array_add (argv, g_strdup (run));
  return run_history (self, argv, error);
}

/* The table */

#define PATH_ARG { "path", CP_MCP_ARG_STRING, TRUE, "The capture: a Kineto/Chrome trace JSON (.json, .json.gz, .json.zst), an XPlane .pb or a profile folder", NULL, 0, 0 }
#define END_ARG { NULL, 0, FALSE, NULL, NULL, 0, 0 }
#define LABELS_ARG { "labels", CP_MCP_ARG_STRINGS, FALSE, "Only runs with these labels, each KEY=VALUE", NULL, 0, 0 }
#define SINCE_ARG { "since", CP_MCP_ARG_STRING, FALSE, "Only runs since WHEN: a date (2026-12-01), a date and time (2026-12-01T09:30:00Z) or an age (12h, 7d, 2w)", NULL, 0, 0 }

static const CpMcpArg path_args[] = { PATH_ARG, END_ARG };

static const CpMcpArg lane_args[] = {
  PATH_ARG,
  { "lane", CP_MCP_ARG_INTEGER, TRUE, "The lane's index in capture_summary's lane_list", NULL, 0, G_MAXUINT32 },
  { "start_ns", CP_MCP_ARG_INTEGER, FALSE, "Start of the range, ns from the capture's origin (default: the beginning)", NULL, 0, 0 },
  { "end_ns", CP_MCP_ARG_INTEGER, FALSE, "End of the range, ns from the capture's origin (default: the end)", NULL, 0, 0 },
  { "limit", CP_MCP_ARG_INTEGER, FALSE, "Slices per page (default 200)", NULL, 1, PAGE_MAX },
  { "cursor", CP_MCP_ARG_STRING, FALSE, "next_cursor of the previous page", NULL, 0, 0 },
  END_ARG
};

static const CpMcpArg search_args[] = {
  PATH_ARG,
  { "query", CP_MCP_ARG_STRING, TRUE, "Text in the slice names (case-insensitive unless it has capitals), or a regular expression with regex", NULL, 0, 0 },
  { "regex", CP_MCP_ARG_BOOLEAN, FALSE, "Read query as a regular expression (GRegex syntax)", NULL, 0, 0 },
  { "limit", CP_MCP_ARG_INTEGER, FALSE, "Slices per page, in time order (default 200)", NULL, 1, PAGE_MAX },
  { "cursor", CP_MCP_ARG_STRING, FALSE, "next_cursor of the previous page", NULL, 0, 0 },
  END_ARG
};

static const char * const step_choices[] = { "order", "number", NULL };

static const CpMcpArg compare_args[] = {
  { "a", CP_MCP_ARG_STRING, TRUE, "Capture before the change", NULL, 0, 0 },
  { "b", CP_MCP_ARG_STRING, TRUE, "Capture after the change", NULL, 0, 0 },
  { "by_op", CP_MCP_ARG_BOOLEAN, FALSE, "Match kernels by the host op that launched them, not by name", NULL, 0, 0 },
  { "steps", CP_MCP_ARG_STRING, FALSE, "Pair steps in order (default) or by their step number", step_choices, 0, 0 },
  END_ARG
};

static const CpMcpArg job_args[] = {
  { "paths", CP_MCP_ARG_STRINGS, TRUE, "The captures of the ranks, or one folder of them", NULL, 0, 0 },
  { "align_clocks", CP_MCP_ARG_BOOLEAN, FALSE, "Align the hosts' clocks by the ends of their collectives (default true)", NULL, 0, 0 },
  END_ARG
};

static const CpMcpArg list_args[] = {
  SINCE_ARG,
  LABELS_ARG,
  { "limit", CP_MCP_ARG_INTEGER, FALSE, "At most this many runs, the newest", NULL, 1, G_MAXINT32 },
  END_ARG
};

static const CpMcpArg trend_args[] = {
  { "metric", CP_MCP_ARG_STRING, TRUE, "The metric: step_time.mean, gpu.utilization, input.share... (as diagnose --fail-if)", NULL, 0, 0 },
  SINCE_ARG,
  LABELS_ARG,
  { "threshold", CP_MCP_ARG_NUMBER, FALSE, "Percent worse than the median of the runs before that marks a regression", NULL, 0, 0 },
  END_ARG
};

static const CpMcpArg show_args[] = {
  { "run", CP_MCP_ARG_STRING, TRUE, "The run's id or content hash", NULL, 0, 0 },
  END_ARG
};

const CpMcpTool cp_mcp_tools[] = {
  { "capture_summary", "Capture summary",
    "What a capture holds: format, events, slices by kind, devices, steps, time span, what was skipped while "
    "reading, and every lane (its index is what lane_slices takes). The JSON of `chokepoint info --json`.",
    path_args, tool_summary },
  { "diagnose", "Diagnose a capture",
    "Why the accelerator waits: the verdict, the time breakdown, per-device metrics, kernel and host op "
    "statistics, steps and the findings with their fixes. The JSON of `chokepoint diagnose --json` "
    "(docs/diagnose-json.md).",
    path_args, tool_diagnose },
  { "lane_slices", "Slices of a lane in a time range",
    "The slices of one lane that overlap a time range, in start order, a page at a time: name, category, "
    "start_ns, dur_ns, depth. Pass next_cursor back as cursor for the next page.",
    lane_args, tool_lane_slices },
  { "search_slices", "Search slices by name",
    "Every slice of the capture whose name matches, in time order, a page at a time, with how many match, "
    "their distinct names, total and longest duration.",
    search_args, tool_search },
  { "kernel_stats", "Kernel and op statistics",
    "Per kernel name and per host op: count, total, mean and longest time, share of kernel time; and the XLA "
    "op profile for XPlane captures. The members kernel_time_ns, kernel_names, kernels, host_op_names, "
    "host_ops and xla_ops of diagnose's metrics.",
    path_args, tool_kernel_stats },
  { "compare", "Compare two captures",
    "Matches two captures of the same program, A before and B after a change: steps, breakdown, kernels, host "
    "ops, devices and findings, and what explains the change of the mean step time. The JSON of "
    "`chokepoint compare --json` (docs/compare-json.md).",
    compare_args, tool_compare },
  { "job_ranks", "Ranks of a distributed job",
    "Reads the per-rank captures of one distributed run: each rank's figures, the matched collectives and "
    "their skew, the straggler and the job findings. The JSON of `chokepoint diagnose --json A B...`.",
    job_args, tool_job },
  { "history_list", "Recorded runs",
    "The runs recorded in the run history (diagnose --record), newest first, with their figures and labels. "
    "The JSON of `chokepoint history list --json` (docs/history.md).",
    list_args, tool_history_list },
  { "history_trend", "A metric over time",
    "One metric over the recorded runs, oldest first, each with the median of the runs before it and whether "
    "it is a regression. The JSON of `chokepoint history trend --json`.",
    trend_args, tool_history_trend },
  { "history_show", "One recorded run",
    "Everything recorded about one run. The JSON of `chokepoint history show --json`.",
    show_args, tool_history_show },
  { NULL, NULL, NULL, NULL, NULL }
};
