/* cp-xplane-stats.c: XStats: kinds, values, packed records, details strings
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
/* Stats                                                                     */

static const struct
{
  const char *name;
  StatKind    kind;
} stat_names[] = {
  { "correlation_id", SK_CORRELATION_ID },
  { "device_id", SK_DEVICE_ID },
  { "group_id", SK_GROUP_ID },
  { "step_num", SK_STEP_NUM },
  { "iter_num", SK_ITER_NUM },
  { "flow", SK_FLOW },
  { "_p", SK_P },
  { "_c", SK_C },
  { "_pt", SK_PT },
  { "_ct", SK_CT },
  { "_r", SK_R },
  { "flops", SK_FLOPS },
  { "bytes_accessed", SK_BYTES_ACCESSED },
  { "step_name", SK_STEP_NAME },
  { "kernel_details", SK_KERNEL_DETAILS },
  { "memcpy_details", SK_MEMCPY_DETAILS },
  { "Memset_details", SK_MEMSET_DETAILS },
  { "memset_details", SK_MEMSET_DETAILS },
  { "theoretical_occupancy_pct", SK_THEORETICAL_OCC },
  { "gpu_device_name", SK_GPU_DEVICE_NAME },
  { "device_type_string", SK_DEVICE_TYPE_STRING },
  { "device_vendor", SK_DEVICE_VENDOR },
  { "core_count", SK_CORE_COUNT },
  { "memory_size", SK_MEMORY_SIZE },
  { "compute_cap_major", SK_CC_MAJOR },
  { "compute_cap_minor", SK_CC_MINOR },
  { "peak_teraflops_per_second", SK_PEAK_TFLOPS },
  { "memory_bandwidth", SK_MEMORY_BANDWIDTH },
  { "peak_hbm_bw_gigabytes_per_second", SK_PEAK_HBM_BW },
  { "clock_rate", SK_CLOCK_RATE },
  { "Hlo Proto", SK_HLO_PROTO },
  { "profile_start_time", SK_PROFILE_START },
};

static GHashTable *
stat_name_table (void)
{
  static GHashTable *table;

  if (g_once_init_enter (&table))
    {
      GHashTable *t = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < G_N_ELEMENTS (stat_names); i++)
        g_hash_table_insert (t, (gpointer) stat_names[i].name, GINT_TO_POINTER (stat_names[i].kind));
      g_once_init_leave (&table, t);
    }
  return table;
}

StatKind
cp_xplane_stat_kind_for (const guint8 *name,
                         gsize         len)
{
  char buf[64];

  if (len == 0 || len >= sizeof buf)
    return SK_NONE;
  memcpy (buf, name, len);
  buf[len] = '\0';
  return (StatKind) GPOINTER_TO_INT (g_hash_table_lookup (stat_name_table (), buf));
}

void
cp_xplane_parse_xstat_reader (CpPbReader *rp,
                              XStatVal   *sv)
{
  CpPbReader r = *rp;
  CpPbField f;

  memset (sv, 0, sizeof *sv);
  while (cp_pb_reader_next (&r, &f))
    {
      switch (f.number)
        {
        case XSTAT_METADATA_ID:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            sv->metadata_id = cp_pb_int64 (f.value);
          break;
        case XSTAT_DOUBLE:
          if (f.wire_type == CP_PB_WIRE_FIXED64)
            {
              sv->type = XSTAT_DOUBLE;
              sv->d = cp_pb_double (f.value);
            }
          break;
        case XSTAT_UINT64:
        case XSTAT_INT64:
        case XSTAT_REF:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            {
              sv->type = f.number;
              sv->u = f.value;
            }
          break;
        case XSTAT_STR:
        case XSTAT_BYTES:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              sv->type = f.number;
              sv->s = f.data;
              sv->slen = f.len;
            }
          break;
        default:
          break;
        }
    }
  rp->error = r.error;
  rp->error_offset = r.error_offset;
}

