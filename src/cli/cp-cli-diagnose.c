/* cp-cli-diagnose.c: `chokepoint diagnose FILE [--json] [--fail-on=high|moderate]`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <stdio.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-memory.h"
#include "analysis/cp-rules.h"
#include "cp-cli.h"
#include "formats/cp-loader.h"

/* How many rows of each table the text output shows. */
#define TOP_KERNELS 10
#define TOP_OPS 10
#define SHOWN_EVIDENCE 5

static char *
format_seconds (gint64 ns)
{
  return g_strdup_printf ("%.6f s", ns / 1e9);
}

static void
print_window (CpAnalysis *a)
{
  CpTimeSummary st;
  guint n_steps;
  g_autofree char *total = NULL, *mean = NULL, *min = NULL, *max = NULL;

  cp_analysis_get_step_summary (a, &st);
  cp_analysis_get_steps (a, &n_steps);
  total = cp_format_ns (st.total);
  mean = cp_format_ns (st.mean);
  min = cp_format_ns (st.min);
  max = cp_format_ns (st.max);

  switch (cp_analysis_get_step_source (a))
    {
    case CP_STEPS_PROFILER:
    case CP_STEPS_MARKERS:
    case CP_STEPS_LOADER:
    case CP_STEPS_OPTIMIZER:
    case CP_STEPS_MODULES:
      g_print (g_dngettext (GETTEXT_PACKAGE,
                            "Window:   %u step (%s), %s in all; per step mean %s, min %s, max %s\n",
                            "Window:   %u steps (%s), %s in all; per step mean %s, min %s, max %s\n",
                            n_steps),
               n_steps,
               cp_step_source_get_label (cp_analysis_get_step_source (a)),
               total, mean, min, max);
      {
        CpWindowInfo info;
        g_autofree char *median = NULL;

        cp_analysis_get_window_info (a, &info);
        median = cp_format_ns (info.step_median);
        g_print (_("          median %s\n"), median);
        if (info.n_warmup > 0)
          {
            g_autofree char *warm = cp_format_ns (info.warmup_time);

            g_print (g_dngettext (GETTEXT_PACKAGE,
                                  "          (%u warm-up step left out, %s)\n",
                                  "          (%u warm-up steps left out, %s)\n", info.n_warmup),
                     info.n_warmup, warm);
          }
        if (info.out_of_step)
          g_print ("%s\n", _("          (the devices step at different times: each is measured over its own steps)"));
      }
      if (cp_analysis_get_n_dropped_steps (a) > 0)
        g_print (_("          (%u incomplete or empty steps left out)\n"), cp_analysis_get_n_dropped_steps (a));
      break;
    case CP_STEPS_DEVICE_SPAN:
      {
        CpWindowInfo info;

        cp_analysis_get_window_info (a, &info);
        g_print (_("Window:   the span where the devices work (%s): the steps found held %.0f%% of the device work\n"),
                 total, 100.0 * info.steps_device_share);
      }
      break;
    case CP_STEPS_NONE:
    default:
      g_print (_("Window:   no steps: the whole capture (%s) is one window\n"), total);
      break;
    }
}

/* "Confidence: medium (1 step; 93% of the window has no recorded activity)". */
static void
print_confidence (CpAnalysis *a)
{
  const CpConfidenceReason *reasons;
  guint n;
  CpConfidenceLevel level = cp_analysis_get_confidence (a, &reasons, &n);
  g_autoptr(GString) why = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (why, "%s%s", i ? "; " : "", reasons[i].text);
  if (n == 0)
    g_print (_("Confidence: %s\n"), cp_confidence_level_to_string (level));
  else
    g_print (_("Confidence: %s (%s)\n"), cp_confidence_level_to_string (level), why->str);
}

