/* cp-load-report.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-load-report.h"

static void
clear_warning (gpointer data)
{
  CpLoadWarning *w = data;

  g_clear_pointer (&w->message, g_free);
}

CpLoadReport *
cp_load_report_new (void)
{
  CpLoadReport *report = g_new0 (CpLoadReport, 1);

  report->warnings = g_array_new (FALSE, TRUE, sizeof (CpLoadWarning));
  g_array_set_clear_func (report->warnings, clear_warning);
  report->stopped_at = G_MAXUINT64;
  return report;
}

void
cp_load_report_free (CpLoadReport *report)
{
  if (report == NULL)
    return;
  g_free (report->format);
  g_array_unref (report->warnings);
  g_free (report);
}

void
cp_load_report_warn (CpLoadReport *report,
                     guint64       offset,
                     const char   *format,
                     ...)
{
  CpLoadWarning w;
  va_list args;

  g_return_if_fail (report != NULL);

  if (report->warnings->len >= CP_LOAD_REPORT_MAX_WARNINGS)
    {
      report->warnings_dropped++;
      return;
    }

  va_start (args, format);
  w.offset = offset;
  w.message = g_strdup_vprintf (format, args);
  va_end (args);
  g_array_append_val (report->warnings, w);
}

guint
cp_load_report_n_warnings (const CpLoadReport *report)
{
  return report->warnings->len;
}

const CpLoadWarning *
cp_load_report_get_warning (const CpLoadReport *report,
                            guint               i)
{
  g_return_val_if_fail (i < report->warnings->len, NULL);
  return &g_array_index (report->warnings, CpLoadWarning, i);
}
