/* cp-note-popover.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-format.h"
#include "cp-note-popover.h"

struct _CpNotePopover
{
  GtkPopover      parent_instance;

  CpAnnotations  *annotations;
  CpAnnotation   *annotation;

  /* Template widgets */
  GtkLabel       *heading;
  GtkLabel       *where;
  GtkTextView    *text_view;
  GtkBox         *colors_box;
  GtkWidget      *done_button;

  GtkWidget      *colors[CP_ANNOTATION_N_COLORS];
  gboolean        updating;
};

G_DEFINE_FINAL_TYPE (CpNotePopover, cp_note_popover, GTK_TYPE_POPOVER)

static void
draw_swatch (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  guint32 c = GPOINTER_TO_UINT (user_data);

  cairo_arc (cr, width / 2.0, height / 2.0, MIN (width, height) / 2.0 - 1, 0, 2 * G_PI);
  cairo_set_source_rgb (cr, ((c >> 24) & 0xff) / 255.0, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0);
  cairo_fill (cr);
}

static void
apply_text (CpNotePopover *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  if (self->annotation == NULL || self->annotations == NULL ||
      cp_annotations_find (self->annotations, self->annotation) < 0)
    return;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  cp_annotation_set_text (self->annotation, g_strstrip (text));
}

static void
closed_cb (CpNotePopover *self)
{
  apply_text (self);
}

static void
color_toggled_cb (GtkToggleButton *button,
                  CpNotePopover   *self)
{
  if (self->updating || !gtk_toggle_button_get_active (button) || self->annotation == NULL)
    return;
  cp_annotation_set_color (self->annotation,
                           GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "color")));
}

static void
done_clicked_cb (CpNotePopover *self)
{
  gtk_popover_popdown (GTK_POPOVER (self));
}

static void
delete_clicked_cb (CpNotePopover *self)
{
  g_autoptr(CpAnnotation) annotation = self->annotation ? g_object_ref (self->annotation) : NULL;

  /* Nothing to apply once it is gone. */
  g_clear_object (&self->annotation);
  if (annotation != NULL && self->annotations != NULL)
    cp_annotations_remove (self->annotations, annotation);
  gtk_popover_popdown (GTK_POPOVER (self));
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CpNotePopover         *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) && (state & GDK_CONTROL_MASK))
    {
      gtk_popover_popdown (GTK_POPOVER (self));
      return TRUE;
    }
  return FALSE;
}

static char *
describe (CpAnnotations *annotations,
          CpAnnotation  *a)
{
  g_autofree char *start = cp_ui_format_duration (cp_annotation_get_start (a));

  if (cp_annotation_get_kind (a) == CP_ANNOTATION_MARKER)
    /* Translators: a marker's time from the start of the capture. */
    return g_strdup_printf (_("Marker at %s"), start);
  {
    g_autofree char *len = cp_ui_format_duration (cp_annotation_get_end (a) - cp_annotation_get_start (a));

    /* Translators: a note on a time range: its start and its length. */
    return g_strdup_printf (_("Note at %s, %s long"), start, len);
  }
}

void
cp_note_popover_edit (CpNotePopover *self,
                      CpAnnotations *annotations,
                      CpAnnotation  *annotation)
{
  g_autofree char *heading = NULL;
  g_autofree char *where = NULL;
  CpTrace *trace;

  g_return_if_fail (CP_IS_NOTE_POPOVER (self));
  g_return_if_fail (CP_IS_ANNOTATIONS (annotations));
  g_return_if_fail (CP_IS_ANNOTATION (annotation));

  g_set_object (&self->annotations, annotations);
  g_set_object (&self->annotation, annotation);

  heading = describe (annotations, annotation);
  gtk_label_set_text (self->heading, heading);
  trace = cp_annotations_get_trace (annotations);
  if (cp_annotation_is_detached (annotation))
    where = g_strdup (_("Detached: its slice is not in this capture"));
  else if (cp_annotation_is_attached (annotation))
    where = g_strdup_printf (_("On “%s”"), cp_annotation_get_slice_name (annotation));
  else if (trace != NULL && cp_annotation_get_lane (annotation) < cp_trace_get_n_lanes (trace))
    where = g_strdup_printf (_("On %s"), cp_lane_get_name (cp_trace_get_lane (trace, cp_annotation_get_lane (annotation))));
  else
    where = g_strdup (_("Across every lane"));
  gtk_label_set_text (self->where, where);

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), cp_annotation_get_text (annotation), -1);
  self->updating = TRUE;
  for (guint i = 0; i < CP_ANNOTATION_N_COLORS; i++)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->colors[i]),
                                  cp_annotation_get_palette_color (i) == cp_annotation_get_color (annotation));
  self->updating = FALSE;
}

