/* cp-sweep.h: giving each instant of a window to one kind of activity
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-intervals.h"

G_BEGIN_DECLS

/* A span of one activity type, for the priority sweep. */
typedef struct
{
  gint64 start;
  gint64 end;
  guint  type;
} CpTypedSpan;

/* XProf's priority flattening (event_span.cc, ToNonOverlappedEvents): every
 * instant of [t0, t1) goes to the highest-priority type active at that
 * instant; instants no span covers go to "unknown". Boundaries are swept in
 * time order with a count per type; at equal times ends come before starts,
 * and among starts the higher priority comes first.
 *
 * priority[type] for type < n_types; larger wins. totals receives n_types + 1
 * values: the time given to each type, then the unknown time. When segments is
 * not NULL it receives n_types + 1 new normalized sets (the last one unknown).
 * Spans with type >= n_types are ignored. */
void cp_priority_sweep     (const CpTypedSpan *spans,
                            gsize              n_spans,
                            const guint       *priority,
                            guint              n_types,
                            gint64             t0,
                            gint64             t1,
                            gint64            *totals,
                            CpIntervals      **segments);

/* The TensorBoard plugin's sequential claiming (overall_parser.py,
 * Statistics.create_from_range): roles are taken in the given order and each
 * one claims only the part of [t0, t1) that earlier roles left; the rest is
 * "other". roles are normalized sets (NULL = empty). claimed receives
 * n_roles + 1 lengths (the last one "other"); when claimed_sets is not NULL it
 * receives n_roles + 1 new normalized sets.
 *
 * Claiming in descending priority order gives the same result as the
 * priority sweep; the breakdown does it in one pass over the slices
 * (cp-breakdown.c, flatten ()). */
void cp_claim_sequential   (CpIntervals * const *roles,
                            guint                n_roles,
                            gint64               t0,
                            gint64               t1,
                            gint64              *claimed,
                            CpIntervals        **claimed_sets);

G_END_DECLS
