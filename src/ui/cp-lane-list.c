/* cp-lane-list.c: the lanes of a capture, grouped by process or device
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-format.h"
#include "cp-lane-group.h"
#include "cp-lane-list.h"

struct _CpLaneList
{
  GtkWidget            parent_instance;

  /* Template widgets */
  GtkScrolledWindow   *scroller;
  GtkColumnView       *column_view;
  GtkColumnViewColumn *name_column;
  GtkColumnViewColumn *kind_column;
  GtkColumnViewColumn *slices_column;

  /* Owned references */
  CpTrace             *trace;
  GtkTreeListModel    *tree;
};

G_DEFINE_FINAL_TYPE (CpLaneList, cp_lane_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_TRACE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GListModel *
create_children_cb (gpointer item,
                    gpointer user_data)
{
  if (CP_IS_LANE_GROUP (item))
    return g_object_ref (cp_lane_group_get_lanes (item));
  return NULL;
}

static char *
lane_title (CpLane *lane)
{
  const char *name = cp_lane_get_name (lane);

  if (name != NULL && name[0] != '\0')
    return g_strdup (name);
  if (cp_lane_get_kind (lane) == CP_LANE_KERNEL)
    /* Translators: a GPU stream without a name, "Stream 7". */
    return g_strdup_printf (_("Stream %lld"), (long long) cp_lane_get_stream (lane));
  /* Translators: a thread without a name, "Thread 4242". */
  return g_strdup_printf (_("Thread %lld"), (long long) cp_lane_get_tid (lane));
}

/* Name column: an expander with the title and a dim subtitle. */

static void
name_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  user_data)
{
  GtkWidget *expander = gtk_tree_expander_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *subtitle = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (title), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (subtitle), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (subtitle, TRUE);
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), subtitle);
  gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), box);
  gtk_list_item_set_child (item, expander);
}

static void
name_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  GtkWidget *expander = gtk_list_item_get_child (item);
  GtkWidget *box = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (expander));
  GtkWidget *title = gtk_widget_get_first_child (box);
  GtkWidget *subtitle = gtk_widget_get_next_sibling (title);
  gpointer obj = gtk_tree_list_row_get_item (row);

  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), row);
  if (CP_IS_LANE_GROUP (obj))
    {
      gtk_label_set_label (GTK_LABEL (title), cp_lane_group_get_title (obj));
      gtk_label_set_label (GTK_LABEL (subtitle), cp_lane_group_get_subtitle (obj));
      gtk_widget_add_css_class (title, "heading");
    }
  else
    {
      g_autofree char *text = lane_title (obj);

      gtk_label_set_label (GTK_LABEL (title), text);
      gtk_label_set_label (GTK_LABEL (subtitle), NULL);
      gtk_widget_remove_css_class (title, "heading");
    }
  gtk_widget_set_tooltip_text (title, gtk_label_get_label (GTK_LABEL (title)));
  g_clear_object (&obj);
}

static void
name_unbind_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                gpointer                  user_data)
{
  GtkWidget *expander = gtk_list_item_get_child (item);

  gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (expander), NULL);
}

/* Kind and slice count columns: one label each. */

static void
label_setup_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                gpointer                  user_data)
{
  gboolean numeric = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0f : 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  else
    gtk_widget_add_css_class (label, "dim-label");
  gtk_list_item_set_child (item, label);
}

static void
kind_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autoptr(GObject) obj = gtk_tree_list_row_get_item (row);

  if (CP_IS_LANE_GROUP (obj))
    gtk_label_set_label (GTK_LABEL (label),
                         cp_lane_group_get_is_device (CP_LANE_GROUP (obj))
                           ? C_("lane group", "Device")
                           : C_("lane group", "Process"));
  else
    {
      g_autofree char *text = cp_ui_format_lane_kind (cp_lane_get_kind (CP_LANE (obj)),
                                                      cp_lane_get_transfer_kind (CP_LANE (obj)));

      gtk_label_set_label (GTK_LABEL (label), text);
    }
}

