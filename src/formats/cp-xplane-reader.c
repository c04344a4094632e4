/* cp-xplane-reader.c: the XSpace: small helpers, spaces, files
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <string.h>
#ifdef G_OS_UNIX
# include <sys/mman.h>
# include <unistd.h>
#endif

#include "cp-protobuf.h"
#include "cp-xplane-private.h"

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

void
cp_xplane_idmap_build (IdMap        *map,
                       const gint64 *ids,
                       guint         n)
{
  gint64 max = -1;
  gboolean dense = TRUE;

  memset (map, 0, sizeof *map);
  for (guint i = 0; i < n; i++)
    {
      if (ids[i] < 0)
        dense = FALSE;
      else if (ids[i] > max)
        max = ids[i];
    }
  if (dense && max >= 0 && (guint64) max > (guint64) n * 4 + 1024)
    dense = FALSE;

  if (dense)
    {
      map->n_dense = (gsize) (max + 1);
      map->dense = g_new0 (guint32, MAX (map->n_dense, 1));
      for (guint i = 0; i < n; i++)
        map->dense[ids[i]] = i + 1;   /* later entries win */
    }
  else
    {
      map->sparse_keys = g_memdup2 (ids, sizeof (gint64) * MAX (n, 1));
      map->sparse = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint i = 0; i < n; i++)
        g_hash_table_insert (map->sparse, &map->sparse_keys[i], GUINT_TO_POINTER (i + 1));
    }
}

void
cp_xplane_idmap_clear (IdMap *map)
{
  g_clear_pointer (&map->dense, g_free);
  g_clear_pointer (&map->sparse, g_hash_table_unref);
  g_clear_pointer (&map->sparse_keys, g_free);
}

static void
note_error (Space     *space,
            CpPbError  error,
            guint64    offset)
{
  if (space->first_error == CP_PB_OK)
    {
      space->first_error = error;
      space->first_error_offset = offset;
    }
}

static void
note_truncated (Space   *space,
                guint64  offset)
{
  CpLoadReport *report = space->reader->report;

  if (!report->truncated || offset < report->stopped_at)
    report->stopped_at = offset;
  report->truncated = TRUE;
}

/* Reports a walker error: truncation or damage. Returns the message's
 * offset. */
void
cp_xplane_report_pb_error (Space      *space,
                           CpPbReader *r,
                           const char *where)
{
  if (r->error == CP_PB_ERROR_TRUNCATED)
    {
      note_truncated (space, r->error_offset);
      return;
    }
  note_error (space, r->error, r->error_offset);
  cp_load_report_warn (space->reader->report, r->error_offset,
                       _("Damaged XPlane data in %s at byte %" PRIu64
                         ": %s; the rest of it was skipped"),
                       where, r->error_offset, cp_pb_error_to_string (r->error));
}

/* Line results (see LineOut). */

void
cp_xplane_line_out_init (LineOut *out)
{
  memset (out, 0, sizeof *out);
  out->first_error = CP_PB_OK;
  out->steps_ordinal = -1;
}

void
cp_xplane_out_warn (Ctx        *ctx,
                    guint64     offset,
                    const char *format,
                    ...)
{
  LineOut *out = cp_xplane_ctx_out (ctx);
  va_list args;
  Deferred d;

  va_start (args, format);
  d.offset = offset;
  d.text = g_strdup_vprintf (format, args);
  va_end (args);
  g_array_append_val (out_array (&out->warnings, sizeof (Deferred)), d);
}

void
cp_xplane_out_note_error (Ctx       *ctx,
                          CpPbError  error,
                          guint64    offset)
{
  LineOut *out = cp_xplane_ctx_out (ctx);

  if (out->first_error == CP_PB_OK)
    {
      out->first_error = error;
      out->first_error_offset = offset;
    }
}

void
cp_xplane_out_note_truncated (Ctx     *ctx,
                              guint64  offset)
{
  LineOut *out = cp_xplane_ctx_out (ctx);

  if (!out->truncated || offset < out->stopped_at)
    out->stopped_at = offset;
  out->truncated = TRUE;
}

static void
merge_steps (GArray *into,
             GArray *from)
{
  for (guint i = 0; from != NULL && i < from->len; i++)
    {
      StepCand c = g_array_index (from, StepCand, i);

      if (c.by_position)
        {
          c.number = into->len;
          c.by_position = FALSE;
        }
      g_array_append_val (into, c);
    }
}

