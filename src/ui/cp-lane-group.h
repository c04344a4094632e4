/* cp-lane-group.h: the lanes of one process or device, for lists
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

#define CP_TYPE_LANE_GROUP (cp_lane_group_get_type ())

G_DECLARE_FINAL_TYPE (CpLaneGroup, cp_lane_group, CP, LANE_GROUP, GObject)

/* The groups of a trace in lane order, one per process that owns lanes. */
GListStore  *cp_lane_group_list_for_trace (CpTrace     *trace);

const char  *cp_lane_group_get_title      (CpLaneGroup *self);
/* "PID 1234", "Device 0 · NVIDIA H100", or NULL. */
const char  *cp_lane_group_get_subtitle   (CpLaneGroup *self);
gboolean     cp_lane_group_get_is_device  (CpLaneGroup *self);
guint        cp_lane_group_get_process    (CpLaneGroup *self);
/* A GListModel of CpLane. */
GListModel  *cp_lane_group_get_lanes      (CpLaneGroup *self);
guint64      cp_lane_group_get_n_slices   (CpLaneGroup *self);

G_END_DECLS
