/* cp-cli-report.c: `chokepoint report FILE -o OUT.png [options]`, and
 * `chokepoint report --compare A B -o OUT.png`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "cp-cli.h"
#include "formats/cp-loader.h"
#include "formats/cp-sidecar.h"
#include "render/cp-report.h"

#define PROG "chokepoint report"

static int
usage_error (const char *message)
{
  g_printerr ("%s: %s\n", PROG, message);
  g_printerr (_("Run “chokepoint report --help” for usage.\n"));
  return CP_EXIT_USAGE;
}

static int
print_size (CpReport       *report,
            CpReportFormat  format,
            const char     *output,
            double          scale)
{
  int w, h;

  cp_report_get_size (report, &w, &h);
  if (format == CP_REPORT_FORMAT_PNG)
    g_print (_("%s: %d × %d pixels\n"), output, (int) (w * scale + 0.999), (int) (h * scale + 0.999));
  else
    g_print (_("%s: %d × %d points\n"), output, w, h);
  return CP_EXIT_OK;
}

/* `--compare A B`: both captures loaded and analysed, then one image. */
static int
report_compare (char                  **files,
                gboolean                by_op,
                const CpReportOptions  *options,
                GFile                  *out,
                CpReportFormat          format,
                const char             *output)
{
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(CpAnalysis) b = NULL;
  g_autoptr(CpComparison) c = NULL;
  g_autoptr(CpReport) report = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (files[i]);
      g_autoptr(CpTrace) trace = cp_cli_load ("report", file, &error);
      const CpLoadReport *lr = trace != NULL ? cp_trace_get_load_report (trace) : NULL;
      CpAnalysis *an = NULL;

      if (lr != NULL && lr->truncated)
        {
          g_autofree char *name = g_file_get_parse_name (file);

          /* Translators: the second %s is A or B, the side of the comparison. */
          g_printerr (_("%s: %s: “%s” ends early: only the events before the cut are compared\n"),
                      PROG, i == 0 ? "A" : "B", name);
        }
      if (trace != NULL)
        an = cp_analysis_new (trace, NULL, &error);
      if (an == NULL)
        {
          g_printerr ("%s: %s: %s\n", PROG, i == 0 ? "A" : "B", error->message);
          return CP_EXIT_FAILURE;
        }
      if (i == 0)
        a = an;
      else
        b = an;
    }
  c = cp_comparison_new (a, b, by_op ? CP_COMPARE_KERNELS_BY_OP : CP_COMPARE_KERNELS_BY_NAME);
  report = cp_report_new_compare (c, options, &error);
  if (report == NULL)
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return g_error_matches (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID) ? CP_EXIT_USAGE : CP_EXIT_FAILURE;
    }
  if (!cp_report_write (report, out, NULL, &error))
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }
  return print_size (report, format, output, options->scale);
}

/* Several files, or a folder of per-rank captures: the job's report. */
static int
report_job (char                  **files,
            gboolean                align,
            const CpReportOptions  *options,
            GFile                  *out,
            CpReportFormat          format,
            const char             *output)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpJob) job = cp_cli_open_job (files, align, &error);
  g_autoptr(CpReport) report = NULL;

  if (job == NULL)
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }
  /* A rank left out is said; the others are drawn. */
  for (guint i = 0; cp_job_get_notes (job)[i] != NULL; i++)
    g_printerr ("%s: %s\n", PROG, cp_job_get_notes (job)[i]);
  report = cp_report_new_job (job, options, &error);
  if (report == NULL)
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }
  if (!cp_report_write (report, out, NULL, &error))
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }
  return print_size (report, format, output, options->scale);
}

