/* cp-rules-host.c: the rules on host and input time: copies, syncs, input, launches, communication
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-memory.h"
#include "cp-rules-private.h"
#include "cp-sweep.h"

CpFinding *
_cp_rule_eval_pageable (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(CpIntervals) all = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  g_autoptr(GArray) ev = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  guint count = 0;
  gint64 bytes = 0, raw_time = 0, t;
  double value;
  CpSeverity sev = CP_SEVERITY_INFO;
  CpFinding *f;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].device_index < 0)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
          CpEvidence e;

          if (!((s->flags[i] & CP_SLICE_PAGEABLE) || (nf & CP_NAME_PAGEABLE)))
            continue;
          if (_cp_analysis_slice_class (self, l, i) < 0)
            continue;
          count++;
          raw_time = cp_sat_add (raw_time, cp_slices_get_dur (s, i));
          if (cp_slices_get_gpu (s, i))
            {
              const CpGpuInfo *g = _cp_analysis_gpu_info (self, l, i);

              if (g != NULL && g->bytes > 0)
                bytes = cp_sat_add (bytes, g->bytes);
            }
          cp_intervals_add (all, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
          e.lane = l;
          e.start = cp_slices_get_start (s, i);
          e.end = cp_slices_get_end (s, i);
          g_array_append_val (ev, e);
        }
    }
  if (count == 0)
    return NULL;

  cp_intervals_normalize (all);
  own = _cp_rule_windowed (ctx, all);
  t = cp_intervals_length (own);
  value = _cp_rule_percent_of_windows (ctx, t);
  cp_rule_grade (rule, value, &sev);

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "pageable_percent", value);
  cp_finding_add_figure (f, "pageable_copies", _("Copies with pageable host memory"), count, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "pageable_time_ns", _("Time in those copies"), raw_time, "ns", NULL, NAN, NAN);
  if (bytes > 0)
    cp_finding_add_figure (f, "pageable_bytes", _("Bytes copied"), bytes, "bytes", NULL, NAN, NAN);
  for (guint k = 0; k < ev->len; k++)
    {
      const CpEvidence *e = &g_array_index (ev, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  cp_finding_set_time_at_stake (f, t, _cp_rule_per_window (ctx, t));
  _cp_rule_set_summary (ctx, f, rule,
               _("Copies to or from pageable host memory are staged through a bounce buffer and block the host thread."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

CpFinding *
_cp_rule_eval_sync (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpIntervals *ops = self->all_ops;
  g_autoptr(CpIntervals) stall = cp_intervals_new ();
  g_autoptr(CpIntervals) own = NULL;
  g_autoptr(CpIntervals) input = NULL;
  g_autoptr(GArray) calls = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
  guint n_calls = 0;
  gint64 call_time = 0, t;
  double value;
  CpSeverity sev = CP_SEVERITY_INFO;
  CpFinding *f;

  if (!ctx->has_device || self->all_ops->n == 0)
    return NULL;

  input = cp_intervals_union (self->exposed[CP_TIME_INPUT_WAIT], self->exposed[CP_TIME_HOST_TO_DEVICE]);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpIntervals *sync = self->lanes[l].sync;

      if (sync == NULL)
        continue;
      for (gsize k = 0; k < sync->n; k++)
        {
          const CpInterval *c = &sync->v[k];
          gsize gi;
          gboolean stalled = FALSE;

          n_calls++;
          call_time = cp_sat_add (call_time, c->end - c->start);
          /* Gaps that open while the host is blocked in this call: the
           * device drained its queue because the host waited for it. The
           * gap after op k is [end of k, start of k + 1). */
          for (gi = cp_intervals_first_ending_after (ops, c->start - 1);
               gi + 1 < ops->n && ops->v[gi].end <= c->end; gi++)
            {
              cp_intervals_add (stall, ops->v[gi].end, ops->v[gi + 1].start);
              stalled = TRUE;
            }
          if (stalled)
            {
              CpEvidence e = { l, c->start, c->end };

              g_array_append_val (calls, e);
            }
        }
    }
  if (calls->len == 0)
    return NULL;

  cp_intervals_normalize (stall);
  {
    g_autoptr(CpIntervals) w = _cp_rule_windowed (ctx, stall);

    own = cp_intervals_subtract (w, input);
  }
  t = cp_intervals_length (own);
  if (t == 0)
    return NULL;
  value = _cp_rule_percent_of_windows (ctx, t);
  cp_rule_grade (rule, value, &sev);

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "sync_stall_percent", value);
  cp_finding_add_figure (f, "sync_calls", _("Blocking synchronisation calls"), n_calls, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "stalling_calls", _("Calls after which the device went idle"), calls->len, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "sync_time_ns", _("Host time blocked in those calls"), call_time, "ns", NULL, NAN, NAN);
  for (guint k = 0; k < calls->len; k++)
    {
      const CpEvidence *e = &g_array_index (calls, CpEvidence, k);

      cp_finding_add_evidence (f, e->lane, e->start, e->end);
    }
  /* The idle time itself, on the device's main lane. */
  if (self->devices->len > 0)
    {
      guint lane = g_array_index (self->devices, CpDeviceStats, 0).lane;

      if (lane != G_MAXUINT)
        _cp_rule_add_set_evidence (f, lane, own);
    }
  cp_finding_set_time_at_stake (f, t, _cp_rule_per_window (ctx, t));
  _cp_rule_set_summary (ctx, f, rule,
               _("The host waits for the device to finish, so no work is queued when it does: the device idles until the host launches again."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}

CpFinding *
_cp_rule_eval_input (Ctx           *ctx,
            const CpRule  *rule,
            CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = _cp_rule_eval_category (ctx, rule, CP_TIME_INPUT_WAIT, "input_wait_percent",
                                _("The device waits while the host loads the next batch."), stake);
  guint slow = 0, calls = 0;
  gboolean single = FALSE;
  double xprof_input;

  if (f == NULL)
    return NULL;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD || self->lanes[l].cat_count[CP_TIME_INPUT_WAIT] == 0)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));

          if (!(nf & CP_NAME_INPUT_WAIT))
            continue;
          calls++;
          /* XProf X12: a root GetNext over 50 µs is slow. */
          if (cp_slices_get_dur (s, i) > 50 * CP_NS_PER_US)
            slow++;
          if (nf & CP_NAME_LOADER_SINGLE)
            single = TRUE;
        }
    }
  /* All the data loading, beside the part with the device idle (the
   * metric): the share the TensorBoard plugin's users know. */
  {
    g_autoptr(CpIntervals) loading = _cp_rule_windowed (ctx, self->cat_union[CP_TIME_INPUT_WAIT]);
    double loading_percent = _cp_rule_percent_of_windows (ctx, cp_intervals_length (loading));
    g_autofree char *line = NULL;
    g_autofree char *summary = NULL;

    /* xgettext:no-c-format */
    cp_finding_add_figure (f, "loading_percent", _("Data loading in all (host time in the DataLoader or input iterator), % of step time"),
                           loading_percent, "%", NULL, NAN, NAN);
    line = cp_analysis_has_steps (self)
           ? g_strdup_printf (_("Data loading takes %.1f%% of the step time in all."), loading_percent)
           : g_strdup_printf (_("Data loading takes %.1f%% of the capture in all."), loading_percent);
    summary = g_strconcat (cp_finding_get_summary (f), " ", line, NULL);
    cp_finding_set_summary (f, summary);
  }
  xprof_input = self->summary[CP_TIME_INPUT_WAIT].percent + self->summary[CP_TIME_HOST_TO_DEVICE].percent;
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "xprof_input_percent", _("Input as XProf counts it (data loading + host-to-device), % of step time"),
                         xprof_input, "%", ">=", 5, 20);
  cp_finding_add_figure (f, "next_batch_calls", _("Next-batch calls"), calls, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "slow_next_batch_calls", _("Next-batch calls over 50 µs (XProf slow tf.data)"),
                         slow, "count", ">", 0, NAN);
  if (single)
    {
      g_autofree char *summary = g_strconcat (cp_finding_get_summary (f), " ",
                                              _("The PyTorch DataLoader runs with num_workers=0, in the training process."),
                                              NULL);

      cp_finding_set_summary (f, summary);
    }
  return f;
}

