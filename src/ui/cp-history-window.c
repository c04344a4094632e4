/* cp-history-window.c: the History window, and recording opened captures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "analysis/cp-rules.h"
#include "history/cp-history.h"
#include "render/cp-palette.h"

#include "cp-cancel.h"
#include "cp-format.h"
#include "cp-history-window.h"
#include "cp-style.h"
#include "cp-window-private.h"

/* The metrics drawn, before the rules' time at stake. */
static const struct {
  const char *metric;
  const char *title;
} fixed_metrics[] = {
  { "step_time.mean", N_("Step time (mean)") },
  { "gpu.utilization", N_("Device utilisation (least busy device)") },
  { "input.share", N_("Data loading, share of step time") },
};

typedef struct
{
  char   *metric;
  char   *title;
  double *values;          /* per run, in the runs' order; NAN: none */
} Series;

static void
series_free (Series *s)
{
  g_free (s->metric);
  g_free (s->title);
  g_free (s->values);
  g_free (s);
}

/* What the worker read. */
typedef struct
{
  GPtrArray *runs;         /* CpHistoryRun, oldest first */
  GPtrArray *metrics;      /* Series */
  GError    *error;        /* a history that could not be read (not missing) */
} Read;

static void
read_free (Read *r)
{
  g_clear_pointer (&r->runs, g_ptr_array_unref);
  g_clear_pointer (&r->metrics, g_ptr_array_unref);
  g_clear_error (&r->error);
  g_free (r);
}

struct _CpHistoryWindow
{
  AdwWindow        parent_instance;

  AdwToastOverlay *toast_overlay;
  GtkStack        *stack;
  AdwStatusPage   *empty_page;
  AdwStatusPage   *error_page;
  GtkDropDown     *group_dropdown;
  GtkSpinButton   *threshold_spin;
  GtkMenuButton   *metrics_button;
  GtkBox          *metrics_box;      /* the check buttons */
  GtkBox          *charts_box;
  GtkLabel        *legend_label;
  GtkLabel        *status_label;

  GCancellable    *cancellable;
  Read            *read;             /* NULL until read */
  GHashTable      *hidden;           /* metric names the user turned off */
  char            *group;            /* label key, or NULL */
  gint64           chosen;           /* first run of a Shift-click pair */
  gboolean         loaded;
  gboolean         filling_groups;
};

G_DEFINE_FINAL_TYPE (CpHistoryWindow, cp_history_window, ADW_TYPE_WINDOW)

/* Reading, in a worker thread ------------------------------------------ */

static gboolean
read_metric (CpHistory   *history,
             Read        *r,
             const char  *metric,
             const char  *title,
             gboolean     skip_zero,
             GError     **error)
{
  g_autoptr(GArray) points = cp_history_trend (history, metric, NULL, error);
  Series *s;
  gboolean any = FALSE;

  if (points == NULL)
    return FALSE;
  s = g_new0 (Series, 1);
  s->metric = g_strdup (metric);
  s->title = g_strdup (title);
  s->values = g_new (double, MAX (r->runs->len, 1));
  for (guint i = 0; i < r->runs->len; i++)
    s->values[i] = NAN;
  /* The trend and the list share their order (time, then id). */
  for (guint i = 0, j = 0; i < points->len && j < r->runs->len; i++)
    {
      const CpHistoryPoint *p = &g_array_index (points, CpHistoryPoint, i);

      while (j < r->runs->len && ((CpHistoryRun *) r->runs->pdata[j])->id != p->id)
        j++;
      if (j < r->runs->len)
        {
          s->values[j] = p->value;
          any |= !isnan (p->value) && p->value != 0;
        }
    }
  if (skip_zero && !any)
    series_free (s);
  else
    g_ptr_array_add (r->metrics, s);
  return TRUE;
}

