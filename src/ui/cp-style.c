/* cp-style.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "cp-style.h"

gboolean
cp_ui_widget_is_dark (GtkWidget *widget)
{
  GdkRGBA fg;

  if (adw_style_manager_get_dark (adw_style_manager_get_default ()))
    return TRUE;
  if (widget == NULL)
    return FALSE;
#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, &fg);
#else
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
#endif
  /* Light text is drawn on a dark background (Rec. 709 luma). */
  return 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
}

gboolean
cp_ui_style_take_gtk_theme (void)
{
  const char *theme = g_getenv ("GTK_THEME");
  gboolean dark;

  if (theme == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (theme, "Adwaita:dark") == 0 || g_ascii_strcasecmp (theme, "Adwaita-dark") == 0)
    dark = TRUE;
  else if (g_ascii_strcasecmp (theme, "Adwaita") == 0 || g_ascii_strcasecmp (theme, "Adwaita:light") == 0)
    dark = FALSE;
  else
    return FALSE;
  g_unsetenv ("GTK_THEME");
  return dark;
}

void
cp_ui_style_apply_gtk_theme (gboolean dark)
{
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
}
