/* cp-painter-lanes.c: the lanes layer: slices, coverage, counters, group summaries
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cp-lod.h"
#include "cp-painter.h"
#include "cp-time-format.h"
#include "cp-painter-private.h"

static void
batch_add (CpPainter *self,
           guint32    rgba,
           double     x,
           double     y,
           double     w,
           double     h)
{
  gpointer idx = g_hash_table_lookup (self->batch_index, GUINT_TO_POINTER (rgba));
  Batch *b;
  Rect r = { (float) x, (float) y, (float) w, (float) h };

  if (idx == NULL)
    {
      Batch nb = { rgba, g_array_new (FALSE, FALSE, sizeof (Rect)) };

      g_array_append_val (self->batches, nb);
      idx = GUINT_TO_POINTER (self->batches->len);
      g_hash_table_insert (self->batch_index, GUINT_TO_POINTER (rgba), idx);
    }
  b = &g_array_index (self->batches, Batch, GPOINTER_TO_UINT (idx) - 1);
  g_array_append_val (b->rects, r);
}

static guint8
name_color_index (CpPainter *self,
                  CpStr      name)
{
  guint8 known;

  if (name >= self->n_name_color)
    return (guint8) cp_palette_name_index (cp_trace_get_string (self->trace, name));
  /* Rows are walked on several threads: each may fill in the same entry,
   * with the same value. */
  known = __atomic_load_n (&self->name_color[name], __ATOMIC_RELAXED);
  if (known == 0)
    {
      known = 1 + (guint8) cp_palette_name_index (cp_trace_get_string (self->trace, name));
      __atomic_store_n (&self->name_color[name], known, __ATOMIC_RELAXED);
    }
  return known - 1;
}

static guint32
slice_color (CpPainter *self,
             CpLane    *lane,
             CpStr      name)
{
  if (cp_lane_get_kind (lane) == CP_LANE_TRANSFER &&
      cp_lane_get_transfer_kind (lane) != CP_TRANSFER_NONE)
    return cp_palette_transfer_color (self->theme, cp_lane_get_transfer_kind (lane));
  return cp_palette_indexed_color (self->theme, name_color_index (self, name));
}

static guint32
density_color (CpPainter *self,
               CpLane    *lane)
{
  CpLaneKind kind = cp_lane_get_kind (lane);

  if (kind == CP_LANE_TRANSFER && cp_lane_get_transfer_kind (lane) != CP_TRANSFER_NONE)
    return cp_palette_transfer_color (self->theme, cp_lane_get_transfer_kind (lane));
  return self->colors->density[MIN (kind, CP_LANE_N_KINDS - 1)];
}

/* An image of at least w x h to composite from, referenced: *keep, kept
 * between uses, on an image target, which composites at once; a new one
 * elsewhere, as recording, PDF and SVG targets keep the surface. */
static cairo_surface_t *
scratch_surface (CpPainter        *self,
                 cairo_surface_t **keep,
                 int               w,
                 int               h)
{
  if (cairo_surface_get_type (cairo_get_target (self->cr)) != CAIRO_SURFACE_TYPE_IMAGE)
    return cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  if (*keep == NULL || cairo_image_surface_get_width (*keep) < w || cairo_image_surface_get_height (*keep) < h)
    {
      g_clear_pointer (keep, cairo_surface_destroy);
      *keep = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAX (w, self->ncols), MAX (h, 64));
    }
  return cairo_surface_reference (*keep);
}

/* Coverage goes into a one-pixel-high strip per row, composited once and
 * stretched to the row's height: one composite per row however many columns
 * are dense. */
static void
dense_flush (CpPainter *self,
             DenseRun  *run)
{
  cairo_t *cr = self->cr;
  cairo_surface_t *strip;
  guchar *data;
  double y0 = floor (run->y + 0.5);
  int h = (int) floor (run->y + run->h + 0.5) - (int) y0;
  int w = run->end - run->start;

  self->stats.columns += run->columns;
  run->columns = 0;
  if (w <= 0 || h <= 0)
    {
      if (w > 0)
        memset (run->strip + run->start, 0, sizeof (guint32) * w);
      run->start = run->end = 0;
      return;
    }

  /* The row of pixels, repeated down the row's height, composited with no
   * transform: the fastest path of every cairo backend. */
  strip = scratch_surface (self, &self->strip_surface, w, h);
  cairo_surface_flush (strip);
  data = cairo_image_surface_get_data (strip);
  if (data != NULL)
    {
      int stride = cairo_image_surface_get_stride (strip);

      for (int r = 0; r < h; r++)
        memcpy (data + (gsize) r * stride, run->strip + run->start, sizeof (guint32) * w);
      cairo_surface_mark_dirty (strip);
      cairo_set_source_surface (cr, strip, self->gx + run->start, y0);
      /* Whole pixels, however the target scales. */
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_rectangle (cr, self->gx + run->start, y0, w, h);
      cairo_fill (cr);
      /* Let go of the surface before it is written again. */
      cairo_set_source_rgba (cr, 0, 0, 0, 0);
      self->stats.rects++;
    }
  cairo_surface_destroy (strip);
  memset (run->strip + run->start, 0, sizeof (guint32) * w);
  run->start = run->end = 0;
}

