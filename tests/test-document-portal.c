/* test-document-portal.c: paths of the document portal, what a sandbox
 * cannot see, and asking a portal on a private bus where a file really is
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "formats/cp-document-portal.h"

#define MOUNT "/run/user/1000/doc"

static void
check_parse (const char *path,
             const char *want_id,
             const char *want_rest)
{
  g_autofree char *rest = NULL;
  g_autofree char *id = cp_document_portal_parse_path (path, MOUNT, &rest);

  g_assert_cmpstr (id, ==, want_id);
  g_assert_cmpstr (rest, ==, want_rest);
}

static void
test_parse_path (void)
{
  check_parse (MOUNT "/4e934306/worker0.pt.trace.json.gz", "4e934306", "worker0.pt.trace.json.gz");
  check_parse (MOUNT "//4e934306//worker0.json", "4e934306", "worker0.json");
  /* A shared folder: the path in it comes along. */
  check_parse (MOUNT "/a1b2c3d4/profile/plugins/profile/run/host.xplane.pb", "a1b2c3d4",
               "profile/plugins/profile/run/host.xplane.pb");
  /* The host's per-application view of the same documents. */
  check_parse (MOUNT "/by-app/io.github.chokepoint.Chokepoint/4e934306/run.json", "4e934306", "run.json");
  check_parse (MOUNT "/by-app/io.github.chokepoint.Chokepoint", NULL, NULL);
  /* The mount point and a document folder alone are not files. */
  check_parse (MOUNT, NULL, NULL);
  check_parse (MOUNT "/", NULL, NULL);
  check_parse (MOUNT "/4e934306", NULL, NULL);
  check_parse (MOUNT "/4e934306/", NULL, NULL);
  check_parse (MOUNT "/../4e934306/x", NULL, NULL);
  /* Elsewhere, or a name that only starts like the mount point. */
  check_parse ("/run/user/1000/documents/4e934306/run.json", NULL, NULL);
  check_parse ("/home/ana/run.json", NULL, NULL);
  check_parse ("run.json", NULL, NULL);
  check_parse (NULL, NULL, NULL);

  /* A mount point given with a trailing slash works the same. */
  {
    g_autofree char *id = cp_document_portal_parse_path (MOUNT "/77/x.json", MOUNT "/", NULL);

    g_assert_cmpstr (id, ==, "77");
  }
}

static void
test_default_mount_point (void)
{
  g_autofree char *want = g_build_filename (g_get_user_runtime_dir (), "doc", NULL);
  g_autofree char *path = g_build_filename (want, "abc", "run.json", NULL);
  g_autofree char *id = cp_document_portal_parse_path (path, NULL, NULL);

  g_assert_cmpstr (cp_document_portal_mount_point (), ==, want);
  g_assert_cmpstr (id, ==, "abc");
}

