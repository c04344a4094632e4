/* cp-chrome-reader.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The reader is a state machine driven by the tokenizer's callbacks. An
 * event's fields may come in any order, so each event is gathered in a small
 * struct and committed at its closing brace; a damaged or truncated file thus
 * keeps every complete event. Arguments are not parsed: their raw text is
 * kept (as a byte range of the mapped file, or copied when the input was
 * decompressed), and only the keys analysis needs are read on the way.
 * Nested argument values are skipped at scanning speed, except grid/block.
 *
 * What a slice is (also in docs): every X event with a timestamp, every B
 * event (matched with its E, or closed at the end of the trace), every async
 * b/S event (matched with e/F, or closed at the end), every object N event
 * (its lifetime, to D or the end), and T/p events with a duration. Async n
 * events and object O snapshots are zero-length marks on async lanes. Thread-scope instants (i/I/R) become zero-length
 * slices flagged CP_SLICE_INSTANT; process and global instants are instants
 * of the trace. CPU profile samples (P events: legacy samples with "sf"
 * stack frames, DevTools Profile / ProfileChunk) become a flame chart per
 * thread: each sample lasts until the next one on its thread, and a frame is
 * one slice over consecutive samples that share it and every frame above it
 * (see "CPU profile samples" below). */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"

/* Event fields. */
enum
{
  F_NONE,
  F_PH,
  F_NAME,
  F_CAT,
  F_TS,
  F_DUR,
  F_PID,
  F_TID,
  F_ARGS,
  F_ID,
  F_ID2,
  F_BP,
  F_S,
  F_SCOPE,
  F_BIND_ID,
  F_FLOW_IN,
  F_FLOW_OUT,
  F_SF,
};

/* Argument keys. */
enum
{
  A_NONE,
  A_CORR,
  A_EXT,
  A_DEVICE,
  A_STREAM,
  A_BYTES,
  A_GRID,
  A_BLOCK,
  A_REGS,
  A_SHMEM,
  A_BPSM,
  A_WPSM,
  A_OCC,
  A_NAME,
  A_LABELS,
  A_SORT,
  A_DIRECTION,
  A_SIZE,
};

enum
{
  HAVE_TS    = 1 << 0,
  HAVE_DUR   = 1 << 1,
  HAVE_PID   = 1 << 2,
  HAVE_TID   = 1 << 3,
  HAVE_ARGS  = 1 << 4,
  HAVE_ID    = 1 << 5,
  HAVE_BIND  = 1 << 6,
  HAVE_GPU   = 1 << 7,
  HAVE_MSORT = 1 << 8,
  HAVE_ANY   = 1 << 9,
  HAVE_ID2_LOCAL = 1 << 10,
  HAVE_SF    = 1 << 11,
};

/* Category classes. */
enum
{
  CAT_HOST = 1,
  CAT_KERNEL,
  CAT_MEMCPY,
  CAT_MEMSET,
  CAT_GPU_ANNOTATION,
  CAT_SYNC,
  CAT_LAUNCH_FLOW,   /* ac2g, or the old "async" launch flows */
  CAT_FWDBWD,
  CAT_MTIA_DEVICE,   /* mtia_ccp_events: what an MTIA device ran (kernels, DMA, events) */
};

/* Name information bits. */
enum
{
  NAME_TK_MASK   = 0x7,
  NAME_PAGEABLE  = 1 << 4,
  NAME_PINNED    = 1 << 5,
  NAME_SYNC      = 1 << 6,
  NAME_KNOWN     = 1 << 15,
};

typedef struct
{
  gint64   num;
  CpStr    str;
  gboolean is_str;
} IdKey;

typedef struct
{
  char      ph;
  guint32   have;
  gint64    ts;
  gint64    dur;
  CpStr     name;
  CpStr     cat;
  IdKey     pid;
  IdKey     tid;
  char      scope;
  char      bp;
  guint64   id_hash;
  guint64   bind_hash;
  gboolean  flow_in;
  gboolean  flow_out;
  guint64   args_off;
  gsize     args_len;
  gint64    corr;
  gint64    ext;
  CpGpuInfo gpu;
  gint64    size;        /* args.size (MTIA dma_request bytes), -1 absent */
  guint64   sf_hash;     /* "sf": the stack frame of a sample (P) */
  CpTransferKind direction; /* args.direction (MTIA dma_request), NONE absent */
  CpStr     m_name;
  CpStr     m_labels;
  gint64    m_sort;
  guint64   offset;
} Event;

typedef struct
{
  CpStr  key;
  double value;
} CounterPair;

/* A B or async b waiting for its end. */
typedef struct
{
  guint     lane;
  CpSliceInit init;
  CpGpuInfo gpu;
  gboolean  has_gpu;
  guint64   args_off;
  gsize     args_len;
  char     *args_copy;
  guint64   bind_hash;
  gboolean  has_bind;
  gboolean  flow_in;
  gboolean  flow_out;
} Pending;

typedef struct
{
  guint64  key;
  guint    process;
  IdKey    tid;
  gint64   ts;
  CpStr    name;
  guint8   bind;
  guint8   order;
  guint8   kind;
} FlowPt;

typedef struct
{
  guint64    key;
  gint64     ts;
  CpSliceRef ref;
  gboolean   in;
  gboolean   out;
} BindPt;

/* A CPU profile sample: the thread, the time and the innermost frame. */
typedef struct
{
  guint    process;
  IdKey    tid;
  gint64   ts;
  guint64  frame;    /* key in frames, 0: a frame of its own named name */
  CpStr    name;
  guint32  seq;
} Sample;

/* A frame of a sampled stack; parent 0 is the root. */
typedef struct
{
  CpStr   name;
  guint64 parent;
} Frame;

typedef struct
{
  CpStr    name;
  CpStr    labels;
  gint64   sort;
  gboolean has_name;
  gboolean has_labels;
  gboolean has_sort;
} ProcMeta;

typedef struct
{
  guint64  pid;
  guint64  tid;
  CpStr    name;
  gint64   sort;
  gboolean has_name;
  gboolean has_sort;
} ThreadMeta;

typedef struct
{
  guint    process;
  guint    kind;
  gint64   num;
  CpStr    str;
  guint    lane;
  gboolean valid;
} LaneCacheEntry;

#define LANE_CACHE_SIZE 256
#define STR_CACHE_SIZE  4096

/* Recently interned strings, found again without hashing their bytes. */
typedef struct
{
  const char *s;
  gsize       len;
  CpStr       id;
} StrCacheEntry;

enum
{
  FORM_NONE,
  FORM_OBJECT,
  FORM_ARRAY,
  FORM_OTHER,
};

/* Warnings given once, with the offset of the first occurrence. */
enum
{
  W_NO_PH = 1 << 0,
  W_NO_TS = 1 << 1,
  W_UNMATCHED_E = 1 << 2,
  W_BIG_ARGS = 1 << 3,
  W_NO_DUR = 1 << 4,
  W_BAD_FLOW = 1 << 5,
  W_BAD_EVENTS = 1 << 7,
  W_BAD_ASYNC = 1 << 8,
  W_BAD_COUNTER = 1 << 9,
  W_REPAIRED = 1 << 10,
};

struct _CpChromeReader
{
  CpTraceBuilder  *b;
  CpLoadReport    *report;
  GBytes          *mapped;
  char            *name;
  CpJsonTokenizer *tok;
  GString         *decode;
  GString         *args_buf;
  GString         *key_buf;
  GString         *top_key;
  GPtrArray       *top_keys;        /* first few top-level keys, for messages */
  char            *cloud_spans;      /* "spans" of a Google Cloud Trace document */
  char            *stack_frames;     /* top-level "stackFrames" (legacy samples' frames) */
  gsize            stack_frames_len;
  GArray          *samples;          /* of Sample: CPU profile samples (P events) */
  GHashTable      *frames;           /* frame key -> Frame */
  GHashTable      *profiles;         /* profile id hash -> gint64 time of its last sample */
  gsize            cloud_spans_len;

  int              form;
  gboolean         in_events;
  guint            events_depth;
  gboolean         saw_trace_events;
  gboolean         root_done;
  guint64          non_objects;      /* non-object elements of the event array */
  char             first_non_object; /* '[', '"', '0'... */
  gboolean         metadata_capture;

  /* The event being read. */
  gboolean         in_event;
  guint            ev_depth;
  int              field;
  gboolean         in_args;
  gboolean         in_id2;
  int              id2_field;
  int              arg_field;
  int              dim;
  guint            dim_i;
  guint64          args_start;
  Event            ev;
  GArray          *counters;         /* of CounterPair */

  /* Base time and bounds. */
  gint64           base;
  gboolean         has_base;
  guint64          n_added;
  gint64           max_end;
  gboolean         any_time;
  guint64          last_event_end;   /* offset after the last complete event */

  /* Lookups. */
  GHashTable      *pid_map;          /* packed pid -> process + 1 */
  GArray          *proc_pids;        /* of IdKey, by process index */
  IdKey            last_pid;
  guint            last_proc;
  gboolean         have_last_pid;
  LaneCacheEntry   lane_cache[LANE_CACHE_SIZE];
  StrCacheEntry   *str_cache;
  GArray          *cat_class;        /* guint8 by CpStr */
  GArray          *name_info;        /* guint16 by CpStr */

  /* Matching. */
  GPtrArray       *b_stacks;         /* GArray of Pending, by lane */
  GHashTable      *async_stacks;     /* guint64* -> GArray of Pending */
  GArray          *flow_pts;         /* of FlowPt */
  GArray          *bind_pts;         /* of BindPt */
  GHashTable      *transfer_at;      /* TransferKey -> lane + 1 */

  /* Metadata events, applied at the end. */
  GHashTable      *proc_meta;        /* packed pid -> ProcMeta */
  GHashTable      *thread_meta;      /* ThreadMeta* set */

  /* Devices seen. */
  GArray          *device_seen;      /* gboolean by process */

  guint32          warned;
  guint64          unknown_by_phase[128];
  guint64          unclosed;
  guint64          no_ts;
  guint64          big_args;

  gboolean         stopped;
  gboolean         truncated;
  guint64          stopped_at;
  char            *stop_reason;
  GError          *fatal;
};

/* Hashing */

static inline guint64
mix64 (guint64 x)
{
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}

