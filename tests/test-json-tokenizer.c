/* test-json-tokenizer.c: the streaming JSON tokenizer
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "formats/cp-json-tokenizer.h"

/* Tokens are written as a canonical text: "{ K:a N:1 S:x [ T F Z ] }". */
typedef struct
{
  GString *out;
  GString *decode;
  guint    skip_depth;   /* skip containers opening at this depth or deeper; 0: none */
  guint    max_tokens;
  guint    n_tokens;
} Recorder;

static gboolean
record (CpJsonTokenizer   *tok,
        const CpJsonToken *t,
        gpointer           data)
{
  Recorder *r = data;
  gsize n;
  const char *s;

  if (r->out->len > 0)
    g_string_append_c (r->out, ' ');
  switch (t->type)
    {
    case CP_JSON_OBJECT_START:
      g_string_append_c (r->out, '{');
      if (r->skip_depth && t->depth >= r->skip_depth)
        cp_json_tokenizer_skip (tok);
      break;
    case CP_JSON_ARRAY_START:
      g_string_append_c (r->out, '[');
      if (r->skip_depth && t->depth >= r->skip_depth)
        cp_json_tokenizer_skip (tok);
      break;
    case CP_JSON_OBJECT_END:
      g_string_append (r->out, (t->flags & CP_JSON_SKIPPED) ? "~}" : "}");
      break;
    case CP_JSON_ARRAY_END:
      g_string_append (r->out, (t->flags & CP_JSON_SKIPPED) ? "~]" : "]");
      break;
    case CP_JSON_KEY:
    case CP_JSON_STRING:
      s = cp_json_decode_string (t->text, t->len, t->flags, r->decode, &n);
      g_string_append (r->out, t->type == CP_JSON_KEY ? "K:" : "S:");
      g_string_append_len (r->out, s, n);
      break;
    case CP_JSON_NUMBER:
      g_string_append (r->out, "N:");
      g_string_append_len (r->out, t->text, t->len);
      break;
    case CP_JSON_TRUE:
      g_string_append_c (r->out, 'T');
      break;
    case CP_JSON_FALSE:
      g_string_append_c (r->out, 'F');
      break;
    case CP_JSON_NULL:
      g_string_append_c (r->out, 'Z');
      break;
    default:
      g_assert_not_reached ();
    }
  r->n_tokens++;
  return r->max_tokens == 0 || r->n_tokens < r->max_tokens;
}

/* Feeds text in pieces cut at the given points (sorted, ascending). */
static char *
tokenize_split (const char *text,
                gsize       len,
                const gsize *cuts,
                guint       n_cuts,
                CpJsonEnd  *end,
                GError    **error)
{
  Recorder r = { g_string_new (NULL), g_string_new (NULL), 0, 0, 0 };
  g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (record, &r);
  gsize from = 0;
  gboolean ok = TRUE;

  for (guint i = 0; i <= n_cuts && ok; i++)
    {
      gsize to = i < n_cuts ? cuts[i] : len;
      /* Copy each piece so reading past it would be caught by ASan. */
      g_autofree char *piece = g_memdup2 (text + from, MAX (to - from, 1));

      ok = cp_json_tokenizer_feed (tok, piece, to - from, error);
      from = to;
    }
  *end = ok ? cp_json_tokenizer_finish (tok) : CP_JSON_END_FAILED;
  g_string_free (r.decode, TRUE);
  return g_string_free (r.out, FALSE);
}

static char *
tokenize (const char *text,
          CpJsonEnd  *end,
          GError    **error)
{
  return tokenize_split (text, strlen (text), NULL, 0, end, error);
}

typedef struct
{
  const char *json;
  const char *tokens;
  CpJsonEnd   end;
} Case;