gboolean
cp_xplane_parse_xstat (CpPbReader      *parent,
                       const CpPbField *field,
                       XStatVal        *sv)
{
  CpPbReader r;

  memset (sv, 0, sizeof *sv);
  if (field->wire_type != CP_PB_WIRE_LEN || !cp_pb_reader_init_sub (&r, parent, field))
    return FALSE;
  cp_xplane_parse_xstat_reader (&r, sv);
  if (r.error != CP_PB_OK)
    {
      parent->error = r.error;
      parent->error_offset = r.error_offset;
      return FALSE;
    }
  return TRUE;
}

gboolean
cp_xplane_parse_xstat_span (Space      *space,
                            const Span *span,
                            XStatVal   *sv)
{
  CpPbReader r;

  reader_at (space, &r, span->data, span->len);
  cp_xplane_parse_xstat_reader (&r, sv);
  return r.error == CP_PB_OK;
}

/* The one place where int64, uint64 and double stats become an integer. */
gboolean
cp_xplane_stat_as_int (const XStatVal *sv,
                       gint64         *out)
{
  switch (sv->type)
    {
    case XSTAT_INT64:
      *out = (gint64) sv->u;
      return TRUE;
    case XSTAT_UINT64:
    case XSTAT_REF:
      *out = sv->u > (guint64) G_MAXINT64 ? G_MAXINT64 : (gint64) sv->u;
      return sv->type == XSTAT_UINT64;
    case XSTAT_DOUBLE:
      if (!isfinite (sv->d))
        return FALSE;
      *out = sv->d >= 9.2e18 ? G_MAXINT64 : sv->d <= -9.2e18 ? G_MININT64 : (gint64) sv->d;
      return TRUE;
    default:
      return FALSE;
    }
}

StatMeta *
cp_xplane_plane_stat (Plane  *plane,
                      gint64  id)
{
  gint i = idmap_lookup (&plane->stat_ids, id);

  return i < 0 ? NULL : &g_array_index (plane->stat_meta, StatMeta, i);
}

/* Notes a correlation point: the slice just added to lane, whose
 * correlation id is the last value of the lane's column. */
/* A launch (host) or activity (device) point: slice index of the lane's
 * latest correlation id. The lane's LinkLane is the task's (lanes are filled
 * by one task). */
void
cp_xplane_link_point (Ctx        *ctx,
                      LinkLane  **cache,
                      guint      *cache_lane,
                      guint       lane,
                      CpLaneSink *sink,
                      gboolean    host,
                      gint32      device)
{
  LinkLane *ll;

  if (*cache != NULL && *cache_lane == lane)
    ll = *cache;
  else
    {
      ll = g_hash_table_lookup (ctx->links, GUINT_TO_POINTER (lane + 1));
      if (ll == NULL)
        {
          guint n_values = cp_lane_sink_get_n_corr (sink);

          g_return_if_fail (n_values > 0);
          ll = g_new0 (LinkLane, 1);
          ll->lane = lane;
          ll->host = host;
          ll->device = device;
          ll->from = n_values - 1;
          ll->seq = ctx->line_seq;
          ll->sub = ctx->link_sub++;
          g_hash_table_insert (ctx->links, GUINT_TO_POINTER (lane + 1), ll);
        }
      *cache = ll;
      *cache_lane = lane;
    }
  if (G_UNLIKELY (device != ll->device && ll->devices == NULL))
    {
      ll->devices = g_array_sized_new (FALSE, FALSE, sizeof (gint32), ll->n + 1);
      for (guint k = 0; k < ll->n; k++)
        g_array_append_val (ll->devices, ll->device);
    }
  if (ll->devices != NULL)
    g_array_append_val (ll->devices, device);
  ll->n++;
}

void
cp_xplane_dedup_insert (Dedup   *d,
                        gsize    slot,
                        guint64  h,
                        guint32  id)
{
  d->hashes[slot] = h;
  d->ids[slot] = id;
  d->n++;
  if (d->n * 2 > d->mask)
    {
      gsize mask = d->mask * 2 + 1;
      guint64 *hashes = g_new0 (guint64, mask + 1);
      guint32 *ids = g_new0 (guint32, mask + 1);

      for (gsize i = 0; i <= d->mask; i++)
        if (d->ids[i] != 0)
          {
            gsize s = d->hashes[i] & mask;

            while (ids[s] != 0)
              s = (s + 1) & mask;
            hashes[s] = d->hashes[i];
            ids[s] = d->ids[i];
          }
      g_free (d->hashes);
      g_free (d->ids);
      d->hashes = hashes;
      d->ids = ids;
      d->mask = mask;
    }
}

