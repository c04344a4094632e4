/* cp-report.c lays out the report around the timeline painter
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

G_DEFINE_QUARK (cp-report-error-quark, cp_report_error)

static const Colors light_colors = {
  .page     = 0xffffffff,
  .card     = 0xf6f5f4ff,
  .border   = 0xdedddaff,
  .text     = 0x1e1e1eff,
  .dim      = 0x5e5c64ff,
  .accent   = 0x1c71d8ff,
  .high     = 0xc01c28ff,
  .moderate = 0xc64600ff,
  .info     = 0x1c71d8ff,
  .ok       = 0x26a269ff,
  .idle     = 0xdedddaff,
};

static const Colors dark_colors = {
  .page     = 0x242424ff,
  .card     = 0x303030ff,
  .border   = 0x4a4a4aff,
  .text     = 0xffffffeb,
  .dim      = 0x9a9996ff,
  .accent   = 0x78aeedff,
  .high     = 0xff7b63ff,
  .moderate = 0xffa348ff,
  .info     = 0x78aeedff,
  .ok       = 0x8ff0a4ff,
  .idle     = 0x5e5c64ff,
};

G_DEFINE_FINAL_TYPE (CpReport, cp_report, G_TYPE_OBJECT)

static void
note_clear (gpointer data)
{
  Note *n = data;

  g_free (n->title);
  g_free (n->body);
  g_free (n->where);
}

/* Options, parsing ------------------------------------------------------------ */

void
cp_report_options_init (CpReportOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
  options->range = CP_REPORT_RANGE_ALL;
  options->lanes = CP_REPORT_LANES_ALL;
  options->findings = TRUE;
  options->steps = TRUE;
  options->annotations = TRUE;
  options->width = CP_REPORT_DEFAULT_WIDTH;
  options->scale = 1.0;
  options->theme = CP_THEME_LIGHT;
}

gboolean
cp_report_format_for_name (const char     *name,
                           CpReportFormat *format)
{
  g_autofree char *lower = NULL;
  CpReportFormat f;

  if (name == NULL)
    return FALSE;
  lower = g_ascii_strdown (name, -1);
  if (g_str_has_suffix (lower, ".png"))
    f = CP_REPORT_FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    f = CP_REPORT_FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    f = CP_REPORT_FORMAT_PDF;
  else
    return FALSE;
  if (format)
    *format = f;
  return TRUE;
}

gboolean
cp_report_parse_time (const char  *text,
                      gint64      *ns,
                      GError     **error)
{
  static const struct { const char *suffix; gint64 ns; } units[] = {
    { "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 }, { "\xce\xbcs", 1000 },
    { "ms", 1000000 }, { "s", 1000000000 },
  };
  g_autofree char *s = g_strstrip (g_strdup (text ? text : ""));
  const char *p = s;
  guint64 whole = 0, frac = 0, frac_scale = 1;
  gint64 unit = 1;
  gboolean digits = FALSE;

  while (g_ascii_isdigit (*p))
    {
      if (whole > (G_MAXINT64 - 9) / 10)
        goto bad;
      whole = whole * 10 + (guint64) (*p++ - '0');
      digits = TRUE;
    }
  if (*p == '.')
    {
      p++;
      while (g_ascii_isdigit (*p))
        {
          /* Digits below a nanosecond of a second are dropped. */
          if (frac_scale < G_GUINT64_CONSTANT (1000000000))
            {
              frac = frac * 10 + (guint64) (*p - '0');
              frac_scale *= 10;
            }
          p++;
          digits = TRUE;
        }
    }
  if (!digits)
    goto bad;
  while (*p == ' ')
    p++;
  if (*p != '\0')
    {
      guint i;

      for (i = 0; i < G_N_ELEMENTS (units); i++)
        if (g_str_equal (p, units[i].suffix))
          break;
      if (i == G_N_ELEMENTS (units))
        goto bad;
      unit = units[i].ns;
    }
  if (whole > (guint64) (G_MAXINT64 / unit))
    goto bad;
  *ns = (gint64) whole * unit + (gint64) (frac * (guint64) unit / frac_scale);
  return TRUE;

bad:
  g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
               _("“%s” is not a time: use a number with an optional unit, ns (the default), us, ms "
                 "or s, for example 1500000, 1.5ms or 2s"), text ? text : "");
  return FALSE;
}

