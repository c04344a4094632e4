/* cp-steady.c: the steady-state window the verdict is computed over
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cp-steps.c finds the steps (markers, DataLoader or optimizer iterations,
 * the repeated XLA module, the devices' own lines). What the breakdown, the
 * rules and the verdict are computed over is settled here, in this order:
 *
 * 1. Devices out of step: when devices with steps of their own step at
 *    different times, each step is one device's, side by side, instead of
 *    a hull of the same step number across devices (which holds mostly
 *    time where no device works).
 * 2. The warm-up: leading iterations that are outliers against the rest
 *    (cp_steps_find_warmup()), per device when out of step, are left out.
 * 3. The window sets: the shared windows and each device's own.
 * 4. Coverage: the share of the devices' busy time inside the steps found.
 *    When the steps hold less than CP_WINDOW_MIN_DEVICE_SHARE of it (a
 *    benchmark loop whose most repeated module is not where the work is),
 *    the window becomes the span where the devices work.
 * 5. Outlier steps are flagged, per device when out of step.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp-analysis-private.h"
#include "cp-steps.h"

/* Devices whose own windows share less than this part of the shorter one's
 * time step at different times. */
#define CP_WINDOW_IN_STEP_OVERLAP   0.5
/* Below this share of the devices' busy time inside the steps found, the
 * steps are not where the work is. */
#define CP_WINDOW_MIN_DEVICE_SHARE  0.6

#define KERNEL_CATS ((1u << CP_TIME_COMPUTE_16) | (1u << CP_TIME_COMPUTE_32) | (1u << CP_TIME_COLLECTIVES))

static CpIntervals *
steps_set (GArray *steps)
{
  CpIntervals *set = cp_intervals_new_sized (steps->len);

  for (guint i = 0; i < steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (steps, CpStepStats, i);

      cp_intervals_add (set, st->start, st->end);
    }
  cp_intervals_normalize (set);
  return set;
}

/* Whether two devices with steps of their own step at different times. */
static gboolean
devices_out_of_step (CpAnalysis *self)
{
  g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_intervals_free);
  gboolean apart = FALSE;

  if (self->device_steps == NULL)
    return FALSE;
  for (guint k = 0; k < self->device_steps->len; k++)
    {
      GArray *steps = g_array_index (self->device_steps, CpDeviceSteps, k).steps;

      if (steps->len > 0)
        g_ptr_array_add (sets, steps_set (steps));
    }
  for (guint a = 0; a < sets->len && !apart; a++)
    for (guint b = a + 1; b < sets->len && !apart; b++)
      {
        const CpIntervals *x = g_ptr_array_index (sets, a), *y = g_ptr_array_index (sets, b);
        gint64 shorter = MIN (cp_intervals_length (x), cp_intervals_length (y));

        apart = shorter > 0 && cp_intervals_overlap_length (x, y) < CP_WINDOW_IN_STEP_OVERLAP * shorter;
      }
  return apart;
}

static gint
cmp_step_start (gconstpointer a,
                gconstpointer b)
{
  const CpStepStats *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->device < y->device ? -1 : (x->device > y->device);
}

/* Out of step: the steps are the devices' own, side by side. Where two
 * overlap, the later starts where the earlier ends (as cp_steps_windows()
 * does), so that the windows stay disjoint. */