CpFinding *
_cp_rule_eval_pipeline (Ctx           *ctx,
               const CpRule  *rule,
               CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  const CpPipelineStage *slow;
  const char *stage_fix;
  CpFinding *f;
  guint n_steps = MAX (self->windows->len, 1);
  g_autoptr(GString) s = NULL;

  _cp_analysis_input_pipeline (self);
  if (self->pipeline->len == 0)
    return NULL;
  f = _cp_rule_eval_category (ctx, rule, CP_TIME_INPUT_WAIT, "input_wait_percent",
                     _("The device waits for the next batch from the tf.data input pipeline."), stake);
  if (f == NULL)
    return NULL;
  slow = &g_array_index (self->pipeline, CpPipelineStage, 0);
  cp_finding_add_figure (f, "pipeline_stages", _("Input pipeline stages"), self->pipeline->len, "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "slowest_stage_self_ns", _("Self time of the slowest stage, per step"),
                         (double) (slow->self_time / n_steps), "ns", NULL, NAN, NAN);
  cp_finding_add_figure (f, "prefetch", _("Prefetching in place (1 yes, 0 no)"), self->pipeline_prefetch ? 1 : 0,
                         "count", NULL, NAN, NAN);
  cp_finding_add_figure (f, "next_batch_calls", _("Next-batch calls"), self->pipeline_get_next, "count", NULL, NAN, NAN);

  s = g_string_new (cp_finding_get_summary (f));
  {
    g_autofree char *d = cp_format_ns (slow->self_time / n_steps);

    g_string_append_c (s, ' ');
    /* Translators: "The slowest stage is Map (15.2 ms per step of its own time)." */
    g_string_append_printf (s, _("The slowest stage is %s (%s per step of its own time)."), slow->stage, d);
  }
  g_string_append_c (s, ' ');
  g_string_append (s, self->pipeline_prefetch ? _("Prefetching is in place.") : _("The pipeline does not prefetch."));
  cp_finding_set_summary (f, s->str);

  /* TensorFlow and JAX (tf.data): prefetch first when missing, then the
   * fix for the stage at fault, then caching. */
  stage_fix = _cp_rule_pipeline_stage_fix (slow->stage);
  {
    g_autoptr(GPtrArray) fixes = g_ptr_array_new_with_free_func (g_free);

    if (!self->pipeline_prefetch)
      g_ptr_array_add (fixes, g_strdup (_(_cp_rule_fix_pipeline_tf[0])));
    if (stage_fix != NULL)
      g_ptr_array_add (fixes, g_strdup (_(stage_fix)));
    else
      /* Translators: %s is a tf.data stage name such as "Shard". */
      g_ptr_array_add (fixes, g_strdup_printf (_("The slowest stage is %s: parallelise it (num_parallel_calls=tf.data.AUTOTUNE), cache() its output or move it offline"),
                                               slow->stage));
    g_ptr_array_add (fixes, g_strdup (_(_cp_rule_fix_pipeline_tf[2])));
    g_ptr_array_add (fixes, NULL);
    cp_finding_set_fixes (f, CP_FRAMEWORK_TENSORFLOW, (const char * const *) fixes->pdata);
    cp_finding_set_fixes (f, CP_FRAMEWORK_JAX, (const char * const *) fixes->pdata);
  }
  return f;
}

