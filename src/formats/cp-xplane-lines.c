/* cp-xplane-lines.c: XLines: headers, thread groups, reading them in parallel
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "cp-protobuf.h"
#include "cp-xplane-private.h"

/* The header of an XLine in the usual form; FALSE sends the line to the
 * careful path. */
static gboolean
scan_line_fast (Space        *space,
                const guint8 *p,
                const guint8 *end,
                Line         *line)
{
  const guint8 *dropped = p;
  const guint8 *limit = space->data + space->len;
  CpPbError err;

  while (p < end)
    {
      guint64 tag, v;

      /* The events are read again after this pass: a mapped file's pages
       * can go now and come back then, so that a long line never has to be
       * in memory whole. */
      if (G_UNLIKELY (space->drop != NULL && p - dropped >= PROGRESS_STEP))
        {
          space->drop ((guint64) (dropped - space->data), (guint64) (p - space->data),
                       space->release_data);
          dropped = p;
        }

      if (!cp_pb_read_varint_within (&p, end, limit, &tag, &err) ||
          !cp_pb_read_varint_within (&p, end, limit, &v, &err))
        return FALSE;
      switch (tag)
        {
        case (XLINE_EVENTS << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          p += v;
          line->n_events++;
          break;
        case (XLINE_ID << 3) | CP_PB_WIRE_VARINT:
          line->id = (gint64) v;
          break;
        case (XLINE_DISPLAY_ID << 3) | CP_PB_WIRE_VARINT:
          line->display_id = (gint64) v;
          break;
        case (XLINE_TIMESTAMP_NS << 3) | CP_PB_WIRE_VARINT:
          line->timestamp_ns = (gint64) v;
          break;
        case (XLINE_DURATION_PS << 3) | CP_PB_WIRE_VARINT:
          break;
        case (XLINE_NAME << 3) | CP_PB_WIRE_LEN:
        case (XLINE_DISPLAY_NAME << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          if (tag >> 3 == XLINE_NAME)
            {
              line->name = p;
              line->name_len = (gsize) v;
            }
          else
            {
              line->display_name = p;
              line->display_name_len = (gsize) v;
            }
          p += v;
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

/* A line whose events are to be read: lines that fill the same lanes form a
 * group, read in file order by one thread; groups are read by as many
 * threads as there are cores. Lines of fewer than BIG_LINE events go to one
 * group together (unless they share lanes with a big line), read in file
 * order: a capture of many small lines costs no more than its spans. */
#define BIG_LINE 16384
#define READ_MAX_THREADS   8

static guint big_line_events = BIG_LINE;   /* see _cp_xplane_set_threads() */
static guint read_threads;

typedef struct
{
  Plane    *plane;
  guint     index;     /* in plane->lines */
  guint     seq;       /* among the space's lines */
  Line     *line;      /* its header, read when queued (big lines), or NULL */
  gboolean  fast;
} TaskLine;

typedef struct
{
  GArray     *lines;   /* of TaskLine, in file order */
  guint64     n_events;
  GHashTable *links;   /* builder lane + 1 -> LinkLane* */
} Group;

void
cp_xplane_group_free (gpointer data)
{
  Group *g = data;

  for (guint i = 0; i < g->lines->len; i++)
    g_free (g_array_index (g->lines, TaskLine, i).line);
  g_array_unref (g->lines);
  g_hash_table_unref (g->links);
  g_free (g);
}

static Group *
group_new (Space *space)
{
  Group *g = g_new0 (Group, 1);

  g->lines = g_array_new (FALSE, FALSE, sizeof (TaskLine));
  g->links = g_hash_table_new (NULL, NULL);
  g_ptr_array_add (space->group_list, g);
  return g;
}

/* A line's header as scan_line_fast() reads it, ahead of line_header(). */
typedef struct
{
  gboolean      done;
  gboolean      fast;
  gint64        id;
  gint64        display_id;
  gint64        timestamp_ns;
  const guint8 *name;
  gsize         name_len;
  const guint8 *display_name;
  gsize         display_name_len;
  guint64       n_events;
} LineHead;

/* Reads a line's header into line; first: the first time (errors and the
 * epoch are noted then); head: its fields already scanned, or NULL. Returns
 * whether the line is in the usual form. */
static gboolean
line_header (Plane          *plane,
             const Span     *span,
             Line           *line_out,
             gboolean        first,
             const LineHead *head)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  CpPbReader r;
  CpPbField f;
  Line line = { 0 };
  gboolean fast;

  line.name = (const guint8 *) "";
  line.display_name = (const guint8 *) "";
  if (head != NULL && head->done)
    {
      fast = head->fast;
      if (fast)
        {
          line.id = head->id;
          line.display_id = head->display_id;
          line.timestamp_ns = head->timestamp_ns;
          line.name = head->name;
          line.name_len = head->name_len;
          line.display_name = head->display_name;
          line.display_name_len = head->display_name_len;
          line.n_events = head->n_events;
        }
    }
  else
    fast = !span->partial && scan_line_fast (space, span->data, span->data + span->len, &line);

  if (!fast)
    {
      /* Header fields first (display fields come after the events on the wire). */
      memset (&line, 0, sizeof line);
      line.name = (const guint8 *) "";
      line.display_name = (const guint8 *) "";
      reader_at (space, &r, span->data, span->len);
      while (cp_pb_reader_next (&r, &f))
        {
          switch (f.number)
            {
            case XLINE_ID:
              if (f.wire_type == CP_PB_WIRE_VARINT)
                line.id = cp_pb_int64 (f.value);
              break;
            case XLINE_DISPLAY_ID:
              if (f.wire_type == CP_PB_WIRE_VARINT)
                line.display_id = cp_pb_int64 (f.value);
              break;
            case XLINE_NAME:
              if (f.wire_type == CP_PB_WIRE_LEN)
                {
                  line.name = f.data;
                  line.name_len = f.len;
                }
              break;
            case XLINE_DISPLAY_NAME:
              if (f.wire_type == CP_PB_WIRE_LEN)
                {
                  line.display_name = f.data;
                  line.display_name_len = f.len;
                }
              break;
            case XLINE_TIMESTAMP_NS:
              if (f.wire_type == CP_PB_WIRE_VARINT)
                line.timestamp_ns = cp_pb_int64 (f.value);
              break;
            case XLINE_EVENTS:
              line.n_events++;
              break;
            default:
              break;
            }
        }
      if (r.error != CP_PB_OK)
        {
          g_autofree char *where = g_strdup_printf (_("plane “%s”"), plane->name);

          if (first)
            cp_xplane_report_pb_error (space, &r, where);
        }
    }

  line.klass = cp_xplane_classify_line (plane, &line);
  line.is_steps = cp_xplane_is_steps_line_name (line.name, line.name_len) &&
                  (plane->klass == PLANE_GPU || plane->klass == PLANE_TPU || plane->klass == PLANE_CUSTOM);
  if (space->has_start && line.timestamp_ns < space->start_ns / 2)
    line.base = sat_add (space->start_ns, line.timestamp_ns);
  else
    {
      line.base = line.timestamp_ns;
      if (first && line.timestamp_ns >= G_GINT64_CONSTANT (1000000000000000000) &&
          !reader->any_epoch)
        {
          reader->any_epoch = TRUE;
          cp_trace_builder_set_epoch_base (reader->builder, line.timestamp_ns);
        }
    }

  *line_out = line;
  return fast;
}

typedef struct
{
  LineClass klass;
  gint64    key;
  guint64   n_events;
  Line     *line;       /* big lines */
  gboolean  fast;
} LineInfo;

/* The headers of a plane's lines are walked on several threads when the
 * plane is big and has not too many lines (LineHead is kept per line). */
#define HEAD_MAX_LINES  65536
#define HEAD_MIN_BYTES  (64u << 20)

typedef struct
{
  Plane    *plane;
  LineHead *heads;
  guint     n;
  gint      next;      /* atomic */
} HeadJob;

static gpointer
head_worker (gpointer data)
{
  HeadJob *job = data;
  Space *space = job->plane->space;

  for (;;)
    {
      gint i = g_atomic_int_add (&job->next, 1);
      const Span *span;
      LineHead *h;
      Line line = { 0 };

      if (i < 0 || (guint) i >= job->n || g_atomic_int_get (&space->stop))
        break;
      span = &g_array_index (job->plane->lines, Span, i);
      h = &job->heads[i];
      line.name = (const guint8 *) "";
      line.display_name = (const guint8 *) "";
      h->fast = !span->partial && scan_line_fast (space, span->data, span->data + span->len, &line);
      h->id = line.id;
      h->display_id = line.display_id;
      h->timestamp_ns = line.timestamp_ns;
      h->name = line.name;
      h->name_len = line.name_len;
      h->display_name = line.display_name;
      h->display_name_len = line.display_name_len;
      h->n_events = line.n_events;
      h->done = TRUE;
    }
  return NULL;
}

/* Scans the plane's line headers ahead on several threads, or returns NULL. */
static LineHead *
plane_scan_heads (Plane *plane)
{
  guint n = plane->lines->len, want = g_atomic_int_get (&read_threads), n_threads = 0;
  guint64 bytes = 0;
  GThread *threads[READ_MAX_THREADS];
  HeadJob job;

  for (guint i = 0; i < n; i++)
    bytes += g_array_index (plane->lines, Span, i).len;
  if (want == 0)
    want = bytes >= HEAD_MIN_BYTES ? (guint) g_get_num_processors () : 1;
  want = MIN (MIN (want, READ_MAX_THREADS), n);
  if (want < 2 || n > HEAD_MAX_LINES)
    return NULL;
  job.plane = plane;
  job.heads = g_new0 (LineHead, n);
  job.n = n;
  job.next = 0;
  for (guint t = 1; t < want; t++)
    {
      GThread *th = g_thread_try_new ("cp-xplane-head", head_worker, &job, NULL);

      if (th == NULL)
        break;
      threads[n_threads++] = th;
    }
  head_worker (&job);
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
  return job.heads;
}

/* Reads the headers of a plane's lines and queues their events. */
static void
plane_queue_lines (Plane *plane)
{
  Space *space = plane->space;
  guint n = plane->lines->len;
  g_autofree LineInfo *info = g_new0 (LineInfo, MAX (n, 1));
  g_autofree LineHead *heads = plane_scan_heads (plane);
  g_autoptr(GHashTable) big_keys = g_hash_table_new (g_int64_hash, g_int64_equal);
  Group *device_group = NULL;
  gboolean big_device = FALSE;
  guint big = g_atomic_int_get (&big_line_events);

  for (guint i = 0; i < n && !space->cancelled; i++)
    {
      const Span *ls = &g_array_index (plane->lines, Span, i);
      Line line;

      info[i].fast = line_header (plane, ls, &line, TRUE, heads != NULL ? &heads[i] : NULL);
      info[i].klass = line.klass;
      info[i].key = line.display_id != 0 ? line.display_id : line.id;
      info[i].n_events = line.n_events;
      if (line.n_events >= big)
        {
          info[i].line = g_memdup2 (&line, sizeof line);
          if (line.klass == LINE_HOST)
            g_hash_table_add (big_keys, &info[i].key);
          else
            big_device = TRUE;
        }
      if (!cp_xplane_check_progress (space, ls->offset / HEADER_SHARE))
        break;
    }

  /* A host thread's line fills its own lane (lines with one display id
   * share it); the other lines of a plane share its copy and counter
   * lanes. The plane's process is made now, in plane order, whichever
   * thread reads its lines. */
  for (guint i = 0; i < n; i++)
    {
      TaskLine tl;
      Group *g;

      if (info[i].n_events == 0)
        {
          g_free (info[i].line);
          continue;
        }
      cp_xplane_plane_process (plane);
      tl.plane = plane;
      tl.index = i;
      tl.seq = space->n_lines++;
      tl.line = info[i].line;
      tl.fast = info[i].fast;
      if (info[i].klass == LINE_HOST && g_hash_table_contains (big_keys, &info[i].key))
        {
          g = g_hash_table_lookup (space->groups, &info[i].key);
          if (g == NULL)
            {
              g = group_new (space);
              g_hash_table_insert (space->groups, g_memdup2 (&info[i].key, sizeof (gint64)), g);
            }
        }
      else if (info[i].klass != LINE_HOST && big_device)
        {
          if (device_group == NULL)
            device_group = group_new (space);
          g = device_group;
        }
      else
        {
          if (space->rest == NULL)
            space->rest = group_new (space);
          g = space->rest;
        }
      g_array_append_val (g->lines, tl);
      g->n_events += info[i].n_events;
    }
  /* Keys are per plane. */
  g_hash_table_remove_all (space->groups);
}

static guint64 space_done (Space *space);

/* Counts bytes of a line as read (for progress) and discards their pages.
 * Returns FALSE when reading stops. */
static gboolean
line_progress (Ctx          *ctx,
               const guint8 *p,
               const guint8 *from)
{
  Space *space = ctx->space;

  if (p > from)
    {
      if (space->discard != NULL)
        space->discard ((guint64) (from - space->data), (guint64) (p - space->data),
                        space->release_data);
      __atomic_fetch_add (&space->done, (guint64) (p - from), __ATOMIC_RELAXED);
    }
  if (ctx->main &&
      !cp_xplane_check_progress (space, space->len / HEADER_SHARE +
                                        space_done (space) / HEADER_SHARE * (HEADER_SHARE - 1)))
    g_atomic_int_set (&space->stop, TRUE);
  return !g_atomic_int_get (&space->stop);
}

/* Reads the events of a queued line. */
static void
line_read_events (Ctx      *ctx,
                  TaskLine *tl)
{
  Plane *plane = tl->plane;
  Space *space = plane->space;
  const Span *span = &g_array_index (plane->lines, Span, tl->index);
  Line local, *line = tl->line;
  CpPbReader r;
  CpPbField f;
  const guint8 *discarded = span->data;
  gboolean fast = tl->fast;

  if (line == NULL)
    {
      fast = line_header (plane, span, &local, FALSE, NULL);
      line = &local;
    }
  ctx->out = NULL;
  ctx->line_seq = tl->seq;
  ctx->link_sub = 0;
  ctx->unknown_stat_ids = 0;

  if (fast)
    {
      const guint8 *p = span->data, *end = span->data + span->len;
      const guint8 *limit = space->data + space->len;
      guint n = 0;

      while (p < end)
        {
          const guint8 *at = p;
          guint64 tag = 0, v = 0;
          CpPbError err;

          cp_pb_read_varint_within (&p, end, limit, &tag, &err);
          cp_pb_read_varint_within (&p, end, limit, &v, &err);
          if (tag == ((XLINE_EVENTS << 3) | CP_PB_WIRE_LEN))
            {
              cp_xplane_read_event (ctx, plane, line, p, (gsize) v, (guint64) (at - space->data));
              p += v;
              if ((++n & 0xffff) == 0 && p - discarded >= PROGRESS_STEP)
                {
                  if (!line_progress (ctx, p, discarded))
                    break;
                  discarded = p;
                }
            }
          else if (tag == ((XLINE_NAME << 3) | CP_PB_WIRE_LEN) ||
                   tag == ((XLINE_DISPLAY_NAME << 3) | CP_PB_WIRE_LEN))
            p += v;
        }
    }
  else
    {
      reader_at (space, &r, span->data, span->len);
      while (cp_pb_reader_next (&r, &f))
        {
          if (f.number != XLINE_EVENTS || f.wire_type != CP_PB_WIRE_LEN)
            continue;
          cp_xplane_read_event (ctx, plane, line, f.data, f.len, f.offset);
          if ((ctx->events & 0xffff) == 0 && !line_progress (ctx, f.data, f.data))
            break;
        }
    }
  line_progress (ctx, span->data + span->len, discarded);
  if (ctx->unknown_stat_ids > 0)
    __atomic_fetch_add (&plane->unknown_stat_ids, ctx->unknown_stat_ids, __ATOMIC_RELAXED);
  ctx->unknown_stat_ids = 0;
  ctx->out = NULL;
}

/* The line being read's results, made on first use. */
LineOut *
cp_xplane_ctx_out (Ctx *ctx)
{
  if (ctx->out == NULL)
    {
      ctx->out = g_new (LineOut, 1);
      cp_xplane_line_out_init (ctx->out);
      /* Each line is read by one thread: its slot is its own. */
      g_ptr_array_index (ctx->space->outs, ctx->line_seq) = ctx->out;
    }
  return ctx->out;
}

/* /host:metadata: each program's event metadata (its id the program id)
 * holds its HloProto, where each HLO op comes from. */
static void
read_hlo_protos (Plane *plane)
{
  CpXPlaneReader *reader = plane->space->reader;

  for (guint i = 0; i < plane->event_meta->len; i++)
    {
      const EventMeta *m = &g_array_index (plane->event_meta, EventMeta, i);
      CpPbReader r;
      CpPbField f;
      gint64 id = 0;
      const guint8 *hlo = NULL;
      gsize hlo_len = 0;

      if (!m->has_stats || m->msg == NULL)
        continue;
      reader_at (plane->space, &r, m->msg, m->msg_len);
      while (cp_pb_reader_next (&r, &f))
        {
          XStatVal sv;
          StatMeta *sm;

          if (f.number == XEVMETA_ID && f.wire_type == CP_PB_WIRE_VARINT)
            id = cp_pb_int64 (f.value);
          if (f.number != XEVMETA_STATS || !cp_xplane_parse_xstat (&r, &f, &sv))
            continue;
          sm = cp_xplane_plane_stat (plane, sv.metadata_id);
          if (sm != NULL && sm->kind == SK_HLO_PROTO && sv.type == XSTAT_BYTES)
            {
              hlo = sv.s;
              hlo_len = sv.slen;
            }
        }
      if (hlo != NULL)
        cp_xplane_read_hlo_proto (reader->builder, id, hlo, hlo_len);
    }
}

/* Indexes a plane, reads its stats and queues its lines. */
void
cp_xplane_read_plane (Space      *space,
                      const Span *span,
                      guint       index)
{
  CpXPlaneReader *reader = space->reader;
  Plane plane = { 0 };
  Plane *kept;

  plane.space = space;
  plane.index = index;
  plane.offset = span->offset;
  if (!cp_xplane_plane_index (space, span, &plane))
    {
      cp_xplane_plane_clear (&plane);
      return;
    }
  plane.klass = cp_xplane_classify_plane (plane.name, plane.id, &plane.ordinal, &plane.sparse_core);
  if (plane.ordinal >= 0)
    {
      plane.ordinal += space->device_offset;
      space->max_device = MAX (space->max_device, plane.ordinal);
    }

  if (plane.lines->len == 0 && (plane.klass == PLANE_GPU || plane.klass == PLANE_TPU))
    {
      /* A device without events: still a device of the capture. */
      cp_xplane_plane_read_stats (&plane, NULL);
      cp_xplane_plane_clear (&plane);
      return;
    }
  if (plane.klass == PLANE_BOOKKEEPING || plane.lines->len == 0)
    {
      read_hlo_protos (&plane);
      g_autoptr(JsonBuilder) json = json_builder_new ();
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      g_autofree char *key = NULL;

      if (plane.stats->len == 0 && plane.event_meta->len == 0)
        {
          cp_xplane_plane_clear (&plane);
          return;
        }
      json_builder_begin_object (json);
      cp_xplane_plane_read_stats (&plane, json);
      if (plane.event_meta->len > 0)
        {
          json_builder_set_member_name (json, "event_metadata");
          json_builder_begin_array (json);
          for (guint i = 0; i < MIN (plane.event_meta->len, MAX_METADATA_NAMES); i++)
            {
              const EventMeta *m = &g_array_index (plane.event_meta, EventMeta, i);
              g_autofree char *t = g_utf8_make_valid ((const char *) m->raw,
                                                      (gssize) MIN (m->raw_len, MAX_METADATA_STRING));

              json_builder_add_string_value (json, t);
            }
          json_builder_end_array (json);
        }
      json_builder_end_object (json);
      root = json_builder_get_root (json);
      json_generator_set_root (gen, root);
      text = json_generator_to_data (gen, NULL);
      if (reader->n_spaces > 1 || space->host > 0)
        key = g_strdup_printf ("%s %s", space->hostname ? space->hostname : "", plane.name);
      else
        key = g_strdup (plane.name);
      cp_trace_builder_add_metadata (reader->builder, key, text, -1);
      cp_xplane_plane_clear (&plane);
      return;
    }

  cp_xplane_plane_read_stats (&plane, NULL);
  if ((plane.klass == PLANE_GPU || plane.klass == PLANE_TPU) && !plane.sparse_core)
    plane.warp_size = cp_trace_builder_device (reader->builder, plane.ordinal)->warp_size;
  kept = g_memdup2 (&plane, sizeof plane);
  g_ptr_array_add (space->planes, kept);
  plane_queue_lines (kept);
}

/* Reading the lines: each thread takes the next group (the biggest first)
 * and reads its lines in order; the main thread also reports progress and
 * watches for cancellation. */
#define READ_MIN_PARALLEL  (1u << 20)   /* events: below, one thread */

void
_cp_xplane_set_threads (guint n_threads,
                        guint big_line)
{
  g_atomic_int_set (&read_threads, n_threads);
  g_atomic_int_set (&big_line_events, big_line != 0 ? big_line : BIG_LINE);
}

typedef struct
{
  Space    *space;
  guint    *order;       /* group indexes, biggest first */
  guint     n_groups;
  gint      next;        /* atomic */
  gint      running;     /* threads still reading (under lock) */
  GMutex    lock;
  GCond     cond;
  Ctx       totals;      /* the threads' counts, added up (under lock) */
} ReadJob;

static void
ctx_init (Ctx   *ctx,
          Space *space)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->space = space;
  cp_sink_stats_init (&ctx->sink);
}

/* Adds a thread's counts to the totals and frees its scratch. */
static void
ctx_finish (Ctx *ctx,
            Ctx *totals)
{
  totals->events += ctx->events;
  totals->aggregated += ctx->aggregated;
  totals->skipped += ctx->skipped;
  totals->unknown_metadata += ctx->unknown_metadata;
  totals->any_event |= ctx->any_event;
  cp_sink_stats_add (&totals->sink, &ctx->sink);
  g_free (ctx->pack.data);
  g_free (ctx->last_pack.data);
}

static guint64
space_done (Space *space)
{
  return __atomic_load_n (&space->done, __ATOMIC_RELAXED);
}

static void
read_groups (ReadJob *job,
             Ctx     *ctx)
{
  Space *space = job->space;

  for (;;)
    {
      gint at = g_atomic_int_add (&job->next, 1);
      Group *g;

      if (at < 0 || (guint) at >= job->n_groups || g_atomic_int_get (&space->stop))
        break;
      g = g_ptr_array_index (space->group_list, job->order[at]);
      ctx->links = g->links;
      for (guint i = 0; i < g->lines->len && !g_atomic_int_get (&space->stop); i++)
        line_read_events (ctx, &g_array_index (g->lines, TaskLine, i));
    }
}

static gpointer
read_worker (gpointer data)
{
  ReadJob *job = data;
  Ctx ctx;

  ctx_init (&ctx, job->space);
  read_groups (job, &ctx);
  g_mutex_lock (&job->lock);
  ctx_finish (&ctx, &job->totals);
  job->running--;
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

static gint
cmp_group_size (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  GPtrArray *groups = user_data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  const Group *x = g_ptr_array_index (groups, i), *y = g_ptr_array_index (groups, j);

  if (x->n_events != y->n_events)
    return x->n_events > y->n_events ? -1 : 1;
  return i < j ? -1 : (i > j);
}

static gint
cmp_link_lane (gconstpointer a,
               gconstpointer b)
{
  const LinkLane *x = *(LinkLane * const *) a, *y = *(LinkLane * const *) b;

  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return x->sub < y->sub ? -1 : (x->sub > y->sub);
}

/* Reads every queued line, merges their results in file order, and makes
 * the space's link lanes in the order their lines started them. */
void
cp_xplane_space_read_lines (Space *space)
{
  CpXPlaneReader *reader = space->reader;
  CpLoadReport *report = reader->report;
  ReadJob job;
  Ctx ctx;
  g_autofree guint *order = g_new (guint, MAX (space->group_list->len, 1));
  g_autoptr(GPtrArray) links = g_ptr_array_new ();
  guint64 total = 0;
  guint want = g_atomic_int_get (&read_threads), n_threads = 0;
  GThread *threads[READ_MAX_THREADS];

  for (guint i = 0; i < space->group_list->len; i++)
    {
      order[i] = i;
      total += ((Group *) g_ptr_array_index (space->group_list, i))->n_events;
    }
  g_qsort_with_data (order, space->group_list->len, sizeof (guint), cmp_group_size,
                     space->group_list);
  space->outs = g_ptr_array_new ();
  g_ptr_array_set_size (space->outs, space->n_lines);

  memset (&job, 0, sizeof job);
  job.space = space;
  job.order = order;
  job.n_groups = space->group_list->len;
  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  ctx_init (&job.totals, space);
  if (want == 0)
    want = total >= READ_MIN_PARALLEL ? (guint) g_get_num_processors () : 1;
  want = MIN (MIN (want, READ_MAX_THREADS), MAX (job.n_groups, 1));

  for (guint t = 1; t < want && !space->cancelled; t++)
    {
      GThread *th;

      g_mutex_lock (&job.lock);
      job.running++;
      g_mutex_unlock (&job.lock);
      th = g_thread_try_new ("cp-xplane-read", read_worker, &job, NULL);
      if (th == NULL)
        {
          /* Fewer threads: the others take more groups. */
          g_mutex_lock (&job.lock);
          job.running--;
          g_mutex_unlock (&job.lock);
          break;
        }
      threads[n_threads++] = th;
    }

  ctx_init (&ctx, space);
  ctx.main = TRUE;
  if (!space->cancelled)
    read_groups (&job, &ctx);
  /* Until the others are done: progress and cancellation. */
  g_mutex_lock (&job.lock);
  ctx_finish (&ctx, &job.totals);
  while (job.running > 0)
    {
      g_cond_wait_until (&job.cond, &job.lock, g_get_monotonic_time () + G_TIME_SPAN_SECOND / 10);
      g_mutex_unlock (&job.lock);
      if (!cp_xplane_check_progress (space, space->len / HEADER_SHARE +
                                            space_done (space) / HEADER_SHARE * (HEADER_SHARE - 1)))
        g_atomic_int_set (&space->stop, TRUE);
      g_mutex_lock (&job.lock);
    }
  g_mutex_unlock (&job.lock);
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
  if (g_atomic_int_get (&space->stop))
    space->cancelled = TRUE;

  /* Counts, then results in file order. */
  report->events += job.totals.events;
  report->aggregated += job.totals.aggregated;
  report->skipped += job.totals.skipped;
  space->unknown_metadata += job.totals.unknown_metadata;
  space->any_event |= job.totals.any_event;
  cp_trace_builder_merge_sink_stats (reader->builder, &job.totals.sink);
  for (guint i = 0; i < space->outs->len; i++)
    if (g_ptr_array_index (space->outs, i) != NULL)
      {
        cp_xplane_line_out_merge (space, g_ptr_array_index (space->outs, i));
        g_ptr_array_index (space->outs, i) = NULL;
      }
  for (guint i = 0; i < space->group_list->len; i++)
    {
      GHashTableIter iter;
      gpointer v;

      g_hash_table_iter_init (&iter, ((Group *) g_ptr_array_index (space->group_list, i))->links);
      while (g_hash_table_iter_next (&iter, NULL, &v))
        g_ptr_array_add (links, v);
    }
  g_ptr_array_sort (links, cmp_link_lane);
  for (guint i = 0; i < links->len; i++)
    {
      LinkLane *ll = g_ptr_array_index (links, i);

      g_array_append_val (space->link_lanes, *ll);
      g_free (ll);
    }
  g_ptr_array_set_size (space->group_list, 0);
  space->rest = NULL;
  for (guint i = 0; i < space->planes->len; i++)
    cp_xplane_plane_done (g_ptr_array_index (space->planes, i));
  g_ptr_array_set_size (space->planes, 0);
  if (space->release != NULL && space->len > 0)
    space->release (space->len, space->release_data);
}

/* After its lines are read and merged. */
void
cp_xplane_plane_done (Plane *plane)
{
  CpXPlaneReader *reader = plane->space->reader;

  if (plane->unknown_stat_ids > 0)
    cp_load_report_warn (reader->report, plane->offset,
                         _("Plane “%s”: %" PRIu64 " stats refer to unknown stat "
                           "metadata and were left out"),
                         plane->name, plane->unknown_stat_ids);
  if (plane->partial && plane->event_meta->len == 0 && plane->n_lanes > 0)
    cp_load_report_warn (reader->report, plane->offset,
                         _("Plane “%s” was cut off before its event names; its events have no "
                           "names"),
                         plane->name);
  cp_xplane_plane_clear (plane);
  g_free (plane);
}
