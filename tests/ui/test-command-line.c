/* test-command-line.c: a capture named on the command line opens
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Its own program: g_application_run() ends with the application's
 * shutdown, after which that application can run no other test. Here the
 * application is started the way the desktop starts it, with a file in
 * argv; the window must show that capture (its known five slices, its
 * GPU) and Quit must end the run with status 0 and no window left.
 */

#include "config.h"

#include <locale.h>
#include <string.h>

#include "cp-application.h"
#include "cp-compare-window.h"
#include "cp-test-util.h"
#include "cp-timeline-pane.h"
#include "cp-ui-test-util.h"
#include "cp-window.h"

/* Two host threads, one GPU stream, a copy: five slices. */
static const char capture_json[] =
  "{\"schemaVersion\": 1,\n"
  " \"deviceProperties\": [{\"id\": 0, \"name\": \"Command Line GPU\", \"totalGlobalMem\": 85000000000,"
  "   \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
  " \"traceEvents\": [\n"
  "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 100, \"args\": {\"name\": \"python3\"}},\n"
  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 1, \"ts\": 1000, \"dur\": 50},\n"
  "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100, \"tid\": 1,"
  "   \"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 7}},\n"
  "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"dataloader\", \"pid\": 100, \"tid\": 2, \"ts\": 990, \"dur\": 30},\n"
  "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1020, \"dur\": 20,"
  "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 7}},\n"
  "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0,"
  "   \"tid\": 7, \"ts\": 1005, \"dur\": 4, \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}}\n"
  " ]}\n";

typedef struct
{
  CpApplication *app;
  CpWindow      *window;
  guint          n_windows_added;
  gboolean       checked;
} Run;

static gboolean
loaded_cond (gpointer data)
{
  CpWindow *window = data;
  CpTimelinePane *pane;

  if (cp_window_get_state (window) != CP_WINDOW_LOADED)
    return FALSE;
  pane = CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE));
  return cp_timeline_view_is_ready (cp_timeline_pane_get_view (pane));
}

/* Runs inside g_application_run(): waits for the capture, checks it, quits. */
static gboolean
check_and_quit_cb (gpointer data)
{
  Run *run = data;
  CpTrace *trace;

  cp_ui_wait_for (loaded_cond, run->window, "the capture named on the command line");
  trace = cp_window_get_trace (run->window);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (run->window)), ==, "from-command-line.json");
  g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, 5);
  cp_ui_wait_for (cp_ui_screen_shows, (gpointer) "Command Line GPU", "the capture's GPU on screen");
  run->checked = TRUE;
  /* Ctrl+Q closes every window, which ends g_application_run(). */
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
window_added_cb (GtkApplication *application,
                 GtkWindow      *window,
                 Run            *run)
{
  if (run->n_windows_added++ > 0)
    return;
  run->window = CP_WINDOW (window);
  g_idle_add (check_and_quit_cb, run);
}

static void
test_command_line (void)
{
  g_autofree char *tmpdir = cp_test_make_tmpdir ();
  g_autofree char *path = cp_test_write_file (tmpdir, "from-command-line.json", capture_json, -1);
  char *argv[] = { (char *) "chokepoint", path, NULL };
  Run run = { 0 };
  int status;

  run.app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_signal_connect (run.app, "window-added", G_CALLBACK (window_added_cb), &run);
  status = g_application_run (G_APPLICATION (run.app), 2, argv);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (run.checked);
  /* One window for the one capture, and it is gone after Quit. */
  g_assert_cmpuint (run.n_windows_added, ==, 1);
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (run.app)));
  g_assert_finalize_object (run.app);
  cp_test_rm_rf (tmpdir);
}

static gboolean
compared_cond (gpointer data)
{
  return g_strcmp0 (cp_compare_window_get_state (data), "loading") != 0;
}

static gboolean
check_compare_and_quit_cb (gpointer data)
{
  Run *run = data;
  GtkWindow *window = gtk_application_get_windows (GTK_APPLICATION (run->app))->data;

  g_assert_true (CP_IS_COMPARE_WINDOW (window));
  cp_ui_wait_for (compared_cond, window, "the two captures named after --compare");
  g_assert_cmpstr (cp_compare_window_get_state (CP_COMPARE_WINDOW (window)), ==, "content");
  g_assert_cmpstr (gtk_window_get_title (window), ==, "before.json → after.json");
  run->checked = TRUE;
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
compare_window_added_cb (GtkApplication *application,
                         GtkWindow      *window,
                         Run            *run)
{
  if (run->n_windows_added++ > 0)
    return;
  g_idle_add (check_compare_and_quit_cb, run);
}

/* `chokepoint --compare A B` opens one comparison window, not two
 * capture windows. In a subprocess: an application names itself once per
 * process. */
static void
test_compare (void)
{
  g_autofree char *tmpdir = NULL, *a = NULL, *b = NULL;
  char *argv[5] = { (char *) "chokepoint", (char *) "--compare", NULL, NULL, NULL };
  Run run = { 0 };
  int status;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  tmpdir = cp_test_make_tmpdir ();
  a = cp_test_write_file (tmpdir, "before.json", capture_json, -1);
  b = cp_test_write_file (tmpdir, "after.json", capture_json, -1);
  argv[2] = a;
  argv[3] = b;
  run.app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_signal_connect (run.app, "window-added", G_CALLBACK (compare_window_added_cb), &run);
  status = g_application_run (G_APPLICATION (run.app), 4, argv);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (run.checked);
  g_assert_cmpuint (run.n_windows_added, ==, 1);
  g_assert_finalize_object (run.app);
  cp_test_rm_rf (tmpdir);
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "C", TRUE);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("# SKIP no display (run under Xvfb)\n");
      return 77;
    }

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/command-line", test_command_line);
  g_test_add_func ("/ui/command-line/compare", test_compare);
  return g_test_run ();
}
