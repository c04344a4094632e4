/* cp-report.c: lays out the report around the timeline painter
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"

/* Sizes in logical pixels. */
#define PAD              40.0    /* page margin */
#define GAP              16.0
#define CARD_PAD         16.0
#define MAX_HIGHLIGHTS   4000    /* evidence ranges drawn on the timeline */
#define MAX_NOTES_LISTED 60
#define MAX_CALLOUT_ROWS 4
#define MAX_SURFACE_PX   32000   /* cairo's image surfaces stop at 32767 */

G_DEFINE_QUARK (cp-report-error-quark, cp_report_error)

/* The page's own colours (the timeline brings the painter's palette). */
typedef struct
{
  guint32 page;
  guint32 card;
  guint32 border;
  guint32 text;
  guint32 dim;
  guint32 accent;
  guint32 high;
  guint32 moderate;
  guint32 info;
  guint32 ok;
  guint32 idle;
} Colors;

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

/* Step-chart colours by time category (Okabe–Ito where it matters most:
 * compute, input, launch, copies), the same in both styles except idle. */
static const guint32 category_colors[CP_TIME_N_CATEGORIES] = {
  [CP_TIME_COMPUTE_16]       = 0x009e73ff,
  [CP_TIME_COMPUTE_32]       = 0x7fcdb4ff,
  [CP_TIME_DEVICE_TO_HOST]   = 0xcc79a7ff,
  [CP_TIME_DEVICE_TO_DEVICE] = 0x9a5b8cff,
  [CP_TIME_ASYNC_WAIT]       = 0x6b4e71ff,
  [CP_TIME_INPUT_WAIT]       = 0xd55e00ff,
  [CP_TIME_COLLECTIVES]      = 0x56b4e9ff,
  [CP_TIME_LAUNCH]           = 0xf0e442ff,
  [CP_TIME_HOST_TO_DEVICE]   = 0x0072b2ff,
  [CP_TIME_OTHER]            = 0x8c6d46ff,
  [CP_TIME_RUNTIME]          = 0xe69f00ff,
  [CP_TIME_HOST_COMPUTE]     = 0xa5a5a5ff,
  [CP_TIME_IDLE]             = 0,
};

/* An annotation as drawn: copied from the model on the caller's thread. */
typedef struct
{
  CpAnnotationKind  kind;
  gint64            start;
  gint64            end;
  guint             lane;
  gboolean          detached;
  guint32           rgba;
  char             *title;
  char             *body;    /* the text after the first line, or NULL */
  char             *where;   /* the lane's name, or NULL for every lane */
} Note;

typedef struct
{
  gboolean valid;
  double   x, y, w, h;
} Spot;

struct _CpReport
{
  GObject          parent_instance;

  CpTrace         *trace;
  CpAnalysis      *analysis;
  CpViewState     *view;         /* a frozen copy, or NULL */
  GArray          *notes;        /* of Note */
  CpReportOptions  options;
  char            *lane_pattern;
  char            *title;
  gint64           start;        /* the timeline's range */
  gint64           end;

  /* Geometry of the last drawing. */
  int              width;
  int              height;
  GArray          *note_spots;     /* of Spot, one per note */
  GArray          *evidence_spots; /* of Spot, one per finding listed */
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
                       guint          evidence_index)
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
  fixes = cp_finding_get_fixes (finding, CP_FRAMEWORK_PYTORCH);
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

