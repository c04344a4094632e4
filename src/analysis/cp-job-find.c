/* cp-job-find.c: findings across the ranks of a job
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * job-collective-mismatch  any collective whose name, size or dtype differ
 *                          across ranks, or ranks with different numbers
 *                          of collectives: high.
 * job-straggler            the rank that came last to the collectives that
 *                          cost the others most wait: moderate when the
 *                          waiting ranks lose 5% of their own step time
 *                          waiting for it (Σ waits / Σ of their window
 *                          time, not the straggler's), high at 15%; with
 *                          what it was doing meanwhile.
 * job-exposed-comm         a rank whose communication not hidden by its
 *                          compute is 10% of its step time (high at 30%).
 * job-load-imbalance       compute per step differs across ranks by 10%
 *                          of the largest (high at 30%), and the busiest
 *                          rank is the one the others wait for (the most
 *                          caused wait), its extra compute a step times
 *                          the steps, over the other ranks, at least 25%
 *                          of that wait; otherwise info.
 * job-slow-link            collectives of one operation and group size
 *                          (at least 4 with a bus bandwidth) of which some
 *                          reach under half the median bus bandwidth:
 *                          moderate.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cp-classify.h"
#include "analysis/cp-job-private.h"
#include "model/cp-string-pool.h"

#define STRAGGLER_MODERATE 0.05
#define STRAGGLER_HIGH     0.15
#define EXPOSED_MODERATE   0.10
#define EXPOSED_HIGH       0.30
#define IMBALANCE_MODERATE 0.10
#define IMBALANCE_HIGH     0.30
#define IMBALANCE_EXPLAINS 0.25
#define SLOW_LINK_SHARE    0.5
#define SLOW_LINK_MIN      4

static CpJobFinding *
add (CpJob       *self,
     const char  *id,
     CpSeverity   severity,
     gint         rank,
     gint64       at_stake,
     char        *title,
     char        *summary)
{
  CpJobFinding f = { id, severity, title, summary, rank, at_stake, { { NULL } } };

  g_array_append_val (self->findings, f);
  return &g_array_index (self->findings, CpJobFinding, self->findings->len - 1);
}

static void
set_fixes (CpJobFinding *f,
           const char   *pytorch0,
           const char   *pytorch1,
           const char   *jax,
           const char   *tf)
{
  f->fixes[CP_FRAMEWORK_PYTORCH][0] = pytorch0;
  f->fixes[CP_FRAMEWORK_PYTORCH][1] = pytorch1;
  f->fixes[CP_FRAMEWORK_JAX][0] = jax;
  f->fixes[CP_FRAMEWORK_TENSORFLOW][0] = tf;
}

GArray *
_cp_job_activity (Slot         *s,
                  const gint64 *windows,
                  guint         n_windows)
{
  CpTrace *trace = s->r.trace;
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);   /* CpStr → position + 1 */
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CpJobActivity));

  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *sl = cp_lane_get_slices (lane);

      if (cp_lane_get_kind (lane) != CP_LANE_HOST_THREAD && cp_lane_get_kind (lane) != CP_LANE_KERNEL)
        continue;
      for (guint w = 0; w < n_windows; w++)
        {
          gint64 t0 = windows[2 * w], t1 = windows[2 * w + 1];

          for (guint i = cp_lane_first_ending_after (lane, t0); i < sl->n; i++)
            {
              gint64 a = cp_slices_get_start (sl, i), b = cp_slices_get_end (sl, i), o;
              CpStr name = cp_slices_get_name (sl, i);
              const char *text;
              guint at;

              if (a >= t1)
                break;
              /* Spans of the whole capture ("PyTorch Profiler (0)") say nothing. */
              if (2 * (b - a) > cp_trace_get_duration (trace))
                continue;
              o = MIN (b, t1) - MAX (a, t0);
              if (o <= 0)
                continue;
              text = cp_trace_get_string (trace, name);
              if ((cp_classify_name (text) & (CP_NAME_STEP | CP_NAME_COLLECTIVE | CP_NAME_HOST_COMM)) ||
                  g_str_has_prefix (text, "nccl:"))
                continue;
              at = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (name)));
              if (at == 0)
                {
                  CpJobActivity act = { text, 0, 0 };

                  g_array_append_val (out, act);
                  at = out->len;
                  g_hash_table_insert (index, GUINT_TO_POINTER (name), GUINT_TO_POINTER (at));
                }
              g_array_index (out, CpJobActivity, at - 1).ns += o;
              g_array_index (out, CpJobActivity, at - 1).depth = (guint) sl->row[i] + 1;
            }
        }
    }
  return out;
}

