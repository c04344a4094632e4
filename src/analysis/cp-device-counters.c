/* cp-device-counters.c: a device's power, temperature and SM clock from
 * the counters of the capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cp-analysis-private.h"
#include "cp-device-counters.h"
#include "cp-json-util.h"

/* What a counter lane measures, and the factor to W, °C or MHz; FALSE
 * for any other counter. */
static gboolean
counter_kind (const char      *name,
              CpDeviceCounter *kind,
              double          *scale)
{
  g_autofree char *n = g_ascii_strdown (name != NULL ? name : "", -1);

  *scale = 1.0;
  if (strstr (n, "power") != NULL)
    {
      *kind = CP_DEVICE_COUNTER_POWER;
      if (strstr (n, "mw") != NULL)
        *scale = 1e-3;
      return TRUE;
    }
  if (strstr (n, "temp") != NULL)
    {
      *kind = CP_DEVICE_COUNTER_TEMPERATURE;
      return TRUE;
    }
  if ((strstr (n, "clock") != NULL || strstr (n, "clk") != NULL) && strstr (n, "mem") == NULL)
    {
      *kind = CP_DEVICE_COUNTER_CLOCK;
      if (strstr (n, "khz") != NULL)
        *scale = 1e-3;
      else if (strstr (n, "ghz") != NULL)
        *scale = 1e3;
      return TRUE;
    }
  return FALSE;
}

/* "GPU 0 Counters", "GPU 3": the ordinal, or -1. */
static gint
ordinal_in_name (const char *name)
{
  char *end = NULL;
  guint64 n;

  if (name == NULL || !g_str_has_prefix (name, "GPU ") || !g_ascii_isdigit (name[4]))
    return -1;
  n = g_ascii_strtoull (name + 4, &end, 10);
  if (n > G_MAXINT16 || (*end != '\0' && *end != ' '))
    return -1;
  return (gint) n;
}

/* The device a counter lane belongs to: the lane's, its process's (a
 * device process, XPlane's _counters_ line), or the one Kineto's counter
 * process is named after; -1 when none. */
static gint
counter_device (CpTrace *trace,
                CpLane  *lane)
{
  const CpProcess *p = cp_trace_get_process (trace, cp_lane_get_process (lane));
  gint d = cp_lane_get_device (lane);

  if (d >= 0)
    return d;
  if (p == NULL)
    return -1;
  if (p->is_device && p->device >= 0)
    return p->device;
  d = ordinal_in_name (cp_trace_get_string (trace, p->name));
  return d >= 0 ? d : ordinal_in_name (cp_trace_get_string (trace, p->key));
}

/* The samples inside the windows, else all of them. */
static void
counter_stats (CpAnalysis     *self,
               guint           l,
               double          scale,
               CpCounterStats *st)
{
  const gint64 *ts;
  const double *values;
  guint n = cp_lane_get_counter (self->lanes[l].lane, &ts, &values);
  gboolean any_inside = FALSE;
  double sum = 0;

  for (guint i = 0; i < n && !any_inside; i++)
    any_inside = cp_intervals_length_in (self->window_set, ts[i], ts[i] + 1) > 0;
  st->lane = l;
  st->scale = scale;
  st->n_samples = 0;
  st->min = st->max = NAN;
  for (guint i = 0; i < n; i++)
    {
      double v = values[i] * scale;

      if (!isfinite (v) || (any_inside && cp_intervals_length_in (self->window_set, ts[i], ts[i] + 1) == 0))
        continue;
      sum += v;
      st->min = st->n_samples == 0 ? v : MIN (st->min, v);
      st->max = st->n_samples == 0 ? v : MAX (st->max, v);
      st->n_samples++;
    }
  st->mean = st->n_samples > 0 ? sum / st->n_samples : NAN;
}

static CpDeviceCounters *
counters_for (GArray *all,
              gint    device)
{
  CpDeviceCounters fresh = { device, { { 0 } } };

  for (guint k = 0; k < all->len; k++)
    if (g_array_index (all, CpDeviceCounters, k).device == device)
      return &g_array_index (all, CpDeviceCounters, k);
  for (guint c = 0; c < CP_N_DEVICE_COUNTERS; c++)
    {
      fresh.counters[c].lane = G_MAXUINT;
      fresh.counters[c].mean = fresh.counters[c].min = fresh.counters[c].max = NAN;
    }
  g_array_append_val (all, fresh);
  return &g_array_index (all, CpDeviceCounters, all->len - 1);
}

/* Fills self->device_counters once: per device, the first counter of each
 * kind that has samples. */
static void
device_counters (CpAnalysis *self)
{
  if (self->device_counters != NULL)
    return;
  self->device_counters = g_array_new (FALSE, TRUE, sizeof (CpDeviceCounters));
  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLane *lane = self->lanes[l].lane;
      CpDeviceCounter kind;
      CpDeviceCounters *dc;
      double scale;
      gint device;

      if (self->lanes[l].kind != CP_LANE_COUNTER || cp_lane_get_counter (lane, NULL, NULL) == 0 ||
          !counter_kind (cp_lane_get_name (lane), &kind, &scale))
        continue;
      device = counter_device (self->trace, lane);
      if (device < 0)
        continue;
      dc = counters_for (self->device_counters, device);
      if (dc->counters[kind].lane == G_MAXUINT)
        counter_stats (self, l, scale, &dc->counters[kind]);
    }
}

const CpDeviceCounters *
cp_analysis_get_device_counters (CpAnalysis *self,
                                 gint        device)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);

  device_counters (self);
  for (guint k = 0; k < self->device_counters->len; k++)
    if (g_array_index (self->device_counters, CpDeviceCounters, k).device == device)
      return &g_array_index (self->device_counters, CpDeviceCounters, k);
  return NULL;
}

gboolean
cp_analysis_has_device_counter (CpAnalysis      *self,
                                CpDeviceCounter  counter)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  g_return_val_if_fail (counter < CP_N_DEVICE_COUNTERS, FALSE);

  device_counters (self);
  for (guint k = 0; k < self->device_counters->len; k++)
    if (g_array_index (self->device_counters, CpDeviceCounters, k).counters[counter].n_samples > 0)
      return TRUE;
  return FALSE;
}

static void
write_counter (JsonBuilder          *b,
               const char           *key,
               const CpCounterStats *st,
               gboolean              with_min)
{
  json_builder_set_member_name (b, key);
  if (st == NULL || st->n_samples == 0)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  _cp_json_add_double (b, "mean", st->mean);
  if (with_min)
    _cp_json_add_double (b, "min", st->min);
  _cp_json_add_double (b, "max", st->max);
  _cp_json_add_int (b, "samples", st->n_samples);
  json_builder_end_object (b);
}

void
_cp_device_counters_write_json (CpAnalysis  *self,
                                JsonBuilder *b,
                                gint         device)
{
  const CpDeviceCounters *dc = cp_analysis_get_device_counters (self, device);

  write_counter (b, "power_w", dc ? &dc->counters[CP_DEVICE_COUNTER_POWER] : NULL, FALSE);
  write_counter (b, "temperature_c", dc ? &dc->counters[CP_DEVICE_COUNTER_TEMPERATURE] : NULL, FALSE);
  write_counter (b, "sm_clock_mhz", dc ? &dc->counters[CP_DEVICE_COUNTER_CLOCK] : NULL, TRUE);
}
