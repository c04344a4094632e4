/* cp-chrome-tokens.c: strings, keys, and events read from tokens or straight from the text
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"
#include "cp-chrome-private.h"

/* Strings */

static inline guint64
load8 (const char *s)
{
  guint64 v;

  memcpy (&v, s, 8);
  return v;
}

/* The bytes of a string shorter than 9 as one word, for the cache's hash
 * only: fixed-size loads, which a copy of n bytes into a word is not (its
 * byte stores and the word's load stall the load). Up to 3 bytes are all
 * in it; 4 to 8 in two overlapping halves. */
static inline guint64
load_short (const char *s,
            gsize       n)
{
  guint32 a, b;

  if (n >= 4)
    {
      memcpy (&a, s, 4);
      memcpy (&b, s + n - 4, 4);
      return a | (guint64) b << 32;
    }
  if (n == 0)
    return 0;
  return (guint64) (guchar) s[0] | (guint64) (guchar) s[n / 2] << 8 | (guint64) (guchar) s[n - 1] << 16;
}

static CpStr
intern_cached (CpChromeReader *self,
               const char     *s,
               gsize           len)
{
  guint64 h = mix64 ((len > 8 ? load8 (s) ^ load8 (s + len - 8) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) : load_short (s, len)) ^ len);
  StrCacheEntry *e = &self->str_cache[h & (STR_CACHE_SIZE - 1)];
  CpStr id;

  if (e->s != NULL && e->len == len && memcmp (e->s, s, len) == 0)
    return e->id;
  id = cp_trace_builder_intern (self->b, s, len);
  e->s = cp_trace_builder_get_string (self->b, id);
  e->len = len;
  e->id = id;
  return id;
}

CpStr
cp_chrome_intern_token (CpChromeReader    *self,
                        const CpJsonToken *t)
{
  gsize len;
  const char *s;

  /* Plain ASCII, nearly every name: the text itself, without a call. */
  if ((t->type != CP_JSON_STRING && t->type != CP_JSON_KEY) ||
      !(t->flags & (CP_JSON_ESCAPED | CP_JSON_HIGH)))
    return intern_cached (self, t->text, t->len);
  s = cp_json_decode_string (t->text, t->len, t->flags, self->decode, &len);
  if ((t->flags & CP_JSON_ESCAPED) && memchr (s, '\0', len) != NULL)
    len = strlen (s);
  return intern_cached (self, s, len);
}

gboolean
cp_chrome_token_int (CpChromeReader    *self,
                     const CpJsonToken *t,
                     gint64            *out)
{
  if (t->type == CP_JSON_NUMBER)
    return !(t->flags & CP_JSON_NONFINITE) && cp_json_parse_int64 (t->text, t->len, out);
  if (t->type == CP_JSON_STRING && !(t->flags & CP_JSON_ESCAPED))
    return cp_json_parse_int64 (t->text, t->len, out);
  return FALSE;
}

gboolean
cp_chrome_token_double (CpChromeReader    *self,
                        const CpJsonToken *t,
                        double            *out)
{
  if (t->type == CP_JSON_NUMBER || (t->type == CP_JSON_STRING && !(t->flags & CP_JSON_ESCAPED)))
    return cp_json_parse_double (t->text, t->len, out);
  return FALSE;
}

static gboolean
token_time (CpChromeReader    *self,
            const CpJsonToken *t,
            gint64            *out)
{
  if (t->type == CP_JSON_NUMBER)
    return !(t->flags & CP_JSON_NONFINITE) && cp_json_parse_us_to_ns (t->text, t->len, out);
  if (t->type == CP_JSON_STRING && !(t->flags & CP_JSON_ESCAPED))
    return cp_json_parse_us_to_ns (t->text, t->len, out);
  return FALSE;
}

static void
token_id_key (CpChromeReader    *self,
              const CpJsonToken *t,
              IdKey             *k)
{
  gint64 v;

  if (t->type == CP_JSON_NUMBER)
    {
      if (cp_json_parse_int64 (t->text, t->len, &v))
        {
          k->num = v;
          k->is_str = FALSE;
          k->str = 0;
          return;
        }
    }
  else if (t->type == CP_JSON_STRING && t->len > 0 && t->len < 20 &&
           (g_ascii_isdigit (t->text[0]) || t->text[0] == '-') &&
           cp_json_parse_int64 (t->text, t->len, &v))
    {
      gboolean digits = TRUE;

      for (gsize i = 1; i < t->len && digits; i++)
        digits = g_ascii_isdigit (t->text[i]);
      if (digits)
        {
          k->num = v;
          k->is_str = FALSE;
          k->str = 0;
          return;
        }
    }
  k->is_str = TRUE;
  k->num = 0;
  k->str = cp_chrome_intern_token (self, t);
}

static guint64
token_hash (CpChromeReader    *self,
            const CpJsonToken *t)
{
  /* Numbers and strings with the same text name the same id. */
  return cp_chrome_hash_text (t->text, t->len);
}

/* Keys */

static int
event_key (const char *s,
           gsize       n)
{
  switch (n)
    {
    case 1:
      return s[0] == 's' ? F_S : F_NONE;
    case 2:
      if (s[0] == 'p' && s[1] == 'h')
        return F_PH;
      if (s[0] == 't' && s[1] == 's')
        return F_TS;
      if (s[0] == 'i' && s[1] == 'd')
        return F_ID;
      if (s[0] == 'b' && s[1] == 'p')
        return F_BP;
      if (s[0] == 's' && s[1] == 'f')
        return F_SF;
      return F_NONE;
    case 3:
      if (memcmp (s, "cat", 3) == 0)
        return F_CAT;
      if (memcmp (s, "pid", 3) == 0)
        return F_PID;
      if (memcmp (s, "tid", 3) == 0)
        return F_TID;
      if (memcmp (s, "dur", 3) == 0)
        return F_DUR;
      if (memcmp (s, "id2", 3) == 0)
        return F_ID2;
      return F_NONE;
    case 4:
      if (memcmp (s, "name", 4) == 0)
        return F_NAME;
      if (memcmp (s, "args", 4) == 0)
        return F_ARGS;
      return F_NONE;
    case 5:
      return memcmp (s, "scope", 5) == 0 ? F_SCOPE : F_NONE;
    case 7:
      if (memcmp (s, "bind_id", 7) == 0)
        return F_BIND_ID;
      if (memcmp (s, "flow_in", 7) == 0)
        return F_FLOW_IN;
      return F_NONE;
    case 8:
      return memcmp (s, "flow_out", 8) == 0 ? F_FLOW_OUT : F_NONE;
    default:
      return F_NONE;
    }
}