static void
print_breakdown (CpAnalysis *a)
{
  gboolean per_step = cp_analysis_has_steps (a);

  g_print ("\n%s\n", per_step ? _("Time breakdown (each instant counted once, by priority; per step: mean, min, max; share of step time)")
                   : cp_analysis_get_step_source (a) == CP_STEPS_DEVICE_SPAN ?
                     _("Time breakdown (each instant counted once, by priority; share of the span where the devices work)")
                   : _("Time breakdown (each instant counted once, by priority; share of the capture)"));
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    {
      CpTimeSummary s;
      g_autofree char *mean = NULL, *min = NULL, *max = NULL;

      cp_analysis_get_time_summary (a, c, &s);
      if (s.total == 0)
        continue;
      mean = cp_format_ns (s.mean);
      if (per_step)
        {
          min = cp_format_ns (s.min);
          max = cp_format_ns (s.max);
          g_print ("  %-32s %10s %10s %10s %6.1f%%\n", cp_time_category_get_label (c), mean, min, max, s.percent);
        }
      else
        g_print ("  %-32s %10s %6.1f%%\n", cp_time_category_get_label (c), mean, s.percent);
    }
}

static void
print_devices (CpAnalysis *a)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  const CpDeviceStats *devs;
  const CpTransferStats *tr;
  guint n, n_kinds;
  gboolean any_copy = FALSE;

  devs = cp_analysis_get_devices (a, &n);
  if (n == 0)
    {
      g_print ("\n%s\n", _("Devices: none with kernels or copies"));
      return;
    }
  g_print ("\n%s\n", _("Devices"));
  for (guint d = 0; d < n; d++)
    {
      const CpDeviceStats *dev = &devs[d];
      g_autofree char *busy = cp_format_ns (dev->window_busy);
      g_autofree char *kt = cp_format_ns (dev->kernel_time);
      g_autofree char *idle = cp_format_ns (dev->idle);
      g_autofree char *hw = cp_format_ns (dev->idle_host_wait);
      g_autofree char *kw = cp_format_ns (dev->idle_kernel_wait);
      g_autofree char *ow = cp_format_ns (dev->idle_other);

      if (dev->n_kernels == 0)
        {
          g_autofree char *copying = cp_format_ns (dev->window_time - dev->idle);

          /* Translators: a device that runs no kernel, only copies and memsets. */
          g_print (_("  %s %d: runs no kernels, only copies and memsets (%s of them in the windows)\n"),
                   cp_trace_get_device_kind (trace, dev->device) == CP_DEVICE_KIND_TPU ? "TPU" : "GPU",
                   dev->device, copying);
        }
      else if (cp_trace_get_device_kind (trace, dev->device) == CP_DEVICE_KIND_TPU)
        g_print (_("  TPU %d: utilisation %.1f%% (ops busy %s), %u XLA ops, op time %s\n"),
                 dev->device, 100 * dev->utilization, busy, dev->n_kernels, kt);
      else if (cp_trace_get_device_kind (trace, dev->device) == CP_DEVICE_KIND_MTIA)
        /* Translators: one of Meta's MTIA accelerators (a product name). */
        g_print (_("  MTIA %d: utilisation %.1f%% (kernels busy %s), %u kernels, kernel time %s\n"),
                 dev->device, 100 * dev->utilization, busy, dev->n_kernels, kt);
      else
        g_print (_("  GPU %d: utilisation %.1f%% (kernels busy %s), %u kernels, kernel time %s\n"),
                 dev->device, 100 * dev->utilization, busy, dev->n_kernels, kt);
      if (!isnan (dev->sm_efficiency) || !isnan (dev->achieved_occupancy))
        {
          g_autofree char *sm = isnan (dev->sm_efficiency) ? g_strdup ("—") : g_strdup_printf ("%.1f%%", 100 * dev->sm_efficiency);
          g_autofree char *occ = isnan (dev->achieved_occupancy) ? g_strdup ("—") : g_strdup_printf ("%.1f%%", dev->achieved_occupancy);

          g_print (_("         est. SM efficiency %s, est. achieved occupancy %s\n"), sm, occ);
        }
      g_print (_("         idle %s: waiting for the host %s, between kernels %s, other %s\n"), idle, hw, kw, ow);
      if (dev->n_launched > 0)
        g_print (_("         launches matched %u: %u shorter than their launch call, %u calls over 50 µs, %u delays over 100 µs\n"),
                 dev->n_launched, dev->n_short, dev->n_runtime_outliers, dev->n_delay_outliers);
      if (dev->comm_time > 0)
        g_print (_("         collectives %.1f%% overlapped by compute\n"), 100.0 * dev->comm_overlap / dev->comm_time);
      if (dev->n_async_ops > 0)
        {
          g_autofree char *aw = cp_format_ns (dev->async_wait);

          g_print (_("         %u async ops (copy-done, *-done): the device waits in them %s\n"), dev->n_async_ops, aw);
        }
    }

  tr = cp_analysis_get_transfers (a, &n_kinds);
  for (guint k = 0; k < n_kinds; k++)
    {
      g_autofree char *time = NULL, *bytes = NULL, *bw = NULL;

      if (tr[k].count == 0)
        continue;
      if (!any_copy)
        g_print ("\n%s\n", _("Copies and memsets"));
      any_copy = TRUE;
      time = cp_format_ns (tr[k].time);
      bytes = g_format_size_full (tr[k].bytes, G_FORMAT_SIZE_IEC_UNITS);
      bw = isnan (tr[k].bandwidth) ? g_strdup ("—") : g_strdup_printf ("%.2f GB/s", tr[k].bandwidth);
      g_print (_("  %-7s %8u ops, %s, %s, mean %s"), cp_transfer_kind_to_string (tr[k].kind),
               tr[k].count, bytes, time, bw);
      if (tr[k].n_pageable > 0)
        g_print (_(", %u from/to pageable memory"), tr[k].n_pageable);
      g_print ("\n");
    }
}

