/* cp-test-xspace.h: building small XSpace captures for tests
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "analysis/cp-analysis.h"

G_BEGIN_DECLS

/* A plane under construction. Stat and event metadata are created on first
 * use of a name and written after the lines, in the field order protobuf
 * serializers use. */
typedef struct _XpPlane XpPlane;

XpPlane    *xp_plane_new          (gint64      id,
                                   const char *name);
/* Stat metadata id for a name (created on first use). */
gint64      xp_stat_id            (XpPlane    *plane,
                                   const char *name);
/* Event metadata id for a name; display_name may be NULL. stats: NULL-terminated
 * list of XStat messages (from xp_stat_*) that belong to the metadata. */
gint64      xp_event_meta         (XpPlane    *plane,
                                   const char *name,
                                   const char *display_name,
                                   ...) G_GNUC_NULL_TERMINATED;

/* XStat messages. */
GByteArray *xp_stat_int           (XpPlane    *plane,
                                   const char *name,
                                   gint64      v);
GByteArray *xp_stat_uint          (XpPlane    *plane,
                                   const char *name,
                                   guint64     v);
GByteArray *xp_stat_double        (XpPlane    *plane,
                                   const char *name,
                                   double      v);
GByteArray *xp_stat_str           (XpPlane    *plane,
                                   const char *name,
                                   const char *v);
GByteArray *xp_stat_bytes         (XpPlane    *plane,
                                   const char *name,
                                   gsize       len);
/* ref_value: the string becomes a stat metadata of the plane. */
GByteArray *xp_stat_ref           (XpPlane    *plane,
                                   const char *name,
                                   const char *v);

/* An XEvent: name resolves to event metadata (created on demand), stats is a
 * NULL-terminated list of XStat messages, consumed. */
GByteArray *xp_event              (XpPlane    *plane,
                                   const char *name,
                                   gint64      offset_ps,
                                   gint64      duration_ps,
                                   ...) G_GNUC_NULL_TERMINATED;
/* An event with an explicit metadata id (possibly unknown). */
GByteArray *xp_event_raw          (gint64      metadata_id,
                                   gint64      offset_ps,
                                   gint64      duration_ps);
GByteArray *xp_event_aggregated   (XpPlane    *plane,
                                   const char *name,
                                   gint64      num_occurrences,
                                   gint64      duration_ps);

/* Adds an XLine with the given events (NULL-terminated, consumed).
 * display_id 0 and display_name NULL leave them out. */
void        xp_line               (XpPlane    *plane,
                                   gint64      id,
                                   gint64      display_id,
                                   const char *name,
                                   const char *display_name,
                                   gint64      timestamp_ns,
                                   ...) G_GNUC_NULL_TERMINATED;
/* A plane stat (XPlane.stats), consumed. */
void        xp_plane_stat         (XpPlane    *plane,
                                   GByteArray *stat);

/* Serializes and frees the plane into space as XSpace.planes. */
void        xp_space_add_plane    (GByteArray *space,
                                   XpPlane    *plane);
void        xp_space_add_hostname (GByteArray *space,
                                   const char *hostname);
/* A Task Environment plane with profile_start_time. */
void        xp_space_add_task_env (GByteArray *space,
                                   guint64     profile_start_ns);

/* The trace the XPlane reader makes of space (host hint "testhost"), and
 * its analysis in *analysis when not NULL; asserts that both succeed. */
CpTrace    *xp_space_load         (GByteArray  *space,
                                   CpAnalysis **analysis);

G_END_DECLS
