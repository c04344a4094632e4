/* cp-window.h: the window of one capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "analysis/cp-analysis.h"
#include "model/cp-trace.h"
#include "render/cp-view-state.h"
#include "cp-application.h"

G_BEGIN_DECLS

/* What the window shows. */
typedef enum
{
  CP_WINDOW_EMPTY,     /* the status page that invites a drop */
  CP_WINDOW_LOADING,   /* progress and Cancel */
  CP_WINDOW_LOADED,    /* the capture */
} CpWindowState;

#define CP_TYPE_WINDOW_STATE (cp_window_state_get_type ())
GType cp_window_state_get_type (void) G_GNUC_CONST;

#define CP_TYPE_WINDOW (cp_window_get_type ())

G_DECLARE_FINAL_TYPE (CpWindow, cp_window, CP, WINDOW, AdwApplicationWindow)

CpWindow      *cp_window_new          (CpApplication *application);

/* The one path by which captures open: the Open dialog, drops, the command
 * line and the recent list all end here. An empty window loads the file
 * itself; a window that already shows or loads a capture hands the file to
 * the application, which opens it in another window. */
void           cp_window_open         (CpWindow      *self,
                                       GFile         *file);

CpWindowState  cp_window_get_state    (CpWindow      *self);
/* The capture shown, or being checked or loaded; NULL when empty. */
GFile         *cp_window_get_file     (CpWindow      *self);
/* The loaded capture, or NULL. The "trace" property notifies when it is set;
 * panes in cp-window.ui bind their own "trace" property to it. */
CpTrace       *cp_window_get_trace    (CpWindow      *self);
/* The analysis of the loaded capture, or NULL while it runs (in a worker
 * thread, started when the trace is set). The "analysis" property notifies. */
CpAnalysis    *cp_window_get_analysis (CpWindow      *self);
/* What the timeline shows, shared with every pane (the "view-state"
 * property; panes in cp-window.ui bind their own "view-state" to it). */
CpViewState   *cp_window_get_view_state (CpWindow    *self);
/* TRUE when the window neither shows nor loads anything. */
gboolean       cp_window_is_idle      (CpWindow      *self);

/* Shows a transient message in the window (it takes the toast). */
void           cp_window_add_toast    (CpWindow      *self,
                                       AdwToast      *toast);

G_END_DECLS
