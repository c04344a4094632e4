/* cp-protobuf.h: a protobuf wire-format walker over a const buffer
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <string.h>

#include "model/cp-limits.h"

G_BEGIN_DECLS

/* The walker reads one message level at a time: cp_pb_reader_next() returns
 * the next field (tag, wire type and value or byte range) and a nested
 * message is read with a new reader over the field's bytes
 * (cp_pb_reader_init_sub()). Nothing is copied and nothing is allocated; the
 * caller decides which fields to descend into, so the depth of the walk is
 * the caller's, never the file's. The only nesting a file controls is that of
 * groups (wire types 3/4) inside fields that are skipped; those are skipped
 * iteratively and refused past CP_PB_MAX_GROUP_DEPTH.
 *
 * Errors stop the reader: next() returns FALSE, reader->error is set and
 * reader->error_offset is the byte offset (in the whole input, see
 * base_offset) of the field that could not be read. A reader that ran out of
 * bytes in the middle of a field reports CP_PB_ERROR_TRUNCATED, so callers can
 * tell a cut-off file from a damaged one: a length-delimited field that
 * reaches past the end of the whole input is TRUNCATED (and the field is
 * still returned through *field with the bytes that are there, so callers can
 * salvage it), one that reaches past the end of its enclosing message only is
 * CP_PB_ERROR_LENGTH. */

/* CP_PB_MAX_VARINT_BYTES, CP_PB_MAX_GROUP_DEPTH and CP_PB_MAX_DEPTH (nested
 * readers made with cp_pb_reader_init_sub() refuse to go deeper) are in
 * cp-limits.h. */

typedef enum
{
  CP_PB_WIRE_VARINT  = 0,
  CP_PB_WIRE_FIXED64 = 1,
  CP_PB_WIRE_LEN     = 2,
  CP_PB_WIRE_SGROUP  = 3,
  CP_PB_WIRE_EGROUP  = 4,
  CP_PB_WIRE_FIXED32 = 5,
} CpPbWireType;

typedef enum
{
  CP_PB_OK = 0,
  CP_PB_ERROR_TRUNCATED,     /* the input ends inside a field */
  CP_PB_ERROR_VARINT,        /* a varint longer than 10 bytes or above 2^64 */
  CP_PB_ERROR_WIRE_TYPE,     /* wire type 6 or 7, or an end-group with no start */
  CP_PB_ERROR_FIELD_NUMBER,  /* field number 0 or above 2^29 - 1 */
  CP_PB_ERROR_LENGTH,        /* a field that reaches past the end of its enclosing message */
  CP_PB_ERROR_GROUP,         /* groups nested too deeply, or a mismatched end-group */
  CP_PB_ERROR_DEPTH,         /* messages nested deeper than CP_PB_MAX_DEPTH */
} CpPbError;

typedef struct
{
  const guint8 *start;       /* first byte of this message */
  const guint8 *p;           /* next byte to read */
  const guint8 *end;         /* one past the last byte of this message */
  const guint8 *input_end;   /* one past the last byte of the whole input */
  guint64       base_offset; /* offset of 'start' in the whole input */
  guint         depth;
  CpPbError     error;
  guint64       error_offset;
} CpPbReader;

typedef struct
{
  guint32       number;      /* field number */
  guint8        wire_type;   /* CpPbWireType */
  guint64       value;       /* varint, fixed64 or fixed32 value (raw bits) */
  const guint8 *data;        /* LEN: the bytes; SGROUP: the group's content */
  gsize         len;
  gboolean      partial;     /* LEN cut off by the end of the input (see above) */
  guint64       offset;      /* offset of the tag in the whole input */
} CpPbField;

void         cp_pb_reader_init      (CpPbReader       *reader,
                                     const guint8     *data,
                                     gsize             len,
                                     guint64           base_offset);
/* A reader over a length-delimited field of parent. FALSE (and the error set
 * on parent) when the field is not length-delimited or too deep. */
gboolean     cp_pb_reader_init_sub  (CpPbReader       *reader,
                                     CpPbReader       *parent,
                                     const CpPbField  *field);
gboolean     cp_pb_reader_next      (CpPbReader       *reader,
                                     CpPbField        *field);
/* The offset in the whole input of the next byte to read. */
guint64      cp_pb_reader_offset    (const CpPbReader *reader);
gboolean     cp_pb_reader_at_end    (const CpPbReader *reader);
const char  *cp_pb_error_to_string  (CpPbError         error);

/* The general case of cp_pb_read_varint(), out of line. */
gboolean     cp_pb_read_varint_slow (const guint8 **p,
                                     const guint8  *end,
                                     guint64       *value,
                                     CpPbError     *err);

/* A varint at *p (not beyond end): TRUE and *p advanced past it, or FALSE
 * with *err set (CP_PB_ERROR_TRUNCATED or CP_PB_ERROR_VARINT). One- and
 * two-byte varints (tags, lengths, small ids) are decoded inline. */
