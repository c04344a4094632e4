/* cp-classify.h: what an event is, told from its name (diagnosis-rules.md §6)
 *
 * Copyright 2026 The Chokepoint authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "model/cp-trace.h"

G_BEGIN_DECLS

/* Facts read from an event name. A name can have several. */
typedef enum
{
  CP_NAME_TENSOR_CORE   = 1u << 0,  /* kernel name has a tensor-core pattern */
  CP_NAME_HALF          = 1u << 1,  /* 16-bit or 8-bit floating point in the name */
  CP_NAME_COLLECTIVE    = 1u << 2,  /* NCCL / RCCL / HCCL kernel */
  CP_NAME_MEMCPY        = 1u << 3,  /* device copy named Memcpy... */
  CP_NAME_MEMSET        = 1u << 4,  /* device memset named Memset... */
  CP_NAME_SYNC          = 1u << 5,  /* host call that blocks until the device is done */
  CP_NAME_LAUNCH        = 1u << 6,  /* kernel / copy / graph launch API */
  CP_NAME_RUNTIME       = 1u << 7,  /* any CUDA / HIP runtime or driver API */
  CP_NAME_INPUT_WAIT    = 1u << 8,  /* waiting for the next batch */
  CP_NAME_LOADER_SINGLE = 1u << 9,  /* PyTorch DataLoader with num_workers=0 */
  CP_NAME_TC_ELIGIBLE   = 1u << 10, /* host op that tensor cores can run */
  CP_NAME_GEMM_LIKE     = 1u << 11, /* kernel doing matmul / convolution work */
  CP_NAME_STEP          = 1u << 12, /* ProfilerStep#N */
  CP_NAME_DATAPARALLEL  = 1u << 13, /* single-process torch.nn.DataParallel forward */
  CP_NAME_DDP           = 1u << 14, /* DistributedDataParallel forward */
  CP_NAME_HOST_COMM     = 1u << 15, /* collective executed by the CPU (gloo) */
  CP_NAME_ITEM          = 1u << 16, /* .item()-style scalar read that waits */
  CP_NAME_DEVICE_WAIT   = 1u << 17, /* device-side wait marker (Stream Sync...) */
  CP_NAME_PAGEABLE      = 1u << 18, /* copy from / to pageable host memory */
  CP_NAME_SYNC_COPY     = 1u << 19, /* blocking (non-Async) cudaMemcpy / cudaMemset */
  CP_NAME_LOADER_NEXT   = 1u << 20, /* enumerate(DataLoader)#...__next__: one batch fetched */
  CP_NAME_OPTIMIZER_STEP = 1u << 21, /* Optimizer.step#...: the end of a training iteration */
  CP_NAME_DATA_MOVEMENT = 1u << 22, /* kernel that only moves or lays out data (transpose, copy, fill...) */
} CpNameFlags;

/* Bits 24..26 of the flags: the copy direction of a CP_NAME_MEMCPY name. */
#define CP_NAME_COPY_SHIFT 24
#define CP_NAME_COPY_MASK  (7u << CP_NAME_COPY_SHIFT)

/* XLA ops as XProf's op profile groups them, from the HLO opcode in the op
 * name ("%copy-done.2 = f32[...] copy-done(...)", "loop_add_fusion.kd",
 * "all-reduce.3") or the hlo_category stat. */
typedef enum
{
  CP_XLA_OP_NONE,            /* not recognisably an XLA op */
  CP_XLA_OP_CONVOLUTION,     /* convolution, convolution fusion */
  CP_XLA_OP_MATMUL,          /* dot, gemm / cuBLAS custom calls, dot fusions */
  CP_XLA_OP_LOOP_FUSION,     /* kLoop fusion */
  CP_XLA_OP_INPUT_FUSION,    /* kInput fusion (reductions) */
  CP_XLA_OP_OUTPUT_FUSION,   /* kOutput fusion */
  CP_XLA_OP_CUSTOM_FUSION,   /* kCustom fusion, custom calls */
  CP_XLA_OP_COLLECTIVE,      /* all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute (and -start/-done) */
  CP_XLA_OP_SEND_RECV,       /* send, recv (and -done) */
  CP_XLA_OP_ASYNC,           /* copy-start / copy-done and other -start / -done pairs: waits, not compute */
  CP_XLA_OP_COPY,            /* synchronous copy */
  CP_XLA_OP_INFEED,          /* infeed: input from the host */
  CP_XLA_OP_OUTFEED,         /* outfeed: output to the host */
  CP_XLA_OP_DATA_FORMATTING, /* transpose, reshape, bitcast, broadcast, pad, slice, concatenate... */
  CP_XLA_OP_CONTROL_FLOW,    /* while, conditional, call */
  CP_XLA_OP_OTHER,           /* elementwise and other XLA ops */
  CP_N_XLA_OP_CLASSES
} CpXlaOpClass;

/* The class of an XLA op from its hlo_category stat (may be NULL) and, when
 * that does not tell, its name. CP_XLA_OP_NONE when neither looks like XLA. */
CpXlaOpClass    cp_classify_xla_op         (const char *name,
                                            const char *hlo_category);
/* "convolution", "matmul", "loop_fusion"... for JSON. */
const char     *cp_xla_op_class_to_string  (CpXlaOpClass op_class);

guint32         cp_classify_name           (const char *name);

/* The string value of stat key in the CP_ARGS_XSTATS record args_id (see
 * formats/cp-xplane-reader.h; includes followed, a later entry winning);
 * CP_STR_EMPTY when it is absent, not a string, or the record is not XPlane
 * stats. */
CpStr           cp_xstats_find_string      (CpTrace    *trace,
                                            guint32     args_id,
                                            CpStr       key);
/* The same for an integer stat (int64 or uint64 up to G_MAXINT64). */
gboolean        cp_xstats_find_int         (CpTrace    *trace,
                                            guint32     args_id,
                                            CpStr       key,
                                            gint64     *value);
CpTransferKind  cp_classify_copy_kind      (guint32     flags);

/* An Inductor (torch.compile) kernel's name, "triton_red_fused_add_mean_0"
 * or "cpp_fused_mul_1": its kind (N_("pointwise"), N_("reduction"),
 * N_("persistent reduction"), N_("template"), N_("foreach"), or
 * N_("C++") for a CPU kernel, untranslated) and the names of the ops it
 * fuses as Inductor joined them ("add_mean", newly allocated). FALSE for
 * other names. */
gboolean        cp_classify_inductor_kernel (const char  *name,
                                             const char **kind,
                                             char       **fused);

/* Substring patterns behind CP_NAME_TENSOR_CORE (NULL-terminated): XProf's
 * kTensorCoreKernelNamePatterns, then Chokepoint's additions. */
const char * const *cp_classify_tensor_core_patterns (void);

/* A per-trace cache of cp_classify_name() by string id. Not thread-safe:
 * one per analysis run. */
typedef struct _CpNameCache CpNameCache;

CpNameCache    *cp_name_cache_new          (CpTrace     *trace);
void            cp_name_cache_free         (CpNameCache *cache);
guint32         cp_name_cache_lookup       (CpNameCache *cache,
                                            CpStr        name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CpNameCache, cp_name_cache_free)

G_END_DECLS