static guint64
hash_text (const char *s,
           gsize       n)
{
  guint64 h = G_GUINT64_CONSTANT (1469598103934665603);

  for (gsize i = 0; i < n; i++)
    {
      h ^= (guchar) s[i];
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  return h;
}

static inline guint64
pack_id (const IdKey *k)
{
  if (k->is_str)
    return G_GUINT64_CONSTANT (0x5a5a000000000000) ^ ((guint64) k->str << 1) ^ 1;
  return (guint64) k->num;
}

static guint
u64_hash (gconstpointer p)
{
  return (guint) mix64 (*(const guint64 *) p);
}

static gboolean
u64_equal (gconstpointer a,
           gconstpointer b)
{
  return *(const guint64 *) a == *(const guint64 *) b;
}

typedef struct
{
  guint64 pid;
  guint64 tid;
  gint64  ts;
} TransferKey;

static guint
transfer_key_hash (gconstpointer p)
{
  const TransferKey *k = p;

  return (guint) mix64 (k->pid * 31 + k->tid * 1000003 + (guint64) k->ts);
}

static gboolean
transfer_key_equal (gconstpointer a,
                    gconstpointer b)
{
  const TransferKey *x = a, *y = b;

  return x->pid == y->pid && x->tid == y->tid && x->ts == y->ts;
}

static guint
thread_meta_hash (gconstpointer p)
{
  const ThreadMeta *m = p;

  return (guint) mix64 (m->pid * 1000003 ^ m->tid);
}

static gboolean
thread_meta_equal (gconstpointer a,
                   gconstpointer b)
{
  const ThreadMeta *x = a, *y = b;

  return x->pid == y->pid && x->tid == y->tid;
}

static void
free_pending_array (gpointer data)
{
  GArray *a = data;

  if (a == NULL)
    return;
  for (guint i = 0; i < a->len; i++)
    g_free (g_array_index (a, Pending, i).args_copy);
  g_array_unref (a);
}

/* Creation */

static gboolean on_token (CpJsonTokenizer   *tok,
                          const CpJsonToken *t,
                          gpointer           data);

CpChromeReader *
cp_chrome_reader_new (CpTraceBuilder *builder,
                      GBytes         *mapped,
                      const char     *name)
{
  CpChromeReader *self;

  g_return_val_if_fail (builder != NULL, NULL);

  self = g_new0 (CpChromeReader, 1);
  self->b = builder;
  self->report = cp_trace_builder_get_report (builder);
  if (mapped)
    {
      self->mapped = g_bytes_ref (mapped);
      cp_trace_builder_set_args_source (builder, mapped);
    }
  self->name = g_strdup (name ? name : "");
  self->tok = cp_json_tokenizer_new (on_token, self);
  self->decode = g_string_new (NULL);
  self->args_buf = g_string_new (NULL);
  self->key_buf = g_string_new (NULL);
  self->top_key = g_string_new (NULL);
  self->top_keys = g_ptr_array_new_with_free_func (g_free);
  self->counters = g_array_new (FALSE, FALSE, sizeof (CounterPair));
  self->pid_map = g_hash_table_new_full (u64_hash, u64_equal, g_free, NULL);
  self->proc_pids = g_array_new (FALSE, TRUE, sizeof (IdKey));
  self->cat_class = g_array_new (FALSE, TRUE, sizeof (guint8));
  self->name_info = g_array_new (FALSE, TRUE, sizeof (guint16));
  self->b_stacks = g_ptr_array_new_with_free_func (free_pending_array);
  self->async_stacks = g_hash_table_new_full (u64_hash, u64_equal, g_free, free_pending_array);
  self->flow_pts = g_array_new (FALSE, FALSE, sizeof (FlowPt));
  self->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  self->frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->profiles = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->bind_pts = g_array_new (FALSE, FALSE, sizeof (BindPt));
  self->transfer_at = g_hash_table_new_full (transfer_key_hash, transfer_key_equal, g_free, NULL);
  self->proc_meta = g_hash_table_new_full (u64_hash, u64_equal, g_free, g_free);
  self->thread_meta = g_hash_table_new_full (thread_meta_hash, thread_meta_equal, g_free, NULL);
  self->device_seen = g_array_new (FALSE, TRUE, sizeof (gboolean));
  self->str_cache = g_new0 (StrCacheEntry, STR_CACHE_SIZE);
  self->max_end = G_MININT64;
  self->stopped_at = G_MAXUINT64;
  return self;
}

void
cp_chrome_reader_free (CpChromeReader *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->mapped, g_bytes_unref);
  g_free (self->name);
  cp_json_tokenizer_free (self->tok);
  g_string_free (self->decode, TRUE);
  g_string_free (self->args_buf, TRUE);
  g_string_free (self->key_buf, TRUE);
  g_string_free (self->top_key, TRUE);
  g_ptr_array_unref (self->top_keys);
  g_array_unref (self->counters);
  g_hash_table_unref (self->pid_map);
  g_array_unref (self->proc_pids);
  g_array_unref (self->cat_class);
  g_array_unref (self->name_info);
  g_ptr_array_unref (self->b_stacks);
  g_hash_table_unref (self->async_stacks);
  g_array_unref (self->flow_pts);
  g_array_unref (self->bind_pts);
  g_hash_table_unref (self->transfer_at);
  g_hash_table_unref (self->proc_meta);
  g_hash_table_unref (self->thread_meta);
  g_array_unref (self->device_seen);
  g_free (self->str_cache);
  g_free (self->cloud_spans);
  g_free (self->stack_frames);
  g_array_unref (self->samples);
  g_hash_table_unref (self->frames);
  g_hash_table_unref (self->profiles);
  g_free (self->stop_reason);
  g_clear_error (&self->fatal);
  g_free (self);
}

/* Strings */

static inline guint64
load8 (const char *s,
       gsize       n)
{
  guint64 v = 0;

  memcpy (&v, s, MIN (n, 8));
  return v;
}

static CpStr
intern_cached (CpChromeReader *self,
               const char     *s,
               gsize           len)
{
  guint64 h = mix64 (load8 (s, len) ^ (len > 8 ? load8 (s + len - 8, 8) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) : 0) ^ len);
  StrCacheEntry *e = &self->str_cache[h & (STR_CACHE_SIZE - 1)];
  CpStr id;

  if (e->s != NULL && e->len == len && memcmp (e->s, s, len) == 0)
    return e->id;
  id = cp_trace_builder_intern (self->b, s, len);
  e->s = cp_trace_builder_get_string (self->b, id);
  e->len = len;
  e->id = id;
  return id;
}

static CpStr
intern_token (CpChromeReader    *self,
              const CpJsonToken *t)
{
  gsize len;
  const char *s;

  if (t->type != CP_JSON_STRING && t->type != CP_JSON_KEY)
    return intern_cached (self, t->text, t->len);
  s = cp_json_decode_string (t->text, t->len, t->flags, self->decode, &len);
  if ((t->flags & CP_JSON_ESCAPED) && memchr (s, '\0', len) != NULL)
    len = strlen (s);
  return intern_cached (self, s, len);
}

static gboolean
token_int (CpChromeReader    *self,
           const CpJsonToken *t,
           gint64            *out)
{
  if (t->type == CP_JSON_NUMBER)
    return !(t->flags & CP_JSON_NONFINITE) && cp_json_parse_int64 (t->text, t->len, out);
  if (t->type == CP_JSON_STRING && !(t->flags & CP_JSON_ESCAPED))
    return cp_json_parse_int64 (t->text, t->len, out);
  return FALSE;
}

static gboolean
token_double (CpChromeReader    *self,
              const CpJsonToken *t,
              double            *out)
{
  if (t->type == CP_JSON_NUMBER || (t->type == CP_JSON_STRING && !(t->flags & CP_JSON_ESCAPED)))
    return cp_json_parse_double (t->text, t->len, out);
  return FALSE;
}

static gboolean
token_time (CpChromeReader    *self,
            const CpJsonToken *t,
            gint64            *out)
{
  if (t->type == CP_JSON_NUMBER)
    return !(t->flags & CP_JSON_NONFINITE) && cp_json_parse_us_to_ns (t->text, t->len, out);
  if (t->type == CP_JSON_STRING && !(t->flags & CP_JSON_ESCAPED))
    return cp_json_parse_us_to_ns (t->text, t->len, out);
  return FALSE;
}

static void
token_id_key (CpChromeReader    *self,
              const CpJsonToken *t,
              IdKey             *k)
{
  gint64 v;

  if (t->type == CP_JSON_NUMBER)
    {
      if (cp_json_parse_int64 (t->text, t->len, &v))
        {
          k->num = v;
          k->is_str = FALSE;
          k->str = 0;
          return;
        }
    }
  else if (t->type == CP_JSON_STRING && t->len > 0 && t->len < 20 &&
           (g_ascii_isdigit (t->text[0]) || t->text[0] == '-') &&
           cp_json_parse_int64 (t->text, t->len, &v))
    {
      gboolean digits = TRUE;

      for (gsize i = 1; i < t->len && digits; i++)
        digits = g_ascii_isdigit (t->text[i]);
      if (digits)
        {
          k->num = v;
          k->is_str = FALSE;
          k->str = 0;
          return;
        }
    }
  k->is_str = TRUE;
  k->num = 0;
  k->str = intern_token (self, t);
}

static guint64
token_hash (CpChromeReader    *self,
            const CpJsonToken *t)
{
  /* Numbers and strings with the same text name the same id. */
  return hash_text (t->text, t->len);
}

/* Keys */

static int
event_key (const char *s,
           gsize       n)
{
  switch (n)
    {
    case 1:
      return s[0] == 's' ? F_S : F_NONE;
    case 2:
      if (s[0] == 'p' && s[1] == 'h')
        return F_PH;
      if (s[0] == 't' && s[1] == 's')
        return F_TS;
      if (s[0] == 'i' && s[1] == 'd')
        return F_ID;
      if (s[0] == 'b' && s[1] == 'p')
        return F_BP;
      if (s[0] == 's' && s[1] == 'f')
        return F_SF;
      return F_NONE;
    case 3:
      if (memcmp (s, "cat", 3) == 0)
        return F_CAT;
      if (memcmp (s, "pid", 3) == 0)
        return F_PID;
      if (memcmp (s, "tid", 3) == 0)
        return F_TID;
      if (memcmp (s, "dur", 3) == 0)
        return F_DUR;
      if (memcmp (s, "id2", 3) == 0)
        return F_ID2;
      return F_NONE;
    case 4:
      if (memcmp (s, "name", 4) == 0)
        return F_NAME;
      if (memcmp (s, "args", 4) == 0)
        return F_ARGS;
      return F_NONE;
    case 5:
      return memcmp (s, "scope", 5) == 0 ? F_SCOPE : F_NONE;
    case 7:
      if (memcmp (s, "bind_id", 7) == 0)
        return F_BIND_ID;
      if (memcmp (s, "flow_in", 7) == 0)
        return F_FLOW_IN;
      return F_NONE;
    case 8:
      return memcmp (s, "flow_out", 8) == 0 ? F_FLOW_OUT : F_NONE;
    default:
      return F_NONE;
    }
}

static int
args_key (const char *s,
          gsize       n)
{
  switch (n)
    {
    case 4:
      if (memcmp (s, "grid", 4) == 0)
        return A_GRID;
      if (memcmp (s, "name", 4) == 0)
        return A_NAME;
      if (memcmp (s, "size", 4) == 0)
        return A_SIZE;
      return A_NONE;
    case 5:
      if (memcmp (s, "bytes", 5) == 0)
        return A_BYTES;
      if (memcmp (s, "block", 5) == 0)
        return A_BLOCK;
      return A_NONE;
    case 6:
      if (memcmp (s, "device", 6) == 0)
        return A_DEVICE;
      if (memcmp (s, "stream", 6) == 0)
        return A_STREAM;
      if (memcmp (s, "labels", 6) == 0)
        return A_LABELS;
      return A_NONE;
    case 9:
      return memcmp (s, "direction", 9) == 0 ? A_DIRECTION : A_NONE;
    case 10:
      return memcmp (s, "sort_index", 10) == 0 ? A_SORT : A_NONE;
    case 11:
      if (memcmp (s, "correlation", 11) == 0)
        return A_CORR;
      if (memcmp (s, "External id", 11) == 0 || memcmp (s, "external id", 11) == 0)
        return A_EXT;
      return A_NONE;
    case 12:
      return memcmp (s, "warps per SM", 12) == 0 ? A_WPSM : A_NONE;
    case 13:
      if (memcmp (s, "shared memory", 13) == 0)
        return A_SHMEM;
      if (memcmp (s, "blocks per SM", 13) == 0)
        return A_BPSM;
      return A_NONE;
    case 20:
      return memcmp (s, "registers per thread", 20) == 0 ? A_REGS : A_NONE;
    case 25:
      return memcmp (s, "est. achieved occupancy %", 25) == 0 ? A_OCC : A_NONE;
    default:
      return A_NONE;
    }
}

/* Classification */

static gboolean
ascii_equal (const char *a,
             const char *b)
{
  return g_ascii_strcasecmp (a, b) == 0;
}

