/* cp-chrome-reader.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The reader is a state machine driven by the tokenizer's callbacks. An
 * event's fields may come in any order, so each event is gathered in a small
 * struct and committed at its closing brace; a damaged or truncated file thus
 * keeps every complete event. Arguments are not parsed: their raw text is
 * kept (as a byte range of the mapped file, or copied when the input was
 * decompressed), and only the keys analysis needs are read on the way.
 * Nested argument values are skipped at scanning speed, except grid/block.
 *
 * What a slice is (also in docs): every X event with a timestamp, every B
 * event (matched with its E, or closed at the end of the trace), every async
 * b/S event (matched with e/F, or closed at the end), every object N event
 * (its lifetime, to D or the end), and T/p events with a duration. Async n
 * events and object O snapshots are zero-length marks on async lanes. Thread-scope instants (i/I/R) become zero-length
 * slices flagged CP_SLICE_INSTANT; process and global instants are instants
 * of the trace. CPU profile samples (P events: legacy samples with "sf"
 * stack frames, DevTools Profile / ProfileChunk) become a flame chart per
 * thread: each sample lasts until the next one on its thread, and a frame is
 * one slice over consecutive samples that share it and every frame above it
 * (see "CPU profile samples" below). */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"
#include "cp-chrome-private.h"
#include "model/cp-huge-pages.h"

/* Hashing */

guint64
cp_chrome_hash_text (const char *s,
                     gsize       n)
{
  guint64 h = G_GUINT64_CONSTANT (1469598103934665603);

  for (gsize i = 0; i < n; i++)
    {
      h ^= (guchar) s[i];
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  return h;
}

static guint
u64_hash (gconstpointer p)
{
  return (guint) mix64 (*(const guint64 *) p);
}

static gboolean
u64_equal (gconstpointer a,
           gconstpointer b)
{
  return *(const guint64 *) a == *(const guint64 *) b;
}

static guint
transfer_key_hash (gconstpointer p)
{
  const TransferKey *k = p;

  return (guint) mix64 (k->pid * 31 + k->tid * 1000003 + (guint64) k->ts);
}

static gboolean
transfer_key_equal (gconstpointer a,
                    gconstpointer b)
{
  const TransferKey *x = a, *y = b;

  return x->pid == y->pid && x->tid == y->tid && x->ts == y->ts;
}

static guint
thread_meta_hash (gconstpointer p)
{
  const ThreadMeta *m = p;

  return (guint) mix64 (m->pid * 1000003 ^ m->tid);
}

static gboolean
thread_meta_equal (gconstpointer a,
                   gconstpointer b)
{
  const ThreadMeta *x = a, *y = b;

  return x->pid == y->pid && x->tid == y->tid;
}

static void
free_pending_array (gpointer data)
{
  GArray *a = data;

  if (a == NULL)
    return;
  for (guint i = 0; i < a->len; i++)
    g_free (g_array_index (a, Pending, i).args_copy);
  g_array_unref (a);
}

/* Creation */

CpChromeReader *
cp_chrome_reader_new (CpTraceBuilder *builder,
                      GBytes         *mapped,
                      const char     *name)
{
  CpChromeReader *self;

  g_return_val_if_fail (builder != NULL, NULL);

  self = g_new0 (CpChromeReader, 1);
  self->b = builder;
  self->report = cp_trace_builder_get_report (builder);
  if (mapped)
    {
      self->mapped = g_bytes_ref (mapped);
      cp_trace_builder_set_args_source (builder, mapped);
    }
  self->name = g_strdup (name ? name : "");
  self->tok = cp_json_tokenizer_new (cp_chrome_on_token, self);
  self->decode = g_string_new (NULL);
  self->args_buf = g_string_new (NULL);
  self->key_buf = g_string_new (NULL);
  self->top_key = g_string_new (NULL);
  self->top_keys = g_ptr_array_new_with_free_func (g_free);
  self->counters = g_array_new (FALSE, FALSE, sizeof (CounterPair));
  self->pid_map = g_hash_table_new_full (u64_hash, u64_equal, g_free, NULL);
  self->proc_pids = g_array_new (FALSE, TRUE, sizeof (IdKey));
  self->cat_class = g_array_new (FALSE, TRUE, sizeof (guint8));
  self->name_info = g_array_new (FALSE, TRUE, sizeof (guint16));
  self->b_stacks = g_ptr_array_new_with_free_func (free_pending_array);
  self->async_stacks = g_hash_table_new_full (u64_hash, u64_equal, g_free, free_pending_array);
  self->flow_pts = g_array_new (FALSE, FALSE, sizeof (FlowPt));
  self->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  self->frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->profiles = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->bind_pts = g_array_new (FALSE, FALSE, sizeof (BindPt));
  self->transfer_at = g_hash_table_new_full (transfer_key_hash, transfer_key_equal, g_free, NULL);
  self->proc_meta = g_hash_table_new_full (u64_hash, u64_equal, g_free, g_free);
  self->thread_meta = g_hash_table_new_full (thread_meta_hash, thread_meta_equal, g_free, NULL);
  self->device_seen = g_array_new (FALSE, TRUE, sizeof (gboolean));
  self->str_cache = g_new0 (StrCacheEntry, STR_CACHE_SIZE);
  self->max_end = G_MININT64;
  self->stopped_at = G_MAXUINT64;
  return self;
}

void
cp_chrome_reader_free (CpChromeReader *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->par, cp_chrome_par_free);
  g_clear_pointer (&self->mapped, g_bytes_unref);
  g_free (self->name);
  cp_json_tokenizer_free (self->tok);
  g_string_free (self->decode, TRUE);
  g_string_free (self->args_buf, TRUE);
  g_string_free (self->key_buf, TRUE);
  g_string_free (self->top_key, TRUE);
  g_ptr_array_unref (self->top_keys);
  g_array_unref (self->counters);
  g_hash_table_unref (self->pid_map);
  g_array_unref (self->proc_pids);
  g_array_unref (self->cat_class);
  g_array_unref (self->name_info);
  g_ptr_array_unref (self->b_stacks);
  g_hash_table_unref (self->async_stacks);
  g_array_unref (self->flow_pts);
  g_array_unref (self->bind_pts);
  g_hash_table_unref (self->transfer_at);
  g_hash_table_unref (self->proc_meta);
  g_hash_table_unref (self->thread_meta);
  g_array_unref (self->device_seen);
  g_free (self->str_cache);
  g_free (self->cloud_spans);
  g_free (self->stack_frames);
  g_array_unref (self->samples);
  g_hash_table_unref (self->frames);
  g_hash_table_unref (self->profiles);
  g_free (self->stop_reason);
  g_clear_error (&self->fatal);
  g_free (self);
}

