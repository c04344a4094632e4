/* cp-mapping.h: read-only file mappings that survive the file being truncated
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A memory-mapped file is a hazard when another program truncates the file
 * while it is mapped: touching a page past the new end raises SIGBUS, which
 * kills the process. Captures are mapped while they load, and a loaded
 * Chrome trace keeps referring to its mapping for the events' arguments, so
 * a profiler that rewrites its output file, or a user who deletes half a
 * file, must not be able to crash Chokepoint.
 *
 * Mappings made here are guarded: a process-wide SIGBUS handler (installed
 * with the first mapping, chaining to any handler that was there before)
 * replaces a page of a guarded mapping that can no longer be read with a
 * page of zeros and marks the mapping damaged. Readers then see zeros where
 * the file's content was (which they reject as damaged input), and
 * cp_mapping_is_damaged() tells the caller what happened. Faults outside
 * guarded mappings go to the previous handler, or kill the process as
 * before.
 *
 * Only regular files are mapped. At most CP_MAPPING_MAX_GUARDED
 * (cp-limits.h) mappings exist at once; past that, and for anything that is not a regular file,
 * cp_mapping_map_file() returns NULL and callers read the file instead. */

#include "model/cp-limits.h"

/* Maps the whole regular file at path, read-only. Returns the mapping as
 * GBytes (unmapped when the last reference goes), or NULL when the file is
 * not a regular file, is empty, cannot be mapped, or no guard slot is free. */
GBytes   *cp_mapping_map_file    (const char *path);

/* TRUE when bytes is a guarded mapping made by cp_mapping_map_file(). */
gboolean  cp_mapping_is_guarded  (GBytes     *bytes);

/* TRUE when a page of the mapping could not be read since it was made (the
 * file was truncated or replaced while mapped); such pages read as zeros. */
gboolean  cp_mapping_is_damaged  (GBytes     *bytes);

/* Number of guarded mappings alive (tests). */
guint     cp_mapping_get_n_alive (void);

G_END_DECLS
