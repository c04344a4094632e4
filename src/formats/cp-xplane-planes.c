/* cp-xplane-planes.c: XPlanes: classes, metadata tables, devices
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "cp-protobuf.h"
#include "cp-xplane-private.h"

/* ------------------------------------------------------------------------ */
/* Planes                                                                    */

PlaneClass
cp_xplane_classify_plane (const char *name,
                          gint64      id,
                          gint       *ordinal,
                          gboolean   *sparse_core)
{
  const char *p;

  *ordinal = -1;
  *sparse_core = FALSE;

  if (g_str_equal (name, "/host:metadata") || g_str_equal (name, "Task Environment") ||
      g_str_equal (name, "/host:tfstreamz") ||
      g_str_has_prefix (name, "/host:__ScopeRangeCallStack__"))
    return PLANE_BOOKKEEPING;
  if (g_str_equal (name, "/host:CPU"))
    return PLANE_HOST;
  if (g_str_has_prefix (name, "/device:GPU:"))
    {
      gboolean ok;
      gint64 n;

      p = name + strlen ("/device:GPU:");
      n = cp_xplane_parse_int (p, p + strlen (p), &ok);
      *ordinal = ok && n >= 0 && n < 100000 ? (gint) n : (gint) CLAMP (id, 0, 100000);
      return PLANE_GPU;
    }
  if (g_str_has_prefix (name, "/device:TPU:"))
    {
      gboolean ok;
      gint64 n;
      const char *e;

      p = name + strlen ("/device:TPU:");
      e = p;
      while (g_ascii_isdigit (*e))
        e++;
      n = cp_xplane_parse_int (p, e, &ok);
      *ordinal = ok && n >= 0 && n < 100000 ? (gint) n : (gint) CLAMP (id, 0, 100000);
      *sparse_core = strstr (e, "SparseCore") != NULL;
      return PLANE_TPU;
    }
  if (g_str_has_prefix (name, "/device:CUSTOM:") || g_str_has_prefix (name, "/custom:") ||
      g_str_has_prefix (name, "/virtualdevice:") || g_str_has_prefix (name, "#Chip"))
    return PLANE_CUSTOM;
  if (g_str_has_prefix (name, "/host:") || g_str_equal (name, "Host CPUs") ||
      g_str_equal (name, "Syscalls"))
    return PLANE_OTHER_HOST;
  return PLANE_OTHER;
}

