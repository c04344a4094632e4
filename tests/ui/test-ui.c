/* test-ui.c: the real application in a real display (Xvfb in CI)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs CpApplication in this process and drives it the way a user does:
 * activation, drops (through the window's own GtkDropTarget), the Open
 * path and cancellation (the command line has its own program,
 * test-command-line.c). Run by run-ui-test.sh inside
 * dbus-run-session with G_DEBUG=fatal-warnings and the memory GSettings
 * backend; skipped (exit 77) without a display.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "cp-application.h"
#include "cp-test-util.h"
#include "cp-format.h"
#include "cp-timeline-pane.h"
#include "model/cp-lane.h"
#include "model/cp-trace-builder.h"
#include "cp-window.h"
#include "cp-ui-test-util.h"

#if defined(__SANITIZE_ADDRESS__)
# define CP_TEST_HAVE_LSAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define CP_TEST_HAVE_LSAN 1
# endif
#endif

static CpApplication *app;
static char *tmpdir;

/* A small Kineto-like capture: two host threads, one GPU stream, a copy. */
static const char capture_json[] =
  "{\"schemaVersion\": 1,\n"
  " \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\", \"totalGlobalMem\": 85000000000,"
  "   \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
  " \"traceEvents\": [\n"
  "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 100, \"args\": {\"name\": \"python3\"}},\n"
  "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": 1, \"args\": {\"name\": \"main\"}},\n"
  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 1, \"ts\": 1000, \"dur\": 50},\n"
  "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 1,"
  "   \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"dataloader\", \"pid\": 100, \"tid\": 2, \"ts\": 990, \"dur\": 30},\n"
  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1020, \"dur\": 20,"
  "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 7}},\n"
  "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0,"
  "   \"tid\": 7, \"ts\": 1005, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}}\n"
  " ]}\n";

/* Helpers --------------------------------------------------------------- */

static gboolean
timeline_ready (gpointer data)
{
  return cp_timeline_view_is_ready (data);
}

/* Whether any window on screen (toasts, dialogs included) shows the text. */
static gboolean
screen_shows (const char *text)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = g_list_model_get_n_items (toplevels);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (gtk_widget_get_visible (window) && cp_ui_label_tree_has (window, text))
        return TRUE;
    }
  return FALSE;
}

typedef struct
{
  const char *a;
  const char *b;
} TwoTexts;

static gboolean
screen_shows_both_cond (gpointer data)
{
  TwoTexts *t = data;
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = g_list_model_get_n_items (toplevels);

  /* Both texts in the same label: the message names the file and the reason. */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);
      GtkWidget *w = window;
      GPtrArray *stack = g_ptr_array_new ();

      g_ptr_array_add (stack, w);
      while (stack->len > 0)
        {
          w = g_ptr_array_steal_index (stack, stack->len - 1);
          if (GTK_IS_LABEL (w) && gtk_widget_get_visible (w))
            {
              const char *s = gtk_label_get_text (GTK_LABEL (w));

              if (strstr (s, t->a) && strstr (s, t->b))
                {
                  g_ptr_array_unref (stack);
                  return TRUE;
                }
            }
          for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
            g_ptr_array_add (stack, c);
        }
      g_ptr_array_unref (stack);
    }
  return FALSE;
}

static void
wait_for_message (const char *a,
                  const char *b)
{
  TwoTexts t = { a, b };
  g_autofree char *what = g_strdup_printf ("a message with “%s” and “%s”", a, b);

  cp_ui_wait_for (screen_shows_both_cond, &t, what);
}

/* The first widget whose action is action_name (buttons, menu items). */
static GtkWidget *
find_actionable (GtkWidget  *root,
                 const char *action_name)
{
  if (GTK_IS_ACTIONABLE (root) &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action_name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_actionable (child, action_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static guint
n_windows (void)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
}

static gboolean
two_windows_cond (gpointer data)
{
  return n_windows () == 2;
}

static gboolean
no_windows_cond (gpointer data)
{
  return n_windows () == 0;
}

/* The window's reference count now: what it holds while nothing of it
 * runs, for cp_ui_wait_released(). */
static guint
refs_of (gpointer object)
{
  return g_atomic_int_get ((gint *) &G_OBJECT (object)->ref_count);
}

/* Closes the windows that are not application windows (message dialogs). */
static void
close_dialogs (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels);)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (!CP_IS_WINDOW (window) && GTK_IS_WINDOW (window) &&
          gtk_window_get_transient_for (window) != NULL)
        gtk_window_destroy (window);
      else
        i++;
    }
  cp_ui_drain ();
}

