/* cp-report.h: the annotated report image (PNG, SVG or PDF) of a capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-compare.h"
#include "analysis/cp-job.h"
#include "cp-job-chart.h"
#include "model/cp-annotations.h"
#include "cp-palette.h"
#include "cp-view-state.h"

G_BEGIN_DECLS

typedef enum
{
  CP_REPORT_RANGE_ALL,       /* the whole capture */
  CP_REPORT_RANGE_VIEW,      /* the view's visible range */
  CP_REPORT_RANGE_CUSTOM,    /* [start, end) of the options */
} CpReportRange;

typedef enum
{
  CP_REPORT_LANES_ALL,       /* every lane with something in the range */
  CP_REPORT_LANES_VISIBLE,   /* the lanes the view shows (hidden, collapsed and pinned as there) */
  CP_REPORT_LANES_PATTERN,   /* lanes matching lane_pattern, with something in the range */
} CpReportLanes;

typedef enum
{
  CP_REPORT_FORMAT_PNG,
  CP_REPORT_FORMAT_SVG,
  CP_REPORT_FORMAT_PDF,
} CpReportFormat;

/* Limits of the options. */
#define CP_REPORT_MIN_WIDTH      480
#define CP_REPORT_MAX_WIDTH      8000
#define CP_REPORT_DEFAULT_WIDTH  1600
#define CP_REPORT_MIN_SCALE      0.5
#define CP_REPORT_MAX_SCALE      4.0

typedef struct
{
  CpReportRange  range;
  gint64         start;          /* CP_REPORT_RANGE_CUSTOM: ns from the origin */
  gint64         end;
  CpReportLanes  lanes;
  const char    *lane_pattern;   /* comma-separated globs, see cp_report_lane_matches() */
  gboolean       findings;       /* the findings with figures and fixes */
  gboolean       steps;          /* the step breakdown chart */
  gboolean       annotations;    /* callouts on the timeline and the list of notes */
  int            width;          /* logical pixels (points for SVG and PDF) */
  double         scale;          /* device pixels per logical pixel (PNG) */
  CpTheme        theme;
  gint64         generated;      /* the report's date, Unix seconds; 0: now, or
                                  * $SOURCE_DATE_EPOCH when set */
  const char    *title;          /* NULL: the capture's name */
} CpReportOptions;

/* Whole capture, every lane, everything included, 1600 px at scale 1,
 * light. */
void           cp_report_options_init   (CpReportOptions *options);

#define CP_REPORT_ERROR (cp_report_error_quark ())

typedef enum
{
  CP_REPORT_ERROR_INVALID,   /* options that make no report: empty range, no lane... */
  CP_REPORT_ERROR_FORMAT,    /* a file name whose extension is not .png, .svg or .pdf */
  CP_REPORT_ERROR_FAILED,    /* drawing or writing failed */
} CpReportError;

GQuark         cp_report_error_quark    (void);

#define CP_TYPE_REPORT (cp_report_get_type ())

G_DECLARE_FINAL_TYPE (CpReport, cp_report, CP, REPORT, GObject)

/* A report of trace. analysis may be NULL (it is computed when drawing);
 * annotations and view may be NULL. The annotations and the view are copied
 * here, on the calling thread, so that the window may go on changing them
 * while a worker draws. Fails (CP_REPORT_ERROR_INVALID) for options that make
 * no report. The window and `chokepoint report` both draw through this. */
CpReport      *cp_report_new            (CpTrace                *trace,
                                         CpAnalysis             *analysis,
                                         CpAnnotations          *annotations,
                                         CpViewState            *view,
                                         const CpReportOptions  *options,
                                         GError                **error);

/* A report comparing two captures: the step time A → B, the waterfall of
 * the categories whose change adds up to it (cp_comparison_explain()),
 * both timelines on one time scale, each from the start of its typical
 * step (cp_comparison_get_typical_step()) for as long as the longer of the
 * two typical steps, and the kernels that changed most. Of the options
 * only width, scale, theme, generated and title count. The typical steps
 * are read here. Fails (CP_REPORT_ERROR_INVALID) for options that make no
 * report. */
CpReport      *cp_report_new_compare    (CpComparison           *comparison,
                                         const CpReportOptions  *options,
                                         GError                **error);

/* A report of a job (several ranks of one run): the straggler with its
 * evidence, each rank's mean step as a stacked bar side by side, the heat
 * map of arrival delays (collective × rank) with its legend, and the job
 * findings with their fixes. Of the options only width, scale, theme,
 * generated and title count. */
CpReport      *cp_report_new_job        (CpJob                  *job,
                                         const CpReportOptions  *options,
                                         GError                **error);
/* Where a job report's heat map was last drawn (logical pixels); FALSE
 * for other reports or before the first drawing. */
gboolean       cp_report_get_job_heatmap (CpReport              *self,
                                          CpJobHeatmap          *map);

/* The most kernel changes a comparison report lists. */
#define CP_REPORT_MAX_CHANGES 12

/* A bar of a comparison report's waterfall as last drawn: the first is
 * A's mean step time (from 0), then one per category, from the running sum
 * before it to the one after, and the last is B's mean step time. */