const char *
_cp_job_mostly (const CpJobActivity *acts,
                guint                n)
{
  gint64 best = 0;
  const char *best_name = NULL;
  guint best_depth = 0;

  for (guint i = 0; i < n; i++)
    best = MAX (best, acts[i].ns);
  for (guint i = 0; i < n && best > 0; i++)
    if (acts[i].ns * 5 >= best * 4 && (best_name == NULL || acts[i].depth > best_depth))
      {
        best_depth = acts[i].depth;
        best_name = acts[i].name;
      }
  return best_name;
}

/* A merged rank's activities before its collectives listed, by name. */
static GArray *
activity_before (Slot        *s,
                 const guint *colls,
                 guint        n)
{
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CpJobActivity));

  for (guint c = 0; c < n; c++)
    for (guint j = 0; j < CP_JOB_BEFORE; j++)
      {
        const CpJobActivity *a = &s->before[colls[c] * CP_JOB_BEFORE + j];
        guint at;

        if (a->name == NULL)
          break;
        at = GPOINTER_TO_UINT (g_hash_table_lookup (index, a->name));
        if (at == 0)
          {
            CpJobActivity act = { a->name, 0, 0 };

            g_array_append_val (out, act);
            at = out->len;
            g_hash_table_insert (index, (gpointer) a->name, GUINT_TO_POINTER (at));
          }
        g_array_index (out, CpJobActivity, at - 1).ns += a->ns;
        g_array_index (out, CpJobActivity, at - 1).depth = MAX (g_array_index (out, CpJobActivity, at - 1).depth,
                                                                 a->depth);
      }
  return out;
}

/* What the ranks other than skip spent in their windows, and how many
 * steps they had: the step time a share of waiting is a share of. */
static void
waiting_ranks_steps (CpJob  *self,
                     guint   skip,
                     gint64 *window,
                     gint64 *steps)
{
  *window = 0;
  *steps = 0;
  for (guint k = 0; k < self->n_ranks; k++)
    if (k != skip)
      {
        const CpJobRank *r = &self->slots[self->order[k]].r;

        *window = cp_sat_add (*window, r->window_time);
        *steps += MAX (r->n_steps, 1u);
      }
}

