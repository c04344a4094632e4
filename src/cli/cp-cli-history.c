/* cp-cli-history.c: `chokepoint history add|list|show|trend|forget`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `add` reads the captures named, or found in the folders named, on every
 * core: a worker hashes a file, skips it when the history knows the hash,
 * else loads and analyses it and hands its figures to the main thread,
 * which alone writes to the database, one transaction per run.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-cli.h"
#include "formats/cp-loader.h"
#include "formats/cp-sidecar.h"
#include "history/cp-history.h"

/* Shared options of every subcommand. */
typedef struct
{
  char      *database;
  char     **labels;
  char      *since;
  gboolean   json;
  int        limit;
  int        jobs;
  double     threshold;
  char      *metric;
  char      *format;
  char      *until;
  char     **by;
  int        worst;
  char     **args;
} Options;

static void
options_clear (Options *o)
{
  g_free (o->database);
  g_strfreev (o->labels);
  g_free (o->since);
  g_free (o->metric);
  g_free (o->format);
  g_free (o->until);
  g_strfreev (o->by);
  g_strfreev (o->args);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

static void
print_usage (void)
{
  g_printerr (_("Usage: chokepoint history add FILE|FOLDER... [--label KEY=VALUE]...\n"
                "       chokepoint history list [--since WHEN] [--label KEY=VALUE]... [--limit N] [--json]\n"
                "       chokepoint history show RUN [--json]\n"
                "       chokepoint history trend --metric NAME [--since WHEN] [--label KEY=VALUE]... [--json]\n"
                "       chokepoint history forget RUN...\n"
                "       chokepoint history fleet [--since WHEN] [--label KEY=VALUE]... [--by KEY]... [--until WHEN]\n"
                "                                [--worst N] [--json | --format text|markdown|json]\n"
                "Every subcommand takes --database PATH or postgresql://... (default: $CHOKEPOINT_DATABASE, else the user data folder).\n"));
}

static int
report_error (const char *sub,
              GError     *error)
{
  g_printerr ("chokepoint history %s: %s\n", sub, error->message);
  if (error->domain == CP_HISTORY_ERROR && error->code == CP_HISTORY_ERROR_INVALID)
    return CP_EXIT_USAGE;
  return CP_EXIT_FAILURE;
}

/* Labels given as KEY=VALUE, in a filter or to be set. */
static gboolean
parse_labels (char     **texts,
              GArray    *out,
              GError   **error)
{
  for (guint i = 0; texts != NULL && texts[i] != NULL; i++)
    {
      CpHistoryLabel l;

      if (!cp_history_parse_label (texts[i], &l.key, &l.value, error))
        return FALSE;
      g_array_append_val (out, l);
    }
  return TRUE;
}

static void
clear_label (gpointer data)
{
  CpHistoryLabel *l = data;

  g_free (l->key);
  g_free (l->value);
}

static GArray *
new_label_array (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (CpHistoryLabel));

  g_array_set_clear_func (a, clear_label);
  return a;
}

/* WHEN: an ISO 8601 date or date and time (UTC unless it says), or an age:
 * 12h, 7d, 2w. */
static gboolean
parse_since (const char  *text,
             gint64      *ns,
             GError     **error)
{
  g_autoptr(GDateTime) dt = NULL;
  char *end = NULL;
  guint64 n;

  n = g_ascii_strtoull (text, &end, 10);
  if (end != text && end != NULL && end[0] != '\0' && end[1] == '\0' && n < 100000 &&
      (end[0] == 'h' || end[0] == 'd' || end[0] == 'w'))
    {
      gint64 hours = end[0] == 'h' ? 1 : end[0] == 'd' ? 24 : 24 * 7;

      *ns = g_get_real_time () * 1000 - (gint64) n * hours * 3600 * G_GINT64_CONSTANT (1000000000);
      return TRUE;
    }
  if (strlen (text) == 10)
    {
      g_autofree char *full = g_strconcat (text, "T00:00:00Z", NULL);

      dt = g_date_time_new_from_iso8601 (full, NULL);
    }
  else
    {
      g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();

      dt = g_date_time_new_from_iso8601 (text, utc);
    }
  if (dt == NULL)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
                   _("--since takes a date (2026-12-01), a date and time (2026-12-01T09:30:00Z) "
                     "or an age (12h, 7d, 2w), not “%s”"), text);
      return FALSE;
    }
  *ns = g_date_time_to_unix (dt) * G_GINT64_CONSTANT (1000000000) + g_date_time_get_microsecond (dt) * 1000;
  return TRUE;
}

