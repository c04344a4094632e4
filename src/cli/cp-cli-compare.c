/* cp-cli-compare.c: `chokepoint compare A B [--json] [--format text|markdown|json]
 *                   [--by-op] [--fail-on-regression=PCT] [--metric NAME:PCT]...`
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cp-compare.h"
#include "cp-cli.h"
#include "formats/cp-loader.h"

/* How many rows of each table the text and Markdown show. */
#define TOP_ITEMS 10

typedef enum
{
  FORMAT_TEXT,
  FORMAT_MARKDOWN,
  FORMAT_JSON,
} Format;

/* text right-aligned in width characters (printf counts bytes, and the
 * figures hold "−", "µ" and "×"). */
static char *
pad (const char *text,
     guint       width)
{
  glong len = g_utf8_strlen (text, -1);

  if (len >= (glong) width)
    return g_strdup (text);
  return g_strdup_printf ("%*s%s", (int) (width - len), "", text);
}

/* The same, left-aligned. */
static char *
pad_right (const char *text,
           guint       width)
{
  glong len = g_utf8_strlen (text, -1);

  if (len >= (glong) width)
    return g_strdup (text);
  return g_strdup_printf ("%s%*s", text, (int) (width - len), "");
}

/* "+4.1 ms", "−830 µs", "0 ns". */
static char *
format_delta (gint64 ns)
{
  g_autofree char *v = cp_format_ns (ns);

  return ns > 0 ? g_strconcat ("+", v, NULL) : g_strdup (v);
}

/* "+12.3%", "−4.0%", "—" when not defined. */
static char *
format_percent_change (gint64 a,
                       gint64 b)
{
  double p;

  if (a == 0)
    return g_strdup ("—");
  p = 100.0 * (b - a) / a;
  if (p < 0)
    return g_strdup_printf ("−%.1f%%", -p);
  return g_strdup_printf ("+%.1f%%", p);
}

static char *
format_ratio (double ratio)
{
  return isfinite (ratio) ? g_strdup_printf ("%.2f×", ratio) : g_strdup ("—");
}

static char *
describe_side (CpAnalysis *a)
{
  CpTrace *trace = cp_analysis_get_trace (a);
  const CpLoadReport *r = cp_trace_get_load_report (trace);
  g_autofree char *path = cp_trace_get_file (trace) ? g_file_get_parse_name (cp_trace_get_file (trace)) : NULL;
  guint n_steps;
  const char *source = cp_step_source_get_label (cp_analysis_get_step_source (a));

  CpWindowInfo info;
  g_autofree char *side = NULL;

  cp_analysis_get_steps (a, &n_steps);
  cp_analysis_get_window_info (a, &info);
  if (source == NULL)
    return g_strdup_printf (_("%s (%s), no steps"), path ? path : cp_trace_get_title (trace),
                            r && r->format ? r->format : "?");
  if (info.device_span)
    return g_strdup_printf (_("%s (%s), the span where the devices work"), path ? path : cp_trace_get_title (trace),
                            r && r->format ? r->format : "?");
  side = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (%s), %u steady step (%s)", "%s (%s), %u steady steps (%s)", n_steps),
                          path ? path : cp_trace_get_title (trace), r && r->format ? r->format : "?", n_steps, source);
  if (info.n_warmup == 0)
    return g_steal_pointer (&side);
  /* Translators: after a side's steps: "…, 5 steady steps (ProfilerStep#N), 1 warm-up step left out". */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %u warm-up step left out", "%s, %u warm-up steps left out",
                                       info.n_warmup),
                          side, info.n_warmup);
}

/* "Confidence A: medium (2 steps)". */
static void
print_confidence (const char *label,
                  CpAnalysis *a)
{
  const CpConfidenceReason *reasons;
  guint n;
  CpConfidenceLevel level = cp_analysis_get_confidence (a, &reasons, &n);
  g_autoptr(GString) why = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (why, "%s%s", i ? "; " : "", reasons[i].text);
  if (n == 0)
    /* Translators: "Confidence A: high". */
    g_print (_("Confidence %s: %s\n"), label, cp_confidence_level_to_string (level));
  else
    g_print (_("Confidence %s: %s (%s)\n"), label, cp_confidence_level_to_string (level), why->str);
}

