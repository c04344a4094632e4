/* test-job.c: several ranks of one run opened as a job (cp-job.h)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Oracles: the truth `cp-gen --job` writes (true arrivals, ends, last rank,
 * straggler and clock offsets of its simulated run), tests/collective-count.py
 * over the raw events of HTA's two sampled ranks, and each rank loaded and
 * analysed alone.
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "analysis/cp-job.h"
#include "analysis/cp-job-private.h"
#include "cp-test-util.h"
#include "formats/cp-loader.h"

typedef struct
{
  char       *dir;
  JsonParser *truth;
} Gen;

static void
gen_clear (Gen *g)
{
  cp_test_rm_rf (g->dir);
  g_free (g->dir);
  g_clear_object (&g->truth);
}

/* Runs cp-gen --job with extra arguments (NULL-ended) into a fresh folder. */
static void
gen_job (Gen        *g,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *truth = NULL, *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;
  va_list ap;

  g->dir = cp_test_make_tmpdir ();
  truth = g_build_filename (g->dir, "truth.json.txt", NULL);
  g_ptr_array_add (argv, g_strdup (g_getenv ("CP_GEN")));
  g_ptr_array_add (argv, g_strdup ("--job"));
  g_ptr_array_add (argv, g_build_filename (g->dir, "ranks", NULL));
  g_ptr_array_add (argv, g_strdup ("--truth"));
  g_ptr_array_add (argv, g_strdup (truth));
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err,
                               &status, &error));
  g_assert_no_error (error);
  if (status != 0)
    g_printerr ("%s", err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g->truth = json_parser_new ();
  g_assert_true (json_parser_load_from_file (g->truth, truth, &error));
  g_assert_no_error (error);
}

static JsonObject *
truth_of (Gen *g)
{
  return json_node_get_object (json_parser_get_root (g->truth));
}

static CpJob *
open_dir (const char *dir,
          gboolean    align)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) files = cp_job_list_folder (folder, &error);
  CpJobOptions options = { align };
  CpJob *job;

  g_assert_no_error (error);
  job = cp_job_open ((GFile * const *) files->pdata, files->len, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (job);
  return job;
}

static const CpJobFinding *
find (CpJob      *job,
      const char *id)
{
  for (guint i = 0; i < cp_job_get_n_findings (job); i++)
    if (strcmp (cp_job_get_finding (job, i)->id, id) == 0)
      return cp_job_get_finding (job, i);
  return NULL;
}

/* Every collective's skew and last rank against the simulation's truth,
 * within the latency the alignment allows (per rank: its residual). */
static void
check_collectives_of (CpJob      *job,
                      JsonObject *truth,
                      gint64      tolerance,
                      const char *op)
{
  JsonArray *colls = json_object_get_array_member (truth, "collectives");
  guint n_ranks = cp_job_get_n_ranks (job);

  g_assert_cmpuint (cp_job_get_n_collectives (job), ==, json_array_get_length (colls));
  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (job, c);
      JsonObject *t = json_array_get_object_element (colls, jc->index);
      JsonArray *arr = json_object_get_array_member (t, "arrival_ns");
      gint64 lo = G_MAXINT64, hi = G_MININT64, second = G_MININT64;

      for (guint k = 0; k < n_ranks; k++)
        {
          gint64 a = json_array_get_int_element (arr, cp_job_get_rank (job, k)->rank);

          lo = MIN (lo, a);
          hi = MAX (hi, a);
        }
      for (guint k = 0; k < n_ranks; k++)
        {
          gint64 a = json_array_get_int_element (arr, cp_job_get_rank (job, k)->rank);

          if (a < hi)
            second = MAX (second, a);
        }
      g_assert_cmpint (ABS (jc->skew - (hi - lo)), <=, tolerance);
      g_assert_cmpstr (jc->name, ==, op);
      g_assert_cmpint (jc->bytes, >, 0);
      g_assert_cmpint (jc->group_size, ==, json_object_get_int_member (truth, "ranks"));
      g_assert_true (jc->bus_bandwidth > 0);
      if (hi - second > 2 * tolerance)
        g_assert_cmpint (cp_job_get_rank (job, jc->last_rank)->rank, ==,
                         json_object_get_int_member (t, "last_rank"));
    }
}

static void
check_collectives (CpJob      *job,
                   JsonObject *truth,
                   gint64      tolerance)
{
  check_collectives_of (job, truth, tolerance, "allreduce");
}

static void
check_offsets (CpJob      *job,
               JsonObject *truth)
{
  JsonArray *offs = json_object_get_array_member (truth, "clock_offset_ns");
  gint64 latency = json_object_get_int_member (truth, "latency_ns");

  for (guint k = 0; k < cp_job_get_n_ranks (job); k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);

      g_assert_cmpint (ABS (r->clock_offset - json_array_get_int_element (offs, r->rank)), <=, latency);
      g_assert_cmpint (r->clock_residual, <=, 2 * latency);
    }
}

