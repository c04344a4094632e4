/* test-job-window.c: several ranks of one run opened as one job window,
 * and its Ranks page
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: tests/collective-count.py over the raw events of the real
 * 3-rank gloo run (the straggler, and each heat map cell's delay as the
 * page tells it when pointed at; each collective on the timeline where
 * the oracle's times put it), and the truth `cp-gen --job` writes
 * (the straggler of a 64-rank job over 8 hosts); the 64-rank timeline
 * zoomed in, out, to a collective and dragged. A damaged rank is named
 * while the others open, and each file's row says how it went.
 * Screenshots (CP_SCREENSHOT_DIR) light and dark, 3 and 64 ranks. Run by run-ui-test.sh (skipped without a display).
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "cp-ui-test-util.h"
#include "../cp-test-util.h"
#include "render/cp-time-format.h"
#include "ui/cp-application.h"
#include "ui/cp-job-window.h"
#include "ui/cp-window.h"

static CpApplication *app;
static char *tmpdir;

static gboolean
job_window_cond (gpointer data)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (CP_IS_JOB_WINDOW (l->data))
      {
        *(CpJobWindow **) data = l->data;
        return TRUE;
      }
  return FALSE;
}

static gboolean
loaded_cond (gpointer data)
{
  return !cp_job_window_is_loading (data) && cp_job_window_get_job (data) != NULL;
}

static gboolean
heatmap_cond (gpointer data)
{
  CpJobHeatmap map;

  return cp_job_window_get_heatmap (data, &map);
}

/* Opens the files as the application does for the command line, then
 * waits for the job window's Ranks page to be drawn. */
static CpJobWindow *
open_job (GFile **files,
          guint   n_files)
{
  CpJobWindow *window = NULL;

  cp_application_open_files (app, files, n_files);
  cp_ui_wait_for (job_window_cond, &window, "a job window");
  cp_ui_wait_for (loaded_cond, window, "the ranks to be read");
  cp_ui_wait_for (heatmap_cond, window, "the heat map to be drawn");
  return window;
}

static GtkEventController *
controller_of (GtkWidget *widget,
               GType      type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        return GTK_EVENT_CONTROLLER (c);
    }
  g_assert_not_reached ();
}

static const char *
label_text (GtkWidget  *root,
            const char *name)
{
  GtkWidget *w = cp_ui_find_named (root, name);

  g_assert_nonnull (w);
  return gtk_label_get_text (GTK_LABEL (w));
}

static void
screenshots (CpJobWindow *window,
             const char  *light,
             const char  *dark)
{
  if (g_getenv ("CP_SCREENSHOT_DIR") == NULL)
    return;
  cp_ui_screenshot (GTK_WIDGET (window), light);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  cp_ui_screenshot (GTK_WIDGET (window), dark);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
}

/* The same with the page scrolled to the job timeline, then back. */
static void
timeline_screenshots (CpJobWindow *window,
                      const char  *light,
                      const char  *dark)
{
  GtkWidget *area = cp_ui_find_named (GTK_WIDGET (window), "job-timeline");
  GtkScrolledWindow *scrolled = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (area, GTK_TYPE_SCROLLED_WINDOW));
  graphene_rect_t bounds;

  if (g_getenv ("CP_SCREENSHOT_DIR") == NULL)
    return;
  g_assert_true (gtk_widget_compute_bounds (area, gtk_scrolled_window_get_child (scrolled), &bounds));
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (scrolled), bounds.origin.y - 120);
  screenshots (window, light, dark);
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (scrolled), 0);
  cp_ui_wait_frame (area);
}

