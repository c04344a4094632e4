/* cp-rules-device.c: the rules inside the device: precision, roofline, utilisation, gaps
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-device-counters.h"
#include "cp-rules-private.h"
#include "cp-sweep.h"

CpFinding *
_cp_rule_eval_precision (Ctx           *ctx,
                const CpRule  *rule,
                CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  gint64 c16 = self->summary[CP_TIME_COMPUTE_16].total;
  gint64 c32 = self->summary[CP_TIME_COMPUTE_32].total;
  g_autoptr(CpIntervals) set = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  double pct16, value;
  gint64 tc_time = 0, eligible_in_w;
  CpSeverity sev;
  CpFinding *f;
  gboolean old_gpu = FALSE;

  if (self->compute_kernel_time == 0 || self->eligible_fp32_time == 0 || c16 + c32 == 0)
    return NULL;
  /* XProf X6: pct16 over the flattened device compute time. */
  pct16 = 100.0 * (double) c16 / (double) (c16 + c32);
  if (!(pct16 < 10.0))
    return NULL;

  for (guint k = 0; k < self->eligible_fp32->len; k++)
    {
      CpSliceRef r = g_array_index (self->eligible_fp32, CpSliceRef, k);
      const CpSlices *s = self->lanes[r.lane].slices;

      cp_intervals_add (set, cp_slices_get_start (s, r.index), cp_slices_get_end (s, r.index));
    }
  cp_intervals_normalize (set);
  own = _cp_rule_windowed (ctx, set);
  eligible_in_w = cp_intervals_length (own);
  value = 100.0 * (double) self->eligible_fp32_time / (double) self->compute_kernel_time;
  if (!cp_rule_grade (rule, value, &sev))
    return NULL;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpDevice *info = cp_trace_find_device (self->trace, dev->device);

      tc_time = cp_sat_add (tc_time, dev->tensor_core_time);
      if (info != NULL && info->compute_major >= 0 && info->compute_major < 7)
        old_gpu = TRUE;
    }
  /* P6 needs compute capability >= 7: without tensor cores, only a note. */
  if (old_gpu)
    sev = CP_SEVERITY_INFO;

  f = _cp_rule_new_finding (ctx, rule, sev);
  /* On a TPU the MXU is the tensor core, bf16 its native precision; TF32
   * does not exist there. */
  if (cp_analysis_devices_are_tpu (self))
    {
      const char * const *lists[] = { _cp_rule_fix_amp_tpu_jax, _cp_rule_fix_amp_tpu_tf };
      const CpFramework fws[] = { CP_FRAMEWORK_JAX, CP_FRAMEWORK_TENSORFLOW };

      for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
        {
          g_autoptr(GPtrArray) tr = g_ptr_array_new ();

          for (guint i = 0; lists[k][i] != NULL; i++)
            g_ptr_array_add (tr, (gpointer) _(lists[k][i]));
          g_ptr_array_add (tr, NULL);
          cp_finding_set_fixes (f, fws[k], (const char * const *) tr->pdata);
        }
    }
  _cp_rule_add_metric (f, rule, "fp32_eligible_percent", value);
  cp_finding_add_figure (f, "half_percent", _("16-bit share of device compute time (XProf)"),
                         pct16, "%", "<", 10, NAN);
  if (!cp_analysis_devices_are_tpu (self))
    cp_finding_add_figure (f, "tensor_core_ratio", _("Kernel time on tensor cores (TensorBoard plugin)"),
                         self->kernel_time > 0 ? (double) tc_time / self->kernel_time : 0.0, "ratio", NULL, NAN, NAN);
  cp_finding_add_figure (f, "eligible_ratio",
                         cp_analysis_devices_are_tpu (self) ? _("XLA op time of dots and convolutions (MXU work)")
                                                            : _("Kernel time of tensor-core-eligible work"),
                         self->kernel_time > 0 ? (double) self->eligible_kernel_time / self->kernel_time : 0.0,
                         "ratio", ">", 0, NAN);
  for (guint k = 0; k < self->eligible_fp32->len; k++)
    {
      CpSliceRef r = g_array_index (self->eligible_fp32, CpSliceRef, k);
      const CpSlices *s = self->lanes[r.lane].slices;

      cp_finding_add_evidence (f, r.lane, cp_slices_get_start (s, r.index), cp_slices_get_end (s, r.index));
    }
  /* Tensor cores run these at least twice as fast: half the time is at stake. */
  cp_finding_set_time_at_stake (f, eligible_in_w / 2, _cp_rule_per_window (ctx, eligible_in_w / 2));
  _cp_rule_set_summary (ctx, f, rule,
               cp_analysis_devices_are_tpu (self)
               ? _("Dots and convolutions run in f32: the TPU's MXU multiplies bf16 natively and takes several passes for f32.")
               : old_gpu ? _("Matmuls and convolutions run in 32-bit without tensor cores; this GPU has none (compute capability < 7).")
                         : _("Matmuls and convolutions run in 32-bit without tensor cores."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

/* The kernels that matter (each >= 1% of compute time) that reach under
 * 30% of their roofline. At stake: what reaching 30% would save,
 * t · (1 - p / 30) each. */
#define ROOFLINE_MIN_SHARE   0.01
#define ROOFLINE_FAR_PERCENT 30.0
#define ROOFLINE_MAX_EVIDENCE 2000

CpFinding *
_cp_rule_eval_roofline (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  guint n, n_far = 0, n_known = 0, n_evidence = 0;
  const CpRooflineStats *st = cp_analysis_get_roofline (self, FALSE, &n);
  gint64 far_time = 0, known_time = 0;
  double saved = 0, worst = NAN;
  const CpRooflineStats *worst_st = NULL;
  g_autoptr(CpIntervals) set = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  g_autofree guint8 *far = NULL;
  double value;
  CpSeverity sev;
  CpFinding *f;

  if (n == 0 || self->compute_kernel_time <= 0)
    return NULL;
  far = g_new0 (guint8, n);
  for (guint k = 0; k < n; k++)
    {
      if (isnan (st[k].roofline_percent))
        continue;
      known_time = cp_sat_add (known_time, st[k].time);
      n_known++;
      if ((double) st[k].time < ROOFLINE_MIN_SHARE * (double) self->compute_kernel_time ||
          !(st[k].roofline_percent < ROOFLINE_FAR_PERCENT))
        continue;
      far[k] = 1;
      n_far++;
      far_time = cp_sat_add (far_time, st[k].time);
      saved += (double) st[k].time * (1.0 - st[k].roofline_percent / ROOFLINE_FAR_PERCENT);
      if (worst_st == NULL || st[k].time > worst_st->time)
        worst_st = &st[k], worst = st[k].roofline_percent;
    }
  if (n_far == 0)
    return NULL;
  value = 100.0 * (double) far_time / (double) self->compute_kernel_time;
  if (!cp_rule_grade (rule, value, &sev))
    return NULL;

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "far_below_percent", value);
  cp_finding_add_figure (f, "kernels_far_below", _("Kernel names far below their roofline"),
                         n_far, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "largest_roofline_percent",
                         _("Roofline reached by the one with the most time, %"), worst, "%", "<",
                         ROOFLINE_FAR_PERCENT, NAN);
  cp_finding_add_figure (f, "modelled_percent", _("Compute time with known FLOPs, %"),
                         100.0 * (double) known_time / (double) self->compute_kernel_time, "%", NULL, NAN, NAN);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s = info->slices;

      if (info->kind != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          CpStr name = cp_slices_get_name (s, i);

          for (guint k = 0; k < n; k++)
            if (far[k] && st[k].name == name)
              {
                cp_intervals_add (set, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
                if (n_evidence < ROOFLINE_MAX_EVIDENCE)
                  {
                    cp_finding_add_evidence (f, l, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
                    n_evidence++;
                  }
                break;
              }
        }
    }
  cp_intervals_normalize (set);
  own = _cp_rule_windowed (ctx, set);
  {
    gint64 in_w = cp_intervals_length (own);
    gint64 at_stake = far_time > 0 ? (gint64) ((double) in_w * saved / (double) far_time) : 0;

    cp_finding_set_time_at_stake (f, at_stake, _cp_rule_per_window (ctx, at_stake));
  }
  {
    g_autofree char *lead = NULL;
    const char *worst_name = cp_trace_get_string (self->trace, worst_st->name);
    g_autofree char *cut = g_utf8_substring (worst_name, 0, 57);
    g_autofree char *shown = g_utf8_strlen (worst_name, -1) > 60 ? g_strconcat (cut, "…", NULL)
                                                                 : g_strdup (worst_name);

    lead = g_strdup_printf (worst_st->bound == CP_BOUND_MEMORY
                            ? _("Kernels run far below what the device allows; the largest, %s, reaches %.0f%% of its memory-bound roofline.")
                            : _("Kernels run far below what the device allows; the largest, %s, reaches %.0f%% of its compute roofline."),
                            shown, worst);
    _cp_rule_set_summary (ctx, f, rule, lead, value);
  }
  *stake = g_steal_pointer (&own);
  return f;
}

/* Clocks under this share of the highest the capture shows are
 * throttled. */
#define THROTTLED_CLOCK 0.85

typedef struct
{
  guint         device_index;
  double        percent;      /* throttled busy time, % of busy time */
  double        clock_max;    /* MHz */
  double        clock_low;    /* the lowest while busy, MHz */
  gint64        throttled;    /* busy ns at a throttled clock */
  double        saved;        /* what the highest clock would have saved, ns */
  CpIntervals  *low;          /* the throttled samples' spans, in the windows */
} Throttle;

/* One device's clock against its highest: its samples' spans (a sample
 * holds until the next) under THROTTLED_CLOCK of it, and their part of
 * the busy time in the windows. FALSE without a clock or busy time. */
static gboolean
device_throttle (Ctx            *ctx,
                 guint           d,
                 Throttle       *t)
{
  CpAnalysis *self = ctx->self;
  const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
  const CpDeviceCounters *dc = cp_analysis_get_device_counters (self, dev->device);
  const CpCounterStats *clock = dc != NULL ? &dc->counters[CP_DEVICE_COUNTER_CLOCK] : NULL;
  g_autoptr(CpIntervals) busy = NULL;
  g_autoptr(CpIntervals) low = cp_intervals_new ();
  const gint64 *ts;
  const double *values;
  guint n;

  if (clock == NULL || clock->lane == G_MAXUINT || dev->n_kernels == 0)
    return FALSE;
  busy = cp_intervals_intersect (self->device_sets[d].kernels, self->window_set);
  n = cp_lane_get_counter (self->lanes[clock->lane].lane, &ts, &values);
  memset (t, 0, sizeof *t);
  t->device_index = d;
  t->clock_max = 0;
  for (guint i = 0; i < n; i++)
    if (isfinite (values[i]))
      t->clock_max = MAX (t->clock_max, values[i] * clock->scale);
  t->clock_low = t->clock_max;
  if (cp_intervals_length (busy) == 0 || !(t->clock_max > 0))
    return FALSE;
  for (guint i = 0; i + 1 < n; i++)
    {
      double v = values[i] * clock->scale;
      gint64 in_busy;

      if (!(v < THROTTLED_CLOCK * t->clock_max) || ts[i + 1] <= ts[i])
        continue;
      in_busy = cp_intervals_length_in (busy, ts[i], ts[i + 1]);
      if (in_busy == 0)
        continue;
      cp_intervals_add (low, ts[i], ts[i + 1]);
      t->clock_low = MIN (t->clock_low, v);
      t->saved += (double) in_busy * (1.0 - v / t->clock_max);
    }
  cp_intervals_normalize (low);
  t->throttled = cp_intervals_overlap_length (low, busy);
  t->percent = 100.0 * (double) t->throttled / (double) cp_intervals_length (busy);
  t->low = cp_intervals_intersect (low, busy);
  return TRUE;
}

/* Which of the power, temperature and clock counters the capture lacks. */
static void
note_unchecked_counters (Ctx *ctx)
{
  CpAnalysis *self = ctx->self;
  gboolean power = cp_analysis_has_device_counter (self, CP_DEVICE_COUNTER_POWER);
  gboolean temp = cp_analysis_has_device_counter (self, CP_DEVICE_COUNTER_TEMPERATURE);
  gboolean clock = cp_analysis_has_device_counter (self, CP_DEVICE_COUNTER_CLOCK);

  if (!ctx->has_device)
    return;
  if (!power && !temp && !clock)
    _cp_analysis_add_note (self, "%s", _("No power, temperature or clock counters for the devices: power draw, temperature and clock throttling were not checked"));
  else if (!clock)
    _cp_analysis_add_note (self, "%s", _("No SM clock counter for the devices: clock throttling was not checked"));
}

static void
add_throttle_figures (CpFinding      *f,
                      CpAnalysis     *self,
                      const Throttle *t)
{
  const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, t->device_index);
  const CpDeviceCounters *dc = cp_analysis_get_device_counters (self, dev->device);
  const CpCounterStats *power = &dc->counters[CP_DEVICE_COUNTER_POWER];
  const CpCounterStats *temp = &dc->counters[CP_DEVICE_COUNTER_TEMPERATURE];

  cp_finding_add_figure (f, "device", _("Device"), dev->device, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "clock_max_mhz", _("Highest SM clock in the capture (MHz)"), t->clock_max, "MHz", NULL, NAN, NAN);
  cp_finding_add_figure (f, "clock_low_mhz", _("Lowest SM clock while busy (MHz)"), t->clock_low, "MHz", NULL, NAN, NAN);
  cp_finding_add_figure (f, "throttled_ns", _("Busy time at a throttled clock"), t->throttled, "ns", NULL, NAN, NAN);
  if (power->n_samples > 0)
    {
      cp_finding_add_figure (f, "power_mean_w", _("Mean power draw (W)"), power->mean, "W", NULL, NAN, NAN);
      cp_finding_add_figure (f, "power_max_w", _("Highest power draw (W)"), power->max, "W", NULL, NAN, NAN);
    }
  if (temp->n_samples > 0)
    cp_finding_add_figure (f, "temperature_max_c", _("Highest temperature (°C)"), temp->max, "°C", NULL, NAN, NAN);
}

CpFinding *
_cp_rule_eval_clocks (Ctx           *ctx,
                      const CpRule  *rule,
                      CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  Throttle worst = { 0 };
  double saved = 0;
  CpFinding *f = NULL;
  CpSeverity sev;

  note_unchecked_counters (ctx);
  if (!ctx->has_device)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      Throttle t;

      if (!device_throttle (ctx, d, &t))
        continue;
      if (!cp_rule_grade (rule, t.percent, &sev))
        {
          cp_intervals_free (t.low);
          continue;
        }
      if (f == NULL)
        f = _cp_rule_new_finding (ctx, rule, sev);
      _cp_rule_add_set_evidence (f, g_array_index (self->devices, CpDeviceStats, d).lane, t.low);
      saved += t.saved;
      if (worst.low == NULL || t.percent > worst.percent)
        {
          cp_intervals_free (worst.low);
          worst = t;
        }
      else
        cp_intervals_free (t.low);
    }
  if (f == NULL)
    return NULL;
  _cp_rule_add_metric (f, rule, "throttled_percent", worst.percent);
  add_throttle_figures (f, self, &worst);
  cp_finding_set_time_at_stake (f, (gint64) llround (saved), _cp_rule_per_window (ctx, (gint64) llround (saved)));
  {
    g_autofree char *lead =
      /* Translators: "The SM clock falls under 85% of the highest it reaches (1980 MHz) while the device computes, down to 1410 MHz: …" */
      g_strdup_printf (_("The SM clock falls under 85%% of the highest it reaches (%.0f MHz) while the device computes, down to %.0f MHz: the kernels run slower then, most often from a power or thermal limit."),
                       worst.clock_max, worst.clock_low);

    _cp_rule_set_summary (ctx, f, rule, lead, worst.percent);
  }
  cp_intervals_free (worst.low);
  /* Busy time, not idle time: it explains no other finding's. */
  *stake = cp_intervals_new ();
  return f;
}