static void
read_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  g_autofree char *location = cp_history_default_location ();
  g_autoptr(CpHistory) history = NULL;
  g_autoptr(GError) error = NULL;
  Read *r = g_new0 (Read, 1);
  guint n_rules;
  const CpRule *rules = cp_rules_get_all (&n_rules);

  r->metrics = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  history = cp_history_open (location, FALSE, &error);
  if (history == NULL)
    {
      if (!g_error_matches (error, CP_HISTORY_ERROR, CP_HISTORY_ERROR_MISSING))
        r->error = g_steal_pointer (&error);
      r->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_history_run_free);
      g_task_return_pointer (task, r, (GDestroyNotify) read_free);
      return;
    }
  r->runs = cp_history_list (history, NULL, &error);
  if (r->runs == NULL)
    goto failed;
  for (guint i = 0; i < G_N_ELEMENTS (fixed_metrics) && r->runs->len > 0; i++)
    if (!read_metric (history, r, fixed_metrics[i].metric, _(fixed_metrics[i].title), FALSE, &error))
      goto failed;
  for (guint i = 0; i < n_rules && r->runs->len > 0; i++)
    {
      g_autofree char *metric = g_strdup_printf ("finding.%s.time_at_stake", rules[i].id);
      /* Translators: a chart's title; %s is a rule's title. */
      g_autofree char *title = g_strdup_printf (_("%s: time at stake"), _(rules[i].title));

      if (!read_metric (history, r, metric, title, TRUE, &error))
        goto failed;
    }
  g_task_return_pointer (task, r, (GDestroyNotify) read_free);
  return;

failed:
  g_clear_pointer (&r->runs, g_ptr_array_unref);
  r->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cp_history_run_free);
  g_ptr_array_set_size (r->metrics, 0);
  r->error = g_steal_pointer (&error);
  g_task_return_pointer (task, r, (GDestroyNotify) read_free);
}

/* Showing --------------------------------------------------------------- */

static char *
format_value (const char *metric,
              double      value)
{
  const char *unit = cp_history_metric_unit (metric);

  if (isnan (value))
    return g_strdup (_("none"));
  if (g_strcmp0 (unit, "ns") == 0)
    return cp_ui_format_duration ((gint64) llround (value));
  if (g_strcmp0 (unit, "%") == 0)
    return cp_ui_format_percent (value);
  return g_strdup_printf ("%.0f", value);
}

static const char *
run_group (CpHistoryWindow *self,
           CpHistoryRun    *run)
{
  const char *value;

  if (self->group == NULL)
    return "";
  value = cp_history_run_get_label (run, self->group);
  return value != NULL ? value : "";
}

