/* cp-compare.h: two captures and what matches between them
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A CpComparison reads two analysed captures, A (before) and B (after), and
 * matches what they share:
 *
 *   steps       in order: A's i-th step with B's i-th step; a typical step
 *               on each side, the median one by duration unless another is
 *               chosen (cp_comparison_set_typical_step());
 *   categories  of the time breakdown (CpTimeCategory), per step;
 *   kernels     by normalised name (cp_compare_normalise_kernel_name()), or
 *               by the host op that launched them (CP_COMPARE_KERNELS_BY_OP:
 *               each op's "device self" kernels);
 *   host ops    by name;
 *   devices     by ordinal and kind;
 *   findings    by rule id: appeared, disappeared, changed severity.
 *
 * Every matched item carries count, total, mean and per-step time on each
 * side, the delta (B − A, per step) and the ratio (B / A, per step). Per-step
 * figures divide a capture-wide total by that side's number of analysis
 * windows, so captures of different lengths compare. Items found on one
 * side only are kept, marked CP_COMPARE_ONLY_A or CP_COMPARE_ONLY_B.
 *
 * Captures from different producers (Chrome JSON and XPlane) share the
 * model, but not every figure means the same in both:
 * cp_comparison_get_comparable() says which groups may be read side by
 * side, and cp_comparison_get_notes() says why a group is not.
 *
 * The comparison holds references to both analyses; it is immutable once
 * built except for the typical steps.
 */

#pragma once

#include "cp-analysis.h"

G_BEGIN_DECLS

typedef enum
{
  CP_COMPARE_KERNELS_BY_NAME,  /* normalised kernel name */
  CP_COMPARE_KERNELS_BY_OP,    /* the deepest host op enclosing the launch */
} CpCompareKernelKey;

/* How steps pair up: A's i-th with B's i-th, or by their step number
 * (ProfilerStep#N, step_num), for captures that profiled different steps. */
typedef enum
{
  CP_COMPARE_STEPS_IN_ORDER,
  CP_COMPARE_STEPS_BY_NUMBER,
} CpCompareStepMatch;

typedef enum
{
  CP_COMPARE_BOTH,
  CP_COMPARE_ONLY_A,
  CP_COMPARE_ONLY_B,
} CpCompareSide;

/* Groups of figures, for cp_comparison_get_comparable(). */
typedef enum
{
  CP_COMPARE_GROUP_STEPS      = 1 << 0,
  CP_COMPARE_GROUP_CATEGORIES = 1 << 1,
  CP_COMPARE_GROUP_KERNELS    = 1 << 2,
  CP_COMPARE_GROUP_HOST_OPS   = 1 << 3,
  CP_COMPARE_GROUP_DEVICES    = 1 << 4,
} CpCompareGroup;

/* One side of a matched item. */
typedef struct
{
  gint64 count;
  gint64 total;      /* ns */
  gint64 mean;       /* total / count; 0 when count is 0 */
  gint64 per_step;   /* total / that side's windows */
} CpCompareFigures;

typedef struct
{
  const char       *key;       /* what it is matched by: normalised name, category id, "GPU 0" */
  const char       *name_a;    /* A's full name with the most time; NULL when only in B */
  const char       *name_b;    /* B's likewise; NULL when only in A */
  guint             n_names_a; /* full names folded into the key on each side */
  guint             n_names_b;
  CpCompareSide     side;
  CpCompareFigures  a;
  CpCompareFigures  b;
  gint64            delta;     /* b.per_step − a.per_step */
  double            ratio;     /* b.per_step / a.per_step; NAN when a.per_step is 0 */
  gint              id;        /* CpTimeCategory for categories, ordinal for devices, else -1 */
} CpCompareItem;

/* Devices match by ordinal and kind; when each side has one device of the
 * same kind, those two match whatever their ordinals (two ranks of one
 * job), and ordinal_b says B's. */
typedef struct
{
  gint      ordinal;         /* A's, or B's when only in B */
  gint      ordinal_b;
  CpDeviceKind kind;
  CpCompareSide side;
  double    utilization_a;   /* fraction; NAN on the side without it */
  double    utilization_b;
  gint64    kernel_time_a;   /* per step */
  gint64    kernel_time_b;
  gint64    idle_a;          /* per step */
  gint64    idle_b;
} CpCompareDevice;

