/* cp-trace-builder.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp-lane-private.h"
#include "cp-trace-builder.h"
#include "cp-trace-private.h"

#define ARGS_CHUNK_SIZE (4 * 1024 * 1024)
#define MAX_ROWS CP_LANE_MAX_ROWS

typedef struct
{
  guint           process;
  CpLaneKind      kind;
  CpLaneKey       key;
  char           *name;
  gint64          sort_key;
  gint            device;
  gint64          stream;
  CpTransferKind  transfer_kind;

  /* Columns in insertion order. */
  guint           n;
  guint           cap;
  gint64         *start;
  CpStr          *names;
  guint8         *cat8;          /* see blane_set_cat() */
  CpStr          *cat_table;
  guint           n_cats;
  guint           last_cat;
  CpStr          *cat32;
  guint16        *flags;
  CpSparseBuilder corr;
  CpSparseBuilder ext;
  CpSparseBuilder gpu;
  CpSparseBuilder args;
  gboolean        unsorted;

  GArray         *counter_ts;
  GArray         *counter_values;

  guint32        *dur32;         /* see blane_dur() */
  GHashTable     *long_durs;
  /* Set by finish(): the long durations as in CpSlices. */
  guint           n_long;
  guint32        *long_index;
  gint64         *long_dur;

  /* Set by finish(): insertion index -> sorted index (NULL: identity). */
  guint32        *new_index;
  guint16        *rows;
  guint           final_index;
} BLane;

/* Durations are 32-bit ns from the start, as in CpSlices; the few of
 * G_MAXUINT32 ns or more are in long_durs (index -> gint64). */
static inline gint64
blane_dur (const BLane *l,
           guint        i)
{
  guint32 d = l->dur32[i];

  if (G_LIKELY (d != G_MAXUINT32))
    return d;
  return *(const gint64 *) g_hash_table_lookup (l->long_durs, GUINT_TO_POINTER (i + 1));
}

static void
blane_set_dur (BLane  *l,
               guint   i,
               gint64  dur,
               gboolean was_set)
{
  if (was_set && l->dur32[i] == G_MAXUINT32)
    g_hash_table_remove (l->long_durs, GUINT_TO_POINTER (i + 1));
  if (G_LIKELY (dur < G_MAXUINT32))
    {
      l->dur32[i] = (guint32) dur;
      return;
    }
  if (l->long_durs == NULL)
    l->long_durs = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  l->dur32[i] = G_MAXUINT32;
  g_hash_table_insert (l->long_durs, GUINT_TO_POINTER (i + 1), g_memdup2 (&dur, sizeof dur));
}

static gint
cmp_guint32 (gconstpointer a,
             gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : (x > y);
}

/* The long durations as the sorted side table of CpSlices (once the lane is
 * sorted). */
static void
blane_finish_durations (BLane *l)
{
  guint n_long = l->long_durs != NULL ? g_hash_table_size (l->long_durs) : 0;

  if (n_long > 0)
    {
      GHashTableIter iter;
      gpointer key;
      guint k = 0;

      l->long_index = g_new (guint32, n_long);
      l->long_dur = g_new (gint64, n_long);
      g_hash_table_iter_init (&iter, l->long_durs);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        l->long_index[k++] = GPOINTER_TO_UINT (key) - 1;
      qsort (l->long_index, n_long, sizeof (guint32), cmp_guint32);
      for (k = 0; k < n_long; k++)
        l->long_dur[k] = blane_dur (l, l->long_index[k]);
    }
  l->n_long = n_long;
  g_clear_pointer (&l->long_durs, g_hash_table_unref);
}

typedef struct
{
  guint64    key;
  gint64     ts;
  guint32    lane;
  guint32    seq;
  CpStr      name;
  guint8     bind;
  guint8     order;
  guint8     kind;
} FlowPoint;

typedef struct
{
  guint    process;
  guint    kind;
  gint64   num;
  CpStr    str;
} LaneKey;

struct _CpTraceBuilder
{
  CpStringPool *strings;
  CpLoadReport *report;
  GFile        *file;
  char         *title;
  gint64        epoch_base;
  gboolean      has_epoch;
  gint64        time_offset;

  GArray       *processes;       /* of CpProcess */
  GArray       *process_sort_set;/* of gboolean */
  GHashTable   *pid_numbers;     /* gint64* -> index+1 */
  GHashTable   *pid_strings;     /* CpStr -> index+1 */

  GPtrArray    *lanes;           /* of BLane* */
  GHashTable   *lane_keys;       /* LaneKey* -> index+1 */

  GArray       *gpu_infos;
  GArray       *args;            /* of CpArgsRecord */
  GPtrArray    *args_chunks;
  guint8       *args_chunk;
  gsize         args_chunk_used;
  gsize         args_arena_bytes;
  GBytes       *args_source;

  GArray       *flows;           /* of CpFlow, insertion refs */
  GArray       *flow_points;     /* of FlowPoint */
  GArray       *instants;        /* of CpInstant, absolute ts, builder lane index */
  GArray       *steps;           /* of CpStep, absolute times, insertion refs */
  GArray       *devices;
  GHashTable   *device_index;  /* ordinal -> index + 1 in devices */
  GArray       *metadata;
  gboolean      link_correlations;
  guint64       negative_durations;
  guint64       out_of_range;

  gint64        min_ts;
  gint64        max_ts;
  gboolean      any;
  guint         finish_threads;  /* 0: by size and cores */
};

static guint
lane_key_hash (gconstpointer p)
{
  const LaneKey *k = p;
  guint64 h = k->process * 0x9E3779B97F4A7C15ull;

  h ^= (guint64) k->kind * 0xC2B2AE3D27D4EB4Full;
  h ^= (guint64) k->num * 0x165667B19E3779F9ull;
  h ^= (guint64) k->str * 0x27D4EB2F165667C5ull;
  return (guint) (h ^ (h >> 32));
}

static gboolean
lane_key_equal (gconstpointer a,
                gconstpointer b)
{
  const LaneKey *x = a, *y = b;

  return x->process == y->process && x->kind == y->kind &&
         x->num == y->num && x->str == y->str;
}

static void
blane_free (gpointer data)
{
  BLane *l = data;

  g_free (l->name);
  g_free (l->start);
  g_free (l->dur32);
  g_clear_pointer (&l->long_durs, g_hash_table_unref);
  g_free (l->long_index);
  g_free (l->long_dur);
  g_free (l->names);
  g_free (l->cat8);
  g_free (l->cat_table);
  g_free (l->cat32);
  g_free (l->flags);
  _cp_sparse_builder_clear (&l->corr);
  _cp_sparse_builder_clear (&l->ext);
  _cp_sparse_builder_clear (&l->gpu);
  _cp_sparse_builder_clear (&l->args);
  g_free (l->new_index);
  g_free (l->rows);
  if (l->counter_ts)
    g_array_unref (l->counter_ts);
  if (l->counter_values)
    g_array_unref (l->counter_values);
  g_free (l);
}

static void
clear_metadata (gpointer data)
{
  CpMetadataEntry *e = data;

  g_clear_pointer (&e->json, g_free);
}

void
cp_slice_init_clear (CpSliceInit *init)
{
  memset (init, 0, sizeof *init);
  init->corr = CP_NONE;
  init->ext = CP_NONE;
}

CpTraceBuilder *
cp_trace_builder_new (void)
{
  CpTraceBuilder *self = g_new0 (CpTraceBuilder, 1);

  self->strings = cp_string_pool_new ();
  self->report = cp_load_report_new ();
  self->processes = g_array_new (FALSE, TRUE, sizeof (CpProcess));
  self->process_sort_set = g_array_new (FALSE, TRUE, sizeof (gboolean));
  self->pid_numbers = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->pid_strings = g_hash_table_new (NULL, NULL);
  self->lanes = g_ptr_array_new_with_free_func (blane_free);
  self->lane_keys = g_hash_table_new_full (lane_key_hash, lane_key_equal, g_free, NULL);
  self->gpu_infos = g_array_new (FALSE, TRUE, sizeof (CpGpuInfo));
  self->args = g_array_new (FALSE, TRUE, sizeof (CpArgsRecord));
  self->args_chunks = g_ptr_array_new_with_free_func (g_free);
  self->flows = g_array_new (FALSE, TRUE, sizeof (CpFlow));
  self->flow_points = g_array_new (FALSE, TRUE, sizeof (FlowPoint));
  self->instants = g_array_new (FALSE, TRUE, sizeof (CpInstant));
  self->steps = g_array_new (FALSE, TRUE, sizeof (CpStep));
  self->devices = g_array_new (FALSE, TRUE, sizeof (CpDevice));
  self->device_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->metadata = g_array_new (FALSE, TRUE, sizeof (CpMetadataEntry));
  g_array_set_clear_func (self->metadata, clear_metadata);
  self->link_correlations = TRUE;
  self->min_ts = G_MAXINT64;
  self->max_ts = G_MININT64;
  return self;
}

void
cp_trace_builder_free (CpTraceBuilder *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->strings, cp_string_pool_free);
  g_clear_pointer (&self->report, cp_load_report_free);
  g_clear_object (&self->file);
  g_free (self->title);
  g_array_unref (self->processes);
  g_array_unref (self->process_sort_set);
  g_hash_table_unref (self->pid_numbers);
  g_hash_table_unref (self->pid_strings);
  g_ptr_array_unref (self->lanes);
  g_hash_table_unref (self->lane_keys);
  g_clear_pointer (&self->gpu_infos, g_array_unref);
  g_clear_pointer (&self->args, g_array_unref);
  g_clear_pointer (&self->args_chunks, g_ptr_array_unref);
  g_clear_pointer (&self->args_source, g_bytes_unref);
  g_clear_pointer (&self->flows, g_array_unref);
  g_array_unref (self->flow_points);
  g_array_unref (self->instants);
  g_array_unref (self->steps);
  g_clear_pointer (&self->devices, g_array_unref);
  g_clear_pointer (&self->device_index, g_hash_table_unref);
  g_clear_pointer (&self->metadata, g_array_unref);
  g_free (self);
}

CpStr
cp_trace_builder_intern (CpTraceBuilder *self,
                         const char     *str,
                         gssize          len)
{
  return cp_string_pool_intern (self->strings, str, len);
}

const char *
cp_trace_builder_get_string (CpTraceBuilder *self,
                             CpStr           id)
{
  return cp_string_pool_get (self->strings, id);
}

