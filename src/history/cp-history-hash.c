/* cp-history-hash.c: the content hash that names a run
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run is one capture's bytes. The hash only has to tell captures apart,
 * not resist someone forging one, so it is XXH64 (the public xxHash
 * specification, seed 0): it runs at memory speed, about twenty times
 * nettle's SHA-256 with the CPU's SHA instructions, which cost recording
 * 27% of what diagnosing the capture costs. Runs recorded before kept the
 * SHA-256 (`sha256:`); cp_history_add() recognises them by path and size
 * and renames them, so reopening such a capture still adds nothing.
 */

#include "config.h"

#include <nettle/sha2.h>
#include <string.h>

#include "cp-history-private.h"

/* XXH64, streaming. */

#define P1 G_GUINT64_CONSTANT (0x9E3779B185EBCA87)
#define P2 G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F)
#define P3 G_GUINT64_CONSTANT (0x165667B19E3779F9)
#define P4 G_GUINT64_CONSTANT (0x85EBCA77C2B2AE63)
#define P5 G_GUINT64_CONSTANT (0x27D4EB2F165667C5)

typedef struct
{
  guint64 v[4];
  guint64 total;
  guint8  buf[32];
  guint   buffered;
} Xxh64;

static inline guint64
rotl (guint64 x,
      int     r)
{
  return (x << r) | (x >> (64 - r));
}

static inline guint64
read64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return GUINT64_FROM_LE (v);
}

static inline guint32
read32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

static inline guint64
round64 (guint64 acc,
         guint64 input)
{
  acc += input * P2;
  acc = rotl (acc, 31);
  return acc * P1;
}

static inline guint64
merge64 (guint64 acc,
         guint64 v)
{
  acc ^= round64 (0, v);
  return acc * P1 + P4;
}

static void
xxh64_init (Xxh64 *h)
{
  memset (h, 0, sizeof *h);
  h->v[0] = P1 + P2;
  h->v[1] = P2;
  h->v[2] = 0;
  h->v[3] = -P1;
}

/* Whole 32-byte stripes of p; returns how many bytes it took. */
static gsize
xxh64_stripes (Xxh64        *h,
               const guint8 *p,
               gsize         len)
{
  guint64 v0 = h->v[0], v1 = h->v[1], v2 = h->v[2], v3 = h->v[3];
  const guint8 *start = p;

  for (; len >= 32; len -= 32, p += 32)
    {
      v0 = round64 (v0, read64 (p));
      v1 = round64 (v1, read64 (p + 8));
      v2 = round64 (v2, read64 (p + 16));
      v3 = round64 (v3, read64 (p + 24));
    }
  h->v[0] = v0;
  h->v[1] = v1;
  h->v[2] = v2;
  h->v[3] = v3;
  return (gsize) (p - start);
}

static void
xxh64_update (Xxh64        *h,
              const guint8 *p,
              gsize         len)
{
  h->total += len;
  if (h->buffered > 0)
    {
      gsize take = MIN (len, 32 - (gsize) h->buffered);

      memcpy (h->buf + h->buffered, p, take);
      h->buffered += (guint) take;
      p += take;
      len -= take;
      if (h->buffered < 32)
        return;
      xxh64_stripes (h, h->buf, 32);
      h->buffered = 0;
    }
  if (len >= 32)
    {
      gsize done = xxh64_stripes (h, p, len);

      p += done;
      len -= done;
    }
  memcpy (h->buf, p, len);
  h->buffered = (guint) len;
}

static guint64
xxh64_digest (const Xxh64 *h)
{
  const guint8 *p = h->buf;
  gsize len = h->buffered;
  guint64 acc;

  if (h->total >= 32)
    {
      acc = rotl (h->v[0], 1) + rotl (h->v[1], 7) + rotl (h->v[2], 12) + rotl (h->v[3], 18);
      for (guint i = 0; i < 4; i++)
        acc = merge64 (acc, h->v[i]);
    }
  else
    acc = P5;
  acc += h->total;
  for (; len >= 8; len -= 8, p += 8)
    {
      acc ^= round64 (0, read64 (p));
      acc = rotl (acc, 27) * P1 + P4;
    }
  if (len >= 4)
    {
      acc ^= (guint64) read32 (p) * P1;
      acc = rotl (acc, 23) * P2 + P3;
      len -= 4;
      p += 4;
    }
  for (; len > 0; len--, p++)
    {
      acc ^= (guint64) *p * P5;
      acc = rotl (acc, 11) * P1;
    }
  acc ^= acc >> 33;
  acc *= P2;
  acc ^= acc >> 29;
  acc *= P3;
  acc ^= acc >> 32;
  return acc;
}

