/* cp-pane.h: what every pane of the window shares
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "analysis/cp-analysis.h"
#include "model/cp-annotations.h"
#include "model/cp-trace.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_PANE (cp_pane_get_type ())

G_DECLARE_DERIVABLE_TYPE (CpPane, cp_pane, CP, PANE, GtkWidget)

/* A pane shows one capture (`trace`), follows and moves the window's
 * `view-state`, and may show the capture's `analysis` and `annotations`. Its content is the
 * one child its template adds; a pane that waits for the analysis
 * (cp_pane_class_set_waits_for_analysis()) shows "Analysing the capture…"
 * in its place until the analysis of its trace arrives. */
struct _CpPaneClass
{
  GtkWidgetClass parent_class;

  /* The trace changed; the analysis may now be of another trace. */
  void (*trace_changed)      (CpPane      *self);
  /* The analysis changed. */
  void (*analysis_changed)   (CpPane      *self);
  /* The view state changed; @old is the one before, or NULL. */
  void (*view_state_changed) (CpPane      *self,
                              CpViewState *old);
  /* The annotations changed; @old are the ones before, or NULL. */
  void (*annotations_changed) (CpPane        *self,
                               CpAnnotations *old);

  gpointer padding[7];
};

void         cp_pane_class_set_waits_for_analysis (CpPaneClass *klass,
                                                   gboolean     waits);
/* A pane's layout and CSS name, from its short name: "notes" is the
 * template resources/ui/cp-notes-pane.ui and the CSS node "notespane". */
void         cp_pane_class_set_layout             (CpPaneClass *klass,
                                                   const char  *name);

CpTrace     *cp_pane_get_trace                    (CpPane      *self);
void         cp_pane_set_trace                    (CpPane      *self,
                                                   CpTrace     *trace);
CpViewState *cp_pane_get_view_state               (CpPane      *self);
void         cp_pane_set_view_state               (CpPane      *self,
                                                   CpViewState *view);
CpAnalysis  *cp_pane_get_analysis                 (CpPane      *self);
void         cp_pane_set_analysis                 (CpPane      *self,
                                                   CpAnalysis  *analysis);

CpAnnotations *cp_pane_get_annotations            (CpPane        *self);
void           cp_pane_set_annotations            (CpPane        *self,
                                                   CpAnnotations *annotations);

/* Whether the pane has a trace and the analysis of that trace. */
gboolean     cp_pane_is_ready                     (CpPane      *self);

G_END_DECLS
