/* cp-gen-xla.h: the XLA scenarios of cp-gen (JAX, TensorFlow, TPU)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "cp-gen-out.h"

G_BEGIN_DECLS

typedef struct
{
  const char *name;
  const char *summary;
  guint       default_steps;   /* without --steps; 0: 6 */
  const char *truth;           /* the truth's members, for --list */
} CpGenXlaScenario;

const CpGenXlaScenario *cp_gen_xla_scenarios (guint      *n);
const CpGenXlaScenario *cp_gen_xla_lookup    (const char *name);

/* Writes the scenario as one XSpace (n_steps steps, the scenario's default
 * when 0; host: the worker's number, which names the host and, for
 * xla-tf-worker, shifts its run) and, when truth_path is not NULL, its
 * ground truth (see cp-gen-xla.c). */
gboolean                cp_gen_xla_write     (const CpGenXlaScenario *scenario,
                                              CpGenOut               *out,
                                              guint                   n_steps,
                                              guint                   host,
                                              const char             *truth_path,
                                              guint64                *n_events,
                                              GError                **error);

/* A small XSpace for other generators: planes of lines of events (ns from
 * the capture's epoch start, each line's timestamp), written with the
 * hostname and a Task Environment plane of the given duration. */
typedef struct _CpGenXSpace CpGenXSpace;
typedef struct _CpGenXPlane CpGenXPlane;
typedef struct _CpGenXLine  CpGenXLine;

CpGenXSpace *cp_gen_xspace_new   (void);
void         cp_gen_xspace_free  (CpGenXSpace *sp);
CpGenXPlane *cp_gen_xspace_plane (CpGenXSpace *sp,
                                  gint64       id,
                                  const char  *name);
CpGenXLine  *cp_gen_xspace_line  (CpGenXPlane *plane,
                                  gint64       id,
                                  const char  *name);
/* An event; hlo_category (may be NULL) as XLA's stat of that name. */
void         cp_gen_xspace_event (CpGenXPlane *plane,
                                  CpGenXLine  *line,
                                  const char  *name,
                                  gint64       start,
                                  gint64       dur,
                                  const char  *hlo_category);
gboolean     cp_gen_xspace_write (CpGenXSpace  *sp,
                                  const char   *path,
                                  const char   *hostname,
                                  gint64        duration,
                                  GError      **error);

G_END_DECLS
