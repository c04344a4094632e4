/* cp-analysis.c: the analysis object, lane preparation and accessors
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "cp-analysis-private.h"
#include "model/cp-timing.h"

G_DEFINE_QUARK (cp-analysis-error-quark, cp_analysis_error)

G_DEFINE_FINAL_TYPE (CpAnalysis, cp_analysis, G_TYPE_OBJECT)

static void
clear_host_op (gpointer data)
{
  CpHostOpStats *op = data;

  g_clear_pointer (&op->kernels, g_array_unref);
}

static void
cp_analysis_finalize (GObject *object)
{
  CpAnalysis *self = (CpAnalysis *) object;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLaneInfo *info = &self->lanes[l];

      g_free (info->markers);
      g_free (info->cls);
      cp_intervals_free (info->sync);
      g_free (info->launch);
    }
  g_free (self->lanes);

  if (self->device_sets != NULL)
    {
      for (guint d = 0; d < self->devices->len; d++)
        {
          CpDeviceSets *s = &self->device_sets[d];

          cp_intervals_free (s->kernels);
          cp_intervals_free (s->ops);
          cp_intervals_free (s->compute);
          cp_intervals_free (s->comm);
          g_clear_pointer (&s->lanes, g_array_unref);
        }
      g_free (self->device_sets);
    }

  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      cp_intervals_free (self->cat_union[c]);
      cp_intervals_free (self->exposed[c]);
    }
  cp_intervals_free (self->all_host);
  cp_intervals_free (self->all_ops);
  cp_intervals_free (self->window_set);
  cp_intervals_free (self->dropped_set);
  g_clear_pointer (&self->device_windows, g_hash_table_unref);
  g_clear_pointer (&self->device_steps, g_array_unref);
  g_clear_pointer (&self->warmup_steps, g_array_unref);
  g_clear_pointer (&self->confidence_reasons, g_array_unref);

  g_clear_pointer (&self->steps, g_array_unref);
  g_clear_pointer (&self->windows, g_array_unref);
  g_clear_pointer (&self->notes, g_ptr_array_unref);
  g_clear_pointer (&self->not_checked, g_ptr_array_unref);
  g_clear_pointer (&self->devices, g_array_unref);
  g_clear_pointer (&self->kernels, g_array_unref);
  g_clear_pointer (&self->host_ops, g_array_unref);
  g_clear_pointer (&self->roofline_kernels, g_array_unref);
  g_clear_pointer (&self->roofline_ops, g_array_unref);
  g_clear_pointer (&self->pipeline, g_array_unref);
  g_clear_pointer (&self->memory, g_array_unref);
  g_clear_pointer (&self->device_counters, g_array_unref);
  g_clear_pointer (&self->eligible_fp32, g_array_unref);
  g_clear_object (&self->findings);
  g_free (self->verdict_text);
  for (guint k = 0; k < CP_N_FINDING_SECTIONS; k++)
    g_free (self->section_titles[k]);
  g_clear_pointer (&self->names, cp_name_cache_free);
  g_free (self->xla_by_name);
  g_clear_pointer (&self->xla_by_args, g_hash_table_unref);
  g_clear_object (&self->trace);

  G_OBJECT_CLASS (cp_analysis_parent_class)->finalize (object);
}

static void
cp_analysis_class_init (CpAnalysisClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cp_analysis_finalize;
}

static void
cp_analysis_init (CpAnalysis *self)
{
  self->steps = g_array_new (FALSE, TRUE, sizeof (CpStepStats));
  self->windows = g_array_new (FALSE, TRUE, sizeof (CpInterval));
  self->warmup_steps = g_array_new (FALSE, TRUE, sizeof (CpStepStats));
  self->steps_device_share = NAN;
  self->device_work_share = NAN;
  self->notes = g_ptr_array_new_null_terminated (4, g_free, TRUE);
  self->not_checked = g_ptr_array_new ();
  self->devices = g_array_new (FALSE, TRUE, sizeof (CpDeviceStats));
  self->kernels = g_array_new (FALSE, TRUE, sizeof (CpKernelStats));
  self->host_ops = g_array_new (FALSE, TRUE, sizeof (CpHostOpStats));
  self->roofline_kernels = g_array_new (FALSE, TRUE, sizeof (CpRooflineStats));
  self->roofline_ops = g_array_new (FALSE, TRUE, sizeof (CpRooflineStats));
  g_array_set_clear_func (self->host_ops, clear_host_op);
  self->eligible_fp32 = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  self->findings = g_list_store_new (CP_TYPE_FINDING);
}

/* Categories */

