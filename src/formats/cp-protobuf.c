/* cp-protobuf.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-protobuf.h"

gboolean
cp_pb_read_varint_slow (const guint8 **p,
                        const guint8  *end,
                        guint64       *value,
                        CpPbError     *err)
{
  const guint8 *q = *p;
  guint64 v;
  guint shift;

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

  if (G_LIKELY (end - q >= CP_PB_MAX_VARINT_BYTES))
    {
      guint64 x;
      /* Up to 8 bytes at once: find the last byte from its clear top bit,
       * then squeeze out the continuation bits. */
      guint n = cp_pb_varint_word (q, &x);

      if (G_LIKELY (n != 0))
        {
          *value = cp_pb_varint_squeeze (x, n);
          *p = q + n;
          return TRUE;
        }
    }
  if (G_LIKELY (end - q >= CP_PB_MAX_VARINT_BYTES))
    {
      /* Enough bytes for the longest varint: no bounds checks. */
      guint64 b;

      v = (guint64) (q[0] & 0x7f) | ((guint64) (q[1] & 0x7f) << 7);
      q += 2;
      for (shift = 14; shift < 63; shift += 7)
        {
          b = *q++;
          v |= (b & 0x7f) << shift;
          if (b < 0x80)
            {
              *value = v;
              *p = q;
              return TRUE;
            }
        }
      b = *q++;
      if (G_UNLIKELY (b > 1))
        {
          *err = CP_PB_ERROR_VARINT;
          return FALSE;
        }
      *value = v | (b << 63);
      *p = q;
      return TRUE;
    }

  v = 0;
  for (shift = 0; shift < 64; shift += 7)
    {
      guint8 b;

      if (G_UNLIKELY (q >= end))
        {
          *err = CP_PB_ERROR_TRUNCATED;
          return FALSE;
        }
      b = *q++;
      /* The 10th byte may only hold the top bit of a 64-bit value. */
      if (G_UNLIKELY (shift == 63 && b > 1))
        {
          *err = CP_PB_ERROR_VARINT;
          return FALSE;
        }
      v |= (guint64) (b & 0x7f) << shift;
      if (b < 0x80)
        {
          *value = v;
          *p = q;
          return TRUE;
        }
    }
  *err = CP_PB_ERROR_VARINT;
  return FALSE;
}

void
cp_pb_reader_init (CpPbReader   *reader,
                   const guint8 *data,
                   gsize         len,
                   guint64       base_offset)
{
  g_return_if_fail (reader != NULL);
  g_return_if_fail (data != NULL || len == 0);

  memset (reader, 0, sizeof *reader);
  reader->start = data;
  reader->p = data;
  /* NULL data of length 0 is allowed; NULL + 0 is not defined in C. */
  reader->end = len > 0 ? data + len : data;
  reader->input_end = reader->end;
  reader->base_offset = base_offset;
}

gboolean
cp_pb_reader_init_sub (CpPbReader      *reader,
                       CpPbReader      *parent,
                       const CpPbField *field)
{
  g_return_val_if_fail (reader != NULL && parent != NULL && field != NULL, FALSE);

  memset (reader, 0, sizeof *reader);
  if (field->wire_type != CP_PB_WIRE_LEN && field->wire_type != CP_PB_WIRE_SGROUP)
    {
      parent->error = CP_PB_ERROR_WIRE_TYPE;
      parent->error_offset = field->offset;
      reader->error = parent->error;
      reader->error_offset = parent->error_offset;
      return FALSE;
    }
  if (parent->depth + 1 > CP_PB_MAX_DEPTH)
    {
      parent->error = CP_PB_ERROR_DEPTH;
      parent->error_offset = field->offset;
      reader->error = parent->error;
      reader->error_offset = parent->error_offset;
      return FALSE;
    }
  reader->start = field->data;
  reader->p = field->data;
  reader->end = field->data + field->len;
  reader->input_end = parent->input_end;
  reader->base_offset = parent->base_offset + (guint64) (field->data - parent->start);
  reader->depth = parent->depth + 1;
  return TRUE;
}

guint64
cp_pb_reader_offset (const CpPbReader *reader)
{
  return reader->base_offset + (guint64) (reader->p - reader->start);
}

gboolean
cp_pb_reader_at_end (const CpPbReader *reader)
{
  return reader->p >= reader->end;
}

/* Skips the value of a field of the given wire type at *q. Groups are handled
 * by the caller. */
