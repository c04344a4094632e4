/* cp-chrome-events.c: events into lanes and slices
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

/* Classification */

static gboolean
ascii_equal (const char *a,
             const char *b)
{
  return g_ascii_strcasecmp (a, b) == 0;
}

guint
cp_chrome_cat_class (CpChromeReader *self,
                     CpStr           cat)
{
  guint8 c;

  if (cat >= self->cat_class->len)
    g_array_set_size (self->cat_class, cat + 64);
  c = g_array_index (self->cat_class, guint8, cat);
  if (c == 0)
    {
      const char *s = cp_trace_builder_get_string (self->b, cat);

      if (ascii_equal (s, "kernel"))
        c = CAT_KERNEL;
      else if (ascii_equal (s, "gpu_memcpy") || ascii_equal (s, "memcpy"))
        c = CAT_MEMCPY;
      else if (ascii_equal (s, "gpu_memset") || ascii_equal (s, "memset"))
        c = CAT_MEMSET;
      else if (ascii_equal (s, "gpu_user_annotation"))
        c = CAT_GPU_ANNOTATION;
      else if (ascii_equal (s, "cuda_sync"))
        c = CAT_SYNC;
      else if (ascii_equal (s, "ac2g"))
        c = CAT_LAUNCH_FLOW;
      else if (ascii_equal (s, "fwdbwd"))
        c = CAT_FWDBWD;
      else if (ascii_equal (s, "mtia_ccp_events"))
        c = CAT_MTIA_DEVICE;
      else
        c = CAT_HOST;
      g_array_index (self->cat_class, guint8, cat) = c;
    }
  return c;
}

CpTransferKind
cp_chrome_transfer_kind (const char *name,
                         guint16    *flags)
{
  const char *p;
  CpTransferKind kind = CP_TRANSFER_OTHER;
  const char *paren;

  *flags = 0;
  if (name == NULL)
    return CP_TRANSFER_OTHER;
  if (strstr (name, "Memset") != NULL || strstr (name, "memset") != NULL)
    return CP_TRANSFER_MEMSET;
  p = strstr (name, "Memcpy");
  if (p == NULL)
    p = strstr (name, "memcpy");
  if (p != NULL)
    {
      p += 6;
      while (*p == ' ')
        p++;
      if (g_str_has_prefix (p, "HtoD"))
        kind = CP_TRANSFER_HTOD;
      else if (g_str_has_prefix (p, "DtoH"))
        kind = CP_TRANSFER_DTOH;
      else if (g_str_has_prefix (p, "DtoD"))
        kind = CP_TRANSFER_DTOD;
      else if (g_str_has_prefix (p, "PtoP"))
        kind = CP_TRANSFER_PTOP;
    }
  paren = strchr (name, '(');
  if (paren != NULL)
    {
      if (strstr (paren, "Pageable") != NULL)
        *flags |= CP_SLICE_PAGEABLE;
      else if (strstr (paren, "Pinned") != NULL)
        *flags |= CP_SLICE_PINNED;
    }
  return kind;
}

guint16
cp_chrome_name_info (CpChromeReader *self,
                     CpStr           name)
{
  guint16 v;

  if (name >= self->name_info->len)
    g_array_set_size (self->name_info, name + 1024);
  v = g_array_index (self->name_info, guint16, name);
  if (v == 0)
    {
      const char *s = cp_trace_builder_get_string (self->b, name);
      guint16 flags;
      CpTransferKind kind = cp_chrome_transfer_kind (s, &flags);

      v = NAME_KNOWN | (guint16) kind;
      if (flags & CP_SLICE_PAGEABLE)
        v |= NAME_PAGEABLE;
      if (flags & CP_SLICE_PINNED)
        v |= NAME_PINNED;
      if (strstr (s, "Synchronize") != NULL)
        v |= NAME_SYNC;
      g_array_index (self->name_info, guint16, name) = v;
    }
  return v;
}

