/* cp-args.h: a slice's arguments, decoded for display
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace.h"

G_BEGIN_DECLS

typedef struct
{
  char *key;
  char *value;     /* display text: strings as they are, numbers as written,
                    * objects and arrays as compact JSON */
} CpArg;

/* Decodes the arguments of a slice into a GPtrArray of CpArg (freed with the
 * array), in the order the capture lists them: JSON arguments (Chrome /
 * Kineto) through json-glib, XPlane stats through cp_xstats_decode(). An
 * empty array for a slice without arguments; NULL with error set
 * (CP_TRACE_ERROR_DAMAGED) when the stored arguments cannot be read. */
GPtrArray *cp_args_decode (CpTrace     *trace,
                           CpSliceRef   ref,
                           GError     **error);

G_END_DECLS
