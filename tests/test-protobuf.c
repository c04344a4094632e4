/* test-protobuf.c: the protobuf wire-format walker
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "formats/cp-protobuf.h"
#include "cp-test-pbwriter.h"

static void
reader_over (CpPbReader *r,
             GByteArray *buf)
{
  cp_pb_reader_init (r, buf->data, buf->len, 0);
}

static void
test_varints (void)
{
  static const guint64 values[] = {
    0, 1, 127, 128, 300, 16383, 16384, G_MAXUINT32, (guint64) G_MAXUINT32 + 1,
    G_GUINT64_CONSTANT (1) << 62, G_GUINT64_CONSTANT (1) << 63, G_MAXUINT64,
  };
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  CpPbReader r;
  CpPbField f;
  guint i = 0;

  for (guint k = 0; k < G_N_ELEMENTS (values); k++)
    pbw_uint (buf, k + 1, values[k]);
  /* Negative int64 values take 10 bytes and are not zigzag-encoded. */
  pbw_int (buf, 100, -1);
  pbw_int (buf, 101, G_MININT64);
  pbw_int (buf, 102, -2231402715538937371);

  reader_over (&r, buf);
  while (cp_pb_reader_next (&r, &f))
    {
      g_assert_cmpuint (f.wire_type, ==, CP_PB_WIRE_VARINT);
      if (i < G_N_ELEMENTS (values))
        {
          g_assert_cmpuint (f.number, ==, i + 1);
          g_assert_cmpuint (f.value, ==, values[i]);
        }
      else if (f.number == 100)
        g_assert_cmpint (cp_pb_int64 (f.value), ==, -1);
      else if (f.number == 101)
        g_assert_cmpint (cp_pb_int64 (f.value), ==, G_MININT64);
      else
        g_assert_cmpint (cp_pb_int64 (f.value), ==, -2231402715538937371);
      i++;
    }
  g_assert_cmpint (r.error, ==, CP_PB_OK);
  g_assert_cmpuint (i, ==, G_N_ELEMENTS (values) + 3);
  g_assert_true (cp_pb_reader_at_end (&r));
  g_assert_cmpuint (cp_pb_reader_offset (&r), ==, buf->len);

  /* Every length, with and without room for the word-at-a-time path. */
  {
    g_autoptr(GRand) rand = g_rand_new_with_seed (9);

    for (guint k = 0; k < 20000; k++)
      {
        guint bits = g_rand_int_range (rand, 0, 65);
        guint64 v = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
        g_autoptr(GByteArray) b = g_byte_array_new ();
        const guint8 *q;
        guint64 got = 0;
        CpPbError err = CP_PB_OK;
        gsize tail = k % 2 ? 0 : 12;

        if (bits < 64)
          v &= (G_GUINT64_CONSTANT (1) << bits) - 1;
        pbw_raw_varint (b, v);
        g_byte_array_set_size (b, b->len + tail);
        /* Trailing bytes with their top bit set must not extend the varint. */
        memset (b->data + b->len - tail, 0xff, tail);
        q = b->data;
        g_assert_true (cp_pb_read_varint (&q, b->data + b->len, &got, &err));
        g_assert_cmpuint (got, ==, v);
        g_assert_cmpuint (q - b->data, ==, b->len - tail);
      }
  }

  /* Zigzag and IEEE helpers. */
  g_assert_cmpint (cp_pb_sint64 (0), ==, 0);
  g_assert_cmpint (cp_pb_sint64 (1), ==, -1);
  g_assert_cmpint (cp_pb_sint64 (2), ==, 1);
  g_assert_cmpint (cp_pb_sint64 (G_MAXUINT64), ==, G_MININT64);
  g_assert_cmpint (cp_pb_sint64 (G_MAXUINT64 - 1), ==, G_MAXINT64);
}

/* cp_pb_read_varint_within(): a message ending at end inside a buffer
 * readable to limit. Every length, ending exactly at end, cut by end, with
 * the bytes after end looking like continuations, and with limit too close
 * for a word load. */
