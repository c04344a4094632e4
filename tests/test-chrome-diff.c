/* test-chrome-diff.c: the fast reader against a json-glib DOM walk
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* For every fixture under tests/data/chrome that json-glib can parse, and for
 * every scenario of the project's generator (tools/cp-gen), the slices,
 * thread instants and counter samples the reader builds must equal what an
 * independent walk of json-glib's DOM of the same file gives: same names,
 * categories, start times and durations (to the nanosecond, or within a
 * double's precision where the DOM holds doubles), and the same arguments.
 *
 * The oracle below knows only the format, not the reader: X events, B/E
 * matched per (pid, tid) with E arguments merged in, T/p with a duration,
 * thread-scope instants (i/I/R), counters (one series per numeric argument).
 * Async and object events are left out of both sides, and so are CPU profile
 * samples (P), whose flame-chart lanes chrome-count.py and test-chrome-reader
 * check. */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp-test-util.h"
#include "formats/cp-loader.h"

typedef struct
{
  char    *name;
  char    *cat;
  gint64   start;
  gint64   dur;       /* -1: not compared (unclosed) */
  gboolean instant;
  char    *args;      /* canonical JSON, or NULL */
} Rec;

static void
rec_clear (gpointer p)
{
  Rec *r = p;

  g_free (r->name);
  g_free (r->cat);
  g_free (r->args);
}

/* JSON with object members sorted, so equal values give equal text. */
static void
canon (JsonNode *node,
       GString  *out)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *o = json_node_get_object (node);
        GList *members = g_list_sort (json_object_get_members (o), (GCompareFunc) strcmp);

        g_string_append_c (out, '{');
        for (GList *l = members; l; l = l->next)
          {
            g_autofree char *key = g_strescape (l->data, NULL);

            g_string_append_printf (out, "\"%s\":", key);
            canon (json_object_get_member (o, l->data), out);
            if (l->next)
              g_string_append_c (out, ',');
          }
        g_string_append_c (out, '}');
        g_list_free (members);
        break;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (node);

        g_string_append_c (out, '[');
        for (guint i = 0; i < json_array_get_length (a); i++)
          {
            if (i)
              g_string_append_c (out, ',');
            canon (json_array_get_element (a, i), out);
          }
        g_string_append_c (out, ']');
        break;
      }
    case JSON_NODE_NULL:
      g_string_append (out, "null");
      break;
    case JSON_NODE_VALUE:
    default:
      {
        g_autofree char *s = json_to_string (node, FALSE);

        g_string_append (out, s);
        break;
      }
    }
}

static char *
canon_string (JsonNode *node)
{
  GString *out = g_string_new (NULL);

  canon (node, out);
  return g_string_free (out, FALSE);
}

/* A number or numeric string, in microseconds, to ns. */
static gboolean
dom_time (JsonObject *e,
          const char *member,
          gint64     *out)
{
  JsonNode *n = json_object_get_member (e, member);

  if (n == NULL || json_node_get_node_type (n) != JSON_NODE_VALUE)
    return FALSE;
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    {
      *out = json_node_get_int (n) * 1000;
      return TRUE;
    }
  if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    {
      *out = llround (json_node_get_double (n) * 1000.0);
      return TRUE;
    }
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (n);
      char *end = NULL;
      double v = g_ascii_strtod (s, &end);

      if (end == s || *end != '\0' || !isfinite (v))
        return FALSE;
      *out = llround (v * 1000.0);
      return TRUE;
    }
  return FALSE;
}

