/* cp-source.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A source hands out the content of a capture file as a sequence of chunks.
 * Uncompressed local files are memory-mapped and handed out as slices of the
 * mapping, so a reader can keep references into them (zero-copy). gzip
 * (including concatenated members) and zstd (including several frames) are
 * inflated one output chunk at a time, so the uncompressed text never has to
 * exist in memory as a whole; on two cores or more a thread of the source's
 * own inflates a few chunks ahead while the reader parses the last one. */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#ifdef G_OS_UNIX
# include <sys/mman.h>
# include <unistd.h>
#endif

#include "model/cp-trace.h"
#include "cp-mapping.h"
#include "cp-source.h"

#define HEAD_SIZE     4096
#define IN_BUF_SIZE   (256 * 1024)
#define READ_AHEAD    4              /* chunks the inflating thread keeps ready */

/* A chunk the inflating thread made: the bytes, or NULL at the end with
 * error set when it is not a clean one; the counters as of it. */
typedef struct
{
  GBytes  *bytes;
  GError  *error;
  guint64  consumed;
  guint64  produced;
} Inflated;

struct _CpSource
{
  GFile          *file;
  char           *name;
  guint64         file_size;
  guint64         opened_size;   /* size the file had when opened */
  gboolean        in_memory;     /* made by cp_source_new_for_bytes() */
  CpCompression   compression;
  CpContentKind   kind;
  char           *guess;

  guint8          head[HEAD_SIZE];
  gsize           head_len;

  /* Mapped plain file (a guarded mapping, see cp-mapping.h), or the bytes
   * of an in-memory source. */
  GBytes         *mapped;
  gboolean        mapped_is_file;
  guint64         map_pos;
  guint64         released;

  /* Streamed input (compressed, or plain but not mappable). */
  GInputStream   *stream;
  guint8         *in_buf;
  gsize           in_len;
  gsize           in_pos;
  gboolean        in_eof;
  guint64         in_total;      /* bytes read from the stream */

  /* Decompressors. */
  z_stream        zs;
  gboolean        zs_init;
  gboolean        gz_between;    /* between gzip members (clean end possible) */
  guint64         gz_member_out; /* output of the current member */
  ZSTD_DStream   *zds;
  gboolean        zstd_open;     /* inside a zstd frame */

  GBytes         *pending;       /* first chunk, produced while sniffing */
  GError         *deferred_error; /* damage met after the last chunk handed out */
  gboolean        done;
  guint64         produced;
  char           *trailing_note;

  /* Inflating ahead on a thread (compressed files, two cores or more).
   * While it runs, it alone touches the stream, the decompressors and the
   * counters above; the reader sees the counters as of the last chunk it
   * took (seen_*). */
  gboolean        ahead;         /* inflate on a thread */
  GThread        *inflater;
  GMutex          lock;
  GCond           cond;
  GQueue          ready;         /* Inflated *, oldest first */
  gboolean        stop;
  gboolean        ahead_over;    /* the end was handed out */
  GCancellable   *ahead_cancellable;
  guint64         seen_consumed;
  guint64         seen_produced;
};

const char *
cp_compression_to_string (CpCompression compression)
{
  switch (compression)
    {
    case CP_COMPRESSION_GZIP:
      return "gzip";
    case CP_COMPRESSION_ZSTD:
      return "zstd";
    case CP_COMPRESSION_NONE:
    default:
      return "none";
    }
}

static void
inflated_free (Inflated *it)
{
  g_clear_pointer (&it->bytes, g_bytes_unref);
  g_clear_error (&it->error);
  g_free (it);
}

static void
stop_inflater (CpSource *self)
{
  if (self->inflater == NULL)
    return;
  g_mutex_lock (&self->lock);
  self->stop = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_thread_join (self->inflater);
  self->inflater = NULL;
  g_queue_clear_full (&self->ready, (GDestroyNotify) inflated_free);
}

