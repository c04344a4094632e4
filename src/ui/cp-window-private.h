/* cp-window-private.h: what CpApplication needs from CpWindow
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-window.h"

G_BEGIN_DECLS

/* Loads a file that was already checked into an idle window. */
void _cp_window_load                  (CpWindow *self,
                                       GFile    *file);

/* The application made this window for one capture while others were open:
 * cancelling its load closes it, and a load error shows in another window. */
void _cp_window_set_made_for_capture  (CpWindow *self,
                                       gboolean  made_for_capture);

/* Whether the window acts as in a Flatpak sandbox (files it cannot see read
 * as missing, and are explained as the sandbox's doing). Set from
 * cp_is_sandboxed(); tests set it. */
void _cp_window_set_sandboxed         (CpWindow *self,
                                       gboolean  sandboxed);

G_END_DECLS
