/* cp-details-pane.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

#include "analysis/cp-classify.h"
#include "formats/cp-args.h"
#include "render/cp-lod.h"
#include "render/cp-range-stats.h"
#include "render/cp-time-format.h"
#include "render/cp-timeline-layout.h"

#include "cp-details-pane.h"
#include "cp-format.h"
#include "cp-pane.h"

/* Arguments shown at most; a capture can carry huge ones. */
#define MAX_ARGS        200
#define MAX_ARG_CHARS   2000

struct _CpDetailsPane
{
  CpPane         parent_instance;

  /* Template widgets */
  GtkWidget     *stack;
  GtkWidget     *content;        /* the box in the scrolled window */
  GtkWidget     *slice_box;      /* rebuilt for each selection */
  GtkWidget     *range_box;      /* rebuilt for each range */

  /* Owned references */
  GtkSizeGroup  *key_group;      /* the key column of the slice and argument grids */
  GArray        *links;          /* of CpSliceRef: the other end of each flow link */
  GArray        *source_links;   /* of CpSliceRef: each link of the Source section */
  GCancellable  *range_cancellable;

  gulong         view_changed_id;
};

G_DEFINE_FINAL_TYPE (CpDetailsPane, cp_details_pane, CP_TYPE_PANE)

#define TRACE(self) cp_pane_get_trace (CP_PANE (self))
#define VIEW(self)  cp_pane_get_view_state (CP_PANE (self))

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    gtk_box_remove (GTK_BOX (box), child);
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_top (label, 6);
  return label;
}

static GtkWidget *
new_grid (void)
{
  GtkWidget *grid = gtk_grid_new ();

  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
  return grid;
}

/* A grid whose key column lines up with the other key grids of the pane,
 * so that the slice's values and its arguments start at one edge. */
static GtkWidget *
new_key_grid (CpDetailsPane *self)
{
  GtkWidget *grid = new_grid ();

  g_object_set_data (G_OBJECT (grid), "cp-key-group", self->key_group);
  return grid;
}

/* Wraps a long name or value anywhere it must, but without the hyphen Pango
 * adds where it breaks a word: "aten::convolu-" reads as a different name. */
static void
wrap_without_hyphens (GtkLabel *label)
{
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (label, attrs);
  pango_attr_list_unref (attrs);
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_wrap_mode (label, PANGO_WRAP_WORD_CHAR);
}

/* A "key  value" line of a grid; the value is selectable and wraps. */
static GtkWidget *
grid_row (GtkWidget  *grid,
          int         row,
          const char *key,
          const char *value)
{
  GtkWidget *k = gtk_label_new (key);
  GtkWidget *v = gtk_label_new (value);
  GtkSizeGroup *group = g_object_get_data (G_OBJECT (grid), "cp-key-group");

  gtk_label_set_xalign (GTK_LABEL (k), 0);
  gtk_label_set_yalign (GTK_LABEL (k), 0);
  gtk_widget_add_css_class (k, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (v), 0);
  wrap_without_hyphens (GTK_LABEL (v));
  gtk_label_set_selectable (GTK_LABEL (v), TRUE);
  gtk_widget_set_hexpand (v, TRUE);
  gtk_grid_attach (GTK_GRID (grid), k, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), v, 1, row, 1, 1);
  if (group != NULL)
    gtk_size_group_add_widget (group, k);
  return v;
}

static char *
lane_title (CpTrace *trace,
            guint    lane_index)
{
  g_autofree char *lane = cp_timeline_lane_label (trace, lane_index);
  g_autofree char *group = cp_timeline_group_label (trace, cp_lane_get_process (cp_trace_get_lane (trace, lane_index)));

  /* Translators: a lane and its process or device: "stream 7 · GPU 0 · NVIDIA H100". */
  return g_strdup_printf (_("%s · %s"), lane, group);
}

/* Flow links: "launched by cudaLaunchKernel at 1.234 ms",
 * "kernel on stream 7 at 1.300 ms". */
