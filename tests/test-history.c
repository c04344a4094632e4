/* test-history.c: `chokepoint history` and `diagnose --record` on a real
 * SQLite database in a temporary folder, checked by tests/history-oracle.py
 * (Python's sqlite3, xxhsum, kernel-busy.py and cp-gen's truth)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/wait.h>

#include "cp-test-util.h"

typedef struct
{
  char *dir;
  char *db;
} Fixture;

static int
spawn (const char * const *argv,
       char              **out,
       char              **err)
{
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *ignored_out = NULL, *ignored_err = NULL;
  int status = 0;

  if (out == NULL)
    out = &ignored_out;
  if (err == NULL)
    err = &ignored_err;
  envp = g_environ_unsetenv (envp, "DISPLAY");
  envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
  envp = g_environ_unsetenv (envp, "CHOKEPOINT_HISTORY");
  envp = g_environ_setenv (envp, "LC_ALL", "C.UTF-8", TRUE);
  g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* chokepoint history SUB --database DB ARGS... */
static int
history (Fixture             *f,
         const char          *sub,
         const char * const  *args,
         char               **out,
         char               **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) g_getenv ("CP_CHOKEPOINT"));
  g_ptr_array_add (argv, "history");
  g_ptr_array_add (argv, (gpointer) sub);
  g_ptr_array_add (argv, "--database");
  g_ptr_array_add (argv, f->db);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return spawn ((const char * const *) argv->pdata, out, err);
}

static char *
oracle_script (void)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "history-oracle.py", NULL);
}

/* history-oracle.py ARGS...; its stdout. */
static char *
oracle (const char * const *args,
        int                *status)
{
  g_autofree char *script = oracle_script ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc;

  g_ptr_array_add (argv, "python3");
  g_ptr_array_add (argv, script);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  {
    g_autoptr(GError) error = NULL;
    int wait = 0;

    g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &wait, &error);
    g_assert_no_error (error);
    rc = WIFEXITED (wait) ? WEXITSTATUS (wait) : -1;
  }
  if (status != NULL)
    *status = rc;
  else if (rc != 0)
    g_error ("history-oracle.py %s failed: %s", args[0], err);
  return out;
}

static void
oracle_check (Fixture    *f,
              const char *file,
              const char *truth,
              const char *label)
{
  const char *args[] = { "check", f->db, file, NULL, NULL, NULL, NULL, NULL };
  guint n = 3;
  g_autofree char *out = NULL;

  if (truth != NULL)
    {
      args[n++] = "--truth";
      args[n++] = truth;
    }
  if (label != NULL)
    {
      args[n++] = "--label";
      args[n++] = label;
    }
  {
    g_autofree char *xxhsum = g_find_program_in_path ("xxhsum");

    if (xxhsum == NULL)
      {
        g_test_skip ("xxhsum (Debian's xxhash) is missing: the oracle names runs with it");
        return;
      }
  }
  out = oracle (args, NULL);
  g_assert_cmpstr (out, ==, "ok\n");
}

static gint64
oracle_count (Fixture    *f,
              const char *member)
{
  const char *args[] = { "count", f->db, NULL };
  g_autofree char *out = oracle (args, NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  return json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)), member);
}

static void
gen (const char *scenario,
     const char *path,
     const char *seed,
     const char *truth)
{
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", scenario, "--out", path, "--steps", "4",
                         "--seed", seed, "-q", truth ? "--truth" : NULL, truth, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = cp_test_make_tmpdir ();
  f->db = g_build_filename (f->dir, "state", "history.sqlite", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cp_test_rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->db);
}