static void
test_classify (void)
{
  g_autoptr(GError) missing = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No such file");
  g_autoptr(GError) denied = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "Denied");
  g_autoptr(GError) other = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, "A folder");
  const char *visible[] = { "/home/ana/.var/app/io.github.chokepoint.Chokepoint/data", NULL };
  const char *host = "/home/ana/runs/worker0.pt.trace.json.gz";

  /* Outside a sandbox a missing file is missing, wherever it is. */
  g_assert_cmpint (cp_classify_open_failure (FALSE, host, MOUNT, visible, missing), ==, CP_OPEN_FAILURE_MISSING);
  g_assert_cmpint (cp_classify_open_failure (FALSE, host, MOUNT, visible, denied), ==, CP_OPEN_FAILURE_OTHER);
  g_assert_cmpint (cp_classify_open_failure (FALSE, MOUNT "/1/x", MOUNT, visible, missing), ==,
                   CP_OPEN_FAILURE_MISSING);

  /* In one, a host path it cannot see reads as missing or unreadable: the
   * sandbox is the reason, not the file. */
  g_assert_cmpint (cp_classify_open_failure (TRUE, host, MOUNT, visible, missing), ==, CP_OPEN_FAILURE_SANDBOX);
  g_assert_cmpint (cp_classify_open_failure (TRUE, host, MOUNT, visible, denied), ==, CP_OPEN_FAILURE_SANDBOX);
  g_assert_cmpint (cp_classify_open_failure (TRUE, "/tmp/run.json", MOUNT, visible, missing), ==,
                   CP_OPEN_FAILURE_SANDBOX);
  /* What the portal shared, or what lies in the app's own folders, is seen:
   * missing means missing there. */
  g_assert_cmpint (cp_classify_open_failure (TRUE, MOUNT "/4e934306/x.json", MOUNT, visible, missing), ==,
                   CP_OPEN_FAILURE_MISSING);
  g_assert_cmpint (cp_classify_open_failure (TRUE, MOUNT "/4e934306/x.json", MOUNT, visible, denied), ==,
                   CP_OPEN_FAILURE_OTHER);
  g_assert_cmpint (cp_classify_open_failure (TRUE, "/home/ana/.var/app/io.github.chokepoint.Chokepoint/data/x.json",
                                             MOUNT, visible, missing), ==, CP_OPEN_FAILURE_MISSING);
  /* A folder named like a visible one is not in it. */
  g_assert_cmpint (cp_classify_open_failure (TRUE, "/home/ana/.var/app/io.github.chokepoint.Chokepoint/data2/x",
                                             MOUNT, visible, missing), ==, CP_OPEN_FAILURE_SANDBOX);
  /* Other errors, no error, or no local path: nothing to do with it. */
  g_assert_cmpint (cp_classify_open_failure (TRUE, host, MOUNT, visible, other), ==, CP_OPEN_FAILURE_OTHER);
  g_assert_cmpint (cp_classify_open_failure (TRUE, host, MOUNT, visible, NULL), ==, CP_OPEN_FAILURE_OTHER);
  g_assert_cmpint (cp_classify_open_failure (TRUE, NULL, MOUNT, visible, missing), ==, CP_OPEN_FAILURE_MISSING);

  /* The default visible folders are the application's own. */
  {
    g_autofree char *own = g_build_filename (g_get_user_data_dir (), "x.json", NULL);

    g_assert_cmpint (cp_classify_open_failure (TRUE, own, MOUNT, NULL, missing), ==, CP_OPEN_FAILURE_MISSING);
    g_assert_cmpint (cp_classify_open_failure (TRUE, host, MOUNT, NULL, missing), ==, CP_OPEN_FAILURE_SANDBOX);
  }
}

static void
test_join (void)
{
  g_autofree char *file = cp_document_portal_join_host_path ("/home/ana/runs/w0.json", "w0.json");
  g_autofree char *in_folder = cp_document_portal_join_host_path ("/home/ana/profile", "profile/plugins/x.pb");
  g_autofree char *no_rest = cp_document_portal_join_host_path ("/home/ana/w0.json", NULL);

  g_assert_cmpstr (file, ==, "/home/ana/runs/w0.json");
  g_assert_cmpstr (in_folder, ==, "/home/ana/profile/plugins/x.pb");
  g_assert_cmpstr (no_rest, ==, "/home/ana/w0.json");
}

/* A document portal on a private bus ---------------------------------------- */

static const char portal_xml[] =
  "<node>"
  "  <interface name='org.freedesktop.portal.Documents'>"
  "    <method name='GetHostPaths'>"
  "      <arg type='as' name='doc_ids' direction='in'/>"
  "      <arg type='a{say}' name='paths' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

typedef struct
{
  GTestDBus       *bus;
  GDBusConnection *connection;
  guint            object_id;
  guint            owner_id;
  guint            calls;
} Fixture;

static void
portal_method_call (GDBusConnection       *connection,
                    const char            *sender,
                    const char            *object_path,
                    const char            *interface_name,
                    const char            *method_name,
                    GVariant              *parameters,
                    GDBusMethodInvocation *invocation,
                    gpointer               user_data)
{
  Fixture *fixture = user_data;
  g_autofree const char **ids = NULL;
  GVariantBuilder builder;

  fixture->calls++;
  g_variant_get (parameters, "(^a&s)", &ids);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{say}"));
  for (guint i = 0; ids[i] != NULL; i++)
    {
      if (g_str_equal (ids[i], "4e934306"))
        g_variant_builder_add (&builder, "{s@ay}", ids[i],
                               g_variant_new_bytestring ("/home/ana/runs/worker0.pt.trace.json.gz"));
      else if (g_str_equal (ids[i], "f01de5"))
        g_variant_builder_add (&builder, "{s@ay}", ids[i], g_variant_new_bytestring ("/srv/profiles/run7"));
      /* Unknown ids are left out, as the portal does. */
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a{say})", &builder));
}