static const struct
{
  const char *id;
  const char *label;
  guint       priority;
} categories[CP_TIME_N_CATEGORIES] = {
  [CP_TIME_COMPUTE_16] = { "compute_16", N_("Device compute, 16-bit"), 150 },
  [CP_TIME_COMPUTE_32] = { "compute_32", N_("Device compute, 32-bit"), 140 },
  [CP_TIME_DEVICE_TO_HOST] = { "device_to_host", N_("Device to host"), 130 },
  [CP_TIME_DEVICE_TO_DEVICE] = { "device_to_device", N_("Device to device"), 120 },
  [CP_TIME_ASYNC_WAIT] = { "async_wait", N_("Device waits for async copies"), 115 },
  [CP_TIME_INPUT_WAIT] = { "input_wait", N_("Input: data loading"), 110 },
  [CP_TIME_COLLECTIVES] = { "collectives", N_("Collectives"), 100 },
  [CP_TIME_LAUNCH] = { "kernel_launch", N_("Kernel launch"), 90 },
  [CP_TIME_HOST_TO_DEVICE] = { "host_to_device", N_("Input: host to device"), 80 },
  [CP_TIME_OTHER] = { "other", N_("Other copies and memsets"), 70 },
  [CP_TIME_RUNTIME] = { "runtime", N_("Runtime calls and syncs"), 50 },
  [CP_TIME_HOST_COMPUTE] = { "host_compute", N_("Host compute"), 10 },
  [CP_TIME_IDLE] = { "idle", N_("Idle"), 0 },
};

const char *
cp_time_category_to_string (CpTimeCategory category)
{
  g_return_val_if_fail (category < CP_TIME_N_CATEGORIES, NULL);
  return categories[category].id;
}

const char *
cp_time_category_get_label (CpTimeCategory category)
{
  g_return_val_if_fail (category < CP_TIME_N_CATEGORIES, NULL);
  return _(categories[category].label);
}

guint
cp_time_category_get_priority (CpTimeCategory category)
{
  g_return_val_if_fail (category < CP_TIME_N_CATEGORIES, 0);
  return categories[category].priority;
}

const char *
cp_step_source_to_string (CpStepSource source)
{
  switch (source)
    {
    case CP_STEPS_PROFILER: return "profiler-steps";
    case CP_STEPS_MARKERS: return "step-markers";
    case CP_STEPS_LOADER: return "dataloader-iterations";
    case CP_STEPS_OPTIMIZER: return "optimizer-iterations";
    case CP_STEPS_MODULES: return "xla-modules";
    case CP_STEPS_DEVICE_SPAN: return "device-activity";
    case CP_STEPS_NONE:
    default:
      return "none";
    }
}

const char *
cp_step_source_get_label (CpStepSource source)
{
  switch (source)
    {
    case CP_STEPS_PROFILER: return "ProfilerStep#N";
    case CP_STEPS_MARKERS: return _("step markers");
    case CP_STEPS_LOADER: return _("iterations between DataLoader calls");
    case CP_STEPS_OPTIMIZER: return _("iterations between optimizer steps");
    case CP_STEPS_MODULES: return _("executions of the repeated XLA module");
    case CP_STEPS_DEVICE_SPAN: return _("the span where the devices work");
    case CP_STEPS_NONE:
    default:
      return NULL;
    }
}

/* Helpers */

