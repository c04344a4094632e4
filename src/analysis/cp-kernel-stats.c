/* cp-kernel-stats.c: statistics per kernel name and per host op, and the
 * kernels each op launched
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "cp-analysis-private.h"

typedef struct
{
  double occ_weighted;
  double occ_time;
  gboolean grid_set;
} KernelAcc;

gboolean
_cp_analysis_is_host_op (CpAnalysis *self,
                         guint       lane,
                         guint       index,
                         guint32     nf,
                         CpStr       cat,
                         CpStr       python_cat)
{
  const CpLaneInfo *info = &self->lanes[lane];

  if (nf & (CP_NAME_RUNTIME | CP_NAME_STEP))
    return FALSE;
  if (python_cat != CP_STR_EMPTY && cat == python_cat)
    return FALSE;
  if (info->n_markers > 0 && _cp_analysis_is_marker (self, lane, index))
    return FALSE;
  return TRUE;
}

static CpHostOpStats *
host_op_for (CpAnalysis *self,
             guint32    *omap,
             CpStr       name)
{
  if (omap[name] == 0)
    {
      CpHostOpStats op = { 0 };

      op.name = name;
      op.min = G_MAXINT64;
      op.tc_eligible = (cp_name_cache_lookup (self->names, name) & CP_NAME_TC_ELIGIBLE) != 0;
      g_array_append_val (self->host_ops, op);
      omap[name] = self->host_ops->len;
    }
  return &g_array_index (self->host_ops, CpHostOpStats, omap[name] - 1);
}

static void
add_op_kernel (CpHostOpStats *op,
               GHashTable    *index,
               CpStr          kernel,
               gint64         dur)
{
  gpointer v;
  CpKernelCount *kc;

  if (op->kernels == NULL)
    op->kernels = g_array_new (FALSE, TRUE, sizeof (CpKernelCount));
  if (!g_hash_table_lookup_extended (index, GUINT_TO_POINTER (kernel), NULL, &v))
    {
      CpKernelCount fresh = { kernel, 0, 0 };

      g_array_append_val (op->kernels, fresh);
      v = GUINT_TO_POINTER (op->kernels->len - 1);
      g_hash_table_insert (index, GUINT_TO_POINTER (kernel), v);
    }
  kc = &g_array_index (op->kernels, CpKernelCount, GPOINTER_TO_UINT (v));
  kc->count++;
  kc->time = cp_sat_add (kc->time, dur);
}

/* What the walk of the host lanes carries from launch call to launch call. */
typedef struct
{
  guint32        *omap;         /* op name -> index in host_ops + 1 */
  GPtrArray      *op_index;     /* per host op: its kernels' index in op->kernels */
  guint64       **tc_op;        /* per kernel lane: launched by an op that could use tensor cores */
  CpRooflineWalk *roofline;
  guint32        *chain;        /* stack positions of the ops open, innermost first */
  guint           chain_cap;
  gint32         *memo;         /* per stack position, for the roofline */
  guint           memo_cap;
} Walk;

static inline gboolean
bit_get (const guint64 *bits,
         guint          i)
{
  return bits != NULL && ((bits[i / 64] >> (i % 64)) & 1);
}

static inline void
bit_set (guint64 **bits,
         guint     n,
         guint     i)
{
  if (*bits == NULL)
    *bits = g_new0 (guint64, n / 64 + 1);
  (*bits)[i / 64] |= G_GUINT64_CONSTANT (1) << (i % 64);
}

/* What the kernel statistics count as a kernel: compute and collectives. */
static inline gboolean
is_kernel_class (CpSliceClass c)
{
  return c == CP_TIME_COMPUTE_16 || c == CP_TIME_COMPUTE_32 || c == CP_TIME_COLLECTIVES;
}

/* Device slice to, launched by host slice from while the n_chain ops of
 * w->chain were open around the call (the nearest first): a kernel's time
 * goes to the nearest op as its own and, once per name, to it and every
 * op around it. */