gboolean
cp_xplane_is_ml_line_name (const guint8 *name,
                           gsize         len)
{
  static const char *const names[] = {
    "Steps", "XLA Modules", "XLA Ops", "Async XLA Ops", "Framework Ops", "Framework Name Scope",
    "TensorFlow Ops", "TensorFlow Name Scope", "Launch Stats", "Source code", "Host Offload Ops",
    "Sparse Core Steps", "Sparse Core Modules", "Sparse Core Ops", "XLA TraceMe",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (bytes_has_prefix (name, len, names[i]))
      {
        gsize n = strlen (names[i]);

        /* "XLA Ops", or XProf's derived "XLA Ops - from #7". */
        if (len == n || bytes_has_prefix (name + n, len - n, " - "))
          return TRUE;
      }
  return FALSE;
}

gboolean
cp_xplane_is_op_line_name (const guint8 *name,
                           gsize         len)
{
  return bytes_equal (name, len, "XLA Ops") || bytes_equal (name, len, "Sparse Core Ops");
}

gboolean
cp_xplane_is_steps_line_name (const guint8 *name,
                              gsize         len)
{
  return bytes_equal (name, len, "Steps") || bytes_has_prefix (name, len, "Steps - from");
}

void
cp_xplane_plane_clear (Plane *plane)
{
  if (plane->stat_meta != NULL)
    {
      for (guint i = 0; i < plane->stat_meta->len; i++)
        {
          StatMeta *m = &g_array_index (plane->stat_meta, StatMeta, i);

          g_free (m->kernel);
          g_free (m->copy);
        }
      g_array_unref (plane->stat_meta);
    }
  if (plane->event_meta != NULL)
    g_array_unref (plane->event_meta);
  if (plane->lines != NULL)
    g_array_unref (plane->lines);
  if (plane->stats != NULL)
    g_array_unref (plane->stats);
  cp_xplane_idmap_clear (&plane->stat_ids);
  cp_xplane_idmap_clear (&plane->event_ids);
  g_free (plane->name);
}

/* An entry of the plane's stat metadata map. */
static void
plane_add_stat_meta (CpXPlaneReader *reader,
                     Plane          *plane,
                     CpPbReader     *r,
                     CpPbField      *f,
                     GArray         *stat_ids)
{
  guint64 key;
  CpPbField value, g;
  gboolean has_value;
  StatMeta m = { 0 };
  gint64 id;
  CpPbReader v;

  if (!cp_pb_read_map_entry (r, f, &key, &value, &has_value))
    return;
  id = cp_pb_int64 (key);
  if (has_value && value.wire_type == CP_PB_WIRE_LEN &&
      cp_pb_reader_init_sub (&v, r, &value))
    {
      while (cp_pb_reader_next (&v, &g))
        {
          if (g.number == XSTATMETA_NAME && g.wire_type == CP_PB_WIRE_LEN)
            {
              m.raw = g.data;
              m.raw_len = (guint32) MIN (g.len, G_MAXUINT32);
            }
          else if (g.number == XSTATMETA_ID && g.wire_type == CP_PB_WIRE_VARINT && id == 0)
            id = cp_pb_int64 (g.value);
        }
      if (v.error != CP_PB_OK)
        {
          r->error = v.error;
          r->error_offset = v.error_offset;
          return;
        }
    }
  if (m.raw == NULL)
    m.raw = (const guint8 *) "";
  m.name = cp_trace_builder_intern (reader->builder, (const char *) m.raw, m.raw_len);
  m.kind = cp_xplane_stat_kind_for (m.raw, m.raw_len);
  g_array_append_val (plane->stat_meta, m);
  g_array_append_val (stat_ids, id);
}

/* An entry of the plane's event metadata map. */
static void
plane_add_event_meta (CpXPlaneReader *reader,
                      Plane          *plane,
                      CpPbReader     *r,
                      CpPbField      *f,
                      GArray         *event_ids)
{
  guint64 key;
  CpPbField value, g;
  gboolean has_value;
  EventMeta m = { 0 };
  gint64 id;
  CpPbReader v;
  const guint8 *display = NULL;
  gsize display_len = 0;

  if (!cp_pb_read_map_entry (r, f, &key, &value, &has_value))
    return;
  id = cp_pb_int64 (key);
  m.raw = (const guint8 *) "";
  if (has_value && value.wire_type == CP_PB_WIRE_LEN &&
      cp_pb_reader_init_sub (&v, r, &value))
    {
      m.msg = value.data;
      m.msg_len = value.len;
      m.msg_offset = value.offset;
      while (cp_pb_reader_next (&v, &g))
        {
          if (g.number == XEVMETA_NAME && g.wire_type == CP_PB_WIRE_LEN)
            {
              m.raw = g.data;
              m.raw_len = (guint32) MIN (g.len, G_MAXUINT32);
            }
          else if (g.number == XEVMETA_DISPLAY_NAME && g.wire_type == CP_PB_WIRE_LEN)
            {
              display = g.data;
              display_len = g.len;
            }
          else if (g.number == XEVMETA_STATS)
            m.has_stats = TRUE;
          else if (g.number == XEVMETA_ID && g.wire_type == CP_PB_WIRE_VARINT && id == 0)
            id = cp_pb_int64 (g.value);
        }
      if (v.error != CP_PB_OK)
        {
          r->error = v.error;
          r->error_offset = v.error_offset;
          return;
        }
    }
  if (display != NULL && display_len > 0)
    {
      m.name = cp_trace_builder_intern (reader->builder, (const char *) display,
                                        (gssize) display_len);
      if (!bytes_equal (m.raw, m.raw_len, "") &&
          !(display_len == m.raw_len && memcmp (display, m.raw, display_len) == 0))
        m.long_name = cp_trace_builder_intern (reader->builder, (const char *) m.raw,
                                               MIN (m.raw_len, 10000));
    }
  else
    m.name = cp_trace_builder_intern (reader->builder, (const char *) m.raw, m.raw_len);
  m.name_transfer = cp_xplane_transfer_from_name (m.raw, m.raw_len);
  m.name_is_memset = bytes_has_prefix (m.raw, m.raw_len, "Memset");
  m.name_is_memcpy = bytes_has_prefix (m.raw, m.raw_len, "Memcpy") ||
                     (bytes_has_prefix (m.raw, m.raw_len, "Copy") &&
                      m.name_transfer != CP_TRANSFER_NONE);
  if (m.long_name != CP_STR_EMPTY)
    m.has_stats = TRUE;
  g_array_append_val (plane->event_meta, m);
  g_array_append_val (event_ids, id);
}

/* Reads a plane's top-level fields: name, id, spans of lines and stats, and
 * the metadata tables. */
gboolean
cp_xplane_plane_index (Space      *space,
                       const Span *span,
                       Plane      *plane)
{
  CpXPlaneReader *reader = space->reader;
  CpPbReader r;
  CpPbField f;
  g_autoptr(GArray) stat_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) event_ids = g_array_new (FALSE, FALSE, sizeof (gint64));

  plane->stat_meta = g_array_new (FALSE, TRUE, sizeof (StatMeta));
  plane->event_meta = g_array_new (FALSE, TRUE, sizeof (EventMeta));
  plane->lines = g_array_new (FALSE, FALSE, sizeof (Span));
  plane->stats = g_array_new (FALSE, FALSE, sizeof (Span));
  plane->name = g_strdup ("");
  plane->process = -1;
  plane->partial = span->partial;

  reader_at (space, &r, span->data, span->len);
  while (cp_pb_reader_next (&r, &f))
    {
      switch (f.number)
        {
        case XPLANE_ID:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            plane->id = cp_pb_int64 (f.value);
          break;
        case XPLANE_NAME:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              g_free (plane->name);
              plane->name = g_utf8_make_valid ((const char *) f.data, (gssize) f.len);
            }
          break;
        case XPLANE_LINES:
        case XPLANE_STATS:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              Span s = { f.data, f.len, f.offset, FALSE };

              g_array_append_val (f.number == XPLANE_LINES ? plane->lines : plane->stats, s);
            }
          break;
        case XPLANE_STAT_METADATA:
          if (f.wire_type == CP_PB_WIRE_LEN)
            plane_add_stat_meta (reader, plane, &r, &f, stat_ids);
          break;
        case XPLANE_EVENT_METADATA:
          if (f.wire_type == CP_PB_WIRE_LEN)
            plane_add_event_meta (reader, plane, &r, &f, event_ids);
          break;
        default:
          break;
        }
    }

  cp_xplane_idmap_build (&plane->stat_ids, (const gint64 *) stat_ids->data, stat_ids->len);
  cp_xplane_idmap_build (&plane->event_ids, (const gint64 *) event_ids->data, event_ids->len);

  if (r.error == CP_PB_ERROR_TRUNCATED && f.partial && f.number == XPLANE_LINES &&
      f.wire_type == CP_PB_WIRE_LEN)
    {
      /* Keep the complete events of a line that was cut off. */
      Span s = { f.data, f.len, f.offset, TRUE };

      g_array_append_val (plane->lines, s);
    }
  if (r.error != CP_PB_OK)
    {
      g_autofree char *where = g_strdup_printf (_("plane “%s”"), plane->name);

      cp_xplane_report_pb_error (space, &r, where);
      plane->partial = TRUE;
    }
  return TRUE;
}

