/* cp-report-notes.c: the notes section
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

/* Notes ------------------------------------------------------------------------- */

double
cp_report_section_notes (Ctx    *ctx,
                         double  y)
{
  CpReport *self = ctx->self;
  guint shown = MIN (self->notes->len, MAX_NOTES_LISTED);
  double col_w = (ctx->inner - GAP) / 2;
  double col_y[2];

  y += cp_report_heading (ctx, _("Notes"), NULL, y);
  col_y[0] = col_y[1] = y;
  for (guint i = 0; i < shown; i++)
    {
      const Note *n = &g_array_index (self->notes, Note, i);
      g_autoptr(GString) meta = g_string_new (NULL);
      g_autofree char *start = cp_time_format_duration (n->start);
      guint col = col_y[0] <= col_y[1] ? 0 : 1;
      double x = ctx->x0 + col * (col_w + GAP), yy = col_y[col];

      if (n->kind == CP_ANNOTATION_MARKER)
        g_string_append_printf (meta, _("at %s"), start);
      else
        {
          g_autofree char *end = cp_time_format_duration (n->end);
          g_autofree char *len = cp_time_format_duration (n->end - n->start);

          g_string_append_printf (meta, _("%s – %s (%s)"), start, end, len);
        }
      if (n->where != NULL)
        g_string_append_printf (meta, " · %s", n->where);
      else if (!n->detached)
        g_string_append_printf (meta, " · %s", _("all lanes"));
      if (n->detached)
        g_string_append_printf (meta, " · %s", _("detached: its slice is not in this capture"));

      cp_report_badge (ctx, i, x + 10, yy + 10, n->rgba);
      yy += cp_report_text (ctx, n->title, ctx->f_body_bold, x + 28, yy, col_w - 28, ctx->c->text) + 1;
      yy += cp_report_text (ctx, meta->str, ctx->f_small, x + 28, yy, col_w - 28, ctx->c->dim) + 2;
      if (n->body != NULL)
        yy += cp_report_text_full (ctx, n->body, FALSE, ctx->f_body, x + 28, yy, col_w - 28, ctx->c->text,
                                   PANGO_ALIGN_LEFT, 6, NULL) + 2;
      col_y[col] = yy + 12;
    }
  y = MAX (col_y[0], col_y[1]);
  if (self->notes->len > shown)
    {
      g_autofree char *more = g_strdup_printf (_("and %u more"), self->notes->len - shown);

      y += cp_report_text (ctx, more, ctx->f_small, ctx->x0, y, -1, ctx->c->dim) + 4;
    }
  return y + 20;
}
