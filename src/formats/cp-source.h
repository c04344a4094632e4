/* cp-source.h: open a capture file, sniff it, map or stream-decompress it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Documented limits of decompression. Once CP_SOURCE_RATIO_GRACE bytes were
 * produced, output larger than CP_SOURCE_MAX_RATIO times the compressed input
 * read so far is refused as a decompression bomb (CP_TRACE_ERROR_LIMIT).
 * Real captures compress 10x to 60x. */
#define CP_SOURCE_MAX_RATIO     1000
#define CP_SOURCE_RATIO_GRACE   (16u * 1024u * 1024u)
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

/* Releases pages of a mapped file before offset from memory (they are read
 * again from the file if touched later). No-op for other sources. */
void            cp_source_release_before   (CpSource      *self,
                                            guint64        offset);

/* A note about data ignored after the end of a gzip stream, or NULL. */
const char     *cp_source_get_trailing_note (CpSource     *self);

const char     *cp_compression_to_string   (CpCompression  compression);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpSource, cp_source_free)

G_END_DECLS
