/* cp-heap.h: a binary min-heap on a gint64 key, for the sweeps
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint64  key;
  guint32 tag;
  float   value;
} CpHeapItem;

typedef struct
{
  CpHeapItem *v;
  guint       n;
  guint       cap;
} CpHeap;

static inline void
_cp_heap_push (CpHeap     *h,
               CpHeapItem  item)
{
  guint i;

  if (h->n == h->cap)
    {
      h->cap = h->cap ? h->cap * 2 : 16;
      h->v = g_renew (CpHeapItem, h->v, h->cap);
    }
  i = h->n++;
  while (i > 0)
    {
      guint parent = (i - 1) / 2;

      if (h->v[parent].key <= item.key)
        break;
      h->v[i] = h->v[parent];
      i = parent;
    }
  h->v[i] = item;
}

static inline CpHeapItem
_cp_heap_pop (CpHeap *h)
{
  CpHeapItem top = h->v[0], last = h->v[--h->n];
  guint i = 0;

  for (;;)
    {
      guint child = 2 * i + 1;

      if (child >= h->n)
        break;
      if (child + 1 < h->n && h->v[child + 1].key < h->v[child].key)
        child++;
      if (h->v[child].key >= last.key)
        break;
      h->v[i] = h->v[child];
      i = child;
    }
  if (h->n > 0)
    h->v[i] = last;
  return top;
}

G_END_DECLS
