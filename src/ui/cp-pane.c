/* cp-pane.c: what every pane of the window shares
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-pane.h"

typedef struct
{
  CpTrace       *trace;
  CpViewState   *view;
  CpAnalysis    *analysis;
  CpAnnotations *annotations;

  /* Template widgets: "none", "running" and the content, "results". */
  GtkStack      *stack;
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
  PROP_ANNOTATIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static const char * const property_names[N_PROPS] = {
  NULL, "trace", "view-state", "analysis", "annotations",
};

static GType
property_type (guint prop_id)
{
  switch (prop_id)
    {
    case PROP_TRACE:
      return CP_TYPE_TRACE;
    case PROP_VIEW_STATE:
      return CP_TYPE_VIEW_STATE;
    case PROP_ANALYSIS:
      return CP_TYPE_ANALYSIS;
    default:
      return CP_TYPE_ANNOTATIONS;
    }
}

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
   * a subclass's template adds after that is the content. Instance init
   * runs with the subclass's class by then, so waits_for_analysis() is
   * the subclass's. */
  if (priv->stack != NULL && type == NULL && GTK_IS_WIDGET (child))
    {
      g_return_if_fail (gtk_stack_get_child_by_name (priv->stack, "results") == NULL);
      /* Only a pane that waits for the analysis keeps what stands for
       * the content: the stack would size it to them. */
      if (!waits_for_analysis (self))
        {
          GtkWidget *page;

          while ((page = gtk_widget_get_first_child (GTK_WIDGET (priv->stack))) != NULL)
            gtk_stack_remove (priv->stack, page);
        }
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
  g_clear_object (&priv->annotations);
  g_clear_object (&priv->analysis);
  g_clear_object (&priv->view);
  g_clear_object (&priv->trace);

  G_OBJECT_CLASS (cp_pane_parent_class)->dispose (object);
}

/* The field that holds a property's object. */
static gpointer *
field_of (CpPane *self,
          guint   prop_id)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_TRACE:
      return (gpointer *) &priv->trace;
    case PROP_VIEW_STATE:
      return (gpointer *) &priv->view;
    case PROP_ANALYSIS:
      return (gpointer *) &priv->analysis;
    case PROP_ANNOTATIONS:
      return (gpointer *) &priv->annotations;
    default:
      g_assert_not_reached ();
    }
}

/* Every setter: keeps the object, tells the subclass, shows the page that
 * now applies and notifies. */
static void
set_object (CpPane   *self,
            guint     prop_id,
            gpointer  object)
{
  CpPaneClass *klass = CP_PANE_GET_CLASS (self);
  gpointer *field = field_of (self, prop_id);
  g_autoptr(GObject) old = NULL;

  if (*field == object)
    return;
  old = g_steal_pointer (field);
  *field = object ? g_object_ref (object) : NULL;
  if (prop_id == PROP_TRACE && klass->trace_changed != NULL)
    klass->trace_changed (self);
  else if (prop_id == PROP_ANALYSIS && klass->analysis_changed != NULL)
    klass->analysis_changed (self);
  else if (prop_id == PROP_VIEW_STATE && klass->view_state_changed != NULL)
    klass->view_state_changed (self, (CpViewState *) old);
  else if (prop_id == PROP_ANNOTATIONS && klass->annotations_changed != NULL)
    klass->annotations_changed (self, (CpAnnotations *) old);
  update_page (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

static void
cp_pane_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  if (prop_id > PROP_0 && prop_id < N_PROPS)
    g_value_set_object (value, *field_of (CP_PANE (object), prop_id));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
cp_pane_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  if (prop_id > PROP_0 && prop_id < N_PROPS)
    set_object (CP_PANE (object), prop_id, g_value_get_object (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
cp_pane_class_init (CpPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_pane_dispose;
  object_class->get_property = cp_pane_get_property;
  object_class->set_property = cp_pane_set_property;

  for (guint i = PROP_0 + 1; i < N_PROPS; i++)
    properties[i] = g_param_spec_object (property_names[i], NULL, NULL, property_type (i),
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
cp_pane_class_set_layout (CpPaneClass *klass,
                          const char  *name)
{
  g_autofree char *resource = g_strdup_printf ("/io/github/chokepoint/Chokepoint/ui/cp-%s-pane.ui", name);
  g_autofree char *css = g_strdup_printf ("%spane", name);

  g_return_if_fail (CP_IS_PANE_CLASS (klass));

  gtk_widget_class_set_template_from_resource (GTK_WIDGET_CLASS (klass), resource);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), css);
}

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
  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return *field_of (self, PROP_TRACE);
}

void
cp_pane_set_trace (CpPane  *self,
                   CpTrace *trace)
{
  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));
  set_object (self, PROP_TRACE, trace);
}

CpViewState *
cp_pane_get_view_state (CpPane *self)
{
  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return *field_of (self, PROP_VIEW_STATE);
}

void
cp_pane_set_view_state (CpPane      *self,
                        CpViewState *view)
{
  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (view == NULL || CP_IS_VIEW_STATE (view));
  set_object (self, PROP_VIEW_STATE, view);
}

CpAnalysis *
cp_pane_get_analysis (CpPane *self)
{
  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return *field_of (self, PROP_ANALYSIS);
}

void
cp_pane_set_analysis (CpPane     *self,
                      CpAnalysis *analysis)
{
  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (analysis == NULL || CP_IS_ANALYSIS (analysis));
  set_object (self, PROP_ANALYSIS, analysis);
}

CpAnnotations *
cp_pane_get_annotations (CpPane *self)
{
  g_return_val_if_fail (CP_IS_PANE (self), NULL);
  return *field_of (self, PROP_ANNOTATIONS);
}

void
cp_pane_set_annotations (CpPane        *self,
                         CpAnnotations *annotations)
{
  g_return_if_fail (CP_IS_PANE (self));
  g_return_if_fail (annotations == NULL || CP_IS_ANNOTATIONS (annotations));
  set_object (self, PROP_ANNOTATIONS, annotations);
}

gboolean
cp_pane_is_ready (CpPane *self)
{
  CpPanePrivate *priv = cp_pane_get_instance_private (self);

  g_return_val_if_fail (CP_IS_PANE (self), FALSE);
  return priv->trace != NULL && priv->analysis != NULL &&
         cp_analysis_get_trace (priv->analysis) == priv->trace;
}
