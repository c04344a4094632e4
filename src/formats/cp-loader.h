/* cp-loader.h: open any supported capture (file or profile folder) into a CpTrace
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* Progress of a load: bytes of the input consumed so far and the total (the
 * file size; for compressed input, compressed bytes). */
typedef void (*CpLoadProgressFunc) (guint64  done,
                                    guint64  total,
                                    gpointer user_data);

/* Sniffs the content (gzip, zstd, Chrome JSON object/array, XPlane, a
 * TensorBoard profile folder) and reads it. Blocking: call it from a worker
 * thread or a command-line tool. progress is called from the calling thread.
 * Errors are in CP_TRACE_ERROR or G_IO_ERROR and their messages name the file
 * and the reason. */
CpTrace *cp_load_file        (GFile               *file,
                              GCancellable        *cancellable,
                              CpLoadProgressFunc   progress,
                              gpointer             progress_data,
                              GError             **error);

/* The same in a worker thread (GTask). progress, when not NULL, is invoked on
 * the thread-default main context of the caller, at most about 20 times a
 * second; progress_destroy frees progress_data when the task is done. */
void     cp_load_file_async  (GFile               *file,
                              GCancellable        *cancellable,
                              CpLoadProgressFunc   progress,
                              gpointer             progress_data,
                              GDestroyNotify       progress_destroy,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data);
CpTrace *cp_load_file_finish (GAsyncResult        *result,
                              GError             **error);

/* How much memory reading file will take at its peak, estimated from its
 * size, its compression (the decompressed size gzip and zstd state) and its
 * format, from the figures of docs/performance.md; 0 when it cannot tell
 * (a folder, a stream). Quick: reads a few bytes. */
guint64  cp_load_estimate_peak (GFile *file);

/* When the estimate passes CP_LOAD_MEMORY_NOTICE (docs/limits.md), a
 * sentence that says so, to show before the load; else NULL. */
char    *cp_load_describe_memory (GFile *file);

G_END_DECLS