static gboolean
skip_scalar (const guint8 **q,
             const guint8  *end,
             guint          wire_type,
             CpPbError     *err)
{
  guint64 v;

  switch (wire_type)
    {
    case CP_PB_WIRE_VARINT:
      return cp_pb_read_varint (q, end, &v, err);
    case CP_PB_WIRE_FIXED64:
      if (end - *q < 8)
        {
          *err = CP_PB_ERROR_TRUNCATED;
          return FALSE;
        }
      *q += 8;
      return TRUE;
    case CP_PB_WIRE_FIXED32:
      if (end - *q < 4)
        {
          *err = CP_PB_ERROR_TRUNCATED;
          return FALSE;
        }
      *q += 4;
      return TRUE;
    case CP_PB_WIRE_LEN:
      if (!cp_pb_read_varint (q, end, &v, err))
        return FALSE;
      if (v > (guint64) (end - *q))
        {
          *err = CP_PB_ERROR_TRUNCATED;
          return FALSE;
        }
      *q += v;
      return TRUE;
    default:
      *err = CP_PB_ERROR_WIRE_TYPE;
      return FALSE;
    }
}

/* Skips the content of a group whose start tag (field 'number') was just
 * read, iteratively. On success *q is past the matching end-group tag and
 * *content_end points at that tag. */