static void
attribute_launch (CpAnalysis        *self,
                  Walk              *w,
                  CpSliceRef         from,
                  CpSliceRef         to,
                  const CpNestStack *stack,
                  guint              n_chain)
{
  const CpLaneInfo *info = &self->lanes[to.lane];
  const CpSlices *s = info->slices;
  const CpSlices *hs = self->lanes[from.lane].slices;
  CpSliceClass c = _cp_analysis_slice_class (self, to.lane, to.index);
  CpStr kname = cp_slices_get_name (s, to.index);
  guint32 nf = cp_name_cache_lookup (self->names, kname);
  gint64 dur = cp_slices_get_dur (s, to.index);
  CpStr seen[64];
  guint n_seen = 0;
  CpHostOpStats *op;

  if (info->kind != CP_LANE_KERNEL || !is_kernel_class (c))
    return;

  op = &g_array_index (self->host_ops, CpHostOpStats,
                       w->omap[cp_slices_get_name (hs, stack->index[w->chain[0]])] - 1);
  op->n_self_kernels++;
  op->self_kernel_time = cp_sat_add (op->self_kernel_time, dur);
  if (op->tc_eligible)
    bit_set (&w->tc_op[to.lane], s->n, to.index);

  for (guint k = 0; k < n_chain; k++)
    {
      CpStr name = cp_slices_get_name (hs, stack->index[w->chain[k]]);
      gboolean dup = FALSE;
      guint oi = w->omap[name] - 1;
      CpHostOpStats *anc;

      for (guint j = 0; j < n_seen && !dup; j++)
        dup = seen[j] == name;
      if (dup)
        continue;
      anc = &g_array_index (self->host_ops, CpHostOpStats, oi);
      anc->n_kernels++;
      anc->kernel_time = cp_sat_add (anc->kernel_time, dur);
      if (nf & CP_NAME_TENSOR_CORE)
        anc->tensor_core_time = cp_sat_add (anc->tensor_core_time, dur);
      while (w->op_index->len <= oi)
        g_ptr_array_add (w->op_index, g_hash_table_new (NULL, NULL));
      add_op_kernel (anc, g_ptr_array_index (w->op_index, oi), kname, dur);
      if (n_seen < G_N_ELEMENTS (seen))
        seen[n_seen++] = name;
    }
}

/* Host ops: their statistics; and the kernels launched by each launch call
 * inside an op, given to that op and the ops around it while the walk
 * knows them (its nest stack), and to the roofline pass. */
static void
host_pass (CpAnalysis *self,
           Walk       *w)
{
  const CpStringPool *pool = cp_trace_get_string_pool (self->trace);
  CpStr python_cat = cp_string_pool_lookup (pool, "python_function");
  guint n_flows, cursor = 0;
  const CpFlow *flows = cp_trace_get_flows (self->trace, &n_flows);
  const guint32 *order = cp_trace_get_flow_order (self->trace, FALSE, &n_flows);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s;
      CpNestStack stack = { 0 };   /* value: the deepest op open, index + 1 */

      if (info->kind != CP_LANE_HOST_THREAD)
        continue;
      s = info->slices;
      if (s->n == 0)
        continue;

      for (guint i = 0; i < s->n; i++)
        {
          gint64 start = cp_slices_get_start (s, i);
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
          gboolean op;
          guint32 near, outer;

          _cp_nest_stack_close (&stack, s, start);
          outer = _cp_nest_stack_top (&stack, 0);
          op = cp_slices_get_dur (s, i) > 0 && _cp_analysis_is_host_op (self, l, i, nf, cp_slices_get_cat (s, i), python_cat);
          near = op ? i + 1 : outer;

          if ((s->flags[i] & CP_SLICE_HAS_FLOW_OUT) && outer != 0)
            {
              guint n_chain = 0;

              /* The ops open, innermost first: the stack entries that are
               * ops (an op's value is its own index + 1). */
              for (guint p = stack.depth; p-- > 0;)
                if (stack.value[p] == stack.index[p] + 1)
                  {
                    if (n_chain == w->chain_cap)
                      {
                        w->chain_cap = MAX (64, 2 * w->chain_cap);
                        w->chain = g_renew (guint32, w->chain, w->chain_cap);
                      }
                    w->chain[n_chain++] = p;
                  }

              /* The device slices this call launched: the flows from it
               * (sorted by their start), each device slice once (a flow
               * written twice is skipped), by the launcher the lanes'
               * preparation gave it. */
              while (cursor < n_flows &&
                     (flows[order[cursor]].from.lane < l ||
                      (flows[order[cursor]].from.lane == l && flows[order[cursor]].from.index < i)))
                cursor++;
              for (guint k = cursor; k < n_flows && flows[order[k]].from.lane == l && flows[order[k]].from.index == i; k++)
                {
                  const CpFlow *f = &flows[order[k]];
                  const CpLaneInfo *to;
                  gboolean again = FALSE;

                  if (f->kind != CP_FLOW_LAUNCH || f->to.lane >= self->n_lanes)
                    continue;
                  to = &self->lanes[f->to.lane];
                  if (to->launch == NULL || f->to.index >= to->slices->n ||
                      to->launch[f->to.index].lane != l || to->launch[f->to.index].index != i)
                    continue;
                  for (guint e = cursor; e < k && !again; e++)
                    again = flows[order[e]].kind == CP_FLOW_LAUNCH &&
                            flows[order[e]].to.lane == f->to.lane && flows[order[e]].to.index == f->to.index;
                  if (again)
                    continue;
                  attribute_launch (self, w, f->from, f->to, &stack, n_chain);
                  _cp_analysis_roofline_launch (self, w->roofline, f->to.lane, f->to.index, l,
                                                stack.index, w->memo, w->chain, n_chain);
                }
            }

          if (op)
            {
              CpHostOpStats *st = host_op_for (self, w->omap, cp_slices_get_name (s, i));
              gint64 dur = cp_slices_get_dur (s, i);

              st->count++;
              st->total = cp_sat_add (st->total, dur);
              st->min = MIN (st->min, dur);
              st->max = MAX (st->max, dur);
              self->host_op_time = cp_sat_add (self->host_op_time, dur);
            }
          _cp_nest_stack_push (&stack, i, near);
          if (w->memo_cap < stack.cap)
            {
              w->memo_cap = stack.cap;
              w->memo = g_renew (gint32, w->memo, w->memo_cap);
            }
          w->memo[stack.depth - 1] = 0;
        }
      _cp_nest_stack_clear (&stack);
    }
}