static void
test_varints_within (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint k = 0; k < 40000; k++)
    {
      guint bits = g_rand_int_range (rand, 0, 65);
      guint64 v = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      g_autoptr(GByteArray) b = g_byte_array_new ();
      const guint8 *q, *end, *limit;
      guint64 got = 0;
      CpPbError err = CP_PB_OK;
      gsize n, tail = k % 3 == 0 ? 0 : k % 3 == 1 ? 3 : 12;
      gboolean cut = k % 5 == 4;

      if (bits < 64)
        v &= (G_GUINT64_CONSTANT (1) << bits) - 1;
      pbw_raw_varint (b, v);
      n = b->len;
      g_byte_array_set_size (b, n + tail);
      memset (b->data + n, k % 2 ? 0xff : 0x00, tail);
      q = b->data;
      limit = b->data + b->len;
      if (cut && n > 1)
        {
          /* The message ends inside the varint: whatever lies after end, it
           * is truncated, never read past end. */
          end = b->data + n - 1;
          g_assert_false (cp_pb_read_varint_within (&q, end, limit, &got, &err));
          g_assert_cmpint (err, ==, CP_PB_ERROR_TRUNCATED);
          g_assert_true (q == b->data);
          continue;
        }
      end = b->data + n;
      g_assert_true (cp_pb_read_varint_within (&q, end, limit, &got, &err));
      g_assert_cmpuint (got, ==, v);
      g_assert_cmpuint (q - b->data, ==, n);
    }

  /* An empty message and a bad varint are refused as by cp_pb_read_varint(). */
  {
    static const guint8 overflow[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0x02, 0, 0, 0, 0, 0, 0 };
    const guint8 *q = overflow;
    guint64 got;
    CpPbError err = CP_PB_OK;

    g_assert_false (cp_pb_read_varint_within (&q, overflow, overflow + sizeof overflow, &got,
                                              &err));
    g_assert_cmpint (err, ==, CP_PB_ERROR_TRUNCATED);
    err = CP_PB_OK;
    g_assert_false (cp_pb_read_varint_within (&q, overflow + 10, overflow + sizeof overflow, &got,
                                              &err));
    g_assert_cmpint (err, ==, CP_PB_ERROR_VARINT);
  }
}

static void
expect_error (const guint8 *data,
              gsize         len,
              CpPbError     error,
              guint64       offset,
              guint         n_good_fields)
{
  CpPbReader r;
  CpPbField f;
  guint n = 0;

  cp_pb_reader_init (&r, data, len, 1000);
  while (cp_pb_reader_next (&r, &f))
    n++;
  g_assert_cmpint (r.error, ==, error);
  g_assert_cmpuint (r.error_offset, ==, 1000 + offset);
  g_assert_cmpuint (n, ==, n_good_fields);
  g_assert_nonnull (cp_pb_error_to_string (error));
  /* A failed reader stays failed. */
  g_assert_false (cp_pb_reader_next (&r, &f));
}

static void
test_bad_varints (void)
{
  /* 11 bytes of continuation: too long. */
  static const guint8 too_long[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0x01 };
  /* 10 bytes whose last one holds more than the 64th bit: overflow. */
  static const guint8 overflow[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0x02 };
  /* The largest legal one. */
  static const guint8 max[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                0x01 };
  /* A varint cut by the end of the input. */
  static const guint8 cut[] = { 0x08, 0x01, 0x10, 0xff, 0xff };
  /* A tag that is itself too long. */
  static const guint8 bad_tag[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                    0x80, 0x00 };
  CpPbReader r;
  CpPbField f;

  expect_error (too_long, sizeof too_long, CP_PB_ERROR_VARINT, 0, 0);
  expect_error (overflow, sizeof overflow, CP_PB_ERROR_VARINT, 0, 0);
  expect_error (cut, sizeof cut, CP_PB_ERROR_TRUNCATED, 2, 1);
  expect_error (bad_tag, sizeof bad_tag, CP_PB_ERROR_VARINT, 0, 0);

  cp_pb_reader_init (&r, max, sizeof max, 0);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.value, ==, G_MAXUINT64);
  g_assert_false (cp_pb_reader_next (&r, &f));
  g_assert_cmpint (r.error, ==, CP_PB_OK);
}

