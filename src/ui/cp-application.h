/* cp-application.h: the Chokepoint application (one window per capture)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CP_TYPE_APPLICATION (cp_application_get_type ())

G_DECLARE_FINAL_TYPE (CpApplication, cp_application, CP, APPLICATION, AdwApplication)

/* The most recent captures kept in the recent list. */
#define CP_RECENT_MAX 10

CpApplication *cp_application_new             (void);
/* Flags are G_APPLICATION_HANDLES_OPEN plus extra_flags (tests pass
 * G_APPLICATION_NON_UNIQUE). */
CpApplication *cp_application_new_with_flags  (GApplicationFlags extra_flags);

GSettings     *cp_application_get_settings    (CpApplication *self);

/* Opens a capture where it belongs: the window already showing it, else an
 * empty window, else a new window. */
/* Several files, or one folder of per-rank captures, open as one job
 * (CpJobWindow); one capture opens as cp_application_open_capture(). */
void           cp_application_open_files      (CpApplication *self,
                                               GFile * const *files,
                                               guint          n_files);
void           cp_application_open_capture    (CpApplication *self,
                                               GFile         *file);
/* Opens a comparison window of a (before) and b (after); the same as the
 * application action "compare" with ("A", "B"), URIs or paths. */
void           cp_application_compare         (CpApplication *self,
                                               GFile         *a,
                                               GFile         *b);

/* A new, empty window, not yet presented. */
GtkWindow     *cp_application_new_window      (CpApplication *self);

/* The window for a capture: the one that already shows (or loads) it, with
 * *existing set, else an idle window, else a new one. Not presented. */
GtkWindow     *cp_application_get_window_for  (CpApplication *self,
                                               GFile         *file,
                                               gboolean      *existing);

/* The recent captures (URIs, most recent first) and the menu made of them
 * (a section of "win.open-recent" items, or one disabled item when empty,
 * followed by "Clear List"). */
void           cp_application_add_recent      (CpApplication *self,
                                               GFile         *file);
char         **cp_application_dup_recent      (CpApplication *self);
/* Where a recent capture really is (a host path the document portal gave),
 * for its menu label; NULL forgets it. Kept while the capture is recent. */
void           cp_application_set_recent_location (CpApplication *self,
                                                   GFile         *file,
                                                   const char    *location);
char          *cp_application_dup_recent_location (CpApplication *self,
                                                   GFile         *file);
GMenuModel    *cp_application_get_recent_menu (CpApplication *self);

G_END_DECLS
