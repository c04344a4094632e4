/* cp-ui-test-util.c: what every UI test needs to drive the real window.
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
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
cp_ui_wait_until (CpUiCondition cond,
                  gpointer      data,
                  guint         timeout_ms,
                  const char   *what)
{
  gboolean timed_out = FALSE;
  guint id;

  if (cond (data))
    return;
  id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);
  while (!cond (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (timed_out && !cond (data))
    g_error ("Timed out after %u ms waiting for %s", timeout_ms, what);
  if (!timed_out)
    g_source_remove (id);
}

void
cp_ui_wait_for (CpUiCondition cond,
                gpointer      data,
                const char   *what)
{
  cp_ui_wait_until (cond, data, CP_UI_WAIT_TIMEOUT_MS, what);
}

void
cp_ui_drain (void)
{
  /* Bounded: an animation (a spinner) is always ready again. */
  for (guint i = 0; i < 1000 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

typedef struct
{
  GdkFrameClock *clock;
  gint64         counter;
} FrameWait;

static gboolean
frame_painted_cond (gpointer data)
{
  FrameWait *w = data;

  return gdk_frame_clock_get_frame_counter (w->clock) > w->counter;
}

void
cp_ui_wait_frame (GtkWidget *widget)
{
  FrameWait w;

  g_assert_true (gtk_widget_get_mapped (widget));
  w.clock = gtk_widget_get_frame_clock (widget);
  g_assert_nonnull (w.clock);
  w.counter = gdk_frame_clock_get_frame_counter (w.clock);
  gtk_widget_queue_draw (widget);
  cp_ui_wait_for (frame_painted_cond, &w, "the next frame to be painted");
  cp_ui_drain ();
}

static gboolean
elapsed_cond (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *) data;
}

void
cp_ui_wait_elapsed (guint       ms,
                    const char *why)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  g_assert_nonnull (why);
  g_test_message ("waiting %u ms: %s", ms, why);
  /* The timeout wakes the loop when the time is up. */
  cp_ui_wait_until (elapsed_cond, &end, ms + CP_UI_WAIT_TIMEOUT_MS, why);
}

static gboolean
weak_cleared_cond (gpointer data)
{
  return *(gpointer *) data == NULL;
}

void
cp_ui_wait_finalized (gpointer    object,
                      const char *what)
{
  gpointer weak = object;

  g_object_add_weak_pointer (object, &weak);
  g_object_unref (object);
  cp_ui_wait_for (weak_cleared_cond, &weak, what);
}

typedef struct
{
  GObject *object;
  guint    refs;
} RefsWait;

static gboolean
released_cond (gpointer data)
{
  RefsWait *w = data;

  return g_atomic_int_get ((gint *) &w->object->ref_count) <= (gint) w->refs;
}

void
cp_ui_wait_released (gpointer    object,
                     guint       refs,
                     const char *what)
{
  RefsWait w = { object, refs };

  cp_ui_wait_for (released_cond, &w, what);
}

static gboolean
chooser_in_folder_cond (gpointer data)
{
  gpointer *args = data;
  g_autoptr(GFile) current = NULL;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  current = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (args[0]));
  G_GNUC_END_IGNORE_DEPRECATIONS
  return current != NULL && g_file_equal (current, args[1]);
}

static GLogWriterOutput
chooser_race_writer (GLogLevelFlags   log_level,
                     const GLogField *fields,
                     gsize            n_fields,
                     gpointer         user_data)
{
  const char *domain = NULL, *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0)
      domain = fields[i].value;
    else if (g_strcmp0 (fields[i].key, "MESSAGE") == 0)
      message = fields[i].value;
  if ((log_level & G_LOG_LEVEL_WARNING) && g_strcmp0 (domain, "Gtk") == 0 && message != NULL &&
      g_str_has_prefix (message, "Trying to snapshot ") && g_str_has_suffix (message, " without a current allocation"))
    {
      g_test_message ("GTK warned, inside its file chooser: %s", message);
      return G_LOG_WRITER_HANDLED;
    }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

void
cp_ui_tolerate_chooser_race (void)
{
  g_log_set_writer_func (chooser_race_writer, NULL, NULL);
}

void
cp_ui_wait_chooser_folder (GtkWidget *chooser,
                           GFile     *folder)
{
  gpointer args[2] = { chooser, folder };

  cp_ui_wait_for (chooser_in_folder_cond, args, "the file chooser to show the folder");
}

void
cp_ui_destroy_window (GtkWindow *window)
{
  g_object_ref (window);
  gtk_window_destroy (window);
  cp_ui_wait_finalized (window, "the destroyed window to be finalized");
}

static gboolean
no_toplevels_cond (gpointer data)
{
  return g_list_model_get_n_items (gtk_window_get_toplevels ()) == 0;
}

void
cp_ui_close_all (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  while (g_list_model_get_n_items (toplevels) > 0)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, 0);

      gtk_window_destroy (window);
    }
  cp_ui_wait_for (no_toplevels_cond, NULL, "every window to close");
  cp_ui_drain ();
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