guint
cp_chrome_process_for (CpChromeReader *self,
                       const IdKey    *pid)
{
  guint64 key;
  gpointer v;
  guint proc;

  for (guint i = 0; i < self->n_last_pid; i++)
    if (self->last_pid[i].is_str == pid->is_str && self->last_pid[i].num == pid->num &&
        self->last_pid[i].str == pid->str)
      return self->last_proc[i];

  key = pack_id (pid);
  v = g_hash_table_lookup (self->pid_map, &key);
  if (v != NULL)
    proc = GPOINTER_TO_UINT (v) - 1;
  else
    {
      gboolean f = FALSE;

      if (pid->is_str)
        {
          const char *s = cp_trace_builder_get_string (self->b, pid->str);

          proc = cp_trace_builder_process_for_string (self->b, s, -1);
          if (strcmp (s, "Spans") == 0 || strcmp (s, "Traces") == 0)
            cp_trace_builder_get_process (self->b, proc)->is_pseudo = TRUE;
        }
      else
        proc = cp_trace_builder_process_for_pid (self->b, pid->num);
      g_hash_table_insert (self->pid_map, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (proc + 1));
      if (proc >= self->proc_pids->len)
        {
          g_array_set_size (self->proc_pids, proc + 1);
          g_array_set_size (self->device_seen, proc + 1);
        }
      g_array_index (self->proc_pids, IdKey, proc) = *pid;
      g_array_index (self->device_seen, gboolean, proc) = f;
    }
  /* In the slot filled longest ago. */
  self->last_pid[self->next_last_pid] = *pid;
  self->last_proc[self->next_last_pid] = proc;
  self->next_last_pid = (self->next_last_pid + 1) % PID_CACHE_SIZE;
  self->n_last_pid = MIN (self->n_last_pid + 1, PID_CACHE_SIZE);
  return proc;
}

guint
cp_chrome_lane_for (CpChromeReader *self,
                    guint           process,
                    CpLaneKind      kind,
                    CpLaneKey       key,
                    gboolean       *created)
{
  guint64 h = mix64 (((guint64) process << 40) ^ ((guint64) kind << 32) ^ (guint64) key.num ^ ((guint64) key.str << 20));
  LaneCacheEntry *e = &self->lane_cache[h & (LANE_CACHE_SIZE - 1)];
  guint n_before, lane;

  if (e->valid && e->process == process && e->kind == (guint) kind &&
      e->num == key.num && e->str == key.str)
    {
      *created = FALSE;
      return e->lane;
    }
  n_before = cp_trace_builder_get_n_lanes (self->b);
  lane = cp_trace_builder_lane (self->b, process, kind, key);
  *created = cp_trace_builder_get_n_lanes (self->b) > n_before;
  e->valid = TRUE;
  e->process = process;
  e->kind = kind;
  e->num = key.num;
  e->str = key.str;
  e->lane = lane;
  return lane;
}

CpLaneKey
cp_chrome_tid_lane_key (const IdKey *tid)
{
  CpLaneKey k;

  k.num = tid->is_str ? 0 : tid->num;
  k.str = tid->is_str ? tid->str : CP_STR_EMPTY;
  return k;
}

/* The stream of a GPU event: numeric tid, "stream 7" (old Kineto), or args. */
gint64
cp_chrome_event_stream (CpChromeReader *self,
                        const Event    *e)
{
  if (!e->tid.is_str && (e->have & HAVE_TID))
    return e->tid.num;
  if (e->tid.is_str)
    {
      const char *s = cp_trace_builder_get_string (self->b, e->tid.str);
      gint64 v;

      if (g_str_has_prefix (s, "stream "))
        {
          const char *d = s + 7;
          gsize n = 0;

          while (g_ascii_isdigit (d[n]))
            n++;
          if (n > 0 && cp_json_parse_int64 (d, n, &v))
            return v;
        }
    }
  if ((e->have & HAVE_GPU) && e->gpu.stream >= 0)
    return e->gpu.stream;
  return 0;
}

static gint
event_device (const Event *e)
{
  if ((e->have & HAVE_GPU) && e->gpu.device >= 0)
    return e->gpu.device;
  if (!e->pid.is_str && e->pid.num >= 0 && e->pid.num < 4096)
    return (gint) e->pid.num;
  return 0;
}

