/* cp-window.c: the window of one capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "formats/cp-document-portal.h"
#include "formats/cp-loader.h"
#include "formats/cp-sidecar.h"
#include "render/cp-report.h"

#include "analysis/cp-analysis.h"

#include "cp-capture-pane.h"
#include "cp-findings-pane.h"
#include "cp-kernels-pane.h"
#include "cp-steps-pane.h"
#include "cp-details-pane.h"
#include "cp-export-dialog.h"
#include "cp-format.h"
#include "cp-note-popover.h"
#include "cp-notes-pane.h"
#include "cp-summary-bar.h"
#include "cp-timeline-pane.h"
#include "cp-window-private.h"

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

G_DEFINE_FINAL_TYPE (CpWindow, cp_window, ADW_TYPE_APPLICATION_WINDOW)

G_DEFINE_ENUM_TYPE (CpWindowState, cp_window_state,
  G_DEFINE_ENUM_VALUE (CP_WINDOW_EMPTY, "empty"),
  G_DEFINE_ENUM_VALUE (CP_WINDOW_LOADING, "loading"),
  G_DEFINE_ENUM_VALUE (CP_WINDOW_LOADED, "loaded"))

enum {
  PROP_0,
  PROP_FILE,
  PROP_STATE,
  PROP_TRACE,
  PROP_ANALYSIS,
  PROP_VIEW_STATE,
  PROP_ANNOTATIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* One check-then-load of a file. Shared (reference counted) by the file
 * query, the loader's progress callback and its completion callback. */
typedef struct
{
  CpWindow     *self;
  GFile        *file;
  GCancellable *cancellable;
  /* The file is for this window (it was idle); otherwise the window only
   * checks it, shows what is wrong, and hands a good file on. */
  gboolean      reserved;
} Load;

static void
load_clear (Load *load)
{
  g_clear_object (&load->self);
  g_clear_object (&load->file);
  g_clear_object (&load->cancellable);
}

static Load *
load_ref (Load *load)
{
  return g_rc_box_acquire (load);
}

static void
load_unref (gpointer data)
{
  g_rc_box_release_full (data, (GDestroyNotify) load_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Load, load_unref)

/* A load is current while the window still waits for it: not cancelled by
 * the user, not replaced, and the window not closed. */
static gboolean
load_is_current (Load *load)
{
  if (g_cancellable_is_cancelled (load->cancellable))
    return FALSE;
  return !load->reserved || load->self->load_cancellable == load->cancellable;
}

static Load *
load_new (CpWindow     *self,
          GFile        *file,
          GCancellable *cancellable,
          gboolean      reserved)
{
  Load *load = g_rc_box_new0 (Load);

  load->self = g_object_ref (self);
  load->file = g_object_ref (file);
  load->cancellable = g_object_ref (cancellable);
  load->reserved = reserved;
  return load;
}

/* Helpers --------------------------------------------------------------- */

static char *
dup_display_name (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  if (base == NULL || g_str_equal (base, "/"))
    return g_file_get_parse_name (file);
  return g_filename_display_name (base);
}

/* The folder of a file for the subtitle, with the home folder as "~". */
static char *
dup_folder_name (GFile *file)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
  g_autofree char *relative = NULL;

  if (parent == NULL)
    return NULL;
  if (g_file_equal (parent, home))
    return g_strdup ("~");
  if ((relative = g_file_get_relative_path (home, parent)) != NULL)
    {
      g_autofree char *display = g_filename_display_name (relative);

      return g_build_filename ("~", display, NULL);
    }
  return g_file_get_parse_name (parent);
}

/* A document of the portal: its own path (/run/user/1000/doc/4e934306/…)
 * says nothing about where it is. */
static gboolean
is_portal_document (GFile *file)
{
  g_autofree char *path = file ? g_file_get_path (file) : NULL;
  g_autofree char *id = cp_document_portal_parse_path (path, NULL, NULL);

  return id != NULL;
}

/* The file as people know it: where the portal said it is, else itself;
 * NULL for a document of the portal whose place is unknown. */
static GFile *
dup_shown_file (CpWindow *self)
{
  if (self->file == NULL)
    return NULL;
  if (self->location != NULL)
    return g_file_new_for_path (self->location);
  if (is_portal_document (self->file))
    return NULL;
  return g_object_ref (self->file);
}

/* A file beside the capture (its notes) as people know it: in the capture's
 * real folder when the portal said where that is, by its name alone in a
 * document of the portal otherwise. */
static char *
dup_path_beside (CpWindow *self,
                 GFile    *file)
{
  g_autofree char *base = NULL;

  if (!is_portal_document (file))
    return g_file_get_parse_name (file);
  base = g_file_get_basename (file);
  if (self->location != NULL)
    {
      g_autofree char *folder = g_path_get_dirname (self->location);
      g_autofree char *path = g_build_filename (folder, base, NULL);

      return g_filename_display_name (path);
    }
  return g_filename_display_name (base);
}

/* The Location of the Capture page: the full path where it is known, else
 * the file name. */
static char *
dup_location_text (CpWindow *self)
{
  g_autoptr(GFile) shown = dup_shown_file (self);

  if (shown != NULL)
    return g_file_get_parse_name (shown);
  return self->file ? dup_display_name (self->file) : NULL;
}

void
cp_window_add_toast (CpWindow *self,
                     AdwToast *toast)
{
  g_return_if_fail (CP_IS_WINDOW (self));
  g_return_if_fail (ADW_IS_TOAST (toast));

  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
message_dismissed_cb (CpWindow *self,
                      AdwToast *toast)
{
  /* A dismissed toast is gone from the screen even while the overlay still
   * holds it; the next message needs a toast of its own. */
  if (self->message_toast == toast)
    g_clear_weak_pointer (&self->message_toast);
}

/* A message about something the user just did. While the previous one is
 * still on screen, it takes the new text at once instead of queueing a
 * second toast behind it (replacing toasts quickly also crashes
 * libadwaita 1.2's toast overlay). Toast titles are Pango markup: the text
 * is escaped here. */
static void
show_toast (CpWindow   *self,
            const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  AdwToast *toast;

  if (self->message_toast != NULL)
    {
      adw_toast_set_title (self->message_toast, escaped);
      return;
    }

  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 8);
  g_set_weak_pointer (&self->message_toast, toast);
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (message_dismissed_cb), self,
                           G_CONNECT_SWAPPED);
  cp_window_add_toast (self, toast);
}

/* A message with a Close button, over the window. */
static void
present_alert (CpWindow   *self,
               const char *heading,
               const char *body)
{
#if ADW_CHECK_VERSION (1, 5, 0)
  AdwDialog *dialog = adw_alert_dialog_new (heading, body);

  adw_alert_dialog_add_response (ADW_ALERT_DIALOG (dialog), "close", _("_Close"));
  adw_alert_dialog_set_default_response (ADW_ALERT_DIALOG (dialog), "close");
  adw_dialog_present (dialog, GTK_WIDGET (self));
#else
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
#endif
}

/* A failed load gets a dialog: its reason can be longer than a toast. The
 * heading stays short and fixed: libadwaita 1.7 does not wrap an alert's
 * heading without a warning, and file names can be long. The body names
 * the file (the loader's reasons already do). */
static void
show_error_dialog (CpWindow   *self,
                   GFile      *file,
                   const char *reason)
{
  g_autofree char *name = dup_display_name (file);
  g_autofree char *body = NULL;
  const char *heading = _("Could Not Open Capture");

  if (strstr (reason, name) == NULL)
    body = g_strdup_printf (_("“%s”: %s"), name, reason);
  else
    body = g_strdup (reason);

  present_alert (self, heading, body);
}

/* State ----------------------------------------------------------------- */

static void
cp_window_update_action_state (CpWindow *self)
{
  gboolean loaded = self->state == CP_WINDOW_LOADED && self->trace != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-load",
                                 self->state == CP_WINDOW_LOADING);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-load-report", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-report", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-marker", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-marker-at", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-slice-note", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-note",
                                 loaded && (cp_view_state_has_selected (self->view_state) ||
                                            cp_view_state_get_time_selection (self->view_state, NULL, NULL)));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.pin-evidence", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-notes", loaded);
}

