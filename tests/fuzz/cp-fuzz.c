/* cp-fuzz.c: what the fuzz harnesses share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/cp-analysis.h"
#include "formats/cp-args.h"
#include "cp-fuzz.h"

static GLogWriterOutput
quiet_writer (GLogLevelFlags   level,
              const GLogField *fields,
              gsize            n_fields,
              gpointer         user_data)
{
  /* Criticals and warnings abort (g_log_set_always_fatal() below); say
   * why before that happens. */
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    return g_log_writer_standard_streams (level, fields, n_fields, user_data);
  return G_LOG_WRITER_HANDLED;
}

void
cp_fuzz_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      g_log_set_always_fatal (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
      g_log_set_writer_func (quiet_writer, NULL, NULL);
      g_once_init_leave (&done, 1);
    }
}

void
cp_fuzz_rng_init (CpFuzzRng    *rng,
                  const guint8 *data,
                  gsize         size)
{
  guint64 h = G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) ^ size;

  for (gsize i = 0; i < MIN (size, 64); i++)
    h = (h ^ data[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  rng->s = h ? h : 1;
}

guint32
cp_fuzz_rng_next (CpFuzzRng *rng)
{
  /* xorshift64* */
  rng->s ^= rng->s >> 12;
  rng->s ^= rng->s << 25;
  rng->s ^= rng->s >> 27;
  return (guint32) ((rng->s * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d)) >> 32);
}

gsize
cp_fuzz_chunk_size (CpFuzzRng *rng,
                    gsize      max)
{
  guint32 r = cp_fuzz_rng_next (rng);
  gsize n;

  switch (r & 3)
    {
    case 0:
      n = 1 + ((r >> 2) & 3);
      break;
    case 1:
      n = 1 + ((r >> 2) & 31);
      break;
    case 2:
      n = 1 + ((r >> 2) & 1023);
      break;
    default:
      n = 1 + ((r >> 2) % 65536);
      break;
    }
  return MAX (1, MIN (n, max));
}

#define CHECK(cond)                                                          \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

static void
check_text (const char *s)
{
  CHECK (s != NULL);
  CHECK (g_utf8_validate (s, -1, NULL));
}

void
cp_fuzz_exercise_trace (CpTrace *trace)
{
  guint n_lanes = cp_trace_get_n_lanes (trace);
  guint n_flows = 0, n_steps = 0, n_instants = 0;
  const CpFlow *flows = cp_trace_get_flows (trace, &n_flows);
  const CpStep *steps = cp_trace_get_steps (trace, &n_steps);
  const CpLoadReport *report = cp_trace_get_load_report (trace);
  guint64 total = 0, decoded = 0;

  CHECK (cp_trace_get_duration (trace) >= 0);
  check_text (cp_trace_get_title (trace));
  for (guint i = 0; i < cp_trace_get_n_processes (trace); i++)
    {
      const CpProcess *p = cp_trace_get_process (trace, i);

      check_text (cp_trace_get_string (trace, p->name));
      check_text (cp_trace_get_string (trace, p->key));
      check_text (cp_trace_get_string (trace, p->labels));
    }
  for (guint i = 0; i < cp_trace_get_n_devices (trace); i++)
    check_text (cp_trace_get_string (trace, cp_trace_get_device (trace, i)->name));

  for (guint l = 0; l < n_lanes; l++)
    {
      CpLane *lane = cp_trace_get_lane (trace, l);
      const CpSlices *s = cp_lane_get_slices (lane);
      guint n_rows = cp_lane_get_n_rows (lane);
      guint row_total = 0;
      gint64 end_max = G_MININT64;

      CHECK (cp_lane_get_index (lane) == l);
      CHECK (cp_lane_get_process (lane) < cp_trace_get_n_processes (trace));
      check_text (cp_lane_get_name (lane));
      for (guint i = 0; i < s->n; i++)
        {
          CpSliceRef ref = { l, i };

          CHECK (cp_slices_get_dur (s, i) >= 0);
          CHECK (i == 0 || cp_slices_get_start (s, i - 1) <= cp_slices_get_start (s, i));
          CHECK (s->row[i] < MAX (n_rows, 1));
          end_max = MAX (end_max, cp_slices_get_end (s, i));
          CHECK (end_max >= cp_slices_get_start (s, i));
          check_text (cp_trace_get_string (trace, cp_slices_get_name (s, i)));
          check_text (cp_trace_get_string (trace, cp_slices_get_cat (s, i)));
          (void) cp_trace_get_gpu_info (trace, ref);
          /* What the Details pane shows for a slice. */
          if (cp_slices_get_args (s, i) != 0 && decoded < 2000)
            {
              g_autoptr(GError) error = NULL;
              g_autoptr(GPtrArray) args = cp_args_decode (trace, ref, &error);

              decoded++;
              CHECK ((args == NULL) == (error != NULL));
              for (guint a = 0; args != NULL && a < args->len; a++)
                {
                  CpArg *arg = g_ptr_array_index (args, a);

                  check_text (arg->key);
                  check_text (arg->value);
                }
            }
        }
      for (guint r = 0; r < n_rows; r++)
        {
          guint n = 0;
          const guint32 *idx = cp_lane_get_row_slices (lane, r, &n);

          for (guint k = 0; k < n; k++)
            {
              CHECK (idx[k] < s->n);
              CHECK (k == 0 || cp_slices_get_start (s, idx[k - 1]) <= cp_slices_get_start (s, idx[k]));
            }
          row_total += n;
        }
      CHECK (s->n == 0 || row_total == s->n);
      if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        {
          const gint64 *ts;
          const double *values;
          guint n = cp_lane_get_counter (lane, &ts, &values);

          for (guint k = 1; k < n; k++)
            CHECK (ts[k - 1] <= ts[k]);
        }
      if (s->n > 0)
        {
          (void) cp_lane_busy_time (lane, cp_slices_get_start (s, 0), end_max);
          CHECK (cp_lane_first_ending_after (lane, end_max) < s->n);
          CHECK (end_max == G_MAXINT64 || cp_lane_first_ending_after (lane, end_max + 1) == s->n);
          (void) cp_lane_slice_at (lane, cp_slices_get_start (s, s->n / 2), -1);
        }
      total += s->n;
    }
  CHECK (total == cp_trace_get_n_slices (trace));

  for (guint i = 0; i < n_flows; i++)
    {
      CHECK (cp_trace_slice_ref_valid (trace, flows[i].from));
      CHECK (cp_trace_slice_ref_valid (trace, flows[i].to));
    }
  for (guint i = 0; i < n_steps; i++)
    CHECK (steps[i].start <= steps[i].end);
  (void) cp_trace_get_instants (trace, &n_instants);
  for (guint i = 0; i < cp_trace_get_n_metadata (trace); i++)
    {
      const CpMetadataEntry *m = cp_trace_get_metadata (trace, i);

      check_text (cp_trace_get_string (trace, m->key));
      if (m->json != NULL)
        check_text (m->json);
    }
  for (guint i = 0; i < cp_load_report_n_warnings (report); i++)
    check_text (cp_load_report_get_warning (report, i)->message);

  /* The diagnosis runs on every capture the window or the command line
   * opens. */
  if (cp_trace_get_n_slices (trace) < 20000)
    {
      g_autoptr(CpAnalysis) analysis = cp_analysis_new (trace, NULL, NULL);

      CHECK (analysis != NULL);
    }
}
