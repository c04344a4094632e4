/* cp-compare-json.c: the comparison as JSON (docs/compare-json.md)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>

#include "cp-analysis-private.h"
#include "cp-compare.h"
#include "cp-json-util.h"

/* At most this many kernels and host ops are listed, by |delta|. */
#define MAX_LISTED 500

static void
add_side (JsonBuilder *b,
          const char  *member,
          CpAnalysis  *a)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  g_autofree char *path = cp_trace_get_file (trace) ? g_file_get_path (cp_trace_get_file (trace)) : NULL;
  const CpVerdict *v = cp_analysis_get_verdict (a);
  const CpConfidenceReason *reasons;
  CpConfidenceLevel level;
  CpWindowInfo info;
  CpTimeSummary st;
  guint n_steps, n_windows, n_reasons;

  cp_analysis_get_step_summary (a, &st);
  cp_analysis_get_steps (a, &n_steps);
  cp_analysis_get_windows (a, &n_windows);
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  _cp_json_add_string (b, "file", path);
  _cp_json_add_string (b, "format", r ? r->format : NULL);
  cp_analysis_get_window_info (a, &info);
  _cp_json_add_string (b, "step_source", cp_step_source_to_string (cp_analysis_get_step_source (a)));
  _cp_json_add_string (b, "steps_source", info.steps_source);
  _cp_json_add_int (b, "steps", n_steps);
  _cp_json_add_int (b, "warmup_steps", info.n_warmup);
  _cp_json_add_int (b, "windows", n_windows);
  _cp_json_add_int (b, "window_ns", st.total);
  _cp_json_add_int (b, "mean_step_ns", st.mean);
  _cp_json_add_int (b, "median_step_ns", info.step_median);
  _cp_json_add_int (b, "kernel_ns", cp_analysis_get_kernel_time (a));
  _cp_json_add_double (b, "utilization_percent", v->busy_percent);
  _cp_json_add_double (b, "loading_percent", v->loading_percent);
  _cp_json_add_string (b, "verdict", v->text);
  level = cp_analysis_get_confidence (a, &reasons, &n_reasons);
  _cp_json_add_confidence (b, "confidence", level, reasons, n_reasons);
  json_builder_end_object (b);
}

/* The comparison's confidence: the lower side's, with both sides'
 * reasons, each text led by its side. */
static void
add_confidence (JsonBuilder  *b,
                CpComparison *self)
{
  g_autoptr(GArray) all = g_array_new (FALSE, TRUE, sizeof (CpConfidenceReason));
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  CpConfidenceLevel level = CP_CONFIDENCE_HIGH;

  for (guint s = 0; s < 2; s++)
    {
      CpAnalysis *a = s == 0 ? cp_comparison_get_a (self) : cp_comparison_get_b (self);
      const CpConfidenceReason *reasons;
      guint n;

      level = MAX (level, cp_analysis_get_confidence (a, &reasons, &n));
      for (guint i = 0; i < n; i++)
        {
          CpConfidenceReason r = reasons[i];
          char *text = g_strdup_printf ("%s: %s", s == 0 ? "A" : "B", reasons[i].text);

          g_ptr_array_add (texts, text);
          r.text = text;
          g_array_append_val (all, r);
        }
    }
  _cp_json_add_confidence (b, "confidence", level, (const CpConfidenceReason *) all->data, all->len);
}

static void
add_figures (JsonBuilder            *b,
             const char             *member,
             const CpCompareFigures *f)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  _cp_json_add_int (b, "count", f->count);
  _cp_json_add_int (b, "total_ns", f->total);
  _cp_json_add_int (b, "mean_ns", f->mean);
  _cp_json_add_int (b, "per_step_ns", f->per_step);
  json_builder_end_object (b);
}