static void
update_title (CpWindow *self)
{
  if (self->state == CP_WINDOW_EMPTY || self->file == NULL)
    {
      gtk_window_set_title (GTK_WINDOW (self), _("Chokepoint"));
      adw_window_title_set_title (self->window_title, _("Chokepoint"));
      adw_window_title_set_subtitle (self->window_title, NULL);
    }
  else
    {
      g_autoptr(GFile) shown = dup_shown_file (self);
      g_autofree char *name = dup_display_name (self->file);
      /* A document of the portal whose place is unknown shows its name alone. */
      g_autofree char *folder = shown ? dup_folder_name (shown) : NULL;

      gtk_window_set_title (GTK_WINDOW (self), name);
      adw_window_title_set_title (self->window_title, name);
      adw_window_title_set_subtitle (self->window_title, folder);
    }
}

static void
set_state (CpWindow      *self,
           CpWindowState  state)
{
  static const char *const pages[] = { "empty", "loading", "loaded" };

  self->state = state;
  gtk_stack_set_visible_child_name (self->main_stack, pages[state]);
  update_title (self);
  cp_window_update_action_state (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void update_notes_location (CpWindow *self);

/* Where the file is shows in the subtitle, on the Capture page, in the
 * recent list and under Notes. */
static void
update_location (CpWindow *self)
{
  g_autofree char *text = dup_location_text (self);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  update_title (self);
  cp_capture_pane_set_location (self->capture_pane, text);
  if (self->sidecar != NULL)
    update_notes_location (self);
  if (self->state == CP_WINDOW_LOADED && self->location != NULL && CP_IS_APPLICATION (app))
    cp_application_set_recent_location (CP_APPLICATION (app), self->file, self->location);
}

static void
location_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *host = cp_document_portal_lookup_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->location_cancellable);
  if (host == NULL)
    {
      /* An older portal (before version 5) or none: the file name it is. */
      g_debug ("No host path for the document: %s", error->message);
      return;
    }
  g_free (self->location);
  self->location = g_steal_pointer (&host);
  update_location (self);
}

/* Asks the document portal where a file it serves really is. */
static void
start_location_lookup (CpWindow *self)
{
  if (self->location_cancellable != NULL)
    g_cancellable_cancel (self->location_cancellable);
  g_clear_object (&self->location_cancellable);
  g_clear_pointer (&self->location, g_free);
  if (self->file == NULL || !is_portal_document (self->file))
    return;
  self->location_cancellable = g_cancellable_new ();
  cp_document_portal_lookup_async (self->file, self->location_cancellable, location_cb, g_object_ref (self));
}

static void
set_file (CpWindow *self,
          GFile    *file)
{
  if (!g_set_object (&self->file, file))
    return;
  start_location_lookup (self);
  update_location (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

static void
analysis_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpAnalysis) analysis = cp_analysis_new_finish (result, &error);

  /* Cancelled: another capture, or the window closed. */
  if (analysis == NULL || cp_analysis_get_trace (analysis) != self->trace)
    return;
  g_clear_object (&self->analysis_cancellable);
  if (g_set_object (&self->analysis, analysis))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
  /* A dot on the Findings tab when something is worth a look. */
  adw_view_stack_page_set_needs_attention (adw_view_stack_get_page (self->side_stack, GTK_WIDGET (self->findings_pane)),
                                           cp_analysis_has_warnings (analysis));
  /* The answer first: a capture with a problem opens on Findings, unless
   * the user already went to another page than the first. */
  if (cp_analysis_has_warnings (analysis) &&
      g_strcmp0 (adw_view_stack_get_visible_child_name (self->side_stack), "capture") == 0)
    adw_view_stack_set_visible_child_name (self->side_stack, "findings");
}

/* The analysis runs in a worker thread after loading; the panes bound to
 * "analysis" say it runs until it is there. */
static void
start_analysis (CpWindow *self)
{
  if (self->analysis_cancellable != NULL)
    g_cancellable_cancel (self->analysis_cancellable);
  g_clear_object (&self->analysis_cancellable);
  if (self->analysis != NULL)
    {
      g_clear_object (&self->analysis);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
    }
  if (self->findings_pane != NULL)
    adw_view_stack_page_set_needs_attention (adw_view_stack_get_page (self->side_stack,
                                                                      GTK_WIDGET (self->findings_pane)),
                                             FALSE);
  if (self->trace == NULL)
    return;
  self->analysis_cancellable = g_cancellable_new ();
  cp_analysis_new_async (self->trace, self->analysis_cancellable, analysis_done_cb, g_object_ref (self));
}