typedef struct
{
  const char *label;     /* as drawn */
  gint        category;  /* CpTimeCategory, or -1 for the step times */
  gint64      value;     /* ns: the step time, or the category's delta per step */
  gint64      from;      /* ns: where the bar starts on the scale */
  gint64      to;        /* ns: where it ends */
  double      x0;        /* logical pixels: the bar's left and right edges */
  double      x1;
} CpReportBar;

/* A row of a comparison report's kernel changes as last drawn. */
typedef struct
{
  const char    *key;    /* the kernel's key (cp_comparison_get_kernels()) */
  CpCompareSide  side;
  gint64         a;      /* ns per step */
  gint64         b;
  gint64         delta;
} CpReportChange;

const CpReportBar    *cp_report_get_waterfall (CpReport *self,
                                               guint    *n_bars);
const CpReportChange *cp_report_get_changes   (CpReport *self,
                                               guint    *n_changes);
/* The time window a comparison report's timeline of a side (0: A, 1: B)
 * shows, in ns from that capture's start; FALSE for a report of one
 * capture. */
gboolean       cp_report_get_compare_window (CpReport *self,
                                             guint     side,
                                             gint64   *start,
                                             gint64   *end);

/* Draws the report into a new image surface (width x scale pixels wide). */
cairo_surface_t *cp_report_render_image (CpReport               *self,
                                         GCancellable           *cancellable,
                                         GError                **error);
/* Writes the report to file as PNG, SVG or PDF by its extension (replacing
 * it whole, never leaving half a file). Blocking. */
gboolean       cp_report_write          (CpReport               *self,
                                         GFile                  *file,
                                         GCancellable           *cancellable,
                                         GError                **error);
/* The same in a worker thread. */
void           cp_report_write_async    (CpReport               *self,
                                         GFile                  *file,
                                         GCancellable           *cancellable,
                                         GAsyncReadyCallback     callback,
                                         gpointer                user_data);
gboolean       cp_report_write_finish   (CpReport               *self,
                                         GAsyncResult           *result,
                                         GError                **error);

/* Every text the report lays out, as it reads once markup is applied (a
 * line per text, in drawing order): what a reader of the image sees, for
 * tests and for copying. Blocking. */
char          *cp_report_get_text       (CpReport               *self,
                                         GCancellable           *cancellable,
                                         GError                **error);

/* The size of the last drawing, in logical pixels. */
void           cp_report_get_size       (CpReport               *self,
                                         int                    *width,
                                         int                    *height);
/* Where things were drawn, in logical pixels, for tests: the badge of the
 * n-th annotation (0-based, in time order) and the first evidence of the
 * n-th finding listed. FALSE when it is not on the timeline. */
gboolean       cp_report_get_note_point (CpReport               *self,
                                         guint                   n,
                                         double                 *x,
                                         double                 *y);
gboolean       cp_report_get_evidence_rect (CpReport            *self,
                                            guint                n,
                                            double              *x,
                                            double              *y,
                                            double              *width,
                                            double              *height);

/* The format a file name asks for; FALSE when its extension is none of
 * .png, .svg, .pdf (case-insensitive). */
gboolean       cp_report_format_for_name (const char            *name,
                                          CpReportFormat        *format);

/* "1500" (ns), "1.5us", "1.5µs", "120ms", "1.5s" -> ns; FALSE with
 * CP_REPORT_ERROR_INVALID for anything else. */
gboolean       cp_report_parse_time     (const char             *text,
                                         gint64                 *ns,
                                         GError                **error);
/* "START:END" with times as above; either side may be empty (the start or
 * the end of the capture: *start = 0, *end = G_MAXINT64). */
gboolean       cp_report_parse_range    (const char             *text,
                                         gint64                 *start,
                                         gint64                 *end,
                                         GError                **error);

/* Whether a lane matches a pattern: comma-separated shell globs (* and ?),
 * case-insensitive, against the lane's name, its process or device name
 * ("GPU 0", "python3 (pid 123)"), "group/lane", and its kind
 * (host-thread, kernel, transfer, device-annotation, async, counter). */
gboolean       cp_report_lane_matches   (CpTrace                *trace,
                                         guint                   lane,
                                         const char             *pattern);

/* Colours of severities for the report and the window's notes. */
guint32        cp_report_severity_color (CpSeverity              severity,
                                         CpTheme                 theme);

/* Pins the n-th evidence of a finding as a note: its title, the time at
 * stake and the first fix for framework (the one that leads the capture's
 * fix order, cp_analysis_get_fix_order()) as text, its severity's colour,
 * its rule id. */
CpAnnotation  *cp_report_pin_finding    (CpAnnotations          *annotations,
                                         CpFinding              *finding,
                                         guint                   evidence_index,
                                         CpFramework             framework);

/* Sets view's marks to the annotations (labels: their titles), so the
 * timeline draws them. */
void           cp_report_set_view_marks (CpViewState            *view,
                                         CpAnnotations          *annotations);

G_END_DECLS