static void
find_straggler (CpJob *self)
{
  guint worst = 0, n_last = 0;
  gint64 total = 0, per_rank, waiting_window, waiting_steps;
  Slot *s;
  g_autofree gint64 *windows = NULL;
  g_autofree guint *last_colls = NULL;
  g_autoptr(GArray) acts = NULL;
  g_autofree char *what = NULL, *wait = NULL, *each = NULL, *a_step = NULL, *mean = NULL, *summary = NULL;
  guint n_windows = 0;
  double share;
  CpJobFinding *f;

  if (self->n_ranks < 2)
    return;
  for (guint k = 0; k < self->n_ranks; k++)
    {
      total = cp_sat_add (total, self->slots[self->order[k]].r.caused_wait);
      if (self->slots[self->order[k]].r.caused_wait > self->slots[self->order[worst]].r.caused_wait)
        worst = k;
    }
  s = &self->slots[self->order[worst]];
  if (s->r.caused_wait <= 0 || s->r.caused_wait * 2 < total)
    return;
  per_rank = s->r.caused_wait / (self->n_ranks - 1);
  /* Its wait is the others' time: a share of their steps, not its own. */
  waiting_ranks_steps (self, worst, &waiting_window, &waiting_steps);
  share = waiting_window > 0 ? (double) s->r.caused_wait / waiting_window : 0;
  if (share < STRAGGLER_MODERATE)
    return;

  /* Its timeline while the others waited: from the second-last arrival
   * to its own; a rank merged from its summary has what it did between
   * the previous collective and these. */
  windows = g_new (gint64, 2 * self->n_colls);
  last_colls = g_new (guint, self->n_colls);
  for (guint c = 0; c < self->n_colls; c++)
    {
      const CpJobCollective *jc = &self->colls[c];
      gint64 second = jc->first_arrival;

      if (jc->last_rank != worst)
        continue;
      n_last++;
      for (guint k = 0; k < self->n_ranks; k++)
        if (k != worst)
          second = MAX (second, jc->arrival[k]);
      windows[2 * n_windows] = second - s->to_job;
      windows[2 * n_windows + 1] = jc->last_arrival - s->to_job;
      last_colls[n_windows] = jc->slices[worst].index;
      n_windows++;
    }
  acts = s->r.trace != NULL ? _cp_job_activity (s, windows, n_windows) : activity_before (s, last_colls, n_windows);
  if (_cp_job_mostly ((const CpJobActivity *) acts->data, acts->len) != NULL)
    what = g_strdup (_cp_job_mostly ((const CpJobActivity *) acts->data, acts->len));
  wait = cp_format_ns (s->r.caused_wait);
  each = cp_format_ns (per_rank);
  a_step = cp_format_ns (s->r.caused_wait / waiting_steps);
  mean = cp_format_ns (waiting_window / waiting_steps);
  if (what != NULL)
    summary = g_strdup_printf (_("Rank %d arrived last at %u of %u collectives; the other ranks waited %s for it "
                                 "(%s each; %s a step, %.0f%% of the waiting ranks’ mean step of %s). "
                                 "Meanwhile it was mostly in “%s”."),
                               s->r.rank, n_last, self->n_colls, wait, each, a_step, 100 * share, mean, what);
  else
    summary = g_strdup_printf (_("Rank %d arrived last at %u of %u collectives; the other ranks waited %s for it "
                                 "(%s each; %s a step, %.0f%% of the waiting ranks’ mean step of %s)."),
                               s->r.rank, n_last, self->n_colls, wait, each, a_step, 100 * share, mean);
  f = add (self, "job-straggler", share >= STRAGGLER_HIGH ? CP_SEVERITY_HIGH : CP_SEVERITY_MODERATE, s->r.rank,
           per_rank, g_strdup_printf (_("Rank %d is the straggler"), s->r.rank), g_steal_pointer (&summary));
  set_fixes (f,
             N_("Look at what the straggler does before each collective (its input loading, logging or "
                "checkpoints on one rank only, a slower or throttled GPU) and even it out or move it off the step"),
             N_("With DDP, use no_sync() during gradient accumulation so ranks meet once per optimiser step, "
                "and a larger bucket_cap_mb so fewer all-reduces wait for the slowest rank"),
             N_("Collectives wait for the slowest process: check its input pipeline and host work, and shard "
                "the data evenly across processes"),
             N_("Balance the input shards across workers and keep chief-only work (checkpoints, summaries) "
                "out of the training step"));
}