static void
test_straggler (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autofree char *dir = NULL;
  const CpJobFinding *f;

  gen_job (&g, "--ranks", "8", "--steps", "4", "--straggler", "5", "--delay", "30000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 8);
  g_assert_cmpint (cp_job_get_world_size (job), ==, 8);
  g_assert_null (cp_job_get_notes (job)[0]);
  for (guint k = 0; k < 8; k++)
    {
      g_assert_cmpint (cp_job_get_rank (job, k)->rank, ==, (gint) k);
      g_assert_cmpint (cp_job_get_rank (job, k)->rank_source, ==, CP_RANK_FROM_DISTRIBUTED_INFO);
      g_assert_true (cp_job_get_rank (job, k)->device_collectives);
      g_assert_false (cp_job_get_rank (job, k)->clock_aligned);   /* one host */
    }
  check_offsets (job, truth_of (&g));
  check_collectives (job, truth_of (&g), 1);
  g_assert_cmpuint (cp_job_get_n_mismatches (job), ==, 0);
  f = find (job, "job-straggler");
  g_assert_nonnull (f);
  g_assert_cmpint (f->rank, ==, json_object_get_int_member (truth_of (&g), "straggler"));
  g_assert_nonnull (strstr (f->summary, "slow_data_loading"));
  g_assert_null (find (job, "job-collective-mismatch"));
  g_assert_null (find (job, "job-slow-link"));
  gen_clear (&g);
}

/* Two hosts whose clocks are 5 s apart: the offset is found within the
 * latency, and the skews stay true; without alignment they do not. */
static void
test_clock_offset (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL, raw = NULL;
  g_autofree char *dir = NULL;
  gboolean wrong = FALSE;

  gen_job (&g, "--ranks", "8", "--hosts", "2", "--host-offset", "5000000000", "--straggler", "2",
           "--delay", "12000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  for (guint k = 0; k < 8; k++)
    g_assert_cmpint (cp_job_get_rank (job, k)->clock_aligned, ==, k >= 4);
  check_offsets (job, truth_of (&g));
  check_collectives (job, truth_of (&g), 2 * json_object_get_int_member (truth_of (&g), "latency_ns"));
  g_assert_cmpint (find (job, "job-straggler")->rank, ==, 2);

  raw = open_dir (dir, FALSE);
  for (guint k = 0; k < 8; k++)
    g_assert_cmpint (cp_job_get_rank (raw, k)->clock_offset, ==, 0);
  for (guint c = 0; c < cp_job_get_n_collectives (raw); c++)
    wrong |= cp_job_get_collective (raw, c)->skew > 4000000000;
  g_assert_true (wrong);
  gen_clear (&g);
}

static void
test_64_ranks (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autofree char *dir = NULL;

  gen_job (&g, "--ranks", "64", "--hosts", "8", "--host-offset", "-700000000", "--steps", "3",
           "--straggler", "41", "--delay", "20000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 64);
  check_offsets (job, truth_of (&g));
  check_collectives (job, truth_of (&g), 2 * json_object_get_int_member (truth_of (&g), "latency_ns"));
  g_assert_cmpint (find (job, "job-straggler")->rank, ==, 41);
  gen_clear (&g);
}

static void
test_mismatch (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autofree char *dir = NULL;

  gen_job (&g, "--ranks", "4", "--mismatch", "3", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  g_assert_cmpuint (cp_job_get_n_mismatches (job), ==, 1);
  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (job, c);

      g_assert_cmpint (jc->mismatch != NULL, ==, jc->index == 3);
      if (jc->mismatch != NULL)
        g_assert_nonnull (strstr (jc->mismatch, "rank 3"));
    }
  g_assert_nonnull (find (job, "job-collective-mismatch"));
  g_assert_cmpint (cp_job_get_finding (job, 0)->severity, ==, CP_SEVERITY_HIGH);
  gen_clear (&g);
}

/* No distributedInfo: ranks from the file names whatever the order given,
 * said in the notes. */
static void
test_rank_from_name (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autoptr(GError) error = NULL;
  GFile *files[3];

  gen_job (&g, "--ranks", "3", "--no-distributed-info", NULL);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.pt.trace.json", 2 - i);
      g_autofree char *path = g_build_filename (g.dir, "ranks", name, NULL);

      files[i] = g_file_new_for_path (path);
    }
  job = cp_job_open (files, 3, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < 3; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      g_autofree char *name = g_strdup_printf ("rank-%u.pt.trace.json", k);

      g_assert_cmpint (r->rank, ==, (gint) k);
      g_assert_cmpint (r->rank_source, ==, CP_RANK_FROM_FILE_NAME);
      g_assert_true (g_str_has_suffix (r->path, name));
      g_assert_cmpint (r->world_size, ==, -1);
    }
  /* One note for the three guesses, naming the first and the last. */
  g_assert_nonnull (strstr (cp_job_get_notes (job)[0], "3 ranks guessed from the file names"));
  g_assert_nonnull (strstr (cp_job_get_notes (job)[0], "rank-0.pt.trace.json is rank 0 … "));
  g_assert_nonnull (strstr (cp_job_get_notes (job)[0], "rank-2.pt.trace.json rank 2"));
  g_assert_null (cp_job_get_notes (job)[1]);
  check_collectives (job, truth_of (&g), 2 * json_object_get_int_member (truth_of (&g), "latency_ns"));
  for (guint i = 0; i < 3; i++)
    g_object_unref (files[i]);
  gen_clear (&g);
}

/* A missing file, a damaged one and one of another job are named; the
 * rest opens. */
static void
test_bad_ranks (void)
{
  Gen g = { 0 }, other = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *damaged = NULL, *missing = NULL, *foreign = NULL;
  GFile *files[6];
  const char * const *notes;

  gen_job (&g, "--ranks", "4", NULL);
  gen_job (&other, "--ranks", "16", NULL);
  damaged = g_build_filename (g.dir, "ranks", "rank-2.pt.trace.json", NULL);
  g_assert_true (g_file_set_contents (damaged, "{\"traceEvents\": [{\"ph\": \"X\", \"na", -1, NULL));
  missing = g_build_filename (g.dir, "ranks", "rank-7.pt.trace.json", NULL);
  foreign = g_build_filename (other.dir, "ranks", "rank-5.pt.trace.json", NULL);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.pt.trace.json", i);
      g_autofree char *path = g_build_filename (g.dir, "ranks", name, NULL);

      files[i] = g_file_new_for_path (path);
    }
  files[4] = g_file_new_for_path (missing);
  files[5] = g_file_new_for_path (foreign);
  {
    g_autoptr(CpJobProgress) progress = cp_job_progress_new (6);
    CpJobOptions options = { TRUE, progress };
    guint64 done_all, total_all, sum = 0;
    guint finished;

    job = cp_job_open (files, 6, &options, NULL, &error);
    g_assert_no_error (error);
    /* Each file's state and bytes, as the file system sizes them: the
     * damaged and the missing ones failed; the one of another job was
     * read (it is left out later, by its world size). */
    for (guint i = 0; i < 6; i++)
      {
        g_autofree char *path = g_file_get_path (files[i]);
        guint64 done, total;
        CpJobFileState state = cp_job_progress_get_file (progress, i, &done, &total);
        GStatBuf st;

        g_assert_cmpint (state, ==, i == 2 || i == 4 ? CP_JOB_FILE_FAILED : CP_JOB_FILE_DONE);
        if (i == 4)
          {
            g_assert_cmpuint (total, ==, 0);
            continue;
          }
        g_assert_cmpint (g_stat (path, &st), ==, 0);
        g_assert_cmpuint (total, ==, (guint64) st.st_size);
        if (state == CP_JOB_FILE_DONE)
          g_assert_cmpuint (done, ==, total);
        sum += total;
      }
    cp_job_progress_get_total (progress, &done_all, &total_all, &finished);
    g_assert_cmpuint (finished, ==, 6);
    g_assert_cmpuint (total_all, ==, sum);
  }
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 3);
  g_assert_cmpint (cp_job_get_world_size (job), ==, 4);
  notes = cp_job_get_notes (job);
  g_assert_nonnull (strstr (notes[0], "rank-2.pt.trace.json could not be read"));
  g_assert_nonnull (strstr (notes[1], "rank-7.pt.trace.json could not be read"));
  g_assert_nonnull (strstr (notes[2], "world size 16, not the job’s 4"));
  g_assert_nonnull (strstr (notes[3], "3 of the job’s 4 ranks were given; missing: 2"));
  g_assert_null (notes[4]);
  g_assert_cmpuint (cp_job_get_n_collectives (job), ==, 8);
  for (guint i = 0; i < 6; i++)
    g_object_unref (files[i]);
  gen_clear (&g);
  gen_clear (&other);
}

/* Every per-rank figure equals that of the rank loaded and analysed alone. */
static void
test_rank_equals_alone (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autofree char *dir = NULL;

  gen_job (&g, "--ranks", "4", "--straggler", "1", "--delay", "5000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  for (guint k = 0; k < 4; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      g_autoptr(GFile) file = g_file_new_for_path (r->path);
      g_autoptr(GError) error = NULL;
      g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_autoptr(CpAnalysis) alone = NULL;
      CpTimeSummary a, b;
      const CpDeviceStats *da, *db;
      guint na, nb;

      g_assert_no_error (error);
      alone = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (cp_trace_get_n_slices (trace), ==, cp_trace_get_n_slices (r->trace));
      g_assert_cmpint (cp_analysis_get_window_time (alone), ==, cp_analysis_get_window_time (r->analysis));
      cp_analysis_get_step_summary (alone, &a);
      cp_analysis_get_step_summary (r->analysis, &b);
      g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
      for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
        {
          cp_analysis_get_time_summary (alone, c, &a);
          cp_analysis_get_time_summary (r->analysis, c, &b);
          g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
        }
      da = cp_analysis_get_devices (alone, &na);
      db = cp_analysis_get_devices (r->analysis, &nb);
      g_assert_cmpuint (na, ==, nb);
      for (guint d = 0; d < na; d++)
        {
          g_assert_cmpfloat (da[d].utilization, ==, db[d].utilization);
          g_assert_cmpint (da[d].comm_time, ==, db[d].comm_time);
        }
      /* Its collectives' time is that of the rank's own NCCL kernels. */
      g_assert_cmpint (r->comm_time, ==, da[0].comm_time);
    }
  gen_clear (&g);
}

