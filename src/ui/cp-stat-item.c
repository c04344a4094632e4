/* cp-stat-item.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "cp-stat-item.h"

#define LAUNCHED_SHOWN 6
#define LAUNCHED_NAME_CHARS 72

struct _CpStatItem
{
  GObject   parent_instance;

  gboolean  is_kernel;
  gboolean  is_group;
  CpStr     name_id;
  char     *name;
  guint64   count;
  gint64    total;
  gint64    min;
  gint64    max;
  double    share;
  gboolean  tensor_core;
  double    occupancy;
  guint64   kernels;
  gint64    kernel_time;
  double    kernel_share;
  char     *shape;
  char     *launched;
  /* The roofline (cp_stat_item_set_roofline): -1 where unknown. */
  double    tflops;
  double    gbps;
  double    intensity;
  double    roofline;
  CpBound   bound;
  gboolean  estimate;
  gboolean  has_flops;
  gboolean  peak_known;
};

G_DEFINE_FINAL_TYPE (CpStatItem, cp_stat_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_COUNT,
  PROP_TOTAL,
  PROP_MEAN,
  PROP_MIN,
  PROP_MAX,
  PROP_SHARE,
  PROP_TENSOR_CORE,
  PROP_OCCUPANCY,
  PROP_KERNELS,
  PROP_KERNEL_TIME,
  PROP_KERNEL_SHARE,
  PROP_IS_KERNEL,
  PROP_TFLOPS,
  PROP_GBPS,
  PROP_INTENSITY,
  PROP_ROOFLINE,
  PROP_BOUND,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cp_stat_item_finalize (GObject *object)
{
  CpStatItem *self = (CpStatItem *) object;

  g_free (self->name);
  g_free (self->shape);
  g_free (self->launched);
  G_OBJECT_CLASS (cp_stat_item_parent_class)->finalize (object);
}

static void
cp_stat_item_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  CpStatItem *self = CP_STAT_ITEM (object);

  switch (prop_id)
    {
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_COUNT: g_value_set_uint64 (value, self->count); break;
    case PROP_TOTAL: g_value_set_int64 (value, self->total); break;
    case PROP_MEAN: g_value_set_int64 (value, cp_stat_item_get_mean (self)); break;
    case PROP_MIN: g_value_set_int64 (value, self->min); break;
    case PROP_MAX: g_value_set_int64 (value, self->max); break;
    case PROP_SHARE: g_value_set_double (value, self->share); break;
    case PROP_TENSOR_CORE: g_value_set_boolean (value, self->tensor_core); break;
    case PROP_OCCUPANCY: g_value_set_double (value, self->occupancy); break;
    case PROP_KERNELS: g_value_set_uint64 (value, self->kernels); break;
    case PROP_KERNEL_TIME: g_value_set_int64 (value, self->kernel_time); break;
    case PROP_KERNEL_SHARE: g_value_set_double (value, self->kernel_share); break;
    case PROP_IS_KERNEL: g_value_set_boolean (value, self->is_kernel); break;
    case PROP_TFLOPS: g_value_set_double (value, self->tflops); break;
    case PROP_GBPS: g_value_set_double (value, self->gbps); break;
    case PROP_INTENSITY: g_value_set_double (value, self->intensity); break;
    case PROP_ROOFLINE: g_value_set_double (value, self->roofline); break;
    case PROP_BOUND: g_value_set_string (value, cp_stat_item_get_bound_text (self)); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cp_stat_item_class_init (CpStatItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = cp_stat_item_finalize;
  object_class->get_property = cp_stat_item_get_property;

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_COUNT] = g_param_spec_uint64 ("count", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_TOTAL] = g_param_spec_int64 ("total", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_MEAN] = g_param_spec_int64 ("mean", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_MIN] = g_param_spec_int64 ("min", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_MAX] = g_param_spec_int64 ("max", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_SHARE] = g_param_spec_double ("share", NULL, NULL, 0, 1, 0, flags);
  properties[PROP_TENSOR_CORE] = g_param_spec_boolean ("tensor-core", NULL, NULL, FALSE, flags);
  properties[PROP_OCCUPANCY] = g_param_spec_double ("occupancy", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties[PROP_KERNELS] = g_param_spec_uint64 ("kernels", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_KERNEL_TIME] = g_param_spec_int64 ("kernel-time", NULL, NULL, 0, G_MAXINT64, 0, flags);
  properties[PROP_KERNEL_SHARE] = g_param_spec_double ("kernel-share", NULL, NULL, 0, 1, 0, flags);
  properties[PROP_IS_KERNEL] = g_param_spec_boolean ("is-kernel", NULL, NULL, FALSE, flags);
  properties[PROP_TFLOPS] = g_param_spec_double ("tflops", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties[PROP_GBPS] = g_param_spec_double ("gbps", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties[PROP_INTENSITY] = g_param_spec_double ("intensity", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties[PROP_ROOFLINE] = g_param_spec_double ("roofline", NULL, NULL, -1, G_MAXDOUBLE, -1, flags);
  properties[PROP_BOUND] = g_param_spec_string ("bound", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cp_stat_item_init (CpStatItem *self)
{
  self->occupancy = -1;
  self->tflops = self->gbps = self->intensity = self->roofline = -1;
}

CpStatItem *
cp_stat_item_new_kernel (CpTrace             *trace,
                         const CpKernelStats *stats)
{
  CpStatItem *self;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (stats != NULL, NULL);

  self = g_object_new (CP_TYPE_STAT_ITEM, NULL);
  self->is_kernel = TRUE;
  self->name_id = stats->name;
  self->name = g_strdup (cp_trace_get_string (trace, stats->name));
  self->count = stats->count;
  self->total = stats->total;
  self->min = stats->min;
  self->max = stats->max;
  self->share = CLAMP (stats->share, 0, 1);
  self->tensor_core = stats->tensor_core;
  self->occupancy = isnan (stats->occupancy) ? -1 : stats->occupancy;
  self->kernels = stats->count;
  self->kernel_time = stats->total;
  self->kernel_share = self->share;
  if (stats->grid[0] >= 0 && stats->block[0] >= 0)
    self->shape = g_strdup_printf ("%d×%d×%d / %d×%d×%d", stats->grid[0], stats->grid[1], stats->grid[2],
                                   stats->block[0], stats->block[1], stats->block[2]);
  else if (stats->grid[0] >= 0)
    self->shape = g_strdup_printf ("%d×%d×%d", stats->grid[0], stats->grid[1], stats->grid[2]);
  else
    self->shape = g_strdup ("");
  self->launched = g_strdup ("");
  return self;
}

CpStatItem *
cp_stat_item_new_host_op (CpTrace             *trace,
                          const CpHostOpStats *stats)
{
  CpStatItem *self;
  GString *launched;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (stats != NULL, NULL);

  self = g_object_new (CP_TYPE_STAT_ITEM, NULL);
  self->is_kernel = FALSE;
  self->name_id = stats->name;
  self->name = g_strdup (cp_trace_get_string (trace, stats->name));
  self->count = stats->count;
  self->total = stats->total;
  self->min = stats->min;
  self->max = stats->max;
  self->share = CLAMP (stats->share, 0, 1);
  self->tensor_core = stats->tensor_core_time > 0;
  self->kernels = stats->n_kernels;
  self->kernel_time = stats->kernel_time;
  self->kernel_share = CLAMP (stats->kernel_share, 0, 1);
  self->shape = g_strdup ("");

  launched = g_string_new (NULL);
  for (guint k = 0; stats->kernels != NULL && k < MIN (stats->kernels->len, LAUNCHED_SHOWN); k++)
    {
      const CpKernelCount *kc = &g_array_index (stats->kernels, CpKernelCount, k);

      const char *name = cp_trace_get_string (trace, kc->name);
      g_autofree char *shown = NULL;

      /* Kernel names can run to hundreds of characters of template
       * arguments; the start tells them apart. */
      if (g_utf8_strlen (name, -1) > LAUNCHED_NAME_CHARS)
        {
          g_autofree char *head = g_utf8_substring (name, 0, LAUNCHED_NAME_CHARS);

          shown = g_strconcat (head, "…", NULL);
        }
      g_string_append_printf (launched, "%s%s (%" G_GINT64_FORMAT ")", launched->len ? "\n" : "",
                              shown ? shown : name, kc->count);
    }
  if (stats->kernels != NULL && stats->kernels->len > LAUNCHED_SHOWN)
    g_string_append_printf (launched, "\n…");
  self->launched = g_string_free (launched, FALSE);
  return self;
}

CpStatItem *
cp_stat_item_new_group (CpTrace             *trace,
                        const CpSourceGroup *group,
                        gint64               all_kernel_time)
{
  CpStatItem *self;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (group != NULL, NULL);

  self = g_object_new (CP_TYPE_STAT_ITEM, NULL);
  self->is_kernel = FALSE;
  self->is_group = TRUE;
  self->name_id = group->name;
  self->name = g_strdup (cp_trace_get_string (trace, group->name));
  self->kernels = group->kernels;
  self->kernel_time = group->time;
  self->kernel_share = all_kernel_time > 0 ? CLAMP ((double) group->time / (double) all_kernel_time, 0, 1) : 0;
  self->occupancy = -1;
  self->shape = g_strdup ("");
  self->launched = g_strdup ("");
  return self;
}

gboolean
cp_stat_item_is_group (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), FALSE);
  return self->is_group;
}

gboolean
cp_stat_item_is_kernel (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), FALSE);
  return self->is_kernel;
}

CpStr
cp_stat_item_get_name_id (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->name_id;
}

const char *
cp_stat_item_get_name (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), NULL);
  return self->name;
}

guint64
cp_stat_item_get_count (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->count;
}

gint64
cp_stat_item_get_total (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->total;
}

gint64
cp_stat_item_get_min (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->min;
}

gint64
cp_stat_item_get_max (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->max;
}

double
cp_stat_item_get_share (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->share;
}

gboolean
cp_stat_item_get_tensor_core (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), FALSE);
  return self->tensor_core;
}

