/* cp-job-xla.c: the collectives of a rank whose capture is an XPlane (JAX,
 * TensorFlow, XLA on TPUs and GPUs)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An XLA program runs the same collectives in the same order on every
 * device of the job, so the n-th collective of one device of each rank
 * (process) is the same operation, as with NCCL. A rank's collectives are
 * those of its first device that has any (the others of the same process
 * run the same program in step with it): XLA ops whose HLO opcode is a
 * collective, synchronous (all-reduce) or as an async pair (all-reduce-start
 * to the next all-reduce-done of the same opcode on the lane), and NCCL /
 * RCCL kernels of XLA on GPUs. The HLO text (the op's long name, or its
 * name) gives the size (the result's shape), the element type and the
 * group size (replica_groups).
 */

#include "config.h"

#include <string.h>

#include "analysis/cp-analysis-private.h"
#include "analysis/cp-classify.h"
#include "analysis/cp-job-private.h"

/* The element types of HLO shapes and their sizes. */
static gint
hlo_type_size (const char *t,
               gsize       len)
{
  static const struct { const char *name; gint size; } types[] = {
    { "pred", 1 }, { "s8", 1 }, { "u8", 1 }, { "s16", 2 }, { "u16", 2 }, { "f16", 2 }, { "bf16", 2 },
    { "s32", 4 }, { "u32", 4 }, { "f32", 4 }, { "s64", 8 }, { "u64", 8 }, { "f64", 8 }, { "c64", 8 },
    { "c128", 16 }, { "s4", 1 }, { "u4", 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (strlen (types[i].name) == len && strncmp (t, types[i].name, len) == 0)
      return types[i].size;
  if (len > 2 && t[0] == 'f' && t[1] == '8')   /* f8e4m3fn, f8e5m2... */
    return 1;
  return -1;
}

/* "f32[5,1024]{1,0}" at p: its bytes (-1 for a tuple or an unknown type)
 * and its element type. */
static gint64
hlo_shape_bytes (const char *p,
                 char       *dtype,
                 gsize       dtype_size)
{
  const char *q = p;
  gint64 n = 1;
  gint size;

  dtype[0] = '\0';
  while (g_ascii_isalnum (*q))
    q++;
  if (*q != '[' || q == p)
    return -1;
  g_strlcpy (dtype, p, MIN (dtype_size, (gsize) (q - p) + 1));
  size = hlo_type_size (p, q - p);
  q++;
  while (*q != ']' && *q != '\0')
    {
      char *end;
      guint64 d = g_ascii_strtoull (q, &end, 10);

      if (end == q)
        return -1;
      if (d > 0 && n > G_MAXINT64 / (gint64) d)
        return -1;
      n *= (gint64) d;
      q = end;
      if (*q == ',')
        q++;
    }
  return size > 0 ? n * size : -1;
}

/* replica_groups={{0,1,2,3},{4,5,6,7}} or the iota form [2,4]<=[8]: the
 * size of a group; -1 when the text does not say (every device). */
static gint
hlo_group_size (const char *text)
{
  const char *p = strstr (text, "replica_groups=");
  gint n = 0;

  if (p == NULL)
    return -1;
  p += strlen ("replica_groups=");
  if (p[0] == '{' && p[1] == '{')
    {
      for (p += 2; *p != '\0' && *p != '}'; p++)
        if (g_ascii_isdigit (*p) && !g_ascii_isdigit (p[1]))
          n++;
      return n > 0 ? n : -1;
    }
  if (p[0] == '[')
    {
      char *end;
      guint64 v;

      g_ascii_strtoull (p + 1, &end, 10);
      if (*end != ',')
        return -1;
      v = g_ascii_strtoull (end + 1, &end, 10);
      return *end == ']' && v > 0 && v < G_MAXINT ? (gint) v : -1;
    }
  return -1;
}

gboolean
_cp_job_parse_hlo_collective (const char      *text,
                              CpHloCollective *out)
{
  static const char * const ops[] = {
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "ragged-all-to-all", "collective-permute",
    "collective-broadcast",
  };
  const char *eq = strstr (text, " = ");
  const char *op;
  gsize len;

  memset (out, 0, sizeof *out);
  out->bytes = -1;
  out->group_size = -1;
  /* "%all-reduce.5 = f32[1024]{0} all-reduce(...)...", or the bare name
   * "all-reduce.5" / "all-reduce-start". */
  if (eq != NULL)
    {
      const char *shape = eq + 3;

      out->bytes = hlo_shape_bytes (shape, out->dtype, sizeof out->dtype);
      op = shape;
      if (*op == '(')
        {
          gint depth = 0;

          for (; *op != '\0'; op++)
            if (*op == '(')
              depth++;
            else if (*op == ')' && --depth == 0)
              break;
        }
      op = strchr (op, ' ');
      if (op == NULL)
        return FALSE;
      op++;
    }
  else
    op = text[0] == '%' ? text + 1 : text;
  len = strcspn (op, "(. ");
  out->phase = CP_HLO_SYNC;
  if (len > 6 && strncmp (op + len - 6, "-start", 6) == 0)
    {
      out->phase = CP_HLO_START;
      len -= 6;
    }
  else if (len > 5 && strncmp (op + len - 5, "-done", 5) == 0)
    {
      out->phase = CP_HLO_DONE;
      len -= 5;
    }
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strlen (ops[i]) == len && strncmp (op, ops[i], len) == 0)
      {
        /* "all-reduce" → "all_reduce", as NCCL's names read. */
        g_strlcpy (out->op, ops[i], sizeof out->op);
        g_strdelimit (out->op, "-", '_');
        out->group_size = hlo_group_size (text);
        return TRUE;
      }
  return FALSE;
}

/* The device ordinal of a lane's plane, -1 for none. */
static gint
lane_device (CpTrace *trace,
             CpLane  *lane)
{
  const CpProcess *p = cp_trace_get_process (trace, cp_lane_get_process (lane));

  return p->is_device ? p->device : -1;
}

typedef struct
{
  CpSliceRef      ref;
  gint64          start;
  CpHloCollective hlo;
} Pending;

static void
add_coll (Slot                  *s,
          GArray                *dev,
          CpTrace               *trace,
          CpSliceRef             ref,
          gint64                 start,
          gint64                 end,
          const CpHloCollective *hlo)
{
  const CpSlices *sl = cp_lane_get_slices (cp_trace_get_lane (trace, ref.lane));
  RankColl c = { start, end, cp_trace_get_string (trace, cp_slices_get_name (sl, ref.index)),
                 g_string_chunk_insert_const (s->strings, hlo->op), -1, NULL, hlo->group_size, NULL, ref };

  /* NCCL's sizes are the input's: the result of an all-gather is the
   * group's inputs, that of a reduce-scatter one part of the input. */
  c.bytes = hlo->bytes;
  if (c.bytes > 0 && hlo->group_size > 0 && strcmp (hlo->op, "all_gather") == 0)
    c.bytes /= hlo->group_size;
  else if (c.bytes > 0 && hlo->group_size > 0 && strcmp (hlo->op, "reduce_scatter") == 0)
    c.bytes *= hlo->group_size;
  if (hlo->dtype[0] != '\0')
    c.dtype = g_string_chunk_insert_const (s->strings, hlo->dtype);
  g_array_append_val (dev, c);
}

/* The class of a device slice for the job: 1 a collective (hlo filled in),
 * 0 compute, -1 neither (an async wait, a sync). */
static gint
slice_kind (Slot            *s,
            CpNameCache     *names,
            CpStr            key_long_name,
            guint            l,
            guint            i,
            CpHloCollective *hlo)
{
  CpTrace *trace = s->r.trace;
  const CpSlices *sl = cp_lane_get_slices (cp_trace_get_lane (trace, l));
  CpStr name_id = cp_slices_get_name (sl, i);
  CpXlaOpClass c;

  if (sl->flags[i] & CP_SLICE_SYNC)
    return -1;
  if (cp_name_cache_lookup (names, name_id) & CP_NAME_COLLECTIVE)
    {
      g_autofree char *op = _cp_job_collective_op (cp_trace_get_string (trace, name_id));

      memset (hlo, 0, sizeof *hlo);
      g_strlcpy (hlo->op, op, sizeof hlo->op);
      hlo->bytes = -1;
      hlo->group_size = -1;
      hlo->phase = CP_HLO_SYNC;
      return 1;
    }
  c = _cp_analysis_xla_class (s->r.analysis, l, i);
  if (c == CP_XLA_OP_COLLECTIVE)
    {
      guint32 args = cp_slices_get_args (sl, i);
      CpStr text = args != 0 && key_long_name != G_MAXUINT32 ? cp_xstats_find_string (trace, args, key_long_name)
                                                              : CP_STR_EMPTY;

      if (_cp_job_parse_hlo_collective (cp_trace_get_string (trace, text != CP_STR_EMPTY ? text : name_id), hlo))
        return 1;
      return -1;
    }
  return c == CP_XLA_OP_ASYNC || c == CP_XLA_OP_SEND_RECV ? -1 : 0;
}

void
_cp_job_xla_collectives (Slot        *s,
                         GArray      *dev,
                         CpIntervals *compute)
{
  CpTrace *trace = s->r.trace;
  g_autoptr(CpNameCache) names = cp_name_cache_new (trace);
  CpStr key_long_name = cp_string_pool_lookup (cp_trace_get_string_pool (trace), "long_name");
  gint device = G_MAXINT;
  CpHloCollective hlo;

  /* The first device with a collective. */
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *sl = cp_lane_get_slices (lane);
      gint d = lane_device (trace, lane);

      if (cp_lane_get_kind (lane) != CP_LANE_KERNEL || d < 0 || d >= device)
        continue;
      for (guint i = 0; i < sl->n; i++)
        if (slice_kind (s, names, key_long_name, l, i, &hlo) == 1)
          {
            device = d;
            break;
          }
    }

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *sl = cp_lane_get_slices (lane);
      g_autoptr(GArray) pending = NULL;
      gint d = lane_device (trace, lane);

      if (cp_lane_get_kind (lane) != CP_LANE_KERNEL || (device != G_MAXINT && d != device))
        continue;
      /* TPUs repeat the async ops in flight on a line of their own. */
      if (g_strcmp0 (cp_lane_get_name (lane), "Async XLA Ops") == 0)
        continue;
      pending = g_array_new (FALSE, FALSE, sizeof (Pending));
      for (guint i = 0; i < sl->n; i++)
        {
          gint64 start = cp_slices_get_start (sl, i), end = cp_slices_get_end (sl, i);
          CpSliceRef ref = { l, i };

          switch (slice_kind (s, names, key_long_name, l, i, &hlo))
            {
            case 0:
              cp_intervals_add (compute, start, end);
              break;
            case 1:
              if (hlo.phase == CP_HLO_SYNC)
                add_coll (s, dev, trace, ref, start, end, &hlo);
              else if (hlo.phase == CP_HLO_START)
                {
                  Pending p = { ref, start, hlo };

                  g_array_append_val (pending, p);
                }
              else
                {
                  /* The done closes the oldest start of its opcode; the
                   * collective is the start's slice, from its start. */
                  for (guint j = 0; j < pending->len; j++)
                    {
                      Pending *p = &g_array_index (pending, Pending, j);

                      if (strcmp (p->hlo.op, hlo.op) == 0)
                        {
                          if (hlo.bytes < 0)
                            hlo.bytes = p->hlo.bytes;
                          if (hlo.group_size < 0)
                            hlo.group_size = p->hlo.group_size;
                          if (hlo.dtype[0] == '\0')
                            g_strlcpy (hlo.dtype, p->hlo.dtype, sizeof hlo.dtype);
                          add_coll (s, dev, trace, p->ref, p->start, MAX (end, p->start), &hlo);
                          g_array_remove_index (pending, j);
                          break;
                        }
                    }
                }
              break;
            default:
              break;
            }
        }
    }
}
