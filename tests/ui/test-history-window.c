/* test-history-window.c: the History window and recording opened captures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * In a temporary history (CHOKEPOINT_HISTORY): the empty page and a damaged
 * database's page, the damaged database left as it is when recording and
 * the user told once; the preference asked once, after the first capture
 * loads, and recording only while it is on (the same capture twice is one
 * run); then a history of cp-gen captures, one of them made slower (a
 * DataLoader of 40 ms): the step-time chart's points are the oracle's
 * (tests/history-oracle.py reads the database with Python's sqlite3 and
 * marks regressions with its own median), the slow run alone is marked,
 * hovering names the run, a click opens its capture, Shift-click on two
 * compares them (two windows without a "compare" action, the action with
 * both paths when there is one). Screenshots light and dark with
 * CP_SCREENSHOT_DIR. Run by run-ui-test.sh (skipped without a display).
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "history/cp-history.h"

#include "cp-application.h"
#include "cp-history-window.h"
#include "cp-test-util.h"
#include "cp-ui-test-util.h"
#include "cp-window.h"

static CpApplication *app;
static char *tmpdir;
static char *db;
static char *paths[6];

static char *
generate (int         seed,
          const char *loader_ms)
{
  g_autofree char *name = g_strdup_printf ("healthy-%d%s.json", seed, loader_ms ? "-slow" : "");
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autofree char *seed_s = g_strdup_printf ("%d", seed);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", "healthy", "--steps", "5", "--seed", seed_s,
                         "--out", path, "-q", loader_ms ? "--loader-ms" : NULL, loader_ms, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static char *
oracle (const char *cmd,
        const char *arg)
{
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "history-oracle.py", NULL);
  const char *argv[] = { "python3", script, cmd, db, arg, NULL };
  g_autoptr(GError) error = NULL;
  char *out = NULL, *err = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("history-oracle.py %s: %s", cmd, err);
  g_free (err);
  return out;
}

static gboolean
analysed (gpointer data)
{
  return cp_window_get_analysis (data) != NULL;
}

static gboolean
finished_cond (gpointer data)
{
  return cp_history_record_get_finished () >= GPOINTER_TO_UINT (data);
}

static CpWindow *
open_window (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CpWindow *window = cp_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (analysed, window, "the analysis");
  return window;
}

static guint
stored_runs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = cp_history_open (db, FALSE, &error);
  g_autoptr(GPtrArray) runs = NULL;

  if (history == NULL && g_error_matches (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_MISSING))
    return 0;
  g_assert_no_error (error);
  runs = cp_history_list (history, NULL, &error);
  g_assert_no_error (error);
  return runs->len;
}

static gboolean
loaded_cond (gpointer data)
{
  return cp_history_window_is_loaded (data);
}

static CpHistoryWindow *
open_history (void)
{
  CpHistoryWindow *window = cp_history_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 900);
  gtk_window_present (GTK_WINDOW (window));
  cp_ui_wait_for (loaded_cond, window, "the history read");
  return window;
}

/* A button in the tree whose label is label. */
static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button (c, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_empty (void)
{
  CpHistoryWindow *window;

  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
  window = open_history ();
  g_assert_cmpstr (cp_history_window_get_page (window), ==, "empty");
  g_assert_true (cp_ui_screen_shows ((gpointer) "No Runs Recorded"));
  g_assert_true (cp_ui_screen_shows ((gpointer) "chokepoint history add"));
  cp_ui_screenshot (GTK_WIDGET (window), "history-empty-light.png");
  cp_ui_destroy_window (GTK_WINDOW (window));
  /* Reading made nothing. */
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
}

static void
test_damaged (void)
{
  g_autofree char *bad = g_build_filename (tmpdir, "damaged.sqlite", NULL);
  g_autofree char *saved = g_strdup (db);
  g_autofree char *after = NULL;
  CpHistoryWindow *window;

  g_assert_true (g_file_set_contents (bad, "this is not a database, and it is long enough to look like one", -1, NULL));
  g_setenv ("CHOKEPOINT_HISTORY", bad, TRUE);
  window = open_history ();
  g_assert_cmpstr (cp_history_window_get_page (window), ==, "error");
  g_assert_true (cp_ui_screen_shows ((gpointer) "The History Cannot Be Read"));
  cp_ui_destroy_window (GTK_WINDOW (window));

  /* Recording into it: the window says so once, the file stays as it is. */
  {
    GSettings *settings = cp_application_get_settings (app);
    guint started = cp_history_record_get_started ();
    CpWindow *capture;

    g_settings_set_boolean (settings, "keep-history", TRUE);
    capture = open_window (paths[5]);
    cp_ui_wait_for (finished_cond, GUINT_TO_POINTER (started + 1), "the recording refused");
    g_assert_true (cp_ui_screen_shows ((gpointer) "Opened captures are not recorded in the history"));
    cp_ui_destroy_window (GTK_WINDOW (capture));
    capture = open_window (paths[4]);
    cp_ui_wait_for (finished_cond, GUINT_TO_POINTER (started + 2), "the recording refused again");
    cp_ui_drain ();
    g_assert_false (cp_ui_screen_shows ((gpointer) "Opened captures are not recorded in the history"));
    cp_ui_destroy_window (GTK_WINDOW (capture));
    g_settings_reset (settings, "keep-history");
    g_assert_false (g_settings_get_boolean (settings, "keep-history-asked"));
  }
  g_assert_true (g_file_get_contents (bad, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, "this is not a database, and it is long enough to look like one");
  g_setenv ("CHOKEPOINT_HISTORY", saved, TRUE);
}

static void
test_ask_once (void)
{
  GSettings *settings = cp_application_get_settings (app);
  CpWindow *window;
  GtkWidget *keep;
  guint started;

  g_assert_nonnull (settings);
  g_assert_false (g_settings_get_boolean (settings, "keep-history"));
  g_assert_false (g_settings_get_boolean (settings, "keep-history-asked"));

  /* The first capture: the question, nothing recorded until it is answered. */
  started = cp_history_record_get_started ();
  window = open_window (paths[0]);
  g_assert_true (g_settings_get_boolean (settings, "keep-history-asked"));
  g_assert_true (cp_ui_screen_shows ((gpointer) "Keep a history of opened captures, to see their figures over time?"));
  g_assert_cmpuint (cp_history_record_get_started (), ==, started);
  cp_ui_screenshot (GTK_WIDGET (window), "history-question-light.png");
  keep = find_button (GTK_WIDGET (window), "_Keep History");
  g_assert_nonnull (keep);
  g_signal_emit_by_name (keep, "clicked");
  g_assert_true (g_settings_get_boolean (settings, "keep-history"));
  cp_ui_wait_for (finished_cond, GUINT_TO_POINTER (started + 1), "the first capture recorded");
  g_assert_cmpuint (stored_runs (), ==, 1);
  cp_ui_destroy_window (GTK_WINDOW (window));

  /* The second: no question; recorded, as the answer was yes. */
  window = open_window (paths[1]);
  g_assert_false (cp_ui_screen_shows ((gpointer) "Keep a history of opened captures, to see their figures over time?"));
  cp_ui_wait_for (finished_cond, GUINT_TO_POINTER (started + 2), "the second capture recorded");
  g_assert_cmpuint (stored_runs (), ==, 2);
  cp_ui_destroy_window (GTK_WINDOW (window));

  /* Turned off in the menu's toggle: nothing is recorded. */
  g_action_group_change_action_state (G_ACTION_GROUP (app), "keep-history", g_variant_new_boolean (FALSE));
  g_assert_false (g_settings_get_boolean (settings, "keep-history"));
  window = open_window (paths[2]);
  cp_ui_drain ();
  g_assert_cmpuint (cp_history_record_get_started (), ==, started + 2);
  g_assert_false (cp_ui_screen_shows ((gpointer) "Keep a history of opened captures, to see their figures over time?"));
  cp_ui_destroy_window (GTK_WINDOW (window));
  g_assert_cmpuint (stored_runs (), ==, 2);

  /* On again: the rest, and the first one twice, which adds nothing. */
  g_action_group_change_action_state (G_ACTION_GROUP (app), "keep-history", g_variant_new_boolean (TRUE));
  for (guint i = 2; i < G_N_ELEMENTS (paths); i++)
    {
      window = open_window (paths[i]);
      cp_ui_wait_for (finished_cond, GUINT_TO_POINTER (cp_history_record_get_started ()), "a capture recorded");
      cp_ui_destroy_window (GTK_WINDOW (window));
    }
  window = open_window (paths[0]);
  cp_ui_wait_for (finished_cond, GUINT_TO_POINTER (cp_history_record_get_started ()), "a capture recorded");
  cp_ui_destroy_window (GTK_WINDOW (window));
  g_assert_cmpuint (stored_runs (), ==, G_N_ELEMENTS (paths));
  {
    g_autofree char *xxhsum = g_find_program_in_path ("xxhsum");

    if (xxhsum == NULL)
      {
        g_test_skip ("xxhsum (Debian's xxhash) is missing: the oracle names runs with it");
        return;
      }
  }
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "history-oracle.py", NULL);
      const char *argv[] = { "python3", script, "check", db, paths[i], NULL };
      int status = 0;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, NULL));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
}

