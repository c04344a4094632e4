/* cp-chrome-metadata.c: metadata events, device properties, cloud traces
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"
#include "cp-chrome-private.h"

void
cp_chrome_on_metadata (CpChromeReader *self,
                       Event          *e)
{
  const char *what = cp_trace_builder_get_string (self->b, e->name);

  if (g_str_has_prefix (what, "process_"))
    {
      guint64 key = pack_id (&e->pid);
      ProcMeta *m = g_hash_table_lookup (self->proc_meta, &key);

      if (m == NULL)
        {
          m = g_new0 (ProcMeta, 1);
          g_hash_table_insert (self->proc_meta, g_memdup2 (&key, sizeof key), m);
        }
      if (strcmp (what, "process_name") == 0 && e->m_name != CP_STR_EMPTY)
        {
          m->name = e->m_name;
          m->has_name = TRUE;
        }
      else if (strcmp (what, "process_labels") == 0 && e->m_labels != CP_STR_EMPTY)
        {
          m->labels = e->m_labels;
          m->has_labels = TRUE;
        }
      else if (strcmp (what, "process_sort_index") == 0 && (e->have & HAVE_MSORT))
        {
          m->sort = e->m_sort;
          m->has_sort = TRUE;
        }
    }
  else if (g_str_has_prefix (what, "thread_"))
    {
      ThreadMeta probe = { pack_id (&e->pid), pack_id (&e->tid), 0, 0, FALSE, FALSE };
      ThreadMeta *m = g_hash_table_lookup (self->thread_meta, &probe);

      if (m == NULL)
        {
          m = g_memdup2 (&probe, sizeof probe);
          g_hash_table_add (self->thread_meta, m);
        }
      if (strcmp (what, "thread_name") == 0 && e->m_name != CP_STR_EMPTY)
        {
          m->name = e->m_name;
          m->has_name = TRUE;
        }
      else if (strcmp (what, "thread_sort_index") == 0 && (e->have & HAVE_MSORT))
        {
          m->sort = e->m_sort;
          m->has_sort = TRUE;
        }
    }
}

static void
parse_devices (CpChromeReader *self,
               const char     *json,
               gsize           len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonArray *arr;

  if (!cp_json_depth_within (json, len, CP_JSON_MAX_DOM_DEPTH))
    {
      /* json-glib recurses once per level (see cp-limits.h). */
      cp_load_report_warn (self->report, G_MAXUINT64,
                           _("The device properties are nested deeper than the limit of %u "
                             "levels and were not read"),
                           CP_JSON_MAX_DOM_DEPTH);
      return;
    }
  if (!json_parser_load_from_data (parser, json, len, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return;
  arr = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      JsonObject *o;
      CpDevice *dev;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      dev = cp_trace_builder_device (self->b, (gint) json_object_get_int_member_with_default (o, "id", i));
      name = json_object_get_string_member_with_default (o, "name", "");
      dev->name = cp_trace_builder_intern (self->b, name, -1);
      if (strstr (name, "NVIDIA") || strstr (name, "Tesla") || strstr (name, "GeForce") ||
          strstr (name, "Quadro") || strstr (name, "RTX"))
        dev->vendor = cp_trace_builder_intern (self->b, "Nvidia", -1);
      else if (strstr (name, "AMD") || strstr (name, "Instinct") || strstr (name, "Radeon"))
        dev->vendor = cp_trace_builder_intern (self->b, "AMD", -1);
      dev->total_memory = json_object_get_int_member_with_default (o, "totalGlobalMem", -1);
      dev->compute_major = json_object_get_int_member_with_default (o, "computeMajor",
                             json_object_get_int_member_with_default (o, "major", -1));
      dev->compute_minor = json_object_get_int_member_with_default (o, "computeMinor",
                             json_object_get_int_member_with_default (o, "minor", -1));
      dev->num_sms = json_object_get_int_member_with_default (o, "numSms",
                       json_object_get_int_member_with_default (o, "multiProcessorCount", -1));
      dev->max_threads_per_sm = json_object_get_int_member_with_default (o, "maxThreadsPerMultiprocessor",
                                  json_object_get_int_member_with_default (o, "maxThreadsPerMultiProcessor", -1));
      dev->warp_size = json_object_get_int_member_with_default (o, "warpSize", -1);
    }
}

