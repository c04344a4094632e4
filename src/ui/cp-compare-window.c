/* cp-compare-window.c: two captures side by side, A (before) and B (after)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cp-compare-window.h"
#include "cp-format.h"
#include "cp-timeline-view.h"
#include "formats/cp-loader.h"
#include "render/cp-report.h"
#include "render/cp-time-format.h"

/* A row of the Kernels and Host Ops tables: one matched item. ------------ */

#define CP_TYPE_COMPARE_ROW (cp_compare_row_get_type ())
G_DECLARE_FINAL_TYPE (CpCompareRow, cp_compare_row, CP, COMPARE_ROW, GObject)

struct _CpCompareRow
{
  GObject              parent_instance;
  const CpCompareItem *item;        /* owned by the comparison, which outlives the tables */
  CpComparison        *comparison;  /* the item's; the window holds it */
};

G_DEFINE_FINAL_TYPE (CpCompareRow, cp_compare_row, G_TYPE_OBJECT)

enum { ROW_PROP_0, ROW_PROP_KEY, ROW_N_PROPS };
static GParamSpec *row_properties[ROW_N_PROPS];

static void
cp_compare_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CpCompareRow *self = CP_COMPARE_ROW (object);

  switch (prop_id)
    {
    case ROW_PROP_KEY:
      g_value_set_string (value, self->item->key);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_compare_row_class_init (CpCompareRowClass *klass)
{
  G_OBJECT_CLASS (klass)->get_property = cp_compare_row_get_property;
  row_properties[ROW_PROP_KEY] =
    g_param_spec_string ("key", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (G_OBJECT_CLASS (klass), ROW_N_PROPS, row_properties);
}

static void
cp_compare_row_init (CpCompareRow *self)
{
}

static CpCompareRow *
cp_compare_row_new (CpComparison        *comparison,
                    const CpCompareItem *item)
{
  CpCompareRow *row = g_object_new (CP_TYPE_COMPARE_ROW, NULL);

  row->item = item;
  row->comparison = comparison;
  return row;
}

/* The window ------------------------------------------------------------ */

typedef enum
{
  COL_NAME,
  COL_A,
  COL_B,
  COL_DELTA,
  COL_RATIO,
} Column;

struct _CpCompareWindow
{
  AdwApplicationWindow  parent_instance;

  AdwToastOverlay      *toast_overlay;
  GtkStack             *main_stack;
  GtkProgressBar       *progress_a;
  GtkProgressBar       *progress_b;
  AdwStatusPage        *error_page;
  AdwViewStack         *view_stack;

  GFile                *files[2];
  CpTrace              *traces[2];
  CpAnalysis           *analyses[2];
  GCancellable         *cancellable;
  guint                 pending;      /* loads and analyses still running */
  gboolean              failed;
  gboolean              disposed;     /* closed: late callbacks only count */
  char                 *error_text;
  CpComparison         *comparison;
  CpComparison         *by_op;        /* kernels by launching op, once asked for */
  gboolean              by_op_running;

  GtkStack             *kernel_stack; /* "by-name", "by-op" (or "by-op-busy") */
  GtkWidget            *by_op_button;
  GtkStack             *op_stack;     /* "by-name", "by-path" */

  GtkWidget            *waterfall;
  GtkWidget            *timelines[2];
  CpViewState          *views[2];     /* the timelines' view states */
  GtkWidget            *typical_spins[2];
  GtkWidget            *anchor_labels[2];  /* where each side's typical step starts */
  GtkWidget            *lock_button;
  gint64                anchors[2];   /* each side's typical step start, ns */
  gboolean              syncing;
};

G_DEFINE_FINAL_TYPE (CpCompareWindow, cp_compare_window, ADW_TYPE_APPLICATION_WINDOW)

static const char *
side_letter (guint side)
{
  return side == 0 ? "A" : "B";
}

static char *
file_display_name (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  return base != NULL ? g_strdup (base) : g_file_get_uri (file);
}

/* A side's name for its headers: the file name, with its folder when both
 * sides' file names are the same (worker0.pt.trace.json.gz twice). */
static char *
side_name (GFile *file,
           GFile *other)
{
  g_autofree char *name = file_display_name (file);
  g_autofree char *other_name = file_display_name (other);
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *folder = parent != NULL ? g_file_get_basename (parent) : NULL;

  if (g_strcmp0 (name, other_name) != 0 || folder == NULL)
    return g_steal_pointer (&name);
  return g_build_filename (folder, name, NULL);
}

static char *
format_signed_duration (gint64 ns)
{
  g_autofree char *abs = cp_ui_format_duration (ns < 0 ? -ns : ns);

  /* U+2212 MINUS SIGN, as the report writes it. */
  return g_strdup_printf ("%s%s", ns > 0 ? "+" : ns < 0 ? "\xe2\x88\x92" : "", abs);
}

/* Failure ----------------------------------------------------------------- */

static void
show_error (CpCompareWindow *self,
            const char      *title,
            const char      *text)
{
  if (self->failed || self->disposed)
    return;
  self->failed = TRUE;
  g_free (self->error_text);
  self->error_text = g_strdup (text);
  adw_status_page_set_title (self->error_page, title);
  adw_status_page_set_description (self->error_page, text);
  gtk_stack_set_visible_child_name (self->main_stack, "error");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.export", FALSE);
  /* The other side's work is of no use now. */
  g_cancellable_cancel (self->cancellable);
}

static void
fail_with (CpCompareWindow *self,
           const GError    *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, _("Comparison Cancelled"), _("Reading the captures was cancelled."));
  else
    show_error (self, _("Cannot Compare"), error->message);
}

/* Timelines --------------------------------------------------------------- */

static CpViewState *
side_view (CpCompareWindow *self,
           guint            side)
{
  return self->views[side];
}

static void
update_anchors (CpCompareWindow *self)
{
  for (guint side = 0; side < 2; side++)
    {
      guint n;
      const CpStepStats *steps = cp_analysis_get_steps (self->analyses[side], &n);
      gint typical = cp_comparison_get_typical_step (self->comparison, side);

      self->anchors[side] = typical >= 0 && (guint) typical < n ? steps[typical].start : 0;
    }
}

/* Both views from their typical step's start, for as long as the longer
 * typical step (the whole capture without steps). */
static void
align_views (CpCompareWindow *self)
{
  gint64 span = 0;

  update_anchors (self);
  for (guint side = 0; side < 2; side++)
    {
      guint n;
      const CpStepStats *steps = cp_analysis_get_steps (self->analyses[side], &n);
      gint typical = cp_comparison_get_typical_step (self->comparison, side);

      if (typical >= 0 && (guint) typical < n)
        span = MAX (span, steps[typical].end - steps[typical].start);
      else
        span = MAX (span, cp_trace_get_duration (self->traces[side]));
    }
  span = MAX (span, 1000);
  for (guint side = 0; side < 2; side++)
    if (self->anchor_labels[side] != NULL)
      {
        g_autofree char *at = cp_time_format_offset (self->anchors[side]);
        /* Translators: where the typical step starts in its capture; the
         * rulers count from there. */
        g_autofree char *text = g_strdup_printf (_("step starts at %s"), at);

        gtk_label_set_text (GTK_LABEL (self->anchor_labels[side]), text);
      }
  self->syncing = TRUE;
  for (guint side = 0; side < 2; side++)
    {
      /* One time axis: both rulers count from their typical step. */
      cp_view_state_set_ruler_origin (side_view (self, side), self->anchors[side]);
      cp_view_state_set_visible_range (side_view (self, side), self->anchors[side],
                                       self->anchors[side] + span);
    }
  self->syncing = FALSE;
}

/* The item a slice stands for: a kernel by its (folded) name, a host op
 * by its name; NULL for anything else. */
static const CpCompareItem *
item_for_slice (CpCompareWindow *self,
                guint            side,
                CpSliceRef       ref)
{
  CpTrace *trace = self->traces[side];
  CpLane *lane;
  const char *name;

  if (ref.lane >= cp_trace_get_n_lanes (trace))
    return NULL;
  lane = cp_trace_get_lane (trace, ref.lane);
  name = cp_trace_get_string (trace, cp_slices_get_name (cp_lane_get_slices (lane), ref.index));
  if (name == NULL)
    return NULL;
  if (cp_lane_get_kind (lane) == CP_LANE_KERNEL &&
      cp_comparison_get_kernel_key (self->comparison) == CP_COMPARE_KERNELS_BY_NAME)
    {
      g_autofree char *key = cp_compare_normalise_kernel_name (name);
      guint n;
      const CpCompareItem *items = cp_comparison_get_kernels (self->comparison, &n);

      for (guint i = 0; i < n; i++)
        if (g_strcmp0 (items[i].key, key) == 0)
          return &items[i];
      return NULL;
    }
  if (cp_lane_get_kind (lane) == CP_LANE_HOST_THREAD)
    {
      guint n;
      const CpCompareItem *items = cp_comparison_get_host_ops (self->comparison, &n);

      for (guint i = 0; i < n; i++)
        if (g_strcmp0 (items[i].key, name) == 0)
          return &items[i];
    }
  return NULL;
}

/* Outlines the slices item (of comparison) stands for on both timelines
 * (none: clears). */
static void
highlight_item (CpCompareWindow     *self,
                CpComparison        *comparison,
                const CpCompareItem *item)
{
  for (guint side = 0; side < 2; side++)
    {
      g_autoptr(GArray) refs = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));

      if (item != NULL)
        cp_comparison_collect_slices (comparison, item, side, refs);
      cp_view_state_set_search_matches (side_view (self, side), (const CpSliceRef *) refs->data,
                                        refs->len);
    }
}