static guint
cat_class (CpChromeReader *self,
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

static guint16
name_info (CpChromeReader *self,
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

static guint
process_for (CpChromeReader *self,
             const IdKey    *pid)
{
  guint64 key;
  gpointer v;
  guint proc;

  if (self->have_last_pid && self->last_pid.is_str == pid->is_str &&
      self->last_pid.num == pid->num && self->last_pid.str == pid->str)
    return self->last_proc;

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
  self->last_pid = *pid;
  self->last_proc = proc;
  self->have_last_pid = TRUE;
  return proc;
}

static guint
lane_for (CpChromeReader *self,
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

static CpLaneKey
tid_lane_key (const IdKey *tid)
{
  CpLaneKey k;

  k.num = tid->is_str ? 0 : tid->num;
  k.str = tid->is_str ? tid->str : CP_STR_EMPTY;
  return k;
}

/* The stream of a GPU event: numeric tid, "stream 7" (old Kineto), or args. */
static gint64
event_stream (CpChromeReader *self,
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
  guint cls = cat_class (self, e->cat);
  guint16 info = name_info (self, e->name);
  gboolean created = FALSE;
  CpLaneKey key;

  c->process = process_for (self, &e->pid);
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
          c->stream = event_stream (self, e);
          c->device_lane = TRUE;
          mark_device (self, c->process, c->device);
          key.num = kind;
          key.str = CP_STR_EMPTY;
          c->lane = lane_for (self, c->process, CP_LANE_TRANSFER, key, &created);
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
      c->stream = event_stream (self, e);
      c->device_lane = TRUE;
      mark_device (self, c->process, c->device);
      key.num = cls == CAT_SYNC && !e->tid.is_str ? e->tid.num : c->stream;
      key.str = CP_STR_EMPTY;
      c->lane = lane_for (self, c->process,
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
        c->stream = event_stream (self, e);
        c->device_lane = TRUE;
        mark_device (self, c->process, c->device);
        key.num = kind;
        key.str = CP_STR_EMPTY;
        c->lane = lane_for (self, c->process, CP_LANE_TRANSFER, key, &created);
        if (created)
          cp_trace_builder_set_lane_device (self->b, c->lane, c->device, -1);
        return;
      }

    default:
      break;
    }

  c->lane = lane_for (self, c->process, CP_LANE_HOST_THREAD, tid_lane_key (&e->tid), &created);
}

/* Times */

/* Times stay relative to the file's zero; a Kineto base time, wherever it
 * appears in the file, becomes the builder's time offset at the end. */
static inline gint64
abs_time (CpChromeReader *self,
          gint64          ts)
{
  return ts;
}

static inline void
note_end (CpChromeReader *self,
          gint64          start,
          gint64          dur)
{
  gint64 end;

  /* Saturates: the builder skips what lies outside the time domain. */
  if (__builtin_add_overflow (start, MAX (dur, 0), &end))
    end = G_MAXINT64;

  if (end > self->max_end)
    self->max_end = end;
  self->any_time = TRUE;
}

/* Arguments */

static guint32
add_args_text (CpChromeReader *self,
               const char     *text,
               gsize           len)
{
  if (len == 0)
    return 0;
  return cp_trace_builder_add_args (self->b, CP_ARGS_JSON, text, len);
}

static guint32
event_args (CpChromeReader *self,
            const Event    *e)
{
  if (!(e->have & HAVE_ARGS))
    return 0;
  if (self->mapped)
    return cp_trace_builder_add_args_ref (self->b, CP_ARGS_JSON, e->args_off, e->args_len);
  return add_args_text (self, self->args_buf->str, self->args_buf->len);
}

static const char *
args_text (CpChromeReader *self,
           const Event    *e,
           gsize          *len)
{
  if (!(e->have & HAVE_ARGS))
    {
      *len = 0;
      return NULL;
    }
  if (self->mapped)
    {
      *len = e->args_len;
      return (const char *) g_bytes_get_data (self->mapped, NULL) + e->args_off;
    }
  *len = self->args_buf->len;
  return self->args_buf->str;
}

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
  g_array_append_val (self->bind_pts, p);
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
  init.args = event_args (self, e);
  if (c.device_lane)
    {
      fill_gpu (e, &c, &gpu);
      init.gpu = &gpu;
      if (cat_class (self, e->cat) == CAT_MEMCPY || cat_class (self, e->cat) == CAT_MEMSET)
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
  text = args_text (self, e, &len);
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
static void
close_pending (CpChromeReader *self,
               Pending        *p,
               gint64          end,
               guint16         flags,
               Event          *end_event)
{
  CpSliceInit init = p->init;
  gsize elen = 0;
  const char *etext = end_event ? args_text (self, end_event, &elen) : NULL;
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
          init.args = add_args_text (self, merged->str, merged->len);
        }
    }
  else if (p->args_len > 0)
    {
      if (self->mapped)
        init.args = cp_trace_builder_add_args_ref (self->b, CP_ARGS_JSON, p->args_off, p->args_len);
      else
        init.args = add_args_text (self, p->args_copy, p->args_len);
    }
  else if (etext != NULL)
    init.args = event_args (self, end_event);

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

static void
warn_once (CpChromeReader *self,
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

static void
on_end (CpChromeReader *self,
        Event          *e)
{
  LaneChoice c;
  GArray *stack;

  choose_lane (self, e, &c);
  stack = b_stack (self, c.lane, FALSE);
  if (stack == NULL || stack->len == 0)
    {
      self->report->unmatched_end++;
      warn_once (self, W_UNMATCHED_E, e->offset,
                 _("An end event (E) without a matching begin (B) was dropped"));
      return;
    }
  {
    Pending p = g_array_index (stack, Pending, stack->len - 1);

    g_array_set_size (stack, stack->len - 1);
    close_pending (self, &p, abs_time (self, e->ts), 0, e);
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

  return lane_for (self, process, CP_LANE_ASYNC, key, &created);
}

static void
on_async (CpChromeReader *self,
          Event          *e)
{
  guint process = process_for (self, &e->pid);
  guint64 key;
  GArray *stack;
  LaneChoice c = { 0 };

  if (!(e->have & HAVE_ID))
    {
      self->report->skipped++;
      warn_once (self, W_BAD_ASYNC, e->offset, _("Async events without an id were skipped"));
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
      {
        Pending p;

        c.lane = async_lane (self, e, process);
        pending_from_event (self, e, &p, c.lane, &c);
        stack = g_hash_table_lookup (self->async_stacks, &key);
        if (stack == NULL)
          {
            stack = g_array_new (FALSE, FALSE, sizeof (Pending));
            g_hash_table_insert (self->async_stacks, g_memdup2 (&key, sizeof key), stack);
          }
        g_array_append_val (stack, p);
        note_end (self, p.init.start, 0);
        break;
      }
    case 'e':
    case 'F':
      stack = g_hash_table_lookup (self->async_stacks, &key);
      if (stack == NULL || stack->len == 0)
        {
          self->report->unmatched_end++;
          warn_once (self, W_UNMATCHED_E, e->offset,
                     _("An async end event without a matching begin was dropped"));
          return;
        }
      {
        Pending p = g_array_index (stack, Pending, stack->len - 1);

        g_array_set_size (stack, stack->len - 1);
        close_pending (self, &p, abs_time (self, e->ts), 0, e);
      }
      break;
    case 'n':
    default:
      {
        CpSliceInit init;
        gint64 start = abs_time (self, e->ts);

        c.lane = async_lane (self, e, process);
        fill_init (self, e, &c, &init, start, 0);
        init.flags |= CP_SLICE_ASYNC_INSTANT;
        init.args = event_args (self, e);
        cp_trace_builder_add_slice (self->b, c.lane, &init);
        self->n_added++;
        note_end (self, start, 0);
        break;
      }
    }
}

/* Object events: N (created) to D (deleted) is the object's lifetime, a
 * slice on an async lane named after the object; O snapshots are marks on
 * that lane. Ids are local to the process. */
static void
on_object (CpChromeReader *self,
           Event          *e)
{
  guint process = process_for (self, &e->pid);
  guint64 key = mix64 (e->id_hash ^ mix64 (pack_id (&e->pid) ^ ((guint64) e->name << 24)) ^ 0x4f);
  GArray *stack;
  LaneChoice c = { 0 };

  if (!(e->have & HAVE_ID))
    {
      self->report->skipped++;
      warn_once (self, W_BAD_ASYNC, e->offset, _("Object events without an id were skipped"));
      return;
    }
  c.process = process;
  c.device = -1;
  c.stream = -1;
  c.lane = async_lane (self, e, process);

  switch (e->ph)
    {
    case 'N':
      {
        Pending p;

        pending_from_event (self, e, &p, c.lane, &c);
        stack = g_hash_table_lookup (self->async_stacks, &key);
        if (stack == NULL)
          {
            stack = g_array_new (FALSE, FALSE, sizeof (Pending));
            g_hash_table_insert (self->async_stacks, g_memdup2 (&key, sizeof key), stack);
          }
        g_array_append_val (stack, p);
        note_end (self, p.init.start, 0);
        break;
      }
    case 'D':
      stack = g_hash_table_lookup (self->async_stacks, &key);
      if (stack != NULL && stack->len > 0)
        {
          Pending p = g_array_index (stack, Pending, stack->len - 1);

          g_array_set_size (stack, stack->len - 1);
          close_pending (self, &p, abs_time (self, e->ts), 0, NULL);
        }
      else
        note_end (self, abs_time (self, e->ts), 0);
      break;
    case 'O':
    default:
      {
        CpSliceInit init;
        gint64 start = abs_time (self, e->ts);

        fill_init (self, e, &c, &init, start, 0);
        init.flags |= CP_SLICE_ASYNC_INSTANT;
        init.args = event_args (self, e);
        cp_trace_builder_add_slice (self->b, c.lane, &init);
        self->n_added++;
        note_end (self, start, 0);
        break;
      }
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
                                    process_for (self, &e->pid), -1, 'p');
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
      warn_once (self, W_BAD_COUNTER, e->offset, _("Counter events without numeric values were skipped"));
      return;
    }
  process = process_for (self, &e->pid);
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
      lane = lane_for (self, process, CP_LANE_COUNTER, lk, &created);
      cp_trace_builder_add_counter (self->b, lane, ts, cp->value);
    }
  self->n_added++;
  note_end (self, ts, 0);
}

static void
on_flow (CpChromeReader *self,
         Event          *e)
{
  FlowPt p;
  guint cls = cat_class (self, e->cat);
  const char *cat = cp_trace_builder_get_string (self->b, e->cat);
  const char *name = cp_trace_builder_get_string (self->b, e->name);

  if (!(e->have & HAVE_ID))
    {
      self->report->skipped++;
      warn_once (self, W_BAD_FLOW, e->offset, _("Flow events without an id were skipped"));
      return;
    }
  p.key = mix64 (e->id_hash ^ mix64 (((guint64) e->cat << 32) | e->name));
  p.process = process_for (self, &e->pid);
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
  g_array_append_val (self->flow_pts, p);
  note_end (self, p.ts, 0);
}

/* CPU profile samples (P events)
 *
 * Three forms: a legacy sample ({"ph": "P", "sf": 8}) whose stack is the
 * chain of parents of frame 8 in the top-level "stackFrames"; a sample with
 * no "sf", a frame of its own named by the event; and the DevTools CPU
 * profile, a "Profile" event (args.data.startTime, µs) followed by
 * "ProfileChunk" events with the same id, each adding call-tree nodes
 * (args.data.cpuProfile.nodes: id, callFrame.functionName, parent) and
 * samples (args.data.cpuProfile.samples, node ids) with the µs between them
 * (args.data.timeDeltas). The samples become one flame-chart lane per
 * thread at the end (add_samples()). */

static guint64
frame_key (guint64 a,
           guint64 b)
{
  guint64 k = mix64 (a ^ mix64 (b + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)));

  return k != 0 ? k : 1;
}

static void
add_frame (CpChromeReader *self,
           guint64         key,
           CpStr           name,
           guint64         parent)
{
  gint64 *k = g_new (gint64, 1);
  Frame *f = g_new (Frame, 1);

  *k = (gint64) key;
  f->name = name;
  f->parent = parent;
  g_hash_table_replace (self->frames, k, f);
}

static void
add_sample (CpChromeReader *self,
            const Event    *e,
            gint64          ts,
            guint64         frame)
{
  Sample smp;

  smp.process = process_for (self, &e->pid);
  smp.tid = e->tid;
  smp.ts = ts;
  smp.frame = frame;
  smp.name = e->name;
  smp.seq = self->samples->len;
  g_array_append_val (self->samples, smp);
  note_end (self, ts, 0);
}

static JsonObject *
sample_data (CpChromeReader *self,
             const Event    *e,
             JsonParser     *parser)
{
  gsize len;
  const char *text = args_text (self, e, &len);
  JsonNode *root;
  JsonObject *args;

  if (text == NULL || !json_parser_load_from_data (parser, text, len, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  args = json_node_get_object (root);
  if (!json_object_has_member (args, "data") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (args, "data")))
    return NULL;
  return json_object_get_object_member (args, "data");
}

static gint64
json_int_or (JsonNode *node,
             gint64    fallback)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return json_node_get_int (node);
    case G_TYPE_DOUBLE:
      {
        double d = json_node_get_double (node);

        return isfinite (d) && fabs (d) < 9e18 ? (gint64) d : fallback;
      }
    default:
      return fallback;
    }
}

