/* cp-kernels-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "cp-format.h"
#include "cp-kernels-pane.h"
#include "cp-pane.h"
#include "cp-roofline-chart.h"
#include "cp-stat-item.h"

/* Slices highlighted at most for one selected row. */
#define MAX_HIGHLIGHTS 200000

typedef enum
{
  COL_NAME,
  COL_COUNT,
  COL_TOTAL,
  COL_MEAN,
  COL_MIN,
  COL_MAX,
  COL_SHARE,
  COL_TC,
  COL_OCCUPANCY,
  COL_SHAPE,
  COL_KERNELS,
  COL_KERNEL_TIME,
  COL_KERNEL_SHARE,
  COL_TFLOPS,
  COL_GBPS,
  COL_INTENSITY,
  COL_ROOFLINE,
  COL_BOUND,
} ColumnKind;

typedef struct
{
  ColumnKind  kind;
  const char *id;        /* property name, also the column's id */
  const char *title;     /* N_() */
  const char *tooltip;   /* N_() */
} ColumnInfo;

static const ColumnInfo kernel_columns[] = {
  { COL_NAME, "name", N_("Kernel"), NULL },
  { COL_SHARE, "share", N_("Share"), N_("Share of all kernel time") },
  { COL_TOTAL, "total", N_("Total"), N_("Summed duration") },
  { COL_COUNT, "count", N_("Count"), NULL },
  { COL_ROOFLINE, "roofline", N_("Roofline"), N_("Achieved share of the roofline at this intensity") },
  { COL_TFLOPS, "tflops", N_("TFLOP/s"), N_("Achieved TFLOP/s; ≈ marks estimates from the op's shapes") },
  { COL_BOUND, "bound", N_("Bound"), N_("Memory- or compute-bound at this intensity on this device") },
  { COL_MEAN, "mean", N_("Mean"), NULL },
  { COL_MIN, "min", N_("Min"), NULL },
  { COL_MAX, "max", N_("Max"), NULL },
  { COL_TC, "tensor-core", N_("TC"), N_("Runs on tensor cores (by kernel name)") },
  { COL_OCCUPANCY, "occupancy", N_("Occ."), N_("Est. achieved occupancy, duration-weighted") },
  { COL_SHAPE, NULL, N_("Grid / block"), N_("Launch shape, when the same for every launch") },
  { COL_INTENSITY, "intensity", N_("FLOP/B"), N_("Arithmetic intensity: FLOPs per byte of memory traffic") },
  { COL_GBPS, "gbps", N_("GB/s"), N_("Achieved memory bandwidth") },
};

static const ColumnInfo op_columns[] = {
  { COL_NAME, "name", N_("Host op"), NULL },
  { COL_KERNEL_SHARE, "kernel-share", N_("GPU share"), N_("Share of all kernel time launched from inside the op") },
  { COL_KERNEL_TIME, "kernel-time", N_("GPU time"), N_("Time of the kernels launched from inside the op") },
  { COL_KERNELS, "kernels", N_("Kernels"), N_("Kernels launched from inside the op") },
  { COL_ROOFLINE, "roofline", N_("Roofline"), N_("Achieved share of the roofline at this intensity") },
  { COL_TFLOPS, "tflops", N_("TFLOP/s"), N_("Achieved TFLOP/s; ≈ marks estimates from the op's shapes") },
  { COL_BOUND, "bound", N_("Bound"), N_("Memory- or compute-bound at this intensity on this device") },
  { COL_TOTAL, "total", N_("Host total"), N_("Summed host duration") },
  { COL_COUNT, "count", N_("Count"), NULL },
  { COL_MEAN, "mean", N_("Mean"), N_("Mean host duration") },
  { COL_MAX, "max", N_("Max"), N_("Longest host duration") },
  { COL_INTENSITY, "intensity", N_("FLOP/B"), N_("Arithmetic intensity: FLOPs per byte of memory traffic") },
  { COL_GBPS, "gbps", N_("GB/s"), N_("Achieved memory bandwidth") },
};

static const ColumnInfo module_columns[] = {
  { COL_NAME, "name", N_("Module"), NULL },
  { COL_KERNEL_SHARE, "kernel-share", N_("GPU share"), N_("Share of all kernel time launched from inside the module") },
  { COL_KERNEL_TIME, "kernel-time", N_("GPU time"), N_("Time of the kernels launched from inside the module and its submodules") },
  { COL_KERNELS, "kernels", N_("Kernels"), N_("Kernels launched from inside the module") },
};

