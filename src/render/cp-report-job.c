/* cp-report-job.c: the report of a job: the straggler, each rank's step,
 * the heat map of arrival delays and the job findings
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cp-report-private.h"

CpReport *
cp_report_new_job (CpJob                  *job,
                   const CpReportOptions  *options,
                   GError                **error)
{
  g_autoptr(CpReport) self = NULL;
  const CpJobRank *first;
  CpReportOptions o;

  g_return_val_if_fail (CP_IS_JOB (job), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (cp_job_get_n_ranks (job) == 0)
    {
      g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID, _("The job has no rank to draw"));
      return NULL;
    }
  first = cp_job_get_rank (job, 0);
  o = *options;
  o.range = CP_REPORT_RANGE_ALL;
  o.lanes = CP_REPORT_LANES_ALL;
  o.lane_pattern = NULL;
  o.findings = FALSE;
  o.steps = FALSE;
  o.annotations = FALSE;
  self = cp_report_new (first->trace, first->analysis, NULL, NULL, &o, error);
  if (self == NULL)
    return NULL;
  self->job = g_object_ref (job);
  return g_steal_pointer (&self);
}

gboolean
cp_report_get_job_heatmap (CpReport     *self,
                           CpJobHeatmap *map)
{
  g_return_val_if_fail (CP_IS_REPORT (self), FALSE);

  if (self->job == NULL || self->heatmap.n_ranks == 0)
    return FALSE;
  *map = self->heatmap;
  return TRUE;
}

static void
use_small_font (Ctx *ctx)
{
  pango_layout_set_font_description (ctx->layout, ctx->f_small);
  pango_layout_set_width (ctx->layout, -1);
  pango_layout_set_attributes (ctx->layout, NULL);
}

static double
section_header (Ctx    *ctx,
                double  y)
{
  CpJob *job = ctx->self->job;
  guint n = cp_job_get_n_ranks (job);
  const CpJobRank *r0 = cp_job_get_rank (job, 0);
  g_autofree char *title = NULL, *facts = NULL, *date = NULL;
  gboolean shifted = FALSE;

  for (guint k = 0; k < n; k++)
    shifted |= cp_job_get_rank (job, k)->clock_offset != 0;
  date = cp_report_format_date (ctx->self->options.generated, FALSE);
  cp_report_text (ctx, _("CHOKEPOINT REPORT"), ctx->f_small_bold, ctx->x0, y, -1, ctx->c->accent);
  {
    double w = cp_report_text_width (ctx, date, ctx->f_small);

    cp_report_text (ctx, date, ctx->f_small, ctx->x0 + ctx->inner - w, y, -1, ctx->c->dim);
  }
  y += 22;
  if (ctx->self->options.title != NULL)
    title = g_strdup (ctx->self->options.title);
  else
    /* Translators: the title of a job's report. */
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Job of %u rank", "Job of %u ranks", n), n);
  y += cp_report_text (ctx, title, ctx->f_title, ctx->x0, y, ctx->inner, ctx->c->text) + 6;
  /* Translators: a job report's facts: world size, backend, collectives,
   * whether clocks were shifted. */
  facts = g_strdup_printf (_("World size %d · backend %s · %u collectives · %s"),
                           cp_job_get_world_size (job) > 0 ? cp_job_get_world_size (job) : (gint) n,
                           r0->backend != NULL ? r0->backend : _("unknown"), cp_job_get_n_collectives (job),
                           shifted ? _("clocks aligned by the collectives") : _("one clock, no offset applied"));
  y += cp_report_text (ctx, facts, ctx->f_body, ctx->x0, y, ctx->inner, ctx->c->dim) + GAP;
  for (const char * const *note = cp_job_get_notes (job); *note != NULL; note++)
    y += cp_report_text (ctx, *note, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->moderate) + 4;
  return y + GAP;
}

static double
section_straggler (Ctx    *ctx,
                   double  y)
{
  CpJob *job = ctx->self->job;
  const CpJobFinding *f = cp_job_find_finding (job, "job-straggler");
  double top = y, h;
  guint32 stripe = f != NULL ? cp_report_severity_color (f->severity, ctx->theme) : ctx->c->ok;
  g_autofree char *title = NULL;

  if (f != NULL)
    title = g_strdup_printf (_("Straggler: rank %d"), f->rank);
  else
    title = g_strdup (_("No straggler: no rank is late to the collectives more than the others"));
  /* Measured first, then the card under the text. */
  {
    gboolean draw = ctx->draw;

    ctx->draw = FALSE;
    {
      GString *text = ctx->text;

      ctx->text = NULL;
      h = cp_report_text (ctx, title, ctx->f_h2, 0, 0, ctx->inner - 2 * CARD_PAD, ctx->c->text) + 6;
      if (f != NULL)
        h += cp_report_text (ctx, f->summary, ctx->f_body, 0, 0, ctx->inner - 2 * CARD_PAD, ctx->c->text);
      ctx->text = text;
    }
    ctx->draw = draw;
  }
  h += 2 * CARD_PAD;
  if (ctx->draw)
    cp_report_card (ctx, ctx->x0, top, ctx->inner, h, stripe);
  y = top + CARD_PAD;
  y += cp_report_text (ctx, title, ctx->f_h2, ctx->x0 + CARD_PAD, y, ctx->inner - 2 * CARD_PAD, ctx->c->text) + 6;
  if (f != NULL)
    cp_report_text (ctx, f->summary, ctx->f_body, ctx->x0 + CARD_PAD, y, ctx->inner - 2 * CARD_PAD, ctx->c->text);
  return top + h + GAP * 2;
}

