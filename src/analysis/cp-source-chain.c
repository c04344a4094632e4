/* cp-source-chain.c: from a kernel back to the code that launched it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-analysis-private.h"

/* The slice on row of lane whose start is the last at or before start, if
 * it covers [start, end]; -1 otherwise. A row's slices never overlap, so
 * only that one can. */
static gint64
covering_on_row (CpLane *lane,
                 guint   row,
                 gint64  start,
                 gint64  end)
{
  const CpSlices *s = cp_lane_get_slices (lane);
  guint n, lo = 0, hi;
  const guint32 *idx = cp_lane_get_row_slices (lane, row, &n);
  guint32 i;

  if (idx == NULL || n == 0)
    return -1;
  hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (cp_slices_get_start (s, idx[mid]) <= start)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  i = idx[lo - 1];
  return cp_slices_get_end (s, i) >= end ? (gint64) i : -1;
}

static CpSourceKind
host_kind (CpAnalysis *self,
           guint       lane,
           guint       index,
           CpStr       python_cat)
{
  const CpSlices *s = self->lanes[lane].slices;
  CpStr name = cp_slices_get_name (s, index);
  CpStr cat = cp_slices_get_cat (s, index);
  guint32 nf = cp_name_cache_lookup (self->names, name);

  if (python_cat != CP_STR_EMPTY && cat == python_cat)
    return g_str_has_prefix (cp_trace_get_string (self->trace, name), "nn.Module: ") ? CP_SOURCE_MODULE
                                                                                      : CP_SOURCE_FRAME;
  if (nf & CP_NAME_RUNTIME)
    return CP_SOURCE_LAUNCH;
  if (cp_slices_get_dur (s, index) > 0 && _cp_analysis_is_host_op (self, lane, index, nf, cat, python_cat))
    return CP_SOURCE_OP;
  return CP_SOURCE_SCOPE;
}

GArray *
cp_analysis_source_chain (CpAnalysis *self,
                          CpSliceRef  ref)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CpSourceLink));
  CpStr python_cat;
  CpLane *lane;
  const CpSlices *s;
  gint64 start, end;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), out);

  if (ref.lane >= self->n_lanes || ref.index >= self->lanes[ref.lane].slices->n)
    return out;
  python_cat = cp_string_pool_lookup (cp_trace_get_string_pool (self->trace), "python_function");
  if (python_cat == G_MAXUINT32)
    python_cat = CP_STR_EMPTY;

  /* A device slice starts from the call that launched it. */
  if (self->lanes[ref.lane].kind != CP_LANE_HOST_THREAD)
    {
      const CpLaneInfo *info = &self->lanes[ref.lane];
      CpSourceLink link;

      if (info->launch == NULL || info->launch[ref.index].lane == G_MAXUINT32)
        return out;
      ref = info->launch[ref.index];
      if (ref.lane >= self->n_lanes || self->lanes[ref.lane].kind != CP_LANE_HOST_THREAD)
        return out;
      link.kind = CP_SOURCE_LAUNCH;
      link.ref = ref;
      g_array_append_val (out, link);
    }

  /* Then every slice around it on its thread, innermost first: one a row
   * at most, found on each row above by a binary search. */
  lane = self->lanes[ref.lane].lane;
  s = self->lanes[ref.lane].slices;
  start = cp_slices_get_start (s, ref.index);
  end = cp_slices_get_end (s, ref.index);
  for (gint row = (gint) s->row[ref.index] - 1; row >= 0; row--)
    {
      gint64 i = covering_on_row (lane, (guint) row, start, end);
      CpSourceLink link;

      if (i < 0 || (guint) i == ref.index)
        continue;
      link.ref.lane = ref.lane;
      link.ref.index = (guint32) i;
      link.kind = host_kind (self, ref.lane, (guint) i, python_cat);
      g_array_append_val (out, link);
    }
  return out;
}

const char *
cp_source_kind_to_string (CpSourceKind kind)
{
  switch (kind)
    {
    case CP_SOURCE_LAUNCH: return "launch";
    case CP_SOURCE_OP: return "op";
    case CP_SOURCE_MODULE: return "module";
    case CP_SOURCE_FRAME: return "frame";
    case CP_SOURCE_SCOPE:
    default:
      return "scope";
    }
}
