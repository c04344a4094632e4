/* cp-xplane-folder.c: finding the captures of a profile folder
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-memory-events.h"
#include "cp-protobuf.h"
#include "cp-xplane-private.h"

static gboolean
is_xplane_name (const char *name)
{
  return g_str_has_suffix (name, ".xplane.pb") || g_str_has_suffix (name, ".xplane.pb.gz") ||
         g_str_has_suffix (name, ".xplane.pb.zst");
}

/* The XPlane files directly in dir, sorted by name. */
static GPtrArray *
list_xplane_files (GFile        *dir,
                   GCancellable *cancellable)
{
  g_autoptr(GFileEnumerator) e = NULL;
  GPtrArray *files = g_ptr_array_new_with_free_func (g_object_unref);
  GFileInfo *info;

  e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                 G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  while (e != NULL && (info = g_file_enumerator_next_file (e, cancellable, NULL)) != NULL)
    {
      const char *name = g_file_info_get_name (info);

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR && is_xplane_name (name))
        g_ptr_array_add (files, g_file_get_child (dir, name));
      g_object_unref (info);
    }
  return files;
}

static gint
cmp_file_names (gconstpointer a,
                gconstpointer b)
{
  g_autofree char *x = g_file_get_basename (*(GFile **) a);
  g_autofree char *y = g_file_get_basename (*(GFile **) b);

  return strcmp (x, y);
}

static gboolean
looks_like_run_name (const char *name)
{
  /* %Y_%m_%d_%H_%M_%S */
  static const char pattern[] = "dddd_dd_dd_dd_dd_dd";

  for (guint i = 0; i < sizeof pattern - 1; i++)
    {
      if (name[i] == '\0')
        return FALSE;
      if (pattern[i] == 'd' ? !g_ascii_isdigit (name[i]) : name[i] != '_')
        return FALSE;
    }
  return TRUE;
}

/* The newest run folder under a plugins/profile folder that holds XPlane
 * files: by name when runs are named by their start time, else by mtime. */
static GFile *
newest_run (GFile        *profile_dir,
            GCancellable *cancellable)
{
  g_autoptr(GFileEnumerator) e = NULL;
  GFileInfo *info;
  GFile *best = NULL;
  char *best_name = NULL;
  guint64 best_mtime = 0;
  gboolean all_named = TRUE;
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GArray) mtimes = g_array_new (FALSE, FALSE, sizeof (guint64));

  e = g_file_enumerate_children (profile_dir,
                                 G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                 G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                 G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  while (e != NULL && (info = g_file_enumerator_next_file (e, cancellable, NULL)) != NULL)
    {
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          g_autoptr(GFile) child = g_file_get_child (profile_dir, g_file_info_get_name (info));
          g_autoptr(GPtrArray) files = list_xplane_files (child, cancellable);

          if (files->len > 0)
            {
              guint64 mtime = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED);

              all_named = all_named && looks_like_run_name (g_file_info_get_name (info));
              g_ptr_array_add (runs, g_steal_pointer (&child));
              g_array_append_val (mtimes, mtime);
            }
        }
      g_object_unref (info);
    }

  for (guint i = 0; i < runs->len; i++)
    {
      GFile *run = g_ptr_array_index (runs, i);
      g_autofree char *name = g_file_get_basename (run);
      guint64 mtime = g_array_index (mtimes, guint64, i);
      gboolean better;

      if (best == NULL)
        better = TRUE;
      else if (all_named)
        better = strcmp (name, best_name) > 0;
      else
        better = mtime > best_mtime || (mtime == best_mtime && strcmp (name, best_name) > 0);
      if (better)
        {
          best = run;
          g_free (best_name);
          best_name = g_steal_pointer (&name);
          best_mtime = mtime;
        }
    }
  g_free (best_name);
  return best != NULL ? g_object_ref (best) : NULL;
}

static GFile *
find_run_folder (GFile        *folder,
                 GCancellable *cancellable)
{
  g_autoptr(GPtrArray) direct = list_xplane_files (folder, cancellable);
  g_autoptr(GFile) profile = NULL;
  GFile *run;

  if (direct->len > 0)
    return g_object_ref (folder);
  /* A logdir: logdir/plugins/profile/<run>/. */
  profile = g_file_resolve_relative_path (folder, "plugins/profile");
  if (g_file_query_file_type (profile, G_FILE_QUERY_INFO_NONE, cancellable) == G_FILE_TYPE_DIRECTORY &&
      (run = newest_run (profile, cancellable)) != NULL)
    return run;
  /* plugins/profile itself (or any folder of runs). */
  return newest_run (folder, cancellable);
}