static void
test_fixed (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  CpPbReader r;
  CpPbField f;

  pbw_double (buf, 2, 3.25);
  pbw_double (buf, 2, -0.0);
  pbw_fixed64 (buf, 3, G_GUINT64_CONSTANT (0x0123456789abcdef));
  pbw_fixed32 (buf, 4, 0xdeadbeef);
  {
    float x = 1.5f;
    guint32 bits;

    memcpy (&bits, &x, 4);
    pbw_fixed32 (buf, 5, bits);
  }

  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.wire_type, ==, CP_PB_WIRE_FIXED64);
  g_assert_cmpfloat (cp_pb_double (f.value), ==, 3.25);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (signbit (cp_pb_double (f.value)));
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.value, ==, G_GUINT64_CONSTANT (0x0123456789abcdef));
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.wire_type, ==, CP_PB_WIRE_FIXED32);
  g_assert_cmpuint (f.value, ==, 0xdeadbeef);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpfloat (cp_pb_float ((guint32) f.value), ==, 1.5f);
  g_assert_false (cp_pb_reader_next (&r, &f));
  g_assert_cmpint (r.error, ==, CP_PB_OK);

  /* Each cut inside a fixed field is reported at that field. */
  for (guint cut = 1; cut < 9; cut++)
    expect_error (buf->data, cut, CP_PB_ERROR_TRUNCATED, 0, 0);
  for (guint cut = 19; cut < 27; cut++)
    expect_error (buf->data, cut, CP_PB_ERROR_TRUNCATED, 18, 2);
}

