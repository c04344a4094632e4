/* test-hostile.c: shapes of input that used to take quadratic time or block
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each case is made by the test and must end within the test's meson
 * timeout (60 s, four times that under the sanitizers); before the fixes
 * they ran for minutes (100,000 GPU planes: over 300 s) or for ever (a FIFO
 * without a writer).
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "cp-test-pbwriter.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"
#include "formats/cp-xplane-reader.h"
#include "model/cp-trace-builder.h"
#include "render/cp-timeline-layout.h"

static CpTrace *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return cp_load_file (file, NULL, NULL, NULL, error);
}

static char *
parse_name (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return g_file_get_parse_name (file);
}

/* An XSpace of n planes named "<prefix><i>", ids i % id_mod, each with one
 * line holding one event. */
static char *
write_planes (const char *dir,
              const char *prefix,
              guint       n,
              guint       id_mod)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autofree char *path = NULL;

  for (guint i = 0; i < n; i++)
    {
      GByteArray *plane = g_byte_array_new ();
      GByteArray *line = g_byte_array_new ();
      GByteArray *event = g_byte_array_new ();
      GByteArray *entry = g_byte_array_new ();
      GByteArray *meta = g_byte_array_new ();
      g_autofree char *name = g_strdup_printf ("%s%u", prefix, i);

      pbw_uint (plane, 1, i % id_mod);
      pbw_str (plane, 2, name);
      pbw_uint (line, 1, 1);
      pbw_uint (line, 3, G_GINT64_CONSTANT (1700000000000000000));
      pbw_uint (event, 1, 1);
      pbw_uint (event, 2, (guint64) i * 1000);
      pbw_uint (event, 3, 5000);
      pbw_msg (line, 4, event);
      pbw_msg (plane, 3, line);
      pbw_uint (meta, 1, 1);
      pbw_str (meta, 2, "op");
      pbw_uint (entry, 1, 1);
      pbw_msg (entry, 2, meta);
      pbw_msg (plane, 4, entry);
      pbw_msg (space, 1, plane);
    }
  path = cp_test_write_file (dir, "planes.xplane.pb", space->data, space->len);
  return g_steal_pointer (&path);
}

/* Every process has its own pid and one lane with its one slice. */
static void
assert_one_process_per_plane (CpTrace *trace,
                              guint    n)
{
  g_autoptr(GHashTable) pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  g_assert_cmpuint (cp_trace_get_n_processes (trace), ==, n);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), ==, n);
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, n);
  for (guint i = 0; i < n; i++)
    {
      gint64 pid = cp_trace_get_process (trace, i)->pid;

      g_assert_false (g_hash_table_contains (pids, &pid));
      g_hash_table_add (pids, g_memdup2 (&pid, sizeof pid));
    }
}

static void
test_many_gpu_planes (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  /* Three ids for 100,000 planes: every plane after the third wants a
   * taken pid. */
  g_autofree char *path = write_planes (dir, "/device:GPU:", 100000, 3);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = load_path (path, &error);

  g_assert_no_error (error);
  assert_one_process_per_plane (trace, 100000);
  for (guint i = 0; i < cp_trace_get_n_processes (trace); i++)
    g_assert_true (cp_trace_get_process (trace, i)->is_device);
  g_assert_cmpuint (cp_trace_get_n_devices (trace), ==, 100000);
  cp_test_rm_rf (dir);
}

static void
test_many_host_planes (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = write_planes (dir, "/host:CPU", 100000, 100000);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = load_path (path, &error);
  g_autoptr(CpViewState) view = cp_view_state_new ();
  CpTimelineLayout *layout;
  CpLayoutMetrics metrics;

  g_assert_no_error (error);
  assert_one_process_per_plane (trace, 100000);
  cp_layout_metrics_init (&metrics, 13);
  cp_view_state_set_trace (view, trace);
  layout = cp_timeline_layout_new (view, &metrics);
  g_assert_cmpuint (cp_timeline_layout_get_n_items (layout), ==, 200000);
  cp_timeline_layout_unref (layout);
  cp_test_rm_rf (dir);
}

/* The layout ------------------------------------------------------------------ */

/* The layout's order, found the slow and obvious way: groups in order of
 * their first lane, devices before or after the others, pseudo processes
 * last; under each group header its lanes in lane order. Returns items as
 * (kind, index) pairs. */
