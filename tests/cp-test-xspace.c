/* cp-test-xspace.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdarg.h>

#include "cp-test-pbwriter.h"
#include "cp-test-xspace.h"
#include "formats/cp-xplane-reader.h"
#include "model/cp-trace-builder.h"

struct _XpPlane
{
  gint64      id;
  char       *name;
  GByteArray *lines;
  GByteArray *event_meta;
  GByteArray *stat_meta;
  GByteArray *stats;
  GHashTable *stat_ids;
  GHashTable *event_ids;
  gint64      next_stat;
  gint64      next_event;
};

XpPlane *
xp_plane_new (gint64      id,
              const char *name)
{
  XpPlane *p = g_new0 (XpPlane, 1);

  p->id = id;
  p->name = g_strdup (name);
  p->lines = g_byte_array_new ();
  p->event_meta = g_byte_array_new ();
  p->stat_meta = g_byte_array_new ();
  p->stats = g_byte_array_new ();
  p->stat_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->event_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->next_stat = 1;
  p->next_event = 1;
  return p;
}

gint64
xp_stat_id (XpPlane    *plane,
            const char *name)
{
  gpointer v;
  GByteArray *entry, *meta;
  gint64 id;

  if (g_hash_table_lookup_extended (plane->stat_ids, name, NULL, &v))
    return GPOINTER_TO_SIZE (v);
  id = plane->next_stat++;
  g_hash_table_insert (plane->stat_ids, g_strdup (name), GSIZE_TO_POINTER (id));
  meta = g_byte_array_new ();
  pbw_int (meta, 1, id);
  pbw_str (meta, 2, name);
  entry = g_byte_array_new ();
  pbw_int (entry, 1, id);
  pbw_msg (entry, 2, meta);
  pbw_msg (plane->stat_meta, 5, entry);
  return id;
}

static gint64
event_meta_v (XpPlane    *plane,
              const char *name,
              const char *display_name,
              va_list     ap)
{
  gpointer v;
  GByteArray *entry, *meta, *stat;
  gint64 id;

  if (g_hash_table_lookup_extended (plane->event_ids, name, NULL, &v))
    return GPOINTER_TO_SIZE (v);
  id = plane->next_event++;
  g_hash_table_insert (plane->event_ids, g_strdup (name), GSIZE_TO_POINTER (id));
  meta = g_byte_array_new ();
  pbw_int (meta, 1, id);
  pbw_str (meta, 2, name);
  if (display_name != NULL)
    pbw_str (meta, 4, display_name);
  while ((stat = va_arg (ap, GByteArray *)) != NULL)
    pbw_msg (meta, 5, stat);
  entry = g_byte_array_new ();
  pbw_int (entry, 1, id);
  pbw_msg (entry, 2, meta);
  pbw_msg (plane->event_meta, 4, entry);
  return id;
}

gint64
xp_event_meta (XpPlane    *plane,
               const char *name,
               const char *display_name,
               ...)
{
  va_list ap;
  gint64 id;

  va_start (ap, display_name);
  id = event_meta_v (plane, name, display_name, ap);
  va_end (ap);
  return id;
}

static GByteArray *
stat_head (XpPlane    *plane,
           const char *name)
{
  GByteArray *s = g_byte_array_new ();

  pbw_int (s, 1, xp_stat_id (plane, name));
  return s;
}

GByteArray *
xp_stat_int (XpPlane    *plane,
             const char *name,
             gint64      v)
{
  GByteArray *s = stat_head (plane, name);

  pbw_int (s, 4, v);
  return s;
}

GByteArray *
xp_stat_uint (XpPlane    *plane,
              const char *name,
              guint64     v)
{
  GByteArray *s = stat_head (plane, name);

  pbw_uint (s, 3, v);
  return s;
}

GByteArray *
xp_stat_double (XpPlane    *plane,
                const char *name,
                double      v)
{
  GByteArray *s = stat_head (plane, name);

  pbw_double (s, 2, v);
  return s;
}

GByteArray *
xp_stat_str (XpPlane    *plane,
             const char *name,
             const char *v)
{
  GByteArray *s = stat_head (plane, name);

  pbw_str (s, 5, v);
  return s;
}

GByteArray *
xp_stat_bytes (XpPlane    *plane,
               const char *name,
               gsize       len)
{
  GByteArray *s = stat_head (plane, name);
  g_autofree guint8 *zeros = g_malloc0 (MAX (len, 1));

  pbw_bytes (s, 6, zeros, len);
  return s;
}

GByteArray *
xp_stat_ref (XpPlane    *plane,
             const char *name,
             const char *v)
{
  GByteArray *s = stat_head (plane, name);

  pbw_uint (s, 7, xp_stat_id (plane, v));
  return s;
}

static GByteArray *
event_v (XpPlane    *plane,
         const char *name,
         gint64      offset_ps,
         gint64      duration_ps,
         va_list     ap)
{
  GByteArray *e = g_byte_array_new ();
  GByteArray *stat;
  gint64 id = xp_event_meta (plane, name, NULL, NULL);

  pbw_int (e, 1, id);
  if (offset_ps != 0)
    pbw_int (e, 2, offset_ps);
  if (duration_ps != 0)
    pbw_int (e, 3, duration_ps);
  while ((stat = va_arg (ap, GByteArray *)) != NULL)
    pbw_msg (e, 4, stat);
  return e;
}

GByteArray *
xp_event (XpPlane    *plane,
          const char *name,
          gint64      offset_ps,
          gint64      duration_ps,
          ...)
{
  va_list ap;
  GByteArray *e;

  va_start (ap, duration_ps);
  e = event_v (plane, name, offset_ps, duration_ps, ap);
  va_end (ap);
  return e;
}

GByteArray *
xp_event_raw (gint64 metadata_id,
              gint64 offset_ps,
              gint64 duration_ps)
{
  GByteArray *e = g_byte_array_new ();

  if (metadata_id != 0)
    pbw_int (e, 1, metadata_id);
  if (offset_ps != 0)
    pbw_int (e, 2, offset_ps);
  if (duration_ps != 0)
    pbw_int (e, 3, duration_ps);
  return e;
}

GByteArray *
xp_event_aggregated (XpPlane    *plane,
                     const char *name,
                     gint64      num_occurrences,
                     gint64      duration_ps)
{
  GByteArray *e = g_byte_array_new ();

  pbw_int (e, 1, xp_event_meta (plane, name, NULL, NULL));
  pbw_int (e, 5, num_occurrences);
  pbw_int (e, 3, duration_ps);
  return e;
}

void
xp_line (XpPlane    *plane,
         gint64      id,
         gint64      display_id,
         const char *name,
         const char *display_name,
         gint64      timestamp_ns,
         ...)
{
  GByteArray *l = g_byte_array_new ();
  GByteArray *e;
  va_list ap;

  if (id != 0)
    pbw_int (l, 1, id);
  pbw_str (l, 2, name);
  if (timestamp_ns != 0)
    pbw_int (l, 3, timestamp_ns);
  va_start (ap, timestamp_ns);
  while ((e = va_arg (ap, GByteArray *)) != NULL)
    pbw_msg (l, 4, e);
  va_end (ap);
  if (display_id != 0)
    pbw_int (l, 10, display_id);
  if (display_name != NULL)
    pbw_str (l, 11, display_name);
  pbw_msg (plane->lines, 3, l);
}

void
xp_plane_stat (XpPlane    *plane,
               GByteArray *stat)
{
  pbw_msg (plane->stats, 6, stat);
}

void
xp_space_add_plane (GByteArray *space,
                    XpPlane    *plane)
{
  GByteArray *p = g_byte_array_new ();

  if (plane->id != 0)
    pbw_int (p, 1, plane->id);
  pbw_str (p, 2, plane->name);
  g_byte_array_append (p, plane->lines->data, plane->lines->len);
  g_byte_array_append (p, plane->event_meta->data, plane->event_meta->len);
  g_byte_array_append (p, plane->stat_meta->data, plane->stat_meta->len);
  g_byte_array_append (p, plane->stats->data, plane->stats->len);
  pbw_msg (space, 1, p);

  g_byte_array_unref (plane->lines);
  g_byte_array_unref (plane->event_meta);
  g_byte_array_unref (plane->stat_meta);
  g_byte_array_unref (plane->stats);
  g_hash_table_unref (plane->stat_ids);
  g_hash_table_unref (plane->event_ids);
  g_free (plane->name);
  g_free (plane);
}

void
xp_space_add_hostname (GByteArray *space,
                       const char *hostname)
{
  pbw_str (space, 4, hostname);
}

void
xp_space_add_task_env (GByteArray *space,
                       guint64     profile_start_ns)
{
  XpPlane *p = xp_plane_new (0, "Task Environment");

  xp_plane_stat (p, xp_stat_uint (p, "profile_start_time", profile_start_ns));
  xp_plane_stat (p, xp_stat_uint (p, "profile_stop_time", profile_start_ns + 1000000000));
  xp_space_add_plane (space, p);
}

CpTrace *
xp_space_load (GByteArray  *space,
               CpAnalysis **analysis)
{
  CpTraceBuilder *b = cp_trace_builder_new ();
  g_autoptr(CpXPlaneReader) r = cp_xplane_reader_new (b);
  g_autoptr(GError) error = NULL;
  CpXPlaneInput input = { 0 };
  CpTrace *trace;

  input.data = space->data;
  input.len = space->len;
  input.host_hint = "testhost";
  input.progress_total = space->len;
  g_assert_true (cp_xplane_reader_add_space (r, &input, NULL, &error));
  g_assert_no_error (error);
  cp_xplane_reader_finish (r);
  trace = cp_trace_builder_finish (b, &error);
  g_assert_no_error (error);
  if (analysis != NULL)
    {
      *analysis = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
    }
  return trace;
}
