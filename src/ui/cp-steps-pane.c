/* cp-steps-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cp-format.h"
#include "cp-steps-pane.h"
#include "cp-style.h"

struct _CpStepsPane
{
  GtkWidget     parent_instance;

  CpTrace      *trace;
  CpViewState  *view;
  CpAnalysis   *analysis;

  GtkStack     *stack;
  GtkLabel     *summary;
  CpStepsChart *chart;
  GtkFlowBox   *legend;
  GtkGrid      *table;
  GtkLabel     *outliers;
  GtkLabel     *hint;
  GtkLabel     *bar_hint;
};

G_DEFINE_FINAL_TYPE (CpStepsPane, cp_steps_pane, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRACE,
  PROP_VIEW_STATE,
  PROP_ANALYSIS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GtkWidget *
cell (const char *text,
      float       xalign,
      const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static char *
swatch_markup (GtkWidget      *widget,
               CpTimeCategory category)
{
  gboolean dark = cp_ui_widget_is_dark (widget);
  guint32 c = cp_steps_chart_category_color (category, dark);

  return g_strdup_printf ("<span foreground=\"#%06x\">■</span>", c >> 8);
}

static void
clear_container (GtkWidget *w)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (w)) != NULL)
    {
      if (GTK_IS_FLOW_BOX (w))
        gtk_flow_box_remove (GTK_FLOW_BOX (w), child);
      else
        gtk_grid_remove (GTK_GRID (w), child);
    }
}

static void
rebuild (CpStepsPane *self)
{
  gboolean ready = self->trace != NULL && self->analysis != NULL &&
                   cp_analysis_get_trace (self->analysis) == self->trace;
  const CpStepStats *steps;
  guint n_steps, row = 1, n_outliers = 0;
  CpTimeSummary st;
  g_autoptr(GString) outliers = g_string_new (NULL);

  cp_steps_chart_set_analysis (self->chart, ready ? self->analysis : NULL);
  clear_container (GTK_WIDGET (self->legend));
  clear_container (GTK_WIDGET (self->table));
  if (!ready)
    {
      gtk_stack_set_visible_child_name (self->stack, self->trace ? "running" : "none");
      return;
    }

  steps = cp_analysis_get_steps (self->analysis, &n_steps);
  cp_analysis_get_step_summary (self->analysis, &st);
  {
    g_autofree char *mean = cp_ui_format_duration (st.mean);
    g_autofree char *min = cp_ui_format_duration (st.min);
    g_autofree char *max = cp_ui_format_duration (st.max);
    g_autofree char *total = cp_ui_format_duration (st.total);
    g_autofree char *text = NULL;

    /* Without steps, shares are of the capture, not of a step time, and
     * there is no step to zoom to. */
    gtk_widget_set_visible (GTK_WIDGET (self->bar_hint),
                            cp_analysis_get_step_source (self->analysis) != CP_STEPS_NONE);
    gtk_label_set_text (self->hint,
                        cp_analysis_get_step_source (self->analysis) == CP_STEPS_NONE ?
                        _("Each instant counts once, for the highest-priority activity running then (device compute first); shares are of the whole capture.") :
                        _("Each instant counts once, for the highest-priority activity running then (device compute first); shares are of the total step time."));
    if (cp_analysis_get_step_source (self->analysis) == CP_STEPS_NONE)
      text = g_strdup_printf (_("The capture has no step markers, so the whole capture (%s) is one window."), total);
    else
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%u step (%s): mean %s, shortest %s, longest %s.",
                                           "%u steps (%s): mean %s, shortest %s, longest %s.", n_steps),
                              n_steps,
                              cp_step_source_get_label (cp_analysis_get_step_source (self->analysis)),
                              mean, min, max);
    {
      gint64 ws, we, compile;

      /* The warm-up before the first step, left out of every figure. */
      if (cp_analysis_get_warmup (self->analysis, &ws, &we, &compile))
        {
          g_autofree char *d = cp_ui_format_duration (we - ws);
          g_autofree char *c = cp_ui_format_duration (compile);
          g_autofree char *w = g_strdup_printf (_("Warm-up before the first step: %s (start-up and compilation, %s compiling), excluded."),
                                                d, c);
          char *joined = g_strconcat (text, " ", w, NULL);

          g_free (text);
          text = joined;
        }
    }
    gtk_label_set_text (self->summary, text);
  }

  for (guint i = 0; i < n_steps; i++)
    if (steps[i].outlier)
      {
        g_autofree char *d = cp_ui_format_duration (steps[i].end - steps[i].start);

        g_string_append_printf (outliers, "%s#%" G_GINT64_FORMAT " (%s)", n_outliers ? ", " : "", steps[i].number, d);
        n_outliers++;
      }
  gtk_widget_set_visible (GTK_WIDGET (self->outliers), n_outliers > 0);
  if (n_outliers > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Outlier step: %s",
                                                            "Outlier steps: %s", n_outliers),
                                               outliers->str);

      gtk_label_set_text (self->outliers, text);
    }

  /* Header of the table. Each category takes two rows, its name across the
   * whole width and its figures below, so that neither is cut short in a
   * narrow side pane. */
  gtk_grid_attach (self->table, cell (_("Category"), 0, "caption-heading"), 0, 0, 2, 1);
  gtk_grid_attach (self->table, cell (n_steps ? _("Mean") : _("Total"), 1, "caption-heading"), 2, 0, 1, 1);
  if (n_steps)
    {
      gtk_grid_attach (self->table, cell (_("Min"), 1, "caption-heading"), 3, 0, 1, 1);
      gtk_grid_attach (self->table, cell (_("Max"), 1, "caption-heading"), 4, 0, 1, 1);
    }
  gtk_grid_attach (self->table, cell (_("Share"), 1, "caption-heading"), 5, 0, 1, 1);

  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary s;
      g_autofree char *swatch = swatch_markup (GTK_WIDGET (self), c);
      g_autofree char *mean = NULL, *min = NULL, *max = NULL, *share = NULL;
      GtkWidget *name, *child;
      g_autofree char *legend_markup = NULL;
      g_autofree char *escaped = NULL;

      cp_analysis_get_time_summary (self->analysis, c, &s);
      if (s.total == 0)
        continue;

      escaped = g_markup_escape_text (cp_time_category_get_label (c), -1);
      legend_markup = g_strdup_printf ("%s %s", swatch, escaped);
      name = cell (NULL, 0, NULL);
      gtk_label_set_markup (GTK_LABEL (name), legend_markup);
      gtk_label_set_wrap (GTK_LABEL (name), TRUE);
      gtk_widget_set_hexpand (name, TRUE);
      gtk_widget_set_margin_top (name, 6);
      mean = cp_ui_format_duration (n_steps ? s.mean : s.total);
      share = cp_ui_format_percent (s.percent);
      gtk_grid_attach (self->table, name, 0, row, 6, 1);
      row++;
      gtk_grid_attach (self->table, cell (mean, 1, "numeric"), 2, row, 1, 1);
      if (n_steps)
        {
          min = cp_ui_format_duration (s.min);
          max = cp_ui_format_duration (s.max);
          gtk_grid_attach (self->table, cell (min, 1, "numeric"), 3, row, 1, 1);
          gtk_grid_attach (self->table, cell (max, 1, "numeric"), 4, row, 1, 1);
        }
      gtk_grid_attach (self->table, cell (share, 1, "numeric"), 5, row, 1, 1);
      row++;

      child = gtk_label_new (NULL);
      gtk_label_set_markup (GTK_LABEL (child), legend_markup);
      gtk_label_set_xalign (GTK_LABEL (child), 0);
      gtk_widget_add_css_class (child, "caption");
      gtk_flow_box_append (self->legend, child);
    }
  gtk_stack_set_visible_child_name (self->stack, "results");
}

