/* cp-lane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-lane-private.h"

struct _CpLane
{
  GObject         parent_instance;

  CpLaneKind      kind;
  CpTransferKind  transfer_kind;
  char           *name;
  guint           index;
  guint           process;
  gint            device;
  gint64          stream;
  gint64          tid;
  gint64          sort_key;
  guint           n_rows;

  CpSlices        slices;

  /* rows[r] lists the slices on row r, by start. */
  guint32        *row_data;
  guint32        *row_offsets;   /* n_rows + 1 */

  gint64         *counter_ts;
  double         *counter_values;
  guint           n_counter;
};

G_DEFINE_FINAL_TYPE (CpLane, cp_lane, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_KIND,
  PROP_NAME,
  PROP_N_SLICES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cp_lane_finalize (GObject *object)
{
  CpLane *self = (CpLane *) object;

  g_free (self->name);
  g_free ((gpointer) self->slices.start);
  g_free ((gpointer) self->slices.dur);
  g_free ((gpointer) self->slices.name);
  g_free ((gpointer) self->slices.cat);
  g_free ((gpointer) self->slices.row);
  g_free ((gpointer) self->slices.flags);
  g_free ((gpointer) self->slices.corr);
  g_free ((gpointer) self->slices.ext);
  g_free ((gpointer) self->slices.gpu);
  g_free ((gpointer) self->slices.args);
  g_free ((gpointer) self->slices.end_max);
  g_free (self->row_data);
  g_free (self->row_offsets);
  g_free (self->counter_ts);
  g_free (self->counter_values);

  G_OBJECT_CLASS (cp_lane_parent_class)->finalize (object);
}

static void
cp_lane_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  CpLane *self = CP_LANE (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_int (value, self->kind);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_N_SLICES:
      g_value_set_uint (value, self->slices.n);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_lane_class_init (CpLaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cp_lane_finalize;
  object_class->get_property = cp_lane_get_property;

  properties[PROP_KIND] =
    g_param_spec_int ("kind", NULL, NULL, 0, CP_LANE_N_KINDS - 1, 0,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_SLICES] =
    g_param_spec_uint ("n-slices", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cp_lane_init (CpLane *self)
{
}

static void
build_rows (CpLane *self)
{
  const CpSlices *s = &self->slices;
  guint n_rows = 0;
  guint32 *fill;

  for (guint i = 0; i < s->n; i++)
    n_rows = MAX (n_rows, (guint) s->row[i] + 1);
  self->n_rows = n_rows;

  self->row_offsets = g_new0 (guint32, n_rows + 1);
  for (guint i = 0; i < s->n; i++)
    self->row_offsets[s->row[i] + 1]++;
  for (guint r = 0; r < n_rows; r++)
    self->row_offsets[r + 1] += self->row_offsets[r];

  self->row_data = g_new (guint32, MAX (s->n, 1));
  fill = g_memdup2 (self->row_offsets, sizeof (guint32) * (n_rows + 1));
  for (guint i = 0; i < s->n; i++)
    self->row_data[fill[s->row[i]]++] = i;
  g_free (fill);
}

CpLane *
_cp_lane_new (CpLaneKind      kind,
              CpTransferKind  transfer_kind,
              const char     *name,
              guint           index,
              guint           process,
              gint            device,
              gint64          stream,
              gint64          tid,
              gint64          sort_key,
              CpSlices       *columns,
              gint64         *counter_ts,
              double         *counter_values,
              guint           n_counter)
{
  CpLane *self = g_object_new (CP_TYPE_LANE, NULL);

  self->kind = kind;
  self->transfer_kind = transfer_kind;
  self->name = g_strdup (name);
  self->index = index;
  self->process = process;
  self->device = device;
  self->stream = stream;
  self->tid = tid;
  self->sort_key = sort_key;
  self->slices = *columns;
  self->counter_ts = counter_ts;
  self->counter_values = counter_values;
  self->n_counter = n_counter;
  build_rows (self);

  return self;
}

gsize
_cp_lane_get_memory_size (CpLane *self)
{
  gsize per_slice = sizeof (gint64) * 5 + sizeof (CpStr) * 2 + sizeof (guint16) * 2 +
                    sizeof (guint32) * 3;

  return sizeof *self + (gsize) self->slices.n * per_slice +
         (self->n_rows + 1) * sizeof (guint32) +
         self->n_counter * (sizeof (gint64) + sizeof (double));
}

const guint32 *
_cp_lane_get_row (CpLane *self,
                  guint   row,
                  guint  *n)
{
  if (row >= self->n_rows)
    {
      *n = 0;
      return NULL;
    }
  *n = self->row_offsets[row + 1] - self->row_offsets[row];
  return self->row_data + self->row_offsets[row];
}

CpLaneKind
cp_lane_get_kind (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->kind;
}

CpTransferKind
cp_lane_get_transfer_kind (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->transfer_kind;
}

const char *
cp_lane_get_name (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), NULL);
  return self->name;
}

guint
cp_lane_get_index (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->index;
}

guint
cp_lane_get_process (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->process;
}

gint
cp_lane_get_device (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), -1);
  return self->device;
}