/* The real run: 3 gloo processes on one machine, rank 2 made slow. */
static void
test_real_gloo (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *dir = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "data", "captures",
                                           "torch-ddp-straggler-gloo-cpu", NULL);
  g_autofree char *script = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "collective-count.py", NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  GFile *files[3];
  char *paths[3];
  JsonArray *colls;
  CpJobWindow *window;
  CpJob *job;
  GtkWidget *heat;
  CpJobHeatmap map;
  double x5, y5;
  gint64 caused[3] = { 0 };
  gint straggler = 0;
  int status = 0;

  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  for (guint k = 0; k < 3; k++)
    {
      paths[k] = g_strdup_printf ("%s/rank-rank%u.pt.trace.json.gz", dir, k);
      files[k] = g_file_new_for_path (paths[k]);
    }
  {
    const char *argv[] = { python, script, paths[0], paths[1], paths[2], NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status,
                                 &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  colls = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "collectives");
  /* The oracle's straggler: the rank whose late arrivals cost the others
   * the most wait. */
  for (guint c = 0; c < json_array_get_length (colls); c++)
    {
      JsonObject *t = json_array_get_object_element (colls, c);
      JsonArray *arr = json_object_get_array_member (t, "arrival_ns");
      gint last = json_object_get_int_member (t, "last_rank");

      for (guint k = 0; k < 3; k++)
        caused[last] += json_array_get_int_element (arr, last) - json_array_get_int_element (arr, k);
    }
  for (guint k = 1; k < 3; k++)
    if (caused[k] > caused[straggler])
      straggler = k;
  g_assert_cmpint (straggler, ==, 2);

  window = open_job (files, 3);
  job = cp_job_window_get_job (window);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 3);
  {
    g_autofree char *want = g_strdup_printf ("Rank %d is the straggler", straggler);

    g_assert_cmpstr (label_text (GTK_WIDGET (window), "straggler-title"), ==, want);
  }
  g_assert_false (gtk_widget_get_visible (cp_ui_find_named (GTK_WIDGET (window), "job-notes")));

  /* Every cell, pointed at, tells the oracle's delay of that rank. */
  heat = cp_ui_find_named (GTK_WIDGET (window), "heat-map");
  g_assert_true (cp_job_window_get_heatmap (window, &map));
  g_assert_cmpuint (map.n_collectives, ==, json_array_get_length (colls));
  g_assert_cmpuint (map.n_ranks, ==, 3);
  for (guint c = 0; c < map.n_collectives; c++)
    for (guint k = 0; k < map.n_ranks; k++)
      {
        const CpJobCollective *jc = cp_job_get_collective (job, c);
        JsonArray *arr = json_object_get_array_member (json_array_get_object_element (colls, jc->index), "arrival_ns");
        gint rank = cp_job_get_rank (job, k)->rank;
        gint64 lo = G_MAXINT64;
        g_autofree char *delay = NULL, *want = NULL;
        double x, y;

        for (guint r = 0; r < 3; r++)
          lo = MIN (lo, json_array_get_int_element (arr, r));
        delay = cp_time_format_duration (json_array_get_int_element (arr, rank) - lo);
        want = g_strdup_printf ("Collective %u (all_reduce, group %s): rank %d arrived %s after the first.",
                                jc->index, jc->group, rank, delay);
        cp_job_heatmap_cell_center (&map, c, k, &x, &y);
        g_signal_emit_by_name (controller_of (heat, GTK_TYPE_EVENT_CONTROLLER_MOTION), "motion", x, y);
        if (!g_str_has_prefix (label_text (GTK_WIDGET (window), "heat-info"), want))
          g_error ("cell %u, %u says “%s”, the oracle “%s”", c, k, label_text (GTK_WIDGET (window), "heat-info"),
                   want);
      }
  /* A click selects the collective under it. */
  cp_job_heatmap_cell_center (&map, 5, 1, &x5, &y5);
  g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, -1);
  g_signal_emit_by_name (controller_of (heat, GTK_TYPE_GESTURE_CLICK), "pressed", 1, x5, y5);
  g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, 5);
  /* The timeline is in job time: one clock, so each arrival there is the
   * oracle's raw arrival shifted by one constant; a click in the middle of
   * the oracle's [arrival, end) on a rank's row selects that collective. */
  {
    CpJobTimeline tl;
    gint64 shift = 0;

    cp_ui_wait_frame (cp_ui_find_named (GTK_WIDGET (window), "job-timeline"));
    guint n_clicked = 0;

    g_assert_true (cp_job_window_get_timeline (window, &tl));
    g_assert_cmpuint (tl.n_ranks, ==, 3);
    for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
      for (guint k = 0; k < 3; k++)
        {
          const CpJobCollective *jc = cp_job_get_collective (job, c);
          JsonObject *t = json_array_get_object_element (colls, jc->index);
          gint rank = cp_job_get_rank (job, k)->rank;
          gint64 a = json_array_get_int_element (json_object_get_array_member (t, "arrival_ns"), rank);
          gint64 e = json_array_get_int_element (json_object_get_array_member (t, "end_ns"), rank);
          GtkWidget *area = cp_ui_find_named (GTK_WIDGET (window), "job-timeline");
          double x, y = tl.y + (k + 0.5) * tl.row_height;

          if (c == 0 && k == 0)
            shift = jc->arrival[0] - a;
          g_assert_cmpint (jc->arrival[k] - a, ==, shift);
          x = cp_job_timeline_x (&tl, (a + e) / 2 + shift);
          /* Collectives closer than 4 px to a neighbour share pixels: a
           * click cannot tell them apart. */
          if ((c > 0 && x - cp_job_timeline_x (&tl, cp_job_get_collective (job, c - 1)->end[k]) < 4) ||
              (c + 1 < cp_job_get_n_collectives (job) &&
               cp_job_timeline_x (&tl, cp_job_get_collective (job, c + 1)->arrival[k]) - x < 4))
            continue;
          n_clicked++;
          g_signal_emit_by_name (controller_of (area, GTK_TYPE_GESTURE_CLICK), "pressed", 1, x, y);
          g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, c);
        }
    g_assert_cmpuint (n_clicked, >=, 20);  /* 25 of the 48 at the default width */
    cp_job_heatmap_cell_center (&map, 5, 1, &x5, &y5);
    g_signal_emit_by_name (controller_of (heat, GTK_TYPE_GESTURE_CLICK), "pressed", 1, x5, y5);
    g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, 5);
    screenshots (window, "job-3-light.png", "job-3-dark.png");

    /* A click on the straggler's name opens its own lanes under its row:
     * the selected collective is selected there too, and each
     * collective's slice in them lies where the oracle's times put it. */
    {
      GtkWidget *area = cp_ui_find_named (GTK_WIDGET (window), "job-timeline");
      GtkGesture *click = GTK_GESTURE (controller_of (area, GTK_TYPE_GESTURE_CLICK));
      double h0 = tl.total_height, bx, by, bw, bh;
      guint k = 0, n_seen = 0, n_narrow = 0;
      gint pick = -1;
      CpViewState *view;

      while (cp_job_get_rank (job, k)->rank != straggler)
        k++;
      g_assert_null (cp_job_window_get_rank_view (window, k));
      g_signal_emit_by_name (click, "pressed", 1, tl.left + 4, cp_job_timeline_row_y (&tl, k) + tl.row_height / 2);
      view = cp_job_window_get_rank_view (window, k);
      g_assert_nonnull (view);
      cp_ui_wait_frame (area);
      g_assert_true (cp_job_window_get_timeline (window, &tl));
      g_assert_cmpfloat (tl.bands[k], >=, 40);
      g_assert_cmpfloat (fabs (tl.total_height - (h0 + tl.bands[k])), <, 0.01);
      g_assert_cmpint (gtk_widget_get_height (area), >=, (int) tl.total_height);
      g_assert_cmpuint (cp_view_state_get_selected (view).lane, ==, cp_job_get_collective (job, 5)->slices[k].lane);
      g_assert_cmpuint (cp_view_state_get_selected (view).index, ==, cp_job_get_collective (job, 5)->slices[k].index);
      for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
        {
          const CpJobCollective *jc = cp_job_get_collective (job, c);
          JsonObject *t = json_array_get_object_element (colls, jc->index);
          gint64 a = json_array_get_int_element (json_object_get_array_member (t, "arrival_ns"), straggler);
          gint64 e = json_array_get_int_element (json_object_get_array_member (t, "end_ns"), straggler);

          g_assert_true (cp_job_window_get_rank_slice_rect (window, k, jc->slices[k], &bx, &by, &bw, &bh));
          g_assert_cmpfloat (by, >=, cp_job_timeline_row_y (&tl, k) + tl.row_height);
          g_assert_cmpfloat (by + bh, <=, cp_job_timeline_row_y (&tl, k) + tl.row_height + tl.bands[k]);
          g_assert_cmpfloat (fabs (bx - cp_job_timeline_x (&tl, a + shift)), <=, 1.0);
          if (cp_job_timeline_x (&tl, e + shift) - cp_job_timeline_x (&tl, a + shift) < 2)
            n_narrow++;  /* drawn a pixel wide at least */
          else
            g_assert_cmpfloat (fabs (bx + bw - cp_job_timeline_x (&tl, e + shift)), <=, 1.0);
          if (pick < 0 && c != 5 && bw >= 4)
            pick = (gint) c;
          n_seen++;
        }
      g_assert_cmpuint (n_seen, ==, cp_job_get_n_collectives (job));
      g_assert_cmpuint (n_narrow, <, n_seen);
      timeline_screenshots (window, "job-3-lanes-light.png", "job-3-lanes-dark.png");
      g_assert_true (cp_job_window_get_timeline (window, &tl));

      /* A click on another collective's slice there selects it, on
       * every rank. */
      g_assert_cmpint (pick, >=, 0);
      g_assert_true (cp_job_window_get_rank_slice_rect (window, k, cp_job_get_collective (job, pick)->slices[k],
                                                        &bx, &by, &bw, &bh));
      g_signal_emit_by_name (click, "pressed", 1, bx + bw / 2, by + bh / 2);
      g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, pick);
      g_assert_cmpuint (cp_view_state_get_selected (view).index, ==, cp_job_get_collective (job, pick)->slices[k].index);
      {
        g_autofree char *want = g_strdup_printf ("Rank %d: gloo:", straggler);

        g_assert_true (g_str_has_prefix (label_text (GTK_WIDGET (window), "heat-info"), want));
      }

      /* Its name again closes them. */
      g_signal_emit_by_name (click, "pressed", 1, tl.left + 4, cp_job_timeline_row_y (&tl, k) + tl.row_height / 2);
      g_assert_null (cp_job_window_get_rank_view (window, k));
      cp_ui_wait_frame (area);
      g_assert_true (cp_job_window_get_timeline (window, &tl));
      g_assert_cmpfloat (fabs (tl.total_height - h0), <, 0.01);
    }
  }

  cp_ui_destroy_window (GTK_WINDOW (window));
  for (guint k = 0; k < 3; k++)
    {
      g_object_unref (files[k]);
      g_free (paths[k]);
    }
}