static const ColumnInfo code_columns[] = {
  { COL_NAME, "name", N_("Code"), NULL },
  { COL_KERNEL_SHARE, "kernel-share", N_("GPU share"), N_("Share of all kernel time launched from this line") },
  { COL_KERNEL_TIME, "kernel-time", N_("GPU time"), N_("Time of the kernels launched from this line of your code") },
  { COL_KERNELS, "kernels", N_("Kernels"), N_("Kernels launched from this line") },
};

typedef enum
{
  MODE_KERNELS,
  MODE_OPS,
  MODE_MODULES,
  MODE_CODE,
} Mode;

typedef struct
{
  GtkColumnView      *view;
  GListStore         *store;
  GtkStringFilter    *filter;
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;
  GHashTable         *columns;   /* id -> GtkColumnViewColumn */
} Table;

struct _CpKernelsPane
{
  CpPane           parent_instance;

  /* Template widgets */
  GtkStack        *tables;       /* kernels / ops */
  GtkToggleButton *kernels_button;
  GtkToggleButton *ops_button;
  GtkToggleButton *modules_button;
  GtkToggleButton *code_button;
  GtkToggleButton *roofline_button;
  GtkSpinner      *grouping_spinner;
  CpRooflineChart *chart;
  GtkSearchEntry  *search;
  GtkLabel        *detail;
  GtkColumnView   *kernels_view;
  GtkColumnView   *ops_view;
  GtkColumnView   *modules_view;
  GtkColumnView   *code_view;

  Table            kernels;
  Table            ops;
  Table            modules;
  Table            code;
  Mode             mode;              /* the table shown; the roofline stands for the kernels */
  gboolean         showing_chart;
  /* Modules and code are worked out on a thread when first shown. */
  CpAnalysis      *grouped;           /* the analysis the two tables are of */
  GCancellable    *grouping;
};

G_DEFINE_FINAL_TYPE (CpKernelsPane, cp_kernels_pane, CP_TYPE_PANE)

static Table *
current (CpKernelsPane *self)
{
  switch (self->mode)
    {
    case MODE_OPS: return &self->ops;
    case MODE_MODULES: return &self->modules;
    case MODE_CODE: return &self->code;
    case MODE_KERNELS:
    default:
      return &self->kernels;
    }
}

