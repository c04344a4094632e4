/* test-roofline-pane.c: the roofline columns and chart of the Kernels page
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens a real H100 capture with recorded shapes in CpWindow: the chart
 * draws a dot per kernel with FLOPs and bytes under the datasheet
 * ceilings, and a click on a dot selects that kernel's row and highlights
 * its slices, as a click in the table does. With CP_SCREENSHOT_DIR set it
 * writes the table and the chart in the light and dark styles. On the same
 * capture, kernel time by module and by code line against
 * tests/source-chain.py. Skips without ../shared/traces.
 */

#include "config.h"

#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <math.h>

#include "cp-application.h"
#include "cp-kernels-pane.h"
#include "cp-roofline-chart.h"
#include "cp-test-util.h"
#include "cp-test-xspace.h"
#include "cp-window.h"
#include "cp-ui-test-util.h"

static CpApplication *app;

static gboolean
analysed (gpointer data)
{
  return cp_window_get_analysis (data) != NULL;
}

static gboolean
shown_cond (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0 && gtk_widget_get_height (data) > 0;
}

/* A window on file, analysed, showing its Kernels page; the page in
 * *kernels. */
static CpWindow *
open_on_kernels (GFile      *file,
                 GtkWidget **kernels)
{
  CpWindow *window = cp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  cp_window_open (window, file);
  cp_ui_wait_for (analysed, window, "the analysis");
  *kernels = cp_ui_find_widget (GTK_WIDGET (window), CP_TYPE_KERNELS_PANE);
  adw_view_stack_set_visible_child (ADW_VIEW_STACK (gtk_widget_get_ancestor (*kernels, ADW_TYPE_VIEW_STACK)),
                                    *kernels);
  cp_ui_wait_for (shown_cond, *kernels, "the Kernels page");
  return window;
}

static guint
n_highlights (CpViewState *view)
{
  guint n = 0;

  cp_view_state_get_highlights (view, &n);
  return n;
}

