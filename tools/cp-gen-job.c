/* cp-gen-job.c: `cp-gen --job DIR`: the ranks of a simulated data-parallel run
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   cp-gen --job DIR [--ranks N] [--steps S] [--seed S] [--straggler R --delay NS]
 *          [--heavy R --extra NS] [--hosts H --host-offset NS] [--mismatch K]
 *          [--slow-link K] [--no-distributed-info]
 *          [--format kineto|xplane] [--truth FILE.json]
 *
 * Simulates N ranks (one GPU each) of a DDP-like loop in one true time: per
 * step, a host "slow_data_loading" annotation on the straggler only (delay
 * ns), two compute kernels, each followed by an all_reduce of 4 MiB float
 * (ncclDevKernel_AllReduce on its own stream, a record_param_comms with its
 * size before it). A collective starts on a rank when its compute is done
 * and ends on every rank at the same true time (the last arrival plus the
 * transfer) plus a jitter below the latency (2 µs). Ranks are spread over H
 * hosts; host h's clock reads true time + h × host-offset, and each file
 * says its "hostname". --mismatch K gives rank N−1's K-th collective half
 * the elements; --slow-link K makes the K-th collective's transfer 4 times
 * longer (a slow link); --heavy R gives rank R's first compute kernel of
 * each step extra ns more work (more compute, which the straggler's data
 * loading may hide). Writes DIR/rank-R.pt.trace.json and the truth: per rank the
 * clock offset a reader must add to align it with rank 0, and per
 * collective the true arrivals, ends, skew and last rank.
 *
 * --format xplane writes the same run as a multi-host JAX job on TPUs
 * instead, DIR being the TensorBoard run folder: DIR/worker-R.xplane.pb,
 * one process with one TPU per rank, its XSpace naming its host. The XLA
 * Ops line holds a loop fusion (the compute) before each collective; the
 * first collective of a step is a synchronous all-reduce, the second an
 * async pair (all-reduce-start at the arrival, all-reduce-done to the end),
 * both of f32[1048576] over replica_groups of every rank; XLA Modules has
 * one jit_train_step per step, the host a PjitFunction(train_step) and the
 * straggler's slow_data_loading. No distributedInfo: the ranks are the
 * files' order.
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>

#include <glib/gstdio.h>

#include "cp-gen.h"
#include "cp-gen-xla.h"

#define LATENCY_NS   2000
#define NELEMS       (1 << 20)
#define TRANSFER_NS  800000
#define COMPUTE_NS   8000000
#define STEP_GAP_NS  300000

typedef struct
{
  gint64 *arrival;   /* [rank] true ns */
  gint64 *end;
} Coll;

/* Rank r's capture as a JAX process on one TPU (see above). */
static gboolean
write_xplane_rank (const char  *dir,
                   int          r,
                   int          ranks,
                   int          hosts,
                   gint64       off,
                   int          steps,
                   const Coll  *colls,
                   gint64     **comp,
                   gint64     **load,
                   int          straggler,
                   gint64       delay,
                   int          mismatch,
                   GError     **error)
{
  CpGenXSpace *sp = cp_gen_xspace_new ();
  CpGenXPlane *tpu = cp_gen_xspace_plane (sp, 1, "/device:TPU:0");
  CpGenXLine *mods = cp_gen_xspace_line (tpu, 1, "XLA Modules");
  CpGenXLine *ops = cp_gen_xspace_line (tpu, 2, "XLA Ops");
  CpGenXPlane *host = cp_gen_xspace_plane (sp, 2, "/host:CPU");
  CpGenXLine *py = cp_gen_xspace_line (host, 100, "python3");
  g_autofree char *name = g_strdup_printf ("worker-%d.xplane.pb", r);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *hostname = g_strdup_printf ("host-%d", r * hosts / ranks);
  GString *groups = g_string_new ("{{");
  gboolean ok;

  for (int k = 0; k < ranks; k++)
    g_string_append_printf (groups, "%s%d", k ? "," : "", k);
  g_string_append (groups, "}}");
  for (int s = 0; s < steps; s++)
    {
      gint64 s0 = load[r][s] + off, s1 = colls[2 * s + 1].end[r] + off;

      cp_gen_xspace_event (host, py, "PjitFunction(train_step)", s0, 50000, NULL);
      if (r == straggler)
        cp_gen_xspace_event (host, py, "slow_data_loading", s0 + 50000, delay, NULL);
      cp_gen_xspace_event (tpu, mods, "jit_train_step(4242)", comp[r][2 * s] + off, s1 - comp[r][2 * s] - off, NULL);
      for (int part = 0; part < 2; part++)
        {
          guint k = 2 * s + part;
          const Coll *c = &colls[k];
          gint64 c0 = comp[r][k] + off, a = c->arrival[r] + off, e = c->end[r] + off;
          gint64 nelems = (mismatch == (int) k && r == ranks - 1) ? NELEMS / 2 : NELEMS;
          g_autofree char *fusion = g_strdup_printf ("%%fusion.%d = f32[%" G_GINT64_FORMAT "]{0} fusion(%%p.%d), "
                                                     "kind=kLoop", part, nelems, part);

          cp_gen_xspace_event (tpu, ops, fusion, c0, a - c0, "loop fusion");
          if (part == 0)
            {
              g_autofree char *ar = g_strdup_printf ("%%all-reduce.%d = f32[%" G_GINT64_FORMAT "]{0} "
                                                     "all-reduce(%%fusion.%d), channel_id=%d, replica_groups=%s, "
                                                     "to_apply=%%add", part, nelems, part, part + 1, groups->str);

              cp_gen_xspace_event (tpu, ops, ar, a, e - a, "all-reduce");
            }
          else
            {
              g_autofree char *start = g_strdup_printf ("%%all-reduce-start.%d = f32[%" G_GINT64_FORMAT "]{0} "
                                                        "all-reduce-start(%%fusion.%d), channel_id=%d, "
                                                        "replica_groups=%s, to_apply=%%add",
                                                        part, nelems, part, part + 1, groups->str);
              g_autofree char *done = g_strdup_printf ("%%all-reduce-done.%d = f32[%" G_GINT64_FORMAT "]{0} "
                                                       "all-reduce-done(%%all-reduce-start.%d)", part, nelems, part);

              cp_gen_xspace_event (tpu, ops, start, a, 2000, "all-reduce-start");
              cp_gen_xspace_event (tpu, ops, done, a + 2000, e - a - 2000, "all-reduce-done");
            }
        }
    }
  g_string_free (groups, TRUE);
  ok = cp_gen_xspace_write (sp, path, hostname, colls[2 * steps - 1].end[r] + off + 1000000, error);
  cp_gen_xspace_free (sp);
  return ok;
}

