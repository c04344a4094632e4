/* cp-notes-pane.h: the "Notes" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "cp-pane.h"

#include "model/cp-annotations.h"
#include "render/cp-view-state.h"

G_BEGIN_DECLS

#define CP_TYPE_NOTES_PANE (cp_notes_pane_get_type ())

G_DECLARE_FINAL_TYPE (CpNotesPane, cp_notes_pane, CP, NOTES_PANE, CpPane)

/* Lists the capture's markers and notes in time order, with their colour,
 * time, lane and whether they are detached. Activating one shows it on the
 * timeline (and selects its slice); each row edits (the note popover) or
 * deletes its note. It also says where the notes are saved. */
GtkWidget     *cp_notes_pane_new             (void);

/* Where the notes are saved, shown under the list (NULL: not saved yet). */
void           cp_notes_pane_set_location    (CpNotesPane   *self,
                                              const char    *location);

/* Shows the n-th note on the timeline, as activating its row does. */
void           cp_notes_pane_activate        (CpNotesPane   *self,
                                              guint          n);
/* Opens the note popover on the n-th note. */
void           cp_notes_pane_edit            (CpNotesPane   *self,
                                              guint          n);

G_END_DECLS