static CpHistory *
open_history (const Options  *o,
              gboolean        create,
              GError        **error)
{
  g_autofree char *location = o->database != NULL ? g_strdup (o->database) : cp_history_default_location ();

  return cp_history_open (location, create, error);
}

static char *
format_time (gint64 ns)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (ns / G_GINT64_CONSTANT (1000000000));

  return dt != NULL ? g_date_time_format (dt, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
}

static char *
format_labels (CpHistoryRun *run)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < run->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (run->labels, CpHistoryLabel, i);

      g_string_append_printf (s, "%s%s=%s", i ? "," : "", l->key, l->value);
    }
  return g_string_free (s, FALSE);
}

/* add */

typedef struct
{
  guint          index;
  char          *path;       /* as given or found */
  GFile         *file;
  char          *hash;
  CpHistoryRun  *run;        /* NULL when skipped or failed */
  gboolean       known;
  GError        *error;
} Job;

static void
job_free (Job *job)
{
  g_free (job->path);
  g_clear_object (&job->file);
  g_free (job->hash);
  cp_history_run_free (job->run);
  g_clear_error (&job->error);
  g_free (job);
}

typedef struct
{
  GHashTable   *known;       /* read only while the workers run */
  GArray       *labels;      /* CpHistoryLabel to set on every run */
  GAsyncQueue  *done;
} AddContext;

static void
run_job (gpointer data,
         gpointer user_data)
{
  Job *job = data;
  AddContext *ctx = user_data;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;

  job->hash = cp_history_hash_file (job->file, NULL, &job->error);
  if (job->hash == NULL)
    goto out;
  if (g_hash_table_contains (ctx->known, job->hash))
    {
      job->known = TRUE;
      goto out;
    }
  trace = cp_load_file (job->file, NULL, NULL, NULL, &job->error);
  if (trace == NULL)
    goto out;
  analysis = cp_analysis_new (trace, NULL, &job->error);
  if (analysis == NULL)
    goto out;
  job->run = cp_history_run_new_from_analysis (analysis, job->hash);
  for (guint i = 0; i < ctx->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (ctx->labels, CpHistoryLabel, i);

      cp_history_run_set_label (job->run, l->key, l->value);
    }

out:
  g_async_queue_push (ctx->done, job);
}

static gboolean
is_capture_name (const char *name)
{
  static const char * const suffixes[] = {
    ".json", ".json.gz", ".json.zst", ".pb", ".pb.gz", ".pb.zst",
  };

  if (name[0] == '.' || g_str_has_suffix (name, CP_SIDECAR_SUFFIX))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (name, suffixes[i]))
      return TRUE;
  return FALSE;
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Every capture below a folder, by name, sorted. */
static gboolean
scan_folder (GFile      *dir,
             GPtrArray  *out,
             guint       depth,
             GError    **error)
{
  g_autoptr(GFileEnumerator) e = NULL;
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);

  if (depth > 32)
    return TRUE;
  e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                 G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, error);
  if (e == NULL)
    return FALSE;
  for (;;)
    {
      GFileInfo *info;
      GFile *child;

      if (!g_file_enumerator_iterate (e, &info, &child, NULL, error))
        return FALSE;
      if (info == NULL)
        break;
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          if (g_file_info_get_name (info)[0] != '.' && !scan_folder (child, found, depth + 1, error))
            return FALSE;
        }
      else if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR &&
               is_capture_name (g_file_info_get_name (info)))
        g_ptr_array_add (found, g_file_get_path (child));
    }
  g_ptr_array_sort (found, compare_paths);
  for (guint i = 0; i < found->len; i++)
    g_ptr_array_add (out, g_steal_pointer (&found->pdata[i]));
  return TRUE;
}