static void
on_profile_chunk (CpChromeReader *self,
                  const Event    *e,
                  JsonObject     *data,
                  guint64         profile)
{
  JsonObject *cpu = NULL;
  JsonArray *nodes = NULL, *samples = NULL, *deltas = NULL;
  gint64 key = (gint64) profile;
  gint64 *t = g_hash_table_lookup (self->profiles, &key);

  if (json_object_has_member (data, "cpuProfile") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (data, "cpuProfile")))
    cpu = json_object_get_object_member (data, "cpuProfile");
  if (cpu != NULL && json_object_has_member (cpu, "nodes") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (cpu, "nodes")))
    nodes = json_object_get_array_member (cpu, "nodes");
  if (cpu != NULL && json_object_has_member (cpu, "samples") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (cpu, "samples")))
    samples = json_object_get_array_member (cpu, "samples");
  if (json_object_has_member (data, "timeDeltas") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (data, "timeDeltas")))
    deltas = json_object_get_array_member (data, "timeDeltas");

  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *n = json_array_get_element (nodes, i);
      JsonObject *o, *call;
      const char *fn = NULL;
      gint64 id, parent;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      id = json_int_or (json_object_get_member (o, "id"), -1);
      if (id < 0)
        continue;
      if (json_object_has_member (o, "callFrame") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "callFrame")))
        {
          call = json_object_get_object_member (o, "callFrame");
          fn = json_object_get_string_member_with_default (call, "functionName", NULL);
        }
      parent = json_int_or (json_object_get_member (o, "parent"), -1);
      add_frame (self, frame_key (profile, (guint64) id),
                 cp_trace_builder_intern (self->b, fn != NULL && *fn ? fn : "(anonymous)", -1),
                 parent >= 0 ? frame_key (profile, (guint64) parent) : 0);
      /* Older profiles list children instead of parents. */
      if (json_object_has_member (o, "children") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "children")))
        {
          JsonArray *ch = json_object_get_array_member (o, "children");

          for (guint c = 0; c < json_array_get_length (ch); c++)
            {
              gint64 cid = json_int_or (json_array_get_element (ch, c), -1);
              gint64 ck = (gint64) frame_key (profile, (guint64) cid);
              Frame *f;

              if (cid < 0)
                continue;
              f = g_hash_table_lookup (self->frames, &ck);
              if (f != NULL)
                f->parent = frame_key (profile, (guint64) id);
              else
                add_frame (self, (guint64) ck, cp_trace_builder_intern (self->b, "(anonymous)", -1),
                           frame_key (profile, (guint64) id));
            }
        }
    }

  if (samples == NULL)
    return;
  if (t == NULL)
    {
      gint64 *k = g_new (gint64, 1);

      *k = key;
      t = g_new (gint64, 1);
      *t = e->ts;
      g_hash_table_insert (self->profiles, k, t);
    }
  for (guint i = 0; i < json_array_get_length (samples); i++)
    {
      gint64 node = json_int_or (json_array_get_element (samples, i), -1);
      gint64 delta = deltas != NULL && i < json_array_get_length (deltas) ?
                     json_int_or (json_array_get_element (deltas, i), 0) : 0;

      /* Deltas are µs; a negative one (out-of-order samples) is kept as 0. */
      if (delta > 0 && delta < G_MAXINT64 / 2000)
        *t += delta * 1000;
      if (node >= 0)
        add_sample (self, e, *t, frame_key (profile, (guint64) node));
    }
}

static void
on_sample (CpChromeReader *self,
           Event          *e)
{
  const char *name = cp_trace_builder_get_string (self->b, e->name);
  gboolean profile = strcmp (name, "Profile") == 0;
  gboolean chunk = strcmp (name, "ProfileChunk") == 0;

  if (profile || chunk)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *data = sample_data (self, e, parser);
      guint64 id = frame_key (e->have & HAVE_ID ? e->id_hash : 0, pack_id (&e->pid));

      if (data == NULL)
        {
          self->report->skipped++;
          return;
        }
      if (profile)
        {
          gint64 start = json_int_or (json_object_get_member (data, "startTime"), G_MININT64);
          gint64 key = (gint64) id;
          gint64 *k, *t;

          if (start == G_MININT64 || start > G_MAXINT64 / 2000 || start < G_MININT64 / 2000)
            return;
          k = g_new (gint64, 1);
          t = g_new (gint64, 1);
          *k = key;
          *t = start * 1000;
          g_hash_table_replace (self->profiles, k, t);
        }
      else
        on_profile_chunk (self, e, data, id);
      return;
    }
  add_sample (self, e, e->ts, e->have & HAVE_SF ? frame_key (e->sf_hash, 0x5f) : 0);
}

static void
read_stack_frames (CpChromeReader *self)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonObject *o;
  g_autoptr(GList) members = NULL;

  if (self->stack_frames == NULL ||
      !json_parser_load_from_data (parser, self->stack_frames, self->stack_frames_len, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  o = json_node_get_object (root);
  members = json_object_get_members (o);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *id = l->data;
      JsonNode *n = json_object_get_member (o, id);
      JsonObject *f;
      JsonNode *parent;
      guint64 parent_key = 0;
      const char *fname;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      f = json_node_get_object (n);
      fname = json_object_get_string_member_with_default (f, "name", "(unknown)");
      parent = json_object_get_member (f, "parent");
      if (parent != NULL && JSON_NODE_HOLDS_VALUE (parent))
        {
          g_autofree char *text = NULL;

          if (json_node_get_value_type (parent) == G_TYPE_STRING)
            text = g_strdup (json_node_get_string (parent));
          else if (json_node_get_value_type (parent) == G_TYPE_INT64)
            text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (parent));
          if (text != NULL)
            parent_key = frame_key (hash_text (text, strlen (text)), 0x5f);
        }
      add_frame (self, frame_key (hash_text (id, strlen (id)), 0x5f),
                 cp_trace_builder_intern (self->b, fname, -1), parent_key);
    }
}

static gint
cmp_samples (gconstpointer a,
             gconstpointer b)
{
  const Sample *x = a, *y = b;

  if (x->process != y->process)
    return x->process < y->process ? -1 : 1;
  if (x->tid.is_str != y->tid.is_str)
    return x->tid.is_str ? 1 : -1;
  if (x->tid.is_str ? x->tid.str != y->tid.str : x->tid.num != y->tid.num)
    return (x->tid.is_str ? x->tid.str < y->tid.str : x->tid.num < y->tid.num) ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

#define CP_SAMPLE_MAX_DEPTH 256

typedef struct
{
  gint64  start;
  gint64  dur;
  guint   depth;
  CpStr   name;
} SampleSlice;

static gint
cmp_sample_slices (gconstpointer a,
                   gconstpointer b)
{
  const SampleSlice *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur)
    return x->dur > y->dur ? -1 : 1;
  return (int) x->depth - (int) y->depth;
}

/* The stack of a sample, outermost frame first; returns its depth. The
 * root node of a DevTools profile is left out. */
static guint
sample_stack (CpChromeReader *self,
              const Sample   *smp,
              guint64        *keys,
              CpStr          *names)
{
  guint64 chain[CP_SAMPLE_MAX_DEPTH];
  CpStr chain_names[CP_SAMPLE_MAX_DEPTH];
  guint n = 0, out = 0;
  guint64 k = smp->frame;
  CpStr root = cp_trace_builder_intern (self->b, "(root)", -1);

  /* Innermost first; at most CP_SAMPLE_MAX_DEPTH frames (a cycle stops there too). */
  while (k != 0 && n < CP_SAMPLE_MAX_DEPTH)
    {
      gint64 key = (gint64) k;
      Frame *f = g_hash_table_lookup (self->frames, &key);

      if (f == NULL)
        break;
      chain[n] = k;
      chain_names[n] = f->name;
      n++;
      k = f->parent;
    }
  if (n == 0)
    {
      keys[0] = frame_key (smp->name, 0x53);
      names[0] = smp->name;
      return 1;
    }
  for (guint i = n; i > 0; i--)
    {
      if (i == n && chain_names[i - 1] == root)
        continue;
      keys[out] = chain[i - 1];
      names[out] = chain_names[i - 1];
      out++;
    }
  return out;
}

static void
add_samples (CpChromeReader *self)
{
  Sample *smp;
  guint n = self->samples->len;
  CpStr cat, idle;
  guint threads = 0;

  if (n == 0)
    return;
  read_stack_frames (self);
  g_array_sort (self->samples, cmp_samples);
  smp = (Sample *) self->samples->data;
  cat = cp_trace_builder_intern (self->b, "cpu_profile", -1);
  idle = cp_trace_builder_intern (self->b, "(idle)", -1);

  for (guint a = 0; a < n;)
    {
      guint b = a;
      g_autofree char *tid = NULL;
      g_autofree char *lane_key = NULL;
      g_autofree char *lane_name = NULL;
      g_autoptr(GArray) slices = g_array_new (FALSE, FALSE, sizeof (SampleSlice));
      guint64 open_keys[CP_SAMPLE_MAX_DEPTH];
      CpStr open_names[CP_SAMPLE_MAX_DEPTH];
      gint64 open_start[CP_SAMPLE_MAX_DEPTH];
      guint n_open = 0;
      gint64 last_end = 0;
      CpLaneKey key;
      gboolean created;
      guint lane;

      while (b < n && smp[b].process == smp[a].process && smp[b].tid.is_str == smp[a].tid.is_str &&
             (smp[a].tid.is_str ? smp[b].tid.str == smp[a].tid.str : smp[b].tid.num == smp[a].tid.num))
        b++;

      tid = smp[a].tid.is_str ? g_strdup (cp_trace_builder_get_string (self->b, smp[a].tid.str))
                              : g_strdup_printf ("%" G_GINT64_FORMAT, smp[a].tid.num);
      lane_key = g_strdup_printf ("%s cpu samples", tid);
      key.num = smp[a].tid.is_str ? 0 : smp[a].tid.num;
      key.str = cp_trace_builder_intern (self->b, lane_key, -1);
      lane = lane_for (self, smp[a].process, CP_LANE_HOST_THREAD, key, &created);
      lane_name = g_strdup_printf (_("CPU samples, thread %s"), tid);
      cp_trace_builder_set_lane_name (self->b, lane, lane_name);
      threads++;

      for (guint i = a; i < b; i++)
        {
          guint64 keys[CP_SAMPLE_MAX_DEPTH];
          CpStr names[CP_SAMPLE_MAX_DEPTH];
          guint depth = sample_stack (self, &smp[i], keys, names);
          gint64 t = smp[i].ts;
          gint64 end;
          guint p = 0;

          if (i + 1 < b)
            end = smp[i + 1].ts;
          else
            end = t + (i > a ? t - smp[i - 1].ts : 0);
          last_end = end;

          /* An idle sample (or an empty stack) closes every open frame. */
          if (depth == 0 || names[depth - 1] == idle)
            depth = 0;
          while (p < n_open && p < depth && open_keys[p] == keys[p])
            p++;
          while (n_open > p)
            {
              SampleSlice sl = { open_start[n_open - 1], t - open_start[n_open - 1], n_open - 1, open_names[n_open - 1] };

              g_array_append_val (slices, sl);
              n_open--;
            }
          for (guint d = p; d < depth; d++)
            {
              open_keys[d] = keys[d];
              open_names[d] = names[d];
              open_start[d] = t;
            }
          n_open = depth;
          if (depth > 0)
            {
              self->report->cpu_samples++;
              self->report->cpu_sample_time += end - t;
            }
        }
      while (n_open > 0)
        {
          SampleSlice sl = { open_start[n_open - 1], last_end - open_start[n_open - 1], n_open - 1, open_names[n_open - 1] };

          g_array_append_val (slices, sl);
          n_open--;
        }

      g_array_sort (slices, cmp_sample_slices);
      for (guint k = 0; k < slices->len; k++)
        {
          const SampleSlice *sl = &g_array_index (slices, SampleSlice, k);
          CpSliceInit init;

          cp_slice_init_clear (&init);
          init.start = sl->start;
          init.dur = sl->dur;
          init.name = sl->name;
          init.cat = cat;
          cp_trace_builder_add_slice (self->b, lane, &init);
          self->n_added++;
          note_end (self, sl->start, sl->dur);
        }
      a = b;
    }
  self->report->cpu_sample_threads = threads;
}

static void
on_metadata (CpChromeReader *self,
             Event          *e)
{
  const char *what = cp_trace_builder_get_string (self->b, e->name);

  if (g_str_has_prefix (what, "process_"))
    {
      guint64 key = pack_id (&e->pid);
      ProcMeta *m = g_hash_table_lookup (self->proc_meta, &key);

      if (m == NULL)
        {
          m = g_new0 (ProcMeta, 1);
          g_hash_table_insert (self->proc_meta, g_memdup2 (&key, sizeof key), m);
        }
      if (strcmp (what, "process_name") == 0 && e->m_name != CP_STR_EMPTY)
        {
          m->name = e->m_name;
          m->has_name = TRUE;
        }
      else if (strcmp (what, "process_labels") == 0 && e->m_labels != CP_STR_EMPTY)
        {
          m->labels = e->m_labels;
          m->has_labels = TRUE;
        }
      else if (strcmp (what, "process_sort_index") == 0 && (e->have & HAVE_MSORT))
        {
          m->sort = e->m_sort;
          m->has_sort = TRUE;
        }
    }
  else if (g_str_has_prefix (what, "thread_"))
    {
      ThreadMeta probe = { pack_id (&e->pid), pack_id (&e->tid), 0, 0, FALSE, FALSE };
      ThreadMeta *m = g_hash_table_lookup (self->thread_meta, &probe);

      if (m == NULL)
        {
          m = g_memdup2 (&probe, sizeof probe);
          g_hash_table_add (self->thread_meta, m);
        }
      if (strcmp (what, "thread_name") == 0 && e->m_name != CP_STR_EMPTY)
        {
          m->name = e->m_name;
          m->has_name = TRUE;
        }
      else if (strcmp (what, "thread_sort_index") == 0 && (e->have & HAVE_MSORT))
        {
          m->sort = e->m_sort;
          m->has_sort = TRUE;
        }
    }
}

