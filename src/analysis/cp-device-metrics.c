/* cp-device-metrics.c: per-device utilisation, SM efficiency, occupancy, the
 * idle split, launch statistics, comm/compute overlap and copy bandwidth
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "cp-analysis-private.h"
#include "cp-heap.h"


/* Est. SM efficiency (TB gpu_metrics_parser): eff(t) = min(Σ blocks per SM of
 * the kernels running at t, 1), integrated over the windows. */
typedef struct
{
  CpHeap               active;   /* ends of running kernels, value = blocks per SM */
  gint64             t;
  double             sum;
  double             integral; /* ns */
  const CpIntervals *windows;
  gboolean           any;
} SmSweep;

static void
sm_advance (SmSweep *sw,
            gint64   to)
{
  if (to <= sw->t)
    return;
  if (sw->sum > 0)
    sw->integral += MIN (sw->sum, 1.0) * cp_intervals_length_in (sw->windows, sw->t, to);
  sw->t = to;
}

static void
sm_add_kernel (SmSweep *sw,
               gint64   start,
               gint64   end,
               double   blocks_per_sm)
{
  while (sw->active.n > 0 && sw->active.v[0].key <= start)
    {
      CpHeapItem it = _cp_heap_pop (&sw->active);

      sm_advance (sw, it.key);
      sw->sum -= it.value;
    }
  if (sw->active.n == 0)
    sw->sum = 0; /* no float drift between busy periods */
  sm_advance (sw, start);
  sw->sum += blocks_per_sm;
  _cp_heap_push (&sw->active, (CpHeapItem) { end, 0, (float) blocks_per_sm });
  sw->any = TRUE;
}

static void
sm_finish (SmSweep *sw)
{
  while (sw->active.n > 0)
    {
      CpHeapItem it = _cp_heap_pop (&sw->active);

      sm_advance (sw, it.key);
      sw->sum -= it.value;
    }
  g_free (sw->active.v);
  sw->active.v = NULL;
}

static CpTransferKind
copy_kind (CpAnalysis *self,
           guint       lane,
           guint32     nf)
{
  const CpLaneInfo *info = &self->lanes[lane];
  CpTransferKind kind = CP_TRANSFER_NONE;

  if (info->kind == CP_LANE_TRANSFER)
    kind = cp_lane_get_transfer_kind (info->lane);
  if (kind == CP_TRANSFER_NONE || kind == CP_TRANSFER_OTHER)
    {
      CpTransferKind by_name = cp_classify_copy_kind (nf);

      if (by_name != CP_TRANSFER_NONE)
        kind = by_name;
    }
  if (kind == CP_TRANSFER_NONE)
    kind = CP_TRANSFER_OTHER;
  return kind;
}

#define KERNEL_CATS ((1u << CP_TIME_COMPUTE_16) | (1u << CP_TIME_COMPUTE_32) | (1u << CP_TIME_COLLECTIVES))
#define COMPUTE_CATS ((1u << CP_TIME_COMPUTE_16) | (1u << CP_TIME_COMPUTE_32))
#define ALL_CATS ((1u << CP_TIME_IDLE) - 1)

