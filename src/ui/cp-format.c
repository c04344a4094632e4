/* cp-format.c: numbers, sizes and durations as people read them
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-format.h"

char *
cp_ui_format_duration (gint64 ns)
{
  static const struct {
    gint64      unit;
    const char *name;
  } units[] = {
    { CP_NS_PER_S, N_("s") },
    { CP_NS_PER_MS, N_("ms") },
    { CP_NS_PER_US, N_("µs") },
  };
  const char *sign = ns < 0 ? "−" : "";
  guint64 abs_ns = ns < 0 ? (guint64) -(ns + 1) + 1 : (guint64) ns;

  if (abs_ns >= 60 * (guint64) CP_NS_PER_S)
    {
      guint64 s = abs_ns / CP_NS_PER_S;

      if (s >= 3600)
        /* Translators: a duration, "2 h 05 min". */
        return g_strdup_printf (_("%s%llu h %02u min"),
                                sign, (unsigned long long) (s / 3600), (guint) ((s / 60) % 60));
      /* Translators: a duration, "2 min 05 s". */
      return g_strdup_printf (_("%s%llu min %02u s"),
                              sign, (unsigned long long) (s / 60), (guint) (s % 60));
    }

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      if (abs_ns >= (guint64) units[i].unit)
        {
          double v = (double) abs_ns / (double) units[i].unit;
          int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;

          /* Translators: a duration: sign, value and unit, "12.3 ms". */
          return g_strdup_printf (_("%s%.*f %s"), sign, decimals, v, _(units[i].name));
        }
    }
  /* Translators: a duration in nanoseconds, "850 ns". */
  return g_strdup_printf (_("%s%llu ns"), sign, (unsigned long long) abs_ns);
}

char *
cp_ui_format_count (guint64 n)
{
  return g_strdup_printf ("%'" G_GUINT64_FORMAT, n);
}

char *
cp_ui_format_percent (double percent)
{
  if (!(percent == percent))
    return g_strdup ("—");
  if (percent > 0 && percent < 0.05)
    /* Translators: a share too small to show, "<0.1%". */
    return g_strdup (_("<0.1%"));
  if (percent <= 0)
    return g_strdup (_("0%"));
  if (percent >= 99.95)
    /* Translators: a whole percentage, "100%". */
    return g_strdup_printf (_("%.0f%%"), MIN (percent, 1e9));
  /* Translators: a percentage with one decimal, "13.7%". */
  return g_strdup_printf (_("%.1f%%"), percent);
}

char *
cp_ui_format_folder (GFile *folder)
{
  g_autofree char *path = NULL;
  const char *home = g_get_home_dir ();
  gsize n;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  path = g_file_get_path (folder);
  if (path == NULL)
    return g_file_get_parse_name (folder);
  n = home ? strlen (home) : 0;
  while (n > 1 && home[n - 1] == '/')
    n--;
  if (n > 1 && strncmp (path, home, n) == 0 && (path[n] == '/' || path[n] == '\0'))
    return g_strconcat ("~", path + n, NULL);
  return g_steal_pointer (&path);
}

char *
cp_ui_format_short_name (const char *name)
{
  const char *start, *end;
  int depth = 0;

  if (name == NULL)
    return g_strdup ("");
  start = name;
  end = name + strlen (name);
  if (end == start || end[-1] != ')')
    return g_strdup (name);

  /* The parameter list: from the last ')' back to its '('. */
  for (const char *p = end - 1; p >= start; p--)
    {
      if (*p == ')')
        depth++;
      else if (*p == '(' && --depth == 0)
        {
          end = p;
          break;
        }
    }
  if (depth != 0 || end == start)
    return g_strdup (name);
  /* Only C++ signatures: "Memcpy HtoD (Pageable -> Device)" keeps its
   * parentheses. */
  if (!g_str_has_prefix (start, "void ") &&
      !((g_ascii_isalnum (end[-1]) || end[-1] == '_' || end[-1] == '>') &&
        g_strstr_len (start, end - start, "::") != NULL))
    return g_strdup (name);
  if (g_str_has_prefix (start, "void ") && end - start > 5)
    start += 5;
  return g_strndup (start, end - start);
}

