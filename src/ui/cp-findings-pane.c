/* cp-findings-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "cp-format.h"
#include "cp-findings-pane.h"
#include "cp-pane.h"

struct _CpFindingsPane
{
  CpPane        parent_instance;

  /* Template widgets */
  GtkBox       *content;
  GtkLabel     *verdict_label;
  GtkWidget    *confidence_box;
  GtkLabel     *confidence_label;
  GtkLabel     *window_label;
  GtkBox       *notes_box;
  GtkWidget    *healthy_box;
  GtkLabel     *healthy_label;
  /* One title and list per section, in the one order (cp-rules.h). */
  GtkLabel     *section_titles[CP_N_FINDING_SECTIONS];
  GtkListBox   *sections[CP_N_FINDING_SECTIONS];

  GPtrArray    *rows;          /* AdwExpanderRow, parallel to findings */
  GPtrArray    *findings;      /* CpFinding */
  gint          selected;      /* index into findings, -1 none */
  gint          evidence_pos;  /* -1: the whole finding is shown */
  gboolean      updating;      /* expanding rows from code */
};

G_DEFINE_FINAL_TYPE (CpFindingsPane, cp_findings_pane, CP_TYPE_PANE)

#define TRACE(self)    cp_pane_get_trace (CP_PANE (self))
#define VIEW(self)     cp_pane_get_view_state (CP_PANE (self))
#define ANALYSIS(self) cp_pane_get_analysis (CP_PANE (self))

/* Helpers */

static GtkWidget *
make_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_halign (label, GTK_ALIGN_FILL);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

static GtkWidget *
detail_row (GtkWidget *child)
{
  GtkWidget *row = gtk_list_box_row_new ();

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_add_css_class (child, "finding-detail");
  gtk_widget_set_margin_start (child, 12);
  gtk_widget_set_margin_end (child, 12);
  gtk_widget_set_margin_top (child, 8);
  gtk_widget_set_margin_bottom (child, 8);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), child);
  return row;
}

static char *
stake_text (CpFindingsPane *self,
            CpFinding      *f)
{
  g_autofree char *d = NULL;

  if (cp_finding_get_time_at_stake (f) <= 0)
    return g_strdup (cp_severity_get_label (cp_finding_get_severity (f)));
  if (ANALYSIS (self) != NULL && cp_analysis_has_steps (ANALYSIS (self)))
    {
      d = cp_ui_format_duration (cp_finding_get_time_at_stake_per_step (f));
      /* Translators: severity, then the time at stake, e.g. "High · up to 41.0 ms per step". */
      return g_strdup_printf (_("%s · up to %s per step"), cp_severity_get_label (cp_finding_get_severity (f)), d);
    }
  d = cp_ui_format_duration (cp_finding_get_time_at_stake (f));
  return g_strdup_printf (_("%s · up to %s in the capture"), cp_severity_get_label (cp_finding_get_severity (f)), d);
}

/* Highlights and zoom */

static void
show_finding (CpFindingsPane *self)
{
  CpFinding *f;
  const CpEvidence *ev;
  g_autofree CpHighlight *hl = NULL;
  guint n;
  gint64 t0 = G_MAXINT64, t1 = G_MININT64;

  if (VIEW (self) == NULL)
    return;
  if (self->selected < 0)
    {
      cp_view_state_set_highlights (VIEW (self), CP_HIGHLIGHT_FINDING, NULL, 0);
      return;
    }
  f = g_ptr_array_index (self->findings, self->selected);
  ev = cp_finding_get_evidence (f, &n);
  hl = g_new (CpHighlight, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      hl[i].lane = ev[i].lane;
      hl[i].start = ev[i].start;
      hl[i].end = ev[i].end;
      hl[i].kind = CP_HIGHLIGHT_FINDING;
      t0 = MIN (t0, ev[i].start);
      t1 = MAX (t1, ev[i].end);
    }
  cp_view_state_set_highlights (VIEW (self), CP_HIGHLIGHT_FINDING, hl, n);
  if (n > 0)
    cp_view_state_fit_range (VIEW (self), t0, MAX (t1, t0 + 1));
}

