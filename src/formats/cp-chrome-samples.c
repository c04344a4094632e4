/* cp-chrome-samples.c: CPU profile samples into flame charts
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"
#include "cp-chrome-private.h"

/* CPU profile samples (P events)
 *
 * Three forms: a legacy sample ({"ph": "P", "sf": 8}) whose stack is the
 * chain of parents of frame 8 in the top-level "stackFrames"; a sample with
 * no "sf", a frame of its own named by the event; and the DevTools CPU
 * profile, a "Profile" event (args.data.startTime, µs) followed by
 * "ProfileChunk" events with the same id, each adding call-tree nodes
 * (args.data.cpuProfile.nodes: id, callFrame.functionName, parent) and
 * samples (args.data.cpuProfile.samples, node ids) with the µs between them
 * (args.data.timeDeltas). The samples become one flame-chart lane per
 * thread at the end (cp_chrome_add_samples()). */

static guint64
frame_key (guint64 a,
           guint64 b)
{
  guint64 k = mix64 (a ^ mix64 (b + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)));

  return k != 0 ? k : 1;
}

static void
add_frame (CpChromeReader *self,
           guint64         key,
           CpStr           name,
           guint64         parent)
{
  gint64 *k = g_new (gint64, 1);
  Frame *f = g_new (Frame, 1);

  *k = (gint64) key;
  f->name = name;
  f->parent = parent;
  g_hash_table_replace (self->frames, k, f);
}

static void
add_sample (CpChromeReader *self,
            const Event    *e,
            gint64          ts,
            guint64         frame)
{
  Sample smp;

  smp.process = cp_chrome_process_for (self, &e->pid);
  smp.tid = e->tid;
  smp.ts = ts;
  smp.frame = frame;
  smp.name = e->name;
  smp.seq = self->samples->len;
  g_array_append_val (self->samples, smp);
  note_end (self, ts, 0);
}

static JsonObject *
sample_data (CpChromeReader *self,
             const Event    *e,
             JsonParser     *parser)
{
  gsize len;
  const char *text = cp_chrome_args_text (self, e, &len);
  JsonNode *root;
  JsonObject *args;

  if (text == NULL || !json_parser_load_from_data (parser, text, len, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  args = json_node_get_object (root);
  if (!json_object_has_member (args, "data") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (args, "data")))
    return NULL;
  return json_object_get_object_member (args, "data");
}

static gint64
json_int_or (JsonNode *node,
             gint64    fallback)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return json_node_get_int (node);
    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        return isfinite (d) && fabs (d) < 9e18 ? (gint64) d : fallback;
      }
    default:
      return fallback;
    }
}

static void
on_profile_chunk (CpChromeReader *self,
                  const Event    *e,
                  JsonObject     *data,
                  guint64         profile)
{
  JsonObject *cpu = NULL;
  JsonArray *nodes = NULL, *samples = NULL, *deltas = NULL;
  gint64 key = (gint64) profile;
  gint64 *t = g_hash_table_lookup (self->profiles, &key);

  if (json_object_has_member (data, "cpuProfile") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (data, "cpuProfile")))
    cpu = json_object_get_object_member (data, "cpuProfile");
  if (cpu != NULL && json_object_has_member (cpu, "nodes") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (cpu, "nodes")))
    nodes = json_object_get_array_member (cpu, "nodes");
  if (cpu != NULL && json_object_has_member (cpu, "samples") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (cpu, "samples")))
    samples = json_object_get_array_member (cpu, "samples");
  if (json_object_has_member (data, "timeDeltas") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (data, "timeDeltas")))
    deltas = json_object_get_array_member (data, "timeDeltas");

  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *n = json_array_get_element (nodes, i);
      JsonObject *o, *call;
      const char *fn = NULL;
      gint64 id, parent;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      id = json_int_or (json_object_get_member (o, "id"), -1);
      if (id < 0)
        continue;
      if (json_object_has_member (o, "callFrame") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "callFrame")))
        {
          call = json_object_get_object_member (o, "callFrame");
          fn = json_object_get_string_member_with_default (call, "functionName", NULL);
        }
      parent = json_int_or (json_object_get_member (o, "parent"), -1);
      add_frame (self, frame_key (profile, (guint64) id),
                 cp_trace_builder_intern (self->b, fn != NULL && *fn ? fn : "(anonymous)", -1),
                 parent >= 0 ? frame_key (profile, (guint64) parent) : 0);
      /* Older profiles list children instead of parents. */
      if (json_object_has_member (o, "children") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "children")))
        {
          JsonArray *ch = json_object_get_array_member (o, "children");

          for (guint c = 0; c < json_array_get_length (ch); c++)
            {
              gint64 cid = json_int_or (json_array_get_element (ch, c), -1);
              gint64 ck = (gint64) frame_key (profile, (guint64) cid);
              Frame *f;

              if (cid < 0)
                continue;
              f = g_hash_table_lookup (self->frames, &ck);
              if (f != NULL)
                f->parent = frame_key (profile, (guint64) id);
              else
                add_frame (self, (guint64) ck, cp_trace_builder_intern (self->b, "(anonymous)", -1),
                           frame_key (profile, (guint64) id));
            }
        }
    }

  if (samples == NULL)
    return;
  if (t == NULL)
    {
      gint64 *k = g_new (gint64, 1);

      *k = key;
      t = g_new (gint64, 1);
      *t = e->ts;
      g_hash_table_insert (self->profiles, k, t);
    }
  for (guint i = 0; i < json_array_get_length (samples); i++)
    {
      gint64 node = json_int_or (json_array_get_element (samples, i), -1);
      gint64 delta = deltas != NULL && i < json_array_get_length (deltas) ?
                     json_int_or (json_array_get_element (deltas, i), 0) : 0;

      /* Deltas are µs; a negative one (out-of-order samples) is kept as 0. */
      if (delta > 0 && delta < G_MAXINT64 / 2000)
        *t += delta * 1000;
      if (node >= 0)
        add_sample (self, e, *t, frame_key (profile, (guint64) node));
    }
}