/* "median 159 ms → 118 ms" beside the mean, when both sides have steps. */
static char *
format_medians (CpAnalysis *a,
                CpAnalysis *b)
{
  CpWindowInfo ia, ib;
  g_autofree char *ma = NULL, *mb = NULL;

  cp_analysis_get_window_info (a, &ia);
  cp_analysis_get_window_info (b, &ib);
  if (ia.step_median <= 0 || ib.step_median <= 0)
    return NULL;
  ma = cp_format_ns (ia.step_median);
  mb = cp_format_ns (ib.step_median);
  return g_strdup_printf ("%s → %s", ma, mb);
}

static const char *
side_mark (CpCompareSide side)
{
  switch (side)
    {
    case CP_COMPARE_ONLY_A: return _("only in A");
    case CP_COMPARE_ONLY_B: return _("only in B");
    case CP_COMPARE_BOTH:
    default: return "";
    }
}

static const char *
change_label (CpCompareFindingChange change)
{
  switch (change)
    {
    case CP_COMPARE_FINDING_APPEARED: return _("appeared");
    case CP_COMPARE_FINDING_DISAPPEARED: return _("disappeared");
    case CP_COMPARE_FINDING_WORSE: return _("worse");
    case CP_COMPARE_FINDING_BETTER: return _("better");
    case CP_COMPARE_FINDING_SAME:
    default: return _("unchanged");
    }
}

static char *
finding_severities (const CpCompareFinding *f)
{
  const char *a = f->a ? cp_severity_get_label (cp_finding_get_severity (f->a)) : "—";
  const char *b = f->b ? cp_severity_get_label (cp_finding_get_severity (f->b)) : "—";

  return g_strdup_printf ("%s → %s", a, b);
}

static const char *
item_name (const CpCompareItem *it)
{
  return it->name_b ? it->name_b : it->name_a;
}

static void
print_items_text (const char          *title,
                  const CpCompareItem *items,
                  guint                n)
{
  if (n == 0)
    return;
  g_print ("\n%s\n", title);
  for (guint i = 0; i < MIN (n, TOP_ITEMS); i++)
    {
      g_autofree char *fa = cp_format_ns (items[i].a.per_step);
      g_autofree char *fb = cp_format_ns (items[i].b.per_step);
      g_autofree char *fd = format_delta (items[i].delta);
      g_autofree char *fr = format_ratio (items[i].ratio);
      g_autofree char *pa = pad (fa, 10), *pb = pad (fb, 10), *d = pad (fd, 10), *r = pad (fr, 7);
      g_autofree char *name = cp_cli_short_name (item_name (&items[i]));

      g_print ("  %s %s %s %s %8" G_GINT64_FORMAT "× %8" G_GINT64_FORMAT "×  %s%s%s%s\n",
               pa, pb, d, r, items[i].a.count, items[i].b.count, name,
               items[i].side != CP_COMPARE_BOTH ? " (" : "", side_mark (items[i].side),
               items[i].side != CP_COMPARE_BOTH ? ")" : "");
    }
  if (n > TOP_ITEMS)
    g_print (_("  … %u more\n"), n - TOP_ITEMS);
}

