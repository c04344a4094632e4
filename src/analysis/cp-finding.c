/* cp-finding.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>

#include "cp-finding.h"

struct _CpFinding
{
  GObject     parent_instance;

  char       *rule_id;
  char       *title;
  char       *summary;
  char       *source;
  char       *explained_by;
  CpSeverity  severity;
  CpSeverity  measured_severity;

  GArray     *figures;     /* of CpFigure */
  GArray     *evidence;    /* of CpEvidence */
  guint64     evidence_total;
  gboolean    evidence_finished;
  gboolean    evidence_heap;     /* evidence is a min-heap on length (full) */
  guint64     evidence_found;    /* ranges added, before merging */
  CpInterval *windows;           /* merge per window and lane when set */
  guint       n_windows;
  GHashTable *merge_index;       /* (bucket, lane) -> index + 1 in merged */
  GArray     *merged;            /* of CpEvidence, until finished */

  gint64      time_at_stake;
  gint64      time_at_stake_per_step;

  GStrv       fixes[CP_N_FRAMEWORKS];
};

G_DEFINE_FINAL_TYPE (CpFinding, cp_finding, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RULE_ID,
  PROP_TITLE,
  PROP_SEVERITY,
  PROP_SUMMARY,
  PROP_TIME_AT_STAKE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
clear_figure (gpointer data)
{
  CpFigure *f = data;

  g_clear_pointer (&f->id, g_free);
  g_clear_pointer (&f->label, g_free);
  g_clear_pointer (&f->unit, g_free);
  g_clear_pointer (&f->comparison, g_free);
}

static void
cp_finding_finalize (GObject *object)
{
  CpFinding *self = (CpFinding *) object;

  g_free (self->rule_id);
  g_free (self->title);
  g_free (self->summary);
  g_free (self->source);
  g_free (self->explained_by);
  g_array_unref (self->figures);
  g_array_unref (self->evidence);
  g_free (self->windows);
  g_clear_pointer (&self->merge_index, g_hash_table_unref);
  g_clear_pointer (&self->merged, g_array_unref);
  for (guint i = 0; i < CP_N_FRAMEWORKS; i++)
    g_strfreev (self->fixes[i]);

  G_OBJECT_CLASS (cp_finding_parent_class)->finalize (object);
}

static void
cp_finding_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  CpFinding *self = CP_FINDING (object);

  switch (prop_id)
    {
    case PROP_RULE_ID:
      g_value_set_string (value, self->rule_id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_SEVERITY:
      g_value_set_int (value, self->severity);
      break;
    case PROP_SUMMARY:
      g_value_set_string (value, self->summary);
      break;
    case PROP_TIME_AT_STAKE:
      g_value_set_int64 (value, self->time_at_stake);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_finding_class_init (CpFindingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cp_finding_finalize;
  object_class->get_property = cp_finding_get_property;

  properties[PROP_RULE_ID] =
    g_param_spec_string ("rule-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SEVERITY] =
    g_param_spec_int ("severity", NULL, NULL, CP_SEVERITY_INFO, CP_SEVERITY_HIGH,
                      CP_SEVERITY_INFO,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SUMMARY] =
    g_param_spec_string ("summary", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TIME_AT_STAKE] =
    g_param_spec_int64 ("time-at-stake", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cp_finding_init (CpFinding *self)
{
  self->figures = g_array_new (FALSE, TRUE, sizeof (CpFigure));
  g_array_set_clear_func (self->figures, clear_figure);
  self->evidence = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
}

CpFinding *
cp_finding_new (const char *rule_id,
                const char *title,
                CpSeverity  severity)
{
  CpFinding *self;

  g_return_val_if_fail (rule_id != NULL, NULL);

  self = g_object_new (CP_TYPE_FINDING, NULL);
  self->rule_id = g_strdup (rule_id);
  self->title = g_strdup (title ? title : rule_id);
  self->severity = severity;
  self->measured_severity = severity;
  return self;
}

const char *
cp_finding_get_rule_id (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  return self->rule_id;
}

const char *
cp_finding_get_title (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  return self->title;
}

CpSeverity
cp_finding_get_severity (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), CP_SEVERITY_INFO);
  return self->severity;
}

void
cp_finding_set_severity (CpFinding  *self,
                         CpSeverity  severity)
{
  g_return_if_fail (CP_IS_FINDING (self));
  self->severity = severity;
  self->measured_severity = severity;
}

CpSeverity
cp_finding_get_measured_severity (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), CP_SEVERITY_INFO);
  return self->measured_severity;
}

const char *
cp_finding_get_summary (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  return self->summary ? self->summary : "";
}

void
cp_finding_set_summary (CpFinding  *self,
                        const char *summary)
{
  g_return_if_fail (CP_IS_FINDING (self));
  g_free (self->summary);
  self->summary = g_strdup (summary);
}

const char *
cp_finding_get_source (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  return self->source ? self->source : "";
}

void
cp_finding_set_source (CpFinding  *self,
                       const char *source)
{
  g_return_if_fail (CP_IS_FINDING (self));
  g_free (self->source);
  self->source = g_strdup (source);
}

void
cp_finding_add_figure (CpFinding  *self,
                       const char *id,
                       const char *label,
                       double      value,
                       const char *unit,
                       const char *comparison,
                       double      moderate,
                       double      high)
{
  CpFigure f;

  g_return_if_fail (CP_IS_FINDING (self));
  g_return_if_fail (id != NULL);

  f.id = g_strdup (id);
  f.label = g_strdup (label ? label : id);
  f.value = value;
  f.unit = g_strdup (unit ? unit : "");
  f.comparison = g_strdup (comparison);
  f.moderate = moderate;
  f.high = high;
  g_array_append_val (self->figures, f);
}

const CpFigure *
cp_finding_get_figures (CpFinding *self,
                        guint     *n_figures)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  if (n_figures)
    *n_figures = self->figures->len;
  return (const CpFigure *) self->figures->data;
}

const CpFigure *
cp_finding_lookup_figure (CpFinding  *self,
                          const char *id)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  for (guint i = 0; i < self->figures->len; i++)
    {
      const CpFigure *f = &g_array_index (self->figures, CpFigure, i);

      if (g_strcmp0 (f->id, id) == 0)
        return f;
    }
  return NULL;
}