static void
use_device_steps (CpAnalysis *self)
{
  g_autoptr(GArray) all = g_array_new (FALSE, TRUE, sizeof (CpStepStats));
  gint64 prev_end = G_MININT64;

  for (guint k = 0; k < self->device_steps->len; k++)
    {
      GArray *steps = g_array_index (self->device_steps, CpDeviceSteps, k).steps;

      g_array_append_vals (all, steps->data, steps->len);
    }
  g_array_sort (all, cmp_step_start);
  g_array_set_size (self->steps, 0);
  for (guint i = 0; i < all->len; i++)
    {
      CpStepStats st = g_array_index (all, CpStepStats, i);

      st.start = MAX (st.start, prev_end);
      if (st.end <= st.start)
        continue;
      prev_end = st.end;
      g_array_append_val (self->steps, st);
    }
  self->out_of_step = TRUE;
  {
    g_autoptr(GString) names = g_string_new (NULL);

    for (guint k = 0; k < self->device_steps->len; k++)
      {
        const CpDeviceSteps *d = &g_array_index (self->device_steps, CpDeviceSteps, k);

        if (d->steps->len > 0)
          g_string_append_printf (names, "%s%d", names->len ? ", " : "", d->device);
      }
    /* Translators: "The devices step at different times (devices 0, 1):
     * each step is one device's, and each device is measured over its own". */
    _cp_analysis_add_note (self, _("The devices step at different times (devices %s): each step is one device’s, "
                                   "and each device is measured over its own steps"),
                           names->str);
  }
}

/* Removes from each device's own steps those of a warm-up step: the same
 * number on every device, or on its own device when out of step. */
static void
forget_device_step (CpAnalysis        *self,
                    const CpStepStats *gone)
{
  if (self->device_steps == NULL)
    return;
  for (guint k = 0; k < self->device_steps->len; k++)
    {
      const CpDeviceSteps *d = &g_array_index (self->device_steps, CpDeviceSteps, k);

      if (gone->device >= 0 && d->device != gone->device)
        continue;
      for (guint i = d->steps->len; i-- > 0;)
        if (g_array_index (d->steps, CpStepStats, i).number == gone->number)
          g_array_remove_index (d->steps, i);
    }
}

static void
note_warmup (CpAnalysis *self,
             gint        device,
             guint       n,
             gint64      total,
             gint64      first,
             gint64      median)
{
  g_autofree char *t = cp_format_ns (total);
  g_autofree char *m = cp_format_ns (median);
  double ratio = median > 0 ? (double) first / (double) median : 0;
  g_autofree char *text = NULL;

  if (n == 1)
    /* Translators: "The first step (4.52 s, 28× the median of 160 ms) is a
     * warm-up (start-up, compilation, autotuning, first launches): left
     * out of the window". */
    text = g_strdup_printf (_("The first step (%s, %.0f× the median of %s) is a warm-up (start-up, compilation, "
                              "autotuning, first launches): left out of the window"),
                            t, ratio, m);
  else
    /* Translators: "The first 2 steps (9.04 s, the first 28× the median of
     * 160 ms) are a warm-up…" (always 2 or more). */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "The first %u step (%s, the first %.0f× the median of %s) is a warm-up (start-up, "
                                         "compilation, autotuning, first launches): left out of the window",
                                         "The first %u steps (%s, the first %.0f× the median of %s) are a warm-up (start-up, "
                                         "compilation, autotuning, first launches): left out of the window",
                                         n),
                            n, t, ratio, m);
  if (device >= 0)
    /* Translators: a note about one device, "Device 1: The first step…". */
    _cp_analysis_add_note (self, _("Device %d: %s"), device, text);
  else
    _cp_analysis_add_note (self, "%s", text);
}

/* The steps of a group (all, or one device's when out of step): their
 * indexes in order into idx, and their durations (a new array). */
static gint64 *
group_durations (CpAnalysis *self,
                 gint        device,
                 gboolean    whole,
                 GArray     *idx)
{
  gint64 *dur;

  for (guint i = 0; i < self->steps->len; i++)
    if (whole || g_array_index (self->steps, CpStepStats, i).device == device)
      g_array_append_val (idx, i);
  dur = g_new (gint64, MAX (idx->len, 1));
  for (guint k = 0; k < idx->len; k++)
    {
      const CpStepStats *st = &g_array_index (self->steps, CpStepStats, g_array_index (idx, guint, k));

      dur[k] = st->end - st->start;
    }
  return dur;
}

