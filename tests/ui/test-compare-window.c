/* test-compare-window.c: the comparison window on a cp-gen pair
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens a generated pair with a known change (flash_fwd_kernel twice as slow
 * in B, `cp-gen --slow-kernel`) through the application action "compare"
 * (ss), as the History window does, and checks the window against
 * tests/compare-count.py and cp-gen's truth: the step times and their
 * change on the Compare page, the Kernels table's top row, its filter, the
 * two timelines locked at the typical steps (and not when unlocked),
 * another typical step, the matched slices outlined on both sides when one
 * is selected, the exported report, kernels by launching op and host ops
 * by call path (against compare-count.py); the findings that changed
 * (against cp-gen's truth); a capture dropped with Ctrl or Shift held
 * (pressed through the X server with xdotool) compared with the shown one;
 * then a damaged B, a pair without a kernel in common and a cancelled read
 * each get their message on the status page. With CP_SCREENSHOT_DIR set it writes the pages light
 * and dark. Run by run-ui-test.sh (skipped without a display).
 */

#include "config.h"

#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <string.h>

#include "cp-application.h"
#include "cp-compare-window.h"
#include "cp-format.h"
#include "cp-test-util.h"
#include "cp-timeline-view.h"
#include "cp-ui-test-util.h"
#include "cp-window.h"
#include "render/cp-time-format.h"

static CpApplication *app;
static char *tmpdir;

static char *
generate_scenario (const char *name,
                   const char *scenario,
                   const char *extra1,
                   const char *extra2)
{
  g_autofree char *file = g_strconcat (name, ".json", NULL);
  g_autofree char *truth_file = g_strconcat (name, ".json.truth.json", NULL);
  char *path = g_build_filename (tmpdir, file, NULL);
  g_autofree char *truth = g_build_filename (tmpdir, truth_file, NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", scenario, "--out", path, "--truth", truth,
                         "--steps", "6", "-q", extra1, extra2, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return path;
}

static char *
generate (const char *name,
          const char *extra1,
          const char *extra2)
{
  return generate_scenario (name, "healthy", extra1, extra2);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* compare-count.py's figures for the pair; NULL without python3. */
static JsonNode *
oracle (const char *a,
        const char *b)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "compare-count.py", NULL);
  const char *argv[] = { python, script, a, b, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (python == NULL)
    return NULL;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("compare-count.py failed on %s and %s: %s", a, b, err);
  return parse_json (out);
}

static JsonObject *
truth_of (const char *path)
{
  g_autofree char *truth = g_strconcat (path, ".truth.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  g_file_get_contents (truth, &text, NULL, &error);
  g_assert_no_error (error);
  node = parse_json (text);
  return json_object_ref (json_node_get_object (node));
}

static CpCompareWindow *
find_compare_window (void)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (CP_IS_COMPARE_WINDOW (l->data))
      return l->data;
  return NULL;
}

static gboolean
window_exists (gpointer data)
{
  return find_compare_window () != NULL;
}

static gboolean
not_loading (gpointer data)
{
  return g_strcmp0 (cp_compare_window_get_state (data), "loading") != 0;
}

/* The window the action opens, once it is done reading. */
static CpCompareWindow *
compare_through_action (const char *a,
                        const char *b)
{
  CpCompareWindow *window;

  g_action_group_activate_action (G_ACTION_GROUP (app), "compare", g_variant_new ("(ss)", a, b));
  cp_ui_wait_for (window_exists, NULL, "the comparison window");
  window = find_compare_window ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  cp_ui_wait_for (not_loading, window, "both captures to be read");
  return window;
}

static gboolean
shown_cond (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0;
}

static void
show_page (CpCompareWindow *window,
           const char      *name)
{
  AdwViewStack *stack = ADW_VIEW_STACK (cp_ui_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  GtkWidget *page;

  adw_view_stack_set_visible_child_name (stack, name);
  page = adw_view_stack_get_visible_child (stack);
  cp_ui_wait_for (shown_cond, page, "the page to be shown");
  cp_ui_wait_frame (page);
}

static CpViewState *
view_of (CpCompareWindow *window,
         guint            side)
{
  return cp_timeline_view_get_view_state (CP_TIMELINE_VIEW (cp_compare_window_get_timeline (window, side)));
}

static gint64
typical_start (CpCompareWindow *window,
               guint            side)
{
  CpComparison *c = cp_compare_window_get_comparison (window);
  CpAnalysis *analysis = side == 0 ? cp_comparison_get_a (c) : cp_comparison_get_b (c);
  const CpStepStats *steps = cp_analysis_get_steps (analysis, NULL);

  return steps[cp_comparison_get_typical_step (c, side)].start;
}

/* A kernel launch whose name holds text, on a kernel lane. */
static CpSliceRef
find_kernel (CpTrace    *trace,
             const char *text)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);

      if (cp_lane_get_kind (lane) != CP_LANE_KERNEL)
        continue;
      for (guint i = 0; i < s->n; i++)
        if (strstr (cp_trace_get_string (trace, cp_slices_get_name (s, i)), text) != NULL)
          return (CpSliceRef) { l, i };
    }
  g_error ("No kernel holds %s", text);
  return CP_SLICE_REF_NONE;
}