static void
set_trace (CpWindow *self,
           CpTrace  *trace)
{
  if (!g_set_object (&self->trace, trace))
    return;
  /* The view state first, so that every pane bound to "trace" finds it
   * showing the new capture. */
  cp_view_state_set_trace (self->view_state, trace);
  start_analysis (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

/* Back to the empty page after a failed or cancelled load. */
static void
return_to_empty (CpWindow *self)
{
  g_clear_object (&self->load_cancellable);
  self->checking = FALSE;
  set_file (self, NULL);
  set_state (self, CP_WINDOW_EMPTY);
}

/* Shows why a file did not open: a toast for short reasons, a dialog for
 * what the loader says. A window the application made for this file alone
 * leaves, and the message shows in another window instead. */
static CpWindow *
failure_target (CpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (self->made_for_capture && app != NULL)
    {
      for (GList *l = gtk_application_get_windows (app); l; l = l->next)
        if (l->data != self && CP_IS_WINDOW (l->data))
          return l->data;
    }
  return self;
}

static void
sandbox_toast_dismissed_cb (CpWindow *self,
                            AdwToast *toast)
{
  if (self->sandbox_toast == toast)
    g_clear_weak_pointer (&self->sandbox_toast);
}

/* A file the sandbox cannot see (a drop that named it by its path alone):
 * it may well exist. The Open dialog, run by the file chooser portal, can
 * hand it over; it starts in the file's folder. */
static void
show_sandbox_toast (CpWindow *self,
                    GFile    *file)
{
  g_autofree char *name = dup_display_name (file);
  /* Translators: %s is a file name. The sandbox is the Flatpak's. */
  g_autofree char *text = g_strdup_printf (_("This file was shared in a way the sandbox cannot open: “%s”"),
                                           name);
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_autoptr(GFile) folder = g_file_get_parent (file);
  g_autofree char *folder_uri = folder ? g_file_get_uri (folder) : g_strdup ("");
  AdwToast *toast = self->sandbox_toast;

  g_debug ("The sandbox cannot see %s", g_file_peek_path (file) ? g_file_peek_path (file) : name);
  if (toast == NULL)
    {
      toast = adw_toast_new (escaped);
      adw_toast_set_timeout (toast, 15);
      adw_toast_set_button_label (toast, _("_Choose File…"));
      adw_toast_set_action_name (toast, "win.open-in-folder");
      g_set_weak_pointer (&self->sandbox_toast, toast);
      g_signal_connect_object (toast, "dismissed", G_CALLBACK (sandbox_toast_dismissed_cb), self,
                               G_CONNECT_SWAPPED);
      adw_toast_set_action_target_value (toast, g_variant_new_string (folder_uri));
      cp_window_add_toast (self, toast);
      return;
    }
  /* A second such file while the first message shows: one message. */
  adw_toast_set_title (toast, escaped);
  adw_toast_set_action_target_value (toast, g_variant_new_string (folder_uri));
}

static void
report_unseen (CpWindow *self,
               GFile    *file)
{
  CpWindow *target = failure_target (self);

  show_sandbox_toast (target, file);
  if (target != self)
    gtk_window_destroy (GTK_WINDOW (self));
}

static void
report_failure (CpWindow   *self,
                GFile      *file,
                const char *reason,
                gboolean    dialog)
{
  CpWindow *target = failure_target (self);

  if (dialog)
    show_error_dialog (target, file, reason);
  else
    show_toast (target, reason);

  if (target != self)
    gtk_window_destroy (GTK_WINDOW (self));
}

/* Loading --------------------------------------------------------------- */

static void
set_progress (CpWindow *self,
              guint64   done,
              guint64   total)
{
  g_autofree char *done_text = g_format_size (done);
  g_autofree char *text = NULL;

  if (total > 0)
    {
      g_autofree char *total_text = g_format_size (total);
      double fraction = CLAMP ((double) done / (double) total, 0.0, 1.0);

      gtk_progress_bar_set_fraction (self->progress_bar, fraction);
      /* Translators: progress of a load, "120.5 MB of 1.2 GB". */
      text = g_strdup_printf (_("%s of %s"), done_text, total_text);
    }
  else
    {
      gtk_progress_bar_pulse (self->progress_bar);
      /* Translators: progress of a load of unknown size, "120.5 MB read". */
      text = g_strdup_printf (_("%s read"), done_text);
    }
  gtk_label_set_label (self->progress_label, text);
}

static void
load_progress_cb (guint64  done,
                  guint64  total,
                  gpointer user_data)
{
  Load *load = user_data;

  if (load_is_current (load))
    set_progress (load->self, done, total);
}

static void
show_load_report_toast (CpWindow *self)
{
  const CpLoadReport *report = cp_trace_get_load_report (self->trace);
  guint n_warnings;
  g_autofree char *text = NULL;
  AdwToast *toast;

  if (report == NULL)
    return;

  n_warnings = cp_load_report_n_warnings (report) + report->warnings_dropped;
  if (report->truncated)
    text = g_strdup (_("The capture ends early: everything before the damage was loaded"));
  else if (n_warnings > 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "Loaded with %u warning",
                                         "Loaded with %u warnings",
                                         n_warnings),
                            n_warnings);
  else
    return;

  toast = adw_toast_new (text);
  adw_toast_set_button_label (toast, _("_Details"));
  adw_toast_set_action_name (toast, "win.show-load-report");
  adw_toast_set_timeout (toast, 8);
  cp_window_add_toast (self, toast);
}

static void setup_annotations (CpWindow *self,
                               GFile    *file);

static void
load_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Load) load = user_data;
  CpWindow *self = load->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file_finish (result, &error);

  /* Cancelled by the user, replaced, or the window closed: the window has
   * already moved on, and the trace (if the load finished anyway) goes. */
  if (!load_is_current (load))
    return;

  g_clear_object (&self->load_cancellable);

  if (trace == NULL)
    {
      return_to_empty (self);
      report_failure (self, load->file, error->message, TRUE);
      return;
    }

  set_trace (self, trace);
  set_state (self, CP_WINDOW_LOADED);
  setup_annotations (self, load->file);
  gtk_widget_grab_focus (GTK_WIDGET (cp_timeline_pane_get_view (self->timeline_pane)));
  show_load_report_toast (self);

  {
    CpApplication *app = CP_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
    g_autoptr(GFile) folder = g_file_get_parent (load->file);

    if (app != NULL)
      {
        cp_application_add_recent (app, load->file);
        if (self->location != NULL)
          cp_application_set_recent_location (app, load->file, self->location);
      }
    if (self->settings != NULL && folder != NULL)
      {
        g_autofree char *uri = g_file_get_uri (folder);

        g_settings_set_string (self->settings, "last-folder", uri);
      }
  }
}

static void
start_load (CpWindow *self,
            Load     *load)
{
  g_autofree char *name = dup_display_name (load->file);
  /* The description is Pango markup. */
  g_autofree char *escaped = g_markup_escape_text (name, -1);

  self->checking = FALSE;
  adw_status_page_set_description (self->loading_page, escaped);
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_label_set_label (self->progress_label, "");
  set_state (self, CP_WINDOW_LOADING);
  {
    g_autofree char *notice = cp_load_describe_memory (load->file);

    if (notice != NULL)
      show_toast (self, notice);
  }

  cp_load_file_async (load->file, load->cancellable,
                      load_progress_cb, load_ref (load), load_unref,
                      load_done_cb, load_ref (load));
}

void
_cp_window_load (CpWindow *self,
                 GFile    *file)
{
  g_autoptr(Load) load = NULL;

  g_return_if_fail (CP_IS_WINDOW (self));
  g_return_if_fail (cp_window_is_idle (self));

  self->load_cancellable = g_cancellable_new ();
  set_file (self, file);
  load = load_new (self, file, self->load_cancellable, TRUE);
  start_load (self, load);
}

void
_cp_window_set_made_for_capture (CpWindow *self,
                                 gboolean  made_for_capture)
{
  g_return_if_fail (CP_IS_WINDOW (self));

  self->made_for_capture = !!made_for_capture;
}

/* Why a file cannot be opened before reading a byte of it, or NULL. This is
 * the one place that decides which kinds of file go to the loader. */
static char *
check_openable (GFile     *file,
                GFileInfo *info,
                GError    *error)
{
  g_autofree char *name = dup_display_name (file);

  if (error != NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return g_strdup_printf (_("“%s” does not exist"), name);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
        return g_strdup_printf (_("“%s” cannot be read: permission denied"), name);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
        return g_strdup_printf (_("“%s” cannot be opened: this kind of location is not supported"),
                                name);
      /* Translators: the second %s is a system error message. */
      return g_strdup_printf (_("“%s” cannot be opened: %s"), name, error->message);
    }

  switch ((int) g_file_info_get_file_type (info))
    {
    case G_FILE_TYPE_REGULAR:
      break;
    case G_FILE_TYPE_DIRECTORY:
      /* TensorBoard profile folders: the loader reads them, and says why
       * when a folder holds no capture. */
      break;
    default:
      return g_strdup_printf (_("“%s” is not a regular file"), name);
    }

  if (g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_ACCESS_CAN_READ) &&
      !g_file_info_get_attribute_boolean (info, G_FILE_ATTRIBUTE_ACCESS_CAN_READ))
    return g_strdup_printf (_("“%s” cannot be read: permission denied"), name);

  return NULL;
}

static void
query_info_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Load) load = user_data;
  CpWindow *self = load->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInfo) info = g_file_query_info_finish (G_FILE (source), result, &error);
  g_autofree char *problem = NULL;
  GtkApplication *app;
  GtkWindow *target;
  gboolean existing;

  if (!load_is_current (load))
    return;

  if (error != NULL &&
      cp_classify_open_failure (self->sandboxed, g_file_peek_path (load->file), NULL, NULL, error) ==
        CP_OPEN_FAILURE_SANDBOX)
    {
      if (load->reserved)
        {
          return_to_empty (self);
          report_unseen (self, load->file);
        }
      else
        show_sandbox_toast (self, load->file);
      return;
    }

  problem = check_openable (load->file, info, error);
  if (problem != NULL)
    {
      if (load->reserved)
        {
          return_to_empty (self);
          report_failure (self, load->file, problem, FALSE);
        }
      else
        show_toast (self, problem);
      return;
    }

  if (load->reserved)
    {
      start_load (self, load);
      return;
    }

  /* A good file for another window. */
  app = gtk_window_get_application (GTK_WINDOW (self));
  if (!CP_IS_APPLICATION (app))
    return;
  target = cp_application_get_window_for (CP_APPLICATION (app), load->file, &existing);
  gtk_window_present (target);
  if (!existing)
    _cp_window_load (CP_WINDOW (target), load->file);
}

