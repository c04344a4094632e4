/* cp-painter-ruler.c: the edges: the lane gutter and the time ruler
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cp-lod.h"
#include "cp-painter.h"
#include "cp-time-format.h"
#include "cp-painter-private.h"

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
      lw = cp_painter_text (self, label, self->bold_font, pad + 14, y, gw - pad - 20, item->height,
                            self->colors->text);
      if (item->n_hidden > 0 && lw + pad + 14 + 40 < gw)
        {
          g_autofree char *hidden = g_strdup_printf (_("(%u hidden)"), item->n_hidden);

          cp_painter_text (self, hidden, self->font, pad + 14 + lw + 6, y,
                           gw - (pad + 14 + lw + 6) - 6, item->height, self->colors->dim_text);
        }
    }
  else if (item->kind == CP_LAYOUT_MEMORY)
    {
      const CpMemoryTrack *t = cp_memory_get_track (cp_trace_get_memory_events (self->trace), item->lane);
      double text_y = y + self->m->lane_padding;
      double lh = self->m->row_height;
      gint64 peak = 0;

      for (guint k = 0; k < t->n_events; k++)
        peak = MAX (peak, MAX (t->events[k].allocated, t->events[k].reserved));
      cp_painter_text (self, label, self->font, pad + 14, text_y, gw - pad - 20, lh, self->colors->text);
      {
        g_autofree char *size = g_format_size_full (peak, G_FORMAT_SIZE_IEC_UNITS);
        /* Translators: the highest memory of a device's memory track, "peak 2.4 GiB". */
        g_autofree char *text = g_strdup_printf (_("peak %s"), size);

        cp_painter_text (self, text, self->font, pad + 14, text_y + lh, gw - pad - 20, lh, self->colors->dim_text);
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
      cp_painter_text (self, label, self->font, x, text_y, gw - x - 6, lh, self->colors->text);
      if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        {
          double vmin, vmax;

          if (cp_lod_counter_range (self->lod, item->lane, &vmin, &vmax))
            {
              g_autofree char *value = format_value (vmax);
              /* Translators: the largest value of a counter, "max 604k". */
              g_autofree char *range = g_strdup_printf (_("max %s"), value);

              cp_painter_text (self, range, self->font, x, text_y + lh, gw - x - 6, lh, self->colors->dim_text);
            }
        }
    }
  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, 0, floor (y + item->height) - 1, gw, 1);
  cairo_fill (cr);
}

void
cp_painter_gutter (CpPainter *self)
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
  cp_painter_for_each_visible (self, FALSE, gutter_item);
  cairo_restore (cr);

  if (pinned_h > 0)
    {
      cairo_save (cr);
      cairo_rectangle (cr, 0, self->lanes_top, gw, pinned_h);
      cairo_clip (cr);
      cp_painter_for_each_visible (self, TRUE, gutter_item);
      cairo_restore (cr);
    }
  cairo_restore (cr);

  /* The gutter's edge. */
  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, gw - 1, self->lanes_top, 1, self->height - self->lanes_top);
  cairo_fill (cr);
}

/* Ruler */

gint64
cp_painter_pick_ruler_step (CpPainter *self)
{
  gint64 step = cp_time_pick_step (self->ns_per_px, 64);

  /* Make room for the longest label at this step. */
  for (guint tries = 0; tries < 4; tries++)
    {
      g_autofree char *sample = cp_time_format_tick (self->t1 - self->t1 % step, step, self->t1);
      double need = cp_painter_text_width (self, sample) + 16;

      if ((double) step * self->px_per_ns >= need)
        break;
      step = cp_time_pick_step (self->ns_per_px, need);
    }
  return step;
}

