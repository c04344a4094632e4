/* cp-gen-out.h: buffered file output with streaming gzip or zstd compression
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  CP_GEN_COMPRESS_NONE,
  CP_GEN_COMPRESS_GZIP,
  CP_GEN_COMPRESS_ZSTD,
} CpGenCompress;

#define CP_GEN_OUT_BUFFER (1 << 20)

/* Writers append to buf directly through the inline helpers; everything
 * else is private to cp-gen-out.c. */
typedef struct
{
  char   *buf;
  gsize   len;
  guint64 total;      /* uncompressed bytes accepted so far */
} CpGenOut;

CpGenOut *cp_gen_out_open   (const char    *path,
                             CpGenCompress  compress,
                             int            level,
                             GError       **error);
void      cp_gen_out_drain  (CpGenOut      *out);
/* Flushes, finishes the compressed stream and closes the file; returns the
 * number of bytes on disk in *file_bytes. Frees out. */
gboolean  cp_gen_out_close  (CpGenOut      *out,
                             guint64       *file_bytes,
                             GError       **error);

/* Room for n more bytes (n <= CP_GEN_OUT_BUFFER). */
static inline char *
cp_gen_out_reserve (CpGenOut *out,
                    gsize     n)
{
  if (G_UNLIKELY (out->len + n > CP_GEN_OUT_BUFFER))
    cp_gen_out_drain (out);
  return out->buf + out->len;
}

static inline void
cp_gen_out_commit (CpGenOut *out,
                   gsize     n)
{
  out->len += n;
  out->total += n;
}

static inline void
cp_gen_out_write (CpGenOut   *out,
                  const void *data,
                  gsize       n)
{
  while (n > 0)
    {
      gsize chunk = MIN (n, (gsize) CP_GEN_OUT_BUFFER);

      memcpy (cp_gen_out_reserve (out, chunk), data, chunk);
      cp_gen_out_commit (out, chunk);
      data = (const char *) data + chunk;
      n -= chunk;
    }
}

static inline void
cp_gen_out_str (CpGenOut   *out,
                const char *s)
{
  cp_gen_out_write (out, s, strlen (s));
}

G_END_DECLS
