/* cp-test-util.h: helpers shared by the tests
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "analysis/cp-analysis.h"

G_BEGIN_DECLS

/* Folder of the real captures (../shared/traces), or NULL when it is missing:
 * tests then call g_test_skip(). */
const char *cp_test_shared_traces (void);

/* A path under tests/data in the source tree. */
char       *cp_test_data_path     (const char *name);

/* A fresh temporary folder, removed with cp_test_rm_rf(). */
char       *cp_test_make_tmpdir   (void);
void        cp_test_rm_rf         (const char *path);

/* Writes bytes to a new file in dir; returns its path. */
char       *cp_test_write_file    (const char *dir,
                                   const char *name,
                                   const void *data,
                                   gssize      len);

/* Runs a generator (argv NULL-ended), which must succeed, and reads the
 * truth it wrote at truth_path into truth. */
void        cp_test_run_generator (const char * const *argv,
                                   const char         *truth_path,
                                   JsonParser         *truth);

/* Loads a capture and analyses it; any error fails the test. */
CpAnalysis *cp_test_analyse       (const char *path);

G_END_DECLS
