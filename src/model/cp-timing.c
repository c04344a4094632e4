/* cp-timing.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cp-timing.h"

/* 0: not looked at yet, 1: off, 2: on. */
static gint timing_state;
/* Process start on CLOCK_BOOTTIME, in seconds; negative: unknown. */
static double start_boot = -1;
/* Fallback: the library's load, on the monotonic clock. */
static gint64 start_mono;

static void __attribute__ ((constructor))
timing_init (void)
{
  start_mono = g_get_monotonic_time ();
}

static double
boot_seconds (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_BOOTTIME, &ts) != 0)
    return -1;
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Field 22 of /proc/self/stat: the start in clock ticks since boot. The
 * command name (field 2) may hold spaces and parentheses; it ends at the
 * last ')'. */
static double
read_start (void)
{
  g_autofree char *stat = NULL;
  const char *p;
  long ticks = sysconf (_SC_CLK_TCK);
  unsigned long long start;

  if (ticks <= 0 || !g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL))
    return -1;
  p = strrchr (stat, ')');
  if (p == NULL)
    return -1;
  p++;
  /* Fields 3 to 21 come before the start time. */
  for (int field = 3; field <= 22; field++)
    {
      while (*p == ' ')
        p++;
      if (*p == '\0')
        return -1;
      if (field == 22)
        break;
      while (*p != ' ' && *p != '\0')
        p++;
    }
  if (sscanf (p, "%llu", &start) != 1)
    return -1;
  return (double) start / ticks;
}

gboolean
cp_timing_enabled (void)
{
  static gsize once;
  gint state = g_atomic_int_get (&timing_state);

  if (G_LIKELY (state != 0))
    return state == 2;
  if (g_once_init_enter (&once))
    {
      const char *v = g_getenv ("CHOKEPOINT_TIMINGS");
      gboolean on = v != NULL && strcmp (v, "1") == 0;

      if (on)
        start_boot = read_start ();
      g_atomic_int_set (&timing_state, on ? 2 : 1);
      g_once_init_leave (&once, 1);
    }
  return g_atomic_int_get (&timing_state) == 2;
}

void
cp_timing_mark (const char *milestone)
{
  double now, since;

  if (G_LIKELY (g_atomic_int_get (&timing_state) == 1) || !cp_timing_enabled ())
    return;
  now = boot_seconds ();
  if (start_boot >= 0 && now >= start_boot)
    since = now - start_boot;
  else
    since = (g_get_monotonic_time () - start_mono) / (double) G_USEC_PER_SEC;
  /* One write per line, so lines from threads do not mix. */
  {
    char line[128];
    int n = g_snprintf (line, sizeof line, "chokepoint-timing: %s %.3f s\n", milestone, since);

    if (n > 0)
      {
        fwrite (line, 1, MIN ((gsize) n, sizeof line - 1), stderr);
        fflush (stderr);
      }
  }
}
