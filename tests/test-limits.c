/* test-limits.c: docs/limits.md and src/model/cp-limits.h agree
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib.h>
#include <string.h>

#include "model/cp-limits.h"

/* Every limit, as compiled. A limit added to cp-limits.h but not here
 * fails the test below (the header is parsed too). */
static const struct
{
  const char *name;
  guint64     value;
} compiled[] = {
#define LIMIT(n) { #n, (guint64) (n) }
  LIMIT (CP_SOURCE_MAX_RATIO),
  LIMIT (CP_SOURCE_RATIO_GRACE),
  LIMIT (CP_JSON_MAX_DEPTH),
  LIMIT (CP_JSON_MAX_STRING),
  LIMIT (CP_CHROME_MAX_METADATA),
  LIMIT (CP_CHROME_MAX_ARGS),
  LIMIT (CP_JSON_MAX_DOM_DEPTH),
  LIMIT (CP_PB_MAX_VARINT_BYTES),
  LIMIT (CP_PB_MAX_GROUP_DEPTH),
  LIMIT (CP_PB_MAX_DEPTH),
  LIMIT (CP_XPLANE_MAX_LANES_PER_PLANE),
  LIMIT (CP_XPLANE_MAX_METADATA_NAMES),
  LIMIT (CP_XPLANE_MAX_METADATA_STRING),
  LIMIT (CP_XPLANE_MAX_DECOMPRESSED),
  LIMIT (CP_XPLANE_INFLATE_IN_MEMORY),
  LIMIT (CP_LOAD_MEMORY_NOTICE),
  LIMIT (CP_MAPPING_MAX_GUARDED),
  LIMIT (CP_LOAD_REPORT_MAX_WARNINGS),
  LIMIT (CP_LANE_MAX_ROWS),
#undef LIMIT
};

static char *
source_file (const char *rel)
{
  const char *root = g_getenv ("CP_SOURCE_ROOT");
  g_autofree char *path = NULL;
  char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (root);
  path = g_build_filename (root, rel, NULL);
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static gboolean
known (const char *name,
       guint64    *value)
{
  for (guint i = 0; i < G_N_ELEMENTS (compiled); i++)
    if (strcmp (compiled[i].name, name) == 0)
      {
        *value = compiled[i].value;
        return TRUE;
      }
  return FALSE;
}

static void
test_header_and_doc (void)
{
  g_autofree char *header = source_file ("src/model/cp-limits.h");
  g_autofree char *doc = source_file ("docs/limits.md");
  g_autoptr(GRegex) define = g_regex_new ("^#define (CP_[A-Z0-9_]+)\\s", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GRegex) row = g_regex_new ("^\\| `(CP_[A-Z0-9_]+)` \\| ([0-9]+) \\|", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GHashTable) in_header = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) in_doc = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GMatchInfo) m = NULL;

  /* Every #define of the header is a compiled limit here. */
  g_regex_match (define, header, 0, &m);
  while (g_match_info_matches (m))
    {
      g_autofree char *name = g_match_info_fetch (m, 1);
      guint64 v;

      if (!known (name, &v))
        g_error ("%s is in cp-limits.h but not in tests/test-limits.c", name);
      g_hash_table_add (in_header, g_steal_pointer (&name));
      g_match_info_next (m, NULL);
    }
  g_clear_pointer (&m, g_match_info_free);
  g_assert_cmpuint (g_hash_table_size (in_header), ==, G_N_ELEMENTS (compiled));

  /* Every row of the doc's table names a limit of the header, with its
   * value. */
  g_regex_match (row, doc, 0, &m);
  while (g_match_info_matches (m))
    {
      g_autofree char *name = g_match_info_fetch (m, 1);
      g_autofree char *value = g_match_info_fetch (m, 2);
      guint64 v = 0;

      if (!known (name, &v))
        g_error ("docs/limits.md lists %s, which cp-limits.h does not define", name);
      if (g_ascii_strtoull (value, NULL, 10) != v)
        g_error ("docs/limits.md gives %s as %s; the code has %" G_GUINT64_FORMAT, name, value, v);
      g_hash_table_add (in_doc, g_steal_pointer (&name));
      g_match_info_next (m, NULL);
    }
  for (guint i = 0; i < G_N_ELEMENTS (compiled); i++)
    if (!g_hash_table_contains (in_doc, compiled[i].name))
      g_error ("%s is missing from the table of docs/limits.md", compiled[i].name);
}

/* Messages name the limits with the values the doc gives. */
static void
test_values_in_words (void)
{
  g_assert_cmpuint (CP_JSON_MAX_STRING >> 20, ==, 64);
  g_assert_cmpuint (CP_CHROME_MAX_ARGS >> 20, ==, 16);
  g_assert_cmpuint (CP_CHROME_MAX_METADATA >> 20, ==, 4);
  g_assert_cmpuint (CP_SOURCE_RATIO_GRACE >> 20, ==, 16);
  g_assert_cmpuint ((guint64) CP_XPLANE_MAX_DECOMPRESSED + 1, ==, G_GUINT64_CONSTANT (4) << 30);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/limits/header-and-doc", test_header_and_doc);
  g_test_add_func ("/limits/values-in-words", test_values_in_words);

  return g_test_run ();
}