void
cp_source_free (CpSource *self)
{
  if (self == NULL)
    return;
  stop_inflater (self);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_clear_object (&self->ahead_cancellable);
  g_clear_object (&self->file);
  g_free (self->name);
  g_free (self->guess);
  g_clear_pointer (&self->mapped, g_bytes_unref);
  if (self->stream)
    g_input_stream_close (self->stream, NULL, NULL);
  g_clear_object (&self->stream);
  g_free (self->in_buf);
  if (self->zs_init)
    inflateEnd (&self->zs);
  if (self->zds)
    ZSTD_freeDStream (self->zds);
  g_clear_pointer (&self->pending, g_bytes_unref);
  g_clear_error (&self->deferred_error);
  g_free (self->trailing_note);
  g_free (self);
}

GFile *
cp_source_get_file (CpSource *self)
{
  return self->file;
}

const char *
cp_source_get_name (CpSource *self)
{
  return self->name;
}

guint64
cp_source_get_file_size (CpSource *self)
{
  return self->file_size;
}

CpCompression
cp_source_get_compression (CpSource *self)
{
  return self->compression;
}

CpContentKind
cp_source_get_content_kind (CpSource *self)
{
  return self->kind;
}

const char *
cp_source_get_guess (CpSource *self)
{
  return self->guess ? self->guess : "";
}

const guint8 *
cp_source_peek (CpSource *self,
                gsize    *len)
{
  *len = self->head_len;
  return self->head;
}

GBytes *
cp_source_get_mapped (CpSource *self)
{
  return self->mapped;
}

/* The compressed bytes taken in so far, for the thread that inflates. */
static guint64
consumed_now (CpSource *self)
{
  if (self->mapped)
    return self->map_pos;
  if (self->compression == CP_COMPRESSION_NONE)
    return self->produced;
  return self->in_total - (self->in_len - self->in_pos);
}

guint64
cp_source_get_consumed (CpSource *self)
{
  if (self->ahead)
    return self->seen_consumed;
  if (self->mapped)
    return self->map_pos;
  if (self->compression == CP_COMPRESSION_NONE)
    return self->produced;
  return self->in_total - (self->in_len - self->in_pos);
}

guint64
cp_source_get_produced (CpSource *self)
{
  return self->ahead ? self->seen_produced : self->produced;
}

void
cp_source_drop_range (CpSource *self,
                      guint64   from,
                      guint64   to)
{
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  gsize size;
  const guint8 *base;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  g_return_if_fail (self != NULL);

  if (self->mapped == NULL || !self->mapped_is_file || page <= 0)
    return;
  base = g_bytes_get_data (self->mapped, &size);
  if (base == NULL || from >= to || to > size)
    return;
  start = ((guintptr) base + from + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) base + to) & ~((guintptr) page - 1);
  if (stop > start)
    madvise ((void *) start, stop - start, MADV_DONTNEED);
#endif
}

gboolean
cp_source_is_file_mapped (CpSource *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->mapped != NULL && self->mapped_is_file;
}

void
cp_source_release_before (CpSource *self,
                          guint64   offset)
{
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  gsize size;
  const guint8 *base;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  if (self->mapped == NULL || !self->mapped_is_file || page <= 0)
    return;
  base = g_bytes_get_data (self->mapped, &size);
  if (base == NULL || offset > size)
    return;
  start = ((guintptr) base + self->released + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) base + offset) & ~((guintptr) page - 1);
  if (stop > start)
    {
      madvise ((void *) start, stop - start, MADV_DONTNEED);
      self->released = stop - (guintptr) base;
    }
#endif
}

/* Sniffing */

static gboolean
has_prefix (const guint8 *d,
            gsize         n,
            const char   *magic,
            gsize         m)
{
  return n >= m && memcmp (d, magic, m) == 0;
}

static gboolean
looks_like_xspace (const guint8 *d,
                   gsize         n,
                   guint64       total)
{
  guint64 len = 0;
  guint shift = 0;
  gsize i = 1;

  if (n < 2 || d[0] != 0x0a)
    return FALSE;
  for (; i < n && i < 11; i++)
    {
      len |= (guint64) (d[i] & 0x7f) << shift;
      shift += 7;
      if (!(d[i] & 0x80))
        break;
    }
  if (i >= n || (d[i] & 0x80))
    return FALSE;
  i++;
  if (total > 0 && len > total - MIN (total, i))
    return FALSE;
  if (len > (G_GUINT64_CONSTANT (1) << 40))
    return FALSE;
  if (len == 0 || i >= n)
    return TRUE;
  /* The first field of an XPlane: id, name, lines, event/stat metadata, stats. */
  switch (d[i])
    {
    case 0x08: case 0x12: case 0x1a: case 0x22: case 0x2a: case 0x32:
      return TRUE;
    default:
      return FALSE;
    }
}