static void
dense_add (DenseRun *run,
           gint      c,
           double    fraction)
{
  double a = MIN_DENSITY + (1.0 - MIN_DENSITY) * CLAMP (fraction, 0, 1);
  guint32 rgb = run->rgb;

  run->columns++;
  /* Premultiplied ARGB, native endian: what cairo's image surfaces hold. */
  run->strip[c] = ((guint32) lround (a * 255) << 24) |
                   ((guint32) lround (((rgb >> 24) & 0xff) * a) << 16) |
                   ((guint32) lround (((rgb >> 16) & 0xff) * a) << 8) |
                   (guint32) lround (((rgb >> 8) & 0xff) * a);
  if (run->end <= run->start)
    {
      run->start = c;
      run->end = c + 1;
    }
  else
    {
      run->start = MIN (run->start, c);
      run->end = MAX (run->end, c + 1);
    }
}

/* How many columns ahead a walk over a zoomed-out row asks for each stage
 * of a coming seek's data (cp_lod_row_ahead()). */
#define AHEAD_FAR   8
#define AHEAD_NEAR  4
#define AHEAD_CLOSE 2
/* The blocks found for the coming columns' seeks, by column. */
#define AHEAD_RING  8

G_STATIC_ASSERT (AHEAD_NEAR < AHEAD_RING);

/* Where a walk of a row's columns is: the column it measured last, the
 * first position not ending before that column's end, the time covered
 * before it, where its asks ahead are, and the blocks they found for the
 * coming columns. */
typedef struct
{
  gboolean   valid;
  gint       col;
  guint      j;
  gint64     covered;
  CpLodAhead ahead;
  gint       hint_col[AHEAD_RING];   /* the column + 1 a hint is for; 0: none */
  guint      hint[AHEAD_RING];
} ColumnWalk;

/* The time a row covers in column c, [cb0, cb1), looking from position k
 * on; *j0 and *j1 are the first positions that do not end before cb0 and
 * cb1. A column that follows the one measured last, from where it ended,
 * starts from what that one found. */
static gint64
column_covered (CpPainter      *self,
                const CpLodRow *r,
                ColumnWalk     *w,
                guint           k,
                gint            c,
                gint64          cb0,
                gint64          cb1,
                guint          *j0,
                guint          *j1)
{
  gint64 cov0, cov1;
  guint slot = (guint) c % AHEAD_RING;
  guint hint = w->hint_col[slot] == c + 1 ? w->hint[slot] : G_MAXUINT;

  if (w->valid && c == w->col + 1 && k == w->j)
    {
      *j0 = k;
      cov0 = w->covered;
    }
  else
    *j0 = cp_lod_row_seek_covered (r, k, cb0, &cov0);
  *j1 = cp_lod_row_seek_covered_hinted (r, *j0, cb1, hint, &cov1);
  /* Columns this far apart in positions: ask for the next ones' data, and
   * keep the block found for the one AHEAD_NEAR on. */
  if (w->valid && c == w->col + 1 && *j1 >= w->j + CP_LOD_BLOCK)
    {
      guint ahead = (guint) (c + AHEAD_NEAR) % AHEAD_RING;

      w->hint[ahead] = cp_lod_row_ahead (r, &w->ahead, col_time (self, c + 1 + AHEAD_FAR),
                                         col_time (self, c + 1 + AHEAD_NEAR),
                                         col_time (self, c + 1 + AHEAD_CLOSE));
      w->hint_col[ahead] = c + AHEAD_NEAR + 1;
    }
  w->valid = TRUE;
  w->col = c;
  w->j = *j1;
  w->covered = cov1;
  return cov1 - cov0;
}

/* Lanes */

/* What a row's walk leaves for its drawing, in order: its slices'
 * rectangles, hatching and labels, and its coverage strip. */
static void
job_rect (RowJob  *job,
          guint32  rgba,
          double   x,
          double   y,
          double   w,
          double   h)
{
  ColorRect cr = { rgba, { (float) x, (float) y, (float) w, (float) h } };

  g_array_append_val (job->rects, cr);
}

/* Walks one row of a lane over the view: slices a pixel wide or more one by
 * one, the rest as each column's coverage. Reads the index and the view
 * only, so rows are walked on several threads at once. */