static char *
flow_text (CpTrace      *trace,
           const CpFlow *flow,
           gboolean      outgoing)
{
  CpSliceRef other = outgoing ? flow->to : flow->from;
  CpLane *lane = cp_trace_get_lane (trace, other.lane);
  g_autofree char *when = cp_time_format_offset (cp_trace_slice_start (trace, other));
  const char *name = cp_trace_slice_name (trace, other);
  const char *lname = cp_lane_get_name (lane);

  if (!outgoing)
    {
      if (flow->kind == CP_FLOW_LAUNCH)
        /* Translators: a flow link: "Launched by cudaLaunchKernel at 1.234567 s". */
        return g_strdup_printf (_("Launched by %s at %s"), name, when);
      if (flow->kind == CP_FLOW_FWD_BWD)
        /* Translators: a flow link to the forward op of a backward op. */
        return g_strdup_printf (_("Backward of %s at %s"), name, when);
      /* Translators: a flow link: "From aten::mm at 1.234567 s". */
      return g_strdup_printf (_("From %s at %s"), name, when);
    }
  switch (cp_lane_get_kind (lane))
    {
    case CP_LANE_KERNEL:
      /* Translators: a flow link: "Kernel on stream 7 at 1.234567 s: gemm". */
      return g_strdup_printf (_("Kernel on %s at %s: %s"), lname, when, name);
    case CP_LANE_TRANSFER:
      /* Translators: a flow link: "Copy on Memcpy HtoD at 1.234567 s". */
      return g_strdup_printf (_("Copy on %s at %s: %s"), lname, when, name);
    case CP_LANE_HOST_THREAD:
    case CP_LANE_DEVICE_ANNOTATION:
    case CP_LANE_ASYNC:
    case CP_LANE_COUNTER:
    case CP_LANE_N_KINDS:
    default:
      if (flow->kind == CP_FLOW_FWD_BWD)
        /* Translators: a flow link to the backward op of a forward op. */
        return g_strdup_printf (_("Backward: %s at %s"), name, when);
      /* Translators: a flow link: "To aten::mm on thread 12 at 1.234567 s". */
      return g_strdup_printf (_("To %s on %s at %s"), name, lname, when);
    }
}

static gboolean
activate_link_cb (CpDetailsPane *self,
                  const char    *uri,
                  GtkLabel      *label)
{
  if (g_str_has_prefix (uri, "flow:"))
    {
      cp_details_pane_follow_flow (self, (guint) g_ascii_strtoull (uri + 5, NULL, 10));
      return TRUE;
    }
  if (g_str_has_prefix (uri, "source:"))
    {
      cp_details_pane_follow_source (self, (guint) g_ascii_strtoull (uri + 7, NULL, 10));
      return TRUE;
    }
  return FALSE;
}

/* A label holding one link (uri) with text, for the Flows and Source
 * sections. */
static GtkWidget *
link_label (CpDetailsPane *self,
            const char    *name,
            const char    *uri,
            const char    *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  g_autofree char *markup = g_strdup_printf ("<a href=\"%s\">%s</a>", uri, escaped);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_set_name (label, name);
  g_signal_connect_object (label, "activate-link", G_CALLBACK (activate_link_cb), self, G_CONNECT_SWAPPED);
  return label;
}

static char *
source_text (CpTrace            *trace,
             const CpSourceLink *link)
{
  const char *name = cp_trace_slice_name (trace, link->ref);

  switch (link->kind)
    {
    case CP_SOURCE_OP:
      /* Translators: in the Source section, the framework op around a launch. */
      return g_strdup_printf (_("Op: %s"), name);
    case CP_SOURCE_MODULE:
      /* Translators: in the Source section, an nn.Module around a launch ("Linear_0"). */
      return g_strdup_printf (_("Module: %s"), g_str_has_prefix (name, "nn.Module: ") ? name + 11 : name);
    case CP_SOURCE_FRAME:
      /* Translators: in the Source section, a Python frame ("model.py(42): forward"). */
      return g_strdup_printf (_("Code: %s"), name);
    case CP_SOURCE_LAUNCH:
    case CP_SOURCE_SCOPE:
    default:
      /* Translators: in the Source section, another scope around a launch. */
      return g_strdup_printf (_("Within: %s"), name);
    }
}

/* An XLA op's or kernel's origin, as the program's HLO says: the HLO op
 * and its module, the framework's op name, the line of code. */
