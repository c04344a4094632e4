/* cp-rules-memory.c: the device memory rules: pressure, headroom,
 * fragmentation, leaks
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cp-memory.h"
#include "cp-rules-private.h"

static gboolean
is_memory_counter (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return strstr (lower, "memory") != NULL || strstr (lower, "allocated") != NULL ||
         strstr (lower, "reserved") != NULL || strstr (lower, "bytes_in_use") != NULL;
}

/* The device memory figures of one device on a finding: its peak, what
 * the allocator reserved, the device's size and the capacity measured
 * against (the allocator's limit when the capture states one). */
static void
add_memory_figures (CpFinding           *f,
                    const CpMemoryStats *st)
{
  gboolean is_limit;
  gint64 capacity = cp_memory_stats_get_capacity (st, &is_limit);

  cp_finding_add_figure (f, "peak_allocated_bytes", _("Peak allocated memory"), (double) st->peak_allocated, "bytes", NULL, NAN, NAN);
  if (st->peak_reserved >= 0)
    cp_finding_add_figure (f, "peak_reserved_bytes", _("Peak reserved memory"), (double) st->peak_reserved, "bytes", NULL, NAN, NAN);
  if (st->capacity > 0)
    cp_finding_add_figure (f, "device_bytes", _("Device memory"), (double) st->capacity, "bytes", NULL, NAN, NAN);
  if (is_limit)
    cp_finding_add_figure (f, "allocator_limit_bytes", _("The allocator's limit (the capacity measured against)"),
                           (double) capacity, "bytes", NULL, NAN, NAN);
}

