/* fuzz-xplane-reader.c: the XPlane (XSpace protobuf) reader
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is an .xplane.pb file's bytes (or gzip/zstd-compressed ones).
 * It goes through an in-memory CpSource and cp_xplane_reader_read() as the
 * loader does; the trace is then walked by cp_fuzz_exercise_trace(), which
 * also decodes every slice's stats as the Details pane does. The same bytes
 * are then added as the second host of a profile-folder-like read, which
 * must not break what the first host loaded; that read gives every line a
 * thread of its own (three threads). */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cp-source.h"
#include "formats/cp-xplane-reader.h"
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
load (GBytes   *bytes,
      guint     n_hosts,
      GError  **error)
{
  g_autoptr(CpTraceBuilder) builder = cp_trace_builder_new ();
  g_autoptr(CpXPlaneReader) reader = cp_xplane_reader_new (builder);
  guint n_read = 0;

  for (guint h = 0; h < n_hosts; h++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autoptr(CpSource) source = cp_source_new_for_bytes (bytes, "fuzz.xplane.pb", &local_error);

      if (source == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      if (cp_xplane_reader_read (reader, source, NULL, NULL, NULL, 0, 0, &local_error))
        n_read++;
      else
        {
          CHECK (local_error != NULL);
          CHECK (g_utf8_validate (local_error->message, -1, NULL));
          if (n_read == 0 && h == n_hosts - 1)
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return NULL;
            }
        }
    }
  if (n_read == 0)
    {
      g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, "nothing read");
      return NULL;
    }
  cp_xplane_reader_finish (reader);
  g_clear_pointer (&reader, cp_xplane_reader_free);
  return cp_trace_builder_finish (g_steal_pointer (&builder), error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(CpTrace) one = NULL;
  g_autoptr(CpTrace) two = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;

  cp_fuzz_init ();
  if (size > 4 * 1024 * 1024)
    return 0;

  bytes = g_bytes_new_static (data, size);
  one = load (bytes, 1, &error);
  CHECK ((one == NULL) == (error != NULL));
  if (one != NULL)
    cp_fuzz_exercise_trace (one);

  /* The second read: every line on its own, by three threads. */
  _cp_xplane_set_threads (3, 1);
  two = load (bytes, 2, &error2);
  _cp_xplane_set_threads (0, 0);
  CHECK ((two == NULL) == (one == NULL));
  if (two != NULL)
    {
      cp_fuzz_exercise_trace (two);
      CHECK (cp_trace_get_n_slices (two) == 2 * cp_trace_get_n_slices (one));
    }
  return 0;
}
