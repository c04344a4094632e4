/* cp-report-timeline.c: the timeline section: the painter's lanes with evidence and note callouts
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

/* Timeline ---------------------------------------------------------------------- */

static double
time_x (Ctx    *ctx,
        double  left,
        gint64  t)
{
  gint64 t0 = cp_view_state_get_visible_start (ctx->rv);
  gint64 t1 = MAX (cp_view_state_get_visible_end (ctx->rv), t0 + 1);
  double gx = left + cp_timeline_layout_get_metrics (ctx->tl)->gutter_width;
  double area_w = MAX (ctx->inner - cp_timeline_layout_get_metrics (ctx->tl)->gutter_width, 1);

  return gx + (double) (t - t0) * area_w / (double) (t1 - t0);
}

/* The band of a lane in the timeline drawn with its top at `top`; FALSE when
 * it is not drawn. */
static gboolean
lane_band (Ctx    *ctx,
           guint   lane,
           double  top,
           double *y,
           double *h)
{
  gint item = cp_timeline_layout_find_lane (ctx->tl, lane);
  double iy, ih;

  if (item < 0)
    return FALSE;
  if (!cp_timeline_layout_item_rect (ctx->tl, item, 0, ctx->tl_height, &iy, &ih))
    return FALSE;
  if (iy + ih > ctx->tl_height + 0.5)
    return FALSE;
  *y = top + iy;
  *h = ih;
  return TRUE;
}

typedef struct
{
  guint  note;      /* index into the notes */
  double ax, ay;    /* the anchor on the timeline */
  double bx, bw;    /* the callout box */
  gint   row;       /* -1: no room for a box */
} Callout;

static void
place_callouts (Ctx    *ctx,
                double  tl_top,
                GArray *callouts,
                guint  *n_rows)
{
  CpReport *self = ctx->self;
  double row_end[MAX_CALLOUT_ROWS];
  gint64 t0 = cp_view_state_get_visible_start (ctx->rv);
  gint64 t1 = cp_view_state_get_visible_end (ctx->rv);
  double ruler_h = cp_timeline_layout_get_metrics (ctx->tl)->ruler_height;

  for (guint r = 0; r < MAX_CALLOUT_ROWS; r++)
    row_end[r] = -G_MAXDOUBLE;
  *n_rows = 0;

  for (guint i = 0; i < self->notes->len; i++)
    {
      const Note *n = &g_array_index (self->notes, Note, i);
      Callout c = { i, 0, 0, 0, 0, -1 };
      g_autofree char *label = NULL;
      double y, h;

      if (n->end < t0 || n->start > t1)
        continue;
      if (n->lane == CP_ANNOTATION_ALL_LANES)
        c.ay = tl_top + ruler_h - 9;
      else if (lane_band (ctx, n->lane, tl_top, &y, &h))
        c.ay = y + 10;
      else
        continue;
      c.ax = time_x (ctx, ctx->x0, CLAMP (n->start, t0, t1));
      if (n->kind == CP_ANNOTATION_NOTE && n->start < t0)
        c.ax += 10;

      {
        g_autofree char *letter = cp_report_note_letter (i);

        label = g_strdup_printf ("%s  %s", letter, n->title);
      }
      c.bw = MIN (cp_report_text_width (ctx, label, ctx->f_small_bold) + 20, 340);
      c.bx = CLAMP (c.ax - 14, ctx->x0, ctx->x0 + ctx->inner - c.bw);
      for (guint r = 0; r < MAX_CALLOUT_ROWS; r++)
        {
          if (c.bx >= row_end[r] + 8)
            {
              c.row = r;
              row_end[r] = c.bx + c.bw;
              *n_rows = MAX (*n_rows, r + 1);
              break;
            }
        }
      g_array_append_val (callouts, c);
    }
}

