/* cp-timeline-layout.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp-timeline-layout.h"

struct _CpTimelineLayout
{
  gatomicrefcount  ref_count;
  CpTrace         *trace;      /* strong */
  CpLod           *lod;        /* borrowed from the trace */
  guint            serial;     /* view's layout serial when built */
  CpLayoutMetrics  metrics;
  GArray          *items;      /* of CpLayoutItem */
  GPtrArray       *labels;     /* one per item */
  gint            *lane_item;  /* per lane: item index or -1 */
  gint            *group_item; /* per process: item index or -1 */
  guint            n_lanes;
  guint            n_processes;
  guint            n_pinned;   /* the first n_pinned items are pinned */
  double           pinned_height;
  double           content_height;
};

void
cp_layout_metrics_init (CpLayoutMetrics *metrics,
                        double           font_px)
{
  g_return_if_fail (metrics != NULL);

  if (!(font_px > 4 && font_px < 200))
    font_px = 12;
  metrics->row_height = ceil (font_px * 1.5);
  metrics->lane_padding = 2;
  metrics->header_height = ceil (font_px * 2);
  metrics->ruler_height = ceil (font_px * 2.4);
  metrics->counter_height = ceil (font_px * 3);
  metrics->min_lane_height = metrics->row_height + 2 * metrics->lane_padding;
  metrics->gutter_width = ceil (font_px * 18);
}

static char *
group_label (CpTrace         *trace,
             const CpProcess *p)
{
  const char *name = cp_trace_get_string (trace, p->name);

  if (p->is_device && p->device >= 0)
    {
      const CpDevice *dev = cp_trace_find_device (trace, p->device);
      const char *dev_name = dev ? cp_trace_get_string (trace, dev->name) : NULL;
      CpDeviceKind kind = cp_process_get_device_kind (trace, p);
      gboolean is_tpu = kind == CP_DEVICE_KIND_TPU;

      /* Other device planes (XPlane custom planes) keep their own name. */
      if (kind == CP_DEVICE_KIND_OTHER)
        return g_strdup (name);
      if (kind == CP_DEVICE_KIND_MTIA)
        return dev_name && *dev_name ?
               /* Translators: a lane group of Meta's MTIA accelerator: "MTIA 17 · ARTEMIS". */
               g_strdup_printf (_("MTIA %d · %s"), p->device, dev_name) :
               g_strdup_printf (_("MTIA %d"), p->device);
      if (dev_name && *dev_name)
        return is_tpu ?
               /* Translators: a TPU lane group: "TPU 0 · TPU v4". */
               g_strdup_printf (_("TPU %d · %s"), p->device, dev_name) :
               /* Translators: a GPU lane group: "GPU 0 · NVIDIA H100 80GB HBM3". */
               g_strdup_printf (_("GPU %d · %s"), p->device, dev_name);
      return is_tpu ? g_strdup_printf (_("TPU %d"), p->device)
                    : g_strdup_printf (_("GPU %d"), p->device);
    }
  if (name && *name)
    {
      if (p->pid != CP_NONE && p->pid >= 0)
        /* Translators: a process lane group: "python (pid 4242)". */
        return g_strdup_printf (_("%s (pid %" PRId64 ")"), name, p->pid);
      return g_strdup (name);
    }
  if (p->pid != CP_NONE)
    return g_strdup_printf (_("Process %" PRId64), p->pid);
  return g_strdup (cp_trace_get_string (trace, p->key));
}

static char *
lane_label (CpLane *lane)
{
  const char *name = cp_lane_get_name (lane);

  if (name && *name)
    return g_strdup (name);
  switch (cp_lane_get_kind (lane))
    {
    case CP_LANE_HOST_THREAD:
      return g_strdup_printf (_("Thread %" PRId64), cp_lane_get_tid (lane));
    case CP_LANE_KERNEL:
      return g_strdup_printf (_("Stream %" PRId64), cp_lane_get_stream (lane));
    case CP_LANE_TRANSFER:
      return g_strdup_printf (_("Memory %s"), cp_transfer_kind_to_string (cp_lane_get_transfer_kind (lane)));
    case CP_LANE_DEVICE_ANNOTATION:
      return g_strdup (_("Annotations"));
    case CP_LANE_ASYNC:
      return g_strdup (_("Async"));
    case CP_LANE_COUNTER:
      return g_strdup (_("Counter"));
    case CP_LANE_N_KINDS:
    default:
      return g_strdup ("");
    }
}

