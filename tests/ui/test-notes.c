/* test-notes.c: markers, notes, pinned evidence and report export in the window
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens a generated capture (cp-gen, input-bound) in CpWindow and uses the
 * annotations as a user does: M on the timeline adds a marker and opens the
 * note popover; a range selected on the ruler gets a note; a finding's
 * evidence is pinned; the Notes page lists, shows and deletes them; they are
 * saved beside the capture and come back in a new window; a damaged file is
 * reported and kept. Then Export Report (the dialog, the worker thread, the
 * toast) writes the same PNG that `chokepoint report` writes for the same
 * choices. Run by run-ui-test.sh (skipped without a display).
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>

#include "cp-application.h"
#include "cp-export-dialog.h"
#include "cp-note-popover.h"
#include "cp-notes-pane.h"
#include "cp-test-util.h"
#include "cp-timeline-pane.h"
#include "cp-window.h"
#include "formats/cp-sidecar.h"
#include "cp-ui-test-util.h"

#define SOURCE_DATE     "1769964000"

static CpApplication *app;
static char *tmpdir;

/* The first toplevel of a type. */
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

static char *
generate (const char *name)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", "input-bound", "--out", path, "--steps", "5",
                         "--seed", "3", "-q", NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static gboolean
ready_cond (gpointer data)
{
  CpWindow *window = data;
  CpTimelinePane *pane = CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE));
  GtkWidget *view = GTK_WIDGET (cp_timeline_pane_get_view (pane));

  return cp_window_get_analysis (window) != NULL && cp_timeline_view_is_ready (CP_TIMELINE_VIEW (view)) &&
         gtk_widget_get_mapped (view) && gtk_widget_get_width (view) > 400;
}

static CpWindow *
open_window (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CpWindow *window = cp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (ready_cond, window, "the capture and its analysis");
  return window;
}

/* Closes the window as the user does, and waits until it is gone. */
static void
close_window (CpWindow *window)
{
  g_object_ref (window);
  gtk_window_close (GTK_WINDOW (window));
  cp_ui_wait_finalized (window, "the closed window to be finalized");
}

static gboolean
popover_closed_cond (gpointer data)
{
  return !gtk_widget_get_visible (data);
}

static CpAnnotations *
annotations_of (CpWindow *window)
{
  CpAnnotations *a = NULL;

  g_object_get (window, "annotations", &a, NULL);
  g_object_unref (a);   /* the window keeps it */
  return a;
}

static CpAnnotation *
nth (CpAnnotations *a,
     guint          n)
{
  g_autoptr(CpAnnotation) an = g_list_model_get_item (G_LIST_MODEL (a), n);

  return an;   /* the list keeps it */
}

static CpAnnotation *
find_text (CpAnnotations *a,
           const char    *prefix)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (a)); i++)
    if (g_str_has_prefix (cp_annotation_get_text (nth (a, i)), prefix))
      return nth (a, i);
  return NULL;
}

/* The window's note popover: writes the text, picks a colour, closes. */
static void
write_note (CpWindow   *window,
            const char *text,
            guint       color)
{
  GtkWidget *pane = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE);
  GtkWidget *popover = cp_ui_find_widget (pane, CP_TYPE_NOTE_POPOVER);

  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  cp_note_popover_set_text (CP_NOTE_POPOVER (popover), text);
  cp_note_popover_pick_color (CP_NOTE_POPOVER (popover), color);
  gtk_popover_popdown (GTK_POPOVER (popover));
  cp_ui_wait_for (popover_closed_cond, popover, "the note popover to close");
}

typedef struct
{
  char  *path;
  guint  n;
} Saved;

/* The sidecar holds n annotations. */
static gboolean
saved_cond (gpointer data)
{
  Saved *s = data;
  g_autofree char *text = NULL;
  g_autoptr(CpAnnotations) a = cp_annotations_new ();

  if (!g_file_get_contents (s->path, &text, NULL, NULL))
    return FALSE;
  return cp_sidecar_parse (text, -1, a, NULL) && g_list_model_get_n_items (G_LIST_MODEL (a)) == s->n;
}

