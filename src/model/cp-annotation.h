/* cp-annotation.h: one user note on a capture, a moment or a range
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "cp-trace.h"

G_BEGIN_DECLS

typedef enum
{
  CP_ANNOTATION_MARKER,    /* a moment: start == end */
  CP_ANNOTATION_NOTE,      /* a range */
} CpAnnotationKind;

const char *cp_annotation_kind_to_string   (CpAnnotationKind  kind);
gboolean    cp_annotation_kind_from_string (const char       *str,
                                            CpAnnotationKind *kind);

/* A lane named by what stays the same when the capture is read again (by
 * this or a later reader): its kind, its process key (the pid as text), its
 * number within the process (thread id, stream, transfer direction...: what
 * cp_lane_get_tid() returns) and its name. Lane indexes are not stable; this
 * is. */
typedef struct
{
  CpLaneKind  kind;
  char       *process;
  gint64      number;
  char       *name;
} CpLaneIdentity;

CpLaneIdentity *cp_lane_identity_new      (CpTrace              *trace,
                                           guint                 lane);
CpLaneIdentity *cp_lane_identity_copy     (const CpLaneIdentity *identity);
void            cp_lane_identity_free     (CpLaneIdentity       *identity);
gboolean        cp_lane_identity_equal    (const CpLaneIdentity *a,
                                           const CpLaneIdentity *b);
/* The lane of trace with this identity: an exact match, else the one lane
 * with the same kind, process and number (a renamed lane). FALSE when none
 * or several match. */
gboolean        cp_lane_identity_find     (const CpLaneIdentity *identity,
                                           CpTrace              *trace,
                                           guint                *lane);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpLaneIdentity, cp_lane_identity_free)

/* Annotation colours are 0xRRGGBBAA; these are offered in the window. The
 * first is the default. */
#define CP_ANNOTATION_N_COLORS 6
guint32     cp_annotation_get_palette_color (guint index);

/* The lane of an annotation across every lane (the same value as the
 * timeline's CP_LANE_ALL). */
#define CP_ANNOTATION_ALL_LANES G_MAXUINT32

#define CP_TYPE_ANNOTATION (cp_annotation_get_type ())

G_DECLARE_FINAL_TYPE (CpAnnotation, cp_annotation, CP, ANNOTATION, GObject)

/* Annotations are made and owned by CpAnnotations; their setters notify and
 * update the modification time, and the collection saves and re-sorts. */

guint                 cp_annotation_get_id          (CpAnnotation *self);
CpAnnotationKind      cp_annotation_get_kind        (CpAnnotation *self);

const char           *cp_annotation_get_text        (CpAnnotation *self);
void                  cp_annotation_set_text        (CpAnnotation *self,
                                                     const char   *text);
/* The first line of the text, for lists and labels on the timeline. */
char                 *cp_annotation_dup_title       (CpAnnotation *self);

guint32               cp_annotation_get_color       (CpAnnotation *self);
void                  cp_annotation_set_color       (CpAnnotation *self,
                                                     guint32       rgba);

/* Time in ns from the trace origin; a marker has start == end. For an
 * annotation attached to a slice this follows the slice. */
gint64                cp_annotation_get_start       (CpAnnotation *self);
gint64                cp_annotation_get_end         (CpAnnotation *self);
/* Moves the annotation; a marker keeps start == end (end is ignored). An
 * attached annotation stays attached, at the new offset from its slice. */
void                  cp_annotation_set_range       (CpAnnotation *self,
                                                     gint64        start,
                                                     gint64        end);

/* Creation and modification times, µs since the Unix epoch. */
gint64                cp_annotation_get_created     (CpAnnotation *self);
gint64                cp_annotation_get_modified    (CpAnnotation *self);

/* The lane it is on, by identity; NULL for an annotation across every lane. */
const CpLaneIdentity *cp_annotation_get_lane_identity (CpAnnotation *self);

/* Attachment to a slice: the slice's start (ns from the origin, as it was
 * when attached) and its name, on the annotation's lane. */
gboolean              cp_annotation_is_attached     (CpAnnotation *self);
gint64                cp_annotation_get_slice_start (CpAnnotation *self);
const char           *cp_annotation_get_slice_name  (CpAnnotation *self);

/* Where it is in the current trace (see cp_annotations_set_trace()): the
 * lane index (CP_ANNOTATION_ALL_LANES for every lane), the slice it is
 * attached to (CP_SLICE_REF_NONE when none), and whether its lane or slice
 * was not found (detached: it keeps its stored times and is drawn across
 * every lane). */
guint                 cp_annotation_get_lane        (CpAnnotation *self);
CpSliceRef            cp_annotation_get_slice       (CpAnnotation *self);
gboolean              cp_annotation_is_detached     (CpAnnotation *self);

/* The rule id of the finding it was pinned from, or NULL. */
const char           *cp_annotation_get_rule        (CpAnnotation *self);

G_END_DECLS