typedef struct
{
  guint   index;             /* A's, in cp_analysis_get_steps() */
  guint   index_b;           /* B's: index in order, the step of A's number
                              * by number */
  gint64  number_a;
  gint64  number_b;
  gint64  duration_a;
  gint64  duration_b;
  gint64  delta;
} CpCompareStep;

typedef enum
{
  CP_COMPARE_FINDING_APPEARED,      /* only in B */
  CP_COMPARE_FINDING_DISAPPEARED,   /* only in A */
  CP_COMPARE_FINDING_WORSE,         /* in both, higher severity in B */
  CP_COMPARE_FINDING_BETTER,        /* in both, lower severity in B */
  CP_COMPARE_FINDING_SAME,          /* in both, same severity */
} CpCompareFindingChange;

typedef struct
{
  const char             *rule_id;
  const char             *title;      /* translated */
  CpCompareFindingChange  change;
  CpFinding              *a;          /* NULL when it appeared */
  CpFinding              *b;          /* NULL when it disappeared */
} CpCompareFinding;

const char *cp_compare_side_to_string           (CpCompareSide          side);
const char *cp_compare_finding_change_to_string (CpCompareFindingChange change);
const char *cp_compare_kernel_key_to_string     (CpCompareKernelKey     key);
const char *cp_compare_group_to_string          (CpCompareGroup         group);

/* The name kernels are matched by (newly allocated): a leading "void "
 * dropped; template arguments <...> folded to "<>", except that a launcher
 * whose own name says nothing ("cutlass::Kernel2", "cub::…::kernel",
 * "device_kernel") keeps its first argument ("cutlass::Kernel2<NAME>",
 * "…<NAME, …>"); parameter lists "(...)" dropped; hexadecimal addresses
 * ("0x" starting a word) folded to "0x"; ROCm's ".kd" (kernel descriptor) suffix dropped; and a
 * trailing instance number (".12", "_3", "#4": XLA, Triton and
 * launch-numbered names) dropped. */
char       *cp_compare_normalise_kernel_name    (const char *name);

#define CP_COMPARE_ERROR (cp_compare_error_quark ())

/* Why a pair does not compare (cp_comparison_check()). */
typedef enum
{
  CP_COMPARE_ERROR_NO_STEPS,           /* one side has steps, the other none */
  CP_COMPARE_ERROR_NO_KERNELS,         /* one side has kernels, the other none */
  CP_COMPARE_ERROR_NO_COMMON_KERNELS,  /* both have kernels, none matches */
} CpCompareError;

GQuark      cp_compare_error_quark              (void);

#define CP_TYPE_COMPARISON (cp_comparison_get_type ())

G_DECLARE_FINAL_TYPE (CpComparison, cp_comparison, CP, COMPARISON, GObject)

/* Compares two analyses (blocking, pure: both are only read). */
CpComparison        *cp_comparison_new              (CpAnalysis         *a,
                                                     CpAnalysis         *b,
                                                     CpCompareKernelKey  kernel_key);

/* Whether the pair compares at all: FALSE, with an error for people
 * (translated, naming A and B), when one side has steps and the other none,
 * one side has kernels and the other none, or no kernel matches. The
 * command line refuses such pairs; the window says why. */
gboolean             cp_comparison_check            (CpComparison  *self,
                                                     GError       **error);

CpAnalysis          *cp_comparison_get_a            (CpComparison *self);
CpAnalysis          *cp_comparison_get_b            (CpComparison *self);
CpCompareKernelKey   cp_comparison_get_kernel_key   (CpComparison *self);

/* Which groups of figures mean the same on both sides (CpCompareGroup
 * bits): all of them for two captures of one format; for Chrome against
 * XPlane the host ops are not (the producers name them differently), and
 * kernels or host ops are not when none of them matches. */
guint                cp_comparison_get_comparable   (CpComparison *self);
/* Why a group is not comparable, and other statements about the pair
 * (translated, NULL-terminated). */
const char * const  *cp_comparison_get_notes        (CpComparison *self);

/* Mean step (window) duration per side, the delta B − A and the change in
 * percent of A (NAN when A's mean is 0). */
void                 cp_comparison_get_step_time    (CpComparison *self,
                                                     gint64       *mean_a,
                                                     gint64       *mean_b,
                                                     gint64       *delta,
                                                     double       *percent);
/* Steps matched in order (min(steps of A, steps of B) pairs), or by number
 * (the steps whose number both sides have, in A's order). */