/* Stats of an event metadata, decoded once: the merged EvStats base and the
 * packed record that events include. */
static void
event_meta_decode_locked (Plane     *plane,
                          EventMeta *m,
                          Pack      *pack,
                          guint64   *unknown_stat_ids)
{
  CpXPlaneReader *reader = plane->space->reader;
  CpPbReader r;
  CpPbField f;

  memset (&m->stats, 0, sizeof m->stats);
  if (!m->has_stats)
    return;

  pack->len = 0;
  if (m->long_name != CP_STR_EMPTY)
    {
      guint8 type = CP_XSTAT_STRING;

      pack_varint (pack, reader->key_long_name);
      pack_byte (pack, type);
      pack_varint (pack, m->long_name);
    }
  reader_at (plane->space, &r, m->msg, m->msg_len);
  while (cp_pb_reader_next (&r, &f))
    {
      XStatVal sv;

      if (f.number != XEVMETA_STATS)
        continue;
      if (!cp_xplane_parse_xstat (&r, &f, &sv))
        break;
      cp_xplane_apply_stat (plane, &m->stats, &sv, pack, FALSE, unknown_stat_ids);
    }
  if (pack->len > 0)
    m->args_id = cp_trace_builder_add_args (reader->builder, CP_ARGS_XSTATS, pack->data, pack->len);
}

