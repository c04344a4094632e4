/* cp-rules-eval.c: evaluating the rules into findings: the shared helpers, the order, who explains what
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
#include "cp-roofline.h"
#include "cp-rules-private.h"
#include "cp-sweep.h"

/* Every device is one of Meta's MTIA. */
gboolean
_cp_rule_devices_are_mtia (Ctx *ctx)
{
  return ctx->self->devices_kind == CP_DEVICE_KIND_MTIA && !ctx->self->devices_mixed;
}

/* Replaces the device word in a fix for an all-TPU or all-MTIA capture:
 * "GPU" and "GPUs" as words, not inside a name (TF_GPU_THREAD_MODE).
 * Where kinds are mixed the fixes keep "GPU": they are the GPUs' fixes. */
static char *
device_fix (Ctx        *ctx,
            const char *fix)
{
  const char *word = cp_analysis_devices_are_tpu (ctx->self) ? "TPU" : _cp_rule_devices_are_mtia (ctx) ? "MTIA" : NULL;
  g_autoptr(GString) out = NULL;

  if (word == NULL || strstr (fix, "GPU") == NULL)
    return g_strdup (fix);
  out = g_string_new (NULL);
  for (const char *p = fix; *p != '\0';)
    {
      /* Only past a "GPU" is there a character after it to look at. */
      if (g_str_has_prefix (p, "GPU") && (p == fix || !(g_ascii_isalnum (p[-1]) || p[-1] == '_')))
        {
          const char *end = p[3] == 's' ? p + 4 : p + 3;

          if (!(g_ascii_isalnum (*end) || *end == '_'))
            {
              g_string_append (out, word);
              p += 3;
              continue;
            }
        }
      g_string_append_c (out, *p++);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

typedef struct
{
  const CpRule *rule;
  CpFinding    *finding;
  CpIntervals  *stake;      /* the time the finding accounts for */
  gint64        stake_time;
  gboolean      demoted;
} Result;

double
_cp_rule_percent_of_windows (Ctx    *ctx,
                    gint64  t)
{
  return ctx->self->window_time > 0 ? 100.0 * (double) t / (double) ctx->self->window_time : 0.0;
}

gint64
_cp_rule_per_window (Ctx    *ctx,
            gint64  t)
{
  guint n = ctx->self->windows->len;

  return n > 0 ? t / n : t;
}

CpFinding *
_cp_rule_new_finding (Ctx          *ctx,
             const CpRule *rule,
             CpSeverity    severity)
{
  const char *title = _(rule->title);
  CpFinding *f;

  /* On a TPU or an MTIA the symptoms say what the device is. */
  if (cp_analysis_devices_are_tpu (ctx->self))
    {
      if (g_str_equal (rule->id, "low-utilization"))
        title = _("Low TPU utilisation");
      else if (g_str_equal (rule->id, "gpu-gaps"))
        title = _("Long TPU gaps");
    }
  else if (_cp_rule_devices_are_mtia (ctx))
    {
      if (g_str_equal (rule->id, "low-utilization"))
        title = _("Low MTIA utilisation");
      else if (g_str_equal (rule->id, "gpu-gaps"))
        title = _("Long MTIA gaps");
    }
  f = cp_finding_new (rule->id, title, severity);

  /* Evidence per step and lane, so that F8 goes step by step; long gaps
   * stay one range each. */
  if (!g_str_equal (rule->id, "gpu-gaps"))
    cp_finding_set_evidence_windows (f, (const CpInterval *) ctx->self->windows->data, ctx->self->windows->len);

  cp_finding_set_source (f, _(rule->source));
  for (guint k = 0; k < CP_N_FRAMEWORKS; k++)
    {
      const char * const *src = rule->fixes[k];
      g_autoptr(GPtrArray) tr = g_ptr_array_new_with_free_func (g_free);
      guint replaced = 0;

      for (guint i = 0; src != NULL && src[i] != NULL; i++)
        {
          guint tech = _cp_rule_fix_technique (src[i]);

          /* A fix the devices cannot take (TF32 on a V100). */
          if (_cp_rule_fix_needs (src[i]) & ctx->lacks)
            continue;
          /* A fix the capture already applies: what to look at in it
           * instead, once. */
          if (tech != 0 && (ctx->applied & tech))
            {
              if (!(replaced & tech))
                g_ptr_array_add (tr, device_fix (ctx, _(_cp_rule_applied_fix (tech))));
              replaced |= tech;
              continue;
            }
          g_ptr_array_add (tr, device_fix (ctx, _(src[i])));
        }
      g_ptr_array_add (tr, NULL);
      cp_finding_set_fixes (f, (CpFramework) k, (const char * const *) tr->pdata);
    }
  return f;
}

/* The rule's metric as the first figure, with its thresholds. */
void
_cp_rule_add_metric (CpFinding    *f,
            const CpRule *rule,
            const char   *id,
            double        value)
{
  cp_finding_add_figure (f, id, _(rule->metric), value, rule->unit,
                         cp_compare_to_string (rule->compare), rule->moderate, rule->high);
}

static char *
format_value (double      value,
              const char *unit)
{
  if (g_strcmp0 (unit, "%") == 0)
    return g_strdup_printf ("%.1f%%", value);
  if (g_strcmp0 (unit, "ratio") == 0)
    return g_strdup_printf ("%.2f", value);
  if (g_strcmp0 (unit, "ms") == 0)
    return g_strdup_printf ("%.0f ms", value);
  return g_strdup_printf ("%.0f", value);
}

/* "lead Measured: 23.4% (moderate at >= 5%, high at >= 20%). Up to 41 ms per step." */
void
_cp_rule_set_summary (Ctx          *ctx,
             CpFinding    *f,
             const CpRule *rule,
             const char   *lead,
             double        value)
{
  g_autoptr(GString) s = g_string_new (lead);
  g_autofree char *v = format_value (value, rule->unit);
  const char *cmp = cp_compare_to_string (rule->compare);

  g_string_append_c (s, ' ');
  if (!isnan (rule->moderate) && !isnan (rule->high))
    {
      g_autofree char *m = format_value (rule->moderate, rule->unit);
      g_autofree char *h = format_value (rule->high, rule->unit);

      /* Translators: "Measured: 23.4% (moderate at >= 5%, high at >= 20%)." */
      g_string_append_printf (s, _("Measured: %s (moderate at %s %s, high at %s %s)."), v, cmp, m, cmp, h);
    }
  else if (!isnan (rule->moderate))
    {
      g_autofree char *m = format_value (rule->moderate, rule->unit);

      g_string_append_printf (s, _("Measured: %s (flagged at %s %s)."), v, cmp, m);
    }
  else
    g_string_append_printf (s, _("Measured: %s."), v);

  if (cp_finding_get_time_at_stake (f) > 0)
    {
      g_autofree char *d = cp_format_ns (cp_finding_get_time_at_stake_per_step (f));

      g_string_append_c (s, ' ');
      if (cp_analysis_has_steps (ctx->self))
        g_string_append_printf (s, _("Up to %s per step."), d);
      else
        {
          g_autofree char *total = cp_format_ns (cp_finding_get_time_at_stake (f));

          g_string_append_printf (s, _("Up to %s in the capture."), total);
        }
    }
  cp_finding_set_summary (f, s->str);
}

/* Evidence: the parts of a lane's category set inside target. */
typedef struct
{
  CpFinding *finding;
  guint      lane;
} EvidenceSink;

static void
add_one_evidence (gint64   start,
                  gint64   end,
                  gpointer user_data)
{
  EvidenceSink *sink = user_data;

  cp_finding_add_evidence (sink->finding, sink->lane, start, end);
}

void
_cp_rule_add_category_evidence (Ctx               *ctx,
                       CpFinding         *f,
                       CpTimeCategory     cat,
                       const CpIntervals *target)
{
  CpAnalysis *self = ctx->self;

  for (guint l = 0; l < self->n_lanes; l++)
    {
      EvidenceSink sink = { f, l };

      if (self->lanes[l].cat_count[cat] > 0)
        {
          g_autoptr(CpIntervals) set = _cp_analysis_class_union (self, &l, 1, 1u << cat);

          cp_intervals_foreach_intersection (set, target, add_one_evidence, &sink);
        }
    }
}

void
_cp_rule_add_set_evidence (CpFinding         *f,
                  guint              lane,
                  const CpIntervals *set)
{
  for (gsize k = 0; k < set->n; k++)
    cp_finding_add_evidence (f, lane, set->v[k].start, set->v[k].end);
}

CpIntervals *
_cp_rule_windowed (Ctx               *ctx,
          const CpIntervals *set)
{
  return cp_intervals_intersect (set, ctx->self->window_set);
}

/* A finding for an exposed-category metric (input, transfers, comm, launch). */
CpFinding *
_cp_rule_eval_category (Ctx            *ctx,
               const CpRule   *rule,
               CpTimeCategory  cat,
               const char     *figure_id,
               const char     *lead,
               CpIntervals   **stake)
{
  g_autoptr(CpIntervals) own = cp_intervals_ref (ctx->self->exposed[cat]);
  gint64 t = cp_intervals_length (own);
  double value = _cp_rule_percent_of_windows (ctx, t);
  CpSeverity sev;
  CpFinding *f;

  if (t == 0 || !cp_rule_grade (rule, value, &sev))
    return NULL;

  f = _cp_rule_new_finding (ctx, rule, sev);
  _cp_rule_add_metric (f, rule, figure_id, value);
  _cp_rule_add_category_evidence (ctx, f, cat, own);
  cp_finding_set_time_at_stake (f, t, _cp_rule_per_window (ctx, t));
  _cp_rule_set_summary (ctx, f, rule, lead, value);
  *stake = g_steal_pointer (&own);
  return f;
}



static Evaluator
evaluator_for (const char *id)
{
  static const struct { const char *id; Evaluator fn; } table[] = {
    { "pageable-memcpy", _cp_rule_eval_pageable },
    { "sync-stall", _cp_rule_eval_sync },
    { "input-pipeline", _cp_rule_eval_pipeline },
    { "input-bound", _cp_rule_eval_input },
    { "dataloader-single-process", _cp_rule_eval_loader_single },
    { "transfer-bound", _cp_rule_eval_transfer },
    { "async-wait", _cp_rule_eval_async },
    { "output-bound", _cp_rule_eval_output },
    { "comm-bound", _cp_rule_eval_comm },
    { "low-comm-overlap", _cp_rule_eval_overlap },
    { "launch-bound", _cp_rule_eval_launch },
    { "host-overhead", _cp_rule_eval_host },
    { "no-mixed-precision", _cp_rule_eval_precision },
    { "below-roofline", _cp_rule_eval_roofline },
    { "clock-throttling", _cp_rule_eval_clocks },
    { "memory-pressure", _cp_rule_eval_memory },
    { "memory-headroom", _cp_rule_eval_memory_headroom },
    { "memory-fragmentation", _cp_rule_eval_memory_fragmentation },
    { "memory-leak", _cp_rule_eval_memory_leak },
    { "dataparallel", _cp_rule_eval_dataparallel },
    { "low-utilization", _cp_rule_eval_utilization },
    { "gpu-gaps", _cp_rule_eval_gaps },
  };

  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (table[i].id, id) == 0)
      return table[i].fn;
  g_assert_not_reached ();
  return NULL;
}

/* Two findings explain the same time when it falls in the same device idle
 * gaps: a finding's time is widened to the whole gaps it touches (its
 * "extent"), plus its time outside any gap. PairStats holds, for findings R
 * and S, the lengths explains() needs; pair_stats() gets them in one sweep
 * over the gaps and both stakes, without building the widened sets. */
typedef struct
{
  gint64 r_ext;       /* |ext(R)| */
  gint64 s_ext;       /* |ext(S)| */
  gint64 shared;      /* |ext(R) ∩ ext(S)| */
  gint64 s_in_r;      /* |stake(S) ∩ ext(R)| */
  gint64 r_in_s;      /* |stake(R) ∩ ext(S)| */
} PairStats;

static inline gint64
next_boundary (const CpIntervals *set,
               gsize              i,
               gint64             t,
               gboolean          *inside)
{
  if (i >= set->n)
    {
      *inside = FALSE;
      return G_MAXINT64;
    }
  *inside = set->v[i].start <= t;
  return *inside ? set->v[i].end : set->v[i].start;
}

static void
pair_stats (const CpIntervals *gaps,
            const CpIntervals *r,
            const CpIntervals *s,
            PairStats         *out)
{
  gsize gi = 0, ri = 0, si = 0;
  gint64 t = G_MAXINT64, a_r = 0, a_s = 0;

  memset (out, 0, sizeof *out);
  if (gaps->n)
    t = MIN (t, gaps->v[0].start);
  if (r->n)
    t = MIN (t, r->v[0].start);
  if (s->n)
    t = MIN (t, s->v[0].start);

  while (t != G_MAXINT64)
    {
      gboolean in_g, in_r, in_s;
      gint64 ng = next_boundary (gaps, gi, t, &in_g);
      gint64 nr = next_boundary (r, ri, t, &in_r);
      gint64 ns = next_boundary (s, si, t, &in_s);
      gint64 next = MIN (ng, MIN (nr, ns));
      gint64 len = next == G_MAXINT64 ? 0 : next - t;

      if (in_g)
        {
          a_r += in_r ? len : 0;
          a_s += in_s ? len : 0;
        }
      else
        {
          out->r_ext += in_r ? len : 0;
          out->s_ext += in_s ? len : 0;
          if (in_r && in_s)
            {
              out->shared += len;
              out->s_in_r += len;
              out->r_in_s += len;
            }
        }

      if (in_g && next == ng)
        {
          /* The gap ends: widen whoever touched it. */
          gint64 glen = gaps->v[gi].end - gaps->v[gi].start;

          if (a_r > 0)
            {
              out->r_ext += glen;
              out->s_in_r += a_s;
            }
          if (a_s > 0)
            {
              out->s_ext += glen;
              out->r_in_s += a_r;
            }
          if (a_r > 0 && a_s > 0)
            out->shared += glen;
          a_r = a_s = 0;
        }
      if (in_g && next == ng)
        gi++;
      if (in_r && next == nr)
        ri++;
      if (in_s && next == ns)
        si++;
      t = next;
    }
}

/* S explains R when their extents share at least half of R's, and S's own
 * time in what they share is larger (or equal, with S ranked first). */
static gboolean
explains (const PairStats *p,
          gboolean         s_is_first,
          guint            s_rank,
          guint            r_rank)
{
  gint64 r_ext = s_is_first ? p->s_ext : p->r_ext;
  gint64 own_s = s_is_first ? p->r_in_s : p->s_in_r;
  gint64 own_r = s_is_first ? p->s_in_r : p->r_in_s;

  /* Within the shared part: S's stake lies inside ext(S), so its time in the
   * shared part is its time inside ext(R); likewise for R. */
  if (r_ext == 0 || 2 * p->shared < r_ext)
    return FALSE;
  return own_s > own_r || (own_s == own_r && s_rank < r_rank);
}

const char *
cp_idle_cause_to_string (CpIdleCause cause)
{
  switch (cause)
    {
    case CP_IDLE_CAUSE_INPUT: return "input";
    case CP_IDLE_CAUSE_HOST: return "host";
    case CP_IDLE_CAUSE_SYNC: return "sync";
    case CP_IDLE_CAUSE_COMMUNICATION: return "communication";
    case CP_IDLE_CAUSE_TRANSFERS: return "transfers";
    case CP_IDLE_CAUSE_NONE:
    case CP_N_IDLE_CAUSES:
    default:
      return NULL;
    }
}

const char *
cp_idle_cause_get_label (CpIdleCause cause)
{
  switch (cause)
    {
    /* Translators: idle causes, in "The GPU waits mostly for input". */
    case CP_IDLE_CAUSE_INPUT: return _("input");
    case CP_IDLE_CAUSE_HOST: return _("host overhead and launches");
    case CP_IDLE_CAUSE_SYNC: return _("synchronisation");
    case CP_IDLE_CAUSE_COMMUNICATION: return _("communication");
    case CP_IDLE_CAUSE_TRANSFERS: return _("copies between host and device");
    case CP_IDLE_CAUSE_NONE:
    case CP_N_IDLE_CAUSES:
    default:
      return NULL;
    }
}

CpFindingSection
cp_finding_get_section (CpFinding *finding)
{
  const CpRule *rule;

  g_return_val_if_fail (CP_IS_FINDING (finding), CP_FINDING_SECTION_INFO);

  if (cp_finding_get_severity (finding) <= CP_SEVERITY_INFO)
    return CP_FINDING_SECTION_INFO;
  rule = cp_rules_lookup (cp_finding_get_rule_id (finding));
  /* A risk (a leak) neither makes the device wait nor speeds it up. */
  if (rule != NULL && rule->kind == CP_RULE_RISK)
    return CP_FINDING_SECTION_INFO;
  if (rule != NULL && rule->kind == CP_RULE_CAUSE && rule->idle_cause == CP_IDLE_CAUSE_NONE)
    return CP_FINDING_SECTION_SPEEDUP;
  return CP_FINDING_SECTION_IDLE;
}

const char *
cp_finding_section_to_string (CpFindingSection section)
{
  switch (section)
    {
    case CP_FINDING_SECTION_IDLE: return "idle";
    case CP_FINDING_SECTION_SPEEDUP: return "speedup";
    case CP_FINDING_SECTION_INFO:
    case CP_N_FINDING_SECTIONS:
    default:
      return "info";
    }
}

gint
cp_findings_compare (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  CpFinding *x = (CpFinding *) a, *y = (CpFinding *) b;
  CpFindingSection sx = cp_finding_get_section (x), sy = cp_finding_get_section (y);
  gint64 tx = cp_finding_get_time_at_stake (x), ty = cp_finding_get_time_at_stake (y);
  const CpRule *rx, *ry;

  if (sx != sy)
    return sx < sy ? -1 : 1;
  if (tx != ty)
    return tx > ty ? -1 : 1;
  if (cp_finding_get_severity (x) != cp_finding_get_severity (y))
    return cp_finding_get_severity (x) > cp_finding_get_severity (y) ? -1 : 1;
  rx = cp_rules_lookup (cp_finding_get_rule_id (x));
  ry = cp_rules_lookup (cp_finding_get_rule_id (y));
  return rx < ry ? -1 : (rx > ry);
}

/* Waits that cannot be told or are not worth chasing become info, saying
 * why: when no device activity survived, nothing says the device waited;
 * when it is busy CP_VERDICT_BUSY_PERCENT of the window or more, what it
 * waits for (but communication, which the busy time includes) is small. */
static void
demote_waits (CpAnalysis *self,
              Result     *results,
              guint       n_rules)
{
  double busy = _cp_analysis_busy_percent (self);
  const char *word = cp_analysis_get_device_word (self);

  for (guint i = 0; i < n_rules; i++)
    {
      CpFinding *f = results[i].finding;
      const CpRule *rule = results[i].rule;
      g_autofree char *why = NULL;
      g_autofree char *summary = NULL;

      if (f == NULL || cp_finding_get_section (f) != CP_FINDING_SECTION_IDLE)
        continue;
      if (self->devices_unrecorded)
        /* Translators: after a finding's summary when the capture holds no device activity. */
        why = g_strdup_printf (_("No %s activity survived in the capture: whether the %s waited cannot be told."),
                               word, word);
      else if (!isnan (busy) && busy >= CP_VERDICT_BUSY_PERCENT && rule->kind == CP_RULE_CAUSE &&
               rule->idle_cause != CP_IDLE_CAUSE_COMMUNICATION && cp_finding_get_severity (f) == CP_SEVERITY_MODERATE)
        /* Translators: after a finding's summary: "The GPU is busy 95% of the time: this wait is small." */
        why = g_strdup_printf (_("The %s is busy %.0f%% of the time: this wait is small."), word, busy);
      if (why == NULL)
        continue;
      cp_finding_set_severity (f, CP_SEVERITY_INFO);
      summary = g_strconcat (cp_finding_get_summary (f), " ", why, NULL);
      cp_finding_set_summary (f, summary);
    }
}

/* What every device that runs kernels lacks, as far as the capture says
 * what they are: a device it does not describe may have anything. */
static guint
devices_lack (CpAnalysis *self)
{
  guint n = 0, no_tf32 = 0;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpDevice *info;

      if (dev->n_kernels == 0)
        continue;
      n++;
      info = cp_trace_find_device (self->trace, dev->device);
      if (info != NULL &&
          cp_device_tf32_support (cp_trace_get_string (self->trace, info->name),
                                  cp_trace_get_string (self->trace, info->vendor),
                                  info->compute_major) == CP_TF32_NO)
        no_tf32++;
    }
  return n > 0 && no_tf32 == n ? LACKS_TF32 : 0;
}