static void
mark_device (CpChromeReader *self,
             guint           process,
             gint            device)
{
  if (!g_array_index (self->device_seen, gboolean, process))
    {
      CpProcess *p = cp_trace_builder_get_process (self->b, process);

      p->is_device = TRUE;
      p->device = device;
      g_array_index (self->device_seen, gboolean, process) = TRUE;
    }
}

typedef struct
{
  guint    lane;
  guint    process;
  guint16  flags;
  gboolean device_lane;
  gint     device;
  gint64   stream;
} LaneChoice;

static void
choose_lane (CpChromeReader *self,
             Event          *e,
             LaneChoice     *c)
{
  guint cls = cp_chrome_cat_class (self, e->cat);
  guint16 info = cp_chrome_name_info (self, e->name);
  gboolean created = FALSE;
  CpLaneKey key;

  c->process = cp_chrome_process_for (self, &e->pid);
  c->flags = 0;
  c->device_lane = FALSE;
  c->device = -1;
  c->stream = -1;

  if (info & NAME_SYNC)
    c->flags |= CP_SLICE_SYNC;

  /* MTIA: the device's DMA requests are transfers, its event records and
   * waits syncs on the queue, everything else it ran a kernel. */
  if (cls == CAT_MTIA_DEVICE)
    {
      const char *n = cp_trace_builder_get_string (self->b, e->name);

      if (strcmp (n, "dma_request") == 0)
        {
          CpTransferKind kind = e->direction != CP_TRANSFER_NONE ? e->direction : CP_TRANSFER_OTHER;

          if (e->size >= 0)
            {
              e->gpu.bytes = e->size;
              e->have |= HAVE_GPU;
            }
          c->device = event_device (e);
          c->stream = cp_chrome_event_stream (self, e);
          c->device_lane = TRUE;
          mark_device (self, c->process, c->device);
          key.num = kind;
          key.str = CP_STR_EMPTY;
          c->lane = cp_chrome_lane_for (self, c->process, CP_LANE_TRANSFER, key, &created);
          if (created)
            cp_trace_builder_set_lane_device (self->b, c->lane, c->device, -1);
          return;
        }
      cls = CAT_KERNEL;
      if (g_str_has_prefix (n, "event_"))
        c->flags |= CP_SLICE_SYNC;
    }

  switch (cls)
    {
    case CAT_KERNEL:
    case CAT_GPU_ANNOTATION:
    case CAT_SYNC:
      if (cls == CAT_SYNC)
        {
          c->flags |= CP_SLICE_SYNC;
          /* Host-side sync events stay on their thread. */
          if (!((e->have & HAVE_GPU) && e->gpu.device >= 0) &&
              !g_array_index (self->device_seen, gboolean, c->process))
            break;
        }
      c->device = event_device (e);
      c->stream = cp_chrome_event_stream (self, e);
      c->device_lane = TRUE;
      mark_device (self, c->process, c->device);
      key.num = cls == CAT_SYNC && !e->tid.is_str ? e->tid.num : c->stream;
      key.str = CP_STR_EMPTY;
      c->lane = cp_chrome_lane_for (self, c->process,
                                    cls == CAT_GPU_ANNOTATION ? CP_LANE_DEVICE_ANNOTATION : CP_LANE_KERNEL,
                                    key, &created);
      if (created)
        cp_trace_builder_set_lane_device (self->b, c->lane, c->device, key.num);
      return;

    case CAT_MEMCPY:
    case CAT_MEMSET:
      {
        CpTransferKind kind = cls == CAT_MEMSET ? CP_TRANSFER_MEMSET : (CpTransferKind) (info & NAME_TK_MASK);

        if (cls == CAT_MEMCPY && kind == CP_TRANSFER_MEMSET)
          kind = CP_TRANSFER_OTHER;
        if (info & NAME_PAGEABLE)
          c->flags |= CP_SLICE_PAGEABLE;
        if (info & NAME_PINNED)
          c->flags |= CP_SLICE_PINNED;
        c->device = event_device (e);
        c->stream = cp_chrome_event_stream (self, e);
        c->device_lane = TRUE;
        mark_device (self, c->process, c->device);
        key.num = kind;
        key.str = CP_STR_EMPTY;
        c->lane = cp_chrome_lane_for (self, c->process, CP_LANE_TRANSFER, key, &created);
        if (created)
          cp_trace_builder_set_lane_device (self->b, c->lane, c->device, -1);
        return;
      }

    default:
      break;
    }

  c->lane = cp_chrome_lane_for (self, c->process, CP_LANE_HOST_THREAD, cp_chrome_tid_lane_key (&e->tid), &created);
}

