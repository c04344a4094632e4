/* cp-source.h: open a capture file, sniff it, map or stream-decompress it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-limits.h"

G_BEGIN_DECLS

/* Decompression is limited by CP_SOURCE_MAX_RATIO and CP_SOURCE_RATIO_GRACE
 * (cp-limits.h, docs/limits.md). */
/* Size of the chunks read() returns. */
#define CP_SOURCE_CHUNK_SIZE    (1024u * 1024u)
/* Plain files are handed out in slices of this size (zero-copy). */
#define CP_SOURCE_MAPPED_SLICE  (8u * 1024u * 1024u)

typedef enum
{
  CP_COMPRESSION_NONE,
  CP_COMPRESSION_GZIP,
  CP_COMPRESSION_ZSTD,
} CpCompression;

typedef enum
{
  CP_CONTENT_UNKNOWN,       /* not something we read; see cp_source_get_guess() */
  CP_CONTENT_EMPTY,         /* no bytes (after decompression) */
  CP_CONTENT_JSON_OBJECT,   /* '{' after an optional BOM and whitespace */
  CP_CONTENT_JSON_ARRAY,    /* '[' after an optional BOM and whitespace */
  CP_CONTENT_XPLANE,        /* protobuf whose first field is 1, length-delimited */
} CpContentKind;

typedef struct _CpSource CpSource;

/* Opens and sniffs a file. Errors (G_IO_ERROR, or CP_TRACE_ERROR for
 * damaged or refused compressed data) name the file. */
CpSource       *cp_source_open             (GFile         *file,
                                            GCancellable  *cancellable,
                                            GError       **error);
/* A source over bytes in memory (tests, fuzzing): sniffed, decompressed and
 * limited like a file. Uncompressed content is handed out as slices of data,
 * which cp_source_get_mapped() returns. name names it in messages; the
 * source's GFile is made from name and never opened. */
CpSource       *cp_source_new_for_bytes    (GBytes        *data,
                                            const char    *name,
                                            GError       **error);
void            cp_source_free             (CpSource      *self);

GFile          *cp_source_get_file         (CpSource      *self);
/* The file's name for messages (its parse name). */
const char     *cp_source_get_name         (CpSource      *self);
guint64         cp_source_get_file_size    (CpSource      *self);
CpCompression   cp_source_get_compression  (CpSource      *self);
CpContentKind   cp_source_get_content_kind (CpSource      *self);
/* For CP_CONTENT_UNKNOWN and EMPTY: what the content seems to be, as a
 * translated phrase ("an HTML document", "binary data", "an empty file"). */
const char     *cp_source_get_guess        (CpSource      *self);
/* The first bytes of the (decompressed) content, at most 4 KiB. */
const guint8   *cp_source_peek             (CpSource      *self,
                                            gsize         *len);

/* For uncompressed local files: the whole content, memory-mapped (zero-copy;
 * the mapping lives as long as the returned bytes). NULL otherwise. */
GBytes         *cp_source_get_mapped       (CpSource      *self);
/* Whether cp_source_get_mapped() is a mapping of the file (not memory of
 * its own): its pages can be handed back to the page cache. */
gboolean        cp_source_is_file_mapped   (CpSource      *self);

/* The next chunk of (decompressed) content, in order; NULL at the end, or
 * NULL with error set when reading failed: data that ends early or is
 * corrupted, a limit, cancellation. Chunks of mapped files are slices of the
 * mapping. */
GBytes         *cp_source_read             (CpSource      *self,
                                            GCancellable  *cancellable,
                                            GError       **error);

/* Progress: input bytes (compressed bytes for compressed files) consumed, and
 * content bytes produced so far. */
guint64         cp_source_get_consumed     (CpSource      *self);
guint64         cp_source_get_produced     (CpSource      *self);

/* For a mapped file: drops the whole pages within [from, to) from the
 * process's memory; reading them again maps them back from the page cache.
 * Does nothing for other sources. */
void            cp_source_drop_range       (CpSource      *self,
                                            guint64        from,
                                            guint64        to);
/* Releases pages of a mapped file before offset from memory (they are read
 * again from the file if touched later). No-op for other sources. */
void            cp_source_release_before   (CpSource      *self,
                                            guint64        offset);

/* After reading: FALSE (CP_TRACE_ERROR_DAMAGED, naming the file) when a
 * mapped file was truncated or replaced while it was read, so that pages of
 * it read as zeros (see cp-mapping.h). */
gboolean        cp_source_check_unchanged  (CpSource      *self,
                                            GError       **error);
/* After reading: a message when the file's size is no longer what it was
 * when it was opened (it grew or shrank meanwhile), else NULL. */
char           *cp_source_describe_change  (CpSource      *self);

/* A note about data ignored after the end of a gzip stream, or NULL. */
const char     *cp_source_get_trailing_note (CpSource     *self);

const char     *cp_compression_to_string   (CpCompression  compression);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpSource, cp_source_free)

G_END_DECLS
