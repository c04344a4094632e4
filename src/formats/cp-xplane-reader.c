/* cp-xplane-reader.c
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef G_OS_UNIX
# include <sys/mman.h>
# include <unistd.h>
#endif

#include "cp-protobuf.h"
#include "cp-xplane-reader.h"

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
  SK_PROFILE_START,
  SK_N
} StatKind;

static const struct
{
  const char *name;
  StatKind    kind;
} stat_names[] = {
  { "correlation_id", SK_CORRELATION_ID },
  { "device_id", SK_DEVICE_ID },
  { "group_id", SK_GROUP_ID },
  { "step_num", SK_STEP_NUM },
  { "iter_num", SK_ITER_NUM },
  { "flow", SK_FLOW },
  { "_p", SK_P },
  { "_c", SK_C },
  { "_pt", SK_PT },
  { "_ct", SK_CT },
  { "_r", SK_R },
  { "flops", SK_FLOPS },
  { "bytes_accessed", SK_BYTES_ACCESSED },
  { "step_name", SK_STEP_NAME },
  { "kernel_details", SK_KERNEL_DETAILS },
  { "memcpy_details", SK_MEMCPY_DETAILS },
  { "Memset_details", SK_MEMSET_DETAILS },
  { "memset_details", SK_MEMSET_DETAILS },
  { "theoretical_occupancy_pct", SK_THEORETICAL_OCC },
  { "gpu_device_name", SK_GPU_DEVICE_NAME },
  { "device_type_string", SK_DEVICE_TYPE_STRING },
  { "device_vendor", SK_DEVICE_VENDOR },
  { "core_count", SK_CORE_COUNT },
  { "memory_size", SK_MEMORY_SIZE },
  { "compute_cap_major", SK_CC_MAJOR },
  { "compute_cap_minor", SK_CC_MINOR },
  { "peak_teraflops_per_second", SK_PEAK_TFLOPS },
  { "memory_bandwidth", SK_MEMORY_BANDWIDTH },
  { "peak_hbm_bw_gigabytes_per_second", SK_PEAK_HBM_BW },
  { "profile_start_time", SK_PROFILE_START },
};

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

/* ------------------------------------------------------------------------ */
/* Small helpers                                                             */

static GHashTable *
stat_name_table (void)
{
  static GHashTable *table;

  if (g_once_init_enter (&table))
    {
      GHashTable *t = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < G_N_ELEMENTS (stat_names); i++)
        g_hash_table_insert (t, (gpointer) stat_names[i].name, GINT_TO_POINTER (stat_names[i].kind));
      g_once_init_leave (&table, t);
    }
  return table;
}

static StatKind
stat_kind_for (const guint8 *name,
               gsize         len)
{
  char buf[64];

  if (len == 0 || len >= sizeof buf)
    return SK_NONE;
  memcpy (buf, name, len);
  buf[len] = '\0';
  return (StatKind) GPOINTER_TO_INT (g_hash_table_lookup (stat_name_table (), buf));
}

static gboolean
bytes_equal (const guint8 *data,
             gsize         len,
             const char   *str)
{
  gsize n = strlen (str);

  return len == n && memcmp (data, str, n) == 0;
}

static gboolean
bytes_has_prefix (const guint8 *data,
                  gsize         len,
                  const char   *prefix)
{
  gsize n = strlen (prefix);

  return len >= n && memcmp (data, prefix, n) == 0;
}

static gboolean
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

static void
idmap_build (IdMap        *map,
             const gint64 *ids,
             guint         n)
{
  gint64 max = -1;
  gboolean dense = TRUE;

  memset (map, 0, sizeof *map);
  for (guint i = 0; i < n; i++)
    {
      if (ids[i] < 0)
        dense = FALSE;
      else if (ids[i] > max)
        max = ids[i];
    }
  if (dense && max >= 0 && (guint64) max > (guint64) n * 4 + 1024)
    dense = FALSE;

  if (dense)
    {
      map->n_dense = (gsize) (max + 1);
      map->dense = g_new0 (guint32, MAX (map->n_dense, 1));
      for (guint i = 0; i < n; i++)
        map->dense[ids[i]] = i + 1;   /* later entries win */
    }
  else
    {
      map->sparse_keys = g_memdup2 (ids, sizeof (gint64) * MAX (n, 1));
      map->sparse = g_hash_table_new (g_int64_hash, g_int64_equal);
      for (guint i = 0; i < n; i++)
        g_hash_table_insert (map->sparse, &map->sparse_keys[i], GUINT_TO_POINTER (i + 1));
    }
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

static void
idmap_clear (IdMap *map)
{
  g_clear_pointer (&map->dense, g_free);
  g_clear_pointer (&map->sparse, g_hash_table_unref);
  g_clear_pointer (&map->sparse_keys, g_free);
}

static void
note_error (Space     *space,
            CpPbError  error,
            guint64    offset)
{
  if (space->first_error == CP_PB_OK)
    {
      space->first_error = error;
      space->first_error_offset = offset;
    }
}

static void
note_truncated (Space   *space,
                guint64  offset)
{
  CpLoadReport *report = space->reader->report;

  if (!report->truncated || offset < report->stopped_at)
    report->stopped_at = offset;
  report->truncated = TRUE;
}

/* Reports a walker error: truncation or damage. Returns the message's
 * offset. */
static void
report_pb_error (Space      *space,
                 CpPbReader *r,
                 const char *where)
{
  if (r->error == CP_PB_ERROR_TRUNCATED)
    {
      note_truncated (space, r->error_offset);
      return;
    }
  note_error (space, r->error, r->error_offset);
  cp_load_report_warn (space->reader->report, r->error_offset,
                       _("Damaged XPlane data in %s at byte %" PRIu64
                         ": %s; the rest of it was skipped"),
                       where, r->error_offset, cp_pb_error_to_string (r->error));
}

/* Line results (see LineOut). */

static void
line_out_init (LineOut *out)
{
  memset (out, 0, sizeof *out);
  out->first_error = CP_PB_OK;
  out->steps_ordinal = -1;
}

static LineOut *ctx_out (Ctx *ctx);

static inline GArray *
out_array (GArray **array,
           guint    element_size)
{
  if (*array == NULL)
    *array = g_array_new (FALSE, FALSE, element_size);
  return *array;
}

static void out_warn (Ctx        *ctx,
                      guint64     offset,
                      const char *format,
                      ...) G_GNUC_PRINTF (3, 4);

static void
out_warn (Ctx        *ctx,
          guint64     offset,
          const char *format,
          ...)
{
  LineOut *out = ctx_out (ctx);
  va_list args;
  Deferred d;

  va_start (args, format);
  d.offset = offset;
  d.text = g_strdup_vprintf (format, args);
  va_end (args);
  g_array_append_val (out_array (&out->warnings, sizeof (Deferred)), d);
}

static void
out_note_error (Ctx       *ctx,
                CpPbError  error,
                guint64    offset)
{
  LineOut *out = ctx_out (ctx);

  if (out->first_error == CP_PB_OK)
    {
      out->first_error = error;
      out->first_error_offset = offset;
    }
}

static void
out_note_truncated (Ctx     *ctx,
                    guint64  offset)
{
  LineOut *out = ctx_out (ctx);

  if (!out->truncated || offset < out->stopped_at)
    out->stopped_at = offset;
  out->truncated = TRUE;
}

static void
merge_steps (GArray *into,
             GArray *from)
{
  for (guint i = 0; from != NULL && i < from->len; i++)
    {
      StepCand c = g_array_index (from, StepCand, i);

      if (c.by_position)
        {
          c.number = into->len;
          c.by_position = FALSE;
        }
      g_array_append_val (into, c);
    }
}

/* Hands a line's results to the space and the report, and frees them. */
static void
line_out_merge (Space   *space,
                LineOut *out)
{
  CpXPlaneReader *reader = space->reader;
  CpLoadReport *report = reader->report;

  for (guint i = 0; out->warnings != NULL && i < out->warnings->len; i++)
    {
      Deferred *d = &g_array_index (out->warnings, Deferred, i);

      cp_load_report_warn (report, d->offset, "%s", d->text);
      g_free (d->text);
    }
  if (out->truncated)
    note_truncated (space, out->stopped_at);
  if (out->first_error != CP_PB_OK)
    note_error (space, out->first_error, out->first_error_offset);
  if (out->producers != NULL)
    g_array_append_vals (space->producers, out->producers->data, out->producers->len);
  if (out->consumers != NULL)
    g_array_append_vals (space->consumers, out->consumers->data, out->consumers->len);
  if (out->flow_points != NULL)
    g_array_append_vals (space->flow_points, out->flow_points->data, out->flow_points->len);
  /* Device steps come from the first device that has a steps line. */
  if (out->device_steps != NULL && out->device_steps->len > 0 &&
      (space->device_steps_ordinal < 0 || space->device_steps_ordinal == out->steps_ordinal))
    {
      space->device_steps_ordinal = out->steps_ordinal;
      merge_steps (space->device_steps, out->device_steps);
    }
  merge_steps (space->root_steps, out->root_steps);
  if (out->group_spans != NULL)
    {
      GHashTableIter iter;
      gpointer v;

      g_hash_table_iter_init (&iter, out->group_spans);
      while (g_hash_table_iter_next (&iter, NULL, &v))
        {
          StepCand *c = v, *have = g_hash_table_lookup (space->group_spans, &c->number);

          if (have != NULL)
            {
              have->start = MIN (have->start, c->start);
              have->end = MAX (have->end, c->end);
            }
          else
            {
              g_hash_table_iter_steal (&iter);
              g_hash_table_insert (space->group_spans, &c->number, c);
            }
        }
    }

  g_clear_pointer (&out->warnings, g_array_unref);
  g_clear_pointer (&out->producers, g_array_unref);
  g_clear_pointer (&out->consumers, g_array_unref);
  g_clear_pointer (&out->flow_points, g_array_unref);
  g_clear_pointer (&out->device_steps, g_array_unref);
  g_clear_pointer (&out->root_steps, g_array_unref);
  g_clear_pointer (&out->group_spans, g_hash_table_unref);
  g_free (out);
}

static gboolean
check_progress (Space   *space,
                guint64  offset)
{
  if (offset < space->next_progress)
    return !space->cancelled;
  space->next_progress = offset + PROGRESS_STEP;
  if (space->cancellable != NULL && g_cancellable_is_cancelled (space->cancellable))
    space->cancelled = TRUE;
  if (space->progress != NULL)
    {
      guint64 done = space->len > 0 ? (guint64) ((double) MIN (offset, space->len) /
                                                 space->len * space->progress_span) : 0;

      space->progress (space->progress_base + done, space->progress_total, space->progress_data);
    }
  return !space->cancelled;
}

/* A reader over bytes of the input, with offsets and truncation relative to
 * the whole input. */
static void
reader_at (Space        *space,
           CpPbReader   *r,
           const guint8 *data,
           gsize         len)
{
  cp_pb_reader_init (r, data, len, (guint64) (data - space->data));
  r->input_end = space->data + space->len;
}

/* ------------------------------------------------------------------------ */
/* Stats                                                                     */

typedef struct
{
  gint64        metadata_id;
  guint8        type;        /* XSTAT_* value field number, 0 when none */
  guint64       u;           /* uint64 / int64 bits / ref id */
  double        d;
  const guint8 *s;
  gsize         slen;
} XStatVal;

static void
parse_xstat_reader (CpPbReader *rp,
                    XStatVal   *sv)
{
  CpPbReader r = *rp;
  CpPbField f;

  memset (sv, 0, sizeof *sv);
  while (cp_pb_reader_next (&r, &f))
    {
      switch (f.number)
        {
        case XSTAT_METADATA_ID:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            sv->metadata_id = cp_pb_int64 (f.value);
          break;
        case XSTAT_DOUBLE:
          if (f.wire_type == CP_PB_WIRE_FIXED64)
            {
              sv->type = XSTAT_DOUBLE;
              sv->d = cp_pb_double (f.value);
            }
          break;
        case XSTAT_UINT64:
        case XSTAT_INT64:
        case XSTAT_REF:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            {
              sv->type = f.number;
              sv->u = f.value;
            }
          break;
        case XSTAT_STR:
        case XSTAT_BYTES:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              sv->type = f.number;
              sv->s = f.data;
              sv->slen = f.len;
            }
          break;
        default:
          break;
        }
    }
  rp->error = r.error;
  rp->error_offset = r.error_offset;
}

