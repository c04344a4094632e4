/* cp-gen-json.c: writes the simulation as a PyTorch profiler (Kineto) trace
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout follows libkineto's ChromeTraceLogger (docs/formats.md §3):
 * object form with schemaVersion, deviceProperties and baseTimeNanoseconds
 * first, "ts"/"dur" as microseconds with three decimals relative to
 * baseTimeNanoseconds, host events, then GPU activities each followed by
 * its ac2g flow end, launching runtime call and flow start, and most process
 * and thread metadata after the events, as real files have it.
 */

#include "config.h"

#include <stdlib.h>

#include "cp-gen-write.h"

struct _CpGenJson
{
  CpGenOut    *out;
  CpGenSim    *sim;
  CpGenCounts *counts;
  const CpGenRunInfo *run;
  GPtrArray   *escaped;       /* by name id, NULL until first use */
  char        *kernel_args[256];
  GArray      *order;
  char         pid[32];
  int          pid_len;
};

static void
tally (CpGenCounts      *c,
       const CpGenEvent *ev)
{
  switch (ev->cat)
    {
    case CP_GEN_CAT_CPU_OP:
    case CP_GEN_CAT_USER_ANNOTATION:
      c->host_slices++;
      c->slices++;
      if (ev->flow_in != 0)
        c->fwdbwd_flows++;
      break;
    case CP_GEN_CAT_RUNTIME:
      c->host_slices++;
      c->runtime_calls++;
      c->slices++;
      if (ev->partner >= 0)
        c->launch_flows++;
      break;
    case CP_GEN_CAT_KERNEL:
      c->kernels++;
      c->slices++;
      break;
    case CP_GEN_CAT_MEMCPY:
      c->memcpys++;
      c->slices++;
      break;
    case CP_GEN_CAT_MEMSET:
      c->memsets++;
      c->slices++;
      break;
    case CP_GEN_CAT_COUNTER:
      c->counter_samples++;
      break;
    default:
      g_assert_not_reached ();
    }
}

void
cp_gen_counts_add_step (CpGenCounts      *counts,
                        const CpGenEvent *events,
                        guint             n_events)
{
  for (guint i = 0; i < n_events; i++)
    tally (counts, &events[i]);
  counts->flows = counts->launch_flows + counts->fwdbwd_flows;
  counts->steps++;
}

/* ------------------------------------------------------------------------ */
/* Number formatting without printf                                         */

static inline int
fmt_u64 (char   *p,
         guint64 v)
{
  char tmp[24];
  int n = 0, i;

  do
    {
      tmp[n++] = '0' + (char) (v % 10);
      v /= 10;
    }
  while (v != 0);
  for (i = 0; i < n; i++)
    p[i] = tmp[n - 1 - i];
  return n;
}

static inline int
fmt_i64 (char  *p,
         gint64 v)
{
  if (v < 0)
    {
      p[0] = '-';
      return 1 + fmt_u64 (p + 1, (guint64) 0 - (guint64) v);
    }
  return fmt_u64 (p, (guint64) v);
}

/* Microseconds with exactly three decimals: what Kineto writes. */
static inline int
fmt_us (char  *p,
        gint64 ns)
{
  int n;

  g_assert (ns >= 0);
  n = fmt_u64 (p, (guint64) ns / 1000);
  p[n++] = '.';
  p[n++] = '0' + (char) ((ns / 100) % 10);
  p[n++] = '0' + (char) ((ns / 10) % 10);
  p[n++] = '0' + (char) (ns % 10);
  return n;
}

/* v >= 0 with six decimals. */
static inline int
fmt_fixed6 (char  *p,
            double v)
{
  guint64 scaled = (guint64) (v * 1e6 + 0.5);
  guint64 frac = scaled % 1000000;
  int n = fmt_u64 (p, scaled / 1000000);

  p[n++] = '.';
  for (int d = 100000; d >= 1; d /= 10)
    p[n++] = '0' + (char) ((frac / d) % 10);
  return n;
}

#define LIT(p, s) (memcpy ((p), (s), sizeof (s) - 1), (int) (sizeof (s) - 1))

static inline int
put_mem (char       *p,
         const char *s,
         gsize       n)
{
  memcpy (p, s, n);
  return (int) n;
}

static char *
json_escape (const char *s)
{
  GString *str = g_string_new (NULL);

  for (; *s != '\0'; s++)
    {
      guchar c = (guchar) *s;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (str, '\\');
          g_string_append_c (str, (char) c);
        }
      else if (c < 0x20)
        g_string_append_printf (str, "\\u%04x", c);
      else
        g_string_append_c (str, (char) c);
    }
  return g_string_free (str, FALSE);
}

