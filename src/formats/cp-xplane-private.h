/* cp-xplane-private.h: what the parts of the XPlane reader share
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "cp-protobuf.h"
#include "cp-xplane-reader.h"

G_BEGIN_DECLS

/* Field numbers of tsl/profiler/protobuf/xplane.proto. */
enum { XSPACE_PLANES = 1, XSPACE_ERRORS = 2, XSPACE_WARNINGS = 3, XSPACE_HOSTNAMES = 4 };
enum { XPLANE_ID = 1, XPLANE_NAME = 2, XPLANE_LINES = 3, XPLANE_EVENT_METADATA = 4,
       XPLANE_STAT_METADATA = 5, XPLANE_STATS = 6 };
enum { XLINE_ID = 1, XLINE_NAME = 2, XLINE_TIMESTAMP_NS = 3, XLINE_EVENTS = 4,
       XLINE_DURATION_PS = 9, XLINE_DISPLAY_ID = 10, XLINE_DISPLAY_NAME = 11 };
enum { XEVENT_METADATA_ID = 1, XEVENT_OFFSET_PS = 2, XEVENT_DURATION_PS = 3, XEVENT_STATS = 4,
       XEVENT_NUM_OCCURRENCES = 5 };
enum { XSTAT_METADATA_ID = 1, XSTAT_DOUBLE = 2, XSTAT_UINT64 = 3, XSTAT_INT64 = 4, XSTAT_STR = 5,
       XSTAT_BYTES = 6, XSTAT_REF = 7 };
enum { XEVMETA_ID = 1, XEVMETA_NAME = 2, XEVMETA_METADATA = 3, XEVMETA_DISPLAY_NAME = 4,
       XEVMETA_STATS = 5, XEVMETA_CHILD_ID = 6 };
enum { XSTATMETA_ID = 1, XSTATMETA_NAME = 2, XSTATMETA_DESCRIPTION = 3 };

/* Lanes per plane and metadata sizes are limited (cp-limits.h). */
#define MAX_LANES_PER_PLANE CP_XPLANE_MAX_LANES_PER_PLANE
#define MAX_METADATA_NAMES  CP_XPLANE_MAX_METADATA_NAMES
#define MAX_METADATA_STRING CP_XPLANE_MAX_METADATA_STRING
/* Progress and cancellation are checked this often (bytes). */
#define PROGRESS_STEP       (4 * 1024 * 1024)
/* Progress: the lines' headers are read first (the first fifth of it), then
 * their events (the rest). */
#define HEADER_SHARE        5
/* XProf gives derived GPU lines ids from here on. */
#define DERIVED_LINE_ID     G_GINT64_CONSTANT (0xdeadbeef)

typedef enum
{
  SK_NONE = 0,
  SK_CORRELATION_ID,
  SK_DEVICE_ID,
  SK_GROUP_ID,
  SK_STEP_NUM,
  SK_ITER_NUM,
  SK_FLOW,
  SK_P,
  SK_C,
  SK_PT,
  SK_CT,
  SK_R,
  SK_FLOPS,
  SK_BYTES_ACCESSED,
  SK_N_INT,                  /* kinds above hold an integer in EvStats.v */
  SK_STEP_NAME = SK_N_INT,
  SK_KERNEL_DETAILS,
  SK_MEMCPY_DETAILS,
  SK_MEMSET_DETAILS,
  SK_THEORETICAL_OCC,
  /* plane stats */
  SK_GPU_DEVICE_NAME,
  SK_DEVICE_TYPE_STRING,
  SK_DEVICE_VENDOR,
  SK_CORE_COUNT,
  SK_MEMORY_SIZE,
  SK_CC_MAJOR,
  SK_CC_MINOR,
  SK_PEAK_TFLOPS,
  SK_MEMORY_BANDWIDTH,
  SK_PEAK_HBM_BW,
  SK_CLOCK_RATE,
  SK_PROFILE_START,
  SK_HLO_PROTO,
  SK_N
} StatKind;

