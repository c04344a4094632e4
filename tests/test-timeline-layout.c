/* test-timeline-layout.c: lane order, collapsed/hidden/pinned lanes, hit testing
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-test-util.h"
#include "formats/cp-loader.h"
#include "model/cp-trace-builder.h"
#include "render/cp-time-format.h"
#include "render/cp-timeline-layout.h"

typedef struct
{
  CpTrace *trace;
  guint    python;     /* lanes */
  guint    loader;
  guint    stream7;
  guint    stream8;
  guint    htod;
  guint    counter;
} Fixture;

static CpSliceRef
add (CpTraceBuilder *b,
     guint           lane,
     gint64          start,
     gint64          dur,
     const char     *name)
{
  CpSliceInit init;

  cp_slice_init_clear (&init);
  init.start = start;
  init.dur = dur;
  init.name = cp_trace_builder_intern (b, name, -1);
  return cp_trace_builder_add_slice (b, lane, &init);
}

static guint
find_lane (CpTrace    *trace,
           const char *name)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      if (g_strcmp0 (cp_lane_get_name (cp_trace_get_lane (trace, i)), name) == 0)
        return i;
    }
  g_assert_not_reached ();
  return 0;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint gpu = cp_trace_builder_process_for_pid (b, 0);
  guint host = cp_trace_builder_process_for_pid (b, 100);
  guint l;
  CpProcess *p;

  p = cp_trace_builder_get_process (b, gpu);
  p->is_device = TRUE;
  p->device = 0;
  p->name = cp_trace_builder_intern (b, "GPU 0", -1);
  cp_trace_builder_get_process (b, host)->name = cp_trace_builder_intern (b, "python", -1);

  /* Host: nested slices on the main thread, one on the loader. */
  l = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 100, 0 });
  cp_trace_builder_set_lane_name (b, l, "python");
  add (b, l, 0, 10000, "step");
  add (b, l, 1000, 4000, "forward");
  add (b, l, 1500, 1000, "aten::mm");
  l = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 101, 0 });
  cp_trace_builder_set_lane_name (b, l, "loader");
  add (b, l, 2000, 3000, "next");

  /* Device: counter, transfer and kernel lanes added out of order. */
  l = cp_trace_builder_lane (b, gpu, CP_LANE_COUNTER, (CpLaneKey) { 0, cp_trace_builder_intern (b, "mem", -1) });
  cp_trace_builder_set_lane_name (b, l, "memory");
  cp_trace_builder_add_counter (b, l, 0, 1);
  cp_trace_builder_add_counter (b, l, 5000, 3);
  l = cp_trace_builder_lane (b, gpu, CP_LANE_TRANSFER, (CpLaneKey) { CP_TRANSFER_HTOD, 0 });
  cp_trace_builder_set_lane_transfer_kind (b, l, CP_TRANSFER_HTOD);
  cp_trace_builder_set_lane_name (b, l, "htod");
  add (b, l, 100, 500, "Memcpy HtoD");
  l = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 8, 0 });
  cp_trace_builder_set_lane_name (b, l, "stream 8");
  add (b, l, 3000, 100, "k8");
  l = cp_trace_builder_lane (b, gpu, CP_LANE_KERNEL, (CpLaneKey) { 7, 0 });
  cp_trace_builder_set_lane_name (b, l, "stream 7");
  /* Two overlapping kernels: the second goes on an extra row. */
  add (b, l, 2000, 2000, "gemm");
  add (b, l, 3000, 2000, "overlapping");
  /* A lone 1 ns kernel far from everything. */
  add (b, l, 9000, 1, "tiny");

  f->trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  f->python = find_lane (f->trace, "python");
  f->loader = find_lane (f->trace, "loader");
  f->stream7 = find_lane (f->trace, "stream 7");
  f->stream8 = find_lane (f->trace, "stream 8");
  f->htod = find_lane (f->trace, "htod");
  f->counter = find_lane (f->trace, "memory");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_finalize_object (f->trace);
}

static CpLayoutMetrics
metrics (void)
{
  CpLayoutMetrics m;

  cp_layout_metrics_init (&m, 12);
  return m;
}