static int
history_add (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(GHashTable) known = NULL;
  g_autoptr(GArray) labels = new_label_array ();
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GAsyncQueue) done = g_async_queue_new ();
  GThreadPool *pool;
  AddContext ctx;
  guint n_added = 0, n_known = 0, n_failed = 0;
  int jobs;

  if (o->args == NULL || o->args[0] == NULL)
    {
      g_printerr (_("chokepoint history add: name at least one capture or folder\n"));
      print_usage ();
      return CP_EXIT_USAGE;
    }
  if (!parse_labels (o->labels, labels, &error))
    return report_error ("add", error);

  for (guint i = 0; o->args[i] != NULL; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (o->args[i]);

      if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
        {
          if (!scan_folder (file, paths, 0, &error))
            return report_error ("add", error);
        }
      else
        g_ptr_array_add (paths, g_strdup (o->args[i]));
    }

  history = open_history (o, TRUE, &error);
  if (history == NULL)
    return report_error ("add", error);
  known = cp_history_get_hashes (history, &error);
  if (known == NULL)
    return report_error ("add", error);

  ctx.known = known;
  ctx.labels = labels;
  ctx.done = done;
  jobs = o->jobs > 0 ? o->jobs : (int) g_get_num_processors ();
  pool = g_thread_pool_new (run_job, &ctx, MAX (1, MIN (jobs, (int) MAX (paths->len, 1))), FALSE, NULL);
  for (guint i = 0; i < paths->len; i++)
    {
      Job *job = g_new0 (Job, 1);

      job->index = i;
      job->path = g_strdup (paths->pdata[i]);
      job->file = g_file_new_for_commandline_arg (job->path);
      g_thread_pool_push (pool, job, NULL);
    }

  /* Only this thread writes. */
  for (guint i = 0; i < paths->len; i++)
    {
      Job *job = g_async_queue_pop (done);
      gboolean added = FALSE;

      if (job->run != NULL && !cp_history_add (history, job->run, &added, &job->error))
        {
          /* A database that fails here fails for every run: stop. */
          g_printerr ("chokepoint history add: %s\n", job->error->message);
          g_thread_pool_free (pool, TRUE, TRUE);
          while ((job = g_async_queue_try_pop (done)) != NULL)
            job_free (job);
          return CP_EXIT_FAILURE;
        }
      if (job->error != NULL)
        {
          n_failed++;
          g_printerr ("chokepoint history add: %s\n", job->error->message);
        }
      else if (job->known || !added)
        {
          n_known++;
          g_print (_("known:  %s\n"), job->path);
        }
      else
        {
          n_added++;
          g_print (_("added:  %s (run %" PRId64 ")\n"), job->path, job->run->id);
        }
      job_free (job);
    }
  g_thread_pool_free (pool, FALSE, TRUE);

  g_print (_("%u added, %u already known, %u failed\n"), n_added, n_known, n_failed);
  return n_failed > 0 ? CP_EXIT_FAILURE : CP_EXIT_OK;
}

/* list */

static gboolean
make_filter (Options          *o,
             CpHistoryFilter  *filter,
             GArray           *labels,
             GError          **error)
{
  memset (filter, 0, sizeof *filter);
  if (!parse_labels (o->labels, labels, error))
    return FALSE;
  filter->labels = labels;
  if (o->since != NULL)
    {
      if (!parse_since (o->since, &filter->since_ns, error))
        return FALSE;
      filter->has_since = TRUE;
    }
  if (o->limit < 0)
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID, _("--limit takes a count of runs, not %d"),
                   o->limit);
      return FALSE;
    }
  filter->limit = (guint) o->limit;
  return TRUE;
}

static void
print_json (JsonBuilder *b)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (b);
  g_autofree char *text = NULL;

  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  g_print ("%s\n", text);
}

static char *
format_percent (double value)
{
  return isfinite (value) ? g_strdup_printf ("%.1f%%", value) : g_strdup ("—");
}

