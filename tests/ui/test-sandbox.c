/* test-sandbox.c: the window in a Flatpak's shoes
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A capture shared through the document portal shows where it really is (a
 * fake portal on the test's private bus answers GetHostPaths), or its name
 * alone when the portal does not know; a drop that names a file the sandbox
 * cannot see says so and offers the Open dialog on its folder, while outside
 * the sandbox a missing file keeps its message. The sandbox itself is
 * pretended (_cp_window_set_sandboxed()); flatpak/check.sh does it for real.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "cp-application.h"
#include "cp-export-dialog.h"
#include "cp-test-util.h"
#include "cp-window.h"
#include "cp-window-private.h"
#include "cp-ui-test-util.h"
#include "formats/cp-document-portal.h"

#define DOC_ID       "4e934306"
#define UNKNOWN_ID   "0bad0bad"
#define HOST_FOLDER  "/srv/runs/exp7"
#define CAPTURE_NAME "worker0.pt.trace.json"

static CpApplication *app;
static char *tmpdir;
static guint portal_calls;

static const char capture_json[] =
  "{\"traceEvents\": [\n"
  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 1, \"ts\": 1000, \"dur\": 50},\n"
  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1020, \"dur\": 20,"
  "   \"args\": {\"device\": 0, \"stream\": 7}}\n"
  " ]}\n";

/* A document portal ------------------------------------------------------ */

static const char portal_xml[] =
  "<node>"
  "  <interface name='org.freedesktop.portal.Documents'>"
  "    <method name='GetHostPaths'>"
  "      <arg type='as' name='doc_ids' direction='in'/>"
  "      <arg type='a{say}' name='paths' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

static void
portal_method_call (GDBusConnection       *connection,
                    const char            *sender,
                    const char            *object_path,
                    const char            *interface_name,
                    const char            *method_name,
                    GVariant              *parameters,
                    GDBusMethodInvocation *invocation,
                    gpointer               user_data)
{
  g_autofree const char **ids = NULL;
  GVariantBuilder builder;

  portal_calls++;
  g_variant_get (parameters, "(^a&s)", &ids);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{say}"));
  for (guint i = 0; ids[i] != NULL; i++)
    if (g_str_equal (ids[i], DOC_ID))
      g_variant_builder_add (&builder, "{s@ay}", ids[i],
                             g_variant_new_bytestring (HOST_FOLDER "/" CAPTURE_NAME));
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a{say})", &builder));
}

static const GDBusInterfaceVTable portal_vtable = { portal_method_call, NULL, NULL, { 0 } };

static gboolean
name_owned_cond (gpointer data)
{
  return *(gboolean *) data;
}

static void
name_acquired_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         data)
{
  *(gboolean *) data = TRUE;
}

static void
start_portal (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (portal_xml, &error);
  static gboolean owned = FALSE;

  g_assert_no_error (error);
  g_dbus_connection_register_object (bus, CP_DOCUMENT_PORTAL_PATH, node->interfaces[0], &portal_vtable,
                                     NULL, NULL, &error);
  g_assert_no_error (error);
  g_bus_own_name_on_connection (bus, CP_DOCUMENT_PORTAL_BUS_NAME, G_BUS_NAME_OWNER_FLAGS_NONE,
                                name_acquired_cb, NULL, &owned, NULL);
  cp_ui_wait_for (name_owned_cond, &owned, "the fake document portal on the bus");
}

/* Helpers --------------------------------------------------------------- */