static void
print_memory (CpAnalysis *a)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  const CpMemoryStats *mem;
  guint n;

  mem = cp_analysis_get_memory (a, &n);
  if (n == 0)
    return;
  g_print ("\n%s\n", _("Memory (allocator events)"));
  for (guint m = 0; m < n; m++)
    {
      const CpMemoryStats *st = &mem[m];
      g_autofree char *label = cp_memory_stats_label (st);
      g_autofree char *alloc = g_format_size_full (st->peak_allocated, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *when = cp_format_ns (st->peak_allocated_ts);
      g_autofree char *live = g_format_size_full (st->live_bytes, G_FORMAT_SIZE_IEC_UNITS);

      if (st->has_totals)
        /* Translators: "GPU 0: peak allocated 1.9 GiB at 14.9 ms (2450 events)". */
        g_print (_("  %s: peak allocated %s at %s (%u events)\n"), label, alloc, when, st->n_events);
      else
        /* Translators: the capture has no allocator totals, only sizes. */
        g_print (_("  %s: peak of the sizes allocated during the capture %s at %s (%u events, no allocator totals)\n"),
                 label, alloc, when, st->n_events);
      if (st->peak_reserved >= 0)
        {
          g_autofree char *res = g_format_size_full (st->peak_reserved, G_FORMAT_SIZE_IEC_UNITS);
          g_autofree char *rwhen = cp_format_ns (st->peak_reserved_ts);

          g_print (_("         peak reserved %s at %s\n"), res, rwhen);
        }
      if (st->capacity > 0 && st->has_totals)
        {
          g_autofree char *cap = g_format_size_full (st->capacity, G_FORMAT_SIZE_IEC_UNITS);

          g_print (_("         device memory %s: the peak uses %.1f%%\n"), cap,
                   100.0 * MAX (st->peak_allocated, st->peak_reserved) / st->capacity);
        }
      if (st->has_addresses)
        g_print (_("         live at the peak: %s in %u allocations made during the capture\n"), live, st->n_live);
      for (guint k = 0; k < st->n_top; k++)
        {
          g_autofree char *size = g_format_size_full (st->top[k].bytes, G_FORMAT_SIZE_IEC_UNITS);
          g_autofree char *at = cp_format_ns (st->top[k].ts);

          /* Translators: "18.3 MB at 2.1 ms by aten::empty". */
          g_print (_("           %s at %s by %s\n"), size, at,
                   st->top[k].op.lane != G_MAXUINT32 ? cp_trace_slice_name (trace, st->top[k].op) : _("no recorded op"));
        }
    }
}

