/* cp-json-tokenizer.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A push tokenizer: the caller feeds chunks of any size, and the tokenizer
 * calls back once per token. There is no recursion: open containers live on
 * an explicit stack of at most CP_JSON_MAX_DEPTH bytes. A token that lies
 * wholly inside a chunk is handed over in place; one that a chunk boundary
 * splits is gathered in a scratch buffer first. Strings are scanned eight
 * bytes at a time and their escapes are left for the caller to decode when
 * it needs the value (most strings of a capture are never decoded).
 *
 * Tolerance: trailing commas before '}' or ']' are accepted, NaN and
 * (-)Infinity are numbers, control characters inside strings are kept, and
 * a document that ends inside a container is reported as truncated rather
 * than failed. */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>

#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"

G_DEFINE_QUARK (cp-json-error-quark, cp_json_error)

enum
{
  LEX_NONE,
  LEX_STRING,
  LEX_WORD,
  LEX_SKIP,
  LEX_BOM,
};

enum
{
  EXP_VALUE,
  EXP_KEY,
  EXP_COLON,
  EXP_SEP,
  EXP_DONE,
};

enum
{
  CONT_OBJECT = 1,
  CONT_ARRAY = 2,
};

struct _CpJsonTokenizer
{
  CpJsonTokenFunc  func;
  gpointer         user_data;
  CpJsonObjectFunc object_func;
  guint            object_depth;

  guint8          *stack;
  guint            depth;
  guint            stack_cap;
  int              expect;
  int              lex;

  /* A token split by a chunk boundary. */
  guint64          token_start;
  gboolean         string_is_key;
  guint            string_flags;
  gboolean         pending_escape;
  gboolean         pending_close;   /* a value string's quote, awaiting what follows */
  GString         *pending_ws;      /* whitespace seen after that quote */
  char            *scratch;
  gsize            scratch_len;
  gsize            scratch_cap;
  guint            bom_pos;

  /* Skipping. */
  gboolean         skip_requested;
  guint64          skip_depth;
  gboolean         skip_in_string;
  gboolean         skip_escape;

  /* The chunk being fed. */
  const guchar    *chunk;
  gsize            chunk_len;
  guint64          chunk_base;
  guint64          offset;

  /* Capture. */
  gboolean         capturing;
  gboolean         capture_overflow;
  guint64          capture_start;
  gsize            capture_max;
  char            *capture_buf;
  gsize            capture_len;
  gsize            capture_cap;

  gboolean         any_token;
  gboolean         stopped;
  gboolean         failed;
  guint64          error_offset;
  GError          *error;
};

CpJsonTokenizer *
cp_json_tokenizer_new (CpJsonTokenFunc func,
                       gpointer        user_data)
{
  CpJsonTokenizer *self;

  g_return_val_if_fail (func != NULL, NULL);

  self = g_new0 (CpJsonTokenizer, 1);
  self->func = func;
  self->user_data = user_data;
  self->stack_cap = 64;
  self->stack = g_malloc (self->stack_cap);
  self->expect = EXP_VALUE;
  self->lex = LEX_NONE;
  self->error_offset = G_MAXUINT64;
  return self;
}

void
cp_json_tokenizer_free (CpJsonTokenizer *self)
{
  if (self == NULL)
    return;
  g_free (self->stack);
  g_free (self->scratch);
  if (self->pending_ws)
    g_string_free (self->pending_ws, TRUE);
  g_free (self->capture_buf);
  g_clear_error (&self->error);
  g_free (self);
}

guint64
cp_json_tokenizer_get_offset (CpJsonTokenizer *self)
{
  return self->offset;
}

guint64
cp_json_tokenizer_get_error_offset (CpJsonTokenizer *self)
{
  return self->error_offset;
}

static inline guint64
abs_offset (CpJsonTokenizer *self,
            const guchar    *p)
{
  return self->chunk_base + (guint64) (p - self->chunk);
}

static void G_GNUC_PRINTF (4, 5)
fail (CpJsonTokenizer *self,
      guint64          offset,
      CpJsonError      code,
      const char      *format,
      ...)
{
  va_list args;

  if (self->failed)
    return;
  self->failed = TRUE;
  self->error_offset = offset;
  va_start (args, format);
  self->error = g_error_new_valist (CP_JSON_ERROR, code, format, args);
  va_end (args);
}