static void
test_notes_and_export (void)
{
  g_autofree char *capture = generate ("run.pt.trace.json");
  g_autofree char *sidecar = g_strconcat (capture, CP_SIDECAR_SUFFIX, NULL);
  g_autofree char *report = g_build_filename (tmpdir, "window-report.png", NULL);
  g_autofree char *cli_report = g_build_filename (tmpdir, "cli-report.png", NULL);
  CpWindow *window = open_window (capture);
  CpAnnotations *notes = annotations_of (window);
  CpViewState *view = cp_window_get_view_state (window);
  CpTimelinePane *pane = CP_TIMELINE_PANE (cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_TIMELINE_PANE));
  GtkWidget *timeline = GTK_WIDGET (cp_timeline_pane_get_view (pane));
  GtkWidget *notes_pane = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_NOTES_PANE);
  CpTrace *trace = cp_window_get_trace (window);
  gint64 duration = cp_trace_get_duration (trace);
  CpAnnotation *marker, *note, *pinned;
  const CpMark *marks;
  guint n_marks;
  gint64 t;
  Saved saved = { sidecar, 0 };

  g_assert_nonnull (notes);
  g_assert_nonnull (notes_pane);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (notes)), ==, 0);
  g_assert_true (gtk_widget_is_sensitive (timeline));

  /* M with the pointer over the timeline: a marker there, and the popover
   * to write it. */
  cp_view_state_fit_all (view);
  cp_ui_pointer_at (timeline, cp_view_state_time_to_x (view, duration / 4) + 240, 100);
  g_assert_true (cp_timeline_view_get_pointer_time (CP_TIMELINE_VIEW (timeline), &t));
  cp_ui_press_key (timeline, GDK_KEY_m, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (notes)), ==, 1);
  marker = nth (notes, 0);
  g_assert_cmpint (cp_annotation_get_kind (marker), ==, CP_ANNOTATION_MARKER);
  g_assert_cmpint (cp_annotation_get_start (marker), ==, t);
  write_note (window, "Warm-up ends here\nfrom step 2 on", 2);
  g_assert_cmpstr (cp_annotation_get_text (marker), ==, "Warm-up ends here\nfrom step 2 on");
  g_assert_cmphex (cp_annotation_get_color (marker), ==, cp_annotation_get_palette_color (2));

  /* A range selected on the ruler, then N: a note on it. */
  cp_view_state_set_time_selection (view, duration / 2, duration / 2 + duration / 10);
  g_assert_true (gtk_widget_activate_action (timeline, "win.add-note", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (notes)), ==, 2);
  note = nth (notes, 1);
  g_assert_cmpint (cp_annotation_get_kind (note), ==, CP_ANNOTATION_NOTE);
  g_assert_cmpint (cp_annotation_get_start (note), ==, duration / 2);
  g_assert_cmpint (cp_annotation_get_end (note), ==, duration / 2 + duration / 10);
  cp_ui_screenshot (GTK_WIDGET (window), "note-popover.png");
  write_note (window, "Why does the GPU wait here?", 1);
  cp_view_state_clear_time_selection (view);

  /* The timeline draws both, with their titles. */
  marks = cp_view_state_get_marks (view, &n_marks);
  g_assert_cmpuint (n_marks, ==, 2);
  g_assert_cmpstr (marks[0].label, ==, "Warm-up ends here");
  g_assert_cmpstr (marks[1].label, ==, "Why does the GPU wait here?");
  g_assert_cmphex (marks[0].rgba, ==, cp_annotation_get_palette_color (2));

  /* A finding's evidence, pinned in one click (the Findings page's button
   * activates this). */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.pin-evidence", "(su)", "input-bound", 1));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (notes)), ==, 3);
  pinned = find_text (notes, "Input-bound");
  g_assert_nonnull (pinned);
  g_assert_cmpstr (cp_annotation_get_rule (pinned), ==, "input-bound");

  /* The Notes page lists them; activating one shows it. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-notes", NULL));
  cp_ui_wait_for (cp_ui_screen_shows, (gpointer) "Why does the GPU wait here?", "the note in the Notes page");
  cp_view_state_fit_all (view);
  cp_notes_pane_activate (CP_NOTES_PANE (notes_pane), cp_annotations_find (notes, note));
  g_assert_cmpint (cp_view_state_get_visible_start (view), <=, cp_annotation_get_start (note));
  g_assert_cmpint (cp_view_state_get_visible_end (view), >=, cp_annotation_get_end (note));
  g_assert_cmpint (cp_view_state_get_visible_end (view) - cp_view_state_get_visible_start (view), <, duration / 2);
  cp_view_state_fit_all (view);
  cp_ui_screenshot (GTK_WIDGET (window), "notes-page.png");

  /* Saved beside the capture soon after. */
  saved.n = 3;
  cp_ui_wait_for (saved_cond, &saved, "the notes saved beside the capture");

  /* Export Report: the dialog, the worker, the toast. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export-report", NULL));
  {
    GtkWidget *dialog = find_toplevel (CP_TYPE_EXPORT_DIALOG);
    g_autoptr(GFile) out = g_file_new_for_path (report);
    CpReportOptions o;

    g_assert_nonnull (dialog);
    cp_report_options_init (&o);
    o.width = 1000;
    o.scale = 2;
    o.theme = CP_THEME_DARK;
    cp_export_dialog_set_options (CP_EXPORT_DIALOG (dialog), &o);
    cp_export_dialog_set_file (CP_EXPORT_DIALOG (dialog), out);
    cp_ui_screenshot (dialog, "export-dialog.png");
    cp_export_dialog_confirm (CP_EXPORT_DIALOG (dialog));
  }
  cp_ui_wait_for (cp_ui_screen_shows, (gpointer) "Report saved as", "the report's toast");
  g_assert_true (g_file_test (report, G_FILE_TEST_EXISTS));
  g_assert_null (find_toplevel (CP_TYPE_EXPORT_DIALOG));
  {
    cairo_surface_t *png = cairo_image_surface_create_from_png (report);

    g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
    g_assert_cmpint (cairo_image_surface_get_width (png), ==, 2000);
    cairo_surface_destroy (png);
  }

  /* `chokepoint report` with the same choices, reading the notes the window
   * saved, writes the same bytes. */
  {
    g_autofree char *exe = g_build_filename (g_getenv ("CP_BUILD_ROOT"), "src", "chokepoint", NULL);
    const char *argv[] = { exe, "report", capture, "-o", cli_report, "--width", "1000", "--scale", "2",
                           "--theme", "dark", NULL };
    g_auto(GStrv) envp = g_get_environ ();
    g_autoptr(GError) error = NULL;
    g_autofree char *a = NULL, *b = NULL;
    gsize la, lb;
    int status;

    envp = g_environ_unsetenv (envp, "DISPLAY");
    envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
    g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                                 NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (g_file_get_contents (report, &a, &la, NULL));
    g_assert_true (g_file_get_contents (cli_report, &b, &lb, NULL));
    g_assert_cmpuint (la, ==, lb);
    g_assert_true (memcmp (a, b, la) == 0);
  }

  /* Deleting from the Notes page; closing saves at once. */
  cp_annotations_remove (notes, note);
  close_window (window);
  saved.n = 2;
  g_assert_true (saved_cond (&saved));

  /* A new window finds them again. */
  window = open_window (capture);
  notes = annotations_of (window);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (notes)), ==, 2);
  g_assert_nonnull (find_text (notes, "Warm-up ends here"));
  pinned = find_text (notes, "Input-bound");
  g_assert_nonnull (pinned);
  g_assert_false (cp_annotation_is_detached (pinned));
  close_window (window);
}