/* Which capacity a memory finding measured against, as a sentence. */
static char *
capacity_sentence (const CpMemoryStats *st)
{
  gboolean is_limit;
  gint64 capacity = cp_memory_stats_get_capacity (st, &is_limit);
  g_autofree char *cap = g_format_size_full (capacity, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *dev = st->capacity > 0 ? g_format_size_full (st->capacity, G_FORMAT_SIZE_IEC_UNITS) : NULL;

  if (is_limit && dev != NULL)
    /* Translators: "Capacity: the allocator's limit, 14.4 GiB (the device has 15.8 GiB)." */
    return g_strdup_printf (_("Capacity: the allocator's limit, %s (the device has %s)."), cap, dev);
  if (is_limit)
    return g_strdup_printf (_("Capacity: the allocator's limit, %s."), cap);
  /* Translators: "Capacity: the device's memory, 79.2 GiB." */
  return g_strdup_printf (_("Capacity: the device's memory, %s."), cap);
}

/* lead, then which capacity the worst device was measured against. */
static void
set_memory_summary (Ctx                 *ctx,
                    CpFinding           *f,
                    const CpRule        *rule,
                    const char          *lead,
                    const CpMemoryStats *worst,
                    double               value)
{
  g_autofree char *cap = worst != NULL ? capacity_sentence (worst) : NULL;
  g_autofree char *text = cap != NULL ? g_strconcat (lead, " ", cap, NULL) : g_strdup (lead);

  _cp_rule_set_summary (ctx, f, rule, text, value);
}

/* What the allocator held at its highest: reserved when the capture says,
 * allocated otherwise. */
static gint64
memory_peak (const CpMemoryStats *st)
{
  return MAX (st->peak_allocated, st->peak_reserved);
}

static gint64
memory_peak_ts (const CpMemoryStats *st)
{
  return st->peak_reserved > st->peak_allocated ? st->peak_reserved_ts : st->peak_allocated_ts;
}

/* Evidence at a memory peak: the microsecond from it on the lane of the
 * allocation that reached it. */
static void
add_memory_evidence (Ctx                 *ctx,
                     CpFinding           *f,
                     const CpMemoryStats *st,
                     gint64               ts)
{
  cp_finding_add_evidence (f, st->peak_allocated_ref.lane, ts,
                           MAX (ts, MIN (ts + 1000, cp_trace_get_duration (ctx->self->trace))));
}

CpFinding *
_cp_rule_eval_memory (Ctx           *ctx,
             const CpRule  *rule,
             CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = NULL;
  const CpMemoryStats *mem, *worst_st = NULL;
  double worst = 0;
  gboolean any = FALSE;
  guint n_mem;

  _cp_analysis_memory (self);
  mem = cp_analysis_get_memory (self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      gint64 capacity = cp_memory_stats_get_capacity (st, NULL);
      double ratio;
      CpSeverity sev;

      if (capacity <= 0 || !st->has_totals)
        continue;
      any = TRUE;
      ratio = memory_peak (st) / (double) capacity;
      if (!cp_rule_grade (rule, ratio, &sev))
        continue;
      if (f == NULL)
        f = _cp_rule_new_finding (ctx, rule, sev);
      if (worst_st == NULL || ratio > worst)
        worst_st = st;
      worst = MAX (worst, ratio);
      add_memory_evidence (ctx, f, st, memory_peak_ts (st));
      add_memory_figures (f, st);
    }

  /* Memory counters, for devices without allocator events. */
  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLane *lane = self->lanes[l].lane;
      const gint64 *ts;
      const double *values;
      guint n, peak_i = 0;
      gint ordinal;
      const CpDevice *dev;
      const CpProcess *p;
      double ratio;
      CpSeverity sev;

      if (self->lanes[l].kind != CP_LANE_COUNTER || !is_memory_counter (cp_lane_get_name (lane)))
        continue;
      ordinal = cp_lane_get_device (lane);
      p = cp_trace_get_process (self->trace, cp_lane_get_process (lane));
      if (ordinal < 0 && p != NULL)
        ordinal = p->device;
      dev = ordinal >= 0 ? cp_trace_find_device (self->trace, ordinal) : NULL;
      if (dev == NULL || dev->total_memory <= 0 ||
          cp_memory_find_track (cp_trace_get_memory_events (self->trace), 1, ordinal) != NULL)
        continue;
      n = cp_lane_get_counter (lane, &ts, &values);
      if (n == 0)
        continue;
      any = TRUE;
      for (guint i = 1; i < n; i++)
        if (values[i] > values[peak_i])
          peak_i = i;
      ratio = values[peak_i] / (double) dev->total_memory;
      if (!cp_rule_grade (rule, ratio, &sev))
        continue;
      if (f == NULL)
        f = _cp_rule_new_finding (ctx, rule, sev);
      if (ratio > worst)
        worst = ratio;
      cp_finding_add_evidence (f, l, ts[peak_i], peak_i + 1 < n ? ts[peak_i + 1] : ts[peak_i]);
      cp_finding_add_figure (f, "peak_bytes", _("Peak device memory"), values[peak_i], "bytes", NULL, NAN, NAN);
      cp_finding_add_figure (f, "device_bytes", _("Device memory"), (double) dev->total_memory, "bytes", NULL, NAN, NAN);
    }
  if (!any)
    _cp_analysis_add_note (self, "%s", _("No device memory events or counters with a known device size: memory pressure and headroom were not checked"));
  if (f == NULL)
    return NULL;
  _cp_rule_add_metric (f, rule, "peak_memory_ratio", worst);
  cp_finding_set_time_at_stake (f, 0, 0);
  set_memory_summary (ctx, f, rule, _("Device memory peaks near its capacity, which limits the batch size and risks out-of-memory errors."),
                      worst_st, worst);
  *stake = cp_intervals_new ();
  return f;
}

CpFinding *
_cp_rule_eval_memory_headroom (Ctx           *ctx,
                      const CpRule  *rule,
                      CpIntervals  **stake)
{
  const CpMemoryStats *mem, *worst_st = NULL;
  CpFinding *f = NULL;
  double worst = 1, fits = 0;
  guint n_mem;

  _cp_analysis_memory (ctx->self);
  mem = cp_analysis_get_memory (ctx->self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      gint64 capacity = cp_memory_stats_get_capacity (st, NULL);
      double ratio;
      CpSeverity sev;

      if (capacity <= 0 || !st->has_totals || memory_peak (st) <= 0)
        continue;
      ratio = memory_peak (st) / (double) capacity;
      if (!cp_rule_grade (rule, ratio, &sev))
        continue;
      if (f == NULL)
        f = _cp_rule_new_finding (ctx, rule, sev);
      /* The device with the least room decides the batch. */
      if (fits == 0 || ratio > 1 - worst)
        {
          worst = 1 - ratio;
          fits = capacity / (double) memory_peak (st);
          worst_st = st;
        }
      add_memory_evidence (ctx, f, st, memory_peak_ts (st));
      add_memory_figures (f, st);
    }
  if (f == NULL)
    return NULL;
  _cp_rule_add_metric (f, rule, "peak_memory_ratio", 1 - worst);
  /* The plain ratio: it takes all memory as growing with the batch, so the
   * weights and optimizer state make it an upper bound. */
  cp_finding_add_figure (f, "batch_scale", _("Batch scale that fits (capacity / peak, an upper bound)"),
                         fits, "ratio", NULL, NAN, NAN);
  cp_finding_set_time_at_stake (f, 0, 0);
  {
    g_autofree char *lead =
      /* Translators: %.1f is how many times larger the batch could be, "3.2". */
      g_strdup_printf (_("Device memory peaks well under its capacity: a batch up to about %.1f times larger fits (capacity / peak, less what the weights and optimizer state take)."), fits);
    set_memory_summary (ctx, f, rule, lead, worst_st, 1 - worst);
  }
  *stake = cp_intervals_new ();
  return f;
}

