/* cp-xplane-events.c: XEvents of a line into slices
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-protobuf.h"
#include "cp-xplane-private.h"

/* ------------------------------------------------------------------------ */
/* Lines and events                                                          */

static guint line_lane_locked (Ctx   *ctx,
                               Plane *plane,
                               Line  *line);

/* The line's lane (its sink in line->sink), made on first use;
 * G_MAXUINT when the line is skipped. */
static inline guint
line_lane (Ctx   *ctx,
           Plane *plane,
           Line  *line)
{
  guint lane;

  if (G_LIKELY (line->lane != 0))
    return line->lane - 1;
  if (line->skip)
    return G_MAXUINT;
  g_rec_mutex_lock (&plane->space->lock);
  lane = line_lane_locked (ctx, plane, line);
  g_rec_mutex_unlock (&plane->space->lock);
  return lane;
}

static guint
line_lane_locked (Ctx   *ctx,
                  Plane *plane,
                  Line  *line)
{
  CpXPlaneReader *reader = plane->space->reader;
  CpLaneKind kind;
  CpLaneKey key = { 0, CP_STR_EMPTY };
  guint process, lane;
  gboolean existed;

  process = cp_xplane_plane_process (plane);
  switch (line->klass)
    {
    case LINE_HOST:
      kind = CP_LANE_HOST_THREAD;
      key.num = line->display_id != 0 ? line->display_id : line->id;
      break;
    case LINE_KERNEL:
      kind = CP_LANE_KERNEL;
      key.num = line->display_id != 0 ? line->display_id : line->id;
      break;
    case LINE_ANNOTATION:
    case LINE_COUNTERS:
    default:
      kind = CP_LANE_DEVICE_ANNOTATION;
      key.num = line->display_id != 0 ? line->display_id : line->id;
      break;
    }

  existed = cp_trace_builder_has_lane (reader->builder, process, kind, key, NULL);
  if (!existed && plane->n_lanes >= MAX_LANES_PER_PLANE)
    {
      if (!plane->lane_limit_warned)
        {
          plane->lane_limit_warned = TRUE;
          cp_xplane_out_warn (ctx, G_MAXUINT64,
                              _("Plane “%s” has more than %d lines with events; the events "
                                "of the others were skipped"),
                              plane->name, MAX_LANES_PER_PLANE);
        }
      line->skip = TRUE;
      return G_MAXUINT;
    }
  lane = cp_trace_builder_lane (reader->builder, process, kind, key);
  if (!existed)
    {
      const guint8 *n = line->display_name_len > 0 ? line->display_name : line->name;
      gsize n_len = line->display_name_len > 0 ? line->display_name_len : line->name_len;
      g_autofree char *name = g_utf8_make_valid ((const char *) n, (gssize) MIN (n_len, 1024));

      plane->n_lanes++;
      if (name[0] != '\0')
        cp_trace_builder_set_lane_name (reader->builder, lane, name);
      if (plane->ordinal >= 0)
        cp_trace_builder_set_lane_device (reader->builder, lane, plane->ordinal,
                                          kind == CP_LANE_KERNEL ? key.num : -1);
    }
  line->sink = cp_trace_builder_get_sink (reader->builder, lane);
  line->lane = lane + 1;
  return lane;
}

/* A GPU plane's copy lane of a kind (its lines are read by one thread). */
static guint
transfer_lane (Plane          *plane,
               CpTransferKind  kind)
{
  CpXPlaneReader *reader = plane->space->reader;
  guint process, lane;

  if (plane->transfer_lanes[kind] != 0)
    return plane->transfer_lanes[kind] - 1;
  g_rec_mutex_lock (&plane->space->lock);
  process = cp_xplane_plane_process (plane);
  lane = cp_trace_builder_lane (reader->builder, process, CP_LANE_TRANSFER,
                                (CpLaneKey) { kind, CP_STR_EMPTY });
  cp_trace_builder_set_lane_transfer_kind (reader->builder, lane, kind);
  if (plane->ordinal >= 0)
    cp_trace_builder_set_lane_device (reader->builder, lane, plane->ordinal, -1);
  plane->n_lanes++;
  plane->transfer_sinks[kind] = cp_trace_builder_get_sink (reader->builder, lane);
  plane->transfer_lanes[kind] = lane + 1;
  g_rec_mutex_unlock (&plane->space->lock);
  return lane;
}

static void
gpu_info_init (CpGpuInfo *g)
{
  /* Padding too: records are compared byte for byte. */
  memset (g, 0, sizeof *g);
  g->bytes = -1;
  g->device = -1;
  g->stream = -1;
  for (guint i = 0; i < 3; i++)
    g->grid[i] = g->block[i] = -1;
  g->registers = -1;
  g->shared_mem = -1;
  g->blocks_per_sm = NAN;
  g->warps_per_sm = NAN;
  g->occupancy = NAN;
  g->flops = -1;
  g->bytes_accessed = -1;
}