static gboolean
add_xla_source (CpDetailsPane     *self,
                const CpXlaSource *src)
{
  CpTrace *trace = TRACE (self);
  GtkWidget *box;
  const char *rows[3] = { NULL, NULL, NULL };
  g_autofree char *hlo = NULL, *op = NULL, *code = NULL;

  if (src == NULL)
    return FALSE;
  /* Translators: in the Source section, an XLA (HLO) op and its module ("fusion.3 in jit_step"). */
  hlo = g_strdup_printf (_("HLO op: %s in %s"), cp_trace_get_string (trace, src->hlo_op),
                         cp_trace_get_string (trace, src->module));
  rows[0] = hlo;
  if (src->op_name != CP_STR_EMPTY)
    {
      /* Translators: in the Source section, the framework's name of an XLA op. */
      op = g_strdup_printf (_("Op: %s"), cp_trace_get_string (trace, src->op_name));
      rows[1] = op;
    }
  if (src->file != CP_STR_EMPTY)
    {
      if (src->function != CP_STR_EMPTY)
        /* Translators: in the Source section, where an XLA op was made: file, line and function. */
        code = g_strdup_printf (_("Code: %s(%d): %s"), cp_trace_get_string (trace, src->file), src->line,
                                cp_trace_get_string (trace, src->function));
      else
        /* Translators: in the Source section, where an XLA op was made: file and line. */
        code = g_strdup_printf (_("Code: %s(%d)"), cp_trace_get_string (trace, src->file), src->line);
      rows[2] = code;
    }
  gtk_box_append (GTK_BOX (self->slice_box), heading (_("Source")));
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_name (box, "xla-source");
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GtkWidget *label;

      if (rows[i] == NULL)
        continue;
      label = gtk_label_new (rows[i]);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_box_append (GTK_BOX (box), label);
    }
  gtk_box_append (GTK_BOX (self->slice_box), box);
  return TRUE;
}

/* A torch.compile kernel: what its launching op says of it (Inductor's
 * kernel name lists the fused ops; kernel_backend, kernel_file). */
static void
add_inductor (CpDetailsPane *self,
              GArray        *chain,
              GtkWidget     *box)
{
  for (guint k = 0; k < chain->len; k++)
    {
      const CpSourceLink *link = &g_array_index (chain, CpSourceLink, k);
      const char *kind = NULL;
      g_autofree char *fused = NULL, *text = NULL;
      g_autoptr(GPtrArray) args = NULL;
      const char *backend = NULL, *kernel_file = NULL;
      GtkWidget *label;

      if (link->kind != CP_SOURCE_OP ||
          !cp_classify_inductor_kernel (cp_trace_slice_name (TRACE (self), link->ref), &kind, &fused))
        continue;
      args = cp_args_decode (TRACE (self), link->ref, NULL);
      for (guint a = 0; args != NULL && a < args->len; a++)
        {
          const CpArg *arg = g_ptr_array_index (args, a);

          if (strcmp (arg->key, "kernel_backend") == 0)
            backend = arg->value;
          else if (strcmp (arg->key, "kernel_file") == 0)
            kernel_file = arg->value;
        }
      if (kernel_file != NULL && backend != NULL)
        /* Translators: a torch.compile kernel: its kind ("reduction"), backend ("triton"), the ops it fuses, its file. */
        text = g_strdup_printf (_("Inductor %s kernel (%s) fusing %s, generated in %s"), _(kind), backend, fused,
                                kernel_file);
      else
        /* Translators: a torch.compile kernel: its kind ("reduction") and the ops it fuses. */
        text = g_strdup_printf (_("Inductor %s kernel fusing %s"), _(kind), fused);
      label = gtk_label_new (text);
      gtk_widget_set_name (label, "inductor");
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_box_append (GTK_BOX (box), label);
      return;
    }
}

/* What is around the slice (or its launch) on its thread, innermost
 * first, as links: ops, modules and scopes, the user's Python frames, and
 * every frame folded under an expander. */