static int
history_list (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(GArray) labels = new_label_array ();
  g_autoptr(GPtrArray) runs = NULL;
  CpHistoryFilter filter;

  if (o->args != NULL && o->args[0] != NULL)
    {
      g_printerr (_("chokepoint history list: unexpected argument “%s”\n"), o->args[0]);
      return CP_EXIT_USAGE;
    }
  if (!make_filter (o, &filter, labels, &error))
    return report_error ("list", error);
  history = open_history (o, FALSE, &error);
  if (history == NULL && g_error_matches (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_MISSING))
    runs = g_ptr_array_new ();
  else if (history == NULL)
    return report_error ("list", error);
  else
    runs = cp_history_list (history, &filter, &error);
  if (runs == NULL)
    return report_error ("list", error);

  if (o->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "schema_version");
      json_builder_add_int_value (b, CP_HISTORY_SCHEMA_VERSION);
      json_builder_set_member_name (b, "runs");
      json_builder_begin_array (b);
      for (guint i = 0; i < runs->len; i++)
        cp_history_run_build_json (runs->pdata[i], b, FALSE);
      json_builder_end_array (b);
      json_builder_end_object (b);
      print_json (b);
      return CP_EXIT_OK;
    }

  if (runs->len == 0)
    {
      g_print ("%s\n", _("No runs recorded yet."));
      return CP_EXIT_OK;
    }
  /* Translators: the column heads of `chokepoint history list`. */
  g_print ("%6s  %-19s  %10s  %8s  %-8s  %s\n", _("Run"), _("Time (UTC)"), _("Step mean"), _("Busy"),
           _("Worst"), _("Capture and labels"));
  for (guint i = 0; i < runs->len; i++)
    {
      CpHistoryRun *run = runs->pdata[i];
      g_autofree char *when = format_time (run->time_ns);
      g_autofree char *mean = cp_format_ns (run->step_mean_ns);
      g_autofree char *busy = format_percent (run->busy_percent);
      g_autofree char *lab = format_labels (run);

      g_print ("%6" PRId64 "  %-19s  %10s  %8s  %-8s  %s%s%s\n", run->id, when, mean, busy,
               run->worst_severity ? run->worst_severity : "—", run->path, lab[0] ? "  " : "", lab);
    }
  return CP_EXIT_OK;
}

/* show */

static int
history_show (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(CpHistoryRun) run = NULL;
  g_autofree char *when = NULL, *mean = NULL, *p50 = NULL, *p90 = NULL, *max = NULL, *lab = NULL;

  if (o->args == NULL || o->args[0] == NULL || o->args[1] != NULL)
    {
      g_printerr (_("chokepoint history show: name one run (its id or hash)\n"));
      return CP_EXIT_USAGE;
    }
  history = open_history (o, FALSE, &error);
  if (history == NULL)
    return report_error ("show", error);
  run = cp_history_get_run (history, o->args[0], &error);
  if (run == NULL)
    return report_error ("show", error);

  if (o->json)
    {
      g_autofree char *text = cp_history_run_to_json (run, TRUE);

      g_print ("%s\n", text);
      return CP_EXIT_OK;
    }
  when = format_time (run->time_ns);
  mean = cp_format_ns (run->step_mean_ns);
  p50 = cp_format_ns (run->step_p50_ns);
  p90 = cp_format_ns (run->step_p90_ns);
  max = cp_format_ns (run->step_max_ns);
  lab = format_labels (run);
  g_print (_("Run:       %" PRId64 " (%s)\n"), run->id, run->hash);
  g_print (_("Capture:   %s (%s)\n"), run->path, run->format ? run->format : "?");
  g_print (_("Time:      %s UTC%s\n"), when, run->has_started ? "" : _(" (the file’s modification time)"));
  if (run->framework != NULL)
    g_print (_("Framework: %s\n"), run->framework);
  if (lab[0] != '\0')
    g_print (_("Labels:    %s\n"), lab);
  g_print (_("Steps:     %" PRId64 " (%s); mean %s, p50 %s, p90 %s, max %s\n"),
           run->steps, run->step_source, mean, p50, p90, max);
  for (guint i = 0; i < run->devices->len; i++)
    {
      const CpHistoryDevice *d = &g_array_index (run->devices, CpHistoryDevice, i);

      g_print (_("Device %" PRId64 ":  utilisation %.1f%%, %" PRId64 " kernels\n"),
               d->device, 100 * d->utilization, d->kernels);
    }
  for (guint i = 0; i < run->findings->len; i++)
    {
      const CpHistoryFinding *f = &g_array_index (run->findings, CpHistoryFinding, i);
      g_autofree char *stake = cp_format_ns (f->time_at_stake_ns);

      g_print (_("Finding:   %s (%s), %s at stake\n"), f->rule, f->severity, stake);
    }
  return CP_EXIT_OK;
}