static char *
dom_key (JsonObject *e,
         const char *member)
{
  JsonNode *n = json_object_get_member (e, member);

  if (n == NULL || json_node_get_node_type (n) != JSON_NODE_VALUE)
    return g_strdup ("");
  if (json_node_get_value_type (n) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
  return json_to_string (n, FALSE);
}

static const char *
dom_str (JsonObject *e,
         const char *member)
{
  JsonNode *n = json_object_get_member (e, member);

  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    return json_node_get_string (n);
  return "";
}

static void
add_rec (GArray     *recs,
         const char *name,
         const char *cat,
         gint64      start,
         gint64      dur,
         gboolean    instant,
         JsonNode   *args)
{
  Rec r = { g_strdup (name), g_strdup (cat), start, dur, instant, NULL };

  if (args != NULL && JSON_NODE_HOLDS_OBJECT (args) && json_object_get_size (json_node_get_object (args)) > 0)
    r.args = canon_string (args);
  g_array_append_val (recs, r);
}

typedef struct
{
  JsonObject *event;
  gint64      ts;
} Open;

/* The oracle. Returns FALSE when json-glib cannot parse the file. */
static gboolean
oracle (const char *path,
        GArray     *recs,
        GPtrArray  *samples)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GHashTable) stacks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  JsonNode *root;
  JsonArray *events;
  gint64 base = 0;

  if (!json_parser_load_from_mapped_file (parser, path, NULL))
    return FALSE;
  root = json_parser_get_root (parser);
  if (JSON_NODE_HOLDS_OBJECT (root))
    {
      JsonObject *o = json_node_get_object (root);

      /* Only Chrome event documents (not Google Cloud Trace spans). */
      if (!json_object_has_member (o, "traceEvents") ||
          !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "traceEvents")))
        return FALSE;
      events = json_object_get_array_member (o, "traceEvents");
      /* Kineto: ts is relative to baseTimeNanoseconds. */
      base = json_object_get_int_member_with_default (o, "baseTimeNanoseconds", 0);
    }
  else
    events = json_node_get_array (root);

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonNode *en = json_array_get_element (events, i);
      JsonObject *e;
      const char *ph;
      gint64 ts, dur;

      if (!JSON_NODE_HOLDS_OBJECT (en))
        continue;
      e = json_node_get_object (en);
      ph = dom_str (e, "ph");
      if (!dom_time (e, "ts", &ts))
        continue;
      ts += base;

      if (strcmp (ph, "X") == 0 || ((strcmp (ph, "T") == 0 || strcmp (ph, "p") == 0) && dom_time (e, "dur", &dur)))
        {
          if (!dom_time (e, "dur", &dur))
            dur = 0;
          add_rec (recs, dom_str (e, "name"), dom_str (e, "cat"), ts, dur, FALSE,
                   json_object_get_member (e, "args"));
        }
      else if (strcmp (ph, "i") == 0 || strcmp (ph, "I") == 0 || strcmp (ph, "R") == 0)
        {
          const char *s = dom_str (e, "s");

          if (*s == '\0' || *s == 't')
            add_rec (recs, dom_str (e, "name"), dom_str (e, "cat"), ts, 0, TRUE,
                     json_object_get_member (e, "args"));
        }
      else if (strcmp (ph, "B") == 0 || strcmp (ph, "E") == 0)
        {
          g_autofree char *pid = dom_key (e, "pid");
          g_autofree char *tid = json_object_has_member (e, "tid") ? dom_key (e, "tid") : g_strdup (pid);
          g_autofree char *key = g_strdup_printf ("%s|%s", pid, tid);
          GArray *stack = g_hash_table_lookup (stacks, key);

          if (stack == NULL)
            {
              stack = g_array_new (FALSE, FALSE, sizeof (Open));
              g_hash_table_insert (stacks, g_strdup (key), stack);
            }
          if (*ph == 'B')
            {
              Open o = { e, ts };

              g_array_append_val (stack, o);
            }
          else if (stack->len > 0)
            {
              Open o = g_array_index (stack, Open, stack->len - 1);
              JsonNode *bargs = json_object_get_member (o.event, "args");
              JsonNode *eargs = json_object_get_member (e, "args");
              g_autoptr(JsonNode) merged = json_node_new (JSON_NODE_OBJECT);
              JsonObject *m = json_object_new ();

              g_array_set_size (stack, stack->len - 1);
              json_node_take_object (merged, m);
              for (guint k = 0; k < 2; k++)
                {
                  JsonNode *src = k == 0 ? bargs : eargs;
                  GList *members;

                  if (src == NULL || !JSON_NODE_HOLDS_OBJECT (src))
                    continue;
                  members = json_object_get_members (json_node_get_object (src));
                  for (GList *l = members; l; l = l->next)
                    json_object_set_member (m, l->data,
                                            json_node_copy (json_object_get_member (json_node_get_object (src), l->data)));
                  g_list_free (members);
                }
              add_rec (recs, dom_str (o.event, "name"), dom_str (o.event, "cat"), o.ts, ts - o.ts, FALSE, merged);
            }
        }
      else if (strcmp (ph, "C") == 0)
        {
          JsonNode *args = json_object_get_member (e, "args");
          GList *members;

          if (args == NULL || !JSON_NODE_HOLDS_OBJECT (args))
            continue;
          members = json_object_get_members (json_node_get_object (args));
          for (GList *l = members; l; l = l->next)
            {
              JsonNode *v = json_object_get_member (json_node_get_object (args), l->data);
              double d;
              const char *key = l->data;

              if (!JSON_NODE_HOLDS_VALUE (v))
                continue;
              if (json_node_get_value_type (v) == G_TYPE_STRING)
                {
                  char *end = NULL;
                  const char *s = json_node_get_string (v);

                  d = g_ascii_strtod (s, &end);
                  if (end == s || *end != '\0')
                    continue;
                }
              else if (json_node_get_value_type (v) == G_TYPE_INT64 || json_node_get_value_type (v) == G_TYPE_DOUBLE)
                d = json_node_get_double (v);
              else
                continue;
              g_ptr_array_add (samples, g_strdup_printf ("%s%s%s @%" G_GINT64_FORMAT " = %.6g",
                                                         dom_str (e, "name"), *key ? " " : "", key, ts, d));
            }
          g_list_free (members);
        }
    }

  /* Unclosed begins: their end is the reader's choice (the trace end). */
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, stacks);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      {
        GArray *stack = value;

        for (guint k = 0; k < stack->len; k++)
          {
            Open o = g_array_index (stack, Open, k);

            add_rec (recs, dom_str (o.event, "name"), dom_str (o.event, "cat"), o.ts, -1, FALSE,
                     json_object_get_member (o.event, "args"));
          }
      }
  }
  return TRUE;
}