static void
add_source (CpDetailsPane *self,
            CpSliceRef     ref)
{
  CpAnalysis *analysis = cp_pane_get_analysis (CP_PANE (self));
  g_autoptr(GArray) chain = NULL;
  GtkWidget *box, *all = NULL;
  guint n_frames = 0;

  g_array_set_size (self->source_links, 0);
  if (analysis == NULL || cp_analysis_get_trace (analysis) != TRACE (self))
    return;
  if (add_xla_source (self, cp_analysis_xla_source (analysis, ref)))
    return;
  chain = cp_analysis_source_chain (analysis, ref);
  for (guint k = 0; k < chain->len; k++)
    n_frames += g_array_index (chain, CpSourceLink, k).kind == CP_SOURCE_FRAME;
  /* The launch call alone is already the flow link. */
  if (chain->len == 0 || (chain->len == 1 && g_array_index (chain, CpSourceLink, 0).kind == CP_SOURCE_LAUNCH))
    return;
  gtk_box_append (GTK_BOX (self->slice_box), heading (_("Source")));
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_set_name (box, "source-links");
  if (n_frames > 0)
    {
      all = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      gtk_widget_set_margin_start (all, 12);
    }
  for (guint k = 0; k < chain->len && k < 200; k++)
    {
      const CpSourceLink *link = &g_array_index (chain, CpSourceLink, k);
      g_autofree char *text = NULL;
      const char *name = cp_trace_slice_name (TRACE (self), link->ref);

      if (link->kind == CP_SOURCE_LAUNCH || !cp_trace_slice_ref_valid (TRACE (self), link->ref))
        continue;
      text = source_text (TRACE (self), link);
      if (link->kind != CP_SOURCE_FRAME || !cp_source_frame_is_library (name))
        {
          g_autofree char *uri = g_strdup_printf ("source:%u", self->source_links->len);

          gtk_box_append (GTK_BOX (box), link_label (self, "source-link", uri, text));
          g_array_append_val (self->source_links, link->ref);
        }
      if (link->kind == CP_SOURCE_FRAME)
        {
          g_autofree char *uri = g_strdup_printf ("source:%u", self->source_links->len);

          gtk_box_append (GTK_BOX (all), link_label (self, "frame-link", uri, text));
          g_array_append_val (self->source_links, link->ref);
        }
    }
  if (all != NULL)
    {
      g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "The Python frame", "All %u Python frames",
                                                             n_frames), n_frames);
      GtkWidget *expander = gtk_expander_new (title);

      gtk_widget_set_name (expander, "all-frames");
      gtk_expander_set_child (GTK_EXPANDER (expander), all);
      gtk_box_append (GTK_BOX (box), expander);
    }
  add_inductor (self, chain, box);
  gtk_box_append (GTK_BOX (self->slice_box), box);
}

static void
add_flows (CpDetailsPane *self,
           CpSliceRef     ref)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint));
  const CpFlow *flows;
  guint n_flows;
  GtkWidget *box;

  g_array_set_size (self->links, 0);
  cp_trace_find_flows (TRACE (self), ref, ids);
  if (ids->len == 0)
    return;
  flows = cp_trace_get_flows (TRACE (self), &n_flows);
  gtk_box_append (GTK_BOX (self->slice_box), heading (_("Flows")));
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  for (guint k = 0; k < ids->len && k < 100; k++)
    {
      const CpFlow *f = &flows[g_array_index (ids, guint, k)];
      gboolean outgoing = cp_slice_ref_equal (f->from, ref);
      CpSliceRef other = outgoing ? f->to : f->from;
      g_autofree char *text = flow_text (TRACE (self), f, outgoing);
      g_autofree char *uri = g_strdup_printf ("flow:%u", self->links->len);

      if (!cp_trace_slice_ref_valid (TRACE (self), other))
        continue;
      g_array_append_val (self->links, other);
      gtk_box_append (GTK_BOX (box), link_label (self, "flow-link", uri, text));
    }
  gtk_box_append (GTK_BOX (self->slice_box), box);
}

static void
add_args (CpDetailsPane *self,
          CpSliceRef     ref)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) args = cp_args_decode (TRACE (self), ref, &error);
  GtkWidget *grid;

  if (args == NULL)
    {
      GtkWidget *label = gtk_label_new (error->message);

      gtk_box_append (GTK_BOX (self->slice_box), heading (_("Arguments")));
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "error");
      gtk_box_append (GTK_BOX (self->slice_box), label);
      return;
    }
  if (args->len == 0)
    return;
  gtk_box_append (GTK_BOX (self->slice_box), heading (_("Arguments")));
  grid = new_key_grid (self);
  for (guint i = 0; i < args->len && i < MAX_ARGS; i++)
    {
      const CpArg *a = g_ptr_array_index (args, i);
      g_autofree char *value = NULL;

      if (g_utf8_strlen (a->value, -1) > MAX_ARG_CHARS)
        {
          g_autofree char *cut = g_utf8_substring (a->value, 0, MAX_ARG_CHARS);

          value = g_strconcat (cut, "…", NULL);
        }
      else
        value = g_strdup (a->value);
      grid_row (grid, (int) i, a->key, value);
    }
  if (args->len > MAX_ARGS)
    {
      g_autofree char *more = g_strdup_printf (_("%u more not shown"), args->len - MAX_ARGS);

      grid_row (grid, MAX_ARGS, "…", more);
    }
  gtk_box_append (GTK_BOX (self->slice_box), grid);
}

