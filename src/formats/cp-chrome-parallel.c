/* cp-chrome-parallel.c: events read ahead on other threads
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A mapped capture is cut into chunks of fixed size. Worker threads take
 * the chunks in order, a ring of them ahead of the reading thread, and read
 * every event that starts in their chunk with cp_chrome_pre_event(): the
 * lexing, the keys, the numbers' extent, the skipped values. The reading
 * thread keeps tokenizing as before; where the tokenizer reaches an event
 * (an object just inside the event array) it asks for the event read ahead
 * at that very offset and replays it, or reads it itself when there is
 * none. So the trace cannot depend on the number of threads or on where
 * the chunks start: a worker that starts its chunk at a wrong place (inside
 * a string, inside an event's arguments) only reads events at offsets the
 * tokenizer never asks for, and finds its way back at the next "}, {".
 *
 * A chunk's first event is found by a quick scan: a '{' whose previous
 * character, spaces aside, is ',' or '['. The events after it follow each
 * other ("}" "," "{"); anything else (the array's end, a value that is not
 * an object, a syntax error) sends the worker back to the scan. A chunk the
 * reading thread reaches before any worker took it is read by the
 * reading thread alone. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cp-chrome-private.h"
#include "cp-json-lex.h"
#include "model/cp-huge-pages.h"

#define PAR_MAX_THREADS   8
#define PAR_CHUNK         (256u << 10)
#define PAR_SLOTS_PER_THREAD 4
#define PAR_MAX_WATCH     8
/* How far past a watched array's end the workers populate its pages: one
 * huge page; the reading thread is a few chunks (some tens of kilobytes of
 * each array) behind them. */
#define PAR_AHEAD         ((gsize) 2 << 20)

static gint forced_threads;
static gsize forced_chunk;
static gint forced_mode;
static gsize last_replayed;
static gsize last_kept;
static gsize last_populated;
static gsize last_claimed;

void
_cp_chrome_set_threads (guint           n_threads,
                        gsize           chunk_bytes,
                        CpChromeParMode mode)
{
  g_atomic_int_set (&forced_mode, (gint) mode);
  g_atomic_int_set (&forced_threads, (gint) n_threads);
  g_atomic_pointer_set (&forced_chunk, chunk_bytes);
}

guint64
_cp_chrome_get_replayed (void)
{
  return (guint64) (gsize) g_atomic_pointer_get (&last_replayed);
}

guint64
_cp_chrome_get_kept (void)
{
  return (guint64) (gsize) g_atomic_pointer_get (&last_kept);
}

guint64
_cp_chrome_get_claimed (void)
{
  return (guint64) (gsize) g_atomic_pointer_get (&last_claimed);
}

guint64
_cp_chrome_get_populated (void)
{
  return (guint64) (gsize) g_atomic_pointer_get (&last_populated);
}

/* Threads in all for an input of input_len bytes (1: no workers), and the
 * chunk size. CHOKEPOINT_THREADS=N (or the tests) decide when set; else a
 * capture of PAR_MIN_INPUT or more read alone (alone: no other Chrome read
 * runs in the process, as the ranks of a job or the two sides of a
 * comparison do) on a machine of two cores or more gets one worker: on an
 * idle 2-core machine that loads a 200 MB capture in 0.42-0.49 s instead
 * of 0.64 s, for 15% more CPU time (docs/performance.md). On two cores a
 * second worker would only take the reading thread's core. */
#define PAR_MIN_INPUT ((gsize) 32 << 20)

guint
cp_chrome_par_threads (gsize     input_len,
                       gboolean  alone,
                       gsize    *chunk)
{
  guint forced = (guint) g_atomic_int_get (&forced_threads);
  const char *env = g_getenv ("CHOKEPOINT_THREADS");
  guint n;

  *chunk = (gsize) g_atomic_pointer_get (&forced_chunk);
  if (*chunk == 0)
    *chunk = PAR_CHUNK;
  if (forced != 0)
    n = forced;
  else if (env != NULL && env[0] >= '1' && env[0] <= '9')
    n = (guint) strtoul (env, NULL, 10);
  else
    n = alone && input_len >= PAR_MIN_INPUT && g_get_num_processors () >= 2 ? 2 : 1;
  return CLAMP (n, 1, PAR_MAX_THREADS);
}

enum
{
  SLOT_FREE,
  SLOT_BUSY,
  SLOT_DONE,
};

typedef struct
{
  guint64  chunk;     /* index of the chunk it holds */
  int      state;
  gint     claim;     /* the reading thread wants the rest of the chunk */
  gboolean cut;       /* the worker stopped before the chunk's end */
  CpChromeAhead *events;   /* by offset */
  guint    n_events;
  guint    events_cap;
  CpChromeOps ops;
} Slot;