static int
args_key (const char *s,
          gsize       n)
{
  switch (n)
    {
    case 4:
      if (memcmp (s, "grid", 4) == 0)
        return A_GRID;
      if (memcmp (s, "name", 4) == 0)
        return A_NAME;
      if (memcmp (s, "size", 4) == 0)
        return A_SIZE;
      return A_NONE;
    case 5:
      if (memcmp (s, "bytes", 5) == 0)
        return A_BYTES;
      if (memcmp (s, "block", 5) == 0)
        return A_BLOCK;
      return A_NONE;
    case 6:
      if (memcmp (s, "device", 6) == 0)
        return A_DEVICE;
      if (memcmp (s, "stream", 6) == 0)
        return A_STREAM;
      if (memcmp (s, "labels", 6) == 0)
        return A_LABELS;
      return A_NONE;
    case 9:
      return memcmp (s, "direction", 9) == 0 ? A_DIRECTION : A_NONE;
    case 10:
      return memcmp (s, "sort_index", 10) == 0 ? A_SORT : A_NONE;
    case 11:
      if (memcmp (s, "correlation", 11) == 0)
        return A_CORR;
      if (memcmp (s, "External id", 11) == 0 || memcmp (s, "external id", 11) == 0)
        return A_EXT;
      return A_NONE;
    case 12:
      return memcmp (s, "warps per SM", 12) == 0 ? A_WPSM : A_NONE;
    case 13:
      if (memcmp (s, "shared memory", 13) == 0)
        return A_SHMEM;
      if (memcmp (s, "blocks per SM", 13) == 0)
        return A_BPSM;
      return A_NONE;
    case 20:
      return memcmp (s, "registers per thread", 20) == 0 ? A_REGS : A_NONE;
    case 25:
      return memcmp (s, "est. achieved occupancy %", 25) == 0 ? A_OCC : A_NONE;
    default:
      return A_NONE;
    }
}

/* Token handling */

static void
begin_event (CpChromeReader *self,
             guint64         offset,
             guint           depth)
{
  /* An event with nothing read yet, made once: copied whole, it costs
   * less than clearing and setting fields one by one (a few percent of
   * the reading thread's time, once an event). */
  static Event blank;
  static gsize blank_made;
  Event *e = &self->ev;

  if (g_once_init_enter (&blank_made))
    {
      blank.corr = CP_NONE;
      blank.ext = CP_NONE;
      blank.gpu.bytes = -1;
      blank.gpu.device = -1;
      blank.gpu.stream = -1;
      blank.gpu.grid[0] = blank.gpu.grid[1] = blank.gpu.grid[2] = -1;
      blank.gpu.block[0] = blank.gpu.block[1] = blank.gpu.block[2] = -1;
      blank.gpu.registers = -1;
      blank.gpu.shared_mem = -1;
      blank.gpu.blocks_per_sm = -1;
      blank.gpu.warps_per_sm = -1;
      blank.gpu.occupancy = -1;
      blank.gpu.flops = -1;
      blank.gpu.bytes_accessed = -1;
      blank.size = -1;
      blank.direction = CP_TRANSFER_NONE;
      g_once_init_leave (&blank_made, 1);
    }
  *e = blank;
  e->offset = offset;
  self->in_event = TRUE;
  self->ev_depth = depth;
  self->field = F_NONE;
  self->in_args = FALSE;
  self->in_id2 = FALSE;
  self->dim = 0;
  g_array_set_size (self->counters, 0);
}

static void
event_scalar (CpChromeReader    *self,
              const CpJsonToken *t)
{
  Event *e = &self->ev;
  gint64 v;

  switch (self->field)
    {
    case F_PH:
      if (t->type == CP_JSON_STRING && t->len >= 1)
        e->ph = t->len == 1 ? t->text[0] : '?';
      break;
    case F_NAME:
      if (t->type == CP_JSON_STRING || t->type == CP_JSON_NUMBER)
        e->name = cp_chrome_intern_token (self, t);
      break;
    case F_CAT:
      if (t->type == CP_JSON_STRING || t->type == CP_JSON_NUMBER)
        e->cat = cp_chrome_intern_token (self, t);
      break;
    case F_TS:
      if (token_time (self, t, &v))
        {
          e->ts = v;
          e->have |= HAVE_TS;
        }
      break;
    case F_DUR:
      if (token_time (self, t, &v))
        {
          e->dur = v;
          e->have |= HAVE_DUR;
        }
      break;
    case F_PID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          token_id_key (self, t, &e->pid);
          e->have |= HAVE_PID;
        }
      break;
    case F_TID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          token_id_key (self, t, &e->tid);
          e->have |= HAVE_TID;
        }
      break;
    case F_ID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          e->id_hash = token_hash (self, t);
          e->have |= HAVE_ID;
        }
      break;
    case F_BP:
      if (t->type == CP_JSON_STRING && t->len >= 1)
        e->bp = t->text[0];
      break;
    case F_SF:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          e->sf_hash = cp_chrome_hash_text (t->text, t->len);
          e->have |= HAVE_SF;
        }
      break;
    case F_S:
      if (t->type == CP_JSON_STRING && t->len >= 1)
        e->scope = t->text[0];
      break;
    case F_SCOPE:
      if (t->type == CP_JSON_STRING)
        e->id_hash = mix64 (e->id_hash ^ cp_chrome_hash_text (t->text, t->len));
      break;
    case F_BIND_ID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          e->bind_hash = token_hash (self, t);
          e->have |= HAVE_BIND;
        }
      break;
    case F_FLOW_IN:
      e->flow_in = t->type == CP_JSON_TRUE;
      break;
    case F_FLOW_OUT:
      e->flow_out = t->type == CP_JSON_TRUE;
      break;
    default:
      break;
    }
}