static gboolean
lane_has_content (CpTrace *trace,
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

/* Drawing context --------------------------------------------------------------- */

typedef struct
{
  CpReport              *self;
  CpAnalysis            *analysis;
  cairo_t               *cr;
  gboolean               draw;      /* FALSE: only measure */
  const Colors          *c;
  CpTheme                theme;
  double                 W;         /* page width */
  double                 x0;        /* content left */
  double                 inner;     /* content width */

  PangoContext          *pango;
  PangoLayout           *layout;
  PangoFontDescription  *f_body;
  PangoFontDescription  *f_body_bold;
  PangoFontDescription  *f_small;
  PangoFontDescription  *f_small_bold;
  PangoFontDescription  *f_title;
  PangoFontDescription  *f_h2;
  PangoFontDescription  *f_value;

  /* The findings listed, in order (numbers are index + 1). */
  GPtrArray             *findings;

  /* The timeline. */
  CpPainter             *painter;
  CpViewState           *rv;
  CpTimelineLayout      *tl;
  double                 tl_height;  /* ruler and lanes as drawn */
  guint                  lanes_cut;  /* lanes below what is drawn */

  GString               *text;       /* when set, every text laid out, a line each */
} Ctx;

static void
set_rgba (cairo_t *cr,
          guint32  c)
{
  cairo_set_source_rgba (cr, cp_rgba_r (c), cp_rgba_g (c), cp_rgba_b (c), cp_rgba_a (c));
}

static PangoFontDescription *
font (const char *family,
      double      px,
      PangoWeight weight)
{
  PangoFontDescription *d = pango_font_description_from_string (family);

  pango_font_description_set_absolute_size (d, px * PANGO_SCALE);
  pango_font_description_set_weight (d, weight);
  return d;
}

/* Lays out text (Pango markup when `markup`) in `f`, wrapped at width
 * (unwrapped when width <= 0), at most max_lines lines (0: any); draws it
 * at (x, y) when drawing. Returns its height; its width in *out_w. */
static double
text_full (Ctx                        *ctx,
           const char                 *text,
           gboolean                    markup,
           const PangoFontDescription *f,
           double                      x,
           double                      y,
           double                      width,
           guint32                     color,
           PangoAlignment              align,
           int                         max_lines,
           double                     *out_w)
{
  PangoLayout *l = ctx->layout;
  int w, h;

  pango_layout_set_attributes (l, NULL);
  pango_layout_set_font_description (l, f);
  pango_layout_set_alignment (l, align);
  pango_layout_set_wrap (l, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_width (l, width > 0 ? (int) (width * PANGO_SCALE) : -1);
  if (max_lines > 0)
    {
      pango_layout_set_height (l, -max_lines);
      pango_layout_set_ellipsize (l, PANGO_ELLIPSIZE_END);
    }
  else
    {
      pango_layout_set_height (l, -1);
      pango_layout_set_ellipsize (l, PANGO_ELLIPSIZE_NONE);
    }
  if (markup)
    pango_layout_set_markup (l, text, -1);
  else
    pango_layout_set_text (l, text, -1);
  if (ctx->text != NULL)
    {
      g_string_append (ctx->text, pango_layout_get_text (l));
      g_string_append_c (ctx->text, '\n');
    }
  pango_layout_get_pixel_size (l, &w, &h);
  if (ctx->draw)
    {
      set_rgba (ctx->cr, color);
      cairo_move_to (ctx->cr, x, y);
      pango_cairo_show_layout (ctx->cr, l);
    }
  if (out_w)
    *out_w = w;
  return h;
}

static double
text (Ctx                        *ctx,
      const char                 *str,
      const PangoFontDescription *f,
      double                      x,
      double                      y,
      double                      width,
      guint32                     color)
{
  return text_full (ctx, str, FALSE, f, x, y, width, color, PANGO_ALIGN_LEFT, 0, NULL);
}

static double
text_width (Ctx                        *ctx,
            const char                 *str,
            const PangoFontDescription *f)
{
  gboolean draw = ctx->draw;
  double w;

  ctx->draw = FALSE;
  text_full (ctx, str, FALSE, f, 0, 0, -1, 0, PANGO_ALIGN_LEFT, 0, &w);
  ctx->draw = draw;
  return w;
}

static void
rounded_rect (cairo_t *cr,
              double   x,
              double   y,
              double   w,
              double   h,
              double   r)
{
  r = MIN (r, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

static void
card (Ctx    *ctx,
      double  x,
      double  y,
      double  w,
      double  h,
      guint32 stripe)
{
  if (!ctx->draw)
    return;
  rounded_rect (ctx->cr, x, y, w, h, 8);
  set_rgba (ctx->cr, ctx->c->card);
  cairo_fill_preserve (ctx->cr);
  set_rgba (ctx->cr, ctx->c->border);
  cairo_set_line_width (ctx->cr, 1);
  cairo_stroke (ctx->cr);
  if (stripe != 0)
    {
      cairo_save (ctx->cr);
      rounded_rect (ctx->cr, x, y, w, h, 8);
      cairo_clip (ctx->cr);
      set_rgba (ctx->cr, stripe);
      cairo_rectangle (ctx->cr, x, y, 5, h);
      cairo_fill (ctx->cr);
      cairo_restore (ctx->cr);
    }
}

/* A coloured label with text, round-ended (a pill) or square-cornered (a
 * finding's number tag); returns its width. */
static double
label_box (Ctx        *ctx,
           const char *label,
           double      x,
           double      y,
           guint32     fill,
           gboolean    round)
{
  double w = MAX (text_width (ctx, label, ctx->f_small_bold) + 14, 20);
  double h = 20;

  if (ctx->draw)
    {
      rounded_rect (ctx->cr, x, y, w, h, round ? h / 2 : 3);
      set_rgba (ctx->cr, fill | 0xff);
      cairo_fill (ctx->cr);
    }
  text_full (ctx, label, FALSE, ctx->f_small_bold, x + (w - text_width (ctx, label, ctx->f_small_bold)) / 2,
             y + 2, -1, cp_palette_text_on (fill | 0xff), PANGO_ALIGN_LEFT, 0, NULL);
  return w;
}

static double
pill (Ctx        *ctx,
      const char *label,
      double      x,
      double      y,
      guint32     fill)
{
  return label_box (ctx, label, x, y, fill, TRUE);
}

/* A finding's number, as on the timeline and in the list. */
static double
finding_tag (Ctx        *ctx,
             const char *label,
             double      x,
             double      y,
             guint32     fill)
{
  return label_box (ctx, label, x, y, fill, FALSE);
}

/* Notes are lettered (A, B, ... Z, AA, AB...) so that they never read as
 * the findings' numbers. */
static char *
note_letter (guint index)
{
  if (index < 26)
    return g_strdup_printf ("%c", 'A' + index);
  return g_strdup_printf ("%c%c", 'A' + (index / 26 - 1) % 26, 'A' + index % 26);
}

/* A lettered disc centred at (cx, cy) for the index-th note. */
static void
badge (Ctx    *ctx,
       guint   index,
       double  cx,
       double  cy,
       guint32 fill)
{
  g_autofree char *label = note_letter (index);
  double r = 9, tw;

  if (!ctx->draw)
    return;
  tw = text_width (ctx, label, ctx->f_small_bold);
  r = MAX (r, tw / 2 + 4);
  cairo_arc (ctx->cr, cx, cy, r + 1.5, 0, 2 * G_PI);
  set_rgba (ctx->cr, ctx->theme == CP_THEME_DARK ? 0x000000cc : 0xffffffee);
  cairo_fill (ctx->cr);
  cairo_arc (ctx->cr, cx, cy, r, 0, 2 * G_PI);
  set_rgba (ctx->cr, fill | 0xff);
  cairo_fill (ctx->cr);
  text_full (ctx, label, FALSE, ctx->f_small_bold, cx - tw / 2, cy - 8, -1,
             cp_palette_text_on (fill | 0xff), PANGO_ALIGN_LEFT, 0, NULL);
}

static double
heading (Ctx        *ctx,
         const char *title,
         const char *aside,
         double      y)
{
  double h = text (ctx, title, ctx->f_h2, ctx->x0, y, -1, ctx->c->text);

  if (aside != NULL)
    {
      double tw = text_width (ctx, title, ctx->f_h2);

      text_full (ctx, aside, FALSE, ctx->f_body, ctx->x0 + tw + 12, y + 4,
                 ctx->inner - tw - 12, ctx->c->dim, PANGO_ALIGN_LEFT, 1, NULL);
    }
  return h + 10;
}

static char *
format_date (gint64 unix_seconds,
             gboolean seconds)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (unix_seconds);

  if (dt == NULL)
    return g_strdup ("?");
  return g_date_time_format (dt, seconds ? "%Y-%m-%d %H:%M:%S UTC" : "%Y-%m-%d %H:%M UTC");
}

static char *
format_percent (double v)
{
  if (isnan (v))
    return g_strdup ("—");
  if (v > 0 && v < 1)
    return g_strdup_printf ("%.1f%%", v);
  return g_strdup_printf ("%.0f%%", v);
}

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

static double
section_header (Ctx    *ctx,
                double  y)
{
  CpReport *self = ctx->self;
  CpTrace *trace = self->trace;
  const CpLoadReport *lr = cp_trace_get_load_report (trace);
  g_autofree char *generated = format_date (self->options.generated, FALSE);
  g_autofree char *gen_line = g_strdup_printf (_("Generated %s"), generated);
  g_autoptr(GPtrArray) meta = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) devices = g_string_new (NULL);
  g_autofree char *meta_line = NULL;
  const char *title = self->title;
  double gw;
  guint n_steps = 0;
  CpFinding *worst;

  gw = text_width (ctx, gen_line, ctx->f_small);
  text (ctx, _("CHOKEPOINT REPORT"), ctx->f_small_bold, ctx->x0, y, -1, ctx->c->accent);
  text (ctx, gen_line, ctx->f_small, ctx->x0 + ctx->inner - gw, y, -1, ctx->c->dim);
  y += 22;

  if (title == NULL)
    title = cp_trace_get_title (trace);
  y += text_full (ctx, title ? title : _("Capture"), FALSE, ctx->f_title, ctx->x0, y, ctx->inner,
                  ctx->c->text, PANGO_ALIGN_LEFT, 2, NULL) + 6;

  /* Format, devices, date, span, steps. */
  if (lr != NULL && lr->format != NULL)
    g_ptr_array_add (meta, g_strdup (lr->format));
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
      g_autofree char *when = format_date (cp_trace_get_origin_abs (trace) / CP_NS_PER_S, TRUE);

      g_ptr_array_add (meta, g_strdup_printf (_("captured %s"), when));
    }
  {
    g_autofree char *span = cp_time_format_duration (cp_trace_get_duration (trace));

    g_ptr_array_add (meta, g_strdup_printf (_("span %s"), span));
  }
  cp_analysis_get_steps (ctx->analysis, &n_steps);
  if (cp_analysis_get_step_source (ctx->analysis) == CP_STEPS_NONE)
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
  y += text (ctx, meta_line, ctx->f_body, ctx->x0, y, ctx->inner, ctx->c->dim) + 16;

  /* The verdict: the worst finding, or that there is none. */
  worst = worst_finding (ctx);
  if (worst != NULL)
    {
      CpSeverity sev = cp_finding_get_severity (worst);
      double pw = pill (ctx, cp_severity_get_label (sev), ctx->x0, y + 3,
                        cp_report_severity_color (sev, ctx->theme));
      const char *verdict = cp_analysis_get_verdict (ctx->analysis)->text;

      /* The answer first: the verdict, as plain text. */
      y += MAX (26, text_full (ctx, verdict, FALSE, ctx->f_h2, ctx->x0 + pw + 10, y,
                               ctx->inner - pw - 10, ctx->c->text, PANGO_ALIGN_LEFT, 4, NULL)) + 18;
    }
  else
    {
      double pw = pill (ctx, _("Healthy"), ctx->x0, y + 3, ctx->c->ok);

      y += MAX (26, text (ctx, cp_analysis_get_verdict (ctx->analysis)->text,
                          ctx->f_h2, ctx->x0 + pw + 10, y, ctx->inner - pw - 10, ctx->c->text)) + 18;
    }
  return y;
}

/* Key figures ------------------------------------------------------------------- */

typedef struct
{
  char *label;
  char *value;
  char *sub;
} Tile;

static void
tile_clear (gpointer data)
{
  Tile *t = data;

  g_free (t->label);
  g_free (t->value);
  g_free (t->sub);
}

static double
section_figures (Ctx    *ctx,
                 double  y)
{
  CpAnalysis *a = ctx->analysis;
  g_autoptr(GArray) tiles = g_array_new (FALSE, TRUE, sizeof (Tile));
  CpTimeSummary step;
  const CpDeviceStats *dev;
  guint n_dev = 0, n_steps = 0;
  double tw, th = 0;
  Tile t;

  g_array_set_clear_func (tiles, tile_clear);
  cp_analysis_get_step_summary (a, &step);
  cp_analysis_get_steps (a, &n_steps);
  dev = cp_analysis_get_devices (a, &n_dev);

  /* Step time. */
  t.label = g_strdup (n_steps > 0 ? _("Step time") : _("Capture window"));
  t.value = cp_time_format_duration (step.mean);
  if (n_steps > 1)
    {
      g_autofree char *mn = cp_time_format_duration (step.min);
      g_autofree char *mx = cp_time_format_duration (step.max);

      t.sub = g_strdup_printf (_("mean of %u steps; %s to %s"), n_steps, mn, mx);
    }
  else if (n_steps == 1)
    t.sub = g_strdup (_("one step"));
  else
    t.sub = g_strdup (_("no steps marked: the whole capture is one window"));
  g_array_append_val (tiles, t);

  /* GPU utilisation and idle split. */
  if (n_dev > 0)
    {
      double util = 0, lowest = G_MAXDOUBLE;
      gint64 idle = 0, host = 0, kern = 0, other = 0;
      gint64 window = cp_analysis_get_window_time (a);
      gint lowest_dev = 0;

      for (guint i = 0; i < n_dev; i++)
        {
          util += dev[i].utilization;
          if (dev[i].utilization < lowest)
            {
              lowest = dev[i].utilization;
              lowest_dev = dev[i].device;
            }
          idle += dev[i].idle;
          host += dev[i].idle_host_wait;
          kern += dev[i].idle_kernel_wait;
          other += dev[i].idle_other;
        }
      util /= n_dev;
      t.label = g_strdup (_("GPU utilisation"));
      t.value = format_percent (100 * util);
      if (n_dev == 1)
        {
          g_autofree char *busy = cp_time_format_duration (dev[0].window_busy / MAX (n_steps, 1));

          t.sub = n_steps > 0 ? g_strdup_printf (_("GPU %d runs kernels %s per step"), dev[0].device, busy)
                              : g_strdup_printf (_("GPU %d runs kernels %s"), dev[0].device, busy);
        }
      else
        {
          g_autofree char *lo = format_percent (100 * lowest);

          t.sub = g_strdup_printf (_("mean of %u GPUs; lowest GPU %d at %s"), n_dev, lowest_dev, lo);
        }
      g_array_append_val (tiles, t);

      t.label = g_strdup (_("GPU idle"));
      t.value = format_percent (window > 0 ? 100.0 * idle / ((double) window * n_dev) : NAN);
      if (idle > 0)
        {
          g_autofree char *h = format_percent (100.0 * host / idle);
          g_autofree char *k = format_percent (100.0 * kern / idle);
          g_autofree char *o = format_percent (100.0 * other / idle);

          t.sub = g_strdup_printf (_("of it: waiting for the host %s · between kernels %s · other %s"), h, k, o);
        }
      else
        t.sub = g_strdup (_("never idle inside the steps"));
      g_array_append_val (tiles, t);
    }
  else
    {
      t.label = g_strdup (_("GPU utilisation"));
      t.value = g_strdup ("—");
      t.sub = g_strdup (_("no GPU kernels in the capture"));
      g_array_append_val (tiles, t);
    }

  /* The largest share of step time besides device compute and idle. */
  {
    CpTimeCategory best = CP_TIME_N_CATEGORIES;
    CpTimeSummary best_s = { 0 };

    for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
      {
        CpTimeSummary s;

        if (c == CP_TIME_COMPUTE_16 || c == CP_TIME_COMPUTE_32 || c == CP_TIME_IDLE)
          continue;
        cp_analysis_get_time_summary (a, c, &s);
        if (s.total > best_s.total)
          {
            best = c;
            best_s = s;
          }
      }
    if (best != CP_TIME_N_CATEGORIES)
      {
        g_autofree char *mean = cp_time_format_duration (best_s.mean);

        t.label = g_strdup (_("Largest share besides compute"));
        t.value = format_percent (best_s.percent);
        t.sub = g_strdup_printf (n_steps > 0 ? _("%s, %s per step") : _("%s, %s"),
                                 cp_time_category_get_label (best), mean);
        g_array_append_val (tiles, t);
      }
  }

  tw = (ctx->inner - GAP * (tiles->len - 1)) / tiles->len;
  /* Measure, then draw the cards at the tallest height. */
  for (int pass = 0; pass < 2; pass++)
    {
      gboolean draw = ctx->draw;

      if (pass == 0)
        ctx->draw = FALSE;
      for (guint i = 0; i < tiles->len; i++)
        {
          Tile *ti = &g_array_index (tiles, Tile, i);
          double x = ctx->x0 + i * (tw + GAP);
          double yy = y + CARD_PAD;

          if (pass == 1)
            card (ctx, x, y, tw, th, 0);
          yy += text_full (ctx, ti->label, FALSE, ctx->f_small_bold, x + CARD_PAD, yy, tw - 2 * CARD_PAD,
                           ctx->c->dim, PANGO_ALIGN_LEFT, 1, NULL) + 2;
          yy += text_full (ctx, ti->value, FALSE, ctx->f_value, x + CARD_PAD, yy, tw - 2 * CARD_PAD,
                           ctx->c->text, PANGO_ALIGN_LEFT, 1, NULL) + 2;
          yy += text_full (ctx, ti->sub, FALSE, ctx->f_small, x + CARD_PAD, yy, tw - 2 * CARD_PAD,
                           ctx->c->dim, PANGO_ALIGN_LEFT, 3, NULL);
          if (pass == 0)
            th = MAX (th, yy + CARD_PAD - y);
        }
      ctx->draw = draw;
    }
  return y + th + 28;
}

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
        g_autofree char *letter = note_letter (i);

        label = g_strdup_printf ("%s  %s", letter, n->title);
      }
      c.bw = MIN (text_width (ctx, label, ctx->f_small_bold) + 20, 340);
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

