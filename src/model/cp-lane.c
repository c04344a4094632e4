/* cp-lane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-lane-private.h"
#include "cp-huge-pages.h"

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

  /* block_end[b]: the latest end (start + dur) of slices 0 .. 64 b + 63. */
  gint64         *block_end;

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

#define N_WORDS(n) (((gsize) (n) + 63) / 64)

static void
sparse_column_free (CpSparseColumn *column)
{
  g_free ((gpointer) column->present);
  g_free ((gpointer) column->rank);
  g_free ((gpointer) column->v32);
  g_free ((gpointer) column->v64);
  memset (column, 0, sizeof *column);
}

void
_cp_sparse_column_clear (CpSparseColumn *column)
{
  sparse_column_free (column);
}

static gsize
sparse_column_memory (const CpSparseColumn *column,
                      guint                 n)
{
  gsize n_values = 0;
  gsize width = column->v32 != NULL ? sizeof (guint32) : sizeof (gint64);

  if (column->present == NULL)
    return column->v32 != NULL || column->v64 != NULL ? n * width : 0;
  for (gsize w = 0; w < N_WORDS (n); w++)
    n_values += (gsize) __builtin_popcountll (column->present[w]);
  return N_WORDS (n) * (sizeof (guint64) + sizeof (guint32)) + n_values * width;
}

static inline gboolean
fits_32 (gint64 v)
{
  return v >= 0 && v <= G_MAXUINT32;
}

static inline gint64
builder_value (const CpSparseBuilder *builder,
               guint                  k)
{
  return builder->v64 != NULL ? builder->v64[k] : (gint64) builder->v32[k];
}

void
_cp_sparse_builder_set (CpSparseBuilder *builder,
                        guint            i,
                        gint64           value)
{
  gsize word = i / 64;

  if (word >= builder->n_words)
    {
      gsize n_words = MAX (word + 1, (gsize) builder->n_words + builder->n_words / 2 + 16);

      builder->present = g_renew (guint64, builder->present, n_words);
      memset (builder->present + builder->n_words, 0,
              sizeof (guint64) * (n_words - builder->n_words));
      builder->n_words = n_words;
    }
  if (builder->v64 == NULL && !fits_32 (value))
    {
      /* The first value that needs 64 bits: widen what is there. */
      gint64 *v64 = g_new (gint64, MAX (builder->cap_values, 1));

      for (guint k = 0; k < builder->n_values; k++)
        v64[k] = builder->v32[k];
      g_clear_pointer (&builder->v32, g_free);
      builder->v64 = v64;
      builder->cap_values = MAX (builder->cap_values, 1);
    }
  if (builder->n_values == builder->cap_values)
    {
      guint cap = builder->cap_values + builder->cap_values / 2 + 16;

      if (cap < builder->cap_values)
        g_error ("too many values in one column");
      if (builder->v64 != NULL)
        builder->v64 = g_renew (gint64, builder->v64, cap);
      else
        builder->v32 = g_renew (guint32, builder->v32, cap);
      builder->cap_values = cap;
      cp_huge_pages_advise (builder->v64 != NULL ? (gconstpointer) builder->v64 : builder->v32);
    }
  builder->present[word] |= G_GUINT64_CONSTANT (1) << (i % 64);
  if (builder->v64 != NULL)
    builder->v64[builder->n_values++] = value;
  else
    builder->v32[builder->n_values++] = (guint32) value;
}

/* Ranks of the words of present: the number of values before each. */
static guint32 *
sparse_ranks (const guint64 *present,
              gsize          n_words)
{
  guint32 *rank = g_new (guint32, MAX (n_words, 1));
  guint32 sum = 0;

  for (gsize w = 0; w < n_words; w++)
    {
      rank[w] = sum;
      sum += (guint32) __builtin_popcountll (present[w]);
    }
  return rank;
}

/* The gather of _cp_sparse_builder_permute(): the values of the slices
 * perm names that have one, in perm's order, into v32 or v64, and their
 * presence bits. Inlined twice: once as x86-64's baseline compiles it (a
 * popcount is a call into libgcc), once for processors with POPCNT. */