CpFinding *
_cp_rule_eval_loader_single (Ctx           *ctx,
                    const CpRule  *rule,
                    CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(GPtrArray) lane_sets = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_intervals_free);
  g_autoptr(GArray) lane_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(CpIntervals) loader = NULL;
  g_autoptr(CpIntervals) device = NULL;
  g_autoptr(CpIntervals) runtime = NULL;
  CpIntervals *roles[3];
  CpIntervals *claimed_sets[4] = { NULL, };
  gint64 claimed[4];
  double value;
  CpSeverity sev = CP_SEVERITY_INFO;
  CpFinding *f;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;
      CpIntervals *set = NULL;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (cp_name_cache_lookup (self->names, cp_slices_get_name (s, i)) & CP_NAME_LOADER_SINGLE)
          {
            if (set == NULL)
              set = cp_intervals_new ();
            cp_intervals_add_sorted (set, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
          }
      if (set != NULL)
        {
          g_ptr_array_add (lane_sets, set);
          g_array_append_val (lane_ids, l);
        }
    }
  if (lane_sets->len == 0)
    return NULL;

  /* TB claiming: Kernel, Memcpy, Memset, Communication, Runtime, then DataLoader. */
  loader = cp_intervals_union_many ((CpIntervals * const *) lane_sets->pdata, lane_sets->len);
  device = _cp_analysis_class_union (self, NULL, 0,
                                     (1u << CP_TIME_COMPUTE_16) | (1u << CP_TIME_COMPUTE_32) |
                                     (1u << CP_TIME_DEVICE_TO_HOST) | (1u << CP_TIME_DEVICE_TO_DEVICE) |
                                     (1u << CP_TIME_HOST_TO_DEVICE) | (1u << CP_TIME_OTHER) |
                                     (1u << CP_TIME_COLLECTIVES) | (1u << CP_TIME_ASYNC_WAIT));
  runtime = _cp_analysis_class_union (self, NULL, 0, (1u << CP_TIME_LAUNCH) | (1u << CP_TIME_RUNTIME));
  roles[0] = device;
  roles[1] = runtime;
  roles[2] = loader;
  {
    /* Claim inside each window, summing. */
    g_autoptr(CpIntervals) total_claim = cp_intervals_new ();

    for (guint w = 0; w < self->windows->len; w++)
      {
        const CpInterval *win = &g_array_index (self->windows, CpInterval, w);

        cp_claim_sequential (roles, 3, win->start, win->end, claimed, claimed_sets);
        for (gsize k = 0; k < claimed_sets[2]->n; k++)
          cp_intervals_add_sorted (total_claim, claimed_sets[2]->v[k].start, claimed_sets[2]->v[k].end);
        for (guint k = 0; k < 4; k++)
          g_clear_pointer (&claimed_sets[k], cp_intervals_free);
      }
    *stake = g_steal_pointer (&total_claim);
  }

  value = self->window_time > 0 ? (double) cp_intervals_length (*stake) / self->window_time : 0.0;
  cp_rule_grade (rule, value, &sev);
  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "dataloader_ratio", value);
  for (guint k = 0; k < lane_sets->len; k++)
    {
      g_autoptr(CpIntervals) part = cp_intervals_intersect (g_ptr_array_index (lane_sets, k), *stake);

      if (part->n > 0)
        _cp_rule_add_set_evidence (f, g_array_index (lane_ids, guint, k), part);
      else
        _cp_rule_add_set_evidence (f, g_array_index (lane_ids, guint, k), g_ptr_array_index (lane_sets, k));
    }
  cp_finding_set_time_at_stake (f, cp_intervals_length (*stake), _cp_rule_per_window (ctx, cp_intervals_length (*stake)));
  _cp_rule_set_summary (ctx, f, rule,
               _("The DataLoader runs with num_workers=0: batches are loaded in the training process, one after the other."),
               value);
  return f;
}