static void
test_length_delimited (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autoptr(GByteArray) inner = g_byte_array_new ();
  GByteArray *sub = g_byte_array_new ();
  CpPbReader r, s;
  CpPbField f;

  pbw_str (buf, 1, "hello");
  pbw_bytes (buf, 2, "", 0);
  pbw_uint (sub, 1, 7);
  pbw_str (sub, 2, "name");
  pbw_msg (buf, 3, sub);

  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.wire_type, ==, CP_PB_WIRE_LEN);
  g_assert_cmpuint (f.len, ==, 5);
  g_assert_cmpmem (f.data, f.len, "hello", 5);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.len, ==, 0);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.number, ==, 3);
  g_assert_true (cp_pb_reader_init_sub (&s, &r, &f));
  g_assert_cmpuint (s.depth, ==, 1);
  g_assert_true (cp_pb_reader_next (&s, &f));
  g_assert_cmpuint (f.value, ==, 7);
  /* Offsets inside a sub-reader are offsets in the whole input. */
  g_assert_cmpuint (f.offset, ==, 7 + 2 + 2);
  g_assert_true (cp_pb_reader_next (&s, &f));
  g_assert_cmpmem (f.data, f.len, "name", 4);
  g_assert_false (cp_pb_reader_next (&s, &f));
  g_assert_cmpint (s.error, ==, CP_PB_OK);
  g_assert_false (cp_pb_reader_next (&r, &f));
  g_assert_cmpint (r.error, ==, CP_PB_OK);

  /* A sub-reader cannot be made over a scalar field. */
  g_byte_array_set_size (buf, 0);
  pbw_uint (buf, 1, 5);
  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_false (cp_pb_reader_init_sub (&s, &r, &f));
  g_assert_cmpint (r.error, ==, CP_PB_ERROR_WIRE_TYPE);

  /* A length past the end of the input: truncated, with what is there. */
  g_byte_array_set_size (buf, 0);
  pbw_uint (buf, 1, 1);
  pbw_tag (buf, 2, CP_PB_WIRE_LEN);
  pbw_raw_varint (buf, 100);
  g_byte_array_append (buf, (const guint8 *) "abc", 3);
  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_false (cp_pb_reader_next (&r, &f));
  g_assert_cmpint (r.error, ==, CP_PB_ERROR_TRUNCATED);
  g_assert_cmpuint (r.error_offset, ==, 2);
  g_assert_true (f.partial);
  g_assert_cmpuint (f.number, ==, 2);
  g_assert_cmpmem (f.data, f.len, "abc", 3);

  /* A length past the end of its enclosing message, inside the input:
   * damage, reported at the inner field's offset. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (inner, 4, CP_PB_WIRE_LEN);
  pbw_raw_varint (inner, 50);
  g_byte_array_append (inner, (const guint8 *) "xy", 2);
  pbw_bytes (buf, 1, inner->data, inner->len);
  pbw_uint (buf, 2, 9);
  g_byte_array_append (buf, (guint8[]) { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 57);
  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (cp_pb_reader_init_sub (&s, &r, &f));
  g_assert_false (cp_pb_reader_next (&s, &f));
  g_assert_cmpint (s.error, ==, CP_PB_ERROR_LENGTH);
  g_assert_cmpuint (s.error_offset, ==, 2);
  g_assert_false (f.partial);
  /* The outer reader is not affected. */
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.value, ==, 9);

  /* A length that does not fit in 64 bits of address space. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (buf, 1, CP_PB_WIRE_LEN);
  pbw_raw_varint (buf, G_MAXUINT64);
  expect_error (buf->data, buf->len, CP_PB_ERROR_TRUNCATED, 0, 0);
}

static void
test_bad_wire_types (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();

  for (guint wt = 6; wt <= 7; wt++)
    {
      g_byte_array_set_size (buf, 0);
      pbw_uint (buf, 1, 1);
      pbw_tag (buf, 2, wt);
      pbw_raw_varint (buf, 1);
      expect_error (buf->data, buf->len, CP_PB_ERROR_WIRE_TYPE, 2, 1);
    }

  /* An end-group with no start. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (buf, 3, CP_PB_WIRE_EGROUP);
  expect_error (buf->data, buf->len, CP_PB_ERROR_WIRE_TYPE, 0, 0);

  /* Field number 0. */
  g_byte_array_set_size (buf, 0);
  pbw_uint (buf, 0, 1);
  expect_error (buf->data, buf->len, CP_PB_ERROR_FIELD_NUMBER, 0, 0);

  /* A field number above 2^29 - 1 (only reachable with a long tag). */
  g_byte_array_set_size (buf, 0);
  pbw_raw_varint (buf, (G_GUINT64_CONSTANT (1) << 32) << 3);
  pbw_raw_varint (buf, 0);
  expect_error (buf->data, buf->len, CP_PB_ERROR_FIELD_NUMBER, 0, 0);
}