typedef enum
{
  PLANE_HOST,          /* /host:CPU */
  PLANE_OTHER_HOST,    /* other host-side planes with lines */
  PLANE_GPU,
  PLANE_TPU,
  PLANE_CUSTOM,        /* custom, virtual and chip-level device planes */
  PLANE_OTHER,         /* unknown planes with lines */
  PLANE_BOOKKEEPING,   /* metadata only */
} PlaneClass;

typedef enum
{
  LINE_HOST,
  LINE_KERNEL,
  LINE_ANNOTATION,
  LINE_COUNTERS,
} LineClass;

/* A parsed kernel_details string. */
typedef struct
{
  gint32 grid[3];
  gint32 block[3];
  gint32 registers;
  gint32 shared_mem;
  float  occupancy;
} KernelInfo;

/* A parsed memcpy/memset details string. */
typedef struct
{
  gint64         bytes;
  CpTransferKind kind;
  guint16        flags;
} CopyInfo;

typedef struct
{
  CpStr         name;        /* interned stat name */
  const guint8 *raw;         /* its bytes in the input */
  guint32       raw_len;
  guint8        kind;        /* StatKind */
  KernelInfo   *kernel;      /* cache when used as a kernel_details ref */
  CopyInfo     *copy;        /* cache when used as a memcpy/memset details ref */
} StatMeta;

/* An id -> index map: a dense array for the usual small ids (XPlane counts
 * them up from 1 per plane), a hash table otherwise. */
typedef struct
{
  guint32    *dense;         /* id -> index + 1 */
  gsize       n_dense;
  GHashTable *sparse;        /* gint64* -> index + 1 */
  gint64     *sparse_keys;
} IdMap;

typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   cap;
} Pack;

/* Identical arguments records and device records are stored once and shared
 * by id: an open-addressing table of (hash, id). */
typedef struct
{
  guint64 *hashes;
  guint32 *ids;
  gsize    mask;
  gsize    n;
} Dedup;

/* A growable array of correlation points (millions in big captures). */
typedef struct
{
  gint64      corr;
  gint32      device;
  CpSliceRef  ref;
} CorrPoint;

typedef struct
{
  CorrPoint *v;
  gsize      n;
  gsize      cap;
} CorrVec;

/* A lane holding correlation points (launches on a host thread lane, their
 * activities on a kernel or copy lane). The points are not stored: they are
 * the lane's correlation ids in the builder, values from .. from + n - 1 of
 * its column, read back when the space is linked. */
typedef struct
{
  guint     lane;
  gboolean  host;
  gint32    device;     /* of every point while devices is NULL */
  guint     from;
  guint     n;
  GArray   *devices;    /* of gint32, one per point, once they differ */
  guint     seq;        /* the position in the space of the line that started it */
  guint     sub;        /* and how many that line had started before */
} LinkLane;

/* The stats the mapping needs, merged from metadata and event stats. */
typedef struct
{
  guint32       has;         /* 1 << StatKind */
  gint64        v[SK_N_INT];
  double        occupancy;
  CpStr         step_name;
  const guint8 *kernel_details;
  guint32       kernel_details_len;
  StatMeta     *kernel_ref;
  const guint8 *copy_details;
  guint32       copy_details_len;
  StatMeta     *copy_ref;
  gboolean      copy_is_memset;
  gboolean      has_number;  /* first numeric stat, for counters */
  double        number;
} EvStats;

#define HAS(es, k) (((es)->has & (1u << (k))) != 0)

typedef struct
{
  CpStr         name;        /* display name */
  const guint8 *raw;         /* full name */
  guint32       raw_len;
  CpStr         long_name;   /* full name when the display name differs, else 0 */
  CpTransferKind name_transfer;  /* direction from the name, CP_TRANSFER_NONE if none */
  gboolean      name_is_memcpy;
  gboolean      name_is_memset;
  const guint8 *msg;         /* the XEventMetadata message, for its stats */
  gsize         msg_len;
  guint64       msg_offset;
  gboolean      has_stats;
  gboolean      decoded;
  EvStats       stats;
  guint32       args_id;     /* CP_ARGS_XSTATS of the metadata stats, 0 if none */
} EventMeta;