/* HTA's two sampled ranks (NCCL, world size 128) against collective-count.py. */
static void
test_hta_ranks (void)
{
  const char *shared = cp_test_shared_traces ();
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script = NULL, *r0 = NULL, *r1 = NULL, *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(CpJob) job = NULL;
  GFile *files[2];
  CpJobOptions options = { FALSE };
  JsonArray *colls;
  int status = 0;

  if (shared == NULL || python == NULL)
    {
      g_test_skip ("../shared/traces or python3 is missing");
      return;
    }
  r0 = g_build_filename (shared, "facebookresearch__HolisticTraceAnalysis", "tests", "data", "timeline_analysis",
                         "sampled_rank-0.json.gz", NULL);
  r1 = g_build_filename (shared, "facebookresearch__HolisticTraceAnalysis", "tests", "data", "trace_filter",
                         "sampled_rank-1.json.gz", NULL);
  if (!g_file_test (r0, G_FILE_TEST_EXISTS) || !g_file_test (r1, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("HTA's sampled ranks are missing");
      return;
    }
  script = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "collective-count.py", NULL);
  {
    const char *argv[] = { python, script, r1, r0, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  colls = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "collectives");

  files[0] = g_file_new_for_path (r1);
  files[1] = g_file_new_for_path (r0);
  job = cp_job_open (files, 2, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 2);
  g_assert_cmpint (cp_job_get_rank (job, 0)->rank, ==, 0);
  g_assert_cmpint (cp_job_get_rank (job, 1)->rank, ==, 1);
  g_assert_cmpstr (cp_job_get_rank (job, 0)->backend, ==, "nccl");
  g_assert_cmpint (cp_job_get_world_size (job), ==, 128);
  g_assert_nonnull (strstr (cp_job_get_notes (job)[0], "2 of the job’s 128 ranks were given"));
  g_assert_cmpuint (cp_job_get_n_collectives (job), ==, json_array_get_length (colls));
  g_assert_cmpuint (cp_job_get_n_collectives (job), >, 0);
  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (job, c);
      JsonObject *t = json_array_get_object_element (colls, jc->index);
      JsonArray *arr = json_object_get_array_member (t, "arrival_ns");
      JsonArray *end = json_object_get_array_member (t, "end_ns");

      g_assert_cmpint (jc->skew, ==, json_object_get_int_member (t, "skew_ns"));
      g_assert_cmpint (cp_job_get_rank (job, jc->last_rank)->rank, ==, json_object_get_int_member (t, "last_rank"));
      /* Same clock: the job's times are the raw ones less the job origin. */
      g_assert_cmpint (jc->arrival[1] - jc->arrival[0], ==,
                       json_array_get_int_element (arr, 1) - json_array_get_int_element (arr, 0));
      g_assert_cmpint (jc->end[1] - jc->arrival[1], ==,
                       json_array_get_int_element (end, 1) - json_array_get_int_element (arr, 1));
      g_assert_cmpstr (jc->name, ==, "send_recv");
    }
  g_object_unref (files[0]);
  g_object_unref (files[1]);
}

/* The real DDP run (tests/data/captures/torch-ddp-straggler-gloo-cpu: 3
 * gloo processes on one machine, rank 2 made slow by 200 ms per step)
 * against collective-count.py: the skews and last ranks exactly, no clock
 * offset found between processes of one machine, and rank 2 the straggler. */
static void
test_real_ddp (void)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *dir = cp_test_data_path ("captures/torch-ddp-straggler-gloo-cpu");
  g_autofree char *script = g_build_filename (g_getenv ("CP_SOURCE_ROOT"), "tests", "collective-count.py", NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(CpJob) job = NULL, aligned = NULL;
  JsonArray *colls;
  int status = 0;

  if (python == NULL)
    {
      g_test_skip ("python3 is missing");
      return;
    }
  {
    g_autofree char *r0 = g_build_filename (dir, "rank-rank0.pt.trace.json.gz", NULL);
    g_autofree char *r1 = g_build_filename (dir, "rank-rank1.pt.trace.json.gz", NULL);
    g_autofree char *r2 = g_build_filename (dir, "rank-rank2.pt.trace.json.gz", NULL);
    const char *argv[] = { python, script, r0, r1, r2, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  colls = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "collectives");

  job = open_dir (dir, FALSE);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 3);
  g_assert_null (cp_job_get_notes (job)[0]);
  for (guint k = 0; k < 3; k++)
    {
      g_assert_cmpint (cp_job_get_rank (job, k)->rank_source, ==, CP_RANK_FROM_DISTRIBUTED_INFO);
      g_assert_cmpstr (cp_job_get_rank (job, k)->backend, ==, "gloo");
      g_assert_false (cp_job_get_rank (job, k)->device_collectives);
    }
  g_assert_cmpuint (cp_job_get_n_collectives (job), ==, json_array_get_length (colls));
  g_assert_cmpuint (cp_job_get_n_collectives (job), ==, 16);
  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (job, c);
      JsonObject *t = json_array_get_object_element (colls, jc->index);

      g_assert_cmpint (jc->skew, ==, json_object_get_int_member (t, "skew_ns"));
      g_assert_cmpint (cp_job_get_rank (job, jc->last_rank)->rank, ==, json_object_get_int_member (t, "last_rank"));
      g_assert_cmpstr (jc->name, ==, "all_reduce");
      /* Each rank's slice is the gloo:all_reduce that arrived there. */
      for (guint k = 0; k < 3; k++)
        {
          CpTrace *trace = cp_job_get_rank (job, k)->trace;
          const CpSlices *sl = cp_lane_get_slices (cp_trace_get_lane (trace, jc->slices[k].lane));

          g_assert_cmpstr (cp_trace_get_string (trace, cp_slices_get_name (sl, jc->slices[k].index)), ==,
                           "gloo:all_reduce");
          g_assert_cmpint (cp_slices_get_start (sl, jc->slices[k].index) + cp_job_rank_to_job_offset (job, k), ==,
                           jc->arrival[k]);
        }
    }
  g_assert_cmpint (find (job, "job-straggler")->rank, ==, 2);
  /* Its wait, from the raw arrivals, as a share of the waiting ranks'
   * ProfilerSteps; and no unequal work: rank 2 is waited for, but it
   * computes about as much as rank 1. */
  {
    JsonObject *root = json_node_get_object (json_parser_get_root (parser));
    JsonArray *steps = json_object_get_array_member (root, "step_ns");
    gint64 caused = 0;
    g_autofree char *want = NULL;
    const CpJobFinding *imbalance = find (job, "job-load-imbalance");

    for (guint c = 0; c < json_array_get_length (colls); c++)
      {
        JsonObject *t = json_array_get_object_element (colls, c);
        JsonArray *arr = json_object_get_array_member (t, "arrival_ns");

        if (json_object_get_int_member (t, "last_rank") == 2)
          for (guint k = 0; k < 3; k++)
            caused += json_array_get_int_element (arr, 2) - json_array_get_int_element (arr, k);
      }
    want = g_strdup_printf ("%.0f%% of the waiting ranks’ mean step",
                            100.0 * caused / (json_array_get_int_element (steps, 0) +
                                              json_array_get_int_element (steps, 1)));
    g_assert_nonnull (strstr (find (job, "job-straggler")->summary, want));
    g_assert_true (imbalance == NULL || imbalance->severity == CP_SEVERITY_INFO);
  }

  aligned = open_dir (dir, TRUE);
  for (guint k = 0; k < 3; k++)
    g_assert_cmpint (cp_job_get_rank (aligned, k)->clock_offset, ==, 0);
  g_assert_cmpint (find (aligned, "job-straggler")->rank, ==, 2);
}

