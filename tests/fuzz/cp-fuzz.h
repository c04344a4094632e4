/* cp-fuzz.h: what the fuzz harnesses share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* Each harness defines the libFuzzer entry point. It is linked either with
 * libFuzzer (-Dfuzzing=true), or with cp-fuzz-main.c, which runs it on the
 * files named on the command line (the corpus replay of the test suite) or,
 * built with AFL++'s compiler, on the test cases AFL++ hands it. */
int  LLVMFuzzerTestOneInput (const uint8_t *data,
                             size_t         size);

/* Makes GLib criticals and warnings fatal (a g_return_if_fail() that fires
 * on hostile input is a bug) and keeps the logs quiet otherwise. Every
 * harness calls it first (it is cheap after the first time). */
void cp_fuzz_init           (void);

/* A small deterministic generator, so that a test case always runs the
 * same way: chunk sizes and choices come from the input itself. */
typedef struct
{
  guint64 s;
} CpFuzzRng;

void    cp_fuzz_rng_init    (CpFuzzRng     *rng,
                             const guint8  *data,
                             gsize          size);
guint32 cp_fuzz_rng_next    (CpFuzzRng     *rng);
/* A chunk size in [1, max], small ones more often. */
gsize   cp_fuzz_chunk_size  (CpFuzzRng     *rng,
                             gsize          max);

/* Walks everything a loaded trace offers to its users (lanes, slices,
 * names, arguments as the Details pane decodes them, flows, steps,
 * metadata) and runs the diagnosis on it, so that what a reader let through
 * is checked by its consumers too. Aborts when an invariant of the model
 * does not hold. */
void    cp_fuzz_exercise_trace (CpTrace   *trace);

G_END_DECLS
