/* cp-annotations.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "cp-annotation-private.h"
#include "cp-annotations.h"

struct _CpAnnotations
{
  GObject    parent_instance;

  GPtrArray *items;       /* of CpAnnotation, sorted by (start, id) */
  CpTrace   *trace;
  guint      next_id;
  guint64    serial;
  /* While the collection itself changes an annotation, its notifications
   * are not treated as edits. */
  guint      placing;
};

static void cp_annotations_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (CpAnnotations, cp_annotations, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      cp_annotations_list_model_init))

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* GListModel -------------------------------------------------------------- */

static GType
list_get_item_type (GListModel *model)
{
  return CP_TYPE_ANNOTATION;
}

static guint
list_get_n_items (GListModel *model)
{
  return CP_ANNOTATIONS (model)->items->len;
}

static gpointer
list_get_item (GListModel *model,
               guint       position)
{
  CpAnnotations *self = CP_ANNOTATIONS (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
cp_annotations_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = list_get_item_type;
  iface->get_n_items = list_get_n_items;
  iface->get_item = list_get_item;
}

/* Order ------------------------------------------------------------------- */

static int
compare (CpAnnotation *a,
         CpAnnotation *b)
{
  gint64 sa = cp_annotation_get_start (a), sb = cp_annotation_get_start (b);

  if (sa != sb)
    return sa < sb ? -1 : 1;
  if (cp_annotation_get_id (a) != cp_annotation_get_id (b))
    return cp_annotation_get_id (a) < cp_annotation_get_id (b) ? -1 : 1;
  return 0;
}

static int
compare_indirect (gconstpointer a,
                  gconstpointer b)
{
  return compare (*(CpAnnotation **) a, *(CpAnnotation **) b);
}

/* Where a belongs among the items other than itself. */
static guint
insertion_point (CpAnnotations *self,
                 CpAnnotation  *a)
{
  guint lo = 0, hi = self->items->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (compare (g_ptr_array_index (self->items, mid), a) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
emit_changed (CpAnnotations *self)
{
  self->serial++;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* Puts an annotation whose start changed back in order. */
static void
resort (CpAnnotations *self,
        CpAnnotation  *a)
{
  guint old_pos, new_pos;

  if (!g_ptr_array_find (self->items, a, &old_pos))
    return;
  g_ptr_array_steal_index (self->items, old_pos);
  new_pos = insertion_point (self, a);
  g_ptr_array_insert (self->items, new_pos, a);
  if (old_pos == new_pos)
    g_list_model_items_changed (G_LIST_MODEL (self), old_pos, 1, 1);
  else
    {
      g_list_model_items_changed (G_LIST_MODEL (self), old_pos, 1, 0);
      g_list_model_items_changed (G_LIST_MODEL (self), new_pos, 0, 1);
    }
}

static void
annotation_notify_cb (CpAnnotations *self,
                      GParamSpec    *pspec,
                      CpAnnotation  *a)
{
  const char *name = g_param_spec_get_name (pspec);

  if (self->placing > 0)
    return;
  /* One "modified" notification comes with every edit. */
  if (g_str_equal (name, "start"))
    resort (self, a);
  else if (g_str_equal (name, "modified"))
    emit_changed (self);
}

static CpAnnotation *
insert (CpAnnotations *self,
        CpAnnotation  *a)
{
  guint pos = insertion_point (self, a);

  g_ptr_array_insert (self->items, pos, a);
  g_signal_connect_object (a, "notify", G_CALLBACK (annotation_notify_cb), self, G_CONNECT_SWAPPED);
  g_list_model_items_changed (G_LIST_MODEL (self), pos, 0, 1);
  emit_changed (self);
  return a;
}

/* API --------------------------------------------------------------------- */

CpAnnotations *
cp_annotations_new (void)
{
  return g_object_new (CP_TYPE_ANNOTATIONS, NULL);
}

CpTrace *
cp_annotations_get_trace (CpAnnotations *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);
  return self->trace;
}

void
cp_annotations_set_trace (CpAnnotations *self,
                          CpTrace       *trace)
{
  g_return_if_fail (CP_IS_ANNOTATIONS (self));
  g_return_if_fail (trace == NULL || CP_IS_TRACE (trace));

  g_set_object (&self->trace, trace);
  if (self->items->len == 0)
    return;

  /* Placing can move attached annotations: re-sort and tell list views. */
  self->placing++;
  for (guint i = 0; i < self->items->len; i++)
    _cp_annotation_resolve (g_ptr_array_index (self->items, i), trace);
  self->placing--;
  g_ptr_array_sort (self->items, compare_indirect);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, self->items->len, self->items->len);
}

static CpAnnotation *
add (CpAnnotations    *self,
     CpAnnotationKind  kind,
     gint64            start,
     gint64            end,
     guint             lane,
     CpSliceRef        slice,
     const char       *text,
     guint32           rgba,
     const char       *rule)
{
  CpAnnotationRecord record = { 0 };
  CpAnnotation *a;

  record.kind = kind;
  record.text = text;
  record.rgba = rgba;
  record.start = start;
  record.end = end;
  record.rule = rule;
  a = _cp_annotation_new (self->next_id++, &record);
  _cp_annotation_place (a, self->trace, lane, slice);
  return insert (self, a);
}

CpAnnotation *
cp_annotations_add_marker (CpAnnotations *self,
                           gint64         t,
                           guint          lane,
                           const char    *text,
                           guint32        rgba)
{
  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);

  return add (self, CP_ANNOTATION_MARKER, t, t, lane, CP_SLICE_REF_NONE, text, rgba, NULL);
}

CpAnnotation *
cp_annotations_add_note (CpAnnotations *self,
                         gint64         start,
                         gint64         end,
                         guint          lane,
                         const char    *text,
                         guint32        rgba)
{
  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);

  return add (self, CP_ANNOTATION_NOTE, MIN (start, end), MAX (start, end), lane,
              CP_SLICE_REF_NONE, text, rgba, NULL);
}