typedef struct
{
  const guint8 *data;
  gsize         len;
  guint64       offset;
  gboolean      partial;
} Span;

typedef struct
{
  gint64      type;
  gint64      id;
  gint64      start;
  CpSliceRef  ref;
} PcPoint;

typedef struct
{
  guint64     key;
  guint8      order;
  gint64      start;
  CpSliceRef  ref;
  guint8      category;
} FlowPoint;

typedef struct
{
  gint64      number;
  gint64      start;
  gint64      end;
  CpSliceRef  marker;
  gboolean    by_position;  /* number: its position among the space's, set when merged */
} StepCand;

/* Everything about the space being read. */
typedef struct
{
  CpXPlaneReader *reader;
  const guint8   *data;
  gsize           len;
  char           *hostname;
  guint           host;
  gint            device_offset;
  gint            max_device;
  gboolean        has_start;
  gint64          start_ns;
  gboolean        any_event;
  CpPbError       first_error;
  guint64         first_error_offset;
  guint64         unknown_metadata;  /* events naming metadata their plane lacks */
  guint64         next_progress;
  GCancellable   *cancellable;
  CpLoadProgressFunc progress;
  gpointer        progress_data;
  guint64         progress_base;
  guint64         progress_total;
  guint64         progress_span;
  gboolean        cancelled;
  void          (*release) (guint64  offset,
                            gpointer user_data);
  void          (*drop)    (guint64  from,
                            guint64  to,
                            gpointer user_data);
  void          (*discard) (guint64  from,
                            guint64  to,
                            gpointer user_data);
  gpointer        release_data;
  gint            stop;          /* atomic: cancelled, reading threads stop */
  GPtrArray      *planes;        /* of Plane*: those with lines to read */
  guint           n_lines;       /* queued */
  GHashTable     *groups;        /* host line key -> Group*, while a plane is queued */
  GPtrArray      *group_list;    /* of Group* */
  gpointer        rest;          /* the Group of small lines */
  GPtrArray      *outs;          /* of LineOut*, by line, NULL for none */
  guint64         done;          /* atomic: bytes of lines read */

  GArray         *gpu_planes;   /* of gint: plane ids of GPU planes (for device_id) */
  GArray         *link_lanes;   /* of LinkLane */
  GArray         *link_slot;    /* of guint: builder lane -> 1 + its index in link_lanes */
  gboolean        have_group;
  gint64          last_group;
  StepCand       *last_group_span;
  GArray         *producers;    /* of PcPoint */
  GArray         *consumers;
  GArray         *flow_points;  /* of FlowPoint */
  GArray         *device_steps; /* of StepCand */
  gint            device_steps_ordinal;
  GArray         *root_steps;
  GHashTable     *group_spans;  /* gint64* -> StepCand* */
  /* Held around what reading threads share: the builder (but for slices
   * added to a lane's sink), the records' dedup tables, lazy caches. */
  GRecMutex       lock;
} Space;

/* The plane being read. */
typedef struct
{
  Space       *space;
  PlaneClass   klass;
  char        *name;
  gint64       id;
  gint         ordinal;       /* device ordinal (with the host offset), -1 for host planes */
  guint        index;         /* position in the space */
  gboolean     sparse_core;
  gboolean     partial;
  gint         process;       /* -1 until a lane needs it */
  guint        n_lanes;
  gboolean     lane_limit_warned;
  gint         core_count;
  gint         warp_size;     /* of its device, for warps per SM */
  guint        transfer_lanes[CP_TRANSFER_N_KINDS]; /* lane + 1 */
  CpLaneSink  *transfer_sinks[CP_TRANSFER_N_KINDS];

  GArray      *stat_meta;     /* of StatMeta */
  IdMap        stat_ids;
  GArray      *event_meta;    /* of EventMeta */
  IdMap        event_ids;
  GArray      *lines;         /* of Span */
  GArray      *stats;         /* of Span: plane stats */
  guint64      unknown_stat_ids;
  guint64      offset;        /* of the plane in the input */
} Plane;

