/* cp-job.c: the ranks of one distributed run, opened as one job (see cp-job.h)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cp-classify.h"
#include "analysis/cp-intervals.h"
#include "analysis/cp-job-private.h"
#include "formats/cp-args.h"
#include "formats/cp-loader.h"
#include "formats/cp-xplane-reader.h"

G_DEFINE_FINAL_TYPE (CpJob, cp_job, G_TYPE_OBJECT)

const char *
cp_rank_source_to_string (CpRankSource source)
{
  switch (source)
    {
    case CP_RANK_FROM_DISTRIBUTED_INFO: return "distributed_info";
    case CP_RANK_FROM_FILE_NAME: return "file_name";
    case CP_RANK_FROM_ORDER: default: return "order";
    }
}

void
_cp_job_slot_clear (Slot *s)
{
  g_clear_object (&s->file);
  g_free (s->r.path);
  g_clear_object (&s->r.trace);
  g_clear_object (&s->r.analysis);
  g_free (s->r.backend);
  g_free (s->r.host);
  g_free (s->error);
  if (s->colls != NULL)
    g_array_unref (s->colls);
  if (s->strings != NULL)
    g_string_chunk_free (s->strings);
  if (s->compute != NULL)
    cp_intervals_free (s->compute);
  g_free (s->r.utilization);
  g_clear_pointer (&s->r.confidence_reasons, g_array_unref);
  g_free (s->before);
}

static void
cp_job_finalize (GObject *object)
{
  CpJob *self = CP_JOB (object);

  for (guint i = 0; i < self->n_slots; i++)
    _cp_job_slot_clear (&self->slots[i]);
  g_free (self->slots);
  g_free (self->order);
  for (guint i = 0; i < self->n_colls; i++)
    {
      CpJobCollective *c = &self->colls[i];

      g_free (c->group);
      g_free (c->name);
      g_free (c->dtype);
      g_free (c->arrival);
      g_free (c->end);
      g_free (c->exposed);
      g_free (c->slices);
      g_free (c->mismatch);
    }
  g_free (self->colls);
  for (guint i = 0; i < self->findings->len; i++)
    {
      CpJobFinding *f = &g_array_index (self->findings, CpJobFinding, i);

      g_free (f->title);
      g_free (f->summary);
    }
  g_array_unref (self->findings);
  g_ptr_array_unref (self->notes);
  G_OBJECT_CLASS (cp_job_parent_class)->finalize (object);
}

static void
cp_job_class_init (CpJobClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cp_job_finalize;
}

static void
cp_job_init (CpJob *self)
{
  self->findings = g_array_new (FALSE, TRUE, sizeof (CpJobFinding));
  self->notes = g_ptr_array_new_with_free_func (g_free);
  self->world_size = -1;
}

static void
note (CpJob      *self,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static void
note (CpJob      *self,
      const char *format,
      ...)
{
  va_list ap;

  va_start (ap, format);
  g_ptr_array_add (self->notes, g_strdup_vprintf (format, ap));
  va_end (ap);
}

/* ---- Folders ---------------------------------------------------------- */

/* Names in the order people number them: runs of digits by their value
 * ("rank-2" before "rank-10", "w007" with "w7"), the rest byte by byte;
 * names equal that way by their bytes. */
static gint
compare_names (const char *a,
               const char *b)
{
  const char *p = a, *q = b;

  while (*p != '\0' && *q != '\0')
    {
      if (g_ascii_isdigit (*p) && g_ascii_isdigit (*q))
        {
          const char *ep, *eq;
          gsize np, nq;

          while (*p == '0' && g_ascii_isdigit (p[1]))
            p++;
          while (*q == '0' && g_ascii_isdigit (q[1]))
            q++;
          for (ep = p; g_ascii_isdigit (*ep); ep++)
            ;
          for (eq = q; g_ascii_isdigit (*eq); eq++)
            ;
          np = ep - p;
          nq = eq - q;
          if (np != nq)
            return np < nq ? -1 : 1;
          if (memcmp (p, q, np) != 0)
            return memcmp (p, q, np) < 0 ? -1 : 1;
          p = ep;
          q = eq;
          continue;
        }
      if (*p != *q)
        return (guchar) *p < (guchar) *q ? -1 : 1;
      p++;
      q++;
    }
  if (*p != *q)
    return *p == '\0' ? -1 : 1;
  return strcmp (a, b);
}

static gint
compare_files (gconstpointer a,
               gconstpointer b)
{
  g_autofree char *pa = g_file_get_basename (*(GFile **) a);
  g_autofree char *pb = g_file_get_basename (*(GFile **) b);

  return compare_names (pa, pb);
}

guint64
cp_job_memory_available (void)
{
  const char *env = g_getenv ("CHOKEPOINT_MEMORY_AVAILABLE");
  g_autofree char *meminfo = NULL;
  const char *line;

  if (env != NULL && *env != '\0')
    return g_ascii_strtoull (env, NULL, 10);
  if (!g_file_get_contents ("/proc/meminfo", &meminfo, NULL, NULL) ||
      (line = strstr (meminfo, "MemAvailable:")) == NULL)
    return 0;
  return g_ascii_strtoull (line + strlen ("MemAvailable:"), NULL, 10) * 1024;
}

/* A rank keeps its model and its analysis for the job's life: measured on
 * cp-gen's 106 MB Kineto ranks (133,660 collectives), 115 MB resident
 * each, where cp_load_estimate_peak() says 37 MB (docs/performance.md). */
#define JOB_PER_PEAK 3

guint
cp_job_count_fitting (GFile * const *files,
                      guint          n_files,
                      guint64        available,
                      guint64       *need_all,
                      guint64       *need_fitting)
{
  guint64 sum = 0, fitting = 0, budget = available / 10 * 9;
  guint n_fit = 0;
  gboolean unknown = available == 0;

  for (guint i = 0; i < n_files; i++)
    {
      guint64 peak = cp_load_estimate_peak (files[i]) * JOB_PER_PEAK;

      if (peak == 0)
        unknown = TRUE;
      sum += peak;
      if (n_fit == i && (unknown || sum <= budget))
        {
          n_fit++;
          fitting = sum;
        }
    }
  if (unknown)
    {
      n_fit = n_files;
      fitting = sum;
    }
  if (need_all != NULL)
    *need_all = sum;
  if (need_fitting != NULL)
    *need_fitting = fitting;
  return n_fit;
}

static gboolean
is_xplane_file (GFile *file)
{
  g_autofree char *name = g_file_get_basename (file);

  return strstr (name, ".xplane.pb") != NULL;
}

gboolean
cp_job_is_folder (GFile *file)
{
  g_autoptr(GPtrArray) files = NULL;
  g_autofree char *first = NULL;

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    return FALSE;
  files = cp_job_list_folder (file, NULL);
  if (files == NULL)
    return FALSE;
  first = g_file_get_basename (g_ptr_array_index (files, 0));
  return strstr (first, ".pt.trace.json") != NULL || is_xplane_file (g_ptr_array_index (files, 0));
}

