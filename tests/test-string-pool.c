/* test-string-pool.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "model/cp-string-pool.h"

static void
test_intern (void)
{
  g_autoptr(CpStringPool) pool = cp_string_pool_new ();
  CpStr a, b, c, e;

  e = cp_string_pool_intern (pool, "", 0);
  g_assert_cmpuint (e, ==, CP_STR_EMPTY);
  a = cp_string_pool_intern (pool, "aten::mm", -1);
  b = cp_string_pool_intern (pool, "aten::mm", 8);
  c = cp_string_pool_intern (pool, "aten::mmX", 8);
  g_assert_cmpuint (a, ==, b);
  g_assert_cmpuint (a, ==, c);
  g_assert_cmpuint (a, !=, e);
  g_assert_cmpstr (cp_string_pool_get (pool, a), ==, "aten::mm");
  g_assert_cmpuint (cp_string_pool_get_length (pool, a), ==, 8);
  g_assert_cmpuint (cp_string_pool_lookup (pool, "aten::mm"), ==, a);
  g_assert_cmpuint (cp_string_pool_lookup (pool, "missing"), ==, G_MAXUINT32);
  /* Out of range ids read as empty, never crash. */
  g_assert_cmpstr (cp_string_pool_get (pool, 999999), ==, "");
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(CpStringPool) pool = cp_string_pool_new ();
  CpStr x = cp_string_pool_intern (pool, "ab\xff\xfe" "c", 5);
  CpStr y = cp_string_pool_intern (pool, "\xed\xa0\x80\0\xc3", 5);

  g_assert_cmpstr (cp_string_pool_get (pool, x), ==, "ab\xef\xbf\xbd\xef\xbf\xbd" "c");
  /* The same bytes again reach the same string. */
  g_assert_cmpuint (cp_string_pool_intern (pool, "ab\xff\xfe" "c", 5), ==, x);
  g_assert_cmpuint (cp_string_pool_lookup (pool, "ab\xef\xbf\xbd\xef\xbf\xbd" "c"), ==, x);
  /* NUL bytes are kept; what is around them is repaired. */
  g_assert_cmpuint (cp_string_pool_get_length (pool, y), ==, 3 * 3 + 1 + 3);
  g_assert_true (g_utf8_validate (cp_string_pool_get (pool, y), -1, NULL));
}

static void
test_embedded_nul_and_many (void)
{
  g_autoptr(CpStringPool) pool = cp_string_pool_new ();
  CpStr x = cp_string_pool_intern (pool, "a\0b", 3);
  CpStr y = cp_string_pool_intern (pool, "a", 1);

  g_assert_cmpuint (x, !=, y);
  g_assert_cmpuint (cp_string_pool_get_length (pool, x), ==, 3);

  for (guint i = 0; i < 100000; i++)
    {
      char buf[32];
      CpStr id;

      g_snprintf (buf, sizeof buf, "kernel_%u", i);
      id = cp_string_pool_intern (pool, buf, -1);
      g_assert_cmpstr (cp_string_pool_get (pool, id), ==, buf);
    }
  g_assert_cmpuint (cp_string_pool_size (pool), ==, 100000 + 3);
  g_assert_cmpstr (cp_string_pool_get (pool, cp_string_pool_lookup (pool, "kernel_77777")), ==, "kernel_77777");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/string-pool/intern", test_intern);
  g_test_add_func ("/string-pool/many", test_embedded_nul_and_many);
  g_test_add_func ("/string-pool/invalid-utf8", test_invalid_utf8);
  return g_test_run ();
}