static void
fail_unexpected (CpJsonTokenizer *self,
                 const guchar    *p)
{
  guint64 off = abs_offset (self, p);
  const char *what;

  switch (self->expect)
    {
    case EXP_KEY:
      what = _("a key");
      break;
    case EXP_COLON:
      what = _("“:”");
      break;
    case EXP_SEP:
      what = self->stack[self->depth - 1] == CONT_OBJECT ? _("“,” or “}”") : _("“,” or “]”");
      break;
    case EXP_DONE:
      fail (self, off, CP_JSON_ERROR_SYNTAX,
            _("Unexpected data after the end of the JSON document at byte %" PRIu64), off);
      return;
    case EXP_VALUE:
    default:
      what = _("a value");
      break;
    }

  if (*p >= 0x20 && *p < 0x7f)
    fail (self, off, CP_JSON_ERROR_SYNTAX,
          _("Unexpected character “%c” at byte %" PRIu64 " (expected %s)"),
          *p, off, what);
  else
    fail (self, off, CP_JSON_ERROR_SYNTAX,
          _("Unexpected byte 0x%02x at byte %" PRIu64 " (expected %s)"),
          *p, off, what);
}

static gboolean
scratch_append (CpJsonTokenizer *self,
                const guchar    *data,
                gsize            len)
{
  if (self->scratch_len + len > CP_JSON_MAX_STRING)
    {
      fail (self, self->token_start, CP_JSON_ERROR_LIMIT,
            _("A value at byte %" PRIu64 " is longer than the limit of %u MiB"),
            self->token_start, CP_JSON_MAX_STRING >> 20);
      return FALSE;
    }
  if (len == 0)
    return TRUE;
  if (self->scratch_len + len > self->scratch_cap)
    {
      gsize cap = MAX (self->scratch_cap * 2, 256);

      while (cap < self->scratch_len + len)
        cap *= 2;
      self->scratch = g_realloc (self->scratch, cap);
      self->scratch_cap = cap;
    }
  memcpy (self->scratch + self->scratch_len, data, len);
  self->scratch_len += len;
  return TRUE;
}

static inline gboolean
emit (CpJsonTokenizer *self,
      CpJsonTokenType  type,
      const char      *text,
      gsize            len,
      guint64          offset,
      guint            flags)
{
  CpJsonToken t;

  t.type = type;
  t.flags = flags;
  t.depth = self->depth;
  /* An empty string split by a chunk boundary comes from a scratch buffer
   * that may never have been allocated. */
  t.text = text != NULL ? text : "";
  t.len = len;
  t.offset = offset;
  self->any_token = TRUE;
  if (G_UNLIKELY (!self->func (self, &t, self->user_data)))
    {
      self->stopped = TRUE;
      return FALSE;
    }
  return TRUE;
}

static inline void
after_value (CpJsonTokenizer *self)
{
  self->expect = self->depth == 0 ? EXP_DONE : EXP_SEP;
}

static gboolean
push (CpJsonTokenizer *self,
      guint8           kind,
      guint64          offset)
{
  if (G_UNLIKELY (self->depth >= CP_JSON_MAX_DEPTH))
    {
      fail (self, offset, CP_JSON_ERROR_LIMIT,
            _("The JSON document is nested deeper than the limit of %u levels at byte %" PRIu64),
            CP_JSON_MAX_DEPTH, offset);
      return FALSE;
    }
  if (self->depth == self->stack_cap)
    {
      self->stack_cap *= 2;
      self->stack = g_realloc (self->stack, self->stack_cap);
    }
  self->stack[self->depth++] = kind;
  return TRUE;
}

static gboolean
emit_word (CpJsonTokenizer *self,
           const guchar    *s,
           gsize            n,
           guint64          offset)
{
  CpJsonTokenType type;
  guint flags;

  if (!cp_json_lex_classify_word (s, n, &type, &flags))
    {
      g_autofree char *shown = g_strndup ((const char *) s, MIN (n, 32));

      fail (self, offset, CP_JSON_ERROR_SYNTAX,
            _("Invalid value “%s” at byte %" PRIu64), shown, offset);
      return FALSE;
    }
  if (!emit (self, type, (const char *) s, n, offset, flags))
    return FALSE;
  after_value (self);
  return TRUE;
}

static gboolean
finish_string (CpJsonTokenizer *self,
               const guchar    *s,
               gsize            n,
               guint64          offset,
               guint            flags,
               gboolean         is_key)
{
  if (G_UNLIKELY (n > CP_JSON_MAX_STRING))
    {
      fail (self, offset, CP_JSON_ERROR_LIMIT,
            _("A value at byte %" PRIu64 " is longer than the limit of %u MiB"),
            offset, CP_JSON_MAX_STRING >> 20);
      return FALSE;
    }
  if (is_key)
    {
      if (!emit (self, CP_JSON_KEY, (const char *) s, n, offset, flags))
        return FALSE;
      self->expect = EXP_COLON;
    }
  else
    {
      if (!emit (self, CP_JSON_STRING, (const char *) s, n, offset, flags))
        return FALSE;
      after_value (self);
    }
  return TRUE;
}

