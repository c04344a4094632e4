/* cp-gen-xplane.c: writes the simulation as an XPlane capture (XSpace)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same events as the Kineto writer, laid out the way XLA's CUPTI
 * collector and ProfilerSession write them (docs/formats.md §1): a
 * /device:GPU:0 plane with one line per CUDA stream plus a _counters_ line,
 * a /host:CPU plane with one line per thread, and a Task Environment plane
 * holding the wall-clock start. tools/README.md has the construct-by-
 * construct mapping.
 *
 * Protobuf needs every message's length before its contents, and a line
 * holds all of its thread's events. To keep memory constant whatever the
 * size, the simulation (deterministic for a seed) runs once to size every
 * message and assign metadata ids, then once more for each line, writing
 * only that line's events.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp-gen-pb.h"
#include "cp-gen-write.h"

enum
{
  PLANE_GPU,
  PLANE_HOST,
  PLANE_TASK,
  N_PLANES
};

static const char *plane_names[N_PLANES] = { "/device:GPU:0", "/host:CPU", "Task Environment" };
static const gint64 plane_ids[N_PLANES] = { 0, 1, 2 };

/* XSpace, XPlane, XLine, XEvent, XStat, metadata field numbers. */
enum { XSPACE_PLANES = 1, XSPACE_HOSTNAMES = 4 };
enum { XPLANE_ID = 1, XPLANE_NAME = 2, XPLANE_LINES = 3, XPLANE_EVENT_MD = 4, XPLANE_STAT_MD = 5,
       XPLANE_STATS = 6 };
enum { XLINE_ID = 1, XLINE_NAME = 2, XLINE_TIMESTAMP_NS = 3, XLINE_EVENTS = 4, XLINE_DURATION_PS = 9 };
enum { XEVENT_METADATA_ID = 1, XEVENT_OFFSET_PS = 2, XEVENT_DURATION_PS = 3, XEVENT_STATS = 4 };
enum { XSTAT_METADATA_ID = 1, XSTAT_DOUBLE = 2, XSTAT_UINT64 = 3, XSTAT_INT64 = 4, XSTAT_STR = 5,
       XSTAT_REF = 7 };
enum { XMD_ID = 1, XMD_NAME = 2 };

typedef struct
{
  GHashTable *static_ids;     /* literal's address -> id */
  GHashTable *stat_ids;       /* name -> id */
  GPtrArray  *stat_names;     /* id - 1 -> name */
  GArray     *event_ids;      /* simulation name id -> metadata id (0 = none yet) */
  GPtrArray  *event_names;    /* metadata id - 1 -> name */
  CpPbBuf     stats;          /* the plane's own XStats (field 6), encoded */
} PlaneMeta;

typedef struct
{
  int        plane;
  gint64     id;
  char      *name;
  gboolean   have_base;
  gint64     base;            /* timestamp_ns, ns from the origin */
  gint64     last_end;
  gint64     last_ts;
  guint64    n_events;
  guint64    event_bytes;     /* the events' fields, tags and lengths included */
} LineInfo;

typedef struct
{
  CpGenOut           *out;
  const CpGenScenarioInfo *info;
  guint64             seed;
  CpGenRunInfo        run;
  PlaneMeta           meta[N_PLANES];
  LineInfo            lines[CP_GEN_MAX_LANES];
  guint               n_lines;
  guint               kernel_details[256];    /* spec -> stat id of its details string */
  GArray             *name_stats;             /* simulation name id -> stat id (counters) */
  gboolean            frozen;                 /* metadata complete: lookups only */
  CpPbBuf             ev;
  CpPbBuf             tmp;
} Writer;

/* ------------------------------------------------------------------------ */

static guint
stat_id (Writer     *w,
         int         plane,
         const char *name)
{
  PlaneMeta *pm = &w->meta[plane];
  gpointer id;

  if (g_hash_table_lookup_extended (pm->stat_ids, name, NULL, &id))
    return GPOINTER_TO_UINT (id);
  g_assert (!w->frozen);
  g_ptr_array_add (pm->stat_names, g_strdup (name));
  g_hash_table_insert (pm->stat_ids, g_ptr_array_index (pm->stat_names, pm->stat_names->len - 1),
                       GUINT_TO_POINTER (pm->stat_names->len));
  return pm->stat_names->len;
}

