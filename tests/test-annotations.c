/* test-annotations.c: markers and notes, their order, edits and attachment
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-test-trace.h"
#include "model/cp-annotations.h"

/* A host thread with "step" [0, 1000) and "op" [100, 300); a kernel stream
 * with "gemm" [200, 500) and "relu" [600, 700). With `extra`, another host
 * thread (tid 0) comes first, and "relu" is missing. */
static CpTrace *
make_trace (gboolean extra)
{
  CpTraceBuilder *b = cp_test_trace_new ();
  guint host, kernel;

  if (extra)
    {
      guint other = cp_test_trace_host_lane (b, 0);

      cp_test_trace_slice (b, other, 50, 20, "other");
    }
  host = cp_test_trace_host_lane (b, 1);
  kernel = cp_test_trace_kernel_lane (b, 0, 7);
  cp_test_trace_slice (b, host, 0, 1000, "step");
  cp_test_trace_slice (b, host, 100, 200, "op");
  cp_test_trace_slice (b, kernel, 200, 300, "gemm");
  if (!extra)
    cp_test_trace_slice (b, kernel, 600, 100, "relu");
  return cp_test_trace_finish (b);
}

static guint
lane_of_kind (CpTrace    *trace,
              CpLaneKind  kind,
              gint64      tid)
{
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *lane = cp_trace_get_lane (trace, i);

      if (cp_lane_get_kind (lane) == kind && cp_lane_get_tid (lane) == tid)
        return i;
    }
  g_assert_not_reached ();
  return 0;
}

static CpSliceRef
find_slice (CpTrace    *trace,
            const char *name)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

      for (guint i = 0; i < s->n; i++)
        if (g_str_equal (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name))
          return (CpSliceRef) { l, i };
    }
  g_assert_not_reached ();
  return CP_SLICE_REF_NONE;
}

static gboolean
ref_eq (CpSliceRef a,
        CpSliceRef b)
{
  return a.lane == b.lane && a.index == b.index;
}

static gboolean
ref_is_none (CpSliceRef a)
{
  return a.lane == G_MAXUINT32;
}

typedef struct
{
  guint changed;
  guint added;
  guint removed;
} Counts;

static void
changed_cb (CpAnnotations *annotations,
            Counts        *c)
{
  c->changed++;
}

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Counts     *c)
{
  c->added += added;
  c->removed += removed;
}

static CpAnnotation *
item (CpAnnotations *a,
      guint          i)
{
  g_autoptr(CpAnnotation) an = g_list_model_get_item (G_LIST_MODEL (a), i);

  return an;   /* the list keeps it alive */
}

