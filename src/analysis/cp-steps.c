/* cp-steps.c: step windows
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

gint64
cp_steps_median (const gint64 *durations,
                 guint         n)
{
  g_autofree gint64 *sorted = NULL;

  g_return_val_if_fail (n == 0 || durations != NULL, 0);

  if (n == 0)
    return 0;
  sorted = g_memdup2 (durations, n * sizeof (gint64));
  qsort (sorted, n, sizeof (gint64), cmp_gint64);
  return (gint64) llround (median_of (sorted, n));
}

guint
cp_steps_find_warmup (const gint64 *durations,
                      guint         n)
{
  g_autofree gboolean *outlier = NULL;
  double median;
  guint k = 0;

  g_return_val_if_fail (n == 0 || durations != NULL, 0);

  if (n == 2)
    return durations[0] >= CP_STEPS_WARMUP_PAIR_RATIO * (double) durations[1] && durations[1] > 0 ? 1 : 0;
  if (n < 3)
    return 0;
  outlier = g_new (gboolean, n);
  cp_steps_find_outliers (durations, n, outlier);
  median = cp_steps_median (durations, n);
  /* Only the first iterations: a slow one later on (a checkpoint, a
   * garbage collection) is part of how the run behaves. */
  while (k < MAX (1, n / 3) && k + 2 <= n - 1 && outlier[k] &&
         durations[k] >= CP_STEPS_WARMUP_RATIO * median)
    k++;
  return k;
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

/* XLA captures: steps from the devices' own lines */

static gboolean
is_steps_lane (const char *name)
{
  return g_strcmp0 (name, "Steps") == 0 || g_str_has_prefix (name, "Steps - from");
}

static gint
annotation_lane_device (CpAnalysis *self,
                        guint       l)
{
  CpLane *lane = self->lanes[l].lane;
  gint ordinal = cp_lane_get_device (lane);
  const CpProcess *p;

  if (ordinal >= 0)
    return ordinal;
  p = cp_trace_get_process (self->trace, cp_lane_get_process (lane));
  return p != NULL ? p->device : -1;
}

typedef struct
{
  gint    device;
  GArray *spans;    /* of CpStepSpan, by start */
} DeviceSpans;

static void
clear_device_spans (gpointer data)
{
  DeviceSpans *d = data;

  g_clear_pointer (&d->spans, g_array_unref);
}

/* A Steps line's events: numbered by group_id, else the name as a number,
 * else their position. */
/* A span over slice i of lane l: its host extent, no device end yet. */
static CpStepSpan
slice_span (const CpSlices *s,
            guint           l,
            guint           i,
            gint64          number,
            guint           n_ops)
{
  CpStepSpan sp = { 0 };

  sp.number = number;
  sp.host_start = cp_slices_get_start (s, i);
  sp.host_end = cp_slices_get_end (s, i);
  sp.device_end = G_MININT64;
  sp.marker.lane = l;
  sp.marker.index = i;
  sp.n_ops = n_ops;
  return sp;
}

static GArray *
steps_lane_spans (CpAnalysis *self,
                  guint       l)
{
  const CpSlices *s = self->lanes[l].slices;
  GArray *spans = g_array_new (FALSE, TRUE, sizeof (CpStepSpan));

  for (guint i = 0; i < s->n; i++)
    {
      CpStepSpan sp = { 0 };
      gint64 ext = cp_slices_get_ext (s, i);
      const char *name = cp_trace_get_string (self->trace, cp_slices_get_name (s, i));
      char *end = NULL;
      gint64 n = g_ascii_strtoll (name, &end, 10);

      if (cp_slices_get_dur (s, i) <= 0)
        continue;
      sp = slice_span (s, l, i, ext != CP_NONE ? ext : (end != name && *end == '\0') ? n : (gint64) i, 1);
      g_array_append_val (spans, sp);
    }
  return spans;
}

/* Executions of one module on a lane, numbered by position; each lasts
 * until the next starts (the time between them is part of the step), the
 * last one until it ends. */