static char *
format_metric (const char *unit,
               double      value)
{
  if (!isfinite (value))
    return g_strdup ("—");
  if (strcmp (unit, "ns") == 0)
    return cp_format_ns ((gint64) value);
  if (strcmp (unit, "%") == 0)
    return g_strdup_printf ("%.1f%%", value);
  return g_strdup_printf ("%.0f", value);
}

/* trend */

static int
history_trend (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(GArray) labels = new_label_array ();
  g_autoptr(GArray) points = NULL;
  CpHistoryFilter filter;
  const char *unit;

  if (o->metric == NULL)
    {
      g_printerr (_("chokepoint history trend: give --metric (step_time.mean, gpu.utilization, input.share...)\n"));
      return CP_EXIT_USAGE;
    }
  if (o->args != NULL && o->args[0] != NULL)
    {
      g_printerr (_("chokepoint history trend: unexpected argument “%s”\n"), o->args[0]);
      return CP_EXIT_USAGE;
    }
  if (!cp_history_metric_is_valid (o->metric, &error) || !make_filter (o, &filter, labels, &error))
    return report_error ("trend", error);
  history = open_history (o, FALSE, &error);
  if (history == NULL && g_error_matches (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_MISSING))
    points = g_array_new (FALSE, FALSE, sizeof (CpHistoryPoint));
  else if (history == NULL)
    return report_error ("trend", error);
  else
    points = cp_history_trend (history, o->metric, &filter, &error);
  if (points == NULL)
    return report_error ("trend", error);
  if (!(o->threshold >= 0 && o->threshold <= 1000))
    {
      g_printerr (_("chokepoint history trend: --threshold takes a percentage from 0 to 1000\n"));
      return CP_EXIT_USAGE;
    }
  unit = cp_history_metric_unit (o->metric);
  cp_history_mark_regressions (points, o->metric, o->threshold / 100);

  if (o->json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "metric");
      json_builder_add_string_value (b, o->metric);
      json_builder_set_member_name (b, "unit");
      json_builder_add_string_value (b, unit);
      json_builder_set_member_name (b, "threshold_percent");
      json_builder_add_double_value (b, o->threshold);
      json_builder_set_member_name (b, "points");
      json_builder_begin_array (b);
      for (guint i = 0; i < points->len; i++)
        {
          const CpHistoryPoint *p = &g_array_index (points, CpHistoryPoint, i);

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "run");
          json_builder_add_int_value (b, p->id);
          json_builder_set_member_name (b, "time_ns");
          json_builder_add_int_value (b, p->time_ns);
          json_builder_set_member_name (b, "value");
          if (isfinite (p->value))
            json_builder_add_double_value (b, p->value);
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "baseline");
          if (isfinite (p->baseline))
            json_builder_add_double_value (b, p->baseline);
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "regression");
          json_builder_add_boolean_value (b, p->regression);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      print_json (b);
      return CP_EXIT_OK;
    }

  if (points->len == 0)
    {
      g_print ("%s\n", _("No runs match."));
      return CP_EXIT_OK;
    }
  for (guint i = 0; i < points->len; i++)
    {
      const CpHistoryPoint *p = &g_array_index (points, CpHistoryPoint, i);
      g_autofree char *when = format_time (p->time_ns);
      g_autofree char *value = format_metric (unit, p->value);
      if (p->regression)
        {
          g_autofree char *base = format_metric (unit, p->baseline);

          /* Translators: a run of `history trend` worse than the median of
           * the runs before it: "regression: median before 41.0 ms". */
          g_print (_("%6" PRId64 "  %-19s  %s  regression: median before %s\n"), p->id, when, value, base);
        }
      else
        g_print ("%6" PRId64 "  %-19s  %s\n", p->id, when, value);
    }
  return CP_EXIT_OK;
}

