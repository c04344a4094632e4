/* cp-ui-test-util.h: what every UI test needs to drive the real window.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* How long a UI test waits for anything before failing (busy CI machines). */
#define CP_UI_WAIT_TIMEOUT_MS 60000

typedef gboolean (*CpUiCondition) (gpointer data);

/* Runs the main loop until cond holds; fails the test, naming what, after
 * CP_UI_WAIT_TIMEOUT_MS. */
void       cp_ui_wait_for       (CpUiCondition cond,
                                 gpointer      data,
                                 const char   *what);
/* Lets pending idles and short timeouts run for ms milliseconds. */
void       cp_ui_run_for        (guint         ms);
/* The first widget of the type in root's tree (root included), or NULL. */
GtkWidget *cp_ui_find_widget    (GtkWidget    *root,
                                 GType         type);
/* Whether a visible label in the widget's tree contains text. */
gboolean   cp_ui_label_tree_has (GtkWidget    *widget,
                                 const char   *text);

G_END_DECLS