char *
cp_ui_format_capture_kind (const char *format)
{
  static const struct {
    const char *id;
    const char *name;
  } kinds[] = {
    { "chrome-json", N_("Chrome trace") },
    { "xplane-folder", N_("TensorBoard profile folder") },
    { "xplane", N_("XPlane") },
  };
  const char *plus;
  g_autofree char *base = NULL;

  if (format == NULL || format[0] == '\0')
    return g_strdup (_("Unknown"));

  plus = strchr (format, '+');
  base = plus ? g_strndup (format, plus - format) : g_strdup (format);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      if (g_str_equal (base, kinds[i].id))
        {
          if (plus != NULL)
            /* Translators: a capture format and its compression, "Chrome trace, gzip". */
            return g_strdup_printf (_("%s, %s"), _(kinds[i].name), plus + 1);
          return g_strdup (_(kinds[i].name));
        }
    }
  return g_strdup (format);
}

char *
cp_ui_format_lane_kind (CpLaneKind     kind,
                        CpTransferKind transfer)
{
  switch (kind)
    {
    case CP_LANE_HOST_THREAD:
      return g_strdup (C_("lane kind", "Thread"));
    case CP_LANE_KERNEL:
      return g_strdup (C_("lane kind", "Kernels"));
    case CP_LANE_TRANSFER:
      switch (transfer)
        {
        case CP_TRANSFER_HTOD:
          return g_strdup (C_("lane kind", "Copies, host to device"));
        case CP_TRANSFER_DTOH:
          return g_strdup (C_("lane kind", "Copies, device to host"));
        case CP_TRANSFER_DTOD:
          return g_strdup (C_("lane kind", "Copies, device to device"));
        case CP_TRANSFER_PTOP:
          return g_strdup (C_("lane kind", "Copies, peer to peer"));
        case CP_TRANSFER_MEMSET:
          return g_strdup (C_("lane kind", "Memsets"));
        case CP_TRANSFER_NONE:
        case CP_TRANSFER_OTHER:
        case CP_TRANSFER_N_KINDS:
        default:
          return g_strdup (C_("lane kind", "Transfers"));
        }
    case CP_LANE_DEVICE_ANNOTATION:
      return g_strdup (C_("lane kind", "Annotations"));
    case CP_LANE_ASYNC:
      return g_strdup (C_("lane kind", "Async spans"));
    case CP_LANE_COUNTER:
      return g_strdup (C_("lane kind", "Counter"));
    case CP_LANE_N_KINDS:
    default:
      return g_strdup (C_("lane kind", "Other"));
    }
}

char *
cp_ui_format_device_name (CpTrace        *trace,
                          const CpDevice *device)
{
  const char *name = cp_trace_get_string (trace, device->name);

  if (name != NULL && name[0] != '\0')
    return g_strdup (name);
  if (cp_trace_get_device_kind (trace, device->ordinal) == CP_DEVICE_KIND_TPU)
    /* Translators: a TPU without a product name, "TPU 3". */
    return g_strdup_printf (_("TPU %d"), device->ordinal);
  if (cp_trace_get_device_kind (trace, device->ordinal) == CP_DEVICE_KIND_MTIA)
    return g_strdup_printf (_("MTIA %d"), device->ordinal);
  /* Translators: a device without a product name, "GPU 3". */
  return g_strdup_printf (_("GPU %d"), device->ordinal);
}

char *
cp_ui_format_devices (CpTrace *trace)
{
  guint n = cp_trace_get_n_devices (trace);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) counts = g_array_new (FALSE, TRUE, sizeof (guint));
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  if (n == 0)
    return g_strdup (C_("devices", "None"));

  /* Devices of one kind are counted together, in the order they come. */
  for (guint i = 0; i < n; i++)
    {
      char *name = cp_ui_format_device_name (trace, cp_trace_get_device (trace, i));
      guint j;

      for (j = 0; j < names->len; j++)
        if (g_str_equal (name, g_ptr_array_index (names, j)))
          break;
      if (j < names->len)
        {
          g_array_index (counts, guint, j)++;
          g_free (name);
        }
      else
        {
          guint one = 1;

          g_ptr_array_add (names, name);
          g_array_append_val (counts, one);
        }
    }

  for (guint j = 0; j < names->len; j++)
    {
      guint count = g_array_index (counts, guint, j);
      const char *name = g_ptr_array_index (names, j);

      if (count > 1)
        /* Translators: several devices of one kind, "2 × NVIDIA H100". */
        g_ptr_array_add (parts, g_strdup_printf (_("%u × %s"), count, name));
      else
        g_ptr_array_add (parts, g_strdup (name));
    }
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (", ", (char **) parts->pdata);
}

const char *
cp_ui_severity_css_class (CpSeverity severity)
{
  switch (severity)
    {
    case CP_SEVERITY_HIGH: return "error";
    case CP_SEVERITY_MODERATE: return "warning";
    case CP_SEVERITY_INFO:
    default:
      return "dim-label";
    }
}
