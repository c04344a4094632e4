/* cp-verdict.c: the answer first: why the accelerator waits, in one sentence
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cp-analysis-private.h"
#include "cp-rules.h"

/* The idle causes come from the findings in the one order
 * (cp_findings_compare()): those above info in the idle section, one entry
 * per cause (the finding with the most time at stake stands for it), so the
 * causes are ranked by the device time they cost. Demoted findings are info
 * and never counted twice. Speed-ups follow, by name. */

static double
percent_of_windows (CpAnalysis *self,
                    gint64      t)
{
  return self->window_time > 0 ? 100.0 * (double) t / (double) self->window_time : 0.0;
}

double
_cp_analysis_busy_percent (CpAnalysis *self)
{
  double util = NAN;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);

      if (dev->n_kernels == 0)
        continue;
      if (isnan (util) || dev->utilization < util)
        util = dev->utilization;
    }
  return isnan (util) ? NAN : 100.0 * util;
}

/* Like the busy share, without the collectives: what the verdict says
 * beside communication, which the busy share counts as busy. */
static double
compute_percent (CpAnalysis *self)
{
  double least = NAN;

  for (guint d = 0; d < self->devices->len; d++)
    {
      const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
      const CpIntervals *w = self->device_windows != NULL ?
                             g_hash_table_lookup (self->device_windows, GINT_TO_POINTER (dev->device)) : NULL;
      double p;

      if (dev->n_kernels == 0 || dev->window_time <= 0)
        continue;
      p = 100.0 * cp_intervals_overlap_length (self->device_sets[d].compute, w != NULL ? w : self->window_set) /
          dev->window_time;
      if (isnan (least) || p < least)
        least = p;
    }
  return least;
}

static double
loading_percent (CpAnalysis *self)
{
  const CpIntervals *loading = self->cat_union[CP_TIME_INPUT_WAIT];
  g_autoptr(CpIntervals) inside = NULL;

  if (loading == NULL || loading->n == 0 || self->window_set == NULL)
    return NAN;
  inside = cp_intervals_intersect (loading, self->window_set);
  return percent_of_windows (self, cp_intervals_length (inside));
}

/* What the shares are of: steps, the whole capture, or the span where the
 * devices work (the steps found held too little of their work). */
typedef enum
{
  OF_STEPS,
  OF_CAPTURE,
  OF_SPAN,
} Of;

static Of
shares_of (CpAnalysis *self)
{
  if (cp_analysis_has_steps (self))
    return OF_STEPS;
  return self->step_source == CP_STEPS_DEVICE_SPAN ? OF_SPAN : OF_CAPTURE;
}

static char *
cause_phrase (CpAnalysis           *self,
              const CpVerdictCause *c,
              Of                    of)
{
  const char *word = self->verdict.device_word;

  /* No device: the data loading is all there is to say of the input. */
  if (c->cause == CP_IDLE_CAUSE_INPUT && self->verdict.host_only && of == OF_STEPS &&
      !isnan (self->verdict.loading_percent))
    /* Translators: the input cause of a capture without a device, "input:
     * data loading takes 85.2% of the step time". */
    return g_strdup_printf (_("input: data loading takes %.1f%% of the step time"), self->verdict.loading_percent);
  if (c->cause == CP_IDLE_CAUSE_INPUT && !isnan (self->verdict.loading_percent))
    switch (of)
      {
      case OF_STEPS:
        /* Translators: the input cause in the verdict: "input: data loading
         * takes 29.3% of the step time, 22.9% with the GPU idle". */
        return g_strdup_printf (_("input: data loading takes %.1f%% of the step time, %.1f%% with the %s idle"),
                                self->verdict.loading_percent, c->percent, word);
      case OF_SPAN:
        return g_strdup_printf (_("input: data loading takes %.1f%% of the span where the devices work, %.1f%% with the %s idle"),
                                self->verdict.loading_percent, c->percent, word);
      case OF_CAPTURE:
      default:
        return g_strdup_printf (_("input: data loading takes %.1f%% of the capture, %.1f%% with the %s idle"),
                                self->verdict.loading_percent, c->percent, word);
      }
  switch (of)
    {
    case OF_STEPS:
      /* Translators: an idle cause and the share of time it costs, "synchronisation (4.1% of the step time)". */
      return g_strdup_printf (_("%s (%.1f%% of the step time)"), cp_idle_cause_get_label (c->cause), c->percent);
    case OF_SPAN:
      return g_strdup_printf (_("%s (%.1f%% of the span where the devices work)"), cp_idle_cause_get_label (c->cause), c->percent);
    case OF_CAPTURE:
    default:
      return g_strdup_printf (_("%s (%.1f%% of the capture)"), cp_idle_cause_get_label (c->cause), c->percent);
    }
}