static inline __attribute__ ((always_inline)) gboolean
cp_pb_read_varint (const guint8 **p,
                   const guint8  *end,
                   guint64       *value,
                   CpPbError     *err)
{
  const guint8 *q = *p;

  if (G_LIKELY (q < end && q[0] < 0x80))
    {
      *value = q[0];
      *p = q + 1;
      return TRUE;
    }
  if (G_LIKELY (end - q >= 2 && q[1] < 0x80))
    {
      *value = (guint64) (q[0] & 0x7f) | ((guint64) q[1] << 7);
      *p = q + 2;
      return TRUE;
    }
  return cp_pb_read_varint_slow (p, end, value, err);
}

/* Loads the 8 bytes at q (which must be readable) into x and returns the
 * length of the varint they start with, or 0 when it is longer than 8. */
static inline guint
cp_pb_varint_word (const guint8 *q,
                   guint64      *x)
{
  guint64 stops;

  memcpy (x, q, 8);
  *x = GUINT64_FROM_LE (*x);
  stops = ~*x & G_GUINT64_CONSTANT (0x8080808080808080);
  return stops != 0 ? ((guint) __builtin_ctzll (stops) >> 3) + 1 : 0;
}

/* The value of an n-byte varint (n <= 8) from the 8 bytes x that start
 * with it (little-endian): the continuation bits squeezed out. */
static inline guint64
cp_pb_varint_squeeze (guint64 x,
                      guint   n)
{
  if (n < 8)
    x &= (G_GUINT64_CONSTANT (1) << (8 * n)) - 1;
  return (x & 0x7f) |
         ((x >> 1) & G_GUINT64_CONSTANT (0x3f80)) |
         ((x >> 2) & G_GUINT64_CONSTANT (0x1fc000)) |
         ((x >> 3) & G_GUINT64_CONSTANT (0xfe00000)) |
         ((x >> 4) & G_GUINT64_CONSTANT (0x7f0000000)) |
         ((x >> 5) & G_GUINT64_CONSTANT (0x3f800000000)) |
         ((x >> 6) & G_GUINT64_CONSTANT (0x1fc0000000000)) |
         ((x >> 7) & G_GUINT64_CONSTANT (0xfe000000000000));
}

/* Like cp_pb_read_varint(), for a message inside a larger buffer whose bytes
 * up to limit (>= end) may be read: a varint of up to 8 bytes is decoded
 * from one 8-byte load even when it ends near end, where
 * cp_pb_read_varint() would go byte by byte. */
static inline __attribute__ ((always_inline)) gboolean
cp_pb_read_varint_within (const guint8 **p,
                          const guint8  *end,
                          const guint8  *limit,
                          guint64       *value,
                          CpPbError     *err)
{
  const guint8 *q = *p;

  if (G_LIKELY (q < end && q[0] < 0x80))
    {
      *value = q[0];
      *p = q + 1;
      return TRUE;
    }
  if (G_LIKELY (q < end && limit - q >= 8))
    {
      guint64 x;
      guint n = cp_pb_varint_word (q, &x);

      if (G_LIKELY (n != 0))
        {
          if (G_UNLIKELY ((gsize) (end - q) < n))
            {
              *err = CP_PB_ERROR_TRUNCATED;
              return FALSE;
            }
          *value = cp_pb_varint_squeeze (x, n);
          *p = q + n;
          return TRUE;
        }
    }
  return cp_pb_read_varint_slow (p, end, value, err);
}

static inline guint64
cp_pb_load_fixed64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

static inline guint32
cp_pb_load_fixed32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, sizeof v);
  return GUINT32_FROM_LE (v);
}

/* Value helpers: proto int64 is the varint's bits as two's complement; sint64
 * is zigzag; double and float are IEEE bits. */
static inline gint64
cp_pb_int64 (guint64 v)
{
  return (gint64) v;
}

static inline gint64
cp_pb_sint64 (guint64 v)
{
  return (gint64) (v >> 1) ^ -(gint64) (v & 1);
}

static inline double
cp_pb_double (guint64 bits)
{
  double d;

  memcpy (&d, &bits, sizeof d);
  return d;
}

static inline float
cp_pb_float (guint32 bits)
{
  float f;

  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Repeated scalar fields, packed (one LEN field holding the elements) or not
 * (one field per element): init with each field seen for that number, then
 * call next() until it returns FALSE; check it->error afterwards. */
typedef struct
{
  const guint8 *p;
  const guint8 *end;
  guint64       single;
  guint8        wire_type;   /* element wire type */
  gboolean      has_single;
  CpPbError     error;
} CpPbRepeated;

/* elem_wire_type: CP_PB_WIRE_VARINT, CP_PB_WIRE_FIXED64 or CP_PB_WIRE_FIXED32.
 * Returns FALSE (error set) when the field has another wire type. */
gboolean     cp_pb_repeated_init    (CpPbRepeated     *it,
                                     const CpPbField  *field,
                                     CpPbWireType      elem_wire_type);
gboolean     cp_pb_repeated_next    (CpPbRepeated     *it,
                                     guint64          *value);

/* A map entry (a LEN field whose message has key = 1 and value = 2). The key
 * is read as a varint; value is the last field 2 seen (any wire type), or
 * has_value FALSE. For duplicate fields inside the entry the last one wins. */
gboolean     cp_pb_read_map_entry   (CpPbReader       *parent,
                                     const CpPbField  *entry,
                                     guint64          *key,
                                     CpPbField        *value,
                                     gboolean         *has_value);

G_END_DECLS