static gboolean
timelines_ready (gpointer data)
{
  return cp_timeline_view_is_ready (CP_TIMELINE_VIEW (cp_compare_window_get_timeline (data, 0))) &&
         cp_timeline_view_is_ready (CP_TIMELINE_VIEW (cp_compare_window_get_timeline (data, 1)));
}

typedef struct
{
  GListModel *model;
  guint       n;
} RowsWait;

static gboolean
rows_are (gpointer data)
{
  RowsWait *w = data;

  return g_list_model_get_n_items (w->model) == w->n;
}

static char *
row_key (GListModel *model,
         guint       position)
{
  g_autoptr(GObject) row = g_list_model_get_item (model, position);
  char *key = NULL;

  g_object_get (row, "key", &key, NULL);
  return key;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static void
set_flag (GObject    *object,
          GParamSpec *pspec,
          gpointer    data)
{
  *(gboolean *) data = TRUE;
}

typedef struct
{
  GtkWidget  *root;
  const char *name;
} NamedWait;

static gboolean
named_mapped (gpointer data)
{
  NamedWait *w = data;
  GtkWidget *found = cp_ui_find_named (w->root, w->name);

  return found != NULL && gtk_widget_get_mapped (found);
}

/* The widget named name under window, once it shows. */
static GtkWidget *
wait_named (CpCompareWindow *window,
            const char      *name)
{
  NamedWait w = { GTK_WIDGET (window), name };
  g_autofree char *what = g_strdup_printf ("“%s” to show", name);

  cp_ui_wait_for (named_mapped, &w, what);
  return cp_ui_find_named (GTK_WIDGET (window), name);
}

/* The key of compare-count.py's group (kernels, paths, ops) whose time
 * grew most from A to B. */
static const char *
most_grown (JsonNode   *o,
            const char *group)
{
  JsonObject *items = json_object_get_object_member (json_node_get_object (o), group);
  g_autoptr(GList) keys = json_object_get_members (items);
  const char *grown = NULL;
  gint64 most = G_MININT64;

  for (GList *l = keys; l != NULL; l = l->next)
    {
      JsonObject *it = json_object_get_object_member (items, l->data);
      gint64 d = json_object_get_int_member (it, "b_total_ns") - json_object_get_int_member (it, "a_total_ns");

      if (d > most)
        {
          most = d;
          grown = l->data;
        }
    }
  return grown;
}

static void
test_slow_kernel (void)
{
  g_autofree char *a = generate ("healthy", NULL, NULL);
  g_autofree char *b = generate ("slow-flash", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  g_autoptr(JsonNode) o = oracle (a, b);
  g_autoptr(JsonObject) truth = truth_of (b);
  JsonObject *slow = json_object_get_object_member (truth, "slow_kernel");
  const char *slow_text = json_object_get_string_member (slow, "text");
  JsonObject *kernels, *slow_counts = NULL;
  const char *slow_key = NULL;
  g_autoptr(GList) keys = NULL;
  CpCompareWindow *window;
  gint64 mean_a, mean_b, anchor_a, anchor_b;
  g_autofree char *fa = NULL, *fb = NULL, *fd = NULL, *text = NULL;
  GtkColumnView *table;
  GListModel *rows;
  guint n_filtered = 0;
  RowsWait wait;

  if (o == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  mean_a = json_object_get_int_member (json_object_get_object_member (json_node_get_object (o), "a"), "mean_step_ns");
  mean_b = json_object_get_int_member (json_object_get_object_member (json_node_get_object (o), "b"), "mean_step_ns");
  kernels = json_object_get_object_member (json_node_get_object (o), "kernels");
  keys = json_object_get_members (kernels);
  for (GList *l = keys; l; l = l->next)
    {
      if (strstr (l->data, slow_text) != NULL)
        {
          g_assert_null (slow_key);  /* one key holds the slowed kernel */
          slow_key = l->data;
          slow_counts = json_object_get_object_member (kernels, l->data);
        }
      if (strstr (l->data, "flash_fwd") != NULL)
        n_filtered++;
    }
  g_assert_nonnull (slow_key);
  g_assert_cmpint (json_object_get_int_member (slow_counts, "b_total_ns"), ==,
                   json_object_get_int_member (slow, "total_ns"));

  window = compare_through_action (a, b);
  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "content");

  /* The Compare page: A → B, and the change, as the oracle counts them. */
  show_page (window, "compare");
  fa = cp_ui_format_duration (mean_a);
  fb = cp_ui_format_duration (mean_b);
  text = g_strdup_printf ("%s → %s", fa, fb);
  cp_ui_wait_label_text (GTK_WIDGET (window), "step-time", text);
  g_assert_cmpint (mean_b, >, mean_a);
  fd = cp_ui_format_duration (mean_b - mean_a);
  g_free (text);
  text = g_strdup_printf ("+%s", fd);
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (cp_ui_find_named (GTK_WIDGET (window), "step-delta"))),
                                   text));
  cp_ui_screenshot (GTK_WIDGET (window), "compare-page");

  /* The Kernels table: the slowed kernel first (largest delta), and the
   * filter keeps the keys that hold its text. */
  show_page (window, "kernels");
  table = GTK_COLUMN_VIEW (cp_ui_find_named (GTK_WIDGET (window), "kernels"));
  rows = G_LIST_MODEL (gtk_column_view_get_model (table));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, g_list_length (keys));
  {
    g_autofree char *first = row_key (rows, 0);

    g_assert_cmpstr (first, ==, slow_key);
  }
  gtk_editable_set_text (GTK_EDITABLE (cp_ui_find_named (GTK_WIDGET (window), "kernels-filter")), "FLASH_FWD");
  wait.model = rows;
  wait.n = n_filtered;
  cp_ui_wait_for (rows_are, &wait, "the filtered kernels");
  cp_ui_screenshot (GTK_WIDGET (window), "compare-kernels");
  /* Activating a row outlines its launches on both timelines and shows them. */
  {
    g_autofree char *first = row_key (rows, 0);
    guint n_a, n_b;

    g_assert_cmpstr (first, ==, slow_key);
    g_signal_emit_by_name (table, "activate", 0);
    cp_view_state_get_search_matches (view_of (window, 0), &n_a);
    cp_view_state_get_search_matches (view_of (window, 1), &n_b);
    g_assert_cmpint (n_a, ==, json_object_get_int_member (slow_counts, "a_count"));
    g_assert_cmpint (n_b, ==, json_object_get_int_member (slow_counts, "b_count"));
    g_assert_cmpstr (adw_view_stack_get_visible_child_name (ADW_VIEW_STACK (cp_ui_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK))),
                     ==, "timelines");
  }

  /* Both timelines start at their typical step. */
  show_page (window, "timelines");
  anchor_a = typical_start (window, 0);
  anchor_b = typical_start (window, 1);
  g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 0)), ==, anchor_a);
  g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 1)), ==, anchor_b);
  /* One time axis: both rulers count from the typical step. */
  g_assert_cmpint (cp_view_state_get_ruler_origin (view_of (window, 0)), ==, anchor_a);
  g_assert_cmpint (cp_view_state_get_ruler_origin (view_of (window, 1)), ==, anchor_b);
  {
    g_autofree char *at = cp_time_format_offset (anchor_b);
    g_autofree char *label = g_strdup_printf ("step starts at %s", at);

    cp_ui_wait_label_text (GTK_WIDGET (window), "anchor-b", label);
  }

  /* Locked: moving A moves B by as much from its own typical step. */
  g_assert_true (cp_compare_window_get_locked (window));
  cp_view_state_set_visible_range (view_of (window, 0), anchor_a + 1000000, anchor_a + 6000000);
  g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 1)), ==, anchor_b + 1000000);
  g_assert_cmpint (cp_view_state_get_visible_end (view_of (window, 1)), ==, anchor_b + 6000000);
  /* And B moves A. */
  cp_view_state_set_visible_range (view_of (window, 1), anchor_b + 2000000, anchor_b + 4000000);
  g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 0)), ==, anchor_a + 2000000);
  /* Unlocked: each on its own. */
  cp_compare_window_set_locked (window, FALSE);
  cp_view_state_set_visible_range (view_of (window, 0), anchor_a, anchor_a + 3000000);
  g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 1)), ==, anchor_b + 2000000);
  cp_compare_window_set_locked (window, TRUE);
  g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 1)), ==, anchor_b);

  /* Another typical step on B, through its spin button: both align there. */
  {
    GtkWidget *spin = cp_ui_find_named (GTK_WIDGET (window), "typical-b");
    CpComparison *c = cp_compare_window_get_comparison (window);
    const CpStepStats *steps_b = cp_analysis_get_steps (cp_comparison_get_b (c), NULL);
    guint other = cp_comparison_get_typical_step (c, 1) == 0 ? 1 : 0;

    gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), other + 1);
    g_assert_cmpint (cp_comparison_get_typical_step (c, 1), ==, other);
    g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 1)), ==, steps_b[other].start);
    g_assert_cmpint (cp_view_state_get_ruler_origin (view_of (window, 1)), ==, steps_b[other].start);
    g_assert_cmpint (cp_view_state_get_visible_start (view_of (window, 0)), ==, anchor_a);
  }

  /* A launch of the slowed kernel selected on A: every launch of it is
   * outlined on both sides, as many as the oracle counts. */
  {
    CpTrace *trace_a = cp_analysis_get_trace (cp_comparison_get_a (cp_compare_window_get_comparison (window)));
    CpSliceRef ref = find_kernel (trace_a, slow_text);
    guint n_a, n_b;

    cp_view_state_set_selected (view_of (window, 0), ref);
    cp_view_state_get_search_matches (view_of (window, 0), &n_a);
    cp_view_state_get_search_matches (view_of (window, 1), &n_b);
    g_assert_cmpint (n_a, ==, json_object_get_int_member (slow_counts, "a_count"));
    g_assert_cmpint (n_b, ==, json_object_get_int_member (slow_counts, "b_count"));
    g_assert_cmpint (n_b, ==, json_object_get_int_member (slow, "count"));
    cp_ui_wait_for (timelines_ready, window, "both timelines' level of detail");
    cp_ui_wait_frame (cp_compare_window_get_timeline (window, 1));
    cp_ui_screenshot (GTK_WIDGET (window), "compare-timelines");
    cp_view_state_set_selected (view_of (window, 0), CP_SLICE_REF_NONE);
    cp_view_state_get_search_matches (view_of (window, 1), &n_b);
    g_assert_cmpuint (n_b, ==, 0);
  }

  /* Kernels by launching op: worked out when first asked for, as
   * compare-count.py counts them, the op launching the slowed kernel
   * first; and back by name. */
  show_page (window, "kernels");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (cp_ui_find_named (GTK_WIDGET (window), "kernels-by-op-button")),
                                TRUE);
  table = GTK_COLUMN_VIEW (wait_named (window, "kernels-by-op"));
  rows = G_LIST_MODEL (gtk_column_view_get_model (table));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==,
                    json_object_get_size (json_object_get_object_member (json_node_get_object (o), "ops")));
  {
    g_autofree char *first = row_key (rows, 0);

    g_assert_cmpstr (first, ==, most_grown (o, "ops"));
  }
  cp_ui_screenshot (GTK_WIDGET (window), "compare-kernels-by-op");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (cp_ui_find_named (GTK_WIDGET (window), "kernels-by-name-button")),
                                TRUE);
  wait_named (window, "kernels");
  g_assert_false (gtk_widget_get_mapped (cp_ui_find_named (GTK_WIDGET (window), "kernels-by-op")));

  /* Host ops by call path: every path compare-count.py finds, the one
   * that grew most first; a row outlines its calls on both sides. */
  show_page (window, "host-ops");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (cp_ui_find_named (GTK_WIDGET (window), "host-ops-by-path-button")),
                                TRUE);
  table = GTK_COLUMN_VIEW (wait_named (window, "host-op-paths"));
  rows = G_LIST_MODEL (gtk_column_view_get_model (table));
  {
    JsonObject *paths = json_object_get_object_member (json_node_get_object (o), "paths");
    const char *grown = most_grown (o, "paths");
    g_autofree char *first = row_key (rows, 0);
    guint n_a, n_b;

    g_assert_cmpuint (g_list_model_get_n_items (rows), ==, json_object_get_size (paths));
    g_assert_cmpstr (first, ==, grown);
    cp_ui_screenshot (GTK_WIDGET (window), "compare-call-paths");
    g_signal_emit_by_name (table, "activate", 0);
    cp_view_state_get_search_matches (view_of (window, 0), &n_a);
    cp_view_state_get_search_matches (view_of (window, 1), &n_b);
    g_assert_cmpint (n_a, ==, json_object_get_int_member (json_object_get_object_member (paths, grown), "a_count"));
    g_assert_cmpint (n_b, ==, json_object_get_int_member (json_object_get_object_member (paths, grown), "b_count"));
  }

  /* Export draws the comparison report. */
  {
    g_autofree char *png = g_build_filename (tmpdir, "comparison.png", NULL);
    g_autoptr(GdkTexture) texture = NULL;
    g_autoptr(GError) error = NULL;
    gboolean written = FALSE;
    gulong id = g_signal_connect (window, "notify::title", G_CALLBACK (set_flag), &written);

    /* The window tells the end of the export with notify::title. */
    gtk_widget_activate_action (GTK_WIDGET (window), "compare.export-to", "s", png);
    cp_ui_wait_for (flag_set, &written, "the exported report");
    g_signal_handler_disconnect (window, id);
    texture = gdk_texture_new_from_filename (png, &error);
    g_assert_no_error (error);
    g_assert_cmpint (gdk_texture_get_width (texture), ==, 1600);
  }

  /* The same in the dark style. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  show_page (window, "compare");
  cp_ui_screenshot (GTK_WIDGET (window), "compare-page-dark");
  show_page (window, "timelines");
  cp_ui_wait_for (timelines_ready, window, "both timelines' level of detail");
  cp_ui_screenshot (GTK_WIDGET (window), "compare-timelines-dark");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* A damaged B: the status page names it and says why; nothing else opens. */
