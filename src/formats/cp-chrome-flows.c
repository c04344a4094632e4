/* cp-chrome-flows.c: flow events and the flows they make
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"
#include "cp-chrome-private.h"
#include "model/cp-huge-pages.h"

void
cp_chrome_on_flow (CpChromeReader *self,
                   Event          *e)
{
  FlowPt p;
  guint cls = cp_chrome_cat_class (self, e->cat);
  const char *cat = cp_trace_builder_get_string (self->b, e->cat);
  const char *name = cp_trace_builder_get_string (self->b, e->name);

  if (!(e->have & HAVE_ID))
    {
      self->report->skipped++;
      cp_chrome_warn_once (self, W_BAD_FLOW, e->offset, _("Flow events without an id were skipped"));
      return;
    }
  p.key = mix64 (e->id_hash ^ mix64 (((guint64) e->cat << 32) | e->name));
  p.process = cp_chrome_process_for (self, &e->pid);
  p.tid = e->tid;
  p.ts = abs_time (self, e->ts);
  p.name = e->cat != CP_STR_EMPTY ? e->cat : e->name;
  if (cls == CAT_LAUNCH_FLOW || (strcmp (cat, "async") == 0 && strcmp (name, "launch") == 0))
    p.kind = CP_FLOW_LAUNCH;
  else if (cls == CAT_FWDBWD)
    p.kind = CP_FLOW_FWD_BWD;
  else
    p.kind = CP_FLOW_GENERIC;
  switch (e->ph)
    {
    case 's':
      p.order = 0;
      p.bind = CP_FLOW_BIND_ENCLOSING;
      break;
    case 't':
      p.order = 1;
      p.bind = CP_FLOW_BIND_ENCLOSING;
      break;
    case 'f':
    default:
      p.order = 2;
      if (e->bp == 'e' || strstr (cat, "input") != NULL || strstr (cat, "ipc.flow") != NULL)
        p.bind = CP_FLOW_BIND_ENCLOSING;
      else
        p.bind = CP_FLOW_BIND_NEXT;
      break;
    }
  cp_array_append_big (self->flow_pts, p);
  note_end (self, p.ts, 0);
}

/* The lane of a flow point on the thread tid of process, when no copy
 * starts at its time there: the device's kernel lane of the thread's
 * stream, else the host thread's lane. */
typedef struct
{
  guint    process;
  IdKey    tid;
  gboolean found;
  guint    lane;
} ThreadLane;

static gboolean
same_thread (const ThreadLane *m,
             guint             process,
             const IdKey      *tid)
{
  return m->process == process && m->tid.num == tid->num && m->tid.is_str == tid->is_str &&
         m->tid.str == tid->str;
}

static gboolean
thread_lane (CpChromeReader   *self,
             const CpProcess  *proc,
             guint             process,
             const IdKey      *tid,
             guint            *lane)
{
  if (proc->is_device)
    {
      Event fake = { 0 };
      CpLaneKey sk;

      fake.tid = *tid;
      fake.have = HAVE_TID;
      sk.num = cp_chrome_event_stream (self, &fake);
      sk.str = CP_STR_EMPTY;
      if (cp_trace_builder_has_lane (self->b, process, CP_LANE_KERNEL, sk, lane))
        return TRUE;
    }
  return cp_trace_builder_has_lane (self->b, process, CP_LANE_HOST_THREAD, cp_chrome_tid_lane_key (tid), lane);
}

void
cp_chrome_add_flows (CpChromeReader *self)
{
  guint unbound = 0, n_out = 0, n_in = self->flow_pts->len;
  guchar *block = (guchar *) self->flow_pts->data;
  gboolean any_transfer = g_hash_table_size (self->transfer_at) > 0;
  /* The last threads' lanes: points come in file order, a few threads'
   * at a time, and the lookups are what this loop costs. */
  ThreadLane memo[4];
  guint n_memo = 0, next_memo = 0;

  /* The builder's points are written over the read ones, which are
   * bigger: point n_out <= i goes where nothing unread lies. Both through
   * memcpy(), as the two types share the bytes. */
  G_STATIC_ASSERT (sizeof (CpBuilderFlowPoint) <= sizeof (FlowPt));
  for (guint i = 0; i < n_in; i++)
    {
      FlowPt in;
      const FlowPt *p = &in;
      CpBuilderFlowPoint out;
      const CpProcess *proc;
      guint lane = 0;
      gboolean found = FALSE, known = FALSE;

      memcpy (&in, block + (gsize) i * sizeof (FlowPt), sizeof in);
      proc = cp_trace_builder_get_process (self->b, p->process);
      if (proc->is_device && any_transfer)
        {
          TransferKey tk = { pack_id (&g_array_index (self->proc_pids, IdKey, p->process)),
                             pack_id (&p->tid), p->ts };
          gpointer v = g_hash_table_lookup (self->transfer_at, &tk);

          if (v != NULL)
            {
              lane = GPOINTER_TO_UINT (v) - 1;
              found = known = TRUE;
            }
        }
      for (guint m = 0; m < n_memo && !known; m++)
        if (same_thread (&memo[m], p->process, &p->tid))
          {
            found = memo[m].found;
            lane = memo[m].lane;
            known = TRUE;
          }
      if (!known)
        {
          found = thread_lane (self, proc, p->process, &p->tid, &lane);
          memo[next_memo] = (ThreadLane) { p->process, p->tid, found, lane };
          next_memo = (next_memo + 1) % G_N_ELEMENTS (memo);
          if (n_memo < G_N_ELEMENTS (memo))
            n_memo++;
        }
      if (!found)
        {
          unbound++;
          continue;
        }
      out.key = p->key;
      out.ts = CLAMP (p->ts, -CP_TIME_ABS_LIMIT, CP_TIME_ABS_LIMIT);
      out.lane = lane;
      out.seq = n_out;
      out.name = p->name;
      out.bind = p->bind;
      out.order = p->order;
      out.kind = p->kind;
      memcpy (block + (gsize) n_out * sizeof out, &out, sizeof out);
      n_out++;
    }
  if (n_in > 0)
    {
      gsize n_read;
      gpointer data = g_array_steal (self->flow_pts, &n_read);

      /* The points read were all written: the builder may use their room. */
      cp_trace_builder_take_flow_points (self->b, data, n_out, n_read * sizeof (FlowPt));
    }
  if (unbound > 0)
    cp_load_report_warn (self->report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%u flow event is on a thread without slices and was dropped",
                                      "%u flow events are on threads without slices and were dropped",
                                      unbound),
                         unbound);

  /* Flow v2: within one bind id, in time order, each slice that flows out
   * links to the next that flows in. */
  if (self->bind_pts->len > 1)
    {
      CpStr name = cp_trace_builder_intern (self->b, "flow", -1);

      g_array_sort (self->bind_pts, cp_chrome_cmp_bind);
      for (guint i = 0; i + 1 < self->bind_pts->len; i++)
        {
          const BindPt *a = &g_array_index (self->bind_pts, BindPt, i);
          const BindPt *b = &g_array_index (self->bind_pts, BindPt, i + 1);

          if (a->key == b->key && a->out && b->in)
            cp_trace_builder_add_flow (self->b, a->ref, b->ref, CP_FLOW_GENERIC, name);
        }
    }
}