static void
walk_row (CpPainter *self,
          RowJob    *job)
{
  guint lane_index = job->lane_index;
  CpLane *lane = job->lane;
  double y = job->y, h = job->h;
  const CpLodRow *r = cp_lod_get_row (self->lod, lane_index, job->row);
  const CpSlices *s = cp_lane_get_slices (lane);
  DenseRun *run = &job->run;
  gint next_col = 0;
  guint k;
  double label_min = self->font_px * 2.5;
  gboolean transfer = cp_lane_get_kind (lane) == CP_LANE_TRANSFER;
  ColumnWalk walk = { 0 };

  if (r == NULL || r->n == 0)
    return;

  k = cp_lod_row_first_ending_after (self->lod, lane_index, job->row, self->t0);
  while (k < r->n)
    {
      gint64 st = cp_lod_row_start (r, k);
      gint64 en = st + cp_lod_row_dur (r, k);
      double x0, x1;
      gint c;
      gint64 cb0, cb1, cov;
      guint j0, j1;

      if (st >= self->t1)
        break;
      x0 = (double) (st - self->t0) * self->px_per_ns;
      x1 = (double) (en - self->t0) * self->px_per_ns;

      if (x1 - x0 >= 1.0)
        {
          /* Wide enough to draw on its own. */
          guint32 i = cp_lod_row_slice (r, k);
          double a = floor (x0 + 0.5), b = floor (x1 + 0.5);
          guint32 fill = slice_color (self, lane, cp_slices_get_name (s, i));

          a = MAX (a, -2);
          b = MIN (b, self->area_w + 2);
          if (b - a < 1)
            b = a + 1;
          /* A one-pixel gap tells neighbours apart. */
          if (b - a >= 4)
            b -= 1;
          job_rect (job, fill, self->gx + a, y, b - a, h);
          if (transfer && (s->flags[i] & CP_SLICE_PAGEABLE) && b - a >= 3)
            {
              Rect hr = { (float) (self->gx + a), (float) y, (float) (b - a), (float) h };

              g_array_append_val (job->hatch, hr);
            }
          {
            double va = MAX (a, 0), vb = MIN (b, self->area_w);

            if (vb - va >= label_min)
              {
                TextJob t = { (float) (self->gx + va + 3), (float) y, (float) (vb - va - 5), (float) h,
                              cp_trace_get_string (self->trace, cp_slices_get_name (s, i)),
                              cp_palette_text_on (fill) };

                g_array_append_val (job->texts, t);
              }
          }
          job->slices++;
          k++;
          continue;
        }

      /* Narrower than a pixel: draw the coverage of its column, then jump
       * to the first slice that reaches past that column. */
      c = (gint) floor (x0);
      c = MAX (c, next_col);
      c = MAX (c, 0);
      if (c >= self->ncols)
        break;
      cb0 = col_time (self, c);
      cb1 = col_time (self, c + 1);
      cov = column_covered (self, r, &walk, k, c, cb0, cb1, &j0, &j1);
      if (j0 < r->n && cp_lod_row_start (r, j0) < MAX (cb1, cb0 + 1))
        dense_add (run, c, cb1 > cb0 ? (double) cov / (double) (cb1 - cb0) : 1.0);
      next_col = c + 1;
      k = MAX (j1, j0);
    }
}

/* A counter's step chart from the tops of its columns' bars
 * (tops; under 0: no bar), as pixel-aligned rectangles merged
 * where neighbours agree: the fill under the line, the line on top, and a
 * step between two columns of different tops. What a vector target (PDF,
 * SVG) gets, and the reference the image below is drawn to match. */
static void
counter_rects (CpPainter   *self,
               const float *tops,
               double       bottom)
{
  gint run_start = -1;
  double run_top = 0, prev_top = -1;

  for (gint c = 0; c <= self->ncols; c++)
    {
      double top = c < self->ncols ? tops[c] : -1;

      if (top < 0)
        top = -1;
      if (run_start >= 0 && top != run_top)
        {
          /* Close the run [run_start, c). */
          batch_add (self, self->colors->counter_fill, self->gx + run_start, run_top,
                     c - run_start, bottom - run_top);
          batch_add (self, self->colors->counter, self->gx + run_start, run_top, c - run_start, 1);
          run_start = -1;
        }
      if (top >= 0 && prev_top >= 0 && top != prev_top)
        {
          /* The step between two columns. */
          double y0 = MIN (top, prev_top), y1 = MAX (top, prev_top);

          batch_add (self, self->colors->counter, self->gx + c, y0, 1, y1 - y0 + 1);
        }
      if (top >= 0 && run_start < 0)
        {
          run_start = c;
          run_top = top;
        }
      prev_top = top;
    }
}

/* Whether the counters go in as images: everywhere but on vector targets,
 * which keep rectangles that stay sharp at any scale. */
static gboolean
counter_as_image (CpPainter *self)
{
  switch (cairo_surface_get_type (cairo_get_target (self->cr)))
    {
    case CAIRO_SURFACE_TYPE_PDF:
    case CAIRO_SURFACE_TYPE_PS:
    case CAIRO_SURFACE_TYPE_SVG:
    case CAIRO_SURFACE_TYPE_SCRIPT:
      return FALSE;
    default:
      return TRUE;
    }
}

