/* cp-renderer.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "cp-renderer.h"

static gboolean
env_says_software (void)
{
  const char *always = g_getenv ("LIBGL_ALWAYS_SOFTWARE");
  const char *gallium = g_getenv ("GALLIUM_DRIVER");

  if (always != NULL && *always != '\0' && strcmp (always, "0") != 0 && g_ascii_strcasecmp (always, "false") != 0)
    return TRUE;
  return gallium != NULL && (strcmp (gallium, "llvmpipe") == 0 || strcmp (gallium, "softpipe") == 0);
}

gboolean
cp_ui_gl_is_software (const char *dri_dir)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  g_return_val_if_fail (dri_dir != NULL, FALSE);

  if (env_says_software ())
    return TRUE;
  dir = g_dir_open (dri_dir, 0, NULL);
  if (dir == NULL)
    return TRUE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;

      if (!g_str_has_prefix (name, "renderD"))
        continue;
      path = g_build_filename (dri_dir, name, NULL);
      if (g_access (path, R_OK | W_OK) == 0)
        return FALSE;
    }
  return TRUE;
}

const char *
cp_ui_choose_renderer (void)
{
  const char *set = g_getenv ("GSK_RENDERER");

  if (set != NULL && *set != '\0')
    return NULL;
  if (!cp_ui_gl_is_software ("/dev/dri"))
    return NULL;
  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  return "cairo";
}