/* UTF-16 or UTF-32 text, from its byte-order mark or the zero bytes
 * around ASCII ('{' as 7b 00 or 00 7b...). */
static const char *
utf16_or_32 (const guint8 *d,
             gsize         n)
{
  if (n >= 4 && memcmp (d, "\xff\xfe\0\0", 4) == 0)
    return "UTF-32LE";
  if (n >= 4 && memcmp (d, "\0\0\xfe\xff", 4) == 0)
    return "UTF-32BE";
  if (n >= 2 && memcmp (d, "\xff\xfe", 2) == 0)
    return "UTF-16LE";
  if (n >= 2 && memcmp (d, "\xfe\xff", 2) == 0)
    return "UTF-16BE";
  if (n >= 4 && (d[0] == '{' || d[0] == '[') && d[1] == 0 && d[2] == 0 && d[3] == 0)
    return "UTF-32LE";
  if (n >= 4 && d[0] == 0 && d[1] == 0 && d[2] == 0 && (d[3] == '{' || d[3] == '['))
    return "UTF-32BE";
  if (n >= 2 && (d[0] == '{' || d[0] == '[') && d[1] == 0)
    return "UTF-16LE";
  if (n >= 2 && d[0] == 0 && (d[1] == '{' || d[1] == '['))
    return "UTF-16BE";
  return NULL;
}

static char *
guess_content (const guint8 *d,
               gsize         n)
{
  gsize binary = 0, i = 0;

  if (n == 0)
    return g_strdup (_("an empty file"));
  if (has_prefix (d, n, "PK\x03\x04", 4))
    return g_strdup (_("a ZIP archive"));
  if (has_prefix (d, n, "\x89PNG", 4))
    return g_strdup (_("a PNG image"));
  if (has_prefix (d, n, "\xff\xd8\xff", 3))
    return g_strdup (_("a JPEG image"));
  if (has_prefix (d, n, "GIF8", 4))
    return g_strdup (_("a GIF image"));
  if (has_prefix (d, n, "%PDF", 4))
    return g_strdup (_("a PDF document"));
  if (has_prefix (d, n, "\x7f" "ELF", 4))
    return g_strdup (_("a program (ELF binary)"));
  if (has_prefix (d, n, "BZh", 3))
    return g_strdup (_("bzip2-compressed data, which is not supported (use gzip or zstd)"));
  if (has_prefix (d, n, "\xfd" "7zXZ", 6))
    return g_strdup (_("xz-compressed data, which is not supported (use gzip or zstd)"));
  if (has_prefix (d, n, "\x1f\x8b", 2))
    return g_strdup (_("gzip data inside compressed data"));
  if (has_prefix (d, n, "\x28\xb5\x2f\xfd", 4))
    return g_strdup (_("zstd data inside compressed data"));
  if (has_prefix (d, n, "SQLite format 3", 15))
    return g_strdup (_("an SQLite database"));
  if (has_prefix (d, n, "PAR1", 4))
    return g_strdup (_("a Parquet file"));
  if (has_prefix (d, n, "\x93NUMPY", 6))
    return g_strdup (_("a NumPy array file"));
  if (n >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5)
    return g_strdup (_("a Python pickle"));
  {
    const char *encoding = utf16_or_32 (d, n);

    if (encoding != NULL)
      /* TRANSLATORS: both %s are an encoding name such as “UTF-16LE”. */
      return g_strdup_printf (_("JSON text in %s, which is not read (captures are UTF-8): "
                                "convert it, for example with “iconv -f %s -t UTF-8”"),
                              encoding, encoding);
  }

  for (gsize k = 0; k < n; k++)
    {
      guint8 c = d[k];

      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
        binary++;
    }
  if (binary * 20 > n)
    return g_strdup (_("binary data"));
  if (!g_utf8_validate_len ((const char *) d, n, NULL))
    {
      /* The head may end inside a character; look at most of it. */
      if (n > 4 && !g_utf8_validate_len ((const char *) d, n - 4, NULL))
        return g_strdup (_("text that is not UTF-8, or binary data"));
    }

  if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
    i = 3;
  while (i < n && g_ascii_isspace (d[i]))
    i++;
  if (i == n)
    return g_strdup (_("a file of blank text"));
  if (d[i] == '<')
    {
      g_autofree char *lower = g_ascii_strdown ((const char *) d + i, MIN (n - i, 512));

      if (strstr (lower, "<html") || strstr (lower, "<!doctype html"))
        return g_strdup (_("an HTML document (perhaps a saved web page or an exported trace viewer page)"));
      if (g_str_has_prefix (lower, "<?xml"))
        return g_strdup (_("an XML document"));
      return g_strdup (_("markup text"));
    }
  if (d[i] == '"' || d[i] == '-' || g_ascii_isdigit (d[i]) ||
      has_prefix (d + i, n - i, "true", 4) || has_prefix (d + i, n - i, "false", 5) ||
      has_prefix (d + i, n - i, "null", 4))
    return g_strdup (_("a single JSON value, not a JSON object or array"));
  if (d[i] == '#')
    return g_strdup (_("a text file (perhaps a script or configuration file)"));
  return g_strdup (_("a text file that is not JSON"));
}

