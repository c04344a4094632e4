/* cp-time-format.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "model/cp-types.h"

#include "cp-time-format.h"

typedef struct
{
  gint64      ns;
  const char *suffix;
} Unit;

static const Unit units[] = {
  { CP_NS_PER_S, "s" },
  { CP_NS_PER_MS, "ms" },
  { CP_NS_PER_US, "µs" },
  { 1, "ns" },
};

static const Unit *
unit_for (gint64 ns)
{
  ns = ABS (ns);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (ns >= units[i].ns)
        return &units[i];
    }
  return &units[G_N_ELEMENTS (units) - 1];
}

char *
cp_time_format_duration (gint64 ns)
{
  const Unit *u = unit_for (ns);
  double v;
  int decimals;

  if (u->ns == 1)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);

  v = (double) ns / (double) u->ns;
  /* Three significant digits, without scientific notation. */
  if (fabs (v) >= 100)
    decimals = 0;
  else if (fabs (v) >= 10)
    decimals = 1;
  else
    decimals = 2;
  /* Rounding may carry into the next decade (999.7 µs -> "1000 µs"):
   * that reads fine and stays exact enough. */
  return g_strdup_printf ("%.*f %s", decimals, v, u->suffix);
}

char *
cp_time_format_tick (gint64 t,
                     gint64 step,
                     gint64 ref)
{
  const Unit *u = unit_for (MAX (ABS (ref), ABS (t)));
  int decimals = 0;
  gint64 scale = u->ns;

  step = MAX (step, 1);
  /* Decimals needed to write a multiple of step in the unit. */
  while (scale > 1 && step % scale != 0)
    {
      scale /= 10;
      decimals++;
    }

  if (decimals == 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT " %s", t / u->ns, u->suffix);
  else
    {
      gint64 whole = t / u->ns;
      gint64 frac = ABS (t % u->ns) / scale;
      const char *sign = t < 0 && whole == 0 ? "-" : "";

      return g_strdup_printf ("%s%" G_GINT64_FORMAT ".%0*" G_GINT64_FORMAT " %s",
                              sign, whole, decimals, frac, u->suffix);
    }
}

char *
cp_time_format_offset (gint64 t)
{
  const Unit *u = unit_for (t);
  gint64 step = 1;

  /* Exact, but without the zeros a whole-µs capture would show on every
   * time ("184.000 µs", "45.836000 ms"). */
  while (step < u->ns && t % (step * 10) == 0)
    step *= 10;
  return cp_time_format_tick (t, step, t);
}

char *
cp_time_format_range_edge (gint64 t,
                           gint64 span)
{
  gint64 step = 1;
  gint64 rounded;

  /* One part in a thousand of the span: a range dragged with the mouse is
   * a pixel wide at best, so its edges' nanoseconds are noise. */
  while (step <= G_GINT64_CONSTANT (100000000000000000) && step * 10 <= ABS (span) / 1000)
    step *= 10;
  rounded = t >= 0 ? (t + step / 2) / step * step : -((-t + step / 2) / step * step);
  return cp_time_format_tick (rounded, step, rounded);
}

gboolean
cp_time_origin_is_date (gint64   origin_abs,
                        gboolean is_epoch)
{
  /* 2005-01-01 and 2100-01-01 in Unix ns. Before 2024 Kineto wrote its
   * times as µs since the Unix epoch without saying so; no other clock a
   * capture uses (boot time, a process's monotonic clock, a trace's own
   * zero) reaches decades. */
  const gint64 from = G_GINT64_CONSTANT (1104537600) * CP_NS_PER_S;
  const gint64 to = G_GINT64_CONSTANT (4102444800) * CP_NS_PER_S;

  if (is_epoch)
    return TRUE;
  return origin_abs >= from && origin_abs < to;
}

gint64
cp_time_pick_step (double ns_per_px,
                   double min_px)
{
  static const int mantissas[] = { 1, 2, 5 };
  double min_ns;

  if (!isfinite (ns_per_px) || ns_per_px <= 0)
    ns_per_px = 1;
  min_ns = ns_per_px * MAX (min_px, 1e-3);

  for (gint64 decade = 1; decade <= G_GINT64_CONSTANT (1000000000000000000); decade *= 10)
    {
      for (guint i = 0; i < G_N_ELEMENTS (mantissas); i++)
        {
          gint64 step = decade * mantissas[i];

          if ((double) step >= min_ns)
            return step;
        }
    }
  return G_GINT64_CONSTANT (1000000000000000000);
}

gint64
cp_time_minor_step (gint64 major)
{
  gint64 m = major;

  while (m >= 10 && m % 10 == 0)
    m /= 10;
  /* 1 -> 5 parts, 2 -> 4 parts, 5 -> 5 parts; 1, 2 and 5 ns have no
   * smaller whole step except 1 ns. */
  if (m == 2)
    return MAX (major / 4 > 0 && major % 4 == 0 ? major / 4 : major / 2, 1);
  return MAX (major / 5, 1);
}
