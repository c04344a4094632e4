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

guint
cp_memory_events_attach (CpTrace *trace)
{
  g_autoptr(CpMemory) memory = NULL;
  guint n_read = 0;

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
          g_autoptr(GPtrArray) args = NULL;
          gint64 type = -1, id = -1, bytes = 0, addr = 0, allocated = -1, reserved = -1;
          gboolean have_type = FALSE, have_bytes = FALSE;

          if (!(s->flags[i] & CP_SLICE_INSTANT) ||
              strcmp (cp_trace_get_string (trace, cp_slices_get_name (s, i)), "[memory]") != 0)
            continue;
          args = cp_args_decode (trace, ref, NULL);
          if (args == NULL)
            continue;
          for (guint k = 0; k < args->len; k++)
            {
              const CpArg *a = g_ptr_array_index (args, k);

              if (strcmp (a->key, "Device Type") == 0)
                have_type = parse_int (a->value, &type);
              else if (strcmp (a->key, "Device Id") == 0)
                parse_int (a->value, &id);
              else if (strcmp (a->key, "Bytes") == 0)
                have_bytes = parse_int (a->value, &bytes);
              else if (strcmp (a->key, "Addr") == 0)
                parse_int (a->value, &addr);
              else if (strcmp (a->key, "Total Allocated") == 0)
                parse_int (a->value, &allocated);
              else if (strcmp (a->key, "Total Reserved") == 0)
                parse_int (a->value, &reserved);
            }
          if (!have_type || !have_bytes || type < 0 || type > G_MAXINT16 ||
              id < -1 || id > G_MAXINT16)
            continue;
          if (memory == NULL)
            memory = cp_memory_new ();
          cp_memory_add (memory, (gint) type, (gint) id, cp_slices_get_start (s, i),
                         bytes, (guint64) addr, allocated, reserved, ref);
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
