/* cp-capture-pane.h: the "Capture" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-pane.h"

#include "model/cp-trace.h"

G_BEGIN_DECLS

#define CP_TYPE_CAPTURE_PANE (cp_capture_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpCapturePane, cp_capture_pane, CP, CAPTURE_PANE, CpPane)

GtkWidget *cp_capture_pane_new              (void);
/* Where the capture is, for the Location row, when the trace's own file
 * does not say (a document of the portal): NULL shows the file's path. */
void       cp_capture_pane_set_location     (CpCapturePane *self,
                                             const char    *location);
/* Scrolls to the load report and opens its warnings. */
void       cp_capture_pane_show_load_report (CpCapturePane *self);

G_END_DECLS