static gboolean
parse_xstat (CpPbReader      *parent,
             const CpPbField *field,
             XStatVal        *sv)
{
  CpPbReader r;

  memset (sv, 0, sizeof *sv);
  if (field->wire_type != CP_PB_WIRE_LEN || !cp_pb_reader_init_sub (&r, parent, field))
    return FALSE;
  parse_xstat_reader (&r, sv);
  if (r.error != CP_PB_OK)
    {
      parent->error = r.error;
      parent->error_offset = r.error_offset;
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_xstat_span (Space      *space,
                  const Span *span,
                  XStatVal   *sv)
{
  CpPbReader r;

  reader_at (space, &r, span->data, span->len);
  parse_xstat_reader (&r, sv);
  return r.error == CP_PB_OK;
}

/* The one place where int64, uint64 and double stats become an integer. */
static gboolean
stat_as_int (const XStatVal *sv,
             gint64         *out)
{
  switch (sv->type)
    {
    case XSTAT_INT64:
      *out = (gint64) sv->u;
      return TRUE;
    case XSTAT_UINT64:
    case XSTAT_REF:
      *out = sv->u > (guint64) G_MAXINT64 ? G_MAXINT64 : (gint64) sv->u;
      return sv->type == XSTAT_UINT64;
    case XSTAT_DOUBLE:
      if (!isfinite (sv->d))
        return FALSE;
      *out = sv->d >= 9.2e18 ? G_MAXINT64 : sv->d <= -9.2e18 ? G_MININT64 : (gint64) sv->d;
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
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

static StatMeta *
plane_stat (Plane  *plane,
            gint64  id)
{
  gint i = idmap_lookup (&plane->stat_ids, id);

  return i < 0 ? NULL : &g_array_index (plane->stat_meta, StatMeta, i);
}

/* The string of a str or ref stat (ref resolved within the plane). */
static gboolean
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
      StatMeta *m = plane_stat (plane, (gint64) sv->u);

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

/* Notes a correlation point: the slice just added to lane, whose
 * correlation id is the last value of the lane's column. */
/* A launch (host) or activity (device) point: slice index of the lane's
 * latest correlation id. The lane's LinkLane is the task's (lanes are filled
 * by one task). */
static void
link_point (Ctx        *ctx,
            LinkLane  **cache,
            guint      *cache_lane,
            guint       lane,
            CpLaneSink *sink,
            gboolean    host,
            gint32      device)
{
  LinkLane *ll;

  if (*cache != NULL && *cache_lane == lane)
    ll = *cache;
  else
    {
      ll = g_hash_table_lookup (ctx->links, GUINT_TO_POINTER (lane + 1));
      if (ll == NULL)
        {
          guint n_values = cp_lane_sink_get_n_corr (sink);

          g_return_if_fail (n_values > 0);
          ll = g_new0 (LinkLane, 1);
          ll->lane = lane;
          ll->host = host;
          ll->device = device;
          ll->from = n_values - 1;
          ll->seq = ctx->line_seq;
          ll->sub = ctx->link_sub++;
          g_hash_table_insert (ctx->links, GUINT_TO_POINTER (lane + 1), ll);
        }
      *cache = ll;
      *cache_lane = lane;
    }
  if (G_UNLIKELY (device != ll->device && ll->devices == NULL))
    {
      ll->devices = g_array_sized_new (FALSE, FALSE, sizeof (gint32), ll->n + 1);
      for (guint k = 0; k < ll->n; k++)
        g_array_append_val (ll->devices, ll->device);
    }
  if (ll->devices != NULL)
    g_array_append_val (ll->devices, device);
  ll->n++;
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

typedef gboolean (*DedupEqual) (gpointer  data,
                                guint32   id,
                                gconstpointer key,
                                gsize     len);

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

static void
dedup_insert (Dedup   *d,
              gsize    slot,
              guint64  h,
              guint32  id)
{
  d->hashes[slot] = h;
  d->ids[slot] = id;
  d->n++;
  if (d->n * 2 > d->mask)
    {
      gsize mask = d->mask * 2 + 1;
      guint64 *hashes = g_new0 (guint64, mask + 1);
      guint32 *ids = g_new0 (guint32, mask + 1);

      for (gsize i = 0; i <= d->mask; i++)
        if (d->ids[i] != 0)
          {
            gsize s = d->hashes[i] & mask;

            while (ids[s] != 0)
              s = (s + 1) & mask;
            hashes[s] = d->hashes[i];
            ids[s] = d->ids[i];
          }
      g_free (d->hashes);
      g_free (d->ids);
      d->hashes = hashes;
      d->ids = ids;
      d->mask = mask;
    }
}

static gboolean
args_equal (gpointer      data,
            guint32       id,
            gconstpointer key,
            gsize         len)
{
  const guint8 *stored;
  gsize stored_len;

  return cp_trace_builder_get_args (data, id, &stored, &stored_len) && stored_len == len &&
         memcmp (stored, key, len) == 0;
}

static gboolean
gpu_equal (gpointer      data,
           guint32       id,
           gconstpointer key,
           gsize         len)
{
  GArray *copies = data;

  return id <= copies->len && memcmp (&g_array_index (copies, CpGpuInfo, id - 1), key, len) == 0;
}

static inline void
pack_byte (Pack   *pack,
           guint8  byte)
{
  pack_reserve (pack, 1);
  pack->data[pack->len++] = byte;
}

static inline void
pack_raw8 (Pack       *pack,
           const void *data)
{
  pack_reserve (pack, 8);
  memcpy (pack->data + pack->len, data, 8);
  pack->len += 8;
}

/* Interns a string from a reading thread. */
static CpStr
space_intern (Space      *space,
              const char *s,
              gssize      len)
{
  CpStr id;

  g_rec_mutex_lock (&space->lock);
  id = cp_trace_builder_intern (space->reader->builder, s, len);
  g_rec_mutex_unlock (&space->lock);
  return id;
}

static void
pack_entry (Space          *space,
            Pack           *buf,
            CpStr           key,
            Plane          *plane,
            const XStatVal *sv)
{
  guint8 type;

  pack_varint (buf, key);
  switch (sv->type)
    {
    case XSTAT_INT64:
      type = CP_XSTAT_INT64;
      pack_byte (buf, type);
      pack_varint (buf, ((guint64) sv->u << 1) ^ (guint64) ((gint64) sv->u >> 63));
      break;
    case XSTAT_UINT64:
      type = CP_XSTAT_UINT64;
      pack_byte (buf, type);
      pack_varint (buf, sv->u);
      break;
    case XSTAT_DOUBLE:
      {
        guint64 bits;

        type = CP_XSTAT_DOUBLE;
        pack_byte (buf, type);
        memcpy (&bits, &sv->d, 8);
        bits = GUINT64_TO_LE (bits);
        pack_raw8 (buf, &bits);
      }
      break;
    case XSTAT_STR:
      type = CP_XSTAT_STRING;
      pack_byte (buf, type);
      pack_varint (buf, space_intern (space, (const char *) sv->s, (gssize) sv->slen));
      break;
    case XSTAT_REF:
      {
        StatMeta *m = plane_stat (plane, (gint64) sv->u);

        type = CP_XSTAT_STRING;
        pack_byte (buf, type);
        pack_varint (buf, m != NULL ? m->name : CP_STR_EMPTY);
      }
      break;
    case XSTAT_BYTES:
      type = CP_XSTAT_BYTES;
      pack_byte (buf, type);
      pack_varint (buf, sv->slen);
      break;
    default:
      /* A stat with no value: an empty string. */
      type = CP_XSTAT_STRING;
      pack_byte (buf, type);
      pack_varint (buf, CP_STR_EMPTY);
      break;
    }
}

/* Producer/consumer types and ids and the root mark: the reader turns them
 * into flows and steps, and, as XProf does, does not show them as stats
 * (each event's own ids would also make every record distinct). */
static inline gboolean
is_internal_stat (StatKind kind)
{
  return kind == SK_P || kind == SK_C || kind == SK_PT || kind == SK_CT || kind == SK_R;
}

/* Applies one stat to es and, when pack is not NULL, appends it. */
static void
apply_stat (Plane          *plane,
            EvStats        *es,
            const XStatVal *sv,
            Pack           *pack,
            gboolean        event_level,
            guint64        *unknown_stat_ids)
{
  StatMeta *m = plane_stat (plane, sv->metadata_id);
  gint64 iv;

  if (m == NULL)
    {
      (*unknown_stat_ids)++;
      return;
    }
  /* An event's correlation_id and group_id live in the corr and ext columns
   * (cp_xstats_decode_slice() shows them again): leaving them out of the
   * record lets events share records. */
  if (pack != NULL && !is_internal_stat (m->kind) &&
      !(event_level && (m->kind == SK_CORRELATION_ID || m->kind == SK_GROUP_ID) &&
        (sv->type == XSTAT_INT64 || (sv->type == XSTAT_UINT64 && sv->u <= (guint64) G_MAXINT64))))
    pack_entry (plane->space, pack, m->name, plane, sv);

  if (!es->has_number && sv->type != XSTAT_STR && sv->type != XSTAT_BYTES &&
      sv->type != XSTAT_REF && sv->type != 0)
    es->has_number = stat_as_double (sv, &es->number);

  switch (m->kind)
    {
    case SK_NONE:
      break;
    case SK_CORRELATION_ID:
    case SK_DEVICE_ID:
    case SK_GROUP_ID:
    case SK_STEP_NUM:
    case SK_ITER_NUM:
    case SK_FLOW:
    case SK_P:
    case SK_C:
    case SK_PT:
    case SK_CT:
    case SK_R:
    case SK_FLOPS:
    case SK_BYTES_ACCESSED:
      if (stat_as_int (sv, &iv))
        {
          es->v[m->kind] = iv;
          es->has |= 1u << m->kind;
        }
      break;
    case SK_STEP_NAME:
      {
        const guint8 *s;
        gsize len;
        StatMeta *ref;

        if (stat_string (plane, sv, &s, &len, &ref))
          {
            es->step_name = ref != NULL ? ref->name
                                        : space_intern (plane->space, (const char *) s, (gssize) len);
            es->has |= 1u << SK_STEP_NAME;
          }
      }
      break;
    case SK_KERNEL_DETAILS:
      if (stat_string (plane, sv, &es->kernel_details, (gsize *) &iv, &es->kernel_ref))
        {
          es->kernel_details_len = (guint32) MIN ((gsize) iv, G_MAXUINT32);
          es->has |= 1u << SK_KERNEL_DETAILS;
        }
      break;
    case SK_MEMCPY_DETAILS:
    case SK_MEMSET_DETAILS:
      if (stat_string (plane, sv, &es->copy_details, (gsize *) &iv, &es->copy_ref))
        {
          es->copy_details_len = (guint32) MIN ((gsize) iv, G_MAXUINT32);
          es->copy_is_memset = m->kind == SK_MEMSET_DETAILS;
          es->has |= 1u << m->kind;
        }
      break;
    case SK_THEORETICAL_OCC:
      {
        double d;

        if (stat_as_double (sv, &d) && isfinite (d))
          {
            es->occupancy = d;
            es->has |= 1u << SK_THEORETICAL_OCC;
          }
      }
      break;
    default:
      break;
    }
}

/* ------------------------------------------------------------------------ */
/* Details strings                                                           */

static gint64
parse_int (const char *s,
           const char *end,
           gboolean   *ok)
{
  gint64 v = 0;
  gboolean neg = FALSE, digits = FALSE;

  if (s < end && (*s == '-' || *s == '+'))
    {
      neg = *s == '-';
      s++;
    }
  while (s < end && g_ascii_isdigit (*s))
    {
      if (v <= (G_MAXINT64 - 9) / 10)
        v = v * 10 + (*s - '0');
      digits = TRUE;
      s++;
    }
  *ok = digits;
  return neg ? -v : v;
}

static gint32
clamp_i32 (gint64 v)
{
  return v < 0 || v > G_MAXINT32 ? -1 : (gint32) v;
}

static void
parse_triple (const char *s,
              const char *end,
              gint32      out[3])
{
  for (guint k = 0; k < 3; k++)
    {
      const char *comma = memchr (s, ',', end - s);
      const char *stop = comma != NULL ? comma : end;
      gboolean ok;
      gint64 v = parse_int (s, stop, &ok);

      out[k] = ok ? clamp_i32 (v) : -1;
      if (comma == NULL)
        break;
      s = comma + 1;
    }
}

/* Calls fn for each whitespace-separated "key:value" token. */
typedef void (*TokenFunc) (const char *key,
                           gsize       key_len,
                           const char *value,
                           const char *value_end,
                           gpointer    data);

static void
for_each_token (const guint8 *text,
                gsize         len,
                TokenFunc     fn,
                gpointer      data)
{
  const char *p = (const char *) text, *end = p + len;

  while (p < end)
    {
      const char *tok, *colon;

      while (p < end && g_ascii_isspace (*p))
        p++;
      tok = p;
      while (p < end && !g_ascii_isspace (*p))
        p++;
      colon = memchr (tok, ':', p - tok);
      if (colon != NULL)
        fn (tok, colon - tok, colon + 1, p, data);
    }
}

static void
kernel_token (const char *key,
              gsize       key_len,
              const char *value,
              const char *value_end,
              gpointer    data)
{
  KernelInfo *k = data;
  gboolean ok;
  gint64 v;

#define KEY_IS(s) (key_len == strlen (s) && memcmp (key, s, key_len) == 0)
  if (KEY_IS ("grid"))
    parse_triple (value, value_end, k->grid);
  else if (KEY_IS ("block"))
    parse_triple (value, value_end, k->block);
  else if (KEY_IS ("regs"))
    {
      v = parse_int (value, value_end, &ok);
      k->registers = ok ? clamp_i32 (v) : -1;
    }
  else if (KEY_IS ("static_shared") || KEY_IS ("dynamic_shared") || KEY_IS ("group_mem"))
    {
      v = parse_int (value, value_end, &ok);
      if (ok && v >= 0)
        k->shared_mem = clamp_i32 ((k->shared_mem < 0 ? 0 : k->shared_mem) + v);
    }
  else if (KEY_IS ("occ_pct"))
    {
      g_autofree char *s = g_strndup (value, value_end - value);
      char *e = NULL;
      double d = g_ascii_strtod (s, &e);

      if (e != s && isfinite (d))
        k->occupancy = (float) d;
    }
}

static void
parse_kernel_details (const guint8 *text,
                      gsize         len,
                      KernelInfo   *k)
{
  for (guint i = 0; i < 3; i++)
    k->grid[i] = k->block[i] = -1;
  k->registers = -1;
  k->shared_mem = -1;
  k->occupancy = NAN;
  for_each_token (text, len, kernel_token, k);
}

typedef struct
{
  CopyInfo    *info;
  const char  *src;
  gsize        src_len;
  const char  *dst;
  gsize        dst_len;
} CopyParse;

static void
copy_token (const char *key,
            gsize       key_len,
            const char *value,
            const char *value_end,
            gpointer    data)
{
  CopyParse *cp = data;
  gboolean ok;
  gint64 v;

  if (KEY_IS ("size") || KEY_IS ("num_bytes"))
    {
      v = parse_int (value, value_end, &ok);
      if (ok && v >= 0)
        cp->info->bytes = v;
    }
  else if (KEY_IS ("kind_src"))
    {
      cp->src = value;
      cp->src_len = value_end - value;
    }
  else if (KEY_IS ("kind_dst"))
    {
      cp->dst = value;
      cp->dst_len = value_end - value;
    }
#undef KEY_IS
}

static int
memory_side (const char *s,
             gsize       len)
{
  /* 1 host, 2 device, 0 unknown */
  if (s == NULL)
    return 0;
  if (bytes_equal ((const guint8 *) s, len, "pageable") || bytes_equal ((const guint8 *) s, len, "pinned") ||
      bytes_equal ((const guint8 *) s, len, "host"))
    return 1;
  if (bytes_equal ((const guint8 *) s, len, "device") || bytes_equal ((const guint8 *) s, len, "array") ||
      bytes_equal ((const guint8 *) s, len, "device_static"))
    return 2;
  return 0;
}

static void
parse_copy_details (const guint8 *text,
                    gsize         len,
                    gboolean      memset_,
                    CopyInfo     *info)
{
  CopyParse cp = { info, NULL, 0, NULL, 0 };
  int src, dst;

  info->bytes = -1;
  info->kind = memset_ ? CP_TRANSFER_MEMSET : CP_TRANSFER_NONE;
  info->flags = 0;
  for_each_token (text, len, copy_token, &cp);
  if (memset_)
    return;

  src = memory_side (cp.src, cp.src_len);
  dst = memory_side (cp.dst, cp.dst_len);
  if (src == 1 && dst == 2)
    info->kind = CP_TRANSFER_HTOD;
  else if (src == 2 && dst == 1)
    info->kind = CP_TRANSFER_DTOH;
  else if (src == 2 && dst == 2)
    info->kind = CP_TRANSFER_DTOD;
  else if (src != 0 || dst != 0)
    info->kind = CP_TRANSFER_OTHER;
  if ((cp.src && bytes_equal ((const guint8 *) cp.src, cp.src_len, "pageable")) ||
      (cp.dst && bytes_equal ((const guint8 *) cp.dst, cp.dst_len, "pageable")))
    info->flags |= CP_SLICE_PAGEABLE;
  else if ((cp.src && bytes_equal ((const guint8 *) cp.src, cp.src_len, "pinned")) ||
           (cp.dst && bytes_equal ((const guint8 *) cp.dst, cp.dst_len, "pinned")))
    info->flags |= CP_SLICE_PINNED;
}

/* Direction from an event name: CUPTI's MemcpyH2D..., ROCm's
 * CopyHostToDevice..., Kineto-style HtoD. */
static CpTransferKind
transfer_from_name (const guint8 *name,
                    gsize         len)
{
  if (bytes_has_prefix (name, len, "Memset"))
    return CP_TRANSFER_MEMSET;
  if (bytes_contains (name, len, "H2D") || bytes_contains (name, len, "HtoD") ||
      bytes_contains (name, len, "HostToDevice"))
    return CP_TRANSFER_HTOD;
  if (bytes_contains (name, len, "D2H") || bytes_contains (name, len, "DtoH") ||
      bytes_contains (name, len, "DeviceToHost"))
    return CP_TRANSFER_DTOH;
  if (bytes_contains (name, len, "D2D") || bytes_contains (name, len, "DtoD") ||
      bytes_contains (name, len, "DeviceToDevice"))
    return CP_TRANSFER_DTOD;
  if (bytes_contains (name, len, "P2P") || bytes_contains (name, len, "PtoP") ||
      bytes_contains (name, len, "PeerToPeer"))
    return CP_TRANSFER_PTOP;
  if (bytes_contains (name, len, "H2H") || bytes_contains (name, len, "HtoH") ||
      bytes_contains (name, len, "HostToHost"))
    return CP_TRANSFER_OTHER;
  return CP_TRANSFER_NONE;
}

/* ------------------------------------------------------------------------ */
/* Planes                                                                    */

static PlaneClass
classify_plane (const char *name,
                gint64      id,
                gint       *ordinal,
                gboolean   *sparse_core)
{
  const char *p;

  *ordinal = -1;
  *sparse_core = FALSE;

  if (g_str_equal (name, "/host:metadata") || g_str_equal (name, "Task Environment") ||
      g_str_equal (name, "/host:tfstreamz") ||
      g_str_has_prefix (name, "/host:__ScopeRangeCallStack__"))
    return PLANE_BOOKKEEPING;
  if (g_str_equal (name, "/host:CPU"))
    return PLANE_HOST;
  if (g_str_has_prefix (name, "/device:GPU:"))
    {
      gboolean ok;
      gint64 n;

      p = name + strlen ("/device:GPU:");
      n = parse_int (p, p + strlen (p), &ok);
      *ordinal = ok && n >= 0 && n < 100000 ? (gint) n : (gint) CLAMP (id, 0, 100000);
      return PLANE_GPU;
    }
  if (g_str_has_prefix (name, "/device:TPU:"))
    {
      gboolean ok;
      gint64 n;
      const char *e;

      p = name + strlen ("/device:TPU:");
      e = p;
      while (g_ascii_isdigit (*e))
        e++;
      n = parse_int (p, e, &ok);
      *ordinal = ok && n >= 0 && n < 100000 ? (gint) n : (gint) CLAMP (id, 0, 100000);
      *sparse_core = strstr (e, "SparseCore") != NULL;
      return PLANE_TPU;
    }
  if (g_str_has_prefix (name, "/device:CUSTOM:") || g_str_has_prefix (name, "/custom:") ||
      g_str_has_prefix (name, "/virtualdevice:") || g_str_has_prefix (name, "#Chip"))
    return PLANE_CUSTOM;
  if (g_str_has_prefix (name, "/host:") || g_str_equal (name, "Host CPUs") ||
      g_str_equal (name, "Syscalls"))
    return PLANE_OTHER_HOST;
  return PLANE_OTHER;
}

static gboolean
is_ml_line_name (const guint8 *name,
                 gsize         len)
{
  static const char *const names[] = {
    "Steps", "XLA Modules", "XLA Ops", "Async XLA Ops", "Framework Ops", "Framework Name Scope",
    "TensorFlow Ops", "TensorFlow Name Scope", "Launch Stats", "Source code", "Host Offload Ops",
    "Sparse Core Steps", "Sparse Core Modules", "Sparse Core Ops", "XLA TraceMe",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (bytes_has_prefix (name, len, names[i]))
      {
        gsize n = strlen (names[i]);

        /* "XLA Ops", or XProf's derived "XLA Ops - from #7". */
        if (len == n || bytes_has_prefix (name + n, len - n, " - "))
          return TRUE;
      }
  return FALSE;
}

static gboolean
is_op_line_name (const guint8 *name,
                 gsize         len)
{
  return bytes_equal (name, len, "XLA Ops") || bytes_equal (name, len, "Sparse Core Ops");
}

static gboolean
is_steps_line_name (const guint8 *name,
                    gsize         len)
{
  return bytes_equal (name, len, "Steps") || bytes_has_prefix (name, len, "Steps - from");
}

static void
plane_clear (Plane *plane)
{
  if (plane->stat_meta != NULL)
    {
      for (guint i = 0; i < plane->stat_meta->len; i++)
        {
          StatMeta *m = &g_array_index (plane->stat_meta, StatMeta, i);

          g_free (m->kernel);
          g_free (m->copy);
        }
      g_array_unref (plane->stat_meta);
    }
  if (plane->event_meta != NULL)
    g_array_unref (plane->event_meta);
  if (plane->lines != NULL)
    g_array_unref (plane->lines);
  if (plane->stats != NULL)
    g_array_unref (plane->stats);
  idmap_clear (&plane->stat_ids);
  idmap_clear (&plane->event_ids);
  g_free (plane->name);
}

/* Reads a plane's top-level fields: name, id, spans of lines and stats, and
 * the metadata tables. */
static gboolean
plane_index (Space      *space,
             const Span *span,
             Plane      *plane)
{
  CpXPlaneReader *reader = space->reader;
  CpPbReader r;
  CpPbField f;
  g_autoptr(GArray) stat_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) event_ids = g_array_new (FALSE, FALSE, sizeof (gint64));

  plane->stat_meta = g_array_new (FALSE, TRUE, sizeof (StatMeta));
  plane->event_meta = g_array_new (FALSE, TRUE, sizeof (EventMeta));
  plane->lines = g_array_new (FALSE, FALSE, sizeof (Span));
  plane->stats = g_array_new (FALSE, FALSE, sizeof (Span));
  plane->name = g_strdup ("");
  plane->process = -1;
  plane->partial = span->partial;

  reader_at (space, &r, span->data, span->len);
  while (cp_pb_reader_next (&r, &f))
    {
      switch (f.number)
        {
        case XPLANE_ID:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            plane->id = cp_pb_int64 (f.value);
          break;
        case XPLANE_NAME:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              g_free (plane->name);
              plane->name = g_utf8_make_valid ((const char *) f.data, (gssize) f.len);
            }
          break;
        case XPLANE_LINES:
        case XPLANE_STATS:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              Span s = { f.data, f.len, f.offset, FALSE };

              g_array_append_val (f.number == XPLANE_LINES ? plane->lines : plane->stats, s);
            }
          break;
        case XPLANE_STAT_METADATA:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              guint64 key;
              CpPbField value, g;
              gboolean has_value;
              StatMeta m = { 0 };
              gint64 id;
              CpPbReader v;

              if (!cp_pb_read_map_entry (&r, &f, &key, &value, &has_value))
                break;
              id = cp_pb_int64 (key);
              if (has_value && value.wire_type == CP_PB_WIRE_LEN &&
                  cp_pb_reader_init_sub (&v, &r, &value))
                {
                  while (cp_pb_reader_next (&v, &g))
                    {
                      if (g.number == XSTATMETA_NAME && g.wire_type == CP_PB_WIRE_LEN)
                        {
                          m.raw = g.data;
                          m.raw_len = (guint32) MIN (g.len, G_MAXUINT32);
                        }
                      else if (g.number == XSTATMETA_ID && g.wire_type == CP_PB_WIRE_VARINT && id == 0)
                        id = cp_pb_int64 (g.value);
                    }
                  if (v.error != CP_PB_OK)
                    {
                      r.error = v.error;
                      r.error_offset = v.error_offset;
                      break;
                    }
                }
              if (m.raw == NULL)
                m.raw = (const guint8 *) "";
              m.name = cp_trace_builder_intern (reader->builder, (const char *) m.raw, m.raw_len);
              m.kind = stat_kind_for (m.raw, m.raw_len);
              g_array_append_val (plane->stat_meta, m);
              g_array_append_val (stat_ids, id);
            }
          break;
        case XPLANE_EVENT_METADATA:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              guint64 key;
              CpPbField value, g;
              gboolean has_value;
              EventMeta m = { 0 };
              gint64 id;
              CpPbReader v;
              const guint8 *display = NULL;
              gsize display_len = 0;

              if (!cp_pb_read_map_entry (&r, &f, &key, &value, &has_value))
                break;
              id = cp_pb_int64 (key);
              m.raw = (const guint8 *) "";
              if (has_value && value.wire_type == CP_PB_WIRE_LEN &&
                  cp_pb_reader_init_sub (&v, &r, &value))
                {
                  m.msg = value.data;
                  m.msg_len = value.len;
                  m.msg_offset = value.offset;
                  while (cp_pb_reader_next (&v, &g))
                    {
                      if (g.number == XEVMETA_NAME && g.wire_type == CP_PB_WIRE_LEN)
                        {
                          m.raw = g.data;
                          m.raw_len = (guint32) MIN (g.len, G_MAXUINT32);
                        }
                      else if (g.number == XEVMETA_DISPLAY_NAME && g.wire_type == CP_PB_WIRE_LEN)
                        {
                          display = g.data;
                          display_len = g.len;
                        }
                      else if (g.number == XEVMETA_STATS)
                        m.has_stats = TRUE;
                      else if (g.number == XEVMETA_ID && g.wire_type == CP_PB_WIRE_VARINT && id == 0)
                        id = cp_pb_int64 (g.value);
                    }
                  if (v.error != CP_PB_OK)
                    {
                      r.error = v.error;
                      r.error_offset = v.error_offset;
                      break;
                    }
                }
              if (display != NULL && display_len > 0)
                {
                  m.name = cp_trace_builder_intern (reader->builder, (const char *) display,
                                                    (gssize) display_len);
                  if (!bytes_equal (m.raw, m.raw_len, "") &&
                      !(display_len == m.raw_len && memcmp (display, m.raw, display_len) == 0))
                    m.long_name = cp_trace_builder_intern (reader->builder, (const char *) m.raw,
                                                           MIN (m.raw_len, 10000));
                }
              else
                m.name = cp_trace_builder_intern (reader->builder, (const char *) m.raw, m.raw_len);
              m.name_transfer = transfer_from_name (m.raw, m.raw_len);
              m.name_is_memset = bytes_has_prefix (m.raw, m.raw_len, "Memset");
              m.name_is_memcpy = bytes_has_prefix (m.raw, m.raw_len, "Memcpy") ||
                                 (bytes_has_prefix (m.raw, m.raw_len, "Copy") &&
                                  m.name_transfer != CP_TRANSFER_NONE);
              if (m.long_name != CP_STR_EMPTY)
                m.has_stats = TRUE;
              g_array_append_val (plane->event_meta, m);
              g_array_append_val (event_ids, id);
            }
          break;
        default:
          break;
        }
    }

  idmap_build (&plane->stat_ids, (const gint64 *) stat_ids->data, stat_ids->len);
  idmap_build (&plane->event_ids, (const gint64 *) event_ids->data, event_ids->len);

  if (r.error == CP_PB_ERROR_TRUNCATED && f.partial && f.number == XPLANE_LINES &&
      f.wire_type == CP_PB_WIRE_LEN)
    {
      /* Keep the complete events of a line that was cut off. */
      Span s = { f.data, f.len, f.offset, TRUE };

      g_array_append_val (plane->lines, s);
    }
  if (r.error != CP_PB_OK)
    {
      g_autofree char *where = g_strdup_printf (_("plane “%s”"), plane->name);

      report_pb_error (space, &r, where);
      plane->partial = TRUE;
    }
  return TRUE;
}

/* Stats of an event metadata, decoded once: the merged EvStats base and the
 * packed record that events include. */
static void
event_meta_decode_locked (Plane     *plane,
                          EventMeta *m,
                          Pack      *pack,
                          guint64   *unknown_stat_ids)
{
  CpXPlaneReader *reader = plane->space->reader;
  CpPbReader r;
  CpPbField f;

  memset (&m->stats, 0, sizeof m->stats);
  if (!m->has_stats)
    return;

  pack->len = 0;
  if (m->long_name != CP_STR_EMPTY)
    {
      guint8 type = CP_XSTAT_STRING;

      pack_varint (pack, reader->key_long_name);
      pack_byte (pack, type);
      pack_varint (pack, m->long_name);
    }
  reader_at (plane->space, &r, m->msg, m->msg_len);
  while (cp_pb_reader_next (&r, &f))
    {
      XStatVal sv;

      if (f.number != XEVMETA_STATS)
        continue;
      if (!parse_xstat (&r, &f, &sv))
        break;
      apply_stat (plane, &m->stats, &sv, pack, FALSE, unknown_stat_ids);
    }
  if (pack->len > 0)
    m->args_id = cp_trace_builder_add_args (reader->builder, CP_ARGS_XSTATS, pack->data, pack->len);
}

/* Decodes an event metadata's stats on first use, whichever thread uses it
 * first. */
static void
event_meta_decode (Ctx       *ctx,
                   Plane     *plane,
                   EventMeta *m)
{
  g_rec_mutex_lock (&plane->space->lock);
  if (!m->decoded)
    {
      event_meta_decode_locked (plane, m, &ctx->pack, &ctx->unknown_stat_ids);
      g_atomic_int_set (&m->decoded, TRUE);
    }
  g_rec_mutex_unlock (&plane->space->lock);
}

/* Plane stats: devices and metadata. */
static void
plane_read_stats (Plane       *plane,
                  JsonBuilder *json)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  CpDevice *dev = NULL;
  gboolean is_device = plane->klass == PLANE_GPU || plane->klass == PLANE_TPU;

  if (is_device && !plane->sparse_core)
    dev = cp_trace_builder_device (reader->builder, plane->ordinal);

  for (guint i = 0; i < plane->stats->len; i++)
    {
      const Span *s = &g_array_index (plane->stats, Span, i);
      XStatVal sv;
      StatMeta *m;
      gint64 iv;
      double dv;
      const guint8 *str;
      gsize slen;
      StatMeta *ref;

      if (!parse_xstat_span (space, s, &sv))
        continue;
      m = plane_stat (plane, sv.metadata_id);

      if (json != NULL)
        {
          g_autofree char *key = NULL;

          if (m != NULL)
            key = g_utf8_make_valid ((const char *) m->raw, m->raw_len);
          else
            key = g_strdup_printf ("%" G_GINT64_FORMAT, sv.metadata_id);
          json_builder_set_member_name (json, key);
          switch (sv.type)
            {
            case XSTAT_INT64:
              json_builder_add_int_value (json, (gint64) sv.u);
              break;
            case XSTAT_UINT64:
              if (sv.u > (guint64) G_MAXINT64)
                {
                  g_autofree char *t = g_strdup_printf ("%" G_GUINT64_FORMAT, sv.u);

                  json_builder_add_string_value (json, t);
                }
              else
                json_builder_add_int_value (json, (gint64) sv.u);
              break;
            case XSTAT_DOUBLE:
              if (isfinite (sv.d))
                json_builder_add_double_value (json, sv.d);
              else
                json_builder_add_null_value (json);
              break;
            case XSTAT_STR:
            case XSTAT_REF:
              if (stat_string (plane, &sv, &str, &slen, &ref))
                {
                  g_autofree char *t = g_utf8_make_valid ((const char *) str,
                                                          (gssize) MIN (slen, MAX_METADATA_STRING));

                  json_builder_add_string_value (json, t);
                }
              else
                json_builder_add_null_value (json);
              break;
            case XSTAT_BYTES:
              {
                g_autofree char *t = g_strdup_printf (_("(%" PRIu64 " bytes)"), (guint64) sv.slen);

                json_builder_add_string_value (json, t);
              }
              break;
            default:
              json_builder_add_null_value (json);
              break;
            }
        }

      if (m == NULL)
        continue;
      if (m->kind == SK_PROFILE_START)
        continue;
      if (m->kind == SK_CORE_COUNT && stat_as_int (&sv, &iv))
        plane->core_count = clamp_i32 (iv);
      if (dev == NULL)
        continue;
      switch (m->kind)
        {
        case SK_GPU_DEVICE_NAME:
        case SK_DEVICE_TYPE_STRING:
        case SK_DEVICE_VENDOR:
          if (stat_string (plane, &sv, &str, &slen, &ref))
            {
              g_autofree char *t = g_utf8_make_valid ((const char *) str, (gssize) MIN (slen, 1024));
              CpStr id = cp_trace_builder_intern (reader->builder, t, -1);

              if (m->kind == SK_DEVICE_VENDOR)
                dev->vendor = id;
              else if (m->kind == SK_GPU_DEVICE_NAME || dev->name == CP_STR_EMPTY)
                dev->name = id;
            }
          break;
        case SK_CORE_COUNT:
          if (stat_as_int (&sv, &iv))
            dev->num_sms = clamp_i32 (iv);
          break;
        case SK_MEMORY_SIZE:
          if (stat_as_int (&sv, &iv) && iv >= 0)
            dev->total_memory = iv;
          break;
        case SK_CC_MAJOR:
          if (stat_as_int (&sv, &iv))
            dev->compute_major = clamp_i32 (iv);
          break;
        case SK_CC_MINOR:
          if (stat_as_int (&sv, &iv))
            dev->compute_minor = clamp_i32 (iv);
          break;
        case SK_PEAK_TFLOPS:
          if (stat_as_double (&sv, &dv) && isfinite (dv) && dv >= 0)
            dev->peak_tflops = dv;
          break;
        case SK_MEMORY_BANDWIDTH:
          if (stat_as_double (&sv, &dv) && isfinite (dv) && dv >= 0)
            dev->memory_bandwidth = dv;
          break;
        case SK_PEAK_HBM_BW:
          if (stat_as_double (&sv, &dv) && isfinite (dv) && dv >= 0 && dev->memory_bandwidth == 0)
            dev->memory_bandwidth = dv * 1e9;
          break;
        default:
          break;
        }
    }

  if (dev != NULL)
    {
      const char *vendor = cp_trace_builder_get_string (reader->builder, dev->vendor);

      if (dev->name == CP_STR_EMPTY && vendor[0] != '\0' && plane->klass == PLANE_GPU)
        {
          g_autofree char *n = NULL;

          /* AMD captures carry no device name: say what is known. */
          if (dev->compute_major >= 0)
            n = g_strdup_printf ("%s GPU (compute %d.%d)", vendor, dev->compute_major,
                                 MAX (dev->compute_minor, 0));
          else
            n = g_strdup_printf ("%s GPU", vendor);
          dev->name = cp_trace_builder_intern (reader->builder, n, -1);
        }

      if (dev->warp_size < 0)
        {
          if (g_ascii_strcasecmp (vendor, "Nvidia") == 0)
            dev->warp_size = 32;
          else if (g_ascii_strcasecmp (vendor, "AMD") == 0)
            dev->warp_size = 64;
        }
      if (plane->klass == PLANE_TPU && dev->vendor == CP_STR_EMPTY)
        dev->vendor = cp_trace_builder_intern (reader->builder, "Google", -1);
    }
}

