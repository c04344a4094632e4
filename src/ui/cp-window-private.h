/* cp-window-private.h: CpWindow inside, shared by its files (cp-window*.c),
 * and what CpApplication needs from it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "formats/cp-sidecar.h"
#include "render/cp-report.h"

#include "cp-capture-pane.h"
#include "cp-export-dialog.h"
#include "cp-findings-pane.h"
#include "cp-notes-pane.h"
#include "cp-timeline-pane.h"
#include "cp-window.h"

G_BEGIN_DECLS

struct _CpWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  GtkStack             *main_stack;
  AdwStatusPage        *loading_page;
  GtkProgressBar       *progress_bar;
  GtkLabel             *progress_label;
  GtkPaned             *loaded_paned;
  AdwViewStack         *side_stack;
  CpCapturePane        *capture_pane;
  CpFindingsPane       *findings_pane;
  CpTimelinePane       *timeline_pane;
  CpNotesPane          *notes_pane;
  GMenu                *recent_submenu;

  /* Owned references */
  GSettings            *settings;          /* NULL without the schema */
  GFile                *file;              /* shown, loading or being checked */
  char                 *location;          /* where file really is, when the document
                                            * portal said (a host path); NULL: file's own */
  GCancellable         *location_cancellable; /* asking the portal about file */
  CpTrace              *trace;
  CpAnalysis           *analysis;          /* of trace, once the worker thread is done */
  GCancellable         *analysis_cancellable;
  CpViewState          *view_state;        /* shared by the timeline and the panes */
  CpAnnotations        *annotations;       /* the capture's markers and notes */
  CpSidecar            *sidecar;           /* where they are saved, once loaded */
  GtkWidget            *note_popover;      /* a child of the timeline pane */
  GFile                *export_file;       /* the last report exported */
  char                 *export_pattern;    /* ...and its choices */
  CpReportOptions       export_options;
  gboolean              have_export_options;
  GCancellable         *load_cancellable;  /* the check or load of this window's capture */
  GCancellable         *cancellable;       /* cancelled when the window closes */

  /* Borrowed references */
  AdwToast             *message_toast;     /* the last message shown, while it is */
  CpExportDialog       *export_dialog;     /* while it is open */
  AdwToast             *export_toast;      /* "Drawing the report…", while it shows */
  AdwToast             *sandbox_toast;     /* "…the sandbox cannot open", while it shows */

  CpWindowState         state;
  /* The window's own file is being checked before loading: it is taken. */
  guint                 checking : 1;
  /* See _cp_window_set_made_for_capture(). */
  guint                 made_for_capture : 1;
  /* The settings and the recent menu come from the application, once. */
  guint                 joined_application : 1;
  /* In a Flatpak sandbox: see _cp_window_set_sandboxed(). */
  guint                 sandboxed : 1;
};

/* cp-window.c: state, loading and messages */
void      _cp_window_return_to_empty          (CpWindow       *self);
void      _cp_window_show_toast               (CpWindow       *self,
                                               const char     *text);
void      _cp_window_present_alert            (CpWindow       *self,
                                               const char     *heading,
                                               const char     *body);
gboolean  _cp_window_is_portal_document       (GFile          *file);
char     *_cp_window_dup_path_beside          (CpWindow       *self,
                                               GFile          *file);

/* cp-window-actions.c: the actions that are no other file's, and when
 * each is enabled */
void      _cp_window_actions_class_init       (GtkWidgetClass *widget_class);
void      cp_window_update_action_state       (CpWindow       *self);
void      _cp_window_add_devices_first_action (CpWindow       *self);

/* cp-window-dnd.c: drops and the Open dialogs */
void      _cp_window_dnd_class_init           (GtkWidgetClass *widget_class);
void      _cp_window_dnd_init                 (CpWindow       *self);

/* cp-window-notes.c: the annotations and their sidecar */
void      _cp_window_notes_class_init         (GtkWidgetClass *widget_class);
void      _cp_window_notes_init               (CpWindow       *self);
void      _cp_window_setup_annotations        (CpWindow       *self,
                                               GFile          *file);
void      _cp_window_update_notes_location    (CpWindow       *self);

/* cp-window-export.c: Export Report */
void      _cp_window_export_class_init        (GtkWidgetClass *widget_class);

/* For CpApplication */

/* Loads a file that was already checked into an idle window. */
void _cp_window_load                  (CpWindow *self,
                                       GFile    *file);

/* The application made this window for one capture while others were open:
 * cancelling its load closes it, and a load error shows in another window. */
void _cp_window_set_made_for_capture  (CpWindow *self,
                                       gboolean  made_for_capture);

/* Whether the window acts as in a Flatpak sandbox (files it cannot see read
 * as missing, and are explained as the sandbox's doing). Set from
 * cp_is_sandboxed(); tests set it. */
void _cp_window_set_sandboxed         (CpWindow *self,
                                       gboolean  sandboxed);

G_END_DECLS