static const KernelInfo *
event_kernel_info (EvStats    *es,
                   KernelInfo *scratch)
{
  if (!HAS (es, SK_KERNEL_DETAILS))
    return NULL;
  if (es->kernel_ref != NULL)
    {
      KernelInfo *k = g_atomic_pointer_get (&es->kernel_ref->kernel);

      if (k == NULL)
        {
          /* Another thread may parse it too: the first one stays. */
          k = g_new (KernelInfo, 1);
          cp_xplane_parse_kernel_details (es->kernel_details, es->kernel_details_len, k);
          if (!g_atomic_pointer_compare_and_exchange (&es->kernel_ref->kernel, NULL, k))
            {
              g_free (k);
              k = g_atomic_pointer_get (&es->kernel_ref->kernel);
            }
        }
      return k;
    }
  cp_xplane_parse_kernel_details (es->kernel_details, es->kernel_details_len, scratch);
  return scratch;
}

static const CopyInfo *
event_copy_info (EvStats  *es,
                 CopyInfo *scratch)
{
  if (!HAS (es, SK_MEMCPY_DETAILS) && !HAS (es, SK_MEMSET_DETAILS))
    return NULL;
  if (es->copy_ref != NULL)
    {
      CopyInfo *c = g_atomic_pointer_get (&es->copy_ref->copy);

      if (c == NULL)
        {
          c = g_new (CopyInfo, 1);
          cp_xplane_parse_copy_details (es->copy_details, es->copy_details_len, es->copy_is_memset, c);
          if (!g_atomic_pointer_compare_and_exchange (&es->copy_ref->copy, NULL, c))
            {
              g_free (c);
              c = g_atomic_pointer_get (&es->copy_ref->copy);
            }
        }
      return c;
    }
  cp_xplane_parse_copy_details (es->copy_details, es->copy_details_len, es->copy_is_memset, scratch);
  return scratch;
}

static void
add_step_candidate (GArray     *steps,
                    gint64      number,
                    gboolean    by_position,
                    gint64      start,
                    gint64      end,
                    CpSliceRef  marker)
{
  StepCand c = { number, start, end, marker, by_position };

  g_array_append_val (steps, c);
}

/* The id of an arguments record equal to pack, added if new. */
static guint32
shared_args (Ctx  *ctx,
             Pack *pack)
{
  Space *space = ctx->space;
  CpXPlaneReader *reader = space->reader;
  ArgsCacheEntry *ce = NULL;
  guint64 h;
  gsize slot = 0;
  guint32 id;

  if (pack->len == 0)
    return 0;
  /* Neighbouring events often have equal stats. */
  if (ctx->last_args != 0 && pack->len == ctx->last_pack.len &&
      memcmp (pack->data, ctx->last_pack.data, pack->len) == 0)
    return ctx->last_args;
  h = hash_bytes (pack->data, pack->len);
  if (pack->len <= ARGS_CACHE_BYTES)
    {
      ce = &ctx->args_cache[h % ARGS_CACHE_SIZE];
      if (ce->id != 0 && ce->h == h && ce->len == pack->len && memcmp (ce->bytes, pack->data, pack->len) == 0)
        {
          id = ce->id;
          goto done;
        }
    }
  g_rec_mutex_lock (&space->lock);
  id = dedup_lookup (&reader->args_dedup, h, cp_xplane_args_equal, reader->builder, pack->data, pack->len,
                     &slot);
  if (id == 0)
    {
      id = cp_trace_builder_add_args (reader->builder, CP_ARGS_XSTATS, pack->data, pack->len);
      if (id != 0)
        cp_xplane_dedup_insert (&reader->args_dedup, slot, h, id);
    }
  g_rec_mutex_unlock (&space->lock);
  if (ce != NULL && id != 0)
    {
      ce->h = h;
      ce->id = id;
      ce->len = (guint32) pack->len;
      memcpy (ce->bytes, pack->data, pack->len);
    }
done:
  ctx->last_pack.len = 0;
  pack_reserve (&ctx->last_pack, pack->len);
  memcpy (ctx->last_pack.data, pack->data, pack->len);
  ctx->last_pack.len = pack->len;
  ctx->last_args = id;
  return id;
}

