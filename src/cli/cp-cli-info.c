/* cp-cli-info.c: `chokepoint info [--json] FILE`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <locale.h>
#include <stdio.h>

#include "cp-cli.h"
#include "analysis/cp-framework.h"
#include "formats/cp-loader.h"

typedef struct
{
  guint64 slices;            /* duration slices (instants excluded) */
  guint64 thread_instants;
  guint64 by_kind[CP_LANE_N_KINDS];  /* kernel lanes: kernels only */
  guint64 device_syncs;              /* cuda_sync waits on device lanes */
  guint64 counter_samples;
} Counts;

static void
count_slices (CpTrace *trace,
              Counts  *c)
{
  memset (c, 0, sizeof *c);
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *lane = cp_trace_get_lane (trace, i);
      const CpSlices *s = cp_lane_get_slices (lane);
      CpLaneKind kind = cp_lane_get_kind (lane);

      for (guint k = 0; k < s->n; k++)
        {
          if (s->flags[k] & (CP_SLICE_INSTANT | CP_SLICE_ASYNC_INSTANT))
            c->thread_instants++;
          else
            {
              c->slices++;
              if ((kind == CP_LANE_KERNEL || kind == CP_LANE_TRANSFER) && (s->flags[k] & CP_SLICE_SYNC))
                c->device_syncs++;
              else
                c->by_kind[kind]++;
            }
        }
      c->counter_samples += cp_lane_get_counter (lane, NULL, NULL);
    }
}

static char *
format_duration (gint64 ns)
{
  double v = (double) ns;

  if (ns < 10 * CP_NS_PER_US)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (ns < 10 * CP_NS_PER_MS)
    return g_strdup_printf ("%.3f µs", v / 1e3);
  if (ns < 10 * CP_NS_PER_S)
    return g_strdup_printf ("%.3f ms", v / 1e6);
  return g_strdup_printf ("%.3f s", v / 1e9);
}

static char *
process_label (CpTrace         *trace,
               const CpProcess *p)
{
  const char *name = cp_trace_get_string (trace, p->name);
  const char *key = cp_trace_get_string (trace, p->key);

  if (p->is_device)
    switch (cp_process_get_device_kind (trace, p))
      {
      case CP_DEVICE_KIND_TPU:
        return g_strdup_printf (_("TPU %d (pid %s%s%s)"), p->device, key, *name ? ", " : "", name);
      case CP_DEVICE_KIND_OTHER:
        /* Translators: a device that is neither a GPU nor a TPU. */
        return g_strdup_printf (_("Device %d (pid %s%s%s)"), p->device, key, *name ? ", " : "", name);
      case CP_DEVICE_KIND_MTIA:
        /* Translators: one of Meta's MTIA accelerators (a product name). */
        return g_strdup_printf (_("MTIA %d (pid %s%s%s)"), p->device, key, *name ? ", " : "", name);
      case CP_DEVICE_KIND_GPU:
      default:
        return g_strdup_printf (_("GPU %d (pid %s%s%s)"), p->device, key, *name ? ", " : "", name);
      }
  if (*name)
    return g_strdup_printf (_("%s (pid %s)"), name, key);
  /* Kineto names some processes with a string in place of a number
   * ("Spans", "GPU 0 Counters"): that string is the name. */
  if (!g_ascii_string_to_signed (key, 10, G_MININT64, G_MAXINT64, NULL, NULL))
    return g_strdup (key);
  return g_strdup_printf (_("pid %s"), key);
}

typedef struct
{
  gint            ordinal;
  const CpDevice *dev;        /* NULL: the capture does not describe it */
  const char     *name;       /* the device's, else its process's */
  CpDeviceKind    kind;
} InfoDevice;

/* The devices: those the capture describes (deviceProperties, plane
 * stats), then the device processes of the others (Kineto writes no
 * properties for an MTIA), by ordinal. */