CpFinding *
_cp_rule_eval_dataparallel (Ctx           *ctx,
                   const CpRule  *rule,
                   CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(GArray) ev = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  guint used = 0;
  CpSeverity sev;
  CpFinding *f;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (cp_name_cache_lookup (self->names, cp_slices_get_name (s, i)) & CP_NAME_DATAPARALLEL)
          {
            CpEvidence e = { l, cp_slices_get_start (s, i), cp_slices_get_end (s, i) };

            g_array_append_val (ev, e);
          }
    }
  if (ev->len == 0)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    if (g_array_index (self->devices, CpDeviceStats, d).n_kernels > 0)
      used++;
  if (!cp_rule_grade (rule, used, &sev))
    return NULL;

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "devices_used", used);
  for (guint k = 0; k < ev->len; k++)
    {
      const CpEvidence *e = &g_array_index (ev, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  cp_finding_set_time_at_stake (f, 0, 0);
  _cp_rule_set_summary (ctx, f, rule,
               _("torch.nn.DataParallel drives several GPUs from one process: it scatters inputs and replicates the model every step. The time at stake is not estimated."),
               used);
  *stake = cp_intervals_new ();
  return f;
}

CpFinding *
_cp_rule_eval_utilization (Ctx           *ctx,
                  const CpRule  *rule,
                  CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpDeviceStats *worst = NULL;
  guint worst_index = 0;
  g_autoptr(CpIntervals) idle = NULL;
  gboolean tpu = cp_analysis_devices_are_tpu (self);
  gboolean mtia = _cp_rule_devices_are_mtia (ctx);
  CpSeverity sev;
  CpFinding *f;

  if (!ctx->has_device)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      /* A device that only copies is not idle by compute. */
      if (dev->n_kernels == 0)
        continue;
      if (worst == NULL || dev->utilization < worst->utilization)
        {
          worst = dev;
          worst_index = d;
        }
    }
  if (worst == NULL || !cp_rule_grade (rule, worst->utilization, &sev))
    return NULL;

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "utilization", worst->utilization);
  cp_finding_add_figure (f, "device", _("Device"), worst->device, "count", NULL, NAN, NAN);
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      g_autofree char *id = g_strdup_printf ("utilization_gpu%d", dev->device);
      g_autofree char *label = tpu ? g_strdup_printf (_("Utilisation of TPU %d"), dev->device)
                               : mtia ? g_strdup_printf (_("Utilisation of MTIA %d"), dev->device)
                                      : g_strdup_printf (_("Utilisation of GPU %d"), dev->device);

      cp_finding_add_figure (f, id, label, dev->utilization, "ratio", "<", 0.5, NAN);
    }
  cp_finding_add_figure (f, "idle_host_wait_ns", _("Idle waiting for the host to launch (HTA)"), worst->idle_host_wait, "ns", NULL, NAN, NAN);
  cp_finding_add_figure (f, "idle_kernel_wait_ns", _("Idle between back-to-back kernels (HTA)"), worst->idle_kernel_wait, "ns", NULL, NAN, NAN);
  cp_finding_add_figure (f, "idle_other_ns", _("Other idle time (HTA)"), worst->idle_other, "ns", NULL, NAN, NAN);

  idle = cp_intervals_subtract (self->window_set, self->device_sets[worst_index].kernels);
  _cp_rule_add_set_evidence (f, worst->lane, idle);
  cp_finding_set_time_at_stake (f, cp_intervals_length (idle), _cp_rule_per_window (ctx, cp_intervals_length (idle)));
  _cp_rule_set_summary (ctx, f, rule, tpu ? _("The TPU runs no XLA op for much of the step.")
                                 : mtia ? _("The MTIA runs no kernel for much of the step.")
                                 : _("The GPU runs no kernel for much of the step."), worst->utilization);
  *stake = g_steal_pointer (&idle);
  return f;
}