static char *
run_words (CpHistoryRun *run,
           guint         index,
           guint         n_runs,
           const char   *metric,
           const CpHistoryPoint *p)
{
  g_autofree char *base = g_path_get_basename (run->path ? run->path : "?");
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (run->time_ns / G_GINT64_CONSTANT (1000000000));
  g_autofree char *date = when ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
  g_autofree char *value = format_value (metric, p->value);
  g_autoptr(GString) text = g_string_new (NULL);

  /* Translators: a run in the History window's tooltip: its file name,
   * its place among the runs shown and its date. */
  g_string_append_printf (text, _("%s\nRun %u of %u, %s"), base, index + 1, n_runs, date);
  g_string_append_c (text, '\n');
  g_string_append (text, value);
  if (p->regression && !isnan (p->baseline) && p->baseline != 0)
    {
      g_autofree char *baseline = format_value (metric, p->baseline);

      g_string_append_c (text, '\n');
      /* Translators: %s is the median of the earlier runs' values. */
      g_string_append_printf (text, _("Regression: worse than the median of the runs before (%s)"), baseline);
    }
  for (guint i = 0; run->labels != NULL && i < run->labels->len; i++)
    {
      const CpHistoryLabel *l = &g_array_index (run->labels, CpHistoryLabel, i);

      g_string_append_printf (text, "%s%s=%s", i == 0 ? "\n" : "  ", l->key, l->value);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void point_activated_cb (CpHistoryWindow *self,
                                gint64           id,
                                gboolean         shift,
                                CpHistoryChart  *chart);

/* Groups, regressions and charts from what was read. */
static void
rebuild_charts (CpHistoryWindow *self)
{
  Read *r = self->read;
  double threshold = gtk_spin_button_get_value (self->threshold_spin) / 100;
  g_autoptr(GHashTable) group_of = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  g_autofree guint *series = NULL;
  g_autoptr(GString) legend = g_string_new (NULL);
  gboolean dark = cp_ui_widget_is_dark (GTK_WIDGET (self));
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->charts_box))) != NULL)
    gtk_box_remove (self->charts_box, child);
  if (r == NULL || r->runs->len == 0)
    return;

  series = g_new (guint, r->runs->len);
  for (guint i = 0; i < r->runs->len; i++)
    {
      const char *g = run_group (self, r->runs->pdata[i]);
      gpointer found;

      if (!g_hash_table_lookup_extended (group_of, g, NULL, &found))
        {
          found = GUINT_TO_POINTER (groups->len);
          g_hash_table_insert (group_of, (gpointer) g, found);
          g_ptr_array_add (groups, (gpointer) g);
        }
      series[i] = GPOINTER_TO_UINT (found);
    }
  if (self->group != NULL)
    for (guint g = 0; g < groups->len; g++)
      {
        guint32 c = cp_palette_indexed_color (dark ? CP_THEME_DARK : CP_THEME_LIGHT, g);
        const char *name = groups->pdata[g];
        g_autofree char *escaped = g_markup_escape_text (name[0] ? name : _("(no label)"), -1);

        g_string_append_printf (legend, "%s<span foreground=\"#%06x\">●</span> %s=%s",
                                g == 0 ? "" : "    ", c >> 8, self->group, escaped);
      }
  gtk_label_set_markup (self->legend_label, legend->str);
  gtk_widget_set_visible (GTK_WIDGET (self->legend_label), legend->len > 0);

  for (guint m = 0; m < r->metrics->len; m++)
    {
      Series *s = r->metrics->pdata[m];
      g_autoptr(GArray) chart_points = g_array_new (FALSE, FALSE, sizeof (CpHistoryChartPoint));
      GHashTable *tooltips = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      GtkWidget *chart;

      if (g_hash_table_contains (self->hidden, s->metric))
        continue;
      for (guint g = 0; g < groups->len; g++)
        {
          g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (CpHistoryPoint));
          g_autoptr(GArray) index = g_array_new (FALSE, FALSE, sizeof (guint));

          for (guint i = 0; i < r->runs->len; i++)
            {
              CpHistoryRun *run = r->runs->pdata[i];
              CpHistoryPoint p = { run->id, run->time_ns, s->values[i], NAN, FALSE };

              if (series[i] != g || isnan (s->values[i]))
                continue;
              g_array_append_val (points, p);
              g_array_append_val (index, i);
            }
          cp_history_mark_regressions (points, s->metric, threshold);
          for (guint k = 0; k < points->len; k++)
            {
              const CpHistoryPoint *p = &g_array_index (points, CpHistoryPoint, k);
              guint i = g_array_index (index, guint, k);
              CpHistoryChartPoint cp = { p->id, i, g, p->value, p->regression };
              gint64 *key = g_new (gint64, 1);

              *key = p->id;
              g_array_append_val (chart_points, cp);
              g_hash_table_insert (tooltips, key, run_words (r->runs->pdata[i], i, r->runs->len, s->metric, p));
            }
        }
      chart = cp_history_chart_new ();
      gtk_widget_set_name (chart, s->metric);
      cp_history_chart_set_data (CP_HISTORY_CHART (chart), s->title, cp_history_metric_unit (s->metric),
                                 r->runs->len, g_steal_pointer (&chart_points), tooltips);
      cp_history_chart_set_chosen (CP_HISTORY_CHART (chart), self->chosen);
      g_signal_connect_object (chart, "point-activated", G_CALLBACK (point_activated_cb), self,
                               G_CONNECT_SWAPPED);
      gtk_box_append (self->charts_box, chart);
    }
}

static void
metric_toggled_cb (GtkCheckButton  *button,
                   CpHistoryWindow *self)
{
  const char *metric = g_object_get_data (G_OBJECT (button), "metric");

  if (gtk_check_button_get_active (button))
    g_hash_table_remove (self->hidden, metric);
  else
    g_hash_table_add (self->hidden, g_strdup (metric));
  rebuild_charts (self);
}

