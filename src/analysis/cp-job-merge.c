/* cp-job-merge.c: one rank's summary, and a job merged from the summaries
 * of its ranks
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job of a thousand ranks does not fit one machine, but each rank can be
 * read where it was recorded: its summary ("chokepoint-rank/1", see
 * docs/diagnose-json.md) holds what the job needs of it and nothing that
 * depends on the other ranks: its own figures, and per collective its
 * times in its own clock, what it is (operation, size, type, group), the
 * compute that overlaps it and what the rank did before it. Merging the
 * summaries matches, aligns and finds as opening the captures together
 * does, with the same figures; only what the straggler did while the
 * others waited is then what it did between its previous collective and
 * its late arrivals.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "analysis/cp-analysis-private.h"
#include "analysis/cp-job-private.h"
#include "analysis/cp-json-util.h"

#define SCHEMA "chokepoint-rank/1"

/* An int member, or null when v < 0. */
static void
member_known (JsonBuilder *b,
              const char  *key,
              gint64       v)
{
  json_builder_set_member_name (b, key);
  if (v >= 0)
    json_builder_add_int_value (b, v);
  else
    json_builder_add_null_value (b);
}

static gint
compare_activity (gconstpointer a,
                  gconstpointer b)
{
  const CpJobActivity *x = a, *y = b;

  return (x->ns < y->ns) - (x->ns > y->ns);
}

/* The compute of s inside [t0, t1), as pairs. */
static void
add_compute (JsonBuilder *b,
             Slot        *s,
             gint64       t0,
             gint64       t1)
{
  const CpIntervals *set = s->compute;
  gsize lo = 0, hi = set->n;

  /* The first interval ending after t0. */
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (set->v[mid].end <= t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  json_builder_set_member_name (b, "compute");
  json_builder_begin_array (b);
  for (gsize i = lo; i < set->n && set->v[i].start < t1; i++)
    {
      json_builder_begin_array (b);
      json_builder_add_int_value (b, MAX (set->v[i].start, t0));
      json_builder_add_int_value (b, MIN (set->v[i].end, t1));
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
}

static JsonNode *
summary_of (Slot *s)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  gint64 prev_end = 0;

  json_builder_begin_object (b);
  _cp_json_add_string (b, "schema", SCHEMA);
  _cp_json_add_string (b, "file", s->r.path);
  member_known (b, "rank", s->have_rank ? s->r.rank : -1);
  member_known (b, "world_size", s->r.world_size);
  _cp_json_add_string (b, "backend", s->r.backend);
  _cp_json_add_string (b, "host", s->r.host);
  _cp_json_add_int (b, "origin_abs_ns", s->r.origin_abs);
  _cp_json_add_int (b, "n_steps", s->r.n_steps);
  _cp_json_add_int (b, "window_ns", s->r.window_time);
  json_builder_set_member_name (b, "step_ns");
  json_builder_begin_object (b);
  _cp_json_add_int (b, "total", s->r.step.total);
  _cp_json_add_int (b, "mean", s->r.step.mean);
  _cp_json_add_int (b, "min", s->r.step.min);
  _cp_json_add_int (b, "max", s->r.step.max);
  json_builder_end_object (b);
  _cp_job_add_breakdown (b, &s->r);
  _cp_json_add_string (b, "fixes_framework", s->r.fix_lead >= 0 ? cp_framework_to_string (s->r.fix_lead) : NULL);
  json_builder_set_member_name (b, "device_collectives");
  json_builder_add_boolean_value (b, s->r.device_collectives);
  _cp_json_add_int (b, "compute_per_step_ns", _cp_job_compute_per_step (s));
  _cp_json_add_int (b, "unmatched_record_param_comms", s->n_params);
  _cp_json_add_confidence (b, "confidence", s->r.confidence,
                           s->r.confidence_reasons ? (const CpConfidenceReason *) s->r.confidence_reasons->data : NULL,
                           s->r.confidence_reasons ? s->r.confidence_reasons->len : 0);
  json_builder_set_member_name (b, "collectives");
  json_builder_begin_array (b);
  for (guint i = 0; i < s->colls->len; i++)
    {
      const RankColl *c = &g_array_index (s->colls, RankColl, i);
      gint64 window[2] = { MIN (prev_end, c->start), c->start };
      g_autoptr(GArray) acts = _cp_job_activity (s, window, 1);

      json_builder_begin_object (b);
      _cp_json_add_string (b, "name", c->name);
      _cp_json_add_string (b, "op", c->op);
      member_known (b, "bytes", c->bytes);
      _cp_json_add_string (b, "dtype", c->dtype);
      member_known (b, "group_size", c->group_size);
      _cp_json_add_string (b, "group", c->group);
      _cp_json_add_int (b, "start_ns", c->start);
      _cp_json_add_int (b, "end_ns", c->end);
      add_compute (b, s, c->start, c->end);
      /* What the rank did since its previous collective, longest first. */
      g_array_sort (acts, compare_activity);
      json_builder_set_member_name (b, "before");
      json_builder_begin_array (b);
      for (guint j = 0; j < MIN (acts->len, (guint) CP_JOB_BEFORE); j++)
        {
          const CpJobActivity *a = &g_array_index (acts, CpJobActivity, j);

          json_builder_begin_object (b);
          _cp_json_add_string (b, "name", a->name);
          _cp_json_add_int (b, "ns", a->ns);
          _cp_json_add_int (b, "depth", a->depth);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      prev_end = MAX (prev_end, c->end);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

char *
cp_job_rank_summary (GFile         *file,
                     GCancellable  *cancellable,
                     GError       **error)
{
  Slot s = { 0 };
  g_autoptr(JsonNode) root = NULL;
  char *text;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  s.file = g_object_ref (file);
  s.r.path = g_file_get_parse_name (file);
  _cp_job_read_slot (&s, cancellable, NULL, 0);
  if (!s.ok)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE, "%s", s.error);
      _cp_job_slot_clear (&s);
      return NULL;
    }
  _cp_job_read_distributed_info (&s);
  _cp_job_find_collectives (&s);
  root = summary_of (&s);
  text = json_to_string (root, TRUE);
  _cp_job_slot_clear (&s);
  return text;
}

/* ---- Merging ----------------------------------------------------------- */

typedef struct
{
  JsonObject *o;
  const char *missing;   /* the first member that is not there */
} Reader;

static gint64
get_int (Reader     *r,
         JsonObject *o,
         const char *key,
         gint64      none)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n != NULL && JSON_NODE_HOLDS_NULL (n))
    return none;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    {
      if (r->missing == NULL)
        r->missing = key;
      return none;
    }
  return json_node_get_int (n);
}