/* An array the reading thread appends to, whose pages the workers
 * populate ahead of it (cp_chrome_par_watch()). */
typedef struct
{
  GArray     *array;
  /* At the reading thread's last chunk: */
  const char *data;
  gsize       used;
  gsize       size;
  /* The workers': populated up to done in done_data. */
  const char *done_data;
  gsize       done;
} Watch;

typedef struct
{
  const char *from;
  gsize       len;
} Range;

struct _CpChromePar
{
  const char *data;
  gsize       len;
  gsize       chunk;
  guint64     n_chunks;

  GMutex      lock;
  GCond       cond;
  Slot       *slots;
  guint       n_slots;
  guint64     next;       /* the next chunk a worker takes */
  guint64     current;    /* the reading thread's chunk; those before are free */
  guint64     own;        /* a chunk ahead the reading thread keeps for itself */
  gboolean    stop;
  CpChromeParMode mode;   /* the tests' other ways to meet the workers */
  GThread    *threads[PAR_MAX_THREADS];
  guint       n_threads;
  Watch       watch[PAR_MAX_WATCH];
  guint       n_watch;
  guint64     populated;  /* bytes */

  /* The reading thread's place. */
  guint64     cur_chunk;
  Slot       *cur;        /* NULL: read by the reading thread alone */
  guint       cursor;
  guint64     replayed;   /* events found read ahead */
  guint64     kept;       /* chunks the reading thread kept for itself */
  guint64     claimed;    /* chunks whose rest it read itself */
};

static inline gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The first '{' at or after from that follows a ',' or a '['. */
static gsize
find_start (const char *data,
            gsize       from,
            gsize       len)
{
  while (from < len)
    {
      const char *b = memchr (data + from, '{', len - from);
      gsize i, k;

      if (b == NULL)
        return len;
      i = b - data;
      k = i;
      while (k > 0 && is_space (data[k - 1]))
        k--;
      if (k > 0 && (data[k - 1] == ',' || data[k - 1] == '['))
        return i;
      from = i + 1;
    }
  return len;
}

static void
read_chunk (CpChromePar *par,
            Slot        *slot)
{
  const char *data = par->data;
  gsize len = par->len;
  gsize start = slot->chunk * par->chunk;
  gsize end = MIN (start + par->chunk, len);
  gsize p = find_start (data, start, len);
  /* The tests' stand-in for a claim: half way through the chunk. */
  gsize stop = par->mode == CP_CHROME_PAR_CLAIM ? start + par->chunk / 2 : end;

  slot->n_events = 0;
  slot->ops.len = 0;
  slot->cut = FALSE;
  while (p < end)
    {
      CpChromeAhead a;
      gsize q;

      /* The reading thread has reached this chunk: the events read so far
       * are its, the rest it reads itself. One load an event. */
      if (G_UNLIKELY (g_atomic_int_get (&slot->claim) || p >= stop))
        {
          slot->cut = TRUE;
          break;
        }

      if (cp_chrome_pre_event (data + p, len - p, &slot->ops, &a))
        {
          a.offset = p;
          if (G_UNLIKELY (slot->n_events == slot->events_cap))
            {
              slot->events_cap = MAX (slot->events_cap * 2, 1024);
              slot->events = g_renew (CpChromeAhead, slot->events, slot->events_cap);
            }
          slot->events[slot->n_events++] = a;
          q = p + a.used;
        }
      else
        {
          const guchar *e = cp_json_lex_skip_container ((const guchar *) data + p + 1,
                                                        (const guchar *) data + len);

          slot->ops.len = a.first;
          q = e != NULL ? (gsize) ((const char *) e - data) : p + 1;
        }
      /* The next event, or the scan again. */
      while (q < len && is_space (data[q]))
        q++;
      if (q < len && data[q] == ',')
        {
          q++;
          while (q < len && is_space (data[q]))
            q++;
          if (q < len && data[q] == '{')
            {
              p = q;
              continue;
            }
        }
      p = find_start (data, q, len);
    }
}

/* With the lock: the parts of the watched arrays, past where the reading
 * thread was at its last chunk, that no worker populated yet. */
static guint
claim_ahead (CpChromePar *par,
             Range       *ranges)
{
  guint n = 0;

  for (guint i = 0; i < par->n_watch; i++)
    {
      Watch *w = &par->watch[i];
      gsize from, to;

      /* An array never appended to may stay empty: no memory for it. */
      if (w->data == NULL || w->used == 0)
        continue;
      /* Moved by a realloc: its new block from the start. */
      if (w->done_data != w->data)
        {
          w->done_data = w->data;
          w->done = 0;
        }
      from = MAX (w->done, w->used);
      to = MIN (w->size, w->used + PAR_AHEAD);
      if (to <= from)
        continue;
      ranges[n].from = w->data + from;
      ranges[n].len = to - from;
      n++;
      w->done = to;
    }
  return n;
}