static void
prepare_timeline (Ctx *ctx)
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
          gboolean show = lane_has_content (trace, i, self->start, self->end);

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

static double
section_timeline (Ctx    *ctx,
                  double  y)
{
  CpReport *self = ctx->self;
  g_autofree char *from = self->start == 0 ? g_strdup ("0") : cp_time_format_duration (self->start);
  g_autofree char *to = cp_time_format_duration (self->end);
  g_autofree char *aside = NULL;
  g_autoptr(GArray) callouts = g_array_new (FALSE, FALSE, sizeof (Callout));
  const CpPaletteColors *pc = cp_palette_get_colors (ctx->theme);
  guint n_rows = 0;
  double box_h = 24, band, tl_top;

  if (self->start == 0 && self->end >= cp_trace_get_duration (self->trace))
    aside = g_strdup_printf (_("the whole capture, %s – %s"), from, to);
  else
    aside = g_strdup_printf (_("%s – %s from the start of the capture"), from, to);
  y += heading (ctx, _("Timeline"), aside, y);

  /* Legend. */
  {
    double x = ctx->x0;

    if (ctx->draw)
      {
        set_rgba (ctx->cr, pc->finding_fill);
        cairo_rectangle (ctx->cr, x, y + 3, 22, 12);
        cairo_fill (ctx->cr);
        set_rgba (ctx->cr, pc->finding);
        cairo_set_line_width (ctx->cr, 1.5);
        cairo_rectangle (ctx->cr, x + 0.75, y + 3.75, 20.5, 10.5);
        cairo_stroke (ctx->cr);
      }
    x += 28;
    text (ctx, _("evidence of a finding (numbered as in Findings)"), ctx->f_small, x, y + 1, -1, ctx->c->dim);
    x += text_width (ctx, _("evidence of a finding (numbered as in Findings)"), ctx->f_small) + 24;
    if (self->notes->len > 0)
      {
        badge (ctx, 0, x + 9, y + 9, g_array_index (self->notes, Note, 0).rgba);
        x += 24;
        text (ctx, _("annotation (lettered as in Notes)"), ctx->f_small, x, y + 1, -1, ctx->c->dim);
      }
    y += 28;
  }

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
      set_rgba (ctx->cr, ctx->c->border);
      cairo_set_line_width (ctx->cr, 1);
      cairo_rectangle (ctx->cr, ctx->x0 - 0.5, tl_top - 0.5, ctx->inner + 1, ctx->tl_height + 1);
      cairo_stroke (ctx->cr);
    }

  /* Evidence tags: the widest drawn range of each finding listed. */
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

          finding_tag (ctx, label, spot.x + 2, spot.y + 2, cp_report_severity_color (cp_finding_get_severity (f),
                                                                                ctx->theme));
        }
    }

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
          g_autofree char *letter = note_letter (c->note);
          g_autofree char *label = g_strdup_printf ("%s  %s", letter, n->title);

          if (ctx->draw)
            {
              cairo_set_line_width (ctx->cr, 1.5);
              set_rgba (ctx->cr, n->rgba | 0xff);
              cairo_move_to (ctx->cr, floor (c->ax) + 0.5, by + box_h);
              cairo_line_to (ctx->cr, floor (c->ax) + 0.5, c->ay);
              cairo_stroke (ctx->cr);
              rounded_rect (ctx->cr, c->bx, by, c->bw, box_h, 5);
              set_rgba (ctx->cr, n->rgba | 0xff);
              cairo_fill (ctx->cr);
            }
          text_full (ctx, label, FALSE, ctx->f_small_bold, c->bx + 8, by + 4, c->bw - 14,
                     cp_palette_text_on (n->rgba | 0xff), PANGO_ALIGN_LEFT, 1, NULL);
        }
      badge (ctx, c->note, c->ax, c->ay, n->rgba);
    }

  y = tl_top + ctx->tl_height + 8;
  if (ctx->lanes_cut > 0)
    {
      g_autofree char *cut = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                           "%u more lane is not shown; choose lanes with a pattern",
                                                           "%u more lanes are not shown; choose lanes with a pattern",
                                                           ctx->lanes_cut),
                                              ctx->lanes_cut);

      y += text (ctx, cut, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim) + 4;
    }
  return y + 24;
}

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

