/* cp-roofline-pass.c: the analysis phase that gives every kernel and host
 * op its FLOPs, bytes and place on the roofline (cp-roofline.h)
 *
 * Runs inside the kernel statistics: their walk of the host lanes hands it
 * each kernel launched inside an op with the ops open around the launch
 * call, and it finishes once the walk is done.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cp-analysis-private.h"
#include "cp-json-util.h"
#include "formats/cp-args.h"

typedef struct
{
  double        flops;
  double        bytes;          /* NAN unknown */
  CpFlopsSource source;
  CpPrecision   precision;
  CpStr         name;
  gint64        attributed;     /* kernel time that takes its figures */
  gint64        computing;      /* of which kernels that compute (not
                                 * CP_NAME_DATA_MOVEMENT): its FLOPs go to
                                 * those */
  gint          device;
} OpFig;

typedef struct
{
  guint32 lane;
  guint32 index;
  guint   inst;                 /* into the instances */
} Pending;

static guint
elem_size_of (const char  *type,
              gboolean    *is_float,
              CpPrecision *precision)
{
  static const struct { const char *type; guint size; gboolean fl; CpPrecision p; } types[] = {
    { "float", 4, TRUE, CP_PRECISION_FP32 },
    { "double", 8, TRUE, CP_PRECISION_FP32 },
    { "c10::Half", 2, TRUE, CP_PRECISION_16 },
    { "c10::BFloat16", 2, TRUE, CP_PRECISION_16 },
    { "c10::Float8_e4m3fn", 1, TRUE, CP_PRECISION_FP8 },
    { "c10::Float8_e5m2", 1, TRUE, CP_PRECISION_FP8 },
    { "c10::Float8_e4m3fnuz", 1, TRUE, CP_PRECISION_FP8 },
    { "c10::Float8_e5m2fnuz", 1, TRUE, CP_PRECISION_FP8 },
    { "signed char", 1, FALSE, CP_PRECISION_INT8 },
    { "unsigned char", 1, FALSE, CP_PRECISION_INT8 },
    { "bool", 1, FALSE, CP_PRECISION_INT8 },
    { "short int", 2, FALSE, CP_PRECISION_INT8 },
    { "int", 4, FALSE, CP_PRECISION_INT8 },
    { "long int", 8, FALSE, CP_PRECISION_INT8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (type, types[i].type))
      {
        *is_float = types[i].fl;
        *precision = types[i].p;
        return types[i].size;
      }
  *is_float = FALSE;
  *precision = CP_PRECISION_FP32;
  return 0;
}

static JsonArray *
member_array (JsonObject *o,
              const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

/* The figures an op's JSON arguments give (text: an object holding at
 * least its "Input Dims", "Input type", "Concrete Inputs" and "flops");
 * FALSE when they give none. */
static gboolean
figures_from_json (const char *text,
                   gsize       len,
                   const char *name,
                   OpFig      *fig)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonNode *root;
  JsonObject *o;
  JsonNode *flops_node;
  JsonArray *dims, *types, *concrete;
  CpOpShapes shapes = { 0 };
  double sflops = NAN, sbytes = NAN;
  CpPrecision sprec = CP_PRECISION_FP32;
  gboolean have_shapes = FALSE;

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, text, (gssize) len, NULL))
    return FALSE;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return FALSE;
  o = json_node_get_object (root);

  dims = member_array (o, "Input Dims");
  types = member_array (o, "Input type");
  concrete = member_array (o, "Concrete Inputs");
  if (dims != NULL && json_array_get_length (dims) <= G_N_ELEMENTS (shapes.rank))
    {
      gboolean ok = TRUE;

      shapes.n_inputs = json_array_get_length (dims);
      for (guint i = 0; i < shapes.n_inputs && ok; i++)
        {
          JsonNode *d = json_array_get_element (dims, i);
          JsonArray *da = JSON_NODE_HOLDS_ARRAY (d) ? json_node_get_array (d) : NULL;
          const char *type = NULL;

          shapes.rank[i] = -1;
          if (types != NULL && i < json_array_get_length (types))
            {
              JsonNode *t = json_array_get_element (types, i);

              if (JSON_NODE_HOLDS_VALUE (t) && json_node_get_value_type (t) == G_TYPE_STRING)
                type = json_node_get_string (t);
            }
          if (concrete != NULL && i < json_array_get_length (concrete))
            {
              JsonNode *c = json_array_get_element (concrete, i);

              if (JSON_NODE_HOLDS_VALUE (c) && json_node_get_value_type (c) == G_TYPE_STRING)
                shapes.concrete[i] = json_node_get_string (c);
            }
          if (type != NULL)
            shapes.elem_size[i] = elem_size_of (type, &shapes.is_float[i], &shapes.precision[i]);
          if (da == NULL || json_array_get_length (da) > G_N_ELEMENTS (shapes.dims[0]))
            continue;
          /* A tensor: its type names one ("Scalar", "" and lists do not). */
          if (shapes.elem_size[i] == 0)
            continue;
          shapes.rank[i] = (gint) json_array_get_length (da);
          for (gint k = 0; k < shapes.rank[i]; k++)
            {
              JsonNode *v = json_array_get_element (da, k);

              if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_INT64 ||
                  json_node_get_int (v) < 0 || json_node_get_int (v) > ((gint64) 1 << 40))
                {
                  ok = FALSE;
                  break;
                }
              shapes.dims[i][k] = json_node_get_int (v);
            }
        }
      if (ok)
        have_shapes = cp_roofline_op_flops (name, &shapes, &sflops, &sbytes, &sprec);
    }

  flops_node = json_object_get_member (o, "flops");
  if (flops_node != NULL && JSON_NODE_HOLDS_VALUE (flops_node) &&
      (json_node_get_value_type (flops_node) == G_TYPE_INT64 ||
       json_node_get_value_type (flops_node) == G_TYPE_DOUBLE) &&
      isfinite (json_node_get_double (flops_node)) && json_node_get_double (flops_node) >= 0)
    {
      fig->flops = json_node_get_double (flops_node);
      fig->source = CP_FLOPS_COUNTED;
      fig->bytes = have_shapes ? sbytes : NAN;
      fig->precision = sprec;
      if (!have_shapes && shapes.n_inputs > 0 && shapes.elem_size[0] > 0)
        fig->precision = shapes.precision[0];
      return TRUE;
    }
  if (!have_shapes)
    return FALSE;
  fig->flops = sflops;
  fig->bytes = sbytes;
  fig->source = CP_FLOPS_ESTIMATED;
  fig->precision = sprec;
  return TRUE;
}