gboolean
cp_report_parse_range (const char  *text,
                       gint64      *start,
                       gint64      *end,
                       GError     **error)
{
  g_auto(GStrv) parts = NULL;
  g_autofree char *a = NULL, *b = NULL;

  if (text == NULL || strchr (text, ':') == NULL || strchr (text, ':') != strrchr (text, ':'))
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                   _("“%s” is not a range: use START:END, for example 1.5s:2s or 120ms:180ms"),
                   text ? text : "");
      return FALSE;
    }
  parts = g_strsplit (text, ":", 2);
  a = g_strstrip (g_strdup (parts[0]));
  b = g_strstrip (g_strdup (parts[1]));
  *start = 0;
  *end = G_MAXINT64;
  if (*a && !cp_report_parse_time (a, start, error))
    return FALSE;
  if (*b && !cp_report_parse_time (b, end, error))
    return FALSE;
  if (*end <= *start)
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                   _("The range “%s” ends before it starts"), text);
      return FALSE;
    }
  return TRUE;
}

static char *
process_label (CpTrace *trace,
               guint    process)
{
  const CpProcess *p = cp_trace_get_process (trace, process);
  const char *name;

  if (p == NULL)
    return g_strdup ("");
  name = cp_trace_get_string (trace, p->name);
  if (p->is_device && p->device >= 0)
    return g_strdup_printf (_("GPU %d"), p->device);
  if (name && *name)
    return g_strdup_printf (_("%s (pid %s)"), name, cp_trace_get_string (trace, p->key));
  return g_strdup_printf (_("pid %s"), cp_trace_get_string (trace, p->key));
}

gboolean
cp_report_lane_matches (CpTrace    *trace,
                        guint       lane_index,
                        const char *pattern)
{
  g_auto(GStrv) globs = NULL;
  CpLane *lane;
  g_autofree char *group = NULL;
  g_autofree char *name = NULL;
  g_autofree char *both = NULL;
  const char *kind;

  g_return_val_if_fail (CP_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (lane_index < cp_trace_get_n_lanes (trace), FALSE);

  if (pattern == NULL || *pattern == '\0')
    return TRUE;
  lane = cp_trace_get_lane (trace, lane_index);
  {
    g_autofree char *g = process_label (trace, cp_lane_get_process (lane));

    group = g_utf8_strdown (g, -1);
  }
  name = g_utf8_strdown (cp_lane_get_name (lane) ? cp_lane_get_name (lane) : "", -1);
  both = g_strconcat (group, "/", name, NULL);
  kind = cp_lane_kind_to_string (cp_lane_get_kind (lane));

  globs = g_strsplit (pattern, ",", -1);
  for (guint i = 0; globs[i] != NULL; i++)
    {
      g_autofree char *glob = g_utf8_strdown (g_strstrip (globs[i]), -1);
      g_autoptr(GPatternSpec) spec = NULL;

      if (*glob == '\0')
        continue;
      spec = g_pattern_spec_new (glob);
      if (g_pattern_spec_match_string (spec, name) || g_pattern_spec_match_string (spec, group) ||
          g_pattern_spec_match_string (spec, both) || g_pattern_spec_match_string (spec, kind))
        return TRUE;
    }
  return FALSE;
}

guint32
cp_report_severity_color (CpSeverity severity,
                          CpTheme    theme)
{
  const Colors *c = theme == CP_THEME_DARK ? &dark_colors : &light_colors;

  switch (severity)
    {
    case CP_SEVERITY_HIGH:     return c->high;
    case CP_SEVERITY_MODERATE: return c->moderate;
    case CP_SEVERITY_INFO:
    default:                   return c->info;
    }
}

/* Annotations ------------------------------------------------------------------- */

CpAnnotation *
cp_report_pin_finding (CpAnnotations *annotations,
                       CpFinding     *finding,
                       guint          evidence_index,
                       CpFramework    framework)
{
  const CpEvidence *ev;
  guint n_ev = 0;
  g_autoptr(GString) text = g_string_new (NULL);
  const char * const *fixes;
  gint64 per_step;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (annotations), NULL);
  g_return_val_if_fail (CP_IS_FINDING (finding), NULL);

  ev = cp_finding_get_evidence (finding, &n_ev);
  g_return_val_if_fail (evidence_index < n_ev, NULL);

  g_string_append (text, cp_finding_get_title (finding));
  per_step = cp_finding_get_time_at_stake_per_step (finding);
  if (per_step > 0)
    {
      g_autofree char *d = cp_time_format_duration (per_step);

      /* Translators: the second line of a note pinned from a finding. */
      g_string_append_printf (text, "\n%s · ", cp_severity_get_label (cp_finding_get_severity (finding)));
      g_string_append_printf (text, _("up to %s per step"), d);
    }
  else
    g_string_append_printf (text, "\n%s", cp_severity_get_label (cp_finding_get_severity (finding)));
  fixes = cp_finding_get_fixes (finding, framework);
  if (fixes != NULL && fixes[0] != NULL)
    g_string_append_printf (text, "\n%s", fixes[0]);

  return cp_annotations_add_evidence (annotations, ev[evidence_index].lane, ev[evidence_index].start,
                                      ev[evidence_index].end, text->str,
                                      cp_report_severity_color (cp_finding_get_severity (finding),
                                                                CP_THEME_LIGHT),
                                      cp_finding_get_rule_id (finding));
}

