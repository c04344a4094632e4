/* cp-confidence.c: how far the verdict can be trusted, said aloud
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The figures are exact counts over the window; what can mislead is the
 * window and the capture themselves. Each reason names one such doubt and
 * the level it alone allows; the confidence is the lowest of them:
 *
 * truncated           the input ended early (low): what followed is missing
 * damaged             events could not be read (medium)
 * no-device-events    no device activity survived though the capture names
 *                     devices or launches work (low), or it has no device at
 *                     all (medium: the causes are read from the host alone)
 * few-steps           fewer than CP_CONFIDENCE_MIN_STEPS steady steps (a
 *                     device's, when devices step apart) (medium)
 * unrecorded          more than CP_CONFIDENCE_MAX_UNRECORDED of the window
 *                     has nothing recorded on host or device (medium)
 * window-coverage     the steps found hold less than
 *                     CP_CONFIDENCE_MIN_COVERAGE of the device busy time, or
 *                     the window fell back to the span where the devices
 *                     work (medium)
 * devices-out-of-step the devices step at different times (medium)
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "cp-analysis-private.h"
#include "model/cp-load-report.h"

#define CP_CONFIDENCE_MIN_STEPS        3
#define CP_CONFIDENCE_MAX_UNRECORDED   0.5
#define CP_CONFIDENCE_MIN_COVERAGE     0.9

static void
clear_reason (gpointer data)
{
  CpConfidenceReason *r = data;

  g_free ((char *) r->text);
}

static void
add_reason (CpAnalysis        *self,
            const char        *id,
            CpConfidenceLevel  level,
            char              *text)
{
  CpConfidenceReason r = { id, level, text };

  g_array_append_val (self->confidence_reasons, r);
  self->confidence = MAX (self->confidence, level);
}

/* The fewest steady steps of a device (when devices step apart) or in all. */
static guint
fewest_steps (CpAnalysis *self)
{
  g_autoptr(GHashTable) per_device = NULL;
  GHashTableIter it;
  gpointer value;
  guint fewest = G_MAXUINT;

  if (!self->out_of_step)
    return self->steps->len;
  per_device = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < self->steps->len; i++)
    {
      gpointer key = GINT_TO_POINTER (g_array_index (self->steps, CpStepStats, i).device);

      g_hash_table_insert (per_device, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (per_device, key)) + 1));
    }
  g_hash_table_iter_init (&it, per_device);
  while (g_hash_table_iter_next (&it, NULL, &value))
    fewest = MIN (fewest, GPOINTER_TO_UINT (value));
  return fewest == G_MAXUINT ? 0 : fewest;
}

static void
assess_capture (CpAnalysis *self,
                gboolean    has_device,
                gboolean    device_untraced)
{
  const CpLoadReport *report = cp_trace_get_load_report (self->trace);
  const char *word = cp_analysis_get_device_word (self);

  if (report != NULL && report->truncated)
    add_reason (self, "truncated", CP_CONFIDENCE_LOW,
                /* Translators: a reason for low confidence, "truncated at byte 17352713: what followed is missing". */
                g_strdup_printf (_("truncated at byte %" PRIu64 ": what followed is missing"), report->stopped_at));
  else if (report != NULL && report->skipped > 0)
    add_reason (self, "damaged", CP_CONFIDENCE_MEDIUM,
                g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " event could not be read",
                                              "%" PRIu64 " events could not be read", report->skipped),
                                 report->skipped));

  self->devices_unrecorded = FALSE;
  self->host_only = FALSE;
  if (device_untraced)
    {
      self->devices_unrecorded = TRUE;
      add_reason (self, "no-device-events", CP_CONFIDENCE_LOW,
                  g_strdup_printf (_("launch calls without the %s work they launched"), word));
    }
  else if (!has_device && cp_trace_get_n_devices (self->trace) > 0)
    {
      self->devices_unrecorded = TRUE;
      add_reason (self, "no-device-events", CP_CONFIDENCE_LOW,
                  g_strdup_printf (_("no %s activity recorded, though the capture names %u devices"),
                                   word, cp_trace_get_n_devices (self->trace)));
    }
  else if (!has_device)
    {
      self->host_only = TRUE;
      add_reason (self, "no-device-events", CP_CONFIDENCE_MEDIUM,
                  g_strdup (_("no device in the capture: the causes are read from the host alone")));
    }
}

