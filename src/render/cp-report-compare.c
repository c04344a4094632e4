/* cp-report-compare.c: the report of two captures: step time A → B, its
 * waterfall, both timelines on one time scale, the kernels that changed
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

#define ROW_H      26.0
#define LABEL_W   250.0
#define VALUE_W   130.0

/* "+1.23 ms", "−850 ns", "±0". */
static char *
signed_duration (gint64 ns)
{
  g_autofree char *abs = NULL;

  if (ns == 0)
    return g_strdup ("±0");
  abs = cp_time_format_duration (ns < 0 ? -ns : ns);
  return g_strdup_printf ("%s%s", ns < 0 ? "−" : "+", abs);
}

static const char *
side_title (CpComparison *c,
            guint         side)
{
  CpAnalysis *a = side == 0 ? cp_comparison_get_a (c) : cp_comparison_get_b (c);
  const char *title = cp_trace_get_title (cp_analysis_get_trace (a));

  return title != NULL && *title != '\0' ? title : (side == 0 ? "A" : "B");
}

/* The report of one side's timeline: from the start of its typical step
 * (or of the capture, without steps) for span, on a scale of span. */
static CpReport *
side_report (CpAnalysis             *analysis,
             gint                    typical,
             gint64                  span,
             const CpReportOptions  *options,
             GError                **error)
{
  CpTrace *trace = cp_analysis_get_trace (analysis);
  gint64 duration = MAX (cp_trace_get_duration (trace), 1);
  CpReportOptions o = *options;
  CpReport *r;

  o.range = CP_REPORT_RANGE_CUSTOM;
  o.start = 0;
  if (typical >= 0)
    {
      guint n;
      const CpStepStats *steps = cp_analysis_get_steps (analysis, &n);

      o.start = CLAMP (steps[typical].start, 0, duration - 1);
    }
  o.end = o.start + MAX (span, 1);
  o.lanes = CP_REPORT_LANES_ALL;
  o.lane_pattern = NULL;
  o.findings = FALSE;
  o.steps = FALSE;
  o.annotations = FALSE;
  r = cp_report_new (trace, analysis, NULL, NULL, &o, error);
  if (r != NULL)
    r->axis_span = MAX (span, 1);
  return r;
}

static gint64
typical_duration (CpComparison *c,
                  guint         side)
{
  CpAnalysis *a = side == 0 ? cp_comparison_get_a (c) : cp_comparison_get_b (c);
  gint typical = cp_comparison_get_typical_step (c, side);
  guint n;
  const CpStepStats *steps = cp_analysis_get_steps (a, &n);

  if (typical < 0)
    return cp_trace_get_duration (cp_analysis_get_trace (a));
  return steps[typical].end - steps[typical].start;
}