static GBytes *
read_bytes (const char *path)
{
  char *contents = NULL;
  gsize len = 0;
  g_autoptr(GError) error = NULL;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

/* The torch.profiler captures of tests/data/captures and generated ones:
 * every stored figure the oracle can count is right, and adding them again
 * adds nothing. */
static void
test_add_and_readd (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *captures = cp_test_data_path ("captures");
  g_autofree char *gen_dir = g_build_filename (f->dir, "gen", NULL);
  g_autofree char *ib = g_build_filename (gen_dir, "input-bound.json.gz", NULL);
  g_autofree char *ib_truth = g_build_filename (f->dir, "input-bound.truth.json", NULL);
  g_autofree char *lb = g_build_filename (gen_dir, "launch-bound.json", NULL);
  g_autofree char *lb_truth = g_build_filename (f->dir, "launch-bound.truth.json", NULL);
  const char *add[] = { "--label", "model=resnet50", "--label", "commit=abc123", captures, gen_dir, NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint n_files = 0;
  gint64 rows;

  g_assert_cmpint (g_mkdir_with_parents (gen_dir, 0700), ==, 0);
  gen ("input-bound", ib, "7", ib_truth);
  gen ("launch-bound", lb, "8", lb_truth);

  g_assert_cmpint (history (f, "add", add, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "0 already known, 0 failed"));

  /* history add walks folders below the one it is given: the ranks of the
   * DDP capture in their own folder are runs too. */
  dir = g_dir_open (captures, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (captures, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GDir) sub = g_dir_open (path, 0, NULL);
          const char *sub_name;

          while (sub != NULL && (sub_name = g_dir_read_name (sub)) != NULL)
            {
              g_autofree char *sub_path = g_build_filename (path, sub_name, NULL);

              if (!g_str_has_suffix (sub_name, ".json.gz"))
                continue;
              oracle_check (f, sub_path, NULL, "model=resnet50");
              n_files++;
            }
          continue;
        }
      if (!g_str_has_suffix (name, ".json.gz"))
        continue;
      oracle_check (f, path, NULL, "model=resnet50");
      n_files++;
    }
  g_assert_cmpuint (n_files, >=, 8);
  oracle_check (f, ib, ib_truth, "commit=abc123");
  oracle_check (f, lb, lb_truth, "model=resnet50");
  g_assert_cmpint (oracle_count (f, "runs"), ==, n_files + 2);

  /* Again: nothing new, not one row more. */
  rows = oracle_count (f, "rows");
  g_assert_cmpint (history (f, "add", add, &out2, NULL), ==, 0);
  g_assert_nonnull (strstr (out2, "0 added"));
  g_assert_cmpint (oracle_count (f, "rows"), ==, rows);
  g_assert_cmpint (oracle_count (f, "runs"), ==, n_files + 2);
}

/* Real captures from ../shared/traces (Kineto on H100). */
static void
test_shared (Fixture       *f,
             gconstpointer  data)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *h100 = NULL;
  const char *add[] = { NULL, NULL };
  g_autofree char *out = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint n = 0;

  if (shared == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  h100 = g_build_filename (shared, "AMD-AGI__TraceLens", "tests", "traces", "h100", NULL);
  if (!g_file_test (h100, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the TraceLens H100 captures are missing");
      return;
    }
  add[0] = h100;
  g_assert_cmpint (history (f, "add", add, &out, NULL), ==, 0);
  dir = g_dir_open (h100, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (h100, name, NULL);

      if (!g_str_has_suffix (name, ".json.gz"))
        continue;
      oracle_check (f, path, NULL, NULL);
      n++;
    }
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpint (oracle_count (f, "runs"), ==, n);
}

/* A file that is not SQLite, another program's database, a newer schema and
 * a damaged page: each is refused with its reason and left byte for byte. */
static void
assert_untouched (Fixture    *f,
                  const char *message)
{
  g_autoptr(GBytes) before = read_bytes (f->db);
  g_autoptr(GBytes) after = NULL;
  g_autofree char *capture = cp_test_data_path ("captures/torch-healthy-cpu.json.gz");
  g_autofree char *wal = g_strconcat (f->db, "-wal", NULL);
  const char *add[] = { capture, NULL };
  const char *none[] = { NULL };
  g_autofree char *err = NULL, *err2 = NULL;

  g_assert_cmpint (history (f, "add", add, NULL, &err), ==, 1);
  g_assert_nonnull (strstr (err, message));
  g_assert_nonnull (strstr (err, "left as it is"));
  g_assert_cmpint (history (f, "list", none, NULL, &err2), ==, 1);
  g_assert_nonnull (strstr (err2, message));
  after = read_bytes (f->db);
  g_assert_true (g_bytes_equal (before, after));
  g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS) && !g_str_equal (message, "newer"));
}