static void
update_evidence_label (CpFindingsPane *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkLabel *label = g_object_get_data (g_ptr_array_index (self->rows, i), "evidence-label");
      CpFinding *f = g_ptr_array_index (self->findings, i);
      guint64 total = cp_finding_get_evidence_total (f);
      guint n;
      g_autofree char *text = NULL;

      cp_finding_get_evidence (f, &n);
      if ((gint) i == self->selected && self->evidence_pos >= 0)
        {
          const CpEvidence *ev = cp_finding_get_evidence (f, NULL) + self->evidence_pos;
          g_autofree char *d = cp_ui_format_duration (ev->end - ev->start);
          CpLane *lane = TRACE (self) && ev->lane < cp_trace_get_n_lanes (TRACE (self)) ?
                         cp_trace_get_lane (TRACE (self), ev->lane) : NULL;

          if (ev->count > 1)
            /* Translators: "Evidence 3 of 12: 1.20 ms on stream 7, 118 slices". */
            text = g_strdup_printf (_("Evidence %d of %u: %s on %s, %u slices"), self->evidence_pos + 1, n, d,
                                    lane ? cp_lane_get_name (lane) : "?", ev->count);
          else
            /* Translators: "Evidence 3 of 12: 1.20 ms on stream 7". */
            text = g_strdup_printf (_("Evidence %d of %u: %s on %s"), self->evidence_pos + 1, n, d,
                                    lane ? cp_lane_get_name (lane) : "?");
        }
      else if (total > n)
        text = g_strdup_printf (_("Evidence: the %u longest of %" PRIu64 " ranges (F8 steps through them)"),
                                n, total);
      else if (cp_finding_get_evidence_found (f) > n)
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "Evidence: %u range, one per step and lane, covering %" PRIu64 " slices (F8 steps through it)",
                                             "Evidence: %u ranges, one per step and lane, covering %" PRIu64 " slices (F8 steps through them)", n),
                                n, cp_finding_get_evidence_found (f));
      else
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "Evidence: %u range (F8 steps through it)",
                                             "Evidence: %u ranges (F8 steps through them)", n), n);
      gtk_label_set_text (label, text);
    }
}

static void
select_index (CpFindingsPane *self,
              gint            index)
{
  if (index == self->selected)
    return;
  self->selected = index;
  self->evidence_pos = -1;
  self->updating = TRUE;
  for (guint i = 0; i < self->rows->len; i++)
    adw_expander_row_set_expanded (g_ptr_array_index (self->rows, i), (gint) i == index);
  self->updating = FALSE;
  show_finding (self);
  update_evidence_label (self);
}

static void
show_evidence (CpFindingsPane *self)
{
  CpFinding *f = g_ptr_array_index (self->findings, self->selected);
  const CpEvidence *ev = cp_finding_get_evidence (f, NULL) + self->evidence_pos;
  gint64 span = MAX (ev->end - ev->start, 1);

  if (VIEW (self) != NULL)
    {
      /* Some context around the range, and the slice under it selected so
       * that the Details pane shows it. */
      cp_view_state_fit_range (VIEW (self), ev->start - span, ev->end + span);
      if (TRACE (self) != NULL && ev->lane < cp_trace_get_n_lanes (TRACE (self)))
        {
          CpLane *lane = cp_trace_get_lane (TRACE (self), ev->lane);
          gint i = cp_lane_slice_at (lane, ev->start + (ev->end - ev->start) / 2, -1);

          if (i >= 0)
            cp_view_state_set_selected (VIEW (self), (CpSliceRef) { ev->lane, (guint) i });
        }
    }
  update_evidence_label (self);
}

gint
cp_findings_pane_step_evidence (CpFindingsPane *self,
                                gint            direction)
{
  guint n;

  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), -1);

  if (self->findings->len == 0)
    return -1;
  if (self->selected < 0)
    select_index (self, 0);
  cp_finding_get_evidence (g_ptr_array_index (self->findings, self->selected), &n);
  if (n == 0)
    return -1;
  if (self->evidence_pos < 0)
    self->evidence_pos = direction >= 0 ? 0 : (gint) n - 1;
  else
    self->evidence_pos = (self->evidence_pos + (direction >= 0 ? 1 : (gint) n - 1)) % (gint) n;
  show_evidence (self);
  return self->evidence_pos;
}

/* Rows */

static void
row_expanded_cb (AdwExpanderRow *row,
                 GParamSpec     *pspec,
                 CpFindingsPane *self)
{
  guint index;

  if (self->updating || !g_ptr_array_find (self->rows, row, &index))
    return;
  if (adw_expander_row_get_expanded (row))
    select_index (self, index);
  else if ((gint) index == self->selected)
    select_index (self, -1);
}