char *
cp_timeline_group_label (CpTrace *trace,
                         guint    process)
{
  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (process < cp_trace_get_n_processes (trace), NULL);

  return group_label (trace, cp_trace_get_process (trace, process));
}

char *
cp_timeline_lane_label (CpTrace *trace,
                        guint    lane)
{
  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (lane < cp_trace_get_n_lanes (trace), NULL);

  return lane_label (cp_trace_get_lane (trace, lane));
}

static double
lane_height (CpTimelineLayout *self,
             CpLane           *lane,
             guint            *n_rows)
{
  const CpLayoutMetrics *m = &self->metrics;

  *n_rows = cp_lane_get_n_rows (lane);
  if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
    return m->counter_height;
  return MAX (m->min_lane_height, *n_rows * m->row_height + 2 * m->lane_padding);
}

static void
add_item (CpTimelineLayout   *self,
          const CpLayoutItem *item,
          char               *label)
{
  g_array_append_val (self->items, *item);
  g_ptr_array_add (self->labels, label);
}

CpTimelineLayout *
cp_timeline_layout_new (CpViewState           *view,
                        const CpLayoutMetrics *metrics)
{
  CpTimelineLayout *self;
  CpTrace *trace;
  g_autofree guint *order = NULL;
  g_autofree guint8 *seen = NULL;
  g_autofree guint *by_process_start = NULL;
  g_autofree guint *by_process = NULL;
  const guint *pinned;
  guint n_pinned, n_order = 0;
  double y;

  g_return_val_if_fail (CP_IS_VIEW_STATE (view), NULL);
  g_return_val_if_fail (metrics != NULL, NULL);

  trace = cp_view_state_get_trace (view);

  self = g_new0 (CpTimelineLayout, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->metrics = *metrics;
  self->serial = cp_view_state_get_layout_serial (view);
  self->items = g_array_new (FALSE, FALSE, sizeof (CpLayoutItem));
  self->labels = g_ptr_array_new_with_free_func (g_free);
  if (trace == NULL)
    return self;

  self->trace = g_object_ref (trace);
  self->lod = cp_lod_ensure (trace);
  self->n_lanes = cp_trace_get_n_lanes (trace);
  self->n_processes = cp_trace_get_n_processes (trace);
  self->lane_item = g_new (gint, MAX (self->n_lanes, 1));
  self->group_item = g_new (gint, MAX (self->n_processes, 1));
  for (guint i = 0; i < self->n_lanes; i++)
    self->lane_item[i] = -1;
  for (guint i = 0; i < self->n_processes; i++)
    self->group_item[i] = -1;

  /* Pinned lanes first, in the order they were pinned. */
  pinned = cp_view_state_get_pinned_lanes (view, &n_pinned);
  y = 0;
  for (guint i = 0; i < n_pinned; i++)
    {
      CpLane *lane;
      CpLayoutItem item = { 0 };

      if (pinned[i] >= self->n_lanes || cp_view_state_get_lane_hidden (view, pinned[i]))
        continue;
      lane = cp_trace_get_lane (trace, pinned[i]);
      item.kind = CP_LAYOUT_LANE;
      item.pinned = TRUE;
      item.lane = pinned[i];
      item.process = cp_lane_get_process (lane);
      item.y = y;
      item.height = lane_height (self, lane, &item.n_rows);
      y += item.height;
      self->lane_item[item.lane] = self->items->len;
      {
        /* Away from its group, a pinned lane names it too. */
        g_autofree char *own = lane_label (lane);
        g_autofree char *group = group_label (trace, cp_trace_get_process (trace, item.process));

        /* Translators: a pinned lane and its group: "stream 7 · GPU 0 · NVIDIA H100". */
        add_item (self, &item, g_strdup_printf (_("%s · %s"), own, group));
      }
    }
  self->n_pinned = self->items->len;
  self->pinned_height = y;

  /* Groups in the trace's order (processes by sort index, pseudo processes
   * last), devices moved before or after the host processes. */
  order = g_new (guint, MAX (self->n_processes, 1));
  seen = g_new0 (guint8, MAX (self->n_processes, 1));
  for (guint pass = 0; pass < 2; pass++)
    {
      gboolean want_devices = cp_view_state_get_devices_first (view) ? pass == 0 : pass == 1;

      for (guint i = 0; i < self->n_lanes; i++)
        {
          guint p = cp_lane_get_process (cp_trace_get_lane (trace, i));
          const CpProcess *proc;

          if (p >= self->n_processes || seen[p])
            continue;
          proc = cp_trace_get_process (trace, p);
          if (!!proc->is_device != want_devices)
            continue;
          seen[p] = TRUE;
          order[n_order++] = p;
        }
    }
  /* Pseudo processes (Kineto's "Spans", CUPTI overhead) stay last: a
   * stable partition. */
  {
    g_autofree guint *pseudo = g_new (guint, MAX (n_order, 1));
    guint j = 0, k = 0;

    for (guint i = 0; i < n_order; i++)
      {
        if (cp_trace_get_process (trace, order[i])->is_pseudo)
          pseudo[k++] = order[i];
        else
          order[j++] = order[i];
      }
    memcpy (order + j, pseudo, k * sizeof (guint));
  }

  /* Each process's lanes in lane order, found once (a counting sort), so
   * that many processes do not make every group walk every lane. */
  by_process_start = g_new0 (guint, self->n_processes + 1);
  by_process = g_new (guint, MAX (self->n_lanes, 1));
  for (guint i = 0; i < self->n_lanes; i++)
    {
      guint p = cp_lane_get_process (cp_trace_get_lane (trace, i));

      if (p < self->n_processes)
        by_process_start[p + 1]++;
    }
  for (guint p = 0; p < self->n_processes; p++)
    by_process_start[p + 1] += by_process_start[p];
  {
    g_autofree guint *fill = g_memdup2 (by_process_start, self->n_processes * sizeof (guint) + sizeof (guint));

    for (guint i = 0; i < self->n_lanes; i++)
      {
        guint p = cp_lane_get_process (cp_trace_get_lane (trace, i));

        if (p < self->n_processes)
          by_process[fill[p]++] = i;
      }
  }

  y = 0;
  for (guint g = 0; g < n_order; g++)
    {
      guint p = order[g];
      const CpProcess *proc = cp_trace_get_process (trace, p);
      CpLayoutItem header = { 0 };
      guint header_index;
      gboolean collapsed = cp_view_state_get_group_collapsed (view, p);

      header.kind = CP_LAYOUT_GROUP;
      header.process = p;
      header.collapsed = collapsed;
      header.is_device = proc->is_device;
      header.y = y;
      header.height = self->metrics.header_height;
      header_index = self->items->len;
      self->group_item[p] = header_index;
      add_item (self, &header, group_label (trace, proc));
      y += header.height;

      for (guint k = by_process_start[p]; k < by_process_start[p + 1]; k++)
        {
          guint i = by_process[k];
          CpLane *lane = cp_trace_get_lane (trace, i);
          CpLayoutItem item = { 0 };
          CpLayoutItem *h;

          h = &g_array_index (self->items, CpLayoutItem, header_index);
          h->n_lanes++;
          if (cp_view_state_get_lane_hidden (view, i))
            {
              h->n_hidden++;
              continue;
            }
          if (collapsed || self->lane_item[i] >= 0)
            continue;
          item.kind = CP_LAYOUT_LANE;
          item.lane = i;
          item.process = p;
          item.y = y;
          item.height = lane_height (self, lane, &item.n_rows);
          y += item.height;
          self->lane_item[i] = self->items->len;
          add_item (self, &item, lane_label (lane));
        }

      /* The device's memory over time, below its lanes. */
      if (!collapsed && proc->is_device && proc->device >= 0)
        {
          const CpMemory *mem = cp_trace_get_memory_events (trace);

          for (guint t = 0; t < cp_memory_get_n_tracks (mem); t++)
            {
              const CpMemoryTrack *track = cp_memory_get_track (mem, t);
              CpLayoutItem item = { 0 };

              if (track->device_type == 0 || track->device_id != proc->device || track->n_events == 0)
                continue;
              item.kind = CP_LAYOUT_MEMORY;
              item.lane = t;
              item.process = p;
              item.y = y;
              item.height = 2 * self->metrics.counter_height;
              y += item.height;
              /* Translators: the memory track of a device on the timeline;
               * without reserved figures (XLA's allocator), allocated alone. */
              add_item (self, &item, g_strdup (track->has_reserved ? _("Memory: allocated, reserved")
                                                                   : _("Memory: allocated")));
              break;
            }
        }
    }
  self->content_height = y;

  return self;
}

CpTimelineLayout *
cp_timeline_layout_ref (CpTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
cp_timeline_layout_unref (CpTimelineLayout *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_array_unref (self->items);
  g_ptr_array_unref (self->labels);
  g_free (self->lane_item);
  g_free (self->group_item);
  g_clear_object (&self->trace);
  g_free (self);
}

gboolean
cp_timeline_layout_is_current (CpTimelineLayout *self,
                               CpViewState      *view)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (CP_IS_VIEW_STATE (view), FALSE);

  return self->trace == cp_view_state_get_trace (view) &&
         self->serial == cp_view_state_get_layout_serial (view);
}

const CpLayoutMetrics *
cp_timeline_layout_get_metrics (CpTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->metrics;
}

guint
cp_timeline_layout_get_n_items (CpTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->items->len;
}

const CpLayoutItem *
cp_timeline_layout_get_item (CpTimelineLayout *self,
                             guint             index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->items->len, NULL);
  return &g_array_index (self->items, CpLayoutItem, index);
}

