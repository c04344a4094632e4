/* cp-rules.h: the rule catalog (one table: metric, thresholds, source, fixes)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-finding.h"

G_BEGIN_DECLS

typedef enum
{
  CP_RULE_CAUSE,    /* names a reason the device waits or works slowly */
  CP_RULE_SYMPTOM,  /* describes idle time; demoted to info when a cause explains it */
} CpRuleKind;

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
} CpRule;

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

G_END_DECLS
