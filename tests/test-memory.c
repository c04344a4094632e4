/* test-memory.c: opening, cancelling and closing captures leaks nothing and leaves memory flat
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Two checks:
 *
 * /memory/cancel-reopen-close: open -> cancel mid-load -> open -> close, for
 * a mapped JSON capture, a gzip one (streamed) and an XPlane one, through
 * the asynchronous loader as the window uses it. Under AddressSanitizer the
 * test then asks LeakSanitizer for a leak check (the suite's sanitizer build
 * in CI); in other builds, tests/meson.build runs the same test under
 * valgrind when it is installed (test "valgrind-leaks").
 *
 * /memory/flat: 1,000 rounds of opening, closing and cancelling captures in
 * one process (sync and async loads, cancellation before and during a load,
 * damaged files, the diagnosis). After a warm-up, the heap in use
 * (mallinfo2) must come back to where it was and RSS must not grow more
 * than a tolerance. Bounded in time for slow machines: it stops early after
 * CP_MEMORY_TEST_SECONDS (default 120) and says so. */

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/cp-analysis.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

#if defined(__SANITIZE_ADDRESS__)
# define CP_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define CP_ASAN 1
# endif
#endif

#ifdef CP_ASAN
# include <sanitizer/lsan_interface.h>
#endif

/* Captures ---------------------------------------------------------------------- */

typedef struct
{
  char *dir;
  char *json;      /* ~1 MiB, mapped */
  char *gz;        /* the same, gzip (streamed) */
  char *xplane;    /* the seed corpus' XPlane capture */
  char *damaged;   /* cut in the middle of an event */
  char *garbage;   /* not a capture */
} Files;

static void
files_init (Files *f)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\": [\n");
  g_autofree char *src = NULL;
  g_autofree char *pb = NULL;
  gsize pb_len = 0;
  guint i = 0;

  f->dir = cp_test_make_tmpdir ();
  while (s->len < 1024 * 1024)
    {
      g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"op%u\", \"cat\": \"cpu_op\", \"pid\": 1, "
                                 "\"tid\": %u, \"ts\": %u, \"dur\": 2, \"args\": {\"External id\": %u}},\n",
                              i % 50, 1 + i % 3, i * 3, i);
      i++;
    }
  g_string_append (s, "{\"ph\": \"X\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1}\n]}\n");
  f->json = cp_test_write_file (f->dir, "capture.json", s->str, s->len);

  {
    gsize cap = compressBound (s->len) + 64;
    g_autofree guint8 *out = g_malloc (cap);
    z_stream zs = { 0 };

    g_assert_cmpint (deflateInit2 (&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
    zs.next_in = (guint8 *) s->str;
    zs.avail_in = s->len;
    zs.next_out = out;
    zs.avail_out = cap;
    g_assert_cmpint (deflate (&zs, Z_FINISH), ==, Z_STREAM_END);
    deflateEnd (&zs);
    f->gz = cp_test_write_file (f->dir, "capture.json.gz", out, zs.total_out);
  }

  src = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "fuzz", "corpus", "xplane-reader",
                          "gen-healthy.xplane.pb", NULL);
  g_assert_true (g_file_get_contents (src, &pb, &pb_len, NULL));
  f->xplane = cp_test_write_file (f->dir, "host.xplane.pb", pb, pb_len);
  f->damaged = cp_test_write_file (f->dir, "damaged.json", s->str, s->len / 2);
  f->garbage = cp_test_write_file (f->dir, "garbage.json", "\x7f" "ELF garbage", -1);
}

static void
files_clear (Files *f)
{
  cp_test_rm_rf (f->dir);
  g_free (f->dir);
  g_free (f->json);
  g_free (f->gz);
  g_free (f->xplane);
  g_free (f->damaged);
  g_free (f->garbage);
}

/* Loading ---------------------------------------------------------------------- */

typedef struct
{
  GMainLoop    *loop;
  CpTrace      *trace;
  GError       *error;
  GCancellable *cancel_on_progress;
  guint         progress_calls;
  gboolean      destroyed;
} Load;

