/* cp-trace.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>
#include <string.h>
#ifdef G_OS_UNIX
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "cp-lane-private.h"
#include "cp-trace-private.h"

G_DEFINE_QUARK (cp-trace-error-quark, cp_trace_error)

G_DEFINE_FINAL_TYPE (CpTrace, cp_trace, G_TYPE_OBJECT)

static void
clear_metadata (gpointer data)
{
  CpMetadataEntry *e = data;

  g_clear_pointer (&e->json, g_free);
}

static void
cp_trace_finalize (GObject *object)
{
  CpTrace *self = (CpTrace *) object;

  g_clear_pointer (&self->strings, cp_string_pool_free);
  g_clear_object (&self->lanes);
  g_clear_pointer (&self->lane_array, g_ptr_array_unref);
  g_clear_pointer (&self->processes, g_array_unref);
  g_clear_pointer (&self->devices, g_array_unref);
  g_clear_pointer (&self->flows, g_array_unref);
  g_clear_pointer (&self->flows_by_from, g_free);
  g_clear_pointer (&self->flows_by_to, g_free);
  g_clear_pointer (&self->instants, g_array_unref);
  g_clear_pointer (&self->steps, g_array_unref);
  g_clear_pointer (&self->gpu_infos, g_array_unref);
  g_clear_pointer (&self->args, g_array_unref);
  g_clear_pointer (&self->args_chunks, g_ptr_array_unref);
  g_clear_pointer (&self->args_source, g_bytes_unref);
  g_clear_pointer (&self->metadata, g_array_unref);
  g_clear_pointer (&self->xla_sources, g_array_unref);
  g_clear_pointer (&self->report, cp_load_report_free);
  g_clear_pointer (&self->memory, cp_memory_free);
  g_clear_object (&self->file);
  g_clear_pointer (&self->title, g_free);

  G_OBJECT_CLASS (cp_trace_parent_class)->finalize (object);
}

static void
cp_trace_class_init (CpTraceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cp_trace_finalize;
}

static void
cp_trace_init (CpTrace *self)
{
  self->lanes = g_list_store_new (CP_TYPE_LANE);
  self->lane_array = g_ptr_array_new_with_free_func (g_object_unref);
  self->processes = g_array_new (FALSE, TRUE, sizeof (CpProcess));
  self->devices = g_array_new (FALSE, TRUE, sizeof (CpDevice));
  self->flows = g_array_new (FALSE, TRUE, sizeof (CpFlow));
  self->instants = g_array_new (FALSE, TRUE, sizeof (CpInstant));
  self->steps = g_array_new (FALSE, TRUE, sizeof (CpStep));
  self->gpu_infos = g_array_new (FALSE, TRUE, sizeof (CpGpuInfo));
  self->args = g_array_new (FALSE, TRUE, sizeof (CpArgsRecord));
  self->args_chunks = g_ptr_array_new_with_free_func (g_free);
  self->metadata = g_array_new (FALSE, TRUE, sizeof (CpMetadataEntry));
  g_array_set_clear_func (self->metadata, clear_metadata);
}

CpTrace *
_cp_trace_new (void)
{
  return g_object_new (CP_TYPE_TRACE, NULL);
}

GListModel *
cp_trace_get_lanes (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  return G_LIST_MODEL (self->lanes);
}

guint
cp_trace_get_n_lanes (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->lane_array->len;
}

CpLane *
cp_trace_get_lane (CpTrace *self,
                   guint    index)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  g_return_val_if_fail (index < self->lane_array->len, NULL);
  return g_ptr_array_index (self->lane_array, index);
}

guint
cp_trace_get_n_processes (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->processes->len;
}

const CpProcess *
cp_trace_get_process (CpTrace *self,
                      guint    index)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  g_return_val_if_fail (index < self->processes->len, NULL);
  return &g_array_index (self->processes, CpProcess, index);
}

guint
cp_trace_get_n_devices (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->devices->len;
}

const CpDevice *
cp_trace_get_device (CpTrace *self,
                     guint    index)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  g_return_val_if_fail (index < self->devices->len, NULL);
  return &g_array_index (self->devices, CpDevice, index);
}

static CpDeviceKind
device_kind_of_name (const char *name)
{
  const char *dev;

  if (name == NULL)
    return CP_DEVICE_KIND_GPU;
  /* Kineto's MTIA devices: "MTIA 17". */
  if (g_str_has_prefix (name, "MTIA ") && g_ascii_isdigit (name[5]))
    return CP_DEVICE_KIND_MTIA;
  if (g_str_has_prefix (name, "/device:"))
    dev = name;
  else if ((dev = strstr (name, " /device:")) != NULL)
    dev++;
  else
    return CP_DEVICE_KIND_GPU;
  if (g_str_has_prefix (dev, "/device:TPU:"))
    return CP_DEVICE_KIND_TPU;
  if (g_str_has_prefix (dev, "/device:GPU:"))
    return CP_DEVICE_KIND_GPU;
  return CP_DEVICE_KIND_OTHER;
}