/* `chokepoint diagnose DIR --json` has ranks, collectives and findings. */
static void
test_cli_json (void)
{
  Gen g = { 0 };
  g_autofree char *dir = NULL, *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  int status = 0;

  gen_job (&g, "--ranks", "4", "--straggler", "3", "--delay", "20000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  {
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--json", dir, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "ranks")), ==, 4);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "collectives")), ==, 8);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (root, "findings"), 0), "id"), ==, "job-straggler");
  g_clear_pointer (&out, g_free);
  {
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--fail-on=high", dir, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  }
  g_assert_cmpint (WEXITSTATUS (status), ==, 3);
  g_assert_nonnull (strstr (out, "Rank 3 is the straggler"));
  g_clear_pointer (&out, g_free);

  /* More ranks than memory: said, with how many fit, and nothing read. */
  {
    g_autoptr(GFile) folder = g_file_new_for_path (dir);
    g_autoptr(GPtrArray) files = cp_job_list_folder (folder, NULL);
    guint64 need = 0, need_fit = 0;
    g_autofree char *err = NULL;
    g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "CHOKEPOINT_MEMORY_AVAILABLE", "1000", TRUE);
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", dir, NULL };

    g_assert_cmpuint (cp_job_count_fitting ((GFile * const *) files->pdata, files->len, 0, &need, NULL), ==, 4);
    g_assert_cmpuint (need, >, 0);
    g_assert_cmpuint (cp_job_count_fitting ((GFile * const *) files->pdata, files->len, need, NULL, &need_fit), <, 4);
    g_assert_cmpuint (cp_job_count_fitting ((GFile * const *) files->pdata, files->len, need * 2, NULL, &need_fit), ==, 4);
    g_assert_cmpuint (need_fit, ==, need);
    g_assert_cmpuint (cp_job_count_fitting ((GFile * const *) files->pdata, files->len, 1000, NULL, &need_fit), ==, 0);
    g_assert_cmpuint (need_fit, ==, 0);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
    g_assert_cmpint (WEXITSTATUS (status), !=, 0);
    g_assert_nonnull (strstr (err, "The 4 ranks need about"));
    g_assert_nonnull (strstr (err, "the first 0"));
  }
  gen_clear (&g);
}

/* One collective whose transfer takes 4 times longer is named, and only it;
 * without one there is no such finding (test_straggler). */
static void
test_slow_link (void)
{
  Gen g = { 0 };
  g_autoptr(CpJob) job = NULL;
  g_autofree char *dir = NULL, *name = NULL;
  const CpJobFinding *f;

  gen_job (&g, "--ranks", "8", "--steps", "5", "--slow-link", "6", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  f = find (job, "job-slow-link");
  g_assert_nonnull (f);
  name = g_strdup_printf ("0#%" G_GINT64_FORMAT ",", json_object_get_int_member (truth_of (&g), "slow_link"));
  g_assert_nonnull (strstr (f->summary, name));
  g_assert_nonnull (strstr (f->summary, "1 of 10 allreduce collectives of group size 8"));
  /* 3 of the 4 transfer times are lost (2.4 ms), within the latency. */
  g_assert_cmpint (ABS (f->time_at_stake - 2400000), <=, 10000);
  gen_clear (&g);
}

static void
on_opened (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  CpJob **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = cp_job_open_finish (result, &error);
  g_assert_no_error (error);
}

/* The worker-thread form gives the same job; a job of no readable file
 * fails with a message. */
static void
test_async (void)
{
  Gen g = { 0 };
  g_autofree char *dir = NULL, *bad = NULL;
  g_autoptr(GFile) folder = NULL, missing = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(CpJob) job = NULL, sync = NULL;
  g_autoptr(GError) error = NULL;
  CpJob *none;

  gen_job (&g, "--ranks", "5", "--straggler", "4", "--delay", "9000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  folder = g_file_new_for_path (dir);
  files = cp_job_list_folder (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 5);
  cp_job_open_async ((GFile * const *) files->pdata, files->len, NULL, NULL, on_opened, &job);
  while (job == NULL)
    g_main_context_iteration (NULL, TRUE);
  sync = open_dir (dir, TRUE);
  g_assert_cmpuint (cp_job_get_n_collectives (job), ==, cp_job_get_n_collectives (sync));
  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    g_assert_cmpint (cp_job_get_collective (job, c)->skew, ==, cp_job_get_collective (sync, c)->skew);
  g_assert_cmpint (find (job, "job-straggler")->rank, ==, 4);

  bad = g_build_filename (g.dir, "nothing-here.pt.trace.json", NULL);
  missing = g_file_new_for_path (bad);
  none = cp_job_open (&missing, 1, NULL, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY);
  g_assert_nonnull (strstr (error->message, "None of the 1 captures of the job could be used"));
  g_assert_nonnull (strstr (error->message, "nothing-here.pt.trace.json could not be read"));
  g_clear_error (&error);
  g_assert_null (cp_job_list_folder (missing, &error));
  g_assert_nonnull (error);
  gen_clear (&g);
}

/* A folder's captures come in the order people number them: the order
 * ranks take when neither distributedInfo nor "rank-N" says. */
static void
test_folder_order (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  static const char *const names[] = { "worker10.json", "worker2.json", "worker1.json", "worker02b.json",
                                       "worker.json", "other.txt" };
  static const char *const want[] = { "worker.json", "worker1.json", "worker2.json", "worker02b.json",
                                      "worker10.json" };
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_free (cp_test_write_file (dir, names[i], "{\"traceEvents\": []}", -1));
  files = cp_job_list_folder (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *base = g_file_get_basename (g_ptr_array_index (files, i));

      g_assert_cmpstr (base, ==, want[i]);
    }
  cp_test_rm_rf (dir);
}

/* Moves the ranks cp-gen wrote into a TensorBoard logdir's run folder;
 * returns the logdir. */
static char *
into_logdir (Gen *g)
{
  g_autofree char *ranks = g_build_filename (g->dir, "ranks", NULL);
  g_autofree char *profile = g_build_filename (g->dir, "logdir", "plugins", "profile", NULL);
  g_autofree char *run = g_build_filename (profile, "2026_12_04_10_00_00", NULL);

  g_assert_cmpint (g_mkdir_with_parents (profile, 0755), ==, 0);
  g_assert_cmpint (g_rename (ranks, run), ==, 0);
  return g_build_filename (g->dir, "logdir", NULL);
}

/* A multi-host JAX job on TPUs (cp-gen --format xplane), opened from its
 * TensorBoard logdir: the hosts' XSpaces are the ranks (in their order,
 * said once), their XLA all-reduces (synchronous, and async start / done
 * pairs) matched, with the size, type and group size their HLO text says;
 * clock offsets, skews, transfers, the straggler and a mismatch against
 * the truth, and each rank's figures equal to it loaded alone. */
static void
test_xla_hosts (void)
{
  Gen g = { 0 }, m = { 0 };
  g_autoptr(CpJob) job = NULL, mjob = NULL;
  g_autofree char *logdir = NULL, *mdir = NULL, *out = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *colls;
  gint64 latency;
  int status = 0;

  gen_job (&g, "--format", "xplane", "--ranks", "8", "--hosts", "4", "--host-offset", "-300000000",
           "--straggler", "5", "--delay", "15000000", NULL);
  logdir = into_logdir (&g);
  folder = g_file_new_for_path (logdir);
  g_assert_true (cp_job_is_folder (folder));
  files = cp_job_list_folder (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 8);
  job = open_dir (logdir, TRUE);
  g_assert_cmpuint (cp_job_get_n_ranks (job), ==, 8);
  g_assert_cmpint (cp_job_get_world_size (job), ==, -1);
  /* One note for the eight guesses. */
  g_assert_nonnull (cp_job_get_notes (job)[0]);
  g_assert_nonnull (strstr (cp_job_get_notes (job)[0], "8 ranks guessed from the order of the files"));
  g_assert_null (cp_job_get_notes (job)[1]);
  for (guint k = 0; k < 8; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      g_autofree char *host = g_strdup_printf ("host-%u", k / 2);

      g_assert_cmpint (r->rank, ==, (gint) k);
      g_assert_cmpint (r->rank_source, ==, CP_RANK_FROM_ORDER);
      g_assert_cmpstr (r->host, ==, host);
      g_assert_true (r->device_collectives);
      g_assert_cmpuint (r->n_collectives, ==, 8);
    }
  check_offsets (job, truth_of (&g));
  latency = json_object_get_int_member (truth_of (&g), "latency_ns");
  check_collectives_of (job, truth_of (&g), 2 * latency, "all_reduce");
  colls = json_object_get_array_member (truth_of (&g), "collectives");
  for (guint c = 0; c < cp_job_get_n_collectives (job); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (job, c);
      JsonObject *t = json_array_get_object_element (colls, jc->index);
      gint last = (gint) json_object_get_int_member (t, "last_rank");
      gint64 transfer = json_array_get_int_element (json_object_get_array_member (t, "end_ns"), last) -
                        json_array_get_int_element (json_object_get_array_member (t, "arrival_ns"), last);

      g_assert_cmpint (jc->bytes, ==, json_object_get_int_member (truth_of (&g), "bytes"));
      g_assert_cmpstr (jc->dtype, ==, "f32");
      g_assert_null (jc->mismatch);
      /* An async pair spans its start to its done. */
      g_assert_cmpint (ABS (jc->transfer_time - transfer), <=, 2 * latency);
    }
  g_assert_cmpint (find (job, "job-straggler")->rank, ==, 5);
  for (guint k = 0; k < 8; k++)
    {
      const CpJobRank *r = cp_job_get_rank (job, k);
      g_autoptr(GFile) file = g_file_new_for_path (r->path);
      g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
      g_autoptr(CpAnalysis) alone = NULL;
      CpTimeSummary a, b;
      const CpDeviceStats *da;
      guint na;

      g_assert_no_error (error);
      alone = cp_analysis_new (trace, NULL, &error);
      g_assert_no_error (error);
      cp_analysis_get_step_summary (alone, &a);
      cp_analysis_get_step_summary (r->analysis, &b);
      g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
      da = cp_analysis_get_devices (alone, &na);
      g_assert_cmpuint (na, ==, 1);
      g_assert_cmpint (r->comm_time, ==, da[0].comm_time);
    }

  /* The last rank's fourth all-reduce is half the size: said. */
  gen_job (&m, "--format", "xplane", "--ranks", "4", "--mismatch", "3", NULL);
  mdir = g_build_filename (m.dir, "ranks", NULL);
  mjob = open_dir (mdir, TRUE);
  g_assert_cmpuint (cp_job_get_n_mismatches (mjob), ==, 1);
  for (guint c = 0; c < cp_job_get_n_collectives (mjob); c++)
    {
      const CpJobCollective *jc = cp_job_get_collective (mjob, c);

      g_assert_cmpint (jc->mismatch != NULL, ==, jc->index == 3);
      if (jc->mismatch != NULL)
        {
          /* GLib may put a no-break space before the unit. */
          g_assert_nonnull (strstr (jc->mismatch, "rank 3: all_reduce 2.0"));
          g_assert_nonnull (strstr (jc->mismatch, "MiB f32, rank 0: all_reduce 4.0"));
        }
    }
  g_assert_nonnull (find (mjob, "job-collective-mismatch"));

  /* diagnose DIR reads the logdir as the job, fixes for JAX first. */
  {
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", logdir, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                                 &status, &error));
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "Job:      8 ranks"));
  g_assert_nonnull (strstr (out, "Rank 5 is the straggler"));
  g_assert_nonnull (strstr (out, "Fixes (JAX, this job’s framework):"));
  g_clear_pointer (&out, g_free);
  {
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--json", logdir, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                                 &status, &error));
  }
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      json_node_get_object (json_parser_get_root (parser)), "ranks")), ==, 8);
  gen_clear (&g);
  gen_clear (&m);
}