static void
on_progress (guint64  done,
             guint64  total,
             gpointer user_data)
{
  Load *l = user_data;

  l->progress_calls++;
  if (l->cancel_on_progress != NULL)
    g_cancellable_cancel (l->cancel_on_progress);
}

static void
on_destroy (gpointer user_data)
{
  Load *l = user_data;

  l->destroyed = TRUE;
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Load *l = user_data;

  l->trace = cp_load_file_finish (result, &l->error);
  g_main_loop_quit (l->loop);
}

/* Loads path asynchronously, as the window does. cancel: 0 none, 1 before
 * it starts, 2 from the first progress report (mid-load), 3 right after it
 * was started (anywhere in the worker). Returns the trace, or NULL with the
 * error checked. */
static CpTrace *
load_async (const char *path,
            int         cancel)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Load l = { 0 };

  l.loop = g_main_loop_new (NULL, FALSE);
  if (cancel == 1)
    g_cancellable_cancel (cancellable);
  if (cancel == 2)
    l.cancel_on_progress = cancellable;
  cp_load_file_async (file, cancellable, on_progress, &l, on_destroy, on_loaded, &l);
  if (cancel == 3)
    g_cancellable_cancel (cancellable);
  g_main_loop_run (l.loop);
  /* The progress data is released on this context, after the callback. */
  while (!l.destroyed)
    g_main_context_iteration (NULL, TRUE);
  g_main_loop_unref (l.loop);

  if (l.trace == NULL)
    {
      g_assert_nonnull (l.error);
      if (cancel == 1)
        g_assert_error (l.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_clear_error (&l.error);
    }
  else
    g_assert_no_error (l.error);
  return l.trace;
}

static CpTrace *
load_sync (const char *path,
           gboolean    cancel_mid_load)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  Load l = { 0 };
  CpTrace *trace;

  if (cancel_mid_load)
    l.cancel_on_progress = cancellable;
  trace = cp_load_file (file, cancellable, on_progress, &l, &error);
  if (cancel_mid_load)
    {
      /* Sync loads report progress from this thread: deterministic. */
      g_assert_null (trace);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    }
  return trace;
}

#ifdef CP_ASAN
static void
assert_no_leaks (void)
{
  /* A full leak check now, in the middle of the process: what the test
   * made and freed must all be gone (caches of GLib and of the type system
   * stay reachable and are not leaks). */
  g_assert_cmpint (__lsan_do_recoverable_leak_check (), ==, 0);
}
#endif

static void
test_cancel_reopen_close (void)
{
  Files f;
  const char *paths[3];

  files_init (&f);
  paths[0] = f.json;
  paths[1] = f.gz;
  paths[2] = f.xplane;
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      CpTrace *trace;

      /* Open and cancel in the middle of the load (sync: from the first
       * progress report, deterministic; async: from the main loop). */
      trace = load_sync (paths[i], TRUE);
      g_assert_null (trace);
      trace = load_async (paths[i], 2);
      g_clear_object (&trace);
      /* Open again, fully, then close. */
      trace = load_async (paths[i], 0);
      g_assert_nonnull (trace);
      g_assert_cmpuint (cp_trace_get_n_slices (trace), >, 0);
      {
        g_autoptr(CpAnalysis) analysis = cp_analysis_new (trace, NULL, NULL);

        g_assert_nonnull (analysis);
      }
      g_object_unref (trace);
    }
  files_clear (&f);

#ifdef CP_ASAN
  assert_no_leaks ();
#else
  g_test_message ("No LeakSanitizer in this build: the valgrind-leaks test checks this one");
#endif
}

/* Memory ---------------------------------------------------------------------- */

static gsize
heap_in_use (void)
{
  struct mallinfo2 mi = mallinfo2 ();

  return mi.uordblks + mi.hblkhd;
}