/* Times */

/* Slices */

static void
record_bind (CpChromeReader *self,
             guint64         key,
             gint64          ts,
             CpSliceRef      ref,
             gboolean        in,
             gboolean        out)
{
  BindPt p;

  if (ref.lane == G_MAXUINT32 || (!in && !out))
    return;
  p.key = key;
  p.ts = ts;
  p.ref = ref;
  p.in = in;
  p.out = out;
  cp_array_append_big (self->bind_pts, p);
}

static void
fill_init (CpChromeReader   *self,
           const Event      *e,
           const LaneChoice *c,
           CpSliceInit      *init,
           gint64            start,
           gint64            dur)
{
  cp_slice_init_clear (init);
  init->start = start;
  init->dur = dur;
  init->name = e->name;
  init->cat = e->cat;
  init->flags = c->flags;
  init->corr = e->corr;
  init->ext = e->ext;
}

static void
fill_gpu (const Event      *e,
          const LaneChoice *c,
          CpGpuInfo        *gpu)
{
  *gpu = e->gpu;
  if (gpu->device < 0)
    gpu->device = c->device;
  if (gpu->stream < 0)
    gpu->stream = (gint32) c->stream;
}

static void
add_complete (CpChromeReader *self,
              Event          *e,
              gint64          dur,
              guint16         extra_flags)
{
  LaneChoice c;
  CpSliceInit init;
  CpGpuInfo gpu;
  gint64 start = abs_time (self, e->ts);
  CpSliceRef ref;

  choose_lane (self, e, &c);
  fill_init (self, e, &c, &init, start, dur);
  init.flags |= extra_flags;
  init.args = cp_chrome_event_args (self, e);
  if (c.device_lane)
    {
      fill_gpu (e, &c, &gpu);
      init.gpu = &gpu;
      if (cp_chrome_cat_class (self, e->cat) == CAT_MEMCPY || cp_chrome_cat_class (self, e->cat) == CAT_MEMSET)
        {
          TransferKey tk = { pack_id (&e->pid), pack_id (&e->tid), start };

          if (!g_hash_table_contains (self->transfer_at, &tk))
            g_hash_table_insert (self->transfer_at, g_memdup2 (&tk, sizeof tk), GUINT_TO_POINTER (c.lane + 1));
        }
    }
  ref = cp_trace_builder_add_slice (self->b, c.lane, &init);
  self->n_added++;
  note_end (self, start, dur);
  if (e->have & HAVE_BIND)
    record_bind (self, e->bind_hash, start, ref, e->flow_in, e->flow_out);
}

static void
pending_from_event (CpChromeReader *self,
                    Event          *e,
                    Pending        *p,
                    guint           lane,
                    const LaneChoice *c)
{
  gsize len;
  const char *text;

  memset (p, 0, sizeof *p);
  p->lane = lane;
  fill_init (self, e, c, &p->init, abs_time (self, e->ts), 0);
  if (c->device_lane)
    {
      fill_gpu (e, c, &p->gpu);
      p->has_gpu = TRUE;
    }
  text = cp_chrome_args_text (self, e, &len);
  if (text != NULL)
    {
      if (self->mapped)
        {
          p->args_off = e->args_off;
          p->args_len = e->args_len;
        }
      else
        {
          p->args_copy = g_memdup2 (text, len);
          p->args_len = len;
        }
    }
  if (e->have & HAVE_BIND)
    {
      p->has_bind = TRUE;
      p->bind_hash = e->bind_hash;
      p->flow_in = e->flow_in;
      p->flow_out = e->flow_out;
    }
}

/* Adds a pending begin as a slice ending at end; end_event (may be NULL)
 * contributes its arguments. */
