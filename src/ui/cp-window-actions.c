/* cp-window-actions.c: the window's actions and when they are enabled
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"


#include "cp-window-private.h"

/* Which win.* actions apply now. */
void
cp_window_update_action_state (CpWindow *self)
{
  gboolean loaded = self->state == CP_WINDOW_LOADED && self->trace != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-load",
                                 self->state == CP_WINDOW_LOADING);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-load-report", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-report", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-marker", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-marker-at", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-slice-note", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-note",
                                 loaded && (cp_view_state_has_selected (self->view_state) ||
                                            cp_view_state_get_time_selection (self->view_state, NULL, NULL)));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.pin-evidence", loaded);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-notes", loaded);
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  cp_timeline_pane_find (self->timeline_pane);
}

static void
cancel_load_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  if (self->load_cancellable == NULL)
    return;

  /* The worker notices soon; the window does not wait for it. */
  g_cancellable_cancel (self->load_cancellable);
  if (self->made_for_capture && self->trace == NULL)
    {
      gtk_window_close (GTK_WINDOW (self));
      return;
    }
  _cp_window_return_to_empty (self);
}

static void
show_load_report_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->side_stack, "capture");
  cp_capture_pane_show_load_report (self->capture_pane);
}

/* F8 / Shift+F8: the next or previous evidence of the open finding (the
 * first finding when none is open), wherever the focus is. The accelerators
 * are the application's, which the window runs before any widget sees the
 * key, so the timeline under the pointer or with the focus cannot keep it. */
static void
step_evidence_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  if (self->findings_pane == NULL || cp_findings_pane_get_n_findings (self->findings_pane) == 0)
    return;
  adw_view_stack_set_visible_child_name (self->side_stack, "findings");
  cp_findings_pane_step_evidence (self->findings_pane,
                                  g_str_equal (action_name, "win.next-evidence") ? 1 : -1);
}

/* View menu, Devices First: the user's choice is kept in the settings and
 * followed from then on; until there is one, the timeline puts devices
 * first by itself when the host lanes are taller than the view. The menu
 * shows the order the timeline has. */
static void
devices_first_change_cb (GSimpleAction *action,
                         GVariant      *value,
                         CpWindow      *self)
{
  cp_timeline_view_set_auto_lane_order (cp_timeline_pane_get_view (self->timeline_pane), FALSE);
  if (self->settings != NULL)
    g_settings_set_boolean (self->settings, "devices-first", g_variant_get_boolean (value));
  cp_view_state_set_devices_first (self->view_state, g_variant_get_boolean (value));
}

static void
devices_first_notify_cb (CpWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "devices-first");

  if (action != NULL)
    g_simple_action_set_state (G_SIMPLE_ACTION (action),
                               g_variant_new_boolean (cp_view_state_get_devices_first (self->view_state)));
}

void
_cp_window_add_devices_first_action (CpWindow *self)
{
  g_autoptr(GSimpleAction) action = NULL;
  gboolean chosen = FALSE;

  if (self->settings != NULL)
    {
      g_autoptr(GVariant) user = g_settings_get_user_value (self->settings, "devices-first");

      chosen = user != NULL;
      /* Also when another window changes it. */
      g_settings_bind (self->settings, "devices-first", self->view_state, "devices-first",
                       G_SETTINGS_BIND_GET);
    }
  action = g_simple_action_new_stateful ("devices-first", NULL,
                                         g_variant_new_boolean (cp_view_state_get_devices_first (self->view_state)));
  g_signal_connect_object (action, "change-state", G_CALLBACK (devices_first_change_cb), self, 0);
  g_signal_connect_object (self->view_state, "notify::devices-first", G_CALLBACK (devices_first_notify_cb), self,
                           G_CONNECT_SWAPPED);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (action));
  cp_timeline_view_set_auto_lane_order (cp_timeline_pane_get_view (self->timeline_pane), !chosen);
}


void
_cp_window_actions_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.cancel-load", NULL, cancel_load_action);
  gtk_widget_class_install_action (widget_class, "win.show-load-report", NULL,
                                   show_load_report_action);
  gtk_widget_class_install_action (widget_class, "win.next-evidence", NULL, step_evidence_action);
  gtk_widget_class_install_action (widget_class, "win.previous-evidence", NULL, step_evidence_action);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.cancel-load", NULL);
}
