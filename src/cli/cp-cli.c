/* cp-cli.c: dispatch of the headless commands
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-cli.h"
#include "formats/cp-loader.h"

typedef struct
{
  const char   *name;
  CpCliCommand  run;
  const char   *summary;
} Command;

/* Each command file provides its entry point; the table lists those built. */
static const Command commands[] = {
#ifdef CP_CLI_HAVE_INFO
  { "info", cp_cli_info, N_("Print a summary of a capture") },
#endif
#ifdef CP_CLI_HAVE_DIAGNOSE
  { "diagnose", cp_cli_diagnose, N_("Name the bottlenecks of a capture") },
#endif
#ifdef CP_CLI_HAVE_COMPARE
  { "compare", cp_cli_compare, N_("Compare two captures: what got faster, what got slower") },
#endif
#ifdef CP_CLI_HAVE_REPORT
  { "report", cp_cli_report, N_("Write an annotated report image") },
#endif
#ifdef CP_CLI_HAVE_HISTORY
  { "history", cp_cli_history, N_("Record runs and show them over time") },
#endif
#ifdef CP_CLI_HAVE_MCP
  { "mcp", cp_cli_mcp, N_("Serve the Model Context Protocol to a coding agent") },
#endif
  { NULL, NULL, NULL }
};

gboolean
cp_cli_dispatch (int    argc,
                 char **argv,
                 int   *status)
{
  if (argc < 2 || argv[1] == NULL)
    return FALSE;

  for (guint i = 0; commands[i].name != NULL; i++)
    {
      if (strcmp (argv[1], commands[i].name) == 0)
        {
          *status = commands[i].run (argc - 1, argv + 1);
          return TRUE;
        }
    }
  return FALSE;
}

CpTrace *
cp_cli_load (const char  *name,
             GFile       *file,
             GError     **error)
{
  g_autofree char *notice = cp_load_describe_memory (file);

  if (notice != NULL)
    g_printerr ("chokepoint %s: %s\n", name, notice);
  return cp_load_file (file, NULL, NULL, NULL, error);
}

/* Kernel names can run to hundreds of characters of template arguments:
 * the text reports keep their start (the JSON keeps them whole). */
#define NAME_CHARS 100

char *
cp_cli_short_name (const char *name)
{
  g_autofree char *head = NULL;

  if (g_utf8_strlen (name, -1) <= NAME_CHARS)
    return g_strdup (name);
  head = g_utf8_substring (name, 0, NAME_CHARS);
  return g_strconcat (head, "…", NULL);
}