void
cp_report_set_view_marks (CpViewState   *view,
                          CpAnnotations *annotations)
{
  g_autoptr(GArray) marks = g_array_new (FALSE, FALSE, sizeof (CpMark));
  g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  guint n;

  g_return_if_fail (CP_IS_VIEW_STATE (view));
  g_return_if_fail (annotations == NULL || CP_IS_ANNOTATIONS (annotations));

  n = annotations ? g_list_model_get_n_items (G_LIST_MODEL (annotations)) : 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpAnnotation) a = g_list_model_get_item (G_LIST_MODEL (annotations), i);
      CpMark m = { 0 };
      char *title = cp_annotation_dup_title (a);

      g_ptr_array_add (titles, title);
      m.id = cp_annotation_get_id (a);
      m.lane = cp_annotation_get_lane (a);
      m.slice = cp_annotation_get_slice (a);
      m.start = cp_annotation_get_start (a);
      m.end = cp_annotation_get_end (a);
      m.rgba = cp_annotation_get_color (a);
      m.label = title;
      g_array_append_val (marks, m);
    }
  /* The view copies the labels. */
  cp_view_state_set_marks (view, (const CpMark *) (gpointer) marks->data, marks->len);
}

/* Construction ------------------------------------------------------------------ */

gboolean
cp_report_lane_has_content (CpTrace *trace,
                            guint    lane_index,
                            gint64   t0,
                            gint64   t1)
{
  CpLane *lane = cp_trace_get_lane (trace, lane_index);

  if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
    {
      const gint64 *ts;
      guint n = cp_lane_get_counter (lane, &ts, NULL);

      for (guint i = 0; i < n; i++)
        if (ts[i] >= t0 && ts[i] < t1)
          return TRUE;
      return FALSE;
    }
  {
    const CpSlices *s = cp_lane_get_slices (lane);
    guint i = cp_lane_first_ending_after (lane, t0);

    /* Slices from i on may reach t0; the first that starts before t1 shows. */
    for (; i < s->n; i++)
      {
        if (cp_slices_get_start (s, i) >= t1)
          return FALSE;
        if (cp_slices_get_end (s, i) >= t0)
          return TRUE;
      }
  }
  return FALSE;
}