static gboolean
event_token (CpChromeReader    *self,
             const CpJsonToken *t)
{
  guint d = t->depth, D = self->ev_depth;
  Event *e = &self->ev;

  if (d == D)
    {
      switch (t->type)
        {
        case CP_JSON_KEY:
          self->field = (t->flags & CP_JSON_ESCAPED) ? F_NONE : event_key (t->text, t->len);
          e->have |= HAVE_ANY;
          return TRUE;
        case CP_JSON_OBJECT_END:
          self->in_event = FALSE;
          cp_chrome_commit_event (self);
          self->last_event_end = t->offset + 1;
          return TRUE;
        default:
          event_scalar (self, t);
          return TRUE;
        }
    }

  if (d == D + 1)
    {
      switch (t->type)
        {
        case CP_JSON_OBJECT_START:
          if (self->field == F_ARGS)
            {
              self->in_args = TRUE;
              self->arg_field = A_NONE;
              self->args_start = t->offset;
              if (!self->mapped)
                cp_json_tokenizer_capture_begin (self->tok, t->offset, CP_CHROME_MAX_ARGS);
            }
          else if (self->field == F_ID2)
            {
              self->in_id2 = TRUE;
              self->id2_field = 0;
            }
          else
            cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_ARRAY_START:
          cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_OBJECT_END:
          if (self->in_args)
            cp_chrome_end_args (self, t);
          self->in_id2 = FALSE;
          return TRUE;
        case CP_JSON_ARRAY_END:
          return TRUE;
        case CP_JSON_KEY:
          if (self->in_args)
            {
              self->arg_field = (t->flags & CP_JSON_ESCAPED) ? A_NONE : args_key (t->text, t->len);
              if (e->ph == 'C' || e->ph == 0)
                {
                  gsize n;
                  const char *k = cp_json_decode_string (t->text, t->len, t->flags, self->decode, &n);

                  g_string_truncate (self->key_buf, 0);
                  g_string_append_len (self->key_buf, k, n);
                }
            }
          else if (self->in_id2)
            {
              if (t->len == 5 && memcmp (t->text, "local", 5) == 0)
                self->id2_field = 1;
              else if (t->len == 6 && memcmp (t->text, "global", 6) == 0)
                self->id2_field = 2;
              else
                self->id2_field = 0;
            }
          return TRUE;
        default:
          if (self->in_args)
            cp_chrome_args_scalar (self, t);
          else if (self->in_id2 && self->id2_field != 0 &&
                   (t->type == CP_JSON_STRING || t->type == CP_JSON_NUMBER))
            {
              e->id_hash = mix64 (token_hash (self, t) + (guint64) self->id2_field);
              e->have |= HAVE_ID;
              if (self->id2_field == 1)
                e->have |= HAVE_ID2_LOCAL;
              else
                e->have &= ~HAVE_ID2_LOCAL;
            }
          return TRUE;
        }
    }

  if (d == D + 2 && self->in_args)
    {
      switch (t->type)
        {
        case CP_JSON_ARRAY_START:
          if (self->arg_field == A_GRID || self->arg_field == A_BLOCK)
            {
              self->dim = self->arg_field;
              self->dim_i = 0;
            }
          else
            cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_OBJECT_START:
          cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_ARRAY_END:
          self->dim = 0;
          return TRUE;
        case CP_JSON_NUMBER:
          if (self->dim != 0 && self->dim_i < 3)
            {
              gint64 v;

              if (cp_json_parse_int64 (t->text, t->len, &v))
                {
                  gint32 *arr = self->dim == A_GRID ? e->gpu.grid : e->gpu.block;

                  arr[self->dim_i] = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
                  e->have |= HAVE_GPU;
                }
              self->dim_i++;
            }
          return TRUE;
        default:
          return TRUE;
        }
    }

  if (t->type == CP_JSON_OBJECT_START || t->type == CP_JSON_ARRAY_START)
    cp_json_tokenizer_skip (self->tok);
  return TRUE;
}

/* Reading events without tokens */

/* Events that lie wholly in a fed chunk (nearly all of them) are read here,
 * straight from the text, with the tokenizer's lexical rules
 * (cp-json-lex.h), and handed to the same field handlers as tokens would be.
 * Anything this path does not handle (an escaped or repaired key, "id2",
 * a second "args", a syntax error, the end of the chunk) makes it give the
 * event back to the tokenizer, which reads it from its first byte: nothing
 * done here before that point lasts (interned strings aside, which the
 * tokens intern again). */

typedef struct
{
  const guchar *p;
  const guchar *end;
} Cursor;

/* Reads the scalar value at c->p into a token (strings without their
 * quotes). FALSE when it is not one this path handles. */
static inline gboolean
direct_scalar (Cursor      *c,
               CpJsonToken *t)
{
  const guchar *p = c->p, *q;

  if (*p == '"')
    {
      t->flags = 0;
      if (cp_json_lex_string (p + 1, c->end, FALSE, &t->flags, &q) != CP_JSON_LEX_CLOSED ||
          (t->flags & CP_JSON_REPAIRED))
        return FALSE;
      t->type = CP_JSON_STRING;
      t->text = (const char *) p + 1;
      t->len = q - (p + 1);
      c->p = q + 1;
      return TRUE;
    }
  if (*p == '-' || CP_JSON_IS_DIGIT (*p))
    {
      /* Numbers, the common words: read once. */
      q = cp_json_lex_number_end (p, c->end);
      if (q != NULL && q < c->end && !(cp_json_class[*q] & CP_JSON_C_WORD))
        {
          t->type = CP_JSON_NUMBER;
          t->flags = 0;
          t->text = (const char *) p;
          t->len = q - p;
          c->p = q;
          return TRUE;
        }
    }
  q = cp_json_lex_word_end (p, c->end);
  if (q == p || q == c->end ||
      !cp_json_lex_classify_word (p, q - p, &t->type, &t->flags))
    return FALSE;
  t->text = (const char *) p;
  t->len = q - p;
  c->p = q;
  return TRUE;
}