/* A warning found while reading a line, given to the load report when the
 * line's results are merged. */
typedef struct
{
  guint64 offset;
  char   *text;
} Deferred;

/* What reading one line yields besides its slices and counts, when it
 * yields any. Lines may be read by several threads; their results are merged
 * into the space in file order, so that the capture reads the same whichever
 * thread read what. */
typedef struct
{
  CpPbError    first_error;
  guint64      first_error_offset;
  gboolean     truncated;
  guint64      stopped_at;
  GArray      *warnings;      /* of Deferred */
  GArray      *producers;     /* of PcPoint */
  GArray      *consumers;
  GArray      *flow_points;   /* of FlowPoint */
  gint         steps_ordinal; /* the device of device_steps */
  GArray      *device_steps;  /* of StepCand */
  GArray      *root_steps;
  GHashTable  *group_spans;   /* gint64* -> StepCand* */
  gboolean     have_group;
  gint64       last_group;
  StepCand    *last_group_span;
} LineOut;

/* Recent argument records of a thread, by their packed bytes. */
#define ARGS_CACHE_SIZE  64
#define ARGS_CACHE_BYTES 56

typedef struct
{
  guint64 h;
  guint32 id;
  guint32 len;
  guint8  bytes[ARGS_CACHE_BYTES];
} ArgsCacheEntry;

/* A reading thread's state. */
typedef struct
{
  Space          *space;
  LineOut        *out;          /* the line being read's, made on first use */
  /* Counts of every line this thread read. */
  guint64         events;
  guint64         aggregated;
  guint64         skipped;
  guint64         unknown_metadata;
  gboolean        any_event;
  CpSinkStats     sink;
  guint64         unknown_stat_ids;  /* of the line being read */
  GHashTable     *links;        /* builder lane + 1 -> LinkLane*: the lanes its lines fill */
  guint           line_seq;     /* the line's position in the space */
  guint           link_sub;
  gboolean        main;         /* the thread that reports progress */
  Pack            pack;         /* scratch for packed stats */
  Pack            last_pack;    /* the last record shared, and its id */
  guint32         last_args;
  CpGpuInfo       last_gpu_info;
  guint32         last_gpu;
  ArgsCacheEntry  args_cache[ARGS_CACHE_SIZE];
} Ctx;

struct _CpXPlaneReader
{
  CpTraceBuilder *builder;
  CpLoadReport   *report;
  guint           n_spaces;
  gint            device_offset;
  gboolean        steps_done;
  gboolean        any_epoch;
  CpStr           cat_kernel;
  CpStr           cat_memcpy;
  CpStr           cat_memset;
  CpStr           cat_annotation;
  CpStr           cat_runtime;
  CpStr           cat_cpu_op;
  CpStr           key_long_name;
  CpStr           flow_correlation;
  CpStr           flow_producer;
  CpStr           flow_generic;
  Pack            pack;           /* scratch for packed plane-level stats */
  Dedup           args_dedup;
  Dedup           gpu_dedup;
  GArray         *gpu_copies;     /* of CpGpuInfo, for comparing */
  GArray         *gpu_ids;        /* of guint32: the builder's id of each copy */
  GArray         *steps;          /* of StepCand, from the first space with steps */
  GHashTable     *pids;           /* gint64*: pids given to planes */
  GHashTable     *pid_next;       /* gint64* wanted pid -> gint64* next one to try */
  CpPbError       error_reason;   /* of the last DAMAGED error */
  guint64         error_offset;
};

typedef struct
{
  gint64        metadata_id;
  guint8        type;        /* XSTAT_* value field number, 0 when none */
  guint64       u;           /* uint64 / int64 bits / ref id */
  double        d;
  const guint8 *s;
  gsize         slen;
} XStatVal;

typedef gboolean (*DedupEqual) (gpointer  data,
                                guint32   id,
                                gconstpointer key,
                                gsize     len);

