/* fuzz-json-tokenizer.c: the streaming JSON tokenizer
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The input is JSON text (or anything). It is tokenized twice, once in one
 * chunk and once in chunks of random sizes (from a generator seeded by the
 * input), and both runs must give the same tokens, the same end and the
 * same error. Each token is checked against the input: string and key
 * tokens are the raw bytes between their quotes, other tokens the bytes at
 * their offset. Some containers are skipped and some captured (the choice
 * depends on the token's ordinal only, so both runs make the same choices),
 * and a capture must return exactly the input bytes of the container.
 * Strings are decoded (the result must be valid UTF-8) and numbers parsed. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cp-json-tokenizer.h"
#include "cp-fuzz.h"

#define CHECK(cond)                                                          \
  G_STMT_START {                                                             \
    if (G_UNLIKELY (!(cond)))                                                \
      {                                                                      \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        abort ();                                                            \
      }                                                                      \
  } G_STMT_END

typedef struct
{
  guint8  type;
  guint8  flags;
  guint   depth;
  guint64 offset;
  gsize   len;
} Rec;

typedef struct
{
  const guint8 *input;
  gsize         input_len;
  GArray       *recs;
  GString      *decoded;
  guint64       ordinal;
  guint64       stop_at;
  guint         capture_depth;   /* 0: not capturing */
  guint64       capture_start;
  gsize         capture_max;
} Run;

/* Valid UTF-8 apart from NUL bytes: the decoder replaces \u0000 escapes
 * but passes raw control bytes through (the tokenizer keeps them, as a
 * tolerance), and g_utf8_validate_len() refuses NUL. */
static gboolean
valid_utf8_but_nul (const char *s,
                    gsize       len)
{
  while (len > 0)
    {
      const char *nul = memchr (s, '\0', len);
      gsize n = nul ? (gsize) (nul - s) : len;

      if (!g_utf8_validate_len (s, n, NULL))
        return FALSE;
      if (nul == NULL)
        break;
      s += n + 1;
      len -= n + 1;
    }
  return TRUE;
}

static void
check_token_text (Run               *r,
                  const CpJsonToken *t)
{
  switch (t->type)
    {
    case CP_JSON_KEY:
    case CP_JSON_STRING:
      {
        const char *out;
        gsize out_len = 0;

        CHECK (t->offset + 1 + t->len <= r->input_len);
        CHECK (r->input[t->offset] == '"');
        CHECK (memcmp (t->text, r->input + t->offset + 1, t->len) == 0);
        CHECK (t->offset + 1 + t->len < r->input_len && r->input[t->offset + 1 + t->len] == '"');
        out = cp_json_decode_string (t->text, t->len, t->flags, r->decoded, &out_len);
        CHECK (valid_utf8_but_nul (out, out_len));
        if (!(t->flags & CP_JSON_HIGH))
          for (gsize i = 0; i < t->len; i++)
            CHECK ((guint8) t->text[i] < 0x80 || (t->flags & CP_JSON_ESCAPED));
        break;
      }

    case CP_JSON_NUMBER:
      {
        gint64 v;
        double d;

        CHECK (t->offset + t->len <= r->input_len);
        CHECK (memcmp (t->text, r->input + t->offset, t->len) == 0);
        (void) cp_json_parse_int64 (t->text, t->len, &v);
        (void) cp_json_parse_double (t->text, t->len, &d);
        (void) cp_json_parse_us_to_ns (t->text, t->len, &v);
        break;
      }

    case CP_JSON_TRUE:
    case CP_JSON_FALSE:
    case CP_JSON_NULL:
      CHECK (t->offset + t->len <= r->input_len);
      CHECK (memcmp (t->text, r->input + t->offset, t->len) == 0);
      break;

    case CP_JSON_OBJECT_START:
    case CP_JSON_OBJECT_END:
    case CP_JSON_ARRAY_START:
    case CP_JSON_ARRAY_END:
    default:
      CHECK (t->len == 1);
      CHECK (t->offset < r->input_len);
      CHECK ((guint8) t->text[0] == r->input[t->offset]);
      break;
    }
}