gint
cp_timeline_layout_find_lane (CpTimelineLayout *self,
                              guint             lane)
{
  g_return_val_if_fail (self != NULL, -1);
  return lane < self->n_lanes ? self->lane_item[lane] : -1;
}

gint
cp_timeline_layout_find_group (CpTimelineLayout *self,
                               guint             process)
{
  g_return_val_if_fail (self != NULL, -1);
  return process < self->n_processes ? self->group_item[process] : -1;
}

double
cp_timeline_layout_get_pinned_height (CpTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->pinned_height;
}

double
cp_timeline_layout_get_content_height (CpTimelineLayout *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->content_height;
}

double
cp_timeline_layout_get_max_offset (CpTimelineLayout *self,
                                   double            height)
{
  double room;

  g_return_val_if_fail (self != NULL, 0);

  room = height - self->metrics.ruler_height - self->pinned_height;
  return MAX (0, self->content_height - room);
}

gboolean
cp_timeline_layout_item_rect (CpTimelineLayout *self,
                              guint             index,
                              double            offset,
                              double            view_height,
                              double           *y,
                              double           *height)
{
  const CpLayoutItem *item;
  double top, area_top;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (index < self->items->len, FALSE);

  item = &g_array_index (self->items, CpLayoutItem, index);
  if (item->pinned)
    {
      area_top = self->metrics.ruler_height;
      top = area_top + item->y;
    }
  else
    {
      area_top = self->metrics.ruler_height + self->pinned_height;
      top = area_top + item->y - offset;
    }
  if (y)
    *y = top;
  if (height)
    *height = item->height;
  return top + item->height > area_top && top < view_height;
}

