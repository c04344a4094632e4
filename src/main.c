/* main.c: the chokepoint executable
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "cli/cp-cli.h"

#ifdef CP_HAVE_GUI
# include "ui/cp-application.h"
#endif

int
main (int   argc,
      char *argv[])
{
  int status = 0;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Headless commands never touch GTK, so they work without a display. */
  if (cp_cli_dispatch (argc, argv, &status))
    return status;

#ifdef CP_HAVE_GUI
  {
    g_autoptr(CpApplication) app = cp_application_new ();

    return g_application_run (G_APPLICATION (app), argc, argv);
  }
#else
  g_printerr (_("Usage: %s COMMAND FILE\n"
                "This build has no window; commands: info, diagnose, compare, report.\n"),
              g_get_prgname () ? g_get_prgname () : "chokepoint");
  return CP_EXIT_USAGE;
#endif
}
