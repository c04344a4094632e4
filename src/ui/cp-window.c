/* cp-window.c: the window of one capture: its state, loading and messages
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "formats/cp-document-portal.h"
#include "formats/cp-loader.h"
#include "formats/cp-sidecar.h"
#include "render/cp-report.h"

#include "analysis/cp-analysis.h"

#include "cp-cancel.h"
#include "cp-capture-pane.h"
#include "cp-findings-pane.h"
#include "cp-kernels-pane.h"
#include "cp-steps-pane.h"
#include "cp-details-pane.h"
#include "cp-export-dialog.h"
#include "cp-format.h"
#include "cp-notes-pane.h"
#include "cp-summary-bar.h"
#include "cp-timeline-pane.h"
#include "cp-history-window.h"
#include "cp-window-private.h"

/* The struct is in cp-window-private.h. */

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
gboolean
_cp_window_is_portal_document (GFile *file)
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
  if (_cp_window_is_portal_document (self->file))
    return NULL;
  return g_object_ref (self->file);
}

/* A file beside the capture (its notes) as people know it: in the capture's
 * real folder when the portal said where that is, by its name alone in a
 * document of the portal otherwise. */
char *
_cp_window_dup_path_beside (CpWindow *self,
                 GFile    *file)
{
  g_autofree char *base = NULL;

  if (!_cp_window_is_portal_document (file))
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
void
_cp_window_show_toast (CpWindow   *self,
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
void
_cp_window_present_alert (CpWindow   *self,
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

  _cp_window_present_alert (self, heading, body);
}

/* State ----------------------------------------------------------------- */

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
    _cp_window_update_notes_location (self);
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
  cp_ui_cancel (&self->location_cancellable);
  g_clear_pointer (&self->location, g_free);
  if (self->file == NULL || !_cp_window_is_portal_document (self->file))
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
  gboolean worth_a_look;

  /* Cancelled: another capture, or the window closed. */
  if (analysis == NULL || cp_analysis_get_trace (analysis) != self->trace)
    return;
  g_clear_object (&self->analysis_cancellable);
  if (g_set_object (&self->analysis, analysis))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
  /* A dot on the Findings tab when something is worth a look: a problem,
   * or a verdict that cannot be fully trusted. */
  worth_a_look = cp_analysis_has_warnings (analysis) ||
                 cp_analysis_get_confidence (analysis, NULL, NULL) != CP_CONFIDENCE_HIGH;
  adw_view_stack_page_set_needs_attention (adw_view_stack_get_page (self->side_stack, GTK_WIDGET (self->findings_pane)),
                                           worth_a_look);
  /* The answer first: such a capture opens on Findings, unless the user
   * already went to another page than the first. */
  if (worth_a_look &&
      g_strcmp0 (adw_view_stack_get_visible_child_name (self->side_stack), "capture") == 0)
    adw_view_stack_set_visible_child_name (self->side_stack, "findings");
  /* Asks once whether to keep a history, or records the capture in it. */
  cp_history_record_loaded (self, analysis);
}

/* The analysis runs in a worker thread after loading; the panes bound to
 * "analysis" say it runs until it is there. */
static void
start_analysis (CpWindow *self)
{
  cp_ui_cancel (&self->analysis_cancellable);
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
void
_cp_window_return_to_empty (CpWindow *self)
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
    _cp_window_show_toast (target, reason);

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
      _cp_window_return_to_empty (self);
      report_failure (self, load->file, error->message, TRUE);
      return;
    }

  set_trace (self, trace);
  set_state (self, CP_WINDOW_LOADED);
  _cp_window_setup_annotations (self, load->file);
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
      _cp_window_show_toast (self, notice);
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
          _cp_window_return_to_empty (self);
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
          _cp_window_return_to_empty (self);
          report_failure (self, load->file, problem, FALSE);
        }
      else
        _cp_window_show_toast (self, problem);
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

  _cp_window_add_devices_first_action (self);
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

  _cp_window_actions_class_init (widget_class);
  _cp_window_dnd_class_init (widget_class);
  _cp_window_notes_class_init (widget_class);
  _cp_window_export_class_init (widget_class);
}

static void
cp_window_init (CpWindow *self)
{
  /* Before the template: its panes bind to "view-state" and "annotations". */
  self->view_state = cp_view_state_new ();
  self->annotations = cp_annotations_new ();
  _cp_window_notes_init (self);
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_object (self->view_state, "changed", G_CALLBACK (view_state_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (cp_timeline_pane_get_view (self->timeline_pane), "slice-clicked",
                           G_CALLBACK (slice_clicked_cb), self, G_CONNECT_SWAPPED);

  _cp_window_dnd_init (self);

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
