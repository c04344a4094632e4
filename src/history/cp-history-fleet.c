/* cp-history-fleet.c: fleet-wide answers from the run history
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A handful of aggregate queries over the runs a filter selects, each one
 * statement that both engines run as written: counts and sums grouped in
 * SQL, the utilisation values fetched sorted per group so that the
 * percentiles are exact (nearest rank) without an engine's percentile
 * function, which SQLite lacks.
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

/* The SQL of a fixed metric over runs r. */
static const char *
metric_sql (const char *metric)
{
  CpHistoryMetricKind kind;
  const CpHistoryMetric *fixed = NULL;
  g_autofree char *part = NULL;

  if (!_cp_history_metric_parse (metric, &kind, &fixed, &part, NULL) || kind != CP_HISTORY_METRIC_FIXED)
    g_return_val_if_reached ("NULL");
  return fixed->sql;
}

static gboolean
count_runs (CpHistory              *self,
            const CpHistoryFilter  *filter,
            gint64                 *runs,
            GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT count(*) FROM runs r");
  g_autoptr(Query) q = NULL;
  guint k = 1;

  _cp_history_filter_sql (filter, sql);
  if ((q = query_new (self, sql->str, error)) == NULL)
    return FALSE;
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  if (q->be->step (q->stmt, error) != CP_HISTORY_STEP_ROW)
    return FALSE;
  *runs = q->be->column_int (q->stmt, 0);
  return TRUE;
}

static gboolean
read_findings (CpHistory              *self,
               const CpHistoryFilter  *filter,
               CpHistoryFleet         *fleet,
               GError                **error)
{
  g_autoptr(GString) sql = g_string_new ("SELECT f.rule, count(*),"
                                         " sum(CASE WHEN f.severity <> 'info' THEN 1 ELSE 0 END),"
                                         " sum(f.time_at_stake_ns) FROM run_findings f"
                                         " WHERE f.run_id IN (SELECT r.id FROM runs r");
  g_autoptr(Query) q = NULL;
  CpHistoryStep step;
  guint k = 1;

  _cp_history_filter_sql (filter, sql);
  g_string_append (sql, ") GROUP BY f.rule ORDER BY count(*) DESC, f.rule");
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

static gboolean
read_worst (CpHistory              *self,
            const CpHistoryFilter  *filter,
            const char             *metric,
            guint                   limit,
            CpHistoryFleet         *fleet,
            GError                **error)
{
  CpFleetWorst *w = g_new0 (CpFleetWorst, 1);
  g_autoptr(GString) sql = g_string_new (NULL);
  g_autoptr(Query) q = NULL;
  CpHistoryStep step;
  guint k = 1;

  w->metric = g_strdup (metric);
  w->unit = g_strdup (cp_history_metric_unit (metric));
  w->worse = cp_history_metric_worse (metric);
  w->runs = g_array_new (FALSE, TRUE, sizeof (CpFleetRun));
  g_array_set_clear_func (w->runs, fleet_run_clear);
  g_ptr_array_add (fleet->worst, w);

  g_string_printf (sql, "SELECT w.id, w.v, w.path FROM (SELECT r.id, %s AS v, r.path FROM runs r",
                   metric_sql (metric));
  _cp_history_filter_sql (filter, sql);
  g_string_append_printf (sql, ") AS w WHERE w.v IS NOT NULL ORDER BY w.v %s, w.id LIMIT %u",
                          w->worse < 0 ? "ASC" : "DESC", limit);
  if ((q = query_new (self, sql->str, error)) == NULL)
    return FALSE;
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      CpFleetRun r = { 0 };

      r.id = q->be->column_int (q->stmt, 0);
      r.value = q->be->column_double (q->stmt, 1);
      r.path = g_strdup (q->be->column_text (q->stmt, 2));
      g_array_append_val (w->runs, r);
    }
  return step == CP_HISTORY_STEP_DONE;
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

static void
add_distribution (CpHistoryFleet *fleet,
                  const char     *key,
                  const char     *value,
                  GArray         *sorted)
{
  CpFleetUtilization *u;
  double sum = 0;

  if (sorted->len == 0)
    return;
  u = g_new0 (CpFleetUtilization, 1);
  u->key = g_strdup (key);
  u->value = g_strdup (value);
  u->runs = sorted->len;
  for (guint i = 0; i < sorted->len; i++)
    sum += g_array_index (sorted, double, i);
  u->mean = sum / sorted->len;
  u->min = g_array_index (sorted, double, 0);
  u->max = g_array_index (sorted, double, sorted->len - 1);
  u->p10 = nearest_rank (sorted, 0.10);
  u->p50 = nearest_rank (sorted, 0.50);
  u->p90 = nearest_rank (sorted, 0.90);
  g_ptr_array_add (fleet->utilization, u);
  g_array_set_size (sorted, 0);
}

/* key NULL: one group of every run. */
static gboolean
read_utilization (CpHistory              *self,
                  const CpHistoryFilter  *filter,
                  const char             *key,
                  CpHistoryFleet         *fleet,
                  GError                **error)
{
  g_autoptr(GString) sql = g_string_new (NULL);
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(Query) q = NULL;
  g_autofree char *group = NULL;
  CpHistoryStep step;
  guint k = 1;

  g_string_printf (sql, "SELECT u.g, u.v FROM (SELECT %s AS g, %s AS v FROM runs r%s",
                   key != NULL ? "l.value" : "''", metric_sql ("gpu.utilization"),
                   key != NULL ? " JOIN run_labels l ON l.run_id = r.id AND l.key = ?" : "");
  _cp_history_filter_sql (filter, sql);
  g_string_append (sql, ") AS u WHERE u.v IS NOT NULL ORDER BY u.g, u.v");
  if ((q = query_new (self, sql->str, error)) == NULL)
    return FALSE;
  if (key != NULL)
    q->be->bind_text (q->stmt, k++, key);
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      const char *g = q->be->column_text (q->stmt, 0);
      double v = q->be->column_double (q->stmt, 1);

      if (g == NULL)
        g = "";
      if (group != NULL && strcmp (group, g) != 0)
        add_distribution (fleet, key, group, values);
      if (group == NULL || strcmp (group, g) != 0)
        {
          g_free (group);
          group = g_strdup (g);
        }
      g_array_append_val (values, v);
    }
  if (step != CP_HISTORY_STEP_DONE)
    return FALSE;
  if (group != NULL)
    add_distribution (fleet, key, key != NULL ? group : NULL, values);
  return TRUE;
}