CpLoadReport *
cp_trace_builder_get_report (CpTraceBuilder *self)
{
  return self->report;
}

void
cp_trace_builder_set_file (CpTraceBuilder *self,
                           GFile          *file)
{
  g_set_object (&self->file, file);
}

void
cp_trace_builder_set_title (CpTraceBuilder *self,
                            const char     *title)
{
  g_free (self->title);
  self->title = g_strdup (title);
}

void
cp_trace_builder_set_epoch_base (CpTraceBuilder *self,
                                 gint64          epoch_ns)
{
  self->epoch_base = epoch_ns;
  self->has_epoch = TRUE;
}

void
cp_trace_builder_set_time_offset (CpTraceBuilder *self,
                                  gint64          offset_ns)
{
  self->time_offset = offset_ns;
}

/* Processes */

static guint
add_process (CpTraceBuilder *self,
             gint64          pid,
             CpStr           key)
{
  CpProcess p = { 0 };
  gboolean sort_set = FALSE;

  p.key = key;
  p.pid = pid;
  p.sort_index = pid == CP_NONE ? G_MAXINT32 : pid;
  p.device = -1;
  p.is_pseudo = pid == -1;
  g_array_append_val (self->processes, p);
  g_array_append_val (self->process_sort_set, sort_set);
  return self->processes->len - 1;
}

guint
cp_trace_builder_process_for_pid (CpTraceBuilder *self,
                                  gint64          pid)
{
  gpointer v = g_hash_table_lookup (self->pid_numbers, &pid);
  char buf[32];
  guint index;

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;

  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, pid);
  index = add_process (self, pid, cp_string_pool_intern (self->strings, buf, -1));
  if (pid == CP_NONE)
    {
      /* -1 is CUPTI overhead in Kineto: keep it a real pid. */
      g_array_index (self->processes, CpProcess, index).pid = -1;
    }
  g_hash_table_insert (self->pid_numbers, g_memdup2 (&pid, sizeof pid), GUINT_TO_POINTER (index + 1));
  return index;
}

guint
cp_trace_builder_process_for_string (CpTraceBuilder *self,
                                     const char     *pid,
                                     gssize          len)
{
  CpStr key = cp_string_pool_intern (self->strings, pid, len);
  gpointer v = g_hash_table_lookup (self->pid_strings, GUINT_TO_POINTER (key));
  guint index;

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;

  index = add_process (self, CP_NONE, key);
  g_array_index (self->processes, CpProcess, index).pid = CP_NONE;
  g_array_index (self->processes, CpProcess, index).is_pseudo = FALSE;
  g_hash_table_insert (self->pid_strings, GUINT_TO_POINTER (key), GUINT_TO_POINTER (index + 1));
  return index;
}

CpProcess *
cp_trace_builder_get_process (CpTraceBuilder *self,
                              guint           process)
{
  g_return_val_if_fail (process < self->processes->len, NULL);
  /* Callers may change sort_index: remember that it was set on purpose. */
  g_array_index (self->process_sort_set, gboolean, process) = TRUE;
  return &g_array_index (self->processes, CpProcess, process);
}

/* Lanes */

static char *
default_lane_name (CpTraceBuilder *self,
                   CpLaneKind      kind,
                   CpLaneKey       key)
{
  if (key.str != CP_STR_EMPTY)
    return g_strdup (cp_string_pool_get (self->strings, key.str));

  switch (kind)
    {
    case CP_LANE_HOST_THREAD:
      /* Kineto writes a pthread id cut to 32 bits as a signed number
       * ("tid": -549452224); the thread's number is the unsigned one. */
      if (key.num < -1 && key.num >= G_MININT32)
        return g_strdup_printf ("thread %u", (guint32) (gint32) key.num);
      return g_strdup_printf ("thread %" G_GINT64_FORMAT, key.num);
    case CP_LANE_KERNEL:
      return g_strdup_printf ("stream %" G_GINT64_FORMAT, key.num);
    case CP_LANE_TRANSFER:
      return g_strdup_printf ("%s", cp_transfer_kind_to_string ((CpTransferKind) key.num));
    case CP_LANE_DEVICE_ANNOTATION:
      return g_strdup_printf ("annotations %" G_GINT64_FORMAT, key.num);
    case CP_LANE_ASYNC:
      return g_strdup_printf ("async %" G_GINT64_FORMAT, key.num);
    case CP_LANE_COUNTER:
      return g_strdup_printf ("counter %" G_GINT64_FORMAT, key.num);
    case CP_LANE_N_KINDS:
    default:
      return g_strdup ("");
    }
}

gboolean
cp_trace_builder_has_lane (CpTraceBuilder *self,
                           guint           process,
                           CpLaneKind      kind,
                           CpLaneKey       key,
                           guint          *lane)
{
  LaneKey k = { process, kind, key.num, key.str };
  gpointer v = g_hash_table_lookup (self->lane_keys, &k);

  if (v == NULL)
    return FALSE;
  if (lane)
    *lane = GPOINTER_TO_UINT (v) - 1;
  return TRUE;
}

guint
cp_trace_builder_lane (CpTraceBuilder *self,
                       guint           process,
                       CpLaneKind      kind,
                       CpLaneKey       key)
{
  LaneKey k = { process, kind, key.num, key.str };
  gpointer v = g_hash_table_lookup (self->lane_keys, &k);
  const CpProcess *p;
  BLane *l;

  g_return_val_if_fail (process < self->processes->len, 0);

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;

  p = &g_array_index (self->processes, CpProcess, process);
  l = g_new0 (BLane, 1);
  l->process = process;
  l->kind = kind;
  l->key = key;
  l->name = default_lane_name (self, kind, key);
  l->sort_key = key.str == CP_STR_EMPTY ? key.num : G_MAXINT32;
  l->device = p->device;
  l->stream = kind == CP_LANE_KERNEL ? key.num : -1;
  l->transfer_kind = kind == CP_LANE_TRANSFER ? (CpTransferKind) CLAMP (key.num, 0, CP_TRANSFER_N_KINDS - 1)
                                              : CP_TRANSFER_NONE;
  if (kind == CP_LANE_COUNTER)
    {
      l->counter_ts = g_array_new (FALSE, FALSE, sizeof (gint64));
      l->counter_values = g_array_new (FALSE, FALSE, sizeof (double));
    }
  g_ptr_array_add (self->lanes, l);
  g_hash_table_insert (self->lane_keys, g_memdup2 (&k, sizeof k),
                       GUINT_TO_POINTER (self->lanes->len));
  return self->lanes->len - 1;
}

static BLane *
get_lane (CpTraceBuilder *self,
          guint           lane)
{
  g_return_val_if_fail (lane < self->lanes->len, NULL);
  return g_ptr_array_index (self->lanes, lane);
}

void
cp_trace_builder_set_lane_name (CpTraceBuilder *self,
                                guint           lane,
                                const char     *name)
{
  BLane *l = get_lane (self, lane);

  if (l == NULL)
    return;
  g_free (l->name);
  l->name = g_strdup (name ? name : "");
}

void
cp_trace_builder_set_lane_sort_key (CpTraceBuilder *self,
                                    guint           lane,
                                    gint64          sort_key)
{
  BLane *l = get_lane (self, lane);

  if (l != NULL)
    l->sort_key = sort_key;
}

void
cp_trace_builder_set_lane_device (CpTraceBuilder *self,
                                  guint           lane,
                                  gint            device,
                                  gint64          stream)
{
  BLane *l = get_lane (self, lane);

  if (l != NULL)
    {
      l->device = device;
      l->stream = stream;
    }
}

void
cp_trace_builder_set_lane_transfer_kind (CpTraceBuilder *self,
                                         guint           lane,
                                         CpTransferKind  kind)
{
  BLane *l = get_lane (self, lane);

  if (l != NULL)
    l->transfer_kind = kind;
}

guint
cp_trace_builder_get_n_lanes (CpTraceBuilder *self)
{
  return self->lanes->len;
}

CpLaneKind
cp_trace_builder_get_lane_kind (CpTraceBuilder *self,
                                guint           lane)
{
  BLane *l = get_lane (self, lane);

  return l ? l->kind : CP_LANE_HOST_THREAD;
}

guint
cp_trace_builder_get_lane_process (CpTraceBuilder *self,
                                   guint           lane)
{
  BLane *l = get_lane (self, lane);

  return l ? l->process : 0;
}

/* Slices */

/* Categories: most lanes have a few (kernel; cpu_op and user_annotation),
 * so each slice keeps an 8-bit index in the lane's table; past
 * MAX_LANE_CATS distinct ones (a linear search each), 32-bit ids. */
#define MAX_LANE_CATS 64

static void
blane_set_cat (BLane *l,
               guint  i,
               CpStr  cat)
{
  guint k;

  if (l->cat32 != NULL)
    {
      l->cat32[i] = cat;
      return;
    }
  if (l->n_cats > 0 && l->cat_table[l->last_cat] == cat)
    {
      l->cat8[i] = (guint8) l->last_cat;
      return;
    }
  for (k = 0; k < l->n_cats; k++)
    if (l->cat_table[k] == cat)
      break;
  if (k == l->n_cats)
    {
      if (l->n_cats == MAX_LANE_CATS)
        {
          /* Too many: one id per slice from now on. */
          l->cat32 = g_new (CpStr, MAX (l->cap, 1));
          for (guint j = 0; j < i; j++)
            l->cat32[j] = l->cat_table[l->cat8[j]];
          g_clear_pointer (&l->cat8, g_free);
          g_clear_pointer (&l->cat_table, g_free);
          l->n_cats = 0;
          l->cat32[i] = cat;
          return;
        }
      if (l->cat_table == NULL)
        l->cat_table = g_new (CpStr, MAX_LANE_CATS);
      l->cat_table[l->n_cats++] = cat;
    }
  l->last_cat = k;
  l->cat8[i] = (guint8) k;
}

static void
blane_grow (BLane *l)
{
  guint cap = l->cap ? l->cap * 2 : 64;

  if (cap < l->cap)
    g_error ("too many slices on one lane");
  l->start = g_renew (gint64, l->start, cap);
  l->dur32 = g_renew (guint32, l->dur32, cap);
  l->names = g_renew (CpStr, l->names, cap);
  if (l->cat32 != NULL)
    l->cat32 = g_renew (CpStr, l->cat32, cap);
  else
    l->cat8 = g_renew (guint8, l->cat8, cap);
  l->flags = g_renew (guint16, l->flags, cap);
  l->cap = cap;
}

