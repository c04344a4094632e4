/* cp-history-metric.c: the metric names, their values in a run, and the
 * conditions of `diagnose --fail-if`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One list of names (docs/history.md) serves `history trend` (as SQL over
 * the stored runs), `diagnose --fail-if` and `--format openmetrics` (as
 * values of a run just analysed), so a threshold means the same figure
 * everywhere.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp-history-private.h"
#include "analysis/cp-rules.h"

static const CpHistoryMetric metrics[] = {
  { "step_time.mean", "r.step_mean_ns", "ns" },
  { "step_time.p50", "r.step_p50_ns", "ns" },
  { "step_time.p90", "r.step_p90_ns", "ns" },
  { "step_time.min", "r.step_min_ns", "ns" },
  { "step_time.max", "r.step_max_ns", "ns" },
  { "window.total", "r.window_ns", "ns" },
  { "steps", "r.steps", "count" },
  { "duration", "r.duration_ns", "ns" },
  { "kernel_time", "r.kernel_time_ns", "ns" },
  { "gpu.utilization", "(SELECT 100.0 * MIN(d.utilization) FROM run_devices d WHERE d.run_id = r.id)", "%" },
  { "gpu.busy", "r.busy_percent", "%" },
  { "input.share", "r.loading_percent", "%" },
  { "warnings", "r.warnings", "count" },
};

static const char * const metric_names[] = {
  "step_time.mean", "step_time.p50", "step_time.p90", "step_time.min", "step_time.max",
  "window.total", "steps", "duration", "kernel_time", "gpu.utilization", "gpu.busy",
  "input.share", "warnings", NULL,
};

G_STATIC_ASSERT (G_N_ELEMENTS (metric_names) == G_N_ELEMENTS (metrics) + 1);

const char * const *
cp_history_metric_names (void)
{
  return metric_names;
}

static gboolean
all_digits (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

gboolean
_cp_history_metric_parse (const char              *name,
                          CpHistoryMetricKind     *kind,
                          const CpHistoryMetric  **fixed,
                          char                   **part,
                          GError                 **error)
{
  g_auto(GStrv) parts = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    if (strcmp (name, metrics[i].name) == 0)
      {
        *kind = CP_HISTORY_METRIC_FIXED;
        *fixed = &metrics[i];
        return TRUE;
      }
  parts = g_strsplit (name, ".", 3);
  if (g_strv_length (parts) == 3)
    {
      if (strcmp (parts[0], "breakdown") == 0 && strcmp (parts[2], "percent") == 0)
        for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
          if (strcmp (parts[1], cp_time_category_to_string (c)) == 0)
            {
              *kind = CP_HISTORY_METRIC_BREAKDOWN;
              *part = g_strdup (parts[1]);
              return TRUE;
            }
      if (strcmp (parts[0], "finding") == 0 && strcmp (parts[2], "time_at_stake") == 0)
        {
          guint n;
          const CpRule *rules = cp_rules_get_all (&n);

          for (guint i = 0; i < n; i++)
            if (strcmp (parts[1], rules[i].id) == 0)
              {
                *kind = CP_HISTORY_METRIC_FINDING;
                *part = g_strdup (parts[1]);
                return TRUE;
              }
        }
      if (strcmp (parts[0], "device") == 0 && strcmp (parts[2], "utilization") == 0 &&
          all_digits (parts[1]) && strlen (parts[1]) < 6)
        {
          *kind = CP_HISTORY_METRIC_DEVICE;
          *part = g_strdup (parts[1]);
          return TRUE;
        }
    }
  g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
               _("Unknown metric “%s” (see “chokepoint history trend --help”)"), name);
  return FALSE;
}

gboolean
cp_history_metric_is_valid (const char  *metric,
                            GError     **error)
{
  CpHistoryMetricKind kind;
  const CpHistoryMetric *fixed = NULL;
  g_autofree char *part = NULL;

  return _cp_history_metric_parse (metric, &kind, &fixed, &part, error);
}

const char *
cp_history_metric_unit (const char *metric)
{
  CpHistoryMetricKind kind;
  const CpHistoryMetric *fixed = NULL;
  g_autofree char *part = NULL;

  if (!_cp_history_metric_parse (metric, &kind, &fixed, &part, NULL))
    return NULL;
  switch (kind)
    {
    case CP_HISTORY_METRIC_FIXED:
      return fixed->unit;
    case CP_HISTORY_METRIC_FINDING:
      return "ns";
    case CP_HISTORY_METRIC_BREAKDOWN:
    case CP_HISTORY_METRIC_DEVICE:
    default:
      return "%";
    }
}

/* The value of a fixed metric in a run, as the SQL of the table computes
 * it from the stored columns. */
