/* cp-history-fleet.c: fleet-wide answers from the run history
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Statements both engines run as written, each one scan: the findings
 * counted and summed in SQL; each run's metrics read once (one row per
 * run, and its devices' utilisations), and each grouping label's (run,
 * value) pairs once; then
 * worst runs, exact nearest-rank percentiles (SQLite has no percentile
 * function) and weekly means computed here. 100,000 runs are a few MB.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cp-history-fleet.h"
#include "cp-history-backend.h"
#include "cp-history-private.h"

#define WEEK_NS (G_GINT64_CONSTANT (7) * 24 * 3600 * 1000000000)

const char * const cp_history_fleet_metrics[] = {
  "step_time.mean", "step_time.p90", "gpu.utilization", "input.share", NULL,
};

static const char * const default_keys[] = { "node", "image", "model", NULL };

static void
finding_free (CpFleetFinding *f)
{
  g_free (f->rule);
  g_free (f);
}

static void
fleet_run_clear (gpointer data)
{
  g_free (((CpFleetRun *) data)->path);
}

static void
worst_free (CpFleetWorst *w)
{
  g_free (w->metric);
  g_free (w->unit);
  g_array_unref (w->runs);
  g_free (w);
}

static void
utilization_free (CpFleetUtilization *u)
{
  g_free (u->key);
  g_free (u->value);
  g_free (u);
}

static void
change_free (CpFleetChange *c)
{
  g_free (c->key);
  g_free (c->value);
  g_free (c->metric);
  g_free (c->unit);
  g_free (c);
}

void
cp_history_fleet_free (CpHistoryFleet *fleet)
{
  if (fleet == NULL)
    return;
  g_strfreev (fleet->keys);
  g_ptr_array_unref (fleet->findings);
  g_ptr_array_unref (fleet->worst);
  g_ptr_array_unref (fleet->utilization);
  g_ptr_array_unref (fleet->changes);
  g_free (fleet);
}

/* A statement of this history, freed by g_autoptr. */
typedef struct
{
  const CpHistoryBackend *be;
  CpHistoryStmt          *stmt;
} Query;

static void
query_free (Query *q)
{
  if (q == NULL)
    return;
  q->be->finalize (q->stmt);
  g_free (q);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Query, query_free)

static Query *
query_new (CpHistory   *self,
           const char  *sql,
           GError     **error)
{
  const CpHistoryBackend *be = _cp_history_get_backend (self);
  CpHistoryStmt *stmt = be->prepare (_cp_history_get_conn (self), sql, error);
  Query *q;

  if (stmt == NULL)
    return NULL;
  q = g_new (Query, 1);
  q->be = be;
  q->stmt = stmt;
  return q;
}

/* The SQL of a fixed metric over runs r; gpu.utilization (the least busy
 * device's, a subquery per run in cp-history-metric.c) is read from
 * run_devices apart, which is one scan instead of 100,000 lookups. */
static const char *
metric_sql (const char *metric)
{
  CpHistoryMetricKind kind;
  const CpHistoryMetric *fixed = NULL;
  g_autofree char *part = NULL;

  if (strcmp (metric, "gpu.utilization") == 0)
    return "NULL";
  if (!_cp_history_metric_parse (metric, &kind, &fixed, &part, NULL) || kind != CP_HISTORY_METRIC_FIXED)
    g_return_val_if_reached ("NULL");
  return fixed->sql;
}

static gboolean
has_filter (const CpHistoryFilter *filter)
{
  return filter != NULL && (filter->has_since || (filter->labels != NULL && filter->labels->len > 0));
}

/* " AND|WHERE <column> IN (the runs the filter selects)", when it selects. */
static void
filter_runs_sql (const CpHistoryFilter *filter,
                 const char            *glue,
                 const char            *column,
                 GString               *sql)
{
  if (!has_filter (filter))
    return;
  g_string_append_printf (sql, "%s%s IN (SELECT r.id FROM runs r", glue, column);
  _cp_history_filter_sql (filter, sql);
  g_string_append (sql, ")");
}

static gboolean
read_findings (CpHistory              *self,
               const CpHistoryFilter  *filter,
               CpHistoryFleet         *fleet,
               GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT f.rule, count(*),"
                                         " sum(CASE WHEN f.severity <> 'info' THEN 1 ELSE 0 END),"
                                         " sum(f.time_at_stake_ns) FROM run_findings f");
  g_autoptr(Query) q = NULL;
  CpHistoryStep step;
  guint k = 1;

  filter_runs_sql (filter, " WHERE ", "f.run_id", sql);
  g_string_append (sql, " GROUP BY f.rule ORDER BY count(*) DESC, f.rule");
  if ((q = query_new (self, sql->str, error)) == NULL)
    return FALSE;
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      CpFleetFinding *f = g_new0 (CpFleetFinding, 1);

      f->rule = g_strdup (q->be->column_text (q->stmt, 0));
      f->runs = q->be->column_int (q->stmt, 1);
      f->above_info = q->be->column_int (q->stmt, 2);
      f->time_at_stake_ns = q->be->column_int (q->stmt, 3);
      f->percent = fleet->runs > 0 ? 100.0 * (double) f->runs / (double) fleet->runs : NAN;
      g_ptr_array_add (fleet->findings, f);
    }
  return step == CP_HISTORY_STEP_DONE;
}