/* Leaves out the leading steps of a group that are a warm-up. */
static void
drop_warmup_of (CpAnalysis *self,
                gint        device,
                gboolean    whole)
{
  g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gint64 *dur = group_durations (self, device, whole, idx);
  guint n_warm;
  gint64 total = 0;

  n_warm = cp_steps_find_warmup (dur, idx->len);
  if (n_warm == 0)
    return;
  for (guint k = 0; k < n_warm; k++)
    {
      CpStepStats *st = &g_array_index (self->steps, CpStepStats, g_array_index (idx, guint, k));

      total += dur[k];
      g_array_append_val (self->warmup_steps, *st);
      forget_device_step (self, st);
    }
  note_warmup (self, whole ? -1 : device, n_warm, total, dur[0],
               cp_steps_median (dur + n_warm, idx->len - n_warm));
  /* Remove them from the steps, last first (indexes stay valid). */
  for (guint k = n_warm; k-- > 0;)
    g_array_remove_index (self->steps, g_array_index (idx, guint, k));
}

static gint
cmp_int (gconstpointer a,
         gconstpointer b)
{
  return *(const gint *) a - *(const gint *) b;
}

/* The devices that own steps, in order. */
static GArray *
step_devices (CpAnalysis *self)
{
  GArray *devices = g_array_new (FALSE, FALSE, sizeof (gint));

  for (guint i = 0; i < self->steps->len; i++)
    {
      gint d = g_array_index (self->steps, CpStepStats, i).device;
      gboolean seen = FALSE;

      for (guint k = 0; k < devices->len && !seen; k++)
        seen = g_array_index (devices, gint, k) == d;
      if (!seen)
        g_array_append_val (devices, d);
    }
  g_array_sort (devices, cmp_int);
  return devices;
}

/* Runs fn on all steps, or on each device's when out of step. */
static void
for_each_group (CpAnalysis *self,
                void      (*fn) (CpAnalysis *self, gint device, gboolean whole))
{
  g_autoptr(GArray) devices = NULL;

  if (!self->out_of_step)
    {
      fn (self, -1, TRUE);
      return;
    }
  devices = step_devices (self);
  for (guint k = 0; k < devices->len; k++)
    fn (self, g_array_index (devices, gint, k), FALSE);
}

static void
set_windows (CpAnalysis *self)
{
  g_array_set_size (self->windows, 0);
  if (self->steps->len == 0)
    {
      CpInterval w = { 0, MAX (cp_trace_get_duration (self->trace), 1) };

      g_array_append_val (self->windows, w);
    }
  for (guint i = 0; i < self->steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (self->steps, CpStepStats, i);
      CpInterval w = { st->start, st->end };

      g_array_append_val (self->windows, w);
    }
}

static void
set_window_sets (CpAnalysis *self)
{
  g_clear_pointer (&self->window_set, cp_intervals_free);
  self->window_set = cp_intervals_new_sized (self->windows->len);
  self->window_time = 0;
  for (guint i = 0; i < self->windows->len; i++)
    {
      const CpInterval *w = &g_array_index (self->windows, CpInterval, i);

      cp_intervals_add_sorted (self->window_set, w->start, w->end);
      self->window_time += w->end - w->start;
    }

  g_clear_pointer (&self->device_windows, g_hash_table_unref);
  if (self->device_steps == NULL)
    return;
  for (guint k = 0; k < self->device_steps->len; k++)
    {
      const CpDeviceSteps *d = &g_array_index (self->device_steps, CpDeviceSteps, k);

      if (d->steps->len == 0)
        continue;
      if (self->device_windows == NULL)
        self->device_windows = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) cp_intervals_free);
      g_hash_table_insert (self->device_windows, GINT_TO_POINTER (d->device), steps_set (d->steps));
    }
}