static const guchar *
lex_skip (CpJsonTokenizer *self,
          const guchar    *p,
          const guchar    *end)
{
  if (self->skip_escape)
    {
      self->skip_escape = FALSE;
      p++;
    }
  while (p < end)
    {
      if (self->skip_in_string)
        {
          guint f = 0;
          const guchar *q = cp_json_lex_scan_string (p, end, &f);

          if (q == end)
            return end;
          if (*q == '\\')
            {
              if (q + 1 < end)
                {
                  p = q + 2;
                  continue;
                }
              self->skip_escape = TRUE;
              return end;
            }
          self->skip_in_string = FALSE;
          p = q + 1;
          continue;
        }

      while (p < end && !(cp_json_class[*p] & CP_JSON_C_SKIP))
        p++;
      if (p == end)
        return end;
      switch (*p)
        {
        case '"':
          self->skip_in_string = TRUE;
          break;
        case '{':
        case '[':
          self->skip_depth++;
          break;
        default:
          if (--self->skip_depth == 0)
            {
              guint8 kind = self->stack[self->depth - 1];

              self->lex = LEX_NONE;
              if (!emit (self, kind == CONT_OBJECT ? CP_JSON_OBJECT_END : CP_JSON_ARRAY_END,
                         (const char *) p, 1, abs_offset (self, p), CP_JSON_SKIPPED))
                return p + 1;
              self->depth--;
              after_value (self);
              return p + 1;
            }
          break;
        }
      p++;
    }
  return p;
}

static const guchar *
lex_string_cont (CpJsonTokenizer *self,
                 const guchar    *p,
                 const guchar    *end)
{
  const guchar *start = p;

  if (self->pending_close)
    {
      const guchar *r = p;

      while (r < end && (cp_json_class[*r] & CP_JSON_C_WS))
        r++;
      if (r == end)
        {
          g_string_append_len (self->pending_ws, (const char *) p, end - p);
          return end;
        }
      self->pending_close = FALSE;
      if (!cp_json_lex_repairs_after_quote (*r))
        {
          /* It was the end of the string; the whitespace is just that. */
          self->lex = LEX_NONE;
          finish_string (self, (const guchar *) self->scratch, self->scratch_len,
                         self->token_start, self->string_flags, self->string_is_key);
          return r;
        }
      self->string_flags |= CP_JSON_REPAIRED;
      if (!scratch_append (self, (const guchar *) "\"", 1) ||
          !scratch_append (self, (const guchar *) self->pending_ws->str, self->pending_ws->len))
        return end;
    }
  if (self->pending_escape)
    {
      self->pending_escape = FALSE;
      p++;
    }
  for (;;)
    {
      const guchar *q = p < end ? cp_json_lex_scan_string (p, end, &self->string_flags) : end;

      if (q == end)
        {
          scratch_append (self, start, end - start);
          return end;
        }
      if (*q == '\\')
        {
          self->string_flags |= CP_JSON_ESCAPED;
          if (q + 1 < end)
            {
              p = q + 2;
              continue;
            }
          if (scratch_append (self, start, end - start))
            self->pending_escape = TRUE;
          return end;
        }
      if (!self->string_is_key)
        {
          int closes = cp_json_lex_quote_closes (q + 1, end);

          if (closes == 0)
            {
              self->string_flags |= CP_JSON_REPAIRED;
              p = q + 1;
              continue;
            }
          if (closes < 0)
            {
              if (scratch_append (self, start, q - start))
                {
                  if (self->pending_ws == NULL)
                    self->pending_ws = g_string_new (NULL);
                  g_string_truncate (self->pending_ws, 0);
                  g_string_append_len (self->pending_ws, (const char *) q + 1, end - (q + 1));
                  self->pending_close = TRUE;
                }
              return end;
            }
        }
      if (!scratch_append (self, start, q - start))
        return end;
      self->lex = LEX_NONE;
      finish_string (self, (const guchar *) self->scratch, self->scratch_len,
                     self->token_start, self->string_flags, self->string_is_key);
      return q + 1;
    }
}

static const guchar *
lex_word_cont (CpJsonTokenizer *self,
               const guchar    *p,
               const guchar    *end)
{
  const guchar *q = p;

  while (q < end && (cp_json_class[*q] & CP_JSON_C_WORD))
    q++;
  if (!scratch_append (self, p, q - p))
    return end;
  if (q == end)
    return end;
  self->lex = LEX_NONE;
  emit_word (self, (const guchar *) self->scratch, self->scratch_len, self->token_start);
  return q;
}

