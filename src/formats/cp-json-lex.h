/* cp-json-lex.h: the JSON tokenizer's lexical rules, for direct readers too
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Internal to src/formats. The tokenizer and a reader that reads a value
 * straight from a buffer (see cp_json_tokenizer_set_object_hook()) share
 * these rules, so that both see the same strings, words and skipped
 * containers in the same text. None of these functions reads at or past
 * end. */

#pragma once

#include <glib.h>
#include <string.h>

#include "cp-json-tokenizer.h"

/* Character classes. */
enum
{
  CP_JSON_C_WS   = 1 << 0,  /* whitespace between tokens */
  CP_JSON_C_WORD = 1 << 1,  /* may be part of a number or literal */
  CP_JSON_C_SKIP = 1 << 2,  /* matters when skipping a container */
};

static const guint8 cp_json_class[256] = {
  [' '] = CP_JSON_C_WS, ['\t'] = CP_JSON_C_WS, ['\n'] = CP_JSON_C_WS, ['\r'] = CP_JSON_C_WS,
  ['0' ... '9'] = CP_JSON_C_WORD, ['a' ... 'z'] = CP_JSON_C_WORD, ['A' ... 'Z'] = CP_JSON_C_WORD,
  ['+'] = CP_JSON_C_WORD, ['-'] = CP_JSON_C_WORD, ['.'] = CP_JSON_C_WORD,
  ['"'] = CP_JSON_C_SKIP, ['{'] = CP_JSON_C_SKIP, ['}'] = CP_JSON_C_SKIP,
  ['['] = CP_JSON_C_SKIP, [']'] = CP_JSON_C_SKIP,
};

#define CP_JSON_IS_DIGIT(c) ((guint) ((guchar) (c) - '0') < 10u)

/* Skips whitespace; indentation comes in runs of spaces, taken eight at a
 * time. */
static inline const guchar *
cp_json_lex_skip_ws (const guchar *p,
                     const guchar *end)
{
  /* Most gaps are empty or one space. */
  if (p < end && *p > ' ')
    return p;
  if (p + 1 < end && *p == ' ' && p[1] > ' ')
    return p + 1;
  while (p < end && (cp_json_class[*p] & CP_JSON_C_WS))
    {
      p++;
      while (end - p >= 8)
        {
          guint64 w;

          memcpy (&w, p, 8);
          if (w != G_GUINT64_CONSTANT (0x2020202020202020))
            break;
          p += 8;
        }
    }
  return p;
}

/* Returns the first '"' or '\\' in [p, end), or end; ORs CP_JSON_HIGH into
 * flags when a byte >= 0x80 was passed. Eight bytes at a time. */
