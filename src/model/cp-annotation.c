/* cp-annotation.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-annotation-private.h"

struct _CpAnnotation
{
  GObject          parent_instance;

  guint            id;
  CpAnnotationKind kind;
  char            *text;
  guint32          rgba;
  gint64           start;
  gint64           end;
  gint64           created;
  gint64           modified;
  CpLaneIdentity  *lane_identity;   /* NULL: every lane */
  char            *rule;

  /* Attachment: the slice's start when it was last placed, and its name. */
  gboolean         attached;
  gint64           slice_start;
  char            *slice_name;

  /* Placement in the current trace. */
  guint            lane;
  CpSliceRef       slice;
  gboolean         detached;
};

G_DEFINE_FINAL_TYPE (CpAnnotation, cp_annotation, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TEXT,
  PROP_COLOR,
  PROP_START,
  PROP_END,
  PROP_MODIFIED,
  PROP_DETACHED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* GNOME palette colours that read on light and dark backgrounds; purple
 * first, the timeline's default note colour. */
static const guint32 palette[CP_ANNOTATION_N_COLORS] = {
  0x9141acff,   /* purple */
  0x3584e4ff,   /* blue */
  0x26a269ff,   /* green */
  0xe5a50aff,   /* yellow */
  0xe66100ff,   /* orange */
  0xc01c28ff,   /* red */
};

guint32
cp_annotation_get_palette_color (guint index)
{
  return palette[index % CP_ANNOTATION_N_COLORS];
}

const char *
cp_annotation_kind_to_string (CpAnnotationKind kind)
{
  return kind == CP_ANNOTATION_MARKER ? "marker" : "note";
}

gboolean
cp_annotation_kind_from_string (const char       *str,
                                CpAnnotationKind *kind)
{
  if (g_strcmp0 (str, "marker") == 0)
    *kind = CP_ANNOTATION_MARKER;
  else if (g_strcmp0 (str, "note") == 0)
    *kind = CP_ANNOTATION_NOTE;
  else
    return FALSE;
  return TRUE;
}

/* Lane identity ---------------------------------------------------------- */

CpLaneIdentity *
cp_lane_identity_new (CpTrace *trace,
                      guint    lane_index)
{
  CpLaneIdentity *id;
  CpLane *lane;
  const CpProcess *process;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (lane_index < cp_trace_get_n_lanes (trace), NULL);

  lane = cp_trace_get_lane (trace, lane_index);
  process = cp_trace_get_process (trace, cp_lane_get_process (lane));
  id = g_new0 (CpLaneIdentity, 1);
  id->kind = cp_lane_get_kind (lane);
  id->process = g_strdup (process ? cp_trace_get_string (trace, process->key) : "");
  id->number = cp_lane_get_tid (lane);
  id->name = g_strdup (cp_lane_get_name (lane) ? cp_lane_get_name (lane) : "");
  return id;
}

CpLaneIdentity *
cp_lane_identity_copy (const CpLaneIdentity *identity)
{
  CpLaneIdentity *copy;

  if (identity == NULL)
    return NULL;
  copy = g_new0 (CpLaneIdentity, 1);
  copy->kind = identity->kind;
  copy->process = g_strdup (identity->process ? identity->process : "");
  copy->number = identity->number;
  copy->name = g_strdup (identity->name ? identity->name : "");
  return copy;
}

void
cp_lane_identity_free (CpLaneIdentity *identity)
{
  if (identity == NULL)
    return;
  g_free (identity->process);
  g_free (identity->name);
  g_free (identity);
}

static gboolean
same_lane_key (const CpLaneIdentity *a,
               const CpLaneIdentity *b)
{
  return a->kind == b->kind && a->number == b->number &&
         g_strcmp0 (a->process, b->process) == 0;
}

gboolean
cp_lane_identity_equal (const CpLaneIdentity *a,
                        const CpLaneIdentity *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return same_lane_key (a, b) && g_strcmp0 (a->name, b->name) == 0;
}

gboolean
cp_lane_identity_find (const CpLaneIdentity *identity,
                       CpTrace              *trace,
                       guint                *lane)
{
  guint n_key = 0, key_lane = 0;

  g_return_val_if_fail (identity != NULL, FALSE);
  g_return_val_if_fail (CP_IS_TRACE (trace), FALSE);

  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      g_autoptr(CpLaneIdentity) other = cp_lane_identity_new (trace, i);

      if (!same_lane_key (identity, other))
        continue;
      if (g_strcmp0 (identity->name, other->name) == 0)
        {
          if (lane)
            *lane = i;
          return TRUE;
        }
      n_key++;
      key_lane = i;
    }
  if (n_key == 1)
    {
      if (lane)
        *lane = key_lane;
      return TRUE;
    }
  return FALSE;
}