static void
find_exposed (CpJob *self)
{
  guint worst = 0;
  double worst_share = 0;
  GString *list = g_string_new (NULL);
  Slot *s;
  CpJobFinding *f;
  g_autofree char *t = NULL;

  for (guint k = 0; k < self->n_ranks; k++)
    {
      Slot *r = &self->slots[self->order[k]];
      gint64 win = r->r.window_time;
      double share = win > 0 ? (double) r->r.exposed_comm / win : 0;
      g_autofree char *e = cp_format_ns (r->r.exposed_comm);

      if (k < 8)
        g_string_append_printf (list, "%s%d: %s (%.0f%%)", k > 0 ? ", " : "", r->r.rank, e, 100 * share);
      if (share > worst_share)
        {
          worst_share = share;
          worst = k;
        }
    }
  if (self->n_ranks > 8)
    g_string_append (list, ", …");
  if (worst_share < EXPOSED_MODERATE)
    {
      g_string_free (list, TRUE);
      return;
    }
  s = &self->slots[self->order[worst]];
  t = cp_format_ns (s->r.exposed_comm);
  f = add (self, "job-exposed-comm", worst_share >= EXPOSED_HIGH ? CP_SEVERITY_HIGH : CP_SEVERITY_MODERATE,
           s->r.rank, s->r.exposed_comm,
           g_strdup (_("Communication is not hidden by compute")),
           g_strdup_printf (_("On rank %d, %s (%.0f%% of its step time) is in collectives that no compute overlaps. "
                              "Exposed communication per rank: %s."),
                            s->r.rank, t, 100 * worst_share, list->str));
  g_string_free (list, TRUE);
  set_fixes (f,
             N_("DDP overlaps all-reduce with backward bucket by bucket: tune bucket_cap_mb (smaller buckets start "
                "sooner) and avoid find_unused_parameters=True, which holds the first bucket back"),
             N_("With FSDP, set forward_prefetch=True and backward_prefetch=BACKWARD_PRE so the next all-gather "
                "runs under the current layer’s compute"),
             N_("Let XLA overlap collectives with compute: --xla_gpu_enable_async_collectives and "
                "--xla_gpu_enable_latency_hiding_scheduler in XLA_FLAGS"),
             N_("Pack gradients with tf.distribute.experimental.CommunicationOptions(bytes_per_pack=…) so "
                "all-reduce starts during the backward pass"));
}

/* The rank the others wait for: the most caused_wait (the first of
 * equals), and at how many collectives it came last. */
static guint
waited_for (CpJob  *self,
            guint  *n_last,
            gint64 *total)
{
  guint w = 0;

  *total = 0;
  *n_last = 0;
  for (guint k = 0; k < self->n_ranks; k++)
    {
      *total = cp_sat_add (*total, self->slots[self->order[k]].r.caused_wait);
      if (self->slots[self->order[k]].r.caused_wait > self->slots[self->order[w]].r.caused_wait)
        w = k;
    }
  for (guint c = 0; c < self->n_colls; c++)
    *n_last += self->colls[c].last_rank == w;
  return w;
}

/* Compute per step differs across the ranks. It costs the others time
 * only when the busiest rank is the one they wait for and its extra
 * compute (what the others would wait for it if every rank started each
 * step together) is a good part of that wait; else it is a note. */