static double
section_bars (Ctx    *ctx,
              double  y)
{
  CpJob *job = ctx->self->job;
  CpJobBars bars;

  y += cp_report_heading (ctx, _("Mean step per rank"), _("where each rank's step goes, on one scale"), y);
  use_small_font (ctx);
  cp_job_bars_layout (job, ctx->layout, ctx->x0, y + 8, ctx->inner, 220, &bars);
  if (ctx->draw)
    cp_job_bars_draw (&bars, job, ctx->cr, ctx->layout, ctx->theme);
  if (ctx->text != NULL)
    for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
      {
        g_autofree char *step = cp_time_format_duration (cp_job_bars_rank_step (job, k));

        g_string_append_printf (ctx->text, _("rank %d: mean step %s\n"), cp_job_get_rank (job, k)->rank, step);
      }
  return y + 8 + bars.total_height + GAP;
}

static double
section_heatmap (Ctx    *ctx,
                 double  y)
{
  CpJob *job = ctx->self->job;
  CpJobHeatmap *map = &ctx->self->heatmap;

  y += cp_report_heading (ctx, _("Arrival at each collective"),
                          _("colour: how long after the first rank each rank arrived"), y);
  use_small_font (ctx);
  cp_job_heatmap_layout (job, ctx->layout, ctx->x0, y + 8, ctx->inner, map);
  if (ctx->draw)
    cp_job_heatmap_draw (map, job, ctx->cr, ctx->layout, ctx->theme, -1);
  if (ctx->text != NULL)
    {
      g_autofree char *max = cp_time_format_duration (map->max_delay);

      g_string_append_printf (ctx->text, _("largest arrival delay %s\n"), max);
    }
  return y + 8 + map->total_height + GAP;
}

static double
section_findings (Ctx    *ctx,
                  double  y)
{
  CpJob *job = ctx->self->job;
  CpFramework order[CP_N_FRAMEWORKS];
  guint lead = cp_analysis_get_fix_order (cp_job_get_rank (job, 0)->analysis, order);

  y += cp_report_heading (ctx, _("Job findings"), NULL, y);
  if (cp_job_get_n_findings (job) == 0)
    return y + cp_report_text (ctx, _("No problems found across the ranks."), ctx->f_body, ctx->x0, y,
                               ctx->inner, ctx->c->dim) + GAP;
  for (guint i = 0; i < cp_job_get_n_findings (job); i++)
    {
      const CpJobFinding *f = cp_job_get_finding (job, i);
      guint32 color = cp_report_severity_color (f->severity, ctx->theme);
      double tag = cp_report_finding_tag (ctx, cp_severity_get_label (f->severity), ctx->x0, y, color);

      y += MAX (cp_report_text (ctx, f->title, ctx->f_body_bold, ctx->x0 + tag + 8, y, ctx->inner - tag - 8,
                                ctx->c->text), 20) + 4;
      y += cp_report_text (ctx, f->summary, ctx->f_body, ctx->x0 + 16, y, ctx->inner - 16, ctx->c->text) + 4;
      for (guint o = 0; o < CP_N_FRAMEWORKS; o++)
        {
          CpFramework fw = order[o];

          /* The capture's framework first; all of them when it is unknown. */
          if (lead > 0 && o >= lead)
            break;
          for (guint j = 0; j < 3 && f->fixes[fw][j] != NULL; j++)
            {
              g_autofree char *line = g_strdup_printf ("%s: %s", cp_framework_get_label (fw), _(f->fixes[fw][j]));

              y += cp_report_text (ctx, line, ctx->f_small, ctx->x0 + 16, y, ctx->inner - 16, ctx->c->dim) + 2;
            }
        }
      y += GAP;
    }
  return y;
}

double
cp_report_compose_job (Ctx *ctx)
{
  double y = PAD;

  if (ctx->draw)
    {
      cp_report_set_rgba (ctx->cr, ctx->c->page);
      cairo_paint (ctx->cr);
    }
  y = section_header (ctx, y);
  y = section_straggler (ctx, y);
  y = section_bars (ctx, y);
  y = section_heatmap (ctx, y);
  y = section_findings (ctx, y);
  {
    g_autofree char *foot = g_strdup_printf (_("Made with Chokepoint %s. Times are job times: each rank's clock "
                                               "offset applied."), PACKAGE_VERSION);

    y += cp_report_text (ctx, foot, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim);
  }
  return ceil (y + PAD);
}