static void
step_clicked_cb (GtkButton      *button,
                 CpFindingsPane *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (button), "finding-row");
  gint direction = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "direction"));
  guint index;

  if (!g_ptr_array_find (self->rows, row, &index))
    return;
  if ((gint) index != self->selected)
    select_index (self, index);
  cp_findings_pane_step_evidence (self, direction);
}

/* Pins the evidence shown (or the finding's first) as a note: the window's
 * "win.pin-evidence" action. */
static void
pin_clicked_cb (GtkButton      *button,
                CpFindingsPane *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (button), "finding-row");
  CpFinding *f;
  guint index, n;

  if (!g_ptr_array_find (self->rows, row, &index))
    return;
  f = g_ptr_array_index (self->findings, index);
  cp_finding_get_evidence (f, &n);
  if (n == 0)
    return;
  gtk_widget_activate_action (GTK_WIDGET (button), "win.pin-evidence", "(su)", cp_finding_get_rule_id (f),
                              (gint) index == self->selected && self->evidence_pos >= 0 ? (guint) self->evidence_pos : 0);
}

static GtkWidget *
figures_box (CpFinding *f)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  const CpFigure *figs;
  guint n;

  figs = cp_finding_get_figures (f, &n);
  gtk_box_append (GTK_BOX (box), make_label (_("Measured"), "heading"));
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      GtkWidget *name = make_label (figs[i].label, NULL);
      g_autofree char *v = cp_figure_format (&figs[i], figs[i].value);
      g_autofree char *thr = cp_figure_format_thresholds (&figs[i]);
      GtkWidget *value = gtk_label_new (v);

      gtk_widget_set_hexpand (name, TRUE);
      gtk_widget_set_valign (value, GTK_ALIGN_START);
      gtk_widget_add_css_class (value, "numeric");
      if (i == 0)
        gtk_widget_add_css_class (value, "finding-metric");
      gtk_box_append (GTK_BOX (line), name);
      gtk_box_append (GTK_BOX (line), value);
      gtk_box_append (GTK_BOX (box), line);
      if (thr != NULL)
        {
          GtkWidget *t = make_label (thr, "dim-label");

          gtk_widget_add_css_class (t, "caption");
          gtk_box_append (GTK_BOX (box), t);
        }
    }
  return box;
}

static void
append_fixes (GtkWidget          *box,
              CpFramework         fw,
              const char * const *fixes)
{
  GtkWidget *title = make_label (cp_framework_get_label (fw), "caption-heading");

  gtk_widget_set_margin_top (title, 4);
  gtk_box_append (GTK_BOX (box), title);
  for (guint i = 0; fixes[i] != NULL; i++)
    {
      g_autofree char *bullet = g_strdup_printf ("•  %s", fixes[i]);

      gtk_box_append (GTK_BOX (box), make_label (bullet, NULL));
    }
}

/* The capture's framework's fixes; the others folded in "Other
 * Frameworks" (all alike when the framework is not recognised). */
static GtkWidget *
fixes_box (CpAnalysis *a,
           CpFinding  *f)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *others = box;
  CpFramework order[CP_N_FRAMEWORKS];
  guint n_lead = cp_analysis_get_fix_order (a, order);

  gtk_box_append (GTK_BOX (box), make_label (_("What to try"), "heading"));
  for (guint k = 0; k < CP_N_FRAMEWORKS; k++)
    {
      const char * const *fixes = cp_finding_get_fixes (f, order[k]);

      if (fixes[0] == NULL)
        continue;
      if (k == n_lead && n_lead > 0)
        {
          GtkWidget *expander = gtk_expander_new (_("Other Frameworks"));

          others = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
          gtk_widget_set_margin_top (expander, 6);
          gtk_expander_set_child (GTK_EXPANDER (expander), others);
          gtk_box_append (GTK_BOX (box), expander);
        }
      append_fixes (k < n_lead ? box : others, order[k], fixes);
    }
  return box;
}