static void
add_gpu_info (CpDetailsPane *self,
              GtkWidget     *grid,
              int           *row,
              CpSliceRef     ref,
              gint64         dur)
{
  const CpGpuInfo *g = cp_trace_get_gpu_info (TRACE (self), ref);
  char buf[128];

  if (g == NULL)
    return;
  if (g->device >= 0)
    {
      g_snprintf (buf, sizeof buf, "%d", g->device);
      grid_row (grid, (*row)++, _("Device"), buf);
    }
  if (g->stream >= 0)
    {
      g_snprintf (buf, sizeof buf, "%d", g->stream);
      grid_row (grid, (*row)++, _("Stream"), buf);
    }
  if (g->grid[0] > 0)
    {
      g_snprintf (buf, sizeof buf, "%d × %d × %d", g->grid[0], MAX (g->grid[1], 1), MAX (g->grid[2], 1));
      grid_row (grid, (*row)++, _("Grid"), buf);
    }
  if (g->block[0] > 0)
    {
      g_snprintf (buf, sizeof buf, "%d × %d × %d", g->block[0], MAX (g->block[1], 1), MAX (g->block[2], 1));
      grid_row (grid, (*row)++, _("Block"), buf);
    }
  if (g->registers > 0)
    {
      g_snprintf (buf, sizeof buf, "%d", g->registers);
      grid_row (grid, (*row)++, _("Registers per thread"), buf);
    }
  if (g->shared_mem > 0)
    {
      g_autofree char *size = g_format_size (g->shared_mem);

      grid_row (grid, (*row)++, _("Shared memory"), size);
    }
  if (g->occupancy >= 0 && g->occupancy == g->occupancy)
    {
      g_autofree char *pct = cp_ui_format_percent (g->occupancy);

      grid_row (grid, (*row)++, _("Est. achieved occupancy"), pct);
    }
  if (g->bytes >= 0)
    {
      g_autofree char *size = g_format_size (g->bytes);

      if (dur > 0)
        {
          /* Translators: bytes moved and the rate: "4.1 MB at 12.3 GB/s". */
          g_autofree char *text = g_strdup_printf (_("%s at %.1f GB/s"), size, (double) g->bytes / (double) dur);

          grid_row (grid, (*row)++, _("Bytes"), text);
        }
      else
        grid_row (grid, (*row)++, _("Bytes"), size);
    }
}