static inline void
note_time (CpTraceBuilder *self,
           gint64          t0,
           gint64          t1)
{
  self->any = TRUE;
  if (t0 < self->min_ts)
    self->min_ts = t0;
  if (t1 > self->max_ts)
    self->max_ts = t1;
}

/* Appends a slice to l; what is counted for the whole trace goes to stats. */
static inline CpSliceRef
blane_add_slice (BLane             *l,
                 guint              lane,
                 const CpSliceInit *init,
                 CpSinkStats       *stats)
{
  CpSliceRef ref;
  gint64 dur;
  guint i;

  if (G_UNLIKELY (l->n == G_MAXUINT32 - 1))
    {
      stats->skipped++;
      return CP_SLICE_REF_NONE;
    }
  if (l->n == l->cap)
    blane_grow (l);

  if (G_UNLIKELY (!CP_TIME_ABS_IN_RANGE (init->start)))
    {
      stats->skipped++;
      stats->out_of_range++;
      return CP_SLICE_REF_NONE;
    }
  dur = init->dur;
  if (G_UNLIKELY (dur < 0))
    {
      dur = 0;
      stats->negative_durations++;
    }
  /* Ends past the time domain are cut at its edge (start is inside it). */
  if (G_UNLIKELY (dur > CP_TIME_ABS_LIMIT - init->start))
    dur = CP_TIME_ABS_LIMIT - init->start;

  i = l->n++;
  l->start[i] = init->start;
  blane_set_dur (l, i, dur, FALSE);
  l->names[i] = init->name;
  blane_set_cat (l, i, init->cat);
  l->flags[i] = init->flags;
  if (init->corr != CP_NONE)
    _cp_sparse_builder_set (&l->corr, i, init->corr);
  if (init->ext != CP_NONE)
    _cp_sparse_builder_set (&l->ext, i, init->ext);
  if (init->args != 0)
    _cp_sparse_builder_set (&l->args, i, init->args);
  if (init->gpu_id != 0)
    _cp_sparse_builder_set (&l->gpu, i, init->gpu_id);

  if (i > 0 && !l->unsorted)
    {
      if (l->start[i] < l->start[i - 1] ||
          (l->start[i] == l->start[i - 1] && dur > blane_dur (l, i - 1)))
        l->unsorted = TRUE;
    }

  stats->any = TRUE;
  if (init->start < stats->min_ts)
    stats->min_ts = init->start;
  if (init->start + dur > stats->max_ts)
    stats->max_ts = init->start + dur;

  ref.lane = lane;
  ref.index = i;
  return ref;
}

CpSliceRef
cp_trace_builder_add_slice (CpTraceBuilder    *self,
                            guint              lane,
                            const CpSliceInit *init)
{
  BLane *l = get_lane (self, lane);
  CpSinkStats stats;
  CpSliceInit copy;
  CpSliceRef ref;

  if (l == NULL)
    return CP_SLICE_REF_NONE;
  copy = *init;
  if (init->gpu != NULL)
    {
      g_array_append_val (self->gpu_infos, *init->gpu);
      copy.gpu_id = self->gpu_infos->len;
    }
  else if (init->gpu_id > self->gpu_infos->len)
    copy.gpu_id = 0;
  cp_sink_stats_init (&stats);
  ref = blane_add_slice (l, lane, &copy, &stats);
  cp_trace_builder_merge_sink_stats (self, &stats);
  return ref;
}

void
cp_sink_stats_init (CpSinkStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->min_ts = G_MAXINT64;
  stats->max_ts = G_MININT64;
}

void
cp_sink_stats_add (CpSinkStats       *into,
                   const CpSinkStats *from)
{
  into->skipped += from->skipped;
  into->negative_durations += from->negative_durations;
  into->out_of_range += from->out_of_range;
  if (from->any)
    {
      into->any = TRUE;
      into->min_ts = MIN (into->min_ts, from->min_ts);
      into->max_ts = MAX (into->max_ts, from->max_ts);
    }
}

void
cp_trace_builder_merge_sink_stats (CpTraceBuilder    *self,
                                   const CpSinkStats *stats)
{
  self->report->skipped += stats->skipped;
  self->negative_durations += stats->negative_durations;
  self->out_of_range += stats->out_of_range;
  if (stats->any)
    note_time (self, stats->min_ts, stats->max_ts);
}

CpLaneSink *
cp_trace_builder_get_sink (CpTraceBuilder *self,
                           guint           lane)
{
  return (CpLaneSink *) get_lane (self, lane);
}

CpSliceRef
cp_lane_sink_add_slice (CpLaneSink        *sink,
                        guint              lane,
                        const CpSliceInit *init,
                        CpSinkStats       *stats)
{
  g_return_val_if_fail (init->gpu == NULL, CP_SLICE_REF_NONE);
  return blane_add_slice ((BLane *) sink, lane, init, stats);
}

guint
cp_lane_sink_get_n_corr (CpLaneSink *sink)
{
  return ((BLane *) sink)->corr.n_values;
}

