/* cp-gen-write.h: the writers of cp-gen and what they count
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-gen.h"
#include "cp-gen-out.h"

G_BEGIN_DECLS

/* What a capture holds, as a correct reader should count it. */
typedef struct
{
  guint   steps;
  guint64 events;            /* JSON traceEvents entries; XPlane XEvents on lines */
  guint64 slices;            /* duration slices (JSON also counts the Spans slice) */
  guint64 host_slices;       /* cpu_op + user_annotation + cuda_runtime */
  guint64 runtime_calls;
  guint64 kernels;
  guint64 memcpys;
  guint64 memsets;
  guint64 counter_samples;   /* one per series and time */
  guint64 flows;             /* complete flows: launch -> GPU activity, forward -> backward */
  guint64 launch_flows;
  guint64 fwdbwd_flows;
  guint64 lone_flow_starts;  /* JSON: ac2g 's' of sync calls, which have no 'f' */
  guint64 metadata;          /* JSON: 'M' events */
  guint64 instants;          /* JSON: 'i' events */
  guint64 planes;            /* XPlane */
  guint64 lines;             /* XPlane */
  gint64  duration_ns;       /* origin to the end of the last event */
} CpGenCounts;

/* Adds one step's simulated events to the format-independent counts. */
void cp_gen_counts_add_step (CpGenCounts      *counts,
                             const CpGenEvent *events,
                             guint             n_events);

typedef struct _CpGenJson CpGenJson;

CpGenJson *cp_gen_json_begin (CpGenOut    *out,
                              CpGenSim    *sim,
                              CpGenCounts *counts);
void       cp_gen_json_step  (CpGenJson        *w,
                              const CpGenEvent *events,
                              guint             n_events);
/* Writes the trailing metadata and closes the document; frees w. */
void       cp_gen_json_end   (CpGenJson *w);

/* Runs the simulation as many times as the XPlane layout needs (one pass
 * to size every message, then one per line) and writes the XSpace. The
 * first pass stops after n_steps steps, or once the encoded size reaches
 * size_target when n_steps is 0. truth_func and iteration_func receive the
 * ground truth of that first pass. */
gboolean   cp_gen_xplane_write (CpGenOut                *out,
                                const CpGenScenarioInfo *info,
                                guint64                  seed,
                                guint                    n_steps,
                                guint64                  size_target,
                                CpGenTruthFunc           truth_func,
                                CpGenIterationFunc       iteration_func,
                                gpointer                 truth_data,
                                CpGenCounts             *counts,
                                GError                 **error);

G_END_DECLS