static void
slices_bind_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                gpointer                  user_data)
{
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autoptr(GObject) obj = gtk_tree_list_row_get_item (row);
  g_autofree char *count = NULL;
  g_autofree char *text = NULL;

  if (CP_IS_LANE_GROUP (obj))
    {
      count = cp_ui_format_count (cp_lane_group_get_n_slices (CP_LANE_GROUP (obj)));
      gtk_widget_add_css_class (label, "heading");
    }
  else if (cp_lane_get_kind (CP_LANE (obj)) == CP_LANE_COUNTER)
    {
      guint n = cp_lane_get_counter (CP_LANE (obj), NULL, NULL);

      count = cp_ui_format_count (n);
      /* Translators: the samples of a counter lane, "1,024 samples". */
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s sample", "%s samples", n), count);
      gtk_widget_remove_css_class (label, "heading");
    }
  else
    {
      count = cp_ui_format_count (cp_lane_get_n_slices (CP_LANE (obj)));
      gtk_widget_remove_css_class (label, "heading");
    }
  gtk_label_set_label (GTK_LABEL (label), text ? text : count);
}

static GtkListItemFactory *
make_factory (GCallback setup,
              GCallback bind,
              GCallback unbind,
              gboolean  numeric)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", setup, GINT_TO_POINTER (numeric));
  g_signal_connect (factory, "bind", bind, NULL);
  if (unbind != NULL)
    g_signal_connect (factory, "unbind", unbind, NULL);
  return factory;
}

GtkWidget *
cp_lane_list_new (void)
{
  return g_object_new (CP_TYPE_LANE_LIST, NULL);
}

CpTrace *
cp_lane_list_get_trace (CpLaneList *self)
{
  g_return_val_if_fail (CP_IS_LANE_LIST (self), NULL);

  return self->trace;
}

GListModel *
cp_lane_list_get_model (CpLaneList *self)
{
  g_return_val_if_fail (CP_IS_LANE_LIST (self), NULL);

  return G_LIST_MODEL (self->tree);
}

void
cp_lane_list_set_trace (CpLaneList *self,
                        CpTrace    *trace)
{
  g_autoptr(GListStore) groups = NULL;
  g_autoptr(GtkNoSelection) selection = NULL;

  g_return_if_fail (CP_IS_LANE_LIST (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;

  groups = trace ? cp_lane_group_list_for_trace (trace) : g_list_store_new (CP_TYPE_LANE_GROUP);
  g_clear_object (&self->tree);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_steal_pointer (&groups)),
                                        FALSE, TRUE, create_children_cb, NULL, NULL);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->tree)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (selection));

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

static void
cp_lane_list_dispose (GObject *object)
{
  CpLaneList *self = CP_LANE_LIST (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_LANE_LIST);
  g_clear_object (&self->tree);
  g_clear_object (&self->trace);

  G_OBJECT_CLASS (cp_lane_list_parent_class)->dispose (object);
}

static void
cp_lane_list_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  CpLaneList *self = CP_LANE_LIST (object);

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
cp_lane_list_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  CpLaneList *self = CP_LANE_LIST (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_lane_list_set_trace (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_lane_list_class_init (CpLaneListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_lane_list_dispose;
  object_class->get_property = cp_lane_list_get_property;
  object_class->set_property = cp_lane_list_set_property;

  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL,
                         CP_TYPE_TRACE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-lane-list.ui");
  gtk_widget_class_bind_template_child (widget_class, CpLaneList, scroller);
  gtk_widget_class_bind_template_child (widget_class, CpLaneList, column_view);
  gtk_widget_class_bind_template_child (widget_class, CpLaneList, name_column);
  gtk_widget_class_bind_template_child (widget_class, CpLaneList, kind_column);
  gtk_widget_class_bind_template_child (widget_class, CpLaneList, slices_column);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "lanelist");
}

static void
cp_lane_list_init (CpLaneList *self)
{
  g_autoptr(GtkListItemFactory) name = NULL;
  g_autoptr(GtkListItemFactory) kind = NULL;
  g_autoptr(GtkListItemFactory) slices = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));

  name = make_factory (G_CALLBACK (name_setup_cb), G_CALLBACK (name_bind_cb),
                       G_CALLBACK (name_unbind_cb), FALSE);
  kind = make_factory (G_CALLBACK (label_setup_cb), G_CALLBACK (kind_bind_cb), NULL, FALSE);
  slices = make_factory (G_CALLBACK (label_setup_cb), G_CALLBACK (slices_bind_cb), NULL, TRUE);
  gtk_column_view_column_set_factory (self->name_column, name);
  gtk_column_view_column_set_factory (self->kind_column, kind);
  gtk_column_view_column_set_factory (self->slices_column, slices);
}
