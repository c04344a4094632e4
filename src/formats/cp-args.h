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

/* The scalar values of a few top-level keys of a slice's JSON arguments
 * (strings without quotes, numbers and literals as written: "40.0" where
 * cp_args_decode() prints json-glib's "40"), without building the whole
 * object: values[k]
 * (newly allocated, NULL when the key is absent or holds a container) for
 * keys[k], a NULL-terminated list. For passes that read a few arguments of
 * many slices. TRUE when read (a slice without arguments has none of the
 * keys); FALSE (values all NULL) when the arguments are not that simple
 * (escapes in a string, XPlane stats, damage): use cp_args_decode(). */
gboolean   cp_args_lookup (CpTrace            *trace,
                           CpSliceRef          ref,
                           const char * const *keys,
                           char              **values);

/* The raw JSON text of a few top-level members of a slice's JSON arguments,
 * containers included ("[[8, 512], [512, 512]]", "\"float\"", "40.0"), for
 * passes that hand a few members of many slices to a JSON parser: values[k]
 * and lens[k] for keys[k] (a NULL-terminated list), pointing into the
 * trace's storage; NULL and 0 when the key is absent. When a key appears
 * twice the last one counts, as when the whole object is parsed. TRUE when
 * read (a slice without arguments has none of the keys); FALSE when the
 * arguments are not JSON or not a well-formed object at the top level. */
gboolean   cp_args_lookup_raw (CpTrace            *trace,
                               CpSliceRef          ref,
                               const char * const *keys,
                               const guint8      **values,
                               gsize              *lens);

G_END_DECLS