CpFinding *
_cp_rule_eval_comm (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = _cp_rule_eval_category (ctx, rule, CP_TIME_COLLECTIVES, "exposed_comm_percent",
                                _("Collective communication runs while the device does not compute."), stake);
  gint64 comm = 0, overlap = 0;

  if (f == NULL)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      comm = cp_sat_add (comm, dev->comm_time);
      overlap = cp_sat_add (overlap, dev->comm_overlap);
    }
  if (self->devices->len > 0 && self->window_time > 0)
    cp_finding_add_figure (f, "comm_ratio", _("Collective time / step time, mean over devices (TensorBoard plugin)"),
                           (double) comm / self->devices->len / self->window_time, "ratio", ">", 0.10, NAN);
  if (comm > 0)
    cp_finding_add_figure (f, "comm_overlap_ratio", _("Collective time overlapped by compute (HTA)"),
                           (double) overlap / comm, "ratio", NULL, NAN, NAN);
  return f;
}

CpFinding *
_cp_rule_eval_overlap (Ctx           *ctx,
              const CpRule  *rule,
              CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  g_autoptr(CpIntervals) exposed = cp_intervals_new ();
  gint64 comm = 0, overlap = 0, max_comm = 0;
  double ratio;
  CpSeverity sev;
  CpFinding *f;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpDeviceSets *sets = &self->device_sets[d];
      g_autoptr(CpIntervals) w = NULL;
      g_autoptr(CpIntervals) alone = NULL;
      CpIntervals *merged;

      comm = cp_sat_add (comm, dev->comm_time);
      overlap = cp_sat_add (overlap, dev->comm_overlap);
      max_comm = MAX (max_comm, dev->comm_time);
      w = _cp_rule_windowed (ctx, sets->comm);
      alone = cp_intervals_subtract (w, sets->compute);
      merged = cp_intervals_union (exposed, alone);
      cp_intervals_free (exposed);
      exposed = merged;
    }
  /* Only when communication matters: >= 3% of step time on some device. */
  if (comm == 0 || _cp_rule_percent_of_windows (ctx, max_comm) < 3.0)
    return NULL;
  ratio = (double) overlap / (double) comm;
  if (!cp_rule_grade (rule, ratio, &sev))
    return NULL;

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "comm_overlap_ratio", ratio);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "comm_percent", _("Collective time, % of step time (busiest device)"),
                         _cp_rule_percent_of_windows (ctx, max_comm), "%", ">=", 3, NAN);
  _cp_rule_add_category_evidence (ctx, f, CP_TIME_COLLECTIVES, exposed);
  cp_finding_set_time_at_stake (f, cp_intervals_length (exposed), _cp_rule_per_window (ctx, cp_intervals_length (exposed)));
  _cp_rule_set_summary (ctx, f, rule, _("Most collective time runs with no compute beside it."), ratio);
  *stake = g_steal_pointer (&exposed);
  return f;
}

