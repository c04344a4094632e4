/* test-newcomer.c: what a new user tripped over, in the real window
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_THEME=Adwaita:dark, as a user who forces the dark theme
 * that way, and opens a capture like the ones people reported: a Kineto GPU
 * process named after the host program ("python3", labelled "GPU 0"), a
 * host thread whose id Kineto wrote as a negative number, a Python stack
 * deep enough to push the device lanes out of the view, a kernel with a
 * long C++ name, whole-µs times. Checks the names, the lane order, the
 * Kernels table, that a click on a slice shows its Details whatever page is
 * open, the times there, the Selected Range table and the export toast.
 * Run by run-ui-test.sh inside dbus-run-session with
 * G_DEBUG=fatal-warnings (so a GtkLabel that reports a negative width
 * fails it) and the memory GSettings backend; skipped (exit 77) without a
 * display.
 */

#include "config.h"

#include <adwaita.h>
#include <locale.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cp-application.h"
#include "cp-capture-pane.h"
#include "cp-details-pane.h"
#include "cp-export-dialog.h"
#include "cp-format.h"
#include "cp-kernels-pane.h"
#include "cp-steps-pane.h"
#include "cp-style.h"
#include "cp-timeline-pane.h"
#include "cp-timeline-view-private.h"
#include "cp-window.h"
#include "cp-ui-test-util.h"

#define LONG_KERNEL "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, " \
                    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"
#define SHORT_KERNEL "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, " \
                     "at::detail::Array<char*, 1> >"
#define STACK_DEPTH 60

static CpApplication *app;
static char *tmpdir;

static char *
capture_json (void)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"traceEvents\": [\n");

  g_string_append (s,
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 4242, \"args\": {\"name\": \"python3\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"python3\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 0, \"args\": {\"labels\": \"GPU 0\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4242,"
    " \"tid\": -549452224, \"ts\": 1200, \"dur\": 20, \"args\": {\"correlation\": 7}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" LONG_KERNEL "\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 1300, \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 7}},\n");
  /* A Python stack, one frame in another. */
  for (int i = 0; i < STACK_DEPTH; i++)
    g_string_append_printf (s,
      "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"frame.py(%d): f%d\", \"pid\": 4242,"
      " \"tid\": -549452224, \"ts\": %d, \"dur\": %d},\n", i, i, 1000 + i, 1000 - 2 * i);
  g_string_append (s,
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::fill_\", \"pid\": 4242, \"tid\": -549452224,"
    " \"ts\": 1190, \"dur\": 40}\n]}\n");
  return g_string_free (s, FALSE);
}

/* The label whose tooltip is the text. */
static GtkLabel *
find_label_with_tooltip (GtkWidget  *root,
                         const char *tooltip)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_widget_get_tooltip_text (root), tooltip) == 0)
    return GTK_LABEL (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label_with_tooltip (child, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkLabel *
find_label_with_text (GtkWidget  *root,
                      const char *text)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), text) == 0)
    return GTK_LABEL (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label_with_text (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
loaded_cond (gpointer data)
{
  return cp_window_get_state (data) == CP_WINDOW_LOADED && cp_window_get_analysis (data) != NULL;
}

static gboolean
view_ready_cond (gpointer data)
{
  return cp_timeline_view_is_ready (data) && gtk_widget_get_height (data) > 300 &&
         gtk_widget_get_mapped (data);
}

static gboolean
kernel_row_cond (gpointer data)
{
  return find_label_with_tooltip (data, LONG_KERNEL) != NULL;
}

static gboolean
range_counted_cond (gpointer data)
{
  return cp_ui_find_named (data, "range-lanes") != NULL;
}

static gboolean
has_tooltip_cond (gpointer data)
{
  return gtk_widget_get_has_tooltip (data);
}

static GtkWidget *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_visible (window))
        return window;
    }
  return NULL;
}