static CpWindow *
new_window (void)
{
  CpWindow *window = cp_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static gboolean
state_is_cond (gpointer data)
{
  gpointer *args = data;

  return (int) cp_window_get_state (args[0]) == GPOINTER_TO_INT (args[1]);
}

static void
wait_for_state (CpWindow      *window,
                CpWindowState  state)
{
  gpointer args[2] = { window, GINT_TO_POINTER (state) };

  cp_ui_wait_for (state_is_cond, args, "the window state");
}

static GtkDropTarget *
find_drop_target (CpWindow *window)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  guint n = g_list_model_get_n_items (controllers);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        return GTK_DROP_TARGET (controller);
    }
  g_assert_not_reached ();
  return NULL;
}

/* Drops a value on the window through its drop target's "drop" signal, the
 * way GTK delivers a drop from a file manager. */
static gboolean
drop_value (CpWindow     *window,
            const GValue *value)
{
  GtkDropTarget *target = find_drop_target (window);
  gboolean accepted = FALSE;

  g_signal_emit_by_name (target, "drop", value, 10.0, 10.0, &accepted);
  return accepted;
}

static gboolean
drop_files (CpWindow *window,
            GFile    *first,
            ...)
{
  g_auto(GValue) value = G_VALUE_INIT;
  GSList *list = NULL;
  va_list args;

  va_start (args, first);
  for (GFile *f = first; f != NULL; f = va_arg (args, GFile *))
    list = g_slist_append (list, f);
  va_end (args);

  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
  g_slist_free (list);
  return drop_value (window, &value);
}

