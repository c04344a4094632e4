/* cp-loader.c: the one entry point that opens a capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>
#include <zstd.h>

#include "model/cp-trace-builder.h"
#include "cp-chrome-reader.h"
#include "model/cp-limits.h"
#include "model/cp-timing.h"
#include "cp-loader.h"
#include "cp-memory-events.h"
#include "cp-source.h"
#include "cp-xplane-reader.h"

static char *
format_name (const char    *base,
             CpCompression  compression)
{
  switch (compression)
    {
    case CP_COMPRESSION_GZIP:
      return g_strconcat (base, "+gzip", NULL);
    case CP_COMPRESSION_ZSTD:
      return g_strconcat (base, "+zstd", NULL);
    case CP_COMPRESSION_NONE:
    default:
      return g_strdup (base);
    }
}

static CpTrace *
load_xplane (CpSource            *source,
             GCancellable        *cancellable,
             CpLoadProgressFunc   progress,
             gpointer             progress_data,
             GError             **error)
{
  g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
  g_autoptr(CpXPlaneReader) reader = cp_xplane_reader_new (builder);
  CpLoadReport *report = cp_trace_builder_get_report (builder);

  cp_trace_builder_set_file (builder, cp_source_get_file (source));
  g_free (report->format);
  report->format = format_name ("xplane", cp_source_get_compression (source));
  report->file_bytes = cp_source_get_file_size (source);

  if (!cp_xplane_reader_read (reader, source, cancellable, progress, progress_data, 0,
                              cp_source_get_file_size (source), error))
    return NULL;
  /* The reader looks at the cancellable every few MiB: a small capture may
   * be read whole after a cancellation, which must still win. */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  cp_xplane_reader_finish (reader);
  /* Its dedup tables are not needed by finish(), which makes the peak. */
  g_clear_pointer (&reader, cp_xplane_reader_free);
  {
    g_autoptr(CpTrace) trace = cp_trace_builder_finish (g_steal_pointer (&builder), error);

    if (trace == NULL || g_cancellable_set_error_if_cancelled (cancellable, error))
      return NULL;
    cp_memory_events_attach (trace);
    return g_steal_pointer (&trace);
  }
}

static gboolean
looks_like_damaged_xplane (CpSource *source)
{
  g_autofree char *base = g_file_get_basename (cp_source_get_file (source));
  gsize len;
  const guint8 *head = cp_source_peek (source, &len);

  return len > 0 && head[0] == 0x0a &&
         (g_str_has_suffix (base, ".xplane.pb") || g_str_has_suffix (base, ".xplane.pb.gz") ||
          g_str_has_suffix (base, ".xplane.pb.zst"));
}

static CpTrace *
load_chrome (CpSource            *source,
             GCancellable        *cancellable,
             CpLoadProgressFunc   progress,
             gpointer             progress_data,
             GError             **error)
{
  g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
  CpLoadReport *report = cp_trace_builder_get_report (builder);

  cp_trace_builder_set_file (builder, cp_source_get_file (source));
  g_free (report->format);
  report->format = format_name ("chrome-json", cp_source_get_compression (source));
  report->file_bytes = cp_source_get_file_size (source);

  if (!cp_chrome_reader_read_source (source, builder, cancellable, progress, progress_data, error))
    return NULL;
  cp_trace_builder_set_args_source_in_file (builder, cp_source_is_file_mapped (source));
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  {
    g_autoptr(CpTrace) trace = cp_trace_builder_finish (g_steal_pointer (&builder), error);

    if (trace == NULL || g_cancellable_set_error_if_cancelled (cancellable, error))
      return NULL;
    cp_memory_events_attach (trace);
    return g_steal_pointer (&trace);
  }
}