static void
test_format (void)
{
  g_autoptr(GFile) home = g_file_new_build_filename (g_get_home_dir (), "runs", "resnet", NULL);
  g_autoptr(GFile) other = g_file_new_for_path ("/var/tmp/runs");
  g_autofree char *a = cp_ui_format_folder (home);
  g_autofree char *b = cp_ui_format_folder (other);
  const struct { double pct; const char *text; } pcts[] = {
    { 13.72, "13.7%" }, { 100, "100%" }, { 99.97, "100%" }, { 0, "0%" }, { 0.01, "<0.1%" }, { 4.0, "4.0%" },
  };
  const struct { const char *name; const char *text; } names[] = {
    { LONG_KERNEL, SHORT_KERNEL },
    { "volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn" },
    { "aten::conv2d", "aten::conv2d" },
    { "void f()", "f" },
    { "Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)" },
    { "at::native::f<float>(int, float*)", "at::native::f<float>" },
    { "frame.py(12): f", "frame.py(12): f" },
    { "(unbalanced))", "(unbalanced))" },
  };

  g_assert_cmpstr (a, ==, "~/runs/resnet");
  g_assert_cmpstr (b, ==, "/var/tmp/runs");
  for (guint i = 0; i < G_N_ELEMENTS (pcts); i++)
    {
      g_autofree char *t = cp_ui_format_percent (pcts[i].pct);

      g_assert_cmpstr (t, ==, pcts[i].text);
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *t = cp_ui_format_short_name (names[i].name);

      g_assert_cmpstr (t, ==, names[i].text);
    }
}

static void
test_dark_theme (void)
{
  /* Taken back before GTK read it, and given through libadwaita. */
  g_assert_null (g_getenv ("GTK_THEME"));
  g_assert_true (adw_style_manager_get_dark (adw_style_manager_get_default ()));
}