void
cp_window_open (CpWindow *self,
                GFile    *file)
{
  g_autoptr(Load) load = NULL;
  GtkApplication *app;

  g_return_if_fail (CP_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* A capture already open (or loading) is shown, not read twice. */
  app = gtk_window_get_application (GTK_WINDOW (self));
  if (CP_IS_APPLICATION (app))
    {
      for (GList *l = gtk_application_get_windows (app); l; l = l->next)
        {
          if (CP_IS_WINDOW (l->data) && CP_WINDOW (l->data)->file != NULL &&
              g_file_equal (CP_WINDOW (l->data)->file, file))
            {
              gtk_window_present (l->data);
              return;
            }
        }
    }

  /* The file is checked here, so that whatever is wrong with it shows where
   * the user put it. An idle window then loads it itself; a busy one hands
   * it to another window (one window per capture). */
  if (cp_window_is_idle (self))
    {
      self->checking = TRUE;
      self->load_cancellable = g_cancellable_new ();
      set_file (self, file);
      load = load_new (self, file, self->load_cancellable, TRUE);
    }
  else
    load = load_new (self, file, self->cancellable, FALSE);

  g_file_query_info_async (file,
                           G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                           G_FILE_ATTRIBUTE_ACCESS_CAN_READ,
                           G_FILE_QUERY_INFO_NONE, G_PRIORITY_DEFAULT,
                           load->cancellable, query_info_cb, load_ref (load));
}

/* Drops ----------------------------------------------------------------- */

static gboolean
drop_cb (CpWindow      *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    {
      for (GSList *l = gdk_file_list_get_files (g_value_get_boxed (value)); l; l = l->next)
        g_ptr_array_add (files, g_object_ref (l->data));
    }
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE) && g_value_get_object (value) != NULL)
    {
      g_ptr_array_add (files, g_object_ref (g_value_get_object (value)));
    }
  else if (G_VALUE_HOLDS_STRING (value) && g_value_get_string (value) != NULL)
    {
      /* Some sources offer file locations only as text (a URI list). */
      g_auto(GStrv) uris = g_uri_list_extract_uris (g_value_get_string (value));

      for (guint i = 0; uris[i] != NULL; i++)
        {
          g_autofree char *scheme = g_uri_parse_scheme (uris[i]);

          if (scheme != NULL && g_ascii_strcasecmp (scheme, "file") == 0)
            g_ptr_array_add (files, g_file_new_for_uri (uris[i]));
        }
    }

  if (files->len == 0)
    {
      show_toast (self, _("Only files can be opened: the drop held no file"));
      return FALSE;
    }

  for (guint i = 0; i < files->len; i++)
    cp_window_open (self, g_ptr_array_index (files, i));
  return TRUE;
}

/* Open dialog ----------------------------------------------------------- */

static GListStore *
make_filters (GtkFileFilter **all_out)
{
  GListStore *filters = g_list_store_new (GTK_TYPE_FILE_FILTER);
  static const char *const json_patterns[] = { "*.json", "*.json.gz", "*.json.zst", NULL };
  static const char *const xplane_patterns[] = { "*.xplane.pb", "*.pb", "*.pb.gz", "*.pb.zst", NULL };
  GtkFileFilter *all = gtk_file_filter_new ();
  GtkFileFilter *json = gtk_file_filter_new ();
  GtkFileFilter *xplane = gtk_file_filter_new ();
  GtkFileFilter *any = gtk_file_filter_new ();

  gtk_file_filter_set_name (all, _("Profiler Captures"));
  gtk_file_filter_set_name (json, _("Chrome and PyTorch Traces (JSON)"));
  gtk_file_filter_set_name (xplane, _("XPlane Captures (JAX, TensorFlow)"));
  gtk_file_filter_set_name (any, _("All Files"));

  for (guint i = 0; json_patterns[i] != NULL; i++)
    {
      gtk_file_filter_add_pattern (all, json_patterns[i]);
      gtk_file_filter_add_pattern (json, json_patterns[i]);
    }
  for (guint i = 0; xplane_patterns[i] != NULL; i++)
    {
      gtk_file_filter_add_pattern (all, xplane_patterns[i]);
      gtk_file_filter_add_pattern (xplane, xplane_patterns[i]);
    }
  gtk_file_filter_add_pattern (any, "*");

  g_list_store_append (filters, all);
  g_list_store_append (filters, json);
  g_list_store_append (filters, xplane);
  g_list_store_append (filters, any);
  g_object_unref (json);
  g_object_unref (xplane);
  g_object_unref (any);

  *all_out = all;
  return filters;
}

static GFile *
dup_initial_folder (CpWindow *self)
{
  g_autofree char *uri = NULL;
  g_autoptr(GFile) folder = NULL;

  if (self->settings == NULL)
    return NULL;
  uri = g_settings_get_string (self->settings, "last-folder");
  if (uri[0] == '\0')
    return NULL;
  folder = g_file_new_for_uri (uri);
  if (g_file_is_native (folder) &&
      g_file_query_file_type (folder, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    return NULL;
  return g_steal_pointer (&folder);
}

static void
open_files (CpWindow   *self,
            GListModel *files)
{
  guint n = g_list_model_get_n_items (files);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GFile) file = g_list_model_get_item (files, i);

      cp_window_open (self, file);
    }
}

#if GTK_CHECK_VERSION (4, 10, 0)
static void
open_dialog_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GListModel) files = NULL;

  files = gtk_file_dialog_open_multiple_finish (GTK_FILE_DIALOG (source), result, &error);
  if (files == NULL)
    {
      if (!g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
          !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
        {
          g_autofree char *text = g_strdup_printf (_("Could not show the file chooser: %s"),
                                                   error->message);
          show_toast (self, text);
        }
      return;
    }
  open_files (self, files);
}

static void
folder_dialog_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) folder = NULL;

  folder = gtk_file_dialog_select_folder_finish (GTK_FILE_DIALOG (source), result, &error);
  if (folder == NULL)
    {
      if (!g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
          !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
        {
          g_autofree char *text = g_strdup_printf (_("Could not show the file chooser: %s"),
                                                   error->message);
          show_toast (self, text);
        }
      return;
    }
  cp_window_open (self, folder);
}
#else
static void
native_response_cb (GtkNativeDialog *native,
                    int              response,
                    gpointer         user_data)
{
  CpWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));

      open_files (self, files);
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}
#endif

/* The Open dialog, in folder when it is not NULL. */
static void
show_open_dialog (CpWindow *self,
                  GFile    *folder)
{
  GtkFileFilter *all = NULL;
  g_autoptr(GListStore) filters = make_filters (&all);
  /* Owns the filter for the scope (only read through "all"). */
  g_autoptr(GtkFileFilter) all_ref G_GNUC_UNUSED = all;

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, _("Open Capture"));
  gtk_file_dialog_set_accept_label (dialog, _("_Open"));
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
  gtk_file_dialog_set_default_filter (dialog, all);
  if (folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, folder);
  gtk_file_dialog_open_multiple (dialog, GTK_WINDOW (self), NULL,
                                 open_dialog_cb, g_object_ref (self));
#else
  GtkFileChooserNative *native;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (filters));

  native = gtk_file_chooser_native_new (_("Open Capture"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN,
                                        _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), TRUE);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkFileFilter) filter = g_list_model_get_item (G_LIST_MODEL (filters), i);

      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
    }
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (native), all);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
  g_signal_connect (native, "response", G_CALLBACK (native_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
#endif
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) folder = dup_initial_folder (self);

  show_open_dialog (self, folder);
}

/* The Open dialog in a given folder (a URI; empty: where it would start),
 * for a file the sandbox could not see: there the file chooser portal
 * shows the host's folder. */
static void
open_in_folder_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  const char *uri = g_variant_get_string (param, NULL);
  g_autoptr(GFile) folder = uri[0] != '\0' ? g_file_new_for_uri (uri) : dup_initial_folder (self);

  show_open_dialog (self, folder);
}

/* A TensorBoard run: a folder with .xplane.pb files, or one above
 * plugins/profile/<run>/. */
static void
open_folder_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) folder = dup_initial_folder (self);

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, _("Open Profile Folder"));
  gtk_file_dialog_set_accept_label (dialog, _("_Open"));
  gtk_file_dialog_set_modal (dialog, TRUE);
  if (folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, folder);
  gtk_file_dialog_select_folder (dialog, GTK_WINDOW (self), NULL,
                                 folder_dialog_cb, g_object_ref (self));
