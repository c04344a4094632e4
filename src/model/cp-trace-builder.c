/* cp-trace-builder.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cp-huge-pages.h"
#include "cp-lane-private.h"
#include "cp-trace-builder.h"
#include "cp-trace-private.h"
#include "cp-trace-builder-private.h"

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
void
cp_builder_blane_finish_durations (BLane *l)
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

/* The capture is big (tens of megabytes or more): the columns every event
 * may add to start with room reserved (cp-huge-pages.h). */
void
cp_trace_builder_expect_big (CpTraceBuilder *self)
{
  g_return_if_fail (self != NULL);

  cp_array_reserve_big (&self->gpu_infos, TRUE);
  cp_array_reserve_big (&self->args, TRUE);
  cp_array_reserve_big (&self->flows, TRUE);
  cp_array_reserve_big (&self->flow_points, TRUE);
  cp_array_reserve_big (&self->instants, TRUE);
}

/* The arrays that grow with the events a reader adds (those that
 * cp_trace_builder_expect_big() reserves), up to max of them: a reader
 * may have their pages populated ahead on another thread
 * (cp_huge_pages_populate()). They stay the same arrays until the
 * builder is finished. */
guint
cp_trace_builder_get_growing (CpTraceBuilder  *self,
                              GArray         **columns,
                              guint            max)
{
  GArray *all[5];
  guint n;

  g_return_val_if_fail (self != NULL, 0);

  all[0] = self->gpu_infos;
  all[1] = self->args;
  all[2] = self->flows;
  all[3] = self->flow_points;
  all[4] = self->instants;
  n = MIN (max, G_N_ELEMENTS (all));
  for (guint i = 0; i < n; i++)
    columns[i] = all[i];
  return n;
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
  g_free (self->taken_points);
  g_array_unref (self->instants);
  g_array_unref (self->steps);
  g_clear_pointer (&self->devices, g_array_unref);
  g_clear_pointer (&self->device_index, g_hash_table_unref);
  g_clear_pointer (&self->metadata, g_array_unref);
  g_clear_pointer (&self->xla_sources, g_array_unref);
  g_free (self);
}

void
cp_trace_builder_add_xla_source (CpTraceBuilder    *self,
                                 const CpXlaSource *source)
{
  g_return_if_fail (source != NULL);

  if (self->xla_sources == NULL)
    self->xla_sources = g_array_new (FALSE, FALSE, sizeof (CpXlaSource));
  g_array_append_vals (self->xla_sources, source, 1);
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
  if ((gsize) cap * sizeof (gint64) >= CP_HUGE_PAGES_MIN)
    {
      cp_huge_pages_advise (l->start);
      cp_huge_pages_advise (l->dur32);
      cp_huge_pages_advise (l->names);
      cp_huge_pages_advise (l->cat32 != NULL ? (gconstpointer) l->cat32 : l->cat8);
      cp_huge_pages_advise (l->flags);
    }
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
      cp_array_append_big (self->gpu_infos, *init->gpu);
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
  cp_array_append_big (self->args, rec);
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

  cp_array_append_big (self->gpu_infos, *info);
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

void
cp_trace_builder_set_args_source_in_file (CpTraceBuilder *self,
                                          gboolean        in_file)
{
  self->args_source_in_file = in_file;
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
  cp_array_append_big (self->args, rec);
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
  cp_array_append_big (l->counter_ts, ts_abs);
  cp_array_append_big (l->counter_values, value);
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
  cp_array_append_big (self->instants, in);
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
  cp_array_append_big (self->flows, f);
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
  if (G_UNLIKELY (self->taken_points != NULL))
    {
      /* Taken points come first. */
      g_array_append_vals (self->flow_points, self->taken_points, self->n_taken_points);
      g_clear_pointer (&self->taken_points, g_free);
      self->n_taken_points = 0;
    }
  p.key = key;
  p.ts = CLAMP (ts_abs, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
  p.lane = lane;
  p.seq = self->flow_points->len;
  p.name = name;
  p.bind = bind;
  p.order = order;
  p.kind = kind;
  cp_array_append_big (self->flow_points, p);
}

void
cp_trace_builder_take_flow_points (CpTraceBuilder     *self,
                                   CpBuilderFlowPoint *points,
                                   guint               n,
                                   gsize               block_bytes)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (block_bytes >= (gsize) n * sizeof (FlowPoint));

  if (n == 0)
    {
      g_free (points);
      return;
    }
  g_return_if_fail (points != NULL);
  if (self->flow_points->len == 0 && self->taken_points == NULL)
    {
      self->taken_points = points;
      self->n_taken_points = n;
      self->taken_bytes = block_bytes;
      return;
    }
  /* Points came before: append these after them. */
  for (guint i = 0; i < n; i++)
    cp_trace_builder_add_flow_point (self, points[i].key, points[i].lane, points[i].ts,
                                     points[i].bind, points[i].order, points[i].kind, points[i].name);
  g_free (points);
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
  /* What each name of the pool is, found once: 0 not yet looked at,
   * 1 not a step, 2 a step (its number read again for each of the few
   * slices that are steps). An array, not a hash table: it is asked once
   * per host slice. */
  guint n_strings = cp_string_pool_size (self->strings);
  g_autofree guint8 *kind = g_new0 (guint8, MAX (n_strings, 1));

  for (guint li = 0; li < self->lanes->len; li++)
    {
      BLane *l = g_ptr_array_index (self->lanes, li);

      if (l->kind != CP_LANE_HOST_THREAD)
        continue;
      for (guint i = 0; i < l->n; i++)
        {
          CpStr name = l->names[i];
          gint64 number;
          gboolean step;

          if (G_LIKELY (name < n_strings && kind[name] != 0))
            {
              if (kind[name] == 1)
                continue;
              step = parse_profiler_step (cp_string_pool_get (self->strings, name), &number);
            }
          else
            {
              step = parse_profiler_step (cp_string_pool_get (self->strings, name), &number);
              if (name < n_strings)
                kind[name] = step ? 2 : 1;
            }
          if (step)
            {
              CpSliceRef ref = { li, i };

              cp_trace_builder_add_step (self, number, l->start[i], l->start[i] + blane_dur (l, i), ref);
            }
        }
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