GPtrArray *
cp_job_list_folder (GFile   *folder,
                    GError **error)
{
  g_autoptr(GFileEnumerator) en = NULL;
  g_autoptr(GPtrArray) kineto = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) json = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) hosts = NULL;
  g_autofree char *shown = g_file_get_parse_name (folder);
  GFileInfo *info;

  en = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                  G_FILE_QUERY_INFO_NONE, NULL, error);
  if (en == NULL)
    return NULL;
  while ((info = g_file_enumerator_next_file (en, NULL, error)) != NULL)
    {
      const char *name = g_file_info_get_name (info);

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
        {
          if (g_str_has_suffix (name, ".pt.trace.json") || g_str_has_suffix (name, ".pt.trace.json.gz"))
            g_ptr_array_add (kineto, g_file_get_child (folder, name));
          else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz"))
            g_ptr_array_add (json, g_file_get_child (folder, name));
        }
      g_object_unref (info);
    }
  if (error != NULL && *error != NULL)
    return NULL;
  if (kineto->len > 0)
    {
      g_ptr_array_sort (kineto, compare_files);
      return g_ptr_array_ref (kineto);
    }
  /* A TensorBoard run of several hosts (JAX, TensorFlow): one process, so
   * one rank, per host's XSpace. */
  hosts = cp_xplane_folder_hosts (folder, NULL);
  if (hosts->len > 1)
    {
      g_ptr_array_sort (hosts, compare_files);
      return g_ptr_array_ref (hosts);
    }
  if (json->len == 0)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                   _("%s: the folder holds no captures of ranks (*.pt.trace.json, *.json or their .gz, or a "
                     "TensorBoard run with the .xplane.pb of several hosts)"), shown);
      return NULL;
    }
  g_ptr_array_sort (json, compare_files);
  return g_ptr_array_ref (json);
}

/* ---- Progress ---------------------------------------------------------- */

typedef struct
{
  gint    state;      /* CpJobFileState */
  guint64 done;
  guint64 total;
} FileProgress;

struct _CpJobProgress
{
  gint          ref_count;
  guint         n_files;
  GMutex        lock;
  FileProgress *files;
};

CpJobProgress *
cp_job_progress_new (guint n_files)
{
  CpJobProgress *self = g_new0 (CpJobProgress, 1);

  self->ref_count = 1;
  self->n_files = n_files;
  self->files = g_new0 (FileProgress, MAX (n_files, 1));
  g_mutex_init (&self->lock);
  return self;
}

CpJobProgress *
cp_job_progress_ref (CpJobProgress *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_int_inc (&self->ref_count);
  return self;
}

void
cp_job_progress_unref (CpJobProgress *self)
{
  if (self == NULL || !g_atomic_int_dec_and_test (&self->ref_count))
    return;
  g_mutex_clear (&self->lock);
  g_free (self->files);
  g_free (self);
}

guint
cp_job_progress_get_n_files (CpJobProgress *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_files;
}

CpJobFileState
cp_job_progress_get_file (CpJobProgress *self,
                          guint          index,
                          guint64       *done,
                          guint64       *total)
{
  FileProgress f;

  g_return_val_if_fail (self != NULL && index < self->n_files, CP_JOB_FILE_FAILED);
  g_mutex_lock (&self->lock);
  f = self->files[index];
  g_mutex_unlock (&self->lock);
  if (done != NULL)
    *done = f.done;
  if (total != NULL)
    *total = f.total;
  return (CpJobFileState) f.state;
}

void
cp_job_progress_get_total (CpJobProgress *self,
                           guint64       *done,
                           guint64       *total,
                           guint         *n_finished)
{
  guint64 d = 0, t = 0;
  guint n = 0;

  g_return_if_fail (self != NULL);
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->n_files; i++)
    {
      d += self->files[i].done;
      t += self->files[i].total;
      n += self->files[i].state >= CP_JOB_FILE_DONE;
    }
  g_mutex_unlock (&self->lock);
  if (done != NULL)
    *done = d;
  if (total != NULL)
    *total = t;
  if (n_finished != NULL)
    *n_finished = n;
}

static void
progress_set (CpJobProgress  *self,
              guint           index,
              CpJobFileState  state,
              gboolean        whole)
{
  if (self == NULL || index >= self->n_files)
    return;
  g_mutex_lock (&self->lock);
  self->files[index].state = state;
  if (whole)
    self->files[index].done = self->files[index].total;
  g_mutex_unlock (&self->lock);
}

/* ---- Reading ranks in parallel ----------------------------------------- */

typedef struct
{
  Slot          *slots;
  GCancellable  *cancellable;
  CpJobProgress *progress;
} ReadCtx;

typedef struct
{
  CpJobProgress *progress;
  guint          index;
} FileCtx;

static void
file_progress (guint64  done,
               guint64  total,
               gpointer data)
{
  FileCtx *f = data;

  g_mutex_lock (&f->progress->lock);
  f->progress->files[f->index].done = done;
  f->progress->files[f->index].total = total;
  g_mutex_unlock (&f->progress->lock);
}

void
_cp_job_read_slot (Slot          *s,
                   GCancellable  *cancellable,
                   CpJobProgress *progress,
                   guint          index)
{
  FileCtx f = { progress, index };
  g_autoptr(GError) error = NULL;

  progress_set (progress, index, CP_JOB_FILE_READING, FALSE);
  s->r.trace = cp_load_file (s->file, cancellable, progress != NULL ? file_progress : NULL, &f, &error);
  if (s->r.trace != NULL)
    {
      progress_set (progress, index, CP_JOB_FILE_ANALYSING, TRUE);
      s->r.analysis = cp_analysis_new (s->r.trace, cancellable, &error);
    }
  if (s->r.analysis == NULL)
    {
      g_clear_object (&s->r.trace);
      s->error = g_strdup (error != NULL ? error->message : "?");
    }
  else
    {
      _cp_job_facts_from_analysis (s);
      s->ok = TRUE;
    }
  progress_set (progress, index, s->ok ? CP_JOB_FILE_DONE : CP_JOB_FILE_FAILED, FALSE);
}

void
_cp_job_facts_from_analysis (Slot *s)
{
  const CpDeviceStats *devs;
  CpFramework order[CP_N_FRAMEWORKS];

  s->r.origin_abs = cp_trace_get_origin_abs (s->r.trace);
  cp_analysis_get_windows (s->r.analysis, &s->r.n_steps);
  s->r.window_time = cp_analysis_get_window_time (s->r.analysis);
  cp_analysis_get_step_summary (s->r.analysis, &s->r.step);
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary ts;

      cp_analysis_get_time_summary (s->r.analysis, c, &ts);
      s->r.breakdown[c] = ts.total;
    }
  devs = cp_analysis_get_devices (s->r.analysis, &s->r.n_devices);
  s->r.utilization = g_new (double, MAX (s->r.n_devices, 1u));
  for (guint d = 0; d < s->r.n_devices; d++)
    s->r.utilization[d] = devs[d].utilization;
  s->r.fix_lead = cp_analysis_get_fix_order (s->r.analysis, order) > 0 ? (gint) order[0] : -1;
  {
    const CpConfidenceReason *reasons;
    guint n;

    s->r.confidence = cp_analysis_get_confidence (s->r.analysis, &reasons, &n);
    s->r.confidence_reasons = _cp_job_new_reasons ();
    for (guint i = 0; i < n; i++)
      _cp_job_add_reason (s->r.confidence_reasons, reasons[i].id, reasons[i].level, reasons[i].text);
  }
}