/* name must be a string literal. */
static guint
stat_static (Writer     *w,
             int         plane,
             const char *name)
{
  GHashTable *index = w->meta[plane].static_ids;
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (index, name));

  if (id == 0)
    {
      id = stat_id (w, plane, name);
      g_hash_table_insert (index, (gpointer) name, GUINT_TO_POINTER (id));
    }
  return id;
}

static guint
name_stat (Writer   *w,
           int       plane,
           CpGenSim *sim,
           guint32   name)
{
  if (name >= w->name_stats->len)
    g_array_set_size (w->name_stats, name + 1);
  if (g_array_index (w->name_stats, guint, name) == 0)
    g_array_index (w->name_stats, guint, name) = stat_id (w, plane, cp_gen_sim_name (sim, name));
  return g_array_index (w->name_stats, guint, name);
}

static guint
event_id (Writer   *w,
          int       plane,
          CpGenSim *sim,
          guint32   name)
{
  PlaneMeta *pm = &w->meta[plane];
  guint id;

  if (name >= pm->event_ids->len)
    g_array_set_size (pm->event_ids, name + 1);
  id = g_array_index (pm->event_ids, guint, name);
  if (id != 0)
    return id;
  g_assert (!w->frozen);
  g_ptr_array_add (pm->event_names, g_strdup (cp_gen_sim_name (sim, name)));
  id = pm->event_names->len;
  g_array_index (pm->event_ids, guint, name) = id;
  return id;
}

/* One XStat (field `field` of its parent) with a varint, fixed64 or string value. */
static void
put_stat_varint (CpPbBuf *b,
                 guint    field,
                 guint    md,
                 guint    value_field,
                 guint64  v)
{
  cp_pb_tag (b, field, CP_PB_LEN);
  cp_pb_varint (b, 1 + cp_pb_varint_size (md) + 1 + cp_pb_varint_size (v));
  cp_pb_uint64 (b, XSTAT_METADATA_ID, md);
  cp_pb_uint64 (b, value_field, v);
}

static void
put_stat_double (CpPbBuf *b,
                 guint    field,
                 guint    md,
                 double   v)
{
  cp_pb_tag (b, field, CP_PB_LEN);
  cp_pb_varint (b, 1 + cp_pb_varint_size (md) + 1 + 8);
  cp_pb_uint64 (b, XSTAT_METADATA_ID, md);
  cp_pb_double (b, XSTAT_DOUBLE, v);
}

static void
put_stat_string (CpPbBuf    *b,
                 guint       field,
                 guint       md,
                 const char *s)
{
  gsize len = strlen (s);

  cp_pb_tag (b, field, CP_PB_LEN);
  cp_pb_varint (b, 1 + cp_pb_varint_size (md) + cp_pb_len_prefix_size (XSTAT_STR, len) + len);
  cp_pb_uint64 (b, XSTAT_METADATA_ID, md);
  cp_pb_string (b, XSTAT_STR, s);
}

static guint
kernel_details_id (Writer   *w,
                   CpGenSim *sim,
                   guint16   spec)
{
  const CpGenKernelSpec *k;
  char details[256];

  g_assert (spec < G_N_ELEMENTS (w->kernel_details));
  if (w->kernel_details[spec] != 0)
    return w->kernel_details[spec];
  k = cp_gen_sim_kernel (sim, spec);
  g_snprintf (details, sizeof details,
              "regs:%u static_shared:%u dynamic_shared:%u grid:%u,%u,%u block:%u,%u,%u occ_pct:%u",
              k->regs, k->static_smem, k->dynamic_smem, k->grid[0], k->grid[1], k->grid[2],
              k->block[0], k->block[1], k->block[2], k->occupancy);
  w->kernel_details[spec] = stat_id (w, PLANE_GPU, details);
  return w->kernel_details[spec];
}

static guint
copy_details_id (Writer           *w,
                 const CpGenEvent *ev)
{
  char details[160];

  if (ev->cat == CP_GEN_CAT_MEMSET)
    g_snprintf (details, sizeof details, "kind:device num_bytes:%" G_GUINT64_FORMAT " async:1", ev->bytes);
  else
    {
      const CpGenCopySpec *c = cp_gen_sim_copy (ev->spec);

      g_snprintf (details, sizeof details,
                  "kind_src:%s kind_dst:%s size:%" G_GUINT64_FORMAT " dest:0 async:1",
                  c->xplane_src, c->xplane_dst, ev->bytes);
    }
  return stat_id (w, PLANE_GPU, details);
}

