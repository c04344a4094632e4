/* cp-test-pbwriter.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-test-pbwriter.h"

void
pbw_raw_varint (GByteArray *buf,
                guint64     v)
{
  guint8 b[10];
  guint n = 0;

  do
    {
      b[n] = v & 0x7f;
      v >>= 7;
      if (v != 0)
        b[n] |= 0x80;
      n++;
    }
  while (v != 0);
  g_byte_array_append (buf, b, n);
}

void
pbw_tag (GByteArray *buf,
         guint32     field,
         guint       wire_type)
{
  pbw_raw_varint (buf, ((guint64) field << 3) | wire_type);
}

void
pbw_uint (GByteArray *buf,
          guint32     field,
          guint64     v)
{
  pbw_tag (buf, field, 0);
  pbw_raw_varint (buf, v);
}

void
pbw_int (GByteArray *buf,
         guint32     field,
         gint64      v)
{
  pbw_uint (buf, field, (guint64) v);
}

void
pbw_fixed64 (GByteArray *buf,
             guint32     field,
             guint64     v)
{
  guint64 le = GUINT64_TO_LE (v);

  pbw_tag (buf, field, 1);
  g_byte_array_append (buf, (const guint8 *) &le, 8);
}

void
pbw_fixed32 (GByteArray *buf,
             guint32     field,
             guint32     v)
{
  guint32 le = GUINT32_TO_LE (v);

  pbw_tag (buf, field, 5);
  g_byte_array_append (buf, (const guint8 *) &le, 4);
}

void
pbw_double (GByteArray *buf,
            guint32     field,
            double      v)
{
  guint64 bits;

  memcpy (&bits, &v, sizeof bits);
  pbw_fixed64 (buf, field, bits);
}

void
pbw_bytes (GByteArray *buf,
           guint32     field,
           const void *data,
           gsize       len)
{
  pbw_tag (buf, field, 2);
  pbw_raw_varint (buf, len);
  if (len > 0)
    g_byte_array_append (buf, data, len);
}

void
pbw_str (GByteArray *buf,
         guint32     field,
         const char *str)
{
  pbw_bytes (buf, field, str, strlen (str));
}

void
pbw_msg (GByteArray *buf,
         guint32     field,
         GByteArray *sub)
{
  pbw_bytes (buf, field, sub->data, sub->len);
  g_byte_array_unref (sub);
}
