/* cp-painter.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "cp-lod.h"
#include "cp-painter.h"
#include "cp-time-format.h"
#include "cp-painter-private.h"

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
  self->jobs = g_ptr_array_new_with_free_func (cp_painter_job_free);
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
  g_ptr_array_unref (self->jobs);
  g_clear_pointer (&self->counter_surface, cairo_surface_destroy);
  g_clear_pointer (&self->pixel_surface, cairo_surface_destroy);
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

void
cp_painter_set_threads (CpPainter *self,
                        guint      threads)
{
  g_return_if_fail (self != NULL);

  self->threads = threads;
}

void
cp_painter_set_helpers_only (CpPainter *self,
                             gboolean   helpers_only)
{
  self->helpers_only = helpers_only;
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
double
cp_painter_text (CpPainter                  *self,
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

double
cp_painter_text_width (CpPainter  *self,
                       const char *text)
{
  int w, h;

  pango_layout_set_font_description (self->layout, self->font);
  pango_layout_set_text (self->layout, text, -1);
  pango_layout_set_width (self->layout, -1);
  pango_layout_get_pixel_size (self->layout, &w, &h);
  return w;
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

      cp_painter_text (self, t->text, self->font, t->x, t->y, t->w, t->h, t->rgba);
      self->stats.labels++;
    }
  g_array_set_size (self->texts, 0);
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

  cp_painter_for_each_visible (self, pinned, cp_painter_item_background);
  cp_painter_highlights (self, pinned);
  cp_painter_content (self, pinned);
  flush (self);
  cp_painter_marks (self, pinned);
  cp_painter_time_selection (self, pinned);
  cp_painter_search (self, pinned);
  cp_painter_selection (self, pinned);

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
  step = cp_painter_pick_ruler_step (self);

  if (flags & CP_PAINT_LANES)
    {
      set_rgba (cr, self->colors->background);
      cairo_rectangle (cr, self->gx, self->lanes_top, self->area_w, height - self->lanes_top);
      cairo_fill (cr);
      cp_painter_grid (self, step);
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
          cp_painter_flows (self);
          cairo_restore (cr);
        }
    }
  if ((flags & CP_PAINT_GUTTER) && self->trace)
    cp_painter_gutter (self);
  if (flags & CP_PAINT_RULER)
    cp_painter_ruler (self, step);
  if ((flags & CP_PAINT_HOVER) && self->trace)
    {
      CpSliceRef hov = cp_view_state_get_hovered (view);
      double x, y, w, h;
      gboolean pinned;

      if (!cp_slice_ref_is_none (hov) && cp_painter_find_slice_rect (self, hov, &x, &y, &w, &h, &pinned))
        {
          double top = pinned ? self->lanes_top : self->scroll_top;
          double bottom = pinned ? self->scroll_top : height;

          cairo_save (cr);
          cairo_rectangle (cr, self->gx, top, self->area_w, bottom - top);
          cairo_clip (cr);
          cp_painter_outline_rect (self, x - 1, y - 1, w + 2, h + 2, 1, self->colors->hover);
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