/* Writes each rank's summary next to the ranks; returns the summaries. */
static GPtrArray *
summarise (const char *dir,
           const char *out_dir)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GPtrArray) files = cp_job_list_folder (folder, NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  g_assert_nonnull (files);
  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  for (guint i = 0; i < files->len; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = cp_job_rank_summary (g_ptr_array_index (files, i), NULL, &error);
      g_autofree char *base = g_file_get_basename (g_ptr_array_index (files, i));
      g_autofree char *name = g_strconcat (base, ".rank.json", NULL);
      g_autofree char *path = NULL;

      g_assert_no_error (error);
      path = cp_test_write_file (out_dir, name, text, -1);
      g_ptr_array_add (out, g_file_new_for_path (path));
    }
  return out;
}

/* Two jobs agree on every rank's and collective's figure and finding;
 * the straggler's summary up to what it was doing. */
static void
assert_same_job (CpJob *a,
                 CpJob *b)
{
  g_assert_cmpuint (cp_job_get_n_ranks (a), ==, cp_job_get_n_ranks (b));
  g_assert_cmpint (cp_job_get_world_size (a), ==, cp_job_get_world_size (b));
  for (guint k = 0; k < cp_job_get_n_ranks (a); k++)
    {
      const CpJobRank *x = cp_job_get_rank (a, k), *y = cp_job_get_rank (b, k);

      g_assert_cmpint (x->rank, ==, y->rank);
      g_assert_cmpstr (x->path, ==, y->path);
      g_assert_cmpint (x->rank_source, ==, y->rank_source);
      g_assert_cmpstr (x->host, ==, y->host);
      g_assert_cmpint (x->origin_abs, ==, y->origin_abs);
      g_assert_cmpint (x->clock_offset, ==, y->clock_offset);
      g_assert_cmpint (x->clock_residual, ==, y->clock_residual);
      g_assert_cmpint (cp_job_rank_to_job_offset (a, k), ==, cp_job_rank_to_job_offset (b, k));
      g_assert_cmpint (x->n_collectives, ==, y->n_collectives);
      g_assert_cmpint (x->comm_time, ==, y->comm_time);
      g_assert_cmpint (x->exposed_comm, ==, y->exposed_comm);
      g_assert_cmpint (x->wait_time, ==, y->wait_time);
      g_assert_cmpint (x->caused_wait, ==, y->caused_wait);
      g_assert_cmpint (x->compute_time, ==, y->compute_time);
      g_assert_cmpint (x->window_time, ==, y->window_time);
      g_assert_cmpmem (&x->step, sizeof x->step - sizeof x->step.percent, &y->step,
                       sizeof y->step - sizeof y->step.percent);
      g_assert_cmpmem (x->breakdown, sizeof x->breakdown, y->breakdown, sizeof y->breakdown);
      g_assert_cmpuint (x->n_devices, ==, y->n_devices);
      for (guint d = 0; d < x->n_devices; d++)
        g_assert_cmpfloat (ABS (x->utilization[d] - y->utilization[d]), <, 1e-12);
      g_assert_cmpint (x->fix_lead, ==, y->fix_lead);
      /* The confidence travels in the summary. */
      g_assert_cmpint (x->confidence, ==, y->confidence);
      g_assert_cmpuint (x->confidence_reasons->len, ==, y->confidence_reasons->len);
      for (guint i = 0; i < x->confidence_reasons->len; i++)
        {
          const CpConfidenceReason *rx = &g_array_index (x->confidence_reasons, CpConfidenceReason, i);
          const CpConfidenceReason *ry = &g_array_index (y->confidence_reasons, CpConfidenceReason, i);

          g_assert_cmpstr (rx->id, ==, ry->id);
          g_assert_cmpint (rx->level, ==, ry->level);
          g_assert_cmpstr (rx->text, ==, ry->text);
        }
    }
  g_assert_cmpuint (cp_job_get_n_collectives (a), ==, cp_job_get_n_collectives (b));
  g_assert_cmpuint (cp_job_get_n_mismatches (a), ==, cp_job_get_n_mismatches (b));
  for (guint c = 0; c < cp_job_get_n_collectives (a); c++)
    {
      const CpJobCollective *x = cp_job_get_collective (a, c), *y = cp_job_get_collective (b, c);

      g_assert_cmpuint (x->index, ==, y->index);
      g_assert_cmpstr (x->group, ==, y->group);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpint (x->bytes, ==, y->bytes);
      g_assert_cmpstr (x->dtype, ==, y->dtype);
      g_assert_cmpint (x->group_size, ==, y->group_size);
      g_assert_cmpint (x->skew, ==, y->skew);
      g_assert_cmpuint (x->last_rank, ==, y->last_rank);
      g_assert_cmpint (x->wait_total, ==, y->wait_total);
      g_assert_cmpint (x->transfer_time, ==, y->transfer_time);
      g_assert_cmpstr (x->mismatch, ==, y->mismatch);
      for (guint k = 0; k < cp_job_get_n_ranks (a); k++)
        {
          g_assert_cmpint (x->arrival[k], ==, y->arrival[k]);
          g_assert_cmpint (x->end[k], ==, y->end[k]);
          g_assert_cmpint (x->exposed[k], ==, y->exposed[k]);
        }
    }
  g_assert_cmpuint (cp_job_get_n_findings (a), ==, cp_job_get_n_findings (b));
  for (guint i = 0; i < cp_job_get_n_findings (a); i++)
    {
      const CpJobFinding *x = cp_job_get_finding (a, i), *y = cp_job_get_finding (b, i);
      const char *cut = strstr (x->summary, " Meanwhile");

      g_assert_cmpstr (x->id, ==, y->id);
      g_assert_cmpint (x->severity, ==, y->severity);
      g_assert_cmpint (x->rank, ==, y->rank);
      g_assert_cmpint (x->time_at_stake, ==, y->time_at_stake);
      g_assert_cmpstr (x->title, ==, y->title);
      if (cut != NULL)
        g_assert_cmpint (strncmp (x->summary, y->summary, cut - x->summary), ==, 0);
      else
        g_assert_cmpstr (x->summary, ==, y->summary);
    }
}

/* Per-rank summaries, made one at a time as on the machines that
 * recorded them, merge into the job that opening the captures together
 * gives: clocks across hosts, skews and the straggler against the truth,
 * every figure equal; Kineto and XPlane ranks alike. A damaged summary, a
 * capture given as a summary and a rank of another run are named and
 * left out. */