CpReport *
cp_report_new_compare (CpComparison           *comparison,
                       const CpReportOptions  *options,
                       GError                **error)
{
  g_autoptr(CpReport) self = NULL;
  CpReportOptions o;
  CpAnalysis *a, *b;
  gint64 span;

  g_return_val_if_fail (CP_IS_COMPARISON (comparison), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (!cp_comparison_check (comparison, error))
    return NULL;

  a = cp_comparison_get_a (comparison);
  b = cp_comparison_get_b (comparison);
  o = *options;
  o.range = CP_REPORT_RANGE_ALL;
  o.lanes = CP_REPORT_LANES_ALL;
  o.lane_pattern = NULL;
  o.findings = FALSE;
  o.steps = FALSE;
  o.annotations = FALSE;
  self = cp_report_new (cp_analysis_get_trace (a), a, NULL, NULL, &o, error);
  if (self == NULL)
    return NULL;
  self->comparison = g_object_ref (comparison);

  /* One scale: the longer typical step. */
  span = MAX (typical_duration (comparison, 0), typical_duration (comparison, 1));
  o.generated = self->options.generated;
  self->side[0] = side_report (a, cp_comparison_get_typical_step (comparison, 0), span, &o, error);
  if (self->side[0] == NULL)
    return NULL;
  self->side[1] = side_report (b, cp_comparison_get_typical_step (comparison, 1), span, &o, error);
  if (self->side[1] == NULL)
    return NULL;
  self->start = 0;
  self->end = MAX (span, 1);
  return g_steal_pointer (&self);
}

const CpReportBar *
cp_report_get_waterfall (CpReport *self,
                         guint    *n_bars)
{
  g_return_val_if_fail (CP_IS_REPORT (self), NULL);

  if (n_bars)
    *n_bars = self->waterfall->len;
  return (const CpReportBar *) (gpointer) self->waterfall->data;
}

const CpReportChange *
cp_report_get_changes (CpReport *self,
                       guint    *n_changes)
{
  g_return_val_if_fail (CP_IS_REPORT (self), NULL);

  if (n_changes)
    *n_changes = self->changes->len;
  return (const CpReportChange *) (gpointer) self->changes->data;
}

gboolean
cp_report_get_compare_window (CpReport *self,
                              guint     side,
                              gint64   *start,
                              gint64   *end)
{
  g_return_val_if_fail (CP_IS_REPORT (self), FALSE);

  if (self->comparison == NULL || side > 1)
    return FALSE;
  if (start)
    *start = self->side[side]->start;
  if (end)
    *end = self->side[side]->end;
  return TRUE;
}

/* Sections ------------------------------------------------------------------------ */

static double
compare_header (Ctx    *ctx,
                double  y)
{
  CpReport *self = ctx->self;
  CpComparison *c = self->comparison;
  g_autofree char *generated = cp_report_format_date (self->options.generated, FALSE);
  g_autofree char *gen_line = g_strdup_printf (_("Generated %s"), generated);
  g_autofree char *title = NULL;
  guint n_a, n_b;

  cp_report_text (ctx, _("CHOKEPOINT COMPARISON"), ctx->f_small_bold, ctx->x0, y, -1, ctx->c->accent);
  cp_report_text (ctx, gen_line, ctx->f_small, ctx->x0 + ctx->inner - cp_report_text_width (ctx, gen_line, ctx->f_small), y, -1,
                  ctx->c->dim);
  y += 22;

  if (self->title != NULL)
    title = g_strdup (self->title);
  else
    /* Translators: the report's title: capture A, then capture B. */
    title = g_strdup_printf (_("%s → %s"), side_title (c, 0), side_title (c, 1));
  y += cp_report_text_full (ctx, title, FALSE, ctx->f_title, ctx->x0, y, ctx->inner, ctx->c->text,
                            PANGO_ALIGN_LEFT, 2, NULL) + 6;

  cp_comparison_get_n_steps (c, &n_a, &n_b);
  for (guint side = 0; side < 2; side++)
    {
      guint n = side == 0 ? n_a : n_b;
      g_autofree char *steps = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step", "%u steps", n), n);
      g_autofree char *line = NULL;

      if (side == 0)
        /* Translators: capture A's name and its number of steps. */
        line = g_strdup_printf (_("A (before): %s, %s"), side_title (c, 0), steps);
      else
        /* Translators: capture B's name and its number of steps. */
        line = g_strdup_printf (_("B (after): %s, %s"), side_title (c, 1), steps);
      y += cp_report_text_full (ctx, line, FALSE, ctx->f_body, ctx->x0, y, ctx->inner, ctx->c->dim,
                                PANGO_ALIGN_LEFT, 1, NULL) + 2;
    }
  return y + 16;
}

static double
compare_headline (Ctx    *ctx,
                  double  y)
{
  CpComparison *c = ctx->self->comparison;
  const char * const *notes = cp_comparison_get_notes (c);
  gint64 mean_a, mean_b, delta;
  double percent, w;
  g_autofree char *ta = NULL, *tb = NULL, *value = NULL, *change = NULL, *d = NULL;
  guint32 color;

  cp_comparison_get_step_time (c, &mean_a, &mean_b, &delta, &percent);
  ta = cp_time_format_duration (mean_a);
  tb = cp_time_format_duration (mean_b);
  d = signed_duration (delta);
  cp_report_text (ctx, _("Mean step time"), ctx->f_small_bold, ctx->x0, y, -1, ctx->c->dim);
  y += 20;
  value = g_strdup_printf ("%s → %s", ta, tb);
  cp_report_text_full (ctx, value, FALSE, ctx->f_value, ctx->x0, y, -1, ctx->c->text, PANGO_ALIGN_LEFT, 1, &w);
  if (isnan (percent))
    change = g_strdup (d);
  else
    change = g_strdup_printf ("%s (%s%.1f %%)", d, percent < 0 ? "−" : "+", fabs (percent));
  color = delta > 0 ? ctx->c->high : delta < 0 ? ctx->c->ok : ctx->c->dim;
  cp_report_text (ctx, change, ctx->f_h2, ctx->x0 + w + 20, y + 8, -1, color);
  y += 44;
  for (guint i = 0; notes != NULL && notes[i] != NULL; i++)
    y += cp_report_text (ctx, notes[i], ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim) + 2;
  return y + 20;
}

static void
add_bar (CpReport   *self,
         const char *label,
         gint        category,
         gint64      value,
         gint64      from,
         gint64      to)
{
  CpReportBar bar = { g_intern_string (label), category, value, from, to, 0, 0 };

  g_array_append_val (self->waterfall, bar);
}

static double
compare_waterfall (Ctx    *ctx,
                   double  y)
{
  CpReport *self = ctx->self;
  CpComparison *c = self->comparison;
  const CpCompareItem *items[CP_TIME_N_CATEGORIES];
  guint n = cp_comparison_explain (c, items);
  gint64 mean_a, mean_b, run, lo = 0, hi = 1;
  double bx = ctx->x0 + LABEL_W, bw = MAX (ctx->inner - LABEL_W - VALUE_W - 12, 40);

  cp_comparison_get_step_time (c, &mean_a, &mean_b, NULL, NULL);
  y += cp_report_heading (ctx, _("What changed the step time"),
                          _("categories of the step, per step, largest change first"), y);

  g_array_set_size (self->waterfall, 0);
  add_bar (self, _("Step time of A"), -1, mean_a, 0, mean_a);
  run = mean_a;
  for (guint i = 0; i < n; i++)
    {
      add_bar (self, cp_time_category_get_label (items[i]->id), items[i]->id, items[i]->delta,
               run, run + items[i]->delta);
      run += items[i]->delta;
    }
  add_bar (self, _("Step time of B"), -1, mean_b, 0, mean_b);

  {
    /* The scale spans the running sums; when they differ little against
     * the step time it starts above 0 (the step times' bars are cut, with
     * a mark), so that the changes show. */
    gint64 rmin = G_MAXINT64, rmax = G_MININT64;

    for (guint i = 0; i < self->waterfall->len; i++)
      {
        const CpReportBar *bar = &g_array_index (self->waterfall, CpReportBar, i);

        if (bar->category < 0)
          {
            rmin = MIN (rmin, bar->to);
            rmax = MAX (rmax, bar->to);
          }
        else
          {
            rmin = MIN (rmin, MIN (bar->from, bar->to));
            rmax = MAX (rmax, MAX (bar->from, bar->to));
          }
      }
    lo = MIN (0, rmin);
    hi = MAX (rmax, lo + 1);
    if (rmin > 0 && rmin - 3 * (rmax - rmin) > rmax / 4)
      lo = rmin - 3 * (rmax - rmin);
  }

  for (guint i = 0; i < self->waterfall->len; i++)
    {
      CpReportBar *bar = &g_array_index (self->waterfall, CpReportBar, i);
      gint64 a = MAX (MIN (bar->from, bar->to), lo), b = MAX (bar->from, bar->to);
      g_autofree char *value = bar->category < 0 ? cp_time_format_duration (bar->value)
                                                 : signed_duration (bar->value);
      guint32 fill = bar->category < 0 ? ctx->c->accent : bar->value > 0 ? ctx->c->high : ctx->c->ok;
      gboolean total = bar->category < 0;

      bar->x0 = bx + (double) (a - lo) * bw / (double) (hi - lo);
      bar->x1 = bx + (double) (b - lo) * bw / (double) (hi - lo);
      cp_report_text_full (ctx, bar->label, FALSE, total ? ctx->f_body_bold : ctx->f_body, ctx->x0, y + 3,
                           LABEL_W - 12, ctx->c->text, PANGO_ALIGN_LEFT, 1, NULL);
      cp_report_text_full (ctx, value, FALSE, total ? ctx->f_body_bold : ctx->f_body, ctx->x0 + ctx->inner - VALUE_W,
                           y + 3, VALUE_W, total ? ctx->c->text : fill, PANGO_ALIGN_RIGHT, 1, NULL);
      if (ctx->draw)
        {
          cp_report_set_rgba (ctx->cr, fill);
          cairo_rectangle (ctx->cr, bar->x0, y + 4, MAX (bar->x1 - bar->x0, 1.5), ROW_H - 8);
          cairo_fill (ctx->cr);
          if (MIN (bar->from, bar->to) < lo)
            {
              /* Cut: a break at the left end. */
              cp_report_set_rgba (ctx->cr, ctx->c->page);
              cairo_set_line_width (ctx->cr, 3);
              cairo_move_to (ctx->cr, bar->x0 + 6, y + 2);
              cairo_line_to (ctx->cr, bar->x0 + 2, y + ROW_H - 2);
              cairo_move_to (ctx->cr, bar->x0 + 12, y + 2);
              cairo_line_to (ctx->cr, bar->x0 + 8, y + ROW_H - 2);
              cairo_stroke (ctx->cr);
            }
          /* The running sum carries on to the next bar. */
          if (i + 1 < self->waterfall->len)
            {
              double xr = bx + (double) (bar->to - lo) * bw / (double) (hi - lo);
              static const double dash[] = { 3, 3 };

              cp_report_set_rgba (ctx->cr, ctx->c->dim);
              cairo_set_line_width (ctx->cr, 1);
              cairo_set_dash (ctx->cr, dash, G_N_ELEMENTS (dash), 0);
              cairo_move_to (ctx->cr, floor (xr) + 0.5, y + ROW_H - 4);
              cairo_line_to (ctx->cr, floor (xr) + 0.5, y + ROW_H + 4);
              cairo_stroke (ctx->cr);
              cairo_set_dash (ctx->cr, NULL, 0, 0);
            }
        }
      y += ROW_H;
    }
  if (lo > 0)
    {
      g_autofree char *from = cp_time_format_duration (lo);
      g_autofree char *note = g_strdup_printf (_("The scale starts at %s so that the changes show."), from);

      y += 4 + cp_report_text (ctx, note, ctx->f_small, bx, y + 4, bw, ctx->c->dim);
    }
  return y + 24;
}

static double
compare_timelines (Ctx    *ctx,
                   double  y)
{
  CpReport *self = ctx->self;
  CpComparison *c = self->comparison;
  g_autofree char *span = cp_time_format_duration (self->end - self->start);
  g_autofree char *aside = g_strdup_printf (_("one time scale, %s across"), span);

  y += cp_report_heading (ctx, _("Timelines, aligned at the typical step"), aside, y);
  for (guint side = 0; side < 2; side++)
    {
      Ctx *sc = ctx->side[side];
      CpAnalysis *an = side == 0 ? cp_comparison_get_a (c) : cp_comparison_get_b (c);
      gint typical = cp_comparison_get_typical_step (c, side);
      g_autofree char *from = cp_time_format_offset (self->side[side]->start);
      g_autofree char *line = NULL;

      if (typical >= 0)
        {
          guint n;
          const CpStepStats *st = &cp_analysis_get_steps (an, &n)[typical];
          g_autofree char *dur = cp_time_format_duration (st->end - st->start);
          g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT, st->number);

          /* Translators: the capture, its typical step's number and
           * duration, and where the step starts in the capture. */
          line = g_strdup_printf (side == 0 ? _("A: %s, step %s (%s), from %s")
                                            : _("B: %s, step %s (%s), from %s"),
                                  side_title (c, side), number, dur, from);
        }
      else
        line = g_strdup_printf (side == 0 ? _("A: %s, no steps: from the start of the capture")
                                          : _("B: %s, no steps: from the start of the capture"),
                                side_title (c, side));
      y += cp_report_text_full (ctx, line, FALSE, ctx->f_body_bold, ctx->x0, y, ctx->inner, ctx->c->text,
                                PANGO_ALIGN_LEFT, 1, NULL) + 8;

      sc->cr = ctx->cr;
      sc->draw = ctx->draw;
      sc->text = ctx->text;
      pango_cairo_update_context (ctx->cr, sc->pango);
      y = cp_report_timeline_body (sc, y);
      sc->cr = NULL;
      sc->text = NULL;
    }
  return y;
}