static gint
cmp_kernel_total (gconstpointer a,
                  gconstpointer b)
{
  const CpKernelStats *x = a, *y = b;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return x->name < y->name ? -1 : (x->name > y->name);
}

static gint
cmp_op_total (gconstpointer a,
              gconstpointer b)
{
  const CpHostOpStats *x = a, *y = b;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return x->name < y->name ? -1 : (x->name > y->name);
}

static gint
cmp_count_time (gconstpointer a,
                gconstpointer b)
{
  const CpKernelCount *x = a, *y = b;

  if (x->time != y->time)
    return x->time > y->time ? -1 : 1;
  return x->name < y->name ? -1 : (x->name > y->name);
}

void
_cp_analysis_kernel_stats (CpAnalysis *self)
{
  guint pool_size = cp_string_pool_size (cp_trace_get_string_pool (self->trace));
  g_autofree guint32 *kmap = g_new0 (guint32, MAX (pool_size, 1));
  g_autofree guint32 *omap = g_new0 (guint32, MAX (pool_size, 1));
  g_autoptr(GArray) acc = g_array_new (FALSE, TRUE, sizeof (KernelAcc));
  g_autoptr(GPtrArray) op_index = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  Walk w = { 0 };

  w.omap = omap;
  w.op_index = op_index;
  w.tc_op = g_new0 (guint64 *, MAX (self->n_lanes, 1));
  w.roofline = _cp_analysis_roofline_begin (self);
  host_pass (self, &w);
  g_free (w.chain);
  g_free (w.memo);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s;

      if (info->kind != CP_LANE_KERNEL)
        continue;
      s = info->slices;
      for (guint i = 0; i < s->n; i++)
        {
          guint32 nf = cp_name_cache_lookup (self->names, cp_slices_get_name (s, i));
          CpSliceClass c = _cp_analysis_slice_class (self, l, i);
          gint64 dur = cp_slices_get_dur (s, i);
          gboolean eligible;

          if (!is_kernel_class (c))
            continue;

          /* Per kernel name. */
          {
            CpKernelStats *ks;
            KernelAcc *ka;
            const CpGpuInfo *g = cp_slices_get_gpu (s, i) ? _cp_analysis_gpu_info (self, l, i) : NULL;

            if (kmap[cp_slices_get_name (s, i)] == 0)
              {
                CpKernelStats fresh = { 0 };
                KernelAcc fresh_acc = { 0 };

                fresh.name = cp_slices_get_name (s, i);
                fresh.min = G_MAXINT64;
                fresh.tensor_core = (nf & CP_NAME_TENSOR_CORE) != 0;
                fresh.half = (nf & CP_NAME_HALF) != 0;
                fresh.occupancy = NAN;
                for (guint k = 0; k < 3; k++)
                  fresh.grid[k] = fresh.block[k] = -1;
                g_array_append_val (self->kernels, fresh);
                g_array_append_val (acc, fresh_acc);
                kmap[cp_slices_get_name (s, i)] = self->kernels->len;
              }
            ks = &g_array_index (self->kernels, CpKernelStats, kmap[cp_slices_get_name (s, i)] - 1);
            ka = &g_array_index (acc, KernelAcc, kmap[cp_slices_get_name (s, i)] - 1);
            ks->count++;
            ks->total = cp_sat_add (ks->total, dur);
            ks->min = MIN (ks->min, dur);
            ks->max = MAX (ks->max, dur);
            self->kernel_time = cp_sat_add (self->kernel_time, dur);
            if (c != CP_TIME_COLLECTIVES)
              self->compute_kernel_time = cp_sat_add (self->compute_kernel_time, dur);

            if (g != NULL)
              {
                if (isfinite (g->occupancy) && g->occupancy >= 0 && dur > 0)
                  {
                    ka->occ_weighted += g->occupancy * (double) dur;
                    ka->occ_time += dur;
                  }
                if (!ka->grid_set)
                  {
                    for (guint k = 0; k < 3; k++)
                      {
                        ks->grid[k] = g->grid[k];
                        ks->block[k] = g->block[k];
                      }
                    ka->grid_set = TRUE;
                  }
                else
                  {
                    /* Launches that disagree make the shape unknown. */
                    for (guint k = 0; k < 3; k++)
                      {
                        if (ks->grid[k] != g->grid[k])
                          ks->grid[0] = ks->grid[1] = ks->grid[2] = -1;
                        if (ks->block[k] != g->block[k])
                          ks->block[0] = ks->block[1] = ks->block[2] = -1;
                      }
                  }
              }
          }

          /* Tensor-core eligibility (TB tensor_cores_parser): launched by an
           * eligible op, or a matmul / convolution kernel by name. */
          eligible = (nf & CP_NAME_GEMM_LIKE) != 0 || bit_get (w.tc_op[l], i);
          /* XLA ops: dots and convolutions by their HLO opcode or category
           * (what runs on the tensor cores of a GPU, the MXU of a TPU). */
          if (!eligible && self->is_xplane)
            {
              CpXlaOpClass xc = _cp_analysis_xla_class (self, l, i);

              eligible = xc == CP_XLA_OP_CONVOLUTION || xc == CP_XLA_OP_MATMUL;
            }
          if (eligible && c != CP_TIME_COLLECTIVES)
            {
              self->eligible_kernel_time = cp_sat_add (self->eligible_kernel_time, dur);
              if (!(nf & (CP_NAME_TENSOR_CORE | CP_NAME_HALF)))
                {
                  CpSliceRef ref = { l, i };

                  self->eligible_fp32_time = cp_sat_add (self->eligible_fp32_time, dur);
                  g_array_append_val (self->eligible_fp32, ref);
                }
            }
        }
    }

  for (guint l = 0; l < self->n_lanes; l++)
    g_free (w.tc_op[l]);
  g_free (w.tc_op);
  _cp_analysis_roofline (self, w.roofline);

  for (guint k = 0; k < self->kernels->len; k++)
    {
      CpKernelStats *ks = &g_array_index (self->kernels, CpKernelStats, k);
      KernelAcc *ka = &g_array_index (acc, KernelAcc, k);

      ks->share = self->kernel_time > 0 ? (double) ks->total / self->kernel_time : 0.0;
      if (ka->occ_time > 0)
        ks->occupancy = ka->occ_weighted / ka->occ_time;
      if (ks->count == 0)
        ks->min = 0;
    }
  g_array_sort (self->kernels, cmp_kernel_total);

  for (guint k = 0; k < self->host_ops->len; k++)
    {
      CpHostOpStats *op = &g_array_index (self->host_ops, CpHostOpStats, k);

      op->share = self->host_op_time > 0 ? (double) op->total / self->host_op_time : 0.0;
      op->kernel_share = self->kernel_time > 0 ? (double) op->kernel_time / self->kernel_time : 0.0;
      if (op->count == 0)
        op->min = 0;
      if (op->kernels != NULL)
        g_array_sort (op->kernels, cmp_count_time);
    }
  g_array_sort (self->host_ops, cmp_op_total);
}
