/* cp-rules-private.h: what the rule catalog, its evaluators and the
 * evaluation share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-analysis-private.h"
#include "cp-rules.h"

G_BEGIN_DECLS

/* What a capture already does, so that a fix is not offered as new. */
typedef enum
{
  APPLIED_TORCH_COMPILE = 1u << 0,
  APPLIED_CUDA_GRAPHS   = 1u << 1,
  APPLIED_AMP           = 1u << 2,
  APPLIED_PINNED        = 1u << 3,
  APPLIED_JAX_JIT       = 1u << 4,
  APPLIED_TF_FUNCTION   = 1u << 5,
} Applied;

/* What every device of the capture lacks, so that a fix that needs it
 * is not offered. */
typedef enum
{
  LACKS_TF32 = 1u << 0,   /* before Ampere (V100, T4), AMD before MI300 */
} Lacks;

typedef struct
{
  CpAnalysis  *self;
  gboolean     has_device;
  gboolean     device_untraced; /* launches recorded, their device work not */
  gboolean     has_host;
  guint        applied;         /* Applied */
  guint        lacks;           /* Lacks */
} Ctx;

/* One rule's evaluation: its finding (or NULL) and the time it accounts
 * for in *stake. */
typedef CpFinding *(*Evaluator) (Ctx *ctx, const CpRule *rule, CpIntervals **stake);

gboolean _cp_rule_devices_are_mtia (Ctx *ctx);
void _cp_rule_add_category_evidence (Ctx *ctx, CpFinding *f, CpTimeCategory cat, const CpIntervals *target);
void _cp_rule_add_metric (CpFinding *f, const CpRule *rule, const char *id, double value);
void _cp_rule_add_set_evidence (CpFinding *f, guint lane, const CpIntervals *set);
const char *_cp_rule_applied_fix (guint technique);
CpFinding *_cp_rule_eval_async (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_category (Ctx *ctx, const CpRule *rule, CpTimeCategory cat, const char *figure_id, const char *lead, CpIntervals **stake);
CpFinding *_cp_rule_eval_clocks (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_comm (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_dataparallel (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_gaps (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_host (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_input (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_launch (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_loader_single (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_memory (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_memory_fragmentation (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_memory_headroom (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_memory_leak (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_output (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_overlap (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_pageable (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_pipeline (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_precision (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_roofline (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_sync (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_transfer (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
CpFinding *_cp_rule_eval_utilization (Ctx *ctx, const CpRule *rule, CpIntervals **stake);
extern const char * const _cp_rule_fix_amp_tpu_jax[];
extern const char * const _cp_rule_fix_amp_tpu_tf[];
extern const char * const _cp_rule_fix_pipeline_tf[];
guint _cp_rule_fix_needs (const char *fix);
guint _cp_rule_fix_technique (const char *fix);
CpFinding *_cp_rule_new_finding (Ctx *ctx, const CpRule *rule, CpSeverity severity);
gboolean _cp_rule_passes (CpCompare compare, double value, double threshold);
gint64 _cp_rule_per_window (Ctx *ctx, gint64 t);
double _cp_rule_percent_of_windows (Ctx *ctx, gint64 t);
const char *_cp_rule_pipeline_stage_fix (const char *stage);
void _cp_rule_set_summary (Ctx *ctx, CpFinding *f, const CpRule *rule, const char *lead, double value);
CpIntervals *_cp_rule_windowed (Ctx *ctx, const CpIntervals *set);

G_END_DECLS
