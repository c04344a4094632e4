/* cp-json-tokenizer.h: a push-style streaming JSON tokenizer for large captures
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "model/cp-limits.h"

G_BEGIN_DECLS

/* Documented limits (cp-limits.h, docs/limits.md). A document nested deeper
 * than CP_JSON_MAX_DEPTH, or holding a string longer than CP_JSON_MAX_STRING
 * bytes, is refused with CP_JSON_ERROR_LIMIT. Containers skipped with
 * cp_json_tokenizer_skip() are scanned without a stack, so their depth is not
 * limited. */

#define CP_JSON_ERROR (cp_json_error_quark ())

typedef enum
{
  CP_JSON_ERROR_SYNTAX,     /* the text is not JSON at some byte offset */
  CP_JSON_ERROR_LIMIT,      /* a documented limit was exceeded */
} CpJsonError;

GQuark cp_json_error_quark (void);

typedef enum
{
  CP_JSON_OBJECT_START,
  CP_JSON_OBJECT_END,
  CP_JSON_ARRAY_START,
  CP_JSON_ARRAY_END,
  CP_JSON_KEY,
  CP_JSON_STRING,
  CP_JSON_NUMBER,
  CP_JSON_TRUE,
  CP_JSON_FALSE,
  CP_JSON_NULL,
} CpJsonTokenType;

/* Token flags. */
enum
{
  CP_JSON_ESCAPED   = 1 << 0, /* string: holds backslash escapes */
  CP_JSON_HIGH      = 1 << 1, /* string: holds bytes >= 0x80 (UTF-8 to validate) */
  CP_JSON_NONFINITE = 1 << 2, /* number: NaN, Infinity or -Infinity (not JSON, accepted) */
  CP_JSON_SKIPPED   = 1 << 3, /* container end: its content was skipped */
  CP_JSON_REPAIRED  = 1 << 4, /* string: held unescaped quotes, kept as text */
};

/* One token. For strings and keys, text is the raw text between the quotes
 * (escapes not decoded, see cp_json_decode_string()); for numbers, literals
 * and brackets, the literal text. text is only valid during the callback: it
 * points into the fed chunk when the token lies inside it (zero-copy), else
 * into the tokenizer's scratch buffer. */
typedef struct
{
  CpJsonTokenType type;
  guint           flags;
  guint           depth;    /* containers open around the token; a START or END
                             * token counts its own container */
  const char     *text;
  gsize           len;
  guint64         offset;   /* absolute byte offset of the token's first byte */
} CpJsonToken;

typedef struct _CpJsonTokenizer CpJsonTokenizer;

/* Called for every token; return FALSE to stop tokenizing (feed() then
 * returns FALSE without an error). */
typedef gboolean (*CpJsonTokenFunc) (CpJsonTokenizer   *tokenizer,
                                     const CpJsonToken *token,
                                     gpointer           user_data);

typedef enum
{
  CP_JSON_END_COMPLETE,     /* one whole JSON value was read */
  CP_JSON_END_TRUNCATED,    /* the input ended inside a value */
  CP_JSON_END_EMPTY,        /* only whitespace (or nothing) was read */
  CP_JSON_END_FAILED,       /* feed() failed or was stopped earlier */
} CpJsonEnd;

CpJsonTokenizer *cp_json_tokenizer_new      (CpJsonTokenFunc  func,
                                             gpointer         user_data);
void             cp_json_tokenizer_free     (CpJsonTokenizer *self);

/* Feeds the next chunk of the text; chunks may split the text at any byte.
 * Returns FALSE on a syntax error or exceeded limit (error set; see
 * cp_json_tokenizer_get_error_offset()) or when the callback stopped. A
 * leading UTF-8 byte-order mark is skipped. */
gboolean         cp_json_tokenizer_feed     (CpJsonTokenizer *self,
                                             const char      *data,
                                             gsize            len,
                                             GError         **error);