static void
view_changed_cb (CpViewState *view,
                 guint        what,
                 gpointer     user_data)
{
  CpCompareWindow *self = user_data;
  guint side = view == side_view (self, 0) ? 0 : 1;
  guint other = 1 - side;

  if (self->syncing)
    return;
  if ((what & CP_VIEW_CHANGE_SELECTION) != 0)
    {
      CpSliceRef ref = cp_view_state_get_selected (view);

      self->syncing = TRUE;
      if (cp_slice_ref_is_none (ref))
        highlight_item (self, self->comparison, NULL);
      else
        highlight_item (self, self->comparison, item_for_slice (self, side, ref));
      self->syncing = FALSE;
    }
  if ((what & CP_VIEW_CHANGE_RANGE) != 0 && cp_compare_window_get_locked (self))
    {
      gint64 offset = self->anchors[other] - self->anchors[side];

      self->syncing = TRUE;
      cp_view_state_set_visible_range (side_view (self, other),
                                       cp_view_state_get_visible_start (view) + offset,
                                       cp_view_state_get_visible_end (view) + offset);
      self->syncing = FALSE;
    }
}

static void
typical_spin_cb (GtkSpinButton *spin,
                 gpointer       user_data)
{
  CpCompareWindow *self = user_data;
  guint side = GTK_WIDGET (spin) == self->typical_spins[0] ? 0 : 1;
  int value = gtk_spin_button_get_value_as_int (spin);

  if (value >= 1 && cp_comparison_get_typical_step (self->comparison, side) != value - 1)
    cp_compare_window_set_typical_step (self, side, value - 1);
}

static void
lock_toggled_cb (GtkToggleButton *button,
                 gpointer         user_data)
{
  CpCompareWindow *self = user_data;

  /* Locking again brings B back in line with A. */
  if (gtk_toggle_button_get_active (button) && self->comparison != NULL)
    view_changed_cb (side_view (self, 0), CP_VIEW_CHANGE_RANGE, self);
}

static GtkWidget *
build_side (CpCompareWindow *self,
            guint            side)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *title, *spin, *label, *view;
  g_autoptr(CpViewState) state = cp_view_state_new ();
  g_autofree char *name = side_name (self->files[side], self->files[1 - side]);
  g_autofree char *escaped = g_markup_escape_text (name, -1);
  g_autofree char *text = g_strdup_printf ("<b>%s</b>  %s", side_letter (side), escaped);
  g_autofree char *widget_name = g_strdup_printf ("typical-%s", side == 0 ? "a" : "b");
  guint n_steps;

  cp_analysis_get_steps (self->analyses[side], &n_steps);
  gtk_widget_add_css_class (header, "toolbar");
  title = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (title), text);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_set_tooltip_text (title, name);
  gtk_box_append (GTK_BOX (header), title);

  label = gtk_label_new_with_mnemonic (_("Typical _step"));
  spin = gtk_spin_button_new_with_range (1, MAX (n_steps, 1), 1);
  gtk_widget_set_name (spin, widget_name);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), spin);
  gtk_widget_set_sensitive (spin, n_steps > 0);
  gtk_widget_set_tooltip_text (spin, _("The step both timelines are aligned at"));
  if (cp_comparison_get_typical_step (self->comparison, side) >= 0)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin),
                               cp_comparison_get_typical_step (self->comparison, side) + 1);
  g_signal_connect_object (spin, "value-changed", G_CALLBACK (typical_spin_cb), self, 0);
  self->typical_spins[side] = spin;
  gtk_box_append (GTK_BOX (header), label);
  gtk_box_append (GTK_BOX (header), spin);
  self->anchor_labels[side] = gtk_label_new (NULL);
  gtk_widget_set_name (self->anchor_labels[side], side == 0 ? "anchor-a" : "anchor-b");
  gtk_widget_add_css_class (self->anchor_labels[side], "dim-label");
  gtk_widget_add_css_class (self->anchor_labels[side], "numeric");
  gtk_box_append (GTK_BOX (header), self->anchor_labels[side]);
  gtk_box_append (GTK_BOX (box), header);

  view = cp_timeline_view_new ();
  gtk_widget_set_name (view, side == 0 ? "timeline-a" : "timeline-b");
  gtk_widget_set_hexpand (view, TRUE);
  gtk_widget_set_vexpand (view, TRUE);
  cp_view_state_set_trace (state, self->traces[side]);
  /* Kernels are what matches best between two captures: devices on top. */
  cp_view_state_set_devices_first (state, TRUE);
  cp_timeline_view_set_view_state (CP_TIMELINE_VIEW (view), state);
  cp_timeline_view_set_trace (CP_TIMELINE_VIEW (view), self->traces[side]);
  g_signal_connect (state, "changed", G_CALLBACK (view_changed_cb), self);
  self->views[side] = g_object_ref (state);
  self->timelines[side] = view;
  gtk_box_append (GTK_BOX (row), view);
  gtk_box_append (GTK_BOX (row),
                  gtk_scrollbar_new (GTK_ORIENTATION_VERTICAL,
                                     cp_timeline_view_get_vadjustment (CP_TIMELINE_VIEW (view))));
  gtk_widget_set_vexpand (row, TRUE);
  gtk_box_append (GTK_BOX (box), row);
  return box;
}