CpFinding *
_cp_rule_eval_gaps (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(CpIntervals) long_gaps = cp_intervals_new ();
  g_autoptr(GArray) ev = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  gint64 longest = 0;
  CpSeverity sev;
  CpFinding *f;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceSets *sets = &self->device_sets[d];
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpIntervals *ops = sets->ops;

      /* nsys scope: the device's own first start to last end; the gap after
       * op k is [end of k, start of k + 1). */
      for (gsize k = 0; k + 1 < ops->n; k++)
        {
          gint64 len = ops->v[k + 1].start - ops->v[k].end;

          /* The warm-up left out of the window (a first launch that
           * loads modules, autotuning) is not how the run behaves. */
          if (self->warmup_end > self->warmup_start && ops->v[k].end >= self->warmup_start &&
              ops->v[k + 1].start <= self->warmup_end)
            continue;
          longest = MAX (longest, len);
          if (_cp_rule_passes (rule->compare, len / 1e6, rule->moderate))
            {
              CpEvidence e = { dev->lane, ops->v[k].end, ops->v[k + 1].start };

              g_array_append_val (ev, e);
              cp_intervals_add (long_gaps, ops->v[k].end, ops->v[k + 1].start);
            }
        }
    }
  if (ev->len == 0 || !cp_rule_grade (rule, longest / 1e6, &sev))
    return NULL;

  cp_intervals_normalize (long_gaps);
  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "longest_gap_ms", longest / 1e6);
  cp_finding_add_figure (f, "long_gaps", _("Gaps over the threshold"), ev->len, "count", NULL, NAN, NAN);
  for (guint k = 0; k < ev->len; k++)
    {
      const CpEvidence *e = &g_array_index (ev, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  cp_finding_set_time_at_stake (f, cp_intervals_length (long_gaps), _cp_rule_per_window (ctx, cp_intervals_length (long_gaps)));
  _cp_rule_set_summary (ctx, f, rule, cp_analysis_devices_are_tpu (ctx->self)
                             ? _("The TPU stops for long stretches between operations.")
                             : _cp_rule_devices_are_mtia (ctx)
                             ? _("The MTIA stops for long stretches between operations.")
                             : _("The GPU stops for long stretches between operations."), longest / 1e6);
  *stake = g_steal_pointer (&long_gaps);
  return f;
}

CpFinding *
_cp_rule_eval_transfer (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = _cp_rule_eval_category (ctx, rule, CP_TIME_HOST_TO_DEVICE, "htod_percent",
                                _("The device waits for host-to-device copies."), stake);
  const CpTransferStats *t = &self->transfers[CP_TRANSFER_HTOD];

  if (f == NULL)
    return NULL;
  cp_finding_add_figure (f, "htod_copies", _("Host-to-device copies"), t->count, "count", NULL, NAN, NAN);
  if (t->bytes > 0)
    cp_finding_add_figure (f, "htod_bytes", _("Bytes copied host to device"), t->bytes, "bytes", NULL, NAN, NAN);
  if (!isnan (t->bandwidth))
    cp_finding_add_figure (f, "htod_bandwidth", _("Mean host-to-device bandwidth"), t->bandwidth, "GB/s", NULL, NAN, NAN);
  return f;
}

CpFinding *
_cp_rule_eval_output (Ctx           *ctx,
             const CpRule  *rule,
             CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = _cp_rule_eval_category (ctx, rule, CP_TIME_DEVICE_TO_HOST, "dtoh_percent",
                                _("The device spends step time copying results back to the host."), stake);
  const CpTransferStats *t = &self->transfers[CP_TRANSFER_DTOH];

  if (f == NULL)
    return NULL;
  cp_finding_add_figure (f, "dtoh_copies", _("Device-to-host copies"), t->count, "count", NULL, NAN, NAN);
  if (!isnan (t->bandwidth))
    cp_finding_add_figure (f, "dtoh_bandwidth", _("Mean device-to-host bandwidth"), t->bandwidth, "GB/s", NULL, NAN, NAN);
  return f;
}

CpFinding *
_cp_rule_eval_async (Ctx           *ctx,
            const CpRule  *rule,
            CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = _cp_rule_eval_category (ctx, rule, CP_TIME_ASYNC_WAIT, "async_wait_percent",
                                _("The device waits for asynchronous copies (host offload, copy-start / copy-done) instead of computing."),
                                stake);
  guint n = 0;

  if (f == NULL)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    n += g_array_index (self->devices, CpDeviceStats, d).n_async_ops;
  cp_finding_add_figure (f, "async_ops", _("Async ops (copy-start, copy-done, *-done)"), n, "count", NULL, NAN, NAN);
  return f;
}