static void
sniff (CpSource *self)
{
  const guint8 *d = self->head;
  gsize n = self->head_len, i = 0;

  if (n == 0)
    {
      self->kind = CP_CONTENT_EMPTY;
      self->guess = g_strdup (_("an empty file"));
      return;
    }
  if (utf16_or_32 (d, n) != NULL)
    {
      self->kind = CP_CONTENT_UNKNOWN;
      self->guess = guess_content (d, n);
      return;
    }
  if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
    i = 3;
  while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
    i++;
  if (i < n && d[i] == '{')
    {
      self->kind = CP_CONTENT_JSON_OBJECT;
      return;
    }
  if (i < n && d[i] == '[')
    {
      self->kind = CP_CONTENT_JSON_ARRAY;
      return;
    }
  if (looks_like_xspace (d, n, self->compression == CP_COMPRESSION_NONE ? self->file_size : 0))
    {
      self->kind = CP_CONTENT_XPLANE;
      return;
    }
  self->kind = CP_CONTENT_UNKNOWN;
  if (i == n && i > 0)
    self->guess = g_strdup (_("a file of blank text"));
  else
    self->guess = guess_content (d, n);
}

/* Reading */

static gboolean
refill (CpSource      *self,
        GCancellable  *cancellable,
        GError       **error)
{
  gssize n;

  if (self->in_eof)
    return TRUE;
  n = g_input_stream_read (self->stream, self->in_buf, IN_BUF_SIZE, cancellable, error);
  if (n < 0)
    return FALSE;
  self->in_len = n;
  self->in_pos = 0;
  self->in_total += n;
  if (n == 0)
    self->in_eof = TRUE;
  return TRUE;
}

static gboolean
check_ratio (CpSource  *self,
             guint64    produced,
             GError   **error)
{
  guint64 consumed = consumed_now (self);

  if (produced > CP_SOURCE_RATIO_GRACE && produced / CP_SOURCE_MAX_RATIO > MAX (consumed, 1))
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                   _("“%s” expands to more than %u times its compressed size "
                     "(%" PRIu64 " bytes from %" PRIu64 "), the limit for "
                     "compressed captures; it looks like a decompression bomb"),
                   self->name, CP_SOURCE_MAX_RATIO, produced, consumed);
      return FALSE;
    }
  return TRUE;
}

static void
set_truncated_error (CpSource  *self,
                     GError   **error)
{
  g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
               _("The %s data of “%s” ends early after %" PRIu64
                 " uncompressed bytes: the file is truncated"),
               cp_compression_to_string (self->compression), self->name, self->produced);
}