CpTrace *
cp_load_file (GFile               *file,
              GCancellable        *cancellable,
              CpLoadProgressFunc   progress,
              gpointer             progress_data,
              GError             **error)
{
  g_autoptr(CpSource) source = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree char *name = NULL;
  gint64 t0 = g_get_monotonic_time ();

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  name = g_file_get_parse_name (file);
  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, cancellable) == G_FILE_TYPE_DIRECTORY)
    {
      /* A TensorBoard profile folder: every host of its newest run. */
      trace = cp_xplane_load_folder (file, cancellable, progress, progress_data, error);
      if (trace != NULL)
        ((CpLoadReport *) cp_trace_get_load_report (trace))->load_seconds =
          (g_get_monotonic_time () - t0) / (double) G_USEC_PER_SEC;
      if (trace != NULL)
        cp_timing_mark ("load-done");
      return g_steal_pointer (&trace);
    }

  source = cp_source_open (file, cancellable, error);
  if (source == NULL)
    return NULL;

  switch (cp_source_get_content_kind (source))
    {
    case CP_CONTENT_JSON_OBJECT:
    case CP_CONTENT_JSON_ARRAY:
      trace = load_chrome (source, cancellable, progress, progress_data, &local_error);
      break;

    case CP_CONTENT_XPLANE:
      trace = load_xplane (source, cancellable, progress, progress_data, &local_error);
      break;

    case CP_CONTENT_EMPTY:
      if (cp_source_get_compression (source) != CP_COMPRESSION_NONE)
        g_set_error (&local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                     _("“%s” is empty once decompressed"), name);
      else
        g_set_error (&local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                     _("“%s” is empty"), name);
      break;

    case CP_CONTENT_UNKNOWN:
    default:
      if (looks_like_damaged_xplane (source))
        {
          /* Named like an XPlane capture and starting like one: the XPlane
           * reader says where it is damaged. */
          trace = load_xplane (source, cancellable, progress, progress_data, &local_error);
          break;
        }
      g_set_error (&local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                   _("“%s” is not a profiler capture: it looks like %s"),
                   name, cp_source_get_guess (source));
      break;
    }

  /* A file truncated while it was mapped reads as zeros from there on (see
   * cp-mapping.h): whatever the reader made of that, say what happened. */
  if (!cp_source_check_unchanged (source, error))
    return NULL;

  if (trace == NULL)
    {
      if (local_error == NULL)
        g_set_error (&local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                     _("“%s” could not be read"), name);
      else if (local_error->domain == CP_TRACE_ERROR &&
               local_error->code == CP_TRACE_ERROR_EMPTY &&
               !g_str_has_prefix (local_error->message, "“"))
        {
          /* The builder's message does not name the file. */
          g_autoptr(GError) named = g_error_new (CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                                                 _("“%s” holds no events"), name);

          g_clear_error (&local_error);
          local_error = g_steal_pointer (&named);
        }
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  {
    g_autofree char *change = cp_source_describe_change (source);

    if (change != NULL)
      cp_load_report_warn ((CpLoadReport *) cp_trace_get_load_report (trace), G_MAXUINT64,
                           "%s", change);
  }

  /* The report belongs to the trace now; the load time is the last fact. */
  ((CpLoadReport *) cp_trace_get_load_report (trace))->load_seconds =
    (g_get_monotonic_time () - t0) / (double) G_USEC_PER_SEC;
  cp_timing_mark ("load-done");
  return g_steal_pointer (&trace);
}

/* Asynchronous loading */

typedef struct
{
  gatomicrefcount     ref;
  GFile              *file;
  GMainContext       *context;
  CpLoadProgressFunc  progress;
  gpointer            progress_data;
  GDestroyNotify      progress_destroy;

  GMutex              mutex;
  guint64             done;
  guint64             total;
  gboolean            idle_pending;
  gint64              last_dispatch;
  gboolean            finished;
} LoadData;

static LoadData *
load_data_ref (LoadData *d)
{
  g_atomic_ref_count_inc (&d->ref);
  return d;
}

static gboolean
destroy_progress_data (gpointer user_data)
{
  LoadData *d = user_data;

  if (d->progress_destroy)
    d->progress_destroy (d->progress_data);
  g_main_context_unref (d->context);
  g_mutex_clear (&d->mutex);
  g_free (d);
  return G_SOURCE_REMOVE;
}

static void
load_data_unref (gpointer data)
{
  LoadData *d = data;

  if (!g_atomic_ref_count_dec (&d->ref))
    return;
  g_clear_object (&d->file);
  /* Free the caller's data on the caller's context. */
  if (g_main_context_is_owner (d->context))
    destroy_progress_data (d);
  else
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, destroy_progress_data, d, NULL);
      g_source_attach (source, d->context);
      g_source_unref (source);
    }
}

static gboolean
dispatch_progress (gpointer user_data)
{
  LoadData *d = user_data;
  guint64 done, total;
  gboolean finished;

  g_mutex_lock (&d->mutex);
  done = d->done;
  total = d->total;
  finished = d->finished;
  d->idle_pending = FALSE;
  g_mutex_unlock (&d->mutex);

  if (!finished && d->progress)
    d->progress (done, total, d->progress_data);
  return G_SOURCE_REMOVE;
}

