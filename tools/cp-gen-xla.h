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
} CpGenXlaScenario;

const CpGenXlaScenario *cp_gen_xla_scenarios (guint      *n);
const CpGenXlaScenario *cp_gen_xla_lookup    (const char *name);

/* Writes the scenario as one XSpace (n_steps steps, 6 when 0; host: the
 * worker's number, which names the host and, for xla-tf-worker, shifts its
 * run) and, when
 * truth_path is not NULL, its ground truth (see cp-gen-xla.c). */
gboolean                cp_gen_xla_write     (const CpGenXlaScenario *scenario,
                                              CpGenOut               *out,
                                              guint                   n_steps,
                                              guint                   host,
                                              const char             *truth_path,
                                              guint64                *n_events,
                                              GError                **error);

G_END_DECLS
