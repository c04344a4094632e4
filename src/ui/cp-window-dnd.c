/* cp-window-dnd.c: how files reach the window: drops and the Open dialogs
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-window-private.h"
#include "cp-application.h"

/* Drops ----------------------------------------------------------------- */

/* Compares the shown capture (A) with file (B) in a comparison window. */
static void
compare_with (CpWindow *self,
              GFile    *file)
{
  g_autofree char *a = g_file_get_uri (cp_window_get_file (self));
  g_autofree char *b = g_file_get_uri (file);

  g_action_group_activate_action (G_ACTION_GROUP (gtk_window_get_application (GTK_WINDOW (self))),
                                  "compare", g_variant_new ("(ss)", a, b));
}

/* Ctrl or Shift held while dropping one file on a shown capture: the
 * modifiers that change what a drop does (HIG), read from the keyboard,
 * since GTK 4.8's drop events carry none. */
static gboolean
drop_wants_compare (CpWindow *self)
{
  GdkSeat *seat = gdk_display_get_default_seat (gtk_widget_get_display (GTK_WIDGET (self)));
  GdkDevice *keyboard = seat != NULL ? gdk_seat_get_keyboard (seat) : NULL;

  if (cp_window_get_file (self) == NULL || keyboard == NULL)
    return FALSE;
  return (gdk_device_get_modifier_state (keyboard) & (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) != 0;
}

/* Several files, or a folder of per-rank captures, are the ranks of a job:
 * the application opens them in a job window. */
static gboolean
open_job (CpWindow      *self,
          GFile * const *files,
          guint          n_files)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (!CP_IS_APPLICATION (app) || n_files == 0 || (n_files == 1 && !cp_job_is_folder (files[0])))
    return FALSE;
  cp_application_open_files (CP_APPLICATION (app), files, n_files);
  return TRUE;
}

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
      _cp_window_show_toast (self, _("Only files can be opened: the drop held no file"));
      return FALSE;
    }

  if (files->len == 1 && drop_wants_compare (self))
    {
      compare_with (self, g_ptr_array_index (files, 0));
      return TRUE;
    }
  if (open_job (self, (GFile * const *) files->pdata, files->len))
    return TRUE;
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
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);

  if (g_object_get_data (G_OBJECT (self), "cp-compare-with") != NULL)
    {
      g_object_set_data (G_OBJECT (self), "cp-compare-with", NULL);
      if (n > 0 && cp_window_get_file (self) != NULL)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, 0);

          compare_with (self, file);
        }
      return;
    }

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (list, g_list_model_get_item (files, i));
  if (open_job (self, (GFile * const *) list->pdata, list->len))
    return;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GFile) file = g_list_model_get_item (files, i);

      cp_window_open (self, file);
    }
}

#if GTK_CHECK_VERSION (4, 10, 0)
/* The Open and Open Profile Folder dialogs end here. */
static void
file_dialog_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CpWindow) self = user_data;
  GtkFileDialog *dialog = GTK_FILE_DIALOG (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GListModel) files = NULL;

  if (g_object_get_data (source, "cp-select-folder") != NULL)
    {
      g_autoptr(GFile) folder = gtk_file_dialog_select_folder_finish (dialog, result, &error);

      if (folder != NULL)
        {
          GListStore *store = g_list_store_new (G_TYPE_FILE);

          g_list_store_append (store, folder);
          files = G_LIST_MODEL (store);
        }
    }
  else
    files = gtk_file_dialog_open_multiple_finish (dialog, result, &error);
  if (files == NULL)
    {
      if (!g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
          !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
        {
          g_autofree char *text = g_strdup_printf (_("Could not show the file chooser: %s"),
                                                   error->message);
          _cp_window_show_toast (self, text);
        }
      return;
    }
  open_files (self, files);
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

/* The Open dialog (captures, or a profile folder when select_folder), in
 * folder when it is not NULL. */
static void
show_open_dialog (CpWindow *self,
                  GFile    *folder,
                  gboolean  select_folder)
{
  gboolean compare = g_object_get_data (G_OBJECT (self), "cp-compare-with") != NULL;
  const char *title = compare ? _("Compare With") : select_folder ? _("Open Profile Folder") : _("Open Capture");
  const char *accept = compare ? _("_Compare") : _("_Open");
  GtkFileFilter *all = NULL;
  g_autoptr(GListStore) filters = select_folder ? NULL : make_filters (&all);
  /* Owns the filter for the scope (only read through "all"). */
  g_autoptr(GtkFileFilter) all_ref G_GNUC_UNUSED = all;

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_accept_label (dialog, accept);
  gtk_file_dialog_set_modal (dialog, TRUE);
  if (filters != NULL)
    {
      gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
      gtk_file_dialog_set_default_filter (dialog, all);
    }
  if (folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, folder);
  if (select_folder)
    {
      g_object_set_data (G_OBJECT (dialog), "cp-select-folder", GINT_TO_POINTER (TRUE));
      gtk_file_dialog_select_folder (dialog, GTK_WINDOW (self), NULL,
                                     file_dialog_cb, g_object_ref (self));
    }
  else
    gtk_file_dialog_open_multiple (dialog, GTK_WINDOW (self), NULL,
                                   file_dialog_cb, g_object_ref (self));
#else
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (title, GTK_WINDOW (self),
                                        select_folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                                      : GTK_FILE_CHOOSER_ACTION_OPEN,
                                        accept, _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (filters != NULL)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (filters));

      gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), TRUE);
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GtkFileFilter) filter = g_list_model_get_item (G_LIST_MODEL (filters), i);

          gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
        }
      gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (native), all);
    }
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

  /* An Open after a dismissed Compare With… opens. */
  g_object_set_data (G_OBJECT (self), "cp-compare-with", NULL);

  show_open_dialog (self, folder, FALSE);
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

  /* An Open after a dismissed Compare With… opens. */
  g_object_set_data (G_OBJECT (self), "cp-compare-with", NULL);

  show_open_dialog (self, folder, FALSE);
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

  /* An Open after a dismissed Compare With… opens. */
  g_object_set_data (G_OBJECT (self), "cp-compare-with", NULL);

  show_open_dialog (self, folder, TRUE);
}

/* Compare With…: a second capture, B, against the shown one, A. */
static void
compare_with_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) folder = dup_initial_folder (self);

  if (cp_window_get_file (self) == NULL)
    {
      _cp_window_show_toast (self, _("Open a capture first, then compare it with another"));
      return;
    }
  g_object_set_data (G_OBJECT (self), "cp-compare-with", GINT_TO_POINTER (TRUE));
  show_open_dialog (self, folder, FALSE);
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  cp_window_open (self, file);
}

void
_cp_window_dnd_init (CpWindow *self)
{
  GtkDropTarget *target;
  /* A file list first: GTK reads it from the file transfer portal's formats
   * (application/vnd.portal.filetransfer, and .files before it) ahead of
   * text/uri-list when the portal runs, as it does in a Flatpak. Only those
   * hand a sandbox a file it can open; a bare URI list names a path it
   * usually cannot see. */
  GType drop_types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE, G_TYPE_STRING };

  target = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (target, drop_types, G_N_ELEMENTS (drop_types));
  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}

void
_cp_window_dnd_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-in-folder", "s", open_in_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.compare-with", NULL, compare_with_action);
}