/* forget */

static int
history_forget (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = NULL;

  if (o->args == NULL || o->args[0] == NULL)
    {
      g_printerr (_("chokepoint history forget: name the runs to forget (ids or hashes)\n"));
      return CP_EXIT_USAGE;
    }
  history = open_history (o, FALSE, &error);
  if (history == NULL)
    return report_error ("forget", error);
  for (guint i = 0; o->args[i] != NULL; i++)
    {
      g_autoptr(CpHistoryRun) run = cp_history_get_run (history, o->args[i], &error);

      if (run == NULL || !cp_history_forget (history, run->id, &error))
        return report_error ("forget", error);
      g_print (_("forgot: run %" PRId64 " (%s)\n"), run->id, run->path);
    }
  return CP_EXIT_OK;
}

struct _CpCliHash
{
  GFile   *file;
  GThread *thread;
  char    *hash;
  GError  *error;
};

static gpointer
hash_thread (gpointer data)
{
  CpCliHash *h = data;

  h->hash = cp_history_hash_file (h->file, NULL, &h->error);
  return NULL;
}

CpCliHash *
cp_cli_hash_start (GFile *file)
{
  CpCliHash *h = g_new0 (CpCliHash, 1);

  h->file = g_object_ref (file);
  h->thread = g_thread_new ("cp-hash", hash_thread, h);
  return h;
}

static void
hash_join (CpCliHash *h)
{
  if (h->thread != NULL)
    g_thread_join (g_steal_pointer (&h->thread));
}

void
cp_cli_hash_free (CpCliHash *h)
{
  if (h == NULL)
    return;
  hash_join (h);
  g_object_unref (h->file);
  g_free (h->hash);
  g_clear_error (&h->error);
  g_free (h);
}

gboolean
cp_cli_record (CpAnalysis   *analysis,
               CpCliHash    *hash,
               char * const *labels,
               const char   *database)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) parsed = new_label_array ();
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(CpHistoryRun) run = NULL;
  g_autofree char *location = database != NULL ? g_strdup (database) : cp_history_default_location ();
  gboolean added = FALSE;

  hash_join (hash);
  if (hash->hash == NULL)
    {
      g_printerr (_("chokepoint diagnose: not recorded: %s\n"), hash->error->message);
      return FALSE;
    }
  if (!parse_labels ((char **) labels, parsed, &error) ||
      (history = cp_history_open (location, TRUE, &error)) == NULL)
    {
      g_printerr (_("chokepoint diagnose: not recorded: %s\n"), error->message);
      return FALSE;
    }
  run = cp_history_run_new_from_analysis (analysis, hash->hash);
  for (guint i = 0; i < parsed->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (parsed, CpHistoryLabel, i);

      cp_history_run_set_label (run, l->key, l->value);
    }
  if (!cp_history_add (history, run, &added, &error))
    {
      g_printerr (_("chokepoint diagnose: not recorded: %s\n"), error->message);
      return FALSE;
    }
  if (added)
    g_printerr (_("chokepoint diagnose: recorded as run %" PRId64 " in %s\n"), run->id, cp_history_get_location (history));
  else
    g_printerr (_("chokepoint diagnose: already in the history as run %" PRId64 "\n"), run->id);
  return TRUE;
}

static CpHistoryRun *
run_with_labels (CpAnalysis   *analysis,
                 char * const *labels)
{
  CpHistoryRun *run = cp_history_run_new_from_analysis (analysis, NULL);
  g_autoptr(GArray) parsed = new_label_array ();

  /* The labels were checked when the conditions were parsed or here. */
  if (parse_labels ((char **) labels, parsed, NULL))
    for (guint i = 0; i < parsed->len; i++)
      {
        const CpHistoryLabel *l = &g_array_index (parsed, CpHistoryLabel, i);

        cp_history_run_set_label (run, l->key, l->value);
      }
  return run;
}