static inline guint
sparse_gather (const CpSparseBuilder *builder,
               const guint32         *rank,
               const guint32         *perm,
               guint                  n,
               guint64               *present,
               guint32               *v32,
               gint64                *v64)
{
  guint m = 0;

  for (guint k = 0; k < n; k++)
    {
      guint32 o = perm[k];
      guint64 word, bit;
      guint32 r;

      if (o / 64 >= builder->n_words)
        continue;
      word = builder->present[o / 64];
      bit = G_GUINT64_CONSTANT (1) << (o % 64);
      if ((word & bit) == 0)
        continue;
      r = rank[o / 64] + (guint32) __builtin_popcountll (word & (bit - 1));
      if (v64 != NULL)
        v64[m++] = builder->v64[r];
      else
        v32[m++] = builder->v32[r];
      present[k / 64] |= G_GUINT64_CONSTANT (1) << (k % 64);
    }
  return m;
}

/* Tests run the plain clone too. */
static gint no_popcnt;

void
_cp_sparse_set_popcnt (gboolean use)
{
  g_atomic_int_set (&no_popcnt, !use);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CP_HAVE_POPCNT_CLONE 1
__attribute__((target ("popcnt"))) static guint
sparse_gather_popcnt (const CpSparseBuilder *builder,
                      const guint32         *rank,
                      const guint32         *perm,
                      guint                  n,
                      guint64               *present,
                      guint32               *v32,
                      gint64                *v64)
{
  return sparse_gather (builder, rank, perm, n, present, v32, v64);
}
#endif

void
_cp_sparse_builder_permute (CpSparseBuilder *builder,
                            const guint32   *perm,
                            guint            n,
                            gpointer         scratch)
{
  g_autofree guint32 *rank = NULL;
  guint64 *present;
  guint32 *v32 = builder->v64 == NULL ? scratch : NULL;
  gint64 *v64 = builder->v64 != NULL ? scratch : NULL;
  guint m;

  if (builder->n_values == 0)
    return;

  rank = sparse_ranks (builder->present, builder->n_words);
  present = g_new0 (guint64, MAX (N_WORDS (n), 1));
#ifdef CP_HAVE_POPCNT_CLONE
  if (!g_atomic_int_get (&no_popcnt) && __builtin_cpu_supports ("popcnt"))
    m = sparse_gather_popcnt (builder, rank, perm, n, present, v32, v64);
  else
#endif
    m = sparse_gather (builder, rank, perm, n, present, v32, v64);
  /* Back into the builder's own (warm) arrays: fresh ones would cost more
   * than the copy. */
  if (v64 != NULL)
    memcpy (builder->v64, v64, sizeof (gint64) * m);
  else
    memcpy (builder->v32, v32, sizeof (guint32) * m);
  g_free (builder->present);
  builder->present = present;
  builder->n_words = MAX (N_WORDS (n), 1);
}

void
_cp_sparse_builder_finish (CpSparseBuilder *builder,
                           guint            n,
                           gint64           absent,
                           CpSparseColumn  *column)
{
  gsize n_words = N_WORDS (n);

  memset (column, 0, sizeof *column);
  if (builder->n_values == 0 || n == 0)
    {
      _cp_sparse_builder_clear (builder);
      return;
    }

  if (builder->n_words != n_words)
    {
      builder->present = g_renew (guint64, builder->present, n_words);
      if (builder->n_words < n_words)
        memset (builder->present + builder->n_words, 0,
                sizeof (guint64) * (n_words - builder->n_words));
      builder->n_words = n_words;
    }

  if (builder->n_values >= n - n / 16)
    {
      /* Nearly every slice has a value: one per slice is smaller. */
      gboolean narrow = builder->v64 == NULL && fits_32 (absent);
      guint32 *v32 = narrow ? cp_huge_new (guint32, n) : NULL;
      gint64 *v64 = narrow ? NULL : cp_huge_new (gint64, n);
      guint k = 0;

      for (guint i = 0; i < n; i++)
        {
          gboolean has = (builder->present[i / 64] >> (i % 64)) & 1;
          gint64 v = has ? builder_value (builder, k++) : absent;

          if (narrow)
            v32[i] = (guint32) v;
          else
            v64[i] = v;
        }
      column->v32 = v32;
      column->v64 = v64;
      _cp_sparse_builder_clear (builder);
      return;
    }

  column->present = builder->present;
  column->rank = sparse_ranks (builder->present, n_words);
  if (builder->v64 != NULL)
    column->v64 = g_renew (gint64, builder->v64, builder->n_values);
  else
    column->v32 = g_renew (guint32, builder->v32, builder->n_values);

  builder->present = NULL;
  builder->v32 = NULL;
  builder->v64 = NULL;
  _cp_sparse_builder_clear (builder);
}

void
_cp_sparse_builder_clear (CpSparseBuilder *builder)
{
  g_free (builder->present);
  g_free (builder->v32);
  g_free (builder->v64);
  memset (builder, 0, sizeof *builder);
}

static void
cp_lane_finalize (GObject *object)
{
  CpLane *self = (CpLane *) object;

  g_free (self->name);
  g_free ((gpointer) self->slices.start32);
  g_free ((gpointer) self->slices.start_base);
  g_free ((gpointer) self->slices.far_index);
  g_free ((gpointer) self->slices.far_start);
  g_free ((gpointer) self->slices.dur32);
  g_free ((gpointer) self->slices.long_index);
  g_free ((gpointer) self->slices.long_dur);
  g_free ((gpointer) self->slices.name16);
  g_free ((gpointer) self->slices.name_table);
  g_free ((gpointer) self->slices.name32);
  g_free ((gpointer) self->slices.cat8);
  g_free ((gpointer) self->slices.cat_table);
  g_free ((gpointer) self->slices.cat32);
  g_free ((gpointer) self->slices.row);
  g_free ((gpointer) self->slices.flags);
  sparse_column_free (&self->slices.corr);
  sparse_column_free (&self->slices.ext);
  sparse_column_free (&self->slices.gpu);
  sparse_column_free (&self->slices.args);
  g_free (self->block_end);
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

  self->row_data = cp_huge_new (guint32, MAX (s->n, 1));
  fill = g_memdup2 (self->row_offsets, sizeof (guint32) * (n_rows + 1));
  for (guint i = 0; i < s->n; i++)
    self->row_data[fill[s->row[i]]++] = i;
  g_free (fill);
}

/* The 32-bit starts, written over the 64-bit ones (offset i * 4 is never
 * past start i * 8, so each start is read before its bytes are reused). */
static void
pack_starts (CpSlices *s,
             gint64   *start)
{
  gint64 *base = g_new (gint64, MAX (N_WORDS (s->n), 1));
  guint32 *start32 = (guint32 *) start;
  GArray *far_index = NULL, *far_start = NULL;

  for (guint i = 0; i < s->n; i++)
    {
      gint64 t = start[i];
      guint64 offset;

      if (i % 64 == 0)
        base[i / 64] = t;
      offset = (guint64) t - (guint64) base[i / 64];
      if (G_UNLIKELY (t < base[i / 64] || offset >= G_MAXUINT32))
        {
          if (far_index == NULL)
            {
              far_index = g_array_new (FALSE, FALSE, sizeof (guint32));
              far_start = g_array_new (FALSE, FALSE, sizeof (gint64));
            }
          g_array_append_val (far_index, i);
          g_array_append_val (far_start, t);
          start32[i] = G_MAXUINT32;
        }
      else
        start32[i] = (guint32) offset;
    }
  s->start32 = g_realloc (start, sizeof (guint32) * MAX (s->n, 1));
  s->start_base = base;
  if (far_index != NULL)
    {
      s->n_far = far_index->len;
      s->far_index = (const guint32 *) g_array_free (far_index, FALSE);
      s->far_start = (const gint64 *) g_array_free (far_start, FALSE);
    }
}

static void
build_block_ends (CpLane *self)
{
  const CpSlices *s = &self->slices;
  gint64 running = G_MININT64;

  self->block_end = g_new (gint64, MAX (N_WORDS (s->n), 1));
  for (guint i = 0; i < s->n; i++)
    {
      gint64 e = cp_slices_get_end (s, i);

      if (e > running)
        running = e;
      if (i % 64 == 63 || i + 1 == s->n)
        self->block_end[i / 64] = running;
    }
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
              gint64         *start,
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
  pack_starts (&self->slices, start);
  self->counter_ts = counter_ts;
  self->counter_values = counter_values;
  self->n_counter = n_counter;
  build_rows (self);
  build_block_ends (self);

  return self;
}

gsize
_cp_lane_get_memory_size (CpLane *self)
{
  gsize per_slice = sizeof (guint32) + sizeof (guint32) +
                    (self->slices.name_table != NULL ? sizeof (guint16) : sizeof (CpStr)) +
                    (self->slices.cat_table != NULL ? sizeof (guint8) : sizeof (CpStr)) +
                    sizeof (guint16) * 2 + sizeof (guint32);

  return sizeof *self + (gsize) self->slices.n * per_slice +
         N_WORDS (self->slices.n) * sizeof (gint64) +
         self->slices.n_far * (sizeof (guint32) + sizeof (gint64)) +
         sparse_column_memory (&self->slices.corr, self->slices.n) +
         sparse_column_memory (&self->slices.ext, self->slices.n) +
         sparse_column_memory (&self->slices.gpu, self->slices.n) +
         sparse_column_memory (&self->slices.args, self->slices.n) +
         N_WORDS (self->slices.n) * sizeof (gint64) +
         self->slices.n_long * (sizeof (guint32) + sizeof (gint64)) +
         (self->n_rows + 1) * sizeof (guint32) +
         self->n_counter * (sizeof (gint64) + sizeof (double));
}

/* The position of slice i in a sorted side table of slice indexes, or -1. */
static gint
side_table_find (const guint32 *index,
                 guint          n,
                 guint          i)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (index[mid] < i)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < n && index[lo] == i ? (gint) lo : -1;
}