void
_cp_analysis_evaluate_rules (CpAnalysis *self)
{
  Ctx ctx = { self, FALSE, FALSE, FALSE, 0, 0 };
  CpDeviceKind kind = cp_analysis_get_rule_device_kind (self);
  const CpFrameworkInfo *fw = &self->framework;
  guint n_rules;
  const CpRule *rules = cp_rules_get_all (&n_rules);
  g_autofree Result *results = g_new0 (Result, n_rules);
  g_autofree guint *order = g_new (guint, n_rules);
  g_autofree PairStats *pairs = NULL;
  guint n_order = 0;

  _cp_analysis_memory (self);
  for (guint d = 0; d < self->devices->len; d++)
    if (g_array_index (self->devices, CpDeviceStats, d).n_kernels > 0 ||
        self->device_sets[d].ops->n > 0)
      ctx.has_device = TRUE;
  for (guint l = 0; l < self->n_lanes; l++)
    if (self->lanes[l].kind == CP_LANE_HOST_THREAD && cp_lane_get_n_slices (self->lanes[l].lane) > 0)
      ctx.has_host = TRUE;
  if (!ctx.has_device)
    _cp_analysis_add_note (self, "%s", _("The capture has no device activity: device rules were not checked"));
  else
    {
      guint64 ops = 0;

      for (guint d = 0; d < self->devices->len; d++)
        ops += g_array_index (self->devices, CpDeviceStats, d).n_kernels;
      for (guint k = 0; k < CP_TRANSFER_N_KINDS; k++)
        ops += self->transfers[k].count;
      /* Launch calls with (almost) no device work recorded: a CUDA graph
       * capture, or kernels the profiler did not record. Idle-time rules
       * would blame the host for time the device may have spent busy. */
      if (self->n_launch_calls >= 20 && ops * 10 < self->n_launch_calls)
        {
          ctx.has_device = FALSE;
          ctx.device_untraced = TRUE;
          _cp_analysis_add_note (self,
                                 _("%" PRIu64 " launch calls but only %" PRIu64 " device operations recorded "
                                   "(a CUDA graph capture, or device activity not traced): device rules were not checked"),
                                 self->n_launch_calls, ops);
        }
    }

  _cp_analysis_assess_confidence (self, ctx.has_device, ctx.device_untraced);

  /* What the capture already applies. */
  if (fw->framework == CP_DETECTED_PYTORCH && (fw->variants & CP_VARIANT_TORCH_COMPILE))
    ctx.applied |= APPLIED_TORCH_COMPILE;
  if (fw->framework == CP_DETECTED_PYTORCH && (fw->variants & CP_VARIANT_CUDA_GRAPHS))
    ctx.applied |= APPLIED_CUDA_GRAPHS;
  if (fw->framework == CP_DETECTED_JAX && (fw->variants & CP_VARIANT_JIT))
    ctx.applied |= APPLIED_JAX_JIT;
  if (fw->framework == CP_DETECTED_TENSORFLOW && (fw->variants & CP_VARIANT_TF_FUNCTION))
    ctx.applied |= APPLIED_TF_FUNCTION;
  {
    gint64 c16 = self->summary[CP_TIME_COMPUTE_16].total, c32 = self->summary[CP_TIME_COMPUTE_32].total;

    /* AMP: 16-bit kernels do most of the device compute. */
    if (c16 > 0 && c16 >= c32)
      ctx.applied |= APPLIED_AMP;
  }
  ctx.lacks = devices_lack (self);
  for (guint l = 0; l < self->n_lanes && !(ctx.applied & APPLIED_PINNED); l++)
    {
      const CpSlices *s;

      if (self->lanes[l].kind != CP_LANE_TRANSFER || cp_lane_get_transfer_kind (self->lanes[l].lane) != CP_TRANSFER_HTOD)
        continue;
      s = self->lanes[l].slices;
      for (guint i = 0; i < s->n; i++)
        if (s->flags[i] & CP_SLICE_PINNED)
          {
            ctx.applied |= APPLIED_PINNED;
            break;
          }
    }

  /* Rules for another framework or device kind: not checked, said once per
   * reason. */
  {
    g_autoptr(GHashTable) by_why = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, NULL);
    g_autoptr(GPtrArray) whys = g_ptr_array_new ();

    for (guint i = 0; i < n_rules; i++)
      {
        const char *why = NULL;
        GString *ids;

        if (cp_rule_applies (&rules[i], fw->framework, kind, &why))
          continue;
        g_ptr_array_add (self->not_checked, (gpointer) &rules[i]);
        ids = g_hash_table_lookup (by_why, why);
        if (ids == NULL)
          {
            ids = g_string_new (rules[i].id);
            g_hash_table_insert (by_why, (gpointer) why, ids);
            g_ptr_array_add (whys, (gpointer) why);
          }
        else
          g_string_append_printf (ids, ", %s", rules[i].id);
      }
    for (guint k = 0; k < whys->len; k++)
      {
        GString *ids = g_hash_table_lookup (by_why, g_ptr_array_index (whys, k));

        /* Translators: "Not checked (for PyTorch only): dataparallel, dataloader-single-process". */
        _cp_analysis_add_note (self, _("Not checked (%s): %s"), (const char *) g_ptr_array_index (whys, k), ids->str);
        g_string_free (ids, TRUE);
      }
  }

  for (guint i = 0; i < n_rules; i++)
    {
      Result *r = &results[i];
      CpIntervals *stake = NULL;

      r->rule = &rules[i];
      if (!cp_rule_applies (&rules[i], fw->framework, kind, NULL))
        continue;
      /* Time-based rules read device idle time that is not really idle. */
      if (ctx.device_untraced && !(g_str_equal (rules[i].id, "pageable-memcpy") ||
                                   g_str_equal (rules[i].id, "no-mixed-precision") ||
                                   g_str_has_prefix (rules[i].id, "memory-") ||
                                   g_str_equal (rules[i].id, "dataparallel")))
        continue;
      r->finding = evaluator_for (rules[i].id) (&ctx, &rules[i], &stake);
      if (r->finding == NULL)
        {
          cp_intervals_free (stake);
          continue;
        }
      r->stake = stake ? stake : cp_intervals_new ();
      r->stake_time = cp_intervals_length (r->stake);
      cp_finding_finish_evidence (r->finding);
      /* No finding without evidence. */
      if (cp_finding_get_evidence_total (r->finding) == 0)
        {
          g_clear_object (&r->finding);
          g_clear_pointer (&r->stake, cp_intervals_free);
        }
    }

  /* Causes that explain the same time: keep the one with the most of it. */
  for (guint i = 0; i < n_rules; i++)
    if (results[i].finding != NULL && rules[i].kind == CP_RULE_CAUSE &&
        cp_finding_get_severity (results[i].finding) > CP_SEVERITY_INFO)
      order[n_order++] = i;
  /* Largest stake first (insertion sort: at most a dozen entries). */
  for (guint a = 1; a < n_order; a++)
    for (guint b = a; b > 0 && results[order[b]].stake_time > results[order[b - 1]].stake_time; b--)
      {
        guint tmp = order[b];

        order[b] = order[b - 1];
        order[b - 1] = tmp;
      }
  /* Pair figures, once per pair: pairs[a * n + b] with a < b. */
  if (n_order > 1)
    {
      g_autoptr(CpIntervals) gaps = cp_intervals_subtract (self->window_set, self->all_ops);

      pairs = g_new0 (PairStats, n_order * n_order);
      for (guint a = 0; a < n_order; a++)
        for (guint b = a + 1; b < n_order; b++)
          pair_stats (gaps, results[order[a]].stake, results[order[b]].stake, &pairs[a * n_order + b]);
    }
  for (guint a = 0; a < n_order; a++)
    {
      Result *r = &results[order[a]];

      for (guint b = 0; b < n_order; b++)
        {
          Result *s = &results[order[b]];
          const PairStats *p;

          if (a == b || s->demoted)
            continue;
          /* pair_stats() was run as (first, second) = (lower, higher) index. */
          p = &pairs[MIN (a, b) * n_order + MAX (a, b)];
          if (explains (p, b < a, order[b], order[a]))
            {
              g_autofree char *summary = NULL;

              r->demoted = TRUE;
              cp_finding_demote (r->finding, s->rule->id);
              summary = g_strconcat (cp_finding_get_summary (r->finding), " ",
                                     _("Mostly the same time as another finding, which explains it:"), " ",
                                     s->rule->id, NULL);
              cp_finding_set_summary (r->finding, summary);
              break;
            }
        }
    }

  /* Symptoms are info when a cause above info remains. */
  {
    const Result *top = NULL;

    for (guint a = 0; a < n_order; a++)
      if (!results[order[a]].demoted)
        {
          top = &results[order[a]];
          break;
        }
    for (guint i = 0; i < n_rules; i++)
      {
        Result *r = &results[i];

        if (top != NULL && r->finding != NULL && rules[i].kind == CP_RULE_SYMPTOM &&
            cp_finding_get_severity (r->finding) > CP_SEVERITY_INFO)
          {
            g_autofree char *summary = g_strconcat (cp_finding_get_summary (r->finding), " ",
                                                    _("Explained by a cause above:"), " ",
                                                    top->rule->id, NULL);

            cp_finding_demote (r->finding, top->rule->id);
            cp_finding_set_summary (r->finding, summary);
          }
      }
  }

  demote_waits (self, results, n_rules);

  for (guint i = 0; i < n_rules; i++)
    {
      if (results[i].finding != NULL)
        g_list_store_insert_sorted (self->findings, results[i].finding, cp_findings_compare, NULL);
      g_clear_object (&results[i].finding);
      cp_intervals_free (results[i].stake);
    }
  _cp_analysis_build_verdict (self);
}