/* Plain numbers read and valued in one pass. Both take the number at
 * c->p only in the form that the general way (direct_scalar(), then
 * cp_json_parse_us_to_ns() or cp_json_parse_int64() on the token) gives a
 * value to on its fast path, and give the same value; for anything else
 * (an exponent, too many digits, a leading zero, fewer than FAST_ROOM
 * bytes left) they return FALSE with the cursor untouched, and the caller
 * goes the general way. */
#define FAST_ROOM 32

/* The 1 to 15 digits at *p (no leading zero) and *p past them. */
static inline gboolean
fast_digits (const guchar **p,
             guint64       *v)
{
  static const guint32 pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
  const guchar *q = *p;
  guint n = cp_json_lex_digit_run8 (q), m;

  if (n == 0 || (n > 1 && *q == '0'))
    return FALSE;
  *v = cp_json_lex_digits_value (q, n);
  if (n == 8)
    {
      m = cp_json_lex_digit_run8 (q + 8);
      if (m == 8)
        return FALSE;
      if (m > 0)
        *v = *v * pow10[m] + cp_json_lex_digits_value (q + 8, m);
      n += m;
    }
  *p = q + n;
  return TRUE;
}

/* The sign and the 1 to 15 digits at c->p, with FAST_ROOM bytes left;
 * *p past them. */
static inline gboolean
fast_signed (const Cursor  *c,
             const guchar **p,
             gboolean      *neg,
             guint64       *v)
{
  const guchar *q = c->p;

  if (G_UNLIKELY (c->end - q < FAST_ROOM))
    return FALSE;
  *neg = *q == '-';
  q += *neg;
  if (!fast_digits (&q, v))
    return FALSE;
  *p = q;
  return TRUE;
}

/* [-]d{1,15} or [-]d{1,15}.d{1,3} in microseconds, then a byte that is
 * not part of a word: the nanoseconds. */
static inline gboolean
direct_fast_time (Cursor *c,
                  gint64 *out)
{
  static const guint16 frac_scale[4] = { 0, 100, 10, 1 };
  const guchar *p;
  gboolean neg;
  guint64 v;

  if (!fast_signed (c, &p, &neg, &v))
    return FALSE;
  v *= 1000;
  if (*p == '.')
    {
      guint m = cp_json_lex_digit_run8 (p + 1);

      if (m == 0 || m > 3)
        return FALSE;
      v += cp_json_lex_digits_value (p + 1, m) * frac_scale[m];
      p += 1 + m;
    }
  if (cp_json_class[*p] & CP_JSON_C_WORD)
    return FALSE;
  *out = neg ? -(gint64) v : (gint64) v;
  c->p = p;
  return TRUE;
}

/* [-]d{1,15} then a byte that is not part of a word: the integer, and the
 * number's token. */
static inline gboolean
direct_fast_int (Cursor      *c,
                 CpJsonToken *t,
                 gint64      *out)
{
  const guchar *p;
  gboolean neg;
  guint64 v;

  if (!fast_signed (c, &p, &neg, &v) || (cp_json_class[*p] & CP_JSON_C_WORD))
    return FALSE;
  t->type = CP_JSON_NUMBER;
  t->flags = 0;
  t->text = (const char *) c->p;
  t->len = p - c->p;
  *out = neg ? -(gint64) v : (gint64) v;
  c->p = p;
  return TRUE;
}

/* Reads a key and its colon; leaves c->p at the value. */
static inline gboolean
direct_key (Cursor      *c,
            CpJsonToken *t)
{
  const guchar *q;

  if (*c->p != '"')
    return FALSE;
  t->flags = 0;
  if (cp_json_lex_string (c->p + 1, c->end, TRUE, &t->flags, &q) != CP_JSON_LEX_CLOSED)
    return FALSE;
  t->type = CP_JSON_KEY;
  t->text = (const char *) c->p + 1;
  t->len = q - (c->p + 1);
  c->p = cp_json_lex_skip_ws (q + 1, c->end);
  if (c->p == c->end || *c->p != ':')
    return FALSE;
  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  return c->p < c->end;
}

/* The key of a member whose bytes at p are lit (quotes included), known
 * without lexing: a key's first quote after the opening one closes it. */
#define KEY_IS(p, lit) (memcmp ((p), (lit), sizeof (lit) - 1) == 0)
#define KEY_MAX 16

/* After a key matched whole (n bytes with its quotes): as direct_key(). */
static inline gboolean
direct_known_key (Cursor      *c,
                  CpJsonToken *t,
                  gsize        n)
{
  t->type = CP_JSON_KEY;
  t->flags = 0;
  t->text = (const char *) c->p + 1;
  t->len = n - 2;
  c->p = cp_json_lex_skip_ws (c->p + n, c->end);
  if (c->p == c->end || *c->p != ':')
    return FALSE;
  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  return c->p < c->end;
}

/* The field of the key at the cursor, and the cursor past it and its
 * colon: matched whole when n (its bytes, quotes included) is not 0, else
 * lexed by direct_key() and told by classify ("none" when escaped). */
static inline gboolean
direct_key_field (Cursor      *c,
                  CpJsonToken *t,
                  int         *field,
                  gsize        n,
                  int          known,
                  int        (*classify) (const char *, gsize),
                  int          none)
{
  if (n != 0)
    {
      *field = known;
      return direct_known_key (c, t, n);
    }
  if (!direct_key (c, t))
    return FALSE;
  *field = (t->flags & CP_JSON_ESCAPED) ? none : classify (t->text, t->len);
  return TRUE;
}