/* The slice of a lane that starts at start and has this name, or -1. */
static gint
find_slice_in_lane (CpTrace    *trace,
                    guint       lane_index,
                    gint64      start,
                    const char *name)
{
  CpLane *lane = cp_trace_get_lane (trace, lane_index);
  const CpSlices *s = cp_lane_get_slices (lane);
  guint i;

  if (s->n == 0 || start == G_MININT64)
    return -1;
  i = cp_lane_first_starting_after (lane, start - 1);
  for (; i < s->n && cp_slices_get_start (s, i) == start; i++)
    {
      if (g_strcmp0 (cp_trace_get_string (trace, cp_slices_get_name (s, i)), name) == 0)
        return (gint) i;
    }
  return -1;
}

/* Annotation ------------------------------------------------------------- */

CpAnnotation *
_cp_annotation_new (guint                     id,
                    const CpAnnotationRecord *record)
{
  CpAnnotation *self = g_object_new (CP_TYPE_ANNOTATION, NULL);
  gint64 now = g_get_real_time ();

  self->id = id;
  self->kind = record->kind == CP_ANNOTATION_MARKER ? CP_ANNOTATION_MARKER : CP_ANNOTATION_NOTE;
  self->text = g_strdup (record->text ? record->text : "");
  self->rgba = record->rgba ? record->rgba : palette[0];
  self->start = record->start;
  self->end = self->kind == CP_ANNOTATION_MARKER ? record->start : MAX (record->end, record->start);
  self->created = record->created ? record->created : now;
  self->modified = record->modified ? record->modified : self->created;
  self->lane_identity = cp_lane_identity_copy (record->lane);
  self->attached = record->lane != NULL && record->attached;
  self->slice_start = record->slice_start;
  self->slice_name = g_strdup (self->attached ? record->slice_name : NULL);
  self->rule = g_strdup (record->rule);
  self->lane = CP_ANNOTATION_ALL_LANES;
  self->slice = CP_SLICE_REF_NONE;
  self->detached = self->lane_identity != NULL;
  return self;
}

static void
set_placement (CpAnnotation *self,
               guint         lane,
               CpSliceRef    slice,
               gboolean      detached,
               gboolean     *changed)
{
  if (self->lane != lane || self->slice.lane != slice.lane || self->slice.index != slice.index)
    *changed = TRUE;
  self->lane = lane;
  self->slice = slice;
  if (self->detached != detached)
    {
      self->detached = detached;
      *changed = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DETACHED]);
    }
}

/* Moves the annotation by dt, keeping its offset from its slice. */
static void
shift_times (CpAnnotation *self,
             gint64        dt,
             gboolean     *changed)
{
  if (dt == 0)
    return;
  self->start += dt;
  self->end += dt;
  self->slice_start += dt;
  *changed = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_START]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_END]);
}