static GArray *
module_lane_spans (CpAnalysis *self,
                   guint       l,
                   gpointer    want)
{
  const CpSlices *s = self->lanes[l].slices;
  GArray *spans = g_array_new (FALSE, TRUE, sizeof (CpStepSpan));

  for (guint i = 0; i < s->n; i++)
    {
      CpStepSpan sp = { 0 };
      gpointer key = GUINT_TO_POINTER (cp_slices_get_name (s, i) + 1);

      if (key != want)
        continue;
      if (spans->len > 0)
        {
          CpStepSpan *prev = &g_array_index (spans, CpStepSpan, spans->len - 1);

          prev->host_end = MAX (prev->host_end, cp_slices_get_start (s, i));
        }
      sp = slice_span (s, l, i, spans->len, 1);
      g_array_append_val (spans, sp);
    }
  return spans;
}

/* Host events that run one XLA executable: "<module>:XLA GPU module" and
 * GpuExecutable::ExecuteThunks (module_name stat) on GPU. The key is the
 * module's name (its CpStr + 1). */
static gpointer
host_module_key (CpAnalysis *self,
                 guint       l,
                 guint       i,
                 CpStr       module_name_key)
{
  const CpSlices *s = self->lanes[l].slices;
  CpStr name = cp_slices_get_name (s, i);
  const char *text = cp_trace_get_string (self->trace, name);

  if (g_str_has_suffix (text, ":XLA GPU module"))
    return GUINT_TO_POINTER (name + 1);
  if (strcmp (text, "GpuExecutable::ExecuteThunks") == 0)
    {
      CpStr m = cp_xstats_find_string (self->trace, cp_slices_get_args (s, i), module_name_key);

      return GUINT_TO_POINTER ((m != CP_STR_EMPTY ? m : name) + 1);
    }
  return NULL;
}

/* The repeated module: the most executed one on the given lanes (at least
 * twice), the longest in all on a tie. */
static gpointer
pick_module (CpAnalysis *self,
             GArray     *lane_ids,
             gboolean    host,
             CpStr       module_name_key)
{
  g_autoptr(GHashTable) count = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) time = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GHashTableIter it;
  gpointer key, value, best = NULL;
  guint best_n = 1;
  gint64 best_t = -1;

  for (guint k = 0; k < lane_ids->len; k++)
    {
      guint l = g_array_index (lane_ids, guint, k);
      const CpSlices *s = self->lanes[l].slices;

      for (guint i = 0; i < s->n; i++)
        {
          gpointer mk = host ? host_module_key (self, l, i, module_name_key)
                             : GUINT_TO_POINTER (cp_slices_get_name (s, i) + 1);
          gint64 *t;

          if (mk == NULL)
            continue;
          g_hash_table_insert (count, mk, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (count, mk)) + 1));
          t = g_hash_table_lookup (time, mk);
          if (t == NULL)
            g_hash_table_insert (time, mk, t = g_new0 (gint64, 1));
          *t = cp_sat_add (*t, cp_slices_get_dur (s, i));
        }
    }
  g_hash_table_iter_init (&it, count);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      guint n = GPOINTER_TO_UINT (value);
      gint64 t = *(gint64 *) g_hash_table_lookup (time, key);

      if (n > best_n || (n == best_n && n >= 2 && t > best_t))
        {
          best = key;
          best_n = n;
          best_t = t;
        }
    }
  return best_n >= 2 ? best : NULL;
}

static GArray *
host_module_lane_spans (CpAnalysis *self,
                        guint       l,
                        gpointer    want,
                        CpStr       module_name_key)
{
  const CpSlices *s = self->lanes[l].slices;
  GArray *spans = g_array_new (FALSE, TRUE, sizeof (CpStepSpan));

  for (guint i = 0; i < s->n; i++)
    {
      CpStepSpan sp = { 0 };

      if (host_module_key (self, l, i, module_name_key) != want)
        continue;
      sp = slice_span (s, l, i, spans->len, 0);
      g_array_append_val (spans, sp);
    }
  return spans;
}

/* Spans of several sources merged by step number (as markers of several
 * threads are). */
static GArray *
merge_spans (GArray *sets)
{
  g_autoptr(GArray) steps = g_array_new (FALSE, TRUE, sizeof (CpStep));

  for (guint k = 0; k < sets->len; k++)
    {
      GArray *spans = g_array_index (sets, DeviceSpans, k).spans;

      for (guint i = 0; i < spans->len; i++)
        {
          const CpStepSpan *sp = &g_array_index (spans, CpStepSpan, i);
          CpStep st = { sp->number, sp->host_start, sp->host_end, sp->marker };

          g_array_append_val (steps, st);
        }
    }
  return cp_steps_merge_markers ((const CpStep *) steps->data, steps->len);
}