/* Cells */

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  ColumnKind kind = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  if (kind == COL_NAME)
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
      /* Wide enough that names which differ in the middle
       * ("volta_scudnn_128x64_relu_medium_nn_v1" and its 128x128
       * sibling) still differ once ellipsized there; the expanding
       * column gives them the pane's spare width. */
      gtk_label_set_width_chars (GTK_LABEL (label), 30);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 30);
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), kind == COL_SHAPE || kind == COL_TC || kind == COL_BOUND ? 0.5 : 1.0);
      gtk_widget_add_css_class (label, "numeric");
    }
  gtk_list_item_set_child (item, label);
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         gpointer                  user_data)
{
  ColumnKind kind = GPOINTER_TO_INT (user_data);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  CpStatItem *row = gtk_list_item_get_item (item);
  g_autofree char *text = NULL;

  switch (kind)
    {
    case COL_NAME:
      text = cp_ui_format_short_name (cp_stat_item_get_name (row));
      gtk_label_set_text (label, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), cp_stat_item_get_name (row));
      return;
    case COL_COUNT:
      text = g_strdup_printf ("%" G_GUINT64_FORMAT, cp_stat_item_get_count (row));
      break;
    case COL_TOTAL:
      text = cp_ui_format_duration (cp_stat_item_get_total (row));
      break;
    case COL_MEAN:
      text = cp_ui_format_duration (cp_stat_item_get_mean (row));
      break;
    case COL_MIN:
      text = cp_ui_format_duration (cp_stat_item_get_min (row));
      break;
    case COL_MAX:
      text = cp_ui_format_duration (cp_stat_item_get_max (row));
      break;
    case COL_SHARE:
      text = cp_ui_format_percent (100 * cp_stat_item_get_share (row));
      break;
    case COL_TC:
      text = g_strdup (cp_stat_item_get_tensor_core (row) ? "✓" : "");
      break;
    case COL_OCCUPANCY:
      text = cp_stat_item_get_occupancy (row) < 0 ? g_strdup ("—")
                                                  : cp_ui_format_percent (cp_stat_item_get_occupancy (row));
      break;
    case COL_SHAPE:
      text = g_strdup (cp_stat_item_get_shape (row));
      break;
    case COL_KERNELS:
      text = g_strdup_printf ("%" G_GUINT64_FORMAT, cp_stat_item_get_kernels (row));
      break;
    case COL_KERNEL_TIME:
      text = cp_ui_format_duration (cp_stat_item_get_kernel_time (row));
      break;
    case COL_KERNEL_SHARE:
      text = cp_ui_format_percent (100 * cp_stat_item_get_kernel_share (row));
      break;
    case COL_TFLOPS:
      text = cp_stat_item_get_tflops (row) < 0 ? g_strdup ("—")
             : g_strdup_printf ("%s%.3g", cp_stat_item_get_estimate (row) ? "≈" : "", cp_stat_item_get_tflops (row));
      break;
    case COL_GBPS:
      text = cp_stat_item_get_gbps (row) < 0 ? g_strdup ("—") : g_strdup_printf ("%.0f", cp_stat_item_get_gbps (row));
      break;
    case COL_INTENSITY:
      text = cp_stat_item_get_intensity (row) < 0 ? g_strdup ("—")
                                                  : g_strdup_printf ("%.3g", cp_stat_item_get_intensity (row));
      break;
    case COL_ROOFLINE:
      text = cp_stat_item_get_roofline (row) < 0 ? g_strdup ("—")
                                                 : cp_ui_format_percent (cp_stat_item_get_roofline (row));
      break;
    case COL_BOUND:
      text = g_strdup (cp_stat_item_get_bound_text (row));
      break;
    default:
      text = g_strdup ("");
      break;
    }
  gtk_label_set_text (label, text);
}

static GtkSorter *
sorter_for (const ColumnInfo *col)
{
  GtkExpression *expr;

  if (col->id == NULL)
    return NULL;
  expr = gtk_property_expression_new (CP_TYPE_STAT_ITEM, NULL, col->id);
  if (col->kind == COL_NAME || col->kind == COL_BOUND)
    return GTK_SORTER (gtk_string_sorter_new (expr));
  return GTK_SORTER (gtk_numeric_sorter_new (expr));
}

/* Selection: highlight every slice of the row's name. */

