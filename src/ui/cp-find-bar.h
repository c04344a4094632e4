/* cp-find-bar.h: find slices by name across the whole capture
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "render/cp-search.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_FIND_BAR (cp_find_bar_get_type ())

G_DECLARE_FINAL_TYPE (CpFindBar, cp_find_bar, CP, FIND_BAR, GtkWidget)

/* A search bar: substring (smart case) or regular expression over every
 * slice name, run in a worker thread; the matches are highlighted through
 * the view state, Enter / Shift+Enter select the next / previous one in
 * time order, and the bar shows the count, total, mean and longest
 * duration. Escape closes it and clears the matches. */
GtkWidget            *cp_find_bar_new          (void);

void                  cp_find_bar_set_view_state (CpFindBar   *self,
                                                  CpViewState *view);
CpViewState          *cp_find_bar_get_view_state (CpFindBar   *self);

/* Shows the bar and focuses its entry. */
void                  cp_find_bar_open          (CpFindBar *self);
void                  cp_find_bar_close         (CpFindBar *self);
gboolean              cp_find_bar_is_open       (CpFindBar *self);

/* Runs a search now (as typing would, without the typing delay). */
void                  cp_find_bar_search        (CpFindBar    *self,
                                                 const char   *query,
                                                 CpSearchMode  mode);
/* Selects the next or previous match. */
void                  cp_find_bar_step          (CpFindBar *self,
                                                 gboolean   forward);

/* The last finished search, NULL while one runs or none did. */
const CpSearchResult *cp_find_bar_get_result    (CpFindBar *self);
/* The status line ("3 of 1,234 · total 12.3 ms · ..."). */
const char           *cp_find_bar_get_status    (CpFindBar *self);

G_END_DECLS