/* Each device's busy time (its kernels), by device index. */
static CpIntervals **
device_busy_sets (CpAnalysis *self)
{
  CpIntervals **busy = g_new0 (CpIntervals *, MAX (self->devices->len, 1));

  for (guint d = 0; d < self->devices->len; d++)
    {
      g_autoptr(GArray) lanes = g_array_new (FALSE, FALSE, sizeof (guint));

      for (guint l = 0; l < self->n_lanes; l++)
        if (self->lanes[l].device_index == (gint) d)
          g_array_append_val (lanes, l);
      busy[d] = _cp_analysis_class_union (self, (const guint *) lanes->data, lanes->len, KERNEL_CATS);
    }
  return busy;
}

static void
free_busy_sets (CpAnalysis   *self,
                CpIntervals **busy)
{
  for (guint d = 0; d < self->devices->len; d++)
    cp_intervals_free (busy[d]);
  g_free (busy);
}

/* The share of the devices' busy time inside their windows (each its own,
 * else the shared ones), with extra (may be NULL) counted as inside; NAN
 * without device work. */
static double
busy_share (CpAnalysis         *self,
            CpIntervals *const *busy,
            const CpIntervals  *extra)
{
  gint64 all = 0, inside = 0;

  for (guint d = 0; d < self->devices->len; d++)
    {
      gint ordinal = g_array_index (self->devices, CpDeviceStats, d).device;
      const CpIntervals *w = self->device_windows != NULL ?
                             g_hash_table_lookup (self->device_windows, GINT_TO_POINTER (ordinal)) : NULL;
      g_autoptr(CpIntervals) held = NULL;

      if (w == NULL)
        w = self->window_set;
      if (extra != NULL && extra->n > 0)
        w = held = cp_intervals_union (w, extra);
      all += cp_intervals_length (busy[d]);
      inside += cp_intervals_overlap_length (busy[d], w);
    }
  return all > 0 ? (double) inside / (double) all : NAN;
}

/* The steps found hold too little of the work: one window over the span
 * where the devices work. */
static void
fall_back_to_device_span (CpAnalysis         *self,
                          CpIntervals *const *busy,
                          double              share)
{
  gint64 start = G_MAXINT64, end = G_MININT64;
  guint n_found = self->steps->len + self->warmup_steps->len;
  const char *found = cp_step_source_get_label (self->step_source);
  CpInterval w;

  for (guint d = 0; d < self->devices->len; d++)
    if (busy[d]->n > 0)
      {
        start = MIN (start, busy[d]->v[0].start);
        end = MAX (end, busy[d]->v[busy[d]->n - 1].end);
      }
  g_array_set_size (self->steps, 0);
  g_array_set_size (self->warmup_steps, 0);
  g_clear_pointer (&self->device_steps, g_array_unref);
  self->out_of_step = FALSE;
  self->step_source = CP_STEPS_DEVICE_SPAN;
  g_array_set_size (self->windows, 0);
  w.start = start;
  w.end = MAX (end, start + 1);
  g_array_append_val (self->windows, w);
  set_window_sets (self);
  {
    g_autofree char *span = cp_format_ns (w.end - w.start);

    /* Translators: "The 10 steps found (executions of the repeated XLA
     * module) hold 14% of the devices’ busy time: the figures are measured
     * over the span where the devices work (1.21 s)". */
    _cp_analysis_add_note (self,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "The %u step found (%s) holds %.0f%% of the devices’ busy time: the figures are measured over the span where the devices work (%s)",
                                        "The %u steps found (%s) hold %.0f%% of the devices’ busy time: the figures are measured over the span where the devices work (%s)",
                                        n_found),
                           n_found, found != NULL ? found : "", 100.0 * share, span);
  }
}

