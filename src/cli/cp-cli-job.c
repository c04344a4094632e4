/* cp-cli-job.c: `chokepoint diagnose A B C...` and `chokepoint diagnose DIR`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cp-job.h"
#include "cp-cli.h"

/* How many collectives the text lists, by skew. */
#define TOP_COLLECTIVES 10

gboolean
cp_cli_is_job_folder (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);

  return cp_job_is_folder (file);
}

static gint
by_skew (gconstpointer a,
         gconstpointer b)
{
  const CpJobCollective *x = *(const CpJobCollective **) a, *y = *(const CpJobCollective **) b;

  return (x->skew < y->skew) - (x->skew > y->skew);
}

static void
print_job (CpJob *job)
{
  const char * const *notes = cp_job_get_notes (job);
  guint n = cp_job_get_n_ranks (job), n_colls = cp_job_get_n_collectives (job);
  const CpJobRank *r0 = cp_job_get_rank (job, 0);
  g_autoptr(GPtrArray) sorted = g_ptr_array_new ();
  gboolean aligned = FALSE;
  CpFramework order[CP_N_FRAMEWORKS];
  guint n_lead;

  for (guint k = 0; k < n; k++)
    aligned |= cp_job_get_rank (job, k)->clock_aligned;
  if (cp_job_get_world_size (job) > 0)
    g_print (_("Job:      %u of %d ranks (%s)\n"), n, cp_job_get_world_size (job), r0->backend ? r0->backend : "?");
  else
    g_print (_("Job:      %u ranks (world size not given)\n"), n);
  g_print (aligned ? _("Clocks:   hosts aligned by the ends of their collectives\n")
                   : _("Clocks:   as recorded (the ranks agree on one clock, or alignment is off)\n"));
  {
    g_autoptr(GArray) reasons = NULL;
    CpConfidenceLevel level = cp_job_get_confidence (job, &reasons);
    g_autoptr(GString) why = g_string_new (NULL);

    for (guint i = 0; i < reasons->len; i++)
      g_string_append_printf (why, "%s%s", i ? "; " : "",
                              g_array_index (reasons, CpConfidenceReason, i).text);
    if (reasons->len == 0)
      g_print (_("Confidence: %s\n"), cp_confidence_level_to_string (level));
    else
      g_print (_("Confidence: %s (%s)\n"), cp_confidence_level_to_string (level), why->str);
  }
  for (guint i = 0; notes[i] != NULL; i++)
    g_print (_("Note:     %s\n"), notes[i]);

  g_print ("\n%s\n", _("Ranks (clock offset, residual, mean step, collectives, comm, exposed, waited, made others wait, compute per step)"));
  for (guint k = 0; k < n; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      g_autofree char *off = cp_format_ns (r->clock_offset), *res = cp_format_ns (r->clock_residual);
      g_autofree char *step = NULL, *comm = cp_format_ns (r->comm_time), *exp = cp_format_ns (r->exposed_comm);
      g_autofree char *wait = cp_format_ns (r->wait_time), *caused = cp_format_ns (r->caused_wait);
      g_autofree char *comp = cp_format_ns (r->compute_time), *base = g_path_get_basename (r->path);

      step = cp_format_ns (r->step.mean);
      g_print ("  %4d %10s %10s %10s %5u %10s %10s %10s %10s %10s  %s\n", r->rank, off, res, step,
               r->n_collectives, comm, exp, wait, caused, comp, base);
    }

  g_print ("\n");
  g_print (_("Collectives: %u matched across the ranks, %u mismatched\n"), n_colls, cp_job_get_n_mismatches (job));
  for (guint c = 0; c < n_colls; c++)
    g_ptr_array_add (sorted, (gpointer) cp_job_get_collective (job, c));
  g_ptr_array_sort (sorted, by_skew);
  if (n_colls > 0)
    g_print ("%s\n", _("  Largest skews (group#index, operation, size, skew, last rank, transfer, bus bandwidth)"));
  for (guint i = 0; i < MIN (sorted->len, TOP_COLLECTIVES); i++)
    {
      const CpJobCollective *c = g_ptr_array_index (sorted, i);
      g_autofree char *skew = cp_format_ns (c->skew), *tr = cp_format_ns (c->transfer_time);
      g_autofree char *size = c->bytes >= 0 ? g_format_size_full (c->bytes, G_FORMAT_SIZE_IEC_UNITS) : g_strdup ("—");
      g_autofree char *bw = isnan (c->bus_bandwidth) ? g_strdup ("—") : g_strdup_printf ("%.2f GB/s", c->bus_bandwidth);

      g_print (_("  %s#%-5u %-16s %10s %10s  rank %-4d %10s %12s%s\n"), c->group, c->index, c->name, size, skew,
               cp_job_get_rank (job, c->last_rank)->rank, tr, bw, c->mismatch ? _("  MISMATCH") : "");
    }

  /* The job's framework (its first rank's) first, the others after. */
  n_lead = cp_job_get_fix_order (job, order);
  g_print ("\n%s\n", _("Job findings"));
  for (guint i = 0; i < cp_job_get_n_findings (job); i++)
    {
      const CpJobFinding *f = cp_job_get_finding (job, i);
      g_autofree char *upper = g_utf8_strup (cp_severity_get_label (f->severity), -1);

      g_print ("\n[%s] %s (%s)\n  %s\n", upper, f->title, f->id, f->summary);
      if (n_lead > 0)
        {
          /* Translators: "Fixes (JAX, this job's framework):". */
          g_print (_("  Fixes (%s, this job’s framework):\n"), cp_framework_get_label (order[0]));
          for (guint j = 0; j < 3 && f->fixes[order[0]][j] != NULL; j++)
            g_print ("    %s\n", _(f->fixes[order[0]][j]));
          g_print ("  %s\n", _("Other frameworks:"));
        }
      else
        g_print ("  %s\n", _("Fixes:"));
      for (guint k = n_lead; k < CP_N_FRAMEWORKS; k++)
        for (guint j = 0; j < 3 && f->fixes[order[k]][j] != NULL; j++)
          g_print ("    %s: %s\n", cp_framework_get_label (order[k]), _(f->fixes[order[k]][j]));
    }
  if (cp_job_get_n_findings (job) == 0)
    g_print ("\n%s\n", _("No problems found across the ranks."));
}

