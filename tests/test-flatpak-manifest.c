/* test-flatpak-manifest.c: the Flatpak manifest users build keeps its promises
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * flatpak/check.sh proves the manifest builds and runs; this test, which needs
 * no network and no root, keeps its shape right on every build: the app id and
 * command the application uses, the GNOME 48 runtime and SDK, least-privilege
 * permissions (no host filesystem), and every module but the app itself
 * pinned to an exact source.
 */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#define MANIFEST_NAME APP_ID ".json"

/* The whole permission set. Files arrive through the document portal (Open
 * dialog, drops, command line), so no filesystem access is needed; anything
 * added here must be a deliberate, reviewed decision. */
static const char * const wanted_finish_args[] = {
  "--share=ipc",
  "--socket=wayland",
  "--socket=fallback-x11",
  "--device=dri",
};

static const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static JsonArray *
member_array (JsonObject *object,
              const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  return json_node_get_array (node);
}

/* A source is pinned when what it fetches cannot change under the same
 * manifest: downloads carry a checksum, version control a commit. Local
 * sources (the app's own checkout, patches, inline data) are fine. */
static char *
check_source_pinned (JsonObject *source)
{
  const char *type = member_string (source, "type");

  if (type == NULL)
    return g_strdup ("a source without a type");
  if (g_str_equal (type, "archive") || g_str_equal (type, "file") ||
      g_str_equal (type, "extra-data"))
    {
      if (member_string (source, "url") == NULL && member_string (source, "path") != NULL)
        return NULL;
      if (member_string (source, "sha256") == NULL && member_string (source, "sha512") == NULL)
        return g_strdup_printf ("a %s source without sha256 or sha512", type);
      return NULL;
    }
  if (g_str_equal (type, "git"))
    {
      const char *commit = member_string (source, "commit");

      if (commit == NULL || strlen (commit) < 40)
        return g_strdup ("a git source without a full commit id");
      return NULL;
    }
  if (g_str_equal (type, "bzr") || g_str_equal (type, "svn"))
    {
      if (member_string (source, "revision") == NULL)
        return g_strdup_printf ("a %s source without a revision", type);
      return NULL;
    }
  if (g_str_equal (type, "dir") || g_str_equal (type, "patch") ||
      g_str_equal (type, "script") || g_str_equal (type, "shell") ||
      g_str_equal (type, "inline"))
    return NULL;
  return g_strdup_printf ("a source of unknown type \"%s\"", type);
}

