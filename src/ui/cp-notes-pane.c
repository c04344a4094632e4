/* cp-notes-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cp-format.h"
#include "cp-note-popover.h"
#include "cp-notes-pane.h"
#include "cp-pane.h"

struct _CpNotesPane
{
  CpPane         parent_instance;

  /* Template widgets */
  GtkStack      *stack;
  GtkListBox    *list;
  GtkLabel      *location;

  GtkWidget     *popover;
};

G_DEFINE_FINAL_TYPE (CpNotesPane, cp_notes_pane, CP_TYPE_PANE)

#define VIEW(self)        cp_pane_get_view_state (CP_PANE (self))
#define ANNOTATIONS(self) cp_pane_get_annotations (CP_PANE (self))

static void
draw_swatch (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  CpAnnotation *a = g_object_get_data (G_OBJECT (area), "annotation");
  guint32 c;

  if (a == NULL)
    return;
  c = cp_annotation_get_color (a);
  cairo_arc (cr, width / 2.0, height / 2.0, MIN (width, height) / 2.0 - 1, 0, 2 * G_PI);
  cairo_set_source_rgb (cr, ((c >> 24) & 0xff) / 255.0, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0);
  if (cp_annotation_is_detached (a))
    {
      cairo_set_line_width (cr, 2);
      cairo_stroke (cr);
    }
  else
    cairo_fill (cr);
}

static char *
row_subtitle (CpNotesPane  *self,
              CpAnnotation *a)
{
  g_autofree char *start = cp_ui_format_duration (cp_annotation_get_start (a));
  g_autofree char *when = NULL;
  const char *where = NULL;
  CpTrace *trace = ANNOTATIONS (self) ? cp_annotations_get_trace (ANNOTATIONS (self)) : NULL;

  if (cp_annotation_get_kind (a) == CP_ANNOTATION_MARKER)
    /* Translators: a marker's time from the start of the capture. */
    when = g_strdup_printf (_("at %s"), start);
  else
    {
      g_autofree char *len = cp_ui_format_duration (cp_annotation_get_end (a) - cp_annotation_get_start (a));

      /* Translators: a note's start and length, "at 1.20 s, 150 ms long". */
      when = g_strdup_printf (_("at %s, %s long"), start, len);
    }
  if (cp_annotation_is_detached (a))
    /* Translators: the slice a note was attached to is not in this capture. */
    return g_strdup_printf (_("%s · detached: “%s” is not in this capture"), when,
                            cp_annotation_get_slice_name (a) ? cp_annotation_get_slice_name (a)
                                                             : cp_annotation_get_lane_identity (a)->name);
  if (cp_annotation_is_attached (a))
    return g_strdup_printf (_("%s · on “%s”"), when, cp_annotation_get_slice_name (a));
  if (trace != NULL && cp_annotation_get_lane (a) < cp_trace_get_n_lanes (trace))
    where = cp_lane_get_name (cp_trace_get_lane (trace, cp_annotation_get_lane (a)));
  if (where != NULL)
    return g_strdup_printf (_("%s · %s"), when, where);
  return g_strdup_printf (_("%s · all lanes"), when);
}

static void
update_row (GtkWidget *row)
{
  CpNotesPane *self = g_object_get_data (G_OBJECT (row), "pane");
  CpAnnotation *a = g_object_get_data (G_OBJECT (row), "annotation");
  g_autofree char *title = cp_annotation_dup_title (a);
  g_autofree char *subtitle = row_subtitle (self, a);

  if (*title == '\0')
    {
      g_free (title);
      title = g_strdup (cp_annotation_get_kind (a) == CP_ANNOTATION_MARKER ? _("Marker") : _("Note"));
    }
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_widget_queue_draw (g_object_get_data (G_OBJECT (row), "swatch"));
  if (cp_annotation_is_detached (a))
    gtk_widget_add_css_class (row, "detached");
  else
    gtk_widget_remove_css_class (row, "detached");
}

static void
annotation_notify_cb (CpAnnotation *a,
                      GParamSpec   *pspec,
                      GtkWidget    *row)
{
  update_row (row);
}