static void
commit_event (CpChromeReader *self)
{
  Event *e = &self->ev;
  guint8 ph = (guint8) e->ph;

  if (!(e->have & HAVE_ANY))
    return;   /* {} elements are skipped */

  self->report->events++;
  if (ph == 0)
    {
      self->report->skipped++;
      warn_once (self, W_NO_PH, e->offset, _("Events without a phase (“ph”) were skipped"));
      return;
    }
  self->report->by_phase[ph & 127]++;

  if (!(e->have & HAVE_TID))
    e->tid = e->pid;

  if (ph != 'M' && !(e->have & HAVE_TS))
    {
      self->report->skipped++;
      self->no_ts++;
      warn_once (self, W_NO_TS, e->offset, _("Events without a usable timestamp (“ts” missing, not a number or out of range) were skipped"));
      return;
    }

  switch (ph)
    {
    case 'X':
      if (!(e->have & HAVE_DUR))
        warn_once (self, W_NO_DUR, e->offset,
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
      on_flow (self, e);
      break;
    case 'M':
      on_metadata (self, e);
      break;
    case 'P':
      on_sample (self, e);
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

/* Token handling */

static void
begin_event (CpChromeReader *self,
             guint64         offset,
             guint           depth)
{
  Event *e = &self->ev;

  memset (e, 0, sizeof *e);
  e->corr = CP_NONE;
  e->ext = CP_NONE;
  e->gpu.bytes = -1;
  e->gpu.device = -1;
  e->gpu.stream = -1;
  e->gpu.grid[0] = e->gpu.grid[1] = e->gpu.grid[2] = -1;
  e->gpu.block[0] = e->gpu.block[1] = e->gpu.block[2] = -1;
  e->gpu.registers = -1;
  e->gpu.shared_mem = -1;
  e->gpu.blocks_per_sm = -1;
  e->gpu.warps_per_sm = -1;
  e->gpu.occupancy = -1;
  e->gpu.flops = -1;
  e->gpu.bytes_accessed = -1;
  e->size = -1;
  e->direction = CP_TRANSFER_NONE;
  e->offset = offset;
  self->in_event = TRUE;
  self->ev_depth = depth;
  self->field = F_NONE;
  self->in_args = FALSE;
  self->in_id2 = FALSE;
  self->dim = 0;
  g_array_set_size (self->counters, 0);
}

static void
event_scalar (CpChromeReader    *self,
              const CpJsonToken *t)
{
  Event *e = &self->ev;
  gint64 v;

  switch (self->field)
    {
    case F_PH:
      if (t->type == CP_JSON_STRING && t->len >= 1)
        e->ph = t->len == 1 ? t->text[0] : '?';
      break;
    case F_NAME:
      if (t->type == CP_JSON_STRING || t->type == CP_JSON_NUMBER)
        e->name = intern_token (self, t);
      break;
    case F_CAT:
      if (t->type == CP_JSON_STRING || t->type == CP_JSON_NUMBER)
        e->cat = intern_token (self, t);
      break;
    case F_TS:
      if (token_time (self, t, &v))
        {
          e->ts = v;
          e->have |= HAVE_TS;
        }
      break;
    case F_DUR:
      if (token_time (self, t, &v))
        {
          e->dur = v;
          e->have |= HAVE_DUR;
        }
      break;
    case F_PID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          token_id_key (self, t, &e->pid);
          e->have |= HAVE_PID;
        }
      break;
    case F_TID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          token_id_key (self, t, &e->tid);
          e->have |= HAVE_TID;
        }
      break;
    case F_ID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          e->id_hash = token_hash (self, t);
          e->have |= HAVE_ID;
        }
      break;
    case F_BP:
      if (t->type == CP_JSON_STRING && t->len >= 1)
        e->bp = t->text[0];
      break;
    case F_SF:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          e->sf_hash = hash_text (t->text, t->len);
          e->have |= HAVE_SF;
        }
      break;
    case F_S:
      if (t->type == CP_JSON_STRING && t->len >= 1)
        e->scope = t->text[0];
      break;
    case F_SCOPE:
      if (t->type == CP_JSON_STRING)
        e->id_hash = mix64 (e->id_hash ^ hash_text (t->text, t->len));
      break;
    case F_BIND_ID:
      if (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING)
        {
          e->bind_hash = token_hash (self, t);
          e->have |= HAVE_BIND;
        }
      break;
    case F_FLOW_IN:
      e->flow_in = t->type == CP_JSON_TRUE;
      break;
    case F_FLOW_OUT:
      e->flow_out = t->type == CP_JSON_TRUE;
      break;
    default:
      break;
    }
}

static void
args_scalar (CpChromeReader    *self,
             const CpJsonToken *t)
{
  Event *e = &self->ev;
  gint64 v;
  double d;

  switch (self->arg_field)
    {
    case A_CORR:
      if (token_int (self, t, &v))
        e->corr = v;
      break;
    case A_EXT:
      if (token_int (self, t, &v))
        e->ext = v;
      break;
    case A_DEVICE:
      if (token_int (self, t, &v) && v >= G_MININT32 && v <= G_MAXINT32)
        {
          e->gpu.device = (gint32) v;
          e->have |= HAVE_GPU;
        }
      break;
    case A_STREAM:
      if (token_int (self, t, &v) && v >= G_MININT32 && v <= G_MAXINT32)
        {
          e->gpu.stream = (gint32) v;
          e->have |= HAVE_GPU;
        }
      break;
    case A_BYTES:
      if (token_int (self, t, &v))
        {
          e->gpu.bytes = v;
          e->have |= HAVE_GPU;
        }
      break;
    case A_SIZE:
      if (token_int (self, t, &v))
        e->size = v;
      break;
    case A_DIRECTION:
      if (t->type == CP_JSON_STRING)
        {
          if (t->len == 14 && memcmp (t->text, "HOST_TO_DEVICE", 14) == 0)
            e->direction = CP_TRANSFER_HTOD;
          else if (t->len == 14 && memcmp (t->text, "DEVICE_TO_HOST", 14) == 0)
            e->direction = CP_TRANSFER_DTOH;
          else if (t->len == 16 && memcmp (t->text, "DEVICE_TO_DEVICE", 16) == 0)
            e->direction = CP_TRANSFER_DTOD;
          else
            e->direction = CP_TRANSFER_OTHER;
        }
      break;
    case A_REGS:
      if (token_int (self, t, &v))
        {
          e->gpu.registers = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
          e->have |= HAVE_GPU;
        }
      break;
    case A_SHMEM:
      if (token_int (self, t, &v))
        {
          e->gpu.shared_mem = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
          e->have |= HAVE_GPU;
        }
      break;
    case A_BPSM:
      if (token_double (self, t, &d))
        {
          e->gpu.blocks_per_sm = (float) d;
          e->have |= HAVE_GPU;
        }
      break;
    case A_WPSM:
      if (token_double (self, t, &d))
        {
          e->gpu.warps_per_sm = (float) d;
          e->have |= HAVE_GPU;
        }
      break;
    case A_OCC:
      if (token_double (self, t, &d))
        {
          e->gpu.occupancy = (float) d;
          e->have |= HAVE_GPU;
        }
      break;
    case A_NAME:
      if ((e->ph == 'M' || e->ph == 0) && t->type == CP_JSON_STRING)
        e->m_name = intern_token (self, t);
      break;
    case A_LABELS:
      if ((e->ph == 'M' || e->ph == 0) && t->type == CP_JSON_STRING)
        e->m_labels = intern_token (self, t);
      break;
    case A_SORT:
      if ((e->ph == 'M' || e->ph == 0) && token_int (self, t, &v))
        {
          e->m_sort = v;
          e->have |= HAVE_MSORT;
        }
      break;
    default:
      break;
    }

  /* Counter series: every numeric argument. */
  if ((e->ph == 'C' || e->ph == 0) && (t->type == CP_JSON_NUMBER || t->type == CP_JSON_STRING) &&
      token_double (self, t, &d))
    {
      CounterPair cp;

      cp.key = cp_trace_builder_intern (self->b, self->key_buf->str, self->key_buf->len);
      cp.value = d;
      g_array_append_val (self->counters, cp);
    }
}

/* Keeps the arguments object [start, end) of the event: as a range of the
 * mapped input, or for other input as its text (NULL when it was longer than
 * could be kept). */
static void
keep_args (CpChromeReader *self,
           guint64         start,
           guint64         end,
           const char     *text,
           gsize           len)
{
  Event *e = &self->ev;

  if (end - start <= 2)
    return;   /* {} holds nothing worth keeping. */
  if (self->mapped)
    {
      if (end - start > CP_CHROME_MAX_ARGS)
        goto too_big;
      e->args_off = start;
      e->args_len = end - start;
      e->have |= HAVE_ARGS;
    }
  else
    {
      if (text == NULL || len > CP_CHROME_MAX_ARGS)
        goto too_big;
      g_string_truncate (self->args_buf, 0);
      g_string_append_len (self->args_buf, text, len);
      e->have |= HAVE_ARGS;
    }
  return;

too_big:
  self->big_args++;
  warn_once (self, W_BIG_ARGS, start,
             _("Event arguments larger than 16 MiB were not kept"));
}

static void
end_args (CpChromeReader    *self,
          const CpJsonToken *t)
{
  guint64 end = t->offset + 1;
  const char *text = NULL;
  gsize n = 0;

  self->in_args = FALSE;
  if (!self->mapped)
    text = cp_json_tokenizer_capture_end (self->tok, end, &n);
  keep_args (self, self->args_start, end, text, n);
}

static gboolean
event_token (CpChromeReader    *self,
             const CpJsonToken *t)
{
  guint d = t->depth, D = self->ev_depth;
  Event *e = &self->ev;

  if (d == D)
    {
      switch (t->type)
        {
        case CP_JSON_KEY:
          self->field = (t->flags & CP_JSON_ESCAPED) ? F_NONE : event_key (t->text, t->len);
          e->have |= HAVE_ANY;
          return TRUE;
        case CP_JSON_OBJECT_END:
          self->in_event = FALSE;
          commit_event (self);
          self->last_event_end = t->offset + 1;
          return TRUE;
        default:
          event_scalar (self, t);
          return TRUE;
        }
    }

  if (d == D + 1)
    {
      switch (t->type)
        {
        case CP_JSON_OBJECT_START:
          if (self->field == F_ARGS)
            {
              self->in_args = TRUE;
              self->arg_field = A_NONE;
              self->args_start = t->offset;
              if (!self->mapped)
                cp_json_tokenizer_capture_begin (self->tok, t->offset, CP_CHROME_MAX_ARGS);
            }
          else if (self->field == F_ID2)
            {
              self->in_id2 = TRUE;
              self->id2_field = 0;
            }
          else
            cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_ARRAY_START:
          cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_OBJECT_END:
          if (self->in_args)
            end_args (self, t);
          self->in_id2 = FALSE;
          return TRUE;
        case CP_JSON_ARRAY_END:
          return TRUE;
        case CP_JSON_KEY:
          if (self->in_args)
            {
              self->arg_field = (t->flags & CP_JSON_ESCAPED) ? A_NONE : args_key (t->text, t->len);
              if (e->ph == 'C' || e->ph == 0)
                {
                  gsize n;
                  const char *k = cp_json_decode_string (t->text, t->len, t->flags, self->decode, &n);

                  g_string_truncate (self->key_buf, 0);
                  g_string_append_len (self->key_buf, k, n);
                }
            }
          else if (self->in_id2)
            {
              if (t->len == 5 && memcmp (t->text, "local", 5) == 0)
                self->id2_field = 1;
              else if (t->len == 6 && memcmp (t->text, "global", 6) == 0)
                self->id2_field = 2;
              else
                self->id2_field = 0;
            }
          return TRUE;
        default:
          if (self->in_args)
            args_scalar (self, t);
          else if (self->in_id2 && self->id2_field != 0 &&
                   (t->type == CP_JSON_STRING || t->type == CP_JSON_NUMBER))
            {
              e->id_hash = mix64 (token_hash (self, t) + (guint64) self->id2_field);
              e->have |= HAVE_ID;
              if (self->id2_field == 1)
                e->have |= HAVE_ID2_LOCAL;
              else
                e->have &= ~HAVE_ID2_LOCAL;
            }
          return TRUE;
        }
    }

  if (d == D + 2 && self->in_args)
    {
      switch (t->type)
        {
        case CP_JSON_ARRAY_START:
          if (self->arg_field == A_GRID || self->arg_field == A_BLOCK)
            {
              self->dim = self->arg_field;
              self->dim_i = 0;
            }
          else
            cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_OBJECT_START:
          cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_ARRAY_END:
          self->dim = 0;
          return TRUE;
        case CP_JSON_NUMBER:
          if (self->dim != 0 && self->dim_i < 3)
            {
              gint64 v;

              if (cp_json_parse_int64 (t->text, t->len, &v))
                {
                  gint32 *arr = self->dim == A_GRID ? e->gpu.grid : e->gpu.block;

                  arr[self->dim_i] = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
                  e->have |= HAVE_GPU;
                }
              self->dim_i++;
            }
          return TRUE;
        default:
          return TRUE;
        }
    }

  if (t->type == CP_JSON_OBJECT_START || t->type == CP_JSON_ARRAY_START)
    cp_json_tokenizer_skip (self->tok);
  return TRUE;
}