static void
selection_changed_cb (GtkSingleSelection *selection,
                      GParamSpec         *pspec,
                      CpKernelsPane      *self)
{
  CpStatItem *row = gtk_single_selection_get_selected_item (selection);
  g_autoptr(GArray) refs = NULL;
  g_autofree CpHighlight *hl = NULL;
  CpTrace *trace = cp_pane_get_trace (CP_PANE (self));
  CpViewState *view = cp_pane_get_view_state (CP_PANE (self));
  CpAnalysis *analysis = cp_pane_get_analysis (CP_PANE (self));
  guint n;

  if (view == NULL || analysis == NULL || trace == NULL)
    return;
  if (selection == self->kernels.selection)
    cp_roofline_chart_set_selected (self->chart, row != NULL ? cp_stat_item_get_name_id (row) : CP_STR_EMPTY);
  if (row == NULL)
    {
      cp_view_state_set_highlights (view, CP_HIGHLIGHT_SEARCH, NULL, 0);
      gtk_label_set_text (self->detail, "");
      return;
    }

  refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  if (cp_stat_item_is_group (row))
    {
      cp_analysis_collect_host_slices (analysis, cp_stat_item_get_name_id (row), refs);
      /* A line of JAX or TensorFlow code: the kernels of its HLO ops. */
      if (refs->len == 0)
        cp_analysis_collect_xla_code_slices (analysis, cp_stat_item_get_name_id (row), refs);
    }
  else if (cp_stat_item_is_kernel (row))
    cp_analysis_collect_kernel_slices (analysis, cp_stat_item_get_name_id (row), refs);
  else
    cp_analysis_collect_host_slices (analysis, cp_stat_item_get_name_id (row), refs);
  n = MIN (refs->len, MAX_HIGHLIGHTS);
  hl = g_new (CpHighlight, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      CpSliceRef r = g_array_index (refs, CpSliceRef, i);

      hl[i].lane = r.lane;
      hl[i].start = cp_trace_slice_start (trace, r);
      hl[i].end = hl[i].start + cp_trace_slice_dur (trace, r);
      hl[i].kind = CP_HIGHLIGHT_SEARCH;
    }
  cp_view_state_set_highlights (view, CP_HIGHLIGHT_SEARCH, hl, n);

  {
    g_autoptr(GString) text = g_string_new (cp_stat_item_get_name (row));

    g_string_append_c (text, '\n');
    g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%u slice highlighted on the timeline.",
                                               "%u slices highlighted on the timeline.", refs->len),
                            refs->len);
    if (cp_stat_item_get_has_flops (row))
      {
        g_string_append_c (text, '\n');
        if (cp_stat_item_get_roofline (row) >= 0)
          g_string_append_printf (text, cp_stat_item_get_bound (row) == CP_BOUND_COMPUTE
                                  ? _("%.3g TFLOP/s at %.3g FLOP/byte: %.1f%% of the roofline, compute-bound.")
                                  : _("%.3g TFLOP/s at %.3g FLOP/byte: %.1f%% of the roofline, memory-bound."),
                                  cp_stat_item_get_tflops (row), MAX (cp_stat_item_get_intensity (row), 0),
                                  cp_stat_item_get_roofline (row));
        else
          g_string_append_printf (text, _("%.3g TFLOP/s; the device's peak is unknown, so no roofline."),
                                  cp_stat_item_get_tflops (row));
        if (cp_stat_item_get_estimate (row))
          g_string_append_printf (text, " %s", _("FLOPs estimated from the op's shapes."));
      }
    if (cp_stat_item_is_group (row))
      {
        g_autofree char *t = cp_ui_format_duration (cp_stat_item_get_kernel_time (row));

        g_string_append_c (text, '\n');
        g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " kernel launched from inside it, %s on the device.",
                                                   "%" PRIu64 " kernels launched from inside it, %s on the device.",
                                                   cp_stat_item_get_kernels (row)),
                                (uint64_t) cp_stat_item_get_kernels (row), t);
      }
    else if (cp_stat_item_is_kernel (row) && *cp_stat_item_get_shape (row))
      g_string_append_printf (text, "\n%s %s", _("Grid / block:"), cp_stat_item_get_shape (row));
    else if (!cp_stat_item_is_kernel (row) && *cp_stat_item_get_launched (row))
      g_string_append_printf (text, "\n%s\n%s", _("Kernels launched from inside it (count):"),
                              cp_stat_item_get_launched (row));
    else if (!cp_stat_item_is_kernel (row))
      g_string_append_printf (text, "\n%s", _("No kernels were launched from inside it."));
    gtk_label_set_text (self->detail, text->str);
  }
}

static void
table_init (CpKernelsPane    *self,
            Table            *t,
            GtkColumnView    *view,
            const ColumnInfo *cols,
            guint             n_cols)
{
  GtkFilterListModel *filtered;
  GtkColumnViewColumn *total = NULL;

  t->store = g_list_store_new (CP_TYPE_STAT_ITEM);
  t->filter = gtk_string_filter_new (gtk_property_expression_new (CP_TYPE_STAT_ITEM, NULL, "name"));
  gtk_string_filter_set_match_mode (t->filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (t->filter, TRUE);
  filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (t->store)), GTK_FILTER (g_object_ref (t->filter)));
  t->view = view;
  t->sorted = gtk_sort_list_model_new (G_LIST_MODEL (filtered), g_object_ref (gtk_column_view_get_sorter (t->view)));
  t->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (t->sorted)));
  gtk_single_selection_set_autoselect (t->selection, FALSE);
  gtk_single_selection_set_can_unselect (t->selection, TRUE);
  gtk_column_view_set_model (t->view, GTK_SELECTION_MODEL (t->selection));
  g_signal_connect (t->selection, "notify::selected-item", G_CALLBACK (selection_changed_cb), self);
  t->columns = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);

  for (guint i = 0; i < n_cols; i++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *col;
      GtkSorter *sorter = sorter_for (&cols[i]);

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), GINT_TO_POINTER (cols[i].kind));
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), GINT_TO_POINTER (cols[i].kind));
      col = gtk_column_view_column_new (_(cols[i].title), factory);
      gtk_column_view_column_set_resizable (col, TRUE);
      /* The name takes what the figures leave: it grows with the pane
       * (a fixed width kept it at 240 px however wide the pane was). */
      if (cols[i].kind == COL_NAME)
        gtk_column_view_column_set_expand (col, TRUE);
      if (sorter != NULL)
        {
          gtk_column_view_column_set_sorter (col, sorter);
          g_object_unref (sorter);
        }
      gtk_column_view_append_column (t->view, col);
      if (cols[i].id != NULL)
        g_hash_table_insert (t->columns, (gpointer) cols[i].id, g_object_ref (col));
      if (cols[i].kind == COL_TOTAL || cols[i].kind == COL_KERNEL_TIME)
        if (total == NULL)
          total = col;
      g_object_unref (col);
    }
  /* Longest first. */
  if (total != NULL)
    gtk_column_view_sort_by_column (t->view, total, GTK_SORT_DESCENDING);
}

