/* cp-capture-pane.c: the "Capture" page of the side pane
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cp-capture-pane.h"
#include "render/cp-time-format.h"

#include "cp-format.h"

/* Metadata values longer than this are cut in the list. */
#define METADATA_PREVIEW_CHARS 240

struct _CpCapturePane
{
  CpPane               parent_instance;

  /* Template widgets */
  AdwPreferencesPage  *page;
  AdwPreferencesGroup *file_group;
  AdwPreferencesGroup *devices_group;
  AdwPreferencesGroup *report_group;
  AdwPreferencesGroup *metadata_group;

  /* Borrowed references: rows added to the groups, to remove them. */
  GPtrArray           *rows;
  GtkWidget           *report_first_row;
  AdwExpanderRow      *warnings_row;

  /* Owned references */
  char                *location;  /* shown instead of the file's path */
};

G_DEFINE_FINAL_TYPE (CpCapturePane, cp_capture_pane, CP_TYPE_PANE)

static GtkWidget *
make_row (const char *title,
          const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_widget_add_css_class (row, "property");
  return row;
}

static GtkWidget *
add_row (CpCapturePane       *self,
         AdwPreferencesGroup *group,
         const char          *title,
         const char          *subtitle)
{
  GtkWidget *row = make_row (title, subtitle);

  adw_preferences_group_add (group, row);
  g_ptr_array_add (self->rows, row);
  return row;
}

static void
clear_rows (CpCapturePane *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);
      GtkWidget *group = gtk_widget_get_ancestor (row, ADW_TYPE_PREFERENCES_GROUP);

      if (group != NULL)
        adw_preferences_group_remove (ADW_PREFERENCES_GROUP (group), row);
    }
  g_ptr_array_set_size (self->rows, 0);
  self->report_first_row = NULL;
  self->warnings_row = NULL;
  adw_preferences_group_set_description (self->devices_group, NULL);
  adw_preferences_group_set_description (self->metadata_group,
                                         _("Top-level keys of the capture besides its events"));
}

static char *
format_origin (CpTrace *trace)
{
  gint64 origin = cp_trace_get_origin_abs (trace);

  if (cp_time_origin_is_date (origin, cp_trace_get_origin_is_epoch (trace)))
    {
      g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (origin / CP_NS_PER_S);
      g_autoptr(GDateTime) local = utc ? g_date_time_to_local (utc) : NULL;

      if (local != NULL)
        /* Translators: the start of a capture, a strftime format
         * (g_date_time_format); keep it unambiguous. */
        return g_date_time_format (local, _("%Y-%m-%d %H:%M:%S %Z"));
    }
  if (origin >= 0 && origin < 60 * CP_NS_PER_S)
    {
      g_autofree char *t = cp_ui_format_duration (origin);

      /* Translators: a capture's start on its own clock, "12.3 s on the capture's clock". */
      return g_strdup_printf (_("%s on the capture’s clock"), t);
    }
  /* A boot-time or other clock of the capture's own: its hours since some
   * moment nobody knows tell the user nothing. */
  return g_strdup (_("No date: the capture keeps its own clock"));
}