static double
fixed_value (const CpHistoryRun *run,
             const char         *name)
{
  if (strcmp (name, "step_time.mean") == 0)
    return run->step_mean_ns;
  if (strcmp (name, "step_time.p50") == 0)
    return run->step_p50_ns;
  if (strcmp (name, "step_time.p90") == 0)
    return run->step_p90_ns;
  if (strcmp (name, "step_time.min") == 0)
    return run->step_min_ns;
  if (strcmp (name, "step_time.max") == 0)
    return run->step_max_ns;
  if (strcmp (name, "window.total") == 0)
    return run->window_ns;
  if (strcmp (name, "steps") == 0)
    return run->steps;
  if (strcmp (name, "duration") == 0)
    return run->duration_ns;
  if (strcmp (name, "kernel_time") == 0)
    return run->kernel_time_ns;
  if (strcmp (name, "gpu.utilization") == 0)
    {
      double least = NAN;

      for (guint i = 0; i < run->devices->len; i++)
        {
          double u = g_array_index (run->devices, CpHistoryDevice, i).utilization;

          if (isfinite (u) && !(least <= 100 * u))
            least = 100 * u;
        }
      return least;
    }
  if (strcmp (name, "gpu.busy") == 0)
    return run->busy_percent;
  if (strcmp (name, "input.share") == 0)
    return run->loading_percent;
  if (strcmp (name, "warnings") == 0)
    return run->warnings;
  g_return_val_if_reached (NAN);
}

gboolean
cp_history_run_get_metric (const CpHistoryRun  *run,
                           const char          *metric,
                           double              *value,
                           GError             **error)
{
  CpHistoryMetricKind kind;
  const CpHistoryMetric *fixed = NULL;
  g_autofree char *part = NULL;

  if (!_cp_history_metric_parse (metric, &kind, &fixed, &part, error))
    return FALSE;
  *value = NAN;
  switch (kind)
    {
    case CP_HISTORY_METRIC_FIXED:
      *value = fixed_value (run, fixed->name);
      break;
    case CP_HISTORY_METRIC_BREAKDOWN:
      for (guint i = 0; i < run->breakdown->len; i++)
        if (strcmp (g_array_index (run->breakdown, CpHistoryBreakdown, i).category, part) == 0)
          *value = g_array_index (run->breakdown, CpHistoryBreakdown, i).percent;
      break;
    case CP_HISTORY_METRIC_FINDING:
      *value = 0;
      for (guint i = 0; i < run->findings->len; i++)
        if (strcmp (g_array_index (run->findings, CpHistoryFinding, i).rule, part) == 0)
          *value = g_array_index (run->findings, CpHistoryFinding, i).time_at_stake_ns;
      break;
    case CP_HISTORY_METRIC_DEVICE:
    default:
      for (guint i = 0; i < run->devices->len; i++)
        if (g_array_index (run->devices, CpHistoryDevice, i).device == g_ascii_strtoll (part, NULL, 10))
          *value = 100 * g_array_index (run->devices, CpHistoryDevice, i).utilization;
      break;
    }
  return TRUE;
}

/* Conditions: METRIC OP NUMBER [UNIT], e.g. "gpu.utilization<80%",
 * "step_time.mean >= 120ms", "finding.input-bound.time_at_stake > 1s". */

struct _CpHistoryCondition
{
  char              *text;
  char              *metric;
  CpHistoryCompare   op;
  double             threshold;     /* in the metric's unit (ns, %, count) */
};

static void
expr_error (GError     **error,
            const char  *text,
            gsize        offset,
            const char  *what)
{
  /* Translators: a --fail-if expression, the position (1-based) of the
   * error in it, and what is wrong there. */
  g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID,
               _("“%s”, at character %u: %s"), text, (guint) offset + 1, what);
}

static gboolean
is_metric_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.' || c == '-';
}