void
cp_chrome_on_sample (CpChromeReader *self,
                     Event          *e)
{
  const char *name = cp_trace_builder_get_string (self->b, e->name);
  gboolean profile = strcmp (name, "Profile") == 0;
  gboolean chunk = strcmp (name, "ProfileChunk") == 0;

  if (profile || chunk)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *data = sample_data (self, e, parser);
      guint64 id = frame_key (e->have & HAVE_ID ? e->id_hash : 0, pack_id (&e->pid));

      if (data == NULL)
        {
          self->report->skipped++;
          return;
        }
      if (profile)
        {
          gint64 start = json_int_or (json_object_get_member (data, "startTime"), G_MININT64);
          gint64 key = (gint64) id;
          gint64 *k, *t;

          if (start == G_MININT64 || start > G_MAXINT64 / 2000 || start < G_MININT64 / 2000)
            return;
          k = g_new (gint64, 1);
          t = g_new (gint64, 1);
          *k = key;
          *t = start * 1000;
          g_hash_table_replace (self->profiles, k, t);
        }
      else
        on_profile_chunk (self, e, data, id);
      return;
    }
  add_sample (self, e, e->ts, e->have & HAVE_SF ? frame_key (e->sf_hash, 0x5f) : 0);
}

static void
read_stack_frames (CpChromeReader *self)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonObject *o;
  g_autoptr(GList) members = NULL;

  if (self->stack_frames == NULL ||
      !json_parser_load_from_data (parser, self->stack_frames, self->stack_frames_len, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  o = json_node_get_object (root);
  members = json_object_get_members (o);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *id = l->data;
      JsonNode *n = json_object_get_member (o, id);
      JsonObject *f;
      JsonNode *parent;
      guint64 parent_key = 0;
      const char *fname;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      f = json_node_get_object (n);
      fname = json_object_get_string_member_with_default (f, "name", "(unknown)");
      parent = json_object_get_member (f, "parent");
      if (parent != NULL && JSON_NODE_HOLDS_VALUE (parent))
        {
          g_autofree char *text = NULL;

          if (json_node_get_value_type (parent) == G_TYPE_STRING)
            text = g_strdup (json_node_get_string (parent));
          else if (json_node_get_value_type (parent) == G_TYPE_INT64)
            text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (parent));
          if (text != NULL)
            parent_key = frame_key (cp_chrome_hash_text (text, strlen (text)), 0x5f);
        }
      add_frame (self, frame_key (cp_chrome_hash_text (id, strlen (id)), 0x5f),
                 cp_trace_builder_intern (self->b, fname, -1), parent_key);
    }
}