static guint
plane_process (Plane *plane)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  g_autofree char *name = NULL;
  CpProcess *proc;
  guint index;
  gboolean is_device;

  if (plane->process >= 0)
    return (guint) plane->process;

  /* XProf's trace viewer pids: host planes from 701, devices 1 + id, custom
   * planes 501 + id; hosts of a folder 10000 apart. */
  is_device = plane->klass == PLANE_GPU || plane->klass == PLANE_TPU || plane->klass == PLANE_CUSTOM;
  {
    gint64 pid;

    if (plane->klass == PLANE_GPU || plane->klass == PLANE_TPU)
      pid = 1 + CLAMP (plane->id, 0, 400);
    else if (plane->klass == PLANE_CUSTOM)
      pid = 501 + CLAMP (plane->id, 0, 150);
    else
      pid = 701 + plane->index;
    pid += (gint64) space->host * 10000;
    if (g_hash_table_contains (reader->pids, &pid))
      {
        /* Taken: the next of wanted + k * 1000. Each wanted pid remembers
         * where its search got to, so many planes wanting one pid cost one
         * step each, not a walk past all the earlier ones. */
        gint64 wanted = pid;
        gint64 *next = g_hash_table_lookup (reader->pid_next, &wanted);

        pid = next != NULL ? *next : wanted + 1000;
        while (g_hash_table_contains (reader->pids, &pid))
          pid += 1000;
        if (next == NULL)
          {
            next = g_new (gint64, 2);
            next[1] = wanted;
            g_hash_table_insert (reader->pid_next, &next[1], next);
          }
        *next = pid + 1000;
      }
    g_hash_table_add (reader->pids, g_memdup2 (&pid, sizeof pid));
    index = cp_trace_builder_process_for_pid (reader->builder, pid);
  }
  proc = cp_trace_builder_get_process (reader->builder, index);
  if (space->hostname != NULL && space->hostname[0] != '\0')
    name = g_strdup_printf ("%s %s", space->hostname, plane->name);
  else
    name = g_strdup (plane->name);
  proc->name = cp_trace_builder_intern (reader->builder, name, -1);
  proc->host = (gint32) space->host;
  proc->is_device = is_device;
  proc->device = plane->ordinal;
  proc->is_pseudo = FALSE;
  proc->sort_index = (gint64) space->host * 100000000 +
                     (is_device ? 50000000 + (gint64) MAX (plane->ordinal, 0) * 100 + plane->index % 100
                                : plane->index);
  if (plane->ordinal >= 0)
    {
      CpDevice *dev = cp_trace_builder_device (reader->builder, plane->ordinal);

      proc->labels = dev->name;
    }
  plane->process = (gint) index;
  return index;
}

/* ------------------------------------------------------------------------ */
/* Lines and events                                                          */

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

static guint line_lane_locked (Ctx   *ctx,
                               Plane *plane,
                               Line  *line);

/* The line's lane (its sink in line->sink), made on first use;
 * G_MAXUINT when the line is skipped. */
static inline guint
line_lane (Ctx   *ctx,
           Plane *plane,
           Line  *line)
{
  guint lane;

  if (G_LIKELY (line->lane != 0))
    return line->lane - 1;
  if (line->skip)
    return G_MAXUINT;
  g_rec_mutex_lock (&plane->space->lock);
  lane = line_lane_locked (ctx, plane, line);
  g_rec_mutex_unlock (&plane->space->lock);
  return lane;
}

static guint
line_lane_locked (Ctx   *ctx,
                  Plane *plane,
                  Line  *line)
{
  CpXPlaneReader *reader = plane->space->reader;
  CpLaneKind kind;
  CpLaneKey key = { 0, CP_STR_EMPTY };
  guint process, lane;
  gboolean existed;

  process = plane_process (plane);
  switch (line->klass)
    {
    case LINE_HOST:
      kind = CP_LANE_HOST_THREAD;
      key.num = line->display_id != 0 ? line->display_id : line->id;
      break;
    case LINE_KERNEL:
      kind = CP_LANE_KERNEL;
      key.num = line->display_id != 0 ? line->display_id : line->id;
      break;
    case LINE_ANNOTATION:
    case LINE_COUNTERS:
    default:
      kind = CP_LANE_DEVICE_ANNOTATION;
      key.num = line->display_id != 0 ? line->display_id : line->id;
      break;
    }

  existed = cp_trace_builder_has_lane (reader->builder, process, kind, key, NULL);
  if (!existed && plane->n_lanes >= MAX_LANES_PER_PLANE)
    {
      if (!plane->lane_limit_warned)
        {
          plane->lane_limit_warned = TRUE;
          out_warn (ctx, G_MAXUINT64,
                    _("Plane “%s” has more than %d lines with events; the events "
                      "of the others were skipped"),
                    plane->name, MAX_LANES_PER_PLANE);
        }
      line->skip = TRUE;
      return G_MAXUINT;
    }
  lane = cp_trace_builder_lane (reader->builder, process, kind, key);
  if (!existed)
    {
      const guint8 *n = line->display_name_len > 0 ? line->display_name : line->name;
      gsize n_len = line->display_name_len > 0 ? line->display_name_len : line->name_len;
      g_autofree char *name = g_utf8_make_valid ((const char *) n, (gssize) MIN (n_len, 1024));

      plane->n_lanes++;
      if (name[0] != '\0')
        cp_trace_builder_set_lane_name (reader->builder, lane, name);
      if (plane->ordinal >= 0)
        cp_trace_builder_set_lane_device (reader->builder, lane, plane->ordinal,
                                          kind == CP_LANE_KERNEL ? key.num : -1);
    }
  line->sink = cp_trace_builder_get_sink (reader->builder, lane);
  line->lane = lane + 1;
  return lane;
}

/* A GPU plane's copy lane of a kind (its lines are read by one thread). */
static guint
transfer_lane (Plane          *plane,
               CpTransferKind  kind)
{
  CpXPlaneReader *reader = plane->space->reader;
  guint process, lane;

  if (plane->transfer_lanes[kind] != 0)
    return plane->transfer_lanes[kind] - 1;
  g_rec_mutex_lock (&plane->space->lock);
  process = plane_process (plane);
  lane = cp_trace_builder_lane (reader->builder, process, CP_LANE_TRANSFER,
                                (CpLaneKey) { kind, CP_STR_EMPTY });
  cp_trace_builder_set_lane_transfer_kind (reader->builder, lane, kind);
  if (plane->ordinal >= 0)
    cp_trace_builder_set_lane_device (reader->builder, lane, plane->ordinal, -1);
  plane->n_lanes++;
  plane->transfer_sinks[kind] = cp_trace_builder_get_sink (reader->builder, lane);
  plane->transfer_lanes[kind] = lane + 1;
  g_rec_mutex_unlock (&plane->space->lock);
  return lane;
}

static void
gpu_info_init (CpGpuInfo *g)
{
  /* Padding too: records are compared byte for byte. */
  memset (g, 0, sizeof *g);
  g->bytes = -1;
  g->device = -1;
  g->stream = -1;
  for (guint i = 0; i < 3; i++)
    g->grid[i] = g->block[i] = -1;
  g->registers = -1;
  g->shared_mem = -1;
  g->blocks_per_sm = NAN;
  g->warps_per_sm = NAN;
  g->occupancy = NAN;
  g->flops = -1;
  g->bytes_accessed = -1;
}

static const KernelInfo *
event_kernel_info (EvStats    *es,
                   KernelInfo *scratch)
{
  if (!HAS (es, SK_KERNEL_DETAILS))
    return NULL;
  if (es->kernel_ref != NULL)
    {
      KernelInfo *k = g_atomic_pointer_get (&es->kernel_ref->kernel);

      if (k == NULL)
        {
          /* Another thread may parse it too: the first one stays. */
          k = g_new (KernelInfo, 1);
          parse_kernel_details (es->kernel_details, es->kernel_details_len, k);
          if (!g_atomic_pointer_compare_and_exchange (&es->kernel_ref->kernel, NULL, k))
            {
              g_free (k);
              k = g_atomic_pointer_get (&es->kernel_ref->kernel);
            }
        }
      return k;
    }
  parse_kernel_details (es->kernel_details, es->kernel_details_len, scratch);
  return scratch;
}

static const CopyInfo *
event_copy_info (EvStats  *es,
                 CopyInfo *scratch)
{
  if (!HAS (es, SK_MEMCPY_DETAILS) && !HAS (es, SK_MEMSET_DETAILS))
    return NULL;
  if (es->copy_ref != NULL)
    {
      CopyInfo *c = g_atomic_pointer_get (&es->copy_ref->copy);

      if (c == NULL)
        {
          c = g_new (CopyInfo, 1);
          parse_copy_details (es->copy_details, es->copy_details_len, es->copy_is_memset, c);
          if (!g_atomic_pointer_compare_and_exchange (&es->copy_ref->copy, NULL, c))
            {
              g_free (c);
              c = g_atomic_pointer_get (&es->copy_ref->copy);
            }
        }
      return c;
    }
  parse_copy_details (es->copy_details, es->copy_details_len, es->copy_is_memset, scratch);
  return scratch;
}

static void
add_step_candidate (GArray     *steps,
                    gint64      number,
                    gboolean    by_position,
                    gint64      start,
                    gint64      end,
                    CpSliceRef  marker)
{
  StepCand c = { number, start, end, marker, by_position };

  g_array_append_val (steps, c);
}

/* The id of an arguments record equal to pack, added if new. */
static guint32
shared_args (Ctx  *ctx,
             Pack *pack)
{
  Space *space = ctx->space;
  CpXPlaneReader *reader = space->reader;
  ArgsCacheEntry *ce = NULL;
  guint64 h;
  gsize slot = 0;
  guint32 id;

  if (pack->len == 0)
    return 0;
  /* Neighbouring events often have equal stats. */
  if (ctx->last_args != 0 && pack->len == ctx->last_pack.len &&
      memcmp (pack->data, ctx->last_pack.data, pack->len) == 0)
    return ctx->last_args;
  h = hash_bytes (pack->data, pack->len);
  if (pack->len <= ARGS_CACHE_BYTES)
    {
      ce = &ctx->args_cache[h % ARGS_CACHE_SIZE];
      if (ce->id != 0 && ce->h == h && ce->len == pack->len && memcmp (ce->bytes, pack->data, pack->len) == 0)
        {
          id = ce->id;
          goto done;
        }
    }
  g_rec_mutex_lock (&space->lock);
  id = dedup_lookup (&reader->args_dedup, h, args_equal, reader->builder, pack->data, pack->len,
                     &slot);
  if (id == 0)
    {
      id = cp_trace_builder_add_args (reader->builder, CP_ARGS_XSTATS, pack->data, pack->len);
      if (id != 0)
        dedup_insert (&reader->args_dedup, slot, h, id);
    }
  g_rec_mutex_unlock (&space->lock);
  if (ce != NULL && id != 0)
    {
      ce->h = h;
      ce->id = id;
      ce->len = (guint32) pack->len;
      memcpy (ce->bytes, pack->data, pack->len);
    }
done:
  ctx->last_pack.len = 0;
  pack_reserve (&ctx->last_pack, pack->len);
  memcpy (ctx->last_pack.data, pack->data, pack->len);
  ctx->last_pack.len = pack->len;
  ctx->last_args = id;
  return id;
}