/* One run's figures, in the order of cp_history_fleet_metrics. */
#define N_METRICS (G_N_ELEMENTS (cp_history_fleet_metrics) - 1)

typedef struct
{
  gint64 id;
  gint64 time_ns;
  double v[N_METRICS];       /* NAN: the run lacks it */
} RunFigures;

#define UTIL 2                /* gpu.utilization's place */

G_STATIC_ASSERT (N_METRICS == 4);

static int
compare_runs (gconstpointer a,
              gconstpointer b)
{
  gint64 x = ((const RunFigures *) a)->id, y = ((const RunFigures *) b)->id;

  return x < y ? -1 : x > y;
}

static GArray *
read_runs (CpHistory              *self,
           const CpHistoryFilter  *filter,
           GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT r.id, r.time_ns");
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (RunFigures));
  g_autoptr(Query) q = NULL;
  CpHistoryStep step;
  guint k = 1;

  for (guint i = 0; i < N_METRICS; i++)
    g_string_append_printf (sql, ", %s", metric_sql (cp_history_fleet_metrics[i]));
  g_string_append (sql, " FROM runs r");
  _cp_history_filter_sql (filter, sql);
  if ((q = query_new (self, sql->str, error)) == NULL)
    return NULL;
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      RunFigures r;

      r.id = q->be->column_int (q->stmt, 0);
      r.time_ns = q->be->column_int (q->stmt, 1);
      for (guint i = 0; i < N_METRICS; i++)
        r.v[i] = q->be->column_is_null (q->stmt, 2 + i) ? NAN : q->be->column_double (q->stmt, 2 + i);
      g_array_append_val (runs, r);
    }
  if (step != CP_HISTORY_STEP_DONE)
    return NULL;
  /* By id, for bsearch: cheaper here than an ORDER BY in the server. */
  g_array_sort (runs, compare_runs);
  return g_steal_pointer (&runs);
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = ((const RunFigures *) b)->id;

  return x < y ? -1 : x > y;
}

/* gpu.utilization of each run: 100 times its least busy device's. */
static gboolean
read_utilization (CpHistory              *self,
                  const CpHistoryFilter  *filter,
                  GArray                 *runs,
                  GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT d.run_id, d.utilization FROM run_devices d"
                                         " WHERE d.utilization IS NOT NULL");
  g_autoptr(Query) q = NULL;
  CpHistoryStep step;
  guint k = 1;

  filter_runs_sql (filter, " AND ", "d.run_id", sql);
  if ((q = query_new (self, sql->str, error)) == NULL)
    return FALSE;
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      gint64 id = q->be->column_int (q->stmt, 0);
      double u = 100.0 * q->be->column_double (q->stmt, 1);
      RunFigures *r = bsearch (&id, runs->data, runs->len, sizeof (RunFigures), compare_ids);

      if (r != NULL && isfinite (u) && !(r->v[UTIL] <= u))
        r->v[UTIL] = u;
    }
  return step == CP_HISTORY_STEP_DONE;
}

/* For each key, per value: the places (guint) in runs of the runs with
 * it, as a table value → GArray; one scan of run_labels for all keys. */
