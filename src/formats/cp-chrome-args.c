/* cp-chrome-args.c: event arguments: their text and the keys analysis reads
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

/* Arguments */

guint32
cp_chrome_add_args_text (CpChromeReader *self,
                         const char     *text,
                         gsize           len)
{
  if (len == 0)
    return 0;
  return cp_trace_builder_add_args (self->b, CP_ARGS_JSON, text, len);
}

guint32
cp_chrome_event_args (CpChromeReader *self,
                      const Event    *e)
{
  if (!(e->have & HAVE_ARGS))
    return 0;
  if (self->mapped)
    return cp_trace_builder_add_args_ref (self->b, CP_ARGS_JSON, e->args_off, e->args_len);
  return cp_chrome_add_args_text (self, self->args_buf->str, self->args_buf->len);
}

const char *
cp_chrome_args_text (CpChromeReader *self,
                     const Event    *e,
                     gsize          *len)
{
  if (!(e->have & HAVE_ARGS))
    {
      *len = 0;
      return NULL;
    }
  if (self->mapped)
    {
      *len = e->args_len;
      return (const char *) g_bytes_get_data (self->mapped, NULL) + e->args_off;
    }
  *len = self->args_buf->len;
  return self->args_buf->str;
}

/* What the integer value v of an argument sets, the argument's field
 * being one of those cp_chrome_arg_is_int() names. */
void
cp_chrome_arg_int (CpChromeReader *self,
                   int             field,
                   gint64          v)
{
  Event *e = &self->ev;

  switch (field)
    {
    case A_CORR:
      e->corr = v;
      break;
    case A_EXT:
      e->ext = v;
      break;
    case A_DEVICE:
      if (v >= G_MININT32 && v <= G_MAXINT32)
        {
          e->gpu.device = (gint32) v;
          e->have |= HAVE_GPU;
        }
      break;
    case A_STREAM:
      if (v >= G_MININT32 && v <= G_MAXINT32)
        {
          e->gpu.stream = (gint32) v;
          e->have |= HAVE_GPU;
        }
      break;
    case A_BYTES:
      e->gpu.bytes = v;
      e->have |= HAVE_GPU;
      break;
    case A_SIZE:
      e->size = v;
      break;
    case A_REGS:
      e->gpu.registers = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
      e->have |= HAVE_GPU;
      break;
    case A_SHMEM:
      e->gpu.shared_mem = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
      e->have |= HAVE_GPU;
      break;
    default:
      g_assert_not_reached ();
    }
}

/* What the value d of an argument sets, the argument's field being one of
 * those cp_chrome_arg_is_double() names. */
void
cp_chrome_arg_double (CpChromeReader *self,
                      int             field,
                      double          d)
{
  Event *e = &self->ev;

  switch (field)
    {
    case A_BPSM:
      e->gpu.blocks_per_sm = (float) d;
      break;
    case A_WPSM:
      e->gpu.warps_per_sm = (float) d;
      break;
    case A_OCC:
      e->gpu.occupancy = (float) d;
      break;
    default:
      g_assert_not_reached ();
    }
  e->have |= HAVE_GPU;
}

void
cp_chrome_args_scalar (CpChromeReader    *self,
                       const CpJsonToken *t)
{
  Event *e = &self->ev;
  gint64 v;
  double d;

  if (cp_chrome_arg_is_int (self->arg_field))
    {
      if (cp_chrome_token_int (self, t, &v))
        cp_chrome_arg_int (self, self->arg_field, v);
    }
  else if (cp_chrome_arg_is_double (self->arg_field))
    {
      if (cp_chrome_token_double (self, t, &d))
        cp_chrome_arg_double (self, self->arg_field, d);
    }
  else
    switch (self->arg_field)
      {
      case A_DIRECTION:
        if (t->type == CP_JSON_STRING)
          {
            if (t->len == 14 && memcmp (t->text, "HOST_TO_DEVICE", 14) == 0)
              e->direction = CP_TRANSFER_HTOD;
            else if (t->len == 14 && memcmp (t->text, "DEVICE_TO_HOST", 14) == 0)
              e->direction = CP_TRANSFER_DTOH;
            else if (t->len == 16 && memcmp (t->text, "DEVICE_TO_DEVICE", 16) == 0)
              e->direction = CP_TRANSFER_DTOD;
            else
              e->direction = CP_TRANSFER_OTHER;
          }
        break;
      case A_NAME:
        if ((e->ph == 'M' || e->ph == 0) && t->type == CP_JSON_STRING)
          e->m_name = cp_chrome_intern_token (self, t);
        break;
      case A_LABELS:
        if ((e->ph == 'M' || e->ph == 0) && t->type == CP_JSON_STRING)
          e->m_labels = cp_chrome_intern_token (self, t);
        break;
      case A_SORT:
        if ((e->ph == 'M' || e->ph == 0) && cp_chrome_token_int (self, t, &v))
          {
            e->m_sort = v;
            e->have |= HAVE_MSORT;
          }
        break;
      default:
        break;
      }

  /* Counter series: every numeric argument. */
  if ((e->ph == 'C' || e->ph == 0) && (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING) &&
      cp_chrome_token_double (self, t, &d))
    {
      CounterPair cp;

      cp.key = cp_trace_builder_intern (self->b, self->key_buf->str, self->key_buf->len);
      cp.value = d;
      g_array_append_val (self->counters, cp);
    }
}

/* Keeps the arguments object [start, end) of the event: as a range of the
 * mapped input, or for other input as its text (NULL when it was longer than
 * could be kept). */
void
cp_chrome_keep_args (CpChromeReader *self,
                     guint64         start,
                     guint64         end,
                     const char     *text,
                     gsize           len)
{
  Event *e = &self->ev;

  if (end - start <= 2)
    return;   /* {} holds nothing worth keeping. */
  if (self->mapped)
    {
      if (end - start > CP_CHROME_MAX_ARGS)
        goto too_big;
      e->args_off = start;
      e->args_len = end - start;
      e->have |= HAVE_ARGS;
    }
  else
    {
      if (text == NULL || len > CP_CHROME_MAX_ARGS)
        goto too_big;
      g_string_truncate (self->args_buf, 0);
      g_string_append_len (self->args_buf, text, len);
      e->have |= HAVE_ARGS;
    }
  return;

too_big:
  self->big_args++;
  cp_chrome_warn_once (self, W_BIG_ARGS, start,
                       _("Event arguments larger than 16 MiB were not kept"));
}

void
cp_chrome_end_args (CpChromeReader    *self,
                    const CpJsonToken *t)
{
  guint64 end = t->offset + 1;
  const char *text = NULL;
  gsize n = 0;

  self->in_args = FALSE;
  if (!self->mapped)
    text = cp_json_tokenizer_capture_end (self->tok, end, &n);
  cp_chrome_keep_args (self, self->args_start, end, text, n);
}