static void
from_trace (CpTrace   *trace,
            GArray    *recs,
            GPtrArray *samples)
{
  gint64 origin = cp_trace_get_origin_abs (trace);

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);
      const gint64 *ts;
      const double *v;
      guint nc;

      if (cp_lane_get_kind (lane) == CP_LANE_ASYNC ||
          (s->n > 0 && g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_cat (s, 0)), "cpu_profile") == 0))
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { l, i };
          CpArgsFormat format;
          const guint8 *data;
          gsize len;
          g_autoptr(JsonParser) parser = json_parser_new ();
          JsonNode *args = NULL;

          if (cp_trace_get_args (trace, ref, &format, &data, &len))
            {
              g_assert_true (json_parser_load_from_data (parser, (const char *) data, len, NULL));
              args = json_parser_get_root (parser);
            }
          add_rec (recs, cp_trace_get_string (trace, cp_slices_get_name (s, i)), cp_trace_get_string (trace, cp_slices_get_cat (s, i)),
                   origin + cp_slices_get_start (s, i), (s->flags[i] & CP_SLICE_UNCLOSED) ? -1 : cp_slices_get_dur (s, i),
                   (s->flags[i] & CP_SLICE_INSTANT) != 0, args);
        }
      nc = cp_lane_get_counter (lane, &ts, &v);
      for (guint i = 0; i < nc; i++)
        g_ptr_array_add (samples, g_strdup_printf ("%s @%" G_GINT64_FORMAT " = %.6g",
                                                   cp_lane_get_name (lane), origin + ts[i], v[i]));
    }
}

