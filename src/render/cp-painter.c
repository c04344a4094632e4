/* cp-painter.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "cp-lod.h"
#include "cp-painter.h"
#include "cp-time-format.h"

/* Coverage is drawn as opacity from MIN_DENSITY (any slice at all: a lone
 * sliver is never lost) to 1 (the column is covered). */
#define MIN_DENSITY      0.45
/* Flows drawn at most per frame when all flows in view are shown. */
#define MAX_FLOWS        3000

typedef struct
{
  float x, y, w, h;
} Rect;

typedef struct
{
  guint32  rgba;
  GArray  *rects;
} Batch;

typedef struct
{
  float       x, y, w, h;
  const char *text;
  guint32     rgba;
} TextJob;

typedef struct
{
  gint    start;  /* first column written */
  gint    end;    /* one past the last */
  double  y, h;
  guint32 rgb;
} DenseRun;

struct _CpPainter
{
  CpTheme                 theme;
  const CpPaletteColors  *colors;
  PangoFontDescription   *font;
  PangoFontDescription   *bold_font;
  double                  font_px;
  CpLayoutMetrics         metrics;

  PangoContext           *context;
  PangoLayout            *layout;
  GThread                *context_thread;
  double                  text_height;

  GArray                 *batches;        /* of Batch */
  GHashTable             *batch_index;    /* rgba -> index + 1 */
  GArray                 *texts;          /* of TextJob */
  GArray                 *hatch;          /* of Rect */
  cairo_pattern_t        *hatch_pattern;
  CpTheme                 hatch_theme;

  GWeakRef                color_trace;
  guint8                 *name_color;     /* per CpStr: palette index + 1 */
  guint                   n_name_color;

  float                  *column_max;     /* scratch for group summaries */
  guint                   n_column_max;
  guint32                *strip;          /* one row of coverage pixels */
  guint                   n_strip;
  cairo_surface_t        *strip_surface;  /* scratch for image targets */

  CpPaintStats            stats;

  /* Set for one draw. */
  cairo_t                *cr;
  CpViewState            *view;
  CpTrace                *trace;
  CpLod                  *lod;
  CpTimelineLayout       *tl;
  const CpLayoutMetrics  *m;              /* the layout's */
  double                  width;
  double                  height;
  double                  gx;             /* left of the time area */
  double                  area_w;
  gint64                  t0;
  gint64                  t1;
  double                  px_per_ns;
  double                  ns_per_px;
  gint                    ncols;
  double                  offset;
  double                  lanes_top;      /* below the ruler */
  double                  scroll_top;     /* below the pinned lanes */
};

CpPainter *
cp_painter_new (void)
{
  CpPainter *self = g_new0 (CpPainter, 1);

  self->theme = CP_THEME_LIGHT;
  self->colors = cp_palette_get_colors (CP_THEME_LIGHT);
  self->batches = g_array_new (FALSE, FALSE, sizeof (Batch));
  self->batch_index = g_hash_table_new (NULL, NULL);
  self->texts = g_array_new (FALSE, FALSE, sizeof (TextJob));
  self->hatch = g_array_new (FALSE, FALSE, sizeof (Rect));
  g_weak_ref_init (&self->color_trace, NULL);
  cp_painter_set_font (self, NULL);
  return self;
}

void
cp_painter_free (CpPainter *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->batches->len; i++)
    g_array_unref (g_array_index (self->batches, Batch, i).rects);
  g_array_unref (self->batches);
  g_hash_table_unref (self->batch_index);
  g_array_unref (self->texts);
  g_array_unref (self->hatch);
  g_clear_pointer (&self->hatch_pattern, cairo_pattern_destroy);
  g_clear_object (&self->layout);
  g_clear_object (&self->context);
  g_clear_pointer (&self->font, pango_font_description_free);
  g_clear_pointer (&self->bold_font, pango_font_description_free);
  g_weak_ref_clear (&self->color_trace);
  g_free (self->name_color);
  g_free (self->column_max);
  g_free (self->strip);
  g_clear_pointer (&self->strip_surface, cairo_surface_destroy);
  g_free (self);
}

void
cp_painter_set_theme (CpPainter *self,
                      CpTheme    theme)
{
  g_return_if_fail (self != NULL);

  self->theme = theme == CP_THEME_DARK ? CP_THEME_DARK : CP_THEME_LIGHT;
  self->colors = cp_palette_get_colors (self->theme);
}

CpTheme
cp_painter_get_theme (CpPainter *self)
{
  g_return_val_if_fail (self != NULL, CP_THEME_LIGHT);
  return self->theme;
}

void
cp_painter_set_font (CpPainter                  *self,
                     const PangoFontDescription *font)
{
  double size;

  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->font, pango_font_description_free);
  g_clear_pointer (&self->bold_font, pango_font_description_free);
  self->font = font ? pango_font_description_copy (font) : pango_font_description_from_string ("Sans 9");
  if (pango_font_description_get_size (self->font) <= 0)
    pango_font_description_set_size (self->font, 9 * PANGO_SCALE);

  size = (double) pango_font_description_get_size (self->font) / PANGO_SCALE;
  /* Points at Pango's 96 dpi, unless the size is already in pixels. */
  self->font_px = pango_font_description_get_size_is_absolute (self->font) ? size : size * 96.0 / 72.0;
  self->bold_font = pango_font_description_copy (self->font);
  pango_font_description_set_weight (self->bold_font, PANGO_WEIGHT_BOLD);
  cp_layout_metrics_init (&self->metrics, self->font_px);
  if (self->layout)
    pango_layout_set_font_description (self->layout, self->font);
}

const CpLayoutMetrics *
cp_painter_get_metrics (CpPainter *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->metrics;
}

void
cp_painter_release_thread_fonts (void)
{
  pango_cairo_font_map_set_default (NULL);
}

const CpPaintStats *
cp_painter_get_stats (CpPainter *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return &self->stats;
}

/* Helpers */

static void
set_rgba (cairo_t *cr,
          guint32  c)
{
  cairo_set_source_rgba (cr, cp_rgba_r (c), cp_rgba_g (c), cp_rgba_b (c), cp_rgba_a (c));
}

static void
ensure_text (CpPainter *self)
{
  /* A Pango context belongs to the thread whose font map made it. */
  if (self->context == NULL || self->context_thread != g_thread_self ())
    {
      g_clear_object (&self->layout);
      g_clear_object (&self->context);
      self->context = pango_font_map_create_context (pango_cairo_font_map_get_default ());
      self->context_thread = g_thread_self ();
      self->layout = pango_layout_new (self->context);
      pango_layout_set_font_description (self->layout, self->font);
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
      pango_layout_set_single_paragraph_mode (self->layout, TRUE);
    }
  pango_cairo_update_context (self->cr, self->context);
  pango_layout_context_changed (self->layout);
  pango_layout_set_font_description (self->layout, self->font);
  pango_layout_set_text (self->layout, "Hg", -1);
  pango_layout_set_width (self->layout, -1);
  {
    int w, h;

    pango_layout_get_pixel_size (self->layout, &w, &h);
    self->text_height = h;
  }
}

/* Draws text left-aligned at (x, y top), elided to max_w (no limit if < 0),
 * centred vertically in h. Returns the width drawn. */