static void
test_order (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(CpViewState) view = cp_view_state_new ();
  CpLayoutMetrics m = metrics ();
  CpTimelineLayout *layout;
  const CpLayoutItem *it;
  guint expected_last[] = { 0, 0, 0, 0, 0, 0, 0 };

  cp_view_state_set_trace (view, f->trace);
  layout = cp_timeline_layout_new (view, &m);

  /* Devices last by default: python group, its two threads, then the GPU
   * group with kernels (by stream), the transfer, the counter. */
  g_assert_cmpuint (cp_timeline_layout_get_n_items (layout), ==, 8);
  it = cp_timeline_layout_get_item (layout, 0);
  g_assert_cmpint (it->kind, ==, CP_LAYOUT_GROUP);
  g_assert_false (it->is_device);
  g_assert_cmpuint (it->n_lanes, ==, 2);
  g_assert_cmpstr (cp_timeline_layout_get_label (layout, 0), ==, "python (pid 100)");
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 1)->lane, ==, f->python);
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 1)->n_rows, ==, 3);
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 2)->lane, ==, f->loader);
  it = cp_timeline_layout_get_item (layout, 3);
  g_assert_cmpint (it->kind, ==, CP_LAYOUT_GROUP);
  g_assert_true (it->is_device);
  expected_last[0] = f->stream7;
  expected_last[1] = f->stream8;
  expected_last[2] = f->htod;
  expected_last[3] = f->counter;
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (cp_timeline_layout_get_item (layout, 4 + i)->lane, ==, expected_last[i]);
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 4)->n_rows, ==, 2);

  /* y positions follow from row counts, with no gaps. */
  for (guint i = 1; i < cp_timeline_layout_get_n_items (layout) - 1; i++)
    {
      const CpLayoutItem *a = cp_timeline_layout_get_item (layout, i - 1);
      const CpLayoutItem *b = cp_timeline_layout_get_item (layout, i);

      g_assert_cmpfloat (b->y, ==, a->y + a->height);
    }
  it = cp_timeline_layout_get_item (layout, 1);
  g_assert_cmpfloat (it->height, ==, 3 * m.row_height + 2 * m.lane_padding);
  g_assert_cmpfloat (cp_timeline_layout_get_item (layout, 7)->height, ==, m.counter_height);
  cp_timeline_layout_unref (layout);

  /* Devices first. */
  cp_view_state_set_devices_first (view, TRUE);
  layout = cp_timeline_layout_new (view, &m);
  g_assert_true (cp_timeline_layout_get_item (layout, 0)->is_device);
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 1)->lane, ==, f->stream7);
  g_assert_cmpint (cp_timeline_layout_find_lane (layout, f->python), ==, 6);
  cp_timeline_layout_unref (layout);
}

static void
test_collapse_hide_pin (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(CpViewState) view = cp_view_state_new ();
  CpLayoutMetrics m = metrics ();
  CpTimelineLayout *layout;
  const CpLayoutItem *it;
  double y, h;

  cp_view_state_set_trace (view, f->trace);
  layout = cp_timeline_layout_new (view, &m);
  g_assert_true (cp_timeline_layout_is_current (layout, view));

  cp_view_state_set_group_collapsed (view, cp_timeline_layout_get_item (layout, 0)->process, TRUE);
  cp_view_state_set_lane_hidden (view, f->htod, TRUE);
  cp_view_state_set_lane_pinned (view, f->stream8, TRUE);
  g_assert_false (cp_timeline_layout_is_current (layout, view));
  cp_timeline_layout_unref (layout);
  layout = cp_timeline_layout_new (view, &m);

  /* Pinned first, in the pinned area; then the collapsed host group alone;
   * then the GPU group without the pinned and hidden lanes. */
  g_assert_cmpuint (cp_timeline_layout_get_n_items (layout), ==, 5);
  it = cp_timeline_layout_get_item (layout, 0);
  g_assert_true (it->pinned);
  g_assert_cmpuint (it->lane, ==, f->stream8);
  g_assert_cmpfloat (cp_timeline_layout_get_pinned_height (layout), ==, it->height);
  /* Away from its group, it names the group too. */
  g_assert_cmpstr (cp_timeline_layout_get_label (layout, 0), ==, "stream 8 · GPU 0");
  it = cp_timeline_layout_get_item (layout, 1);
  g_assert_true (it->collapsed);
  g_assert_cmpfloat (it->y, ==, 0);
  it = cp_timeline_layout_get_item (layout, 2);
  g_assert_cmpint (it->kind, ==, CP_LAYOUT_GROUP);
  g_assert_cmpuint (it->n_hidden, ==, 1);
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 3)->lane, ==, f->stream7);
  g_assert_cmpuint (cp_timeline_layout_get_item (layout, 4)->lane, ==, f->counter);
  g_assert_cmpint (cp_timeline_layout_find_lane (layout, f->python), ==, -1);
  g_assert_cmpint (cp_timeline_layout_find_lane (layout, f->htod), ==, -1);
  g_assert_cmpint (cp_timeline_layout_find_lane (layout, f->stream8), ==, 0);

  /* The pinned lane stays put when scrolled; the others move. */
  cp_timeline_layout_item_rect (layout, 0, 500, 1000, &y, &h);
  g_assert_cmpfloat (y, ==, m.ruler_height);
  cp_timeline_layout_item_rect (layout, 3, 0, 1000, &y, &h);
  g_assert_cmpfloat (y, ==, m.ruler_height + cp_timeline_layout_get_pinned_height (layout) +
                            cp_timeline_layout_get_item (layout, 3)->y);
  g_assert_false (cp_timeline_layout_item_rect (layout, 3, 10000, 1000, &y, &h));
  g_assert_cmpfloat (cp_timeline_layout_get_max_offset (layout, 10000), ==, 0);
  g_assert_cmpfloat (cp_timeline_layout_get_max_offset (layout, m.ruler_height + 10), >, 0);

  cp_view_state_show_all_lanes (view);
  cp_timeline_layout_unref (layout);
  layout = cp_timeline_layout_new (view, &m);
  g_assert_cmpint (cp_timeline_layout_find_lane (layout, f->htod), >, 0);
  cp_timeline_layout_unref (layout);
}