static GPtrArray *
read_groups (CpHistory              *self,
             const CpHistoryFilter  *filter,
             char                  **keys,
             GArray                 *runs,
             GError                **error)
{
  g_autoptr(GPtrArray) tables = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_autoptr(GString) sql = g_string_new ("SELECT l.run_id, l.key, l.value FROM run_labels l WHERE l.key IN (");
  g_autoptr(Query) q = NULL;
  guint n_keys = g_strv_length (keys);
  CpHistoryStep step;
  guint k = 1;

  for (guint i = 0; i < n_keys; i++)
    {
      g_ptr_array_add (tables, g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) g_array_unref));
      g_string_append (sql, i == 0 ? "?" : ", ?");
    }
  if (n_keys == 0)
    return g_steal_pointer (&tables);
  g_string_append (sql, ")");
  filter_runs_sql (filter, " AND ", "l.run_id", sql);
  if ((q = query_new (self, sql->str, error)) == NULL)
    return NULL;
  for (guint i = 0; i < n_keys; i++)
    q->be->bind_text (q->stmt, k++, keys[i]);
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      gint64 id = q->be->column_int (q->stmt, 0);
      const char *key = q->be->column_text (q->stmt, 1);
      const char *value = q->be->column_text (q->stmt, 2);
      const RunFigures *r = bsearch (&id, runs->data, runs->len, sizeof (RunFigures), compare_ids);
      GHashTable *groups = NULL;
      GArray *members;
      guint place;

      for (guint i = 0; key != NULL && i < n_keys; i++)
        if (strcmp (keys[i], key) == 0)
          groups = tables->pdata[i];
      if (r == NULL || value == NULL || groups == NULL)
        continue;
      place = (guint) (r - (const RunFigures *) (gconstpointer) runs->data);
      members = g_hash_table_lookup (groups, value);
      if (members == NULL)
        {
          members = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (groups, g_strdup (value), members);
        }
      g_array_append_val (members, place);
    }
  if (step != CP_HISTORY_STEP_DONE)
    return NULL;
  return g_steal_pointer (&tables);
}

typedef struct
{
  double value;
  gint64 id;
} Ranked;

