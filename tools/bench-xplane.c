/* bench-xplane.c: XPlane load speed and peak memory on a generated capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-xplane [--size SIZE] [--dir DIR] [--keep] [--synthetic]
 *
 * Writes a capture of about SIZE (default 1G) with the project's scenario
 * generator (cp-gen --scenario healthy, as .xplane.pb, .xplane.pb.gz and
 * .xplane.pb.zst; --synthetic: a denser built-in generator), then loads each
 * in a fresh process through cp_load_file() and prints wall and CPU time,
 * MB/s and peak RSS, next to a peer: a process that walks every message of
 * the plain file with the protobuf walker and does nothing else (the floor of
 * any reader built on it). Run by hand; not a test.
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "formats/cp-loader.h"
#include "formats/cp-protobuf.h"
#include "formats/cp-xplane-reader.h"

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */

typedef struct
{
  FILE   *out;          /* NULL: only count */
  guint64 bytes;
} Sink;

static void
sink_put (Sink         *sink,
          const guint8 *data,
          gsize         len)
{
  sink->bytes += len;
  if (sink->out != NULL && fwrite (data, 1, len, sink->out) != len)
    g_error ("write failed: %s", g_strerror (errno));
}

static guint
put_varint (guint8  *b,
            guint64  v)
{
  guint n = 0;

  do
    {
      b[n] = v & 0x7f;
      v >>= 7;
      if (v != 0)
        b[n] |= 0x80;
      n++;
    }
  while (v != 0);
  return n;
}