static void
show_slice (CpDetailsPane *self,
            CpSliceRef     ref)
{
  CpLane *lane = cp_trace_get_lane (TRACE (self), ref.lane);
  const CpSlices *s = cp_lane_get_slices (lane);
  guint32 i = ref.index;
  GtkWidget *title, *grid;
  int row = 0;
  g_autofree char *lane_name = lane_title (TRACE (self), ref.lane);
  g_autofree char *start = cp_time_format_offset (cp_slices_get_start (s, i));
  g_autofree char *end = cp_time_format_offset (cp_slices_get_end (s, i));
  g_autofree char *dur = cp_ui_format_duration (cp_slices_get_dur (s, i));
  const char *cat = cp_trace_get_string (TRACE (self), cp_slices_get_cat (s, i));
  CpLaneKind kind = cp_lane_get_kind (lane);

  title = gtk_label_new (cp_trace_get_string (TRACE (self), cp_slices_get_name (s, i)));
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  wrap_without_hyphens (GTK_LABEL (title));
  gtk_label_set_selectable (GTK_LABEL (title), TRUE);
  gtk_widget_add_css_class (title, "title-4");
  gtk_widget_set_name (title, "slice-name");
  gtk_box_append (GTK_BOX (self->slice_box), title);

  grid = new_key_grid (self);
  if (cat && *cat)
    grid_row (grid, row++, _("Category"), cat);
  grid_row (grid, row++, _("Lane"), lane_name);
  grid_row (grid, row++, _("Start"), start);
  grid_row (grid, row++, _("End"), end);
  grid_row (grid, row++, _("Duration"), dur);
  /* Self time: the duration less what its children (the row below, inside
   * it) cover. Device lanes do not nest. */
  if (kind == CP_LANE_HOST_THREAD || kind == CP_LANE_ASYNC || kind == CP_LANE_DEVICE_ANNOTATION)
    {
      CpLod *lod = cp_lod_ensure (TRACE (self));
      gint64 children = cp_lod_row_coverage (lod, ref.lane, s->row[i] + 1, cp_slices_get_start (s, i), cp_slices_get_end (s, i));
      g_autofree char *self_time = cp_ui_format_duration (cp_slices_get_dur (s, i) - children);

      grid_row (grid, row++, _("Self time"), self_time);
    }
  if (s->flags[i] & CP_SLICE_PAGEABLE)
    grid_row (grid, row++, _("Host memory"), _("Pageable (a staged, synchronous copy; pin the memory)"));
  else if (s->flags[i] & CP_SLICE_PINNED)
    grid_row (grid, row++, _("Host memory"), _("Pinned"));
  if (s->flags[i] & CP_SLICE_SYNC)
    grid_row (grid, row++, _("Synchronizes"), _("Yes: the host waits here"));
  if (s->flags[i] & CP_SLICE_UNCLOSED)
    grid_row (grid, row++, _("Note"), _("Never closed in the capture: drawn to its end"));
  if (cp_slices_get_corr (s, i) != CP_NONE)
    {
      char buf[32];

      g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, cp_slices_get_corr (s, i));
      grid_row (grid, row++, _("Correlation"), buf);
    }
  add_gpu_info (self, grid, &row, ref, cp_slices_get_dur (s, i));
  gtk_box_append (GTK_BOX (self->slice_box), grid);

  add_flows (self, ref);
  add_source (self, ref);
  add_args (self, ref);
}

/* Range */

typedef struct
{
  CpTrace *trace;
  gint64   start;
  gint64   end;
} RangeJob;

static void
range_job_free (RangeJob *job)
{
  g_clear_object (&job->trace);
  g_free (job);
}

static void
range_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  RangeJob *job = task_data;
  GError *error = NULL;
  GArray *stats = cp_range_stats_compute (job->trace, job->start, job->end, cancellable, &error);

  if (stats == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stats, (GDestroyNotify) g_array_unref);
}

static void
range_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  CpDetailsPane *self = CP_DETAILS_PANE (source);
  RangeJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GArray) stats = g_task_propagate_pointer (G_TASK (result), NULL);
  GtkWidget *grid, *placeholder;
  gint64 span = MAX (job->end - job->start, 1);

  if (stats == NULL)
    return;
  placeholder = gtk_widget_get_last_child (self->range_box);
  if (placeholder)
    gtk_box_remove (GTK_BOX (self->range_box), placeholder);
  if (stats->len == 0)
    {
      GtkWidget *label = gtk_label_new (_("No slices in this range"));

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (GTK_BOX (self->range_box), label);
      return;
    }
  grid = new_grid ();
  gtk_widget_set_name (grid, "range-lanes");
  {
    /* Translators: column headers of the Selected Range table; "Share" is
     * the lane's busy time as a share of the range. */
    const char *titles[] = { N_("Lane"), N_("Slices"), N_("Busy"), N_("Share") };

    for (int c = 0; c < 4; c++)
      {
        GtkWidget *h = gtk_label_new (_(titles[c]));

        gtk_label_set_xalign (GTK_LABEL (h), c == 0 ? 0 : 1);
        gtk_widget_add_css_class (h, "dim-label");
        gtk_grid_attach (GTK_GRID (grid), h, c, 0, 1, 1);
      }
  }
  for (guint k = 0; k < stats->len; k++)
    {
      const CpRangeLaneStats *st = &g_array_index (stats, CpRangeLaneStats, k);
      g_autofree char *name = lane_title (job->trace, st->lane);
      g_autofree char *count = cp_ui_format_count (st->slices);
      g_autofree char *busy = cp_ui_format_duration (st->busy);
      g_autofree char *pct = cp_ui_format_percent (100.0 * (double) st->busy / (double) span);
      const char *cells[] = { name, count, busy, pct };

      for (int c = 0; c < 4; c++)
        {
          GtkWidget *l = gtk_label_new (cells[c]);

          gtk_label_set_xalign (GTK_LABEL (l), c == 0 ? 0 : 1);
          if (c == 0)
            {
              /* The whole name, on two lines if it must: ellipsized, the
               * lanes of one group read the same. */
              wrap_without_hyphens (GTK_LABEL (l));
              gtk_label_set_width_chars (GTK_LABEL (l), 12);
              gtk_widget_set_hexpand (l, TRUE);
              gtk_widget_set_tooltip_text (l, name);
            }
          else
            {
              gtk_widget_add_css_class (l, "numeric");
              gtk_widget_set_valign (l, GTK_ALIGN_START);
            }
          gtk_grid_attach (GTK_GRID (grid), l, c, (int) k + 1, 1, 1);
        }
    }
  gtk_box_append (GTK_BOX (self->range_box), grid);
}

