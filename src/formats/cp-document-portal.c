/* cp-document-portal.c: files shared through the document portal, and what a
 * sandbox can see
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "cp-document-portal.h"

/* A portal that does not answer soon is as good as none: the window shows
 * the file name meanwhile and does not wait for it. */
#define LOOKUP_TIMEOUT_MS 5000

gboolean
cp_is_sandboxed (void)
{
  static gsize done = 0;
  static gboolean sandboxed = FALSE;

  if (g_once_init_enter (&done))
    {
      sandboxed = g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS);
      g_once_init_leave (&done, 1);
    }
  return sandboxed;
}

const char *
cp_document_portal_mount_point (void)
{
  static gsize done = 0;
  static char *mount_point = NULL;

  if (g_once_init_enter (&done))
    {
      mount_point = g_build_filename (g_get_user_runtime_dir (), "doc", NULL);
      g_once_init_leave (&done, 1);
    }
  return mount_point;
}

/* The part of path below folder ("" for folder itself), or NULL when path is
 * not in it. Both are absolute; repeated slashes in path count as one. */
static const char *
path_below (const char *path,
            const char *folder)
{
  size_t n;

  if (path == NULL || folder == NULL || folder[0] != '/')
    return NULL;
  n = strlen (folder);
  while (n > 1 && folder[n - 1] == '/')
    n--;
  if (strncmp (path, folder, n) != 0)
    return NULL;
  if (n == 1)
    path += 1;
  else if (path[n] == '\0')
    return path + n;
  else if (path[n] == '/')
    path += n + 1;
  else
    return NULL;
  while (*path == '/')
    path++;
  return path;
}

/* The first component of *p (up to a slash), advancing *p past it and the
 * slashes after it. NULL when *p is empty. */
static char *
next_component (const char **p)
{
  const char *s = *p;
  const char *end = strchr (s, '/');
  char *component;

  if (*s == '\0')
    return NULL;
  if (end == NULL)
    end = s + strlen (s);
  component = g_strndup (s, end - s);
  while (*end == '/')
    end++;
  *p = end;
  return component;
}

char *
cp_document_portal_parse_path (const char  *path,
                               const char  *mount_point,
                               char       **rest)
{
  const char *p;
  g_autofree char *id = NULL;

  if (rest != NULL)
    *rest = NULL;
  if (mount_point == NULL)
    mount_point = cp_document_portal_mount_point ();
  p = path_below (path, mount_point);
  if (p == NULL)
    return NULL;

  id = next_component (&p);
  if (id != NULL && g_str_equal (id, "by-app"))
    {
      /* by-app/APP-ID/DOC-ID/...: the same documents as seen by one app. */
      g_autofree char *app = next_component (&p);

      g_clear_pointer (&id, g_free);
      if (app != NULL)
        id = next_component (&p);
    }
  /* The mount point itself, or a document folder without a name in it, is
   * not a file of a document. */
  if (id == NULL || *p == '\0' || g_str_equal (id, ".") || g_str_equal (id, ".."))
    return NULL;

  if (rest != NULL)
    *rest = g_strdup (p);
  return g_steal_pointer (&id);
}