/* Feeding */

gboolean
cp_chrome_reader_feed (CpChromeReader *self,
                       const char     *data,
                       gsize           len,
                       GError        **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->stopped)
    return FALSE;
  if (cp_json_tokenizer_feed (self->tok, data, len, &local_error))
    return TRUE;

  self->stopped = TRUE;
  if (local_error != NULL && g_error_matches (local_error, CP_JSON_ERROR, CP_JSON_ERROR_LIMIT))
    {
      self->fatal = g_error_new (CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT, "“%s”: %s",
                                 self->name, local_error->message);
      if (error)
        *error = g_error_copy (self->fatal);
      return FALSE;
    }
  if (local_error != NULL)
    {
      self->truncated = TRUE;
      self->stopped_at = cp_json_tokenizer_get_error_offset (self->tok);
      self->stop_reason = g_strdup (local_error->message);
    }
  return FALSE;
}

void
cp_chrome_reader_input_damaged (CpChromeReader *self,
                                const GError   *damage)
{
  g_return_if_fail (self != NULL);

  if (self->stopped && self->truncated)
    return;
  self->stopped = TRUE;
  self->truncated = TRUE;
  self->stopped_at = cp_json_tokenizer_get_offset (self->tok);
  g_free (self->stop_reason);
  self->stop_reason = g_strdup (damage ? damage->message : _("The input is damaged"));
}

