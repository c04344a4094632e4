/* cp-export-dialog.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-export-dialog.h"

struct _CpExportDialog
{
  AdwWindow        parent_instance;

  CpViewState     *view;
  GFile           *file;
  char            *pattern;

  /* Template widgets */
  AdwToastOverlay *toasts;
  AdwComboRow     *range_row;
  AdwEntryRow     *from_row;
  AdwEntryRow     *to_row;
  AdwComboRow     *lanes_row;
  AdwEntryRow     *pattern_row;
  GtkSwitch       *findings;
  GtkSwitch       *steps;
  GtkSwitch       *annotations;
  GtkSpinButton   *width;
  GtkSpinButton   *scale;
  AdwComboRow     *style_row;
  AdwActionRow    *file_row;
};

G_DEFINE_FINAL_TYPE (CpExportDialog, cp_export_dialog, ADW_TYPE_WINDOW)

enum {
  SIGNAL_EXPORT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Range and lane choices, in the combo rows' order. */
static const CpReportRange range_choices[] = { CP_REPORT_RANGE_ALL, CP_REPORT_RANGE_VIEW, CP_REPORT_RANGE_CUSTOM };
static const CpReportLanes lane_choices[] = { CP_REPORT_LANES_ALL, CP_REPORT_LANES_VISIBLE, CP_REPORT_LANES_PATTERN };

/* A time as `chokepoint report --range` reads it, exact to the nanosecond
 * and in the largest unit it reaches: "2s", "287.369665ms", "800us". */
static char *
format_time_entry (gint64 ns)
{
  static const struct { gint64 ns; int digits; const char *suffix; } units[] = {
    { CP_NS_PER_S, 9, "s" }, { CP_NS_PER_MS, 6, "ms" }, { CP_NS_PER_US, 3, "us" },
  };

  if (ns == 0)
    return g_strdup ("0s");
  for (guint i = 0; ns > 0 && i < G_N_ELEMENTS (units); i++)
    if (ns >= units[i].ns)
      {
        gint64 frac = ns % units[i].ns;
        int digits = units[i].digits;
        g_autofree char *frac_text = NULL;

        if (frac == 0)
          return g_strdup_printf ("%" G_GINT64_FORMAT "%s", ns / units[i].ns, units[i].suffix);
        /* Trailing zeros of the fraction say nothing. */
        while (frac % 10 == 0)
          {
            frac /= 10;
            digits--;
          }
        frac_text = g_strdup_printf ("%0*" G_GINT64_FORMAT, digits, frac);
        return g_strdup_printf ("%" G_GINT64_FORMAT ".%s%s", ns / units[i].ns, frac_text, units[i].suffix);
      }
  return g_strdup_printf ("%" G_GINT64_FORMAT "ns", ns);
}

static void
update_sensitivity (CpExportDialog *self)
{
  gboolean custom = adw_combo_row_get_selected (self->range_row) == 2;
  gboolean pattern = adw_combo_row_get_selected (self->lanes_row) == 2;

  gtk_widget_set_visible (GTK_WIDGET (self->from_row), custom);
  gtk_widget_set_visible (GTK_WIDGET (self->to_row), custom);
  gtk_widget_set_visible (GTK_WIDGET (self->pattern_row), pattern);
}

static void
update_file_row (CpExportDialog *self)
{
  g_autofree char *name = self->file ? g_file_get_parse_name (self->file) : NULL;
  g_autofree char *base = self->file ? g_file_get_basename (self->file) : NULL;
  CpReportFormat format = CP_REPORT_FORMAT_PNG;
  const char *kind;

  cp_report_format_for_name (base, &format);
  kind = format == CP_REPORT_FORMAT_SVG ? _("SVG image") : format == CP_REPORT_FORMAT_PDF ? _("PDF document")
                                                                                           : _("PNG image");
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->file_row), base ? base : _("No file chosen"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->file_row), name ? kind : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->file_row), name);
}

static void
set_file_named (CpExportDialog *self,
                GFile          *file)
{
  g_autofree char *base = g_file_get_basename (file);

  /* The extension picks the format; none means PNG. */
  if (!cp_report_format_for_name (base, NULL))
    {
      g_autoptr(GFile) parent = g_file_get_parent (file);
      g_autofree char *png = g_strconcat (base, ".png", NULL);
      g_autoptr(GFile) with_ext = parent ? g_file_get_child (parent, png) : g_file_new_for_path (png);

      cp_export_dialog_set_file (self, with_ext);
    }
  else
    cp_export_dialog_set_file (self, file);
}

