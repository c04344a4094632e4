/* cp-lane-group.c: the lanes of one process or device, for lists
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-format.h"
#include "cp-lane-group.h"

struct _CpLaneGroup
{
  GObject     parent_instance;

  char       *title;
  char       *subtitle;
  GListStore *lanes;
  guint64     n_slices;
  guint       process;
  gboolean    is_device;
};

G_DEFINE_FINAL_TYPE (CpLaneGroup, cp_lane_group, G_TYPE_OBJECT)

static void
cp_lane_group_finalize (GObject *object)
{
  CpLaneGroup *self = CP_LANE_GROUP (object);

  g_free (self->title);
  g_free (self->subtitle);
  g_clear_object (&self->lanes);

  G_OBJECT_CLASS (cp_lane_group_parent_class)->finalize (object);
}

static void
cp_lane_group_class_init (CpLaneGroupClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cp_lane_group_finalize;
}

static void
cp_lane_group_init (CpLaneGroup *self)
{
  self->lanes = g_list_store_new (CP_TYPE_LANE);
}

static CpLaneGroup *
cp_lane_group_new (CpTrace *trace,
                   guint    process)
{
  CpLaneGroup *self = g_object_new (CP_TYPE_LANE_GROUP, NULL);
  const CpProcess *proc = cp_trace_get_process (trace, process);
  const char *name = cp_trace_get_string (trace, proc->name);
  const char *labels = cp_trace_get_string (trace, proc->labels);
  const char *key = cp_trace_get_string (trace, proc->key);
  const CpDevice *device = proc->is_device ? cp_trace_find_device (trace, proc->device) : NULL;
  g_autofree char *device_name = device ? cp_ui_format_device_name (trace, device) : NULL;

  self->process = process;
  self->is_device = proc->is_device;

  /* Devices are named as the capture labels them ("GPU 0"), with the
   * product below; host processes by name, with their pid below. */
  if (proc->is_device)
    {
      if (labels != NULL && labels[0] != '\0')
        self->title = g_strdup (labels);
      else if (proc->device >= 0)
        /* Translators: a device without a label, "Device 0". */
        self->title = g_strdup_printf (_("Device %d"), proc->device);
      else
        self->title = g_strdup (name != NULL && name[0] != '\0' ? name : key);
      if (device_name != NULL && strstr (self->title, device_name) == NULL)
        self->subtitle = g_steal_pointer (&device_name);
      return self;
    }

  if (name != NULL && name[0] != '\0')
    self->title = g_strdup (name);
  else if (proc->is_pseudo && g_strcmp0 (key, "-1") == 0)
    /* Translators: the pseudo-process (pid -1) where a profiler records its own cost. */
    self->title = g_strdup (_("Profiler Overhead"));
  else if (proc->pid != CP_NONE)
    /* Translators: a process without a name, "Process 1234". */
    self->title = g_strdup_printf (_("Process %lld"), (long long) proc->pid);
  else
    self->title = g_strdup (key != NULL && key[0] != '\0' ? key : _("Unnamed Process"));

  if (!proc->is_pseudo && proc->pid != CP_NONE && name != NULL && name[0] != '\0')
    /* Translators: the process id of a named process, "PID 1234". */
    self->subtitle = g_strdup_printf (_("PID %lld"), (long long) proc->pid);
  else if (labels != NULL && labels[0] != '\0')
    self->subtitle = g_strdup (labels);

  return self;
}

GListStore *
cp_lane_group_list_for_trace (CpTrace *trace)
{
  GListStore *groups = g_list_store_new (CP_TYPE_LANE_GROUP);
  g_autoptr(GHashTable) by_process = g_hash_table_new (NULL, NULL);
  guint n = cp_trace_get_n_lanes (trace);

  g_return_val_if_fail (CP_IS_TRACE (trace), groups);

  /* Lanes come in display order, grouped by process already; a hash keeps
   * the grouping right even if a process's lanes were not contiguous. */
  for (guint i = 0; i < n; i++)
    {
      CpLane *lane = cp_trace_get_lane (trace, i);
      guint process = cp_lane_get_process (lane);
      CpLaneGroup *group = g_hash_table_lookup (by_process, GUINT_TO_POINTER (process + 1));

      if (group == NULL)
        {
          group = cp_lane_group_new (trace, process);
          g_hash_table_insert (by_process, GUINT_TO_POINTER (process + 1), group);
          g_list_store_append (groups, group);
          g_object_unref (group);
        }
      g_list_store_append (group->lanes, lane);
      group->n_slices += cp_lane_get_n_slices (lane);
    }
  return groups;
}

const char *
cp_lane_group_get_title (CpLaneGroup *self)
{
  g_return_val_if_fail (CP_IS_LANE_GROUP (self), NULL);
  return self->title;
}

const char *
cp_lane_group_get_subtitle (CpLaneGroup *self)
{
  g_return_val_if_fail (CP_IS_LANE_GROUP (self), NULL);
  return self->subtitle;
}

gboolean
cp_lane_group_get_is_device (CpLaneGroup *self)
{
  g_return_val_if_fail (CP_IS_LANE_GROUP (self), FALSE);
  return self->is_device;
}

guint
cp_lane_group_get_process (CpLaneGroup *self)
{
  g_return_val_if_fail (CP_IS_LANE_GROUP (self), 0);
  return self->process;
}

GListModel *
cp_lane_group_get_lanes (CpLaneGroup *self)
{
  g_return_val_if_fail (CP_IS_LANE_GROUP (self), NULL);
  return G_LIST_MODEL (self->lanes);
}

guint64
cp_lane_group_get_n_slices (CpLaneGroup *self)
{
  g_return_val_if_fail (CP_IS_LANE_GROUP (self), 0);
  return self->n_slices;
}