static void
clear_reason (gpointer data)
{
  CpConfidenceReason *r = data;

  g_free ((char *) r->id);
  g_free ((char *) r->text);
}

GArray *
_cp_job_new_reasons (void)
{
  GArray *reasons = g_array_new (FALSE, TRUE, sizeof (CpConfidenceReason));

  g_array_set_clear_func (reasons, clear_reason);
  return reasons;
}

void
_cp_job_add_reason (GArray            *reasons,
                    const char        *id,
                    CpConfidenceLevel  level,
                    const char        *text)
{
  CpConfidenceReason r = { g_strdup (id), level, g_strdup (text) };

  g_array_append_val (reasons, r);
}

/* One reason of the job: the ranks that give it, by id and text. */
typedef struct
{
  const CpConfidenceReason *why;
  GString                  *ranks;
  guint                     n;
} JobReason;

CpConfidenceLevel
cp_job_get_confidence (CpJob   *self,
                       GArray **reasons)
{
  CpConfidenceLevel level = CP_CONFIDENCE_HIGH;
  g_autoptr(GArray) grouped = g_array_new (FALSE, TRUE, sizeof (JobReason));

  g_return_val_if_fail (CP_IS_JOB (self), CP_CONFIDENCE_HIGH);

  for (guint k = 0; k < self->n_ranks; k++)
    {
      const CpJobRank *r = &self->slots[self->order[k]].r;

      level = MAX (level, r->confidence);
      for (guint i = 0; r->confidence_reasons != NULL && i < r->confidence_reasons->len; i++)
        {
          const CpConfidenceReason *why = &g_array_index (r->confidence_reasons, CpConfidenceReason, i);
          JobReason *g = NULL;

          for (guint j = 0; j < grouped->len && g == NULL; j++)
            if (g_str_equal (g_array_index (grouped, JobReason, j).why->id, why->id) &&
                g_str_equal (g_array_index (grouped, JobReason, j).why->text, why->text))
              g = &g_array_index (grouped, JobReason, j);
          if (g == NULL)
            {
              JobReason add = { why, g_string_new (NULL), 0 };

              g_array_append_val (grouped, add);
              g = &g_array_index (grouped, JobReason, grouped->len - 1);
            }
          g_string_append_printf (g->ranks, "%s%d", g->n++ ? ", " : "", r->rank);
        }
    }
  if (reasons != NULL)
    *reasons = _cp_job_new_reasons ();
  for (guint j = 0; j < grouped->len; j++)
    {
      JobReason *g = &g_array_index (grouped, JobReason, j);

      if (reasons != NULL)
        {
          /* Translators: the ranks that give a reason in a job's
           * confidence, "ranks 0, 1, 2: 1 step" ("rank 3: 1 step"). */
          g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "rank %s: %s", "ranks %s: %s", g->n),
                                                   g->ranks->str, g->why->text);

          _cp_job_add_reason (*reasons, g->why->id, g->why->level, text);
        }
      g_string_free (g->ranks, TRUE);
    }
  return level;
}

static void
read_one (gpointer data,
          gpointer user_data)
{
  Slot *s = data;
  ReadCtx *ctx = user_data;

  _cp_job_read_slot (s, ctx->cancellable, ctx->progress, (guint) (s - ctx->slots));
}

/* ---- Ranks ------------------------------------------------------------- */

static JsonNode *
metadata_node (CpTrace    *trace,
               const char *key)
{
  const char *text = cp_trace_lookup_metadata (trace, key);

  if (text == NULL)
    return NULL;
  return json_from_string (text, NULL);
}

void
_cp_job_read_distributed_info (Slot *s)
{
  g_autoptr(JsonNode) di = metadata_node (s->r.trace, "distributedInfo");
  g_autoptr(JsonNode) host = metadata_node (s->r.trace, "hostname");
  g_autoptr(JsonNode) hosts = metadata_node (s->r.trace, "hostnames");

  s->r.world_size = -1;
  if (di != NULL && JSON_NODE_HOLDS_OBJECT (di))
    {
      JsonObject *o = json_node_get_object (di);
      JsonNode *n;

      n = json_object_get_member (o, "rank");
      if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 &&
          json_node_get_int (n) >= 0 && json_node_get_int (n) < G_MAXINT)
        {
          s->r.rank = (gint) json_node_get_int (n);
          s->r.rank_source = CP_RANK_FROM_DISTRIBUTED_INFO;
          s->have_rank = TRUE;
        }
      n = json_object_get_member (o, "world_size");
      if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 &&
          json_node_get_int (n) > 0 && json_node_get_int (n) < G_MAXINT)
        s->r.world_size = (gint) json_node_get_int (n);
      n = json_object_get_member (o, "backend");
      if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        s->r.backend = g_strdup (json_node_get_string (n));
      n = json_object_get_member (o, "hostname");
      if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
        s->r.host = g_strdup (json_node_get_string (n));
    }
  if (s->r.host == NULL && host != NULL && JSON_NODE_HOLDS_VALUE (host) &&
      json_node_get_value_type (host) == G_TYPE_STRING)
    s->r.host = g_strdup (json_node_get_string (host));
  /* An XSpace names its hosts. */
  if (s->r.host == NULL && hosts != NULL && JSON_NODE_HOLDS_ARRAY (hosts) &&
      json_array_get_length (json_node_get_array (hosts)) > 0)
    {
      JsonNode *h = json_array_get_element (json_node_get_array (hosts), 0);

      if (JSON_NODE_HOLDS_VALUE (h) && json_node_get_value_type (h) == G_TYPE_STRING)
        s->r.host = g_strdup (json_node_get_string (h));
    }
}

/* "rank-3", "rank_3", "rank3" (any case) in the base name. */
static gboolean
rank_from_name (GFile *file,
                gint  *rank)
{
  g_autofree char *base = g_file_get_basename (file);
  g_autofree char *lower = g_ascii_strdown (base, -1);
  const char *p = lower;

  while ((p = strstr (p, "rank")) != NULL)
    {
      const char *q = p + 4;
      char *end;
      guint64 v;

      if (*q == '-' || *q == '_')
        q++;
      if (g_ascii_isdigit (*q))
        {
          v = g_ascii_strtoull (q, &end, 10);
          if (v < G_MAXINT)
            {
              *rank = (gint) v;
              return TRUE;
            }
        }
      p += 4;
    }
  return FALSE;
}