CpFinding *
_cp_rule_eval_memory_fragmentation (Ctx           *ctx,
                           const CpRule  *rule,
                           CpIntervals  **stake)
{
  const CpMemoryStats *mem;
  CpFinding *f = NULL;
  double worst = 0;
  guint n_mem;

  _cp_analysis_memory (ctx->self);
  mem = cp_analysis_get_memory (ctx->self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      gint64 capacity = cp_memory_stats_get_capacity (st, NULL);
      double unused;
      CpSeverity sev;

      /* Cached blocks only cost when the device is nearly full. */
      if (capacity <= 0 || !st->has_totals || st->peak_reserved <= 0 ||
          st->peak_reserved < 0.75 * capacity)
        continue;
      unused = (st->peak_reserved - st->allocated_at_reserved_peak) / (double) st->peak_reserved;
      if (!cp_rule_grade (rule, unused, &sev))
        continue;
      if (f == NULL)
        f = _cp_rule_new_finding (ctx, rule, sev);
      worst = MAX (worst, unused);
      add_memory_evidence (ctx, f, st, st->peak_reserved_ts);
      add_memory_figures (f, st);
      cp_finding_add_figure (f, "allocated_at_reserved_peak_bytes", _("Allocated at the reserved peak"),
                             (double) st->allocated_at_reserved_peak, "bytes", NULL, NAN, NAN);
    }
  if (f == NULL)
    return NULL;
  _cp_rule_add_metric (f, rule, "unused_reserved_ratio", worst);
  cp_finding_set_time_at_stake (f, 0, 0);
  _cp_rule_set_summary (ctx, f, rule, _("The allocator reserves far more device memory than is allocated while the device is nearly full: its cached blocks are fragmented."), worst);
  *stake = cp_intervals_new ();
  return f;
}

/* A leak keeps rising: at least three step ends, higher after at least
 * three in four steps than after the one before, a positive fitted slope,
 * and never back at the level it started from. A series that falls back
 * (a cache freed, a buffer reused every few steps) oscillates. */
static gboolean
keeps_rising (const CpMemoryStats *st)
{
  return st->n_step_end >= 3 && st->peak_allocated > 0 && st->step_end_slope > 0 &&
         4 * st->n_grew >= 3 * (st->n_step_end - 1) && st->n_returns == 0;
}

/* A swing over the moderate level that keeps coming back: a note, not a
 * finding. */
static void
note_swing (Ctx                 *ctx,
            const CpRule        *rule,
            const CpMemoryStats *st)
{
  g_autofree char *label = NULL, *low = NULL, *high = NULL;

  if (st->n_step_end < 3 || st->n_returns == 0 || st->peak_allocated <= 0 ||
      !(100.0 * (double) (st->step_end_max - st->step_end_min) / (double) st->peak_allocated > rule->moderate))
    return;
  label = cp_memory_stats_label (st);
  low = g_format_size_full (st->step_end_min, G_FORMAT_SIZE_IEC_UNITS);
  high = g_format_size_full (st->step_end_max, G_FORMAT_SIZE_IEC_UNITS);
  _cp_analysis_add_note (ctx->self,
                         /* Translators: "Allocated memory of GPU 0 at the step ends swings between
                          * 96.0 MiB and 320.0 MiB and falls back to where it started 2 times in 24
                          * step ends: it oscillates, it does not leak". */
                         g_dngettext (GETTEXT_PACKAGE,
                                      "Allocated memory of %s at the step ends swings between %s and %s and falls back to where it started %u time in %u step ends: it oscillates, it does not leak",
                                      "Allocated memory of %s at the step ends swings between %s and %s and falls back to where it started %u times in %u step ends: it oscillates, it does not leak",
                                      st->n_returns),
                         label, low, high, st->n_returns, st->n_step_end);
}

