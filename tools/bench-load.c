/* bench-load.c: how fast Chrome/Kineto JSON captures load, beside Node and Python
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Not a test: run by hand (see README, "Performance").
 *
 *   bench-load [--size BYTES] [--gen PATH] [--dir DIR] [--peer-size BYTES] [--keep]
 *   bench-load --compact [--size 200M]   a compact Kineto-style capture, 1 and 2 threads
 *   bench-load --load FILE        load one file, print MB/s and peak RSS
 *   bench-load --tokenize FILE    tokenize only (no model), print MB/s
 *
 * The default run generates a capture of about --size bytes (1 GB) with the
 * project's scenario generator (tools/cp-gen, scenario "healthy") as .json,
 * .json.gz and .json.zst, loads each in a child process (so each peak RSS is
 * its own, from wait4()), then runs Node's JSON.parse and Python's json.load
 * on the same .json and prints the ratios. Node cannot hold a string over
 * 512 MiB, so when the capture is larger, Node (and, for a like-for-like
 * ratio, our loader again) also runs on a second capture of --peer-size
 * bytes (400 MB). */

#include "config.h"

#include <locale.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cp-compact-gen.h"
#include "formats/cp-json-tokenizer.h"
#include "formats/cp-loader.h"

typedef struct
{
  gboolean ok;
  double   seconds;   /* wall clock */
  double   cpu;       /* user + system time of the process */
  double   peak_mb;
  char    *note;
} Run;

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* Runs argv in a child; wall time and the child's own peak RSS. */
static Run
run_child (const char * const *argv,
           gboolean            quiet)
{
  Run r = { FALSE, 0, 0, 0, NULL };
  struct rusage ru;
  int status;
  double t0 = now ();
  pid_t pid = fork ();

  if (pid == 0)
    {
      if (quiet)
        {
          int fd = open ("/dev/null", O_WRONLY);

          dup2 (fd, 1);
        }
      execvp (argv[0], (char * const *) argv);
      _exit (127);
    }
  if (pid < 0 || wait4 (pid, &status, 0, &ru) < 0)
    {
      r.note = g_strdup (g_strerror (errno));
      return r;
    }
  r.seconds = now () - t0;
  r.cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  r.peak_mb = ru.ru_maxrss / 1024.0;
  r.ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  if (!r.ok)
    r.note = g_strdup_printf ("exit status %d", WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return r;
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? (guint64) st.st_size : 0;
}

/* CPU time of the calling thread: the reading thread's share of a load,
 * which bounds its wall clock on a machine with cores to spare. */
static double
thread_cpu (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --load: the child side. */
static int
load_one (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  double t0 = now ();
  double m0 = thread_cpu ();
  g_autoptr(CpTrace) trace = cp_load_file (file, NULL, NULL, NULL, &error);
  double t = now () - t0;
  double main_cpu = thread_cpu () - m0;
  struct rusage ru;
  const CpLoadReport *r;
  double cpu;

  if (trace == NULL)
    {
      g_printerr ("bench-load: %s\n", error->message);
      return 1;
    }
  r = cp_trace_get_load_report (trace);
  getrusage (RUSAGE_SELF, &ru);
  cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  g_print ("%s: %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT " slices, %.3f s (CPU %.3f s, "
           "reading thread %.3f s), %.1f MB/s of JSON (%.1f MB/s of CPU time), model %.1f MB, peak RSS %.1f MB\n",
           path, r->events, cp_trace_get_n_slices (trace), t, cpu, main_cpu, r->input_bytes / 1e6 / t,
           r->input_bytes / 1e6 / cpu, cp_trace_get_memory_size (trace) / 1e6, ru.ru_maxrss / 1024.0);
  return 0;
}

static gboolean
count_token (CpJsonTokenizer   *tok,
             const CpJsonToken *t,
             gpointer           data)
{
  (*(guint64 *) data)++;
  return TRUE;
}

static int
tokenize_one (const char *path)
{
  g_autoptr(GMappedFile) mf = g_mapped_file_new (path, FALSE, NULL);
  g_autoptr(CpJsonTokenizer) tok = NULL;
  guint64 n = 0;
  gsize len;
  const char *data;
  double t0, t;

  if (mf == NULL)
    return 1;
  data = g_mapped_file_get_contents (mf);
  len = g_mapped_file_get_length (mf);
  tok = cp_json_tokenizer_new (count_token, &n);
  t0 = now ();
  for (gsize off = 0; off < len; off += 8 << 20)
    cp_json_tokenizer_feed (tok, data + off, MIN ((gsize) 8 << 20, len - off), NULL);
  cp_json_tokenizer_finish (tok);
  t = now () - t0;
  g_print ("%s: %" G_GUINT64_FORMAT " tokens, %.3f s, %.1f MB/s\n", path, n, t, len / 1e6 / t);
  return 0;
}

static void
print_run (const char *what,
           const Run  *r,
           guint64     bytes)
{
  if (r->ok)
    g_print ("  %-30s %7.2f s %7.1f MB/s | CPU %7.2f s %7.1f MB/s | peak RSS %7.1f MB (%.2fx the JSON)\n",
             what, r->seconds, bytes / 1e6 / r->seconds, r->cpu, bytes / 1e6 / r->cpu,
             r->peak_mb, r->peak_mb * 1048576.0 / bytes);
  else
    g_print ("  %-30s failed (%s)\n", what, r->note ? r->note : "?");
}

static char *
generate (const char *gen,
          const char *dir,
          const char *name,
          const char *size)
{
  char *out = g_build_filename (dir, name, NULL);
  const char *argv[] = { gen, "--scenario", "healthy", "--size", size, "--seed", "1", "-q", "--out", out, NULL };
  Run r;

  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return out;
  r = run_child (argv, TRUE);
  if (!r.ok)
    {
      g_printerr ("bench-load: cp-gen failed for %s: %s\n", out, r.note ? r.note : "");
      exit (1);
    }
  return out;
}

/* The child's figures with CHOKEPOINT_THREADS=threads. */
static Run
run_threads (const char * const *argv,
             guint               threads)
{
  g_autofree char *n = g_strdup_printf ("%u", threads);
  Run r;

  g_setenv ("CHOKEPOINT_THREADS", n, TRUE);
  r = run_child (argv, FALSE);
  g_unsetenv ("CHOKEPOINT_THREADS");
  return r;
}

/* The compact run: one .json, loaded on 1 and 2 threads, beside Node and
 * Python, each three times (the median of the wall clock, and its CPU). */
static Run
median_run (Run *runs)
{
  Run t;

  for (guint i = 0; i < 3; i++)
    for (guint j = i + 1; j < 3; j++)
      if (runs[j].seconds < runs[i].seconds)
        {
          t = runs[i];
          runs[i] = runs[j];
          runs[j] = t;
        }
  return runs[1];
}

static int
compact_main (const char *self_path,
              const char *dir,
              const char *size,
              const char *node,
              const char *python,
              gboolean    keep)
{
  g_autofree char *json = cp_compact_gen_write (dir, size);
  g_autofree char *js = g_strdup ("JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')).traceEvents.length");
  const char *ours[] = { self_path, "--load", json, NULL };
  const char *a[] = { node ? node : "node", "-e", js, json, NULL };
  const char *p[] = { python ? python : "python3", "-c",
                      "import json,sys\nwith open(sys.argv[1]) as f: json.load(f)", json, NULL };
  guint64 bytes = file_size (json);
  Run one[3], two[3], rn[3], rp, r1, r2, rnode;

  g_print ("compact capture %s: %.1f MB\n\n", json, bytes / 1e6);
  /* Interleaved, so that a change in the machine's load hits each alike. */
  for (guint i = 0; i < 3; i++)
    {
      one[i] = run_threads (ours, 1);
      two[i] = run_threads (ours, 2);
      rn[i] = run_child (a, TRUE);
    }
  rp = run_child (p, TRUE);
  r1 = median_run (one);
  r2 = median_run (two);
  rnode = median_run (rn);
  g_print ("\nResults (median of 3 by wall clock; Python once):\n");
  print_run ("chokepoint, 1 thread", &r1, bytes);
  print_run ("chokepoint, 2 threads", &r2, bytes);
  print_run ("node JSON.parse", &rnode, bytes);
  print_run ("python json.load", &rp, bytes);
  if (rnode.ok)
    {
      if (r1.ok)
        g_print ("  1 thread vs Node: %.1fx by wall clock, %.1fx by CPU time\n",
                 rnode.seconds / r1.seconds, rnode.cpu / r1.cpu);
      if (r2.ok)
        g_print ("  2 threads vs Node: %.1fx by wall clock, %.1fx by CPU time (target: 6x by wall clock)\n",
                 rnode.seconds / r2.seconds, rnode.cpu / r2.cpu);
    }
  if (rp.ok && r2.ok)
    g_print ("  2 threads vs Python: %.1fx by wall clock, %.1fx by CPU time\n",
             rp.seconds / r2.seconds, rp.cpu / r2.cpu);
  {
    double avg[3];

    if (getloadavg (avg, 3) == 3)
      g_print ("  load average during the run: %.1f (on %ld CPUs)\n", avg[0], sysconf (_SC_NPROCESSORS_ONLN));
  }
  if (!keep)
    g_unlink (json);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *size = g_strdup ("1G");
  g_autofree char *peer_size = g_strdup ("400M");
  g_autofree char *gen = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *load = NULL;
  g_autofree char *tokenize = NULL;
  gboolean keep = FALSE, compact = FALSE;
  const GOptionEntry entries[] = {
    { "compact", 0, 0, G_OPTION_ARG_NONE, &compact, "A compact Kineto-style capture (default 200M), on 1 and 2 threads", NULL },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "Capture size (cp-gen --size syntax, default 1G)", "BYTES" },
    { "peer-size", 0, 0, G_OPTION_ARG_STRING, &peer_size, "Capture size for Node when the main one is too big (400M)", "BYTES" },
    { "gen", 0, 0, G_OPTION_ARG_FILENAME, &gen, "Path of cp-gen (default: beside this program)", "PATH" },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "Folder for the generated captures (default: a temporary one)", "DIR" },
    { "keep", 0, 0, G_OPTION_ARG_NONE, &keep, "Keep the generated captures", NULL },
    { "load", 0, 0, G_OPTION_ARG_FILENAME, &load, "Load one file and report", "FILE" },
    { "tokenize", 0, 0, G_OPTION_ARG_FILENAME, &tokenize, "Tokenize one file and report", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new ("— Chrome JSON load benchmark");
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = NULL;
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *python = g_find_program_in_path ("python3");
  char *json, *gz, *zst, *small = NULL;
  guint64 bytes;
  Run ours, ours_gz, ours_zst, rnode, rpy, ours_small = { 0 }, rnode_small = { 0 };
  gboolean made_dir = FALSE;

  /* Option help and figures in the user's character set (…, —, µ);
   * numbers stay in the C locale, so the files written stay valid. */
  setlocale (LC_CTYPE, "");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("bench-load: %s\n", error->message);
      return 2;
    }
  if (load)
    return load_one (load);
  if (tokenize)
    return tokenize_one (tokenize);

  self_path = g_file_read_link ("/proc/self/exe", NULL);
  if (gen == NULL)
    {
      g_autofree char *d = g_path_get_dirname (self_path);

      gen = g_build_filename (d, "cp-gen", NULL);
    }
  if (dir == NULL)
    {
      dir = g_dir_make_tmp ("bench-load-XXXXXX", NULL);
      made_dir = TRUE;
    }

  if (compact)
    {
      int rc = compact_main (self_path, dir, strcmp (size, "1G") == 0 ? "200M" : size, node, python, keep);

      if (made_dir && !keep)
        g_rmdir (dir);
      return rc;
    }

  g_print ("Generating captures of about %s with %s in %s...\n", size, gen, dir);
  json = generate (gen, dir, "capture.json", size);
  gz = generate (gen, dir, "capture.json.gz", size);
  zst = generate (gen, dir, "capture.json.zst", size);
  bytes = file_size (json);
  g_print ("capture.json %.1f MB, .gz %.1f MB, .zst %.1f MB\n\n", bytes / 1e6, file_size (gz) / 1e6, file_size (zst) / 1e6);

  {
    const char *a[] = { self_path, "--load", json, NULL };
    const char *b[] = { self_path, "--load", gz, NULL };
    const char *c[] = { self_path, "--load", zst, NULL };

    ours = run_child (a, FALSE);
    ours_gz = run_child (b, FALSE);
    ours_zst = run_child (c, FALSE);
  }
  {
    g_autofree char *js = g_strdup_printf ("JSON.parse(require('fs').readFileSync(%s, 'utf8')).traceEvents.length",
                                           "process.argv[1]");
    const char *a[] = { node ? node : "node", "-e", js, json, NULL };
    const char *p[] = { python ? python : "python3", "-c",
                        "import json,sys\nwith open(sys.argv[1]) as f: json.load(f)", json, NULL };

    rnode = run_child (a, TRUE);
    rpy = run_child (p, TRUE);
    if (!rnode.ok && bytes > 500000000)
      {
        g_autofree char *js2 = g_strdup_printf ("JSON.parse(require('fs').readFileSync(%s, 'utf8')).traceEvents.length",
                                                "process.argv[1]");
        const char *a2[] = { node ? node : "node", "-e", js2, NULL, NULL };
        const char *b2[] = { self_path, "--load", NULL, NULL };

        small = generate (gen, dir, "peer.json", peer_size);
        a2[3] = small;
        b2[2] = small;
        ours_small = run_child (b2, FALSE);
        rnode_small = run_child (a2, TRUE);
      }
  }

  g_print ("\nResults (wall time, peak RSS of each process):\n");
  print_run ("chokepoint .json", &ours, bytes);
  print_run ("chokepoint .json.gz", &ours_gz, bytes);
  print_run ("chokepoint .json.zst", &ours_zst, bytes);
  print_run ("node JSON.parse .json", &rnode, bytes);
  print_run ("python json.load .json", &rpy, bytes);
  if (small)
    {
      guint64 sb = file_size (small);

      g_print ("  (Node cannot parse a string over 512 MiB; on a %.1f MB capture:)\n", sb / 1e6);
      print_run ("chokepoint .json (peer size)", &ours_small, sb);
      print_run ("node JSON.parse (peer size)", &rnode_small, sb);
      if (ours_small.ok && rnode_small.ok)
        g_print ("  ratio vs Node: %.1fx faster by wall clock, %.1fx by CPU time, %.1fx less memory\n",
                 rnode_small.seconds / ours_small.seconds, rnode_small.cpu / ours_small.cpu,
                 rnode_small.peak_mb / ours_small.peak_mb);
    }
  else if (ours.ok && rnode.ok)
    g_print ("  ratio vs Node: %.1fx faster by wall clock, %.1fx by CPU time, %.1fx less memory\n",
             rnode.seconds / ours.seconds, rnode.cpu / ours.cpu, rnode.peak_mb / ours.peak_mb);
  if (ours.ok && rpy.ok)
    g_print ("  ratio vs Python: %.1fx faster by wall clock, %.1fx by CPU time, %.1fx less memory\n",
             rpy.seconds / ours.seconds, rpy.cpu / ours.cpu, rpy.peak_mb / ours.peak_mb);
  if (ours.ok)
    g_print ("  targets: >= 200 MB/s by wall clock %s, by CPU time %s; peak RSS <= 1.5x %s\n",
             bytes / 1e6 / ours.seconds >= 200 ? "met" : "NOT met",
             bytes / 1e6 / ours.cpu >= 200 ? "met" : "NOT met",
             ours.peak_mb * 1048576.0 <= 1.5 * bytes ? "met" : "NOT met");
  {
    double avg[3];

    if (getloadavg (avg, 3) == 3)
      g_print ("  load average during the run: %.1f (on %ld CPUs); wall clock figures suffer when it is high\n",
               avg[0], sysconf (_SC_NPROCESSORS_ONLN));
  }

  if (!keep)
    {
      g_unlink (json);
      g_unlink (gz);
      g_unlink (zst);
      if (small)
        g_unlink (small);
      if (made_dir)
        g_rmdir (dir);
    }
  g_free (json);
  g_free (gz);
  g_free (zst);
  g_free (small);
  return 0;
}