CpDeviceKind
cp_process_get_device_kind (CpTrace         *self,
                            const CpProcess *process)
{
  g_return_val_if_fail (CP_IS_TRACE (self), CP_DEVICE_KIND_GPU);
  g_return_val_if_fail (process != NULL, CP_DEVICE_KIND_GPU);
  return device_kind_of_name (cp_trace_get_string (self, process->name));
}

CpDeviceKind
cp_trace_get_device_kind (CpTrace *self,
                          gint     ordinal)
{
  g_return_val_if_fail (CP_IS_TRACE (self), CP_DEVICE_KIND_GPU);
  for (guint i = 0; i < self->processes->len; i++)
    {
      const CpProcess *p = &g_array_index (self->processes, CpProcess, i);

      if (p->is_device && p->device == ordinal)
        return cp_process_get_device_kind (self, p);
    }
  return CP_DEVICE_KIND_GPU;
}

const char *
cp_device_kind_to_string (CpDeviceKind kind)
{
  switch (kind)
    {
    case CP_DEVICE_KIND_TPU:
      return "tpu";
    case CP_DEVICE_KIND_OTHER:
      return "other";
    case CP_DEVICE_KIND_MTIA:
      return "mtia";
    case CP_DEVICE_KIND_GPU:
    default:
      return "gpu";
    }
}

const CpDevice *
cp_trace_find_device (CpTrace *self,
                      gint     ordinal)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  for (guint i = 0; i < self->devices->len; i++)
    {
      const CpDevice *d = &g_array_index (self->devices, CpDevice, i);

      if (d->ordinal == ordinal)
        return d;
    }
  return NULL;
}

const char *
cp_trace_get_string (CpTrace *self,
                     CpStr    id)
{
  return cp_string_pool_get (self->strings, id);
}

const CpStringPool *
cp_trace_get_string_pool (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  return self->strings;
}

gint64
cp_trace_get_origin_abs (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->origin_abs;
}

gboolean
cp_trace_get_origin_is_epoch (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), FALSE);
  return self->origin_is_epoch;
}

gint64
cp_trace_get_duration (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->duration;
}

guint64
cp_trace_get_n_slices (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->n_slices;
}

static guint64
count_device_syncs (CpLane *lane)
{
  const CpSlices *s = cp_lane_get_slices (lane);
  guint64 n = 0;

  for (guint i = 0; i < s->n; i++)
    if (s->flags[i] & CP_SLICE_SYNC)
      n++;
  return n;
}

guint64
cp_trace_count_slices (CpTrace    *self,
                       CpLaneKind  kind)
{
  guint64 n = 0;

  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  for (guint i = 0; i < self->lane_array->len; i++)
    {
      CpLane *lane = g_ptr_array_index (self->lane_array, i);

      if (cp_lane_get_kind (lane) == kind)
        {
          n += cp_lane_get_n_slices (lane);
          if (kind == CP_LANE_KERNEL)
            n -= count_device_syncs (lane);
        }
    }
  return n;
}

guint64
cp_trace_count_device_syncs (CpTrace *self)
{
  guint64 n = 0;

  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  for (guint i = 0; i < self->lane_array->len; i++)
    {
      CpLane *lane = g_ptr_array_index (self->lane_array, i);
      CpLaneKind kind = cp_lane_get_kind (lane);

      if (kind == CP_LANE_KERNEL || kind == CP_LANE_TRANSFER)
        n += count_device_syncs (lane);
    }
  return n;
}

const CpFlow *
cp_trace_get_flows (CpTrace *self,
                    guint   *n_flows)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  if (n_flows)
    *n_flows = self->flows->len;
  return (const CpFlow *) self->flows->data;
}

const guint32 *
cp_trace_get_flow_order (CpTrace  *self,
                         gboolean  by_to,
                         guint    *n)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  *n = self->flows->len;
  return by_to ? self->flows_by_to : self->flows_by_from;
}

static inline int
ref_cmp (CpSliceRef a,
         CpSliceRef b)
{
  if (a.lane != b.lane)
    return a.lane < b.lane ? -1 : 1;
  if (a.index != b.index)
    return a.index < b.index ? -1 : 1;
  return 0;
}