static void
table_clear (Table *t)
{
  g_clear_pointer (&t->columns, g_hash_table_unref);
  g_clear_object (&t->selection);
  g_clear_object (&t->sorted);
  g_clear_object (&t->filter);
  g_clear_object (&t->store);
}

/* The device word: "XLA ops" and their TPU time on an all-TPU capture
 * (there are no CUDA kernels, tensor cores or occupancy there). */
static void
relabel (CpKernelsPane *self,
         gboolean       tpu)
{
  static const struct { const char *id; const char *gpu; const char *tpu; } names[] = {
    { "name", N_("Kernel"), N_("XLA op") },
  };
  static const struct { const char *id; const char *gpu; const char *tpu; } op_names[] = {
    { "kernel-share", N_("GPU share"), N_("TPU share") },
    { "kernel-time", N_("GPU time"), N_("TPU time") },
    { "kernels", N_("Kernels"), N_("XLA ops") },
  };
  GtkColumnViewColumn *col;

  gtk_button_set_label (GTK_BUTTON (self->kernels_button), tpu ? _("_XLA Ops") : _("_Kernels"));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if ((col = g_hash_table_lookup (self->kernels.columns, names[i].id)) != NULL)
      gtk_column_view_column_set_title (col, _(tpu ? names[i].tpu : names[i].gpu));
  for (guint i = 0; i < G_N_ELEMENTS (op_names); i++)
    if ((col = g_hash_table_lookup (self->ops.columns, op_names[i].id)) != NULL)
      gtk_column_view_column_set_title (col, _(tpu ? op_names[i].tpu : op_names[i].gpu));
  if ((col = g_hash_table_lookup (self->kernels.columns, "tensor-core")) != NULL)
    gtk_column_view_column_set_visible (col, !tpu);
  if ((col = g_hash_table_lookup (self->kernels.columns, "occupancy")) != NULL)
    gtk_column_view_column_set_visible (col, !tpu);
}

/* Each row's performance model, by name. */
static void
attach_roofline (CpAnalysis *analysis,
                 GPtrArray  *items,
                 gboolean    host_ops)
{
  guint n;
  const CpRooflineStats *st = cp_analysis_get_roofline (analysis, host_ops, &n);
  g_autoptr(GHashTable) by_name = g_hash_table_new (NULL, NULL);

  for (guint k = 0; k < n; k++)
    g_hash_table_insert (by_name, GUINT_TO_POINTER (st[k].name), (gpointer) &st[k]);
  for (guint i = 0; i < items->len; i++)
    {
      CpStatItem *item = g_ptr_array_index (items, i);
      const CpRooflineStats *r = g_hash_table_lookup (by_name, GUINT_TO_POINTER (cp_stat_item_get_name_id (item)));

      if (r != NULL)
        cp_stat_item_set_roofline (item, r);
    }
}

static void show_by_source (CpKernelsPane *self,
                            Mode           mode);