static const Case cases[] = {
  { "{}", "{ }", CP_JSON_END_COMPLETE },
  { "[]", "[ ]", CP_JSON_END_COMPLETE },
  { " \t\r\n[ 1 , 2 ]\n ", "[ N:1 N:2 ]", CP_JSON_END_COMPLETE },
  { "{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\"}}",
    "{ K:a N:1 K:b [ T F Z ] K:c { K:d S:e } }", CP_JSON_END_COMPLETE },
  /* Numbers in every JSON form, and the non-finite extensions. */
  { "[0,-0,12,-3.25,1e3,1E+3,2.5e-3,-1.0E-10,123456789012345678901234567890]",
    "[ N:0 N:-0 N:12 N:-3.25 N:1e3 N:1E+3 N:2.5e-3 N:-1.0E-10 N:123456789012345678901234567890 ]",
    CP_JSON_END_COMPLETE },
  { "[NaN,Infinity,-Infinity]", "[ N:NaN N:Infinity N:-Infinity ]", CP_JSON_END_COMPLETE },
  /* Escapes, \u with surrogate pairs, lone surrogates, raw UTF-8. */
  { "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"]", "[ S:a\"b\\c/d\b\f\n\r\t ]", CP_JSON_END_COMPLETE },
  { "[\"\\u00e9\\u20AC\\ud83d\\ude00\"]", "[ S:é€😀 ]", CP_JSON_END_COMPLETE },
  { "[\"\\ud83d x\",\"\\ude00\",\"\\u0000\"]", "[ S:\xef\xbf\xbd x S:\xef\xbf\xbd S:\xef\xbf\xbd ]", CP_JSON_END_COMPLETE },
  { "[\"héllo wörld 😀\"]", "[ S:héllo wörld 😀 ]", CP_JSON_END_COMPLETE },
  /* Invalid UTF-8 is replaced, not fatal. */
  { "[\"a\xff" "b\xc3\"]", "[ S:a\xef\xbf\xbd" "b\xef\xbf\xbd ]", CP_JSON_END_COMPLETE },
  /* Tolerance: trailing commas, BOM. */
  { "[1,2,]", "[ N:1 N:2 ]", CP_JSON_END_COMPLETE },
  { "{\"a\":1,}", "{ K:a N:1 }", CP_JSON_END_COMPLETE },
  { "\xef\xbb\xbf{\"a\":[]}", "{ K:a [ ] }", CP_JSON_END_COMPLETE },
  /* Truncation. */
  { "[1,2", "[ N:1 N:2", CP_JSON_END_TRUNCATED },
  { "[{\"a\":\"unfinished", "[ { K:a", CP_JSON_END_TRUNCATED },
  { "{\"traceEvents\":[{\"x\":1},", "{ K:traceEvents [ { K:x N:1 }", CP_JSON_END_TRUNCATED },
  { "[tru", "[", CP_JSON_END_TRUNCATED },
  { "", "", CP_JSON_END_EMPTY },
  { "   ", "", CP_JSON_END_EMPTY },
  /* Unescaped quotes inside values (old PyTorch) are kept as text. */
  { "[\"a\"b\"c\", \"x\"]", "[ S:a\"b\"c S:x ]", CP_JSON_END_COMPLETE },
  { "{\"name\": \"f(\"x\") \"y\"\" , \"ph\": \"X\"}", "{ K:name S:f(\"x\") \"y\" K:ph S:X }", CP_JSON_END_COMPLETE },
  { "[\"end\"  \n ]", "[ S:end ]", CP_JSON_END_COMPLETE },
  { "\"tail\"  ", "S:tail", CP_JSON_END_COMPLETE },
  { "42", "N:42", CP_JSON_END_COMPLETE },
  { "\"s\"", "S:s", CP_JSON_END_COMPLETE },
};

static void
test_cases (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      CpJsonEnd end;
      g_autofree char *got = tokenize (cases[i].json, &end, &error);
      /* Escaped: a case's invalid UTF-8 would make the TAP line unreadable. */
      g_autofree char *shown = g_strescape (cases[i].json, NULL);

      g_test_message ("case %u: %s", i, shown);
      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, cases[i].tokens);
      g_assert_cmpint (end, ==, cases[i].end);
    }
}

/* Every case gives the same tokens when cut in two at any byte, and when fed
 * one byte at a time. */
