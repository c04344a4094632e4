/* cp-steps-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cp-format.h"
#include "cp-pane.h"
#include "cp-steps-pane.h"
#include "cp-style.h"

struct _CpStepsPane
{
  CpPane        parent_instance;

  /* Template widgets */
  GtkLabel     *summary;
  CpStepsChart *chart;
  GtkFlowBox   *legend;
  GtkGrid      *table;
  GtkLabel     *outliers;
  GtkLabel     *hint;
  GtkLabel     *bar_hint;
};

G_DEFINE_FINAL_TYPE (CpStepsPane, cp_steps_pane, CP_TYPE_PANE)

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
  CpAnalysis *analysis = cp_pane_get_analysis (CP_PANE (self));
  gboolean ready = cp_pane_is_ready (CP_PANE (self));
  const CpStepStats *steps;
  guint n_steps, row = 1, n_outliers = 0;
  CpTimeSummary st;
  g_autoptr(GString) outliers = g_string_new (NULL);

  cp_steps_chart_set_analysis (self->chart, ready ? analysis : NULL);
  clear_container (GTK_WIDGET (self->legend));
  clear_container (GTK_WIDGET (self->table));
  if (!ready)
    return;

  steps = cp_analysis_get_steps (analysis, &n_steps);
  cp_analysis_get_step_summary (analysis, &st);
  {
    g_autofree char *mean = cp_ui_format_duration (st.mean);
    g_autofree char *min = cp_ui_format_duration (st.min);
    g_autofree char *max = cp_ui_format_duration (st.max);
    g_autofree char *total = cp_ui_format_duration (st.total);
    g_autofree char *text = NULL;

    /* Without steps, shares are of the capture, not of a step time, and
     * there is no step to zoom to. */
    gtk_widget_set_visible (GTK_WIDGET (self->bar_hint),
                            cp_analysis_has_steps (analysis));
    gtk_label_set_text (self->hint,
                        !cp_analysis_has_steps (analysis) ?
                        _("Each instant counts once, for the highest-priority activity running then (device compute first); shares are of the whole capture.") :
                        _("Each instant counts once, for the highest-priority activity running then (device compute first); shares are of the total step time."));
    CpWindowInfo info;

    cp_analysis_get_window_info (analysis, &info);
    if (info.device_span)
      text = g_strdup_printf (_("The steps found hold %.0f%% of the device work, so the span where the devices work (%s) is one window."),
                              100.0 * info.steps_device_share, total);
    else if (!cp_analysis_has_steps (analysis))
      text = g_strdup_printf (_("The capture has no step markers, so the whole capture (%s) is one window."), total);
    else
      {
        g_autofree char *median = cp_ui_format_duration (info.step_median);

        /* Translators: "5 steps (ProfilerStep#N): mean 58 ms, median 57 ms, shortest 54 ms, longest 69 ms." */
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "%u step (%s): mean %s, median %s, shortest %s, longest %s.",
                                             "%u steps (%s): mean %s, median %s, shortest %s, longest %s.", n_steps),
                                n_steps,
                                cp_step_source_get_label (cp_analysis_get_step_source (analysis)),
                                mean, median, min, max);
      }
    if (info.n_warmup > 0)
      {
        g_autofree char *d = cp_ui_format_duration (info.warmup_time);
        /* Translators: after the steps' figures: "1 warm-up step (4.60 s) left out." */
        g_autofree char *w = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u warm-up step (%s) left out.",
                                                           "%u warm-up steps (%s) left out.", info.n_warmup),
                                              info.n_warmup, d);
        char *joined = g_strconcat (text, " ", w, NULL);

        g_free (text);
        text = joined;
      }
    {
      gint64 ws, we, compile;

      /* The warm-up before the first step, left out of every figure
       * (said above instead when it holds steps left out). */
      if (info.n_warmup == 0 && cp_analysis_get_warmup (analysis, &ws, &we, &compile))
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

      cp_analysis_get_time_summary (analysis, c, &s);
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
}

static void
dark_changed_cb (CpStepsPane *self)
{
  rebuild (self);
}

static void
cp_steps_pane_changed (CpPane *pane)
{
  rebuild (CP_STEPS_PANE (pane));
}

static void
cp_steps_pane_view_state_changed (CpPane      *pane,
                                  CpViewState *old)
{
  CpStepsPane *self = CP_STEPS_PANE (pane);

  cp_steps_chart_set_view_state (self->chart, cp_pane_get_view_state (pane));
}

static void
cp_steps_pane_dispose (GObject *object)
{
  CpStepsPane *self = (CpStepsPane *) object;

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_STEPS_PANE);
  G_OBJECT_CLASS (cp_steps_pane_parent_class)->dispose (object);
}

static void
cp_steps_pane_class_init (CpStepsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpPaneClass *pane_class = CP_PANE_CLASS (klass);

  object_class->dispose = cp_steps_pane_dispose;
  pane_class->trace_changed = cp_steps_pane_changed;
  pane_class->analysis_changed = cp_steps_pane_changed;
  pane_class->view_state_changed = cp_steps_pane_view_state_changed;
  cp_pane_class_set_waits_for_analysis (pane_class, TRUE);

  g_type_ensure (CP_TYPE_STEPS_CHART);
  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "steps");
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, summary);
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, chart);
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, legend);
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, table);
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, outliers);
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, hint);
  gtk_widget_class_bind_template_child (widget_class, CpStepsPane, bar_hint);
}

static void
cp_steps_pane_init (CpStepsPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (dark_changed_cb), self);
  rebuild (self);
}

GtkWidget *
cp_steps_pane_new (void)
{
  return g_object_new (CP_TYPE_STEPS_PANE, NULL);
}

CpStepsChart *
cp_steps_pane_get_chart (CpStepsPane *self)
{
  g_return_val_if_fail (CP_IS_STEPS_PANE (self), NULL);
  return self->chart;
}