void
cp_report_prepare_timeline (Ctx *ctx)
{
  CpReport *self = ctx->self;
  CpTrace *trace = self->trace;
  g_autoptr(GArray) highlights = g_array_new (FALSE, FALSE, sizeof (CpHighlight));
  g_autoptr(GArray) marks = g_array_new (FALSE, FALSE, sizeof (CpMark));
  const CpLayoutMetrics *m;
  double gutter, cap, content;
  g_autoptr(PangoFontDescription) painter_font = pango_font_description_from_string ("Sans 10");

  ctx->painter = cp_painter_new ();
  cp_painter_set_theme (ctx->painter, ctx->theme);
  cp_painter_set_font (ctx->painter, painter_font);
  m = cp_painter_get_metrics (ctx->painter);
  gutter = m->gutter_width;
  if (self->axis_span > 0)
    /* A side of a comparison: its window's share of the shared time scale. */
    ctx->inner = gutter + (ctx->inner - gutter) * (double) (self->end - self->start) / (double) self->axis_span;

  if (self->options.lanes == CP_REPORT_LANES_VISIBLE && self->view != NULL)
    {
      ctx->rv = cp_view_state_copy (self->view);
      cp_view_state_set_selected (ctx->rv, CP_SLICE_REF_NONE);
      cp_view_state_set_hovered (ctx->rv, CP_SLICE_REF_NONE);
      cp_view_state_set_search_matches (ctx->rv, NULL, 0);
      cp_view_state_clear_time_selection (ctx->rv);
    }
  else
    {
      ctx->rv = cp_view_state_new ();
      cp_view_state_set_trace (ctx->rv, trace);
      if (self->view != NULL)
        cp_view_state_set_devices_first (ctx->rv, cp_view_state_get_devices_first (self->view));
      for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
        {
          gboolean show = cp_report_lane_has_content (trace, i, self->start, self->end);

          if (show && self->options.lanes == CP_REPORT_LANES_PATTERN)
            show = cp_report_lane_matches (trace, i, self->lane_pattern);
          if (!show)
            cp_view_state_set_lane_hidden (ctx->rv, i, TRUE);
        }
    }
  cp_view_state_set_vertical_offset (ctx->rv, 0);
  cp_view_state_set_viewport_width (ctx->rv, MAX (ctx->inner - gutter, 1));
  cp_view_state_set_visible_range (ctx->rv, self->start, self->end);

  /* Evidence of the findings listed above info. */
  for (guint i = 0; self->options.findings && i < ctx->findings->len && highlights->len < MAX_HIGHLIGHTS; i++)
    {
      CpFinding *f = g_ptr_array_index (ctx->findings, i);
      const CpEvidence *ev;
      guint n_ev;

      if (cp_finding_get_severity (f) == CP_SEVERITY_INFO)
        continue;
      ev = cp_finding_get_evidence (f, &n_ev);
      for (guint k = 0; k < n_ev && highlights->len < MAX_HIGHLIGHTS; k++)
        {
          CpHighlight hl = { ev[k].lane, ev[k].start, ev[k].end, CP_HIGHLIGHT_FINDING };

          if (ev[k].end >= self->start && ev[k].start <= self->end)
            g_array_append_val (highlights, hl);
        }
    }
  cp_view_state_set_highlights (ctx->rv, CP_HIGHLIGHT_FINDING,
                                (const CpHighlight *) (gpointer) highlights->data, highlights->len);

  /* Annotations: the painter draws their lines and bands; the callouts come
   * on top. */
  for (guint i = 0; i < self->notes->len; i++)
    {
      const Note *n = &g_array_index (self->notes, Note, i);
      CpMark mk = { i + 1, n->lane, CP_SLICE_REF_NONE, n->start, n->end, n->rgba, NULL };

      g_array_append_val (marks, mk);
    }
  cp_view_state_set_marks (ctx->rv, (const CpMark *) (gpointer) marks->data, marks->len);

  ctx->tl = cp_timeline_layout_new (ctx->rv, m);
  cap = MAX (360, MIN (1800, ctx->W * 0.9));
  content = cp_timeline_layout_get_pinned_height (ctx->tl) + cp_timeline_layout_get_content_height (ctx->tl);
  ctx->tl_height = m->ruler_height + MIN (content, cap);
  if (content > cap)
    {
      /* Cut at the last item that fits whole. */
      double fit = 0;

      for (guint i = 0; i < cp_timeline_layout_get_n_items (ctx->tl); i++)
        {
          double iy, ih;

          cp_timeline_layout_item_rect (ctx->tl, i, 0, G_MAXDOUBLE, &iy, &ih);
          if (iy + ih <= m->ruler_height + cap)
            fit = MAX (fit, iy + ih);
          else if (cp_timeline_layout_get_item (ctx->tl, i)->kind == CP_LAYOUT_LANE)
            ctx->lanes_cut++;
        }
      ctx->tl_height = MAX (fit, m->ruler_height + 40);
    }
}

