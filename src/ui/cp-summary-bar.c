/* cp-summary-bar.c: the figures of a capture in one row
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-format.h"
#include "cp-summary-bar.h"

struct _CpSummaryBar
{
  GtkWidget   parent_instance;

  /* Template widgets */
  GtkFlowBox *flow_box;

  /* Owned references */
  CpTrace    *trace;
};

G_DEFINE_FINAL_TYPE (CpSummaryBar, cp_summary_bar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRACE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
clear_items (CpSummaryBar *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->flow_box))) != NULL)
    gtk_flow_box_remove (self->flow_box, child);
}

/* One figure: the value above its caption. */
static void
add_item (CpSummaryBar *self,
          const char   *caption,
          const char   *value,
          const char   *tooltip)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *value_label = gtk_label_new (value);
  GtkWidget *caption_label = gtk_label_new (caption);
  GtkWidget *child;

  gtk_label_set_xalign (GTK_LABEL (value_label), 0.0f);
  gtk_label_set_xalign (GTK_LABEL (caption_label), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (value_label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (value_label), 32);
  gtk_widget_add_css_class (value_label, "summary-value");
  gtk_widget_add_css_class (value_label, "numeric");
  gtk_widget_add_css_class (caption_label, "caption");
  gtk_widget_add_css_class (caption_label, "dim-label");
  gtk_box_append (GTK_BOX (box), value_label);
  gtk_box_append (GTK_BOX (box), caption_label);
  gtk_widget_set_tooltip_text (box, tooltip ? tooltip : value);

  gtk_flow_box_append (self->flow_box, box);
  child = gtk_widget_get_parent (box);
  gtk_widget_set_focusable (child, FALSE);
  gtk_widget_add_css_class (child, "summary-item");
  gtk_accessible_update_property (GTK_ACCESSIBLE (child),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, caption,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, value,
                                  -1);
}

static void
rebuild (CpSummaryBar *self)
{
  const CpLoadReport *report;
  g_autofree char *format = NULL;
  g_autofree char *events = NULL;
  g_autofree char *slices = NULL;
  g_autofree char *lanes = NULL;
  g_autofree char *processes = NULL;
  g_autofree char *devices = NULL;
  g_autofree char *span = NULL;
  g_autofree char *load_time = NULL;
  guint n_devices;

  clear_items (self);
  if (self->trace == NULL)
    return;

  report = cp_trace_get_load_report (self->trace);
  n_devices = cp_trace_get_n_devices (self->trace);

  format = cp_ui_format_capture_kind (report ? report->format : NULL);
  events = cp_ui_format_count (report ? report->events : 0);
  slices = cp_ui_format_count (cp_trace_get_n_slices (self->trace));
  lanes = cp_ui_format_count (cp_trace_get_n_lanes (self->trace));
  processes = cp_ui_format_count (cp_trace_get_n_processes (self->trace));
  devices = cp_ui_format_devices (self->trace);
  span = cp_ui_format_duration (cp_trace_get_duration (self->trace));
  if (report != NULL && report->load_seconds > 0)
    load_time = cp_ui_format_duration ((gint64) (report->load_seconds * CP_NS_PER_S));
  else
    load_time = g_strdup (C_("load time", "Unknown"));

  add_item (self, _("Format"), format, report ? report->format : NULL);
  add_item (self, _("Events"), events, NULL);
  add_item (self, _("Slices"), slices, NULL);
  add_item (self, _("Lanes"), lanes, NULL);
  add_item (self, _("Processes"), processes, NULL);
  add_item (self, g_dngettext (GETTEXT_PACKAGE, "Device", "Devices", MAX (n_devices, 1)),
            devices, NULL);
  add_item (self, _("Time Span"), span, NULL);
  add_item (self, _("Load Time"), load_time, NULL);
}

GtkWidget *
cp_summary_bar_new (void)
{
  return g_object_new (CP_TYPE_SUMMARY_BAR, NULL);
}

CpTrace *
cp_summary_bar_get_trace (CpSummaryBar *self)
{
  g_return_val_if_fail (CP_IS_SUMMARY_BAR (self), NULL);

  return self->trace;
}

void
cp_summary_bar_set_trace (CpSummaryBar *self,
                          CpTrace      *trace)
{
  g_return_if_fail (CP_IS_SUMMARY_BAR (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

static void
cp_summary_bar_dispose (GObject *object)
{
  CpSummaryBar *self = CP_SUMMARY_BAR (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_SUMMARY_BAR);
  g_clear_object (&self->trace);

  G_OBJECT_CLASS (cp_summary_bar_parent_class)->dispose (object);
}

static void
cp_summary_bar_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CpSummaryBar *self = CP_SUMMARY_BAR (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_summary_bar_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  CpSummaryBar *self = CP_SUMMARY_BAR (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_summary_bar_set_trace (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_summary_bar_class_init (CpSummaryBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_summary_bar_dispose;
  object_class->get_property = cp_summary_bar_get_property;
  object_class->set_property = cp_summary_bar_set_property;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL,
                         CP_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-summary-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, CpSummaryBar, flow_box);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "summarybar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
cp_summary_bar_init (CpSummaryBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