/* The id of a device record equal to gpu, added if new. */
static guint32
shared_gpu_info (Ctx             *ctx,
                 const CpGpuInfo *gpu)
{
  Space *space = ctx->space;
  CpXPlaneReader *reader = space->reader;
  guint64 h;
  gsize slot = 0;
  guint32 index;

  if (ctx->last_gpu != 0 && memcmp (&ctx->last_gpu_info, gpu, sizeof *gpu) == 0)
    return ctx->last_gpu;
  h = hash_bytes ((const guint8 *) gpu, sizeof *gpu);
  g_rec_mutex_lock (&space->lock);
  index = dedup_lookup (&reader->gpu_dedup, h, gpu_equal, reader->gpu_copies, gpu, sizeof *gpu,
                        &slot);
  if (index == 0)
    {
      guint32 id = cp_trace_builder_add_gpu_info (reader->builder, gpu);

      g_array_append_val (reader->gpu_copies, *gpu);
      g_array_append_val (reader->gpu_ids, id);
      index = reader->gpu_copies->len;
      dedup_insert (&reader->gpu_dedup, slot, h, index);
    }
  ctx->last_gpu = g_array_index (reader->gpu_ids, guint32, index - 1);
  g_rec_mutex_unlock (&space->lock);
  ctx->last_gpu_info = *gpu;
  return ctx->last_gpu;
}

/* The fields of an XEvent in the form every writer uses (known fields with
 * their wire types, lengths inside the event). FALSE sends the event to the
 * careful path, which also names what is wrong. */