static CpWindow *
new_window (gboolean sandboxed)
{
  CpWindow *window = cp_window_new (app);

  _cp_window_set_sandboxed (window, sandboxed);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static gboolean
loaded_cond (gpointer data)
{
  return cp_window_get_state (data) == CP_WINDOW_LOADED;
}

/* args: the file, the location the recent list should name for it. */
static gboolean
recent_location_cond (gpointer data)
{
  gpointer *args = data;
  g_autofree char *location = cp_application_dup_recent_location (app, args[0]);

  return g_strcmp0 (location, args[1]) == 0;
}

static const char *subtitle_of (CpWindow *window);

/* args: the window, its subtitle. */
static gboolean
subtitle_is_cond (gpointer data)
{
  gpointer *args = data;

  return g_strcmp0 (subtitle_of (args[0]), args[1]) == 0;
}

/* A document of the portal: a file under $XDG_RUNTIME_DIR/doc/ID/. */
static GFile *
write_document (const char *id,
                const char *name)
{
  g_autofree char *folder = g_build_filename (cp_document_portal_mount_point (), id, NULL);
  g_autofree char *path = g_build_filename (folder, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  g_file_set_contents (path, capture_json, -1, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static gboolean
drop_files (CpWindow *window,
            GFile    *file)
{
  g_auto(GValue) value = G_VALUE_INIT;
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  GtkDropTarget *target = NULL;
  GSList *list = g_slist_append (NULL, file);
  gboolean accepted = FALSE;

  for (guint i = 0; target == NULL && i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        target = GTK_DROP_TARGET (controller);
    }
  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
  g_slist_free (list);
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
  return accepted;
}

static gboolean
window_shows_cond (gpointer data)
{
  gpointer *args = data;

  return cp_ui_label_tree_has (args[0], args[1]);
}

static void
wait_for_text (CpWindow   *window,
               const char *text)
{
  gpointer args[2] = { window, (gpointer) text };
  g_autofree char *what = g_strdup_printf ("the window to show “%s”", text);

  cp_ui_wait_for (window_shows_cond, args, what);
}

static const char *
subtitle_of (CpWindow *window)
{
  AdwWindowTitle *title = ADW_WINDOW_TITLE (cp_ui_find_widget (GTK_WIDGET (window), ADW_TYPE_WINDOW_TITLE));

  g_assert_nonnull (title);
  return adw_window_title_get_subtitle (title);
}

/* The subtitle of the Capture page's row titled title. */
static const char *
capture_row (CpWindow   *window,
             const char *title)
{
  GtkWidget *pane = cp_ui_find_widget (GTK_WIDGET (window), g_type_from_name ("CpCapturePane"));
  GPtrArray *stack = g_ptr_array_new ();
  const char *found = NULL;

  g_assert_nonnull (pane);
  g_ptr_array_add (stack, pane);
  while (stack->len > 0 && found == NULL)
    {
      GtkWidget *w = g_ptr_array_steal_index (stack, stack->len - 1);

      if (ADW_IS_ACTION_ROW (w) && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (w)), title) == 0)
        found = adw_action_row_get_subtitle (ADW_ACTION_ROW (w));
      for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (stack, c);
    }
  g_ptr_array_unref (stack);
  return found;
}

/* The labels of the Open Recent menu. */
static GStrv
recent_labels (void)
{
  GMenuModel *menu = cp_application_get_recent_menu (app);
  g_autoptr(GMenuModel) items = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (int i = 0; i < g_menu_model_get_n_items (items); i++)
    {
      g_autofree char *label = NULL;

      if (g_menu_model_get_item_attribute (items, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        g_strv_builder_add (builder, label);
    }
  return g_strv_builder_end (builder);
}

static GtkWidget *
find_button_labelled (GtkWidget  *root,
                      const char *label)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (root)), label) == 0 &&
      gtk_widget_get_visible (root))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button_labelled (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
file_chooser_shown_cond (gpointer data)
{
  GtkWidget **found = data;
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER (window) && gtk_widget_get_visible (window))
        {
          *found = window;
          return TRUE;
        }
    }
  return FALSE;
}

/* The report file Export Report proposes. */
static GFile *
proposed_report_file (CpWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  GFile *file = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export-report", NULL));
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);

      if (CP_IS_EXPORT_DIALOG (w))
        {
          file = g_object_ref (cp_export_dialog_get_file (CP_EXPORT_DIALOG (w)));
          gtk_window_destroy (GTK_WINDOW (w));
          break;
        }
    }
  g_assert_nonnull (file);
  return file;
}

/* Tests ----------------------------------------------------------------- */

/* A capture the portal knows: its host folder in the subtitle, its host path
 * on the Capture page, and the host folder in the recent list. */