static gboolean
has_cause (const CpVerdict *v,
           CpIdleCause      cause)
{
  for (guint k = 0; k < v->n_causes; k++)
    if (v->causes[k].cause == cause)
      return TRUE;
  return FALSE;
}

static void
append_busy (CpAnalysis *self,
             GString    *s,
             Of          of)
{
  double busy = self->verdict.busy_percent;

  if (isnan (busy))
    return;
  g_string_append_c (s, ' ');
  /* Collectives are busy time: beside a wait for them, the share that
   * computes, so that the two do not read as a contradiction. */
  if (has_cause (&self->verdict, CP_IDLE_CAUSE_COMMUNICATION) && !isnan (self->verdict.compute_percent))
    {
      if (of == OF_STEPS)
        /* Translators: after a wait for communication: "It computes 34% of the step time, collectives apart." */
        g_string_append_printf (s, _("It computes %.0f%% of the step time, collectives apart."),
                                self->verdict.compute_percent);
      else
        g_string_append_printf (s, _("It computes %.0f%% of the time, collectives apart."),
                                self->verdict.compute_percent);
      return;
    }
  switch (of)
    {
    case OF_STEPS:
      /* Translators: after the causes: "It is busy 45% of the step time." */
      g_string_append_printf (s, _("It is busy %.0f%% of the step time."), busy);
      break;
    case OF_SPAN:
      g_string_append_printf (s, _("It is busy %.0f%% of the span where the devices work."), busy);
      break;
    case OF_CAPTURE:
    default:
      g_string_append_printf (s, _("It is busy %.0f%% of the capture."), busy);
      break;
    }
}

/* "The GPU is busy 95% of the step time." */
static void
append_busy_first (CpAnalysis *self,
                   GString    *s,
                   Of          of)
{
  const char *word = self->verdict.device_word;
  double busy = self->verdict.busy_percent;

  switch (of)
    {
    case OF_STEPS:
      /* Translators: the verdict of a busy device: "The GPU is busy 95% of the step time." */
      g_string_append_printf (s, _("The %s is busy %.0f%% of the step time."), word, busy);
      break;
    case OF_SPAN:
      g_string_append_printf (s, _("The %s is busy %.0f%% of the span where the devices work."), word, busy);
      break;
    case OF_CAPTURE:
    default:
      g_string_append_printf (s, _("The %s is busy %.0f%% of the capture."), word, busy);
      break;
    }
}

/* Devices that step at different times: what each waits for most, by the
 * flattened categories inside its own windows. */
static const struct
{
  CpTimeCategory category;
  CpIdleCause    cause;
} category_causes[] = {
  { CP_TIME_INPUT_WAIT, CP_IDLE_CAUSE_INPUT },
  { CP_TIME_COLLECTIVES, CP_IDLE_CAUSE_COMMUNICATION },
  { CP_TIME_LAUNCH, CP_IDLE_CAUSE_HOST },
  { CP_TIME_HOST_COMPUTE, CP_IDLE_CAUSE_HOST },
  { CP_TIME_RUNTIME, CP_IDLE_CAUSE_SYNC },
  { CP_TIME_HOST_TO_DEVICE, CP_IDLE_CAUSE_TRANSFERS },
  { CP_TIME_DEVICE_TO_HOST, CP_IDLE_CAUSE_TRANSFERS },
};

/* A device's own busy share and biggest wait; FALSE when it has no own
 * windows or no wait. */
