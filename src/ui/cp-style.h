/* cp-style.h: whether a widget is drawn light or dark
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* TRUE when the widget is drawn on a dark background: libadwaita's dark
 * style, or a dark theme forced another way (GTK_THEME=Adwaita:dark), which
 * the style manager does not see but the widget's own text colour shows.
 * What Cairo draws by hand follows it. */
gboolean cp_ui_widget_is_dark (GtkWidget *widget);

/* GTK_THEME=Adwaita:dark (or Adwaita-dark) asks for GTK's own copy of the
 * theme, which libadwaita does not support: padding that cuts the side
 * pane's tabs, and a style manager that still says light. Called before
 * GTK starts, it takes the variable back and returns whether it asked for
 * dark, which cp_ui_style_apply_gtk_theme() then gives through libadwaita.
 * Other themes are left alone. */
gboolean cp_ui_style_take_gtk_theme  (void);
void     cp_ui_style_apply_gtk_theme (gboolean dark);

G_END_DECLS