static gboolean
error_is_missing (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static gboolean
error_is_unreadable (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
}

CpOpenFailure
cp_classify_open_failure (gboolean            sandboxed,
                          const char         *path,
                          const char         *mount_point,
                          const char * const *visible,
                          const GError       *error)
{
  const char *own[] = { g_get_user_data_dir (), g_get_user_config_dir (), g_get_user_cache_dir (), NULL };

  if (error == NULL || (!error_is_missing (error) && !error_is_unreadable (error)))
    return CP_OPEN_FAILURE_OTHER;
  if (!sandboxed || path == NULL || path[0] != '/')
    return error_is_missing (error) ? CP_OPEN_FAILURE_MISSING : CP_OPEN_FAILURE_OTHER;

  if (mount_point == NULL)
    mount_point = cp_document_portal_mount_point ();
  if (visible == NULL)
    visible = own;

  /* Where the sandbox does see, a missing file is missing and an unreadable
   * one unreadable. */
  if (path_below (path, mount_point) != NULL)
    return error_is_missing (error) ? CP_OPEN_FAILURE_MISSING : CP_OPEN_FAILURE_OTHER;
  for (guint i = 0; visible[i] != NULL; i++)
    if (path_below (path, visible[i]) != NULL)
      return error_is_missing (error) ? CP_OPEN_FAILURE_MISSING : CP_OPEN_FAILURE_OTHER;

  return CP_OPEN_FAILURE_SANDBOX;
}

char *
cp_document_portal_join_host_path (const char *host_path,
                                   const char *rest)
{
  const char *below;

  g_return_val_if_fail (host_path != NULL, NULL);

  /* rest is the document's name, then (for a folder) the path in it. */
  below = rest != NULL ? strchr (rest, '/') : NULL;
  while (below != NULL && *below == '/')
    below++;
  if (below == NULL || *below == '\0')
    return g_strdup (host_path);
  return g_build_filename (host_path, below, NULL);
}

/* Lookup ------------------------------------------------------------------- */

typedef struct
{
  char *id;
  char *rest;
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_free (lookup->id);
  g_free (lookup->rest);
  g_free (lookup);
}

/* The host path in the portal's a{say} answer for id, or NULL. The bytes may
 * or may not end with a nul. */
static char *
host_path_from_reply (GVariant   *reply,
                      const char *id)
{
  g_autoptr(GVariant) paths = g_variant_get_child_value (reply, 0);
  g_autoptr(GVariant) bytes = g_variant_lookup_value (paths, id, G_VARIANT_TYPE_BYTESTRING);
  const char *data;
  gsize n;

  if (bytes == NULL)
    return NULL;
  data = g_variant_get_fixed_array (bytes, &n, 1);
  while (n > 0 && data[n - 1] == '\0')
    n--;
  if (n == 0 || data[0] != '/' || memchr (data, '\0', n) != NULL)
    return NULL;
  return g_strndup (data, n);
}

static void
call_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Lookup *lookup = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_autofree char *host = NULL;

  if (reply == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  host = host_path_from_reply (reply, lookup->id);
  if (host == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               "The document portal does not know document %s", lookup->id);
      return;
    }
  g_task_return_pointer (task, cp_document_portal_join_host_path (host, lookup->rest), g_free);
}

static void
bus_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Lookup *lookup = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_finish (result, &error);
  const char *ids[] = { lookup->id, NULL };

  if (bus == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_dbus_connection_call (bus, CP_DOCUMENT_PORTAL_BUS_NAME, CP_DOCUMENT_PORTAL_PATH,
                          CP_DOCUMENT_PORTAL_INTERFACE, "GetHostPaths",
                          g_variant_new ("(^as)", ids), G_VARIANT_TYPE ("(a{say})"),
                          G_DBUS_CALL_FLAGS_NONE, LOOKUP_TIMEOUT_MS,
                          g_task_get_cancellable (task), call_cb, g_object_ref (task));
}

void
cp_document_portal_lookup_async (GFile               *file,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL;
  Lookup *lookup;

  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, cp_document_portal_lookup_async);
  path = g_file_get_path (file);
  lookup = g_new0 (Lookup, 1);
  lookup->id = cp_document_portal_parse_path (path, NULL, &lookup->rest);
  g_task_set_task_data (task, lookup, (GDestroyNotify) lookup_free);
  if (lookup->id == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                               "Not a file of the document portal");
      return;
    }
  g_bus_get (G_BUS_TYPE_SESSION, cancellable, bus_cb, g_steal_pointer (&task));
}

char *
cp_document_portal_lookup_finish (GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cp_document_portal_lookup_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