static GArray *
naive_order (CpTrace  *trace,
             gboolean  devices_first)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  guint n_lanes = cp_trace_get_n_lanes (trace);
  guint n_proc = cp_trace_get_n_processes (trace);
  g_autoptr(GArray) groups = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint pseudo = 0; pseudo < 2; pseudo++)
    for (guint pass = 0; pass < 2; pass++)
      {
        gboolean want_devices = devices_first ? pass == 0 : pass == 1;

        for (guint i = 0; i < n_lanes; i++)
          {
            guint p = cp_lane_get_process (cp_trace_get_lane (trace, i));
            const CpProcess *proc = cp_trace_get_process (trace, p);
            gboolean seen = FALSE;

            if (!!proc->is_device != want_devices || !!proc->is_pseudo != pseudo)
              continue;
            for (guint g = 0; g < groups->len && !seen; g++)
              seen = g_array_index (groups, guint, g) == p;
            if (!seen)
              g_array_append_val (groups, p);
          }
      }
  g_assert_cmpuint (groups->len, <=, n_proc);
  for (guint g = 0; g < groups->len; g++)
    {
      guint p = g_array_index (groups, guint, g);
      guint item[2] = { CP_LAYOUT_GROUP, p };

      g_array_append_val (out, item);
      for (guint i = 0; i < n_lanes; i++)
        {
          if (cp_lane_get_process (cp_trace_get_lane (trace, i)) == p)
            {
              guint lane[2] = { CP_LAYOUT_LANE, i };

              g_array_append_val (out, lane);
            }
        }
    }
  return out;
}

/* Thousands of processes, some devices, some pseudo, with 0 to 3 lanes each
 * added in a shuffled order: the layout is the naive order. */
static void
test_layout_many_processes (void)
{
  for (guint round = 0; round < 6; round++)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (round + 1);
      CpTraceBuilder *b = cp_trace_builder_new ();
      guint n = 500 + g_rand_int_range (rand, 0, 2500);
      g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
      g_autoptr(CpTrace) trace = NULL;
      g_autoptr(CpViewState) view = cp_view_state_new ();
      g_autoptr(GError) error = NULL;
      CpLayoutMetrics metrics;

      for (guint i = 0; i < n; i++)
        {
          guint p = cp_trace_builder_process_for_pid (b, 1000 + i);
          CpProcess *proc = cp_trace_builder_get_process (b, p);
          guint k = g_rand_int_range (rand, 0, 4);

          proc->is_device = g_rand_int_range (rand, 0, 3) == 0;
          proc->is_pseudo = g_rand_int_range (rand, 0, 10) == 0;
          for (guint j = 0; j < k; j++)
            {
              guint lane[2] = { p, j };

              g_array_append_val (lanes, lane);
            }
        }
      /* Lanes in a shuffled order, so processes' lanes interleave. */
      for (guint i = lanes->len; i > 1; i--)
        {
          guint j = g_rand_int_range (rand, 0, i);
          guint t[2];

          guint *a = &g_array_index (lanes, guint, (i - 1) * 2);
          guint *c = &g_array_index (lanes, guint, j * 2);

          memcpy (t, a, sizeof t);
          memcpy (a, c, sizeof t);
          memcpy (c, t, sizeof t);
        }
      for (guint i = 0; i < lanes->len; i++)
        {
          guint *l = &g_array_index (lanes, guint, i * 2);
          CpLaneKey key = { l[1] + 1, CP_STR_EMPTY };
          guint lane = cp_trace_builder_lane (b, l[0], CP_LANE_HOST_THREAD, key);
          CpSliceInit init;

          cp_slice_init_clear (&init);
          init.start = i;
          init.dur = 1;
          cp_trace_builder_add_slice (b, lane, &init);
        }
      trace = cp_trace_builder_finish (b, &error);
      g_assert_no_error (error);
      cp_layout_metrics_init (&metrics, 13);
      cp_view_state_set_trace (view, trace);

      for (guint devices_first = 0; devices_first < 2; devices_first++)
        {
          g_autoptr(GArray) want = naive_order (trace, devices_first);
          CpTimelineLayout *layout;

          cp_view_state_set_devices_first (view, devices_first);
          layout = cp_timeline_layout_new (view, &metrics);
          g_assert_cmpuint (cp_timeline_layout_get_n_items (layout), ==, want->len);
          for (guint i = 0; i < want->len; i++)
            {
              const CpLayoutItem *item = cp_timeline_layout_get_item (layout, i);
              const guint *w = &g_array_index (want, guint, i * 2);

              g_assert_cmpuint (item->kind, ==, w[0]);
              if (w[0] == CP_LAYOUT_GROUP)
                g_assert_cmpuint (item->process, ==, w[1]);
              else
                g_assert_cmpuint (item->lane, ==, w[1]);
            }
          cp_timeline_layout_unref (layout);
        }
    }
}


/* Compressed XPlane ----------------------------------------------------------- */