static void
test_location (void)
{
  g_autoptr(GFile) file = write_document (DOC_ID, CAPTURE_NAME);
  g_autofree char *other_path = g_build_filename (tmpdir, "other", CAPTURE_NAME, NULL);
  g_autoptr(GFile) other = g_file_new_for_path (other_path);
  g_autofree char *location = NULL;
  g_auto(GStrv) labels = NULL;
  CpWindow *window = new_window (TRUE);
  guint calls = portal_calls;

  /* Another recent capture of the same name, so that labels name folders. */
  g_settings_reset (cp_application_get_settings (app), "recent-captures");
  {
    g_autofree char *other_folder = g_path_get_dirname (other_path);

    g_assert_cmpint (g_mkdir_with_parents (other_folder, 0700), ==, 0);
    g_assert_true (g_file_set_contents (other_path, capture_json, -1, NULL));
  }
  cp_application_add_recent (app, other);

  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture to load");
  wait_for_text (window, HOST_FOLDER);
  g_assert_cmpuint (portal_calls, ==, calls + 1);

  g_assert_cmpstr (subtitle_of (window), ==, HOST_FOLDER);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, CAPTURE_NAME);
  g_assert_cmpstr (capture_row (window, "Location"), ==, HOST_FOLDER "/" CAPTURE_NAME);
  /* The portal's own path shows nowhere. */
  g_assert_false (cp_ui_label_tree_has (GTK_WIDGET (window), "/doc/"));

  /* The recent list keeps the document (the sandbox opens it again) and
   * names its real folder. */
  {
    gpointer args[2] = { file, (gpointer) (HOST_FOLDER "/" CAPTURE_NAME) };

    cp_ui_wait_for (recent_location_cond, args, "the recent list to name the real folder");
  }
  location = cp_application_dup_recent_location (app, file);
  g_assert_cmpstr (location, ==, HOST_FOLDER "/" CAPTURE_NAME);
  labels = recent_labels ();
  g_assert_cmpuint (g_strv_length (labels), ==, 2);
  g_assert_cmpstr (labels[0], ==, "worker0.pt.trace.json — exp7");
  g_assert_cmpstr (labels[1], ==, "worker0.pt.trace.json — other");

  /* Export Report proposes the capture's real folder, not the portal's,
   * where a new file would vanish. */
  {
    g_autoptr(GFile) report = proposed_report_file (window);
    g_autofree char *path = g_file_get_path (report);

    g_assert_cmpstr (path, ==, HOST_FOLDER "/worker0-report.png");
  }

  cp_ui_close_all ();
}

/* A document the portal does not know (or a portal before version 5): the
 * file name, never the portal's path. */
static void
test_location_unknown (void)
{
  g_autoptr(GFile) file = write_document (UNKNOWN_ID, "step9.pt.trace.json");
  CpWindow *window = new_window (TRUE);
  guint calls = portal_calls;

  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture to load");
  while (portal_calls == calls)
    g_main_context_iteration (NULL, TRUE);
  /* The portal's empty answer must change nothing, so nothing shows that
   * it has arrived. */
  cp_ui_wait_elapsed (200, "the portal's empty answer to arrive (it changes nothing)");

  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "step9.pt.trace.json");
  g_assert_true (subtitle_of (window) == NULL || subtitle_of (window)[0] == '\0');
  g_assert_cmpstr (capture_row (window, "Location"), ==, "step9.pt.trace.json");
  g_assert_false (cp_ui_label_tree_has (GTK_WIDGET (window), "/doc/"));
  g_assert_false (cp_ui_label_tree_has (GTK_WIDGET (window), UNKNOWN_ID));

  /* No folder is known: the report is proposed in Pictures (or home). */
  {
    g_autoptr(GFile) report = proposed_report_file (window);
    g_autofree char *path = g_file_get_path (report);

    g_assert_false (g_str_has_prefix (path, cp_document_portal_mount_point ()));
    g_assert_true (g_str_has_suffix (path, "/step9-report.png"));
  }

  cp_ui_close_all ();
}

/* A capture outside the portal keeps its own folder, and nothing is asked. */
static void
test_location_plain (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "plain.pt.trace.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CpWindow *window = new_window (FALSE);
  guint calls = portal_calls;

  g_assert_true (g_file_set_contents (path, capture_json, -1, NULL));
  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture to load");
  {
    gpointer args[2] = { window, tmpdir };

    cp_ui_wait_for (subtitle_is_cond, args, "the folder as the subtitle");
  }
  g_assert_cmpstr (capture_row (window, "Location"), ==, path);
  g_assert_cmpuint (portal_calls, ==, calls);

  cp_ui_close_all ();
}

/* A drop naming a file the sandbox cannot see (a bare URI list): the
 * sandbox is the reason, and the Open dialog starts in the file's folder. */
static gboolean
file_chooser_gone_cond (gpointer data)
{
  GtkWidget *found = NULL;

  return !file_chooser_shown_cond (&found);
}