gboolean
cp_xplane_args_equal (gpointer      data,
                      guint32       id,
                      gconstpointer key,
                      gsize         len)
{
  const guint8 *stored;
  gsize stored_len;

  return cp_trace_builder_get_args (data, id, &stored, &stored_len) && stored_len == len &&
         memcmp (stored, key, len) == 0;
}

gboolean
cp_xplane_gpu_equal (gpointer      data,
                     guint32       id,
                     gconstpointer key,
                     gsize         len)
{
  GArray *copies = data;

  return id <= copies->len && memcmp (&g_array_index (copies, CpGpuInfo, id - 1), key, len) == 0;
}

static inline void
pack_raw8 (Pack       *pack,
           const void *data)
{
  pack_reserve (pack, 8);
  memcpy (pack->data + pack->len, data, 8);
  pack->len += 8;
}

/* Interns a string from a reading thread. */
static CpStr
space_intern (Space      *space,
              const char *s,
              gssize      len)
{
  CpStr id;

  g_rec_mutex_lock (&space->lock);
  id = cp_trace_builder_intern (space->reader->builder, s, len);
  g_rec_mutex_unlock (&space->lock);
  return id;
}

static void
pack_entry (Space          *space,
            Pack           *buf,
            CpStr           key,
            Plane          *plane,
            const XStatVal *sv)
{
  guint8 type;

  pack_varint (buf, key);
  switch (sv->type)
    {
    case XSTAT_INT64:
      type = CP_XSTAT_INT64;
      pack_byte (buf, type);
      pack_varint (buf, ((guint64) sv->u << 1) ^ (guint64) ((gint64) sv->u >> 63));
      break;
    case XSTAT_UINT64:
      type = CP_XSTAT_UINT64;
      pack_byte (buf, type);
      pack_varint (buf, sv->u);
      break;
    case XSTAT_DOUBLE:
      {
        guint64 bits;

        type = CP_XSTAT_DOUBLE;
        pack_byte (buf, type);
        memcpy (&bits, &sv->d, 8);
        bits = GUINT64_TO_LE (bits);
        pack_raw8 (buf, &bits);
      }
      break;
    case XSTAT_STR:
      type = CP_XSTAT_STRING;
      pack_byte (buf, type);
      pack_varint (buf, space_intern (space, (const char *) sv->s, (gssize) sv->slen));
      break;
    case XSTAT_REF:
      {
        StatMeta *m = cp_xplane_plane_stat (plane, (gint64) sv->u);

        type = CP_XSTAT_STRING;
        pack_byte (buf, type);
        pack_varint (buf, m != NULL ? m->name : CP_STR_EMPTY);
      }
      break;
    case XSTAT_BYTES:
      type = CP_XSTAT_BYTES;
      pack_byte (buf, type);
      pack_varint (buf, sv->slen);
      break;
    default:
      /* A stat with no value: an empty string. */
      type = CP_XSTAT_STRING;
      pack_byte (buf, type);
      pack_varint (buf, CP_STR_EMPTY);
      break;
    }
}

/* Producer/consumer types and ids and the root mark: the reader turns them
 * into flows and steps, and, as XProf does, does not show them as stats
 * (each event's own ids would also make every record distinct). */
static inline gboolean
is_internal_stat (StatKind kind)
{
  return kind == SK_P || kind == SK_C || kind == SK_PT || kind == SK_CT || kind == SK_R;
}

