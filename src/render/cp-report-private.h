/* cp-report-private.h: what the report and its sections share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <pango/pangocairo.h>

#include "cp-painter.h"
#include "analysis/cp-compare.h"
#include "analysis/cp-job.h"
#include "cp-job-chart.h"
#include "cp-report.h"
#include "cp-time-format.h"

G_BEGIN_DECLS

/* Sizes in logical pixels. */
#define PAD              40.0    /* page margin */
#define GAP              16.0
#define CARD_PAD         16.0
#define MAX_HIGHLIGHTS   4000    /* evidence ranges drawn on the timeline */
#define MAX_NOTES_LISTED 60
#define MAX_CALLOUT_ROWS 4
#define MAX_SURFACE_PX   32000   /* cairo's image surfaces stop at 32767 */

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

  /* A comparison report (cp_report_new_compare()): the two sides' timeline
   * reports, and what the last drawing showed. NULL for one capture. */
  CpComparison    *comparison;
  CpReport        *side[2];
  GArray          *waterfall;      /* of CpReportBar */
  GArray          *changes;        /* of CpReportChange */
  gint64           axis_span;      /* a side: the shared time scale's span (0: none) */

  /* A job report (cp_report_new_job()) and its heat map as last drawn;
   * NULL for one capture. */
  CpJob           *job;
  CpJobHeatmap     heatmap;

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

typedef struct _Ctx Ctx;

struct _Ctx
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

  Ctx                   *side[2];    /* a comparison's timelines, each with its own report */
};

/* cp-report.c */
gboolean cp_report_lane_has_content (CpTrace *trace,
                                     guint    lane_index,
                                     gint64   t0,
                                     gint64   t1);

/* cp-report-draw.c */
void cp_report_set_rgba (cairo_t *cr,
                         guint32  c);
PangoFontDescription *cp_report_font (const char *family,
                                      double      px,
                                      PangoWeight weight);
double cp_report_text_full (Ctx                        *ctx,
                            const char                 *text,
                            gboolean                    markup,
                            const PangoFontDescription *f,
                            double                      x,
                            double                      y,
                            double                      width,
                            guint32                     color,
                            PangoAlignment              align,
                            int                         max_lines,
                            double                     *out_w);
double cp_report_text (Ctx                        *ctx,
                       const char                 *str,
                       const PangoFontDescription *f,
                       double                      x,
                       double                      y,
                       double                      width,
                       guint32                     color);
double cp_report_text_width (Ctx                        *ctx,
                             const char                 *str,
                             const PangoFontDescription *f);
void cp_report_rounded_rect (cairo_t *cr,
                             double   x,
                             double   y,
                             double   w,
                             double   h,
                             double   r);
void cp_report_card (Ctx    *ctx,
                     double  x,
                     double  y,
                     double  w,
                     double  h,
                     guint32 stripe);
double cp_report_pill (Ctx        *ctx,
                       const char *label,
                       double      x,
                       double      y,
                       guint32     fill);
double cp_report_finding_tag (Ctx        *ctx,
                              const char *label,
                              double      x,
                              double      y,
                              guint32     fill);
char *cp_report_note_letter (guint index);
void cp_report_badge (Ctx    *ctx,
                      guint   index,
                      double  cx,
                      double  cy,
                      guint32 fill);
double cp_report_heading (Ctx        *ctx,
                          const char *title,
                          const char *aside,
                          double      y);
char *cp_report_format_date (gint64 unix_seconds,
                             gboolean seconds);
char *cp_report_format_percent (double v);

/* cp-report-header.c */
double cp_report_section_header (Ctx    *ctx,
                                 double  y);

/* cp-report-figures.c */
double cp_report_section_figures (Ctx    *ctx,
                                  double  y);

/* cp-report-timeline.c */
void cp_report_prepare_timeline (Ctx *ctx);
double cp_report_section_timeline (Ctx    *ctx,
                                   double  y);
double cp_report_timeline_body (Ctx    *ctx,
                                 double  y);

/* cp-report-findings.c */
double cp_report_section_findings (Ctx    *ctx,
                                   double  y);

/* cp-report-steps.c */
double cp_report_section_steps (Ctx    *ctx,
                                double  y);

/* cp-report-compare.c */
double cp_report_compose_compare (Ctx *ctx);

/* cp-report-job.c */
double cp_report_compose_job (Ctx *ctx);

/* cp-report-notes.c */
double cp_report_section_notes (Ctx    *ctx,
                                double  y);

G_END_DECLS
