/* fuzz-condition.c: the --fail-if condition parser
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is a condition ("gpu.utilization<80%"). A condition that
 * parses names a known metric and a finite threshold, and can be evaluated
 * on an empty run and on a run with figures. One that does not is
 * CP_HISTORY_ERROR_INVALID, and when it says where it goes wrong, that
 * character is inside the input or just after its end. */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history/cp-history.h"
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
  g_autofree char *text = NULL;
  g_autoptr(CpHistoryCondition) cond = NULL;
  g_autoptr(GError) error = NULL;

  cp_fuzz_init ();
  if (size > 4096)
    return 0;
  text = g_strndup ((const char *) data, size);
  cond = cp_history_condition_parse (text, &error);
  if (cond != NULL)
    {
      g_autoptr(CpHistoryRun) run = cp_history_run_new ();
      CpHistoryDevice dev = { 0, g_strdup ("gpu"), 10, 100, 100, 50, 100, 50, 0.5 };
      double value;

      CHECK (error == NULL);
      CHECK (cp_history_metric_is_valid (cp_history_condition_get_metric (cond), NULL));
      CHECK (isfinite (cp_history_condition_get_threshold (cond)));
      CHECK (strcmp (cp_history_condition_get_text (cond), text) == 0);
      CHECK (!cp_history_condition_holds (cond, run, &value) || isfinite (value));
      g_array_append_val (run->devices, dev);
      run->busy_percent = 50;
      run->loading_percent = 12;
      (void) cp_history_condition_holds (cond, run, &value);
    }
  else
    {
      const char *at;

      CHECK (g_error_matches (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_INVALID));
      CHECK (g_utf8_validate (error->message, -1, NULL) || !g_utf8_validate (text, -1, NULL));
      at = strstr (error->message, "at character ");
      if (at != NULL && g_utf8_validate (text, -1, NULL))
        {
          /* The input itself may hold the words: take the last. */
          const char *next;
          guint64 n;

          while ((next = strstr (at + 1, "at character ")) != NULL)
            at = next;
          n = g_ascii_strtoull (at + strlen ("at character "), NULL, 10);
          CHECK (n >= 1 && n <= size + 1);
        }
    }
  return 0;
}
