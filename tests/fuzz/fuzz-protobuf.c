/* fuzz-protobuf.c: the protobuf wire-format walker
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is any bytes, read as a protobuf message. Every field the
 * walker returns is compared with a plain reference decoder written here
 * from the wire-format specification (tag, wire type, value, length, the
 * error and its offset), and every length-delimited field is walked again
 * as a message, as packed repeated scalars and as a map entry, down to
 * CP_PB_MAX_DEPTH. Field bytes must lie inside the input. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cp-protobuf.h"
#include "cp-fuzz.h"

#define CHECK(cond)                                                          \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

static const guint8 *in_start, *in_end;

/* Reference decoder ----------------------------------------------------- */

static CpPbError
ref_varint (const guint8 **p,
            const guint8  *end,
            guint64       *out)
{
  guint64 v = 0;

  for (guint i = 0; i < 10; i++)
    {
      guint8 b;

      if (*p >= end)
        return CP_PB_ERROR_TRUNCATED;
      b = *(*p)++;
      if (i == 9 && b > 1)
        return CP_PB_ERROR_VARINT;
      v |= (guint64) (b & 0x7f) << (7 * i);
      if (!(b & 0x80))
        {
          *out = v;
          return CP_PB_OK;
        }
    }
  return CP_PB_ERROR_VARINT;
}

static CpPbError
ref_skip_group (const guint8 **p,
                const guint8  *end,
                guint64        number,
                const guint8 **content_end)
{
  guint64 stack[CP_PB_MAX_GROUP_DEPTH];
  guint depth = 0;

  stack[depth++] = number;
  while (depth > 0)
    {
      const guint8 *at = *p;
      guint64 tag, v;
      CpPbError e;

      if (*p >= end)
        return CP_PB_ERROR_TRUNCATED;
      if ((e = ref_varint (p, end, &tag)) != CP_PB_OK)
        return e;
      if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
        return CP_PB_ERROR_FIELD_NUMBER;
      switch (tag & 7)
        {
        case 0:
          if ((e = ref_varint (p, end, &v)) != CP_PB_OK)
            return e;
          break;
        case 1:
          if (end - *p < 8)
            return CP_PB_ERROR_TRUNCATED;
          *p += 8;
          break;
        case 5:
          if (end - *p < 4)
            return CP_PB_ERROR_TRUNCATED;
          *p += 4;
          break;
        case 2:
          if ((e = ref_varint (p, end, &v)) != CP_PB_OK)
            return e;
          if (v > (guint64) (end - *p))
            return CP_PB_ERROR_TRUNCATED;
          *p += v;
          break;
        case 3:
          if (depth >= CP_PB_MAX_GROUP_DEPTH)
            return CP_PB_ERROR_GROUP;
          stack[depth++] = tag >> 3;
          break;
        case 4:
          if (stack[depth - 1] != (tag >> 3))
            return CP_PB_ERROR_GROUP;
          if (--depth == 0)
            *content_end = at;
          break;
        default:
          return CP_PB_ERROR_WIRE_TYPE;
        }
    }
  return CP_PB_OK;
}

/* One field at *p of a message ending at end; is_outer: end is the end of
 * the whole input. */
static CpPbError
ref_field (const guint8 **p,
           const guint8  *end,
           gboolean       is_outer,
           guint32       *number,
           guint         *wire,
           guint64       *value,
           const guint8 **data,
           gsize         *len)
{
  guint64 tag;
  CpPbError e;

  *data = NULL;
  *len = 0;
  *value = 0;
  if ((e = ref_varint (p, end, &tag)) != CP_PB_OK)
    goto out;
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
    {
      e = CP_PB_ERROR_FIELD_NUMBER;
      goto out;
    }
  *number = (guint32) (tag >> 3);
  *wire = tag & 7;
  switch (*wire)
    {
    case 0:
      e = ref_varint (p, end, value);
      break;
    case 1:
      if (end - *p < 8)
        e = CP_PB_ERROR_TRUNCATED;
      else
        {
          for (int i = 7; i >= 0; i--)
            *value = (*value << 8) | (*p)[i];
          *p += 8;
        }
      break;
    case 5:
      if (end - *p < 4)
        e = CP_PB_ERROR_TRUNCATED;
      else
        {
          for (int i = 3; i >= 0; i--)
            *value = (*value << 8) | (*p)[i];
          *p += 4;
        }
      break;
    case 2:
      if ((e = ref_varint (p, end, value)) != CP_PB_OK)
        break;
      if (*value > (guint64) (end - *p))
        {
          e = CP_PB_ERROR_TRUNCATED;
          break;
        }
      *data = *p;
      *len = (gsize) *value;
      *p += *value;
      break;
    case 3:
      {
        const guint8 *content = *p, *content_end = *p;

        e = ref_skip_group (p, end, *number, &content_end);
        if (e == CP_PB_OK)
          {
            *data = content;
            *len = content_end - content;
          }
      }
      break;
    default:
      e = CP_PB_ERROR_WIRE_TYPE;
      break;
    }
out:
  if (e == CP_PB_ERROR_TRUNCATED && !is_outer)
    e = CP_PB_ERROR_LENGTH;
  return e;
}