/* direct_key() and event_key() in one, the common keys matched whole. */
static inline gboolean
direct_event_key (Cursor      *c,
                  CpJsonToken *t,
                  int         *field)
{
  const guchar *p = c->p;
  int f = F_NONE;
  gsize n = 0;

  if (G_LIKELY (c->end - p >= KEY_MAX))
    switch (p[1])
      {
      case 'p':
        if (KEY_IS (p, "\"ph\""))
          f = F_PH, n = 4;
        else if (KEY_IS (p, "\"pid\""))
          f = F_PID, n = 5;
        break;
      case 't':
        if (KEY_IS (p, "\"ts\""))
          f = F_TS, n = 4;
        else if (KEY_IS (p, "\"tid\""))
          f = F_TID, n = 5;
        break;
      case 'n':
        if (KEY_IS (p, "\"name\""))
          f = F_NAME, n = 6;
        break;
      case 'c':
        if (KEY_IS (p, "\"cat\""))
          f = F_CAT, n = 5;
        break;
      case 'd':
        if (KEY_IS (p, "\"dur\""))
          f = F_DUR, n = 5;
        break;
      case 'a':
        if (KEY_IS (p, "\"args\""))
          f = F_ARGS, n = 6;
        break;
      case 'i':
        if (KEY_IS (p, "\"id\""))
          f = F_ID, n = 4;
        break;
      default:
        break;
      }
  return direct_key_field (c, t, field, n, f, event_key, F_NONE);
}

/* direct_key() and args_key() in one, the same way. */
static inline gboolean
direct_args_key (Cursor      *c,
                 CpJsonToken *t,
                 int         *field)
{
  const guchar *p = c->p;
  int f = A_NONE;
  gsize n = 0;

  if (G_LIKELY (c->end - p >= KEY_MAX))
    switch (p[1])
      {
      case 'E':
        if (KEY_IS (p, "\"External id\""))
          f = A_EXT, n = 13;
        break;
      case 'c':
        if (KEY_IS (p, "\"correlation\""))
          f = A_CORR, n = 13;
        break;
      case 'd':
        if (KEY_IS (p, "\"device\""))
          f = A_DEVICE, n = 8;
        break;
      case 's':
        if (KEY_IS (p, "\"stream\""))
          f = A_STREAM, n = 8;
        break;
      default:
        break;
      }
  return direct_key_field (c, t, field, n, f, args_key, A_NONE);
}

/* After a member: past the ',' to the next key (TRUE), or at the closing
 * bracket (TRUE, *closed set). */
static inline gboolean
direct_next (Cursor   *c,
             guchar    close,
             gboolean *closed)
{
  c->p = cp_json_lex_skip_ws (c->p, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == close)
    {
      *closed = TRUE;
      return TRUE;
    }
  if (*c->p != ',')
    return FALSE;
  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  *closed = FALSE;
  return c->p < c->end;
}

static inline gboolean
direct_skip (Cursor *c)
{
  c->p = cp_json_lex_skip_container (c->p + 1, c->end);
  return c->p != NULL;
}

/* "grid" and "block": the first three numbers of the array. */
static gboolean
direct_dims (CpChromeReader *self,
             Cursor         *c,
             gint32         *arr)
{
  Event *e = &self->ev;
  guint i = 0;
  gboolean closed = FALSE;

  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == ']')
    {
      c->p++;
      return TRUE;
    }
  while (!closed)
    {
      CpJsonToken t;

      if (*c->p == '{' || *c->p == '[')
        {
          if (!direct_skip (c))
            return FALSE;
        }
      else
        {
          if (!direct_scalar (c, &t))
            return FALSE;
          if (t.type == CP_JSON_NUMBER && i < 3)
            {
              gint64 v;

              if (cp_json_parse_int64 (t.text, t.len, &v))
                {
                  arr[i] = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
                  e->have |= HAVE_GPU;
                }
              i++;
            }
        }
      if (!direct_next (c, ']', &closed))
        return FALSE;
    }
  c->p++;
  return TRUE;
}

static gboolean
direct_args (CpChromeReader *self,
             Cursor         *c)
{
  Event *e = &self->ev;
  gboolean closed = FALSE;

  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == '}')
    {
      c->p++;
      return TRUE;
    }
  while (!closed)
    {
      CpJsonToken t;

      if (!direct_args_key (c, &t, &self->arg_field))
        return FALSE;
      if (e->ph == 'C' || e->ph == 0)
        {
          gsize n;
          const char *k = cp_json_decode_string (t.text, t.len, t.flags, self->decode, &n);

          g_string_truncate (self->key_buf, 0);
          g_string_append_len (self->key_buf, k, n);
        }
      if (*c->p == '[' && (self->arg_field == A_GRID || self->arg_field == A_BLOCK))
        {
          if (!direct_dims (self, c, self->arg_field == A_GRID ? e->gpu.grid : e->gpu.block))
            return FALSE;
        }
      else if (*c->p == '{' || *c->p == '[')
        {
          if (!direct_skip (c))
            return FALSE;
        }
      else
        {
          if (!direct_scalar (c, &t))
            return FALSE;
          cp_chrome_args_scalar (self, &t);
        }
      if (!direct_next (c, '}', &closed))
        return FALSE;
    }
  c->p++;
  return TRUE;
}

static gsize
read_event (CpChromeReader *self,
            const char     *text,
            gsize           len,
            guint64         offset)
{
  Event *e = &self->ev;
  Cursor c = { (const guchar *) text, (const guchar *) text + len };
  const guchar *args_from = NULL, *args_to = NULL;
  gboolean closed = FALSE;

  begin_event (self, offset, self->events_depth + 1);
  c.p = cp_json_lex_skip_ws (c.p + 1, c.end);
  if (c.p == c.end)
    return 0;
  if (*c.p == '}')
    closed = TRUE;
  while (!closed)
    {
      CpJsonToken t;

      if (!direct_event_key (&c, &t, &self->field))
        return 0;
      e->have |= HAVE_ANY;
      if (*c.p == '{')
        {
          if (self->field == F_ARGS)
            {
              if (args_from != NULL)
                return 0;
              args_from = c.p;
              if (!direct_args (self, &c))
                return 0;
              args_to = c.p;
            }
          else if (self->field == F_ID2)
            return 0;
          else if (!direct_skip (&c))
            return 0;
        }
      else if (*c.p == '[')
        {
          if (!direct_skip (&c))
            return 0;
        }
      else
        {
          gint64 v;

          if ((self->field == F_TS || self->field == F_DUR) && direct_fast_time (&c, &v))
            {
              /* As event_scalar() does with the time. */
              if (self->field == F_TS)
                {
                  e->ts = v;
                  e->have |= HAVE_TS;
                }
              else
                {
                  e->dur = v;
                  e->have |= HAVE_DUR;
                }
            }
          else if ((self->field == F_PID || self->field == F_TID) && direct_fast_int (&c, &t, &v))
            {
              /* As token_id_key() does with the number. */
              IdKey *k = self->field == F_PID ? &e->pid : &e->tid;

              k->num = v;
              k->is_str = FALSE;
              k->str = 0;
              e->have |= self->field == F_PID ? HAVE_PID : HAVE_TID;
            }
          else if (!direct_scalar (&c, &t))
            return 0;
          else
            event_scalar (self, &t);
        }
      if (!direct_next (&c, '}', &closed))
        return 0;
    }

  if (args_from != NULL)
    cp_chrome_keep_args (self, offset + (args_from - (const guchar *) text), offset + (args_to - (const guchar *) text),
                         (const char *) args_from, args_to - args_from);
  self->in_event = FALSE;
  cp_chrome_commit_event (self);
  self->last_event_end = offset + (c.p - (const guchar *) text) + 1;
  return c.p - (const guchar *) text + 1;
}

