/* test-device-memory.c: memory over time: the allocator events of real captures
 * against an independent Python count (tests/memory-count.py), and the
 * memory findings of cp-gen's memory scenarios against its truth
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-memory.h"
#include "analysis/cp-rules.h"
#include "cp-test-util.h"
#include "cp-test-xspace.h"
#include "formats/cp-loader.h"
#include "render/cp-painter.h"

/* memory-count.py over the arguments, parsed. */
static JsonNode *
run_oracle (const char * const *paths)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "memory-count.py", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  int status = 0;

  if (python == NULL)
    return NULL;
  g_ptr_array_add (argv, python);
  g_ptr_array_add (argv, script);
  for (guint i = 0; paths[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) paths[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("memory-count.py failed: %s", err);
  json_parser_load_from_data (parser, out, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static gint64
int_or_minus_one (JsonObject *o,
                  const char *key)
{
  JsonNode *n = json_object_get_member (o, key);

  return n == NULL || JSON_NODE_HOLDS_NULL (n) ? -1 : json_node_get_int (n);
}

/* The model's tracks and the analysis' peaks equal the count's, device by
 * device. Returns the number of devices compared. */
static guint
compare_capture (const char *path,
                 JsonObject *want)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_autoptr(CpAnalysis) analysis = NULL;
  JsonArray *devices = json_object_get_array_member (want, "devices");
  const CpMemory *mem;
  const CpMemoryStats *stats;
  guint n_stats;

  g_assert_no_error (error);
  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  mem = cp_trace_get_memory_events (trace);
  stats = cp_analysis_get_memory (analysis, &n_stats);
  if (cp_memory_get_n_tracks (mem) != json_array_get_length (devices) || n_stats != json_array_get_length (devices))
    g_error ("%s: %u memory tracks, %u analysed; Python %u devices", path,
             cp_memory_get_n_tracks (mem), n_stats, json_array_get_length (devices));
  for (guint d = 0; d < json_array_get_length (devices); d++)
    {
      JsonObject *w = json_array_get_object_element (devices, d);
      gint type = json_object_get_int_member (w, "device_type");
      gint id = json_object_get_int_member (w, "device_id");
      const CpMemoryTrack *t = cp_memory_find_track (mem, type, id);
      const CpMemoryStats *st = &stats[d];

      if (t == NULL)
        g_error ("%s: no memory track for device type %d id %d", path, type, id);
      g_assert_cmpint (st->device_type, ==, type);
      g_assert_cmpint (st->device_id, ==, id);
      if ((gint64) t->n_events != json_object_get_int_member (w, "events") ||
          st->has_totals != json_object_get_boolean_member (w, "totals_known") ||
          st->peak_allocated != json_object_get_int_member (w, "peak_allocated") ||
          st->peak_reserved != int_or_minus_one (w, "peak_reserved"))
        g_error ("%s: device type %d id %d: %u events, totals %d, peak allocated %" G_GINT64_FORMAT
                 ", reserved %" G_GINT64_FORMAT "; Python %" G_GINT64_FORMAT " events, totals %d, %"
                 G_GINT64_FORMAT ", %" G_GINT64_FORMAT,
                 path, type, id, t->n_events, st->has_totals, st->peak_allocated, st->peak_reserved,
                 json_object_get_int_member (w, "events"), json_object_get_boolean_member (w, "totals_known"),
                 json_object_get_int_member (w, "peak_allocated"), int_or_minus_one (w, "peak_reserved"));
      /* Time order, and the peak at an event that has it. */
      for (guint k = 1; k < t->n_events; k++)
        g_assert_cmpint (t->events[k - 1].ts, <=, t->events[k].ts);
      g_assert_cmpint (st->peak_allocated_ts, >=, 0);
      g_assert_cmpint (st->peak_allocated_ts, <=, cp_trace_get_duration (trace));
      /* What was live at the peak cannot exceed it when the totals are
       * the allocator's. */
      if (st->has_totals)
        g_assert_cmpint (st->live_bytes, <=, st->peak_allocated);
    }
  return json_array_get_length (devices);
}

static void
test_real_captures (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *local = cp_test_data_path ("captures");
  const char *paths[3] = { local, shared, NULL };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GList) files = NULL;
  JsonObject *all;
  guint n_files = 0, n_devices = 0;

  if (shared == NULL)
    {
      g_test_skip ("../shared/traces is missing: no real captures with allocator events");
      return;
    }
  root = run_oracle (paths);
  if (root == NULL)
    {
      g_test_skip ("python3 not found: the independent count cannot run");
      return;
    }
  all = json_node_get_object (root);
  files = json_object_get_members (all);
  for (GList *l = files; l != NULL; l = l->next)
    {
      n_devices += compare_capture (l->data, json_object_get_object_member (all, l->data));
      n_files++;
    }
  g_test_message ("%u captures with allocator events, %u devices compared with memory-count.py", n_files, n_devices);
  g_assert_cmpuint (n_files, >, 0);
}

static gboolean
in_list (JsonObject *truth,
         const char *key,
         const char *rule)
{
  JsonArray *a = json_object_get_array_member (truth, key);

  for (guint k = 0; k < json_array_get_length (a); k++)
    if (g_strcmp0 (json_array_get_string_element (a, k), rule) == 0)
      return TRUE;
  return FALSE;
}

/* A cp-gen memory scenario: the peaks and the step ends equal its truth
 * and memory-count.py's count, its rule fires above info (none for
 * memory-oscillating), and no other memory rule does unless the truth
 * calls it related. */
static void
test_scenario (gconstpointer data)
{
  const char *scenario = data;
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *capture = g_build_filename (dir, "capture.json", NULL);
  g_autofree char *truth_path = g_build_filename (dir, "truth.json", NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", scenario, "--out", capture,
                         "--truth", truth_path, "--steps", g_str_equal (scenario, "memory-oscillating") ? "24" : "6",
                         "--seed", "3", "-q", NULL };
  const char *paths[] = { capture, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) counted = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (capture);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autofree char *err = NULL;
  JsonObject *truth, *mem;
  const CpMemoryStats *st;
  GListModel *findings;
  guint n;
  int status = 0;
  gboolean fired = FALSE;

  g_assert_nonnull (argv[0]);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("cp-gen failed for %s: %s", scenario, err);
  json_parser_load_from_file (parser, truth_path, &error);
  g_assert_no_error (error);
  truth = json_node_get_object (json_parser_get_root (parser));
  mem = json_object_get_object_member (truth, "memory");
  g_assert_nonnull (mem);

  counted = run_oracle (paths);
  if (counted != NULL)
    g_assert_cmpuint (compare_capture (capture, json_object_get_object_member (json_node_get_object (counted), capture)), ==, 1);

  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  st = cp_analysis_get_memory (analysis, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (st->device_type, ==, json_object_get_int_member (mem, "device_type"));
  g_assert_cmpint (st->device_id, ==, json_object_get_int_member (mem, "device_id"));
  g_assert_cmpint (st->n_events, ==, json_object_get_int_member (mem, "events"));
  g_assert_cmpint (st->peak_allocated, ==, json_object_get_int_member (mem, "peak_allocated_bytes"));
  g_assert_cmpint (st->peak_reserved, ==, json_object_get_int_member (mem, "peak_reserved_bytes"));
  g_assert_cmpint (st->capacity, ==, json_object_get_int_member (mem, "capacity_bytes"));
  if (json_object_has_member (mem, "step_end_allocated_bytes"))
    {
      JsonArray *ends = json_object_get_array_member (mem, "step_end_allocated_bytes");

      g_assert_cmpuint (st->n_step_end, ==, json_array_get_length (ends));
      for (guint k = 0; k < st->n_step_end; k++)
        g_assert_cmpint (st->step_end[k], ==, json_array_get_int_element (ends, k));
    }

  findings = cp_analysis_get_findings (analysis);
  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);
      const char *rule = cp_finding_get_rule_id (f);

      g_test_message ("%s: %s %s", scenario, cp_severity_to_string (cp_finding_get_severity (f)), rule);
      if (in_list (truth, "expect", rule))
        {
          g_assert_cmpint (cp_finding_get_severity (f), >=, CP_SEVERITY_MODERATE);
          fired = TRUE;
        }
      else if (g_str_has_prefix (rule, "memory-") && !in_list (truth, "related", rule) &&
               cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        g_error ("%s: %s fired, only %s was expected", scenario, rule,
                 json_array_get_string_element (json_object_get_array_member (truth, "expect"), 0));
    }
  if (!fired && json_array_get_length (json_object_get_array_member (truth, "expect")) > 0)
    g_error ("%s: the expected memory rule did not fire", scenario);
  cp_test_rm_rf (dir);
}

/* The pixel at (x, y) as 0xRRGGBB. */
static guint32
rgb_at (cairo_surface_t *s,
        int              x,
        int              y)
{
  const guchar *data = cairo_image_surface_get_data (s);

  return *(const guint32 *) (gconstpointer) (data + y * cairo_image_surface_get_stride (s) + x * 4) & 0xffffff;
}

/* The timeline's memory track on memory-near-capacity: one track, in the
 * GPU's group, filled up to what is allocated. At the end of the capture
 * the scenario's 30 GiB of state stay, on a scale of the 79.2 GiB device:
 * filled at a quarter of the height, empty at a half. */
static void
test_track (void)
{
  const int width = 1216, height = 1400;
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *capture = g_build_filename (dir, "capture.json", NULL);
  const char *argv[] = { g_getenv ("CP_GEN"), "--scenario", "memory-near-capacity", "--out", capture,
                         "--steps", "3", "--seed", "3", "-q", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (capture);
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpViewState) view = cp_view_state_new ();
  g_autoptr(CpTimelineLayout) layout = NULL;
  CpPainter *painter = cp_painter_new ();
  cairo_surface_t *surface;
  cairo_t *cr;
  const CpLayoutMetrics *m = cp_painter_get_metrics (painter);
  gint found = -1;
  double y, h, bottom, span;
  int x, status = 0;
  guint32 background;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  cp_view_state_set_viewport_width (view, width - m->gutter_width);
  cp_view_state_set_trace (view, trace);
  cp_view_state_set_visible_range (view, 0, cp_trace_get_duration (trace));
  layout = cp_timeline_layout_new (view, m);
  for (guint i = 0; i < cp_timeline_layout_get_n_items (layout); i++)
    {
      const CpLayoutItem *item = cp_timeline_layout_get_item (layout, i);

      if (item->kind != CP_LAYOUT_MEMORY)
        continue;
      g_assert_cmpint (found, ==, -1);
      found = (gint) i;
      g_assert_true (cp_trace_get_process (trace, item->process)->is_device);
      g_assert_cmpint (cp_trace_get_process (trace, item->process)->device, ==, 0);
    }
  g_assert_cmpint (found, >=, 0);
  g_assert_true (cp_timeline_layout_item_rect (layout, (guint) found, 0, height, &y, &h));

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  cp_painter_draw (painter, cr, view, layout, width, height, CP_PAINT_ALL);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  /* The last column before the capture ends, inside the track. */
  x = width - 3;
  bottom = floor (y + h - 2);
  span = bottom - (y + 4);
  background = rgb_at (surface, x, (int) (y + 2));
  g_assert_cmphex (rgb_at (surface, x, (int) (bottom - 0.25 * span)), !=, background);
  g_assert_cmphex (rgb_at (surface, x, (int) (bottom - 0.5 * span)), ==, background);
  /* No slice to pick on the track. */
  g_assert_cmpint (cp_timeline_layout_hit_test (layout, view, width - 10, y + h / 2, height, 2).kind, ==, CP_HIT_NONE);

  cairo_surface_destroy (surface);
  cp_painter_free (painter);
  cp_test_rm_rf (dir);
}

/* TensorFlow's and XLA's allocator events in an XPlane capture, each kind
 * of stat read as the BFC allocator writes it. */
static void
test_xplane_allocator (void)
{
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "alloc.xplane.pb", NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  XpPlane *host = xp_plane_new (1, "/host:CPU");
  const CpMemory *mem;
  const CpMemoryTrack *gpu1, *cpu;
  const CpMemoryStats *stats;
  guint n_stats;

  xp_line (host, 7, 0, "python3", NULL, 1000,
           xp_event (host, "jit_step", 0, G_GINT64_CONSTANT (10000000000), NULL),
           xp_event (host, "MemoryAllocation", 1000000, 0,
                     xp_stat_ref (host, "allocator_name", "GPU_1_bfc"),
                     xp_stat_uint (host, "allocation_bytes", 1000), xp_stat_uint (host, "requested_bytes", 900),
                     xp_stat_uint (host, "bytes_allocated", 1000), xp_stat_uint (host, "addr", 4096), NULL),
           /* No allocation_bytes: the requested size. */
           xp_event (host, "MemoryAllocation", 2000000, 0,
                     xp_stat_ref (host, "allocator_name", "GPU_1_bfc"),
                     xp_stat_uint (host, "requested_bytes", 500),
                     xp_stat_uint (host, "bytes_allocated", 1500), xp_stat_uint (host, "addr", 8192), NULL),
           xp_event (host, "MemoryDeallocation", 3000000, 0,
                     xp_stat_ref (host, "allocator_name", "GPU_1_bfc"),
                     xp_stat_uint (host, "allocation_bytes", 1000),
                     xp_stat_uint (host, "bytes_allocated", 500), xp_stat_uint (host, "addr", 4096), NULL),
           /* The host's allocator; an allocator of no known device; no size. */
           xp_event (host, "MemoryAllocation", 4000000, 0,
                     xp_stat_str (host, "allocator_name", "cpu"),
                     xp_stat_uint (host, "allocation_bytes", 64), xp_stat_uint (host, "bytes_allocated", 64), NULL),
           xp_event (host, "MemoryAllocation", 5000000, 0,
                     xp_stat_str (host, "allocator_name", "tpu_hbm"),
                     xp_stat_uint (host, "allocation_bytes", 64), NULL),
           xp_event (host, "MemoryAllocation", 6000000, 0,
                     xp_stat_str (host, "allocator_name", "GPU_1_bfc"), NULL),
           NULL);
  xp_space_add_plane (space, host);
  g_assert_true (g_file_set_contents (path, (const char *) space->data, space->len, NULL));
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  mem = cp_trace_get_memory_events (trace);
  g_assert_nonnull (mem);
  g_assert_cmpuint (cp_memory_get_n_tracks (mem), ==, 2);
  gpu1 = cp_memory_find_track (mem, 1, 1);
  g_assert_nonnull (gpu1);
  g_assert_cmpuint (gpu1->n_events, ==, 3);
  g_assert_true (gpu1->has_totals);
  g_assert_false (gpu1->has_reserved);
  g_assert_cmpint (gpu1->events[0].bytes, ==, 1000);
  g_assert_cmpint (gpu1->events[1].bytes, ==, 500);
  g_assert_cmpint (gpu1->events[2].bytes, ==, -1000);
  g_assert_cmpint (gpu1->events[1].allocated, ==, 1500);
  g_assert_cmpuint (gpu1->events[2].addr, ==, 4096);
  /* ns from the trace origin, the line's first event. */
  g_assert_cmpint (gpu1->events[0].ts, ==, 1000);
  cpu = cp_memory_find_track (mem, 0, -1);
  g_assert_nonnull (cpu);
  g_assert_cmpuint (cpu->n_events, ==, 1);

  analysis = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  stats = cp_analysis_get_memory (analysis, &n_stats);
  for (guint d = 0; d < n_stats; d++)
    if (stats[d].device_type == 1)
      {
        g_assert_cmpint (stats[d].device_id, ==, 1);
        g_assert_cmpint (stats[d].peak_allocated, ==, 1500);
        g_assert_cmpint (stats[d].peak_allocated_ts, ==, 2000);
        g_assert_cmpint (stats[d].peak_reserved, ==, -1);
      }
  cp_test_rm_rf (dir);
}

#define MIB (G_GINT64_CONSTANT (1) << 20)
#define GIB (G_GINT64_CONSTANT (1) << 30)

/* A Kineto capture of len 10 ms steps on a 16 GiB GPU whose allocated
 * memory at the end of step k is step_end[k]: an allocation (or a free)
 * 1 ms into the step brings it there, and a 32 MiB buffer lives from 3 to
 * 5 ms; a kernel runs from 2 to 8 ms. */
static CpTrace *
load_step_series (const gint64 *step_end,
                  guint         len)
{
  g_autoptr(GString) j = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, "
                                       "\"name\": \"NVIDIA A100-SXM4-40GB\", \"totalGlobalMem\": 17179869184}],\n"
                                       "\"traceEvents\": [\n");
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  CpTrace *trace;
  gint64 prev = 0;

  for (guint k = 0; k < len; k++)
    {
      gint64 t = 10000 * (gint64) k;

      g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%u\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"dur\": 10000},\n", k, t);
      g_string_append_printf (j, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%u\", \"pid\": 0, \"tid\": 7, "
                              "\"ts\": %" G_GINT64_FORMAT ", \"dur\": 6000, \"args\": {\"device\": 0, \"stream\": 7}},\n",
                              k, t + 2000);
      g_string_append_printf (j, "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"args\": {\"Device Type\": 1, "
                              "\"Device Id\": 0, \"Addr\": %u, \"Bytes\": %" G_GINT64_FORMAT ", \"Total Allocated\": %"
                              G_GINT64_FORMAT "}},\n", t + 1000, 4096 * (k + 1), step_end[k] - prev, step_end[k]);
      g_string_append_printf (j, "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"args\": {\"Device Type\": 1, "
                              "\"Device Id\": 0, \"Addr\": 8, \"Bytes\": %" G_GINT64_FORMAT ", \"Total Allocated\": %"
                              G_GINT64_FORMAT "}},\n", t + 3000, 32 * MIB, step_end[k] + 32 * MIB);
      g_string_append_printf (j, "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GINT64_FORMAT ", \"args\": {\"Device Type\": 1, "
                              "\"Device Id\": 0, \"Addr\": 8, \"Bytes\": %" G_GINT64_FORMAT ", \"Total Allocated\": %"
                              G_GINT64_FORMAT "}}%s\n", t + 5000, -32 * MIB, step_end[k], k + 1 < len ? "," : "");
      prev = step_end[k];
    }
  g_string_append (j, "]}\n");
  path = cp_test_write_file (dir, "series.pt.trace.json", j->str, j->len);
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  cp_test_rm_rf (dir);
  return trace;
}