GPtrArray *
cp_cli_parse_conditions (char * const *texts,
                         char * const *labels)
{
  g_autoptr(GPtrArray) conds = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_history_condition_free);
  g_autoptr(GArray) parsed = new_label_array ();
  g_autoptr(GError) error = NULL;

  if (!parse_labels ((char **) labels, parsed, &error))
    {
      g_printerr ("chokepoint diagnose: %s\n", error->message);
      return NULL;
    }
  for (guint i = 0; texts[i] != NULL; i++)
    {
      CpHistoryCondition *cond = cp_history_condition_parse (texts[i], &error);

      if (cond == NULL)
        {
          g_printerr (_("chokepoint diagnose: --fail-if %s\n"), error->message);
          return NULL;
        }
      g_ptr_array_add (conds, cond);
    }
  return g_steal_pointer (&conds);
}

gboolean
cp_cli_conditions_hold (GPtrArray  *conditions,
                        CpAnalysis *analysis)
{
  g_autoptr(CpHistoryRun) run = run_with_labels (analysis, NULL);
  gboolean any = FALSE;

  for (guint i = 0; i < conditions->len; i++)
    {
      CpHistoryCondition *cond = conditions->pdata[i];
      const char *metric = cp_history_condition_get_metric (cond);
      double value;

      if (cp_history_condition_holds (cond, run, &value))
        {
          g_autofree char *v = format_metric (cp_history_metric_unit (metric), value);

          /* Translators: "--fail-if gpu.utilization<80% holds: gpu.utilization is 41.8%". */
          g_printerr (_("chokepoint diagnose: --fail-if %s holds: %s is %s\n"),
                      cp_history_condition_get_text (cond), metric, v);
          any = TRUE;
        }
    }
  return any;
}

char *
cp_cli_openmetrics (CpAnalysis   *analysis,
                    char * const *labels)
{
  g_autoptr(CpHistoryRun) run = run_with_labels (analysis, labels);

  return cp_history_run_to_openmetrics (run);
}

/* fleet */

static int
history_fleet (Options *o)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(GArray) labels = new_label_array ();
  g_autoptr(CpHistoryFleet) fleet = NULL;
  g_autofree char *text = NULL;
  CpCliFleetFormat format = o->json ? CP_CLI_FLEET_JSON : CP_CLI_FLEET_TEXT;
  CpHistoryFilter filter;
  gint64 until_ns = g_get_real_time () * 1000;

  if (o->args != NULL && o->args[0] != NULL)
    {
      g_printerr (_("chokepoint history fleet: unexpected argument “%s”\n"), o->args[0]);
      return CP_EXIT_USAGE;
    }
  if (o->format != NULL)
    {
      if (strcmp (o->format, "markdown") == 0 && !o->json)
        format = CP_CLI_FLEET_MARKDOWN;
      else if (strcmp (o->format, "json") == 0)
        format = CP_CLI_FLEET_JSON;
      else if (strcmp (o->format, "text") != 0 || o->json)
        {
          g_printerr (_("chokepoint history fleet: --format takes text, markdown or json (and not with --json), not “%s”\n"),
                      o->format);
          return CP_EXIT_USAGE;
        }
    }
  if (!(o->threshold >= 0 && o->threshold <= 1000))
    {
      g_printerr (_("chokepoint history fleet: --threshold takes a percentage from 0 to 1000\n"));
      return CP_EXIT_USAGE;
    }
  if (o->worst < 0 || o->worst > 1000)
    {
      g_printerr (_("chokepoint history fleet: --worst takes a count from 0 to 1000, not %d\n"), o->worst);
      return CP_EXIT_USAGE;
    }
  for (guint i = 0; o->by != NULL && o->by[i] != NULL; i++)
    {
      g_autofree char *key = NULL, *value = NULL, *pair = g_strconcat (o->by[i], "=x", NULL);

      if (!cp_history_parse_label (pair, &key, &value, &error))
        return report_error ("fleet", error);
    }
  if (!make_filter (o, &filter, labels, &error) ||
      (o->until != NULL && !parse_since (o->until, &until_ns, &error)))
    return report_error ("fleet", error);
  history = open_history (o, FALSE, &error);
  if (history == NULL)
    return report_error ("fleet", error);
  fleet = cp_history_fleet (history, &filter, (const char * const *) o->by, o->worst == 0 ? 5 : (guint) o->worst,
                            until_ns, o->threshold, &error);
  if (fleet == NULL)
    return report_error ("fleet", error);
  text = cp_cli_fleet_format (fleet, cp_history_get_location (history), format);
  g_print ("%s%s", text, format == CP_CLI_FLEET_JSON ? "\n" : "");
  return CP_EXIT_OK;
}