static void
test_add_order_edit (void)
{
  g_autoptr(CpTrace) trace = make_trace (FALSE);
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  Counts c = { 0 };
  CpAnnotation *m, *n, *s;
  gint64 modified;
  guint kernel = lane_of_kind (trace, CP_LANE_KERNEL, 7);

  cp_annotations_set_trace (a, trace);
  g_signal_connect (a, "changed", G_CALLBACK (changed_cb), &c);
  g_signal_connect (a, "items-changed", G_CALLBACK (items_changed_cb), &c);

  m = cp_annotations_add_marker (a, 800, CP_ANNOTATION_ALL_LANES, "warm-up ends", 0);
  n = cp_annotations_add_note (a, 400, 150, kernel, "slow region\nsecond line", 0x3584e4ff);
  s = cp_annotations_add_slice_note (a, find_slice (trace, "gemm"), "this gemm", 0);
  g_assert_cmpuint (c.changed, ==, 3);
  g_assert_cmpuint (c.added, ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (a)), ==, 3);

  /* Sorted by start: the note (150), the slice note (200), the marker. */
  g_assert_true (item (a, 0) == n);
  g_assert_true (item (a, 1) == s);
  g_assert_true (item (a, 2) == m);

  g_assert_cmpint (cp_annotation_get_kind (m), ==, CP_ANNOTATION_MARKER);
  g_assert_cmpint (cp_annotation_get_start (m), ==, 800);
  g_assert_cmpint (cp_annotation_get_end (m), ==, 800);
  g_assert_cmpuint (cp_annotation_get_lane (m), ==, CP_ANNOTATION_ALL_LANES);
  g_assert_null (cp_annotation_get_lane_identity (m));
  g_assert_cmphex (cp_annotation_get_color (m), ==, cp_annotation_get_palette_color (0));

  /* The range is put in order; the lane is named by identity. */
  g_assert_cmpint (cp_annotation_get_start (n), ==, 150);
  g_assert_cmpint (cp_annotation_get_end (n), ==, 400);
  g_assert_cmpuint (cp_annotation_get_lane (n), ==, kernel);
  g_assert_cmpint (cp_annotation_get_lane_identity (n)->kind, ==, CP_LANE_KERNEL);
  g_assert_cmpint (cp_annotation_get_lane_identity (n)->number, ==, 7);
  g_assert_cmpstr (cp_annotation_get_lane_identity (n)->process, ==, "0");
  g_assert_false (cp_annotation_is_attached (n));
  {
    g_autofree char *title = cp_annotation_dup_title (n);

    g_assert_cmpstr (title, ==, "slow region");
  }

  /* The slice note covers its slice and is attached to it. */
  g_assert_true (cp_annotation_is_attached (s));
  g_assert_false (cp_annotation_is_detached (s));
  g_assert_cmpint (cp_annotation_get_start (s), ==, 200);
  g_assert_cmpint (cp_annotation_get_end (s), ==, 500);
  g_assert_cmpstr (cp_annotation_get_slice_name (s), ==, "gemm");
  g_assert_true (ref_eq (cp_annotation_get_slice (s), find_slice (trace, "gemm")));

  /* Edits: text, colour, move. Each is one change with a later modified
   * time; a move re-sorts. */
  modified = cp_annotation_get_modified (m);
  c.changed = 0;
  cp_annotation_set_text (m, "warm-up ends here");
  g_assert_cmpuint (c.changed, ==, 1);
  g_assert_cmpint (cp_annotation_get_modified (m), >, modified);
  cp_annotation_set_text (m, "warm-up ends here");
  g_assert_cmpuint (c.changed, ==, 1);
  cp_annotation_set_color (m, 0x26a269ff);
  g_assert_cmpuint (c.changed, ==, 2);
  g_assert_cmphex (cp_annotation_get_color (m), ==, 0x26a269ff);
  cp_annotation_set_range (m, 10, 99999);
  g_assert_cmpuint (c.changed, ==, 3);
  g_assert_cmpint (cp_annotation_get_end (m), ==, 10);
  g_assert_true (item (a, 0) == m);
  g_assert_true (item (a, 1) == n);

  /* Lookup, detach, remove. */
  g_assert_true (cp_annotations_lookup (a, cp_annotation_get_id (s)) == s);
  g_assert_cmpint (cp_annotations_find (a, s), ==, 2);
  cp_annotations_detach (a, s);
  g_assert_false (cp_annotation_is_attached (s));
  g_assert_cmpuint (cp_annotation_get_lane (s), ==, kernel);
  cp_annotations_attach (a, s, find_slice (trace, "relu"));
  g_assert_true (cp_annotation_is_attached (s));
  g_assert_cmpstr (cp_annotation_get_slice_name (s), ==, "relu");
  g_assert_cmpint (cp_annotation_get_slice_start (s), ==, 600);
  /* Attaching keeps the note where it is. */
  g_assert_cmpint (cp_annotation_get_start (s), ==, 200);

  c.changed = 0;
  g_object_ref (s);
  g_assert_true (cp_annotations_remove (a, s));
  g_assert_false (cp_annotations_remove (a, s));
  g_assert_cmpuint (c.changed, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (a)), ==, 2);
  g_assert_null (cp_annotations_lookup (a, cp_annotation_get_id (s)));
  /* A removed annotation no longer reports edits. */
  cp_annotation_set_text (s, "gone");
  g_assert_cmpuint (c.changed, ==, 1);
  g_object_unref (s);

  cp_annotations_remove_all (a);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (a)), ==, 0);
}

static void
test_evidence (void)
{
  g_autoptr(CpTrace) trace = make_trace (FALSE);
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  guint host = lane_of_kind (trace, CP_LANE_HOST_THREAD, 1);
  CpAnnotation *exact, *range;

  cp_annotations_set_trace (a, trace);
  /* Exactly "op": attached to it. */
  exact = cp_annotations_add_evidence (a, host, 100, 300, "Input-bound", 0xc01c28ff, "input-bound");
  g_assert_true (cp_annotation_is_attached (exact));
  g_assert_cmpstr (cp_annotation_get_slice_name (exact), ==, "op");
  g_assert_cmpstr (cp_annotation_get_rule (exact), ==, "input-bound");
  /* A range that is no slice: on the lane only. */
  range = cp_annotations_add_evidence (a, host, 100, 250, "gap", 0, "gpu-gaps");
  g_assert_false (cp_annotation_is_attached (range));
  g_assert_cmpuint (cp_annotation_get_lane (range), ==, host);
  g_assert_cmpint (cp_annotation_get_kind (range), ==, CP_ANNOTATION_NOTE);
}