static void
test_hit (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(CpViewState) view = cp_view_state_new ();
  CpLayoutMetrics m = metrics ();
  CpTimelineLayout *layout;
  const CpSlices *s;
  gint item;
  double y, h, x;
  CpHit hit;

  cp_view_state_set_viewport_width (view, 1000);
  cp_view_state_set_trace (view, f->trace);
  /* 10 ns per pixel over [0, 10000). */
  cp_view_state_set_visible_range (view, 0, 10000);
  g_assert_cmpint (cp_view_state_get_visible_end (view), ==, 10000);
  layout = cp_timeline_layout_new (view, &m);

#define X(t) (m.gutter_width + (t) / 10.0)

  hit = cp_timeline_layout_hit_test (layout, view, X (500), 3, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_RULER);
  g_assert_cmpfloat_with_epsilon (hit.time, 500, 1e-6);

  /* The group header, in the gutter and in the time area. */
  cp_timeline_layout_item_rect (layout, 0, 0, 800, &y, &h);
  hit = cp_timeline_layout_hit_test (layout, view, 10, y + 2, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_GROUP);
  hit = cp_timeline_layout_hit_test (layout, view, X (100), y + 2, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_GROUP);

  /* Nested rows on the python thread: row 0 "step", row 1 "forward",
   * row 2 "aten::mm", all under x = 2000 ns. */
  item = cp_timeline_layout_find_lane (layout, f->python);
  s = cp_lane_get_slices (cp_trace_get_lane (f->trace, f->python));
  for (guint row = 0; row < 3; row++)
    {
      y = cp_timeline_layout_row_y (layout, item, row, 0) + m.row_height / 2;
      hit = cp_timeline_layout_hit_test (layout, view, X (2000), y, 800, 3);
      g_assert_cmpint (hit.kind, ==, CP_HIT_SLICE);
      g_assert_cmpuint (hit.lane, ==, f->python);
      g_assert_cmpint (hit.row, ==, row);
      g_assert_cmpuint (s->row[hit.slice.index], ==, row);
      g_assert_cmpstr (cp_trace_slice_name (f->trace, hit.slice), ==,
                       row == 0 ? "step" : row == 1 ? "forward" : "aten::mm");
    }
  /* In the gutter: the lane's label. */
  hit = cp_timeline_layout_hit_test (layout, view, 20, y, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_LANE_LABEL);
  g_assert_cmpuint (hit.lane, ==, f->python);
  /* Row 2 at 6000 ns: nothing there. */
  hit = cp_timeline_layout_hit_test (layout, view, X (6000), y, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_LANE);
  g_assert_cmpint (hit.row, ==, 2);

  /* Overlapping kernels on stream 7: at 3500 ns row 0 is "gemm", row 1 the
   * overlapping one. */
  item = cp_timeline_layout_find_lane (layout, f->stream7);
  y = cp_timeline_layout_row_y (layout, item, 0, 0) + 3;
  hit = cp_timeline_layout_hit_test (layout, view, X (3500), y, 800, 3);
  g_assert_cmpstr (cp_trace_slice_name (f->trace, hit.slice), ==, "gemm");
  y = cp_timeline_layout_row_y (layout, item, 1, 0) + 3;
  hit = cp_timeline_layout_hit_test (layout, view, X (3500), y, 800, 3);
  g_assert_cmpstr (cp_trace_slice_name (f->trace, hit.slice), ==, "overlapping");
  g_assert_cmpint (hit.row, ==, 1);

  /* The 1 ns kernel is a tenth of a pixel wide: picked within 3 px, not 5. */
  y = cp_timeline_layout_row_y (layout, item, 0, 0) + 3;
  hit = cp_timeline_layout_hit_test (layout, view, X (9000) + 2, y, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_SLICE);
  g_assert_cmpstr (cp_trace_slice_name (f->trace, hit.slice), ==, "tiny");
  hit = cp_timeline_layout_hit_test (layout, view, X (9000) - 2.5, y, 800, 3);
  g_assert_cmpstr (cp_trace_slice_name (f->trace, hit.slice), ==, "tiny");
  hit = cp_timeline_layout_hit_test (layout, view, X (9000) + 5, y, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_LANE);

  /* The slice under the point wins over a nearer edge: at 3990 ns gemm
   * (ends 4000) is under the point. */
  y = cp_timeline_layout_row_y (layout, item, 0, 0) + 3;
  hit = cp_timeline_layout_hit_test (layout, view, X (3990), y, 800, 3);
  g_assert_cmpstr (cp_trace_slice_name (f->trace, hit.slice), ==, "gemm");

  /* Counters have no slices. */
  item = cp_timeline_layout_find_lane (layout, f->counter);
  cp_timeline_layout_item_rect (layout, item, 0, 800, &y, &h);
  hit = cp_timeline_layout_hit_test (layout, view, X (100), y + h / 2, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_LANE);
  g_assert_cmpuint (hit.lane, ==, f->counter);

  /* Scrolled: the same screen point finds what is below. */
  item = cp_timeline_layout_find_lane (layout, f->loader);
  cp_timeline_layout_item_rect (layout, item, 0, 800, &y, &h);
  cp_view_state_set_vertical_offset (view, h);
  x = X (3000);
  hit = cp_timeline_layout_hit_test (layout, view, x, y + h / 2, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_GROUP);
  g_assert_true (cp_timeline_layout_get_item (layout, hit.item)->is_device);

  /* Outside the view. */
  hit = cp_timeline_layout_hit_test (layout, view, x, 900, 800, 3);
  g_assert_cmpint (hit.kind, ==, CP_HIT_NONE);
#undef X
  cp_timeline_layout_unref (layout);
}