static gboolean
skip_group (const guint8 **q,
            const guint8  *end,
            guint32        number,
            const guint8 **content_end,
            CpPbError     *err)
{
  guint32 stack[CP_PB_MAX_GROUP_DEPTH];
  guint depth = 0;

  stack[depth++] = number;
  while (depth > 0)
    {
      const guint8 *tag_at = *q;
      guint64 tag;
      guint wire;
      guint64 num;

      if (*q >= end)
        {
          *err = CP_PB_ERROR_TRUNCATED;
          return FALSE;
        }
      if (!cp_pb_read_varint (q, end, &tag, err))
        return FALSE;
      wire = tag & 7;
      num = tag >> 3;
      if (num == 0 || num > 0x1fffffff)
        {
          *err = CP_PB_ERROR_FIELD_NUMBER;
          return FALSE;
        }
      if (wire == CP_PB_WIRE_SGROUP)
        {
          if (depth >= CP_PB_MAX_GROUP_DEPTH)
            {
              *err = CP_PB_ERROR_GROUP;
              return FALSE;
            }
          stack[depth++] = (guint32) num;
        }
      else if (wire == CP_PB_WIRE_EGROUP)
        {
          if (stack[depth - 1] != num)
            {
              *err = CP_PB_ERROR_GROUP;
              return FALSE;
            }
          depth--;
          if (depth == 0)
            *content_end = tag_at;
        }
      else if (!skip_scalar (q, end, wire, err))
        {
          /* A length running past a group inside a message is damage, not
           * a cut: the caller decides from where the message ends. */
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
cp_pb_reader_next (CpPbReader *reader,
                   CpPbField  *field)
{
  const guint8 *q = reader->p;
  const guint8 *end = reader->end;
  CpPbError err = CP_PB_OK;
  guint64 tag, v;

  field->data = NULL;
  field->len = 0;
  field->partial = FALSE;
  field->value = 0;

  if (reader->error != CP_PB_OK || q >= end)
    return FALSE;

  field->offset = reader->base_offset + (guint64) (q - reader->start);
  if (!cp_pb_read_varint (&q, end, &tag, &err))
    goto fail;
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
    {
      err = CP_PB_ERROR_FIELD_NUMBER;
      goto fail;
    }
  field->number = (guint32) (tag >> 3);
  field->wire_type = tag & 7;

  switch (field->wire_type)
    {
    case CP_PB_WIRE_VARINT:
      if (!cp_pb_read_varint (&q, end, &field->value, &err))
        goto fail;
      break;

    case CP_PB_WIRE_FIXED64:
      if (end - q < 8)
        {
          err = CP_PB_ERROR_TRUNCATED;
          goto fail;
        }
      field->value = cp_pb_load_fixed64 (q);
      q += 8;
      break;

    case CP_PB_WIRE_FIXED32:
      if (end - q < 4)
        {
          err = CP_PB_ERROR_TRUNCATED;
          goto fail;
        }
      field->value = cp_pb_load_fixed32 (q);
      q += 4;
      break;

    case CP_PB_WIRE_LEN:
      if (!cp_pb_read_varint (&q, end, &v, &err))
        goto fail;
      field->value = v;
      if (v > (guint64) (end - q))
        {
          if (end == reader->input_end)
            {
              /* Cut off by the end of the input: hand back what is there. */
              field->data = q;
              field->len = end - q;
              field->partial = TRUE;
              err = CP_PB_ERROR_TRUNCATED;
            }
          else
            err = CP_PB_ERROR_LENGTH;
          goto fail;
        }
      field->data = q;
      field->len = (gsize) v;
      q += v;
      break;

    case CP_PB_WIRE_SGROUP:
      {
        const guint8 *content = q, *content_end = q;

        if (!skip_group (&q, end, field->number, &content_end, &err))
          {
            if (err == CP_PB_ERROR_TRUNCATED && end != reader->input_end)
              err = CP_PB_ERROR_LENGTH;
            goto fail;
          }
        field->data = content;
        field->len = content_end - content;
      }
      break;

    case CP_PB_WIRE_EGROUP:
    default:
      err = CP_PB_ERROR_WIRE_TYPE;
      goto fail;
    }

  reader->p = q;
  return TRUE;

fail:
  if (err == CP_PB_ERROR_TRUNCATED && end != reader->input_end)
    err = CP_PB_ERROR_LENGTH;
  reader->error = err;
  reader->error_offset = field->offset;
  /* Stay on the failing field so that offsets point at it. */
  return FALSE;
}

const char *
cp_pb_error_to_string (CpPbError error)
{
  switch (error)
    {
    case CP_PB_OK:
      return _("no error");
    case CP_PB_ERROR_TRUNCATED:
      return _("the data ends inside a field");
    case CP_PB_ERROR_VARINT:
      return _("a varint is longer than 10 bytes");
    case CP_PB_ERROR_WIRE_TYPE:
      return _("a field has an invalid wire type");
    case CP_PB_ERROR_FIELD_NUMBER:
      return _("a field has an invalid number");
    case CP_PB_ERROR_LENGTH:
      return _("a field reaches past the end of its message");
    case CP_PB_ERROR_GROUP:
      return _("groups are mismatched or nested too deeply");
    case CP_PB_ERROR_DEPTH:
      return _("messages are nested too deeply");
    default:
      return _("unknown error");
    }
}

gboolean
cp_pb_repeated_init (CpPbRepeated    *it,
                     const CpPbField *field,
                     CpPbWireType     elem_wire_type)
{
  memset (it, 0, sizeof *it);
  it->wire_type = elem_wire_type;

  if (field->wire_type == CP_PB_WIRE_LEN)
    {
      it->p = field->data;
      it->end = field->data + field->len;
      return TRUE;
    }
  if (field->wire_type == elem_wire_type)
    {
      it->single = field->value;
      it->has_single = TRUE;
      return TRUE;
    }
  it->error = CP_PB_ERROR_WIRE_TYPE;
  return FALSE;
}

gboolean
cp_pb_repeated_next (CpPbRepeated *it,
                     guint64      *value)
{
  if (it->error != CP_PB_OK)
    return FALSE;
  if (it->has_single)
    {
      it->has_single = FALSE;
      *value = it->single;
      return TRUE;
    }
  if (it->p == NULL || it->p >= it->end)
    return FALSE;

  switch (it->wire_type)
    {
    case CP_PB_WIRE_VARINT:
      return cp_pb_read_varint (&it->p, it->end, value, &it->error);
    case CP_PB_WIRE_FIXED64:
      if (it->end - it->p < 8)
        {
          it->error = CP_PB_ERROR_LENGTH;
          return FALSE;
        }
      *value = cp_pb_load_fixed64 (it->p);
      it->p += 8;
      return TRUE;
    case CP_PB_WIRE_FIXED32:
      if (it->end - it->p < 4)
        {
          it->error = CP_PB_ERROR_LENGTH;
          return FALSE;
        }
      *value = cp_pb_load_fixed32 (it->p);
      it->p += 4;
      return TRUE;
    default:
      it->error = CP_PB_ERROR_WIRE_TYPE;
      return FALSE;
    }
}

gboolean
cp_pb_read_map_entry (CpPbReader      *parent,
                      const CpPbField *entry,
                      guint64         *key,
                      CpPbField       *value,
                      gboolean        *has_value)
{
  CpPbReader r;
  CpPbField f;

  *key = 0;
  *has_value = FALSE;
  memset (value, 0, sizeof *value);

  if (!cp_pb_reader_init_sub (&r, parent, entry))
    return FALSE;
  while (cp_pb_reader_next (&r, &f))
    {
      if (f.number == 1 && f.wire_type == CP_PB_WIRE_VARINT)
        *key = f.value;
      else if (f.number == 2)
        {
          *value = f;
          *has_value = TRUE;
        }
    }
  if (r.error != CP_PB_OK)
    {
      parent->error = r.error;
      parent->error_offset = r.error_offset;
      return FALSE;
    }
  return TRUE;
}
