/* cp-input-pipeline.c: the tf.data input pipeline, as XProf's input-pipeline
 * analyzer reads it from the host planes
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tf.data records one event per element and stage: "Iterator::Prefetch",
 * "Iterator::Model::Batch::Map" (the stage is the last part), nested on the
 * thread that produced the element. A stage's self time is its time less
 * that of the stages nested in it on the same thread; the slowest stage is
 * the one with the most self time. Prefetching is in place when a Prefetch
 * stage (or prefetch_to_device) shows up. Grain's events ("grain::...",
 * "MapDataset", "PrefetchIterDataset"...) are read the same way when their
 * names say so.
 */

#include "config.h"

#include <string.h>

#include "cp-analysis-private.h"

static void
clear_stage (gpointer data)
{
  CpPipelineStage *s = data;

  g_clear_pointer (&s->stage, g_free);
}

/* The stage of an iterator event: the last "::" part without its
 * "#id=...#" or "[...]" decoration; NULL for other events. */
static char *
stage_of (const char *name)
{
  const char *last, *p;
  gsize n;

  if (g_str_has_prefix (name, "Iterator::"))
    ;
  else if (g_str_has_prefix (name, "grain::") || g_str_has_prefix (name, "Grain"))
    ;
  else
    return NULL;
  last = name;
  for (p = name; (p = strstr (p, "::")) != NULL; p += 2)
    last = p + 2;
  for (n = 0; last[n] != '\0' && last[n] != '#' && last[n] != '[' && last[n] != '(' && last[n] != ' '; n++)
    ;
  if (n == 0)
    return NULL;
  return g_strndup (last, n);
}

static gint
cmp_self (gconstpointer a,
          gconstpointer b)
{
  const CpPipelineStage *x = a, *y = b;

  if (x->self_time != y->self_time)
    return x->self_time > y->self_time ? -1 : 1;
  return g_strcmp0 (x->stage, y->stage);
}

void
_cp_analysis_input_pipeline (CpAnalysis *self)
{
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint));

  if (self->pipeline != NULL)
    return;
  self->pipeline = g_array_new (FALSE, TRUE, sizeof (CpPipelineStage));
  g_array_set_clear_func (self->pipeline, clear_stage);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpSlices *s = self->lanes[l].slices;
      g_autofree gint64 *child = NULL;
      g_autofree gint *stage_index = NULL;

      if (self->lanes[l].kind != CP_LANE_HOST_THREAD)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          const char *name = cp_trace_get_string (self->trace, cp_slices_get_name (s, i));
          g_autofree char *stage = NULL;
          gpointer v;
          gint64 start, end;

          if (cp_name_cache_lookup (self->names, cp_slices_get_name (s, i)) & CP_NAME_INPUT_WAIT)
            self->pipeline_get_next++;
          if (strstr (name, "prefetch_to_device") || strstr (name, "PrefetchToDevice"))
            self->pipeline_prefetch = TRUE;
          stage = stage_of (name);
          if (stage == NULL)
            continue;
          if (child == NULL)
            {
              child = g_new0 (gint64, s->n);
              stage_index = g_new (gint, s->n);
              g_array_set_size (stack, 0);
            }
          if (!g_hash_table_lookup_extended (index, stage, NULL, &v))
            {
              CpPipelineStage st = { 0 };

              st.stage = g_strdup (stage);
              g_array_append_val (self->pipeline, st);
              v = GUINT_TO_POINTER (self->pipeline->len - 1);
              g_hash_table_insert (index, g_array_index (self->pipeline, CpPipelineStage, self->pipeline->len - 1).stage, v);
            }
          stage_index[i] = (gint) GPOINTER_TO_UINT (v);
          if (g_ascii_strncasecmp (stage, "Prefetch", 8) == 0 || strstr (stage, "PrefetchIter") != NULL)
            self->pipeline_prefetch = TRUE;

          /* Nesting: the innermost open stage event is the parent. */
          start = cp_slices_get_start (s, i);
          end = cp_slices_get_end (s, i);
          while (stack->len > 0 &&
                 cp_slices_get_end (s, g_array_index (stack, guint, stack->len - 1)) <= start)
            {
              guint done = g_array_index (stack, guint, stack->len - 1);
              CpPipelineStage *st = &g_array_index (self->pipeline, CpPipelineStage, stage_index[done]);

              st->self_time = cp_sat_add (st->self_time, MAX (0, cp_slices_get_dur (s, done) - child[done]));
              g_array_set_size (stack, stack->len - 1);
            }
          if (stack->len > 0)
            {
              guint parent = g_array_index (stack, guint, stack->len - 1);

              child[parent] = cp_sat_add (child[parent], end - start);
            }
          g_array_append_val (stack, i);
          {
            CpPipelineStage *st = &g_array_index (self->pipeline, CpPipelineStage, stage_index[i]);

            st->count++;
            st->total = cp_sat_add (st->total, end - start);
          }
          self->pipeline_events++;
        }
      while (child != NULL && stack->len > 0)
        {
          guint done = g_array_index (stack, guint, stack->len - 1);
          CpPipelineStage *st = &g_array_index (self->pipeline, CpPipelineStage, stage_index[done]);

          st->self_time = cp_sat_add (st->self_time, MAX (0, cp_slices_get_dur (s, done) - child[done]));
          g_array_set_size (stack, stack->len - 1);
        }
    }
  g_array_sort (self->pipeline, cmp_self);
}