static GtkWidget *
evidence_box (CpFindingsPane *self,
              GtkWidget      *row)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = make_label ("", NULL);
  GtkWidget *prev = gtk_button_new_from_icon_name ("go-previous-symbolic");
  GtkWidget *next = gtk_button_new_from_icon_name ("go-next-symbolic");

  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_valign (prev, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (next, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (prev, _("Previous Evidence (Shift+F8)"));
  gtk_widget_set_tooltip_text (next, _("Next Evidence (F8)"));
  gtk_widget_add_css_class (prev, "flat");
  gtk_widget_add_css_class (next, "flat");
  g_object_set_data (G_OBJECT (prev), "finding-row", row);
  g_object_set_data (G_OBJECT (next), "finding-row", row);
  g_object_set_data (G_OBJECT (prev), "direction", GINT_TO_POINTER (-1));
  g_object_set_data (G_OBJECT (next), "direction", GINT_TO_POINTER (1));
  g_signal_connect (prev, "clicked", G_CALLBACK (step_clicked_cb), self);
  g_signal_connect (next, "clicked", G_CALLBACK (step_clicked_cb), self);
  g_object_set_data (G_OBJECT (row), "evidence-label", label);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), prev);
  gtk_box_append (GTK_BOX (box), next);
  {
    GtkWidget *pin = gtk_button_new_from_icon_name ("cp-pin-symbolic");

    gtk_widget_set_valign (pin, GTK_ALIGN_CENTER);
    gtk_widget_add_css_class (pin, "flat");
    gtk_widget_set_tooltip_text (pin, _("Pin This Evidence as a Note"));
    gtk_accessible_update_property (GTK_ACCESSIBLE (pin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    _("Pin This Evidence as a Note"), -1);
    g_object_set_data (G_OBJECT (pin), "finding-row", row);
    g_signal_connect (pin, "clicked", G_CALLBACK (pin_clicked_cb), self);
    gtk_box_append (GTK_BOX (box), pin);
  }
  return box;
}

static GtkWidget *
make_row (CpFindingsPane *self,
          CpFinding      *f)
{
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name (cp_severity_get_icon_name (cp_finding_get_severity (f)));
  g_autofree char *subtitle = stake_text (self, f);
  g_autofree char *source = g_strdup_printf (_("Rule %s. Source: %s"), cp_finding_get_rule_id (f),
                                             cp_finding_get_source (f));
  GtkWidget *summary = make_label (cp_finding_get_summary (f), NULL);
  GtkWidget *src = make_label (source, "dim-label");

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), cp_finding_get_title (f));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
  gtk_widget_add_css_class (icon, cp_ui_severity_css_class (cp_finding_get_severity (f)));
  gtk_widget_set_tooltip_text (icon, cp_severity_get_label (cp_finding_get_severity (f)));
  adw_expander_row_add_prefix (ADW_EXPANDER_ROW (row), icon);
  gtk_widget_add_css_class (row, "finding-row");
  gtk_widget_add_css_class (row, cp_severity_to_string (cp_finding_get_severity (f)));

  gtk_label_set_selectable (GTK_LABEL (summary), TRUE);
  gtk_widget_add_css_class (src, "caption");
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (summary));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (figures_box (f)));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (evidence_box (self, row)));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (fixes_box (ANALYSIS (self), f)));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), detail_row (src));
  g_signal_connect (row, "notify::expanded", G_CALLBACK (row_expanded_cb), self);
  return row;
}

static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static char *
window_text (CpAnalysis *a)
{
  CpTimeSummary st;
  guint n;
  g_autofree char *mean = NULL, *total = NULL;
  const CpDeviceStats *devs;
  guint n_devs;
  double util = -1;
  gboolean tpu = cp_analysis_devices_are_tpu (a);

  cp_analysis_get_step_summary (a, &st);
  cp_analysis_get_steps (a, &n);
  mean = cp_ui_format_duration (st.mean);
  total = cp_ui_format_duration (st.total);
  devs = cp_analysis_get_devices (a, &n_devs);
  for (guint d = 0; d < n_devs; d++)
    if (devs[d].n_kernels > 0)
      util = util < 0 ? devs[d].utilization : MIN (util, devs[d].utilization);

  if (cp_analysis_get_step_source (a) == CP_STEPS_DEVICE_SPAN)
    {
      if (util >= 0)
        return g_strdup_printf (_("No steps that hold the work: the span where the devices work (%s) is one window. "
                                  "%s busy %.0f%% of it."),
                                total, cp_analysis_get_device_word (a), 100 * util);
      return g_strdup_printf (_("No steps that hold the work: the span where the devices work (%s) is one window."), total);
    }
  if (!cp_analysis_has_steps (a))
    {
      if (util >= 0 && tpu)
        return g_strdup_printf (_("No steps: the whole capture (%s) is one window. TPU busy %.0f%% of it."),
                                total, 100 * util);
      if (util >= 0)
        return g_strdup_printf (_("No steps: the whole capture (%s) is one window. GPU busy %.0f%% of it."),
                                total, 100 * util);
      return g_strdup_printf (_("No steps: the whole capture (%s) is one window."), total);
    }
  if (util >= 0 && tpu)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%u step, %s each on average. TPU busy %.0f%% of the step time.",
                                         "%u steps, %s each on average. TPU busy %.0f%% of the step time.", n),
                            n, mean, 100 * util);
  if (util >= 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%u step, %s each on average. GPU busy %.0f%% of the step time.",
                                         "%u steps, %s each on average. GPU busy %.0f%% of the step time.", n),
                            n, mean, 100 * util);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step, %s each on average.",
                                       "%u steps, %s each on average.", n), n, mean);
}