static int
compare_ranked_up (gconstpointer a,
                   gconstpointer b)
{
  const Ranked *x = a, *y = b;

  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int
compare_ranked_down (gconstpointer a,
                     gconstpointer b)
{
  const Ranked *x = a, *y = b;

  if (x->value != y->value)
    return x->value > y->value ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static gboolean
read_path (CpHistory   *self,
           gint64       id,
           char       **path,
           GError     **error)
{
  g_autoptr(Query) q = query_new (self, "SELECT path FROM runs WHERE id = ?", error);

  if (q == NULL)
    return FALSE;
  q->be->bind_int (q->stmt, 1, id);
  if (q->be->step (q->stmt, error) != CP_HISTORY_STEP_ROW)
    return FALSE;
  *path = g_strdup (q->be->column_text (q->stmt, 0));
  return TRUE;
}

static gboolean
add_worst (CpHistory       *self,
           GArray          *runs,
           guint            metric,
           guint            limit,
           CpHistoryFleet  *fleet,
           GError         **error)
{
  const char *name = cp_history_fleet_metrics[metric];
  CpFleetWorst *w = g_new0 (CpFleetWorst, 1);
  g_autoptr(GArray) ranked = g_array_new (FALSE, FALSE, sizeof (Ranked));

  w->metric = g_strdup (name);
  w->unit = g_strdup (cp_history_metric_unit (name));
  w->worse = cp_history_metric_worse (name);
  w->runs = g_array_new (FALSE, TRUE, sizeof (CpFleetRun));
  g_array_set_clear_func (w->runs, fleet_run_clear);
  g_ptr_array_add (fleet->worst, w);

  for (guint i = 0; i < runs->len; i++)
    {
      const RunFigures *r = &g_array_index (runs, RunFigures, i);
      Ranked x = { r->v[metric], r->id };

      if (isfinite (x.value))
        g_array_append_val (ranked, x);
    }
  g_array_sort (ranked, w->worse < 0 ? compare_ranked_up : compare_ranked_down);
  for (guint i = 0; i < ranked->len && i < limit; i++)
    {
      const Ranked *x = &g_array_index (ranked, Ranked, i);
      CpFleetRun r = { x->id, x->value, NULL };

      if (!read_path (self, x->id, &r.path, error))
        return FALSE;
      g_array_append_val (w->runs, r);
    }
  return TRUE;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p of the values at or
 * below it. */
static double
nearest_rank (const GArray *sorted,
              double        p)
{
  gsize n = sorted->len, i = (gsize) ceil (p * (double) n);

  if (i < 1)
    i = 1;
  if (i > n)
    i = n;
  return g_array_index (sorted, double, i - 1);
}

/* members NULL: every run. */
static void
add_distribution (CpHistoryFleet *fleet,
                  const char     *key,
                  const char     *value,
                  GArray         *runs,
                  GArray         *members)
{
  g_autoptr(GArray) sorted = g_array_new (FALSE, FALSE, sizeof (double));
  guint n = members != NULL ? members->len : runs->len;
  CpFleetUtilization *u;
  double sum = 0;

  for (guint i = 0; i < n; i++)
    {
      guint place = members != NULL ? g_array_index (members, guint, i) : i;
      double v = g_array_index (runs, RunFigures, place).v[UTIL];

      if (isfinite (v))
        {
          g_array_append_val (sorted, v);
          sum += v;
        }
    }
  if (sorted->len == 0)
    return;
  g_array_sort (sorted, compare_doubles);
  u = g_new0 (CpFleetUtilization, 1);
  u->key = g_strdup (key);
  u->value = g_strdup (value);
  u->runs = sorted->len;
  u->mean = sum / sorted->len;
  u->min = g_array_index (sorted, double, 0);
  u->max = g_array_index (sorted, double, sorted->len - 1);
  u->p10 = nearest_rank (sorted, 0.10);
  u->p50 = nearest_rank (sorted, 0.50);
  u->p90 = nearest_rank (sorted, 0.90);
  g_ptr_array_add (fleet->utilization, u);
}

/* members NULL: every run. */
static void
add_changes (CpHistoryFleet *fleet,
             const char     *key,
             const char     *value,
             GArray         *runs,
             GArray         *members)
{
  guint n = members != NULL ? members->len : runs->len;
  gint64 count[2][N_METRICS] = { { 0 } };
  double sum[2][N_METRICS] = { { 0 } };

  for (guint i = 0; i < n; i++)
    {
      guint place = members != NULL ? g_array_index (members, guint, i) : i;
      const RunFigures *r = &g_array_index (runs, RunFigures, place);
      int week;

      if (r->time_ns >= fleet->until_ns - WEEK_NS && r->time_ns < fleet->until_ns)
        week = 1;
      else if (r->time_ns >= fleet->until_ns - 2 * WEEK_NS && r->time_ns < fleet->until_ns - WEEK_NS)
        week = 0;
      else
        continue;
      for (guint m = 0; m < N_METRICS; m++)
        if (isfinite (r->v[m]))
          {
            count[week][m]++;
            sum[week][m] += r->v[m];
          }
    }
  for (guint m = 0; m < N_METRICS; m++)
    {
      const char *metric = cp_history_fleet_metrics[m];
      CpFleetChange *c;

      if (count[0][m] == 0 || count[1][m] == 0)
        continue;
      c = g_new0 (CpFleetChange, 1);
      c->key = g_strdup (key);
      c->value = g_strdup (value);
      c->metric = g_strdup (metric);
      c->unit = g_strdup (cp_history_metric_unit (metric));
      c->runs_before = count[0][m];
      c->runs_after = count[1][m];
      c->before = sum[0][m] / count[0][m];
      c->after = sum[1][m] / count[1][m];
      c->change_percent = c->before != 0 ? 100.0 * (c->after - c->before) / fabs (c->before) : NAN;
      c->regression = isfinite (c->change_percent) &&
                      cp_history_metric_worse (metric) * c->change_percent > fleet->threshold;
      g_ptr_array_add (fleet->changes, c);
    }
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

CpHistoryFleet *
cp_history_fleet (CpHistory              *self,
                  const CpHistoryFilter  *filter,
                  const char * const     *keys,
                  guint                   worst,
                  gint64                  until_ns,
                  double                  threshold,
                  GError                **error)
{
  g_autoptr(CpHistoryFleet) fleet = g_new0 (CpHistoryFleet, 1);
  g_autoptr(GArray) runs = NULL;
  g_autoptr(GPtrArray) tables = NULL;

  fleet->keys = g_strdupv ((char **) (keys != NULL ? keys : default_keys));
  fleet->until_ns = until_ns;
  fleet->threshold = threshold;
  fleet->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) finding_free);
  fleet->worst = g_ptr_array_new_with_free_func ((GDestroyNotify) worst_free);
  fleet->utilization = g_ptr_array_new_with_free_func ((GDestroyNotify) utilization_free);
  fleet->changes = g_ptr_array_new_with_free_func ((GDestroyNotify) change_free);

  if ((runs = read_runs (self, filter, error)) == NULL || !read_utilization (self, filter, runs, error))
    return NULL;
  fleet->runs = runs->len;
  if (!read_findings (self, filter, fleet, error))
    return NULL;
  for (guint m = 0; m < N_METRICS; m++)
    if (!add_worst (self, runs, m, worst, fleet, error))
      return NULL;
  add_distribution (fleet, NULL, NULL, runs, NULL);
  add_changes (fleet, NULL, NULL, runs, NULL);
  if ((tables = read_groups (self, filter, fleet->keys, runs, error)) == NULL)
    return NULL;
  for (guint i = 0; fleet->keys[i] != NULL; i++)
    {
      GHashTable *groups = tables->pdata[i];
      g_autofree gpointer *values = NULL;
      guint n_values = 0;

      values = g_hash_table_get_keys_as_array (groups, &n_values);
      qsort (values, n_values, sizeof (gpointer), compare_strings);
      for (guint v = 0; v < n_values; v++)
        add_distribution (fleet, fleet->keys[i], values[v], runs, g_hash_table_lookup (groups, values[v]));
      for (guint v = 0; v < n_values; v++)
        add_changes (fleet, fleet->keys[i], values[v], runs, g_hash_table_lookup (groups, values[v]));
    }
  return g_steal_pointer (&fleet);
}