static GFile *
write_capture (const char *name,
               const char *contents)
{
  g_autofree char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

/* Tests ----------------------------------------------------------------- */

static void
test_format (void)
{
  struct {
    gint64      ns;
    const char *text;
  } cases[] = {
    { 0, "0 ns" },
    { 850, "850 ns" },
    { 1500, "1.50 µs" },
    { 12345678, "12.3 ms" },
    { 456000000, "456 ms" },
    { 1230000000, "1.23 s" },
    { 125 * CP_NS_PER_S, "2 min 05 s" },
    { 7500 * CP_NS_PER_S, "2 h 05 min" },
    { -2000, "−2.00 µs" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = cp_ui_format_duration (cases[i].ns);

      g_assert_cmpstr (text, ==, cases[i].text);
    }

  {
    g_autofree char *a = cp_ui_format_capture_kind ("chrome-json+gzip");
    g_autofree char *b = cp_ui_format_capture_kind ("xplane");
    g_autofree char *c = cp_ui_format_capture_kind ("something-new");

    g_assert_cmpstr (a, ==, "Chrome trace, gzip");
    g_assert_cmpstr (b, ==, "XPlane");
    g_assert_cmpstr (c, ==, "something-new");
  }

  /* Devices of one kind are counted together; unnamed ones get a number. */
  {
    g_autoptr(GError) error = NULL;
    CpTraceBuilder *b = cp_trace_builder_new ();
    guint proc = cp_trace_builder_process_for_pid (b, 1);
    guint lane = cp_trace_builder_lane (b, proc, CP_LANE_HOST_THREAD, (CpLaneKey) { 1, 0 });
    CpStr h100 = cp_trace_builder_intern (b, "NVIDIA H100", -1);
    g_autoptr(CpTrace) trace = NULL;
    g_autofree char *text = NULL;
    CpSliceInit init;

    cp_slice_init_clear (&init);
    init.start = 1000;
    init.dur = 10;
    cp_trace_builder_add_slice (b, lane, &init);
    cp_trace_builder_device (b, 0)->name = h100;
    cp_trace_builder_device (b, 1)->name = h100;
    cp_trace_builder_device (b, 2);
    trace = cp_trace_builder_finish (b, &error);
    g_assert_no_error (error);
    text = cp_ui_format_devices (trace);
    g_assert_cmpstr (text, ==, "2 × NVIDIA H100, GPU 2");
  }
}

static void
test_empty_state (void)
{
  CpWindow *window;

  /* Activation with no window opens one, showing the empty state. */
  g_application_activate (G_APPLICATION (app));
  g_assert_cmpuint (n_windows (), ==, 1);
  window = CP_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_true (CP_IS_WINDOW (window));

  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);
  g_assert_null (cp_window_get_file (window));
  g_assert_null (cp_window_get_trace (window));
  g_assert_true (cp_window_is_idle (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Chokepoint");

  /* The status page names what it opens and invites a drop. */
  g_assert_true (screen_shows ("Open a Capture"));
  g_assert_true (screen_shows ("Drop a profiler capture"));
  g_assert_true (screen_shows (".json.gz"));
  g_assert_true (screen_shows (".xplane.pb"));

  /* Export Report stays disabled without a report to export (its handler
   * would abort the test); Cancel is disabled while nothing loads. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.export-report", NULL);
  g_assert_false (gtk_widget_get_sensitive (find_actionable (GTK_WIDGET (window),
                                                             "win.cancel-load")));
  g_assert_true (gtk_widget_get_sensitive (find_actionable (GTK_WIDGET (window), "win.open")));

  /* The main menu holds Open Recent, fed by the application's list. */
  {
    GtkWidget *button = cp_ui_find_widget (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON);
    GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
    g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
    gboolean found = FALSE;

    for (int i = 0; i < g_menu_model_get_n_items (section); i++)
      {
        g_autoptr(GMenuModel) sub = g_menu_model_get_item_link (section, i, G_MENU_LINK_SUBMENU);
        g_autoptr(GMenuModel) recent = NULL;

        if (sub == NULL)
          continue;
        recent = g_menu_model_get_item_link (sub, 0, G_MENU_LINK_SECTION);
        g_assert_true (recent == cp_application_get_recent_menu (app));
        found = TRUE;
      }
    g_assert_true (found);
  }

  /* A second activation presents the same window. */
  g_application_activate (G_APPLICATION (app));
  g_assert_cmpuint (n_windows (), ==, 1);

  /* Ctrl+N's action opens another. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "new-window", NULL);
  g_assert_cmpuint (n_windows (), ==, 2);

  cp_ui_close_all ();
}

/* Whether the timeline names a lane group or lane with this text (it draws
 * them itself, they are not labels). */
static gboolean
timeline_shows (CpWindow   *window,
                const char *text)
{
  CpTimelinePane *pane = CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE));
  CpTimelineView *view = cp_timeline_pane_get_view (pane);
  CpTimelineLayout *layout;

  cp_ui_wait_for (timeline_ready, view, "the timeline's index");
  layout = cp_timeline_view_get_layout (view);
  for (guint i = 0; layout && i < cp_timeline_layout_get_n_items (layout); i++)
    {
      if (strstr (cp_timeline_layout_get_label (layout, i), text) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
check_loaded (CpWindow   *window,
              const char *name)
{
  CpTrace *trace = cp_window_get_trace (window);

  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_LOADED);
  g_assert_nonnull (trace);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, name);
  g_assert_cmpuint (cp_trace_get_n_lanes (trace), >=, 3);
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 5);

  /* The summary, the timeline and the Capture page show the capture. */
  g_assert_true (screen_shows ("Time Span"));
  g_assert_true (screen_shows ("Test GPU"));
  g_assert_true (screen_shows ("Load Report"));
  g_assert_true (timeline_shows (window, "python3"));
}

static void
test_drop_file (void)
{
  CpWindow *window = new_window ();
  g_autoptr(GFile) file = write_capture ("dropped.pt.trace.json", capture_json);
  g_autofree char *uri = g_file_get_uri (file);
  g_auto(GStrv) recent = NULL;

  g_assert_true (drop_files (window, file, NULL));
  wait_for_state (window, CP_WINDOW_LOADED);
  check_loaded (window, "dropped.pt.trace.json");

  /* It joined the recent list, first. */
  recent = cp_application_dup_recent (app);
  g_assert_nonnull (recent[0]);
  g_assert_cmpstr (recent[0], ==, uri);

  /* The timeline lays the lanes out under their process or device,
   * expanded: one item per group and one per lane. */
  {
    CpTimelinePane *pane = CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE));
    CpTimelineView *view = cp_timeline_pane_get_view (pane);
    CpTrace *trace = cp_window_get_trace (window);
    CpTimelineLayout *layout;
    guint n_groups = 0;

    g_assert_nonnull (pane);
    cp_ui_wait_for (timeline_ready, view, "the timeline's index");
    layout = cp_timeline_view_get_layout (view);
    g_assert_nonnull (layout);
    for (guint i = 0; i < cp_timeline_layout_get_n_items (layout); i++)
      {
        if (cp_timeline_layout_get_item (layout, i)->kind == CP_LAYOUT_GROUP)
          n_groups++;
      }
    g_assert_cmpuint (n_groups, >=, 2);
    g_assert_cmpuint (cp_timeline_layout_get_n_items (layout), ==, n_groups + cp_trace_get_n_lanes (trace));
  }

  cp_ui_close_all ();
}

