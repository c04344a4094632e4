/* cp-gen-xla.c: XLA scenarios of cp-gen (JAX, TensorFlow, TPU), written as
 * XPlane captures with their ground truth
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Unlike the PyTorch simulation (cp-gen-sim.c), these scenarios lay out
 * what XLA's profiler writes for jitted programs: executions of a compiled
 * module, XLA ops on TPU planes, Steps lines on GPU planes, tf.data iterator
 * events on the host. Each scenario is a short deterministic schedule; the
 * truth is computed from the same schedule (the writer never reads back
 * what it wrote):
 *
 *   steps      steps the diagnosis must find
 *   warmup_ns  from the capture's first event to the first step
 *   devices    per device ordinal: window_ns (its own windows), busy_ns (time
 *              with a compute or collective op inside them) and async_ns
 *              (time with an async op, copy-start / copy-done, inside them)
 *   input_wait_percent  (tf.data) host time in IteratorGetNext with the
 *              device idle, % of step time; slowest_stage, its self time
 *              per step (slowest_stage_self_ns) and whether the pipeline
 *              prefetches
 *   host_wait_ns, apart_ns  (xla-tf-two-gpu-apart) per device, the idle
 *              time in its windows (the GPU waiting for its host to launch
 *              the step's work) and how long after GPU 0's its first step
 *              starts
 *   repeated_module, executions, device_busy_ns, busy_in_repeated_ns,
 *   repeated_kernel_ns, device_span_ns, busy_over_span_percent
 *              (xla-jax-bench-loop) the most executed module, each module's
 *              executions, all device busy time, the part inside the
 *              repeated module's executions (each from its ExecuteThunks to
 *              the end of its last kernel), that module's own kernel time
 *              (the same: nothing else runs inside them), and the span from
 *              the first device op's start to the last one's end with the
 *              busy share of it
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cp-gen-pb.h"
#include "cp-gen-xla.h"

#define MS(x) ((gint64) ((x) * 1000000.0))
#define US(x) ((gint64) ((x) * 1000.0))
#define T0 G_GINT64_CONSTANT (1760000000000000000)   /* epoch ns of the capture start */

/* ------------------------------------------------------------------------ */
/* A small in-memory XSpace. */

enum { XSPACE_PLANES = 1, XSPACE_HOSTNAMES = 4 };
enum { XPLANE_ID = 1, XPLANE_NAME = 2, XPLANE_LINES = 3, XPLANE_EVENT_MD = 4, XPLANE_STAT_MD = 5,
       XPLANE_STATS = 6 };
enum { XLINE_ID = 1, XLINE_NAME = 2, XLINE_TIMESTAMP_NS = 3, XLINE_EVENTS = 4 };
enum { XEVENT_METADATA_ID = 1, XEVENT_OFFSET_PS = 2, XEVENT_DURATION_PS = 3, XEVENT_STATS = 4 };
enum { XSTAT_METADATA_ID = 1, XSTAT_UINT64 = 3, XSTAT_INT64 = 4, XSTAT_STR = 5, XSTAT_REF = 7 };
enum { XMD_ID = 1, XMD_NAME = 2 };

typedef struct
{
  gint64      start;   /* ns from T0 */
  gint64      dur;
  const char *name;
  CpPbBuf     stats;   /* encoded XStats (field 4 of the event) */
} Ev;

typedef struct _CpGenXLine
{
  gint64  id;
  char   *name;
  GArray *events;      /* of Ev */
} Line;

typedef struct _CpGenXPlane
{
  gint64      id;
  char       *name;
  GPtrArray  *lines;   /* of Line* */
  GHashTable *event_ids;
  GPtrArray  *event_names;
  GHashTable *stat_ids;
  GPtrArray  *stat_names;
  CpPbBuf     stats;   /* plane stats (field 6) */
} Plane;

typedef struct _CpGenXSpace
{
  GPtrArray *planes;
  GString   *truth;    /* the scenario-specific truth members */
} Space;

static guint
intern (GHashTable *ids,
        GPtrArray  *names,
        const char *name)
{
  gpointer v;

  if (g_hash_table_lookup_extended (ids, name, NULL, &v))
    return GPOINTER_TO_UINT (v);
  g_ptr_array_add (names, g_strdup (name));
  g_hash_table_insert (ids, g_ptr_array_index (names, names->len - 1), GUINT_TO_POINTER (names->len));
  return names->len;
}

static Plane *
plane_new (Space      *sp,
           gint64      id,
           const char *name)
{
  Plane *p = g_new0 (Plane, 1);

  p->id = id;
  p->name = g_strdup (name);
  p->lines = g_ptr_array_new ();
  p->event_ids = g_hash_table_new (g_str_hash, g_str_equal);
  p->event_names = g_ptr_array_new_with_free_func (g_free);
  p->stat_ids = g_hash_table_new (g_str_hash, g_str_equal);
  p->stat_names = g_ptr_array_new_with_free_func (g_free);
  cp_pb_buf_init (&p->stats);
  g_ptr_array_add (sp->planes, p);
  return p;
}

static Line *
line_new (Plane      *p,
          gint64      id,
          const char *name)
{
  Line *l = g_new0 (Line, 1);

  l->id = id;
  l->name = g_strdup (name);
  l->events = g_array_new (FALSE, TRUE, sizeof (Ev));
  g_ptr_array_add (p->lines, l);
  return l;
}

static Ev *
ev_add (Line       *l,
        const char *name,
        gint64      start,
        gint64      dur)
{
  Ev e = { start, dur, name, { 0 } };

  cp_pb_buf_init (&e.stats);
  g_array_append_val (l->events, e);
  return &g_array_index (l->events, Ev, l->events->len - 1);
}

static void
stat_int (Plane      *p,
          Ev         *e,
          const char *key,
          gint64      v)
{
  CpPbBuf s;

  cp_pb_buf_init (&s);
  cp_pb_uint64 (&s, XSTAT_METADATA_ID, intern (p->stat_ids, p->stat_names, key));
  cp_pb_int64 (&s, XSTAT_INT64, v);
  cp_pb_message (&e->stats, XEVENT_STATS, &s);
  cp_pb_buf_clear (&s);
}