static void
dark_changed_cb (CpStepsPane *self)
{
  rebuild (self);
}

static void
cp_steps_pane_dispose (GObject *object)
{
  CpStepsPane *self = (CpStepsPane *) object;
  GtkWidget *child;

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->analysis);
  g_clear_object (&self->view);
  g_clear_object (&self->trace);
  G_OBJECT_CLASS (cp_steps_pane_parent_class)->dispose (object);
}

static void
cp_steps_pane_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CpStepsPane *self = CP_STEPS_PANE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_VIEW_STATE:
      g_value_set_object (value, self->view);
      break;
    case PROP_ANALYSIS:
      g_value_set_object (value, self->analysis);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_steps_pane_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CpStepsPane *self = CP_STEPS_PANE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_steps_pane_set_trace (self, g_value_get_object (value));
      break;
    case PROP_VIEW_STATE:
      cp_steps_pane_set_view_state (self, g_value_get_object (value));
      break;
    case PROP_ANALYSIS:
      cp_steps_pane_set_analysis (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_steps_pane_class_init (CpStepsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_steps_pane_dispose;
  object_class->get_property = cp_steps_pane_get_property;
  object_class->set_property = cp_steps_pane_set_property;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, CP_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL, CP_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ANALYSIS] =
    g_param_spec_object ("analysis", NULL, NULL, CP_TYPE_ANALYSIS,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "stepspane");
}