void
cp_chrome_top_value (CpChromeReader *self,
                     const char     *json,
                     gsize           len)
{
  const char *key = self->top_key->str;

  if (json == NULL)
    {
      cp_load_report_warn (self->report, G_MAXUINT64,
                           _("The top-level value “%s” is larger than %u MiB and was not kept"),
                           key, CP_CHROME_MAX_METADATA >> 20);
      return;
    }
  cp_trace_builder_add_metadata (self->b, key, json, len);
  if (strcmp (key, "deviceProperties") == 0 || strcmp (key, "computeProperties") == 0)
    parse_devices (self, json, len);
  else if (strcmp (key, "stackFrames") == 0 && self->stack_frames == NULL)
    {
      self->stack_frames = g_strndup (json, len);
      self->stack_frames_len = len;
    }
  else if (strcmp (key, "spans") == 0 && self->cloud_spans == NULL)
    {
      self->cloud_spans = g_strndup (json, len);
      self->cloud_spans_len = len;
    }
}

/* RFC 3339 time with up to nanoseconds ("2015-09-03T16:40:00.841654024Z")
 * to epoch ns. */
static gboolean
parse_rfc3339_ns (const char *text,
                  gint64     *out)
{
  g_autoptr(GString) whole = g_string_new (NULL);
  g_autoptr(GDateTime) dt = NULL;
  const char *dot = strchr (text, '.');
  gint64 frac = 0;

  if (dot == NULL)
    g_string_assign (whole, text);
  else
    {
      const char *p = dot + 1;
      int digits = 0;

      while (g_ascii_isdigit (*p))
        {
          if (digits < 9)
            {
              frac = frac * 10 + (*p - '0');
              digits++;
            }
          p++;
        }
      for (; digits < 9; digits++)
        frac *= 10;
      g_string_append_len (whole, text, dot - text);
      g_string_append (whole, p);
    }
  dt = g_date_time_new_from_iso8601 (whole->str, NULL);
  if (dt == NULL)
    return FALSE;
  *out = g_date_time_to_unix (dt) * CP_NS_PER_S + frac;
  return TRUE;
}

/* Google Cloud Trace JSON ({"traceId", "spans": [{name, startTime, endTime,
 * kind, labels}]}), which the Chrome trace viewer also opens: every span is
 * a slice on one lane; nesting shows as rows. */
