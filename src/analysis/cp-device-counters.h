/* cp-device-counters.h: a device's power, temperature and SM clock from
 * the counters of the capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "cp-analysis.h"

G_BEGIN_DECLS

/* What a counter measures, from its name (case aside): power ("power":
 * milliwatts when the name says "mw", as XPlane's and cp-gen's power_mw,
 * else watts), temperature ("temp", °C) and the SM clock ("clock" or
 * "clk" but not a memory clock: MHz, or kHz / GHz when the name says). */
typedef enum
{
  CP_DEVICE_COUNTER_POWER,
  CP_DEVICE_COUNTER_TEMPERATURE,
  CP_DEVICE_COUNTER_CLOCK,
  CP_N_DEVICE_COUNTERS
} CpDeviceCounter;

/* One counter of a device: its samples inside the analysis windows (all
 * of them when none falls inside), in W, °C or MHz. */
typedef struct
{
  guint  lane;       /* G_MAXUINT: the capture has none */
  double scale;      /* the lane's values times this are W, °C or MHz */
  guint  n_samples;
  double mean;       /* the samples' mean */
  double min;
  double max;
} CpCounterStats;

/* A device's counters: the lane of the device's process, or a Kineto
 * counter process named after it ("GPU 0 Counters"). */
typedef struct
{
  gint           device;     /* ordinal */
  CpCounterStats counters[CP_N_DEVICE_COUNTERS];
} CpDeviceCounters;

/* The device's counters, NULL when it has none of the three. */
const CpDeviceCounters *cp_analysis_get_device_counters (CpAnalysis *self,
                                                         gint        device);
/* Whether any device has a counter of that kind. */
gboolean                cp_analysis_has_device_counter  (CpAnalysis      *self,
                                                         CpDeviceCounter  counter);

/* The device's power_w {mean, max}, temperature_c {mean, max} and
 * sm_clock_mhz {mean, min, max} members (null when absent), for
 * diagnose --json's devices[]. */
void                    _cp_device_counters_write_json  (CpAnalysis  *self,
                                                         JsonBuilder *b,
                                                         gint         device);

G_END_DECLS
