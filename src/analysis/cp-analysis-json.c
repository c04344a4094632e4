/* cp-analysis-json.c: the analysis as JSON (docs/diagnose-json.md)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>

#include "cp-analysis-private.h"
#include "cp-json-util.h"

/* The member helpers, shared with cp-compare-json.c. */
#define add_int _cp_json_add_int
#define add_double _cp_json_add_double
#define add_string _cp_json_add_string
#define add_bool _cp_json_add_bool
#include "cp-device-counters.h"
#include "cp-memory.h"
#include "cp-rules.h"

/* At most this many kernels and host ops are listed, by total time. */
#define MAX_LISTED 500
#define MAX_LAUNCHED_PER_OP 10

void
add_int (JsonBuilder *b,
         const char  *key,
         gint64       value)
{
  json_builder_set_member_name (b, key);
  json_builder_add_int_value (b, value);
}

void
add_double (JsonBuilder *b,
            const char  *key,
            double       value)
{
  json_builder_set_member_name (b, key);
  if (isfinite (value))
    json_builder_add_double_value (b, value);
  else
    json_builder_add_null_value (b);
}

void
add_string (JsonBuilder *b,
            const char  *key,
            const char  *value)
{
  json_builder_set_member_name (b, key);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

void
add_bool (JsonBuilder *b,
          const char  *key,
          gboolean     value)
{
  json_builder_set_member_name (b, key);
  json_builder_add_boolean_value (b, value);
}

static void
add_triple (JsonBuilder  *b,
            const char   *key,
            const gint32 *v)
{
  json_builder_set_member_name (b, key);
  if (v[0] < 0)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_array (b);
  for (guint k = 0; k < 3; k++)
    json_builder_add_int_value (b, v[k]);
  json_builder_end_array (b);
}

static void
write_window (CpAnalysis  *self,
              JsonBuilder *b)
{
  const CpInterval *w = (const CpInterval *) self->windows->data;
  guint n = self->windows->len;

  CpWindowInfo info;

  cp_analysis_get_window_info (self, &info);
  json_builder_set_member_name (b, "window");
  json_builder_begin_object (b);
  add_string (b, "source", cp_step_source_to_string (self->step_source));
  add_string (b, "steps_source", info.steps_source);
  add_int (b, "start_ns", n ? w[0].start : 0);
  add_int (b, "end_ns", n ? w[n - 1].end : 0);
  add_int (b, "total_ns", self->window_time);
  add_int (b, "windows", n);
  add_int (b, "steady_steps", info.n_steps);
  add_int (b, "median_step_ns", info.step_median);
  add_int (b, "dropped_steps", self->n_dropped_steps);
  add_double (b, "device_work_share", info.device_work_share);
  add_double (b, "steps_device_share", info.steps_device_share);
  json_builder_set_member_name (b, "left_out");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->warmup_steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (self->warmup_steps, CpStepStats, i);

      json_builder_begin_object (b);
      add_int (b, "number", st->number);
      add_int (b, "start_ns", st->start);
      add_int (b, "end_ns", st->end);
      add_int (b, "duration_ns", st->end - st->start);
      if (st->device >= 0)
        add_int (b, "device", st->device);
      add_string (b, "reason", "warm-up");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  add_string (b, "description",
              self->step_source == CP_STEPS_NONE ?
                "the whole capture, from its first to its last event" :
              self->step_source == CP_STEPS_DEVICE_SPAN ?
                "the span where the devices work, from the first device operation's start to the last one's end: the steps found held too little of the device work" :
              self->out_of_step ?
                "the devices step at different times: one window per step of each device, side by side (a later one starting no earlier than the one before ends); each device is measured over its own" :
              self->step_source == CP_STEPS_MODULES ?
                "one window per execution of the repeated XLA module: from its start to the start of the next execution (the last to its end), joined across devices by execution number" :
                "one window per step: from max(previous window end, step marker start) to max(marker end, end of the device work launched inside the marker)");
  json_builder_end_object (b);

  /* The phase before the first step, left out of the windows. */
  json_builder_set_member_name (b, "warmup");
  if (self->warmup_end > self->warmup_start)
    {
      json_builder_begin_object (b);
      add_int (b, "start_ns", self->warmup_start);
      add_int (b, "end_ns", self->warmup_end);
      add_int (b, "duration_ns", self->warmup_end - self->warmup_start);
      add_int (b, "compile_ns", self->warmup_compile);
      json_builder_set_member_name (b, "excluded");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
}

/* XPlane captures: device op time by XLA op class, as XProf's op profile
 * groups it (every op on the device op lines, async waits included). */
static void
write_xla_ops (CpAnalysis  *self,
               JsonBuilder *b)
{
  guint count[CP_N_XLA_OP_CLASSES] = { 0 };
  gint64 time[CP_N_XLA_OP_CLASSES] = { 0 };
  gint64 all = 0;

  json_builder_set_member_name (b, "xla_ops");
  if (!self->is_xplane)
    {
      json_builder_add_null_value (b);
      return;
    }
  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s = self->lanes[l].slices;

      if (self->lanes[l].kind != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          CpXlaOpClass c = _cp_analysis_xla_class (self, l, i);

          count[c]++;
          time[c] = cp_sat_add (time[c], cp_slices_get_dur (s, i));
          all = cp_sat_add (all, cp_slices_get_dur (s, i));
        }
    }
  json_builder_begin_array (b);
  for (guint c = 0; c < CP_N_XLA_OP_CLASSES; c++)
    {
      if (count[c] == 0)
        continue;
      json_builder_begin_object (b);
      add_string (b, "class", cp_xla_op_class_to_string ((CpXlaOpClass) c));
      add_int (b, "ops", count[c]);
      add_int (b, "time_ns", time[c]);
      add_double (b, "share", all > 0 ? (double) time[c] / (double) all : 0.0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
write_devices (CpAnalysis  *self,
               JsonBuilder *b)
{
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      json_builder_begin_object (b);
      add_int (b, "device", dev->device);
      add_string (b, "kind", cp_device_kind_to_string (cp_trace_get_device_kind (self->trace, dev->device)));
      add_int (b, "kernels", dev->n_kernels);
      add_int (b, "kernel_time_ns", dev->kernel_time);
      add_int (b, "kernel_busy_ns", dev->kernel_busy);
      add_int (b, "window_busy_ns", dev->window_busy);
      add_double (b, "utilization", dev->utilization);
      add_bool (b, "only_copies", dev->n_kernels == 0);
      add_int (b, "window_ns", dev->window_time);
      json_builder_set_member_name (b, "own_windows");
      json_builder_add_boolean_value (b, cp_analysis_device_has_own_windows (self, dev->device));
      add_double (b, "sm_efficiency", dev->sm_efficiency);
      add_double (b, "achieved_occupancy", dev->achieved_occupancy);
      _cp_device_counters_write_json (self, b, dev->device);
      add_int (b, "idle_ns", dev->idle);
      add_int (b, "idle_host_wait_ns", dev->idle_host_wait);
      add_int (b, "idle_kernel_wait_ns", dev->idle_kernel_wait);
      add_int (b, "idle_other_ns", dev->idle_other);
      add_int (b, "comm_time_ns", dev->comm_time);
      add_int (b, "comm_overlap_ns", dev->comm_overlap);
      add_double (b, "comm_overlap_ratio", dev->comm_time > 0 ? (double) dev->comm_overlap / dev->comm_time : NAN);
      add_int (b, "tensor_core_time_ns", dev->tensor_core_time);
      add_int (b, "half_time_ns", dev->half_time);
      add_int (b, "async_ops", dev->n_async_ops);
      add_int (b, "async_time_ns", dev->async_time);
      add_int (b, "async_wait_ns", dev->async_wait);
      json_builder_set_member_name (b, "launch");
      json_builder_begin_object (b);
      add_int (b, "launched", dev->n_launched);
      add_int (b, "short_kernels", dev->n_short);
      add_int (b, "short_kernel_time_ns", dev->short_time);
      add_int (b, "runtime_outliers", dev->n_runtime_outliers);
      add_int (b, "delay_outliers", dev->n_delay_outliers);
      add_double (b, "mean_delay_ns", dev->n_launched ? (double) dev->launch_delay_total / dev->n_launched : NAN);
      add_int (b, "max_delay_ns", dev->launch_delay_max);
      add_int (b, "kernels_under_10us", dev->n_kernels_under_10us);
      add_int (b, "time_under_10us_ns", dev->time_under_10us);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
write_metrics (CpAnalysis  *self,
               JsonBuilder *b)
{
  CpTimeSummary st;

  json_builder_set_member_name (b, "metrics");
  json_builder_begin_object (b);
  add_int (b, "duration_ns", cp_trace_get_duration (self->trace));
  add_int (b, "kernel_time_ns", self->kernel_time);

  cp_analysis_get_step_summary (self, &st);
  json_builder_set_member_name (b, "step_time");
  json_builder_begin_object (b);
  add_int (b, "total_ns", st.total);
  add_int (b, "mean_ns", st.mean);
  add_int (b, "min_ns", st.min);
  add_int (b, "max_ns", st.max);
  {
    CpWindowInfo info;

    cp_analysis_get_window_info (self, &info);
    add_int (b, "median_ns", info.step_median);
  }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "breakdown");
  json_builder_begin_array (b);
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      const CpTimeSummary *sum = &self->summary[c];

      json_builder_begin_object (b);
      add_string (b, "category", cp_time_category_to_string (c));
      add_string (b, "label", cp_time_category_get_label (c));
      add_int (b, "priority", cp_time_category_get_priority (c));
      add_int (b, "total_ns", sum->total);
      add_int (b, "mean_ns", sum->mean);
      add_int (b, "min_ns", sum->min);
      add_int (b, "max_ns", sum->max);
      add_double (b, "percent", sum->percent);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  write_devices (self, b);
  write_xla_ops (self, b);

  /* The tf.data / Grain input pipeline; null without iterator events. */
  _cp_analysis_input_pipeline (self);
  json_builder_set_member_name (b, "input_pipeline");
  if (self->pipeline->len > 0)
    {
      json_builder_begin_object (b);
      add_double (b, "input_wait_percent", self->summary[CP_TIME_INPUT_WAIT].percent);
      json_builder_set_member_name (b, "prefetch");
      json_builder_add_boolean_value (b, self->pipeline_prefetch);
      add_string (b, "slowest_stage", g_array_index (self->pipeline, CpPipelineStage, 0).stage);
      add_int (b, "next_batch_calls", self->pipeline_get_next);
      json_builder_set_member_name (b, "stages");
      json_builder_begin_array (b);
      for (guint k = 0; k < self->pipeline->len; k++)
        {
          const CpPipelineStage *stage = &g_array_index (self->pipeline, CpPipelineStage, k);

          json_builder_begin_object (b);
          add_string (b, "stage", stage->stage);
          add_int (b, "events", stage->count);
          add_int (b, "total_ns", stage->total);
          add_int (b, "self_ns", stage->self_time);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);

  json_builder_set_member_name (b, "transfers");
  json_builder_begin_array (b);
  for (guint k = 0; k < CP_TRANSFER_N_KINDS; k++)
    {
      const CpTransferStats *t = &self->transfers[k];

      if (t->count == 0)
        continue;
      json_builder_begin_object (b);
      add_string (b, "kind", cp_transfer_kind_to_string (t->kind));
      add_int (b, "count", t->count);
      add_int (b, "bytes", t->bytes);
      add_int (b, "time_ns", t->time);
      add_double (b, "bandwidth_gbps", t->bandwidth);
      add_double (b, "peak_bandwidth_gbps", t->peak_bandwidth);
      add_int (b, "pageable", t->n_pageable);
      add_int (b, "pageable_time_ns", t->pageable_time);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  add_int (b, "kernel_names", self->kernels->len);
  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint k = 0; k < MIN (self->kernels->len, MAX_LISTED); k++)
    {
      const CpKernelStats *ks = &g_array_index (self->kernels, CpKernelStats, k);

      json_builder_begin_object (b);
      add_string (b, "name", cp_trace_get_string (self->trace, ks->name));
      add_int (b, "count", ks->count);
      add_int (b, "total_ns", ks->total);
      add_int (b, "mean_ns", ks->count ? ks->total / ks->count : 0);
      add_int (b, "min_ns", ks->min);
      add_int (b, "max_ns", ks->max);
      add_double (b, "share", ks->share);
      add_bool (b, "tensor_core", ks->tensor_core);
      add_bool (b, "half", ks->half);
      add_double (b, "occupancy", ks->occupancy);
      add_triple (b, "grid", ks->grid);
      add_triple (b, "block", ks->block);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  add_int (b, "host_op_names", self->host_ops->len);
  json_builder_set_member_name (b, "host_ops");
  json_builder_begin_array (b);
  for (guint k = 0; k < MIN (self->host_ops->len, MAX_LISTED); k++)
    {
      const CpHostOpStats *op = &g_array_index (self->host_ops, CpHostOpStats, k);

      json_builder_begin_object (b);
      add_string (b, "name", cp_trace_get_string (self->trace, op->name));
      add_int (b, "count", op->count);
      add_int (b, "total_ns", op->total);
      add_int (b, "mean_ns", op->count ? op->total / op->count : 0);
      add_int (b, "min_ns", op->min);
      add_int (b, "max_ns", op->max);
      add_double (b, "share", op->share);
      add_bool (b, "tc_eligible", op->tc_eligible);
      add_int (b, "kernels", op->n_kernels);
      add_int (b, "kernel_time_ns", op->kernel_time);
      add_double (b, "kernel_share", op->kernel_share);
      add_int (b, "tensor_core_time_ns", op->tensor_core_time);
      add_int (b, "self_kernels", op->n_self_kernels);
      add_int (b, "self_kernel_time_ns", op->self_kernel_time);
      json_builder_set_member_name (b, "launched");
      json_builder_begin_array (b);
      for (guint j = 0; op->kernels != NULL && j < MIN (op->kernels->len, MAX_LAUNCHED_PER_OP); j++)
        {
          const CpKernelCount *kc = &g_array_index (op->kernels, CpKernelCount, j);

          json_builder_begin_object (b);
          add_string (b, "name", cp_trace_get_string (self->trace, kc->name));
          add_int (b, "count", kc->count);
          add_int (b, "time_ns", kc->time);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_end_object (b);
}

static void
write_steps (CpAnalysis  *self,
             JsonBuilder *b)
{
  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint i = 0; i < self->steps->len; i++)
    {
      const CpStepStats *st = &g_array_index (self->steps, CpStepStats, i);

      json_builder_begin_object (b);
      add_int (b, "number", st->number);
      add_int (b, "start_ns", st->start);
      add_int (b, "end_ns", st->end);
      add_int (b, "duration_ns", st->end - st->start);
      add_int (b, "host_start_ns", st->host_start);
      add_int (b, "host_end_ns", st->host_end);
      add_int (b, "kernels", st->n_kernels);
      add_bool (b, "outlier", st->outlier);
      if (st->device >= 0)
        add_int (b, "device", st->device);
      json_builder_set_member_name (b, "breakdown");
      json_builder_begin_object (b);
      for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
        {
          g_autofree char *key = g_strconcat (cp_time_category_to_string (c), "_ns", NULL);

          add_int (b, key, st->time[c]);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
write_finding (CpAnalysis  *self,
               CpFinding   *f,
               JsonBuilder *b)
{
  const CpFigure *figs;
  const CpEvidence *ev;
  guint n_figs, n_ev, n_lead;
  CpFramework order[CP_N_FRAMEWORKS];

  json_builder_begin_object (b);
  add_string (b, "rule", cp_finding_get_rule_id (f));
  add_string (b, "section", cp_finding_section_to_string (cp_finding_get_section (f)));
  add_string (b, "title", cp_finding_get_title (f));
  add_string (b, "severity", cp_severity_to_string (cp_finding_get_severity (f)));
  add_string (b, "measured_severity", cp_severity_to_string (cp_finding_get_measured_severity (f)));
  add_string (b, "explained_by", cp_finding_get_explained_by (f));
  add_string (b, "summary", cp_finding_get_summary (f));
  add_string (b, "source", cp_finding_get_source (f));
  add_int (b, "time_at_stake_ns", cp_finding_get_time_at_stake (f));
  add_int (b, "time_at_stake_per_step_ns", cp_finding_get_time_at_stake_per_step (f));

  figs = cp_finding_get_figures (f, &n_figs);
  json_builder_set_member_name (b, "figures");
  json_builder_begin_array (b);
  for (guint k = 0; k < n_figs; k++)
    {
      json_builder_begin_object (b);
      add_string (b, "id", figs[k].id);
      add_string (b, "label", figs[k].label);
      add_double (b, "value", figs[k].value);
      add_string (b, "unit", figs[k].unit);
      add_string (b, "comparison", figs[k].comparison);
      add_double (b, "moderate", figs[k].moderate);
      add_double (b, "high", figs[k].high);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  ev = cp_finding_get_evidence (f, &n_ev);
  add_int (b, "evidence_total", cp_finding_get_evidence_total (f));
  add_int (b, "evidence_found", cp_finding_get_evidence_found (f));
  json_builder_set_member_name (b, "evidence");
  json_builder_begin_array (b);
  for (guint k = 0; k < n_ev; k++)
    {
      CpLane *lane = ev[k].lane < cp_trace_get_n_lanes (self->trace) ?
                     cp_trace_get_lane (self->trace, ev[k].lane) : NULL;

      json_builder_begin_object (b);
      add_int (b, "lane", ev[k].lane);
      add_string (b, "lane_name", lane ? cp_lane_get_name (lane) : NULL);
      add_int (b, "start_ns", ev[k].start);
      add_int (b, "end_ns", ev[k].end);
      add_int (b, "count", ev[k].count);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  n_lead = cp_analysis_get_fix_order (self, order);
  add_string (b, "fixes_first", n_lead > 0 ? cp_framework_to_string (order[0]) : NULL);
  json_builder_set_member_name (b, "fixes");
  json_builder_begin_object (b);
  for (guint o = 0; o < CP_N_FRAMEWORKS; o++)
    {
      CpFramework fw = order[o];
      const char * const *fixes = cp_finding_get_fixes (f, fw);

      json_builder_set_member_name (b, cp_framework_to_string (fw));
      json_builder_begin_array (b);
      for (guint k = 0; fixes[k] != NULL; k++)
        json_builder_add_string_value (b, fixes[k]);
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

/* The framework the capture was recorded with, and what told it. */
static void
write_framework (CpAnalysis  *self,
                 JsonBuilder *b)
{
  const CpFrameworkInfo *info = cp_analysis_get_framework (self);
  CpFramework lead;

  json_builder_set_member_name (b, "framework");
  json_builder_begin_object (b);
  add_string (b, "name", cp_detected_framework_to_string (info->framework));
  json_builder_set_member_name (b, "variants");
  json_builder_begin_array (b);
  for (guint v = 0; v < CP_N_FRAMEWORK_VARIANTS; v++)
    if (info->variants & (1u << v))
      json_builder_add_string_value (b, cp_framework_variant_to_string (1u << v));
  json_builder_end_array (b);
  add_string (b, "fixes_first",
              cp_framework_info_get_fixes_framework (info, &lead) ? cp_framework_to_string (lead) : NULL);
  json_builder_set_member_name (b, "evidence");
  json_builder_begin_array (b);
  for (guint s = 0; s < CP_N_FRAMEWORK_SIGNALS; s++)
    {
      if (info->counts[s] == 0)
        continue;
      json_builder_begin_object (b);
      add_string (b, "signal", cp_framework_signal_to_string (s));
      add_string (b, "framework", cp_detected_framework_to_string (cp_framework_signal_get_framework (s)));
      add_string (b, "label", cp_framework_signal_get_label (s));
      add_int (b, "count", (gint64) info->counts[s]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
write_rules (JsonBuilder *b)
{
  guint n;
  const CpRule *rules = cp_rules_get_all (&n);

  json_builder_set_member_name (b, "rules");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      add_string (b, "id", rules[i].id);
      add_string (b, "title", rules[i].title);
      add_string (b, "metric", rules[i].metric);
      add_string (b, "unit", rules[i].unit);
      add_string (b, "comparison", cp_compare_to_string (rules[i].compare));
      add_double (b, "moderate", rules[i].moderate);
      add_double (b, "high", rules[i].high);
      add_string (b, "kind", rules[i].kind == CP_RULE_SYMPTOM ? "symptom" :
                             rules[i].kind == CP_RULE_RISK ? "risk" :
                             rules[i].idle_cause == CP_IDLE_CAUSE_NONE ? "speedup" : "cause");
      add_string (b, "idle_cause", cp_idle_cause_to_string (rules[i].idle_cause));
      add_string (b, "source", rules[i].source);
      json_builder_set_member_name (b, "frameworks");
      json_builder_begin_array (b);
      for (CpDetectedFramework fw = CP_DETECTED_PYTORCH; fw <= CP_DETECTED_XLA; fw++)
        if (rules[i].frameworks == 0 || (rules[i].frameworks & (1u << fw)))
          json_builder_add_string_value (b, cp_detected_framework_to_string (fw));
      json_builder_end_array (b);
      json_builder_set_member_name (b, "device_kinds");
      json_builder_begin_array (b);
      for (CpDeviceKind k = CP_DEVICE_KIND_GPU; k <= CP_DEVICE_KIND_OTHER; k++)
        if (rules[i].device_kinds == 0 || (rules[i].device_kinds & (1u << k)))
          json_builder_add_string_value (b, cp_device_kind_to_string (k));
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The answer first: the verdict sentence and what it is made of. */
static void
write_memory (CpAnalysis  *self,
              JsonBuilder *b)
{
  guint n;
  const CpMemoryStats *mem = cp_analysis_get_memory (self, &n);

  json_builder_set_member_name (b, "memory");
  json_builder_begin_array (b);
  for (guint m = 0; m < n; m++)
    {
      const CpMemoryStats *st = &mem[m];

      json_builder_begin_object (b);
      add_int (b, "device_type", st->device_type);
      add_int (b, "device_id", st->device_id);
      add_int (b, "events", st->n_events);
      add_bool (b, "totals_known", st->has_totals);
      add_int (b, "peak_allocated_bytes", st->peak_allocated);
      add_int (b, "peak_allocated_ns", st->peak_allocated_ts);
      json_builder_set_member_name (b, "peak_reserved_bytes");
      st->peak_reserved >= 0 ? json_builder_add_int_value (b, st->peak_reserved) : json_builder_add_null_value (b);
      json_builder_set_member_name (b, "peak_reserved_ns");
      st->peak_reserved >= 0 ? json_builder_add_int_value (b, st->peak_reserved_ts) : json_builder_add_null_value (b);
      json_builder_set_member_name (b, "capacity_bytes");
      st->capacity > 0 ? json_builder_add_int_value (b, st->capacity) : json_builder_add_null_value (b);
      json_builder_set_member_name (b, "allocator_limit_bytes");
      st->limit > 0 ? json_builder_add_int_value (b, st->limit) : json_builder_add_null_value (b);
      json_builder_set_member_name (b, "live_at_peak");
      json_builder_begin_object (b);
      add_int (b, "bytes", st->live_bytes);
      add_int (b, "count", st->n_live);
      json_builder_set_member_name (b, "largest");
      json_builder_begin_array (b);
      for (guint k = 0; k < st->n_top; k++)
        {
          json_builder_begin_object (b);
          add_int (b, "bytes", st->top[k].bytes);
          add_int (b, "allocated_ns", st->top[k].ts);
          add_string (b, "op", st->top[k].op.lane != G_MAXUINT32 ? cp_trace_slice_name (self->trace, st->top[k].op) : NULL);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "step_end_allocated_bytes");
      json_builder_begin_array (b);
      for (guint k = 0; k < st->n_step_end; k++)
        json_builder_add_int_value (b, st->step_end[k]);
      json_builder_end_array (b);
      add_double (b, "step_end_slope_bytes", st->step_end_slope);
      add_int (b, "step_end_returns", st->n_returns);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
write_verdict (CpAnalysis *self,
               JsonBuilder *b)
{
  const CpVerdict *v = cp_analysis_get_verdict (self);

  json_builder_set_member_name (b, "verdict");
  json_builder_begin_object (b);
  add_string (b, "text", v->text);
  add_string (b, "primary_rule", v->primary_rule);
  json_builder_set_member_name (b, "figures");
  json_builder_begin_object (b);
  add_string (b, "device_word", v->device_word);
  add_double (b, "busy_percent", v->busy_percent);
  add_double (b, "loading_percent", v->loading_percent);
  json_builder_set_member_name (b, "causes");
  json_builder_begin_array (b);
  for (guint k = 0; k < v->n_causes; k++)
    {
      json_builder_begin_object (b);
      add_string (b, "cause", cp_idle_cause_to_string (v->causes[k].cause));
      add_string (b, "rule", v->causes[k].rule_id);
      add_int (b, "time_ns", v->causes[k].time);
      add_double (b, "percent", v->causes[k].percent);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "speedups");
  json_builder_begin_array (b);
  for (guint k = 0; k < v->n_speedups; k++)
    json_builder_add_string_value (b, v->speedups[k]);
  json_builder_end_array (b);
  add_double (b, "compute_percent", v->compute_percent);
  add_bool (b, "busy_first", v->busy_first);
  add_bool (b, "host_only", v->host_only);
  add_bool (b, "withheld", v->withheld);
  json_builder_set_member_name (b, "per_device");
  json_builder_begin_array (b);
  for (guint k = 0; k < v->n_devices; k++)
    {
      json_builder_begin_object (b);
      add_int (b, "device", v->devices[k].device);
      add_double (b, "busy_percent", v->devices[k].busy_percent);
      add_string (b, "cause", cp_idle_cause_to_string (v->devices[k].cause));
      add_double (b, "percent", v->devices[k].percent);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  {
    g_autofree char *banner = cp_analysis_dup_confidence_banner (self);

    add_string (b, "banner", banner);
  }
  json_builder_end_object (b);
}

char *
cp_analysis_to_json (CpAnalysis *self,
                     gboolean    pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = NULL;
  g_autoptr(JsonNode) root = NULL;
  GListModel *findings;
  GFile *file;
  CpSeverity worst;
  guint n_findings, warnings = 0;
  const char * const *notes;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);

  findings = G_LIST_MODEL (self->findings);
  n_findings = g_list_model_get_n_items (findings);

  json_builder_begin_object (b);
  add_int (b, "schema_version", CP_ANALYSIS_JSON_SCHEMA_VERSION);
  add_string (b, "generator", "chokepoint " PACKAGE_VERSION);
  file = cp_trace_get_file (self->trace);
  if (file != NULL)
    {
      g_autofree char *path = g_file_get_path (file);

      add_string (b, "file", path);
    }
  add_string (b, "title", cp_trace_get_title (self->trace));
  add_double (b, "analysis_seconds", self->seconds);
  write_window (self, b);

  json_builder_set_member_name (b, "conventions");
  json_builder_begin_object (b);
  add_string (b, "time_unit", "ns from the trace origin (its earliest timestamp)");
  add_string (b, "percent", "ratio of sums: 100 * (sum over windows of the time) / (sum of window lengths)");
  add_string (b, "breakdown", "each instant of a window goes to the highest-priority category active then (XProf priorities)");
  json_builder_end_object (b);

  notes = cp_analysis_get_notes (self);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint k = 0; notes[k] != NULL; k++)
    json_builder_add_string_value (b, notes[k]);
  json_builder_end_array (b);

  write_framework (self, b);
  {
    guint n_unchecked;
    const CpRule * const *unchecked = cp_analysis_get_unchecked_rules (self, &n_unchecked);

    json_builder_set_member_name (b, "not_checked");
    json_builder_begin_array (b);
    for (guint k = 0; k < n_unchecked; k++)
      {
        const char *why = NULL;

        cp_rule_applies (unchecked[k], cp_analysis_get_framework (self)->framework,
                         cp_analysis_get_rule_device_kind (self), &why);
        json_builder_begin_object (b);
        add_string (b, "rule", unchecked[k]->id);
        add_string (b, "reason", why);
        json_builder_end_object (b);
      }
    json_builder_end_array (b);
  }
  write_verdict (self, b);
  {
    const CpConfidenceReason *reasons;
    guint n_reasons;
    CpConfidenceLevel level = cp_analysis_get_confidence (self, &reasons, &n_reasons);

    _cp_json_add_confidence (b, "confidence", level, reasons, n_reasons);
  }
  write_metrics (self, b);
  write_memory (self, b);
  write_steps (self, b);
  _cp_analysis_roofline_to_json (self, b);

  json_builder_set_member_name (b, "findings");
  json_builder_begin_array (b);
  for (guint k = 0; k < n_findings; k++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, k);

      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        warnings++;
      write_finding (self, f, b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  add_int (b, "findings", n_findings);
  add_int (b, "warnings", warnings);
  add_string (b, "worst_severity",
              cp_analysis_get_worst_severity (self, &worst) ? cp_severity_to_string (worst) : NULL);
  /* Nothing above info, and a capture that can be judged. */
  add_bool (b, "healthy", warnings == 0 && cp_analysis_get_confidence (self, NULL, NULL) != CP_CONFIDENCE_LOW);
  json_builder_end_object (b);

  write_rules (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}