void
cp_chrome_close_pending (CpChromeReader *self,
                         Pending        *p,
                         gint64          end,
                         guint16         flags,
                         Event          *end_event)
{
  CpSliceInit init = p->init;
  gsize elen = 0;
  const char *etext = end_event ? cp_chrome_args_text (self, end_event, &elen) : NULL;
  CpSliceRef ref;

  init.dur = end - init.start;
  init.flags |= flags;
  if (p->has_gpu)
    init.gpu = &p->gpu;

  if (p->args_len > 0 && etext != NULL && elen > 2)
    {
      /* E arguments are merged into the slice: {b..., e...}. */
      const char *btext = self->mapped ? (const char *) g_bytes_get_data (self->mapped, NULL) + p->args_off
                                       : p->args_copy;
      g_autoptr(GString) merged = g_string_sized_new (p->args_len + elen);
      gsize bl = p->args_len;

      while (bl > 0 && btext[bl - 1] != '}')
        bl--;
      if (bl > 0)
        {
          g_string_append_len (merged, btext, bl - 1);
          g_string_append_c (merged, ',');
          g_string_append_len (merged, etext + 1, elen - 1);
          init.args = cp_chrome_add_args_text (self, merged->str, merged->len);
        }
    }
  else if (p->args_len > 0)
    {
      if (self->mapped)
        init.args = cp_trace_builder_add_args_ref (self->b, CP_ARGS_JSON, p->args_off, p->args_len);
      else
        init.args = cp_chrome_add_args_text (self, p->args_copy, p->args_len);
    }
  else if (etext != NULL)
    init.args = cp_chrome_event_args (self, end_event);

  if (end_event != NULL)
    {
      if (init.corr == CP_NONE)
        init.corr = end_event->corr;
      if (init.ext == CP_NONE)
        init.ext = end_event->ext;
    }

  ref = cp_trace_builder_add_slice (self->b, p->lane, &init);
  self->n_added++;
  note_end (self, init.start, init.dur);
  if (p->has_bind)
    record_bind (self, p->bind_hash, init.start, ref, p->flow_in, p->flow_out);
  g_clear_pointer (&p->args_copy, g_free);
}

static GArray *
b_stack (CpChromeReader *self,
         guint           lane,
         gboolean        create)
{
  GArray *a;

  if (lane >= self->b_stacks->len)
    {
      if (!create)
        return NULL;
      g_ptr_array_set_size (self->b_stacks, lane + 1);
    }
  a = g_ptr_array_index (self->b_stacks, lane);
  if (a == NULL && create)
    {
      a = g_array_new (FALSE, FALSE, sizeof (Pending));
      g_ptr_array_index (self->b_stacks, lane) = a;
    }
  return a;
}

void
cp_chrome_warn_once (CpChromeReader *self,
                     guint32         what,
                     guint64         offset,
                     const char     *message)
{
  if (self->warned & what)
    return;
  self->warned |= what;
  cp_load_report_warn (self->report, offset, "%s", message);
}

static void
on_begin (CpChromeReader *self,
          Event          *e)
{
  LaneChoice c;
  Pending p;

  choose_lane (self, e, &c);
  pending_from_event (self, e, &p, c.lane, &c);
  g_array_append_val (b_stack (self, c.lane, TRUE), p);
  note_end (self, p.init.start, 0);
}

/* Closes the newest pending begin of stack (may be NULL) at e's time, with
 * end_event's arguments (may be NULL); FALSE when there is none. */
static gboolean
pop_and_close (CpChromeReader *self,
               GArray         *stack,
               Event          *e,
               Event          *end_event)
{
  Pending p;

  if (stack == NULL || stack->len == 0)
    return FALSE;
  p = g_array_index (stack, Pending, stack->len - 1);
  g_array_set_size (stack, stack->len - 1);
  cp_chrome_close_pending (self, &p, abs_time (self, e->ts), 0, end_event);
  return TRUE;
}

static void
on_end (CpChromeReader *self,
        Event          *e)
{
  LaneChoice c;

  choose_lane (self, e, &c);
  if (!pop_and_close (self, b_stack (self, c.lane, FALSE), e, e))
    {
      self->report->unmatched_end++;
      cp_chrome_warn_once (self, W_UNMATCHED_E, e->offset,
                           _("An end event (E) without a matching begin (B) was dropped"));
    }
}

