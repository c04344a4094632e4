/* cp-report-header.c: the report's header: title, capture, verdict
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

/* Header ------------------------------------------------------------------------ */

static CpFinding *
worst_finding (Ctx *ctx)
{
  for (guint i = 0; i < ctx->findings->len; i++)
    {
      CpFinding *f = g_ptr_array_index (ctx->findings, i);

      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        return f;
    }
  return NULL;
}

/* Under the verdict, how far it can be trusted when not fully: a pill
 * ("Provisional", "Low confidence") and the reasons. */
static double
draw_confidence (Ctx    *ctx,
                 double  y)
{
  const CpConfidenceReason *reasons;
  guint n;
  CpConfidenceLevel level = cp_analysis_get_confidence (ctx->analysis, &reasons, &n);
  g_autoptr(GString) why = g_string_new (NULL);
  double pw;

  if (level == CP_CONFIDENCE_HIGH || n == 0)
    return y;
  for (guint i = 0; i < n; i++)
    g_string_append_printf (why, "%s%s", i ? "; " : "", reasons[i].text);
  pw = cp_report_pill (ctx, level == CP_CONFIDENCE_LOW ? _("Low confidence") : _("Provisional"), ctx->x0, y + 1,
                       level == CP_CONFIDENCE_LOW ? ctx->c->high : ctx->c->moderate);
  y += MAX (22, cp_report_text (ctx, why->str, ctx->f_body, ctx->x0 + pw + 10, y, ctx->inner - pw - 10,
                                ctx->c->text)) + 16;
  return y;
}

double
cp_report_section_header (Ctx    *ctx,
                          double  y)
{
  CpReport *self = ctx->self;
  CpTrace *trace = self->trace;
  const CpLoadReport *lr = cp_trace_get_load_report (trace);
  g_autofree char *generated = cp_report_format_date (self->options.generated, FALSE);
  g_autofree char *gen_line = g_strdup_printf (_("Generated %s"), generated);
  g_autoptr(GPtrArray) meta = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) devices = g_string_new (NULL);
  g_autofree char *meta_line = NULL;
  const char *title = self->title;
  double gw;
  guint n_steps = 0;
  CpFinding *worst;

  gw = cp_report_text_width (ctx, gen_line, ctx->f_small);
  cp_report_text (ctx, _("CHOKEPOINT REPORT"), ctx->f_small_bold, ctx->x0, y, -1, ctx->c->accent);
  cp_report_text (ctx, gen_line, ctx->f_small, ctx->x0 + ctx->inner - gw, y, -1, ctx->c->dim);
  y += 22;

  if (title == NULL)
    title = cp_trace_get_title (trace);
  y += cp_report_text_full (ctx, title ? title : _("Capture"), FALSE, ctx->f_title, ctx->x0, y, ctx->inner,
                            ctx->c->text, PANGO_ALIGN_LEFT, 2, NULL) + 6;

  /* Format, framework, devices, date, span, steps. */
  if (lr != NULL && lr->format != NULL)
    g_ptr_array_add (meta, g_strdup (lr->format));
  if (cp_analysis_get_framework (ctx->analysis)->framework != CP_DETECTED_NONE)
    g_ptr_array_add (meta, cp_framework_info_describe (cp_analysis_get_framework (ctx->analysis)));
  for (guint i = 0; i < cp_trace_get_n_devices (trace); i++)
    {
      const CpDevice *d = cp_trace_get_device (trace, i);
      const char *name = cp_trace_get_string (trace, d->name);
      guint same = 1;
      gboolean seen = FALSE;

      for (guint k = 0; k < i && !seen; k++)
        seen = g_strcmp0 (cp_trace_get_string (trace, cp_trace_get_device (trace, k)->name), name) == 0;
      if (seen)
        continue;
      for (guint k = i + 1; k < cp_trace_get_n_devices (trace); k++)
        same += g_strcmp0 (cp_trace_get_string (trace, cp_trace_get_device (trace, k)->name), name) == 0;
      if (devices->len)
        g_string_append (devices, ", ");
      if (same > 1)
        g_string_append_printf (devices, "%u× ", same);
      g_string_append (devices, name && *name ? name : _("unnamed device"));
    }
  if (devices->len)
    g_ptr_array_add (meta, g_strdup (devices->str));
  else
    g_ptr_array_add (meta, g_strdup (_("no device described")));
  if (cp_trace_get_origin_is_epoch (trace))
    {
      g_autofree char *when = cp_report_format_date (cp_trace_get_origin_abs (trace) / CP_NS_PER_S, TRUE);

      g_ptr_array_add (meta, g_strdup_printf (_("captured %s"), when));
    }
  {
    g_autofree char *span = cp_time_format_duration (cp_trace_get_duration (trace));

    g_ptr_array_add (meta, g_strdup_printf (_("span %s"), span));
  }
  cp_analysis_get_steps (ctx->analysis, &n_steps);
  if (!cp_analysis_has_steps (ctx->analysis))
    g_ptr_array_add (meta, g_strdup (_("no steps marked")));
  else
    g_ptr_array_add (meta, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step", "%u steps", n_steps),
                                            n_steps));
  {
    gint64 ws, we;

    if (cp_analysis_get_warmup (ctx->analysis, &ws, &we, NULL))
      {
        g_autofree char *d = cp_time_format_duration (we - ws);

        /* Translators: the phase before the first step, left out of the figures. */
        g_ptr_array_add (meta, g_strdup_printf (_("warm-up %s, excluded"), d));
      }
  }
  g_ptr_array_add (meta, NULL);
  meta_line = g_strjoinv ("  ·  ", (char **) meta->pdata);
  y += cp_report_text (ctx, meta_line, ctx->f_body, ctx->x0, y, ctx->inner, ctx->c->dim) + 16;

  /* The verdict: the worst finding, or that there is none. */
  worst = worst_finding (ctx);
  if (worst != NULL)
    {
      CpSeverity sev = cp_finding_get_severity (worst);
      double pw = cp_report_pill (ctx, cp_severity_get_label (sev), ctx->x0, y + 3,
                                  cp_report_severity_color (sev, ctx->theme));
      const char *verdict = cp_analysis_get_verdict (ctx->analysis)->text;

      /* The answer first: the verdict, as plain text. */
      y += MAX (26, cp_report_text_full (ctx, verdict, FALSE, ctx->f_h2, ctx->x0 + pw + 10, y,
                                         ctx->inner - pw - 10, ctx->c->text, PANGO_ALIGN_LEFT, 4, NULL)) + 18;
    }
  else
    {
      gboolean judged = cp_analysis_get_confidence (ctx->analysis, NULL, NULL) != CP_CONFIDENCE_LOW;
      /* Translators: the report's pill when nothing can be named because the capture lacks what the verdict needs. */
      double pw = cp_report_pill (ctx, judged ? _("Healthy") : _("Not judged"), ctx->x0, y + 3,
                                  judged ? ctx->c->ok : ctx->c->high);

      y += MAX (26, cp_report_text (ctx, cp_analysis_get_verdict (ctx->analysis)->text,
                                    ctx->f_h2, ctx->x0 + pw + 10, y, ctx->inner - pw - 10, ctx->c->text)) + 18;
    }
  return draw_confidence (ctx, y);
}