static inline const guchar *
cp_json_lex_scan_string (const guchar *p,
                         const guchar *end,
                         guint        *flags)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);
  guint64 high = 0;

  while (end - p >= 8)
    {
      guint64 w, q, b, t;

      memcpy (&w, p, 8);
      q = w ^ G_GUINT64_CONSTANT (0x2222222222222222);
      b = w ^ G_GUINT64_CONSTANT (0x5c5c5c5c5c5c5c5c);
      t = (((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
      if (t)
        {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
          /* The lowest flagged byte is exact (borrows only run upwards). */
          guint idx = (guint) __builtin_ctzll (t) >> 3;

          if (idx > 0)
            high |= w & ((G_GUINT64_CONSTANT (1) << (idx * 8)) - 1);
          p += idx;
          if (high & highs)
            *flags |= CP_JSON_HIGH;
          return p;
#else
          break;
#endif
        }
      high |= w;
      p += 8;
    }
  while (p < end && *p != '"' && *p != '\\')
    {
      high |= *p;
      p++;
    }
  if (high & highs)
    *flags |= CP_JSON_HIGH;
  return p;
}

/* Old PyTorch versions wrote quotes inside names without escaping them
 * (pytorch#146900). A value string's quote closes it only if what follows
 * can follow a value; when a name-like character follows instead, the quote
 * is kept as part of the string (the token gets CP_JSON_REPAIRED). Valid JSON
 * is never affected: there a value is always followed by ',', '}', ']' or
 * the end. */
static inline gboolean
cp_json_lex_repairs_after_quote (guchar c)
{
  return g_ascii_isalnum (c) || c >= 0x80 || strchr ("_()<>\"'.-/[{*&#+=!?;~|$%^`", c) != NULL;
}

/* Whether the quote before r closes a value string: 1 (closes), 0 (part of
 * the string) or -1 (the text ends before it can tell). */
static inline int
cp_json_lex_quote_closes (const guchar *r,
                          const guchar *end)
{
  while (r < end && (cp_json_class[*r] & CP_JSON_C_WS))
    r++;
  if (r == end)
    return -1;
  return cp_json_lex_repairs_after_quote (*r) ? 0 : 1;
}

typedef enum
{
  CP_JSON_LEX_CLOSED,       /* *stop is the closing quote */
  CP_JSON_LEX_CUT,          /* the text ends inside the string */
  CP_JSON_LEX_CUT_ESCAPE,   /* ... right after a backslash */
  CP_JSON_LEX_UNDECIDED,    /* *stop is a value string's quote that only more
                             * text can tell closes it */
} CpJsonLexEnd;

/* Reads a string from just after its opening quote: where it ends, and its
 * flags (CP_JSON_ESCAPED, CP_JSON_HIGH, CP_JSON_REPAIRED) ORed into flags. */
static inline CpJsonLexEnd
cp_json_lex_string (const guchar  *s,
                    const guchar  *end,
                    gboolean       is_key,
                    guint         *flags,
                    const guchar **stop)
{
  const guchar *q = s;

  for (;;)
    {
      q = cp_json_lex_scan_string (q, end, flags);
      if (q == end)
        return CP_JSON_LEX_CUT;
      if (*q == '"')
        {
          int closes;

          *stop = q;
          if (is_key || (q + 1 < end && (q[1] == ',' || q[1] == '}' || q[1] == ']')))
            return CP_JSON_LEX_CLOSED;
          closes = cp_json_lex_quote_closes (q + 1, end);
          if (closes > 0)
            return CP_JSON_LEX_CLOSED;
          if (closes < 0)
            return CP_JSON_LEX_UNDECIDED;
          *flags |= CP_JSON_REPAIRED;
          q++;
          continue;
        }
      /* A backslash: skip the escaped byte. */
      *flags |= CP_JSON_ESCAPED;
      if (q + 1 == end)
        return CP_JSON_LEX_CUT_ESCAPE;
      q += 2;
    }
}

/* How many of the eight bytes at p are ASCII digits before the first one
 * that is not (8 when all are). Reads the eight bytes: the caller makes
 * sure they are there. Each byte XOR '0' is 0-9 exactly for a digit; the
 * sum with 0x76 (of its low seven bits, so that no carry crosses bytes)
 * sets a byte's high bit from 10 up. */
static inline guint
cp_json_lex_digit_run8 (const guchar *p)
{
  guint64 x, t;

  memcpy (&x, p, 8);
  x = GUINT64_FROM_LE (x) ^ G_GUINT64_CONSTANT (0x3030303030303030);
  t = (((x & G_GUINT64_CONSTANT (0x7f7f7f7f7f7f7f7f)) + G_GUINT64_CONSTANT (0x7676767676767676)) | x) &
      G_GUINT64_CONSTANT (0x8080808080808080);
  return t == 0 ? 8 : (guint) __builtin_ctzll (t) >> 3;
}

/* The value of the n digits at p, 1 <= n <= 8 (eight bytes readable, the
 * first n of them digits): the bytes past them are shifted out, zero
 * digits shifted in at the front, then pairs, fours and eights of digits
 * combined in the word, the first digit in its low byte. */
static inline guint64
cp_json_lex_digits_value (const guchar *p,
                          guint         n)
{
  guint64 x;

  memcpy (&x, p, 8);
  x = GUINT64_FROM_LE (x) ^ G_GUINT64_CONSTANT (0x3030303030303030);
  x <<= 8 * (8 - n);
  x = (x * 10 + (x >> 8)) & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff);
  x = (x * 100 + (x >> 16)) & G_GUINT64_CONSTANT (0x0000ffff0000ffff);
  x = (x * 10000 + (x >> 32)) & G_GUINT64_CONSTANT (0x00000000ffffffff);
  return x;
}

/* The end of the run of digits at p, eight bytes at a time while eight
 * are left. */
static inline const guchar *
cp_json_lex_digits_end (const guchar *p,
                        const guchar *end)
{
  while (end - p >= 8)
    {
      guint n = cp_json_lex_digit_run8 (p);

      p += n;
      if (n < 8)
        return p;
    }
  while (p < end && CP_JSON_IS_DIGIT (*p))
    p++;
  return p;
}

/* The end of the word (number or literal) starting at p. */
static inline const guchar *
cp_json_lex_word_end (const guchar *p,
                      const guchar *end)
{
  while (p < end && (cp_json_class[*p] & CP_JSON_C_WORD))
    p++;
  return p;
}

/* The end of the JSON number that starts at p (with '-' or a digit), or
 * NULL when no number starts there. The word at p is that number only when
 * no word byte follows it. */
static inline const guchar *
cp_json_lex_number_end (const guchar *p,
                        const guchar *end)
{
  const guchar *d;

  if (p < end && *p == '-')
    p++;
  if (p == end)
    return NULL;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    p = cp_json_lex_digits_end (p + 1, end);
  else
    return NULL;
  if (p < end && *p == '.')
    {
      d = ++p;
      p = cp_json_lex_digits_end (p, end);
      if (p == d)
        return NULL;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      d = p;
      while (p < end && CP_JSON_IS_DIGIT (*p))
        p++;
      if (p == d)
        return NULL;
    }
  return p;
}

/* What a whole word is: a JSON number, true, false, null, or NaN and
 * (-)Infinity (accepted as numbers with CP_JSON_NONFINITE). FALSE when it is
 * none of these. */
static inline gboolean
cp_json_lex_classify_word (const guchar    *s,
                           gsize            n,
                           CpJsonTokenType *type,
                           guint           *flags)
{
  gsize i = 0;

  *flags = 0;
  switch (s[0])
    {
    case 't':
      *type = CP_JSON_TRUE;
      return n == 4 && memcmp (s, "true", 4) == 0;
    case 'f':
      *type = CP_JSON_FALSE;
      return n == 5 && memcmp (s, "false", 5) == 0;
    case 'n':
      *type = CP_JSON_NULL;
      return n == 4 && memcmp (s, "null", 4) == 0;
    case 'N':
      *type = CP_JSON_NUMBER;
      *flags = CP_JSON_NONFINITE;
      return n == 3 && memcmp (s, "NaN", 3) == 0;
    default:
      break;
    }

  *type = CP_JSON_NUMBER;
  if (s[i] == '-')
    i++;
  if (i < n && s[i] == 'I')
    {
      *flags = CP_JSON_NONFINITE;
      return n - i == 8 && memcmp (s + i, "Infinity", 8) == 0;
    }
  if (i >= n)
    return FALSE;
  if (s[i] == '0')
    i++;
  else if (s[i] >= '1' && s[i] <= '9')
    {
      while (i < n && CP_JSON_IS_DIGIT (s[i]))
        i++;
    }
  else
    return FALSE;
  if (i < n && s[i] == '.')
    {
      gsize d = ++i;

      while (i < n && CP_JSON_IS_DIGIT (s[i]))
        i++;
      if (i == d)
        return FALSE;
    }
  if (i < n && (s[i] == 'e' || s[i] == 'E'))
    {
      gsize d;

      i++;
      if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
      d = i;
      while (i < n && CP_JSON_IS_DIGIT (s[i]))
        i++;
      if (i == d)
        return FALSE;
    }
  return i == n;
}

/* Skips the rest of a container whose opening bracket is just before p, the
 * way cp_json_tokenizer_skip() does: only strings and brackets count, and
 * '}' closes '[' as well as ']' does. Returns the position after its
 * closing bracket, or NULL when the text ends first. */
static inline const guchar *
cp_json_lex_skip_container (const guchar *p,
                            const guchar *end)
{
  guint64 depth = 1;

  while (p < end)
    {
      guint f = 0;

      if (!(cp_json_class[*p] & CP_JSON_C_SKIP))
        {
          p++;
          continue;
        }
      switch (*p)
        {
        case '"':
          /* Strings: up to the next unescaped quote. */
          p++;
          for (;;)
            {
              p = cp_json_lex_scan_string (p, end, &f);
              if (p == end)
                return NULL;
              if (*p == '"')
                break;
              if (p + 1 == end)
                return NULL;
              p += 2;
            }
          break;
        case '{':
        case '[':
          depth++;
          break;
        default:
          if (--depth == 0)
            return p + 1;
          break;
        }
      p++;
    }
  return NULL;
}