static const guchar *
lex_bom (CpJsonTokenizer *self,
         const guchar    *p,
         const guchar    *end)
{
  static const guchar bom[3] = { 0xef, 0xbb, 0xbf };

  while (p < end && self->bom_pos < 3)
    {
      if (*p != bom[self->bom_pos])
        {
          fail_unexpected (self, p);
          return end;
        }
      self->bom_pos++;
      p++;
    }
  if (self->bom_pos == 3)
    self->lex = LEX_NONE;
  return p;
}

/* The chunk ends in the string that starts at p (its text at p + 1, lexed
 * up to q), or the lexer cannot tell yet whether a key or a value string
 * closes at q: keep it in the scratch buffer until the next chunk. */
static const guchar *
keep_string_open (CpJsonTokenizer *self,
                  const guchar    *p,
                  const guchar    *q,
                  const guchar    *end,
                  gboolean         is_key,
                  guint            flags,
                  CpJsonLexEnd     result)
{
  const guchar *s = p + 1;

  self->token_start = abs_offset (self, p);
  self->string_flags = flags;
  self->scratch_len = 0;
  if (result == CP_JSON_LEX_UNDECIDED)
    {
      self->string_is_key = FALSE;
      if (scratch_append (self, s, q - s))
        {
          if (self->pending_ws == NULL)
            self->pending_ws = g_string_new (NULL);
          g_string_truncate (self->pending_ws, 0);
          g_string_append_len (self->pending_ws, (const char *) q + 1, end - (q + 1));
          self->pending_close = TRUE;
          self->lex = LEX_STRING;
        }
      return end;
    }
  if (result == CP_JSON_LEX_CUT_ESCAPE)
    self->pending_escape = TRUE;
  self->string_is_key = is_key;
  if (scratch_append (self, s, end - s))
    self->lex = LEX_STRING;
  return end;
}

static const guchar *
lex_tokens (CpJsonTokenizer *self,
            const guchar    *p,
            const guchar    *end)
{
  while (p < end)
    {
      guchar c = *p;

      if (cp_json_class[c] & CP_JSON_C_WS)
        {
          p = cp_json_lex_skip_ws (p, end);
          continue;
        }

      switch (c)
        {
        case '"':
          {
            const guchar *s = p + 1, *q = s;
            guint flags = 0;
            gboolean is_key;
            CpJsonLexEnd result;

            if (self->expect == EXP_KEY)
              is_key = TRUE;
            else if (self->expect == EXP_VALUE)
              is_key = FALSE;
            else
              {
                fail_unexpected (self, p);
                return end;
              }

            result = cp_json_lex_string (s, end, is_key, &flags, &q);
            if (result != CP_JSON_LEX_CLOSED)
              return keep_string_open (self, p, q, end, is_key, flags, result);
            if (!finish_string (self, s, q - s, abs_offset (self, p), flags, is_key))
              return end;
            p = q + 1;
            continue;
          }

        case '{':
        case '[':
          {
            gboolean obj = c == '{';

            if (self->expect != EXP_VALUE)
              {
                fail_unexpected (self, p);
                return end;
              }
            if (obj && self->object_func != NULL && self->depth + 1 == self->object_depth)
              {
                gsize used = self->object_func (self, (const char *) p, end - p,
                                                abs_offset (self, p), self->user_data);

                if (used > 0)
                  {
                    self->any_token = TRUE;
                    after_value (self);
                    p += used;
                    continue;
                  }
              }
            if (!push (self, obj ? CONT_OBJECT : CONT_ARRAY, abs_offset (self, p)))
              return end;
            if (!emit (self, obj ? CP_JSON_OBJECT_START : CP_JSON_ARRAY_START,
                       (const char *) p, 1, abs_offset (self, p), 0))
              return end;
            p++;
            if (self->skip_requested)
              {
                self->skip_requested = FALSE;
                self->skip_depth = 1;
                self->skip_in_string = FALSE;
                self->skip_escape = FALSE;
                self->lex = LEX_SKIP;
                return p;
              }
            self->expect = obj ? EXP_KEY : EXP_VALUE;
            continue;
          }

        case '}':
        case ']':
          {
            gboolean obj = c == '}';

            if (self->depth == 0 ||
                self->stack[self->depth - 1] != (obj ? CONT_OBJECT : CONT_ARRAY) ||
                !(self->expect == EXP_SEP || self->expect == (obj ? EXP_KEY : EXP_VALUE)))
              {
                fail_unexpected (self, p);
                return end;
              }
            if (!emit (self, obj ? CP_JSON_OBJECT_END : CP_JSON_ARRAY_END,
                       (const char *) p, 1, abs_offset (self, p), 0))
              return end;
            self->depth--;
            after_value (self);
            p++;
            continue;
          }

        case ',':
          if (self->expect != EXP_SEP)
            {
              fail_unexpected (self, p);
              return end;
            }
          self->expect = self->stack[self->depth - 1] == CONT_OBJECT ? EXP_KEY : EXP_VALUE;
          p++;
          continue;

        case ':':
          if (self->expect != EXP_COLON)
            {
              fail_unexpected (self, p);
              return end;
            }
          self->expect = EXP_VALUE;
          p++;
          continue;

        default:
          if ((cp_json_class[c] & CP_JSON_C_WORD) && self->expect == EXP_VALUE)
            {
              const guchar *q = cp_json_lex_word_end (p + 1, end);

              if (q == end)
                {
                  self->token_start = abs_offset (self, p);
                  self->scratch_len = 0;
                  if (scratch_append (self, p, end - p))
                    self->lex = LEX_WORD;
                  return end;
                }
              if (!emit_word (self, p, q - p, abs_offset (self, p)))
                return end;
              p = q;
              continue;
            }
          if (c == 0xef && abs_offset (self, p) == 0)
            {
              self->bom_pos = 0;
              self->lex = LEX_BOM;
              return p;
            }
          fail_unexpected (self, p);
          return end;
        }
    }
  return p;
}