static gsize
direct_event (CpJsonTokenizer *tok,
              const char      *text,
              gsize            len,
              guint64          offset,
              gpointer         data)
{
  CpChromeReader *self = data;
  gsize used;

  if (self->par != NULL)
    {
      const CpChromeOp *ops;
      const CpChromeAhead *a = cp_chrome_par_find (self->par, offset, text, &ops);

      /* Only an event that lies wholly in this chunk, as read_event()
       * would have read it. */
      if (a != NULL && a->used <= len)
        return cp_chrome_replay_event (self, a, ops);
    }
  used = read_event (self, text, len, offset);

  /* Given back: the tokens start the event again. */
  if (used == 0)
    self->in_event = FALSE;
  return used;
}

/* Reading events ahead, on other threads */

/* cp_chrome_pre_event() reads the event at text like read_event() but only
 * records what read_event() would hand to the field handlers, in order;
 * cp_chrome_replay_event() hands it to them on the reading thread. It
 * accepts exactly the events read_event() reads (the same lexical rules,
 * the same give-backs), so a replayed event and a directly read one leave
 * the reader in the same state: interning, lanes and everything else that
 * depends on the order of events stay on one thread. */

void
cp_chrome_ops_grow (CpChromeOps *ops)
{
  ops->cap = MAX (ops->cap * 2, 1024);
  ops->v = g_renew (CpChromeOp, ops->v, ops->cap);
}

static inline gboolean
op_push (CpChromeOps       *ops,
         guint              kind,
         guint              code,
         const CpJsonToken *t)
{
  CpChromeOp *op;

  if (t != NULL && t->len > G_MAXUINT32)
    return FALSE;
  op = cp_chrome_ops_push (ops);
  op->kind = kind;
  op->code = code;
  op->num = 0;
  if (t != NULL)
    {
      op->type = t->type;
      op->flags = t->flags;
      op->len = t->len;
      op->text = t->text;
    }
  else
    {
      op->type = 0;
      op->flags = 0;
      op->len = 0;
      op->text = NULL;
    }
  return TRUE;
}

static gboolean
pre_dims (Cursor      *c,
          CpChromeOps *ops,
          guint   which)
{
  guint i = 0;
  gboolean closed = FALSE;

  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == ']')
    {
      c->p++;
      return TRUE;
    }
  while (!closed)
    {
      CpJsonToken t;

      if (*c->p == '{' || *c->p == '[')
        {
          if (!direct_skip (c))
            return FALSE;
        }
      else
        {
          if (!direct_scalar (c, &t))
            return FALSE;
          if (t.type == CP_JSON_NUMBER && i < 3)
            {
              gint64 v;

              if (cp_json_parse_int64 (t.text, t.len, &v))
                {
                  *cp_chrome_ops_push (ops) = (CpChromeOp) { OP_DIM, which, i, 0, (guint32) (gint32) CLAMP (v, G_MININT32, G_MAXINT32), NULL, 0 };
                }
              i++;
            }
        }
      if (!direct_next (c, ']', &closed))
        return FALSE;
    }
  c->p++;
  return TRUE;
}

/* ph is the event's phase so far (0 when none was read): an argument the
 * reader does not know does nothing outside counters (ph 0 or 'C'), so
 * it gets no operations there. */
static gboolean
pre_args (Cursor      *c,
          CpChromeOps *ops,
          char         ph)
{
  gboolean drop_unknown = ph != 0 && ph != 'C';
  gboolean closed = FALSE;

  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == '}')
    {
      c->p++;
      return TRUE;
    }
  while (!closed)
    {
      CpJsonToken t;
      int field;

      if (!direct_args_key (c, &t, &field))
        return FALSE;
      if (field == A_NONE && drop_unknown)
        {
          if (*c->p == '{' || *c->p == '[' ? !direct_skip (c) : !direct_scalar (c, &t))
            return FALSE;
        }
      else if (!op_push (ops, OP_ARG_KEY, field, &t))
        return FALSE;
      else if (*c->p == '[' && (field == A_GRID || field == A_BLOCK))
        {
          if (!pre_dims (c, ops, field))
            return FALSE;
        }
      else if (*c->p == '{' || *c->p == '[')
        {
          if (!direct_skip (c))
            return FALSE;
        }
      else
        {
          gint64 v;
          double d;
          gboolean is_int = cp_chrome_arg_is_int (field);

          if (is_int && direct_fast_int (c, &t, &v))
            {
              if (!op_push (ops, OP_ARG_INT, field, &t))
                return FALSE;
              ops->v[ops->len - 1].num = v;
            }
          else if (!direct_scalar (c, &t))
            return FALSE;
          else if (is_int && cp_chrome_token_int (NULL, &t, &v))
            {
              if (!op_push (ops, OP_ARG_INT, field, &t))
                return FALSE;
              ops->v[ops->len - 1].num = v;
            }
          else if (cp_chrome_arg_is_double (field) && cp_chrome_token_double (NULL, &t, &d))
            {
              if (!op_push (ops, OP_ARG_DOUBLE, field, &t))
                return FALSE;
              memcpy (&ops->v[ops->len - 1].num, &d, sizeof d);
            }
          else if (!op_push (ops, OP_ARG_SCALAR, 0, &t))
            return FALSE;
        }
      if (!direct_next (c, '}', &closed))
        return FALSE;
    }
  c->p++;
  return TRUE;
}