/* Evidence is kept as a min-heap on length once it is full, so that only the
 * longest CP_FINDING_MAX_EVIDENCE ranges stay, whatever the number found. */
static inline gboolean
shorter (const CpEvidence *a,
         const CpEvidence *b)
{
  gint64 la = a->end - a->start, lb = b->end - b->start;

  if (la != lb)
    return la < lb;
  /* Equal lengths: the later range is the "shorter" one, so earlier ranges stay. */
  return a->start > b->start || (a->start == b->start && a->lane > b->lane);
}

static void
sift_down (CpEvidence *h,
           guint       n,
           guint       i)
{
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      CpEvidence tmp;

      if (l < n && shorter (&h[l], &h[m]))
        m = l;
      if (r < n && shorter (&h[r], &h[m]))
        m = r;
      if (m == i)
        return;
      tmp = h[i];
      h[i] = h[m];
      h[m] = tmp;
      i = m;
    }
}

/* Keeps one range among the longest CP_FINDING_MAX_EVIDENCE. */
static void
keep_evidence (CpFinding        *self,
               const CpEvidence *range)
{
  CpEvidence e = *range;
  CpEvidence *h;

  self->evidence_total++;

  if (self->evidence->len < CP_FINDING_MAX_EVIDENCE)
    {
      g_array_append_val (self->evidence, e);
      self->evidence_finished = FALSE;
      self->evidence_heap = FALSE;
      return;
    }

  h = (CpEvidence *) self->evidence->data;
  if (!self->evidence_heap)
    {
      for (gint i = CP_FINDING_MAX_EVIDENCE / 2 - 1; i >= 0; i--)
        sift_down (h, CP_FINDING_MAX_EVIDENCE, i);
      self->evidence_heap = TRUE;
    }
  if (shorter (&h[0], &e))
    {
      h[0] = e;
      sift_down (h, CP_FINDING_MAX_EVIDENCE, 0);
    }
  self->evidence_finished = FALSE;
}

