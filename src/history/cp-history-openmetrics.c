/* cp-history-openmetrics.c: a run's metrics as OpenMetrics text
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Gauges only, in base units (seconds, ratios), with the framework and the
 * user's labels on every sample, for node_exporter's textfile collector or
 * a Pushgateway; docs/history.md lists the families and
 * data/prometheus/chokepoint-alerts.yml alerts on them.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cp-history.h"

/* Label names Chokepoint gives its own samples: a user label of the same
 * name becomes label_NAME. */
static const char * const own_labels[] = {
  "stat", "device", "kind", "category", "rule", "severity", "format", "generator", "step_source",
  "framework", "job", "instance",
};

static void
append_escaped (GString    *out,
                const char *value)
{
  for (const char *p = value; *p != '\0'; p++)
    {
      if (*p == '\\')
        g_string_append (out, "\\\\");
      else if (*p == '"')
        g_string_append (out, "\\\"");
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
}

static char *
label_name (const char *key)
{
  GString *name = g_string_new (NULL);

  for (const char *p = key; *p != '\0'; p++)
    g_string_append_c (name, g_ascii_isalnum (*p) ? *p : '_');
  if (name->len == 0 || g_ascii_isdigit (name->str[0]) || g_str_has_prefix (name->str, "__"))
    g_string_prepend (name, "label_");
  for (guint i = 0; i < G_N_ELEMENTS (own_labels); i++)
    if (strcmp (name->str, own_labels[i]) == 0)
      {
        g_string_prepend (name, "label_");
        break;
      }
  return g_string_free (name, FALSE);
}

/* ",framework=\"pytorch\",model=\"resnet50\"": the labels every sample has. */
static char *
common_labels (const CpHistoryRun *run)
{
  GString *out = g_string_new (NULL);

  if (run->framework != NULL)
    {
      g_string_append (out, ",framework=\"");
      append_escaped (out, run->framework);
      g_string_append_c (out, '"');
    }
  for (guint i = 0; i < run->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (run->labels, CpHistoryLabel, i);
      g_autofree char *name = label_name (l->key);

      g_string_append_printf (out, ",%s=\"", name);
      append_escaped (out, l->value);
      g_string_append_c (out, '"');
    }
  return g_string_free (out, FALSE);
}

static void
family (GString    *out,
        const char *name,
        const char *unit,
        const char *help)
{
  g_string_append_printf (out, "# TYPE %s gauge\n", name);
  if (unit != NULL)
    g_string_append_printf (out, "# UNIT %s %s\n", name, unit);
  g_string_append_printf (out, "# HELP %s %s\n", name, help);
}

/* name{own,common} value; own is "" or "k=\"v\"" pairs without the comma. */
static void
sample (GString    *out,
        const char *name,
        const char *own,
        const char *common,
        double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const char *labels = common[0] == ',' ? common + 1 : common;

  if (!isfinite (value))
    return;
  if (own[0] != '\0' && labels[0] != '\0')
    g_string_append_printf (out, "%s{%s,%s}", name, own, labels);
  else if (own[0] != '\0' || labels[0] != '\0')
    g_string_append_printf (out, "%s{%s%s}", name, own, labels);
  else
    g_string_append (out, name);
  g_string_append_printf (out, " %s\n", g_ascii_formatd (buf, sizeof buf, "%.10g", value));
}

static double
severity_level (const char *severity)
{
  return strcmp (severity, "high") == 0 ? 2 : strcmp (severity, "moderate") == 0 ? 1 : 0;
}

char *
cp_history_run_to_openmetrics (const CpHistoryRun *run)
{
  GString *out = g_string_new (NULL);
  g_autofree char *common = common_labels (run);
  GString *own = g_string_new (NULL);
  const struct { const char *stat; gint64 ns; } stats[] = {
    { "mean", run->step_mean_ns }, { "p50", run->step_p50_ns }, { "p90", run->step_p90_ns },
    { "min", run->step_min_ns }, { "max", run->step_max_ns },
  };

  family (out, "chokepoint_run_info", NULL, "The capture the metrics come from (value 1).");
  g_string_append (own, "format=\"");
  append_escaped (own, run->format ? run->format : "");
  g_string_append (own, "\",step_source=\"");
  append_escaped (own, run->step_source ? run->step_source : "");
  g_string_append (own, "\",generator=\"");
  append_escaped (own, run->generator ? run->generator : "");
  g_string_append (own, "\"");
  sample (out, "chokepoint_run_info", own->str, common, 1);

  family (out, "chokepoint_step_time_seconds", "seconds",
          "Step time over the analysis windows: mean, p50, p90 (nearest rank), min, max.");
  for (guint i = 0; i < G_N_ELEMENTS (stats); i++)
    {
      g_string_printf (own, "stat=\"%s\"", stats[i].stat);
      sample (out, "chokepoint_step_time_seconds", own->str, common, stats[i].ns / 1e9);
    }
  family (out, "chokepoint_steps", NULL, "Analysis windows (steps).");
  sample (out, "chokepoint_steps", "", common, run->steps);

  family (out, "chokepoint_device_utilization_ratio", "ratio",
          "Kernel busy time of each device over its window time.");
  for (guint i = 0; i < run->devices->len; i++)
    {
      const CpHistoryDevice *d = &g_array_index (run->devices, CpHistoryDevice, i);

      g_string_printf (own, "device=\"%" G_GINT64_FORMAT "\",kind=\"%s\"", d->device, d->kind);
      sample (out, "chokepoint_device_utilization_ratio", own->str, common, d->utilization);
    }
  family (out, "chokepoint_busy_ratio", "ratio",
          "Kernel busy time of the least busy device, share of step time.");
  sample (out, "chokepoint_busy_ratio", "", common, run->busy_percent / 100);
  family (out, "chokepoint_input_share_ratio", "ratio",
          "Data loading (host time in the input iterator), share of step time.");
  sample (out, "chokepoint_input_share_ratio", "", common, run->loading_percent / 100);

  family (out, "chokepoint_breakdown_ratio", "ratio",
          "Share of step time of each category of the time breakdown.");
  for (guint i = 0; i < run->breakdown->len; i++)
    {
      const CpHistoryBreakdown *b = &g_array_index (run->breakdown, CpHistoryBreakdown, i);

      g_string_printf (own, "category=\"%s\"", b->category);
      sample (out, "chokepoint_breakdown_ratio", own->str, common, b->percent / 100);
    }

  family (out, "chokepoint_finding_time_at_stake_seconds", "seconds",
          "Device time each finding accounts for, over the capture.");
  for (guint i = 0; i < run->findings->len; i++)
    {
      const CpHistoryFinding *f = &g_array_index (run->findings, CpHistoryFinding, i);

      g_string_printf (own, "rule=\"%s\",severity=\"%s\"", f->rule, f->severity);
      sample (out, "chokepoint_finding_time_at_stake_seconds", own->str, common, f->time_at_stake_ns / 1e9);
    }
  family (out, "chokepoint_finding_severity", NULL, "Severity of each finding: 0 info, 1 moderate, 2 high.");
  for (guint i = 0; i < run->findings->len; i++)
    {
      const CpHistoryFinding *f = &g_array_index (run->findings, CpHistoryFinding, i);

      g_string_printf (own, "rule=\"%s\"", f->rule);
      sample (out, "chokepoint_finding_severity", own->str, common, severity_level (f->severity));
    }
  family (out, "chokepoint_warnings", NULL, "Findings above info.");
  sample (out, "chokepoint_warnings", "", common, run->warnings);

  g_string_append (out, "# EOF\n");
  g_string_free (own, TRUE);
  return g_string_free (out, FALSE);
}
