/* cp-cli-mcp.c: `chokepoint mcp [--root DIR]... [--memory-limit MB]`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * MCP's stdio transport: one JSON-RPC message a line on standard input,
 * one reply a line on standard output, the log on standard error. Ends at
 * the end of the input. The protocol and the tools are cp-mcp-server.c and
 * cp-mcp-tools.c.
 */

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cp-cli.h"
#include "cp-mcp.h"

#define DEFAULT_MEMORY_LIMIT_MB 4096

static gboolean
write_line (const char *text)
{
  if (fputs (text, stdout) == EOF || fputc ('\n', stdout) == EOF || fflush (stdout) != 0)
    {
      g_printerr (_("chokepoint mcp: could not write the reply: %s\n"), g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

static gboolean
handle (CpMcpServer *server,
        const char  *data,
        gsize        length)
{
  g_autofree char *reply = NULL;

  /* Blank lines (and a CR before the newline) are not messages. */
  while (length > 0 && (data[length - 1] == '\r' || data[length - 1] == ' ' || data[length - 1] == '\t'))
    length--;
  if (length == 0)
    return TRUE;
  reply = cp_mcp_server_handle (server, data, length);
  return reply == NULL || write_line (reply);
}

/* Reads standard input in blocks and hands each line to the server; a line
 * longer than CP_MCP_MAX_MESSAGE gets one error and is skipped to its end. */
static int
serve (CpMcpServer *server)
{
  g_autoptr(GByteArray) line = g_byte_array_new ();
  gboolean skipping = FALSE;
  guint8 block[65536];

  for (;;)
    {
      ssize_t n = read (STDIN_FILENO, block, sizeof block);
      gsize from = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_printerr (_("chokepoint mcp: could not read the input: %s\n"), g_strerror (errno));
          return CP_EXIT_FAILURE;
        }
      if (n == 0)
        break;
      for (gsize i = 0; i < (gsize) n; i++)
        {
          if (block[i] != '\n')
            continue;
          if (!skipping)
            {
              g_byte_array_append (line, block + from, (guint) (i - from));
              if (!handle (server, (const char *) line->data, line->len))
                return CP_EXIT_FAILURE;
            }
          g_byte_array_set_size (line, 0);
          skipping = FALSE;
          from = i + 1;
        }
      if (!skipping)
        {
          g_byte_array_append (line, block + from, (guint) ((gsize) n - from));
          if (line->len > CP_MCP_MAX_MESSAGE)
            {
              /* The server answers the too long message with its error. */
              if (!handle (server, (const char *) line->data, line->len))
                return CP_EXIT_FAILURE;
              g_byte_array_set_size (line, 0);
              skipping = TRUE;
            }
        }
    }
  if (!skipping && line->len > 0 && !handle (server, (const char *) line->data, line->len))
    return CP_EXIT_FAILURE;
  return CP_EXIT_OK;
}

int
cp_cli_mcp (int    argc,
            char **argv)
{
  g_auto(GStrv) roots = NULL;
  g_auto(GStrv) rest = NULL;
  g_autofree char *database = NULL;
  int memory_mb = DEFAULT_MEMORY_LIMIT_MB;
  const GOptionEntry entries[] = {
    { "root", 'r', 0, G_OPTION_ARG_FILENAME_ARRAY, &roots,
      N_("A folder whose captures the tools may read (may be repeated; default: the current folder)"), N_("DIR") },
    { "memory-limit", 'm', 0, G_OPTION_ARG_INT, &memory_mb,
      N_("Memory the captures kept loaded may take, in MiB (default 4096)"), N_("MB") },
    { "database", 'd', 0, G_OPTION_ARG_FILENAME, &database,
      N_("The run history the history tools read (default: $CHOKEPOINT_HISTORY, else the user data folder)"), N_("PATH") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("— serve the Model Context Protocol on standard input and output"));
  g_autoptr(GError) error = NULL;
  g_autoptr(CpMcpServer) server = NULL;
  char *here[] = { (char *) ".", NULL };
  int status;

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Lets a coding agent read profiler captures: an MCP server over stdio whose tools "
                                  "summarise, diagnose, search and compare captures, read the ranks of a job and "
                                  "query the run history, each with the JSON of the command line. Captures stay "
                                  "loaded between calls. Files outside the --root folders are refused."));
  g_set_prgname ("chokepoint mcp");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("chokepoint mcp: %s\n", error->message);
      g_printerr (_("Run “chokepoint mcp --help” for usage.\n"));
      return CP_EXIT_USAGE;
    }
  if (rest != NULL && rest[0] != NULL)
    {
      g_printerr (_("chokepoint mcp: unexpected argument “%s” (folders are given with --root)\n"), rest[0]);
      return CP_EXIT_USAGE;
    }
  if (memory_mb < 16)
    {
      g_printerr (_("chokepoint mcp: --memory-limit takes at least 16 MiB, not %d\n"), memory_mb);
      return CP_EXIT_USAGE;
    }
  if (isatty (STDIN_FILENO))
    g_printerr (_("chokepoint mcp: reading MCP messages from the terminal; an agent starts this command itself\n"));

  /* A client that goes away mid-reply ends the session with a message
   * (EPIPE), not with a signal. */
  signal (SIGPIPE, SIG_IGN);
  server = cp_mcp_server_new (roots != NULL && roots[0] != NULL ? roots : here,
                              (guint64) memory_mb * 1024 * 1024, database, &error);
  if (server == NULL)
    {
      g_printerr ("chokepoint mcp: %s\n", error->message);
      return CP_EXIT_USAGE;
    }
  status = serve (server);
  g_printerr (_("chokepoint mcp: input ended after %u capture loads\n"), cp_mcp_server_get_n_loads (server));
  return status;
}