/* Which window a time falls in (2k + 1), or the gap before window k (2k). */
static guint64
window_bucket (CpFinding *self,
               gint64     t)
{
  guint lo = 0, hi = self->n_windows;

  /* The first window that ends after t. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->windows[mid].end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < self->n_windows && self->windows[lo].start <= t)
    return 2 * (guint64) lo + 1;
  return 2 * (guint64) lo;
}

void
cp_finding_add_evidence (CpFinding *self,
                         guint      lane,
                         gint64     start,
                         gint64     end)
{
  CpEvidence e;

  g_return_if_fail (CP_IS_FINDING (self));

  if (end < start)
    return;
  e.lane = lane;
  e.start = start;
  e.end = end;
  e.count = 1;
  self->evidence_found++;
  if (self->windows != NULL)
    {
      gint64 key = (gint64) ((window_bucket (self, start) << 24) | (lane & 0xffffff));
      guint index = GPOINTER_TO_UINT (g_hash_table_lookup (self->merge_index, &key));

      if (index == 0)
        {
          g_array_append_val (self->merged, e);
          g_hash_table_insert (self->merge_index, g_memdup2 (&key, sizeof key),
                               GUINT_TO_POINTER (self->merged->len));
        }
      else
        {
          CpEvidence *m = &g_array_index (self->merged, CpEvidence, index - 1);

          m->start = MIN (m->start, start);
          m->end = MAX (m->end, end);
          m->count++;
        }
      self->evidence_finished = FALSE;
      return;
    }
  keep_evidence (self, &e);
}

/* The merge index's key packs the window bucket above the lane: GLib's
 * g_int64_hash() folds the halves together and maps far-apart buckets of
 * few lanes onto a handful of values (a capture of 66,000 steps spent 60%
 * of its analysis in the collisions), so the bits are mixed first
 * (MurmurHash3's finaliser). */
static guint
evidence_key_hash (gconstpointer p)
{
  guint64 x = *(const guint64 *) p;

  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return (guint) x;
}

void
cp_finding_set_evidence_windows (CpFinding        *self,
                                 const CpInterval *windows,
                                 guint             n_windows)
{
  g_return_if_fail (CP_IS_FINDING (self));
  g_return_if_fail (n_windows == 0 || windows != NULL);

  g_clear_pointer (&self->windows, g_free);
  self->n_windows = n_windows;
  self->windows = g_memdup2 (windows, MAX (n_windows, 1) * sizeof (CpInterval));
  if (self->merge_index == NULL)
    self->merge_index = g_hash_table_new_full (evidence_key_hash, g_int64_equal, g_free, NULL);
  if (self->merged == NULL)
    self->merged = g_array_new (FALSE, FALSE, sizeof (CpEvidence));
}

guint64
cp_finding_get_evidence_found (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), 0);
  return self->evidence_found;
}

static int
cmp_by_start (const void *a,
              const void *b)
{
  const CpEvidence *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  return x->end < y->end ? -1 : (x->end > y->end);
}

void
cp_finding_finish_evidence (CpFinding *self)
{
  g_return_if_fail (CP_IS_FINDING (self));

  if (self->evidence_finished)
    return;
  /* The merged ranges join the longest kept. */
  if (self->merged != NULL)
    {
      for (guint k = 0; k < self->merged->len; k++)
        keep_evidence (self, &g_array_index (self->merged, CpEvidence, k));
      g_array_set_size (self->merged, 0);
      g_hash_table_remove_all (self->merge_index);
    }
  /* An empty array may have no storage at all, and qsort() wants some. */
  if (self->evidence->len > 1)
    qsort (self->evidence->data, self->evidence->len, sizeof (CpEvidence), cmp_by_start);
  self->evidence_finished = TRUE;
  self->evidence_heap = FALSE;
}