static char *
gen_job (const char *name,
         const char *ranks,
         const char *hosts,
         const char *straggler,
         JsonParser *truth)
{
  g_autofree char *dir = g_build_filename (tmpdir, name, NULL);
  g_autofree char *truth_path = g_strconcat (dir, ".truth.txt", NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--job", dir, "--truth", truth_path, "--ranks", ranks, "--hosts",
                         hosts, "--straggler", straggler, "--delay", "20000000", NULL };

  cp_test_run_generator (argv, truth_path, truth);
  return g_steal_pointer (&dir);
}

static gboolean
rank_window_cond (gpointer data)
{
  CpWindow **out = data;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (CP_IS_WINDOW (l->data))
      {
        *out = l->data;
        return TRUE;
      }
  return FALSE;
}

static gboolean
rank_loaded_cond (gpointer data)
{
  return cp_window_get_state (data) == CP_WINDOW_LOADED && cp_window_get_analysis (data) != NULL;
}

/* 64 ranks over 8 hosts (clocks shifted), rank 41 late: the folder opens
 * as one job, the generator's straggler is named and the heat map fits a
 * screen. */
static void
test_generated_64 (void)
{
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autofree char *dir = gen_job ("job64", "64", "8", "41", truth);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autofree char *want = NULL;
  JsonObject *t = json_node_get_object (json_parser_get_root (truth));
  CpJobWindow *window;
  CpJobHeatmap map;

  window = open_job (&folder, 1);
  g_assert_cmpuint (cp_job_get_n_ranks (cp_job_window_get_job (window)), ==, 64);
  want = g_strdup_printf ("Rank %" G_GINT64_FORMAT " is the straggler", json_object_get_int_member (t, "straggler"));
  g_assert_cmpstr (label_text (GTK_WIDGET (window), "straggler-title"), ==, want);
  g_assert_true (cp_job_window_get_heatmap (window, &map));
  g_assert_cmpuint (map.n_ranks, ==, 64);
  g_assert_cmpuint (map.n_collectives, ==, json_array_get_length (json_object_get_array_member (t, "collectives")));
  g_assert_cmpfloat (map.height, <=, 800);
  screenshots (window, "job-64-light.png", "job-64-dark.png");

  /* The timeline zooms: in and out around its middle, to the selected
   * collective (first arrival to last end on every rank, as the
   * generator's truth has them), moved by a drag, and back to the whole
   * job, which is the longest rank in job time. */
  {
    GtkWidget *timeline = cp_ui_find_named (GTK_WIDGET (window), "job-timeline");
    CpJob *job = cp_job_window_get_job (window);
    JsonArray *colls = json_object_get_array_member (t, "collectives");
    gint64 start, end, full, s2, e2, lo = G_MAXINT64, hi = G_MININT64;
    CpJobTimeline tl;
    double x, y;

    cp_job_window_get_visible_range (window, &start, &end);
    g_assert_cmpint (start, ==, 0);
    full = end;
    for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
      g_assert_cmpint (cp_job_rank_to_job_offset (job, k) + cp_trace_get_duration (cp_job_get_rank (job, k)->trace),
                       <=, full);
    /* Nothing selected yet: nothing to zoom to. */
    g_assert_false (gtk_widget_get_sensitive (cp_ui_find_named (GTK_WIDGET (window), "job-zoom-collective")));
    gtk_widget_activate_action (GTK_WIDGET (window), "job.zoom-in", NULL);
    cp_job_window_get_visible_range (window, &s2, &e2);
    g_assert_cmpint (e2 - s2, ==, (full + 1) / 2);
    g_assert_cmpint (s2, ==, full / 2 - full / 4);
    gtk_widget_activate_action (GTK_WIDGET (window), "job.zoom-out", NULL);
    cp_job_window_get_visible_range (window, &s2, &e2);
    g_assert_cmpint (s2, ==, 0);
    g_assert_cmpint (e2, ==, full);

    /* Collective 3, selected on the heat map. */
    g_assert_true (cp_job_window_get_heatmap (window, &map));
    cp_job_heatmap_cell_center (&map, 3, 0, &x, &y);
    g_signal_emit_by_name (controller_of (cp_ui_find_named (GTK_WIDGET (window), "heat-map"), GTK_TYPE_GESTURE_CLICK),
                           "pressed", 1, x, y);
    g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, 3);
    g_assert_true (gtk_widget_get_sensitive (cp_ui_find_named (GTK_WIDGET (window), "job-zoom-collective")));
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "job.zoom-collective", NULL));
    cp_job_window_get_visible_range (window, &s2, &e2);
    for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
      {
        lo = MIN (lo, cp_job_get_collective (job, 3)->arrival[k]);
        hi = MAX (hi, cp_job_get_collective (job, 3)->end[k]);
      }
    g_assert_cmpint (s2, <, lo);
    g_assert_cmpint (e2, >, hi);
    g_assert_cmpint (e2 - s2, <, full / 10);
    g_assert_cmpuint (json_array_get_length (colls), >, 3);
    cp_ui_wait_frame (timeline);
    g_assert_true (cp_job_window_get_timeline (window, &tl));
    g_assert_cmpint (tl.start, ==, s2);
    g_assert_cmpint (tl.end, ==, e2);
    /* The collective fills the middle three fifths or so of the rows. */
    g_assert_cmpfloat (cp_job_timeline_x (&tl, lo), >, tl.x);
    g_assert_cmpfloat (cp_job_timeline_x (&tl, hi), <, tl.x + tl.width);
    if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
      {
        /* The timeline is below the heat map: scrolled to. */
        GtkWidget *scrolled = gtk_widget_get_ancestor (timeline, GTK_TYPE_SCROLLED_WINDOW);
        GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
        graphene_rect_t bounds;

        g_assert_true (gtk_widget_compute_bounds (timeline, gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)), &bounds));
        gtk_adjustment_set_value (adj, bounds.origin.y - 120);
        screenshots (window, "job-64-zoomed-light.png", "job-64-zoomed-dark.png");
        gtk_adjustment_set_value (adj, 0);
      }

    /* A double click on the straggler's row opens its capture, showing
     * the same collective in its own clock. */
    {
      gint straggler = (gint) json_object_get_int_member (t, "straggler");
      guint k = 0;
      CpWindow *opened = NULL;
      g_autoptr(GFile) want_file = NULL;
      CpViewState *view;

      while (cp_job_get_rank (job, k)->rank != straggler)
        k++;
      want_file = g_file_parse_name (cp_job_get_rank (job, k)->path);
      g_signal_emit_by_name (controller_of (timeline, GTK_TYPE_GESTURE_CLICK), "pressed", 2,
                             tl.x + 4, tl.y + (k + 0.5) * tl.row_height);
      cp_ui_wait_for (rank_window_cond, &opened, "the rank's window");
      cp_ui_wait_for (rank_loaded_cond, opened, "the rank's capture");
      g_assert_true (g_file_equal (cp_window_get_file (opened), want_file));
      view = cp_window_get_view_state (opened);
      cp_ui_wait_frame (GTK_WIDGET (opened));
      g_assert_cmpint (cp_view_state_get_visible_start (view), ==, s2 - cp_job_rank_to_job_offset (job, k));
      g_assert_cmpint (cp_view_state_get_visible_end (view), ==, e2 - cp_job_rank_to_job_offset (job, k));
      cp_ui_destroy_window (GTK_WINDOW (opened));
    }

    /* A drag to the left by a tenth of the rows moves later by a tenth. */
    cp_ui_drag (timeline, tl.x + tl.width / 2, tl.y + 2, -tl.width / 10, 0);
    cp_job_window_get_visible_range (window, &start, &end);
    g_assert_cmpint (end - start, ==, e2 - s2);
    g_assert_cmpint (ABS ((start - s2) - (e2 - s2) / 10), <=, (e2 - s2) / 100);

    gtk_widget_activate_action (GTK_WIDGET (window), "job.zoom-fit", NULL);
    cp_job_window_get_visible_range (window, &start, &end);
    g_assert_cmpint (start, ==, 0);
    g_assert_cmpint (end, ==, full);
  }
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* The loading page's row of the file named name: its state; NULL without
 * such a row. */