static void
fill_file_group (CpCapturePane *self)
{
  CpTrace *trace = cp_pane_get_trace (CP_PANE (self));
  const CpLoadReport *report = cp_trace_get_load_report (trace);
  GFile *file = cp_trace_get_file (trace);
  g_autofree char *where = self->location ? g_strdup (self->location)
                          : file ? g_file_get_parse_name (file) : NULL;
  g_autofree char *format = cp_ui_format_capture_kind (report ? report->format : NULL);
  g_autofree char *span = cp_ui_format_duration (cp_trace_get_duration (trace));
  g_autofree char *origin = format_origin (trace);
  g_autofree char *slices = cp_ui_format_count (cp_trace_get_n_slices (trace));
  g_autofree char *kernels = cp_ui_format_count (cp_trace_count_slices (trace, CP_LANE_KERNEL));
  g_autofree char *transfers = cp_ui_format_count (cp_trace_count_slices (trace, CP_LANE_TRANSFER));
  g_autofree char *flows = NULL;
  g_autofree char *steps = NULL;
  g_autofree char *memory = g_format_size (cp_trace_get_memory_size (trace));
  guint n_flows = 0, n_steps = 0;

  cp_trace_get_flows (trace, &n_flows);
  cp_trace_get_steps (trace, &n_steps);
  flows = cp_ui_format_count (n_flows);
  steps = cp_ui_format_count (n_steps);

  if (where != NULL)
    add_row (self, self->file_group, _("Location"), where);
  add_row (self, self->file_group, _("Format"), format);
  {
    CpAnalysis *a = cp_pane_get_analysis (CP_PANE (self));

    /* The framework, from the analysis of this trace. */
    if (a != NULL && cp_analysis_get_trace (a) == trace)
      {
        const CpFrameworkInfo *fw = cp_analysis_get_framework (a);
        g_autofree char *name = cp_framework_info_describe (fw);
        g_autofree char *from = cp_framework_info_describe_evidence (fw);

        add_row (self, self->file_group, _("Framework"), name);
        if (from != NULL)
          add_row (self, self->file_group, _("Framework Inferred From"), from);
      }
    else
      add_row (self, self->file_group, _("Framework"), _("Analysing the capture…"));
  }
  if (report != NULL && report->file_bytes > 0)
    {
      g_autofree char *size = g_format_size (report->file_bytes);

      if (report->input_bytes > 0 && report->input_bytes != report->file_bytes)
        {
          g_autofree char *input = g_format_size (report->input_bytes);
          /* Translators: a file size and its uncompressed size, "12 MB (230 MB uncompressed)". */
          g_autofree char *text = g_strdup_printf (_("%s (%s uncompressed)"), size, input);

          add_row (self, self->file_group, _("Size"), text);
        }
      else
        add_row (self, self->file_group, _("Size"), size);
    }
  add_row (self, self->file_group, _("Start"), origin);
  add_row (self, self->file_group, _("Time Span"), span);
  add_row (self, self->file_group, _("Slices"), slices);
  {
    guint n_dev = cp_trace_get_n_devices (trace), n_tpu = 0;

    for (guint d = 0; d < n_dev; d++)
      if (cp_trace_get_device_kind (trace, cp_trace_get_device (trace, d)->ordinal) == CP_DEVICE_KIND_TPU)
        n_tpu++;
    /* What a TPU executes are XLA ops, not kernels. */
    add_row (self, self->file_group, n_dev > 0 && n_tpu == n_dev ? _("XLA Ops") : _("Kernels"), kernels);
  }
  add_row (self, self->file_group, _("Transfers"), transfers);
  add_row (self, self->file_group, _("Flows"), flows);
  add_row (self, self->file_group, _("Steps"), steps);
  if (report != NULL && report->load_seconds > 0)
    {
      g_autofree char *t = cp_ui_format_duration ((gint64) (report->load_seconds * CP_NS_PER_S));

      add_row (self, self->file_group, _("Load Time"), t);
    }
  add_row (self, self->file_group, _("Memory Used"), memory);
}

static void
fill_devices_group (CpCapturePane *self)
{
  CpTrace *trace = cp_pane_get_trace (CP_PANE (self));
  guint n = cp_trace_get_n_devices (trace);

  if (n == 0)
    {
      adw_preferences_group_set_description (self->devices_group,
                                             _("The capture describes no devices."));
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      const CpDevice *device = cp_trace_get_device (trace, i);
      g_autofree char *name = cp_ui_format_device_name (trace, device);
      g_autoptr(GPtrArray) facts = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *subtitle = NULL;

      /* Translators: the ordinal of a device, "Device 0". */
      g_ptr_array_add (facts, g_strdup_printf (_("Device %d"), device->ordinal));
      if (device->total_memory > 0)
        g_ptr_array_add (facts, g_format_size_full (device->total_memory, G_FORMAT_SIZE_IEC_UNITS));
      if (device->compute_major >= 0)
        /* Translators: a CUDA compute capability, "compute 9.0". */
        g_ptr_array_add (facts, g_strdup_printf (_("compute %d.%d"),
                                                 device->compute_major,
                                                 MAX (device->compute_minor, 0)));
      if (device->num_sms > 0)
        /* Translators: streaming multiprocessors of a GPU, "132 SMs". */
        g_ptr_array_add (facts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d SM", "%d SMs",
                                                              device->num_sms),
                                                 device->num_sms));
      g_ptr_array_add (facts, NULL);
      subtitle = g_strjoinv (" · ", (char **) facts->pdata);
      add_row (self, self->devices_group, name, subtitle);
    }
}

