/* cp-intervals.h: sets of half-open time intervals and their algebra
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A half-open interval [start, end) in ns. */
typedef struct
{
  gint64 start;
  gint64 end;
} CpInterval;

/* A set of intervals. After cp_intervals_normalize() (and for every set the
 * algebra returns) the intervals are sorted, disjoint, non-empty and never
 * touch: [a, b) and [b, c) are merged into [a, c). */
typedef struct
{
  CpInterval *v;
  gsize       n;
  gsize       cap;
  gint        ref_count;   /* shared sets are read-only */
} CpIntervals;

CpIntervals *cp_intervals_new              (void);
CpIntervals *cp_intervals_new_sized        (gsize              reserve);
CpIntervals *cp_intervals_copy             (const CpIntervals *set);
/* Sets are reference counted so that big ones can be shared instead of
 * copied; a set with more than one reference must not be changed.
 * cp_intervals_free() drops a reference. */
CpIntervals *cp_intervals_ref              (CpIntervals       *set);
void         cp_intervals_free             (CpIntervals       *set);
void         cp_intervals_clear            (CpIntervals       *set);

/* Appends [start, end) as is; empty intervals are dropped. The set may then
 * be unsorted: call cp_intervals_normalize() before using the algebra. */
void         cp_intervals_add              (CpIntervals       *set,
                                            gint64             start,
                                            gint64             end);
/* Appends [start, end) to a normalized set whose last interval starts at or
 * before start, merging with it when they overlap or touch: the way to build
 * the union of slices that arrive sorted by start. */
void         cp_intervals_add_sorted       (CpIntervals       *set,
                                            gint64             start,
                                            gint64             end);
/* Sorts by start and merges overlapping or touching intervals (U(S)). */
void         cp_intervals_normalize        (CpIntervals       *set);

/* The algebra, on normalized sets; each returns a new normalized set. */
CpIntervals *cp_intervals_union            (const CpIntervals *a,
                                            const CpIntervals *b);
CpIntervals *cp_intervals_intersect        (const CpIntervals *a,
                                            const CpIntervals *b);
CpIntervals *cp_intervals_subtract         (const CpIntervals *a,
                                            const CpIntervals *b);
/* The union of many normalized sets (NULL entries are skipped). When only one
 * set is non-empty, a new reference to it is returned. */
CpIntervals *cp_intervals_union_many       (CpIntervals * const *sets,
                                            guint               n_sets);
/* The part of a normalized set inside [t0, t1). */
CpIntervals *cp_intervals_clip             (const CpIntervals *set,
                                            gint64             t0,
                                            gint64             t1);
/* The gaps of a normalized set inside [t0, t1): [t0, t1) minus the set. */
CpIntervals *cp_intervals_complement       (const CpIntervals *set,
                                            gint64             t0,
                                            gint64             t1);

/* Calls func for each interval of a ∩ b, in order, without building it. */
typedef void (*CpIntervalFunc) (gint64   start,
                                gint64   end,
                                gpointer user_data);
void         cp_intervals_foreach_intersection (const CpIntervals *a,
                                                const CpIntervals *b,
                                                CpIntervalFunc     func,
                                                gpointer           user_data);

/* The intervals of a normalized set that overlap a normalized set b by a
 * positive length (whole, not clipped). */
CpIntervals *cp_intervals_select_touching  (const CpIntervals *set,
                                            const CpIntervals *b);

/* |S|: the summed length of a normalized set. */
gint64       cp_intervals_length           (const CpIntervals *set);
/* |S ∩ [t0, t1)| for a normalized set, by binary search. */
gint64       cp_intervals_length_in        (const CpIntervals *set,
                                            gint64             t0,
                                            gint64             t1);
/* |S ∩ A| without building the intersection. */
gint64       cp_intervals_overlap_length   (const CpIntervals *a,
                                            const CpIntervals *b);
/* Per-window lengths: out[i] = |S ∩ windows[i]| for windows sorted by start
 * and disjoint; one linear pass. */
void         cp_intervals_lengths_in_windows (const CpIntervals *set,
                                              const CpInterval  *windows,
                                              guint              n_windows,
                                              gint64            *out);
/* The index of the first interval whose end is > t (n when none). */
gsize        cp_intervals_first_ending_after (const CpIntervals *set,
                                              gint64             t);
gboolean     cp_intervals_equal            (const CpIntervals *a,
                                            const CpIntervals *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpIntervals, cp_intervals_free)

G_END_DECLS