/* What token_id_key() reads as a number, without interning. */
static gboolean
pre_id_num (const CpJsonToken *t,
            gint64            *v)
{
  if (t->type == CP_JSON_NUMBER)
    return cp_json_parse_int64 (t->text, t->len, v);
  if (t->type == CP_JSON_STRING && t->len > 0 && t->len < 20 &&
      (g_ascii_isdigit (t->text[0]) || t->text[0] == '-') &&
      cp_json_parse_int64 (t->text, t->len, v))
    {
      for (gsize i = 1; i < t->len; i++)
        if (!g_ascii_isdigit (t->text[i]))
          return FALSE;
      return TRUE;
    }
  return FALSE;
}

gboolean
cp_chrome_pre_event (const char    *text,
                     gsize          len,
                     CpChromeOps   *ops,
                     CpChromeAhead *out)
{
  Cursor c = { (const guchar *) text, (const guchar *) text + len };
  const guchar *args_from = NULL, *args_to = NULL;
  gboolean closed = FALSE;
  char ph = 0;

  out->text = text;
  out->first = ops->len;
  out->args_from = out->args_to = 0;
  c.p = cp_json_lex_skip_ws (c.p + 1, c.end);
  if (c.p == c.end)
    return FALSE;
  if (*c.p == '}')
    closed = TRUE;
  while (!closed)
    {
      CpJsonToken t;
      int field;

      if (!direct_event_key (&c, &t, &field))
        return FALSE;
      op_push (ops, OP_FIELD, field, NULL);
      if (*c.p == '{')
        {
          if (field == F_ARGS)
            {
              if (args_from != NULL)
                return FALSE;
              args_from = c.p;
              if (!pre_args (&c, ops, ph))
                return FALSE;
              args_to = c.p;
            }
          else if (field == F_ID2)
            return FALSE;
          else if (!direct_skip (&c))
            return FALSE;
        }
      else if (*c.p == '[')
        {
          if (!direct_skip (&c))
            return FALSE;
        }
      else
        {
          gint64 v;

          CpChromeOp *op = &ops->v[ops->len - 1];

          /* The key's OP_FIELD becomes the value's operation, which sets
           * the field first. */
          if ((field == F_TS || field == F_DUR) && direct_fast_time (&c, &v))
            {
              op->kind = OP_TIME;
              op->num = v;
            }
          else if ((field == F_PID || field == F_TID) && direct_fast_int (&c, &t, &v))
            {
              op->kind = OP_ID_NUM;
              op->num = v;
            }
          else if (!direct_scalar (&c, &t) || t.len > G_MAXUINT32)
            return FALSE;
          else if (field == F_TS || field == F_DUR)
            {
              /* Only the field when it is not a time. */
              if (token_time (NULL, &t, &v))
                {
                  op->kind = OP_TIME;
                  op->num = v;
                }
            }
          else if ((field == F_PID || field == F_TID) && pre_id_num (&t, &v))
            {
              op->kind = OP_ID_NUM;
              op->num = v;
            }
          else
            {
              /* As event_scalar() sets the phase. */
              if (field == F_PH && t.type == CP_JSON_STRING && t.len >= 1)
                ph = t.len == 1 ? t.text[0] : '?';
              op->kind = OP_SCALAR;
              op->type = t.type;
              op->flags = t.flags;
              op->len = t.len;
              op->text = t.text;
            }
        }
      if (!direct_next (&c, '}', &closed))
        return FALSE;
    }
  if ((gsize) (c.p - (const guchar *) text) + 1 > G_MAXUINT32)
    return FALSE;
  out->used = c.p - (const guchar *) text + 1;
  if (args_from != NULL)
    {
      out->args_from = args_from - (const guchar *) text;
      out->args_to = args_to - (const guchar *) text;
    }
  out->n_ops = ops->len - out->first;
  return TRUE;
}

gsize
cp_chrome_replay_event (CpChromeReader      *self,
                        const CpChromeAhead *a,
                        const CpChromeOp    *ops)
{
  Event *e = &self->ev;

  begin_event (self, a->offset, self->events_depth + 1);
  for (guint i = 0; i < a->n_ops; i++)
    {
      const CpChromeOp *op = &ops[i];
      CpJsonToken t;

      t.type = op->type;
      t.flags = op->flags;
      t.text = op->text;
      t.len = op->len;
      t.depth = 0;
      t.offset = 0;
      switch (op->kind)
        {
        case OP_FIELD:
          self->field = op->code;
          e->have |= HAVE_ANY;
          break;
        case OP_SCALAR:
          self->field = op->code;
          e->have |= HAVE_ANY;
          event_scalar (self, &t);
          break;
        case OP_ARG_KEY:
          self->arg_field = op->code;
          if (e->ph == 'C' || e->ph == 0)
            {
              gsize n;
              const char *k = cp_json_decode_string (t.text, t.len, t.flags, self->decode, &n);

              g_string_truncate (self->key_buf, 0);
              g_string_append_len (self->key_buf, k, n);
            }
          break;
        case OP_ARG_SCALAR:
          cp_chrome_args_scalar (self, &t);
          break;
        case OP_DIM:
          {
            gint32 *arr = op->code == A_GRID ? e->gpu.grid : e->gpu.block;

            arr[op->type] = (gint32) op->len;
            e->have |= HAVE_GPU;
          }
          break;
        case OP_TIME:
          /* As event_scalar() does with the token. */
          self->field = op->code;
          e->have |= HAVE_ANY;
          if (op->code == F_TS)
            {
              e->ts = op->num;
              e->have |= HAVE_TS;
            }
          else
            {
              e->dur = op->num;
              e->have |= HAVE_DUR;
            }
          break;
        case OP_ID_NUM:
          {
            IdKey *k = op->code == F_PID ? &e->pid : &e->tid;

            self->field = op->code;
            e->have |= HAVE_ANY;
            k->num = op->num;
            k->is_str = FALSE;
            k->str = 0;
            e->have |= op->code == F_PID ? HAVE_PID : HAVE_TID;
          }
          break;
        case OP_ARG_INT:
        case OP_ARG_DOUBLE:
          /* Counters read every numeric argument: the whole path. */
          if (e->ph == 'C' || e->ph == 0)
            {
              cp_chrome_args_scalar (self, &t);
              break;
            }
          /* As cp_chrome_args_scalar() does with the value. */
          if (op->kind == OP_ARG_INT)
            cp_chrome_arg_int (self, op->code, op->num);
          else
            {
              double d;

              memcpy (&d, &op->num, sizeof d);
              cp_chrome_arg_double (self, op->code, d);
            }
          break;
        default:
          g_assert_not_reached ();
        }
    }
  if (a->args_to != 0)
    cp_chrome_keep_args (self, a->offset + a->args_from, a->offset + a->args_to,
                         a->text + a->args_from, a->args_to - a->args_from);
  self->in_event = FALSE;
  cp_chrome_commit_event (self);
  self->last_event_end = a->offset + a->used;
  return a->used;
}