static void
test_groups (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  CpPbReader r;
  CpPbField f;

  /* A group holding scalars and a nested group is returned whole and the
   * reader goes on after it. */
  pbw_uint (buf, 1, 5);
  pbw_tag (buf, 7, CP_PB_WIRE_SGROUP);
  pbw_uint (buf, 1, 300);
  pbw_str (buf, 2, "in");
  pbw_double (buf, 3, 1.0);
  pbw_fixed32 (buf, 4, 9);
  pbw_tag (buf, 8, CP_PB_WIRE_SGROUP);
  pbw_uint (buf, 1, 1);
  pbw_tag (buf, 8, CP_PB_WIRE_EGROUP);
  pbw_tag (buf, 7, CP_PB_WIRE_EGROUP);
  pbw_uint (buf, 2, 6);

  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.number, ==, 7);
  g_assert_cmpuint (f.wire_type, ==, CP_PB_WIRE_SGROUP);
  g_assert_cmpuint (f.offset, ==, 2);
  /* Content: between the start tag and the end tag. */
  g_assert_cmpuint (f.data - buf->data, ==, 3);
  g_assert_cmpuint (f.len, ==, buf->len - 2 - 3 - 1);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_cmpuint (f.number, ==, 2);
  g_assert_cmpuint (f.value, ==, 6);
  g_assert_false (cp_pb_reader_next (&r, &f));
  g_assert_cmpint (r.error, ==, CP_PB_OK);

  /* Mismatched end-group. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (buf, 7, CP_PB_WIRE_SGROUP);
  pbw_tag (buf, 9, CP_PB_WIRE_EGROUP);
  expect_error (buf->data, buf->len, CP_PB_ERROR_GROUP, 0, 0);

  /* Unterminated group at the end of the input. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (buf, 7, CP_PB_WIRE_SGROUP);
  pbw_uint (buf, 1, 1);
  expect_error (buf->data, buf->len, CP_PB_ERROR_TRUNCATED, 0, 0);

  /* A bad wire type inside a group. */
  g_byte_array_set_size (buf, 0);
  pbw_tag (buf, 7, CP_PB_WIRE_SGROUP);
  pbw_tag (buf, 1, 6);
  expect_error (buf->data, buf->len, CP_PB_ERROR_WIRE_TYPE, 0, 0);

  /* Exactly the maximum nesting is fine, one more is refused, and a deep
   * bomb (a million start tags) is refused quickly, without recursion. */
  for (guint depth = CP_PB_MAX_GROUP_DEPTH; depth <= CP_PB_MAX_GROUP_DEPTH + 1; depth++)
    {
      g_byte_array_set_size (buf, 0);
      for (guint i = 0; i < depth; i++)
        pbw_tag (buf, 1, CP_PB_WIRE_SGROUP);
      for (guint i = 0; i < depth; i++)
        pbw_tag (buf, 1, CP_PB_WIRE_EGROUP);
      if (depth <= CP_PB_MAX_GROUP_DEPTH)
        {
          reader_over (&r, buf);
          g_assert_true (cp_pb_reader_next (&r, &f));
          g_assert_false (cp_pb_reader_next (&r, &f));
          g_assert_cmpint (r.error, ==, CP_PB_OK);
        }
      else
        expect_error (buf->data, buf->len, CP_PB_ERROR_GROUP, 0, 0);
    }
  g_byte_array_set_size (buf, 0);
  for (guint i = 0; i < 1000000; i++)
    pbw_tag (buf, 1, CP_PB_WIRE_SGROUP);
  expect_error (buf->data, buf->len, CP_PB_ERROR_GROUP, 0, 0);
}

static void
test_repeated (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autoptr(GByteArray) packed = g_byte_array_new ();
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (gint64));
  CpPbReader r;
  CpPbField f;
  CpPbRepeated it;
  guint64 v;

  /* Packed, then unpacked elements of the same field: both count. */
  pbw_raw_varint (packed, 1);
  pbw_raw_varint (packed, 300);
  pbw_raw_varint (packed, (guint64) -5);
  pbw_bytes (buf, 6, packed->data, packed->len);
  pbw_int (buf, 6, 42);
  pbw_bytes (buf, 6, "", 0);
  pbw_int (buf, 6, -1);

  reader_over (&r, buf);
  while (cp_pb_reader_next (&r, &f))
    {
      g_assert_true (cp_pb_repeated_init (&it, &f, CP_PB_WIRE_VARINT));
      while (cp_pb_repeated_next (&it, &v))
        {
          gint64 x = cp_pb_int64 (v);

          g_array_append_val (got, x);
        }
      g_assert_cmpint (it.error, ==, CP_PB_OK);
    }
  g_assert_cmpint (r.error, ==, CP_PB_OK);
  g_assert_cmpuint (got->len, ==, 5);
  g_assert_cmpint (g_array_index (got, gint64, 0), ==, 1);
  g_assert_cmpint (g_array_index (got, gint64, 1), ==, 300);
  g_assert_cmpint (g_array_index (got, gint64, 2), ==, -5);
  g_assert_cmpint (g_array_index (got, gint64, 3), ==, 42);
  g_assert_cmpint (g_array_index (got, gint64, 4), ==, -1);

  /* Packed fixed64 and fixed32, with a ragged tail. */
  {
    guint8 raw[8 * 2 + 3] = { 0 };
    guint n = 0;

    raw[0] = 1;
    raw[8] = 2;
    g_byte_array_set_size (buf, 0);
    pbw_bytes (buf, 1, raw, sizeof raw);
    reader_over (&r, buf);
    g_assert_true (cp_pb_reader_next (&r, &f));
    g_assert_true (cp_pb_repeated_init (&it, &f, CP_PB_WIRE_FIXED64));
    while (cp_pb_repeated_next (&it, &v))
      g_assert_cmpuint (v, ==, ++n);
    g_assert_cmpuint (n, ==, 2);
    g_assert_cmpint (it.error, ==, CP_PB_ERROR_LENGTH);

    g_assert_true (cp_pb_repeated_init (&it, &f, CP_PB_WIRE_FIXED32));
    n = 0;
    while (cp_pb_repeated_next (&it, &v))
      n++;
    g_assert_cmpuint (n, ==, 4);
    g_assert_cmpint (it.error, ==, CP_PB_ERROR_LENGTH);
  }

  /* A truncated varint inside a packed field. */
  g_byte_array_set_size (buf, 0);
  pbw_bytes (buf, 1, "\x01\xff", 2);
  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (cp_pb_repeated_init (&it, &f, CP_PB_WIRE_VARINT));
  g_assert_true (cp_pb_repeated_next (&it, &v));
  g_assert_false (cp_pb_repeated_next (&it, &v));
  g_assert_cmpint (it.error, ==, CP_PB_ERROR_TRUNCATED);

  /* A wrong wire type for the element type. */
  g_byte_array_set_size (buf, 0);
  pbw_fixed32 (buf, 1, 3);
  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_false (cp_pb_repeated_init (&it, &f, CP_PB_WIRE_VARINT));
  g_assert_false (cp_pb_repeated_next (&it, &v));
}

