/* cp-painter-flows.c: the flows layer: arrows between slices
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

void
cp_painter_flows (CpPainter *self)
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