static CpFramework
guess_framework (CpTrace *trace)
{
  const CpLoadReport *lr = cp_trace_get_load_report (trace);

  if (lr != NULL && lr->format != NULL && g_str_has_prefix (lr->format, "xplane"))
    return CP_FRAMEWORK_JAX;
  return CP_FRAMEWORK_PYTORCH;
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
  CpFramework fw = guess_framework (ctx->self->trace);

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
        card (ctx, ctx->x0, y, ctx->inner, h, color);

      /* Left: number, severity, title, summary, fixes. */
      {
        g_autofree char *num = g_strdup_printf ("%u", number);
        double nw = finding_tag (ctx, num, lx, ly + 2, color);

        pw = pill (ctx, cp_severity_get_label (sev), lx + nw + 6, ly + 2, color);
        ly += text_full (ctx, cp_finding_get_title (f), FALSE, ctx->f_h2, lx + nw + pw + 16, ly,
                         left_w - nw - pw - 16, ctx->c->text, PANGO_ALIGN_LEFT, 2, NULL) + 8;
      }
      if (cp_finding_get_summary (f) != NULL)
        ly += text (ctx, cp_finding_get_summary (f), ctx->f_body, lx, ly, left_w, ctx->c->text) + 10;
      fixes = cp_finding_get_fixes (f, fw);
      if (fixes != NULL && fixes[0] != NULL)
        {
          g_autofree char *head = g_strdup_printf (_("What to change (%s)"), cp_framework_get_label (fw));

          ly += text (ctx, head, ctx->f_small_bold, lx, ly, left_w, ctx->c->dim) + 4;
          for (guint k = 0; fixes[k] != NULL && k < 3; k++)
            {
              text (ctx, "•", ctx->f_body, lx + 2, ly, -1, color);
              ly += text (ctx, fixes[k], ctx->f_body, lx + 16, ly, left_w - 16, ctx->c->text) + 4;
            }
        }

      /* Right: time at stake, measured figures beside their thresholds. */
      {
        gint64 per_step = cp_finding_get_time_at_stake_per_step (f);
        gint64 total = cp_finding_get_time_at_stake (f);
        g_autofree char *d = cp_time_format_duration (per_step > 0 ? per_step : total);
        g_autofree char *stake = g_strdup_printf (per_step > 0 ? _("up to %s per step") : _("up to %s in total"), d);

        ry += text (ctx, _("Time at stake"), ctx->f_small_bold, right_x, ry, right_w, ctx->c->dim) + 2;
        ry += text (ctx, stake, ctx->f_body_bold, right_x, ry, right_w, ctx->c->text) + 10;
      }
      figs = cp_finding_get_figures (f, &n_figs);
      if (n_figs > 0)
        ry += text (ctx, _("Measured"), ctx->f_small_bold, right_x, ry, right_w, ctx->c->dim) + 4;
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

          ry += text_full (ctx, line, TRUE, ctx->f_small, right_x, ry, right_w, ctx->c->text,
                           PANGO_ALIGN_LEFT, 3, NULL) + 4;
        }
      if (cp_finding_get_evidence_total (f) > 0)
        {
          g_autofree char *evl = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                               "%" PRIu64 " evidence range on the timeline",
                                                               "%" PRIu64 " evidence ranges on the timeline",
                                                               cp_finding_get_evidence_total (f)),
                                                  cp_finding_get_evidence_total (f));

          ry += 4 + text (ctx, evl, ctx->f_small, right_x, ry + 4, right_w, ctx->c->dim);
        }
      ctx->draw = draw;
      if (pass == 0)
        h = MAX (ly, ry) - y + CARD_PAD - 4;
    }
  return y + h + 12;
}

