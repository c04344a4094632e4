/* test-sidecar.c: annotations saved beside the capture and read back
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cp-test-trace.h"
#include "cp-test-util.h"
#include "formats/cp-sidecar.h"

typedef struct
{
  char    *dir;
  char    *capture_path;
  char    *data_dir;       /* the fallback folder */
  GFile   *capture;
  CpTrace *trace;
} Fixture;

/* A host thread with "step" and "op", a kernel stream with "gemm" and
 * "relu"; without `relu`, the kernel is missing. */
static CpTrace *
make_trace (gboolean relu)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint host = cp_test_trace_host_lane (b, 1);
  guint kernel = cp_test_trace_kernel_lane (b, 0, 7);

  cp_test_trace_slice (b, host, 0, 1000, "step");
  cp_test_trace_slice (b, host, 100, 200, "op");
  cp_test_trace_slice (b, kernel, 200, 300, "gemm");
  if (relu)
    cp_test_trace_slice (b, kernel, 600, 100, "relu");
  return cp_test_trace_finish (b);
}

static CpSliceRef
find_slice (CpTrace    *trace,
            const char *name)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

      for (guint i = 0; i < s->n; i++)
        if (g_str_equal (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name))
          return (CpSliceRef) { l, i };
    }
  g_assert_not_reached ();
  return CP_SLICE_REF_NONE;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  static const char content[] = "{\"traceEvents\": []}\n";

  f->dir = cp_test_make_tmpdir ();
  f->capture_path = cp_test_write_file (f->dir, "run.pt.trace.json", content, sizeof content - 1);
  f->data_dir = g_build_filename (f->dir, "data", "annotations", NULL);
  f->capture = g_file_new_for_path (f->capture_path);
  f->trace = make_trace (TRUE);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (f->dir, "folder", NULL);

  /* A test may leave its folder read-only. */
  g_chmod (f->dir, 0755);
  g_chmod (folder, 0755);
  cp_test_rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->capture_path);
  g_free (f->data_dir);
  g_object_unref (f->capture);
  g_assert_finalize_object (f->trace);
}

static CpSidecar *
new_sidecar (Fixture       *f,
             CpAnnotations *annotations)
{
  CpSidecar *sidecar = cp_sidecar_new (f->capture, annotations);

  cp_sidecar_set_fallback_folder (sidecar, f->data_dir);
  return sidecar;
}

static char *
primary_path (Fixture *f)
{
  return g_strconcat (f->capture_path, CP_SIDECAR_SUFFIX, NULL);
}

static char *
read_text (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return text;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(char **) a, *(char **) b);
}

/* Entries of a folder, sorted, as one string. */
static char *
list_dir (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
fill (CpAnnotations *a,
      CpTrace       *trace)
{
  CpAnnotation *m;

  cp_annotations_set_trace (a, trace);
  m = cp_annotations_add_marker (a, 800, CP_ANNOTATION_ALL_LANES, "warm-up \"ends\"\nhere ✓", 0);
  cp_annotation_set_color (m, 0x26a269ff);
  cp_annotations_add_note (a, 150, 400, find_slice (trace, "gemm").lane, "slow region", 0x3584e4ff);
  cp_annotations_add_slice_note (a, find_slice (trace, "relu"), "relu is late", 0);
  cp_annotations_add_evidence (a, find_slice (trace, "op").lane, 100, 300, "Input-bound: 41 ms per step",
                               0xc01c28ff, "input-bound");
}

static void
assert_same (CpAnnotations *a,
             CpAnnotations *b)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (a));

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (b)), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpAnnotation) x = g_list_model_get_item (G_LIST_MODEL (a), i);
      g_autoptr(CpAnnotation) y = g_list_model_get_item (G_LIST_MODEL (b), i);

      g_assert_cmpuint (cp_annotation_get_id (x), ==, cp_annotation_get_id (y));
      g_assert_cmpint (cp_annotation_get_kind (x), ==, cp_annotation_get_kind (y));
      g_assert_cmpstr (cp_annotation_get_text (x), ==, cp_annotation_get_text (y));
      g_assert_cmphex (cp_annotation_get_color (x), ==, cp_annotation_get_color (y));
      g_assert_cmpint (cp_annotation_get_start (x), ==, cp_annotation_get_start (y));
      g_assert_cmpint (cp_annotation_get_end (x), ==, cp_annotation_get_end (y));
      g_assert_cmpint (cp_annotation_get_created (x), ==, cp_annotation_get_created (y));
      g_assert_cmpint (cp_annotation_get_modified (x), ==, cp_annotation_get_modified (y));
      g_assert_true (cp_lane_identity_equal (cp_annotation_get_lane_identity (x),
                                             cp_annotation_get_lane_identity (y)));
      g_assert_cmpint (cp_annotation_is_attached (x), ==, cp_annotation_is_attached (y));
      g_assert_cmpint (cp_annotation_is_detached (x), ==, cp_annotation_is_detached (y));
      g_assert_cmpint (cp_annotation_get_lane (x), ==, cp_annotation_get_lane (y));
      g_assert_cmpint (cp_annotation_get_slice (x).lane, ==, cp_annotation_get_slice (y).lane);
      g_assert_cmpint (cp_annotation_get_slice (x).index, ==, cp_annotation_get_slice (y).index);
      g_assert_cmpstr (cp_annotation_get_slice_name (x), ==, cp_annotation_get_slice_name (y));
      g_assert_cmpstr (cp_annotation_get_rule (x), ==, cp_annotation_get_rule (y));
    }
}