static const char *
name_of (CpGenJson *w,
         guint32    name)
{
  while (w->escaped->len <= name)
    g_ptr_array_add (w->escaped, NULL);
  if (g_ptr_array_index (w->escaped, name) == NULL)
    g_ptr_array_index (w->escaped, name) = json_escape (cp_gen_sim_name (w->sim, name));
  return g_ptr_array_index (w->escaped, name);
}

static const char *
kernel_args (CpGenJson *w,
             guint16    spec)
{
  const CpGenKernelSpec *k;
  const CpGenRunInfo *run = w->run;
  double blocks, warps;

  g_assert (spec < G_N_ELEMENTS (w->kernel_args));
  if (w->kernel_args[spec] != NULL)
    return w->kernel_args[spec];
  k = cp_gen_sim_kernel (w->sim, spec);
  blocks = (double) k->grid[0] * k->grid[1] * k->grid[2] / run->num_sms;
  warps = blocks * ((k->block[0] * k->block[1] * k->block[2] + 31) / 32);
  w->kernel_args[spec] = g_strdup_printf (
    "      \"registers per thread\": %u,      \"shared memory\": %u,      \"blocks per SM\": %.6f,"
    "      \"warps per SM\": %.6f,      \"grid\": [%u, %u, %u],      \"block\": [%u, %u, %u],"
    "      \"est. achieved occupancy %%\": %u",
    k->regs, k->static_smem + k->dynamic_smem, blocks, warps,
    k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->occupancy);
  return w->kernel_args[spec];
}

/* ------------------------------------------------------------------------ */

#define EVENT_RESERVE 4096

static int
put_pid_tid (CpGenJson       *w,
             char            *p,
             const CpGenLane *lane)
{
  int n = 0;

  n += LIT (p + n, "\"pid\": ");
  if (lane->kind == CP_GEN_LANE_HOST)
    n += put_mem (p + n, w->pid, w->pid_len);
  else
    n += LIT (p + n, "0");
  n += LIT (p + n, ", \"tid\": ");
  n += fmt_i64 (p + n, lane->id);
  return n;
}