/* The premultiplied pixel cairo paints for a colour: asked of cairo, so that
 * an image of such pixels composites exactly as a fill with the colour. */
static guint32
solid_pixel (CpPainter *self,
             guint32    rgba)
{
  cairo_t *cr;
  guint32 px;

  if (self->pixel_surface == NULL)
    self->pixel_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cr = cairo_create (self->pixel_surface);
  cairo_set_operator (cr, CAIRO_OPERATOR_SOURCE);
  set_rgba (cr, rgba);
  cairo_paint (cr);
  cairo_destroy (cr);
  cairo_surface_flush (self->pixel_surface);
  px = *(const guint32 *) cairo_image_surface_get_data (self->pixel_surface);
  return px;
}

/* Premultiplied src over dst, in eight bits per channel as pixman rounds. */
static guint32
over_pixel (guint32 src,
            guint32 dst)
{
  guint32 ia = 255 - (src >> 24), out = 0;

  for (guint shift = 0; shift < 32; shift += 8)
    {
      guint32 t = ((dst >> shift) & 0xff) * ia + 0x80;
      guint32 v = ((src >> shift) & 0xff) + ((t + (t >> 8)) >> 8);

      out |= MIN (v, 255u) << shift;
    }
  return out;
}

/* The same chart drawn into an image of the lane's columns and composited
 * once: thousands of rectangles cost cairo far more than writing their
 * pixels. Each pixel is what the rectangles would make it: the line's
 * colour over the fill's where both cover it. */
static void
counter_image (CpPainter   *self,
               const float *tops,
               double       bottom)
{
  cairo_t *cr = self->cr;
  cairo_surface_t *img;
  guint32 fill, line, line_on_fill;
  gint w = self->ncols, top0 = G_MAXINT, bot = (gint) bottom, h, stride;
  guchar *data;

  for (gint c = 0; c < w; c++)
    if (tops[c] >= 0)
      top0 = MIN (top0, (gint) tops[c]);
  if (top0 == G_MAXINT || bot < top0)
    return;
  h = bot - top0 + 1;

  img = scratch_surface (self, &self->counter_surface, w, h);
  cairo_surface_flush (img);
  data = cairo_image_surface_get_data (img);
  if (data == NULL)
    {
      cairo_surface_destroy (img);
      return;
    }
  stride = cairo_image_surface_get_stride (img);
  fill = solid_pixel (self, self->colors->counter_fill);
  line = solid_pixel (self, self->colors->counter);
  line_on_fill = over_pixel (line, fill);
  for (gint r = 0; r < h; r++)
    memset (data + (gsize) r * stride, 0, sizeof (guint32) * w);

  for (gint c = 0; c < w; c++)
    {
      gint top = (gint) tops[c];

      if (tops[c] < 0)
        continue;
      /* The fill, [top, bottom), under the line's row at top. */
      for (gint y = top + 1; y < bot; y++)
        ((guint32 *) (data + (gsize) (y - top0) * stride))[c] = fill;
      ((guint32 *) (data + (gsize) (top - top0) * stride))[c] = top < bot ? line_on_fill : line;
      /* The step from the column before, at this column, between the two
       * tops. */
      if (c > 0 && tops[c - 1] >= 0 && (gint) tops[c - 1] != top)
        {
          gint y0 = MIN (top, (gint) tops[c - 1]);
          gint y1 = MAX (top, (gint) tops[c - 1]);

          for (gint y = y0; y <= y1; y++)
            ((guint32 *) (data + (gsize) (y - top0) * stride))[c] = y >= top && y < bot ? line_on_fill : line;
        }
    }
  cairo_surface_mark_dirty (img);
  cairo_set_source_surface (cr, img, self->gx, top0);
  /* Whole pixels, however the target scales. */
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle (cr, self->gx, top0, w, h);
  cairo_fill (cr);
  /* Let go of the surface before it is written again. */
  cairo_set_source_rgba (cr, 0, 0, 0, 0);
  self->stats.rects++;
  cairo_surface_destroy (img);
}

/* A counter lane's columns: the top of each one's bar, into the job. Reads
 * the index and the view only, as walk_row() does. */