/* Encodes one XEvent's fields (without its own tag and length) into w->ev. */
static void
encode_event (Writer           *w,
              CpGenSim         *sim,
              const CpGenEvent *ev,
              LineInfo         *line)
{
  CpPbBuf *b = &w->ev;
  int p = line->plane;
  gint64 offset = ev->ts - line->base;

  g_assert (offset >= 0);
  cp_pb_buf_reset (b);
  cp_pb_uint64 (b, XEVENT_METADATA_ID, event_id (w, p, sim, ev->name));
  if (offset != 0)
    cp_pb_int64 (b, XEVENT_OFFSET_PS, offset * 1000);
  if (ev->dur != 0)
    cp_pb_int64 (b, XEVENT_DURATION_PS, ev->dur * 1000);

  switch (ev->cat)
    {
    case CP_GEN_CAT_CPU_OP:
    case CP_GEN_CAT_USER_ANNOTATION:
      if (ev->flags & CP_GEN_EVF_STEP)
        {
          put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "step_num"), XSTAT_INT64, ev->step_num);
          put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "_r"), XSTAT_INT64, 1);
        }
      if (ev->flow_out != 0)
        {
          put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "_pt"), XSTAT_INT64, 1);
          put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "_p"), XSTAT_UINT64, ev->flow_out);
        }
      if (ev->flow_in != 0)
        {
          put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "_ct"), XSTAT_INT64, 1);
          put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "_c"), XSTAT_UINT64, ev->flow_in);
        }
      break;

    case CP_GEN_CAT_RUNTIME:
      put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "correlation_id"), XSTAT_UINT64, ev->corr);
      put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "device_id"), XSTAT_UINT64, 0);
      break;

    case CP_GEN_CAT_KERNEL:
      put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "correlation_id"), XSTAT_UINT64, ev->corr);
      {
        /* Both calls may assign a new stat id: one statement each, so the
         * ids do not depend on the compiler's argument order. */
        guint key = stat_static (w, p, "kernel_details");
        guint ref = kernel_details_id (w, sim, ev->spec);

        put_stat_varint (b, XEVENT_STATS, key, XSTAT_REF, ref);
      }
      break;

    case CP_GEN_CAT_MEMCPY:
    case CP_GEN_CAT_MEMSET:
      put_stat_varint (b, XEVENT_STATS, stat_static (w, p, "correlation_id"), XSTAT_UINT64, ev->corr);
      {
        guint key = ev->cat == CP_GEN_CAT_MEMSET ? stat_static (w, p, "Memset_details")
                                                 : stat_static (w, p, "memcpy_details");
        guint ref = copy_details_id (w, ev);

        put_stat_varint (b, XEVENT_STATS, key, XSTAT_REF, ref);
      }
      break;

    case CP_GEN_CAT_COUNTER:
      put_stat_double (b, XEVENT_STATS, name_stat (w, p, sim, ev->name), ev->value);
      break;

    default:
      g_assert_not_reached ();
    }
}

static inline guint64
field_size (guint   field,
            guint64 len)
{
  return cp_pb_len_prefix_size (field, len) + len;
}

/* The line's fields before its events (1, 2, 3) and after them (9). */
static void
line_head (LineInfo *line,
           CpPbBuf  *b)
{
  cp_pb_buf_reset (b);
  cp_pb_int64 (b, XLINE_ID, line->id);
  cp_pb_string (b, XLINE_NAME, line->name);
  if (line->base != 0)
    cp_pb_int64 (b, XLINE_TIMESTAMP_NS, line->base);
}

static void
line_tail (LineInfo *line,
           CpPbBuf  *b)
{
  cp_pb_buf_reset (b);
  if (line->last_end > line->base)
    cp_pb_int64 (b, XLINE_DURATION_PS, (line->last_end - line->base) * 1000);
}

static guint64
line_size (Writer   *w,
           LineInfo *line)
{
  guint64 size;

  line_head (line, &w->tmp);
  size = w->tmp.len + line->event_bytes;
  line_tail (line, &w->tmp);
  return size + w->tmp.len;
}

static void
plane_head (int      plane,
            CpPbBuf *b)
{
  cp_pb_buf_reset (b);
  if (plane_ids[plane] != 0)
    cp_pb_int64 (b, XPLANE_ID, plane_ids[plane]);
  cp_pb_string (b, XPLANE_NAME, plane_names[plane]);
}