/* The walk --------------------------------------------------------------- */

static void walk (CpPbReader *r);

static void
check_field (const CpPbField *f)
{
  CHECK (f->offset < (guint64) (in_end - in_start));
  if (f->data != NULL)
    {
      CHECK (f->data >= in_start && f->data <= in_end);
      CHECK (f->len <= (gsize) (in_end - f->data));
    }
}

static void
try_repeated (const CpPbField *f,
              CpPbWireType     wire)
{
  CpPbRepeated it;
  guint64 v;
  guint n = 0;

  if (!cp_pb_repeated_init (&it, f, wire))
    {
      CHECK (it.error != CP_PB_OK);
      return;
    }
  while (cp_pb_repeated_next (&it, &v))
    {
      CHECK (it.p == NULL || (it.p >= in_start && it.p <= in_end));
      n++;
      CHECK (n <= f->len + 1);
    }
}

static void
walk (CpPbReader *r)
{
  const guint8 *ref_p = r->p;
  CpPbField f;
  gboolean is_outer = r->end == r->input_end;

  for (;;)
    {
      guint32 number = 0;
      guint wire = 0;
      guint64 value = 0;
      const guint8 *data = NULL;
      gsize len = 0;
      CpPbError e = CP_PB_OK;
      const guint8 *field_at = ref_p;
      gboolean more = ref_p < r->end;
      gboolean got;

      if (more)
        e = ref_field (&ref_p, r->end, is_outer, &number, &wire, &value, &data, &len);
      got = cp_pb_reader_next (r, &f);
      if (!more)
        {
          CHECK (!got);
          CHECK (r->error == CP_PB_OK);
          CHECK (cp_pb_reader_at_end (r));
          return;
        }
      if (e != CP_PB_OK)
        {
          CHECK (!got);
          CHECK (r->error == e);
          CHECK (r->error_offset == r->base_offset + (guint64) (field_at - r->start));
          return;
        }
      CHECK (got);
      check_field (&f);
      CHECK (f.number == number);
      CHECK (f.wire_type == wire);
      CHECK (f.value == value);
      CHECK (f.offset == r->base_offset + (guint64) (field_at - r->start));
      if (wire == CP_PB_WIRE_LEN || wire == CP_PB_WIRE_SGROUP)
        {
          CHECK (f.data == data && f.len == len);
        }
      CHECK (r->p == ref_p);
      CHECK (cp_pb_reader_offset (r) == r->base_offset + (guint64) (ref_p - r->start));

      if (f.wire_type == CP_PB_WIRE_LEN || f.wire_type == CP_PB_WIRE_SGROUP)
        {
          CpPbReader sub;

          if (cp_pb_reader_init_sub (&sub, r, &f))
            {
              walk (&sub);
              if (f.wire_type == CP_PB_WIRE_LEN)
                {
                  CpPbField value_field;
                  guint64 key;
                  gboolean has_value;
                  CpPbReader copy = *r;

                  try_repeated (&f, CP_PB_WIRE_VARINT);
                  try_repeated (&f, CP_PB_WIRE_FIXED64);
                  try_repeated (&f, CP_PB_WIRE_FIXED32);
                  if (cp_pb_read_map_entry (&copy, &f, &key, &value_field, &has_value) && has_value)
                    check_field (&value_field);
                }
            }
          else
            {
              CHECK (r->depth + 1 > CP_PB_MAX_DEPTH);
              CHECK (r->error == CP_PB_ERROR_DEPTH);
              return;
            }
        }
      else
        {
          try_repeated (&f, f.wire_type);
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  CpPbReader r;
  static const guint8 empty[1];

  cp_fuzz_init ();
  in_start = size > 0 ? data : empty;
  in_end = in_start + size;
  cp_pb_reader_init (&r, in_start, size, 0);
  walk (&r);

  /* Varints straight from the input, at every start position. */
  for (gsize i = 0; i < MIN (size, 64); i++)
    {
      const guint8 *p = in_start + i, *q = in_start + i;
      guint64 v = 0, w = 0;
      CpPbError err = CP_PB_OK;
      gboolean ok = cp_pb_read_varint (&p, in_end, &v, &err);
      CpPbError ref = ref_varint (&q, in_end, &w);

      CHECK (ok == (ref == CP_PB_OK));
      if (ok)
        CHECK (v == w && p == q);
      else
        CHECK (err == ref);
    }
  return 0;
}