CpJob *
cp_cli_open_job (char * const  *files,
                 gboolean       align_clocks,
                 GError       **error)
{
  g_autoptr(GPtrArray) list = NULL;
  CpJobOptions options = { align_clocks };

  if (files[1] == NULL)
    {
      g_autoptr(GFile) folder = g_file_new_for_commandline_arg (files[0]);

      list = cp_job_list_folder (folder, error);
      if (list == NULL)
        return NULL;
    }
  else
    {
      list = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; files[i] != NULL; i++)
        g_ptr_array_add (list, g_file_new_for_commandline_arg (files[i]));
    }
  /* More than the machine has free: say so, and which ranks would fit. */
  {
    guint64 available = cp_job_memory_available (), need = 0, need_fit = 0;
    guint fit = cp_job_count_fitting ((GFile * const *) list->pdata, list->len, available, &need, &need_fit);

    if (fit < list->len)
      {
        g_autofree char *s_need = g_format_size (need);
        g_autofree char *s_free = g_format_size (available);
        g_autofree char *s_fit = g_format_size (need_fit);

        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                     _("The %u ranks need about %s of memory to read, and %s is free; the first %u (about %s) fit. "
                       "Give fewer rank files, summarise each rank where it is (--rank-summary) and --merge the "
                       "summaries, or set CHOKEPOINT_MEMORY_AVAILABLE to the bytes that may be used"),
                     list->len, s_need, s_free, fit, s_fit);
        return NULL;
      }
  }
  return cp_job_open ((GFile * const *) list->pdata, list->len, &options, NULL, error);
}

int
cp_cli_rank_summary (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = cp_job_rank_summary (file, NULL, &error);

  if (text == NULL)
    {
      g_printerr ("chokepoint diagnose: %s\n", error->message);
      return CP_EXIT_FAILURE;
    }
  g_print ("%s\n", text);
  if (fflush (stdout) != 0)
    {
      g_printerr (_("chokepoint diagnose: could not write the output\n"));
      return CP_EXIT_FAILURE;
    }
  return CP_EXIT_OK;
}

static CpJob *
merge_job (char * const  *files,
           gboolean       align_clocks,
           GError       **error)
{
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);
  CpJobOptions options = { align_clocks };

  for (guint i = 0; files[i] != NULL; i++)
    g_ptr_array_add (list, g_file_new_for_commandline_arg (files[i]));
  return cp_job_merge ((GFile * const *) list->pdata, list->len, &options, error);
}

int
cp_cli_diagnose_job (char * const *files,
                     gboolean      json,
                     gboolean      align_clocks,
                     gboolean      merge,
                     const int    *threshold)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CpJob) job = NULL;

  job = merge ? merge_job (files, align_clocks, &error) : cp_cli_open_job (files, align_clocks, &error);
  if (job == NULL)
    {
      g_printerr ("chokepoint diagnose: %s\n", error->message);
      return CP_EXIT_FAILURE;
    }
  for (guint i = 0; cp_job_get_notes (job)[i] != NULL; i++)
    if (json)
      g_printerr ("chokepoint diagnose: %s\n", cp_job_get_notes (job)[i]);
  if (json)
    {
      g_autofree char *text = cp_job_to_json (job, TRUE);

      g_print ("%s\n", text);
    }
  else
    print_job (job);
  if (fflush (stdout) != 0)
    {
      g_printerr (_("chokepoint diagnose: could not write the output\n"));
      return CP_EXIT_FAILURE;
    }
  if (threshold != NULL)
    for (guint i = 0; i < cp_job_get_n_findings (job); i++)
      if ((int) cp_job_get_finding (job, i)->severity >= *threshold)
        return CP_EXIT_FINDINGS;
  return CP_EXIT_OK;
}