static void
rebuild (CpFindingsPane *self)
{
  GListModel *model;
  guint n, n_problems = 0;
  guint counts[CP_N_FINDING_SECTIONS] = { 0, };
  GtkWidget *child;

  self->selected = -1;
  self->evidence_pos = -1;
  g_ptr_array_set_size (self->rows, 0);
  g_ptr_array_set_size (self->findings, 0);
  for (guint k = 0; k < CP_N_FINDING_SECTIONS; k++)
    clear_list (self->sections[k]);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->notes_box))) != NULL)
    gtk_box_remove (self->notes_box, child);

  if (!cp_pane_is_ready (CP_PANE (self)))
    return;

  {
    g_autofree char *text = window_text (ANALYSIS (self));
    const char * const *notes = cp_analysis_get_notes (ANALYSIS (self));

    g_autofree char *banner = cp_analysis_dup_confidence_banner (ANALYSIS (self));

    /* The answer first, and how far it can be trusted. */
    gtk_label_set_text (self->verdict_label, cp_analysis_get_verdict (ANALYSIS (self))->text);
    gtk_widget_set_visible (self->confidence_box, banner != NULL);
    gtk_label_set_text (self->confidence_label, banner != NULL ? banner : "");
    if (cp_analysis_get_confidence (ANALYSIS (self), NULL, NULL) == CP_CONFIDENCE_LOW)
      gtk_widget_add_css_class (self->confidence_box, "low");
    else
      gtk_widget_remove_css_class (self->confidence_box, "low");
    gtk_label_set_text (self->window_label, text);
    for (guint i = 0; notes[i] != NULL; i++)
      {
        GtkWidget *note = make_label (notes[i], "dim-label");

        gtk_widget_add_css_class (note, "caption");
        gtk_box_append (self->notes_box, note);
      }
  }

  /* The model is in the one order: each finding goes under its section. */
  model = cp_analysis_get_findings (ANALYSIS (self));
  n = g_list_model_get_n_items (model);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (model, i);
      CpFindingSection section = cp_finding_get_section (f);
      GtkWidget *row = make_row (self, f);

      g_ptr_array_add (self->rows, row);
      g_ptr_array_add (self->findings, g_object_ref (f));
      gtk_list_box_append (self->sections[section], row);
      counts[section]++;
      if (section != CP_FINDING_SECTION_INFO)
        n_problems++;
    }

  /* A capture that cannot be judged is not called healthy: the banner
   * says why. */
  gtk_widget_set_visible (self->healthy_box, n_problems == 0 &&
                          cp_analysis_get_confidence (ANALYSIS (self), NULL, NULL) != CP_CONFIDENCE_LOW);
  if (n_problems == 0)
    gtk_label_set_text (self->healthy_label,
                        counts[CP_FINDING_SECTION_INFO]
                          ? _("No rule crosses its threshold in this capture. The notes below are for information.")
                          : _("No rule crosses its threshold in this capture."));
  for (guint k = 0; k < CP_N_FINDING_SECTIONS; k++)
    {
      gtk_label_set_text (self->section_titles[k], cp_analysis_get_section_title (ANALYSIS (self), k));
      gtk_widget_set_visible (GTK_WIDGET (self->section_titles[k]), counts[k] > 0);
      gtk_widget_set_visible (GTK_WIDGET (self->sections[k]), counts[k] > 0);
    }
  update_evidence_label (self);
}

static void
cp_findings_pane_changed (CpPane *pane)
{
  rebuild (CP_FINDINGS_PANE (pane));
}

/* Actions */

static void
reveal_self (CpFindingsPane *self)
{
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_VIEW_STACK);

  if (stack != NULL)
    {
      for (GtkWidget *w = GTK_WIDGET (self); w != NULL && w != stack; w = gtk_widget_get_parent (w))
        if (gtk_widget_get_parent (w) == stack)
          {
            adw_view_stack_set_visible_child (ADW_VIEW_STACK (stack), w);
            break;
          }
    }
}