static const char *
file_row_state (CpJobWindow *window,
                const char  *name)
{
  GtkWidget *list = cp_ui_find_named (GTK_WIDGET (window), "job-files");

  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row; row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), name) == 0)
      return adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
  return NULL;
}

static guint
n_children (GtkWidget *widget)
{
  guint n = 0;

  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    n++;
  return n;
}

/* A damaged rank among four: named on the page, the four open. A folder
 * of damaged ranks only: the window says why nothing opened. */
static void
test_damaged_rank (void)
{
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autofree char *dir = gen_job ("job4", "4", "1", "3", truth);
  g_autofree char *bad_dir = g_build_filename (tmpdir, "bad", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GFile) bad_folder = g_file_new_for_path (bad_dir);
  g_autofree char *bad = cp_test_write_file (dir, "rank-9.pt.trace.json", "{\"traceEvents\": [{\"ph\": ", -1);
  CpJobWindow *window;
  GtkWidget *notes;

  window = open_job (&folder, 1);
  g_assert_cmpuint (cp_job_get_n_ranks (cp_job_window_get_job (window)), ==, 4);
  /* Each file had its row while the job was read: the damaged one is
   * left out, the others read. */
  g_assert_cmpuint (n_children (cp_ui_find_named (GTK_WIDGET (window), "job-files")), ==, 5);
  g_assert_cmpstr (file_row_state (window, "rank-9.pt.trace.json"), ==, "Left out");
  for (guint k = 0; k < 4; k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.pt.trace.json", k);

      g_assert_cmpstr (file_row_state (window, name), ==, "Read");
    }
  g_assert_cmpstr (gtk_progress_bar_get_text (GTK_PROGRESS_BAR (cp_ui_find_named (GTK_WIDGET (window), "job-progress"))),
                   ==, "5 of 5 read");
  g_assert_cmpfloat (gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (cp_ui_find_named (GTK_WIDGET (window), "job-progress"))),
                     ==, 1.0);
  notes = cp_ui_find_named (GTK_WIDGET (window), "job-notes");
  g_assert_true (gtk_widget_get_visible (notes));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (notes)), "rank-9.pt.trace.json"));
  g_assert_cmpstr (label_text (GTK_WIDGET (window), "straggler-title"), ==, "Rank 3 is the straggler");
  cp_ui_destroy_window (GTK_WINDOW (window));

  g_assert_cmpint (g_mkdir (bad_dir, 0700), ==, 0);
  g_free (cp_test_write_file (bad_dir, "rank-0.pt.trace.json", "{\"traceEvents\": [", -1));
  g_free (cp_test_write_file (bad_dir, "rank-1.pt.trace.json", "not json", -1));
  window = NULL;
  cp_application_open_files (app, &bad_folder, 1);
  cp_ui_wait_for (job_window_cond, &window, "a job window");
  cp_ui_wait_shows (GTK_WIDGET (window), "The Job Could Not Be Opened");
  g_assert_null (cp_job_window_get_job (window));
  cp_ui_destroy_window (GTK_WINDOW (window));
}