static void
capture_append (CpJsonTokenizer *self,
                const guchar    *data,
                gsize            len)
{
  if (self->capture_overflow || len == 0)
    return;
  if (self->capture_len + len > self->capture_max)
    {
      self->capture_overflow = TRUE;
      g_clear_pointer (&self->capture_buf, g_free);
      self->capture_len = 0;
      self->capture_cap = 0;
      return;
    }
  if (self->capture_len + len > self->capture_cap)
    {
      gsize cap = MAX (self->capture_cap * 2, 4096);

      while (cap < self->capture_len + len)
        cap *= 2;
      self->capture_buf = g_realloc (self->capture_buf, cap);
      self->capture_cap = cap;
    }
  memcpy (self->capture_buf + self->capture_len, data, len);
  self->capture_len += len;
}

gboolean
cp_json_tokenizer_feed (CpJsonTokenizer *self,
                        const char      *data,
                        gsize            len,
                        GError         **error)
{
  const guchar *p = (const guchar *) data;
  const guchar *end = p + len;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (self->failed || self->stopped)
    {
      if (self->failed && error)
        *error = g_error_copy (self->error);
      return FALSE;
    }

  self->chunk = p;
  self->chunk_len = len;
  self->chunk_base = self->offset;

  while (p < end && !self->failed && !self->stopped)
    {
      switch (self->lex)
        {
        case LEX_NONE:
          p = lex_tokens (self, p, end);
          break;
        case LEX_STRING:
          p = lex_string_cont (self, p, end);
          break;
        case LEX_WORD:
          p = lex_word_cont (self, p, end);
          break;
        case LEX_SKIP:
          p = lex_skip (self, p, end);
          break;
        case LEX_BOM:
        default:
          p = lex_bom (self, p, end);
          break;
        }
    }

  if (self->capturing)
    {
      guint64 from = MAX (self->capture_start, self->chunk_base);

      if (from - self->chunk_base < len)
        capture_append (self, self->chunk + (from - self->chunk_base),
                        len - (from - self->chunk_base));
    }

  self->offset += len;
  self->chunk = NULL;
  self->chunk_len = 0;

  if (self->failed)
    {
      if (error)
        *error = g_error_copy (self->error);
      return FALSE;
    }
  return !self->stopped;
}

CpJsonEnd
cp_json_tokenizer_finish (CpJsonTokenizer *self)
{
  g_return_val_if_fail (self != NULL, CP_JSON_END_FAILED);

  if (self->failed || self->stopped)
    return CP_JSON_END_FAILED;

  switch (self->lex)
    {
    case LEX_WORD:
      {
        /* The chunk pointer is gone: the word lives in scratch. */
        self->chunk = NULL;
        self->chunk_base = self->offset;
        self->lex = LEX_NONE;
        if (!emit_word (self, (const guchar *) self->scratch, self->scratch_len, self->token_start))
          {
            /* A word cut by the end of the input ("tru", "1e") is a truncation. */
            if (self->depth > 0 || self->failed)
              {
                g_clear_error (&self->error);
                self->failed = FALSE;
                return CP_JSON_END_TRUNCATED;
              }
            return CP_JSON_END_FAILED;
          }
        break;
      }
    case LEX_STRING:
      if (self->pending_close)
        {
          /* Only whitespace followed the quote: it closed the string. */
          self->pending_close = FALSE;
          self->lex = LEX_NONE;
          if (!finish_string (self, (const guchar *) self->scratch, self->scratch_len,
                              self->token_start, self->string_flags, self->string_is_key))
            return CP_JSON_END_FAILED;
          break;
        }
      return CP_JSON_END_TRUNCATED;
    case LEX_SKIP:
    case LEX_BOM:
      return CP_JSON_END_TRUNCATED;
    case LEX_NONE:
    default:
      break;
    }

  if (self->stopped)
    return CP_JSON_END_FAILED;
  if (!self->any_token)
    return CP_JSON_END_EMPTY;
  if (self->depth > 0 || self->expect != EXP_DONE)
    return CP_JSON_END_TRUNCATED;
  return CP_JSON_END_COMPLETE;
}

