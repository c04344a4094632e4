/* cp-note-popover.h: write a note and pick its colour
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "model/cp-annotations.h"

G_BEGIN_DECLS

#define CP_TYPE_NOTE_POPOVER (cp_note_popover_get_type ())

G_DECLARE_FINAL_TYPE (CpNotePopover, cp_note_popover, CP, NOTE_POPOVER, GtkPopover)

/* A popover with the note's text, its colours and Delete / Done. The colour
 * applies at once; the text when the popover closes (Done, Ctrl+Enter,
 * Escape or a click elsewhere). */
GtkWidget    *cp_note_popover_new            (void);

/* Shows annotation (one of annotations) for editing; the caller pops it up. */
void          cp_note_popover_edit           (CpNotePopover *self,
                                              CpAnnotations *annotations,
                                              CpAnnotation  *annotation);
CpAnnotation *cp_note_popover_get_annotation (CpNotePopover *self);

/* The text being written (for tests and the window). */
void          cp_note_popover_set_text       (CpNotePopover *self,
                                              const char    *text);
/* Picks the n-th colour of cp_annotation_get_palette_color(). */
void          cp_note_popover_pick_color     (CpNotePopover *self,
                                              guint          index);

G_END_DECLS
