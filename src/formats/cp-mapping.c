/* cp-mapping.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The guard is a fixed table of slots that the SIGBUS handler scans without
 * locks: a slot is claimed with a compare-and-swap on its state, its range
 * is published before its state says "live", and it is retired (state
 * cleared) before the range is unmapped. The handler only reads the table,
 * calls mmap() (a plain system call) and writes the slot's damaged flag.
 *
 * Replacing the page rather than jumping out of the handler keeps the
 * readers free of any special code: the faulting instruction is retried and
 * reads zeros, which no reader takes for valid content of the file (a JSON
 * reader meets a 0x00 byte, the protobuf walker a field number 0). */

#include "config.h"

#include "cp-mapping.h"

#include <string.h>

#ifdef G_OS_UNIX
# include <errno.h>
# include <fcntl.h>
# include <signal.h>
# include <sys/mman.h>
# include <sys/stat.h>
# include <unistd.h>
#endif

#ifdef G_OS_UNIX

enum
{
  SLOT_FREE = 0,
  SLOT_CLAIMED = 1,
  SLOT_LIVE = 2,
};

typedef struct
{
  int      state;
  int      damaged;
  guintptr start;
  guintptr end;
} GuardSlot;

static GuardSlot guard_slots[CP_MAPPING_MAX_GUARDED];
static struct sigaction guard_previous;
static guintptr guard_page_size;
static int guard_installed;

static void
guard_chain (int        sig,
             siginfo_t *info,
             void      *context)
{
  if (guard_previous.sa_flags & SA_SIGINFO)
    {
      if (guard_previous.sa_sigaction != NULL)
        {
          guard_previous.sa_sigaction (sig, info, context);
          return;
        }
    }
  else if (guard_previous.sa_handler != SIG_DFL && guard_previous.sa_handler != SIG_IGN)
    {
      guard_previous.sa_handler (sig);
      return;
    }

  /* Default action: restore it and let the fault happen again (or raise the
   * signal again when it was sent by a process, not by a fault). */
  {
    struct sigaction dfl;

    memset (&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset (&dfl.sa_mask);
    sigaction (SIGBUS, &dfl, NULL);
    if (info == NULL || info->si_code <= 0)
      raise (SIGBUS);
  }
}

static void
guard_handler (int        sig,
               siginfo_t *info,
               void      *context)
{
  int saved_errno = errno;

  if (info != NULL && info->si_code > 0)
    {
      guintptr addr = (guintptr) info->si_addr;

      for (guint i = 0; i < CP_MAPPING_MAX_GUARDED; i++)
        {
          GuardSlot *slot = &guard_slots[i];

          if (__atomic_load_n (&slot->state, __ATOMIC_ACQUIRE) != SLOT_LIVE)
            continue;
          if (addr < slot->start || addr >= slot->end)
            continue;
          if (mmap ((void *) (addr & ~(guard_page_size - 1)), guard_page_size, PROT_READ,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            break;
          __atomic_store_n (&slot->damaged, 1, __ATOMIC_RELEASE);
          errno = saved_errno;
          return;
        }
    }
  errno = saved_errno;
  guard_chain (sig, info, context);
}

static gboolean
guard_install (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      struct sigaction action;
      long page = sysconf (_SC_PAGESIZE);

      guard_page_size = page > 0 ? (guintptr) page : 4096;
      memset (&action, 0, sizeof action);
      action.sa_sigaction = guard_handler;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset (&action.sa_mask);
      if (sigaction (SIGBUS, &action, &guard_previous) == 0)
        guard_installed = 1;
      else
        g_warning ("Could not install the SIGBUS guard of file mappings: %s", g_strerror (errno));
      g_once_init_leave (&once, 1);
    }
  return guard_installed;
}

static int
guard_claim (guintptr start,
             guintptr end)
{
  for (guint i = 0; i < CP_MAPPING_MAX_GUARDED; i++)
    {
      GuardSlot *slot = &guard_slots[i];
      int expected = SLOT_FREE;

      if (__atomic_compare_exchange_n (&slot->state, &expected, SLOT_CLAIMED, FALSE,
                                       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        {
          slot->start = start;
          slot->end = end;
          __atomic_store_n (&slot->damaged, 0, __ATOMIC_RELAXED);
          __atomic_store_n (&slot->state, SLOT_LIVE, __ATOMIC_RELEASE);
          return (int) i;
        }
    }
  return -1;
}

static void
mapping_free (gpointer data)
{
  GuardSlot *slot = &guard_slots[GPOINTER_TO_UINT (data) - 1];
  void *start = (void *) slot->start;
  gsize len = slot->end - slot->start;

  /* Retire the slot first: once unmapped, the range may be reused by any
   * other allocation, whose faults are not ours. */
  __atomic_store_n (&slot->state, SLOT_CLAIMED, __ATOMIC_RELEASE);
  munmap (start, len);
  slot->start = slot->end = 0;
  __atomic_store_n (&slot->state, SLOT_FREE, __ATOMIC_RELEASE);
}

static GuardSlot *
find_slot (GBytes *bytes)
{
  gsize size;
  guintptr p;

  if (bytes == NULL)
    return NULL;
  p = (guintptr) g_bytes_get_data (bytes, &size);
  if (p == 0)
    return NULL;
  for (guint i = 0; i < CP_MAPPING_MAX_GUARDED; i++)
    {
      GuardSlot *slot = &guard_slots[i];

      if (__atomic_load_n (&slot->state, __ATOMIC_ACQUIRE) == SLOT_LIVE &&
          p >= slot->start && p + size <= slot->end)
        return slot;
    }
  return NULL;
}

GBytes *
cp_mapping_map_file (const char *path)
{
  struct stat st;
  void *addr;
  int fd, slot;

  g_return_val_if_fail (path != NULL, NULL);

  if (!guard_install ())
    return NULL;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size <= 0 ||
      (guint64) st.st_size > G_MAXSIZE / 2)
    {
      close (fd);
      return NULL;
    }
  addr = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (addr == MAP_FAILED)
    return NULL;
  slot = guard_claim ((guintptr) addr, (guintptr) addr + (guintptr) st.st_size);
  if (slot < 0)
    {
      munmap (addr, (size_t) st.st_size);
      return NULL;
    }
  return g_bytes_new_with_free_func (addr, (gsize) st.st_size, mapping_free,
                                     GUINT_TO_POINTER ((guint) slot + 1));
}

gboolean
cp_mapping_is_guarded (GBytes *bytes)
{
  return find_slot (bytes) != NULL;
}

gboolean
cp_mapping_is_damaged (GBytes *bytes)
{
  GuardSlot *slot = find_slot (bytes);

  return slot != NULL && __atomic_load_n (&slot->damaged, __ATOMIC_ACQUIRE) != 0;
}

guint
cp_mapping_get_n_alive (void)
{
  guint n = 0;

  for (guint i = 0; i < CP_MAPPING_MAX_GUARDED; i++)
    if (__atomic_load_n (&guard_slots[i].state, __ATOMIC_ACQUIRE) == SLOT_LIVE)
      n++;
  return n;
}

#else /* !G_OS_UNIX */

GBytes *
cp_mapping_map_file (const char *path)
{
  return NULL;
}

gboolean
cp_mapping_is_guarded (GBytes *bytes)
{
  return FALSE;
}

gboolean
cp_mapping_is_damaged (GBytes *bytes)
{
  return FALSE;
}

guint
cp_mapping_get_n_alive (void)
{
  return 0;
}

#endif
