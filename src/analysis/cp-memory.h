/* cp-memory.h: device memory over time: peaks, what was live, growth per step
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-analysis.h"

G_BEGIN_DECLS

#define CP_MEMORY_TOP_LIVE 5

/* An allocation live at the peak: its size, when it was made, and the op
 * around the allocator event (lane G_MAXUINT32: none recorded). */
typedef struct
{
  gint64     bytes;
  gint64     ts;
  guint64    addr;
  CpSliceRef op;
} CpMemoryLive;

/* One device's memory (a CpMemoryTrack of the trace), read by the memory
 * rules, `diagnose` and the JSON.
 * - peak_allocated: the largest allocator total (with has_totals FALSE the
 *   largest running sum since the capture began), at the first event that
 *   reaches it; peak_reserved likewise, -1 when the capture does not say.
 * - capacity: the device's totalGlobalMem from deviceProperties, -1 when
 *   unknown or for the host.
 * - live_*: the allocations made during the capture and not freed at the
 *   allocated peak (what was allocated before the capture is not seen);
 *   top holds the largest n_top of them, largest first. Events without an
 *   address (older Kineto) are not followed: has_addresses says whether
 *   any had one.
 * - step_end: allocated at the end of each step (the last event at or
 *   before the end of the step's host marker, or of its window without
 *   one: the allocator runs on the host; steps before the first event are left
 *   out), n_step_end of them; growth is the last minus the first, n_grew the
 *   steps after which it was higher than after the step before.
 * - step_end_slope: the least-squares slope of step_end over the step
 *   number, bytes per step (NAN with fewer than 3 step ends);
 *   step_end_min / _max the lowest and highest step end; n_returns how
 *   often a step end fell back to the start level (within a tenth of the
 *   swing, max - min, above step_end[0]) from above it: a series that
 *   keeps coming back is an oscillation, not a leak.
 * - limit: the allocator's limit (TensorFlow's and XLA's BFC allocator:
 *   bytes_limit, or bytes_allocated + bytes_reserved + bytes_available),
 *   -1 when the capture does not state one. */
typedef struct
{
  gint          device_type;
  gint          device_id;
  gboolean      has_totals;
  gboolean      has_reserved;
  guint         n_events;
  gint64        peak_allocated;
  gint64        peak_allocated_ts;
  CpSliceRef    peak_allocated_ref;
  gint64        peak_reserved;
  gint64        peak_reserved_ts;
  gint64        allocated_at_reserved_peak;
  gint64        capacity;
  gboolean      has_addresses;
  gint64        live_bytes;
  guint         n_live;
  guint         n_top;
  CpMemoryLive  top[CP_MEMORY_TOP_LIVE];
  guint         n_step_end;
  gint64       *step_end;
  gint64        growth;
  guint         n_grew;
  double        step_end_slope;
  gint64        step_end_min;
  gint64        step_end_max;
  guint         n_returns;
  gint64        limit;
} CpMemoryStats;

/* The capacity the memory rules measure against: the allocator's limit
 * when the capture states one (what the run can allocate), else the
 * device's memory; -1 when neither is known. *is_limit says which. */
gint64               cp_memory_stats_get_capacity (const CpMemoryStats *stats,
                                                   gboolean            *is_limit);

/* Per device, in the trace's track order; *n is 0 without memory events. */
const CpMemoryStats *cp_analysis_get_memory  (CpAnalysis *self,
                                              guint      *n);
/* "GPU 0", "host", "device type 3 id 1": translated. */
char                *cp_memory_stats_label   (const CpMemoryStats *stats);
/* The op that was running at a memory event (its enclosing slice on the
 * same lane, passing over CUDA runtime and driver calls); FALSE when
 * none. */
gboolean             cp_memory_op_at         (CpTrace    *trace,
                                              CpSliceRef  ref,
                                              CpSliceRef *op);

/* Fills self->memory (cp-analysis-private.h); called by the rules. */
void                 _cp_analysis_memory     (CpAnalysis *self);

G_END_DECLS