void
_cp_analysis_add_note (CpAnalysis *self,
                       const char *format,
                       ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (self->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

const CpGpuInfo *
_cp_analysis_gpu_info (CpAnalysis *self,
                       guint       lane,
                       guint       index)
{
  CpSliceRef ref = { lane, index };

  return cp_trace_get_gpu_info (self->trace, ref);
}

gboolean
_cp_analysis_is_marker (CpAnalysis *self,
                        guint       lane,
                        guint       index)
{
  const CpLaneInfo *info = &self->lanes[lane];

  return info->markers != NULL && (info->markers[index >> 3] & (1u << (index & 7))) != 0;
}

CpXlaOpClass
_cp_analysis_xla_class (CpAnalysis *self,
                        guint       lane,
                        guint       index)
{
  const CpSlices *s = self->lanes[lane].slices;
  guint32 args;
  CpStr name;
  guint8 c = 0xff;
  CpXlaOpClass by_name;

  if (!self->is_xplane)
    return CP_XLA_OP_NONE;
  args = cp_slices_get_args (s, index);
  if (args != 0)
    {
      gpointer v = g_hash_table_lookup (self->xla_by_args, GUINT_TO_POINTER (args));

      if (v == NULL)
        {
          CpStr cat = cp_xstats_find_string (self->trace, args, self->key_hlo_category);
          CpStr op = cp_xstats_find_string (self->trace, args, self->key_hlo_op);

          c = 0xff;
          if (cat != CP_STR_EMPTY || op != CP_STR_EMPTY)
            c = 1 + cp_classify_xla_op (op != CP_STR_EMPTY ? cp_trace_get_string (self->trace, op) : NULL,
                                        cat != CP_STR_EMPTY ? cp_trace_get_string (self->trace, cat) : NULL);
          g_hash_table_insert (self->xla_by_args, GUINT_TO_POINTER (args), GUINT_TO_POINTER ((guint) c));
        }
      else
        c = (guint8) GPOINTER_TO_UINT (v);
      if (c != 0xff && c != 1 + CP_XLA_OP_NONE)
        return (CpXlaOpClass) (c - 1);
    }
  name = cp_slices_get_name (s, index);
  if (name >= self->n_xla_by_name)
    by_name = cp_classify_xla_op (cp_trace_get_string (self->trace, name), NULL);
  else
    {
      if (self->xla_by_name[name] == 0)
        self->xla_by_name[name] = 1 + cp_classify_xla_op (cp_trace_get_string (self->trace, name), NULL);
      by_name = (CpXlaOpClass) (self->xla_by_name[name] - 1);
    }
  /* An op with hlo_op / hlo_category stats is an XLA op even when neither
   * they nor its name tell its class. */
  if (by_name == CP_XLA_OP_NONE && c != 0xff)
    return CP_XLA_OP_OTHER;
  return by_name;
}

static CpSliceClass
class_of_copy (CpTransferKind kind)
{
  switch (kind)
    {
    case CP_TRANSFER_HTOD: return CP_TIME_HOST_TO_DEVICE;
    case CP_TRANSFER_DTOH: return CP_TIME_DEVICE_TO_HOST;
    case CP_TRANSFER_DTOD:
    case CP_TRANSFER_PTOP: return CP_TIME_DEVICE_TO_DEVICE;
    case CP_TRANSFER_MEMSET:
    case CP_TRANSFER_OTHER:
    case CP_TRANSFER_NONE:
    case CP_TRANSFER_N_KINDS:
    default:
      return CP_TIME_OTHER;
    }
}

CpSliceClass
_cp_analysis_classify_slice (CpAnalysis *self,
                             guint       lane,
                             guint       index,
                             guint32     nf)
{
  const CpLaneInfo *info = &self->lanes[lane];
  const CpSlices *s = info->slices;
  guint16 flags = s->flags[index];

  switch (info->kind)
    {
    case CP_LANE_KERNEL:
      if ((nf & CP_NAME_DEVICE_WAIT) || (flags & CP_SLICE_SYNC))
        return -1;
      if (self->is_xplane)
        switch (_cp_analysis_xla_class (self, lane, index))
          {
          case CP_XLA_OP_ASYNC: return CP_TIME_ASYNC_WAIT;
          case CP_XLA_OP_COLLECTIVE:
          case CP_XLA_OP_SEND_RECV: return CP_TIME_COLLECTIVES;
          case CP_XLA_OP_INFEED: return CP_TIME_HOST_TO_DEVICE;
          case CP_XLA_OP_OUTFEED: return CP_TIME_DEVICE_TO_HOST;
          default: break;
          }
      if (nf & (CP_NAME_MEMCPY | CP_NAME_MEMSET))
        return class_of_copy (cp_classify_copy_kind (nf));
      if (nf & CP_NAME_COLLECTIVE)
        return CP_TIME_COLLECTIVES;
      return (nf & CP_NAME_HALF) ? CP_TIME_COMPUTE_16 : CP_TIME_COMPUTE_32;

    case CP_LANE_TRANSFER:
      {
        CpTransferKind kind = cp_lane_get_transfer_kind (info->lane);

        if ((nf & CP_NAME_DEVICE_WAIT) || (flags & CP_SLICE_SYNC))
          return -1;
        if (kind == CP_TRANSFER_NONE || kind == CP_TRANSFER_OTHER)
          {
            CpTransferKind by_name = cp_classify_copy_kind (nf);

            if (by_name != CP_TRANSFER_NONE)
              kind = by_name;
          }
        return class_of_copy (kind);
      }

    case CP_LANE_HOST_THREAD:
      if (nf & CP_NAME_STEP)
        return -1;
      if (info->n_markers > 0 && _cp_analysis_is_marker (self, lane, index))
        return -1;
      if (nf & CP_NAME_INPUT_WAIT)
        return CP_TIME_INPUT_WAIT;
      if (nf & CP_NAME_HOST_COMM)
        return CP_TIME_COLLECTIVES;
      if ((nf & (CP_NAME_SYNC | CP_NAME_SYNC_COPY | CP_NAME_ITEM)) || (flags & CP_SLICE_SYNC))
        return CP_TIME_RUNTIME;
      if (nf & CP_NAME_LAUNCH)
        return CP_TIME_LAUNCH;
      if ((flags & CP_SLICE_HAS_FLOW_OUT) && cp_slices_get_corr (s, index) != CP_NONE)
        return CP_TIME_LAUNCH;
      if (nf & CP_NAME_RUNTIME)
        return CP_TIME_RUNTIME;
      return CP_TIME_HOST_COMPUTE;

    case CP_LANE_DEVICE_ANNOTATION:
    case CP_LANE_ASYNC:
    case CP_LANE_COUNTER:
    case CP_LANE_N_KINDS:
    default:
      return -1;
    }
}

static gint
device_index_for (CpAnalysis *self,
                  gint        ordinal)
{
  CpDeviceStats d = { 0 };

  for (guint i = 0; i < self->devices->len; i++)
    if (g_array_index (self->devices, CpDeviceStats, i).device == ordinal)
      return i;

  d.device = ordinal;
  d.sm_efficiency = NAN;
  d.achieved_occupancy = NAN;
  d.lane = G_MAXUINT;
  g_array_append_val (self->devices, d);
  return self->devices->len - 1;
}

static gint
lane_device_ordinal (CpAnalysis *self,
                     guint       l)
{
  CpLane *lane = self->lanes[l].lane;
  gint ordinal = cp_lane_get_device (lane);

  if (ordinal >= 0)
    return ordinal;
  /* The process may know it; otherwise the slices' own device field. */
  {
    const CpProcess *p = cp_trace_get_process (self->trace, cp_lane_get_process (lane));

    if (p != NULL && p->device >= 0)
      return p->device;
  }
  for (guint i = 0; i < MIN (cp_lane_get_n_slices (lane), 16u); i++)
    {
      const CpGpuInfo *g = _cp_analysis_gpu_info (self, l, i);

      if (g != NULL && g->device >= 0)
        return g->device;
    }
  return 0;
}

void
_cp_analysis_prepare_lanes (CpAnalysis *self)
{
  const CpStep *steps;
  const CpFlow *flows;
  guint n_steps, n_flows;

  self->n_lanes = cp_trace_get_n_lanes (self->trace);
  self->lanes = g_new0 (CpLaneInfo, MAX (self->n_lanes, 1));

  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLaneInfo *info = &self->lanes[l];

      info->lane = cp_trace_get_lane (self->trace, l);
      info->slices = cp_lane_get_slices (info->lane);
      info->kind = cp_lane_get_kind (info->lane);
      info->device_index = -1;
      if (info->kind == CP_LANE_KERNEL || info->kind == CP_LANE_TRANSFER)
        {
          if (cp_lane_get_n_slices (info->lane) > 0)
            info->device_index = device_index_for (self, lane_device_ordinal (self, l));
        }
    }

  /* Step markers, so that the breakdown does not count them as host work. */
  steps = cp_trace_get_steps (self->trace, &n_steps);
  for (guint i = 0; i < n_steps; i++)
    {
      CpSliceRef m = steps[i].marker;

      if (m.lane < self->n_lanes && cp_trace_slice_ref_valid (self->trace, m))
        {
          CpLaneInfo *info = &self->lanes[m.lane];

          if (info->markers == NULL)
            info->markers = g_new0 (guint8, cp_lane_get_n_slices (info->lane) / 8 + 1);
          info->markers[m.index >> 3] |= 1u << (m.index & 7);
          info->n_markers++;
        }
    }

  /* Launch links: host call -> device activity. */
  flows = cp_trace_get_flows (self->trace, &n_flows);
  for (guint i = 0; i < n_flows; i++)
    {
      const CpFlow *f = &flows[i];
      CpLaneInfo *to;

      if (f->kind != CP_FLOW_LAUNCH || f->from.lane >= self->n_lanes || f->to.lane >= self->n_lanes)
        continue;
      if (self->lanes[f->from.lane].kind != CP_LANE_HOST_THREAD)
        continue;
      to = &self->lanes[f->to.lane];
      if (to->kind != CP_LANE_KERNEL && to->kind != CP_LANE_TRANSFER)
        continue;
      if (f->to.index >= cp_lane_get_n_slices (to->lane) ||
          f->from.index >= cp_lane_get_n_slices (self->lanes[f->from.lane].lane))
        continue;
      if (to->launch == NULL)
        {
          guint n = cp_lane_get_n_slices (to->lane);

          to->launch = g_new (CpSliceRef, MAX (n, 1));
          for (guint k = 0; k < n; k++)
            to->launch[k] = CP_SLICE_REF_NONE;
        }
      if (to->launch[f->to.index].lane == G_MAXUINT32)
        to->launch[f->to.index] = f->from;
      self->has_flows = TRUE;
    }

  /* The window reads the device work by class (cp-steady.c). */
  _cp_analysis_classify_lanes (self);
}

/* Construction */

const char * const _cp_analysis_phase_names[CP_ANALYSIS_N_PHASES] = {
  "lanes", "steps", "breakdown", "devices", "kernels", "rules",
};

static double
thread_cpu_seconds (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static gboolean
check_cancel (GCancellable  *cancellable,
              GError       **error)
{
  if (g_cancellable_is_cancelled (cancellable))
    {
      g_set_error_literal (error, CP_ANALYSIS_ERROR, CP_ANALYSIS_ERROR_CANCELLED,
                           _("The analysis was cancelled"));
      return FALSE;
    }
  return TRUE;
}

CpAnalysis *
cp_analysis_new (CpTrace       *trace,
                 GCancellable  *cancellable,
                 GError       **error)
{
  g_autoptr(CpAnalysis) self = NULL;
  gint64 t0 = g_get_monotonic_time ();
  void (*phases[]) (CpAnalysis *) = {
    _cp_analysis_prepare_lanes,
    _cp_analysis_build_steps,
    _cp_analysis_breakdown,
    _cp_analysis_device_metrics,
    _cp_analysis_kernel_stats,
    _cp_analysis_evaluate_rules,
  };

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);

  self = g_object_new (CP_TYPE_ANALYSIS, NULL);
  self->trace = g_object_ref (trace);
  self->names = cp_name_cache_new (trace);
  cp_framework_detect (trace, &self->framework);
  _cp_analysis_find_devices_kind (self);
  {
    const CpLoadReport *report = cp_trace_get_load_report (trace);
    const CpStringPool *pool = cp_trace_get_string_pool (trace);

    self->is_xplane = report != NULL && report->format != NULL && g_str_has_prefix (report->format, "xplane");
    self->xla_by_args = g_hash_table_new (g_direct_hash, g_direct_equal);
    if (self->is_xplane)
      {
        self->n_xla_by_name = cp_string_pool_size (pool);
        self->xla_by_name = g_new0 (guint8, MAX (self->n_xla_by_name, 1));
        self->key_hlo_category = cp_string_pool_lookup (pool, "hlo_category");
        self->key_hlo_op = cp_string_pool_lookup (pool, "hlo_op");
        self->key_program_id = cp_string_pool_lookup (pool, "program_id");
      }
  }

  G_STATIC_ASSERT (G_N_ELEMENTS (phases) == CP_ANALYSIS_N_PHASES);
  for (guint i = 0; i < G_N_ELEMENTS (phases); i++)
    {
      double c0;

      if (!check_cancel (cancellable, error))
        return NULL;
      c0 = thread_cpu_seconds ();
      phases[i] (self);
      self->phase_cpu[i] = thread_cpu_seconds () - c0;
    }

  /* The per-lane unions of blocking calls served the phases only. */
  for (guint l = 0; l < self->n_lanes; l++)
    g_clear_pointer (&self->lanes[l].sync, cp_intervals_free);
  /* The rules read arguments all over the capture; their pages go back. */
  cp_trace_release_args_pages (trace);

  self->seconds = (g_get_monotonic_time () - t0) / 1e6;
  cp_timing_mark ("analysis-done");
  return g_steal_pointer (&self);
}

static void
analysis_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  GError *error = NULL;
  CpAnalysis *analysis = cp_analysis_new (task_data, cancellable, &error);

  if (analysis == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, analysis, g_object_unref);
}

