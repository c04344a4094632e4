/* cp-test-util.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "cp-test-util.h"
#include "analysis/cp-analysis.h"
#include "formats/cp-loader.h"

const char *
cp_test_shared_traces (void)
{
  static char *path = NULL;
  static gboolean checked = FALSE;

  if (!checked)
    {
      const char *env = g_getenv ("CP_SHARED_TRACES");

      checked = TRUE;
      if (env != NULL && g_file_test (env, G_FILE_TEST_IS_DIR))
        path = g_canonicalize_filename (env, NULL);
    }
  return path;
}

char *
cp_test_data_path (const char *name)
{
  const char *srcdir = g_getenv ("G_TEST_SRCDIR");

  if (srcdir == NULL)
    srcdir = ".";
  return g_build_filename (srcdir, "data", name, NULL);
}

char *
cp_test_make_tmpdir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("chokepoint-test-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
cp_test_rm_rf (const char *path)
{
  GDir *dir;
  const char *name;

  if (path == NULL)
    return;
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      dir = g_dir_open (path, 0, NULL);
      if (dir != NULL)
        {
          while ((name = g_dir_read_name (dir)) != NULL)
            {
              g_autofree char *child = g_build_filename (path, name, NULL);

              cp_test_rm_rf (child);
            }
          g_dir_close (dir);
        }
      g_chmod (path, 0700);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

char *
cp_test_write_file (const char *dir,
                    const char *name,
                    const void *data,
                    gssize      len)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  if (len < 0)
    len = strlen (data);
  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
  return path;
}

void
cp_test_run_generator (const char * const *argv,
                       const char         *truth_path,
                       JsonParser         *truth)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_file (truth, truth_path, &error));
  g_assert_no_error (error);
}

CpAnalysis *
cp_test_analyse (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  CpAnalysis *a;

  g_assert_no_error (error);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  return a;
}