static guint
find_tid (CpTrace *trace,
          gint64   tid)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *lane = cp_trace_get_lane (trace, i);

      if (cp_lane_get_kind (lane) == CP_LANE_HOST_THREAD && cp_lane_get_tid (lane) == tid)
        return i;
    }
  g_assert_not_reached ();
  return 0;
}

/* Group and lane names a new user reads: Kineto names its GPU processes
 * after the host program and labels them "GPU 0"; XPlane names planes
 * "/device:TPU:0"; a pthread id cut to 32 bits arrives negative. */
static void
test_names (void)
{
  g_autoptr(GError) error = NULL;
  CpTraceBuilder *b = cp_trace_builder_new ();
  guint named = cp_trace_builder_process_for_pid (b, 0);
  guint bare = cp_trace_builder_process_for_pid (b, 1);
  guint tpu = cp_trace_builder_process_for_pid (b, 2);
  guint custom = cp_trace_builder_process_for_pid (b, 501);
  guint host = cp_trace_builder_process_for_pid (b, 4242);
  guint neg, pos;
  CpProcess *p;
  CpDevice *dev;
  CpTrace *trace;

  p = cp_trace_builder_get_process (b, named);
  p->is_device = TRUE;
  p->device = 0;
  p->name = cp_trace_builder_intern (b, "python3.10", -1);
  p->labels = cp_trace_builder_intern (b, "GPU 0", -1);
  dev = cp_trace_builder_device (b, 0);
  dev->name = cp_trace_builder_intern (b, "NVIDIA H100 80GB HBM3", -1);

  p = cp_trace_builder_get_process (b, bare);
  p->is_device = TRUE;
  p->device = 1;
  p->name = cp_trace_builder_intern (b, "python3", -1);

  p = cp_trace_builder_get_process (b, tpu);
  p->is_device = TRUE;
  p->device = 2;
  p->name = cp_trace_builder_intern (b, "worker-0 /device:TPU:2", -1);
  dev = cp_trace_builder_device (b, 2);
  dev->name = cp_trace_builder_intern (b, "TPU v4", -1);

  p = cp_trace_builder_get_process (b, custom);
  p->is_device = TRUE;
  p->device = 3;
  p->name = cp_trace_builder_intern (b, "/device:CUSTOM:Megascale Trace", -1);

  cp_trace_builder_get_process (b, host)->name = cp_trace_builder_intern (b, "python", -1);
  neg = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { -549452224, 0 });
  add (b, neg, 0, 10, "a");
  pos = cp_trace_builder_lane (b, host, CP_LANE_HOST_THREAD, (CpLaneKey) { 4242, 0 });
  add (b, pos, 0, 10, "b");

  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);

  {
    g_autofree char *a = cp_timeline_group_label (trace, named);
    g_autofree char *c = cp_timeline_group_label (trace, bare);
    g_autofree char *d = cp_timeline_group_label (trace, tpu);
    g_autofree char *e = cp_timeline_group_label (trace, custom);
    g_autofree char *h = cp_timeline_group_label (trace, host);
    g_autofree char *t1 = cp_timeline_lane_label (trace, find_tid (trace, -549452224));
    g_autofree char *t2 = cp_timeline_lane_label (trace, find_tid (trace, 4242));

    g_assert_cmpstr (a, ==, "GPU 0 · NVIDIA H100 80GB HBM3");
    g_assert_cmpstr (c, ==, "GPU 1");
    g_assert_cmpstr (d, ==, "TPU 2 · TPU v4");
    g_assert_cmpstr (e, ==, "/device:CUSTOM:Megascale Trace");
    g_assert_cmpstr (h, ==, "python (pid 4242)");
    /* 2^32 - 549452224 */
    g_assert_cmpstr (t1, ==, "thread 3745515072");
    g_assert_cmpstr (t2, ==, "thread 4242");
  }
  g_object_unref (trace);
}