double
cp_stat_item_get_occupancy (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), -1);
  return self->occupancy;
}

guint64
cp_stat_item_get_kernels (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->kernels;
}

gint64
cp_stat_item_get_kernel_time (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->kernel_time;
}

double
cp_stat_item_get_kernel_share (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->kernel_share;
}

const char *
cp_stat_item_get_shape (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), NULL);
  return self->shape;
}

const char *
cp_stat_item_get_launched (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), NULL);
  return self->launched;
}


gint64
cp_stat_item_get_mean (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), 0);
  return self->count ? self->total / (gint64) self->count : 0;
}

void
cp_stat_item_set_roofline (CpStatItem            *self,
                           const CpRooflineStats *stats)
{
  g_return_if_fail (CP_IS_STAT_ITEM (self));
  g_return_if_fail (stats != NULL);

  self->has_flops = stats->source != CP_FLOPS_NONE;
  self->estimate = stats->source == CP_FLOPS_ESTIMATED;
  self->peak_known = stats->peak_source != CP_PEAK_UNKNOWN;
  self->tflops = isfinite (stats->achieved_tflops) ? stats->achieved_tflops : -1;
  self->gbps = isfinite (stats->achieved_gbs) ? stats->achieved_gbs : -1;
  self->intensity = isfinite (stats->intensity) ? stats->intensity : -1;
  self->roofline = isfinite (stats->roofline_percent) ? stats->roofline_percent : -1;
  self->bound = stats->bound;
}

gboolean
cp_stat_item_get_has_flops (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), FALSE);
  return self->has_flops;
}

gboolean
cp_stat_item_get_estimate (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), FALSE);
  return self->estimate;
}

double
cp_stat_item_get_tflops (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), -1);
  return self->tflops;
}

double
cp_stat_item_get_gbps (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), -1);
  return self->gbps;
}

double
cp_stat_item_get_intensity (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), -1);
  return self->intensity;
}

double
cp_stat_item_get_roofline (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), -1);
  return self->roofline;
}

const char *
cp_stat_item_get_bound_text (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), "");
  if (!self->has_flops)
    return "";
  if (!self->peak_known)
    return _("peak unknown");
  switch (self->bound)
    {
    case CP_BOUND_MEMORY: return _("memory");
    case CP_BOUND_COMPUTE: return _("compute");
    case CP_BOUND_UNKNOWN:
    default: return "";
    }
}

CpBound
cp_stat_item_get_bound (CpStatItem *self)
{
  g_return_val_if_fail (CP_IS_STAT_ITEM (self), CP_BOUND_UNKNOWN);
  return self->bound;
}