static void
worker_progress (guint64  done,
                 guint64  total,
                 gpointer user_data)
{
  LoadData *d = user_data;
  gint64 now = g_get_monotonic_time ();
  gboolean schedule = FALSE;

  g_mutex_lock (&d->mutex);
  d->done = done;
  d->total = total;
  if (!d->idle_pending && now - d->last_dispatch >= G_USEC_PER_SEC / 20)
    {
      d->idle_pending = TRUE;
      d->last_dispatch = now;
      schedule = TRUE;
    }
  g_mutex_unlock (&d->mutex);

  if (schedule)
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, dispatch_progress, load_data_ref (d), load_data_unref);
      g_source_attach (source, d->context);
      g_source_unref (source);
    }
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadData *d = task_data;
  GError *error = NULL;
  CpTrace *trace;

  trace = cp_load_file (d->file, cancellable, d->progress ? worker_progress : NULL, d, &error);

  g_mutex_lock (&d->mutex);
  d->finished = TRUE;
  g_mutex_unlock (&d->mutex);

  if (trace == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, trace, g_object_unref);
}

void
cp_load_file_async (GFile               *file,
                    GCancellable        *cancellable,
                    CpLoadProgressFunc   progress,
                    gpointer             progress_data,
                    GDestroyNotify       progress_destroy,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  LoadData *d;

  g_return_if_fail (G_IS_FILE (file));

  d = g_new0 (LoadData, 1);
  g_atomic_ref_count_init (&d->ref);
  d->file = g_object_ref (file);
  d->context = g_main_context_ref_thread_default ();
  d->progress = progress;
  d->progress_data = progress_data;
  d->progress_destroy = progress_destroy;
  g_mutex_init (&d->mutex);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, cp_load_file_async);
  g_task_set_name (task, "cp_load_file_async");
  g_task_set_task_data (task, d, load_data_unref);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, load_thread);
}

CpTrace *
cp_load_file_finish (GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cp_load_file_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Memory estimates */

/* Peak resident memory per byte of decompressed input, as measured on the
 * benchmark captures (docs/performance.md): the JSON reader streams and keeps
 * about a third; the XPlane reader maps its input and its model of the
 * densest captures peaks at 1.33x to 1.45x. */
#define JSON_PEAK_PER_BYTE   0.35
#define XPLANE_PEAK_PER_BYTE 1.45

guint64
cp_load_estimate_peak (GFile *file)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) in = NULL;
  g_autofree char *base = g_file_get_basename (file);
  guint8 head[32] = { 0 };
  gsize got = 0;
  guint64 size, content;
  gboolean xplane;

  g_return_val_if_fail (G_IS_FILE (file), 0);

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL || g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    return 0;
  size = g_file_info_get_size (info);
  in = g_file_read (file, NULL, NULL);
  if (in == NULL || !g_input_stream_read_all (G_INPUT_STREAM (in), head, sizeof head, &got, NULL, NULL))
    return 0;
  content = size;
  xplane = base != NULL && strstr (base, ".xplane.pb") != NULL;
  if (got >= 4 && memcmp (head, "\x28\xb5\x2f\xfd", 4) == 0)
    {
      unsigned long long n = ZSTD_getFrameContentSize (head, got);

      /* The first frame's size, when the writer stated it (the zstd tool
       * does for files); a stream that does not is not estimated. */
      if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR)
        return 0;
      content = n;
    }
  else if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    {
      guint8 tail[4];
      gsize n = 0;

      /* ISIZE, the size modulo 4 GiB: past that, the compressed size tells. */
      content = 0;
      if (g_seekable_seek (G_SEEKABLE (in), -4, G_SEEK_END, NULL, NULL) &&
          g_input_stream_read_all (G_INPUT_STREAM (in), tail, 4, &n, NULL, NULL) && n == 4)
        {
          guint64 isize = tail[0] | tail[1] << 8 | tail[2] << 16 | (guint64) tail[3] << 24;

          while (isize < size)
            isize += G_GUINT64_CONSTANT (1) << 32;
          content = isize;
        }
    }
  else if (got > 0 && head[0] == 0x0a)
    xplane = TRUE;
  return (guint64) (content * (xplane ? XPLANE_PEAK_PER_BYTE : JSON_PEAK_PER_BYTE));
}

char *
cp_load_describe_memory (GFile *file)
{
  guint64 peak = cp_load_estimate_peak (file);
  g_autofree char *name = NULL;
  g_autofree char *amount = NULL;

  if (peak <= CP_LOAD_MEMORY_NOTICE)
    return NULL;
  name = g_file_get_parse_name (file);
  amount = g_format_size (peak);
  return g_strdup_printf (_("Reading “%s” will take about %s of memory"), name, amount);
}