void
cp_json_tokenizer_set_object_func (CpJsonTokenizer  *self,
                                   guint             depth,
                                   CpJsonObjectFunc  func)
{
  g_return_if_fail (self != NULL);

  self->object_func = func;
  self->object_depth = depth;
}

void
cp_json_tokenizer_skip (CpJsonTokenizer *self)
{
  g_return_if_fail (self != NULL);
  self->skip_requested = TRUE;
}

void
cp_json_tokenizer_capture_begin (CpJsonTokenizer *self,
                                 guint64          offset,
                                 gsize            max_len)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->chunk != NULL);
  g_return_if_fail (offset >= self->chunk_base && offset <= self->chunk_base + self->chunk_len);

  self->capturing = TRUE;
  self->capture_overflow = FALSE;
  self->capture_start = offset;
  self->capture_max = max_len;
  self->capture_len = 0;
}

gboolean
cp_json_tokenizer_is_capturing (CpJsonTokenizer *self)
{
  return self->capturing;
}

const char *
cp_json_tokenizer_capture_end (CpJsonTokenizer *self,
                               guint64          end,
                               gsize           *len)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (len != NULL, NULL);

  *len = 0;
  if (!self->capturing)
    return NULL;
  self->capturing = FALSE;
  if (self->capture_overflow || self->chunk == NULL ||
      end < self->chunk_base || end > self->chunk_base + self->chunk_len || end < self->capture_start)
    return NULL;

  if (self->capture_len == 0 && self->capture_start >= self->chunk_base)
    {
      if (end - self->capture_start > self->capture_max)
        return NULL;
      *len = end - self->capture_start;
      return (const char *) self->chunk + (self->capture_start - self->chunk_base);
    }

  capture_append (self, self->chunk, end - self->chunk_base);
  if (self->capture_overflow)
    return NULL;
  *len = self->capture_len;
  return self->capture_buf;
}

/* Strings */

static void
append_valid (GString    *out,
              const char *s,
              gsize       len)
{
  while (len > 0)
    {
      const char *valid_end;

      if (g_utf8_validate_len (s, len, &valid_end))
        {
          g_string_append_len (out, s, len);
          return;
        }
      g_string_append_len (out, s, valid_end - s);
      g_string_append (out, "\xef\xbf\xbd");
      len -= (valid_end - s) + 1;
      s = valid_end + 1;
    }
}

