/* cp-history-run.c: one run's figures, taken from the analysis
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every figure is read from the analysis through the accessors that
 * `diagnose --json` uses (cp-analysis-json.c), so a run in the history says
 * what diagnose said. Only the step-time percentiles are new: nearest rank
 * over the same window lengths whose mean diagnose prints.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "analysis/cp-json-util.h"
#include "cp-history.h"

#define add_int _cp_json_add_int
#define add_double _cp_json_add_double
#define add_string _cp_json_add_string

G_DEFINE_QUARK (cp-history-error-quark, cp_history_error)

#define MAX_KEY_LEN 64
#define MAX_VALUE_LEN 256

static void
clear_label (gpointer data)
{
  CpHistoryLabel *l = data;

  g_free (l->key);
  g_free (l->value);
}

static void
clear_breakdown (gpointer data)
{
  g_free (((CpHistoryBreakdown *) data)->category);
}

static void
clear_device (gpointer data)
{
  g_free (((CpHistoryDevice *) data)->kind);
}

static void
clear_finding (gpointer data)
{
  CpHistoryFinding *f = data;

  g_free (f->rule);
  g_free (f->severity);
  g_free (f->measured_severity);
  g_free (f->metric);
}

static void
clear_kernel (gpointer data)
{
  g_free (((CpHistoryKernel *) data)->name);
}

static GArray *
new_array (gsize          size,
           GDestroyNotify clear)
{
  GArray *a = g_array_new (FALSE, TRUE, size);

  g_array_set_clear_func (a, clear);
  return a;
}

CpHistoryRun *
cp_history_run_new (void)
{
  CpHistoryRun *run = g_new0 (CpHistoryRun, 1);

  run->busy_percent = NAN;
  run->loading_percent = NAN;
  run->labels = new_array (sizeof (CpHistoryLabel), clear_label);
  run->breakdown = new_array (sizeof (CpHistoryBreakdown), clear_breakdown);
  run->devices = new_array (sizeof (CpHistoryDevice), clear_device);
  run->findings = new_array (sizeof (CpHistoryFinding), clear_finding);
  run->kernels = new_array (sizeof (CpHistoryKernel), clear_kernel);
  return run;
}

void
cp_history_run_free (CpHistoryRun *run)
{
  if (run == NULL)
    return;
  g_free (run->hash);
  g_free (run->path);
  g_free (run->format);
  g_free (run->framework);
  g_free (run->generator);
  g_free (run->step_source);
  g_free (run->worst_severity);
  g_free (run->primary_rule);
  g_array_unref (run->labels);
  g_array_unref (run->breakdown);
  g_array_unref (run->devices);
  g_array_unref (run->findings);
  g_array_unref (run->kernels);
  g_free (run);
}

static gboolean
key_is_valid (const char *key)
{
  gsize n = strlen (key);

  if (n == 0 || n > MAX_KEY_LEN)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (key[i]) && key[i] != '_' && key[i] != '.' && key[i] != '-')
      return FALSE;
  return TRUE;
}

static gboolean
value_is_valid (const char *value)
{
  return strlen (value) <= MAX_VALUE_LEN && g_utf8_validate (value, -1, NULL);
}

gboolean
cp_history_parse_label (const char  *text,
                        char       **key,
                        char       **value,
                        GError     **error)
{
  const char *eq = strchr (text, '=');
  g_autofree char *k = NULL;

  if (eq == NULL)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
                   _("A label is KEY=VALUE, not “%s”"), text);
      return FALSE;
    }
  k = g_strndup (text, eq - text);
  if (!key_is_valid (k))
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
                   _("A label’s key is 1 to %d letters, digits, “_”, “.” or “-”, not “%s”"),
                   MAX_KEY_LEN, k);
      return FALSE;
    }
  if (!value_is_valid (eq + 1))
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
                   _("The value of the label “%s” must be UTF-8 of at most %d bytes"), k, MAX_VALUE_LEN);
      return FALSE;
    }
  *key = g_steal_pointer (&k);
  *value = g_strdup (eq + 1);
  return TRUE;
}

static int
compare_labels (gconstpointer a,
                gconstpointer b)
{
  return strcmp (((const CpHistoryLabel *) a)->key, ((const CpHistoryLabel *) b)->key);
}

void
cp_history_run_set_label (CpHistoryRun *run,
                          const char   *key,
                          const char   *value)
{
  CpHistoryLabel l;

  g_return_if_fail (run != NULL && key != NULL && value != NULL);
  for (guint i = 0; i < run->labels->len; i++)
    {
      CpHistoryLabel *old = &g_array_index (run->labels, CpHistoryLabel, i);

      if (strcmp (old->key, key) == 0)
        {
          g_free (old->value);
          old->value = g_strdup (value);
          return;
        }
    }
  l.key = g_strdup (key);
  l.value = g_strdup (value);
  g_array_append_val (run->labels, l);
  g_array_sort (run->labels, compare_labels);
}

const char *
cp_history_run_get_label (CpHistoryRun *run,
                          const char   *key)
{
  for (guint i = 0; i < run->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (run->labels, CpHistoryLabel, i);

      if (strcmp (l->key, key) == 0)
        return l->value;
    }
  return NULL;
}

/* A "chokepoint" object among the capture's top-level keys gives labels:
 * {"chokepoint": {"model": "resnet50", "batch": 64}}. Strings, numbers and
 * booleans are taken; other values, and keys that are not label keys, are
 * not. */
