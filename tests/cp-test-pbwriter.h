/* cp-test-pbwriter.h: a tiny protobuf encoder for building test inputs
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Every function appends to buf. Nested messages are built in their own
 * GByteArray and appended with pbw_msg(), which frees them. */
void pbw_raw_varint (GByteArray *buf,
                     guint64     v);
void pbw_tag        (GByteArray *buf,
                     guint32     field,
                     guint       wire_type);
void pbw_uint       (GByteArray *buf,
                     guint32     field,
                     guint64     v);
void pbw_int        (GByteArray *buf,
                     guint32     field,
                     gint64      v);
void pbw_fixed64    (GByteArray *buf,
                     guint32     field,
                     guint64     v);
void pbw_fixed32    (GByteArray *buf,
                     guint32     field,
                     guint32     v);
void pbw_double     (GByteArray *buf,
                     guint32     field,
                     double      v);
void pbw_bytes      (GByteArray *buf,
                     guint32     field,
                     const void *data,
                     gsize       len);
void pbw_str        (GByteArray *buf,
                     guint32     field,
                     const char *str);
void pbw_msg        (GByteArray *buf,
                     guint32     field,
                     GByteArray *sub);

G_END_DECLS