static gboolean
device_wait (CpAnalysis      *self,
             guint            d,
             CpVerdictDevice *out)
{
  const CpDeviceStats *dev = &g_array_index (self->devices, CpDeviceStats, d);
  const CpIntervals *w = self->device_windows != NULL ?
                         g_hash_table_lookup (self->device_windows, GINT_TO_POINTER (dev->device)) : NULL;
  gint64 per_cause[CP_N_IDLE_CAUSES] = { 0 };
  gint64 len;

  if (w == NULL || dev->n_kernels == 0 || (len = cp_intervals_length (w)) == 0)
    return FALSE;
  for (guint k = 0; k < G_N_ELEMENTS (category_causes); k++)
    per_cause[category_causes[k].cause] += cp_intervals_overlap_length (self->exposed[category_causes[k].category], w);
  out->device = dev->device;
  out->busy_percent = 100.0 * dev->utilization;
  out->cause = CP_IDLE_CAUSE_NONE;
  out->percent = 0;
  for (guint c = CP_IDLE_CAUSE_NONE + 1; c < CP_N_IDLE_CAUSES; c++)
    if (per_cause[c] > 0 && 100.0 * per_cause[c] / len > out->percent)
      {
        out->cause = (CpIdleCause) c;
        out->percent = 100.0 * per_cause[c] / len;
      }
  return out->cause != CP_IDLE_CAUSE_NONE;
}

/* Out of step: per device, kept only when the devices disagree on what
 * they wait for most. */
static void
find_device_waits (CpAnalysis *self)
{
  CpVerdict *v = &self->verdict;
  gboolean differ = FALSE;

  v->n_devices = 0;
  if (!self->out_of_step)
    return;
  for (guint d = 0; d < self->devices->len && v->n_devices < CP_VERDICT_MAX_DEVICES; d++)
    if (device_wait (self, d, &v->devices[v->n_devices]))
      {
        differ |= v->n_devices > 0 && v->devices[v->n_devices].cause != v->devices[0].cause;
        v->n_devices++;
      }
  if (!differ)
    v->n_devices = 0;
}

static void
append_device_waits (CpAnalysis *self,
                     GString    *s)
{
  const CpVerdict *v = &self->verdict;

  if (v->n_devices == 0)
    return;
  g_string_append_c (s, ' ');
  /* Translators: before the devices' own waits, when devices step at different times. */
  g_string_append (s, _("The devices step at different times and wait for different things:"));
  for (guint k = 0; k < v->n_devices; k++)
    {
      g_string_append (s, k == 0 ? " " : "; ");
      /* Translators: "device 1 mostly for input (23.4% of its step time, busy 61%)". */
      g_string_append_printf (s, _("device %d mostly for %s (%.1f%% of its step time, busy %.0f%%)"),
                              v->devices[k].device, cp_idle_cause_get_label (v->devices[k].cause),
                              v->devices[k].percent, v->devices[k].busy_percent);
    }
  g_string_append_c (s, '.');
}

/* No device activity survived: no cause is named (the confidence says
 * why); the host's own share of data loading is still a fact. */
static void
append_withheld (CpAnalysis *self,
                 GString    *s)
{
  const CpVerdict *v = &self->verdict;

  /* Translators: the verdict when no device activity survived: "No GPU
   * activity survived in this capture: why the GPU waits cannot be told." */
  g_string_append_printf (s, _("No %s activity survived in this capture: why the %s waits cannot be told."),
                          v->device_word, v->device_word);
  if (!isnan (v->loading_percent))
    {
      g_string_append_c (s, ' ');
      /* Translators: after a withheld verdict, what the host shows. */
      g_string_append_printf (s, _("On the host, data loading takes %.1f%% of the step time."), v->loading_percent);
    }
}