static void
test_drop_gfile_and_text (void)
{
  CpWindow *window = new_window ();
  g_autoptr(GFile) file = write_capture ("single.json", capture_json);
  g_autofree char *uri = g_file_get_uri (file);
  g_auto(GValue) value = G_VALUE_INIT;
  g_auto(GValue) text = G_VALUE_INIT;
  g_autofree char *uri_text = g_strconcat (uri, "\r\n", NULL);
  CpWindow *other;

  /* Text that is not a location is refused with a message. */
  g_value_init (&text, G_TYPE_STRING);
  g_value_set_string (&text, "just some words");
  g_assert_false (drop_value (window, &text));
  wait_for_message ("Only files can be opened", "no file");
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);

  /* A single GFile opens. */
  g_value_init (&value, G_TYPE_FILE);
  g_value_set_object (&value, file);
  g_assert_true (drop_value (window, &value));
  wait_for_state (window, CP_WINDOW_LOADED);
  check_loaded (window, "single.json");

  /* The same capture as a URI list, on a window that shows it: the window
   * stays the only one (a capture opens once). */
  g_value_reset (&text);
  g_value_set_string (&text, uri_text);
  {
    guint refs = refs_of (window);

    g_assert_true (drop_value (window, &text));
    /* The dropped file is checked before anything opens. */
    cp_ui_wait_released (window, refs, "the dropped file to be checked");
  }
  cp_ui_drain ();
  g_assert_cmpuint (n_windows (), ==, 1);

  /* Another capture dropped on a window that shows one opens beside it. */
  {
    g_autoptr(GFile) second = write_capture ("second.json", capture_json);

    g_assert_true (drop_files (window, second, NULL));
    cp_ui_wait_for (two_windows_cond, NULL, "a second window");
    other = NULL;
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
      if (l->data != window)
        other = l->data;
    g_assert_nonnull (other);
    wait_for_state (other, CP_WINDOW_LOADED);
    check_loaded (other, "second.json");
    g_assert_true (g_file_equal (cp_window_get_file (window), file));
  }

  cp_ui_close_all ();
}