static void
test_merge (void)
{
  Gen g = { 0 }, x = { 0 }, other = { 0 };
  g_autoptr(CpJob) direct = NULL, merged = NULL, xdirect = NULL, xmerged = NULL, partial = NULL;
  g_autofree char *dir = NULL, *sums = NULL, *xdir = NULL, *xsums = NULL, *osums = NULL, *out = NULL, *err = NULL;
  g_autoptr(GPtrArray) files = NULL, xfiles = NULL, ofiles = NULL, mixed = NULL;
  g_autoptr(GError) error = NULL;
  CpJobOptions options = { TRUE };
  const CpJobFinding *f;
  const char * const *notes;
  int status = 0;

  gen_job (&g, "--ranks", "8", "--hosts", "2", "--host-offset", "5000000000", "--straggler", "2",
           "--delay", "12000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  sums = g_build_filename (g.dir, "summaries", NULL);
  files = summarise (dir, sums);
  direct = open_dir (dir, TRUE);
  merged = cp_job_merge ((GFile * const *) files->pdata, files->len, &options, &error);
  g_assert_no_error (error);
  check_offsets (merged, truth_of (&g));
  check_collectives (merged, truth_of (&g), 2 * json_object_get_int_member (truth_of (&g), "latency_ns"));
  f = find (merged, "job-straggler");
  g_assert_cmpint (f->rank, ==, 2);
  /* Between its previous collective and its late arrivals it was loading. */
  g_assert_nonnull (strstr (f->summary, "Meanwhile it was mostly in “slow_data_loading”."));
  assert_same_job (direct, merged);

  gen_job (&x, "--format", "xplane", "--ranks", "4", "--hosts", "2", "--host-offset", "-300000000",
           "--straggler", "1", "--delay", "9000000", NULL);
  xdir = g_build_filename (x.dir, "ranks", NULL);
  xsums = g_build_filename (x.dir, "summaries", NULL);
  xfiles = summarise (xdir, xsums);
  xdirect = open_dir (xdir, TRUE);
  xmerged = cp_job_merge ((GFile * const *) xfiles->pdata, xfiles->len, &options, &error);
  g_assert_no_error (error);
  check_offsets (xmerged, truth_of (&x));
  g_assert_cmpint (find (xmerged, "job-straggler")->rank, ==, 1);
  assert_same_job (xdirect, xmerged);

  /* The real 3-rank gloo run, summarised rank by rank. */
  {
    g_autofree char *gloo = cp_test_data_path ("captures/torch-ddp-straggler-gloo-cpu");
    g_autofree char *gsums = g_build_filename (g.dir, "gloo-summaries", NULL);
    g_autoptr(GPtrArray) gfiles = summarise (gloo, gsums);
    g_autoptr(CpJob) gdirect = open_dir (gloo, TRUE);
    g_autoptr(CpJob) gmerged = cp_job_merge ((GFile * const *) gfiles->pdata, gfiles->len, &options, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (cp_job_get_n_ranks (gmerged), ==, 3);
    g_assert_cmpint (find (gmerged, "job-straggler")->rank, ==, 2);
    assert_same_job (gdirect, gmerged);
    /* Recorded on CPUs (tests/data/captures/README.md): no device, said
     * once for the three ranks. */
    {
      g_autoptr(GArray) reasons = NULL;

      g_assert_cmpint (cp_job_get_confidence (gmerged, &reasons), ==, CP_CONFIDENCE_MEDIUM);
      g_assert_cmpuint (reasons->len, ==, 1);
      g_assert_cmpstr (g_array_index (reasons, CpConfidenceReason, 0).id, ==, "no-device-events");
      g_assert_true (g_str_has_prefix (g_array_index (reasons, CpConfidenceReason, 0).text, "ranks 0, 1, 2: "));
    }
  }

  /* The bad ones: a cut summary, a capture, a rank of an 8-rank run among
   * ranks of a 4-rank one. */
  gen_job (&other, "--ranks", "4", NULL);
  osums = g_build_filename (other.dir, "summaries", NULL);
  {
    g_autofree char *odir = g_build_filename (other.dir, "ranks", NULL);
    g_autofree char *text = NULL, *capture = NULL;
    gsize len;

    ofiles = summarise (odir, osums);
    g_assert_true (g_file_load_contents (g_ptr_array_index (ofiles, 3), NULL, &text, &len, NULL, NULL));
    g_free (cp_test_write_file (osums, "cut.rank.json", text, (gssize) (len / 2)));
    capture = g_build_filename (odir, "rank-1.pt.trace.json", NULL);
    mixed = g_ptr_array_new_with_free_func (g_object_unref);
    g_ptr_array_add (mixed, g_object_ref (g_ptr_array_index (ofiles, 0)));
    g_ptr_array_add (mixed, g_file_new_for_path (capture));
    g_ptr_array_add (mixed, g_object_ref (g_ptr_array_index (ofiles, 2)));
    {
      g_autofree char *cut = g_build_filename (osums, "cut.rank.json", NULL);

      g_ptr_array_add (mixed, g_file_new_for_path (cut));
    }
    g_ptr_array_add (mixed, g_object_ref (g_ptr_array_index (files, 5)));
  }
  partial = cp_job_merge ((GFile * const *) mixed->pdata, mixed->len, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cp_job_get_n_ranks (partial), ==, 2);
  notes = cp_job_get_notes (partial);
  {
    g_autofree char *all = g_strjoinv ("\n", (char **) notes);

    g_assert_nonnull (strstr (all, "rank-1.pt.trace.json could not be read and is left out: not a rank’s summary"));
    g_assert_nonnull (strstr (all, "cut.rank.json could not be read and is left out"));
    g_assert_nonnull (strstr (all, "world size 8, not the job’s 4"));
  }

  /* The command line: --rank-summary one capture, --merge the summaries. */
  {
    g_autofree char *capture = g_build_filename (dir, "rank-3.pt.trace.json", NULL);
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--rank-summary", capture, NULL };
    g_autoptr(JsonParser) parser = json_parser_new ();

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)), "schema"),
                     ==, "chokepoint-rank/1");
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (json_parser_get_root (parser)), "rank"), ==, 3);
    g_clear_pointer (&out, g_free);
  }
  {
    g_autoptr(GPtrArray) argv = g_ptr_array_new ();
    g_autoptr(JsonParser) parser = json_parser_new ();
    char *paths[8];

    g_ptr_array_add (argv, (gpointer) g_getenv ("CP_CHOKEPOINT"));
    g_ptr_array_add (argv, "diagnose");
    g_ptr_array_add (argv, "--merge");
    g_ptr_array_add (argv, "--json");
    for (guint i = 0; i < files->len; i++)
      {
        paths[i] = g_file_get_path (g_ptr_array_index (files, i));
        g_ptr_array_add (argv, paths[i]);
      }
    g_ptr_array_add (argv, NULL);
    g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                                 &error));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                        json_node_get_object (json_parser_get_root (parser)), "ranks")), ==, 8);
    for (guint i = 0; i < files->len; i++)
      g_free (paths[i]);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    g_autofree char *a = g_build_filename (dir, "rank-3.pt.trace.json", NULL);
    g_autofree char *b = g_build_filename (dir, "rank-4.pt.trace.json", NULL);
    const char *argv[] = { g_getenv ("CP_CHOKEPOINT"), "diagnose", "--rank-summary", a, b, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
    g_assert_nonnull (strstr (err, "--rank-summary takes one capture"));
  }
  gen_clear (&g);
  gen_clear (&x);
  gen_clear (&other);
}

/* A rank's summary (chokepoint-rank/1) written from figures a test sets:
 * n_steps equal steps making window_ns, compute a step, and n collectives
 * (all_reduce of the default group) from arrival[i] to end[i]. */