CpReport *
cp_report_new (CpTrace                *trace,
               CpAnalysis             *analysis,
               CpAnnotations          *annotations,
               CpViewState            *view,
               const CpReportOptions  *options,
               GError                **error)
{
  g_autoptr(CpReport) self = NULL;
  gint64 duration;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (analysis == NULL || CP_IS_ANALYSIS (analysis), NULL);
  g_return_val_if_fail (annotations == NULL || CP_IS_ANNOTATIONS (annotations), NULL);
  g_return_val_if_fail (view == NULL || CP_IS_VIEW_STATE (view), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (options->width < CP_REPORT_MIN_WIDTH || options->width > CP_REPORT_MAX_WIDTH)
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                   _("The width must be between %d and %d pixels, not %d"),
                   CP_REPORT_MIN_WIDTH, CP_REPORT_MAX_WIDTH, options->width);
      return NULL;
    }
  if (!(options->scale >= CP_REPORT_MIN_SCALE && options->scale <= CP_REPORT_MAX_SCALE) ||
      options->width * options->scale > MAX_SURFACE_PX)
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                   _("The scale must be between %g and %g (and the width times the scale at most %d), not %g"),
                   CP_REPORT_MIN_SCALE, CP_REPORT_MAX_SCALE, MAX_SURFACE_PX, options->scale);
      return NULL;
    }

  self = g_object_new (CP_TYPE_REPORT, NULL);
  self->trace = g_object_ref (trace);
  self->analysis = analysis ? g_object_ref (analysis) : NULL;
  self->options = *options;
  self->lane_pattern = g_strdup (options->lane_pattern);
  self->title = g_strdup (options->title);
  self->options.lane_pattern = self->lane_pattern;
  self->options.title = self->title;
  if (self->options.generated == 0)
    {
      const char *sde = g_getenv ("SOURCE_DATE_EPOCH");
      gint64 v = sde ? g_ascii_strtoll (sde, NULL, 10) : 0;

      self->options.generated = v > 0 ? v : g_get_real_time () / G_USEC_PER_SEC;
    }

  duration = MAX (cp_trace_get_duration (trace), 1);
  switch (options->range)
    {
    case CP_REPORT_RANGE_VIEW:
      if (view == NULL)
        {
          g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                               _("There is no view to take the range from"));
          return NULL;
        }
      self->start = cp_view_state_get_visible_start (view);
      self->end = cp_view_state_get_visible_end (view);
      break;
    case CP_REPORT_RANGE_CUSTOM:
      if (options->start >= duration || options->start < 0)
        {
          g_autofree char *d = cp_time_format_duration (duration);

          g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                       _("The range starts after the capture ends (it lasts %s)"), d);
          return NULL;
        }
      if (options->end <= options->start)
        {
          g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                               _("The range ends before it starts"));
          return NULL;
        }
      self->start = options->start;
      self->end = MIN (options->end, duration);
      break;
    case CP_REPORT_RANGE_ALL:
    default:
      self->start = 0;
      self->end = duration;
      break;
    }

  if (options->lanes == CP_REPORT_LANES_VISIBLE && view == NULL)
    {
      g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                           _("There is no view to take the visible lanes from"));
      return NULL;
    }
  if (options->lanes == CP_REPORT_LANES_PATTERN)
    {
      gboolean any = FALSE;

      if (self->lane_pattern == NULL || *g_strstrip (self->lane_pattern) == '\0')
        {
          g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                               _("The lane pattern is empty"));
          return NULL;
        }
      for (guint i = 0; i < cp_trace_get_n_lanes (trace) && !any; i++)
        any = cp_report_lane_matches (trace, i, self->lane_pattern);
      if (!any)
        {
          g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                       _("No lane matches “%s”; `chokepoint info` lists the lanes"), self->lane_pattern);
          return NULL;
        }
    }

  if (view != NULL)
    self->view = cp_view_state_copy (view);

  /* The annotations, as they are now. */
  if (annotations != NULL && options->annotations)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (annotations));

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(CpAnnotation) a = g_list_model_get_item (G_LIST_MODEL (annotations), i);
          const char *text = cp_annotation_get_text (a);
          const char *nl = strchr (text, '\n');
          Note note = { 0 };

          note.kind = cp_annotation_get_kind (a);
          note.start = cp_annotation_get_start (a);
          note.end = cp_annotation_get_end (a);
          note.lane = cp_annotation_get_lane (a);
          note.detached = cp_annotation_is_detached (a);
          note.rgba = cp_annotation_get_color (a);
          note.title = cp_annotation_dup_title (a);
          if (*note.title == '\0')
            {
              g_free (note.title);
              note.title = g_strdup (note.kind == CP_ANNOTATION_MARKER ? _("Marker") : _("Note"));
            }
          if (nl != NULL)
            {
              note.body = g_strstrip (g_strdup (nl + 1));
              if (*note.body == '\0')
                g_clear_pointer (&note.body, g_free);
            }
          if (note.lane != CP_ANNOTATION_ALL_LANES && note.lane < cp_trace_get_n_lanes (trace))
            note.where = g_strdup (cp_lane_get_name (cp_trace_get_lane (trace, note.lane)));
          g_array_append_val (self->notes, note);
        }
    }

  return g_steal_pointer (&self);
}