static void
print_kernels (CpAnalysis *a)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  const CpKernelStats *ks;
  const CpHostOpStats *ops;
  guint n, n_ops;

  ks = cp_analysis_get_kernels (a, &n);
  if (n > 0)
    {
      g_print ("\n%s\n", _("Top kernels (share of kernel time, total, count, mean, tensor cores)"));
      for (guint i = 0; i < MIN (n, TOP_KERNELS); i++)
        {
          g_autofree char *tot = cp_format_ns (ks[i].total);
          g_autofree char *mean = cp_format_ns (ks[i].count ? ks[i].total / ks[i].count : 0);
          g_autofree char *name = cp_cli_short_name (cp_trace_get_string (trace, ks[i].name));

          g_print ("  %5.1f%% %10s %8u× %10s %-3s %s\n", 100 * ks[i].share, tot, ks[i].count, mean,
                   ks[i].tensor_core ? "TC" : "", name);
        }
      if (n > TOP_KERNELS)
        g_print (_("  … %u more kernel names\n"), n - TOP_KERNELS);
    }

  ops = cp_analysis_get_host_ops (a, &n_ops);
  if (n_ops > 0)
    {
      guint shown = 0;

      g_print ("\n%s\n", _("Top host ops (host time, count, kernels launched and their time)"));
      for (guint i = 0; i < n_ops && shown < TOP_OPS; i++, shown++)
        {
          g_autofree char *tot = cp_format_ns (ops[i].total);
          g_autofree char *kt = cp_format_ns (ops[i].kernel_time);
          g_autofree char *name = cp_cli_short_name (cp_trace_get_string (trace, ops[i].name));

          g_print (_("  %10s %8u× %6u kernels %10s  %s\n"), tot, ops[i].count, ops[i].n_kernels, kt, name);
        }
    }
}

static void
print_finding (CpAnalysis *a,
               CpFinding  *f)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  const CpFigure *figs;
  const CpEvidence *ev;
  guint n_figs, n_ev, n_lead;
  CpFramework order[CP_N_FRAMEWORKS];
  CpSeverity sev = cp_finding_get_severity (f);
  g_autofree char *upper = g_utf8_strup (cp_severity_get_label (sev), -1);

  g_print ("\n[%s] %s (%s)\n", upper, cp_finding_get_title (f), cp_finding_get_rule_id (f));
  g_print ("  %s\n", cp_finding_get_summary (f));

  figs = cp_finding_get_figures (f, &n_figs);
  if (n_figs > 0)
    g_print ("  %s\n", _("Figures:"));
  for (guint i = 0; i < n_figs; i++)
    {
      g_autofree char *v = cp_figure_format (&figs[i], figs[i].value);
      g_autofree char *thr = cp_figure_format_thresholds (&figs[i]);

      if (thr != NULL)
        g_print ("    %s: %s (%s)\n", figs[i].label, v, thr);
      else
        g_print ("    %s: %s\n", figs[i].label, v);
    }

  ev = cp_finding_get_evidence (f, &n_ev);
  if (cp_finding_get_evidence_found (f) > cp_finding_get_evidence_total (f))
    /* Translators: "Evidence: 6 ranges (one per step and lane) covering 2611 slices". */
    g_print (_("  Evidence: %" PRIu64 " ranges (one per step and lane) covering %" PRIu64 " slices"),
             cp_finding_get_evidence_total (f), cp_finding_get_evidence_found (f));
  else
    g_print (_("  Evidence: %" PRIu64 " ranges"), cp_finding_get_evidence_total (f));
  if (n_ev > SHOWN_EVIDENCE)
    g_print (_("; the first %u by time:\n"), SHOWN_EVIDENCE);
  else
    g_print (":\n");
  for (guint i = 0; i < MIN (n_ev, SHOWN_EVIDENCE); i++)
    {
      g_autofree char *s = format_seconds (ev[i].start);
      g_autofree char *e = format_seconds (ev[i].end);
      g_autofree char *d = cp_format_ns (ev[i].end - ev[i].start);
      const char *lane = ev[i].lane < cp_trace_get_n_lanes (trace) ?
                         cp_lane_get_name (cp_trace_get_lane (trace, ev[i].lane)) : "?";

      /* Translators: an evidence range: start, end, length and lane,
       * "0.120 s – 0.150 s (29.3 ms) on “stream 7”". */
      g_print (_("    %s – %s (%s) on “%s”\n"), s, e, d, lane);
    }

  /* The capture's framework first; the others after, marked. */
  n_lead = cp_analysis_get_fix_order (a, order);
  if (n_lead > 0)
    {
      const char * const *fixes = cp_finding_get_fixes (f, order[0]);

      /* Translators: "Fixes (JAX, this capture's framework):". */
      g_print (_("  Fixes (%s, this capture's framework):\n"), cp_framework_get_label (order[0]));
      for (guint i = 0; fixes[i] != NULL; i++)
        g_print ("    %s\n", fixes[i]);
      g_print ("  %s\n", _("Other frameworks:"));
    }
  else
    g_print ("  %s\n", _("Fixes:"));
  for (guint k = n_lead; k < CP_N_FRAMEWORKS; k++)
    {
      const char * const *fixes = cp_finding_get_fixes (f, order[k]);

      for (guint i = 0; fixes[i] != NULL; i++)
        g_print ("    %s: %s\n", cp_framework_get_label (order[k]), fixes[i]);
    }
}