/* Returns NULL when the manifest meets every rule, or what is wrong. */
static char *
check_manifest (JsonNode *root)
{
  JsonObject *m;
  JsonArray *finish_args, *modules, *sources;
  JsonObject *app_module, *app_source;
  guint n, i;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return g_strdup ("the manifest is not a JSON object");
  m = json_node_get_object (root);

  if (g_strcmp0 (member_string (m, "id"), APP_ID) != 0)
    return g_strdup_printf ("id is \"%s\", not \"%s\"", member_string (m, "id"), APP_ID);
  if (g_strcmp0 (member_string (m, "command"), "chokepoint") != 0)
    return g_strdup_printf ("command is \"%s\", not \"chokepoint\"", member_string (m, "command"));
  if (g_strcmp0 (member_string (m, "runtime"), "org.gnome.Platform") != 0)
    return g_strdup ("runtime is not org.gnome.Platform");
  if (g_strcmp0 (member_string (m, "runtime-version"), "48") != 0)
    return g_strdup ("runtime-version is not \"48\"");
  if (g_strcmp0 (member_string (m, "sdk"), "org.gnome.Sdk") != 0)
    return g_strdup ("sdk is not org.gnome.Sdk");

  finish_args = member_array (m, "finish-args");
  if (finish_args == NULL)
    return g_strdup ("no finish-args");
  n = json_array_get_length (finish_args);
  for (i = 0; i < n; i++)
    {
      const char *arg = json_array_get_string_element (finish_args, i);
      gboolean known = FALSE;

      if (arg == NULL)
        return g_strdup ("a finish-arg that is not a string");
      if (g_str_has_prefix (arg, "--filesystem="))
        return g_strdup_printf ("%s: files come through the document portal", arg);
      for (gsize k = 0; k < G_N_ELEMENTS (wanted_finish_args); k++)
        known |= g_str_equal (arg, wanted_finish_args[k]);
      if (!known)
        return g_strdup_printf ("%s is more than least privilege", arg);
    }
  for (gsize k = 0; k < G_N_ELEMENTS (wanted_finish_args); k++)
    {
      gboolean found = FALSE;

      for (i = 0; i < n; i++)
        found |= g_strcmp0 (json_array_get_string_element (finish_args, i),
                            wanted_finish_args[k]) == 0;
      if (!found)
        return g_strdup_printf ("finish-args lack %s", wanted_finish_args[k]);
    }

  modules = member_array (m, "modules");
  if (modules == NULL || json_array_get_length (modules) == 0)
    return g_strdup ("no modules");
  n = json_array_get_length (modules);

  /* Dependencies the runtime lacks come first, each from a pinned source. */
  for (i = 0; i + 1 < n; i++)
    {
      JsonNode *node = json_array_get_element (modules, i);
      JsonObject *module;
      JsonArray *module_sources;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        return g_strdup ("a module that is not an object (keep modules inline)");
      module = json_node_get_object (node);
      module_sources = member_array (module, "sources");
      if (module_sources == NULL || json_array_get_length (module_sources) == 0)
        return g_strdup_printf ("module %s has no sources", member_string (module, "name"));
      for (guint s = 0; s < json_array_get_length (module_sources); s++)
        {
          JsonNode *snode = json_array_get_element (module_sources, s);
          char *problem;

          if (!JSON_NODE_HOLDS_OBJECT (snode))
            return g_strdup_printf ("module %s has a source that is not an object",
                                    member_string (module, "name"));
          problem = check_source_pinned (json_node_get_object (snode));
          if (problem != NULL)
            {
              char *message = g_strdup_printf ("module %s: %s",
                                               member_string (module, "name"), problem);
              g_free (problem);
              return message;
            }
        }
    }

  /* The last module is the app, built with meson from this checkout. */
  if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (modules, n - 1)))
    return g_strdup ("the app module is not an object");
  app_module = json_array_get_object_element (modules, n - 1);
  if (g_strcmp0 (member_string (app_module, "name"), "chokepoint") != 0)
    return g_strdup ("the last module is not chokepoint");
  if (g_strcmp0 (member_string (app_module, "buildsystem"), "meson") != 0)
    return g_strdup ("the chokepoint module is not built with meson");
  sources = member_array (app_module, "sources");
  if (sources == NULL || json_array_get_length (sources) != 1 ||
      !JSON_NODE_HOLDS_OBJECT (json_array_get_element (sources, 0)))
    return g_strdup ("the chokepoint module must have exactly one source");
  app_source = json_array_get_object_element (sources, 0);
  if (g_strcmp0 (member_string (app_source, "type"), "dir") != 0 ||
      g_strcmp0 (member_string (app_source, "path"), "..") != 0)
    return g_strdup ("the chokepoint module does not build the local checkout (dir \"..\")");

  return NULL;
}

