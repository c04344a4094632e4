/* cp-chrome-private.h: what the parts of the Chrome trace reader share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "cp-chrome-reader.h"
#include "cp-json-lex.h"
#include "cp-json-tokenizer.h"

G_BEGIN_DECLS

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

/* The arguments whose value is an integer (cp_chrome_arg_int()) or a
 * number (cp_chrome_arg_double()) outside counters and metadata. */
static inline gboolean
cp_chrome_arg_is_int (int field)
{
  switch (field)
    {
    case A_CORR: case A_EXT: case A_DEVICE: case A_STREAM:
    case A_BYTES: case A_SIZE: case A_REGS: case A_SHMEM:
      return TRUE;
    default:
      return FALSE;
    }
}

static inline gboolean
cp_chrome_arg_is_double (int field)
{
  return field == A_BPSM || field == A_WPSM || field == A_OCC;
}

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

/* Input this big reserves its columns up front (cp-huge-pages.h). */
#define CP_CHROME_BIG_INPUT ((gsize) 32 << 20)

#define LANE_CACHE_SIZE 256
/* Host and device events alternate: a few pids looked up without hashing. */
#define PID_CACHE_SIZE  4
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

/* An event read ahead on another thread (cp-chrome-parallel.c): what
 * read_event() would hand to the field handlers, as a list of operations
 * replayed in order on the reading thread. */
enum
{
  OP_FIELD,        /* code: the F_ field of a key whose value is skipped
                    * or the arguments */
  OP_SCALAR,       /* code: the F_ field; the token: its scalar value */
  OP_ARG_KEY,      /* code: the A_ key; the token: its raw text */
  OP_ARG_SCALAR,   /* a scalar of the arguments */
  OP_DIM,          /* code: A_GRID or A_BLOCK, type: the index, len: the value */
  OP_TIME,         /* code: F_TS or F_DUR (the field too), num: the time read */
  OP_ID_NUM,       /* code: F_PID or F_TID (the field too), num: the number read */
  OP_ARG_INT,      /* an OP_ARG_SCALAR whose integer (num) an A_ key reads */
  OP_ARG_DOUBLE,   /* the same for a number (num: the double's bits) */
};

typedef struct
{
  guint8      kind;
  guint8      code;
  guint8      type;
  guint8      flags;
  guint32     len;
  const char *text;
  gint64      num;
} CpChromeOp;

typedef struct
{
  guint64     offset;     /* of the '{' */
  const char *text;       /* the '{' itself */
  guint32     used;       /* bytes through the closing '}' */
  guint32     first;      /* its operations in the chunk's list */
  guint32     n_ops;
  guint32     args_from;  /* the "args" object, relative to the '{'; */
  guint32     args_to;    /* args_to 0: none */
} CpChromeAhead;

/* A growing array of operations, appended to inline: a worker appends
 * several per event, and GArray's call per element was a fifth of its
 * time. */
typedef struct
{
  CpChromeOp *v;
  guint       len;
  guint       cap;
} CpChromeOps;

void cp_chrome_ops_grow (CpChromeOps *ops);

static inline CpChromeOp *
cp_chrome_ops_push (CpChromeOps *ops)
{
  if (G_UNLIKELY (ops->len == ops->cap))
    cp_chrome_ops_grow (ops);
  return &ops->v[ops->len++];
}

typedef struct _CpChromePar CpChromePar;

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
  IdKey            last_pid[PID_CACHE_SIZE];  /* the last few pids' processes */
  guint            last_proc[PID_CACHE_SIZE];
  guint            n_last_pid;
  guint            next_last_pid;
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

  CpChromePar     *par;              /* events read ahead on other threads, or NULL */

  gboolean         stopped;
  gboolean         truncated;
  guint64          stopped_at;
  char            *stop_reason;
  GError          *fatal;
};

typedef struct
{
  guint64 pid;
  guint64 tid;
  gint64  ts;
} TransferKey;

/* cp-chrome-reader.c */
guint64 cp_chrome_hash_text (const char *s,
                             gsize       n);
gint cp_chrome_cmp_bind (gconstpointer a,
                         gconstpointer b);

/* cp-chrome-tokens.c */
CpStr cp_chrome_intern_token (CpChromeReader    *self,
                              const CpJsonToken *t);