static double
compare_changes (Ctx    *ctx,
                 double  y)
{
  CpReport *self = ctx->self;
  CpComparison *c = self->comparison;
  guint n;
  const CpCompareItem *items = cp_comparison_get_kernels (c, &n);
  double name_w = ctx->inner - 3 * VALUE_W;
  const char *heads[3] = { _("A per step"), _("B per step"), _("Change") };

  g_array_set_size (self->changes, 0);
  y += cp_report_heading (ctx, _("Kernels that changed most"),
                          cp_comparison_get_kernel_key (c) == CP_COMPARE_KERNELS_BY_OP ? _("grouped by the op that launched them")
                                                                                      : _("matched by name"), y);
  if (n == 0)
    {
      y += cp_report_text (ctx, _("Neither capture has kernels."), ctx->f_body, ctx->x0, y, ctx->inner, ctx->c->dim);
      return y + 24;
    }

  cp_report_text (ctx, _("Kernel"), ctx->f_small_bold, ctx->x0, y, name_w, ctx->c->dim);
  for (guint k = 0; k < 3; k++)
    cp_report_text_full (ctx, heads[k], FALSE, ctx->f_small_bold, ctx->x0 + name_w + k * VALUE_W, y, VALUE_W,
                         ctx->c->dim, PANGO_ALIGN_RIGHT, 1, NULL);
  y += 22;

  for (guint i = 0; i < n && i < CP_REPORT_MAX_CHANGES; i++)
    {
      const CpCompareItem *it = &items[i];
      CpReportChange ch = { it->key, it->side, it->a.per_step, it->b.per_step, it->delta };
      g_autofree char *va = it->side == CP_COMPARE_ONLY_B ? g_strdup ("—") : cp_time_format_duration (it->a.per_step);
      g_autofree char *vb = it->side == CP_COMPARE_ONLY_A ? g_strdup ("—") : cp_time_format_duration (it->b.per_step);
      g_autofree char *vd = signed_duration (it->delta);
      const char *name = it->name_b != NULL ? it->name_b : it->name_a != NULL ? it->name_a : it->key;

      g_array_append_val (self->changes, ch);
      if (ctx->draw && i % 2 == 1)
        {
          cp_report_set_rgba (ctx->cr, ctx->c->card);
          cairo_rectangle (ctx->cr, ctx->x0 - 6, y - 3, ctx->inner + 12, ROW_H);
          cairo_fill (ctx->cr);
        }
      cp_report_text_full (ctx, name, FALSE, ctx->f_body, ctx->x0, y, name_w - 12, ctx->c->text, PANGO_ALIGN_LEFT, 1, NULL);
      cp_report_text_full (ctx, va, FALSE, ctx->f_body, ctx->x0 + name_w, y, VALUE_W, ctx->c->text, PANGO_ALIGN_RIGHT, 1, NULL);
      cp_report_text_full (ctx, vb, FALSE, ctx->f_body, ctx->x0 + name_w + VALUE_W, y, VALUE_W, ctx->c->text,
                           PANGO_ALIGN_RIGHT, 1, NULL);
      cp_report_text_full (ctx, vd, FALSE, ctx->f_body_bold, ctx->x0 + name_w + 2 * VALUE_W, y, VALUE_W,
                           it->delta > 0 ? ctx->c->high : it->delta < 0 ? ctx->c->ok : ctx->c->dim, PANGO_ALIGN_RIGHT, 1, NULL);
      y += ROW_H;
    }
  if (n > CP_REPORT_MAX_CHANGES)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u more kernel; `chokepoint compare` lists them all",
                                                            "%u more kernels; `chokepoint compare` lists them all",
                                                            n - CP_REPORT_MAX_CHANGES),
                                               n - CP_REPORT_MAX_CHANGES);

      y += 4 + cp_report_text (ctx, more, ctx->f_small, ctx->x0, y + 4, ctx->inner, ctx->c->dim);
    }
  return y + 24;
}

double
cp_report_compose_compare (Ctx *ctx)
{
  double y = PAD;

  if (ctx->draw)
    {
      cp_report_set_rgba (ctx->cr, ctx->c->page);
      cairo_paint (ctx->cr);
    }
  y = compare_header (ctx, y);
  y = compare_headline (ctx, y);
  y = compare_waterfall (ctx, y);
  y = compare_timelines (ctx, y);
  pango_cairo_update_context (ctx->cr, ctx->pango);
  y = compare_changes (ctx, y);
  {
    g_autofree char *foot = g_strdup_printf (_("Made with Chokepoint %s. Per-step figures divide each capture's "
                                               "totals by its number of steps; each timeline's times are from "
                                               "the start of its capture."),
                                             PACKAGE_VERSION);

    y += cp_report_text (ctx, foot, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim);
  }
  return ceil (y + PAD);
}