static inline gboolean
scan_event_fast (const guint8  *p,
                 const guint8  *end,
                 const guint8  *limit,
                 gint64        *metadata_id,
                 gint64        *offset_ps,
                 gint64        *duration_ps,
                 gboolean      *aggregated,
                 gboolean      *has_stats,
                 const guint8 **first_stats)
{
  CpPbError err;

  *metadata_id = 0;
  *offset_ps = 0;
  *duration_ps = 0;
  *aggregated = FALSE;
  *has_stats = FALSE;
  *first_stats = NULL;
  while (p < end)
    {
      const guint8 *at = p;
      guint64 tag, v;

      if (!cp_pb_read_varint_within (&p, end, limit, &tag, &err) ||
          !cp_pb_read_varint_within (&p, end, limit, &v, &err))
        return FALSE;
      switch (tag)
        {
        case (XEVENT_METADATA_ID << 3) | CP_PB_WIRE_VARINT:
          *metadata_id = (gint64) v;
          break;
        case (XEVENT_OFFSET_PS << 3) | CP_PB_WIRE_VARINT:
          *offset_ps = (gint64) v;
          *aggregated = FALSE;
          break;
        case (XEVENT_DURATION_PS << 3) | CP_PB_WIRE_VARINT:
          *duration_ps = (gint64) v;
          break;
        case (XEVENT_NUM_OCCURRENCES << 3) | CP_PB_WIRE_VARINT:
          *aggregated = TRUE;
          break;
        case (XEVENT_STATS << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          p += v;
          if (!*has_stats)
            *first_stats = at;
          *has_stats = TRUE;
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

static inline gboolean
parse_stat_fast (const guint8 *p,
                 const guint8 *end,
                 const guint8 *limit,
                 XStatVal     *sv)
{
  CpPbError err;

  sv->metadata_id = 0;
  sv->type = 0;
  while (p < end)
    {
      guint64 tag, v;

      if (!cp_pb_read_varint_within (&p, end, limit, &tag, &err))
        return FALSE;
      if (tag == ((XSTAT_DOUBLE << 3) | CP_PB_WIRE_FIXED64))
        {
          if (end - p < 8)
            return FALSE;
          sv->type = XSTAT_DOUBLE;
          sv->d = cp_pb_double (cp_pb_load_fixed64 (p));
          p += 8;
          continue;
        }
      if (!cp_pb_read_varint_within (&p, end, limit, &v, &err))
        return FALSE;
      switch (tag)
        {
        case (XSTAT_METADATA_ID << 3) | CP_PB_WIRE_VARINT:
          sv->metadata_id = (gint64) v;
          break;
        case (XSTAT_UINT64 << 3) | CP_PB_WIRE_VARINT:
        case (XSTAT_INT64 << 3) | CP_PB_WIRE_VARINT:
        case (XSTAT_REF << 3) | CP_PB_WIRE_VARINT:
          sv->type = (guint8) (tag >> 3);
          sv->u = v;
          break;
        case (XSTAT_STR << 3) | CP_PB_WIRE_LEN:
        case (XSTAT_BYTES << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          sv->type = (guint8) (tag >> 3);
          sv->s = p;
          sv->slen = (gsize) v;
          p += v;
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

/* One XEvent. */
static void
read_event (Ctx          *ctx,
            Plane        *plane,
            Line         *line,
            const guint8 *data,
            gsize         len,
            guint64       ev_offset)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  CpPbReader r;
  CpPbField f;
  gint64 metadata_id = 0, offset_ps = 0, duration_ps = 0;
  gboolean aggregated = FALSE, has_stats = FALSE;
  EventMeta *meta = NULL;
  EvStats es;
  Pack *pack = &ctx->pack;
  CpSliceInit init;
  CpGpuInfo gpu;
  gboolean with_gpu = FALSE;
  gint64 start, end;
  guint lane;
  CpSliceRef ref;
  CpStr name;
  gint mi;
  gboolean device_side;
  gboolean fast;
  const guint8 *first_stats = NULL;
  const guint8 *limit = space->data + space->len;
  GpuCacheEntry gpu_key, *gce = NULL;
  CpLaneSink *sink = NULL;

  ctx->events++;
  fast = scan_event_fast (data, data + len, limit, &metadata_id, &offset_ps, &duration_ps, &aggregated,
                          &has_stats, &first_stats);
  r.error = CP_PB_OK;
  if (!fast)
    reader_at (space, &r, data, len);
  while (!fast && cp_pb_reader_next (&r, &f))
    {
      switch (f.number)
        {
        case XEVENT_METADATA_ID:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            metadata_id = cp_pb_int64 (f.value);
          break;
        case XEVENT_OFFSET_PS:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            {
              offset_ps = cp_pb_int64 (f.value);
              aggregated = FALSE;
            }
          break;
        case XEVENT_NUM_OCCURRENCES:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            aggregated = TRUE;
          break;
        case XEVENT_DURATION_PS:
          if (f.wire_type == CP_PB_WIRE_VARINT)
            duration_ps = cp_pb_int64 (f.value);
          break;
        case XEVENT_STATS:
          has_stats = TRUE;
          break;
        default:
          break;
        }
    }
  if (r.error != CP_PB_OK)
    {
      if (r.error == CP_PB_ERROR_TRUNCATED)
        out_note_truncated (ctx, ev_offset);
      else
        {
          ctx->skipped++;
          out_note_error (ctx, r.error, r.error_offset);
          out_warn (ctx, r.error_offset, _("Skipped a damaged event at byte %" PRIu64 ": %s"),
                    r.error_offset, cp_pb_error_to_string (r.error));
        }
      return;
    }
  if (aggregated)
    {
      ctx->aggregated++;
      return;
    }
  if (line->skip)
    {
      ctx->skipped++;
      return;
    }

  mi = idmap_lookup (&plane->event_ids, metadata_id);
  if (mi >= 0)
    {
      meta = &g_array_index (plane->event_meta, EventMeta, mi);
      if (!g_atomic_int_get (&meta->decoded))
        event_meta_decode (ctx, plane, meta);
      if (meta->stats.has != 0 || meta->stats.has_number)
        es = meta->stats;
      else
        {
          /* Only these are read unless a kind's bit is set. */
          es.has = 0;
          es.has_number = FALSE;
        }
      name = meta->name;
    }
  else
    {
      es.has = 0;
      es.has_number = FALSE;
      name = CP_STR_EMPTY;
      ctx->unknown_metadata++;
    }

  cp_slice_init_clear (&init);
  pack->len = 0;
  if (has_stats)
    {
      if (meta != NULL && meta->args_id != 0)
        {
          guint8 type = CP_XSTAT_INCLUDE;

          pack_varint (pack, 0);
          pack_byte (pack, type);
          pack_varint (pack, meta->args_id);
        }
      if (!fast)
        reader_at (space, &r, data, len);
      else
        {
          /* The event's fields are known good: walk them without checks,
           * from the first stat on. */
          const guint8 *p = first_stats, *ev_end = data + len;

          while (p < ev_end)
            {
              guint64 tag = 0, v = 0;
              CpPbError err;
              XStatVal sv;

              cp_pb_read_varint_within (&p, ev_end, limit, &tag, &err);
              cp_pb_read_varint_within (&p, ev_end, limit, &v, &err);
              if (tag != ((XEVENT_STATS << 3) | CP_PB_WIRE_LEN))
                continue;
              if (!parse_stat_fast (p, p + v, limit, &sv))
                {
                  CpPbReader sr;

                  reader_at (space, &sr, p, v);
                  parse_xstat_reader (&sr, &sv);
                  if (sr.error != CP_PB_OK)
                    {
                      r.error = sr.error;
                      r.error_offset = sr.error_offset;
                      break;
                    }
                }
              apply_stat (plane, &es, &sv, pack, TRUE, &ctx->unknown_stat_ids);
              p += v;
            }
        }
      while (!fast && cp_pb_reader_next (&r, &f))
        {
          XStatVal sv;

          if (f.number != XEVENT_STATS)
            continue;
          if (!parse_xstat (&r, &f, &sv))
            break;
          apply_stat (plane, &es, &sv, pack, TRUE, &ctx->unknown_stat_ids);
        }
      if (r.error != CP_PB_OK)
        {
          ctx->skipped++;
          out_note_error (ctx, r.error, r.error_offset);
          out_warn (ctx, r.error_offset, _("Skipped a damaged event at byte %" PRIu64 ": %s"),
                    r.error_offset, cp_pb_error_to_string (r.error));
          return;
        }
      init.args = shared_args (ctx, pack);
    }
  else if (meta != NULL)
    init.args = meta->args_id;

  if (HAS (&es, SK_STEP_NAME))
    name = es.step_name;

  start = sat_add (line->base, ps_to_ns_floor (offset_ps));
  end = sat_add (line->base, ps_to_ns_floor (sat_add (offset_ps, duration_ps)));
  ctx->any_event = TRUE;

  if (line->klass == LINE_COUNTERS)
    {
      guint clane;

      if (!es.has_number)
        {
          ctx->skipped++;
          return;
        }
      g_rec_mutex_lock (&space->lock);
      clane = cp_trace_builder_lane (reader->builder, plane_process (plane), CP_LANE_COUNTER,
                                     (CpLaneKey) { 0, name });
      cp_trace_builder_add_counter (reader->builder, clane, start, es.number);
      g_rec_mutex_unlock (&space->lock);
      return;
    }

  lane = G_MAXUINT;
  init.start = start;
  init.dur = end - start;
  init.name = name;
  init.corr = HAS (&es, SK_CORRELATION_ID) ? es.v[SK_CORRELATION_ID] : CP_NONE;
  init.ext = HAS (&es, SK_GROUP_ID) ? es.v[SK_GROUP_ID] : CP_NONE;
  device_side = line->klass == LINE_KERNEL;

  switch (line->klass)
    {
    case LINE_HOST:
      init.cat = HAS (&es, SK_CORRELATION_ID) ? reader->cat_runtime : reader->cat_cpu_op;
      break;
    case LINE_KERNEL:
      {
        gboolean is_memset = HAS (&es, SK_MEMSET_DETAILS) || (meta != NULL && meta->name_is_memset);
        gboolean is_memcpy = !is_memset && (HAS (&es, SK_MEMCPY_DETAILS) ||
                                            (meta != NULL && meta->name_is_memcpy));

        if (!(plane->klass == PLANE_GPU && (is_memcpy || is_memset)) &&
            (!HAS (&es, SK_KERNEL_DETAILS) || es.kernel_ref != NULL))
          {
            /* A kernel whose record depends only on the key: seen lately? */
            guint64 h;

            gpu_key.ref = HAS (&es, SK_KERNEL_DETAILS) ? es.kernel_ref : NULL;
            gpu_key.has = es.has & GPU_CACHE_KINDS;
            gpu_key.id = 0;
            gpu_key.flops = HAS (&es, SK_FLOPS) ? es.v[SK_FLOPS] : 0;
            gpu_key.bytes_accessed = HAS (&es, SK_BYTES_ACCESSED) ? es.v[SK_BYTES_ACCESSED] : 0;
            gpu_key.occupancy = HAS (&es, SK_THEORETICAL_OCC) ? es.occupancy : 0;
            h = ((guint64) (guintptr) gpu_key.ref >> 4) ^ (guint64) gpu_key.flops * 0x9E3779B97F4A7C15ull ^
                (guint64) gpu_key.bytes_accessed * 0xC2B2AE3D27D4EB4Full;
            gce = &line->gpu_cache[(h ^ (h >> 29)) % GPU_CACHE_SIZE];
            if (gce->id != 0 && gce->ref == gpu_key.ref && gce->has == gpu_key.has &&
                gce->flops == gpu_key.flops && gce->bytes_accessed == gpu_key.bytes_accessed &&
                memcmp (&gce->occupancy, &gpu_key.occupancy, sizeof (double)) == 0)
              {
                init.cat = reader->cat_kernel;
                init.gpu_id = gce->id;
                gce = NULL;
                break;
              }
          }

        gpu_info_init (&gpu);
        with_gpu = TRUE;
        gpu.device = plane->ordinal;
        gpu.stream = (gint32) CLAMP (line->display_id != 0 ? line->display_id : line->id,
                                     G_MININT32, G_MAXINT32);
        if (HAS (&es, SK_FLOPS))
          gpu.flops = es.v[SK_FLOPS];
        if (HAS (&es, SK_BYTES_ACCESSED))
          gpu.bytes_accessed = es.v[SK_BYTES_ACCESSED];

        if (plane->klass == PLANE_GPU && (is_memcpy || is_memset))
          {
            CopyInfo scratch;
            const CopyInfo *ci = event_copy_info (&es, &scratch);
            CpTransferKind kind = CP_TRANSFER_NONE;

            if (is_memset)
              kind = CP_TRANSFER_MEMSET;
            else if (meta != NULL && meta->name_transfer != CP_TRANSFER_NONE)
              kind = meta->name_transfer;
            else if (ci != NULL)
              kind = ci->kind;
            if (kind == CP_TRANSFER_NONE)
              kind = CP_TRANSFER_OTHER;
            if (ci != NULL)
              {
                gpu.bytes = ci->bytes;
                init.flags |= ci->flags;
              }
            lane = transfer_lane (plane, kind);
            sink = plane->transfer_sinks[kind];
            init.cat = is_memset ? reader->cat_memset : reader->cat_memcpy;
          }
        else
          {
            KernelInfo scratch;
            const KernelInfo *ki = event_kernel_info (&es, &scratch);

            init.cat = reader->cat_kernel;
            if (ki != NULL)
              {
                memcpy (gpu.grid, ki->grid, sizeof gpu.grid);
                memcpy (gpu.block, ki->block, sizeof gpu.block);
                gpu.registers = ki->registers;
                gpu.shared_mem = ki->shared_mem;
                gpu.occupancy = ki->occupancy;
                if (plane->core_count > 0 && ki->grid[0] > 0 && ki->grid[1] > 0 && ki->grid[2] > 0)
                  {
                    double blocks = (double) ki->grid[0] * ki->grid[1] * ki->grid[2];

                    gpu.blocks_per_sm = (float) (blocks / plane->core_count);
                    if (ki->block[0] > 0 && ki->block[1] > 0 && ki->block[2] > 0)
                      {
                        double threads = (double) ki->block[0] * ki->block[1] * ki->block[2];
                        int warp = plane->warp_size > 0 ? plane->warp_size : 32;

                        gpu.warps_per_sm = (float) (blocks * ceil (threads / warp) / plane->core_count);
                      }
                  }
              }
            if (isnan (gpu.occupancy) && HAS (&es, SK_THEORETICAL_OCC))
              gpu.occupancy = (float) es.occupancy;
          }
      }
      break;
    case LINE_ANNOTATION:
    case LINE_COUNTERS:
    default:
      init.cat = reader->cat_annotation;
      break;
    }

  if (lane == G_MAXUINT)
    {
      lane = line_lane (ctx, plane, line);
      sink = line->sink;
    }
  if (lane == G_MAXUINT)
    {
      ctx->skipped++;
      return;
    }
  if (with_gpu)
    {
      init.gpu_id = shared_gpu_info (ctx, &gpu);
      if (gce != NULL && init.gpu_id != 0)
        {
          *gce = gpu_key;
          gce->id = init.gpu_id;
        }
    }
  ref = cp_lane_sink_add_slice (sink, lane, &init, &ctx->sink);
  if (ref.lane == G_MAXUINT32)
    return;

  /* Flows. */
  if (HAS (&es, SK_CORRELATION_ID) && es.v[SK_CORRELATION_ID] != CP_NONE)
    {
      if (device_side)
        link_point (ctx, &line->link, &line->link_lane, ref.lane, sink, FALSE, plane->ordinal);
      else if (line->klass == LINE_HOST)
        {
          gint32 device = -1;

          if (HAS (&es, SK_DEVICE_ID))
            {
              for (guint i = 0; i < space->gpu_planes->len; i++)
                if (g_array_index (space->gpu_planes, gint64, i) == es.v[SK_DEVICE_ID])
                  device = (gint32) es.v[SK_DEVICE_ID] + space->device_offset;
            }
          link_point (ctx, &line->link, &line->link_lane, ref.lane, sink, TRUE, device);
        }
    }
  if (HAS (&es, SK_P))
    {
      PcPoint p = { HAS (&es, SK_PT) ? es.v[SK_PT] : 0, es.v[SK_P], start, ref };

      g_array_append_val (out_array (&ctx_out (ctx)->producers, sizeof (PcPoint)), p);
    }
  if (HAS (&es, SK_C))
    {
      PcPoint p = { HAS (&es, SK_CT) ? es.v[SK_CT] : 0, es.v[SK_C], start, ref };

      g_array_append_val (out_array (&ctx_out (ctx)->consumers, sizeof (PcPoint)), p);
    }
  if (HAS (&es, SK_FLOW))
    {
      guint64 bits = (guint64) es.v[SK_FLOW];
      guint dir = bits & 3;
      FlowPoint fp;

      if (dir != 0)
        {
          fp.key = bits >> 2;
          fp.order = dir == 2 ? 0 : dir == 3 ? 1 : 2;
          fp.start = start;
          fp.ref = ref;
          fp.category = (guint8) (bits >> 58);
          g_array_append_val (out_array (&ctx_out (ctx)->flow_points, sizeof (FlowPoint)), fp);
        }
    }

  /* Steps (the device whose steps count is chosen when lines are merged). */
  if (line->is_steps)
    {
      gint64 number = 0;
      gboolean ok = FALSE;

      LineOut *out = ctx_out (ctx);

      out->steps_ordinal = plane->ordinal;
      if (HAS (&es, SK_STEP_NUM))
        number = es.v[SK_STEP_NUM], ok = TRUE;
      else if (HAS (&es, SK_GROUP_ID))
        number = es.v[SK_GROUP_ID], ok = TRUE;
      else
        {
          g_autofree char *s = NULL;

          g_rec_mutex_lock (&space->lock);
          s = g_strdup (cp_trace_builder_get_string (reader->builder, name));
          g_rec_mutex_unlock (&space->lock);
          number = parse_int (s, s + strlen (s), &ok);
        }
      add_step_candidate (out_array (&out->device_steps, sizeof (StepCand)), ok ? number : 0, !ok,
                          start, end, ref);
    }
  else if (HAS (&es, SK_R) && line->klass == LINE_HOST)
    {
      gboolean by_position = !HAS (&es, SK_STEP_NUM) && !HAS (&es, SK_ITER_NUM) &&
                             !HAS (&es, SK_GROUP_ID);
      gint64 number = HAS (&es, SK_STEP_NUM) ? es.v[SK_STEP_NUM]
                    : HAS (&es, SK_ITER_NUM) ? es.v[SK_ITER_NUM]
                    : HAS (&es, SK_GROUP_ID) ? es.v[SK_GROUP_ID]
                    : 0;

      add_step_candidate (out_array (&ctx_out (ctx)->root_steps, sizeof (StepCand)), number, by_position,
                          start, end, ref);
    }
  if (HAS (&es, SK_GROUP_ID))
    {
      gint64 g = es.v[SK_GROUP_ID];
      LineOut *out = ctx_out (ctx);
      StepCand *c;

      if (out->group_spans == NULL)
        out->group_spans = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
      if (out->have_group && out->last_group == g)
        c = out->last_group_span;
      else
        c = g_hash_table_lookup (out->group_spans, &g);

      if (c == NULL)
        {
          c = g_new0 (StepCand, 1);
          c->number = g;
          c->start = start;
          c->end = end;
          c->marker = CP_SLICE_REF_NONE;
          g_hash_table_insert (out->group_spans, &c->number, c);
        }
      else
        {
          c->start = MIN (c->start, start);
          c->end = MAX (c->end, end);
        }
      out->have_group = TRUE;
      out->last_group = g;
      out->last_group_span = c;
    }
}

static LineClass
classify_line (Plane *plane,
               Line  *line)
{
  if (bytes_equal (line->name, line->name_len, "_counters_"))
    return LINE_COUNTERS;
  switch (plane->klass)
    {
    case PLANE_HOST:
    case PLANE_OTHER_HOST:
      return LINE_HOST;
    case PLANE_GPU:
      if (line->id >= DERIVED_LINE_ID || is_ml_line_name (line->name, line->name_len) ||
          bytes_equal (line->name, line->name_len, "CUPTI overhead"))
        return LINE_ANNOTATION;
      return LINE_KERNEL;
    case PLANE_TPU:
    case PLANE_CUSTOM:
      return is_op_line_name (line->name, line->name_len) ? LINE_KERNEL : LINE_ANNOTATION;
    case PLANE_OTHER:
    case PLANE_BOOKKEEPING:
    default:
      return LINE_ANNOTATION;
    }
}

/* The header of an XLine in the usual form; FALSE sends the line to the
 * careful path. */
static gboolean
scan_line_fast (Space        *space,
                const guint8 *p,
                const guint8 *end,
                Line         *line)
{
  const guint8 *dropped = p;
  const guint8 *limit = space->data + space->len;
  CpPbError err;

  while (p < end)
    {
      guint64 tag, v;

      /* The events are read again after this pass: a mapped file's pages
       * can go now and come back then, so that a long line never has to be
       * in memory whole. */
      if (G_UNLIKELY (space->drop != NULL && p - dropped >= PROGRESS_STEP))
        {
          space->drop ((guint64) (dropped - space->data), (guint64) (p - space->data),
                       space->release_data);
          dropped = p;
        }

      if (!cp_pb_read_varint_within (&p, end, limit, &tag, &err) ||
          !cp_pb_read_varint_within (&p, end, limit, &v, &err))
        return FALSE;
      switch (tag)
        {
        case (XLINE_EVENTS << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          p += v;
          line->n_events++;
          break;
        case (XLINE_ID << 3) | CP_PB_WIRE_VARINT:
          line->id = (gint64) v;
          break;
        case (XLINE_DISPLAY_ID << 3) | CP_PB_WIRE_VARINT:
          line->display_id = (gint64) v;
          break;
        case (XLINE_TIMESTAMP_NS << 3) | CP_PB_WIRE_VARINT:
          line->timestamp_ns = (gint64) v;
          break;
        case (XLINE_DURATION_PS << 3) | CP_PB_WIRE_VARINT:
          break;
        case (XLINE_NAME << 3) | CP_PB_WIRE_LEN:
        case (XLINE_DISPLAY_NAME << 3) | CP_PB_WIRE_LEN:
          if (v > (guint64) (end - p))
            return FALSE;
          if (tag >> 3 == XLINE_NAME)
            {
              line->name = p;
              line->name_len = (gsize) v;
            }
          else
            {
              line->display_name = p;
              line->display_name_len = (gsize) v;
            }
          p += v;
          break;
        default:
          return FALSE;
        }
    }
  return TRUE;
}

/* A line whose events are to be read: lines that fill the same lanes form a
 * group, read in file order by one thread; groups are read by as many
 * threads as there are cores. Lines of fewer than BIG_LINE events go to one
 * group together (unless they share lanes with a big line), read in file
 * order: a capture of many small lines costs no more than its spans. */
#define BIG_LINE 16384
#define READ_MAX_THREADS   8

static guint big_line_events = BIG_LINE;   /* see _cp_xplane_set_threads() */
static guint read_threads;

typedef struct
{
  Plane    *plane;
  guint     index;     /* in plane->lines */
  guint     seq;       /* among the space's lines */
  Line     *line;      /* its header, read when queued (big lines), or NULL */
  gboolean  fast;
} TaskLine;

typedef struct
{
  GArray     *lines;   /* of TaskLine, in file order */
  guint64     n_events;
  GHashTable *links;   /* builder lane + 1 -> LinkLane* */
} Group;

static void
group_free (gpointer data)
{
  Group *g = data;

  for (guint i = 0; i < g->lines->len; i++)
    g_free (g_array_index (g->lines, TaskLine, i).line);
  g_array_unref (g->lines);
  g_hash_table_unref (g->links);
  g_free (g);
}

static Group *
group_new (Space *space)
{
  Group *g = g_new0 (Group, 1);

  g->lines = g_array_new (FALSE, FALSE, sizeof (TaskLine));
  g->links = g_hash_table_new (NULL, NULL);
  g_ptr_array_add (space->group_list, g);
  return g;
}

/* A line's header as scan_line_fast() reads it, ahead of line_header(). */
typedef struct
{
  gboolean      done;
  gboolean      fast;
  gint64        id;
  gint64        display_id;
  gint64        timestamp_ns;
  const guint8 *name;
  gsize         name_len;
  const guint8 *display_name;
  gsize         display_name_len;
  guint64       n_events;
} LineHead;

/* Reads a line's header into line; first: the first time (errors and the
 * epoch are noted then); head: its fields already scanned, or NULL. Returns
 * whether the line is in the usual form. */
static gboolean
line_header (Plane          *plane,
             const Span     *span,
             Line           *line_out,
             gboolean        first,
             const LineHead *head)
{
  Space *space = plane->space;
  CpXPlaneReader *reader = space->reader;
  CpPbReader r;
  CpPbField f;
  Line line = { 0 };
  gboolean fast;

  line.name = (const guint8 *) "";
  line.display_name = (const guint8 *) "";
  if (head != NULL && head->done)
    {
      fast = head->fast;
      if (fast)
        {
          line.id = head->id;
          line.display_id = head->display_id;
          line.timestamp_ns = head->timestamp_ns;
          line.name = head->name;
          line.name_len = head->name_len;
          line.display_name = head->display_name;
          line.display_name_len = head->display_name_len;
          line.n_events = head->n_events;
        }
    }
  else
    fast = !span->partial && scan_line_fast (space, span->data, span->data + span->len, &line);

  if (!fast)
    {
      /* Header fields first (display fields come after the events on the wire). */
      memset (&line, 0, sizeof line);
      line.name = (const guint8 *) "";
      line.display_name = (const guint8 *) "";
      reader_at (space, &r, span->data, span->len);
      while (cp_pb_reader_next (&r, &f))
        {
          switch (f.number)
            {
            case XLINE_ID:
              if (f.wire_type == CP_PB_WIRE_VARINT)
                line.id = cp_pb_int64 (f.value);
              break;
            case XLINE_DISPLAY_ID:
              if (f.wire_type == CP_PB_WIRE_VARINT)
                line.display_id = cp_pb_int64 (f.value);
              break;
            case XLINE_NAME:
              if (f.wire_type == CP_PB_WIRE_LEN)
                {
                  line.name = f.data;
                  line.name_len = f.len;
                }
              break;
            case XLINE_DISPLAY_NAME:
              if (f.wire_type == CP_PB_WIRE_LEN)
                {
                  line.display_name = f.data;
                  line.display_name_len = f.len;
                }
              break;
            case XLINE_TIMESTAMP_NS:
              if (f.wire_type == CP_PB_WIRE_VARINT)
                line.timestamp_ns = cp_pb_int64 (f.value);
              break;
            case XLINE_EVENTS:
              line.n_events++;
              break;
            default:
              break;
            }
        }
      if (r.error != CP_PB_OK)
        {
          g_autofree char *where = g_strdup_printf (_("plane “%s”"), plane->name);

          if (first)
            report_pb_error (space, &r, where);
        }
    }

  line.klass = classify_line (plane, &line);
  line.is_steps = is_steps_line_name (line.name, line.name_len) &&
                  (plane->klass == PLANE_GPU || plane->klass == PLANE_TPU || plane->klass == PLANE_CUSTOM);
  if (space->has_start && line.timestamp_ns < space->start_ns / 2)
    line.base = sat_add (space->start_ns, line.timestamp_ns);
  else
    {
      line.base = line.timestamp_ns;
      if (first && line.timestamp_ns >= G_GINT64_CONSTANT (1000000000000000000) &&
          !reader->any_epoch)
        {
          reader->any_epoch = TRUE;
          cp_trace_builder_set_epoch_base (reader->builder, line.timestamp_ns);
        }
    }

  *line_out = line;
  return fast;
}

typedef struct
{
  LineClass klass;
  gint64    key;
  guint64   n_events;
  Line     *line;       /* big lines */
  gboolean  fast;
} LineInfo;

/* The headers of a plane's lines are walked on several threads when the
 * plane is big and has not too many lines (LineHead is kept per line). */
#define HEAD_MAX_LINES  65536
#define HEAD_MIN_BYTES  (64u << 20)

typedef struct
{
  Plane    *plane;
  LineHead *heads;
  guint     n;
  gint      next;      /* atomic */
} HeadJob;

static gpointer
head_worker (gpointer data)
{
  HeadJob *job = data;
  Space *space = job->plane->space;

  for (;;)
    {
      gint i = g_atomic_int_add (&job->next, 1);
      const Span *span;
      LineHead *h;
      Line line = { 0 };

      if (i < 0 || (guint) i >= job->n || g_atomic_int_get (&space->stop))
        break;
      span = &g_array_index (job->plane->lines, Span, i);
      h = &job->heads[i];
      line.name = (const guint8 *) "";
      line.display_name = (const guint8 *) "";
      h->fast = !span->partial && scan_line_fast (space, span->data, span->data + span->len, &line);
      h->id = line.id;
      h->display_id = line.display_id;
      h->timestamp_ns = line.timestamp_ns;
      h->name = line.name;
      h->name_len = line.name_len;
      h->display_name = line.display_name;
      h->display_name_len = line.display_name_len;
      h->n_events = line.n_events;
      h->done = TRUE;
    }
  return NULL;
}

/* Scans the plane's line headers ahead on several threads, or returns NULL. */
static LineHead *
plane_scan_heads (Plane *plane)
{
  guint n = plane->lines->len, want = g_atomic_int_get (&read_threads), n_threads = 0;
  guint64 bytes = 0;
  GThread *threads[READ_MAX_THREADS];
  HeadJob job;

  for (guint i = 0; i < n; i++)
    bytes += g_array_index (plane->lines, Span, i).len;
  if (want == 0)
    want = bytes >= HEAD_MIN_BYTES ? (guint) g_get_num_processors () : 1;
  want = MIN (MIN (want, READ_MAX_THREADS), n);
  if (want < 2 || n > HEAD_MAX_LINES)
    return NULL;
  job.plane = plane;
  job.heads = g_new0 (LineHead, n);
  job.n = n;
  job.next = 0;
  for (guint t = 1; t < want; t++)
    {
      GThread *th = g_thread_try_new ("cp-xplane-head", head_worker, &job, NULL);

      if (th == NULL)
        break;
      threads[n_threads++] = th;
    }
  head_worker (&job);
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
  return job.heads;
}

/* Reads the headers of a plane's lines and queues their events. */
static void
plane_queue_lines (Plane *plane)
{
  Space *space = plane->space;
  guint n = plane->lines->len;
  g_autofree LineInfo *info = g_new0 (LineInfo, MAX (n, 1));
  g_autofree LineHead *heads = plane_scan_heads (plane);
  g_autoptr(GHashTable) big_keys = g_hash_table_new (g_int64_hash, g_int64_equal);
  Group *device_group = NULL;
  gboolean big_device = FALSE;
  guint big = g_atomic_int_get (&big_line_events);

  for (guint i = 0; i < n && !space->cancelled; i++)
    {
      const Span *ls = &g_array_index (plane->lines, Span, i);
      Line line;

      info[i].fast = line_header (plane, ls, &line, TRUE, heads != NULL ? &heads[i] : NULL);
      info[i].klass = line.klass;
      info[i].key = line.display_id != 0 ? line.display_id : line.id;
      info[i].n_events = line.n_events;
      if (line.n_events >= big)
        {
          info[i].line = g_memdup2 (&line, sizeof line);
          if (line.klass == LINE_HOST)
            g_hash_table_add (big_keys, &info[i].key);
          else
            big_device = TRUE;
        }
      if (!check_progress (space, ls->offset / HEADER_SHARE))
        break;
    }

  /* A host thread's line fills its own lane (lines with one display id
   * share it); the other lines of a plane share its copy and counter
   * lanes. The plane's process is made now, in plane order, whichever
   * thread reads its lines. */
  for (guint i = 0; i < n; i++)
    {
      TaskLine tl;
      Group *g;

      if (info[i].n_events == 0)
        {
          g_free (info[i].line);
          continue;
        }
      plane_process (plane);
      tl.plane = plane;
      tl.index = i;
      tl.seq = space->n_lines++;
      tl.line = info[i].line;
      tl.fast = info[i].fast;
      if (info[i].klass == LINE_HOST && g_hash_table_contains (big_keys, &info[i].key))
        {
          g = g_hash_table_lookup (space->groups, &info[i].key);
          if (g == NULL)
            {
              g = group_new (space);
              g_hash_table_insert (space->groups, g_memdup2 (&info[i].key, sizeof (gint64)), g);
            }
        }
      else if (info[i].klass != LINE_HOST && big_device)
        {
          if (device_group == NULL)
            device_group = group_new (space);
          g = device_group;
        }
      else
        {
          if (space->rest == NULL)
            space->rest = group_new (space);
          g = space->rest;
        }
      g_array_append_val (g->lines, tl);
      g->n_events += info[i].n_events;
    }
  /* Keys are per plane. */
  g_hash_table_remove_all (space->groups);
}

static guint64 space_done (Space *space);

/* Counts bytes of a line as read (for progress) and discards their pages.
 * Returns FALSE when reading stops. */
static gboolean
line_progress (Ctx          *ctx,
               const guint8 *p,
               const guint8 *from)
{
  Space *space = ctx->space;

  if (p > from)
    {
      if (space->discard != NULL)
        space->discard ((guint64) (from - space->data), (guint64) (p - space->data),
                        space->release_data);
      __atomic_fetch_add (&space->done, (guint64) (p - from), __ATOMIC_RELAXED);
    }
  if (ctx->main &&
      !check_progress (space, space->len / HEADER_SHARE +
                              space_done (space) / HEADER_SHARE * (HEADER_SHARE - 1)))
    g_atomic_int_set (&space->stop, TRUE);
  return !g_atomic_int_get (&space->stop);
}

/* Reads the events of a queued line. */
static void
line_read_events (Ctx      *ctx,
                  TaskLine *tl)
{
  Plane *plane = tl->plane;
  Space *space = plane->space;
  const Span *span = &g_array_index (plane->lines, Span, tl->index);
  Line local, *line = tl->line;
  CpPbReader r;
  CpPbField f;
  const guint8 *discarded = span->data;
  gboolean fast = tl->fast;

  if (line == NULL)
    {
      fast = line_header (plane, span, &local, FALSE, NULL);
      line = &local;
    }
  ctx->out = NULL;
  ctx->line_seq = tl->seq;
  ctx->link_sub = 0;
  ctx->unknown_stat_ids = 0;

  if (fast)
    {
      const guint8 *p = span->data, *end = span->data + span->len;
      const guint8 *limit = space->data + space->len;
      guint n = 0;

      while (p < end)
        {
          const guint8 *at = p;
          guint64 tag = 0, v = 0;
          CpPbError err;

          cp_pb_read_varint_within (&p, end, limit, &tag, &err);
          cp_pb_read_varint_within (&p, end, limit, &v, &err);
          if (tag == ((XLINE_EVENTS << 3) | CP_PB_WIRE_LEN))
            {
              read_event (ctx, plane, line, p, (gsize) v, (guint64) (at - space->data));
              p += v;
              if ((++n & 0xffff) == 0 && p - discarded >= PROGRESS_STEP)
                {
                  if (!line_progress (ctx, p, discarded))
                    break;
                  discarded = p;
                }
            }
          else if (tag == ((XLINE_NAME << 3) | CP_PB_WIRE_LEN) ||
                   tag == ((XLINE_DISPLAY_NAME << 3) | CP_PB_WIRE_LEN))
            p += v;
        }
    }
  else
    {
      reader_at (space, &r, span->data, span->len);
      while (cp_pb_reader_next (&r, &f))
        {
          if (f.number != XLINE_EVENTS || f.wire_type != CP_PB_WIRE_LEN)
            continue;
          read_event (ctx, plane, line, f.data, f.len, f.offset);
          if ((ctx->events & 0xffff) == 0 && !line_progress (ctx, f.data, f.data))
            break;
        }
    }
  line_progress (ctx, span->data + span->len, discarded);
  if (ctx->unknown_stat_ids > 0)
    __atomic_fetch_add (&plane->unknown_stat_ids, ctx->unknown_stat_ids, __ATOMIC_RELAXED);
  ctx->unknown_stat_ids = 0;
  ctx->out = NULL;
}

/* The line being read's results, made on first use. */
static LineOut *
ctx_out (Ctx *ctx)
{
  if (ctx->out == NULL)
    {
      ctx->out = g_new (LineOut, 1);
      line_out_init (ctx->out);
      /* Each line is read by one thread: its slot is its own. */
      g_ptr_array_index (ctx->space->outs, ctx->line_seq) = ctx->out;
    }
  return ctx->out;
}

/* Indexes a plane, reads its stats and queues its lines. */
static void
read_plane (Space      *space,
            const Span *span,
            guint       index)
{
  CpXPlaneReader *reader = space->reader;
  Plane plane = { 0 };
  Plane *kept;

  plane.space = space;
  plane.index = index;
  plane.offset = span->offset;
  if (!plane_index (space, span, &plane))
    {
      plane_clear (&plane);
      return;
    }
  plane.klass = classify_plane (plane.name, plane.id, &plane.ordinal, &plane.sparse_core);
  if (plane.ordinal >= 0)
    {
      plane.ordinal += space->device_offset;
      space->max_device = MAX (space->max_device, plane.ordinal);
    }

  if (plane.lines->len == 0 && (plane.klass == PLANE_GPU || plane.klass == PLANE_TPU))
    {
      /* A device without events: still a device of the capture. */
      plane_read_stats (&plane, NULL);
      plane_clear (&plane);
      return;
    }
  if (plane.klass == PLANE_BOOKKEEPING || plane.lines->len == 0)
    {
      g_autoptr(JsonBuilder) json = json_builder_new ();
      g_autoptr(JsonGenerator) gen = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      g_autofree char *key = NULL;

      if (plane.stats->len == 0 && plane.event_meta->len == 0)
        {
          plane_clear (&plane);
          return;
        }
      json_builder_begin_object (json);
      plane_read_stats (&plane, json);
      if (plane.event_meta->len > 0)
        {
          json_builder_set_member_name (json, "event_metadata");
          json_builder_begin_array (json);
          for (guint i = 0; i < MIN (plane.event_meta->len, MAX_METADATA_NAMES); i++)
            {
              const EventMeta *m = &g_array_index (plane.event_meta, EventMeta, i);
              g_autofree char *t = g_utf8_make_valid ((const char *) m->raw,
                                                      (gssize) MIN (m->raw_len, MAX_METADATA_STRING));

              json_builder_add_string_value (json, t);
            }
          json_builder_end_array (json);
        }
      json_builder_end_object (json);
      root = json_builder_get_root (json);
      json_generator_set_root (gen, root);
      text = json_generator_to_data (gen, NULL);
      if (reader->n_spaces > 1 || space->host > 0)
        key = g_strdup_printf ("%s %s", space->hostname ? space->hostname : "", plane.name);
      else
        key = g_strdup (plane.name);
      cp_trace_builder_add_metadata (reader->builder, key, text, -1);
      plane_clear (&plane);
      return;
    }

  plane_read_stats (&plane, NULL);
  if ((plane.klass == PLANE_GPU || plane.klass == PLANE_TPU) && !plane.sparse_core)
    plane.warp_size = cp_trace_builder_device (reader->builder, plane.ordinal)->warp_size;
  kept = g_memdup2 (&plane, sizeof plane);
  g_ptr_array_add (space->planes, kept);
  plane_queue_lines (kept);
}

static void plane_done (Plane *plane);

/* Reading the lines: each thread takes the next group (the biggest first)
 * and reads its lines in order; the main thread also reports progress and
 * watches for cancellation. */
#define READ_MIN_PARALLEL  (1u << 20)   /* events: below, one thread */

void
_cp_xplane_set_threads (guint n_threads,
                        guint big_line)
{
  g_atomic_int_set (&read_threads, n_threads);
  g_atomic_int_set (&big_line_events, big_line != 0 ? big_line : BIG_LINE);
}

typedef struct
{
  Space    *space;
  guint    *order;       /* group indexes, biggest first */
  guint     n_groups;
  gint      next;        /* atomic */
  gint      running;     /* threads still reading (under lock) */
  GMutex    lock;
  GCond     cond;
  Ctx       totals;      /* the threads' counts, added up (under lock) */
} ReadJob;

static void
ctx_init (Ctx   *ctx,
          Space *space)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->space = space;
  cp_sink_stats_init (&ctx->sink);
}

/* Adds a thread's counts to the totals and frees its scratch. */
static void
ctx_finish (Ctx *ctx,
            Ctx *totals)
{
  totals->events += ctx->events;
  totals->aggregated += ctx->aggregated;
  totals->skipped += ctx->skipped;
  totals->unknown_metadata += ctx->unknown_metadata;
  totals->any_event |= ctx->any_event;
  cp_sink_stats_add (&totals->sink, &ctx->sink);
  g_free (ctx->pack.data);
  g_free (ctx->last_pack.data);
}

static guint64
space_done (Space *space)
{
  return __atomic_load_n (&space->done, __ATOMIC_RELAXED);
}

static void
read_groups (ReadJob *job,
             Ctx     *ctx)
{
  Space *space = job->space;

  for (;;)
    {
      gint at = g_atomic_int_add (&job->next, 1);
      Group *g;

      if (at < 0 || (guint) at >= job->n_groups || g_atomic_int_get (&space->stop))
        break;
      g = g_ptr_array_index (space->group_list, job->order[at]);
      ctx->links = g->links;
      for (guint i = 0; i < g->lines->len && !g_atomic_int_get (&space->stop); i++)
        line_read_events (ctx, &g_array_index (g->lines, TaskLine, i));
    }
}

static gpointer
read_worker (gpointer data)
{
  ReadJob *job = data;
  Ctx ctx;

  ctx_init (&ctx, job->space);
  read_groups (job, &ctx);
  g_mutex_lock (&job->lock);
  ctx_finish (&ctx, &job->totals);
  job->running--;
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
  return NULL;
}

static gint
cmp_group_size (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  GPtrArray *groups = user_data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  const Group *x = g_ptr_array_index (groups, i), *y = g_ptr_array_index (groups, j);

  if (x->n_events != y->n_events)
    return x->n_events > y->n_events ? -1 : 1;
  return i < j ? -1 : (i > j);
}

static gint
cmp_link_lane (gconstpointer a,
               gconstpointer b)
{
  const LinkLane *x = *(LinkLane * const *) a, *y = *(LinkLane * const *) b;

  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return x->sub < y->sub ? -1 : (x->sub > y->sub);
}

/* Reads every queued line, merges their results in file order, and makes
 * the space's link lanes in the order their lines started them. */
static void
space_read_lines (Space *space)
{
  CpXPlaneReader *reader = space->reader;
  CpLoadReport *report = reader->report;
  ReadJob job;
  Ctx ctx;
  g_autofree guint *order = g_new (guint, MAX (space->group_list->len, 1));
  g_autoptr(GPtrArray) links = g_ptr_array_new ();
  guint64 total = 0;
  guint want = g_atomic_int_get (&read_threads), n_threads = 0;
  GThread *threads[READ_MAX_THREADS];

  for (guint i = 0; i < space->group_list->len; i++)
    {
      order[i] = i;
      total += ((Group *) g_ptr_array_index (space->group_list, i))->n_events;
    }
  g_qsort_with_data (order, space->group_list->len, sizeof (guint), cmp_group_size,
                     space->group_list);
  space->outs = g_ptr_array_new ();
  g_ptr_array_set_size (space->outs, space->n_lines);

  memset (&job, 0, sizeof job);
  job.space = space;
  job.order = order;
  job.n_groups = space->group_list->len;
  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  ctx_init (&job.totals, space);
  if (want == 0)
    want = total >= READ_MIN_PARALLEL ? (guint) g_get_num_processors () : 1;
  want = MIN (MIN (want, READ_MAX_THREADS), MAX (job.n_groups, 1));

  for (guint t = 1; t < want && !space->cancelled; t++)
    {
      GThread *th;

      g_mutex_lock (&job.lock);
      job.running++;
      g_mutex_unlock (&job.lock);
      th = g_thread_try_new ("cp-xplane-read", read_worker, &job, NULL);
      if (th == NULL)
        {
          /* Fewer threads: the others take more groups. */
          g_mutex_lock (&job.lock);
          job.running--;
          g_mutex_unlock (&job.lock);
          break;
        }
      threads[n_threads++] = th;
    }

  ctx_init (&ctx, space);
  ctx.main = TRUE;
  if (!space->cancelled)
    read_groups (&job, &ctx);
  /* Until the others are done: progress and cancellation. */
  g_mutex_lock (&job.lock);
  ctx_finish (&ctx, &job.totals);
  while (job.running > 0)
    {
      g_cond_wait_until (&job.cond, &job.lock, g_get_monotonic_time () + G_TIME_SPAN_SECOND / 10);
      g_mutex_unlock (&job.lock);
      if (!check_progress (space, space->len / HEADER_SHARE +
                                  space_done (space) / HEADER_SHARE * (HEADER_SHARE - 1)))
        g_atomic_int_set (&space->stop, TRUE);
      g_mutex_lock (&job.lock);
    }
  g_mutex_unlock (&job.lock);
  for (guint t = 0; t < n_threads; t++)
    g_thread_join (threads[t]);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
  if (g_atomic_int_get (&space->stop))
    space->cancelled = TRUE;

  /* Counts, then results in file order. */
  report->events += job.totals.events;
  report->aggregated += job.totals.aggregated;
  report->skipped += job.totals.skipped;
  space->unknown_metadata += job.totals.unknown_metadata;
  space->any_event |= job.totals.any_event;
  cp_trace_builder_merge_sink_stats (reader->builder, &job.totals.sink);
  for (guint i = 0; i < space->outs->len; i++)
    if (g_ptr_array_index (space->outs, i) != NULL)
      {
        line_out_merge (space, g_ptr_array_index (space->outs, i));
        g_ptr_array_index (space->outs, i) = NULL;
      }
  for (guint i = 0; i < space->group_list->len; i++)
    {
      GHashTableIter iter;
      gpointer v;

      g_hash_table_iter_init (&iter, ((Group *) g_ptr_array_index (space->group_list, i))->links);
      while (g_hash_table_iter_next (&iter, NULL, &v))
        g_ptr_array_add (links, v);
    }
  g_ptr_array_sort (links, cmp_link_lane);
  for (guint i = 0; i < links->len; i++)
    {
      LinkLane *ll = g_ptr_array_index (links, i);

      g_array_append_val (space->link_lanes, *ll);
      g_free (ll);
    }
  g_ptr_array_set_size (space->group_list, 0);
  space->rest = NULL;
  for (guint i = 0; i < space->planes->len; i++)
    plane_done (g_ptr_array_index (space->planes, i));
  g_ptr_array_set_size (space->planes, 0);
  if (space->release != NULL && space->len > 0)
    space->release (space->len, space->release_data);
}

/* After its lines are read and merged. */
static void
plane_done (Plane *plane)
{
  CpXPlaneReader *reader = plane->space->reader;

  if (plane->unknown_stat_ids > 0)
    cp_load_report_warn (reader->report, plane->offset,
                         _("Plane “%s”: %" PRIu64 " stats refer to unknown stat "
                           "metadata and were left out"),
                         plane->name, plane->unknown_stat_ids);
  if (plane->partial && plane->event_meta->len == 0 && plane->n_lanes > 0)
    cp_load_report_warn (reader->report, plane->offset,
                         _("Plane “%s” was cut off before its event names; its events have no "
                           "names"),
                         plane->name);
  plane_clear (plane);
  g_free (plane);
}

/* ------------------------------------------------------------------------ */
/* Linking                                                                   */

static gint
cmp_corr (gconstpointer a,
          gconstpointer b,
          gpointer      user_data)
{
  const CorrPoint *x = a, *y = b;

  if (x->corr != y->corr)
    return x->corr < y->corr ? -1 : 1;
  return 0;
}

static gint
cmp_pc (gconstpointer a,
        gconstpointer b)
{
  const PcPoint *x = a, *y = b;

  if (x->type != y->type)
    return x->type < y->type ? -1 : 1;
  if (x->id != y->id)
    return x->id < y->id ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return 0;
}

static gint
cmp_flow_point (gconstpointer a,
                gconstpointer b)
{
  const FlowPoint *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return 0;
}

/* Sorts by correlation id, stably. Ids are usually dense counters: a
 * counting sort then, a comparison sort otherwise. */
static void
corr_sort (CorrVec *vec)
{
  gint64 lo = G_MAXINT64, hi = G_MININT64;
  gboolean sorted = TRUE;
  guint64 range;

  for (gsize i = 0; i < vec->n; i++)
    {
      lo = MIN (lo, vec->v[i].corr);
      hi = MAX (hi, vec->v[i].corr);
      if (i > 0 && vec->v[i].corr < vec->v[i - 1].corr)
        sorted = FALSE;
    }
  if (sorted || vec->n < 2)
    return;
  range = (guint64) hi - (guint64) lo;
  if (range < (guint64) vec->n * 4 + 1024)
    {
      g_autofree guint32 *count = g_new0 (guint32, range + 2);
      g_autofree CorrPoint *out = g_new (CorrPoint, vec->n);

      for (gsize i = 0; i < vec->n; i++)
        count[(guint64) vec->v[i].corr - (guint64) lo + 1]++;
      for (guint64 k = 1; k <= range + 1; k++)
        count[k] += count[k - 1];
      for (gsize i = 0; i < vec->n; i++)
        out[count[(guint64) vec->v[i].corr - (guint64) lo]++] = vec->v[i];
      memcpy (vec->v, out, sizeof (CorrPoint) * vec->n);
    }
  else
    g_qsort_with_data (vec->v, (gint) MIN (vec->n, (gsize) G_MAXINT), sizeof (CorrPoint),
                       cmp_corr, NULL);
}

/* The correlation points of one LinkLane, read back from the builder's
 * column in insertion order. */
typedef struct
{
  const guint64  *present;
  const guint32  *v32;
  const gint64   *v64;
  const LinkLane *ll;
  guint           order;  /* ties between lanes */
  guint           k;      /* the value, from ll->from on */
  guint           end;
  guint           word;
  guint64         bits;   /* set bits of present[word] after the current one */
  guint           index;  /* the slice of value k */
  gint64          value;
} Cursor;

static inline void
cursor_load (Cursor *c)
{
  c->index = c->word * 64 + (guint) __builtin_ctzll (c->bits);
  c->bits &= c->bits - 1;
  c->value = c->v32 != NULL ? (gint64) c->v32[c->k] : c->v64[c->k];
}

/* FALSE when the lane has no point. */
static gboolean
cursor_init (Cursor         *c,
             CpTraceBuilder *builder,
             const LinkLane *ll,
             guint           order)
{
  guint n_values, skip = ll->from;

  cp_trace_builder_peek_corr (builder, ll->lane, &c->present, &c->v32, &c->v64, &n_values);
  c->ll = ll;
  c->order = order;
  c->k = ll->from;
  c->end = (guint) MIN ((guint64) ll->from + ll->n, (guint64) n_values);
  if (c->k >= c->end || c->present == NULL)
    return FALSE;
  /* The word holding set bit number `from`. */
  c->word = 0;
  for (;;)
    {
      guint in_word = (guint) __builtin_popcountll (c->present[c->word]);

      if (skip < in_word)
        break;
      skip -= in_word;
      c->word++;
    }
  c->bits = c->present[c->word];
  while (skip-- > 0)
    c->bits &= c->bits - 1;
  cursor_load (c);
  return TRUE;
}

/* FALSE past the last point. */
static inline gboolean
cursor_next (Cursor *c)
{
  if (++c->k >= c->end)
    return FALSE;
  while (c->bits == 0)
    c->bits = c->present[++c->word];
  cursor_load (c);
  return TRUE;
}

static inline gint32
cursor_device (const Cursor *c)
{
  return c->ll->devices != NULL ? g_array_index (c->ll->devices, gint32, c->k - c->ll->from)
                                : c->ll->device;
}

static inline gboolean
cursor_before (const Cursor *a,
               const Cursor *b)
{
  return a->value != b->value ? a->value < b->value : a->order < b->order;
}

/* A binary heap of cursors, the one with the lowest (value, order) first. */
static void
heap_down (Cursor **heap,
           guint    n,
           guint    i)
{
  for (;;)
    {
      guint l = 2 * i + 1, best = i;
      Cursor *t;

      if (l < n && cursor_before (heap[l], heap[best]))
        best = l;
      if (l + 1 < n && cursor_before (heap[l + 1], heap[best]))
        best = l + 1;
      if (best == i)
        return;
      t = heap[i];
      heap[i] = heap[best];
      heap[best] = t;
      i = best;
    }
}

/* Moves the first cursor of the heap to its next point; returns the new size. */
static inline guint
heap_advance (Cursor **heap,
              guint    n)
{
  if (!cursor_next (heap[0]))
    heap[0] = heap[--n];
  if (n > 0)
    heap_down (heap, n, 0);
  return n;
}

typedef struct
{
  CpSliceRef ref;
  gint32     device;
} HostPoint;

/* Launches: host -> device by correlation id (and device when both are
 * known). Each activity links to the first launch with its id, in id order
 * then lane order. The ids of a lane nearly always grow (a thread launches,
 * a stream runs, in order): the lanes are then merged as they are; otherwise
 * their points are gathered and sorted. */
static void
link_launches (Space *space)
{
  CpXPlaneReader *reader = space->reader;
  guint n_lanes = space->link_lanes->len;
  g_autofree Cursor *cursors = g_new0 (Cursor, MAX (n_lanes, 1));
  g_autofree Cursor **host = g_new (Cursor *, MAX (n_lanes, 1));
  g_autofree Cursor **dev = g_new (Cursor *, MAX (n_lanes, 1));
  g_autofree HostPoint *group = NULL;
  guint n_group = 0, group_cap = 0;
  guint n_host = 0, n_dev = 0;
  gboolean sorted = TRUE, have_group = FALSE;
  gint64 group_value = 0;

  for (guint i = 0; i < n_lanes; i++)
    {
      const LinkLane *ll = &g_array_index (space->link_lanes, LinkLane, i);
      Cursor probe;

      if (!cursor_init (&cursors[i], reader->builder, ll, i))
        continue;
      probe = cursors[i];
      for (gint64 last = probe.value; sorted && cursor_next (&probe); last = probe.value)
        sorted = probe.value >= last;
      if (ll->host)
        host[n_host++] = &cursors[i];
      else
        dev[n_dev++] = &cursors[i];
    }

  if (!sorted)
    {
      /* Gather, sort by id (stably), then walk both lists. */
      CorrVec hv = { 0 }, dv = { 0 };
      gsize h = 0;

      for (guint i = 0; i < n_host + n_dev; i++)
        {
          Cursor *c = i < n_host ? host[i] : dev[i - n_host];

          do
            {
              CorrPoint p = { c->value, cursor_device (c), { c->ll->lane, c->index } };

              corr_push (i < n_host ? &hv : &dv, &p);
            }
          while (cursor_next (c));
        }
      corr_sort (&hv);
      corr_sort (&dv);
      for (gsize d = 0; d < dv.n; d++)
        {
          const CorrPoint *dp = &dv.v[d];

          while (h < hv.n && hv.v[h].corr < dp->corr)
            h++;
          for (gsize k = h; k < hv.n && hv.v[k].corr == dp->corr; k++)
            {
              const CorrPoint *hp = &hv.v[k];

              if (hp->device < 0 || dp->device < 0 || hp->device == dp->device)
                {
                  cp_trace_builder_add_flow (reader->builder, hp->ref, dp->ref, CP_FLOW_LAUNCH,
                                             reader->flow_correlation);
                  break;
                }
            }
        }
      g_free (hv.v);
      g_free (dv.v);
      return;
    }

  for (guint i = n_host / 2; i-- > 0;)
    heap_down (host, n_host, i);
  for (guint i = n_dev / 2; i-- > 0;)
    heap_down (dev, n_dev, i);
  while (n_dev > 0)
    {
      Cursor *d = dev[0];
      gint32 device = cursor_device (d);

      if (!have_group || group_value != d->value)
        {
          /* The launches with this id. */
          group_value = d->value;
          have_group = TRUE;
          n_group = 0;
          while (n_host > 0 && host[0]->value < group_value)
            n_host = heap_advance (host, n_host);
          while (n_host > 0 && host[0]->value == group_value)
            {
              if (n_group == group_cap)
                {
                  group_cap = MAX (16, 2 * group_cap);
                  group = g_renew (HostPoint, group, group_cap);
                }
              group[n_group].ref = (CpSliceRef) { host[0]->ll->lane, host[0]->index };
              group[n_group].device = cursor_device (host[0]);
              n_group++;
              n_host = heap_advance (host, n_host);
            }
        }
      for (guint k = 0; k < n_group; k++)
        {
          const HostPoint *hp = &group[k];

          if (hp->device < 0 || device < 0 || hp->device == device)
            {
              cp_trace_builder_add_flow (reader->builder, hp->ref,
                                         (CpSliceRef) { d->ll->lane, d->index },
                                         CP_FLOW_LAUNCH, reader->flow_correlation);
              break;
            }
        }
      n_dev = heap_advance (dev, n_dev);
    }
}

static gpointer
sort_pc_points (gpointer data)
{
  Space *space = data;

  g_array_sort (space->producers, cmp_pc);
  g_array_sort (space->consumers, cmp_pc);
  return NULL;
}

static void
space_link (Space *space)
{
  CpXPlaneReader *reader = space->reader;
  GThread *sorter = NULL;
  gsize h = 0;

  /* The producer and consumer points are sorted on a second thread while
   * launches are linked (they share nothing). */
  if (space->producers->len + space->consumers->len >= 100000 && g_get_num_processors () > 1)
    sorter = g_thread_try_new ("cp-xplane-link", sort_pc_points, space, NULL);
  link_launches (space);
  if (sorter != NULL)
    g_thread_join (sorter);
  else
    sort_pc_points (space);

  /* Producer -> consumer. */
  h = 0;
  for (guint c = 0; c < space->consumers->len; c++)
    {
      const PcPoint *cp = &g_array_index (space->consumers, PcPoint, c);
      const PcPoint *match = NULL;

      while (h < space->producers->len && cmp_pc (&(PcPoint) { cp->type, cp->id, G_MININT64, { 0, 0 } },
                                                   &g_array_index (space->producers, PcPoint, h)) > 0)
        h++;
      for (guint k = h; k < space->producers->len; k++)
        {
          const PcPoint *pp = &g_array_index (space->producers, PcPoint, k);

          if (pp->type != cp->type || pp->id != cp->id)
            break;
          /* The latest producer that starts no later than the consumer, else the first. */
          if (match == NULL || pp->start <= cp->start)
            match = pp;
        }
      if (match != NULL && (match->ref.lane != cp->ref.lane || match->ref.index != cp->ref.index))
        cp_trace_builder_add_flow (reader->builder, match->ref, cp->ref, CP_FLOW_PRODUCER,
                                   reader->flow_producer);
    }

  /* "flow" stats: out -> inout -> in, per id. */
  g_array_sort (space->flow_points, cmp_flow_point);
  for (guint i = 1; i < space->flow_points->len; i++)
    {
      const FlowPoint *a = &g_array_index (space->flow_points, FlowPoint, i - 1);
      const FlowPoint *b = &g_array_index (space->flow_points, FlowPoint, i);

      if (a->key != b->key || (a->ref.lane == b->ref.lane && a->ref.index == b->ref.index))
        continue;
      cp_trace_builder_add_flow (reader->builder, a->ref, b->ref,
                                 a->category == 9 ? CP_FLOW_LAUNCH : CP_FLOW_GENERIC,
                                 reader->flow_generic);
    }

  /* Steps: every space (host) its own; the analysis joins them. */
    {
      if (space->device_steps->len > 0)
        g_array_append_vals (reader->steps, space->device_steps->data, space->device_steps->len);
      else if (space->root_steps->len > 0)
        g_array_append_vals (reader->steps, space->root_steps->data, space->root_steps->len);
      else if (g_hash_table_size (space->group_spans) > 0)
        {
          GHashTableIter iter;
          gpointer v;

          g_hash_table_iter_init (&iter, space->group_spans);
          while (g_hash_table_iter_next (&iter, NULL, &v))
            g_array_append_val (reader->steps, *(StepCand *) v);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Spaces                                                                    */

CpXPlaneReader *
cp_xplane_reader_new (CpTraceBuilder *builder)
{
  CpXPlaneReader *self;

  g_return_val_if_fail (builder != NULL, NULL);

  self = g_new0 (CpXPlaneReader, 1);
  self->builder = builder;
  self->report = cp_trace_builder_get_report (builder);
  self->cat_kernel = cp_trace_builder_intern (builder, "kernel", -1);
  self->cat_memcpy = cp_trace_builder_intern (builder, "gpu_memcpy", -1);
  self->cat_memset = cp_trace_builder_intern (builder, "gpu_memset", -1);
  self->cat_annotation = cp_trace_builder_intern (builder, "gpu_user_annotation", -1);
  self->cat_runtime = cp_trace_builder_intern (builder, "cuda_runtime", -1);
  self->cat_cpu_op = cp_trace_builder_intern (builder, "cpu_op", -1);
  self->key_long_name = cp_trace_builder_intern (builder, "long_name", -1);
  self->flow_correlation = cp_trace_builder_intern (builder, "correlation", -1);
  self->flow_producer = cp_trace_builder_intern (builder, "producer", -1);
  self->flow_generic = cp_trace_builder_intern (builder, "flow", -1);

  self->steps = g_array_new (FALSE, FALSE, sizeof (StepCand));
  self->pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->pid_next = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  self->gpu_copies = g_array_new (FALSE, FALSE, sizeof (CpGpuInfo));
  self->gpu_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* Correlation ids repeat across hosts: links are made per space here. */
  cp_trace_builder_set_link_correlations (builder, FALSE);
  return self;
}

void
cp_xplane_reader_free (CpXPlaneReader *self)
{
  if (self == NULL)
    return;
  g_free (self->pack.data);
  g_array_unref (self->steps);
  g_hash_table_unref (self->pids);
  g_hash_table_unref (self->pid_next);
  g_array_unref (self->gpu_copies);
  g_array_unref (self->gpu_ids);
  g_free (self->args_dedup.hashes);
  g_free (self->args_dedup.ids);
  g_free (self->gpu_dedup.hashes);
  g_free (self->gpu_dedup.ids);
  g_free (self);
}

static void
space_clear (Space *space)
{
  if (space->planes != NULL)
    {
      /* Left when reading stopped early. */
      for (guint i = 0; i < space->planes->len; i++)
        plane_done (g_ptr_array_index (space->planes, i));
      g_ptr_array_unref (space->planes);
      space->planes = NULL;
    }
  g_clear_pointer (&space->outs, g_ptr_array_unref);
  g_clear_pointer (&space->groups, g_hash_table_unref);
  g_clear_pointer (&space->group_list, g_ptr_array_unref);
  g_rec_mutex_clear (&space->lock);
  g_free (space->hostname);
  g_clear_pointer (&space->gpu_planes, g_array_unref);
  if (space->link_lanes != NULL)
    for (guint i = 0; i < space->link_lanes->len; i++)
      g_clear_pointer (&g_array_index (space->link_lanes, LinkLane, i).devices, g_array_unref);
  g_clear_pointer (&space->link_lanes, g_array_unref);
  g_clear_pointer (&space->link_slot, g_array_unref);
  g_clear_pointer (&space->producers, g_array_unref);
  g_clear_pointer (&space->consumers, g_array_unref);
  g_clear_pointer (&space->flow_points, g_array_unref);
  g_clear_pointer (&space->device_steps, g_array_unref);
  g_clear_pointer (&space->root_steps, g_array_unref);
  g_clear_pointer (&space->group_spans, g_hash_table_unref);
}

static void
add_string_list_metadata (CpXPlaneReader *reader,
                          const char     *key,
                          GPtrArray      *strings)
{
  g_autoptr(JsonBuilder) json = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_array (json);
  for (guint i = 0; i < strings->len; i++)
    json_builder_add_string_value (json, g_ptr_array_index (strings, i));
  json_builder_end_array (json);
  root = json_builder_get_root (json);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  cp_trace_builder_add_metadata (reader->builder, key, text, -1);
}

/* The Task Environment plane's profile_start_time, read before the lines of
 * any other plane. */
static void
read_start_time (Space      *space,
                 const Span *span)
{
  Plane plane = { 0 };

  plane.space = space;
  if (!plane_index (space, span, &plane))
    {
      plane_clear (&plane);
      return;
    }
  if (g_str_equal (plane.name, "Task Environment"))
    {
      for (guint i = 0; i < plane.stats->len; i++)
        {
          const Span *s = &g_array_index (plane.stats, Span, i);
          XStatVal sv;
          StatMeta *m;
          gint64 v;

          if (!parse_xstat_span (space, s, &sv))
            continue;
          m = plane_stat (&plane, sv.metadata_id);
          if (m != NULL && m->kind == SK_PROFILE_START && stat_as_int (&sv, &v) && v > 0)
            {
              space->has_start = TRUE;
              space->start_ns = v;
            }
        }
    }
  plane_clear (&plane);
}

static char *
plane_name_peek (Space      *space,
                 const Span *span)
{
  CpPbReader r;
  CpPbField f;

  reader_at (space, &r, span->data, span->len);
  while (cp_pb_reader_next (&r, &f))
    if (f.number == XPLANE_NAME && f.wire_type == CP_PB_WIRE_LEN)
      return g_strndup ((const char *) f.data, f.len);
  return NULL;
}

static gboolean
plane_name_is_gpu (Space      *space,
                   const Span *span,
                   gint64     *id)
{
  CpPbReader r;
  CpPbField f;
  gboolean gpu = FALSE;

  *id = 0;
  reader_at (space, &r, span->data, span->len);
  while (cp_pb_reader_next (&r, &f))
    {
      if (f.number == XPLANE_NAME && f.wire_type == CP_PB_WIRE_LEN)
        gpu = bytes_has_prefix (f.data, f.len, "/device:GPU:");
      else if (f.number == XPLANE_ID && f.wire_type == CP_PB_WIRE_VARINT)
        *id = cp_pb_int64 (f.value);
      else if (f.number > XPLANE_NAME)
        break;
    }
  return gpu;
}

gboolean
cp_xplane_reader_add_space (CpXPlaneReader      *self,
                            const CpXPlaneInput *input,
                            GCancellable        *cancellable,
                            GError             **error)
{
  const guint8 *data;
  gsize len;
  CpLoadReport *report;
  Space space = { 0 };
  CpPbReader top;
  CpPbField f;
  g_autoptr(GArray) planes = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GPtrArray) hostnames = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  guint64 events_before;
  gboolean ok = TRUE;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (input != NULL, FALSE);
  g_return_val_if_fail (input->data != NULL || input->len == 0, FALSE);

  data = input->data;
  len = input->len;
  report = self->report;
  events_before = report->events;
  report->input_bytes += len;

  space.reader = self;
  space.data = data;
  space.len = len;
  space.host = self->n_spaces;
  space.device_offset = self->device_offset;
  space.max_device = self->device_offset - 1;
  space.cancellable = cancellable;
  space.progress = input->progress;
  space.progress_data = input->progress_data;
  space.progress_base = input->progress_base;
  space.progress_total = input->progress_total;
  space.progress_span = input->progress_span != 0 ? input->progress_span : len;
  space.release = input->release;
  space.drop = input->drop;
  space.discard = input->discard;
  space.release_data = input->release_data;
  g_rec_mutex_init (&space.lock);
  space.planes = g_ptr_array_new ();
  space.groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  space.group_list = g_ptr_array_new_with_free_func (group_free);
  space.gpu_planes = g_array_new (FALSE, FALSE, sizeof (gint64));
  space.link_lanes = g_array_new (FALSE, FALSE, sizeof (LinkLane));
  space.link_slot = g_array_new (FALSE, TRUE, sizeof (guint));
  space.producers = g_array_new (FALSE, FALSE, sizeof (PcPoint));
  space.consumers = g_array_new (FALSE, FALSE, sizeof (PcPoint));
  space.flow_points = g_array_new (FALSE, FALSE, sizeof (FlowPoint));
  space.device_steps = g_array_new (FALSE, FALSE, sizeof (StepCand));
  space.device_steps_ordinal = -1;
  space.root_steps = g_array_new (FALSE, FALSE, sizeof (StepCand));
  space.group_spans = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  self->n_spaces++;

  /* The top level: planes, host names, the capture's own errors. */
  cp_pb_reader_init (&top, data, len, 0);
  while (cp_pb_reader_next (&top, &f))
    {
      switch (f.number)
        {
        case XSPACE_PLANES:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              Span s = { f.data, f.len, f.offset, FALSE };

              g_array_append_val (planes, s);
            }
          break;
        case XSPACE_ERRORS:
        case XSPACE_WARNINGS:
        case XSPACE_HOSTNAMES:
          if (f.wire_type == CP_PB_WIRE_LEN)
            {
              char *s = g_utf8_make_valid ((const char *) f.data,
                                           (gssize) MIN (f.len, MAX_METADATA_STRING));

              g_ptr_array_add (f.number == XSPACE_ERRORS ? errors
                               : f.number == XSPACE_WARNINGS ? warnings : hostnames, s);
            }
          break;
        default:
          break;
        }
    }
  if (top.error == CP_PB_ERROR_TRUNCATED)
    {
      note_truncated (&space, top.error_offset);
      if (f.partial && f.number == XSPACE_PLANES)
        {
          Span s = { f.data, f.len, f.offset, TRUE };

          g_array_append_val (planes, s);
        }
    }
  else if (top.error != CP_PB_OK)
    {
      note_error (&space, top.error, top.error_offset);
      if (planes->len > 0)
        cp_load_report_warn (report, top.error_offset,
                             _("The XPlane data is damaged at byte %" PRIu64
                               " (%s); what came before it was loaded"),
                             top.error_offset, cp_pb_error_to_string (top.error));
    }

  if (planes->len == 0 && top.error == CP_PB_OK && len > 0)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                   _("the XPlane capture holds no planes"));
      ok = FALSE;
      goto out;
    }

  if (hostnames->len > 0)
    space.hostname = g_strdup (g_ptr_array_index (hostnames, 0));
  else if (input->host_hint != NULL)
    space.hostname = g_strdup (input->host_hint);

  for (guint i = 0; i < errors->len; i++)
    cp_load_report_warn (report, G_MAXUINT64, _("The profiler reported an error: %s"),
                         (const char *) g_ptr_array_index (errors, i));
  for (guint i = 0; i < warnings->len; i++)
    cp_load_report_warn (report, G_MAXUINT64, _("The profiler reported: %s"),
                         (const char *) g_ptr_array_index (warnings, i));
  {
    g_autofree char *prefix = space.host > 0 && space.hostname ? g_strdup_printf ("%s ", space.hostname)
                                                                : g_strdup ("");
    if (hostnames->len > 0)
      {
        g_autofree char *key = g_strconcat (prefix, "hostnames", NULL);

        add_string_list_metadata (self, key, hostnames);
      }
    if (errors->len > 0)
      {
        g_autofree char *key = g_strconcat (prefix, "errors", NULL);

        add_string_list_metadata (self, key, errors);
      }
    if (warnings->len > 0)
      {
        g_autofree char *key = g_strconcat (prefix, "warnings", NULL);

        add_string_list_metadata (self, key, warnings);
      }
  }

  /* The time base and the GPU plane ids, before any line. */
  for (guint i = 0; i < planes->len; i++)
    {
      const Span *s = &g_array_index (planes, Span, i);
      g_autofree char *name = plane_name_peek (&space, s);
      gint64 id;

      if (name != NULL && g_str_equal (name, "Task Environment"))
        read_start_time (&space, s);
      if (plane_name_is_gpu (&space, s, &id))
        g_array_append_val (space.gpu_planes, id);
    }
  if (space.has_start)
    {
      self->any_epoch = TRUE;
      cp_trace_builder_set_epoch_base (self->builder, space.start_ns);
    }

  for (guint i = 0; i < planes->len && !space.cancelled; i++)
    {
      const Span *s = &g_array_index (planes, Span, i);

      read_plane (&space, s, i);
      check_progress (&space, (s->offset + s->len) / HEADER_SHARE);
    }
  space_read_lines (&space);

  if (space.cancelled)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Loading was cancelled"));
      ok = FALSE;
      goto out;
    }

  if (!space.any_event && space.first_error != CP_PB_OK)
    {
      self->error_reason = space.first_error;
      self->error_offset = space.first_error_offset;
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                   _("The XPlane data is damaged at byte %" PRIu64 ": %s"),
                   space.first_error_offset, cp_pb_error_to_string (space.first_error));
      ok = FALSE;
      goto out;
    }
  if (report->truncated && report->events > events_before)
    cp_load_report_warn (report, report->stopped_at,
                         _("The capture is cut off at byte %" PRIu64 " (in data that "
                           "starts at byte %" PRIu64 "); everything before the cut "
                           "that could be read was loaded"),
                         (guint64) input->len, report->stopped_at);
  else if (report->truncated)
    cp_load_report_warn (report, report->stopped_at,
                         _("The capture is cut off at byte %" PRIu64 ", before its first "
                           "complete event (a field that starts at byte %" PRIu64 " reaches "
                           "past the end)"),
                         (guint64) input->len, report->stopped_at);

  if (space.unknown_metadata > 0)
    cp_load_report_warn (report, G_MAXUINT64,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%" PRIu64 " event refers to event metadata that its "
                                      "plane does not define; it has no name",
                                      "%" PRIu64 " events refer to event metadata that their "
                                      "plane does not define; they have no name",
                                      space.unknown_metadata),
                         space.unknown_metadata);

  space_link (&space);
  self->device_offset = MAX (self->device_offset, space.max_device + 1);
  if (space.progress != NULL)
    space.progress (space.progress_base + space.progress_span, space.progress_total,
                    space.progress_data);

out:
  space_clear (&space);
  return ok;
}

static gint
cmp_step_cand (gconstpointer a,
               gconstpointer b)
{
  const StepCand *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->number < y->number ? -1 : (x->number > y->number);
}

void
cp_xplane_reader_finish (CpXPlaneReader *self)
{
  g_return_if_fail (self != NULL);

  if (self->steps_done)
    return;
  self->steps_done = TRUE;
  g_array_sort (self->steps, cmp_step_cand);
  for (guint i = 0; i < self->steps->len; i++)
    {
      const StepCand *c = &g_array_index (self->steps, StepCand, i);

      cp_trace_builder_add_step (self->builder, c->number, c->start, c->end, c->marker);
    }
}

/* ------------------------------------------------------------------------ */
/* Decoding packed stats                                                     */

static gboolean
decode_into (CpTrace       *trace,
             const guint8  *data,
             gsize          len,
             GPtrArray     *out,
             GHashTable    *index,
             guint          depth,
             GError       **error)
{
  const guint8 *p = data, *end = data + len;
  CpPbError err = CP_PB_OK;

  if (depth > 4)
    {
      g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                           _("XPlane stats include each other too deeply"));
      return FALSE;
    }

  while (p < end)
    {
      guint64 key, v;
      guint8 type;
      char *value = NULL;

      if (!cp_pb_read_varint (&p, end, &key, &err) || p >= end)
        goto bad;
      type = *p++;
      switch (type)
        {
        case CP_XSTAT_INT64:
          if (!cp_pb_read_varint (&p, end, &v, &err))
            goto bad;
          value = g_strdup_printf ("%" G_GINT64_FORMAT, cp_pb_sint64 (v));
          break;
        case CP_XSTAT_UINT64:
          if (!cp_pb_read_varint (&p, end, &v, &err))
            goto bad;
          value = g_strdup_printf ("%" G_GUINT64_FORMAT, v);
          break;
        case CP_XSTAT_DOUBLE:
          {
            char buf[G_ASCII_DTOSTR_BUF_SIZE];

            if (end - p < 8)
              goto bad;
            g_ascii_dtostr (buf, sizeof buf, cp_pb_double (cp_pb_load_fixed64 (p)));
            p += 8;
            value = g_strdup (buf);
          }
          break;
        case CP_XSTAT_STRING:
          if (!cp_pb_read_varint (&p, end, &v, &err) || v > G_MAXUINT32)
            goto bad;
          value = g_strdup (cp_trace_get_string (trace, (CpStr) v));
          break;
        case CP_XSTAT_BYTES:
          if (!cp_pb_read_varint (&p, end, &v, &err))
            goto bad;
          value = g_strdup_printf (_("(%" PRIu64 " bytes)"), v);
          break;
        case CP_XSTAT_INCLUDE:
          {
            CpArgsFormat fmt;
            const guint8 *idata;
            gsize ilen;

            if (!cp_pb_read_varint (&p, end, &v, &err) || v > G_MAXUINT32)
              goto bad;
            if (!cp_trace_get_args_by_id (trace, (guint32) v, &fmt, &idata, &ilen) ||
                fmt != CP_ARGS_XSTATS)
              goto bad;
            if (!decode_into (trace, idata, ilen, out, index, depth + 1, error))
              return FALSE;
          }
          continue;
        default:
          goto bad;
        }

      {
        const char *k = cp_trace_get_string (trace, key > G_MAXUINT32 ? 0 : (CpStr) key);
        gpointer pos;

        if (g_hash_table_lookup_extended (index, k, NULL, &pos))
          {
            CpXStatEntry *e = g_ptr_array_index (out, GPOINTER_TO_UINT (pos));

            g_free (e->value);
            e->value = value;
          }
        else
          {
            CpXStatEntry *e = g_new (CpXStatEntry, 1);

            e->key = g_strdup (k);
            e->value = value;
            g_hash_table_insert (index, e->key, GUINT_TO_POINTER (out->len));
            g_ptr_array_add (out, e);
          }
      }
    }
  return TRUE;

bad:
  g_set_error_literal (error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                       _("The stats of this event are malformed"));
  return FALSE;
}

static void
xstat_entry_free (gpointer data)
{
  CpXStatEntry *e = data;

  g_free (e->key);
  g_free (e->value);
  g_free (e);
}

GPtrArray *
cp_xstats_decode (CpTrace       *trace,
                  const guint8  *data,
                  gsize          len,
                  GError       **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (xstat_entry_free);
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);
  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (!decode_into (trace, data, len, out, index, 0, error))
    return NULL;
  return g_steal_pointer (&out);
}

/* ------------------------------------------------------------------------ */
/* Files and folders                                                         */

static void
release_source (guint64  offset,
                gpointer data)
{
  cp_source_release_before (data, offset);
}

static void
drop_source (guint64  from,
             guint64  to,
             gpointer data)
{
  cp_source_drop_range (data, from, to);
}

/* Decompressed input: drop the pages before offset too (they are never read
 * again and their content is not needed). */
typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   released;
} HeapInput;

