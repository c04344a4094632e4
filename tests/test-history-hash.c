/* test-history-hash.c: the name of a run (XXH64 of the capture's bytes),
 * checked against the xxHash project's own `xxhsum`, and runs recorded
 * under the SHA-256 name before, checked with GLib's GChecksum
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "formats/cp-loader.h"
#include "history/cp-history.h"
#include "cp-test-util.h"

/* "xxh64:" and what xxhsum says of the file, or NULL without xxhsum. */
static char *
xxhsum (const char *path)
{
  g_autofree char *exe = g_find_program_in_path ("xxhsum");
  const char *argv[] = { exe, "-H1", path, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (exe == NULL)
    return NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strchr (out, ' '));
  *strchr (out, ' ') = '\0';
  return g_strconcat ("xxh64:", out, NULL);
}

static gboolean
have_xxhsum (void)
{
  g_autofree char *exe = g_find_program_in_path ("xxhsum");

  return exe != NULL;
}

static char *
hash_path (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  char *hash = cp_history_hash_file (file, NULL, &error);

  g_assert_no_error (error);
  return hash;
}

static void
write_random (const char *path,
              gsize       len,
              guint32     seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autofree guint8 *bytes = g_malloc (MAX (len, 1));

  for (gsize i = 0; i < len; i++)
    bytes[i] = (guint8) g_rand_int (rand);
  g_assert_true (g_file_set_contents (path, (const char *) bytes, (gssize) len, NULL));
}

/* Every tail length the digest treats apart, a stripe either side, and the
 * reader's 1 MiB chunks crossed in the middle of a stripe. */
static void
test_files (void)
{
  const gsize lengths[] = { 0, 1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 31, 32, 33, 39, 63, 64, 65, 100, 1000,
                            (1 << 20) - 1, 1 << 20, (1 << 20) + 17, 3 * (1 << 20) + 5 };
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *empty = g_build_filename (dir, "empty", NULL);
  g_autofree char *empty_hash = NULL;

  /* The specification's value for no bytes, seed 0. */
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  empty_hash = hash_path (empty);
  g_assert_cmpstr (empty_hash, ==, "xxh64:ef46db3751d8e999");

  if (!have_xxhsum ())
    {
      g_test_skip ("xxhsum (Debian's xxhash) is missing: it is the oracle");
      cp_test_rm_rf (dir);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autofree char *name = g_strdup_printf ("f%zu", lengths[i]);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *want = NULL, *got = NULL;

      write_random (path, lengths[i], 7 + i);
      want = xxhsum (path);
      got = hash_path (path);
      g_assert_cmpstr (got, ==, want);
    }
  cp_test_rm_rf (dir);
}

/* A folder: each regular file's relative path, a NUL and its bytes, in
 * the order of the paths, hashed as one stream. */
static void
test_folder (void)
{
  const char *names[] = { "a/b/host1.xplane.pb", "a/host0.xplane.pb", "z.json" };
  const gsize sizes[] = { 70, 5000, 33 };
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *root = g_build_filename (dir, "profile", NULL);
  g_autofree char *stream = g_build_filename (dir, "stream", NULL);
  g_autoptr(GByteArray) all = g_byte_array_new ();
  g_autofree char *want = NULL, *got = NULL;

  if (!have_xxhsum ())
    {
      g_test_skip ("xxhsum (Debian's xxhash) is missing: it is the oracle");
      cp_test_rm_rf (dir);
      return;
    }
  /* Written in an order other than the paths'. */
  for (guint i = G_N_ELEMENTS (names); i-- > 0;)
    {
      g_autofree char *path = g_build_filename (root, names[i], NULL);
      g_autofree char *parent = g_path_get_dirname (path);

      g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
      write_random (path, sizes[i], 100 + i);
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (root, names[i], NULL);
      g_autofree char *contents = NULL;
      gsize len = 0;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      g_byte_array_append (all, (const guint8 *) names[i], (guint) strlen (names[i]) + 1);
      g_byte_array_append (all, (const guint8 *) contents, (guint) len);
    }
  g_assert_true (g_file_set_contents (stream, (const char *) all->data, all->len, NULL));
  want = xxhsum (stream);
  got = hash_path (root);
  g_assert_cmpstr (got, ==, want);
  cp_test_rm_rf (dir);
}

static char *
sha256_of (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_autofree char *hex = NULL;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
  return g_strconcat ("sha256:", hex, NULL);
}