/* Finishing */

gint
cp_chrome_cmp_bind (gconstpointer a,
                    gconstpointer b)
{
  const BindPt *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return 0;
}

static void
close_all_pending (CpChromeReader *self)
{
  gint64 end = self->any_time ? self->max_end : 0;
  guint64 n = 0;
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; i < self->b_stacks->len; i++)
    {
      GArray *a = g_ptr_array_index (self->b_stacks, i);

      if (a == NULL)
        continue;
      /* Innermost first, so the outer slices end no earlier than inner ones. */
      for (guint k = a->len; k > 0; k--)
        {
          cp_chrome_close_pending (self, &g_array_index (a, Pending, k - 1), end, CP_SLICE_UNCLOSED, NULL);
          n++;
        }
      g_array_set_size (a, 0);
    }
  g_hash_table_iter_init (&iter, self->async_stacks);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray *a = value;

      for (guint k = a->len; k > 0; k--)
        {
          cp_chrome_close_pending (self, &g_array_index (a, Pending, k - 1), end, CP_SLICE_UNCLOSED, NULL);
          n++;
        }
      g_array_set_size (a, 0);
    }
  if (n > 0)
    {
      self->report->unclosed_begin += n;
      cp_load_report_warn (self->report, G_MAXUINT64,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "%" PRIu64 " begin event had no end and was closed at the end of the trace",
                                        "%" PRIu64 " begin events had no end and were closed at the end of the trace",
                                        n),
                           n);
    }
}

static gboolean
is_cloud_trace (CpChromeReader *self)
{
  for (guint i = 0; i < self->top_keys->len; i++)
    if (strcmp (g_ptr_array_index (self->top_keys, i), "traceId") == 0)
      return TRUE;
  return FALSE;
}

static char *
describe_not_a_trace (CpChromeReader *self)
{
  g_autoptr(GString) keys = g_string_new (NULL);

  if (self->form == FORM_ARRAY)
    {
      if (self->first_non_object == '[')
        return g_strdup (_("it is a JSON array of arrays, like a PyTorch memory timeline "
                           "(export_memory_timeline raw data), not a trace"));
      return g_strdup (_("it is a JSON array of plain values, not of trace events"));
    }
  for (guint i = 0; i < self->top_keys->len; i++)
    {
      const char *k = g_ptr_array_index (self->top_keys, i);

      if (g_str_has_prefix (k, "rocprofiler"))
        return g_strdup (_("it looks like rocprofiler-sdk (rocprofv3) JSON output, not a Chrome "
                           "trace; export a Perfetto or Chrome trace from rocprofv3 instead"));
    }
  for (guint i = 0; i < self->top_keys->len; i++)
    {
      const char *k = g_ptr_array_index (self->top_keys, i);

      if (strcmp (k, "nodes") == 0)
        return g_strdup (_("it looks like a PyTorch execution trace (an operator graph from "
                           "ExecutionTraceObserver), which has no timeline; open the matching "
                           "Kineto trace instead"));
    }
  for (guint i = 0; i < self->top_keys->len; i++)
    {
      /* "traceEvents" was there, but not as an array. */
      if (strcmp (g_ptr_array_index (self->top_keys, i), "traceEvents") == 0)
        return g_strdup (_("its “traceEvents” value is not an array of events"));
    }
  for (guint i = 0; i < self->top_keys->len && i < 6; i++)
    {
      if (i > 0)
        g_string_append (keys, ", ");
      g_string_append_printf (keys, "“%s”", (const char *) g_ptr_array_index (self->top_keys, i));
    }
  if (keys->len == 0)
    return g_strdup (_("it is an empty JSON object"));
  return g_strdup_printf (_("it is a JSON object without “traceEvents” (its keys: %s)"), keys->str);
}

