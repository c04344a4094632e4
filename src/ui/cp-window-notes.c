/* cp-window-notes.c: the capture's markers and notes, and where they are saved
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-note-popover.h"
#include "cp-window-private.h"

/* Annotations -------------------------------------------------------------- */

/* The timeline draws the annotations as marks. */
static void
annotations_changed_cb (CpWindow *self)
{
  cp_report_set_view_marks (self->view_state, self->annotations);
}

void
_cp_window_update_notes_location (CpWindow *self)
{
  GFile *file;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;

  if (self->sidecar == NULL)
    {
      cp_notes_pane_set_location (self->notes_pane, NULL);
      return;
    }
  file = cp_sidecar_get_file (self->sidecar);
  if (file == NULL)
    file = cp_sidecar_get_primary_file (self->sidecar);
  path = _cp_window_dup_path_beside (self, file);
  if (cp_sidecar_is_fallback (self->sidecar))
    /* Translators: where notes are saved when the capture's folder cannot be written. */
    text = g_strdup_printf (_("Notes are saved in “%s”, found again by the capture’s content."), path);
  else
    text = g_strdup_printf (_("Notes are saved beside the capture, in “%s”."), path);
  cp_notes_pane_set_location (self->notes_pane, text);
}

static void
sidecar_saved_cb (CpWindow *self)
{
  _cp_window_update_notes_location (self);
}

static void
sidecar_relocated_cb (CpWindow   *self,
                      GFile      *file,
                      const char *why)
{
  g_autofree char *path = g_file_get_parse_name (file);
  /* Translators: the first %s says why ("Annotations could not be saved beside the capture (...)"). */
  g_autofree char *text = g_strdup_printf (_("%s. They are saved in “%s” instead."), why, path);

  _cp_window_show_toast (self, text);
  _cp_window_update_notes_location (self);
}

static void
sidecar_save_failed_cb (CpWindow   *self,
                        const char *message)
{
  _cp_window_show_toast (self, message);
}

/* A sidecar that cannot be used: the user is told what it was, what was
 * kept where, and where new notes go. */
static void
show_sidecar_problem (CpWindow   *self,
                      GError     *error,
                      const char *outcome)
{
  const char *heading = error->code == CP_SIDECAR_ERROR_NEWER ? _("Notes From a Newer Version")
                                                              : _("Notes Could Not Be Read");
  g_autofree char *body = g_strdup_printf ("%s\n\n%s", error->message, outcome ? outcome : "");

  _cp_window_present_alert (self, heading, body);
}

/* Reads the capture's notes and keeps them saved from now on. */
void
_cp_window_setup_annotations (CpWindow *self,
                   GFile    *file)
{
  g_autoptr(GError) error = NULL;
  guint n_detached;

  if (self->sidecar != NULL)
    {
      cp_sidecar_flush (self->sidecar, NULL);
      g_signal_handlers_disconnect_by_data (self->sidecar, self);
      g_clear_object (&self->sidecar);
    }
  cp_annotations_remove_all (self->annotations);
  cp_annotations_set_trace (self->annotations, self->trace);

  self->sidecar = cp_sidecar_new (file, self->annotations);
  g_signal_connect_object (self->sidecar, "saved", G_CALLBACK (sidecar_saved_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sidecar, "relocated", G_CALLBACK (sidecar_relocated_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sidecar, "save-failed", G_CALLBACK (sidecar_save_failed_cb), self,
                           G_CONNECT_SWAPPED);
  if (!cp_sidecar_load (self->sidecar, &error))
    {
      /* Told now; only then is the file set aside and a fresh one used. */
      g_autofree char *outcome = cp_sidecar_accept_problem (self->sidecar);

      show_sidecar_problem (self, error, outcome);
    }
  cp_sidecar_set_autosave (self->sidecar, 500);
  if (cp_sidecar_get_merge_note (self->sidecar) != NULL)
    _cp_window_show_toast (self, cp_sidecar_get_merge_note (self->sidecar));

  n_detached = cp_annotations_get_n_detached (self->annotations);
  if (n_detached > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u note refers to a slice this capture lacks: it is kept, detached",
                                                            "%u notes refer to slices this capture lacks: they are kept, detached",
                                                            n_detached),
                                               n_detached);

      _cp_window_show_toast (self, text);
    }
  annotations_changed_cb (self);
  _cp_window_update_notes_location (self);
}

/* Opens the note popover on an annotation, pointing at it on the timeline. */
static void
edit_annotation (CpWindow     *self,
                 CpAnnotation *annotation)
{
  CpTimelineView *view = cp_timeline_pane_get_view (self->timeline_pane);
  GdkRectangle rect = { 0, 0, 1, 1 };
  graphene_point_t p, q;

  if (self->note_popover == NULL)
    {
      self->note_popover = cp_note_popover_new ();
      gtk_widget_set_parent (self->note_popover, GTK_WIDGET (self->timeline_pane));
      gtk_popover_set_position (GTK_POPOVER (self->note_popover), GTK_POS_BOTTOM);
    }
  cp_note_popover_edit (CP_NOTE_POPOVER (self->note_popover), self->annotations, annotation);
  if (!cp_timeline_view_get_range_rect (view, cp_annotation_get_lane (annotation),
                                        cp_annotation_get_start (annotation), cp_annotation_get_end (annotation),
                                        &rect))
    {
      rect.x = gtk_widget_get_width (GTK_WIDGET (view)) / 2;
      rect.y = 0;
    }
  /* From the view's coordinates to the pane's. */
  p = GRAPHENE_POINT_INIT (rect.x, rect.y);
  if (gtk_widget_compute_point (GTK_WIDGET (view), GTK_WIDGET (self->timeline_pane), &p, &q))
    {
      rect.x = (int) q.x;
      rect.y = (int) q.y;
    }
  gtk_popover_set_pointing_to (GTK_POPOVER (self->note_popover), &rect);
  gtk_popover_popup (GTK_POPOVER (self->note_popover));
}