static guint64
async_key (CpChromeReader *self,
           Event          *e)
{
  guint64 k = mix64 (e->id_hash ^ ((guint64) e->cat << 32));

  if (e->have & HAVE_ID2_LOCAL)
    k = mix64 (k ^ pack_id (&e->pid));
  return k;
}

static guint
async_lane (CpChromeReader *self,
            Event          *e,
            guint           process)
{
  gboolean created;
  CpLaneKey key = { 0, e->name };

  return cp_chrome_lane_for (self, process, CP_LANE_ASYNC, key, &created);
}

/* Opens a pending begin for e on c's lane, on the async stack of key (async
 * b and S events, object N events). */
static void
push_async (CpChromeReader   *self,
            guint64           key,
            Event            *e,
            const LaneChoice *c)
{
  GArray *stack = g_hash_table_lookup (self->async_stacks, &key);
  Pending p;

  pending_from_event (self, e, &p, c->lane, c);
  if (stack == NULL)
    {
      stack = g_array_new (FALSE, FALSE, sizeof (Pending));
      g_hash_table_insert (self->async_stacks, g_memdup2 (&key, sizeof key), stack);
    }
  g_array_append_val (stack, p);
  note_end (self, p.init.start, 0);
}

/* An instant on c's async lane (async n events, object O snapshots). */
static void
add_async_instant (CpChromeReader   *self,
                   Event            *e,
                   const LaneChoice *c)
{
  CpSliceInit init;
  gint64 start = abs_time (self, e->ts);

  fill_init (self, e, c, &init, start, 0);
  init.flags |= CP_SLICE_ASYNC_INSTANT;
  init.args = cp_chrome_event_args (self, e);
  cp_trace_builder_add_slice (self->b, c->lane, &init);
  self->n_added++;
  note_end (self, start, 0);
}

static void
on_async (CpChromeReader *self,
          Event          *e)
{
  guint process = cp_chrome_process_for (self, &e->pid);
  guint64 key;
  LaneChoice c = { 0 };

  if (!(e->have & HAVE_ID))
    {
      self->report->skipped++;
      cp_chrome_warn_once (self, W_BAD_ASYNC, e->offset, _("Async events without an id were skipped"));
      return;
    }
  key = async_key (self, e);
  c.process = process;
  c.device = -1;
  c.stream = -1;

  switch (e->ph)
    {
    case 'b':
    case 'S':
      c.lane = async_lane (self, e, process);
      push_async (self, key, e, &c);
      break;
    case 'e':
    case 'F':
      if (!pop_and_close (self, g_hash_table_lookup (self->async_stacks, &key), e, e))
        {
          self->report->unmatched_end++;
          cp_chrome_warn_once (self, W_UNMATCHED_E, e->offset,
                               _("An async end event without a matching begin was dropped"));
        }
      break;
    case 'n':
    default:
      c.lane = async_lane (self, e, process);
      add_async_instant (self, e, &c);
      break;
    }
}

/* Object events: N (created) to D (deleted) is the object's lifetime, a
 * slice on an async lane named after the object; O snapshots are marks on
 * that lane. Ids are local to the process. */
static void
on_object (CpChromeReader *self,
           Event          *e)
{
  guint process = cp_chrome_process_for (self, &e->pid);
  guint64 key = mix64 (e->id_hash ^ mix64 (pack_id (&e->pid) ^ ((guint64) e->name << 24)) ^ 0x4f);
  LaneChoice c = { 0 };

  if (!(e->have & HAVE_ID))
    {
      self->report->skipped++;
      cp_chrome_warn_once (self, W_BAD_ASYNC, e->offset, _("Object events without an id were skipped"));
      return;
    }
  c.process = process;
  c.device = -1;
  c.stream = -1;
  c.lane = async_lane (self, e, process);

  switch (e->ph)
    {
    case 'N':
      push_async (self, key, e, &c);
      break;
    case 'D':
      if (!pop_and_close (self, g_hash_table_lookup (self->async_stacks, &key), e, NULL))
        note_end (self, abs_time (self, e->ts), 0);
      break;
    case 'O':
    default:
      add_async_instant (self, e, &c);
      break;
    }
}


