/* cp-renderer.h: which GSK renderer draws the windows
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether OpenGL would run in software on this machine: Mesa told so
 * (LIBGL_ALWAYS_SOFTWARE, GALLIUM_DRIVER=llvmpipe or softpipe), or no GPU
 * render node the user may open under dri_dir ("/dev/dri"). */
gboolean    cp_ui_gl_is_software    (const char *dri_dir);

/* Called before the first window is drawn. Where GL runs in software,
 * GTK's GL renderer takes a core away from the loader and draws the first
 * frame later than its Cairo renderer (docs/performance.md, "The first
 * frame"): then it sets GSK_RENDERER=cairo, unless the user set
 * GSK_RENDERER already. Returns the renderer it set, or NULL. */
const char *cp_ui_choose_renderer   (void);

G_END_DECLS