static char *
gzip_file (const char *path)
{
  g_autofree char *data = NULL;
  char *out = g_strconcat (path, ".gz", NULL);
  gsize len;
  gzFile gz;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  gz = gzopen (out, "wb1");
  g_assert_nonnull (gz);
  g_assert_cmpint (gzwrite (gz, data, len), ==, (int) len);
  g_assert_cmpint (gzclose (gz), ==, Z_OK);
  return out;
}

static guint
count_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  if (d == NULL)
    return 0;
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* Decompressed data past the in-memory bound goes through a temporary file:
 * the same trace, no file left behind, and a clear message when the file
 * cannot be written (the disk is full) instead of an abort. */
static void
test_compressed_spill (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *plain = write_planes (dir, "/device:GPU:", 3000, 3000);
  g_autofree char *gz = gzip_file (plain);
  g_autofree char *cache = g_build_filename (g_get_user_cache_dir (), "chokepoint", NULL);
  g_autofree char *shown = parse_name (gz);
  g_autoptr(CpTrace) whole = NULL;
  g_autoptr(CpTrace) in_memory = NULL;
  g_autoptr(CpTrace) spilled = NULL;
  g_autoptr(GError) error = NULL;
  struct rlimit saved, lim;

  g_assert_true (g_str_has_prefix (cache, g_getenv ("XDG_CACHE_HOME")));
  whole = load_path (plain, &error);
  g_assert_no_error (error);
  in_memory = load_path (gz, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_files (cache), ==, 0);

  _cp_xplane_set_inflate_in_memory (4096);
  spilled = load_path (gz, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (cache, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (count_files (cache), ==, 0);
  for (CpTrace **t = (CpTrace *[]) { in_memory, spilled, NULL }; *t != NULL; t++)
    {
      g_assert_cmpuint (cp_trace_get_n_slices (*t), ==, cp_trace_get_n_slices (whole));
      g_assert_cmpuint (cp_trace_get_n_lanes (*t), ==, cp_trace_get_n_lanes (whole));
      g_assert_cmpuint (cp_trace_get_n_processes (*t), ==, cp_trace_get_n_processes (whole));
      g_assert_cmpint (cp_trace_get_duration (*t), ==, cp_trace_get_duration (whole));
    }

  /* A full disk: writes past 64 KiB fail. */
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  lim = saved;
  lim.rlim_cur = 64 * 1024;
  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &lim), ==, 0);
  g_assert_null (load_path (gz, &error));
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  _cp_xplane_set_inflate_in_memory (0);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO);
  {
    g_autofree char *cache_shown = parse_name (cache);
    g_autofree char *prefix = g_strdup_printf ("“%s” cannot be decompressed into “%s”: %s (after ",
                                               shown, cache_shown, g_strerror (EFBIG));

    g_assert_true (g_str_has_prefix (error->message, prefix));
  }
  g_assert_cmpuint (count_files (cache), ==, 0);
  cp_test_rm_rf (dir);
}


/* Memory estimates ------------------------------------------------------------ */

/* Rewrites the last four bytes of a gzip file (ISIZE, the size modulo 4 GiB). */
static void
set_gzip_isize (const char *path,
                guint32     isize)
{
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  for (guint i = 0; i < 4; i++)
    data[len - 4 + i] = (char) (isize >> (8 * i));
  g_assert_true (g_file_set_contents (path, data, len, NULL));
}

static guint64
estimate (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return cp_load_estimate_peak (file);
}

/* What a load will take is said before it starts when it passes 2 GiB: from
 * the plain size, gzip's stated size, zstd's stated size. */
