/* cp-huge-pages.c: asking the kernel for huge pages under big columns
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-huge-pages.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__linux__)
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CP_OTHER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CP_OTHER_ALLOCATOR 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !defined(CP_OTHER_ALLOCATOR)
#define CP_CAN_ADVISE 1
#endif

#ifdef CP_CAN_ADVISE
#define HUGE_PAGE ((uintptr_t) 2 << 20)

static gboolean
advice_helps (void)
{
  static gsize once;
  static gboolean helps;

  if (g_once_init_enter (&once))
    {
      g_autofree char *mode = NULL;

      /* "always" gives huge pages without being asked, "never" not at all. */
      helps = g_strcmp0 (g_getenv ("CHOKEPOINT_HUGE_PAGES"), "0") != 0 &&
              g_file_get_contents ("/sys/kernel/mm/transparent_hugepage/enabled",
                                   &mode, NULL, NULL) &&
              strstr (mode, "[madvise]") != NULL;
      g_once_init_leave (&once, 1);
    }
  return helps;
}
#endif

gboolean
cp_huge_pages_in_use (void)
{
#ifdef CP_CAN_ADVISE
  return advice_helps ();
#else
  return FALSE;
#endif
}

void
cp_huge_pages_advise (gconstpointer block)
{
#ifdef CP_CAN_ADVISE
  const size_t *head = block;
  size_t usable, size;
  uintptr_t from, to;

  if (block == NULL || !advice_helps ())
    return;
  usable = malloc_usable_size ((void *) block);
  if (usable < CP_HUGE_PAGES_MIN)
    return;
  /* glibc puts a chunk's size, with its flags in the low bits, in the word
   * before the block, and the chunk's offset in its mapping in the word
   * before that. A chunk of its own mapping (IS_MMAPPED, 0x2) is advised
   * whole: advice on part of a mapping would split it, and realloc could
   * no longer grow it in place with mremap(). Any other block lies in an
   * arena: the huge pages that fit inside it. */
  size = head[-1];
  if (size & 0x2)
    {
      from = (uintptr_t) block - 2 * sizeof (size_t) - head[-2];
      to = from + (size & ~(size_t) 0x7) + head[-2];
    }
  else
    {
      from = ((uintptr_t) block + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
      to = ((uintptr_t) block + usable) & ~(HUGE_PAGE - 1);
    }
  if (to > from)
    madvise ((void *) from, to - from, MADV_HUGEPAGE);
#else
  (void) block;
#endif
}

gsize
cp_huge_pages_block_size (gconstpointer block)
{
#if defined(__linux__) && defined(__GLIBC__)
  return block != NULL ? malloc_usable_size ((void *) block) : 0;
#else
  (void) block;
  return 0;
#endif
}

gboolean
cp_huge_pages_populate (gconstpointer from,
                        gsize         len)
{
#if defined(__linux__)
  static gint unsupported;
  uintptr_t page = (uintptr_t) sysconf (_SC_PAGESIZE);
  uintptr_t a, b;

  if (len == 0 || g_atomic_int_get (&unsupported))
    return FALSE;
  a = (uintptr_t) from & ~(page - 1);
  b = ((uintptr_t) from + len + page - 1) & ~(page - 1);
  if (madvise ((void *) a, b - a, MADV_POPULATE_WRITE) == 0)
    return TRUE;
  /* An older kernel: not again. */
  if (errno == EINVAL)
    g_atomic_int_set (&unsupported, 1);
  return FALSE;
#else
  (void) from;
  (void) len;
  return FALSE;
#endif
}
