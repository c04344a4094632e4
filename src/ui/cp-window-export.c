/* cp-window-export.c: Export Report and what follows it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cp-format.h"
#include "cp-window-private.h"

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

  if (!_cp_window_is_portal_document (self->file))
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
  if (folder != NULL && _cp_window_is_portal_document (self->file))
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

          _cp_window_show_toast (self, text);
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

      _cp_window_show_toast (self, text);
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

      _cp_window_show_toast (self, text);
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


void
_cp_window_export_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export-report", NULL,
                                   export_report_action);
  gtk_widget_class_install_action (widget_class, "win.open-report", "s", open_report_action);
  gtk_widget_class_install_action (widget_class, "win.show-report-folder", "s", show_report_folder_action);
}