/* A string stat as a reference to a stat metadata name, as XLA writes
 * repeated strings. */
static void
stat_ref (Plane      *p,
          Ev         *e,
          const char *key,
          const char *value)
{
  CpPbBuf s;
  guint k = intern (p->stat_ids, p->stat_names, key);
  guint v = intern (p->stat_ids, p->stat_names, value);

  cp_pb_buf_init (&s);
  cp_pb_uint64 (&s, XSTAT_METADATA_ID, k);
  cp_pb_uint64 (&s, XSTAT_REF, v);
  cp_pb_message (&e->stats, XEVENT_STATS, &s);
  cp_pb_buf_clear (&s);
}

static void
plane_stat_str (Plane      *p,
                const char *key,
                const char *value)
{
  CpPbBuf s;

  cp_pb_buf_init (&s);
  cp_pb_uint64 (&s, XSTAT_METADATA_ID, intern (p->stat_ids, p->stat_names, key));
  cp_pb_string (&s, XSTAT_STR, value);
  cp_pb_message (&p->stats, XPLANE_STATS, &s);
  cp_pb_buf_clear (&s);
}

static void
plane_stat_uint (Plane      *p,
                 const char *key,
                 guint64     value)
{
  CpPbBuf s;

  cp_pb_buf_init (&s);
  cp_pb_uint64 (&s, XSTAT_METADATA_ID, intern (p->stat_ids, p->stat_names, key));
  cp_pb_uint64 (&s, XSTAT_UINT64, value);
  cp_pb_message (&p->stats, XPLANE_STATS, &s);
  cp_pb_buf_clear (&s);
}

static gint
cmp_ev (gconstpointer a,
        gconstpointer b)
{
  const Ev *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->dur > y->dur ? -1 : x->dur < y->dur);
}

static void
encode_space (Space      *sp,
              CpPbBuf    *out,
              const char *hostname,
              guint64    *n_events)
{
  CpPbBuf pb, lb, eb, md;

  cp_pb_buf_init (&pb);
  cp_pb_buf_init (&lb);
  cp_pb_buf_init (&eb);
  cp_pb_buf_init (&md);
  for (guint i = 0; i < sp->planes->len; i++)
    {
      Plane *p = g_ptr_array_index (sp->planes, i);

      cp_pb_buf_reset (&pb);
      if (p->id != 0)
        cp_pb_int64 (&pb, XPLANE_ID, p->id);
      cp_pb_string (&pb, XPLANE_NAME, p->name);
      for (guint k = 0; k < p->lines->len; k++)
        {
          Line *l = g_ptr_array_index (p->lines, k);

          g_array_sort (l->events, cmp_ev);
          cp_pb_buf_reset (&lb);
          cp_pb_int64 (&lb, XLINE_ID, l->id);
          cp_pb_string (&lb, XLINE_NAME, l->name);
          cp_pb_int64 (&lb, XLINE_TIMESTAMP_NS, T0);
          for (guint e = 0; e < l->events->len; e++)
            {
              Ev *ev = &g_array_index (l->events, Ev, e);
              guint8 *dst;

              cp_pb_buf_reset (&eb);
              cp_pb_uint64 (&eb, XEVENT_METADATA_ID, intern (p->event_ids, p->event_names, ev->name));
              if (ev->start != 0)
                cp_pb_int64 (&eb, XEVENT_OFFSET_PS, ev->start * 1000);
              if (ev->dur != 0)
                cp_pb_int64 (&eb, XEVENT_DURATION_PS, ev->dur * 1000);
              if (ev->stats.len > 0)
                {
                  cp_pb_buf_grow (&eb, ev->stats.len);
                  dst = eb.data + eb.len;
                  memcpy (dst, ev->stats.data, ev->stats.len);
                  eb.len += ev->stats.len;
                }
              cp_pb_message (&lb, XLINE_EVENTS, &eb);
              (*n_events)++;
            }
          cp_pb_message (&pb, XPLANE_LINES, &lb);
        }
      for (guint k = 0; k < p->event_names->len; k++)
        {
          cp_pb_buf_reset (&md);
          cp_pb_int64 (&md, XMD_ID, k + 1);
          cp_pb_string (&md, XMD_NAME, g_ptr_array_index (p->event_names, k));
          cp_pb_map_entry (&pb, XPLANE_EVENT_MD, k + 1, &md);
        }
      for (guint k = 0; k < p->stat_names->len; k++)
        {
          cp_pb_buf_reset (&md);
          cp_pb_int64 (&md, XMD_ID, k + 1);
          cp_pb_string (&md, XMD_NAME, g_ptr_array_index (p->stat_names, k));
          cp_pb_map_entry (&pb, XPLANE_STAT_MD, k + 1, &md);
        }
      if (p->stats.len > 0)
        {
          cp_pb_buf_grow (&pb, p->stats.len);
          memcpy (pb.data + pb.len, p->stats.data, p->stats.len);
          pb.len += p->stats.len;
        }
      cp_pb_message (out, XSPACE_PLANES, &pb);
    }
  cp_pb_string (out, XSPACE_HOSTNAMES, hostname);
  cp_pb_buf_clear (&pb);
  cp_pb_buf_clear (&lb);
  cp_pb_buf_clear (&eb);
  cp_pb_buf_clear (&md);
}

static void
space_free (Space *sp)
{
  for (guint i = 0; i < sp->planes->len; i++)
    {
      Plane *p = g_ptr_array_index (sp->planes, i);

      for (guint k = 0; k < p->lines->len; k++)
        {
          Line *l = g_ptr_array_index (p->lines, k);

          for (guint e = 0; e < l->events->len; e++)
            cp_pb_buf_clear (&g_array_index (l->events, Ev, e).stats);
          g_array_unref (l->events);
          g_free (l->name);
          g_free (l);
        }
      g_ptr_array_unref (p->lines);
      g_hash_table_unref (p->event_ids);
      g_ptr_array_unref (p->event_names);
      g_hash_table_unref (p->stat_ids);
      g_ptr_array_unref (p->stat_names);
      cp_pb_buf_clear (&p->stats);
      g_free (p->name);
      g_free (p);
    }
  g_ptr_array_unref (sp->planes);
  g_string_free (sp->truth, TRUE);
}