static double
section_findings (Ctx    *ctx,
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
  y += heading (ctx, _("Findings"), aside, y);
  if (ctx->findings->len == 0)
    return y + text (ctx, _("No findings: no rule’s threshold is reached."), ctx->f_body, ctx->x0, y,
                     ctx->inner, ctx->c->dim) + 28;

  /* In the one order, under a title per section. */
  for (guint i = 0; i < ctx->findings->len; i++)
    {
      CpFinding *f = g_ptr_array_index (ctx->findings, i);
      CpFindingSection section = cp_finding_get_section (f);

      if (section == CP_FINDING_SECTION_INFO)
        continue;
      if (i == 0 || cp_finding_get_section (g_ptr_array_index (ctx->findings, i - 1)) != section)
        y += text (ctx, cp_analysis_get_section_title (ctx->analysis, section), ctx->f_body_bold,
                   ctx->x0, y, ctx->inner, ctx->c->dim) + 8;
      y = finding_card (ctx, f, i + 1, y);
    }
  if (n_info > 0)
    y += text (ctx, cp_analysis_get_section_title (ctx->analysis, CP_FINDING_SECTION_INFO), ctx->f_body_bold,
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
      pw = pill (ctx, cp_severity_get_label (CP_SEVERITY_INFO), ctx->x0, y, ctx->c->info);
      y += MAX (22, text_full (ctx, t, TRUE, ctx->f_body, ctx->x0 + pw + 10, y + 1, ctx->inner - pw - 10,
                               ctx->c->text, PANGO_ALIGN_LEFT, 2, NULL)) + 8;
    }
  return y + 20;
}