/* A line's recent device records by what makes them (every kernel of a line
 * has the line's device and stream): the kernel_details reference and the
 * event's own flops, bytes accessed and occupancy. */
typedef struct
{
  gconstpointer ref;       /* StatMeta of the kernel_details, NULL if none */
  guint32       has;       /* those stats' HAS bits */
  guint32       id;        /* the record, 0: empty */
  gint64        flops;
  gint64        bytes_accessed;
  double        occupancy;
} GpuCacheEntry;

#define GPU_CACHE_SIZE 64
#define GPU_CACHE_KINDS ((1u << SK_KERNEL_DETAILS) | (1u << SK_FLOPS) | \
                         (1u << SK_BYTES_ACCESSED) | (1u << SK_THEORETICAL_OCC))

typedef struct
{
  gint64        id;
  gint64        display_id;
  const guint8 *name;
  gsize         name_len;
  const guint8 *display_name;
  gsize         display_name_len;
  gint64        timestamp_ns;
  gint64        base;           /* absolute ns */
  LineClass     klass;
  guint         lane;           /* + 1, 0 until the first event */
  gboolean      skip;
  gboolean      is_steps;
  guint64       n_events;
  CpLaneSink   *sink;           /* of lane */
  LinkLane     *link;           /* the latest lane's link points, */
  guint         link_lane;      /* and that lane */
  GpuCacheEntry gpu_cache[GPU_CACHE_SIZE];
} Line;

/* cp-xplane-stats.c */
StatKind cp_xplane_stat_kind_for (const guint8 *name,
                                  gsize         len);
void cp_xplane_parse_xstat_reader (CpPbReader *rp,
                                   XStatVal   *sv);
gboolean cp_xplane_parse_xstat (CpPbReader      *parent,
                                const CpPbField *field,
                                XStatVal        *sv);
gboolean cp_xplane_parse_xstat_span (Space      *space,
                                     const Span *span,
                                     XStatVal   *sv);
gboolean cp_xplane_stat_as_int (const XStatVal *sv,
                                gint64         *out);
/* cp-xplane-hlo.c: the XLA sources of one program's HloProto; returns the
 * instructions seen. */
guint cp_xplane_read_hlo_proto (CpTraceBuilder *builder,
                                gint64          program_id,
                                const guint8   *data,
                                gsize           len);
StatMeta *cp_xplane_plane_stat (Plane  *plane,
                                gint64  id);
void cp_xplane_link_point (Ctx        *ctx,
                           LinkLane  **cache,
                           guint      *cache_lane,
                           guint       lane,
                           CpLaneSink *sink,
                           gboolean    host,
                           gint32      device);
void cp_xplane_dedup_insert (Dedup   *d,
                             gsize    slot,
                             guint64  h,
                             guint32  id);
gboolean cp_xplane_args_equal (gpointer      data,
                               guint32       id,
                               gconstpointer key,
                               gsize         len);
gboolean cp_xplane_gpu_equal (gpointer      data,
                              guint32       id,
                              gconstpointer key,
                              gsize         len);
void cp_xplane_apply_stat (Plane          *plane,
                           EvStats        *es,
                           const XStatVal *sv,
                           Pack           *pack,
                           gboolean        event_level,
                           guint64        *unknown_stat_ids);
gint64 cp_xplane_parse_int (const char *s,
                            const char *end,
                            gboolean   *ok);
gint32 cp_xplane_clamp_i32 (gint64 v);
void cp_xplane_parse_kernel_details (const guint8 *text,
                                     gsize         len,
                                     KernelInfo   *k);
void cp_xplane_parse_copy_details (const guint8 *text,
                                   gsize         len,
                                   gboolean      memset_,
                                   CopyInfo     *info);
CpTransferKind cp_xplane_transfer_from_name (const guint8 *name,
                                             gsize         len);

/* cp-xplane-reader.c */
void cp_xplane_idmap_build (IdMap        *map,
                            const gint64 *ids,
                            guint         n);
void cp_xplane_idmap_clear (IdMap *map);
void cp_xplane_report_pb_error (Space      *space,
                                CpPbReader *r,
                                const char *where);