static GtkWidget *
build_timelines_page (CpCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *align = gtk_button_new_with_mnemonic (_("_Align at Typical Steps"));

  gtk_widget_add_css_class (bar, "toolbar");
  self->lock_button = gtk_toggle_button_new_with_mnemonic (_("_Lock Scroll and Zoom"));
  gtk_widget_set_name (self->lock_button, "lock");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->lock_button), TRUE);
  gtk_widget_set_tooltip_text (self->lock_button,
                               _("Scroll and zoom both timelines together, aligned at the typical steps"));
  g_signal_connect_object (self->lock_button, "toggled", G_CALLBACK (lock_toggled_cb), self, 0);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (align), "compare.align");
  gtk_box_append (GTK_BOX (bar), self->lock_button);
  gtk_box_append (GTK_BOX (bar), align);
  gtk_box_append (GTK_BOX (box), bar);

  gtk_paned_set_start_child (GTK_PANED (paned), build_side (self, 0));
  gtk_paned_set_end_child (GTK_PANED (paned), build_side (self, 1));
  gtk_paned_set_resize_start_child (GTK_PANED (paned), TRUE);
  gtk_paned_set_resize_end_child (GTK_PANED (paned), TRUE);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), paned);
  return box;
}

/* The Compare page -------------------------------------------------------- */

#define WF_ROW 26.0
#define WF_LABEL 200.0
#define WF_VALUE 110.0
#define WF_KERNELS 8

static void
set_source_rgba (cairo_t *cr,
                 guint32  rgba,
                 double   alpha)
{
  cairo_set_source_rgba (cr, ((rgba >> 24) & 0xff) / 255.0, ((rgba >> 16) & 0xff) / 255.0,
                         ((rgba >> 8) & 0xff) / 255.0, alpha);
}

static void
draw_text (GtkWidget  *widget,
           cairo_t    *cr,
           const char *text,
           double      x,
           double      y,
           double      width,
           gboolean    right)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, text);
  int w, h;

  pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
  pango_layout_set_alignment (layout, right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x, y + (WF_ROW - h) / 2);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

/* One row of a chart: a label, a bar from `from` to `to` on the scale
 * [lo, hi] and the value written at the right. */
static void
draw_bar (GtkWidget  *widget,
          cairo_t    *cr,
          double      y,
          double      width,
          const char *label,
          const char *value,
          double      from,
          double      to,
          double      lo,
          double      hi,
          guint32     rgba)
{
  GdkRGBA fg;
  double bx = WF_LABEL, bw = MAX (width - WF_LABEL - WF_VALUE - 12, 40);
  gboolean cut = MIN (from, to) < lo;
  double x0 = bx + (MAX (MIN (from, to), lo) - lo) / (hi - lo) * bw;
  double x1 = bx + (MAX (from, to) - lo) / (hi - lo) * bw;

#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, &fg);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
#endif
  gdk_cairo_set_source_rgba (cr, &fg);
  draw_text (widget, cr, label, 0, y, WF_LABEL - 8, FALSE);
  draw_text (widget, cr, value, width - WF_VALUE, y, WF_VALUE, TRUE);
  set_source_rgba (cr, rgba, 0.85);
  cairo_rectangle (cr, x0, y + 4, MAX (x1 - x0, 1.5), WF_ROW - 8);
  cairo_fill (cr);
  if (cut)
    {
      /* The bar starts below the scale: a break in it says so. */
      cairo_save (cr);
      cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);
      cairo_set_line_width (cr, 3);
      cairo_move_to (cr, x0 + 6, y + WF_ROW - 3);
      cairo_line_to (cr, x0 + 12, y + 3);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
}

/* The step time of A, each category's change per step (from the running
 * sum before it to the one after), the step time of B; then the kernels
 * that changed most, as bars diverging from zero. */
static void
draw_waterfall (GtkDrawingArea *area,
                cairo_t        *cr,
                int             width,
                int             height,
                gpointer        user_data)
{
  CpCompareWindow *self = user_data;
  GtkWidget *widget = GTK_WIDGET (area);
  const CpCompareItem *items[CP_TIME_N_CATEGORIES];
  const guint32 grey = 0x77767bff, slower = 0xe01b24ff, faster = 0x2ec27eff;
  guint n, n_kernels;
  const CpCompareItem *kernels;
  gint64 mean_a, mean_b, run, lo, hi, kmax = 1;
  double y = 0;

  if (self->comparison == NULL)
    return;
  n = cp_comparison_explain (self->comparison, items);
  cp_comparison_get_step_time (self->comparison, &mean_a, &mean_b, NULL, NULL);

  /* The scale spans every running sum and both step times; when they
   * differ little against the step time it starts above 0 (the step
   * times' bars are cut, with a mark), so that the changes show. */
  lo = MIN (mean_a, mean_b);
  hi = MAX (MAX (mean_a, mean_b), 1);
  run = mean_a;
  for (guint i = 0; i < n; i++)
    {
      run += items[i]->delta;
      lo = MIN (lo, run);
      hi = MAX (hi, run);
    }
  if (lo > 0 && hi - lo < hi / 2)
    lo = MAX (lo - (hi - lo), 0);
  else
    lo = MIN (lo, 0);
  hi = MAX (hi, lo + 1);

  {
    g_autofree char *value = cp_ui_format_duration (mean_a);

    draw_bar (widget, cr, y, width, _("Step time of A"), value, 0, mean_a, lo, hi, grey);
    y += WF_ROW;
  }
  run = mean_a;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *value = format_signed_duration (items[i]->delta);

      draw_bar (widget, cr, y, width, cp_time_category_get_label (items[i]->id), value,
                run, run + items[i]->delta, lo, hi, items[i]->delta > 0 ? slower : faster);
      run += items[i]->delta;
      y += WF_ROW;
    }
  {
    g_autofree char *value = cp_ui_format_duration (mean_b);

    draw_bar (widget, cr, y, width, _("Step time of B"), value, 0, mean_b, lo, hi, grey);
    y += WF_ROW * 2;
  }

  kernels = cp_comparison_get_kernels (self->comparison, &n_kernels);
  n_kernels = MIN (n_kernels, WF_KERNELS);
  for (guint i = 0; i < n_kernels; i++)
    kmax = MAX (kmax, ABS (kernels[i].delta));
  for (guint i = 0; i < n_kernels; i++)
    {
      g_autofree char *value = format_signed_duration (kernels[i].delta);
      g_autofree char *label = cp_ui_format_short_name (kernels[i].key);

      draw_bar (widget, cr, y, width, label, value, 0, kernels[i].delta, -kmax, kmax,
                kernels[i].delta > 0 ? slower : faster);
      y += WF_ROW;
    }
}

