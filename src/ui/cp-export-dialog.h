/* cp-export-dialog.h: what to put in a report and where to save it
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "render/cp-report.h"

G_BEGIN_DECLS

#define CP_TYPE_EXPORT_DIALOG (cp_export_dialog_get_type ())

G_DECLARE_FINAL_TYPE (CpExportDialog, cp_export_dialog, CP, EXPORT_DIALOG, AdwWindow)

/* A modal dialog: the range (whole capture, current view or a chosen
 * range), the lanes (all, those shown, or a pattern), findings, step chart
 * and annotations, the width and scale, light or dark, and the file (its
 * extension picks PNG, SVG or PDF). "export" is emitted when the user
 * confirms valid choices; the owner reads them and closes the dialog. */
CpExportDialog *cp_export_dialog_new          (GtkWindow             *parent,
                                               CpViewState           *view,
                                               GFile                 *file);

/* The choices, into options (strings stay owned by the dialog). FALSE with
 * a message for people when they make no report (a bad time, an empty
 * pattern...). */
gboolean        cp_export_dialog_get_options  (CpExportDialog        *self,
                                               CpReportOptions       *options,
                                               GError               **error);
/* Starts from these choices (the window remembers the last ones). */
void            cp_export_dialog_set_options  (CpExportDialog        *self,
                                               const CpReportOptions *options);

GFile          *cp_export_dialog_get_file     (CpExportDialog        *self);
void            cp_export_dialog_set_file     (CpExportDialog        *self,
                                               GFile                 *file);

/* Shows a problem inside the dialog (a toast). */
void            cp_export_dialog_show_error   (CpExportDialog        *self,
                                               const char            *message);

/* As the Export button does. */
void            cp_export_dialog_confirm      (CpExportDialog        *self);

G_END_DECLS