static const GDBusInterfaceVTable portal_vtable = { portal_method_call, NULL, NULL, { 0 } };

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  gboolean with_portal = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autofree char *daemon = g_find_program_in_path ("dbus-daemon");

  if (daemon == NULL)
    return;
  fixture->bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (fixture->bus);
  fixture->connection = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  if (with_portal)
    {
      g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (portal_xml, &error);

      g_assert_no_error (error);
      fixture->object_id = g_dbus_connection_register_object (fixture->connection, CP_DOCUMENT_PORTAL_PATH,
                                                              node->interfaces[0], &portal_vtable, fixture,
                                                              NULL, &error);
      g_assert_no_error (error);
      fixture->owner_id = g_bus_own_name_on_connection (fixture->connection, CP_DOCUMENT_PORTAL_BUS_NAME,
                                                        G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
      /* Wait until the name is ours. */
      while (TRUE)
        {
          g_autoptr(GVariant) owner = g_dbus_connection_call_sync (fixture->connection, "org.freedesktop.DBus",
                                                                   "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                                   "NameHasOwner",
                                                                   g_variant_new ("(s)", CP_DOCUMENT_PORTAL_BUS_NAME),
                                                                   G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE,
                                                                   -1, NULL, NULL);
          gboolean has = FALSE;

          if (owner != NULL)
            g_variant_get (owner, "(b)", &has);
          if (has)
            break;
          g_main_context_iteration (NULL, TRUE);
        }
    }
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->bus == NULL)
    return;
  if (fixture->owner_id != 0)
    g_bus_unown_name (fixture->owner_id);
  if (fixture->object_id != 0)
    g_dbus_connection_unregister_object (fixture->connection, fixture->object_id);
  g_dbus_connection_close_sync (fixture->connection, NULL, NULL);
  g_clear_object (&fixture->connection);
  g_test_dbus_down (fixture->bus);
  g_clear_object (&fixture->bus);
}

static void
lookup_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* The host path for a path in this process's document portal, or NULL with
 * error set. */
static char *
lookup (const char  *below_mount,
        GError     **error)
{
  g_autofree char *path = g_build_filename (cp_document_portal_mount_point (), below_mount, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GAsyncResult) result = NULL;

  cp_document_portal_lookup_async (file, NULL, lookup_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return cp_document_portal_lookup_finish (result, error);
}

static void
test_lookup (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *file = NULL;
  g_autofree char *in_folder = NULL;
  g_autofree char *unknown = NULL;
  g_autofree char *outside = NULL;

  if (fixture->bus == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  file = lookup ("4e934306/worker0.pt.trace.json.gz", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (file, ==, "/home/ana/runs/worker0.pt.trace.json.gz");

  in_folder = lookup ("f01de5/run7/plugins/profile/2026_12_01/host.xplane.pb", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (in_folder, ==, "/srv/profiles/run7/plugins/profile/2026_12_01/host.xplane.pb");
  g_assert_cmpuint (fixture->calls, ==, 2);

  unknown = lookup ("0bad0bad/run.json", &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (unknown);
  g_clear_error (&error);

  /* A file outside the portal is not asked about. */
  {
    g_autoptr(GFile) elsewhere = g_file_new_for_path ("/home/ana/run.json");
    g_autoptr(GAsyncResult) result = NULL;

    cp_document_portal_lookup_async (elsewhere, NULL, lookup_cb, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    outside = cp_document_portal_lookup_finish (result, &error);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_assert_null (outside);
    g_assert_cmpuint (fixture->calls, ==, 3);
  }
}

/* No portal on the bus (or one before version 5): an error, soon. */
static void
test_lookup_no_portal (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *host = NULL;

  if (fixture->bus == NULL)
    {
      g_test_skip ("dbus-daemon is not installed");
      return;
    }
  host = lookup ("4e934306/worker0.pt.trace.json.gz", &error);
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_DBUS_ERROR || error->domain == G_IO_ERROR);
  g_assert_null (host);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = NULL;

  /* The document portal of this process lives under a runtime folder of the
   * test's own, before GLib reads the variable. */
  runtime = g_dir_make_tmp ("cp-doc-portal-XXXXXX", NULL);
  g_assert_nonnull (runtime);
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/document-portal/parse-path", test_parse_path);
  g_test_add_func ("/document-portal/default-mount-point", test_default_mount_point);
  g_test_add_func ("/document-portal/classify", test_classify);
  g_test_add_func ("/document-portal/join", test_join);
  g_test_add ("/document-portal/lookup", Fixture, GINT_TO_POINTER (TRUE), fixture_set_up, test_lookup,
              fixture_tear_down);
  g_test_add ("/document-portal/lookup-no-portal", Fixture, GINT_TO_POINTER (FALSE), fixture_set_up,
              test_lookup_no_portal, fixture_tear_down);

  {
    int status = g_test_run ();

    g_rmdir (runtime);
    return status;
  }
}
