/* cp-report-draw.c: what every section draws with: text, cards, pills, badges
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <pango/pangocairo.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

/* Drawing context --------------------------------------------------------------- */

void
cp_report_set_rgba (cairo_t *cr,
                    guint32  c)
{
  cairo_set_source_rgba (cr, cp_rgba_r (c), cp_rgba_g (c), cp_rgba_b (c), cp_rgba_a (c));
}

PangoFontDescription *
cp_report_font (const char *family,
                double      px,
                PangoWeight weight)
{
  PangoFontDescription *d = pango_font_description_from_string (family);

  pango_font_description_set_absolute_size (d, px * PANGO_SCALE);
  pango_font_description_set_weight (d, weight);
  return d;
}

/* Lays out cp_report_text (Pango markup when `markup`) in `f`, wrapped at width
 * (unwrapped when width <= 0), at most max_lines lines (0: any); draws it
 * at (x, y) when drawing. Returns its height; its width in *out_w. */
double
cp_report_text_full (Ctx                        *ctx,
                     const char                 *text,
                     gboolean                    markup,
                     const PangoFontDescription *f,
                     double                      x,
                     double                      y,
                     double                      width,
                     guint32                     color,
                     PangoAlignment              align,
                     int                         max_lines,
                     double                     *out_w)
{
  PangoLayout *l = ctx->layout;
  int w, h;

  pango_layout_set_attributes (l, NULL);
  pango_layout_set_font_description (l, f);
  pango_layout_set_alignment (l, align);
  pango_layout_set_wrap (l, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_width (l, width > 0 ? (int) (width * PANGO_SCALE) : -1);
  if (max_lines > 0)
    {
      pango_layout_set_height (l, -max_lines);
      pango_layout_set_ellipsize (l, PANGO_ELLIPSIZE_END);
    }
  else
    {
      pango_layout_set_height (l, -1);
      pango_layout_set_ellipsize (l, PANGO_ELLIPSIZE_NONE);
    }
  if (markup)
    pango_layout_set_markup (l, text, -1);
  else
    pango_layout_set_text (l, text, -1);
  if (ctx->text != NULL)
    {
      g_string_append (ctx->text, pango_layout_get_text (l));
      g_string_append_c (ctx->text, '\n');
    }
  pango_layout_get_pixel_size (l, &w, &h);
  if (ctx->draw)
    {
      cp_report_set_rgba (ctx->cr, color);
      cairo_move_to (ctx->cr, x, y);
      pango_cairo_show_layout (ctx->cr, l);
    }
  if (out_w)
    *out_w = w;
  return h;
}

double
cp_report_text (Ctx                        *ctx,
                const char                 *str,
                const PangoFontDescription *f,
                double                      x,
                double                      y,
                double                      width,
                guint32                     color)
{
  return cp_report_text_full (ctx, str, FALSE, f, x, y, width, color, PANGO_ALIGN_LEFT, 0, NULL);
}

double
cp_report_text_width (Ctx                        *ctx,
                      const char                 *str,
                      const PangoFontDescription *f)
{
  gboolean draw = ctx->draw;
  double w;

  ctx->draw = FALSE;
  cp_report_text_full (ctx, str, FALSE, f, 0, 0, -1, 0, PANGO_ALIGN_LEFT, 0, &w);
  ctx->draw = draw;
  return w;
}

void
cp_report_rounded_rect (cairo_t *cr,
                        double   x,
                        double   y,
                        double   w,
                        double   h,
                        double   r)
{
  r = MIN (r, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

void
cp_report_card (Ctx    *ctx,
                double  x,
                double  y,
                double  w,
                double  h,
                guint32 stripe)
{
  if (!ctx->draw)
    return;
  cp_report_rounded_rect (ctx->cr, x, y, w, h, 8);
  cp_report_set_rgba (ctx->cr, ctx->c->card);
  cairo_fill_preserve (ctx->cr);
  cp_report_set_rgba (ctx->cr, ctx->c->border);
  cairo_set_line_width (ctx->cr, 1);
  cairo_stroke (ctx->cr);
  if (stripe != 0)
    {
      cairo_save (ctx->cr);
      cp_report_rounded_rect (ctx->cr, x, y, w, h, 8);
      cairo_clip (ctx->cr);
      cp_report_set_rgba (ctx->cr, stripe);
      cairo_rectangle (ctx->cr, x, y, 5, h);
      cairo_fill (ctx->cr);
      cairo_restore (ctx->cr);
    }
}

/* A coloured label with text, round-ended (a pill) or square-cornered (a
 * finding's number tag); returns its width. */
static double
label_box (Ctx        *ctx,
           const char *label,
           double      x,
           double      y,
           guint32     fill,
           gboolean    round)
{
  double w = MAX (cp_report_text_width (ctx, label, ctx->f_small_bold) + 14, 20);
  double h = 20;

  if (ctx->draw)
    {
      cp_report_rounded_rect (ctx->cr, x, y, w, h, round ? h / 2 : 3);
      cp_report_set_rgba (ctx->cr, fill | 0xff);
      cairo_fill (ctx->cr);
    }
  cp_report_text_full (ctx, label, FALSE, ctx->f_small_bold, x + (w - cp_report_text_width (ctx, label, ctx->f_small_bold)) / 2,
                       y + 2, -1, cp_palette_text_on (fill | 0xff), PANGO_ALIGN_LEFT, 0, NULL);
  return w;
}

double
cp_report_pill (Ctx        *ctx,
                const char *label,
                double      x,
                double      y,
                guint32     fill)
{
  return label_box (ctx, label, x, y, fill, TRUE);
}

/* A finding's number, as on the timeline and in the list. */
double
cp_report_finding_tag (Ctx        *ctx,
                       const char *label,
                       double      x,
                       double      y,
                       guint32     fill)
{
  return label_box (ctx, label, x, y, fill, FALSE);
}

/* Notes are lettered (A, B, ... Z, AA, AB...) so that they never read as
 * the findings' numbers. */
char *
cp_report_note_letter (guint index)
{
  if (index < 26)
    return g_strdup_printf ("%c", 'A' + index);
  return g_strdup_printf ("%c%c", 'A' + (index / 26 - 1) % 26, 'A' + index % 26);
}

/* A lettered disc centred at (cx, cy) for the index-th note. */
void
cp_report_badge (Ctx    *ctx,
                 guint   index,
                 double  cx,
                 double  cy,
                 guint32 fill)
{
  g_autofree char *label = cp_report_note_letter (index);
  double r = 9, tw;

  if (!ctx->draw)
    return;
  tw = cp_report_text_width (ctx, label, ctx->f_small_bold);
  r = MAX (r, tw / 2 + 4);
  cairo_arc (ctx->cr, cx, cy, r + 1.5, 0, 2 * G_PI);
  cp_report_set_rgba (ctx->cr, ctx->theme == CP_THEME_DARK ? 0x000000cc : 0xffffffee);
  cairo_fill (ctx->cr);
  cairo_arc (ctx->cr, cx, cy, r, 0, 2 * G_PI);
  cp_report_set_rgba (ctx->cr, fill | 0xff);
  cairo_fill (ctx->cr);
  cp_report_text_full (ctx, label, FALSE, ctx->f_small_bold, cx - tw / 2, cy - 8, -1,
                       cp_palette_text_on (fill | 0xff), PANGO_ALIGN_LEFT, 0, NULL);
}

double
cp_report_heading (Ctx        *ctx,
                   const char *title,
                   const char *aside,
                   double      y)
{
  double h = cp_report_text (ctx, title, ctx->f_h2, ctx->x0, y, -1, ctx->c->text);

  if (aside != NULL)
    {
      double tw = cp_report_text_width (ctx, title, ctx->f_h2);

      cp_report_text_full (ctx, aside, FALSE, ctx->f_body, ctx->x0 + tw + 12, y + 4,
                           ctx->inner - tw - 12, ctx->c->dim, PANGO_ALIGN_LEFT, 1, NULL);
    }
  return h + 10;
}

char *
cp_report_format_date (gint64 unix_seconds,
                       gboolean seconds)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (unix_seconds);

  if (dt == NULL)
    return g_strdup ("?");
  return g_date_time_format (dt, seconds ? "%Y-%m-%d %H:%M:%S UTC" : "%Y-%m-%d %H:%M UTC");
}

char *
cp_report_format_percent (double v)
{
  if (isnan (v))
    return g_strdup ("—");
  if (v > 0 && v < 1)
    return g_strdup_printf ("%.1f%%", v);
  return g_strdup_printf ("%.0f%%", v);
}