static void
test_map_entries (void)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  GByteArray *entry, *value;
  CpPbReader r;
  CpPbField f, val;
  guint64 key;
  gboolean has_value;

  /* key, value */
  entry = g_byte_array_new ();
  value = g_byte_array_new ();
  pbw_uint (entry, 1, 17);
  pbw_str (value, 2, "first");
  pbw_msg (entry, 2, value);
  pbw_msg (buf, 4, entry);
  /* value before key, duplicated value: the last one wins */
  entry = g_byte_array_new ();
  pbw_str (entry, 2, "a");
  pbw_str (entry, 2, "b");
  pbw_uint (entry, 1, 18);
  pbw_uint (entry, 3, 99);
  pbw_msg (buf, 4, entry);
  /* no value */
  entry = g_byte_array_new ();
  pbw_uint (entry, 1, 19);
  pbw_msg (buf, 4, entry);
  /* damaged: a length past the entry */
  entry = g_byte_array_new ();
  pbw_uint (entry, 1, 20);
  pbw_tag (entry, 2, CP_PB_WIRE_LEN);
  pbw_raw_varint (entry, 9);
  pbw_msg (buf, 4, entry);
  pbw_uint (buf, 5, 1);

  reader_over (&r, buf);
  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (cp_pb_read_map_entry (&r, &f, &key, &val, &has_value));
  g_assert_cmpuint (key, ==, 17);
  g_assert_true (has_value);
  g_assert_cmpuint (val.wire_type, ==, CP_PB_WIRE_LEN);
  g_assert_cmpuint (val.len, ==, 7);

  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (cp_pb_read_map_entry (&r, &f, &key, &val, &has_value));
  g_assert_cmpuint (key, ==, 18);
  g_assert_cmpmem (val.data, val.len, "b", 1);

  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_true (cp_pb_read_map_entry (&r, &f, &key, &val, &has_value));
  g_assert_cmpuint (key, ==, 19);
  g_assert_false (has_value);

  g_assert_true (cp_pb_reader_next (&r, &f));
  g_assert_false (cp_pb_read_map_entry (&r, &f, &key, &val, &has_value));
  g_assert_cmpint (r.error, ==, CP_PB_ERROR_LENGTH);
  g_assert_false (cp_pb_reader_next (&r, &f));
}