static void
test_memory_estimate (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *json = g_build_filename (dir, "run.pt.trace.json", NULL);
  g_autofree char *xgz = g_build_filename (dir, "run.xplane.pb.gz", NULL);
  g_autofree char *jgz = g_build_filename (dir, "run.pt.trace.json.gz", NULL);
  g_autofree char *zst = g_build_filename (dir, "run.json.zst", NULL);
  g_autofree char *fifo = g_build_filename (dir, "pipe.json", NULL);
  g_autofree char *plain = write_planes (dir, "/host:CPU", 10, 10);
  g_autofree char *gz = gzip_file (plain);
  static const char doc[] = "{\"traceEvents\": []}";
  g_autoptr(GFile) big = NULL;
  g_autofree char *notice = NULL;
  g_autofree char *name = NULL;
  g_autofree char *expected = NULL;
  gsize plain_len;

  g_assert_true (g_file_set_contents (json, doc, -1, NULL));
  g_assert_cmpuint (estimate (json), ==, (guint64) (strlen (doc) * 0.35));
  {
    g_autofree char *data = NULL;

    g_assert_true (g_file_get_contents (plain, &data, &plain_len, NULL));
  }
  /* A plain XPlane file: by its content. */
  g_assert_cmpuint (estimate (plain), ==, (guint64) (plain_len * 1.45));
  /* A gzip file states its decompressed size. */
  g_assert_cmpuint (estimate (gz), ==, (guint64) (plain_len * 1.45));
  /* 3 GiB of JSON is under the notice, of XPlane over it. */
  g_assert_true (g_rename (gz, xgz) == 0);
  set_gzip_isize (xgz, 3u << 30);
  g_assert_cmpuint (estimate (xgz), ==, (guint64) ((3.0 * (1u << 30)) * 1.45));
  {
    g_autofree char *data = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (xgz, &data, &len, NULL));
    g_assert_true (g_file_set_contents (jgz, data, len, NULL));
  }
  g_assert_cmpuint (estimate (jgz), ==, (guint64) ((3.0 * (1u << 30)) * 0.35));
  {
    g_autoptr(GFile) f = g_file_new_for_path (jgz);
    g_autofree char *none = cp_load_describe_memory (f);

    g_assert_null (none);
  }
  big = g_file_new_for_path (xgz);
  notice = cp_load_describe_memory (big);
  name = parse_name (xgz);
  /* g_format_size() puts a no-break space before the unit. */
  expected = g_strdup_printf ("Reading “%s” will take about 4.7\u00a0GB of memory", name);
  g_assert_cmpstr (notice, ==, expected);
  /* zstd states it when it knows it. */
  {
    char out[256];
    size_t n = ZSTD_compress (out, sizeof out, doc, strlen (doc), 3);

    g_assert_false (ZSTD_isError (n));
    g_assert_true (g_file_set_contents (zst, out, n, NULL));
    g_assert_cmpuint (estimate (zst), ==, (guint64) (strlen (doc) * 0.35));
  }
  /* Nothing to tell from a pipe or a folder. */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpuint (estimate (fifo), ==, 0);
  g_assert_cmpuint (estimate (dir), ==, 0);

  /* The command line says it first, on stderr, then reads (and here finds
   * the gzip data damaged: its stated size is not its size). */
  {
    const char *exe = g_getenv ("CP_CHOKEPOINT");
    g_autofree char *err = NULL;
    g_autofree char *line = NULL;
    int status = 0;
    const char *argv[] = { exe, "info", xgz, NULL };

    if (exe != NULL)
      {
        g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                     NULL, &err, &status, NULL));
        line = g_strdup_printf ("chokepoint info: %s\n", expected);
        g_assert_true (g_str_has_prefix (err, line));
      }
  }
  cp_test_rm_rf (dir);
}

/* Special files --------------------------------------------------------------- */

static void
assert_refused (const char *path,
                const char *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree char *name = parse_name (path);
  g_autofree char *expected = g_strdup_printf ("“%s” is %s, not a capture file: save the capture "
                                               "to a file and open that", name, what);
  gint64 t0 = g_get_monotonic_time ();

  trace = load_path (path, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpstr (error->message, ==, expected);
  /* Refused at once, not after a wait for data. */
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
}

static void
test_special_files (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *fifo = g_build_filename (dir, "capture.pt.trace.json", NULL);
  g_autofree char *sock = g_build_filename (dir, "capture.sock", NULL);
  struct sockaddr_un addr = { 0 };
  int fd;

  /* A FIFO with no writer: open() alone would wait for ever. */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_refused (fifo, "a named pipe (FIFO)");

  if (g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    assert_refused ("/dev/zero", "a character device");

  fd = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (fd, >=, 0);
  addr.sun_family = AF_UNIX;
  g_assert_cmpuint (strlen (sock), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, sock);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  assert_refused (sock, "a socket");
  close (fd);
  cp_test_rm_rf (dir);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *cache = g_build_filename (g_get_tmp_dir (), "chokepoint-test-hostile-XXXXXX", NULL);

  g_setenv ("LANGUAGE", "C", TRUE);
  g_assert_nonnull (g_mkdtemp (cache));
  /* Before GLib reads it: the temporary files of decompression go here. */
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hostile/many-gpu-planes", test_many_gpu_planes);
  g_test_add_func ("/hostile/many-host-planes", test_many_host_planes);
  g_test_add_func ("/hostile/layout-many-processes", test_layout_many_processes);
  g_test_add_func ("/hostile/special-files", test_special_files);
  g_test_add_func ("/hostile/compressed-spill", test_compressed_spill);
  g_test_add_func ("/hostile/memory-estimate", test_memory_estimate);
  {
    int status = g_test_run ();

    cp_test_rm_rf (cache);
    return status;
  }
}