/* Decodes an event metadata's stats on first use, whichever thread uses it
 * first. */
void
cp_xplane_event_meta_decode (Ctx       *ctx,
                             Plane     *plane,
                             EventMeta *m)
{
  g_rec_mutex_lock (&plane->space->lock);
  if (!m->decoded)
    {
      event_meta_decode_locked (plane, m, &ctx->pack, &ctx->unknown_stat_ids);
      g_atomic_int_set (&m->decoded, TRUE);
    }
  g_rec_mutex_unlock (&plane->space->lock);
}

/* A plane stat as a member of the plane's metadata. */
static void
plane_stat_to_json (Plane          *plane,
                    JsonBuilder    *json,
                    const StatMeta *m,
                    const XStatVal *sv)
{
  g_autofree char *key = NULL;
  const guint8 *str;
  gsize slen;
  StatMeta *ref;

  if (m != NULL)
    key = g_utf8_make_valid ((const char *) m->raw, m->raw_len);
  else
    key = g_strdup_printf ("%" G_GINT64_FORMAT, sv->metadata_id);
  json_builder_set_member_name (json, key);
  switch (sv->type)
    {
    case XSTAT_INT64:
      json_builder_add_int_value (json, (gint64) sv->u);
      break;
    case XSTAT_UINT64:
      if (sv->u > (guint64) G_MAXINT64)
        {
          g_autofree char *t = g_strdup_printf ("%" G_GUINT64_FORMAT, sv->u);

          json_builder_add_string_value (json, t);
        }
      else
        json_builder_add_int_value (json, (gint64) sv->u);
      break;
    case XSTAT_DOUBLE:
      if (isfinite (sv->d))
        json_builder_add_double_value (json, sv->d);
      else
        json_builder_add_null_value (json);
      break;
    case XSTAT_STR:
    case XSTAT_REF:
      if (stat_string (plane, sv, &str, &slen, &ref))
        {
          g_autofree char *t = g_utf8_make_valid ((const char *) str,
                                                  (gssize) MIN (slen, MAX_METADATA_STRING));

          json_builder_add_string_value (json, t);
        }
      else
        json_builder_add_null_value (json);
      break;
    case XSTAT_BYTES:
      {
        g_autofree char *t = g_strdup_printf (_("(%" PRIu64 " bytes)"), (guint64) sv->slen);

        json_builder_add_string_value (json, t);
      }
      break;
    default:
      json_builder_add_null_value (json);
      break;
    }
}