static gboolean
outer_token (CpChromeReader    *self,
             const CpJsonToken *t)
{
  guint d = t->depth;

  if (self->form == FORM_NONE)
    {
      if (t->type == CP_JSON_OBJECT_START)
        self->form = FORM_OBJECT;
      else if (t->type == CP_JSON_ARRAY_START)
        {
          self->form = FORM_ARRAY;
          self->in_events = TRUE;
          self->events_depth = 1;
          cp_json_tokenizer_set_object_func (self->tok, 2, direct_event);
        }
      else
        {
          self->form = FORM_OTHER;
          return FALSE;
        }
      return TRUE;
    }

  if (self->in_events)
    {
      if (d == self->events_depth + 1)
        {
          switch (t->type)
            {
            case CP_JSON_OBJECT_START:
              begin_event (self, t->offset, t->depth);
              return TRUE;
            case CP_JSON_ARRAY_START:
              if (self->non_objects++ == 0)
                self->first_non_object = '[';
              cp_json_tokenizer_skip (self->tok);
              return TRUE;
            case CP_JSON_ARRAY_END:
            case CP_JSON_OBJECT_END:
              return TRUE;
            default:
              if (self->non_objects++ == 0)
                self->first_non_object = t->type == CP_JSON_STRING ? '"' : '0';
              return TRUE;
            }
        }
      if (d == self->events_depth && t->type >= CP_JSON_STRING)
        {
          /* A plain value among the events (its depth is the array's own,
           * where containers count themselves one deeper). */
          if (self->non_objects++ == 0)
            self->first_non_object = t->type == CP_JSON_STRING ? '"' : '0';
          return TRUE;
        }
      if (d == self->events_depth && t->type == CP_JSON_ARRAY_END)
        {
          self->in_events = FALSE;
          cp_json_tokenizer_set_object_func (self->tok, 0, NULL);
          if (self->form == FORM_ARRAY)
            self->root_done = TRUE;
        }
      return TRUE;
    }

  if (self->form != FORM_OBJECT)
    return TRUE;

  if (d == 1)
    {
      switch (t->type)
        {
        case CP_JSON_KEY:
          {
            gsize n;
            const char *k = cp_json_decode_string (t->text, t->len, t->flags, self->decode, &n);

            g_string_truncate (self->top_key, 0);
            g_string_append_len (self->top_key, k, n);
            if (self->top_keys->len < 12)
              g_ptr_array_add (self->top_keys, g_strndup (k, n));
            return TRUE;
          }
        case CP_JSON_OBJECT_END:
          self->root_done = TRUE;
          return TRUE;
        case CP_JSON_STRING:
          {
            g_autofree char *quoted = g_strdup_printf ("\"%.*s\"", (int) t->len, t->text);

            cp_chrome_top_value (self, quoted, strlen (quoted));
            return TRUE;
          }
        case CP_JSON_NUMBER:
          if (strcmp (self->top_key->str, "baseTimeNanoseconds") == 0)
            {
              gint64 v;

              if (cp_json_parse_int64 (t->text, t->len, &v))
                {
                  self->base = v;
                  self->has_base = TRUE;
                }
            }
          cp_chrome_top_value (self, t->text, t->len);
          return TRUE;
        default:
          cp_chrome_top_value (self, t->text, t->len);
          return TRUE;
        }
    }

  if (d == 2)
    {
      switch (t->type)
        {
        case CP_JSON_ARRAY_START:
          if (strcmp (self->top_key->str, "traceEvents") == 0)
            {
              self->saw_trace_events = TRUE;
              self->in_events = TRUE;
              self->events_depth = 2;
              cp_json_tokenizer_set_object_func (self->tok, 3, direct_event);
              return TRUE;
            }
          G_GNUC_FALLTHROUGH;
        case CP_JSON_OBJECT_START:
          if (strcmp (self->top_key->str, "traceEvents") == 0)
            cp_chrome_warn_once (self, W_BAD_EVENTS, t->offset, _("“traceEvents” is not an array and was ignored"));
          cp_json_tokenizer_capture_begin (self->tok, t->offset, CP_CHROME_MAX_METADATA);
          self->metadata_capture = TRUE;
          cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_ARRAY_END:
        case CP_JSON_OBJECT_END:
          if (self->metadata_capture)
            {
              gsize n;
              const char *text = cp_json_tokenizer_capture_end (self->tok, t->offset + 1, &n);

              self->metadata_capture = FALSE;
              cp_chrome_top_value (self, text, n);
            }
          return TRUE;
        default:
          return TRUE;
        }
    }
  return TRUE;
}

gboolean
cp_chrome_on_token (CpJsonTokenizer   *tok,
                    const CpJsonToken *t,
                    gpointer           data)
{
  CpChromeReader *self = data;

  if (G_UNLIKELY (t->flags & CP_JSON_REPAIRED))
    cp_chrome_warn_once (self, W_REPAIRED, t->offset,
                         _("Strings with unescaped quotes (written by old PyTorch versions) were read whole"));
  if (G_LIKELY (self->in_event))
    return event_token (self, t);
  return outer_token (self, t);
}
