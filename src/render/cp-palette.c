/* cp-palette.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cp-palette.h"

/* Slice colours: Paul Tol's "light", "muted" and "bright" qualitative
 * schemes, which stay apart for the common forms of colour blindness, with
 * the greys left out (grey means "too dense to draw" on the timeline). Dark
 * variants are derived by dimming, so the hue family of a name is the same
 * in both styles. */
static const guint32 name_colors[] = {
  0x77aaddff, /* light blue */
  0xee8866ff, /* orange */
  0x44bb99ff, /* mint */
  0xeedd88ff, /* light yellow */
  0xffaabbff, /* pink */
  0x99ddffff, /* light cyan */
  0xbbcc33ff, /* pear */
  0xcc6677ff, /* rose */
  0xaa4499ff, /* purple */
  0xddcc77ff, /* sand */
  0x4477aaff, /* blue */
  0x228833ff, /* green */
  0xaaaa00ff, /* olive */
  0x88ccEEff, /* cyan */
  0x44aa99ff, /* teal */
  0xee6677ff, /* red */
};

/* Transfers by direction: the Okabe-Ito colour-blind-safe set. */
static const guint32 transfer_colors[CP_TRANSFER_N_KINDS] = {
  [CP_TRANSFER_NONE]   = 0x999999ff,
  [CP_TRANSFER_HTOD]   = 0x0072b2ff, /* blue */
  [CP_TRANSFER_DTOH]   = 0xd55e00ff, /* vermillion */
  [CP_TRANSFER_DTOD]   = 0x009e73ff, /* bluish green */
  [CP_TRANSFER_PTOP]   = 0xcc79a7ff, /* reddish purple */
  [CP_TRANSFER_MEMSET] = 0xe69f00ff, /* orange */
  [CP_TRANSFER_OTHER]  = 0x999999ff,
};

/* The application chrome follows libadwaita's light and dark palettes. */
static const CpPaletteColors light_colors = {
  .background     = 0xffffffff,
  .gutter         = 0xf6f5f4ff,
  .header         = 0xebebedff,
  .separator      = 0x0000001a,
  .text           = 0x1e1e1edd,
  .dim_text       = 0x5e5c64ff,
  .tick           = 0x00000066,
  .grid           = 0x00000012,
  .accent         = 0x1c71d8ff,
  .range_fill     = 0x3584e426,
  .hover          = 0x000000a0,
  .search         = 0xc64600ff,
  .finding        = 0xc01c28ff,
  .finding_fill   = 0xe01b2426,
  .note           = 0x9141acff,
  .flow           = 0x613583d0,
  .counter        = 0x1a5fb4ff,
  .counter_fill   = 0x3584e440,
  .pageable_hatch = 0x00000070,
  .density = {
    [CP_LANE_HOST_THREAD]       = 0x5e5c64ff,
    [CP_LANE_KERNEL]            = 0x3d6a9cff,
    [CP_LANE_TRANSFER]          = 0x5e5c64ff,
    [CP_LANE_DEVICE_ANNOTATION] = 0x7a5c8aff,
    [CP_LANE_ASYNC]             = 0x5e5c64ff,
    [CP_LANE_COUNTER]           = 0x5e5c64ff,
  },
};

static const CpPaletteColors dark_colors = {
  .background     = 0x1e1e1eff,
  .gutter         = 0x242424ff,
  .header         = 0x303030ff,
  .separator      = 0xffffff1a,
  .text           = 0xffffffe6,
  .dim_text       = 0x9a9996ff,
  .tick           = 0xffffff66,
  .grid           = 0xffffff12,
  .accent         = 0x78aeedff,
  .range_fill     = 0x78aeed2e,
  .hover          = 0xffffffb0,
  .search         = 0xffa348ff,
  .finding        = 0xff7b63ff,
  .finding_fill   = 0xff7b632e,
  .note           = 0xdc8addff,
  .flow           = 0xdc8addd0,
  .counter        = 0x99c1f1ff,
  .counter_fill   = 0x99c1f140,
  .pageable_hatch = 0xffffff80,
  .density = {
    [CP_LANE_HOST_THREAD]       = 0xb0afb8ff,
    [CP_LANE_KERNEL]            = 0x8fb3e0ff,
    [CP_LANE_TRANSFER]          = 0xb0afb8ff,
    [CP_LANE_DEVICE_ANNOTATION] = 0xc4a6d6ff,
    [CP_LANE_ASYNC]             = 0xb0afb8ff,
    [CP_LANE_COUNTER]           = 0xb0afb8ff,
  },
};

const CpPaletteColors *
cp_palette_get_colors (CpTheme theme)
{
  return theme == CP_THEME_DARK ? &dark_colors : &light_colors;
}