static guint
waterfall_rows (CpCompareWindow *self)
{
  const CpCompareItem *items[CP_TIME_N_CATEGORIES];
  guint n_kernels;

  cp_comparison_get_kernels (self->comparison, &n_kernels);
  return cp_comparison_explain (self->comparison, items) + 3 + MIN (n_kernels, WF_KERNELS);
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_top (label, 12);
  return label;
}

static GtkWidget *
named_label (const char *name,
             const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_set_name (label, name);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  return label;
}

/* How a finding changed from A to B, for its row's subtitle. */
static char *
finding_change_text (const CpCompareFinding *f)
{
  const char *a = f->a != NULL ? cp_severity_get_label (cp_finding_get_severity (f->a)) : NULL;
  const char *b = f->b != NULL ? cp_severity_get_label (cp_finding_get_severity (f->b)) : NULL;

  switch (f->change)
    {
    case CP_COMPARE_FINDING_APPEARED:
      /* Translators: a finding only B has, with its severity. */
      return g_strdup_printf (_("New in B · %s"), b);
    case CP_COMPARE_FINDING_DISAPPEARED:
      /* Translators: a finding only A has, with its severity there. */
      return g_strdup_printf (_("Gone in B · was %s"), a);
    case CP_COMPARE_FINDING_WORSE:
      /* Translators: a finding on both sides, severity in A → in B. */
      return g_strdup_printf (_("Worse · %s → %s"), a, b);
    case CP_COMPARE_FINDING_BETTER:
      return g_strdup_printf (_("Better · %s → %s"), a, b);
    case CP_COMPARE_FINDING_SAME:
    default:
      return g_strdup_printf (_("Unchanged · %s"), b != NULL ? b : a);
    }
}

/* The findings of both sides, what changed first (in the comparison's
 * order: B's findings, then those gone from A), then those unchanged. */
static GtkWidget *
build_findings_list (CpCompareWindow *self)
{
  GtkWidget *list = gtk_list_box_new ();
  guint n;
  const CpCompareFinding *fs = cp_comparison_get_findings (self->comparison, &n);

  gtk_widget_set_name (list, "finding-changes");
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        const CpCompareFinding *f = &fs[i];
        CpFinding *shown = f->b != NULL ? f->b : f->a;
        g_autofree char *name = g_strconcat ("finding-", f->rule_id, NULL);
        g_autofree char *change = NULL;
        GtkWidget *row, *icon;

        if ((f->change == CP_COMPARE_FINDING_SAME) != (pass == 1))
          continue;
        change = finding_change_text (f);
        row = adw_action_row_new ();
        gtk_widget_set_name (row, name);
        adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
        adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), f->title);
        adw_action_row_set_subtitle (ADW_ACTION_ROW (row), change);
        icon = gtk_image_new_from_icon_name (cp_severity_get_icon_name (cp_finding_get_severity (shown)));
        gtk_widget_add_css_class (icon, cp_ui_severity_css_class (cp_finding_get_severity (shown)));
        if (f->change == CP_COMPARE_FINDING_DISAPPEARED || f->change == CP_COMPARE_FINDING_SAME)
          gtk_widget_add_css_class (icon, "dim-label");
        adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
        gtk_list_box_append (GTK_LIST_BOX (list), row);
      }
  return list;
}

static GtkWidget *
build_compare_page (CpCompareWindow *self)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *headline;
  const char * const *notes = cp_comparison_get_notes (self->comparison);
  gint64 mean_a, mean_b, delta;
  double percent;
  g_autofree char *a = NULL, *b = NULL, *d = NULL, *p = NULL, *text = NULL;
  g_autofree char *name_a = side_name (self->files[0], self->files[1]);
  g_autofree char *name_b = side_name (self->files[1], self->files[0]);

  cp_comparison_get_step_time (self->comparison, &mean_a, &mean_b, &delta, &percent);
  a = cp_ui_format_duration (mean_a);
  b = cp_ui_format_duration (mean_b);
  d = format_signed_duration (delta);
  /* The same minus sign as the durations'. */
  p = isnan (percent) ? g_strdup ("—")
                      : g_strdup_printf ("%s%.1f%%", percent < 0 ? "\xe2\x88\x92" : "+", fabs (percent));

  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 960);
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);

  text = g_strdup_printf ("%s → %s", a, b);
  headline = named_label ("step-time", text);
  gtk_widget_add_css_class (headline, "title-1");
  gtk_box_append (GTK_BOX (box), headline);
  g_free (text);
  /* Translators: the change of the mean step time from A to B: "+30 ms (+25.0%)". */
  text = g_strdup_printf (_("%s (%s) per step"), d, p);
  gtk_box_append (GTK_BOX (box), named_label ("step-delta", text));
  g_free (text);
  text = g_strdup_printf (_("A: %s\nB: %s"), name_a, name_b);
  gtk_box_append (GTK_BOX (box), named_label ("files", text));

  gtk_box_append (GTK_BOX (box), heading (_("What Changed the Step Time")));
  gtk_box_append (GTK_BOX (box),
                  named_label ("waterfall-caption",
                               _("Categories of the step, per step, largest change first; "
                                 "then the kernels that changed most")));
  self->waterfall = gtk_drawing_area_new ();
  gtk_widget_set_name (self->waterfall, "waterfall");
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->waterfall),
                                       (int) (waterfall_rows (self) * WF_ROW));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->waterfall), draw_waterfall, self, NULL);
  gtk_box_append (GTK_BOX (box), self->waterfall);

  gtk_box_append (GTK_BOX (box), heading (_("How the Findings Changed")));
  {
    guint n_findings;

    cp_comparison_get_findings (self->comparison, &n_findings);
    if (n_findings > 0)
      gtk_box_append (GTK_BOX (box), build_findings_list (self));
    else
      gtk_box_append (GTK_BOX (box), named_label ("no-findings", _("Neither capture has a finding.")));
  }

  if (notes != NULL && notes[0] != NULL)
    {
      gtk_box_append (GTK_BOX (box), heading (_("Not Comparable")));
      for (guint i = 0; notes[i] != NULL; i++)
        gtk_box_append (GTK_BOX (box), named_label ("note", notes[i]));
    }

  adw_clamp_set_child (ADW_CLAMP (clamp), box);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), clamp);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  return scrolled;
}