/* Steps --------------------------------------------------------------------------- */

static guint32
category_color (Ctx            *ctx,
                CpTimeCategory  c)
{
  if (c == CP_TIME_IDLE)
    return ctx->c->idle;
  return category_colors[c];
}

/* A 1-2-5 step that gives about `want` divisions of max. */
static gint64
nice_step (gint64 max,
           int    want)
{
  gint64 step = 1;

  while (step * want < max)
    {
      if (step * 2 * want >= max)
        return step * 2;
      if (step * 5 * want >= max)
        return step * 5;
      step *= 10;
    }
  return step;
}

static double
section_steps (Ctx    *ctx,
               double  y)
{
  CpAnalysis *a = ctx->analysis;
  guint n_steps = 0, n_windows = 0;
  const CpStepStats *steps = cp_analysis_get_steps (a, &n_steps);
  const CpInterval *windows = cp_analysis_get_windows (a, &n_windows);
  double axis_w = 64, chart_h = 220;
  double cx = ctx->x0 + axis_w, cw = ctx->inner - axis_w;
  guint per_col, n_cols;
  gint64 max_len = 1, grid;
  g_autofree char *aside = NULL;

  if (n_steps > 0)
    aside = g_strdup (_("time per step, by what the device and the host were doing"));
  else
    aside = g_strdup (_("no steps marked: the whole capture as one window"));
  y += heading (ctx, _("Step breakdown"), aside, y);

  /* Columns: one per step, or per group of steps when they are many. */
  if (n_steps > 0)
    {
      per_col = MAX (1, (guint) ceil (n_steps / floor (cw / 6)));
      n_cols = (n_steps + per_col - 1) / per_col;
    }
  else
    {
      per_col = 1;
      n_cols = 1;
    }

  /* The tallest column. */
  for (guint col = 0; col < n_cols; col++)
    {
      gint64 len = 0;

      if (n_steps == 0)
        len = n_windows > 0 ? cp_analysis_get_window_time (a) : 1;
      else
        {
          for (guint k = col * per_col; k < MIN (n_steps, (col + 1) * per_col); k++)
            len += steps[k].end - steps[k].start;
          len /= MIN (n_steps, (col + 1) * per_col) - col * per_col;
        }
      max_len = MAX (max_len, len);
    }
  grid = nice_step (max_len, 4);
  max_len = ((max_len + grid - 1) / grid) * grid;
  (void) windows;

  if (ctx->draw)
    {
      cairo_t *cr = ctx->cr;
      double col_w = cw / n_cols;
      double bar_w = MAX (1, MIN (col_w * 0.72, 64));

      /* Grid and axis labels. */
      for (gint64 v = 0; v <= max_len; v += grid)
        {
          double gy = y + chart_h - chart_h * v / max_len;
          g_autofree char *label = cp_time_format_duration (v);
          double lw = text_width (ctx, label, ctx->f_small);

          set_rgba (cr, ctx->c->border);
          cairo_rectangle (cr, cx, floor (gy), cw, 1);
          cairo_fill (cr);
          text (ctx, label, ctx->f_small, cx - lw - 8, gy - 8, -1, ctx->c->dim);
        }

      for (guint col = 0; col < n_cols; col++)
        {
          gint64 t[CP_TIME_N_CATEGORIES] = { 0 };
          guint first = col * per_col, last = MIN (n_steps, (col + 1) * per_col);
          double bx = cx + col * col_w + (col_w - bar_w) / 2;
          double by = y + chart_h;
          gboolean outlier = FALSE;

          if (n_steps == 0)
            {
              for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
                {
                  CpTimeSummary s;

                  cp_analysis_get_time_summary (a, c, &s);
                  t[c] = s.total;
                }
            }
          else
            {
              for (guint k = first; k < last; k++)
                {
                  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
                    t[c] += steps[k].time[c];
                  outlier |= steps[k].outlier;
                }
              for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
                t[c] /= last - first;
            }
          /* Compute at the bottom, idle on top. */
          for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
            {
              double hh = chart_h * (double) t[c] / (double) max_len;

              if (hh <= 0)
                continue;
              set_rgba (cr, category_color (ctx, c));
              cairo_rectangle (cr, bx, by - hh, bar_w, hh);
              cairo_fill (cr);
              by -= hh;
            }
          if (outlier)
            {
              set_rgba (cr, ctx->c->high);
              cairo_move_to (cr, bx + bar_w / 2 - 5, by - 10);
              cairo_line_to (cr, bx + bar_w / 2 + 5, by - 10);
              cairo_line_to (cr, bx + bar_w / 2, by - 3);
              cairo_close_path (cr);
              cairo_fill (cr);
            }
        }

      /* Step numbers under the columns, as many as fit. */
      {
        double last_end = -G_MAXDOUBLE;

        for (guint col = 0; col < n_cols; col++)
          {
            g_autofree char *label = NULL;
            double lw, lx;

            if (n_steps == 0)
              label = g_strdup (_("whole capture"));
            else if (per_col == 1)
              label = g_strdup_printf ("#%" G_GINT64_FORMAT, steps[col].number);
            else
              label = g_strdup_printf ("#%" G_GINT64_FORMAT "–%" G_GINT64_FORMAT, steps[col * per_col].number,
                                       steps[MIN (n_steps, (col + 1) * per_col) - 1].number);
            lw = text_width (ctx, label, ctx->f_small);
            lx = cx + col * (cw / n_cols) + (cw / n_cols - lw) / 2;
            if (lx < last_end + 10)
              continue;
            text (ctx, label, ctx->f_small, lx, y + chart_h + 6, -1, ctx->c->dim);
            last_end = lx + lw;
          }
      }
    }
  y += chart_h + 30;

  /* Legend with each category's mean and share. */
  {
    double x = ctx->x0, row_h = 22;
    gboolean any_outlier = FALSE;

    for (guint k = 0; k < n_steps; k++)
      any_outlier |= steps[k].outlier;
    for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
      {
        CpTimeSummary s;
        g_autofree char *mean = NULL;
        g_autofree char *pct = NULL;
        g_autofree char *label = NULL;
        double lw;

        cp_analysis_get_time_summary (a, c, &s);
        if (s.total <= 0)
          continue;
        mean = cp_time_format_duration (s.mean);
        pct = format_percent (s.percent);
        label = g_strdup_printf ("%s  %s · %s", cp_time_category_get_label (c), mean, pct);
        lw = text_width (ctx, label, ctx->f_small) + 16 + 24;
        if (x + lw > ctx->x0 + ctx->inner)
          {
            x = ctx->x0;
            y += row_h;
          }
        if (ctx->draw)
          {
            set_rgba (ctx->cr, category_color (ctx, c));
            cairo_rectangle (ctx->cr, x, y + 3, 12, 12);
            cairo_fill (ctx->cr);
          }
        text (ctx, label, ctx->f_small, x + 18, y, -1, ctx->c->text);
        x += lw;
      }
    if (any_outlier)
      {
        const char *o = _("▼ outlier step");
        double lw = text_width (ctx, o, ctx->f_small) + 16;

        if (x + lw > ctx->x0 + ctx->inner)
          {
            x = ctx->x0;
            y += row_h;
          }
        text (ctx, o, ctx->f_small, x, y, -1, ctx->c->high);
      }
    y += row_h + 28;
  }
  return y;
}