static void
rebuild (CpKernelsPane *self)
{
  CpTrace *trace = cp_pane_get_trace (CP_PANE (self));
  CpAnalysis *analysis = cp_pane_get_analysis (CP_PANE (self));
  gboolean ready = cp_pane_is_ready (CP_PANE (self));
  g_autoptr(GPtrArray) kernels = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) ops = g_ptr_array_new_with_free_func (g_object_unref);

  gtk_label_set_text (self->detail, "");
  if (ready)
    {
      const CpKernelStats *ks;
      const CpHostOpStats *hs;
      guint n;

      relabel (self, cp_analysis_devices_are_tpu (analysis));
      ks = cp_analysis_get_kernels (analysis, &n);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (kernels, cp_stat_item_new_kernel (trace, &ks[i]));
      hs = cp_analysis_get_host_ops (analysis, &n);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (ops, cp_stat_item_new_host_op (trace, &hs[i]));
      attach_roofline (analysis, kernels, FALSE);
      attach_roofline (analysis, ops, TRUE);
    }
  cp_roofline_chart_set_analysis (self->chart, ready ? analysis : NULL);
  g_list_store_splice (self->kernels.store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->kernels.store)),
                       kernels->pdata, kernels->len);
  g_list_store_splice (self->ops.store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->ops.store)),
                       ops->pdata, ops->len);

  /* The module and code tables are of the old analysis: made again when
   * next shown. */
  g_cancellable_cancel (self->grouping);
  g_clear_object (&self->grouping);
  g_clear_object (&self->grouped);
  g_list_store_remove_all (self->modules.store);
  g_list_store_remove_all (self->code.store);
  gtk_widget_set_sensitive (GTK_WIDGET (self->modules_button), ready);
  gtk_widget_set_sensitive (GTK_WIDGET (self->code_button), ready);
  if (self->mode == MODE_MODULES || self->mode == MODE_CODE)
    show_by_source (self, self->mode);
}

/* Kernel time by module and by code line ---------------------------------- */

typedef struct
{
  GArray *modules;   /* CpSourceGroup */
  GArray *code;
} Grouped;

static void
grouped_free (Grouped *g)
{
  g_clear_pointer (&g->modules, g_array_unref);
  g_clear_pointer (&g->code, g_array_unref);
  g_free (g);
}

static void
grouping_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  CpAnalysis *analysis = task_data;
  Grouped *g = g_new0 (Grouped, 1);

  g->modules = cp_analysis_kernels_by_source (analysis, CP_SOURCE_MODULE, cancellable);
  g->code = cp_analysis_kernels_by_source (analysis, CP_SOURCE_FRAME, cancellable);
  if (g_cancellable_is_cancelled (cancellable))
    {
      grouped_free (g);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
      return;
    }
  g_task_return_pointer (task, g, (GDestroyNotify) grouped_free);
}

static void
fill_groups (Table      *t,
             CpTrace    *trace,
             GArray     *groups,
             gint64      all)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < groups->len; i++)
    g_ptr_array_add (items, cp_stat_item_new_group (trace, &g_array_index (groups, CpSourceGroup, i), all));
  g_list_store_splice (t->store, 0, g_list_model_get_n_items (G_LIST_MODEL (t->store)), items->pdata, items->len);
}

static void
grouping_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  CpKernelsPane *self = CP_KERNELS_PANE (source);
  CpAnalysis *analysis = g_task_get_task_data (G_TASK (result));
  Grouped *g = g_task_propagate_pointer (G_TASK (result), NULL);
  CpTrace *trace = cp_analysis_get_trace (analysis);
  gint64 all = cp_analysis_get_kernel_time (analysis);

  if (g == NULL)
    return;
  if (analysis != cp_pane_get_analysis (CP_PANE (self)))
    {
      grouped_free (g);
      return;
    }
  g_clear_object (&self->grouping);
  g_set_object (&self->grouped, analysis);
  fill_groups (&self->modules, trace, g->modules, all);
  fill_groups (&self->code, trace, g->code, all);
  grouped_free (g);
  gtk_spinner_stop (self->grouping_spinner);
  if (self->mode == MODE_MODULES || self->mode == MODE_CODE)
    {
      gtk_stack_set_visible_child_name (self->tables, self->mode == MODE_MODULES ? "modules" : "code");
      selection_changed_cb (current (self)->selection, NULL, self);
    }
}