static void
test_chunk_boundaries (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *json = cases[i].json;
      gsize len = strlen (json);
      g_autofree gsize *cuts = g_new (gsize, len + 1);

      for (gsize cut = 0; cut <= len; cut++)
        {
          g_autoptr(GError) error = NULL;
          CpJsonEnd end;
          g_autofree char *got = tokenize_split (json, len, &cut, 1, &end, &error);

          g_assert_no_error (error);
          g_assert_cmpstr (got, ==, cases[i].tokens);
          g_assert_cmpint (end, ==, cases[i].end);
        }

      for (gsize k = 0; k < len; k++)
        cuts[k] = k + 1;
      {
        g_autoptr(GError) error = NULL;
        CpJsonEnd end;
        g_autofree char *got = tokenize_split (json, len, cuts, len > 0 ? len - 1 : 0, &end, &error);

        g_assert_no_error (error);
        g_assert_cmpstr (got, ==, cases[i].tokens);
        g_assert_cmpint (end, ==, cases[i].end);
      }
    }
}

static void
test_errors (void)
{
  static const struct { const char *json; guint64 offset; } bad[] = {
    { "[1 2]", 3 },
    { "{\"a\" 1}", 5 },
    { "{1:2}", 1 },
    { "[1,,2]", 3 },
    { "[}", 1 },
    { "{\"a\":1]", 6 },
    { "[01x]", 1 },
    { "[truth]", 1 },
    { "[1] x", 4 },
    { "{\"a\":}", 5 },
    { "@", 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      Recorder r = { g_string_new (NULL), g_string_new (NULL), 0, 0, 0 };
      g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (record, &r);
      g_autoptr(GError) error = NULL;

      g_test_message ("bad %u: %s", i, bad[i].json);
      g_assert_false (cp_json_tokenizer_feed (tok, bad[i].json, strlen (bad[i].json), &error));
      g_assert_error (error, CP_JSON_ERROR, CP_JSON_ERROR_SYNTAX);
      g_assert_cmpuint (cp_json_tokenizer_get_error_offset (tok), ==, bad[i].offset);
      g_assert_nonnull (strstr (error->message, "byte"));
      g_assert_cmpint (cp_json_tokenizer_finish (tok), ==, CP_JSON_END_FAILED);
      /* Feeding more after a failure keeps failing. */
      g_clear_error (&error);
      g_assert_false (cp_json_tokenizer_feed (tok, "[]", 2, &error));
      g_assert_error (error, CP_JSON_ERROR, CP_JSON_ERROR_SYNTAX);
      g_string_free (r.out, TRUE);
      g_string_free (r.decode, TRUE);
    }
}

static void
test_depth_limit (void)
{
  Recorder r = { g_string_new (NULL), g_string_new (NULL), 0, 0, 0 };
  g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (record, &r);
  g_autoptr(GError) error = NULL;
  GString *deep = g_string_new (NULL);

  for (guint i = 0; i < CP_JSON_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < CP_JSON_MAX_DEPTH; i++)
    g_string_append_c (deep, ']');
  /* Exactly at the limit: fine. */
  g_assert_true (cp_json_tokenizer_feed (tok, deep->str, deep->len, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cp_json_tokenizer_finish (tok), ==, CP_JSON_END_COMPLETE);
  g_string_free (r.out, TRUE);
  cp_json_tokenizer_free (g_steal_pointer (&tok));

  /* One more: refused, naming the limit. */
  r.out = g_string_new (NULL);
  tok = cp_json_tokenizer_new (record, &r);
  g_string_prepend_c (deep, '[');
  g_assert_false (cp_json_tokenizer_feed (tok, deep->str, deep->len, &error));
  g_assert_error (error, CP_JSON_ERROR, CP_JSON_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "10000"));
  g_string_free (deep, TRUE);
  g_string_free (r.out, TRUE);
  g_string_free (r.decode, TRUE);
}

static void
test_string_limit (void)
{
  Recorder r = { g_string_new (NULL), g_string_new (NULL), 0, 0, 0 };
  g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (record, &r);
  g_autoptr(GError) error = NULL;
  gsize chunk = 1024 * 1024;
  g_autofree char *block = g_malloc (chunk);
  gboolean ok = TRUE;
  guint i;

  memset (block, 'x', chunk);
  ok = cp_json_tokenizer_feed (tok, "[\"", 2, &error);
  for (i = 0; ok && i < (CP_JSON_MAX_STRING / chunk) + 2; i++)
    ok = cp_json_tokenizer_feed (tok, block, chunk, &error);
  g_assert_false (ok);
  g_assert_error (error, CP_JSON_ERROR, CP_JSON_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "64 MiB"));
  g_assert_cmpuint (cp_json_tokenizer_get_error_offset (tok), ==, 1);
  g_string_free (r.out, TRUE);
  g_string_free (r.decode, TRUE);
}