static void
cp_steps_pane_init (CpStepsPane *self)
{
  GtkWidget *scroller, *box, *running, *spinner, *label, *hint;

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_parent (GTK_WIDGET (self->stack), GTK_WIDGET (self));
  gtk_stack_add_named (self->stack, gtk_box_new (GTK_ORIENTATION_VERTICAL, 0), "none");

  running = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_valign (running, GTK_ALIGN_CENTER);
  spinner = gtk_spinner_new ();
  gtk_spinner_set_spinning (GTK_SPINNER (spinner), TRUE);
  gtk_widget_set_size_request (spinner, 32, 32);
  gtk_box_append (GTK_BOX (running), spinner);
  label = gtk_label_new (_("Analysing the capture…"));
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (running), label);
  gtk_stack_add_named (self->stack, running, "running");

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (box, "steps-content");
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), box);
  gtk_stack_add_named (self->stack, scroller, "results");

  self->summary = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->summary, TRUE);
  gtk_label_set_xalign (self->summary, 0);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->summary));

  self->chart = CP_STEPS_CHART (cp_steps_chart_new ());
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->chart));
  hint = gtk_label_new (_("Click a bar to zoom the timeline to that step."));
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_widget_add_css_class (hint, "caption");
  gtk_label_set_xalign (GTK_LABEL (hint), 0);
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_box_append (GTK_BOX (box), hint);
  self->bar_hint = GTK_LABEL (hint);

  self->outliers = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->outliers, TRUE);
  gtk_label_set_xalign (self->outliers, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->outliers), "warning");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->outliers));

  self->legend = GTK_FLOW_BOX (gtk_flow_box_new ());
  gtk_flow_box_set_selection_mode (self->legend, GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (self->legend, 3);
  gtk_flow_box_set_column_spacing (self->legend, 8);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->legend));

  label = gtk_label_new (_("Time per category"));
  gtk_widget_add_css_class (label, "heading");
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_margin_top (label, 8);
  gtk_box_append (GTK_BOX (box), label);
  self->table = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->table, 8);
  gtk_grid_set_row_spacing (self->table, 4);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->table));
  hint = gtk_label_new (_("Each instant counts once, for the highest-priority activity running then (device compute first); shares are of the total step time."));
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_widget_add_css_class (hint, "caption");
  gtk_label_set_xalign (GTK_LABEL (hint), 0);
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_box_append (GTK_BOX (box), hint);
  self->hint = GTK_LABEL (hint);

  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (dark_changed_cb), self);
  rebuild (self);
}

GtkWidget *
cp_steps_pane_new (void)
{
  return g_object_new (CP_TYPE_STEPS_PANE, NULL);
}

CpTrace *
cp_steps_pane_get_trace (CpStepsPane *self)
{
  g_return_val_if_fail (CP_IS_STEPS_PANE (self), NULL);
  return self->trace;
}

void
cp_steps_pane_set_trace (CpStepsPane *self,
                         CpTrace     *trace)
{
  g_return_if_fail (CP_IS_STEPS_PANE (self));

  if (!g_set_object (&self->trace, trace))
    return;
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

CpViewState *
cp_steps_pane_get_view_state (CpStepsPane *self)
{
  g_return_val_if_fail (CP_IS_STEPS_PANE (self), NULL);
  return self->view;
}

void
cp_steps_pane_set_view_state (CpStepsPane *self,
                              CpViewState *view)
{
  g_return_if_fail (CP_IS_STEPS_PANE (self));

  if (!g_set_object (&self->view, view))
    return;
  cp_steps_chart_set_view_state (self->chart, view);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
}

CpAnalysis *
cp_steps_pane_get_analysis (CpStepsPane *self)
{
  g_return_val_if_fail (CP_IS_STEPS_PANE (self), NULL);
  return self->analysis;
}

void
cp_steps_pane_set_analysis (CpStepsPane *self,
                            CpAnalysis  *analysis)
{
  g_return_if_fail (CP_IS_STEPS_PANE (self));

  if (!g_set_object (&self->analysis, analysis))
    return;
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
}

CpStepsChart *
cp_steps_pane_get_chart (CpStepsPane *self)
{
  g_return_val_if_fail (CP_IS_STEPS_PANE (self), NULL);
  return self->chart;
}