static void
print_text (CpComparison *c)
{
  CpAnalysis *a = cp_comparison_get_a (c), *b = cp_comparison_get_b (c);
  const char * const *notes = cp_comparison_get_notes (c);
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  const CpCompareItem *items;
  const CpCompareDevice *devs;
  const CpCompareFinding *fs;
  const CpStepStats *steps_a, *steps_b;
  guint comparable = cp_comparison_get_comparable (c);
  guint n, n_a, n_b;
  gint64 mean_a, mean_b, delta;
  double percent, match_a, match_b;
  g_autofree char *da = describe_side (a);
  g_autofree char *db = describe_side (b);
  g_autofree char *ma = NULL, *mb = NULL, *md = NULL, *mp = NULL;

  cp_comparison_get_step_time (c, &mean_a, &mean_b, &delta, &percent);
  ma = cp_format_ns (mean_a);
  mb = cp_format_ns (mean_b);
  md = format_delta (delta);
  mp = format_percent_change (mean_a, mean_b);

  g_print (_("A:        %s\n"), da);
  g_print (_("B:        %s\n"), db);
  g_print (_("Verdict A: %s\n"), cp_analysis_get_verdict (a)->text);
  g_print (_("Verdict B: %s\n"), cp_analysis_get_verdict (b)->text);
  print_confidence ("A", a);
  print_confidence ("B", b);
  if (!cp_analysis_has_steps (a) && !cp_analysis_has_steps (b))
    /* Translators: neither capture has steps: the whole capture is the window. */
    g_print (_("\nCapture time: %s → %s (%s, %s), no steps on either side\n"), ma, mb, md, mp);
  else
    {
      g_autofree char *medians = format_medians (a, b);

      /* Translators: "Step time: 130 ms → 86 ms (−44 ms, −33.6%), mean per steady step". */
      g_print (_("\nStep time: %s → %s (%s, %s), mean per steady step\n"), ma, mb, md, mp);
      if (medians != NULL)
        /* Translators: "           median 129 ms → 85 ms". */
        g_print (_("           median %s\n"), medians);
    }
  for (guint i = 0; notes[i] != NULL; i++)
    g_print (_("Note:     %s\n"), notes[i]);

  steps_a = cp_analysis_get_steps (a, &n_a);
  steps_b = cp_analysis_get_steps (b, &n_b);
  if (cp_comparison_get_typical_step (c, 0) >= 0 && cp_comparison_get_typical_step (c, 1) >= 0)
    {
      const CpStepStats *ta = &steps_a[cp_comparison_get_typical_step (c, 0)];
      const CpStepStats *tb = &steps_b[cp_comparison_get_typical_step (c, 1)];
      g_autofree char *la = cp_format_ns (ta->end - ta->start);
      g_autofree char *lb = cp_format_ns (tb->end - tb->start);

      cp_comparison_get_steps (c, &n);
      if (cp_comparison_get_step_match (c) == CP_COMPARE_STEPS_BY_NUMBER)
        g_print (_("Steps:    %u matched by number; typical (median) step A #%" PRId64 " (%s), B #%" PRId64 " (%s)\n"),
                 n, ta->number, la, tb->number, lb);
      else
        g_print (_("Steps:    %u matched in order; typical (median) step A #%" PRId64 " (%s), B #%" PRId64 " (%s)\n"),
                 n, ta->number, la, tb->number, lb);
    }

  if (comparable & CP_COMPARE_GROUP_CATEGORIES)
    {
      n = cp_comparison_explain (c, explained);
      if (n > 0)
        g_print ("\n%s\n", _("What explains it (per step, B − A; the categories partition the step, so their changes add up)"));
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *fa = cp_format_ns (explained[i]->a.per_step);
          g_autofree char *fb = cp_format_ns (explained[i]->b.per_step);
          g_autofree char *fd = format_delta (explained[i]->delta);
          g_autofree char *pa = pad (fa, 10), *pb = pad (fb, 10), *d = pad (fd, 10);
          g_autofree char *label = pad_right (cp_time_category_get_label (explained[i]->id), 32);

          g_print ("  %s %s → %s %s", label, pa, pb, d);
          if (delta != 0)
            {
            double share = 100.0 * explained[i]->delta / delta;

            g_print (_("  %s%.1f%% of the change"), share < 0 ? "−" : " ", fabs (share));
          }
          g_print ("\n");
        }
    }

  devs = cp_comparison_get_devices (c, &n);
  if (n > 0)
    g_print ("\n%s\n", _("Devices (utilisation, kernel time per step, idle per step)"));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *ka = cp_format_ns (devs[i].kernel_time_a);
      g_autofree char *kb = cp_format_ns (devs[i].kernel_time_b);
      g_autofree char *ia = cp_format_ns (devs[i].idle_a);
      g_autofree char *ib = cp_format_ns (devs[i].idle_b);
      g_autofree char *ua = isnan (devs[i].utilization_a) ? g_strdup ("—") : g_strdup_printf ("%.1f%%", 100 * devs[i].utilization_a);
      g_autofree char *ub = isnan (devs[i].utilization_b) ? g_strdup ("—") : g_strdup_printf ("%.1f%%", 100 * devs[i].utilization_b);

      /* Translators: "GPU 0: utilisation 30.1% → 55.2%, kernels 20 ms → 21 ms, idle 90 ms → 40 ms". */
      g_autofree char *ordinal = devs[i].ordinal == devs[i].ordinal_b ? g_strdup_printf ("%d", devs[i].ordinal)
                                 : g_strdup_printf ("%d/%d", devs[i].ordinal, devs[i].ordinal_b);

      g_print (_("  %s %s: utilisation %s → %s, kernels %s → %s, idle %s → %s"),
               devs[i].kind == CP_DEVICE_KIND_TPU ? "TPU" : "GPU", ordinal, ua, ub, ka, kb, ia, ib);
      if (devs[i].side != CP_COMPARE_BOTH)
        g_print (" (%s)", side_mark (devs[i].side));
      g_print ("\n");
    }

  if (comparable & CP_COMPARE_GROUP_KERNELS)
    {
      g_autofree char *title = NULL;

      cp_comparison_get_kernel_match (c, &match_a, &match_b);
      items = cp_comparison_get_kernels (c, &n);
      title = g_strdup_printf (cp_comparison_get_kernel_key (c) == CP_COMPARE_KERNELS_BY_OP ?
                               _("Kernels by launching op, largest change first (per step A, B, delta, ratio, count A, B); %.0f%% of A’s and %.0f%% of B’s kernel time matched") :
                               _("Kernels, largest change first (per step A, B, delta, ratio, count A, B); %.0f%% of A’s and %.0f%% of B’s kernel time matched"),
                               match_a, match_b);
      print_items_text (title, items, n);
    }
  if (comparable & CP_COMPARE_GROUP_HOST_OPS)
    {
      items = cp_comparison_get_host_ops (c, &n);
      print_items_text (_("Host ops, largest change first (per step A, B, delta, ratio, count A, B)"), items, n);
      items = cp_comparison_get_host_op_paths (c, &n);
      print_items_text (_("Host ops by call path (outer > inner), largest change first"), items, n);
    }

  fs = cp_comparison_get_findings (c, &n);
  g_print ("\n%s\n", _("Findings (severity A → B)"));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *sev = finding_severities (&fs[i]);

      g_autofree char *change = pad_right (change_label (fs[i].change), 12);
      g_autofree char *sevs = pad_right (sev, 22);

      g_print ("  %s %s %s (%s)\n", change, sevs, fs[i].title, fs[i].rule_id);
    }
  if (n == 0)
    g_print ("  %s\n", _("none on either side"));
}