/* g_ptr_array_sort() passes pointers to the elements. */
static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

static void
fill_choices (CpHistoryWindow *self)
{
  Read *r = self->read;
  g_autoptr(GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  g_autoptr(GtkStringList) model = gtk_string_list_new (NULL);
  GtkWidget *child;
  guint selected = 0;

  for (guint i = 0; i < r->runs->len; i++)
    {
      CpHistoryRun *run = r->runs->pdata[i];

      for (guint k = 0; run->labels != NULL && k < run->labels->len; k++)
        {
          const char *key = g_array_index (run->labels, CpHistoryLabel, k).key;

          if (g_hash_table_add (keys, (gpointer) key))
            g_ptr_array_add (sorted, (gpointer) key);
        }
    }
  g_ptr_array_sort (sorted, compare_strings);
  gtk_string_list_append (model, _("No grouping"));
  for (guint i = 0; i < sorted->len; i++)
    {
      gtk_string_list_append (model, sorted->pdata[i]);
      if (g_strcmp0 (sorted->pdata[i], self->group) == 0)
        selected = i + 1;
    }
  if (selected == 0)
    g_clear_pointer (&self->group, g_free);
  self->filling_groups = TRUE;
  gtk_drop_down_set_model (self->group_dropdown, G_LIST_MODEL (model));
  gtk_drop_down_set_selected (self->group_dropdown, selected);
  self->filling_groups = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->group_dropdown), sorted->len > 0);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->metrics_box))) != NULL)
    gtk_box_remove (self->metrics_box, child);
  for (guint m = 0; m < r->metrics->len; m++)
    {
      Series *s = r->metrics->pdata[m];
      GtkWidget *check = gtk_check_button_new_with_label (s->title);

      g_object_set_data_full (G_OBJECT (check), "metric", g_strdup (s->metric), g_free);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), !g_hash_table_contains (self->hidden, s->metric));
      g_signal_connect (check, "toggled", G_CALLBACK (metric_toggled_cb), self);
      gtk_box_append (self->metrics_box, check);
    }
}

static void
update_status (CpHistoryWindow *self)
{
  g_autofree char *text = NULL;
  guint n = self->read ? self->read->runs->len : 0;

  if (self->chosen != 0)
    /* Translators: after a Shift-click on a run's point. */
    text = g_strdup_printf (_("Run %" PRId64 " chosen: Shift-click another run to compare the two"), self->chosen);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "%u run. Point at a run to see it; click to open it; "
                                         "Shift-click two to compare them.",
                                         "%u runs. Point at a run to see it; click to open it; "
                                         "Shift-click two to compare them.", n), n);
  gtk_label_set_text (self->status_label, text);
}

static void
read_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(CpHistoryWindow) self = user_data;
  Read *r = g_task_propagate_pointer (G_TASK (result), NULL);

  if (r == NULL || g_cancellable_is_cancelled (self->cancellable))
    {
      if (r != NULL)
        read_free (r);
      return;
    }
  g_clear_pointer (&self->read, read_free);
  self->read = r;
  self->loaded = TRUE;
  if (r->error != NULL)
    {
      adw_status_page_set_description (self->error_page, r->error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
  else if (r->runs->len == 0)
    gtk_stack_set_visible_child_name (self->stack, "empty");
  else
    {
      fill_choices (self);
      rebuild_charts (self);
      gtk_stack_set_visible_child_name (self->stack, "charts");
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->metrics_button), r->error == NULL && r->runs->len > 0);
  update_status (self);
}

void
cp_history_window_reload (CpHistoryWindow *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (CP_IS_HISTORY_WINDOW (self));

  cp_ui_cancel_and_renew (&self->cancellable);
  self->loaded = FALSE;
  task = g_task_new (NULL, self->cancellable, read_done_cb, g_object_ref (self));
  g_task_set_source_tag (task, cp_history_window_reload);
  g_task_run_in_thread (task, read_thread);
}

/* Clicks ---------------------------------------------------------------- */