void
cp_report_get_size (CpReport *self,
                    int      *width,
                    int      *height)
{
  g_return_if_fail (CP_IS_REPORT (self));

  if (width)
    *width = self->width;
  if (height)
    *height = self->height;
}

static gboolean
get_spot (GArray *spots,
          guint   n,
          double *x,
          double *y,
          double *w,
          double *h)
{
  const Spot *s;

  if (spots == NULL || n >= spots->len)
    return FALSE;
  s = &g_array_index (spots, Spot, n);
  if (!s->valid)
    return FALSE;
  if (x) *x = s->x;
  if (y) *y = s->y;
  if (w) *w = s->w;
  if (h) *h = s->h;
  return TRUE;
}

gboolean
cp_report_get_note_point (CpReport *self,
                          guint     n,
                          double   *x,
                          double   *y)
{
  g_return_val_if_fail (CP_IS_REPORT (self), FALSE);
  return get_spot (self->note_spots, n, x, y, NULL, NULL);
}

gboolean
cp_report_get_evidence_rect (CpReport *self,
                             guint     n,
                             double   *x,
                             double   *y,
                             double   *width,
                             double   *height)
{
  g_return_val_if_fail (CP_IS_REPORT (self), FALSE);
  return get_spot (self->evidence_spots, n, x, y, width, height);
}

/* The whole page ------------------------------------------------------------------ */

static double
compose (Ctx *ctx)
{
  CpReport *self = ctx->self;
  double y = PAD;

  if (self->comparison != NULL)
    return cp_report_compose_compare (ctx);
  if (self->job != NULL)
    return cp_report_compose_job (ctx);
  if (ctx->draw)
    {
      cp_report_set_rgba (ctx->cr, ctx->c->page);
      cairo_paint (ctx->cr);
    }
  y = cp_report_section_header (ctx, y);
  y = cp_report_section_figures (ctx, y);
  y = cp_report_section_timeline (ctx, y);
  if (self->options.findings)
    y = cp_report_section_findings (ctx, y);
  if (self->options.steps)
    y = cp_report_section_steps (ctx, y);
  if (self->options.annotations && self->notes->len > 0)
    y = cp_report_section_notes (ctx, y);
  {
    g_autofree char *foot = g_strdup_printf (_("Made with Chokepoint %s. Times are from the start of the "
                                               "capture; findings and figures cover the whole capture."),
                                             PACKAGE_VERSION);

    y += cp_report_text (ctx, foot, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim);
  }
  return ceil (y + PAD);
}

