/* cp-cli-mcp.c: `chokepoint mcp [--root DIR]... [--memory-limit MB]`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * MCP's stdio transport: one JSON-RPC message a line on standard input,
 * one reply a line on standard output, the log on standard error. Ends at
 * the end of the input. A thread reads the input so that
 * notifications/cancelled reaches a request while it runs. The protocol and the tools are cp-mcp-server.c and
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

/* Cancellation (notifications/cancelled) needs the input read while a
 * request runs: a thread reads standard input into a queue of lines; the
 * main thread handles them in order. A cancellation of the request being
 * handled cancels its reads and analyses, and its reply is not sent (as
 * the protocol asks); one of a request still queued drops it. */
typedef struct
{
  GByteArray *data;       /* NULL: the end of the input */
  int         error;      /* errno of a failed read, with data NULL */
} Line;

typedef struct
{
  GAsyncQueue  *lines;
  GMutex        lock;
  char         *current;  /* the id of the request being handled */
  GCancellable *cancellable;
  GHashTable   *cancelled;  /* ids of queued requests cancelled */
} Transport;

static void
line_free (Line *line)
{
  if (line->data != NULL)
    g_byte_array_unref (line->data);
  g_free (line);
}

static void
push_line (Transport  *t,
           GByteArray *data)
{
  Line *line = g_new0 (Line, 1);
  gsize length = data->len;
  g_autofree char *id = NULL, *cancels = NULL;

  /* Blank lines (and a CR before the newline) are not messages. */
  while (length > 0 && (data->data[length - 1] == '\r' || data->data[length - 1] == ' ' ||
                        data->data[length - 1] == '\t'))
    length--;
  if (length == 0)
    {
      g_free (line);
      return;
    }
  cp_mcp_message_peek ((const char *) data->data, length, &id, &cancels);
  if (cancels != NULL)
    {
      g_mutex_lock (&t->lock);
      if (t->current != NULL && strcmp (t->current, cancels) == 0)
        g_cancellable_cancel (t->cancellable);
      else
        g_hash_table_add (t->cancelled, g_steal_pointer (&cancels));
      g_mutex_unlock (&t->lock);
      g_free (line);
      return;
    }
  line->data = g_byte_array_sized_new ((guint) length);
  g_byte_array_append (line->data, data->data, (guint) length);
  g_async_queue_push (t->lines, line);
}

/* Reads standard input in blocks and queues each line; a line longer than
 * CP_MCP_MAX_MESSAGE is queued cut (the server answers it with an error)
 * and skipped to its end. */
static gpointer
read_thread (gpointer data)
{
  Transport *t = data;
  g_autoptr(GByteArray) line = g_byte_array_new ();
  gboolean skipping = FALSE;
  guint8 block[65536];
  Line *end = g_new0 (Line, 1);

  for (;;)
    {
      ssize_t n = read (STDIN_FILENO, block, sizeof block);
      gsize from = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          end->error = errno;
          break;
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
              push_line (t, line);
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
              push_line (t, line);
              g_byte_array_set_size (line, 0);
              skipping = TRUE;
            }
        }
    }
  if (!skipping && line->len > 0 && end->error == 0)
    push_line (t, line);
  g_async_queue_push (t->lines, end);
  return NULL;
}

static gboolean
handle (CpMcpServer *server,
        Transport   *t,
        Line        *line)
{
  g_autofree char *id = NULL, *cancels = NULL, *reply = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gboolean cancelled;

  cp_mcp_message_peek ((const char *) line->data->data, line->data->len, &id, &cancels);
  g_mutex_lock (&t->lock);
  if (id != NULL && g_hash_table_remove (t->cancelled, id))
    {
      g_mutex_unlock (&t->lock);
      g_printerr (_("chokepoint mcp: request %s was cancelled before it ran\n"), id);
      return TRUE;
    }
  t->current = id;
  t->cancellable = cancellable;
  g_mutex_unlock (&t->lock);

  reply = cp_mcp_server_handle_cancellable (server, (const char *) line->data->data, line->data->len, cancellable);

  g_mutex_lock (&t->lock);
  t->current = NULL;
  t->cancellable = NULL;
  cancelled = g_cancellable_is_cancelled (cancellable);
  g_mutex_unlock (&t->lock);
  if (cancelled)
    {
      g_printerr (_("chokepoint mcp: request %s was cancelled; no reply\n"), id);
      return TRUE;
    }
  return reply == NULL || write_line (reply);
}

static int
serve (CpMcpServer *server)
{
  Transport *t = g_new0 (Transport, 1);
  GThread *reader;
  int status = CP_EXIT_OK;

  t->lines = g_async_queue_new_full ((GDestroyNotify) line_free);
  g_mutex_init (&t->lock);
  t->cancelled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  reader = g_thread_new ("mcp-input", read_thread, t);
  for (;;)
    {
      Line *line = g_async_queue_pop (t->lines);

      if (line->data == NULL)
        {
          if (line->error != 0)
            {
              g_printerr (_("chokepoint mcp: could not read the input: %s\n"), g_strerror (line->error));
              status = CP_EXIT_FAILURE;
            }
          line_free (line);
          break;
        }
      if (!handle (server, t, line))
        {
          line_free (line);
          /* The reading thread may still be in read() and use t: the
           * process leaves with both. */
          g_thread_unref (reader);
          return CP_EXIT_FAILURE;
        }
      line_free (line);
    }
  /* The end of the input was the reading thread's last word. */
  g_thread_join (reader);
  g_async_queue_unref (t->lines);
  g_hash_table_unref (t->cancelled);
  g_mutex_clear (&t->lock);
  g_free (t);
  return status;
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