gint64
cp_lane_get_stream (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), -1);
  return self->stream;
}

gint64
cp_lane_get_tid (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), -1);
  return self->tid;
}

gint64
cp_lane_get_sort_key (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->sort_key;
}

guint
cp_lane_get_n_slices (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->slices.n;
}

guint
cp_lane_get_n_rows (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  return self->n_rows;
}

const CpSlices *
cp_lane_get_slices (CpLane *self)
{
  g_return_val_if_fail (CP_IS_LANE (self), NULL);
  return &self->slices;
}

const guint32 *
cp_lane_get_row_slices (CpLane *self,
                        guint   row,
                        guint  *n)
{
  g_return_val_if_fail (CP_IS_LANE (self), NULL);
  g_return_val_if_fail (n != NULL, NULL);

  return _cp_lane_get_row (self, row, n);
}

guint
cp_lane_first_ending_after (CpLane *self,
                            gint64  t)
{
  const gint64 *end_max = self->slices.end_max;
  guint lo = 0, hi = self->slices.n;

  /* end_max is non-decreasing: find the first i with end_max[i] >= t. A slice
   * ending exactly at t is kept, so zero-length slices at t are found. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (end_max[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint
cp_lane_first_starting_after (CpLane *self,
                              gint64  t)
{
  const gint64 *start = self->slices.start;
  guint lo = 0, hi = self->slices.n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (start[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static gint
row_slice_at (CpLane *self,
              guint   row,
              gint64  t)
{
  const CpSlices *s = &self->slices;
  const guint32 *idx;
  guint n, lo = 0, hi;
  guint32 i;

  idx = _cp_lane_get_row (self, row, &n);
  hi = n;
  /* Last slice in the row starting at or before t. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (s->start[idx[mid]] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  i = idx[lo - 1];
  if (t < s->start[i] + s->dur[i] || (s->dur[i] == 0 && t == s->start[i]))
    return i;
  return -1;
}

gint
cp_lane_slice_at (CpLane *self,
                  gint64  t,
                  gint    row)
{
  g_return_val_if_fail (CP_IS_LANE (self), -1);

  if (row >= 0)
    return row_slice_at (self, row, t);

  for (gint r = (gint) self->n_rows - 1; r >= 0; r--)
    {
      gint i = row_slice_at (self, r, t);

      if (i >= 0)
        return i;
    }
  return -1;
}

guint
cp_lane_get_counter (CpLane         *self,
                     const gint64  **ts,
                     const double  **values)
{
  g_return_val_if_fail (CP_IS_LANE (self), 0);
  if (ts)
    *ts = self->counter_ts;
  if (values)
    *values = self->counter_values;
  return self->n_counter;
}

gint64
cp_lane_busy_time (CpLane *self,
                   gint64  t0,
                   gint64  t1)
{
  const CpSlices *s;
  gint64 busy = 0, cur_start = 0, cur_end = G_MININT64;
  guint first, last;

  g_return_val_if_fail (CP_IS_LANE (self), 0);
  if (t1 <= t0)
    return 0;

  s = &self->slices;
  first = cp_lane_first_ending_after (self, t0);
  last = cp_lane_first_starting_after (self, t1);
  for (guint i = first; i < last; i++)
    {
      gint64 a = MAX (s->start[i], t0);
      gint64 b = MIN (s->start[i] + s->dur[i], t1);

      if (b <= a)
        continue;
      if (a > cur_end)
        {
          if (cur_end > cur_start)
            busy += cur_end - cur_start;
          cur_start = a;
          cur_end = b;
        }
      else if (b > cur_end)
        cur_end = b;
    }
  if (cur_end > cur_start)
    busy += cur_end - cur_start;
  return busy;
}

const char *
cp_lane_kind_to_string (CpLaneKind kind)
{
  switch (kind)
    {
    case CP_LANE_HOST_THREAD: return "host-thread";
    case CP_LANE_KERNEL: return "kernel";
    case CP_LANE_TRANSFER: return "transfer";
    case CP_LANE_DEVICE_ANNOTATION: return "device-annotation";
    case CP_LANE_ASYNC: return "async";
    case CP_LANE_COUNTER: return "counter";
    case CP_LANE_N_KINDS:
    default:
      return "unknown";
    }
}

const char *
cp_transfer_kind_to_string (CpTransferKind kind)
{
  switch (kind)
    {
    case CP_TRANSFER_NONE: return "none";
    case CP_TRANSFER_HTOD: return "HtoD";
    case CP_TRANSFER_DTOH: return "DtoH";
    case CP_TRANSFER_DTOD: return "DtoD";
    case CP_TRANSFER_PTOP: return "PtoP";
    case CP_TRANSFER_MEMSET: return "Memset";
    case CP_TRANSFER_OTHER: return "Other";
    case CP_TRANSFER_N_KINDS:
    default:
      return "unknown";
    }
}