static void
test_follow_and_detach (void)
{
  g_autoptr(CpTrace) first = make_trace (FALSE);
  g_autoptr(CpTrace) second = make_trace (TRUE);
  g_autoptr(CpAnnotations) a = cp_annotations_new ();
  CpAnnotation *op, *relu, *lane_note;
  CpSliceRef op_second = find_slice (second, "op");

  cp_annotations_set_trace (a, first);
  op = cp_annotations_add_slice_note (a, find_slice (first, "op"), "op", 0);
  relu = cp_annotations_add_slice_note (a, find_slice (first, "relu"), "relu", 0);
  lane_note = cp_annotations_add_note (a, 10, 20, lane_of_kind (first, CP_LANE_HOST_THREAD, 1), "lane", 0);

  /* In the second reading another lane comes first: indexes move, the
   * annotations follow their slice and lane. */
  cp_annotations_set_trace (a, second);
  g_assert_cmpuint (op_second.lane, !=, find_slice (first, "op").lane);
  g_assert_true (ref_eq (cp_annotation_get_slice (op), op_second));
  g_assert_cmpuint (cp_annotation_get_lane (op), ==, op_second.lane);
  g_assert_false (cp_annotation_is_detached (op));
  g_assert_cmpuint (cp_annotation_get_lane (lane_note), ==, lane_of_kind (second, CP_LANE_HOST_THREAD, 1));

  /* "relu" is gone: kept, detached, drawn across every lane at its time,
   * its identity unchanged so that it returns if the slice does. */
  g_assert_true (cp_annotation_is_detached (relu));
  g_assert_true (cp_annotation_is_attached (relu));
  g_assert_cmpuint (cp_annotation_get_lane (relu), ==, CP_ANNOTATION_ALL_LANES);
  g_assert_true (ref_is_none (cp_annotation_get_slice (relu)));
  g_assert_cmpint (cp_annotation_get_start (relu), ==, 600);
  g_assert_cmpstr (cp_annotation_get_slice_name (relu), ==, "relu");
  g_assert_cmpuint (cp_annotations_get_n_detached (a), ==, 1);

  cp_annotations_set_trace (a, first);
  g_assert_false (cp_annotation_is_detached (relu));
  g_assert_cmpuint (cp_annotations_get_n_detached (a), ==, 0);
  g_assert_true (ref_eq (cp_annotation_get_slice (relu), find_slice (first, "relu")));

  /* The annotations hold a reference: release it before the traces go. */
  cp_annotations_set_trace (a, NULL);
  g_assert_cmpuint (cp_annotations_get_n_detached (a), ==, 3);
}

static void
test_lane_identity (void)
{
  g_autoptr(CpTrace) trace = make_trace (FALSE);
  guint kernel = lane_of_kind (trace, CP_LANE_KERNEL, 7);
  g_autoptr(CpLaneIdentity) id = cp_lane_identity_new (trace, kernel);
  g_autoptr(CpLaneIdentity) copy = cp_lane_identity_copy (id);
  guint found = 0;

  g_assert_true (cp_lane_identity_equal (id, copy));
  g_assert_true (cp_lane_identity_find (copy, trace, &found));
  g_assert_cmpuint (found, ==, kernel);
  /* Renamed: still found by kind, process and number. */
  g_free (copy->name);
  copy->name = g_strdup ("Stream 7 (renamed)");
  g_assert_false (cp_lane_identity_equal (id, copy));
  found = 0;
  g_assert_true (cp_lane_identity_find (copy, trace, &found));
  g_assert_cmpuint (found, ==, kernel);
  /* Another number: not found. */
  copy->number = 8;
  g_assert_false (cp_lane_identity_find (copy, trace, NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/annotations/add-order-edit", test_add_order_edit);
  g_test_add_func ("/annotations/evidence", test_evidence);
  g_test_add_func ("/annotations/follow-and-detach", test_follow_and_detach);
  g_test_add_func ("/annotations/lane-identity", test_lane_identity);

  return g_test_run ();
}