static void
test_bad_drops (void)
{
  CpWindow *window = new_window ();
  g_autofree char *folder_path = g_build_filename (tmpdir, "a-folder", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (folder_path);
  g_autoptr(GFile) missing = g_file_new_for_path ("/nonexistent/gone.pt.trace.json");
  g_autoptr(GFile) device = g_file_new_for_path ("/dev/null");
  g_autoptr(GFile) garbage = write_capture ("garbage.json.gz", "this is not a capture at all\n");
  g_autoptr(GFile) good = write_capture ("after-errors.json", capture_json);

  g_assert_cmpint (g_mkdir (folder_path, 0700), ==, 0);

  /* A folder that holds no capture: the loader says so, naming it. */
  drop_files (window, folder, NULL);
  wait_for_message ("a-folder", "is a folder");
  wait_for_state (window, CP_WINDOW_EMPTY);
  g_assert_true (cp_window_is_idle (window));
  close_dialogs ();

  /* A file that does not exist: a toast, at once. */
  drop_files (window, missing, NULL);
  wait_for_message ("gone.pt.trace.json", "does not exist");
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);

  /* Something that is not a regular file. */
  drop_files (window, device, NULL);
  wait_for_message ("null", "not a regular file");

  /* A file that is not a capture: a dialog says so, naming the file with
   * the loader's reason. */
  drop_files (window, garbage, NULL);
  wait_for_message ("garbage.json.gz", "not a profiler capture");
  g_assert_true (screen_shows ("Could Not Open Capture"));
  wait_for_state (window, CP_WINDOW_EMPTY);
  g_assert_null (cp_window_get_trace (window));
  g_assert_true (cp_window_is_idle (window));
  g_assert_cmpuint (n_windows (), ==, 1);

  /* The window is still usable. */
  drop_files (window, good, NULL);
  wait_for_state (window, CP_WINDOW_LOADED);
  check_loaded (window, "after-errors.json");

  cp_ui_close_all ();
}

/* A TensorBoard run folder (plugins/profile/<run>/ with .xplane.pb files) opens as one
 * capture, from a drop of the folder above it. */
static void
test_drop_profile_folder (void)
{
  const char *shared = g_getenv ("CP_SHARED_TRACES");
  g_autofree char *xplane = NULL;
  g_autofree char *top = g_build_filename (tmpdir, "tensorboard-logs", NULL);
  g_autofree char *run = g_build_filename (top, "plugins", "profile", "2026_01_01_00_00_00", NULL);
  g_autofree char *copy = g_build_filename (run, "host0.xplane.pb", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (top);
  g_autofree char *contents = NULL;
  gsize len;
  CpWindow *window;
  const CpLoadReport *report;

  if (shared != NULL)
    xplane = g_build_filename (shared, "AMD-AGI__TraceLens", "tests",
                               "test_data_jax_te_fused_attn_categorization",
                               "934987a2fc2f.xplane.pb", NULL);
  if (xplane == NULL || !g_file_test (xplane, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("the real captures (CP_SHARED_TRACES) are not available");
      return;
    }

  g_assert_true (g_file_get_contents (xplane, &contents, &len, NULL));
  g_assert_cmpint (g_mkdir_with_parents (run, 0700), ==, 0);
  g_assert_true (g_file_set_contents (copy, contents, len, NULL));

  window = new_window ();
  g_assert_true (drop_files (window, folder, NULL));
  wait_for_state (window, CP_WINDOW_LOADED);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "tensorboard-logs");
  report = cp_trace_get_load_report (cp_window_get_trace (window));
  g_assert_cmpstr (report->format, ==, "xplane-folder");
  g_assert_cmpuint (cp_trace_get_n_lanes (cp_window_get_trace (window)), >, 0);

  cp_ui_close_all ();
}

static void
test_cancel (void)
{
  CpWindow *window = new_window ();
  g_autoptr(GFile) file = write_capture ("cancelled.json", capture_json);
  GtkWidget *weak = NULL;
  guint refs = refs_of (window);

  /* Cancel as soon as the load starts: the window is back to empty at once,
   * whatever the worker does, and a late result is dropped. */
  cp_window_open (window, file);
  wait_for_state (window, CP_WINDOW_LOADING);
  g_assert_true (gtk_widget_get_sensitive (find_actionable (GTK_WIDGET (window),
                                                            "win.cancel-load")));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-load", NULL));
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);
  g_assert_null (cp_window_get_file (window));
  /* The worker has finished and its late result been dropped. */
  cp_ui_wait_released (window, refs, "the cancelled load's worker to let go of the window");
  cp_ui_drain ();
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);
  g_assert_null (cp_window_get_trace (window));

  /* The same file loads afterwards. */
  cp_window_open (window, file);
  wait_for_state (window, CP_WINDOW_LOADED);

  /* Closing a window while it loads frees it once the worker is done. */
  {
    CpWindow *loading = new_window ();
    g_autoptr(GFile) other = write_capture ("closed-while-loading.json", capture_json);

    cp_window_open (loading, other);
    wait_for_state (loading, CP_WINDOW_LOADING);
    weak = GTK_WIDGET (loading);
    g_object_add_weak_pointer (G_OBJECT (weak), (gpointer *) &weak);
    gtk_window_destroy (GTK_WINDOW (loading));
    while (weak != NULL)
      g_main_context_iteration (NULL, TRUE);
  }

  cp_ui_close_all ();
}