static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpSidecar) writer = NULL;
  g_autoptr(CpSidecar) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *primary = primary_path (f);
  g_autofree char *text = NULL;

  fill (a, f->trace);
  writer = new_sidecar (f, a);
  g_assert_true (cp_sidecar_load (writer, &error));
  g_assert_no_error (error);
  g_assert_null (cp_sidecar_get_file (writer));
  g_assert_true (cp_sidecar_has_unsaved_changes (writer));
  g_assert_true (cp_sidecar_save (writer, &error));
  g_assert_no_error (error);
  g_assert_false (cp_sidecar_has_unsaved_changes (writer));
  g_assert_true (g_file_equal (cp_sidecar_get_file (writer), cp_sidecar_get_primary_file (writer)));
  g_assert_false (cp_sidecar_is_fallback (writer));

  /* Beside the capture, versioned, readable. */
  text = read_text (primary);
  g_assert_nonnull (text);
  g_assert_nonnull (strstr (text, "\"format\" : \"chokepoint-annotations\""));
  g_assert_nonnull (strstr (text, "\"schema_version\" : 1"));
  g_assert_nonnull (strstr (text, "\"rule\" : \"input-bound\""));
  g_assert_nonnull (strstr (text, "\"sample_sha256\""));

  cp_annotations_set_trace (b, f->trace);
  reader = new_sidecar (f, b);
  g_assert_true (cp_sidecar_load (reader, &error));
  g_assert_no_error (error);
  g_assert_false (cp_sidecar_has_unsaved_changes (reader));
  g_assert_true (g_file_equal (cp_sidecar_get_file (reader), cp_sidecar_get_primary_file (reader)));
  assert_same (a, b);

  /* New annotations get new ids. */
  {
    CpAnnotation *added = cp_annotations_add_marker (b, 5, CP_ANNOTATION_ALL_LANES, "new", 0);

    g_assert_cmpuint (cp_annotation_get_id (added), ==, 5);
  }

  /* Nothing changed: nothing written. */
  {
    GStatBuf before, after;

    g_assert_cmpint (g_stat (primary, &before), ==, 0);
    g_usleep (10000);
    g_assert_true (cp_sidecar_save (writer, NULL));
    g_assert_cmpint (g_stat (primary, &after), ==, 0);
    g_assert_cmpint (before.st_mtime, ==, after.st_mtime);
    g_assert_cmpint (before.st_ino, ==, after.st_ino);
  }
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
}

static void
test_origin_shift (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autoptr(CpAnnotation) first = NULL;

  /* Written against an origin 500 ns later than this trace's: every time
   * moves by 500 ns. */
  json = g_strdup_printf ("{\"format\": \"chokepoint-annotations\", \"schema_version\": 1,"
                          " \"capture\": {\"origin_abs_ns\": %" G_GINT64_FORMAT "},"
                          " \"annotations\": [{\"kind\": \"note\", \"start_ns\": 100, \"end_ns\": 200,"
                          " \"lane\": {\"kind\": \"kernel\", \"process\": \"0\", \"number\": 7, \"name\": \"x\"},"
                          " \"slice\": {\"start_ns\": 100, \"name\": \"relu\"}, \"future_member\": true}]}",
                          cp_trace_get_origin_abs (f->trace) + 500);
  cp_annotations_set_trace (a, f->trace);
  g_assert_true (cp_sidecar_parse (json, -1, a, &error));
  g_assert_no_error (error);
  first = g_list_model_get_item (G_LIST_MODEL (a), 0);
  g_assert_cmpint (cp_annotation_get_start (first), ==, 600);
  g_assert_cmpint (cp_annotation_get_end (first), ==, 700);
  /* ...which lands it on "relu", found on its lane despite the new name. */
  g_assert_false (cp_annotation_is_detached (first));
  g_assert_cmpuint (cp_annotation_get_slice (first).lane, ==, find_slice (f->trace, "relu").lane);
  g_assert_cmpuint (cp_annotation_get_slice (first).index, ==, find_slice (f->trace, "relu").index);
  cp_annotations_set_trace (a, NULL);
}