static CpFinding *
find_finding (CpAnalysis *a,
              const char *rule)
{
  GListModel *findings = cp_analysis_get_findings (a);

  for (guint i = 0; i < g_list_model_get_n_items (findings); i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);

      if (g_str_equal (cp_finding_get_rule_id (f), rule))
        return f;
    }
  return NULL;
}

static gboolean
has_note (CpAnalysis *a,
          const char *part)
{
  const char * const *notes = cp_analysis_get_notes (a);

  for (guint i = 0; notes[i] != NULL; i++)
    if (strstr (notes[i], part) != NULL)
      return TRUE;
  return FALSE;
}

/* The least-squares slope of y over 0..n-1, from the sums. */
static double
sums_slope (const gint64 *y,
            guint         n)
{
  double sx = 0, sy = 0, sxy = 0, sxx = 0;

  for (guint k = 0; k < n; k++)
    {
      sx += k;
      sy += (double) y[k];
      sxy += (double) k * (double) y[k];
      sxx += (double) k * k;
    }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* A JAX-like series at the step ends: 96, 128, 130, 192, 320, 162, 264,
 * 320 MiB, three times over, falling back to 96 MiB twice. It rises after
 * 18 of 23 steps (more than three in four), and the last step end is 224
 * MiB above the first: the old rule called it a leak, "the run will run
 * out of memory". It oscillates: no finding, a note on the swing. */
static void
test_oscillating (void)
{
  static const gint64 cycle[] = { 96, 128, 130, 192, 320, 162, 264, 320 };
  gint64 series[24];
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(GError) error = NULL;
  const CpMemoryStats *st;
  guint n;

  for (guint k = 0; k < G_N_ELEMENTS (series); k++)
    series[k] = cycle[k % G_N_ELEMENTS (cycle)] * MIB;
  trace = load_step_series (series, G_N_ELEMENTS (series));
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  st = cp_analysis_get_memory (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (st->n_step_end, ==, 24);
  for (guint k = 0; k < 24; k++)
    g_assert_cmpint (st->step_end[k], ==, series[k]);
  g_assert_cmpuint (st->n_grew, ==, 18);
  g_assert_cmpint (st->step_end_min, ==, 96 * MIB);
  g_assert_cmpint (st->step_end_max, ==, 320 * MIB);
  g_assert_cmpuint (st->n_returns, ==, 2);
  g_assert_cmpfloat_with_epsilon (st->step_end_slope, sums_slope (series, 24), 1e-3);
  g_assert_null (find_finding (a, "memory-leak"));
  for (guint i = 0; cp_analysis_get_notes (a)[i] != NULL; i++)
    g_test_message ("note: %s", cp_analysis_get_notes (a)[i]);
  g_assert_true (has_note (a, "between 96.0"));
  g_assert_true (has_note (a, "and 320.0"));
  g_assert_true (has_note (a, "2 times in 24 step ends"));
}

/* A steady climb, 1 GiB + 512 MiB a step over 6 steps on a 16 GiB GPU:
 * a leak of 512 MiB a step (2.5 GiB over 2.53 GiB of peak: high) with 25
 * more steps to the capacity ((16 - 3.5) GiB / 512 MiB). A leak is a risk,
 * not a speed-up: among the notes, and not in the verdict's speed-ups. */
static void
test_steady_climb (void)
{
  gint64 series[6];
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(GError) error = NULL;
  const CpVerdict *v;
  CpFinding *f;

  for (guint k = 0; k < G_N_ELEMENTS (series); k++)
    series[k] = GIB + 512 * MIB * k;
  trace = load_step_series (series, G_N_ELEMENTS (series));
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);
  f = find_finding (a, "memory-leak");
  g_assert_nonnull (f);
  g_assert_cmpint (cp_finding_get_severity (f), ==, CP_SEVERITY_HIGH);
  g_assert_cmpint (cp_finding_get_section (f), ==, CP_FINDING_SECTION_INFO);
  /* The peak: the last step end and its 32 MiB buffer. */
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "growth_percent")->value,
                                  100.0 * 5 * 512 * MIB / (double) (series[5] + 32 * MIB), 1e-6);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "growth_per_step_bytes")->value, 512.0 * MIB, 1e-3);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "steps_to_capacity")->value, 25.0, 1e-9);
  v = cp_analysis_get_verdict (a);
  for (guint k = 0; k < v->n_speedups; k++)
    g_assert_cmpstr (v->speedups[k], !=, "memory-leak");
  g_assert_null (strstr (v->text, cp_finding_get_title (f)));
}

