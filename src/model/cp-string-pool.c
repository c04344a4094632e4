/* cp-string-pool.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-string-pool.h"

#define CHUNK_SIZE (256 * 1024)

/* Open addressing on ids; the table stores id+1 (0 = empty slot). */
struct _CpStringPool
{
  GPtrArray *chunks;        /* of char[] */
  gsize      chunk_used;
  gsize      chunk_size;
  GArray    *strings;       /* of const char * by id */
  GArray    *lengths;       /* of guint32 by id */
  guint32   *table;
  gsize      table_mask;
  gsize      memory;
};

static inline guint32
hash_bytes (const char *s,
            gsize       len)
{
  /* FNV-1a */
  guint32 h = 2166136261u;

  for (gsize i = 0; i < len; i++)
    {
      h ^= (guchar) s[i];
      h *= 16777619u;
    }
  return h;
}

static char *
pool_alloc (CpStringPool *pool,
            gsize         size)
{
  char *chunk;

  if (pool->chunks->len == 0 || pool->chunk_used + size > pool->chunk_size)
    {
      gsize csize = MAX (CHUNK_SIZE, size);

      chunk = g_malloc (csize);
      g_ptr_array_add (pool->chunks, chunk);
      pool->chunk_used = 0;
      pool->chunk_size = csize;
      pool->memory += csize;
    }
  chunk = g_ptr_array_index (pool->chunks, pool->chunks->len - 1);
  chunk += pool->chunk_used;
  pool->chunk_used += size;
  return chunk;
}