void cp_xplane_line_out_init (LineOut *out);
void cp_xplane_out_warn (Ctx        *ctx,
                         guint64     offset,
                         const char *format,
                         ...) G_GNUC_PRINTF (3, 4);
void cp_xplane_out_note_error (Ctx       *ctx,
                               CpPbError  error,
                               guint64    offset);
void cp_xplane_out_note_truncated (Ctx     *ctx,
                                   guint64  offset);
void cp_xplane_line_out_merge (Space   *space,
                               LineOut *out);
gboolean cp_xplane_check_progress (Space   *space,
                                   guint64  offset);

/* cp-xplane-planes.c */
PlaneClass cp_xplane_classify_plane (const char *name,
                                     gint64      id,
                                     gint       *ordinal,
                                     gboolean   *sparse_core);
gboolean cp_xplane_is_ml_line_name (const guint8 *name,
                                    gsize         len);
gboolean cp_xplane_is_op_line_name (const guint8 *name,
                                    gsize         len);
gboolean cp_xplane_is_steps_line_name (const guint8 *name,
                                       gsize         len);
void cp_xplane_plane_clear (Plane *plane);
gboolean cp_xplane_plane_index (Space      *space,
                                const Span *span,
                                Plane      *plane);
void cp_xplane_event_meta_decode (Ctx       *ctx,
                                  Plane     *plane,
                                  EventMeta *m);
void cp_xplane_plane_read_stats (Plane       *plane,
                                 JsonBuilder *json);
guint cp_xplane_plane_process (Plane *plane);

/* cp-xplane-events.c */
void cp_xplane_read_event (Ctx          *ctx,
                           Plane        *plane,
                           Line         *line,
                           const guint8 *data,
                           gsize         len,
                           guint64       ev_offset);
LineClass cp_xplane_classify_line (Plane *plane,
                                   Line  *line);

/* cp-xplane-lines.c */
void cp_xplane_group_free (gpointer data);
LineOut *cp_xplane_ctx_out (Ctx *ctx);
void cp_xplane_read_plane (Space      *space,
                           const Span *span,
                           guint       index);
void cp_xplane_space_read_lines (Space *space);
void cp_xplane_plane_done (Plane *plane);

/* cp-xplane-link.c */
void cp_xplane_space_link (Space *space);

static inline gboolean
bytes_equal (const guint8 *data,
             gsize         len,
             const char   *str)
{
  gsize n = strlen (str);

  return len == n && memcmp (data, str, n) == 0;
}

static inline gboolean
bytes_has_prefix (const guint8 *data,
                  gsize         len,
                  const char   *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && memcmp (data, prefix, n) == 0;
}

static inline gboolean
bytes_contains (const guint8 *data,
                gsize         len,
                const char   *needle)
{
  gsize n = strlen (needle);

  if (n == 0 || len < n)
    return n == 0;
  for (gsize i = 0; i + n <= len; i++)
    if (data[i] == (guint8) needle[0] && memcmp (data + i, needle, n) == 0)
      return TRUE;
  return FALSE;
}

static inline gint64
sat_add (gint64 a,
         gint64 b)
{
  gint64 r;

  if (__builtin_add_overflow (a, b, &r))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return r;
}

/* floor (a / 1000) for any a. */
static inline gint64
ps_to_ns_floor (gint64 ps)
{
  gint64 q = ps / 1000;

  if (ps % 1000 != 0 && ps < 0)
    q--;
  return q;
}

static inline gint
idmap_lookup (const IdMap *map,
              gint64       id)
{
  if (map->dense != NULL)
    {
      if (id >= 0 && (guint64) id < map->n_dense)
        return (gint) map->dense[id] - 1;
      return -1;
    }
  if (map->sparse != NULL)
    return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (map->sparse, &id)) - 1;
  return -1;
}

static inline GArray *
out_array (GArray **array,
           guint    element_size)
{
  if (*array == NULL)
    *array = g_array_new (FALSE, FALSE, element_size);
  return *array;
}

