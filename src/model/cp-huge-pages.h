/* cp-huge-pages.h: asking the kernel for huge pages under big columns
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* Blocks of at least this many bytes are worth the advice. */
#define CP_HUGE_PAGES_MIN ((gsize) 1 << 20)

/* Advises the kernel to back the heap block (from g_malloc or g_realloc)
 * with transparent huge pages. A model's columns are written once, front
 * to back, as they grow: with 4 KiB pages each page costs a fault on first
 * write, which on a virtual machine is several microseconds; a 2 MiB page
 * costs one fault for 512 of them. Only where the kernel gives huge pages
 * on request alone (transparent_hugepage "madvise", the default of Ubuntu
 * and of many virtual machines) and with glibc's allocator; nothing for
 * smaller blocks, elsewhere, under a sanitizer, or with
 * CHOKEPOINT_HUGE_PAGES=0. Cheap to call again on a block that grew. */
void     cp_huge_pages_advise (gconstpointer block);

/* Whether cp_huge_pages_advise() gives advice here. */
gboolean cp_huge_pages_in_use (void);

/* The bytes a heap block (from g_malloc or g_realloc) can hold, at least
 * the size asked for; 0 where the allocator does not tell. */
gsize    cp_huge_pages_block_size (gconstpointer block);

/* Has the kernel give [from, from + len) its pages now, as a write would,
 * without changing a byte (MADV_POPULATE_WRITE, Linux 5.14): a thread
 * with time to spare takes the faults, and the zeroing of fresh pages,
 * off the thread that is about to write there. Safe while other threads
 * write to the range. FALSE where the kernel cannot, or from is not
 * mapped writable: only time is lost. */
gboolean cp_huge_pages_populate   (gconstpointer from,
                                   gsize         len);

/* For an array that grows by appends: calls cp_huge_pages_advise() on its
 * data each time its length reaches a power of two, once it holds
 * CP_HUGE_PAGES_MIN bytes: where it is about to move or grow. */
static inline void
cp_huge_pages_follow (GArray *array)
{
  if (G_UNLIKELY ((array->len & (array->len - 1)) == 0) &&
      array->len * (gsize) g_array_get_element_size (array) >= CP_HUGE_PAGES_MIN)
    cp_huge_pages_advise (array->data);
}

/* g_malloc() of a block that may be big and is about to be written whole,
 * advised before the first write. */
static inline gpointer
cp_huge_malloc (gsize bytes)
{
  gpointer block = g_malloc (bytes);

  if (bytes >= CP_HUGE_PAGES_MIN)
    cp_huge_pages_advise (block);
  return block;
}

#define cp_huge_new(type, n) ((type *) cp_huge_malloc (sizeof (type) * (gsize) (n)))

/* g_memdup2() of the same kind. */
static inline gpointer
cp_huge_dup (gconstpointer mem,
             gsize         bytes)
{
  gpointer block = cp_huge_malloc (bytes);

  memcpy (block, mem, bytes);
  return block;
}

/* A new array with room for reserve elements, advised when that is big:
 * reserving costs address space, not memory, until it is written. */
static inline GArray *
cp_array_new_big (gboolean clear,
                  guint    element_size,
                  guint    reserve)
{
  GArray *array = g_array_sized_new (FALSE, clear, element_size, reserve);

  if ((gsize) reserve * element_size >= CP_HUGE_PAGES_MIN)
    cp_huge_pages_advise (array->data);
  return array;
}

/* What an array that will grow big reserves up front: more than glibc
 * ever keeps in its heap (32 MiB), so the array is a mapping of its own
 * from the start, advised before its first write, and grows in place
 * with mremap() instead of being copied to a new place each time it
 * doubles (the copy's pages fault one by one). Address space, not memory:
 * pages never written are never given. */
#define CP_HUGE_RESERVE ((gsize) 40 << 20)

/* Replaces an empty array with one that holds CP_HUGE_RESERVE bytes. */
static inline void
cp_array_reserve_big (GArray  **array,
                      gboolean  clear)
{
  guint element_size = g_array_get_element_size (*array);

  /* G_DEBUG=gc-friendly clears every byte GArray reserves: the reservation
   * would cost all its memory at once. */
  if ((*array)->len != 0 || g_mem_gc_friendly)
    return;
  g_array_unref (*array);
  *array = cp_array_new_big (clear, element_size, (guint) (CP_HUGE_RESERVE / element_size));
}

/* g_array_append_val() on an array that may grow big. */
#define cp_array_append_big(array, value) \
  G_STMT_START { \
    g_array_append_val ((array), (value)); \
    cp_huge_pages_follow (array); \
  } G_STMT_END

G_END_DECLS