static void
release_heap (guint64  offset,
              gpointer data)
{
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  HeapInput *h = data;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  if (page <= 0 || offset > h->len)
    return;
  start = ((guintptr) h->data + h->released + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) h->data + offset) & ~((guintptr) page - 1);
  if (stop > start)
    {
      madvise ((void *) start, stop - start, MADV_DONTNEED);
      h->released = stop - (guintptr) h->data;
    }
#endif
}

/* Pages wholly inside a range read for good: dropped (their content is
 * lost, which is fine). Pages shared with data not yet read stay. */
static void
discard_heap (guint64  from,
              guint64  to,
              gpointer data)
{
#if defined(G_OS_UNIX) && defined(MADV_DONTNEED)
  HeapInput *h = data;
  long page = sysconf (_SC_PAGESIZE);
  guintptr start, stop;

  if (page <= 0 || from >= to || to > h->len)
    return;
  start = ((guintptr) h->data + from + page - 1) & ~((guintptr) page - 1);
  stop = ((guintptr) h->data + to) & ~((guintptr) page - 1);
  if (stop > start)
    madvise ((void *) start, stop - start, MADV_DONTNEED);
#endif
}

/* Decompressed input --------------------------------------------------------- */

typedef struct
{
  void  *addr;
  gsize  len;
} Inflated;