static void
test_missing_slices (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpAnnotations) c = cp_annotations_new ();
  g_autoptr(CpSidecar) writer = NULL;
  g_autoptr(CpSidecar) reader = NULL;
  g_autoptr(CpSidecar) again = NULL;
  g_autoptr(CpTrace) without = make_trace (FALSE);
  g_autoptr(GError) error = NULL;
  CpAnnotation *relu = NULL;

  fill (a, f->trace);
  writer = new_sidecar (f, a);
  g_assert_true (cp_sidecar_save (writer, &error));
  g_assert_no_error (error);

  /* Read against a capture without "relu": its note is kept, detached. */
  cp_annotations_set_trace (b, without);
  reader = new_sidecar (f, b);
  g_assert_true (cp_sidecar_load (reader, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (b)), ==, 4);
  g_assert_cmpuint (cp_annotations_get_n_detached (b), ==, 1);
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(CpAnnotation) x = g_list_model_get_item (G_LIST_MODEL (b), i);

      if (g_strcmp0 (cp_annotation_get_slice_name (x), "relu") == 0)
        relu = x;
    }
  g_assert_nonnull (relu);
  g_assert_true (cp_annotation_is_detached (relu));
  g_assert_cmpint (cp_annotation_get_start (relu), ==, 600);

  /* Edited and saved while detached, it keeps its slice... */
  cp_annotation_set_text (relu, "relu is late (edited)");
  g_assert_true (cp_sidecar_save (reader, &error));
  g_assert_no_error (error);

  /* ...and is attached again when the slice is back. */
  cp_annotations_set_trace (c, f->trace);
  again = new_sidecar (f, c);
  g_assert_true (cp_sidecar_load (again, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cp_annotations_get_n_detached (c), ==, 0);
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(CpAnnotation) x = g_list_model_get_item (G_LIST_MODEL (c), i);

      if (g_strcmp0 (cp_annotation_get_slice_name (x), "relu") == 0)
        {
          g_assert_cmpstr (cp_annotation_get_text (x), ==, "relu is late (edited)");
          g_assert_cmpuint (cp_annotation_get_slice (x).lane, ==, find_slice (f->trace, "relu").lane);
        }
    }
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
  cp_annotations_set_trace (c, NULL);
}

/* Writes beyond `limit` bytes fail with EFBIG, as on a full disk: a write
 * interrupted midway. This holds for root too. */
static void
limit_file_size (rlim_t         limit,
                 struct rlimit *saved)
{
  struct rlimit lim;

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, saved), ==, 0);
  lim = *saved;
  lim.rlim_cur = limit;
  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
}

static void
save_failed_cb (CpSidecar  *sidecar,
                const char *message,
                guint      *failed)
{
  g_assert_nonnull (strstr (message, "could not be saved"));
  (*failed)++;
}

static void
test_atomic_write (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *primary = primary_path (f);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *listing_before = NULL;
  g_autofree char *listing_after = NULL;
  g_autofree char *long_text = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (primary);
  struct rlimit saved;
  gboolean ok;
  guint failed = 0;

  fill (a, f->trace);
  sidecar = new_sidecar (f, a);
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);
  before = read_text (primary);
  listing_before = list_dir (f->dir);

  /* The writer itself: a temporary file that fails halfway. */
  long_text = g_strnfill (64 * 1024, 'x');
  limit_file_size (4096, &saved);
  ok = cp_sidecar_write_atomic (file, long_text, strlen (long_text), &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  g_assert_false (ok);
  g_assert_nonnull (error);
  g_clear_error (&error);
  after = read_text (primary);
  g_assert_cmpstr (after, ==, before);
  listing_after = list_dir (f->dir);
  g_assert_cmpstr (listing_after, ==, listing_before);

  /* Through the sidecar: the capture's folder fails, and so does the data
   * folder; the old file stays whole, the change stays unsaved, the window
   * hears about it. */
  cp_annotations_add_note (a, 0, 10, CP_ANNOTATION_ALL_LANES, long_text, 0);
  g_signal_connect (sidecar, "save-failed", G_CALLBACK (save_failed_cb), &failed);
  limit_file_size (4096, &saved);
  ok = cp_sidecar_save (sidecar, &error);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  g_assert_false (ok);
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpuint (failed, ==, 1);
  g_clear_pointer (&after, g_free);
  after = read_text (primary);
  g_assert_cmpstr (after, ==, before);
  g_assert_true (cp_sidecar_has_unsaved_changes (sidecar));
  g_clear_pointer (&listing_after, g_free);
  listing_after = list_dir (f->dir);
  /* Only the (empty) data folder may have appeared. */
  g_assert_cmpstr (listing_after, ==, "data run.pt.trace.json run.pt.trace.json.chokepoint.json");

  /* Without the limit the next save succeeds. */
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);
  g_clear_pointer (&after, g_free);
  after = read_text (primary);
  g_assert_nonnull (strstr (after, long_text));
  cp_annotations_set_trace (a, NULL);
}