static void
test_drop_unseen (void)
{
  g_autofree char *folder_path = g_build_filename (tmpdir, "host-only", NULL);
  g_autofree char *path = g_build_filename (folder_path, "worker1.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) folder = g_file_new_for_path (folder_path);
  g_autoptr(GFile) gone = NULL;
  GtkWidget *chooser = NULL;
  GtkWidget *button;
  CpWindow *window;

#if defined(__SANITIZE_ADDRESS__)
  /* As in test-ui: GTK 4.8's file chooser leaks under LeakSanitizer. */
  g_test_skip ("GTK 4.8's file chooser leaks under LeakSanitizer");
  return;
#endif

  g_assert_cmpint (g_mkdir_with_parents (folder_path, 0700), ==, 0);
  window = new_window (TRUE);
  g_assert_true (drop_files (window, file));
  wait_for_text (window, "This file was shared in a way the sandbox cannot open");
  g_assert_true (cp_ui_label_tree_has (GTK_WIDGET (window), "worker1.pt.trace.json.gz"));
  g_assert_false (cp_ui_label_tree_has (GTK_WIDGET (window), "does not exist"));
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);
  g_assert_true (cp_window_is_idle (window));

  /* Its button opens the Open dialog on the file's folder. */
  button = find_button_labelled (GTK_WIDGET (window), "_Choose File…");
  g_assert_nonnull (button);
  gtk_widget_activate (button);
  cp_ui_wait_for (file_chooser_shown_cond, &chooser, "the file chooser");
  cp_ui_wait_chooser_folder (chooser, folder);

  /* GTK 4.18's chooser fills its path bar after it changed folder;
   * cancelling it before then trips a critical inside GTK, and nothing
   * outside GTK shows when it is done. */
  cp_ui_wait_elapsed (500, "GTK 4.18's file chooser to fill its path bar");
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  G_GNUC_END_IGNORE_DEPRECATIONS
  /* The chooser goes away on its answer; GTK 4.18's then still finishes
   * the work it queued (closing its windows before then crashes inside
   * GTK), and nothing outside GTK shows when that is done. */
  cp_ui_wait_for (file_chooser_gone_cond, NULL, "the file chooser to go away");
  cp_ui_wait_elapsed (100, "GTK 4.18's file chooser to finish after its answer");

  cp_ui_close_all ();

  /* A document of the portal that is gone is missing, sandbox or not. */
  gone = g_file_new_build_filename (cp_document_portal_mount_point (), "5ca1ab1e", "gone.json", NULL);
  window = new_window (TRUE);
  g_assert_true (drop_files (window, gone));
  wait_for_text (window, "does not exist");
  g_assert_false (cp_ui_label_tree_has (GTK_WIDGET (window), "sandbox"));
  cp_ui_close_all ();

  /* Outside the sandbox, the same missing file keeps today's message. */
  window = new_window (FALSE);
  g_assert_true (drop_files (window, file));
  wait_for_text (window, "“worker1.pt.trace.json.gz” does not exist");
  g_assert_false (cp_ui_label_tree_has (GTK_WIDGET (window), "sandbox"));
  cp_ui_close_all ();
}

/* A window busy with a capture: the message shows there, nothing opens. */
static void
test_drop_unseen_busy (void)
{
  g_autoptr(GFile) shown = write_document (DOC_ID, CAPTURE_NAME);
  g_autoptr(GFile) unseen = g_file_new_build_filename (tmpdir, "nowhere", "a.json", NULL);
  CpWindow *window = new_window (TRUE);

  cp_window_open (window, shown);
  cp_ui_wait_for (loaded_cond, window, "the capture to load");
  g_assert_true (drop_files (window, unseen));
  wait_for_text (window, "This file was shared in a way the sandbox cannot open");
  g_assert_true (cp_ui_label_tree_has (GTK_WIDGET (window), "a.json"));
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 1);
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_LOADED);
  cp_ui_close_all ();
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = NULL;
  int status;

  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("# SKIP no display (run under Xvfb)\n");
      return 77;
    }

  /* The document portal's mount point of this process is in a runtime
   * folder of its own, before GLib reads the variable. */
  tmpdir = g_dir_make_tmp ("chokepoint-sandbox-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  runtime = g_build_filename (tmpdir, "runtime", NULL);
  g_assert_cmpint (g_mkdir (runtime, 0700), ==, 0);
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);

  g_test_init (&argc, &argv, NULL);
  cp_ui_tolerate_chooser_race ();

  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  start_portal ();

  g_test_add_func ("/sandbox/location", test_location);
  g_test_add_func ("/sandbox/location-unknown", test_location_unknown);
  g_test_add_func ("/sandbox/location-plain", test_location_plain);
  g_test_add_func ("/sandbox/drop-unseen", test_drop_unseen);
  g_test_add_func ("/sandbox/drop-unseen-busy", test_drop_unseen_busy);

  status = g_test_run ();

  g_clear_object (&app);
  cp_test_rm_rf (tmpdir);
  g_free (tmpdir);
  return status;
}