/* Hands a line's results to the space and the report, and frees them. */
void
cp_xplane_line_out_merge (Space   *space,
                          LineOut *out)
{
  CpXPlaneReader *reader = space->reader;
  CpLoadReport *report = reader->report;

  for (guint i = 0; out->warnings != NULL && i < out->warnings->len; i++)
    {
      Deferred *d = &g_array_index (out->warnings, Deferred, i);

      cp_load_report_warn (report, d->offset, "%s", d->text);
      g_free (d->text);
    }
  if (out->truncated)
    note_truncated (space, out->stopped_at);
  if (out->first_error != CP_PB_OK)
    note_error (space, out->first_error, out->first_error_offset);
  if (out->producers != NULL)
    g_array_append_vals (space->producers, out->producers->data, out->producers->len);
  if (out->consumers != NULL)
    g_array_append_vals (space->consumers, out->consumers->data, out->consumers->len);
  if (out->flow_points != NULL)
    g_array_append_vals (space->flow_points, out->flow_points->data, out->flow_points->len);
  /* Device steps come from the first device that has a steps line. */
  if (out->device_steps != NULL && out->device_steps->len > 0 &&
      (space->device_steps_ordinal < 0 || space->device_steps_ordinal == out->steps_ordinal))
    {
      space->device_steps_ordinal = out->steps_ordinal;
      merge_steps (space->device_steps, out->device_steps);
    }
  merge_steps (space->root_steps, out->root_steps);
  if (out->group_spans != NULL)
    {
      GHashTableIter iter;
      gpointer v;

      g_hash_table_iter_init (&iter, out->group_spans);
      while (g_hash_table_iter_next (&iter, NULL, &v))
        {
          StepCand *c = v, *have = g_hash_table_lookup (space->group_spans, &c->number);

          if (have != NULL)
            {
              have->start = MIN (have->start, c->start);
              have->end = MAX (have->end, c->end);
            }
          else
            {
              g_hash_table_iter_steal (&iter);
              g_hash_table_insert (space->group_spans, &c->number, c);
            }
        }
    }

  g_clear_pointer (&out->warnings, g_array_unref);
  g_clear_pointer (&out->producers, g_array_unref);
  g_clear_pointer (&out->consumers, g_array_unref);
  g_clear_pointer (&out->flow_points, g_array_unref);
  g_clear_pointer (&out->device_steps, g_array_unref);
  g_clear_pointer (&out->root_steps, g_array_unref);
  g_clear_pointer (&out->group_spans, g_hash_table_unref);
  g_free (out);
}

gboolean
cp_xplane_check_progress (Space   *space,
                          guint64  offset)
{
  if (offset < space->next_progress)
    return !space->cancelled;
  space->next_progress = offset + PROGRESS_STEP;
  if (space->cancellable != NULL && g_cancellable_is_cancelled (space->cancellable))
    space->cancelled = TRUE;
  if (space->progress != NULL)
    {
      guint64 done = space->len > 0 ? (guint64) ((double) MIN (offset, space->len) /
                                                 space->len * space->progress_span) : 0;

      space->progress (space->progress_base + done, space->progress_total, space->progress_data);
    }
  return !space->cancelled;
}

/* ------------------------------------------------------------------------ */
/* Spaces                                                                    */

CpXPlaneReader *
cp_xplane_reader_new (CpTraceBuilder *builder)
{
  CpXPlaneReader *self;

  g_return_val_if_fail (builder != NULL, NULL);

  self = g_new0 (CpXPlaneReader, 1);
  self->builder = builder;
  self->report = cp_trace_builder_get_report (builder);
  self->cat_kernel = cp_trace_builder_intern (builder, "kernel", -1);
  self->cat_memcpy = cp_trace_builder_intern (builder, "gpu_memcpy", -1);
  self->cat_memset = cp_trace_builder_intern (builder, "gpu_memset", -1);
  self->cat_annotation = cp_trace_builder_intern (builder, "gpu_user_annotation", -1);
  self->cat_runtime = cp_trace_builder_intern (builder, "cuda_runtime", -1);
  self->cat_cpu_op = cp_trace_builder_intern (builder, "cpu_op", -1);
  self->key_long_name = cp_trace_builder_intern (builder, "long_name", -1);
  self->flow_correlation = cp_trace_builder_intern (builder, "correlation", -1);
  self->flow_producer = cp_trace_builder_intern (builder, "producer", -1);
  self->flow_generic = cp_trace_builder_intern (builder, "flow", -1);

  self->steps = g_array_new (FALSE, FALSE, sizeof (StepCand));
  self->pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->pid_next = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  self->gpu_copies = g_array_new (FALSE, FALSE, sizeof (CpGpuInfo));
  self->gpu_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* Correlation ids repeat across hosts: links are made per space here. */
  cp_trace_builder_set_link_correlations (builder, FALSE);
  return self;
}