/* Evidence tags: the widest drawn range of each finding listed. */
static void
timeline_evidence_tags (Ctx    *ctx,
                        double  tl_top)
{
  CpReport *self = ctx->self;

  g_array_set_size (self->evidence_spots, 0);
  for (guint i = 0; i < ctx->findings->len; i++)
    {
      CpFinding *f = g_ptr_array_index (ctx->findings, i);
      Spot spot = { FALSE, 0, 0, 0, 0 };
      const CpEvidence *ev;
      guint n_ev;
      gint64 best = -1;
      gint64 t0 = cp_view_state_get_visible_start (ctx->rv);
      gint64 t1 = cp_view_state_get_visible_end (ctx->rv);
      double gx = ctx->x0 + cp_timeline_layout_get_metrics (ctx->tl)->gutter_width;

      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        {
          ev = cp_finding_get_evidence (f, &n_ev);
          for (guint k = 0; k < n_ev; k++)
            {
              gint64 a = MAX (ev[k].start, t0), b = MIN (ev[k].end, t1);
              double ly, lh;

              if (b < a || b - a <= best || !lane_band (ctx, ev[k].lane, tl_top, &ly, &lh))
                continue;
              best = b - a;
              spot.valid = TRUE;
              spot.x = MAX (time_x (ctx, ctx->x0, a), gx);
              spot.w = MAX (time_x (ctx, ctx->x0, b) - spot.x, 1);
              spot.y = ly;
              spot.h = lh;
            }
        }
      g_array_append_val (self->evidence_spots, spot);
      if (spot.valid && self->options.findings)
        {
          g_autofree char *label = g_strdup_printf ("%u", i + 1);

          cp_report_finding_tag (ctx, label, spot.x + 2, spot.y + 2, cp_report_severity_color (cp_finding_get_severity (f),
                                                                                          ctx->theme));
        }
    }
}

double
cp_report_section_timeline (Ctx    *ctx,
                            double  y)
{
  CpReport *self = ctx->self;
  g_autofree char *from = self->start == 0 ? g_strdup ("0") : cp_time_format_duration (self->start);
  g_autofree char *to = cp_time_format_duration (self->end);
  g_autofree char *aside = NULL;
  const CpPaletteColors *pc = cp_palette_get_colors (ctx->theme);

  if (self->start == 0 && self->end >= cp_trace_get_duration (self->trace))
    aside = g_strdup_printf (_("the whole capture, %s – %s"), from, to);
  else
    aside = g_strdup_printf (_("%s – %s from the start of the capture"), from, to);
  y += cp_report_heading (ctx, _("Timeline"), aside, y);

  /* Legend. */
  {
    double x = ctx->x0;

    if (ctx->draw)
      {
        cp_report_set_rgba (ctx->cr, pc->finding_fill);
        cairo_rectangle (ctx->cr, x, y + 3, 22, 12);
        cairo_fill (ctx->cr);
        cp_report_set_rgba (ctx->cr, pc->finding);
        cairo_set_line_width (ctx->cr, 1.5);
        cairo_rectangle (ctx->cr, x + 0.75, y + 3.75, 20.5, 10.5);
        cairo_stroke (ctx->cr);
      }
    x += 28;
    cp_report_text (ctx, _("evidence of a finding (numbered as in Findings)"), ctx->f_small, x, y + 1, -1, ctx->c->dim);
    x += cp_report_text_width (ctx, _("evidence of a finding (numbered as in Findings)"), ctx->f_small) + 24;
    if (self->notes->len > 0)
      {
        cp_report_badge (ctx, 0, x + 9, y + 9, g_array_index (self->notes, Note, 0).rgba);
        x += 24;
        cp_report_text (ctx, _("annotation (lettered as in Notes)"), ctx->f_small, x, y + 1, -1, ctx->c->dim);
      }
    y += 28;
  }
  return cp_report_timeline_body (ctx, y);
}