#if GTK_CHECK_VERSION (4, 10, 0)
static void
save_dialog_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CpExportDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (source), result, &error);

  if (file != NULL)
    set_file_named (self, file);
  else if (!g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) &&
           !g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    cp_export_dialog_show_error (self, error->message);
}
#else
static void
native_response_cb (GtkNativeDialog *native,
                    int              response,
                    gpointer         user_data)
{
  CpExportDialog *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      if (file != NULL)
        set_file_named (self, file);
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}
#endif

static void
choose_clicked_cb (CpExportDialog *self)
{
  g_autoptr(GFile) folder = self->file ? g_file_get_parent (self->file) : NULL;
  g_autofree char *name = self->file ? g_file_get_basename (self->file) : g_strdup ("report.png");

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, _("Save Report As"));
  gtk_file_dialog_set_accept_label (dialog, _("_Choose"));
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_set_initial_name (dialog, name);
  if (folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, folder);
  gtk_file_dialog_save (dialog, GTK_WINDOW (self), NULL, save_dialog_cb, g_object_ref (self));
#else
  GtkFileChooserNative *native = gtk_file_chooser_native_new (_("Save Report As"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE,
                                                              _("_Choose"), _("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_signal_connect (native, "response", G_CALLBACK (native_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
#endif
}

gboolean
cp_export_dialog_get_options (CpExportDialog   *self,
                              CpReportOptions  *options,
                              GError          **error)
{
  guint range, lanes;

  g_return_val_if_fail (CP_IS_EXPORT_DIALOG (self), FALSE);
  g_return_val_if_fail (options != NULL, FALSE);

  cp_report_options_init (options);
  range = MIN (adw_combo_row_get_selected (self->range_row), G_N_ELEMENTS (range_choices) - 1);
  lanes = MIN (adw_combo_row_get_selected (self->lanes_row), G_N_ELEMENTS (lane_choices) - 1);
  options->range = range_choices[range];
  options->lanes = lane_choices[lanes];
  if (options->range == CP_REPORT_RANGE_CUSTOM)
    {
      g_autoptr(GError) local_error = NULL;

      if (!cp_report_parse_time (gtk_editable_get_text (GTK_EDITABLE (self->from_row)), &options->start,
                                 &local_error) ||
          !cp_report_parse_time (gtk_editable_get_text (GTK_EDITABLE (self->to_row)), &options->end,
                                 &local_error))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      if (options->end <= options->start)
        {
          g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                               _("The range ends before it starts"));
          return FALSE;
        }
    }
  if (options->lanes == CP_REPORT_LANES_PATTERN)
    {
      g_free (self->pattern);
      self->pattern = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->pattern_row))));
      if (*self->pattern == '\0')
        {
          g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID,
                               _("Write a lane pattern, for example “kernel, thread*”"));
          return FALSE;
        }
      options->lane_pattern = self->pattern;
    }
  options->findings = gtk_switch_get_active (self->findings);
  options->steps = gtk_switch_get_active (self->steps);
  options->annotations = gtk_switch_get_active (self->annotations);
  options->width = gtk_spin_button_get_value_as_int (self->width);
  options->scale = gtk_spin_button_get_value (self->scale);
  options->theme = adw_combo_row_get_selected (self->style_row) == 1 ? CP_THEME_DARK : CP_THEME_LIGHT;
  if (self->file == NULL)
    {
      g_set_error_literal (error, CP_REPORT_ERROR, CP_REPORT_ERROR_FORMAT, _("Choose a file to save to"));
      return FALSE;
    }
  return TRUE;
}

void
cp_export_dialog_set_options (CpExportDialog        *self,
                              const CpReportOptions *options)
{
  g_return_if_fail (CP_IS_EXPORT_DIALOG (self));
  g_return_if_fail (options != NULL);

  for (guint i = 0; i < G_N_ELEMENTS (range_choices); i++)
    if (range_choices[i] == options->range)
      adw_combo_row_set_selected (self->range_row, i);
  for (guint i = 0; i < G_N_ELEMENTS (lane_choices); i++)
    if (lane_choices[i] == options->lanes)
      adw_combo_row_set_selected (self->lanes_row, i);
  if (options->range == CP_REPORT_RANGE_CUSTOM)
    {
      g_autofree char *from = format_time_entry (options->start);
      g_autofree char *to = format_time_entry (options->end);

      gtk_editable_set_text (GTK_EDITABLE (self->from_row), from);
      gtk_editable_set_text (GTK_EDITABLE (self->to_row), to);
    }
  if (options->lane_pattern != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->pattern_row), options->lane_pattern);
  gtk_switch_set_active (self->findings, options->findings);
  gtk_switch_set_active (self->steps, options->steps);
  gtk_switch_set_active (self->annotations, options->annotations);
  gtk_spin_button_set_value (self->width, options->width);
  gtk_spin_button_set_value (self->scale, options->scale);
  adw_combo_row_set_selected (self->style_row, options->theme == CP_THEME_DARK ? 1 : 0);
  update_sensitivity (self);
}