static void
on_instant (CpChromeReader *self,
            Event          *e)
{
  gint64 ts = abs_time (self, e->ts);

  switch (e->scope)
    {
    case 'g':
      cp_trace_builder_add_instant (self->b, ts, e->name, e->cat, -1, -1, 'g');
      self->n_added++;
      note_end (self, ts, 0);
      break;
    case 'p':
      cp_trace_builder_add_instant (self->b, ts, e->name, e->cat,
                                    cp_chrome_process_for (self, &e->pid), -1, 'p');
      self->n_added++;
      note_end (self, ts, 0);
      break;
    default:
      add_complete (self, e, 0, CP_SLICE_INSTANT);
      break;
    }
}

static void
on_counter (CpChromeReader *self,
            Event          *e)
{
  guint process;
  gint64 ts = abs_time (self, e->ts);

  if (self->counters->len == 0)
    {
      self->report->skipped++;
      cp_chrome_warn_once (self, W_BAD_COUNTER, e->offset, _("Counter events without numeric values were skipped"));
      return;
    }
  process = cp_chrome_process_for (self, &e->pid);
  for (guint i = 0; i < self->counters->len; i++)
    {
      const CounterPair *cp = &g_array_index (self->counters, CounterPair, i);
      const char *name = cp_trace_builder_get_string (self->b, e->name);
      const char *key = cp_trace_builder_get_string (self->b, cp->key);
      g_autofree char *series = NULL;
      CpLaneKey lk;
      gboolean created;
      guint lane;

      if (*key == '\0')
        lk.str = e->name;
      else
        {
          series = g_strdup_printf ("%s %s", name, key);
          lk.str = cp_trace_builder_intern (self->b, series, -1);
        }
      lk.num = 0;
      lane = cp_chrome_lane_for (self, process, CP_LANE_COUNTER, lk, &created);
      cp_trace_builder_add_counter (self->b, lane, ts, cp->value);
    }
  self->n_added++;
  note_end (self, ts, 0);
}

void
cp_chrome_commit_event (CpChromeReader *self)
{
  Event *e = &self->ev;
  guint8 ph = (guint8) e->ph;

  if (!(e->have & HAVE_ANY))
    return;   /* {} elements are skipped */

  self->report->events++;
  if (ph == 0)
    {
      self->report->skipped++;
      cp_chrome_warn_once (self, W_NO_PH, e->offset, _("Events without a phase (“ph”) were skipped"));
      return;
    }
  self->report->by_phase[ph & 127]++;

  if (!(e->have & HAVE_TID))
    e->tid = e->pid;

  if (ph != 'M' && !(e->have & HAVE_TS))
    {
      self->report->skipped++;
      self->no_ts++;
      cp_chrome_warn_once (self, W_NO_TS, e->offset, _("Events without a usable timestamp (“ts” missing, not a number or out of range) were skipped"));
      return;
    }

  switch (ph)
    {
    case 'X':
      if (!(e->have & HAVE_DUR))
        cp_chrome_warn_once (self, W_NO_DUR, e->offset,
                             _("Complete events (X) without a usable duration (“dur” missing, not a number "
                               "or out of range) were given none"));
      add_complete (self, e, (e->have & HAVE_DUR) ? e->dur : 0, 0);
      break;
    case 'T':
    case 'p':
      if (e->have & HAVE_DUR)
        add_complete (self, e, e->dur, 0);
      else
        self->unknown_by_phase[ph]++;
      break;
    case 'B':
      on_begin (self, e);
      break;
    case 'E':
      on_end (self, e);
      break;
    case 'i':
    case 'I':
    case 'R':
      on_instant (self, e);
      break;
    case 'C':
      on_counter (self, e);
      break;
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'F':
      on_async (self, e);
      break;
    case 's':
    case 't':
    case 'f':
      cp_chrome_on_flow (self, e);
      break;
    case 'M':
      cp_chrome_on_metadata (self, e);
      break;
    case 'P':
      cp_chrome_on_sample (self, e);
      break;
    case 'N':
    case 'O':
    case 'D':
      on_object (self, e);
      break;
    default:
      self->unknown_by_phase[ph & 127]++;
      self->report->unknown_phase++;
      break;
    }
}