static void
test_recent (void)
{
  GMenuModel *menu = cp_application_get_recent_menu (app);
  GMenuModel *items;
  g_auto(GStrv) recent = NULL;
  GSettings *settings = cp_application_get_settings (app);
  g_autoptr(GFile) gone = NULL;

  g_assert_nonnull (settings);
  g_settings_reset (settings, "recent-captures");

  /* An empty list reads as such. */
  items = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_cmpint (g_menu_model_get_n_items (items), ==, 1);
  g_object_unref (items);

  /* At most ten, most recent first, no duplicates. */
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *name = g_strdup_printf ("recent_%02u.json", i);
      g_autoptr(GFile) file = write_capture (name, capture_json);

      cp_application_add_recent (app, file);
    }
  {
    g_autofree char *name = g_strdup_printf ("recent_%02u.json", 5);
    g_autoptr(GFile) file = g_file_new_build_filename (tmpdir, name, NULL);

    cp_application_add_recent (app, file);
  }
  recent = cp_application_dup_recent (app);
  g_assert_cmpuint (g_strv_length (recent), ==, CP_RECENT_MAX);
  g_assert_true (g_str_has_suffix (recent[0], "recent_05.json"));
  g_assert_true (g_str_has_suffix (recent[1], "recent_11.json"));
  g_clear_pointer (&recent, g_strfreev);

  /* Menu items use the name, with underscores kept from being mnemonics. */
  items = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_cmpint (g_menu_model_get_n_items (items), ==, CP_RECENT_MAX);
  {
    g_autofree char *label = NULL;

    g_menu_model_get_item_attribute (items, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label);
    g_assert_cmpstr (label, ==, "recent__05.json");
  }
  g_object_unref (items);

  /* A file that disappears leaves the list. */
  gone = g_file_new_build_filename (tmpdir, "recent_11.json", NULL);
  g_assert_true (g_file_delete (gone, NULL, NULL));
  recent = cp_application_dup_recent (app);
  g_assert_cmpuint (g_strv_length (recent), ==, CP_RECENT_MAX - 1);
  for (guint i = 0; recent[i] != NULL; i++)
    g_assert_false (g_str_has_suffix (recent[i], "recent_11.json"));

  g_settings_reset (settings, "recent-captures");
}

/* The size of the last window closed is where new windows start. */
static void
test_window_state (void)
{
  GSettings *settings = cp_application_get_settings (app);
  CpWindow *window;
  int width, height;

  g_settings_set_int (settings, "window-width", 900);
  g_settings_set_int (settings, "window-height", 700);
  g_settings_set_boolean (settings, "window-maximized", FALSE);

  window = new_window ();
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 900);
  g_assert_cmpint (height, ==, 700);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 650);
  gtk_window_close (GTK_WINDOW (window));
  cp_ui_wait_for (no_windows_cond, NULL, "the window to close");
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1000);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 650);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));

  g_settings_reset (settings, "window-width");
  g_settings_reset (settings, "window-height");
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

static gboolean
chooser_gone_cond (gpointer data)
{
  GtkWidget *chooser = NULL;

  return !file_chooser_shown_cond (&chooser);
}

typedef struct
{
  GtkWidget *chooser;
  GFile     *file;
} Selection;