static void
labels_from_metadata (CpHistoryRun *run,
                      CpTrace      *trace)
{
  const char *text = cp_trace_lookup_metadata (trace, "chokepoint");
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *object;
  JsonObjectIter iter;
  const char *key;
  JsonNode *node;

  if (text == NULL)
    return;
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, -1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;
  object = json_node_get_object (json_parser_get_root (parser));
  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &key, &node))
    {
      g_autofree char *value = NULL;

      if (!key_is_valid (key) || !JSON_NODE_HOLDS_VALUE (node))
        continue;
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_STRING:
          value = g_strdup (json_node_get_string (node));
          break;
        case G_TYPE_INT64:
          value = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          value = g_strdup_printf ("%.17g", json_node_get_double (node));
          break;
        case G_TYPE_BOOLEAN:
          value = g_strdup (json_node_get_boolean (node) ? "true" : "false");
          break;
        default:
          break;
        }
      if (value != NULL && value_is_valid (value))
        cp_history_run_set_label (run, key, value);
    }
}

/* The PyTorch profiler (Kineto) writes these top-level keys; its step
 * markers say so too. Other captures have no framework unless a label
 * says one. */
static char *
detect_framework (CpAnalysis *analysis,
                  CpTrace    *trace)
{
  static const char * const kineto_keys[] = {
    "schemaVersion", "deviceProperties", "baseTimeNanoseconds", "distributedInfo", "traceName",
  };

  if (cp_analysis_get_step_source (analysis) == CP_STEPS_PROFILER)
    return g_strdup ("pytorch");
  for (guint i = 0; i < G_N_ELEMENTS (kineto_keys); i++)
    if (cp_trace_lookup_metadata (trace, kineto_keys[i]) != NULL)
      return g_strdup ("pytorch");
  return NULL;
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of them at or below. */
static gint64
percentile (const gint64 *sorted,
            guint         n,
            guint         p)
{
  guint64 rank;

  if (n == 0)
    return 0;
  rank = ((guint64) p * n + 99) / 100;
  return sorted[MAX (rank, 1) - 1];
}

static void
file_facts (CpHistoryRun *run,
            GFile        *file)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GDateTime) mtime = NULL;

  run->path = g_file_get_path (file);
  if (run->path == NULL)
    run->path = g_file_get_uri (file);
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_TIME_MODIFIED ","
                            G_FILE_ATTRIBUTE_TIME_MODIFIED_USEC,
                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info == NULL)
    return;
  mtime = g_file_info_get_modification_date_time (info);
  if (mtime != NULL)
    run->mtime_ns = g_date_time_to_unix (mtime) * G_GINT64_CONSTANT (1000000000) +
                    g_date_time_get_microsecond (mtime) * 1000;
}