static guint
varint_size (guint64 v)
{
  guint n = 1;

  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

typedef struct
{
  guint8 b[256];
  guint  n;
} Buf;

static void
buf_varint (Buf     *buf,
            guint64  v)
{
  buf->n += put_varint (buf->b + buf->n, v);
}

static void
buf_field_varint (Buf     *buf,
                  guint32  field,
                  guint64  v)
{
  buf_varint (buf, (guint64) field << 3);
  buf_varint (buf, v);
}

static void
buf_field_bytes (Buf          *buf,
                 guint32       field,
                 const guint8 *data,
                 gsize         len)
{
  buf_varint (buf, ((guint64) field << 3) | 2);
  buf_varint (buf, len);
  memcpy (buf->b + buf->n, data, len);
  buf->n += len;
}

/* Stat metadata ids of the generated planes. */
enum
{
  ST_CORRELATION = 1,
  ST_DEVICE_ID,
  ST_KERNEL_DETAILS,
  ST_MEMCPY_DETAILS,
  ST_R,
  ST_STEP_NUM,
  ST_GROUP_ID,
  ST_FIRST_STRING,      /* ref values from here on */
};

static const char *kernel_details[] = {
  "regs:128 static_shared:0 dynamic_shared:49152 grid:132,1,1 block:384,1,1 occ_pct:18.75",
  "regs:32 static_shared:0 dynamic_shared:0 grid:4096,1,1 block:256,1,1 occ_pct:100",
  "regs:64 static_shared:16384 dynamic_shared:0 grid:64,8,1 block:128,1,1 occ_pct:50",
  "regs:40 static_shared:0 dynamic_shared:0 grid:1024,1,1 block:512,1,1 occ_pct:75",
};
static const char *memcpy_details = "kind_src:pinned kind_dst:device size:33554432 dest:0 async:1";

/* Event metadata ids. */
enum
{
  EV_TRAIN_STEP = 1,
  EV_LAUNCH,
  EV_MEMCPY_CALL,
  EV_NEXT_BATCH,
  EV_MEMCPY,
  EV_FIRST_KERNEL,      /* 4 kernels */
  EV_FIRST_FRAME = EV_FIRST_KERNEL + 4,  /* 40 Python frames */
  EV_N = EV_FIRST_FRAME + 40,
};

#define STEP_PS     G_GINT64_CONSTANT (10000000000)   /* 10 ms */
#define N_FRAMES    40
#define N_LAUNCHES  12

static void
stat_varint (Buf     *ev,
             guint64  metadata_id,
             guint32  value_field,
             guint64  v)
{
  Buf s = { { 0 }, 0 };

  buf_field_varint (&s, 1, metadata_id);
  buf_field_varint (&s, value_field, v);
  buf_field_bytes (ev, 4, s.b, s.n);
}

static void
put_event (Sink *sink,
           Buf  *ev)
{
  Buf head = { { 0 }, 0 };

  buf_varint (&head, (4 << 3) | 2);
  buf_varint (&head, ev->n);
  sink_put (sink, head.b, head.n);
  sink_put (sink, ev->b, ev->n);
}

static void
event_head (Buf    *ev,
            gint64  metadata_id,
            gint64  offset_ps,
            gint64  duration_ps)
{
  ev->n = 0;
  buf_field_varint (ev, 1, metadata_id);
  buf_field_varint (ev, 2, offset_ps);
  buf_field_varint (ev, 3, duration_ps);
}

/* The events of one line for steps [0, n_steps). line: 0 python, 1 data
 * loader, 2 GPU stream. */
static void
line_events (Sink   *sink,
             guint   line,
             guint64 n_steps)
{
  Buf ev;

  for (guint64 s = 0; s < n_steps; s++)
    {
      gint64 t0 = (gint64) s * STEP_PS;
      guint64 corr = s * (N_LAUNCHES + 1) + 1;

      if (line == 0)
        {
          gint64 t = t0 + 1000000;

          event_head (&ev, EV_TRAIN_STEP, t0, STEP_PS - 1000000);
          stat_varint (&ev, ST_R, 4, 1);
          stat_varint (&ev, ST_STEP_NUM, 4, s);
          put_event (sink, &ev);
          for (guint k = 0; k < N_FRAMES; k++)
            {
              event_head (&ev, EV_FIRST_FRAME + k, t, 60000000);
              put_event (sink, &ev);
              t += 70000000;
              if (k % 3 == 2 && k / 3 < N_LAUNCHES)
                {
                  event_head (&ev, EV_LAUNCH, t, 5000000);
                  stat_varint (&ev, ST_CORRELATION, 3, corr + k / 3);
                  stat_varint (&ev, ST_DEVICE_ID, 4, 0);
                  put_event (sink, &ev);
                  t += 6000000;
                }
            }
          event_head (&ev, EV_MEMCPY_CALL, t, 8000000);
          stat_varint (&ev, ST_CORRELATION, 3, corr + N_LAUNCHES);
          stat_varint (&ev, ST_DEVICE_ID, 4, 0);
          put_event (sink, &ev);
        }
      else if (line == 1)
        {
          for (guint k = 0; k < 5; k++)
            {
              event_head (&ev, EV_NEXT_BATCH, t0 + k * 2000000000, 1500000000);
              put_event (sink, &ev);
            }
        }
      else
        {
          gint64 t = t0 + 4000000000;

          event_head (&ev, EV_MEMCPY, t0 + 3000000000, 900000000);
          stat_varint (&ev, ST_CORRELATION, 3, corr + N_LAUNCHES);
          stat_varint (&ev, ST_MEMCPY_DETAILS, 7, ST_FIRST_STRING + 4);
          put_event (sink, &ev);
          for (guint k = 0; k < N_LAUNCHES; k++)
            {
              event_head (&ev, EV_FIRST_KERNEL + k % 4, t, 400000000);
              stat_varint (&ev, ST_CORRELATION, 3, corr + k);
              stat_varint (&ev, ST_KERNEL_DETAILS, 7, ST_FIRST_STRING + k % 4);
              stat_varint (&ev, ST_GROUP_ID, 4, s);
              put_event (sink, &ev);
              t += 450000000;
            }
        }
    }
}

static GByteArray *
metadata_bytes (gboolean gpu)
{
  GByteArray *out = g_byte_array_new ();
  static const char *stat_names[] = {
    NULL, "correlation_id", "device_id", "kernel_details", "memcpy_details", "_r", "step_num",
    "group_id",
  };

#define APPEND_MSG(field, inner)                                               \
  G_STMT_START {                                                               \
    Buf h_ = { { 0 }, 0 };                                                     \
    buf_varint (&h_, ((guint64) (field) << 3) | 2);                            \
    buf_varint (&h_, (inner)->len);                                            \
    g_byte_array_append (out, h_.b, h_.n);                                     \
    g_byte_array_append (out, (inner)->data, (inner)->len);                    \
  } G_STMT_END

  for (guint id = 1; id < EV_N; id++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GByteArray) meta = g_byte_array_new ();
      g_autoptr(GByteArray) entry = g_byte_array_new ();
      Buf b = { { 0 }, 0 };

      if (id == EV_TRAIN_STEP)
        name = g_strdup ("train_step");
      else if (id == EV_LAUNCH)
        name = g_strdup ("cudaLaunchKernel");
      else if (id == EV_MEMCPY_CALL)
        name = g_strdup ("cudaMemcpyAsync");
      else if (id == EV_NEXT_BATCH)
        name = g_strdup ("IteratorGetNext");
      else if (id == EV_MEMCPY)
        name = g_strdup ("MemcpyH2D");
      else if (id < EV_FIRST_FRAME)
        name = g_strdup_printf ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_%u>(Params)",
                                id - EV_FIRST_KERNEL);
      else
        name = g_strdup_printf ("model.py(%u): forward_%u", 100 + id, id - EV_FIRST_FRAME);
      if ((id < EV_FIRST_KERNEL && !gpu && id != EV_MEMCPY) ||
          (gpu && (id == EV_MEMCPY || (id >= EV_FIRST_KERNEL && id < EV_FIRST_FRAME))) ||
          (!gpu && id >= EV_FIRST_FRAME))
        {
          buf_field_varint (&b, 1, id);
          buf_field_bytes (&b, 2, (const guint8 *) name, strlen (name));
          g_byte_array_append (meta, b.b, b.n);
          b.n = 0;
          buf_field_varint (&b, 1, id);
          g_byte_array_append (entry, b.b, b.n);
          {
            GByteArray *tmp = out;

            out = entry;
            APPEND_MSG (2, meta);
            out = tmp;
          }
          APPEND_MSG (4, entry);
        }
    }

  for (guint id = 1; id < ST_FIRST_STRING + 5; id++)
    {
      const char *name = id < ST_FIRST_STRING ? stat_names[id]
                       : id < ST_FIRST_STRING + 4 ? kernel_details[id - ST_FIRST_STRING]
                       : memcpy_details;
      g_autoptr(GByteArray) meta = g_byte_array_new ();
      g_autoptr(GByteArray) entry = g_byte_array_new ();
      Buf b = { { 0 }, 0 };

      buf_field_varint (&b, 1, id);
      buf_field_bytes (&b, 2, (const guint8 *) name, strlen (name));
      g_byte_array_append (meta, b.b, b.n);
      b.n = 0;
      buf_field_varint (&b, 1, id);
      g_byte_array_append (entry, b.b, b.n);
      {
        GByteArray *tmp = out;

        out = entry;
        APPEND_MSG (2, meta);
        out = tmp;
      }
      APPEND_MSG (5, entry);
    }
  return out;