static void
print_text (CpAnalysis *a)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  GListModel *findings = cp_analysis_get_findings (a);
  const char * const *notes = cp_analysis_get_notes (a);
  g_autofree char *path = cp_trace_get_file (trace) ? g_file_get_parse_name (cp_trace_get_file (trace)) : NULL;
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  guint n = g_list_model_get_n_items (findings);
  guint warnings = 0;
  CpFindingSection last_section = CP_N_FINDING_SECTIONS;

  /* The answer first. */
  g_print (_("Verdict:  %s\n"), cp_analysis_get_verdict (a)->text);
  print_confidence (a);
  g_print ("\n");
  g_print (_("Capture:  %s (%s)\n"), path ? path : cp_trace_get_title (trace), r && r->format ? r->format : "?");
  print_window (a);
  {
    const CpFrameworkInfo *fw = cp_analysis_get_framework (a);
    g_autofree char *name = cp_framework_info_describe (fw);
    g_autofree char *from = cp_framework_info_describe_evidence (fw);

    if (from != NULL)
      /* Translators: "Framework: JAX (jax.jit), inferred from “PjitFunction” calls (218)". */
      g_print (_("Framework: %s, inferred from %s\n"), name, from);
    else
      g_print (_("Framework: %s\n"), name);
  }
  for (guint i = 0; notes[i] != NULL; i++)
    g_print (_("Note:     %s\n"), notes[i]);

  print_breakdown (a);
  print_devices (a);
  print_memory (a);
  print_kernels (a);

  /* As on the Findings page and in the report: the one order of findings
   * (cp_findings_compare()), under a heading per section. */
  g_print ("\n%s\n", _("Findings"));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CpFinding) f = g_list_model_get_item (findings, i);
      CpFindingSection section = cp_finding_get_section (f);

      if (section != last_section)
        {
          g_print ("\n%s\n", cp_analysis_get_section_title (a, section));
          last_section = section;
        }
      if (cp_finding_get_severity (f) > CP_SEVERITY_INFO)
        warnings++;
      print_finding (a, f);
    }
  if (warnings == 0 && cp_analysis_get_confidence (a, NULL, NULL) == CP_CONFIDENCE_LOW)
    g_print ("\n%s\n", _("No problems named above info, but the capture cannot be judged (see Confidence above)."));
  else if (warnings == 0)
    g_print ("\n%s\n", n == 0 ? _("No problems found: the capture looks healthy.")
                              : _("No problems found above info: the capture looks healthy."));
  else
    {
      g_print ("\n");
      g_print (g_dngettext (GETTEXT_PACKAGE, "%u problem found above info.\n",
                            "%u problems found above info.\n", warnings), warnings);
    }
}