static void
ctx_clear (Ctx *ctx)
{
  for (guint i = 0; i < G_N_ELEMENTS (ctx->side); i++)
    if (ctx->side[i] != NULL)
      {
        ctx_clear (ctx->side[i]);
        g_clear_pointer (&ctx->side[i], g_free);
      }
  g_clear_object (&ctx->layout);
  g_clear_object (&ctx->pango);
  g_clear_pointer (&ctx->f_body, pango_font_description_free);
  g_clear_pointer (&ctx->f_body_bold, pango_font_description_free);
  g_clear_pointer (&ctx->f_small, pango_font_description_free);
  g_clear_pointer (&ctx->f_small_bold, pango_font_description_free);
  g_clear_pointer (&ctx->f_title, pango_font_description_free);
  g_clear_pointer (&ctx->f_h2, pango_font_description_free);
  g_clear_pointer (&ctx->f_value, pango_font_description_free);
  g_clear_pointer (&ctx->findings, g_ptr_array_unref);
  g_clear_pointer (&ctx->painter, cp_painter_free);
  g_clear_pointer (&ctx->tl, cp_timeline_layout_unref);
  g_clear_object (&ctx->rv);
  g_clear_object (&ctx->analysis);
}

static gboolean
ctx_init (Ctx           *ctx,
          CpReport      *self,
          GCancellable  *cancellable,
          GError       **error)
{
  cairo_font_options_t *fo;
  GListModel *findings;

  memset (ctx, 0, sizeof *ctx);
  ctx->self = self;
  ctx->theme = self->options.theme;
  ctx->c = ctx->theme == CP_THEME_DARK ? &dark_colors : &light_colors;
  ctx->W = self->options.width;
  ctx->x0 = PAD;
  ctx->inner = ctx->W - 2 * PAD;

  if (self->analysis != NULL)
    ctx->analysis = g_object_ref (self->analysis);
  else if ((ctx->analysis = cp_analysis_new (self->trace, cancellable, error)) == NULL)
    return FALSE;

  /* Text is laid out with fixed font options, so that the measuring pass,
   * PNG, SVG and PDF all agree on every size. */
  ctx->pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  fo = cairo_font_options_create ();
  cairo_font_options_set_hint_metrics (fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (fo, CAIRO_HINT_STYLE_SLIGHT);
  cairo_font_options_set_antialias (fo, CAIRO_ANTIALIAS_GRAY);
  pango_cairo_context_set_font_options (ctx->pango, fo);
  cairo_font_options_destroy (fo);
  ctx->layout = pango_layout_new (ctx->pango);
  ctx->f_body = cp_report_font ("Sans", 14, PANGO_WEIGHT_NORMAL);
  ctx->f_body_bold = cp_report_font ("Sans", 14, PANGO_WEIGHT_BOLD);
  ctx->f_small = cp_report_font ("Sans", 12, PANGO_WEIGHT_NORMAL);
  ctx->f_small_bold = cp_report_font ("Sans", 12, PANGO_WEIGHT_BOLD);
  ctx->f_title = cp_report_font ("Sans", 26, PANGO_WEIGHT_BOLD);
  ctx->f_h2 = cp_report_font ("Sans", 18, PANGO_WEIGHT_BOLD);
  ctx->f_value = cp_report_font ("Sans", 28, PANGO_WEIGHT_BOLD);

  ctx->findings = g_ptr_array_new_with_free_func (g_object_unref);
  if (self->comparison != NULL)
    {
      /* Each side's timeline is laid out by its own report, to the width
       * its window takes of the shared time scale. */
      for (guint i = 0; i < G_N_ELEMENTS (self->side); i++)
        {
          ctx->side[i] = g_new0 (Ctx, 1);
          if (!ctx_init (ctx->side[i], self->side[i], cancellable, error))
            return FALSE;
        }
      return TRUE;
    }
  findings = cp_analysis_get_findings (ctx->analysis);
  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    g_ptr_array_add (ctx->findings, g_list_model_get_item (findings, i));
  /* The model is in the one order of findings (cp_findings_compare()). */

  cp_report_prepare_timeline (ctx);
  return TRUE;
}

/* Measures the page, then draws it on a surface made by `make`. */
typedef cairo_surface_t *(*MakeSurface) (double   width,
                                         double   height,
                                         gpointer data);

char *
cp_report_get_text (CpReport      *self,
                    GCancellable  *cancellable,
                    GError       **error)
{
  Ctx ctx;
  cairo_surface_t *scratch;
  GString *text;

  g_return_val_if_fail (CP_IS_REPORT (self), NULL);

  if (!ctx_init (&ctx, self, cancellable, error))
    {
      ctx_clear (&ctx);
      return NULL;
    }
  /* A measuring pass, which lays out every text the drawing shows. */
  text = g_string_new (NULL);
  scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  ctx.cr = cairo_create (scratch);
  pango_cairo_update_context (ctx.cr, ctx.pango);
  ctx.draw = FALSE;
  ctx.text = text;
  compose (&ctx);
  cairo_destroy (ctx.cr);
  cairo_surface_destroy (scratch);
  ctx_clear (&ctx);
  return g_string_free (text, FALSE);
}

static cairo_surface_t *
draw_report (CpReport      *self,
             MakeSurface    make,
             gpointer       make_data,
             double         scale,
             GCancellable  *cancellable,
             GError       **error)
{
  Ctx ctx;
  cairo_surface_t *scratch, *surface;
  double height;
  cairo_status_t status;

  if (!ctx_init (&ctx, self, cancellable, error))
    {
      ctx_clear (&ctx);
      return NULL;
    }

  /* Pass 1: sizes only. */
  scratch = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  ctx.cr = cairo_create (scratch);
  pango_cairo_update_context (ctx.cr, ctx.pango);
  ctx.draw = FALSE;
  height = compose (&ctx);
  cairo_destroy (ctx.cr);
  cairo_surface_destroy (scratch);
  height = MIN (height, MAX_SURFACE_PX / scale);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      ctx_clear (&ctx);
      return NULL;
    }

  /* Pass 2: the drawing. */
  surface = make (ctx.W, height, make_data);
  ctx.cr = cairo_create (surface);
  cairo_scale (ctx.cr, scale, scale);
  pango_cairo_update_context (ctx.cr, ctx.pango);
  ctx.draw = TRUE;
  compose (&ctx);
  status = cairo_status (ctx.cr);
  cairo_destroy (ctx.cr);
  ctx_clear (&ctx);

  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_FAILED, _("Drawing the report failed: %s"),
                   cairo_status_to_string (status));
      cairo_surface_destroy (surface);
      return NULL;
    }
  self->width = (int) ctx.W;
  self->height = (int) height;
  return surface;
}

