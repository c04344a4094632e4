/* cp-find-bar.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-find-bar.h"
#include "cp-format.h"

/* Typing waits this long before searching. */
#define TYPING_DELAY_MS 150

struct _CpFindBar
{
  GtkWidget        parent_instance;

  /* Template widgets */
  GtkWidget       *search_bar;
  GtkWidget       *entry;
  GtkWidget       *regex_button;
  GtkWidget       *prev_button;
  GtkWidget       *next_button;
  GtkWidget       *status_label;

  /* Owned references */
  CpViewState     *view;
  CpSearchResult  *result;
  GCancellable    *cancellable;
  char            *status;
  char            *query;          /* of the last search started */

  guint            typing_id;
  gint             position;       /* in result->by_time, -1 before stepping */
  gulong           view_changed_id;
};

G_DEFINE_FINAL_TYPE (CpFindBar, cp_find_bar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_VIEW_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  CpTrace      *trace;
  char         *query;
  CpSearchMode  mode;
} Job;

static void
job_free (Job *job)
{
  g_clear_object (&job->trace);
  g_free (job->query);
  g_free (job);
}

static void
set_status (CpFindBar  *self,
            const char *status)
{
  g_free (self->status);
  self->status = g_strdup (status ? status : "");
  gtk_label_set_text (GTK_LABEL (self->status_label), self->status);
}

static void
update_status (CpFindBar *self)
{
  g_autofree char *count = NULL, *total = NULL, *mean = NULL, *max = NULL;
  g_autofree char *text = NULL;

  gtk_widget_set_sensitive (self->prev_button, self->result && self->result->n_matches > 0);
  gtk_widget_set_sensitive (self->next_button, self->result && self->result->n_matches > 0);
  if (self->result == NULL)
    return;
  if (self->result->n_matches == 0)
    {
      set_status (self, *gtk_editable_get_text (GTK_EDITABLE (self->entry)) ? _("No matches") : "");
      return;
    }
  count = cp_ui_format_count (self->result->n_matches);
  total = cp_ui_format_duration (self->result->total);
  mean = cp_ui_format_duration ((gint64) cp_search_result_mean (self->result));
  max = cp_ui_format_duration (self->result->max);
  if (self->position >= 0)
    {
      g_autofree char *pos = cp_ui_format_count ((guint64) self->position + 1);

      /* Translators: find status: "3 of 1,234 · total 12.3 ms · mean 10.0 µs · max 1.23 ms". */
      text = g_strdup_printf (_("%s of %s · total %s · mean %s · max %s"), pos, count, total, mean, max);
    }
  else
    /* Translators: find status: "1,234 matches · total 12.3 ms · mean 10.0 µs · max 1.23 ms". */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s match · total %s · mean %s · max %s",
                                         "%s matches · total %s · mean %s · max %s",
                                         self->result->n_matches),
                            count, total, mean, max);
  set_status (self, text);
}

static void
search_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;
  CpSearchResult *result = cp_search_run (job->trace, job->query, job->mode, cancellable, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) cp_search_result_free);
}

static void
search_done_cb (GObject      *source,
                GAsyncResult *res,
                gpointer      user_data)
{
  CpFindBar *self = CP_FIND_BAR (source);
  g_autoptr(GError) error = NULL;
  CpSearchResult *result = g_task_propagate_pointer (G_TASK (res), &error);

  if (result == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      gtk_widget_add_css_class (self->entry, "error");
      if (error->domain == G_REGEX_ERROR)
        set_status (self, _("Not a valid regular expression"));
      else
        set_status (self, error->message);
      return;
    }
  gtk_widget_remove_css_class (self->entry, "error");
  cp_search_result_free (self->result);
  self->result = result;
  self->position = -1;
  if (self->view)
    cp_view_state_set_search_matches (self->view, result->matches, result->n_matches);
  update_status (self);
}

