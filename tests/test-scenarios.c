/* test-scenarios.c: every cp-gen scenario raises its own rule (high or
 * moderate) with evidence inside the injected ranges, and nothing else above
 * info; the healthy one raises nothing above info. JSON and XPlane captures.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

typedef struct
{
  const char *scenario;
  const char *format;
} Case;

static const char * const scenarios[] = {
  "healthy", "input-bound", "launch-bound", "pageable-transfers", "sync-stalls",
  "fp32-no-tensor-cores", "comm-bound",
};

static const char * const formats[] = { "json", "json.gz", "xplane" };

/* Runs cp-gen; FALSE (and a skip) when it does not write this format yet. */
static gboolean
generate (const Case *c,
          const char *capture,
          const char *truth)
{
  const char *gen = g_getenv ("CP_GEN");
  const char *argv[] = { gen, "--scenario", c->scenario, "--format", c->format, "--out", capture,
                         "--truth", truth, "--steps", "6", "--seed", "1", "-q", NULL };
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (gen);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    {
      if (strstr (err, "format") != NULL && strcmp (c->format, "xplane") == 0)
        {
          g_test_skip ("cp-gen does not write XPlane captures yet");
          return FALSE;
        }
      g_error ("cp-gen failed for %s (%s): %s", c->scenario, c->format, err);
    }
  return TRUE;
}

static void
test_scenario (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *name = g_strconcat ("capture.", c->format, NULL);
  g_autofree char *capture = g_build_filename (dir, name, NULL);
  g_autofree char *truth_path = g_build_filename (dir, "truth.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *truth;
  JsonArray *expect, *ranges;
  GListModel *findings;
  guint n;

  if (!generate (c, capture, truth_path))
    {
      cp_test_rm_rf (dir);
      return;
    }

  json_parser_load_from_file (parser, truth_path, &error);
  g_assert_no_error (error);
  truth = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (truth, "scenario"), ==, c->scenario);
  expect = json_object_get_array_member (truth, "expect");
  ranges = json_object_get_array_member (truth, "ranges");

  file = g_file_new_for_path (capture);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cp_analysis_get_step_source (analysis), !=, CP_STEPS_NONE);

  findings = cp_analysis_get_findings (analysis);
  n = g_list_model_get_n_items (findings);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);
      const char *rule = cp_finding_get_rule_id (f);
      gboolean expected = FALSE;

      for (guint k = 0; k < json_array_get_length (expect); k++)
        expected |= g_strcmp0 (json_array_get_string_element (expect, k), rule) == 0;

      g_test_message ("%s/%s: %s %s (%s)", c->scenario, c->format, cp_severity_to_string (cp_finding_get_severity (f)),
                      rule, cp_finding_get_summary (f));
      if (!expected)
        {
          if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
            g_error ("%s (%s): %s fired at %s, only %s was expected above info",
                     c->scenario, c->format, rule, cp_severity_to_string (cp_finding_get_severity (f)),
                     json_array_get_length (expect) ? json_array_get_string_element (expect, 0) : "nothing");
          continue;
        }

      /* The expected rule: its evidence lies inside the injected ranges. */
      {
        const CpEvidence *ev;
        guint n_ev;

        ev = cp_finding_get_evidence (f, &n_ev);
        g_assert_cmpuint (n_ev, >, 0);
        /* Merged per step and lane: each range is the hull of what was
         * found, so it starts and ends inside injected ranges. */
        for (guint e = 0; e < n_ev; e++)
          {
            gboolean start_in = FALSE, end_in = FALSE;

            for (guint r = 0; r < json_array_get_length (ranges); r++)
              {
                JsonObject *range = json_array_get_object_element (ranges, r);
                gint64 a = json_object_get_int_member (range, "start_ns");
                gint64 b = json_object_get_int_member (range, "end_ns");

                start_in |= ev[e].start >= a && ev[e].start <= b;
                end_in |= ev[e].end >= a && ev[e].end <= b;
              }
            if (!start_in || !end_in)
              g_error ("%s (%s): %s evidence [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") is outside the injected ranges",
                       c->scenario, c->format, rule, ev[e].start, ev[e].end);
          }
      }
    }

  /* Each expected rule fired above info. */
  for (guint k = 0; k < json_array_get_length (expect); k++)
    {
      const char *rule = json_array_get_string_element (expect, k);
      CpFinding *f = cp_analysis_lookup_finding (analysis, rule);

      if (f == NULL)
        g_error ("%s (%s): %s did not fire", c->scenario, c->format, rule);
      if (cp_finding_get_severity (f) < CP_SEVERITY_MODERATE)
        g_error ("%s (%s): %s fired only at %s", c->scenario, c->format, rule,
                 cp_severity_to_string (cp_finding_get_severity (f)));
    }
  if (json_array_get_length (expect) == 0)
    g_assert_false (cp_analysis_has_warnings (analysis));

  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func (g_free);

  g_test_init (&argc, &argv, NULL);

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint s = 0; s < G_N_ELEMENTS (scenarios); s++)
      {
        Case *c = g_new (Case, 1);
        g_autofree char *path = g_strdup_printf ("/scenarios/%s/%s", formats[f], scenarios[s]);

        c->scenario = scenarios[s];
        c->format = formats[f];
        g_ptr_array_add (cases, c);
        g_test_add_data_func (path, c, test_scenario);
      }

  return g_test_run ();
}
