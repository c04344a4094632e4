/* cp-json-util.h: the members the JSON writers of the analysis and the
 * comparison and the history add (defined in cp-analysis-json.c)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

void _cp_json_add_int    (JsonBuilder *b,
                          const char  *key,
                          gint64       value);
/* A non-finite value is written as null. */
void _cp_json_add_double (JsonBuilder *b,
                          const char  *key,
                          double       value);
/* NULL is written as null. */
void _cp_json_add_string (JsonBuilder *b,
                          const char  *key,
                          const char  *value);
void _cp_json_add_bool   (JsonBuilder *b,
                          const char  *key,
                          gboolean     value);

G_END_DECLS