static JsonNode *
load_manifest (void)
{
  const char *root = g_getenv ("CP_SOURCE_ROOT");
  g_autofree char *path = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (root);
  path = g_build_filename (root, "flatpak", MANIFEST_NAME, NULL);
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static void
test_manifest_meets_rules (void)
{
  g_autoptr(JsonNode) root = load_manifest ();
  g_autofree char *problem = check_manifest (root);

  g_assert_null (problem);
}

static JsonObject *
manifest_object (JsonNode *root)
{
  return json_node_get_object (root);
}

static void
assert_rejected (JsonNode   *root,
                 const char *expected_part)
{
  g_autofree char *problem = check_manifest (root);

  g_assert_nonnull (problem);
  g_assert_nonnull (strstr (problem, expected_part));
}

static void
test_rejects_host_filesystem (void)
{
  g_autoptr(JsonNode) root = load_manifest ();
  JsonArray *args = json_object_get_array_member (manifest_object (root), "finish-args");

  json_array_add_string_element (args, "--filesystem=host");
  assert_rejected (root, "--filesystem=host");
}

static void
test_rejects_extra_permission (void)
{
  g_autoptr(JsonNode) root = load_manifest ();
  JsonArray *args = json_object_get_array_member (manifest_object (root), "finish-args");

  json_array_add_string_element (args, "--socket=session-bus");
  assert_rejected (root, "--socket=session-bus");
}

static void
test_rejects_missing_permission (void)
{
  g_autoptr(JsonNode) root = load_manifest ();
  JsonArray *args = json_array_new ();

  json_array_add_string_element (args, "--share=ipc");
  json_array_add_string_element (args, "--socket=wayland");
  json_array_add_string_element (args, "--device=dri");
  json_object_set_array_member (manifest_object (root), "finish-args", args);
  assert_rejected (root, "--socket=fallback-x11");
}

static void
test_rejects_identity_changes (void)
{
  struct {
    const char *member;
    const char *value;
    const char *expected;
  } cases[] = {
    { "id", "org.example.Other", "id is" },
    { "command", "chokepoint-gtk", "command is" },
    { "runtime", "org.freedesktop.Platform", "runtime is" },
    { "runtime-version", "47", "runtime-version" },
    { "sdk", "org.freedesktop.Sdk", "sdk is" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) root = load_manifest ();

      json_object_set_string_member (manifest_object (root), cases[i].member, cases[i].value);
      assert_rejected (root, cases[i].expected);
    }
}

/* Puts a dependency module in front of the existing ones. */
static JsonObject *
add_dependency (JsonNode   *root,
                const char *source_type)
{
  JsonArray *modules = json_object_get_array_member (manifest_object (root), "modules");
  JsonObject *dep = json_object_new ();
  JsonArray *sources = json_array_new ();
  JsonObject *source = json_object_new ();
  JsonArray *new_modules = json_array_new ();

  json_object_set_string_member (dep, "name", "libexample");
  json_object_set_string_member (source, "type", source_type);
  json_object_set_string_member (source, "url", "https://example.org/libexample");
  json_array_add_object_element (sources, source);
  json_object_set_array_member (dep, "sources", sources);
  json_array_add_object_element (new_modules, dep);
  for (guint i = 0; i < json_array_get_length (modules); i++)
    json_array_add_element (new_modules, json_node_copy (json_array_get_element (modules, i)));
  json_object_set_array_member (manifest_object (root), "modules", new_modules);
  return source;
}

static void
test_dependencies_must_be_pinned (void)
{
  g_autoptr(JsonNode) git = load_manifest ();
  g_autoptr(JsonNode) archive = load_manifest ();
  JsonObject *source;
  g_autofree char *problem = NULL;

  source = add_dependency (git, "git");
  json_object_set_string_member (source, "branch", "main");
  assert_rejected (git, "commit");
  json_object_set_string_member (source, "commit", "0123456789abcdef0123456789abcdef01234567");
  problem = check_manifest (git);
  g_assert_null (problem);

  source = add_dependency (archive, "archive");
  assert_rejected (archive, "sha256");
  json_object_set_string_member (source, "sha256",
                                 "0000000000000000000000000000000000000000000000000000000000000000");
  g_clear_pointer (&problem, g_free);
  problem = check_manifest (archive);
  g_assert_null (problem);
}

static void
test_app_module_builds_checkout (void)
{
  g_autoptr(JsonNode) root = load_manifest ();
  JsonArray *modules = json_object_get_array_member (manifest_object (root), "modules");
  JsonObject *app = json_array_get_object_element (modules, json_array_get_length (modules) - 1);
  JsonObject *source = json_array_get_object_element (json_object_get_array_member (app, "sources"), 0);

  json_object_set_string_member (source, "path", "/home/someone/chokepoint");
  assert_rejected (root, "local checkout");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/flatpak/manifest/meets-rules", test_manifest_meets_rules);
  g_test_add_func ("/flatpak/manifest/rejects-host-filesystem", test_rejects_host_filesystem);
  g_test_add_func ("/flatpak/manifest/rejects-extra-permission", test_rejects_extra_permission);
  g_test_add_func ("/flatpak/manifest/rejects-missing-permission", test_rejects_missing_permission);
  g_test_add_func ("/flatpak/manifest/rejects-identity-changes", test_rejects_identity_changes);
  g_test_add_func ("/flatpak/manifest/dependencies-pinned", test_dependencies_must_be_pinned);
  g_test_add_func ("/flatpak/manifest/app-builds-checkout", test_app_module_builds_checkout);

  return g_test_run ();
}