#else
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Open Profile Folder"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                        _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
  g_signal_connect (native, "response", G_CALLBACK (native_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
#endif
}

/* Actions --------------------------------------------------------------- */

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  cp_window_open (self, file);
}

static void
cancel_load_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  if (self->load_cancellable == NULL)
    return;

  /* The worker notices soon; the window does not wait for it. */
  g_cancellable_cancel (self->load_cancellable);
  if (self->made_for_capture && self->trace == NULL)
    {
      gtk_window_close (GTK_WINDOW (self));
      return;
    }
  return_to_empty (self);
}

static void
show_load_report_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->side_stack, "capture");
  cp_capture_pane_show_load_report (self->capture_pane);
}

/* Annotations -------------------------------------------------------------- */

/* The timeline draws the annotations as marks. */
static void
annotations_changed_cb (CpWindow *self)
{
  cp_report_set_view_marks (self->view_state, self->annotations);
}

static void
update_notes_location (CpWindow *self)
{
  GFile *file;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;

  if (self->sidecar == NULL)
    {
      cp_notes_pane_set_location (self->notes_pane, NULL);
      return;
    }
  file = cp_sidecar_get_file (self->sidecar);
  if (file == NULL)
    file = cp_sidecar_get_primary_file (self->sidecar);
  path = dup_path_beside (self, file);
  if (cp_sidecar_is_fallback (self->sidecar))
    /* Translators: where notes are saved when the capture's folder cannot be written. */
    text = g_strdup_printf (_("Notes are saved in “%s”, found again by the capture’s content."), path);
  else
    text = g_strdup_printf (_("Notes are saved beside the capture, in “%s”."), path);
  cp_notes_pane_set_location (self->notes_pane, text);
}

static void
sidecar_saved_cb (CpWindow *self)
{
  update_notes_location (self);
}

static void
sidecar_relocated_cb (CpWindow   *self,
                      GFile      *file,
                      const char *why)
{
  g_autofree char *path = g_file_get_parse_name (file);
  /* Translators: the first %s says why ("Annotations could not be saved beside the capture (...)"). */
  g_autofree char *text = g_strdup_printf (_("%s. They are saved in “%s” instead."), why, path);

  show_toast (self, text);
  update_notes_location (self);
}

static void
sidecar_save_failed_cb (CpWindow   *self,
                        const char *message)
{
  show_toast (self, message);
}

/* A sidecar that cannot be used: the user is told what it was, what was
 * kept where, and where new notes go. */
static void
show_sidecar_problem (CpWindow   *self,
                      GError     *error,
                      const char *outcome)
{
  const char *heading = error->code == CP_SIDECAR_ERROR_NEWER ? _("Notes From a Newer Version")
                                                              : _("Notes Could Not Be Read");
  g_autofree char *body = g_strdup_printf ("%s\n\n%s", error->message, outcome ? outcome : "");

  present_alert (self, heading, body);
}

/* Reads the capture's notes and keeps them saved from now on. */
static void
setup_annotations (CpWindow *self,
                   GFile    *file)
{
  g_autoptr(GError) error = NULL;
  guint n_detached;

  if (self->sidecar != NULL)
    {
      cp_sidecar_flush (self->sidecar, NULL);
      g_signal_handlers_disconnect_by_data (self->sidecar, self);
      g_clear_object (&self->sidecar);
    }
  cp_annotations_remove_all (self->annotations);
  cp_annotations_set_trace (self->annotations, self->trace);

  self->sidecar = cp_sidecar_new (file, self->annotations);
  g_signal_connect_object (self->sidecar, "saved", G_CALLBACK (sidecar_saved_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sidecar, "relocated", G_CALLBACK (sidecar_relocated_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sidecar, "save-failed", G_CALLBACK (sidecar_save_failed_cb), self,
                           G_CONNECT_SWAPPED);
  if (!cp_sidecar_load (self->sidecar, &error))
    {
      /* Told now; only then is the file set aside and a fresh one used. */
      g_autofree char *outcome = cp_sidecar_accept_problem (self->sidecar);

      show_sidecar_problem (self, error, outcome);
    }
  cp_sidecar_set_autosave (self->sidecar, 500);
  if (cp_sidecar_get_merge_note (self->sidecar) != NULL)
    show_toast (self, cp_sidecar_get_merge_note (self->sidecar));

  n_detached = cp_annotations_get_n_detached (self->annotations);
  if (n_detached > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u note refers to a slice this capture lacks: it is kept, detached",
                                                            "%u notes refer to slices this capture lacks: they are kept, detached",
                                                            n_detached),
                                               n_detached);

      show_toast (self, text);
    }
  annotations_changed_cb (self);
  update_notes_location (self);
}

/* Opens the note popover on an annotation, pointing at it on the timeline. */
static void
edit_annotation (CpWindow     *self,
                 CpAnnotation *annotation)
{
  CpTimelineView *view = cp_timeline_pane_get_view (self->timeline_pane);
  GdkRectangle rect = { 0, 0, 1, 1 };
  graphene_point_t p, q;

  if (self->note_popover == NULL)
    {
      self->note_popover = cp_note_popover_new ();
      gtk_widget_set_parent (self->note_popover, GTK_WIDGET (self->timeline_pane));
      gtk_popover_set_position (GTK_POPOVER (self->note_popover), GTK_POS_BOTTOM);
    }
  cp_note_popover_edit (CP_NOTE_POPOVER (self->note_popover), self->annotations, annotation);
  if (!cp_timeline_view_get_range_rect (view, cp_annotation_get_lane (annotation),
                                        cp_annotation_get_start (annotation), cp_annotation_get_end (annotation),
                                        &rect))
    {
      rect.x = gtk_widget_get_width (GTK_WIDGET (view)) / 2;
      rect.y = 0;
    }
  /* From the view's coordinates to the pane's. */
  p = GRAPHENE_POINT_INIT (rect.x, rect.y);
  if (gtk_widget_compute_point (GTK_WIDGET (view), GTK_WIDGET (self->timeline_pane), &p, &q))
    {
      rect.x = (int) q.x;
      rect.y = (int) q.y;
    }
  gtk_popover_set_pointing_to (GTK_POPOVER (self->note_popover), &rect);
  gtk_popover_popup (GTK_POPOVER (self->note_popover));
}

static void
add_marker (CpWindow   *self,
            gint64      t,
            CpSliceRef  attach)
{
  CpAnnotation *a = cp_annotations_add_marker (self->annotations, t, CP_ANNOTATION_ALL_LANES, "", 0);

  if (!cp_slice_ref_is_none (attach) && cp_trace_slice_ref_valid (self->trace, attach))
    cp_annotations_attach (self->annotations, a, attach);
  edit_annotation (self, a);
}

/* M: a marker at the pointer; else at the selected range or slice (attached
 * to the slice); else in the middle of the view. */
static void
add_marker_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  CpSliceRef attach = CP_SLICE_REF_NONE;
  gint64 t, a, b;

  if (self->trace == NULL)
    return;
  if (cp_timeline_view_get_pointer_time (cp_timeline_pane_get_view (self->timeline_pane), &t))
    ;
  else if (cp_view_state_get_time_selection (self->view_state, &a, &b))
    t = a;
  else if (cp_view_state_has_selected (self->view_state))
    {
      attach = cp_view_state_get_selected (self->view_state);
      t = cp_trace_slice_start (self->trace, attach);
    }
  else
    t = cp_view_state_get_visible_start (self->view_state) +
        (cp_view_state_get_visible_end (self->view_state) - cp_view_state_get_visible_start (self->view_state)) / 2;
  add_marker (self, t, attach);
}

static void
add_marker_at_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  if (self->trace == NULL)
    return;
  add_marker (self, CLAMP (g_variant_get_int64 (param), 0, cp_trace_get_duration (self->trace)),
              CP_SLICE_REF_NONE);
}