/* Applies one stat to es and, when pack is not NULL, appends it. */
void
cp_xplane_apply_stat (Plane          *plane,
                      EvStats        *es,
                      const XStatVal *sv,
                      Pack           *pack,
                      gboolean        event_level,
                      guint64        *unknown_stat_ids)
{
  StatMeta *m = cp_xplane_plane_stat (plane, sv->metadata_id);
  gint64 iv;

  if (m == NULL)
    {
      (*unknown_stat_ids)++;
      return;
    }
  /* An event's correlation_id and group_id live in the corr and ext columns
   * (cp_xstats_decode_slice() shows them again): leaving them out of the
   * record lets events share records. */
  if (pack != NULL && !is_internal_stat (m->kind) &&
      !(event_level && (m->kind == SK_CORRELATION_ID || m->kind == SK_GROUP_ID) &&
        (sv->type == XSTAT_INT64 || (sv->type == XSTAT_UINT64 && sv->u <= (guint64) G_MAXINT64))))
    pack_entry (plane->space, pack, m->name, plane, sv);

  if (!es->has_number && sv->type != XSTAT_STR && sv->type != XSTAT_BYTES &&
      sv->type != XSTAT_REF && sv->type != 0)
    es->has_number = stat_as_double (sv, &es->number);

  switch (m->kind)
    {
    case SK_NONE:
      break;
    case SK_CORRELATION_ID:
    case SK_DEVICE_ID:
    case SK_GROUP_ID:
    case SK_STEP_NUM:
    case SK_ITER_NUM:
    case SK_FLOW:
    case SK_P:
    case SK_C:
    case SK_PT:
    case SK_CT:
    case SK_R:
    case SK_FLOPS:
    case SK_BYTES_ACCESSED:
      if (cp_xplane_stat_as_int (sv, &iv))
        {
          es->v[m->kind] = iv;
          es->has |= 1u << m->kind;
        }
      break;
    case SK_STEP_NAME:
      {
        const guint8 *s;
        gsize len;
        StatMeta *ref;

        if (stat_string (plane, sv, &s, &len, &ref))
          {
            es->step_name = ref != NULL ? ref->name
                                        : space_intern (plane->space, (const char *) s, (gssize) len);
            es->has |= 1u << SK_STEP_NAME;
          }
      }
      break;
    case SK_KERNEL_DETAILS:
      if (stat_string (plane, sv, &es->kernel_details, (gsize *) &iv, &es->kernel_ref))
        {
          es->kernel_details_len = (guint32) MIN ((gsize) iv, G_MAXUINT32);
          es->has |= 1u << SK_KERNEL_DETAILS;
        }
      break;
    case SK_MEMCPY_DETAILS:
    case SK_MEMSET_DETAILS:
      if (stat_string (plane, sv, &es->copy_details, (gsize *) &iv, &es->copy_ref))
        {
          es->copy_details_len = (guint32) MIN ((gsize) iv, G_MAXUINT32);
          es->copy_is_memset = m->kind == SK_MEMSET_DETAILS;
          es->has |= 1u << m->kind;
        }
      break;
    case SK_THEORETICAL_OCC:
      {
        double d;

        if (stat_as_double (sv, &d) && isfinite (d))
          {
            es->occupancy = d;
            es->has |= 1u << SK_THEORETICAL_OCC;
          }
      }
      break;
    default:
      break;
    }
}

/* ------------------------------------------------------------------------ */
/* Details strings                                                           */

gint64
cp_xplane_parse_int (const char *s,
                     const char *end,
                     gboolean   *ok)
{
  gint64 v = 0;
  gboolean neg = FALSE, digits = FALSE;

  if (s < end && (*s == '-' || *s == '+'))
    {
      neg = *s == '-';
      s++;
    }
  while (s < end && g_ascii_isdigit (*s))
    {
      if (v <= (G_MAXINT64 - 9) / 10)
        v = v * 10 + (*s - '0');
      digits = TRUE;
      s++;
    }
  *ok = digits;
  return neg ? -v : v;
}

gint32
cp_xplane_clamp_i32 (gint64 v)
{
  return v < 0 || v > G_MAXINT32 ? -1 : (gint32) v;
}

static void
parse_triple (const char *s,
              const char *end,
              gint32      out[3])
{
  for (guint k = 0; k < 3; k++)
    {
      const char *comma = memchr (s, ',', end - s);
      const char *stop = comma != NULL ? comma : end;
      gboolean ok;
      gint64 v = cp_xplane_parse_int (s, stop, &ok);

      out[k] = ok ? cp_xplane_clamp_i32 (v) : -1;
      if (comma == NULL)
        break;
      s = comma + 1;
    }
}

/* Calls fn for each whitespace-separated "key:value" token. */
typedef void (*TokenFunc) (const char *key,
                           gsize       key_len,
                           const char *value,
                           const char *value_end,
                           gpointer    data);