static gint
hex4 (const char *s)
{
  gint v = 0;

  for (int i = 0; i < 4; i++)
    {
      gint d = g_ascii_xdigit_value (s[i]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

const char *
cp_json_decode_string (const char *raw,
                       gsize       len,
                       guint       flags,
                       GString    *out,
                       gsize      *out_len)
{
  const char *p = raw, *end = raw + len;

  if (!(flags & (CP_JSON_ESCAPED | CP_JSON_HIGH)) ||
      (!(flags & CP_JSON_ESCAPED) && g_utf8_validate_len (raw, len, NULL)))
    {
      *out_len = len;
      return raw;
    }

  g_string_truncate (out, 0);
  while (p < end)
    {
      const char *bs = memchr (p, '\\', end - p);

      if (bs == NULL)
        {
          append_valid (out, p, end - p);
          break;
        }
      append_valid (out, p, bs - p);
      p = bs + 1;
      if (p >= end)
        break;
      switch (*p)
        {
        case '"': g_string_append_c (out, '"'); p++; break;
        case '\\': g_string_append_c (out, '\\'); p++; break;
        case '/': g_string_append_c (out, '/'); p++; break;
        case 'b': g_string_append_c (out, '\b'); p++; break;
        case 'f': g_string_append_c (out, '\f'); p++; break;
        case 'n': g_string_append_c (out, '\n'); p++; break;
        case 'r': g_string_append_c (out, '\r'); p++; break;
        case 't': g_string_append_c (out, '\t'); p++; break;
        case 'u':
          {
            gint cp = end - p >= 5 ? hex4 (p + 1) : -1;

            if (cp < 0)
              {
                g_string_append (out, "\xef\xbf\xbd");
                p++;
                break;
              }
            p += 5;
            if (cp >= 0xd800 && cp <= 0xdbff)
              {
                gint lo = (end - p >= 6 && p[0] == '\\' && p[1] == 'u') ? hex4 (p + 2) : -1;

                if (lo >= 0xdc00 && lo <= 0xdfff)
                  {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                  }
                else
                  cp = 0xfffd;
              }
            else if ((cp >= 0xdc00 && cp <= 0xdfff) || cp == 0)
              cp = 0xfffd;
            g_string_append_unichar (out, cp);
            break;
          }
        default:
          /* Not a JSON escape: keep the character. */
          append_valid (out, p, 1);
          p++;
          break;
        }
    }
  *out_len = out->len;
  return out->str;
}

gboolean
cp_json_depth_within (const char *text,
                      gsize       len,
                      guint       max_depth)
{
  const char *p = text, *end = text + len;
  guint depth = 0;

  while (p < end)
    {
      switch (*p)
        {
        case '"':
          /* Skip the string, escapes included. */
          for (p++; p < end && *p != '"'; p++)
            if (*p == '\\')
              p++;
          break;
        case '[':
        case '{':
          if (++depth > max_depth)
            return FALSE;
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
      p++;
    }
  return TRUE;
}

/* Numbers */

/* Splits a decimal number into sign, up to 19 significant digits and a
 * power of ten. round_up tells that dropped digits were >= 5. */
static gboolean
parse_decimal (const char *s,
               gsize       n,
               gboolean   *neg,
               guint64    *mant,
               gint64     *exp10,
               gboolean   *round_up)
{
  const char *p = s, *end = s + n;
  guint64 m = 0;
  gint64 e = 0;
  int sig = 0;
  gboolean any = FALSE, dropped_first = FALSE;

  *round_up = FALSE;
  while (p < end && g_ascii_isspace (*p))
    p++;
  while (end > p && g_ascii_isspace (end[-1]))
    end--;
  *neg = FALSE;
  if (p < end && (*p == '-' || *p == '+'))
    {
      *neg = *p == '-';
      p++;
    }
  for (; p < end && CP_JSON_IS_DIGIT (*p); p++)
    {
      any = TRUE;
      if (m == 0 && *p == '0')
        continue;
      if (sig < 19)
        {
          m = m * 10 + (guint64) (*p - '0');
          sig++;
        }
      else
        {
          if (!dropped_first)
            {
              *round_up = *p >= '5';
              dropped_first = TRUE;
            }
          e++;
        }
    }
  if (p < end && *p == '.')
    {
      p++;
      for (; p < end && CP_JSON_IS_DIGIT (*p); p++)
        {
          any = TRUE;
          if (m == 0 && *p == '0')
            {
              e--;
              continue;
            }
          if (sig < 19)
            {
              m = m * 10 + (guint64) (*p - '0');
              sig++;
              e--;
            }
          else if (!dropped_first)
            {
              *round_up = *p >= '5';
              dropped_first = TRUE;
            }
        }
    }
  if (!any)
    return FALSE;
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      gboolean eneg = FALSE;
      gint64 x = 0;
      gboolean digits = FALSE;

      p++;
      if (p < end && (*p == '-' || *p == '+'))
        {
          eneg = *p == '-';
          p++;
        }
      for (; p < end && CP_JSON_IS_DIGIT (*p); p++)
        {
          digits = TRUE;
          if (x < 100000)
            x = x * 10 + (*p - '0');
        }
      if (!digits)
        return FALSE;
      e += eneg ? -x : x;
    }
  if (p != end)
    return FALSE;
  if (m == 0)
    e = 0;
  *mant = m;
  *exp10 = e;
  return TRUE;
}

static const guint64 pow10_table[20] = {
  G_GUINT64_CONSTANT (1), G_GUINT64_CONSTANT (10), G_GUINT64_CONSTANT (100),
  G_GUINT64_CONSTANT (1000), G_GUINT64_CONSTANT (10000), G_GUINT64_CONSTANT (100000),
  G_GUINT64_CONSTANT (1000000), G_GUINT64_CONSTANT (10000000), G_GUINT64_CONSTANT (100000000),
  G_GUINT64_CONSTANT (1000000000), G_GUINT64_CONSTANT (10000000000),
  G_GUINT64_CONSTANT (100000000000), G_GUINT64_CONSTANT (1000000000000),
  G_GUINT64_CONSTANT (10000000000000), G_GUINT64_CONSTANT (100000000000000),
  G_GUINT64_CONSTANT (1000000000000000), G_GUINT64_CONSTANT (10000000000000000),
  G_GUINT64_CONSTANT (100000000000000000), G_GUINT64_CONSTANT (1000000000000000000),
  G_GUINT64_CONSTANT (10000000000000000000),
};

/* mant * 10^e as a signed integer; rounds (nearest, halves away from zero)
 * when round is TRUE, truncates otherwise. */
static gboolean
scale (gboolean  neg,
       guint64   mant,
       gint64    e,
       gboolean  round_up,
       gboolean  round,
       gint64   *out)
{
  guint64 v;

  if (round && round_up && mant < G_MAXUINT64)
    mant++;
  if (mant == 0)
    {
      *out = 0;
      return TRUE;
    }
  if (e >= 0)
    {
      if (e > 19)
        return FALSE;
      if (mant > G_MAXUINT64 / pow10_table[e])
        return FALSE;
      v = mant * pow10_table[e];
    }
  else if (e < -19)
    v = 0;
  else
    {
      guint64 d = pow10_table[-e];

      v = mant / d;
      if (round && (mant % d) * 2 >= d)
        v++;
    }
  if (v > (guint64) G_MAXINT64 + (neg ? 1 : 0))
    return FALSE;
  *out = neg ? (gint64) (0 - v) : (gint64) v;
  return TRUE;
}

gboolean
cp_json_parse_int64 (const char *text,
                     gsize       len,
                     gint64     *out)
{
  gboolean neg, round_up;
  guint64 mant;
  gint64 e;

  /* Fast path: plain digits. */
  if (len > 0 && len < 19)
    {
      gsize i = text[0] == '-' ? 1 : 0;
      gint64 v = 0;

      if (i < len)
        {
          for (; i < len && CP_JSON_IS_DIGIT (text[i]); i++)
            v = v * 10 + (text[i] - '0');
          if (i == len)
            {
              *out = text[0] == '-' ? -v : v;
              return TRUE;
            }
        }
    }
  if (!parse_decimal (text, len, &neg, &mant, &e, &round_up))
    return FALSE;
  return scale (neg, mant, e, FALSE, FALSE, out);
}

gboolean
cp_json_parse_us_to_ns (const char *text,
                        gsize       len,
                        gint64     *out)
{
  gboolean neg, round_up;
  guint64 mant;
  gint64 e;

  /* Fast path: [-]digits[.d[d[d]]] with at most 15 integer digits, the way
   * Kineto and most tracers write microseconds. */
  if (len > 0 && len <= 20)
    {
      gsize i = text[0] == '-' ? 1 : 0, start = i;
      guint64 v = 0;

      /* Eight digits at a time while there are eight (13 for a
       * microsecond timestamp since the epoch), then one at a time. */
      while (i + 8 <= len)
        {
          if (cp_json_lex_digit_run8 ((const guchar *) text + i) < 8)
            break;
          v = v * 100000000u + cp_json_lex_digits_value ((const guchar *) text + i, 8);
          i += 8;
        }
      while (i < len && CP_JSON_IS_DIGIT (text[i]))
        v = v * 10 + (guint64) (text[i++] - '0');
      if (i > start && i - start <= 15)
        {
          guint frac_digits = 0;

          v *= 1000;
          if (i < len && text[i] == '.')
            {
              guint64 scale3 = 100;

              i++;
              while (i < len && CP_JSON_IS_DIGIT (text[i]) && frac_digits < 3)
                {
                  v += (guint64) (text[i++] - '0') * scale3;
                  scale3 /= 10;
                  frac_digits++;
                }
            }
          if (i == len && (frac_digits > 0 || text[len - 1] != '.'))
            {
              *out = text[0] == '-' ? -(gint64) v : (gint64) v;
              return TRUE;
            }
        }
    }

  if (!parse_decimal (text, len, &neg, &mant, &e, &round_up))
    return FALSE;
  return scale (neg, mant, e + 3, round_up, TRUE, out);
}

/* Powers of ten that a double holds exactly. */
static const double exact_pow10[23] = {
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

gboolean
cp_json_parse_double (const char *text,
                      gsize       len,
                      double     *out)
{
  char buf[64];
  char *end = NULL;
  g_autofree char *big = NULL;
  const char *s;
  gboolean neg, round_up;
  guint64 mant;
  gint64 e;

  if (len == 0)
    return FALSE;

  /* Fast path (Clinger): a mantissa below 2^53 and a power of ten up to
   * 10^22 are both exact doubles, so one multiplication or division gives
   * the correctly rounded value, the same as strtod(). */
  if (parse_decimal (text, len, &neg, &mant, &e, &round_up) &&
      mant < (G_GUINT64_CONSTANT (1) << 53) && e >= -22 && e <= 22)
    {
      double v = (double) mant;

      v = e < 0 ? v / exact_pow10[-e] : v * exact_pow10[e];
      *out = neg ? -v : v;
      return TRUE;
    }
  if (len < sizeof buf)
    {
      memcpy (buf, text, len);
      buf[len] = '\0';
      s = buf;
    }
  else
    s = big = g_strndup (text, len);
  *out = g_ascii_strtod (s, &end);
  while (end && g_ascii_isspace (*end))
    end++;
  return end != s && end != NULL && *end == '\0';
}