static void
walk_counter (CpPainter *self,
              RowJob    *job)
{
  guint lane_index = job->lane_index;
  CpLane *lane = job->lane;
  double y = job->y, h = job->h;
  const gint64 *ts;
  const double *values;
  guint n = cp_lane_get_counter (lane, &ts, &values);
  double vmin, vmax, lo, hi, bottom = floor (y + h - 2), span_px = h - 6;
  guint a, last;
  double carry;
  CpLodCounterAhead ahead = { 0 };

  if (n == 0 || !cp_lod_counter_range (self->lod, lane_index, &vmin, &vmax))
    return;
  lo = MIN (0, vmin);
  hi = vmax > lo ? vmax : lo + 1;

  /* The sample in effect at t0 and the end of those in view. */
  {
    guint l = 0, r = n;

    while (l < r)
      {
        guint mid = l + (r - l) / 2;

        if (ts[mid] <= self->t0)
          l = mid + 1;
        else
          r = mid;
      }
    a = l;
    carry = l > 0 ? values[l - 1] : NAN;
    r = n;
    while (l < r)
      {
        guint mid = l + (r - l) / 2;

        if (ts[mid] < self->t1)
          l = mid + 1;
        else
          r = mid;
      }
    last = l;
  }

  /* Each pixel column shows the largest value it holds: the value in
   * effect when it starts, and every sample inside. */
  job->bottom = bottom;
  job->chart = TRUE;
  for (gint c = 0; c < self->ncols; c++)
    {
      gint64 cb1 = col_time (self, c + 1);
      /* The samples inside the column: up to the first at or after its end. */
      guint b = MIN (cp_lod_counter_seek (self->lod, lane_index, a, cb1), last);
      double m = carry;

      /* Columns this far apart in samples: ask for the coming ones' data. */
      if (b - a >= 16)
        cp_lod_counter_ahead (self->lod, lane_index, &ahead, col_time (self, c + 1 + AHEAD_FAR),
                              col_time (self, c + 1 + AHEAD_NEAR));
      if (b > a)
        {
          double cm = cp_lod_counter_max (self->lod, lane_index, a, b);

          if (!isnan (cm))
            m = isnan (m) ? cm : MAX (m, cm);
          carry = values[b - 1];
        }
      a = b;
      job->tops[c] = isnan (m) ? -1 : (float) floor (bottom - (m - lo) / (hi - lo) * span_px + 0.5);
    }
}

static void paint_memory (CpPainter *self, const CpLayoutItem *item, double y);
static void paint_group_summary (CpPainter *self, const CpLayoutItem *item, double y);

/* Jobs: a frame's rows and counters are walked first, on as many threads
 * as the painter may use, each into its own job; then drawn in order on the
 * drawing thread, which gives the same pixels as walking them one by one.
 * Walks that miss the cache on every column (a zoomed-out view of a big
 * capture) then wait on memory on several cores at once. */

static RowJob *
job_get (CpPainter *self)
{
  RowJob *job;

  if (self->n_jobs == self->jobs->len)
    {
      job = g_new0 (RowJob, 1);
      job->rects = g_array_new (FALSE, FALSE, sizeof (ColorRect));
      job->hatch = g_array_new (FALSE, FALSE, sizeof (Rect));
      job->texts = g_array_new (FALSE, FALSE, sizeof (TextJob));
      g_ptr_array_add (self->jobs, job);
    }
  job = g_ptr_array_index (self->jobs, self->n_jobs++);
  if ((guint) self->ncols + 1 > job->n_cols)
    {
      /* The strip is kept zeroed between uses (dense_flush()). */
      g_free (job->strip);
      g_free (job->tops);
      job->n_cols = self->ncols + 1;
      job->strip = g_new0 (guint32, job->n_cols);
      job->tops = g_new (float, job->n_cols);
    }
  g_array_set_size (job->rects, 0);
  g_array_set_size (job->hatch, 0);
  g_array_set_size (job->texts, 0);
  job->slices = 0;
  job->chart = FALSE;
  return job;
}

void
cp_painter_job_free (gpointer data)
{
  RowJob *job = data;

  g_array_unref (job->rects);
  g_array_unref (job->hatch);
  g_array_unref (job->texts);
  g_free (job->strip);
  g_free (job->tops);
  g_free (job);
}

static void
collect_jobs (CpPainter          *self,
              guint               index,
              const CpLayoutItem *item,
              double              y)
{
  CpLane *lane;
  double row_h = self->m->row_height;

  if (item->kind == CP_LAYOUT_GROUP || item->kind == CP_LAYOUT_MEMORY)
    return;
  lane = cp_trace_get_lane (self->trace, item->lane);
  if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
    {
      RowJob *job = job_get (self);

      job->item = index;
      job->lane_index = item->lane;
      job->lane = lane;
      job->counter = TRUE;
      job->y = y;
      job->h = item->height;
      return;
    }
  for (guint r = 0; r < item->n_rows; r++)
    {
      double ry = y + self->m->lane_padding + r * row_h;
      RowJob *job;

      if (ry + row_h < self->lanes_top || ry > self->height)
        continue;
      job = job_get (self);
      job->item = index;
      job->lane_index = item->lane;
      job->lane = lane;
      job->counter = FALSE;
      job->row = r;
      job->y = ry;
      job->h = row_h - 1;
      job->run = (DenseRun) { 0, 0, ry, row_h - 1, density_color (self, lane), job->strip, 0 };
    }
}

static void
run_job (CpPainter *self,
         RowJob    *job)
{
  if (job->counter)
    walk_counter (self, job);
  else
    walk_row (self, job);
}

/* One frame's jobs, shared with the helpers it asked for. A helper that
 * starts after every job was claimed touches nothing else, so the frame
 * may end without waiting for it. */