#define N_FIG_MEMBERS 4

/* An op name and the text of its members that carry figures (pointing
 * into the trace's storage), as the figure cache's key; ops repeat their
 * shapes every step, so most ops are found in the cache. */
typedef struct
{
  const char   *name;
  const guint8 *values[N_FIG_MEMBERS];
  gsize         lens[N_FIG_MEMBERS];
  guint         hash;
} FigKey;

/* What figures_from_json() gave for one FigKey (its key). */
typedef struct
{
  FigKey        key;
  gboolean      ok;
  double        flops;
  double        bytes;
  CpFlopsSource source;
  CpPrecision   precision;
} CachedFig;

static guint
fig_key_hash (gconstpointer p)
{
  return ((const FigKey *) p)->hash;
}

static gboolean
fig_key_equal (gconstpointer pa,
               gconstpointer pb)
{
  const FigKey *a = pa, *b = pb;

  if (a->hash != b->hash || strcmp (a->name, b->name) != 0)
    return FALSE;
  for (guint k = 0; k < N_FIG_MEMBERS; k++)
    if (a->lens[k] != b->lens[k] || (a->values[k] == NULL) != (b->values[k] == NULL) ||
        (a->lens[k] > 0 && memcmp (a->values[k], b->values[k], a->lens[k]) != 0))
      return FALSE;
  return TRUE;
}

/* FNV-1a over the name and the members, each ended by its length. */
static guint
fig_key_compute_hash (const FigKey *key)
{
  guint32 h = 2166136261u;

  for (const char *c = key->name; *c; c++)
    h = (h ^ (guchar) *c) * 16777619u;
  for (guint k = 0; k < N_FIG_MEMBERS; k++)
    {
      for (gsize i = 0; i < key->lens[k]; i++)
        h = (h ^ key->values[k][i]) * 16777619u;
      h = (h ^ (guint32) key->lens[k]) * 16777619u;
    }
  return h;
}

