/* fuzz-chrome-reader.c: the Chrome Trace Event reader, through an in-memory source
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is a capture file's bytes (JSON, or gzip/zstd-compressed JSON).
 * It is read the way the loader reads a file: an in-memory CpSource sniffs
 * and decompresses it, the reader reads it as zero-copy slices, and the
 * trace is built and then walked by everything that consumes traces
 * (cp_fuzz_exercise_trace(): model invariants, argument decoding, the
 * diagnosis). Uncompressed input is read a second time without the
 * mapping, in chunks of random sizes, and must give the same result. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cp-chrome-reader.h"
#include "formats/cp-source.h"
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

static CpTrace *
read_chunked (const guint8  *data,
              gsize          size,
              GError       **error)
{
  g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
  g_autoptr(CpChromeReader) reader = cp_chrome_reader_new (builder, NULL, "fuzz.json");
  CpFuzzRng rng;
  gsize pos = 0;

  cp_fuzz_rng_init (&rng, data, size);
  while (pos < size)
    {
      gsize n = cp_fuzz_chunk_size (&rng, size - pos);
      g_autoptr(GError) local_error = NULL;

      if (!cp_chrome_reader_feed (reader, (const char *) data + pos, n, &local_error))
        break;
      pos += n;
    }
  if (!cp_chrome_reader_finish (reader, error))
    return NULL;
  g_clear_pointer (&reader, cp_chrome_reader_free);
  return cp_trace_builder_finish (g_steal_pointer (&builder), error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(CpSource) source = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  CpContentKind kind;

  cp_fuzz_init ();
  if (size > 4 * 1024 * 1024)
    return 0;

  bytes = g_bytes_new_static (data, size);
  source = cp_source_new_for_bytes (bytes, "fuzz.json", &error);
  if (source == NULL)
    {
      CHECK (error != NULL);
      return 0;
    }
  kind = cp_source_get_content_kind (source);
  if (kind != CP_CONTENT_JSON_OBJECT && kind != CP_CONTENT_JSON_ARRAY)
    return 0;

  {
    g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();

    if (cp_chrome_reader_read_source (source, builder, NULL, NULL, NULL, &error))
      trace = cp_trace_builder_finish (g_steal_pointer (&builder), &error);
  }
  CHECK ((trace == NULL) == (error != NULL));
  if (trace != NULL)
    cp_fuzz_exercise_trace (trace);

  if (cp_source_get_compression (source) == CP_COMPRESSION_NONE)
    {
      g_autoptr(GError) error2 = NULL;
      g_autoptr(CpTrace) trace2 = read_chunked (data, size, &error2);

      CHECK ((trace2 == NULL) == (error2 != NULL));
      CHECK ((trace == NULL) == (trace2 == NULL));
      if (trace != NULL)
        {
          CHECK (cp_trace_get_n_slices (trace) == cp_trace_get_n_slices (trace2));
          CHECK (cp_trace_get_n_lanes (trace) == cp_trace_get_n_lanes (trace2));
          CHECK (cp_trace_get_load_report (trace)->events ==
                 cp_trace_get_load_report (trace2)->events);
        }
      else
        CHECK (error->code == error2->code);
    }
  return 0;
}