void
cp_trace_builder_close_slice (CpTraceBuilder *self,
                              CpSliceRef      ref,
                              gint64          end_abs,
                              guint16         add_flags)
{
  BLane *l = get_lane (self, ref.lane);
  gint64 dur;

  if (l == NULL || ref.index >= l->n)
    return;
  end_abs = CLAMP (end_abs, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
  dur = end_abs - l->start[ref.index];
  if (dur < 0)
    {
      dur = 0;
      self->negative_durations++;
    }
  blane_set_dur (l, ref.index, dur, TRUE);
  l->flags[ref.index] |= add_flags;
  /* A changed duration may break the (start, -dur) order. */
  if (ref.index > 0 && l->start[ref.index] == l->start[ref.index - 1])
    l->unsorted = TRUE;
  if (ref.index + 1 < l->n && l->start[ref.index] == l->start[ref.index + 1])
    l->unsorted = TRUE;
  note_time (self, l->start[ref.index], l->start[ref.index] + dur);
}

guint
cp_trace_builder_get_n_slices (CpTraceBuilder *self,
                               guint           lane)
{
  BLane *l = get_lane (self, lane);

  return l ? l->n : 0;
}

void
cp_trace_builder_peek_corr (CpTraceBuilder  *self,
                            guint            lane,
                            const guint64  **present,
                            const guint32  **v32,
                            const gint64   **v64,
                            guint           *n_values)
{
  BLane *l = get_lane (self, lane);

  *present = l ? l->corr.present : NULL;
  *v32 = l ? l->corr.v32 : NULL;
  *v64 = l ? l->corr.v64 : NULL;
  *n_values = l ? l->corr.n_values : 0;
}

/* Arguments */

guint32
cp_trace_builder_add_args (CpTraceBuilder *self,
                           CpArgsFormat    format,
                           const void     *data,
                           gsize           len)
{
  CpArgsRecord rec;
  guint8 *dst;

  if (data == NULL || len == 0 || self->args->len >= G_MAXUINT32 - 1)
    return 0;
  if (len > G_MAXUINT32)
    len = G_MAXUINT32;

  if (len > ARGS_CHUNK_SIZE / 4)
    {
      dst = g_malloc (len);
      g_ptr_array_add (self->args_chunks, dst);
      self->args_arena_bytes += len;
    }
  else
    {
      if (self->args_chunk == NULL || self->args_chunk_used + len > ARGS_CHUNK_SIZE)
        {
          self->args_chunk = g_malloc (ARGS_CHUNK_SIZE);
          g_ptr_array_add (self->args_chunks, self->args_chunk);
          self->args_chunk_used = 0;
          self->args_arena_bytes += ARGS_CHUNK_SIZE;
        }
      dst = self->args_chunk + self->args_chunk_used;
      self->args_chunk_used += len;
    }
  memcpy (dst, data, len);

  rec.data = dst;
  rec.len = len;
  rec.format = format;
  g_array_append_val (self->args, rec);
  return self->args->len;
}

gboolean
cp_trace_builder_get_args (CpTraceBuilder *self,
                           guint32         args_id,
                           const guint8  **data,
                           gsize          *len)
{
  const CpArgsRecord *rec;

  if (args_id == 0 || args_id > self->args->len)
    return FALSE;
  rec = &g_array_index (self->args, CpArgsRecord, args_id - 1);
  *data = rec->data;
  *len = rec->len;
  return TRUE;
}

guint32
cp_trace_builder_add_gpu_info (CpTraceBuilder  *self,
                               const CpGpuInfo *info)
{
  g_return_val_if_fail (info != NULL, 0);

  g_array_append_val (self->gpu_infos, *info);
  return self->gpu_infos->len;
}

void
cp_trace_builder_set_args_source (CpTraceBuilder *self,
                                  GBytes         *source)
{
  g_clear_pointer (&self->args_source, g_bytes_unref);
  if (source)
    self->args_source = g_bytes_ref (source);
}

guint32
cp_trace_builder_add_args_ref (CpTraceBuilder *self,
                               CpArgsFormat    format,
                               guint64         offset,
                               gsize           len)
{
  CpArgsRecord rec;
  gsize size;
  const guint8 *base;

  g_return_val_if_fail (self->args_source != NULL, 0);

  base = g_bytes_get_data (self->args_source, &size);
  if (len == 0 || offset >= size || len > size - offset || self->args->len >= G_MAXUINT32 - 1)
    return 0;
  rec.data = base + offset;
  rec.len = MIN (len, G_MAXUINT32);
  rec.format = format;
  g_array_append_val (self->args, rec);
  return self->args->len;
}

/* Counters, instants, flows, steps, devices, metadata */

void
cp_trace_builder_add_counter (CpTraceBuilder *self,
                              guint           lane,
                              gint64          ts_abs,
                              double          value)
{
  BLane *l = get_lane (self, lane);

  if (l == NULL || l->counter_ts == NULL)
    return;
  if (!isfinite (value))
    {
      self->report->skipped++;
      return;
    }
  if (G_UNLIKELY (!CP_TIME_ABS_IN_RANGE (ts_abs)))
    {
      self->report->skipped++;
      self->out_of_range++;
      return;
    }
  g_array_append_val (l->counter_ts, ts_abs);
  g_array_append_val (l->counter_values, value);
  note_time (self, ts_abs, ts_abs);
}

void
cp_trace_builder_add_instant (CpTraceBuilder *self,
                              gint64          ts_abs,
                              CpStr           name,
                              CpStr           cat,
                              gint            process,
                              gint            lane,
                              gchar           scope)
{
  CpInstant in;

  if (G_UNLIKELY (!CP_TIME_ABS_IN_RANGE (ts_abs)))
    {
      self->report->skipped++;
      self->out_of_range++;
      return;
    }
  in.ts = ts_abs;
  in.name = name;
  in.cat = cat;
  in.process = process;
  in.lane = lane;
  in.scope = scope;
  g_array_append_val (self->instants, in);
  note_time (self, ts_abs, ts_abs);
}

void
cp_trace_builder_add_flow (CpTraceBuilder *self,
                           CpSliceRef      from,
                           CpSliceRef      to,
                           CpFlowKind      kind,
                           CpStr           name)
{
  CpFlow f;

  if (from.lane >= self->lanes->len || to.lane >= self->lanes->len)
    return;
  f.from = from;
  f.to = to;
  f.kind = kind;
  f.name = name;
  g_array_append_val (self->flows, f);
}

void
cp_trace_builder_add_flow_point (CpTraceBuilder *self,
                                 guint64         key,
                                 guint           lane,
                                 gint64          ts_abs,
                                 CpFlowBind      bind,
                                 guint8          order,
                                 CpFlowKind      kind,
                                 CpStr           name)
{
  FlowPoint p;

  if (lane >= self->lanes->len)
    return;
  p.key = key;
  p.ts = CLAMP (ts_abs, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
  p.lane = lane;
  p.seq = self->flow_points->len;
  p.name = name;
  p.bind = bind;
  p.order = order;
  p.kind = kind;
  g_array_append_val (self->flow_points, p);
}

void
cp_trace_builder_set_link_correlations (CpTraceBuilder *self,
                                        gboolean        link)
{
  self->link_correlations = link;
}

void
cp_trace_builder_add_step (CpTraceBuilder *self,
                           gint64          number,
                           gint64          start_abs,
                           gint64          end_abs,
                           CpSliceRef      marker)
{
  CpStep s;

  s.number = number;
  s.start = CLAMP (start_abs, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
  s.end = MAX (CLAMP (end_abs, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT), s.start);
  s.marker = marker;
  g_array_append_val (self->steps, s);
}

/* Matches HTA's ProfilerStep\s*#\s*(\d+), anywhere in the name. */
static gboolean
parse_profiler_step (const char *name,
                     gint64     *number)
{
  const char *p = strstr (name, "ProfilerStep");
  gint64 n = 0;
  gboolean digits = FALSE;

  if (p == NULL)
    return FALSE;
  p += strlen ("ProfilerStep");
  while (g_ascii_isspace (*p))
    p++;
  if (*p != '#')
    return FALSE;
  p++;
  while (g_ascii_isspace (*p))
    p++;
  while (g_ascii_isdigit (*p))
    {
      if (n < G_MAXINT64 / 10 - 10)
        n = n * 10 + (*p - '0');
      digits = TRUE;
      p++;
    }
  if (!digits)
    return FALSE;
  *number = n;
  return TRUE;
}

void
cp_trace_builder_detect_profiler_steps (CpTraceBuilder *self)
{
  g_autoptr(GHashTable) cache = g_hash_table_new (NULL, NULL);

  for (guint li = 0; li < self->lanes->len; li++)
    {
      BLane *l = g_ptr_array_index (self->lanes, li);

      if (l->kind != CP_LANE_HOST_THREAD)
        continue;
      for (guint i = 0; i < l->n; i++)
        {
          gpointer v;
          gint64 number;

          if (!g_hash_table_lookup_extended (cache, GUINT_TO_POINTER (l->names[i]), NULL, &v))
            {
              const char *name = cp_string_pool_get (self->strings, l->names[i]);

              if (parse_profiler_step (name, &number))
                v = g_memdup2 (&number, sizeof number);
              else
                v = NULL;
              g_hash_table_insert (cache, GUINT_TO_POINTER (l->names[i]), v);
            }
          if (v != NULL)
            {
              CpSliceRef ref = { li, i };

              cp_trace_builder_add_step (self, *(gint64 *) v, l->start[i],
                                         l->start[i] + blane_dur (l, i), ref);
            }
        }
    }

  {
    GHashTableIter iter;
    gpointer v;

    g_hash_table_iter_init (&iter, cache);
    while (g_hash_table_iter_next (&iter, NULL, &v))
      g_free (v);
  }
}

CpDevice *
cp_trace_builder_device (CpTraceBuilder *self,
                         gint            ordinal)
{
  CpDevice d = { 0 };
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (self->device_index, GINT_TO_POINTER (ordinal)));

  if (at != 0)
    return &g_array_index (self->devices, CpDevice, at - 1);
  d.ordinal = ordinal;
  d.total_memory = -1;
  d.compute_major = -1;
  d.compute_minor = -1;
  d.num_sms = -1;
  d.max_threads_per_sm = -1;
  d.warp_size = -1;
  g_array_append_val (self->devices, d);
  g_hash_table_insert (self->device_index, GINT_TO_POINTER (ordinal), GUINT_TO_POINTER (self->devices->len));
  return &g_array_index (self->devices, CpDevice, self->devices->len - 1);
}

void
cp_trace_builder_add_metadata (CpTraceBuilder *self,
                               const char     *key,
                               const char     *json,
                               gssize          len)
{
  CpMetadataEntry e;

  if (len < 0)
    len = strlen (json);
  e.key = cp_string_pool_intern (self->strings, key, -1);
  /* Readers keep the capture's raw text, which may hold invalid UTF-8 (or
   * NUL bytes); what the model hands out is always valid UTF-8. */
  if (g_utf8_validate_len (json, len, NULL))
    e.json = g_strndup (json, len);
  else
    e.json = g_utf8_make_valid (json, len);
  g_array_append_val (self->metadata, e);
}

/* finish() */

typedef struct
{
  const gint64 *start;
  const BLane  *lane;      /* NULL: every duration is 0 */
} SortCtx;

static gint
cmp_slice (gconstpointer a,
           gconstpointer b,
           gpointer      user_data)
{
  const SortCtx *ctx = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;

  if (ctx->start[i] != ctx->start[j])
    return ctx->start[i] < ctx->start[j] ? -1 : 1;
  if (ctx->lane != NULL)
    {
      gint64 di = blane_dur (ctx->lane, i), dj = blane_dur (ctx->lane, j);

      if (di != dj)
        return di > dj ? -1 : 1;
    }
  return i < j ? -1 : (i > j);
}

/* Reorders a column by perm through a scratch buffer that every column
 * shares (fresh memory for each column would cost a page fault a page). */
#define PERMUTE(type, arr)                               \
  G_STMT_START {                                         \
    type *tmp_ = (type *) scratch;                       \
    for (guint k_ = 0; k_ < l->n; k_++)                  \
      tmp_[k_] = (arr)[perm[k_]];                        \
    memcpy ((arr), tmp_, sizeof (type) * l->n);          \
  } G_STMT_END

static void
blane_sort (BLane *l)
{
  SortCtx ctx = { l->start, l };
  guint32 *perm;
  g_autofree guint32 *rest = NULL;
  g_autofree guint8 *scratch = NULL;
  guint n_kept = 0, n_rest = 0;

  if (!l->unsorted || l->n < 2)
    return;

  /* Readers add slices nearly in order (a parent after its children, a step
   * marker at the end of its step): keep the in-order majority where it is,
   * sort the few others and merge. A lane in no order at all is sorted
   * whole. */
  perm = g_new (guint32, l->n);
  rest = g_new (guint32, l->n);
  for (guint i = 0; i < l->n; i++)
    {
      if (n_kept == 0 || cmp_slice (&perm[n_kept - 1], &i, &ctx) < 0)
        perm[n_kept++] = i;
      else
        rest[n_rest++] = i;
    }
  if (n_rest > l->n / 4)
    {
      for (guint i = 0; i < l->n; i++)
        perm[i] = i;
      g_qsort_with_data (perm, l->n, sizeof (guint32), cmp_slice, &ctx);
    }
  else
    {
      guint a = n_kept, b = n_rest, k = l->n;

      g_qsort_with_data (rest, n_rest, sizeof (guint32), cmp_slice, &ctx);
      /* Merge from the back, in place: perm holds the kept ones first. */
      while (b > 0)
        {
          if (a > 0 && cmp_slice (&perm[a - 1], &rest[b - 1], &ctx) > 0)
            perm[--k] = perm[--a];
          else
            perm[--k] = rest[--b];
        }
    }
  g_clear_pointer (&rest, g_free);
  l->new_index = g_new (guint32, l->n);
  for (guint i = 0; i < l->n; i++)
    l->new_index[perm[i]] = i;

  scratch = g_malloc (sizeof (gint64) * l->n);
  PERMUTE (gint64, l->start);
  PERMUTE (guint32, l->dur32);
  if (l->long_durs != NULL)
    {
      GHashTable *moved = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, l->long_durs);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          g_hash_table_iter_steal (&iter);
          g_hash_table_insert (moved, GUINT_TO_POINTER (l->new_index[GPOINTER_TO_UINT (key) - 1] + 1),
                               value);
        }
      g_hash_table_unref (l->long_durs);
      l->long_durs = moved;
    }
  PERMUTE (CpStr, l->names);
  if (l->cat32 != NULL)
    PERMUTE (CpStr, l->cat32);
  else
    PERMUTE (guint8, l->cat8);
  PERMUTE (guint16, l->flags);
  _cp_sparse_builder_permute (&l->corr, perm, l->n);
  _cp_sparse_builder_permute (&l->ext, perm, l->n);
  _cp_sparse_builder_permute (&l->gpu, perm, l->n);
  _cp_sparse_builder_permute (&l->args, perm, l->n);
  g_free (perm);
}