static CpHistoryRun *
find_run (CpHistoryWindow *self,
          gint64           id)
{
  for (guint i = 0; self->read != NULL && i < self->read->runs->len; i++)
    if (((CpHistoryRun *) self->read->runs->pdata[i])->id == id)
      return self->read->runs->pdata[i];
  return NULL;
}

static void
set_chosen (CpHistoryWindow *self,
            gint64           id)
{
  self->chosen = id;
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self->charts_box)); c;
       c = gtk_widget_get_next_sibling (c))
    cp_history_chart_set_chosen (CP_HISTORY_CHART (c), id);
  update_status (self);
}

static gboolean
open_run (CpHistoryWindow *self,
          CpHistoryRun    *run)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (run->path);

  if (!CP_IS_APPLICATION (app))
    return FALSE;
  if (!g_file_query_exists (file, NULL))
    {
      g_autofree char *text = g_strdup_printf (_("“%s” is no longer there"), run->path);
      g_autofree char *escaped = g_markup_escape_text (text, -1);

      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (escaped));
      return FALSE;
    }
  cp_application_open_capture (CP_APPLICATION (app), file);
  return TRUE;
}

static void
point_activated_cb (CpHistoryWindow *self,
                    gint64           id,
                    gboolean         shift,
                    CpHistoryChart  *chart)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  CpHistoryRun *run = find_run (self, id), *first;

  if (run == NULL)
    return;
  if (!shift)
    {
      set_chosen (self, 0);
      open_run (self, run);
      return;
    }
  if (self->chosen == 0 || self->chosen == id || (first = find_run (self, self->chosen)) == NULL)
    {
      set_chosen (self, self->chosen == id ? 0 : id);
      return;
    }
  set_chosen (self, 0);
  /* The older run first: the comparison reads "from A to B". */
  if (first->time_ns > run->time_ns || (first->time_ns == run->time_ns && first->id > run->id))
    {
      CpHistoryRun *t = first;

      first = run;
      run = t;
    }
  if (app != NULL && g_action_group_has_action (G_ACTION_GROUP (app), "compare"))
    g_action_group_activate_action (G_ACTION_GROUP (app), "compare",
                                    g_variant_new ("(ss)", first->path, run->path));
  else
    {
      open_run (self, first);
      open_run (self, run);
    }
}

/* The window ------------------------------------------------------------ */

static void
group_changed_cb (CpHistoryWindow *self)
{
  guint selected = gtk_drop_down_get_selected (self->group_dropdown);
  GListModel *model = gtk_drop_down_get_model (self->group_dropdown);

  if (self->filling_groups)
    return;
  g_clear_pointer (&self->group, g_free);
  if (selected != GTK_INVALID_LIST_POSITION && selected > 0 && model != NULL)
    self->group = g_strdup (gtk_string_list_get_string (GTK_STRING_LIST (model), selected));
  rebuild_charts (self);
}

static void
threshold_changed_cb (CpHistoryWindow *self)
{
  rebuild_charts (self);
}

static void
cp_history_window_dispose (GObject *object)
{
  CpHistoryWindow *self = CP_HISTORY_WINDOW (object);

  cp_ui_cancel (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_HISTORY_WINDOW);

  G_OBJECT_CLASS (cp_history_window_parent_class)->dispose (object);
}

static void
cp_history_window_finalize (GObject *object)
{
  CpHistoryWindow *self = CP_HISTORY_WINDOW (object);

  g_clear_pointer (&self->read, read_free);
  g_clear_pointer (&self->hidden, g_hash_table_unref);
  g_free (self->group);

  G_OBJECT_CLASS (cp_history_window_parent_class)->finalize (object);
}

static void
cp_history_window_class_init (CpHistoryWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_history_window_dispose;
  object_class->finalize = cp_history_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-history-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, empty_page);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, group_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, threshold_spin);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, metrics_button);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, metrics_box);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, charts_box);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, legend_label);
  gtk_widget_class_bind_template_child (widget_class, CpHistoryWindow, status_label);
  gtk_widget_class_bind_template_callback (widget_class, cp_history_window_reload);
  gtk_widget_class_bind_template_callback (widget_class, group_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, threshold_changed_cb);
}

