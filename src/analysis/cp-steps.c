/* cp-steps.c: step windows
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>

#include "cp-analysis-private.h"
#include "cp-steps.h"

static gint
cmp_span_start (gconstpointer a,
                gconstpointer b)
{
  const CpStepSpan *x = a, *y = b;

  if (x->host_start != y->host_start)
    return x->host_start < y->host_start ? -1 : 1;
  if (x->number != y->number)
    return x->number < y->number ? -1 : 1;
  return 0;
}

GArray *
cp_steps_merge_markers (const CpStep *steps,
                        guint         n_steps)
{
  g_autoptr(GHashTable) by_number = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GArray *spans = g_array_new (FALSE, TRUE, sizeof (CpStepSpan));

  g_return_val_if_fail (n_steps == 0 || steps != NULL, spans);

  for (guint i = 0; i < n_steps; i++)
    {
      gpointer v = g_hash_table_lookup (by_number, &steps[i].number);

      if (v != NULL)
        {
          CpStepSpan *s = &g_array_index (spans, CpStepSpan, GPOINTER_TO_UINT (v) - 1);

          s->host_start = MIN (s->host_start, steps[i].start);
          s->host_end = MAX (s->host_end, steps[i].end);
        }
      else
        {
          CpStepSpan s = { 0 };

          s.number = steps[i].number;
          s.host_start = steps[i].start;
          s.host_end = MAX (steps[i].end, steps[i].start);
          s.device_end = G_MININT64;
          s.marker = steps[i].marker;
          g_array_append_val (spans, s);
          g_hash_table_insert (by_number, g_memdup2 (&steps[i].number, sizeof (gint64)),
                               GUINT_TO_POINTER (spans->len));
        }
    }
  g_array_sort (spans, cmp_span_start);
  return spans;
}

guint
cp_steps_windows (const CpStepSpan *spans,
                  guint             n_spans,
                  gboolean          drop_incomplete,
                  gboolean         *keep,
                  CpInterval       *windows)
{
  gint64 prev_end = G_MININT64;
  guint n = 0;
  gint last = (gint) n_spans - 1;

  g_return_val_if_fail (n_spans == 0 || (spans != NULL && keep != NULL && windows != NULL), 0);

  for (guint i = 0; i < n_spans; i++)
    keep[i] = FALSE;

  if (drop_incomplete)
    {
      /* Trailing steps that launched nothing... */
      while (last >= 0 && spans[last].n_ops == 0)
        last--;
      /* ...and a last step that did only part of the work of the previous. */
      if (last >= 1 && spans[last].n_ops < CP_TB_LAST_STEP_RATIO * spans[last - 1].n_ops)
        last--;
    }

  for (gint i = 0; i <= last; i++)
    {
      gint64 start = MAX (prev_end, spans[i].host_start);
      gint64 end = MAX (spans[i].host_end, spans[i].device_end);

      if (end <= start)
        continue;
      keep[i] = TRUE;
      windows[n].start = start;
      windows[n].end = end;
      n++;
      prev_end = end;
    }
  return n;
}

static int
cmp_gint64 (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : (x > y);
}

static double
median_of (gint64 *sorted,
           guint   n)
{
  if (n % 2 == 1)
    return sorted[n / 2];
  return (sorted[n / 2 - 1] + (double) sorted[n / 2]) / 2.0;
}

void
cp_steps_find_outliers (const gint64 *durations,
                        guint         n,
                        gboolean     *outlier)
{
  g_autofree gint64 *sorted = NULL;
  g_autofree gint64 *dev = NULL;
  double median, mad;

  g_return_if_fail (n == 0 || (durations != NULL && outlier != NULL));

  for (guint i = 0; i < n; i++)
    outlier[i] = FALSE;
  if (n < 3)
    return;

  sorted = g_memdup2 (durations, n * sizeof (gint64));
  qsort (sorted, n, sizeof (gint64), cmp_gint64);
  median = median_of (sorted, n);

  dev = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    dev[i] = (gint64) llabs ((long long) llround (durations[i] - median));
  qsort (dev, n, sizeof (gint64), cmp_gint64);
  mad = median_of (dev, n);
  mad = MAX (mad, MAX (0.01 * median, 1.0));

  for (guint i = 0; i < n; i++)
    outlier[i] = fabs (0.6745 * (durations[i] - median) / mad) > 3.5;
}

/* The analysis part */