static void
json_ts (FILE   *f,
         gint64  ns)
{
  /* µs with three decimals: exact ns. */
  fprintf (f, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int) (ns % 1000));
}

static void
event (FILE       *f,
       gboolean   *first,
       const char *cat,
       const char *name,
       gint64      pid,
       gint64      tid,
       gint64      start,
       gint64      dur,
       const char *args)
{
  fprintf (f, "%s\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %" G_GINT64_FORMAT
           ", \"tid\": %" G_GINT64_FORMAT ", \"ts\": ", *first ? "" : ",", cat, name, pid, tid);
  json_ts (f, start);
  fprintf (f, ", \"dur\": ");
  json_ts (f, dur);
  if (args != NULL)
    fprintf (f, ", \"args\": %s", args);
  fprintf (f, "}");
  *first = FALSE;
}

int
cp_gen_job_main (int    argc,
                 char **argv)
{
  g_autofree char *dir = NULL, *truth_path = NULL;
  int ranks = 8, steps = 4, straggler = -1, hosts = 1, mismatch = -1, slow_link = -1, heavy = -1;
  gint64 delay = 0, host_offset = 0, extra = 0;
  gint64 seed = 1;
  gboolean no_info = FALSE;
  g_autofree char *format = NULL;
  GOptionEntry entries[] = {
    { "job", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Folder to write the ranks' captures in", "DIR" },
    { "ranks", 0, 0, G_OPTION_ARG_INT, &ranks, "Number of ranks (default 8)", "N" },
    { "steps", 'n', 0, G_OPTION_ARG_INT, &steps, "Steps (default 4)", "S" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 1)", "S" },
    { "straggler", 0, 0, G_OPTION_ARG_INT, &straggler, "The rank that is late", "R" },
    { "delay", 0, 0, G_OPTION_ARG_INT64, &delay, "How late it is each step, ns", "NS" },
    { "heavy", 0, 0, G_OPTION_ARG_INT, &heavy, "The rank with more compute", "R" },
    { "extra", 0, 0, G_OPTION_ARG_INT64, &extra, "How much more compute it has each step, ns", "NS" },
    { "hosts", 0, 0, G_OPTION_ARG_INT, &hosts, "Hosts the ranks are spread over (default 1)", "H" },
    { "host-offset", 0, 0, G_OPTION_ARG_INT64, &host_offset, "Host h's clock is h × this ahead, ns", "NS" },
    { "mismatch", 0, 0, G_OPTION_ARG_INT, &mismatch, "The last rank's K-th collective has half the size", "K" },
    { "slow-link", 0, 0, G_OPTION_ARG_INT, &slow_link, "The K-th collective's transfer takes 4 times longer", "K" },
    { "no-distributed-info", 0, 0, G_OPTION_ARG_NONE, &no_info, "Leave distributedInfo and hostname out", NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "kineto (default) or xplane (a multi-host JAX job on TPUs)", "F" },
    { "truth", 't', 0, G_OPTION_ARG_FILENAME, &truth_path, "Write the ground truth here", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("--job DIR - write the ranks of a simulated run");
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) rand = NULL;
  guint n_colls;
  Coll *colls;
  gint64 t = 1000000000;   /* true ns */
  gint64 **comp = NULL;    /* [rank][2 × step + part] compute start */
  gint64 **load = NULL;    /* [rank][step] data loading start */
  FILE *truth = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("cp-gen: %s\n", error->message);
      return 2;
    }
  if (dir == NULL || ranks < 1 || ranks > 4096 || steps < 1 || steps > 1000000 || hosts < 1 || hosts > ranks ||
      straggler >= ranks || delay < 0 || (straggler >= 0) != (delay > 0) ||
      heavy >= ranks || extra < 0 || extra > 1000000000 || (heavy >= 0) != (extra > 0))
    {
      g_printerr ("cp-gen: --job DIR with 1 ≤ --ranks ≤ 4096, 1 ≤ --steps ≤ 1000000, 1 ≤ --hosts ≤ ranks, "
                  "--straggler R < ranks with --delay NS > 0 together, and --heavy R < ranks with "
                  "0 < --extra NS ≤ 1 s together\n");
      return 2;
    }
  if (format != NULL && !g_str_equal (format, "kineto") && !g_str_equal (format, "xplane"))
    {
      g_printerr ("cp-gen: --format is kineto or xplane, not “%s”\n", format);
      return 2;
    }
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_printerr ("cp-gen: cannot create %s: %s\n", dir, g_strerror (errno));
      return 1;
    }
  rand = g_rand_new_with_seed ((guint32) seed);
  n_colls = 2 * (guint) steps;
  colls = g_new0 (Coll, n_colls);
  comp = g_new0 (gint64 *, ranks);
  load = g_new0 (gint64 *, ranks);
  for (int r = 0; r < ranks; r++)
    {
      comp[r] = g_new0 (gint64, n_colls);
      load[r] = g_new0 (gint64, steps);
    }

  /* True time. */
  for (int s = 0; s < steps; s++)
    for (int part = 0; part < 2; part++)
      {
        Coll *c = &colls[2 * s + part];
        gint64 last = 0;

        c->arrival = g_new (gint64, ranks);
        c->end = g_new (gint64, ranks);
        for (int r = 0; r < ranks; r++)
          {
            gint64 at = t;

            if (part == 0)
              {
                load[r][s] = at;
                if (r == straggler)
                  at += delay;
              }
            comp[r][2 * s + part] = at;
            at += COMPUTE_NS + g_rand_int_range (rand, 0, 400) * 1000;
            if (part == 0 && r == heavy)
              at += extra;
            c->arrival[r] = at;
            last = MAX (last, at);
          }
        {
          gint64 transfer = (2 * s + part == slow_link) ? 4 * TRANSFER_NS : TRANSFER_NS;

          for (int r = 0; r < ranks; r++)
            c->end[r] = last + transfer + g_rand_int_range (rand, 0, LATENCY_NS);
          t = last + transfer + LATENCY_NS + (part == 1 ? STEP_GAP_NS : 0);
        }
      }

  for (int r = 0; r < ranks; r++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%d.pt.trace.json", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      FILE *f = NULL;
      gint64 off = (gint64) (r * hosts / ranks) * host_offset;
      gint64 pid = 1000 + r;
      gboolean first = TRUE;

      if (format != NULL && g_str_equal (format, "xplane"))
        {
          if (!write_xplane_rank (dir, r, ranks, hosts, off, steps, colls, comp, load, straggler, delay, mismatch,
                                  &error))
            {
              g_printerr ("cp-gen: %s\n", error->message);
              return 1;
            }
          continue;
        }
      f = g_fopen (path, "w");
      if (f == NULL)
        {
          g_printerr ("cp-gen: cannot create %s: %s\n", path, g_strerror (errno));
          return 1;
        }
      fprintf (f, "{\n\"schemaVersion\": 1,\n");
      if (!no_info)
        fprintf (f, "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
                    "\"hostname\": \"host-%d\",\n", r, ranks, r * hosts / ranks);
      fprintf (f, "\"traceEvents\": [");
      for (int s = 0; s < steps; s++)
        {
          g_autofree char *step = g_strdup_printf ("ProfilerStep#%d", s);
          gint64 s0 = load[r][s] + off, s1 = colls[2 * s + 1].end[r] + off + STEP_GAP_NS / 2;

          event (f, &first, "user_annotation", step, pid, pid, s0, s1 - s0, NULL);
          if (r == straggler)
            event (f, &first, "user_annotation", "slow_data_loading", pid, pid, s0, delay, NULL);
          for (int part = 0; part < 2; part++)
            {
              guint k = 2 * s + part;
              Coll *c = &colls[k];
              gint64 c0 = comp[r][k] + off, a = c->arrival[r] + off, e = c->end[r] + off;
              gint64 nelems = (mismatch == (int) k && r == ranks - 1) ? NELEMS / 2 : NELEMS;
              g_autofree char *args = g_strdup_printf ("{\"Collective name\": \"allreduce\", \"In msg nelems\": %"
                                                       G_GINT64_FORMAT ", \"Out msg nelems\": %" G_GINT64_FORMAT
                                                       ", \"dtype\": \"Float\", \"Group size\": %d, "
                                                       "\"Process Group Name\": \"0\"}", nelems, nelems, ranks);
              g_autofree char *kargs = g_strdup_printf ("{\"device\": %d, \"stream\": 7}", r);
              g_autofree char *cargs = g_strdup_printf ("{\"device\": %d, \"stream\": 20}", r);

              event (f, &first, "cpu_op", "aten::mm", pid, pid, c0, 20000, NULL);
              event (f, &first, "kernel", "sgemm_128x64_nn", r, 7, c0 + 20000, a - c0 - 20000, kargs);
              event (f, &first, "cpu_op", "record_param_comms", pid, pid, a - 30000, 10000, args);
              event (f, &first, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", r, 20, a, e - a, cargs);
            }
        }
      fprintf (f, "\n]\n}\n");
      if (fclose (f) != 0)
        {
          g_printerr ("cp-gen: cannot write %s: %s\n", path, g_strerror (errno));
          return 1;
        }
    }

  if (truth_path != NULL)
    {
      truth = g_fopen (truth_path, "w");
      if (truth == NULL)
        {
          g_printerr ("cp-gen: cannot create %s: %s\n", truth_path, g_strerror (errno));
          return 1;
        }
      fprintf (truth, "{\n  \"ranks\": %d,\n  \"hosts\": %d,\n  \"straggler\": %d,\n  \"delay_ns\": %" G_GINT64_FORMAT
               ",\n  \"heavy\": %d,\n  \"extra_ns\": %" G_GINT64_FORMAT
               ",\n  \"latency_ns\": %d,\n  \"mismatch\": %d,\n  \"slow_link\": %d,\n  \"bytes\": %d,\n  \"clock_offset_ns\": [",
               ranks, hosts, straggler, delay, heavy, extra, LATENCY_NS, mismatch, slow_link, NELEMS * 4);
      for (int r = 0; r < ranks; r++)
        fprintf (truth, "%s%" G_GINT64_FORMAT, r ? ", " : "", -(gint64) (r * hosts / ranks) * host_offset);
      /* The compute kernels' time a step, as written: the Kineto kernel
       * starts after its aten::mm's 20 µs, the XLA fusion with it. */
      fprintf (truth, "],\n  \"compute_per_step_ns\": [");
      for (int r = 0; r < ranks; r++)
        {
          gint64 sum = 0;
          gboolean xplane = format != NULL && g_str_equal (format, "xplane");

          for (guint k = 0; k < n_colls; k++)
            sum += colls[k].arrival[r] - comp[r][k] - (xplane ? 0 : 20000);
          fprintf (truth, "%s%" G_GINT64_FORMAT, r ? ", " : "", sum / steps);
        }
      fprintf (truth, "],\n  \"collectives\": [");
      for (guint k = 0; k < n_colls; k++)
        {
          int last = 0;

          for (int r = 1; r < ranks; r++)
            if (colls[k].arrival[r] > colls[k].arrival[last])
              last = r;
          fprintf (truth, "%s\n    {\"arrival_ns\": [", k ? "," : "");
          for (int r = 0; r < ranks; r++)
            fprintf (truth, "%s%" G_GINT64_FORMAT, r ? ", " : "", colls[k].arrival[r]);
          fprintf (truth, "], \"end_ns\": [");
          for (int r = 0; r < ranks; r++)
            fprintf (truth, "%s%" G_GINT64_FORMAT, r ? ", " : "", colls[k].end[r]);
          fprintf (truth, "], \"last_rank\": %d}", last);
        }
      fprintf (truth, "\n  ]\n}\n");
      if (fclose (truth) != 0)
        {
          g_printerr ("cp-gen: cannot write %s\n", truth_path);
          return 1;
        }
    }
  for (guint k = 0; k < n_colls; k++)
    {
      g_free (colls[k].arrival);
      g_free (colls[k].end);
    }
  g_free (colls);
  for (int r = 0; r < ranks; r++)
    {
      g_free (comp[r]);
      g_free (load[r]);
    }
  g_free (comp);
  g_free (load);
  return 0;
}