static void
unmap_inflated (gpointer data)
{
  Inflated *m = data;

  munmap (m->addr, m->len);
  g_free (m);
}

/* Writes all of data to fd. */
static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         len,
           int          *err)
{
  while (len > 0)
    {
      gssize n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          *err = n < 0 ? errno : ENOSPC;
          return FALSE;
        }
      data += n;
      len -= n;
    }
  return TRUE;
}

static guint inflate_in_memory = CP_XPLANE_INFLATE_IN_MEMORY;

void
_cp_xplane_set_inflate_in_memory (guint bytes)
{
  g_atomic_int_set (&inflate_in_memory, bytes != 0 ? bytes : CP_XPLANE_INFLATE_IN_MEMORY);
}

/* Makes an unlinked temporary file in the cache folder (else the temporary
 * folder); *folder says where. */
static int
open_spill_file (char   **folder,
                 int     *err)
{
  g_autofree char *tmpl = NULL;
  int fd;

  *folder = g_build_filename (g_get_user_cache_dir (), "chokepoint", NULL);
  if (g_mkdir_with_parents (*folder, 0700) != 0)
    {
      g_free (*folder);
      *folder = g_strdup (g_get_tmp_dir ());
    }
  tmpl = g_build_filename (*folder, "inflate-XXXXXX", NULL);
  fd = g_mkstemp_full (tmpl, O_RDWR | O_CLOEXEC, 0600);
  *err = errno;
  /* Gone from the folder at once; the data lives as long as the mapping. */
  if (fd >= 0)
    g_unlink (tmpl);
  return fd;
}