double
cp_timeline_layout_row_y (CpTimelineLayout *self,
                          guint             index,
                          guint             row,
                          double            offset)
{
  double y = 0;

  g_return_val_if_fail (self != NULL, 0);

  cp_timeline_layout_item_rect (self, index, offset, G_MAXDOUBLE, &y, NULL);
  return y + self->metrics.lane_padding + row * self->metrics.row_height;
}

const char *
cp_timeline_layout_get_label (CpTimelineLayout *self,
                              guint             index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->labels->len, NULL);
  return g_ptr_array_index (self->labels, index);
}

/* The item whose [y, y + height) holds y, among items [first, last) that are
 * sorted by y; -1 when none. */
static gint
find_item_at (CpTimelineLayout *self,
              guint             first,
              guint             last,
              double            y)
{
  guint lo = first, hi = last;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const CpLayoutItem *it = &g_array_index (self->items, CpLayoutItem, mid);

      if (it->y + it->height <= y)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < last)
    {
      const CpLayoutItem *it = &g_array_index (self->items, CpLayoutItem, lo);

      if (y >= it->y)
        return (gint) lo;
    }
  return -1;
}

static CpSliceRef
pick_slice (CpTimelineLayout *self,
            guint             lane,
            guint             row,
            double            t,
            double            tol_ns)
{
  const CpLodRow *r = cp_lod_get_row (self->lod, lane, row);
  const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (self->trace, lane));
  gint64 ti = (gint64) floor (t);
  guint j;
  double best = G_MAXDOUBLE;
  gint best_pos = -1;

  if (r == NULL || r->n == 0)
    return CP_SLICE_REF_NONE;

  j = cp_lod_row_first_ending_after (self->lod, lane, row, ti);
  /* The slice under the point, when there is one. */
  if (j < r->n && (double) cp_slices_get_start (s, r->idx[j]) <= t)
    {
      guint32 i = r->idx[j];

      if (t < (double) (cp_slices_get_end (s, i)) || cp_slices_get_dur (s, i) == 0 ||
          t - (double) (cp_slices_get_end (s, i)) <= tol_ns)
        return (CpSliceRef) { lane, i };
    }
  /* Otherwise the nearest within the tolerance, on either side. */
  if (j > 0)
    {
      guint32 i = r->idx[j - 1];
      double d = t - (double) (cp_slices_get_end (s, i));

      if (d >= 0 && d <= tol_ns && d < best)
        {
          best = d;
          best_pos = (gint) (j - 1);
        }
    }
  if (j < r->n)
    {
      guint32 i = r->idx[j];
      double d = (double) cp_slices_get_start (s, i) - t;

      if (d >= 0 && d <= tol_ns && d < best)
        {
          best = d;
          best_pos = (gint) j;
        }
    }
  if (best_pos < 0)
    return CP_SLICE_REF_NONE;
  return (CpSliceRef) { lane, r->idx[best_pos] };
}

