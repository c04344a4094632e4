/* cp-annotations.h: the annotations of one capture, as a list model
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "cp-annotation.h"
#include "cp-trace.h"

G_BEGIN_DECLS

/* An annotation as stored (what the sidecar reader hands over). Strings are
 * copied. */
typedef struct
{
  guint                 id;          /* 0: a new id is given */
  CpAnnotationKind      kind;
  const char           *text;
  guint32               rgba;        /* 0: the default colour */
  gint64                start;       /* ns from the trace origin */
  gint64                end;
  gint64                created;     /* µs since the epoch; 0: now */
  gint64                modified;
  const CpLaneIdentity *lane;        /* NULL: every lane */
  gboolean              attached;
  gint64                slice_start;
  const char           *slice_name;
  const char           *rule;
} CpAnnotationRecord;

#define CP_TYPE_ANNOTATIONS (cp_annotations_get_type ())

/* A GListModel of CpAnnotation sorted by start time (then id). "changed" is
 * emitted after every addition, removal or edit, for saving. */
G_DECLARE_FINAL_TYPE (CpAnnotations, cp_annotations, CP, ANNOTATIONS, GObject)

CpAnnotations *cp_annotations_new            (void);

/* The trace the annotations are on. Setting it places every annotation:
 * lanes are found by identity and attached annotations by their slice's
 * start and name (see cp_annotation_is_detached()). Lane arguments below
 * are indexes into this trace. */
CpTrace       *cp_annotations_get_trace      (CpAnnotations *self);
void           cp_annotations_set_trace      (CpAnnotations *self,
                                              CpTrace       *trace);

/* A marker at time t on a lane (or CP_ANNOTATION_ALL_LANES). rgba 0 picks
 * the default colour. */
CpAnnotation  *cp_annotations_add_marker     (CpAnnotations *self,
                                              gint64         t,
                                              guint          lane,
                                              const char    *text,
                                              guint32        rgba);
/* A note on [start, end] on a lane (or every lane). */
CpAnnotation  *cp_annotations_add_note       (CpAnnotations *self,
                                              gint64         start,
                                              gint64         end,
                                              guint          lane,
                                              const char    *text,
                                              guint32        rgba);
/* A note over a slice, attached to it. */
CpAnnotation  *cp_annotations_add_slice_note (CpAnnotations *self,
                                              CpSliceRef     ref,
                                              const char    *text,
                                              guint32        rgba);
/* A note on a lane range that came from a finding's evidence: attached to
 * the slice of that lane with exactly this range when there is one. */
CpAnnotation  *cp_annotations_add_evidence   (CpAnnotations *self,
                                              guint          lane,
                                              gint64         start,
                                              gint64         end,
                                              const char    *text,
                                              guint32        rgba,
                                              const char    *rule);
/* Adds a stored annotation (the sidecar reader). */
CpAnnotation  *cp_annotations_restore        (CpAnnotations            *self,
                                              const CpAnnotationRecord *record);

/* Attaches an annotation to a slice of the current trace (it moves to the
 * slice's lane and keeps its times), or detaches it (it stays where it is
 * drawn). */
void           cp_annotations_attach         (CpAnnotations *self,
                                              CpAnnotation  *annotation,
                                              CpSliceRef     ref);
void           cp_annotations_detach         (CpAnnotations *self,
                                              CpAnnotation  *annotation);

gboolean       cp_annotations_remove         (CpAnnotations *self,
                                              CpAnnotation  *annotation);
void           cp_annotations_remove_all     (CpAnnotations *self);
CpAnnotation  *cp_annotations_lookup         (CpAnnotations *self,
                                              guint          id);
/* The position of an annotation in the list, or -1. */
gint           cp_annotations_find           (CpAnnotations *self,
                                              CpAnnotation  *annotation);
guint          cp_annotations_get_n_detached (CpAnnotations *self);
/* Increases with every change; the sidecar compares it to what it wrote. */
guint64        cp_annotations_get_serial     (CpAnnotations *self);

G_END_DECLS