/* The id of a device record equal to gpu, added if new. */
static guint32
shared_gpu_info (Ctx             *ctx,
                 const CpGpuInfo *gpu)
{
  Space *space = ctx->space;
  CpXPlaneReader *reader = space->reader;
  guint64 h;
  gsize slot = 0;
  guint32 index;

  if (ctx->last_gpu != 0 && memcmp (&ctx->last_gpu_info, gpu, sizeof *gpu) == 0)
    return ctx->last_gpu;
  h = hash_bytes ((const guint8 *) gpu, sizeof *gpu);
  g_rec_mutex_lock (&space->lock);
  index = dedup_lookup (&reader->gpu_dedup, h, cp_xplane_gpu_equal, reader->gpu_copies, gpu, sizeof *gpu,
                        &slot);
  if (index == 0)
    {
      guint32 id = cp_trace_builder_add_gpu_info (reader->builder, gpu);

      g_array_append_val (reader->gpu_copies, *gpu);
      g_array_append_val (reader->gpu_ids, id);
      index = reader->gpu_copies->len;
      cp_xplane_dedup_insert (&reader->gpu_dedup, slot, h, index);
    }
  ctx->last_gpu = g_array_index (reader->gpu_ids, guint32, index - 1);
  g_rec_mutex_unlock (&space->lock);
  ctx->last_gpu_info = *gpu;
  return ctx->last_gpu;
}

/* The fields of an XEvent in the form every writer uses (known fields with
 * their wire types, lengths inside the event). FALSE sends the event to the
 * careful path, which also names what is wrong. */