static void
table_grow (CpStringPool *pool)
{
  gsize new_size = (pool->table_mask + 1) * 2;
  guint32 *table = g_new0 (guint32, new_size);
  gsize mask = new_size - 1;

  for (guint id = 0; id < pool->strings->len; id++)
    {
      const char *s = g_array_index (pool->strings, const char *, id);
      guint32 len = g_array_index (pool->lengths, guint32, id);
      gsize slot = hash_bytes (s, len) & mask;

      while (table[slot] != 0)
        slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
  pool->memory += (new_size - (pool->table_mask + 1)) * sizeof (guint32);
  g_free (pool->table);
  pool->table = table;
  pool->table_mask = mask;
}

CpStringPool *
cp_string_pool_new (void)
{
  CpStringPool *pool = g_new0 (CpStringPool, 1);

  pool->chunks = g_ptr_array_new_with_free_func (g_free);
  pool->strings = g_array_new (FALSE, FALSE, sizeof (const char *));
  pool->lengths = g_array_new (FALSE, FALSE, sizeof (guint32));
  pool->table_mask = 1024 - 1;
  pool->table = g_new0 (guint32, pool->table_mask + 1);
  pool->memory = sizeof *pool + (pool->table_mask + 1) * sizeof (guint32);
  cp_string_pool_intern (pool, "", 0);
  return pool;
}

void
cp_string_pool_free (CpStringPool *pool)
{
  if (pool == NULL)
    return;
  g_ptr_array_unref (pool->chunks);
  g_array_unref (pool->strings);
  g_array_unref (pool->lengths);
  g_free (pool->table);
  g_free (pool);
}

static CpStr
find (const CpStringPool *pool,
      const char         *str,
      gsize               len,
      guint32             hash,
      gsize              *slot_out)
{
  gsize slot = hash & pool->table_mask;

  while (pool->table[slot] != 0)
    {
      guint32 id = pool->table[slot] - 1;

      if (g_array_index (pool->lengths, guint32, id) == len &&
          memcmp (g_array_index (pool->strings, const char *, id), str, len) == 0)
        {
          *slot_out = slot;
          return id;
        }
      slot = (slot + 1) & pool->table_mask;
    }
  *slot_out = slot;
  return G_MAXUINT32;
}

/* Valid UTF-8 apart from NUL bytes, which strings may hold. */
static gboolean
utf8_valid_but_nul (const char *s,
                    gsize       len)
{
  while (len > 0)
    {
      const char *nul = memchr (s, '\0', len);
      gsize n = nul ? (gsize) (nul - s) : len;

      if (!g_utf8_validate_len (s, n, NULL))
        return FALSE;
      if (nul == NULL)
        break;
      s += n + 1;
      len -= n + 1;
    }
  return TRUE;
}

/* s with invalid UTF-8 replaced by U+FFFD, NUL bytes kept. */
static GString *
utf8_make_valid_but_nul (const char *s,
                         gsize       len)
{
  GString *out = g_string_sized_new (len + 8);

  while (len > 0)
    {
      const char *nul = memchr (s, '\0', len);
      gsize n = nul ? (gsize) (nul - s) : len;
      g_autofree char *valid = g_utf8_make_valid (s, n);

      g_string_append (out, valid);
      if (nul == NULL)
        break;
      g_string_append_c (out, '\0');
      s += n + 1;
      len -= n + 1;
    }
  return out;
}

CpStr
cp_string_pool_intern (CpStringPool *pool,
                       const char   *str,
                       gssize        len)
{
  gsize slot;
  guint32 hash;
  CpStr id;
  char *copy;

  g_return_val_if_fail (pool != NULL, 0);

  if (str == NULL)
    return CP_STR_EMPTY;
  if (len < 0)
    len = strlen (str);
  /* Ids are 32-bit and lengths are kept as guint32; nothing real is longer. */
  if ((gsize) len > G_MAXUINT32 - 1)
    len = G_MAXUINT32 - 1;

  hash = hash_bytes (str, len);
  id = find (pool, str, len, hash, &slot);
  if (id != G_MAXUINT32)
    return id;

  /* Readers pass bytes from files (XPlane strings are raw protobuf bytes);
   * what the model hands to GTK, Pango and JSON output must be UTF-8. Each
   * new string is checked once; an invalid one is interned as its repaired
   * spelling, which later lookups of the same bytes reach the same way. */
  if (G_UNLIKELY (!utf8_valid_but_nul (str, len)))
    {
      g_autoptr(GString) valid = utf8_make_valid_but_nul (str, len);

      return cp_string_pool_intern (pool, valid->str, valid->len);
    }

  if ((pool->strings->len + 1) * 2 > pool->table_mask + 1)
    {
      table_grow (pool);
      find (pool, str, len, hash, &slot);
    }

  copy = pool_alloc (pool, len + 1);
  memcpy (copy, str, len);
  copy[len] = '\0';
  id = pool->strings->len;
  g_array_append_val (pool->strings, copy);
  {
    guint32 l = len;
    g_array_append_val (pool->lengths, l);
  }
  pool->table[slot] = id + 1;
  return id;
}

CpStr
cp_string_pool_lookup (const CpStringPool *pool,
                       const char         *str)
{
  gsize slot;
  gsize len;
  CpStr id;

  g_return_val_if_fail (pool != NULL, G_MAXUINT32);
  if (str == NULL)
    return G_MAXUINT32;
  len = strlen (str);
  id = find (pool, str, len, hash_bytes (str, len), &slot);
  return id;
}

const char *
cp_string_pool_get (const CpStringPool *pool,
                    CpStr               id)
{
  if (G_UNLIKELY (id >= pool->strings->len))
    return "";
  return g_array_index (pool->strings, const char *, id);
}

guint
cp_string_pool_get_length (const CpStringPool *pool,
                           CpStr               id)
{
  if (G_UNLIKELY (id >= pool->strings->len))
    return 0;
  return g_array_index (pool->lengths, guint32, id);
}

guint
cp_string_pool_size (const CpStringPool *pool)
{
  return pool->strings->len;
}

gsize
cp_string_pool_memory (const CpStringPool *pool)
{
  return pool->memory + pool->strings->len * (sizeof (char *) + sizeof (guint32));
}
