/* cp-report-figures.c: the key figures section
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "cp-painter.h"
#include "cp-report.h"
#include "cp-time-format.h"
#include "cp-report-private.h"

/* Key figures ------------------------------------------------------------------- */

typedef struct
{
  char *label;
  char *value;
  char *sub;
} Tile;

static void
tile_clear (gpointer data)
{
  Tile *t = data;

  g_free (t->label);
  g_free (t->value);
  g_free (t->sub);
}

double
cp_report_section_figures (Ctx    *ctx,
                           double  y)
{
  CpAnalysis *a = ctx->analysis;
  g_autoptr(GArray) tiles = g_array_new (FALSE, TRUE, sizeof (Tile));
  CpTimeSummary step;
  const CpDeviceStats *dev;
  guint n_dev = 0, n_steps = 0;
  double tw, th = 0;
  Tile t;

  g_array_set_clear_func (tiles, tile_clear);
  cp_analysis_get_step_summary (a, &step);
  cp_analysis_get_steps (a, &n_steps);
  dev = cp_analysis_get_devices (a, &n_dev);

  /* Step time. */
  t.label = g_strdup (n_steps > 0 ? _("Step time") : _("Capture window"));
  t.value = cp_time_format_duration (step.mean);
  if (n_steps > 1)
    {
      g_autofree char *mn = cp_time_format_duration (step.min);
      g_autofree char *mx = cp_time_format_duration (step.max);

      t.sub = g_strdup_printf (_("mean of %u steps; %s to %s"), n_steps, mn, mx);
    }
  else if (n_steps == 1)
    t.sub = g_strdup (_("one step"));
  else
    t.sub = g_strdup (_("no steps marked: the whole capture is one window"));
  g_array_append_val (tiles, t);

  /* GPU utilisation and idle split. */
  if (n_dev > 0)
    {
      double util = 0, lowest = G_MAXDOUBLE;
      gint64 idle = 0, host = 0, kern = 0, other = 0;
      gboolean tpu = cp_analysis_devices_are_tpu (a);
      gint64 window = cp_analysis_get_window_time (a);
      gint lowest_dev = 0;
      guint n_busy = 0, only = 0;

      /* Utilisation over the devices that run kernels: a device that only
       * copies is not idle by compute (its copies are in the breakdown). */
      for (guint i = 0; i < n_dev; i++)
        if (dev[i].n_kernels > 0)
          n_busy++;
      for (guint i = 0; i < n_dev; i++)
        {
          if (n_busy == 0 || dev[i].n_kernels > 0)
            {
              util += dev[i].utilization;
              only = i;
              if (dev[i].utilization < lowest)
                {
                  lowest = dev[i].utilization;
                  lowest_dev = dev[i].device;
                }
            }
          idle += dev[i].idle;
          host += dev[i].idle_host_wait;
          kern += dev[i].idle_kernel_wait;
          other += dev[i].idle_other;
        }
      if (n_busy == 0)
        n_busy = n_dev;
      util /= n_busy;
      t.label = g_strdup (tpu ? _("TPU utilisation") : _("GPU utilisation"));
      t.value = cp_report_format_percent (100 * util);
      if (n_busy == 1)
        {
          g_autofree char *busy = cp_time_format_duration (dev[only].window_busy / MAX (n_steps, 1));

          if (tpu)
            t.sub = n_steps > 0 ? g_strdup_printf (_("TPU %d runs XLA ops %s per step"), dev[only].device, busy)
                                : g_strdup_printf (_("TPU %d runs XLA ops %s"), dev[only].device, busy);
          else
            t.sub = n_steps > 0 ? g_strdup_printf (_("GPU %d runs kernels %s per step"), dev[only].device, busy)
                                : g_strdup_printf (_("GPU %d runs kernels %s"), dev[only].device, busy);
        }
      else
        {
          g_autofree char *lo = cp_report_format_percent (100 * lowest);

          t.sub = tpu ? g_strdup_printf (_("mean of %u TPUs; lowest TPU %d at %s"), n_busy, lowest_dev, lo)
                      : g_strdup_printf (_("mean of %u GPUs; lowest GPU %d at %s"), n_busy, lowest_dev, lo);
        }
      g_array_append_val (tiles, t);

      t.label = g_strdup (tpu ? _("TPU idle") : _("GPU idle"));
      t.value = cp_report_format_percent (window > 0 ? 100.0 * idle / ((double) window * n_dev) : NAN);
      if (idle > 0)
        {
          g_autofree char *h = cp_report_format_percent (100.0 * host / idle);
          g_autofree char *k = cp_report_format_percent (100.0 * kern / idle);
          g_autofree char *o = cp_report_format_percent (100.0 * other / idle);

          t.sub = g_strdup_printf (_("of it: waiting for the host %s · between kernels %s · other %s"), h, k, o);
        }
      else
        t.sub = g_strdup (_("never idle inside the steps"));
      g_array_append_val (tiles, t);
    }
  else
    {
      t.label = g_strdup (_("GPU utilisation"));
      t.value = g_strdup ("—");
      t.sub = g_strdup (_("no GPU kernels in the capture"));
      g_array_append_val (tiles, t);
    }

  /* The largest share of step time besides device compute and idle. */
  {
    CpTimeCategory best = CP_TIME_N_CATEGORIES;
    CpTimeSummary best_s = { 0 };

    for (guint c = 0; c < CP_TIME_N_CATEGORIES; c++)
      {
        CpTimeSummary s;

        if (c == CP_TIME_COMPUTE_16 || c == CP_TIME_COMPUTE_32 || c == CP_TIME_IDLE)
          continue;
        cp_analysis_get_time_summary (a, c, &s);
        if (s.total > best_s.total)
          {
            best = c;
            best_s = s;
          }
      }
    if (best != CP_TIME_N_CATEGORIES)
      {
        g_autofree char *mean = cp_time_format_duration (best_s.mean);

        t.label = g_strdup (_("Largest share besides compute"));
        t.value = cp_report_format_percent (best_s.percent);
        t.sub = g_strdup_printf (n_steps > 0 ? _("%s, %s per step") : _("%s, %s"),
                                 cp_time_category_get_label (best), mean);
        g_array_append_val (tiles, t);
      }
  }

  tw = (ctx->inner - GAP * (tiles->len - 1)) / tiles->len;
  /* Measure, then draw the cards at the tallest height. */
  for (int pass = 0; pass < 2; pass++)
    {
      gboolean draw = ctx->draw;

      if (pass == 0)
        ctx->draw = FALSE;
      for (guint i = 0; i < tiles->len; i++)
        {
          Tile *ti = &g_array_index (tiles, Tile, i);
          double x = ctx->x0 + i * (tw + GAP);
          double yy = y + CARD_PAD;

          if (pass == 1)
            cp_report_card (ctx, x, y, tw, th, 0);
          yy += cp_report_text_full (ctx, ti->label, FALSE, ctx->f_small_bold, x + CARD_PAD, yy, tw - 2 * CARD_PAD,
                                     ctx->c->dim, PANGO_ALIGN_LEFT, 1, NULL) + 2;
          yy += cp_report_text_full (ctx, ti->value, FALSE, ctx->f_value, x + CARD_PAD, yy, tw - 2 * CARD_PAD,
                                     ctx->c->text, PANGO_ALIGN_LEFT, 1, NULL) + 2;
          yy += cp_report_text_full (ctx, ti->sub, FALSE, ctx->f_small, x + CARD_PAD, yy, tw - 2 * CARD_PAD,
                                     ctx->c->dim, PANGO_ALIGN_LEFT, 3, NULL);
          if (pass == 0)
            th = MAX (th, yy + CARD_PAD - y);
        }
      ctx->draw = draw;
    }
  return y + th + 28;
}