static void
check_coverage (CpAnalysis *self)
{
  CpIntervals **busy = device_busy_sets (self);
  g_autoptr(CpIntervals) warm = cp_intervals_new ();

  /* The warm-up steps and those left out as incomplete were found as
   * steps: their work is held by the steps. */
  for (guint i = 0; i < self->warmup_steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (self->warmup_steps, CpStepStats, i);

      cp_intervals_add (warm, st->start, st->end);
    }
  for (gsize i = 0; self->dropped_set != NULL && i < self->dropped_set->n; i++)
    cp_intervals_add (warm, self->dropped_set->v[i].start, self->dropped_set->v[i].end);
  cp_intervals_normalize (warm);
  g_clear_pointer (&self->dropped_set, cp_intervals_free);
  self->steps_device_share = busy_share (self, busy, warm);
  if (self->steps->len > 0 && !isnan (self->steps_device_share) &&
      self->steps_device_share < CP_WINDOW_MIN_DEVICE_SHARE)
    fall_back_to_device_span (self, busy, self->steps_device_share);
  self->device_work_share = busy_share (self, busy, NULL);
  free_busy_sets (self, busy);
}

static void
flag_outliers_of (CpAnalysis *self,
                  gint        device,
                  gboolean    whole)
{
  g_autoptr(GArray) idx = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gint64 *dur = group_durations (self, device, whole, idx);
  g_autofree gboolean *outlier = NULL;

  if (idx->len < 3)
    return;
  outlier = g_new (gboolean, idx->len);
  cp_steps_find_outliers (dur, idx->len, outlier);
  for (guint k = 0; k < idx->len; k++)
    g_array_index (self->steps, CpStepStats, g_array_index (idx, guint, k)).outlier = outlier[k];
}

void
_cp_analysis_settle_window (CpAnalysis *self)
{
  if (self->steps->len > 0 && devices_out_of_step (self))
    use_device_steps (self);
  if (self->steps->len > 0)
    for_each_group (self, drop_warmup_of);
  set_windows (self);
  set_window_sets (self);
  check_coverage (self);
  for_each_group (self, flag_outliers_of);
}

void
cp_analysis_get_window_info (CpAnalysis   *self,
                             CpWindowInfo *info)
{
  g_autofree gint64 *dur = NULL;

  g_return_if_fail (CP_IS_ANALYSIS (self));
  g_return_if_fail (info != NULL);

  memset (info, 0, sizeof *info);
  switch (self->step_source)
    {
    case CP_STEPS_PROFILER:
    case CP_STEPS_MARKERS: info->steps_source = "markers"; break;
    case CP_STEPS_LOADER: info->steps_source = "dataloader"; break;
    case CP_STEPS_OPTIMIZER: info->steps_source = "optimizer"; break;
    case CP_STEPS_MODULES: info->steps_source = "repeated-module"; break;
    case CP_STEPS_DEVICE_SPAN: info->steps_source = "device-activity"; break;
    case CP_STEPS_NONE:
    default: info->steps_source = "none"; break;
    }
  if (self->out_of_step)
    info->steps_source = "per-device";
  info->n_steps = self->steps->len;
  info->n_warmup = self->warmup_steps->len;
  for (guint i = 0; i < self->warmup_steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (self->warmup_steps, CpStepStats, i);

      info->warmup_time += st->end - st->start;
    }
  dur = g_new (gint64, MAX (self->steps->len, 1));
  for (guint i = 0; i < self->steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (self->steps, CpStepStats, i);

      dur[i] = st->end - st->start;
    }
  info->step_median = cp_steps_median (dur, self->steps->len);
  info->device_work_share = self->device_work_share;
  info->steps_device_share = self->steps_device_share;
  info->out_of_step = self->out_of_step;
  info->device_span = self->step_source == CP_STEPS_DEVICE_SPAN;
}

const CpStepStats *
cp_analysis_get_warmup_steps (CpAnalysis *self,
                              guint      *n_steps)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_steps)
    *n_steps = self->warmup_steps->len;
  return (const CpStepStats *) self->warmup_steps->data;
}