/* Per device, the spans of its own Steps line, or of its XLA Modules line's
 * repeated module. Sets *modules when they come from modules. */
static GArray *
device_own_spans (CpAnalysis *self,
                  gboolean   *modules)
{
  GArray *sets = g_array_new (FALSE, TRUE, sizeof (DeviceSpans));
  g_autoptr(GArray) module_lanes = g_array_new (FALSE, FALSE, sizeof (guint));
  gpointer want;

  g_array_set_clear_func (sets, clear_device_spans);
  *modules = FALSE;
  if (!self->is_xplane)
    return sets;
  for (guint l = 0; l < self->n_lanes; l++)
    {
      const char *name;

      if (self->lanes[l].kind != CP_LANE_DEVICE_ANNOTATION || self->lanes[l].slices->n == 0)
        continue;
      name = cp_lane_get_name (self->lanes[l].lane);
      if (is_steps_lane (name))
        {
          DeviceSpans d = { annotation_lane_device (self, l), steps_lane_spans (self, l) };

          if (d.device >= 0 && d.spans->len > 0)
            g_array_append_val (sets, d);
          else
            g_array_unref (d.spans);
        }
      else if (g_strcmp0 (name, "XLA Modules") == 0)
        g_array_append_val (module_lanes, l);
    }
  if (sets->len > 0 || module_lanes->len == 0)
    return sets;

  want = pick_module (self, module_lanes, FALSE, CP_STR_EMPTY);
  if (want == NULL)
    return sets;
  for (guint k = 0; k < module_lanes->len; k++)
    {
      guint l = g_array_index (module_lanes, guint, k);
      DeviceSpans d = { annotation_lane_device (self, l), module_lane_spans (self, l, want) };

      if (d.device >= 0 && d.spans->len > 0)
        g_array_append_val (sets, d);
      else
        g_array_unref (d.spans);
    }
  *modules = sets->len > 0;
  return sets;
}

/* GPU captures without module lines: the host events that run the
 * repeated executable, on every host thread that runs it. */
static GArray *
host_module_spans (CpAnalysis *self)
{
  g_autoptr(GArray) host_lanes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GArray) sets = g_array_new (FALSE, TRUE, sizeof (DeviceSpans));
  const CpStringPool *pool = cp_trace_get_string_pool (self->trace);
  CpStr key = cp_string_pool_lookup (pool, "module_name");
  gpointer want;

  g_array_set_clear_func (sets, clear_device_spans);
  if (!self->is_xplane)
    return g_array_new (FALSE, TRUE, sizeof (CpStepSpan));
  for (guint l = 0; l < self->n_lanes; l++)
    if (self->lanes[l].kind == CP_LANE_HOST_THREAD)
      g_array_append_val (host_lanes, l);
  want = pick_module (self, host_lanes, TRUE, key);
  if (want == NULL)
    return g_array_new (FALSE, TRUE, sizeof (CpStepSpan));
  for (guint k = 0; k < host_lanes->len; k++)
    {
      DeviceSpans d = { -1, host_module_lane_spans (self, g_array_index (host_lanes, guint, k), want, key) };

      g_array_append_val (sets, d);
    }
  return merge_spans (sets);
}

/* A device's own steps, added once (the first source to give them wins). */
static GArray *
device_steps_for (CpAnalysis *self,
                  gint        device,
                  gboolean   *is_new)
{
  CpDeviceSteps d = { device, NULL };

  if (self->device_steps == NULL)
    self->device_steps = g_array_new (FALSE, TRUE, sizeof (CpDeviceSteps));
  for (guint k = 0; k < self->device_steps->len; k++)
    if (g_array_index (self->device_steps, CpDeviceSteps, k).device == device)
      {
        *is_new = FALSE;
        return g_array_index (self->device_steps, CpDeviceSteps, k).steps;
      }
  d.steps = g_array_new (FALSE, TRUE, sizeof (CpStepStats));
  g_array_append_val (self->device_steps, d);
  *is_new = TRUE;
  return d.steps;
}