/* A plane stat that describes the plane's device. */
static void
device_apply_stat (Plane          *plane,
                   CpDevice       *dev,
                   const StatMeta *m,
                   const XStatVal *sv)
{
  CpXPlaneReader *reader = plane->space->reader;
  gint64 iv;
  double dv;
  const guint8 *str;
  gsize slen;
  StatMeta *ref;

  switch (m->kind)
    {
    case SK_GPU_DEVICE_NAME:
    case SK_DEVICE_TYPE_STRING:
    case SK_DEVICE_VENDOR:
      if (stat_string (plane, sv, &str, &slen, &ref))
        {
          g_autofree char *t = g_utf8_make_valid ((const char *) str, (gssize) MIN (slen, 1024));
          CpStr id = cp_trace_builder_intern (reader->builder, t, -1);

          if (m->kind == SK_DEVICE_VENDOR)
            dev->vendor = id;
          else if (m->kind == SK_GPU_DEVICE_NAME || dev->name == CP_STR_EMPTY)
            dev->name = id;
        }
      break;
    case SK_CORE_COUNT:
      if (cp_xplane_stat_as_int (sv, &iv))
        dev->num_sms = cp_xplane_clamp_i32 (iv);
      break;
    case SK_MEMORY_SIZE:
      if (cp_xplane_stat_as_int (sv, &iv) && iv >= 0)
        dev->total_memory = iv;
      break;
    case SK_CC_MAJOR:
      if (cp_xplane_stat_as_int (sv, &iv))
        dev->compute_major = cp_xplane_clamp_i32 (iv);
      break;
    case SK_CC_MINOR:
      if (cp_xplane_stat_as_int (sv, &iv))
        dev->compute_minor = cp_xplane_clamp_i32 (iv);
      break;
    case SK_CLOCK_RATE:
      /* kHz, as cudaDeviceProp.clockRate. */
      if (cp_xplane_stat_as_int (sv, &iv) && iv > 0 && iv < G_GINT64_CONSTANT (100000000))
        dev->clock_khz = iv;
      break;
    case SK_PEAK_TFLOPS:
      if (stat_as_double (sv, &dv) && isfinite (dv) && dv >= 0)
        dev->peak_tflops = dv;
      break;
    case SK_MEMORY_BANDWIDTH:
      if (stat_as_double (sv, &dv) && isfinite (dv) && dv >= 0)
        dev->memory_bandwidth = dv;
      break;
    case SK_PEAK_HBM_BW:
      if (stat_as_double (sv, &dv) && isfinite (dv) && dv >= 0 && dev->memory_bandwidth == 0)
        dev->memory_bandwidth = dv * 1e9;
      break;
    default:
      break;
    }
}

/* What the stats left out of a device: a name, the warp size, the vendor. */
static void
device_fill_in (Plane    *plane,
                CpDevice *dev)
{
  CpXPlaneReader *reader = plane->space->reader;
  const char *vendor = cp_trace_builder_get_string (reader->builder, dev->vendor);

  if (dev->name == CP_STR_EMPTY && vendor[0] != '\0' && plane->klass == PLANE_GPU)
    {
      g_autofree char *n = NULL;

      /* AMD captures carry no device name: say what is known. */
      if (dev->compute_major >= 0)
        n = g_strdup_printf ("%s GPU (compute %d.%d)", vendor, dev->compute_major,
                             MAX (dev->compute_minor, 0));
      else
        n = g_strdup_printf ("%s GPU", vendor);
      dev->name = cp_trace_builder_intern (reader->builder, n, -1);
    }

  if (dev->warp_size < 0)
    {
      if (g_ascii_strcasecmp (vendor, "Nvidia") == 0)
        dev->warp_size = 32;
      else if (g_ascii_strcasecmp (vendor, "AMD") == 0)
        dev->warp_size = 64;
    }
  if (plane->klass == PLANE_TPU && dev->vendor == CP_STR_EMPTY)
    dev->vendor = cp_trace_builder_intern (reader->builder, "Google", -1);
}