static void
for_each_token (const guint8 *text,
                gsize         len,
                TokenFunc     fn,
                gpointer      data)
{
  const char *p = (const char *) text, *end = p + len;

  while (p < end)
    {
      const char *tok, *colon;

      while (p < end && g_ascii_isspace (*p))
        p++;
      tok = p;
      while (p < end && !g_ascii_isspace (*p))
        p++;
      colon = memchr (tok, ':', p - tok);
      if (colon != NULL)
        fn (tok, colon - tok, colon + 1, p, data);
    }
}

static void
kernel_token (const char *key,
              gsize       key_len,
              const char *value,
              const char *value_end,
              gpointer    data)
{
  KernelInfo *k = data;
  gboolean ok;
  gint64 v;

#define KEY_IS(s) (key_len == strlen (s) && memcmp (key, s, key_len) == 0)
  if (KEY_IS ("grid"))
    parse_triple (value, value_end, k->grid);
  else if (KEY_IS ("block"))
    parse_triple (value, value_end, k->block);
  else if (KEY_IS ("regs"))
    {
      v = cp_xplane_parse_int (value, value_end, &ok);
      k->registers = ok ? cp_xplane_clamp_i32 (v) : -1;
    }
  else if (KEY_IS ("static_shared") || KEY_IS ("dynamic_shared") || KEY_IS ("group_mem"))
    {
      v = cp_xplane_parse_int (value, value_end, &ok);
      if (ok && v >= 0)
        k->shared_mem = cp_xplane_clamp_i32 ((k->shared_mem < 0 ? 0 : k->shared_mem) + v);
    }
  else if (KEY_IS ("occ_pct"))
    {
      g_autofree char *s = g_strndup (value, value_end - value);
      char *e = NULL;
      double d = g_ascii_strtod (s, &e);

      if (e != s && isfinite (d))
        k->occupancy = (float) d;
    }
}

void
cp_xplane_parse_kernel_details (const guint8 *text,
                                gsize         len,
                                KernelInfo   *k)
{
  for (guint i = 0; i < 3; i++)
    k->grid[i] = k->block[i] = -1;
  k->registers = -1;
  k->shared_mem = -1;
  k->occupancy = NAN;
  for_each_token (text, len, kernel_token, k);
}

typedef struct
{
  CopyInfo    *info;
  const char  *src;
  gsize        src_len;
  const char  *dst;
  gsize        dst_len;
} CopyParse;

static void
copy_token (const char *key,
            gsize       key_len,
            const char *value,
            const char *value_end,
            gpointer    data)
{
  CopyParse *cp = data;
  gboolean ok;
  gint64 v;

  if (KEY_IS ("size") || KEY_IS ("num_bytes"))
    {
      v = cp_xplane_parse_int (value, value_end, &ok);
      if (ok && v >= 0)
        cp->info->bytes = v;
    }
  else if (KEY_IS ("kind_src"))
    {
      cp->src = value;
      cp->src_len = value_end - value;
    }
  else if (KEY_IS ("kind_dst"))
    {
      cp->dst = value;
      cp->dst_len = value_end - value;
    }
#undef KEY_IS
}

static int
memory_side (const char *s,
             gsize       len)
{
  /* 1 host, 2 device, 0 unknown */
  if (s == NULL)
    return 0;
  if (bytes_equal ((const guint8 *) s, len, "pageable") || bytes_equal ((const guint8 *) s, len, "pinned") ||
      bytes_equal ((const guint8 *) s, len, "host"))
    return 1;
  if (bytes_equal ((const guint8 *) s, len, "device") || bytes_equal ((const guint8 *) s, len, "array") ||
      bytes_equal ((const guint8 *) s, len, "device_static"))
    return 2;
  return 0;
}