const CpEvidence *
cp_finding_get_evidence (CpFinding *self,
                         guint     *n_evidence)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);

  cp_finding_finish_evidence (self);
  if (n_evidence)
    *n_evidence = self->evidence->len;
  return (const CpEvidence *) self->evidence->data;
}

guint64
cp_finding_get_evidence_total (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), 0);
  return self->evidence_total;
}

gint64
cp_finding_get_time_at_stake (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), 0);
  return self->time_at_stake;
}

gint64
cp_finding_get_time_at_stake_per_step (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), 0);
  return self->time_at_stake_per_step;
}

void
cp_finding_set_time_at_stake (CpFinding *self,
                              gint64     total,
                              gint64     per_step)
{
  g_return_if_fail (CP_IS_FINDING (self));
  self->time_at_stake = MAX (total, 0);
  self->time_at_stake_per_step = MAX (per_step, 0);
}

void
cp_finding_set_fixes (CpFinding          *self,
                      CpFramework         framework,
                      const char * const *fixes)
{
  g_return_if_fail (CP_IS_FINDING (self));
  g_return_if_fail (framework < CP_N_FRAMEWORKS);

  g_strfreev (self->fixes[framework]);
  self->fixes[framework] = g_strdupv ((char **) fixes);
}

const char * const *
cp_finding_get_fixes (CpFinding   *self,
                      CpFramework  framework)
{
  static const char * const empty[] = { NULL };

  g_return_val_if_fail (CP_IS_FINDING (self), empty);
  g_return_val_if_fail (framework < CP_N_FRAMEWORKS, empty);

  return self->fixes[framework] ? (const char * const *) self->fixes[framework] : empty;
}

const char *
cp_finding_get_explained_by (CpFinding *self)
{
  g_return_val_if_fail (CP_IS_FINDING (self), NULL);
  return self->explained_by;
}

void
cp_finding_demote (CpFinding  *self,
                   const char *explained_by)
{
  g_return_if_fail (CP_IS_FINDING (self));

  self->severity = CP_SEVERITY_INFO;
  g_free (self->explained_by);
  self->explained_by = g_strdup (explained_by);
}

const char *
cp_severity_to_string (CpSeverity severity)
{
  switch (severity)
    {
    case CP_SEVERITY_HIGH: return "high";
    case CP_SEVERITY_MODERATE: return "moderate";
    case CP_SEVERITY_INFO:
    default:
      return "info";
    }
}

gboolean
cp_severity_from_string (const char *str,
                         CpSeverity *severity)
{
  if (g_strcmp0 (str, "high") == 0)
    *severity = CP_SEVERITY_HIGH;
  else if (g_strcmp0 (str, "moderate") == 0)
    *severity = CP_SEVERITY_MODERATE;
  else if (g_strcmp0 (str, "info") == 0)
    *severity = CP_SEVERITY_INFO;
  else
    return FALSE;
  return TRUE;
}

const char *
cp_severity_get_label (CpSeverity severity)
{
  switch (severity)
    {
    case CP_SEVERITY_HIGH: return _("High");
    case CP_SEVERITY_MODERATE: return _("Moderate");
    case CP_SEVERITY_INFO:
    default:
      return _("Info");
    }
}

const char *
cp_severity_get_icon_name (CpSeverity severity)
{
  switch (severity)
    {
    case CP_SEVERITY_HIGH: return "dialog-error-symbolic";
    case CP_SEVERITY_MODERATE: return "dialog-warning-symbolic";
    case CP_SEVERITY_INFO:
    default:
      return "dialog-information-symbolic";
    }
}