/* A string member (NULL for null), kept in the slot's strings. */
static const char *
get_string (Reader     *r,
            Slot       *s,
            JsonObject *o,
            const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n != NULL && JSON_NODE_HOLDS_NULL (n))
    return NULL;
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    {
      if (r->missing == NULL)
        r->missing = key;
      return NULL;
    }
  return g_string_chunk_insert_const (s->strings, json_node_get_string (n));
}

static JsonArray *
get_array (Reader     *r,
           JsonObject *o,
           const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      if (r->missing == NULL)
        r->missing = key;
      return NULL;
    }
  return json_node_get_array (n);
}

static JsonObject *
get_object (Reader     *r,
            JsonObject *o,
            const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      if (r->missing == NULL)
        r->missing = key;
      return NULL;
    }
  return json_node_get_object (n);
}

static JsonObject *
element_object (Reader     *r,
                JsonArray  *a,
                guint       i,
                const char *what)
{
  JsonNode *n = json_array_get_element (a, i);

  if (!JSON_NODE_HOLDS_OBJECT (n))
    {
      if (r->missing == NULL)
        r->missing = what;
      return NULL;
    }
  return json_node_get_object (n);
}

static gboolean
read_collectives (Reader     *r,
                  Slot       *s,
                  JsonObject *o)
{
  JsonArray *colls = get_array (r, o, "collectives");
  guint n;

  if (colls == NULL)
    return FALSE;
  n = json_array_get_length (colls);
  s->colls = g_array_sized_new (FALSE, TRUE, sizeof (RankColl), n);
  s->compute = cp_intervals_new ();
  s->before = g_new0 (CpJobActivity, (gsize) MAX (n, 1u) * CP_JOB_BEFORE);
  for (guint i = 0; i < n && r->missing == NULL; i++)
    {
      JsonObject *c = element_object (r, colls, i, "collectives");
      RankColl rc = { 0 };
      JsonArray *compute, *before;

      if (c == NULL)
        break;
      rc.name = get_string (r, s, c, "name");
      rc.op = get_string (r, s, c, "op");
      rc.bytes = get_int (r, c, "bytes", -1);
      rc.dtype = get_string (r, s, c, "dtype");
      rc.group_size = (gint) CLAMP (get_int (r, c, "group_size", -1), -1, G_MAXINT);
      rc.group = get_string (r, s, c, "group");
      rc.start = get_int (r, c, "start_ns", 0);
      rc.end = get_int (r, c, "end_ns", 0);
      rc.ref.lane = G_MAXUINT32;     /* no trace: the collective's position */
      rc.ref.index = i;
      if (rc.op == NULL || rc.name == NULL || rc.end < rc.start)
        {
          if (r->missing == NULL)
            r->missing = "collectives";
          break;
        }
      g_array_append_val (s->colls, rc);
      compute = get_array (r, c, "compute");
      for (guint j = 0; compute != NULL && j < json_array_get_length (compute); j++)
        {
          JsonNode *pair = json_array_get_element (compute, j);
          JsonArray *p = JSON_NODE_HOLDS_ARRAY (pair) ? json_node_get_array (pair) : NULL;

          if (p == NULL || json_array_get_length (p) != 2)
            {
              if (r->missing == NULL)
                r->missing = "compute";
              break;
            }
          cp_intervals_add (s->compute, json_array_get_int_element (p, 0), json_array_get_int_element (p, 1));
        }
      before = get_array (r, c, "before");
      for (guint j = 0; before != NULL && j < MIN (json_array_get_length (before), (guint) CP_JOB_BEFORE); j++)
        {
          JsonObject *a = element_object (r, before, j, "before");
          CpJobActivity *act = &s->before[(gsize) i * CP_JOB_BEFORE + j];

          if (a == NULL)
            break;
          act->name = get_string (r, s, a, "name");
          act->ns = get_int (r, a, "ns", 0);
          act->depth = (guint) CLAMP (get_int (r, a, "depth", 0), 0, G_MAXUINT);
        }
    }
  cp_intervals_normalize (s->compute);
  s->r.n_collectives = s->colls->len;
  return r->missing == NULL;
}

