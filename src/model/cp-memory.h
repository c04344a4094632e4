/* cp-memory.h: device memory over time, from allocator events
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-types.h"

G_BEGIN_DECLS

/* One allocator event: Kineto's "[memory]" instant (profile_memory=True).
 * bytes > 0 allocates at addr, bytes < 0 frees it. allocated and reserved
 * are the allocator's totals after the event; when the capture does not
 * write them (older Kineto), allocated is the sum of bytes since the
 * capture began and reserved is -1. ref is the instant on its host
 * thread's lane, whose enclosing slice is the op that was running. */
typedef struct
{
  gint64     ts;          /* ns from the trace origin */
  gint64     bytes;
  guint64    addr;
  gint64     allocated;
  gint64     reserved;
  CpSliceRef ref;
} CpMemoryEvent;

/* A device's events in time order. device_type is Kineto's "Device
 * Type" (0 the host, 1 CUDA, ...), device_id its "Device Id" (-1 for the
 * host). has_totals: every event carried Total Allocated. limit: the
 * most the allocator may hold, when its events say (TensorFlow's and
 * XLA's BFC allocator), else -1. */
typedef struct
{
  gint                 device_type;
  gint                 device_id;
  gboolean             has_totals;
  gboolean             has_reserved;
  guint                n_events;
  const CpMemoryEvent *events;
  gint64               limit;
} CpMemoryTrack;

typedef struct _CpMemory CpMemory;

CpMemory            *cp_memory_new          (void);
void                 cp_memory_free         (CpMemory *self);
/* allocated / reserved: -1 when the event does not say. */
void                 cp_memory_add          (CpMemory   *self,
                                             gint        device_type,
                                             gint        device_id,
                                             gint64      ts,
                                             gint64      bytes,
                                             guint64     addr,
                                             gint64      allocated,
                                             gint64      reserved,
                                             CpSliceRef  ref);
/* The allocator's limit as one of its events states it; the largest
 * stated is kept. */
void                 cp_memory_note_limit   (CpMemory   *self,
                                             gint        device_type,
                                             gint        device_id,
                                             gint64      limit);
/* Sorts each device's events by time (stable) and fills missing totals;
 * tracks end sorted by (device type, device id). Call once, after the
 * last cp_memory_add(). */
void                 cp_memory_finish       (CpMemory *self);

guint                cp_memory_get_n_tracks (const CpMemory *self);
const CpMemoryTrack *cp_memory_get_track    (const CpMemory *self,
                                             guint           index);
/* The track of a device, or NULL. */
const CpMemoryTrack *cp_memory_find_track   (const CpMemory *self,
                                             gint            device_type,
                                             gint            device_id);
/* Bytes held, for cp_trace_get_memory_size(). */
gsize                cp_memory_get_size     (const CpMemory *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpMemory, cp_memory_free)

G_END_DECLS
