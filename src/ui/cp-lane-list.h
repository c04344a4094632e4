/* cp-lane-list.h: the lanes of a capture, grouped by process or device
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

#define CP_TYPE_LANE_LIST (cp_lane_list_get_type ())

G_DECLARE_FINAL_TYPE (CpLaneList, cp_lane_list, CP, LANE_LIST, GtkWidget)

GtkWidget  *cp_lane_list_new       (void);
CpTrace    *cp_lane_list_get_trace (CpLaneList *self);
void        cp_lane_list_set_trace (CpLaneList *self,
                                    CpTrace    *trace);
/* The rows shown: GtkTreeListRow items over CpLaneGroup and CpLane. */
GListModel *cp_lane_list_get_model (CpLaneList *self);

G_END_DECLS
