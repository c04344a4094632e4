/* cp-annotation-private.h: what CpAnnotations changes in its annotations
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-annotations.h"

G_BEGIN_DECLS

CpAnnotation *_cp_annotation_new          (guint                     id,
                                           const CpAnnotationRecord *record);
/* Places the annotation in trace (NULL: nowhere, every annotation with a lane
 * is then detached). Returns TRUE when where it is drawn changed. */
gboolean      _cp_annotation_resolve      (CpAnnotation             *self,
                                           CpTrace                  *trace);
/* Sets the lane (by index in trace, or CP_ANNOTATION_ALL_LANES) and the
 * slice it is attached to (CP_SLICE_REF_NONE: not attached). */
void          _cp_annotation_place        (CpAnnotation             *self,
                                           CpTrace                  *trace,
                                           guint                     lane,
                                           CpSliceRef                slice);

/* Marks the annotation as modified now. */
void          _cp_annotation_touch        (CpAnnotation             *self);

G_END_DECLS