#undef APPEND_MSG
}

static void
put_header (Sink    *sink,
            guint32  field,
            guint64  len)
{
  Buf h = { { 0 }, 0 };

  buf_varint (&h, ((guint64) field << 3) | 2);
  buf_varint (&h, len);
  sink_put (sink, h.b, h.n);
}

static guint64
line_size (guint    line,
           guint64  n_steps,
           Buf     *head)
{
  Sink count = { NULL, 0 };
  static const char *names[] = { "python", "Data loader", "Stream #7(Compute,MemcpyH2D)" };
  static const gint64 ids[] = { 1000, 1001, 7 };

  head->n = 0;
  buf_field_varint (head, 1, ids[line]);
  buf_field_bytes (head, 2, (const guint8 *) names[line], strlen (names[line]));
  buf_field_varint (head, 3, 50);
  line_events (&count, line, n_steps);
  return head->n + count.bytes;
}

static guint64
write_plane (Sink       *sink,
             gboolean    gpu,
             guint64     n_steps)
{
  g_autoptr(GByteArray) meta = metadata_bytes (gpu);
  const char *name = gpu ? "/device:GPU:0" : "/host:CPU";
  guint first = gpu ? 2 : 0, last = gpu ? 2 : 1;
  guint64 sizes[3];
  Buf heads[3];
  Buf head = { { 0 }, 0 };
  guint64 total;

  buf_field_bytes (&head, 2, (const guint8 *) name, strlen (name));
  total = head.n + meta->len;
  for (guint l = first; l <= last; l++)
    {
      sizes[l] = line_size (l, n_steps, &heads[l]);
      total += varint_size (((guint64) 3 << 3) | 2) + varint_size (sizes[l]) + sizes[l];
    }

  put_header (sink, 1, total);
  sink_put (sink, head.b, head.n);
  for (guint l = first; l <= last; l++)
    {
      put_header (sink, 3, sizes[l]);
      sink_put (sink, heads[l].b, heads[l].n);
      line_events (sink, l, n_steps);
    }
  sink_put (sink, meta->data, meta->len);
  return total;
}

