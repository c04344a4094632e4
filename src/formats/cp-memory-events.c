/* cp-memory-events.c: allocator events of a capture into its CpMemory
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cp-memory-events.h"

#include <string.h>

#include "cp-args.h"
#include "model/cp-trace-private.h"

static gboolean
parse_int (const char *text,
           gint64     *out)
{
  char *end = NULL;
  double d;

  if (text == NULL || *text == '\0')
    return FALSE;
  *out = g_ascii_strtoll (text, &end, 10);
  if (*end == '\0')
    return TRUE;
  /* A number written with a fraction or an exponent. */
  d = g_ascii_strtod (text, &end);
  if (*end != '\0' || !(d > -9.2e18 && d < 9.2e18))
    return FALSE;
  *out = (gint64) d;
  return TRUE;
}

/* The device of a TensorFlow / XLA allocator: "GPU_0_bfc" is CUDA device
 * 0 (Kineto's Device Type 1); the host's allocators ("cpu", "gpu_host_bfc",
 * "mklcpu") are the host. Others (TPU's own) are left out. */
static gboolean
allocator_device (const char *name,
                  gint       *type,
                  gint       *id)
{
  char *end = NULL;
  guint64 n;

  if (g_str_has_prefix (name, "GPU_"))
    {
      n = g_ascii_strtoull (name + 4, &end, 10);
      if (end == name + 4 || *end != '_' || n > G_MAXINT16)
        return FALSE;
      *type = 1;
      *id = (gint) n;
      return TRUE;
    }
  if (g_ascii_strcasecmp (name, "cpu") == 0 || strstr (name, "host") != NULL || g_str_has_prefix (name, "mklcpu"))
    {
      *type = 0;
      *id = -1;
      return TRUE;
    }
  return FALSE;
}

/* Kineto's "[memory]" instant: Device Type, Device Id, Addr, Bytes (signed),
 * Total Allocated, Total Reserved. */
static gboolean
read_kineto (GPtrArray *args,
             gint64    *type,
             gint64    *id,
             gint64    *bytes,
             gint64    *addr,
             gint64    *allocated,
             gint64    *reserved)
{
  gboolean have_type = FALSE, have_bytes = FALSE;

  for (guint k = 0; k < args->len; k++)
    {
      const CpArg *a = g_ptr_array_index (args, k);

      if (strcmp (a->key, "Device Type") == 0)
        have_type = parse_int (a->value, type);
      else if (strcmp (a->key, "Device Id") == 0)
        parse_int (a->value, id);
      else if (strcmp (a->key, "Bytes") == 0)
        have_bytes = parse_int (a->value, bytes);
      else if (strcmp (a->key, "Addr") == 0)
        parse_int (a->value, addr);
      else if (strcmp (a->key, "Total Allocated") == 0)
        parse_int (a->value, allocated);
      else if (strcmp (a->key, "Total Reserved") == 0)
        parse_int (a->value, reserved);
    }
  return have_type && have_bytes;
}

/* TensorFlow's and XLA's MemoryAllocation / MemoryDeallocation (XPlane,
 * the host threads): allocator_name, allocation_bytes (requested_bytes
 * when absent), addr, and bytes_allocated, the allocator's bytes in use
 * once it is done. The BFC allocator holds its whole pool from the start,
 * so there is no reserved figure to compare with. Its limit (the
 * AllocatorStats' bytes_limit: what the process may allocate, less than
 * the device's memory) is bytes_limit where an event states it, else the
 * sum the BFC allocator's events write: bytes_available is the limit less
 * bytes_reserved and bytes_allocated; -1 when neither. */