void
cp_xplane_reader_free (CpXPlaneReader *self)
{
  if (self == NULL)
    return;
  g_free (self->pack.data);
  g_array_unref (self->steps);
  g_hash_table_unref (self->pids);
  g_hash_table_unref (self->pid_next);
  g_array_unref (self->gpu_copies);
  g_array_unref (self->gpu_ids);
  g_free (self->args_dedup.hashes);
  g_free (self->args_dedup.ids);
  g_free (self->gpu_dedup.hashes);
  g_free (self->gpu_dedup.ids);
  g_free (self);
}

static void
space_clear (Space *space)
{
  if (space->planes != NULL)
    {
      /* Left when reading stopped early. */
      for (guint i = 0; i < space->planes->len; i++)
        cp_xplane_plane_done (g_ptr_array_index (space->planes, i));
      g_ptr_array_unref (space->planes);
      space->planes = NULL;
    }
  g_clear_pointer (&space->outs, g_ptr_array_unref);
  g_clear_pointer (&space->groups, g_hash_table_unref);
  g_clear_pointer (&space->group_list, g_ptr_array_unref);
  g_rec_mutex_clear (&space->lock);
  g_free (space->hostname);
  g_clear_pointer (&space->gpu_planes, g_array_unref);
  if (space->link_lanes != NULL)
    for (guint i = 0; i < space->link_lanes->len; i++)
      g_clear_pointer (&g_array_index (space->link_lanes, LinkLane, i).devices, g_array_unref);
  g_clear_pointer (&space->link_lanes, g_array_unref);
  g_clear_pointer (&space->link_slot, g_array_unref);
  g_clear_pointer (&space->producers, g_array_unref);
  g_clear_pointer (&space->consumers, g_array_unref);
  g_clear_pointer (&space->flow_points, g_array_unref);
  g_clear_pointer (&space->device_steps, g_array_unref);
  g_clear_pointer (&space->root_steps, g_array_unref);
  g_clear_pointer (&space->group_spans, g_hash_table_unref);
}

static void
add_string_list_metadata (CpXPlaneReader *reader,
                          const char     *key,
                          GPtrArray      *strings)
{
  g_autoptr(JsonBuilder) json = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_array (json);
  for (guint i = 0; i < strings->len; i++)
    json_builder_add_string_value (json, g_ptr_array_index (strings, i));
  json_builder_end_array (json);
  root = json_builder_get_root (json);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  cp_trace_builder_add_metadata (reader->builder, key, text, -1);
}

/* The Task Environment plane's profile_start_time, read before the lines of
 * any other plane. */
static void
read_start_time (Space      *space,
                 const Span *span)
{
  Plane plane = { 0 };

  plane.space = space;
  if (!cp_xplane_plane_index (space, span, &plane))
    {
      cp_xplane_plane_clear (&plane);
      return;
    }
  if (g_str_equal (plane.name, "Task Environment"))
    {
      for (guint i = 0; i < plane.stats->len; i++)
        {
          const Span *s = &g_array_index (plane.stats, Span, i);
          XStatVal sv;
          StatMeta *m;
          gint64 v;

          if (!cp_xplane_parse_xstat_span (space, s, &sv))
            continue;
          m = cp_xplane_plane_stat (&plane, sv.metadata_id);
          if (m != NULL && m->kind == SK_PROFILE_START && cp_xplane_stat_as_int (&sv, &v) && v > 0)
            {
              space->has_start = TRUE;
              space->start_ns = v;
            }
        }
    }
  cp_xplane_plane_clear (&plane);
}