static void
add_count_row (CpCapturePane *self,
               const char    *title,
               guint64        count,
               gboolean       always)
{
  g_autofree char *text = NULL;
  GtkWidget *row;

  if (count == 0 && !always)
    return;
  text = cp_ui_format_count (count);
  row = add_row (self, self->report_group, title, text);
  if (self->report_first_row == NULL)
    self->report_first_row = row;
}

static void
fill_report_group (CpCapturePane *self)
{
  const CpLoadReport *report = cp_trace_get_load_report (cp_pane_get_trace (CP_PANE (self)));
  g_autoptr(GString) phases = g_string_new (NULL);
  guint n_warnings;

  if (report == NULL)
    return;

  add_count_row (self, _("Events Read"), report->events, TRUE);
  for (guint c = 0; c < G_N_ELEMENTS (report->by_phase); c++)
    {
      if (report->by_phase[c] == 0)
        continue;
      if (phases->len > 0)
        g_string_append (phases, ", ");
      g_string_append_printf (phases, "%c: %" G_GUINT64_FORMAT, (char) c, report->by_phase[c]);
    }
  if (phases->len > 0)
    add_row (self, self->report_group, _("Events by Phase"), phases->str);
  add_count_row (self, _("Skipped as Invalid"), report->skipped, FALSE);
  add_count_row (self, _("Unknown Phases"), report->unknown_phase, FALSE);
  add_count_row (self, _("Ends Without a Begin"), report->unmatched_end, FALSE);
  add_count_row (self, _("Begins Closed at the End"), report->unclosed_begin, FALSE);
  add_count_row (self, _("Aggregated Events"), report->aggregated, FALSE);

  if (report->truncated)
    {
      g_autofree char *offset = cp_ui_format_count (report->stopped_at);
      /* Translators: %s is a byte offset, "1,234,567". */
      g_autofree char *text = g_strdup_printf (_("Reading stopped at byte %s; every complete "
                                                 "event before it was loaded"), offset);
      GtkWidget *row = add_row (self, self->report_group, _("The Capture Ends Early"), text);

      gtk_widget_add_css_class (row, "warning");
    }

  n_warnings = cp_load_report_n_warnings (report);
  if (n_warnings == 0)
    {
      add_row (self, self->report_group, _("Warnings"), C_("warnings", "None"));
      return;
    }

  {
    GtkWidget *expander = adw_expander_row_new ();
    g_autofree char *count = cp_ui_format_count (n_warnings + report->warnings_dropped);

    adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), _("Warnings"));
    adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), count);
    adw_preferences_group_add (self->report_group, expander);
    g_ptr_array_add (self->rows, expander);
    self->warnings_row = ADW_EXPANDER_ROW (expander);

    for (guint i = 0; i < n_warnings; i++)
      {
        const CpLoadWarning *w = cp_load_report_get_warning (report, i);
        g_autofree char *where = NULL;
        GtkWidget *row;

        if (w->offset != G_MAXUINT64)
          {
            g_autofree char *offset = cp_ui_format_count (w->offset);

            /* Translators: where a warning applies, "at byte 1,234". */
            where = g_strdup_printf (_("at byte %s"), offset);
          }
        row = make_row (w->message, where);
        adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 0);
        adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
      }
    if (report->warnings_dropped > 0)
      {
        g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                              "%u more warning was not kept",
                                                              "%u more warnings were not kept",
                                                              report->warnings_dropped),
                                                 report->warnings_dropped);

        adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), make_row (text, NULL));
      }
  }
}