static void
find_in_index (CpTrace        *self,
               const guint32  *index,
               gboolean        by_from,
               CpSliceRef      ref,
               GArray         *out)
{
  const CpFlow *flows = (const CpFlow *) self->flows->data;
  guint lo = 0, hi = self->flows->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const CpFlow *f = &flows[index[mid]];

      if (ref_cmp (by_from ? f->from : f->to, ref) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (; lo < self->flows->len; lo++)
    {
      const CpFlow *f = &flows[index[lo]];

      if (ref_cmp (by_from ? f->from : f->to, ref) != 0)
        break;
      g_array_append_val (out, index[lo]);
    }
}

void
cp_trace_find_flows (CpTrace    *self,
                     CpSliceRef  ref,
                     GArray     *out)
{
  g_return_if_fail (CP_IS_TRACE (self));
  g_return_if_fail (out != NULL);

  if (self->flows->len == 0)
    return;
  find_in_index (self, self->flows_by_from, TRUE, ref, out);
  find_in_index (self, self->flows_by_to, FALSE, ref, out);
}

const CpInstant *
cp_trace_get_instants (CpTrace *self,
                       guint   *n_instants)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  if (n_instants)
    *n_instants = self->instants->len;
  return (const CpInstant *) self->instants->data;
}

const CpStep *
cp_trace_get_steps (CpTrace *self,
                    guint   *n_steps)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  if (n_steps)
    *n_steps = self->steps->len;
  return (const CpStep *) self->steps->data;
}

gboolean
cp_trace_slice_ref_valid (CpTrace    *self,
                          CpSliceRef  ref)
{
  g_return_val_if_fail (CP_IS_TRACE (self), FALSE);
  return ref.lane < self->lane_array->len &&
         ref.index < cp_lane_get_n_slices (g_ptr_array_index (self->lane_array, ref.lane));
}

static const CpSlices *
slices_for (CpTrace    *self,
            CpSliceRef  ref)
{
  if (!cp_trace_slice_ref_valid (self, ref))
    return NULL;
  return cp_lane_get_slices (g_ptr_array_index (self->lane_array, ref.lane));
}

const CpGpuInfo *
cp_trace_get_gpu_info (CpTrace    *self,
                       CpSliceRef  ref)
{
  const CpSlices *s = slices_for (self, ref);
  guint32 g;

  if (s == NULL)
    return NULL;
  g = cp_slices_get_gpu (s, ref.index);
  if (g == 0 || g > self->gpu_infos->len)
    return NULL;
  return &g_array_index (self->gpu_infos, CpGpuInfo, g - 1);
}

gboolean
cp_trace_get_args_by_id (CpTrace       *self,
                         guint32        args_id,
                         CpArgsFormat  *format,
                         const guint8 **data,
                         gsize         *len)
{
  const CpArgsRecord *rec;

  g_return_val_if_fail (CP_IS_TRACE (self), FALSE);

  if (args_id == 0 || args_id > self->args->len)
    return FALSE;
  rec = &g_array_index (self->args, CpArgsRecord, args_id - 1);
  if (format)
    *format = rec->format;
  if (data)
    *data = rec->data;
  if (len)
    *len = rec->len;
  return TRUE;
}

gboolean
cp_trace_get_args (CpTrace       *self,
                   CpSliceRef     ref,
                   CpArgsFormat  *format,
                   const guint8 **data,
                   gsize         *len)
{
  const CpSlices *s = slices_for (self, ref);

  if (s == NULL)
    return FALSE;
  return cp_trace_get_args_by_id (self, cp_slices_get_args (s, ref.index), format, data, len);
}

guint
cp_trace_get_n_metadata (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->metadata->len;
}

static int
compare_xla_source (gconstpointer a,
                    gconstpointer b)
{
  const CpXlaSource *x = a, *y = b;

  if (x->program_id != y->program_id)
    return x->program_id < y->program_id ? -1 : 1;
  return x->hlo_op < y->hlo_op ? -1 : x->hlo_op > y->hlo_op;
}

void
_cp_trace_sort_xla_sources (CpTrace *self)
{
  guint out = 0;

  g_array_sort (self->xla_sources, compare_xla_source);
  /* The first of each (program, op) stays. */
  for (guint i = 0; i < self->xla_sources->len; i++)
    if (out == 0 || compare_xla_source (&g_array_index (self->xla_sources, CpXlaSource, i),
                                        &g_array_index (self->xla_sources, CpXlaSource, out - 1)) != 0)
      g_array_index (self->xla_sources, CpXlaSource, out++) = g_array_index (self->xla_sources, CpXlaSource, i);
  g_array_set_size (self->xla_sources, out);
}