static GFile *
write_summary (const char   *dir,
               gint          rank,
               gint          world_size,
               guint         n_steps,
               gint64        window_ns,
               gint64        compute_ns,
               const gint64 *arrival,
               const gint64 *end,
               guint         n)
{
  g_autoptr(GString) j = g_string_new (NULL);
  g_autofree char *name = g_strdup_printf ("rank-%d.rank.json", rank);
  g_autofree char *path = NULL;

  g_string_append_printf (j, "{\"schema\": \"chokepoint-rank/1\", \"file\": \"rank-%d.pt.trace.json\", "
                          "\"rank\": %d, \"world_size\": %d, \"backend\": \"nccl\", \"host\": \"h\", "
                          "\"origin_abs_ns\": 0, \"n_steps\": %u, \"window_ns\": %" G_GINT64_FORMAT ", "
                          "\"step_ns\": {\"total\": %" G_GINT64_FORMAT ", \"mean\": %" G_GINT64_FORMAT
                          ", \"min\": %" G_GINT64_FORMAT ", \"max\": %" G_GINT64_FORMAT "}, \"breakdown_ns\": {",
                          rank, rank, world_size, n_steps, window_ns, window_ns, window_ns / n_steps,
                          window_ns / n_steps, window_ns / n_steps);
  for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
    g_string_append_printf (j, "%s\"%s\": 0", c > 0 ? ", " : "", cp_time_category_to_string (c));
  g_string_append_printf (j, "}, \"utilization\": [0.5], \"fixes_framework\": \"pytorch\", "
                          "\"device_collectives\": true, \"compute_per_step_ns\": %" G_GINT64_FORMAT ", "
                          "\"unmatched_record_param_comms\": 0, \"collectives\": [", compute_ns);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (j, "%s{\"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", \"op\": \"all_reduce\", "
                            "\"bytes\": 4096, \"dtype\": \"Float\", \"group_size\": %d, \"group\": \"0\", "
                            "\"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %" G_GINT64_FORMAT ", "
                            "\"compute\": [], \"before\": []}", i > 0 ? ", " : "", world_size, arrival[i], end[i]);
  g_string_append (j, "]}\n");
  path = cp_test_write_file (dir, name, j->str, (gssize) j->len);
  return g_file_new_for_path (path);
}

/* Three ranks, four steps of one all-reduce each: ranks 0 and 1 arrive
 * at 50 ms into each 100 ms step (rank 1 2 ms sooner), rank 2 late by
 * late_ns; all end 1 ms after the last arrival. Rank 2's own windows are
 * straggler_step_ns long, the others' 100 ms; compute a step per rank as
 * given. */
static CpJob *
three_ranks (const char   *dir,
             gint64        late_ns,
             gint64        straggler_step_ns,
             const gint64  compute[3])
{
  const gint64 step = 100000000;
  gint64 arr[3][4], end[3][4];
  GFile *files[3];
  CpJobOptions options = { FALSE };
  g_autoptr(GError) error = NULL;
  CpJob *job;

  for (guint i = 0; i < 4; i++)
    {
      gint64 t = (gint64) i * step + 50000000;

      arr[0][i] = t;
      arr[1][i] = t - 2000000;
      arr[2][i] = t + late_ns;
      for (guint k = 0; k < 3; k++)
        end[k][i] = t + late_ns + 1000000;
    }
  for (guint k = 0; k < 3; k++)
    files[k] = write_summary (dir, (gint) k, 3, 4, 4 * (k == 2 ? straggler_step_ns : step), compute[k], arr[k],
                              end[k], 4);
  job = cp_job_merge (files, 3, &options, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < 3; k++)
    g_object_unref (files[k]);
  return job;
}

/* The straggler's wait is a share of the waiting ranks' step time, not of
 * its own: rank 2, 30 ms late at each of 4 all-reduces, costs ranks 0 and
 * 1 (100 ms steps) 120 and 128 ms: 248 / 800 = 31%, although its own
 * steps are 60 ms (where the same wait, 124 ms each, would be 52%). 3 ms
 * late (32 / 800 = 4%) is under the 5% of a finding, although it is 6.7%
 * of its own 60 ms. */
static void
test_wait_shares (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  const gint64 even[3] = { 40000000, 40000000, 40000000 };
  const CpJobFinding *f;

  {
    g_autoptr(CpJob) job = three_ranks (dir, 30000000, 60000000, even);

    f = find (job, "job-straggler");
    g_assert_nonnull (f);
    g_assert_cmpint (f->rank, ==, 2);
    g_assert_cmpint (f->severity, ==, CP_SEVERITY_HIGH);
    g_assert_cmpint (f->time_at_stake, ==, 248000000 / 2);
    g_assert_nonnull (strstr (f->summary, "the other ranks waited 248 ms for it (124 ms each; 31.0 ms a step, "
                                          "31% of the waiting ranks’ mean step of 100 ms)"));
    g_assert_null (find (job, "job-load-imbalance"));
  }
  {
    g_autoptr(CpJob) job = three_ranks (dir, 3000000, 60000000, even);

    g_assert_null (find (job, "job-straggler"));
  }
  cp_test_rm_rf (dir);
}

/* Load imbalance warns only when the busiest rank is the one waited for
 * and its extra compute is a good part of that wait (the ranks of
 * three_ranks(), rank 2 30 ms late: 248 ms of waiting). */
static void
test_imbalance_shares (void)
{
  g_autofree char *dir = cp_test_make_tmpdir ();
  const gint64 busy1[3] = { 40000000, 50000000, 40000000 };    /* rank 1 busiest, first to arrive */
  const gint64 busy2[3] = { 37000000, 40000000, 42000000 };    /* rank 2: 2 + 5 ms a step more */
  const gint64 heavy2[3] = { 40000000, 40000000, 50000000 };   /* rank 2: 10 + 10 ms a step more */
  const CpJobFinding *f;

  {
    /* Rank 1 computes 25% more but is never last: a note, at no cost. */
    g_autoptr(CpJob) job = three_ranks (dir, 30000000, 100000000, busy1);

    f = find (job, "job-load-imbalance");
    g_assert_nonnull (f);
    g_assert_cmpint (f->rank, ==, 1);
    g_assert_cmpint (f->severity, ==, CP_SEVERITY_INFO);
    g_assert_cmpint (f->time_at_stake, ==, 0);
    g_assert_nonnull (strstr (f->summary, "the others do not wait for rank 1: rank 2 caused 100% of the waiting"));
  }
  {
    /* Rank 2 is waited for and computes most, but its 7 ms a step more
     * (28 ms in all) is 11% of the 248 ms wait: a note. */
    g_autoptr(CpJob) job = three_ranks (dir, 30000000, 100000000, busy2);

    f = find (job, "job-load-imbalance");
    g_assert_nonnull (f);
    g_assert_cmpint (f->rank, ==, 2);
    g_assert_cmpint (f->severity, ==, CP_SEVERITY_INFO);
    g_assert_cmpint (f->time_at_stake, ==, 28000000 / 2);
    g_assert_nonnull (strstr (f->summary, "its extra compute accounts for only 11% of the 248 ms they waited"));
  }
  {
    /* 20 ms a step more (80 ms) is 32% of the wait: the ranks do unequal work. */
    g_autoptr(CpJob) job = three_ranks (dir, 30000000, 100000000, heavy2);

    f = find (job, "job-load-imbalance");
    g_assert_nonnull (f);
    g_assert_cmpint (f->rank, ==, 2);
    g_assert_cmpint (f->severity, ==, CP_SEVERITY_MODERATE);
    g_assert_cmpint (f->time_at_stake, ==, 80000000 / 2);
    g_assert_cmpstr (f->title, ==, "The ranks do unequal work");
    g_assert_nonnull (strstr (f->summary, "it arrived last at 4 of 4 collectives, and its extra compute accounts "
                                          "for 32% of the 248 ms they waited for it"));
  }
  cp_test_rm_rf (dir);
}

/* The generator's run: a rank with more compute (--heavy) hidden behind
 * a straggler's data loading is a note, not unequal work; alone, it is
 * the rank the others wait for, and the finding. Figures against the
 * truth: each rank's compute a step, and the wait the heavy rank causes
 * from the true arrivals. */