gboolean
_cp_annotation_resolve (CpAnnotation *self,
                        CpTrace      *trace)
{
  gboolean changed = FALSE;
  guint lane = 0;

  g_return_val_if_fail (CP_IS_ANNOTATION (self), FALSE);

  if (self->lane_identity == NULL)
    {
      set_placement (self, CP_ANNOTATION_ALL_LANES, CP_SLICE_REF_NONE, FALSE, &changed);
      return changed;
    }
  if (trace == NULL)
    {
      set_placement (self, CP_ANNOTATION_ALL_LANES, CP_SLICE_REF_NONE, TRUE, &changed);
      return changed;
    }

  if (!self->attached)
    {
      if (cp_lane_identity_find (self->lane_identity, trace, &lane))
        set_placement (self, lane, CP_SLICE_REF_NONE, FALSE, &changed);
      else
        set_placement (self, CP_ANNOTATION_ALL_LANES, CP_SLICE_REF_NONE, TRUE, &changed);
      return changed;
    }

  /* Attached: the slice on its lane, else the one slice with the same start
   * and name on any lane of the same kind (a lane the reader now names or
   * numbers differently). */
  {
    gint index = -1;

    if (cp_lane_identity_find (self->lane_identity, trace, &lane))
      index = find_slice_in_lane (trace, lane, self->slice_start, self->slice_name);
    if (index < 0)
      {
        guint n_found = 0, found_lane = 0;
        gint found_index = -1;

        for (guint i = 0; i < cp_trace_get_n_lanes (trace) && n_found < 2; i++)
          {
            gint k;

            if (cp_lane_get_kind (cp_trace_get_lane (trace, i)) != self->lane_identity->kind)
              continue;
            k = find_slice_in_lane (trace, i, self->slice_start, self->slice_name);
            if (k >= 0)
              {
                n_found++;
                found_lane = i;
                found_index = k;
              }
          }
        if (n_found == 1)
          {
            lane = found_lane;
            index = found_index;
            cp_lane_identity_free (self->lane_identity);
            self->lane_identity = cp_lane_identity_new (trace, lane);
          }
      }
    if (index < 0)
      {
        set_placement (self, CP_ANNOTATION_ALL_LANES, CP_SLICE_REF_NONE, TRUE, &changed);
        return changed;
      }
    shift_times (self, cp_trace_slice_start (trace, (CpSliceRef) { lane, index }) - self->slice_start,
                 &changed);
    set_placement (self, lane, (CpSliceRef) { lane, index }, FALSE, &changed);
  }
  return changed;
}

void
_cp_annotation_place (CpAnnotation *self,
                      CpTrace      *trace,
                      guint         lane,
                      CpSliceRef    slice)
{
  gboolean changed = FALSE;

  g_return_if_fail (CP_IS_ANNOTATION (self));

  g_clear_pointer (&self->lane_identity, cp_lane_identity_free);
  g_clear_pointer (&self->slice_name, g_free);
  self->attached = FALSE;

  if (trace != NULL && slice.lane != G_MAXUINT32 && cp_trace_slice_ref_valid (trace, slice))
    {
      self->lane_identity = cp_lane_identity_new (trace, slice.lane);
      self->attached = TRUE;
      self->slice_start = cp_trace_slice_start (trace, slice);
      self->slice_name = g_strdup (cp_trace_slice_name (trace, slice));
      set_placement (self, slice.lane, slice, FALSE, &changed);
    }
  else if (trace != NULL && lane < cp_trace_get_n_lanes (trace))
    {
      self->lane_identity = cp_lane_identity_new (trace, lane);
      set_placement (self, lane, CP_SLICE_REF_NONE, FALSE, &changed);
    }
  else
    set_placement (self, CP_ANNOTATION_ALL_LANES, CP_SLICE_REF_NONE, FALSE, &changed);
}

void
_cp_annotation_touch (CpAnnotation *self)
{
  /* Strictly increasing, so that an edit within the same microsecond as the
   * creation still counts as later. */
  self->modified = MAX (g_get_real_time (), self->modified + 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

guint
cp_annotation_get_id (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->id;
}

CpAnnotationKind
cp_annotation_get_kind (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), CP_ANNOTATION_MARKER);
  return self->kind;
}

const char *
cp_annotation_get_text (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), NULL);
  return self->text;
}

void
cp_annotation_set_text (CpAnnotation *self,
                        const char   *text)
{
  g_return_if_fail (CP_IS_ANNOTATION (self));

  if (text == NULL)
    text = "";
  if (g_strcmp0 (self->text, text) == 0)
    return;
  g_free (self->text);
  self->text = g_strdup (text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
  _cp_annotation_touch (self);
}

char *
cp_annotation_dup_title (CpAnnotation *self)
{
  const char *nl;
  g_autofree char *line = NULL;

  g_return_val_if_fail (CP_IS_ANNOTATION (self), NULL);

  nl = strchr (self->text, '\n');
  line = nl ? g_strndup (self->text, nl - self->text) : g_strdup (self->text);
  return g_strstrip (g_steal_pointer (&line));
}

guint32
cp_annotation_get_color (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->rgba;
}

void
cp_annotation_set_color (CpAnnotation *self,
                         guint32       rgba)
{
  g_return_if_fail (CP_IS_ANNOTATION (self));

  if (rgba == 0)
    rgba = palette[0];
  if (self->rgba == rgba)
    return;
  self->rgba = rgba;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLOR]);
  _cp_annotation_touch (self);
}