static gint
compare_ranks (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const Slot *slots = user_data;
  gint ra = slots[*(const guint *) a].r.rank, rb = slots[*(const guint *) b].r.rank;

  return (ra > rb) - (ra < rb);
}

/* ---- Collectives of one rank ------------------------------------------- */

/* "AllReduce" → "all_reduce". */
static char *
snake_case (const char *camel,
            gsize       len)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < len; i++)
    {
      if (g_ascii_isupper (camel[i]) && i > 0)
        g_string_append_c (s, '_');
      g_string_append_c (s, g_ascii_tolower (camel[i]));
    }
  return g_string_free (s, FALSE);
}

/* The operation of a collective kernel or annotation: "nccl:all_reduce" and
 * "gloo:all_reduce" → "all_reduce"; "ncclKernel_AllReduce_RING_LL_Sum_float"
 * and "ncclDevKernel_AllGather_RING_LL" → "all_reduce", "all_gather". */
char *
_cp_job_collective_op (const char *name)
{
  const char *p, *q;

  if (g_str_has_prefix (name, "nccl:") || g_str_has_prefix (name, "gloo:"))
    return g_strdup (name + 5);
  p = strchr (name, '_');
  if (p != NULL && (g_str_has_prefix (name, "ncclKernel_") || g_str_has_prefix (name, "ncclDevKernel_") ||
                    g_str_has_prefix (name, "rcclKernel_")))
    {
      p++;
      q = p;
      while (*q != '\0' && *q != '_' && *q != '(')
        q++;
      return snake_case (p, q - p);
    }
  return g_strdup (name);
}

static gint
dtype_size (const char *dtype)
{
  static const struct { const char *name; gint size; } sizes[] = {
    { "Float", 4 }, { "float", 4 }, { "Int", 4 }, { "int", 4 },
    { "Double", 8 }, { "double", 8 }, { "Long", 8 }, { "long", 8 }, { "long int", 8 },
    { "Half", 2 }, { "BFloat16", 2 }, { "c10::Half", 2 }, { "c10::BFloat16", 2 }, { "Short", 2 },
    { "Byte", 1 }, { "Char", 1 }, { "Bool", 1 }, { "unsigned char", 1 },
  };

  if (dtype == NULL)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (strcmp (dtype, sizes[i].name) == 0)
      return sizes[i].size;
  if (g_str_has_prefix (dtype, "Float8"))
    return 1;
  return -1;
}

/* The arguments record_param_comms carries (PyTorch 2.1 and later). */
typedef struct
{
  gint64  start;
  char   *op;
  gint64  nelems;
  char   *dtype;
  gint    group_size;
  char   *group;
} CommParams;

static void
comm_params_clear (CommParams *p)
{
  g_free (p->op);
  g_free (p->dtype);
  g_free (p->group);
}

static gboolean
read_comm_params (CpTrace    *trace,
                  CpSliceRef  ref,
                  CommParams *p)
{
  static const char * const keys[] = { "Collective name", "In msg nelems", "dtype", "Group size",
                                       "Process Group Name", NULL };
  char *values[G_N_ELEMENTS (keys)] = { NULL };
  g_autoptr(GPtrArray) args = NULL;

  memset (p, 0, sizeof *p);
  p->nelems = -1;
  p->group_size = -1;
  /* Tens of thousands of these a rank: read the five keys in place, and
   * decode the whole object only when the text is not that simple. */
  if (cp_args_lookup (trace, ref, keys, values))
    {
      p->op = values[0];
      if (values[1] != NULL)
        p->nelems = g_ascii_strtoll (values[1], NULL, 10);
      p->dtype = values[2];
      if (values[3] != NULL)
        p->group_size = (gint) CLAMP (g_ascii_strtoll (values[3], NULL, 10), -1, G_MAXINT);
      p->group = values[4];
      g_free (values[1]);
      g_free (values[3]);
      if (p->op == NULL)
        {
          comm_params_clear (p);
          return FALSE;
        }
      return TRUE;
    }
  args = cp_args_decode (trace, ref, NULL);
  if (args == NULL)
    return FALSE;
  for (guint i = 0; i < args->len; i++)
    {
      CpArg *a = g_ptr_array_index (args, i);

      if (strcmp (a->key, "Collective name") == 0)
        p->op = g_strdup (a->value);
      else if (strcmp (a->key, "In msg nelems") == 0)
        p->nelems = g_ascii_strtoll (a->value, NULL, 10);
      else if (strcmp (a->key, "dtype") == 0)
        p->dtype = g_strdup (a->value);
      else if (strcmp (a->key, "Group size") == 0)
        p->group_size = (gint) CLAMP (g_ascii_strtoll (a->value, NULL, 10), -1, G_MAXINT);
      else if (strcmp (a->key, "Process Group Name") == 0)
        p->group = g_strdup (a->value);
    }
  if (p->op == NULL)
    {
      comm_params_clear (p);
      return FALSE;
    }
  return TRUE;
}