typedef int (*Subcommand) (Options *o);

int
cp_cli_history (int    argc,
                char **argv)
{
  static const struct
  {
    const char *name;
    Subcommand  run;
  } subs[] = {
    { "add", history_add },
    { "list", history_list },
    { "show", history_show },
    { "trend", history_trend },
    { "forget", history_forget },
    { "fleet", history_fleet },
  };
  g_auto(Options) o = { .threshold = 5 };
  const GOptionEntry entries[] = {
    { "database", 'd', 0, G_OPTION_ARG_FILENAME, &o.database,
      N_("The history: an SQLite file or postgresql://... (default: $CHOKEPOINT_DATABASE, else DATADIR/chokepoint/history.sqlite)"), N_("PATH") },
    { "label", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &o.labels,
      N_("add: give every run this label; list, trend: only runs with it"), N_("KEY=VALUE") },
    { "since", 's', 0, G_OPTION_ARG_STRING, &o.since,
      N_("list, trend: only runs from then on (2026-12-01, 2026-12-01T09:30:00Z, 12h, 7d, 2w)"), N_("WHEN") },
    { "metric", 'm', 0, G_OPTION_ARG_STRING, &o.metric,
      N_("trend: step_time.mean|p50|p90|min|max, gpu.utilization, gpu.busy, input.share, steps, "
         "kernel_time, warnings, breakdown.CATEGORY.percent, finding.RULE.time_at_stake, "
         "device.N.utilization"), N_("NAME") },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &o.limit, N_("list: only the latest N runs"), N_("N") },
    { "threshold", 't', 0, G_OPTION_ARG_DOUBLE, &o.threshold,
      N_("trend: mark a run worse than the median of the runs before it by more than this; fleet: a group worse than the week before by more than this (default 5)"),
      N_("PERCENT") },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs, N_("add: captures read at once (default: one per core)"), N_("N") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, N_("Print JSON (see docs/history.md)"), NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &o.format, N_("fleet: text (default), markdown or json"), N_("FORMAT") },
    { "by", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.by,
      N_("fleet: group utilisation and regressions by this label (default: node, image, model)"), N_("KEY") },
    { "until", 0, 0, G_OPTION_ARG_STRING, &o.until,
      N_("fleet: the end of the last week compared (default: now)"), N_("WHEN") },
    { "worst", 0, 0, G_OPTION_ARG_INT, &o.worst, N_("fleet: the worst N runs per metric (default 5)"), N_("N") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o.args, NULL, N_("ARGS") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *prgname = NULL;
  const char *sub = argc >= 2 ? argv[1] : NULL;

  if (sub == NULL || strcmp (sub, "--help") == 0 || strcmp (sub, "-h") == 0)
    {
      print_usage ();
      return sub == NULL ? CP_EXIT_USAGE : CP_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (subs); i++)
    {
      if (strcmp (sub, subs[i].name) != 0)
        continue;
      context = g_option_context_new (N_("— the run history"));
      g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
      g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
      g_option_context_set_summary (context,
                                    _("Records the figures of captures in a database and shows them over "
                                      "time: add, list, show, trend, forget, fleet. See docs/history.md."));
      g_option_context_set_description (context,
                                        _("Exit status: 0 done, 1 a capture could not be read or the "
                                          "database could not be used (it is then left as it is), "
                                          "2 bad arguments."));
      prgname = g_strconcat ("chokepoint history ", sub, NULL);
      g_set_prgname (prgname);
      argc--;
      argv++;
      if (!g_option_context_parse (context, &argc, &argv, &error))
        {
          g_printerr ("chokepoint history %s: %s\n", sub, error->message);
          return CP_EXIT_USAGE;
        }
      return subs[i].run (&o);
    }
  g_printerr (_("chokepoint history: unknown subcommand “%s”\n"), sub);
  print_usage ();
  return CP_EXIT_USAGE;
}