/* Reading events without tokens */

/* Events that lie wholly in a fed chunk (nearly all of them) are read here,
 * straight from the text, with the tokenizer's lexical rules
 * (cp-json-lex.h), and handed to the same field handlers as tokens would be.
 * Anything this path does not handle (an escaped or repaired key, "id2",
 * a second "args", a syntax error, the end of the chunk) makes it give the
 * event back to the tokenizer, which reads it from its first byte: nothing
 * done here before that point lasts (interned strings aside, which the
 * tokens intern again). */

typedef struct
{
  const guchar *p;
  const guchar *end;
} Cursor;

/* Reads the scalar value at c->p into a token (strings without their
 * quotes). FALSE when it is not one this path handles. */
static inline gboolean
direct_scalar (Cursor      *c,
               CpJsonToken *t)
{
  const guchar *p = c->p, *q;

  if (*p == '"')
    {
      t->flags = 0;
      if (cp_json_lex_string (p + 1, c->end, FALSE, &t->flags, &q) != CP_JSON_LEX_CLOSED ||
          (t->flags & CP_JSON_REPAIRED))
        return FALSE;
      t->type = CP_JSON_STRING;
      t->text = (const char *) p + 1;
      t->len = q - (p + 1);
      c->p = q + 1;
      return TRUE;
    }
  if (*p == '-' || CP_JSON_IS_DIGIT (*p))
    {
      /* Numbers, the common words: read once. */
      q = cp_json_lex_number_end (p, c->end);
      if (q != NULL && q < c->end && !(cp_json_class[*q] & CP_JSON_C_WORD))
        {
          t->type = CP_JSON_NUMBER;
          t->flags = 0;
          t->text = (const char *) p;
          t->len = q - p;
          c->p = q;
          return TRUE;
        }
    }
  q = cp_json_lex_word_end (p, c->end);
  if (q == p || q == c->end ||
      !cp_json_lex_classify_word (p, q - p, &t->type, &t->flags))
    return FALSE;
  t->text = (const char *) p;
  t->len = q - p;
  c->p = q;
  return TRUE;
}

/* Reads a key and its colon; leaves c->p at the value. */
static inline gboolean
direct_key (Cursor      *c,
            CpJsonToken *t)
{
  const guchar *q;

  if (*c->p != '"')
    return FALSE;
  t->flags = 0;
  if (cp_json_lex_string (c->p + 1, c->end, TRUE, &t->flags, &q) != CP_JSON_LEX_CLOSED)
    return FALSE;
  t->type = CP_JSON_KEY;
  t->text = (const char *) c->p + 1;
  t->len = q - (c->p + 1);
  c->p = cp_json_lex_skip_ws (q + 1, c->end);
  if (c->p == c->end || *c->p != ':')
    return FALSE;
  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  return c->p < c->end;
}

/* After a member: past the ',' to the next key (TRUE), or at the closing
 * bracket (TRUE, *closed set). */
static inline gboolean
direct_next (Cursor   *c,
             guchar    close,
             gboolean *closed)
{
  c->p = cp_json_lex_skip_ws (c->p, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == close)
    {
      *closed = TRUE;
      return TRUE;
    }
  if (*c->p != ',')
    return FALSE;
  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  *closed = FALSE;
  return c->p < c->end;
}

static inline gboolean
direct_skip (Cursor *c)
{
  c->p = cp_json_lex_skip_container (c->p + 1, c->end);
  return c->p != NULL;
}

/* "grid" and "block": the first three numbers of the array. */
static gboolean
direct_dims (CpChromeReader *self,
             Cursor         *c,
             gint32         *arr)
{
  Event *e = &self->ev;
  guint i = 0;
  gboolean closed = FALSE;

  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == ']')
    {
      c->p++;
      return TRUE;
    }
  while (!closed)
    {
      CpJsonToken t;

      if (*c->p == '{' || *c->p == '[')
        {
          if (!direct_skip (c))
            return FALSE;
        }
      else
        {
          if (!direct_scalar (c, &t))
            return FALSE;
          if (t.type == CP_JSON_NUMBER && i < 3)
            {
              gint64 v;

              if (cp_json_parse_int64 (t.text, t.len, &v))
                {
                  arr[i] = (gint32) CLAMP (v, G_MININT32, G_MAXINT32);
                  e->have |= HAVE_GPU;
                }
              i++;
            }
        }
      if (!direct_next (c, ']', &closed))
        return FALSE;
    }
  c->p++;
  return TRUE;
}

static gboolean
direct_args (CpChromeReader *self,
             Cursor         *c)
{
  Event *e = &self->ev;
  gboolean closed = FALSE;

  c->p = cp_json_lex_skip_ws (c->p + 1, c->end);
  if (c->p == c->end)
    return FALSE;
  if (*c->p == '}')
    {
      c->p++;
      return TRUE;
    }
  while (!closed)
    {
      CpJsonToken t;

      if (!direct_key (c, &t))
        return FALSE;
      self->arg_field = (t.flags & CP_JSON_ESCAPED) ? A_NONE : args_key (t.text, t.len);
      if (e->ph == 'C' || e->ph == 0)
        {
          gsize n;
          const char *k = cp_json_decode_string (t.text, t.len, t.flags, self->decode, &n);

          g_string_truncate (self->key_buf, 0);
          g_string_append_len (self->key_buf, k, n);
        }
      if (*c->p == '[' && (self->arg_field == A_GRID || self->arg_field == A_BLOCK))
        {
          if (!direct_dims (self, c, self->arg_field == A_GRID ? e->gpu.grid : e->gpu.block))
            return FALSE;
        }
      else if (*c->p == '{' || *c->p == '[')
        {
          if (!direct_skip (c))
            return FALSE;
        }
      else
        {
          if (!direct_scalar (c, &t))
            return FALSE;
          args_scalar (self, &t);
        }
      if (!direct_next (c, '}', &closed))
        return FALSE;
    }
  c->p++;
  return TRUE;
}

static gsize
read_event (CpChromeReader *self,
            const char     *text,
            gsize           len,
            guint64         offset)
{
  Event *e = &self->ev;
  Cursor c = { (const guchar *) text, (const guchar *) text + len };
  const guchar *args_from = NULL, *args_to = NULL;
  gboolean closed = FALSE;

  begin_event (self, offset, self->events_depth + 1);
  c.p = cp_json_lex_skip_ws (c.p + 1, c.end);
  if (c.p == c.end)
    return 0;
  if (*c.p == '}')
    closed = TRUE;
  while (!closed)
    {
      CpJsonToken t;

      if (!direct_key (&c, &t))
        return 0;
      self->field = (t.flags & CP_JSON_ESCAPED) ? F_NONE : event_key (t.text, t.len);
      e->have |= HAVE_ANY;
      if (*c.p == '{')
        {
          if (self->field == F_ARGS)
            {
              if (args_from != NULL)
                return 0;
              args_from = c.p;
              if (!direct_args (self, &c))
                return 0;
              args_to = c.p;
            }
          else if (self->field == F_ID2)
            return 0;
          else if (!direct_skip (&c))
            return 0;
        }
      else if (*c.p == '[')
        {
          if (!direct_skip (&c))
            return 0;
        }
      else
        {
          if (!direct_scalar (&c, &t))
            return 0;
          event_scalar (self, &t);
        }
      if (!direct_next (&c, '}', &closed))
        return 0;
    }

  if (args_from != NULL)
    keep_args (self, offset + (args_from - (const guchar *) text), offset + (args_to - (const guchar *) text),
               (const char *) args_from, args_to - args_from);
  self->in_event = FALSE;
  commit_event (self);
  self->last_event_end = offset + (c.p - (const guchar *) text) + 1;
  return c.p - (const guchar *) text + 1;
}

static gsize
direct_event (CpJsonTokenizer *tok,
              const char      *text,
              gsize            len,
              guint64          offset,
              gpointer         data)
{
  CpChromeReader *self = data;
  gsize used = read_event (self, text, len, offset);

  /* Given back: the tokens start the event again. */
  if (used == 0)
    self->in_event = FALSE;
  return used;
}

static void
parse_devices (CpChromeReader *self,
               const char     *json,
               gsize           len)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonArray *arr;

  if (!cp_json_depth_within (json, len, CP_JSON_MAX_DOM_DEPTH))
    {
      /* json-glib recurses once per level (see cp-limits.h). */
      cp_load_report_warn (self->report, G_MAXUINT64,
                           _("The device properties are nested deeper than the limit of %u "
                             "levels and were not read"),
                           CP_JSON_MAX_DOM_DEPTH);
      return;
    }
  if (!json_parser_load_from_data (parser, json, len, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return;
  arr = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (arr); i++)
    {
      JsonNode *n = json_array_get_element (arr, i);
      JsonObject *o;
      CpDevice *dev;
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      dev = cp_trace_builder_device (self->b, (gint) json_object_get_int_member_with_default (o, "id", i));
      name = json_object_get_string_member_with_default (o, "name", "");
      dev->name = cp_trace_builder_intern (self->b, name, -1);
      if (strstr (name, "NVIDIA") || strstr (name, "Tesla") || strstr (name, "GeForce") ||
          strstr (name, "Quadro") || strstr (name, "RTX"))
        dev->vendor = cp_trace_builder_intern (self->b, "Nvidia", -1);
      else if (strstr (name, "AMD") || strstr (name, "Instinct") || strstr (name, "Radeon"))
        dev->vendor = cp_trace_builder_intern (self->b, "AMD", -1);
      dev->total_memory = json_object_get_int_member_with_default (o, "totalGlobalMem", -1);
      dev->compute_major = json_object_get_int_member_with_default (o, "computeMajor",
                             json_object_get_int_member_with_default (o, "major", -1));
      dev->compute_minor = json_object_get_int_member_with_default (o, "computeMinor",
                             json_object_get_int_member_with_default (o, "minor", -1));
      dev->num_sms = json_object_get_int_member_with_default (o, "numSms",
                       json_object_get_int_member_with_default (o, "multiProcessorCount", -1));
      dev->max_threads_per_sm = json_object_get_int_member_with_default (o, "maxThreadsPerMultiprocessor",
                                  json_object_get_int_member_with_default (o, "maxThreadsPerMultiProcessor", -1));
      dev->warp_size = json_object_get_int_member_with_default (o, "warpSize", -1);
    }
}

static void
top_value (CpChromeReader *self,
           const char     *json,
           gsize           len)
{
  const char *key = self->top_key->str;

  if (json == NULL)
    {
      cp_load_report_warn (self->report, G_MAXUINT64,
                           _("The top-level value “%s” is larger than %u MiB and was not kept"),
                           key, CP_CHROME_MAX_METADATA >> 20);
      return;
    }
  cp_trace_builder_add_metadata (self->b, key, json, len);
  if (strcmp (key, "deviceProperties") == 0 || strcmp (key, "computeProperties") == 0)
    parse_devices (self, json, len);
  else if (strcmp (key, "stackFrames") == 0 && self->stack_frames == NULL)
    {
      self->stack_frames = g_strndup (json, len);
      self->stack_frames_len = len;
    }
  else if (strcmp (key, "spans") == 0 && self->cloud_spans == NULL)
    {
      self->cloud_spans = g_strndup (json, len);
      self->cloud_spans_len = len;
    }
}