CpHistoryRun *
cp_history_run_new_from_analysis (CpAnalysis *analysis,
                                  const char *hash)
{
  CpTrace *trace = cp_analysis_get_trace (analysis);
  const CpLoadReport *report = cp_trace_get_load_report (trace);
  const CpVerdict *verdict = cp_analysis_get_verdict (analysis);
  CpHistoryRun *run = cp_history_run_new ();
  GListModel *findings = cp_analysis_get_findings (analysis);
  const CpInterval *windows;
  const CpDeviceStats *devs;
  const CpKernelStats *ks;
  g_autofree gint64 *lengths = NULL;
  guint n_windows, n_devs, n_ks, n_findings;
  CpTimeSummary st;
  CpSeverity worst;

  g_return_val_if_fail (CP_IS_ANALYSIS (analysis), NULL);

  run->hash = g_strdup (hash);
  if (cp_trace_get_file (trace) != NULL)
    file_facts (run, cp_trace_get_file (trace));
  if (run->path == NULL)
    run->path = g_strdup (cp_trace_get_title (trace));
  run->file_bytes = report != NULL ? (gint64) report->file_bytes : 0;
  run->format = g_strdup (report != NULL ? report->format : NULL);
  run->framework = detect_framework (analysis, trace);
  run->has_started = cp_trace_get_origin_is_epoch (trace);
  run->started_ns = run->has_started ? cp_trace_get_origin_abs (trace) : 0;
  run->recorded_ns = g_get_real_time () * 1000;
  run->time_ns = run->has_started ? run->started_ns : run->mtime_ns != 0 ? run->mtime_ns : run->recorded_ns;
  run->generator = g_strdup ("chokepoint " PACKAGE_VERSION);

  /* The windows, as diagnose's step_time. */
  run->step_source = g_strdup (cp_step_source_to_string (cp_analysis_get_step_source (analysis)));
  windows = cp_analysis_get_windows (analysis, &n_windows);
  cp_analysis_get_step_summary (analysis, &st);
  run->steps = n_windows;
  run->window_ns = cp_analysis_get_window_time (analysis);
  run->duration_ns = cp_trace_get_duration (trace);
  run->kernel_time_ns = cp_analysis_get_kernel_time (analysis);
  run->step_mean_ns = st.mean;
  run->step_min_ns = st.min;
  run->step_max_ns = st.max;
  lengths = g_new (gint64, MAX (n_windows, 1));
  for (guint i = 0; i < n_windows; i++)
    lengths[i] = windows[i].end - windows[i].start;
  qsort (lengths, n_windows, sizeof (gint64), compare_gint64);
  run->step_p50_ns = percentile (lengths, n_windows, 50);
  run->step_p90_ns = percentile (lengths, n_windows, 90);

  run->busy_percent = verdict->busy_percent;
  run->loading_percent = verdict->loading_percent;
  run->primary_rule = g_strdup (verdict->primary_rule);

  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpHistoryBreakdown b;
      CpTimeSummary s;

      cp_analysis_get_time_summary (analysis, c, &s);
      b.category = g_strdup (cp_time_category_to_string (c));
      b.total_ns = s.total;
      b.mean_ns = s.mean;
      b.percent = s.percent;
      g_array_append_val (run->breakdown, b);
    }

  devs = cp_analysis_get_devices (analysis, &n_devs);
  for (guint d = 0; d < n_devs; d++)
    {
      CpHistoryDevice dev;

      dev.device = devs[d].device;
      dev.kind = g_strdup (cp_device_kind_to_string (cp_trace_get_device_kind (trace, devs[d].device)));
      dev.kernels = devs[d].n_kernels;
      dev.kernel_time_ns = devs[d].kernel_time;
      dev.kernel_busy_ns = devs[d].kernel_busy;
      dev.window_busy_ns = devs[d].window_busy;
      dev.window_ns = devs[d].window_time;
      dev.idle_ns = devs[d].idle;
      dev.utilization = devs[d].utilization;
      g_array_append_val (run->devices, dev);
    }

  n_findings = g_list_model_get_n_items (findings);
  for (guint i = 0; i < n_findings; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);
      const CpFigure *figs;
      guint n_figs;
      CpHistoryFinding hf;

      figs = cp_finding_get_figures (f, &n_figs);
      hf.rule = g_strdup (cp_finding_get_rule_id (f));
      hf.severity = g_strdup (cp_severity_to_string (cp_finding_get_severity (f)));
      hf.measured_severity = g_strdup (cp_severity_to_string (cp_finding_get_measured_severity (f)));
      hf.time_at_stake_ns = cp_finding_get_time_at_stake (f);
      hf.time_at_stake_per_step_ns = cp_finding_get_time_at_stake_per_step (f);
      hf.metric = n_figs > 0 ? g_strdup (figs[0].id) : NULL;
      hf.value = n_figs > 0 ? figs[0].value : NAN;
      g_array_append_val (run->findings, hf);
      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        run->warnings++;
    }
  if (cp_analysis_get_worst_severity (analysis, &worst))
    run->worst_severity = g_strdup (cp_severity_to_string (worst));

  ks = cp_analysis_get_kernels (analysis, &n_ks);
  for (guint k = 0; k < MIN (n_ks, CP_HISTORY_TOP_KERNELS); k++)
    {
      CpHistoryKernel hk;

      hk.rank = k + 1;
      hk.name = g_strdup (cp_trace_get_string (trace, ks[k].name));
      hk.count = ks[k].count;
      hk.total_ns = ks[k].total;
      hk.share = ks[k].share;
      g_array_append_val (run->kernels, hk);
    }

  labels_from_metadata (run, trace);
  return run;
}

