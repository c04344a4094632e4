/* cp-gen-out.c: buffered file output with streaming gzip or zstd compression
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Memory stays constant whatever the size written: one input buffer, one
 * output buffer and the compressor's own state.
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>

#include <glib/gstdio.h>
#include <zlib.h>
#include <zstd.h>

#include "cp-gen-out.h"

typedef struct
{
  CpGenOut      pub;
  CpGenCompress compress;
  FILE         *file;
  gboolean      is_stdout;
  char         *path;
  guint8       *zbuf;
  gsize         zcap;
  z_stream      gz;
  ZSTD_CCtx    *zstd;
  guint64       file_bytes;
  int           error_errno;
  char         *error_message;
} CpGenOutPrivate;

static void
fail (CpGenOutPrivate *p,
      int              err,
      const char      *message)
{
  if (p->error_errno == 0 && p->error_message == NULL)
    {
      p->error_errno = err;
      p->error_message = g_strdup (message);
    }
}

static void
put_file (CpGenOutPrivate *p,
          const void      *data,
          gsize            n)
{
  if (n == 0 || p->error_message != NULL)
    return;
  if (fwrite (data, 1, n, p->file) != n)
    fail (p, errno, g_strerror (errno));
  p->file_bytes += n;
}

static void
compress_chunk (CpGenOutPrivate *p,
                const void      *data,
                gsize            n,
                gboolean         finish)
{
  switch (p->compress)
    {
    case CP_GEN_COMPRESS_NONE:
      put_file (p, data, n);
      break;

    case CP_GEN_COMPRESS_GZIP:
      {
        int flush = finish ? Z_FINISH : Z_NO_FLUSH;
        int ret;

        p->gz.next_in = (Bytef *) data;
        p->gz.avail_in = (uInt) n;
        do
          {
            p->gz.next_out = p->zbuf;
            p->gz.avail_out = (uInt) p->zcap;
            ret = deflate (&p->gz, flush);
            if (ret == Z_STREAM_ERROR)
              {
                fail (p, EIO, "zlib deflate failed");
                return;
              }
            put_file (p, p->zbuf, p->zcap - p->gz.avail_out);
          }
        while (p->gz.avail_out == 0 || (finish && ret != Z_STREAM_END));
      }
      break;

    case CP_GEN_COMPRESS_ZSTD:
      {
        ZSTD_inBuffer in = { data, n, 0 };
        gboolean done;

        do
          {
            ZSTD_outBuffer outb = { p->zbuf, p->zcap, 0 };
            size_t ret = ZSTD_compressStream2 (p->zstd, &outb, &in,
                                               finish ? ZSTD_e_end : ZSTD_e_continue);

            if (ZSTD_isError (ret))
              {
                fail (p, EIO, ZSTD_getErrorName (ret));
                return;
              }
            put_file (p, p->zbuf, outb.pos);
            done = finish ? ret == 0 : in.pos == in.size;
          }
        while (!done);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

CpGenOut *
cp_gen_out_open (const char    *path,
                 CpGenCompress  compress,
                 int            level,
                 GError       **error)
{
  CpGenOutPrivate *p = g_new0 (CpGenOutPrivate, 1);

  p->compress = compress;
  p->path = g_strdup (path);
  if (g_strcmp0 (path, "-") == 0)
    {
      p->file = stdout;
      p->is_stdout = TRUE;
    }
  else
    {
      p->file = g_fopen (path, "wb");
      if (p->file == NULL)
        {
          int err = errno;

          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                       "Cannot create %s: %s", path, g_strerror (err));
          g_free (p->path);
          g_free (p);
          return NULL;
        }
    }
  p->pub.buf = g_malloc (CP_GEN_OUT_BUFFER);
  p->zcap = 1 << 18;
  p->zbuf = g_malloc (p->zcap);
  if (compress == CP_GEN_COMPRESS_GZIP)
    {
      /* windowBits 15 + 16: a gzip wrapper with mtime 0, so output is
       * reproducible. */
      if (deflateInit2 (&p->gz, level < 0 ? 3 : CLAMP (level, 1, 9), Z_DEFLATED, 15 + 16, 8,
                        Z_DEFAULT_STRATEGY) != Z_OK)
        g_error ("zlib initialisation failed");
    }
  else if (compress == CP_GEN_COMPRESS_ZSTD)
    {
      p->zstd = ZSTD_createCCtx ();
      ZSTD_CCtx_setParameter (p->zstd, ZSTD_c_compressionLevel, level < 0 ? 3 : CLAMP (level, 1, 19));
      ZSTD_CCtx_setParameter (p->zstd, ZSTD_c_checksumFlag, 1);
    }
  return &p->pub;
}

void
cp_gen_out_drain (CpGenOut *out)
{
  CpGenOutPrivate *p = (CpGenOutPrivate *) out;

  compress_chunk (p, out->buf, out->len, FALSE);
  out->len = 0;
}

gboolean
cp_gen_out_close (CpGenOut  *out,
                  guint64   *file_bytes,
                  GError   **error)
{
  CpGenOutPrivate *p = (CpGenOutPrivate *) out;
  gboolean ok;

  compress_chunk (p, out->buf, out->len, TRUE);
  out->len = 0;
  if (p->compress == CP_GEN_COMPRESS_GZIP)
    deflateEnd (&p->gz);
  else if (p->compress == CP_GEN_COMPRESS_ZSTD)
    ZSTD_freeCCtx (p->zstd);
  if (p->is_stdout)
    {
      if (fflush (p->file) != 0)
        fail (p, errno, g_strerror (errno));
    }
  else if (fclose (p->file) != 0)
    fail (p, errno, g_strerror (errno));

  ok = p->error_message == NULL;
  if (!ok)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (p->error_errno ? p->error_errno : EIO),
                 "Cannot write %s: %s", p->path, p->error_message);
  if (file_bytes != NULL)
    *file_bytes = p->file_bytes;
  g_free (p->error_message);
  g_free (p->path);
  g_free (p->zbuf);
  g_free (out->buf);
  g_free (p);
  return ok;
}
