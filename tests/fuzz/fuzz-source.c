/* fuzz-source.c: sniffing and gzip/zstd streaming of CpSource
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is a file's bytes, typically gzip or zstd data (the seeds are):
 * an in-memory source sniffs it and hands out all of its content, chunk by
 * chunk. The chunks must add up to what the source says it produced, the
 * consumed input never exceeds the input, progress never goes backwards,
 * and a source never produces more than the decompression limits allow. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cp-source.h"
#include "model/cp-trace.h"
#include "cp-fuzz.h"

#define CHECK(cond)                                                          \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(CpSource) source = NULL;
  g_autoptr(GError) error = NULL;
  guint64 total = 0, consumed = 0;
  gsize head_len = 0;
  const guint8 *head;
  GBytes *chunk;
  gboolean first = TRUE;

  cp_fuzz_init ();
  if (size > 1024 * 1024)
    return 0;

  bytes = g_bytes_new_static (data, size);
  source = cp_source_new_for_bytes (bytes, "fuzz.bin", &error);
  if (source == NULL)
    {
      CHECK (error != NULL);
      CHECK (error->domain == CP_TRACE_ERROR);
      return 0;
    }
  CHECK (cp_source_get_file_size (source) == size);
  head = cp_source_peek (source, &head_len);
  CHECK (head_len <= 4096);
  CHECK (cp_source_get_content_kind (source) != CP_CONTENT_EMPTY || head_len == 0);
  if (cp_source_get_content_kind (source) == CP_CONTENT_UNKNOWN ||
      cp_source_get_content_kind (source) == CP_CONTENT_EMPTY)
    CHECK (g_utf8_validate (cp_source_get_guess (source), -1, NULL) &&
           cp_source_get_guess (source)[0] != '\0');

  while ((chunk = cp_source_read (source, NULL, &error)) != NULL)
    {
      gsize n;
      const guint8 *d = g_bytes_get_data (chunk, &n);

      CHECK (n > 0);
      if (first)
        CHECK (memcmp (d, head, MIN (n, head_len)) == 0);
      first = FALSE;
      if (cp_source_get_compression (source) == CP_COMPRESSION_NONE)
        CHECK (memcmp (d, data + total, n) == 0);
      total += n;
      CHECK (cp_source_get_consumed (source) >= consumed);
      consumed = cp_source_get_consumed (source);
      CHECK (consumed <= size);
      g_bytes_unref (chunk);
    }
  CHECK (total == cp_source_get_produced (source));
  if (total > CP_SOURCE_RATIO_GRACE)
    CHECK (total / CP_SOURCE_MAX_RATIO <= MAX (size, 1) + 1);
  if (error != NULL)
    CHECK (error->domain == CP_TRACE_ERROR);
  else if (cp_source_get_compression (source) == CP_COMPRESSION_NONE)
    CHECK (total == size);
  /* Reading past the end stays at the end. */
  CHECK (cp_source_read (source, NULL, NULL) == NULL);
  if (cp_source_get_trailing_note (source) != NULL)
    CHECK (g_utf8_validate (cp_source_get_trailing_note (source), -1, NULL));
  return 0;
}