void
cp_history_run_build_json (CpHistoryRun *run,
                            JsonBuilder  *b,
                            gboolean      full)
{
  json_builder_begin_object (b);
  add_int (b, "id", run->id);
  add_string (b, "hash", run->hash);
  add_string (b, "path", run->path);
  add_int (b, "file_bytes", run->file_bytes);
  add_string (b, "format", run->format);
  add_string (b, "framework", run->framework);
  json_builder_set_member_name (b, "started_ns");
  if (run->has_started)
    json_builder_add_int_value (b, run->started_ns);
  else
    json_builder_add_null_value (b);
  add_int (b, "mtime_ns", run->mtime_ns);
  add_int (b, "recorded_ns", run->recorded_ns);
  add_int (b, "time_ns", run->time_ns);
  add_string (b, "generator", run->generator);
  json_builder_set_member_name (b, "labels");
  json_builder_begin_object (b);
  for (guint i = 0; i < run->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (run->labels, CpHistoryLabel, i);

      add_string (b, l->key, l->value);
    }
  json_builder_end_object (b);
  add_string (b, "step_source", run->step_source);
  add_int (b, "steps", run->steps);
  add_int (b, "window_ns", run->window_ns);
  add_int (b, "duration_ns", run->duration_ns);
  add_int (b, "kernel_time_ns", run->kernel_time_ns);
  json_builder_set_member_name (b, "step_time");
  json_builder_begin_object (b);
  add_int (b, "mean_ns", run->step_mean_ns);
  add_int (b, "p50_ns", run->step_p50_ns);
  add_int (b, "p90_ns", run->step_p90_ns);
  add_int (b, "min_ns", run->step_min_ns);
  add_int (b, "max_ns", run->step_max_ns);
  json_builder_end_object (b);
  add_double (b, "busy_percent", run->busy_percent);
  add_double (b, "loading_percent", run->loading_percent);
  add_string (b, "worst_severity", run->worst_severity);
  add_int (b, "warnings", run->warnings);
  add_string (b, "primary_rule", run->primary_rule);
  if (!full)
    {
      json_builder_end_object (b);
      return;
    }

  json_builder_set_member_name (b, "breakdown");
  json_builder_begin_array (b);
  for (guint i = 0; i < run->breakdown->len; i++)
    {
      const CpHistoryBreakdown *x = &g_array_index (run->breakdown, CpHistoryBreakdown, i);

      json_builder_begin_object (b);
      add_string (b, "category", x->category);
      add_int (b, "total_ns", x->total_ns);
      add_int (b, "mean_ns", x->mean_ns);
      add_double (b, "percent", x->percent);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < run->devices->len; i++)
    {
      const CpHistoryDevice *x = &g_array_index (run->devices, CpHistoryDevice, i);

      json_builder_begin_object (b);
      add_int (b, "device", x->device);
      add_string (b, "kind", x->kind);
      add_int (b, "kernels", x->kernels);
      add_int (b, "kernel_time_ns", x->kernel_time_ns);
      add_int (b, "kernel_busy_ns", x->kernel_busy_ns);
      add_int (b, "window_busy_ns", x->window_busy_ns);
      add_int (b, "window_ns", x->window_ns);
      add_int (b, "idle_ns", x->idle_ns);
      add_double (b, "utilization", x->utilization);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "findings");
  json_builder_begin_array (b);
  for (guint i = 0; i < run->findings->len; i++)
    {
      const CpHistoryFinding *x = &g_array_index (run->findings, CpHistoryFinding, i);

      json_builder_begin_object (b);
      add_string (b, "rule", x->rule);
      add_string (b, "severity", x->severity);
      add_string (b, "measured_severity", x->measured_severity);
      add_int (b, "time_at_stake_ns", x->time_at_stake_ns);
      add_int (b, "time_at_stake_per_step_ns", x->time_at_stake_per_step_ns);
      add_string (b, "metric", x->metric);
      add_double (b, "value", x->value);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < run->kernels->len; i++)
    {
      const CpHistoryKernel *x = &g_array_index (run->kernels, CpHistoryKernel, i);

      json_builder_begin_object (b);
      add_int (b, "rank", x->rank);
      add_string (b, "name", x->name);
      add_int (b, "count", x->count);
      add_int (b, "total_ns", x->total_ns);
      add_double (b, "share", x->share);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

char *
cp_history_run_to_json (CpHistoryRun *run,
                        gboolean      pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  cp_history_run_build_json (run, b, TRUE);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

char *
cp_history_default_location (void)
{
  const char *env = g_getenv ("CHOKEPOINT_DATABASE");

  if (env == NULL || env[0] == '\0')
    env = g_getenv ("CHOKEPOINT_HISTORY");
  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  return g_build_filename (g_get_user_data_dir (), "chokepoint", "history.sqlite", NULL);
}