/* Real captures. HTA's trace_diff capture has one host thread whose tid
 * Kineto wrote as -19360192 (a Python count over its X events finds no
 * other negative tid below -1): its lane reads 2^32 - 19360192. The
 * ResNet-50 sample's first event is at 1623142623460016 µs, Unix time
 * (2021-06-08 08:57:03 UTC), without baseTimeNanoseconds. */
static CpTrace *
load_shared (const char *rel)
{
  const char *root = cp_test_shared_traces ();
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  CpTrace *trace;

  if (root == NULL)
    return NULL;
  path = g_build_filename (root, rel, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  file = g_file_new_for_path (path);
  trace = cp_load_file (file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

static void
test_real_names (void)
{
  CpTrace *trace = load_shared ("facebookresearch__HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz");
  CpTrace *resnet;
  guint n_negative = 0, n_found = 0;

  if (trace == NULL)
    {
      g_test_skip ("../shared/traces is missing");
      return;
    }
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      g_autofree char *label = cp_timeline_lane_label (trace, i);

      if (g_str_has_prefix (label, "thread -"))
        n_negative++;
      if (g_strcmp0 (label, "thread 4275607104") == 0)
        n_found++;
    }
  g_assert_cmpuint (n_negative, ==, 0);
  g_assert_cmpuint (n_found, ==, 1);
  g_object_unref (trace);

  resnet = load_shared ("pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  g_assert_nonnull (resnet);
  g_assert_cmpint (cp_trace_get_origin_abs (resnet), ==, G_GINT64_CONSTANT (1623142623460016) * 1000);
  g_assert_true (cp_time_origin_is_date (cp_trace_get_origin_abs (resnet), cp_trace_get_origin_is_epoch (resnet)));
  g_object_unref (resnet);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/timeline-layout/order", Fixture, NULL, fixture_setup, test_order, fixture_teardown);
  g_test_add ("/timeline-layout/collapse-hide-pin", Fixture, NULL, fixture_setup, test_collapse_hide_pin, fixture_teardown);
  g_test_add ("/timeline-layout/hit", Fixture, NULL, fixture_setup, test_hit, fixture_teardown);

  g_test_add_func ("/timeline-layout/names", test_names);
  g_test_add_func ("/timeline-layout/real-names", test_real_names);

  return g_test_run ();
}