static void
cp_history_window_init (CpHistoryWindow *self)
{
  g_autofree char *location = cp_history_default_location ();
  g_autofree char *how = NULL;

  self->hidden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));
  how = g_strdup_printf (_("Turn on “Keep a History of Opened Captures” in the main menu of a "
                           "capture’s window, or record from a terminal with "
                           "“chokepoint history add FILE…” or “chokepoint diagnose --record FILE”. "
                           "The history is kept in %s."), location);
  adw_status_page_set_description (self->empty_page, how);
}

CpHistoryWindow *
cp_history_window_new (CpApplication *app)
{
  CpHistoryWindow *self = g_object_new (CP_TYPE_HISTORY_WINDOW, "application", app, NULL);

  cp_history_window_reload (self);
  return self;
}

gboolean
cp_history_window_is_loaded (CpHistoryWindow *self)
{
  g_return_val_if_fail (CP_IS_HISTORY_WINDOW (self), FALSE);

  return self->loaded;
}

const char *
cp_history_window_get_page (CpHistoryWindow *self)
{
  g_return_val_if_fail (CP_IS_HISTORY_WINDOW (self), NULL);

  return gtk_stack_get_visible_child_name (self->stack);
}

guint
cp_history_window_get_n_runs (CpHistoryWindow *self)
{
  g_return_val_if_fail (CP_IS_HISTORY_WINDOW (self), 0);

  return self->read ? self->read->runs->len : 0;
}

CpHistoryChart *
cp_history_window_get_chart (CpHistoryWindow *self,
                             const char      *metric)
{
  g_return_val_if_fail (CP_IS_HISTORY_WINDOW (self), NULL);

  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self->charts_box)); c;
       c = gtk_widget_get_next_sibling (c))
    if (g_strcmp0 (gtk_widget_get_name (c), metric) == 0)
      return CP_HISTORY_CHART (c);
  return NULL;
}

void
cp_history_window_set_group (CpHistoryWindow *self,
                             const char      *key)
{
  GListModel *model;

  g_return_if_fail (CP_IS_HISTORY_WINDOW (self));

  model = gtk_drop_down_get_model (self->group_dropdown);
  for (guint i = 1; key != NULL && model != NULL && i < g_list_model_get_n_items (model); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (model), i), key) == 0)
      {
        gtk_drop_down_set_selected (self->group_dropdown, i);
        return;
      }
  gtk_drop_down_set_selected (self->group_dropdown, 0);
}

void
cp_history_window_set_threshold (CpHistoryWindow *self,
                                 double           percent)
{
  g_return_if_fail (CP_IS_HISTORY_WINDOW (self));

  gtk_spin_button_set_value (self->threshold_spin, percent);
}

/* Application actions --------------------------------------------------- */

static CpHistoryWindow *
find_history_window (GtkApplication *app)
{
  for (GList *l = gtk_application_get_windows (app); l; l = l->next)
    if (CP_IS_HISTORY_WINDOW (l->data))
      return l->data;
  return NULL;
}

static void
history_action (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  CpApplication *app = user_data;
  CpHistoryWindow *window = find_history_window (GTK_APPLICATION (app));

  if (window != NULL)
    cp_history_window_reload (window);
  else
    window = cp_history_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
}

void
cp_history_add_app_actions (CpApplication *app)
{
  GSettings *settings = cp_application_get_settings (app);
  g_autoptr(GSimpleAction) history = g_simple_action_new ("history", NULL);

  g_signal_connect (history, "activate", G_CALLBACK (history_action), app);
  g_action_map_add_action (G_ACTION_MAP (app), G_ACTION (history));
  if (settings != NULL)
    {
      g_autoptr(GAction) keep = g_settings_create_action (settings, "keep-history");

      g_action_map_add_action (G_ACTION_MAP (app), keep);
    }
}

/* Recording ------------------------------------------------------------- */

static guint n_started, n_finished;
/* A history that cannot be written is told once a session. */
static gboolean told;