static gint
cmp_rec (gconstpointer a,
         gconstpointer b)
{
  const Rec *x = a, *y = b;
  int c;

  if ((c = strcmp (x->name, y->name)) != 0)
    return c;
  if ((c = g_strcmp0 (x->args, y->args)) != 0)
    return c;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur < y->dur ? -1 : 1;
  return x->instant - y->instant;
}

static gint
cmp_str (gconstpointer a,
         gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Times from a double may be off by its precision. */
static gboolean
close_enough (gint64 a,
              gint64 b)
{
  gint64 tol = MAX ((gint64) 1, (gint64) (fabs ((double) b) * 4.5e-16 * 2));

  return llabs (a - b) <= tol;
}

static void
compare (const char *path)
{
  g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (Rec));
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (Rec));
  g_autoptr(GPtrArray) want_samples = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) got_samples = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = NULL;

  g_array_set_clear_func (want, rec_clear);
  g_array_set_clear_func (got, rec_clear);
  if (!oracle (path, want, want_samples))
    {
      g_test_message ("%s: json-glib cannot parse it, or it holds no traceEvents: skipped", path);
      return;
    }
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  from_trace (trace, got, got_samples);

  g_test_message ("%s: %u slices and instants, %u counter samples", path, want->len, want_samples->len);
  g_array_sort (want, cmp_rec);
  g_array_sort (got, cmp_rec);
  g_assert_cmpuint (got->len, ==, want->len);
  for (guint i = 0; i < want->len; i++)
    {
      const Rec *w = &g_array_index (want, Rec, i), *g = &g_array_index (got, Rec, i);

      g_assert_cmpstr (g->name, ==, w->name);
      g_assert_cmpstr (g->cat, ==, w->cat);
      g_assert_cmpstr (g->args, ==, w->args);
      g_assert_cmpint (g->instant, ==, w->instant);
      if (!close_enough (g->start, w->start))
        g_assert_cmpint (g->start, ==, w->start);
      if (w->dur >= 0 && !close_enough (g->dur, w->dur) && llabs (g->dur - w->dur) > 1)
        g_assert_cmpint (g->dur, ==, w->dur);
      g_assert_cmpint (g->dur < 0, ==, w->dur < 0);
    }
  g_ptr_array_sort (want_samples, cmp_str);
  g_ptr_array_sort (got_samples, cmp_str);
  g_assert_cmpuint (got_samples->len, ==, want_samples->len);
  for (guint i = 0; i < want_samples->len; i++)
    g_assert_cmpstr (g_ptr_array_index (got_samples, i), ==, g_ptr_array_index (want_samples, i));
}

static void
test_fixtures (void)
{
  g_autofree char *dir = cp_test_data_path ("chrome");
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, NULL);

      /* Only what loads: the refused fixtures have their own tests. */
      if (trace == NULL || !g_str_has_suffix (name, ".json"))
        continue;
      compare (path);
      n++;
    }
  g_assert_cmpuint (n, >=, 4);
}

static void
test_scenarios (void)
{
  static const char *scenarios[] = {
    "healthy", "input-bound", "launch-bound", "pageable-transfers", "sync-stalls",
    "fp32-no-tensor-cores", "comm-bound",
  };
  const char *gen = g_getenv ("CP_GEN");
  g_autofree char *dir = NULL;

  if (gen == NULL || !g_file_test (gen, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("the scenario generator (CP_GEN) is not built");
      return;
    }
  dir = cp_test_make_tmpdir ();
  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autofree char *out = g_strdup_printf ("%s/%s.json", dir, scenarios[i]);
      const char *argv[] = { gen, "--scenario", scenarios[i], "--steps", "2", "--seed", "3",
                             "--out", out, NULL };
      g_autoptr(GError) error = NULL;
      int status;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                   NULL, NULL, &status, &error));
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, &error));
      g_assert_no_error (error);
      compare (out);
    }
  cp_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/chrome-diff/fixtures", test_fixtures);
  g_test_add_func ("/chrome-diff/scenarios", test_scenarios);
  return g_test_run ();
}