static void
check_heavy (CpJob      *job,
             JsonObject *truth,
             CpSeverity  want)
{
  JsonArray *compute = json_object_get_array_member (truth, "compute_per_step_ns");
  JsonArray *colls = json_object_get_array_member (truth, "collectives");
  gint heavy = (gint) json_object_get_int_member (truth, "heavy");
  guint n = cp_job_get_n_ranks (job);
  gint64 hi = 0, lo = G_MAXINT64, excess = 0, caused = 0;
  const CpJobFinding *f = find (job, "job-load-imbalance");

  for (guint k = 0; k < n; k++)
    {
      gint64 c = json_array_get_int_element (compute, (guint) cp_job_get_rank (job, k)->rank);

      g_assert_cmpint (cp_job_get_rank (job, k)->compute_time, ==, c);
      hi = MAX (hi, c);
      lo = MIN (lo, c);
    }
  g_assert_cmpint (json_array_get_int_element (compute, (guint) heavy), ==, hi);
  g_assert_cmpfloat ((double) (hi - lo) / hi, >=, 0.10);
  for (guint k = 0; k < n; k++)
    excess += (hi - json_array_get_int_element (compute, k)) * 4;
  for (guint c = 0; c < json_array_get_length (colls); c++)
    {
      JsonObject *t = json_array_get_object_element (colls, c);
      JsonArray *arr = json_object_get_array_member (t, "arrival_ns");
      gint64 last = json_array_get_int_element (arr, (guint) json_object_get_int_member (t, "last_rank"));

      if (json_object_get_int_member (t, "last_rank") == heavy)
        for (guint k = 0; k < n; k++)
          caused += last - json_array_get_int_element (arr, k);
    }
  g_assert_nonnull (f);
  g_assert_cmpint (f->rank, ==, heavy);
  g_assert_cmpint (f->severity, ==, want);
  /* The arrivals are read within the latency of the truth. */
  g_assert_cmpint (ABS (f->time_at_stake - MIN (excess, caused) / (gint64) (n - 1)), <=, 4000);
}

static void
test_imbalance (void)
{
  Gen g = { 0 }, alone = { 0 };

  gen_job (&g, "--ranks", "8", "--straggler", "3", "--delay", "6000000", "--heavy", "6", "--extra", "3000000", NULL);
  {
    g_autofree char *dir = g_build_filename (g.dir, "ranks", NULL);
    g_autoptr(CpJob) job = open_dir (dir, TRUE);
    const CpJobFinding *f;

    g_assert_cmpint (find (job, "job-straggler")->rank, ==, 3);
    check_heavy (job, truth_of (&g), CP_SEVERITY_INFO);
    f = find (job, "job-load-imbalance");
    g_assert_cmpstr (f->title, ==, "Compute per step differs across ranks");
    g_assert_nonnull (strstr (f->summary, "the others do not wait for rank 6: rank 3 caused"));
  }
  gen_job (&alone, "--ranks", "8", "--heavy", "6", "--extra", "3000000", NULL);
  {
    g_autofree char *dir = g_build_filename (alone.dir, "ranks", NULL);
    g_autoptr(CpJob) job = open_dir (dir, TRUE);

    check_heavy (job, truth_of (&alone), CP_SEVERITY_MODERATE);
    g_assert_cmpstr (find (job, "job-load-imbalance")->title, ==, "The ranks do unequal work");
  }
  gen_clear (&g);
  gen_clear (&alone);
}

/* cp-gen --heavy: rank 6's first kernel of each step 3 ms longer. Every
 * rank's compute a step is the truth's, rank 6's the most, and it arrives
 * last at the first all-reduce of every step. */
static void
test_heavy_rank (void)
{
  Gen g = { 0 };
  g_autofree char *dir = NULL;
  g_autoptr(CpJob) job = NULL;
  JsonArray *compute, *colls;

  gen_job (&g, "--ranks", "8", "--heavy", "6", "--extra", "3000000", NULL);
  dir = g_build_filename (g.dir, "ranks", NULL);
  job = open_dir (dir, TRUE);
  compute = json_object_get_array_member (truth_of (&g), "compute_per_step_ns");
  colls = json_object_get_array_member (truth_of (&g), "collectives");
  g_assert_cmpint (json_object_get_int_member (truth_of (&g), "heavy"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (truth_of (&g), "extra_ns"), ==, 3000000);
  for (guint k = 0; k < 8; k++)
    {
      g_assert_cmpint (cp_job_get_rank (job, k)->compute_time, ==, json_array_get_int_element (compute, k));
      if (k != 6)
        g_assert_cmpint (json_array_get_int_element (compute, 6) - json_array_get_int_element (compute, k), >,
                         3000000 - 2 * 400000);
    }
  check_collectives (job, truth_of (&g), 1);
  for (guint c = 0; c < json_array_get_length (colls); c += 2)
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (colls, c), "last_rank"), ==, 6);
  gen_clear (&g);
}

/* The HLO text of XLA's collectives, as XProf and JAX write it. */
static void
test_hlo_text (void)
{
  static const struct
  {
    const char *text;
    const char *op;
    CpHloPhase  phase;
    gint64      bytes;
    const char *dtype;
    gint        group;
  } cases[] = {
    { "%all-reduce = f32[5,1024,1024,256]{3,2,1,0:T(8,128)} all-reduce(f32[5,1024,1024,256]{3,2,1,0:T(8,128)} "
      "%bitcast), channel_id=1, replica_groups=[4,2]<=[2,4]T(1,0), use_global_device_ids=true, "
      "to_apply=%region_0.3.clone", "all_reduce", CP_HLO_SYNC, G_GINT64_CONSTANT (5368709120), "f32", 2 },
    { "%all-gather-start.2 = (bf16[128]{0}, bf16[512]{0}) all-gather-start(bf16[128]{0} %p), "
      "replica_groups={{0,1,2,3}}, dimensions={0}", "all_gather", CP_HLO_START, -1, "", 4 },
    { "%all-gather-done.2 = bf16[512]{0} all-gather-done((bf16[128]{0}, bf16[512]{0}) %all-gather-start.2)",
      "all_gather", CP_HLO_DONE, 1024, "bf16", -1 },
    { "%reduce-scatter.1 = s32[8,16]{1,0} reduce-scatter(s32[32,16]{1,0} %x), replica_groups={}, dimensions={0}",
      "reduce_scatter", CP_HLO_SYNC, 512, "s32", -1 },
    { "collective-permute-done.3", "collective_permute", CP_HLO_DONE, -1, "", -1 },
    { "all-to-all", "all_to_all", CP_HLO_SYNC, -1, "", -1 },
  };
  static const char * const not_collectives[] = {
    "%fusion.3 = bf16[64,128]{1,0} fusion(%c), kind=kLoop", "%copy-start.1 = (bf16[512]{0}) copy-start(%p0)",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "all-reducer", "",
  };
  CpHloCollective h;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_true (_cp_job_parse_hlo_collective (cases[i].text, &h));
      g_assert_cmpstr (h.op, ==, cases[i].op);
      g_assert_cmpint (h.phase, ==, cases[i].phase);
      g_assert_cmpint (h.bytes, ==, cases[i].bytes);
      g_assert_cmpstr (h.dtype, ==, cases[i].dtype);
      g_assert_cmpint (h.group_size, ==, cases[i].group);
    }
  for (guint i = 0; i < G_N_ELEMENTS (not_collectives); i++)
    g_assert_false (_cp_job_parse_hlo_collective (not_collectives[i], &h));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/job/straggler", test_straggler);
  g_test_add_func ("/job/clock-offset", test_clock_offset);
  g_test_add_func ("/job/64-ranks", test_64_ranks);
  g_test_add_func ("/job/mismatch", test_mismatch);
  g_test_add_func ("/job/rank-from-name", test_rank_from_name);
  g_test_add_func ("/job/bad-ranks", test_bad_ranks);
  g_test_add_func ("/job/rank-equals-alone", test_rank_equals_alone);
  g_test_add_func ("/job/hta-ranks", test_hta_ranks);
  g_test_add_func ("/job/real-ddp-gloo", test_real_ddp);
  g_test_add_func ("/job/cli-json", test_cli_json);
  g_test_add_func ("/job/async", test_async);
  g_test_add_func ("/job/slow-link", test_slow_link);
  g_test_add_func ("/job/folder-order", test_folder_order);
  g_test_add_func ("/job/xla-hosts", test_xla_hosts);
  g_test_add_func ("/job/hlo-text", test_hlo_text);
  g_test_add_func ("/job/merge", test_merge);
  g_test_add_func ("/job/wait-shares", test_wait_shares);
  g_test_add_func ("/job/heavy-rank", test_heavy_rank);
  g_test_add_func ("/job/imbalance-shares", test_imbalance_shares);
  g_test_add_func ("/job/imbalance", test_imbalance);
  return g_test_run ();
}