void
_cp_analysis_build_verdict (CpAnalysis *self)
{
  CpVerdict *v = &self->verdict;
  GListModel *model = G_LIST_MODEL (self->findings);
  guint n = g_list_model_get_n_items (model);
  gboolean seen[CP_N_IDLE_CAUSES] = { FALSE, };
  Of of = shares_of (self);
  const char *symptom = NULL;
  g_autoptr(GString) s = g_string_new (NULL);
  g_autoptr(GPtrArray) speedup_titles = g_ptr_array_new ();
  const char *word;

  memset (v, 0, sizeof *v);
  v->device_word = word = cp_analysis_get_device_word (self);
  v->busy_percent = _cp_analysis_busy_percent (self);
  v->compute_percent = compute_percent (self);
  v->loading_percent = loading_percent (self);
  v->withheld = self->devices_unrecorded;
  v->host_only = self->host_only;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (model, i);
      const CpRule *rule = cp_rules_lookup (cp_finding_get_rule_id (f));
      CpFindingSection section = cp_finding_get_section (f);

      if (rule == NULL)
        continue;
      if (section == CP_FINDING_SECTION_IDLE)
        {
          CpVerdictCause *c;

          if (rule->idle_cause == CP_IDLE_CAUSE_NONE)
            {
              if (symptom == NULL)
                symptom = rule->id;
              continue;
            }
          if (seen[rule->idle_cause])
            continue;
          seen[rule->idle_cause] = TRUE;
          c = &v->causes[v->n_causes++];
          c->cause = rule->idle_cause;
          c->rule_id = rule->id;
          c->time = cp_finding_get_time_at_stake (f);
          c->percent = percent_of_windows (self, c->time);
        }
      else if (section == CP_FINDING_SECTION_SPEEDUP && v->n_speedups < CP_VERDICT_MAX_SPEEDUPS)
        {
          v->speedups[v->n_speedups++] = rule->id;
          g_ptr_array_add (speedup_titles, (gpointer) cp_finding_get_title (f));
        }
    }
  /* The model is in section order; keep the causes by time whatever breaks its ties. */
  for (guint a = 1; a < v->n_causes; a++)
    for (guint b = a; b > 0 && v->causes[b].time > v->causes[b - 1].time; b--)
      {
        CpVerdictCause tmp = v->causes[b];

        v->causes[b] = v->causes[b - 1];
        v->causes[b - 1] = tmp;
      }
  find_device_waits (self);

  if (v->withheld)
    {
      v->n_causes = 0;
      append_withheld (self, s);
    }
  else if (v->n_causes > 0)
    {
      g_autofree char *first = cause_phrase (self, &v->causes[0], of);

      v->primary_rule = v->causes[0].rule_id;
      if (v->host_only)
        /* Translators: the verdict's first words for a capture without a
         * device (a CPU-only run): "No device in the capture: on the host,
         * the step waits mostly for input: data loading takes…". */
        g_string_append_printf (s, _("No device in the capture: on the host, the step waits mostly for %s"), first);
      else
        /* Translators: the verdict's first words: "The GPU waits mostly for
         * input: data loading takes…". The second %s is a cause phrase. */
        g_string_append_printf (s, _("The %s waits mostly for %s"), word, first);
      for (guint k = 1; k < v->n_causes; k++)
        {
          g_autofree char *next = cause_phrase (self, &v->causes[k], of);

          g_string_append (s, "; ");
          /* Translators: a further cause in the verdict, "then synchronisation (4.1%…)". */
          g_string_append_printf (s, _("then %s"), next);
        }
      g_string_append_c (s, '.');
      append_busy (self, s, of);
    }
  else if (!isnan (v->busy_percent) && v->busy_percent >= CP_VERDICT_BUSY_PERCENT)
    {
      v->busy_first = TRUE;
      append_busy_first (self, s, of);
    }
  else if (symptom != NULL)
    {
      CpFinding *f = cp_analysis_lookup_finding (self, symptom);

      v->primary_rule = symptom;
      g_string_append_printf (s, _("The %s is often idle, and no single cause crosses its threshold (%s)."),
                              word, cp_finding_get_title (f));
      append_busy (self, s, of);
    }
  else if (v->host_only)
    /* Translators: the verdict of a capture without a device and nothing past the thresholds. */
    g_string_append (s, _("No device in the capture, and nothing on the host past the rules’ thresholds."));
  else
    {
      g_string_append_printf (s, _("Nothing keeps the %s waiting past the rules’ thresholds."), word);
      append_busy (self, s, of);
    }
  append_device_waits (self, s);

  if (v->n_speedups > 0)
    {
      g_autofree char *titles = NULL;

      if (v->primary_rule == NULL)
        v->primary_rule = v->speedups[0];
      g_ptr_array_add (speedup_titles, NULL);
      titles = g_strjoinv (", ", (char **) speedup_titles->pdata);
      g_string_append_c (s, ' ');
      if (v->busy_first || v->withheld || v->host_only)
        /* Translators: after "The GPU is busy 95% of the step time.": the
         * findings that make it faster. */
        g_string_append_printf (s, _("It can run faster: %s."), titles);
      else
        /* Translators: after the causes, the findings that speed up a busy
         * device: "Once it is busy, it can run faster: No mixed precision." */
        g_string_append_printf (s, _("Once it is busy, it can run faster: %s."), titles);
    }

  g_free (self->verdict_text);
  self->verdict_text = g_string_free (g_steal_pointer (&s), FALSE);
  v->text = self->verdict_text;

  for (guint k = 0; k < CP_N_FINDING_SECTIONS; k++)
    g_clear_pointer (&self->section_titles[k], g_free);
  /* Translators: the heading of the idle causes, "Why the GPU Waits". */
  if (self->devices_mixed)
    {
      /* Translators: the heading of the idle causes when GPUs and TPUs or
       * other accelerators are mixed. */
      self->section_titles[CP_FINDING_SECTION_IDLE] = g_strdup (_("Why the Devices Wait"));
      /* Translators: the heading of the speed-ups when device kinds are mixed. */
      self->section_titles[CP_FINDING_SECTION_SPEEDUP] = g_strdup (_("Speed-ups Once the Devices Are Busy"));
    }
  else
    {
      self->section_titles[CP_FINDING_SECTION_IDLE] = g_strdup_printf (_("Why the %s Waits"), word);
      /* Translators: the heading of the speed-ups, "Speed-ups Once the GPU Is Busy". */
      self->section_titles[CP_FINDING_SECTION_SPEEDUP] = g_strdup_printf (_("Speed-ups Once the %s Is Busy"),
                                                                          word);
    }
  self->section_titles[CP_FINDING_SECTION_INFO] = g_strdup (_("Also Noted"));
}