int
cp_cli_report (int    argc,
               char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *range = NULL;
  g_autofree char *theme = NULL;
  g_autofree char *lanes = NULL;
  g_autofree char *title = NULL;
  g_auto(GStrv) files = NULL;
  int width = CP_REPORT_DEFAULT_WIDTH;
  double scale = 1.0;
  gboolean no_findings = FALSE, no_steps = FALSE, no_annotations = FALSE;
  gboolean compare = FALSE, by_op = FALSE, no_align = FALSE, job = FALSE;
  const GOptionEntry entries[] = {
    { "compare", 0, 0, G_OPTION_ARG_NONE, &compare,
      N_("Compare two captures, A (before) and B (after): the step time, what changed it, both timelines "
         "at their typical step, the kernels that changed most"), NULL },
    { "by-op", 0, 0, G_OPTION_ARG_NONE, &by_op,
      N_("With --compare: match kernels by the host op that launched them, not by name"), NULL },
    { "no-align", 0, 0, G_OPTION_ARG_NONE, &no_align,
      N_("With the ranks of a job: keep each rank's clock as recorded"), NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("Write the report to OUT; .png, .svg or .pdf chooses the format"), N_("OUT") },
    { "range", 'r', 0, G_OPTION_ARG_STRING, &range,
      N_("Show START:END of the timeline (ns, or with a unit: 1.5s:2s, 120ms:180ms; either side may be "
         "left out)"), N_("START:END") },
    { "width", 'w', 0, G_OPTION_ARG_INT, &width,
      N_("Width in pixels (480 to 8000; default 1600)"), N_("N") },
    { "scale", 's', 0, G_OPTION_ARG_DOUBLE, &scale,
      N_("Pixels per unit for sharp text on HiDPI screens (0.5 to 4; default 1)"), N_("S") },
    { "theme", 't', 0, G_OPTION_ARG_STRING, &theme,
      N_("light (default) or dark"), N_("THEME") },
    { "lanes", 'l', 0, G_OPTION_ARG_STRING, &lanes,
      N_("Only lanes matching these comma-separated globs (name, process or device, or kind: kernel, "
         "transfer, host-thread...)"), N_("PATTERN") },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title,
      N_("Title of the report (default: the capture's file name)"), N_("TEXT") },
    { "no-findings", 0, 0, G_OPTION_ARG_NONE, &no_findings, N_("Leave out the findings"), NULL },
    { "no-steps", 0, 0, G_OPTION_ARG_NONE, &no_steps, N_("Leave out the step breakdown chart"), NULL },
    { "no-annotations", 0, 0, G_OPTION_ARG_NONE, &no_annotations,
      N_("Leave out the annotations of the capture's .chokepoint.json file"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("-o OUT.png — draw an annotated report"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) out = NULL;
  g_autoptr(GFile) out_folder = NULL;
  g_autoptr(CpTrace) trace = NULL;
  g_autoptr(CpAnalysis) analysis = NULL;
  g_autoptr(CpAnnotations) annotations = NULL;
  g_autoptr(CpReport) report = NULL;
  g_autofree char *out_name = NULL;
  CpReportOptions options;
  CpReportFormat format = CP_REPORT_FORMAT_PNG;

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Draws the report of a capture: its figures, the timeline with the "
                                  "findings' evidence and the annotations saved beside it, the findings "
                                  "with their fixes and the step breakdown. Needs no display."));
  g_option_context_set_description (context,
                                    _("Times are from the start of the capture. Examples:\n"
                                      "  chokepoint report run.pt.trace.json.gz -o report.png\n"
                                      "  chokepoint report run.json -o gpu.svg --range 1.5s:2s --lanes 'kernel,transfer'\n"
                                      "  chokepoint report run.json -o slide.png --width 1280 --scale 2 --theme dark\n"
                                      "  chokepoint report --compare before.json after.json -o change.png\n"
                                      "  chokepoint report rank0.json rank1.json rank2.json -o job.png\n"
                                      "  chokepoint report ranks/ -o job.pdf\n"));
  g_set_prgname (PROG);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (error->message);

  cp_report_options_init (&options);
  if (compare)
    {
      if (files == NULL || files[0] == NULL || files[1] == NULL || files[2] != NULL)
        return usage_error (_("--compare takes exactly two capture files, A and B"));
      if (range != NULL || lanes != NULL)
        return usage_error (_("--range and --lanes do not go with --compare: the timelines show each "
                              "capture's typical step"));
    }
  else if (by_op)
    return usage_error (_("--by-op goes with --compare"));
  else if (files == NULL || files[0] == NULL)
    return usage_error (_("give exactly one capture file, or the ranks of a job (several files or their folder)"));
  else
    job = files[1] != NULL || cp_cli_is_job_folder (files[0]);
  for (guint i = 0; job && files[i] != NULL; i++)
    for (guint j = i + 1; files[j] != NULL; j++)
      {
        g_autoptr(GFile) a = g_file_new_for_commandline_arg (files[i]);
        g_autoptr(GFile) b = g_file_new_for_commandline_arg (files[j]);

        if (g_file_equal (a, b))
          {
            g_autofree char *msg = g_strdup_printf (_("“%s” is given twice: each rank of a job is one file"),
                                                    files[i]);

            return usage_error (msg);
          }
      }
  if (job && (range != NULL || lanes != NULL))
    return usage_error (_("--range and --lanes do not go with the ranks of a job"));
  if (no_align && !job)
    return usage_error (_("--no-align goes with the ranks of a job"));
  if (output == NULL)
    return usage_error (_("give the output file with -o OUT.png (or .svg, .pdf)"));
  out = g_file_new_for_commandline_arg (output);
  out_name = g_file_get_basename (out);
  if (!cp_report_format_for_name (out_name, &format))
    {
      g_autofree char *msg = g_strdup_printf (_("“%s” does not end in .png, .svg or .pdf"), output);

      return usage_error (msg);
    }
  if (range != NULL)
    {
      if (!cp_report_parse_range (range, &options.start, &options.end, &error))
        return usage_error (error->message);
      options.range = CP_REPORT_RANGE_CUSTOM;
    }
  if (width < CP_REPORT_MIN_WIDTH || width > CP_REPORT_MAX_WIDTH)
    {
      g_autofree char *msg = g_strdup_printf (_("the width must be between %d and %d, not %d"),
                                              CP_REPORT_MIN_WIDTH, CP_REPORT_MAX_WIDTH, width);

      return usage_error (msg);
    }
  if (!(scale >= CP_REPORT_MIN_SCALE && scale <= CP_REPORT_MAX_SCALE))
    {
      g_autofree char *msg = g_strdup_printf (_("the scale must be between %g and %g, not %g"),
                                              CP_REPORT_MIN_SCALE, CP_REPORT_MAX_SCALE, scale);

      return usage_error (msg);
    }
  if (theme != NULL && g_strcmp0 (theme, "light") != 0 && g_strcmp0 (theme, "dark") != 0)
    {
      g_autofree char *msg = g_strdup_printf (_("the theme is light or dark, not “%s”"), theme);

      return usage_error (msg);
    }
  if (lanes != NULL)
    {
      if (*g_strstrip (lanes) == '\0')
        return usage_error (_("the lane pattern is empty"));
      options.lanes = CP_REPORT_LANES_PATTERN;
      options.lane_pattern = lanes;
    }
  options.width = width;
  options.scale = scale;
  options.theme = g_strcmp0 (theme, "dark") == 0 ? CP_THEME_DARK : CP_THEME_LIGHT;
  options.findings = !no_findings;
  options.steps = !no_steps;
  options.annotations = !no_annotations;
  options.title = title;

  /* A missing output folder is found before a long load. */
  out_folder = g_file_get_parent (out);
  if (out_folder != NULL &&
      g_file_query_file_type (out_folder, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    {
      g_autofree char *folder = g_file_get_parse_name (out_folder);

      g_printerr (_("%s: the folder “%s” does not exist\n"), PROG, folder);
      return CP_EXIT_FAILURE;
    }

  if (compare)
    return report_compare (files, by_op, &options, out, format, output);
  if (job)
    return report_job (files, !no_align, &options, out, format, output);

  file = g_file_new_for_commandline_arg (files[0]);
  trace = cp_cli_load ("report", file, &error);
  if (trace == NULL)
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }

  /* The annotations saved beside the capture (or in the data folder); this
   * only reads them. */
  annotations = cp_annotations_new ();
  cp_annotations_set_trace (annotations, trace);
  if (options.annotations)
    {
      g_autoptr(CpSidecar) sidecar = cp_sidecar_new (file, annotations);

      if (!cp_sidecar_load (sidecar, &error))
        {
          /* Translators: a warning; the report is still written. */
          g_printerr (_("%s: warning: %s\n"), PROG, error->message);
          g_clear_error (&error);
        }
      if (cp_annotations_get_n_detached (annotations) > 0)
        g_printerr (g_dngettext (GETTEXT_PACKAGE,
                                 "%s: note: %u annotation refers to a slice this capture lacks; it is listed as detached\n",
                                 "%s: note: %u annotations refer to slices this capture lacks; they are listed as detached\n",
                                 cp_annotations_get_n_detached (annotations)),
                    PROG, cp_annotations_get_n_detached (annotations));
    }

  analysis = cp_analysis_new (trace, NULL, &error);
  if (analysis == NULL)
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }

  report = cp_report_new (trace, analysis, annotations, NULL, &options, &error);
  if (report == NULL)
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return g_error_matches (error, CP_REPORT_ERROR, CP_REPORT_ERROR_INVALID) ? CP_EXIT_USAGE : CP_EXIT_FAILURE;
    }
  if (!cp_report_write (report, out, NULL, &error))
    {
      g_printerr ("%s: %s\n", PROG, error->message);
      return CP_EXIT_FAILURE;
    }
  return print_size (report, format, output, scale);
}