void
cp_find_bar_search (CpFindBar    *self,
                    const char   *query,
                    CpSearchMode  mode)
{
  g_autoptr(GTask) task = NULL;
  CpTrace *trace;
  Job *job;

  g_return_if_fail (CP_IS_FIND_BAR (self));
  g_return_if_fail (query != NULL);

  g_clear_handle_id (&self->typing_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->result, cp_search_result_free);
  self->position = -1;
  g_free (self->query);
  self->query = g_strdup (query);
  trace = self->view ? cp_view_state_get_trace (self->view) : NULL;
  if (trace == NULL || *query == '\0')
    {
      if (self->view)
        cp_view_state_set_search_matches (self->view, NULL, 0);
      gtk_widget_remove_css_class (self->entry, "error");
      set_status (self, "");
      update_status (self);
      return;
    }

  /* Keep the entry in step when called directly. */
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->entry)), query) != 0)
    {
      g_signal_handlers_block_matched (self->entry, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
      gtk_editable_set_text (GTK_EDITABLE (self->entry), query);
      g_signal_handlers_unblock_matched (self->entry, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
    }
  if (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->regex_button)) != (mode == CP_SEARCH_REGEX))
    {
      g_signal_handlers_block_matched (self->regex_button, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->regex_button), mode == CP_SEARCH_REGEX);
      g_signal_handlers_unblock_matched (self->regex_button, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
    }

  set_status (self, _("Searching…"));
  update_status (self);
  job = g_new0 (Job, 1);
  job->trace = g_object_ref (trace);
  job->query = g_strdup (query);
  job->mode = mode;
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, search_done_cb, NULL);
  g_task_set_source_tag (task, cp_find_bar_search);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, search_thread);
}

static CpSearchMode
current_mode (CpFindBar *self)
{
  return gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->regex_button))
         ? CP_SEARCH_REGEX : CP_SEARCH_SUBSTRING;
}

static gboolean
typing_done_cb (gpointer data)
{
  CpFindBar *self = data;

  self->typing_id = 0;
  cp_find_bar_search (self, gtk_editable_get_text (GTK_EDITABLE (self->entry)), current_mode (self));
  return G_SOURCE_REMOVE;
}

static void
query_changed_cb (CpFindBar *self)
{
  /* The entry reports a text set by cp_find_bar_search() too, late. */
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->entry)), self->query) == 0 &&
      (self->result != NULL || self->cancellable != NULL))
    return;
  g_clear_handle_id (&self->typing_id, g_source_remove);
  self->typing_id = g_timeout_add (TYPING_DELAY_MS, typing_done_cb, self);
}

void
cp_find_bar_step (CpFindBar *self,
                  gboolean   forward)
{
  CpTrace *trace;
  gint pos;
  CpSliceRef from;

  g_return_if_fail (CP_IS_FIND_BAR (self));

  /* A search still waiting for the typing delay runs first. */
  if (self->typing_id != 0)
    {
      typing_done_cb (self);
      return;
    }
  if (self->result == NULL || self->result->n_matches == 0 || self->view == NULL)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  trace = cp_view_state_get_trace (self->view);
  if (self->position >= 0 && (guint) self->position < self->result->n_matches &&
      cp_slice_ref_equal (cp_view_state_get_selected (self->view), self->result->by_time[self->position]))
    pos = forward ? (self->position + 1) % (gint) self->result->n_matches
                  : (self->position + (gint) self->result->n_matches - 1) % (gint) self->result->n_matches;
  else
    {
      /* From the selection when there is one, else from the first. */
      from = cp_view_state_get_selected (self->view);
      pos = cp_search_result_step (self->result, trace, from, forward);
    }
  if (pos < 0)
    return;
  self->position = pos;
  cp_view_state_select_and_reveal (self->view, self->result->by_time[pos]);
  update_status (self);
}

static void
activate_cb (CpFindBar *self)
{
  cp_find_bar_step (self, TRUE);
}

static void
next_match_cb (CpFindBar *self)
{
  cp_find_bar_step (self, TRUE);
}

static void
previous_match_cb (CpFindBar *self)
{
  cp_find_bar_step (self, FALSE);
}

static gboolean
entry_key_pressed_cb (CpFindBar             *self,
                      guint                  keyval,
                      guint                  keycode,
                      GdkModifierType        state,
                      GtkEventControllerKey *controller)
{
  /* Shift+Enter: the previous match (Enter alone activates: the next). */
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter) &&
      (state & GDK_SHIFT_MASK))
    {
      cp_find_bar_step (self, FALSE);
      return TRUE;
    }
  return FALSE;
}

static void
stop_search_cb (CpFindBar *self)
{
  cp_find_bar_close (self);
}

static void
regex_toggled_cb (CpFindBar *self)
{
  cp_find_bar_search (self, gtk_editable_get_text (GTK_EDITABLE (self->entry)), current_mode (self));
}

static void
view_changed_cb (CpFindBar   *self,
                 guint        what,
                 CpViewState *view)
{
  /* A new capture: searches of the old one mean nothing. */
  if (what & CP_VIEW_CHANGE_TRACE)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_pointer (&self->result, cp_search_result_free);
      self->position = -1;
      g_clear_pointer (&self->query, g_free);
      if (cp_find_bar_is_open (self) && *gtk_editable_get_text (GTK_EDITABLE (self->entry)))
        query_changed_cb (self);
      else
        set_status (self, "");
    }
}