/* Metadata maps and plane stats, which follow the lines (field order). */
static void
plane_tail (Writer  *w,
            int      plane,
            CpPbBuf *b)
{
  PlaneMeta *pm = &w->meta[plane];
  CpPbBuf md;

  cp_pb_buf_init (&md);
  cp_pb_buf_reset (b);
  for (guint i = 0; i < pm->event_names->len; i++)
    {
      cp_pb_buf_reset (&md);
      cp_pb_int64 (&md, XMD_ID, i + 1);
      cp_pb_string (&md, XMD_NAME, g_ptr_array_index (pm->event_names, i));
      cp_pb_map_entry (b, XPLANE_EVENT_MD, i + 1, &md);
    }
  for (guint i = 0; i < pm->stat_names->len; i++)
    {
      cp_pb_buf_reset (&md);
      cp_pb_int64 (&md, XMD_ID, i + 1);
      cp_pb_string (&md, XMD_NAME, g_ptr_array_index (pm->stat_names, i));
      cp_pb_map_entry (b, XPLANE_STAT_MD, i + 1, &md);
    }
  if (pm->stats.len > 0)
    {
      guint8 *p;

      cp_pb_buf_grow (b, pm->stats.len);
      p = b->data + b->len;
      memcpy (p, pm->stats.data, pm->stats.len);
      b->len += pm->stats.len;
    }
  cp_pb_buf_clear (&md);
}

static void
out_len_prefix (CpGenOut *out,
                guint     field,
                guint64   len)
{
  guint8 *p = (guint8 *) cp_gen_out_reserve (out, 20);
  guint n = cp_pb_put_varint (p, ((guint64) field << 3) | CP_PB_LEN);

  n += cp_pb_put_varint (p + n, len);
  cp_gen_out_commit (out, n);
}

/* ------------------------------------------------------------------------ */

static void
setup_lines (Writer   *w,
             CpGenSim *sim)
{
  const CpGenLane *lanes;
  guint n;

  lanes = cp_gen_sim_lanes (sim, &n);
  w->n_lines = n;
  for (guint i = 0; i < n; i++)
    {
      LineInfo *line = &w->lines[i];
      const CpGenLane *lane = &lanes[i];

      memset (line, 0, sizeof *line);
      switch (lane->kind)
        {
        case CP_GEN_LANE_HOST:
          line->plane = PLANE_HOST;
          line->id = lane->id;
          line->name = g_strdup (lane->name);
          break;
        case CP_GEN_LANE_STREAM:
          {
            g_autoptr(GString) name = g_string_new (NULL);
            const char *types[] = { "Compute", "MemcpyH2D", "MemcpyD2H", "Memset" };

            g_string_printf (name, "Stream #%" G_GINT64_FORMAT, lane->id);
            for (guint t = 0, k = 0; t < G_N_ELEMENTS (types); t++)
              if (lane->types & (1u << t))
                g_string_append_printf (name, "%s%s", k++ ? "," : "(", types[t]);
            if (lane->types != 0)
              g_string_append_c (name, ')');
            line->plane = PLANE_GPU;
            line->id = lane->id;
            line->name = g_string_free (g_steal_pointer (&name), FALSE);
          }
          break;
        case CP_GEN_LANE_COUNTERS:
          line->plane = PLANE_GPU;
          line->id = G_MAXINT64;
          line->name = g_strdup ("_counters_");
          line->have_base = TRUE;   /* the counter line's base is 0 */
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

/* Device capabilities and the wall-clock window, as plane stats. */
static void
setup_plane_stats (Writer *w,
                   gint64  duration_ns)
{
  const CpGenRunInfo *run = &w->run;
  CpPbBuf *g = &w->meta[PLANE_GPU].stats;
  CpPbBuf *t = &w->meta[PLANE_TASK].stats;
  gint64 start = run->base_time_ns + run->origin_rel_ns;

  cp_pb_buf_reset (g);
  put_stat_varint (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "clock_rate"), XSTAT_UINT64, run->clock_khz);
  put_stat_varint (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "core_count"), XSTAT_UINT64, run->num_sms);
  put_stat_varint (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "memory_bandwidth"), XSTAT_UINT64,
                   run->memory_bandwidth);
  put_stat_varint (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "memory_size"), XSTAT_UINT64,
                   run->total_global_mem);
  put_stat_varint (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "compute_cap_major"), XSTAT_INT64,
                   run->compute_major);
  put_stat_varint (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "compute_cap_minor"), XSTAT_INT64,
                   run->compute_minor);
  put_stat_string (g, XPLANE_STATS, stat_id (w, PLANE_GPU, "device_vendor"), "Nvidia");
  {
    /* Two new stat ids: one statement each (argument order is unspecified). */
    guint key = stat_id (w, PLANE_GPU, "gpu_device_name");
    guint ref = stat_id (w, PLANE_GPU, run->device_name);

    put_stat_varint (g, XPLANE_STATS, key, XSTAT_REF, ref);
  }

  cp_pb_buf_reset (t);
  put_stat_varint (t, XPLANE_STATS, stat_id (w, PLANE_TASK, "profile_start_time"), XSTAT_UINT64,
                   (guint64) start);
  put_stat_varint (t, XPLANE_STATS, stat_id (w, PLANE_TASK, "profile_stop_time"), XSTAT_UINT64,
                   (guint64) (start + duration_ns));
}