/* The op's figures from its JSON arguments; FALSE when it has none. Only
 * the members that carry figures are parsed, once per distinct name and
 * text (cache: a set of CachedFig by their FigKey). */
static gboolean
op_figures (CpTrace    *trace,
            CpSliceRef  ref,
            const char *name,
            GHashTable *cache,
            OpFig      *fig)
{
  static const char *const keys[N_FIG_MEMBERS + 1] = { "Input Dims", "Input type", "Concrete Inputs", "flops", NULL };
  CpArgsFormat format;
  const guint8 *data;
  gsize len;
  FigKey key = { name };
  CachedFig *cached;

  if (!cp_trace_get_args (trace, ref, &format, &data, &len) || format != CP_ARGS_JSON || len < 2)
    return FALSE;
  if (!cp_args_lookup_raw (trace, ref, keys, key.values, key.lens))
    {
      /* Not a plain object at the top level: json-glib reads what it can. */
      if (g_strstr_len ((const char *) data, (gssize) len, "\"flops\"") == NULL &&
          g_strstr_len ((const char *) data, (gssize) len, "\"Input Dims\"") == NULL)
        return FALSE;
      return figures_from_json ((const char *) data, len, name, fig);
    }
  /* Only ops whose arguments can carry figures. */
  if (key.values[0] == NULL && key.values[3] == NULL)
    return FALSE;

  key.hash = fig_key_compute_hash (&key);
  cached = g_hash_table_lookup (cache, &key);
  if (cached == NULL)
    {
      g_autoptr(GString) doc = g_string_new ("{");
      OpFig got = { 0 };

      for (guint k = 0; k < N_FIG_MEMBERS; k++)
        {
          if (key.values[k] == NULL)
            continue;
          if (doc->len > 1)
            g_string_append_c (doc, ',');
          g_string_append_printf (doc, "\"%s\":", keys[k]);
          g_string_append_len (doc, (const char *) key.values[k], (gssize) key.lens[k]);
        }
      g_string_append_c (doc, '}');
      cached = g_new0 (CachedFig, 1);
      cached->key = key;
      cached->ok = figures_from_json (doc->str, doc->len, name, &got);
      cached->flops = got.flops;
      cached->bytes = got.bytes;
      cached->source = got.source;
      cached->precision = got.precision;
      g_hash_table_add (cache, cached);
    }
  if (!cached->ok)
    return FALSE;
  fig->flops = cached->flops;
  fig->bytes = cached->bytes;
  fig->source = cached->source;
  fig->precision = cached->precision;
  return TRUE;
}

/* The precision of a kernel from its name alone. */
static CpPrecision
name_precision (guint32 nf)
{
  if (nf & CP_NAME_HALF)
    return CP_PRECISION_16;
  if (nf & CP_NAME_TENSOR_CORE)
    return CP_PRECISION_TF32;
  return CP_PRECISION_FP32;
}

/* The peaks of a device for a precision: those the capture states, else
 * the table's; a precision the device lacks takes the next it runs. */