/* The leak's lead: how fast it grows and, with a known capacity, how many
 * more steps it has at that rate. */
static char *
leak_lead (const CpMemoryStats *st)
{
  gint64 capacity = cp_memory_stats_get_capacity (st, NULL);
  g_autofree char *rate = g_format_size_full ((guint64) st->step_end_slope, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *lead =
    /* Translators: %s is the fitted growth per step, "512.0 MiB". */
    g_strdup_printf (_("Allocated device memory keeps rising from step to step, about %s a step, and never falls back to where it started: something keeps tensors alive across steps."),
                     rate);
  g_autofree char *end = NULL;
  double left;

  if (capacity <= 0)
    return g_steal_pointer (&lead);
  left = MAX (0.0, (double) (capacity - st->step_end[st->n_step_end - 1]) / st->step_end_slope);
  end = g_strdup_printf (/* Translators: the leak's end, "At this rate it reaches the capacity in about 37 more steps." */
                         g_dngettext (GETTEXT_PACKAGE, "At this rate it reaches the capacity in about %.0f more step.",
                                      "At this rate it reaches the capacity in about %.0f more steps.",
                                      (gulong) MIN (left, (double) G_MAXULONG)),
                         left);
  return g_strconcat (lead, " ", end, NULL);
}

CpFinding *
_cp_rule_eval_memory_leak (Ctx           *ctx,
                  const CpRule  *rule,
                  CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpMemoryStats *mem, *worst_st = NULL;
  const CpStepStats *steps = (const CpStepStats *) (void *) self->steps->data;
  CpFinding *f = NULL;
  double worst = 0;
  guint n_mem;

  _cp_analysis_memory (self);
  mem = cp_analysis_get_memory (self, &n_mem);
  for (guint m = 0; m < n_mem; m++)
    {
      const CpMemoryStats *st = &mem[m];
      gint64 capacity = cp_memory_stats_get_capacity (st, NULL);
      double pct;
      CpSeverity sev;

      if (!keeps_rising (st))
        {
          note_swing (ctx, rule, st);
          continue;
        }
      /* The fitted rise over the steps compared. */
      pct = 100.0 * st->step_end_slope * (st->n_step_end - 1) / (double) st->peak_allocated;
      if (!cp_rule_grade (rule, pct, &sev))
        continue;
      if (f == NULL)
        f = _cp_rule_new_finding (ctx, rule, sev);
      if (worst_st == NULL || pct > worst)
        worst_st = st;
      worst = MAX (worst, pct);
      for (guint k = 0; k < self->steps->len; k++)
        cp_finding_add_evidence (f, st->peak_allocated_ref.lane, steps[k].start, steps[k].end);
      cp_finding_add_figure (f, "growth_bytes", _("Growth of allocated memory from the first to the last step end"),
                             (double) st->growth, "bytes", NULL, NAN, NAN);
      cp_finding_add_figure (f, "growth_per_step_bytes", _("Growth per step (least-squares slope over the step ends)"),
                             st->step_end_slope, "bytes", NULL, NAN, NAN);
      cp_finding_add_figure (f, "steps", _("Step ends compared"), st->n_step_end, "count", NULL, NAN, NAN);
      if (capacity > 0)
        cp_finding_add_figure (f, "steps_to_capacity", _("Steps until the capacity at this rate"),
                               MAX (0.0, (double) (capacity - st->step_end[st->n_step_end - 1]) / st->step_end_slope),
                               "count", NULL, NAN, NAN);
      add_memory_figures (f, st);
    }
  if (f == NULL)
    return NULL;
  _cp_rule_add_metric (f, rule, "growth_percent", worst);
  cp_finding_set_time_at_stake (f, 0, 0);
  {
    g_autofree char *lead = leak_lead (worst_st);

    _cp_rule_set_summary (ctx, f, rule, lead, worst);
  }
  *stake = cp_intervals_new ();
  return f;
}