void
cp_analysis_new_async (CpTrace             *trace,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CP_IS_TRACE (trace));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, cp_analysis_new_async);
  g_task_set_task_data (task, g_object_ref (trace), g_object_unref);
  g_task_run_in_thread (task, analysis_thread);
}

CpAnalysis *
cp_analysis_new_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cp_analysis_new_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Accessors */

CpTrace *
cp_analysis_get_trace (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  return self->trace;
}

double
cp_analysis_get_seconds (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), 0);
  return self->seconds;
}

CpStepSource
cp_analysis_get_step_source (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), CP_STEPS_NONE);
  return self->step_source;
}

const CpStepStats *
cp_analysis_get_steps (CpAnalysis *self,
                       guint      *n_steps)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_steps)
    *n_steps = self->steps->len;
  return (const CpStepStats *) self->steps->data;
}

gboolean
cp_analysis_has_steps (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  return self->steps->len > 0;
}

guint
cp_analysis_get_n_dropped_steps (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), 0);
  return self->n_dropped_steps;
}

const CpInterval *
cp_analysis_get_windows (CpAnalysis *self,
                         guint      *n_windows)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_windows)
    *n_windows = self->windows->len;
  return (const CpInterval *) self->windows->data;
}

gint64
cp_analysis_get_window_time (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), 0);
  return self->window_time;
}