static void
write_task_env (Sink *sink)
{
  Buf plane = { { 0 }, 0 };
  Buf stat = { { 0 }, 0 };
  Buf meta = { { 0 }, 0 };
  Buf entry = { { 0 }, 0 };

  buf_field_bytes (&plane, 2, (const guint8 *) "Task Environment", 16);
  buf_field_varint (&meta, 1, 1);
  buf_field_bytes (&meta, 2, (const guint8 *) "profile_start_time", 18);
  buf_field_varint (&entry, 1, 1);
  buf_field_bytes (&entry, 2, meta.b, meta.n);
  buf_field_bytes (&plane, 5, entry.b, entry.n);
  buf_field_varint (&stat, 1, 1);
  buf_field_varint (&stat, 3, G_GUINT64_CONSTANT (1760000000000000000));
  buf_field_bytes (&plane, 6, stat.b, stat.n);
  put_header (sink, 1, plane.n);
  sink_put (sink, plane.b, plane.n);
}

static void
generate (const char *path,
          guint64     size)
{
  Sink count = { NULL, 0 };
  guint64 per_step, n_steps;
  Sink out;
  FILE *f;

  line_events (&count, 0, 1);
  line_events (&count, 1, 1);
  line_events (&count, 2, 1);
  per_step = MAX (count.bytes, 1);
  n_steps = MAX (size / per_step, 1);

  f = fopen (path, "wb");
  if (f == NULL)
    g_error ("%s: %s", path, g_strerror (errno));
  setvbuf (f, NULL, _IOFBF, 1 << 20);
  out.out = f;
  out.bytes = 0;
  write_plane (&out, FALSE, n_steps);
  write_plane (&out, TRUE, n_steps);
  write_task_env (&out);
  put_header (&out, 4, 5);
  sink_put (&out, (const guint8 *) "bench", 5);
  if (fclose (f) != 0)
    g_error ("%s: %s", path, g_strerror (errno));
  g_print ("generated %s: %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT " steps, %"
           G_GUINT64_FORMAT " events\n", path, out.bytes, n_steps,
           n_steps * (1 + N_FRAMES + N_LAUNCHES + 1 + 5 + 1 + N_LAUNCHES));
}