static void
fill_metadata_group (CpCapturePane *self)
{
  CpTrace *trace = cp_pane_get_trace (CP_PANE (self));
  guint n = cp_trace_get_n_metadata (trace);

  if (n == 0)
    {
      adw_preferences_group_set_description (self->metadata_group,
                                             _("The capture has no top-level keys besides its events."));
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      const CpMetadataEntry *entry = cp_trace_get_metadata (trace, i);
      const char *key = cp_trace_get_string (trace, entry->key);
      g_autofree char *preview = NULL;
      GtkWidget *row;

      if (entry->json == NULL)
        continue;
      if (g_utf8_strlen (entry->json, -1) > METADATA_PREVIEW_CHARS)
        {
          g_autofree char *cut = g_utf8_substring (entry->json, 0, METADATA_PREVIEW_CHARS);

          preview = g_strconcat (cut, "…", NULL);
        }
      else
        preview = g_strdup (entry->json);
      g_strdelimit (preview, "\n\r\t", ' ');

      row = add_row (self, self->metadata_group, key, preview);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 3);
      gtk_widget_set_tooltip_text (row, preview);
    }
}

static void
rebuild (CpCapturePane *self)
{
  clear_rows (self);
  if (cp_pane_get_trace (CP_PANE (self)) == NULL)
    return;

  fill_file_group (self);
  fill_devices_group (self);
  fill_report_group (self);
  fill_metadata_group (self);
}

void
cp_capture_pane_set_location (CpCapturePane *self,
                              const char    *location)
{
  g_return_if_fail (CP_IS_CAPTURE_PANE (self));

  if (g_strcmp0 (self->location, location) == 0)
    return;
  g_free (self->location);
  self->location = g_strdup (location);
  rebuild (self);
}

GtkWidget *
cp_capture_pane_new (void)
{
  return g_object_new (CP_TYPE_CAPTURE_PANE, NULL);
}

static void
cp_capture_pane_trace_changed (CpPane *pane)
{
  rebuild (CP_CAPTURE_PANE (pane));
}

static void
cp_capture_pane_analysis_changed (CpPane *pane)
{
  rebuild (CP_CAPTURE_PANE (pane));
}

void
cp_capture_pane_show_load_report (CpCapturePane *self)
{
  g_return_if_fail (CP_IS_CAPTURE_PANE (self));

  if (self->warnings_row != NULL)
    {
      adw_expander_row_set_expanded (self->warnings_row, TRUE);
      gtk_widget_grab_focus (GTK_WIDGET (self->warnings_row));
    }
  else if (self->report_first_row != NULL)
    gtk_widget_grab_focus (self->report_first_row);
}

static void
cp_capture_pane_dispose (GObject *object)
{
  CpCapturePane *self = CP_CAPTURE_PANE (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_CAPTURE_PANE);

  G_OBJECT_CLASS (cp_capture_pane_parent_class)->dispose (object);
}

static void
cp_capture_pane_finalize (GObject *object)
{
  CpCapturePane *self = CP_CAPTURE_PANE (object);

  g_ptr_array_unref (self->rows);
  g_free (self->location);

  G_OBJECT_CLASS (cp_capture_pane_parent_class)->finalize (object);
}

static void
cp_capture_pane_class_init (CpCapturePaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_capture_pane_dispose;
  object_class->finalize = cp_capture_pane_finalize;
  CP_PANE_CLASS (klass)->trace_changed = cp_capture_pane_trace_changed;
  CP_PANE_CLASS (klass)->analysis_changed = cp_capture_pane_analysis_changed;

  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "capture");
  gtk_widget_class_bind_template_child (widget_class, CpCapturePane, page);
  gtk_widget_class_bind_template_child (widget_class, CpCapturePane, file_group);
  gtk_widget_class_bind_template_child (widget_class, CpCapturePane, devices_group);
  gtk_widget_class_bind_template_child (widget_class, CpCapturePane, report_group);
  gtk_widget_class_bind_template_child (widget_class, CpCapturePane, metadata_group);
}

static void
cp_capture_pane_init (CpCapturePane *self)
{
  self->rows = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
}