static gboolean
never_writable (GFile    *folder,
                gpointer  user_data)
{
  guint *calls = user_data;

  (*calls)++;
  return FALSE;
}

typedef struct
{
  guint  saved;
  guint  relocated;
  GFile *where;
  char  *why;
} Heard;

static void
saved_cb (CpSidecar *sidecar,
          GFile     *file,
          Heard     *h)
{
  h->saved++;
}

static void
relocated_cb (CpSidecar  *sidecar,
              GFile      *file,
              const char *why,
              Heard      *h)
{
  h->relocated++;
  g_set_object (&h->where, file);
  g_free (h->why);
  h->why = g_strdup (why);
}

static void
heard_clear (Heard *h)
{
  g_clear_object (&h->where);
  g_clear_pointer (&h->why, g_free);
}

static void
check_fallback (Fixture   *f,
                CpSidecar *sidecar,
                Heard     *h)
{
  g_autofree char *primary = primary_path (f);
  g_autoptr(GFile) fallback = cp_sidecar_get_fallback_file (sidecar, NULL);
  g_autofree char *hash = cp_sidecar_hash_capture (f->capture, NULL, NULL);
  g_autofree char *expected = g_strconcat (hash, CP_SIDECAR_SUFFIX, NULL);
  g_autofree char *base = g_file_get_basename (fallback);
  g_autofree char *dir = g_path_get_dirname (g_file_peek_path (fallback));

  g_assert_cmpstr (base, ==, expected);
  g_assert_cmpstr (dir, ==, f->data_dir);
  g_assert_false (g_file_test (primary, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_query_exists (fallback, NULL));
  g_assert_true (g_file_equal (cp_sidecar_get_file (sidecar), fallback));
  g_assert_true (cp_sidecar_is_fallback (sidecar));
  /* The user is told where. */
  g_assert_cmpuint (h->relocated, ==, 1);
  g_assert_true (g_file_equal (h->where, fallback));
  g_assert_nonnull (h->why);
}

static void
test_read_only_injected (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(CpSidecar) reader = NULL;
  g_autoptr(GError) error = NULL;
  Heard h = { 0 };
  guint calls = 0;

  fill (a, f->trace);
  sidecar = new_sidecar (f, a);
  cp_sidecar_set_writable_func (sidecar, never_writable, &calls);
  g_signal_connect (sidecar, "saved", G_CALLBACK (saved_cb), &h);
  g_signal_connect (sidecar, "relocated", G_CALLBACK (relocated_cb), &h);
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (h.saved, ==, 1);
  g_assert_nonnull (strstr (h.why, "read-only"));
  check_fallback (f, sidecar, &h);

  /* Later saves stay there, without asking again or telling again. */
  cp_annotations_add_marker (a, 1, CP_ANNOTATION_ALL_LANES, "more", 0);
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (h.relocated, ==, 1);
  g_assert_cmpuint (h.saved, ==, 2);

  /* Opening the capture again finds them there by its content. */
  cp_annotations_set_trace (b, f->trace);
  reader = new_sidecar (f, b);
  g_assert_true (cp_sidecar_load (reader, &error));
  g_assert_no_error (error);
  g_assert_true (cp_sidecar_is_fallback (reader));
  assert_same (a, b);
  heard_clear (&h);
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
}

static void
test_read_only_folder (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *folder = g_build_filename (f->dir, "folder", NULL);
  g_autofree char *probe = g_build_filename (folder, "probe", NULL);
  Heard h = { 0 };

  /* The capture in a folder of its own, made read-only. */
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  g_clear_object (&f->capture);
  g_free (f->capture_path);
  f->capture_path = cp_test_write_file (folder, "run.pt.trace.json", "{}", 2);
  f->capture = g_file_new_for_path (f->capture_path);
  g_assert_cmpint (g_chmod (folder, 0555), ==, 0);

  if (g_file_set_contents (probe, "x", 1, NULL))
    {
      /* Root (as in CI containers) writes anyway: chmod cannot make the
       * folder read-only, so make the write itself fail. The sidecar path
       * is taken by a folder: renaming the temporary file onto it fails. */
      g_autofree char *blocker = primary_path (f);

      g_test_message ("chmod does not stop this user's writes; the sidecar path is blocked instead");
      g_unlink (probe);
      g_assert_cmpint (g_mkdir (blocker, 0755), ==, 0);
      fill (a, f->trace);
      sidecar = new_sidecar (f, a);
      g_signal_connect (sidecar, "relocated", G_CALLBACK (relocated_cb), &h);
      g_assert_true (cp_sidecar_save (sidecar, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (h.relocated, ==, 1);
      g_assert_true (cp_sidecar_is_fallback (sidecar));
      g_assert_true (g_file_test (blocker, G_FILE_TEST_IS_DIR));
      g_rmdir (blocker);
      check_fallback (f, sidecar, &h);
    }
  else
    {
      /* The default check (access(2)) sees the folder read-only. */
      fill (a, f->trace);
      sidecar = new_sidecar (f, a);
      g_signal_connect (sidecar, "relocated", G_CALLBACK (relocated_cb), &h);
      g_assert_true (cp_sidecar_save (sidecar, &error));
      g_assert_no_error (error);
      check_fallback (f, sidecar, &h);
    }
  heard_clear (&h);
  cp_annotations_set_trace (a, NULL);
}

static void
test_damaged (Fixture       *f,
              gconstpointer  data)
{
  static const char garbage[] = "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annot";
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *primary = primary_path (f);
  g_autofree char *kept = g_strconcat (primary, CP_SIDECAR_DAMAGED_SUFFIX, NULL);
  g_autofree char *kept2 = g_strconcat (primary, CP_SIDECAR_DAMAGED_SUFFIX, "-2", NULL);
  g_autofree char *message = NULL;
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (primary, garbage, -1, NULL));
  /* An older damaged copy is not overwritten either. */
  g_assert_true (g_file_set_contents (kept, "older", -1, NULL));

  cp_annotations_set_trace (a, f->trace);
  sidecar = new_sidecar (f, a);
  g_assert_false (cp_sidecar_load (sidecar, &error));
  g_assert_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DAMAGED);
  g_assert_nonnull (strstr (error->message, "run.pt.trace.json.chokepoint.json"));
  g_assert_nonnull (strstr (error->message, "not valid JSON"));
  g_assert_true (cp_sidecar_has_problem (sidecar));
  g_clear_error (&error);

  /* Until the user was told, nothing is written. */
  cp_annotations_add_marker (a, 1, CP_ANNOTATION_ALL_LANES, "new", 0);
  g_assert_true (cp_sidecar_save (sidecar, NULL));
  text = read_text (primary);
  g_assert_cmpstr (text, ==, garbage);

  /* Told: kept aside under a free name, then a fresh file. */
  message = cp_sidecar_accept_problem (sidecar);
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "run.pt.trace.json.chokepoint.json.damaged-2"));
  g_assert_false (cp_sidecar_has_problem (sidecar));
  g_clear_pointer (&text, g_free);
  text = read_text (kept2);
  g_assert_cmpstr (text, ==, garbage);
  g_clear_pointer (&text, g_free);
  text = read_text (kept);
  g_assert_cmpstr (text, ==, "older");
  g_assert_false (g_file_test (primary, G_FILE_TEST_EXISTS));
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = read_text (primary);
  g_assert_nonnull (strstr (text, "\"new\""));
  cp_annotations_set_trace (a, NULL);
}