static void
test_window (void)
{
  g_autofree char *json = capture_json ();
  g_autofree char *path = g_build_filename (tmpdir, "newcomer.pt.trace.json", NULL);
  g_autofree char *report = g_build_filename (tmpdir, "newcomer-report.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) folder = g_file_new_for_path (tmpdir);
  g_autofree char *folder_text = cp_ui_format_folder (folder);
  g_autofree char *toast = NULL;
  CpWindow *window;
  CpTimelineView *view;
  CpTimelineLayout *layout;
  CpViewState *vs;
  CpTrace *trace;
  AdwViewStack *stack;
  GtkWidget *details, *kernels, *range;
  CpSliceRef kernel;
  GAction *devices_first;
  double x, y, gutter;
  gboolean found_gpu = FALSE, found_thread = FALSE;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  window = cp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 800);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture and its analysis");

  view = cp_timeline_pane_get_view (CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window),
                                                                            CP_TYPE_TIMELINE_PANE)));
  stack = ADW_VIEW_STACK (cp_ui_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  details = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_DETAILS_PANE);
  kernels = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_KERNELS_PANE);
  vs = cp_window_get_view_state (window);
  trace = cp_window_get_trace (window);
  cp_ui_wait_for (view_ready_cond, view, "the timeline");
  cp_ui_wait_frame (GTK_WIDGET (view));

  /* The forced dark theme reaches what Cairo draws. */
  g_assert_true (cp_ui_widget_is_dark (GTK_WIDGET (view)));

  /* The Python stack is taller than the view, and no order was chosen:
   * devices first, and the View menu says so. */
  layout = cp_timeline_view_get_layout (view);
  g_assert_true (cp_view_state_get_devices_first (vs));
  g_assert_true (cp_timeline_layout_get_item (layout, 0)->is_device);
  devices_first = g_action_map_lookup_action (G_ACTION_MAP (window), "devices-first");
  g_assert_nonnull (devices_first);
  g_assert_true (g_variant_get_boolean (g_action_get_state (devices_first)));

  /* Names: the GPU by its number, the thread by its unsigned id. */
  for (guint i = 0; i < cp_timeline_layout_get_n_items (layout); i++)
    {
      const char *label = cp_timeline_layout_get_label (layout, i);

      found_gpu |= g_strcmp0 (label, "GPU 0") == 0;
      found_thread |= g_strcmp0 (label, "thread 3745515072") == 0;
      g_assert_cmpstr (label, !=, "python3");
    }
  g_assert_true (found_gpu);
  g_assert_true (found_thread);

  /* Capture: its times start at 1 ms on its own clock, said without a
   * date it does not have. */
  g_assert_true (cp_ui_label_tree_has (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_CAPTURE_PANE),
                                       "1.00 ms on the capture’s clock"));

  /* Steps: the capture has no steps, and the page does not speak of them. */
  {
    GtkWidget *steps = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_STEPS_PANE);

    g_assert_true (cp_ui_label_tree_has (steps, "shares are of the whole capture"));
    g_assert_false (cp_ui_label_tree_has (steps, "step time"));
    g_assert_false (cp_ui_label_tree_has (steps, "Click a bar"));
  }

  /* Kernels table: the name without return type and parameters, the full
   * one in its tooltip, in a column that grows with the pane. */
  adw_view_stack_set_visible_child_name (stack, "kernels");
  cp_ui_wait_for (kernel_row_cond, kernels, "the kernel's row");
  {
    GtkLabel *name = find_label_with_tooltip (kernels, LONG_KERNEL);
    GtkColumnView *table = GTK_COLUMN_VIEW (cp_ui_find_widget (kernels, GTK_TYPE_COLUMN_VIEW));
    g_autoptr(GtkColumnViewColumn) first = g_list_model_get_item (gtk_column_view_get_columns (table), 0);

    g_assert_cmpstr (gtk_label_get_text (name), ==, SHORT_KERNEL);
    g_assert_cmpint (gtk_label_get_ellipsize (name), ==, PANGO_ELLIPSIZE_MIDDLE);
    g_assert_true (gtk_column_view_column_get_expand (first));
    g_assert_cmpint (gtk_column_view_column_get_fixed_width (first), ==, -1);
  }

  /* A click on the kernel shows its Details, though the Kernels page was
   * open; its times are exact without trailing zeros. */
  kernel = cp_ui_find_slice (trace, LONG_KERNEL);
  g_assert_true (cp_timeline_view_get_slice_point (view, kernel, &x, &y));
  cp_ui_drag (GTK_WIDGET (view), x, y, 0, 0);
  g_assert_true (cp_slice_ref_equal (cp_view_state_get_selected (vs), kernel));
  cp_ui_wait_page (GTK_WIDGET (stack), "details");
  g_assert_nonnull (find_label_with_text (details, "300 µs"));
  g_assert_nonnull (find_label_with_text (details, "400 µs"));
  g_assert_null (find_label_with_text (details, "300.000 µs"));
  {
    GtkLabel *title = GTK_LABEL (cp_ui_find_named (details, "slice-name"));
    PangoAttrList *attrs = gtk_label_get_attributes (title);
    g_autoptr(GSList) list = NULL;
    gboolean no_hyphens = FALSE;

    g_assert_cmpstr (gtk_label_get_text (title), ==, LONG_KERNEL);
    g_assert_nonnull (attrs);
    list = pango_attr_iterator_get_attrs (pango_attr_list_get_iterator (attrs));
    for (GSList *l = list; l; l = l->next)
      {
        PangoAttribute *a = l->data;

        if (a->klass->type == PANGO_ATTR_INSERT_HYPHENS && !((PangoAttrInt *) a)->value)
          no_hyphens = TRUE;
      }
    g_slist_free_full (g_steal_pointer (&list), (GDestroyNotify) pango_attribute_destroy);
    g_assert_true (no_hyphens);
  }

  /* A page chosen by a pane stays: selecting from the Kernels table does
   * not switch to Details. */
  adw_view_stack_set_visible_child_name (stack, "kernels");
  cp_view_state_set_selected (vs, CP_SLICE_REF_NONE);
  cp_view_state_set_selected (vs, kernel);
  /* Whatever the selection queued has run and been drawn. */
  cp_ui_wait_frame (GTK_WIDGET (stack));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (stack), ==, "kernels");

  /* A range dragged on the ruler: whole lane names, a header on every
   * column, edges to a thousandth of the range (fatal-warnings: no label
   * reports a negative width). */
  gutter = cp_timeline_layout_get_metrics (layout)->gutter_width;
  adw_view_stack_set_visible_child_name (stack, "details");
  cp_ui_drag (GTK_WIDGET (view), gutter + 101, 5, 400, 0);
  cp_ui_wait_for (range_counted_cond, details, "the range's lanes");
  cp_ui_wait_frame (details);
  range = cp_ui_find_named (details, "range-lanes");
  {
    GtkLabel *lane = find_label_with_text (range, "thread 3745515072 · python3 (pid 4242)");

    g_assert_nonnull (lane);
    g_assert_cmpint (gtk_label_get_ellipsize (lane), ==, PANGO_ELLIPSIZE_NONE);
    g_assert_true (gtk_label_get_wrap (lane));
    g_assert_nonnull (find_label_with_text (range, "Share"));
  }

  /* The lane menu opens without the lane's tooltip over it. */
  g_assert_true (cp_timeline_view_get_slice_point (view, kernel, &x, &y));
  {
    g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (view));
    GtkGesture *secondary = NULL;
    GtkWidget *menu;

    for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
      {
        g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

        if (GTK_IS_GESTURE_CLICK (c) && gtk_gesture_single_get_button (GTK_GESTURE_SINGLE (c)) == GDK_BUTTON_SECONDARY)
          secondary = GTK_GESTURE (c);
      }
    g_assert_nonnull (secondary);
    g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (view)));
    g_signal_emit_by_name (secondary, "released", 1, 20.0, y);
    menu = cp_ui_find_widget (GTK_WIDGET (view), GTK_TYPE_POPOVER_MENU);
    g_assert_nonnull (menu);
    g_assert_true (gtk_widget_get_visible (menu));
    g_assert_false (gtk_widget_get_has_tooltip (GTK_WIDGET (view)));
    gtk_popover_popdown (GTK_POPOVER (menu));
    cp_ui_wait_for (has_tooltip_cond, view, "the timeline's tooltips to come back");
  }

  /* The user's order wins from then on and is remembered. */
  g_action_change_state (devices_first, g_variant_new_boolean (FALSE));
  g_assert_false (cp_view_state_get_devices_first (vs));
  g_assert_false (cp_timeline_layout_get_item (cp_timeline_view_get_layout (view), 0)->is_device);
  g_assert_false (g_variant_get_boolean (g_action_get_state (devices_first)));
  {
    g_autoptr(GSettings) settings = g_settings_new (APP_ID);
    g_autoptr(GVariant) user = g_settings_get_user_value (settings, "devices-first");

    g_assert_nonnull (user);
    g_assert_false (g_variant_get_boolean (user));
  }

  /* Export: the toast names the file and its folder. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export-report", NULL));
  {
    GtkWidget *dialog = find_toplevel (CP_TYPE_EXPORT_DIALOG);
    g_autoptr(GFile) out = g_file_new_for_path (report);

    g_assert_nonnull (dialog);
    cp_export_dialog_set_file (CP_EXPORT_DIALOG (dialog), out);
    cp_export_dialog_confirm (CP_EXPORT_DIALOG (dialog));
  }
  toast = g_strdup_printf ("Report saved as “newcomer-report.png” in “%s”", folder_text);
  cp_ui_wait_for (cp_ui_screen_shows, toast, "the report's toast, with its folder");
  g_assert_true (g_file_test (report, G_FILE_TEST_EXISTS));

  cp_ui_destroy_window (GTK_WINDOW (window));
  g_unlink (report);
  g_unlink (path);
}

/* A second window after the choice: it follows it, whatever the lanes. */
static void
test_choice_remembered (void)
{
  g_autofree char *json = capture_json ();
  g_autofree char *path = g_build_filename (tmpdir, "again.pt.trace.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CpWindow *window;
  CpTimelineView *view;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  window = cp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 800);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (loaded_cond, window, "the capture and its analysis");
  view = cp_timeline_pane_get_view (CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window),
                                                                            CP_TYPE_TIMELINE_PANE)));
  cp_ui_wait_for (view_ready_cond, view, "the timeline");
  /* Laid out at its size, where the view would put devices first. */
  cp_ui_wait_frame (GTK_WIDGET (view));
  g_assert_false (cp_view_state_get_devices_first (cp_window_get_view_state (window)));
  g_assert_false (cp_timeline_layout_get_item (cp_timeline_view_get_layout (view), 0)->is_device);

  cp_ui_destroy_window (GTK_WINDOW (window));
  g_unlink (path);
}


int
main (int   argc,
      char *argv[])
{
  int status;

  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("# SKIP no display (run under Xvfb)\n");
      return 77;
    }

  /* As a user who forces the dark theme through GTK. */
  g_setenv ("GTK_THEME", "Adwaita:dark", TRUE);

  g_test_init (&argc, &argv, NULL);

  tmpdir = g_dir_make_tmp ("chokepoint-newcomer-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/ui/newcomer/format", test_format);
  g_test_add_func ("/ui/newcomer/dark-theme", test_dark_theme);
  g_test_add_func ("/ui/newcomer/window", test_window);
  g_test_add_func ("/ui/newcomer/choice-remembered", test_choice_remembered);

  status = g_test_run ();

  g_object_unref (app);
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