void
cp_xplane_parse_copy_details (const guint8 *text,
                              gsize         len,
                              gboolean      memset_,
                              CopyInfo     *info)
{
  CopyParse cp = { info, NULL, 0, NULL, 0 };
  int src, dst;

  info->bytes = -1;
  info->kind = memset_ ? CP_TRANSFER_MEMSET : CP_TRANSFER_NONE;
  info->flags = 0;
  for_each_token (text, len, copy_token, &cp);
  if (memset_)
    return;

  src = memory_side (cp.src, cp.src_len);
  dst = memory_side (cp.dst, cp.dst_len);
  if (src == 1 && dst == 2)
    info->kind = CP_TRANSFER_HTOD;
  else if (src == 2 && dst == 1)
    info->kind = CP_TRANSFER_DTOH;
  else if (src == 2 && dst == 2)
    info->kind = CP_TRANSFER_DTOD;
  else if (src != 0 || dst != 0)
    info->kind = CP_TRANSFER_OTHER;
  if ((cp.src && bytes_equal ((const guint8 *) cp.src, cp.src_len, "pageable")) ||
      (cp.dst && bytes_equal ((const guint8 *) cp.dst, cp.dst_len, "pageable")))
    info->flags |= CP_SLICE_PAGEABLE;
  else if ((cp.src && bytes_equal ((const guint8 *) cp.src, cp.src_len, "pinned")) ||
           (cp.dst && bytes_equal ((const guint8 *) cp.dst, cp.dst_len, "pinned")))
    info->flags |= CP_SLICE_PINNED;
}

/* Direction from an event name: CUPTI's MemcpyH2D..., ROCm's
 * CopyHostToDevice..., Kineto-style HtoD. */
CpTransferKind
cp_xplane_transfer_from_name (const guint8 *name,
                              gsize         len)
{
  if (bytes_has_prefix (name, len, "Memset"))
    return CP_TRANSFER_MEMSET;
  if (bytes_contains (name, len, "H2D") || bytes_contains (name, len, "HtoD") ||
      bytes_contains (name, len, "HostToDevice"))
    return CP_TRANSFER_HTOD;
  if (bytes_contains (name, len, "D2H") || bytes_contains (name, len, "DtoH") ||
      bytes_contains (name, len, "DeviceToHost"))
    return CP_TRANSFER_DTOH;
  if (bytes_contains (name, len, "D2D") || bytes_contains (name, len, "DtoD") ||
      bytes_contains (name, len, "DeviceToDevice"))
    return CP_TRANSFER_DTOD;
  if (bytes_contains (name, len, "P2P") || bytes_contains (name, len, "PtoP") ||
      bytes_contains (name, len, "PeerToPeer"))
    return CP_TRANSFER_PTOP;
  if (bytes_contains (name, len, "H2H") || bytes_contains (name, len, "HtoH") ||
      bytes_contains (name, len, "HostToHost"))
    return CP_TRANSFER_OTHER;
  return CP_TRANSFER_NONE;
}

/* ------------------------------------------------------------------------ */
/* Decoding packed stats                                                     */