static void
device_peak (CpAnalysis   *self,
             gint          ordinal,
             CpPrecision   precision,
             CpPeakSource *source,
             double       *tflops,
             double       *bandwidth)
{
  const CpDevice *dev = cp_trace_find_device (self->trace, ordinal);
  const CpDevicePeak *row = NULL;

  *source = CP_PEAK_UNKNOWN;
  *tflops = 0;
  *bandwidth = 0;
  if (dev == NULL)
    return;
  row = cp_device_peak_lookup (cp_trace_get_string (self->trace, dev->name), dev->total_memory);
  if (dev->peak_tflops > 0)
    {
      *source = CP_PEAK_CAPTURE;
      *tflops = dev->peak_tflops;
      *bandwidth = dev->memory_bandwidth > 0 ? dev->memory_bandwidth / 1e9 : (row != NULL ? row->bandwidth : 0);
      if (*bandwidth == 0)
        *source = CP_PEAK_UNKNOWN, *tflops = 0;
      return;
    }
  if (row == NULL)
    {
      double est[CP_N_PRECISIONS] = { 0 };

      /* Not in the table: from its SMs and clock, with the capture's
       * bandwidth (a roof needs both). */
      if (dev->memory_bandwidth > 0 &&
          cp_device_peak_from_properties (cp_trace_get_string (self->trace, dev->name), dev->compute_major,
                                          dev->compute_minor, dev->num_sms, dev->clock_khz, est))
        {
          *source = CP_PEAK_PROPERTIES;
          *bandwidth = dev->memory_bandwidth / 1e9;
          *tflops = est[precision];
          if (*tflops == 0 && (precision == CP_PRECISION_TF32 || precision == CP_PRECISION_FP8))
            *tflops = est[precision == CP_PRECISION_TF32 ? CP_PRECISION_FP32 : CP_PRECISION_16];
        }
      return;
    }
  *source = CP_PEAK_TABLE;
  *bandwidth = row->bandwidth;
  *tflops = row->tflops[precision];
  if (*tflops == 0 && precision == CP_PRECISION_TF32)
    *tflops = row->tflops[CP_PRECISION_FP32];
  if (*tflops == 0 && (precision == CP_PRECISION_FP8 || precision == CP_PRECISION_FP32 ||
                       precision == CP_PRECISION_TF32))
    *tflops = row->tflops[CP_PRECISION_16];   /* TPUs: the MXU's bf16 */
}

static gint
kernel_device (CpAnalysis *self,
               guint       lane,
               guint       index)
{
  const CpGpuInfo *g = _cp_analysis_gpu_info (self, lane, index);

  if (g != NULL && g->device >= 0)
    return g->device;
  if (self->lanes[lane].device_index >= 0 && (guint) self->lanes[lane].device_index < self->devices->len)
    return g_array_index (self->devices, CpDeviceStats, self->lanes[lane].device_index).device;
  return 0;
}

static CpRooflineStats *
stats_for (GArray  *array,
           guint32 *map,
           CpStr    name,
           gint     device)
{
  if (map[name] == 0)
    {
      CpRooflineStats fresh = { 0 };

      fresh.name = name;
      fresh.device = device;
      fresh.precision = CP_PRECISION_FP32;
      g_array_append_val (array, fresh);
      map[name] = array->len;
    }
  return &g_array_index (array, CpRooflineStats, map[name] - 1);
}

static void
add_launch (CpRooflineStats *st,
            gint64           dur,
            double           flops,
            double           bytes,
            CpFlopsSource    source,
            gboolean         inherited,
            CpPrecision      precision)
{
  if (st->source == CP_FLOPS_NONE)
    st->precision = precision;
  st->timed = cp_sat_add (st->timed, dur);
  st->flops += flops;
  if (isfinite (bytes) && bytes >= 0)
    {
      st->bytes += bytes;
      st->flops_with_bytes += flops;
      st->bytes_time = cp_sat_add (st->bytes_time, dur);
    }
  if (source > st->source)
    st->source = source;
  st->inherited |= inherited;
}

static void
finish_all (CpAnalysis *self,
            GArray     *array)
{
  for (guint k = 0; k < array->len; k++)
    {
      CpRooflineStats *st = &g_array_index (array, CpRooflineStats, k);

      device_peak (self, st->device, st->precision, &st->peak_source, &st->peak_tflops, &st->peak_bandwidth);
      cp_roofline_stats_finish (st);
    }
}

static gint
cmp_time (gconstpointer a,
          gconstpointer b)
{
  const CpRooflineStats *x = a, *y = b;

  if (x->time != y->time)
    return x->time > y->time ? -1 : 1;
  return x->name < y->name ? -1 : (x->name > y->name);
}

struct _CpRooflineWalk
{
  GArray     *insts;            /* of OpFig: the op instances with figures */
  GArray     *pending;          /* of Pending: kernels that take an op's figures */
  GHashTable *fig_cache;        /* of CachedFig */
};

CpRooflineWalk *
_cp_analysis_roofline_begin (CpAnalysis *self)
{
  CpRooflineWalk *w = g_new0 (CpRooflineWalk, 1);

  w->insts = g_array_new (FALSE, TRUE, sizeof (OpFig));
  w->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  w->fig_cache = g_hash_table_new_full (fig_key_hash, fig_key_equal, g_free, NULL);
  return w;
}