static GArray *
list_devices (CpTrace *trace)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (InfoDevice));

  for (guint i = 0; i < cp_trace_get_n_devices (trace); i++)
    {
      const CpDevice *d = cp_trace_get_device (trace, i);
      InfoDevice e = { d->ordinal, d, cp_trace_get_string (trace, d->name),
                       cp_trace_get_device_kind (trace, d->ordinal) };

      g_array_append_val (out, e);
    }
  for (guint i = 0; i < cp_trace_get_n_processes (trace); i++)
    {
      const CpProcess *p = cp_trace_get_process (trace, i);
      InfoDevice e = { p->device, NULL, cp_trace_get_string (trace, p->name), cp_process_get_device_kind (trace, p) };
      gboolean seen = FALSE;

      if (!p->is_device || p->device < 0)
        continue;
      for (guint k = 0; k < out->len && !seen; k++)
        seen = g_array_index (out, InfoDevice, k).ordinal == p->device;
      if (!seen)
        g_array_append_val (out, e);
    }
  return out;
}

static void
print_text (CpTrace *trace)
{
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  g_autofree char *path = cp_trace_get_file (trace) ? g_file_get_parse_name (cp_trace_get_file (trace)) : NULL;
  g_autofree char *span = format_duration (cp_trace_get_duration (trace));
  g_autoptr(GString) phases = g_string_new (NULL);
  g_autoptr(GString) devices = g_string_new (NULL);
  g_autoptr(GArray) list = list_devices (trace);
  guint n_flows = 0, n_instants = 0, n_steps = 0;
  Counts c;

  count_slices (trace, &c);
  cp_trace_get_flows (trace, &n_flows);
  cp_trace_get_instants (trace, &n_instants);
  cp_trace_get_steps (trace, &n_steps);

  for (guint ph = 0; ph < 128; ph++)
    if (r->by_phase[ph] > 0)
      g_string_append_printf (phases, "%s%c %" G_GUINT64_FORMAT, phases->len ? ", " : "", ph, r->by_phase[ph]);
  for (guint i = 0; i < list->len; i++)
    {
      const InfoDevice *d = &g_array_index (list, InfoDevice, i);

      g_string_append_printf (devices, "%s%d: %s", devices->len ? "; " : "", d->ordinal,
                              d->name != NULL && *d->name ? d->name : _("unnamed"));
    }

  g_print (_("File:        %s\n"), path ? path : cp_trace_get_title (trace));
  g_print (_("Format:      %s (%" PRIu64 " bytes on disk, %" PRIu64 " bytes read)\n"),
           r->format ? r->format : "?", r->file_bytes, r->input_bytes);
  g_print (_("Events:      %" PRIu64 "%s%s%s\n"), r->events,
           phases->len ? " (" : "", phases->str, phases->len ? ")" : "");
  g_print (_("Slices:      %" PRIu64 " (kernels %" PRIu64 ", device syncs %" PRIu64 ", transfers %" PRIu64
             ", device annotations %" PRIu64 ", host %" PRIu64 ", async %" PRIu64 ")\n"),
           c.slices, c.by_kind[CP_LANE_KERNEL], c.device_syncs, c.by_kind[CP_LANE_TRANSFER],
           c.by_kind[CP_LANE_DEVICE_ANNOTATION], c.by_kind[CP_LANE_HOST_THREAD], c.by_kind[CP_LANE_ASYNC]);
  if (r->cpu_samples > 0)
    {
      g_autofree char *cpu = format_duration (r->cpu_sample_time);

      g_print (g_dngettext (GETTEXT_PACKAGE,
                            "CPU samples: %" PRIu64 " on %u thread, %s of CPU time\n",
                            "CPU samples: %" PRIu64 " on %u threads, %s of CPU time\n",
                            r->cpu_sample_threads),
               r->cpu_samples, r->cpu_sample_threads, cpu);
    }
  g_print (_("Instants:    %" PRIu64 "\n"), c.thread_instants + n_instants);
  g_print (_("Counters:    %" PRIu64 " samples\n"), c.counter_samples);
  g_print (_("Flows:       %u\n"), n_flows);
  g_print (_("Lanes:       %u\n"), cp_trace_get_n_lanes (trace));
  g_print (_("Processes:   %u\n"), cp_trace_get_n_processes (trace));
  g_print (_("Devices:     %u%s%s%s\n"), list->len,
           devices->len ? " (" : "", devices->str, devices->len ? ")" : "");
  {
    CpFrameworkInfo fw;
    g_autofree char *name = NULL;
    g_autofree char *from = NULL;

    cp_framework_detect (trace, &fw);
    name = cp_framework_info_describe (&fw);
    from = cp_framework_info_describe_evidence (&fw);
    if (from != NULL)
      /* Translators: "Framework:   JAX (jax.jit), inferred from “PjitFunction” calls (218)". */
      g_print (_("Framework:   %s, inferred from %s\n"), name, from);
    else
      g_print (_("Framework:   %s\n"), name);
  }
  g_print (_("Steps:       %u\n"), n_steps);
  g_print (_("Time span:   %s\n"), span);
  g_print (_("Load time:   %.3f s\n"), r->load_seconds);
  if (r->truncated)
    g_print (_("Truncated:   yes, stopped at byte %" PRIu64 "\n"), r->stopped_at);
  if (r->skipped || r->unknown_phase || r->unmatched_end || r->unclosed_begin)
    g_print (_("Skipped:     %" PRIu64 " invalid, %" PRIu64 " of unshown phases, %"
               PRIu64 " unmatched ends, %" PRIu64 " unclosed begins\n"),
             r->skipped, r->unknown_phase, r->unmatched_end, r->unclosed_begin);

  if (cp_load_report_n_warnings (r) > 0)
    {
      g_print (_("\nWarnings:\n"));
      for (guint i = 0; i < cp_load_report_n_warnings (r); i++)
        {
          const CpLoadWarning *w = cp_load_report_get_warning (r, i);

          if (w->offset != G_MAXUINT64)
            g_print (_("  at byte %" PRIu64 ": %s\n"), w->offset, w->message);
          else
            g_print ("  %s\n", w->message);
        }
      if (r->warnings_dropped)
        g_print (_("  (%u more)\n"), r->warnings_dropped);
    }

  g_print (_("\nLanes by process:\n"));
  {
    guint prev_process = G_MAXUINT;

    for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
      {
        CpLane *lane = cp_trace_get_lane (trace, i);
        guint proc = cp_lane_get_process (lane);

        if (proc != prev_process)
          {
            g_autofree char *label = process_label (trace, cp_trace_get_process (trace, proc));

            g_print ("  %s\n", label);
            prev_process = proc;
          }
        if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
          {
            guint n = cp_lane_get_counter (lane, NULL, NULL);

            g_print (g_dngettext (GETTEXT_PACKAGE, "    %-40s %-18s %u sample\n",
                                  "    %-40s %-18s %u samples\n", n),
                     cp_lane_get_name (lane), cp_lane_kind_to_string (cp_lane_get_kind (lane)), n);
          }
        else
          {
            guint n = cp_lane_get_n_slices (lane);

            g_print (g_dngettext (GETTEXT_PACKAGE, "    %-40s %-18s %u slice\n",
                                  "    %-40s %-18s %u slices\n", n),
                     cp_lane_get_name (lane), cp_lane_kind_to_string (cp_lane_get_kind (lane)), n);
          }
      }
  }
}

