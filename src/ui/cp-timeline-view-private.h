/* cp-timeline-view-private.h: what the UI tests drive directly
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-timeline-view.h"

G_BEGIN_DECLS

/* A scroll as the scroll controller hands it over, with the modifiers held
 * (Ctrl zooms at the pointer, Shift pans) and its unit (wheel notches or
 * pixels). TRUE when handled. */
gboolean _cp_timeline_view_scroll (CpTimelineView  *self,
                                   double           dx,
                                   double           dy,
                                   GdkModifierType  state,
                                   gboolean         wheel);

G_END_DECLS