typedef struct
{
  gatomicrefcount  ref;
  CpPainter       *painter;
  RowJob         **jobs;
  gint             n;
  gint             next;   /* the next job to claim */
  gint             done;   /* jobs finished */
  GMutex           lock;
  GCond            cond;
} JobRun;

static void
job_run_unref (JobRun *jr)
{
  if (g_atomic_ref_count_dec (&jr->ref))
    {
      g_mutex_clear (&jr->lock);
      g_cond_clear (&jr->cond);
      g_free (jr);
    }
}

static void
run_claimed (JobRun *jr)
{
  while (TRUE)
    {
      gint i = g_atomic_int_add (&jr->next, 1);

      if (i >= jr->n)
        return;
      run_job (jr->painter, jr->jobs[i]);
      if (g_atomic_int_add (&jr->done, 1) + 1 == jr->n)
        {
          g_mutex_lock (&jr->lock);
          g_cond_broadcast (&jr->cond);
          g_mutex_unlock (&jr->lock);
        }
    }
}

static void
helper_func (gpointer data,
             gpointer user_data)
{
  JobRun *jr = data;

  run_claimed (jr);
  job_run_unref (jr);
}

static GThreadPool *
helper_pool (void)
{
  static gsize once;
  static GThreadPool *pool;

  if (g_once_init_enter (&once))
    {
      pool = g_thread_pool_new (helper_func, NULL, CP_PAINTER_MAX_THREADS - 1, FALSE, NULL);
      g_once_init_leave (&once, 1);
    }
  return pool;
}

/* How many threads walk a frame's rows: as set, or one per processor. */
static guint
walk_threads (CpPainter *self)
{
  guint n = self->threads > 0 ? self->threads : g_get_num_processors ();

  return CLAMP (n, 1, CP_PAINTER_MAX_THREADS);
}

static void
run_jobs (CpPainter *self)
{
  guint threads = MIN (walk_threads (self), self->n_jobs);
  JobRun *jr;

  if (threads <= 1)
    {
      for (guint i = 0; i < self->n_jobs; i++)
        run_job (self, g_ptr_array_index (self->jobs, i));
      return;
    }
  jr = g_new0 (JobRun, 1);
  g_atomic_ref_count_init (&jr->ref);
  g_mutex_init (&jr->lock);
  g_cond_init (&jr->cond);
  jr->painter = self;
  jr->jobs = (RowJob **) self->jobs->pdata;
  jr->n = (gint) self->n_jobs;
  for (guint h = 1; h < threads; h++)
    {
      g_atomic_ref_count_inc (&jr->ref);
      if (!g_thread_pool_push (helper_pool (), jr, NULL))
        job_run_unref (jr);
    }
  /* Tests may ask for every job on a helper, so that the handing over is
   * exercised whatever the timing. */
  if (!self->helpers_only)
    run_claimed (jr);
  g_mutex_lock (&jr->lock);
  while (g_atomic_int_get (&jr->done) < jr->n)
    g_cond_wait (&jr->cond, &jr->lock);
  g_mutex_unlock (&jr->lock);
  job_run_unref (jr);
}

/* Draws what a job found, as the walk would have drawn it. */
static void
draw_job (CpPainter *self,
          RowJob    *job)
{
  if (job->counter)
    {
      if (!job->chart)
        return;
      if (counter_as_image (self))
        counter_image (self, job->tops, job->bottom);
      else
        counter_rects (self, job->tops, job->bottom);
      return;
    }
  for (guint i = 0; i < job->rects->len; i++)
    {
      const ColorRect *r = &g_array_index (job->rects, ColorRect, i);

      batch_add (self, r->rgba, r->r.x, r->r.y, r->r.w, r->r.h);
    }
  if (job->hatch->len > 0)
    g_array_append_vals (self->hatch, job->hatch->data, job->hatch->len);
  if (job->texts->len > 0)
    g_array_append_vals (self->texts, job->texts->data, job->texts->len);
  self->stats.slices += job->slices;
  dense_flush (self, &job->run);
}

static void
draw_item (CpPainter          *self,
           guint               index,
           const CpLayoutItem *item,
           double              y)
{
  if (item->kind == CP_LAYOUT_GROUP)
    {
      if (item->collapsed)
        paint_group_summary (self, item, y);
    }
  else if (item->kind == CP_LAYOUT_MEMORY)
    paint_memory (self, item, y);
  else
    {
      while (self->job_cursor < self->n_jobs)
        {
          RowJob *job = g_ptr_array_index (self->jobs, self->job_cursor);

          if (job->item != index)
            break;
          draw_job (self, job);
          self->job_cursor++;
        }
    }
}

/* A device's memory over time: allocated as a filled area, reserved as a
 * line, on a scale from 0 to the device's capacity (or the peak when it is
 * larger or unknown), with the capacity as a line and the allocated peak
 * marked. Each pixel column shows the largest value in it, so a short peak
 * is never lost; the cost is the events in view plus the columns. */
