/* cp-memory-events.h: allocator events of a capture into its CpMemory
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* Reads the allocator events of a capture into the trace's memory events:
 * Kineto's "[memory]" instants (host thread slices flagged
 * CP_SLICE_INSTANT; args Device Type, Device Id, Addr, Bytes, Total
 * Allocated, Total Reserved) and TensorFlow's and XLA's MemoryAllocation /
 * MemoryDeallocation events of an XPlane capture's host threads (stats
 * allocator_name "GPU_0_bfc", allocation_bytes, addr, bytes_allocated).
 * The slices stay as they are, so every count of the reader is unchanged.
 * An event without its size or device is skipped. Returns the events read.
 * Call before the trace is shared. */
guint cp_memory_events_attach (CpTrace *trace);

G_END_DECLS