gboolean
cp_analysis_get_warmup (CpAnalysis *self,
                        gint64     *start,
                        gint64     *end,
                        gint64     *compile_time)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  if (start)
    *start = self->warmup_start;
  if (end)
    *end = self->warmup_end;
  if (compile_time)
    *compile_time = self->warmup_compile;
  return self->warmup_end > self->warmup_start;
}

gboolean
cp_analysis_device_has_own_windows (CpAnalysis *self,
                                    gint        device)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  return self->device_windows != NULL &&
         g_hash_table_contains (self->device_windows, GINT_TO_POINTER (device));
}

const CpFrameworkInfo *
cp_analysis_get_framework (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  return &self->framework;
}

guint
cp_analysis_get_fix_order (CpAnalysis  *self,
                           CpFramework  order[CP_N_FRAMEWORKS])
{
  CpFramework lead;
  guint n = 0;
  gboolean known;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), 0);

  known = cp_framework_info_get_fixes_framework (&self->framework, &lead);
  if (known)
    order[n++] = lead;
  for (guint fw = 0; fw < CP_N_FRAMEWORKS; fw++)
    if (!known || fw != lead)
      order[n++] = fw;
  return known ? 1 : 0;
}

const CpRule * const *
cp_analysis_get_unchecked_rules (CpAnalysis *self,
                                 guint      *n_rules)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  *n_rules = self->not_checked->len;
  return (const CpRule * const *) self->not_checked->pdata;
}