gint64
cp_slices_get_far_start (const CpSlices *slices,
                         guint           i)
{
  gint k;

  g_return_val_if_fail (slices != NULL, 0);

  k = side_table_find (slices->far_index, slices->n_far, i);
  return k >= 0 ? slices->far_start[k] : slices->start_base[i / 64] + (gint64) slices->start32[i];
}

gint64
cp_slices_get_long_dur (const CpSlices *slices,
                        guint           i)
{
  gint k;

  g_return_val_if_fail (slices != NULL, 0);

  k = side_table_find (slices->long_index, slices->n_long, i);
  return k >= 0 ? slices->long_dur[k] : slices->dur32[i];
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
  const CpSlices *s = &self->slices;
  guint lo = 0, hi = N_WORDS (s->n);
  gint64 running;

  /* The running maximum of the ends is non-decreasing: find the first block
   * whose maximum reaches t, then the first slice in it that does. A slice
   * ending exactly at t is kept, so zero-length slices at t are found. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->block_end[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo >= N_WORDS (s->n))
    return s->n;
  running = lo > 0 ? self->block_end[lo - 1] : G_MININT64;
  for (guint i = lo * 64; i < s->n; i++)
    {
      gint64 e = cp_slices_get_end (s, i);

      if (e > running)
        running = e;
      if (running >= t)
        return i;
    }
  return s->n;
}

guint
cp_lane_first_starting_after (CpLane *self,
                              gint64  t)
{
  const CpSlices *s = &self->slices;
  guint lo = 0, hi = self->slices.n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (cp_slices_get_start (s, mid) <= t)
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

      if (cp_slices_get_start (s, idx[mid]) <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  i = idx[lo - 1];
  if (t < cp_slices_get_end (s, i) || (cp_slices_get_dur (s, i) == 0 && t == cp_slices_get_start (s, i)))
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
      gint64 a = MAX (cp_slices_get_start (s, i), t0);
      gint64 b = MIN (cp_slices_get_end (s, i), t1);

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