/* The Kernels and Host Ops tables ---------------------------------------- */

static char *
cell_text (const CpCompareItem *item,
           Column               column)
{
  switch (column)
    {
    case COL_NAME:
      return g_strdup (item->key);
    case COL_A:
      return item->side == CP_COMPARE_ONLY_B ? g_strdup ("—") : cp_ui_format_duration (item->a.per_step);
    case COL_B:
      return item->side == CP_COMPARE_ONLY_A ? g_strdup ("—") : cp_ui_format_duration (item->b.per_step);
    case COL_DELTA:
      return format_signed_duration (item->delta);
    case COL_RATIO:
    default:
      if (item->side == CP_COMPARE_ONLY_A)
        return g_strdup (_("only in A"));
      if (item->side == CP_COMPARE_ONLY_B)
        return g_strdup (_("only in B"));
      return isnan (item->ratio) ? g_strdup ("—") : g_strdup_printf ("%.2f×", item->ratio);
    }
}

static void
cell_setup (GtkSignalListItemFactory *factory,
            GtkListItem              *list_item,
            gpointer                  user_data)
{
  Column column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), column == COL_NAME ? 0 : 1);
  if (column == COL_NAME)
    gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  else
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (list_item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory,
           GtkListItem              *list_item,
           gpointer                  user_data)
{
  Column column = GPOINTER_TO_INT (user_data);
  CpCompareRow *row = gtk_list_item_get_item (list_item);
  GtkWidget *label = gtk_list_item_get_child (list_item);
  g_autofree char *text = cell_text (row->item, column);

  gtk_label_set_text (GTK_LABEL (label), text);
  if (column == COL_NAME)
    {
      const char *full = row->item->name_b != NULL ? row->item->name_b : row->item->name_a;

      gtk_widget_set_tooltip_text (label, full != NULL ? full : row->item->key);
    }
}

static int
compare_numbers (double a,
                 double b)
{
  /* NAN (no ratio) sorts first. */
  if (isnan (a) || isnan (b))
    return isnan (a) == isnan (b) ? 0 : isnan (a) ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

static int
row_compare (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  const CpCompareItem *x = ((const CpCompareRow *) a)->item;
  const CpCompareItem *y = ((const CpCompareRow *) b)->item;

  switch ((Column) GPOINTER_TO_INT (user_data))
    {
    case COL_NAME:
      return g_strcmp0 (x->key, y->key);
    case COL_A:
      return compare_numbers (x->a.per_step, y->a.per_step);
    case COL_B:
      return compare_numbers (x->b.per_step, y->b.per_step);
    case COL_DELTA:
      return compare_numbers (x->delta, y->delta);
    case COL_RATIO:
    default:
      return compare_numbers (x->ratio, y->ratio);
    }
}

static void
row_activated_cb (GtkColumnView *view,
                  guint          position,
                  gpointer       user_data)
{
  CpCompareWindow *self = user_data;
  g_autoptr(CpCompareRow) row = g_list_model_get_item (G_LIST_MODEL (gtk_column_view_get_model (view)),
                                                       position);

  if (row == NULL)
    return;
  highlight_item (self, row->comparison, row->item);
  adw_view_stack_set_visible_child_name (self->view_stack, "timelines");
}

static void
filter_changed_cb (GtkSearchEntry  *entry,
                   GtkStringFilter *filter)
{
  gtk_string_filter_set_search (filter, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static GtkWidget *
build_table (CpCompareWindow     *self,
             CpComparison        *comparison,
             const char          *name,
             const char          *name_title,
             const CpCompareItem *items,
             guint                n_items)
{
  static const char *const titles[] = { NULL, N_("A per Step"), N_("B per Step"), N_("Delta"), N_("Ratio") };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *entry = gtk_search_entry_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  g_autofree char *entry_name = g_strconcat (name, "-filter", NULL);
  GListStore *store = g_list_store_new (CP_TYPE_COMPARE_ROW);
  GtkStringFilter *filter;
  GtkFilterListModel *filtered;
  GtkSortListModel *sorted;
  GtkColumnView *view;
  GtkColumnViewColumn *delta_column = NULL;

  for (guint i = 0; i < n_items; i++)
    {
      g_autoptr(CpCompareRow) row = cp_compare_row_new (comparison, &items[i]);

      g_list_store_append (store, row);
    }
  /* The filter model owns the filter; the entry's handler holds a reference. */
  filter = gtk_string_filter_new (gtk_property_expression_new (CP_TYPE_COMPARE_ROW, NULL, "key"));
  gtk_string_filter_set_match_mode (filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (filter, TRUE);
  filtered = gtk_filter_list_model_new (G_LIST_MODEL (store), GTK_FILTER (filter));
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (filtered), NULL);
  view = GTK_COLUMN_VIEW (gtk_column_view_new (GTK_SELECTION_MODEL (gtk_single_selection_new (G_LIST_MODEL (sorted)))));
  gtk_widget_set_name (GTK_WIDGET (view), name);
  gtk_column_view_set_show_column_separators (view, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (view), "data-table");

  for (Column c = COL_NAME; c <= COL_RATIO; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      g_autoptr(GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (row_compare, GINT_TO_POINTER (c), NULL));

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), GINT_TO_POINTER (c));
      column = gtk_column_view_column_new (c == COL_NAME ? name_title : _(titles[c]), factory);
      gtk_column_view_column_set_sorter (column, sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      if (c == COL_NAME)
        gtk_column_view_column_set_expand (column, TRUE);
      if (c == COL_DELTA)
        delta_column = column;
      gtk_column_view_append_column (view, column);
      g_object_unref (column);
    }
  gtk_sort_list_model_set_sorter (sorted, gtk_column_view_get_sorter (view));
  /* Largest slow-down first, as the comparison ranks them by size. */
  gtk_column_view_sort_by_column (view, delta_column, GTK_SORT_DESCENDING);
  g_signal_connect_object (view, "activate", G_CALLBACK (row_activated_cb), self, 0);

  gtk_widget_set_name (entry, entry_name);
  g_object_set (entry, "placeholder-text", _("Filter by name"), NULL);
  gtk_widget_set_margin_start (entry, 6);
  gtk_widget_set_margin_end (entry, 6);
  gtk_widget_set_margin_top (entry, 6);
  gtk_widget_set_margin_bottom (entry, 6);
  g_signal_connect_data (entry, "search-changed", G_CALLBACK (filter_changed_cb),
                         g_object_ref (filter), (GClosureNotify) (void (*) (void)) g_object_unref, 0);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (view));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);
  return box;
}