CpDeviceKind
cp_analysis_get_rule_device_kind (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), CP_DEVICE_KIND_GPU);
  return self->devices_kind == CP_DEVICE_KIND_TPU && !self->devices_mixed ? CP_DEVICE_KIND_TPU
                                                                           : CP_DEVICE_KIND_GPU;
}

const char * const *
cp_analysis_get_notes (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  return (const char * const *) self->notes->pdata;
}

void
cp_analysis_get_time_summary (CpAnalysis     *self,
                              CpTimeCategory  category,
                              CpTimeSummary  *summary)
{
  g_return_if_fail (CP_IS_ANALYSIS (self));
  g_return_if_fail (category < CP_TIME_N_CATEGORIES);
  g_return_if_fail (summary != NULL);

  *summary = self->summary[category];
}

void
cp_analysis_get_step_summary (CpAnalysis    *self,
                              CpTimeSummary *summary)
{
  guint n = self->windows->len;

  g_return_if_fail (CP_IS_ANALYSIS (self));
  g_return_if_fail (summary != NULL);

  summary->total = self->window_time;
  summary->min = n ? G_MAXINT64 : 0;
  summary->max = 0;
  for (guint i = 0; i < n; i++)
    {
      const CpInterval *w = &g_array_index (self->windows, CpInterval, i);

      summary->min = MIN (summary->min, w->end - w->start);
      summary->max = MAX (summary->max, w->end - w->start);
    }
  summary->mean = n ? self->window_time / n : 0;
  summary->percent = n ? 100.0 : 0.0;
}

