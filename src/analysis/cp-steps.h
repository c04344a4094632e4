/* cp-steps.h: from step markers to the time windows the analysis uses
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-types.h"
#include "cp-intervals.h"

G_BEGIN_DECLS

/* One step as the markers give it, with the device work it launched. */
typedef struct
{
  gint64     number;
  gint64     host_start;
  gint64     host_end;
  gint64     device_end;   /* end of the last device op launched from inside
                            * the host span; G_MININT64 when none */
  guint      n_ops;        /* device ops launched from inside the host span */
  CpSliceRef marker;
} CpStepSpan;

/* Markers with the same step number (several threads or ranks) become one
 * span from the earliest start to the latest end. The result is sorted by
 * host start. Returns a new array of CpStepSpan. */
GArray  *cp_steps_merge_markers (const CpStep *steps,
                                 guint         n_steps);

/* The TensorBoard plugin's step windows (event_parser.py,
 * _update_steps_duration): start = max(previous window end, host start),
 * end = max(host end, device_end). Empty windows are dropped. With
 * drop_incomplete, trailing steps that launched nothing are dropped, and so is
 * the last step when it launched < 0.8x the ops of the one before.
 *
 * spans must be sorted by host start. keep[i] tells whether spans[i] got a
 * window; windows receives the kept windows in order. Returns the number of
 * windows. */
guint    cp_steps_windows       (const CpStepSpan *spans,
                                 guint             n_spans,
                                 gboolean          drop_incomplete,
                                 gboolean         *keep,
                                 CpInterval       *windows);

/* Robust outliers among durations: |0.6745 (x - median) / MAD| > 3.5 (the
 * modified z-score XProf's straggler test uses), with the MAD floored at 1% of
 * the median so identical steps do not make every small wobble an outlier.
 * Needs at least 3 values; outlier[i] is set for each. */
void     cp_steps_find_outliers (const gint64     *durations,
                                 guint             n,
                                 gboolean         *outlier);

/* How many leading iterations are a warm-up (start-up, compilation,
 * autotuning, first launches) to leave out of the steady window: with at
 * least 3 iterations, the leading ones that are outliers
 * (cp_steps_find_outliers()) and at least CP_STEPS_WARMUP_RATIO times the
 * median, at most a third of them and never all but one; with 2, the first
 * when it is CP_STEPS_WARMUP_PAIR_RATIO times the second or more. */
#define CP_STEPS_WARMUP_RATIO      1.5
#define CP_STEPS_WARMUP_PAIR_RATIO 4.0

guint    cp_steps_find_warmup   (const gint64     *durations,
                                 guint             n);
/* The median of n durations (0 when n is 0). */
gint64   cp_steps_median        (const gint64     *durations,
                                 guint             n);

G_END_DECLS