static gboolean
read_xla (GPtrArray *args,
          gboolean   free,
          gint64    *type,
          gint64    *id,
          gint64    *bytes,
          gint64    *addr,
          gint64    *allocated,
          gint64    *limit)
{
  gboolean have_device = FALSE, have_bytes = FALSE, have_requested = FALSE;
  gint64 requested = 0, reserved = -1, available = -1, stated = -1;
  gint t = -1, d = -1;

  for (guint k = 0; k < args->len; k++)
    {
      const CpArg *a = g_ptr_array_index (args, k);

      if (strcmp (a->key, "allocator_name") == 0)
        have_device = allocator_device (a->value, &t, &d);
      else if (strcmp (a->key, "allocation_bytes") == 0)
        have_bytes = parse_int (a->value, bytes) && *bytes >= 0;
      else if (strcmp (a->key, "requested_bytes") == 0)
        have_requested = parse_int (a->value, &requested) && requested >= 0;
      else if (strcmp (a->key, "addr") == 0)
        parse_int (a->value, addr);
      else if (strcmp (a->key, "bytes_allocated") == 0)
        parse_int (a->value, allocated);
      else if (strcmp (a->key, "bytes_reserved") == 0)
        parse_int (a->value, &reserved);
      else if (strcmp (a->key, "bytes_available") == 0)
        parse_int (a->value, &available);
      else if (strcmp (a->key, "bytes_limit") == 0)
        parse_int (a->value, &stated);
    }
  if (stated > 0)
    *limit = stated;
  else if (available >= 0 && *allocated >= 0 && reserved >= 0 &&
           available <= G_MAXINT64 / 4 && *allocated <= G_MAXINT64 / 4 && reserved <= G_MAXINT64 / 4)
    *limit = available + *allocated + reserved;
  if (!have_bytes && have_requested)
    {
      *bytes = requested;
      have_bytes = TRUE;
    }
  if (!have_device || !have_bytes)
    return FALSE;
  *type = t;
  *id = d;
  if (free)
    *bytes = -*bytes;
  return TRUE;
}

guint
cp_memory_events_attach (CpTrace *trace)
{
  const CpStringPool *pool = cp_trace_get_string_pool (trace);
  CpStr kineto = cp_string_pool_lookup (pool, "[memory]");
  CpStr alloc = cp_string_pool_lookup (pool, "MemoryAllocation");
  CpStr dealloc = cp_string_pool_lookup (pool, "MemoryDeallocation");
  g_autoptr(CpMemory) memory = NULL;
  guint n_read = 0;

  /* Most captures have none: no walk over their slices then. */
  if (kineto == G_MAXUINT32 && alloc == G_MAXUINT32 && dealloc == G_MAXUINT32)
    return 0;
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s;

      if (cp_lane_get_kind (lane) != CP_LANE_HOST_THREAD)
        continue;
      s = cp_lane_get_slices (lane);
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { l, i };
          CpStr name = cp_slices_get_name (s, i);
          g_autoptr(GPtrArray) args = NULL;
          gint64 type = -1, id = -1, bytes = 0, addr = 0, allocated = -1, reserved = -1, limit = -1;
          gboolean ok;

          if (name == kineto ? !(s->flags[i] & CP_SLICE_INSTANT) : (name != alloc && name != dealloc))
            continue;
          args = cp_args_decode (trace, ref, NULL);
          if (args == NULL)
            continue;
          if (name == kineto)
            ok = read_kineto (args, &type, &id, &bytes, &addr, &allocated, &reserved);
          else
            ok = read_xla (args, name == dealloc, &type, &id, &bytes, &addr, &allocated, &limit);
          if (!ok || type < 0 || type > G_MAXINT16 || id < -1 || id > G_MAXINT16)
            continue;
          if (memory == NULL)
            memory = cp_memory_new ();
          cp_memory_add (memory, (gint) type, (gint) id, cp_slices_get_start (s, i),
                         bytes, (guint64) addr, allocated, reserved, ref);
          if (limit > 0)
            cp_memory_note_limit (memory, (gint) type, (gint) id, limit);
          n_read++;
        }
    }
  if (memory != NULL)
    {
      cp_memory_finish (memory);
      _cp_trace_set_memory_events (trace, g_steal_pointer (&memory));
    }
  return n_read;
}