static char *
plane_name_peek (Space      *space,
                 const Span *span)
{
  CpPbReader r;
  CpPbField f;

  reader_at (space, &r, span->data, span->len);
  while (cp_pb_reader_next (&r, &f))
    if (f.number == XPLANE_NAME && f.wire_type == CP_PB_WIRE_LEN)
      return g_strndup ((const char *) f.data, f.len);
  return NULL;
}

static gboolean
plane_name_is_gpu (Space      *space,
                   const Span *span,
                   gint64     *id)
{
  CpPbReader r;
  CpPbField f;
  gboolean gpu = FALSE;

  *id = 0;
  reader_at (space, &r, span->data, span->len);
  while (cp_pb_reader_next (&r, &f))
    {
      if (f.number == XPLANE_NAME && f.wire_type == CP_PB_WIRE_LEN)
        gpu = bytes_has_prefix (f.data, f.len, "/device:GPU:");
      else if (f.number == XPLANE_ID && f.wire_type == CP_PB_WIRE_VARINT)
        *id = cp_pb_int64 (f.value);
      else if (f.number > XPLANE_NAME)
        break;
    }
  return gpu;
}

/* A space over input's bytes, for self to read. */
static void
space_init (CpXPlaneReader      *self,
            Space               *space,
            const CpXPlaneInput *input)
{
  space->reader = self;
  space->data = input->data;
  space->len = input->len;
  space->host = self->n_spaces;
  space->device_offset = self->device_offset;
  space->max_device = self->device_offset - 1;
  space->progress = input->progress;
  space->progress_data = input->progress_data;
  space->progress_base = input->progress_base;
  space->progress_total = input->progress_total;
  space->progress_span = input->progress_span != 0 ? input->progress_span : input->len;
  space->release = input->release;
  space->drop = input->drop;
  space->discard = input->discard;
  space->release_data = input->release_data;
  g_rec_mutex_init (&space->lock);
  space->planes = g_ptr_array_new ();
  space->groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  space->group_list = g_ptr_array_new_with_free_func (cp_xplane_group_free);
  space->gpu_planes = g_array_new (FALSE, FALSE, sizeof (gint64));
  space->link_lanes = g_array_new (FALSE, FALSE, sizeof (LinkLane));
  space->link_slot = g_array_new (FALSE, TRUE, sizeof (guint));
  space->producers = g_array_new (FALSE, FALSE, sizeof (PcPoint));
  space->consumers = g_array_new (FALSE, FALSE, sizeof (PcPoint));
  space->flow_points = g_array_new (FALSE, FALSE, sizeof (FlowPoint));
  space->device_steps = g_array_new (FALSE, FALSE, sizeof (StepCand));
  space->device_steps_ordinal = -1;
  space->root_steps = g_array_new (FALSE, FALSE, sizeof (StepCand));
  space->group_spans = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
}

/* The top level: planes, host names, the capture's own errors. Returns the
 * walk's error. */
static CpPbError
space_read_top (Space     *space,
                GArray    *planes,
                GPtrArray *hostnames,
                GPtrArray *errors,
                GPtrArray *warnings)
{
  CpLoadReport *report = space->reader->report;
  CpPbReader top;
  CpPbField f;

  cp_pb_reader_init (&top, space->data, space->len, 0);
  while (cp_pb_reader_next (&top, &f))
    {
      switch (f.number)
        {
        case XSPACE_PLANES:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              Span s = { f.data, f.len, f.offset, FALSE };

              g_array_append_val (planes, s);
            }
          break;
        case XSPACE_ERRORS:
        case XSPACE_WARNINGS:
        case XSPACE_HOSTNAMES:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              char *s = g_utf8_make_valid ((const char *) f.data,
                                           (gssize) MIN (f.len, MAX_METADATA_STRING));

              g_ptr_array_add (f.number == XSPACE_ERRORS ? errors
                               : f.number == XSPACE_WARNINGS ? warnings : hostnames, s);
            }
          break;
        default:
          break;
        }
    }
  if (top.error == CP_PB_ERROR_TRUNCATED)
    {
      note_truncated (space, top.error_offset);
      if (f.partial && f.number == XSPACE_PLANES)
        {
          Span s = { f.data, f.len, f.offset, TRUE };

          g_array_append_val (planes, s);
        }
    }
  else if (top.error != CP_PB_OK)
    {
      note_error (space, top.error, top.error_offset);
      if (planes->len > 0)
        cp_load_report_warn (report, top.error_offset,
                             _("The XPlane data is damaged at byte %" PRIu64
                               " (%s); what came before it was loaded"),
                             top.error_offset, cp_pb_error_to_string (top.error));
    }
  return top.error;
}