static gboolean
page_is (gpointer data)
{
  gpointer *args = data;
  GtkWidget *page = cp_ui_find_named (args[0], args[1]);

  return page != NULL && gtk_widget_get_mapped (page);
}

/* A job needing more memory than is free (CHOKEPOINT_MEMORY_AVAILABLE set
 * so that two of four ranks fit): the window asks first, and opens the
 * first two or all four, as the user says. */
static void
test_memory (void)
{
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autofree char *dir = gen_job ("job4m", "4", "1", "3", truth);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GPtrArray) files = cp_job_list_folder (folder, NULL);
  guint64 available = 0;
  g_autofree char *value = NULL;

  g_assert_nonnull (files);
  g_assert_cmpuint (files->len, ==, 4);
  /* The least memory with which two ranks fit. */
  for (guint64 a = 1024; a < (G_GUINT64_CONSTANT (1) << 40); a += a / 8)
    if (cp_job_count_fitting ((GFile * const *) files->pdata, files->len, a, NULL, NULL) == 2)
      {
        available = a;
        break;
      }
  g_assert_cmpuint (available, >, 0);
  value = g_strdup_printf ("%" G_GUINT64_FORMAT, available);
  g_setenv ("CHOKEPOINT_MEMORY_AVAILABLE", value, TRUE);

  for (guint all = 0; all < 2; all++)
    {
      CpJobWindow *window = NULL;
      gpointer memory[2] = { NULL, (gpointer) "job-memory" };
      GtkWidget *button;

      cp_application_open_files (app, (GFile **) &folder, 1);
      cp_ui_wait_for (job_window_cond, &window, "a job window");
      memory[0] = window;
      cp_ui_wait_for (page_is, memory, "the question about memory");
      g_assert_false (cp_job_window_is_loading (window));
      g_assert_true (cp_ui_label_tree_has (GTK_WIDGET (window), "The first 2"));
      if (!all)
        cp_ui_screenshot (GTK_WIDGET (window), "job-memory.png");
      button = cp_ui_find_named (GTK_WIDGET (window), all ? "job-open-all" : "job-open-fitting");
      g_assert_true (gtk_widget_get_visible (button));
      g_signal_emit_by_name (button, "clicked");
      cp_ui_wait_for (loaded_cond, window, "the ranks to be read");
      g_assert_cmpuint (cp_job_get_n_ranks (cp_job_window_get_job (window)), ==, all ? 4 : 2);
      cp_ui_destroy_window (GTK_WINDOW (window));
    }
  g_unsetenv ("CHOKEPOINT_MEMORY_AVAILABLE");
}