CpHistoryCondition *
cp_history_condition_parse (const char  *text,
                            GError     **error)
{
  g_autoptr(CpHistoryCondition) cond = NULL;
  const char *p = text, *start, *unit_start;
  g_autofree char *number = NULL;
  g_autofree char *unit = NULL;
  g_autoptr(GError) metric_error = NULL;
  const char *metric_unit;
  char *end = NULL;
  double value, scale = 1;

  g_return_val_if_fail (text != NULL, NULL);
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID, _("A condition must be UTF-8 text"));
      return NULL;
    }
  cond = g_new0 (CpHistoryCondition, 1);
  cond->text = g_strdup (text);

  while (*p == ' ')
    p++;
  start = p;
  /* A metric name never ends in "-": "x-1" is not a name followed by -1,
   * but "<" or ">" must follow anyway. */
  while (is_metric_char (*p))
    p++;
  if (p == start)
    {
      expr_error (error, text, start - text, _("expected a metric name (step_time.mean, gpu.utilization...)"));
      return NULL;
    }
  cond->metric = g_strndup (start, p - start);
  if (!cp_history_metric_is_valid (cond->metric, &metric_error))
    {
      g_autofree char *what = g_strdup_printf (_("unknown metric “%s”"), cond->metric);

      expr_error (error, text, start - text, what);
      return NULL;
    }
  while (*p == ' ')
    p++;
  if (p[0] == '<' && p[1] == '=')
    cond->op = CP_HISTORY_LE, p += 2;
  else if (p[0] == '>' && p[1] == '=')
    cond->op = CP_HISTORY_GE, p += 2;
  else if (p[0] == '=' && p[1] == '=')
    cond->op = CP_HISTORY_EQ, p += 2;
  else if (p[0] == '!' && p[1] == '=')
    cond->op = CP_HISTORY_NE, p += 2;
  else if (p[0] == '<')
    cond->op = CP_HISTORY_LT, p += 1;
  else if (p[0] == '>')
    cond->op = CP_HISTORY_GT, p += 1;
  else
    {
      expr_error (error, text, p - text, _("expected <, <=, >, >=, == or !="));
      return NULL;
    }
  while (*p == ' ')
    p++;
  start = p;
  if (*p == '-' || *p == '+')
    p++;
  while (g_ascii_isdigit (*p) || *p == '.')
    p++;
  if (p == start || (p == start + 1 && (*start == '-' || *start == '+' || *start == '.')))
    {
      expr_error (error, text, start - text, _("expected a number"));
      return NULL;
    }
  number = g_strndup (start, p - start);
  value = g_ascii_strtod (number, &end);
  if (end == NULL || *end != '\0' || !isfinite (value))
    {
      expr_error (error, text, start - text, _("expected a number"));
      return NULL;
    }
  while (*p == ' ')
    p++;
  unit_start = p;
  while (*p != '\0' && *p != ' ')
    p++;
  unit = g_strndup (unit_start, p - unit_start);
  while (*p == ' ')
    p++;
  if (*p != '\0')
    {
      expr_error (error, text, p - text, _("unexpected text after the condition"));
      return NULL;
    }

  metric_unit = cp_history_metric_unit (cond->metric);
  if (strcmp (metric_unit, "ns") == 0)
    {
      if (unit[0] == '\0' || strcmp (unit, "ns") == 0)
        scale = 1;
      else if (strcmp (unit, "us") == 0 || strcmp (unit, "µs") == 0)
        scale = 1e3;
      else if (strcmp (unit, "ms") == 0)
        scale = 1e6;
      else if (strcmp (unit, "s") == 0)
        scale = 1e9;
      else
        {
          expr_error (error, text, unit_start - text, _("a time takes ns, us, ms or s"));
          return NULL;
        }
    }
  else if (strcmp (metric_unit, "%") == 0)
    {
      if (unit[0] != '\0' && strcmp (unit, "%") != 0)
        {
          /* xgettext:no-c-format */
          expr_error (error, text, unit_start - text, _("a share takes % or no unit"));
          return NULL;
        }
    }
  else if (unit[0] != '\0')
    {
      expr_error (error, text, unit_start - text, _("a count takes no unit"));
      return NULL;
    }
  if (!isfinite (value * scale))
    {
      expr_error (error, text, start - text, _("the number is too large"));
      return NULL;
    }
  cond->threshold = value * scale;
  return g_steal_pointer (&cond);
}

void
cp_history_condition_free (CpHistoryCondition *cond)
{
  if (cond == NULL)
    return;
  g_free (cond->text);
  g_free (cond->metric);
  g_free (cond);
}

const char *
cp_history_condition_get_text (CpHistoryCondition *cond)
{
  return cond->text;
}

const char *
cp_history_condition_get_metric (CpHistoryCondition *cond)
{
  return cond->metric;
}

CpHistoryCompare
cp_history_condition_get_op (CpHistoryCondition *cond)
{
  return cond->op;
}

double
cp_history_condition_get_threshold (CpHistoryCondition *cond)
{
  return cond->threshold;
}