static void
test_chart (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  CpWindow *window;
  GtkWidget *kernels;
  CpRooflineChart *chart;
  CpAnalysis *analysis;
  CpViewState *view = NULL;
  GtkGesture *click;
  double x = 0, y = 0;
  CpStr name = CP_STR_EMPTY;
  guint n_dots, n_with, n;
  const CpRooflineStats *st;
  g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));

  if (shared == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  path = g_build_filename (shared, "AMD-AGI__TraceLens", "tests", "traces", "h100",
                           "gaunernst_bert-small-uncased__1016001.json.gz", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the BERT H100 capture is missing");
      return;
    }
  file = g_file_new_for_path (path);
  window = open_on_kernels (file, &kernels);
  analysis = cp_window_get_analysis (window);
  cp_ui_wait_frame (kernels);
  g_assert_true (cp_kernels_pane_sort_by (CP_KERNELS_PANE (kernels), "roofline", TRUE));
  cp_ui_screenshot (GTK_WIDGET (window), "roofline-table-light.png");

  cp_kernels_pane_show_roofline (CP_KERNELS_PANE (kernels));
  chart = cp_kernels_pane_get_roofline_chart (CP_KERNELS_PANE (kernels));
  cp_ui_wait_for (shown_cond, chart, "the roofline chart");
  cp_ui_wait_frame (GTK_WIDGET (chart));

  /* One dot per kernel with FLOPs and bytes; the H100's ceilings are known. */
  st = cp_analysis_get_roofline (analysis, FALSE, &n);
  n_with = 0;
  for (guint k = 0; k < n; k++)
    n_with += st[k].achieved_tflops > 0 && st[k].intensity > 0;
  n_dots = cp_roofline_chart_get_n_dots (chart);
  g_assert_cmpuint (n_dots, ==, n_with);
  g_assert_cmpuint (n_dots, >, 0);
  g_assert_true (cp_roofline_chart_has_ceilings (chart));

  /* A click on the dot with the most time selects its kernel's slices. */
  g_assert_true (cp_roofline_chart_get_dot (chart, 0, &x, &y, &name));
  g_assert_cmpint (cp_roofline_chart_dot_at (chart, x, y), ==, 0);
  g_assert_cmpint (cp_roofline_chart_dot_at (chart, -50, -50), ==, -1);
  g_object_get (kernels, "view-state", &view, NULL);
  g_assert_nonnull (view);
  g_assert_cmpuint (n_highlights (view), ==, 0);
  click = cp_ui_find_controller (GTK_WIDGET (chart), GTK_TYPE_GESTURE_CLICK);
  g_signal_emit_by_name (click, "pressed", 1, x, y);
  cp_analysis_collect_kernel_slices (analysis, name, refs);
  g_assert_cmpuint (refs->len, >, 0);
  g_assert_cmpuint (n_highlights (view), ==, refs->len);
  cp_ui_screenshot (GTK_WIDGET (window), "roofline-chart-light.png");

  if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      cp_ui_screenshot (GTK_WIDGET (window), "roofline-chart-dark.png");
      cp_kernels_pane_show_kernels (CP_KERNELS_PANE (kernels), TRUE);
      cp_ui_screenshot (GTK_WIDGET (window), "roofline-table-dark.png");
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
    }
  g_object_unref (view);
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* A GPU the table does not name, described by its SMs and clock (an A100's):
 * the ceilings are drawn, marked as estimates. */
static void
test_estimated_peaks (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "estimated.xplane.pb", NULL);
  g_autoptr(GFile) file = NULL;
  XpPlane *gpu = xp_plane_new (1, "/device:GPU:0");
  CpWindow *window;
  GtkWidget *kernels;
  CpRooflineChart *chart;
  CpPeakSource source;
  double tflops, bw;

  xp_plane_stat (gpu, xp_stat_str (gpu, "gpu_device_name", "NVIDIA Test GA100"));
  xp_plane_stat (gpu, xp_stat_str (gpu, "device_vendor", "Nvidia"));
  xp_plane_stat (gpu, xp_stat_int (gpu, "core_count", 108));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_major", 8));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_minor", 0));
  xp_plane_stat (gpu, xp_stat_int (gpu, "clock_rate", 1410000));
  xp_plane_stat (gpu, xp_stat_uint (gpu, "memory_bandwidth", G_GUINT64_CONSTANT (1555000000000)));
  /* A compute-bound GEMM, a memory-bound elementwise kernel, one between. */
  xp_line (gpu, 7, 0, "Stream #7(Compute)", NULL, 1000,
           xp_event (gpu, "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_tn", 0, G_GINT64_CONSTANT (2000000000),
                     xp_stat_int (gpu, "flops", G_GINT64_CONSTANT (400000000000)),
                     xp_stat_uint (gpu, "bytes_accessed", 200000000), NULL),
           xp_event (gpu, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add_half>",
                     G_GINT64_CONSTANT (2100000000), G_GINT64_CONSTANT (500000000),
                     xp_stat_int (gpu, "flops", 100000000),
                     xp_stat_uint (gpu, "bytes_accessed", 600000000), NULL),
           xp_event (gpu, "ampere_fp16_s1688gemm_fp16_64x64_sliced1x2_ldg8_f2f_tn", G_GINT64_CONSTANT (2700000000),
                     G_GINT64_CONSTANT (1000000000),
                     xp_stat_int (gpu, "flops", G_GINT64_CONSTANT (30000000000)),
                     xp_stat_uint (gpu, "bytes_accessed", 300000000), NULL),
           NULL);
  xp_space_add_plane (space, gpu);
  g_assert_true (g_file_set_contents (path, (const char *) space->data, space->len, NULL));

  file = g_file_new_for_path (path);
  window = open_on_kernels (file, &kernels);
  cp_analysis_get_device_peak (cp_window_get_analysis (window), 0, CP_PRECISION_16, &source, &tflops, &bw);
  g_assert_cmpint (source, ==, CP_PEAK_PROPERTIES);
  cp_kernels_pane_show_roofline (CP_KERNELS_PANE (kernels));
  chart = cp_kernels_pane_get_roofline_chart (CP_KERNELS_PANE (kernels));
  cp_ui_wait_for (shown_cond, chart, "the roofline chart");
  cp_ui_wait_frame (GTK_WIDGET (chart));
  g_assert_cmpuint (cp_roofline_chart_get_n_dots (chart), ==, 3);
  g_assert_true (cp_roofline_chart_has_ceilings (chart));
  g_assert_true (cp_roofline_chart_peaks_estimated (chart));
  cp_ui_screenshot (GTK_WIDGET (window), "roofline-estimated-light.png");
  if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      cp_ui_screenshot (GTK_WIDGET (window), "roofline-estimated-dark.png");
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
    }
  cp_ui_destroy_window (GTK_WINDOW (window));
  cp_test_rm_rf (dir);
}

static gboolean
grouped (gpointer data)
{
  return !cp_kernels_pane_is_grouping (data);
}

/* A JAX capture's Code page: kernel time by the line of code each HLO op
 * came from (tests/test-xla.c checks the figures against hlo-source.py);
 * a row highlights the kernels of that line. */