static void
add_marker (CpWindow   *self,
            gint64      t,
            CpSliceRef  attach)
{
  CpAnnotation *a = cp_annotations_add_marker (self->annotations, t, CP_ANNOTATION_ALL_LANES, "", 0);

  if (!cp_slice_ref_is_none (attach) && cp_trace_slice_ref_valid (self->trace, attach))
    cp_annotations_attach (self->annotations, a, attach);
  edit_annotation (self, a);
}

/* M: a marker at the pointer; else at the selected range or slice (attached
 * to the slice); else in the middle of the view. */
static void
add_marker_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  CpSliceRef attach = CP_SLICE_REF_NONE;
  gint64 t, a, b;

  if (self->trace == NULL)
    return;
  if (cp_timeline_view_get_pointer_time (cp_timeline_pane_get_view (self->timeline_pane), &t))
    ;
  else if (cp_view_state_get_time_selection (self->view_state, &a, &b))
    t = a;
  else if (cp_view_state_has_selected (self->view_state))
    {
      attach = cp_view_state_get_selected (self->view_state);
      t = cp_trace_slice_start (self->trace, attach);
    }
  else
    t = cp_view_state_get_visible_start (self->view_state) +
        (cp_view_state_get_visible_end (self->view_state) - cp_view_state_get_visible_start (self->view_state)) / 2;
  add_marker (self, t, attach);
}

static void
add_marker_at_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  if (self->trace == NULL)
    return;
  add_marker (self, CLAMP (g_variant_get_int64 (param), 0, cp_trace_get_duration (self->trace)),
              CP_SLICE_REF_NONE);
}

/* A note on the range selected on the ruler, else on the selected slice. */
static void
add_note_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  CpAnnotation *a;
  gint64 start, end;

  if (self->trace == NULL)
    return;
  if (cp_view_state_get_time_selection (self->view_state, &start, &end) && end > start)
    a = cp_annotations_add_note (self->annotations, start, end, CP_ANNOTATION_ALL_LANES, "", 0);
  else if (cp_view_state_has_selected (self->view_state))
    a = cp_annotations_add_slice_note (self->annotations, cp_view_state_get_selected (self->view_state), "", 0);
  else
    return;
  edit_annotation (self, a);
}

static void
add_slice_note_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  CpSliceRef ref;

  g_variant_get (param, "(uu)", &ref.lane, &ref.index);
  if (self->trace == NULL || !cp_trace_slice_ref_valid (self->trace, ref))
    return;
  edit_annotation (self, cp_annotations_add_slice_note (self->annotations, ref, "", 0));
}

static void
pin_evidence_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);
  const char *rule;
  guint index, n_ev = 0;
  CpFinding *finding;
  CpFramework order[CP_N_FRAMEWORKS];
  AdwToast *toast;

  g_variant_get (param, "(&su)", &rule, &index);
  if (self->analysis == NULL || (finding = cp_analysis_lookup_finding (self->analysis, rule)) == NULL)
    return;
  cp_finding_get_evidence (finding, &n_ev);
  if (index >= n_ev)
    return;
  cp_analysis_get_fix_order (self->analysis, order);
  cp_report_pin_finding (self->annotations, finding, index, order[0]);

  toast = adw_toast_new (_("Evidence pinned as a note"));
  adw_toast_set_button_label (toast, _("_Show Notes"));
  adw_toast_set_action_name (toast, "win.show-notes");
  adw_toast_set_timeout (toast, 5);
  cp_window_add_toast (self, toast);
}

static void
show_notes_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  CpWindow *self = CP_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->side_stack, "notes");
}


void
_cp_window_notes_init (CpWindow *self)
{
  g_signal_connect_object (self->annotations, "items-changed", G_CALLBACK (annotations_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->annotations, "changed", G_CALLBACK (annotations_changed_cb), self,
                           G_CONNECT_SWAPPED);
}

void
_cp_window_notes_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.add-marker", NULL, add_marker_action);
  gtk_widget_class_install_action (widget_class, "win.add-marker-at", "x", add_marker_at_action);
  gtk_widget_class_install_action (widget_class, "win.add-note", NULL, add_note_action);
  gtk_widget_class_install_action (widget_class, "win.add-slice-note", "(uu)", add_slice_note_action);
  gtk_widget_class_install_action (widget_class, "win.pin-evidence", "(su)", pin_evidence_action);
  gtk_widget_class_install_action (widget_class, "win.show-notes", NULL, show_notes_action);
}