/* The space's host name, and what the profiler said of itself: warnings
 * and metadata. */
static void
space_add_profiler_notes (CpXPlaneReader      *self,
                          Space               *space,
                          const CpXPlaneInput *input,
                          GPtrArray           *hostnames,
                          GPtrArray           *errors,
                          GPtrArray           *warnings)
{
  CpLoadReport *report = self->report;

  if (hostnames->len > 0)
    space->hostname = g_strdup (g_ptr_array_index (hostnames, 0));
  else if (input->host_hint != NULL)
    space->hostname = g_strdup (input->host_hint);

  for (guint i = 0; i < errors->len; i++)
    cp_load_report_warn (report, G_MAXUINT64, _("The profiler reported an error: %s"),
                         (const char *) g_ptr_array_index (errors, i));
  for (guint i = 0; i < warnings->len; i++)
    cp_load_report_warn (report, G_MAXUINT64, _("The profiler reported: %s"),
                         (const char *) g_ptr_array_index (warnings, i));
  {
    g_autofree char *prefix = space->host > 0 && space->hostname ? g_strdup_printf ("%s ", space->hostname)
                                                                  : g_strdup ("");
    if (hostnames->len > 0)
      {
        g_autofree char *key = g_strconcat (prefix, "hostnames", NULL);

        add_string_list_metadata (self, key, hostnames);
      }
    if (errors->len > 0)
      {
        g_autofree char *key = g_strconcat (prefix, "errors", NULL);

        add_string_list_metadata (self, key, errors);
      }
    if (warnings->len > 0)
      {
        g_autofree char *key = g_strconcat (prefix, "warnings", NULL);

        add_string_list_metadata (self, key, warnings);
      }
  }
}

/* The time base and the GPU plane ids, before any line. */
static void
space_read_time_base (CpXPlaneReader *self,
                      Space          *space,
                      GArray         *planes)
{
  for (guint i = 0; i < planes->len; i++)
    {
      const Span *s = &g_array_index (planes, Span, i);
      g_autofree char *name = plane_name_peek (space, s);
      gint64 id;

      if (name != NULL && g_str_equal (name, "Task Environment"))
        read_start_time (space, s);
      if (plane_name_is_gpu (space, s, &id))
        g_array_append_val (space->gpu_planes, id);
    }
  if (space->has_start)
    {
      self->any_epoch = TRUE;
      cp_trace_builder_set_epoch_base (self->builder, space->start_ns);
    }
}

/* Warnings on what a read space lacked: a cut, unknown event metadata. */
static void
space_warn_read (Space               *space,
                 const CpXPlaneInput *input,
                 guint64              events_before)
{
  CpLoadReport *report = space->reader->report;

  if (report->truncated && report->events > events_before)
    cp_load_report_warn (report, report->stopped_at,
                         _("The capture is cut off at byte %" PRIu64 " (in data that "
                           "starts at byte %" PRIu64 "); everything before the cut "
                           "that could be read was loaded"),
                         (guint64) input->len, report->stopped_at);
  else if (report->truncated)
    cp_load_report_warn (report, report->stopped_at,
                         _("The capture is cut off at byte %" PRIu64 ", before its first "
                           "complete event (a field that starts at byte %" PRIu64 " reaches "
                           "past the end)"),
                         (guint64) input->len, report->stopped_at);

  if (space->unknown_metadata > 0)
    cp_load_report_warn (report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%" PRIu64 " event refers to event metadata that its "
                                      "plane does not define; it has no name",
                                      "%" PRIu64 " events refer to event metadata that their "
                                      "plane does not define; they have no name",
                                      space->unknown_metadata),
                         space->unknown_metadata);
}