/* Markdown table cells must not hold "|" or new lines. */
static char *
md_cell (const char *text)
{
  g_autofree char *shortened = cp_cli_short_name (text);
  GString *s = g_string_new (NULL);

  for (const char *p = shortened; *p; p++)
    {
      if (*p == '|')
        g_string_append (s, "\\|");
      else if (*p == '\n')
        g_string_append_c (s, ' ');
      else
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

static void
print_items_markdown (const char          *title,
                      const char          *column,
                      const CpCompareItem *items,
                      guint                n)
{
  if (n == 0)
    return;
  g_print ("\n**%s**\n\n| %s | A | B | Δ | B/A |\n|---|---:|---:|---:|---:|\n", title, column);
  for (guint i = 0; i < MIN (n, TOP_ITEMS); i++)
    {
      g_autofree char *pa = cp_format_ns (items[i].a.per_step);
      g_autofree char *pb = cp_format_ns (items[i].b.per_step);
      g_autofree char *d = format_delta (items[i].delta);
      g_autofree char *r = format_ratio (items[i].ratio);
      g_autofree char *name = md_cell (item_name (&items[i]));

      g_print ("| `%s`%s%s | %s | %s | %s | %s |\n", name, items[i].side != CP_COMPARE_BOTH ? " " : "",
               side_mark (items[i].side), pa, pb, d, r);
    }
}

static void
print_markdown (CpComparison *c)
{
  CpAnalysis *a = cp_comparison_get_a (c), *b = cp_comparison_get_b (c);
  const char * const *notes = cp_comparison_get_notes (c);
  const CpCompareItem *explained[CP_TIME_N_CATEGORIES];
  const CpCompareItem *items;
  const CpCompareFinding *fs;
  guint comparable = cp_comparison_get_comparable (c);
  guint n;
  gint64 mean_a, mean_b, delta;
  double percent;
  g_autofree char *ma = NULL, *mb = NULL, *md = NULL, *mp = NULL;
  g_autofree char *da = describe_side (a);
  g_autofree char *db = describe_side (b);
  g_autofree char *ca = md_cell (da);
  g_autofree char *cb = md_cell (db);

  cp_comparison_get_step_time (c, &mean_a, &mean_b, &delta, &percent);
  ma = cp_format_ns (mean_a);
  mb = cp_format_ns (mean_b);
  md = format_delta (delta);
  mp = format_percent_change (mean_a, mean_b);

  g_print ("### %s\n\n", _("Chokepoint comparison"));
  g_print ("- **A:** %s\n- **B:** %s\n\n", ca, cb);
  /* Translators: Markdown, "**Mean step time:** 130 ms → 86 ms (**−33.6%**, −44 ms)". */
  g_print (_("**Mean step time:** %s → %s (**%s**, %s)\n"), ma, mb, mp, md);
  {
    g_autofree char *medians = format_medians (a, b);

    if (medians != NULL)
      /* Translators: Markdown, after the mean: "Median step time: 129 ms → 85 ms". */
      g_print (_("\n**Median step time:** %s\n"), medians);
  }
  {
    g_autofree char *ba = cp_analysis_dup_confidence_banner (a);
    g_autofree char *bb = cp_analysis_dup_confidence_banner (b);

    if (ba != NULL)
      g_print ("\n_A: %s_\n", ba);
    if (bb != NULL)
      g_print ("\n_B: %s_\n", bb);
  }
  g_print ("\n> %s\n>\n> %s\n", cp_analysis_get_verdict (a)->text, cp_analysis_get_verdict (b)->text);
  for (guint i = 0; notes[i] != NULL; i++)
    g_print ("\n_%s_\n", notes[i]);

  if (comparable & CP_COMPARE_GROUP_CATEGORIES)
    {
      n = cp_comparison_explain (c, explained);
      if (n > 0)
        g_print ("\n**%s**\n\n| %s | A | B | Δ | %s |\n|---|---:|---:|---:|---:|\n",
                 _("What explains it (per step)"), _("Category"), _("share of Δ"));
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *pa = cp_format_ns (explained[i]->a.per_step);
          g_autofree char *pb = cp_format_ns (explained[i]->b.per_step);
          g_autofree char *d = format_delta (explained[i]->delta);
          g_autofree char *share = delta != 0 ? g_strdup_printf ("%.1f%%", 100.0 * explained[i]->delta / delta) : g_strdup ("—");

          g_print ("| %s | %s | %s | %s | %s |\n", cp_time_category_get_label (explained[i]->id), pa, pb, d, share);
        }
    }
  if (comparable & CP_COMPARE_GROUP_KERNELS)
    {
      items = cp_comparison_get_kernels (c, &n);
      print_items_markdown (_("Top kernel changes (per step)"),
                            cp_comparison_get_kernel_key (c) == CP_COMPARE_KERNELS_BY_OP ? _("Launching op") : _("Kernel"),
                            items, n);
    }
  if (comparable & CP_COMPARE_GROUP_HOST_OPS)
    {
      items = cp_comparison_get_host_ops (c, &n);
      print_items_markdown (_("Top host op changes (per step)"), _("Op"), items, n);
    }

  fs = cp_comparison_get_findings (c, &n);
  if (n > 0)
    g_print ("\n**%s**\n\n", _("Findings"));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *sev = finding_severities (&fs[i]);

      g_print ("- %s: %s (`%s`), %s\n", change_label (fs[i].change), fs[i].title, fs[i].rule_id, sev);
    }
}