GPtrArray *
cp_xplane_folder_hosts (GFile        *folder,
                        GCancellable *cancellable)
{
  g_autoptr(GFile) run = find_run_folder (folder, cancellable);
  GPtrArray *files;

  if (run == NULL)
    return g_ptr_array_new_with_free_func (g_object_unref);
  files = list_xplane_files (run, cancellable);
  g_ptr_array_sort (files, cmp_file_names);
  return files;
}

CpTrace *
cp_xplane_load_folder (GFile               *folder,
                       GCancellable        *cancellable,
                       CpLoadProgressFunc   progress,
                       gpointer             progress_data,
                       GError             **error)
{
  g_autofree char *name = NULL;
  g_autoptr(GFile) run = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(CpXPlaneReader) reader = NULL;
  g_autoptr(GError) first_error = NULL;
  g_autofree char *title = NULL;
  g_autofree char *run_name = NULL;
  CpTrace *trace;
  CpTraceBuilder *builder;
  CpLoadReport *report;
  guint64 total = 0, base = 0;
  guint n_read = 0;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  name = g_file_get_parse_name (folder);
  run = find_run_folder (folder, cancellable);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (run == NULL)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                   _("“%s” is a folder without XPlane captures (.xplane.pb files), neither in it "
                     "nor in a plugins/profile/<run> folder below it"),
                   name);
      return NULL;
    }
  files = list_xplane_files (run, cancellable);
  g_ptr_array_sort (files, cmp_file_names);

  for (guint i = 0; i < files->len; i++)
    {
      g_autoptr(GFileInfo) info = g_file_query_info (g_ptr_array_index (files, i),
                                                     G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                     G_FILE_QUERY_INFO_NONE, cancellable, NULL);

      if (info != NULL)
        total += g_file_info_get_size (info);
    }

  builder = cp_trace_builder_new ();
  reader = cp_xplane_reader_new (builder);
  report = cp_trace_builder_get_report (builder);
  g_free (report->format);
  report->format = g_strdup ("xplane-folder");
  report->file_bytes = total;
  cp_trace_builder_set_file (builder, folder);
  run_name = g_file_get_basename (run);
  if (files->len > 1)
    title = g_strdup_printf (ngettext ("%s (%u host)", "%s (%u hosts)", files->len), run_name,
                             files->len);
  else
    title = g_strdup (run_name);
  cp_trace_builder_set_title (builder, title);

  for (guint i = 0; i < files->len; i++)
    {
      GFile *file = g_ptr_array_index (files, i);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(CpSource) source = cp_source_open (file, cancellable, &local_error);
      guint64 size = 0;

      if (source != NULL)
        {
          size = cp_source_get_file_size (source);
          if (cp_source_get_content_kind (source) != CP_CONTENT_XPLANE)
            g_set_error (&local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                         _("“%s” is not an XPlane capture: it looks like %s"),
                         cp_source_get_name (source), cp_source_get_guess (source));
          else if (cp_xplane_reader_read (reader, source, cancellable, progress, progress_data,
                                          base, total, &local_error))
            n_read++;
          else if (local_error != NULL && !g_str_has_prefix (local_error->message, "“"))
            g_prefix_error (&local_error, "“%s”: ", cp_source_get_name (source));
        }
      base += size;
      if (local_error != NULL)
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              cp_trace_builder_free (builder);
              g_propagate_error (error, g_steal_pointer (&local_error));
              return NULL;
            }
          cp_load_report_warn (report, G_MAXUINT64, "%s", local_error->message);
          if (first_error == NULL)
            first_error = g_steal_pointer (&local_error);
        }
    }

  if (n_read == 0)
    {
      cp_trace_builder_free (builder);
      if (first_error != NULL)
        g_propagate_error (error, g_steal_pointer (&first_error));
      else
        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                     _("“%s” holds no readable XPlane captures"), name);
      return NULL;
    }
  cp_xplane_reader_finish (reader);
  g_clear_pointer (&reader, cp_xplane_reader_free);
  trace = cp_trace_builder_finish (builder, error);
  if (trace != NULL)
    cp_memory_events_attach (trace);
  return trace;
}