/* Decompresses source: in memory up to CP_XPLANE_INFLATE_IN_MEMORY bytes,
 * past that into an unlinked temporary file that is then mapped, so that a
 * large capture's decompressed bytes are the kernel's page cache (read once
 * and discarded) rather than the heap. Returns NULL with error set when
 * nothing usable came out (cancelled, a limit, no disk space, no address
 * space, no data); else the bytes, with *error set when the compressed data
 * ended early or was damaged after some of it. */
static GBytes *
inflate_whole (CpSource            *source,
               CpLoadProgressFunc   progress,
               guint64              progress_base,
               guint64              progress_total,
               gpointer             progress_data,
               GCancellable        *cancellable,
               GError             **error)
{
  g_autoptr(GByteArray) buf = g_byte_array_new ();
  g_autofree char *folder = NULL;
  g_autoptr(GError) read_error = NULL;
  guint64 len = 0;
  GBytes *chunk;
  void *addr;
  int fd = -1, err = 0;

  while ((chunk = cp_source_read (source, cancellable, &read_error)) != NULL)
    {
      gsize n;
      const guint8 *d = g_bytes_get_data (chunk, &n);
      gboolean ok = TRUE;

      if (len + n > CP_XPLANE_MAX_DECOMPRESSED)
        {
          g_bytes_unref (chunk);
          if (fd >= 0)
            close (fd);
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                       _("“%s” holds more than 4 GiB of XPlane data once decompressed; "
                         "decompress it and open the plain file"),
                       cp_source_get_name (source));
          return NULL;
        }
      if (fd < 0 && len + n > (guint) g_atomic_int_get (&inflate_in_memory))
        {
          fd = open_spill_file (&folder, &err);
          if (fd < 0)
            {
              g_bytes_unref (chunk);
              g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO,
                           _("“%s” cannot be decompressed: no temporary file can be made in "
                             "“%s” (%s)"),
                           cp_source_get_name (source), folder, g_strerror (err));
              return NULL;
            }
          ok = write_all (fd, buf->data, buf->len, &err);
          g_byte_array_set_size (buf, 0);
          g_clear_pointer (&buf, g_byte_array_unref);
          buf = g_byte_array_new ();
        }
      if (fd >= 0)
        ok = ok && write_all (fd, d, n, &err);
      else
        g_byte_array_append (buf, d, n);
      g_bytes_unref (chunk);
      if (!ok)
        {
          g_autofree char *done = g_format_size (len);

          close (fd);
          g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_IO,
                       _("“%s” cannot be decompressed into “%s”: %s (after %s)"),
                       cp_source_get_name (source), folder, g_strerror (err), done);
          return NULL;
        }
      len += n;
      if (progress != NULL)
        progress (progress_base + cp_source_get_consumed (source) / 2, progress_total, progress_data);
    }
  if (read_error != NULL &&
      (g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
       g_error_matches (read_error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT) || len == 0))
    {
      if (fd >= 0)
        close (fd);
      g_propagate_error (error, g_steal_pointer (&read_error));
      return NULL;
    }
  if (len == 0)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY, _("The capture holds no events"));
      return NULL;
    }
  if (read_error != NULL)
    g_propagate_error (error, g_steal_pointer (&read_error));
  if (fd < 0)
    return g_byte_array_free_to_bytes (g_steal_pointer (&buf));

  addr = mmap (NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  err = errno;
  close (fd);
  if (addr == MAP_FAILED)
    {
      g_autofree char *size = g_format_size (len);

      g_clear_error (error);
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_LIMIT,
                   _("“%s” cannot be read: its %s of decompressed XPlane data do not fit in "
                     "this process’s memory (%s)"),
                   cp_source_get_name (source), size, g_strerror (err));
      return NULL;
    }
#ifdef MADV_SEQUENTIAL
  madvise (addr, len, MADV_SEQUENTIAL);
#endif
  {
    Inflated *m = g_new (Inflated, 1);

    m->addr = addr;
    m->len = len;
    return g_bytes_new_with_free_func (addr, len, unmap_inflated, m);
  }
}

static char *
host_hint_for (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);
  static const char *const suffixes[] = { ".xplane.pb.gz", ".xplane.pb.zst", ".xplane.pb", ".pb" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (base, suffixes[i]))
      {
        base[strlen (base) - strlen (suffixes[i])] = '\0';
        break;
      }
  return g_steal_pointer (&base);
}

gboolean
cp_xplane_reader_read (CpXPlaneReader      *self,
                       CpSource            *source,
                       GCancellable        *cancellable,
                       CpLoadProgressFunc   progress,
                       gpointer             progress_data,
                       guint64              progress_base,
                       guint64              progress_total,
                       GError             **error)
{
  g_autofree char *hint = host_hint_for (cp_source_get_file (source));
  CpXPlaneInput input = { 0 };
  GBytes *mapped;
  gboolean ok;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (source != NULL, FALSE);

  input.host_hint = hint;
  input.progress_data = progress_data;
  input.progress = progress;
  input.progress_base = progress_base;
  input.progress_total = progress_total;
  input.progress_span = cp_source_get_file_size (source);

  mapped = cp_source_get_mapped (source);
  if (mapped != NULL)
    {
      gsize size;

      input.data = g_bytes_get_data (mapped, &size);
      input.len = size;
      input.release = release_source;
      input.drop = drop_source;
      input.discard = drop_source;
      input.release_data = source;
      ok = cp_xplane_reader_add_space (self, &input, cancellable, error);
    }
  else
    {
      /* The walker needs the whole XSpace (each plane's metadata follows its
       * lines): decompress it whole, within the source's limits; a large one
       * goes through a temporary file (see inflate_whole()), so that memory
       * follows the model, not the decompressed size. */
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) inflated = NULL;
      HeapInput heap;

      inflated = inflate_whole (source, progress, progress_base, progress_total, progress_data,
                                     cancellable, &local_error);
      if (inflated == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      if (local_error != NULL)
        {
          CpLoadReport *report = cp_trace_builder_get_report (self->builder);
          gsize len = g_bytes_get_size (inflated);

          /* Compressed data that ends early or is corrupt: read what came out. */
          cp_load_report_warn (report, len, "%s", local_error->message);
          report->truncated = TRUE;
          report->stopped_at = MIN (report->stopped_at, (guint64) len);
        }
      heap.data = (guint8 *) g_bytes_get_data (inflated, NULL);
      heap.len = g_bytes_get_size (inflated);
      heap.released = 0;
      input.data = heap.data;
      input.len = heap.len;
      input.release = release_heap;
      input.discard = discard_heap;
      input.release_data = &heap;
      /* Reading reported the first half of the file's share. */
      input.progress_base = progress_base + cp_source_get_file_size (source) / 2;
      input.progress_span = cp_source_get_file_size (source) - cp_source_get_file_size (source) / 2;
      ok = cp_xplane_reader_add_space (self, &input, cancellable, error);
    }
  if (!ok && error != NULL && *error != NULL &&
      g_error_matches (*error, CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED))
    {
      GError *named = g_error_new (CP_TRACE_ERROR, CP_TRACE_ERROR_DAMAGED,
                                   _("“%s” is not a readable XPlane capture: it is damaged at "
                                     "byte %" PRIu64 " (%s)"),
                                   cp_source_get_name (source), self->error_offset,
                                   cp_pb_error_to_string (self->error_reason));

      g_clear_error (error);
      g_propagate_error (error, named);
    }
  else if (!ok && error != NULL && *error != NULL &&
           g_error_matches (*error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY))
    g_prefix_error (error, "“%s”: ", cp_source_get_name (source));
  return ok;
}

static gboolean
is_xplane_name (const char *name)
{
  return g_str_has_suffix (name, ".xplane.pb") || g_str_has_suffix (name, ".xplane.pb.gz") ||
         g_str_has_suffix (name, ".xplane.pb.zst");
}

/* The XPlane files directly in dir, sorted by name. */
static GPtrArray *
list_xplane_files (GFile        *dir,
                   GCancellable *cancellable)
{
  g_autoptr(GFileEnumerator) e = NULL;
  GPtrArray *files = g_ptr_array_new_with_free_func (g_object_unref);
  GFileInfo *info;

  e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                 G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  while (e != NULL && (info = g_file_enumerator_next_file (e, cancellable, NULL)) != NULL)
    {
      const char *name = g_file_info_get_name (info);

      if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR && is_xplane_name (name))
        g_ptr_array_add (files, g_file_get_child (dir, name));
      g_object_unref (info);
    }
  return files;
}

static gint
cmp_file_names (gconstpointer a,
                gconstpointer b)
{
  g_autofree char *x = g_file_get_basename (*(GFile **) a);
  g_autofree char *y = g_file_get_basename (*(GFile **) b);

  return strcmp (x, y);
}

static gboolean
looks_like_run_name (const char *name)
{
  /* %Y_%m_%d_%H_%M_%S */
  static const char pattern[] = "dddd_dd_dd_dd_dd_dd";

  for (guint i = 0; i < sizeof pattern - 1; i++)
    {
      if (name[i] == '\0')
        return FALSE;
      if (pattern[i] == 'd' ? !g_ascii_isdigit (name[i]) : name[i] != '_')
        return FALSE;
    }
  return TRUE;
}

/* The newest run folder under a plugins/profile folder that holds XPlane
 * files: by name when runs are named by their start time, else by mtime. */
static GFile *
newest_run (GFile        *profile_dir,
            GCancellable *cancellable)
{
  g_autoptr(GFileEnumerator) e = NULL;
  GFileInfo *info;
  GFile *best = NULL;
  char *best_name = NULL;
  guint64 best_mtime = 0;
  gboolean all_named = TRUE;
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GArray) mtimes = g_array_new (FALSE, FALSE, sizeof (guint64));

  e = g_file_enumerate_children (profile_dir,
                                 G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                 G_FILE_ATTRIBUTE_TIME_MODIFIED,
                                 G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  while (e != NULL && (info = g_file_enumerator_next_file (e, cancellable, NULL)) != NULL)
    {
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          g_autoptr(GFile) child = g_file_get_child (profile_dir, g_file_info_get_name (info));
          g_autoptr(GPtrArray) files = list_xplane_files (child, cancellable);

          if (files->len > 0)
            {
              guint64 mtime = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_TIME_MODIFIED);

              all_named = all_named && looks_like_run_name (g_file_info_get_name (info));
              g_ptr_array_add (runs, g_steal_pointer (&child));
              g_array_append_val (mtimes, mtime);
            }
        }
      g_object_unref (info);
    }

  for (guint i = 0; i < runs->len; i++)
    {
      GFile *run = g_ptr_array_index (runs, i);
      g_autofree char *name = g_file_get_basename (run);
      guint64 mtime = g_array_index (mtimes, guint64, i);
      gboolean better;

      if (best == NULL)
        better = TRUE;
      else if (all_named)
        better = strcmp (name, best_name) > 0;
      else
        better = mtime > best_mtime || (mtime == best_mtime && strcmp (name, best_name) > 0);
      if (better)
        {
          best = run;
          g_free (best_name);
          best_name = g_steal_pointer (&name);
          best_mtime = mtime;
        }
    }
  g_free (best_name);
  return best != NULL ? g_object_ref (best) : NULL;
}

static GFile *
find_run_folder (GFile        *folder,
                 GCancellable *cancellable)
{
  g_autoptr(GPtrArray) direct = list_xplane_files (folder, cancellable);
  g_autoptr(GFile) profile = NULL;
  GFile *run;

  if (direct->len > 0)
    return g_object_ref (folder);
  /* A logdir: logdir/plugins/profile/<run>/. */
  profile = g_file_resolve_relative_path (folder, "plugins/profile");
  if (g_file_query_file_type (profile, G_FILE_QUERY_INFO_NONE, cancellable) == G_FILE_TYPE_DIRECTORY &&
      (run = newest_run (profile, cancellable)) != NULL)
    return run;
  /* plugins/profile itself (or any folder of runs). */
  return newest_run (folder, cancellable);
}

CpTrace *
cp_xplane_load_folder (GFile               *folder,
                       GCancellable        *cancellable,
                       CpLoadProgressFunc   progress,
                       gpointer             progress_data,
                       GError             **error)
{
  g_autofree char *name = NULL;
  g_autoptr(GFile) run = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(CpXPlaneReader) reader = NULL;
  g_autoptr(GError) first_error = NULL;
  g_autofree char *title = NULL;
  g_autofree char *run_name = NULL;
  CpTraceBuilder *builder;
  CpLoadReport *report;
  guint64 total = 0, base = 0;
  guint n_read = 0;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  name = g_file_get_parse_name (folder);
  run = find_run_folder (folder, cancellable);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (run == NULL)
    {
      g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                   _("“%s” is a folder without XPlane captures (.xplane.pb files), neither in it "
                     "nor in a plugins/profile/<run> folder below it"),
                   name);
      return NULL;
    }
  files = list_xplane_files (run, cancellable);
  g_ptr_array_sort (files, cmp_file_names);

  for (guint i = 0; i < files->len; i++)
    {
      g_autoptr(GFileInfo) info = g_file_query_info (g_ptr_array_index (files, i),
                                                     G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                     G_FILE_QUERY_INFO_NONE, cancellable, NULL);

      if (info != NULL)
        total += g_file_info_get_size (info);
    }

  builder = cp_trace_builder_new ();
  reader = cp_xplane_reader_new (builder);
  report = cp_trace_builder_get_report (builder);
  g_free (report->format);
  report->format = g_strdup ("xplane-folder");
  report->file_bytes = total;
  cp_trace_builder_set_file (builder, folder);
  run_name = g_file_get_basename (run);
  if (files->len > 1)
    title = g_strdup_printf (ngettext ("%s (%u host)", "%s (%u hosts)", files->len), run_name,
                             files->len);
  else
    title = g_strdup (run_name);
  cp_trace_builder_set_title (builder, title);

  for (guint i = 0; i < files->len; i++)
    {
      GFile *file = g_ptr_array_index (files, i);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(CpSource) source = cp_source_open (file, cancellable, &local_error);
      guint64 size = 0;

      if (source != NULL)
        {
          size = cp_source_get_file_size (source);
          if (cp_source_get_content_kind (source) != CP_CONTENT_XPLANE)
            g_set_error (&local_error, CP_TRACE_ERROR, CP_TRACE_ERROR_NOT_A_TRACE,
                         _("“%s” is not an XPlane capture: it looks like %s"),
                         cp_source_get_name (source), cp_source_get_guess (source));
          else if (cp_xplane_reader_read (reader, source, cancellable, progress, progress_data,
                                          base, total, &local_error))
            n_read++;
          else if (local_error != NULL && !g_str_has_prefix (local_error->message, "“"))
            g_prefix_error (&local_error, "“%s”: ", cp_source_get_name (source));
        }
      base += size;
      if (local_error != NULL)
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              cp_trace_builder_free (builder);
              g_propagate_error (error, g_steal_pointer (&local_error));
              return NULL;
            }
          cp_load_report_warn (report, G_MAXUINT64, "%s", local_error->message);
          if (first_error == NULL)
            first_error = g_steal_pointer (&local_error);
        }
    }

  if (n_read == 0)
    {
      cp_trace_builder_free (builder);
      if (first_error != NULL)
        g_propagate_error (error, g_steal_pointer (&first_error));
      else
        g_set_error (error, CP_TRACE_ERROR, CP_TRACE_ERROR_EMPTY,
                     _("“%s” holds no readable XPlane captures"), name);
      return NULL;
    }
  cp_xplane_reader_finish (reader);
  g_clear_pointer (&reader, cp_xplane_reader_free);
  return cp_trace_builder_finish (builder, error);
}

static void
set_entry (GPtrArray  *out,
           const char *key,
           char       *value)
{
  for (guint i = 0; i < out->len; i++)
    {
      CpXStatEntry *e = g_ptr_array_index (out, i);

      if (g_str_equal (e->key, key))
        {
          g_free (e->value);
          e->value = value;
          return;
        }
    }
  {
    CpXStatEntry *e = g_new (CpXStatEntry, 1);

    e->key = g_strdup (key);
    e->value = value;
    g_ptr_array_add (out, e);
  }
}

GPtrArray *
cp_xstats_decode_slice (CpTrace     *trace,
                        CpSliceRef   ref,
                        GError     **error)
{
  g_autoptr(GPtrArray) out = NULL;
  CpArgsFormat format = CP_ARGS_NONE;
  const guint8 *data = NULL;
  gsize len = 0;
  const CpSlices *s;

  g_return_val_if_fail (CP_IS_TRACE (trace), NULL);

  if (!cp_trace_slice_ref_valid (trace, ref))
    return g_ptr_array_new_with_free_func (xstat_entry_free);
  if (cp_trace_get_args (trace, ref, &format, &data, &len) && format == CP_ARGS_XSTATS)
    out = cp_xstats_decode (trace, data, len, error);
  else
    out = g_ptr_array_new_with_free_func (xstat_entry_free);
  if (out == NULL)
    return NULL;

  s = cp_lane_get_slices (cp_trace_get_lane (trace, ref.lane));
  if (cp_slices_get_corr (s, ref.index) != CP_NONE)
    set_entry (out, "correlation_id", g_strdup_printf ("%" G_GINT64_FORMAT, cp_slices_get_corr (s, ref.index)));
  if (cp_slices_get_ext (s, ref.index) != CP_NONE)
    set_entry (out, "group_id", g_strdup_printf ("%" G_GINT64_FORMAT, cp_slices_get_ext (s, ref.index)));
  return g_steal_pointer (&out);
}
