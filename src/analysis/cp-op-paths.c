/* cp-op-paths.c: host ops by call path, the chain of ops that encloses
 * each op on its thread ("aten::linear > aten::addmm"), for the comparison
 *
 * The kernel statistics keep ops by name only: "aten::addmm" under
 * nn.Linear and under an attention block are one row. A call path tells
 * them apart. Paths are interned as (parent path, name) pairs while the
 * host lanes are walked once, so a capture of millions of ops costs one
 * hash lookup per op; the strings are built only for the distinct paths.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-analysis-private.h"
#include "cp-op-paths.h"

typedef struct
{
  CpStr  name;
  guint  parent;    /* path id + 1; 0 at the top of the thread */
} PathNode;

struct _CpOpPaths
{
  CpTrace    *trace;
  GArray     *nodes;    /* PathNode, by path id */
  GHashTable *index;    /* (parent, name) as gint64 * → id + 1 */
  GPtrArray  *strings;  /* path id → its string, built on demand */
};

static guint
intern (CpOpPaths *self,
        guint      parent,
        CpStr      name)
{
  gint64 key = ((gint64) parent << 32) | (gint64) name;
  gpointer v = g_hash_table_lookup (self->index, &key);
  PathNode node = { name, parent };

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  g_array_append_val (self->nodes, node);
  g_ptr_array_add (self->strings, NULL);
  g_hash_table_insert (self->index, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (self->nodes->len));
  return self->nodes->len - 1;
}

CpOpPaths *
_cp_op_paths_new (CpAnalysis    *analysis,
                  CpOpPathFunc   func,
                  gpointer       user_data)
{
  const CpStringPool *pool = cp_trace_get_string_pool (analysis->trace);
  CpStr python_cat = cp_string_pool_lookup (pool, "python_function");
  CpOpPaths *self = g_new0 (CpOpPaths, 1);

  self->trace = g_object_ref (analysis->trace);
  self->nodes = g_array_new (FALSE, FALSE, sizeof (PathNode));
  self->index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->strings = g_ptr_array_new_with_free_func (g_free);

  for (guint l = 0; l < analysis->n_lanes; l++)
    {
      const CpLaneInfo *info = &analysis->lanes[l];
      const CpSlices *s = info->slices;
      CpNestStack stack = { 0 };   /* value: path id + 1 of the deepest op open */

      if (info->kind != CP_LANE_HOST_THREAD || s->n == 0)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          gint64 start = cp_slices_get_start (s, i);
          CpStr name = cp_slices_get_name (s, i);
          guint parent, here;

          _cp_nest_stack_close (&stack, s, start);
          parent = _cp_nest_stack_top (&stack, 0);
          here = parent;
          if (cp_slices_get_dur (s, i) > 0 &&
              _cp_analysis_is_host_op (analysis, l, i, cp_name_cache_lookup (analysis->names, name),
                                       cp_slices_get_cat (s, i), python_cat))
            {
              guint id = intern (self, parent, name);

              if (func != NULL)
                func ((CpSliceRef) { l, i }, id, cp_slices_get_dur (s, i), user_data);
              here = id + 1;
            }
          _cp_nest_stack_push (&stack, i, here);
        }
      _cp_nest_stack_clear (&stack);
    }
  return self;
}

void
_cp_op_paths_free (CpOpPaths *self)
{
  if (self == NULL)
    return;
  g_object_unref (self->trace);
  g_array_unref (self->nodes);
  g_hash_table_unref (self->index);
  g_ptr_array_unref (self->strings);
  g_free (self);
}

guint
_cp_op_paths_get_n (CpOpPaths *self)
{
  return self->nodes->len;
}

const char *
_cp_op_paths_get_string (CpOpPaths *self,
                         guint      id)
{
  g_return_val_if_fail (id < self->nodes->len, NULL);

  if (self->strings->pdata[id] == NULL)
    {
      const PathNode *node = &g_array_index (self->nodes, PathNode, id);
      const char *name = cp_trace_get_string (self->trace, node->name);

      self->strings->pdata[id] = node->parent == 0
        ? g_strdup (name)
        : g_strconcat (_cp_op_paths_get_string (self, node->parent - 1), CP_OP_PATH_SEPARATOR, name, NULL);
    }
  return self->strings->pdata[id];
}