static void
write_host_event (CpGenJson        *w,
                  const CpGenEvent *ev,
                  const CpGenLane  *lane)
{
  const char *name = name_of (w, ev->name);
  gsize name_len = strlen (name);
  const char *args = ev->spec ? cp_gen_sim_args (w->sim, ev->spec) : NULL;
  gsize args_len = args ? strlen (args) : 0;
  char *p = cp_gen_out_reserve (w->out, EVENT_RESERVE + name_len + args_len);
  gint64 base = w->run->origin_rel_ns;
  int n = 0;

  n += LIT (p + n, "  {\n    \"ph\": \"X\", \"cat\": \"");
  if (ev->cat == CP_GEN_CAT_USER_ANNOTATION)
    n += LIT (p + n, "user_annotation");
  else
    n += LIT (p + n, "cpu_op");
  n += LIT (p + n, "\", \"name\": \"");
  n += put_mem (p + n, name, name_len);
  n += LIT (p + n, "\", ");
  n += put_pid_tid (w, p + n, lane);
  n += LIT (p + n, ",\n    \"ts\": ");
  n += fmt_us (p + n, base + ev->ts);
  n += LIT (p + n, ", \"dur\": ");
  n += fmt_us (p + n, ev->dur);
  n += LIT (p + n, ",\n    \"args\": {\n      \"External id\": ");
  n += fmt_u64 (p + n, ev->ext_id);
  n += LIT (p + n, ",\"Record function id\": 0, ");
  if (args_len > 0)
    {
      n += put_mem (p + n, args, args_len);
      n += LIT (p + n, ", ");
    }
  n += LIT (p + n, "\"Ev Idx\": ");
  n += fmt_u64 (p + n, ev->ev_idx);
  n += LIT (p + n, "\n    }\n  },\n");
  w->counts->events++;

  /* Forward -> backward links: 's' on the forward op, 'f' on the backward. */
  if (ev->flow_out != 0 || ev->flow_in != 0)
    {
      n += LIT (p + n, "  {\n    \"ph\": \"");
      n += put_mem (p + n, ev->flow_out ? "s" : "f", 1);
      n += LIT (p + n, "\", \"id\": ");
      n += fmt_u64 (p + n, ev->flow_out ? ev->flow_out : ev->flow_in);
      n += LIT (p + n, ", ");
      n += put_pid_tid (w, p + n, lane);
      n += LIT (p + n, ", \"ts\": ");
      n += fmt_us (p + n, base + ev->ts);
      n += LIT (p + n, ",\n    \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"");
      if (ev->flow_in)
        n += LIT (p + n, ", \"bp\": \"e\"");
      n += LIT (p + n, "\n  },\n");
      w->counts->events++;
    }
  cp_gen_out_commit (w->out, n);
}

static void
write_runtime (CpGenJson        *w,
               const CpGenEvent *ev,
               const CpGenLane  *lane)
{
  const char *name = name_of (w, ev->name);
  gsize name_len = strlen (name);
  char *p = cp_gen_out_reserve (w->out, EVENT_RESERVE + name_len);
  gint64 base = w->run->origin_rel_ns;
  int n = 0;

  n += LIT (p + n, "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"");
  n += put_mem (p + n, name, name_len);
  n += LIT (p + n, "\", ");
  n += put_pid_tid (w, p + n, lane);
  n += LIT (p + n, ",\n    \"ts\": ");
  n += fmt_us (p + n, base + ev->ts);
  n += LIT (p + n, ", \"dur\": ");
  n += fmt_us (p + n, ev->dur);
  n += LIT (p + n, ",\n    \"args\": {\n      ");
  if (ev->ext_id != 0)
    {
      n += LIT (p + n, "\"External id\": ");
      n += fmt_u64 (p + n, ev->ext_id);
      n += LIT (p + n, ",      ");
    }
  n += LIT (p + n, "\"cbid\": ");
  n += fmt_u64 (p + n, ev->cbid);
  n += LIT (p + n, ", \"correlation\": ");
  n += fmt_u64 (p + n, ev->corr);
  n += LIT (p + n, "\n    }\n  },\n");
  w->counts->events++;
  if (ev->partner >= 0 || (ev->flags & CP_GEN_EVF_SYNC))
    {
      n += LIT (p + n, "  {\n    \"ph\": \"s\", \"id\": ");
      n += fmt_u64 (p + n, ev->corr);
      n += LIT (p + n, ", ");
      n += put_pid_tid (w, p + n, lane);
      n += LIT (p + n, ", \"ts\": ");
      n += fmt_us (p + n, base + ev->ts);
      n += LIT (p + n, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n");
      w->counts->events++;
      if (ev->partner < 0)
        w->counts->lone_flow_starts++;
    }
  cp_gen_out_commit (w->out, n);
}

static void
write_gpu (CpGenJson        *w,
           const CpGenEvent *ev,
           const CpGenLane  *lane)
{
  const char *name = name_of (w, ev->name);
  gsize name_len = strlen (name);
  const char *kargs = ev->cat == CP_GEN_CAT_KERNEL ? kernel_args (w, ev->spec) : NULL;
  char *p = cp_gen_out_reserve (w->out, EVENT_RESERVE + name_len + (kargs ? strlen (kargs) : 0));
  gint64 base = w->run->origin_rel_ns;
  int n = 0;

  n += LIT (p + n, "  {\n    \"ph\": \"X\", \"cat\": \"");
  switch (ev->cat)
    {
    case CP_GEN_CAT_KERNEL: n += LIT (p + n, "kernel"); break;
    case CP_GEN_CAT_MEMCPY: n += LIT (p + n, "gpu_memcpy"); break;
    case CP_GEN_CAT_MEMSET: n += LIT (p + n, "gpu_memset"); break;
    default: g_assert_not_reached ();
    }
  n += LIT (p + n, "\", \"name\": \"");
  n += put_mem (p + n, name, name_len);
  n += LIT (p + n, "\", ");
  n += put_pid_tid (w, p + n, lane);
  n += LIT (p + n, ",\n    \"ts\": ");
  n += fmt_us (p + n, base + ev->ts);
  n += LIT (p + n, ", \"dur\": ");
  n += fmt_us (p + n, ev->dur);
  n += LIT (p + n, ",\n    \"args\": {\n      ");
  if (ev->ext_id != 0)
    {
      n += LIT (p + n, "\"External id\": ");
      n += fmt_u64 (p + n, ev->ext_id);
      n += LIT (p + n, ",      ");
    }
  if (ev->cat == CP_GEN_CAT_KERNEL)
    n += LIT (p + n, "\"queued\": 0, ");
  n += LIT (p + n, "\"device\": 0, \"context\": 1,      \"stream\": ");
  n += fmt_i64 (p + n, lane->id);
  n += LIT (p + n, ", \"correlation\": ");
  n += fmt_u64 (p + n, ev->corr);
  n += LIT (p + n, ",");
  if (ev->cat == CP_GEN_CAT_KERNEL)
    n += put_mem (p + n, kargs, strlen (kargs));
  else
    {
      n += LIT (p + n, "      \"bytes\": ");
      n += fmt_u64 (p + n, ev->bytes);
      n += LIT (p + n, ", \"memory bandwidth (GB/s)\": ");
      n += fmt_fixed6 (p + n, (double) ev->bytes / (double) ev->dur);
    }
  n += LIT (p + n, "\n    }\n  },\n");
  n += LIT (p + n, "  {\n    \"ph\": \"f\", \"id\": ");
  n += fmt_u64 (p + n, ev->corr);
  n += LIT (p + n, ", ");
  n += put_pid_tid (w, p + n, lane);
  n += LIT (p + n, ", \"ts\": ");
  n += fmt_us (p + n, base + ev->ts);
  n += LIT (p + n, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n");
  w->counts->events += 2;
  cp_gen_out_commit (w->out, n);
}

static void
write_counter (CpGenJson        *w,
               const CpGenEvent *ev)
{
  const char *name = name_of (w, ev->name);
  char *p = cp_gen_out_reserve (w->out, EVENT_RESERVE);
  int n = 0;

  n += LIT (p + n, "  {\n    \"ph\": \"C\", \"name\": \"");
  n += put_mem (p + n, name, strlen (name));
  n += LIT (p + n, "\", \"pid\": \"GPU 0 Counters\", \"ts\": ");
  n += fmt_us (p + n, w->run->origin_rel_ns + ev->ts);
  n += LIT (p + n, ",\n    \"args\": {\n      \"\": ");
  n += fmt_u64 (p + n, (guint64) ev->value);
  n += LIT (p + n, "\n    }\n  },\n");
  w->counts->events++;
  cp_gen_out_commit (w->out, n);
}

/* A "[memory]" instant as Kineto 2.x writes it (CUDA device 0). */
static void
write_memory (CpGenJson           *w,
              const CpGenMemEvent *ev,
              const CpGenLane     *lane)
{
  char *p = cp_gen_out_reserve (w->out, EVENT_RESERVE);
  int n = 0;

  n += LIT (p + n, "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n    ");
  n += put_pid_tid (w, p + n, lane);
  n += LIT (p + n, ",\n    \"ts\": ");
  n += fmt_us (p + n, w->run->origin_rel_ns + ev->ts);
  n += LIT (p + n, ",\n    \"args\": {\n      \"Total Reserved\": ");
  n += fmt_i64 (p + n, ev->reserved);
  n += LIT (p + n, ", \"Total Allocated\": ");
  n += fmt_i64 (p + n, ev->allocated);
  n += LIT (p + n, ", \"Bytes\": ");
  n += fmt_i64 (p + n, ev->bytes);
  n += LIT (p + n, ", \"Addr\": ");
  n += fmt_u64 (p + n, ev->addr);
  n += LIT (p + n, ", \"Device Id\": 0, \"Device Type\": 1\n    }\n  },\n");
  w->counts->events++;
  w->counts->instants++;
  cp_gen_out_commit (w->out, n);
}

typedef struct
{
  gint64 ts;
  gint64 neg_dur;
  guint  index;
} SortKey;

static int
compare_keys (const void *a,
              const void *b)
{
  const SortKey *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->neg_dur != y->neg_dur)
    return x->neg_dur < y->neg_dur ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

void
cp_gen_json_step (CpGenJson        *w,
                  const CpGenEvent *events,
                  guint             n_events)
{
  const CpGenLane *lanes;
  guint n_lanes;
  SortKey *keys;
  guint n_keys = 0;

  lanes = cp_gen_sim_lanes (w->sim, &n_lanes);
  g_array_set_size (w->order, n_events);
  keys = (SortKey *) w->order->data;

  /* Host operators and annotations, in time order. */
  for (guint i = 0; i < n_events; i++)
    if (events[i].cat == CP_GEN_CAT_CPU_OP || events[i].cat == CP_GEN_CAT_USER_ANNOTATION)
      keys[n_keys++] = (SortKey) { events[i].ts, -events[i].dur, i };
  qsort (keys, n_keys, sizeof (SortKey), compare_keys);
  for (guint k = 0; k < n_keys; k++)
    write_host_event (w, &events[keys[k].index], &lanes[events[keys[k].index].lane]);

  /* GPU activities as CUPTI delivers them, each followed by the runtime
   * call that launched it; calls without GPU work fall in between. */
  n_keys = 0;
  for (guint i = 0; i < n_events; i++)
    {
      const CpGenEvent *ev = &events[i];

      if (ev->cat == CP_GEN_CAT_KERNEL || ev->cat == CP_GEN_CAT_MEMCPY || ev->cat == CP_GEN_CAT_MEMSET
          || (ev->cat == CP_GEN_CAT_RUNTIME && ev->partner < 0))
        keys[n_keys++] = (SortKey) { ev->ts, 0, i };
    }
  qsort (keys, n_keys, sizeof (SortKey), compare_keys);
  for (guint k = 0; k < n_keys; k++)
    {
      const CpGenEvent *ev = &events[keys[k].index];

      if (ev->cat == CP_GEN_CAT_RUNTIME)
        write_runtime (w, ev, &lanes[ev->lane]);
      else
        {
          write_gpu (w, ev, &lanes[ev->lane]);
          write_runtime (w, &events[ev->partner], &lanes[events[ev->partner].lane]);
        }
    }

  for (guint i = 0; i < n_events; i++)
    if (events[i].cat == CP_GEN_CAT_COUNTER)
      write_counter (w, &events[i]);

  {
    guint n_mem;
    const CpGenMemEvent *mem = cp_gen_sim_memory_events (w->sim, &n_mem);
    const CpGenLane *main_lane = NULL;

    for (guint l = 0; l < n_lanes && main_lane == NULL; l++)
      if (lanes[l].kind == CP_GEN_LANE_HOST)
        main_lane = &lanes[l];
    for (guint i = 0; i < n_mem && main_lane != NULL; i++)
      write_memory (w, &mem[i], main_lane);
  }

  cp_gen_counts_add_step (w->counts, events, n_events);
}

static void
write_fmt (CpGenJson  *w,
           const char *format,
           ...) G_GNUC_PRINTF (2, 3);

static void
write_fmt (CpGenJson  *w,
           const char *format,
           ...)
{
  va_list ap;
  g_autofree char *s = NULL;

  va_start (ap, format);
  s = g_strdup_vprintf (format, ap);
  va_end (ap);
  cp_gen_out_str (w->out, s);
}

static void
write_meta (CpGenJson  *w,
            const char *what,
            const char *pid,
            gint64      tid,
            const char *key,
            const char *value_json)
{
  char ts[32];

  ts[fmt_us (ts, w->run->origin_rel_ns)] = '\0';
  write_fmt (w,
             "  {\n    \"name\": \"%s\", \"ph\": \"M\", \"ts\": %s, \"pid\": %s, \"tid\": %" G_GINT64_FORMAT ",\n"
             "    \"args\": {\n      \"%s\": %s\n    }\n  },\n",
             what, ts, pid, tid, key, value_json);
  w->counts->events++;
  w->counts->metadata++;
}

CpGenJson *
cp_gen_json_begin (CpGenOut    *out,
                   CpGenSim    *sim,
                   CpGenCounts *counts)
{
  CpGenJson *w = g_new0 (CpGenJson, 1);
  const CpGenRunInfo *run = cp_gen_sim_run_info (sim);
  g_autofree char *quoted = NULL;

  w->out = out;
  w->sim = sim;
  w->counts = counts;
  w->run = run;
  w->escaped = g_ptr_array_new_with_free_func (g_free);
  w->order = g_array_new (FALSE, FALSE, sizeof (SortKey));
  w->pid_len = fmt_i64 (w->pid, run->pid);
  w->pid[w->pid_len] = '\0';

  write_fmt (w,
             "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n"
             "      \"id\": 0, \"name\": \"%s\", \"totalGlobalMem\": %" G_GUINT64_FORMAT ",\n"
             "      \"computeMajor\": %u, \"computeMinor\": %u,\n"
             "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
             "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
             "      \"sharedMemPerBlock\": 49152, \"numSms\": %u\n"
             "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472\n"
             "    }\n  ],\n",
             run->device_name, run->total_global_mem, run->compute_major, run->compute_minor, run->num_sms);
  if (run->world_size > 1)
    {
      g_autoptr(GString) ranks = g_string_new (NULL);

      for (guint r = 0; r < run->world_size; r++)
        g_string_append_printf (ranks, "%s%u", r ? ", " : "", r);
      write_fmt (w,
                 "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": %u, \"pg_count\": 1, "
                 "\"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
                 "\"pg_size\": %u, \"ranks\": [%s]}], \"nccl_version\": \"2.21.5\"},\n",
                 run->world_size, run->world_size, ranks->str);
    }
  write_fmt (w,
             "  \"cupti_version\": 22,\n  \"cuda_runtime_version\": 12040,\n  \"cuda_driver_version\": 12080,\n"
             "  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"profile_memory\": 0,\n  \"with_flops\": 0,\n"
             "  \"with_modules\": 0,\n  \"trace_id\": \"%s\",\n  \"displayTimeUnit\": \"ms\",\n"
             "  \"baseTimeNanoseconds\": %" G_GINT64_FORMAT ",\n  \"traceEvents\": [\n",
             run->trace_id, run->base_time_ns);

  quoted = g_strdup_printf ("\"%s\"", run->process_name);
  write_meta (w, "process_name", w->pid, 0, "name", quoted);
  write_meta (w, "process_labels", w->pid, 0, "labels", "\"CPU\"");
  write_meta (w, "process_sort_index", w->pid, 0, "sort_index", w->pid);
  return w;
}

void
cp_gen_json_end (CpGenJson *w)
{
  const CpGenRunInfo *run = w->run;
  const CpGenLane *lanes;
  guint n_lanes;
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", run->process_name);
  gint64 end = cp_gen_sim_end_ns (w->sim);
  char ts[32], dur[32], end_ts[32];

  lanes = cp_gen_sim_lanes (w->sim, &n_lanes);
  for (int dev = 0; dev < 8; dev++)
    {
      char pid[16], label[32], sort[32];

      g_snprintf (pid, sizeof pid, "%d", dev);
      g_snprintf (label, sizeof label, "\"GPU %d\"", dev);
      g_snprintf (sort, sizeof sort, "%d", 5000000 + dev);
      write_meta (w, "process_name", pid, 0, "name", quoted);
      write_meta (w, "process_labels", pid, 0, "labels", label);
      write_meta (w, "process_sort_index", pid, 0, "sort_index", sort);
    }
  for (guint i = 0; i < n_lanes; i++)
    {
      const CpGenLane *lane = &lanes[i];
      g_autofree char *tname = NULL;
      g_autofree char *sort = g_strdup_printf ("%" G_GINT64_FORMAT, lane->id);

      if (lane->kind == CP_GEN_LANE_HOST)
        {
          tname = g_strdup_printf ("\"thread %" G_GINT64_FORMAT " (%s)\"", lane->id, lane->name);
          write_meta (w, "thread_name", w->pid, lane->id, "name", tname);
          write_meta (w, "thread_sort_index", w->pid, lane->id, "sort_index", sort);
        }
      else if (lane->kind == CP_GEN_LANE_STREAM)
        {
          /* Kineto leaves a trailing space in stream names. */
          tname = g_strdup_printf ("\"stream %" G_GINT64_FORMAT " \"", lane->id);
          write_meta (w, "thread_name", "0", lane->id, "name", tname);
          write_meta (w, "thread_sort_index", "0", lane->id, "sort_index", sort);
        }
    }

  ts[fmt_us (ts, run->origin_rel_ns)] = '\0';
  dur[fmt_us (dur, end)] = '\0';
  end_ts[fmt_us (end_ts, run->origin_rel_ns + end)] = '\0';
  write_fmt (w,
             "  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": %s, \"dur\": %s,\n"
             "    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n"
             "    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n    }\n  },\n"
             "  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": %s,\n"
             "    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912\n    }\n  },\n"
             "  {\n    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
             "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": %s\n  },\n"
             "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
             "    \"pid\": \"\", \"tid\": \"\", \"ts\": %s\n  }\n"
             "  ],\n  \"traceName\": \"/tmp/chokepoint/rank0.%" G_GINT64_FORMAT ".pt.trace.json\"\n}\n",
             ts, dur, ts, ts, end_ts, run->pid);
  w->counts->events += 4;
  w->counts->metadata += 1;
  w->counts->instants += 2;
  w->counts->slices += 1;
  w->counts->duration_ns = end;

  g_ptr_array_unref (w->escaped);
  g_array_unref (w->order);
  for (guint i = 0; i < G_N_ELEMENTS (w->kernel_args); i++)
    g_free (w->kernel_args[i]);
  g_free (w);
}