static void
paint_memory (CpPainter          *self,
              const CpLayoutItem *item,
              double              y)
{
  const CpMemoryTrack *t = cp_memory_get_track (cp_trace_get_memory_events (self->trace), item->lane);
  const CpDevice *dev = cp_trace_find_device (self->trace, t->device_id);
  cairo_t *cr = self->cr;
  double top = y + 4, bottom = floor (y + item->height - 2), span = bottom - top;
  gint64 capacity = dev != NULL && dev->total_memory > 0 && t->has_totals ? dev->total_memory : 0;
  gint64 scale = 0, peak = 0, peak_ts = 0;
  guint lo = 0, hi = t->n_events, k;
  gint64 cur_alloc, cur_res;
  g_autofree float *res_y = NULL;

  if (t->n_events == 0)
    return;
  for (guint i = 0; i < t->n_events; i++)
    {
      scale = MAX (scale, MAX (t->events[i].allocated, t->events[i].reserved));
      if (t->events[i].allocated > peak)
        {
          peak = t->events[i].allocated;
          peak_ts = t->events[i].ts;
        }
    }
  if (scale <= 0)
    return;
  /* A peak under a quarter of the device would be a sliver: the track
   * zooms to it and says where the capacity is instead of drawing it. */
  if (capacity > 0 && scale <= (capacity - 1) / 4)   /* 4 * scale < capacity */
    scale = cp_sat_add (scale, scale / 10);
  else
    scale = MAX (scale, capacity);

  /* The last event before the view gives the level at its left edge. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (t->events[mid].ts < self->t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  k = lo;
  cur_alloc = k > 0 ? t->events[k - 1].allocated : 0;
  cur_res = k > 0 ? t->events[k - 1].reserved : -1;

  cairo_save (cr);
  cairo_rectangle (cr, self->gx, y, self->area_w, item->height);
  cairo_clip (cr);
  /* One walk over the events: the fill is one path, the reserved line's
   * heights are kept per column (-1: none). */
  res_y = g_new (float, MAX (self->ncols, 1));
  for (gint c = 0; c < self->ncols; c++)
    res_y[c] = -1;
  cairo_new_path (cr);
  for (gint c = 0; c < self->ncols; c++)
    {
      gint64 c1 = col_time (self, c + 1);
      gint64 a = cur_alloc, r = cur_res;
      double ya, yr;

      if (k == 0 && (t->events[0].ts >= c1))
        continue;
      while (k < t->n_events && t->events[k].ts < c1)
        {
          cur_alloc = t->events[k].allocated;
          cur_res = t->events[k].reserved;
          a = MAX (a, cur_alloc);
          r = MAX (r, cur_res);
          k++;
        }
      if (a > 0)
        {
          ya = bottom - span * (double) a / (double) scale;
          cairo_rectangle (cr, self->gx + c, ya, 1, bottom - ya);
        }
      if (r >= 0)
        {
          yr = floor (bottom - span * (double) r / (double) scale);
          res_y[c] = (float) yr;
        }
      /* The level after the last event holds to the end of the capture. */
      if (k >= t->n_events && col_time (self, c) > cp_trace_get_duration (self->trace))
        break;
    }
  set_rgba (cr, self->colors->counter_fill);
  cairo_fill (cr);
  /* The reserved line. */
  for (gint c = 0; c < self->ncols; c++)
    if (res_y[c] >= 0)
      cairo_rectangle (cr, self->gx + c, res_y[c], 1, 2);
  set_rgba (cr, self->colors->counter);
  cairo_fill (cr);

  /* The capacity, dashed, and the peak: a mark and its size. */
  if (capacity > 0 && capacity > scale)
    {
      g_autofree char *size = g_format_size_full (capacity, G_FORMAT_SIZE_IEC_UNITS);
      /* Translators: the device's memory, above the top of the memory track. */
      g_autofree char *text = g_strdup_printf (_("capacity %s, above the scale"), size);

      cp_painter_text (self, text, self->font, self->gx + 6, y + 2, self->area_w - 12, self->m->row_height,
                       self->colors->dim_text);
    }
  else if (capacity > 0)
    {
      double yc = floor (bottom - span * (double) capacity / (double) scale) + 0.5;
      double dash[] = { 4, 3 };

      set_rgba (cr, self->colors->dim_text);
      cairo_set_line_width (cr, 1);
      cairo_set_dash (cr, dash, 2, 0);
      cairo_move_to (cr, self->gx, yc);
      cairo_line_to (cr, self->gx + self->area_w, yc);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  if (peak_ts >= self->t0 && peak_ts <= self->t1)
    {
      double px = time_x (self, peak_ts), py = bottom - span * (double) peak / (double) scale;
      g_autofree char *size = g_format_size_full (peak, G_FORMAT_SIZE_IEC_UNITS);

      set_rgba (cr, self->colors->accent);
      cairo_move_to (cr, px, py);
      cairo_line_to (cr, px - 4, py - 6);
      cairo_line_to (cr, px + 4, py - 6);
      cairo_close_path (cr);
      cairo_fill (cr);
      cp_painter_text (self, size, self->font, px + 6, MAX (y, py - 6 - self->m->row_height / 2),
                       MAX (40, self->area_w - (px - self->gx) - 8), self->m->row_height, self->colors->text);
    }
  cairo_restore (cr);
}

/* A collapsed group: the busiest lane's coverage in each column. */
static void
paint_group_summary (CpPainter          *self,
                     const CpLayoutItem *item,
                     double              y)
{
  guint n_lanes = cp_trace_get_n_lanes (self->trace);
  DenseRun run = { 0, 0, y + 4, item->height - 8,
                   self->colors->density[item->is_device ? CP_LANE_KERNEL : CP_LANE_HOST_THREAD],
                   self->strip, 0 };

  if ((guint) self->ncols > self->n_column_max)
    {
      g_free (self->column_max);
      self->n_column_max = self->ncols;
      self->column_max = g_new (float, self->n_column_max);
    }
  for (gint c = 0; c < self->ncols; c++)
    self->column_max[c] = -1;

  for (guint l = 0; l < n_lanes; l++)
    {
      CpLane *lane = cp_trace_get_lane (self->trace, l);
      const CpLodRow *r;
      gint next_col = 0;
      guint k;
      ColumnWalk walk = { 0 };

      if (cp_lane_get_process (lane) != item->process ||
          cp_view_state_get_lane_hidden (self->view, l) ||
          cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        continue;
      r = cp_lod_get_row (self->lod, l, 0);
      if (r == NULL)
        continue;
      k = cp_lod_row_first_ending_after (self->lod, l, 0, self->t0);
      while (k < r->n)
        {
          gint64 st = cp_lod_row_start (r, k);
          gint c;
          gint64 cb0, cb1, cov;
          guint j0, j1;
          float f;

          if (st >= self->t1)
            break;
          c = MAX (MAX ((gint) floor ((double) (st - self->t0) * self->px_per_ns), next_col), 0);
          if (c >= self->ncols)
            break;
          cb0 = col_time (self, c);
          cb1 = col_time (self, c + 1);
          cov = column_covered (self, r, &walk, k, c, cb0, cb1, &j0, &j1);
          if (j0 < r->n && cp_lod_row_start (r, j0) < MAX (cb1, cb0 + 1))
            {
              f = cb1 > cb0 ? (float) cov / (float) (cb1 - cb0) : 1.0f;
              self->column_max[c] = MAX (self->column_max[c], f);
            }
          next_col = c + 1;
          k = MAX (j0, j1);
        }
    }
  for (gint c = 0; c < self->ncols; c++)
    {
      if (self->column_max[c] >= 0)
        dense_add (&run, c, self->column_max[c]);
    }
  dense_flush (self, &run);
}

/* The visible items of one area: pinned (never scrolled) or scrolled. */
void
cp_painter_for_each_visible (CpPainter *self,
                             gboolean   pinned,
                             ItemFunc   func)
{
  guint n = cp_timeline_layout_get_n_items (self->tl);

  for (guint i = 0; i < n; i++)
    {
      const CpLayoutItem *item = cp_timeline_layout_get_item (self->tl, i);
      double y, h;

      if (!!item->pinned != !!pinned)
        continue;
      if (!cp_timeline_layout_item_rect (self->tl, i, self->offset, self->height, &y, &h))
        {
          /* Items are sorted by y: once one is below the view, stop. */
          if (y >= self->height)
            break;
          continue;
        }
      func (self, i, item, y);
    }
}

void
cp_painter_item_background (CpPainter          *self,
                            guint               index,
                            const CpLayoutItem *item,
                            double              y)
{
  cairo_t *cr = self->cr;

  if (item->kind == CP_LAYOUT_GROUP)
    {
      set_rgba (cr, self->colors->header);
      cairo_rectangle (cr, self->gx, y, self->area_w, item->height);
      cairo_fill (cr);
    }
  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, 0, floor (y + item->height) - 1, self->width, 1);
  cairo_fill (cr);
}

void
cp_painter_content (CpPainter *self,
                    gboolean   pinned)
{
  self->n_jobs = 0;
  self->job_cursor = 0;
  cp_painter_for_each_visible (self, pinned, collect_jobs);
  run_jobs (self);
  cp_painter_for_each_visible (self, pinned, draw_item);
}

void
cp_painter_grid (CpPainter *self,
                 gint64     step)
{
  cairo_t *cr = self->cr;
  gint64 first = first_tick (self, step);

  set_rgba (cr, self->colors->grid);
  for (gint64 t = first; t <= self->t1; t += step)
    {
      double x = floor (time_x (self, t));

      if (x < self->gx)
        continue;
      cairo_rectangle (cr, x, self->lanes_top, 1, self->height - self->lanes_top);
    }
  cairo_fill (cr);
}