static void
device_pass (CpAnalysis *self,
             guint       d)
{
  CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
  CpDeviceSets *sets = &self->device_sets[d];
  const CpInterval *windows = (const CpInterval *) self->windows->data;
  guint n_windows = self->windows->len;
  g_autofree guint *cursor = g_new0 (guint, MAX (sets->lanes->len, 1));
  g_autofree gint64 *lane_kernel_time = g_new0 (gint64, MAX (sets->lanes->len, 1));
  CpHeap order = { 0 };
  SmSweep sm = { 0 };
  double occ_weighted = 0, occ_time = 0;
  gint64 running_end = G_MININT64;
  gint64 gap_host = 0, gap_kernel = 0;
  guint wcur = 0;
  /* The device's own windows when it has steps of its own. */
  const CpIntervals *window_set = self->device_windows != NULL ?
                                  g_hash_table_lookup (self->device_windows, GINT_TO_POINTER (dev->device)) : NULL;
  gint64 window_time;
  /* Its kernels, compute, collectives, all its ops and its async waits. */
  static const guint32 union_masks[] = { KERNEL_CATS, COMPUTE_CATS, 1u << CP_TIME_COLLECTIVES, ALL_CATS,
                                         1u << CP_TIME_ASYNC_WAIT };
  CpIntervals *unions[G_N_ELEMENTS (union_masks)];
  CpIntervals *by_class[CP_TIME_IDLE] = { NULL };

  if (window_set == NULL)
    window_set = self->window_set;
  window_time = window_set == self->window_set ? self->window_time : cp_intervals_length (window_set);
  sm.windows = window_set;

  /* Merge the device's lanes by start time. */
  for (guint k = 0; k < sets->lanes->len; k++)
    {
      const CpSlices *s = self->lanes[g_array_index (sets->lanes, guint, k)].slices;

      if (s->n > 0)
        _cp_heap_push (&order, (CpHeapItem) { cp_slices_get_start (s, 0), k, 0 });
    }

  while (order.n > 0)
    {
      CpHeapItem it = _cp_heap_pop (&order);
      guint k = it.tag;
      guint l = g_array_index (sets->lanes, guint, k);
      const CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s = info->slices;
      guint i = cursor[k]++;
      gint64 start = cp_slices_get_start (s, i), dur = cp_slices_get_dur (s, i), end = start + dur;
      guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
      CpSliceClass c = _cp_analysis_slice_class (self, l, i);
      CpSliceRef launch = info->launch ? info->launch[i] : CP_SLICE_REF_NONE;
      gint64 launch_start = G_MININT64;

      if (cursor[k] < s->n)
        _cp_heap_push (&order, (CpHeapItem) { cp_slices_get_start (s, cursor[k]), k, 0 });
      if (c < 0)
        continue;
      /* The device's time per class, in the same pass (slices come by
       * start); the unions of classes below. */
      if (dur > 0)
        {
          if (by_class[c] == NULL)
            by_class[c] = cp_intervals_new ();
          cp_intervals_add_sorted (by_class[c], start, end);
        }

      /* Launch statistics (HTA H3). */
      if (launch.lane != G_MAXUINT32)
        {
          const CpSlices *hs = self->lanes[launch.lane].slices;
          gint64 cpu_dur = cp_slices_get_dur (hs, launch.index);
          gint64 delay;

          launch_start = cp_slices_get_start (hs, launch.index);
          delay = MAX (0, start - (launch_start + cpu_dur));
          dev->n_launched++;
          if (cpu_dur <= CP_HTA_SHORT_LAUNCH_NS && dur < cpu_dur)
            {
              dev->n_short++;
              dev->short_time = cp_sat_add (dev->short_time, dur);
            }
          if (cpu_dur > CP_HTA_RUNTIME_OUTLIER_NS)
            dev->n_runtime_outliers++;
          if (delay > CP_HTA_DELAY_OUTLIER_NS)
            dev->n_delay_outliers++;
          dev->launch_delay_total = cp_sat_add (dev->launch_delay_total, delay);
          dev->launch_delay_max = MAX (dev->launch_delay_max, delay);
        }

      /* Idle split (HTA H2) on the device's merged timeline. */
      if (running_end != G_MININT64 && start > running_end)
        {
          gint64 in_windows = cp_intervals_length_in (window_set, running_end, start);

          if (in_windows > 0)
            {
              if (launch_start != G_MININT64 && launch_start > running_end)
                gap_host += in_windows;
              else if (start - running_end < CP_HTA_KERNEL_WAIT_NS)
                gap_kernel += in_windows;
            }
        }
      if (end > running_end)
        running_end = end;

      if (info->kind == CP_LANE_KERNEL &&
          (c == CP_TIME_COMPUTE_16 || c == CP_TIME_COMPUTE_32 || c == CP_TIME_COLLECTIVES))
        {
          const CpGpuInfo *g = cp_slices_get_gpu (s, i) ? _cp_analysis_gpu_info (self, l, i) : NULL;

          dev->n_kernels++;
          dev->kernel_time = cp_sat_add (dev->kernel_time, dur);
          lane_kernel_time[k] = cp_sat_add (lane_kernel_time[k], dur);
          if (nf & CP_NAME_TENSOR_CORE)
            dev->tensor_core_time = cp_sat_add (dev->tensor_core_time, dur);
          if (nf & CP_NAME_HALF)
            dev->half_time = cp_sat_add (dev->half_time, dur);
          if (dur < CP_SMALL_KERNEL_NS)
            {
              dev->n_kernels_under_10us++;
              dev->time_under_10us = cp_sat_add (dev->time_under_10us, dur);
            }

          /* Kernels per step: the window the kernel starts in. */
          while (wcur < n_windows && windows[wcur].end <= start)
            wcur++;
          if (wcur < n_windows && windows[wcur].start <= start && wcur < self->steps->len)
            g_array_index (self->steps, CpStepStats, wcur).n_kernels++;

          if (g != NULL && dur > 0)
            {
              if (isfinite (g->blocks_per_sm) && g->blocks_per_sm > 0)
                sm_add_kernel (&sm, start, end, g->blocks_per_sm);
              if (isfinite (g->occupancy) && g->occupancy >= 0)
                {
                  gint64 in_w = cp_intervals_length_in (window_set, start, end);

                  occ_weighted += g->occupancy * (double) in_w;
                  occ_time += in_w;
                }
            }
        }
      else if (c == CP_TIME_ASYNC_WAIT)
        {
          dev->n_async_ops++;
          dev->async_time = cp_sat_add (dev->async_time, dur);
        }
      else
        {
          CpTransferStats *t = &self->transfers[copy_kind (self, l, nf)];
          const CpGpuInfo *g = cp_slices_get_gpu (s, i) ? _cp_analysis_gpu_info (self, l, i) : NULL;

          if ((nf & CP_NAME_MEMSET) && info->kind == CP_LANE_KERNEL)
            t = &self->transfers[CP_TRANSFER_MEMSET];
          t->count++;
          t->time = cp_sat_add (t->time, dur);
          if (g != NULL && g->bytes >= 0)
            {
              t->bytes = cp_sat_add (t->bytes, g->bytes);
              if (dur > 0)
                {
                  double gbps = (double) g->bytes / (double) dur;

                  t->peak_bandwidth = isnan (t->peak_bandwidth) ? gbps : MAX (t->peak_bandwidth, gbps);
                  self->copy_bytes_timed[t->kind] = cp_sat_add (self->copy_bytes_timed[t->kind], g->bytes);
                  self->copy_time_timed[t->kind] = cp_sat_add (self->copy_time_timed[t->kind], dur);
                }
            }
          if ((s->flags[i] & CP_SLICE_PAGEABLE) || (nf & CP_NAME_PAGEABLE))
            {
              t->n_pageable++;
              t->pageable_time = cp_sat_add (t->pageable_time, dur);
            }
        }
    }
  g_free (order.v);
  sm_finish (&sm);

  for (guint m = 0; m < G_N_ELEMENTS (union_masks); m++)
    {
      CpIntervals *parts[CP_TIME_IDLE];
      guint n = 0;

      for (guint c = 0; c < CP_TIME_IDLE; c++)
        if ((union_masks[m] & (1u << c)) && by_class[c] != NULL)
          parts[n++] = by_class[c];
      unions[m] = cp_intervals_union_many (parts, n);
    }
  for (guint c = 0; c < CP_TIME_IDLE; c++)
    cp_intervals_free (by_class[c]);
  sets->kernels = unions[0];
  sets->compute = unions[1];
  sets->comm = unions[2];
  sets->ops = unions[3];
  dev->async_wait = cp_intervals_overlap_length (unions[4], window_set);
  cp_intervals_free (unions[4]);
  dev->kernel_busy = cp_intervals_length (sets->kernels);
  dev->window_busy = cp_intervals_overlap_length (sets->kernels, window_set);
  dev->window_time = window_time;
  dev->utilization = window_time > 0 ? (double) dev->window_busy / window_time : 0.0;
  if (sm.any && window_time > 0)
    dev->sm_efficiency = sm.integral / (double) window_time;
  if (occ_time > 0)
    dev->achieved_occupancy = occ_weighted / occ_time;

  dev->idle = window_time - cp_intervals_overlap_length (sets->ops, window_set);
  dev->idle_host_wait = gap_host;
  dev->idle_kernel_wait = gap_kernel;
  dev->idle_other = MAX (0, dev->idle - gap_host - gap_kernel);

  {
    g_autoptr(CpIntervals) comm_w = cp_intervals_intersect (sets->comm, window_set);

    dev->comm_time = cp_intervals_length (comm_w);
    dev->comm_overlap = cp_intervals_overlap_length (comm_w, sets->compute);
  }

  /* The lane to show device-wide evidence on. */
  {
    gint64 best = -1;

    for (guint k = 0; k < sets->lanes->len; k++)
      {
        guint l = g_array_index (sets->lanes, guint, k);

        if (self->lanes[l].kind == CP_LANE_KERNEL && lane_kernel_time[k] > best)
          {
            best = lane_kernel_time[k];
            dev->lane = l;
          }
      }
    if (dev->lane == G_MAXUINT && sets->lanes->len > 0)
      dev->lane = g_array_index (sets->lanes, guint, 0);
  }
}

