/* cp-search.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-search.h"

static gboolean
has_upper (const char *s)
{
  for (const char *p = s; *p; p = g_utf8_next_char (p))
    {
      if (g_unichar_isupper (g_utf8_get_char (p)))
        return TRUE;
    }
  return FALSE;
}

typedef struct
{
  CpTrace *trace;
} TimeCtx;

static gint
cmp_by_time (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  const TimeCtx *ctx = user_data;
  const CpSliceRef *x = a, *y = b;
  gint64 sx = cp_trace_slice_start (ctx->trace, *x);
  gint64 sy = cp_trace_slice_start (ctx->trace, *y);

  if (sx != sy)
    return sx < sy ? -1 : 1;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

CpSearchResult *
cp_search_run (CpTrace       *trace,
               const char    *query,
               CpSearchMode   mode,
               GCancellable  *cancellable,
               GError       **error)
{
  const CpStringPool *pool;
  g_autofree guint8 *hit = NULL;
  g_autofree char *folded_query = NULL;
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(GArray) out = NULL;
  CpSearchResult *result;
  gboolean caseless;
  guint n_strings;
  TimeCtx ctx = { trace };

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (query != NULL, NULL);

  result = g_new0 (CpSearchResult, 1);
  result->longest = CP_SLICE_REF_NONE;
  if (*query == '\0')
    return result;

  caseless = !has_upper (query);
  if (mode == CP_SEARCH_REGEX)
    {
      regex = g_regex_new (query, (caseless ? G_REGEX_CASELESS : 0) | G_REGEX_OPTIMIZE, 0, error);
      if (regex == NULL)
        {
          cp_search_result_free (result);
          return NULL;
        }
    }
  else if (caseless)
    folded_query = g_utf8_casefold (query, -1);

  /* Every distinct string once. */
  pool = cp_trace_get_string_pool (trace);
  n_strings = cp_string_pool_size (pool);
  hit = g_new0 (guint8, MAX (n_strings, 1));
  for (guint id = 1; id < n_strings; id++)
    {
      const char *s = cp_string_pool_get (pool, id);
      gboolean m;

      if ((id & 0xfff) == 0 && g_cancellable_is_cancelled (cancellable))
        goto cancelled;
      if (regex)
        m = g_regex_match (regex, s, 0, NULL);
      else if (folded_query)
        {
          g_autofree char *folded = g_utf8_casefold (s, -1);

          m = strstr (folded, folded_query) != NULL;
        }
      else
        m = strstr (s, query) != NULL;
      if (m)
        {
          hit[id] = TRUE;
          result->n_names++;
        }
    }

  /* Then the name columns. */
  out = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  if (result->n_names > 0)
    {
      for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
        {
          const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

          if (g_cancellable_is_cancelled (cancellable))
            goto cancelled;
          for (guint i = 0; i < s->n; i++)
            {
              if (cp_slices_get_name (s, i) < n_strings && hit[cp_slices_get_name (s, i)])
                {
                  CpSliceRef ref = { l, i };

                  g_array_append_val (out, ref);
                  result->total += cp_slices_get_dur (s, i);
                  if (cp_slices_get_dur (s, i) > result->max || result->longest.lane == G_MAXUINT32)
                    {
                      result->max = cp_slices_get_dur (s, i);
                      result->longest = ref;
                    }
                }
              if ((i & 0xfffff) == 0xfffff && g_cancellable_is_cancelled (cancellable))
                goto cancelled;
            }
        }
    }

  result->n_matches = out->len;
  result->matches = (CpSliceRef *) (gpointer) g_array_free (g_steal_pointer (&out), FALSE);
  result->by_time = g_memdup2 (result->matches, sizeof (CpSliceRef) * MAX (result->n_matches, 1));
  g_qsort_with_data (result->by_time, result->n_matches, sizeof (CpSliceRef), cmp_by_time, &ctx);
  return result;

cancelled:
  cp_search_result_free (result);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
  return NULL;
}

void
cp_search_result_free (CpSearchResult *result)
{
  if (result == NULL)
    return;
  g_free (result->matches);
  g_free (result->by_time);
  g_free (result);
}

double
cp_search_result_mean (const CpSearchResult *result)
{
  g_return_val_if_fail (result != NULL, 0);
  return result->n_matches ? (double) result->total / result->n_matches : 0;
}

gint
cp_search_result_step (const CpSearchResult *result,
                       CpTrace              *trace,
                       CpSliceRef            from,
                       gboolean              forward)
{
  TimeCtx ctx = { trace };
  guint lo = 0, hi;

  g_return_val_if_fail (result != NULL, -1);

  if (result->n_matches == 0)
    return -1;
  if (from.lane == G_MAXUINT32 || !cp_trace_slice_ref_valid (trace, from))
    return forward ? 0 : (gint) result->n_matches - 1;

  /* First position ordered after `from`. */
  hi = result->n_matches;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (cmp_by_time (&result->by_time[mid], &from, &ctx) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (forward)
    return lo < result->n_matches ? (gint) lo : 0;

  /* Last position ordered before `from`. */
  lo = 0;
  hi = result->n_matches;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (cmp_by_time (&result->by_time[mid], &from, &ctx) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 ? (gint) lo - 1 : (gint) result->n_matches - 1;
}
