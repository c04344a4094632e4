/* cp-roofline.h: a performance model per kernel and host op: FLOPs and
 * bytes from the capture, the device's peaks, and how close each runs to
 * its roofline
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "model/cp-types.h"

G_BEGIN_DECLS

/* The precision a kernel computes in, which picks its compute ceiling. */
typedef enum
{
  CP_PRECISION_FP32,
  CP_PRECISION_TF32,
  CP_PRECISION_16,          /* bf16 / fp16 (tensor cores, MXU) */
  CP_PRECISION_FP8,
  CP_PRECISION_INT8,
  CP_N_PRECISIONS
} CpPrecision;

const char *cp_precision_to_string (CpPrecision precision);

/* A row of the table of known devices (cp-devices-table.c): dense peaks
 * from the vendor's datasheet; 0 where the device has no such unit or the
 * vendor states none. */
typedef struct
{
  const char *name;                       /* "NVIDIA H100 SXM" */
  double      tflops[CP_N_PRECISIONS];    /* dense TFLOP/s (TOP/s for int8) */
  double      bandwidth;                  /* memory bandwidth, GB/s */
} CpDevicePeak;

/* The row for a device name as deviceProperties or an XPlane plane write it
 * ("NVIDIA A100-SXM4-80GB", "TPU v6 Lite", "AMD Instinct MI300X"), or NULL
 * when the device is not in the table. total_memory (bytes, -1 unknown)
 * tells the A100's 40 and 80 GB apart when the name does not. */
const CpDevicePeak *cp_device_peak_lookup (const char *name,
                                           gint64      total_memory);
const CpDevicePeak *cp_device_peak_table  (guint      *n_rows);

/* The dense peaks (TFLOP/s per precision, 0 where the device has no such
 * unit) of an NVIDIA GPU the table does not name, from its compute
 * capability, SM count and SM clock (kHz) and the FLOPs its architecture
 * does per SM and clock (cp-devices-table.c cites them); name tells
 * GeForce cards apart. FALSE when a figure is missing or the architecture
 * is not known: nothing is guessed then. */
gboolean            cp_device_peak_from_properties (const char *name,
                                                    gint        compute_major,
                                                    gint        compute_minor,
                                                    gint        num_sms,
                                                    gint64      clock_khz,
                                                    double      tflops[CP_N_PRECISIONS]);

/* Whether a device multiplies in TF32 (NVIDIA from Ampere, compute
 * capability 8.0, on; AMD from CDNA 3, the MI300 series), from what the
 * capture says of it: its compute capability (NVIDIA), else its name
 * (V100, T4, P100, MI250...: no; A100, H100, L4, MI300X...: yes). TPUs
 * have none. UNKNOWN when the capture does not say enough. */
typedef enum
{
  CP_TF32_UNKNOWN,
  CP_TF32_NO,
  CP_TF32_YES,
} CpTf32Support;

CpTf32Support       cp_device_tf32_support (const char *name,
                                            const char *vendor,
                                            gint        compute_major);

/* Where a kernel's FLOPs come from, weakest last: an estimate wins when a
 * kernel's launches mix sources. */
typedef enum
{
  CP_FLOPS_NONE,
  CP_FLOPS_MEASURED,        /* XPlane `flops` / `bytes_accessed` stats */
  CP_FLOPS_COUNTED,         /* Kineto `flops` argument (with_flops=True) */
  CP_FLOPS_ESTIMATED,       /* from the op's `Input Dims` (record_shapes=True) */
} CpFlopsSource;

const char *cp_flops_source_to_string (CpFlopsSource source);

typedef enum
{
  CP_BOUND_UNKNOWN,
  CP_BOUND_MEMORY,
  CP_BOUND_COMPUTE,
} CpBound;

const char *cp_bound_to_string (CpBound bound);

/* Where a device's peaks come from. */
typedef enum
{
  CP_PEAK_UNKNOWN,          /* "peak unknown": never guessed */
  CP_PEAK_CAPTURE,          /* the capture states them (XPlane plane stats) */
  CP_PEAK_TABLE,            /* the table of known devices */
  CP_PEAK_PROPERTIES,       /* estimated from the device's SMs and clock */
} CpPeakSource;

const char *cp_peak_source_to_string (CpPeakSource source);

/* The model of one kernel name, or one host op name. */
typedef struct
{
  CpStr         name;
  guint         count;          /* launches (kernels) or calls (ops) */
  gint64        time;           /* Σ device time */
  gint64        timed;          /* of which launches with FLOPs */
  double        flops;          /* Σ FLOPs over those */
  double        bytes;          /* Σ bytes over launches with FLOPs and bytes */
  double        flops_with_bytes; /* Σ FLOPs over the same launches */
  gint64        bytes_time;     /* their time */
  CpFlopsSource source;
  gboolean      inherited;      /* FLOPs came from the launching op by share of time */
  CpPrecision   precision;
  gint          device;         /* ordinal of the device with its time */
  CpPeakSource  peak_source;
  double        peak_tflops;    /* the ceiling for its precision, 0 unknown */
  double        peak_bandwidth; /* GB/s, 0 unknown */
  double        achieved_tflops;/* NAN without FLOPs */
  double        achieved_gbs;   /* NAN without bytes */
  double        intensity;      /* FLOP per byte, NAN without bytes */
  double        roofline_percent; /* achieved / min (peak, intensity · bandwidth), NAN unknown */
  CpBound       bound;
} CpRooflineStats;

/* The ceiling at an intensity (FLOP/byte) in TFLOP/s: min (peak,
 * intensity · bandwidth); the peak alone when the intensity or the
 * bandwidth is unknown; 0 when the peak is. */
double      cp_roofline_ceiling    (double peak_tflops,
                                    double bandwidth_gbs,
                                    double intensity);
/* Fills achieved_*, intensity, roofline_percent and bound from the sums
 * and the peaks. */
void        cp_roofline_stats_finish (CpRooflineStats *stats);

/* FLOPs and bytes of one op from its name and its recorded shapes: "Input
 * Dims" (an array per input), "Input type" (element types, may be NULL) and
 * "Concrete Inputs" (scalars as text, may be NULL), each as parsed
 * JSON-like arrays handed in as strings of the array elements. Returns
 * FALSE when the op has no formula or the shapes do not fit it; *bytes is
 * NAN when the element types are unknown. precision is that of the first
 * floating-point input. */
typedef struct
{
  guint         n_inputs;
  gint          rank[16];        /* -1: not a tensor */
  gint64        dims[16][8];
  guint         elem_size[16];   /* 0 unknown */
  gboolean      is_float[16];
  CpPrecision   precision[16];
  const char   *concrete[16];    /* NULL unknown */
} CpOpShapes;

gboolean    cp_roofline_op_flops   (const char       *op_name,
                                    const CpOpShapes *shapes,
                                    double           *flops,
                                    double           *bytes,
                                    CpPrecision      *precision);

G_END_DECLS