static cairo_surface_t *
make_image (double   width,
            double   height,
            gpointer data)
{
  double scale = *(double *) data;

  return cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale),
                                     (int) ceil (height * scale));
}

cairo_surface_t *
cp_report_render_image (CpReport      *self,
                        GCancellable  *cancellable,
                        GError       **error)
{
  double scale;

  g_return_val_if_fail (CP_IS_REPORT (self), NULL);

  scale = self->options.scale;
  return draw_report (self, make_image, &scale, scale, cancellable, error);
}

/* Writing ------------------------------------------------------------------------- */

typedef struct
{
  GOutputStream *out;
  GCancellable  *cancellable;
  GError        *error;
} Sink;

static cairo_status_t
sink_write (void                *closure,
            const unsigned char *data,
            unsigned int         length)
{
  Sink *sink = closure;

  if (sink->error != NULL)
    return CAIRO_STATUS_WRITE_ERROR;
  if (!g_output_stream_write_all (sink->out, data, length, NULL, sink->cancellable, &sink->error))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

typedef struct
{
  CpReportFormat format;
  Sink          *sink;
} VectorMake;

static cairo_surface_t *
make_vector (double   width,
             double   height,
             gpointer data)
{
  VectorMake *vm = data;

  if (vm->format == CP_REPORT_FORMAT_SVG)
    return cairo_svg_surface_create_for_stream (sink_write, vm->sink, width, height);
  return cairo_pdf_surface_create_for_stream (sink_write, vm->sink, width, height);
}

gboolean
cp_report_write (CpReport      *self,
                 GFile         *file,
                 GCancellable  *cancellable,
                 GError       **error)
{
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GCancellable) abort_write = g_cancellable_new ();
  g_autofree char *name = NULL;
  CpReportFormat format;
  cairo_surface_t *surface = NULL;
  cairo_status_t status = CAIRO_STATUS_SUCCESS;
  Sink sink = { NULL, cancellable, NULL };

  g_return_val_if_fail (CP_IS_REPORT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  name = g_file_get_basename (file);
  if (!cp_report_format_for_name (name, &format))
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_FORMAT,
                   _("“%s” does not end in .png, .svg or .pdf: the name chooses the format"), name);
      return FALSE;
    }

  /* Replaced whole on success; on failure the temporary file goes. */
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, cancellable, error);
  if (out == NULL)
    return FALSE;
  sink.out = G_OUTPUT_STREAM (out);

  if (format == CP_REPORT_FORMAT_PNG)
    {
      surface = cp_report_render_image (self, cancellable, error);
      if (surface == NULL)
        goto fail;
      status = cairo_surface_write_to_png_stream (surface, sink_write, &sink);
      cairo_surface_destroy (surface);
    }
  else
    {
      VectorMake vm = { format, &sink };

      surface = draw_report (self, make_vector, &vm, 1.0, cancellable, error);
      if (surface == NULL)
        goto fail;
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
      cairo_surface_destroy (surface);
    }
  if (sink.error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&sink.error));
      goto fail;
    }
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, CP_REPORT_ERROR, CP_REPORT_ERROR_FAILED, _("Writing the report failed: %s"),
                   cairo_status_to_string (status));
      goto fail;
    }
  return g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, error);