/* Inflates up to CP_SOURCE_CHUNK_SIZE bytes. Returns NULL at a clean end. */
static GBytes *
inflate_chunk (CpSource      *self,
               GCancellable  *cancellable,
               GError       **error)
{
  guint8 *out = g_malloc (CP_SOURCE_CHUNK_SIZE);
  gsize out_len = 0;

  while (out_len < CP_SOURCE_CHUNK_SIZE)
    {
      gsize before_in, before_out;
      gboolean progress;

      if (self->in_pos == self->in_len && !self->in_eof)
        {
          if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
              !refill (self, cancellable, error))
            goto fail;
        }

      before_in = self->in_len - self->in_pos;
      before_out = out_len;

      if (self->compression == CP_COMPRESSION_GZIP)
        {
          int ret;

          if (self->gz_between && self->in_pos < self->in_len)
            {
              /* Another member follows, or trailing bytes. */
              if (self->in_buf[self->in_pos] != 0x1f)
                {
                  gboolean zeros = TRUE;

                  for (gsize k = self->in_pos; k < self->in_len && zeros; k++)
                    zeros = self->in_buf[k] == 0;
                  if (!zeros && self->trailing_note == NULL)
                    self->trailing_note = g_strdup_printf (_("Ignored data after the end of the gzip stream at compressed byte %" PRIu64),
                                                           consumed_now (self));
                  self->in_pos = self->in_len;
                  self->in_eof = TRUE;
                  break;
                }
              inflateReset (&self->zs);
              self->gz_between = FALSE;
              self->gz_member_out = 0;
            }
          if (self->in_pos == self->in_len && self->in_eof)
            {
              if (!self->gz_between)
                {
                  /* Flush what inflate still holds, then decide. */
                  self->zs.next_in = self->in_buf + self->in_pos;
                  self->zs.avail_in = 0;
                  self->zs.next_out = out + out_len;
                  self->zs.avail_out = CP_SOURCE_CHUNK_SIZE - out_len;
                  ret = inflate (&self->zs, Z_NO_FLUSH);
                  out_len = CP_SOURCE_CHUNK_SIZE - self->zs.avail_out;
                  if (ret == Z_STREAM_END)
                    {
                      self->gz_between = TRUE;
                      continue;
                    }
                  if (out_len > before_out)
                    continue;
                  if (out_len > 0)
                    break;
                  set_truncated_error (self, error);
                  goto fail;
                }
              break;
            }

          self->zs.next_in = self->in_buf + self->in_pos;
          self->zs.avail_in = self->in_len - self->in_pos;
          self->zs.next_out = out + out_len;
          self->zs.avail_out = CP_SOURCE_CHUNK_SIZE - out_len;
          ret = inflate (&self->zs, Z_NO_FLUSH);
          self->in_pos = self->in_len - self->zs.avail_in;
          out_len = CP_SOURCE_CHUNK_SIZE - self->zs.avail_out;
          self->gz_member_out += out_len - before_out;
          if (ret == Z_STREAM_END)
            self->gz_between = TRUE;
          else if (ret != Z_OK && ret != Z_BUF_ERROR)
            {
              g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                           _("The gzip data of “%s” is damaged near compressed byte %" PRIu64 " (%s)"),
                           self->name, consumed_now (self),
                           self->zs.msg ? self->zs.msg : _("invalid data"));
              goto fail;
            }
        }
      else
        {
          ZSTD_inBuffer in = { self->in_buf + self->in_pos, self->in_len - self->in_pos, 0 };
          ZSTD_outBuffer o = { out, CP_SOURCE_CHUNK_SIZE, out_len };
          size_t ret;

          if (self->in_pos == self->in_len && self->in_eof && !self->zstd_open)
            break;
          ret = ZSTD_decompressStream (self->zds, &o, &in);
          self->in_pos += in.pos;
          out_len = o.pos;
          if (ZSTD_isError (ret))
            {
              g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                           _("The zstd data of “%s” is damaged near compressed byte %" PRIu64 " (%s)"),
                           self->name, consumed_now (self), ZSTD_getErrorName (ret));
              goto fail;
            }
          self->zstd_open = ret != 0;
          if (self->in_pos == self->in_len && self->in_eof && out_len == before_out)
            {
              if (self->zstd_open)
                {
                  if (out_len > 0)
                    break;
                  set_truncated_error (self, error);
                  goto fail;
                }
              break;
            }
        }

      progress = out_len != before_out || (self->in_len - self->in_pos) != before_in;
      if (!check_ratio (self, self->produced + out_len, error))
        {
          /* One step can inflate a whole chunk from a few bytes: what is
           * handed out before the error stays within the limit. */
          guint64 allowed = MAX ((guint64) MAX (consumed_now (self), 1) * CP_SOURCE_MAX_RATIO,
                                 (guint64) CP_SOURCE_RATIO_GRACE);

          if (self->produced + out_len > allowed)
            out_len = allowed > self->produced ? (gsize) (allowed - self->produced) : 0;
          goto fail;
        }
      if (!progress && self->in_pos == self->in_len && self->in_eof)
        break;
    }

  if (out_len == 0)
    {
      g_free (out);
      self->done = TRUE;
      return NULL;
    }
  self->produced += out_len;
  return g_bytes_new_take (out, out_len);