static void
test_refused (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *state = g_path_get_dirname (f->db);
  g_autofree char *capture = cp_test_data_path ("captures/torch-healthy-cpu.json.gz");
  const char *add[] = { capture, NULL };
  const char *set_version[] = { "set-version", f->db, "99", NULL };
  const char *foreign[] = { "make-foreign", f->db, NULL };
  g_autofree char *junk = NULL, *out = NULL;

  g_assert_cmpint (g_mkdir_with_parents (state, 0700), ==, 0);

  /* Not a database at all. */
  junk = g_strnfill (6000, 'x');
  g_assert_true (g_file_set_contents (f->db, junk, -1, NULL));
  assert_untouched (f, "not an SQLite database");
  g_assert_cmpint (g_unlink (f->db), ==, 0);

  /* Another program's. */
  g_free (oracle (foreign, NULL));
  assert_untouched (f, "another program");
  g_assert_cmpint (g_unlink (f->db), ==, 0);

  /* Ours, from a newer Chokepoint. */
  g_assert_cmpint (history (f, "add", add, NULL, NULL), ==, 0);
  g_free (oracle (set_version, NULL));
  assert_untouched (f, "newer");
  g_assert_cmpint (g_unlink (f->db), ==, 0);

  /* Ours, with a page overwritten: the header stays, the tables go. */
  g_assert_cmpint (history (f, "add", add, NULL, NULL), ==, 0);
  {
    g_autoptr(GBytes) bytes = read_bytes (f->db);
    gsize len;
    guint8 *raw = g_bytes_unref_to_data (g_steal_pointer (&bytes), &len);

    g_assert_cmpuint (len, >=, 3 * 4096);
    memset (raw + 100, 0xA5, 4096 - 100);
    memset (raw + 4096, 0x5A, len - 4096);
    g_assert_true (g_file_set_contents (f->db, (const char *) raw, len, NULL));
    g_free (raw);
  }
  assert_untouched (f, "damaged");
  (void) out;
}

/* An empty file and a version-0 database of ours are migrated to the
 * current schema, in WAL mode. */
static void
test_migration (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *state = g_path_get_dirname (f->db);
  g_autofree char *capture = cp_test_data_path ("captures/torch-input-bound-cpu.json.gz");
  const char *add[] = { capture, NULL };
  const char *meta[] = { "meta", f->db, NULL };
  const char *v0[] = { "make-v0", f->db, NULL };

  g_assert_cmpint (g_mkdir_with_parents (state, 0700), ==, 0);
  for (guint round = 0; round < 2; round++)
    {
      g_autofree char *out = NULL;

      if (round == 0)
        g_assert_true (g_file_set_contents (f->db, "", 0, NULL));
      else
        g_free (oracle (v0, NULL));
      g_assert_cmpint (history (f, "add", add, NULL, NULL), ==, 0);
      out = oracle (meta, NULL);
      g_assert_cmpstr (out, ==, "{\"user_version\": 2, \"application_id\": 1129334833, \"journal_mode\": \"wal\"}\n");
      oracle_check (f, capture, NULL, NULL);
      g_assert_cmpint (g_unlink (f->db), ==, 0);
    }
}

/* Two processes adding at once, with captures in common: every capture is
 * there once. */