/* Kernels by launching op and host ops by call path ------------------------ */

/* A page of two tables of the same things matched two ways, with a pair
 * of linked buttons above that switch between them ("by-name" and
 * second_name in the returned stack). */
static GtkWidget *
build_switched_page (const char  *name,
                     const char  *first_label,
                     const char  *second_label,
                     const char  *second_name,
                     GtkWidget   *first,
                     GtkStack   **stack_out,
                     GtkWidget  **second_button_out)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *by_first = gtk_toggle_button_new_with_mnemonic (first_label);
  GtkWidget *by_second = gtk_toggle_button_new_with_mnemonic (second_label);
  GtkWidget *stack = gtk_stack_new ();
  g_autofree char *first_button = g_strconcat (name, "-by-name-button", NULL);
  g_autofree char *second_button = g_strconcat (name, "-", second_name, "-button", NULL);

  gtk_widget_add_css_class (buttons, "linked");
  gtk_widget_set_halign (buttons, GTK_ALIGN_CENTER);
  gtk_widget_set_margin_top (buttons, 6);
  gtk_widget_set_name (by_first, first_button);
  gtk_widget_set_name (by_second, second_button);
  gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (by_second), GTK_TOGGLE_BUTTON (by_first));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (by_first), TRUE);
  gtk_box_append (GTK_BOX (buttons), by_first);
  gtk_box_append (GTK_BOX (buttons), by_second);
  gtk_box_append (GTK_BOX (box), buttons);

  gtk_stack_add_named (GTK_STACK (stack), first, "by-name");
  gtk_widget_set_vexpand (stack, TRUE);
  gtk_box_append (GTK_BOX (box), stack);
  *stack_out = GTK_STACK (stack);
  *second_button_out = by_second;
  return box;
}

static void
show_by_op (CpCompareWindow *self)
{
  const char *child = gtk_stack_get_child_by_name (self->kernel_stack, "by-op") != NULL ? "by-op" : "by-op-busy";

  gtk_stack_set_visible_child_name (self->kernel_stack,
                                    gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->by_op_button))
                                      ? child : "by-name");
}

/* The comparison of the two analyses, in a worker thread: by name first
 * (the task's data is the CpCompareKernelKey), by op when asked. */
static void
compare_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  CpCompareWindow *self = source;
  CpCompareKernelKey by = GPOINTER_TO_UINT (task_data);
  CpComparison *c = cp_comparison_new (self->analyses[0], self->analyses[1], by);

  /* The call paths take a walk of both sides' host threads: here, not
   * when the Host Ops page first shows. */
  if (by == CP_COMPARE_KERNELS_BY_NAME)
    cp_comparison_get_host_op_paths (c, NULL);
  g_task_return_pointer (task, c, g_object_unref);
}

/* Starts compare_thread; done gets the comparison. */
static void
start_comparison (CpCompareWindow     *self,
                  CpCompareKernelKey   by,
                  GAsyncReadyCallback  done)
{
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, done, NULL);

  g_task_set_task_data (task, GUINT_TO_POINTER (by), NULL);
  g_task_run_in_thread (task, compare_thread);
}

static void
by_op_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (source);
  g_autoptr(CpComparison) c = g_task_propagate_pointer (G_TASK (result), NULL);
  g_autoptr(GError) error = NULL;
  GtkWidget *busy, *page;

  self->by_op_running = FALSE;
  if (self->disposed || c == NULL)
    return;
  for (guint side = 0; side < 2; side++)
    cp_comparison_set_typical_step (c, side, cp_comparison_get_typical_step (self->comparison, side));
  if (cp_comparison_check (c, &error))
    {
      guint n;
      const CpCompareItem *items = cp_comparison_get_kernels (c, &n);

      page = build_table (self, c, "kernels-by-op", _("Launching Op"), items, n);
    }
  else
    {
      page = adw_status_page_new ();
      gtk_widget_set_name (page, "kernels-by-op-error");
      adw_status_page_set_icon_name (ADW_STATUS_PAGE (page), "dialog-information-symbolic");
      adw_status_page_set_title (ADW_STATUS_PAGE (page), _("Kernels Do Not Compare by Op"));
      adw_status_page_set_description (ADW_STATUS_PAGE (page), error->message);
    }
  self->by_op = g_steal_pointer (&c);
  gtk_stack_add_named (self->kernel_stack, page, "by-op");
  busy = gtk_stack_get_child_by_name (self->kernel_stack, "by-op-busy");
  show_by_op (self);
  if (busy != NULL)
    gtk_stack_remove (self->kernel_stack, busy);
}

/* The first time kernels are asked for by op, that comparison is made on
 * a thread (as long as the first one); a spinner stands in meanwhile. */
static void
by_op_toggled_cb (GtkToggleButton *button,
                  gpointer         user_data)
{
  CpCompareWindow *self = user_data;

  if (gtk_toggle_button_get_active (button) && self->by_op == NULL && !self->by_op_running)
    {
      GtkWidget *busy = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
      GtkWidget *spinner = gtk_spinner_new ();
      GtkWidget *label = gtk_label_new (_("Matching kernels by the host op that launched them…"));

      gtk_widget_set_valign (busy, GTK_ALIGN_CENTER);
      gtk_widget_set_size_request (spinner, 32, 32);
      gtk_spinner_start (GTK_SPINNER (spinner));
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (GTK_BOX (busy), spinner);
      gtk_box_append (GTK_BOX (busy), label);
      gtk_stack_add_named (self->kernel_stack, busy, "by-op-busy");
      self->by_op_running = TRUE;
      start_comparison (self, CP_COMPARE_KERNELS_BY_OP, by_op_done_cb);
    }
  show_by_op (self);
}

static void
by_path_toggled_cb (GtkToggleButton *button,
                    gpointer         user_data)
{
  CpCompareWindow *self = user_data;

  gtk_stack_set_visible_child_name (self->op_stack, gtk_toggle_button_get_active (button) ? "by-path" : "by-name");
}

