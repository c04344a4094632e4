/* cp-painter-overlays.c: the overlays layer: selection, evidence highlights, search hits, marks
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "cp-lod.h"
#include "cp-painter.h"
#include "cp-time-format.h"
#include "cp-painter-private.h"

/* Overlays */

gboolean
cp_painter_find_slice_rect (CpPainter  *self,
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

void
cp_painter_outline_rect (CpPainter *self,
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

void
cp_painter_selection (CpPainter *self,
                      gboolean   pinned_area)
{
  double x, y, w, h;
  gboolean pinned;
  CpSliceRef sel = cp_view_state_get_selected (self->view);

  if (cp_slice_ref_is_none (sel) || !cp_painter_find_slice_rect (self, sel, &x, &y, &w, &h, &pinned) || pinned != pinned_area)
    return;
  /* An accent ring with a thin ring of the background inside, readable on
   * any slice colour. */
  cp_painter_outline_rect (self, x - 2, y - 2, w + 4, h + 4, 2, self->colors->accent);
  cp_painter_outline_rect (self, x, y, w, h, 1, self->colors->background);
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

void
cp_painter_highlights (CpPainter *self,
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
      cp_painter_outline_rect (self, x0, y, x1 - x0, h, 1.5, line);
    }
}

void
cp_painter_search (CpPainter *self,
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

void
cp_painter_marks (CpPainter *self,
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
          double tw = MIN (cp_painter_text_width (self, mk->label) + 8, 240);

          set_rgba (cr, color | 0xff);
          cairo_rectangle (cr, floor (x0) + 1, y, tw, self->text_height + 2);
          cairo_fill (cr);
          cp_painter_text (self, mk->label, self->font, floor (x0) + 5, y + 1, tw - 8,
                           self->text_height, cp_palette_text_on (color | 0xff));
        }
    }
}

void
cp_painter_time_selection (CpPainter *self,
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