const CpIntervals *
cp_analysis_get_category_set (CpAnalysis     *self,
                              CpTimeCategory  category)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (category < CP_TIME_N_CATEGORIES, NULL);
  return self->exposed[category];
}

const CpDeviceStats *
cp_analysis_get_devices (CpAnalysis *self,
                         guint      *n_devices)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_devices)
    *n_devices = self->devices->len;
  return (const CpDeviceStats *) self->devices->data;
}

const CpTransferStats *
cp_analysis_get_transfers (CpAnalysis *self,
                           guint      *n_kinds)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_kinds)
    *n_kinds = CP_TRANSFER_N_KINDS;
  return self->transfers;
}

const CpKernelStats *
cp_analysis_get_kernels (CpAnalysis *self,
                         guint      *n_kernels)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_kernels)
    *n_kernels = self->kernels->len;
  return (const CpKernelStats *) self->kernels->data;
}

const CpHostOpStats *
cp_analysis_get_host_ops (CpAnalysis *self,
                          guint      *n_ops)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  if (n_ops)
    *n_ops = self->host_ops->len;
  return (const CpHostOpStats *) self->host_ops->data;
}

gint64
cp_analysis_get_kernel_time (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), 0);
  return self->kernel_time;
}

GListModel *
cp_analysis_get_findings (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  return G_LIST_MODEL (self->findings);
}

CpFinding *
cp_analysis_lookup_finding (CpAnalysis *self,
                            const char *rule_id)
{
  guint n;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (rule_id != NULL, NULL);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->findings));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (G_LIST_MODEL (self->findings), i);

      if (g_strcmp0 (cp_finding_get_rule_id (f), rule_id) == 0)
        return f;
    }
  return NULL;
}

gboolean
cp_analysis_get_worst_severity (CpAnalysis *self,
                                CpSeverity *severity)
{
  guint n;
  gboolean any = FALSE;
  CpSeverity worst = CP_SEVERITY_INFO;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->findings));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (G_LIST_MODEL (self->findings), i);

      worst = MAX (worst, cp_finding_get_severity (f));
      any = TRUE;
    }
  if (severity)
    *severity = worst;
  return any;
}

gboolean
cp_analysis_has_warnings (CpAnalysis *self)
{
  CpSeverity worst;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  return cp_analysis_get_worst_severity (self, &worst) && worst > CP_SEVERITY_INFO;
}

void
cp_analysis_collect_kernel_slices (CpAnalysis *self,
                                   CpStr       name,
                                   GArray     *out)
{
  g_return_if_fail (CP_IS_ANALYSIS (self));
  g_return_if_fail (out != NULL);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_KERNEL && self->lanes[l].kind != CP_LANE_TRANSFER)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (cp_slices_get_name (s, i) == name)
          {
            CpSliceRef ref = { l, i };

            g_array_append_val (out, ref);
          }
    }
}

void
cp_analysis_collect_host_slices (CpAnalysis *self,
                                 CpStr       name,
                                 GArray     *out)
{
  g_return_if_fail (CP_IS_ANALYSIS (self));
  g_return_if_fail (out != NULL);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (cp_slices_get_name (s, i) == name)
          {
            CpSliceRef ref = { l, i };

            g_array_append_val (out, ref);
          }
    }
}