/* Without the lock. A block the reading thread has moved since (the
 * array grew past it) is given back or not mapped: madvise() fails or
 * populates pages that are the process's anyway, and changes no byte. */
static void
populate (CpChromePar *par,
          const Range *ranges,
          guint        n)
{
  gsize bytes = 0;

  for (guint i = 0; i < n; i++)
    if (cp_huge_pages_populate (ranges[i].from, ranges[i].len))
      bytes += ranges[i].len;
  if (bytes == 0)
    return;
  g_mutex_lock (&par->lock);
  par->populated += bytes;
  g_mutex_unlock (&par->lock);
}

static gpointer
worker (gpointer data)
{
  CpChromePar *par = data;
  Range ranges[PAR_MAX_WATCH];
  guint n_ranges;

  g_mutex_lock (&par->lock);
  while (!par->stop)
    {
      Slot *slot;

      if (par->next >= par->n_chunks)
        break;
      if (par->next < par->current)
        par->next = par->current;
      if (par->next >= par->current + par->n_slots)
        {
          /* Ahead as far as the ring goes: time to populate. */
          n_ranges = claim_ahead (par, ranges);
          if (n_ranges > 0)
            {
              g_mutex_unlock (&par->lock);
              populate (par, ranges, n_ranges);
              g_mutex_lock (&par->lock);
            }
          else
            g_cond_wait (&par->cond, &par->lock);
          continue;
        }
      slot = &par->slots[par->next % par->n_slots];
      /* The reading thread may have moved past a chunk a worker still
       * reads: its slot is this one's until that worker is done. */
      if (slot->state == SLOT_BUSY)
        {
          g_cond_wait (&par->cond, &par->lock);
          continue;
        }
      slot->chunk = par->next++;
      slot->state = SLOT_BUSY;
      g_atomic_int_set (&slot->claim, 0);
      g_mutex_unlock (&par->lock);
      read_chunk (par, slot);
      g_mutex_lock (&par->lock);
      slot->state = SLOT_DONE;
      g_cond_broadcast (&par->cond);
    }
  g_mutex_unlock (&par->lock);
  return NULL;
}

CpChromePar *
cp_chrome_par_new (const char *data,
                   gsize       len,
                   guint       n_workers,
                   gsize       chunk)
{
  CpChromePar *par = g_new0 (CpChromePar, 1);

  par->data = data;
  par->len = len;
  par->chunk = MAX (chunk, 64);
  par->n_chunks = (len + par->chunk - 1) / par->chunk;
  n_workers = CLAMP (n_workers, 1, PAR_MAX_THREADS);
  par->n_slots = n_workers * PAR_SLOTS_PER_THREAD;
  par->slots = g_new0 (Slot, par->n_slots);
  par->mode = (CpChromeParMode) g_atomic_int_get (&forced_mode);
  g_mutex_init (&par->lock);
  g_cond_init (&par->cond);
  par->cur_chunk = G_MAXUINT64;
  par->own = G_MAXUINT64;
  for (guint i = 0; i < n_workers; i++)
    {
      GThread *th = g_thread_try_new ("cp-json-ahead", worker, par, NULL);

      if (th == NULL)
        break;
      par->threads[par->n_threads++] = th;
    }
  return par;
}

void
cp_chrome_par_free (CpChromePar *par)
{
  if (par == NULL)
    return;
  g_atomic_pointer_set (&last_replayed, (gsize) par->replayed);
  g_atomic_pointer_set (&last_kept, (gsize) par->kept);
  g_atomic_pointer_set (&last_claimed, (gsize) par->claimed);
  g_mutex_lock (&par->lock);
  par->stop = TRUE;
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
  for (guint i = 0; i < par->n_threads; i++)
    g_thread_join (par->threads[i]);
  /* The workers' count, once they are done. */
  g_atomic_pointer_set (&last_populated, (gsize) par->populated);
  for (guint i = 0; i < par->n_slots; i++)
    {
      g_free (par->slots[i].events);
      g_free (par->slots[i].ops.v);
    }
  g_free (par->slots);
  g_mutex_clear (&par->lock);
  g_cond_clear (&par->cond);
  g_free (par);
}