/* A reader over bytes of the input, with offsets and truncation relative to
 * the whole input. */
static inline void
reader_at (Space        *space,
           CpPbReader   *r,
           const guint8 *data,
           gsize         len)
{
  cp_pb_reader_init (r, data, len, (guint64) (data - space->data));
  r->input_end = space->data + space->len;
}

static inline gboolean
stat_as_double (const XStatVal *sv,
                double         *out)
{
  switch (sv->type)
    {
    case XSTAT_INT64:
      *out = (double) (gint64) sv->u;
      return TRUE;
    case XSTAT_UINT64:
      *out = (double) sv->u;
      return TRUE;
    case XSTAT_DOUBLE:
      *out = sv->d;
      return TRUE;
    default:
      return FALSE;
    }
}

/* The string of a str or ref stat (ref resolved within the plane). */
static inline gboolean
stat_string (Plane           *plane,
             const XStatVal  *sv,
             const guint8   **s,
             gsize           *len,
             StatMeta       **ref)
{
  *ref = NULL;
  if (sv->type == XSTAT_STR)
    {
      *s = sv->s;
      *len = sv->slen;
      return TRUE;
    }
  if (sv->type == XSTAT_REF)
    {
      StatMeta *m = cp_xplane_plane_stat (plane, (gint64) sv->u);

      if (m == NULL)
        return FALSE;
      *s = m->raw;
      *len = m->raw_len;
      *ref = m;
      return TRUE;
    }
  return FALSE;
}

/* Room for one more entry (key, type, value) of a packed record. */
static inline void
pack_reserve (Pack  *pack,
              gsize  n)
{
  if (G_UNLIKELY (pack->len + n > pack->cap))
    {
      pack->cap = MAX (pack->cap * 2, pack->len + n + 256);
      pack->data = g_realloc (pack->data, pack->cap);
    }
}

static inline void
pack_varint (Pack    *pack,
             guint64  v)
{
  guint8 *b;

  pack_reserve (pack, 10);
  b = pack->data + pack->len;
  while (v >= 0x80)
    {
      *b++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *b++ = (guint8) v;
  pack->len = b - pack->data;
}

static inline void
corr_push (CorrVec         *vec,
           const CorrPoint *p)
{
  if (G_UNLIKELY (vec->n == vec->cap))
    {
      vec->cap = MAX (vec->cap * 2, 1024);
      vec->v = g_renew (CorrPoint, vec->v, vec->cap);
    }
  vec->v[vec->n++] = *p;
}

static inline guint64
hash_bytes (const guint8 *p,
            gsize         len)
{
  guint64 h = 0x9E3779B97F4A7C15ull ^ (len * 0xC2B2AE3D27D4EB4Full);

  while (len >= 8)
    {
      guint64 v;

      memcpy (&v, p, 8);
      h = (h ^ (v * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
      h ^= h >> 31;
      p += 8;
      len -= 8;
    }
  while (len > 0)
    {
      h = (h ^ *p++) * 0x100000001B3ull;
      len--;
    }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return h;
}

/* The id of a record equal to key, or 0. */
static inline guint32
dedup_lookup (Dedup         *d,
              guint64        h,
              DedupEqual     equal,
              gpointer       data,
              gconstpointer  key,
              gsize          len,
              gsize         *slot_out)
{
  gsize slot;

  if (d->ids == NULL)
    {
      d->mask = 1023;
      d->hashes = g_new0 (guint64, d->mask + 1);
      d->ids = g_new0 (guint32, d->mask + 1);
    }
  slot = h & d->mask;
  while (d->ids[slot] != 0)
    {
      if (d->hashes[slot] == h && equal (data, d->ids[slot], key, len))
        return d->ids[slot];
      slot = (slot + 1) & d->mask;
    }
  *slot_out = slot;
  return 0;
}

static inline void
pack_byte (Pack   *pack,
           guint8  byte)
{
  pack_reserve (pack, 1);
  pack->data[pack->len++] = byte;
}

G_END_DECLS