/* A mark across every lane: a flag on the ruler with its label. */
static void
paint_ruler_mark (CpPainter    *self,
                  const CpMark *mark,
                  gint64        step)
{
  cairo_t *cr = self->cr;
  double rh = self->m->ruler_height;
  guint32 color = mark->rgba ? mark->rgba : self->colors->note;
  double x;

  if (!cp_slice_ref_is_none (mark->slice) || mark->lane != CP_LANE_ALL ||
      mark->start < self->t0 || mark->start > self->t1)
    return;
  x = floor (time_x (self, mark->start));
  set_rgba (cr, color | 0xff);
  cairo_move_to (cr, x - 5, rh - 10);
  cairo_line_to (cr, x + 5, rh - 10);
  cairo_line_to (cr, x, rh);
  cairo_close_path (cr);
  cairo_fill (cr);
  if (mark->label && *mark->label)
    {
      double tw = MIN (cp_painter_text_width (self, mark->label) + 8, 200);
      double lx = x + 6;

      /* The ruler's ticks and times stay in sight. The label goes in
       * a gap between them: right of the flag up to the next tick,
       * left of it back to the time written after the tick before, or
       * past the next tick's time; cut with an ellipsis when no gap
       * holds it. With no gap of 40 px, the flag is alone (the Notes
       * pane lists the note). */
      gint64 prev_t = mark->start / step * step;
      g_autofree char *prev_label = cp_time_format_tick (prev_t, step, self->t1);
      g_autofree char *next_label = cp_time_format_tick (prev_t + step, step, self->t1);
      double prev_end = floor (time_x (self, prev_t)) + 4 + cp_painter_text_width (self, prev_label) + 2;
      double next_tick = floor (time_x (self, prev_t + step));
      double next_end = next_tick + 4 + cp_painter_text_width (self, next_label) + 2;
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
        return;
      tw = MIN (tw, gaps[best][1] - gaps[best][0]);
      /* Left of the flag, the label ends at it. */
      lx = best == 1 ? gaps[best][1] - tw : gaps[best][0];
      set_rgba (cr, color | 0xff);
      /* Above the minor ticks, which start 5 px from the bottom. */
      cairo_rectangle (cr, lx, rh - self->text_height - 6, tw, self->text_height + 1);
      cairo_fill (cr);
      cp_painter_text (self, mark->label, self->font, lx + 4, rh - self->text_height - 5, tw - 8,
                       self->text_height, cp_palette_text_on (color | 0xff));
    }
}

void
cp_painter_ruler (CpPainter *self,
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
      for (gint64 t = first_tick (self, minor); t <= self->t1; t += minor)
        cairo_rectangle (cr, floor (time_x (self, t)), rh - 5, 1, 5);
    }
  for (gint64 t = first_tick (self, step); t <= self->t1; t += step)
    cairo_rectangle (cr, floor (time_x (self, t)), rh * 0.35, 1, rh * 0.65);
  cairo_fill (cr);

  /* Marks across every lane: a flag on the ruler with the label. */
  {
    guint n;
    const CpMark *marks = cp_view_state_get_marks (self->view, &n);

    for (guint i = 0; i < n; i++)
      paint_ruler_mark (self, &marks[i], step);
  }

  for (gint64 t = first_tick (self, step); t <= self->t1; t += step)
    {
      g_autofree char *label = NULL;

      /* A tick left of the area would show a clipped label. */
      if (time_x (self, t) < self->gx)
        continue;
      label = cp_time_format_tick (t - cp_view_state_get_ruler_origin (self->view), step,
                                   self->t1 - cp_view_state_get_ruler_origin (self->view));

      cp_painter_text (self, label, self->font, floor (time_x (self, t)) + 4, 0, -1, rh * 0.6,
                       self->colors->dim_text);
    }

  /* The duration of the selected range, over the ticks. */
  if (cp_view_state_get_time_selection (self->view, &a, &b) && b >= self->t0 && a <= self->t1)
    {
      double x0 = MAX (time_x (self, a), self->gx), x1 = MIN (time_x (self, b), self->gx + self->area_w);
      g_autofree char *dur = cp_time_format_duration (b - a);
      double tw = cp_painter_text_width (self, dur) + 10;
      double cx = CLAMP ((x0 + x1) / 2, self->gx + tw / 2, self->gx + self->area_w - tw / 2);

      set_rgba (cr, self->colors->accent);
      cairo_rectangle (cr, floor (x0), 0, 1, rh);
      cairo_rectangle (cr, floor (x1), 0, 1, rh);
      cairo_fill (cr);
      cairo_rectangle (cr, floor (cx - tw / 2), rh - self->text_height - 4, tw, self->text_height + 2);
      cairo_fill (cr);
      cp_painter_text (self, dur, self->bold_font, floor (cx - tw / 2) + 5, rh - self->text_height - 3,
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
    cp_painter_text (self, text, self->font, 8, 0, self->gx - 16, rh, self->colors->dim_text);
  }

  set_rgba (cr, self->colors->separator);
  cairo_rectangle (cr, 0, rh - 1, self->width, 1);
  cairo_fill (cr);
}
