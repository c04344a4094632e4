/* cp-cli.h: headless commands (info, diagnose, report), no GTK
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "analysis/cp-analysis.h"
#include "analysis/cp-job.h"
#include "model/cp-trace.h"
#include "history/cp-history-fleet.h"

G_BEGIN_DECLS

/* Exit statuses of the headless commands. */
enum {
  CP_EXIT_OK = 0,
  CP_EXIT_FAILURE = 1,    /* the file could not be read, or the command failed */
  CP_EXIT_USAGE = 2,      /* bad arguments */
  CP_EXIT_FINDINGS = 3,   /* diagnose --fail-on: a finding at or above the level exists;
                           * compare: a regression beyond a threshold */
};

/* When argv[1] names a headless command, runs it, sets *status and returns
 * TRUE. Otherwise returns FALSE and the caller starts the application. */
gboolean cp_cli_dispatch (int    argc,
                          char **argv,
                          int   *status);

/* Loads file for the command `name`, first printing on stderr how much
 * memory it will take when that is a lot (cp_load_describe_memory()). */
CpTrace *cp_cli_load (const char  *name,
                      GFile       *file,
                      GError     **error);

/* `info --json`: the capture's summary (newly allocated). */
char    *cp_cli_info_to_json (CpTrace  *trace,
                              gboolean  pretty);

/* The start of a long name, with "…" (newly allocated). */
char    *cp_cli_short_name (const char *name);

/* diagnose --record: the capture's content hash, computed in a thread of
 * its own while the capture loads (freeing it waits for the thread). */
typedef struct _CpCliHash CpCliHash;

CpCliHash *cp_cli_hash_start (GFile     *file);
void       cp_cli_hash_free  (CpCliHash *hash);

/* Stores the analysis in the history (database, or the default one) with
 * these KEY=VALUE labels and the hash, saying so on stderr. FALSE, with the
 * reason on stderr, when it could not. */
gboolean cp_cli_record (CpAnalysis   *analysis,
                        CpCliHash    *hash,
                        char * const *labels,
                        const char   *database);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpCliHash, cp_cli_hash_free)

/* history fleet (cp-cli-fleet.c): the summary as text, Markdown or JSON. */
typedef enum
{
  CP_CLI_FLEET_TEXT,
  CP_CLI_FLEET_MARKDOWN,
  CP_CLI_FLEET_JSON,
} CpCliFleetFormat;

char *cp_cli_fleet_format (const CpHistoryFleet *fleet,
                           const char           *location,
                           CpCliFleetFormat      format);

/* diagnose --fail-if: parses each condition (with the labels, checked
 * here too); prints the first bad one, with where it goes wrong, and
 * returns NULL. A GPtrArray of CpHistoryCondition otherwise. */
GPtrArray *cp_cli_parse_conditions (char * const *texts,
                                    char * const *labels);
/* Prints on stderr each condition that holds for the analysis, with the
 * metric's value; TRUE when one does. */
gboolean   cp_cli_conditions_hold  (GPtrArray    *conditions,
                                    CpAnalysis   *analysis);
/* diagnose --format openmetrics: the run's metrics, with these labels. */
char      *cp_cli_openmetrics      (CpAnalysis   *analysis,
                                    char * const *labels);

/* One command: argv[0] is the command name. */
typedef int (*CpCliCommand) (int    argc,
                             char **argv);

int cp_cli_info     (int    argc,
                     char **argv);
int cp_cli_diagnose (int    argc,
                     char **argv);
int cp_cli_report   (int    argc,
                     char **argv);
int cp_cli_compare  (int    argc,
                     char **argv);
int cp_cli_history  (int    argc,
                     char **argv);
int cp_cli_mcp      (int    argc,
                     char **argv);

/* `diagnose` of several ranks (cp-cli-job.c): files are the captures, or
 * one folder of them, or with merge the ranks' summaries; threshold NULL
 * when there is no --fail-on. */
int  cp_cli_diagnose_job (char * const *files,
                          gboolean      json,
                          gboolean      align_clocks,
                          gboolean      merge,
                          const int    *threshold);
/* `diagnose --rank-summary FILE`: the rank's summary on standard output. */
int  cp_cli_rank_summary (const char   *path);
/* Opens the ranks of a job: several capture files, or one folder of them
 * (cp_job_list_folder()). */
CpJob   *cp_cli_open_job (char * const  *files,
                          gboolean       align_clocks,
                          GError       **error);
/* TRUE when path is a folder of per-rank Kineto captures (*.pt.trace.json[.gz]). */
gboolean cp_cli_is_job_folder (const char *path);

G_END_DECLS
