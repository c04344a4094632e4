/* cp-op-paths.h: host ops by call path (internal to src/analysis)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-analysis.h"

G_BEGIN_DECLS

/* Between the names of a call path, outermost first. */
#define CP_OP_PATH_SEPARATOR " > "

typedef struct _CpOpPaths CpOpPaths;

/* Called for every host op (the ops of the kernel statistics), with the id
 * of its call path and its duration. */
typedef void (*CpOpPathFunc) (CpSliceRef  op,
                              guint       path,
                              gint64      dur,
                              gpointer    user_data);

/* Walks the host threads of a finished analysis once: every op gets the
 * path of the ops around it on its thread plus its own name. Ids count
 * from 0 in the order paths are first seen. */
CpOpPaths  *_cp_op_paths_new        (CpAnalysis   *analysis,
                                     CpOpPathFunc  func,
                                     gpointer      user_data);
void        _cp_op_paths_free       (CpOpPaths    *paths);
guint       _cp_op_paths_get_n      (CpOpPaths    *paths);
/* "aten::linear > aten::addmm" (built once, owned by paths). */
const char *_cp_op_paths_get_string (CpOpPaths    *paths,
                                     guint         id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpOpPaths, _cp_op_paths_free)

G_END_DECLS
