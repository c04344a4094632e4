/* cp-report-findings.c: the findings section: a card per finding
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

/* Findings ---------------------------------------------------------------------- */

/* Thresholds as the window shows them, with proper signs. */
static char *
format_threshold (const CpFigure *f)
{
  g_autofree char *t = cp_figure_format_thresholds (f);
  g_auto(GStrv) ge = NULL;
  g_autofree char *joined = NULL;
  g_auto(GStrv) le = NULL;

  if (t == NULL)
    return NULL;
  ge = g_strsplit (t, ">=", -1);
  joined = g_strjoinv ("≥", ge);
  le = g_strsplit (joined, "<=", -1);
  return g_strjoinv ("≤", le);
}

/* The fixes of the capture's framework (PyTorch's when not recognised). */
static CpFramework
report_framework (Ctx *ctx)
{
  CpFramework order[CP_N_FRAMEWORKS];

  if (ctx->analysis == NULL)
    return CP_FRAMEWORK_PYTORCH;
  cp_analysis_get_fix_order (ctx->analysis, order);
  return order[0];
}

static double
finding_card (Ctx       *ctx,
              CpFinding *f,
              guint      number,
              double     y)
{
  CpSeverity sev = cp_finding_get_severity (f);
  guint32 color = cp_report_severity_color (sev, ctx->theme);
  double left_w = floor ((ctx->inner - 3 * CARD_PAD) * 0.58);
  double right_x = ctx->x0 + CARD_PAD * 2 + left_w + CARD_PAD;
  double right_w = ctx->inner - (right_x - ctx->x0) - CARD_PAD;
  double lx = ctx->x0 + CARD_PAD + 8;
  double h = 0;
  CpFramework fw = report_framework (ctx);

  for (int pass = 0; pass < 2; pass++)
    {
      gboolean draw = ctx->draw;
      double ly = y + CARD_PAD, ry = y + CARD_PAD, pw;
      const char * const *fixes;
      const CpFigure *figs;
      guint n_figs;

      if (pass == 0)
        ctx->draw = FALSE;
      else
        cp_report_card (ctx, ctx->x0, y, ctx->inner, h, color);

      /* Left: number, severity, title, summary, fixes. */
      {
        g_autofree char *num = g_strdup_printf ("%u", number);
        double nw = cp_report_finding_tag (ctx, num, lx, ly + 2, color);

        pw = cp_report_pill (ctx, cp_severity_get_label (sev), lx + nw + 6, ly + 2, color);
        ly += cp_report_text_full (ctx, cp_finding_get_title (f), FALSE, ctx->f_h2, lx + nw + pw + 16, ly,
                                   left_w - nw - pw - 16, ctx->c->text, PANGO_ALIGN_LEFT, 2, NULL) + 8;
      }
      if (cp_finding_get_summary (f) != NULL)
        ly += cp_report_text (ctx, cp_finding_get_summary (f), ctx->f_body, lx, ly, left_w, ctx->c->text) + 10;
      fixes = cp_finding_get_fixes (f, fw);
      if (fixes != NULL && fixes[0] != NULL)
        {
          g_autofree char *head = g_strdup_printf (_("What to change (%s)"), cp_framework_get_label (fw));

          ly += cp_report_text (ctx, head, ctx->f_small_bold, lx, ly, left_w, ctx->c->dim) + 4;
          for (guint k = 0; fixes[k] != NULL && k < 3; k++)
            {
              cp_report_text (ctx, "•", ctx->f_body, lx + 2, ly, -1, color);
              ly += cp_report_text (ctx, fixes[k], ctx->f_body, lx + 16, ly, left_w - 16, ctx->c->text) + 4;
            }
        }

      /* Right: time at stake, measured figures beside their thresholds. */
      {
        gint64 per_step = cp_finding_get_time_at_stake_per_step (f);
        gint64 total = cp_finding_get_time_at_stake (f);
        g_autofree char *d = cp_time_format_duration (per_step > 0 ? per_step : total);
        g_autofree char *stake = g_strdup_printf (per_step > 0 ? _("up to %s per step") : _("up to %s in total"), d);

        ry += cp_report_text (ctx, _("Time at stake"), ctx->f_small_bold, right_x, ry, right_w, ctx->c->dim) + 2;
        ry += cp_report_text (ctx, stake, ctx->f_body_bold, right_x, ry, right_w, ctx->c->text) + 10;
      }
      figs = cp_finding_get_figures (f, &n_figs);
      if (n_figs > 0)
        ry += cp_report_text (ctx, _("Measured"), ctx->f_small_bold, right_x, ry, right_w, ctx->c->dim) + 4;
      for (guint k = 0; k < n_figs && k < 6; k++)
        {
          g_autofree char *raw_v = cp_figure_format (&figs[k], figs[k].value);
          g_autofree char *raw_th = format_threshold (&figs[k]);
          /* Every part is escaped: labels, values and thresholds ("< 10%")
           * are text, not markup. */
          g_autofree char *v = g_markup_escape_text (raw_v, -1);
          g_autofree char *th = raw_th ? g_markup_escape_text (raw_th, -1) : NULL;
          g_autofree char *ev = g_markup_escape_text (figs[k].label, -1);
          g_autofree char *line = th ? g_strdup_printf ("<b>%s</b>  %s <span alpha=\"70%%\">(%s)</span>", v, ev, th)
                                     : g_strdup_printf ("<b>%s</b>  %s", v, ev);

          ry += cp_report_text_full (ctx, line, TRUE, ctx->f_small, right_x, ry, right_w, ctx->c->text,
                                     PANGO_ALIGN_LEFT, 3, NULL) + 4;
        }
      if (cp_finding_get_evidence_total (f) > 0)
        {
          g_autofree char *evl = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                               "%" PRIu64 " evidence range on the timeline",
                                                               "%" PRIu64 " evidence ranges on the timeline",
                                                               cp_finding_get_evidence_total (f)),
                                                  cp_finding_get_evidence_total (f));

          ry += 4 + cp_report_text (ctx, evl, ctx->f_small, right_x, ry + 4, right_w, ctx->c->dim);
        }
      ctx->draw = draw;
      if (pass == 0)
        h = MAX (ly, ry) - y + CARD_PAD - 4;
    }
  return y + h + 12;
}