static void
whole_capture_window (CpAnalysis *self)
{
  CpInterval w = { 0, MAX (cp_trace_get_duration (self->trace), 1) };

  g_array_set_size (self->steps, 0);
  g_array_set_size (self->windows, 0);
  g_array_append_val (self->windows, w);
}

/* Without step markers, the iterations of a training loop: on the host
 * thread with the most of them, each enumerate(DataLoader) call starts an
 * iteration that lasts until the next one (the last one until the thread's
 * last slice ends; cp_steps_windows() drops it when it is incomplete); or,
 * without two such calls, each Optimizer.step ends an iteration that began
 * where the one before ended. Returns CpStepSpans sorted by start (empty
 * when there are fewer than two anchors) and sets *source. */
static GArray *
iteration_spans (CpAnalysis   *self,
                 CpStepSource *source)
{
  static const guint32 kinds[2] = { CP_NAME_LOADER_NEXT, CP_NAME_OPTIMIZER_STEP };
  GArray *spans = g_array_new (FALSE, TRUE, sizeof (CpStepSpan));

  *source = CP_STEPS_NONE;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      guint best_lane = G_MAXUINT, best_n = 0;
      const CpSlices *s;
      gint64 prev_end = G_MININT64, lane_end = G_MININT64;
      gint64 number = 0;

      for (guint l = 0; l < self->n_lanes; l++)
        {
          const CpLaneInfo *info = &self->lanes[l];
          guint n = 0;

          if (info->kind != CP_LANE_HOST_THREAD)
            continue;
          for (guint i = 0; i < info->slices->n; i++)
            if (cp_name_cache_lookup (self->names, cp_slices_get_name (info->slices, i)) & kinds[k])
              n++;
          if (n > best_n)
            {
              best_n = n;
              best_lane = l;
            }
        }
      if (best_n < 2)
        continue;

      s = self->lanes[best_lane].slices;
      for (guint i = 0; i < s->n; i++)
        lane_end = MAX (lane_end, cp_slices_get_end (s, i));
      for (guint i = 0; i < s->n; i++)
        {
          CpStepSpan sp = { 0 };

          if (!(cp_name_cache_lookup (self->names, cp_slices_get_name (s, i)) & kinds[k]))
            continue;
          sp.device_end = G_MININT64;
          sp.marker.lane = best_lane;
          sp.marker.index = i;
          if (kinds[k] == CP_NAME_LOADER_NEXT)
            {
              /* Ends where the next call starts. */
              if (spans->len > 0)
                g_array_index (spans, CpStepSpan, spans->len - 1).host_end = cp_slices_get_start (s, i);
              sp.number = number++;
              sp.host_start = cp_slices_get_start (s, i);
              sp.host_end = lane_end;
              g_array_append_val (spans, sp);
            }
          else
            {
              gint64 end = cp_slices_get_end (s, i);

              if (prev_end != G_MININT64 && end > prev_end)
                {
                  sp.number = number++;
                  sp.host_start = prev_end;
                  sp.host_end = end;
                  g_array_append_val (spans, sp);
                }
              prev_end = MAX (prev_end, end);
            }
        }
      if (spans->len > 0)
        {
          *source = kinds[k] == CP_NAME_LOADER_NEXT ? CP_STEPS_LOADER : CP_STEPS_OPTIMIZER;
          break;
        }
    }
  return spans;
}