typedef struct
{
  gint64 runs[G_N_ELEMENTS (cp_history_fleet_metrics) - 1];
  double mean[G_N_ELEMENTS (cp_history_fleet_metrics) - 1];
} WeekFigures;

/* Per group: the means of each metric over runs in [from, to). */
static GHashTable *
read_week (CpHistory              *self,
           const CpHistoryFilter  *filter,
           const char             *key,
           gint64                  from,
           gint64                  to,
           GError                **error)
{
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GString) sql = g_string_new ("SELECT w.g");
  g_autoptr(Query) q = NULL;
  const guint n = G_N_ELEMENTS (cp_history_fleet_metrics) - 1;
  CpHistoryStep step;
  guint k = 1;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (sql, ", avg(w.m%u), count(w.m%u)", i, i);
  g_string_append_printf (sql, " FROM (SELECT %s AS g, r.time_ns AS t", key != NULL ? "l.value" : "''");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (sql, ", %s AS m%u", metric_sql (cp_history_fleet_metrics[i]), i);
  g_string_append_printf (sql, " FROM runs r%s", key != NULL ? " JOIN run_labels l ON l.run_id = r.id AND l.key = ?" : "");
  _cp_history_filter_sql (filter, sql);
  g_string_append (sql, ") AS w WHERE w.t >= ? AND w.t < ? GROUP BY w.g");
  if ((q = query_new (self, sql->str, error)) == NULL)
    return NULL;
  if (key != NULL)
    q->be->bind_text (q->stmt, k++, key);
  _cp_history_filter_bind (self, q->stmt, filter, &k);
  q->be->bind_int (q->stmt, k++, from);
  q->be->bind_int (q->stmt, k++, to);
  while ((step = q->be->step (q->stmt, error)) == CP_HISTORY_STEP_ROW)
    {
      WeekFigures *f = g_new0 (WeekFigures, 1);
      const char *g = q->be->column_text (q->stmt, 0);

      for (guint i = 0; i < n; i++)
        {
          f->mean[i] = q->be->column_double (q->stmt, 1 + 2 * i);
          f->runs[i] = q->be->column_int (q->stmt, 2 + 2 * i);
        }
      g_hash_table_insert (groups, g_strdup (g != NULL ? g : ""), f);
    }
  if (step != CP_HISTORY_STEP_DONE)
    return NULL;
  return g_steal_pointer (&groups);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