static void
test_damaged_members (void)
{
  static const char *const bad[] = {
    "[]",
    "{\"schema_version\": 1, \"annotations\": []}",
    "{\"format\": \"chokepoint-annotations\", \"annotations\": []}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": [{\"start_ns\": 1}]}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": [{\"kind\": \"note\"}]}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": "
      "[{\"kind\": \"note\", \"start_ns\": 5, \"end_ns\": 4}]}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": "
      "[{\"kind\": \"note\", \"start_ns\": 5, \"color\": \"red\"}]}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": "
      "[{\"kind\": \"note\", \"start_ns\": 5, \"lane\": {\"kind\": \"gpu\"}}]}",
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": "
      "[{\"kind\": \"note\", \"start_ns\": 5, \"slice\": {\"start_ns\": 5, \"name\": \"x\"}}]}",
    /* One good, one bad: all or nothing. */
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotations\": "
      "[{\"kind\": \"marker\", \"start_ns\": 5}, {\"kind\": \"marker\", \"start_ns\": \"5\"}]}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(CpAnnotations) a = cp_annotations_new ();
      g_autoptr(GError) error = NULL;

      g_assert_false (cp_sidecar_parse (bad[i], -1, a, &error));
      g_assert_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_DAMAGED);
      g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (a)), ==, 0);
    }
}

static void
test_newer (Fixture       *f,
            gconstpointer  data)
{
  static const char newer[] =
    "{\"format\": \"chokepoint-annotations\", \"schema_version\": 7, \"annotations\": {\"v7\": []}}";
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(CpSidecar) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *primary = primary_path (f);
  g_autofree char *message = NULL;
  g_autofree char *text = NULL;
  g_autofree char *fallback_name = NULL;
  g_autoptr(GFile) fallback = NULL;

  g_assert_true (g_file_set_contents (primary, newer, -1, NULL));
  cp_annotations_set_trace (a, f->trace);
  sidecar = new_sidecar (f, a);
  g_assert_false (cp_sidecar_load (sidecar, &error));
  g_assert_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_NEWER);
  g_assert_nonnull (strstr (error->message, "newer version"));
  g_clear_error (&error);

  cp_annotations_add_marker (a, 1, CP_ANNOTATION_ALL_LANES, "made with an older version", 0);
  g_assert_true (cp_sidecar_save (sidecar, NULL));
  g_assert_false (cp_sidecar_is_fallback (sidecar));

  /* Told: it stays untouched and new annotations go to the data folder,
   * named in the message. */
  message = cp_sidecar_accept_problem (sidecar);
  fallback = cp_sidecar_get_fallback_file (sidecar, NULL);
  fallback_name = g_file_get_parse_name (fallback);
  g_assert_nonnull (strstr (message, fallback_name));
  g_assert_true (cp_sidecar_save (sidecar, &error));
  g_assert_no_error (error);
  g_assert_true (cp_sidecar_is_fallback (sidecar));
  text = read_text (primary);
  g_assert_cmpstr (text, ==, newer);

  /* Next time: told again, and this version's annotations are back. */
  cp_annotations_set_trace (b, f->trace);
  reader = new_sidecar (f, b);
  g_assert_false (cp_sidecar_load (reader, &error));
  g_assert_error (error, CP_SIDECAR_ERROR, CP_SIDECAR_ERROR_NEWER);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (b)), ==, 1);
  g_assert_true (cp_sidecar_is_fallback (reader));
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
}