static void
show_content (CpCompareWindow *self)
{
  guint n_kernels, n_ops, n_paths;
  const CpCompareItem *kernels = cp_comparison_get_kernels (self->comparison, &n_kernels);
  const CpCompareItem *ops = cp_comparison_get_host_ops (self->comparison, &n_ops);
  const CpCompareItem *paths = cp_comparison_get_host_op_paths (self->comparison, &n_paths);
  GtkWidget *table, *by_path_button;
  AdwViewStackPage *page;

  page = adw_view_stack_add_titled (self->view_stack, build_compare_page (self), "compare", _("Compare"));
  adw_view_stack_page_set_icon_name (page, "view-dual-symbolic");
  page = adw_view_stack_add_titled (self->view_stack, build_timelines_page (self), "timelines",
                                    _("Timelines"));
  adw_view_stack_page_set_icon_name (page, "view-continuous-symbolic");

  table = build_table (self, self->comparison, "kernels", _("Kernel"), kernels, n_kernels);
  page = adw_view_stack_add_titled (self->view_stack,
                                    build_switched_page ("kernels", _("By _Name"), _("By _Launching Op"), "by-op",
                                                         table, &self->kernel_stack, &self->by_op_button),
                                    "kernels", _("Kernels"));
  adw_view_stack_page_set_icon_name (page, "cp-kernels-symbolic");
  g_signal_connect_object (self->by_op_button, "toggled", G_CALLBACK (by_op_toggled_cb), self, 0);

  table = build_table (self, self->comparison, "host-ops", _("Host Op"), ops, n_ops);
  page = adw_view_stack_add_titled (self->view_stack,
                                    build_switched_page ("host-ops", _("By _Name"), _("By _Call Path"), "by-path",
                                                         table, &self->op_stack, &by_path_button),
                                    "host-ops", _("Host Ops"));
  gtk_stack_add_named (self->op_stack,
                       build_table (self, self->comparison, "host-op-paths", _("Call Path"), paths, n_paths),
                       "by-path");
  adw_view_stack_page_set_icon_name (page, "system-run-symbolic");
  g_signal_connect_object (by_path_button, "toggled", G_CALLBACK (by_path_toggled_cb), self, 0);

  align_views (self);
  gtk_stack_set_visible_child_name (self->main_stack, "content");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.export", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.align", TRUE);
}

/* Loading ----------------------------------------------------------------- */

static void
compare_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (source);
  g_autoptr(CpComparison) comparison = g_task_propagate_pointer (G_TASK (result), NULL);
  g_autoptr(GError) error = NULL;

  if (self->failed || self->disposed)
    return;
  if (g_cancellable_is_cancelled (self->cancellable))
    {
      g_autoptr(GError) cancelled = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "");

      fail_with (self, cancelled);
      return;
    }
  if (!cp_comparison_check (comparison, &error))
    {
      show_error (self, _("Captures Not Comparable"), error->message);
      return;
    }
  self->comparison = g_steal_pointer (&comparison);
  show_content (self);
}

static void
side_done (CpCompareWindow *self)
{
  if (--self->pending > 0 || self->failed || self->disposed)
    return;
  start_comparison (self, CP_COMPARE_KERNELS_BY_NAME, compare_done_cb);
}

/* One side's load and analysis: the window (a reference) and the side. */
typedef struct
{
  CpCompareWindow *self;
  guint            side;
} SideTask;

static SideTask *
side_task_new (CpCompareWindow *self,
               guint            side)
{
  SideTask *task = g_new (SideTask, 1);

  task->self = g_object_ref (self);
  task->side = side;
  return task;
}

static void
side_task_free (SideTask *task)
{
  g_object_unref (task->self);
  g_free (task);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SideTask, side_task_free)

static void
analysis_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SideTask) task = user_data;
  CpCompareWindow *self = task->self;
  g_autoptr(GError) error = NULL;

  self->analyses[task->side] = cp_analysis_new_finish (result, &error);
  if (self->analyses[task->side] == NULL)
    fail_with (self, error);
  side_done (self);
}

static void
load_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SideTask) task = user_data;
  CpCompareWindow *self = task->self;
  guint side = task->side;
  g_autoptr(GError) error = NULL;
  GtkProgressBar *bar = side == 0 ? self->progress_a : self->progress_b;

  self->traces[side] = cp_load_file_finish (result, &error);
  if (self->traces[side] == NULL)
    {
      fail_with (self, error);
      side_done (self);
      return;
    }
  if (self->failed || self->disposed)
    {
      side_done (self);
      return;
    }
  gtk_progress_bar_set_fraction (bar, 1.0);
  cp_analysis_new_async (self->traces[side], self->cancellable, analysis_done_cb, g_steal_pointer (&task));
}

static void
progress_cb (guint64  done,
             guint64  total,
             gpointer user_data)
{
  GtkProgressBar *bar = user_data;

  if (total > 0)
    gtk_progress_bar_set_fraction (bar, MIN ((double) done / (double) total, 1.0));
  else
    gtk_progress_bar_pulse (bar);
}

static void
start_loading (CpCompareWindow *self)
{
  for (guint side = 0; side < 2; side++)
    {
      GtkProgressBar *bar = side == 0 ? self->progress_a : self->progress_b;
      g_autofree char *name = side_name (self->files[side], self->files[1 - side]);
      g_autofree char *text = g_strdup_printf ("%s: %s", side_letter (side), name);

      gtk_progress_bar_set_text (bar, text);
      self->pending++;
      cp_load_file_async (self->files[side], self->cancellable, progress_cb, g_object_ref (bar),
                          g_object_unref, load_done_cb, side_task_new (self, side));
    }
}

/* Actions ----------------------------------------------------------------- */

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (widget);

  g_cancellable_cancel (self->cancellable);
}

static void
align_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (widget);

  if (self->comparison != NULL)
    align_views (self);
}

static void
export_written_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(CpCompareWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  GFile *file = g_object_get_data (source, "cp-file");

  if (self->disposed)
    return;
  if (cp_report_write_finish (CP_REPORT (source), result, &error))
    {
      g_autofree char *name = file_display_name (file);

      text = g_strdup_printf (_("Comparison report saved as %s"), name);
    }
  else
    text = g_strdup_printf (_("Could not save the comparison report: %s"), error->message);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (text));
  g_object_notify (G_OBJECT (self), "title");  /* lets a test know the export ended */
}

