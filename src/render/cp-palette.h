/* cp-palette.h: the timeline's colours, for light and dark styles
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "model/cp-types.h"

G_BEGIN_DECLS

typedef enum
{
  CP_THEME_LIGHT,
  CP_THEME_DARK,
} CpTheme;

/* Colours are 0xRRGGBBAA. */
typedef struct
{
  guint32 background;       /* lanes */
  guint32 gutter;           /* lane names column */
  guint32 header;           /* group header rows and the ruler */
  guint32 separator;        /* lines between lanes */
  guint32 text;
  guint32 dim_text;
  guint32 tick;             /* ruler ticks and grid lines */
  guint32 grid;
  guint32 accent;           /* selection outline, selected range edges */
  guint32 range_fill;       /* selected time range */
  guint32 hover;            /* hover outline and line */
  guint32 search;           /* search hit outline */
  guint32 finding;          /* finding evidence outline */
  guint32 finding_fill;
  guint32 note;             /* default annotation colour */
  guint32 flow;             /* flow arrows */
  guint32 counter;          /* counter line */
  guint32 counter_fill;
  guint32 pageable_hatch;   /* stripes over pageable transfers */
  guint32 density[CP_LANE_N_KINDS]; /* slices too narrow to draw one by one */
} CpPaletteColors;

const CpPaletteColors *cp_palette_get_colors         (CpTheme     theme);

/* A stable colour for a slice name: the same name gets the same colour in
 * every run and on every machine. Digits are ignored so numbered names
 * (ProfilerStep#12, ProfilerStep#13) share a colour. */
guint32                cp_palette_name_color         (CpTheme     theme,
                                                      const char *name);
guint                  cp_palette_name_index         (const char *name);
guint                  cp_palette_get_n_name_colors  (void);
guint32                cp_palette_indexed_color      (CpTheme     theme,
                                                      guint       index);

/* Transfer lanes are coloured by direction, the same in every capture. */
guint32                cp_palette_transfer_color     (CpTheme        theme,
                                                      CpTransferKind kind);

/* The step breakdown's colour of a time category (CpTimeCategory; Okabe–Ito
 * where it matters most), the same in both styles except idle. */
guint32                cp_palette_category_color     (CpTheme theme,
                                                      guint   category);

/* Black or white, whichever reads better on the given fill. */
guint32                cp_palette_text_on            (guint32 fill);

/* Relative luminance (WCAG) and contrast ratio of two opaque colours. */
double                 cp_palette_luminance          (guint32 rgba);
double                 cp_palette_contrast           (guint32 a,
                                                      guint32 b);

static inline double cp_rgba_r (guint32 c) { return ((c >> 24) & 0xff) / 255.0; }
static inline double cp_rgba_g (guint32 c) { return ((c >> 16) & 0xff) / 255.0; }
static inline double cp_rgba_b (guint32 c) { return ((c >> 8) & 0xff) / 255.0; }
static inline double cp_rgba_a (guint32 c) { return (c & 0xff) / 255.0; }

/* Parses "#rrggbb" or "#rrggbbaa"; FALSE when it is neither. */
gboolean               cp_rgba_parse                 (const char *text,
                                                      guint32    *rgba);

G_END_DECLS