static void
test_damaged (void)
{
  g_autofree char *a = generate ("healthy", NULL, NULL);
  g_autofree char *damaged = g_build_filename (tmpdir, "damaged.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;
  CpCompareWindow *window;

  g_file_get_contents (a, &contents, &length, &error);
  g_assert_no_error (error);
  /* Cut before the first event: a capture cut later is read up to the cut
   * (with a warning), this one cannot be. */
  g_assert_cmpuint (length, >, 120);
  g_file_set_contents (damaged, contents, 120, &error);
  g_assert_no_error (error);

  window = compare_through_action (a, damaged);
  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "error");
  g_assert_null (cp_compare_window_get_comparison (window));
  g_assert_nonnull (cp_compare_window_get_error (window));
  g_assert_nonnull (strstr (cp_compare_window_get_error (window), "damaged.json"));
  g_assert_true (cp_ui_label_tree_has (GTK_WIDGET (window), cp_compare_window_get_error (window)));
  cp_ui_screenshot (GTK_WIDGET (window), "compare-damaged");
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* Two steps with one kernel each, named kernel. */
static char *
write_one_kernel (const char *name,
                  const char *kernel)
{
  g_autofree char *text = g_strdup_printf (
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"cat\": \"user_annotation\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
    " {\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 500, \"args\": {\"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"cat\": \"user_annotation\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 1000},\n"
    " {\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1020, \"dur\": 500, \"args\": {\"device\": 0, \"stream\": 7}}\n"
    "]}\n", kernel, kernel);
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

/* Two captures without a kernel in common: the status page says so. */
static void
test_not_comparable (void)
{
  g_autofree char *a = write_one_kernel ("kernel-one.json", "kernel_one");
  g_autofree char *b = write_one_kernel ("kernel-two.json", "kernel_two");
  CpCompareWindow *window = compare_through_action (a, b);

  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "error");
  g_assert_null (cp_compare_window_get_comparison (window));
  g_assert_nonnull (strstr (cp_compare_window_get_error (window), "No kernel is found on both sides"));
  g_assert_true (cp_ui_label_tree_has (GTK_WIDGET (window), cp_compare_window_get_error (window)));
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* Cancel while reading: the window says the comparison was cancelled. */
static void
test_cancel (void)
{
  g_autofree char *a = generate ("healthy", NULL, NULL);
  g_autofree char *b = generate ("slow-flash", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  CpCompareWindow *window;

  g_action_group_activate_action (G_ACTION_GROUP (app), "compare", g_variant_new ("(ss)", a, b));
  window = find_compare_window ();
  g_assert_nonnull (window);
  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "loading");
  /* Before the main loop runs again: neither side can have finished. */
  gtk_widget_activate_action (GTK_WIDGET (window), "compare.cancel", NULL);
  cp_ui_wait_for (not_loading, window, "the cancelled reads to end");
  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "error");
  g_assert_null (cp_compare_window_get_comparison (window));
  g_assert_cmpstr (cp_compare_window_get_error (window), ==, "Reading the captures was cancelled.");
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* Closed while reading: the reads are cancelled, nothing is shown on the
 * gone window, and it is finalized once they end. */
static void
test_close_while_loading (void)
{
  g_autofree char *a = generate ("healthy", NULL, NULL);
  g_autofree char *b = generate ("slow-flash", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  CpCompareWindow *window;

  g_action_group_activate_action (G_ACTION_GROUP (app), "compare", g_variant_new ("(ss)", a, b));
  window = find_compare_window ();
  g_assert_nonnull (window);
  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "loading");
  cp_ui_destroy_window (GTK_WINDOW (window));
  g_assert_null (find_compare_window ());
}

/* The subtitle of the Compare page's row for a finding; NULL without one. */
static const char *
finding_row (CpCompareWindow *window,
             const char      *rule_id)
{
  g_autofree char *name = g_strconcat ("finding-", rule_id, NULL);
  GtkWidget *row = cp_ui_find_named (GTK_WIDGET (window), name);

  return row != NULL ? adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) : NULL;
}

/* A healthy run against the same run starved by its DataLoader (cp-gen's
 * input-bound scenario): the Compare page lists what cp-gen's truth
 * plants in B as new, and, compared the other way, as gone; the healthy
 * run's truth plants nothing, so nothing is listed as gone first. */
static void
test_findings (void)
{
  g_autofree char *a = generate ("healthy", NULL, NULL);
  g_autofree char *b = generate_scenario ("input-bound", "input-bound", NULL, NULL);
  g_autoptr(JsonObject) truth_a = truth_of (a);
  g_autoptr(JsonObject) truth_b = truth_of (b);
  g_autoptr(GPtrArray) planted = g_ptr_array_new ();
  CpCompareWindow *window;

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (truth_a, "expect")), ==, 0);
  for (guint k = 0; k < 2; k++)
    {
      JsonArray *ids = json_object_get_array_member (truth_b, k == 0 ? "expect" : "related");

      for (guint i = 0; i < json_array_get_length (ids); i++)
        g_ptr_array_add (planted, (gpointer) json_array_get_string_element (ids, i));
    }
  g_assert_cmpuint (planted->len, >, 0);

  window = compare_through_action (a, b);
  g_assert_cmpstr (cp_compare_window_get_state (window), ==, "content");
  show_page (window, "compare");
  g_assert_nonnull (cp_ui_find_named (GTK_WIDGET (window), "finding-changes"));
  for (guint i = 0; i < planted->len; i++)
    {
      const char *subtitle = finding_row (window, g_ptr_array_index (planted, i));

      if (subtitle == NULL)
        g_error ("no row for %s, planted in B", (const char *) g_ptr_array_index (planted, i));
      g_assert_true (g_str_has_prefix (subtitle, "New in B · "));
    }
  g_assert_cmpstr (finding_row (window, "input-bound"), ==, "New in B · High");
  /* Nothing the healthy run has is gone in B. */
  {
    GtkWidget *list = cp_ui_find_named (GTK_WIDGET (window), "finding-changes");

    for (GtkWidget *row = gtk_widget_get_first_child (list); row; row = gtk_widget_get_next_sibling (row))
      g_assert_false (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "Gone in B"));
  }
  cp_ui_screenshot (GTK_WIDGET (window), "compare-findings");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  cp_ui_wait_frame (GTK_WIDGET (window));
  cp_ui_screenshot (GTK_WIDGET (window), "compare-findings-dark");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
  cp_ui_destroy_window (GTK_WINDOW (window));

  /* The other way round: gone. */
  window = compare_through_action (b, a);
  show_page (window, "compare");
  for (guint i = 0; i < planted->len; i++)
    g_assert_true (g_str_has_prefix (finding_row (window, g_ptr_array_index (planted, i)), "Gone in B · was "));
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* Runs xdotool (XTEST: the X server sees a real key) with one command
 * and key; FALSE when it cannot. */
