/* cp-memory.c: device memory over time, from allocator events
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cp-memory.h"

typedef struct
{
  CpMemoryTrack pub;
  GArray       *events;   /* of CpMemoryEvent */
  gboolean      missing_totals;
  gboolean      any_reserved;
} Track;

struct _CpMemory
{
  GPtrArray *tracks;      /* of Track* */
};

static void
track_free (gpointer data)
{
  Track *t = data;

  g_array_unref (t->events);
  g_free (t);
}

CpMemory *
cp_memory_new (void)
{
  CpMemory *self = g_new0 (CpMemory, 1);

  self->tracks = g_ptr_array_new_with_free_func (track_free);
  return self;
}

void
cp_memory_free (CpMemory *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->tracks);
  g_free (self);
}

static Track *
track_for (CpMemory *self,
           gint      device_type,
           gint      device_id)
{
  Track *t;

  for (guint i = 0; i < self->tracks->len; i++)
    {
      t = g_ptr_array_index (self->tracks, i);
      if (t->pub.device_type == device_type && t->pub.device_id == device_id)
        return t;
    }
  t = g_new0 (Track, 1);
  t->pub.device_type = device_type;
  t->pub.device_id = device_id;
  t->pub.limit = -1;
  t->events = g_array_new (FALSE, FALSE, sizeof (CpMemoryEvent));
  g_ptr_array_add (self->tracks, t);
  return t;
}

void
cp_memory_add (CpMemory   *self,
               gint        device_type,
               gint        device_id,
               gint64      ts,
               gint64      bytes,
               guint64     addr,
               gint64      allocated,
               gint64      reserved,
               CpSliceRef  ref)
{
  Track *t = track_for (self, device_type, device_id);
  CpMemoryEvent e = { ts, bytes, addr, allocated, reserved, ref };

  if (allocated < 0)
    t->missing_totals = TRUE;
  if (reserved >= 0)
    t->any_reserved = TRUE;
  g_array_append_val (t->events, e);
}

void
cp_memory_note_limit (CpMemory *self,
                      gint      device_type,
                      gint      device_id,
                      gint64    limit)
{
  Track *t = track_for (self, device_type, device_id);

  t->pub.limit = MAX (t->pub.limit, limit);
}

static gint
compare_events (gconstpointer a,
                gconstpointer b)
{
  const CpMemoryEvent *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  /* Same time: keep the order of the lanes and their slices. */
  if (x->ref.lane != y->ref.lane)
    return x->ref.lane < y->ref.lane ? -1 : 1;
  return x->ref.index < y->ref.index ? -1 : (x->ref.index > y->ref.index);
}

static gint
compare_tracks (gconstpointer a,
                gconstpointer b)
{
  const Track *x = *(Track * const *) a, *y = *(Track * const *) b;

  if (x->pub.device_type != y->pub.device_type)
    return x->pub.device_type < y->pub.device_type ? -1 : 1;
  return x->pub.device_id < y->pub.device_id ? -1 : (x->pub.device_id > y->pub.device_id);
}

void
cp_memory_finish (CpMemory *self)
{
  g_ptr_array_sort (self->tracks, compare_tracks);
  for (guint i = 0; i < self->tracks->len; i++)
    {
      Track *t = g_ptr_array_index (self->tracks, i);
      CpMemoryEvent *ev;
      gint64 sum = 0;

      g_array_sort (t->events, compare_events);
      ev = (CpMemoryEvent *) (void *) t->events->data;
      for (guint k = 0; k < t->events->len; k++)
        {
          /* Without the allocator's totals the running sum is all there
           * is: what was allocated before the capture is not in it. */
          sum = cp_sat_add (sum, ev[k].bytes);
          if (t->missing_totals)
            ev[k].allocated = sum;
          if (!t->any_reserved)
            ev[k].reserved = -1;
        }
      t->pub.has_totals = !t->missing_totals;
      t->pub.has_reserved = t->any_reserved;
      t->pub.n_events = t->events->len;
      t->pub.events = ev;
    }
}

guint
cp_memory_get_n_tracks (const CpMemory *self)
{
  return self != NULL ? self->tracks->len : 0;
}

const CpMemoryTrack *
cp_memory_get_track (const CpMemory *self,
                     guint           index)
{
  g_return_val_if_fail (self != NULL && index < self->tracks->len, NULL);
  return &((Track *) g_ptr_array_index (self->tracks, index))->pub;
}

const CpMemoryTrack *
cp_memory_find_track (const CpMemory *self,
                      gint            device_type,
                      gint            device_id)
{
  for (guint i = 0; i < cp_memory_get_n_tracks (self); i++)
    {
      const CpMemoryTrack *t = cp_memory_get_track (self, i);

      if (t->device_type == device_type && t->device_id == device_id)
        return t;
    }
  return NULL;
}

gsize
cp_memory_get_size (const CpMemory *self)
{
  gsize size = 0;

  for (guint i = 0; i < cp_memory_get_n_tracks (self); i++)
    size += sizeof (Track) + cp_memory_get_track (self, i)->n_events * sizeof (CpMemoryEvent);
  return size;
}
