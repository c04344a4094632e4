/* cp-compact-gen.h: a compact Kineto-style capture for the benchmarks
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Writes DIR/compact.json, about size bytes ("200M", "1G", "64k"), unless
 * it is there already, and returns its path (free it). Exits the program
 * with a message when it cannot write. */
char *cp_compact_gen_write (const char *dir,
                            const char *size);

G_END_DECLS