static void
task_environment (Space  *sp,
                  gint64  duration)
{
  Plane *t = plane_new (sp, 99, "Task Environment");

  plane_stat_uint (t, "profile_start_time", T0);
  plane_stat_uint (t, "profile_stop_time", T0 + duration);
}

/* Interval bookkeeping for the truth. */
typedef struct
{
  GArray *v;   /* of gint64 pairs */
} Set;

static void
set_add (Set    *s,
         gint64  a,
         gint64  b)
{
  gint64 p[2] = { a, b };

  if (s->v == NULL)
    s->v = g_array_new (FALSE, FALSE, sizeof p);
  if (b > a)
    g_array_append_val (s->v, p);
}

static gint
cmp_pair (gconstpointer a,
          gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* |U(s) ∩ U(w)| */
static gint64
set_overlap (Set *s,
             Set *w)
{
  gint64 total = 0;

  if (s->v == NULL || w->v == NULL)
    return 0;
  g_array_sort (s->v, cmp_pair);
  g_array_sort (w->v, cmp_pair);
  /* Both are small: merge s, then intersect each merged piece with w. */
  {
    gint64 cs = G_MININT64, ce = G_MININT64;

    for (guint i = 0; i <= s->v->len; i++)
      {
        const gint64 *p = i < s->v->len ? &g_array_index (s->v, gint64, 2 * i) : NULL;

        if (p != NULL && p[0] <= ce)
          {
            ce = MAX (ce, p[1]);
            continue;
          }
        if (ce > cs)
          for (guint j = 0; j < w->v->len; j++)
            {
              const gint64 *q = &g_array_index (w->v, gint64, 2 * j);
              gint64 a = MAX (cs, q[0]), b = MIN (ce, q[1]);

              if (b > a)
                total += b - a;
            }
        if (p != NULL)
          {
            cs = p[0];
            ce = p[1];
          }
      }
  }
  return total;
}

static gint64
set_length (Set *w)
{
  gint64 t = 0;

  for (guint i = 0; w->v != NULL && i < w->v->len; i++)
    t += g_array_index (w->v, gint64, 2 * i + 1) - g_array_index (w->v, gint64, 2 * i);
  return t;
}

static void
set_clear (Set *s)
{
  g_clear_pointer (&s->v, g_array_unref);
}

static void
truth_device (Space *sp,
              gint   device,
              Set   *windows,
              Set   *busy,
              Set   *async)
{
  g_string_append_printf (sp->truth,
                          "%s\n    \"%d\": {\"window_ns\": %" G_GINT64_FORMAT ", \"busy_ns\": %" G_GINT64_FORMAT
                          ", \"async_ns\": %" G_GINT64_FORMAT "}",
                          g_str_has_suffix (sp->truth->str, "{") ? "" : ",",
                          device, set_length (windows), set_overlap (busy, windows), set_overlap (async, windows));
}

/* ------------------------------------------------------------------------ */
/* (a) JAX on one GPU: the steps are only the executions of jit_train_step. */

static gint64
scenario_jax_gpu (Space *sp,
                  guint  n_steps)
{
  Plane *gpu = plane_new (sp, 1, "/device:GPU:0");
  Plane *host = plane_new (sp, 2, "/host:CPU");
  Line *stream = line_new (gpu, 7, "Stream #7(Compute)");
  Line *py = line_new (host, 100, "python3");
  Set windows = { 0 }, busy = { 0 }, empty = { 0 };
  gint64 t, first = 0, prev_end = G_MININT64;
  guint64 corr = 1;
  static const struct { const char *name; const char *op; gint64 dur; } kernels[] = {
    { "loop_add_fusion", "loop_add_fusion.1", US (300) },
    { "gemm_fusion_dot", "gemm_fusion_dot.2", MS (2.5) },
    { "input_reduce_fusion", "input_reduce_fusion", US (400) },
    { "gemm_fusion_dot_1", "gemm_fusion_dot.3", MS (2.2) },
  };

  plane_stat_str (gpu, "device_vendor", "Nvidia");
  /* Start-up: tracing and compiling (3 s), then one initialising module. */
  ev_add (py, "PjitFunction(init)", US (10), MS (3050));
  ev_add (py, "backend_compile", MS (1), MS (2900));
  ev_add (py, "XlaAutotuner::Autotune", MS (2000), MS (800));
  t = MS (3100);
  for (guint s = 0; s < n_steps; s++)
    {
      gint64 h = t, k = h + US (400);
      Ev *e;

      ev_add (py, "PjitFunction(train_step)", h, US (600) * 2 + US (50));
      e = ev_add (py, "GpuExecutable::ExecuteThunks", h + US (20), US (600) * 2);
      stat_ref (host, e, "module_name", "jit_train_step");
      if (s == 0)
        first = h + US (20);
      for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
        {
          gint64 l = h + US (40) + i * US (250);
          Ev *lc = ev_add (py, "cuLaunchKernel", l, US (200));
          Ev *kv;

          stat_int (host, lc, "correlation_id", (gint64) corr);
          kv = ev_add (stream, kernels[i].name, MAX (k, l + US (210)), kernels[i].dur);
          stat_int (gpu, kv, "correlation_id", (gint64) corr);
          stat_ref (gpu, kv, "hlo_op", kernels[i].op);
          stat_ref (gpu, kv, "hlo_module", "jit_train_step");
          set_add (&busy, kv->start, kv->start + kv->dur);
          k = kv->start + kv->dur;
          corr++;
        }
      /* The window: host span extended to the device work it launched. */
      {
        gint64 ws = MAX (prev_end, h + US (20));
        gint64 we = MAX (h + US (20) + US (1200), k);

        set_add (&windows, ws, we);
        prev_end = we;
      }
      /* Python between steps: logging, the next batch (1.5 ms). */
      t = k + MS (1.5);
    }
  g_string_append_printf (sp->truth, "  \"steps\": %u,\n  \"warmup_ns\": %" G_GINT64_FORMAT ",\n", n_steps,
                          first - US (10));
  g_string_append (sp->truth, "  \"devices\": {");
  truth_device (sp, 0, &windows, &busy, &empty);
  g_string_append (sp->truth, "\n  }");
  set_clear (&windows);
  set_clear (&busy);
  return t;
}

/* (b) TPU: an 18 s compile phase, then jit_train_step with async copies
 * (host offload) and an all-reduce, on two TPU cores. */

static gint64
scenario_tpu (Space *sp,
              guint  n_steps)
{
  Plane *host;
  Line *main_line;
  gint64 end = 0, first = G_MAXINT64;
  gint64 compile_end = MS (18100);

  for (gint d = 0; d < 2; d++)
    {
      g_autofree char *name = g_strdup_printf ("/device:TPU:%d", d);
      Plane *tpu = plane_new (sp, 10 + d, name);
      Line *mods = line_new (tpu, 1, "XLA Modules");
      Line *ops = line_new (tpu, 2, "XLA Ops");
      Line *async_ops = line_new (tpu, 3, "Async XLA Ops");
      Set windows = { 0 }, busy = { 0 }, async = { 0 };
      gint64 t = compile_end + MS (100) + d * US (300);
      gint64 prev_start = G_MININT64;
      Ev *e;

      plane_stat_str (tpu, "device_type_string", "TPU v5 lite");
      /* The initialising module, once. */
      e = ev_add (mods, "jit_init(111)", t, MS (4));
      e = ev_add (ops, "%broadcast.1 = bf16[1024,1024]{1,0} broadcast(%c)", t, MS (4));
      stat_ref (tpu, e, "hlo_category", "broadcast");
      t += MS (20);
      for (guint s = 0; s < n_steps; s++)
        {
          gint64 m = t, o = t;
          static const struct { const char *name; const char *cat; gint64 dur; } seq[] = {
            { "%copy-start.1 = (bf16[512]{0}, bf16[512]{0}, u32[]) copy-start(%p0)", "copy-start", US (1) },
            { "%convolution_fusion.2 = bf16[64,128]{1,0} fusion(%a, %b), kind=kOutput", "convolution fusion", MS (3) },
            { "%fusion.3 = bf16[64,128]{1,0} fusion(%c), kind=kLoop", "loop fusion", MS (1) },
            { "%copy-done.1 = bf16[512]{0} copy-done(%copy-start.1)", "copy-done", MS (4) },
            { "%dot_fusion.4 = bf16[128,128]{1,0} fusion(%d, %e), kind=kOutput", "output fusion", MS (2) },
            { "%all-reduce.5 = bf16[1024]{0} all-reduce(%g)", "all-reduce", MS (1.5) },
          };

          if (first > m && d == 0)
            first = m;
          for (guint i = 0; i < G_N_ELEMENTS (seq); i++)
            {
              e = ev_add (ops, seq[i].name, o, seq[i].dur);
              stat_ref (tpu, e, "hlo_category", seq[i].cat);
              if (g_str_has_prefix (seq[i].cat, "copy-"))
                set_add (&async, o, o + seq[i].dur);
              else
                set_add (&busy, o, o + seq[i].dur);
              o += seq[i].dur;
            }
          /* The copy in flight, from its start to its done. */
          e = ev_add (async_ops, "%copy-start.1 = (bf16[512]{0}, bf16[512]{0}, u32[]) copy-start(%p0)", m, o - m - MS (3.5));
          stat_ref (tpu, e, "hlo_category", "copy-start");
          ev_add (mods, "jit_train_step(222)", m, o - m);
          if (prev_start != G_MININT64)
            set_add (&windows, prev_start, m);
          prev_start = m;
          /* The host launches the next execution after 0.5 ms. */
          t = o + US (500);
          if (s + 1 == n_steps)
            set_add (&windows, m, o);
        }
      end = MAX (end, t);
      if (d == 0)
        g_string_append_printf (sp->truth, "  \"steps\": %u,\n  \"warmup_ns\": %" G_GINT64_FORMAT ",\n  \"devices\": {",
                                n_steps, first - US (50));
      truth_device (sp, d, &windows, &busy, &async);
      set_clear (&windows);
      set_clear (&busy);
      set_clear (&async);
    }
  g_string_append (sp->truth, "\n  }");

  host = plane_new (sp, 2, "/host:CPU");
  main_line = line_new (host, 100, "main");
  ev_add (main_line, "PjitFunction(train_step)", US (50), compile_end);
  ev_add (main_line, "backend_compile", MS (10), MS (17000));
  ev_add (main_line, "TfrtTpuCompiler::Compile", MS (20), MS (16900));
  return end;
}

/* (c) TensorFlow on two GPUs whose Steps lines differ: GPU 1 runs its
 * steps 40 ms after GPU 0 (another worker's clock and input). */

/* A TensorFlow GPU: its plane, its own Steps line and a compute stream,
 * with what the truth needs of them. */
typedef struct
{
  Plane *plane;
  Line  *steps;
  Line  *stream;
  Set    windows;
  Set    busy;
} TfGpu;

static void
tf_gpu_init (TfGpu *g,
             Space *sp,
             gint   d)
{
  g_autofree char *name = g_strdup_printf ("/device:GPU:%d", d);

  g->plane = plane_new (sp, 1 + d, name);
  g->steps = line_new (g->plane, 0xdeadbeef + 1, "Steps");
  g->stream = line_new (g->plane, 20 + d, "Stream #20(Compute)");
  g->windows.v = NULL;
  g->busy.v = NULL;
  plane_stat_str (g->plane, "device_vendor", "Nvidia");
}

/* Step s (from 1 on the Steps line, as TensorFlow numbers them), which is
 * the device's own window. */
static void
tf_gpu_step (TfGpu  *g,
             guint   s,
             gint64  start,
             gint64  dur)
{
  g_autofree char *num = g_strdup_printf ("%u", s + 1);
  Ev *e = ev_add (g->steps, g_intern_string (num), start, dur);

  stat_int (g->plane, e, "group_id", s + 1);
  set_add (&g->windows, start, start + dur);
}

static Ev *
tf_gpu_kernel (TfGpu      *g,
               guint       s,
               const char *name,
               gint64      start,
               gint64      dur)
{
  Ev *e = ev_add (g->stream, name, start, dur);

  stat_int (g->plane, e, "group_id", s + 1);
  set_add (&g->busy, start, start + dur);
  return e;
}

static void
tf_gpu_clear (TfGpu *g)
{
  set_clear (&g->windows);
  set_clear (&g->busy);
}

static gint64
scenario_tf_two_gpu (Space *sp,
                     guint  n_steps)
{
  gint64 end = 0;
  Plane *host = plane_new (sp, 3, "/host:CPU");
  Line *py = line_new (host, 100, "python3");

  ev_add (py, "__inference_train_function_1234", US (10), MS (2));
  for (gint d = 0; d < 2; d++)
    {
      TfGpu g;
      Set empty = { 0 };
      gint64 t = MS (5) + d * MS (40) * n_steps;

      tf_gpu_init (&g, sp, d);
      for (guint s = 0; s < n_steps; s++)
        {
          gint64 k = t + US (500);

          tf_gpu_step (&g, s, t, MS (20));
          for (guint i = 0; i < 5; i++)
            {
              tf_gpu_kernel (&g, s, i % 2 ? "volta_sgemm_128x64_nn" : "Eigen::internal::EigenMetaKernel", k, MS (2.5));
              k += MS (3);
            }
          t += MS (40);
        }
      end = MAX (end, t);
      if (d == 0)
        g_string_append_printf (sp->truth, "  \"steps\": %u,\n  \"warmup_ns\": %" G_GINT64_FORMAT ",\n  \"devices\": {",
                                n_steps, MS (5) - US (10));
      truth_device (sp, d, &g.windows, &g.busy, &empty);
      tf_gpu_clear (&g);
    }
  g_string_append (sp->truth, "\n  }");
  return end;
}

/* (c') The same two GPUs, stepping 650 ms apart: one step each by default
 * (a capture of one step per replica whose inputs arrived at different
 * times). Each ~20 ms step starts with its host preparing and launching
 * the step's work while the GPU waits (2.4 ms on GPU 0, 2.7 ms on GPU 1),
 * then keeps the GPU busy: kernels back to back, launched ahead. */

#define APART_NS MS (650)

static gint64
scenario_tf_two_gpu_apart (Space *sp,
                           guint  n_steps)
{
  static const double kernel_ms[] = { 2.0, 3.1, 1.4, 2.6, 2.2, 1.9, 2.5, 1.9 };
  static const char * const kernel_names[] = {
    "Eigen::internal::EigenMetaKernel", "volta_sgemm_128x64_nn", "Eigen::internal::EigenMetaKernel",
    "volta_sgemm_128x128_nt", "cudnn::bn_fw_tr_1C11_kernel_NCHW", "volta_sgemm_128x64_nn",
    "Eigen::internal::EigenMetaKernel", "volta_sgemm_64x64_tn",
  };
  gint64 end = 0;
  Plane *host = plane_new (sp, 3, "/host:CPU");
  Line *py = line_new (host, 100, "python3");
  guint64 corr = 1;

  ev_add (py, "__inference_train_function_1234", US (10), MS (2));
  g_string_append_printf (sp->truth, "  \"steps\": %u,\n  \"warmup_ns\": %" G_GINT64_FORMAT ",\n  \"devices\": {",
                          n_steps, MS (5) - US (10));
  for (gint d = 0; d < 2; d++)
    {
      g_autofree char *thread = g_strdup_printf ("tf_replica_%d", d);
      Line *launcher = line_new (host, 200 + d, thread);
      TfGpu g;
      gint64 first = MS (5) + d * APART_NS, t = first;
      gint64 wait = US (2400) + d * US (300);

      tf_gpu_init (&g, sp, d);
      for (guint s = 0; s < n_steps; s++)
        {
          gint64 k = t + wait, launch = k - US (15);
          Ev *e;

          /* The host: the executor's step, its operators' preparation,
           * then the launches, the first of which the GPU waits for. */
          e = ev_add (launcher, "ExecutorState::Process", t, wait + US (120));
          stat_int (host, e, "group_id", s + 1);
          ev_add (launcher, "EagerKernelExecute", t + US (40), wait - US (200));
          for (guint i = 0; i < G_N_ELEMENTS (kernel_ms); i++)
            {
              Ev *lc = ev_add (launcher, "cudaLaunchKernel", launch, US (10));
              Ev *kv;

              stat_int (host, lc, "correlation_id", (gint64) corr);
              kv = tf_gpu_kernel (&g, s, kernel_names[i], k, MS (kernel_ms[i]));
              stat_int (g.plane, kv, "correlation_id", (gint64) corr);
              corr++;
              k += MS (kernel_ms[i]);
              launch += US (13);
            }
          tf_gpu_step (&g, s, t, k - t);
          t = k;
        }
      end = MAX (end, t);
      g_string_append_printf (sp->truth,
                              "%s\n    \"%d\": {\"window_ns\": %" G_GINT64_FORMAT ", \"busy_ns\": %" G_GINT64_FORMAT
                              ", \"async_ns\": 0, \"host_wait_ns\": %" G_GINT64_FORMAT ", \"apart_ns\": %" G_GINT64_FORMAT "}",
                              d ? "," : "", d, set_length (&g.windows), set_overlap (&g.busy, &g.windows),
                              set_length (&g.windows) - set_overlap (&g.busy, &g.windows), first - MS (5));
      tf_gpu_clear (&g);
    }
  g_string_append (sp->truth, "\n  }");
  return end;
}

/* (d) TensorFlow fed by tf.data without prefetch: each step waits in
 * IteratorGetNext for a slow map (decoding) while the GPU idles. */

static gint64
scenario_tf_data (Space  *sp,
                  guint   n_steps,
                  gint64  shift)
{
  Plane *gpu = plane_new (sp, 1, "/device:GPU:0");
  Plane *host = plane_new (sp, 2, "/host:CPU");
  Line *stream = line_new (gpu, 7, "Stream #7(Compute)");
  Line *py = line_new (host, 100, "python3");
  Line *worker = line_new (host, 101, "tf_data_private_threadpool");
  Set windows = { 0 }, busy = { 0 }, empty = { 0 }, wait = { 0 };
  gint64 t = MS (2) + shift, total = 0;
  guint64 corr = 1;

  plane_stat_str (gpu, "device_vendor", "Nvidia");
  for (guint s = 0; s < n_steps; s++)
    {
      gint64 step_start = t, k;
      guint root = py->events->len;
      Ev *e;

      ev_add (py, "train_step", t, 0);

      /* The step: IteratorGetNext (18 ms: map 15 ms, read 2 ms), then the
       * device work (8 ms) launched from the host. */
      ev_add (py, "IteratorGetNext", t + US (100), MS (18));
      ev_add (worker, "Iterator::Model", t + US (150), MS (17.8));
      ev_add (worker, "Iterator::Model::Batch", t + US (200), MS (17.6));
      ev_add (worker, "Iterator::Model::Batch::Map", t + US (300), MS (15.2));
      ev_add (worker, "Iterator::Model::Batch::Map::TFRecord", t + US (400), MS (2));
      set_add (&wait, t + US (100), t + US (100) + MS (18));
      k = t + MS (18.3);
      for (guint i = 0; i < 4; i++)
        {
          Ev *lc = ev_add (py, "cudaLaunchKernel", k - US (20), US (10));
          Ev *kv;

          stat_int (host, lc, "correlation_id", (gint64) corr);
          kv = ev_add (stream, i % 2 ? "ampere_sgemm_64x64_nn" : "Eigen::internal::EigenMetaKernel", k, MS (2));
          stat_int (gpu, kv, "correlation_id", (gint64) corr);
          set_add (&busy, k, k + MS (2));
          k += MS (2);
          corr++;
        }
      e = &g_array_index (py->events, Ev, root);
      e->dur = k - step_start;
      stat_int (host, e, "step_num", s);
      stat_int (host, e, "_r", 1);
      set_add (&windows, step_start, k);
      total += k - step_start;
      t = k;
    }
  g_string_append_printf (sp->truth,
                          "  \"steps\": %u,\n  \"warmup_ns\": %" G_GINT64_FORMAT ",\n"
                          "  \"input_wait_percent\": %.6f,\n  \"slowest_stage\": \"Map\",\n"
                          "  \"slowest_stage_self_ns\": %" G_GINT64_FORMAT ",\n  \"prefetch\": false,\n  \"devices\": {",
                          n_steps, (gint64) 0, 100.0 * (double) set_overlap (&wait, &windows) / (double) total,
                          MS (15.2) - MS (2));
  truth_device (sp, 0, &windows, &busy, &empty);
  g_string_append (sp->truth, "\n  }");
  set_clear (&windows);
  set_clear (&busy);
  set_clear (&wait);
  return t;
}

/* (e) JAX on an AMD MI300X: a micro-benchmark whose most executed module
 * is not where the device works. All three functions are compiled ahead
 * of time; then jit_setup fills the inputs once (16 ms of device work),
 * jit_bench_body, the workload, runs three times (23 ms each), and a
 * small jit_normalize runs in a timing loop (--steps times, 10 by
 * default, 2.4 ms each). Step finding picks jit_normalize, the most
 * executed module, whose executions hold ~22% of the device's busy time;
 * the device works through most of the span from its first op to its
 * last. Laid out as ROCm's XLA profiler writes it: executions
 * (GpuExecutable::ExecuteThunks with module_name) on a py_xla_execute
 * thread, hipModuleLaunchKernel on a host thread, ".kd" kernels on a
 * Stream #N(Kernel) line, linked by correlation_id. */

#define BENCH_BODY_RUNS 3

typedef struct
{
  const char *kernel;
  const char *op;
  double      ms;
} BenchKernel;

typedef struct
{
  Plane  *gpu;
  Plane  *host;
  Line   *stream;
  Line   *execute;
  Line   *launcher;
  Line   *py;
  guint64 corr;
  Set     busy;          /* every kernel */
  Set     repeated;      /* executions of the repeated module, extended to their kernels */
  Set     repeated_busy; /* that module's kernels */
  gint64  first_op;
  gint64  last_op_end;
} Bench;

/* One execution of module at h; returns when its last kernel ends. */
static gint64
bench_execute (Bench             *b,
               const char        *function,
               const char        *module,
               const BenchKernel *kernels,
               guint              n_kernels,
               gint64             h,
               gboolean           repeated)
{
  gint64 launch = h + US (20), k = 0, host_end;
  Ev *e;

  for (guint i = 0; i < n_kernels; i++)
    {
      Ev *lc = ev_add (b->launcher, "hipModuleLaunchKernel", launch, US (8));
      Ev *kv;
      gint64 start = MAX (k, launch + US (18));

      stat_int (b->host, lc, "correlation_id", (gint64) b->corr);
      stat_ref (b->host, lc, "hlo_op", kernels[i].op);
      stat_ref (b->host, lc, "hlo_module", module);
      kv = ev_add (b->stream, kernels[i].kernel, start, MS (kernels[i].ms));
      stat_int (b->gpu, kv, "correlation_id", (gint64) b->corr);
      stat_ref (b->gpu, kv, "hlo_op", kernels[i].op);
      stat_ref (b->gpu, kv, "hlo_module", module);
      set_add (&b->busy, start, start + MS (kernels[i].ms));
      if (repeated)
        set_add (&b->repeated_busy, start, start + MS (kernels[i].ms));
      b->first_op = MIN (b->first_op, start);
      k = start + MS (kernels[i].ms);
      b->last_op_end = MAX (b->last_op_end, k);
      b->corr++;
      launch += US (30);
    }
  host_end = launch + US (15);
  ev_add (b->py, function, h - US (60), host_end - h + US (80));
  e = ev_add (b->execute, "GpuExecutable::ExecuteThunks", h, host_end - h);
  stat_ref (b->host, e, "module_name", module);
  if (repeated)
    set_add (&b->repeated, h, MAX (host_end, k));
  return k;
}

static gint64
scenario_jax_bench_loop (Space *sp,
                         guint  n_steps)
{
  static const BenchKernel setup[] = {
    { "loop_threefry2x32_fusion.kd", "threefry2x32_fusion", 6.5 },
    { "loop_convert_fusion.kd", "convert_fusion", 4.2 },
    { "loop_multiply_fusion.kd", "multiply_fusion", 3.1 },
    { "loop_broadcast_fusion.kd", "broadcast_fusion", 2.2 },
  };
  static const BenchKernel body[] = {
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot", 2.6 },
    { "loop_add_fusion.kd", "add_fusion", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.1", 2.6 },
    { "loop_add_fusion.kd", "add_fusion.1", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.2", 2.6 },
    { "loop_add_fusion.kd", "add_fusion.2", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.3", 2.6 },
    { "loop_add_fusion.kd", "add_fusion.3", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.4", 2.6 },
    { "loop_add_fusion.kd", "add_fusion.4", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.5", 2.6 },
    { "loop_add_fusion.kd", "add_fusion.5", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.6", 2.6 },
    { "loop_add_fusion.kd", "add_fusion.6", 0.3 },
    { "Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1_GRVW8_WG32_8_1", "gemm_fusion_dot.7", 2.6 },
    { "input_reduce_fusion.kd", "reduce_fusion", 0.5 },
  };
  static const BenchKernel normalize[] = {
    { "input_reduce_fusion.kd", "reduce_fusion", 0.95 },
    { "loop_subtract_multiply_fusion.kd", "subtract_multiply_fusion", 0.85 },
    { "loop_rsqrt_fusion.kd", "rsqrt_fusion", 0.6 },
  };
  Bench b = { 0, };
  gint64 t, first_step = 0, busy, in_repeated;

  b.gpu = plane_new (sp, 1, "/device:GPU:0");
  b.host = plane_new (sp, 2, "/host:CPU");
  b.stream = line_new (b.gpu, 16, "Stream #16(Kernel)");
  b.py = line_new (b.host, 100, "python");
  b.execute = line_new (b.host, 101, "py_xla_execute/23320");
  b.launcher = line_new (b.host, 102, "Host Threads/583");
  b.corr = 240;
  b.first_op = G_MAXINT64;
  plane_stat_str (b.gpu, "device_vendor", "AMD");
  plane_stat_uint (b.gpu, "clock_rate", 2100000);
  plane_stat_uint (b.gpu, "core_count", 304);
  plane_stat_uint (b.gpu, "memory_bandwidth", G_GUINT64_CONSTANT (5300000000000));
  plane_stat_uint (b.gpu, "memory_size", G_GUINT64_CONSTANT (206141652992));
  plane_stat_uint (b.gpu, "compute_cap_major", 9);
  plane_stat_uint (b.gpu, "compute_cap_minor", 4);

  /* Ahead-of-time compiles: jax.jit(f).lower(...).compile(), 1.3 s. */
  ev_add (b.py, "backend_compile", US (10), MS (420));
  ev_add (b.py, "backend_compile", MS (430), MS (650));
  ev_add (b.py, "backend_compile", MS (1090), MS (240));
  t = MS (1340);
  t = bench_execute (&b, "PjitFunction(setup)", "jit_setup", setup, G_N_ELEMENTS (setup), t, FALSE) + US (500);
  for (guint r = 0; r < BENCH_BODY_RUNS; r++)
    t = bench_execute (&b, "PjitFunction(bench_body)", "jit_bench_body", body, G_N_ELEMENTS (body), t, FALSE) + US (600);
  for (guint s = 0; s < n_steps; s++)
    {
      if (s == 0)
        first_step = t;
      /* block_until_ready, then the timing loop's Python: 1.2 ms. */
      t = bench_execute (&b, "PjitFunction(normalize)", "jit_normalize", normalize, G_N_ELEMENTS (normalize), t, TRUE)
          + MS (1.2);
    }

  busy = set_length (&b.busy);
  in_repeated = set_overlap (&b.busy, &b.repeated);
  g_string_append_printf (sp->truth,
                          "  \"steps\": %u,\n  \"warmup_ns\": %" G_GINT64_FORMAT ",\n"
                          "  \"repeated_module\": \"jit_normalize\",\n"
                          "  \"executions\": {\"jit_setup\": 1, \"jit_bench_body\": %u, \"jit_normalize\": %u},\n"
                          "  \"device_busy_ns\": %" G_GINT64_FORMAT ",\n  \"busy_in_repeated_ns\": %" G_GINT64_FORMAT ",\n"
                          "  \"repeated_kernel_ns\": %" G_GINT64_FORMAT ",\n"
                          "  \"device_span_ns\": %" G_GINT64_FORMAT ",\n  \"busy_over_span_percent\": %.6f",
                          n_steps, first_step - US (10), BENCH_BODY_RUNS, n_steps, busy, in_repeated,
                          set_length (&b.repeated_busy),
                          b.last_op_end - b.first_op, 100.0 * (double) busy / (double) (b.last_op_end - b.first_op));
  set_clear (&b.busy);
  set_clear (&b.repeated);
  set_clear (&b.repeated_busy);
  return t;
}

/* ------------------------------------------------------------------------ */

#define TRUTH_DEVICES "steps, warmup_ns, devices {window_ns, busy_ns, async_ns}"
#define TRUTH_TF_DATA TRUTH_DEVICES ", input_wait_percent, slowest_stage, slowest_stage_self_ns, prefetch"

static const CpGenXlaScenario scenarios[] = {
  { "xla-jax-gpu", "JAX train step on one GPU: steps only as executions of jit_train_step, 3 s of compiling first",
    0, TRUTH_DEVICES },
  { "xla-tpu-async", "TPU v5e, two cores: 18 s compile phase, async host-offload copies (copy-start/done) and an all-reduce per step",
    0, TRUTH_DEVICES },
  { "xla-tf-two-gpu", "TensorFlow on two GPUs whose Steps lines differ (GPU 1 runs 40 ms per step later)",
    0, TRUTH_DEVICES },
  { "xla-tf-data-starved", "TensorFlow fed by tf.data without prefetch: IteratorGetNext takes 18 ms of a 26 ms step",
    0, TRUTH_TF_DATA },
  { "xla-tf-worker", "Worker H (--host H) of a multi-worker TensorFlow run: the tf.data-starved steps, H runs later; two of them make a profile folder",
    0, TRUTH_TF_DATA },
  { "xla-tf-two-gpu-apart", "TensorFlow on two GPUs, one ~20 ms step each (--steps N), 650 ms apart; each GPU waits ~2.5 ms for its host, then is busy",
    1, "steps, warmup_ns, devices {window_ns, busy_ns, async_ns, host_wait_ns, apart_ns}" },
  { "xla-jax-bench-loop", "JAX micro-benchmark on an AMD MI300X: jit_normalize runs 10 times (--steps) but holds ~22% of the device's busy time",
    10, "steps, warmup_ns, repeated_module, executions, device_busy_ns, busy_in_repeated_ns, repeated_kernel_ns, "
    "device_span_ns, busy_over_span_percent" },
};

const CpGenXlaScenario *
cp_gen_xla_scenarios (guint *n)
{
  *n = G_N_ELEMENTS (scenarios);
  return scenarios;
}

const CpGenXlaScenario *
cp_gen_xla_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    if (g_strcmp0 (scenarios[i].name, name) == 0)
      return &scenarios[i];
  return NULL;
}

gboolean
cp_gen_xla_write (const CpGenXlaScenario *scenario,
                  CpGenOut               *out,
                  guint                   n_steps,
                  guint                   host,
                  const char             *truth_path,
                  guint64                *n_events,
                  GError                **error)
{
  Space sp = { g_ptr_array_new (), g_string_new (NULL) };
  CpPbBuf buf;
  gint64 end;

  if (n_steps == 0)
    n_steps = scenario->default_steps ? scenario->default_steps : 6;
  if (g_str_equal (scenario->name, "xla-jax-gpu"))
    end = scenario_jax_gpu (&sp, n_steps);
  else if (g_str_equal (scenario->name, "xla-tpu-async"))
    end = scenario_tpu (&sp, n_steps);
  else if (g_str_equal (scenario->name, "xla-tf-two-gpu"))
    end = scenario_tf_two_gpu (&sp, n_steps);
  else if (g_str_equal (scenario->name, "xla-tf-two-gpu-apart"))
    end = scenario_tf_two_gpu_apart (&sp, n_steps);
  else if (g_str_equal (scenario->name, "xla-jax-bench-loop"))
    end = scenario_jax_bench_loop (&sp, n_steps);
  else if (g_str_equal (scenario->name, "xla-tf-worker"))
    /* Each worker's run starts after the previous worker's ended. */
    end = scenario_tf_data (&sp, n_steps, host * (n_steps * MS (26.3) + MS (10)));
  else
    end = scenario_tf_data (&sp, n_steps, 0);
  task_environment (&sp, end);

  cp_pb_buf_init (&buf);
  *n_events = 0;
  {
    g_autofree char *hostname = g_strdup_printf ("xla-gen-%u", host);

    encode_space (&sp, &buf, hostname, n_events);
  }
  cp_gen_out_write (out, (const char *) buf.data, buf.len);
  cp_pb_buf_clear (&buf);

  if (truth_path != NULL)
    {
      g_autofree char *text = g_strdup_printf ("{\n  \"scenario\": \"%s\",\n  \"format\": \"xplane\",\n%s\n}\n",
                                               scenario->name, sp.truth->str);

      if (!g_file_set_contents (truth_path, text, -1, error))
        {
          space_free (&sp);
          return FALSE;
        }
    }
  space_free (&sp);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The builder for other generators (cp-gen-job.c). */

CpGenXSpace *
cp_gen_xspace_new (void)
{
  Space *sp = g_new0 (Space, 1);

  sp->planes = g_ptr_array_new ();
  sp->truth = g_string_new (NULL);
  return sp;
}

void
cp_gen_xspace_free (CpGenXSpace *sp)
{
  space_free (sp);
  g_free (sp);
}

CpGenXPlane *
cp_gen_xspace_plane (CpGenXSpace *sp,
                     gint64       id,
                     const char  *name)
{
  return plane_new (sp, id, name);
}

CpGenXLine *
cp_gen_xspace_line (CpGenXPlane *plane,
                    gint64       id,
                    const char  *name)
{
  return line_new (plane, id, name);
}

void
cp_gen_xspace_event (CpGenXPlane *plane,
                     CpGenXLine  *line,
                     const char  *name,
                     gint64       start,
                     gint64       dur,
                     const char  *hlo_category)
{
  Ev *e = ev_add (line, g_intern_string (name), start, dur);

  if (hlo_category != NULL)
    stat_ref (plane, e, "hlo_category", hlo_category);
}

gboolean
cp_gen_xspace_write (CpGenXSpace  *sp,
                     const char   *path,
                     const char   *hostname,
                     gint64        duration,
                     GError      **error)
{
  CpPbBuf buf;
  guint64 n_events = 0;
  gboolean ok;

  task_environment (sp, duration);
  cp_pb_buf_init (&buf);
  encode_space (sp, &buf, hostname, &n_events);
  ok = g_file_set_contents (path, (const char *) buf.data, (gssize) buf.len, error);
  cp_pb_buf_clear (&buf);
  return ok;
}