void
_cp_analysis_build_steps (CpAnalysis *self)
{
  const CpStep *steps;
  guint n_steps, n_windows;
  g_autoptr(GArray) spans = NULL;
  g_autofree gboolean *keep = NULL;
  g_autofree CpInterval *windows = NULL;
  gboolean profiler = FALSE;
  CpStepSource derived = CP_STEPS_NONE;

  steps = cp_trace_get_steps (self->trace, &n_steps);
  spans = cp_steps_merge_markers (steps, n_steps);
  if (spans->len == 0)
    {
      g_array_unref (spans);
      spans = iteration_spans (self, &derived);
    }

  if (spans->len == 0)
    {
      self->step_source = CP_STEPS_NONE;
      whole_capture_window (self);
      _cp_analysis_add_note (self, "%s",
                             _("The capture has no step markers: the whole capture is one window"));
    }
  else
    {
      CpStepSpan *sp = (CpStepSpan *) spans->data;

      for (guint i = 0; i < spans->len && derived == CP_STEPS_NONE; i++)
        {
          if (cp_trace_slice_ref_valid (self->trace, sp[i].marker))
            {
              CpSliceRef m = sp[i].marker;
              const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (self->trace, m.lane));

              if (cp_name_cache_lookup (self->names, cp_slices_get_name (s, m.index)) & CP_NAME_STEP)
                profiler = TRUE;
            }
        }

      /* The device work each step launched (through launch links). */
      for (guint l = 0; l < self->n_lanes; l++)
        {
          const CpLaneInfo *info = &self->lanes[l];
          const CpSlices *s;

          if (info->launch == NULL)
            continue;
          s = info->slices;
          for (guint i = 0; i < s->n; i++)
            {
              CpSliceRef h = info->launch[i];
              const CpSlices *hs;
              gint64 ls, le;
              guint lo = 0, hi = spans->len;

              if (h.lane == G_MAXUINT32)
                continue;
              hs = self->lanes[h.lane].slices;
              ls = cp_slices_get_start (hs, h.index);
              le = ls + cp_slices_get_dur (hs, h.index);
              /* The last step starting at or before the launch. */
              while (lo < hi)
                {
                  guint mid = lo + (hi - lo) / 2;

                  if (sp[mid].host_start <= ls)
                    lo = mid + 1;
                  else
                    hi = mid;
                }
              if (lo == 0)
                continue;
              if (le <= sp[lo - 1].host_end)
                {
                  sp[lo - 1].device_end = MAX (sp[lo - 1].device_end, cp_slices_get_end (s, i));
                  sp[lo - 1].n_ops++;
                }
            }
        }

      keep = g_new (gboolean, spans->len);
      windows = g_new (CpInterval, spans->len);
      n_windows = cp_steps_windows (sp, spans->len, self->has_flows, keep, windows);

      if (n_windows == 0)
        {
          self->step_source = CP_STEPS_NONE;
          whole_capture_window (self);
          _cp_analysis_add_note (self, "%s",
                                 _("The step markers enclose no time: the whole capture is one window"));
        }
      else
        {
          guint w = 0;

          if (derived != CP_STEPS_NONE)
            {
              self->step_source = derived;
              _cp_analysis_add_note (self, "%s",
                                     derived == CP_STEPS_LOADER ?
                                     _("The capture has no step markers: each enumerate(DataLoader) call starts an iteration") :
                                     _("The capture has no step markers: each Optimizer.step ends an iteration"));
            }
          else
            self->step_source = profiler ? CP_STEPS_PROFILER : CP_STEPS_MARKERS;
          for (guint i = 0; i < spans->len; i++)
            {
              CpStepStats st = { 0 };

              if (!keep[i])
                {
                  self->n_dropped_steps++;
                  continue;
                }
              st.number = sp[i].number;
              st.start = windows[w].start;
              st.end = windows[w].end;
              st.host_start = sp[i].host_start;
              st.host_end = sp[i].host_end;
              st.marker = sp[i].marker;
              g_array_append_val (self->steps, st);
              g_array_append_val (self->windows, windows[w]);
              w++;
            }
          if (self->n_dropped_steps > 0)
            _cp_analysis_add_note (self,
                                   g_dngettext (GETTEXT_PACKAGE,
                                                "%u step was left out: empty, or incomplete at the end of the capture",
                                                "%u steps were left out: empty, or incomplete at the end of the capture",
                                                self->n_dropped_steps),
                                   self->n_dropped_steps);
        }
    }

  self->window_set = cp_intervals_new_sized (self->windows->len);
  self->window_time = 0;
  for (guint i = 0; i < self->windows->len; i++)
    {
      const CpInterval *w = &g_array_index (self->windows, CpInterval, i);

      cp_intervals_add_sorted (self->window_set, w->start, w->end);
      self->window_time += w->end - w->start;
    }

  if (self->steps->len >= 3)
    {
      g_autofree gint64 *durations = g_new (gint64, self->steps->len);
      g_autofree gboolean *outlier = g_new (gboolean, self->steps->len);

      for (guint i = 0; i < self->steps->len; i++)
        {
          const CpStepStats *st = &g_array_index (self->steps, CpStepStats, i);

          durations[i] = st->end - st->start;
        }
      cp_steps_find_outliers (durations, self->steps->len, outlier);
      for (guint i = 0; i < self->steps->len; i++)
        g_array_index (self->steps, CpStepStats, i).outlier = outlier[i];
    }
}