/* Pass 1: sizes, bases, metadata ids, counts and the ground truth. */
static guint
size_pass (Writer            *w,
           guint              n_steps,
           guint64            size_target,
           CpGenTruthFunc     truth_func,
           CpGenIterationFunc iteration_func,
           gpointer           truth_data,
           CpGenCounts       *counts)
{
  CpGenSim *sim = cp_gen_sim_new (w->info, w->seed);
  guint64 total = 16 * 1024;    /* metadata, headers */
  guint steps;

  w->run = *cp_gen_sim_run_info (sim);
  setup_lines (w, sim);
  setup_plane_stats (w, 0);
  cp_gen_sim_set_truth_func (sim, truth_func, truth_data);
  cp_gen_sim_set_iteration_func (sim, iteration_func, truth_data);
  for (;;)
    {
      guint n;
      const CpGenEvent *events = cp_gen_sim_step (sim, &n);

      cp_gen_counts_add_step (counts, events, n);
      for (guint i = 0; i < n; i++)
        {
          LineInfo *line = &w->lines[events[i].lane];

          if (!line->have_base)
            {
              gint64 first = G_MAXINT64;

              for (guint j = i; j < n; j++)
                if (events[j].lane == events[i].lane)
                  first = MIN (first, events[j].ts);
              line->base = first / 1000 * 1000;
              line->have_base = TRUE;
            }
        }
      for (guint i = 0; i < n; i++)
        {
          const CpGenEvent *ev = &events[i];
          LineInfo *line = &w->lines[ev->lane];
          guint64 bytes;

          encode_event (w, sim, ev, line);
          bytes = field_size (XLINE_EVENTS, w->ev.len);
          line->event_bytes += bytes;
          line->n_events++;
          line->last_end = MAX (line->last_end, ev->ts + ev->dur);
          total += bytes;
        }
      if (n_steps > 0 ? cp_gen_sim_steps_done (sim) >= n_steps : total >= size_target)
        break;
    }
  cp_gen_sim_finish (sim);
  steps = cp_gen_sim_steps_done (sim);
  counts->duration_ns = cp_gen_sim_end_ns (sim);
  setup_plane_stats (w, counts->duration_ns);
  cp_gen_sim_free (sim);
  return steps;
}

/* One pass per line: simulate everything, write this line's events. */
static void
write_line (Writer   *w,
            guint     lane,
            guint     n_steps)
{
  LineInfo *line = &w->lines[lane];
  CpGenSim *sim = cp_gen_sim_new (w->info, w->seed);
  guint64 written = 0;
  CpGenOut *out = w->out;

  out_len_prefix (out, XPLANE_LINES, line_size (w, line));
  line_head (line, &w->tmp);
  cp_gen_out_write (out, w->tmp.data, w->tmp.len);
  line->last_ts = G_MININT64;
  for (guint s = 0; s < n_steps; s++)
    {
      guint n;
      const CpGenEvent *events = cp_gen_sim_step (sim, &n);

      /* A lane's events come out of the simulation in start order (its
       * clock only moves forward), which is the order XPlane lines keep. */
      for (guint i = 0; i < n; i++)
        {
          const CpGenEvent *ev = &events[i];
          guint8 *p;
          guint h;

          if (ev->lane != lane)
            continue;
          g_assert (ev->ts >= line->last_ts);
          line->last_ts = ev->ts;
          encode_event (w, sim, ev, line);
          p = (guint8 *) cp_gen_out_reserve (out, 20 + w->ev.len);
          h = cp_pb_put_varint (p, ((guint64) XLINE_EVENTS << 3) | CP_PB_LEN);
          h += cp_pb_put_varint (p + h, w->ev.len);
          memcpy (p + h, w->ev.data, w->ev.len);
          cp_gen_out_commit (out, h + w->ev.len);
          written += h + w->ev.len;
        }
    }
  g_assert (written == line->event_bytes);
  line_tail (line, &w->tmp);
  cp_gen_out_write (out, w->tmp.data, w->tmp.len);
  cp_gen_sim_free (sim);
}

