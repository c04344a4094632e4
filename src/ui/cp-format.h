/* cp-format.h: numbers, sizes and durations as people read them
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "analysis/cp-finding.h"
#include "model/cp-trace.h"

G_BEGIN_DECLS

/* "850 ns", "12.3 µs", "456 ms", "1.23 s", "2 min 05 s": three significant
 * digits below a minute. Negative values get a minus sign. */
char *cp_ui_format_duration     (gint64          ns);
/* A count with the locale's digit grouping: "1,234,567". */
char *cp_ui_format_count        (guint64         n);
/* A share in percent, the one way every pane writes one: "13.7%",
 * "100%", "0%", and "<0.1%" for a share too small to show but not none. */
char *cp_ui_format_percent      (double          percent);
/* A folder as people read it: its path with the home folder as "~"
 * ("~/runs/resnet"), or its URI when it is not local. */
char *cp_ui_format_folder       (GFile          *folder);
/* A kernel or op name for a narrow table column: a demangled C++ kernel
 * without its "void " return type and its parameter list
 * ("void at::native::f<float>(int, float*)" -> "at::native::f<float>");
 * other names ("Memcpy HtoD (Pageable -> Device)") as they are. The full name stays in tooltips. */
char *cp_ui_format_short_name   (const char     *name);
/* The style class a severity's icon takes: "error" (high), "warning"
 * (moderate) or "dim-label" (info). */
const char *cp_ui_severity_css_class (CpSeverity severity);
/* A capture format name from the load report ("chrome-json+gzip") for
 * people: "Chrome trace, gzip". Unknown names come back unchanged. */
char *cp_ui_format_capture_kind (const char     *format);
/* A lane kind (and transfer direction) for people: "Kernels",
 * "Copies, host to device". */
char *cp_ui_format_lane_kind    (CpLaneKind      kind,
                                 CpTransferKind  transfer);
/* The devices of a capture in one phrase, devices of one kind counted
 * together: "2 × NVIDIA H100 80GB HBM3", "NVIDIA A100, 3 × NVIDIA V100",
 * or "None". Unnamed devices read "GPU 3". */
char *cp_ui_format_devices      (CpTrace        *trace);
/* The name of a device: its product name, else "GPU 3". */
char *cp_ui_format_device_name  (CpTrace        *trace,
                                 const CpDevice *device);

G_END_DECLS