gboolean cp_chrome_token_int (CpChromeReader    *self,
                              const CpJsonToken *t,
                              gint64            *out);
gboolean cp_chrome_token_double (CpChromeReader    *self,
                                 const CpJsonToken *t,
                                 double            *out);
gboolean cp_chrome_on_token (CpJsonTokenizer   *tok,
                             const CpJsonToken *t,
                             gpointer           data);

gboolean cp_chrome_pre_event (const char    *text,
                              gsize          len,
                              CpChromeOps   *ops,
                              CpChromeAhead *out);
gsize cp_chrome_replay_event (CpChromeReader      *self,
                              const CpChromeAhead *a,
                              const CpChromeOp    *ops);

/* cp-chrome-parallel.c */
CpChromePar *cp_chrome_par_new (const char *data,
                                gsize       len,
                                guint       n_workers,
                                gsize       chunk);
void cp_chrome_par_free (CpChromePar *par);
void cp_chrome_par_watch (CpChromePar *par,
                          GArray      *array);
const CpChromeAhead *cp_chrome_par_find (CpChromePar       *par,
                                         guint64            offset,
                                         const char        *text,
                                         const CpChromeOp **ops);
guint cp_chrome_par_threads (gsize    input_len,
                             gboolean alone,
                             gsize   *chunk);

/* cp-chrome-events.c */
guint cp_chrome_cat_class (CpChromeReader *self,
                           CpStr           cat);
guint16 cp_chrome_name_info (CpChromeReader *self,
                             CpStr           name);
guint cp_chrome_process_for (CpChromeReader *self,
                             const IdKey    *pid);
guint cp_chrome_lane_for (CpChromeReader *self,
                          guint           process,
                          CpLaneKind      kind,
                          CpLaneKey       key,
                          gboolean       *created);
CpLaneKey cp_chrome_tid_lane_key (const IdKey *tid);
gint64 cp_chrome_event_stream (CpChromeReader *self,
                               const Event    *e);
void cp_chrome_close_pending (CpChromeReader *self,
                              Pending        *p,
                              gint64          end,
                              guint16         flags,
                              Event          *end_event);
void cp_chrome_warn_once (CpChromeReader *self,
                          guint32         what,
                          guint64         offset,
                          const char     *message);
void cp_chrome_commit_event (CpChromeReader *self);

/* cp-chrome-args.c */
guint32 cp_chrome_add_args_text (CpChromeReader *self,
                                 const char     *text,
                                 gsize           len);
guint32 cp_chrome_event_args (CpChromeReader *self,
                              const Event    *e);
const char *cp_chrome_args_text (CpChromeReader *self,
                                 const Event    *e,
                                 gsize          *len);
void cp_chrome_args_scalar (CpChromeReader    *self,
                            const CpJsonToken *t);
void cp_chrome_arg_int (CpChromeReader *self,
                        int             field,
                        gint64          v);
void cp_chrome_arg_double (CpChromeReader *self,
                           int             field,
                           double          d);
void cp_chrome_keep_args (CpChromeReader *self,
                          guint64         start,
                          guint64         end,
                          const char     *text,
                          gsize           len);
void cp_chrome_end_args (CpChromeReader    *self,
                         const CpJsonToken *t);

/* cp-chrome-flows.c */
void cp_chrome_on_flow (CpChromeReader *self,
                        Event          *e);
void cp_chrome_add_flows (CpChromeReader *self);

/* cp-chrome-samples.c */
void cp_chrome_on_sample (CpChromeReader *self,
                          Event          *e);
void cp_chrome_add_samples (CpChromeReader *self);

/* cp-chrome-metadata.c */
void cp_chrome_on_metadata (CpChromeReader *self,
                            Event          *e);
void cp_chrome_top_value (CpChromeReader *self,
                          const char     *json,
                          gsize           len);
void cp_chrome_read_cloud_spans (CpChromeReader *self);
void cp_chrome_apply_metadata (CpChromeReader *self);

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

static inline guint64
pack_id (const IdKey *k)
{
  if (k->is_str)
    return G_GUINT64_CONSTANT (0x5a5a000000000000) ^ ((guint64) k->str << 1) ^ 1;
  return (guint64) k->num;
}

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

G_END_DECLS