/* One --metric threshold. */
typedef enum
{
  METRIC_STEP_TIME,     /* mean step time, % slower */
  METRIC_UTILIZATION,   /* utilisation of the least busy device, points lower */
  METRIC_DATA_LOADING,  /* data-loading share of step time, points higher */
  METRIC_KERNEL_TIME,   /* kernel time per step, % more */
  METRIC_KERNEL,        /* one kernel's time per step, % more */
} MetricKind;

typedef struct
{
  MetricKind  kind;
  char       *kernel;
  double      limit;
} Metric;

static void
metric_clear (gpointer data)
{
  g_free (((Metric *) data)->kernel);
}

static gboolean
parse_percent (const char *text,
               double     *out)
{
  char *end = NULL;
  double v;

  if (text == NULL || *text == '\0')
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end != NULL && *end == '%')
    end++;
  if (end == NULL || *end != '\0' || !isfinite (v) || v < 0)
    return FALSE;
  *out = v;
  return TRUE;
}

/* "step-time:5", "utilization:10", "data-loading:5", "kernel-time:5",
 * "kernel:NAME:10" (NAME may hold colons: the limit follows the last). */
static gboolean
parse_metric (const char *text,
              Metric     *m)
{
  const char *colon = strrchr (text, ':');
  g_autofree char *name = NULL;

  memset (m, 0, sizeof *m);
  if (colon == NULL || !parse_percent (colon + 1, &m->limit))
    return FALSE;
  name = g_strndup (text, colon - text);
  if (g_str_equal (name, "step-time"))
    m->kind = METRIC_STEP_TIME;
  else if (g_str_equal (name, "utilization") || g_str_equal (name, "utilisation"))
    m->kind = METRIC_UTILIZATION;
  else if (g_str_equal (name, "data-loading"))
    m->kind = METRIC_DATA_LOADING;
  else if (g_str_equal (name, "kernel-time"))
    m->kind = METRIC_KERNEL_TIME;
  else if (g_str_has_prefix (name, "kernel:") && name[7] != '\0')
    {
      m->kind = METRIC_KERNEL;
      m->kernel = g_strdup (name + 7);
    }
  else
    return FALSE;
  return TRUE;
}