gboolean
cp_gen_xplane_write (CpGenOut                *out,
                     const CpGenScenarioInfo *info,
                     guint64                  seed,
                     guint                    n_steps,
                     guint64                  size_target,
                     CpGenTruthFunc           truth_func,
                     CpGenIterationFunc       iteration_func,
                     gpointer                 truth_data,
                     CpGenCounts             *counts,
                     GError                 **error)
{
  Writer w = { 0, };
  guint64 plane_size[N_PLANES];
  guint steps;
  const char *hostname;

  w.out = out;
  w.info = info;
  w.seed = seed;
  w.name_stats = g_array_new (FALSE, TRUE, sizeof (guint));
  cp_pb_buf_init (&w.ev);
  cp_pb_buf_init (&w.tmp);
  for (int p = 0; p < N_PLANES; p++)
    {
      w.meta[p].static_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
      w.meta[p].stat_ids = g_hash_table_new (g_str_hash, g_str_equal);
      w.meta[p].stat_names = g_ptr_array_new_with_free_func (g_free);
      w.meta[p].event_ids = g_array_new (FALSE, TRUE, sizeof (guint));
      w.meta[p].event_names = g_ptr_array_new_with_free_func (g_free);
      cp_pb_buf_init (&w.meta[p].stats);
    }

  steps = size_pass (&w, n_steps, size_target, truth_func, iteration_func, truth_data, counts);
  w.frozen = TRUE;

  /* Layout. */
  for (int p = 0; p < N_PLANES; p++)
    {
      plane_head (p, &w.tmp);
      plane_size[p] = w.tmp.len;
      for (guint l = 0; l < w.n_lines; l++)
        if (w.lines[l].plane == p)
          plane_size[p] += field_size (XPLANE_LINES, line_size (&w, &w.lines[l]));
      plane_tail (&w, p, &w.tmp);
      plane_size[p] += w.tmp.len;
    }

  /* Planes in the order XLA leaves them: devices, host, bookkeeping. */
  for (int p = 0; p < N_PLANES; p++)
    {
      out_len_prefix (out, XSPACE_PLANES, plane_size[p]);
      plane_head (p, &w.tmp);
      cp_gen_out_write (out, w.tmp.data, w.tmp.len);
      for (guint l = 0; l < w.n_lines; l++)
        if (w.lines[l].plane == p)
          write_line (&w, l, steps);
      plane_tail (&w, p, &w.tmp);
      cp_gen_out_write (out, w.tmp.data, w.tmp.len);
      counts->planes++;
    }
  hostname = w.run.hostname;
  cp_pb_buf_reset (&w.tmp);
  cp_pb_string (&w.tmp, XSPACE_HOSTNAMES, hostname);
  cp_gen_out_write (out, w.tmp.data, w.tmp.len);

  for (guint l = 0; l < w.n_lines; l++)
    {
      counts->events += w.lines[l].n_events;
      g_free (w.lines[l].name);
    }
  counts->lines = w.n_lines;
  for (int p = 0; p < N_PLANES; p++)
    {
      g_hash_table_unref (w.meta[p].static_ids);
      g_hash_table_unref (w.meta[p].stat_ids);
      g_ptr_array_unref (w.meta[p].stat_names);
      g_array_unref (w.meta[p].event_ids);
      g_ptr_array_unref (w.meta[p].event_names);
      cp_pb_buf_clear (&w.meta[p].stats);
    }
  cp_pb_buf_clear (&w.ev);
  cp_pb_buf_clear (&w.tmp);
  g_array_unref (w.name_stats);
  return TRUE;
}