static gboolean
window_for_cond (gpointer data)
{
  g_autoptr(GFile) file = g_file_new_for_path (data);

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (CP_IS_WINDOW (l->data) && cp_window_get_file (l->data) != NULL &&
        g_file_equal (cp_window_get_file (l->data), file))
      return TRUE;
  return FALSE;
}

static void
close_capture_windows (void)
{
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));

  for (GList *l = windows; l; l = l->next)
    if (CP_IS_WINDOW (l->data))
      cp_ui_destroy_window (l->data);
}

static GVariant *compared;

static void
compare_cb (GSimpleAction *action,
            GVariant      *param,
            gpointer       user_data)
{
  g_clear_pointer (&compared, g_variant_unref);
  compared = g_variant_ref (param);
}

static gboolean
shows_cond (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0;
}

static void
test_chart (void)
{
  g_autofree char *out = oracle ("steps", "5");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  CpHistoryWindow *window;
  CpHistoryChart *chart;
  GArray *points;
  JsonArray *want;
  double x, y, x2, y2;
  guint slow = G_MAXUINT;
  gint64 slow_id = 0;
  const char *first_path, *second_path;

  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  want = json_node_get_array (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (want), ==, G_N_ELEMENTS (paths));

  window = open_history ();
  g_assert_cmpstr (cp_history_window_get_page (window), ==, "charts");
  g_assert_cmpuint (cp_history_window_get_n_runs (window), ==, G_N_ELEMENTS (paths));
  g_assert_nonnull (cp_history_window_get_chart (window, "gpu.utilization"));
  g_assert_nonnull (cp_history_window_get_chart (window, "input.share"));
  chart = cp_history_window_get_chart (window, "step_time.mean");
  g_assert_nonnull (chart);
  cp_ui_wait_for (shows_cond, chart, "the step-time chart");
  cp_ui_wait_frame (GTK_WIDGET (chart));

  /* The points are the oracle's, in its order; the slow run alone is marked. */
  points = cp_history_chart_get_points (chart);
  g_assert_cmpuint (points->len, ==, json_array_get_length (want));
  for (guint i = 0; i < points->len; i++)
    {
      const CpHistoryChartPoint *p = &g_array_index (points, CpHistoryChartPoint, i);
      JsonObject *o = json_array_get_object_element (want, i);

      g_assert_cmpint (p->id, ==, json_object_get_int_member (o, "id"));
      g_assert_cmpuint (p->index, ==, i);
      g_assert_cmpfloat_with_epsilon (p->value, json_object_get_double_member (o, "step_mean_ns"), 1.0);
      g_assert_cmpint (p->regression, ==, json_object_get_boolean_member (o, "regression"));
      if (p->regression)
        {
          g_assert_cmpuint (slow, ==, G_MAXUINT);
          slow = i;
          slow_id = p->id;
        }
    }
  g_assert_cmpuint (slow, !=, G_MAXUINT);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (json_array_get_object_element (want, slow), "path"),
                                   "-slow.json"));
  /* A threshold above the slowdown (+114%) marks nothing, as the oracle says. */
  {
    g_autofree char *none = oracle ("steps", "200");

    g_assert_null (strstr (none, "\"regression\": true"));
  }
  cp_history_window_set_threshold (window, 200);
  chart = cp_history_window_get_chart (window, "step_time.mean");
  for (guint i = 0; i < cp_history_chart_get_points (chart)->len; i++)
    g_assert_false (g_array_index (cp_history_chart_get_points (chart), CpHistoryChartPoint, i).regression);
  cp_history_window_set_threshold (window, 5);
  chart = cp_history_window_get_chart (window, "step_time.mean");
  cp_ui_wait_for (shows_cond, chart, "the step-time chart");
  cp_ui_wait_frame (GTK_WIDGET (chart));
  cp_ui_screenshot (GTK_WIDGET (window), "history-light.png");
  if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      cp_ui_screenshot (GTK_WIDGET (window), "history-dark.png");
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
    }

  /* Hovering the slow run names it. */
  g_assert_true (cp_history_chart_get_point_position (chart, slow, &x, &y));
  cp_ui_pointer_at (GTK_WIDGET (chart), x, y);
  g_assert_cmpint (cp_history_chart_get_hovered (chart), ==, slow_id);
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (chart)), "healthy-3-slow.json"));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (chart)), "Regression"));

  /* A click opens the capture. */
  cp_history_chart_click (chart, x, y, 0);
  cp_ui_wait_for (window_for_cond, (gpointer) json_object_get_string_member (json_array_get_object_element (want, slow), "path"),
                  "the slow capture's window");
  close_capture_windows ();

  /* Shift-click on two without a "compare" action: both open. */
  if (g_action_map_lookup_action (G_ACTION_MAP (app), "compare") != NULL)
    g_action_map_remove_action (G_ACTION_MAP (app), "compare");
  first_path = json_object_get_string_member (json_array_get_object_element (want, 0), "path");
  second_path = json_object_get_string_member (json_array_get_object_element (want, slow), "path");
  g_assert_true (cp_history_chart_get_point_position (chart, 0, &x2, &y2));
  cp_history_chart_click (chart, x, y, GDK_SHIFT_MASK);
  g_assert_true (cp_ui_screen_shows ((gpointer) "chosen: Shift-click another run"));
  g_assert_false (window_for_cond ((gpointer) second_path));
  cp_history_chart_click (chart, x2, y2, GDK_SHIFT_MASK);
  cp_ui_wait_for (window_for_cond, (gpointer) first_path, "the first capture's window");
  cp_ui_wait_for (window_for_cond, (gpointer) second_path, "the second capture's window");
  close_capture_windows ();

  /* With the action: it gets both paths, the older run first. */
  {
    g_autoptr(GSimpleAction) action = g_simple_action_new ("compare", G_VARIANT_TYPE ("(ss)"));
    const char *a, *b;

    g_signal_connect (action, "activate", G_CALLBACK (compare_cb), NULL);
    g_action_map_add_action (G_ACTION_MAP (app), G_ACTION (action));
    cp_history_chart_click (chart, x, y, GDK_SHIFT_MASK);
    cp_history_chart_click (chart, x2, y2, GDK_SHIFT_MASK);
    g_assert_nonnull (compared);
    g_variant_get (compared, "(&s&s)", &a, &b);
    g_assert_cmpstr (a, ==, first_path);
    g_assert_cmpstr (b, ==, second_path);
    g_assert_false (window_for_cond ((gpointer) first_path));
    g_action_map_remove_action (G_ACTION_MAP (app), "compare");
    g_clear_pointer (&compared, g_variant_unref);
  }

  /* A key no run has: no grouping, one line. */
  cp_history_window_set_group (window, "nothing");
  chart = cp_history_window_get_chart (window, "step_time.mean");
  for (guint i = 0; i < cp_history_chart_get_points (chart)->len; i++)
    g_assert_cmpuint (g_array_index (cp_history_chart_get_points (chart), CpHistoryChartPoint, i).series, ==, 0);
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* A thousand runs in ten series, labelled: one line each, every run drawn. */
static void
test_thousand (void)
{
  g_autofree char *big = g_build_filename (tmpdir, "thousand.sqlite", NULL);
  g_autofree char *saved = g_strdup (db);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpHistory) history = cp_history_open (big, TRUE, &error);
  g_autoptr(CpHistoryRun) run = NULL;
  CpHistoryWindow *window;
  CpHistoryChart *chart;
  GArray *points;
  guint per_series[10] = { 0 };

  g_assert_no_error (error);
  {
    g_autoptr(CpHistory) small = cp_history_open (db, FALSE, &error);

    g_assert_no_error (error);
    run = cp_history_get_run (small, "1", &error);
    g_assert_no_error (error);
  }
  for (int i = 0; i < 1000; i++)
    {
      g_autofree char *model = g_strdup_printf ("m%d", i % 10);
      gboolean added;

      g_free (run->hash);
      run->hash = g_strdup_printf ("xxh64:%016x", i);
      run->id = 0;
      run->time_ns = run->started_ns + (gint64) i * 60 * G_GINT64_CONSTANT (1000000000);
      run->step_mean_ns = 25000000 + (i % 97) * 10000 + (i == 990 ? 10000000 : 0);
      run->window_ns = run->step_mean_ns * run->steps;
      cp_history_run_set_label (run, "model", model);
      g_assert_true (cp_history_add (history, run, &added, &error));
      g_assert_no_error (error);
    }
  g_clear_pointer (&history, cp_history_close);

  g_setenv ("CHOKEPOINT_HISTORY", big, TRUE);
  window = open_history ();
  g_assert_cmpuint (cp_history_window_get_n_runs (window), ==, 1000);
  cp_history_window_set_group (window, "model");
  chart = cp_history_window_get_chart (window, "step_time.mean");
  cp_ui_wait_for (shows_cond, chart, "the step-time chart");
  cp_ui_wait_frame (GTK_WIDGET (chart));
  points = cp_history_chart_get_points (chart);
  g_assert_cmpuint (points->len, ==, 1000);
  for (guint i = 0; i < points->len; i++)
    {
      const CpHistoryChartPoint *p = &g_array_index (points, CpHistoryChartPoint, i);

      g_assert_cmpuint (p->series, <, 10);
      per_series[p->series]++;
      /* Run 990 (model m0) is 10 ms slower than any before it. */
      g_assert_cmpint (p->regression, ==, p->index == 990);
    }
  for (guint s = 0; s < 10; s++)
    g_assert_cmpuint (per_series[s], ==, 100);
  cp_ui_screenshot (GTK_WIDGET (window), "history-thousand-light.png");
  if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      cp_ui_screenshot (GTK_WIDGET (window), "history-thousand-dark.png");
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
    }
  cp_ui_destroy_window (GTK_WINDOW (window));
  g_setenv ("CHOKEPOINT_HISTORY", saved, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  int status;
  int seeds[] = { 2, 4, 1, 3, 3 };

  setlocale (LC_ALL, "");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  tmpdir = cp_test_make_tmpdir ();
  db = g_build_filename (tmpdir, "history.sqlite", NULL);
  g_setenv ("CHOKEPOINT_HISTORY", db, TRUE);
  /* Four healthy runs, then the fourth's seed again with a slow DataLoader:
   * the same start, recorded last, so the newest run. The generator's
   * seeds give the starts 2 < 4 < 1 < 3. */
  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++)
    paths[i] = generate (seeds[i], i == 4 ? "40" : NULL);
  paths[5] = generate (5, NULL);
  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/history-window/empty", test_empty);
  g_test_add_func ("/history-window/damaged", test_damaged);
  g_test_add_func ("/history-window/ask-once", test_ask_once);
  g_test_add_func ("/history-window/chart", test_chart);
  g_test_add_func ("/history-window/thousand", test_thousand);

  status = g_test_run ();
  g_object_unref (app);
  cp_test_rm_rf (tmpdir);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    g_free (paths[i]);
  g_free (db);
  g_free (tmpdir);
  return status;
}