/* Notes ------------------------------------------------------------------------- */

static double
section_notes (Ctx    *ctx,
               double  y)
{
  CpReport *self = ctx->self;
  guint shown = MIN (self->notes->len, MAX_NOTES_LISTED);
  double col_w = (ctx->inner - GAP) / 2;
  double col_y[2];

  y += heading (ctx, _("Notes"), NULL, y);
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

      badge (ctx, i, x + 10, yy + 10, n->rgba);
      yy += text (ctx, n->title, ctx->f_body_bold, x + 28, yy, col_w - 28, ctx->c->text) + 1;
      yy += text (ctx, meta->str, ctx->f_small, x + 28, yy, col_w - 28, ctx->c->dim) + 2;
      if (n->body != NULL)
        yy += text_full (ctx, n->body, FALSE, ctx->f_body, x + 28, yy, col_w - 28, ctx->c->text,
                         PANGO_ALIGN_LEFT, 6, NULL) + 2;
      col_y[col] = yy + 12;
    }
  y = MAX (col_y[0], col_y[1]);
  if (self->notes->len > shown)
    {
      g_autofree char *more = g_strdup_printf (_("and %u more"), self->notes->len - shown);

      y += text (ctx, more, ctx->f_small, ctx->x0, y, -1, ctx->c->dim) + 4;
    }
  return y + 20;
}