fail:
  /* Closing with a cancelled cancellable drops the temporary file and
   * leaves any old file as it was. */
  g_cancellable_cancel (abort_write);
  g_output_stream_close (G_OUTPUT_STREAM (out), abort_write, NULL);
  g_clear_error (&sink.error);
  return FALSE;
}

static void
write_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  GError *error = NULL;
  gboolean ok = cp_report_write (CP_REPORT (source), G_FILE (task_data), cancellable, &error);

  /* The painter's fonts belong to this thread. */
  cp_painter_release_thread_fonts ();
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
cp_report_write_async (CpReport            *self,
                       GFile               *file,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CP_IS_REPORT (self));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cp_report_write_async);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_run_in_thread (task, write_thread);
}

gboolean
cp_report_write_finish (CpReport      *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (CP_IS_REPORT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* GObject ------------------------------------------------------------------------- */

static void
cp_report_finalize (GObject *object)
{
  CpReport *self = CP_REPORT (object);

  g_clear_object (&self->trace);
  g_clear_object (&self->analysis);
  g_clear_object (&self->view);
  g_array_unref (self->notes);
  g_array_unref (self->note_spots);
  g_array_unref (self->evidence_spots);
  g_free (self->lane_pattern);
  g_free (self->title);
  g_clear_object (&self->comparison);
  g_clear_object (&self->job);
  g_clear_object (&self->side[0]);
  g_clear_object (&self->side[1]);
  g_array_unref (self->waterfall);
  g_array_unref (self->changes);

  G_OBJECT_CLASS (cp_report_parent_class)->finalize (object);
}

static void
cp_report_class_init (CpReportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cp_report_finalize;
}

static void
cp_report_init (CpReport *self)
{
  self->notes = g_array_new (FALSE, TRUE, sizeof (Note));
  g_array_set_clear_func (self->notes, note_clear);
  self->note_spots = g_array_new (FALSE, TRUE, sizeof (Spot));
  self->evidence_spots = g_array_new (FALSE, TRUE, sizeof (Spot));
  self->waterfall = g_array_new (FALSE, TRUE, sizeof (CpReportBar));
  self->changes = g_array_new (FALSE, TRUE, sizeof (CpReportChange));
}