fail:
  self->done = TRUE;
  if (out_len > 0 && error != NULL && *error != NULL &&
      !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Hand out what came before the damage (a good frame before a bad
       * one, the start of a corrupted stream); the error comes with the
       * next read. */
      self->deferred_error = g_steal_pointer (error);
      self->produced += out_len;
      return g_bytes_new_take (out, out_len);
    }
  g_free (out);
  return NULL;
}

/* The next chunk of a compressed stream, as cp_source_read() gives it. */
static GBytes *
next_inflated (CpSource      *self,
               GCancellable  *cancellable,
               GError       **error)
{
  if (self->deferred_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->deferred_error));
      return NULL;
    }
  if (self->done)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  return inflate_chunk (self, cancellable, error);
}

static gpointer
inflate_thread (gpointer data)
{
  CpSource *self = data;

  for (;;)
    {
      Inflated *it = g_new0 (Inflated, 1);
      gboolean over;

      it->bytes = next_inflated (self, self->ahead_cancellable, &it->error);
      it->consumed = consumed_now (self);
      it->produced = self->produced;
      over = it->bytes == NULL;
      g_mutex_lock (&self->lock);
      g_queue_push_tail (&self->ready, it);
      g_cond_broadcast (&self->cond);
      while (!over && !self->stop && self->ready.length >= READ_AHEAD)
        g_cond_wait (&self->cond, &self->lock);
      over = over || self->stop;
      g_mutex_unlock (&self->lock);
      if (over)
        return NULL;
    }
}

/* The next chunk from the inflating thread (started on the first read). */
static GBytes *
read_ahead (CpSource      *self,
            GCancellable  *cancellable,
            GError       **error)
{
  Inflated *it;
  GBytes *bytes;

  if (self->ahead_over)
    return NULL;
  if (self->inflater == NULL)
    {
      g_set_object (&self->ahead_cancellable, cancellable);
      self->inflater = g_thread_new ("cp-inflate", inflate_thread, self);
    }
  g_mutex_lock (&self->lock);
  while (self->ready.length == 0)
    g_cond_wait (&self->cond, &self->lock);
  it = g_queue_pop_head (&self->ready);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  self->seen_consumed = it->consumed;
  self->seen_produced = it->produced;
  bytes = g_steal_pointer (&it->bytes);
  if (bytes == NULL)
    {
      self->ahead_over = TRUE;
      if (it->error != NULL)
        g_propagate_error (error, g_steal_pointer (&it->error));
      /* The thread has ended with that item: join it. */
      g_thread_join (self->inflater);
      self->inflater = NULL;
    }
  inflated_free (it);
  return bytes;
}

GBytes *
cp_source_read (CpSource      *self,
                GCancellable  *cancellable,
                GError       **error)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->pending)
    return g_steal_pointer (&self->pending);
  if (self->ahead)
    return read_ahead (self, cancellable, error);
  if (self->deferred_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->deferred_error));
      return NULL;
    }
  if (self->done)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  if (self->mapped)
    {
      gsize size = g_bytes_get_size (self->mapped);
      gsize n = MIN ((guint64) CP_SOURCE_MAPPED_SLICE, size - self->map_pos);
      GBytes *slice;

      if (n == 0)
        {
          self->done = TRUE;
          return NULL;
        }
      slice = g_bytes_new_from_bytes (self->mapped, self->map_pos, n);
      self->map_pos += n;
      self->produced = self->map_pos;
      return slice;
    }

  if (self->compression == CP_COMPRESSION_NONE)
    {
      guint8 *buf;
      gsize got = 0;

      if (self->in_pos < self->in_len)
        {
          /* Bytes read while sniffing. */
          gsize n = self->in_len - self->in_pos;
          GBytes *b = g_bytes_new (self->in_buf + self->in_pos, n);

          self->in_pos = self->in_len;
          self->produced += n;
          return b;
        }
      buf = g_malloc (CP_SOURCE_CHUNK_SIZE);
      if (!g_input_stream_read_all (self->stream, buf, CP_SOURCE_CHUNK_SIZE, &got, cancellable, error))
        {
          g_free (buf);
          self->done = TRUE;
          return NULL;
        }
      if (got == 0)
        {
          g_free (buf);
          self->done = TRUE;
          return NULL;
        }
      self->produced += got;
      return g_bytes_new_take (buf, got);
    }

  return inflate_chunk (self, cancellable, error);
}