static gboolean
on_token (CpJsonTokenizer   *tok,
          const CpJsonToken *t,
          gpointer           data)
{
  Run *r = data;
  Rec rec = { t->type, (guint8) t->flags, t->depth, t->offset, t->len };

  check_token_text (r, t);
  g_array_append_val (r->recs, rec);
  r->ordinal++;

  if (t->type == CP_JSON_OBJECT_START || t->type == CP_JSON_ARRAY_START)
    {
      CHECK (t->depth >= 1 && t->depth <= CP_JSON_MAX_DEPTH);
      if (r->capture_depth == 0 && r->ordinal % 5 == 1)
        {
          r->capture_depth = t->depth;
          r->capture_start = t->offset;
          r->capture_max = (r->ordinal % 3 == 0) ? 16 : r->input_len + 1;
          cp_json_tokenizer_capture_begin (tok, t->offset, r->capture_max);
          CHECK (cp_json_tokenizer_is_capturing (tok));
        }
      if (r->ordinal % 7 == 3)
        cp_json_tokenizer_skip (tok);
    }
  else if ((t->type == CP_JSON_OBJECT_END || t->type == CP_JSON_ARRAY_END) &&
           r->capture_depth == t->depth)
    {
      gsize n = 0;
      const char *text = cp_json_tokenizer_capture_end (tok, t->offset + 1, &n);
      gsize expected = t->offset + 1 - r->capture_start;

      if (expected <= r->capture_max)
        {
          CHECK (text != NULL);
          CHECK (n == expected);
          CHECK (memcmp (text, r->input + r->capture_start, n) == 0);
        }
      else
        CHECK (text == NULL);
      r->capture_depth = 0;
    }
  return r->ordinal != r->stop_at;
}

typedef struct
{
  CpJsonEnd  end;
  gboolean   failed;
  char      *message;
  guint64    error_offset;
} Outcome;

static void
run_once (Run          *r,
          CpFuzzRng    *rng,
          Outcome      *out)
{
  g_autoptr(CpJsonTokenizer) tok = cp_json_tokenizer_new (on_token, r);
  g_autoptr(GError) error = NULL;
  gsize pos = 0;
  gboolean ok = TRUE;

  if (rng == NULL)
    ok = cp_json_tokenizer_feed (tok, (const char *) r->input, r->input_len, &error);
  else
    while (ok && pos < r->input_len)
      {
        gsize n = cp_fuzz_chunk_size (rng, r->input_len - pos);

        ok = cp_json_tokenizer_feed (tok, (const char *) r->input + pos, n, &error);
        pos += n;
      }
  CHECK (ok || error != NULL || r->ordinal == r->stop_at);
  if (ok)
    CHECK (cp_json_tokenizer_get_offset (tok) == r->input_len);
  out->end = cp_json_tokenizer_finish (tok);
  out->failed = !ok;
  out->message = error ? g_strdup (error->message) : NULL;
  out->error_offset = cp_json_tokenizer_get_error_offset (tok);
  if (error != NULL)
    CHECK (out->error_offset <= r->input_len);
  /* A capture left open (the input ended inside it) is simply dropped. */
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  Run a = { 0 }, b = { 0 };
  Outcome oa = { 0 }, ob = { 0 };
  CpFuzzRng rng;

  cp_fuzz_init ();
  if (size > 4 * 1024 * 1024)
    return 0;

  cp_fuzz_rng_init (&rng, data, size);
  a.input = b.input = data;
  a.input_len = b.input_len = size;
  a.stop_at = b.stop_at = (size % 13 == 0) ? 1 + size / 13 : 0;
  a.recs = g_array_new (FALSE, FALSE, sizeof (Rec));
  b.recs = g_array_new (FALSE, FALSE, sizeof (Rec));
  a.decoded = g_string_new (NULL);
  b.decoded = g_string_new (NULL);

  run_once (&a, NULL, &oa);
  run_once (&b, &rng, &ob);

  CHECK (a.recs->len == b.recs->len);
  for (guint i = 0; i < a.recs->len; i++)
    {
      const Rec *x = &g_array_index (a.recs, Rec, i), *y = &g_array_index (b.recs, Rec, i);

      CHECK (x->type == y->type && x->flags == y->flags && x->depth == y->depth &&
             x->offset == y->offset && x->len == y->len);
    }
  CHECK (oa.end == ob.end);
  CHECK (oa.failed == ob.failed);
  CHECK (g_strcmp0 (oa.message, ob.message) == 0);
  CHECK (oa.error_offset == ob.error_offset);

  g_free (oa.message);
  g_free (ob.message);
  g_array_unref (a.recs);
  g_array_unref (b.recs);
  g_string_free (a.decoded, TRUE);
  g_string_free (b.decoded, TRUE);
  return 0;
}