gboolean
cp_xplane_reader_add_space (CpXPlaneReader      *self,
                            const CpXPlaneInput *input,
                            GCancellable        *cancellable,
                            GError             **error)
{
  gsize len;
  CpLoadReport *report;
  Space space = { 0 };
  CpPbError top_error;
  g_autoptr(GArray) planes = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GPtrArray) hostnames = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  guint64 events_before;
  gboolean ok = TRUE;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (input != NULL, FALSE);
  g_return_val_if_fail (input->data != NULL || input->len == 0, FALSE);

  len = input->len;
  report = self->report;
  events_before = report->events;
  report->input_bytes += len;

  space_init (self, &space, input);
  space.cancellable = cancellable;
  self->n_spaces++;

  top_error = space_read_top (&space, planes, hostnames, errors, warnings);
  if (planes->len == 0 && top_error == CP_PB_OK && len > 0)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                   _("the XPlane capture holds no planes"));
      ok = FALSE;
      goto out;
    }

  space_add_profiler_notes (self, &space, input, hostnames, errors, warnings);
  space_read_time_base (self, &space, planes);

  for (guint i = 0; i < planes->len && !space.cancelled; i++)
    {
      const Span *s = &g_array_index (planes, Span, i);

      cp_xplane_read_plane (&space, s, i);
      cp_xplane_check_progress (&space, (s->offset + s->len) / HEADER_SHARE);
    }
  cp_xplane_space_read_lines (&space);

  if (space.cancelled)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Loading was cancelled"));
      ok = FALSE;
      goto out;
    }

  if (!space.any_event && space.first_error != CP_PB_OK)
    {
      self->error_reason = space.first_error;
      self->error_offset = space.first_error_offset;
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                   _("The XPlane data is damaged at byte %" PRIu64 ": %s"),
                   space.first_error_offset, cp_pb_error_to_string (space.first_error));
      ok = FALSE;
      goto out;
    }
  space_warn_read (&space, input, events_before);

  cp_xplane_space_link (&space);
  self->device_offset = MAX (self->device_offset, space.max_device + 1);
  if (space.progress != NULL)
    space.progress (space.progress_base + space.progress_span, space.progress_total,
                    space.progress_data);

out:
  space_clear (&space);
  return ok;
}

static gint
cmp_step_cand (gconstpointer a,
               gconstpointer b)
{
  const StepCand *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->number < y->number ? -1 : (x->number > y->number);
}

void
cp_xplane_reader_finish (CpXPlaneReader *self)
{
  g_return_if_fail (self != NULL);

  if (self->steps_done)
    return;
  self->steps_done = TRUE;
  g_array_sort (self->steps, cmp_step_cand);
  for (guint i = 0; i < self->steps->len; i++)
    {
      const StepCand *c = &g_array_index (self->steps, StepCand, i);

      cp_trace_builder_add_step (self->builder, c->number, c->start, c->end, c->marker);
    }
}

/* ------------------------------------------------------------------------ */
/* Files and folders                                                         */

static void
release_source (guint64  offset,
                gpointer data)
{
  cp_source_release_before (data, offset);
}

static void
drop_source (guint64  from,
             guint64  to,
             gpointer data)
{
  cp_source_drop_range (data, from, to);
}

/* Decompressed input: drop the pages before offset too (they are never read
 * again and their content is not needed). */
typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   released;
} HeapInput;

static void
release_heap (guint64  offset,
              gpointer data)
{
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  HeapInput *h = data;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  if (page <= 0 || offset > h->len)
    return;
  start = ((guintptr) h->data + h->released + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) h->data + offset) & ~((guintptr) page - 1);
  if (stop > start)
    {
      madvise ((void *) start, stop - start, MADV_DONTNEED);
      h->released = stop - (guintptr) h->data;
    }
#endif
}

/* Pages wholly inside a range read for good: dropped (their content is
 * lost, which is fine). Pages shared with data not yet read stay. */
static void
discard_heap (guint64  from,
              guint64  to,
              gpointer data)
{
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  HeapInput *h = data;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  if (page <= 0 || from >= to || to > h->len)
    return;
  start = ((guintptr) h->data + from + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) h->data + to) & ~((guintptr) page - 1);
  if (stop > start)
    madvise ((void *) start, stop - start, MADV_DONTNEED);
#endif
}

/* Decompressed input --------------------------------------------------------- */

typedef struct
{
  void  *addr;
  gsize  len;
} Inflated;

static void
unmap_inflated (gpointer data)
{
  Inflated *m = data;

  munmap (m->addr, m->len);
  g_free (m);
}

/* Writes all of data to fd. */
static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         len,
           int          *err)
{
  while (len > 0)
    {
      gssize n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          *err = n < 0 ? errno : ENOSPC;
          return FALSE;
        }
      data += n;
      len -= n;
    }
  return TRUE;
}