double
cp_report_section_findings (Ctx    *ctx,
                            double  y)
{
  guint n_main = 0, n_info = 0;
  g_autofree char *aside = NULL;

  for (guint i = 0; i < ctx->findings->len; i++)
    {
      if (cp_finding_get_severity (g_ptr_array_index (ctx->findings, i)) > CP_SEVERITY_INFO)
        n_main++;
      else
        n_info++;
    }
  aside = g_strdup_printf (_("%u above info, %u for information; idle causes first, each by time at stake"),
                           n_main, n_info);
  y += cp_report_heading (ctx, _("Findings"), aside, y);
  if (ctx->findings->len == 0)
    return y + cp_report_text (ctx, _("No findings: no rule’s threshold is reached."), ctx->f_body, ctx->x0, y,
                               ctx->inner, ctx->c->dim) + 28;

  /* In the one order, under a title per section. */
  for (guint i = 0; i < ctx->findings->len; i++)
    {
      CpFinding *f = g_ptr_array_index (ctx->findings, i);
      CpFindingSection section = cp_finding_get_section (f);

      if (section == CP_FINDING_SECTION_INFO)
        continue;
      if (i == 0 || cp_finding_get_section (g_ptr_array_index (ctx->findings, i - 1)) != section)
        y += cp_report_text (ctx, cp_analysis_get_section_title (ctx->analysis, section), ctx->f_body_bold,
                             ctx->x0, y, ctx->inner, ctx->c->dim) + 8;
      y = finding_card (ctx, f, i + 1, y);
    }
  if (n_info > 0)
    y += cp_report_text (ctx, cp_analysis_get_section_title (ctx->analysis, CP_FINDING_SECTION_INFO), ctx->f_body_bold,
                         ctx->x0, y, ctx->inner, ctx->c->dim) + 8;
  /* Info findings: one line each. */
  for (guint i = 0; i < ctx->findings->len; i++)
    {
      CpFinding *f = g_ptr_array_index (ctx->findings, i);
      g_autofree char *t = NULL;
      g_autofree char *esc = NULL;
      g_autofree char *sum = NULL;
      double pw;

      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        continue;
      esc = g_markup_escape_text (cp_finding_get_title (f), -1);
      if (cp_finding_get_explained_by (f) != NULL)
        {
          CpFinding *by = cp_analysis_lookup_finding (ctx->analysis, cp_finding_get_explained_by (f));
          g_autofree char *by_esc = g_markup_escape_text (by ? cp_finding_get_title (by)
                                                             : cp_finding_get_explained_by (f), -1);

          sum = g_strdup_printf (_("explained by %s"), by_esc);
        }
      else if (cp_finding_get_summary (f) != NULL)
        sum = g_markup_escape_text (cp_finding_get_summary (f), -1);
      t = g_strdup_printf ("<b>%s</b>%s%s", esc, sum ? "  —  " : "", sum ? sum : "");
      pw = cp_report_pill (ctx, cp_severity_get_label (CP_SEVERITY_INFO), ctx->x0, y, ctx->c->info);
      y += MAX (22, cp_report_text_full (ctx, t, TRUE, ctx->f_body, ctx->x0 + pw + 10, y + 1, ctx->inner - pw - 10,
                                         ctx->c->text, PANGO_ALIGN_LEFT, 2, NULL)) + 8;
    }
  return y + 20;
}