static void
search_mode_cb (CpFindBar *self)
{
  if (!gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (self->search_bar)))
    {
      g_clear_handle_id (&self->typing_id, g_source_remove);
      g_cancellable_cancel (self->cancellable);
      if (self->view)
        cp_view_state_set_search_matches (self->view, NULL, 0);
      g_signal_emit (self, signals[CLOSED], 0);
    }
  update_status (self);
}

static void
cp_find_bar_dispose (GObject *object)
{
  CpFindBar *self = CP_FIND_BAR (object);

  g_clear_handle_id (&self->typing_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  cp_find_bar_set_view_state (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_FIND_BAR);

  G_OBJECT_CLASS (cp_find_bar_parent_class)->dispose (object);
}

static void
cp_find_bar_finalize (GObject *object)
{
  CpFindBar *self = CP_FIND_BAR (object);

  cp_search_result_free (self->result);
  g_free (self->status);
  g_free (self->query);

  G_OBJECT_CLASS (cp_find_bar_parent_class)->finalize (object);
}

static void
cp_find_bar_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CpFindBar *self = CP_FIND_BAR (object);

  switch (prop_id)
    {
    case PROP_VIEW_STATE:
      g_value_set_object (value, self->view);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_find_bar_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  CpFindBar *self = CP_FIND_BAR (object);

  switch (prop_id)
    {
    case PROP_VIEW_STATE:
      cp_find_bar_set_view_state (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_find_bar_class_init (CpFindBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_find_bar_dispose;
  object_class->finalize = cp_find_bar_finalize;
  object_class->get_property = cp_find_bar_get_property;
  object_class->set_property = cp_find_bar_set_property;

  properties[PROP_VIEW_STATE] =
    g_param_spec_object ("view-state", NULL, NULL, CP_TYPE_VIEW_STATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * CpFindBar::closed:
   *
   * Emitted when the bar closes (Escape, its close button), so that the
   * timeline can take the focus back.
   */
  signals[CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-find-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, CpFindBar, search_bar);
  gtk_widget_class_bind_template_child (widget_class, CpFindBar, entry);
  gtk_widget_class_bind_template_child (widget_class, CpFindBar, regex_button);
  gtk_widget_class_bind_template_child (widget_class, CpFindBar, prev_button);
  gtk_widget_class_bind_template_child (widget_class, CpFindBar, next_button);
  gtk_widget_class_bind_template_child (widget_class, CpFindBar, status_label);
  gtk_widget_class_bind_template_callback (widget_class, query_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, next_match_cb);
  gtk_widget_class_bind_template_callback (widget_class, previous_match_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
  gtk_widget_class_bind_template_callback (widget_class, entry_key_pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, regex_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_mode_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "findbar");
}

static void
cp_find_bar_init (CpFindBar *self)
{
  self->position = -1;
  self->status = g_strdup ("");

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar), GTK_EDITABLE (self->entry));
  update_status (self);
}

GtkWidget *
cp_find_bar_new (void)
{
  return g_object_new (CP_TYPE_FIND_BAR, NULL);
}

void
cp_find_bar_set_view_state (CpFindBar   *self,
                            CpViewState *view)
{
  g_return_if_fail (CP_IS_FIND_BAR (self));
  g_return_if_fail (view == NULL || CP_IS_VIEW_STATE (view));

  if (self->view == view)
    return;
  if (self->view)
    g_clear_signal_handler (&self->view_changed_id, self->view);
  g_set_object (&self->view, view);
  if (view)
    self->view_changed_id = g_signal_connect_object (view, "changed", G_CALLBACK (view_changed_cb), self,
                                                     G_CONNECT_SWAPPED);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
}

CpViewState *
cp_find_bar_get_view_state (CpFindBar *self)
{
  g_return_val_if_fail (CP_IS_FIND_BAR (self), NULL);
  return self->view;
}

void
cp_find_bar_open (CpFindBar *self)
{
  g_return_if_fail (CP_IS_FIND_BAR (self));

  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->entry);
  gtk_editable_select_region (GTK_EDITABLE (self->entry), 0, -1);
}

void
cp_find_bar_close (CpFindBar *self)
{
  g_return_if_fail (CP_IS_FIND_BAR (self));

  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
}

gboolean
cp_find_bar_is_open (CpFindBar *self)
{
  g_return_val_if_fail (CP_IS_FIND_BAR (self), FALSE);
  return gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (self->search_bar));
}

const CpSearchResult *
cp_find_bar_get_result (CpFindBar *self)
{
  g_return_val_if_fail (CP_IS_FIND_BAR (self), NULL);
  return self->result;
}

const char *
cp_find_bar_get_status (CpFindBar *self)
{
  g_return_val_if_fail (CP_IS_FIND_BAR (self), NULL);
  return self->status;
}