static void
test_skip_and_capture (void)
{
  const char *json = "{\"a\":{\"x\":[1,{\"y\":\"}]\\\"\"}],\"z\":2},\"b\":[3,[4]],\"c\":5}";
  gsize len = strlen (json);

  /* Skipping every container below the root: only END tokens come back. */
  for (gsize cut = 0; cut <= len; cut++)
    {
      Recorder r = { g_string_new (NULL), g_string_new (NULL), 0, 0, 0 };
      g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (record, &r);
      g_autoptr(GError) error = NULL;

      r.skip_depth = 2;
      g_assert_true (cp_json_tokenizer_feed (tok, json, cut, &error));
      g_assert_true (cp_json_tokenizer_feed (tok, json + cut, len - cut, &error));
      g_assert_no_error (error);
      g_assert_cmpint (cp_json_tokenizer_finish (tok), ==, CP_JSON_END_COMPLETE);
      g_assert_cmpstr (r.out->str, ==, "{ K:a { ~} K:b [ ~] K:c N:5 }");
      g_string_free (r.out, TRUE);
      g_string_free (r.decode, TRUE);
    }
}

typedef struct
{
  GString *captured;
  guint64  start;
  gboolean on;
} CaptureState;

static gboolean
capture_cb (CpJsonTokenizer   *tok,
            const CpJsonToken *t,
            gpointer           data)
{
  CaptureState *s = data;

  if (t->depth == 2 && t->type == CP_JSON_OBJECT_START)
    {
      cp_json_tokenizer_capture_begin (tok, t->offset, 1 << 20);
      s->on = TRUE;
    }
  else if (t->depth == 2 && t->type == CP_JSON_OBJECT_END && s->on)
    {
      gsize n;
      const char *text = cp_json_tokenizer_capture_end (tok, t->offset + 1, &n);

      g_assert_nonnull (text);
      g_string_append_len (s->captured, text, n);
      g_string_append_c (s->captured, '|');
      s->on = FALSE;
    }
  return TRUE;
}

static void
test_capture_across_chunks (void)
{
  const char *json = "[{\"a\": [1, 2], \"s\": \"x\\\"y\"}, {\"b\":{}} ,{}]";
  const char *expect = "{\"a\": [1, 2], \"s\": \"x\\\"y\"}|{\"b\":{}}|{}|";
  gsize len = strlen (json);

  for (gsize chunk = 1; chunk <= len; chunk++)
    {
      CaptureState s = { g_string_new (NULL), 0, FALSE };
      g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (capture_cb, &s);
      g_autoptr(GError) error = NULL;

      for (gsize off = 0; off < len; off += chunk)
        g_assert_true (cp_json_tokenizer_feed (tok, json + off, MIN (chunk, len - off), &error));
      g_assert_cmpint (cp_json_tokenizer_finish (tok), ==, CP_JSON_END_COMPLETE);
      g_assert_cmpstr (s.captured->str, ==, expect);
      g_string_free (s.captured, TRUE);
    }
}