int
cp_cli_diagnose (int    argc,
                 char **argv)
{
  gboolean json = FALSE, record = FALSE, no_align = FALSE;
  g_autofree char *fail_on = NULL;
  g_autofree char *database = NULL;
  g_auto(GStrv) labels = NULL;
  g_auto(GStrv) fail_if = NULL;
  g_autofree char *format = NULL;
  g_autoptr(GPtrArray) conditions = NULL;
  g_autoptr(CpCliHash) hash = NULL;
  g_auto(GStrv) files = NULL;
  gboolean rank_summary = FALSE, merge = FALSE;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_("Print the metrics and findings as JSON (see docs/diagnose-json.md)"), NULL },
    { "fail-on", 0, 0, G_OPTION_ARG_STRING, &fail_on,
      N_("Exit with status 3 when a finding of this severity or worse exists"), N_("high|moderate") },
    { "fail-if", 0, 0, G_OPTION_ARG_STRING_ARRAY, &fail_if,
      N_("Exit with status 3 when this condition on a metric holds (docs/history.md)"), N_("METRIC<VALUE") },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      N_("text (default), json, or openmetrics: the run's metrics as Prometheus gauges"), N_("FORMAT") },
    { "record", 0, 0, G_OPTION_ARG_NONE, &record, N_("Also record the run in the history (docs/history.md)"), NULL },
    { "label", 0, 0, G_OPTION_ARG_STRING_ARRAY, &labels,
      N_("With --record or --format openmetrics: give the run this label"), N_("KEY=VALUE") },
    { "database", 0, 0, G_OPTION_ARG_FILENAME, &database, N_("With --record: the history, an SQLite file or postgresql://... (default: $CHOKEPOINT_DATABASE)"), N_("PATH") },
    { "no-clock-align", 0, 0, G_OPTION_ARG_NONE, &no_align,
      N_("With several ranks: keep each capture's clock instead of aligning hosts by their collectives"), NULL },
    { "rank-summary", 0, 0, G_OPTION_ARG_NONE, &rank_summary,
      N_("Print what a job needs of this rank's capture, as JSON, to merge with the others' (--merge)"), NULL },
    { "merge", 0, 0, G_OPTION_ARG_NONE, &merge,
      N_("The files are the ranks' summaries (--rank-summary), made anywhere: diagnose them as one job"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("— name the bottlenecks of a capture"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  CpSeverity threshold = CP_SEVERITY_HIGH, worst;

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Reads a profiler capture and reports the step-time breakdown, device "
                                  "utilisation, kernel statistics and the bottlenecks found, each with its "
                                  "measured figures, evidence on the timeline, the time at stake and fixes "
                                  "for PyTorch, JAX and TensorFlow. Needs no display."));
  g_option_context_set_description (context,
                                    _("Exit status: 0 done, 1 the file could not be read, 2 bad arguments, "
                                      "3 a finding at or above the --fail-on severity exists, or a --fail-if "
                                      "condition holds (e.g. 'gpu.utilization<80%' or 'input.share>10%')."));
  g_set_prgname ("chokepoint diagnose");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("chokepoint diagnose: %s\n", error->message);
      g_printerr (_("Run “chokepoint diagnose --help” for usage.\n"));
      return CP_EXIT_USAGE;
    }
  if (fail_on != NULL &&
      (!cp_severity_from_string (fail_on, &threshold) || threshold == CP_SEVERITY_INFO))
    {
      g_printerr (_("chokepoint diagnose: --fail-on takes “high” or “moderate”, not “%s”\n"), fail_on);
      return CP_EXIT_USAGE;
    }
  if (format != NULL && strcmp (format, "json") == 0)
    json = TRUE;
  else if (format != NULL && strcmp (format, "text") != 0 && strcmp (format, "openmetrics") != 0)
    {
      g_printerr (_("chokepoint diagnose: --format takes “text”, “json” or “openmetrics”, not “%s”\n"), format);
      return CP_EXIT_USAGE;
    }
  if (json && format != NULL && strcmp (format, "json") != 0)
    {
      g_printerr (_("chokepoint diagnose: --json and --format=%s contradict each other\n"), format);
      return CP_EXIT_USAGE;
    }
  if (database != NULL && !record)
    {
      g_printerr (_("chokepoint diagnose: --database goes with --record\n"));
      return CP_EXIT_USAGE;
    }
  if (labels != NULL && !record && g_strcmp0 (format, "openmetrics") != 0)
    {
      g_printerr (_("chokepoint diagnose: --label goes with --record or --format openmetrics\n"));
      return CP_EXIT_USAGE;
    }
  if (fail_if != NULL && (conditions = cp_cli_parse_conditions (fail_if, labels)) == NULL)
    return CP_EXIT_USAGE;
  if ((rank_summary || merge) && (record || conditions != NULL || format != NULL))
    {
      g_printerr (_("chokepoint diagnose: --rank-summary and --merge do not go with --record, --fail-if or --format\n"));
      return CP_EXIT_USAGE;
    }
  if (rank_summary)
    {
      if (files == NULL || files[0] == NULL || files[1] != NULL || merge || json || fail_on != NULL)
        {
          g_printerr (_("chokepoint diagnose: --rank-summary takes one capture (and no --merge, --json or --fail-on)\n"));
          return CP_EXIT_USAGE;
        }
      return cp_cli_rank_summary (files[0]);
    }
  if (merge)
    {
      int t = (int) threshold;

      if (files == NULL || files[0] == NULL)
        {
          g_printerr (_("chokepoint diagnose: --merge takes the ranks’ summaries\n"));
          return CP_EXIT_USAGE;
        }
      return cp_cli_diagnose_job (files, json, !no_align, TRUE, fail_on != NULL ? &t : NULL);
    }
  if (files != NULL && files[0] != NULL && (files[1] != NULL || cp_cli_is_job_folder (files[0])))
    {
      int t = (int) threshold;

      if (record || conditions != NULL || g_strcmp0 (format, "openmetrics") == 0)
        {
          g_printerr (_("chokepoint diagnose: --record, --fail-if and --format=openmetrics take one capture, not the ranks of a job\n"));
          return CP_EXIT_USAGE;
        }
      return cp_cli_diagnose_job (files, json, !no_align, FALSE, fail_on != NULL ? &t : NULL);
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      g_printerr (_("chokepoint diagnose: give a capture file, the captures of several ranks, or a folder of them\n"));
      g_printerr (_("Usage: chokepoint diagnose [--json|--format=openmetrics] [--fail-on=high|moderate] "
                    "[--fail-if=CONDITION]... [--record] [--no-clock-align] FILE… | DIR\n"));
      return CP_EXIT_USAGE;
    }

  file = g_file_new_for_commandline_arg (files[0]);
  if (record)
    hash = cp_cli_hash_start (file);
  trace = cp_cli_load ("diagnose", file, &error);
  if (trace == NULL)
    {
      g_printerr ("chokepoint diagnose: %s\n", error->message);
      return CP_EXIT_FAILURE;
    }
  analysis = cp_analysis_new (trace, NULL, &error);
  if (analysis == NULL)
    {
      g_printerr ("chokepoint diagnose: %s\n", error->message);
      return CP_EXIT_FAILURE;
    }

  if (g_strcmp0 (format, "openmetrics") == 0)
    {
      g_autofree char *text = cp_cli_openmetrics (analysis, labels);

      g_print ("%s", text);
    }
  else if (json)
    {
      g_autofree char *text = cp_analysis_to_json (analysis, TRUE);

      g_print ("%s\n", text);
    }
  else
    print_text (analysis);

  if (fflush (stdout) != 0)
    {
      g_printerr (_("chokepoint diagnose: could not write the output\n"));
      return CP_EXIT_FAILURE;
    }

  if (record && !cp_cli_record (analysis, hash, labels, database))
    return CP_EXIT_FAILURE;

  if (conditions != NULL && cp_cli_conditions_hold (conditions, analysis))
    return CP_EXIT_FINDINGS;

  if (fail_on != NULL && cp_analysis_get_worst_severity (analysis, &worst) && worst >= threshold)
    return CP_EXIT_FINDINGS;
  return CP_EXIT_OK;
}