/* A note on the range selected on the ruler, else on the selected slice. */
static void
add_note_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  CpAnnotation *a;
  gint64 start, end;

  if (self->trace == NULL)
    return;
  if (cp_view_state_get_time_selection (self->view_state, &start, &end) && end > start)
    a = cp_annotations_add_note (self->annotations, start, end, CP_ANNOTATION_ALL_LANES, "", 0);
  else if (cp_view_state_has_selected (self->view_state))
    a = cp_annotations_add_slice_note (self->annotations, cp_view_state_get_selected (self->view_state), "", 0);
  else
    return;
  edit_annotation (self, a);
}

static void
add_slice_note_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  CpSliceRef ref;

  g_variant_get (param, "(uu)", &ref.lane, &ref.index);
  if (self->trace == NULL || !cp_trace_slice_ref_valid (self->trace, ref))
    return;
  edit_annotation (self, cp_annotations_add_slice_note (self->annotations, ref, "", 0));
}

static void
pin_evidence_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  const char *rule;
  guint index, n_ev = 0;
  CpFinding *finding;
  AdwToast *toast;

  g_variant_get (param, "(&su)", &rule, &index);
  if (self->analysis == NULL || (finding = cp_analysis_lookup_finding (self->analysis, rule)) == NULL)
    return;
  cp_finding_get_evidence (finding, &n_ev);
  if (index >= n_ev)
    return;
  cp_report_pin_finding (self->annotations, finding, index);

  toast = adw_toast_new (_("Evidence pinned as a note"));
  adw_toast_set_button_label (toast, _("_Show Notes"));
  adw_toast_set_action_name (toast, "win.show-notes");
  adw_toast_set_timeout (toast, 5);
  cp_window_add_toast (self, toast);
}

static void
show_notes_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->side_stack, "notes");
}

/* F8 / Shift+F8: the next or previous evidence of the open finding (the
 * first finding when none is open), wherever the focus is. The accelerators
 * are the application's, which the window runs before any widget sees the
 * key, so the timeline under the pointer or with the focus cannot keep it. */
static void
step_evidence_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  if (self->findings_pane == NULL || cp_findings_pane_get_n_findings (self->findings_pane) == 0)
    return;
  adw_view_stack_set_visible_child_name (self->side_stack, "findings");
  cp_findings_pane_step_evidence (self->findings_pane,
                                  g_str_equal (action_name, "win.next-evidence") ? 1 : -1);
}

/* Reports ------------------------------------------------------------------ */

/* "run.pt.trace.json.gz" -> "run-report.png", beside the capture when its
 * folder may be written, else in Pictures. A document of the portal has no
 * folder to write to (a new file in its folder would vanish): its report
 * goes beside it on the host, where the portal said it is, so that the Save
 * dialog (the file chooser portal) starts there. */
static GFile *
default_report_file (CpWindow *self)
{
  static const char *const suffixes[] = { ".gz", ".zst", ".json", ".pb", ".xplane", ".trace", ".pt" };
  g_autofree char *base = g_file_get_basename (self->file);
  g_autofree char *name = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autofree char *folder_path = NULL;
  gboolean stripped = TRUE;

  if (!is_portal_document (self->file))
    folder = g_file_get_parent (self->file);
  else if (self->location != NULL)
    {
      g_autofree char *host_folder = g_path_get_dirname (self->location);

      folder = g_file_new_for_path (host_folder);
    }
  folder_path = folder ? g_file_get_path (folder) : NULL;

  while (stripped)
    {
      stripped = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
        if (g_str_has_suffix (base, suffixes[i]) && strlen (base) > strlen (suffixes[i]))
          {
            base[strlen (base) - strlen (suffixes[i])] = '\0';
            stripped = TRUE;
          }
    }
  name = g_strconcat (base, "-report.png", NULL);
  if (folder != NULL && is_portal_document (self->file))
    return g_file_get_child (folder, name);
  if (folder_path == NULL || g_access (folder_path, W_OK) != 0)
    {
      const char *pictures = g_get_user_special_dir (G_USER_DIRECTORY_PICTURES);

      return g_file_new_build_filename (pictures ? pictures : g_get_home_dir (), name, NULL);
    }
  return g_file_get_child (folder, name);
}

typedef struct
{
  CpWindow *self;
  GFile    *file;
} Export;

static void
export_free (Export *e)
{
  g_object_unref (e->self);
  g_object_unref (e->file);
  g_free (e);
}

static void
export_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Export *e = user_data;
  CpWindow *self = e->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (e->file);

  if (self->export_toast != NULL)
    adw_toast_dismiss (self->export_toast);
  if (!cp_report_write_finish (CP_REPORT (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *text = g_strdup_printf (_("The report could not be saved: %s"), error->message);

          show_toast (self, text);
        }
    }
  else
    {
      g_autoptr(GFile) parent = g_file_get_parent (e->file);
      g_autofree char *folder = parent ? cp_ui_format_folder (parent) : g_strdup ("/");
      g_autofree char *escaped = g_markup_escape_text (name, -1);
      g_autofree char *escaped_folder = g_markup_escape_text (folder, -1);
      /* Translators: "Report saved as “run-report.png” in “~/runs”". */
      g_autofree char *text = g_strdup_printf (_("Report saved as “%s” in “%s”"), escaped, escaped_folder);
      g_autofree char *uri = g_file_get_uri (e->file);
      AdwToast *toast = adw_toast_new (text);

      /* Where it went, shown: the folder opens with the report in it. */
      adw_toast_set_button_label (toast, _("Show in _Folder"));
      adw_toast_set_action_name (toast, "win.show-report-folder");
      adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
      adw_toast_set_timeout (toast, 10);
      cp_window_add_toast (self, toast);
    }
  export_free (e);
}

static void
export_cb (CpExportDialog *dialog,
           CpWindow       *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpReport) report = NULL;
  CpReportOptions options;
  Export *e;
  AdwToast *toast;

  if (self->trace == NULL || !cp_export_dialog_get_options (dialog, &options, &error))
    {
      if (error != NULL)
        cp_export_dialog_show_error (dialog, error->message);
      return;
    }
  /* The analysis is drawn from when it is done; else the report runs it. */
  report = cp_report_new (self->trace, self->analysis, self->annotations, self->view_state, &options, &error);
  if (report == NULL)
    {
      cp_export_dialog_show_error (dialog, error->message);
      return;
    }

  /* Remembered for the next export from this window. */
  g_free (self->export_pattern);
  self->export_pattern = g_strdup (options.lane_pattern);
  self->export_options = options;
  self->export_options.lane_pattern = self->export_pattern;
  self->have_export_options = TRUE;
  g_set_object (&self->export_file, cp_export_dialog_get_file (dialog));

  e = g_new0 (Export, 1);
  e->self = g_object_ref (self);
  e->file = g_object_ref (cp_export_dialog_get_file (dialog));
  gtk_window_destroy (GTK_WINDOW (dialog));

  toast = adw_toast_new (_("Drawing the report…"));
  adw_toast_set_timeout (toast, 0);
  g_set_weak_pointer (&self->export_toast, toast);
  cp_window_add_toast (self, toast);
  cp_report_write_async (report, e->file, self->cancellable, export_done_cb, e);
}

static void
export_report_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) file = NULL;
  CpExportDialog *dialog;

  if (self->trace == NULL)
    return;
  if (self->export_dialog != NULL)
    {
      gtk_window_present (GTK_WINDOW (self->export_dialog));
      return;
    }
  file = self->export_file ? g_object_ref (self->export_file) : default_report_file (self);
  dialog = cp_export_dialog_new (GTK_WINDOW (self), self->view_state, file);
  if (self->have_export_options)
    cp_export_dialog_set_options (dialog, &self->export_options);
  g_signal_connect_object (dialog, "export", G_CALLBACK (export_cb), self, 0);
  g_set_weak_pointer (&self->export_dialog, dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

#if GTK_CHECK_VERSION (4, 10, 0)
static void
launch_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gtk_file_launcher_launch_finish (GTK_FILE_LAUNCHER (source), result, &error) &&
      !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
      !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The report could not be opened: %s"), error->message);

      show_toast (self, text);
    }
}
#endif

