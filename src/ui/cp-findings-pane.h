/* cp-findings-pane.h: the "Findings" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-pane.h"

#include "analysis/cp-analysis.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_FINDINGS_PANE (cp_findings_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpFindingsPane, cp_findings_pane, CP, FINDINGS_PANE, CpPane)

/* Opens with the verdict, then lists the findings of the analysis in the one
 * order (why the device waits, speed-ups, also noted), each with its
 * severity (colour and icon), measured figures beside the thresholds,
 * evidence and fixes. Opening a finding highlights all its evidence on the
 * timeline and zooms to it; the "findings.next-evidence" and
 * "findings.previous-evidence" actions, and the window's F8 and Shift+F8
 * (win.next-evidence), step through the evidence, one range per step and
 * lane. While the analysis runs it says so. */
GtkWidget   *cp_findings_pane_new             (void);


/* Findings listed, and those above info. */
guint        cp_findings_pane_get_n_findings  (CpFindingsPane *self);
guint        cp_findings_pane_get_n_problems  (CpFindingsPane *self);

/* Opens the finding of this rule (as a click would); FALSE when absent. */
gboolean     cp_findings_pane_select          (CpFindingsPane *self,
                                               const char     *rule_id);
/* The open finding, or NULL. */
CpFinding   *cp_findings_pane_get_selected    (CpFindingsPane *self);
/* Moves to the next (direction > 0) or previous evidence range of the open
 * finding, opening the first finding when none is. Returns the position
 * shown, or -1. */
gint         cp_findings_pane_step_evidence   (CpFindingsPane *self,
                                               gint            direction);

/* The verdict the pane opens with (empty until the analysis is there). */
const char  *cp_findings_pane_get_verdict_text (CpFindingsPane *self);
/* The confidence banner under the verdict; NULL while it is hidden (the
 * confidence is high). */
const char  *cp_findings_pane_get_confidence_text (CpFindingsPane *self);

G_END_DECLS