CpHit
cp_timeline_layout_hit_test (CpTimelineLayout *self,
                             CpViewState      *view,
                             double            x,
                             double            y,
                             double            view_height,
                             double            tolerance)
{
  const CpLayoutMetrics *m;
  CpHit hit = { CP_HIT_NONE, -1, 0, 0, -1, CP_SLICE_REF_NONE, 0 };
  gint index;
  const CpLayoutItem *item;
  double top, local;
  gboolean in_gutter;

  g_return_val_if_fail (self != NULL, hit);
  g_return_val_if_fail (CP_IS_VIEW_STATE (view), hit);

  m = &self->metrics;
  in_gutter = x < m->gutter_width;
  hit.time = cp_view_state_x_to_time (view, x - m->gutter_width);

  if (y < 0 || y >= view_height || x < 0)
    return hit;
  if (y < m->ruler_height)
    {
      hit.kind = CP_HIT_RULER;
      return hit;
    }
  if (self->trace == NULL)
    return hit;

  if (y < m->ruler_height + self->pinned_height)
    {
      local = y - m->ruler_height;
      index = find_item_at (self, 0, self->n_pinned, local);
    }
  else
    {
      local = y - m->ruler_height - self->pinned_height + cp_view_state_get_vertical_offset (view);
      index = find_item_at (self, self->n_pinned, self->items->len, local);
    }
  if (index < 0)
    return hit;

  item = &g_array_index (self->items, CpLayoutItem, index);
  hit.item = index;
  hit.process = item->process;
  top = item->y;
  if (item->kind == CP_LAYOUT_GROUP)
    {
      hit.kind = CP_HIT_GROUP;
      return hit;
    }

  /* A memory track has no lane or slices to pick. */
  if (item->kind == CP_LAYOUT_MEMORY)
    return hit;
  hit.lane = item->lane;
  if (in_gutter)
    {
      hit.kind = CP_HIT_LANE_LABEL;
      return hit;
    }
  hit.kind = CP_HIT_LANE;
  {
    double ry = local - top - m->lane_padding;
    gint row = (gint) floor (ry / m->row_height);
    double ns_per_px = (double) (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view)) /
                       cp_view_state_get_viewport_width (view);

    if (ry < 0 || row < 0 || (guint) row >= item->n_rows ||
        cp_lane_get_kind (cp_trace_get_lane (self->trace, item->lane)) == CP_LANE_COUNTER)
      return hit;
    hit.row = row;
    hit.slice = pick_slice (self, item->lane, row, hit.time, MAX (tolerance, 0) * ns_per_px);
    if (!cp_slice_ref_is_none (hit.slice))
      hit.kind = CP_HIT_SLICE;
  }
  return hit;
}