static void
blane_layout_rows (BLane *l)
{
  guint32 *stack;
  gint64 *row_end;
  guint depth = 0, n_rows = 0;

  l->rows = g_new0 (guint16, MAX (l->n, 1));
  if (l->n == 0)
    return;

  stack = g_new (guint32, l->n);
  row_end = g_new (gint64, MAX_ROWS);

  for (guint i = 0; i < l->n; i++)
    {
      gint64 s = l->start[i];
      gint64 e = s + blane_dur (l, i);
      guint min_row = 0, r;

      while (depth > 0)
        {
          guint32 top = stack[depth - 1];
          gint64 top_dur = blane_dur (l, top);
          gint64 top_end = l->start[top] + top_dur;

          /* A slice ends before s; a zero-length one at s still encloses
           * nothing, so it is closed too. */
          if (top_end <= s && !(top_dur > 0 && top_end > s))
            depth--;
          else
            break;
        }
      if (depth > 0)
        {
          guint32 top = stack[depth - 1];

          min_row = l->rows[top] + 1;
          if (e > l->start[top] + blane_dur (l, top))
            l->flags[i] |= CP_SLICE_OVERLAP;
        }

      r = MIN (min_row, MAX_ROWS - 1);
      while (r < n_rows && r < MAX_ROWS - 1 && row_end[r] > s)
        r++;
      if (r >= n_rows)
        {
          for (guint k = n_rows; k <= r; k++)
            row_end[k] = G_MININT64;
          n_rows = r + 1;
        }
      if (r > min_row)
        l->flags[i] |= CP_SLICE_OVERLAP;
      l->rows[i] = r;
      if (e > row_end[r])
        row_end[r] = e;
      stack[depth++] = i;
    }

  g_free (stack);
  g_free (row_end);
}

/* A sort key and the index of what it sorts. */
typedef struct
{
  guint64 key;
  guint32 sub;     /* compared after key, before the indexes */
  guint32 idx;
} KeyIdx;

typedef struct
{
  GCompareDataFunc tie;
  gpointer         data;
} KeyCmp;

static gint
cmp_key_idx (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  const KeyIdx *x = a, *y = b;
  const KeyCmp *c = user_data;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->sub != y->sub)
    return x->sub < y->sub ? -1 : 1;
  return c->tie (&x->idx, &y->idx, c->data);
}

/* Sorts v by key, sub, then tie on the indexes (a total order), in about
 * linear time: one counting pass on the 16 highest bits in which keys differ
 * spreads hashes and dense ids alike over 65536 buckets, then each bucket is
 * sorted on its own (insertion sort when short, merge sort when a file puts
 * many elements in one). */
static void
sort_by_key (KeyIdx           *v,
             guint             n,
             GCompareDataFunc  tie,
             gpointer          data)
{
  g_autofree KeyIdx *tmp = NULL;
  g_autofree guint32 *start = NULL;
  KeyCmp c = { tie, data };
  guint64 diff = 0;
  guint shift = 0;

  if (n < 2)
    return;
  for (guint i = 1; i < n; i++)
    diff |= v[i].key ^ v[0].key;
  if (diff != 0)
    {
      guint high = 63 - __builtin_clzll (diff);

      shift = high >= 15 ? high - 15 : 0;
    }

  tmp = g_memdup2 (v, sizeof (KeyIdx) * n);
  start = g_new0 (guint32, 65536 + 1);
  for (guint i = 0; i < n; i++)
    start[((tmp[i].key >> shift) & 0xffff) + 1]++;
  for (guint d = 0; d < 65536; d++)
    start[d + 1] += start[d];
  for (guint i = 0; i < n; i++)
    v[start[(tmp[i].key >> shift) & 0xffff]++] = tmp[i];
  g_clear_pointer (&tmp, g_free);

  /* start[d] is now the end of bucket d. */
  for (guint d = 0, a = 0; d < 65536; d++)
    {
      guint b = start[d];

      if (b - a > 32)
        g_qsort_with_data (v + a, b - a, sizeof (KeyIdx), cmp_key_idx, &c);
      else
        for (guint k = a + 1; k < b; k++)
          {
            KeyIdx x = v[k];
            guint j = k;

            while (j > a && cmp_key_idx (&v[j - 1], &x, &c) > 0)
              {
                v[j] = v[j - 1];
                j--;
              }
            v[j] = x;
          }
      a = b;
    }
}

typedef struct
{
  gint64  corr;
  gint32  device;
  guint32 lane;
  guint32 index;
  gint64  start;
} CorrEntry;

static gint
cmp_corr_start (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  const CorrEntry *e = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;

  if (e[i].start != e[j].start)
    return e[i].start < e[j].start ? -1 : 1;
  return i < j ? -1 : (i > j);
}

/* The entries' order by (correlation id, start), stable. */
static KeyIdx *
sort_corr_entries (GArray *entries)
{
  const CorrEntry *e = (const CorrEntry *) entries->data;
  KeyIdx *v = g_new (KeyIdx, MAX (entries->len, 1));

  for (guint i = 0; i < entries->len; i++)
    {
      /* Flip the sign bit so that unsigned order is signed order. */
      v[i].key = (guint64) e[i].corr ^ G_GUINT64_CONSTANT (0x8000000000000000);
      v[i].sub = 0;
      v[i].idx = i;
    }
  sort_by_key (v, entries->len, cmp_corr_start, entries->data);
  return v;
}

/* Launch links from correlation ids. A device slice with a correlation id
 * is launched by the host slice with the same id (on the same device when
 * both say), whatever the timestamps say:
 *  - slices that no launch flow reaches get one;
 *  - a launch flow whose host end was bound by time to another call (in
 *    whole-µs captures a zero-length cudaPeekAtLastError can start in the
 *    same µs as the cudaMemsetAsync that launched the op) is moved to the
 *    call with the op's id;
 *  - a graph launch (cudaGraphLaunch, hipGraphLaunch) is the launch of every
 *    op of the graph, which all carry its correlation id: Kineto writes one
 *    flow start and an end per op, which chain op to op, so each of those
 *    flows is moved to start at the launch. */
static void
link_correlations (CpTrace *trace,
                   GArray  *flows,
                   CpStr    name)
{
  g_autoptr(GArray) host = g_array_new (FALSE, FALSE, sizeof (CorrEntry));
  g_autoptr(GArray) dev = g_array_new (FALSE, FALSE, sizeof (CorrEntry));
  g_autoptr(GHashTable) to_fix = NULL;
  g_autofree guint64 *lane_base = NULL;
  g_autofree guint64 *launched = NULL;
  g_autofree KeyIdx *host_order = NULL;
  g_autofree KeyIdx *dev_order = NULL;
  guint n_lanes = trace->lane_array->len;
  guint n_flows = flows->len;
  guint h = 0;

  for (guint li = 0; li < n_lanes; li++)
    {
      CpLane *lane = g_ptr_array_index (trace->lane_array, li);
      const CpSlices *s = cp_lane_get_slices (lane);
      CpLaneKind kind = cp_lane_get_kind (lane);
      GArray *target;

      if (kind == CP_LANE_HOST_THREAD)
        target = host;
      else if (kind == CP_LANE_KERNEL || kind == CP_LANE_TRANSFER)
        target = dev;
      else
        continue;

      for (guint i = 0; i < s->n; i++)
        {
          CorrEntry e;
          guint32 gpu;

          e.corr = cp_slices_get_corr (s, i);
          if (e.corr == CP_NONE)
            continue;
          gpu = cp_slices_get_gpu (s, i);
          e.device = cp_lane_get_device (lane);
          if (gpu != 0)
            {
              const CpGpuInfo *g = &g_array_index (trace->gpu_infos, CpGpuInfo, gpu - 1);

              if (g->device >= 0)
                e.device = g->device;
            }
          if (kind == CP_LANE_HOST_THREAD && gpu == 0)
            e.device = -1;
          e.lane = li;
          e.index = i;
          e.start = cp_slices_get_start (s, i);
          g_array_append_val (target, e);
        }
    }

  if (host->len == 0 || dev->len == 0)
    return;

  /* One bit per slice of the trace: reached by a launch flow already. The
   * launch flows whose host end does not carry their op's correlation id
   * (bound by time, or chained from op to op) are kept aside by the op's
   * bit, to be moved to the call with the id. */
  lane_base = g_new (guint64, n_lanes + 1);
  lane_base[0] = 0;
  for (guint li = 0; li < n_lanes; li++)
    lane_base[li + 1] = lane_base[li] +
                        cp_lane_get_n_slices (g_ptr_array_index (trace->lane_array, li));
  launched = g_new0 (guint64, lane_base[n_lanes] / 64 + 1);
  for (guint i = 0; i < n_flows; i++)
    {
      const CpFlow *f = &g_array_index (flows, CpFlow, i);
      CpLane *from_lane, *to_lane;
      gint64 to_corr;

      if (f->kind != CP_FLOW_LAUNCH)
        continue;
      {
        guint64 bit = lane_base[f->to.lane] + f->to.index;

        launched[bit / 64] |= G_GUINT64_CONSTANT (1) << (bit % 64);
        to_lane = g_ptr_array_index (trace->lane_array, f->to.lane);
        from_lane = g_ptr_array_index (trace->lane_array, f->from.lane);
        to_corr = cp_slices_get_corr (cp_lane_get_slices (to_lane), f->to.index);
        if (to_corr == CP_NONE)
          continue;
        if (cp_lane_get_kind (from_lane) == CP_LANE_HOST_THREAD &&
            cp_slices_get_corr (cp_lane_get_slices (from_lane), f->from.index) == to_corr)
          continue;
        if (to_fix == NULL)
          to_fix = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
        /* The key is the op's bit, stored in the table itself. */
        {
          gint64 *key = g_new (gint64, 1);

          *key = (gint64) bit;
          if (!g_hash_table_contains (to_fix, key))
            g_hash_table_insert (to_fix, key, GUINT_TO_POINTER (i + 1));
          else
            g_free (key);
        }
      }
    }

  host_order = sort_corr_entries (host);
  dev_order = sort_corr_entries (dev);

#define HOST(k) (&g_array_index (host, CorrEntry, host_order[k].idx))
  for (guint d = 0; d < dev->len; d++)
    {
      const CorrEntry *de = &g_array_index (dev, CorrEntry, dev_order[d].idx);
      CpSliceRef to = { de->lane, de->index };
      guint64 bit = lane_base[de->lane] + de->index;
      const CorrEntry *match = NULL;

      while (h < host->len && HOST (h)->corr < de->corr)
        h++;
      for (guint k = h; k < host->len && HOST (k)->corr == de->corr; k++)
        {
          const CorrEntry *he = HOST (k);

          if (he->device < 0 || de->device < 0 || he->device == de->device)
            {
              match = he;
              break;
            }
        }
      if (match == NULL)
        continue;
      if (launched[bit / 64] & (G_GUINT64_CONSTANT (1) << (bit % 64)))
        {
          gint64 key = (gint64) bit;
          guint fi = to_fix ? GPOINTER_TO_UINT (g_hash_table_lookup (to_fix, &key)) : 0;

          if (fi != 0)
            {
              CpFlow *f = &g_array_index (flows, CpFlow, fi - 1);

              f->from.lane = match->lane;
              f->from.index = match->index;
            }
          continue;
        }

      {
        CpFlow f;

        f.from.lane = match->lane;
        f.from.index = match->index;
        f.to = to;
        f.kind = CP_FLOW_LAUNCH;
        f.name = name;
        g_array_append_val (flows, f);
      }
    }
#undef HOST
}