const CpCompareStep *cp_comparison_get_steps        (CpComparison *self,
                                                     guint        *n_steps);
/* Pairs the steps again, in order or by number; FALSE (and the steps stay
 * as they were) when by number finds no number on both sides. The typical
 * steps and the per-step figures do not change: they are each side's. */
gboolean             cp_comparison_set_step_match   (CpComparison       *self,
                                                     CpCompareStepMatch  match);
CpCompareStepMatch   cp_comparison_get_step_match   (CpComparison *self);
/* "order", "number". */
const char          *cp_compare_step_match_to_string (CpCompareStepMatch match);
/* Steps on each side (what was matched and what was not). */
void                 cp_comparison_get_n_steps      (CpComparison *self,
                                                     guint        *n_a,
                                                     guint        *n_b);

/* The typical step of a side (0 for A, 1 for B), an index into that side's
 * cp_analysis_get_steps(); -1 when the side has no steps. It starts as the
 * median step by duration. */
gint                 cp_comparison_get_typical_step (CpComparison *self,
                                                     guint         side);
/* Chooses another typical step; FALSE (and no change) when index is out of
 * range. Emits notify::typical-step-a or -b. */
gboolean             cp_comparison_set_typical_step (CpComparison *self,
                                                     guint         side,
                                                     guint         index);

/* The matched items. Categories are in CpTimeCategory order (those with
 * time on either side); kernels, host ops by |delta|, largest first. */
const CpCompareItem *cp_comparison_get_categories   (CpComparison *self,
                                                     guint        *n_items);
const CpCompareItem *cp_comparison_get_kernels      (CpComparison *self,
                                                     guint        *n_items);
const CpCompareItem *cp_comparison_get_host_ops     (CpComparison *self,
                                                     guint        *n_items);
const CpCompareDevice *cp_comparison_get_devices    (CpComparison *self,
                                                     guint        *n_devices);
/* Findings, in B's findings order then A's disappeared ones in A's order. */
const CpCompareFinding *cp_comparison_get_findings  (CpComparison *self,
                                                     guint        *n_findings);

/* The kernel item with this key (a normalised name or, by op, an op name),
 * or NULL. A full name is normalised first; otherwise a part of a key
 * finds it when no other key holds that part. */
const CpCompareItem *cp_comparison_lookup_kernel    (CpComparison *self,
                                                     const char   *name);
/* Host ops by call path: the ops around each op on its thread, outermost
 * first, joined by " > " ("aten::linear > aten::addmm"), so one op called
 * from two places is two items. Worked out on the first call (one walk of
 * each side's host threads). */
const CpCompareItem *cp_comparison_get_host_op_paths (CpComparison *self,
                                                      guint        *n_items);
/* The slices of one side (0 for A, 1 for B) that an item of
 * cp_comparison_get_kernels(), cp_comparison_get_host_ops() or
 * cp_comparison_get_host_op_paths() stands for,
 * appended to out (CpSliceRef), for highlighting the match on both
 * timelines: the device slices of every full name folded into a kernel
 * key; the host slices of an op (with CP_COMPARE_KERNELS_BY_OP, a kernel
 * item's op). */
void                 cp_comparison_collect_slices   (CpComparison        *self,
                                                     const CpCompareItem *item,
                                                     guint                side,
                                                     GArray              *out);
/* Total kernel time per step on each side (all devices). */
void                 cp_comparison_get_kernel_time  (CpComparison *self,
                                                     gint64       *per_step_a,
                                                     gint64       *per_step_b);
/* Share of kernel time, in percent of each side's kernel time, that the
 * kernels found on both sides hold. */
void                 cp_comparison_get_kernel_match (CpComparison *self,
                                                     double       *percent_a,
                                                     double       *percent_b);

/* What explains the change of the mean step time: the categories whose
 * per-step delta adds up to it (they partition the step), largest |delta|
 * first, written into out (at most CP_TIME_N_CATEGORIES); returns how many. */
guint                cp_comparison_explain          (CpComparison        *self,
                                                     const CpCompareItem **out);

/* The comparison as JSON (docs/compare-json.md). */
#define CP_COMPARE_JSON_SCHEMA_VERSION 1
char                *cp_comparison_to_json          (CpComparison *self,
                                                     gboolean      pretty);

G_END_DECLS