/* The windows of spans (sorted by host start) as steps of one device. */
static void
append_device_steps (GArray           *out,
                     gint              device,
                     const CpStepSpan *spans,
                     guint             n,
                     gboolean          drop_incomplete)
{
  g_autofree gboolean *keep = g_new (gboolean, MAX (n, 1));
  g_autofree CpInterval *w = g_new (CpInterval, MAX (n, 1));
  guint nw = cp_steps_windows (spans, n, drop_incomplete, keep, w);

  for (guint i = 0, k = 0; i < n && k < nw; i++)
    {
      CpStepStats st = { 0 };

      if (!keep[i])
        continue;
      st.number = spans[i].number;
      st.start = w[k].start;
      st.end = w[k].end;
      st.host_start = spans[i].host_start;
      st.host_end = spans[i].host_end;
      st.marker = spans[i].marker;
      st.device = device;
      g_array_append_val (out, st);
      k++;
    }
}

/* Each device with its own steps keeps them (cp-steady.c makes its
 * windows of them). */
static void
set_device_steps (CpAnalysis *self,
                  GArray     *sets)
{
  for (guint k = 0; k < sets->len; k++)
    {
      DeviceSpans *d = &g_array_index (sets, DeviceSpans, k);
      gboolean is_new;
      GArray *out = device_steps_for (self, d->device, &is_new);

      append_device_steps (out, d->device, (const CpStepSpan *) d->spans->data, d->spans->len, FALSE);
    }
}

static gboolean
is_compile_name (const char *name)
{
  return strstr (name, "Compile") != NULL || strstr (name, "compile") != NULL ||
         strstr (name, "utotun") != NULL || strstr (name, "HloPass") != NULL ||
         strstr (name, "hlo passes") != NULL;
}

/* The time before the first window, with the host compilation in it:
 * XPlane captures from their start (start-up, compilation, the first
 * module execution); others from the first iteration left out as a
 * warm-up, when one was. */
static void
find_warmup (CpAnalysis *self)
{
  g_autoptr(CpIntervals) compile = cp_intervals_new ();
  gint64 first, from = 0;

  self->warmup_start = self->warmup_end = self->warmup_compile = 0;
  if (self->step_source == CP_STEPS_NONE || self->step_source == CP_STEPS_DEVICE_SPAN ||
      self->windows->len == 0)
    return;
  if (!self->is_xplane)
    {
      if (self->warmup_steps->len == 0)
        return;
      from = g_array_index (self->warmup_steps, CpStepStats, 0).start;
    }
  first = g_array_index (self->windows, CpInterval, 0).start;
  if (first <= from)
    return;
  self->warmup_start = from;
  self->warmup_end = first;
  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s = self->lanes[l].slices;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      for (guint i = 0; i < s->n && cp_slices_get_start (s, i) < first; i++)
        if (cp_slices_get_end (s, i) > from &&
            is_compile_name (cp_trace_get_string (self->trace, cp_slices_get_name (s, i))))
          cp_intervals_add (compile, MAX (cp_slices_get_start (s, i), from), MIN (cp_slices_get_end (s, i), first));
    }
  cp_intervals_normalize (compile);
  self->warmup_compile = cp_intervals_length (compile);
  /* Other captures: the note on the iterations left out says it. */
  if (self->is_xplane)
    {
      g_autofree char *d = cp_format_ns (first);
      g_autofree char *c = cp_format_ns (self->warmup_compile);

      _cp_analysis_add_note (self, _("Warm-up before the first step: %s (start-up and compilation, %s compiling), excluded"),
                             d, c);
    }
}

static gint
lane_host (CpAnalysis *self,
           guint       l)
{
  const CpProcess *p = cp_trace_get_process (self->trace, cp_lane_get_process (self->lanes[l].lane));

  return p != NULL ? (gint) p->host : 0;
}

/* Extends each span (sorted by host start) to the end of the device work
 * launched from inside it, counting those ops; host >= 0: only launches
 * from that host's threads. */
static void
extend_spans (CpAnalysis *self,
              GArray     *spans,
              gint        host)
{
  CpStepSpan *sp = (CpStepSpan *) spans->data;

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

          if (h.lane == G_MAXUINT32 || (host >= 0 && lane_host (self, h.lane) != host))
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
}