static void
test_concurrent (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *a = g_build_filename (f->dir, "a", NULL);
  g_autofree char *b = g_build_filename (f->dir, "b", NULL);
  g_autofree char *exe = g_strdup (g_getenv ("CP_CHOKEPOINT"));
  const char *scenarios[] = { "healthy", "input-bound", "launch-bound", "sync-stalls", "pageable-transfers", "healthy" };
  GPid pids[2];
  guint n_unique = 0;

  g_assert_cmpint (g_mkdir_with_parents (a, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (b, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autofree char *seed = g_strdup_printf ("%u", 100 + i);
      g_autofree char *name = g_strdup_printf ("%s-%u.json", scenarios[i], i);
      g_autofree char *pa = g_build_filename (a, name, NULL);
      g_autofree char *pb = g_build_filename (b, name, NULL);

      /* a gets every capture, b the odd ones and copies of two of a's. */
      gen (scenarios[i], pa, seed, NULL);
      n_unique++;
      if (i % 2 == 1)
        {
          g_autofree char *other = g_strdup_printf ("%u", 200 + i);
          gen (scenarios[i], pb, other, NULL);
          n_unique++;
        }
      else if (i < 4)
        {
          g_autoptr(GBytes) bytes = read_bytes (pa);

          g_assert_true (g_file_set_contents (pb, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
        }
    }

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *log = g_build_filename (f->dir, k == 0 ? "a.log" : "b.log", NULL);
      const char *argv[] = { "/bin/sh", "-c", "log=$1; shift; exec \"$@\" >\"$log\" 2>&1", "sh", log,
                             exe, "history", "add", "--database", f->db, "--jobs", "2", k == 0 ? a : b, NULL };
      g_autoptr(GError) error = NULL;

      g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pids[k], &error);
      g_assert_no_error (error);
    }
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *log = g_build_filename (f->dir, k == 0 ? "a.log" : "b.log", NULL);
      g_autofree char *text = NULL;
      int status = 0;

      g_assert_cmpint (waitpid (pids[k], &status, 0), ==, pids[k]);
      g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
      /* Its last line counts what it added; the whole log when it failed. */
      g_strstrip (text);
      g_test_message ("writer %u: %s", k, strrchr (text, '\n') ? strrchr (text, '\n') + 1 : text);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        g_printerr ("%s\n", text);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
      g_spawn_close_pid (pids[k]);
    }
  g_assert_cmpint (oracle_count (f, "runs"), ==, n_unique);
  g_assert_cmpint (oracle_count (f, "distinct_hashes"), ==, n_unique);
}

/* list, show, trend and forget, with their filters, and diagnose --record. */
static void
test_read (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *c1 = cp_test_data_path ("captures/torch-input-bound-cpu.json.gz");
  g_autofree char *c2 = cp_test_data_path ("captures/torch-healthy-cpu.json.gz");
  g_autofree char *c3 = cp_test_data_path ("captures/torch-launch-bound-cpu.json.gz");
  /* c1 alone first: it is run 1, which is forgotten below. */
  const char *add1[] = { "--label", "model=resnet50", c1, NULL };
  const char *add1b[] = { "--label", "model=resnet50", c2, NULL };
  const char *add2[] = { "--label", "model=bert", c3, NULL };
  const char *trend[] = { "--metric", "step_time.mean", "--label", "model=resnet50", "--json", NULL };
  const char *list_since[] = { "--since", "2100-01-01", "--json", NULL };
  const char *list_all[] = { "--json", NULL };
  const char *bad_metric[] = { "--metric", "step_time.median", NULL };
  const char *bad_since[] = { "--since", "yesterday", NULL };
  const char *bad_label[] = { "--label", "no-equals", c1, NULL };
  const char *show[] = { "1", "--json", NULL };
  const char *forget[] = { "1", NULL };
  const char *forget_again[] = { "1", NULL };
  g_autofree char *out = NULL, *err = NULL, *diag = NULL, *diag_err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *points;
  const char *diagnose[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--json", c1, NULL };
  const char *record[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--record", "--database", f->db,
                           "--label", "model=resnet50", c1, NULL };

  g_assert_cmpint (history (f, "add", add1, NULL, NULL), ==, 0);
  g_assert_cmpint (history (f, "add", add1b, NULL, NULL), ==, 0);
  g_assert_cmpint (history (f, "add", add2, NULL, NULL), ==, 0);

  /* The trend of one series holds its two runs, with diagnose's means. */
  g_assert_cmpint (history (f, "trend", trend, &out, NULL), ==, 0);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  points = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 2);
  g_assert_true (json_object_has_member (json_array_get_object_element (points, 1), "regression"));
  g_assert_true (json_object_get_null_member (json_array_get_object_element (points, 0), "baseline"));
  g_assert_cmpint (spawn (diagnose, &diag, NULL), ==, 0);
  {
    g_autoptr(JsonParser) dp = json_parser_new ();
    JsonObject *metrics;
    gint64 mean;
    gboolean found = FALSE;

    json_parser_load_from_data (dp, diag, -1, &error);
    g_assert_no_error (error);
    metrics = json_object_get_object_member (json_node_get_object (json_parser_get_root (dp)), "metrics");
    mean = json_object_get_int_member (json_object_get_object_member (metrics, "step_time"), "mean_ns");
    for (guint i = 0; i < 2; i++)
      found |= (gint64) json_object_get_double_member (json_array_get_object_element (points, i), "value") == mean;
    g_assert_true (found);
  }

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (history (f, "list", list_since, &out, NULL), ==, 0);
  {
    g_autoptr(JsonParser) lp = json_parser_new ();

    json_parser_load_from_data (lp, out, -1, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                        json_node_get_object (json_parser_get_root (lp)), "runs")), ==, 0);
  }
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (history (f, "list", list_all, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"model\" : \"bert\""));

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (history (f, "show", show, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"breakdown\""));
  g_assert_nonnull (strstr (out, "\"findings\""));

  g_assert_cmpint (history (f, "trend", bad_metric, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "step_time.median"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (history (f, "list", bad_since, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "yesterday"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (history (f, "add", bad_label, NULL, &err), ==, 2);
  g_assert_nonnull (strstr (err, "no-equals"));

  /* Forgotten, then recorded again by diagnose --record. */
  g_assert_cmpint (oracle_count (f, "runs"), ==, 3);
  g_assert_cmpint (history (f, "forget", forget, NULL, NULL), ==, 0);
  g_assert_cmpint (oracle_count (f, "runs"), ==, 2);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (history (f, "forget", forget_again, NULL, &err), ==, 1);
  g_assert_nonnull (strstr (err, "No run"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (spawn (record, &out, &diag_err), ==, 0);
  g_assert_nonnull (strstr (diag_err, "recorded as run"));
  g_assert_nonnull (strstr (out, "Verdict:"));
  g_assert_cmpint (oracle_count (f, "runs"), ==, 3);
  oracle_check (f, c1, NULL, "model=resnet50");
}

/* diagnose --fail-if and --format openmetrics, on cp-gen's input-bound
 * scenario (data loading ~46 ms of a ~55 ms step, GPU mostly idle). */
static void
test_fail_if (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *ib = g_build_filename (f->dir, "input-bound.json", NULL);
  const char *exe = g_getenv ("CP_CHOKEPOINT");
  const char *holds[] = { exe, "diagnose", "--fail-if", "gpu.utilization<80%", "--fail-if", "input.share>10%",
                          "--fail-if", "steps>100", ib, NULL };
  const char *none[] = { exe, "diagnose", "--fail-if", "input.share<10%", "--fail-if", "steps>100", ib, NULL };
  const char *bad[] = { exe, "diagnose", "--fail-if", "input.share>>10%", ib, NULL };
  const char *om[] = { exe, "diagnose", "--format", "openmetrics", "--label", "model=vit", ib, NULL };
  const char *bad_format[] = { exe, "diagnose", "--format", "yaml", ib, NULL };
  g_autofree char *err = NULL, *err2 = NULL, *err3 = NULL, *out = NULL;

  gen ("input-bound", ib, "5", NULL);
  g_assert_cmpint (spawn (holds, NULL, &err), ==, 3);
  g_assert_nonnull (strstr (err, "--fail-if gpu.utilization<80% holds: gpu.utilization is "));
  g_assert_nonnull (strstr (err, "--fail-if input.share>10% holds: input.share is "));
  g_assert_null (strstr (err, "steps>100"));
  g_assert_cmpint (spawn (none, NULL, NULL), ==, 0);
  g_assert_cmpint (spawn (bad, NULL, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "at character 13"));
  g_assert_cmpint (spawn (om, &out, NULL), ==, 0);
  g_assert_true (g_str_has_suffix (out, "# EOF\n"));
  g_assert_nonnull (strstr (out, "chokepoint_input_share_ratio{framework=\"pytorch\",model=\"vit\"} 0."));
  g_assert_cmpint (spawn (bad_format, NULL, &err3), ==, 2);
  g_assert_nonnull (strstr (err3, "yaml"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/history/add-and-readd", test_add_and_readd);
  ADD ("/history/shared", test_shared);
  ADD ("/history/refused", test_refused);
  ADD ("/history/migration", test_migration);
  ADD ("/history/concurrent", test_concurrent);
  ADD ("/history/read", test_read);
  ADD ("/history/fail-if", test_fail_if);
#undef ADD
  return g_test_run ();
}