static double
draw_text (CpPainter                  *self,
           const char                 *text,
           const PangoFontDescription *font,
           double                      x,
           double                      y,
           double                      max_w,
           double                      h,
           guint32                     rgba)
{
  int w, th;

  if (text == NULL || *text == '\0' || (max_w >= 0 && max_w < 4))
    return 0;
  pango_layout_set_font_description (self->layout, font);
  pango_layout_set_text (self->layout, text, -1);
  pango_layout_set_width (self->layout, max_w >= 0 ? (int) (max_w * PANGO_SCALE) : -1);
  pango_layout_get_pixel_size (self->layout, &w, &th);
  set_rgba (self->cr, rgba);
  cairo_move_to (self->cr, x, y + floor ((h - th) / 2));
  pango_cairo_show_layout (self->cr, self->layout);
  return w;
}

static double
text_width (CpPainter  *self,
            const char *text)
{
  int w, h;

  pango_layout_set_font_description (self->layout, self->font);
  pango_layout_set_text (self->layout, text, -1);
  pango_layout_set_width (self->layout, -1);
  pango_layout_get_pixel_size (self->layout, &w, &h);
  return w;
}

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

static cairo_pattern_t *
get_hatch (CpPainter *self)
{
  if (self->hatch_pattern == NULL || self->hatch_theme != self->theme)
    {
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 8, 8);
      cairo_t *cr = cairo_create (s);
      cairo_matrix_t m;

      set_rgba (cr, self->colors->pageable_hatch);
      cairo_set_line_width (cr, 1.5);
      /* Diagonal stripes, continuous across tiles. */
      cairo_move_to (cr, -2, 10);
      cairo_line_to (cr, 10, -2);
      cairo_move_to (cr, -2, 2);
      cairo_line_to (cr, 2, -2);
      cairo_move_to (cr, 6, 10);
      cairo_line_to (cr, 10, 6);
      cairo_stroke (cr);
      cairo_destroy (cr);
      g_clear_pointer (&self->hatch_pattern, cairo_pattern_destroy);
      self->hatch_pattern = cairo_pattern_create_for_surface (s);
      cairo_pattern_set_extend (self->hatch_pattern, CAIRO_EXTEND_REPEAT);
      cairo_matrix_init_identity (&m);
      cairo_pattern_set_matrix (self->hatch_pattern, &m);
      cairo_surface_destroy (s);
      self->hatch_theme = self->theme;
    }
  return self->hatch_pattern;
}

/* Fills every batched rectangle (one fill per colour), then the hatching,
 * then the labels. */
static void
flush (CpPainter *self)
{
  cairo_t *cr = self->cr;

  for (guint i = 0; i < self->batches->len; i++)
    {
      Batch *b = &g_array_index (self->batches, Batch, i);

      if (b->rects->len == 0)
        continue;
      set_rgba (cr, b->rgba);
      for (guint k = 0; k < b->rects->len; k++)
        {
          const Rect *r = &g_array_index (b->rects, Rect, k);

          cairo_rectangle (cr, r->x, r->y, r->w, r->h);
        }
      cairo_fill (cr);
      self->stats.rects += b->rects->len;
      g_array_set_size (b->rects, 0);
    }

  if (self->hatch->len > 0)
    {
      cairo_set_source (cr, get_hatch (self));
      for (guint k = 0; k < self->hatch->len; k++)
        {
          const Rect *r = &g_array_index (self->hatch, Rect, k);

          cairo_rectangle (cr, r->x, r->y, r->w, r->h);
        }
      cairo_fill (cr);
      g_array_set_size (self->hatch, 0);
    }

  for (guint k = 0; k < self->texts->len; k++)
    {
      const TextJob *t = &g_array_index (self->texts, TextJob, k);

      draw_text (self, t->text, self->font, t->x, t->y, t->w, t->h, t->rgba);
      self->stats.labels++;
    }
  g_array_set_size (self->texts, 0);
}

static double
time_x (CpPainter *self,
        gint64     t)
{
  return self->gx + (double) (t - self->t0) * self->px_per_ns;
}

static gint64
col_time (CpPainter *self,
          gint       c)
{
  return self->t0 + (gint64) floor ((double) c * self->ns_per_px);
}

static guint8
name_color_index (CpPainter *self,
                  CpStr      name)
{
  if (name >= self->n_name_color)
    return (guint8) cp_palette_name_index (cp_trace_get_string (self->trace, name));
  if (self->name_color[name] == 0)
    self->name_color[name] = 1 + (guint8) cp_palette_name_index (cp_trace_get_string (self->trace, name));
  return self->name_color[name] - 1;
}

static void
prepare_name_colors (CpPainter *self)
{
  g_autoptr(CpTrace) last = g_weak_ref_get (&self->color_trace);

  if (last == self->trace)
    return;
  g_weak_ref_set (&self->color_trace, self->trace);
  g_clear_pointer (&self->name_color, g_free);
  self->n_name_color = 0;
  if (self->trace)
    {
      self->n_name_color = cp_string_pool_size (cp_trace_get_string_pool (self->trace));
      self->name_color = g_new0 (guint8, MAX (self->n_name_color, 1));
    }
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
  gboolean reuse;

  if (w <= 0 || h <= 0)
    {
      run->start = run->end = 0;
      return;
    }

  /* The row of pixels, repeated down the row's height, composited with no
   * transform: the fastest path of every cairo backend. An image target
   * composites at once, so one scratch surface serves every row; recording,
   * PDF and SVG targets keep the surface, so they get a new one each time. */
  reuse = cairo_surface_get_type (cairo_get_target (cr)) == CAIRO_SURFACE_TYPE_IMAGE;
  if (reuse)
    {
      if (self->strip_surface == NULL ||
          cairo_image_surface_get_width (self->strip_surface) < w ||
          cairo_image_surface_get_height (self->strip_surface) < h)
        {
          g_clear_pointer (&self->strip_surface, cairo_surface_destroy);
          self->strip_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, MAX (w, self->ncols), MAX (h, 64));
        }
      strip = cairo_surface_reference (self->strip_surface);
    }
  else
    strip = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cairo_surface_flush (strip);
  data = cairo_image_surface_get_data (strip);
  if (data != NULL)
    {
      int stride = cairo_image_surface_get_stride (strip);

      for (int r = 0; r < h; r++)
        memcpy (data + (gsize) r * stride, self->strip + run->start, sizeof (guint32) * w);
      cairo_surface_mark_dirty (strip);
      cairo_set_source_surface (cr, strip, self->gx + run->start, y0);
      cairo_rectangle (cr, self->gx + run->start, y0, w, h);
      cairo_fill (cr);
      /* Let go of the surface before it is written again. */
      cairo_set_source_rgba (cr, 0, 0, 0, 0);
      self->stats.rects++;
    }
  cairo_surface_destroy (strip);
  memset (self->strip + run->start, 0, sizeof (guint32) * w);
  run->start = run->end = 0;
}