static void
test_stop (void)
{
  Recorder r = { g_string_new (NULL), g_string_new (NULL), 0, 2, 0 };
  g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (record, &r);
  g_autoptr(GError) error = NULL;

  g_assert_false (cp_json_tokenizer_feed (tok, "[1,2,3]", 7, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (r.out->str, ==, "[ N:1");
  g_assert_cmpint (cp_json_tokenizer_finish (tok), ==, CP_JSON_END_FAILED);
  g_string_free (r.out, TRUE);
  g_string_free (r.decode, TRUE);
}

static gboolean
offsets_cb (CpJsonTokenizer   *tok,
            const CpJsonToken *t,
            gpointer           data)
{
  g_string_append_printf (data, "%" G_GUINT64_FORMAT ",", t->offset);
  return TRUE;
}

static void
test_token_offsets (void)
{
  const char *json = "  {\"key\": \"value\", \"n\": -12.5e1}";
  gsize len = strlen (json);

  for (gsize cut = 0; cut <= len; cut++)
    {
      g_autoptr(GString) got = g_string_new (NULL);
      g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (offsets_cb, got);

      g_assert_true (cp_json_tokenizer_feed (tok, json, cut, NULL));
      g_assert_true (cp_json_tokenizer_feed (tok, json + cut, len - cut, NULL));
      g_assert_cmpint (cp_json_tokenizer_finish (tok), ==, CP_JSON_END_COMPLETE);
      g_assert_cmpstr (got->str, ==, "2,3,10,19,24,31,");
    }
}

static void
test_numbers (void)
{
  static const struct { const char *text; gboolean ok; gint64 ns; } times[] = {
    { "1700000000123.456", TRUE, G_GINT64_CONSTANT (1700000000123456) },
    { "1700000000123.4567", TRUE, G_GINT64_CONSTANT (1700000000123457) },
    { "1700000000123.4564", TRUE, G_GINT64_CONSTANT (1700000000123456) },
    { "1.5e3", TRUE, 1500000 },
    { "2E-3", TRUE, 2 },
    { "0.0004", TRUE, 0 },
    { "0.0005", TRUE, 1 },
    { "-1.25", TRUE, -1250 },
    { "12", TRUE, 12000 },
    { " 7.5 ", TRUE, 7500 },
    { "1623142623460111", TRUE, G_GINT64_CONSTANT (1623142623460111000) },
    { "1e30", FALSE, 0 },
    { "abc", FALSE, 0 },
    { "1.2.3", FALSE, 0 },
    { "", FALSE, 0 },
  };
  static const struct { const char *text; gboolean ok; gint64 v; } ints[] = {
    { "42", TRUE, 42 },
    { "-7", TRUE, -7 },
    { "3.9", TRUE, 3 },
    { "1e3", TRUE, 1000 },
    { "9223372036854775807", TRUE, G_MAXINT64 },
    { "-9223372036854775808", TRUE, G_MININT64 },
    { "10159970886766084423", FALSE, 0 },
    { "x1", FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      gint64 v = 0;

      g_test_message ("time %s", times[i].text);
      g_assert_cmpint (cp_json_parse_us_to_ns (times[i].text, strlen (times[i].text), &v), ==, times[i].ok);
      if (times[i].ok)
        g_assert_cmpint (v, ==, times[i].ns);
    }
  /* Random microsecond times, 1 to 17 integer digits (the fast path reads
   * eight at a time, then one at a time, up to 15), 0 to 3 decimals, signs,
   * a non-digit in place of any one character; checked against the value
   * of the integer and fraction parts read with g_ascii_strtoull(). */
  {
    g_autoptr(GRand) rand = g_rand_new_with_seed (2026);

    for (guint k = 0; k < 50000; k++)
      {
        char text[40], ipart[20], fpart[4];
        guint ni = g_rand_int_range (rand, 1, 18), nf = g_rand_int_range (rand, 0, 4);
        gboolean neg = g_rand_int_range (rand, 0, 4) == 0;
        gboolean dot = nf > 0 || g_rand_int_range (rand, 0, 8) == 0;
        gint64 v = 0, want;
        guint64 iv, fv;
        gsize len;
        gboolean ok;

        for (guint j = 0; j < ni; j++)
          ipart[j] = (char) ('0' + g_rand_int_range (rand, 0, 10));
        ipart[ni] = '\0';
        for (guint j = 0; j < nf; j++)
          fpart[j] = (char) ('0' + g_rand_int_range (rand, 0, 10));
        fpart[nf] = '\0';
        g_snprintf (text, sizeof text, "%s%s%s%s", neg ? "-" : "", ipart, dot ? "." : "", fpart);
        len = strlen (text);
        iv = g_ascii_strtoull (ipart, NULL, 10);
        fv = nf > 0 ? g_ascii_strtoull (fpart, NULL, 10) : 0;
        for (guint j = nf; j < 3; j++)
          fv *= 10;
        ok = cp_json_parse_us_to_ns (text, len, &v);
        if (ni <= 15)
          {
            /* A bare trailing '.' is read too, as tracers' output. */
            g_assert_true (ok);
            want = (gint64) (iv * 1000 + fv);
            g_assert_cmpint (v, ==, neg ? -want : want);
          }
        else if (ok && iv <= (guint64) G_MAXINT64 / 1000 - 1)
          {
            want = (gint64) (iv * 1000 + fv);
            g_assert_cmpint (v, ==, neg ? -want : want);
          }
        /* Any one character made a letter (not the exponent's e): no number. */
        if (len > 1)
          {
            gsize at = g_rand_int_range (rand, 0, (gint32) len);

            text[at] = text[at] == '-' || text[at] == '.' ? 'x' : (char) ('g' + (text[at] - '0'));
            g_assert_false (cp_json_parse_us_to_ns (text, len, &v));
          }
      }
  }
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    {
      gint64 v = 0;

      g_test_message ("int %s", ints[i].text);
      g_assert_cmpint (cp_json_parse_int64 (ints[i].text, strlen (ints[i].text), &v), ==, ints[i].ok);
      if (ints[i].ok)
        g_assert_cmpint (v, ==, ints[i].v);
    }
  {
    double d;

    g_assert_true (cp_json_parse_double ("2.5", 3, &d));
    g_assert_cmpfloat (d, ==, 2.5);
    g_assert_true (cp_json_parse_double ("-1E2", 4, &d));
    g_assert_cmpfloat (d, ==, -100.0);
    g_assert_false (cp_json_parse_double ("2.5x", 4, &d));
  }
}

/* Doubles must come out bit for bit as strtod() gives them, whether the
 * exact fast path or strtod() itself reads them. */
static void
test_doubles (void)
{
  static const char *fixed[] = {
    "0", "-0", "0.0", "1", "4.454545", "17.818182", "9", "1e1", "1E-5", "-2.5e+3",
    "0.1", "0.3", "123456789012345", "9007199254740991", "9007199254740993",
    "1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "1.7976931348623157e308",
    "12345678901234567890", "0.000000000000000000001", "00012", ".5", "5.", "+7",
    " 2.5 ", "0x10", "inf", "-Infinity", "nan", "1e", "-", "",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint i = 0; i < G_N_ELEMENTS (fixed) + 20000; i++)
    {
      char buf[64];
      const char *text;
      double want, got = 0;
      char *end;
      gboolean ok, want_ok;

      if (i < G_N_ELEMENTS (fixed))
        text = fixed[i];
      else
        {
          /* Random decimals: up to 17 digits, a point anywhere, an exponent
           * now and then. */
          guint n = g_rand_int_range (rand, 1, 18), point = g_rand_int_range (rand, 0, n + 1);
          gsize k = 0;

          if (g_rand_boolean (rand))
            buf[k++] = '-';
          for (guint d = 0; d < n; d++)
            {
              if (d == point && d > 0)
                buf[k++] = '.';
              buf[k++] = '0' + g_rand_int_range (rand, d == 0 ? 1 : 0, 10);
            }
          if (g_rand_int_range (rand, 0, 4) == 0)
            k += g_snprintf (buf + k, sizeof buf - k, "e%d", g_rand_int_range (rand, -30, 31));
          buf[k] = '\0';
          text = buf;
        }
      want = g_ascii_strtod (text, &end);
      while (g_ascii_isspace (*end))
        end++;
      want_ok = end != text && *end == '\0';
      ok = cp_json_parse_double (text, strlen (text), &got);
      g_assert_cmpint (ok, ==, want_ok);
      if (ok && !(isnan (want) && isnan (got)) && memcmp (&got, &want, sizeof got) != 0)
        g_error ("%s: %.17g, strtod gives %.17g", text, got, want);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-tokenizer/cases", test_cases);
  g_test_add_func ("/json-tokenizer/chunk-boundaries", test_chunk_boundaries);
  g_test_add_func ("/json-tokenizer/errors", test_errors);
  g_test_add_func ("/json-tokenizer/depth-limit", test_depth_limit);
  g_test_add_func ("/json-tokenizer/string-limit", test_string_limit);
  g_test_add_func ("/json-tokenizer/skip", test_skip_and_capture);
  g_test_add_func ("/json-tokenizer/capture", test_capture_across_chunks);
  g_test_add_func ("/json-tokenizer/stop", test_stop);
  g_test_add_func ("/json-tokenizer/offsets", test_token_offsets);
  g_test_add_func ("/json-tokenizer/numbers", test_numbers);
  g_test_add_func ("/json-tokenizer/doubles", test_doubles);
  return g_test_run ();
}
