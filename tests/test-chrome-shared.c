/* test-chrome-shared.c: every real Chrome JSON capture under ../shared/traces
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Each capture (plain or gzip) must load without error, and its number of
 * duration slices must equal the independent count that tests/chrome-count.py
 * makes with Python's json module (the definition of a slice is written
 * there). Files the count calls "not a trace" (rocprofiler output, an
 * execution trace, a memory timeline) must be refused with a message that
 * says what they seem to be. */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "cp-test-util.h"
#include "formats/cp-loader.h"
#include "formats/cp-source.h"

static void
collect (const char *dir,
         GPtrArray  *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect (path, out);
      else if (!g_str_has_suffix (name, ".md"))
        {
          g_autoptr(GFile) file = g_file_new_for_path (path);
          g_autoptr(CpSource) source = cp_source_open (file, NULL, NULL);

          if (source != NULL &&
              (cp_source_get_content_kind (source) == CP_CONTENT_JSON_OBJECT ||
               cp_source_get_content_kind (source) == CP_CONTENT_JSON_ARRAY))
            g_ptr_array_add (out, g_steal_pointer (&path));
        }
    }
}

static gint
cmp_str (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
test_shared_traces (void)
{
  const char *root = cp_test_shared_traces ();
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  int status;
  guint checked = 0, refused = 0;

  if (root == NULL)
    {
      g_test_skip ("CP_SHARED_TRACES is not set or missing");
      return;
    }
  if (python == NULL)
    {
      g_test_skip ("python3 is not installed");
      return;
    }

  collect (root, files);
  g_ptr_array_sort (files, cmp_str);
  g_assert_cmpuint (files->len, >, 0);

  script = g_build_filename (g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".",
                             "chrome-count.py", NULL);
  g_ptr_array_add (argv, python);
  g_ptr_array_add (argv, script);
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (argv, g_ptr_array_index (files, i));
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);

  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;
      const char *path;
      g_autoptr(GFile) file = NULL;
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(GError) load_error = NULL;

      if (*lines[i] == '\0')
        continue;
      g_assert_true (json_parser_load_from_data (parser, lines[i], -1, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      path = json_object_get_string_member (o, "file");
      g_assert_false (json_object_has_member (o, "error"));
      file = g_file_new_for_path (path);
      trace = cp_load_file (file, NULL, NULL, NULL, &load_error);

      if (json_object_get_boolean_member_with_default (o, "not_a_trace", FALSE))
        {
          g_test_message ("%s: refused: %s", path, load_error ? load_error->message : "(loaded!)");
          g_assert_null (trace);
          g_assert_error (load_error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE);
          g_assert_nonnull (strstr (load_error->message, "not a trace"));
          refused++;
          continue;
        }

      g_test_message ("%s: %s", path, load_error ? load_error->message : "loaded");
      g_assert_no_error (load_error);
      g_assert_false (cp_trace_get_load_report (trace)->truncated);
      {
        guint64 slices = 0;

        for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
          {
            const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

            for (guint k = 0; k < s->n; k++)
              if (!(s->flags[k] & (CP_SLICE_INSTANT | CP_SLICE_ASYNC_INSTANT)))
                slices++;
          }
        g_assert_cmpint (slices, ==, json_object_get_int_member (o, "slices"));
      }
      checked++;
    }
  g_test_message ("%u captures checked, %u refused", checked, refused);
  g_assert_cmpuint (checked + refused, ==, files->len);
  /* The manifest's three negative inputs. */
  g_assert_cmpuint (refused, >=, 3);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chrome-shared/slice-counts", test_shared_traces);
  return g_test_run ();
}