static gint
compare_colls (gconstpointer a,
               gconstpointer b)
{
  const RankColl *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* An aten op of category cpu_op that is not a wait. */
static gboolean
is_host_compute (const char *name)
{
  return g_str_has_prefix (name, "aten::") && strstr (name, "wait") == NULL;
}

/* The collectives of a rank (device kernels when there are any, else host
 * annotations) and its compute intervals, in the rank's own time. */
void
_cp_job_find_collectives (Slot *s)
{
  CpTrace *trace = s->r.trace;
  g_autoptr(GArray) dev = g_array_new (FALSE, TRUE, sizeof (RankColl));
  g_autoptr(GArray) host = g_array_new (FALSE, TRUE, sizeof (RankColl));
  g_autoptr(GArray) params = g_array_new (FALSE, TRUE, sizeof (CommParams));
  CpIntervals *kernels = cp_intervals_new (), *host_compute = cp_intervals_new ();
  g_autoptr(CpNameCache) names = cp_name_cache_new (trace);
  const CpStringPool *pool = cp_trace_get_string_pool (trace);
  CpStr cpu_op = cp_string_pool_lookup (pool, "cpu_op");
  CpStr record_param_comms = cp_string_pool_lookup (pool, "record_param_comms"); /* G_MAXUINT32: none */
  const char *format = cp_trace_get_load_report (trace)->format;
  gboolean xla = format != NULL && g_str_has_prefix (format, "xplane");
  GArray *chosen;

  if (s->strings == NULL)
    s->strings = g_string_chunk_new (4096);
  g_array_set_clear_func (params, (GDestroyNotify) comm_params_clear);
  if (xla)
    _cp_job_xla_collectives (s, dev, kernels);
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *sl = cp_lane_get_slices (lane);
      CpLaneKind kind = cp_lane_get_kind (lane);

      if ((kind != CP_LANE_KERNEL || xla) && kind != CP_LANE_HOST_THREAD)
        continue;
      for (guint i = 0; i < sl->n; i++)
        {
          CpStr name_id = cp_slices_get_name (sl, i);
          const char *name = cp_trace_get_string (trace, name_id);
          gint64 start = cp_slices_get_start (sl, i), end = cp_slices_get_end (sl, i);

          if (kind == CP_LANE_KERNEL)
            {
              if (sl->flags[i] & CP_SLICE_SYNC)
                continue;
              /* Classified once per name, not once per kernel. */
              if (cp_name_cache_lookup (names, name_id) & CP_NAME_COLLECTIVE)
                {
                  g_autofree char *op = _cp_job_collective_op (name);
                  RankColl c = { start, end, name, g_string_chunk_insert_const (s->strings, op), -1, NULL, -1, NULL, { l, i } };

                  g_array_append_val (dev, c);
                }
              else
                cp_intervals_add (kernels, start, end);
            }
          else if (g_str_has_prefix (name, "gloo:") || g_str_has_prefix (name, "nccl:"))
            {
              g_autofree char *op = _cp_job_collective_op (name);
              RankColl c = { start, end, name, g_string_chunk_insert_const (s->strings, op), -1, NULL, -1, NULL, { l, i } };

              g_array_append_val (host, c);
            }
          else if (name_id == record_param_comms)
            {
              CommParams p;
              CpSliceRef ref = { l, i };

              if (read_comm_params (trace, ref, &p))
                {
                  p.start = start;
                  g_array_append_val (params, p);
                }
            }
          else if (cp_slices_get_cat (sl, i) == cpu_op && is_host_compute (name))
            cp_intervals_add (host_compute, start, end);
        }
    }

  s->r.device_collectives = dev->len > 0;
  chosen = dev->len > 0 ? dev : host;
  g_array_sort (chosen, compare_colls);
  cp_intervals_normalize (kernels);
  cp_intervals_normalize (host_compute);
  if (dev->len > 0 || cp_intervals_length (kernels) > 0)
    {
      s->compute = kernels;
      cp_intervals_free (host_compute);
    }
  else
    {
      s->compute = host_compute;
      cp_intervals_free (kernels);
    }

  /* One record_param_comms per collective: take their sizes, in order. */
  if (params->len == chosen->len)
    {
      g_array_sort (params, compare_colls);
      for (guint i = 0; i < chosen->len; i++)
        {
          RankColl *c = &g_array_index (chosen, RankColl, i);
          CommParams *p = &g_array_index (params, CommParams, i);
          gint size = dtype_size (p->dtype);

          c->bytes = p->nelems >= 0 && size > 0 ? p->nelems * size : -1;
          c->dtype = p->dtype != NULL ? g_string_chunk_insert_const (s->strings, p->dtype) : NULL;
          c->group_size = p->group_size;
          c->group = p->group != NULL ? g_string_chunk_insert_const (s->strings, p->group) : NULL;
          c->op = p->op != NULL ? g_string_chunk_insert_const (s->strings, p->op) : NULL;
        }
    }
  else
    s->n_params = params->len;

  s->colls = g_array_ref (chosen);
  s->r.n_collectives = chosen->len;
}

/* ---- Naming the ranks -------------------------------------------------- */

static gint
compare_slot_ranks (gconstpointer a,
                    gconstpointer b)
{
  gint x = (*(const Slot **) a)->r.rank, y = (*(const Slot **) b)->r.rank;

  return (x > y) - (x < y);
}

static void
assign_ranks (CpJob *self)
{
  g_autoptr(GHashTable) taken = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) sizes = g_hash_table_new (NULL, NULL);
  GPtrArray *guessed[2] = { g_ptr_array_new (), g_ptr_array_new () };  /* by file name, by order */
  guint best_count = 0;
  gint next = 0;

  /* The world size most ranks say; those saying another are another job. */
  for (guint i = 0; i < self->n_slots; i++)
    if (self->slots[i].ok && self->slots[i].r.world_size > 0)
      {
        gpointer key = GINT_TO_POINTER (self->slots[i].r.world_size);
        guint c = GPOINTER_TO_UINT (g_hash_table_lookup (sizes, key)) + 1;

        g_hash_table_insert (sizes, key, GUINT_TO_POINTER (c));
        if (c > best_count)
          {
            best_count = c;
            self->world_size = self->slots[i].r.world_size;
          }
      }

  for (guint pass = 0; pass < 3; pass++)
    for (guint i = 0; i < self->n_slots; i++)
      {
        Slot *s = &self->slots[i];

        if (!s->ok || s->used || (pass == 0 && !s->have_rank))
          continue;
        if (pass == 0 && s->r.world_size > 0 && s->r.world_size != self->world_size)
          {
            note (self, _("%s: world size %d, not the job’s %d: a capture of another run, left out"),
                  s->r.path, s->r.world_size, self->world_size);
            s->ok = FALSE;
            continue;
          }
        if (pass == 1)
          {
            if (s->have_rank || !rank_from_name (s->file, &s->r.rank))
              continue;
            s->r.rank_source = CP_RANK_FROM_FILE_NAME;
          }
        else if (pass == 2)
          {
            while (g_hash_table_contains (taken, GINT_TO_POINTER (next)))
              next++;
            s->r.rank = next;
            s->r.rank_source = CP_RANK_FROM_ORDER;
          }
        if (g_hash_table_contains (taken, GINT_TO_POINTER (s->r.rank)))
          {
            note (self, _("%s: rank %d is given twice; this file is left out"), s->r.path, s->r.rank);
            s->ok = FALSE;
            continue;
          }
        g_hash_table_add (taken, GINT_TO_POINTER (s->r.rank));
        s->used = TRUE;
        if (pass > 0)
          g_ptr_array_add (guessed[pass - 1], s);
      }

  /* One note per way of guessing, naming the file when there is one. */
  for (guint pass = 1; pass < 3; pass++)
    {
      g_autoptr(GPtrArray) g = guessed[pass - 1];
      const Slot *first, *last;

      if (g->len == 0)
        continue;
      g_ptr_array_sort (g, compare_slot_ranks);
      first = g_ptr_array_index (g, 0);
      last = g_ptr_array_index (g, g->len - 1);
      if (g->len == 1 && pass == 1)
        note (self, _("%s: rank %d guessed from the file name (the capture has no distributedInfo)"),
              first->r.path, first->r.rank);
      else if (g->len == 1)
        note (self, _("%s: rank %d guessed from the order of the files (no distributedInfo, no rank in the name)"),
              first->r.path, first->r.rank);
      else if (pass == 1)
        /* Translators: "8 ranks guessed from the file names (…): rank-0.json is rank 0 … rank-7.json rank 7". */
        note (self, _("%u ranks guessed from the file names (the captures have no distributedInfo): %s is rank %d … "
                      "%s rank %d"), g->len, first->r.path, first->r.rank, last->r.path, last->r.rank);
      else
        note (self, _("%u ranks guessed from the order of the files (no distributedInfo, no rank in the names): %s is "
                      "rank %d … %s rank %d"), g->len, first->r.path, first->r.rank, last->r.path, last->r.rank);
    }

  self->order = g_new0 (guint, self->n_slots);
  for (guint i = 0; i < self->n_slots; i++)
    if (self->slots[i].used)
      self->order[self->n_ranks++] = i;
  g_qsort_with_data (self->order, self->n_ranks, sizeof (guint), compare_ranks, self->slots);

  if (self->world_size > 0 && (gint) self->n_ranks < self->world_size)
    {
      GString *missing = g_string_new (NULL);
      guint listed = 0;

      for (gint r = 0; r < self->world_size && listed < 16; r++)
        if (!g_hash_table_contains (taken, GINT_TO_POINTER (r)))
          {
            g_string_append_printf (missing, "%s%d", listed > 0 ? ", " : "", r);
            listed++;
          }
      if ((gint) (self->n_ranks + listed) < self->world_size)
        g_string_append (missing, ", …");
      note (self, _("%u of the job’s %d ranks were given; missing: %s"), self->n_ranks, self->world_size, missing->str);
      g_string_free (missing, TRUE);
    }
}

