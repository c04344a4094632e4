/* cp-sidecar.h: annotations saved beside the capture (<capture>.chokepoint.json)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "model/cp-annotations.h"

G_BEGIN_DECLS

/* The schema is documented in docs/sidecar.md. */
#define CP_SIDECAR_FORMAT          "chokepoint-annotations"
#define CP_SIDECAR_SCHEMA_VERSION  1
#define CP_SIDECAR_SUFFIX          ".chokepoint.json"
/* What a damaged sidecar is renamed to, before a number if it is taken. */
#define CP_SIDECAR_DAMAGED_SUFFIX  ".damaged"
/* The capture's content hash covers its size and at most this many bytes at
 * each end, so that a multi-GB capture is not read again. */
#define CP_SIDECAR_HASH_SPAN       (1024 * 1024)

#define CP_SIDECAR_ERROR (cp_sidecar_error_quark ())

typedef enum
{
  CP_SIDECAR_ERROR_DAMAGED,   /* not JSON, not a sidecar, or invalid members */
  CP_SIDECAR_ERROR_NEWER,     /* a schema version newer than this build reads */
  CP_SIDECAR_ERROR_IO,        /* it exists but cannot be read */
  CP_SIDECAR_ERROR_DISABLED,  /* no place is left to save to */
} CpSidecarError;

GQuark     cp_sidecar_error_quark    (void);

/* Stateless parts ---------------------------------------------------------- */

/* The annotations as sidecar JSON. trace (may be NULL) gives the origin;
 * capture_name, capture_bytes and capture_hash (may be NULL) describe the
 * capture. */
char      *cp_sidecar_to_json        (CpAnnotations *annotations,
                                      CpTrace       *trace,
                                      const char    *capture_name,
                                      gint64         capture_bytes,
                                      const char    *capture_hash);
/* Reads sidecar JSON into annotations (all or nothing). Times are moved to
 * the origin of the annotations' trace when the sidecar was written for a
 * different origin. Errors: CP_SIDECAR_ERROR_DAMAGED or _NEWER. */
gboolean   cp_sidecar_parse          (const char    *data,
                                      gssize         len,
                                      CpAnnotations *annotations,
                                      GError       **error);
/* The hex SHA-256 of a capture's size and its first and last
 * CP_SIDECAR_HASH_SPAN bytes (for a folder: of the names and sizes of the
 * files in it). Blocking. */
char      *cp_sidecar_hash_capture   (GFile         *capture,
                                      GCancellable  *cancellable,
                                      GError       **error);
/* Writes data to file atomically: a temporary file in the same folder,
 * flushed to disk, renamed over the old one. On failure the old file is
 * left as it was and no temporary file remains. */
gboolean   cp_sidecar_write_atomic   (GFile         *file,
                                      const char    *data,
                                      gsize          len,
                                      GError       **error);

/* The sidecar of one capture ----------------------------------------------- */

/* Whether the folder may be written to: the default asks access(2). Tests
 * replace it (root may write anywhere). May be called from a worker thread. */
typedef gboolean (*CpSidecarWritableFunc) (GFile    *folder,
                                           gpointer  user_data);

#define CP_TYPE_SIDECAR (cp_sidecar_get_type ())

G_DECLARE_FINAL_TYPE (CpSidecar, cp_sidecar, CP, SIDECAR, GObject)

/* The sidecar of capture, holding annotations (whose trace should be set
 * first, for its origin). Signals are emitted on the thread-default main
 * context of the caller:
 *   "saved" (GFile *file)                 after each write
 *   "relocated" (GFile *file, char *why)  saving moved to another place (the
 *                                         capture's folder cannot be written)
 *   "save-failed" (char *message)         nothing could be written; the
 *                                         changes stay and are tried again */
CpSidecar *cp_sidecar_new                (GFile         *capture,
                                          CpAnnotations *annotations);

GFile     *cp_sidecar_get_capture        (CpSidecar *self);
CpAnnotations *cp_sidecar_get_annotations (CpSidecar *self);
/* <capture>.chokepoint.json */
GFile     *cp_sidecar_get_primary_file   (CpSidecar *self);
/* <fallback folder>/<content hash>.chokepoint.json (hashes the capture the
 * first time). */
GFile     *cp_sidecar_get_fallback_file  (CpSidecar *self,
                                          GError   **error);
/* Defaults to $XDG_DATA_HOME/chokepoint/annotations. */
void       cp_sidecar_set_fallback_folder (CpSidecar  *self,
                                           const char *path);
void       cp_sidecar_set_writable_func  (CpSidecar             *self,
                                          CpSidecarWritableFunc  func,
                                          gpointer               user_data);

/* Where the annotations were read from or last written to; NULL before. */
GFile     *cp_sidecar_get_file           (CpSidecar *self);
gboolean   cp_sidecar_is_fallback        (CpSidecar *self);

/* Reads the sidecar beside the capture and the one in the fallback folder
 * (merged when both exist; see cp_sidecar_get_merge_note()), into the
 * annotations. No sidecar is not an error. A sidecar that exists but
 * cannot be used (damaged, newer, unreadable) returns FALSE and an error
 * naming it; it is left untouched and nothing is saved until
 * cp_sidecar_accept_problem() says the user was told. Blocking (a small
 * file; the capture's hash reads at most 2 MiB). */
gboolean   cp_sidecar_load               (CpSidecar *self,
                                          GError   **error);
/* After cp_sidecar_load(): when notes were found both beside the capture
 * and in the data folder and the two copies differed (they are merged: the
 * copy changed last wins for each note, and notes in only one are kept), or
 * the second copy could not be read, a sentence saying so for the user;
 * else NULL. */
const char *cp_sidecar_get_merge_note    (CpSidecar *self);
/* Whether a problem from cp_sidecar_load() waits to be accepted. */
gboolean   cp_sidecar_has_problem        (CpSidecar *self);
/* Call once the user was told about the load error. A damaged file is
 * renamed aside (<name>.damaged, .damaged-2...) and a fresh one is started;
 * a newer one is left in place and saving goes to the fallback folder.
 * Returns a sentence for people saying what was kept where and where new
 * annotations go. */
char      *cp_sidecar_accept_problem     (CpSidecar *self);

/* Writes the annotations now, beside the capture, else in the fallback
 * folder (blocking). Nothing is written while a problem waits, or when
 * nothing changed since the last write. */
gboolean   cp_sidecar_save               (CpSidecar *self,
                                          GError   **error);
/* Saves delay_ms after the last change of the annotations (0: no
 * autosave), in a worker thread. */
void       cp_sidecar_set_autosave       (CpSidecar *self,
                                          guint      delay_ms);
/* Saves pending changes now, waiting for a write in flight. */
gboolean   cp_sidecar_flush              (CpSidecar *self,
                                          GError   **error);
gboolean   cp_sidecar_has_unsaved_changes (CpSidecar *self);

G_END_DECLS