/* ---------------------------------------------------------------------- */
/* Measuring (in a child process, so that generation does not count)      */

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static long
peak_rss_kib (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static guint64
walk (CpPbReader *r,
      guint       depth)
{
  CpPbField f;
  guint64 n = 0;

  while (cp_pb_reader_next (r, &f))
    {
      CpPbReader sub;

      n++;
      /* XSpace > XPlane > XLine > XEvent > XStat: descend where messages are. */
      if (f.wire_type == CP_PB_WIRE_LEN && depth < 4 &&
          ((depth == 0 && f.number == 1) || (depth == 1 && f.number == 3) ||
           (depth == 2 && f.number == 4) || (depth == 3 && f.number == 4)) &&
          cp_pb_reader_init_sub (&sub, r, &f))
        n += walk (&sub, depth + 1);
    }
  return n;
}

static void
release_mapped (guint64  offset,
                gpointer data)
{
  GMappedFile *mf = data;
  gsize page = 4096;
  guintptr base = (guintptr) g_mapped_file_get_contents (mf);

  if (offset >= page)
    madvise ((void *) base, (offset / page) * page, MADV_DONTNEED);
}

static CpTrace *
load_direct (const char  *path,
             GError     **error)
{
  g_autoptr(GMappedFile) mf = g_mapped_file_new (path, FALSE, error);
  CpTraceBuilder *b;
  g_autoptr(CpXPlaneReader) r = NULL;
  CpXPlaneInput input = { 0 };

  if (mf == NULL)
    return NULL;
  b = cp_trace_builder_new ();
  r = cp_xplane_reader_new (b);
  input.data = (const guint8 *) g_mapped_file_get_contents (mf);
  input.len = g_mapped_file_get_length (mf);
  input.release = release_mapped;
  input.release_data = mf;
  gint64 t0 = g_get_monotonic_time (), t1;
  CpTrace *trace;

  if (!cp_xplane_reader_add_space (r, &input, NULL, error))
    {
      cp_trace_builder_free (b);
      return NULL;
    }
  cp_xplane_reader_finish (r);
  t1 = g_get_monotonic_time ();
  trace = cp_trace_builder_finish (b, error);
  g_print ("  (reading %.2f s, building the model %.2f s)\n", (t1 - t0) / 1e6,
           (g_get_monotonic_time () - t1) / 1e6);
  return trace;
}

static int
run_child (const char *mode,
           const char *path)
{
  g_autoptr(GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  double secs;
  struct stat st;

  if (stat (path, &st) != 0)
    g_error ("%s: %s", path, g_strerror (errno));

  if (g_str_equal (mode, "--walk"))
    {
      g_autoptr(GMappedFile) mf = g_mapped_file_new (path, FALSE, &error);
      CpPbReader r;
      guint64 n;

      if (mf == NULL)
        g_error ("%s", error->message);
      cp_pb_reader_init (&r, (const guint8 *) g_mapped_file_get_contents (mf),
                         g_mapped_file_get_length (mf), 0);
      n = walk (&r, 0);
      secs = (g_get_monotonic_time () - t0) / 1e6;
      g_print ("walk-only  %8.1f MB/s  %6.2f s (cpu %5.2f s: %6.1f MB/s)  peak RSS %7.0f MiB "
               "(%.2fx)  %" G_GUINT64_FORMAT " fields\n", st.st_size / 1e6 / secs, secs,
               cpu_seconds (), st.st_size / 1e6 / cpu_seconds (), peak_rss_kib () / 1024.0,
               peak_rss_kib () * 1024.0 / st.st_size, n);
    }
  else
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(CpTrace) trace = g_str_equal (mode, "--direct") ? load_direct (path, &error)
                                 : cp_load_file (file, NULL, NULL, NULL, &error);
      const CpLoadReport *report;

      if (trace == NULL)
        g_error ("%s", error->message);
      report = cp_trace_get_load_report (trace);
      secs = (g_get_monotonic_time () - t0) / 1e6;
      st.st_size = report->input_bytes;
      g_print ("  %s: %" G_GUINT64_FORMAT " bytes in, %" G_GUINT64_FORMAT " events\n",
               report->format, report->input_bytes, report->events);
      g_print ("chokepoint %8.1f MB/s  %6.2f s (cpu %5.2f s: %6.1f MB/s)  peak RSS %7.0f MiB "
               "(%.2fx)  %" G_GUINT64_FORMAT " slices, %u lanes, model %.0f MiB\n",
               st.st_size / 1e6 / secs, secs, cpu_seconds (), st.st_size / 1e6 / cpu_seconds (),
               peak_rss_kib () / 1024.0, peak_rss_kib () * 1024.0 / st.st_size,
               cp_trace_get_n_slices (trace), cp_trace_get_n_lanes (trace),
               cp_trace_get_memory_size (trace) / 1048576.0);
    }
  return 0;
}

static void
run_gen (const char *gen,
         const char *path,
         const char *size)
{
  const char *argv[] = { gen, "--scenario", "healthy", "--size", size, "--seed", "1",
                         "--out", path, NULL };
  g_autoptr(GError) error = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                     &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s", gen, error->message);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size = g_strdup ("1G");
  g_autofree char *dir = NULL;
  g_autofree char *gen = NULL;
  g_autofree char *self_dir = g_path_get_dirname (argv[0]);
  gboolean synthetic = FALSE, keep = FALSE;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  if (argc == 3 && (g_str_equal (argv[1], "--load") || g_str_equal (argv[1], "--walk") ||
                    g_str_equal (argv[1], "--direct")))
    return run_child (argv[1], argv[2]);

  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--size") && i + 1 < argc)
        {
          g_free (size);
          size = g_strdup (argv[++i]);
        }
      else if (g_str_equal (argv[i], "--dir") && i + 1 < argc)
        dir = g_strdup (argv[++i]);
      else if (g_str_equal (argv[i], "--keep"))
        keep = TRUE;
      else if (g_str_equal (argv[i], "--synthetic"))
        synthetic = TRUE;
      else
        {
          g_printerr ("Usage: %s [--size SIZE] [--dir DIR] [--keep] [--synthetic]\n"
                      "       %s --load FILE | --walk FILE\n", argv[0], argv[0]);
          return 2;
        }
    }
  if (dir == NULL)
    dir = g_dir_make_tmp ("chokepoint-bench-xplane-XXXXXX", NULL);
  gen = g_build_filename (self_dir, "cp-gen", NULL);

  if (synthetic || !g_file_test (gen, G_FILE_TEST_IS_EXECUTABLE))
    {
      /* The built-in generator: a dense capture, stats only where XLA
       * writes them. */
      char *path = g_build_filename (dir, "synthetic.xplane.pb", NULL);
      guint64 bytes = g_ascii_strtoull (size, NULL, 10);

      if (strchr (size, 'G') != NULL)
        bytes = g_ascii_strtoull (size, NULL, 10) << 30;
      else if (strchr (size, 'M') != NULL)
        bytes = g_ascii_strtoull (size, NULL, 10) << 20;
      generate (path, bytes);
      g_ptr_array_add (files, path);
    }
  else
    {
      /* The project's scenario generator, like tools/bench-load. */
      static const char *const names[] = { "healthy.xplane.pb", "healthy.xplane.pb.gz",
                                           "healthy.xplane.pb.zst" };

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          char *path = g_build_filename (dir, names[i], NULL);
          struct stat st;

          run_gen (gen, path, size);
          stat (path, &st);
          g_print ("generated %s: %" G_GUINT64_FORMAT " bytes\n", path, (guint64) st.st_size);
          g_ptr_array_add (files, path);
        }
    }

  for (guint f = 0; f < files->len; f++)
    for (guint k = 0; k < 2; k++)
      {
        const char *path = g_ptr_array_index (files, f);
        const char *child_argv[] = { argv[0], k == 0 ? "--walk" : "--load", path, NULL };
        g_autoptr(GError) error = NULL;
        int status;

        if (k == 0 && !g_str_has_suffix (path, ".pb"))
          continue;
        g_print ("%s:\n", path);
        if (!g_spawn_sync (NULL, (char **) child_argv, NULL, G_SPAWN_CHILD_INHERITS_STDIN, NULL,
                           NULL, NULL, NULL, &status, &error))
          g_error ("%s", error->message);
      }
  g_print ("targets: >= 300 MB/s, peak RSS <= 1.5x the (uncompressed) file\n");
  if (!keep)
    {
      for (guint f = 0; f < files->len; f++)
        g_unlink (g_ptr_array_index (files, f));
      g_rmdir (dir);
    }
  return 0;
}