static guint
count_runs (CpHistory *history)
{
  CpHistoryFilter filter = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) runs = cp_history_list (history, &filter, &error);

  g_assert_no_error (error);
  return runs->len;
}

/* A run recorded under its SHA-256 is the same run when its capture is
 * recorded again: it is renamed, nothing is added, and it can be named by
 * either hash prefix only as long as it carries it. Another capture written
 * over the same path, of the same size, is a new run. */
static void
test_legacy (void)
{
  g_autofree char *sample = cp_test_data_path ("captures/torch-input-bound-cpu.json.gz");
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *capture = g_build_filename (dir, "run.json.gz", NULL);
  g_autofree char *db = g_build_filename (dir, "history.sqlite", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *legacy = NULL, *current = NULL, *changed = NULL;
  g_autofree char *legacy_prefix = NULL, *current_prefix = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  CpHistory *history;
  CpHistoryRun *old_run, *new_run, *other, *found;
  gsize len = 0;
  gint64 id;
  gboolean added = FALSE;

  g_assert_true (g_file_get_contents (sample, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (capture, contents, (gssize) len, NULL));
  analysis = cp_test_analyse (capture);
  legacy = sha256_of (capture);
  current = hash_path (capture);
  g_assert_true (g_str_has_prefix (current, "xxh64:"));

  history = cp_history_open (db, TRUE, &error);
  g_assert_no_error (error);
  old_run = cp_history_run_new_from_analysis (analysis, legacy);
  g_assert_true (cp_history_add (history, old_run, &added, &error));
  g_assert_no_error (error);
  g_assert_true (added);
  id = old_run->id;
  legacy_prefix = g_strndup (legacy, strlen ("sha256:") + 12);
  found = cp_history_get_run (history, legacy_prefix, &error);
  g_assert_no_error (error);
  g_assert_cmpint (found->id, ==, id);
  cp_history_run_free (found);

  new_run = cp_history_run_new_from_analysis (analysis, current);
  g_assert_true (cp_history_add (history, new_run, &added, &error));
  g_assert_no_error (error);
  g_assert_false (added);
  g_assert_cmpint (new_run->id, ==, id);
  g_assert_cmpuint (count_runs (history), ==, 1);
  g_assert_cmpint (cp_history_lookup_hash (history, current, NULL), ==, id);
  g_assert_cmpint (cp_history_lookup_hash (history, legacy, NULL), ==, 0);
  g_assert_null (cp_history_get_run (history, legacy_prefix, &error));
  g_assert_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_NOT_FOUND);
  g_clear_error (&error);
  /* A bare prefix finds it under either name. */
  current_prefix = g_strdup (current + strlen ("xxh64:"));
  current_prefix[10] = '\0';
  found = cp_history_get_run (history, current_prefix, &error);
  g_assert_no_error (error);
  g_assert_cmpint (found->id, ==, id);
  g_assert_cmpstr (found->hash, ==, current);
  cp_history_run_free (found);

  /* Recorded again: still one run. */
  cp_history_run_free (new_run);
  new_run = cp_history_run_new_from_analysis (analysis, current);
  g_assert_true (cp_history_add (history, new_run, &added, &error));
  g_assert_false (added);
  g_assert_cmpuint (count_runs (history), ==, 1);

  /* The same path and size, other bytes, and a run of it under SHA-256. */
  cp_history_run_free (old_run);
  old_run = cp_history_run_new_from_analysis (analysis, "sha256:00000000000000000000000000000000"
                                                        "00000000000000000000000000000000");
  g_assert_true (cp_history_add (history, old_run, &added, &error));
  g_assert_true (added);
  contents[len - 1] ^= 0x55;
  g_assert_true (g_file_set_contents (capture, contents, (gssize) len, NULL));
  changed = hash_path (capture);
  g_assert_cmpstr (changed, !=, current);
  other = cp_history_run_new_from_analysis (analysis, changed);
  g_assert_true (cp_history_add (history, other, &added, &error));
  g_assert_no_error (error);
  g_assert_true (added);
  g_assert_cmpint (other->id, !=, old_run->id);
  g_assert_cmpuint (count_runs (history), ==, 3);

  cp_history_run_free (old_run);
  cp_history_run_free (new_run);
  cp_history_run_free (other);
  cp_history_close (history);
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/history-hash/files", test_files);
  g_test_add_func ("/history-hash/folder", test_folder);
  g_test_add_func ("/history-hash/legacy", test_legacy);
  return g_test_run ();
}
