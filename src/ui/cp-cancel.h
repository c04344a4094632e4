/* cp-cancel.h: what the windows do with the work they start
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Cancels the work *cancellable guards, if any, and lets it go. */
static inline void
cp_ui_cancel (GCancellable **cancellable)
{
  if (*cancellable != NULL)
    g_cancellable_cancel (*cancellable);
  g_clear_object (cancellable);
}

/* Cancels the work *cancellable guards and puts a new one in its place,
 * for the work that replaces it; returns it. */
static inline GCancellable *
cp_ui_cancel_and_renew (GCancellable **cancellable)
{
  cp_ui_cancel (cancellable);
  *cancellable = g_cancellable_new ();
  return *cancellable;
}

G_END_DECLS
