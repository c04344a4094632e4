/* cp-synth-trace.h: a synthetic training capture for benchmarks and demos
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace-builder.h"

G_BEGIN_DECLS

/* A PyTorch-like capture of about target_slices slices: a Python thread
 * with ProfilerStep#N / forward / backward / ops / cudaLaunchKernel nesting, a
 * data loader thread, two GPU streams, HtoD (pageable), DtoH and memset
 * lanes, a memory counter, launch flows by correlation id. */
CpTrace *cp_synth_trace_new (guint64   target_slices,
                             guint32   seed,
                             GError  **error);

G_END_DECLS