static void
dense_add (CpPainter *self,
           DenseRun  *run,
           gint       c,
           double     fraction)
{
  double a = MIN_DENSITY + (1.0 - MIN_DENSITY) * CLAMP (fraction, 0, 1);
  guint32 rgb = run->rgb;

  self->stats.columns++;
  /* Premultiplied ARGB, native endian: what cairo's image surfaces hold. */
  self->strip[c] = ((guint32) lround (a * 255) << 24) |
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

/* The first position >= from whose slice ends after t (or is an instant at
 * t or later): galloping, since the answer is usually close to from. */
static guint
gallop (const CpSlices *s,
        const CpLodRow *r,
        guint           from,
        gint64          t)
{
  guint lo = from, hi, step = 1;

#define ENDS_BEFORE(k) \
  (cp_lod_row_end (r, k) < t || (cp_lod_row_end (r, k) == t && cp_slices_get_start (s, r->idx[k]) < t))

  if (lo >= r->n || !ENDS_BEFORE (lo))
    return lo;
  /* ENDS_BEFORE (lo) holds: find hi where it fails. */
  hi = lo + 1;
  while (hi < r->n && ENDS_BEFORE (hi))
    {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
  hi = MIN (hi, r->n);
  lo++;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (ENDS_BEFORE (mid))
        lo = mid + 1;
      else
        hi = mid;
    }
#undef ENDS_BEFORE
  return lo;
}

static gint64
covered_before (const CpSlices *s,
                const CpLodRow *r,
                guint           j,
                gint64          t)
{
  gint64 c = cp_lod_row_busy (r, j);

  if (j < r->n)
    {
      guint32 i = r->idx[j];

      if (t > cp_slices_get_start (s, i))
        c += MIN (t - cp_slices_get_start (s, i), cp_slices_get_dur (s, i));
    }
  return c;
}

/* Lanes */

static void
paint_row (CpPainter *self,
           guint      lane_index,
           CpLane    *lane,
           guint      row,
           double     y,
           double     h)
{
  const CpLodRow *r = cp_lod_get_row (self->lod, lane_index, row);
  const CpSlices *s = cp_lane_get_slices (lane);
  DenseRun run = { 0, 0, y, h, density_color (self, lane) };
  gint next_col = 0;
  guint k;
  double label_min = self->font_px * 2.5;
  gboolean transfer = cp_lane_get_kind (lane) == CP_LANE_TRANSFER;

  if (r == NULL || r->n == 0)
    return;

  k = cp_lod_row_first_ending_after (self->lod, lane_index, row, self->t0);
  while (k < r->n)
    {
      guint32 i = r->idx[k];
      gint64 st = cp_slices_get_start (s, i);
      gint64 en = st + cp_slices_get_dur (s, i);
      double x0, x1;
      gint c;
      gint64 cb0, cb1, cov0, cov1;
      guint j0, j1;

      if (st >= self->t1)
        break;
      x0 = (double) (st - self->t0) * self->px_per_ns;
      x1 = (double) (en - self->t0) * self->px_per_ns;

      if (x1 - x0 >= 1.0)
        {
          /* Wide enough to draw on its own. */
          double a = floor (x0 + 0.5), b = floor (x1 + 0.5);
          guint32 fill = slice_color (self, lane, cp_slices_get_name (s, i));

          a = MAX (a, -2);
          b = MIN (b, self->area_w + 2);
          if (b - a < 1)
            b = a + 1;
          /* A one-pixel gap tells neighbours apart. */
          if (b - a >= 4)
            b -= 1;
          batch_add (self, fill, self->gx + a, y, b - a, h);
          if (transfer && (s->flags[i] & CP_SLICE_PAGEABLE) && b - a >= 3)
            {
              Rect hr = { (float) (self->gx + a), (float) y, (float) (b - a), (float) h };

              g_array_append_val (self->hatch, hr);
            }
          {
            double va = MAX (a, 0), vb = MIN (b, self->area_w);

            if (vb - va >= label_min)
              {
                TextJob t = { (float) (self->gx + va + 3), (float) y, (float) (vb - va - 5), (float) h,
                              cp_trace_get_string (self->trace, cp_slices_get_name (s, i)),
                              cp_palette_text_on (fill) };

                g_array_append_val (self->texts, t);
              }
          }
          self->stats.slices++;
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
      j0 = gallop (s, r, k, cb0);
      cov0 = covered_before (s, r, j0, cb0);
      j1 = gallop (s, r, j0, cb1);
      cov1 = covered_before (s, r, j1, cb1);
      if (j0 < r->n && cp_slices_get_start (s, r->idx[j0]) < MAX (cb1, cb0 + 1))
        dense_add (self, &run, c, cb1 > cb0 ? (double) (cov1 - cov0) / (double) (cb1 - cb0) : 1.0);
      next_col = c + 1;
      k = MAX (j1, j0);
    }
  dense_flush (self, &run);
}

static void
paint_counter (CpPainter *self,
               guint      lane_index,
               CpLane    *lane,
               double     y,
               double     h)
{
  const gint64 *ts;
  const double *values;
  guint n = cp_lane_get_counter (lane, &ts, &values);
  double vmin, vmax, lo, hi, bottom = floor (y + h - 2), span_px = h - 6;
  guint a, last;
  double carry;
  gint run_start = -1;
  double run_top = 0, prev_top = -1;

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

  /* Each pixel column shows the largest value it holds (the value in
   * effect when it starts, and every sample inside), as a step chart made of
   * pixel-aligned rectangles merged where neighbours agree. */
  for (gint c = 0; c <= self->ncols; c++)
    {
      double top = -1;

      if (c < self->ncols)
        {
          gint64 cb1 = col_time (self, c + 1);
          guint b = a;
          double m = carry;

          while (b < last && ts[b] < cb1 && b - a < 16)
            b++;
          if (b < last && ts[b] < cb1)
            {
              guint l = b, r = last;

              while (l < r)
                {
                  guint mid = l + (r - l) / 2;

                  if (ts[mid] < cb1)
                    l = mid + 1;
                  else
                    r = mid;
                }
              b = l;
            }
          if (b > a)
            {
              double cm = cp_lod_counter_max (self->lod, lane_index, a, b);

              if (!isnan (cm))
                m = isnan (m) ? cm : MAX (m, cm);
              carry = values[b - 1];
            }
          a = b;
          if (!isnan (m))
            top = floor (bottom - (m - lo) / (hi - lo) * span_px + 0.5);
        }

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

static void
paint_lane (CpPainter          *self,
            const CpLayoutItem *item,
            double              y)
{
  CpLane *lane = cp_trace_get_lane (self->trace, item->lane);
  const CpLayoutMetrics *m = self->m;
  double row_h = m->row_height;

  if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
    {
      paint_counter (self, item->lane, lane, y, item->height);
      return;
    }
  for (guint r = 0; r < item->n_rows; r++)
    {
      double ry = y + m->lane_padding + r * row_h;

      if (ry + row_h < self->lanes_top || ry > self->height)
        continue;
      paint_row (self, item->lane, lane, r, ry, row_h - 1);
    }
}

/* A collapsed group: the busiest lane's coverage in each column. */
static void
paint_group_summary (CpPainter          *self,
                     const CpLayoutItem *item,
                     double              y)
{
  guint n_lanes = cp_trace_get_n_lanes (self->trace);
  DenseRun run = { 0, 0, y + 4, item->height - 8,
                   self->colors->density[item->is_device ? CP_LANE_KERNEL : CP_LANE_HOST_THREAD] };

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
      const CpSlices *s;
      gint next_col = 0;
      guint k;

      if (cp_lane_get_process (lane) != item->process ||
          cp_view_state_get_lane_hidden (self->view, l) ||
          cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        continue;
      r = cp_lod_get_row (self->lod, l, 0);
      if (r == NULL)
        continue;
      s = cp_lane_get_slices (lane);
      k = cp_lod_row_first_ending_after (self->lod, l, 0, self->t0);
      while (k < r->n)
        {
          gint64 st = cp_slices_get_start (s, r->idx[k]);
          gint c;
          gint64 cb0, cb1;
          guint j0, j1;
          float f;

          if (st >= self->t1)
            break;
          c = MAX (MAX ((gint) floor ((double) (st - self->t0) * self->px_per_ns), next_col), 0);
          if (c >= self->ncols)
            break;
          cb0 = col_time (self, c);
          cb1 = col_time (self, c + 1);
          j0 = gallop (s, r, k, cb0);
          j1 = gallop (s, r, j0, cb1);
          if (j0 < r->n && cp_slices_get_start (s, r->idx[j0]) < MAX (cb1, cb0 + 1))
            {
              f = cb1 > cb0 ? (float) (covered_before (s, r, j1, cb1) - covered_before (s, r, j0, cb0)) /
                              (float) (cb1 - cb0) : 1.0f;
              self->column_max[c] = MAX (self->column_max[c], f);
            }
          next_col = c + 1;
          k = MAX (j0, j1);
        }
    }
  for (gint c = 0; c < self->ncols; c++)
    {
      if (self->column_max[c] >= 0)
        dense_add (self, &run, c, self->column_max[c]);
    }
  dense_flush (self, &run);
}

/* The visible items of one area: pinned (never scrolled) or scrolled. */
typedef void (*ItemFunc) (CpPainter          *self,
                          guint               index,
                          const CpLayoutItem *item,
                          double              y);

static void
for_each_visible (CpPainter *self,
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

static void
item_background (CpPainter          *self,
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

static void
item_content (CpPainter          *self,
              guint               index,
              const CpLayoutItem *item,
              double              y)
{
  if (item->kind == CP_LAYOUT_GROUP)
    {
      if (item->collapsed)
        paint_group_summary (self, item, y);
    }
  else
    paint_lane (self, item, y);
}

static void
paint_grid (CpPainter *self,
            gint64     step)
{
  cairo_t *cr = self->cr;
  gint64 first = (self->t0 / step) * step;

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

/* Overlays */

static gboolean
slice_rect (CpPainter  *self,
            CpSliceRef  ref,
            double     *x,
            double     *y,
            double     *w,
            double     *h,
            gboolean   *pinned)
{
  gint item;
  const CpSlices *s;
  CpLane *lane;
  double x0, x1;

  if (!cp_trace_slice_ref_valid (self->trace, ref))
    return FALSE;
  item = cp_timeline_layout_find_lane (self->tl, ref.lane);
  if (item < 0)
    return FALSE;
  lane = cp_trace_get_lane (self->trace, ref.lane);
  s = cp_lane_get_slices (lane);
  x0 = time_x (self, cp_slices_get_start (s, ref.index));
  x1 = time_x (self, cp_slices_get_end (s, ref.index));
  if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
    return FALSE;
  *y = cp_timeline_layout_row_y (self->tl, item, s->row[ref.index], self->offset);
  *h = self->m->row_height - 1;
  *x = floor (x0 + 0.5);
  *w = MAX (floor (x1 + 0.5) - *x, 1);
  if (pinned)
    *pinned = cp_timeline_layout_get_item (self->tl, item)->pinned;
  return TRUE;
}

static void
outline_rect (CpPainter *self,
              double     x,
              double     y,
              double     w,
              double     h,
              double     line,
              guint32    rgba)
{
  cairo_t *cr = self->cr;

  /* At least a few pixels wide so a sliver's outline is seen. */
  if (w < 4)
    {
      x -= (4 - w) / 2;
      w = 4;
    }
  /* Clip the outline to the time area (a long slice runs off the sides). */
  if (x < self->gx - line)
    {
      w -= self->gx - line - x;
      x = self->gx - line;
    }
  if (x + w > self->gx + self->area_w + line)
    w = self->gx + self->area_w + line - x;
  if (w <= 0)
    return;
  set_rgba (cr, rgba);
  cairo_set_line_width (cr, line);
  cairo_rectangle (cr, x + line / 2, y + line / 2, w - line, h - line);
  cairo_stroke (cr);
}

static void
paint_selection (CpPainter *self,
                 gboolean   pinned_area)
{
  double x, y, w, h;
  gboolean pinned;
  CpSliceRef sel = cp_view_state_get_selected (self->view);

  if (cp_slice_ref_is_none (sel) || !slice_rect (self, sel, &x, &y, &w, &h, &pinned) || pinned != pinned_area)
    return;
  /* An accent ring with a thin ring of the background inside, readable on
   * any slice colour. */
  outline_rect (self, x - 2, y - 2, w + 4, h + 4, 2, self->colors->accent);
  outline_rect (self, x, y, w, h, 1, self->colors->background);
}

static void
lane_band (CpPainter *self,
           guint32    lane,
           double    *y,
           double    *h,
           gboolean   pinned_area,
           gboolean  *ok)
{
  gint item;
  const CpLayoutItem *it;

  *ok = FALSE;
  if (lane == CP_LANE_ALL)
    {
      *y = pinned_area ? self->lanes_top : self->scroll_top;
      *h = self->height - *y;
      *ok = TRUE;
      return;
    }
  item = cp_timeline_layout_find_lane (self->tl, lane);
  if (item < 0)
    return;
  it = cp_timeline_layout_get_item (self->tl, item);
  if (!!it->pinned != !!pinned_area)
    return;
  *ok = cp_timeline_layout_item_rect (self->tl, item, self->offset, self->height, y, h);
}

static void
paint_highlights (CpPainter *self,
                  gboolean   pinned_area)
{
  guint n;
  const CpHighlight *hl = cp_view_state_get_highlights (self->view, &n);
  cairo_t *cr = self->cr;

  for (guint i = 0; i < n; i++)
    {
      double x0, x1, y, h;
      gboolean ok;
      guint32 fill, line;

      if (hl[i].end < self->t0 || hl[i].start > self->t1)
        continue;
      lane_band (self, hl[i].lane, &y, &h, pinned_area, &ok);
      if (!ok)
        continue;
      x0 = MAX (time_x (self, hl[i].start), self->gx - 2);
      x1 = MIN (time_x (self, hl[i].end), self->gx + self->area_w + 2);
      if (x1 - x0 < 3)
        {
          double mid = (x0 + x1) / 2;

          x0 = mid - 1.5;
          x1 = mid + 1.5;
        }
      switch (hl[i].kind)
        {
        case CP_HIGHLIGHT_FINDING:
          fill = self->colors->finding_fill;
          line = self->colors->finding;
          break;
        case CP_HIGHLIGHT_SEARCH:
          fill = (self->colors->search & 0xffffff00u) | 0x30;
          line = self->colors->search;
          break;
        case CP_HIGHLIGHT_ANNOTATION:
        default:
          fill = (self->colors->note & 0xffffff00u) | 0x30;
          line = self->colors->note;
          break;
        }
      set_rgba (cr, fill);
      cairo_rectangle (cr, x0, y, x1 - x0, h);
      cairo_fill (cr);
      outline_rect (self, x0, y, x1 - x0, h, 1.5, line);
    }
}

static void
paint_search (CpPainter *self,
              gboolean   pinned_area)
{
  guint n;
  const CpSliceRef *m = cp_view_state_get_search_matches (self->view, &n);
  guint i = 0;
  cairo_t *cr = self->cr;

  if (n == 0)
    return;
  set_rgba (cr, self->colors->search);
  cairo_set_line_width (cr, 2);
  while (i < n)
    {
      guint32 lane_index = m[i].lane;
      guint end = i, a, b, first_idx, last_idx;
      gint item;
      CpLane *lane;
      const CpSlices *s;
      double last_x = -G_MAXDOUBLE;

      /* The matches of this lane: [i, end). */
      {
        guint lo = i, hi = n;

        while (lo < hi)
          {
            guint mid = lo + (hi - lo) / 2;

            if (m[mid].lane <= lane_index)
              lo = mid + 1;
            else
              hi = mid;
          }
        end = lo;
      }
      item = cp_timeline_layout_find_lane (self->tl, lane_index);
      if (item < 0 || !!cp_timeline_layout_get_item (self->tl, item)->pinned != !!pinned_area ||
          lane_index >= cp_trace_get_n_lanes (self->trace))
        {
          i = end;
          continue;
        }
      {
        double iy, ih;

        if (!cp_timeline_layout_item_rect (self->tl, item, self->offset, self->height, &iy, &ih))
          {
            i = end;
            continue;
          }
      }
      lane = cp_trace_get_lane (self->trace, lane_index);
      s = cp_lane_get_slices (lane);
      first_idx = cp_lane_first_ending_after (lane, self->t0);
      last_idx = cp_lane_first_starting_after (lane, self->t1);

      /* Matches with index in [first_idx, last_idx). */
      a = i;
      b = end;
      while (a < b)
        {
          guint mid = a + (b - a) / 2;

          if (m[mid].index < first_idx)
            a = mid + 1;
          else
            b = mid;
        }
      while (a < end && m[a].index < last_idx)
        {
          guint32 si = m[a].index;
          double x0 = time_x (self, cp_slices_get_start (s, si));
          double x1 = time_x (self, cp_slices_get_end (s, si));

          if (cp_slices_get_end (s, si) >= self->t0)
            {
              double y = cp_timeline_layout_row_y (self->tl, item, s->row[si], self->offset);
              double w = MAX (x1 - x0, 3);

              if (w > 3 || floor (x0) != last_x)
                {
                  cairo_rectangle (cr, floor (MAX (x0, self->gx - 2)) + 1,
                                   y + 1, MIN (w, self->area_w + 4) - 2,
                                   self->m->row_height - 3);
                  last_x = floor (x0);
                }
            }
          a++;
          /* Many matches in one pixel column: skip to the next column. */
          if (a < end && x1 - x0 < 1 && a < end && floor (time_x (self, cp_slices_get_start (s, m[a].index))) == last_x)
            {
              gint64 next_t = col_time (self, (gint) (last_x - self->gx) + 1);
              guint lo = a, hi = end;

              while (lo < hi)
                {
                  guint mid = lo + (hi - lo) / 2;

                  if (m[mid].index < last_idx && cp_slices_get_start (s, m[mid].index) < next_t)
                    lo = mid + 1;
                  else
                    hi = mid;
                }
              a = lo;
            }
        }
      cairo_stroke (cr);
      i = end;
    }
}

static void
paint_marks (CpPainter *self,
             gboolean   pinned_area)
{
  guint n;
  const CpMark *marks = cp_view_state_get_marks (self->view, &n);
  cairo_t *cr = self->cr;

  for (guint i = 0; i < n; i++)
    {
      const CpMark *mk = &marks[i];
      guint32 lane = cp_slice_ref_is_none (mk->slice) ? mk->lane : mk->slice.lane;
      guint32 color = mk->rgba ? mk->rgba : self->colors->note;
      double x0, x1, y, h;
      gboolean ok;

      if (mk->end < self->t0 || mk->start > self->t1)
        continue;
      lane_band (self, lane, &y, &h, pinned_area, &ok);
      if (!ok)
        continue;
      x0 = time_x (self, mk->start);
      x1 = time_x (self, mk->end);
      if (x1 - x0 >= 2)
        {
          set_rgba (cr, (color & 0xffffff00u) | 0x2e);
          cairo_rectangle (cr, MAX (x0, self->gx), y, MIN (x1, self->gx + self->area_w) - MAX (x0, self->gx), h);
          cairo_fill (cr);
        }
      set_rgba (cr, color | 0xff);
      if (x0 >= self->gx)
        cairo_rectangle (cr, floor (x0) - 1, y, 2, h);
      if (x1 - x0 >= 2 && x1 <= self->gx + self->area_w)
        cairo_rectangle (cr, floor (x1) - 1, y, 2, h);
      cairo_fill (cr);
      /* Lane marks carry their label at the top of the lane; marks across
       * every lane carry it on the ruler. */
      if (lane != CP_LANE_ALL && mk->label && *mk->label && x0 >= self->gx)
        {
          double tw = MIN (text_width (self, mk->label) + 8, 240);

          set_rgba (cr, color | 0xff);
          cairo_rectangle (cr, floor (x0) + 1, y, tw, self->text_height + 2);
          cairo_fill (cr);
          draw_text (self, mk->label, self->font, floor (x0) + 5, y + 1, tw - 8,
                     self->text_height, cp_palette_text_on (color | 0xff));
        }
    }
}

static void
paint_time_selection (CpPainter *self,
                      gboolean   pinned_area)
{
  gint64 a, b;
  double x0, x1, top;
  cairo_t *cr = self->cr;

  if (!cp_view_state_get_time_selection (self->view, &a, &b) || b < self->t0 || a > self->t1)
    return;
  top = pinned_area ? self->lanes_top : self->scroll_top;
  x0 = MAX (time_x (self, a), self->gx - 1);
  x1 = MIN (time_x (self, b), self->gx + self->area_w + 1);
  set_rgba (cr, self->colors->range_fill);
  cairo_rectangle (cr, x0, top, MAX (x1 - x0, 1), self->height - top);
  cairo_fill (cr);
  set_rgba (cr, self->colors->accent);
  cairo_rectangle (cr, floor (x0), top, 1, self->height - top);
  cairo_rectangle (cr, floor (x1), top, 1, self->height - top);
  cairo_fill (cr);
}

/* Flows */

static gboolean
flow_end (CpPainter  *self,
          CpSliceRef  ref,
          gboolean    at_end,
          double     *x,
          double     *y)
{
  const CpSlices *s;
  gint item;

  if (!cp_trace_slice_ref_valid (self->trace, ref))
    return FALSE;
  s = cp_lane_get_slices (cp_trace_get_lane (self->trace, ref.lane));
  *x = time_x (self, at_end ? cp_slices_get_end (s, ref.index) : cp_slices_get_start (s, ref.index));
  item = cp_timeline_layout_find_lane (self->tl, ref.lane);
  if (item >= 0)
    {
      *y = cp_timeline_layout_row_y (self->tl, item, s->row[ref.index], self->offset) +
           self->m->row_height / 2;
      return TRUE;
    }
  /* In a collapsed group: point at its header. */
  item = cp_timeline_layout_find_group (self->tl,
                                        cp_lane_get_process (cp_trace_get_lane (self->trace, ref.lane)));
  if (item >= 0 && cp_timeline_layout_get_item (self->tl, item)->collapsed)
    {
      double iy, ih;

      cp_timeline_layout_item_rect (self->tl, item, self->offset, self->height, &iy, &ih);
      *y = iy + ih / 2;
      return TRUE;
    }
  return FALSE;
}

static void
draw_flow (CpPainter    *self,
           const CpFlow *flow,
           gboolean      emphasised)
{
  cairo_t *cr = self->cr;
  double xa, ya, xb, yb, xs, dx;

  if (!flow_end (self, flow->from, FALSE, &xs, &ya) ||
      !flow_end (self, flow->from, TRUE, &xa, &ya) ||
      !flow_end (self, flow->to, FALSE, &xb, &yb))
    return;
  /* Leave the source where the target starts if that is inside it (a
   * launch call returns after the kernel was queued). */
  if (xb < xa)
    xa = MAX (xs, MIN (xa, xb));
  dx = MAX (fabs (xb - xa) / 2, 12);
  cairo_new_path (cr);
  cairo_move_to (cr, xa, ya);
  cairo_curve_to (cr, xa + dx, ya, xb - dx, yb, xb, yb);
  set_rgba (cr, emphasised ? self->colors->accent : self->colors->flow);
  cairo_set_line_width (cr, emphasised ? 2 : 1);
  cairo_stroke (cr);
  /* Arrow head, pointing right into the target. */
  cairo_move_to (cr, xb, yb);
  cairo_line_to (cr, xb - 7, yb - 4);
  cairo_line_to (cr, xb - 7, yb + 4);
  cairo_close_path (cr);
  cairo_fill (cr);
  self->stats.flows++;
}

static void
paint_flows (CpPainter *self)
{
  guint n_flows;
  const CpFlow *flows = cp_trace_get_flows (self->trace, &n_flows);
  CpSliceRef sel = cp_view_state_get_selected (self->view);
  guint drawn = 0;

  if (n_flows == 0)
    return;

  if (cp_view_state_get_show_all_flows (self->view))
    {
      guint n_items = cp_timeline_layout_get_n_items (self->tl);

      for (guint it = 0; it < n_items && drawn < MAX_FLOWS; it++)
        {
          const CpLayoutItem *item = cp_timeline_layout_get_item (self->tl, it);
          CpLane *lane;
          guint first, last;

          if (item->kind != CP_LAYOUT_LANE ||
              !cp_timeline_layout_item_rect (self->tl, it, self->offset, self->height, NULL, NULL))
            continue;
          lane = cp_trace_get_lane (self->trace, item->lane);
          first = cp_lane_first_ending_after (lane, self->t0);
          last = cp_lane_first_starting_after (lane, self->t1);
          for (int dir = 0; dir < 2; dir++)
            {
              guint n;
              const guint32 *ids = cp_lod_get_lane_flows (self->lod, item->lane, dir == 0, &n);
              guint lo = 0, hi = n;

              while (lo < hi)
                {
                  guint mid = lo + (hi - lo) / 2;
                  guint32 idx = dir == 0 ? flows[ids[mid]].from.index : flows[ids[mid]].to.index;

                  if (idx < first)
                    lo = mid + 1;
                  else
                    hi = mid;
                }
              for (guint k = lo; k < n && drawn < MAX_FLOWS; k++)
                {
                  const CpFlow *f = &flows[ids[k]];
                  guint32 idx = dir == 0 ? f->from.index : f->to.index;

                  if (idx >= last)
                    break;
                  if (dir == 1)
                    {
                      /* Drawn from its source already if that is in view. */
                      gint src = cp_timeline_layout_find_lane (self->tl, f->from.lane);

                      if (src >= 0 &&
                          cp_timeline_layout_item_rect (self->tl, src, self->offset, self->height, NULL, NULL))
                        {
                          CpLane *sl = cp_trace_get_lane (self->trace, f->from.lane);

                          if (f->from.index >= cp_lane_first_ending_after (sl, self->t0) &&
                              f->from.index < cp_lane_first_starting_after (sl, self->t1))
                            continue;
                        }
                    }
                  draw_flow (self, f, FALSE);
                  drawn++;
                }
            }
        }
    }

  if (!cp_slice_ref_is_none (sel))
    {
      g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint));

      cp_trace_find_flows (self->trace, sel, ids);
      for (guint k = 0; k < ids->len; k++)
        draw_flow (self, &flows[g_array_index (ids, guint, k)], TRUE);
    }
}

/* Gutter */

/* A counter value in three significant digits, with an SI prefix for large
 * ones: "1980", "604k", "1.20G". */
static char *
format_value (double v)
{
  static const char *prefixes[] = { "", "k", "M", "G", "T", "P" };
  double a = fabs (v);
  guint p = 0;

  if (a < 10000)
    return g_strdup_printf ("%.4g", v);
  while (a >= 1000 && p + 1 < G_N_ELEMENTS (prefixes))
    {
      a /= 1000;
      v /= 1000;
      p++;
    }
  return g_strdup_printf ("%.*f%s", a >= 100 ? 0 : a >= 10 ? 1 : 2, v, prefixes[p]);
}

static void
gutter_item (CpPainter          *self,
             guint               index,
             const CpLayoutItem *item,
             double              y)
{
  cairo_t *cr = self->cr;
  const char *label = cp_timeline_layout_get_label (self->tl, index);
  double gw = self->m->gutter_width;
  double pad = 8;

  if (item->kind == CP_LAYOUT_GROUP)
    {
      double cx = pad + 4, cy = y + item->height / 2;
      double lw;

      set_rgba (cr, self->colors->header);
      cairo_rectangle (cr, 0, y, gw, item->height);
      cairo_fill (cr);
      /* Disclosure triangle. */
      set_rgba (cr, self->colors->dim_text);
      if (item->collapsed)
        {
          cairo_move_to (cr, cx - 2, cy - 4);
          cairo_line_to (cr, cx + 3, cy);
          cairo_line_to (cr, cx - 2, cy + 4);
        }
      else
        {
          cairo_move_to (cr, cx - 4, cy - 2);
          cairo_line_to (cr, cx + 4, cy - 2);
          cairo_line_to (cr, cx, cy + 3);
        }
      cairo_close_path (cr);
      cairo_fill (cr);
      lw = draw_text (self, label, self->bold_font, pad + 14, y, gw - pad - 20, item->height,
                      self->colors->text);
      if (item->n_hidden > 0 && lw + pad + 14 + 40 < gw)
        {
          g_autofree char *hidden = g_strdup_printf (_("(%u hidden)"), item->n_hidden);

          draw_text (self, hidden, self->font, pad + 14 + lw + 6, y,
                     gw - (pad + 14 + lw + 6) - 6, item->height, self->colors->dim_text);
        }
    }
  else
    {
      CpLane *lane = cp_trace_get_lane (self->trace, item->lane);
      double x = pad + 14;
      double text_y = y + self->m->lane_padding;
      double lh = self->m->row_height;

      if (item->pinned)
        {
          /* A pin mark before pinned lanes. */
          set_rgba (cr, self->colors->accent);
          cairo_arc (cr, pad + 4, text_y + lh / 2, 3, 0, 2 * G_PI);
          cairo_fill (cr);
        }
      if (cp_lane_get_kind (lane) == CP_LANE_TRANSFER)
        {
          /* A swatch of the direction's colour. */
          set_rgba (cr, cp_palette_transfer_color (self->theme, cp_lane_get_transfer_kind (lane)));
          cairo_rectangle (cr, x, text_y + lh / 2 - 4, 8, 8);
          cairo_fill (cr);
          x += 12;
        }
      draw_text (self, label, self->font, x, text_y, gw - x - 6, lh, self->colors->text);
      if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        {
          double vmin, vmax;

          if (cp_lod_counter_range (self->lod, item->lane, &vmin, &vmax))
            {
              g_autofree char *value = format_value (vmax);
              /* Translators: the largest value of a counter, "max 604k". */
              g_autofree char *range = g_strdup_printf (_("max %s"), value);

              draw_text (self, range, self->font, x, text_y + lh, gw - x - 6, lh, self->colors->dim_text);
            }
        }
    }
  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, 0, floor (y + item->height) - 1, gw, 1);
  cairo_fill (cr);
}

static void
paint_gutter (CpPainter *self)
{
  cairo_t *cr = self->cr;
  double gw = self->m->gutter_width;
  double pinned_h = cp_timeline_layout_get_pinned_height (self->tl);

  cairo_save (cr);
  cairo_rectangle (cr, 0, self->lanes_top, gw, self->height - self->lanes_top);
  cairo_clip (cr);
  set_rgba (cr, self->colors->gutter);
  cairo_paint (cr);

  cairo_save (cr);
  cairo_rectangle (cr, 0, self->scroll_top, gw, self->height - self->scroll_top);
  cairo_clip (cr);
  for_each_visible (self, FALSE, gutter_item);
  cairo_restore (cr);

  if (pinned_h > 0)
    {
      cairo_save (cr);
      cairo_rectangle (cr, 0, self->lanes_top, gw, pinned_h);
      cairo_clip (cr);
      for_each_visible (self, TRUE, gutter_item);
      cairo_restore (cr);
    }
  cairo_restore (cr);

  /* The gutter's edge. */
  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, gw - 1, self->lanes_top, 1, self->height - self->lanes_top);
  cairo_fill (cr);
}

/* Ruler */

static gint64
pick_ruler_step (CpPainter *self)
{
  gint64 step = cp_time_pick_step (self->ns_per_px, 64);

  /* Make room for the longest label at this step. */
  for (guint tries = 0; tries < 4; tries++)
    {
      g_autofree char *sample = cp_time_format_tick (self->t1 - self->t1 % step, step, self->t1);
      double need = text_width (self, sample) + 16;

      if ((double) step * self->px_per_ns >= need)
        break;
      step = cp_time_pick_step (self->ns_per_px, need);
    }
  return step;
}

static void
paint_ruler (CpPainter *self,
             gint64     step)
{
  cairo_t *cr = self->cr;
  const CpLayoutMetrics *m = self->m;
  double rh = m->ruler_height;
  gint64 minor = cp_time_minor_step (step);
  gint64 a, b;

  set_rgba (cr, self->colors->header);
  cairo_rectangle (cr, 0, 0, self->width, rh);
  cairo_fill (cr);

  cairo_save (cr);
  cairo_rectangle (cr, self->gx, 0, self->area_w, rh);
  cairo_clip (cr);

  /* Selected range on the ruler, with its duration. */
  if (cp_view_state_get_time_selection (self->view, &a, &b) && b >= self->t0 && a <= self->t1)
    {
      double x0 = MAX (time_x (self, a), self->gx), x1 = MIN (time_x (self, b), self->gx + self->area_w);

      set_rgba (cr, (self->colors->accent & 0xffffff00u) | 0x40);
      cairo_rectangle (cr, x0, 0, MAX (x1 - x0, 1), rh);
      cairo_fill (cr);
    }

  /* Minor ticks when they are far enough apart. */
  set_rgba (cr, self->colors->tick);
  if ((double) minor * self->px_per_ns >= 6)
    {
      for (gint64 t = (self->t0 / minor) * minor; t <= self->t1; t += minor)
        cairo_rectangle (cr, floor (time_x (self, t)), rh - 5, 1, 5);
    }
  for (gint64 t = (self->t0 / step) * step; t <= self->t1; t += step)
    cairo_rectangle (cr, floor (time_x (self, t)), rh * 0.35, 1, rh * 0.65);
  cairo_fill (cr);

  /* Marks across every lane: a flag on the ruler with the label. */
  {
    guint n;
    const CpMark *marks = cp_view_state_get_marks (self->view, &n);

    for (guint i = 0; i < n; i++)
      {
        guint32 color = marks[i].rgba ? marks[i].rgba : self->colors->note;
        double x;

        if (!cp_slice_ref_is_none (marks[i].slice) || marks[i].lane != CP_LANE_ALL ||
            marks[i].start < self->t0 || marks[i].start > self->t1)
          continue;
        x = floor (time_x (self, marks[i].start));
        set_rgba (cr, color | 0xff);
        cairo_move_to (cr, x - 5, rh - 10);
        cairo_line_to (cr, x + 5, rh - 10);
        cairo_line_to (cr, x, rh);
        cairo_close_path (cr);
        cairo_fill (cr);
        if (marks[i].label && *marks[i].label)
          {
            double tw = MIN (text_width (self, marks[i].label) + 8, 200);
            double lx = x + 6;

            /* The ruler's ticks and times stay in sight. The label goes in
             * a gap between them: right of the flag up to the next tick,
             * left of it back to the time written after the tick before, or
             * past the next tick's time; cut with an ellipsis when no gap
             * holds it. With no gap of 40 px, the flag is alone (the Notes
             * pane lists the note). */
            gint64 prev_t = marks[i].start / step * step;
            g_autofree char *prev_label = cp_time_format_tick (prev_t, step, self->t1);
            g_autofree char *next_label = cp_time_format_tick (prev_t + step, step, self->t1);
            double prev_end = floor (time_x (self, prev_t)) + 4 + text_width (self, prev_label) + 2;
            double next_tick = floor (time_x (self, prev_t + step));
            double next_end = next_tick + 4 + text_width (self, next_label) + 2;
            double area_end = self->gx + self->area_w;
            double gaps[3][2] = {
              { MAX (x + 6, prev_end), MIN (next_tick - 2, area_end) },
              { MAX (prev_end, self->gx), x - 6 },
              { next_end, MIN (floor (time_x (self, prev_t + 2 * step)) - 2, area_end) },
            };
            gint best = -1;
            double best_room = 0;

            /* The first gap that holds the whole label, else the widest. */
            for (guint g = 0; g < G_N_ELEMENTS (gaps); g++)
              {
                double room = gaps[g][1] - gaps[g][0];

                if (room >= tw)
                  {
                    best = (gint) g;
                    break;
                  }
                if (room >= 40 && room > best_room)
                  {
                    best = (gint) g;
                    best_room = room;
                  }
              }
            if (best < 0)
              continue;
            tw = MIN (tw, gaps[best][1] - gaps[best][0]);
            /* Left of the flag, the label ends at it. */
            lx = best == 1 ? gaps[best][1] - tw : gaps[best][0];
            set_rgba (cr, color | 0xff);
            /* Above the minor ticks, which start 5 px from the bottom. */
            cairo_rectangle (cr, lx, rh - self->text_height - 6, tw, self->text_height + 1);
            cairo_fill (cr);
            draw_text (self, marks[i].label, self->font, lx + 4, rh - self->text_height - 5, tw - 8,
                       self->text_height, cp_palette_text_on (color | 0xff));
          }
      }
  }


  for (gint64 t = (self->t0 / step) * step; t <= self->t1; t += step)
    {
      g_autofree char *label = NULL;

      /* A tick left of the area would show a clipped label. */
      if (time_x (self, t) < self->gx)
        continue;
      label = cp_time_format_tick (t, step, self->t1);

      draw_text (self, label, self->font, floor (time_x (self, t)) + 4, 0, -1, rh * 0.6,
                 self->colors->dim_text);
    }


  /* The duration of the selected range, over the ticks. */
  if (cp_view_state_get_time_selection (self->view, &a, &b) && b >= self->t0 && a <= self->t1)
    {
      double x0 = MAX (time_x (self, a), self->gx), x1 = MIN (time_x (self, b), self->gx + self->area_w);
      g_autofree char *dur = cp_time_format_duration (b - a);
      double tw = text_width (self, dur) + 10;
      double cx = CLAMP ((x0 + x1) / 2, self->gx + tw / 2, self->gx + self->area_w - tw / 2);

      set_rgba (cr, self->colors->accent);
      cairo_rectangle (cr, floor (x0), 0, 1, rh);
      cairo_rectangle (cr, floor (x1), 0, 1, rh);
      cairo_fill (cr);
      cairo_rectangle (cr, floor (cx - tw / 2), rh - self->text_height - 4, tw, self->text_height + 2);
      cairo_fill (cr);
      draw_text (self, dur, self->bold_font, floor (cx - tw / 2) + 5, rh - self->text_height - 3,
                 -1, self->text_height, cp_palette_text_on (self->colors->accent));
    }
  cairo_restore (cr);

  /* The gutter part of the ruler: the span in view. */
  {
    g_autofree char *span = cp_time_format_duration (self->t1 - self->t0);
    /* Translators: the length of time the timeline shows, e.g. "span 12.3 ms". */
    g_autofree char *text = g_strdup_printf (_("span %s"), span);

    set_rgba (cr, self->colors->gutter);
    cairo_rectangle (cr, 0, 0, self->gx, rh);
    cairo_fill (cr);
    draw_text (self, text, self->font, 8, 0, self->gx - 16, rh, self->colors->dim_text);
  }

  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, 0, rh - 1, self->width, 1);
  cairo_fill (cr);
}

/* Areas */

static void
paint_area (CpPainter *self,
            gboolean   pinned)
{
  cairo_t *cr = self->cr;
  double top = pinned ? self->lanes_top : self->scroll_top;
  double bottom = pinned ? self->scroll_top : self->height;

  if (bottom <= top)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, self->gx, top, self->area_w, bottom - top);
  cairo_clip (cr);

  for_each_visible (self, pinned, item_background);
  paint_highlights (self, pinned);
  for_each_visible (self, pinned, item_content);
  flush (self);
  paint_marks (self, pinned);
  paint_time_selection (self, pinned);
  paint_search (self, pinned);
  paint_selection (self, pinned);

  cairo_restore (cr);
}

static gboolean
begin (CpPainter        *self,
       cairo_t          *cr,
       CpViewState      *view,
       CpTimelineLayout *layout,
       double            width,
       double            height)
{
  self->cr = cr;
  self->view = view;
  self->trace = cp_view_state_get_trace (view);
  self->lod = self->trace ? cp_lod_ensure (self->trace) : NULL;
  self->tl = layout ? cp_timeline_layout_ref (layout) : cp_timeline_layout_new (view, &self->metrics);
  self->m = cp_timeline_layout_get_metrics (self->tl);
  self->width = width;
  self->height = height;
  self->gx = self->m->gutter_width;
  self->area_w = MAX (width - self->gx, 1);
  self->ncols = (gint) ceil (self->area_w);
  if ((guint) self->ncols + 1 > self->n_strip)
    {
      g_free (self->strip);
      self->n_strip = self->ncols + 1;
      self->strip = g_new0 (guint32, self->n_strip);
    }
  self->t0 = cp_view_state_get_visible_start (view);
  self->t1 = cp_view_state_get_visible_end (view);
  if (self->t1 <= self->t0)
    self->t1 = self->t0 + 1;
  self->ns_per_px = (double) (self->t1 - self->t0) / self->area_w;
  self->px_per_ns = self->area_w / (double) (self->t1 - self->t0);
  self->offset = cp_view_state_get_vertical_offset (view);
  self->lanes_top = self->m->ruler_height;
  self->scroll_top = self->lanes_top + cp_timeline_layout_get_pinned_height (self->tl);
  memset (&self->stats, 0, sizeof self->stats);
  prepare_name_colors (self);
  ensure_text (self);
  return TRUE;
}

static void
end (CpPainter *self)
{
  g_clear_pointer (&self->tl, cp_timeline_layout_unref);
  self->cr = NULL;
  self->view = NULL;
  self->trace = NULL;
  self->lod = NULL;
}

void
cp_painter_draw (CpPainter        *self,
                 cairo_t          *cr,
                 CpViewState      *view,
                 CpTimelineLayout *layout,
                 double            width,
                 double            height,
                 CpPaintFlags      flags)
{
  gint64 step;

  g_return_if_fail (self != NULL);
  g_return_if_fail (cr != NULL);
  g_return_if_fail (CP_IS_VIEW_STATE (view));

  if (width < 1 || height < 1)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);
  begin (self, cr, view, layout, width, height);
  step = pick_ruler_step (self);

  if (flags & CP_PAINT_LANES)
    {
      set_rgba (cr, self->colors->background);
      cairo_rectangle (cr, self->gx, self->lanes_top, self->area_w, height - self->lanes_top);
      cairo_fill (cr);
      paint_grid (self, step);
      if (self->trace)
        {
          paint_area (self, FALSE);
          paint_area (self, TRUE);
          if (self->scroll_top > self->lanes_top)
            {
              /* The edge under the pinned lanes. */
              set_rgba (cr, self->colors->tick);
              cairo_rectangle (cr, 0, floor (self->scroll_top) - 1, width, 1);
              cairo_fill (cr);
            }
          cairo_save (cr);
          cairo_rectangle (cr, self->gx, self->lanes_top, self->area_w, height - self->lanes_top);
          cairo_clip (cr);
          paint_flows (self);
          cairo_restore (cr);
        }
    }
  if ((flags & CP_PAINT_GUTTER) && self->trace)
    paint_gutter (self);
  if (flags & CP_PAINT_RULER)
    paint_ruler (self, step);
  if ((flags & CP_PAINT_HOVER) && self->trace)
    {
      CpSliceRef hov = cp_view_state_get_hovered (view);
      double x, y, w, h;
      gboolean pinned;

      if (!cp_slice_ref_is_none (hov) && slice_rect (self, hov, &x, &y, &w, &h, &pinned))
        {
          double top = pinned ? self->lanes_top : self->scroll_top;
          double bottom = pinned ? self->scroll_top : height;

          cairo_save (cr);
          cairo_rectangle (cr, self->gx, top, self->area_w, bottom - top);
          cairo_clip (cr);
          outline_rect (self, x - 1, y - 1, w + 2, h + 2, 1, self->colors->hover);
          cairo_restore (cr);
        }
    }

  end (self);
  cairo_restore (cr);
}