static guint32
mix (guint32 c,
     guint32 with,
     double  amount)
{
  guint32 out = 0;

  for (int shift = 24; shift >= 8; shift -= 8)
    {
      double a = (c >> shift) & 0xff;
      double b = (with >> shift) & 0xff;
      guint v = (guint) lround (a + (b - a) * amount);

      out |= (MIN (v, 255u)) << shift;
    }
  return out | (c & 0xff);
}

guint
cp_palette_get_n_name_colors (void)
{
  return G_N_ELEMENTS (name_colors);
}

guint
cp_palette_name_index (const char *name)
{
  /* FNV-1a over the bytes that are not ASCII digits. */
  guint32 h = 2166136261u;

  if (name == NULL)
    return 0;
  for (const guchar *p = (const guchar *) name; *p; p++)
    {
      if (*p >= '0' && *p <= '9')
        continue;
      h ^= *p;
      h *= 16777619u;
    }
  /* Fold the high bits in: FNV's low bits alone are weak for short names. */
  h ^= h >> 16;
  return h % G_N_ELEMENTS (name_colors);
}

guint32
cp_palette_indexed_color (CpTheme theme,
                          guint   index)
{
  guint32 c = name_colors[index % G_N_ELEMENTS (name_colors)];

  /* On a dark background full-strength pastels glare: dim them a little. */
  return theme == CP_THEME_DARK ? mix (c, 0x000000ff, 0.22) : c;
}

guint32
cp_palette_name_color (CpTheme     theme,
                       const char *name)
{
  return cp_palette_indexed_color (theme, cp_palette_name_index (name));
}

guint32
cp_palette_transfer_color (CpTheme        theme,
                           CpTransferKind kind)
{
  guint32 c;

  if ((guint) kind >= CP_TRANSFER_N_KINDS)
    kind = CP_TRANSFER_OTHER;
  c = transfer_colors[kind];
  /* Okabe-Ito's blue and green are too dark against a dark background. */
  return theme == CP_THEME_DARK ? mix (c, 0xffffffff, 0.18) : c;
}

static double
channel (double v)
{
  return v <= 0.03928 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
}

double
cp_palette_luminance (guint32 rgba)
{
  return 0.2126 * channel (cp_rgba_r (rgba)) +
         0.7152 * channel (cp_rgba_g (rgba)) +
         0.0722 * channel (cp_rgba_b (rgba));
}

double
cp_palette_contrast (guint32 a,
                     guint32 b)
{
  double la = cp_palette_luminance (a), lb = cp_palette_luminance (b);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

guint32
cp_palette_text_on (guint32 fill)
{
  /* Pick the text colour with the higher contrast ratio. */
  return cp_palette_contrast (fill, 0x000000ff) >= cp_palette_contrast (fill, 0xffffffff)
         ? 0x000000e0 : 0xffffffff;
}

gboolean
cp_rgba_parse (const char *text,
               guint32    *rgba)
{
  gsize len;
  guint64 v;
  char *end = NULL;

  g_return_val_if_fail (rgba != NULL, FALSE);

  if (text == NULL || text[0] != '#')
    return FALSE;
  len = strlen (text + 1);
  if (len != 6 && len != 8)
    return FALSE;
  for (gsize i = 1; i <= len; i++)
    {
      if (!g_ascii_isxdigit (text[i]))
        return FALSE;
    }
  v = g_ascii_strtoull (text + 1, &end, 16);
  *rgba = len == 6 ? (guint32) (v << 8 | 0xff) : (guint32) v;
  return TRUE;
}

static const guint32 category_colors[] = {
  0x009e73ff, /* CP_TIME_COMPUTE_16 */
  0x7fcdb4ff, /* CP_TIME_COMPUTE_32 */
  0xcc79a7ff, /* CP_TIME_DEVICE_TO_HOST */
  0x9a5b8cff, /* CP_TIME_DEVICE_TO_DEVICE */
  0x6b4e71ff, /* CP_TIME_ASYNC_WAIT */
  0xd55e00ff, /* CP_TIME_INPUT_WAIT */
  0x56b4e9ff, /* CP_TIME_COLLECTIVES */
  0xf0e442ff, /* CP_TIME_LAUNCH */
  0x0072b2ff, /* CP_TIME_HOST_TO_DEVICE */
  0x8c6d46ff, /* CP_TIME_OTHER */
  0xe69f00ff, /* CP_TIME_RUNTIME */
  0xa5a5a5ff, /* CP_TIME_HOST_COMPUTE */
};

guint32
cp_palette_category_color (CpTheme theme,
                           guint   category)
{
  if (category < G_N_ELEMENTS (category_colors))
    return category_colors[category];
  /* CP_TIME_IDLE */
  return theme == CP_THEME_DARK ? 0x5e5c64ff : 0xdedddaff;
}
