/* cp-ui-test-util.h: what every UI test needs to drive the real window.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The waits here wait on conditions, not on time: each iterates the main
 * context until something observable holds, and fails the test naming what
 * it waited for. cp_ui_wait_elapsed() is the one exception, for the few
 * places that need time to pass (it must say why).
 */

#pragma once

#include <gtk/gtk.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* How long a UI test waits for anything before failing (busy CI machines,
 * sanitizer builds). */
#define CP_UI_WAIT_TIMEOUT_MS 60000

typedef gboolean (*CpUiCondition) (gpointer data);

/* Runs the main loop until cond holds; fails the test, naming what, after
 * timeout_ms. */
void       cp_ui_wait_until      (CpUiCondition cond,
                                  gpointer      data,
                                  guint         timeout_ms,
                                  const char   *what);
/* cp_ui_wait_until() with CP_UI_WAIT_TIMEOUT_MS. */
void       cp_ui_wait_for        (CpUiCondition cond,
                                  gpointer      data,
                                  const char   *what);
/* Runs the sources that are ready now (idles, finished tasks' callbacks)
 * without waiting for any that are not. */
void       cp_ui_drain           (void);
/* Redraws widget and waits until its frame clock has painted a new frame:
 * what changed is laid out and drawn. The widget must be mapped. */
void       cp_ui_wait_frame      (GtkWidget    *widget);
/* Lets time pass: only for what has no observable end (a debounce, GTK's
 * own unobservable work); why says which, and is logged. */
void       cp_ui_wait_elapsed    (guint         ms,
                                  const char   *why);
/* Drops the caller's reference and waits until the object is finalized
 * (a worker's task may hold it until its callback ran); fails naming what. */
void       cp_ui_wait_finalized  (gpointer      object,
                                  const char   *what);
/* Waits until the object's reference count is down to refs: the async
 * call or worker that held it has finished and let go. */
void       cp_ui_wait_released   (gpointer      object,
                                  guint         refs,
                                  const char   *what);
/* Waits until the file chooser (a GtkFileChooser dialog) shows folder. */
/* GTK 4.8's file chooser may draw its path bar while it refills it and
 * warn "Trying to snapshot GtkButton … without a current allocation"
 * (inside GTK, on its own timing); with fatal warnings that aborts a test
 * that merely opened the chooser. Call once, from main(), in tests that
 * open it: that one message is then logged as a note, every other message
 * is handled as before. */
void       cp_ui_tolerate_chooser_race (void);
void       cp_ui_wait_chooser_folder (GtkWidget *chooser,
                                      GFile     *folder);
/* Destroys the window and waits until it is finalized. */
void       cp_ui_destroy_window  (GtkWindow    *window);
/* Destroys every toplevel and waits until none is left. */
void       cp_ui_close_all       (void);

/* The first widget of the type in root's tree (root included), or NULL. */
GtkWidget *cp_ui_find_widget     (GtkWidget    *root,
                                  GType         type);
/* The first widget named name (gtk_widget_set_name) in root's tree, or NULL. */
GtkWidget *cp_ui_find_named      (GtkWidget    *root,
                                  const char   *name);
/* Whether a visible label in the widget's tree contains text. */
gboolean   cp_ui_label_tree_has  (GtkWidget    *widget,
                                  const char   *text);
/* Waits until a visible label in the widget's tree contains text. */
void       cp_ui_wait_shows      (GtkWidget    *widget,
                                  const char   *text);
/* Waits until the label named name (gtk_widget_set_name) in root's tree
 * reads exactly text. */
void       cp_ui_wait_label_text (GtkWidget    *root,
                                  const char   *name,
                                  const char   *text);
/* Waits until the AdwViewStack shows its page named name. */
void       cp_ui_wait_page       (GtkWidget    *stack,
                                  const char   *name);
/* A condition: whether a visible toplevel shows a label containing the
 * text data. */
gboolean   cp_ui_screen_shows    (gpointer      text);

/* The widget's first event controller of the type; fails when there is none. */
gpointer   cp_ui_find_controller (GtkWidget    *widget,
                                  GType         type);
/* The pointer moves to (x, y) over the widget. */
void       cp_ui_pointer_at      (GtkWidget    *widget,
                                  double        x,
                                  double        y);
/* A drag from (x, y) by (dx, dy) through the widget's drag gesture; (0, 0)
 * is a click. */
void       cp_ui_drag            (GtkWidget    *widget,
                                  double        x,
                                  double        y,
                                  double        dx,
                                  double        dy);
/* Activates the widget's own key binding for keyval with mods; fails when
 * it has none. */
void       cp_ui_press_key       (GtkWidget      *widget,
                                  guint           keyval,
                                  GdkModifierType mods);

/* The first slice named name in the trace; fails when there is none. */
CpSliceRef cp_ui_find_slice      (CpTrace      *trace,
                                  const char   *name);

/* Writes the window's next frame as CP_SCREENSHOT_DIR/name (PNG) when that
 * variable is set. */
void       cp_ui_screenshot      (GtkWidget    *window,
                                  const char   *name);

G_END_DECLS