/* The input is over: emits a number left pending at the end and says how the
 * document ended. */
CpJsonEnd        cp_json_tokenizer_finish   (CpJsonTokenizer *self);

/* Bytes fed so far. */
guint64          cp_json_tokenizer_get_offset (CpJsonTokenizer *self);
/* Where the syntax error or limit was met, or G_MAXUINT64. */
guint64          cp_json_tokenizer_get_error_offset (CpJsonTokenizer *self);

/* Only from the callback of an OBJECT_START or ARRAY_START token: skip the
 * container's content without tokens, at scanning speed. The matching END
 * token (with CP_JSON_SKIPPED) follows. */
void             cp_json_tokenizer_skip     (CpJsonTokenizer *self);

/* Objects read without tokens. When an object starts depth containers deep
 * (counting itself, like its OBJECT_START token) and func is set, func gets
 * the text from its '{' to the end of the fed chunk and the absolute offset
 * of the '{'. It returns the length of the whole object, through its '}',
 * after doing what the object's tokens would have done, or 0 to have the
 * object tokenized as usual (it must then have changed nothing that the
 * tokens will not set again). Called with the tokenizer's user data. */
typedef gsize (*CpJsonObjectFunc) (CpJsonTokenizer *tokenizer,
                                   const char      *text,
                                   gsize            len,
                                   guint64          offset,
                                   gpointer         user_data);

/* Sets (or with NULL, clears) the object function and its depth. */
void             cp_json_tokenizer_set_object_func (CpJsonTokenizer  *self,
                                                    guint             depth,
                                                    CpJsonObjectFunc  func);

/* Raw text capture across chunks. Begin from a callback at the offset of a
 * token in the current chunk (typically an OBJECT_START); end from a later
 * callback at an offset in the current chunk (typically the END token's
 * offset + 1). Returns the bytes (valid until the next feed or capture) or
 * NULL when more than max_len bytes were seen. */
void             cp_json_tokenizer_capture_begin (CpJsonTokenizer *self,
                                                  guint64          offset,
                                                  gsize            max_len);
const char      *cp_json_tokenizer_capture_end   (CpJsonTokenizer *self,
                                                  guint64          end,
                                                  gsize           *len);
gboolean         cp_json_tokenizer_is_capturing  (CpJsonTokenizer *self);

/* Decodes a string token's raw text (escapes, \u surrogate pairs) into out,
 * replacing invalid UTF-8, lone surrogates and \u0000 with U+FFFD. Returns
 * the decoded text: raw itself when nothing needed decoding (flags tell),
 * else out->str. */
const char      *cp_json_decode_string      (const char *raw,
                                             gsize       len,
                                             guint       flags,
                                             GString    *out,
                                             gsize      *out_len);

/* TRUE when the brackets of JSON text (outside strings) nest at most
 * max_depth deep. A quick scan without a stack, for text about to be given
 * to a recursive parser (see CP_JSON_MAX_DOM_DEPTH). */
gboolean         cp_json_depth_within       (const char *text,
                                             gsize       len,
                                             guint       max_depth);

/* Number parsing helpers for token text. */
/* Integer value (fraction truncated toward zero, exponents applied); FALSE
 * when the text is not a number or overflows. Accepts surrounding spaces. */
gboolean         cp_json_parse_int64        (const char *text,
                                             gsize       len,
                                             gint64     *out);
gboolean         cp_json_parse_double       (const char *text,
                                             gsize       len,
                                             double     *out);
/* Decimal microseconds (e.g. "1700000000123.456", "1.5e3") to integer
 * nanoseconds, rounding sub-nanosecond digits to nearest, without going
 * through a double. FALSE when not a number or out of range. */
gboolean         cp_json_parse_us_to_ns     (const char *text,
                                             gsize       len,
                                             gint64     *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpJsonTokenizer, cp_json_tokenizer_free)

G_END_DECLS