static void
test_hash (Fixture       *f,
           gconstpointer  data)
{
  gsize size = 3 * 1024 * 1024 + 17;
  g_autofree guchar *bytes = g_malloc (size);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *h1 = NULL, *h2 = NULL, *h3 = NULL, *h4 = NULL, *h5 = NULL;
  g_autoptr(GError) error = NULL;

  for (gsize i = 0; i < size; i++)
    bytes[i] = (guchar) (i * 2654435761u >> 13);
  path = cp_test_write_file (f->dir, "big.bin", bytes, size);
  file = g_file_new_for_path (path);
  h1 = cp_sidecar_hash_capture (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (h1), ==, 64);

  /* A byte in the middle is not sampled: the hash is bounded. */
  bytes[size / 2] ^= 0xff;
  g_assert_true (g_file_set_contents (path, (char *) bytes, size, NULL));
  h2 = cp_sidecar_hash_capture (file, NULL, NULL);
  g_assert_cmpstr (h1, ==, h2);
  /* The first and last MiB are. */
  bytes[10] ^= 0xff;
  g_assert_true (g_file_set_contents (path, (char *) bytes, size, NULL));
  h3 = cp_sidecar_hash_capture (file, NULL, NULL);
  g_assert_cmpstr (h1, !=, h3);
  bytes[size - 10] ^= 0xff;
  g_assert_true (g_file_set_contents (path, (char *) bytes, size, NULL));
  h4 = cp_sidecar_hash_capture (file, NULL, NULL);
  g_assert_cmpstr (h3, !=, h4);
  /* And the size. */
  g_assert_true (g_file_set_contents (path, (char *) bytes, size - 1, NULL));
  h5 = cp_sidecar_hash_capture (file, NULL, NULL);
  g_assert_cmpstr (h4, !=, h5);

  /* A folder capture hashes its listing. */
  {
    g_autoptr(GFile) folder = g_file_new_for_path (f->dir);
    g_autofree char *d1 = cp_sidecar_hash_capture (folder, NULL, &error);
    g_autofree char *d2 = NULL;

    g_assert_no_error (error);
    g_assert_nonnull (d1);
    g_free (cp_test_write_file (f->dir, "another.xplane.pb", "x", 1));
    d2 = cp_sidecar_hash_capture (folder, NULL, NULL);
    g_assert_cmpstr (d1, !=, d2);
  }

  /* A missing capture has no hash. */
  {
    g_autoptr(GFile) missing = g_file_new_for_path ("/nonexistent/capture.json");

    g_assert_null (cp_sidecar_hash_capture (missing, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  }
}

static gboolean
timeout_cb (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static void
test_autosave (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpSidecar) sidecar = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *primary = primary_path (f);
  g_autofree char *text = NULL;
  Heard h = { 0 };
  gboolean timed_out = FALSE;
  guint timeout;

  cp_annotations_set_trace (a, f->trace);
  sidecar = new_sidecar (f, a);
  g_assert_true (cp_sidecar_load (sidecar, &error));
  cp_sidecar_set_autosave (sidecar, 50);
  g_signal_connect (sidecar, "saved", G_CALLBACK (saved_cb), &h);

  /* A burst of changes is one write, a little after the last. */
  fill (a, f->trace);
  g_assert_false (g_file_test (primary, G_FILE_TEST_EXISTS));
  timeout = g_timeout_add (5000, timeout_cb, &timed_out);
  while (h.saved == 0 && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_assert_cmpuint (h.saved, ==, 1);
  text = read_text (primary);
  g_assert_nonnull (strstr (text, "relu is late"));
  g_assert_false (cp_sidecar_has_unsaved_changes (sidecar));

  /* Nothing more without changes. */
  {
    gboolean waited = FALSE;

    g_timeout_add (200, timeout_cb, &waited);
    while (!waited)
      g_main_context_iteration (NULL, TRUE);
    g_assert_cmpuint (h.saved, ==, 1);
  }

  /* A change then flush: written at once. */
  cp_annotations_add_marker (a, 3, CP_ANNOTATION_ALL_LANES, "flushed", 0);
  g_assert_true (cp_sidecar_flush (sidecar, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  text = read_text (primary);
  g_assert_nonnull (strstr (text, "flushed"));
  g_assert_cmpuint (h.saved, ==, 2);
  if (!timed_out)
    g_source_remove (timeout);
  cp_annotations_set_trace (a, NULL);
}

static gboolean
writable_when (GFile    *folder,
               gpointer  user_data)
{
  return *(gboolean *) user_data;
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* The notes' texts, sorted and joined, for comparisons. */
static char *
texts (CpAnnotations *a)
{
  g_autoptr(GPtrArray) t = g_ptr_array_new ();
  guint n = g_list_model_get_n_items (G_LIST_MODEL (a));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpAnnotation) x = g_list_model_get_item (G_LIST_MODEL (a), i);

      g_ptr_array_add (t, (gpointer) cp_annotation_get_text (x));
    }
  g_ptr_array_sort (t, compare_strings);
  g_ptr_array_add (t, NULL);
  return g_strjoinv ("|", (char **) t->pdata);
}

/* A session that opens the capture, adds one note and saves. */
static CpSidecar *
session (Fixture       *f,
         CpAnnotations *a,
         gboolean      *writable,
         const char    *note)
{
  g_autoptr(GError) error = NULL;
  CpSidecar *sidecar;

  cp_annotations_set_trace (a, f->trace);
  sidecar = new_sidecar (f, a);
  cp_sidecar_set_writable_func (sidecar, writable_when, writable);
  g_assert_true (cp_sidecar_load (sidecar, &error));
  g_assert_no_error (error);
  if (note != NULL)
    {
      cp_annotations_add_marker (a, 5, CP_ANNOTATION_ALL_LANES, note, 0);
      g_assert_true (cp_sidecar_save (sidecar, &error));
      g_assert_no_error (error);
    }
  return sidecar;
}

/* Two sessions while the capture's folder is read-only, a copy from when it
 * was writable beside the capture: the second session must not drop the
 * first one's note (it used to read the old copy beside the capture only
 * and overwrite the data folder's). */
static void
test_two_sessions (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(CpAnnotations) a0 = cp_annotations_new ();
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpAnnotations) c = cp_annotations_new ();
  g_autoptr(CpSidecar) s0 = NULL, sa = NULL, sb = NULL, sc = NULL;
  g_autofree char *seen_c = NULL;
  gboolean writable = TRUE;

  /* Two notes beside the capture. */
  s0 = session (f, a0, &writable, "one");
  cp_annotations_add_marker (a0, 6, CP_ANNOTATION_ALL_LANES, "two", 0);
  g_assert_true (cp_sidecar_save (s0, NULL));
  g_assert_false (cp_sidecar_is_fallback (s0));

  /* Read-only from now on: A adds a note (data folder: three). */
  writable = FALSE;
  sa = session (f, a, &writable, "from A");
  g_assert_true (cp_sidecar_is_fallback (sa));
  g_assert_null (cp_sidecar_get_merge_note (sa));

  /* B opens: it sees A's note, says the copies differed, adds its own. */
  sb = session (f, b, &writable, NULL);
  {
    g_autofree char *seen = texts (b);

    g_assert_cmpstr (seen, ==, "from A|one|two");
  }
  g_assert_nonnull (cp_sidecar_get_merge_note (sb));
  g_assert_nonnull (strstr (cp_sidecar_get_merge_note (sb), "disagreed: 1 note was merged in"));
  cp_annotations_add_marker (b, 7, CP_ANNOTATION_ALL_LANES, "from B", 0);
  g_assert_true (cp_sidecar_save (sb, NULL));

  /* Both notes are there for the next session. */
  sc = session (f, c, &writable, NULL);
  seen_c = texts (c);
  g_assert_cmpstr (seen_c, ==, "from A|from B|one|two");

  /* A note edited later in one copy wins over the older copy of it. */
  {
    g_autoptr(CpAnnotation) x = NULL;
    g_autoptr(CpAnnotations) d = cp_annotations_new ();
    g_autoptr(CpSidecar) sd = NULL;
    g_autofree char *seen_d = NULL;

    for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (c)) && x == NULL; i++)
      {
        g_autoptr(CpAnnotation) y = g_list_model_get_item (G_LIST_MODEL (c), i);

        if (g_str_equal (cp_annotation_get_text (y), "one"))
          x = g_object_ref (y);
      }
    g_usleep (2000);
    cp_annotation_set_text (x, "one, edited");
    g_assert_true (cp_sidecar_save (sc, NULL));
    sd = session (f, d, &writable, NULL);
    seen_d = texts (d);
    g_assert_cmpstr (seen_d, ==, "from A|from B|one, edited|two");
    cp_annotations_set_trace (d, NULL);
  }

  cp_annotations_set_trace (a0, NULL);
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
  cp_annotations_set_trace (c, NULL);
}

/* A note saved in the data folder while the disk was full is shown once
 * the disk is freed, and the next save beside the capture keeps it and
 * leaves the notes in one place. */
static void
test_full_disk (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpAnnotations) c = cp_annotations_new ();
  g_autoptr(CpSidecar) sa = NULL, sb = NULL, sc = NULL;
  g_autoptr(GFile) fallback = NULL;
  g_autofree char *primary = primary_path (f);
  g_autofree char *text = NULL;
  g_autofree char *seen = NULL;
  gboolean writable = TRUE;

  sa = session (f, a, &writable, "before");
  /* The disk fills: the save beside the capture fails, the data folder
   * (another disk) takes the note. */
  writable = FALSE;
  cp_annotations_add_marker (a, 9, CP_ANNOTATION_ALL_LANES, "while full", 0);
  g_assert_true (cp_sidecar_save (sa, NULL));
  g_assert_true (cp_sidecar_is_fallback (sa));
  fallback = cp_sidecar_get_fallback_file (sa, NULL);
  g_assert_true (g_file_query_exists (fallback, NULL));

  /* Freed: a new session shows both notes... */
  writable = TRUE;
  sb = session (f, b, &writable, NULL);
  seen = texts (b);
  g_assert_cmpstr (seen, ==, "before|while full");
  g_assert_nonnull (cp_sidecar_get_merge_note (sb));
  /* ...and its next save beside the capture keeps them, in one place. */
  cp_annotations_add_marker (b, 10, CP_ANNOTATION_ALL_LANES, "after", 0);
  g_assert_true (cp_sidecar_save (sb, NULL));
  g_assert_false (cp_sidecar_is_fallback (sb));
  text = read_text (primary);
  g_assert_nonnull (strstr (text, "while full"));
  g_assert_nonnull (strstr (text, "after"));
  g_assert_false (g_file_query_exists (fallback, NULL));

  g_clear_pointer (&seen, g_free);
  sc = session (f, c, &writable, NULL);
  seen = texts (c);
  g_assert_cmpstr (seen, ==, "after|before|while full");
  g_assert_null (cp_sidecar_get_merge_note (sc));
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
  cp_annotations_set_trace (c, NULL);
}