static void
open_popover (CpNotesPane  *self,
              CpAnnotation *a,
              GtkWidget    *anchor)
{
  graphene_rect_t bounds;

  if (self->popover == NULL)
    {
      self->popover = cp_note_popover_new ();
      gtk_widget_set_parent (self->popover, GTK_WIDGET (self));
      gtk_popover_set_position (GTK_POPOVER (self->popover), GTK_POS_BOTTOM);
    }
  cp_note_popover_edit (CP_NOTE_POPOVER (self->popover), ANNOTATIONS (self), a);
  if (anchor != NULL && gtk_widget_compute_bounds (anchor, GTK_WIDGET (self), &bounds))
    {
      GdkRectangle rect = {
        (int) bounds.origin.x, (int) bounds.origin.y, (int) bounds.size.width, (int) bounds.size.height
      };

      gtk_popover_set_pointing_to (GTK_POPOVER (self->popover), &rect);
    }
  gtk_popover_popup (GTK_POPOVER (self->popover));
}

static void
edit_clicked_cb (GtkButton   *button,
                 CpNotesPane *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (button), "row");

  open_popover (self, g_object_get_data (G_OBJECT (row), "annotation"), GTK_WIDGET (button));
}

static void
delete_clicked_cb (GtkButton   *button,
                   CpNotesPane *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (button), "row");
  g_autoptr(CpAnnotation) a = g_object_ref (g_object_get_data (G_OBJECT (row), "annotation"));

  if (ANNOTATIONS (self) != NULL)
    cp_annotations_remove (ANNOTATIONS (self), a);
}

static GtkWidget *
create_row (gpointer item,
            gpointer user_data)
{
  CpNotesPane *self = user_data;
  CpAnnotation *a = item;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *swatch = gtk_drawing_area_new ();
  GtkWidget *edit = gtk_button_new_from_icon_name ("document-edit-symbolic");
  GtkWidget *delete = gtk_button_new_from_icon_name ("user-trash-symbolic");

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  gtk_widget_add_css_class (row, "note-row");
  g_object_set_data (G_OBJECT (row), "pane", self);
  g_object_set_data_full (G_OBJECT (row), "annotation", g_object_ref (a), g_object_unref);
  g_object_set_data (G_OBJECT (row), "swatch", swatch);

  g_object_set_data (G_OBJECT (swatch), "annotation", a);
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 14);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 14);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch, NULL, NULL);
  gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), swatch);

  for (guint i = 0; i < 2; i++)
    {
      GtkWidget *b = i == 0 ? edit : delete;

      gtk_widget_set_valign (b, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (b, "flat");
      g_object_set_data (G_OBJECT (b), "row", row);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), b);
    }
  gtk_widget_set_tooltip_text (edit, _("Edit Note"));
  gtk_widget_set_tooltip_text (delete, _("Delete Note"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (edit), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Edit Note"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (delete), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Delete Note"), -1);
  g_signal_connect (edit, "clicked", G_CALLBACK (edit_clicked_cb), self);
  g_signal_connect (delete, "clicked", G_CALLBACK (delete_clicked_cb), self);

  g_signal_connect_object (a, "notify", G_CALLBACK (annotation_notify_cb), row, 0);
  update_row (row);
  return row;
}

static void
show_annotation (CpNotesPane  *self,
                 CpAnnotation *a)
{
  gint64 start, end;

  if (VIEW (self) == NULL || cp_view_state_get_trace (VIEW (self)) == NULL)
    return;
  start = cp_annotation_get_start (a);
  end = cp_annotation_get_end (a);
  if (end > start)
    cp_view_state_fit_range (VIEW (self), start, end);
  else
    {
      /* A moment: centred, at the current zoom. */
      gint64 span = cp_view_state_get_visible_end (VIEW (self)) - cp_view_state_get_visible_start (VIEW (self));

      cp_view_state_set_visible_range (VIEW (self), start - span / 2, start - span / 2 + span);
    }
  if (cp_annotation_is_attached (a) && !cp_annotation_is_detached (a))
    cp_view_state_set_selected (VIEW (self), cp_annotation_get_slice (a));
}