static void
show_range (CpDetailsPane *self,
            gint64         start,
            gint64         end)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *a = cp_time_format_range_edge (start, end - start);
  g_autofree char *b = cp_time_format_range_edge (end, end - start);
  g_autofree char *d = cp_ui_format_duration (end - start);
  GtkWidget *grid, *placeholder;
  RangeJob *job;

  gtk_box_append (GTK_BOX (self->range_box), heading (_("Selected Range")));
  grid = new_grid ();
  grid_row (grid, 0, _("Start"), a);
  grid_row (grid, 1, _("End"), b);
  gtk_widget_set_name (grid_row (grid, 2, _("Duration"), d), "range-duration");
  gtk_box_append (GTK_BOX (self->range_box), grid);

  placeholder = gtk_label_new (_("Counting…"));
  gtk_label_set_xalign (GTK_LABEL (placeholder), 0);
  gtk_widget_add_css_class (placeholder, "dim-label");
  gtk_box_append (GTK_BOX (self->range_box), placeholder);

  g_cancellable_cancel (self->range_cancellable);
  g_clear_object (&self->range_cancellable);
  self->range_cancellable = g_cancellable_new ();
  job = g_new0 (RangeJob, 1);
  job->trace = g_object_ref (TRACE (self));
  job->start = start;
  job->end = end;
  task = g_task_new (self, self->range_cancellable, range_done_cb, NULL);
  g_task_set_source_tag (task, show_range);
  g_task_set_task_data (task, job, (GDestroyNotify) range_job_free);
  g_task_run_in_thread (task, range_thread);
}

static void
update (CpDetailsPane *self,
        guint          what)
{
  gboolean has_slice = FALSE, has_range = FALSE;
  gint64 start = 0, end = 0;

  if (TRACE (self) && VIEW (self) && cp_view_state_get_trace (VIEW (self)) == TRACE (self))
    {
      has_slice = cp_view_state_has_selected (VIEW (self));
      has_range = cp_view_state_get_time_selection (VIEW (self), &start, &end);
    }
  if (what & (CP_VIEW_CHANGE_SELECTION | CP_VIEW_CHANGE_TRACE))
    {
      clear_box (self->slice_box);
      g_array_set_size (self->links, 0);
      g_array_set_size (self->source_links, 0);
      if (has_slice)
        show_slice (self, cp_view_state_get_selected (VIEW (self)));
      gtk_widget_set_visible (self->slice_box, has_slice);
    }
  if (what & (CP_VIEW_CHANGE_TIME_SELECTION | CP_VIEW_CHANGE_TRACE))
    {
      g_cancellable_cancel (self->range_cancellable);
      clear_box (self->range_box);
      if (has_range)
        show_range (self, start, end);
      gtk_widget_set_visible (self->range_box, has_range);
    }
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), has_slice || has_range ? "details" : "empty");
}

static void
view_changed_cb (CpDetailsPane *self,
                 guint          what,
                 CpViewState   *view)
{
  update (self, what);
}

static void
cp_details_pane_trace_changed (CpPane *pane)
{
  update (CP_DETAILS_PANE (pane), CP_VIEW_CHANGE_TRACE);
}