/* Checks one threshold; prints the regression on stderr. Returns 1 on a
 * regression, 0 when within, -1 when it cannot be measured (message
 * printed). */
static int
check_metric (CpComparison *c,
              const Metric *m)
{
  const CpVerdict *va = cp_analysis_get_verdict (cp_comparison_get_a (c));
  const CpVerdict *vb = cp_analysis_get_verdict (cp_comparison_get_b (c));
  gint64 a = 0, b = 0;
  double change;
  const char *what;

  switch (m->kind)
    {
    case METRIC_UTILIZATION:
    case METRIC_DATA_LOADING:
      {
        double pa = m->kind == METRIC_UTILIZATION ? va->busy_percent : va->loading_percent;
        double pb = m->kind == METRIC_UTILIZATION ? vb->busy_percent : vb->loading_percent;

        what = m->kind == METRIC_UTILIZATION ? _("utilisation") : _("data-loading share");
        if (isnan (pa) || isnan (pb))
          {
            g_printerr (_("chokepoint compare: the %s is not measured on both sides\n"), what);
            return -1;
          }
        change = m->kind == METRIC_UTILIZATION ? pa - pb : pb - pa;
        if (change > m->limit)
          {
            /* Translators: "regression: utilisation 80.0% → 60.0% (more than 10.0 points worse)". */
            g_printerr (_("chokepoint compare: regression: %s %.1f%% → %.1f%% (more than %.1f points worse)\n"),
                        what, pa, pb, m->limit);
            return 1;
          }
        return 0;
      }
    case METRIC_STEP_TIME:
      cp_comparison_get_step_time (c, &a, &b, NULL, NULL);
      what = _("mean step time");
      break;
    case METRIC_KERNEL_TIME:
      cp_comparison_get_kernel_time (c, &a, &b);
      what = _("kernel time per step");
      break;
    case METRIC_KERNEL:
    default:
      {
        const CpCompareItem *it = cp_comparison_lookup_kernel (c, m->kernel);

        if (it == NULL || it->side != CP_COMPARE_BOTH)
          {
            g_printerr (_("chokepoint compare: no kernel “%s” on both sides\n"), m->kernel);
            return -1;
          }
        a = it->a.per_step;
        b = it->b.per_step;
        what = it->key;
      }
      break;
    }
  if (a <= 0)
    {
      g_printerr (_("chokepoint compare: %s is zero in A: no change in percent\n"), what);
      return -1;
    }
  change = 100.0 * (b - a) / a;
  if (change > m->limit)
    {
      g_autofree char *fa = cp_format_ns (a);
      g_autofree char *fb = cp_format_ns (b);

      /* Translators: "regression: mean step time 80 ms → 96 ms (+20.0%, more than 5.0%)". */
      g_printerr (_("chokepoint compare: regression: %s %s → %s (+%.1f%%, more than %.1f%%)\n"),
                  what, fa, fb, change, m->limit);
      return 1;
    }
  return 0;
}