read_changes (CpHistory              *self,
              const CpHistoryFilter  *filter,
              const char             *key,
              CpHistoryFleet         *fleet,
              GError                **error)
{
  g_autoptr(GHashTable) after = read_week (self, filter, key, fleet->until_ns - WEEK_NS, fleet->until_ns, error);
  g_autoptr(GHashTable) before = after != NULL ?
    read_week (self, filter, key, fleet->until_ns - 2 * WEEK_NS, fleet->until_ns - WEEK_NS, error) : NULL;
  g_autofree gpointer *names = NULL;
  guint n_names = 0;

  if (before == NULL)
    return FALSE;
  names = g_hash_table_get_keys_as_array (after, &n_names);
  qsort (names, n_names, sizeof (gpointer), compare_strings);
  for (guint g = 0; g < n_names; g++)
    {
      const WeekFigures *a = g_hash_table_lookup (after, names[g]);
      const WeekFigures *b = g_hash_table_lookup (before, names[g]);

      if (b == NULL)
        continue;
      for (guint i = 0; cp_history_fleet_metrics[i] != NULL; i++)
        {
          const char *metric = cp_history_fleet_metrics[i];
          CpFleetChange *c;
          int worse = cp_history_metric_worse (metric);

          if (a->runs[i] == 0 || b->runs[i] == 0)
            continue;
          c = g_new0 (CpFleetChange, 1);
          c->key = g_strdup (key);
          c->value = key != NULL ? g_strdup (names[g]) : NULL;
          c->metric = g_strdup (metric);
          c->unit = g_strdup (cp_history_metric_unit (metric));
          c->runs_before = b->runs[i];
          c->runs_after = a->runs[i];
          c->before = b->mean[i];
          c->after = a->mean[i];
          c->change_percent = c->before != 0 ? 100.0 * (c->after - c->before) / fabs (c->before) : NAN;
          c->regression = isfinite (c->change_percent) && worse * c->change_percent > fleet->threshold;
          g_ptr_array_add (fleet->changes, c);
        }
    }
  return TRUE;
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

  fleet->keys = g_strdupv ((char **) (keys != NULL ? keys : default_keys));
  fleet->until_ns = until_ns;
  fleet->threshold = threshold;
  fleet->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) finding_free);
  fleet->worst = g_ptr_array_new_with_free_func ((GDestroyNotify) worst_free);
  fleet->utilization = g_ptr_array_new_with_free_func ((GDestroyNotify) utilization_free);
  fleet->changes = g_ptr_array_new_with_free_func ((GDestroyNotify) change_free);

  if (!count_runs (self, filter, &fleet->runs, error) ||
      !read_findings (self, filter, fleet, error))
    return NULL;
  for (guint i = 0; cp_history_fleet_metrics[i] != NULL; i++)
    if (!read_worst (self, filter, cp_history_fleet_metrics[i], worst, fleet, error))
      return NULL;
  if (!read_utilization (self, filter, NULL, fleet, error) ||
      !read_changes (self, filter, NULL, fleet, error))
    return NULL;
  for (guint i = 0; fleet->keys[i] != NULL; i++)
    if (!read_utilization (self, filter, fleet->keys[i], fleet, error) ||
        !read_changes (self, filter, fleet->keys[i], fleet, error))
      return NULL;
  return g_steal_pointer (&fleet);
}