static void
step_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  CpFindingsPane *self = CP_FINDINGS_PANE (widget);

  if (self->findings->len == 0)
    return;
  reveal_self (self);
  cp_findings_pane_step_evidence (self, g_str_equal (action_name, "findings.next-evidence") ? 1 : -1);
}

/* GObject */

static void
cp_findings_pane_dispose (GObject *object)
{
  CpFindingsPane *self = (CpFindingsPane *) object;

  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_FINDINGS_PANE);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->findings, g_ptr_array_unref);

  G_OBJECT_CLASS (cp_findings_pane_parent_class)->dispose (object);
}

static void
cp_findings_pane_class_init (CpFindingsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpPaneClass *pane_class = CP_PANE_CLASS (klass);

  object_class->dispose = cp_findings_pane_dispose;
  pane_class->trace_changed = cp_findings_pane_changed;
  pane_class->analysis_changed = cp_findings_pane_changed;
  cp_pane_class_set_waits_for_analysis (pane_class, TRUE);

  gtk_widget_class_install_action (widget_class, "findings.next-evidence", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "findings.previous-evidence", NULL, step_action);

  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "findings");
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, content);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, verdict_label);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, confidence_box);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, confidence_label);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, window_label);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, notes_box);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, healthy_box);
  gtk_widget_class_bind_template_child (widget_class, CpFindingsPane, healthy_label);
}

static GtkWidget *
section_title (const char *text)
{
  GtkWidget *label = make_label (text, "heading");

  gtk_widget_set_margin_top (label, 12);
  return label;
}

static void
cp_findings_pane_init (CpFindingsPane *self)
{
  self->rows = g_ptr_array_new ();
  self->findings = g_ptr_array_new_with_free_func (g_object_unref);
  self->selected = -1;
  self->evidence_pos = -1;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* A title and a list per section, in the one order (cp-rules.h). */
  for (guint k = 0; k < CP_N_FINDING_SECTIONS; k++)
    {
      self->section_titles[k] = GTK_LABEL (section_title (""));
      gtk_box_append (self->content, GTK_WIDGET (self->section_titles[k]));
      self->sections[k] = GTK_LIST_BOX (gtk_list_box_new ());
      gtk_list_box_set_selection_mode (self->sections[k], GTK_SELECTION_NONE);
      gtk_widget_add_css_class (GTK_WIDGET (self->sections[k]), "boxed-list");
      gtk_box_append (self->content, GTK_WIDGET (self->sections[k]));
    }

  /* F8 / Shift+F8 are the window's (win.next-evidence), so that they work
   * wherever the focus is. */
  rebuild (self);
}

GtkWidget *
cp_findings_pane_new (void)
{
  return g_object_new (CP_TYPE_FINDINGS_PANE, NULL);
}

gboolean
cp_findings_pane_select (CpFindingsPane *self,
                         const char     *rule_id)
{
  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), FALSE);

  for (guint i = 0; i < self->findings->len; i++)
    if (g_strcmp0 (cp_finding_get_rule_id (g_ptr_array_index (self->findings, i)), rule_id) == 0)
      {
        select_index (self, i);
        return TRUE;
      }
  return FALSE;
}

CpFinding *
cp_findings_pane_get_selected (CpFindingsPane *self)
{
  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), NULL);
  return self->selected >= 0 ? g_ptr_array_index (self->findings, self->selected) : NULL;
}

guint
cp_findings_pane_get_n_findings (CpFindingsPane *self)
{
  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), 0);
  return self->findings->len;
}

guint
cp_findings_pane_get_n_problems (CpFindingsPane *self)
{
  guint n = 0;

  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), 0);

  for (guint i = 0; i < self->findings->len; i++)
    if (cp_finding_get_severity (g_ptr_array_index (self->findings, i)) > CP_SEVERITY_INFO)
      n++;
  return n;
}

const char *
cp_findings_pane_get_verdict_text (CpFindingsPane *self)
{
  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), NULL);
  return gtk_label_get_text (self->verdict_label);
}

const char *
cp_findings_pane_get_confidence_text (CpFindingsPane *self)
{
  g_return_val_if_fail (CP_IS_FINDINGS_PANE (self), NULL);
  return gtk_widget_get_visible (self->confidence_box) ? gtk_label_get_text (self->confidence_label) : NULL;
}
