/* cp-fuzz-main.c: runs a fuzz harness without libFuzzer
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Usage: fuzz-NAME FILE-OR-FOLDER...
 *
 * Runs the harness once on each file named, and on each file of each folder
 * named (not recursively, in name order): the test suite replays the seed
 * corpus and every saved crash this way. A harness that finds a bug aborts
 * (an assertion, a sanitizer report), so the exit status says it all.
 *
 * Built with AFL++'s compiler (afl-clang-fast, afl-cc), the program also
 * runs in AFL++'s persistent mode when it is given no arguments:
 *
 *   afl-fuzz -i tests/fuzz/corpus/NAME -o out -- build-afl/tests/fuzz/fuzz-NAME
 *
 * and it reads the file AFL++ names when it is started as `fuzz-NAME @@`. */

#include "config.h"

#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-fuzz.h"

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT ();
#endif

static gboolean
run_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  /* Give the harness a buffer of exactly the input's size, as libFuzzer
   * does, so that AddressSanitizer sees any read past its end. */
  {
    guint8 *copy = g_malloc (MAX (len, 1));

    memcpy (copy, data, len);
    LLVMFuzzerTestOneInput (copy, len);
    g_free (copy);
  }
  return TRUE;
}

static gint
cmp_names (gconstpointer a,
           gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
run_path (const char *path,
          guint      *n_run)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;
      gboolean ok = TRUE;

      if (dir == NULL)
        {
          g_printerr ("%s\n", error->message);
          return FALSE;
        }
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.' && strcmp (name, "README.md") != 0)
          g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_ptr_array_sort (names, cmp_names);
      for (guint i = 0; i < names->len; i++)
        {
          const char *p = g_ptr_array_index (names, i);

          if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
            {
              ok &= run_file (p);
              (*n_run)++;
            }
        }
      return ok;
    }
  (*n_run)++;
  return run_file (path);
}

int
main (int    argc,
      char **argv)
{
  gboolean ok = TRUE;
  guint n_run = 0;

#ifdef __AFL_FUZZ_TESTCASE_LEN
  if (argc < 2)
    {
      unsigned char *buf;

      __AFL_INIT ();
      buf = __AFL_FUZZ_TESTCASE_BUF;
      while (__AFL_LOOP (10000))
        {
          size_t len = __AFL_FUZZ_TESTCASE_LEN;
          guint8 *copy = g_malloc (MAX (len, 1));

          memcpy (copy, buf, len);
          LLVMFuzzerTestOneInput (copy, len);
          g_free (copy);
        }
      return 0;
    }
#endif

  if (argc < 2)
    {
      g_printerr ("Usage: %s FILE-OR-FOLDER...\n", argv[0]);
      return 2;
    }
  for (int i = 1; i < argc; i++)
    {
      if (!g_file_test (argv[i], G_FILE_TEST_EXISTS))
        {
          /* A harness without saved crashes has no crashes/ folder. */
          continue;
        }
      ok &= run_path (argv[i], &n_run);
    }
  {
    g_autofree char *base = g_path_get_basename (argv[0]);

    g_print ("%s: %u inputs replayed\n", base, n_run);
  }
  return ok ? 0 : 1;
}