static void
test_depth (void)
{
  g_autoptr(GByteArray) buf = NULL;
  CpPbReader readers[CP_PB_MAX_DEPTH + 2];
  CpPbField f;
  guint d;

  /* CP_PB_MAX_DEPTH + 1 nested messages. */
  buf = g_byte_array_new ();
  pbw_uint (buf, 1, 1);
  for (d = 0; d < CP_PB_MAX_DEPTH + 1; d++)
    {
      GByteArray *outer = g_byte_array_new ();

      pbw_bytes (outer, 1, buf->data, buf->len);
      g_byte_array_unref (buf);
      buf = outer;
    }

  cp_pb_reader_init (&readers[0], buf->data, buf->len, 0);
  for (d = 0; d <= CP_PB_MAX_DEPTH; d++)
    {
      g_assert_true (cp_pb_reader_next (&readers[d], &f));
      if (d < CP_PB_MAX_DEPTH)
        g_assert_true (cp_pb_reader_init_sub (&readers[d + 1], &readers[d], &f));
      else
        {
          g_assert_false (cp_pb_reader_init_sub (&readers[d + 1], &readers[d], &f));
          g_assert_cmpint (readers[d].error, ==, CP_PB_ERROR_DEPTH);
        }
    }
}

/* Random and mutated inputs, walked as deep as they go: nothing may crash or
 * read out of bounds (the sanitizer build checks the latter). */
static guint
walk (CpPbReader *r)
{
  CpPbField f;
  guint n = 0;

  while (cp_pb_reader_next (r, &f))
    {
      CpPbReader sub;
      CpPbRepeated it;
      guint64 v;

      n++;
      if (f.wire_type == CP_PB_WIRE_LEN && cp_pb_reader_init_sub (&sub, r, &f))
        n += walk (&sub);
      if (cp_pb_repeated_init (&it, &f, CP_PB_WIRE_VARINT))
        while (cp_pb_repeated_next (&it, &v))
          n++;
      r->error = CP_PB_OK;
    }
  return n;
}

static void
test_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (4);
  g_autoptr(GByteArray) seed = g_byte_array_new ();
  GByteArray *inner = g_byte_array_new ();

  pbw_uint (inner, 1, 12345);
  pbw_str (inner, 2, "stream");
  pbw_double (inner, 3, 2.5);
  pbw_msg (seed, 1, inner);
  pbw_uint (seed, 2, 7);

  for (guint round = 0; round < 20000; round++)
    {
      g_autofree guint8 *data = NULL;
      gsize len;
      CpPbReader r;

      if (round % 2 == 0)
        {
          len = g_rand_int_range (rand, 0, 64);
          data = g_malloc (MAX (len, 1));
          for (gsize i = 0; i < len; i++)
            data[i] = g_rand_int_range (rand, 0, 256);
        }
      else
        {
          len = g_rand_int_range (rand, 0, seed->len + 1);
          data = g_memdup2 (seed->data, MAX (seed->len, 1));
          for (guint k = 0; k < 3; k++)
            if (len > 0)
              data[g_rand_int_range (rand, 0, len)] = g_rand_int_range (rand, 0, 256);
        }
      cp_pb_reader_init (&r, data, len, 0);
      walk (&r);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/protobuf/varints", test_varints);
  g_test_add_func ("/protobuf/varints-within", test_varints_within);
  g_test_add_func ("/protobuf/bad-varints", test_bad_varints);
  g_test_add_func ("/protobuf/fixed", test_fixed);
  g_test_add_func ("/protobuf/length-delimited", test_length_delimited);
  g_test_add_func ("/protobuf/bad-wire-types", test_bad_wire_types);
  g_test_add_func ("/protobuf/groups", test_groups);
  g_test_add_func ("/protobuf/repeated", test_repeated);
  g_test_add_func ("/protobuf/map-entries", test_map_entries);
  g_test_add_func ("/protobuf/depth", test_depth);
  g_test_add_func ("/protobuf/random", test_random);

  return g_test_run ();
}