static gsize
rss_bytes (void)
{
  g_autofree char *text = NULL;
  unsigned long size = 0, resident = 0;

  if (!g_file_get_contents ("/proc/self/statm", &text, NULL, NULL) ||
      sscanf (text, "%lu %lu", &size, &resident) != 2)
    return 0;
  return (gsize) resident * (gsize) sysconf (_SC_PAGESIZE);
}

static void
one_round (Files *f,
           guint  i)
{
  CpTrace *trace = NULL;

  switch (i % 8)
    {
    case 0:
      trace = load_sync (f->json, FALSE);
      g_assert_nonnull (trace);
      {
        CpAnalysis *analysis = cp_analysis_new (trace, NULL, NULL);

        g_assert_nonnull (analysis);
        g_object_unref (analysis);
      }
      break;
    case 1:
      trace = load_sync (f->json, TRUE);
      break;
    case 2:
      trace = load_async (f->gz, 3);
      break;
    case 3:
      trace = load_async (f->xplane, 0);
      g_assert_nonnull (trace);
      break;
    case 4:
      trace = load_async (f->json, 1);
      g_assert_null (trace);
      break;
    case 5:
      trace = load_sync (f->damaged, FALSE);
      g_assert_nonnull (trace);
      g_assert_true (cp_trace_get_load_report (trace)->truncated);
      break;
    case 6:
      trace = load_sync (f->garbage, FALSE);
      g_assert_null (trace);
      break;
    default:
      trace = load_async (f->gz, 2);
      break;
    }
  g_clear_object (&trace);
}

static void
test_flat (void)
{
  Files f;
  const char *rounds_env = g_getenv ("CP_MEMORY_TEST_ROUNDS");
  const guint rounds = rounds_env ? (guint) g_ascii_strtoull (rounds_env, NULL, 10) : 1000;
  const guint warmup = 80;
  const char *limit_env = g_getenv ("CP_MEMORY_TEST_SECONDS");
  gint64 limit_us = (limit_env ? g_ascii_strtoll (limit_env, NULL, 10) : 120) * G_USEC_PER_SEC;
  gint64 t0;
  gsize heap0 = 0, rss0 = 0, heap1, rss1;
  guint done = 0;

  files_init (&f);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < rounds; i++)
    {
      one_round (&f, i);
      done++;
      if (i + 1 == warmup)
        {
          malloc_trim (0);
          heap0 = heap_in_use ();
          rss0 = rss_bytes ();
        }
      if (i + 1 > warmup && g_get_monotonic_time () - t0 > limit_us)
        break;
    }
  malloc_trim (0);
  heap1 = heap_in_use ();
  rss1 = rss_bytes ();
  files_clear (&f);

  g_test_message ("%u rounds in %.1f s; heap in use %zu -> %zu bytes, RSS %zu -> %zu KiB",
                  done, (g_get_monotonic_time () - t0) / 1e6, heap0, heap1, rss0 >> 10, rss1 >> 10);
  if (done < rounds)
    g_test_message ("Stopped after %u of %u rounds: the time limit (CP_MEMORY_TEST_SECONDS) ran out",
                    done, rounds);
  g_assert_cmpuint (done, >, warmup + 100);

#ifdef CP_ASAN
  /* AddressSanitizer's allocator keeps freed memory in quarantine, so
   * mallinfo2() and RSS say nothing here; the leak check does. */
  assert_no_leaks ();
  g_test_message ("Heap and RSS are not measured under AddressSanitizer (quarantine); leak check passed");
#else
  /* The heap comes back to where it was after the warm-up (slack for
   * caches that settle: GLib's slice magazines, the type system). */
  g_assert_cmpuint (heap1, <=, heap0 + 2 * 1024 * 1024);
  /* RSS may keep freed pages, but must not grow with the rounds. */
  g_assert_cmpuint (rss1, <=, rss0 + 32 * 1024 * 1024);
#endif
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/memory/cancel-reopen-close", test_cancel_reopen_close);
  g_test_add_func ("/memory/flat", test_flat);

  return g_test_run ();
}