gboolean
cp_history_condition_holds (CpHistoryCondition *cond,
                            const CpHistoryRun *run,
                            double             *value)
{
  double v = NAN;

  cp_history_run_get_metric (run, cond->metric, &v, NULL);
  if (value != NULL)
    *value = v;
  if (!isfinite (v))
    return FALSE;
  switch (cond->op)
    {
    case CP_HISTORY_LT:
      return v < cond->threshold;
    case CP_HISTORY_LE:
      return v <= cond->threshold;
    case CP_HISTORY_GT:
      return v > cond->threshold;
    case CP_HISTORY_GE:
      return v >= cond->threshold;
    case CP_HISTORY_EQ:
      return v == cond->threshold;
    case CP_HISTORY_NE:
    default:
      return v != cond->threshold;
    }
}

int
cp_history_metric_worse (const char *metric)
{
  CpHistoryMetricKind kind;
  const CpHistoryMetric *fixed = NULL;
  g_autofree char *part = NULL;

  if (!_cp_history_metric_parse (metric, &kind, &fixed, &part, NULL))
    return 0;
  switch (kind)
    {
    case CP_HISTORY_METRIC_FINDING:
      return 1;
    case CP_HISTORY_METRIC_DEVICE:
      return -1;
    case CP_HISTORY_METRIC_BREAKDOWN:
      return g_str_has_prefix (part, "compute_") ? -1 : 1;
    case CP_HISTORY_METRIC_FIXED:
    default:
      if (strcmp (fixed->name, "steps") == 0 || strcmp (fixed->name, "duration") == 0 ||
          strcmp (fixed->name, "window.total") == 0 || strcmp (fixed->name, "kernel_time") == 0)
        return 0;
      if (strcmp (fixed->name, "gpu.utilization") == 0 || strcmp (fixed->name, "gpu.busy") == 0)
        return -1;
      return 1;
    }
}

/* A binary heap of doubles: a max-heap of the lower half (sign 1) or a
 * min-heap of the upper half (sign -1). */
typedef struct
{
  GArray *v;
  double  sign;
} Heap;

static void
heap_push (Heap   *h,
           double  x)
{
  guint i;

  g_array_append_val (h->v, x);
  i = h->v->len - 1;
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      double *a = &g_array_index (h->v, double, parent), *b = &g_array_index (h->v, double, i);

      if (h->sign * *a >= h->sign * *b)
        break;
      x = *a, *a = *b, *b = x;
      i = parent;
    }
}

static double
heap_top (Heap *h)
{
  return g_array_index (h->v, double, 0);
}

static double
heap_pop (Heap *h)
{
  double top = heap_top (h);
  guint n = h->v->len - 1, i = 0;

  g_array_index (h->v, double, 0) = g_array_index (h->v, double, n);
  g_array_set_size (h->v, n);
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, best = i;
      double t;

      if (l < n && h->sign * g_array_index (h->v, double, l) > h->sign * g_array_index (h->v, double, best))
        best = l;
      if (r < n && h->sign * g_array_index (h->v, double, r) > h->sign * g_array_index (h->v, double, best))
        best = r;
      if (best == i)
        break;
      t = g_array_index (h->v, double, i);
      g_array_index (h->v, double, i) = g_array_index (h->v, double, best);
      g_array_index (h->v, double, best) = t;
      i = best;
    }
  return top;
}

void
cp_history_mark_regressions (GArray     *points,
                             const char *metric,
                             double      threshold)
{
  Heap low = { g_array_new (FALSE, FALSE, sizeof (double)), 1 };
  Heap high = { g_array_new (FALSE, FALSE, sizeof (double)), -1 };
  int worse = cp_history_metric_worse (metric);

  for (guint i = 0; i < points->len; i++)
    {
      CpHistoryPoint *p = &g_array_index (points, CpHistoryPoint, i);
      guint n = low.v->len + high.v->len;

      /* The median of the values before this point. */
      if (n == 0)
        p->baseline = NAN;
      else if (low.v->len > high.v->len)
        p->baseline = heap_top (&low);
      else
        p->baseline = (heap_top (&low) + heap_top (&high)) / 2;
      p->regression = FALSE;
      if (worse != 0 && isfinite (p->value) && isfinite (p->baseline))
        p->regression = worse > 0 ? p->baseline > 0 && p->value > p->baseline * (1 + threshold)
                                  : p->value < p->baseline * (1 - threshold);
      if (!isfinite (p->value))
        continue;
      /* Keep low the lower half (its size equal, or one more). */
      if (low.v->len == 0 || p->value <= heap_top (&low))
        heap_push (&low, p->value);
      else
        heap_push (&high, p->value);
      if (low.v->len > high.v->len + 1)
        heap_push (&high, heap_pop (&low));
      else if (high.v->len > low.v->len)
        heap_push (&low, heap_pop (&high));
    }
  g_array_unref (low.v);
  g_array_unref (high.v);
}
