/* cp-document-portal.h: files shared through the document portal, and what a
 * sandbox can see
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * In a Flatpak sandbox without filesystem access, a file reaches the
 * application through the document portal, mounted at
 * $XDG_RUNTIME_DIR/doc: "/run/user/1000/doc/4e934306/run.pt.trace.json" is
 * document 4e934306. Its real place on the host is known to the portal only
 * (org.freedesktop.portal.Documents.GetHostPaths, interface version 5 and
 * later). A file named by a plain path from outside (a drop that offered only
 * text/uri-list) is usually invisible inside the sandbox: it reads as missing
 * although it exists.
 *
 * The pure parts take the sandbox state and the mount point as arguments, so
 * that they are tested outside a sandbox; the lookup talks to the session bus.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define CP_DOCUMENT_PORTAL_BUS_NAME  "org.freedesktop.portal.Documents"
#define CP_DOCUMENT_PORTAL_PATH      "/org/freedesktop/portal/documents"
#define CP_DOCUMENT_PORTAL_INTERFACE "org.freedesktop.portal.Documents"

/* Why a file could not be opened, as far as the sandbox is concerned. */
typedef enum
{
  CP_OPEN_FAILURE_OTHER,     /* not a missing or unreadable file: say what the error says */
  CP_OPEN_FAILURE_MISSING,   /* the file is not there (outside a sandbox, or where the sandbox sees) */
  CP_OPEN_FAILURE_SANDBOX,   /* in a sandbox, at a place it cannot see: it may well exist */
} CpOpenFailure;

/* TRUE inside a Flatpak sandbox (/.flatpak-info exists). Cached. */
gboolean       cp_is_sandboxed                     (void);

/* Where this process sees the document portal: $XDG_RUNTIME_DIR/doc. */
const char    *cp_document_portal_mount_point      (void);

/* The document id of path when it lies in a document under mount_point
 * (NULL: cp_document_portal_mount_point()), "by-app/APP-ID/" forms included,
 * else NULL. rest (may be NULL) gets what follows the id, without the
 * leading "/": the document's name and, for a shared folder, the path in it. */
char          *cp_document_portal_parse_path       (const char  *path,
                                                    const char  *mount_point,
                                                    char       **rest);

/* Why opening path failed with error (a GIO error from querying or opening
 * it). sandboxed is cp_is_sandboxed(); mount_point as above; visible is a
 * NULL-terminated list of folders the sandbox sees besides the document
 * portal (NULL: the application's own data, config and cache folders, and
 * its private /tmp is not among them). A missing or unreadable file in a
 * sandbox is CP_OPEN_FAILURE_SANDBOX unless it lies in the document portal
 * or a visible folder. */
CpOpenFailure  cp_classify_open_failure            (gboolean             sandboxed,
                                                    const char          *path,
                                                    const char          *mount_point,
                                                    const char * const  *visible,
                                                    const GError        *error);

/* The host path of a file the document portal serves, from its host_path
 * (the portal's answer for the document) and the rest of the sandbox path
 * (cp_document_portal_parse_path()): the document itself for a file, the
 * path below it for a shared folder. */
char          *cp_document_portal_join_host_path   (const char  *host_path,
                                                    const char  *rest);

/* Asks the document portal on the session bus where file really is. Fails
 * with G_IO_ERROR_NOT_FOUND when file is not in the document portal, and with
 * the D-Bus error when the portal is missing or too old (before version 5,
 * which has no GetHostPaths). The answer is a host file system path. */
void           cp_document_portal_lookup_async     (GFile               *file,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
char          *cp_document_portal_lookup_finish    (GAsyncResult        *result,
                                                    GError             **error);

G_END_DECLS