/* Orders the points of one key: by order (s, t, f), time, then insertion. */
static gint
cmp_points (gconstpointer a,
            gconstpointer b,
            gpointer      user_data)
{
  const FlowPoint *points = user_data;
  const FlowPoint *x = &points[*(const guint32 *) a], *y = &points[*(const guint32 *) b];

  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* The first index in [0, n) whose start is > t (upper) or >= t (lower), or n:
 * a search outward from hint, a recent answer on the same lane (readers add
 * flow points roughly in time order), then a binary search in what is left. */
static guint
gallop_bound (const CpSlices *s,
              guint         n,
              gint64        t,
              guint         hint,
              gboolean      upper)
{
#define BEFORE(i) (upper ? cp_slices_get_start (s, i) <= t : cp_slices_get_start (s, i) < t)
  guint lo, hi, step = 1;

  hint = MIN (hint, n);
  if (hint < n && BEFORE (hint))
    {
      /* Everything up to hint is before the bound. */
      lo = hint + 1;
      hi = n;
      while (lo < n)
        {
          guint j = hint + step;

          if (j >= n || j < hint)
            break;
          if (!BEFORE (j))
            {
              hi = j;
              break;
            }
          lo = j + 1;
          step *= 2;
        }
    }
  else
    {
      /* Everything from hint on is at or after the bound. */
      lo = 0;
      hi = hint;
      while (hi > 0)
        {
          guint j;

          if (step > hint)
            break;
          j = hint - step;
          if (BEFORE (j))
            {
              lo = j + 1;
              break;
            }
          hi = j;
          step *= 2;
        }
    }
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (BEFORE (mid))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
#undef BEFORE
}

static CpSliceRef
bind_point (CpTrace         *trace,
            const FlowPoint *p,
            guint            final_lane,
            gint64           origin,
            guint           *hint)
{
  CpLane *lane = g_ptr_array_index (trace->lane_array, final_lane);
  const CpSlices *s = cp_lane_get_slices (lane);
  gint64 t = p->ts - origin;
  CpSliceRef ref = CP_SLICE_REF_NONE;

  if (p->bind == CP_FLOW_BIND_ENCLOSING)
    {
      guint hi = gallop_bound (s, s->n, t, *hint, TRUE);
      gint i = -1;

      *hint = hi;
      /* Fast path: the latest-starting slice that contains t is the deepest
       * one when slices nest (ties sort longer first, so the inner one comes
       * later). Look back a few slices only; overlapping layouts and long
       * runs of finished siblings take the exact search by rows. */
      for (guint k = hi, steps = 0; k > 0 && steps < 8; k--, steps++)
        {
          guint j = k - 1;

          if (t < cp_slices_get_end (s, j) || (cp_slices_get_dur (s, j) == 0 && t == cp_slices_get_start (s, j)))
            {
              if (!(s->flags[j] & CP_SLICE_OVERLAP))
                i = j;
              break;
            }
        }
      if (i < 0)
        i = cp_lane_slice_at (lane, t, -1);

      if (i >= 0)
        {
          ref.lane = final_lane;
          ref.index = i;
        }
    }
  else
    {
      guint lo = gallop_bound (s, s->n, t, *hint, FALSE);

      *hint = lo;
      if (lo < s->n)
        {
          ref.lane = final_lane;
          ref.index = lo;
        }
    }
  return ref;
}

typedef struct
{
  CpTraceBuilder *builder;
  gint64         *proc_rank;
} LaneOrderCtx;

static int
kind_rank (CpLaneKind kind)
{
  switch (kind)
    {
    case CP_LANE_KERNEL: return 0;
    case CP_LANE_TRANSFER: return 1;
    case CP_LANE_DEVICE_ANNOTATION: return 2;
    case CP_LANE_HOST_THREAD: return 3;
    case CP_LANE_ASYNC: return 4;
    case CP_LANE_COUNTER: return 5;
    case CP_LANE_N_KINDS:
    default:
      return 6;
    }
}

static gint
cmp_lanes (gconstpointer a,
           gconstpointer b,
           gpointer      user_data)
{
  LaneOrderCtx *ctx = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  BLane *x = g_ptr_array_index (ctx->builder->lanes, i);
  BLane *y = g_ptr_array_index (ctx->builder->lanes, j);
  gint64 rx = ctx->proc_rank[x->process], ry = ctx->proc_rank[y->process];
  int kx, ky, c;

  if (rx != ry)
    return rx < ry ? -1 : 1;
  kx = kind_rank (x->kind);
  ky = kind_rank (y->kind);
  if (kx != ky)
    return kx - ky;
  if (x->kind == CP_LANE_TRANSFER && x->transfer_kind != y->transfer_kind)
    return (int) x->transfer_kind - (int) y->transfer_kind;
  if (x->sort_key != y->sort_key)
    return x->sort_key < y->sort_key ? -1 : 1;
  if (x->key.num != y->key.num)
    return x->key.num < y->key.num ? -1 : 1;
  c = g_strcmp0 (x->name, y->name);
  if (c != 0)
    return c;
  return i < j ? -1 : (i > j);
}

typedef struct
{
  GArray *processes;
} ProcOrderCtx;

static gint
cmp_processes (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  GArray *procs = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  const CpProcess *x = &g_array_index (procs, CpProcess, i);
  const CpProcess *y = &g_array_index (procs, CpProcess, j);

  if (x->is_pseudo != y->is_pseudo)
    return x->is_pseudo ? 1 : -1;
  if (x->sort_index != y->sort_index)
    return x->sort_index < y->sort_index ? -1 : 1;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  return i < j ? -1 : (i > j);
}

static CpSliceRef
remap_ref (CpTraceBuilder *self,
           CpSliceRef      ref)
{
  BLane *l;
  CpSliceRef out = CP_SLICE_REF_NONE;

  if (ref.lane >= self->lanes->len)
    return out;
  l = g_ptr_array_index (self->lanes, ref.lane);
  if (ref.index >= l->n)
    return out;
  out.lane = l->final_index;
  out.index = l->new_index ? l->new_index[ref.index] : ref.index;
  return out;
}

/* Sorts flow indexes by (lane, index) of their start (or end) point, stably
 * and in linear time (captures have millions of flows): a counting sort on
 * the lane, then, for the lanes whose flows are not already in slice order
 * (readers usually add them in order), a merge of the few sorted runs they
 * make (flows added by different passes of a reader), or radix passes on the
 * slice index. Scratch memory is at most one lane's share. */
#define MAX_FLOW_RUNS 8

static void
sort_flow_index (guint32      *order,
                 const CpFlow *flows,
                 guint         n,
                 guint         n_lanes,
                 gboolean      by_to)
{
  g_autofree guint32 *start = g_new0 (guint32, n_lanes + 1);
  g_autofree guint32 *fill = g_new (guint32, n_lanes + 1);

#define POINT(i) (by_to ? flows[i].to : flows[i].from)
  for (guint i = 0; i < n; i++)
    start[POINT (i).lane + 1]++;
  for (guint l = 1; l <= n_lanes; l++)
    start[l] += start[l - 1];
  memcpy (fill, start, sizeof (guint32) * (n_lanes + 1));
  for (guint i = 0; i < n; i++)
    order[fill[POINT (i).lane]++] = i;

  for (guint l = 0; l < n_lanes; l++)
    {
      guint32 *seg = order + start[l];
      guint len = start[l + 1] - start[l];
      guint runs = 1;

      for (guint i = 1; i < len && runs <= MAX_FLOW_RUNS; i++)
        if (POINT (seg[i - 1]).index > POINT (seg[i]).index)
          runs++;
      if (runs == 1)
        continue;
      if (runs <= MAX_FLOW_RUNS)
        {
          /* Merge the first run with the next until one is left; the
           * smaller of the two goes to scratch. */
          guint a = 1;

          while (a < len && POINT (seg[a - 1]).index <= POINT (seg[a]).index)
            a++;
          while (a < len)
            {
              guint b = 1, i, j, k;
              g_autofree guint32 *tmp = NULL;

              while (a + b < len && POINT (seg[a + b - 1]).index <= POINT (seg[a + b]).index)
                b++;
              if (a <= b)
                {
                  /* Forward: the first run from scratch, the second in place. */
                  tmp = g_memdup2 (seg, sizeof (guint32) * a);
                  for (i = 0, j = a, k = 0; i < a; k++)
                    {
                      if (j < a + b && POINT (seg[j]).index < POINT (tmp[i]).index)
                        seg[k] = seg[j++];
                      else
                        seg[k] = tmp[i++];
                    }
                }
              else
                {
                  /* Backward: the second run from scratch, the first in place. */
                  tmp = g_memdup2 (seg + a, sizeof (guint32) * b);
                  for (i = a, j = b, k = a + b; j > 0; k--)
                    {
                      if (i > 0 && POINT (seg[i - 1]).index > POINT (tmp[j - 1]).index)
                        seg[k - 1] = seg[--i];
                      else
                        seg[k - 1] = tmp[--j];
                    }
                }
              a += b;
            }
          continue;
        }
      {
        g_autofree guint32 *tmp = g_new (guint32, len);
        g_autofree guint32 *count = g_new (guint32, 65536 + 1);

        for (guint pass = 0; pass < 2; pass++)
          {
            guint32 *src = pass == 0 ? seg : tmp, *dst = pass == 0 ? tmp : seg;

            memset (count, 0, sizeof (guint32) * (65536 + 1));
            for (guint i = 0; i < len; i++)
              count[((POINT (src[i]).index >> (16 * pass)) & 0xffff) + 1]++;
            for (guint k = 1; k <= 65536; k++)
              count[k] += count[k - 1];
            for (guint i = 0; i < len; i++)
              dst[count[(POINT (src[i]).index >> (16 * pass)) & 0xffff]++] = src[i];
          }
      }
    }
#undef POINT
}

/* A lane's names as CpSlices keeps them: a table of its distinct names and
 * a 16-bit index per slice, written over the 32-bit ids (offset i * 2 is
 * never past id i * 4); the 32-bit ids as they are when there are too many.
 * slot has an entry per string of the pool, all 0, and is left so. */
static void
pack_names (BLane    *l,
            CpSlices *cols,
            guint32  *slot,
            guint     n_slots)
{
  CpStr *names = l->names;
  guint16 *name16;
  CpStr *table;
  guint n_table = 0;
  gboolean too_many = FALSE;

  l->names = NULL;
  if (l->n == 0)
    {
      g_free (names);
      cols->name32 = g_new0 (CpStr, 1);
      return;
    }
  table = g_new (CpStr, G_MAXUINT16 + 1);
  for (guint i = 0; i < l->n && !too_many; i++)
    if (G_UNLIKELY (names[i] >= n_slots))
      too_many = TRUE;   /* not a string of the pool: keep the ids as they are */
    else if (slot[names[i]] == 0)
      {
        if (n_table == G_MAXUINT16 + 1)
          too_many = TRUE;
        else
          {
            table[n_table] = names[i];
            slot[names[i]] = ++n_table;
          }
      }
  if (too_many)
    {
      /* 32-bit ids. */
      for (guint k = 0; k < n_table; k++)
        slot[table[k]] = 0;
      g_free (table);
      cols->name32 = names;
      return;
    }
  name16 = (guint16 *) names;
  for (guint i = 0; i < l->n; i++)
    name16[i] = (guint16) (slot[names[i]] - 1);
  for (guint k = 0; k < n_table; k++)
    slot[table[k]] = 0;
  cols->name16 = g_realloc (names, sizeof (guint16) * l->n);
  cols->name_table = g_renew (CpStr, table, n_table);
}

static gint
cmp_steps (gconstpointer a,
           gconstpointer b)
{
  const CpStep *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->number != y->number)
    return x->number < y->number ? -1 : 1;
  return 0;
}