CpAnnotation *
cp_annotations_add_slice_note (CpAnnotations *self,
                               CpSliceRef     ref,
                               const char    *text,
                               guint32        rgba)
{
  gint64 start;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);
  g_return_val_if_fail (self->trace != NULL && cp_trace_slice_ref_valid (self->trace, ref), NULL);

  start = cp_trace_slice_start (self->trace, ref);
  return add (self, CP_ANNOTATION_NOTE, start, start + cp_trace_slice_dur (self->trace, ref),
              ref.lane, ref, text, rgba, NULL);
}

CpAnnotation *
cp_annotations_add_evidence (CpAnnotations *self,
                             guint          lane,
                             gint64         start,
                             gint64         end,
                             const char    *text,
                             guint32        rgba,
                             const char    *rule)
{
  CpSliceRef slice = CP_SLICE_REF_NONE;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);

  /* Evidence that is exactly one slice is attached to it, so that it follows
   * the slice. */
  if (self->trace != NULL && lane < cp_trace_get_n_lanes (self->trace))
    {
      CpLane *l = cp_trace_get_lane (self->trace, lane);
      const CpSlices *s = cp_lane_get_slices (l);

      for (guint i = cp_lane_first_starting_after (l, start - 1); i < s->n && cp_slices_get_start (s, i) == start; i++)
        {
          if (cp_slices_get_end (s, i) == end)
            {
              slice = (CpSliceRef) { lane, i };
              break;
            }
        }
    }
  return add (self, CP_ANNOTATION_NOTE, MIN (start, end), MAX (start, end), lane, slice,
              text, rgba, rule);
}

CpAnnotation *
cp_annotations_restore (CpAnnotations            *self,
                        const CpAnnotationRecord *record)
{
  CpAnnotation *a;
  guint id;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);
  g_return_val_if_fail (record != NULL, NULL);

  id = record->id;
  if (id == 0 || cp_annotations_lookup (self, id) != NULL)
    id = self->next_id;
  self->next_id = MAX (self->next_id, id + 1);
  a = _cp_annotation_new (id, record);
  _cp_annotation_resolve (a, self->trace);
  return insert (self, a);
}

