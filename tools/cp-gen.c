/* cp-gen.c: writes synthetic profiler captures with one injected bottleneck
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   cp-gen --scenario NAME --out FILE
 *          [--format json|json.gz|json.zst|xplane|xplane.gz|xplane.zst]
 *          [--steps N | --size BYTES] [--seed S] [--truth FILE.json]
 *          [--summary FILE.json] [--level L] [--quiet] [--list]
 *          [--loader-ms MS] [--loader-workers N]
 *          [--slow-kernel TEXT [--slow-factor F]]
 *   cp-gen --job DIR [--ranks N] ... (the ranks of a run: cp-gen-job.c)
 *
 * See tools/README.md for the scenarios, the ground-truth file and how each
 * Kineto construct maps onto XPlane.
 */

#include "config.h"

#include <locale.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cp-gen-write.h"
#include "cp-gen-xla.h"

typedef enum
{
  FORMAT_JSON,
  FORMAT_XPLANE,
} Container;

typedef struct
{
  const char   *name;
  Container     container;
  CpGenCompress compress;
  const char   *suffixes[3];
} Format;

static const Format formats[] = {
  { "json", FORMAT_JSON, CP_GEN_COMPRESS_NONE, { ".json", NULL } },
  { "json.gz", FORMAT_JSON, CP_GEN_COMPRESS_GZIP, { ".json.gz", NULL } },
  { "json.zst", FORMAT_JSON, CP_GEN_COMPRESS_ZSTD, { ".json.zst", NULL } },
  { "xplane", FORMAT_XPLANE, CP_GEN_COMPRESS_NONE, { ".xplane.pb", ".pb", NULL } },
  { "xplane.gz", FORMAT_XPLANE, CP_GEN_COMPRESS_GZIP, { ".xplane.pb.gz", ".pb.gz", NULL } },
  { "xplane.zst", FORMAT_XPLANE, CP_GEN_COMPRESS_ZSTD, { ".xplane.pb.zst", ".pb.zst", NULL } },
};

static const Format *
format_for_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_strcmp0 (formats[i].name, name) == 0)
      return &formats[i];
  return NULL;
}

static const Format *
format_for_path (const char *path)
{
  const Format *best = NULL;
  gsize best_len = 0;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    for (guint j = 0; formats[i].suffixes[j] != NULL; j++)
      {
        gsize len = strlen (formats[i].suffixes[j]);

        if (g_str_has_suffix (path, formats[i].suffixes[j]) && len > best_len)
          {
            best = &formats[i];
            best_len = len;
          }
      }
  return best;
}

/* "1G", "500M", "64k", "1000000" (powers of 1024 for suffixes). */
static gboolean
parse_size (const char *text,
            guint64    *out)
{
  char *end = NULL;
  guint64 v;

  if (text == NULL || !g_ascii_isdigit (*text))
    return FALSE;
  v = g_ascii_strtoull (text, &end, 10);
  switch (g_ascii_tolower (*end))
    {
    case '\0': break;
    case 'k': v <<= 10; end++; break;
    case 'm': v <<= 20; end++; break;
    case 'g': v <<= 30; end++; break;
    default: return FALSE;
    }
  if (*end == 'b' || *end == 'B')
    end++;
  if (*end != '\0' || v == 0)
    return FALSE;
  *out = v;
  return TRUE;
}

typedef struct
{
  FILE    *file;
  guint    n;
  GArray  *iterations;   /* of CpGenIteration, loops without step markers */
} Truth;

static void
truth_range (gint64   start,
             gint64   end,
             gpointer user_data)
{
  Truth *t = user_data;

  if (t->file != NULL)
    fprintf (t->file, "%s\n    {\"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %" G_GINT64_FORMAT "}",
             t->n ? "," : "", start, end);
  t->n++;
}

static void
truth_iteration (const CpGenIteration *it,
                 gpointer              user_data)
{
  Truth *t = user_data;

  g_array_append_val (t->iterations, *it);
}