gint64
cp_annotation_get_start (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->start;
}

gint64
cp_annotation_get_end (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->end;
}

void
cp_annotation_set_range (CpAnnotation *self,
                         gint64        start,
                         gint64        end)
{
  g_return_if_fail (CP_IS_ANNOTATION (self));

  if (self->kind == CP_ANNOTATION_MARKER || end < start)
    end = start;
  if (self->start == start && self->end == end)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  if (self->start != start)
    {
      self->start = start;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_START]);
    }
  if (self->end != end)
    {
      self->end = end;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_END]);
    }
  _cp_annotation_touch (self);
  g_object_thaw_notify (G_OBJECT (self));
}

gint64
cp_annotation_get_created (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->created;
}

gint64
cp_annotation_get_modified (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->modified;
}

const CpLaneIdentity *
cp_annotation_get_lane_identity (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), NULL);
  return self->lane_identity;
}

gboolean
cp_annotation_is_attached (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), FALSE);
  return self->attached;
}

gint64
cp_annotation_get_slice_start (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), 0);
  return self->slice_start;
}

const char *
cp_annotation_get_slice_name (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), NULL);
  return self->slice_name;
}

guint
cp_annotation_get_lane (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), CP_ANNOTATION_ALL_LANES);
  return self->lane;
}

CpSliceRef
cp_annotation_get_slice (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), CP_SLICE_REF_NONE);
  return self->slice;
}

gboolean
cp_annotation_is_detached (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), FALSE);
  return self->detached;
}

const char *
cp_annotation_get_rule (CpAnnotation *self)
{
  g_return_val_if_fail (CP_IS_ANNOTATION (self), NULL);
  return self->rule;
}

static void
cp_annotation_finalize (GObject *object)
{
  CpAnnotation *self = CP_ANNOTATION (object);

  g_free (self->text);
  g_free (self->rule);
  g_free (self->slice_name);
  cp_lane_identity_free (self->lane_identity);

  G_OBJECT_CLASS (cp_annotation_parent_class)->finalize (object);
}

static void
cp_annotation_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CpAnnotation *self = CP_ANNOTATION (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_COLOR:
      g_value_set_uint (value, self->rgba);
      break;
    case PROP_START:
      g_value_set_int64 (value, self->start);
      break;
    case PROP_END:
      g_value_set_int64 (value, self->end);
      break;
    case PROP_MODIFIED:
      g_value_set_int64 (value, self->modified);
      break;
    case PROP_DETACHED:
      g_value_set_boolean (value, self->detached);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_annotation_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CpAnnotation *self = CP_ANNOTATION (object);

  switch (prop_id)
    {
    case PROP_TEXT:
      cp_annotation_set_text (self, g_value_get_string (value));
      break;
    case PROP_COLOR:
      cp_annotation_set_color (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_annotation_class_init (CpAnnotationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cp_annotation_finalize;
  object_class->get_property = cp_annotation_get_property;
  object_class->set_property = cp_annotation_set_property;

  properties[PROP_TEXT] =
    g_param_spec_string ("text", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COLOR] =
    g_param_spec_uint ("color", NULL, NULL, 0, G_MAXUINT32, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_START] =
    g_param_spec_int64 ("start", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_END] =
    g_param_spec_int64 ("end", NULL, NULL, G_MININT64, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODIFIED] =
    g_param_spec_int64 ("modified", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_DETACHED] =
    g_param_spec_boolean ("detached", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cp_annotation_init (CpAnnotation *self)
{
  self->lane = CP_ANNOTATION_ALL_LANES;
  self->slice = CP_SLICE_REF_NONE;
}