void
cp_annotations_attach (CpAnnotations *self,
                       CpAnnotation  *annotation,
                       CpSliceRef     ref)
{
  g_return_if_fail (CP_IS_ANNOTATIONS (self));
  g_return_if_fail (CP_IS_ANNOTATION (annotation));
  g_return_if_fail (self->trace != NULL && cp_trace_slice_ref_valid (self->trace, ref));

  self->placing++;
  _cp_annotation_place (annotation, self->trace, ref.lane, ref);
  _cp_annotation_touch (annotation);
  self->placing--;
  g_list_model_items_changed (G_LIST_MODEL (self), cp_annotations_find (self, annotation), 1, 1);
  emit_changed (self);
}

void
cp_annotations_detach (CpAnnotations *self,
                       CpAnnotation  *annotation)
{
  guint lane;

  g_return_if_fail (CP_IS_ANNOTATIONS (self));
  g_return_if_fail (CP_IS_ANNOTATION (annotation));

  if (!cp_annotation_is_attached (annotation))
    return;
  lane = cp_annotation_get_lane (annotation);
  self->placing++;
  _cp_annotation_place (annotation, self->trace, lane, CP_SLICE_REF_NONE);
  _cp_annotation_touch (annotation);
  self->placing--;
  g_list_model_items_changed (G_LIST_MODEL (self), cp_annotations_find (self, annotation), 1, 1);
  emit_changed (self);
}

gboolean
cp_annotations_remove (CpAnnotations *self,
                       CpAnnotation  *annotation)
{
  guint pos;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), FALSE);
  g_return_val_if_fail (CP_IS_ANNOTATION (annotation), FALSE);

  if (!g_ptr_array_find (self->items, annotation, &pos))
    return FALSE;
  g_signal_handlers_disconnect_by_data (annotation, self);
  g_ptr_array_remove_index (self->items, pos);
  g_list_model_items_changed (G_LIST_MODEL (self), pos, 1, 0);
  emit_changed (self);
  return TRUE;
}

void
cp_annotations_remove_all (CpAnnotations *self)
{
  guint n;

  g_return_if_fail (CP_IS_ANNOTATIONS (self));

  n = self->items->len;
  if (n == 0)
    return;
  for (guint i = 0; i < n; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->items, i), self);
  g_ptr_array_set_size (self->items, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
  emit_changed (self);
}

CpAnnotation *
cp_annotations_lookup (CpAnnotations *self,
                       guint          id)
{
  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), NULL);

  for (guint i = 0; i < self->items->len; i++)
    {
      CpAnnotation *a = g_ptr_array_index (self->items, i);

      if (cp_annotation_get_id (a) == id)
        return a;
    }
  return NULL;
}

gint
cp_annotations_find (CpAnnotations *self,
                     CpAnnotation  *annotation)
{
  guint pos;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), -1);

  if (!g_ptr_array_find (self->items, annotation, &pos))
    return -1;
  return (gint) pos;
}

guint
cp_annotations_get_n_detached (CpAnnotations *self)
{
  guint n = 0;

  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), 0);

  for (guint i = 0; i < self->items->len; i++)
    n += cp_annotation_is_detached (g_ptr_array_index (self->items, i));
  return n;
}

guint64
cp_annotations_get_serial (CpAnnotations *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATIONS (self), 0);
  return self->serial;
}

/* GObject ----------------------------------------------------------------- */

static void
cp_annotations_dispose (GObject *object)
{
  CpAnnotations *self = CP_ANNOTATIONS (object);

  for (guint i = 0; i < self->items->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->items, i), self);
  g_ptr_array_set_size (self->items, 0);
  g_clear_object (&self->trace);

  G_OBJECT_CLASS (cp_annotations_parent_class)->dispose (object);
}

static void
cp_annotations_finalize (GObject *object)
{
  CpAnnotations *self = CP_ANNOTATIONS (object);

  g_ptr_array_unref (self->items);

  G_OBJECT_CLASS (cp_annotations_parent_class)->finalize (object);
}

static void
cp_annotations_class_init (CpAnnotationsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = cp_annotations_dispose;
  object_class->finalize = cp_annotations_finalize;

  /**
   * CpAnnotations::changed:
   *
   * Emitted after an annotation was added, removed, edited, moved,
   * attached or detached.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
cp_annotations_init (CpAnnotations *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->next_id = 1;
}
