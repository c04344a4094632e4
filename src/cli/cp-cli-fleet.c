/* cp-cli-fleet.c: printing `chokepoint history fleet` as text, Markdown or JSON
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The figures come from cp_history_fleet(); docs/history.md documents the
 * JSON (schema_version 1).
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-cli.h"
#include "history/cp-history-fleet.h"
#include "analysis/cp-finding.h"

static char *
value_text (const char *unit,
            double      value)
{
  if (!isfinite (value))
    return g_strdup ("—");
  if (strcmp (unit, "ns") == 0)
    return cp_format_ns ((gint64) llround (value));
  if (strcmp (unit, "%") == 0)
    return g_strdup_printf ("%.1f%%", value);
  return g_strdup_printf ("%.0f", value);
}

static char *
group_text (const char *key,
            const char *value)
{
  if (key == NULL)
    return g_strdup (_("all runs"));
  return g_strdup_printf ("%s=%s", key, value);
}

static char *
until_text (gint64 ns)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (ns / 1000000000);

  return dt != NULL ? g_date_time_format (dt, "%Y-%m-%d %H:%M UTC") : g_strdup ("?");
}

static void
add_number (JsonBuilder *b,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (b, name);
  if (isfinite (value))
    json_builder_add_double_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_string (JsonBuilder *b,
            const char  *name,
            const char  *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_int (JsonBuilder *b,
         const char  *name,
         gint64       value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static char *
fleet_json (const CpHistoryFleet *f)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (b);
  add_int (b, "schema_version", 1);
  add_int (b, "runs", f->runs);
  add_int (b, "until_ns", f->until_ns);
  add_number (b, "threshold_percent", f->threshold);
  json_builder_set_member_name (b, "keys");
  json_builder_begin_array (b);
  for (guint i = 0; f->keys[i] != NULL; i++)
    json_builder_add_string_value (b, f->keys[i]);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "findings");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->findings->len; i++)
    {
      const CpFleetFinding *x = f->findings->pdata[i];

      json_builder_begin_object (b);
      add_string (b, "rule", x->rule);
      add_int (b, "runs", x->runs);
      add_int (b, "above_info", x->above_info);
      add_number (b, "percent", x->percent);
      add_int (b, "time_at_stake_ns", x->time_at_stake_ns);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "worst");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->worst->len; i++)
    {
      const CpFleetWorst *w = f->worst->pdata[i];

      json_builder_begin_object (b);
      add_string (b, "metric", w->metric);
      add_string (b, "unit", w->unit);
      add_string (b, "worse", w->worse < 0 ? "lower" : "higher");
      json_builder_set_member_name (b, "runs");
      json_builder_begin_array (b);
      for (guint j = 0; j < w->runs->len; j++)
        {
          const CpFleetRun *r = &g_array_index (w->runs, CpFleetRun, j);

          json_builder_begin_object (b);
          add_int (b, "id", r->id);
          add_number (b, "value", r->value);
          add_string (b, "path", r->path);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "utilization");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->utilization->len; i++)
    {
      const CpFleetUtilization *u = f->utilization->pdata[i];

      json_builder_begin_object (b);
      add_string (b, "key", u->key);
      add_string (b, "value", u->value);
      add_int (b, "runs", u->runs);
      add_number (b, "mean", u->mean);
      add_number (b, "min", u->min);
      add_number (b, "p10", u->p10);
      add_number (b, "p50", u->p50);
      add_number (b, "p90", u->p90);
      add_number (b, "max", u->max);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "changes");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->changes->len; i++)
    {
      const CpFleetChange *c = f->changes->pdata[i];

      json_builder_begin_object (b);
      add_string (b, "key", c->key);
      add_string (b, "value", c->value);
      add_string (b, "metric", c->metric);
      add_string (b, "unit", c->unit);
      add_int (b, "runs_before", c->runs_before);
      add_int (b, "runs_after", c->runs_after);
      add_number (b, "before", c->before);
      add_number (b, "after", c->after);
      add_number (b, "change_percent", c->change_percent);
      json_builder_set_member_name (b, "regression");
      json_builder_add_boolean_value (b, c->regression);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

/* Text (markdown FALSE) or Markdown tables. */
static char *
fleet_text (const CpHistoryFleet *f,
            const char           *location,
            gboolean              md)
{
  GString *out = g_string_new (NULL);
  g_autofree char *until = until_text (f->until_ns);
  guint n_regressions = 0;

  if (md)
    g_string_append_printf (out, _("# Fleet summary\n\n%" PRId64 " runs in %s.\n\n"), f->runs, location);
  else
    g_string_append_printf (out, _("Fleet: %" PRId64 " runs in %s\n"), f->runs, location);

  /* Prevalence of each finding. */
  if (md)
    g_string_append_printf (out, _("## Findings\n\n| Rule | Runs | Share | Above info | Time at stake |\n|---|---:|---:|---:|---:|\n"));
  else
    g_string_append_printf (out, _("\nFindings (runs with each; share of all runs; above info; time at stake):\n"));
  for (guint i = 0; i < f->findings->len; i++)
    {
      const CpFleetFinding *x = f->findings->pdata[i];
      g_autofree char *stake = cp_format_ns (x->time_at_stake_ns);

      if (md)
        g_string_append_printf (out, "| %s | %" PRId64 " | %.1f%% | %" PRId64 " | %s |\n",
                                x->rule, x->runs, x->percent, x->above_info, stake);
      else
        g_string_append_printf (out, "  %-28s %6" PRId64 "  %5.1f%%  %6" PRId64 "  %s\n",
                                x->rule, x->runs, x->percent, x->above_info, stake);
    }
  if (f->findings->len == 0)
    g_string_append (out, md ? _("No findings.\n") : _("  none\n"));

  /* Worst runs per metric. */
  g_string_append (out, md ? _("\n## Worst runs\n") : _("\nWorst runs:\n"));
  for (guint i = 0; i < f->worst->len; i++)
    {
      const CpFleetWorst *w = f->worst->pdata[i];
      const char *dir = w->worse < 0 ? _("lowest") : _("highest");

      if (md)
        g_string_append_printf (out, "\n### %s (%s)\n\n| Run | Value | Capture |\n|---:|---:|---|\n", w->metric, dir);
      else
        g_string_append_printf (out, "  %s (%s):\n", w->metric, dir);
      for (guint j = 0; j < w->runs->len; j++)
        {
          const CpFleetRun *r = &g_array_index (w->runs, CpFleetRun, j);
          g_autofree char *v = value_text (w->unit, r->value);

          if (md)
            g_string_append_printf (out, "| %" PRId64 " | %s | `%s` |\n", r->id, v, r->path);
          else
            g_string_append_printf (out, "    run %-6" PRId64 " %10s  %s\n", r->id, v, r->path);
        }
      if (w->runs->len == 0)
        g_string_append (out, md ? _("No run has this metric.\n") : _("    no run has this metric\n"));
    }

  /* Utilisation per label value. */
  if (md)
    g_string_append (out, _("\n## GPU utilisation by label\n\n| Group | Runs | Mean | Min | p10 | p50 | p90 | Max |\n"
                             "|---|---:|---:|---:|---:|---:|---:|---:|\n"));
  else
    g_string_append (out, _("\nGPU utilisation by label (runs; mean, min, p10, p50, p90, max):\n"));
  for (guint i = 0; i < f->utilization->len; i++)
    {
      const CpFleetUtilization *u = f->utilization->pdata[i];
      g_autofree char *g = group_text (u->key, u->value);

      g_string_append_printf (out, md ? "| %s | %" PRId64 " | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n"
                                      : "  %-28s %6" PRId64 "  %5.1f%% %5.1f%% %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n",
                              g, u->runs, u->mean, u->min, u->p10, u->p50, u->p90, u->max);
    }
  if (f->utilization->len == 0)
    g_string_append (out, md ? _("No run has a GPU.\n") : _("  no run has a GPU\n"));

  /* Regressions, week on week. */
  if (md)
    g_string_append_printf (out, _("\n## Regressions\n\nThe week before %s against the week before that "
                                   "(worse by more than %.1f%%).\n\n"),
                            until, f->threshold);
  else
    g_string_append_printf (out, _("\nRegressions: the week before %s against the week before that "
                                   "(worse by more than %.1f%%):\n"), until, f->threshold);
  for (guint i = 0; i < f->changes->len; i++)
    {
      const CpFleetChange *c = f->changes->pdata[i];
      g_autofree char *g = NULL, *before = NULL, *after = NULL;

      if (!c->regression)
        continue;
      if (md && n_regressions == 0)
        g_string_append (out, "| Group | Metric | Before | After | Change | Runs |\n|---|---|---:|---:|---:|---:|\n");
      n_regressions++;
      g = group_text (c->key, c->value);
      before = value_text (c->unit, c->before);
      after = value_text (c->unit, c->after);
      g_string_append_printf (out, md ? "| %s | %s | %s | %s | %+.1f%% | %" PRId64 " → %" PRId64 " |\n"
                                      : "  %-28s %-16s %10s → %-10s %+6.1f%%  (%" PRId64 " → %" PRId64 " runs)\n",
                              g, c->metric, before, after, c->change_percent, c->runs_before, c->runs_after);
    }
  if (n_regressions == 0)
    g_string_append (out, md ? _("No regressions.\n") : _("  none\n"));
  return g_string_free (out, FALSE);
}

char *
cp_cli_fleet_format (const CpHistoryFleet *fleet,
                     const char           *location,
                     CpCliFleetFormat      format)
{
  switch (format)
    {
    case CP_CLI_FLEET_JSON:
      return fleet_json (fleet);
    case CP_CLI_FLEET_MARKDOWN:
      return fleet_text (fleet, location, TRUE);
    case CP_CLI_FLEET_TEXT:
    default:
      return fleet_text (fleet, location, FALSE);
    }
}