char *
cp_cli_info_to_json (CpTrace  *trace,
                     gboolean  pretty)
{
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *path = cp_trace_get_file (trace) ? g_file_get_parse_name (cp_trace_get_file (trace)) : NULL;
  g_autoptr(GArray) list = list_devices (trace);
  guint n_flows = 0, n_instants = 0, n_steps = 0;
  Counts c;

  count_slices (trace, &c);
  cp_trace_get_flows (trace, &n_flows);
  cp_trace_get_instants (trace, &n_instants);
  cp_trace_get_steps (trace, &n_steps);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, r->format ? r->format : "");
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, path ? path : "");
  json_builder_set_member_name (b, "bytes");
  json_builder_add_int_value (b, r->file_bytes);
  json_builder_set_member_name (b, "input_bytes");
  json_builder_add_int_value (b, r->input_bytes);
  json_builder_set_member_name (b, "slices");
  json_builder_add_int_value (b, c.slices);
  json_builder_set_member_name (b, "kernels");
  json_builder_add_int_value (b, c.by_kind[CP_LANE_KERNEL]);
  json_builder_set_member_name (b, "device_syncs");
  json_builder_add_int_value (b, c.device_syncs);
  json_builder_set_member_name (b, "transfers");
  json_builder_add_int_value (b, c.by_kind[CP_LANE_TRANSFER]);
  json_builder_set_member_name (b, "device_annotations");
  json_builder_add_int_value (b, c.by_kind[CP_LANE_DEVICE_ANNOTATION]);
  json_builder_set_member_name (b, "host_slices");
  json_builder_add_int_value (b, c.by_kind[CP_LANE_HOST_THREAD]);
  json_builder_set_member_name (b, "async_slices");
  json_builder_add_int_value (b, c.by_kind[CP_LANE_ASYNC]);
  json_builder_set_member_name (b, "cpu_samples");
  json_builder_add_int_value (b, r->cpu_samples);
  json_builder_set_member_name (b, "cpu_sample_threads");
  json_builder_add_int_value (b, r->cpu_sample_threads);
  json_builder_set_member_name (b, "cpu_sample_time_ns");
  json_builder_add_int_value (b, r->cpu_sample_time);
  json_builder_set_member_name (b, "instants");
  json_builder_add_int_value (b, c.thread_instants + n_instants);
  json_builder_set_member_name (b, "counter_samples");
  json_builder_add_int_value (b, c.counter_samples);
  json_builder_set_member_name (b, "flows");
  json_builder_add_int_value (b, n_flows);
  json_builder_set_member_name (b, "lanes");
  json_builder_add_int_value (b, cp_trace_get_n_lanes (trace));
  json_builder_set_member_name (b, "processes");
  json_builder_add_int_value (b, cp_trace_get_n_processes (trace));
  json_builder_set_member_name (b, "devices");
  json_builder_add_int_value (b, list->len);
  {
    CpFrameworkInfo fw;

    cp_framework_detect (trace, &fw);
    json_builder_set_member_name (b, "framework");
    json_builder_add_string_value (b, cp_detected_framework_to_string (fw.framework));
  }
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, n_steps);
  json_builder_set_member_name (b, "duration_ns");
  json_builder_add_int_value (b, cp_trace_get_duration (trace));
  json_builder_set_member_name (b, "origin_ns");
  json_builder_add_int_value (b, cp_trace_get_origin_abs (trace));
  json_builder_set_member_name (b, "origin_is_epoch");
  json_builder_add_boolean_value (b, cp_trace_get_origin_is_epoch (trace));
  json_builder_set_member_name (b, "load_seconds");
  json_builder_add_double_value (b, r->load_seconds);

  json_builder_set_member_name (b, "load_report");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, r->events);
  json_builder_set_member_name (b, "by_phase");
  json_builder_begin_object (b);
  for (guint ph = 0; ph < 128; ph++)
    {
      char key[2] = { (char) ph, '\0' };

      if (r->by_phase[ph] == 0)
        continue;
      json_builder_set_member_name (b, key);
      json_builder_add_int_value (b, r->by_phase[ph]);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "skipped");
  json_builder_add_int_value (b, r->skipped);
  json_builder_set_member_name (b, "unknown_phase");
  json_builder_add_int_value (b, r->unknown_phase);
  json_builder_set_member_name (b, "unmatched_end");
  json_builder_add_int_value (b, r->unmatched_end);
  json_builder_set_member_name (b, "unclosed_begin");
  json_builder_add_int_value (b, r->unclosed_begin);
  json_builder_set_member_name (b, "aggregated");
  json_builder_add_int_value (b, r->aggregated);
  json_builder_set_member_name (b, "truncated");
  json_builder_add_boolean_value (b, r->truncated);
  json_builder_set_member_name (b, "stopped_at");
  if (r->truncated && r->stopped_at != G_MAXUINT64)
    json_builder_add_int_value (b, r->stopped_at);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; i < cp_load_report_n_warnings (r); i++)
    {
      const CpLoadWarning *w = cp_load_report_get_warning (r, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "offset");
      if (w->offset != G_MAXUINT64)
        json_builder_add_int_value (b, w->offset);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, w->message);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "warnings_dropped");
  json_builder_add_int_value (b, r->warnings_dropped);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "device_list");
  json_builder_begin_array (b);
  for (guint i = 0; i < list->len; i++)
    {
      const InfoDevice *d = &g_array_index (list, InfoDevice, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "ordinal");
      json_builder_add_int_value (b, d->ordinal);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, cp_device_kind_to_string (d->kind));
      json_builder_set_member_name (b, "described");
      json_builder_add_boolean_value (b, d->dev != NULL);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, d->dev != NULL ? cp_trace_get_string (trace, d->dev->name) : "");
      json_builder_set_member_name (b, "vendor");
      json_builder_add_string_value (b, d->dev != NULL ? cp_trace_get_string (trace, d->dev->vendor) : "");
      json_builder_set_member_name (b, "total_memory");
      json_builder_add_int_value (b, d->dev != NULL ? d->dev->total_memory : -1);
      json_builder_set_member_name (b, "num_sms");
      json_builder_add_int_value (b, d->dev != NULL ? d->dev->num_sms : -1);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "lane_list");
  json_builder_begin_array (b);
  for (guint i = 0; i < cp_trace_get_n_lanes (trace); i++)
    {
      CpLane *lane = cp_trace_get_lane (trace, i);
      const CpProcess *p = cp_trace_get_process (trace, cp_lane_get_process (lane));

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, cp_lane_get_name (lane));
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, cp_lane_kind_to_string (cp_lane_get_kind (lane)));
      json_builder_set_member_name (b, "process");
      json_builder_add_string_value (b, cp_trace_get_string (trace, p->key));
      json_builder_set_member_name (b, "device");
      json_builder_add_int_value (b, cp_lane_get_device (lane));
      json_builder_set_member_name (b, "slices");
      json_builder_add_int_value (b, cp_lane_get_n_slices (lane));
      if (cp_lane_get_kind (lane) == CP_LANE_COUNTER)
        {
          json_builder_set_member_name (b, "samples");
          json_builder_add_int_value (b, cp_lane_get_counter (lane, NULL, NULL));
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}

int
cp_cli_info (int    argc,
             char **argv)
{
  gboolean json = FALSE;
  g_auto(GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_("Print the summary as JSON"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("— print a summary of a capture"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Reads a profiler capture (Chrome trace JSON, PyTorch/Kineto, gzip or zstd "
                                  "compressed) and prints its format, events, lanes, devices, time span and "
                                  "what was skipped while loading. Needs no display."));
  g_set_prgname ("chokepoint info");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("chokepoint info: %s\n", error->message);
      g_printerr (_("Run “chokepoint info --help” for usage.\n"));
      return CP_EXIT_USAGE;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      g_printerr (_("chokepoint info: give exactly one capture file\n"));
      g_printerr (_("Usage: chokepoint info [--json] FILE\n"));
      return CP_EXIT_USAGE;
    }

  file = g_file_new_for_commandline_arg (files[0]);
  trace = cp_cli_load ("info", file, &error);
  if (trace == NULL)
    {
      g_printerr ("chokepoint info: %s\n", error->message);
      return CP_EXIT_FAILURE;
    }

  if (json)
    {
      g_autofree char *text = cp_cli_info_to_json (trace, TRUE);

      g_print ("%s\n", text);
    }
  else
    print_text (trace);
  return CP_EXIT_OK;
}