/* Reads the head from self->stream, detects compression and sniffs the
 * content. A source whose content is not compressed is then handed the
 * whole content by the caller (a mapping or bytes), or keeps streaming. */
static gboolean
open_stream (CpSource      *self,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gsize got = 0;

  self->in_buf = g_malloc (IN_BUF_SIZE);
  if (!g_input_stream_read_all (self->stream, self->in_buf, HEAD_SIZE, &got, cancellable, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Could not read “%s”: %s"), self->name, local_error->message);
      return FALSE;
    }
  self->in_len = got;
  self->in_total = got;
  if (got < HEAD_SIZE)
    self->in_eof = TRUE;

  if (has_prefix (self->in_buf, got, "\x1f\x8b", 2))
    {
      self->compression = CP_COMPRESSION_GZIP;
      if (inflateInit2 (&self->zs, 15 + 16) != Z_OK)
        {
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO,
                       _("Could not start decompressing “%s”"), self->name);
          return FALSE;
        }
      self->zs_init = TRUE;
    }
  else if (has_prefix (self->in_buf, got, "\x28\xb5\x2f\xfd", 4) ||
           (got >= 4 && (self->in_buf[0] & 0xf0) == 0x50 &&
            memcmp (self->in_buf + 1, "\x2a\x4d\x18", 3) == 0))
    {
      self->compression = CP_COMPRESSION_ZSTD;
      self->zds = ZSTD_createDStream ();
      if (self->zds == NULL || ZSTD_isError (ZSTD_initDStream (self->zds)))
        {
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO,
                       _("Could not start decompressing “%s”"), self->name);
          return FALSE;
        }
    }

  if (self->compression != CP_COMPRESSION_NONE)
    {
      self->pending = inflate_chunk (self, cancellable, &local_error);
      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      if (self->pending)
        {
          gsize n;
          const guint8 *d = g_bytes_get_data (self->pending, &n);

          self->head_len = MIN (n, HEAD_SIZE);
          memcpy (self->head, d, self->head_len);
        }
      sniff (self);
      /* A file, and a core to spare: inflate ahead (CHOKEPOINT_THREADS=1
       * keeps everything on the reading thread). */
      self->ahead = !self->in_memory && g_get_num_processors () >= 2 &&
                    g_strcmp0 (g_getenv ("CHOKEPOINT_THREADS"), "1") != 0;
      self->seen_consumed = consumed_now (self);
      self->seen_produced = self->produced;
      return TRUE;
    }

  self->head_len = got;
  memcpy (self->head, self->in_buf, got);
  sniff (self);
  return TRUE;
}

/* An uncompressed source gets its whole content at once: stop streaming. */
static void
use_whole_content (CpSource *self,
                   GBytes   *content,
                   gboolean  is_file)
{
  self->mapped = content;
  self->mapped_is_file = is_file;
#if defined(G_OS_UNIX) && defined(MADV_SEQUENTIAL)
  if (is_file)
    {
      gsize size;
      const guint8 *base = g_bytes_get_data (self->mapped, &size);
      long page = sysconf (_SC_PAGESIZE);

      if (base != NULL && size > 0 && page > 0 && ((guintptr) base % page) == 0)
        madvise ((void *) base, size, MADV_SEQUENTIAL);
    }
#endif
  self->file_size = g_bytes_get_size (self->mapped);
  g_input_stream_close (self->stream, NULL, NULL);
  g_clear_object (&self->stream);
  g_clear_pointer (&self->in_buf, g_free);
  self->in_len = self->in_pos = 0;
}