/* The Source section needs the analysis, which may come after the
 * selection. */
static void
cp_details_pane_analysis_changed (CpPane *pane)
{
  update (CP_DETAILS_PANE (pane), CP_VIEW_CHANGE_SELECTION);
}

static void
cp_details_pane_view_state_changed (CpPane      *pane,
                                    CpViewState *old)
{
  CpDetailsPane *self = CP_DETAILS_PANE (pane);
  CpViewState *view = cp_pane_get_view_state (pane);

  if (old != NULL)
    g_clear_signal_handler (&self->view_changed_id, old);
  if (view != NULL)
    self->view_changed_id = g_signal_connect_object (view, "changed", G_CALLBACK (view_changed_cb), self,
                                                     G_CONNECT_SWAPPED);
  update (self, CP_VIEW_CHANGE_TRACE);
}

static void
cp_details_pane_dispose (GObject *object)
{
  CpDetailsPane *self = CP_DETAILS_PANE (object);

  g_cancellable_cancel (self->range_cancellable);
  g_clear_object (&self->range_cancellable);
  if (VIEW (self) != NULL)
    g_clear_signal_handler (&self->view_changed_id, VIEW (self));
  gtk_widget_dispose_template (GTK_WIDGET (self), CP_TYPE_DETAILS_PANE);
  g_clear_object (&self->key_group);

  G_OBJECT_CLASS (cp_details_pane_parent_class)->dispose (object);
}

static void
cp_details_pane_finalize (GObject *object)
{
  CpDetailsPane *self = CP_DETAILS_PANE (object);

  g_array_unref (self->links);
  g_array_unref (self->source_links);

  G_OBJECT_CLASS (cp_details_pane_parent_class)->finalize (object);
}

static void
cp_details_pane_class_init (CpDetailsPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  CpPaneClass *pane_class = CP_PANE_CLASS (klass);

  object_class->dispose = cp_details_pane_dispose;
  object_class->finalize = cp_details_pane_finalize;
  pane_class->trace_changed = cp_details_pane_trace_changed;
  pane_class->analysis_changed = cp_details_pane_analysis_changed;
  pane_class->view_state_changed = cp_details_pane_view_state_changed;

  cp_pane_class_set_layout (CP_PANE_CLASS (klass), "details");
  gtk_widget_class_bind_template_child (widget_class, CpDetailsPane, stack);
  gtk_widget_class_bind_template_child (widget_class, CpDetailsPane, content);
  gtk_widget_class_bind_template_child (widget_class, CpDetailsPane, slice_box);
  gtk_widget_class_bind_template_child (widget_class, CpDetailsPane, range_box);
}

static void
cp_details_pane_init (CpDetailsPane *self)
{
  self->links = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  self->source_links = g_array_new (FALSE, FALSE, sizeof (CpSliceRef));
  self->key_group = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
cp_details_pane_new (void)
{
  return g_object_new (CP_TYPE_DETAILS_PANE, NULL);
}

gboolean
cp_details_pane_follow_flow (CpDetailsPane *self,
                             guint          n)
{
  CpSliceRef target;

  g_return_val_if_fail (CP_IS_DETAILS_PANE (self), FALSE);

  if (VIEW (self) == NULL || n >= self->links->len)
    return FALSE;
  target = g_array_index (self->links, CpSliceRef, n);
  cp_view_state_select_and_reveal (VIEW (self), target);
  return TRUE;
}

guint
cp_details_pane_get_n_flows (CpDetailsPane *self)
{
  g_return_val_if_fail (CP_IS_DETAILS_PANE (self), 0);
  return self->links->len;
}

gboolean
cp_details_pane_follow_source (CpDetailsPane *self,
                               guint          n)
{
  g_return_val_if_fail (CP_IS_DETAILS_PANE (self), FALSE);

  if (VIEW (self) == NULL || n >= self->source_links->len)
    return FALSE;
  cp_view_state_select_and_reveal (VIEW (self), g_array_index (self->source_links, CpSliceRef, n));
  return TRUE;
}

guint
cp_details_pane_get_n_sources (CpDetailsPane *self)
{
  g_return_val_if_fail (CP_IS_DETAILS_PANE (self), 0);
  return self->source_links->len;
}