/* Shows the module or code table, working both out on a thread first. */
static void
show_by_source (CpKernelsPane *self,
                Mode           mode)
{
  CpAnalysis *analysis = cp_pane_get_analysis (CP_PANE (self));

  self->mode = mode;
  self->showing_chart = FALSE;
  gtk_toggle_button_set_active (mode == MODE_MODULES ? self->modules_button : self->code_button, TRUE);
  if (analysis != NULL && self->grouped == analysis)
    {
      gtk_stack_set_visible_child_name (self->tables, mode == MODE_MODULES ? "modules" : "code");
      selection_changed_cb (current (self)->selection, NULL, self);
      return;
    }
  gtk_stack_set_visible_child_name (self->tables, "grouping");
  gtk_label_set_text (self->detail, "");
  if (analysis == NULL || self->grouping != NULL)
    return;
  {
    g_autoptr(GTask) task = NULL;

    self->grouping = g_cancellable_new ();
    task = g_task_new (self, self->grouping, grouping_done_cb, NULL);
    g_task_set_task_data (task, g_object_ref (analysis), g_object_unref);
    gtk_spinner_start (self->grouping_spinner);
    g_task_run_in_thread (task, grouping_thread);
  }
}

static void
cp_kernels_pane_changed (CpPane *pane)
{
  rebuild (CP_KERNELS_PANE (pane));
}

static void
toggled_cb (GtkToggleButton *button,
            CpKernelsPane   *self)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  if (button == self->roofline_button)
    cp_kernels_pane_show_roofline (self);
  else if (button == self->modules_button || button == self->code_button)
    show_by_source (self, button == self->modules_button ? MODE_MODULES : MODE_CODE);
  else
    cp_kernels_pane_show_kernels (self, button == self->kernels_button);
}

static void
search_changed_cb (GtkSearchEntry *entry,
                   CpKernelsPane  *self)
{
  cp_kernels_pane_set_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* A dot of the chart: select its kernel's row, as a click in the table does. */
static void
chart_activated_cb (CpRooflineChart *chart,
                    guint            name,
                    CpKernelsPane   *self)
{
  GListModel *model = G_LIST_MODEL (self->kernels.selection);
  guint n = g_list_model_get_n_items (model);

  for (int pass = 0; pass < 2; pass++)
    {
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(CpStatItem) item = g_list_model_get_item (model, i);

          if (cp_stat_item_get_name_id (item) == (CpStr) name)
            {
              gtk_single_selection_set_selected (self->kernels.selection, i);
              return;
            }
        }
      /* Hidden by the filter: clear it and look again. */
      gtk_editable_set_text (GTK_EDITABLE (self->search), "");
      n = g_list_model_get_n_items (model);
    }
}

/* GObject */

static void
cp_kernels_pane_dispose (GObject *object)
{
  CpKernelsPane *self = (CpKernelsPane *) object;

  g_cancellable_cancel (self->grouping);
  g_clear_object (&self->grouping);
  g_clear_object (&self->grouped);
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_KERNELS_PANE);
  table_clear (&self->kernels);
  table_clear (&self->ops);
  table_clear (&self->modules);
  table_clear (&self->code);
  G_OBJECT_CLASS (cp_kernels_pane_parent_class)->dispose (object);
}

static void
cp_kernels_pane_class_init (CpKernelsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpPaneClass *pane_class = CP_PANE_CLASS (klass);

  object_class->dispose = cp_kernels_pane_dispose;
  pane_class->trace_changed = cp_kernels_pane_changed;
  pane_class->analysis_changed = cp_kernels_pane_changed;
  cp_pane_class_set_waits_for_analysis (pane_class, TRUE);

  g_type_ensure (CP_TYPE_ROOFLINE_CHART);
  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "kernels");
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, tables);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, kernels_button);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, ops_button);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, modules_button);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, code_button);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, grouping_spinner);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, modules_view);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, code_view);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, roofline_button);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, chart);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, search);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, detail);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, kernels_view);
  gtk_widget_class_bind_template_child (widget_class, CpKernelsPane, ops_view);
  gtk_widget_class_bind_template_callback (widget_class, toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
}

static void
cp_kernels_pane_init (CpKernelsPane *self)
{
  self->mode = MODE_KERNELS;
  gtk_widget_init_template (GTK_WIDGET (self));
  table_init (self, &self->kernels, self->kernels_view, kernel_columns, G_N_ELEMENTS (kernel_columns));
  table_init (self, &self->ops, self->ops_view, op_columns, G_N_ELEMENTS (op_columns));
  table_init (self, &self->modules, self->modules_view, module_columns, G_N_ELEMENTS (module_columns));
  table_init (self, &self->code, self->code_view, code_columns, G_N_ELEMENTS (code_columns));
  g_signal_connect (self->chart, "kernel-activated", G_CALLBACK (chart_activated_cb), self);
  rebuild (self);
}