GtkWidget *
cp_ui_find_named (GtkWidget  *root,
                  const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = cp_ui_find_named (child, name);

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

typedef struct
{
  GtkWidget  *widget;
  const char *text;
} ShowsWait;

static gboolean
shows_cond (gpointer data)
{
  ShowsWait *w = data;

  return cp_ui_label_tree_has (w->widget, w->text);
}

void
cp_ui_wait_shows (GtkWidget  *widget,
                  const char *text)
{
  ShowsWait w = { widget, text };
  g_autofree char *what = g_strdup_printf ("%s to show “%s”", G_OBJECT_TYPE_NAME (widget), text);

  cp_ui_wait_for (shows_cond, &w, what);
}

typedef struct
{
  GtkWidget  *root;
  const char *name;
  const char *text;
} LabelWait;

static gboolean
label_text_cond (gpointer data)
{
  LabelWait *w = data;
  GtkWidget *label = cp_ui_find_named (w->root, w->name);

  return GTK_IS_LABEL (label) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), w->text) == 0;
}

void
cp_ui_wait_label_text (GtkWidget  *root,
                       const char *name,
                       const char *text)
{
  LabelWait w = { root, name, text };
  g_autofree char *what = g_strdup_printf ("the label %s to read “%s”", name, text);

  cp_ui_wait_for (label_text_cond, &w, what);
}

static gboolean
page_is_cond (gpointer data)
{
  LabelWait *w = data;

  return g_strcmp0 (adw_view_stack_get_visible_child_name (ADW_VIEW_STACK (w->root)), w->name) == 0;
}

void
cp_ui_wait_page (GtkWidget  *stack,
                 const char *name)
{
  LabelWait w = { stack, name, NULL };
  g_autofree char *what = g_strdup_printf ("the %s page", name);

  g_assert_true (ADW_IS_VIEW_STACK (stack));
  cp_ui_wait_for (page_is_cond, &w, what);
}

gboolean
cp_ui_screen_shows (gpointer text)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (gtk_widget_get_visible (window) && cp_ui_label_tree_has (window, text))
        return TRUE;
    }
  return FALSE;
}

gpointer
cp_ui_find_controller (GtkWidget *widget,
                       GType      type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        return c;
    }
  g_error ("%s has no %s", G_OBJECT_TYPE_NAME (widget), g_type_name (type));
  return NULL;
}

void
cp_ui_pointer_at (GtkWidget *widget,
                  double     x,
                  double     y)
{
  g_signal_emit_by_name (cp_ui_find_controller (widget, GTK_TYPE_EVENT_CONTROLLER_MOTION),
                         "motion", x, y);
}

void
cp_ui_drag (GtkWidget *widget,
            double     x,
            double     y,
            double     dx,
            double     dy)
{
  GtkGesture *gesture = cp_ui_find_controller (widget, GTK_TYPE_GESTURE_DRAG);

  cp_ui_pointer_at (widget, x, y);
  g_signal_emit_by_name (gesture, "drag-begin", x, y);
  if (dx != 0 || dy != 0)
    {
      g_signal_emit_by_name (gesture, "drag-update", dx / 2, dy / 2);
      g_signal_emit_by_name (gesture, "drag-update", dx, dy);
    }
  g_signal_emit_by_name (gesture, "drag-end", dx, dy);
}

void
cp_ui_press_key (GtkWidget       *widget,
                 guint            keyval,
                 GdkModifierType  mods)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (c)); k++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (c), k);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger) &&
              gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval &&
              gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == mods)
            {
              g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut),
                                                           GTK_SHORTCUT_ACTION_EXCLUSIVE, widget,
                                                           gtk_shortcut_get_arguments (shortcut)));
              return;
            }
        }
    }
  g_error ("%s has no key binding for %s", G_OBJECT_TYPE_NAME (widget), gdk_keyval_name (keyval));
}

CpSliceRef
cp_ui_find_slice (CpTrace    *trace,
                  const char *name)
{
  for (guint l = 0; l < cp_trace_get_n_lanes (trace); l++)
    {
      const CpSlices *s = cp_lane_get_slices (cp_trace_get_lane (trace, l));

      for (guint i = 0; i < s->n; i++)
        {
          if (g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name) == 0)
            return (CpSliceRef) { l, i };
        }
    }
  g_error ("No slice %s", name);
  return CP_SLICE_REF_NONE;
}

void
cp_ui_screenshot (GtkWidget  *window,
                  const char *name)
{
  const char *dir = g_getenv ("CP_SCREENSHOT_DIR");
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  int w, h;

  if (dir == NULL)
    return;
  /* What changed last is laid out and drawn. */
  cp_ui_wait_frame (window);
  w = gtk_widget_get_width (window);
  h = gtk_widget_get_height (window);
  paintable = gtk_widget_paintable_new (window);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("wrote %s", path);
}