/* Moves the reading thread to chunk k: frees the chunks before it, waits
 * for k if a worker has it, or takes it from the workers (unless told to
 * wait for them).
 *
 * A reading thread that catches up with the workers (it enters the last
 * chunk they took while one still reads it) keeps the chunk after it for
 * itself: it reads that one in full, without the ahead work written and
 * read again, while the workers go on past it. That balances the two
 * sides on their own: on 2 cores the load of the 200 MB compact capture
 * went from 0.54 s to 0.44 s (docs/performance.md). It does not wait for
 * the worker to finish the chunk it caught up with either: it claims the
 * rest, the worker stops after its event, and the reading thread reads
 * from there on. Waiting had cost it 7-10% of a 1 GB load's wall time. */
static void
enter_chunk (CpChromePar *par,
             guint64      k)
{
  g_mutex_lock (&par->lock);
  par->current = k;
  for (guint i = 0; i < par->n_watch; i++)
    {
      Watch *w = &par->watch[i];

      w->data = w->array->data;
      w->used = (gsize) w->array->len * g_array_get_element_size (w->array);
      w->size = cp_huge_pages_block_size (w->data);
    }
  /* A kept chunk passed over (no event starts in it) is given up. */
  if (par->own != G_MAXUINT64 && par->own < k)
    par->own = G_MAXUINT64;
  if (k == par->own)
    {
      par->own = G_MAXUINT64;
      par->cur = NULL;
      par->kept++;
    }
  else
    {
      if (par->mode != CP_CHROME_PAR_FREE && par->n_threads > 0)
        {
          g_cond_broadcast (&par->cond);
          while (k >= par->next)
            g_cond_wait (&par->cond, &par->lock);
        }
      if (k < par->next)
        {
          Slot *slot = &par->slots[k % par->n_slots];
          gboolean keep;

          if (par->mode == CP_CHROME_PAR_KEEP)
            keep = TRUE;
          else
            keep = par->mode == CP_CHROME_PAR_FREE && par->next == k + 1 && slot->state == SLOT_BUSY;
          if (keep && par->own == G_MAXUINT64 && par->next < par->n_chunks)
            par->own = par->next++;
          /* Rather than wait for the worker to finish the chunk: it stops
           * after the event it is reading, and the reading thread reads
           * those after it itself. */
          if (par->mode == CP_CHROME_PAR_FREE && slot->chunk == k && slot->state == SLOT_BUSY)
            g_atomic_int_set (&slot->claim, 1);
          while (!(slot->chunk == k && slot->state == SLOT_DONE))
            g_cond_wait (&par->cond, &par->lock);
          if (slot->cut)
            par->claimed++;
          par->cur = slot;
        }
      else
        {
          par->next = k + 1;
          par->cur = NULL;
        }
    }
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
  par->cur_chunk = k;
  par->cursor = 0;
}

/* The reading thread will append to array until the workers are stopped.
 * A worker that has run as far ahead as the ring of chunks goes, and would
 * wait, populates the array's pages a little past its end instead
 * (cp_huge_pages_populate()): the faults and the zeroing of fresh pages
 * become its own. That only uses time a worker would have waited, and
 * changes no byte of the array. On a virtual machine that gives freed
 * memory back to its host, first writes to huge pages ran at about
 * 350 MB/s, and the reading thread took a fifth of a two-thread load's
 * samples in the kernel's page zeroing (docs/performance.md). */
void
cp_chrome_par_watch (CpChromePar *par,
                     GArray      *array)
{
  g_mutex_lock (&par->lock);
  if (par->n_watch < PAR_MAX_WATCH)
    {
      par->watch[par->n_watch].array = array;
      par->n_watch++;
    }
  g_mutex_unlock (&par->lock);
}

const CpChromeAhead *
cp_chrome_par_find (CpChromePar       *par,
                    guint64            offset,
                    const char        *text,
                    const CpChromeOp **ops)
{
  guint64 k;
  const CpChromeAhead *events;
  guint n;

  /* Only the mapping the workers read, at the same place. */
  if (offset >= par->len || text != par->data + offset)
    return NULL;
  k = offset / par->chunk;
  if (k != par->cur_chunk)
    {
      if (par->cur_chunk != G_MAXUINT64 && k < par->cur_chunk)
        return NULL;
      enter_chunk (par, k);
    }
  if (par->cur == NULL)
    return NULL;
  events = par->cur->events;
  n = par->cur->n_events;
  while (par->cursor < n && events[par->cursor].offset < offset)
    par->cursor++;
  if (par->cursor < n && events[par->cursor].offset == offset)
    {
      const CpChromeAhead *a = &events[par->cursor];

      *ops = &par->cur->ops.v[a->first];
      par->replayed++;
      return a;
    }
  return NULL;
}