const char *
cp_framework_to_string (CpFramework framework)
{
  switch (framework)
    {
    case CP_FRAMEWORK_PYTORCH: return "pytorch";
    case CP_FRAMEWORK_JAX: return "jax";
    case CP_FRAMEWORK_TENSORFLOW: return "tensorflow";
    case CP_N_FRAMEWORKS:
    default:
      return "unknown";
    }
}

gboolean
cp_framework_from_string (const char  *str,
                          CpFramework *framework)
{
  for (guint fw = 0; fw < CP_N_FRAMEWORKS; fw++)
    if (g_strcmp0 (str, cp_framework_to_string (fw)) == 0)
      {
        *framework = fw;
        return TRUE;
      }
  return FALSE;
}

const char *
cp_framework_get_label (CpFramework framework)
{
  /* Product names: not translated. */
  switch (framework)
    {
    case CP_FRAMEWORK_PYTORCH: return "PyTorch";
    case CP_FRAMEWORK_JAX: return "JAX";
    case CP_FRAMEWORK_TENSORFLOW: return "TensorFlow";
    case CP_N_FRAMEWORKS:
    default:
      return "";
    }
}

char *
cp_figure_format (const CpFigure *f,
                  double          value)
{
  g_return_val_if_fail (f != NULL, NULL);

  if (isnan (value))
    return g_strdup ("—");
  if (g_strcmp0 (f->unit, "%") == 0)
    return g_strdup_printf ("%.1f%%", value);
  if (g_strcmp0 (f->unit, "ratio") == 0)
    return g_strdup_printf ("%.3f", value);
  if (g_strcmp0 (f->unit, "ns") == 0)
    return cp_format_ns ((gint64) value);
  if (g_strcmp0 (f->unit, "ms") == 0)
    return g_strdup_printf ("%.1f ms", value);
  if (g_strcmp0 (f->unit, "GB/s") == 0)
    return g_strdup_printf ("%.2f GB/s", value);
  if (g_strcmp0 (f->unit, "bytes") == 0)
    return g_format_size_full ((guint64) MAX (value, 0), G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("%.0f", value);
}

char *
cp_figure_format_thresholds (const CpFigure *f)
{
  GString *s;

  g_return_val_if_fail (f != NULL, NULL);

  if (f->comparison == NULL || (isnan (f->moderate) && isnan (f->high)))
    return NULL;
  s = g_string_new (NULL);
  if (!isnan (f->moderate))
    {
      g_autofree char *m = cp_figure_format (f, f->moderate);

      /* Translators: a threshold, e.g. "moderate >= 5.0%". */
      g_string_append_printf (s, _("moderate %s %s"), f->comparison, m);
    }
  if (!isnan (f->high))
    {
      g_autofree char *h = cp_figure_format (f, f->high);

      if (s->len > 0)
        g_string_append (s, ", ");
      /* Translators: a threshold, e.g. "high >= 20.0%". */
      g_string_append_printf (s, _("high %s %s"), f->comparison, h);
    }
  return g_string_free (s, FALSE);
}

char *
cp_format_ns (gint64 ns)
{
  double v = (double) ns;
  const char *sign = "";

  if (ns < 0)
    {
      sign = "−";
      v = -v;
    }
  /* Three significant digits. */
  if (v >= 1e9)
    return g_strdup_printf (v >= 100e9 ? "%s%.0f s" : v >= 10e9 ? "%s%.1f s" : "%s%.2f s", sign, v / 1e9);
  if (v >= 1e6)
    return g_strdup_printf (v >= 100e6 ? "%s%.0f ms" : v >= 10e6 ? "%s%.1f ms" : "%s%.2f ms", sign, v / 1e6);
  if (v >= 1e3)
    return g_strdup_printf (v >= 100e3 ? "%s%.0f µs" : v >= 10e3 ? "%s%.1f µs" : "%s%.2f µs", sign, v / 1e3);
  return g_strdup_printf ("%s%.0f ns", sign, v);
}