static void
find_imbalance (CpJob *self)
{
  gint64 lo = G_MAXINT64, hi = 0, excess = 0, total, explained, caused;
  guint k_hi = 0, k_lo = 0, w, n_last;
  double spread, share;
  gboolean costs;
  Slot *s;
  CpJobFinding *f;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *summary = NULL;

  if (self->n_ranks < 2)
    return;
  for (guint k = 0; k < self->n_ranks; k++)
    {
      gint64 v = self->slots[self->order[k]].r.compute_time;

      if (v > hi)
        hi = v, k_hi = k;
      if (v < lo)
        lo = v, k_lo = k;
    }
  if (hi <= 0)
    return;
  spread = (double) (hi - lo) / hi;
  if (spread < IMBALANCE_MODERATE)
    return;
  s = &self->slots[self->order[k_hi]];
  for (guint k = 0; k < self->n_ranks; k++)
    excess = cp_sat_add (excess, (hi - self->slots[self->order[k]].r.compute_time) * MAX (s->r.n_steps, 1u));
  w = waited_for (self, &n_last, &total);
  caused = s->r.caused_wait;
  explained = MIN (excess, caused);
  share = caused > 0 ? (double) explained / caused : 0;
  costs = w == k_hi && caused > 0 && share >= IMBALANCE_EXPLAINS;
  a = cp_format_ns (hi);
  b = cp_format_ns (lo);
  c = cp_format_ns (caused);
  if (costs)
    summary = g_strdup_printf (_("Compute per step is %s on rank %d but %s on rank %d (%.0f%% less). The others "
                                 "wait for rank %d: it arrived last at %u of %u collectives, and its extra compute "
                                 "accounts for %.0f%% of the %s they waited for it."),
                               a, s->r.rank, b, self->slots[self->order[k_lo]].r.rank, 100 * spread, s->r.rank,
                               n_last, self->n_colls, 100 * share, c);
  else if (total <= 0)
    summary = g_strdup_printf (_("Compute per step is %s on rank %d but %s on rank %d (%.0f%% less), but no rank "
                                 "waited for another at the collectives."),
                               a, s->r.rank, b, self->slots[self->order[k_lo]].r.rank, 100 * spread);
  else if (w != k_hi)
    summary = g_strdup_printf (_("Compute per step is %s on rank %d but %s on rank %d (%.0f%% less), but the others "
                                 "do not wait for rank %d: rank %d caused %.0f%% of the waiting at the collectives, "
                                 "so evening out the compute would save little."),
                               a, s->r.rank, b, self->slots[self->order[k_lo]].r.rank, 100 * spread, s->r.rank,
                               self->slots[self->order[w]].r.rank,
                               total > 0 ? 100.0 * self->slots[self->order[w]].r.caused_wait / total : 0.0);
  else
    summary = g_strdup_printf (_("Compute per step is %s on rank %d but %s on rank %d (%.0f%% less). The others "
                                 "wait for rank %d, but its extra compute accounts for only %.0f%% of the %s they "
                                 "waited for it; compute does not explain the rest."),
                               a, s->r.rank, b, self->slots[self->order[k_lo]].r.rank, 100 * spread, s->r.rank,
                               100 * share, c);
  f = add (self, "job-load-imbalance",
           !costs ? CP_SEVERITY_INFO : spread >= IMBALANCE_HIGH ? CP_SEVERITY_HIGH : CP_SEVERITY_MODERATE,
           s->r.rank, explained / (self->n_ranks - 1),
           g_strdup (costs ? _("The ranks do unequal work") : _("Compute per step differs across ranks")),
           g_steal_pointer (&summary));
  set_fixes (f,
             N_("Give every rank the same work: DistributedSampler with drop_last=True, sequences of equal "
                "length per rank (bucketing or packing), balanced pipeline stages or experts"),
             NULL,
             N_("Shard the batch evenly across processes, with equal local shapes on each"),
             N_("Use tf.data shard() with equal shards per worker and drop_remainder=True"));
}

static void
find_mismatch (CpJob *self)
{
  const char *first = NULL;
  CpJobFinding *f;

  if (self->n_mismatches == 0)
    return;
  for (guint c = 0; c < self->n_colls && first == NULL; c++)
    first = self->colls[c].mismatch;
  f = add (self, "job-collective-mismatch", CP_SEVERITY_HIGH, -1, 0,
           g_strdup (_("Collectives do not match across ranks")),
           first != NULL ?
           g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%u collective differs across ranks; the first: %s. A real run hangs "
                                         "or reduces the wrong data when ranks disagree.",
                                         "%u collectives differ across ranks; the first: %s. A real run hangs "
                                         "or reduces the wrong data when ranks disagree.", self->n_mismatches),
                            self->n_mismatches, first) :
           g_strdup (_("The ranks issued different numbers of collectives (see the notes). A real run hangs "
                       "when ranks disagree.")));
  set_fixes (f,
             N_("Make every rank call the same collectives in the same order with the same shapes and dtypes: "
                "look for branches on the rank around all_reduce, broadcast or barrier"),
             N_("Run with TORCH_DISTRIBUTED_DEBUG=DETAIL so c10d checks the order and shapes of collectives"),
             N_("Keep collectives independent of jax.process_index(): every process must run the same program"),
             N_("Run the same replica function on every worker, issuing collectives in one order"));
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Per operation and group size: the collectives far below the median bus
 * bandwidth of their kind. */