/* RFC 3339 time with up to nanoseconds ("2015-09-03T16:40:00.841654024Z")
 * to epoch ns. */
static gboolean
parse_rfc3339_ns (const char *text,
                  gint64     *out)
{
  g_autoptr(GString) whole = g_string_new (NULL);
  g_autoptr(GDateTime) dt = NULL;
  const char *dot = strchr (text, '.');
  gint64 frac = 0;

  if (dot == NULL)
    g_string_assign (whole, text);
  else
    {
      const char *p = dot + 1;
      int digits = 0;

      while (g_ascii_isdigit (*p))
        {
          if (digits < 9)
            {
              frac = frac * 10 + (*p - '0');
              digits++;
            }
          p++;
        }
      for (; digits < 9; digits++)
        frac *= 10;
      g_string_append_len (whole, text, dot - text);
      g_string_append (whole, p);
    }
  dt = g_date_time_new_from_iso8601 (whole->str, NULL);
  if (dt == NULL)
    return FALSE;
  *out = g_date_time_to_unix (dt) * CP_NS_PER_S + frac;
  return TRUE;
}

/* Google Cloud Trace JSON ({"traceId", "spans": [{name, startTime, endTime,
 * kind, labels}]}), which the Chrome trace viewer also opens: every span is
 * a slice on one lane; nesting shows as rows. */
static void
read_cloud_spans (CpChromeReader *self)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;
  JsonArray *spans;
  guint process, lane;
  CpLaneKey key = { 0, CP_STR_EMPTY };

  if (!json_parser_load_from_data (parser, self->cloud_spans, self->cloud_spans_len, NULL))
    return;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return;
  spans = json_node_get_array (root);
  process = cp_trace_builder_process_for_string (self->b, "Google Cloud Trace", -1);
  key.str = cp_trace_builder_intern (self->b, "spans", -1);
  lane = cp_trace_builder_lane (self->b, process, CP_LANE_HOST_THREAD, key);
  for (guint i = 0; i < json_array_get_length (spans); i++)
    {
      JsonNode *n = json_array_get_element (spans, i);
      JsonObject *o;
      CpSliceInit init;
      gint64 t0, t1;
      JsonNode *labels;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        continue;
      o = json_node_get_object (n);
      self->report->events++;
      if (!parse_rfc3339_ns (json_object_get_string_member_with_default (o, "startTime", ""), &t0) ||
          !parse_rfc3339_ns (json_object_get_string_member_with_default (o, "endTime", ""), &t1))
        {
          self->report->skipped++;
          continue;
        }
      cp_slice_init_clear (&init);
      init.start = t0;
      init.dur = t1 - t0;
      init.name = cp_trace_builder_intern (self->b, json_object_get_string_member_with_default (o, "name", ""), -1);
      init.cat = cp_trace_builder_intern (self->b, json_object_get_string_member_with_default (o, "kind", ""), -1);
      labels = json_object_get_member (o, "labels");
      if (labels != NULL && JSON_NODE_HOLDS_OBJECT (labels) && json_object_get_size (json_node_get_object (labels)) > 0)
        {
          g_autofree char *text = json_to_string (labels, FALSE);

          init.args = add_args_text (self, text, strlen (text));
        }
      cp_trace_builder_add_slice (self->b, lane, &init);
      self->n_added++;
    }
  if (self->n_added > 0)
    cp_trace_builder_set_epoch_base (self->b, 0);
}

static gboolean
outer_token (CpChromeReader    *self,
             const CpJsonToken *t)
{
  guint d = t->depth;

  if (self->form == FORM_NONE)
    {
      if (t->type == CP_JSON_OBJECT_START)
        self->form = FORM_OBJECT;
      else if (t->type == CP_JSON_ARRAY_START)
        {
          self->form = FORM_ARRAY;
          self->in_events = TRUE;
          self->events_depth = 1;
          cp_json_tokenizer_set_object_func (self->tok, 2, direct_event);
        }
      else
        {
          self->form = FORM_OTHER;
          return FALSE;
        }
      return TRUE;
    }

  if (self->in_events)
    {
      if (d == self->events_depth + 1)
        {
          switch (t->type)
            {
            case CP_JSON_OBJECT_START:
              begin_event (self, t->offset, t->depth);
              return TRUE;
            case CP_JSON_ARRAY_START:
              if (self->non_objects++ == 0)
                self->first_non_object = '[';
              cp_json_tokenizer_skip (self->tok);
              return TRUE;
            case CP_JSON_ARRAY_END:
            case CP_JSON_OBJECT_END:
              return TRUE;
            default:
              if (self->non_objects++ == 0)
                self->first_non_object = t->type == CP_JSON_STRING ? '"' : '0';
              return TRUE;
            }
        }
      if (d == self->events_depth && t->type >= CP_JSON_STRING)
        {
          /* A plain value among the events (its depth is the array's own,
           * where containers count themselves one deeper). */
          if (self->non_objects++ == 0)
            self->first_non_object = t->type == CP_JSON_STRING ? '"' : '0';
          return TRUE;
        }
      if (d == self->events_depth && t->type == CP_JSON_ARRAY_END)
        {
          self->in_events = FALSE;
          cp_json_tokenizer_set_object_func (self->tok, 0, NULL);
          if (self->form == FORM_ARRAY)
            self->root_done = TRUE;
        }
      return TRUE;
    }

  if (self->form != FORM_OBJECT)
    return TRUE;

  if (d == 1)
    {
      switch (t->type)
        {
        case CP_JSON_KEY:
          {
            gsize n;
            const char *k = cp_json_decode_string (t->text, t->len, t->flags, self->decode, &n);

            g_string_truncate (self->top_key, 0);
            g_string_append_len (self->top_key, k, n);
            if (self->top_keys->len < 12)
              g_ptr_array_add (self->top_keys, g_strndup (k, n));
            return TRUE;
          }
        case CP_JSON_OBJECT_END:
          self->root_done = TRUE;
          return TRUE;
        case CP_JSON_STRING:
          {
            g_autofree char *quoted = g_strdup_printf ("\"%.*s\"", (int) t->len, t->text);

            top_value (self, quoted, strlen (quoted));
            return TRUE;
          }
        case CP_JSON_NUMBER:
          if (strcmp (self->top_key->str, "baseTimeNanoseconds") == 0)
            {
              gint64 v;

              if (cp_json_parse_int64 (t->text, t->len, &v))
                {
                  self->base = v;
                  self->has_base = TRUE;
                }
            }
          top_value (self, t->text, t->len);
          return TRUE;
        default:
          top_value (self, t->text, t->len);
          return TRUE;
        }
    }

  if (d == 2)
    {
      switch (t->type)
        {
        case CP_JSON_ARRAY_START:
          if (strcmp (self->top_key->str, "traceEvents") == 0)
            {
              self->saw_trace_events = TRUE;
              self->in_events = TRUE;
              self->events_depth = 2;
              cp_json_tokenizer_set_object_func (self->tok, 3, direct_event);
              return TRUE;
            }
          G_GNUC_FALLTHROUGH;
        case CP_JSON_OBJECT_START:
          if (strcmp (self->top_key->str, "traceEvents") == 0)
            warn_once (self, W_BAD_EVENTS, t->offset, _("“traceEvents” is not an array and was ignored"));
          cp_json_tokenizer_capture_begin (self->tok, t->offset, CP_CHROME_MAX_METADATA);
          self->metadata_capture = TRUE;
          cp_json_tokenizer_skip (self->tok);
          return TRUE;
        case CP_JSON_ARRAY_END:
        case CP_JSON_OBJECT_END:
          if (self->metadata_capture)
            {
              gsize n;
              const char *text = cp_json_tokenizer_capture_end (self->tok, t->offset + 1, &n);

              self->metadata_capture = FALSE;
              top_value (self, text, n);
            }
          return TRUE;
        default:
          return TRUE;
        }
    }
  return TRUE;
}

static gboolean
on_token (CpJsonTokenizer   *tok,
          const CpJsonToken *t,
          gpointer           data)
{
  CpChromeReader *self = data;

  if (G_UNLIKELY (t->flags & CP_JSON_REPAIRED))
    warn_once (self, W_REPAIRED, t->offset,
               _("Strings with unescaped quotes (written by old PyTorch versions) were read whole"));
  if (G_LIKELY (self->in_event))
    return event_token (self, t);
  return outer_token (self, t);
}

/* Feeding */

gboolean
cp_chrome_reader_feed (CpChromeReader *self,
                       const char     *data,
                       gsize           len,
                       GError        **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->stopped)
    return FALSE;
  if (cp_json_tokenizer_feed (self->tok, data, len, &local_error))
    return TRUE;

  self->stopped = TRUE;
  if (local_error != NULL && g_error_matches (local_error, CP_JSON_ERROR, CP_JSON_ERROR_LIMIT))
    {
      self->fatal = g_error_new (CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT, "“%s”: %s",
                                 self->name, local_error->message);
      if (error)
        *error = g_error_copy (self->fatal);
      return FALSE;
    }
  if (local_error != NULL)
    {
      self->truncated = TRUE;
      self->stopped_at = cp_json_tokenizer_get_error_offset (self->tok);
      self->stop_reason = g_strdup (local_error->message);
    }
  return FALSE;
}

void
cp_chrome_reader_input_damaged (CpChromeReader *self,
                                const GError   *damage)
{
  g_return_if_fail (self != NULL);

  if (self->stopped && self->truncated)
    return;
  self->stopped = TRUE;
  self->truncated = TRUE;
  self->stopped_at = cp_json_tokenizer_get_offset (self->tok);
  g_free (self->stop_reason);
  self->stop_reason = g_strdup (damage ? damage->message : _("The input is damaged"));
}

/* Finishing */

static gint
cmp_bind (gconstpointer a,
          gconstpointer b)
{
  const BindPt *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return 0;
}

static void
close_all_pending (CpChromeReader *self)
{
  gint64 end = self->any_time ? self->max_end : 0;
  guint64 n = 0;
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; i < self->b_stacks->len; i++)
    {
      GArray *a = g_ptr_array_index (self->b_stacks, i);

      if (a == NULL)
        continue;
      /* Innermost first, so the outer slices end no earlier than inner ones. */
      for (guint k = a->len; k > 0; k--)
        {
          close_pending (self, &g_array_index (a, Pending, k - 1), end, CP_SLICE_UNCLOSED, NULL);
          n++;
        }
      g_array_set_size (a, 0);
    }
  g_hash_table_iter_init (&iter, self->async_stacks);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray *a = value;

      for (guint k = a->len; k > 0; k--)
        {
          close_pending (self, &g_array_index (a, Pending, k - 1), end, CP_SLICE_UNCLOSED, NULL);
          n++;
        }
      g_array_set_size (a, 0);
    }
  if (n > 0)
    {
      self->report->unclosed_begin += n;
      cp_load_report_warn (self->report, G_MAXUINT64,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "%" PRIu64 " begin event had no end and was closed at the end of the trace",
                                        "%" PRIu64 " begin events had no end and were closed at the end of the trace",
                                        n),
                           n);
    }
}

static gboolean
parse_gpu_label (const char *labels,
                 gint       *device)
{
  g_auto(GStrv) parts = g_strsplit (labels, ",", -1);

  for (guint i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      gint64 v;

      if (g_str_has_prefix (p, "GPU ") && cp_json_parse_int64 (p + 4, strlen (p + 4), &v) &&
          v >= 0 && v < 1 << 20)
        {
          *device = (gint) v;
          return TRUE;
        }
    }
  return FALSE;
}