/* The callouts, the lanes and their evidence from y down. */
double
cp_report_timeline_body (Ctx    *ctx,
                         double  y)
{
  CpReport *self = ctx->self;
  g_autoptr(GArray) callouts = g_array_new (FALSE, FALSE, sizeof (Callout));
  guint n_rows = 0;
  double box_h = 24, band, tl_top;

  /* Callout boxes above the timeline. */
  tl_top = y;   /* provisional, for placing */
  place_callouts (ctx, tl_top, callouts, &n_rows);
  band = n_rows > 0 ? n_rows * (box_h + 8) + 10 : 0;
  tl_top = y + band;
  for (guint i = 0; i < callouts->len; i++)
    g_array_index (callouts, Callout, i).ay += band;

  if (ctx->draw)
    {
      cairo_save (ctx->cr);
      cairo_translate (ctx->cr, ctx->x0, tl_top);
      cairo_rectangle (ctx->cr, 0, 0, ctx->inner, ctx->tl_height);
      cairo_clip (ctx->cr);
      cp_painter_draw (ctx->painter, ctx->cr, ctx->rv, ctx->tl, ctx->inner, ctx->tl_height, CP_PAINT_BASE);
      cairo_restore (ctx->cr);
      cp_report_set_rgba (ctx->cr, ctx->c->border);
      cairo_set_line_width (ctx->cr, 1);
      cairo_rectangle (ctx->cr, ctx->x0 - 0.5, tl_top - 0.5, ctx->inner + 1, ctx->tl_height + 1);
      cairo_stroke (ctx->cr);
    }

  timeline_evidence_tags (ctx, tl_top);

  /* Callouts: a box above, a leader line, a numbered badge at the spot. */
  g_array_set_size (self->note_spots, self->notes->len);
  for (guint i = 0; i < self->notes->len; i++)
    g_array_index (self->note_spots, Spot, i).valid = FALSE;
  for (guint i = 0; i < callouts->len; i++)
    {
      const Callout *c = &g_array_index (callouts, Callout, i);
      const Note *n = &g_array_index (self->notes, Note, c->note);
      Spot *spot = &g_array_index (self->note_spots, Spot, c->note);

      spot->valid = TRUE;
      spot->x = c->ax;
      spot->y = c->ay;
      if (c->row >= 0)
        {
          double by = y + c->row * (box_h + 8);
          g_autofree char *letter = cp_report_note_letter (c->note);
          g_autofree char *label = g_strdup_printf ("%s  %s", letter, n->title);

          if (ctx->draw)
            {
              cairo_set_line_width (ctx->cr, 1.5);
              cp_report_set_rgba (ctx->cr, n->rgba | 0xff);
              cairo_move_to (ctx->cr, floor (c->ax) + 0.5, by + box_h);
              cairo_line_to (ctx->cr, floor (c->ax) + 0.5, c->ay);
              cairo_stroke (ctx->cr);
              cp_report_rounded_rect (ctx->cr, c->bx, by, c->bw, box_h, 5);
              cp_report_set_rgba (ctx->cr, n->rgba | 0xff);
              cairo_fill (ctx->cr);
            }
          cp_report_text_full (ctx, label, FALSE, ctx->f_small_bold, c->bx + 8, by + 4, c->bw - 14,
                               cp_palette_text_on (n->rgba | 0xff), PANGO_ALIGN_LEFT, 1, NULL);
        }
      cp_report_badge (ctx, c->note, c->ax, c->ay, n->rgba);
    }

  y = tl_top + ctx->tl_height + 8;
  if (ctx->lanes_cut > 0)
    {
      g_autofree char *cut = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                           "%u more lane is not shown; choose lanes with a pattern",
                                                           "%u more lanes are not shown; choose lanes with a pattern",
                                                           ctx->lanes_cut),
                                              ctx->lanes_cut);

      y += cp_report_text (ctx, cut, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim) + 4;
    }
  return y + 24;
}