CpAnnotation *
cp_note_popover_get_annotation (CpNotePopover *self)
{
  g_return_val_if_fail (CP_IS_NOTE_POPOVER (self), NULL);
  return self->annotation;
}

void
cp_note_popover_set_text (CpNotePopover *self,
                          const char    *text)
{
  g_return_if_fail (CP_IS_NOTE_POPOVER (self));
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), text ? text : "", -1);
}

void
cp_note_popover_pick_color (CpNotePopover *self,
                            guint          index)
{
  g_return_if_fail (CP_IS_NOTE_POPOVER (self));
  g_return_if_fail (index < CP_ANNOTATION_N_COLORS);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->colors[index]), TRUE);
}

GtkWidget *
cp_note_popover_new (void)
{
  return g_object_new (CP_TYPE_NOTE_POPOVER, NULL);
}

static void
cp_note_popover_dispose (GObject *object)
{
  CpNotePopover *self = CP_NOTE_POPOVER (object);

  g_clear_object (&self->annotation);
  g_clear_object (&self->annotations);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_NOTE_POPOVER);

  G_OBJECT_CLASS (cp_note_popover_parent_class)->dispose (object);
}

static void
cp_note_popover_class_init (CpNotePopoverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_note_popover_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-note-popover.ui");
  gtk_widget_class_bind_template_child (widget_class, CpNotePopover, heading);
  gtk_widget_class_bind_template_child (widget_class, CpNotePopover, where);
  gtk_widget_class_bind_template_child (widget_class, CpNotePopover, text_view);
  gtk_widget_class_bind_template_child (widget_class, CpNotePopover, colors_box);
  gtk_widget_class_bind_template_child (widget_class, CpNotePopover, done_button);
  gtk_widget_class_bind_template_callback (widget_class, key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, delete_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, done_clicked_cb);
}

static void
cp_note_popover_init (CpNotePopover *self)
{
  static const char *const color_names[CP_ANNOTATION_N_COLORS] = {
    N_("Purple"), N_("Blue"), N_("Green"), N_("Yellow"), N_("Orange"), N_("Red"),
  };

  gtk_widget_init_template (GTK_WIDGET (self));

  /* A swatch per colour of the palette. */
  for (guint i = 0; i < CP_ANNOTATION_N_COLORS; i++)
    {
      GtkWidget *button = gtk_toggle_button_new ();
      GtkWidget *swatch = gtk_drawing_area_new ();
      guint32 c = cp_annotation_get_palette_color (i);

      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 16);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 16);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch, GUINT_TO_POINTER (c), NULL);
      gtk_button_set_child (GTK_BUTTON (button), swatch);
      gtk_widget_add_css_class (button, "circular");
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_tooltip_text (button, _(color_names[i]));
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _(color_names[i]), -1);
      if (i > 0)
        gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), GTK_TOGGLE_BUTTON (self->colors[0]));
      g_object_set_data (G_OBJECT (button), "color", GUINT_TO_POINTER (c));
      g_signal_connect (button, "toggled", G_CALLBACK (color_toggled_cb), self);
      self->colors[i] = button;
      gtk_box_append (self->colors_box, button);
    }

  gtk_popover_set_default_widget (GTK_POPOVER (self), self->done_button);
  g_signal_connect (self, "closed", G_CALLBACK (closed_cb), NULL);
  g_signal_connect_swapped (self, "show", G_CALLBACK (gtk_widget_grab_focus), self->text_view);
}