/* Fills a slot from a rank's summary; FALSE with s->error set when it is
 * not one. */
/* "high", "medium", "low"; anything else (or nothing) is high. */
static CpConfidenceLevel
level_of (JsonNode *n)
{
  const char *text;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return CP_CONFIDENCE_HIGH;
  text = json_node_get_string (n);
  if (g_strcmp0 (text, "low") == 0)
    return CP_CONFIDENCE_LOW;
  if (g_strcmp0 (text, "medium") == 0)
    return CP_CONFIDENCE_MEDIUM;
  return CP_CONFIDENCE_HIGH;
}

/* A summary's confidence; summaries written before it had none (high). */
static void
read_confidence (Slot       *s,
                 JsonObject *o)
{
  JsonNode *n = json_object_get_member (o, "confidence");
  JsonObject *c;
  JsonArray *reasons;

  s->r.confidence = CP_CONFIDENCE_HIGH;
  s->r.confidence_reasons = _cp_job_new_reasons ();
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return;
  c = json_node_get_object (n);
  s->r.confidence = level_of (json_object_get_member (c, "level"));
  n = json_object_get_member (c, "reasons");
  reasons = n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
  for (guint i = 0; reasons != NULL && i < MIN (json_array_get_length (reasons), 64u); i++)
    {
      JsonNode *e = json_array_get_element (reasons, i);
      JsonObject *r;
      JsonNode *id, *text;

      if (!JSON_NODE_HOLDS_OBJECT (e))
        continue;
      r = json_node_get_object (e);
      id = json_object_get_member (r, "id");
      text = json_object_get_member (r, "text");
      if (id == NULL || text == NULL || json_node_get_value_type (id) != G_TYPE_STRING ||
          json_node_get_value_type (text) != G_TYPE_STRING)
        continue;
      _cp_job_add_reason (s->r.confidence_reasons, json_node_get_string (id),
                          level_of (json_object_get_member (r, "level")), json_node_get_string (text));
    }
}