gboolean
cp_chrome_reader_finish (CpChromeReader  *self,
                         GError         **error)
{
  CpJsonEnd end;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->fatal)
    {
      g_propagate_error (error, g_steal_pointer (&self->fatal));
      return FALSE;
    }

  end = cp_json_tokenizer_finish (self->tok);

  if (self->form == FORM_OTHER)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                   _("“%s” is not a trace: it holds a single JSON value, not an object or array"),
                   self->name);
      return FALSE;
    }
  if (self->form == FORM_NONE)
    {
      if (self->truncated)
        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                     _("“%s” is not a trace: %s"), self->name, self->stop_reason);
      else
        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                     _("“%s” is empty"), self->name);
      return FALSE;
    }

  if (end == CP_JSON_END_TRUNCATED && !self->truncated)
    {
      /* An array-form trace may end without its ']' (the format allows it);
       * anything else cut off is a truncation. */
      gboolean only_array_open = self->form == FORM_ARRAY && !self->in_event;

      if (!only_array_open)
        {
          self->truncated = TRUE;
          self->stopped_at = self->last_event_end;
          self->stop_reason = g_strdup_printf (_("The file ends at byte %" PRIu64
                                                 " in the middle of the JSON text"),
                                               cp_json_tokenizer_get_offset (self->tok));
        }
    }

  if (self->form == FORM_OBJECT && !self->saw_trace_events && self->cloud_spans != NULL &&
      is_cloud_trace (self))
    cp_chrome_read_cloud_spans (self);

  if (self->report->events == 0 && self->n_added == 0)
    {
      if (self->form == FORM_OBJECT && !self->saw_trace_events && !self->truncated)
        {
          g_autofree char *why = describe_not_a_trace (self);

          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                       _("“%s” is not a trace: %s"), self->name, why);
          return FALSE;
        }
      if (self->form == FORM_ARRAY && self->non_objects > 0)
        {
          g_autofree char *why = describe_not_a_trace (self);

          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                       _("“%s” is not a trace: %s"), self->name, why);
          return FALSE;
        }
      if (self->truncated)
        {
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                       _("“%s” is damaged before its first event: %s"), self->name, self->stop_reason);
          return FALSE;
        }
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                   _("“%s” holds no trace events"), self->name);
      return FALSE;
    }

  if (self->truncated)
    {
      self->report->truncated = TRUE;
      self->report->stopped_at = self->stopped_at;
      cp_load_report_warn (self->report, self->stopped_at,
                           _("Reading stopped early (%s); every complete event before byte %"
                             PRIu64 " was loaded"),
                           self->stop_reason, self->last_event_end);
    }
  if (self->in_event)
    self->report->skipped++;

  close_all_pending (self);
  cp_chrome_add_samples (self);
  cp_chrome_apply_metadata (self);
  cp_chrome_add_flows (self);

  {
    g_autoptr(GString) phases = g_string_new (NULL);
    guint64 total = 0;

    for (guint c = 0; c < 128; c++)
      {
        if (self->unknown_by_phase[c] == 0)
          continue;
        total += self->unknown_by_phase[c];
        if (phases->len > 0)
          g_string_append (phases, ", ");
        if (c >= 0x20 && c < 0x7f)
          g_string_append_printf (phases, "“%c”", c);
        else
          g_string_append_printf (phases, "0x%02x", c);
      }
    if (total > 0)
      cp_load_report_warn (self->report, G_MAXUINT64,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "%" PRIu64 " event of a phase that is not shown (%s) was skipped",
                                        "%" PRIu64 " events of phases that are not shown (%s) were skipped",
                                        total),
                           total, phases->str);
  }

  if (self->has_base)
    {
      cp_trace_builder_set_time_offset (self->b, self->base);
      cp_trace_builder_set_epoch_base (self->b, self->base);
    }
  cp_trace_builder_detect_profiler_steps (self->b);
  return TRUE;
}

/* Driving a source */

/* Chrome reads running in the process now: one that is not alone leaves
 * the other cores to the others. */
static gint n_reading;

static gboolean read_source (CpSource           *source,
                             CpTraceBuilder     *builder,
                             GCancellable       *cancellable,
                             CpLoadProgressFunc  progress,
                             gpointer            progress_data,
                             GError            **error);