static gint
cmp_instants (gconstpointer a,
              gconstpointer b)
{
  const CpInstant *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return 0;
}

/* Sorts, lays out and packs one lane and makes its CpLane (at
 * l->final_index). name_slot: scratch of n_name_slots zeros, left zeroed. */
static CpLane *
finish_lane (BLane   *l,
             gint64   origin,
             guint32 *name_slot,
             guint    n_name_slots)
{
  CpSlices cols = { 0 };
  guint n_counter = 0;
  gint64 *cts = NULL;
  double *cvals = NULL;

  blane_sort (l);
  for (guint i = 0; i < l->n; i++)
    l->start[i] -= origin;
  blane_layout_rows (l);
  blane_finish_durations (l);

  cols.n = l->n;
  cols.dur32 = l->dur32 != NULL ? l->dur32 : g_new0 (guint32, 1);
  cols.n_long = l->n_long;
  cols.long_index = l->long_index;
  cols.long_dur = l->long_dur;
  pack_names (l, &cols, name_slot, n_name_slots);
  if (l->n > 0 && l->cat32 == NULL)
    {
      cols.cat8 = l->cat8;
      cols.cat_table = g_renew (CpStr, l->cat_table, MAX (l->n_cats, 1));
      l->cat8 = NULL;
      l->cat_table = NULL;
    }
  else
    {
      cols.cat32 = l->cat32 != NULL ? l->cat32 : g_new0 (CpStr, 1);
      l->cat32 = NULL;
    }
  cols.row = l->rows;
  cols.flags = l->n ? l->flags : g_new0 (guint16, 1);
  _cp_sparse_builder_finish (&l->corr, l->n, CP_NONE, &cols.corr);
  _cp_sparse_builder_finish (&l->ext, l->n, CP_NONE, &cols.ext);
  _cp_sparse_builder_finish (&l->gpu, l->n, 0, &cols.gpu);
  _cp_sparse_builder_finish (&l->args, l->n, 0, &cols.args);
  if (l->n == 0)
    g_free (l->flags);
  l->dur32 = NULL;
  l->long_index = NULL;
  l->long_dur = NULL;
  l->names = NULL;
  l->rows = NULL;
  l->flags = NULL;

  if (l->counter_ts != NULL && l->counter_ts->len > 0)
    {
      /* Sort samples by time (stable: insertion order breaks ties). */
      guint n = l->counter_ts->len;
      gint64 *ts = (gint64 *) l->counter_ts->data;
      double *vals = (double *) l->counter_values->data;
      gboolean sorted = TRUE;

      for (guint i = 1; i < n && sorted; i++)
        sorted = ts[i] >= ts[i - 1];
      if (!sorted)
        {
          g_autofree guint32 *perm = g_new (guint32, n);
          SortCtx ctx;

          for (guint i = 0; i < n; i++)
            perm[i] = i;
          ctx.start = ts;
          ctx.lane = NULL;
          g_qsort_with_data (perm, n, sizeof (guint32), cmp_slice, &ctx);
          cts = g_new (gint64, n);
          cvals = g_new (double, n);
          for (guint i = 0; i < n; i++)
            {
              cts[i] = ts[perm[i]];
              cvals[i] = vals[perm[i]];
            }
        }
      else
        {
          cts = g_memdup2 (ts, sizeof (gint64) * n);
          cvals = g_memdup2 (vals, sizeof (double) * n);
        }
      for (guint i = 0; i < n; i++)
        cts[i] -= origin;
      n_counter = n;
    }

  return _cp_lane_new (l->kind, l->transfer_kind, l->name, l->final_index,
                       l->process, l->device, l->stream,
                       l->kind == CP_LANE_KERNEL ? l->stream : l->key.num,
                       l->sort_key, &cols, g_steal_pointer (&l->start), cts, cvals, n_counter);
}

/* The lanes to finish, biggest first, taken one at a time by each thread. */
#define FINISH_MAX_THREADS 8
#define FINISH_MIN_PARALLEL 200000   /* slices: below, threads cost more than they save */

typedef struct
{
  CpTraceBuilder *builder;
  gint64          origin;
  guint32        *todo;       /* lane indexes, biggest first */
  guint           n_todo;
  gint            next;       /* atomic: next position in todo */
  guint           n_slots;
  CpLane        **made;       /* by final index */
} FinishJob;

static gint
cmp_lane_size (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  CpTraceBuilder *self = user_data;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  const BLane *x = g_ptr_array_index (self->lanes, i);
  const BLane *y = g_ptr_array_index (self->lanes, j);
  guint nx = x->n + (x->counter_ts != NULL ? x->counter_ts->len : 0);
  guint ny = y->n + (y->counter_ts != NULL ? y->counter_ts->len : 0);

  if (nx != ny)
    return nx > ny ? -1 : 1;
  return i < j ? -1 : (i > j);
}

static gpointer
finish_worker (gpointer data)
{
  FinishJob *job = data;
  g_autofree guint32 *name_slot = g_new0 (guint32, MAX (job->n_slots, 1));

  for (;;)
    {
      gint at = g_atomic_int_add (&job->next, 1);
      BLane *l;

      if (at < 0 || (guint) at >= job->n_todo)
        break;
      l = g_ptr_array_index (job->builder->lanes, job->todo[at]);
      job->made[l->final_index] = finish_lane (l, job->origin, name_slot, job->n_slots);
    }
  return NULL;
}

/* Finishes every lane into made[final index]. The result does not depend on
 * how many threads ran: each lane is finished alone, the same way. */
typedef struct
{
  guint32      *order;
  const CpFlow *flows;
  guint         n;
  guint         n_lanes;
  gboolean      by_to;
} FlowIndexJob;

static gpointer
flow_index_job (gpointer data)
{
  FlowIndexJob *job = data;

  sort_flow_index (job->order, job->flows, job->n, job->n_lanes, job->by_to);
  return NULL;
}

static void
finish_job_run (FinishJob      *job,
                CpTraceBuilder *self,
                gint64          origin,
                CpLane        **made)
{
  guint n_lanes = self->lanes->len;
  g_autofree guint32 *todo = g_new (guint32, MAX (n_lanes, 1));
  GThread *threads[FINISH_MAX_THREADS];
  guint n_threads = 0, total = 0, want;

  for (guint i = 0; i < n_lanes; i++)
    {
      const BLane *l = g_ptr_array_index (self->lanes, i);

      todo[i] = i;
      total += MIN (l->n, G_MAXUINT - total);
    }
  g_qsort_with_data (todo, n_lanes, sizeof (guint32), cmp_lane_size, self);
  job->builder = self;
  job->origin = origin;
  job->todo = todo;
  job->n_todo = n_lanes;
  job->next = 0;
  job->n_slots = cp_string_pool_size (self->strings);
  job->made = made;

  if (self->finish_threads > 0)
    want = MIN (self->finish_threads, MAX (n_lanes, 1));
  else
    want = total >= FINISH_MIN_PARALLEL ? MIN ((guint) g_get_num_processors (), n_lanes) : 1;
  want = MIN (want, FINISH_MAX_THREADS);
  for (guint t = 1; t < want; t++)
    {
      g_autoptr(GError) error = NULL;
      GThread *th = g_thread_try_new ("cp-finish", finish_worker, job, &error);

      if (th == NULL)
        break;   /* fewer threads: the others take more lanes */
      threads[n_threads++] = th;
    }
  finish_worker (job);
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
}

void
_cp_trace_builder_set_finish_threads (CpTraceBuilder *self,
                                      guint           n_threads)
{
  g_return_if_fail (self != NULL);

  self->finish_threads = n_threads;
}

/* Why a capture gave no events: what the reader warned about first (a cut,
 * damage, events without timestamps), or the time domain. */
static void
set_empty_error (CpTraceBuilder  *self,
                 GError         **error)
{
  g_autofree char *name = self->file != NULL ? g_file_get_parse_name (self->file) : NULL;
  g_autofree char *why = NULL;
  g_autofree char *what = NULL;

  if (self->out_of_range > 0)
    why = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                        "Its one event has a timestamp more than 146 years from the "
                                        "clock's zero.",
                                        "All its %" PRIu64 " events have timestamps more than 146 "
                                        "years from the clock's zero.",
                                        self->out_of_range),
                           self->out_of_range);
  else if (cp_load_report_n_warnings (self->report) > 0)
    why = g_strdup (cp_load_report_get_warning (self->report, 0)->message);

  if (name != NULL)
    what = g_strdup_printf (_("“%s” holds no events"), name);
  else
    what = g_strdup (_("The capture holds no events"));
  if (why != NULL)
    g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, "%s. %s%s", what, why,
                 g_str_has_suffix (why, ".") ? "" : ".");
  else
    g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, what);
}

