/* cp-chrome-reader.h: Chrome Trace Event JSON (PyTorch/Kineto) into a trace builder
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-trace-builder.h"
#include "cp-loader.h"
#include "cp-source.h"

G_BEGIN_DECLS

/* Top-level values other than the events are kept as metadata up to
 * CP_CHROME_MAX_METADATA bytes each, the arguments of one event up to
 * CP_CHROME_MAX_ARGS (cp-limits.h). */

typedef struct _CpChromeReader CpChromeReader;

/* A reader fills builder as text is fed. mapped, when not NULL, is the whole
 * input (a mapped file): arguments are then kept as zero-copy references into
 * it, and fed chunks must be consecutive slices of it. name names the input in
 * messages. */
CpChromeReader *cp_chrome_reader_new    (CpTraceBuilder  *builder,
                                         GBytes          *mapped,
                                         const char      *name);
void            cp_chrome_reader_free   (CpChromeReader  *self);

/* Feeds the next chunk. Returns FALSE when reading cannot go on: a fatal
 * error (error set) or damaged text after which nothing more can be read
 * (no error: finish() reports the truncation or fails). */
gboolean        cp_chrome_reader_feed   (CpChromeReader  *self,
                                         const char      *data,
                                         gsize            len,
                                         GError         **error);
/* Tells the reader that the input stopped early because of damage after
 * the fed bytes (a corrupted compressed frame): loaded events are kept and
 * the report says where reading stopped. */
void            cp_chrome_reader_input_damaged (CpChromeReader *self,
                                                const GError   *damage);
/* Ends the input: matches what is still open, binds flows, applies
 * metadata, detects steps. Fails (CP_TRACE_ERROR) when the text is not a
 * trace or nothing could be read. */
gboolean        cp_chrome_reader_finish (CpChromeReader  *self,
                                         GError         **error);

/* Reads a whole source (sniffed as JSON) into builder, with progress (input
 * bytes) and cancellation. */
gboolean        cp_chrome_reader_read_source (CpSource           *source,
                                              CpTraceBuilder     *builder,
                                              GCancellable       *cancellable,
                                              CpLoadProgressFunc  progress,
                                              gpointer            progress_data,
                                              GError            **error);

/* Classification helpers, exposed for tests. */
CpTransferKind  cp_chrome_transfer_kind (const char *name,
                                         guint16    *flags);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpChromeReader, cp_chrome_reader_free)

/* For tests: read with n_threads threads in all (0: as the machine and
 * CHOKEPOINT_THREADS say; 1: one) in chunks of chunk_bytes (0: the
 * default), whatever the input's size. How the reading thread meets the
 * workers' chunks: */
typedef enum
{
  CP_CHROME_PAR_FREE,   /* as a load does: it reads those they have not
                         * reached; when it catches up it reads the rest of
                         * the chunk, and the one after, itself */
  CP_CHROME_PAR_WAIT,   /* it waits for every chunk to be read ahead */
  CP_CHROME_PAR_KEEP,   /* it waits, but keeps every chunk after the one
                         * it enters to read itself */
  CP_CHROME_PAR_CLAIM,  /* it waits; the workers read only the first half
                         * of each chunk, as if it had claimed the rest */
} CpChromeParMode;

void _cp_chrome_set_threads (guint           n_threads,
                             gsize           chunk_bytes,
                             CpChromeParMode mode);
/* For tests: how many events the last parallel read found read ahead, how
 * many chunks the reading thread kept for itself, how many it read the
 * rest of itself (claimed from a worker), and how many bytes of
 * its arrays the workers populated ahead of it. */
guint64 _cp_chrome_get_replayed (void);
guint64 _cp_chrome_get_kept (void);
guint64 _cp_chrome_get_claimed (void);
guint64 _cp_chrome_get_populated (void);
/* For tests: reserve the big columns (cp_trace_builder_expect_big()) for
 * mapped input of at least bytes, whether or not huge pages are in use
 * (0: as the input's size and the kernel say). */
void _cp_chrome_set_big_input (gsize bytes);

G_END_DECLS