#if GTK_CHECK_VERSION (4, 10, 0)
static void
folder_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!gtk_file_launcher_open_containing_folder_finish (GTK_FILE_LAUNCHER (source), result, &error) &&
      !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
      !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The folder could not be opened: %s"), error->message);

      show_toast (self, text);
    }
}
#else
typedef struct
{
  CpWindow *self;
  char     *folder_uri;
} ShowFolder;

/* The file manager did not answer: the folder opens as a plain folder. */
static void
show_items_done_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ShowFolder *sf = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    gtk_show_uri (GTK_WINDOW (sf->self), sf->folder_uri, GDK_CURRENT_TIME);
  g_object_unref (sf->self);
  g_free (sf->folder_uri);
  g_free (sf);
}
#endif

/* win.show-report-folder: the folder of a saved report, with the report
 * selected where the file manager can (FileManager1 ShowItems). */
static void
show_report_folder_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileLauncher) launcher = gtk_file_launcher_new (file);

  gtk_file_launcher_open_containing_folder (launcher, GTK_WINDOW (self), NULL, folder_done_cb,
                                            g_object_ref (self));
#else
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *folder_uri = parent ? g_file_get_uri (parent) : g_file_get_uri (file);
  GDBusConnection *bus = g_application_get_dbus_connection (g_application_get_default ());
  const char *items[] = { g_variant_get_string (param, NULL), NULL };
  ShowFolder *sf;

  if (bus == NULL)
    {
      gtk_show_uri (GTK_WINDOW (self), folder_uri, GDK_CURRENT_TIME);
      return;
    }
  sf = g_new0 (ShowFolder, 1);
  sf->self = g_object_ref (self);
  sf->folder_uri = g_steal_pointer (&folder_uri);
  g_dbus_connection_call (bus, "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                          "org.freedesktop.FileManager1", "ShowItems",
                          g_variant_new ("(^ass)", items, ""), NULL,
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL, show_items_done_cb, sf);
#endif
}

static void
open_report_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  const char *uri = g_variant_get_string (param, NULL);

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GFile) file = g_file_new_for_uri (uri);
  g_autoptr(GtkFileLauncher) launcher = gtk_file_launcher_new (file);

  gtk_file_launcher_launch (launcher, GTK_WINDOW (self), NULL, launch_done_cb, g_object_ref (self));
#else
  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
#endif
}

/* Window size ----------------------------------------------------------- */

static void
restore_window_state (CpWindow *self)
{
  int width, height;

  if (self->settings == NULL)
    return;

  width = g_settings_get_int (self->settings, "window-width");
  height = g_settings_get_int (self->settings, "window-height");
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static void
save_window_state (CpWindow *self)
{
  gboolean maximized = gtk_window_is_maximized (GTK_WINDOW (self));
  int width, height;

  if (self->settings == NULL)
    return;

  /* Each key is written on its own: the settings object is the
   * application's, shared by every window, so it is never put in
   * delay-apply mode. */
  g_settings_set_boolean (self->settings, "window-maximized", maximized);
  if (!maximized)
    {
      gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
      if (width > 0 && height > 0)
        {
          g_settings_set_int (self->settings, "window-width", width);
          g_settings_set_int (self->settings, "window-height", height);
        }
    }
}

static gboolean
cp_window_close_request (GtkWindow *window)
{
  CpWindow *self = CP_WINDOW (window);

  save_window_state (self);
  /* The last edits, written before the window goes. */
  if (self->sidecar != NULL)
    cp_sidecar_flush (self->sidecar, NULL);
  g_cancellable_cancel (self->cancellable);
  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);

  return GTK_WINDOW_CLASS (cp_window_parent_class)->close_request (window);
}

/* GObject --------------------------------------------------------------- */

CpWindow *
cp_window_new (CpApplication *application)
{
  g_return_val_if_fail (CP_IS_APPLICATION (application), NULL);

  return g_object_new (CP_TYPE_WINDOW, "application", application, NULL);
}

CpWindowState
cp_window_get_state (CpWindow *self)
{
  g_return_val_if_fail (CP_IS_WINDOW (self), CP_WINDOW_EMPTY);

  return self->state;
}

GFile *
cp_window_get_file (CpWindow *self)
{
  g_return_val_if_fail (CP_IS_WINDOW (self), NULL);

  return self->file;
}

CpTrace *
cp_window_get_trace (CpWindow *self)
{
  g_return_val_if_fail (CP_IS_WINDOW (self), NULL);

  return self->trace;
}

CpAnalysis *
cp_window_get_analysis (CpWindow *self)
{
  g_return_val_if_fail (CP_IS_WINDOW (self), NULL);

  return self->analysis;
}

CpViewState *
cp_window_get_view_state (CpWindow *self)
{
  g_return_val_if_fail (CP_IS_WINDOW (self), NULL);

  return self->view_state;
}

gboolean
cp_window_is_idle (CpWindow *self)
{
  g_return_val_if_fail (CP_IS_WINDOW (self), FALSE);

  return self->state == CP_WINDOW_EMPTY && !self->checking;
}

/* View menu, Devices First: the user's choice is kept in the settings and
 * followed from then on; until there is one, the timeline puts devices
 * first by itself when the host lanes are taller than the view. The menu
 * shows the order the timeline has. */
static void
devices_first_change_cb (GSimpleAction *action,
                         GVariant      *value,
                         CpWindow      *self)
{
  cp_timeline_view_set_auto_lane_order (cp_timeline_pane_get_view (self->timeline_pane), FALSE);
  if (self->settings != NULL)
    g_settings_set_boolean (self->settings, "devices-first", g_variant_get_boolean (value));
  cp_view_state_set_devices_first (self->view_state, g_variant_get_boolean (value));
}

static void
devices_first_notify_cb (CpWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "devices-first");

  if (action != NULL)
    g_simple_action_set_state (G_SIMPLE_ACTION (action),
                               g_variant_new_boolean (cp_view_state_get_devices_first (self->view_state)));
}

static void
add_devices_first_action (CpWindow *self)
{
  g_autoptr(GSimpleAction) action = NULL;
  gboolean chosen = FALSE;

  if (self->settings != NULL)
    {
      g_autoptr(GVariant) user = g_settings_get_user_value (self->settings, "devices-first");

      chosen = user != NULL;
      /* Also when another window changes it. */
      g_settings_bind (self->settings, "devices-first", self->view_state, "devices-first",
                       G_SETTINGS_BIND_GET);
    }
  action = g_simple_action_new_stateful ("devices-first", NULL,
                                         g_variant_new_boolean (cp_view_state_get_devices_first (self->view_state)));
  g_signal_connect_object (action, "change-state", G_CALLBACK (devices_first_change_cb), self, 0);
  g_signal_connect_object (self->view_state, "notify::devices-first", G_CALLBACK (devices_first_notify_cb), self,
                           G_CONNECT_SWAPPED);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
  cp_timeline_view_set_auto_lane_order (cp_timeline_pane_get_view (self->timeline_pane), !chosen);
}

/* "application" is not a construct property: GObject sets it after
 * constructed(), so the window joins its application here. */
static void
application_changed_cb (CpWindow   *self,
                        GParamSpec *pspec,
                        gpointer    user_data)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GSettings *settings;

  if (!CP_IS_APPLICATION (app) || self->joined_application)
    return;
  self->joined_application = TRUE;

  settings = cp_application_get_settings (CP_APPLICATION (app));
  if (settings != NULL)
    self->settings = g_object_ref (settings);
  g_menu_append_section (self->recent_submenu, NULL,
                         cp_application_get_recent_menu (CP_APPLICATION (app)));
  restore_window_state (self);

  add_devices_first_action (self);
}