static void
row_activated_cb (GtkListBox    *list,
                  GtkListBoxRow *row,
                  CpNotesPane   *self)
{
  show_annotation (self, g_object_get_data (G_OBJECT (row), "annotation"));
}

static void
update_stack (CpNotesPane *self)
{
  gboolean any = ANNOTATIONS (self) != NULL &&
                 g_list_model_get_n_items (G_LIST_MODEL (ANNOTATIONS (self))) > 0;

  gtk_stack_set_visible_child_name (self->stack, any ? "list" : "empty");
}

static void
items_changed_cb (CpNotesPane *self)
{
  update_stack (self);
}

void
cp_notes_pane_activate (CpNotesPane *self,
                        guint        n)
{
  g_autoptr(CpAnnotation) a = NULL;

  g_return_if_fail (CP_IS_NOTES_PANE (self));

  if (ANNOTATIONS (self) == NULL || (a = g_list_model_get_item (G_LIST_MODEL (ANNOTATIONS (self)), n)) == NULL)
    return;
  show_annotation (self, a);
}

void
cp_notes_pane_edit (CpNotesPane *self,
                    guint        n)
{
  g_autoptr(CpAnnotation) a = NULL;
  GtkListBoxRow *row;

  g_return_if_fail (CP_IS_NOTES_PANE (self));

  if (ANNOTATIONS (self) == NULL || (a = g_list_model_get_item (G_LIST_MODEL (ANNOTATIONS (self)), n)) == NULL)
    return;
  row = gtk_list_box_get_row_at_index (self->list, n);
  open_popover (self, a, row ? GTK_WIDGET (row) : NULL);
}

GtkWidget *
cp_notes_pane_new (void)
{
  return g_object_new (CP_TYPE_NOTES_PANE, NULL);
}

static void
cp_notes_pane_annotations_changed (CpPane        *pane,
                                   CpAnnotations *old)
{
  CpNotesPane *self = CP_NOTES_PANE (pane);
  CpAnnotations *annotations = ANNOTATIONS (self);

  if (self->popover != NULL)
    gtk_popover_popdown (GTK_POPOVER (self->popover));
  if (old != NULL)
    g_signal_handlers_disconnect_by_func (old, items_changed_cb, self);
  gtk_list_box_bind_model (self->list, annotations ? G_LIST_MODEL (annotations) : NULL,
                           create_row, self, NULL);
  if (annotations != NULL)
    g_signal_connect_object (annotations, "items-changed", G_CALLBACK (items_changed_cb), self,
                             G_CONNECT_SWAPPED);
  update_stack (self);
}

void
cp_notes_pane_set_location (CpNotesPane *self,
                            const char  *location)
{
  g_return_if_fail (CP_IS_NOTES_PANE (self));

  gtk_label_set_text (self->location, location ? location : "");
  gtk_widget_set_visible (GTK_WIDGET (self->location), location != NULL);
}

static void
cp_notes_pane_dispose (GObject *object)
{
  CpNotesPane *self = CP_NOTES_PANE (object);

  if (self->list != NULL)
    gtk_list_box_bind_model (self->list, NULL, NULL, NULL, NULL);
  g_clear_pointer (&self->popover, gtk_widget_unparent);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_NOTES_PANE);
  if (ANNOTATIONS (self) != NULL)
    g_signal_handlers_disconnect_by_func (ANNOTATIONS (self), items_changed_cb, self);

  G_OBJECT_CLASS (cp_notes_pane_parent_class)->dispose (object);
}

static void
cp_notes_pane_class_init (CpNotesPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_notes_pane_dispose;
  CP_PANE_CLASS (klass)->annotations_changed = cp_notes_pane_annotations_changed;

  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "notes");
  gtk_widget_class_bind_template_child (widget_class, CpNotesPane, stack);
  gtk_widget_class_bind_template_child (widget_class, CpNotesPane, list);
  gtk_widget_class_bind_template_child (widget_class, CpNotesPane, location);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
}

static void
cp_notes_pane_init (CpNotesPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  update_stack (self);
}