static int
compare_ns (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The iterations of a loop without step markers, which are the warm-up,
 * and what the steady ones (all others) hold: their number, mean and
 * median length (the mean of the middle two for an even number, rounded
 * down), the data loading and kernel busy time inside them, and those as
 * % of their summed length. */
static void
write_iterations (FILE   *f,
                  GArray *iterations)
{
  g_autoptr(GArray) lengths = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 total = 0, loading = 0, busy = 0, median = 0;
  gboolean first = TRUE;

  fprintf (f, ",\n  \"iterations\": [");
  for (guint i = 0; i < iterations->len; i++)
    {
      const CpGenIteration *it = &g_array_index (iterations, CpGenIteration, i);

      fprintf (f, "%s\n    {\"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %" G_GINT64_FORMAT
               ", \"loading_ns\": %" G_GINT64_FORMAT ", \"gpu_busy_ns\": %" G_GINT64_FORMAT "}",
               i ? "," : "", it->start, it->end, it->loading_ns, it->gpu_busy_ns);
    }
  fprintf (f, "\n  ],\n  \"warmup_iterations\": [");
  for (guint i = 0; i < iterations->len; i++)
    {
      const CpGenIteration *it = &g_array_index (iterations, CpGenIteration, i);
      gint64 len = it->end - it->start;

      if (it->warmup)
        {
          fprintf (f, "%s%u", first ? "" : ", ", it->index);
          first = FALSE;
          continue;
        }
      g_array_append_val (lengths, len);
      total += len;
      loading += it->loading_ns;
      busy += it->gpu_busy_ns;
    }
  qsort (lengths->data, lengths->len, sizeof (gint64), compare_ns);
  if (lengths->len > 0)
    {
      guint h = lengths->len / 2;

      median = lengths->len % 2 ? g_array_index (lengths, gint64, h)
                                : (g_array_index (lengths, gint64, h - 1) + g_array_index (lengths, gint64, h)) / 2;
    }
  fprintf (f, "],\n  \"steady\": {\"n\": %u, \"mean_ns\": %" G_GINT64_FORMAT ", \"median_ns\": %" G_GINT64_FORMAT
           ", \"loading_ns\": %" G_GINT64_FORMAT ", \"loading_percent\": %.6f, \"gpu_busy_ns\": %" G_GINT64_FORMAT
           ", \"gpu_busy_percent\": %.6f}",
           lengths->len, lengths->len ? (total + lengths->len / 2) / (gint64) lengths->len : 0, median,
           loading, total ? 100.0 * loading / total : 0.0, busy, total ? 100.0 * busy / total : 0.0);
}

static void
write_string_list (FILE       *f,
                   const char *csv)
{
  g_auto(GStrv) items = csv ? g_strsplit (csv, ",", -1) : NULL;

  fputc ('[', f);
  for (guint i = 0; items != NULL && items[i] != NULL; i++)
    fprintf (f, "%s\"%s\"", i ? ", " : "", items[i]);
  fputc (']', f);
}

static gboolean
write_summary (const char              *path,
               const CpGenScenarioInfo *info,
               const Format            *format,
               guint64                  seed,
               const CpGenCounts       *c,
               guint64                  bytes,
               guint64                  file_bytes,
               const CpGenRunInfo      *run,
               double                   seconds,
               GError                 **error)
{
  g_autoptr(GString) s = g_string_new (NULL);

  g_string_append_printf (s,
    "{\n  \"scenario\": \"%s\",\n  \"format\": \"%s\",\n  \"seed\": %" G_GUINT64_FORMAT ",\n"
    "  \"steps\": %u,\n  \"bytes\": %" G_GUINT64_FORMAT ",\n  \"file_bytes\": %" G_GUINT64_FORMAT ",\n"
    "  \"events\": %" G_GUINT64_FORMAT ",\n  \"slices\": %" G_GUINT64_FORMAT ",\n"
    "  \"host_slices\": %" G_GUINT64_FORMAT ",\n  \"runtime_calls\": %" G_GUINT64_FORMAT ",\n"
    "  \"kernels\": %" G_GUINT64_FORMAT ",\n  \"memcpys\": %" G_GUINT64_FORMAT ",\n"
    "  \"memsets\": %" G_GUINT64_FORMAT ",\n  \"transfers\": %" G_GUINT64_FORMAT ",\n"
    "  \"counter_samples\": %" G_GUINT64_FORMAT ",\n  \"flows\": %" G_GUINT64_FORMAT ",\n"
    "  \"launch_flows\": %" G_GUINT64_FORMAT ",\n  \"fwdbwd_flows\": %" G_GUINT64_FORMAT ",\n"
    "  \"lone_flow_starts\": %" G_GUINT64_FORMAT ",\n  \"metadata\": %" G_GUINT64_FORMAT ",\n"
    "  \"instants\": %" G_GUINT64_FORMAT ",\n  \"planes\": %" G_GUINT64_FORMAT ",\n"
    "  \"lines\": %" G_GUINT64_FORMAT ",\n  \"origin_ns\": %" G_GINT64_FORMAT ",\n"
    "  \"duration_ns\": %" G_GINT64_FORMAT ",\n  \"seconds\": %.3f\n}\n",
    info->name, format->name, seed, c->steps, bytes, file_bytes, c->events, c->slices,
    c->host_slices, c->runtime_calls, c->kernels, c->memcpys, c->memsets, c->memcpys + c->memsets,
    c->counter_samples, c->flows, c->launch_flows, c->fwdbwd_flows, c->lone_flow_starts,
    c->metadata, c->instants, c->planes, c->lines, run->base_time_ns + run->origin_rel_ns,
    c->duration_ns, seconds);
  if (g_strcmp0 (path, "-") == 0)
    {
      fputs (s->str, stdout);
      return TRUE;
    }
  return g_file_set_contents (path, s->str, s->len, error);
}

/* Each scenario with its expected rule and what it holds; under it, the
 * truth's members beyond the common ones (PyTorch: scenario, expect,
 * related, seed, format, ranges, steps, origin_ns, duration_ns; XLA:
 * scenario, format). */
static void
list_scenarios (void)
{
  guint n;
  const CpGenScenarioInfo *infos = cp_gen_scenarios (&n);

  for (guint i = 0; i < n; i++)
    {
      g_print ("%-22s %-20s %s\n", infos[i].name, infos[i].expect ? infos[i].expect : "(none)",
               infos[i].summary);
      if (infos[i].truth != NULL)
        g_print ("%-43s truth adds: %s\n", "", infos[i].truth);
    }
  {
    const CpGenXlaScenario *xla = cp_gen_xla_scenarios (&n);

    for (guint i = 0; i < n; i++)
      {
        g_print ("%-22s %-20s %s (XPlane only)\n", xla[i].name, "(truth)", xla[i].summary);
        g_print ("%-43s truth: %s\n", "", xla[i].truth);
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *scenario_name = NULL;
  g_autofree char *out_path = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *size_text = NULL;
  g_autofree char *seed_text = NULL;
  g_autofree char *truth_path = NULL;
  g_autofree char *summary_path = NULL;
  int steps = 0;
  int level = -1;
  int host = 0;
  int loader_workers = 0;
  double loader_ms = 0, slow_factor = 2.0;
  g_autofree char *slow_kernel = NULL;
  gboolean quiet = FALSE, list = FALSE;
  GOptionEntry entries[] = {
    { "scenario", 0, 0, G_OPTION_ARG_STRING, &scenario_name, "Scenario to simulate (see --list)", "NAME" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "Capture to write (- for standard output)", "FILE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      "json, json.gz, json.zst, xplane, xplane.gz or xplane.zst (default: from the file name)", "FORMAT" },
    { "steps", 'n', 0, G_OPTION_ARG_INT, &steps, "Training steps to simulate (default 6)", "N" },
    { "size", 's', 0, G_OPTION_ARG_STRING, &size_text,
      "Add steps until the uncompressed capture is about this big (k, M, G suffixes)", "BYTES" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text, "Random seed (default 1)", "S" },
    { "truth", 't', 0, G_OPTION_ARG_FILENAME, &truth_path, "Write the ground truth of the scenario here", "FILE" },
    { "summary", 0, 0, G_OPTION_ARG_FILENAME, &summary_path,
      "Write what the capture holds as JSON (- for standard output)", "FILE" },
    { "level", 0, 0, G_OPTION_ARG_INT, &level, "Compression level (default 3)", "L" },
    { "host", 0, 0, G_OPTION_ARG_INT, &host, "XLA scenarios: the worker's number (xla-tf-worker)", "H" },
    { "loader-ms", 0, 0, G_OPTION_ARG_DOUBLE, &loader_ms,
      "The same run with a DataLoader __next__ of this many ms (mean); its spans become the truth's ranges", "MS" },
    { "loader-workers", 0, 0, G_OPTION_ARG_INT, &loader_workers,
      "The same run with a DataLoader of N worker processes instead of num_workers=0 (the fixed run)", "N" },
    { "slow-kernel", 0, 0, G_OPTION_ARG_STRING, &slow_kernel,
      "The same run with every kernel whose name holds TEXT running --slow-factor times longer", "TEXT" },
    { "slow-factor", 0, 0, G_OPTION_ARG_DOUBLE, &slow_factor, "How much longer --slow-kernel runs (default 2)", "F" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Do not print the one-line report", NULL },
    { "list", 0, 0, G_OPTION_ARG_NONE, &list, "List the scenarios and exit", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- write a synthetic profiler capture");
  g_autoptr(GError) error = NULL;
  const CpGenScenarioInfo *info;
  const Format *format;
  guint64 seed = 1, size_target = 0, file_bytes = 0, bytes = 0;
  CpGenCounts counts = { 0, };
  Truth truth = { NULL, 0, NULL };
  g_autoptr(GArray) iterations = NULL;
  CpGenOut *out;
  CpGenSim *sim = NULL;
  gint64 t0 = g_get_monotonic_time ();
  double seconds;
  const CpGenRunInfo *run;
  gboolean ok;

  /* A job of several ranks has options of its own (cp-gen-job.c). */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--job") == 0 || g_str_has_prefix (argv[i], "--job="))
      return cp_gen_job_main (argc, argv);

  /* Option help and figures in the user's character set (…, —, µ);
   * numbers stay in the C locale, so the files written stay valid. */
  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Simulates a PyTorch training loop on one GPU with one injected bottleneck and writes\n"
    "it as a Kineto trace or an XPlane capture, plus the ground truth for the diagnosis.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("cp-gen: %s\n", error->message);
      return 2;
    }
  if (list)
    {
      list_scenarios ();
      return 0;
    }
  if (scenario_name == NULL || out_path == NULL)
    {
      g_printerr ("cp-gen: --scenario and --out are required (--help for usage)\n");
      return 2;
    }
  /* The XLA scenarios: XPlane only, truth of their own. */
  {
    const CpGenXlaScenario *xla = cp_gen_xla_lookup (scenario_name);

    if (xla != NULL)
      {
        guint64 n_events = 0;

        format = format_name ? format_for_name (format_name) : format_for_path (out_path);
        if (format == NULL || format->container != FORMAT_XPLANE)
          {
            g_printerr ("cp-gen: scenario “%s” is written as XPlane only (--format xplane)\n", scenario_name);
            return 2;
          }
        if (size_text != NULL || steps < 0 || host < 0 || host > 64)
          {
            g_printerr ("cp-gen: scenario “%s” takes --steps only\n", scenario_name);
            return 2;
          }
        out = cp_gen_out_open (out_path, format->compress, level, &error);
        if (out == NULL ||
            !cp_gen_xla_write (xla, out, (guint) steps, (guint) host, truth_path, &n_events, &error))
          {
            g_printerr ("cp-gen: %s\n", error->message);
            if (out != NULL)
              cp_gen_out_close (out, NULL, NULL);
            return 1;
          }
        if (!cp_gen_out_close (out, &file_bytes, &error))
          {
            g_printerr ("cp-gen: %s\n", error->message);
            return 1;
          }
        if (!quiet)
          g_printerr ("cp-gen: %s: %s, %" G_GUINT64_FORMAT " events\n", out_path, xla->name, n_events);
        return 0;
      }
  }
  info = cp_gen_scenario_lookup (scenario_name);
  if (info == NULL)
    {
      g_printerr ("cp-gen: unknown scenario “%s”; known scenarios:\n", scenario_name);
      list_scenarios ();
      return 2;
    }
  format = format_name ? format_for_name (format_name) : format_for_path (out_path);
  if (format == NULL)
    {
      if (format_name)
        g_printerr ("cp-gen: unknown format “%s”\n", format_name);
      else
        g_printerr ("cp-gen: cannot tell the format from “%s”; use --format\n", out_path);
      return 2;
    }
  if (steps != 0 && size_text != NULL)
    {
      g_printerr ("cp-gen: --steps and --size exclude each other\n");
      return 2;
    }
  if (steps < 0 || (size_text != NULL && !parse_size (size_text, &size_target)))
    {
      g_printerr ("cp-gen: invalid --steps or --size\n");
      return 2;
    }
  if (seed_text != NULL)
    {
      char *end = NULL;

      seed = g_ascii_strtoull (seed_text, &end, 0);
      if (end == seed_text || *end != '\0')
        {
          g_printerr ("cp-gen: invalid --seed “%s”\n", seed_text);
          return 2;
        }
    }
  if (steps == 0 && size_target == 0)
    steps = info->default_steps ? (int) info->default_steps : 6;
  if (loader_ms < 0 || loader_ms > 60000 || !(slow_factor > 0 && slow_factor <= 1000) ||
      (slow_kernel != NULL && *slow_kernel == '\0') || loader_workers < 0 || loader_workers > 64)
    {
      g_printerr ("cp-gen: invalid --loader-ms, --loader-workers, --slow-kernel or --slow-factor\n");
      return 2;
    }
  if (loader_workers > 0 && !cp_gen_scenario_loads_in_process (info))
    {
      g_printerr ("cp-gen: --loader-workers needs a scenario whose DataLoader has num_workers=0\n");
      return 2;
    }
  {
    CpGenVariation v = { (gint64) (loader_ms * 1e6), slow_kernel, slow_factor, (guint) loader_workers };

    cp_gen_set_variation (&v);
  }

  out = cp_gen_out_open (out_path, format->compress, level, &error);
  if (out == NULL)
    {
      g_printerr ("cp-gen: %s\n", error->message);
      return 1;
    }

  if (truth_path != NULL)
    {
      truth.file = g_fopen (truth_path, "w");
      if (truth.file == NULL)
        {
          g_printerr ("cp-gen: cannot create %s: %s\n", truth_path, g_strerror (errno));
          cp_gen_out_close (out, NULL, NULL);
          return 1;
        }
      /* With workers the run is the fixed one: nothing left to find. */
      fprintf (truth.file, "{\n  \"scenario\": \"%s\",\n  \"expect\": ", info->name);
      write_string_list (truth.file, loader_workers > 0 ? NULL : info->expect);
      fprintf (truth.file, ",\n  \"related\": ");
      write_string_list (truth.file, loader_workers > 0 ? NULL : info->related);
      fprintf (truth.file, ",\n  \"seed\": %" G_GUINT64_FORMAT ",\n  \"format\": \"%s\",\n  \"ranges\": [",
               seed, format->name);
    }

  iterations = g_array_new (FALSE, FALSE, sizeof (CpGenIteration));
  truth.iterations = iterations;
  sim = cp_gen_sim_new (info, seed);
  run = cp_gen_sim_run_info (sim);
  if (format->container == FORMAT_JSON)
    {
      CpGenJson *w;
      /* What the end of the document adds (metadata, spans). */
      const guint64 trailer = 12 * 1024;

      cp_gen_sim_set_truth_func (sim, truth_range, &truth);
      cp_gen_sim_set_iteration_func (sim, truth_iteration, &truth);
      w = cp_gen_json_begin (out, sim, &counts);
      for (;;)
        {
          guint n;
          const CpGenEvent *events = cp_gen_sim_step (sim, &n);

          cp_gen_json_step (w, events, n);
          if (steps > 0 ? counts.steps >= (guint) steps : out->total + trailer >= size_target)
            break;
        }
      cp_gen_sim_finish (sim);
      cp_gen_json_end (w);
      ok = TRUE;
    }
  else
    ok = cp_gen_xplane_write (out, info, seed, steps, size_target, truth_range, truth_iteration, &truth,
                              &counts, &error);

  bytes = out->total;
  if (!cp_gen_out_close (out, &file_bytes, ok ? &error : NULL) || !ok)
    {
      g_printerr ("cp-gen: %s\n", error->message);
      cp_gen_sim_free (sim);
      return 1;
    }
  seconds = (g_get_monotonic_time () - t0) / 1e6;

  if (truth.file != NULL)
    {
      fprintf (truth.file,
               "\n  ],\n  \"steps\": %u,\n  \"origin_ns\": %" G_GINT64_FORMAT ",\n"
               "  \"duration_ns\": %" G_GINT64_FORMAT,
               counts.steps, run->base_time_ns + run->origin_rel_ns, counts.duration_ns);
      if (loader_ms > 0)
        fprintf (truth.file, ",\n  \"loader_ns\": %" G_GINT64_FORMAT, (gint64) (loader_ms * 1e6));
      if (loader_workers > 0)
        fprintf (truth.file, ",\n  \"loader_workers\": %d", loader_workers);
      if (truth.iterations->len > 0)
        write_iterations (truth.file, truth.iterations);
      /* The slowed kernels as the JSON writer's simulation ran them (the
       * XPlane writer runs its own). */
      if (slow_kernel != NULL && format->container == FORMAT_JSON)
        {
          guint64 n_slowed;
          gint64 slowed_ns;

          cp_gen_sim_slowed (sim, &n_slowed, &slowed_ns);
          fprintf (truth.file, ",\n  \"slow_kernel\": {\"text\": \"%s\", \"factor\": %.6g, "
                   "\"count\": %" G_GUINT64_FORMAT ", \"total_ns\": %" G_GINT64_FORMAT "}",
                   slow_kernel, slow_factor, n_slowed, slowed_ns);
        }
      /* Memory scenarios: the allocator's peaks (the JSON writer's; the
       * XPlane capture has no allocator events). */
      {
        gint64 peak_allocated, peak_reserved;
        guint64 n_mem;

        if (format->container == FORMAT_JSON &&
            cp_gen_sim_memory_truth (sim, &peak_allocated, &peak_reserved, &n_mem))
          {
            guint n_ends;
            const gint64 *ends = cp_gen_sim_memory_step_ends (sim, &n_ends);

            fprintf (truth.file, ",\n  \"memory\": {\"device_type\": 1, \"device_id\": 0, \"events\": %" G_GUINT64_FORMAT
                     ", \"peak_allocated_bytes\": %" G_GINT64_FORMAT ", \"peak_reserved_bytes\": %" G_GINT64_FORMAT
                     ", \"capacity_bytes\": %" G_GUINT64_FORMAT ",\n    \"step_end_allocated_bytes\": [",
                     n_mem, peak_allocated, peak_reserved, run->total_global_mem);
            for (guint i = 0; i < n_ends; i++)
              fprintf (truth.file, "%s%" G_GINT64_FORMAT, i ? ", " : "", ends[i]);
            fprintf (truth.file, "]}");
          }
      }
      fprintf (truth.file, "\n}\n");
      if (fclose (truth.file) != 0)
        {
          g_printerr ("cp-gen: cannot write %s: %s\n", truth_path, g_strerror (errno));
          cp_gen_sim_free (sim);
          return 1;
        }
    }
  if (summary_path != NULL
      && !write_summary (summary_path, info, format, seed, &counts, bytes, file_bytes, run, seconds, &error))
    {
      g_printerr ("cp-gen: %s\n", error->message);
      cp_gen_sim_free (sim);
      return 1;
    }
  if (!quiet)
    g_printerr ("cp-gen: %s: %s, %u steps, %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT
                " bytes (%" G_GUINT64_FORMAT " on disk) in %.2f s (%.0f MB/s)\n",
                out_path, info->name, counts.steps, counts.events, bytes, file_bytes, seconds,
                bytes / 1e6 / MAX (seconds, 1e-6));
  cp_gen_sim_free (sim);
  return 0;
}