/* One walk over a file or a folder, for either hash. */

typedef struct
{
  gboolean          legacy;
  Xxh64             xxh;
  struct sha256_ctx sha;
} Sum;

static void
sum_update (Sum          *sum,
            const guint8 *p,
            gsize         len)
{
  if (sum->legacy)
    sha256_update (&sum->sha, len, p);
  else
    xxh64_update (&sum->xxh, p, len);
}

#define HASH_CHUNK (1 << 20)

static gboolean
hash_stream (Sum           *sum,
             GFile         *file,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GFileInputStream) in = g_file_read (file, cancellable, error);
  g_autofree guint8 *buf = NULL;

  if (in == NULL)
    return FALSE;
  buf = g_malloc (HASH_CHUNK);
  for (;;)
    {
      gssize n = g_input_stream_read (G_INPUT_STREAM (in), buf, HASH_CHUNK, cancellable, error);

      if (n < 0)
        return FALSE;
      if (n == 0)
        return TRUE;
      sum_update (sum, buf, (gsize) n);
    }
}

/* Every regular file below dir, as paths relative to root. */
static gboolean
collect_files (GFile         *root,
               GFile         *dir,
               GPtrArray     *out,
               guint          depth,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autoptr(GFileEnumerator) e = NULL;

  if (depth > 16)
    return TRUE;
  e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                 G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, error);
  if (e == NULL)
    return FALSE;
  for (;;)
    {
      GFileInfo *info;
      GFile *child;

      if (!g_file_enumerator_iterate (e, &info, &child, cancellable, error))
        return FALSE;
      if (info == NULL)
        return TRUE;
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          if (!collect_files (root, child, out, depth + 1, cancellable, error))
            return FALSE;
        }
      else if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
        g_ptr_array_add (out, g_file_get_relative_path (root, child));
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
hash_file (GFile         *file,
           gboolean       legacy,
           GCancellable  *cancellable,
           GError       **error)
{
  Sum sum = { .legacy = legacy };

  if (legacy)
    sha256_init (&sum.sha);
  else
    xxh64_init (&sum.xxh);
  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, cancellable) == G_FILE_TYPE_DIRECTORY)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

      if (!collect_files (file, file, names, 0, cancellable, error))
        return NULL;
      g_ptr_array_sort (names, compare_strings);
      for (guint i = 0; i < names->len; i++)
        {
          const char *name = names->pdata[i];
          g_autoptr(GFile) child = g_file_resolve_relative_path (file, name);

          /* The name with its terminating NUL, then the bytes. */
          sum_update (&sum, (const guint8 *) name, strlen (name) + 1);
          if (!hash_stream (&sum, child, cancellable, error))
            return NULL;
        }
    }
  else if (!hash_stream (&sum, file, cancellable, error))
    return NULL;

  if (legacy)
    {
      guint8 digest[SHA256_DIGEST_SIZE];
      GString *out = g_string_new (CP_HISTORY_LEGACY_HASH_PREFIX);

      sha256_digest (&sum.sha, sizeof digest, digest);
      for (guint i = 0; i < sizeof digest; i++)
        g_string_append_printf (out, "%02x", digest[i]);
      return g_string_free (out, FALSE);
    }
  return g_strdup_printf (CP_HISTORY_HASH_PREFIX "%016" G_GINT64_MODIFIER "x", xxh64_digest (&sum.xxh));
}

char *
cp_history_hash_file (GFile         *file,
                      GCancellable  *cancellable,
                      GError       **error)
{
  return hash_file (file, FALSE, cancellable, error);
}

char *
_cp_history_hash_file_legacy (GFile         *file,
                              GCancellable  *cancellable,
                              GError       **error)
{
  return hash_file (file, TRUE, cancellable, error);
}
