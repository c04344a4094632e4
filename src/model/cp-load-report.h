/* cp-load-report.h: what a reader saw, skipped and complained about
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "model/cp-limits.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 offset;          /* byte offset in the (uncompressed) input, or G_MAXUINT64 */
  char   *message;         /* translated, for people */
} CpLoadWarning;

/* Kept at most CP_LOAD_REPORT_MAX_WARNINGS (cp-limits.h) warnings; more are
 * counted in warnings_dropped. */

typedef struct
{
  char    *format;            /* "chrome-json", "chrome-json+gzip", "xplane", "xplane+zstd"... */
  guint64  file_bytes;        /* size on disk */
  guint64  input_bytes;       /* uncompressed bytes read */
  guint64  events;            /* events seen (all phases / all XEvents) */
  guint64  by_phase[128];     /* Chrome: count per 'ph' character; XPlane: unused */
  guint64  skipped;           /* events dropped for being invalid */
  guint64  unknown_phase;     /* events with a phase we do not know */
  guint64  unmatched_end;     /* E with no open B */
  guint64  unclosed_begin;    /* B closed at the end of the trace */
  guint64  aggregated;        /* XPlane events with num_occurrences (kept off the timeline) */
  guint64  cpu_samples;       /* Chrome: CPU profile samples with a stack (idle ones not counted) */
  guint    cpu_sample_threads;/* threads with CPU profile samples */
  gint64   cpu_sample_time;   /* ns: each sample lasts until the next one on its thread */
  gboolean truncated;         /* input ended early; everything complete was loaded */
  guint64  stopped_at;        /* offset where reading stopped when truncated */
  double   load_seconds;      /* wall-clock time of the load */
  GArray  *warnings;          /* of CpLoadWarning */
  guint    warnings_dropped;
} CpLoadReport;

CpLoadReport *cp_load_report_new        (void);
void          cp_load_report_free       (CpLoadReport *report);
void          cp_load_report_warn       (CpLoadReport *report,
                                         guint64       offset,
                                         const char   *format,
                                         ...) G_GNUC_PRINTF (3, 4);
guint         cp_load_report_n_warnings (const CpLoadReport *report);
const CpLoadWarning *
              cp_load_report_get_warning (const CpLoadReport *report,
                                          guint               i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpLoadReport, cp_load_report_free)

G_END_DECLS
