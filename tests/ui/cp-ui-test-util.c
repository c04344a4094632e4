/* cp-ui-test-util.c: what every UI test needs to drive the real window.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-ui-test-util.h"

static gboolean
timeout_cb (gpointer data)
{
  gboolean *timed_out = data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

void
cp_ui_wait_for (CpUiCondition cond,
                gpointer      data,
                const char   *what)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (CP_UI_WAIT_TIMEOUT_MS, timeout_cb, &timed_out);

  while (!cond (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (timed_out)
    g_error ("Timed out waiting for %s", what);
  g_source_remove (id);
}

void
cp_ui_run_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

GtkWidget *
cp_ui_find_widget (GtkWidget *root,
                   GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = cp_ui_find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

gboolean
cp_ui_label_tree_has (GtkWidget  *widget,
                      const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
      strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (cp_ui_label_tree_has (child, text))
        return TRUE;
    }
  return FALSE;
}