const CpVerdict *
cp_analysis_get_verdict (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  return &self->verdict;
}

void
_cp_analysis_find_devices_kind (CpAnalysis *self)
{
  guint n_dev = 0;

  self->devices_kind = CP_DEVICE_KIND_GPU;
  self->devices_mixed = FALSE;
  for (guint i = 0; i < cp_trace_get_n_processes (self->trace); i++)
    {
      const CpProcess *p = cp_trace_get_process (self->trace, i);
      CpDeviceKind kind;

      if (!p->is_device || p->device < 0)
        continue;
      kind = cp_process_get_device_kind (self->trace, p);
      if (n_dev++ == 0)
        self->devices_kind = kind;
      else if (kind != self->devices_kind)
        self->devices_mixed = TRUE;
    }
}

gboolean
cp_analysis_devices_are_tpu (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  return self->devices_kind == CP_DEVICE_KIND_TPU && !self->devices_mixed;
}

gboolean
cp_analysis_devices_are_mixed (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), FALSE);
  return self->devices_mixed;
}

const char *
cp_analysis_get_device_word (CpAnalysis *self)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);

  /* The one place that names the devices for people: "TPU" when every
   * device of the capture is one, "device" when kinds are mixed (a GPU
   * beside a TPU or another accelerator), else "GPU" (Kineto's devices,
   * XPlane GPU planes). */
  if (self->devices_mixed)
    /* Translators: the devices of a capture that mixes GPUs and TPUs or
     * other accelerators, "The device waits mostly for…", "Why the Device
     * Waits" (German: "die Recheneinheit", to agree with "die GPU"). */
    return C_("device word", "device");
  if (cp_analysis_devices_are_tpu (self))
    /* Translators: the devices of a TPU capture, "The TPU waits mostly for…". */
    return _("TPU");
  if (self->devices_kind == CP_DEVICE_KIND_MTIA)
    /* Translators: the devices of a capture of Meta's MTIA accelerators,
     * "The MTIA waits mostly for…" (a product name). */
    return _("MTIA");
  /* Translators: the devices of a GPU capture, "The GPU waits mostly for…". */
  return _("GPU");
}

const char *
cp_analysis_get_section_title (CpAnalysis       *self,
                               CpFindingSection  section)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (section < CP_N_FINDING_SECTIONS, NULL);

  return self->section_titles[section];
}
