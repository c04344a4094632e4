/* cp-gen-pb.h: a small protobuf wire-format encoder
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Enough of the wire format for XPlane: varints (int64 as two's complement,
 * uint64), fixed64 doubles, length-delimited strings, bytes, nested messages
 * and map entries. Messages are built in a growable buffer; large ones are
 * written by the caller as tag + length + parts once their size is known.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  CP_PB_VARINT = 0,
  CP_PB_FIXED64 = 1,
  CP_PB_LEN = 2,
} CpPbWireType;

typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   cap;
} CpPbBuf;

void   cp_pb_buf_init     (CpPbBuf *b);
void   cp_pb_buf_clear    (CpPbBuf *b);
void   cp_pb_buf_reset    (CpPbBuf *b);
void   cp_pb_buf_grow     (CpPbBuf *b,
                           gsize    n);

static inline guint
cp_pb_varint_size (guint64 v)
{
  guint n = 1;

  while (v >= 0x80)
    {
      v >>= 7;
      n++;
    }
  return n;
}

/* Writes v as a varint at p; returns the bytes written (1-10). */
static inline guint
cp_pb_put_varint (guint8 *p,
                  guint64 v)
{
  guint n = 0;

  while (v >= 0x80)
    {
      p[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  p[n++] = (guint8) v;
  return n;
}

static inline void
cp_pb_varint (CpPbBuf *b,
              guint64  v)
{
  if (G_UNLIKELY (b->len + 10 > b->cap))
    cp_pb_buf_grow (b, 10);
  b->len += cp_pb_put_varint (b->data + b->len, v);
}

static inline void
cp_pb_tag (CpPbBuf     *b,
           guint        field,
           CpPbWireType type)
{
  cp_pb_varint (b, ((guint64) field << 3) | type);
}

/* Size of a length-delimited field's tag and length prefix. */
static inline guint
cp_pb_len_prefix_size (guint   field,
                       guint64 len)
{
  return cp_pb_varint_size ((guint64) field << 3) + cp_pb_varint_size (len);
}

void   cp_pb_uint64       (CpPbBuf    *b,
                           guint       field,
                           guint64     v);
void   cp_pb_int64        (CpPbBuf    *b,
                           guint       field,
                           gint64      v);
void   cp_pb_double       (CpPbBuf    *b,
                           guint       field,
                           double      v);
void   cp_pb_bytes        (CpPbBuf    *b,
                           guint       field,
                           const void *data,
                           gsize       len);
void   cp_pb_string       (CpPbBuf    *b,
                           guint       field,
                           const char *s);
/* A nested message whose encoding is in sub. */
void   cp_pb_message      (CpPbBuf       *b,
                           guint          field,
                           const CpPbBuf *sub);
/* A map<int64, Message> entry: key = 1 (varint), value = 2 (message). */
void   cp_pb_map_entry    (CpPbBuf       *b,
                           guint          field,
                           gint64         key,
                           const CpPbBuf *value);

G_END_DECLS