const CpXlaSource *
cp_trace_find_xla_source (CpTrace *self,
                          gint64   program_id,
                          CpStr    hlo_op)
{
  CpXlaSource key = { 0 };
  guint lo = 0, hi;

  g_return_val_if_fail (CP_IS_TRACE (self), NULL);

  if (self->xla_sources == NULL)
    return NULL;
  key.program_id = program_id;
  key.hlo_op = hlo_op;
  hi = self->xla_sources->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int c = compare_xla_source (&g_array_index (self->xla_sources, CpXlaSource, mid), &key);

      if (c == 0)
        return &g_array_index (self->xla_sources, CpXlaSource, mid);
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

guint
cp_trace_get_n_xla_sources (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), 0);
  return self->xla_sources != NULL ? self->xla_sources->len : 0;
}

const CpMetadataEntry *
cp_trace_get_metadata (CpTrace *self,
                       guint    index)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  g_return_val_if_fail (index < self->metadata->len, NULL);
  return &g_array_index (self->metadata, CpMetadataEntry, index);
}

const char *
cp_trace_lookup_metadata (CpTrace    *self,
                          const char *key)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  for (guint i = 0; i < self->metadata->len; i++)
    {
      const CpMetadataEntry *e = &g_array_index (self->metadata, CpMetadataEntry, i);

      if (g_strcmp0 (cp_string_pool_get (self->strings, e->key), key) == 0)
        return e->json;
    }
  return NULL;
}

const CpLoadReport *
cp_trace_get_load_report (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  return self->report;
}

GFile *
cp_trace_get_file (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  return self->file;
}

const char *
cp_trace_get_title (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  return self->title ? self->title : "";
}

gsize
cp_trace_get_memory_size (CpTrace *self)
{
  gsize size = sizeof *self;

  g_return_val_if_fail (CP_IS_TRACE (self), 0);

  size += cp_string_pool_memory (self->strings);
  for (guint i = 0; i < self->lane_array->len; i++)
    size += _cp_lane_get_memory_size (g_ptr_array_index (self->lane_array, i));
  size += self->flows->len * (sizeof (CpFlow) + 2 * sizeof (guint32));
  size += self->instants->len * sizeof (CpInstant);
  size += cp_memory_get_size (self->memory);
  size += self->gpu_infos->len * sizeof (CpGpuInfo);
  size += self->args->len * sizeof (CpArgsRecord);
  size += self->args_arena_bytes;
  return size;
}

const char *
cp_trace_slice_name (CpTrace    *self,
                     CpSliceRef  ref)
{
  const CpSlices *s = slices_for (self, ref);

  return s ? cp_string_pool_get (self->strings, cp_slices_get_name (s, ref.index)) : "";
}

gint64
cp_trace_slice_start (CpTrace    *self,
                      CpSliceRef  ref)
{
  const CpSlices *s = slices_for (self, ref);

  return s ? cp_slices_get_start (s, ref.index) : 0;
}

gint64
cp_trace_slice_dur (CpTrace    *self,
                    CpSliceRef  ref)
{
  const CpSlices *s = slices_for (self, ref);

  return s ? cp_slices_get_dur (s, ref.index) : 0;
}

void
cp_trace_release_args_pages (CpTrace *self)
{
  g_return_if_fail (CP_IS_TRACE (self));
  {
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  gsize size;
  const guint8 *base;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  /* Only a read-only private file mapping: there MADV_DONTNEED drops the
   * process' copy of clean pages and the next read faults them in from
   * the page cache. On memory of our own it would zero it. */
  if (self->args_source == NULL || !self->args_source_in_file || page <= 0)
    return;
  base = g_bytes_get_data (self->args_source, &size);
  if (base == NULL || size == 0)
    return;
  start = ((guintptr) base + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) base + size) & ~((guintptr) page - 1);
  if (stop > start)
    madvise ((void *) start, stop - start, MADV_DONTNEED);
#endif
  }
}

const CpMemory *
cp_trace_get_memory_events (CpTrace *self)
{
  g_return_val_if_fail (CP_IS_TRACE (self), NULL);
  return self->memory;
}

void
_cp_trace_set_memory_events (CpTrace  *self,
                             CpMemory *memory)
{
  g_clear_pointer (&self->memory, cp_memory_free);
  self->memory = memory;
}
