/* cp-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-pane.h"

typedef struct
{
  CpTrace     *trace;
  CpViewState *view;
  CpAnalysis  *analysis;

  /* Template widgets: "none", "running" and the content, "results". */
  GtkStack    *stack;
} CpPanePrivate;

static void cp_pane_buildable_init (GtkBuildableIface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (CpPane, cp_pane, GTK_TYPE_WIDGET,
                                  G_ADD_PRIVATE (CpPane)
                                  G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE, cp_pane_buildable_init))

enum {
  PROP_0,
  PROP_TRACE,
  PROP_VIEW_STATE,
  PROP_ANALYSIS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static GtkBuildableIface *parent_buildable_iface;
static GQuark waits_quark;

static gboolean
waits_for_analysis (CpPane *self)
{
  return GPOINTER_TO_INT (g_type_get_qdata (G_OBJECT_TYPE (self), waits_quark));
}

/* Shows the content, or what stands for it while there is none. */
static void
update_page (CpPane *self)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);
  const char *page = "results";

  if (priv->stack == NULL || gtk_stack_get_child_by_name (priv->stack, "results") == NULL)
    return;
  if (waits_for_analysis (self) && !cp_pane_is_ready (self))
    page = priv->trace != NULL ? "running" : "none";
  gtk_stack_set_visible_child_name (priv->stack, page);
}

static void
cp_pane_buildable_add_child (GtkBuildable *buildable,
                             GtkBuilder   *builder,
                             GObject      *child,
                             const char   *type)
{
  CpPane *self = CP_PANE (buildable);
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  /* The stack is bound once CpPane's own template is built: a widget that
   * a subclass's template adds after that is the content. */
  if (priv->stack != NULL && type == NULL && GTK_IS_WIDGET (child))
    {
      g_return_if_fail (gtk_stack_get_child_by_name (priv->stack, "results") == NULL);
      gtk_stack_add_named (priv->stack, GTK_WIDGET (child), "results");
      update_page (self);
      return;
    }
  parent_buildable_iface->add_child (buildable, builder, child, type);
}

static void
cp_pane_buildable_init (GtkBuildableIface *iface)
{
  parent_buildable_iface = g_type_interface_peek_parent (iface);
  iface->add_child = cp_pane_buildable_add_child;
}

static void
cp_pane_dispose (GObject *object)
{
  CpPane *self = CP_PANE (object);
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  /* Not gtk_widget_dispose_template (CP_TYPE_PANE): GTK 4.8.3 fails an
   * assertion there after a subclass has disposed of its template. GTK
   * drops the template's own reference to the stack with the widget. */
  if (priv->stack != NULL)
    gtk_widget_unparent (GTK_WIDGET (g_steal_pointer (&priv->stack)));
  g_clear_object (&priv->analysis);
  g_clear_object (&priv->view);
  g_clear_object (&priv->trace);

  G_OBJECT_CLASS (cp_pane_parent_class)->dispose (object);
}

static void
cp_pane_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  CpPane *self = CP_PANE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, cp_pane_get_trace (self));
      break;
    case PROP_VIEW_STATE:
      g_value_set_object (value, cp_pane_get_view_state (self));
      break;
    case PROP_ANALYSIS:
      g_value_set_object (value, cp_pane_get_analysis (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_pane_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  CpPane *self = CP_PANE (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      cp_pane_set_trace (self, g_value_get_object (value));
      break;
    case PROP_VIEW_STATE:
      cp_pane_set_view_state (self, g_value_get_object (value));
      break;
    case PROP_ANALYSIS:
      cp_pane_set_analysis (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_pane_class_init (CpPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_pane_dispose;
  object_class->get_property = cp_pane_get_property;
  object_class->set_property = cp_pane_set_property;

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

  waits_quark = g_quark_from_static_string ("cp-pane-waits-for-analysis");

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-pane.ui");
  gtk_widget_class_bind_template_child_private (widget_class, CpPane, stack);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
cp_pane_init (CpPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * cp_pane_class_set_waits_for_analysis:
 *
 * Makes the panes of @klass show "Analysing the capture…" while they have
 * a trace but not its analysis, and nothing while they have no trace.
 */
void
cp_pane_class_set_waits_for_analysis (CpPaneClass *klass,
                                      gboolean     waits)
{
  g_return_if_fail (CP_IS_PANE_CLASS (klass));

  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), waits_quark, GINT_TO_POINTER (waits));
}

CpTrace *
cp_pane_get_trace (CpPane *self)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return priv->trace;
}

void
cp_pane_set_trace (CpPane  *self,
                   CpTrace *trace)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));

  if (!g_set_object (&priv->trace, trace))
    return;
  if (CP_PANE_GET_CLASS (self)->trace_changed != NULL)
    CP_PANE_GET_CLASS (self)->trace_changed (self);
  update_page (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

CpViewState *
cp_pane_get_view_state (CpPane *self)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return priv->view;
}

void
cp_pane_set_view_state (CpPane      *self,
                        CpViewState *view)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);
  g_autoptr(CpViewState) old = NULL;

  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (view == NULL || CP_IS_VIEW_STATE (view));

  if (priv->view == view)
    return;
  old = g_steal_pointer (&priv->view);
  priv->view = view ? g_object_ref (view) : NULL;
  if (CP_PANE_GET_CLASS (self)->view_state_changed != NULL)
    CP_PANE_GET_CLASS (self)->view_state_changed (self, old);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW_STATE]);
}

CpAnalysis *
cp_pane_get_analysis (CpPane *self)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return priv->analysis;
}

void
cp_pane_set_analysis (CpPane     *self,
                      CpAnalysis *analysis)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (analysis == NULL || CP_IS_ANALYSIS (analysis));

  if (!g_set_object (&priv->analysis, analysis))
    return;
  if (CP_PANE_GET_CLASS (self)->analysis_changed != NULL)
    CP_PANE_GET_CLASS (self)->analysis_changed (self);
  update_page (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
}

gboolean
cp_pane_is_ready (CpPane *self)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_val_if_fail (CP_IS_PANE (self), FALSE);
  return priv->trace != NULL && priv->analysis != NULL &&
         cp_analysis_get_trace (priv->analysis) == priv->trace;
}