static void
apply_metadata (CpChromeReader *self)
{
  GHashTableIter iter;
  gpointer key, value;

  /* Processes: names, labels, sort order, device-ness. */
  for (guint proc = 0; proc < self->proc_pids->len; proc++)
    {
      IdKey pid = g_array_index (self->proc_pids, IdKey, proc);
      guint64 packed = pack_id (&pid);
      ProcMeta *m = g_hash_table_lookup (self->proc_meta, &packed);
      CpProcess *p = cp_trace_builder_get_process (self->b, proc);
      gint device;

      if (m != NULL && m->has_name)
        p->name = m->name;
      if (m != NULL && m->has_labels)
        {
          const char *labels = cp_trace_builder_get_string (self->b, m->labels);

          p->labels = m->labels;
          if (parse_gpu_label (labels, &device))
            {
              p->is_device = TRUE;
              p->device = device;
            }
        }
      if (m != NULL && m->has_sort)
        p->sort_index = m->sort;
      else if (p->is_device)
        p->sort_index = 5000000 + MAX (p->device, 0);
      else if (!pid.is_str)
        p->sort_index = pid.num;
      else
        p->sort_index = G_MAXINT32;
      if (!pid.is_str && pid.num == -1)
        p->is_pseudo = TRUE;
    }

  /* Threads: name and order their lanes (host thread, or the GPU stream). */
  g_hash_table_iter_init (&iter, self->thread_meta);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ThreadMeta *m = key;
      gpointer pv = g_hash_table_lookup (self->pid_map, &m->pid);
      guint proc, lane;
      CpLaneKey lk;
      IdKey tid;
      const CpProcess *p;

      if (pv == NULL)
        continue;
      proc = GPOINTER_TO_UINT (pv) - 1;
      p = cp_trace_builder_get_process (self->b, proc);
      /* Recover the tid key from its packed form. */
      if ((m->tid & G_GUINT64_CONSTANT (0xffff000000000000)) == G_GUINT64_CONSTANT (0x5a5a000000000000) &&
          (m->tid & 1))
        {
          tid.is_str = TRUE;
          tid.str = (CpStr) ((m->tid ^ G_GUINT64_CONSTANT (0x5a5a000000000000)) >> 1);
          tid.num = 0;
        }
      else
        {
          tid.is_str = FALSE;
          tid.num = (gint64) m->tid;
          tid.str = 0;
        }
      lk = tid_lane_key (&tid);
      if (cp_trace_builder_has_lane (self->b, proc, CP_LANE_HOST_THREAD, lk, &lane))
        {
          if (m->has_name)
            cp_trace_builder_set_lane_name (self->b, lane, cp_trace_builder_get_string (self->b, m->name));
          if (m->has_sort)
            cp_trace_builder_set_lane_sort_key (self->b, lane, m->sort);
        }
      if (p->is_device && !tid.is_str &&
          cp_trace_builder_has_lane (self->b, proc, CP_LANE_KERNEL, lk, &lane))
        {
          if (m->has_name)
            {
              g_autofree char *name = g_strdup (cp_trace_builder_get_string (self->b, m->name));

              cp_trace_builder_set_lane_name (self->b, lane, g_strchomp (name));
            }
          if (m->has_sort)
            cp_trace_builder_set_lane_sort_key (self->b, lane, m->sort);
        }
    }
}

static void
add_flows (CpChromeReader *self)
{
  guint unbound = 0;

  for (guint i = 0; i < self->flow_pts->len; i++)
    {
      const FlowPt *p = &g_array_index (self->flow_pts, FlowPt, i);
      const CpProcess *proc = cp_trace_builder_get_process (self->b, p->process);
      CpLaneKey lk = tid_lane_key (&p->tid);
      guint lane;
      gboolean found = FALSE;

      if (proc->is_device)
        {
          TransferKey tk = { pack_id (&g_array_index (self->proc_pids, IdKey, p->process)),
                             pack_id (&p->tid), p->ts };
          gpointer v = g_hash_table_lookup (self->transfer_at, &tk);

          if (v != NULL)
            {
              lane = GPOINTER_TO_UINT (v) - 1;
              found = TRUE;
            }
          else
            {
              Event fake = { 0 };
              CpLaneKey sk;

              fake.tid = p->tid;
              fake.have = HAVE_TID;
              sk.num = event_stream (self, &fake);
              sk.str = CP_STR_EMPTY;
              found = cp_trace_builder_has_lane (self->b, p->process, CP_LANE_KERNEL, sk, &lane);
            }
        }
      if (!found)
        found = cp_trace_builder_has_lane (self->b, p->process, CP_LANE_HOST_THREAD, lk, &lane);
      if (!found)
        {
          unbound++;
          continue;
        }
      cp_trace_builder_add_flow_point (self->b, p->key, lane, p->ts, p->bind, p->order, p->kind, p->name);
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

      g_array_sort (self->bind_pts, cmp_bind);
      for (guint i = 0; i + 1 < self->bind_pts->len; i++)
        {
          const BindPt *a = &g_array_index (self->bind_pts, BindPt, i);
          const BindPt *b = &g_array_index (self->bind_pts, BindPt, i + 1);

          if (a->key == b->key && a->out && b->in)
            cp_trace_builder_add_flow (self->b, a->ref, b->ref, CP_FLOW_GENERIC, name);
        }
    }
}

static gboolean
is_cloud_trace (CpChromeReader *self)
{
  for (guint i = 0; i < self->top_keys->len; i++)
    if (strcmp (g_ptr_array_index (self->top_keys, i), "traceId") == 0)
      return TRUE;
  return FALSE;
}

static char *
describe_not_a_trace (CpChromeReader *self)
{
  g_autoptr(GString) keys = g_string_new (NULL);

  if (self->form == FORM_ARRAY)
    {
      if (self->first_non_object == '[')
        return g_strdup (_("it is a JSON array of arrays, like a PyTorch memory timeline "
                           "(export_memory_timeline raw data), not a trace"));
      return g_strdup (_("it is a JSON array of plain values, not of trace events"));
    }
  for (guint i = 0; i < self->top_keys->len; i++)
    {
      const char *k = g_ptr_array_index (self->top_keys, i);

      if (g_str_has_prefix (k, "rocprofiler"))
        return g_strdup (_("it looks like rocprofiler-sdk (rocprofv3) JSON output, not a Chrome "
                           "trace; export a Perfetto or Chrome trace from rocprofv3 instead"));
    }
  for (guint i = 0; i < self->top_keys->len; i++)
    {
      const char *k = g_ptr_array_index (self->top_keys, i);

      if (strcmp (k, "nodes") == 0)
        return g_strdup (_("it looks like a PyTorch execution trace (an operator graph from "
                           "ExecutionTraceObserver), which has no timeline; open the matching "
                           "Kineto trace instead"));
    }
  for (guint i = 0; i < self->top_keys->len; i++)
    {
      /* "traceEvents" was there, but not as an array. */
      if (strcmp (g_ptr_array_index (self->top_keys, i), "traceEvents") == 0)
        return g_strdup (_("its “traceEvents” value is not an array of events"));
    }
  for (guint i = 0; i < self->top_keys->len && i < 6; i++)
    {
      if (i > 0)
        g_string_append (keys, ", ");
      g_string_append_printf (keys, "“%s”", (const char *) g_ptr_array_index (self->top_keys, i));
    }
  if (keys->len == 0)
    return g_strdup (_("it is an empty JSON object"));
  return g_strdup_printf (_("it is a JSON object without “traceEvents” (its keys: %s)"), keys->str);
}

gboolean
cp_chrome_reader_finish (CpChromeReader  *self,
                         GError         **error)
{
  CpJsonEnd end;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->fatal)
    {
      g_propagate_error (error, g_steal_pointer (&self->fatal));
      return FALSE;
    }

  end = cp_json_tokenizer_finish (self->tok);

  if (self->form == FORM_OTHER)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                   _("“%s” is not a trace: it holds a single JSON value, not an object or array"),
                   self->name);
      return FALSE;
    }
  if (self->form == FORM_NONE)
    {
      if (self->truncated)
        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                     _("“%s” is not a trace: %s"), self->name, self->stop_reason);
      else
        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                     _("“%s” is empty"), self->name);
      return FALSE;
    }

  if (end == CP_JSON_END_TRUNCATED && !self->truncated)
    {
      /* An array-form trace may end without its ']' (the format allows it);
       * anything else cut off is a truncation. */
      gboolean only_array_open = self->form == FORM_ARRAY && !self->in_event;

      if (!only_array_open)
        {
          self->truncated = TRUE;
          self->stopped_at = self->last_event_end;
          self->stop_reason = g_strdup_printf (_("The file ends at byte %" PRIu64
                                                 " in the middle of the JSON text"),
                                               cp_json_tokenizer_get_offset (self->tok));
        }
    }

  if (self->form == FORM_OBJECT && !self->saw_trace_events && self->cloud_spans != NULL &&
      is_cloud_trace (self))
    read_cloud_spans (self);

  if (self->report->events == 0 && self->n_added == 0)
    {
      if (self->form == FORM_OBJECT && !self->saw_trace_events && !self->truncated)
        {
          g_autofree char *why = describe_not_a_trace (self);

          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                       _("“%s” is not a trace: %s"), self->name, why);
          return FALSE;
        }
      if (self->form == FORM_ARRAY && self->non_objects > 0)
        {
          g_autofree char *why = describe_not_a_trace (self);

          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                       _("“%s” is not a trace: %s"), self->name, why);
          return FALSE;
        }
      if (self->truncated)
        {
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                       _("“%s” is damaged before its first event: %s"), self->name, self->stop_reason);
          return FALSE;
        }
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                   _("“%s” holds no trace events"), self->name);
      return FALSE;
    }

  if (self->truncated)
    {
      self->report->truncated = TRUE;
      self->report->stopped_at = self->stopped_at;
      cp_load_report_warn (self->report, self->stopped_at,
                           _("Reading stopped early (%s); every complete event before byte %"
                             PRIu64 " was loaded"),
                           self->stop_reason, self->last_event_end);
    }
  if (self->in_event)
    self->report->skipped++;

  close_all_pending (self);
  add_samples (self);
  apply_metadata (self);
  add_flows (self);

  {
    g_autoptr(GString) phases = g_string_new (NULL);
    guint64 total = 0;

    for (guint c = 0; c < 128; c++)
      {
        if (self->unknown_by_phase[c] == 0)
          continue;
        total += self->unknown_by_phase[c];
        if (phases->len > 0)
          g_string_append (phases, ", ");
        if (c >= 0x20 && c < 0x7f)
          g_string_append_printf (phases, "“%c”", c);
        else
          g_string_append_printf (phases, "0x%02x", c);
      }
    if (total > 0)
      cp_load_report_warn (self->report, G_MAXUINT64,
                           g_dngettext (GETTEXT_PACKAGE,
                                        "%" PRIu64 " event of a phase that is not shown (%s) was skipped",
                                        "%" PRIu64 " events of phases that are not shown (%s) were skipped",
                                        total),
                           total, phases->str);
  }

  if (self->has_base)
    {
      cp_trace_builder_set_time_offset (self->b, self->base);
      cp_trace_builder_set_epoch_base (self->b, self->base);
    }
  cp_trace_builder_detect_profiler_steps (self->b);
  return TRUE;
}

/* Driving a source */

gboolean
cp_chrome_reader_read_source (CpSource           *source,
                              CpTraceBuilder     *builder,
                              GCancellable       *cancellable,
                              CpLoadProgressFunc  progress,
                              gpointer            progress_data,
                              GError            **error)
{
  g_autoptr(CpChromeReader) reader = NULL;
  GBytes *mapped = cp_source_get_mapped (source);
  guint64 total = cp_source_get_file_size (source);
  CpLoadReport *report = cp_trace_builder_get_report (builder);

  reader = cp_chrome_reader_new (builder, mapped, cp_source_get_name (source));

  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) chunk = cp_source_read (source, cancellable, &local_error);
      gsize len;
      const char *data;

      if (chunk == NULL)
        {
          if (local_error == NULL)
            break;
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
              g_error_matches (local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT) ||
              !g_error_matches (local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED))
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return FALSE;
            }
          cp_chrome_reader_input_damaged (reader, local_error);
          break;
        }
      data = g_bytes_get_data (chunk, &len);
      if (!cp_chrome_reader_feed (reader, data, len, error))
        {
          if (reader->fatal)
            return FALSE;
          break;
        }
      if (mapped && reader->last_event_end > CP_SOURCE_MAPPED_SLICE)
        cp_source_release_before (source, reader->last_event_end - CP_SOURCE_MAPPED_SLICE);
      if (progress)
        progress (cp_source_get_consumed (source), total, progress_data);
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (!cp_chrome_reader_finish (reader, error))
    return FALSE;
  if (cp_source_get_trailing_note (source) != NULL)
    cp_load_report_warn (report, G_MAXUINT64, "%s", cp_source_get_trailing_note (source));
  report->input_bytes = cp_source_get_produced (source);
  if (progress)
    progress (total, total, progress_data);
  return TRUE;
}
