/* cp-rules.h: the rule catalog (one table: metric, thresholds, source, fixes)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-finding.h"
#include "cp-framework.h"

G_BEGIN_DECLS

typedef enum
{
  CP_RULE_CAUSE,    /* names a reason the device waits or works slowly */
  CP_RULE_SYMPTOM,  /* describes idle time; demoted to info when a cause explains it */
  CP_RULE_RISK,     /* a risk to the run (memory that keeps growing): neither why
                     * the device waits nor a speed-up; listed with the notes
                     * ("Also Noted") at its own severity */
} CpRuleKind;

/* Why the device waits: the idle causes a rule measures. Rules with none
 * are symptoms of idle time or speed-ups that apply once the device is busy
 * (mixed precision, memory, DataParallel). */
typedef enum
{
  CP_IDLE_CAUSE_NONE,
  CP_IDLE_CAUSE_INPUT,          /* data loading, the input pipeline */
  CP_IDLE_CAUSE_HOST,           /* host overhead and kernel launches */
  CP_IDLE_CAUSE_SYNC,           /* blocking synchronisation */
  CP_IDLE_CAUSE_COMMUNICATION,  /* collectives not hidden behind compute */
  CP_IDLE_CAUSE_TRANSFERS,      /* host/device copies */
  CP_N_IDLE_CAUSES
} CpIdleCause;

/* How the rule's metric is compared with its thresholds. */
typedef enum
{
  CP_COMPARE_GE,    /* value >= threshold fires (XProf levels) */
  CP_COMPARE_GT,    /* value > threshold (TB plugin, nsys gaps) */
  CP_COMPARE_LT,    /* value < threshold (TB utilization, XProf precision) */
} CpCompare;

typedef struct
{
  const char         *id;
  const char         *title;        /* N_() */
  const char         *metric;       /* N_(): what the thresholds apply to */
  const char         *unit;         /* "%", "ratio", "ms", "count" */
  CpCompare           compare;
  double              moderate;     /* NAN: no such level */
  double              high;         /* NAN: no such level */
  gboolean            info_on_any;  /* any occurrence below the thresholds is info */
  CpRuleKind          kind;
  const char         *source;       /* where metric and thresholds come from */
  const char * const *fixes[CP_N_FRAMEWORKS]; /* N_() strings, NULL-terminated */
  CpIdleCause         idle_cause;   /* NONE: a symptom or a speed-up */
  /* Where the rule applies: bits of CpDetectedFramework (1 << framework)
   * and of CpDeviceKind (1 << kind); 0 for all. Elsewhere it is listed
   * as not checked, with why. A capture whose framework is not recognised
   * gets every rule. */
  guint               frameworks;
  guint               device_kinds;
} CpRule;

#define CP_RULE_PYTORCH   (1u << CP_DETECTED_PYTORCH)
#define CP_RULE_XLA_FW    ((1u << CP_DETECTED_JAX) | (1u << CP_DETECTED_TENSORFLOW) | (1u << CP_DETECTED_XLA))
#define CP_RULE_GPU       (1u << CP_DEVICE_KIND_GPU)

/* The one order of findings, shared by the Findings pane, the report and
 * `chokepoint diagnose`: the idle causes above info (with symptoms left
 * above info), ranked by the device time at stake; then the speed-ups above
 * info; then everything at info, and the risks to the run. Inside each
 * section: time at stake, then severity, then catalog order. */
typedef enum
{
  CP_FINDING_SECTION_IDLE,     /* why the device waits */
  CP_FINDING_SECTION_SPEEDUP,  /* what makes it faster once busy */
  CP_FINDING_SECTION_INFO,     /* for information */
  CP_N_FINDING_SECTIONS
} CpFindingSection;

/* The catalog, in rank order: when two findings explain the same time
 * equally, the one listed first is kept. */
const CpRule *cp_rules_get_all     (guint         *n_rules);
const CpRule *cp_rules_lookup      (const char    *id);
const char   *cp_compare_to_string (CpCompare      compare);

/* The severity the rule's thresholds give a value; FALSE when it does not
 * fire at moderate or high. */
gboolean      cp_rule_grade        (const CpRule  *rule,
                                    double         value,
                                    CpSeverity    *severity);

/* Whether the rule applies to a capture of this framework whose devices
 * are of this kind; when not, why (translated: "for PyTorch only"). */
gboolean      cp_rule_applies      (const CpRule        *rule,
                                    CpDetectedFramework  framework,
                                    CpDeviceKind         kind,
                                    const char         **why);

const char   *cp_idle_cause_to_string  (CpIdleCause  cause);
/* Translated, lower case: "input", "host overhead and launches"... */
const char   *cp_idle_cause_get_label  (CpIdleCause  cause);

CpFindingSection cp_finding_get_section (CpFinding     *finding);
const char   *cp_finding_section_to_string (CpFindingSection section);
/* GCompareDataFunc over CpFinding: the order above. */
gint          cp_findings_compare      (gconstpointer  a,
                                        gconstpointer  b,
                                        gpointer       user_data);

G_END_DECLS