/* A second copy that cannot be used is said and left alone; the notes
 * beside the capture are used. */
static void
test_damaged_second_copy (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  g_autoptr(CpAnnotations) b = cp_annotations_new ();
  g_autoptr(CpSidecar) sa = NULL, sb = NULL;
  g_autoptr(GFile) fallback = NULL;
  g_autofree char *seen = NULL;
  g_autofree char *after = NULL;
  gboolean writable = TRUE;

  sa = session (f, a, &writable, "beside");
  fallback = cp_sidecar_get_fallback_file (sa, NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->data_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (fallback), "{not json", -1, NULL));

  sb = session (f, b, &writable, NULL);
  seen = texts (b);
  g_assert_cmpstr (seen, ==, "beside");
  g_assert_nonnull (cp_sidecar_get_merge_note (sb));
  g_assert_true (g_str_has_prefix (cp_sidecar_get_merge_note (sb),
                                   "A second copy of the notes could not be used (The annotations file"));
  g_assert_true (g_file_get_contents (g_file_peek_path (fallback), &after, NULL, NULL));
  g_assert_cmpstr (after, ==, "{not json");
  cp_annotations_set_trace (a, NULL);
  cp_annotations_set_trace (b, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("/sidecar/round-trip", test_round_trip);
  ADD ("/sidecar/origin-shift", test_origin_shift);
  ADD ("/sidecar/missing-slices", test_missing_slices);
  ADD ("/sidecar/atomic-write", test_atomic_write);
  ADD ("/sidecar/read-only/injected", test_read_only_injected);
  ADD ("/sidecar/read-only/folder", test_read_only_folder);
  ADD ("/sidecar/damaged", test_damaged);
  g_test_add_func ("/sidecar/damaged-members", test_damaged_members);
  ADD ("/sidecar/newer", test_newer);
  ADD ("/sidecar/hash", test_hash);
  ADD ("/sidecar/autosave", test_autosave);
  ADD ("/sidecar/two-sessions", test_two_sessions);
  ADD ("/sidecar/full-disk", test_full_disk);
  ADD ("/sidecar/damaged-second-copy", test_damaged_second_copy);

  return g_test_run ();
}