static CpAnalysis *
load_side (const char  *arg,
           const char  *side,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (arg);
  g_autoptr(CpTrace) trace = cp_cli_load ("compare", file, error);
  const CpLoadReport *r;

  if (trace == NULL)
    return NULL;
  r = cp_trace_get_load_report (trace);
  if (r != NULL && r->truncated)
    {
      g_autofree char *name = g_file_get_parse_name (file);

      /* Translators: the first %s is A or B. */
      g_printerr (_("chokepoint compare: %s: “%s” ends early: only the events before the cut are compared\n"),
                  side, name);
    }
  return cp_analysis_new (trace, NULL, error);
}

int
cp_cli_compare (int    argc,
                char **argv)
{
  gboolean json = FALSE, by_op = FALSE;
  g_autofree char *format_name = NULL;
  g_autofree char *steps_name = NULL;
  g_autofree char *fail_on_regression = NULL;
  g_auto(GStrv) metric_args = NULL;
  g_auto(GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_("Print the comparison as JSON (see docs/compare-json.md)"), NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Output format: text (default), markdown (for a pull request or $GITHUB_STEP_SUMMARY) or json"), N_("text|markdown|json") },
    { "by-op", 0, 0, G_OPTION_ARG_NONE, &by_op, N_("Match kernels by the host op that launched them, not by name"), NULL },
    { "steps", 0, 0, G_OPTION_ARG_STRING, &steps_name,
      N_("Pair steps in order (default) or by their step number, for captures of different steps"), N_("order|number") },
    { "fail-on-regression", 0, 0, G_OPTION_ARG_STRING, &fail_on_regression,
      N_("Exit with status 3 when B’s mean step time is more than PCT percent slower than A’s"), N_("PCT") },
    { "metric", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &metric_args,
      N_("Exit with status 3 when a metric regresses beyond PCT: step-time, kernel-time or kernel:NAME (percent), "
         "utilization or data-loading (points of step time); may be repeated"), N_("NAME:PCT") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("A B") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (N_("— compare two captures, before (A) and after (B)"));
  g_autoptr(GError) error = NULL;
  g_autoptr(CpAnalysis) a = NULL;
  g_autoptr(CpAnalysis) b = NULL;
  g_autoptr(CpComparison) c = NULL;
  g_autoptr(GArray) metrics = g_array_new (FALSE, TRUE, sizeof (Metric));
  Format format = FORMAT_TEXT;
  gboolean regressed = FALSE, unmeasured = FALSE;

  g_array_set_clear_func (metrics, metric_clear);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Reads two profiler captures of the same program, A before and B after a "
                                  "change, matches their steps, time breakdown, kernels, host ops, devices and "
                                  "findings, and says how the mean step time changed and what explains it. "
                                  "Needs no display."));
  g_option_context_set_description (context,
                                    _("Exit status: 0 done, 1 a file could not be read or the captures do not "
                                      "compare, 2 bad arguments, 3 a regression beyond --fail-on-regression or a "
                                      "--metric threshold."));
  g_set_prgname ("chokepoint compare");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("chokepoint compare: %s\n", error->message);
      g_printerr (_("Run “chokepoint compare --help” for usage.\n"));
      return CP_EXIT_USAGE;
    }
  if (format_name != NULL)
    {
      if (g_str_equal (format_name, "text"))
        format = FORMAT_TEXT;
      else if (g_str_equal (format_name, "markdown") || g_str_equal (format_name, "md"))
        format = FORMAT_MARKDOWN;
      else if (g_str_equal (format_name, "json"))
        format = FORMAT_JSON;
      else
        {
          g_printerr (_("chokepoint compare: --format takes “text”, “markdown” or “json”, not “%s”\n"), format_name);
          return CP_EXIT_USAGE;
        }
    }
  if (steps_name != NULL && !g_str_equal (steps_name, "order") && !g_str_equal (steps_name, "number"))
    {
      g_printerr (_("chokepoint compare: --steps takes “order” or “number”, not “%s”\n"), steps_name);
      return CP_EXIT_USAGE;
    }
  if (json)
    {
      if (format_name != NULL && format != FORMAT_JSON)
        {
          g_printerr (_("chokepoint compare: --json and --format=%s contradict each other\n"), format_name);
          return CP_EXIT_USAGE;
        }
      format = FORMAT_JSON;
    }
  if (fail_on_regression != NULL)
    {
      Metric m = { METRIC_STEP_TIME, NULL, 0 };

      if (!parse_percent (fail_on_regression, &m.limit))
        {
          g_printerr (_("chokepoint compare: --fail-on-regression takes a percentage such as 5, not “%s”\n"), fail_on_regression);
          return CP_EXIT_USAGE;
        }
      g_array_append_val (metrics, m);
    }
  for (guint i = 0; metric_args != NULL && metric_args[i] != NULL; i++)
    {
      Metric m;

      if (!parse_metric (metric_args[i], &m))
        {
          metric_clear (&m);
          g_printerr (_("chokepoint compare: --metric takes NAME:PCT with NAME step-time, utilization, data-loading, "
                        "kernel-time or kernel:KERNEL, not “%s”\n"), metric_args[i]);
          return CP_EXIT_USAGE;
        }
      g_array_append_val (metrics, m);
    }
  if (files == NULL || files[0] == NULL || files[1] == NULL || files[2] != NULL)
    {
      g_printerr (_("chokepoint compare: give exactly two capture files, A (before) and B (after)\n"));
      g_printerr (_("Usage: chokepoint compare [--json|--format=markdown] [--by-op] [--steps=order|number] [--fail-on-regression=PCT] "
                    "[--metric NAME:PCT]... A B\n"));
      return CP_EXIT_USAGE;
    }

  a = load_side (files[0], "A", &error);
  if (a == NULL)
    {
      g_printerr (_("chokepoint compare: A: %s\n"), error->message);
      return CP_EXIT_FAILURE;
    }
  b = load_side (files[1], "B", &error);
  if (b == NULL)
    {
      g_printerr (_("chokepoint compare: B: %s\n"), error->message);
      return CP_EXIT_FAILURE;
    }

  c = cp_comparison_new (a, b, by_op ? CP_COMPARE_KERNELS_BY_OP : CP_COMPARE_KERNELS_BY_NAME);
  if (!cp_comparison_check (c, &error))
    {
      g_printerr ("chokepoint compare: %s\n", error->message);
      return CP_EXIT_FAILURE;
    }
  if (steps_name != NULL && g_str_equal (steps_name, "number") &&
      !cp_comparison_set_step_match (c, CP_COMPARE_STEPS_BY_NUMBER))
    {
      g_printerr (_("chokepoint compare: --steps=number: no step number is found in both A and B\n"));
      return CP_EXIT_FAILURE;
    }

  switch (format)
    {
    case FORMAT_JSON:
      {
        g_autofree char *text = cp_comparison_to_json (c, TRUE);

        g_print ("%s\n", text);
      }
      break;
    case FORMAT_MARKDOWN:
      print_markdown (c);
      break;
    case FORMAT_TEXT:
    default:
      print_text (c);
      break;
    }
  if (fflush (stdout) != 0)
    {
      g_printerr (_("chokepoint compare: could not write the output\n"));
      return CP_EXIT_FAILURE;
    }

  for (guint i = 0; i < metrics->len; i++)
    {
      int r = check_metric (c, &g_array_index (metrics, Metric, i));

      regressed |= r > 0;
      unmeasured |= r < 0;
    }
  if (regressed)
    return CP_EXIT_FINDINGS;
  if (unmeasured)
    return CP_EXIT_FAILURE;
  return CP_EXIT_OK;
}