/* The whole page ------------------------------------------------------------------ */

static double
compose (Ctx *ctx)
{
  CpReport *self = ctx->self;
  double y = PAD;

  if (ctx->draw)
    {
      set_rgba (ctx->cr, ctx->c->page);
      cairo_paint (ctx->cr);
    }
  y = section_header (ctx, y);
  y = section_figures (ctx, y);
  y = section_timeline (ctx, y);
  if (self->options.findings)
    y = section_findings (ctx, y);
  if (self->options.steps)
    y = section_steps (ctx, y);
  if (self->options.annotations && self->notes->len > 0)
    y = section_notes (ctx, y);
  {
    g_autofree char *foot = g_strdup_printf (_("Made with Chokepoint %s. Times are from the start of the "
                                               "capture; findings and figures cover the whole capture."),
                                             PACKAGE_VERSION);

    y += text (ctx, foot, ctx->f_small, ctx->x0, y, ctx->inner, ctx->c->dim);
  }
  return ceil (y + PAD);
}

static void
ctx_clear (Ctx *ctx)
{
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
  ctx->f_body = font ("Sans", 14, PANGO_WEIGHT_NORMAL);
  ctx->f_body_bold = font ("Sans", 14, PANGO_WEIGHT_BOLD);
  ctx->f_small = font ("Sans", 12, PANGO_WEIGHT_NORMAL);
  ctx->f_small_bold = font ("Sans", 12, PANGO_WEIGHT_BOLD);
  ctx->f_title = font ("Sans", 26, PANGO_WEIGHT_BOLD);
  ctx->f_h2 = font ("Sans", 18, PANGO_WEIGHT_BOLD);
  ctx->f_value = font ("Sans", 28, PANGO_WEIGHT_BOLD);

  ctx->findings = g_ptr_array_new_with_free_func (g_object_unref);
  findings = cp_analysis_get_findings (ctx->analysis);
  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    g_ptr_array_add (ctx->findings, g_list_model_get_item (findings, i));
  /* The model is in the one order of findings (cp_findings_compare()). */

  prepare_timeline (ctx);
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
}
