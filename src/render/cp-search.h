/* cp-search.h: find slices by name across a whole capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

typedef enum
{
  CP_SEARCH_SUBSTRING,     /* smart case: case-insensitive unless the query has capitals */
  CP_SEARCH_REGEX,         /* GRegex syntax, same smart case */
} CpSearchMode;

typedef struct
{
  CpSliceRef *matches;     /* sorted by (lane, index), n_matches */
  CpSliceRef *by_time;     /* the same, sorted by start (then lane) */
  guint       n_matches;
  gint64      total;       /* sum of durations, ns */
  gint64      max;         /* longest, ns */
  CpSliceRef  longest;
  guint       n_names;     /* distinct names that matched */
} CpSearchResult;

/* Matches every slice of every lane whose name matches query. Checks the
 * string pool once, then scans the name columns, so it reads each slice
 * once; run it in a worker thread for large captures (the trace is
 * immutable). NULL with G_IO_ERROR_CANCELLED when cancelled, or a
 * G_REGEX_ERROR for a bad pattern. An empty query matches nothing. */
CpSearchResult *cp_search_run          (CpTrace       *trace,
                                        const char    *query,
                                        CpSearchMode   mode,
                                        GCancellable  *cancellable,
                                        GError       **error);
void            cp_search_result_free  (CpSearchResult *result);

double          cp_search_result_mean  (const CpSearchResult *result);

/* The position in by_time of the first match starting after (or, going
 * backwards, before) the given slice; wraps around. -1 when there are no
 * matches. With CP_SLICE_REF_NONE: the first (or last) match. */
gint            cp_search_result_step  (const CpSearchResult *result,
                                        CpTrace              *trace,
                                        CpSliceRef            from,
                                        gboolean              forward);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpSearchResult, cp_search_result_free)

G_END_DECLS