/* Steps of several hosts (a profile folder, each host's own markers): the
 * devices of each host are measured against that host's steps. */
static void
host_device_windows (CpAnalysis   *self,
                     const CpStep *steps,
                     guint         n_steps)
{
  g_autoptr(GHashTable) by_host = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  GHashTableIter it;
  gpointer key, value;

  for (guint i = 0; i < n_steps; i++)
    {
      gint host;
      GArray *list;

      if (!cp_trace_slice_ref_valid (self->trace, steps[i].marker))
        return;
      host = lane_host (self, steps[i].marker.lane);
      list = g_hash_table_lookup (by_host, GINT_TO_POINTER (host));
      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (CpStep));
          g_hash_table_insert (by_host, GINT_TO_POINTER (host), list);
        }
      g_array_append_val (list, steps[i]);
    }
  if (g_hash_table_size (by_host) < 2)
    return;

  g_hash_table_iter_init (&it, by_host);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      GArray *list = value;
      g_autoptr(GArray) spans = cp_steps_merge_markers ((const CpStep *) list->data, list->len);

      extend_spans (self, spans, GPOINTER_TO_INT (key));
      for (guint l = 0; l < self->n_lanes; l++)
        {
          gint ordinal;
          gboolean is_new;
          GArray *out;

          if (self->lanes[l].device_index < 0 || lane_host (self, l) != GPOINTER_TO_INT (key))
            continue;
          ordinal = g_array_index (self->devices, CpDeviceStats, self->lanes[l].device_index).device;
          out = device_steps_for (self, ordinal, &is_new);
          if (is_new)
            append_device_steps (out, ordinal, (const CpStepSpan *) spans->data, spans->len, self->has_flows);
        }
    }
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
  gboolean device_derived = FALSE;
  CpStepSource derived = CP_STEPS_NONE;

  steps = cp_trace_get_steps (self->trace, &n_steps);
  spans = cp_steps_merge_markers (steps, n_steps);
  {
    gboolean modules = FALSE;
    g_autoptr(GArray) own = device_own_spans (self, &modules);

    /* Devices with steps of their own (several Steps lines, or executions
     * of the repeated module): the shared windows join them step by step,
     * each device is measured against its own. */
    if (own->len > 0 && (own->len >= 2 || spans->len == 0))
      {
        if (own->len >= 2 || modules)
          set_device_steps (self, own);
        if (modules && spans->len == 0)
          derived = CP_STEPS_MODULES;
        if (own->len >= 2 || spans->len == 0)
          {
            g_array_unref (spans);
            spans = merge_spans (own);
            device_derived = TRUE;
          }
      }
  }
  if (spans->len > 0 && !device_derived && self->is_xplane)
    host_device_windows (self, steps, n_steps);
  if (spans->len == 0)
    {
      g_array_unref (spans);
      spans = host_module_spans (self);
      if (spans->len > 0)
        {
          /* Every execution is a whole step: none is dropped. */
          derived = CP_STEPS_MODULES;
          device_derived = TRUE;
        }
    }
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
      extend_spans (self, spans, -1);

      keep = g_new (gboolean, spans->len);
      windows = g_new (CpInterval, spans->len);
      n_windows = cp_steps_windows (sp, spans->len, self->has_flows && !device_derived, keep, windows);

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

          if (derived == CP_STEPS_MODULES)
            {
              self->step_source = derived;
              _cp_analysis_add_note (self, "%s",
                                     _("The capture has no step markers: each execution of the repeated XLA module is a step"));
            }
          else if (derived != CP_STEPS_NONE)
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
                  /* Still a step found: its work counts as held by the
                   * steps (cp-steady.c). */
                  if (self->dropped_set == NULL)
                    self->dropped_set = cp_intervals_new ();
                  cp_intervals_add (self->dropped_set, sp[i].host_start, MAX (sp[i].host_end, sp[i].device_end));
                  self->n_dropped_steps++;
                  continue;
                }
              st.number = sp[i].number;
              st.start = windows[w].start;
              st.end = windows[w].end;
              st.host_start = sp[i].host_start;
              st.host_end = sp[i].host_end;
              st.marker = sp[i].marker;
              st.device = -1;
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

  _cp_analysis_settle_window (self);
  find_warmup (self);
}