static gboolean
read_summary (Slot *s)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *shown = g_file_get_parse_name (s->file);
  g_autofree char *contents = NULL;
  gsize len = 0;
  Reader r = { NULL, NULL };
  JsonObject *o, *step, *breakdown;
  JsonArray *util;
  const char *schema, *capture, *framework;
  gint64 rank;
  CpFramework fw;

  if (!g_file_load_contents (s->file, NULL, &contents, &len, NULL, &error) ||
      !json_parser_load_from_data (parser, contents, (gssize) len, &error))
    {
      s->error = g_strdup (error->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      s->error = g_strdup (_("not a rank’s summary (chokepoint diagnose --rank-summary)"));
      return FALSE;
    }
  o = json_node_get_object (json_parser_get_root (parser));
  s->strings = g_string_chunk_new (4096);
  schema = get_string (&r, s, o, "schema");
  if (g_strcmp0 (schema, SCHEMA) != 0)
    {
      /* Translators: %s is the schema the file says, e.g. "chokepoint-job/1". */
      s->error = schema != NULL ? g_strdup_printf (_("not a rank’s summary (its schema is “%s”, not “%s”)"), schema,
                                                   SCHEMA)
                                : g_strdup (_("not a rank’s summary (chokepoint diagnose --rank-summary)"));
      return FALSE;
    }
  /* The capture it summarises names the rank in notes and the JSON, and
   * its name may give the rank. */
  capture = get_string (&r, s, o, "file");
  if (capture != NULL)
    {
      g_free (s->r.path);
      s->r.path = g_strdup (capture);
      g_clear_object (&s->file);
      s->file = g_file_parse_name (capture);
    }
  rank = get_int (&r, o, "rank", -1);
  if (rank >= 0 && rank < G_MAXINT)
    {
      s->r.rank = (gint) rank;
      s->r.rank_source = CP_RANK_FROM_DISTRIBUTED_INFO;
      s->have_rank = TRUE;
    }
  s->r.world_size = (gint) CLAMP (get_int (&r, o, "world_size", -1), -1, G_MAXINT);
  s->r.backend = g_strdup (get_string (&r, s, o, "backend"));
  s->r.host = g_strdup (get_string (&r, s, o, "host"));
  s->r.origin_abs = get_int (&r, o, "origin_abs_ns", 0);
  s->r.n_steps = (guint) CLAMP (get_int (&r, o, "n_steps", 0), 0, G_MAXUINT);
  s->r.window_time = get_int (&r, o, "window_ns", 0);
  step = get_object (&r, o, "step_ns");
  if (step != NULL)
    {
      s->r.step.total = get_int (&r, step, "total", 0);
      s->r.step.mean = get_int (&r, step, "mean", 0);
      s->r.step.min = get_int (&r, step, "min", 0);
      s->r.step.max = get_int (&r, step, "max", 0);
    }
  breakdown = get_object (&r, o, "breakdown_ns");
  for (guint c = 0; breakdown != NULL && c < CP_TIME_N_CATEGORIES; c++)
    s->r.breakdown[c] = get_int (&r, breakdown, cp_time_category_to_string (c), 0);
  util = get_array (&r, o, "utilization");
  s->r.n_devices = util != NULL ? json_array_get_length (util) : 0;
  s->r.utilization = g_new0 (double, MAX (s->r.n_devices, 1u));
  for (guint d = 0; d < s->r.n_devices; d++)
    s->r.utilization[d] = json_array_get_double_element (util, d);
  framework = get_string (&r, s, o, "fixes_framework");
  s->r.fix_lead = framework != NULL && cp_framework_from_string (framework, &fw) ? (gint) fw : -1;
  {
    JsonNode *n = json_object_get_member (o, "device_collectives");

    if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
      r.missing = r.missing != NULL ? r.missing : "device_collectives";
    else
      s->r.device_collectives = json_node_get_boolean (n);
  }
  s->r.compute_time = get_int (&r, o, "compute_per_step_ns", 0);
  read_confidence (s, o);
  s->n_params = (guint) CLAMP (get_int (&r, o, "unmatched_record_param_comms", 0), 0, G_MAXUINT);
  if (r.missing == NULL)
    read_collectives (&r, s, o);
  if (r.missing != NULL)
    {
      /* Translators: %s is a JSON member, e.g. "origin_abs_ns". */
      s->error = g_strdup_printf (_("a damaged rank’s summary: “%s” is missing or wrong"), r.missing);
      return FALSE;
    }
  return TRUE;
}

CpJob *
cp_job_merge (GFile * const      *summaries,
              guint               n,
              const CpJobOptions *options,
              GError            **error)
{
  g_autoptr(CpJob) self = g_object_new (CP_TYPE_JOB, NULL);

  g_return_val_if_fail (n > 0, NULL);

  self->align = options != NULL ? options->align_clocks : TRUE;
  self->n_slots = n;
  self->slots = g_new0 (Slot, n);
  for (guint i = 0; i < n; i++)
    {
      Slot *s = &self->slots[i];

      s->file = g_object_ref (summaries[i]);
      s->r.path = g_file_get_parse_name (summaries[i]);
      s->ok = read_summary (s);
      if (!s->ok)
        {
          /* Named by the summary itself, which is what could not be used. */
          g_free (s->r.path);
          s->r.path = g_file_get_parse_name (summaries[i]);
          g_clear_pointer (&s->colls, g_array_unref);
          g_clear_pointer (&s->compute, cp_intervals_free);
          g_clear_pointer (&s->before, g_free);
        }
    }
  if (!_cp_job_finish (self, error))
    return NULL;
  return g_steal_pointer (&self);
}