static void
test_damaged_sidecar (void)
{
  static const char garbage[] = "{\"format\": \"chokepoint-annotations\", \"schema_version\": 1, \"annotati";
  g_autofree char *capture = generate ("damaged.pt.trace.json");
  g_autofree char *sidecar = g_strconcat (capture, CP_SIDECAR_SUFFIX, NULL);
  g_autofree char *kept = g_strconcat (sidecar, CP_SIDECAR_DAMAGED_SUFFIX, NULL);
  g_autofree char *text = NULL;
  CpWindow *window;
  Saved saved = { sidecar, 1 };

  g_assert_true (g_file_set_contents (sidecar, garbage, -1, NULL));
  window = open_window (capture);
  /* Told, with the file named and where it was kept. */
  cp_ui_wait_for (cp_ui_screen_shows, (gpointer) "not valid JSON", "the damaged file's message");
  g_assert_true (cp_ui_screen_shows ((gpointer) "damaged.pt.trace.json.chokepoint.json.damaged"));
  g_assert_true (g_file_get_contents (kept, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, garbage);

  /* New notes go to a fresh file. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.pin-evidence", "(su)", "input-bound", 0));
  cp_ui_wait_for (saved_cond, &saved, "a fresh annotations file");
  gtk_window_close (GTK_WINDOW (window));
  /* The message dialog, if still open, goes too. */
  cp_ui_close_all ();
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
  /* Fallback sidecars stay in the test's folder; the report's date is fixed
   * so that the window's and the command line's images can be compared. */
  g_setenv ("XDG_DATA_HOME", tmpdir, TRUE);
  g_setenv ("SOURCE_DATE_EPOCH", SOURCE_DATE, TRUE);
  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/ui/notes/add-pin-save-export", test_notes_and_export);
  g_test_add_func ("/ui/notes/damaged-sidecar", test_damaged_sidecar);

  status = g_test_run ();
  g_object_unref (app);
  cp_test_rm_rf (tmpdir);
  g_free (tmpdir);
  return status;
}