static inline gboolean
scan_event_fast (const guint8  *p,
                 const guint8  *end,
                 const guint8  *limit,
                 gint64        *metadata_id,
                 gint64        *offset_ps,
                 gint64        *duration_ps,
                 gboolean      *aggregated,
                 gboolean      *has_stats,
                 const guint8 **first_stats)
{
  CpPbError err;

  *metadata_id = 0;
  *offset_ps = 0;
  *duration_ps = 0;
  *aggregated = FALSE;
  *has_stats = FALSE;
  *first_stats = NULL;
  while (p < end)
    {
      const guint8 *at = p;
      guint64 tag, v;

      if (!cp_pb_read_varint_within (&p, end, limit, &tag, &err) ||
          !cp_pb_read_varint_within (&p, end, limit, &v, &err))
        return FALSE;
      switch (tag)
        {
        case (XEVENT_METADATA_ID << 3) | CP_PB_WIRE_VARINT:
          *metadata_id = (gint64) v;
          break;
        case (XEVENT_OFFSET_PS << 3) | CP_PB_WIRE_VARINT:
          *offset_ps = (gint64) v;
          *aggregated = FALSE;
          break;
        case (XEVENT_DURATION_PS << 3) | CP_PB_WIRE_VARINT:
          *duration_ps = (gint64) v;
          break;
        case (XEVENT_NUM_OCCURRENCES << 3) | CP_PB_WIRE_VARINT:
          *aggregated = TRUE;
          break;
        case (XEVENT_STATS << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          p += v;
          if (!*has_stats)
            *first_stats = at;
          *has_stats = TRUE;
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

static inline gboolean
parse_stat_fast (const guint8 *p,
                 const guint8 *end,
                 const guint8 *limit,
                 XStatVal     *sv)
{
  CpPbError err;

  sv->metadata_id = 0;
  sv->type = 0;
  while (p < end)
    {
      guint64 tag, v;

      if (!cp_pb_read_varint_within (&p, end, limit, &tag, &err))
        return FALSE;
      if (tag == ((XSTAT_DOUBLE << 3) | CP_PB_WIRE_FIXED64))
        {
          if (end - p < 8)
            return FALSE;
          sv->type = XSTAT_DOUBLE;
          sv->d = cp_pb_double (cp_pb_load_fixed64 (p));
          p += 8;
          continue;
        }
      if (!cp_pb_read_varint_within (&p, end, limit, &v, &err))
        return FALSE;
      switch (tag)
        {
        case (XSTAT_METADATA_ID << 3) | CP_PB_WIRE_VARINT:
          sv->metadata_id = (gint64) v;
          break;
        case (XSTAT_UINT64 << 3) | CP_PB_WIRE_VARINT:
        case (XSTAT_INT64 << 3) | CP_PB_WIRE_VARINT:
        case (XSTAT_REF << 3) | CP_PB_WIRE_VARINT:
          sv->type = (guint8) (tag >> 3);
          sv->u = v;
          break;
        case (XSTAT_STR << 3) | CP_PB_WIRE_LEN:
        case (XSTAT_BYTES << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          sv->type = (guint8) (tag >> 3);
          sv->s = p;
          sv->slen = (gsize) v;
          p += v;
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

/* One XEvent while cp_xplane_read_event () reads it. */
typedef struct
{
  Ctx            *ctx;
  Plane          *plane;
  Line           *line;
  Space          *space;
  CpXPlaneReader *reader;
  const guint8   *data;
  gsize           len;
  /* its fields */
  gint64          metadata_id;
  gint64          offset_ps;
  gint64          duration_ps;
  gboolean        has_stats;
  gboolean        fast;
  const guint8   *first_stats;
  /* what it makes */
  EventMeta      *meta;
  EvStats         es;
  CpStr           name;
  CpSliceInit     init;
  gint64          start;
  gint64          end;
  guint           lane;
  CpLaneSink     *sink;
  CpSliceRef      ref;
} EvRead;

/* The event's own fields; FALSE when it is damaged, aggregated or on a
 * skipped line: then nothing more is read of it. */
static gboolean
event_read_fields (EvRead  *ev,
                   guint64  ev_offset)
{
  Ctx *ctx = ev->ctx;
  CpPbReader r;
  CpPbField f;
  gboolean aggregated = FALSE;
  const guint8 *limit = ev->space->data + ev->space->len;

  ctx->events++;
  ev->fast = scan_event_fast (ev->data, ev->data + ev->len, limit, &ev->metadata_id, &ev->offset_ps,
                              &ev->duration_ps, &aggregated, &ev->has_stats, &ev->first_stats);
  r.error = CP_PB_OK;
  if (!ev->fast)
    reader_at (ev->space, &r, ev->data, ev->len);
  while (!ev->fast && cp_pb_reader_next (&r, &f))
    {
      switch (f.number)
        {
        case XEVENT_METADATA_ID:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            ev->metadata_id = cp_pb_int64 (f.value);
          break;
        case XEVENT_OFFSET_PS:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            {
              ev->offset_ps = cp_pb_int64 (f.value);
              aggregated = FALSE;
            }
          break;
        case XEVENT_NUM_OCCURRENCES:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            aggregated = TRUE;
          break;
        case XEVENT_DURATION_PS:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            ev->duration_ps = cp_pb_int64 (f.value);
          break;
        case XEVENT_STATS:
          ev->has_stats = TRUE;
          break;
        default:
          break;
        }
    }
  if (r.error != CP_PB_OK)
    {
      if (r.error == CP_PB_ERROR_TRUNCATED)
        cp_xplane_out_note_truncated (ctx, ev_offset);
      else
        {
          ctx->skipped++;
          cp_xplane_out_note_error (ctx, r.error, r.error_offset);
          cp_xplane_out_warn (ctx, r.error_offset, _("Skipped a damaged event at byte %" PRIu64 ": %s"),
                              r.error_offset, cp_pb_error_to_string (r.error));
        }
      return FALSE;
    }
  if (aggregated)
    {
      ctx->aggregated++;
      return FALSE;
    }
  if (ev->line->skip)
    {
      ctx->skipped++;
      return FALSE;
    }
  return TRUE;
}

/* The event's metadata, its stats and its name. */
static void
event_read_meta (EvRead *ev)
{
  Plane *plane = ev->plane;
  gint mi;

  ev->meta = NULL;
  mi = idmap_lookup (&plane->event_ids, ev->metadata_id);
  if (mi >= 0)
    {
      EventMeta *meta = &g_array_index (plane->event_meta, EventMeta, mi);

      ev->meta = meta;
      if (!g_atomic_int_get (&meta->decoded))
        cp_xplane_event_meta_decode (ev->ctx, plane, meta);
      if (meta->stats.has != 0 || meta->stats.has_number)
        ev->es = meta->stats;
      else
        {
          /* Only these are read unless a kind's bit is set. */
          ev->es.has = 0;
          ev->es.has_number = FALSE;
        }
      ev->name = meta->name;
    }
  else
    {
      ev->es.has = 0;
      ev->es.has_number = FALSE;
      ev->name = CP_STR_EMPTY;
      ev->ctx->unknown_metadata++;
    }
}

/* The event's stats, into ev->es and packed into its arguments; FALSE when
 * they are damaged. */
static gboolean
event_read_stats (EvRead *ev)
{
  Ctx *ctx = ev->ctx;
  Plane *plane = ev->plane;
  Space *space = ev->space;
  EventMeta *meta = ev->meta;
  Pack *pack = &ctx->pack;
  const guint8 *limit = space->data + space->len;
  CpPbReader r;
  CpPbField f;

  r.error = CP_PB_OK;
  if (meta != NULL && meta->args_id != 0)
    {
      guint8 type = CP_XSTAT_INCLUDE;

      pack_varint (pack, 0);
      pack_byte (pack, type);
      pack_varint (pack, meta->args_id);
    }
  if (!ev->fast)
    reader_at (space, &r, ev->data, ev->len);
  else
    {
      /* The event's fields are known good: walk them without checks,
       * from the first stat on. */
      const guint8 *p = ev->first_stats, *ev_end = ev->data + ev->len;

      while (p < ev_end)
        {
          guint64 tag = 0, v = 0;
          CpPbError err;
          XStatVal sv;

          cp_pb_read_varint_within (&p, ev_end, limit, &tag, &err);
          cp_pb_read_varint_within (&p, ev_end, limit, &v, &err);
          if (tag != ((XEVENT_STATS << 3) | CP_PB_WIRE_LEN))
            continue;
          if (!parse_stat_fast (p, p + v, limit, &sv))
            {
              CpPbReader sr;

              reader_at (space, &sr, p, v);
              cp_xplane_parse_xstat_reader (&sr, &sv);
              if (sr.error != CP_PB_OK)
                {
                  r.error = sr.error;
                  r.error_offset = sr.error_offset;
                  break;
                }
            }
          cp_xplane_apply_stat (plane, &ev->es, &sv, pack, TRUE, &ctx->unknown_stat_ids);
          p += v;
        }
    }
  while (!ev->fast && cp_pb_reader_next (&r, &f))
    {
      XStatVal sv;

      if (f.number != XEVENT_STATS)
        continue;
      if (!cp_xplane_parse_xstat (&r, &f, &sv))
        break;
      cp_xplane_apply_stat (plane, &ev->es, &sv, pack, TRUE, &ctx->unknown_stat_ids);
    }
  if (r.error != CP_PB_OK)
    {
      ctx->skipped++;
      cp_xplane_out_note_error (ctx, r.error, r.error_offset);
      cp_xplane_out_warn (ctx, r.error_offset, _("Skipped a damaged event at byte %" PRIu64 ": %s"),
                          r.error_offset, cp_pb_error_to_string (r.error));
      return FALSE;
    }
  ev->init.args = shared_args (ctx, pack);
  return TRUE;
}

/* An event of a counters line: a counter's value. */
static void
event_add_counter (EvRead *ev)
{
  Space *space = ev->space;
  CpXPlaneReader *reader = ev->reader;
  guint clane;

  if (!ev->es.has_number)
    {
      ev->ctx->skipped++;
      return;
    }
  g_rec_mutex_lock (&space->lock);
  clane = cp_trace_builder_lane (reader->builder, cp_xplane_plane_process (ev->plane), CP_LANE_COUNTER,
                                 (CpLaneKey) { 0, ev->name });
  cp_trace_builder_add_counter (reader->builder, clane, ev->start, ev->es.number);
  g_rec_mutex_unlock (&space->lock);
}

/* A copy or memset on a GPU: its kind, bytes and lane. */
static void
event_copy (EvRead    *ev,
            CpGpuInfo *gpu,
            gboolean   is_memset)
{
  EvStats *es = &ev->es;
  EventMeta *meta = ev->meta;
  CopyInfo scratch;
  const CopyInfo *ci = event_copy_info (es, &scratch);
  CpTransferKind kind = CP_TRANSFER_NONE;

  if (is_memset)
    kind = CP_TRANSFER_MEMSET;
  else if (meta != NULL && meta->name_transfer != CP_TRANSFER_NONE)
    kind = meta->name_transfer;
  else if (ci != NULL)
    kind = ci->kind;
  if (kind == CP_TRANSFER_NONE)
    kind = CP_TRANSFER_OTHER;
  if (ci != NULL)
    {
      gpu->bytes = ci->bytes;
      ev->init.flags |= ci->flags;
    }
  ev->lane = transfer_lane (ev->plane, kind);
  ev->sink = ev->plane->transfer_sinks[kind];
  ev->init.cat = is_memset ? ev->reader->cat_memset : ev->reader->cat_memcpy;
}

/* A kernel: its launch shape and occupancy. */
static void
event_kernel_shape (EvRead    *ev,
                    CpGpuInfo *gpu)
{
  EvStats *es = &ev->es;
  Plane *plane = ev->plane;
  KernelInfo scratch;
  const KernelInfo *ki = event_kernel_info (es, &scratch);

  ev->init.cat = ev->reader->cat_kernel;
  if (ki != NULL)
    {
      memcpy (gpu->grid, ki->grid, sizeof gpu->grid);
      memcpy (gpu->block, ki->block, sizeof gpu->block);
      gpu->registers = ki->registers;
      gpu->shared_mem = ki->shared_mem;
      gpu->occupancy = ki->occupancy;
      if (plane->core_count > 0 && ki->grid[0] > 0 && ki->grid[1] > 0 && ki->grid[2] > 0)
        {
          double blocks = (double) ki->grid[0] * ki->grid[1] * ki->grid[2];

          gpu->blocks_per_sm = (float) (blocks / plane->core_count);
          if (ki->block[0] > 0 && ki->block[1] > 0 && ki->block[2] > 0)
            {
              double threads = (double) ki->block[0] * ki->block[1] * ki->block[2];
              int warp = plane->warp_size > 0 ? plane->warp_size : 32;

              gpu->warps_per_sm = (float) (blocks * ceil (threads / warp) / plane->core_count);
            }
        }
    }
  if (isnan (gpu->occupancy) && HAS (es, SK_THEORETICAL_OCC))
    gpu->occupancy = (float) es->occupancy;
}

/* An event of a kernel line: its device record in *gpu, or, when the line
 * made the same record lately, that record's id in ev->init. Returns
 * whether *gpu is to be shared; *gce is then the cache entry to remember it
 * in, or NULL. */
static gboolean
event_device (EvRead         *ev,
              CpGpuInfo      *gpu,
              GpuCacheEntry  *gpu_key,
              GpuCacheEntry **gce)
{
  EvStats *es = &ev->es;
  EventMeta *meta = ev->meta;
  Plane *plane = ev->plane;
  Line *line = ev->line;
  gboolean is_memset = HAS (es, SK_MEMSET_DETAILS) || (meta != NULL && meta->name_is_memset);
  gboolean is_memcpy = !is_memset && (HAS (es, SK_MEMCPY_DETAILS) ||
                                      (meta != NULL && meta->name_is_memcpy));

  if (!(plane->klass == PLANE_GPU && (is_memcpy || is_memset)) &&
      (!HAS (es, SK_KERNEL_DETAILS) || es->kernel_ref != NULL))
    {
      /* A kernel whose record depends only on the key: seen lately? */
      guint64 h;

      gpu_key->ref = HAS (es, SK_KERNEL_DETAILS) ? es->kernel_ref : NULL;
      gpu_key->has = es->has & GPU_CACHE_KINDS;
      gpu_key->id = 0;
      gpu_key->flops = HAS (es, SK_FLOPS) ? es->v[SK_FLOPS] : 0;
      gpu_key->bytes_accessed = HAS (es, SK_BYTES_ACCESSED) ? es->v[SK_BYTES_ACCESSED] : 0;
      gpu_key->occupancy = HAS (es, SK_THEORETICAL_OCC) ? es->occupancy : 0;
      h = ((guint64) (guintptr) gpu_key->ref >> 4) ^ (guint64) gpu_key->flops * 0x9E3779B97F4A7C15ull ^
          (guint64) gpu_key->bytes_accessed * 0xC2B2AE3D27D4EB4Full;
      *gce = &line->gpu_cache[(h ^ (h >> 29)) % GPU_CACHE_SIZE];
      if ((*gce)->id != 0 && (*gce)->ref == gpu_key->ref && (*gce)->has == gpu_key->has &&
          (*gce)->flops == gpu_key->flops && (*gce)->bytes_accessed == gpu_key->bytes_accessed &&
          memcmp (&(*gce)->occupancy, &gpu_key->occupancy, sizeof (double)) == 0)
        {
          ev->init.cat = ev->reader->cat_kernel;
          ev->init.gpu_id = (*gce)->id;
          *gce = NULL;
          return FALSE;
        }
    }

  gpu_info_init (gpu);
  gpu->device = plane->ordinal;
  gpu->stream = (gint32) CLAMP (line->display_id != 0 ? line->display_id : line->id,
                                G_MININT32, G_MAXINT32);
  if (HAS (es, SK_FLOPS))
    gpu->flops = es->v[SK_FLOPS];
  if (HAS (es, SK_BYTES_ACCESSED))
    gpu->bytes_accessed = es->v[SK_BYTES_ACCESSED];

  if (plane->klass == PLANE_GPU && (is_memcpy || is_memset))
    event_copy (ev, gpu, is_memset);
  else
    event_kernel_shape (ev, gpu);
  return TRUE;
}

/* The event's flow ends: correlation, producer and consumer, generic flows. */
static void
event_add_flows (EvRead   *ev,
                 gboolean  device_side)
{
  Ctx *ctx = ev->ctx;
  Plane *plane = ev->plane;
  Line *line = ev->line;
  Space *space = ev->space;
  EvStats *es = &ev->es;
  CpSliceRef ref = ev->ref;
  gint64 start = ev->start;

  if (HAS (es, SK_CORRELATION_ID) && es->v[SK_CORRELATION_ID] != CP_NONE)
    {
      if (device_side)
        cp_xplane_link_point (ctx, &line->link, &line->link_lane, ref.lane, ev->sink, FALSE, plane->ordinal);
      else if (line->klass == LINE_HOST)
        {
          gint32 device = -1;

          if (HAS (es, SK_DEVICE_ID))
            {
              for (guint i = 0; i < space->gpu_planes->len; i++)
                if (g_array_index (space->gpu_planes, gint64, i) == es->v[SK_DEVICE_ID])
                  device = (gint32) es->v[SK_DEVICE_ID] + space->device_offset;
            }
          cp_xplane_link_point (ctx, &line->link, &line->link_lane, ref.lane, ev->sink, TRUE, device);
        }
    }
  if (HAS (es, SK_P))
    {
      PcPoint p = { HAS (es, SK_PT) ? es->v[SK_PT] : 0, es->v[SK_P], start, ref };

      g_array_append_val (out_array (&cp_xplane_ctx_out (ctx)->producers, sizeof (PcPoint)), p);
    }
  if (HAS (es, SK_C))
    {
      PcPoint p = { HAS (es, SK_CT) ? es->v[SK_CT] : 0, es->v[SK_C], start, ref };

      g_array_append_val (out_array (&cp_xplane_ctx_out (ctx)->consumers, sizeof (PcPoint)), p);
    }
  if (HAS (es, SK_FLOW))
    {
      guint64 bits = (guint64) es->v[SK_FLOW];
      guint dir = bits & 3;
      FlowPoint fp;

      if (dir != 0)
        {
          fp.key = bits >> 2;
          fp.order = dir == 2 ? 0 : dir == 3 ? 1 : 2;
          fp.start = start;
          fp.ref = ref;
          fp.category = (guint8) (bits >> 58);
          g_array_append_val (out_array (&cp_xplane_ctx_out (ctx)->flow_points, sizeof (FlowPoint)), fp);
        }
    }
}

/* Steps (the device whose steps count is chosen when lines are merged). */
static void
event_add_steps (EvRead *ev)
{
  Ctx *ctx = ev->ctx;
  Line *line = ev->line;
  EvStats *es = &ev->es;

  if (line->is_steps)
    {
      gint64 number = 0;
      gboolean ok = FALSE;

      LineOut *out = cp_xplane_ctx_out (ctx);

      out->steps_ordinal = ev->plane->ordinal;
      if (HAS (es, SK_STEP_NUM))
        number = es->v[SK_STEP_NUM], ok = TRUE;
      else if (HAS (es, SK_GROUP_ID))
        number = es->v[SK_GROUP_ID], ok = TRUE;
      else
        {
          g_autofree char *s = NULL;

          g_rec_mutex_lock (&ev->space->lock);
          s = g_strdup (cp_trace_builder_get_string (ev->reader->builder, ev->name));
          g_rec_mutex_unlock (&ev->space->lock);
          number = cp_xplane_parse_int (s, s + strlen (s), &ok);
        }
      add_step_candidate (out_array (&out->device_steps, sizeof (StepCand)), ok ? number : 0, !ok,
                          ev->start, ev->end, ev->ref);
    }
  else if (HAS (es, SK_R) && line->klass == LINE_HOST)
    {
      gboolean by_position = !HAS (es, SK_STEP_NUM) && !HAS (es, SK_ITER_NUM) &&
                             !HAS (es, SK_GROUP_ID);
      gint64 number = HAS (es, SK_STEP_NUM) ? es->v[SK_STEP_NUM]
                    : HAS (es, SK_ITER_NUM) ? es->v[SK_ITER_NUM]
                    : HAS (es, SK_GROUP_ID) ? es->v[SK_GROUP_ID]
                    : 0;

      add_step_candidate (out_array (&cp_xplane_ctx_out (ctx)->root_steps, sizeof (StepCand)), number, by_position,
                          ev->start, ev->end, ev->ref);
    }
}

/* The span of the event's group. */
static void
event_add_group (EvRead *ev)
{
  gint64 g = ev->es.v[SK_GROUP_ID];
  LineOut *out = cp_xplane_ctx_out (ev->ctx);
  StepCand *c;

  if (out->group_spans == NULL)
    out->group_spans = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  if (out->have_group && out->last_group == g)
    c = out->last_group_span;
  else
    c = g_hash_table_lookup (out->group_spans, &g);

  if (c == NULL)
    {
      c = g_new0 (StepCand, 1);
      c->number = g;
      c->start = ev->start;
      c->end = ev->end;
      c->marker = CP_SLICE_REF_NONE;
      g_hash_table_insert (out->group_spans, &c->number, c);
    }
  else
    {
      c->start = MIN (c->start, ev->start);
      c->end = MAX (c->end, ev->end);
    }
  out->have_group = TRUE;
  out->last_group = g;
  out->last_group_span = c;
}

/* One XEvent. */
void
cp_xplane_read_event (Ctx          *ctx,
                      Plane        *plane,
                      Line         *line,
                      const guint8 *data,
                      gsize         len,
                      guint64       ev_offset)
{
  EvRead ev;
  CpGpuInfo gpu;
  gboolean with_gpu = FALSE;
  gboolean device_side;
  GpuCacheEntry gpu_key, *gce = NULL;

  ev.ctx = ctx;
  ev.plane = plane;
  ev.line = line;
  ev.space = plane->space;
  ev.reader = ev.space->reader;
  ev.data = data;
  ev.len = len;
  ev.metadata_id = 0;
  ev.offset_ps = 0;
  ev.duration_ps = 0;
  ev.has_stats = FALSE;
  ev.first_stats = NULL;
  ev.sink = NULL;
  if (!event_read_fields (&ev, ev_offset))
    return;
  event_read_meta (&ev);

  cp_slice_init_clear (&ev.init);
  ctx->pack.len = 0;
  if (ev.has_stats)
    {
      if (!event_read_stats (&ev))
        return;
    }
  else if (ev.meta != NULL)
    ev.init.args = ev.meta->args_id;

  if (HAS (&ev.es, SK_STEP_NAME))
    ev.name = ev.es.step_name;

  ev.start = sat_add (line->base, ps_to_ns_floor (ev.offset_ps));
  ev.end = sat_add (line->base, ps_to_ns_floor (sat_add (ev.offset_ps, ev.duration_ps)));
  ctx->any_event = TRUE;

  if (line->klass == LINE_COUNTERS)
    {
      event_add_counter (&ev);
      return;
    }

  ev.lane = G_MAXUINT;
  ev.init.start = ev.start;
  ev.init.dur = ev.end - ev.start;
  ev.init.name = ev.name;
  ev.init.corr = HAS (&ev.es, SK_CORRELATION_ID) ? ev.es.v[SK_CORRELATION_ID] : CP_NONE;
  ev.init.ext = HAS (&ev.es, SK_GROUP_ID) ? ev.es.v[SK_GROUP_ID] : CP_NONE;
  device_side = line->klass == LINE_KERNEL;

  switch (line->klass)
    {
    case LINE_HOST:
      ev.init.cat = HAS (&ev.es, SK_CORRELATION_ID) ? ev.reader->cat_runtime : ev.reader->cat_cpu_op;
      break;
    case LINE_KERNEL:
      with_gpu = event_device (&ev, &gpu, &gpu_key, &gce);
      break;
    case LINE_ANNOTATION:
    case LINE_COUNTERS:
    default:
      ev.init.cat = ev.reader->cat_annotation;
      break;
    }

  if (ev.lane == G_MAXUINT)
    {
      ev.lane = line_lane (ctx, plane, line);
      ev.sink = line->sink;
    }
  if (ev.lane == G_MAXUINT)
    {
      ctx->skipped++;
      return;
    }
  if (with_gpu)
    {
      ev.init.gpu_id = shared_gpu_info (ctx, &gpu);
      if (gce != NULL && ev.init.gpu_id != 0)
        {
          *gce = gpu_key;
          gce->id = ev.init.gpu_id;
        }
    }
  ev.ref = cp_lane_sink_add_slice (ev.sink, ev.lane, &ev.init, &ctx->sink);
  if (ev.ref.lane == G_MAXUINT32)
    return;

  event_add_flows (&ev, device_side);
  event_add_steps (&ev);
  if (HAS (&ev.es, SK_GROUP_ID))
    event_add_group (&ev);
}

LineClass
cp_xplane_classify_line (Plane *plane,
                         Line  *line)
{
  if (bytes_equal (line->name, line->name_len, "_counters_"))
    return LINE_COUNTERS;
  switch (plane->klass)
    {
    case PLANE_HOST:
    case PLANE_OTHER_HOST:
      return LINE_HOST;
    case PLANE_GPU:
      if (line->id >= DERIVED_LINE_ID || cp_xplane_is_ml_line_name (line->name, line->name_len) ||
          bytes_equal (line->name, line->name_len, "CUPTI overhead"))
        return LINE_ANNOTATION;
      return LINE_KERNEL;
    case PLANE_TPU:
    case PLANE_CUSTOM:
      return cp_xplane_is_op_line_name (line->name, line->name_len) ? LINE_KERNEL : LINE_ANNOTATION;
    case PLANE_OTHER:
    case PLANE_BOOKKEEPING:
    default:
      return LINE_ANNOTATION;
    }
}