static gboolean
decode_into (CpTrace       *trace,
             const guint8  *data,
             gsize          len,
             GPtrArray     *out,
             GHashTable    *index,
             guint          depth,
             GError       **error)
{
  const guint8 *p = data, *end = data + len;
  CpPbError err = CP_PB_OK;

  if (depth > 4)
    {
      g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                           _("XPlane stats include each other too deeply"));
      return FALSE;
    }

  while (p < end)
    {
      guint64 key, v;
      guint8 type;
      char *value = NULL;

      if (!cp_pb_read_varint (&p, end, &key, &err) || p >= end)
        goto bad;
      type = *p++;
      switch (type)
        {
        case CP_XSTAT_INT64:
          if (!cp_pb_read_varint (&p, end, &v, &err))
            goto bad;
          value = g_strdup_printf ("%" G_GINT64_FORMAT, cp_pb_sint64 (v));
          break;
        case CP_XSTAT_UINT64:
          if (!cp_pb_read_varint (&p, end, &v, &err))
            goto bad;
          value = g_strdup_printf ("%" G_GUINT64_FORMAT, v);
          break;
        case CP_XSTAT_DOUBLE:
          {
            char buf[G_ASCII_DTOSTR_BUF_SIZE];

            if (end - p < 8)
              goto bad;
            g_ascii_dtostr (buf, sizeof buf, cp_pb_double (cp_pb_load_fixed64 (p)));
            p += 8;
            value = g_strdup (buf);
          }
          break;
        case CP_XSTAT_STRING:
          if (!cp_pb_read_varint (&p, end, &v, &err) || v > G_MAXUINT32)
            goto bad;
          value = g_strdup (cp_trace_get_string (trace, (CpStr) v));
          break;
        case CP_XSTAT_BYTES:
          if (!cp_pb_read_varint (&p, end, &v, &err))
            goto bad;
          value = g_strdup_printf (_("(%" PRIu64 " bytes)"), v);
          break;
        case CP_XSTAT_INCLUDE:
          {
            CpArgsFormat fmt;
            const guint8 *idata;
            gsize ilen;

            if (!cp_pb_read_varint (&p, end, &v, &err) || v > G_MAXUINT32)
              goto bad;
            if (!cp_trace_get_args_by_id (trace, (guint32) v, &fmt, &idata, &ilen) ||
                fmt != CP_ARGS_XSTATS)
              goto bad;
            if (!decode_into (trace, idata, ilen, out, index, depth + 1, error))
              return FALSE;
          }
          continue;
        default:
          goto bad;
        }

      {
        const char *k = cp_trace_get_string (trace, key > G_MAXUINT32 ? 0 : (CpStr) key);
        gpointer pos;

        if (g_hash_table_lookup_extended (index, k, NULL, &pos))
          {
            CpXStatEntry *e = g_ptr_array_index (out, GPOINTER_TO_UINT (pos));

            g_free (e->value);
            e->value = value;
          }
        else
          {
            CpXStatEntry *e = g_new (CpXStatEntry, 1);

            e->key = g_strdup (k);
            e->value = value;
            g_hash_table_insert (index, e->key, GUINT_TO_POINTER (out->len));
            g_ptr_array_add (out, e);
          }
      }
    }
  return TRUE;

bad:
  g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                       _("The stats of this event are malformed"));
  return FALSE;
}

static void
xstat_entry_free (gpointer data)
{
  CpXStatEntry *e = data;

  g_free (e->key);
  g_free (e->value);
  g_free (e);
}

GPtrArray *
cp_xstats_decode (CpTrace       *trace,
                  const guint8  *data,
                  gsize          len,
                  GError       **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (xstat_entry_free);
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (!decode_into (trace, data, len, out, index, 0, error))
    return NULL;
  return g_steal_pointer (&out);
}

static void
set_entry (GPtrArray  *out,
           const char *key,
           char       *value)
{
  for (guint i = 0; i < out->len; i++)
    {
      CpXStatEntry *e = g_ptr_array_index (out, i);

      if (g_str_equal (e->key, key))
        {
          g_free (e->value);
          e->value = value;
          return;
        }
    }
  {
    CpXStatEntry *e = g_new (CpXStatEntry, 1);

    e->key = g_strdup (key);
    e->value = value;
    g_ptr_array_add (out, e);
  }
}

GPtrArray *
cp_xstats_decode_slice (CpTrace     *trace,
                        CpSliceRef   ref,
                        GError     **error)
{
  g_autoptr(GPtrArray) out = NULL;
  CpArgsFormat format = CP_ARGS_NONE;
  const guint8 *data = NULL;
  gsize len = 0;
  const CpSlices *s;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);

  if (!cp_trace_slice_ref_valid (trace, ref))
    return g_ptr_array_new_with_free_func (xstat_entry_free);
  if (cp_trace_get_args (trace, ref, &format, &data, &len) && format == CP_ARGS_XSTATS)
    out = cp_xstats_decode (trace, data, len, error);
  else
    out = g_ptr_array_new_with_free_func (xstat_entry_free);
  if (out == NULL)
    return NULL;

  s = cp_lane_get_slices (cp_trace_get_lane (trace, ref.lane));
  if (cp_slices_get_corr (s, ref.index) != CP_NONE)
    set_entry (out, "correlation_id", g_strdup_printf ("%" G_GINT64_FORMAT, cp_slices_get_corr (s, ref.index)));
  if (cp_slices_get_ext (s, ref.index) != CP_NONE)
    set_entry (out, "group_id", g_strdup_printf ("%" G_GINT64_FORMAT, cp_slices_get_ext (s, ref.index)));
  return g_steal_pointer (&out);
}