/* Plane stats: devices and metadata. */
void
cp_xplane_plane_read_stats (Plane       *plane,
                            JsonBuilder *json)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  CpDevice *dev = NULL;
  gboolean is_device = plane->klass == PLANE_GPU || plane->klass == PLANE_TPU;

  if (is_device && !plane->sparse_core)
    dev = cp_trace_builder_device (reader->builder, plane->ordinal);

  for (guint i = 0; i < plane->stats->len; i++)
    {
      const Span *s = &g_array_index (plane->stats, Span, i);
      XStatVal sv;
      StatMeta *m;
      gint64 iv;

      if (!cp_xplane_parse_xstat_span (space, s, &sv))
        continue;
      m = cp_xplane_plane_stat (plane, sv.metadata_id);

      if (json != NULL)
        plane_stat_to_json (plane, json, m, &sv);

      if (m == NULL)
        continue;
      if (m->kind == SK_PROFILE_START)
        continue;
      if (m->kind == SK_CORE_COUNT && cp_xplane_stat_as_int (&sv, &iv))
        plane->core_count = cp_xplane_clamp_i32 (iv);
      if (dev == NULL)
        continue;
      device_apply_stat (plane, dev, m, &sv);
    }

  if (dev != NULL)
    device_fill_in (plane, dev);
}

guint
cp_xplane_plane_process (Plane *plane)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  g_autofree char *name = NULL;
  CpProcess *proc;
  guint index;
  gboolean is_device;

  if (plane->process >= 0)
    return (guint) plane->process;

  /* XProf's trace viewer pids: host planes from 701, devices 1 + id, custom
   * planes 501 + id; hosts of a folder 10000 apart. */
  is_device = plane->klass == PLANE_GPU || plane->klass == PLANE_TPU || plane->klass == PLANE_CUSTOM;
  {
    gint64 pid;

    if (plane->klass == PLANE_GPU || plane->klass == PLANE_TPU)
      pid = 1 + CLAMP (plane->id, 0, 400);
    else if (plane->klass == PLANE_CUSTOM)
      pid = 501 + CLAMP (plane->id, 0, 150);
    else
      pid = 701 + plane->index;
    pid += (gint64) space->host * 10000;
    if (g_hash_table_contains (reader->pids, &pid))
      {
        /* Taken: the next of wanted + k * 1000. Each wanted pid remembers
         * where its search got to, so many planes wanting one pid cost one
         * step each, not a walk past all the earlier ones. */
        gint64 wanted = pid;
        gint64 *next = g_hash_table_lookup (reader->pid_next, &wanted);

        pid = next != NULL ? *next : wanted + 1000;
        while (g_hash_table_contains (reader->pids, &pid))
          pid += 1000;
        if (next == NULL)
          {
            next = g_new (gint64, 2);
            next[1] = wanted;
            g_hash_table_insert (reader->pid_next, &next[1], next);
          }
        *next = pid + 1000;
      }
    g_hash_table_add (reader->pids, g_memdup2 (&pid, sizeof pid));
    index = cp_trace_builder_process_for_pid (reader->builder, pid);
  }
  proc = cp_trace_builder_get_process (reader->builder, index);
  if (space->hostname != NULL && space->hostname[0] != '\0')
    name = g_strdup_printf ("%s %s", space->hostname, plane->name);
  else
    name = g_strdup (plane->name);
  proc->name = cp_trace_builder_intern (reader->builder, name, -1);
  proc->host = (gint32) space->host;
  proc->is_device = is_device;
  proc->device = plane->ordinal;
  proc->is_pseudo = FALSE;
  proc->sort_index = (gint64) space->host * 100000000 +
                     (is_device ? 50000000 + (gint64) MAX (plane->ordinal, 0) * 100 + plane->index % 100
                                : plane->index);
  if (plane->ordinal >= 0)
    {
      CpDevice *dev = cp_trace_builder_device (reader->builder, plane->ordinal);

      proc->labels = dev->name;
    }
  plane->process = (gint) index;
  return index;
}