GtkWidget *
cp_kernels_pane_new (void)
{
  return g_object_new (CP_TYPE_KERNELS_PANE, NULL);
}

void
cp_kernels_pane_show_kernels (CpKernelsPane *self,
                              gboolean       kernels)
{
  g_return_if_fail (CP_IS_KERNELS_PANE (self));

  self->mode = kernels ? MODE_KERNELS : MODE_OPS;
  self->showing_chart = FALSE;
  gtk_toggle_button_set_active (kernels ? self->kernels_button : self->ops_button, TRUE);
  gtk_stack_set_visible_child_name (self->tables, kernels ? "kernels" : "ops");
  selection_changed_cb (current (self)->selection, NULL, self);
}

void
cp_kernels_pane_show_roofline (CpKernelsPane *self)
{
  g_return_if_fail (CP_IS_KERNELS_PANE (self));

  /* The chart stands for the kernels table: its rows, selection and detail. */
  self->mode = MODE_KERNELS;
  self->showing_chart = TRUE;
  gtk_toggle_button_set_active (self->roofline_button, TRUE);
  gtk_stack_set_visible_child_name (self->tables, "roofline");
  selection_changed_cb (self->kernels.selection, NULL, self);
}

CpRooflineChart *
cp_kernels_pane_get_roofline_chart (CpKernelsPane *self)
{
  g_return_val_if_fail (CP_IS_KERNELS_PANE (self), NULL);
  return self->chart;
}

guint
cp_kernels_pane_get_n_rows (CpKernelsPane *self)
{
  g_return_val_if_fail (CP_IS_KERNELS_PANE (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (current (self)->selection));
}

const char *
cp_kernels_pane_get_row_name (CpKernelsPane *self,
                              guint          row)
{
  g_autoptr(CpStatItem) item = NULL;

  g_return_val_if_fail (CP_IS_KERNELS_PANE (self), NULL);

  item = g_list_model_get_item (G_LIST_MODEL (current (self)->selection), row);
  /* The store keeps the item alive. */
  return item ? cp_stat_item_get_name (item) : NULL;
}

void
cp_kernels_pane_select_row (CpKernelsPane *self,
                            guint          row)
{
  g_return_if_fail (CP_IS_KERNELS_PANE (self));
  gtk_single_selection_set_selected (current (self)->selection, row);
}

gboolean
cp_kernels_pane_sort_by (CpKernelsPane *self,
                         const char    *column,
                         gboolean       descending)
{
  GtkColumnViewColumn *col;

  g_return_val_if_fail (CP_IS_KERNELS_PANE (self), FALSE);

  col = g_hash_table_lookup (current (self)->columns, column);
  if (col == NULL)
    return FALSE;
  gtk_column_view_sort_by_column (current (self)->view, col,
                                  descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
  return TRUE;
}

void
cp_kernels_pane_set_filter (CpKernelsPane *self,
                            const char    *text)
{
  g_return_if_fail (CP_IS_KERNELS_PANE (self));

  gtk_string_filter_set_search (self->kernels.filter, text && *text ? text : NULL);
  gtk_string_filter_set_search (self->ops.filter, text && *text ? text : NULL);
  gtk_string_filter_set_search (self->modules.filter, text && *text ? text : NULL);
  gtk_string_filter_set_search (self->code.filter, text && *text ? text : NULL);
}

void
cp_kernels_pane_show_by_source (CpKernelsPane *self,
                                CpSourceKind   kind)
{
  g_return_if_fail (CP_IS_KERNELS_PANE (self));
  g_return_if_fail (kind == CP_SOURCE_MODULE || kind == CP_SOURCE_FRAME);

  show_by_source (self, kind == CP_SOURCE_MODULE ? MODE_MODULES : MODE_CODE);
}

gboolean
cp_kernels_pane_is_grouping (CpKernelsPane *self)
{
  g_return_val_if_fail (CP_IS_KERNELS_PANE (self), FALSE);
  return self->grouping != NULL;
}