CpFinding *
_cp_rule_eval_launch (Ctx           *ctx,
             const CpRule  *rule,
             CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpFinding *f = _cp_rule_eval_category (ctx, rule, CP_TIME_LAUNCH, "launch_percent",
                                _("The device idles while the host launches kernels: kernels are too short to hide the launch cost."),
                                stake);
  guint n_kernels = 0, n_launched = 0, n_short = 0, n_small = 0, n_delay = 0;
  gint64 kernel_time = 0, small_time = 0, delay_total = 0;

  if (f == NULL)
    return NULL;
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      n_kernels += dev->n_kernels;
      kernel_time = cp_sat_add (kernel_time, dev->kernel_time);
      n_launched += dev->n_launched;
      n_short += dev->n_short;
      n_small += dev->n_kernels_under_10us;
      small_time = cp_sat_add (small_time, dev->time_under_10us);
      n_delay += dev->n_delay_outliers;
      delay_total = cp_sat_add (delay_total, dev->launch_delay_total);
    }
  cp_finding_add_figure (f, "kernels_per_step", _("Kernels per step"),
                         self->windows->len ? (double) n_kernels / self->windows->len : n_kernels,
                         "count", NULL, NAN, NAN);
  if (n_launched > 0)
    {
      cp_finding_add_figure (f, "short_kernel_share", _("Kernels shorter than their launch call (HTA: launch <= 50 µs), share"),
                             (double) n_short / n_launched, "ratio", NULL, NAN, NAN);
      cp_finding_add_figure (f, "mean_launch_delay_ns", _("Mean launch delay"),
                             (double) delay_total / n_launched, "ns", NULL, NAN, NAN);
      cp_finding_add_figure (f, "launch_delay_outliers", _("Launch delays over 100 µs (HTA)"),
                             n_delay, "count", ">", 0, NAN);
    }
  if (n_kernels > 0)
    {
      cp_finding_add_figure (f, "small_kernel_share", _("Kernels under 10 µs, share of kernels"),
                             (double) n_small / n_kernels, "ratio", NULL, NAN, NAN);
      cp_finding_add_figure (f, "small_kernel_time_share", _("Kernels under 10 µs, share of kernel time"),
                             kernel_time > 0 ? (double) small_time / kernel_time : 0.0, "ratio", NULL, NAN, NAN);
    }
  return f;
}