/* The chooser has selected exactly the file (not whatever row it started on). */
static gboolean
chooser_selected_cond (gpointer data)
{
  Selection *sel = data;
  g_autoptr(GListModel) files = NULL;
  g_autoptr(GFile) first = NULL;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (sel->chooser));
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (g_list_model_get_n_items (files) != 1)
    return FALSE;
  first = g_list_model_get_item (files, 0);
  return g_file_equal (first, sel->file);
}

/* The Open action shows a file chooser with the capture filters (GTK's own
 * dialog: the tests run without portals); choosing a file opens it. */
static void
test_open_dialog (void)
{
  g_autoptr(GFile) file = write_capture ("chosen.json", capture_json);
  g_autoptr(GListModel) filters = NULL;
  g_autoptr(GtkFileFilter) first = NULL;
  GtkWidget *chooser = NULL;
  CpWindow *window;

#ifdef CP_TEST_HAVE_LSAN
  /* Showing GTK 4.8's file chooser and cancelling it, with nothing else,
   * leaves a 16 KiB GLib allocation made on another thread that
   * LeakSanitizer reports and cannot attribute (GLib has no frame pointers,
   * and slow unwinding makes the chooser take minutes). The regular build
   * runs this test. */
  g_test_skip ("GTK 4.8's file chooser leaks under LeakSanitizer");
  return;
#endif

  /* The chooser starts in the folder of the last capture opened. */
  g_settings_set_string (cp_application_get_settings (app), "last-folder", "");
  window = new_window ();

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open", NULL));
  cp_ui_wait_for (file_chooser_shown_cond, &chooser, "the file chooser");

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  filters = gtk_file_chooser_get_filters (GTK_FILE_CHOOSER (chooser));
  g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 4);
  first = g_list_model_get_item (filters, 0);
  g_assert_cmpstr (gtk_file_filter_get_name (first), ==, "Profiler Captures");

  /* Cancelling changes nothing. */
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  G_GNUC_END_IGNORE_DEPRECATIONS
  cp_ui_wait_for (chooser_gone_cond, NULL, "the file chooser to close");
  cp_ui_drain ();
  g_assert_cmpint (cp_window_get_state (window), ==, CP_WINDOW_EMPTY);

  /* Choosing a capture opens it in this window. */
  chooser = NULL;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open", NULL));
  cp_ui_wait_for (file_chooser_shown_cond, &chooser, "the file chooser");
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  {
    g_autoptr(GFile) parent = g_file_get_parent (file);

    g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), parent, NULL));
    cp_ui_wait_chooser_folder (chooser, parent);
    g_assert_true (gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), file, NULL));
  }
  G_GNUC_END_IGNORE_DEPRECATIONS
  /* The chooser selects the file once it has listed the folder. */
  {
    Selection sel = { chooser, file };

    cp_ui_wait_for (chooser_selected_cond, &sel, "the file chooser to select the file");
  }
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  G_GNUC_END_IGNORE_DEPRECATIONS
  wait_for_state (window, CP_WINDOW_LOADED);
  check_loaded (window, "chosen.json");

  cp_ui_close_all ();
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

  g_test_init (&argc, &argv, NULL);
  cp_ui_tolerate_chooser_race ();

  tmpdir = g_dir_make_tmp ("chokepoint-ui-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/ui/format", test_format);
  g_test_add_func ("/ui/empty-state", test_empty_state);
  g_test_add_func ("/ui/recent", test_recent);
  g_test_add_func ("/ui/drop/file-list", test_drop_file);
  g_test_add_func ("/ui/drop/file-and-text", test_drop_gfile_and_text);
  g_test_add_func ("/ui/drop/bad", test_bad_drops);
  g_test_add_func ("/ui/drop/profile-folder", test_drop_profile_folder);
  g_test_add_func ("/ui/open/cancel", test_cancel);
  g_test_add_func ("/ui/open/dialog", test_open_dialog);
  g_test_add_func ("/ui/window-state", test_window_state);

  status = g_test_run ();

  g_clear_object (&app);
  cp_test_rm_rf (tmpdir);
  g_free (tmpdir);
  return status;
}