static void
assess_window (CpAnalysis *self)
{
  guint steps = fewest_steps (self);
  const CpTimeSummary *idle = &self->summary[CP_TIME_IDLE];

  if (self->step_source != CP_STEPS_NONE && self->step_source != CP_STEPS_DEVICE_SPAN &&
      steps < CP_CONFIDENCE_MIN_STEPS)
    add_reason (self, "few-steps", CP_CONFIDENCE_MEDIUM,
                self->out_of_step ?
                  g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step per device", "%u steps per device", steps), steps) :
                  g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step", "%u steps", steps), steps));

  if (self->window_time > 0 && idle->percent > 100.0 * CP_CONFIDENCE_MAX_UNRECORDED)
    add_reason (self, "unrecorded", CP_CONFIDENCE_MEDIUM,
                /* Translators: "93% of the window has no recorded activity". */
                g_strdup_printf (_("%.0f%% of the window has no recorded activity"), idle->percent));

  if (self->step_source == CP_STEPS_DEVICE_SPAN)
    add_reason (self, "window-coverage", CP_CONFIDENCE_MEDIUM,
                g_strdup_printf (_("the steps found hold %.0f%% of the device work: measured over the span where the devices work"),
                                 100.0 * self->steps_device_share));
  else if (self->step_source != CP_STEPS_NONE && !isnan (self->steps_device_share) &&
           self->steps_device_share < CP_CONFIDENCE_MIN_COVERAGE)
    add_reason (self, "window-coverage", CP_CONFIDENCE_MEDIUM,
                g_strdup_printf (_("the steps hold %.0f%% of the device work"), 100.0 * self->steps_device_share));

  if (self->out_of_step)
    add_reason (self, "devices-out-of-step", CP_CONFIDENCE_MEDIUM,
                g_strdup (_("the devices step at different times")));
}

void
_cp_analysis_assess_confidence (CpAnalysis *self,
                                gboolean    has_device,
                                gboolean    device_untraced)
{
  if (self->confidence_reasons == NULL)
    {
      self->confidence_reasons = g_array_new (FALSE, TRUE, sizeof (CpConfidenceReason));
      g_array_set_clear_func (self->confidence_reasons, clear_reason);
    }
  g_array_set_size (self->confidence_reasons, 0);
  self->confidence = CP_CONFIDENCE_HIGH;
  assess_capture (self, has_device, device_untraced);
  assess_window (self);
}

const char *
cp_confidence_level_to_string (CpConfidenceLevel level)
{
  switch (level)
    {
    case CP_CONFIDENCE_MEDIUM: return "medium";
    case CP_CONFIDENCE_LOW: return "low";
    case CP_CONFIDENCE_HIGH:
    default:
      return "high";
    }
}

CpConfidenceLevel
cp_analysis_get_confidence (CpAnalysis                *self,
                            const CpConfidenceReason **reasons,
                            guint                     *n_reasons)
{
  g_return_val_if_fail (CP_IS_ANALYSIS (self), CP_CONFIDENCE_HIGH);

  if (reasons)
    *reasons = self->confidence_reasons ? (const CpConfidenceReason *) self->confidence_reasons->data : NULL;
  if (n_reasons)
    *n_reasons = self->confidence_reasons ? self->confidence_reasons->len : 0;
  return self->confidence;
}

char *
cp_analysis_dup_confidence_banner (CpAnalysis *self)
{
  g_autoptr(GString) s = NULL;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);

  if (self->confidence == CP_CONFIDENCE_HIGH || self->confidence_reasons == NULL)
    return NULL;
  s = g_string_new (self->confidence == CP_CONFIDENCE_LOW ?
                    /* Translators: the banner under the verdict when it cannot be trusted, before its reasons. */
                    _("Low confidence:") :
                    /* Translators: the banner under the verdict when it may change with a better capture, before its reasons. */
                    _("Provisional:"));
  for (guint i = 0; i < self->confidence_reasons->len; i++)
    {
      const CpConfidenceReason *r = &g_array_index (self->confidence_reasons, CpConfidenceReason, i);

      g_string_append (s, i == 0 ? " " : "; ");
      g_string_append (s, r->text);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

void
_cp_json_add_confidence (JsonBuilder              *b,
                         const char               *key,
                         CpConfidenceLevel         level,
                         const CpConfidenceReason *reasons,
                         guint                     n_reasons)
{
  json_builder_set_member_name (b, key);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "level");
  json_builder_add_string_value (b, cp_confidence_level_to_string (level));
  json_builder_set_member_name (b, "reasons");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_reasons; i++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, reasons[i].id);
      json_builder_set_member_name (b, "level");
      json_builder_add_string_value (b, cp_confidence_level_to_string (reasons[i].level));
      json_builder_set_member_name (b, "text");
      json_builder_add_string_value (b, reasons[i].text);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}