CpFinding *
_cp_rule_eval_host (Ctx           *ctx,
           const CpRule  *rule,
           CpIntervals  **stake)
{
  CpAnalysis *self = ctx->self;
  CpIntervals *parts[] = {
    self->exposed[CP_TIME_HOST_COMPUTE], self->exposed[CP_TIME_RUNTIME], self->exposed[CP_TIME_IDLE],
  };
  g_autoptr(CpIntervals) all = NULL;
  g_autoptr(CpIntervals) own = NULL;
  gint64 t;
  double value;
  CpSeverity sev;
  CpFinding *f;
  guint idle_lane = G_MAXUINT;

  if (!ctx->has_device || !ctx->has_host)
    return NULL;
  all = cp_intervals_union_many (parts, G_N_ELEMENTS (parts));
  own = g_steal_pointer (&all);
  t = cp_intervals_length (own);
  value = _cp_rule_percent_of_windows (ctx, t);
  if (t == 0 || !cp_rule_grade (rule, value, &sev))
    return NULL;

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, "host_overhead_percent", value);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "host_compute_percent", _("Host compute while the device is idle, % of step time"),
                         self->summary[CP_TIME_HOST_COMPUTE].percent, "%", NULL, NAN, NAN);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "runtime_percent", _("Runtime calls while the device is idle, % of step time"),
                         self->summary[CP_TIME_RUNTIME].percent, "%", NULL, NAN, NAN);
  /* xgettext:no-c-format */
  cp_finding_add_figure (f, "unrecorded_percent", _("Nothing recorded on host or device (XProf all-other), % of step time"),
                         self->summary[CP_TIME_IDLE].percent, "%", ">=", 3, 15);
  _cp_rule_add_category_evidence (ctx, f, CP_TIME_HOST_COMPUTE, own);
  _cp_rule_add_category_evidence (ctx, f, CP_TIME_RUNTIME, own);
  /* Unrecorded time: on the lane of the step markers, else the device lane. */
  if (self->steps->len > 0)
    idle_lane = g_array_index (self->steps, CpStepStats, 0).marker.lane;
  if (idle_lane >= self->n_lanes && self->devices->len > 0)
    idle_lane = g_array_index (self->devices, CpDeviceStats, 0).lane;
  if (idle_lane < self->n_lanes)
    _cp_rule_add_set_evidence (f, idle_lane, self->exposed[CP_TIME_IDLE]);
  cp_finding_set_time_at_stake (f, t, _cp_rule_per_window (ctx, t));
  _cp_rule_set_summary (ctx, f, rule,
               _("The device idles while the host runs framework and Python code, or nothing is recorded at all."),
               value);
  *stake = g_steal_pointer (&own);
  return f;
}
