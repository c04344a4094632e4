/* test-huge-pages.c: advice for huge pages keeps blocks whole and growable
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* cp_huge_pages_advise() reads glibc's chunk header to advise a block that
 * is a mapping of its own whole. Checked here against the kernel's own
 * account (/proc/self/smaps): after the advice the block lies in one
 * mapping marked for huge pages, realloc still grows it with its contents,
 * the grown block stays marked, and a block inside the heap is advised
 * only where whole huge pages fit. */

#include "config.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "model/cp-huge-pages.h"

typedef struct
{
  guint64  from;
  guint64  to;
  gboolean eligible;
  gboolean found;
  guint64  rss_kb;
} Vma;

/* The mapping that holds p, from /proc/self/smaps. */
static Vma
vma_of (gconstpointer p)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  Vma v = { 0, 0, FALSE, FALSE, 0 };
  guint64 a = (guint64) (uintptr_t) p;
  gboolean in = FALSE;

  g_assert_true (g_file_get_contents ("/proc/self/smaps", &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 from, to;
      char *end;

      from = g_ascii_strtoull (lines[i], &end, 16);
      if (end != lines[i] && *end == '-')
        {
          to = g_ascii_strtoull (end + 1, &end, 16);
          if (*end == ' ')
            {
              in = a >= from && a < to;
              if (in)
                {
                  v.from = from;
                  v.to = to;
                  v.found = TRUE;
                }
              continue;
            }
        }
      if (in && g_str_has_prefix (lines[i], "Rss:"))
        v.rss_kb = g_ascii_strtoull (lines[i] + 4, NULL, 10);
      if (in && g_str_has_prefix (lines[i], "THPeligible:"))
        v.eligible = strchr (lines[i], '1') != NULL;
    }
  return v;
}

static void
test_advise_mapping (void)
{
  gsize n = (gsize) 48 << 20;   /* above glibc's largest heap block: its own mapping */
  guint8 *p;
  Vma v;

  if (!cp_huge_pages_in_use ())
    {
      g_test_skip ("no huge pages on request here (transparent_hugepage is not \"madvise\", "
                   "or another allocator)");
      return;
    }
  p = cp_huge_malloc (n);
  for (gsize i = 0; i < n; i += 4096)
    p[i] = (guint8) (i >> 12);
  v = vma_of (p);
  g_assert_true (v.found);
  g_assert_true (v.eligible);
  /* Advised whole: the mapping still holds all of the block. */
  g_assert_cmpuint (v.from, <=, (guint64) (uintptr_t) p);
  g_assert_cmpuint (v.to, >=, (guint64) (uintptr_t) p + n);

  p = g_realloc (p, 2 * n);
  for (gsize i = 0; i < n; i += 4096)
    g_assert_cmpuint (p[i], ==, (guint8) (i >> 12));
  memset (p + n, 7, n);
  v = vma_of (p);
  g_assert_true (v.eligible);
  g_assert_cmpuint (v.to, >=, (guint64) (uintptr_t) p + 2 * n);
  cp_huge_pages_advise (p);
  g_free (p);
}

static void
test_advise_array (void)
{
  g_autoptr(GArray) a = NULL;
  Vma v;

  if (!cp_huge_pages_in_use ())
    {
      g_test_skip ("no huge pages on request here");
      return;
    }
  a = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 i = 0; i < ((guint64) 12 << 20) / sizeof (guint64); i++)
    cp_array_append_big (a, i);
  /* Inside the heap or a mapping of its own: advised where whole huge
   * pages fit, which its middle is. */
  v = vma_of ((const guint8 *) a->data + ((gsize) 6 << 20));
  g_assert_true (v.eligible);
  for (guint i = 0; i < a->len; i++)
    g_assert_cmpuint (g_array_index (a, guint64, i), ==, i);

  /* Reserved: room without memory, the same appends. */
  g_array_set_size (a, 0);
  g_mem_gc_friendly = FALSE;
  cp_array_reserve_big (&a, FALSE);
  g_assert_cmpuint (a->len, ==, 0);
  for (guint64 i = 0; i < 1000; i++)
    cp_array_append_big (a, i);
  g_assert_true (vma_of (a->data).eligible);
  g_assert_cmpuint (g_array_index (a, guint64, 999), ==, 999);
}

/* Small blocks and NULL are left alone, wherever they are. */
static void
test_small (void)
{
  g_autofree guint8 *small = g_malloc (4096);
  g_autofree guint8 *mid = g_malloc ((gsize) 3 << 20);

  cp_huge_pages_advise (NULL);
  cp_huge_pages_advise (small);
  cp_huge_pages_advise (mid);
  memset (small, 1, 4096);
  memset (mid, 2, (gsize) 3 << 20);
  mid = g_realloc (mid, (gsize) 9 << 20);
  g_assert_cmpuint (mid[((gsize) 3 << 20) - 1], ==, 2);
}

/* cp_huge_pages_populate() gives a range its pages, by the kernel's own
 * count, and changes none of its bytes; a range it cannot populate (read
 * only) is left as it was. */
static void
test_populate (void)
{
  gsize n = (gsize) 8 << 20;
  guint8 *p = mmap (NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  guint8 *ro;
  Vma before, after;

  g_assert_true (p != MAP_FAILED);
  memset (p, 0x5a, 10000);
  before = vma_of (p);
  g_assert_true (before.found);
  if (!cp_huge_pages_populate (p + 4096, n - 4096))
    {
      munmap (p, n);
      g_test_skip ("the kernel cannot populate ranges (MADV_POPULATE_WRITE is Linux 5.14)");
      return;
    }
  after = vma_of (p);
  /* The mapping may have merged with a neighbour: at least the range more. */
  g_assert_cmpuint (after.rss_kb, >=, before.rss_kb + (n - 16384) / 1024);
  for (gsize i = 0; i < 10000; i++)
    g_assert_cmpuint (p[i], ==, 0x5a);
  for (gsize i = 10000; i < n; i += 4093)
    g_assert_cmpuint (p[i], ==, 0);
  g_assert_false (cp_huge_pages_populate (p, 0));
  munmap (p, n);

  ro = mmap (NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true (ro != MAP_FAILED);
  g_assert_false (cp_huge_pages_populate (ro, 65536));
  g_assert_cmpuint (ro[100], ==, 0);
  munmap (ro, 65536);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/huge-pages/mapping", test_advise_mapping);
  g_test_add_func ("/huge-pages/array", test_advise_array);
  g_test_add_func ("/huge-pages/small", test_small);
  g_test_add_func ("/huge-pages/populate", test_populate);
  return g_test_run ();
}