CpTrace *
cp_trace_builder_finish (CpTraceBuilder  *self,
                         GError         **error)
{
  g_autoptr(CpTraceBuilder) builder = self;
  g_autoptr(CpTrace) trace = NULL;
  g_autofree guint32 *lane_order = NULL;
  g_autofree guint32 *proc_order = NULL;
  g_autofree gint64 *proc_rank = NULL;
  LaneOrderCtx lctx;
  gint64 origin;
  guint n_lanes = self->lanes->len;

  /* builder frees self on every return path. */
  (void) builder;

  if (!self->any)
    {
      set_empty_error (self, error);
      return NULL;
    }

  origin = self->min_ts;
  trace = _cp_trace_new ();
  /* The offset is the reader's; keep the sum representable. */
  trace->origin_abs = origin + CLAMP (self->time_offset, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
  trace->origin_is_epoch = self->has_epoch;
  trace->duration = self->max_ts > origin ? self->max_ts - origin : 0;

  if (self->out_of_range > 0)
    cp_load_report_warn (self->report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%" PRIu64 " event had a timestamp more than 146 years from the "
                                      "clock's zero, which no capture can have, and was skipped",
                                      "%" PRIu64 " events had timestamps more than 146 years from the "
                                      "clock's zero, which no capture can have, and were skipped",
                                      self->out_of_range),
                         self->out_of_range);
  if (self->negative_durations > 0)
    cp_load_report_warn (self->report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%" PRIu64 " event had a negative duration and was given none",
                                      "%" PRIu64 " events had a negative duration and were given none",
                                      self->negative_durations),
                         self->negative_durations);

  /* Processes: device processes without an explicit sort index go after the
   * host ones, as Kineto orders them. */
  for (guint p = 0; p < self->processes->len; p++)
    {
      CpProcess *proc = &g_array_index (self->processes, CpProcess, p);

      if (!g_array_index (self->process_sort_set, gboolean, p) && proc->is_device)
        proc->sort_index = 5000000 + MAX (proc->device, 0);
    }
  proc_order = g_new (guint32, MAX (self->processes->len, 1));
  proc_rank = g_new (gint64, MAX (self->processes->len, 1));
  for (guint p = 0; p < self->processes->len; p++)
    proc_order[p] = p;
  g_qsort_with_data (proc_order, self->processes->len, sizeof (guint32), cmp_processes, self->processes);
  for (guint p = 0; p < self->processes->len; p++)
    proc_rank[proc_order[p]] = p;

  /* Lanes: ordered first (by what they are, not by their slices), then each
   * one's slices sorted, laid out and packed; lanes are independent, so big
   * captures do that on several threads. */
  lane_order = g_new (guint32, MAX (n_lanes, 1));
  for (guint li = 0; li < n_lanes; li++)
    lane_order[li] = li;
  lctx.builder = self;
  lctx.proc_rank = proc_rank;
  g_qsort_with_data (lane_order, n_lanes, sizeof (guint32), cmp_lanes, &lctx);
  for (guint k = 0; k < n_lanes; k++)
    ((BLane *) g_ptr_array_index (self->lanes, lane_order[k]))->final_index = k;

  {
    FinishJob job;
    g_autofree CpLane **made = g_new0 (CpLane *, MAX (n_lanes, 1));

    finish_job_run (&job, self, origin, made);
    for (guint k = 0; k < n_lanes; k++)
      {
        trace->n_slices += cp_lane_get_slices (made[k])->n;
        g_ptr_array_add (trace->lane_array, made[k]);
        g_list_store_append (trace->lanes, made[k]);
      }
  }

  /* Explicit flows, remapped in place: the array becomes the trace's (a
   * copy would hold every flow twice at the peak). */
  {
    CpFlow *flows = (CpFlow *) self->flows->data;
    guint m = 0;

    for (guint i = 0; i < self->flows->len; i++)
      {
        CpFlow f = flows[i];

        f.from = remap_ref (self, f.from);
        f.to = remap_ref (self, f.to);
        if (f.from.lane == G_MAXUINT32 || f.to.lane == G_MAXUINT32)
          continue;
        flows[m++] = f;
      }
    g_array_set_size (self->flows, m);
    g_array_unref (trace->flows);
    trace->flows = g_steal_pointer (&self->flows);
  }

  /* Flow end points: bound to slices in insertion order (lane by lane
   * that is nearly time order, so each search starts near the last one),
   * then grouped by key and ordered within each key. */
  if (self->flow_points->len > 0)
    {
      const FlowPoint *points = (const FlowPoint *) self->flow_points->data;
      guint n_points = self->flow_points->len;
      g_autofree CpSliceRef *refs = g_new (CpSliceRef, n_points);
      g_autofree guint *hints = g_new0 (guint, MAX (n_lanes, 1));
      g_autofree KeyIdx *order = g_new (KeyIdx, n_points);
      guint unbound = 0;
      CpSliceRef prev = CP_SLICE_REF_NONE;
      guint64 prev_key = 0;
      gboolean have_prev = FALSE;

      for (guint i = 0; i < n_points; i++)
        {
          BLane *l = g_ptr_array_index (self->lanes, points[i].lane);

          refs[i] = bind_point (trace, &points[i], l->final_index, origin, &hints[l->final_index]);
          order[i].key = points[i].key;
          order[i].sub = points[i].order;
          order[i].idx = i;
        }
      sort_by_key (order, n_points, cmp_points, (gpointer) points);
      for (guint k = 0; k < n_points; k++)
        {
          const FlowPoint *p = &points[order[k].idx];
          CpSliceRef ref = refs[order[k].idx];

          if (!have_prev || p->key != prev_key)
            {
              have_prev = FALSE;
              prev_key = p->key;
            }
          if (ref.lane == G_MAXUINT32)
            {
              unbound++;
              continue;
            }
          if (have_prev && (prev.lane != ref.lane || prev.index != ref.index))
            {
              CpFlow f;

              f.from = prev;
              f.to = ref;
              f.kind = p->kind;
              f.name = p->name;
              g_array_append_val (trace->flows, f);
            }
          prev = ref;
          have_prev = TRUE;
        }
      if (unbound > 0)
        cp_load_report_warn (self->report, G_MAXUINT64,
                             g_dngettext (GETTEXT_PACKAGE,
                                          "%u flow end point had no slice to bind to",
                                          "%u flow end points had no slice to bind to", unbound),
                             unbound);
      g_array_set_size (self->flow_points, 0);
    }

  /* link_correlations() reads the slices' GPU info: hand it over first. */
  g_array_unref (trace->gpu_infos);
  trace->gpu_infos = g_steal_pointer (&self->gpu_infos);

  if (self->link_correlations)
    link_correlations (trace, trace->flows, cp_string_pool_intern (self->strings, "correlation", -1));

  /* Flow flags and indexes. */
  if (trace->flows->len > 0)
    {
      CpFlow *flows = (CpFlow *) trace->flows->data;
      guint n = trace->flows->len;

      for (guint i = 0; i < n; i++)
        {
          CpLane *from = g_ptr_array_index (trace->lane_array, flows[i].from.lane);
          CpLane *to = g_ptr_array_index (trace->lane_array, flows[i].to.lane);

          ((guint16 *) cp_lane_get_slices (from)->flags)[flows[i].from.index] |= CP_SLICE_HAS_FLOW_OUT;
          ((guint16 *) cp_lane_get_slices (to)->flags)[flows[i].to.index] |= CP_SLICE_HAS_FLOW_IN;
        }
      /* Both indexes at once on two threads for big captures (their
       * scratch is a fraction of an index); one after the other, so that the
       * first one's scratch is gone before the second one is made, when no
       * thread can be had. */
      trace->flows_by_from = g_new (guint32, n);
      {
        FlowIndexJob job = { trace->flows_by_from, flows, n, trace->lane_array->len, FALSE };
        GThread *th = NULL;

        if (self->finish_threads > 1 ||
            (self->finish_threads == 0 && n >= FINISH_MIN_PARALLEL && g_get_num_processors () > 1))
          th = g_thread_try_new ("cp-flow-index", flow_index_job, &job, NULL);
        trace->flows_by_to = g_new (guint32, n);
        sort_flow_index (trace->flows_by_to, flows, n, trace->lane_array->len, TRUE);
        if (th != NULL)
          g_thread_join (th);
        else
          flow_index_job (&job);
      }
    }

  /* Steps and instants. */
  for (guint i = 0; i < self->steps->len; i++)
    {
      CpStep s = g_array_index (self->steps, CpStep, i);

      s.start -= origin;
      s.end -= origin;
      if (s.marker.lane != G_MAXUINT32)
        s.marker = remap_ref (self, s.marker);
      g_array_append_val (trace->steps, s);
    }
  g_array_sort (trace->steps, cmp_steps);

  for (guint i = 0; i < self->instants->len; i++)
    {
      CpInstant in = g_array_index (self->instants, CpInstant, i);

      in.ts -= origin;
      if (in.lane >= 0 && (guint) in.lane < n_lanes)
        in.lane = ((BLane *) g_ptr_array_index (self->lanes, in.lane))->final_index;
      else
        in.lane = -1;
      g_array_append_val (trace->instants, in);
    }
  g_array_sort (trace->instants, cmp_instants);

  /* Hand over the rest. */
  g_array_append_vals (trace->processes, self->processes->data, self->processes->len);
  g_array_append_vals (trace->devices, self->devices->data, self->devices->len);
  g_array_unref (trace->args);
  trace->args = g_steal_pointer (&self->args);
  g_ptr_array_unref (trace->args_chunks);
  trace->args_chunks = g_steal_pointer (&self->args_chunks);
  trace->args_source = g_steal_pointer (&self->args_source);
  trace->args_arena_bytes = self->args_arena_bytes;
  g_array_unref (trace->metadata);
  trace->metadata = g_steal_pointer (&self->metadata);
  trace->report = g_steal_pointer (&self->report);
  trace->strings = g_steal_pointer (&self->strings);
  trace->file = g_steal_pointer (&self->file);
  trace->title = g_steal_pointer (&self->title);
  if (trace->title == NULL && trace->file != NULL)
    trace->title = g_file_get_basename (trace->file);
  if (self->has_epoch)
    {
      /* origin_abs stays in the reader's absolute base, which is epoch ns. */
      trace->origin_is_epoch = TRUE;
    }

  return g_steal_pointer (&trace);
}
