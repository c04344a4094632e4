/* fuzz-sidecar.c: the annotations sidecar parser
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is a sidecar file (<capture>.chokepoint.json). It is parsed
 * into the annotations of a small trace (so that lanes and slices are
 * looked up, and times moved to the trace's origin), then written back with
 * cp_sidecar_to_json() and parsed again: what was accepted once must be
 * accepted again, and the second writing must equal the first (the
 * format round-trips). Every string an annotation hands out must be valid
 * UTF-8. A parse that fails must leave the annotations as they were. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cp-chrome-reader.h"
#include "formats/cp-sidecar.h"
#include "model/cp-annotations.h"
#include "model/cp-trace-builder.h"
#include "cp-fuzz.h"

#define CHECK(cond)                                                          \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

/* Two processes, a few lanes and slices to attach notes to. */
static const char trace_json[] =
  "{\"traceEvents\": ["
  "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"python\"}},"
  "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": \"main\"}},"
  "{\"ph\": \"X\", \"name\": \"step\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 2, \"ts\": 1000, \"dur\": 500},"
  "{\"ph\": \"X\", \"name\": \"aten::mm\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 2, \"ts\": 1100, \"dur\": 50},"
  "{\"ph\": \"X\", \"name\": \"gemm\", \"cat\": \"kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1200, \"dur\": 80,"
  " \"args\": {\"device\": 0, \"stream\": 7}}"
  "]}";

static CpTrace *
make_trace (void)
{
  g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
  g_autoptr(CpChromeReader) reader = cp_chrome_reader_new (builder, NULL, "trace.json");
  g_autoptr(GError) error = NULL;

  CHECK (cp_chrome_reader_feed (reader, trace_json, strlen (trace_json), &error));
  CHECK (cp_chrome_reader_finish (reader, &error));
  g_clear_pointer (&reader, cp_chrome_reader_free);
  return cp_trace_builder_finish (g_steal_pointer (&builder), &error);
}

static void
check_annotations (CpAnnotations *annotations)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (annotations));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpAnnotation) a = g_list_model_get_item (G_LIST_MODEL (annotations), i);
      g_autofree char *title = cp_annotation_dup_title (a);
      const CpLaneIdentity *lane = cp_annotation_get_lane_identity (a);

      CHECK (cp_annotation_get_end (a) >= cp_annotation_get_start (a));
      CHECK (g_utf8_validate (cp_annotation_get_text (a), -1, NULL));
      CHECK (g_utf8_validate (title, -1, NULL));
      if (cp_annotation_get_rule (a) != NULL)
        CHECK (g_utf8_validate (cp_annotation_get_rule (a), -1, NULL));
      if (cp_annotation_is_attached (a))
        CHECK (g_utf8_validate (cp_annotation_get_slice_name (a), -1, NULL));
      if (lane != NULL)
        CHECK (g_utf8_validate (lane->process, -1, NULL) && g_utf8_validate (lane->name, -1, NULL));
      CHECK (cp_annotations_lookup (annotations, cp_annotation_get_id (a)) == a);
      CHECK (cp_annotations_find (annotations, a) == (gint) i);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static CpTrace *trace;
  g_autoptr(CpAnnotations) first = NULL;
  g_autoptr(CpAnnotations) second = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *json1 = NULL;
  g_autofree char *json2 = NULL;

  cp_fuzz_init ();
  if (size > 1024 * 1024)
    return 0;
  if (trace == NULL)
    trace = make_trace ();

  /* json-glib wants text without a NUL inside; the sidecar is read with
   * g_file_get_contents(), which adds one at the end. */
  text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';

  first = cp_annotations_new ();
  cp_annotations_set_trace (first, trace);
  if (!cp_sidecar_parse (text, size, first, &error))
    {
      CHECK (error != NULL);
      CHECK (error->domain == CP_SIDECAR_ERROR);
      CHECK (g_utf8_validate (error->message, -1, NULL));
      CHECK (g_list_model_get_n_items (G_LIST_MODEL (first)) == 0);
      return 0;
    }
  check_annotations (first);

  json1 = cp_sidecar_to_json (first, trace, "trace.json", 1234, NULL);
  second = cp_annotations_new ();
  cp_annotations_set_trace (second, trace);
  if (!cp_sidecar_parse (json1, -1, second, &error))
    {
      g_printerr ("%s\n%s\n", error->message, json1);
      CHECK (!"what the sidecar wrote could not be read back");
    }
  check_annotations (second);
  CHECK (g_list_model_get_n_items (G_LIST_MODEL (first)) ==
         g_list_model_get_n_items (G_LIST_MODEL (second)));
  json2 = cp_sidecar_to_json (second, trace, "trace.json", 1234, NULL);
  /* The "saved" time aside, the two writings are the same. */
  {
    g_autoptr(GRegex) saved = g_regex_new ("\"saved\" *: *\"[^\"]*\"", 0, 0, NULL);
    g_autofree char *a = g_regex_replace_literal (saved, json1, -1, 0, "", 0, NULL);
    g_autofree char *b = g_regex_replace_literal (saved, json2, -1, 0, "", 0, NULL);

    if (g_strcmp0 (a, b) != 0)
      {
        g_printerr ("first:\n%s\nsecond:\n%s\n", json1, json2);
        CHECK (!"the sidecar does not round-trip");
      }
  }
  return 0;
}