void
_cp_analysis_roofline_launch (CpAnalysis     *self,
                              CpRooflineWalk *w,
                              guint           lane,
                              guint           index,
                              guint           host_lane,
                              const guint32  *stack_index,
                              gint32         *memo,
                              const guint32  *chain,
                              guint           n_chain)
{
  const CpSlices *s = self->lanes[lane].slices;
  const CpSlices *hs = self->lanes[host_lane].slices;
  CpSliceClass c = _cp_analysis_slice_class (self, lane, index);
  const CpGpuInfo *g;

  if (self->lanes[lane].kind != CP_LANE_KERNEL || (c != CP_TIME_COMPUTE_16 && c != CP_TIME_COMPUTE_32))
    return;
  if (cp_slices_get_dur (s, index) <= 0)
    return;
  /* Measured figures are the kernel's own (the finishing pass). */
  g = cp_slices_get_gpu (s, index) ? _cp_analysis_gpu_info (self, lane, index) : NULL;
  if (g != NULL && g->flops >= 0)
    return;

  /* The nearest op around the launch call with figures, within 64 ops. */
  for (guint k = 0; k < n_chain && k < 64; k++)
    {
      guint32 pos = chain[k];
      guint32 op = stack_index[pos];

      if (memo[pos] == 0)
        {
          OpFig fig = { 0 };
          CpSliceRef oref = { host_lane, op };

          fig.name = cp_slices_get_name (hs, op);
          memo[pos] = -1;
          if (op_figures (self->trace, oref, cp_trace_get_string (self->trace, fig.name), w->fig_cache, &fig))
            {
              g_array_append_val (w->insts, fig);
              memo[pos] = (gint32) w->insts->len;
            }
        }
      if (memo[pos] > 0)
        {
          Pending p = { lane, index, (guint) memo[pos] - 1 };
          OpFig *fig = &g_array_index (w->insts, OpFig, p.inst);

          fig->attributed = cp_sat_add (fig->attributed, cp_slices_get_dur (s, index));
          if (!(cp_name_cache_lookup (self->names, cp_slices_get_name (s, index)) & CP_NAME_DATA_MOVEMENT))
            fig->computing = cp_sat_add (fig->computing, cp_slices_get_dur (s, index));
          g_array_append_val (w->pending, p);
          return;
        }
    }
}