static void
export_to (CpCompareWindow *self,
           GFile           *file)
{
  CpReportOptions options;
  g_autoptr(CpReport) report = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_file_get_basename (file);
  CpReportFormat format;

  if (self->comparison == NULL)
    return;
  if (name == NULL || !cp_report_format_for_name (name, &format))
    {
      adw_toast_overlay_add_toast (self->toast_overlay,
                                   adw_toast_new (_("Name the report .png, .svg or .pdf")));
      return;
    }
  cp_report_options_init (&options);
  options.theme = adw_style_manager_get_dark (adw_style_manager_get_default ()) ? CP_THEME_DARK
                                                                                 : CP_THEME_LIGHT;
  report = cp_report_new_compare (self->comparison, &options, &error);
  if (report == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not draw the comparison report: %s"),
                                               error->message);

      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (text));
      return;
    }
  g_object_set_data_full (G_OBJECT (report), "cp-file", g_object_ref (file), g_object_unref);
  cp_report_write_async (report, file, NULL, export_written_cb, g_object_ref (self));
}

static void
export_to_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (g_variant_get_string (param, NULL));

  export_to (CP_COMPARE_WINDOW (widget), file);
}

#if GTK_CHECK_VERSION (4, 10, 0)
static void
save_dialog_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(CpCompareWindow) self = user_data;
  g_autoptr(GFile) file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (source), result, NULL);

  if (file != NULL)
    export_to (self, file);
}
#else
static void
save_response_cb (GtkNativeDialog *native,
                  int              response,
                  gpointer         user_data)
{
  CpCompareWindow *self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      if (file != NULL)
        export_to (self, file);
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}
#endif

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (widget);
  const char *initial = "comparison.png";

#if GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, _("Export Comparison Report"));
  gtk_file_dialog_set_initial_name (dialog, initial);
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_save (dialog, GTK_WINDOW (self), NULL, save_dialog_cb, g_object_ref (self));
#else
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new (_("Export Comparison Report"), GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), initial);
  g_signal_connect (native, "response", G_CALLBACK (save_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
#endif
}

/* Public ------------------------------------------------------------------ */

CpCompareWindow *
cp_compare_window_new (CpApplication *app,
                       GFile         *a,
                       GFile         *b)
{
  CpCompareWindow *self;
  g_autofree char *name_a = NULL, *name_b = NULL, *title = NULL;

  g_return_val_if_fail (CP_IS_APPLICATION (app), NULL);
  g_return_val_if_fail (G_IS_FILE (a) && G_IS_FILE (b), NULL);

  self = g_object_new (CP_TYPE_COMPARE_WINDOW, "application", app, NULL);
  self->files[0] = g_object_ref (a);
  self->files[1] = g_object_ref (b);
  name_a = side_name (a, b);
  name_b = side_name (b, a);
  /* Translators: the window title, "before.json → after.json". */
  title = g_strdup_printf (_("%s → %s"), name_a, name_b);
  gtk_window_set_title (GTK_WINDOW (self), title);
  start_loading (self);
  return self;
}

CpComparison *
cp_compare_window_get_comparison (CpCompareWindow *self)
{
  g_return_val_if_fail (CP_IS_COMPARE_WINDOW (self), NULL);

  return self->comparison;
}

const char *
cp_compare_window_get_state (CpCompareWindow *self)
{
  g_return_val_if_fail (CP_IS_COMPARE_WINDOW (self), NULL);

  return gtk_stack_get_visible_child_name (self->main_stack);
}

const char *
cp_compare_window_get_error (CpCompareWindow *self)
{
  g_return_val_if_fail (CP_IS_COMPARE_WINDOW (self), NULL);

  return self->error_text;
}

gboolean
cp_compare_window_get_locked (CpCompareWindow *self)
{
  g_return_val_if_fail (CP_IS_COMPARE_WINDOW (self), FALSE);

  return self->lock_button != NULL &&
         gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->lock_button));
}

void
cp_compare_window_set_locked (CpCompareWindow *self,
                              gboolean         locked)
{
  g_return_if_fail (CP_IS_COMPARE_WINDOW (self));

  if (self->lock_button != NULL)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->lock_button), locked);
}

GtkWidget *
cp_compare_window_get_timeline (CpCompareWindow *self,
                                guint            side)
{
  g_return_val_if_fail (CP_IS_COMPARE_WINDOW (self), NULL);
  g_return_val_if_fail (side < 2, NULL);

  return self->timelines[side];
}

gboolean
cp_compare_window_set_typical_step (CpCompareWindow *self,
                                    guint            side,
                                    guint            index)
{
  g_return_val_if_fail (CP_IS_COMPARE_WINDOW (self), FALSE);
  g_return_val_if_fail (side < 2, FALSE);

  if (self->comparison == NULL || !cp_comparison_set_typical_step (self->comparison, side, index))
    return FALSE;
  if (self->by_op != NULL)
    cp_comparison_set_typical_step (self->by_op, side, index);
  if (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->typical_spins[side])) != (int) index + 1)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->typical_spins[side]), index + 1);
  align_views (self);
  return TRUE;
}

/* GObject ----------------------------------------------------------------- */

static void
cp_compare_window_dispose (GObject *object)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (object);

  self->disposed = TRUE;
  g_cancellable_cancel (self->cancellable);
  for (guint side = 0; side < 2; side++)
    if (self->views[side] != NULL)
      {
        g_signal_handlers_disconnect_by_data (self->views[side], self);
        g_clear_object (&self->views[side]);
      }
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_COMPARE_WINDOW);

  G_OBJECT_CLASS (cp_compare_window_parent_class)->dispose (object);
}

static void
cp_compare_window_finalize (GObject *object)
{
  CpCompareWindow *self = CP_COMPARE_WINDOW (object);

  g_clear_object (&self->comparison);
  g_clear_object (&self->by_op);
  for (guint side = 0; side < 2; side++)
    {
      g_clear_object (&self->analyses[side]);
      g_clear_object (&self->traces[side]);
      g_clear_object (&self->files[side]);
    }
  g_clear_object (&self->cancellable);
  g_free (self->error_text);

  G_OBJECT_CLASS (cp_compare_window_parent_class)->finalize (object);
}

static void
cp_compare_window_class_init (CpCompareWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cp_compare_window_dispose;
  object_class->finalize = cp_compare_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/chokepoint/Chokepoint/ui/cp-compare-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CpCompareWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CpCompareWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, CpCompareWindow, progress_a);
  gtk_widget_class_bind_template_child (widget_class, CpCompareWindow, progress_b);
  gtk_widget_class_bind_template_child (widget_class, CpCompareWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, CpCompareWindow, view_stack);

  gtk_widget_class_install_action (widget_class, "compare.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "compare.align", NULL, align_action);
  gtk_widget_class_install_action (widget_class, "compare.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "compare.export-to", "s", export_to_action);
}

static void
cp_compare_window_init (CpCompareWindow *self)
{
  g_type_ensure (CP_TYPE_TIMELINE_VIEW);
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.export", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.align", FALSE);
}