gboolean
cp_painter_slice_rect (CpPainter        *self,
                       CpViewState      *view,
                       CpTimelineLayout *layout,
                       double            width,
                       double            height,
                       CpSliceRef        ref,
                       double           *x,
                       double           *y,
                       double           *w,
                       double           *h)
{
  gboolean ok;
  double rx = 0, ry = 0, rw = 0, rh = 0;
  CpTimelineLayout *tl;
  gint64 t0, t1;
  double gx, px_per_ns, offset;
  gint item;
  const CpSlices *s;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (CP_IS_VIEW_STATE (view), FALSE);

  if (cp_view_state_get_trace (view) == NULL ||
      !cp_trace_slice_ref_valid (cp_view_state_get_trace (view), ref))
    return FALSE;

  /* The same geometry as a draw, without a cairo_t. */
  tl = layout ? cp_timeline_layout_ref (layout) : cp_timeline_layout_new (view, &self->metrics);
  t0 = cp_view_state_get_visible_start (view);
  t1 = MAX (cp_view_state_get_visible_end (view), t0 + 1);
  gx = cp_timeline_layout_get_metrics (tl)->gutter_width;
  px_per_ns = MAX (width - gx, 1) / (double) (t1 - t0);
  offset = cp_view_state_get_vertical_offset (view);
  item = cp_timeline_layout_find_lane (tl, ref.lane);
  ok = item >= 0;
  if (ok)
    {
      s = cp_lane_get_slices (cp_trace_get_lane (cp_view_state_get_trace (view), ref.lane));
      rx = floor (gx + (double) (cp_slices_get_start (s, ref.index) - t0) * px_per_ns + 0.5);
      rw = MAX (floor (gx + (double) (cp_slices_get_end (s, ref.index) - t0) * px_per_ns + 0.5) - rx, 1);
      ry = cp_timeline_layout_row_y (tl, item, s->row[ref.index], offset);
      rh = cp_timeline_layout_get_metrics (tl)->row_height - 1;
      ok = cp_timeline_layout_item_rect (tl, item, offset, height, NULL, NULL) &&
           rx + rw > gx && rx < width;
    }
  cp_timeline_layout_unref (tl);
  if (x) *x = rx;
  if (y) *y = ry;
  if (w) *w = rw;
  if (h) *h = rh;
  return ok;
}