static gint
cmp_pending (gconstpointer a,
             gconstpointer b)
{
  const Pending *x = a, *y = b;

  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

/* Puts the pending kernels in the order of the kernel lanes, and the op
 * instances in the order of their first kernel there, each taking that
 * kernel's device: the order in which a walk of the kernel lanes would
 * have met them, which the sums and the ties of the sort below follow. */
static void
order_by_kernels (CpAnalysis     *self,
                  CpRooflineWalk *w)
{
  guint n = w->insts->len, next = 0;
  g_autofree guint *rank = g_new (guint, MAX (n, 1));
  g_autoptr(GArray) sorted = g_array_sized_new (FALSE, TRUE, sizeof (OpFig), n);

  g_array_sort (w->pending, cmp_pending);
  for (guint k = 0; k < n; k++)
    rank[k] = G_MAXUINT;
  for (guint k = 0; k < w->pending->len; k++)
    {
      Pending *p = &g_array_index (w->pending, Pending, k);

      if (rank[p->inst] == G_MAXUINT)
        {
          OpFig fig = g_array_index (w->insts, OpFig, p->inst);

          fig.device = kernel_device (self, p->lane, p->index);
          g_array_append_val (sorted, fig);
          rank[p->inst] = next++;
        }
      p->inst = rank[p->inst];
    }
  /* Every instance came with its first kernel. */
  g_assert (next == n);
  g_array_unref (w->insts);
  w->insts = g_steal_pointer (&sorted);
}

void
_cp_analysis_roofline (CpAnalysis     *self,
                       CpRooflineWalk *w)
{
  guint pool_size = cp_string_pool_size (cp_trace_get_string_pool (self->trace));
  g_autofree guint32 *kmap = g_new0 (guint32, MAX (pool_size, 1));
  g_autofree guint32 *omap = g_new0 (guint32, MAX (pool_size, 1));
  gboolean tpu = cp_analysis_devices_are_tpu (self);

  for (guint l = 0; l < self->n_lanes; l++)
    {
      const CpLaneInfo *info = &self->lanes[l];
      const CpSlices *s = info->slices;

      if (info->kind != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceClass c = _cp_analysis_slice_class (self, l, i);
          CpStr name = cp_slices_get_name (s, i);
          guint32 nf = cp_name_cache_lookup (self->names, name);
          gint64 dur = cp_slices_get_dur (s, i);
          const CpGpuInfo *g;
          CpRooflineStats *st;

          if (c != CP_TIME_COMPUTE_16 && c != CP_TIME_COMPUTE_32)
            continue;
          st = stats_for (self->roofline_kernels, kmap, name, kernel_device (self, l, i));
          st->count++;
          st->time = cp_sat_add (st->time, dur);
          if (st->source == CP_FLOPS_NONE)
            st->precision = tpu ? CP_PRECISION_16 : name_precision (nf);

          g = cp_slices_get_gpu (s, i) ? _cp_analysis_gpu_info (self, l, i) : NULL;
          if (g != NULL && g->flops >= 0)
            add_launch (st, dur, (double) g->flops,
                        g->bytes_accessed >= 0 ? (double) g->bytes_accessed : NAN,
                        CP_FLOPS_MEASURED, FALSE, st->precision);
        }
    }

  /* Kernels that compute take their op's figures by their share of its
   * computing kernels' time; kernels that only move or lay out data
   * (transposes, copies, fills launched inside a convolution...) do no
   * FLOPs and take its bytes by their share of all its kernel time. */
  order_by_kernels (self, w);
  for (guint k = 0; k < w->pending->len; k++)
    {
      const Pending *p = &g_array_index (w->pending, Pending, k);
      const OpFig *fig = &g_array_index (w->insts, OpFig, p->inst);
      const CpSlices *s = self->lanes[p->lane].slices;
      CpStr name = cp_slices_get_name (s, p->index);
      guint32 nf = cp_name_cache_lookup (self->names, name);
      gint64 dur = cp_slices_get_dur (s, p->index);
      gboolean moves = (nf & CP_NAME_DATA_MOVEMENT) != 0;
      double share = (double) dur / (double) (moves ? fig->attributed : fig->computing);
      CpPrecision prec = fig->precision;

      if (prec == CP_PRECISION_FP32 && (nf & CP_NAME_TENSOR_CORE))
        prec = CP_PRECISION_TF32;
      add_launch (stats_for (self->roofline_kernels, kmap, name, fig->device), dur,
                  moves ? 0.0 : fig->flops * share, fig->bytes * share, fig->source, TRUE, prec);
    }

  /* Host ops: their figures over the kernel time they launched. */
  for (guint k = 0; k < w->insts->len; k++)
    {
      const OpFig *fig = &g_array_index (w->insts, OpFig, k);
      CpRooflineStats *st;

      if (fig->attributed <= 0)
        continue;
      st = stats_for (self->roofline_ops, omap, fig->name, fig->device);
      st->count++;
      st->time = cp_sat_add (st->time, fig->attributed);
      add_launch (st, fig->attributed, fig->flops, fig->bytes, fig->source, FALSE, fig->precision);
    }

  g_array_unref (w->insts);
  g_array_unref (w->pending);
  g_hash_table_unref (w->fig_cache);
  g_free (w);

  finish_all (self, self->roofline_kernels);
  finish_all (self, self->roofline_ops);
  g_array_sort (self->roofline_kernels, cmp_time);
  g_array_sort (self->roofline_ops, cmp_time);
}

const CpRooflineStats *
cp_analysis_get_roofline (CpAnalysis *self,
                          gboolean    host_ops,
                          guint      *n)
{
  GArray *a;

  g_return_val_if_fail (CP_IS_ANALYSIS (self), NULL);
  a = host_ops ? self->roofline_ops : self->roofline_kernels;
  *n = a != NULL ? a->len : 0;
  return a != NULL ? (const CpRooflineStats *) (gpointer) a->data : NULL;
}

void
cp_analysis_get_device_peak (CpAnalysis   *self,
                             gint          ordinal,
                             CpPrecision   precision,
                             CpPeakSource *source,
                             double       *tflops,
                             double       *bandwidth)
{
  g_return_if_fail (CP_IS_ANALYSIS (self));
  device_peak (self, ordinal, precision, source, tflops, bandwidth);
}

/* The JSON form (docs/diagnose-json.md, `roofline`). */

#define MAX_ROOFLINE_LISTED 500

static void
write_entries (CpAnalysis  *self,
               JsonBuilder *b,
               const char  *member,
               GArray      *array)
{
  _cp_json_add_int (b, member[0] == 'k' ? "kernel_names" : "host_op_names", array->len);
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (guint k = 0; k < MIN (array->len, MAX_ROOFLINE_LISTED); k++)
    {
      const CpRooflineStats *st = &g_array_index (array, CpRooflineStats, k);

      json_builder_begin_object (b);
      _cp_json_add_string (b, "name", cp_trace_get_string (self->trace, st->name));
      _cp_json_add_int (b, "count", st->count);
      _cp_json_add_int (b, "time_ns", st->time);
      _cp_json_add_int (b, "timed_ns", st->timed);
      _cp_json_add_double (b, "flops", st->source != CP_FLOPS_NONE ? st->flops : NAN);
      _cp_json_add_double (b, "bytes", st->bytes_time > 0 ? st->bytes : NAN);
      _cp_json_add_string (b, "flops_source", cp_flops_source_to_string (st->source));
      _cp_json_add_bool (b, "estimate", st->source == CP_FLOPS_ESTIMATED);
      _cp_json_add_bool (b, "inherited", st->inherited);
      _cp_json_add_string (b, "precision", cp_precision_to_string (st->precision));
      _cp_json_add_int (b, "device", st->device);
      _cp_json_add_string (b, "peak_source", cp_peak_source_to_string (st->peak_source));
      _cp_json_add_double (b, "peak_tflops", st->peak_tflops > 0 ? st->peak_tflops : NAN);
      _cp_json_add_double (b, "peak_bandwidth_gbps", st->peak_bandwidth > 0 ? st->peak_bandwidth : NAN);
      _cp_json_add_double (b, "achieved_tflops", st->achieved_tflops);
      _cp_json_add_double (b, "achieved_gbps", st->achieved_gbs);
      _cp_json_add_double (b, "intensity", st->intensity);
      _cp_json_add_double (b, "roofline_percent", st->roofline_percent);
      _cp_json_add_string (b, "bound", cp_bound_to_string (st->bound));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

void
_cp_analysis_roofline_to_json (CpAnalysis  *self,
                               JsonBuilder *b)
{
  static const char * const keys[CP_N_PRECISIONS] = { "fp32", "tf32", "bf16_fp16", "fp8", "int8" };

  json_builder_set_member_name (b, "roofline");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint d = 0; d < cp_trace_get_n_devices (self->trace); d++)
    {
      const CpDevice *dev = cp_trace_get_device (self->trace, d);
      CpPeakSource source = CP_PEAK_UNKNOWN;
      double bw = 0;

      json_builder_begin_object (b);
      _cp_json_add_int (b, "device", dev->ordinal);
      _cp_json_add_string (b, "name", cp_trace_get_string (self->trace, dev->name));
      json_builder_set_member_name (b, "peak_tflops");
      json_builder_begin_object (b);
      for (guint p = 0; p < CP_N_PRECISIONS; p++)
        {
          double t;

          device_peak (self, dev->ordinal, p, &source, &t, &bw);
          _cp_json_add_double (b, keys[p], t > 0 ? t : NAN);
        }
      json_builder_end_object (b);
      _cp_json_add_double (b, "bandwidth_gbps", bw > 0 ? bw : NAN);
      _cp_json_add_string (b, "peak_source", cp_peak_source_to_string (source));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  write_entries (self, b, "kernels", self->roofline_kernels);
  write_entries (self, b, "host_ops", self->roofline_ops);
  json_builder_end_object (b);
}