void
_cp_analysis_device_metrics (CpAnalysis *self)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  for (guint k = 0; k < CP_TRANSFER_N_KINDS; k++)
    {
      self->transfers[k].kind = (CpTransferKind) k;
      self->transfers[k].bandwidth = NAN;
      self->transfers[k].peak_bandwidth = NAN;
    }

  self->device_sets = g_new0 (CpDeviceSets, MAX (self->devices->len, 1));
  for (guint d = 0; d < self->devices->len; d++)
    self->device_sets[d].lanes = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint l = 0; l < self->n_lanes; l++)
    if (self->lanes[l].device_index >= 0)
      g_array_append_val (self->device_sets[self->lanes[l].device_index].lanes, l);

  for (guint d = 0; d < self->devices->len; d++)
    {
      device_pass (self, d);
      g_ptr_array_add (all, self->device_sets[d].ops);
    }
  self->all_ops = cp_intervals_union_many ((CpIntervals * const *) all->pdata, all->len);

  /* Average bandwidth (GB/s = bytes/ns): Σ bytes / Σ time of the copies
   * that state both. */
  for (guint k = 0; k < CP_TRANSFER_N_KINDS; k++)
    if (self->copy_time_timed[k] > 0)
      self->transfers[k].bandwidth = (double) self->copy_bytes_timed[k] / (double) self->copy_time_timed[k];
}
