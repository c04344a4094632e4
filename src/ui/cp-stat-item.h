/* cp-stat-item.h: one row of the Kernels pane (a kernel name or a host op)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "analysis/cp-analysis.h"

G_BEGIN_DECLS

#define CP_TYPE_STAT_ITEM (cp_stat_item_get_type ())

G_DECLARE_FINAL_TYPE (CpStatItem, cp_stat_item, CP, STAT_ITEM, GObject)

/* Read-only properties for sorters and binding: "name", "count", "total",
 * "mean", "min", "max", "share", "tensor-core", "occupancy", "kernels",
 * "kernel-time", "kernel-share", "is-kernel". Times in ns, shares 0..1,
 * occupancy in percent (-1 when unknown). */
CpStatItem  *cp_stat_item_new_kernel  (CpTrace             *trace,
                                       const CpKernelStats *stats);
CpStatItem  *cp_stat_item_new_host_op (CpTrace             *trace,
                                       const CpHostOpStats *stats);

/* A row of kernel time by module or code line (cp_analysis_kernels_by_source()):
 * "kernels", "kernel-time" and "kernel-share" (of all_kernel_time) only. */
CpStatItem  *cp_stat_item_new_group   (CpTrace             *trace,
                                       const CpSourceGroup *group,
                                       gint64               all_kernel_time);

gboolean     cp_stat_item_is_kernel   (CpStatItem *self);
gboolean     cp_stat_item_is_group    (CpStatItem *self);
CpStr        cp_stat_item_get_name_id (CpStatItem *self);
const char  *cp_stat_item_get_name    (CpStatItem *self);
guint64      cp_stat_item_get_count   (CpStatItem *self);
gint64       cp_stat_item_get_total   (CpStatItem *self);
gint64       cp_stat_item_get_mean    (CpStatItem *self);
gint64       cp_stat_item_get_min     (CpStatItem *self);
gint64       cp_stat_item_get_max     (CpStatItem *self);
double       cp_stat_item_get_share   (CpStatItem *self);
gboolean     cp_stat_item_get_tensor_core (CpStatItem *self);
double       cp_stat_item_get_occupancy   (CpStatItem *self);
guint64      cp_stat_item_get_kernels     (CpStatItem *self);
gint64       cp_stat_item_get_kernel_time (CpStatItem *self);
double       cp_stat_item_get_kernel_share (CpStatItem *self);
/* Grid and block as "98×6×1 / 128×1×1", or "" when unknown or varying. */
const char  *cp_stat_item_get_shape   (CpStatItem *self);
/* For host ops: the kernels it launched, "name (count)" per line, top first. */
const char  *cp_stat_item_get_launched (CpStatItem *self);

/* The performance model of the row (cp-roofline.h): "tflops", "gbps",
 * "intensity" and "roofline" (percent) are -1 where unknown; "bound" is
 * "memory", "compute", "peak unknown" or "" (translated). */
void         cp_stat_item_set_roofline    (CpStatItem            *self,
                                           const CpRooflineStats *stats);
gboolean     cp_stat_item_get_has_flops   (CpStatItem *self);
gboolean     cp_stat_item_get_estimate    (CpStatItem *self);
double       cp_stat_item_get_tflops      (CpStatItem *self);
double       cp_stat_item_get_gbps        (CpStatItem *self);
double       cp_stat_item_get_intensity   (CpStatItem *self);
double       cp_stat_item_get_roofline    (CpStatItem *self);
const char  *cp_stat_item_get_bound_text  (CpStatItem *self);
CpBound      cp_stat_item_get_bound       (CpStatItem *self);

G_END_DECLS