void
cp_chrome_read_cloud_spans (CpChromeReader *self)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonArray *spans;
  guint process, lane;
  CpLaneKey key = { 0, CP_STR_EMPTY };

  if (!json_parser_load_from_data (parser, self->cloud_spans, self->cloud_spans_len, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return;
  spans = json_node_get_array (root);
  process = cp_trace_builder_process_for_string (self->b, "Google Cloud Trace", -1);
  key.str = cp_trace_builder_intern (self->b, "spans", -1);
  lane = cp_trace_builder_lane (self->b, process, CP_LANE_HOST_THREAD, key);
  for (guint i = 0; i < json_array_get_length (spans); i++)
    {
      JsonNode *n = json_array_get_element (spans, i);
      JsonObject *o;
      CpSliceInit init;
      gint64 t0, t1;
      JsonNode *labels;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      self->report->events++;
      if (!parse_rfc3339_ns (json_object_get_string_member_with_default (o, "startTime", ""), &t0) ||
          !parse_rfc3339_ns (json_object_get_string_member_with_default (o, "endTime", ""), &t1))
        {
          self->report->skipped++;
          continue;
        }
      cp_slice_init_clear (&init);
      init.start = t0;
      init.dur = t1 - t0;
      init.name = cp_trace_builder_intern (self->b, json_object_get_string_member_with_default (o, "name", ""), -1);
      init.cat = cp_trace_builder_intern (self->b, json_object_get_string_member_with_default (o, "kind", ""), -1);
      labels = json_object_get_member (o, "labels");
      if (labels != NULL && JSON_NODE_HOLDS_OBJECT (labels) && json_object_get_size (json_node_get_object (labels)) > 0)
        {
          g_autofree char *text = json_to_string (labels, FALSE);

          init.args = cp_chrome_add_args_text (self, text, strlen (text));
        }
      cp_trace_builder_add_slice (self->b, lane, &init);
      self->n_added++;
    }
  if (self->n_added > 0)
    cp_trace_builder_set_epoch_base (self->b, 0);
}

static gboolean
parse_gpu_label (const char *labels,
                 gint       *device)
{
  g_auto(GStrv) parts = g_strsplit (labels, ",", -1);

  for (guint i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      gint64 v;

      if (g_str_has_prefix (p, "GPU ") && cp_json_parse_int64 (p + 4, strlen (p + 4), &v) &&
          v >= 0 && v < 1 << 20)
        {
          *device = (gint) v;
          return TRUE;
        }
    }
  return FALSE;
}

void
cp_chrome_apply_metadata (CpChromeReader *self)
{
  GHashTableIter iter;
  gpointer key, value;

  /* Processes: names, labels, sort order, device-ness. */
  for (guint proc = 0; proc < self->proc_pids->len; proc++)
    {
      IdKey pid = g_array_index (self->proc_pids, IdKey, proc);
      guint64 packed = pack_id (&pid);
      ProcMeta *m = g_hash_table_lookup (self->proc_meta, &packed);
      CpProcess *p = cp_trace_builder_get_process (self->b, proc);
      gint device;

      if (m != NULL && m->has_name)
        p->name = m->name;
      if (m != NULL && m->has_labels)
        {
          const char *labels = cp_trace_builder_get_string (self->b, m->labels);

          p->labels = m->labels;
          if (parse_gpu_label (labels, &device))
            {
              p->is_device = TRUE;
              p->device = device;
            }
        }
      if (m != NULL && m->has_sort)
        p->sort_index = m->sort;
      else if (p->is_device)
        p->sort_index = 5000000 + MAX (p->device, 0);
      else if (!pid.is_str)
        p->sort_index = pid.num;
      else
        p->sort_index = G_MAXINT32;
      if (!pid.is_str && pid.num == -1)
        p->is_pseudo = TRUE;
    }

  /* Threads: name and order their lanes (host thread, or the GPU stream). */
  g_hash_table_iter_init (&iter, self->thread_meta);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ThreadMeta *m = key;
      gpointer pv = g_hash_table_lookup (self->pid_map, &m->pid);
      guint proc, lane;
      CpLaneKey lk;
      IdKey tid;
      const CpProcess *p;

      if (pv == NULL)
        continue;
      proc = GPOINTER_TO_UINT (pv) - 1;
      p = cp_trace_builder_get_process (self->b, proc);
      /* Recover the tid key from its packed form. */
      if ((m->tid & G_GUINT64_CONSTANT (0xffff000000000000)) == G_GUINT64_CONSTANT (0x5a5a000000000000) &&
          (m->tid & 1))
        {
          tid.is_str = TRUE;
          tid.str = (CpStr) ((m->tid ^ G_GUINT64_CONSTANT (0x5a5a000000000000)) >> 1);
          tid.num = 0;
        }
      else
        {
          tid.is_str = FALSE;
          tid.num = (gint64) m->tid;
          tid.str = 0;
        }
      lk = cp_chrome_tid_lane_key (&tid);
      if (cp_trace_builder_has_lane (self->b, proc, CP_LANE_HOST_THREAD, lk, &lane))
        {
          if (m->has_name)
            cp_trace_builder_set_lane_name (self->b, lane, cp_trace_builder_get_string (self->b, m->name));
          if (m->has_sort)
            cp_trace_builder_set_lane_sort_key (self->b, lane, m->sort);
        }
      if (p->is_device && !tid.is_str &&
          cp_trace_builder_has_lane (self->b, proc, CP_LANE_KERNEL, lk, &lane))
        {
          if (m->has_name)
            {
              g_autofree char *name = g_strdup (cp_trace_builder_get_string (self->b, m->name));

              cp_trace_builder_set_lane_name (self->b, lane, g_strchomp (name));
            }
          if (m->has_sort)
            cp_trace_builder_set_lane_sort_key (self->b, lane, m->sort);
        }
    }
}