static gint
cmp_samples (gconstpointer a,
             gconstpointer b)
{
  const Sample *x = a, *y = b;

  if (x->process != y->process)
    return x->process < y->process ? -1 : 1;
  if (x->tid.is_str != y->tid.is_str)
    return x->tid.is_str ? 1 : -1;
  if (x->tid.is_str ? x->tid.str != y->tid.str : x->tid.num != y->tid.num)
    return (x->tid.is_str ? x->tid.str < y->tid.str : x->tid.num < y->tid.num) ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

#define CP_SAMPLE_MAX_DEPTH 256

typedef struct
{
  gint64  start;
  gint64  dur;
  guint   depth;
  CpStr   name;
} SampleSlice;

static gint
cmp_sample_slices (gconstpointer a,
                   gconstpointer b)
{
  const SampleSlice *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur > y->dur ? -1 : 1;
  return (int) x->depth - (int) y->depth;
}

/* The stack of a sample, outermost frame first; returns its depth. The
 * root node of a DevTools profile is left out. */
static guint
sample_stack (CpChromeReader *self,
              const Sample   *smp,
              guint64        *keys,
              CpStr          *names)
{
  guint64 chain[CP_SAMPLE_MAX_DEPTH];
  CpStr chain_names[CP_SAMPLE_MAX_DEPTH];
  guint n = 0, out = 0;
  guint64 k = smp->frame;
  CpStr root = cp_trace_builder_intern (self->b, "(root)", -1);

  /* Innermost first; at most CP_SAMPLE_MAX_DEPTH frames (a cycle stops there too). */
  while (k != 0 && n < CP_SAMPLE_MAX_DEPTH)
    {
      gint64 key = (gint64) k;
      Frame *f = g_hash_table_lookup (self->frames, &key);

      if (f == NULL)
        break;
      chain[n] = k;
      chain_names[n] = f->name;
      n++;
      k = f->parent;
    }
  if (n == 0)
    {
      keys[0] = frame_key (smp->name, 0x53);
      names[0] = smp->name;
      return 1;
    }
  for (guint i = n; i > 0; i--)
    {
      if (i == n && chain_names[i - 1] == root)
        continue;
      keys[out] = chain[i - 1];
      names[out] = chain_names[i - 1];
      out++;
    }
  return out;
}

void
cp_chrome_add_samples (CpChromeReader *self)
{
  Sample *smp;
  guint n = self->samples->len;
  CpStr cat, idle;
  guint threads = 0;

  if (n == 0)
    return;
  read_stack_frames (self);
  g_array_sort (self->samples, cmp_samples);
  smp = (Sample *) self->samples->data;
  cat = cp_trace_builder_intern (self->b, "cpu_profile", -1);
  idle = cp_trace_builder_intern (self->b, "(idle)", -1);

  for (guint a = 0; a < n;)
    {
      guint b = a;
      g_autofree char *tid = NULL;
      g_autofree char *lane_key = NULL;
      g_autofree char *lane_name = NULL;
      g_autoptr(GArray) slices = g_array_new (FALSE, FALSE, sizeof (SampleSlice));
      guint64 open_keys[CP_SAMPLE_MAX_DEPTH];
      CpStr open_names[CP_SAMPLE_MAX_DEPTH];
      gint64 open_start[CP_SAMPLE_MAX_DEPTH];
      guint n_open = 0;
      gint64 last_end = 0;
      CpLaneKey key;
      gboolean created;
      guint lane;

      while (b < n && smp[b].process == smp[a].process && smp[b].tid.is_str == smp[a].tid.is_str &&
             (smp[a].tid.is_str ? smp[b].tid.str == smp[a].tid.str : smp[b].tid.num == smp[a].tid.num))
        b++;

      tid = smp[a].tid.is_str ? g_strdup (cp_trace_builder_get_string (self->b, smp[a].tid.str))
                              : g_strdup_printf ("%" G_GINT64_FORMAT, smp[a].tid.num);
      lane_key = g_strdup_printf ("%s cpu samples", tid);
      key.num = smp[a].tid.is_str ? 0 : smp[a].tid.num;
      key.str = cp_trace_builder_intern (self->b, lane_key, -1);
      lane = cp_chrome_lane_for (self, smp[a].process, CP_LANE_HOST_THREAD, key, &created);
      lane_name = g_strdup_printf (_("CPU samples, thread %s"), tid);
      cp_trace_builder_set_lane_name (self->b, lane, lane_name);
      threads++;

      for (guint i = a; i < b; i++)
        {
          guint64 keys[CP_SAMPLE_MAX_DEPTH];
          CpStr names[CP_SAMPLE_MAX_DEPTH];
          guint depth = sample_stack (self, &smp[i], keys, names);
          gint64 t = smp[i].ts;
          gint64 end;
          guint p = 0;

          if (i + 1 < b)
            end = smp[i + 1].ts;
          else
            end = t + (i > a ? t - smp[i - 1].ts : 0);
          last_end = end;

          /* An idle sample (or an empty stack) closes every open frame. */
          if (depth == 0 || names[depth - 1] == idle)
            depth = 0;
          while (p < n_open && p < depth && open_keys[p] == keys[p])
            p++;
          while (n_open > p)
            {
              SampleSlice sl = { open_start[n_open - 1], t - open_start[n_open - 1], n_open - 1, open_names[n_open - 1] };

              g_array_append_val (slices, sl);
              n_open--;
            }
          for (guint d = p; d < depth; d++)
            {
              open_keys[d] = keys[d];
              open_names[d] = names[d];
              open_start[d] = t;
            }
          n_open = depth;
          if (depth > 0)
            {
              self->report->cpu_samples++;
              self->report->cpu_sample_time += end - t;
            }
        }
      while (n_open > 0)
        {
          SampleSlice sl = { open_start[n_open - 1], last_end - open_start[n_open - 1], n_open - 1, open_names[n_open - 1] };

          g_array_append_val (slices, sl);
          n_open--;
        }

      g_array_sort (slices, cmp_sample_slices);
      for (guint k = 0; k < slices->len; k++)
        {
          const SampleSlice *sl = &g_array_index (slices, SampleSlice, k);
          CpSliceInit init;

          cp_slice_init_clear (&init);
          init.start = sl->start;
          init.dur = sl->dur;
          init.name = sl->name;
          init.cat = cat;
          cp_trace_builder_add_slice (self->b, lane, &init);
          self->n_added++;
          note_end (self, sl->start, sl->dur);
        }
      a = b;
    }
  self->report->cpu_sample_threads = threads;
}