static guint inflate_in_memory = CP_XPLANE_INFLATE_IN_MEMORY;

void
_cp_xplane_set_inflate_in_memory (guint bytes)
{
  g_atomic_int_set (&inflate_in_memory, bytes != 0 ? bytes : CP_XPLANE_INFLATE_IN_MEMORY);
}

/* Makes an unlinked temporary file in the cache folder (else the temporary
 * folder); *folder says where. */
static int
open_spill_file (char   **folder,
                 int     *err)
{
  g_autofree char *tmpl = NULL;
  int fd;

  *folder = g_build_filename (g_get_user_cache_dir (), "chokepoint", NULL);
  if (g_mkdir_with_parents (*folder, 0700) != 0)
    {
      g_free (*folder);
      *folder = g_strdup (g_get_tmp_dir ());
    }
  tmpl = g_build_filename (*folder, "inflate-XXXXXX", NULL);
  fd = g_mkstemp_full (tmpl, O_RDWR | O_CLOEXEC, 0600);
  *err = errno;
  /* Gone from the folder at once; the data lives as long as the mapping. */
  if (fd >= 0)
    g_unlink (tmpl);
  return fd;
}

/* Decompresses source: in memory up to CP_XPLANE_INFLATE_IN_MEMORY bytes,
 * past that into an unlinked temporary file that is then mapped, so that a
 * large capture's decompressed bytes are the kernel's page cache (read once
 * and discarded) rather than the heap. Returns NULL with error set when
 * nothing usable came out (cancelled, a limit, no disk space, no address
 * space, no data); else the bytes, with *error set when the compressed data
 * ended early or was damaged after some of it. */
static GBytes *
inflate_whole (CpSource            *source,
               CpLoadProgressFunc   progress,
               guint64              progress_base,
               guint64              progress_total,
               gpointer             progress_data,
               GCancellable        *cancellable,
               GError             **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autofree char *folder = NULL;
  g_autoptr(GError) read_error = NULL;
  guint64 len = 0;
  GBytes *chunk;
  void *addr;
  int fd = -1, err = 0;

  while ((chunk = cp_source_read (source, cancellable, &read_error)) != NULL)
    {
      gsize n;
      const guint8 *d = g_bytes_get_data (chunk, &n);
      gboolean ok = TRUE;

      if (len + n > CP_XPLANE_MAX_DECOMPRESSED)
        {
          g_bytes_unref (chunk);
          if (fd >= 0)
            close (fd);
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                       _("“%s” holds more than 4 GiB of XPlane data once decompressed; "
                         "decompress it and open the plain file"),
                       cp_source_get_name (source));
          return NULL;
        }
      if (fd < 0 && len + n > (guint) g_atomic_int_get (&inflate_in_memory))
        {
          fd = open_spill_file (&folder, &err);
          if (fd < 0)
            {
              g_bytes_unref (chunk);
              g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO,
                           _("“%s” cannot be decompressed: no temporary file can be made in "
                             "“%s” (%s)"),
                           cp_source_get_name (source), folder, g_strerror (err));
              return NULL;
            }
          ok = write_all (fd, buf->data, buf->len, &err);
          g_byte_array_set_size (buf, 0);
          g_clear_pointer (&buf, g_byte_array_unref);
          buf = g_byte_array_new ();
        }
      if (fd >= 0)
        ok = ok && write_all (fd, d, n, &err);
      else
        g_byte_array_append (buf, d, n);
      g_bytes_unref (chunk);
      if (!ok)
        {
          g_autofree char *done = g_format_size (len);

          close (fd);
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO,
                       _("“%s” cannot be decompressed into “%s”: %s (after %s)"),
                       cp_source_get_name (source), folder, g_strerror (err), done);
          return NULL;
        }
      len += n;
      if (progress != NULL)
        progress (progress_base + cp_source_get_consumed (source) / 2, progress_total, progress_data);
    }
  if (read_error != NULL &&
      (g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
       g_error_matches (read_error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT) || len == 0))
    {
      if (fd >= 0)
        close (fd);
      g_propagate_error (error, g_steal_pointer (&read_error));
      return NULL;
    }
  if (len == 0)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, _("The capture holds no events"));
      return NULL;
    }
  if (read_error != NULL)
    g_propagate_error (error, g_steal_pointer (&read_error));
  if (fd < 0)
    return g_byte_array_free_to_bytes (g_steal_pointer (&buf));

  addr = mmap (NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  err = errno;
  close (fd);
  if (addr == MAP_FAILED)
    {
      g_autofree char *size = g_format_size (len);

      g_clear_error (error);
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                   _("“%s” cannot be read: its %s of decompressed XPlane data do not fit in "
                     "this process’s memory (%s)"),
                   cp_source_get_name (source), size, g_strerror (err));
      return NULL;
    }
