/* cp-string-pool.h: interned strings addressed by 32-bit ids
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-types.h"

G_BEGIN_DECLS

/* Strings live in large chunks that never move, so a pointer returned by
 * cp_string_pool_get() stays valid for the life of the pool. Id 0 is "". The
 * pool is not thread-safe while strings are added; reading is safe once
 * building is over. Strings are valid UTF-8 apart from NUL bytes, which are
 * kept: bytes that are not UTF-8 are replaced by U+FFFD when interned. */
typedef struct _CpStringPool CpStringPool;

CpStringPool *cp_string_pool_new        (void);
void          cp_string_pool_free       (CpStringPool *pool);
CpStr         cp_string_pool_intern     (CpStringPool *pool,
                                         const char   *str,
                                         gssize        len);
CpStr         cp_string_pool_lookup     (const CpStringPool *pool,
                                         const char         *str);
const char   *cp_string_pool_get        (const CpStringPool *pool,
                                         CpStr               id);
guint         cp_string_pool_get_length (const CpStringPool *pool,
                                         CpStr               id);
guint         cp_string_pool_size       (const CpStringPool *pool);
gsize         cp_string_pool_memory     (const CpStringPool *pool);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpStringPool, cp_string_pool_free)

G_END_DECLS
