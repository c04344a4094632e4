/* cp-gen-pb.c: a small protobuf wire-format encoder
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-gen-pb.h"

void
cp_pb_buf_init (CpPbBuf *b)
{
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

void
cp_pb_buf_clear (CpPbBuf *b)
{
  g_free (b->data);
  cp_pb_buf_init (b);
}

void
cp_pb_buf_reset (CpPbBuf *b)
{
  b->len = 0;
}

void
cp_pb_buf_grow (CpPbBuf *b,
                gsize    n)
{
  gsize cap = MAX (b->cap, 256);

  while (cap < b->len + n)
    cap *= 2;
  if (cap != b->cap)
    {
      b->data = g_realloc (b->data, cap);
      b->cap = cap;
    }
}

static inline void
put (CpPbBuf    *b,
     const void *data,
     gsize       len)
{
  if (b->len + len > b->cap)
    cp_pb_buf_grow (b, len);
  memcpy (b->data + b->len, data, len);
  b->len += len;
}

void
cp_pb_uint64 (CpPbBuf *b,
              guint    field,
              guint64  v)
{
  cp_pb_tag (b, field, CP_PB_VARINT);
  cp_pb_varint (b, v);
}

/* int64 is not zigzag-encoded: a negative value takes ten bytes. */
void
cp_pb_int64 (CpPbBuf *b,
             guint    field,
             gint64   v)
{
  cp_pb_tag (b, field, CP_PB_VARINT);
  cp_pb_varint (b, (guint64) v);
}

void
cp_pb_double (CpPbBuf *b,
              guint    field,
              double   v)
{
  guint64 bits;
  guint8 le[8];

  memcpy (&bits, &v, sizeof bits);
  for (int i = 0; i < 8; i++)
    le[i] = (guint8) (bits >> (8 * i));
  cp_pb_tag (b, field, CP_PB_FIXED64);
  put (b, le, sizeof le);
}

void
cp_pb_bytes (CpPbBuf    *b,
             guint       field,
             const void *data,
             gsize       len)
{
  cp_pb_tag (b, field, CP_PB_LEN);
  cp_pb_varint (b, len);
  put (b, data, len);
}

void
cp_pb_string (CpPbBuf    *b,
              guint       field,
              const char *s)
{
  cp_pb_bytes (b, field, s, strlen (s));
}

void
cp_pb_message (CpPbBuf       *b,
               guint          field,
               const CpPbBuf *sub)
{
  cp_pb_bytes (b, field, sub->data, sub->len);
}

void
cp_pb_map_entry (CpPbBuf       *b,
                 guint          field,
                 gint64         key,
                 const CpPbBuf *value)
{
  guint64 len = cp_pb_varint_size (1 << 3) + cp_pb_varint_size ((guint64) key)
                + cp_pb_len_prefix_size (2, value->len) + value->len;

  cp_pb_tag (b, field, CP_PB_LEN);
  cp_pb_varint (b, len);
  cp_pb_int64 (b, 1, key);
  cp_pb_message (b, 2, value);
}