static gboolean
xdotool (const char *command,
         const char *key)
{
  g_autofree char *program = g_find_program_in_path ("xdotool");
  const char *argv[] = { program, command, key, NULL };
  int status = 0;

  if (program == NULL ||
      !g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, NULL, NULL, &status, NULL))
    return FALSE;
  return g_spawn_check_wait_status (status, NULL);
}

typedef struct
{
  GtkWidget       *widget;
  GdkModifierType  mask;
  gboolean         held;
} ModifierWait;

static gboolean
modifier_is (gpointer data)
{
  ModifierWait *w = data;
  GdkSeat *seat = gdk_display_get_default_seat (gtk_widget_get_display (w->widget));
  GdkDevice *keyboard = seat != NULL ? gdk_seat_get_keyboard (seat) : NULL;
  gboolean held = keyboard != NULL && (gdk_device_get_modifier_state (keyboard) & w->mask) != 0;

  return held == w->held;
}

static gboolean
window_loaded (gpointer data)
{
  return cp_window_get_state (data) == CP_WINDOW_LOADED;
}

static gboolean
drop_on (CpWindow *window,
         GFile    *file)
{
  GtkDropTarget *target = cp_ui_find_controller (GTK_WIDGET (window), GTK_TYPE_DROP_TARGET);
  g_auto(GValue) value = G_VALUE_INIT;
  GSList *list = g_slist_append (NULL, file);
  gboolean accepted = FALSE;

  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
  g_slist_free (list);
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
  return accepted;
}