static void
find_slow_links (CpJob *self)
{
  g_autofree gboolean *done = g_new0 (gboolean, self->n_colls);
  g_autofree double *bw = g_new (double, self->n_colls);

  for (guint c = 0; c < self->n_colls; c++)
    {
      const CpJobCollective *a = &self->colls[c];
      guint n = 0, n_slow = 0, slowest = G_MAXUINT;
      gint64 lost = 0;
      double median;
      CpJobFinding *f;
      g_autofree char *mb = NULL, *sb = NULL, *t = NULL;

      if (done[c] || !isfinite (a->bus_bandwidth))
        continue;
      for (guint d = c; d < self->n_colls; d++)
        {
          const CpJobCollective *b = &self->colls[d];

          if (!done[d] && isfinite (b->bus_bandwidth) && b->group_size == a->group_size &&
              strcmp (b->name, a->name) == 0)
            {
              done[d] = TRUE;
              bw[n++] = b->bus_bandwidth;
            }
        }
      if (n < SLOW_LINK_MIN)
        continue;
      qsort (bw, n, sizeof (double), compare_doubles);
      median = bw[n / 2];
      for (guint d = c; d < self->n_colls; d++)
        {
          const CpJobCollective *b = &self->colls[d];

          if (isfinite (b->bus_bandwidth) && b->group_size == a->group_size && strcmp (b->name, a->name) == 0 &&
              b->bus_bandwidth < SLOW_LINK_SHARE * median)
            {
              n_slow++;
              lost += b->transfer_time - (gint64) (b->transfer_time * b->bus_bandwidth / median);
              if (slowest == G_MAXUINT || b->bus_bandwidth < self->colls[slowest].bus_bandwidth)
                slowest = d;
            }
        }
      if (n_slow == 0)
        continue;
      mb = g_strdup_printf ("%.2f GB/s", median);
      sb = g_strdup_printf ("%.2f GB/s", self->colls[slowest].bus_bandwidth);
      t = cp_format_ns (lost);
      f = add (self, "job-slow-link", CP_SEVERITY_MODERATE, -1, lost,
               g_strdup (_("Some collectives run far below the usual bandwidth")),
               g_strdup_printf (_("%u of %u %s collectives of group size %d reached under half their median bus "
                                  "bandwidth of %s; the slowest, %s#%u, %s. At the median they would have taken %s less."),
                                n_slow, n, a->name, a->group_size, mb, self->colls[slowest].group,
                                self->colls[slowest].index, sb, t));
      set_fixes (f,
                 N_("Check the links those collectives crossed: NCCL_DEBUG=INFO shows the transport and topology "
                    "chosen, and a slow NIC, PCIe switch or a degraded NVLink shows in nccl-tests' bus bandwidth"),
                 N_("Keep other traffic (checkpoint uploads, data loading over the same network) off the "
                    "training interconnect"),
                 N_("Check the interconnect with XLA's collective benchmarks and look for hosts with slower links"),
                 N_("Check the interconnect between workers and keep other traffic off it"));
    }
}

static gint
compare_findings (gconstpointer a,
                  gconstpointer b)
{
  const CpJobFinding *x = a, *y = b;

  if (x->severity != y->severity)
    return x->severity > y->severity ? -1 : 1;
  return (x->time_at_stake < y->time_at_stake) - (x->time_at_stake > y->time_at_stake);
}

void
cp_job_find (CpJob *self)
{
  find_mismatch (self);
  find_straggler (self);
  find_exposed (self);
  find_imbalance (self);
  find_slow_links (self);
  g_array_sort (self->findings, compare_findings);
}