/* A TensorBoard logdir of a multi-host JAX run on TPUs, opened as the
 * application opens a folder: a job of its hosts, the straggler the truth
 * names, and the straggler's TPU lanes shown in place with the selected
 * all-reduce selected on its XLA Ops line, where the truth's arrival is. */
static void
test_xla_logdir (void)
{
  g_autofree char *logdir = g_build_filename (tmpdir, "jax-logdir", NULL);
  g_autofree char *run = g_build_filename (logdir, "plugins", "profile", "2026_12_04_10_00_00", NULL);
  g_autofree char *truth_path = g_build_filename (tmpdir, "jax-logdir.truth.txt", NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--job", run, "--truth", truth_path, "--format", "xplane", "--ranks",
                         "4", "--hosts", "2", "--host-offset", "-2000000000", "--straggler", "2", "--delay",
                         "20000000", NULL };
  g_autoptr(JsonParser) truth = json_parser_new ();
  g_autoptr(GFile) folder = g_file_new_for_path (logdir);
  CpJobWindow *window;
  CpJob *job;
  CpJobTimeline tl;
  CpViewState *view;
  GtkWidget *area;
  const CpJobCollective *jc;
  JsonObject *t;
  double x, y, w, h;
  gint64 shift;

  cp_test_run_generator (argv, truth_path, truth);
  t = json_node_get_object (json_parser_get_root (truth));

  window = open_job (&folder, 1);
  job = cp_job_window_get_job (window);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 4);
  g_assert_cmpstr (label_text (GTK_WIDGET (window), "straggler-title"), ==, "Rank 2 is the straggler");
  /* The four guesses are one note. */
  g_assert_nonnull (strstr (label_text (GTK_WIDGET (window), "job-notes"), "4 ranks guessed from the order"));

  area = cp_ui_find_named (GTK_WIDGET (window), "job-timeline");
  cp_ui_wait_frame (area);
  g_assert_true (cp_job_window_get_timeline (window, &tl));
  g_signal_emit_by_name (controller_of (area, GTK_TYPE_GESTURE_CLICK), "pressed", 1,
                         tl.left + 4, cp_job_timeline_row_y (&tl, 2) + tl.row_height / 2);
  view = cp_job_window_get_rank_view (window, 2);
  g_assert_nonnull (view);
  /* Select the first collective through the heat map's cell, then find it
   * in the band. */
  {
    CpJobHeatmap map;
    double cx, cy;

    g_assert_true (cp_job_window_get_heatmap (window, &map));
    cp_job_heatmap_cell_center (&map, 0, 2, &cx, &cy);
    g_signal_emit_by_name (controller_of (cp_ui_find_named (GTK_WIDGET (window), "heat-map"), GTK_TYPE_GESTURE_CLICK),
                           "pressed", 1, cx, cy);
  }
  g_assert_cmpint (cp_job_window_get_selected_collective (window), ==, 0);
  jc = cp_job_get_collective (job, 0);
  g_assert_cmpuint (cp_view_state_get_selected (view).index, ==, jc->slices[2].index);
  g_assert_cmpstr (cp_lane_get_name (cp_trace_get_lane (cp_job_get_rank (job, 2)->trace, jc->slices[2].lane)), ==,
                   "XLA Ops");
  cp_ui_wait_frame (area);
  g_assert_true (cp_job_window_get_timeline (window, &tl));
  g_assert_true (cp_job_window_get_rank_slice_rect (window, 2, jc->slices[2], &x, &y, &w, &h));
  /* The truth's arrivals are in one true clock; job time is rank 0's. */
  {
    JsonObject *c0 = json_array_get_object_element (json_object_get_array_member (t, "collectives"), jc->index);
    gint64 a0 = json_array_get_int_element (json_object_get_array_member (c0, "arrival_ns"), 0);
    gint64 a2 = json_array_get_int_element (json_object_get_array_member (c0, "arrival_ns"), 2);

    shift = jc->arrival[0] - a0;
    g_assert_cmpfloat (fabs (x - cp_job_timeline_x (&tl, a2 + shift)), <=, 1.0);
  }
  g_assert_cmpfloat (y, >=, cp_job_timeline_row_y (&tl, 2) + tl.row_height);
  timeline_screenshots (window, "job-xla-light.png", "job-xla-dark.png");
  cp_ui_destroy_window (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  setlocale (LC_ALL, "");
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  tmpdir = cp_test_make_tmpdir ();
  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/job-window/real-gloo", test_real_gloo);
  g_test_add_func ("/job-window/generated-64", test_generated_64);
  g_test_add_func ("/job-window/damaged-rank", test_damaged_rank);
  g_test_add_func ("/job-window/memory", test_memory);
  g_test_add_func ("/job-window/xla-logdir", test_xla_logdir);

  status = g_test_run ();
  g_object_unref (app);
  cp_test_rm_rf (tmpdir);
  g_free (tmpdir);
  return status;
}