gboolean
cp_chrome_reader_read_source (CpSource           *source,
                              CpTraceBuilder     *builder,
                              GCancellable       *cancellable,
                              CpLoadProgressFunc  progress,
                              gpointer            progress_data,
                              GError            **error)
{
  gboolean ok;

  g_atomic_int_inc (&n_reading);
  ok = read_source (source, builder, cancellable, progress, progress_data, error);
  g_atomic_int_dec_and_test (&n_reading);
  return ok;
}

static gsize forced_big_input;

void
_cp_chrome_set_big_input (gsize bytes)
{
  g_atomic_pointer_set (&forced_big_input, bytes);
}

/* Mapped input of tens of megabytes reserves the columns that grow with
 * every event, where that gets them huge pages (cp-huge-pages.h): with the
 * advice on the other big columns, 20,000 page faults instead of 53,000
 * and a fifth off the two-thread load of a 200 MB capture on a virtual
 * machine (docs/performance.md). */
static gboolean
reserve_big (gsize len)
{
  gsize forced = (gsize) g_atomic_pointer_get (&forced_big_input);

  if (forced != 0)
    return len >= forced;
  return len >= CP_CHROME_BIG_INPUT && cp_huge_pages_in_use ();
}

static gboolean
read_source (CpSource           *source,
             CpTraceBuilder     *builder,
             GCancellable       *cancellable,
             CpLoadProgressFunc  progress,
             gpointer            progress_data,
             GError            **error)
{
  g_autoptr(CpChromeReader) reader = NULL;
  GBytes *mapped = cp_source_get_mapped (source);
  guint64 total = cp_source_get_file_size (source);
  CpLoadReport *report = cp_trace_builder_get_report (builder);

  reader = cp_chrome_reader_new (builder, mapped, cp_source_get_name (source));
  if (mapped != NULL)
    {
      gsize len, chunk;
      const char *data = g_bytes_get_data (mapped, &len);
      guint threads = cp_chrome_par_threads (len, g_atomic_int_get (&n_reading) == 1, &chunk);

      /* Events read ahead on the other cores (cp-chrome-parallel.c). */
      if (threads > 1 && len > 0)
        reader->par = cp_chrome_par_new (data, len, threads - 1, chunk);
      if (reserve_big (len))
        {
          cp_trace_builder_expect_big (builder);
          cp_array_reserve_big (&reader->flow_pts, FALSE);
          cp_array_reserve_big (&reader->bind_pts, FALSE);
        }
      if (reader->par != NULL)
        {
          GArray *growing[8];
          guint n = cp_trace_builder_get_growing (builder, growing, G_N_ELEMENTS (growing));

          for (guint i = 0; i < n; i++)
            cp_chrome_par_watch (reader->par, growing[i]);
          cp_chrome_par_watch (reader->par, reader->flow_pts);
          cp_chrome_par_watch (reader->par, reader->bind_pts);
        }
    }

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) chunk = cp_source_read (source, cancellable, &local_error);
      gsize len;
      const char *data;

      if (chunk == NULL)
        {
          if (local_error == NULL)
            break;
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
              g_error_matches (local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT) ||
              !g_error_matches (local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED))
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return FALSE;
            }
          cp_chrome_reader_input_damaged (reader, local_error);
          break;
        }
      data = g_bytes_get_data (chunk, &len);
      if (!cp_chrome_reader_feed (reader, data, len, error))
        {
          if (reader->fatal)
            return FALSE;
          break;
        }
      if (mapped && reader->last_event_end > CP_SOURCE_MAPPED_SLICE)
        cp_source_release_before (source, reader->last_event_end - CP_SOURCE_MAPPED_SLICE);
      if (progress)
        progress (cp_source_get_consumed (source), total, progress_data);
    }

  g_clear_pointer (&reader->par, cp_chrome_par_free);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (!cp_chrome_reader_finish (reader, error))
    return FALSE;
  if (cp_source_get_trailing_note (source) != NULL)
    cp_load_report_warn (report, G_MAXUINT64, "%s", cp_source_get_trailing_note (source));
  report->input_bytes = cp_source_get_produced (source);
  if (progress)
    progress (total, total, progress_data);
  return TRUE;
}
