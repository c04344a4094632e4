/* cp-finding.h: one diagnosed problem, its figures, evidence and fixes
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "cp-intervals.h"

G_BEGIN_DECLS

typedef enum
{
  CP_SEVERITY_INFO,
  CP_SEVERITY_MODERATE,
  CP_SEVERITY_HIGH,
} CpSeverity;

typedef enum
{
  CP_FRAMEWORK_PYTORCH,
  CP_FRAMEWORK_JAX,
  CP_FRAMEWORK_TENSORFLOW,
  CP_N_FRAMEWORKS
} CpFramework;

/* A measured figure, beside the thresholds it is compared with. */
typedef struct
{
  char   *id;          /* stable key, e.g. "input_percent" */
  char   *label;       /* for people, translated */
  double  value;
  char   *unit;        /* "%", "ns", "count", "ratio", "GB/s", "bytes" */
  char   *comparison;  /* ">=", ">", "<", "any"; NULL when not compared */
  double  moderate;    /* NAN when the level does not exist */
  double  high;
} CpFigure;

/* Where to look: a time range on one lane of the trace. */
typedef struct
{
  guint  lane;
  gint64 start;
  gint64 end;
  guint  count;   /* the ranges found that it covers (slices, or their parts the rule counts) */
} CpEvidence;

/* At most this many evidence ranges are kept per finding (the longest); the
 * total is still counted. Once windows are set, the ranges found are merged
 * into one per window (step) and lane first, those between windows per gap
 * between them. */
#define CP_FINDING_MAX_EVIDENCE 500

#define CP_TYPE_FINDING (cp_finding_get_type ())

G_DECLARE_FINAL_TYPE (CpFinding, cp_finding, CP, FINDING, GObject)

CpFinding        *cp_finding_new                  (const char   *rule_id,
                                                   const char   *title,
                                                   CpSeverity    severity);

const char       *cp_finding_get_rule_id          (CpFinding    *self);
const char       *cp_finding_get_title            (CpFinding    *self);
CpSeverity        cp_finding_get_severity         (CpFinding    *self);
void              cp_finding_set_severity         (CpFinding    *self,
                                                   CpSeverity    severity);
/* The severity the thresholds gave before a more specific finding explained
 * the same time (demotion); equal to the severity otherwise. */
CpSeverity        cp_finding_get_measured_severity (CpFinding   *self);
const char       *cp_finding_get_summary          (CpFinding    *self);
void              cp_finding_set_summary          (CpFinding    *self,
                                                   const char   *summary);
const char       *cp_finding_get_source           (CpFinding    *self);
void              cp_finding_set_source           (CpFinding    *self,
                                                   const char   *source);

void              cp_finding_add_figure           (CpFinding    *self,
                                                   const char   *id,
                                                   const char   *label,
                                                   double        value,
                                                   const char   *unit,
                                                   const char   *comparison,
                                                   double        moderate,
                                                   double        high);
const CpFigure   *cp_finding_get_figures          (CpFinding    *self,
                                                   guint        *n_figures);
const CpFigure   *cp_finding_lookup_figure        (CpFinding    *self,
                                                   const char   *id);

/* Evidence is collected freely, then finished: the longest
 * CP_FINDING_MAX_EVIDENCE ranges are kept, sorted by start. */
void              cp_finding_add_evidence         (CpFinding    *self,
                                                   guint         lane,
                                                   gint64        start,
                                                   gint64        end);
void              cp_finding_finish_evidence      (CpFinding    *self);
/* Merge the evidence added from now on per window and lane (sorted,
 * disjoint windows; copied). */
void              cp_finding_set_evidence_windows (CpFinding    *self,
                                                   const CpInterval *windows,
                                                   guint         n_windows);
/* How many ranges were found in all, before merging and the cut. */
guint64           cp_finding_get_evidence_found   (CpFinding    *self);
const CpEvidence *cp_finding_get_evidence         (CpFinding    *self,
                                                   guint        *n_evidence);
/* How many ranges there were before the cut (after merging). */
guint64           cp_finding_get_evidence_total   (CpFinding    *self);

gint64            cp_finding_get_time_at_stake    (CpFinding    *self);
gint64            cp_finding_get_time_at_stake_per_step (CpFinding *self);
void              cp_finding_set_time_at_stake    (CpFinding    *self,
                                                   gint64        total,
                                                   gint64        per_step);

/* Fix suggestions (translated), NULL-terminated. */
void              cp_finding_set_fixes            (CpFinding          *self,
                                                   CpFramework         framework,
                                                   const char * const *fixes);
const char * const *cp_finding_get_fixes          (CpFinding    *self,
                                                   CpFramework   framework);

/* The rule id of the finding that explains this one's time, or NULL. */
const char       *cp_finding_get_explained_by     (CpFinding    *self);
void              cp_finding_demote               (CpFinding    *self,
                                                   const char   *explained_by);

const char       *cp_severity_to_string           (CpSeverity    severity);
gboolean          cp_severity_from_string         (const char   *str,
                                                   CpSeverity   *severity);
/* Translated, capitalised name of the severity. */
const char       *cp_severity_get_label           (CpSeverity    severity);
/* Symbolic icon name for the severity. */
const char       *cp_severity_get_icon_name       (CpSeverity    severity);
const char       *cp_framework_to_string          (CpFramework   framework);
/* "pytorch", "jax", "tensorflow" back to the framework; FALSE for others. */
gboolean          cp_framework_from_string        (const char   *str,
                                                   CpFramework  *framework);
const char       *cp_framework_get_label          (CpFramework   framework);

/* A figure's value (or one of its thresholds) with its unit, for people:
 * "23.4%", "0.482", "41.0 ms", "12.50 GB/s", "1.2 GB", "12". */
char             *cp_figure_format                (const CpFigure *figure,
                                                   double          value);
/* Its thresholds as "moderate >= 5.0%, high >= 20.0%", or NULL. */
char             *cp_figure_format_thresholds     (const CpFigure *figure);

/* "41 ms", "1.25 s", "830 µs", "120 ns". */
char             *cp_format_ns              (gint64        ns);

G_END_DECLS