typedef struct
{
  GFile      *file;
  CpAnalysis *analysis;
  GWeakRef    window;
  gboolean    added;
  gint64      id;
} Record;

static void
record_free (Record *rec)
{
  g_clear_object (&rec->file);
  g_clear_object (&rec->analysis);
  g_weak_ref_clear (&rec->window);
  g_free (rec);
}

static void
record_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Record *rec = task_data;
  g_autofree char *location = cp_history_default_location ();
  g_autofree char *hash = NULL;
  g_autoptr(CpHistoryRun) run = NULL;
  g_autoptr(CpHistory) history = NULL;
  GError *error = NULL;

  /* What `chokepoint history add` does for one capture, with the analysis
   * the window has already made. */
  hash = cp_history_hash_file (rec->file, NULL, &error);
  if (hash == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  run = cp_history_run_new_from_analysis (rec->analysis, hash);
  history = cp_history_open (location, TRUE, &error);
  if (history == NULL || !cp_history_add (history, run, &rec->added, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  rec->id = run->id;
  g_task_return_boolean (task, TRUE);
}

static void
record_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Record *rec = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(CpWindow) window = g_weak_ref_get (&rec->window);
  GtkApplication *app = window ? gtk_window_get_application (GTK_WINDOW (window)) : NULL;
  CpHistoryWindow *history_window = app ? find_history_window (app) : NULL;

  n_finished++;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autofree char *location = cp_history_default_location ();
      g_autofree char *text = NULL;

      g_message ("history: %s", error->message);
      if (told || window == NULL)
        return;
      told = TRUE;
      /* Translators: %s is the reason. */
      text = g_strdup_printf (_("Opened captures are not recorded in the history: %s"), error->message);
      _cp_window_show_toast (window, text);
      return;
    }
  if (rec->added && history_window != NULL)
    cp_history_window_reload (history_window);
}

static void
record (CpWindow   *window,
        CpAnalysis *analysis)
{
  g_autoptr(GTask) task = NULL;
  GFile *file = cp_window_get_file (window);
  Record *rec;

  if (file == NULL)
    return;
  rec = g_new0 (Record, 1);
  rec->file = g_object_ref (file);
  rec->analysis = g_object_ref (analysis);
  g_weak_ref_init (&rec->window, window);
  n_started++;
  task = g_task_new (NULL, NULL, record_done_cb, NULL);
  g_task_set_source_tag (task, record);
  g_task_set_task_data (task, rec, (GDestroyNotify) record_free);
  g_task_run_in_thread (task, record_thread);
}

static void
keep_clicked_cb (AdwToast *toast,
                 CpWindow *window)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (window));
  GSettings *settings = CP_IS_APPLICATION (app) ? cp_application_get_settings (CP_APPLICATION (app)) : NULL;
  CpAnalysis *analysis = cp_window_get_analysis (window);

  if (settings == NULL)
    return;
  g_settings_set_boolean (settings, "keep-history", TRUE);
  if (analysis != NULL)
    record (window, analysis);
}

void
cp_history_record_loaded (CpWindow   *window,
                          CpAnalysis *analysis)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (window));
  GSettings *settings = CP_IS_APPLICATION (app) ? cp_application_get_settings (CP_APPLICATION (app)) : NULL;

  if (settings == NULL)
    return;
  if (g_settings_get_boolean (settings, "keep-history"))
    {
      record (window, analysis);
      return;
    }
  if (!g_settings_get_boolean (settings, "keep-history-asked"))
    {
      AdwToast *toast = adw_toast_new (_("Keep a history of opened captures, to see their figures over time?"));

      g_settings_set_boolean (settings, "keep-history-asked", TRUE);
      adw_toast_set_button_label (toast, _("_Keep History"));
      adw_toast_set_timeout (toast, 20);
      g_signal_connect_object (toast, "button-clicked", G_CALLBACK (keep_clicked_cb), window, 0);
      cp_window_add_toast (window, toast);
    }
}

guint
cp_history_record_get_finished (void)
{
  return n_finished;
}

guint
cp_history_record_get_started (void)
{
  return n_started;
}