static void
cp_window_constructed (GObject *object)
{
  CpWindow *self = CP_WINDOW (object);

  G_OBJECT_CLASS (cp_window_parent_class)->constructed (object);

  {
    g_autoptr(GPropertyAction) flows = g_property_action_new ("show-all-flows", self->view_state, "show-all-flows");

    g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (flows));
  }

  cp_window_update_action_state (self);
}

static void
cp_window_dispose (GObject *object)
{
  CpWindow *self = CP_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  if (self->analysis_cancellable != NULL)
    g_cancellable_cancel (self->analysis_cancellable);
  g_clear_weak_pointer (&self->message_toast);
  g_clear_weak_pointer (&self->export_toast);
  g_clear_weak_pointer (&self->sandbox_toast);
  if (self->location_cancellable != NULL)
    g_cancellable_cancel (self->location_cancellable);
  if (self->export_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->export_dialog));
  g_clear_weak_pointer (&self->export_dialog);
  g_clear_pointer (&self->note_popover, gtk_widget_unparent);
  if (self->sidecar != NULL)
    {
      cp_sidecar_flush (self->sidecar, NULL);
      g_signal_handlers_disconnect_by_data (self->sidecar, self);
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_WINDOW);

  G_OBJECT_CLASS (cp_window_parent_class)->dispose (object);
}

static void
cp_window_finalize (GObject *object)
{
  CpWindow *self = CP_WINDOW (object);

  g_clear_object (&self->load_cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->analysis_cancellable);
  g_clear_object (&self->analysis);
  g_clear_object (&self->trace);
  g_clear_object (&self->view_state);
  g_clear_object (&self->sidecar);
  if (self->annotations != NULL)
    cp_annotations_set_trace (self->annotations, NULL);
  g_clear_object (&self->annotations);
  g_clear_object (&self->export_file);
  g_free (self->export_pattern);
  g_clear_object (&self->file);
  g_clear_object (&self->location_cancellable);
  g_free (self->location);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (cp_window_parent_class)->finalize (object);
}

static void
cp_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  CpWindow *self = CP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_ANALYSIS:
      g_value_set_object (value, self->analysis);
      break;
    case PROP_VIEW_STATE:
      g_value_set_object (value, self->view_state);
      break;
    case PROP_ANNOTATIONS:
      g_value_set_object (value, self->annotations);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  cp_timeline_pane_find (self->timeline_pane);
}

/* A new selection shows its details, unless another pane than the
 * capture's summary is open (the user is reading it). */
static void
view_state_changed_cb (CpWindow *self,
                       guint     what)
{
  const char *page;

  if (what & (CP_VIEW_CHANGE_SELECTION | CP_VIEW_CHANGE_TIME_SELECTION | CP_VIEW_CHANGE_TRACE))
    cp_window_update_action_state (self);
  if (!(what & (CP_VIEW_CHANGE_SELECTION | CP_VIEW_CHANGE_TIME_SELECTION)) || (what & CP_VIEW_CHANGE_TRACE))
    return;
  if (!cp_view_state_has_selected (self->view_state) &&
      !cp_view_state_get_time_selection (self->view_state, NULL, NULL))
    return;
  page = adw_view_stack_get_visible_child_name (self->side_stack);
  if (g_strcmp0 (page, "capture") == 0)
    adw_view_stack_set_visible_child_name (self->side_stack, "details");
}

/* A slice clicked on the timeline shows its details, whichever page is
 * open: the click asks what the slice is. */
static void
slice_clicked_cb (CpWindow *self)
{
  adw_view_stack_set_visible_child_name (self->side_stack, "details");
}

static void
cp_window_class_init (CpWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = cp_window_constructed;
  object_class->dispose = cp_window_dispose;
  object_class->finalize = cp_window_finalize;
  object_class->get_property = cp_window_get_property;

  window_class->close_request = cp_window_close_request;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL,
                         G_TYPE_FILE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       CP_TYPE_WINDOW_STATE, CP_WINDOW_EMPTY,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL,
                         CP_TYPE_TRACE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_ANALYSIS] =
    g_param_spec_object ("analysis", NULL, NULL,
                         CP_TYPE_ANALYSIS,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* What the timeline shows (visible range, selection, highlights...):
   * panes bind their "view-state" to it. */
  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL,
                         CP_TYPE_VIEW_STATE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* The capture's markers and notes (the Notes page binds to it). */
  properties[PROP_ANNOTATIONS] =
    g_param_spec_object ("annotations", NULL, NULL,
                         CP_TYPE_ANNOTATIONS,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (CP_TYPE_CAPTURE_PANE);
  g_type_ensure (CP_TYPE_NOTES_PANE);
  g_type_ensure (CP_TYPE_FINDINGS_PANE);
  g_type_ensure (CP_TYPE_KERNELS_PANE);
  g_type_ensure (CP_TYPE_STEPS_PANE);
  g_type_ensure (CP_TYPE_DETAILS_PANE);
  g_type_ensure (CP_TYPE_SUMMARY_BAR);
  g_type_ensure (CP_TYPE_TIMELINE_PANE);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CpWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, loading_page);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, loaded_paned);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, capture_pane);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, findings_pane);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, timeline_pane);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, notes_pane);
  gtk_widget_class_bind_template_child (widget_class, CpWindow, recent_submenu);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-in-folder", "s", open_in_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-load", NULL, cancel_load_action);
  gtk_widget_class_install_action (widget_class, "win.show-load-report", NULL,
                                   show_load_report_action);
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL,
                                   export_report_action);
  gtk_widget_class_install_action (widget_class, "win.open-report", "s", open_report_action);
  gtk_widget_class_install_action (widget_class, "win.show-report-folder", "s", show_report_folder_action);
  gtk_widget_class_install_action (widget_class, "win.add-marker", NULL, add_marker_action);
  gtk_widget_class_install_action (widget_class, "win.add-marker-at", "x", add_marker_at_action);
  gtk_widget_class_install_action (widget_class, "win.add-note", NULL, add_note_action);
  gtk_widget_class_install_action (widget_class, "win.add-slice-note", "(uu)", add_slice_note_action);
  gtk_widget_class_install_action (widget_class, "win.pin-evidence", "(su)", pin_evidence_action);
  gtk_widget_class_install_action (widget_class, "win.show-notes", NULL, show_notes_action);
  gtk_widget_class_install_action (widget_class, "win.next-evidence", NULL, step_evidence_action);
  gtk_widget_class_install_action (widget_class, "win.previous-evidence", NULL, step_evidence_action);

  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.cancel-load", NULL);
}

static void
cp_window_init (CpWindow *self)
{
  GtkDropTarget *target;
  /* A file list first: GTK reads it from the file transfer portal's formats
   * (application/vnd.portal.filetransfer, and .files before it) ahead of
   * text/uri-list when the portal runs, as it does in a Flatpak. Only those
   * hand a sandbox a file it can open; a bare URI list names a path it
   * usually cannot see. */
  GType drop_types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE, G_TYPE_STRING };

  /* Before the template: its panes bind to "view-state" and "annotations". */
  self->view_state = cp_view_state_new ();
  self->annotations = cp_annotations_new ();
  g_signal_connect_object (self->annotations, "items-changed", G_CALLBACK (annotations_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->annotations, "changed", G_CALLBACK (annotations_changed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_object (self->view_state, "changed", G_CALLBACK (view_state_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (cp_timeline_pane_get_view (self->timeline_pane), "slice-clicked",
                           G_CALLBACK (slice_clicked_cb), self, G_CONNECT_SWAPPED);

  target = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (target, drop_types, G_N_ELEMENTS (drop_types));
  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));

  g_signal_connect (self, "notify::application", G_CALLBACK (application_changed_cb), NULL);

  self->cancellable = g_cancellable_new ();
  self->state = CP_WINDOW_EMPTY;
  self->sandboxed = cp_is_sandboxed ();
}

void
_cp_window_set_sandboxed (CpWindow *self,
                          gboolean  sandboxed)
{
  g_return_if_fail (CP_IS_WINDOW (self));

  self->sandboxed = !!sandboxed;
}