static guint
n_windows (void)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
}

/* A capture dropped on a window that shows another, with Ctrl or with
 * Shift held (the modifiers the HIG gives to "do something else with the
 * drop"): the two are compared, the shown one as A. Without a modifier
 * the dropped capture just opens, in a window of its own. The keys are
 * pressed through the X server, as a person's are, since GTK 4.8's drop
 * carries no modifiers and the window reads them from the keyboard. */
static void
test_modifier_drop (void)
{
  g_autofree char *a = generate ("healthy", NULL, NULL);
  g_autofree char *b = generate ("slow-flash", "--slow-kernel=flash_fwd_kernel", "--slow-factor=2");
  g_autoptr(GFile) file_a = g_file_new_for_path (a);
  g_autoptr(GFile) file_b = g_file_new_for_path (b);
  static const char *const keys[] = { "Control_L", "Shift_L" };
  static const GdkModifierType masks[] = { GDK_CONTROL_MASK, GDK_SHIFT_MASK };
  CpWindow *window;

  /* By name: the X11 header is not needed for this one check. */
  if (g_strcmp0 (G_OBJECT_TYPE_NAME (gdk_display_get_default ()), "GdkX11Display") != 0)
    {
      g_test_skip ("pressing a key through the server needs an X11 display (Xvfb)");
      return;
    }
  if (!xdotool ("keyup", "Control_L"))
    {
      g_test_skip ("xdotool is missing (apt-get install xdotool)");
      return;
    }

  window = cp_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file_a);
  cp_ui_wait_for (window_loaded, window, "A to be shown");

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      ModifierWait held = { GTK_WIDGET (window), masks[k], TRUE };
      ModifierWait released = { GTK_WIDGET (window), masks[k], FALSE };
      CpCompareWindow *compare;
      g_autofree char *what = g_strdup_printf ("%s to be held", keys[k]);
      g_autofree char *uri_a = g_file_get_uri (file_a);
      g_autofree char *uri_b = g_file_get_uri (file_b);

      g_assert_true (xdotool ("keydown", keys[k]));
      cp_ui_wait_for (modifier_is, &held, what);
      g_assert_true (drop_on (window, file_b));
      g_assert_true (xdotool ("keyup", keys[k]));
      cp_ui_wait_for (modifier_is, &released, "the key to be released");
      cp_ui_wait_for (window_exists, NULL, "the comparison window");
      compare = find_compare_window ();
      cp_ui_wait_for (not_loading, compare, "both captures to be read");
      g_assert_cmpstr (cp_compare_window_get_state (compare), ==, "content");
      {
        CpComparison *c = cp_compare_window_get_comparison (compare);
        g_autofree char *got_a = g_file_get_uri (cp_trace_get_file (cp_analysis_get_trace (cp_comparison_get_a (c))));
        g_autofree char *got_b = g_file_get_uri (cp_trace_get_file (cp_analysis_get_trace (cp_comparison_get_b (c))));

        g_assert_cmpstr (got_a, ==, uri_a);
        g_assert_cmpstr (got_b, ==, uri_b);
      }
      /* The shown capture stays. */
      g_assert_true (g_file_equal (cp_window_get_file (window), file_a));
      cp_ui_destroy_window (GTK_WINDOW (compare));
    }

  /* No modifier: B opens by itself, and nothing is compared. */
  {
    guint before = n_windows ();

    g_assert_true (drop_on (window, file_b));
    cp_ui_drain ();
    g_assert_null (find_compare_window ());
    g_assert_cmpuint (n_windows (), ==, before + 1);
    g_assert_true (g_file_equal (cp_window_get_file (window), file_a));
  }
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
  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/compare-window/slow-kernel", test_slow_kernel);
  g_test_add_func ("/compare-window/findings", test_findings);
  g_test_add_func ("/compare-window/modifier-drop", test_modifier_drop);
  g_test_add_func ("/compare-window/damaged", test_damaged);
  g_test_add_func ("/compare-window/not-comparable", test_not_comparable);
  g_test_add_func ("/compare-window/cancel", test_cancel);
  g_test_add_func ("/compare-window/close-while-loading", test_close_while_loading);

  status = g_test_run ();
  g_object_unref (app);
  cp_test_rm_rf (tmpdir);
  g_free (tmpdir);
  return status;
}