GFile *
cp_export_dialog_get_file (CpExportDialog *self)
{
  g_return_val_if_fail (CP_IS_EXPORT_DIALOG (self), NULL);
  return self->file;
}

void
cp_export_dialog_set_file (CpExportDialog *self,
                           GFile          *file)
{
  g_return_if_fail (CP_IS_EXPORT_DIALOG (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));

  g_set_object (&self->file, file);
  update_file_row (self);
}

void
cp_export_dialog_show_error (CpExportDialog *self,
                             const char     *message)
{
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  g_return_if_fail (CP_IS_EXPORT_DIALOG (self));

  escaped = g_markup_escape_text (message, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 8);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  adw_toast_overlay_add_toast (self->toasts, toast);
}

void
cp_export_dialog_confirm (CpExportDialog *self)
{
  CpReportOptions options;
  g_autoptr(GError) error = NULL;
  g_autofree char *base = NULL;

  g_return_if_fail (CP_IS_EXPORT_DIALOG (self));

  if (!cp_export_dialog_get_options (self, &options, &error))
    {
      cp_export_dialog_show_error (self, error->message);
      return;
    }
  base = g_file_get_basename (self->file);
  if (!cp_report_format_for_name (base, NULL))
    {
      cp_export_dialog_show_error (self, _("The file name must end in .png, .svg or .pdf"));
      return;
    }
  g_signal_emit (self, signals[SIGNAL_EXPORT], 0);
}

CpExportDialog *
cp_export_dialog_new (GtkWindow   *parent,
                      CpViewState *view,
                      GFile       *file)
{
  CpExportDialog *self;
  gint64 a, b;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (view == NULL || CP_IS_VIEW_STATE (view), NULL);

  self = g_object_new (CP_TYPE_EXPORT_DIALOG,
                       "transient-for", parent,
                       "modal", TRUE,
                       NULL);
  self->view = view ? g_object_ref (view) : NULL;
  if (file != NULL)
    cp_export_dialog_set_file (self, file);

  /* A range selected on the ruler is the likely choice; otherwise the
   * whole capture, with the view's range offered for editing. */
  if (view != NULL && cp_view_state_get_time_selection (view, &a, &b) && b > a)
    adw_combo_row_set_selected (self->range_row, 2);
  else if (view != NULL)
    {
      a = cp_view_state_get_visible_start (view);
      b = cp_view_state_get_visible_end (view);
    }
  else
    a = b = 0;
  if (b > a)
    {
      g_autofree char *from = format_time_entry (a);
      g_autofree char *to = format_time_entry (b);

      gtk_editable_set_text (GTK_EDITABLE (self->from_row), from);
      gtk_editable_set_text (GTK_EDITABLE (self->to_row), to);
    }
  update_sensitivity (self);
  return self;
}

static void
cp_export_dialog_dispose (GObject *object)
{
  CpExportDialog *self = CP_EXPORT_DIALOG (object);

  g_clear_object (&self->view);
  g_clear_object (&self->file);
  g_clear_pointer (&self->pattern, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_EXPORT_DIALOG);

  G_OBJECT_CLASS (cp_export_dialog_parent_class)->dispose (object);
}

static void
cp_export_dialog_class_init (CpExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_export_dialog_dispose;

  /**
   * CpExportDialog::export:
   *
   * The user confirmed choices that make a report.
   */
  signals[SIGNAL_EXPORT] =
    g_signal_new ("export", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, toasts);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, range_row);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, from_row);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, to_row);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, lanes_row);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, pattern_row);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, findings);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, steps);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, annotations);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, width);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, scale);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, style_row);
  gtk_widget_class_bind_template_child (widget_class, CpExportDialog, file_row);
  gtk_widget_class_bind_template_callback (widget_class, cp_export_dialog_confirm);
  gtk_widget_class_bind_template_callback (widget_class, update_sensitivity);
  gtk_widget_class_bind_template_callback (widget_class, choose_clicked_cb);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
cp_export_dialog_init (CpExportDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* As gtk_spin_button_new_with_range() would make them. */
  gtk_spin_button_configure (self->width,
                             gtk_adjustment_new (CP_REPORT_DEFAULT_WIDTH, CP_REPORT_MIN_WIDTH,
                                                 CP_REPORT_MAX_WIDTH, 10, 100, 0),
                             10, 0);
  gtk_spin_button_configure (self->scale,
                             gtk_adjustment_new (1, CP_REPORT_MIN_SCALE, CP_REPORT_MAX_SCALE, 0.5, 5, 0),
                             0.5, 1);
  gtk_spin_button_set_numeric (self->width, TRUE);
  gtk_spin_button_set_numeric (self->scale, TRUE);

  update_file_row (self);
  update_sensitivity (self);
}