static void
test_xla_code (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  CpWindow *window;
  GtkWidget *kernels;
  CpViewState *view = NULL;
  g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  CpTrace *trace;

  if (shared == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  path = g_build_filename (shared, "AMD-AGI__TraceLens", "tests", "test_data_jax_te_fused_attn_categorization",
                           "934987a2fc2f.xplane.pb", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the JAX fused-attention capture is missing");
      return;
    }
  file = g_file_new_for_path (path);
  window = open_on_kernels (file, &kernels);
  trace = cp_window_get_trace (window);
  g_object_get (kernels, "view-state", &view, NULL);
  cp_kernels_pane_show_by_source (CP_KERNELS_PANE (kernels), CP_SOURCE_FRAME);
  cp_ui_wait_for (grouped, kernels, "the kernels grouped by code");
  /* Four lines of 12_te_fused_attn.py; line 77's block() takes the most. */
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (CP_KERNELS_PANE (kernels)), ==, 4);
  g_assert_cmpstr (cp_kernels_pane_get_row_name (CP_KERNELS_PANE (kernels), 0), ==,
                   "/workspace/12_te_fused_attn.py(77): _build_layer_stack_fn.<locals>.block");
  cp_kernels_pane_select_row (CP_KERNELS_PANE (kernels), 0);
  cp_analysis_collect_xla_code_slices (cp_window_get_analysis (window),
                                       cp_string_pool_lookup (cp_trace_get_string_pool (trace),
                                                              cp_kernels_pane_get_row_name (CP_KERNELS_PANE (kernels), 0)),
                                       refs);
  g_assert_cmpuint (refs->len, >, 0);
  g_assert_cmpuint (n_highlights (view), ==, refs->len);
  cp_ui_wait_frame (kernels);
  cp_ui_screenshot (GTK_WIDGET (window), "kernels-xla-code-light.png");
  if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
    {
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
      cp_ui_screenshot (GTK_WIDGET (window), "kernels-xla-code-dark.png");
      adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
    }
  g_object_unref (view);
  cp_ui_destroy_window (GTK_WINDOW (window));
}

/* Kernel time by module and by code line on the same capture (recorded
 * with stacks and modules): as many rows as tests/source-chain.py finds,
 * the largest first with the oracle's figure, and a row highlights the
 * slices of its name. */
static void
test_by_source (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *path = NULL, *out = NULL;
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "source-chain.py", NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  CpWindow *window;
  GtkWidget *kernels;
  CpViewState *view = NULL;
  int status = 0;

  if (shared == NULL || python == NULL)
    {
      g_test_skip ("../shared/traces or python3 is missing");
      return;
    }
  path = g_build_filename (shared, "AMD-AGI__TraceLens", "tests", "traces", "h100",
                           "gaunernst_bert-small-uncased__1016001.json.gz", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the BERT H100 capture is missing");
      return;
    }
  {
    const char *argv[] = { python, script, path, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, NULL));
    g_assert_cmpint (status, ==, 0);
    g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  }
  file = g_file_new_for_path (path);
  window = open_on_kernels (file, &kernels);
  g_object_get (kernels, "view-state", &view, NULL);

  for (guint by = 0; by < 2; by++)
    {
      JsonObject *groups = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                          by == 0 ? "modules" : "code");
      g_autoptr(GList) names = json_object_get_members (groups);
      const char *top = NULL;
      gint64 most = -1;
      g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
      CpTrace *trace = cp_window_get_trace (window);

      for (GList *l = names; l != NULL; l = l->next)
        {
          gint64 t = json_object_get_int_member (json_object_get_object_member (groups, l->data), "time_ns");

          if (t > most)
            {
              most = t;
              top = l->data;
            }
        }
      cp_kernels_pane_show_by_source (CP_KERNELS_PANE (kernels), by == 0 ? CP_SOURCE_MODULE : CP_SOURCE_FRAME);
      cp_ui_wait_for (grouped, kernels, "the kernels grouped by module and code");
      g_assert_cmpuint (cp_kernels_pane_get_n_rows (CP_KERNELS_PANE (kernels)), ==, json_object_get_size (groups));
      g_assert_cmpstr (cp_kernels_pane_get_row_name (CP_KERNELS_PANE (kernels), 0), ==, top);
      cp_kernels_pane_select_row (CP_KERNELS_PANE (kernels), 0);
      cp_analysis_collect_host_slices (cp_window_get_analysis (window),
                                       cp_string_pool_lookup (cp_trace_get_string_pool (trace), top), refs);
      g_assert_cmpuint (refs->len, >, 0);
      g_assert_cmpuint (n_highlights (view), ==, refs->len);
      cp_ui_wait_frame (kernels);
      cp_ui_screenshot (GTK_WIDGET (window), by == 0 ? "kernels-by-module-light.png" : "kernels-by-code-light.png");
      if (g_getenv ("CP_SCREENSHOT_DIR") != NULL)
        {
          adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
          cp_ui_screenshot (GTK_WIDGET (window), by == 0 ? "kernels-by-module-dark.png" : "kernels-by-code-dark.png");
          adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
        }
    }
  /* Back to the kernels: their table again. */
  cp_kernels_pane_show_kernels (CP_KERNELS_PANE (kernels), TRUE);
  g_assert_cmpuint (cp_kernels_pane_get_n_rows (CP_KERNELS_PANE (kernels)), ==,
                    ({ guint n; cp_analysis_get_kernels (cp_window_get_analysis (window), &n); n; }));
  g_object_unref (view);
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
  app = cp_application_new_with_flags (G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/roofline-pane/chart", test_chart);
  g_test_add_func ("/roofline-pane/by-source", test_by_source);
  g_test_add_func ("/roofline-pane/estimated-peaks", test_estimated_peaks);
  g_test_add_func ("/roofline-pane/xla-code", test_xla_code);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