#ifdef MADV_SEQUENTIAL
  madvise (addr, len, MADV_SEQUENTIAL);
#endif
  {
    Inflated *m = g_new (Inflated, 1);

    m->addr = addr;
    m->len = len;
    return g_bytes_new_with_free_func (addr, len, unmap_inflated, m);
  }
}

static char *
host_hint_for (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);
  static const char *const suffixes[] = { ".xplane.pb.gz", ".xplane.pb.zst", ".xplane.pb", ".pb" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (base, suffixes[i]))
      {
        base[strlen (base) - strlen (suffixes[i])] = '\0';
        break;
      }
  return g_steal_pointer (&base);
}

gboolean
cp_xplane_reader_read (CpXPlaneReader      *self,
                       CpSource            *source,
                       GCancellable        *cancellable,
                       CpLoadProgressFunc   progress,
                       gpointer             progress_data,
                       guint64              progress_base,
                       guint64              progress_total,
                       GError             **error)
{
  g_autofree char *hint = host_hint_for (cp_source_get_file (source));
  CpXPlaneInput input = { 0 };
  GBytes *mapped;
  gboolean ok;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (source != NULL, FALSE);

  input.host_hint = hint;
  input.progress_data = progress_data;
  input.progress = progress;
  input.progress_base = progress_base;
  input.progress_total = progress_total;
  input.progress_span = cp_source_get_file_size (source);

  mapped = cp_source_get_mapped (source);
  if (mapped != NULL)
    {
      gsize size;

      input.data = g_bytes_get_data (mapped, &size);
      input.len = size;
      input.release = release_source;
      input.drop = drop_source;
      input.discard = drop_source;
      input.release_data = source;
      ok = cp_xplane_reader_add_space (self, &input, cancellable, error);
    }
  else
    {
      /* The walker needs the whole XSpace (each plane's metadata follows its
       * lines): decompress it whole, within the source's limits; a large one
       * goes through a temporary file (see inflate_whole()), so that memory
       * follows the model, not the decompressed size. */
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) inflated = NULL;
      HeapInput heap;

      inflated = inflate_whole (source, progress, progress_base, progress_total, progress_data,
                                     cancellable, &local_error);
      if (inflated == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      if (local_error != NULL)
        {
          CpLoadReport *report = cp_trace_builder_get_report (self->builder);
          gsize len = g_bytes_get_size (inflated);

          /* Compressed data that ends early or is corrupt: read what came out. */
          cp_load_report_warn (report, len, "%s", local_error->message);
          report->truncated = TRUE;
          report->stopped_at = MIN (report->stopped_at, (guint64) len);
        }
      heap.data = (guint8 *) g_bytes_get_data (inflated, NULL);
      heap.len = g_bytes_get_size (inflated);
      heap.released = 0;
      input.data = heap.data;
      input.len = heap.len;
      input.release = release_heap;
      input.discard = discard_heap;
      input.release_data = &heap;
      /* Reading reported the first half of the file's share. */
      input.progress_base = progress_base + cp_source_get_file_size (source) / 2;
      input.progress_span = cp_source_get_file_size (source) - cp_source_get_file_size (source) / 2;
      ok = cp_xplane_reader_add_space (self, &input, cancellable, error);
    }
  if (!ok && error != NULL && *error != NULL &&
      g_error_matches (*error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED))
    {
      GError *named = g_error_new (CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                                   _("“%s” is not a readable XPlane capture: it is damaged at "
                                     "byte %" PRIu64 " (%s)"),
                                   cp_source_get_name (source), self->error_offset,
                                   cp_pb_error_to_string (self->error_reason));

      g_clear_error (error);
      g_propagate_error (error, named);
    }
  else if (!ok && error != NULL && *error != NULL &&
           g_error_matches (*error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY))
    g_prefix_error (error, "“%s”: ", cp_source_get_name (source));
  return ok;
}