static void
add_items (JsonBuilder         *b,
           const char          *member,
           const CpCompareItem *items,
           guint                n,
           guint                max)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (guint i = 0; i < MIN (n, max); i++)
    {
      const CpCompareItem *it = &items[i];

      json_builder_begin_object (b);
      _cp_json_add_string (b, "key", it->key);
      _cp_json_add_string (b, "name_a", it->name_a);
      _cp_json_add_string (b, "name_b", it->name_b);
      _cp_json_add_int (b, "names_a", it->n_names_a);
      _cp_json_add_int (b, "names_b", it->n_names_b);
      _cp_json_add_string (b, "side", cp_compare_side_to_string (it->side));
      add_figures (b, "a", &it->a);
      add_figures (b, "b", &it->b);
      _cp_json_add_int (b, "delta_ns", it->delta);
      _cp_json_add_double (b, "ratio", it->ratio);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

char *
cp_comparison_to_json (CpComparison *self,
                       gboolean      pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = NULL;
  g_autoptr(JsonNode) root = NULL;
  const char * const *notes = cp_comparison_get_notes (self);
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  const CpCompareItem *items;
  const CpCompareStep *steps;
  const CpCompareDevice *devs;
  const CpCompareFinding *fs;
  guint comparable = cp_comparison_get_comparable (self);
  guint n;
  gint64 mean_a, mean_b, delta, kt_a, kt_b;
  double percent, match_a, match_b;

  g_return_val_if_fail (CP_IS_COMPARISON (self), NULL);

  json_builder_begin_object (b);
  _cp_json_add_int (b, "schema", CP_COMPARE_JSON_SCHEMA_VERSION);
  add_side (b, "a", cp_comparison_get_a (self));
  add_side (b, "b", cp_comparison_get_b (self));
  add_confidence (b, self);
  _cp_json_add_string (b, "kernel_key", cp_compare_kernel_key_to_string (cp_comparison_get_kernel_key (self)));

  json_builder_set_member_name (b, "comparable");
  json_builder_begin_object (b);
  for (guint g = CP_COMPARE_GROUP_STEPS; g <= CP_COMPARE_GROUP_DEVICES; g <<= 1)
    _cp_json_add_bool (b, cp_compare_group_to_string (g), (comparable & g) != 0);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; notes[i] != NULL; i++)
    json_builder_add_string_value (b, notes[i]);
  json_builder_end_array (b);

  cp_comparison_get_step_time (self, &mean_a, &mean_b, &delta, &percent);
  json_builder_set_member_name (b, "step_time");
  json_builder_begin_object (b);
  _cp_json_add_int (b, "a_ns", mean_a);
  _cp_json_add_int (b, "b_ns", mean_b);
  _cp_json_add_int (b, "delta_ns", delta);
  _cp_json_add_double (b, "percent", percent);
  json_builder_end_object (b);

  cp_comparison_get_kernel_time (self, &kt_a, &kt_b);
  cp_comparison_get_kernel_match (self, &match_a, &match_b);
  json_builder_set_member_name (b, "kernel_time");
  json_builder_begin_object (b);
  _cp_json_add_int (b, "a_per_step_ns", kt_a);
  _cp_json_add_int (b, "b_per_step_ns", kt_b);
  _cp_json_add_int (b, "delta_ns", kt_b - kt_a);
  _cp_json_add_double (b, "matched_percent_a", match_a);
  _cp_json_add_double (b, "matched_percent_b", match_b);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "typical_step");
  json_builder_begin_object (b);
  _cp_json_add_int (b, "a", cp_comparison_get_typical_step (self, 0));
  _cp_json_add_int (b, "b", cp_comparison_get_typical_step (self, 1));
  json_builder_end_object (b);

  steps = cp_comparison_get_steps (self, &n);
  _cp_json_add_string (b, "step_match", cp_compare_step_match_to_string (cp_comparison_get_step_match (self)));
  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      _cp_json_add_int (b, "index", steps[i].index);
      _cp_json_add_int (b, "index_b", steps[i].index_b);
      _cp_json_add_int (b, "number_a", steps[i].number_a);
      _cp_json_add_int (b, "number_b", steps[i].number_b);
      _cp_json_add_int (b, "a_ns", steps[i].duration_a);
      _cp_json_add_int (b, "b_ns", steps[i].duration_b);
      _cp_json_add_int (b, "delta_ns", steps[i].delta);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  n = cp_comparison_explain (self, explained);
  json_builder_set_member_name (b, "explained_by");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      _cp_json_add_string (b, "category", explained[i]->key);
      _cp_json_add_int (b, "delta_ns", explained[i]->delta);
      _cp_json_add_double (b, "share_of_delta", delta != 0 ? (double) explained[i]->delta / delta : NAN);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  items = cp_comparison_get_categories (self, &n);
  add_items (b, "categories", items, n, G_MAXUINT);
  items = cp_comparison_get_kernels (self, &n);
  add_items (b, "kernels", items, n, MAX_LISTED);
  _cp_json_add_int (b, "n_kernels", n);
  items = cp_comparison_get_host_ops (self, &n);
  add_items (b, "host_ops", items, n, MAX_LISTED);
  _cp_json_add_int (b, "n_host_ops", n);
  items = cp_comparison_get_host_op_paths (self, &n);
  add_items (b, "host_op_paths", items, n, MAX_LISTED);
  _cp_json_add_int (b, "n_host_op_paths", n);

  devs = cp_comparison_get_devices (self, &n);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      _cp_json_add_int (b, "ordinal", devs[i].ordinal);
      _cp_json_add_int (b, "ordinal_b", devs[i].ordinal_b);
      _cp_json_add_string (b, "kind", cp_device_kind_to_string (devs[i].kind));
      _cp_json_add_string (b, "side", cp_compare_side_to_string (devs[i].side));
      _cp_json_add_double (b, "utilization_a", devs[i].utilization_a);
      _cp_json_add_double (b, "utilization_b", devs[i].utilization_b);
      _cp_json_add_int (b, "kernel_per_step_a_ns", devs[i].kernel_time_a);
      _cp_json_add_int (b, "kernel_per_step_b_ns", devs[i].kernel_time_b);
      _cp_json_add_int (b, "idle_per_step_a_ns", devs[i].idle_a);
      _cp_json_add_int (b, "idle_per_step_b_ns", devs[i].idle_b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  fs = cp_comparison_get_findings (self, &n);
  json_builder_set_member_name (b, "findings");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      _cp_json_add_string (b, "rule", fs[i].rule_id);
      _cp_json_add_string (b, "title", fs[i].title);
      _cp_json_add_string (b, "change", cp_compare_finding_change_to_string (fs[i].change));
      _cp_json_add_string (b, "severity_a", fs[i].a ? cp_severity_to_string (cp_finding_get_severity (fs[i].a)) : NULL);
      _cp_json_add_string (b, "severity_b", fs[i].b ? cp_severity_to_string (cp_finding_get_severity (fs[i].b)) : NULL);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}