/* What kind of special file (G_FILE_TYPE_SPECIAL) file is, for messages. */
static const char *
describe_special_file (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  GStatBuf st;

  if (path != NULL && g_stat (path, &st) == 0)
    {
      if (S_ISFIFO (st.st_mode))
        return _("a named pipe (FIFO)");
      if (S_ISSOCK (st.st_mode))
        return _("a socket");
      if (S_ISCHR (st.st_mode))
        return _("a character device");
      if (S_ISBLK (st.st_mode))
        return _("a block device");
    }
  return _("a special file");
}

CpSource *
cp_source_open (GFile         *file,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(CpSource) self = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) fstream = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  self = g_new0 (CpSource, 1);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->file = g_object_ref (file);
  self->name = g_file_get_parse_name (file);

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, &local_error);
  if (info == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     _("“%s” does not exist"), self->name);
      else
        g_set_error (error, local_error->domain, local_error->code,
                     _("Could not open “%s”: %s"), self->name, local_error->message);
      return NULL;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("“%s” is a folder, not a capture file"), self->name);
      return NULL;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_SPECIAL)
    {
      /* A pipe may have no writer (open() would wait for one forever) or
       * never end; a device or socket is no capture either. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("“%s” is %s, not a capture file: save the capture to a file and open that"),
                   self->name, describe_special_file (file));
      return NULL;
    }
  self->file_size = g_file_info_get_size (info);
  self->opened_size = self->file_size;

  fstream = g_file_read (file, cancellable, &local_error);
  if (fstream == NULL)
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Could not open “%s”: %s"), self->name, local_error->message);
      return NULL;
    }
  self->stream = G_INPUT_STREAM (g_steal_pointer (&fstream));
  if (!open_stream (self, cancellable, error))
    return NULL;
  if (self->compression != CP_COMPRESSION_NONE)
    return g_steal_pointer (&self);

  /* Plain local regular files are mapped (zero-copy), with a guard against
   * the file being truncated meanwhile; anything else (pipes, devices,
   * remote files) is streamed. */
  path = g_file_get_path (file);
  if (path != NULL && self->file_size > 0)
    {
      GBytes *mapping = cp_mapping_map_file (path);

      if (mapping != NULL)
        use_whole_content (self, mapping, TRUE);
    }
  return g_steal_pointer (&self);
}

CpSource *
cp_source_new_for_bytes (GBytes        *data,
                         const char    *name,
                         GError       **error)
{
  g_autoptr(CpSource) self = NULL;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  self = g_new0 (CpSource, 1);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->file = g_file_new_for_path (name);
  self->name = g_strdup (name);
  self->in_memory = TRUE;
  self->file_size = g_bytes_get_size (data);
  self->opened_size = self->file_size;
  self->stream = g_memory_input_stream_new_from_bytes (data);
  if (!open_stream (self, NULL, error))
    return NULL;
  if (self->compression == CP_COMPRESSION_NONE && self->file_size > 0)
    use_whole_content (self, g_bytes_ref (data), FALSE);
  return g_steal_pointer (&self);
}

gboolean
cp_source_check_unchanged (CpSource  *self,
                           GError   **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->mapped != NULL && self->mapped_is_file && cp_mapping_is_damaged (self->mapped))
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                   _("“%s” was truncated or replaced by another program while it was being "
                     "read; open it again once it is complete"),
                   self->name);
      return FALSE;
    }
  return TRUE;
}

char *
cp_source_describe_change (CpSource *self)
{
  g_autoptr(GFileInfo) info = NULL;
  guint64 now;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->in_memory)
    return NULL;
  info = g_file_query_info (self->file, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL)
    return NULL;
  now = g_file_info_get_size (info);
  if (now == self->opened_size)
    return NULL;
  return g_strdup_printf (_("“%s” changed while it was being read: it had %" PRIu64
                            " bytes when it was opened and has %" PRIu64 " now; "
                            "open it again to see its current content"),
                          self->name, self->opened_size, now);
}

const char *
cp_source_get_trailing_note (CpSource *self)
{
  return self->trailing_note;
}