/* TensorFlow's BFC allocator on a 16 GB V100 (15.78 GiB): its events
 * state what is allocated, reserved (0) and still available, whose sum is
 * the allocator's limit, 14.41 GiB; GPU 1's events state bytes_limit
 * itself. 13.5 GiB allocated at the peak is 0.94 of the limit (memory
 * pressure: flagged above 0.9) but 0.86 of the device's memory, which
 * the rule measured against before. */
static void
test_allocator_limit (void)
{
  const gint64 device = G_GINT64_CONSTANT (16945512448);
  const gint64 limit = (gint64) (14.41 * GIB);
  const gint64 sizes[] = { 6 * GIB, 7 * GIB + GIB / 2 };
  g_autoptr(GByteArray) space = g_byte_array_new ();
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *dir = cp_test_make_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "tf.xplane.pb", NULL);
  g_autoptr(GFile) file = NULL;
  XpPlane *gpu = xp_plane_new (1, "/device:GPU:0");
  XpPlane *host = xp_plane_new (2, "/host:CPU");
  const CpMemoryTrack *t;
  JsonArray *memory;
  CpFinding *f;
  gint64 allocated = 0;
  GByteArray *events[4];

  xp_plane_stat (gpu, xp_stat_str (gpu, "gpu_device_name", "Tesla V100-SXM2-16GB"));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_major", 7));
  xp_plane_stat (gpu, xp_stat_int (gpu, "compute_cap_minor", 0));
  xp_plane_stat (gpu, xp_stat_uint (gpu, "memory_size", device));
  xp_line (gpu, 7, 0, "Stream #7(Compute)", NULL, 1000,
           xp_event (gpu, "volta_sgemm_128x64_nn", 0, G_GINT64_CONSTANT (4000000000), NULL), NULL);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      allocated += sizes[k];
      events[k] = xp_event (host, "MemoryAllocation", (gint64) (k + 1) * 1000000, 0,
                            xp_stat_ref (host, "allocator_name", "GPU_0_bfc"),
                            xp_stat_uint (host, "allocation_bytes", sizes[k]),
                            xp_stat_uint (host, "bytes_allocated", allocated),
                            xp_stat_uint (host, "bytes_reserved", 0),
                            xp_stat_uint (host, "bytes_available", limit - allocated),
                            xp_stat_uint (host, "addr", 4096 * (k + 1)), NULL);
    }
  events[2] = xp_event (host, "MemoryAllocation", 3000000, 0, xp_stat_ref (host, "allocator_name", "GPU_1_bfc"),
                        xp_stat_uint (host, "allocation_bytes", GIB), xp_stat_uint (host, "bytes_allocated", GIB),
                        xp_stat_uint (host, "bytes_limit", 2 * GIB), NULL);
  events[3] = xp_event (host, "train_step", 0, G_GINT64_CONSTANT (5000000000), NULL);
  xp_line (host, 3, 0, "python3", NULL, 1000, events[3], events[0], events[1], events[2], NULL);
  xp_space_add_plane (space, gpu);
  xp_space_add_plane (space, host);
  g_assert_true (g_file_set_contents (path, (const char *) space->data, space->len, NULL));
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  cp_test_rm_rf (dir);
  a = cp_analysis_new (trace, NULL, &error);
  g_assert_no_error (error);

  t = cp_memory_find_track (cp_trace_get_memory_events (trace), 1, 0);
  g_assert_nonnull (t);
  g_assert_cmpint (t->limit, ==, limit);
  g_assert_cmpint (cp_memory_find_track (cp_trace_get_memory_events (trace), 1, 1)->limit, ==, 2 * GIB);

  f = find_finding (a, "memory-pressure");
  g_assert_nonnull (f);
  g_assert_cmpfloat_with_epsilon (cp_finding_lookup_figure (f, "peak_memory_ratio")->value,
                                  (double) allocated / (double) limit, 1e-9);
  g_assert_cmpfloat (cp_finding_lookup_figure (f, "allocator_limit_bytes")->value, ==, (double) limit);
  g_assert_cmpfloat (cp_finding_lookup_figure (f, "device_bytes")->value, ==, (double) device);
  g_assert_nonnull (strstr (cp_finding_get_summary (f), "allocator's limit"));
  g_assert_null (find_finding (a, "memory-headroom"));

  json = cp_analysis_to_json (a, FALSE);
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  memory = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "memory");
  for (guint k = 0; k < json_array_get_length (memory); k++)
    {
      JsonObject *m = json_array_get_object_element (memory, k);

      if (json_object_get_int_member (m, "device_type") == 1 && json_object_get_int_member (m, "device_id") == 0)
        {
          g_assert_cmpint (json_object_get_int_member (m, "allocator_limit_bytes"), ==, limit);
          g_assert_cmpint (json_object_get_int_member (m, "capacity_bytes"), ==, device);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/real-captures", test_real_captures);
  g_test_add_data_func ("/memory/scenario/leak", "memory-leak", test_scenario);
  g_test_add_data_func ("/memory/scenario/near-capacity", "memory-near-capacity", test_scenario);
  g_test_add_data_func ("/memory/scenario/headroom", "memory-headroom", test_scenario);
  g_test_add_data_func ("/memory/scenario/oscillating", "memory-oscillating", test_scenario);
  g_test_add_func ("/memory/track", test_track);
  g_test_add_func ("/memory/xplane-allocator", test_xplane_allocator);
  g_test_add_func ("/memory/leak/oscillating", test_oscillating);
  g_test_add_func ("/memory/leak/steady-climb", test_steady_climb);
  g_test_add_func ("/memory/allocator-limit", test_allocator_limit);
  return g_test_run ();
}
