/* cp-test-trace.h: building small traces by hand for the analysis tests
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace-builder.h"

G_BEGIN_DECLS

/* A builder whose origin is 0: every time below is the final trace time. */
CpTraceBuilder *cp_test_trace_new          (void);
guint           cp_test_trace_host_lane    (CpTraceBuilder *b,
                                            gint64          tid);
guint           cp_test_trace_kernel_lane  (CpTraceBuilder *b,
                                            gint            device,
                                            gint64          stream);
guint           cp_test_trace_copy_lane    (CpTraceBuilder *b,
                                            gint            device,
                                            CpTransferKind  kind);
guint           cp_test_trace_counter_lane (CpTraceBuilder *b,
                                            gint            device,
                                            const char     *name);
CpSliceRef      cp_test_trace_slice        (CpTraceBuilder *b,
                                            guint           lane,
                                            gint64          start,
                                            gint64          dur,
                                            const char     *name);
/* A slice with device columns (gpu may be NULL) and flags. */
CpSliceRef      cp_test_trace_slice_full   (CpTraceBuilder  *b,
                                            guint            lane,
                                            gint64           start,
                                            gint64           dur,
                                            const char      *name,
                                            guint16          flags,
                                            gint64           corr,
                                            const CpGpuInfo *gpu);
/* A launch call on a host lane and the kernel it launches, linked by a
 * correlation id (and so by a launch flow). Returns the kernel. */
CpSliceRef      cp_test_trace_launch       (CpTraceBuilder *b,
                                            guint           host_lane,
                                            gint64          call_start,
                                            gint64          call_dur,
                                            guint           kernel_lane,
                                            gint64          start,
                                            gint64          dur,
                                            const char     *kernel);
void            cp_test_trace_gpu_info_clear (CpGpuInfo   *gpu);
CpTrace        *cp_test_trace_finish       (CpTraceBuilder *b);

G_END_DECLS