/* ---- Matching, clocks, figures ------------------------------------------ */

static int
compare_gint64 (const void *a,
                const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

static const char *
group_of (const RankColl *c)
{
  return c->group != NULL ? c->group : "0";
}

static double
bus_factor (const char *op,
            gint        n,
            gboolean   *gather)
{
  g_autofree char *flat = g_strdelimit (g_ascii_strdown (op, -1), "_", ' ');
  g_autofree char *key = NULL;
  char **parts = g_strsplit (flat, " ", -1);

  key = g_strjoinv ("", parts);
  g_strfreev (parts);
  *gather = FALSE;
  if (n < 1)
    return NAN;
  if (strstr (key, "allreduce"))
    return 2.0 * (n - 1) / n;
  if (strstr (key, "allgather"))
    {
      *gather = TRUE;
      return (double) (n - 1) / n;
    }
  if (strstr (key, "reducescatter") || strstr (key, "alltoall"))
    return (double) (n - 1) / n;
  if (strstr (key, "broadcast") || strcmp (key, "reduce") == 0)
    return 1.0;
  return NAN;
}

static char *
describe_coll (const RankColl *c)
{
  g_autofree char *size = c->bytes >= 0 ? g_format_size_full (c->bytes, G_FORMAT_SIZE_IEC_UNITS) : g_strdup ("?");

  return g_strdup_printf ("%s %s %s", c->op, size, c->dtype != NULL ? c->dtype : "?");
}

static void
match_collectives (CpJob *self)
{
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  g_autoptr(GArray) table = g_array_new (FALSE, FALSE, sizeof (const RankColl *));
  g_autoptr(GArray) meta = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  guint n = self->n_ranks;
  const RankColl **row;
  gint64 *off = g_new0 (gint64, n);
  gint64 job_origin = G_MAXINT64;
  guint n_matched = 0;

  for (guint k = 0; k < n; k++)
    {
      GArray *colls = self->slots[self->order[k]].colls;

      for (guint i = 0; i < colls->len; i++)
        {
          const char *g = group_of (&g_array_index (colls, RankColl, i));
          gboolean seen = FALSE;

          for (guint j = 0; j < groups->len && !seen; j++)
            seen = strcmp (g_ptr_array_index (groups, j), g) == 0;
          if (!seen)
            g_ptr_array_add (groups, (gpointer) g);
        }
    }

  /* The n-th collective of a group on each rank is one operation. */
  for (guint gi = 0; gi < groups->len; gi++)
    {
      const char *g = g_ptr_array_index (groups, gi);
      g_autofree guint *count = g_new0 (guint, n);
      g_autofree guint *pos = g_new0 (guint, n);
      guint lo = G_MAXUINT, hi = 0, k_lo = 0, k_hi = 0;

      for (guint k = 0; k < n; k++)
        {
          GArray *colls = self->slots[self->order[k]].colls;

          for (guint i = 0; i < colls->len; i++)
            count[k] += strcmp (group_of (&g_array_index (colls, RankColl, i)), g) == 0;
          if (count[k] < lo)
            lo = count[k], k_lo = k;
          if (count[k] > hi)
            hi = count[k], k_hi = k;
        }
      if (lo != hi)
        {
          self->n_mismatches++;
          note (self, _("Process group %s: rank %d has %u collectives, rank %d has %u; only the first %u are matched "
                        "(a rank that skips or adds a collective hangs a real run)"),
                g, self->slots[self->order[k_lo]].r.rank, lo, self->slots[self->order[k_hi]].r.rank, hi, lo);
        }
      for (guint c = 0; c < lo; c++)
        {
          guint m[2] = { gi, c };

          for (guint k = 0; k < n; k++)
            {
              GArray *colls = self->slots[self->order[k]].colls;
              const RankColl *rc;

              while (strcmp (group_of (&g_array_index (colls, RankColl, pos[k])), g) != 0)
                pos[k]++;
              rc = &g_array_index (colls, RankColl, pos[k]);
              g_array_append_val (table, rc);
              pos[k]++;
            }
          g_array_append_val (meta, m);
          n_matched++;
        }
    }

  /* Clocks: ranks naming the first rank's host keep its clock; every other
   * host is shifted by the median difference of its collective ends. */
  for (guint k = 1; k < n && self->align && n_matched > 0; k++)
    {
      Slot *s = &self->slots[self->order[k]];
      const char *host0 = self->slots[self->order[0]].r.host;
      g_autofree gint64 *diffs = NULL;
      guint nd = 0;
      gint64 o0 = self->slots[self->order[0]].r.origin_abs;
      gboolean shared = FALSE;

      if (s->r.host != NULL && host0 != NULL && strcmp (s->r.host, host0) == 0)
        continue;
      /* An earlier rank on the same host already has the host's offset. */
      for (guint j = 1; j < k && s->r.host != NULL && !shared; j++)
        if (self->slots[self->order[j]].r.host != NULL &&
            strcmp (self->slots[self->order[j]].r.host, s->r.host) == 0)
          {
            off[k] = off[j];
            s->r.clock_aligned = self->slots[self->order[j]].r.clock_aligned;
            shared = TRUE;
          }
      if (shared)
        continue;
      diffs = g_new (gint64, (gsize) n_matched * n);
      for (guint j = k; j < n; j++)
        {
          Slot *t = &self->slots[self->order[j]];
          gint64 oj = t->r.origin_abs;

          if (j != k && (t->r.host == NULL || s->r.host == NULL || strcmp (t->r.host, s->r.host) != 0))
            continue;
          for (guint c = 0; c < n_matched; c++)
            {
              const RankColl *ref = g_array_index (table, const RankColl *, c * n);
              const RankColl *rc = g_array_index (table, const RankColl *, c * n + j);

              diffs[nd++] = (o0 + ref->end) - (oj + rc->end);
            }
        }
      qsort (diffs, nd, sizeof (gint64), compare_gint64);
      off[k] = diffs[nd / 2];
      /* An offset within the scatter of the differences (three median
       * absolute deviations) is no evidence of another clock: keep it. */
      for (guint i = 0; i < nd; i++)
        diffs[i] = ABS (diffs[i] - off[k]);
      qsort (diffs, nd, sizeof (gint64), compare_gint64);
      if (ABS (off[k]) <= 3 * diffs[nd / 2])
        off[k] = 0;
      else
        s->r.clock_aligned = TRUE;
    }

  for (guint k = 0; k < n; k++)
    {
      Slot *s = &self->slots[self->order[k]];

      s->r.clock_offset = off[k];
      job_origin = MIN (job_origin, s->r.origin_abs + off[k]);
    }
  for (guint k = 0; k < n; k++)
    {
      Slot *s = &self->slots[self->order[k]];

      s->to_job = s->r.origin_abs + off[k] - job_origin;
    }

  self->colls = g_new0 (CpJobCollective, n_matched);
  self->n_colls = n_matched;
  for (guint c = 0; c < n_matched; c++)
    {
      CpJobCollective *jc = &self->colls[c];
      const guint *m = &g_array_index (meta, guint, 2 * c);
      const RankColl *r0;
      GString *mismatch = NULL;
      gboolean gather = FALSE;
      double factor;
      gint64 max_arrival = G_MININT64;

      row = &g_array_index (table, const RankColl *, c * n);
      r0 = row[0];
      jc->index = m[1];
      jc->group = g_strdup (g_ptr_array_index (groups, m[0]));
      jc->name = g_strdup (r0->op);
      jc->bytes = r0->bytes;
      jc->dtype = g_strdup (r0->dtype);
      jc->group_size = r0->group_size > 0 ? r0->group_size :
                       (r0->group == NULL && self->world_size > 0) ? self->world_size : -1;
      jc->arrival = g_new (gint64, n);
      jc->end = g_new (gint64, n);
      jc->exposed = g_new (gint64, n);
      jc->slices = g_new (CpSliceRef, n);
      jc->first_arrival = G_MAXINT64;
      for (guint k = 0; k < n; k++)
        {
          Slot *s = &self->slots[self->order[k]];
          const RankColl *rc = row[k];

          jc->arrival[k] = rc->start + s->to_job;
          jc->end[k] = rc->end + s->to_job;
          jc->slices[k] = rc->ref;
          jc->first_arrival = MIN (jc->first_arrival, jc->arrival[k]);
          if (jc->arrival[k] > max_arrival)
            {
              max_arrival = jc->arrival[k];
              jc->last_rank = k;
            }
          if (k > 0 && (g_strcmp0 (rc->op, r0->op) != 0 || rc->bytes != r0->bytes ||
                        g_strcmp0 (rc->dtype, r0->dtype) != 0))
            {
              g_autofree char *a = describe_coll (rc), *b = describe_coll (r0);

              if (mismatch == NULL)
                mismatch = g_string_new (NULL);
              else
                g_string_append (mismatch, "; ");
              /* Translators: "rank 3: all_gather 4.0 MiB Float, rank 0: all_reduce 4.0 MiB Float". */
              g_string_append_printf (mismatch, _("rank %d: %s, rank %d: %s"), s->r.rank, a,
                                      self->slots[self->order[0]].r.rank, b);
            }
        }
      jc->last_arrival = max_arrival;
      jc->skew = jc->last_arrival - jc->first_arrival;
      /* Exposed: the transfer (from the last arrival on) that no compute
       * of the rank overlaps; the wait before it is counted apart. */
      for (guint k = 0; k < n; k++)
        {
          Slot *s = &self->slots[self->order[k]];
          gint64 t0 = MIN (MAX (jc->arrival[k], jc->last_arrival), jc->end[k]) - s->to_job;
          gint64 t1 = jc->end[k] - s->to_job;

          jc->wait_total = cp_sat_add (jc->wait_total, jc->last_arrival - jc->arrival[k]);
          jc->exposed[k] = (t1 - t0) - cp_intervals_length_in (s->compute, t0, t1);
        }
      jc->transfer_time = jc->end[jc->last_rank] - jc->arrival[jc->last_rank];
      factor = bus_factor (jc->name, jc->group_size, &gather);
      jc->bus_bandwidth = NAN;
      if (jc->bytes > 0 && jc->transfer_time > 0 && isfinite (factor))
        jc->bus_bandwidth = (double) jc->bytes * (gather ? jc->group_size : 1) / jc->transfer_time * factor;
      if (mismatch != NULL)
        {
          jc->mismatch = g_string_free (mismatch, FALSE);
          self->n_mismatches++;
        }
    }

  /* Residuals: how far the ends still are from the first rank's. */
  for (guint k = 1; k < n; k++)
    {
      Slot *s = &self->slots[self->order[k]];

      for (guint c = 0; c < n_matched; c++)
        s->r.clock_residual = MAX (s->r.clock_residual, ABS (self->colls[c].end[k] - self->colls[c].end[0]));
    }
  g_free (off);
}

static gint
compare_job_colls (gconstpointer a,
                   gconstpointer b)
{
  const CpJobCollective *x = a, *y = b;

  return (x->first_arrival > y->first_arrival) - (x->first_arrival < y->first_arrival);
}

gint64
_cp_job_compute_per_step (Slot *s)
{
  const CpInterval *win;
  guint n_win;
  gint64 compute = 0;

  win = cp_analysis_get_windows (s->r.analysis, &n_win);
  for (guint w = 0; w < n_win; w++)
    compute += cp_intervals_length_in (s->compute, win[w].start, win[w].end);
  return n_win > 0 ? compute / n_win : 0;
}

static void
rank_figures (CpJob *self)
{
  for (guint k = 0; k < self->n_ranks; k++)
    {
      Slot *s = &self->slots[self->order[k]];
      CpIntervals *comm = cp_intervals_new ();

      for (guint i = 0; i < s->colls->len; i++)
        cp_intervals_add (comm, g_array_index (s->colls, RankColl, i).start, g_array_index (s->colls, RankColl, i).end);
      cp_intervals_normalize (comm);
      s->r.comm_time = cp_intervals_length (comm);
      /* A rank from its summary has it already. */
      if (s->r.analysis != NULL)
        s->r.compute_time = _cp_job_compute_per_step (s);
      cp_intervals_free (comm);
    }
  for (guint c = 0; c < self->n_colls; c++)
    {
      CpJobCollective *jc = &self->colls[c];

      for (guint k = 0; k < self->n_ranks; k++)
        {
          CpJobRank *r = &self->slots[self->order[k]].r;

          r->wait_time = cp_sat_add (r->wait_time, jc->last_arrival - jc->arrival[k]);
          r->exposed_comm = cp_sat_add (r->exposed_comm, jc->exposed[k]);
        }
      {
        CpJobRank *last = &self->slots[self->order[jc->last_rank]].r;

        last->caused_wait = cp_sat_add (last->caused_wait, jc->wait_total);
      }
    }
}

CpJob *
cp_job_open (GFile * const      *files,
             guint               n_files,
             const CpJobOptions *options,
             GCancellable       *cancellable,
             GError            **error)
{
  g_autoptr(CpJob) self = g_object_new (CP_TYPE_JOB, NULL);
  ReadCtx ctx;
  GThreadPool *pool;

  g_return_val_if_fail (n_files > 0, NULL);
  g_return_val_if_fail (options == NULL || options->progress == NULL ||
                        cp_job_progress_get_n_files (options->progress) == n_files, NULL);
  self->align = options != NULL ? options->align_clocks : TRUE;
  self->n_slots = n_files;
  self->slots = g_new0 (Slot, n_files);
  ctx.slots = self->slots;
  ctx.cancellable = cancellable;
  ctx.progress = options != NULL ? options->progress : NULL;
  pool = g_thread_pool_new (read_one, &ctx, (gint) MAX (1, MIN (g_get_num_processors (), n_files)), FALSE, NULL);
  for (guint i = 0; i < n_files; i++)
    {
      self->slots[i].file = g_object_ref (files[i]);
      self->slots[i].r.path = g_file_get_parse_name (files[i]);
      g_thread_pool_push (pool, &self->slots[i], NULL);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  for (guint i = 0; i < n_files; i++)
    if (self->slots[i].ok)
      _cp_job_read_distributed_info (&self->slots[i]);
  if (!_cp_job_finish (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

gboolean
_cp_job_finish (CpJob   *self,
                GError **error)
{
  for (guint i = 0; i < self->n_slots; i++)
    {
      Slot *s = &self->slots[i];

      if (!s->ok)
        note (self, _("%s could not be read and is left out: %s"), s->r.path, s->error);
    }
  assign_ranks (self);
  if (self->n_ranks == 0)
    {
      /* Translators: the second %s is the first file's reason, "x.json could not be read and is left out: …". */
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, _("None of the %u captures of the job could be used; %s"),
                   self->n_slots, self->notes->len > 0 ? (const char *) g_ptr_array_index (self->notes, 0) : "?");
      return FALSE;
    }
  for (guint k = 0; k < self->n_ranks; k++)
    {
      Slot *s = &self->slots[self->order[k]];

      /* A rank from its summary has its collectives already. */
      if (s->r.trace != NULL)
        {
          _cp_job_find_collectives (s);
          /* The collectives' sizes were read from arguments all over the file. */
          cp_trace_release_args_pages (s->r.trace);
        }
      if (s->n_params > 0)
        note (self, _("%s: %u record_param_comms events for %u collectives, so their sizes are not known"),
              s->r.path, s->n_params, s->colls->len);
    }
  match_collectives (self);
  rank_figures (self);
  /* Each rank's list of its collectives and its compute served the
   * matching and the figures; with tens of thousands of collectives a rank
   * they would be several MB each for the job's life. (A summary's
   * strings name what its rank did, for the findings.) */
  for (guint i = 0; i < self->n_slots; i++)
    {
      g_clear_pointer (&self->slots[i].colls, g_array_unref);
      if (self->slots[i].before == NULL)
        g_clear_pointer (&self->slots[i].strings, g_string_chunk_free);
      g_clear_pointer (&self->slots[i].compute, cp_intervals_free);
    }
  if (self->n_colls > 1) /* none at all: colls is NULL, which qsort must not get */
    qsort (self->colls, self->n_colls, sizeof (CpJobCollective), (int (*) (const void *, const void *)) compare_job_colls);
  cp_job_find (self);
  g_ptr_array_add (self->notes, NULL);
  return TRUE;
}

typedef struct
{
  GPtrArray    *files;
  CpJobOptions  options;
} OpenData;

static void
open_data_free (OpenData *d)
{
  g_ptr_array_unref (d->files);
  g_clear_pointer (&d->options.progress, cp_job_progress_unref);
  g_free (d);
}

static void
open_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  OpenData *d = task_data;
  GError *error = NULL;
  CpJob *job = cp_job_open ((GFile * const *) d->files->pdata, d->files->len, &d->options, cancellable, &error);

  if (job == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, job, g_object_unref);
}

void
cp_job_open_async (GFile * const      *files,
                   guint               n_files,
                   const CpJobOptions *options,
                   GCancellable       *cancellable,
                   GAsyncReadyCallback callback,
                   gpointer            user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  OpenData *d = g_new0 (OpenData, 1);

  d->files = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (d->files, g_object_ref (files[i]));
  d->options.align_clocks = options != NULL ? options->align_clocks : TRUE;
  if (options != NULL && options->progress != NULL)
    d->options.progress = cp_job_progress_ref (options->progress);
  g_task_set_source_tag (task, cp_job_open_async);
  g_task_set_task_data (task, d, (GDestroyNotify) open_data_free);
  g_task_run_in_thread (task, open_thread);
}

CpJob *
cp_job_open_finish (GAsyncResult  *result,
                    GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

guint
cp_job_get_n_ranks (CpJob *self)
{
  return self->n_ranks;
}

const CpJobRank *
cp_job_get_rank (CpJob *self,
                 guint  index)
{
  g_return_val_if_fail (index < self->n_ranks, NULL);
  return &self->slots[self->order[index]].r;
}

guint
cp_job_get_fix_order (CpJob       *self,
                      CpFramework  order[CP_N_FRAMEWORKS])
{
  gint lead;
  guint n = 0;

  g_return_val_if_fail (CP_IS_JOB (self), 0);

  lead = self->n_ranks > 0 ? self->slots[self->order[0]].r.fix_lead : -1;
  if (lead >= 0)
    order[n++] = (CpFramework) lead;
  for (guint fw = 0; fw < CP_N_FRAMEWORKS; fw++)
    if ((gint) fw != lead)
      order[n++] = fw;
  return lead >= 0 ? 1 : 0;
}

gint
cp_job_get_world_size (CpJob *self)
{
  return self->world_size;
}

gint64
cp_job_rank_to_job_offset (CpJob *self,
                           guint  index)
{
  g_return_val_if_fail (index < self->n_ranks, 0);
  return self->slots[self->order[index]].to_job;
}

guint
cp_job_get_n_collectives (CpJob *self)
{
  return self->n_colls;
}

const CpJobCollective *
cp_job_get_collective (CpJob *self,
                       guint  index)
{
  g_return_val_if_fail (index < self->n_colls, NULL);
  return &self->colls[index];
}

guint
cp_job_get_n_mismatches (CpJob *self)
{
  return self->n_mismatches;
}

guint
cp_job_get_n_findings (CpJob *self)
{
  return self->findings->len;
}

const CpJobFinding *
cp_job_get_finding (CpJob *self,
                    guint  index)
{
  g_return_val_if_fail (index < self->findings->len, NULL);
  return &g_array_index (self->findings, CpJobFinding, index);
}

const CpJobFinding *
cp_job_find_finding (CpJob      *self,
                     const char *id)
{
  for (guint i = 0; i < self->findings->len; i++)
    if (strcmp (g_array_index (self->findings, CpJobFinding, i).id, id) == 0)
      return &g_array_index (self->findings, CpJobFinding, i);
  return NULL;
}

const char * const *
cp_job_get_notes (CpJob *self)
{
  return (const char * const *) self->notes->pdata;
}
